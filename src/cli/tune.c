/* tune.c - `texla tune FILE.mtx [--block B] [--transposed] [--backend fragment|compute]`: loads
 * a Matrix Market file (real, integer, pattern or complex; coordinate or array), tunes its
 * sparse product on this device (every candidate timed again, the cache updated), and prints a
 * table of the candidates, fastest first, ending with the line
 *   best <format> <schedule> <microseconds> us
 * Also the tuning cache's listing for `texla info`. Public API only. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TRIALS 512

void cli_tune_list(texla_ctx *ctx, FILE *out) {
    int n = texla_tune_count(ctx);
    const char *path = texla_tune_path(ctx);
    fprintf(out, "tuning cache:   %s (%d entr%s for this device)\n", *path ? path : "none", n,
            n == 1 ? "y" : "ies");
    for (int i = 0; i < n; i++) {
        const char *k, *v;
        if (texla_tune_entry(ctx, i, &k, &v) == TEXLA_OK) fprintf(out, "  %s\n    -> %s\n", k, v);
    }
}

int cli_warnings;

void cli_warning(texla_result code, const char *message, void *user) {
    (void)code, (void)user;
    fprintf(stderr, "texla: warning: %s\n", message);
    cli_warnings++;
}

static int tune_usage(const char *msg) {
    fprintf(stderr, "texla tune: %s\nusage: texla tune FILE.mtx [--block B] [--transposed] "
            "[--backend fragment|compute]\n", msg);
    return 2;
}

static int by_time(const void *pa, const void *pb) {
    const texla_sparse_trial *a = pa, *b = pb;
    if (a->ok != b->ok) return b->ok - a->ok;
    return (a->us > b->us) - (a->us < b->us);
}

static int fail_ctx(texla_ctx *ctx, const char *what) {
    fprintf(stderr, "texla tune: %s: %s\n", what, texla_error_message(ctx));
    return 1;
}

int cli_tune(int argc, char **argv, texla_backend backend) {
    const char *path = NULL;
    int block = 0, transposed = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--block")) {
            if (i + 1 >= argc) return tune_usage("--block needs a size (2, 3 or 4)");
            char *end;
            errno = 0;
            long b = strtol(argv[++i], &end, 10);
            if (*end || errno || b < 2 || b > 4) return tune_usage("--block is 2, 3 or 4");
            block = (int)b;
        } else if (!strcmp(argv[i], "--transposed")) {
            transposed = 1;
        } else if (!strcmp(argv[i], "--backend")) {
            if (i + 1 >= argc) return tune_usage("--backend needs fragment or compute");
            i++;
            if (!strcmp(argv[i], "fragment")) backend = TEXLA_BACKEND_FRAGMENT;
            else if (!strcmp(argv[i], "compute")) backend = TEXLA_BACKEND_COMPUTE;
            else return tune_usage("--backend is fragment or compute");
        } else if (argv[i][0] == '-' && argv[i][1]) {
            char m[128];
            snprintf(m, sizeof m, "unknown option '%.60s'", argv[i]);
            return tune_usage(m);
        } else if (path) {
            return tune_usage("one file at a time");
        } else {
            path = argv[i];
        }
    }
    if (!path) return tune_usage("which file? (texla tune FILE.mtx)");
    texla_ctx *ctx;
    texla_ctx_desc cd = {0};
    cd.warning_cb = cli_warning;
    if (texla_ctx_make(&cd, &ctx)) {
        fprintf(stderr, "texla: no GL context: %s\n", texla_error_message(NULL));
        return 1;
    }
    int rc = 1;
    texla_mm mm = {0};
    texla_vec x = {0}, y = {0};
    texla_sparse a = {0};
    float *vals = NULL;
    int *ri = NULL, *ci = NULL;
    texla_sparse_trial *trials = calloc(MAX_TRIALS, sizeof *trials);
    if (!trials) {
        fprintf(stderr, "texla tune: out of memory\n");
        goto done;
    }
    if (backend && texla_ctx_set_backend(ctx, "spmv", backend)) {
        rc = fail_ctx(ctx, "--backend");
        goto done;
    }
    if (texla_mm_read_complex(ctx, path, &mm)) {
        fprintf(stderr, "texla tune: %s\n", texla_error_message(ctx));
        goto done;
    }
    int complex = mm.imag != NULL, nnz = mm.nnz;
    if (!mm.coordinate) { /* an array file: its nonzeros */
        long long cnt = 0, cells = (long long)mm.rows * mm.cols;
        for (long long e = 0; e < cells; e++) cnt += mm.dense[e] != 0;
        ri = malloc(sizeof *ri * (size_t)(cnt ? cnt : 1));
        ci = malloc(sizeof *ci * (size_t)(cnt ? cnt : 1));
        vals = malloc(sizeof *vals * (size_t)(cnt ? cnt : 1));
        if (!ri || !ci || !vals || cnt > 0x7fffffff) {
            fprintf(stderr, "texla tune: %s: too many nonzeros for a sparse matrix\n", path);
            goto done;
        }
        nnz = 0;
        for (long long e = 0; e < cells; e++)
            if (mm.dense[e] != 0) {
                ri[nnz] = (int)(e / mm.cols), ci[nnz] = (int)(e % mm.cols);
                vals[nnz++] = mm.dense[e];
            }
    } else if (complex) {
        vals = malloc(sizeof *vals * 2 * (size_t)(nnz ? nnz : 1));
        if (!vals) {
            fprintf(stderr, "texla tune: out of memory\n");
            goto done;
        }
        for (int e = 0; e < nnz; e++) vals[2 * e] = mm.val[e], vals[2 * e + 1] = mm.imag[e];
    }
    if (mm.rows < 1 || mm.cols < 1) {
        fprintf(stderr, "texla tune: %s: a %d x %d matrix has nothing to tune\n", path, mm.rows,
                mm.cols);
        goto done;
    }
    texla_entry entry = complex ? TEXLA_ENTRY_COMPLEX : TEXLA_ENTRY_REAL;
    if (texla_vec_make_entries(ctx, mm.cols, entry, NULL, &x) ||
        texla_vec_make_entries(ctx, mm.rows, entry, NULL, &y)) {
        rc = fail_ctx(ctx, "vectors");
        goto done;
    }
    texla_sparse_desc d = {entry, y, x, nnz, NULL, ri ? ri : mm.row, ci ? ci : mm.col,
                           vals ? vals : mm.val, 1, 0};
    if (texla_sparse_make(ctx, &d, &a)) {
        rc = fail_ctx(ctx, path);
        goto done;
    }
    texla_sparse_info inf;
    texla_sparse_info_get(ctx, a, &inf);
    texla_backend be = TEXLA_BACKEND_FRAGMENT;
    texla_ctx_get_backend(ctx, "spmv", &be);
    printf("texla tune %s: %d x %d %s, %lld entries (rows %d..%d, mean %.2f, sd %.2f, %d empty); "
           "block fill %.2f %.2f %.2f; %s backend; y = A%s x\n", path, inf.rows, inf.cols,
           complex ? "complex" : "real", inf.nnz, inf.row_min, inf.row_max, inf.row_mean,
           inf.row_sd, inf.empty_rows, inf.block_fill[2], inf.block_fill[3], inf.block_fill[4],
           be == TEXLA_BACKEND_COMPUTE ? "compute" : "fragment", transposed ? "'" : "");
    texla_sparse_tune_desc td = {0};
    td.ops = transposed ? 2 : 1;
    td.force = 1;
    td.scatter = 1;
    td.block = block;
    td.trials = trials;
    td.max_trials = MAX_TRIALS;
    if (texla_sparse_tune(ctx, a, &td)) {
        rc = fail_ctx(ctx, "tuning");
        goto done;
    }
    int n = td.ntrials < MAX_TRIALS ? td.ntrials : MAX_TRIALS;
    qsort(trials, (size_t)n, sizeof *trials, by_time);
    printf("%-7s %-8s %-40s %12s %9s %10s %9s\n", "format", "schedule", "parameters", "median us",
           "GB/s", "MB", "padding");
    for (int i = 0; i < n; i++) {
        char f[16], s[16], p[96];
        texla_sparse_variant_names(&trials[i].v, f, s, p);
        if (trials[i].ok)
            printf("%-7s %-8s %-40s %12.1f %9.1f %10.2f %8.1f%%\n", f, s, p, trials[i].us,
                   trials[i].gbs, trials[i].bytes / 1e6, 100 * trials[i].padding);
        else
            printf("%-7s %-8s %-40s %12s %9s %10.2f %8.1f%%\n", f, s, p, "rejected", "-",
                   trials[i].bytes / 1e6, 100 * trials[i].padding);
    }
    texla_sparse_info_get(ctx, a, &inf);
    int op = transposed ? 1 : 0;
    char f[16], s[16];
    texla_sparse_variant_names(&inf.now[op], f, s, NULL);
    int finals = 0;
    for (int i = 0; i < n; i++) finals += trials[i].final;
    char fin[96];
    if (finals)
        snprintf(fin, sizeof fin, "the best %d re-timed together, the choice made on those times",
                 finals);
    else
        snprintf(fin, sizeof fin, "no final round: the budget was spent twice over");
    printf("tuned in %.2f s (%d candidates, %d skipped by the budget of %.1f s; %s); cache %s%s\n",
           td.seconds, td.ntrials, td.skipped, td.budget_s, fin,
           *texla_tune_path(ctx) ? texla_tune_path(ctx) : "none",
           cli_warnings ? " (see the warnings above)" : "");
    printf("best %s %s %.1f us\n", f, s, inf.us[op]);
    rc = 0;
done:
    texla_sparse_destroy(ctx, a);
    texla_vec_destroy(ctx, x);
    texla_vec_destroy(ctx, y);
    texla_mm_free(&mm);
    free(vals), free(ri), free(ci), free(trials);
    texla_ctx_destroy(ctx);
    if (fflush(stdout) != 0 && !rc) {
        fprintf(stderr, "texla: cannot write to standard output: %s\n", strerror(errno));
        rc = 1;
    }
    return rc;
}
