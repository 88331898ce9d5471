/* fuzz_script.c - libFuzzer harness for the texla CLI's script language: the parser, and for
 * scripts that parse, the interpreter on a real headless context (src/cli/cli.h:
 * script_parse, script_run, script_free). Only cli.h's functions are used, so the harness
 * holds while the language grows.
 *
 * A script names files, and the fuzzer writes arbitrary names: every file call the CLI makes
 * (texla_mm_*, texla_png_*; linked with -Wl,--wrap) is sent to one of eight names in the
 * harness's scratch folder, keeping the extension that decides how a file is read, so no
 * input reads or writes anything else. CG and LCP iterations are capped at 64 (also wrapped),
 * so that inputs stay fast. Big allocations fail instead of ending the process
 * (ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=..., see run.sh): the
 * interpreter must report them. */
#include "fuzz.h"

#include "cli/cli.h"

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    texla_ctx_desc d = {0};
    d.png_max_pixels = 1 << 20;
    d.tune_cache = "";
    fuzz_ctx(&d);
    fuzz_scratch();
    devnull = fopen("/dev/null", "w");
    if (!devnull) exit(2);
    return 0;
}

/* path -> scratch/fN.ext: N from a hash of the name, ext .png when the name ends so */
static const char *sandbox(const char *path) {
    static char p[8][512];
    static int turn;
    uint32_t h = 2166136261u;
    size_t n = path ? strlen(path) : 0;
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)path[i]) * 16777619u;
    int png = n > 4 && (!strcmp(path + n - 4, ".png") || !strcmp(path + n - 4, ".PNG"));
    char *b = p[turn++ & 7];
    snprintf(b, sizeof p[0], "%s/f%u%s", fuzz_scratch(), h % 8, png ? ".png" : ".mtx");
    return path ? b : NULL;
}

texla_result __real_texla_mm_read(texla_ctx *, const char *, texla_mm *);
texla_result __wrap_texla_mm_read(texla_ctx *, const char *, texla_mm *);
texla_result __wrap_texla_mm_read(texla_ctx *c, const char *p, texla_mm *o) {
    return __real_texla_mm_read(c, sandbox(p), o);
}
texla_result __real_texla_png_read(texla_ctx *, const char *, texla_mat *);
texla_result __wrap_texla_png_read(texla_ctx *, const char *, texla_mat *);
texla_result __wrap_texla_png_read(texla_ctx *c, const char *p, texla_mat *o) {
    return __real_texla_png_read(c, sandbox(p), o);
}
texla_result __real_texla_mm_write_array(texla_ctx *, const char *, int, int, const float *);
texla_result __wrap_texla_mm_write_array(texla_ctx *, const char *, int, int, const float *);
texla_result __wrap_texla_mm_write_array(texla_ctx *c, const char *p, int r, int k,
                                         const float *d) {
    return __real_texla_mm_write_array(c, sandbox(p), r, k, d);
}
texla_result __real_texla_mm_write_coord(texla_ctx *, const char *, int, int, int, const int *,
                                         const int *, const float *);
texla_result __wrap_texla_mm_write_coord(texla_ctx *, const char *, int, int, int, const int *,
                                         const int *, const float *);
texla_result __wrap_texla_mm_write_coord(texla_ctx *c, const char *p, int r, int k, int n,
                                         const int *ri, const int *ci, const float *v) {
    return __real_texla_mm_write_coord(c, sandbox(p), r, k, n, ri, ci, v);
}
#define WRAP_PNG(T)                                                                            \
    texla_result __real_texla_png_##T(texla_ctx *, texla_##T, const char *,                   \
                                      const texla_png_desc *);                                 \
    texla_result __wrap_texla_png_##T(texla_ctx *, texla_##T, const char *,                   \
                                      const texla_png_desc *);                                 \
    texla_result __wrap_texla_png_##T(texla_ctx *c, texla_##T m, const char *p,               \
                                      const texla_png_desc *d) {                               \
        return __real_texla_png_##T(c, m, sandbox(p), d);                                      \
    }
WRAP_PNG(mat)
WRAP_PNG(vec)
WRAP_PNG(scalar)
WRAP_PNG(banded)
WRAP_PNG(sparse)
texla_result __real_texla_png_texture(texla_ctx *, uint32_t, int, int, const char *,
                                      const texla_png_desc *);
texla_result __wrap_texla_png_texture(texla_ctx *, uint32_t, int, int, const char *,
                                      const texla_png_desc *);
texla_result __wrap_texla_png_texture(texla_ctx *c, uint32_t t, int w, int h, const char *p,
                                      const texla_png_desc *d) {
    return __real_texla_png_texture(c, t, w, h, sandbox(p), d);
}

/* The solvers' iteration counts are capped (a script may ask for thousands of CG iterations,
 * which is slow on a software GL and proves nothing here; the solvers have their own tests). */
#define MAX_ITER 64
texla_result __real_texla_cg(texla_ctx *, texla_op, texla_vec, const texla_cg_desc *, texla_vec,
                             texla_cg_result *);
texla_result __wrap_texla_cg(texla_ctx *, texla_op, texla_vec, const texla_cg_desc *, texla_vec,
                             texla_cg_result *);
texla_result __wrap_texla_cg(texla_ctx *c, texla_op a, texla_vec b, const texla_cg_desc *d,
                             texla_vec x, texla_cg_result *o) {
    texla_cg_desc capped = {0};
    if (d) capped = *d;
    if (capped.max_iter == 0 || capped.max_iter > MAX_ITER) capped.max_iter = MAX_ITER;
    return __real_texla_cg(c, a, b, &capped, x, o);
}
texla_result __real_texla_lcp_jacobi(texla_ctx *, texla_mat, texla_mat, const texla_lcp_desc *,
                                     texla_mat, texla_lcp_result *);
texla_result __wrap_texla_lcp_jacobi(texla_ctx *, texla_mat, texla_mat, const texla_lcp_desc *,
                                     texla_mat, texla_lcp_result *);
texla_result __wrap_texla_lcp_jacobi(texla_ctx *c, texla_mat a, texla_mat b,
                                     const texla_lcp_desc *d, texla_mat x, texla_lcp_result *o) {
    texla_lcp_desc capped = {0};
    if (d) capped = *d;
    if (capped.iterations == 0 || capped.iterations > MAX_ITER) capped.iterations = MAX_ITER;
    return __real_texla_lcp_jacobi(c, a, b, &capped, x, o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    texla_ctx *ctx = fuzz_ctx(NULL);
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    script sc = {.file = "fuzz.tx", .dir = "", .text = text, .len = size};
    diag d = {{0, 0}, ""};
    if (script_parse(&sc, &d) == 0) {
        run_opts opt = {.strict = 0, .progress = 0}; /* no progress lines on stderr */
        if (script_run(ctx, &sc, &opt, devnull, &d) != 0)
            FUZZ_ASSERT(d.msg[0] != '\0', "a failed run without a message");
    } else {
        FUZZ_ASSERT(d.msg[0] != '\0' && d.at.line >= 1 && d.at.col >= 1,
                    "a syntax error without a message or place (%d:%d \"%s\")", d.at.line,
                    d.at.col, d.msg);
    }
    script_free(&sc);
    free(text);
    return 0;
}
