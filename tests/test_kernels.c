/* test_kernels.c - the compute kernels (tiled products, the gather matrix-vector product, the
 * one-pass reductions, the banded kernel with its stencil case and paired diagonal storage,
 * the fused solver steps) against float64 CPU references on fresh random data (the seed is
 * printed by main), and against the fragment backend's classic passes: the suite makes its own
 * two contexts, one on each backend (so it runs once, whatever TEXLA_TEST_BACKEND says).
 *
 * What is asserted, everywhere: results within the bounds below; a second run of the same call
 * bit-identical to the first (determinism); every padding lane zero afterwards (read raw); the
 * two backends within the sum of their bounds of each other.
 *   Products: every variant of "gemm", plain and accumulating (C += ...), at 129 x 131 x 127
 *   (no tile size divides any of them, K not a multiple of BK), in the form A B, and for the
 *   default and one variant of each other block shape also A' B and A B'; the default variant also at 1x1x1, 1 x 1000 x 1, primes, 127/128/129 in
 *   every position, K < BK, and (A B only, for time) 4097 x 3 x 4095; every variant at 4 x 16384 . 16384 x 4 of
 *   equal positive terms (the two-level ones must reach 2e-6 normwise); padding lanes zero
 *   even when B holds an Inf (0 * Inf in a padding lane would be NaN). All these with
 *   "gemm_path" pinned direct (one kernel each). Pinned via_nt (transposed copies, then A B'):
 *   I B and I' B equal B bit for bit at 1x1 .. 257x35 (the copy kernel itself, its tiles cut
 *   anywhere), A B and A' B plain and C += against float64 at 1x1x1, 1 x 1000 x 1, primes,
 *   127/128/129 in every position, 64 x 9 x 64 and 129 x 131 x 127 with a 128x128 variant, bit
 *   for bit twice, passes counted (copies + 1); A' B with A' wider than a texture takes the
 *   direct kernel silently (no error, no warning); repeated products make no new textures (the
 *   copies go back to the pool); 4097 x 3 x 4095 by the default path (via_nt at that size).
 *   Matrix-vector products: every "gemv" variant at 129 x 2049 (x staged in two chunks), the
 *   default at 1x1, 1 x 1000, 1000 x 1, 127 x 129, 129 x 127, 4099 x 5, 5 x 4099, with x and y
 *   dense n x 1, plain 2D vectors and grid vectors, y = A x + s b, and q = A p with p'q.
 *   Projected Jacobi steps (texla_lcp_step) plain and bounded at n = 37 and 1024.
 *   Reductions: sum, dot, sqnorm, maxval, minval, maxabs of vectors and matrices of 1 .. 2^20
 *   elements, bit-identical twice; one pass each; the time of a 1024-element reduction. NaN in
 *   maxval, minval, maxabs (numpy's rule: NaN when any element is; maxabs never negative,
 *   sign bit clear): all NaN, one first, second, third, middle, second to last, last (a partial
 *   texel), among negative values, beside +-Inf, the NaNs nearest +-Inf (0x7f800001,
 *   0xff800001) among infinities, among denormals, at 1, 7, 4099, 257 x 257 and 300000
 *   elements, vectors and matrices, every "reduce" variant and the fragment backend;
 *   all-negative, all-positive, +-Inf, all -Inf, -0.0, +-0.0 and denormal data without NaN
 *   exact (max and min of denormals may be 0: a float compare may flush them; so may the
 *   fragment backend's maxabs, but not the compute one's, which folds bits only).
 *   Banded: the recognised stencil (texla_banded_poisson, and a hand-made one with four
 *   different neighbour coefficients), a near-stencil (one entry off: the general kernel), 7
 *   diagonals (two kernel passes), y = A x + s b, q = A p with p'q; the paired storage counted
 *   in textures (d and d - n share one; a full n x n matrix takes n).
 *   Fused CG: texla_vec_cg_update against float64; texla_cg on both backends (fixed
 *   iterations: no read-back; the fused iteration's true residual within the unfused one's
 *   accuracy); texla_lcp_jacobi on both backends.
 *   The tuning cache: a product tuned and kept in a temporary cache file, reused by a second
 *   context without timing, a corrupt entry ignored with a warning and tuned again; the
 *   gemm_path of A B timed on first use (both paths' tiles tuned on the way) and read back.
 *   Errors of the new calls by exact code.
 *
 * TOLERANCES (u = 2^-24, g_k = k u / (1 - k u); Higham 3.1/3.5; never tuned), componentwise,
 * each with a factor 1.01 for the float64 reference: a sum of K products in any order, blocks
 * or blending: |c - ref| <= g_K sum |a||b|. Two-level summation (chunks of c values of k): a
 * term sees at most c roundings in its chunk and ceil(K/c) + 1 after it, so the kernels with
 * c > 0 are held to g_k, k = min(K, c + ceil(K/c) + 1). C += A B: one more rounding with |C0|
 * among the terms. y = A x + s b: g_(m+1) over |A||x| + |s b|. p'q: (g_m + g_n) sum |p| |A||p|.
 * The stencil: g_6 (see test_banded.c). LCP step v = x + (A x + b) e: g_(n+3) over
 * |x| + (|A||x| + |b|)|e|, and a friction row's clamp moves by mu times its normal row's
 * bound. CG update: alpha = rr/pq (GLSL division: 2.5 ulp, so 3u), x + alpha p and r - alpha q
 * within 6u of their terms, r'r within g_n of the r read back, beta within 3u of
 * rr_new / rr.
 */
#include "suites.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static texla_ctx *cc, *fc; /* compute kernels; fragment backend (the classic passes) */

#define U CHECK_U
#define G(k) check_gamma(k)

/* ---- helpers ---- */

static texla_mat mk(texla_ctx *ctx, int rows, int cols, const float *data, const char *what) {
    texla_mat m = {0};
    texla_result r = texla_mat_make(ctx, rows, cols, data, &m);
    CHECK(r == TEXLA_OK && m.id != 0, "%s: texla_mat_make(%d x %d): %s: %s", what, rows, cols,
          texla_result_name(r), texla_error_message(ctx));
    return m;
}

static float *transpose(const float *a, int rows, int cols) {
    float *t = check_alloc((size_t)rows * (size_t)cols, sizeof *t);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            t[(size_t)j * rows + i] = a[(size_t)i * cols + j];
    return t;
}

/* reads an n x m matrix raw: padding lanes must be 0; out gets the elements. 0: ok */
static int readm(texla_ctx *ctx, texla_mat mat, int n, int m, float *out, const char *what) {
    int th = (n + 3) / 4;
    float *raw = check_alloc((size_t)m * th * 4, sizeof *raw);
    texla_result r = texla_mat_read_raw(ctx, mat, raw);
    CHECK_OK(ctx, r, what);
    size_t bad = 0;
    for (int I = 0; I < th && !r; I++)
        for (int j = 0; j < m; j++)
            for (int c = 0; c < 4; c++) {
                float v = raw[((size_t)I * m + j) * 4 + c];
                if (4 * I + c < n) out[(size_t)(4 * I + c) * m + j] = v;
                else if (v != 0.0f) bad++;
            }
    CHECK(bad == 0, "%s: %zu padding lanes of a %d x %d result are not 0", what, bad, n, m);
    free(raw);
    return r || bad;
}

static int same_bits(const float *a, const float *b, size_t n) { return !memcmp(a, b, n * 4); }

static uint64_t passes(texla_ctx *ctx) {
    texla_stats s = {0};
    texla_ctx_stats(ctx, &s);
    return s.passes;
}

/* |got - ref| <= bnd elementwise; the worst ratio is printed by callers through *worst */
static int within(const float *got, const double *ref, const double *bnd, size_t n,
                  double *worst, const char *what) {
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)got[i] - ref[i]);
        double ratio = bnd[i] > 0 ? e / bnd[i] : (e > 0 ? INFINITY : 0);
        if (!(ratio <= 1.0)) {
            if (!bad++) first = i;
            ratio = INFINITY;
        }
        if (worst && ratio > *worst) *worst = ratio;
    }
    CHECK(bad == 0, "%s: %zu of %zu elements outside their bound (first %zu: got %.9g, ref %.17g, "
          "bound %.3g)", what, bad, n, first, bad ? (double)got[first] : 0.0,
          bad ? ref[first] : 0.0, bad ? bnd[first] : 0.0);
    return bad != 0;
}

/* ---- tiled products ---- */

static int variant_chunk(const char *name) {
    const char *c = strstr(name, "/c");
    return c ? atoi(c + 2) : 0;
}

/* the roundings a term of a K-long sum sees in a kernel summing chunks of c */
static double rounds(int K, int c) {
    if (c <= 0 || K <= c) return K;
    double k = c + (K + c - 1) / c + 1;
    return k < K ? k : K;
}

static texla_result product(texla_ctx *ctx, int form, int acc, texla_mat a, texla_mat b,
                            texla_mat c) {
    if (acc)
        return texla_mat_matmul_acc(ctx, a, b, form == 1 ? TEXLA_MATMUL_TA
                                               : form == 2 ? TEXLA_MATMUL_TB : 0u, c);
    return form == 0 ? texla_mat_matmul(ctx, a, b, c)
           : form == 1 ? texla_mat_matmul_tn(ctx, a, b, c)
                       : texla_mat_matmul_nt(ctx, a, b, c);
}

static const char *const form_name[3] = {"A B", "A' B", "A B'"};

/* The products of n x K A and K x m B in the three forms, plain and accumulating, with the
 * gemm variant pinned (NULL: the default) on the compute context, and (fragment) on the
 * fragment context too: each against float64, the two against each other. */
static double gemm_worst;
/* the "gemm_path" gemm_case pins: "direct" (one kernel per product) or "via_nt" (transposed
 * copies of B, and of A in A' B, then the A B' kernel) */
static const char *gemm_path = "direct";
static void gemm_case(const char *variant, int n, int K, int m, int fragment, int forms) {
    char what[200];
    size_t na = (size_t)n * K, nb = (size_t)K * m, nc = (size_t)n * m;
    float *A = check_rnd(na), *B = check_rnd(nb), *C0 = check_rnd(nc);
    float *At = transpose(A, n, K), *Bt = transpose(B, K, m);
    float *res[2] = {check_alloc(nc, sizeof(float)), check_alloc(nc, sizeof(float))};
    float *again = check_alloc(nc, sizeof *again);
    double *ref = check_alloc(nc, sizeof *ref), *absr = check_alloc(nc, sizeof *absr),
           *refa = check_alloc(nc, sizeof *refa), *bnd[2], *bnda[2],
           *both = check_alloc(nc, sizeof *both), *cgot = check_alloc(nc, sizeof *cgot);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < K; k++) {
            double x = A[(size_t)i * K + k];
            for (int j = 0; j < m; j++) {
                double y = B[(size_t)k * m + j];
                ref[(size_t)i * m + j] += x * y;
                absr[(size_t)i * m + j] += fabs(x * y);
            }
        }
    const char *vname = variant;
    if (!vname) texla_kernel_variant(cc, "gemm", 0, &vname);
    /* roundings per term: the kernel's (two-level) summation, and the fragment path's */
    double k[2] = {rounds(K, variant_chunk(vname)), K};
    for (int side = 0; side < 2; side++) {
        bnd[side] = check_alloc(nc, sizeof(double));
        bnda[side] = check_alloc(nc, sizeof(double));
        for (size_t i = 0; i < nc; i++) {
            bnd[side][i] = 1.01 * G(k[side]) * absr[i];
            bnda[side][i] = 1.01 * G(k[side] + 1) * (absr[i] + fabs((double)C0[i]));
        }
    }
    for (size_t i = 0; i < nc; i++) {
        refa[i] = ref[i] + C0[i];
        both[i] = bnd[0][i] + bnd[1][i];
    }
    CHECK_OK(cc, texla_ctx_set_variant(cc, "gemm", variant), "texla_ctx_set_variant gemm");
    CHECK_OK(cc, texla_ctx_set_variant(cc, "gemm_path", gemm_path), "set_variant gemm_path");
    int via = !strcmp(gemm_path, "via_nt");
    for (int form = 0; form < forms; form++) {
        /* kernels per product: the copies (B in A B, A and B in A' B), then the product */
        /* (A B with one column of B is the matrix-vector kernel) */
        uint64_t want = via && form == 0 && m > 1 ? 2 : via && form == 1 ? 3 : 1;
        for (int side = 0; side < (fragment ? 2 : 1); side++) {
            texla_ctx *ctx = side ? fc : cc;
            const char *on = side ? "fragment, classic passes" : vname;
            texla_mat a = form == 1 ? mk(ctx, K, n, At, "gemm A'") : mk(ctx, n, K, A, "gemm A");
            texla_mat b = form == 2 ? mk(ctx, m, K, Bt, "gemm B'") : mk(ctx, K, m, B, "gemm B");
            texla_mat c = mk(ctx, n, m, C0, "gemm C"); /* random: must be overwritten */
            snprintf(what, sizeof what, "C = %s, %d x %d x %d (%s%s)", form_name[form], n, K, m,
                     on, side || form == 2 ? "" : via ? ", via_nt" : ", direct");
            uint64_t p0 = passes(ctx);
            texla_result r = product(ctx, form, 0, a, b, c);
            CHECK_OK(ctx, r, what);
            if (!side)
                CHECK(passes(ctx) - p0 == want, "%s: %llu passes, %llu kernels expected", what,
                      (unsigned long long)(passes(ctx) - p0), (unsigned long long)want);
            if (!r && !readm(ctx, c, n, m, res[side], what)) {
                double w = 0;
                within(res[side], ref, bnd[side], nc, &w, what);
                if (!side && w > gemm_worst) gemm_worst = w;
                if (side) { /* the two backends within the sum of their bounds */
                    for (size_t i = 0; i < nc; i++) cgot[i] = res[0][i];
                    snprintf(what, sizeof what, "C = %s, %d x %d x %d: compute vs fragment",
                             form_name[form], n, K, m);
                    within(res[1], cgot, both, nc, NULL, what);
                }
            }
            if (!side) { /* again: bit for bit */
                CHECK_OK(ctx, product(ctx, form, 0, a, b, c), what);
                if (!readm(ctx, c, n, m, again, what))
                    CHECK(same_bits(res[0], again, nc), "%s: a second run differs", what);
            }
            snprintf(what, sizeof what, "C += %s, %d x %d x %d (%s)", form_name[form], n, K, m, on);
            CHECK_OK(ctx, texla_mat_write(ctx, C0, c), what);
            r = product(ctx, form, 1, a, b, c);
            CHECK_OK(ctx, r, what);
            if (!r && !readm(ctx, c, n, m, again, what)) within(again, refa, bnda[side], nc, NULL, what);
            texla_mat_destroy(ctx, a), texla_mat_destroy(ctx, b), texla_mat_destroy(ctx, c);
        }
    }
    CHECK_OK(cc, texla_ctx_set_variant(cc, "gemm", NULL), "texla_ctx_set_variant gemm NULL");
    CHECK_OK(cc, texla_ctx_set_variant(cc, "gemm_path", NULL), "set_variant gemm_path NULL");
    free(A), free(B), free(C0), free(At), free(Bt), free(res[0]), free(res[1]), free(again);
    free(ref), free(absr), free(refa), free(both), free(cgot);
    for (int side = 0; side < 2; side++) free(bnd[side]), free(bnda[side]);
}

/* A large product, C = A B only (memory and time on a software GL): each element against its
 * float64 value computed on the fly, a second run bit for bit */
static void gemm_big(int n, int K, int m) {
    char what[96];
    snprintf(what, sizeof what, "C = A B, %d x %d x %d (default variant)", n, K, m);
    size_t nc = (size_t)n * m;
    float *A = check_rnd((size_t)n * K), *B = check_rnd((size_t)K * m);
    float *got = check_alloc(nc, sizeof *got), *again = check_alloc(nc, sizeof *again);
    texla_mat a = mk(cc, n, K, A, what), b = mk(cc, K, m, B, what), c = mk(cc, n, m, NULL, what);
    const char *vname;
    texla_kernel_variant(cc, "gemm", 0, &vname);
    double g = 1.01 * G(rounds(K, variant_chunk(vname)));
    texla_result r = texla_mat_matmul(cc, a, b, c);
    CHECK_OK(cc, r, what);
    if (!r && !readm(cc, c, n, m, got, what)) {
        size_t bad = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < m; j++) {
                double v = 0, av = 0;
                for (int k = 0; k < K; k++) {
                    double t = (double)A[(size_t)i * K + k] * B[(size_t)k * m + j];
                    v += t, av += fabs(t);
                }
                double e = fabs(got[(size_t)i * m + j] - v);
                if (!(e <= g * av)) bad++;
                else if (av > 0 && e / (g * av) > gemm_worst) gemm_worst = e / (g * av);
            }
        CHECK(bad == 0, "%s: %zu elements outside g_k sum |a||b|", what, bad);
        CHECK_OK(cc, texla_mat_matmul(cc, a, b, c), what);
        if (!readm(cc, c, n, m, again, what))
            CHECK(same_bits(got, again, nc), "%s: a second run differs", what);
    }
    texla_mat_destroy(cc, a), texla_mat_destroy(cc, b), texla_mat_destroy(cc, c);
    free(A), free(B), free(got), free(again);
}

/* 4 x K . K x 4 of equal positive terms a b: the two-level sums must stay within 2e-6 */
static void equal_terms(const char *variant, int K, float av, float bv) {
    float *A = check_alloc((size_t)4 * K, sizeof *A), *B = check_alloc((size_t)4 * K, sizeof *B);
    for (size_t i = 0; i < (size_t)4 * K; i++) A[i] = av, B[i] = bv;
    texla_mat a = mk(cc, 4, K, A, "equal terms"), b = mk(cc, K, 4, B, "equal terms"),
              c = mk(cc, 4, 4, NULL, "equal terms");
    CHECK_OK(cc, texla_ctx_set_variant(cc, "gemm", variant), "set_variant");
    float got[16];
    double ref = (double)K * av * bv, e = 0;
    texla_result r = texla_mat_matmul(cc, a, b, c);
    CHECK_OK(cc, r, "equal terms");
    if (!r && !readm(cc, c, 4, 4, got, "equal terms")) {
        for (int i = 0; i < 16; i++) e += ((double)got[i] - ref) * ((double)got[i] - ref);
        e = sqrt(e / 16) / ref;
        int two = variant_chunk(variant) > 0;
        printf("  %-22s 4 x %d . %d x 4 of %g * %g: normwise error %.2e%s\n", variant, K, K,
               (double)av, (double)bv, e, two ? "" : " (one-level: not held to 2e-6)");
        if (two)
            CHECK(e <= 2e-6, "%s: 4 x %d . %d x 4 equal terms: normwise error %.3g > 2e-6",
                  variant, K, K, e);
        else
            CHECK(e <= G(K), "%s: equal terms: error %.3g > gamma_K", variant, e);
    }
    CHECK_OK(cc, texla_ctx_set_variant(cc, "gemm", NULL), "set_variant NULL");
    texla_mat_destroy(cc, a), texla_mat_destroy(cc, b), texla_mat_destroy(cc, c);
    free(A), free(B);
}

/* B holding +Inf: A's padding lanes times Inf must not reach C's padding lanes */
static void inf_padding(void) {
    int n = 5, K = 3, m = 4;
    float A[15], B[12], At[15], Bt[12];
    check_fill(A, 15), check_fill(B, 12);
    B[1 * m + 2] = INFINITY;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < K; k++) At[k * n + i] = A[i * K + k];
    for (int k = 0; k < K; k++)
        for (int j = 0; j < m; j++) Bt[j * K + k] = B[k * m + j];
    for (int form = 0; form < 3; form++) {
        texla_mat a = form == 1 ? mk(cc, K, n, At, "inf") : mk(cc, n, K, A, "inf");
        texla_mat b = form == 2 ? mk(cc, m, K, Bt, "inf") : mk(cc, K, m, B, "inf");
        texla_mat c = mk(cc, n, m, NULL, "inf");
        char what[96];
        snprintf(what, sizeof what, "C = %s with an Inf in B: padding lanes", form_name[form]);
        float got[20];
        CHECK_OK(cc, product(cc, form, 0, a, b, c), what);
        readm(cc, c, n, m, got, what);
        texla_mat_destroy(cc, a), texla_mat_destroy(cc, b), texla_mat_destroy(cc, c);
    }
}

static void test_gemm(void) {
    double t0 = check_now();
    /* A' B and A B' stage differently (texels scattered into the tiles): besides the default,
     * a variant of each other block shape and workgroup size takes all three forms; the rest
     * A B only (each form is a program to compile, seconds each on a software GL) */
    static const char *const all_forms[] = {"128x128x8/8x8/c128", "64x64x16/8x4/c128",
                                            "32x64x8/4x4/c128", "128x64x16/8x4/c128"};
    printf("tiled products: every gemm variant at 129 x 131 x 127, plain and C += (A B; A' B and "
           "A B' too for the default and the starred):\n");
    for (int v = 0;; v++) {
        const char *name;
        if (texla_kernel_variant(cc, "gemm", v, &name)) break;
        if (texla_ctx_set_variant(cc, "gemm", name) == TEXLA_ERR_UNSUPPORTED) {
            check_skip(name, "this GL's shared memory is too small for the variant");
            continue;
        }
        int forms = v == 0 ? 3 : 1;
        for (size_t i = 0; i < sizeof all_forms / sizeof all_forms[0]; i++)
            if (!strcmp(all_forms[i], name)) forms = 3;
        gemm_worst = 0;
        gemm_case(name, 129, 131, 127, 0, forms);
        printf("  %-22s%s worst error / bound %.3f\n", name, forms == 3 ? "*" : " ", gemm_worst);
    }
    (void)texla_ctx_set_variant(cc, "gemm", NULL);
    printf("  (%.1f s)\n", check_now() - t0);
    static const int shapes[][3] = {{1, 1, 1},     {1, 1000, 1},  {13, 17, 11}, {127, 128, 129},
                                    {129, 127, 128}, {128, 129, 127}, {64, 9, 64}, {3, 5, 7}};
    gemm_worst = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        gemm_case(NULL, shapes[s][0], shapes[s][1], shapes[s][2], 1, 3);
    printf("  default variant, shapes 1x1x1 .. 129x127x128 on both backends: worst error / bound "
           "%.3f (%.1f s)\n", gemm_worst, check_now() - t0);
    gemm_worst = 0;
    gemm_big(4097, 3, 4095);
    printf("  default variant, 4097 x 3 x 4095: worst error / bound %.3f (%.1f s)\n", gemm_worst,
           check_now() - t0);
    inf_padding();
    printf("equal positive terms (0.1f * 0.3f), K = 16384:\n");
    for (int v = 0;; v++) {
        const char *name;
        if (texla_kernel_variant(cc, "gemm", v, &name)) break;
        if (texla_ctx_set_variant(cc, "gemm", name) == TEXLA_ERR_UNSUPPORTED) continue;
        equal_terms(name, 16384, 0.1f, 0.3f);
    }
    (void)texla_ctx_set_variant(cc, "gemm", NULL);
    printf("  products: %.1f s\n", check_now() - t0);
}

static int warnings;
static char last_warning[512];
static void on_warning(texla_result code, const char *msg, void *user) {
    (void)code, (void)user;
    warnings++;
    snprintf(last_warning, sizeof last_warning, "%s", msg);
}
static int errors_seen;
static void on_error(texla_result code, const char *msg, void *user) {
    (void)code, (void)msg, (void)user;
    errors_seen++;
}

/* ---- A B and A' B through transposed copies ("gemm_path" via_nt) ---- */

/* C = I B (A B: B' copied) and C = I' B (A' B: I' and B' copied): each element of a product
 * with the identity is one b * 1 among zeros, exact, so C must equal B bit for bit: the
 * transpose kernel itself, at shapes cutting its 32 x 8-texel tiles anywhere */
static void transpose_exact(int r, int c) {
    char what[128];
    float *B = check_rnd((size_t)r * c), *I = check_alloc((size_t)r * r, sizeof *I);
    float *got = check_alloc((size_t)r * c, sizeof *got);
    for (int i = 0; i < r; i++) I[(size_t)i * r + i] = 1.0f;
    texla_mat id = mk(cc, r, r, I, "identity"), b = mk(cc, r, c, B, "B"),
              d = mk(cc, r, c, NULL, "C");
    CHECK_OK(cc, texla_ctx_set_variant(cc, "gemm_path", "via_nt"), "set_variant gemm_path");
    /* A B with one column of B is the matrix-vector kernel: no copy to test there */
    for (int form = c == 1 ? 1 : 0; form < 2; form++) {
        snprintf(what, sizeof what, "C = %s, A the %d x %d identity, B %d x %d (via_nt)",
                 form_name[form], r, r, r, c);
        uint64_t p0 = passes(cc);
        CHECK_OK(cc, product(cc, form, 0, id, b, d), what);
        uint64_t np = passes(cc) - p0;
        CHECK(np == (form ? 3u : 2u), "%s: %llu passes, %d expected (copies, product)", what,
              (unsigned long long)np, form ? 3 : 2);
        if (!readm(cc, d, r, c, got, what))
            CHECK(same_bits(got, B, (size_t)r * c), "%s: C differs from B", what);
    }
    (void)texla_ctx_set_variant(cc, "gemm_path", NULL);
    texla_mat_destroy(cc, id), texla_mat_destroy(cc, b), texla_mat_destroy(cc, d);
    free(B), free(I), free(got);
}

/* A' B with A K x 1, K past GL_MAX_TEXTURE_SIZE: no texture can hold A' (1 x K), so via_nt
 * takes the direct kernel, silently (no error, no warning), with the same result */
static void via_nt_fallback(void) {
    texla_ctx_desc desc = {.backend = TEXLA_BACKEND_COMPUTE, .tune = -1,
                           .warning_cb = on_warning, .error_cb = on_error};
    texla_ctx *ctx = suite_ctx(&desc);
    if (!ctx) return;
    texla_info info;
    texla_ctx_info(ctx, &info);
    int K = info.max_texture_size + 5;
    char what[128];
    snprintf(what, sizeof what, "C = A' B, 1 x %d x 1 (A' wider than a texture: direct)", K);
    float *A = check_rnd((size_t)K), *B = check_rnd((size_t)K);
    double ref = 0, abs_ = 0;
    for (int k = 0; k < K; k++) ref += (double)A[k] * B[k], abs_ += fabs((double)A[k] * B[k]);
    texla_mat a = mk(ctx, K, 1, A, what), b = mk(ctx, K, 1, B, what), c = mk(ctx, 1, 1, NULL, what);
    const char *vname;
    texla_kernel_variant(ctx, "gemm", 0, &vname);
    CHECK_OK(ctx, texla_ctx_set_variant(ctx, "gemm_path", "via_nt"), what);
    warnings = errors_seen = 0;
    uint64_t p0 = passes(ctx);
    float got = 0;
    CHECK_OK(ctx, texla_mat_matmul_tn(ctx, a, b, c), what);
    CHECK(passes(ctx) - p0 == 1, "%s: %llu passes, one expected", what,
          (unsigned long long)(passes(ctx) - p0));
    CHECK(warnings == 0 && errors_seen == 0, "%s: %d warnings (last: %s), %d errors", what,
          warnings, last_warning, errors_seen);
    if (!readm(ctx, c, 1, 1, &got, what))
        CHECK(fabs(got - ref) <= 1.01 * G(rounds(K, variant_chunk(vname))) * abs_,
              "%s: got %.9g, ref %.17g", what, (double)got, ref);
    (void)texla_ctx_set_variant(ctx, "gemm_path", NULL);
    texla_mat_destroy(ctx, a), texla_mat_destroy(ctx, b), texla_mat_destroy(ctx, c);
    free(A), free(B);
    texla_ctx_destroy(ctx);
}

/* the copies come from the pool and go back to it: repeated products make no new textures */
static void via_nt_pool(void) {
    int n = 67, K = 45, m = 71;
    texla_mat a = mk(cc, K, n, NULL, "pool"), b = mk(cc, K, m, NULL, "pool"),
              c = mk(cc, n, m, NULL, "pool");
    CHECK_OK(cc, texla_ctx_set_variant(cc, "gemm_path", "via_nt"), "pool");
    texla_stats s0 = {0}, s1 = {0};
    CHECK_OK(cc, texla_mat_matmul_tn(cc, a, b, c), "pool: first A' B");
    texla_ctx_stats(cc, &s0);
    for (int i = 0; i < 3; i++) CHECK_OK(cc, texla_mat_matmul_tn(cc, a, b, c), "pool: A' B");
    texla_ctx_stats(cc, &s1);
    CHECK(s1.textures == s0.textures, "via_nt: %llu textures after the first product, %llu "
          "after three more (copies not returned to the pool)", (unsigned long long)s0.textures,
          (unsigned long long)s1.textures);
    (void)texla_ctx_set_variant(cc, "gemm_path", NULL);
    texla_mat_destroy(cc, a), texla_mat_destroy(cc, b), texla_mat_destroy(cc, c);
}

static void test_gemm_via_nt(void) {
    double t0 = check_now();
    static const int tshapes[][2] = {{1, 1},    {1, 33},   {33, 1},   {5, 129},
                                     {127, 130}, {130, 67}, {257, 35}, {64, 96}};
    for (size_t s = 0; s < sizeof tshapes / sizeof tshapes[0]; s++)
        transpose_exact(tshapes[s][0], tshapes[s][1]);
    printf("transposed copies: I B and I' B == B bit for bit, 1x1 .. 257x35 (%.1f s)\n",
           check_now() - t0);
    static const int shapes[][3] = {{1, 1, 1},       {1, 1000, 1},    {3, 5, 7},
                                    {13, 17, 11},    {127, 128, 129}, {129, 127, 128},
                                    {128, 129, 127}, {64, 9, 64}};
    gemm_path = "via_nt";
    gemm_worst = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        gemm_case(NULL, shapes[s][0], shapes[s][1], shapes[s][2], 0, 2);
    gemm_case("128x128x8/8x8/c128", 129, 131, 127, 0, 2);
    gemm_path = "direct";
    printf("  via_nt, A B and A' B, plain and C +=, 1x1x1 .. 129x131x127: worst error / bound "
           "%.3f (%.1f s)\n", gemm_worst, check_now() - t0);
    via_nt_fallback();
    via_nt_pool();
}

/* ---- matrix-vector products ---- */

typedef struct gv_ref {
    double *y, *absy;
} gv_ref;

static void ref_gemv(int n, int m, const float *A, const float *x, double *y, double *absy) {
    for (int i = 0; i < n; i++) {
        double s = 0, a = 0;
        for (int j = 0; j < m; j++) {
            double t = (double)A[(size_t)i * m + j] * x[j];
            s += t, a += fabs(t);
        }
        y[i] = s, absy[i] = a;
    }
}

/* reads a vector made by mkv on ctx (tu helpers work on one context at a time) */
static int readv(texla_ctx *ctx, texla_vec v, vshape s, float *out, const char *what) {
    tu_begin(ctx);
    return vfetch(v, s, out, what);
}

static texla_vec mkvec(texla_ctx *ctx, vshape s, const float *data, const char *what) {
    tu_begin(ctx);
    return mkv(s, data, what);
}

#define S_ADD (-0.61803399f)

/* y = A x (dense n x 1 operands: texla_mat_matmul; 2D vectors: texla_mat_matvec, _add, and
 * for square A texla_op_matvec_dot) with the gemv variant pinned (NULL: default); grid: the
 * vectors as an nx x (n/nx) grid when nonzero */
static double gemv_worst;
static void gemv_case(const char *variant, int n, int m, int gnx, int fragment) {
    char what[200];
    const char *vname = variant;
    if (!vname) texla_kernel_variant(cc, "gemv", 0, &vname);
    float *A = check_rnd((size_t)n * m), *x = check_rnd((size_t)m), *b = check_rnd((size_t)n);
    float *y = check_alloc((size_t)n, sizeof *y), *y2 = check_alloc((size_t)n, sizeof *y2);
    double *ref = check_alloc((size_t)n, sizeof *ref), *absy = check_alloc((size_t)n, sizeof *absy),
           *bnd = check_alloc((size_t)n, sizeof *bnd), *refb = check_alloc((size_t)n, sizeof *refb),
           *bndb = check_alloc((size_t)n, sizeof *bndb);
    ref_gemv(n, m, A, x, ref, absy);
    for (int i = 0; i < n; i++) {
        bnd[i] = 1.01 * G(m) * absy[i];
        refb[i] = ref[i] + (double)S_ADD * b[i];
        bndb[i] = 1.01 * G(m + 1) * (absy[i] + fabs((double)S_ADD * b[i]));
    }
    CHECK_OK(cc, texla_ctx_set_variant(cc, "gemv", variant), "set_variant gemv");
    for (int side = 0; side < (fragment ? 2 : 1); side++) {
        texla_ctx *ctx = side ? fc : cc;
        const char *on = side ? "fragment" : vname;
        /* dense n x 1 operands */
        texla_mat a = mk(ctx, n, m, A, "gemv A"), X = mk(ctx, m, 1, x, "gemv x"),
                  Y = mk(ctx, n, 1, NULL, "gemv y");
        snprintf(what, sizeof what, "texla_mat_matmul %d x %d by %d x 1 (%s)", n, m, m, on);
        uint64_t p0 = passes(ctx);
        texla_result r = texla_mat_matmul(ctx, a, X, Y);
        CHECK_OK(ctx, r, what);
        if (!side)
            CHECK(passes(ctx) - p0 == 1, "%s: %llu passes; one kernel expected", what,
                  (unsigned long long)(passes(ctx) - p0));
        double w = 0;
        if (!r && !readm(ctx, Y, n, 1, y, what)) within(y, ref, bnd, (size_t)n, &w, what);
        if (!side) {
            CHECK_OK(ctx, texla_mat_matmul(ctx, a, X, Y), what);
            if (!readm(ctx, Y, n, 1, y2, what))
                CHECK(same_bits(y, y2, (size_t)n), "%s: a second run differs", what);
        }
        /* 2D vectors: plain, or a grid */
        for (int grid = 0; grid < (gnx ? 2 : 1); grid++) {
            vshape sx = grid ? grid_shape(gnx, m / gnx) : plain_shape(m);
            vshape sy = grid ? grid_shape(gnx, n / gnx) : plain_shape(n);
            texla_vec xv = mkvec(ctx, sx, x, what), bv = mkvec(ctx, sy, b, what),
                      yv = mkvec(ctx, sy, NULL, what);
            snprintf(what, sizeof what, "texla_mat_matvec %d x %d, %s (%s)", n, m, sname(sx).s, on);
            r = texla_mat_matvec(ctx, a, xv, yv);
            CHECK_OK(ctx, r, what);
            if (!r && !readv(ctx, yv, sy, y, what)) within(y, ref, bnd, (size_t)n, &w, what);
            snprintf(what, sizeof what, "texla_mat_matvec_add %d x %d, %s (%s)", n, m,
                     sname(sx).s, on);
            r = texla_mat_matvec_add(ctx, a, xv, S_ADD, bv, yv);
            CHECK_OK(ctx, r, what);
            if (!r && !readv(ctx, yv, sy, y, what)) within(y, refb, bndb, (size_t)n, &w, what);
            if (n == m) { /* q = A p and p'q */
                texla_scalar pq = {0};
                CHECK_OK(ctx, texla_scalar_make(ctx, 0, &pq), what);
                snprintf(what, sizeof what, "texla_op_matvec_dot %d x %d, %s (%s)", n, m,
                         sname(sx).s, on);
                r = texla_op_matvec_dot(ctx, texla_op_dense(a), xv, yv, pq);
                CHECK_OK(ctx, r, what);
                float d = NAN;
                if (!r && !readv(ctx, yv, sy, y, what)) within(y, ref, bnd, (size_t)n, &w, what);
                if (!r) CHECK_OK(ctx, texla_scalar_read(ctx, pq, &d), what);
                double dr = 0, db = 0;
                for (int i = 0; i < n; i++) {
                    dr += (double)x[i] * ref[i];
                    db += fabs((double)x[i]) * absy[i];
                }
                db *= 1.01 * (G(m) + G(n));
                CHECK(fabs(d - dr) <= db, "%s: p'q = %.9g, ref %.17g, bound %.3g", what,
                      (double)d, dr, db);
                texla_scalar_destroy(ctx, pq);
            }
            texla_vec_destroy(ctx, xv), texla_vec_destroy(ctx, bv), texla_vec_destroy(ctx, yv);
        }
        if (w > gemv_worst) gemv_worst = w;
        texla_mat_destroy(ctx, a), texla_mat_destroy(ctx, X), texla_mat_destroy(ctx, Y);
    }
    CHECK_OK(cc, texla_ctx_set_variant(cc, "gemv", NULL), "set_variant gemv NULL");
    free(A), free(x), free(b), free(y), free(y2), free(ref), free(absy), free(bnd), free(refb);
    free(bndb);
}

/* one projected Jacobi step against float64, both backends; bounded: rows in triples, a
 * normal row and its two friction rows */
static void lcp_case(int n, int bounded) {
    char what[160];
    float *A = check_rnd((size_t)n * n), *b = check_rnd((size_t)n), *x = check_rnd((size_t)n),
          *e = check_alloc((size_t)n, sizeof *e), *idx = check_alloc((size_t)n, sizeof *idx),
          *mu = check_alloc((size_t)n, sizeof *mu), *got = check_alloc((size_t)n, sizeof *got);
    double *v = check_alloc((size_t)n, sizeof *v), *vb = check_alloc((size_t)n, sizeof *vb),
           *ref = check_alloc((size_t)n, sizeof *ref), *bnd = check_alloc((size_t)n, sizeof *bnd);
    for (int i = 0; i < n; i++) {
        A[(size_t)i * n + i] = (float)n;
        e[i] = -0.9f / A[(size_t)i * n + i];
        x[i] = fabsf(x[i]);
        idx[i] = bounded && i % 3 ? (float)(i - i % 3) : -1.0f;
        mu[i] = 0.5f + 0.4f * (float)check_rand();
    }
    for (int i = 0; i < n; i++) {
        double s = 0, a = 0;
        for (int j = 0; j < n; j++) {
            s += (double)A[(size_t)i * n + j] * x[j];
            a += fabs((double)A[(size_t)i * n + j] * x[j]);
        }
        v[i] = x[i] + (s + b[i]) * e[i];
        vb[i] = 1.01 * G(n + 3) * (fabs((double)x[i]) + (a + fabs((double)b[i])) * fabs((double)e[i]));
    }
    for (int i = 0; i < n; i++) {
        int j = (int)idx[i];
        if (j < 0) {
            ref[i] = fmax(v[i], 0.0), bnd[i] = vb[i];
        } else {
            double nj = fmax(v[j], 0.0), lim = mu[i] * nj;
            ref[i] = fmin(fmax(v[i], -lim), lim);
            bnd[i] = vb[i] + mu[i] * vb[j] + 2 * U * lim;
        }
    }
    for (int side = 0; side < 2; side++) {
        texla_ctx *ctx = side ? fc : cc;
        texla_mat ma = mk(ctx, n, n, A, "lcp"), mb = mk(ctx, n, 1, b, "lcp"),
                  me = mk(ctx, n, 1, e, "lcp"), mx = mk(ctx, n, 1, x, "lcp"),
                  mi = bounded ? mk(ctx, n, 1, idx, "lcp") : (texla_mat){0},
                  mm = bounded ? mk(ctx, n, 1, mu, "lcp") : (texla_mat){0},
                  md = mk(ctx, n, 1, NULL, "lcp");
        snprintf(what, sizeof what, "texla_lcp_step n = %d%s (%s)", n, bounded ? " bounded" : "",
                 side ? "fragment" : "compute");
        uint64_t p0 = passes(ctx);
        texla_result r = texla_lcp_step(ctx, ma, mb, me, mx, mi, mm, md);
        CHECK_OK(ctx, r, what);
        if (!side)
            CHECK(passes(ctx) - p0 == 1, "%s: %llu passes; one kernel expected", what,
                  (unsigned long long)(passes(ctx) - p0));
        if (!r && !readm(ctx, md, n, 1, got, what)) within(got, ref, bnd, (size_t)n, NULL, what);
        if (!side) {
            float *again = check_alloc((size_t)n, sizeof *again);
            CHECK_OK(ctx, texla_lcp_step(ctx, ma, mb, me, mx, mi, mm, md), what);
            if (!readm(ctx, md, n, 1, again, what))
                CHECK(same_bits(got, again, (size_t)n), "%s: a second run differs", what);
            free(again);
        }
        texla_mat ms[] = {ma, mb, me, mx, mi, mm, md};
        for (int k = 0; k < 7; k++) texla_mat_destroy(ctx, ms[k]);
    }
    free(A), free(b), free(x), free(e), free(idx), free(mu), free(got), free(v), free(vb);
    free(ref), free(bnd);
}

static void test_gemv(void) {
    double t0 = check_now();
    printf("matrix-vector products: every gemv variant at 129 x 2049, the default at other "
           "shapes on both backends:\n");
    for (int v = 0;; v++) {
        const char *name;
        if (texla_kernel_variant(cc, "gemv", v, &name)) break;
        if (texla_ctx_set_variant(cc, "gemv", name) == TEXLA_ERR_UNSUPPORTED) {
            check_skip(name, "this GL cannot run the variant");
            continue;
        }
        gemv_worst = 0;
        gemv_case(name, 129, 2049, 0, 0);
        gemv_case(name, 130, 130, 13, 0);
        printf("  %-16s worst error / bound %.3f\n", name, gemv_worst);
    }
    (void)texla_ctx_set_variant(cc, "gemv", NULL);
    static const int shapes[][3] = {{1, 1, 0},     {1, 1000, 0},  {1000, 1, 0}, {127, 129, 0},
                                    {129, 127, 0}, {63, 63, 9},   {4099, 5, 0}, {5, 4099, 0}};
    gemv_worst = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        gemv_case(NULL, shapes[s][0], shapes[s][1], shapes[s][2], 1);
    printf("  default variant: worst error / bound %.3f\n", gemv_worst);
    lcp_case(37, 0);
    lcp_case(37, 1);
    lcp_case(1024, 1);
    printf("  matrix-vector products and LCP steps: %.1f s\n", check_now() - t0);
}

/* ---- reductions ---- */

/* reduction op (0 sum .. 5 maxabs) of a vector (va, vb) or a matrix (ma, mb) into s */
static texla_result reduce_op(texla_ctx *ctx, int kind, int op, texla_vec va, texla_vec vb,
                              texla_mat ma, texla_mat mb, texla_scalar s) {
    if (kind == 0)
        return op == 0 ? texla_vec_sum(ctx, va, s) : op == 1 ? texla_vec_dot(ctx, va, vb, s)
               : op == 2 ? texla_vec_sqnorm(ctx, va, s) : op == 3 ? texla_vec_maxval(ctx, va, s)
               : op == 4 ? texla_vec_minval(ctx, va, s) : texla_vec_maxabs(ctx, va, s);
    return op == 0 ? texla_mat_sum(ctx, ma, s) : op == 1 ? texla_mat_dot(ctx, ma, mb, s)
           : op == 2 ? texla_mat_sqnorm(ctx, ma, s) : op == 3 ? texla_mat_maxval(ctx, ma, s)
           : op == 4 ? texla_mat_minval(ctx, ma, s) : texla_mat_maxabs(ctx, ma, s);
}

static void reductions_of(int n) {
    char what[128];
    float *a = check_rnd((size_t)n), *b = check_rnd((size_t)n);
    double sum = 0, dot = 0, sq = 0, asum = 0, adot = 0, mx = -INFINITY, mn = INFINITY, mabs = 0;
    for (int i = 0; i < n; i++) {
        sum += a[i], asum += fabs((double)a[i]);
        dot += (double)a[i] * b[i], adot += fabs((double)a[i] * b[i]);
        sq += (double)a[i] * a[i];
        mx = fmax(mx, a[i]), mn = fmin(mn, a[i]), mabs = fmax(mabs, fabs((double)a[i]));
    }
    double want[6] = {sum, dot, sq, mx, mn, mabs};
    double bnd[6] = {1.01 * G(n) * asum, 1.01 * G(n) * adot, 1.01 * G(n) * sq, 0, 0, 0};
    static const char *const names[6] = {"sum", "dot", "sqnorm", "maxval", "minval", "maxabs"};
    for (int kind = 0; kind < 2; kind++) { /* a vector, an n x 1 matrix */
        float got[3][6];
        for (int side = 0; side < 2; side++) { /* compute (twice), fragment */
            texla_ctx *ctx = side ? fc : cc;
            texla_vec va = {0}, vb = {0};
            texla_mat ma = {0}, mb = {0};
            if (kind == 0) {
                CHECK_OK(ctx, texla_vec_make(ctx, n, a, &va), "reduce");
                CHECK_OK(ctx, texla_vec_make(ctx, n, b, &vb), "reduce");
            } else { /* n x 1, or rows of 1024 where n x 1 would pass the texture limit */
                int cols = n > 65536 ? 1024 : 1;
                ma = mk(ctx, n / cols, cols, a, "reduce"), mb = mk(ctx, n / cols, cols, b, "reduce");
            }
            texla_scalar s = {0};
            CHECK_OK(ctx, texla_scalar_make(ctx, 0, &s), "reduce");
            for (int op = 0; op < 6; op++)
                for (int rep = 0; rep < (side ? 1 : 2); rep++) {
                    snprintf(what, sizeof what, "texla_%s_%s n = %d (%s)", kind ? "mat" : "vec",
                             names[op], n, side ? "fragment" : "compute");
                    uint64_t p0 = passes(ctx);
                    CHECK_OK(ctx, reduce_op(ctx, kind, op, va, vb, ma, mb, s), what);
                    if (!side)
                        CHECK(passes(ctx) - p0 == 1, "%s: %llu passes; one kernel expected", what,
                              (unsigned long long)(passes(ctx) - p0));
                    int slot = side ? 2 : rep;
                    got[slot][op] = NAN;
                    CHECK_OK(ctx, texla_scalar_read(ctx, s, &got[slot][op]), what);
                    double g = got[slot][op];
                    CHECK(fabs(g - want[op]) <= bnd[op], "%s: %.9g, ref %.17g, bound %.3g", what,
                          g, want[op], bnd[op]);
                }
            texla_scalar_destroy(ctx, s);
            texla_vec_destroy(ctx, va), texla_vec_destroy(ctx, vb);
            texla_mat_destroy(ctx, ma), texla_mat_destroy(ctx, mb);
        }
        for (int op = 0; op < 6; op++) {
            snprintf(what, sizeof what, "texla_%s_%s n = %d", kind ? "mat" : "vec", names[op], n);
            CHECK(same_bits(&got[0][op], &got[1][op], 1), "%s: two runs differ: %.9g, %.9g", what,
                  (double)got[0][op], (double)got[1][op]);
            CHECK(fabs((double)got[0][op] - got[2][op]) <= 2 * bnd[op],
                  "%s: compute %.9g, fragment %.9g: more apart than both bounds (%.3g)", what,
                  (double)got[0][op], (double)got[2][op], 2 * bnd[op]);
        }
    }
    free(a), free(b);
}

/* The data of NaN pattern k (n elements; NULL past the last pattern): max, min and maxabs must
 * be NaN when any element is NaN (numpy's rule), wherever it sits, whatever its sign, next to
 * +-Inf; the last two, without NaN, must still be exact (padding lanes take no part). */
static float nan_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static const char *nan_pattern(int k, int n, float *a) {
    /* uniform in [-1, 1), or of one sign with magnitudes in [2^-10, 1 + 2^-10) */
    double sign = k == 5 || k == 7 ? -1 : k == 8 ? 1 : 0;
    for (int i = 0; i < n; i++) {
        double r = check_rand();
        a[i] = (float)(sign ? sign * (1.0 / 1024 + 0.5 * (r + 1)) : r);
    }
    switch (k) {
    case 0:
        for (int i = 0; i < n; i++) a[i] = -NAN; /* the sign of 0 / 0 on x86 */
        return "all NaN";
    case 1: a[0] = NAN; return "NaN first";
    case 2: a[n / 2] = -NAN; return "NaN in the middle";
    case 3: a[n - 1] = NAN; return "NaN last (the last texel)";
    case 4: a[0] = NAN, a[n - 1] = -NAN; return "NaN first and last";
    case 5: a[n / 3] = NAN; return "NaN among negative values";
    case 6: a[0] = INFINITY, a[n - 1] = -INFINITY, a[n / 2] = NAN; return "NaN, +Inf and -Inf";
    case 7: return "all negative, no NaN";
    case 8: return "all positive, no NaN";
    /* one lane of one texel: lanes 1 and 2 of the first, the one before the last element */
    case 9: a[n > 1 ? 1 : 0] = NAN; return "NaN second";
    case 10: a[n > 2 ? 2 : 0] = -NAN; return "NaN third";
    case 11: a[n > 1 ? n - 2 : 0] = NAN; return "NaN second to last";
    case 12: /* the NaNs nearest +-Inf, among infinities (bits: NaN is above Inf's) */
        for (int i = 0; i < n; i++) a[i] = i % 2 ? -INFINITY : INFINITY;
        a[n / 2] = nan_bits(0x7f800001u);
        if (n > 2) a[n / 3] = nan_bits(0xff800001u);
        return "NaN 0x7f800001 and 0xff800001 among +-Inf";
    case 13:
        for (int i = 0; i < n; i++) a[i] = i % 3 ? -INFINITY : INFINITY;
        return "+Inf and -Inf, no NaN";
    case 14:
        for (int i = 0; i < n; i++) a[i] = -INFINITY;
        return "all -Inf, no NaN";
    case 15:
        for (int i = 0; i < n; i++) a[i] = -0.0f;
        return "all -0.0, no NaN";
    case 16:
        for (int i = 0; i < n; i++) a[i] = i % 2 ? 0.0f : -0.0f;
        return "-0.0 and +0.0, no NaN";
    case 17: /* both signs; the largest magnitudes in the middle */
        for (int i = 0; i < n; i++)
            a[i] = (i % 2 ? -1.0f : 1.0f) *
                   ldexpf((float)(1u + (unsigned)i * 7919u % 1000u), -149);
        a[n / 2] = ldexpf(0x7fffff, -149), a[n / 3] = -ldexpf(0x7ffffe, -149);
        return "denormals, no NaN";
    case 18:
        for (int i = 0; i < n; i++) a[i] = ldexpf((float)(1 + i % 1000), -149);
        a[n - 1] = NAN;
        return "denormals and NaN last";
    }
    return NULL;
}

/* the pattern's denormals (case 17) may be flushed to 0 by float max and min (GPUs may flush
 * denormals in float operations) */
static int denormal_pattern(const char *pat) { return !strcmp(pat, "denormals, no NaN"); }

/* maxval, minval and maxabs of NaN patterns in a vector of n elements and a rows x cols
 * matrix (n elements), on the compute backend with the "reduce" variant pinned (NULL: the
 * default, and then the fragment backend too) */
static void nan_reductions_of(int n, int rows, int cols, const char *variant) {
    int frag = variant == NULL;
    char what[200];
    float *a = check_alloc((size_t)n, sizeof *a);
    const char *pat;
    for (int k = 0; (pat = nan_pattern(k, n, a)) != NULL; k++) {
        int nan = 0;
        double want[6] = {0, 0, 0, -INFINITY, INFINITY, 0};
        for (int i = 0; i < n; i++) {
            nan |= isnan(a[i]);
            if (isnan(a[i])) continue;
            want[3] = fmax(want[3], a[i]), want[4] = fmin(want[4], a[i]);
            want[5] = fmax(want[5], fabs((double)a[i]));
        }
        for (int kind = 0; kind < 2; kind++)
            for (int side = 0; side <= frag; side++) {
                texla_ctx *ctx = side ? fc : cc;
                texla_vec va = {0};
                texla_mat ma = {0};
                if (kind == 0) CHECK_OK(ctx, texla_vec_make(ctx, n, a, &va), "reduce NaN");
                else ma = mk(ctx, rows, cols, a, "reduce NaN");
                texla_scalar s = {0};
                CHECK_OK(ctx, texla_scalar_make(ctx, 0, &s), "reduce NaN");
                for (int op = 3; op < 6; op++) {
                    static const char *const names[6] = {"", "", "", "maxval", "minval",
                                                         "maxabs"};
                    const char *be = side ? "fragment" : variant ? variant : "compute";
                    if (kind)
                        snprintf(what, sizeof what, "texla_mat_%s %d x %d, %s (%s)", names[op],
                                 rows, cols, pat, be);
                    else
                        snprintf(what, sizeof what, "texla_vec_%s n = %d, %s (%s)", names[op], n,
                                 pat, be);
                    /* a stale value cannot pass */
                    CHECK_OK(ctx, texla_scalar_write(ctx, 12345.0f, s), what);
                    CHECK_OK(ctx, reduce_op(ctx, kind, op, va, va, ma, ma, s), what);
                    float g = 12345.0f;
                    CHECK_OK(ctx, texla_scalar_read(ctx, s, &g), what);
                    if (nan)
                        CHECK(isnan(g), "%s: %.9g, expected NaN", what, (double)g);
                    else if (denormal_pattern(pat) && g == 0 && (op != 5 || side))
                        CHECK(1, "%s", what); /* flushed to 0 by a float compare (GLSL allows
                                               * it); the compute maxabs folds bits only */
                    else
                        CHECK((double)g == want[op], "%s: %.9g, expected exactly %.9g", what,
                              (double)g, want[op]);
                    if (op == 5) /* not -0.0 or a NaN with the sign bit either */
                        CHECK(!signbit(g), "%s: a negative largest magnitude %.9g", what,
                              (double)g);
                }
                texla_scalar_destroy(ctx, s);
                texla_vec_destroy(ctx, va);
                texla_mat_destroy(ctx, ma);
            }
    }
    free(a);
}

/* the sizes of the NaN checks: one element, one partial texel past a full one, just past one
 * workgroup's round (1024 texels), many workgroups of several rounds; matrices of 7, 4099 and
 * 750 rows end in a partial texel */
static const int nan_sizes[][3] = {{1, 1, 1},       {7, 7, 1},         {4099, 4099, 1},
                                   {66049, 257, 257}, {300000, 750, 400}};
#define N_NAN_SIZES ((int)(sizeof nan_sizes / sizeof nan_sizes[0]))

static void test_reduce(void) {
    double t0 = check_now();
    /* around the kernel's boundaries: one workgroup (256 invocations x 4 texels), the unrolled
     * rounds of four, the largest */
    static const int ns[] = {1, 3, 1024, 4093, 4096 * 4 + 4, 65521, 1 << 20};
    /* every way of walking the texture (the "reduce" family), each pinned: rows, then tiles of
     * several shapes (partial tiles at the right and bottom edges of the odd shapes) */
    for (int v = 0;; v++) {
        const char *name;
        if (texla_kernel_variant(cc, "reduce", v, &name)) break;
        CHECK_OK(cc, texla_ctx_set_variant(cc, "reduce", name), "pin the reduce variant");
        /* rows and the default tiles at every size; the other tile shapes and unrolls at one
         * workgroup, partial tiles and several rounds */
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
            if (v < 2 || ns[i] == 1 || ns[i] == 4093 || ns[i] == 65521 || ns[i] == 1 << 20)
                reductions_of(ns[i]);
        for (int i = 0; i < N_NAN_SIZES; i++)
            nan_reductions_of(nan_sizes[i][0], nan_sizes[i][1], nan_sizes[i][2], name);
    }
    texla_ctx_set_variant(cc, "reduce", NULL);
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) reductions_of(ns[i]); /* the default */
    for (int i = 0; i < N_NAN_SIZES; i++) /* the default, and the fragment backend */
        nan_reductions_of(nan_sizes[i][0], nan_sizes[i][1], nan_sizes[i][2], NULL);
    /* the fixed cost: 1024 elements, 200 dots into a GPU scalar */
    texla_vec a, b;
    texla_scalar s;
    float *h = check_rnd(1024);
    texla_vec_make(cc, 1024, h, &a), texla_vec_make(cc, 1024, h, &b);
    texla_scalar_make(cc, 0, &s);
    texla_vec_dot(cc, a, b, s);
    texla_ctx_finish(cc);
    double t1 = check_now();
    for (int i = 0; i < 200; i++) texla_vec_dot(cc, a, b, s);
    texla_ctx_finish(cc);
    double per = (check_now() - t1) / 200 * 1e6;
    printf("reductions: 1 .. 2^20 elements, two runs bit-identical, one pass each, the fragment "
           "path within both bounds; max/min/maxabs NaN wherever a NaN sits; a 1024-element dot "
           "%.1f us per call on this GL (%.1f s)\n",
           per, check_now() - t0);
    texla_vec_destroy(cc, a), texla_vec_destroy(cc, b), texla_scalar_destroy(cc, s);
    free(h);
}

/* ---- banded ---- */

/* y = A x (+ s b) of a banded matrix given by diagonals, in float64 */
static void ref_banded(int n, int nd, const int *off, const float *d, const float *x,
                       const float *b, float s, double *y, double *absy) {
    for (int k = 0; k < n; k++) {
        double v = 0, a = 0;
        for (int i = 0; i < nd; i++) {
            long j = (long)k + off[i];
            if (j < 0 || j >= n) continue;
            double t = (double)d[(size_t)i * n + k] * x[j];
            v += t, a += fabs(t);
        }
        if (b) v += (double)s * b[k], a += fabs((double)s * b[k]);
        y[k] = v, absy[k] = a;
    }
}

/* the banded case: diagonals on a shape, both backends, y = A x, y = A x + s b, q = A p with
 * p'q; k roundings per row */
static void banded_case(const char *label, vshape sh, int nd, const int *off, const float *d,
                        double k) {
    char what[200];
    int n = sh.n;
    float *x = check_rnd((size_t)n), *b = check_rnd((size_t)n);
    float *y = check_alloc((size_t)n, sizeof *y), *y2 = check_alloc((size_t)n, sizeof *y2);
    double *ref = check_alloc((size_t)n, sizeof *ref), *abs_ = check_alloc((size_t)n, sizeof *abs_),
           *bnd = check_alloc((size_t)n, sizeof *bnd);
    for (int side = 0; side < 2; side++) {
        texla_ctx *ctx = side ? fc : cc;
        texla_vec xv = mkvec(ctx, sh, x, label), bv = mkvec(ctx, sh, b, label),
                  yv = mkvec(ctx, sh, NULL, label);
        texla_banded A = {0};
        CHECK_OK(ctx, texla_banded_make(ctx, xv, nd, off, d, &A), label);
        for (int add = 0; add < 3; add++) {
            snprintf(what, sizeof what, "%s %s (%s)", label,
                     add == 0 ? "y = A x" : add == 1 ? "y = A x + s b" : "q = A p, p'q",
                     side ? "fragment" : "compute");
            ref_banded(n, nd, off, d, x, add == 1 ? b : NULL, S_ADD, ref, abs_);
            for (int i = 0; i < n; i++) bnd[i] = 1.01 * G(k + (add == 1)) * abs_[i];
            texla_scalar pq = {0};
            texla_scalar_make(ctx, 0, &pq);
            texla_result r = add == 0   ? texla_banded_matvec(ctx, A, xv, yv)
                             : add == 1 ? texla_banded_matvec_add(ctx, A, xv, S_ADD, bv, yv)
                                        : texla_op_matvec_dot(ctx, texla_op_banded(A), xv, yv, pq);
            CHECK_OK(ctx, r, what);
            if (!r && !readv(ctx, yv, sh, y, what)) within(y, ref, bnd, (size_t)n, NULL, what);
            if (add == 2 && !r) {
                float dd = NAN;
                CHECK_OK(ctx, texla_scalar_read(ctx, pq, &dd), what);
                double dr = 0, db = 0;
                for (int i = 0; i < n; i++) dr += x[i] * ref[i], db += fabs((double)x[i]) * abs_[i];
                db *= 1.01 * (G(k) + G(n));
                CHECK(fabs(dd - dr) <= db, "%s: p'q = %.9g, ref %.17g, bound %.3g", what,
                      (double)dd, dr, db);
            }
            if (!side && !r) { /* again, bit for bit */
                r = add == 0   ? texla_banded_matvec(ctx, A, xv, yv)
                    : add == 1 ? texla_banded_matvec_add(ctx, A, xv, S_ADD, bv, yv)
                               : texla_op_matvec_dot(ctx, texla_op_banded(A), xv, yv, pq);
                if (!r && !readv(ctx, yv, sh, y2, what))
                    CHECK(same_bits(y, y2, (size_t)n), "%s: a second run differs", what);
            }
            texla_scalar_destroy(ctx, pq);
        }
        texla_banded_destroy(ctx, A);
        texla_vec_destroy(ctx, xv), texla_vec_destroy(ctx, bv), texla_vec_destroy(ctx, yv);
    }
    free(x), free(b), free(y), free(y2), free(ref), free(abs_), free(bnd);
}

/* the diagonals of a constant 5-point stencil on an nx x ny grid (zero across the edges) */
static float *stencil_diags(int nx, int ny, const float c[5], int *off) {
    int n = nx * ny;
    float *d = check_alloc((size_t)5 * n, sizeof *d);
    off[0] = 0, off[1] = -1, off[2] = 1, off[3] = -nx, off[4] = nx;
    for (int k = 0; k < n; k++) {
        int cx = k % nx, cy = k / nx;
        d[k] = c[0];
        d[(size_t)n + k] = cx > 0 ? c[1] : 0;
        d[(size_t)2 * n + k] = cx < nx - 1 ? c[2] : 0;
        d[(size_t)3 * n + k] = cy > 0 ? c[3] : 0;
        d[(size_t)4 * n + k] = cy < ny - 1 ? c[4] : 0;
    }
    return d;
}

static uint64_t textures(texla_ctx *ctx) {
    texla_stats s = {0};
    texla_ctx_stats(ctx, &s);
    return s.textures;
}

static void test_banded_kernels(void) {
    double t0 = check_now();
    int off[7];
    const float pc[5] = {0.3f + 4 * 1.1f, -1.1f, -1.1f, -1.1f, -1.1f};
    float *d = stencil_diags(37, 29, pc, off);
    banded_case("Poisson-like stencil 37x29", grid_shape(37, 29), 5, off, d, 6);
    free(d);
    const float hc[5] = {2.5f, -0.25f, 0.75f, -1.5f, 0.125f};
    d = stencil_diags(16, 9, hc, off);
    banded_case("stencil 16x9, four coefficients", grid_shape(16, 9), 5, off, d, 6);
    d[(size_t)2 * 144 + 70] = 0.7501f; /* one entry off: no longer a stencil */
    banded_case("near-stencil 16x9 (general kernel)", grid_shape(16, 9), 5, off, d, 5);
    free(d);
    static const int off7[7] = {0, 1, -1, 5, -7, 50, -99};
    float *d7 = check_rnd((size_t)7 * 101);
    banded_case("7 diagonals, plain n = 101", plain_shape(101), 7, off7, d7, 7);
    static const int offg[6] = {0, 1, -1, 15, -15, 31};
    banded_case("6 diagonals, grid 15x7", grid_shape(15, 7), 6, offg, d7, 6);
    free(d7);
    /* Poisson through texla_banded_poisson: compute and fragment agree within both bounds */
    {
        int nx = 33, ny = 20, n = nx * ny;
        float *x = check_rnd((size_t)n), *y0 = check_alloc((size_t)n, sizeof *y0),
              *y1 = check_alloc((size_t)n, sizeof *y1);
        double *gd = check_alloc((size_t)n, sizeof *gd), *bnd = check_alloc((size_t)n, sizeof *bnd);
        float *res[2] = {y0, y1};
        for (int side = 0; side < 2; side++) {
            texla_ctx *ctx = side ? fc : cc;
            texla_banded P = {0};
            CHECK_OK(ctx, texla_banded_poisson(ctx, nx, ny, 0.5f, 1.0f, &P), "poisson");
            texla_vec xv = mkvec(ctx, grid_shape(nx, ny), x, "poisson"),
                      yv = mkvec(ctx, grid_shape(nx, ny), NULL, "poisson");
            CHECK_OK(ctx, texla_banded_matvec(ctx, P, xv, yv), "poisson");
            readv(ctx, yv, grid_shape(nx, ny), res[side], "poisson");
            texla_banded_destroy(ctx, P), texla_vec_destroy(ctx, xv), texla_vec_destroy(ctx, yv);
        }
        for (int k = 0; k < n; k++) {
            int cx = k % nx, cy = k / nx;
            double a = 4.5 * fabs((double)x[k]);
            if (cx > 0) a += fabs((double)x[k - 1]);
            if (cx < nx - 1) a += fabs((double)x[k + 1]);
            if (cy > 0) a += fabs((double)x[k - nx]);
            if (cy < ny - 1) a += fabs((double)x[k + nx]);
            gd[k] = y0[k];
            bnd[k] = 2 * 1.01 * G(6) * a;
        }
        within(y1, gd, bnd, (size_t)n, NULL, "texla_banded_poisson 33x20: compute vs fragment");
        free(x), free(y0), free(y1), free(gd), free(bnd);
    }
    /* the paired storage: d and d - n share a texture */
    {
        int n = 9;
        texla_vec v = mkvec(cc, plain_shape(n), NULL, "pairs");
        float *dd = check_rnd((size_t)17 * n);
        int offs[17];
        for (int i = 0; i < 17; i++) offs[i] = i - 8;
        struct { int nd; const int *o; uint64_t want; const char *what; } cases[] = {
            {2, (const int[]){3, 3 - 9}, 1, "offsets 3 and -6 (partners)"},
            {2, (const int[]){3, -3}, 2, "offsets 3 and -3"},
            {17, offs, 9, "all 17 diagonals of a 9 x 9 matrix"},
            {3, (const int[]){0, 9, -12}, 1, "0 and two outside the matrix"}};
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            uint64_t t0_ = textures(cc);
            texla_banded A = {0};
            CHECK_OK(cc, texla_banded_make(cc, v, cases[c].nd, cases[c].o, dd, &A), cases[c].what);
            CHECK(textures(cc) - t0_ == cases[c].want, "banded %s: %llu textures, expected %llu",
                  cases[c].what, (unsigned long long)(textures(cc) - t0_),
                  (unsigned long long)cases[c].want);
            texla_banded_destroy(cc, A);
        }
        banded_case("full 9 x 9 as 17 diagonals", plain_shape(n), 17, offs, dd, 17);
        texla_vec_destroy(cc, v);
        free(dd);
    }
    printf("banded kernels: stencils, general diagonals, paired storage (%.1f s)\n",
           check_now() - t0);
}

/* ---- fused CG and LCP ---- */

static void test_cg_update(void) {
    int n = 1000;
    float *p = check_rnd((size_t)n), *q = check_rnd((size_t)n), *x = check_rnd((size_t)n),
          *r = check_rnd((size_t)n), *gx = check_alloc((size_t)n, sizeof *gx),
          *gr = check_alloc((size_t)n, sizeof *gr);
    double *rx = check_alloc((size_t)n, sizeof *rx), *rr_ = check_alloc((size_t)n, sizeof *rr_),
           *bx = check_alloc((size_t)n, sizeof *bx), *br = check_alloc((size_t)n, sizeof *br);
    const float rrv = 3.25f, pqv = -1.75f;
    double alpha = (double)rrv / pqv;
    for (int i = 0; i < n; i++) {
        rx[i] = x[i] + alpha * p[i], rr_[i] = r[i] - alpha * q[i];
        bx[i] = 6 * U * (fabs((double)x[i]) + fabs(alpha * p[i]));
        br[i] = 6 * U * (fabs((double)r[i]) + fabs(alpha * q[i]));
    }
    for (int side = 0; side < 2; side++) {
        texla_ctx *ctx = side ? fc : cc;
        const char *what = side ? "texla_vec_cg_update (fragment)" : "texla_vec_cg_update (compute)";
        vshape s = grid_shape(40, 25);
        texla_vec vp = mkvec(ctx, s, p, what), vq = mkvec(ctx, s, q, what),
                  vx = mkvec(ctx, s, x, what), vr = mkvec(ctx, s, r, what);
        texla_scalar srr, spq, snew, sbeta;
        texla_scalar_make(ctx, rrv, &srr), texla_scalar_make(ctx, pqv, &spq);
        texla_scalar_make(ctx, 0, &snew), texla_scalar_make(ctx, 0, &sbeta);
        uint64_t p0 = passes(ctx);
        texla_result res = texla_vec_cg_update(ctx, srr, spq, vp, vq, vx, vr, snew, sbeta);
        CHECK_OK(ctx, res, what);
        if (!side)
            CHECK(passes(ctx) - p0 == 1, "%s: %llu passes; one kernel expected", what,
                  (unsigned long long)(passes(ctx) - p0));
        float fnew = NAN, fbeta = NAN;
        if (!res && !readv(ctx, vx, s, gx, what) && !readv(ctx, vr, s, gr, what)) {
            within(gx, rx, bx, (size_t)n, NULL, what);
            within(gr, rr_, br, (size_t)n, NULL, what);
            double want = 0;
            for (int i = 0; i < n; i++) want += (double)gr[i] * gr[i];
            CHECK_OK(ctx, texla_scalar_read(ctx, snew, &fnew), what);
            CHECK_OK(ctx, texla_scalar_read(ctx, sbeta, &fbeta), what);
            CHECK(fabs(fnew - want) <= 1.01 * G(n) * want, "%s: rr_new %.9g, r'r of the r read "
                  "back %.17g", what, (double)fnew, want);
            CHECK(fabs(fbeta - (double)fnew / rrv) <= 3 * U * fabs((double)fnew / rrv),
                  "%s: beta %.9g, rr_new / rr %.17g", what, (double)fbeta, (double)fnew / rrv);
        }
        /* pq = 0: alpha 0, x and r unchanged; rr = 0: beta 0 */
        texla_scalar_write(ctx, 0.0f, spq);
        texla_scalar_write(ctx, 0.0f, srr);
        texla_vec_write(ctx, x, vx), texla_vec_write(ctx, r, vr);
        CHECK_OK(ctx, texla_vec_cg_update(ctx, srr, spq, vp, vq, vx, vr, snew, sbeta), what);
        if (!readv(ctx, vx, s, gx, what))
            CHECK(same_bits(gx, x, (size_t)n), "%s: pq = 0 must leave x as it was", what);
        texla_scalar_read(ctx, sbeta, &fbeta);
        CHECK(fbeta == 0.0f, "%s: rr = 0 must give beta 0, not %g", what, (double)fbeta);
        texla_vec_destroy(ctx, vp), texla_vec_destroy(ctx, vq), texla_vec_destroy(ctx, vx);
        texla_vec_destroy(ctx, vr);
        texla_scalar_destroy(ctx, srr), texla_scalar_destroy(ctx, spq);
        texla_scalar_destroy(ctx, snew), texla_scalar_destroy(ctx, sbeta);
    }
    free(p), free(q), free(x), free(r), free(gx), free(gr), free(rx), free(rr_), free(bx), free(br);
}

/* ||b - A x|| / ||b|| in float64 for the Poisson matrix (alpha, beta) on nx x ny */
static double poisson_relres(int nx, int ny, double al, double be, const float *x,
                             const float *b) {
    double num = 0, den = 0;
    for (int k = 0; k < nx * ny; k++) {
        int cx = k % nx, cy = k / nx;
        double ax = (al + 4 * be) * x[k];
        if (cx > 0) ax -= be * x[k - 1];
        if (cx < nx - 1) ax -= be * x[k + 1];
        if (cy > 0) ax -= be * x[k - nx];
        if (cy < ny - 1) ax -= be * x[k + nx];
        num += (b[k] - ax) * (b[k] - ax), den += (double)b[k] * b[k];
    }
    return sqrt(num / den);
}

static void test_fused_solvers(void) {
    double t0 = check_now();
    test_cg_update();
    /* CG on Poisson, fixed iterations: no read-back on the compute backend; the fused
     * iteration's true residual within the unfused one's accuracy */
    int nx = 48, ny = 40, n = nx * ny;
    float *b = check_rnd((size_t)n), *x[2];
    double res[2];
    for (int side = 0; side < 2; side++) {
        texla_ctx *ctx = side ? fc : cc;
        const char *what = side ? "texla_cg fixed 40 (fragment, unfused)" : "texla_cg fixed 40 (compute, fused)";
        texla_banded P = {0};
        CHECK_OK(ctx, texla_banded_poisson(ctx, nx, ny, 0.01f, 1.0f, &P), what);
        texla_vec vb = mkvec(ctx, grid_shape(nx, ny), b, what),
                  vx = mkvec(ctx, grid_shape(nx, ny), NULL, what);
        texla_stats s0, s1;
        texla_ctx_stats(ctx, &s0);
        texla_cg_desc d = {.max_iter = 40};
        texla_cg_result out;
        CHECK_OK(ctx, texla_cg(ctx, texla_op_banded(P), vb, &d, vx, &out), what);
        texla_ctx_stats(ctx, &s1);
        CHECK(s1.readbacks == s0.readbacks, "%s: %llu read-backs in fixed-iteration mode", what,
              (unsigned long long)(s1.readbacks - s0.readbacks));
        if (!side)
            CHECK(s1.passes - s0.passes <= 40 * 3 + 12, "%s: %llu passes for 40 iterations; the "
                  "fused iteration is 3", what, (unsigned long long)(s1.passes - s0.passes));
        x[side] = check_alloc((size_t)n, sizeof *x[side]);
        readv(ctx, vx, grid_shape(nx, ny), x[side], what);
        res[side] = poisson_relres(nx, ny, 0.01, 1.0, x[side], b);
        texla_banded_destroy(ctx, P), texla_vec_destroy(ctx, vb), texla_vec_destroy(ctx, vx);
    }
    double dx = 0, nx2 = 0;
    for (int i = 0; i < n; i++)
        dx += (x[0][i] - x[1][i]) * (double)(x[0][i] - x[1][i]), nx2 += (double)x[1][i] * x[1][i];
    printf("  CG 40 iterations on a 48x40 Poisson system: true residual fused %.4e, unfused "
           "%.4e; ||x_fused - x_unfused|| / ||x|| = %.2e\n", res[0], res[1], sqrt(dx / nx2));
    /* within the unfused version's accuracy: both residuals agree to 1% + what float32 can
     * resolve at all (the residual of x rounded to float, ~ cond * u) */
    CHECK(fabs(res[0] - res[1]) <= 0.01 * res[1] + 1e-5,
          "CG fused vs unfused: true residuals %.6e and %.6e differ", res[0], res[1]);
    free(x[0]), free(x[1]), free(b);
    /* dense CG (the fused gather + p'q) on an SPD 50 x 50: converges on both backends */
    {
        int m = 50;
        float *M = check_rnd((size_t)m * m), *S = check_alloc((size_t)m * m, sizeof *S),
              *bb = check_rnd((size_t)m);
        for (int i = 0; i < m; i++)
            for (int j = 0; j < m; j++) {
                double s = 0;
                for (int k = 0; k < m; k++) s += (double)M[i * m + k] * M[j * m + k];
                S[i * m + j] = (float)(s / m + (i == j ? 1.0 : 0.0));
            }
        for (int side = 0; side < 2; side++) {
            texla_ctx *ctx = side ? fc : cc;
            const char *what = side ? "dense CG (fragment)" : "dense CG (compute, fused)";
            texla_mat A = mk(ctx, m, m, S, what);
            texla_vec vb = mkvec(ctx, plain_shape(m), bb, what), vx = mkvec(ctx, plain_shape(m), NULL, what);
            texla_cg_desc d = {.max_iter = 200, .tol = 1e-5f};
            texla_cg_result out = {0};
            CHECK_OK(ctx, texla_cg(ctx, texla_op_dense(A), vb, &d, vx, &out), what);
            CHECK(out.converged && out.rel_residual <= 1e-5f, "%s: converged %d, residual %.3g "
                  "after %d iterations", what, out.converged, (double)out.rel_residual,
                  out.iterations);
            texla_mat_destroy(ctx, A), texla_vec_destroy(ctx, vb), texla_vec_destroy(ctx, vx);
        }
        free(M), free(S), free(bb);
    }
    /* projected Jacobi, bounded, 60 iterations on both backends: the step is a contraction
     * here (|1 - e_ii A_ii| + sum |e_ii A_ij| < 1), so roundings do not grow: the two x within
     * 60 steps' bounds */
    {
        int m = 60, iters = 60;
        float *A = check_rnd((size_t)m * m), *bb = check_rnd((size_t)m),
              *idx = check_alloc((size_t)m, sizeof *idx), *mu = check_alloc((size_t)m, sizeof *mu);
        for (int i = 0; i < m; i++) {
            A[i * m + i] = 2.0f * m;
            idx[i] = i % 3 ? (float)(i - i % 3) : -1.0f;
            mu[i] = 0.6f;
        }
        float *xs[2];
        for (int side = 0; side < 2; side++) {
            texla_ctx *ctx = side ? fc : cc;
            const char *what = side ? "texla_lcp_jacobi (fragment)" : "texla_lcp_jacobi (compute)";
            texla_mat ma = mk(ctx, m, m, A, what), mb = mk(ctx, m, 1, bb, what),
                      mx = mk(ctx, m, 1, NULL, what), mi = mk(ctx, m, 1, idx, what),
                      mm = mk(ctx, m, 1, mu, what);
            texla_lcp_desc d = {.iterations = iters, .friction_index = mi, .friction_mu = mm};
            texla_stats s0, s1;
            texla_ctx_stats(ctx, &s0);
            CHECK_OK(ctx, texla_lcp_jacobi(ctx, ma, mb, &d, mx, NULL), what);
            texla_ctx_stats(ctx, &s1);
            CHECK(s1.readbacks == s0.readbacks, "%s: %llu read-backs", what,
                  (unsigned long long)(s1.readbacks - s0.readbacks));
            xs[side] = check_alloc((size_t)m, sizeof *xs[side]);
            readm(ctx, mx, m, 1, xs[side], what);
            texla_mat ms[] = {ma, mb, mx, mi, mm};
            for (int k = 0; k < 5; k++) texla_mat_destroy(ctx, ms[k]);
        }
        double worst = 0, bound = 0;
        for (int i = 0; i < m; i++) {
            worst = fmax(worst, fabs((double)xs[0][i] - xs[1][i]));
            bound = fmax(bound, fabs((double)xs[1][i]));
        }
        /* per step each side errs by <= g_(m+3) (|x| + (|A||x| + |b|)|e|) <= g_(m+3) (3 |x| + 1)
         * here; the projection is 1-Lipschitz for normal rows, (1 + mu) for friction rows */
        bound = 2 * iters * 1.6 * 1.01 * G(m + 3) * (3 * bound + 1);
        CHECK(worst <= bound, "texla_lcp_jacobi fused vs classic: max |x diff| %.3g > %.3g", worst,
              bound);
        printf("  LCP 60 x 60 bounded, 60 iterations: max |x_fused - x_classic| %.2e (bound %.2e)\n",
               worst, bound);
        free(A), free(bb), free(idx), free(mu), free(xs[0]), free(xs[1]);
    }
    printf("fused solver steps (%.1f s)\n", check_now() - t0);
}

/* ---- the tuning cache ---- */


static int gemm_product_passes(texla_ctx *ctx, uint64_t *npasses) {
    texla_mat a, b, c;
    float *h = check_rnd(40 * 40);
    int r = texla_mat_make(ctx, 40, 40, h, &a) || texla_mat_make(ctx, 40, 40, h, &b) ||
            texla_mat_make(ctx, 40, 40, NULL, &c);
    /* the tiles' tuning alone (gemm_path's is checked by tune_path) */
    if (!r) r = texla_ctx_set_variant(ctx, "gemm_path", "direct");
    uint64_t p0 = passes(ctx);
    if (!r) r = texla_mat_matmul(ctx, a, b, c);
    *npasses = passes(ctx) - p0;
    texla_mat_destroy(ctx, a), texla_mat_destroy(ctx, b), texla_mat_destroy(ctx, c);
    free(h);
    return r;
}

/* C = A B at 40^3, the path not pinned */
static int gemm_path_passes(texla_ctx *ctx, uint64_t *npasses) {
    texla_mat a, b, c;
    float *h = check_rnd(40 * 40);
    int r = texla_mat_make(ctx, 40, 40, h, &a) || texla_mat_make(ctx, 40, 40, h, &b) ||
            texla_mat_make(ctx, 40, 40, NULL, &c);
    uint64_t p0 = passes(ctx);
    if (!r) r = texla_mat_matmul(ctx, a, b, c);
    *npasses = passes(ctx) - p0;
    texla_mat_destroy(ctx, a), texla_mat_destroy(ctx, b), texla_mat_destroy(ctx, c);
    free(h);
    return r;
}

static void test_tune_cache(void) {
    double t0 = check_now();
    char dir[256];
    if (!check_mkdtemp(dir, sizeof dir, "/tmp/texla-tune-XXXXXX")) return;
    const char *path = check_path(dir, "tune.txt");
    texla_ctx_desc desc = {.backend = TEXLA_BACKEND_COMPUTE, .tune = 1, .tune_cache = path,
                           .warning_cb = on_warning};
    const char *key = "gemm 1 nn 64 64 64";
    /* 1: tuned (timed: many passes), kept */
    texla_ctx *ctx = suite_ctx(&desc);
    if (!ctx) return;
    uint64_t np = 0;
    CHECK(gemm_product_passes(ctx, &np) == 0, "tuned product: %s", texla_error_message(ctx));
    CHECK(np > 1, "the first product of its class times the variants: %llu passes",
          (unsigned long long)np);
    const char *k = NULL, *v = NULL, *name;
    int found = 0, tuned_ok = 0;
    for (int i = 0; i < texla_tune_count(ctx); i++)
        if (!texla_tune_entry(ctx, i, &k, &v) && !strcmp(k, key)) found = 1;
    CHECK(found, "the tuning cache has no \"%s\" entry after the product", key);
    char chosen[64] = "";
    if (found) {
        for (int i = 0; !texla_kernel_variant(ctx, "gemm", i, &name); i++)
            if (!strcmp(name, v)) tuned_ok = 1;
        snprintf(chosen, sizeof chosen, "%s", v);
    }
    CHECK(tuned_ok, "the cached value \"%s\" names no gemm variant", chosen);
    texla_ctx_destroy(ctx);
    /* 2: read back, no timing */
    ctx = suite_ctx(&desc);
    if (!ctx) return;
    CHECK(gemm_product_passes(ctx, &np) == 0, "cached product: %s", texla_error_message(ctx));
    CHECK(np == 1, "a product whose class is in the cache: %llu passes, one expected",
          (unsigned long long)np);
    texla_ctx_destroy(ctx);
    /* 3: a corrupt value: a warning, tuned again, replaced */
    FILE *f = fopen(path, "rb");
    char buf[8192] = "";
    size_t got = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[got] = '\0';
    char *at = strstr(buf, chosen[0] ? chosen : "\x01");
    CHECK(at != NULL, "the cache file holds the chosen variant %s", chosen);
    if (at) {
        char out[8300];
        snprintf(out, sizeof out, "%.*sno-such-variant%s", (int)(at - buf), buf, at + strlen(chosen));
        f = fopen(path, "wb");
        if (f) fputs(out, f), fclose(f);
        warnings = 0;
        ctx = suite_ctx(&desc);
        if (!ctx) return;
        CHECK(gemm_product_passes(ctx, &np) == 0, "retuned product: %s", texla_error_message(ctx));
        CHECK(warnings >= 1 && strstr(last_warning, "no gemm variant"),
              "a corrupt cache value: %d warnings (last: %s)", warnings, last_warning);
        CHECK(np > 1, "a corrupt cache value is tuned again: %llu passes", (unsigned long long)np);
        found = 0;
        for (int i = 0; i < texla_tune_count(ctx); i++)
            if (!texla_tune_entry(ctx, i, &k, &v) && !strcmp(k, key) &&
                strcmp(v, "no-such-variant"))
                found = 1;
        CHECK(found, "the corrupt entry was replaced by a tuned one");
        texla_ctx_destroy(ctx);
    }
    /* 4: gemm_path: timed on first use, both paths' tiles tuned on the way; then read back */
    ctx = suite_ctx(&desc);
    if (ctx) {
        const char *pkey = "gemm_path 1 nn 64 64 64";
        uint64_t np2 = 0;
        CHECK(gemm_path_passes(ctx, &np) == 0, "path tuning: %s", texla_error_message(ctx));
        const char *pv = NULL;
        int tiles_nt = 0;
        for (int i = 0; i < texla_tune_count(ctx); i++)
            if (!texla_tune_entry(ctx, i, &k, &v)) {
                if (!strcmp(k, pkey)) pv = v;
                if (!strcmp(k, "gemm 1 nt 64 64 64")) tiles_nt = 1;
            }
        CHECK(pv && (!strcmp(pv, "direct") || !strcmp(pv, "via_nt")),
              "the tuning cache's \"%s\" is %s; direct or via_nt expected", pkey,
              pv ? pv : "missing");
        CHECK(tiles_nt, "timing via_nt tuned the A B' tiles too (gemm 1 nt 64 64 64)");
        char pchosen[16];
        snprintf(pchosen, sizeof pchosen, "%s", pv ? pv : "");
        texla_ctx_destroy(ctx);
        ctx = suite_ctx(&desc);
        if (ctx) {
            CHECK(gemm_path_passes(ctx, &np2) == 0, "cached path: %s", texla_error_message(ctx));
            unsigned long long want = !strcmp(pchosen, "via_nt") ? 2 : 1;
            CHECK(np2 == want, "a product whose path (%s) is cached: %llu passes, %llu expected",
                  pchosen, (unsigned long long)np2, want);
            texla_ctx_destroy(ctx);
        }
        printf("gemm_path tuned at 40^3: %s (first product %llu passes, then %llu)\n", pchosen,
               (unsigned long long)np, (unsigned long long)np2);
    }
    check_rmdir_all(dir);
    printf("tuning cache round trip: tuned, reused without timing, corrupt entry retuned "
           "(%.1f s)\n", check_now() - t0);
}

/* ---- errors ---- */

static void test_errors(void) {
    texla_ctx *c = cc;
    texla_mat a = mk(c, 4, 5, NULL, "err"), b = mk(c, 5, 3, NULL, "err"),
              d = mk(c, 4, 3, NULL, "err"), sq = mk(c, 5, 5, NULL, "err"),
              v5 = mk(c, 5, 1, NULL, "err"), v5b = mk(c, 5, 1, NULL, "err");
    texla_vec x5, x4, y4, x5b;
    texla_vec_make(c, 5, NULL, &x5), texla_vec_make(c, 4, NULL, &x4);
    texla_vec_make(c, 4, NULL, &y4), texla_vec_make(c, 5, NULL, &x5b);
    texla_scalar s1, s2, s3, s4;
    texla_scalar_make(c, 0, &s1), texla_scalar_make(c, 0, &s2);
    texla_scalar_make(c, 0, &s3), texla_scalar_make(c, 0, &s4);
    CHECK_CODE(c, texla_mat_matmul_acc(c, a, b, 3u, d), TEXLA_ERR_ARGUMENT, "matmul_acc flags 3");
    CHECK_CODE(c, texla_mat_matmul_acc(c, a, b, 4u, d), TEXLA_ERR_ARGUMENT, "matmul_acc flags 4");
    CHECK_CODE(c, texla_mat_matmul_acc(c, a, b, TEXLA_MATMUL_TA, d), TEXLA_ERR_SHAPE,
               "matmul_acc A' B of 4x5 and 5x3");
    CHECK_CODE(c, texla_mat_matmul_acc(c, a, b, 0u, a), TEXLA_ERR_ALIAS, "matmul_acc dst = a");
    CHECK_CODE(c, texla_mat_matmul_acc(c, a, b, 0u, d), TEXLA_OK, "matmul_acc A B");
    CHECK_CODE(c, texla_mat_matvec_add(c, a, x5, 1.0f, x5b, y4), TEXLA_ERR_SHAPE,
               "matvec_add b of 5 for y of 4");
    CHECK_CODE(c, texla_mat_matvec_add(c, a, x5, NAN, x4, y4), TEXLA_ERR_ARGUMENT,
               "matvec_add s NaN");
    CHECK_CODE(c, texla_mat_matvec_add(c, a, x5, 1.0f, x4, x4), TEXLA_ERR_ALIAS,
               "matvec_add y = b");
    CHECK_CODE(c, texla_mat_matvec_add(c, a, x5, 1.0f, x4, y4), TEXLA_OK, "matvec_add");
    CHECK_CODE(c, texla_op_matvec_dot(c, texla_op_dense(a), x5, y4, s1), TEXLA_ERR_SHAPE,
               "matvec_dot non-square");
    CHECK_CODE(c, texla_op_matvec_dot(c, texla_op_dense(sq), x5, x5, s1), TEXLA_ERR_ALIAS,
               "matvec_dot q = p");
    texla_op bad = {(texla_op_kind)9, sq.id};
    CHECK_CODE(c, texla_op_matvec_dot(c, bad, x5, x5b, s1), TEXLA_ERR_ARGUMENT,
               "matvec_dot kind 9");
    CHECK_CODE(c, texla_op_matvec_dot(c, texla_op_dense(sq), x5, x5b, s1), TEXLA_OK, "matvec_dot");
    CHECK_CODE(c, texla_vec_cg_update(c, s1, s2, x5, x5b, x4, y4, s3, s4), TEXLA_ERR_SHAPE,
               "cg_update layouts differ");
    CHECK_CODE(c, texla_vec_cg_update(c, s1, s2, x4, y4, x4, x5, s3, s4), TEXLA_ERR_ALIAS,
               "cg_update x = p");
    CHECK_CODE(c, texla_vec_cg_update(c, s1, s2, x4, y4, x5, x5b, s1, s4), TEXLA_ERR_ALIAS,
               "cg_update rr_new = rr");
    CHECK_CODE(c, texla_lcp_step(c, sq, v5, v5b, v5, (texla_mat){0}, (texla_mat){0}, v5),
               TEXLA_ERR_ALIAS, "lcp_step dst = x");
    CHECK_CODE(c, texla_lcp_step(c, a, v5, v5b, v5, (texla_mat){0}, (texla_mat){0}, d),
               TEXLA_ERR_SHAPE, "lcp_step non-square a");
    texla_mat v5c = mk(c, 5, 1, NULL, "err");
    CHECK_CODE(c, texla_lcp_step(c, sq, v5, v5b, v5, v5b, (texla_mat){0}, v5c), TEXLA_ERR_HANDLE,
               "lcp_step index without mu");
    CHECK_CODE(c, texla_lcp_step(c, sq, v5, v5b, v5, (texla_mat){0}, (texla_mat){0}, v5c),
               TEXLA_OK, "lcp_step");
    texla_mat_destroy(c, v5c);
    const char *name = NULL;
    CHECK_CODE(c, texla_kernel_variant(c, "nope", 0, &name), TEXLA_ERR_ARGUMENT, "variant family");
    CHECK_CODE(c, texla_kernel_variant(c, "gemm", 999, &name), TEXLA_ERR_ARGUMENT, "variant 999");
    CHECK_CODE(c, texla_kernel_variant(c, "gemm", -1, &name), TEXLA_ERR_ARGUMENT, "variant -1");
    CHECK_CODE(c, texla_kernel_variant(c, "gemm", 0, NULL), TEXLA_ERR_ARGUMENT, "variant NULL");
    CHECK_CODE(c, texla_ctx_set_variant(c, "gemm", "9x9x9"), TEXLA_ERR_ARGUMENT,
               "set_variant unknown");
    CHECK_CODE(c, texla_ctx_set_variant(c, NULL, NULL), TEXLA_ERR_ARGUMENT, "set_variant NULL");
    CHECK_CODE(c, texla_ctx_set_variant(c, "gemv", NULL), TEXLA_OK, "set_variant back to tuned");
    texla_mat ms[] = {a, b, d, sq, v5, v5b};
    for (int i = 0; i < 6; i++) texla_mat_destroy(c, ms[i]);
    texla_vec_destroy(c, x5), texla_vec_destroy(c, x4), texla_vec_destroy(c, y4);
    texla_vec_destroy(c, x5b);
    texla_scalar_destroy(c, s1), texla_scalar_destroy(c, s2), texla_scalar_destroy(c, s3);
    texla_scalar_destroy(c, s4);
}

void suite_kernels(void) {
    double t0 = check_now();
    texla_ctx_desc dc = {.backend = TEXLA_BACKEND_COMPUTE, .tune = -1},
                   df = {.backend = TEXLA_BACKEND_FRAGMENT, .tune = -1};
    texla_ctx *probe = suite_ctx(&df);
    if (!probe) return;
    texla_info info;
    texla_ctx_info(probe, &info);
    if (!info.compute) {
        check_skip("kernels suite", "this GL has no compute shaders (OpenGL 4.3)");
        texla_ctx_destroy(probe);
        return;
    }
    fc = probe;
    cc = suite_ctx(&dc);
    if (!cc) return;
    printf("GL: %s | %s; shared memory %d bytes, subgroups %d\n", info.renderer, info.version,
           info.shared_memory, info.subgroup_size);
    test_errors();
    test_gemm();
    test_gemm_via_nt();
    test_gemv();
    test_reduce();
    test_banded_kernels();
    test_fused_solvers();
    test_tune_cache();
    tu_end();
    texla_ctx_destroy(cc), texla_ctx_destroy(fc);
    cc = fc = NULL;
    printf("kernels suite: %.1f s\n", check_now() - t0);
}
