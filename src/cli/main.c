/* main.c - the texla command-line program: `texla run FILE`, `texla info`, `texla tune FILE.mtx`
 * (tune.c), --help, --version.
 * Exit status: 0 success; 1 a script error (FILE:LINE:COLUMN: error: ... on stderr), an
 * unreadable script or no GL context; 2 a usage error. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: texla [--backend B] run [--strict] [--progress|--no-progress] FILE\n"
    "                          run a script (FILE - reads standard input)\n"
    "       texla [--backend B] info   describe the GL context texla gets (headless EGL)\n"
    "                          and its tuning cache\n"
    "       texla tune FILE.mtx [--block B] [--transposed] [--backend fragment|compute]\n"
    "                          time the sparse product's variants for this matrix here;\n"
    "                          the last line: best <format> <schedule> <microseconds> us\n"
    "       texla --help       this help, with the script language\n"
    "       texla --version\n"
    "Options: --backend fragment|compute|auto  every operation's backend (default auto: the\n"
    "           faster one, measured when the context is made); --strict  a solve that does not\n"
    "           reach its tolerance is an error (exit 1); --progress  solver progress on stderr\n"
    "           always (default: on a terminal, for solves over a second); --no-progress  never.\n";

static const char help_text[] =
    "\n"
    "Exit status: 0 success; 1 a script error, reported as FILE:LINE:COLUMN: error: MESSAGE,\n"
    "or no GL context (with --strict also a solve that misses its tolerance); 2 a usage error.\n"
    "A script is parsed whole before it runs: a syntax error anywhere runs nothing. Files are\n"
    "written atomically (a temporary file, then rename).\n"
    "\n"
    "SCRIPTS: one statement per line (or several separated by ';'), # starts a comment.\n"
    "  NAME = EXPR                    assign (values are numbers, dense matrices, vectors (n x 1,\n"
    "                                 of any length the GL's textures hold), banded and sparse\n"
    "                                 matrices; a name of a function cannot be a variable)\n"
    "  print EXPR                     shape and values (10 x 10 at most), a number as a number\n"
    "  print \"text\", EXPR, ...        the items on one line, then the values of matrices\n"
    "  save EXPR \"x.mtx\"              Matrix Market: array file for dense matrices, vectors\n"
    "                                 and numbers, coordinate file for banded and sparse\n"
    "  png EXPR \"x.png\" [OPTIONS]     an image; a vector with a grid is drawn on its grid\n"
    "      raw  map gray|viridis|diverging|gray16|auto  range LO HI  scale K\n"
    "      colorbar        a colour bar with the range's numbers\n"
    "      plot [log] [title \"T\"] [size W H]   a vector as a line plot (log10 value axis)\n"
    "      spy [colour]    the nonzero pattern: dark dots on white (coloured by value)\n"
    "      labels          banded: a separator and the offset of each diagonal\n"
    "  time STATEMENT                 run it, wait for the GPU, print the milliseconds\n"
    "  STATEMENT history \"r.png\"      the residual history of the statement's last solve\n"
    "                                 (cg or lcp) as a log-scale plot\n"
    "A warning says when a file's name does not end in what is written (.mtx, .png).\n"
    "Expressions, loosest first: + -   then * / .*   then unary -   then ' (transpose).\n"
    "  A * B      matrix product (A' * B and A * B' use texla's transposed products, and\n"
    "             so does A' * x of a sparse A);\n"
    "             banded or sparse A times a vector; a number times anything\n"
    "  A + B, A - B, A .* B   element-wise (a number is added to every element); X / s\n"
    "  x(i), A(i, j)   one element (indices from 1, as in Matrix Market files)\n"
    "  load \"a.mtx\" [as dense|banded|sparse]   coordinate files load as sparse, array files\n"
    "             as dense; banded keeps the diagonals present in the file; a .png file\n"
    "             loads its grey levels (a gray16 dump reads back its values)\n"
    "  rand(R, C[, SEED])   uniform in [-1, 1): MRG32k3a, row-major, SEED 0 by default\n"
    "  zeros(R[, C])  ones(R[, C])  eye(N)\n"
    "  poisson(NX, NY[, ALPHA, BETA])   banded ALPHA I + BETA P, P the 5-point Laplacian of an\n"
    "             NX x NY grid (default 0, 1); vectors it makes keep the grid\n"
    "  grid(x, NX, NY)   x on an NX x NY grid (for png)\n"
    "  sum(A)  norm(A)  norm2(A) (squared)  maxabs(A)  min(A)  max(A)  dot(a, b): numbers\n"
    "  abs(A)  min(A, B)  max(A, B)  clamp(A, LO, HI)  recip(A, s) (s ./ A)\n"
    "             madad(A, B, D, E) (A + (B + D) .* E): element-wise; min/max with a number\n"
    "             clamp at it\n"
    "  size(A) (1 x 2)  size(A, D)  rows(A)  cols(A)  sqrt(s)  transpose(A)\n"
    "  dense(A)  sparse(A)  banded(A)   conversions\n"
    "  cg(A, b[, TOL[, MAXIT]])   conjugate gradients for SPD A (TOL 1e-4; 0: MAXIT fixed\n"
    "             iterations); how it ended on stderr: converged, iteration limit, float32\n"
    "             stagnation (with the best true residual) or NaN\n"
    "  lcp(A, b[, ITERS[, OMEGA]])   projected Jacobi: x >= 0, A x + b >= 0, x'(A x + b) = 0\n"
    "             (ITERS 100, OMEGA 1; A made dense); solved or not against a tolerance\n"
    "             relative to the problem's scale, on stderr\n"
    "Paths: load reads relative to the script's folder; save, png and history write relative\n"
    "to the current directory.\n";

static int usage(const char *msg) {
    if (msg) fprintf(stderr, "texla: %s\n", msg);
    fputs(usage_text, stderr);
    fputs("Run 'texla --help' for the script language.\n", stderr);
    return 2;
}

static texla_backend backend = TEXLA_BACKEND_AUTO; /* --backend */

static int make_ctx(texla_ctx **ctx) {
    texla_ctx_desc d = {0};
    d.backend = backend;
    d.warning_cb = cli_warning;
    if (texla_ctx_make(&d, ctx)) {
        fprintf(stderr, "texla: no GL context: %s\n", texla_error_message(NULL));
        return 1;
    }
    return 0;
}

static int cmd_info(void) {
    texla_ctx *ctx;
    if (make_ctx(&ctx)) return 1;
    texla_info i;
    if (texla_ctx_info(ctx, &i)) {
        fprintf(stderr, "texla: %s\n", texla_error_message(ctx));
        texla_ctx_destroy(ctx);
        return 1;
    }
    printf("texla %s\n", TEXLA_VERSION_STRING);
    printf("vendor:         %s\n", i.vendor);
    printf("renderer:       %s\n", i.renderer);
    printf("version:        %s\n", i.version);
    printf("GLSL:           %s\n", i.glsl_version);
    printf("context:        OpenGL %d.%d core, %s\n", i.gl_major, i.gl_minor, i.platform);
    printf("max texture:    %d (GL_MAX_TEXTURE_SIZE: the largest matrix is %d x %d)\n",
           i.max_texture_size, 4 * i.max_texture_size, i.max_texture_size);
    printf("max viewport:   %d x %d\n", i.max_viewport[0], i.max_viewport[1]);
    printf("float render:   %s (RGBA32F render targets, probed)\n", i.float_render ? "yes" : "no");
    printf("float blend:    %s (unclamped additive blending of RGBA32F, probed)\n",
           i.float_blend ? "yes" : "no");
    printf("backends:      ");
    for (int b = 0; b < i.nbackends; b++) {
        const texla_backend_info *bi = &i.backends[b];
        printf("%s %s (", b ? "," : "", bi->name);
        if (!bi->available) printf("not available)");
        else if (bi->calib_ms > 0)
            printf("512x512 copy %.3f ms, %d programs)", (double)bi->calib_ms, bi->programs);
        else printf("%d programs)", bi->programs);
    }
    printf("\n");
    printf("default:        %s backend (each operation may be pinned to another)\n",
           i.backend == TEXLA_BACKEND_COMPUTE ? "compute" : "fragment");
    printf("kernels:        %s; shared memory %d bytes; float atomics %s\n",
           i.subgroup_size ? "subgroups" : "no subgroups (shared-memory reductions)",
           i.shared_memory, i.atomic_float ? "yes" : "no");
    if (i.subgroup_size) printf("subgroup size:  %d\n", i.subgroup_size);
    printf("matmul k:       %d MOPs per product pass\n", i.matmul_k);
    cli_tune_list(ctx, stdout);
    texla_ctx_destroy(ctx);
    return 0;
}

/* the longest script read (a device or an endless pipe ran the memory out) */
#define SCRIPT_MAX ((size_t)64 << 20)

/* Reads all of f (NUL-terminated); NULL on failure with errno set (EFBIG: past SCRIPT_MAX). */
static char *slurp(FILE *f, size_t *len) {
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf) return NULL;
    for (;;) {
        if (n > SCRIPT_MAX) {
            free(buf);
            errno = EFBIG;
            return NULL;
        }
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                errno = ENOMEM;
                return NULL;
            }
            buf = nb;
        }
        size_t k = fread(buf + n, 1, cap - n - 1, f);
        n += k;
        if (k == 0) break;
    }
    if (ferror(f)) {
        int e = errno ? errno : EIO;
        free(buf);
        errno = e;
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* what a script can be read from: a regular file, a pipe or a socket (NULL), else what it is
 * (a device such as /dev/zero never ends; opening some has effects of their own) */
static const char *unreadable_kind(mode_t m) {
    if (S_ISREG(m) || S_ISFIFO(m) || S_ISSOCK(m)) return NULL; /* a socket: a stream too */
    return S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device" : "a block device";
}

static int cmd_run(const char *path, const run_opts *opt) {
    int from_stdin = !strcmp(path, "-");
    struct stat st;
    const char *kind = !from_stdin && stat(path, &st) == 0 ? unreadable_kind(st.st_mode) : NULL;
    FILE *f = kind ? NULL : from_stdin ? stdin : fopen(path, "rb");
    if (!f && !kind) {
        fprintf(stderr, "texla: cannot open %s: %s\n", path, strerror(errno));
        return 1;
    }
    if (f && fstat(fileno(f), &st) == 0) kind = unreadable_kind(st.st_mode);
    /* standard input is open already (nothing of opening it to fear): any kind but a folder,
     * whose end SCRIPT_MAX bounds (/dev/null: an empty script; a terminal: typed) */
    if (kind && from_stdin && !S_ISDIR(st.st_mode)) kind = NULL;
    if (kind) { /* checked again on the open stream: PATH may have changed in between */
        if (f && !from_stdin) fclose(f);
        fprintf(stderr, "texla: %s is %s; scripts are read from regular files or pipes\n",
                from_stdin ? "standard input" : path, kind);
        return 1;
    }
    size_t len = 0;
    errno = 0;
    char *text = slurp(f, &len);
    int err = errno;
    if (!from_stdin) fclose(f);
    if (!text) {
        if (err == EFBIG)
            fprintf(stderr, "texla: %s is longer than %zu MiB; not a script\n",
                    from_stdin ? "standard input" : path, SCRIPT_MAX >> 20);
        else
            fprintf(stderr, "texla: cannot read %s: %s\n", from_stdin ? "standard input" : path,
                    strerror(err ? err : EIO));
        return 1;
    }
    /* relative loads start in the script's folder */
    char *dir = NULL;
    const char *slash = from_stdin ? NULL : strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
    dir = malloc(dl + 1);
    if (!dir) {
        free(text);
        fprintf(stderr, "texla: out of memory\n");
        return 1;
    }
    memcpy(dir, path, dl);
    dir[dl] = '\0';

    script sc = {.file = from_stdin ? "<stdin>" : path, .dir = dir, .text = text, .len = len};
    diag d = {{0, 0}, ""};
    int rc = 0;
    if (script_parse(&sc, &d)) {
        rc = 1;
    } else {
        texla_ctx *ctx;
        if (make_ctx(&ctx)) {
            script_free(&sc);
            free(text), free(dir);
            return 1;
        }
        if (script_run(ctx, &sc, opt, stdout, &d)) rc = 1;
        texla_ctx_destroy(ctx);
    }
    if (rc) {
        fflush(stdout);
        fprintf(stderr, "%s:%d:%d: error: %s\n", sc.file, d.at.line, d.at.col, d.msg);
    }
    script_free(&sc);
    free(text), free(dir);
    return rc;
}

/* --backend NAME or --backend=NAME at argv[*i]: 1 taken (and *i advanced), 0 not that option,
 * -1 a bad value (usage error printed) */
static int backend_option(int argc, char **argv, int *i) {
    const char *a = argv[*i], *v = NULL;
    if (!strcmp(a, "--backend")) {
        if (*i + 1 >= argc) return usage("--backend needs a value: fragment, compute or auto"), -1;
        v = argv[++*i];
    } else if (!strncmp(a, "--backend=", 10)) {
        v = a + 10;
    } else {
        return 0;
    }
    if (!strcmp(v, "fragment")) backend = TEXLA_BACKEND_FRAGMENT;
    else if (!strcmp(v, "compute")) backend = TEXLA_BACKEND_COMPUTE;
    else if (!strcmp(v, "auto")) backend = TEXLA_BACKEND_AUTO;
    else {
        char m[128];
        snprintf(m, sizeof m, "--backend: '%.40s' is not fragment, compute or auto", v);
        usage(m);
        return -1;
    }
    return 1;
}

static int cli_main(int argc, char **argv) {
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && strncmp(argv[i], "--h", 3) && strcmp(argv[i], "-h") &&
           strcmp(argv[i], "--version") && strcmp(argv[i], "-V");
         i++) {
        int b = backend_option(argc, argv, &i);
        if (b < 0) return 2;
        if (!b) {
            char m[128];
            snprintf(m, sizeof m, "unknown option '%.60s'", argv[i]);
            return usage(m);
        }
    }
    argc -= i - 1, argv += i - 1;
    if (argc < 2) return usage(NULL);
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        if (argc > 2) return usage("--help takes no arguments");
        errno = 0;
        if (fputs(usage_text, stdout) == EOF || fputs(help_text, stdout) == EOF)
            cli_out_errno = errno ? errno : EIO;
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        if (argc > 2) return usage("--version takes no arguments");
        printf("texla %s\n", TEXLA_VERSION_STRING);
        return 0;
    }
    if (!strcmp(cmd, "info")) {
        if (argc > 2) return usage("info takes no arguments");
        return cmd_info();
    }
    if (!strcmp(cmd, "tune")) return cli_tune(argc, argv, backend);
    if (!strcmp(cmd, "run")) {
        run_opts opt = {0, -1};
        const char *file = NULL;
        for (int k = 2; k < argc; k++) {
            const char *a = argv[k];
            int b = backend_option(argc, argv, &k);
            if (b < 0) return 2;
            if (b) continue;
            if (!strcmp(a, "--strict")) opt.strict = 1;
            else if (!strcmp(a, "--progress")) opt.progress = 1;
            else if (!strcmp(a, "--no-progress")) opt.progress = 0;
            else if (a[0] == '-' && a[1]) {
                char m[128];
                snprintf(m, sizeof m, "run: unknown option '%.60s'", a);
                return usage(m);
            } else if (file) {
                return usage("run takes one script");
            } else {
                file = a;
            }
        }
        if (!file) return usage("run: which script? (texla run FILE)");
        return cmd_run(file, &opt);
    }
    char m[128];
    snprintf(m, sizeof m, "unknown command '%.60s'", cmd);
    return usage(m);
}

/* every command's output checked once it is all written: a write that failed on the way (a full
 * disk, /dev/full) is an error whatever the command said, not exit 0 with the output lost */
int main(int argc, char **argv) {
    int rc = cli_main(argc, argv);
    errno = 0;
    int flushed = fflush(stdout) == 0, err = errno ? errno : cli_out_errno;
    if ((!flushed || ferror(stdout)) && rc == 0) {
        fprintf(stderr, "texla: cannot write to standard output: %s\n",
                err ? strerror(err) : "a write failed");
        rc = 1;
    }
    return rc;
}
