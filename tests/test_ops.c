/* test_ops.c - the operation table (src/base/optable.h) run in one process on every available
 * backend: every element-wise row and every reduction, for matrices and vectors, at shapes that
 * break naive code (1x1, a row, a column, primes, 255/256/257, odd grids), with host and GPU
 * coefficients; each result against the float64 reference (tests/ref_ops.c), padding lanes
 * zero, and the two backends against each other. */
#include "optest.h"
#include "suites.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const ot_shape mat_shapes[] = {{1, 1, 0, 0, 0},   {1, 7, 0, 0, 0},   {7, 1, 0, 0, 0},
                                      {5, 3, 0, 0, 0},   {13, 17, 0, 0, 0}, {255, 2, 0, 0, 0},
                                      {257, 3, 0, 0, 0}, {64, 33, 0, 0, 0}};
static const ot_shape vec_shapes[] = {{1, 1, 0, 0, 0},   {5, 1, 0, 0, 0},   {255, 1, 0, 0, 0},
                                      {256, 1, 0, 0, 0}, {257, 1, 0, 0, 0}, {1001, 1, 0, 0, 0},
                                      {0, 0, 1, 7, 5},   {0, 0, 1, 16, 9},  {0, 0, 1, 1, 1}};
#define NMAT (int)(sizeof mat_shapes / sizeof mat_shapes[0])
#define NVEC (int)(sizeof vec_shapes / sizeof vec_shapes[0])

static const char *be_name(texla_backend b) {
    return b == TEXLA_BACKEND_COMPUTE ? "compute" : "fragment";
}

/* both backends agree within twice the reference bound (they may contract differently) */
static void compare(const float *a, const float *b, size_t n, const char *what) {
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - b[i]), m = fabs((double)a[i]) + fabs((double)b[i]);
        if (!(d <= 16 * CHECK_U * m + 1e-37)) {
            if (!bad) first = i;
            bad++;
        }
    }
    CHECK(bad == 0, "%s: fragment and compute differ in %zu of %zu elements (first [%zu]: %.9g "
          "vs %.9g)", what, bad, n, first, (double)a[first], (double)b[first]);
}

static uint64_t passes_of(texla_ctx *c) {
    texla_stats st;
    texla_ctx_stats(c, &st);
    return st.passes;
}

/* AUTO: an element-wise program's first use on a large destination is timed on both backends
 * (four passes and perhaps a fifth), then it runs on the one kept (one pass); a small use is
 * not timed; a blended pass is not timed; a pinned program is not timed; the results are the
 * float64 reference's either way. */
static void auto_backend(void) {
    texla_ctx_desc d = {0};
    texla_ctx *c = NULL;
    if (!CHECK_OK(NULL, texla_ctx_make(&d, &c), "an AUTO context")) return;
    texla_info inf;
    texla_ctx_info(c, &inf);
    if (!inf.compute) {
        check_skip("backends measured per program", "no compute backend here");
        texla_ctx_destroy(c);
        return;
    }
    int rows = 256, cols = 256; /* 256 x 64 texels: large enough to be timed */
    size_t n = (size_t)rows * cols;
    float *a = check_rnd(n), *b = check_rnd(n), *got = check_alloc(n, sizeof *got);
    texla_mat A = {0}, B = {0}, C = {0}, S = {0}, T = {0};
    CHECK_OK(c, texla_mat_make(c, rows, cols, a, &A), "A");
    CHECK_OK(c, texla_mat_make(c, rows, cols, b, &B), "B");
    CHECK_OK(c, texla_mat_make(c, rows, cols, NULL, &C), "C");
    CHECK_OK(c, texla_mat_make(c, 4, 4, NULL, &S), "S");
    CHECK_OK(c, texla_mat_make(c, 4, 4, NULL, &T), "T");
    uint64_t p0 = passes_of(c);
    CHECK_OK(c, texla_mat_mul(c, A, B, C), "C = A .* B, first use");
    uint64_t p1 = passes_of(c);
    CHECK_OK(c, texla_mat_mul(c, A, B, C), "C = A .* B, again");
    uint64_t p2 = passes_of(c);
    CHECK(p1 - p0 >= 4 && p1 - p0 <= 5 && p2 - p1 == 1,
          "AUTO: the first large texla_mat_mul timed on both backends (%llu passes, expected 4 or "
          "5), the next one pass (%llu)", (unsigned long long)(p1 - p0),
          (unsigned long long)(p2 - p1));
    texla_backend got_b = TEXLA_BACKEND_AUTO;
    CHECK_OK(c, texla_ctx_get_backend(c, "mul", &got_b), "get_backend mul");
    CHECK(got_b == TEXLA_BACKEND_FRAGMENT || got_b == TEXLA_BACKEND_COMPUTE,
          "AUTO: mul runs on a backend after its timing (%d)", (int)got_b);
    printf("  AUTO: the first 256 x 256 texla_mat_mul timed both backends, kept %s (default %s)\n",
           be_name(got_b), be_name(inf.backend));
    CHECK_OK(c, texla_mat_read(c, C, got), "read C");
    int bad = 0;
    for (size_t i = 0; i < n; i++) bad += fabs((double)got[i] - (double)a[i] * b[i]) >
                                           fabs((double)a[i] * b[i]) * 6e-8;
    CHECK(bad == 0, "AUTO: C = A .* B after the timing: %d elements off", bad);
    /* small: not timed */
    p0 = passes_of(c);
    CHECK_OK(c, texla_mat_sub(c, S, S, T), "small sub");
    CHECK(passes_of(c) - p0 == 1, "AUTO: a 4 x 4 texla_mat_sub is one pass (%llu)",
          (unsigned long long)(passes_of(c) - p0));
    /* blended: not timed */
    p0 = passes_of(c);
    CHECK_OK(c, texla_mat_acc(c, texla_host(0.5f), A, C), "C += 0.5 A");
    CHECK(passes_of(c) - p0 == 1, "AUTO: a blended pass (texla_mat_acc) is one pass (%llu)",
          (unsigned long long)(passes_of(c) - p0));
    /* pinned: not timed */
    CHECK_OK(c, texla_ctx_set_backend(c, "max", TEXLA_BACKEND_FRAGMENT), "pin max");
    p0 = passes_of(c);
    CHECK_OK(c, texla_mat_max(c, A, B, C), "max, pinned");
    CHECK(passes_of(c) - p0 == 1, "AUTO: a pinned program is one pass (%llu)",
          (unsigned long long)(passes_of(c) - p0));
    CHECK_OK(c, texla_ctx_get_backend(c, "max", &got_b), "get_backend max");
    CHECK(got_b == TEXLA_BACKEND_FRAGMENT, "the pin holds (%d)", (int)got_b);
    texla_mat ms[5] = {A, B, C, S, T};
    for (int i = 0; i < 5; i++) texla_mat_destroy(c, ms[i]);
    free(a), free(b), free(got);
    texla_ctx_destroy(c);
}

void suite_ops(void) {
    texla_backend bes[2] = {TEXLA_BACKEND_FRAGMENT, TEXLA_BACKEND_COMPUTE};
    texla_ctx *ctx[2] = {NULL, NULL};
    int nb = 0;
    for (int i = 0; i < 2; i++) {
        texla_ctx_desc d = {.backend = bes[i]};
        texla_ctx *c = NULL;
        texla_result r = texla_ctx_make(&d, &c);
        if (r == TEXLA_ERR_UNSUPPORTED && bes[i] == TEXLA_BACKEND_COMPUTE) {
            check_skip("operation table on the compute backend", texla_error_message(NULL));
            continue;
        }
        CHECK_OK(NULL, r, "texla_ctx_make for the operation table");
        if (c) ctx[nb++] = c;
    }
    size_t cap = 0;
    for (int i = 0; i < NMAT; i++) {
        size_t n = ot_elems(OT_MAT, mat_shapes[i]);
        if (n > cap) cap = n;
    }
    for (int i = 0; i < NVEC; i++) {
        size_t n = ot_elems(OT_VEC, vec_shapes[i]);
        if (n > cap) cap = n;
    }
    /* each case reseeds (so both backends see the same data) from a base drawn from the run's
     * seed (printed by main; TEXLA_TEST_SEED reproduces it) */
    uint64_t base = (uint64_t)((check_rand() + 1.0) * 4.0e15);
    float *res[2] = {check_alloc(cap, sizeof(float)), check_alloc(cap, sizeof(float))};
    int cases = 0;
    for (int ri = 0; ri < ot_nrows; ri++) {
        const ot_row *r = &ot_rows[ri];
        for (int t = 0; t < 2; t++) {
            int ns = t == OT_MAT ? NMAT : NVEC;
            for (int si = 0; si < ns; si++) {
                ot_shape sh = t == OT_MAT ? mat_shapes[si] : vec_shapes[si];
                for (int gpu = 0; gpu <= (r->ncoef ? 1 : 0); gpu++) {
                    /* the same random data on both backends: reseed per case */
                    uint64_t seed = base + (uint64_t)(ri * 1000 + t * 100 + si * 2 + gpu);
                    size_t n = 0;
                    for (int b = 0; b < nb; b++) {
                        check_srand(seed);
                        ot_case(ctx[b], r, (ot_type)t, sh, gpu, be_name(bes[b]), res[b], &n);
                    }
                    if (nb == 2) {
                        char what[160];
                        snprintf(what, sizeof what, "texla_%s_%s case %d", t ? "vec" : "mat",
                                 r->name, si);
                        compare(res[0], res[1], n, what);
                    }
                    cases++;
                }
            }
        }
    }
    for (int ri = 0; ri < ot_nreds; ri++) {
        const ot_red *r = &ot_reds[ri];
        for (int t = 0; t < 2; t++) {
            int ns = t == OT_MAT ? NMAT : NVEC;
            for (int si = 0; si < ns; si++) {
                ot_shape sh = t == OT_MAT ? mat_shapes[si] : vec_shapes[si];
                float got[2] = {NAN, NAN};
                uint64_t seed = base + (uint64_t)(77777 + ri * 1000 + t * 100 + si);
                for (int b = 0; b < nb; b++) {
                    check_srand(seed);
                    ot_red_case(ctx[b], r, (ot_type)t, sh, be_name(bes[b]), &got[b]);
                }
                cases++;
                if (nb == 2 && r->fold != 0) /* max / min / max-abs: exact on both */
                    CHECK(got[0] == got[1], "texla_%s_%s case %d: fragment %.9g, compute %.9g",
                          t ? "vec" : "mat", r->name, si, (double)got[0], (double)got[1]);
            }
        }
    }
    printf("  operation table: %d element-wise rows, %d reductions, %d cases on %d backend%s\n",
           ot_nrows, ot_nreds, cases, nb, nb > 1 ? "s" : "");
    free(res[0]), free(res[1]);
    for (int b = 0; b < nb; b++) texla_ctx_destroy(ctx[b]);
    auto_backend();
}
