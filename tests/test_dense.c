/* test_dense.c - every dense operation of texla.h against a float64 CPU reference on fresh
 * random data (the seed is printed by main), on shapes that break naive code: 1x1, 1xn, nx1,
 * primes, 255/256/257, row counts that are not multiples of 4, inner dimensions that are not
 * multiples of 4 or of 4k for several k. All data is random, so a transpose, a flip or a
 * swapped operand cannot pass.
 *
 * After every operation the destination is read back twice: raw (texla_mat_read_raw), where
 * every padding lane must be 0 and the live lanes are unpacked by the documented layout
 * A(i, j) = texel (x = j, y = i/4) channel i%4, and through texla_mat_read, which must agree
 * with that unpacking bit for bit (fetch() below).
 *
 * TOLERANCES (u = 2^-24; derived from the rounding model fl(x op y) = (x op y)(1 + d),
 * |d| <= u, never tuned). Each element-wise op gets a bound per element b_i on |got_i - ref_i|;
 * the check is normwise: ||got - ref||_2 <= ||b||_2, i.e. relerr <= ||b|| / ||ref||.
 *   exact (error 0): make, make_const, identity, write/read, copy, max
 *   one rounding, b_i = u |ref_i|: add, sub, mul, scale, scale_self, acc (a multiply by
 *     1, -1 or 0 is exact, so a fused multiply-add cannot add a second rounding)
 *   ref = x + t with t = s*y (or a.*b), rounded as fl(x + fl(t)) or fused as fl(x + t):
 *     b_i = u |ref_i| + u (1 + u) |t_i|: acc_scaled, acc_mul, add_scaled. The |t| term is
 *     what a second rounding costs under cancellation (x close to -t); on this data it adds
 *     0.3u to 1.6u to the normwise bound.
 *   madad, ref = a + (b + d).*e: b_i = u |ref_i| + (1 + u) gamma_2 |(b_i + d_i) e_i|.
 *   Every bound also gets 2^-50 times the sum of the magnitudes of the terms: the float64
 *   reference itself rounds at most three times (gamma_3 in double < 2^-50).
 * Products C = A*B (and A'*B, A*B'), any summation order, fused or not, by blocks, passes
 * and blending: |C - Cref| <= gamma_K |A||B| elementwise (Higham, eq. 3.5), so
 *   ||C - Cref||_F <= gamma_K || |A||B| ||_F <= gamma_K ||A||_F ||B||_F,
 * gamma_K = K u / (1 - K u); both are asserted with a factor 1.01 for the float64 reference
 * and norm computations. Dot products: |d - ref| <= gamma_n sum |a_i b_i| <= gamma_n ||a|| ||b||.
 */
#include "suites.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static texla_ctx *ctx;

#define U CHECK_U
#define REF_EPS CHECK_REF_EPS
#define BIG_K (1 << 20) /* a k larger than any block count: one pass */

static const int matmul_ks[] = {1, 2, 3, 7, 16, BIG_K};
#define N_MATMUL_KS ((int)(sizeof matmul_ks / sizeof matmul_ks[0]))

static float *transpose(const float *a, int rows, int cols) {
    float *t = check_alloc((size_t)rows * (size_t)cols, sizeof *t);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            t[(size_t)j * (size_t)rows + (size_t)i] = a[(size_t)i * (size_t)cols + (size_t)j];
    return t;
}

static texla_mat mk(int rows, int cols, const float *data, const char *what) {
    texla_mat m = {0};
    texla_result r = texla_mat_make(ctx, rows, cols, data, &m);
    CHECK(r == TEXLA_OK && m.id != 0, "%s: texla_mat_make(%d x %d, %s): %s: %s", what, rows, cols,
          data ? "data" : "NULL", texla_result_name(r), texla_error_message(ctx));
    return m;
}

/* Reads m back raw and through texla_mat_read (see the top comment); out gets rows*cols
 * floats, row-major, unpacked from the raw texels. Returns 0 when every check held. */
static int fetch(texla_mat m, int rows, int cols, float *out, const char *what) {
    int h = (rows + 3) / 4, fails = check_failed;
    texla_mat_info mi = {0};
    texla_result r = texla_mat_info_get(ctx, m, &mi);
    CHECK(r == TEXLA_OK && mi.rows == rows && mi.cols == cols && mi.tex_width == cols &&
              mi.tex_height == h,
          "%s: texla_mat_info_get: %s: %d x %d in a %d x %d texture; expected %d x %d in %d x %d",
          what, texla_result_name(r), mi.rows, mi.cols, mi.tex_width, mi.tex_height, rows, cols,
          cols, h);
    if (r) return 1;
    size_t nt = (size_t)cols * (size_t)h * 4, n = (size_t)rows * (size_t)cols;
    float *raw = check_alloc(nt, sizeof *raw), *rd = check_alloc(n, sizeof *rd);
    r = texla_mat_read_raw(ctx, m, raw);
    CHECK_OK(ctx, r, what);
    size_t bad = 0, lanes = 0;
    int bx = 0, by = 0, bc = 0;
    float bv = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < cols; x++)
            for (int c = 0; c < 4; c++) {
                float v = raw[((size_t)y * (size_t)cols + (size_t)x) * 4 + (size_t)c];
                int i = 4 * y + c;
                if (i < rows) {
                    out[(size_t)i * (size_t)cols + (size_t)x] = v;
                    continue;
                }
                lanes++;
                if (v == 0.0f) {
                    if (signbit(v)) check_negzero(what);
                } else if (!bad++) {
                    bx = x, by = y, bc = c, bv = v;
                }
            }
    CHECK(bad == 0,
          "%s: padding invariant: %zu of %zu padding lanes are not 0 (first: texel (x=%d, y=%d) "
          "channel %d = %.9g)", what, bad, lanes, bx, by, bc, (double)bv);
    r = texla_mat_read(ctx, m, rd);
    CHECK_OK(ctx, r, what);
    size_t diff = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&rd[i], &out[i], sizeof(float)) != 0 && !diff++) first = i;
    CHECK(diff == 0,
          "%s: texla_mat_read disagrees with read_raw unpacked by the documented layout in %zu "
          "of %zu elements (first A(%zu, %zu): read %.9g, raw texel (%zu, %zu) channel %zu = "
          "%.9g)", what, diff, n, first / (size_t)cols, first % (size_t)cols, (double)rd[first],
          first % (size_t)cols, first / (size_t)cols / 4, first / (size_t)cols % 4,
          (double)out[first]);
    free(raw);
    free(rd);
    return check_failed != fails;
}

/* got must equal want bit for bit (both rows x cols). */
static void expect_exact(const float *got, const float *want, int rows, int cols,
                         const char *what) {
    size_t n = (size_t)rows * (size_t)cols, diff = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof(float)) != 0 && !diff++) first = i;
    CHECK(diff == 0, "%s (%d x %d): must be exact; %zu of %zu elements differ (first A(%zu, %zu) = "
          "%.9g, expected %.9g)", what, rows, cols, diff, n, first / (size_t)cols,
          first % (size_t)cols, (double)got[first], (double)want[first]);
}

/* m (rows x cols) must still hold data exactly, padding still 0. */
static void expect_holds(texla_mat m, int rows, int cols, const float *data, const char *what) {
    float *got = check_alloc((size_t)rows * (size_t)cols, sizeof *got);
    if (!fetch(m, rows, cols, got, what)) expect_exact(got, data, rows, cols, what);
    free(got);
}

/* m (rows x cols), a source that was only read, still holds data; then it is destroyed. */
static void holds_then_destroy(texla_mat m, int rows, int cols, const float *data,
                               const char *what) {
    expect_holds(m, rows, cols, data, what);
    texla_mat_destroy(ctx, m);
}

/* ---- making, writing, reading, layout ---- */

/* The raw texture of m against the documented layout, lane by lane: texel (x, y) channel c
 * holds A(4y + c, x) for 4y + c < rows, and 0 past the last row. */
static void check_layout(texla_mat m, int rows, int cols, const float *data) {
    int h = (rows + 3) / 4;
    float *raw = check_alloc((size_t)cols * (size_t)h * 4, sizeof *raw);
    texla_result r = texla_mat_read_raw(ctx, m, raw);
    CHECK_OK(ctx, r, "texla_mat_read_raw");
    size_t bad = 0;
    int bx = 0, by = 0, bc = 0;
    float bv = 0, bw = 0;
    for (int y = 0; y < h && !r; y++)
        for (int x = 0; x < cols; x++)
            for (int c = 0; c < 4; c++) {
                int i = 4 * y + c;
                float want = i < rows ? data[(size_t)i * (size_t)cols + (size_t)x] : 0.0f;
                float v = raw[((size_t)y * (size_t)cols + (size_t)x) * 4 + (size_t)c];
                if (memcmp(&v, &want, sizeof v) != 0 && !bad++)
                    bx = x, by = y, bc = c, bv = v, bw = want;
            }
    CHECK(bad == 0,
          "layout of a %d x %d matrix: %zu lanes differ from A(i, j) = texel (j, i/4) channel "
          "i%%4; first texel (x=%d, y=%d) channel %d = %.9g, expected %.9g (%s)", rows, cols,
          bad, bx, by, bc, (double)bv, (double)bw,
          4 * by + bc < rows ? "element A(4y+c, x)" : "a padding lane");
    free(raw);
}

static void test_make(void) {
    static const int shapes[][2] = {{1, 1},  {1, 9},   {9, 1},   {2, 3},  {3, 2},   {5, 7},
                                    {7, 5},  {13, 17}, {17, 13}, {255, 1}, {256, 3}, {257, 5},
                                    {3, 257}};
    char what[160];
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int rows = shapes[s][0], cols = shapes[s][1];
        size_t n = (size_t)rows * (size_t)cols;
        float *data = check_rnd(n), *data2 = check_rnd(n), *got = check_alloc(n, sizeof *got),
              *want = check_alloc(n, sizeof *want);

        snprintf(what, sizeof what, "texla_mat_make %dx%d from data", rows, cols);
        texla_mat a = mk(rows, cols, data, what);
        check_layout(a, rows, cols, data);
        if (!fetch(a, rows, cols, got, what)) expect_exact(got, data, rows, cols, what);

        snprintf(what, sizeof what, "texla_mat_make %dx%d NULL (zeros)", rows, cols);
        texla_mat z = mk(rows, cols, NULL, what);
        memset(want, 0, n * sizeof *want);
        if (!fetch(z, rows, cols, got, what)) expect_exact(got, want, rows, cols, what);

        float v = (float)(100.0 * check_rand());
        snprintf(what, sizeof what, "texla_mat_make_const %dx%d value %.9g", rows, cols, (double)v);
        texla_mat k = {0};
        CHECK_OK(ctx, texla_mat_make_const(ctx, rows, cols, v, &k), what);
        for (size_t i = 0; i < n; i++) want[i] = v;
        if (!fetch(k, rows, cols, got, what)) expect_exact(got, want, rows, cols, what);

        snprintf(what, sizeof what, "texla_mat_write %dx%d", rows, cols);
        CHECK_OK(ctx, texla_mat_write(ctx, data2, a), what);
        check_layout(a, rows, cols, data2);
        if (!fetch(a, rows, cols, got, what)) expect_exact(got, data2, rows, cols, what);

        texla_mat_destroy(ctx, a);
        texla_mat_destroy(ctx, z);
        texla_mat_destroy(ctx, k);
        free(data);
        free(data2);
        free(got);
        free(want);
    }
    static const int ids[] = {1, 2, 3, 5, 9, 13, 256, 257};
    for (size_t s = 0; s < sizeof ids / sizeof ids[0]; s++) {
        int m = ids[s];
        size_t mm = (size_t)m * (size_t)m;
        float *id = check_alloc(mm, sizeof *id), *ig = check_alloc(mm, sizeof *ig);
        for (int i = 0; i < m; i++) id[(size_t)i * (size_t)m + (size_t)i] = 1.0f;
        snprintf(what, sizeof what, "texla_mat_make_identity %d", m);
        texla_mat e = {0};
        CHECK_OK(ctx, texla_mat_make_identity(ctx, m, &e), what);
        if (!fetch(e, m, m, ig, what)) expect_exact(ig, id, m, m, what);
        texla_mat_destroy(ctx, e);
        free(id);
        free(ig);
    }
}

/* A destroyed handle stays dead when its slot is reused, and a reused texture is cleared. */
static void test_handles(void) {
    const int rows = 13, cols = 17;
    size_t n = (size_t)rows * (size_t)cols;
    /* got is large enough for a raw read too (cols x ceil(rows/4) texels) */
    float *data = check_rnd(n),
          *got = check_alloc((size_t)cols * (size_t)((rows + 3) / 4) * 4, sizeof *got),
          *zeros = check_alloc(n, sizeof *zeros);
    texla_mat old = mk(rows, cols, data, "handles: first matrix");
    texla_mat_destroy(ctx, old);
    texla_mat fresh = mk(rows, cols, NULL, "handles: matrix made after destroying the first");
    CHECK(fresh.id != old.id, "handles: a new matrix got the destroyed handle 0x%016llx back",
          (unsigned long long)old.id);
    texla_result r = texla_mat_read(ctx, old, got);
    CHECK(r == TEXLA_ERR_HANDLE, "handles: texla_mat_read on a destroyed handle (slot reused): "
          "%s, expected TEXLA_ERR_HANDLE", texla_result_name(r));
    r = texla_mat_read_raw(ctx, old, got);
    CHECK(r == TEXLA_ERR_HANDLE, "handles: texla_mat_read_raw on a destroyed handle (slot "
          "reused): %s, expected TEXLA_ERR_HANDLE", texla_result_name(r));
    /* the new matrix is zeros even if it reuses the old texture */
    if (!fetch(fresh, rows, cols, got, "handles: make NULL after destroy"))
        expect_exact(got, zeros, rows, cols, "handles: make NULL after destroy (zeros)");
    /* destroying the stale handle again must not destroy its successor */
    texla_mat_destroy(ctx, old);
    r = texla_mat_write(ctx, data, fresh);
    CHECK_OK(ctx, r, "handles: write to the new matrix after destroying the stale handle twice");
    expect_holds(fresh, rows, cols, data, "handles: new matrix after a stale destroy");
    texla_mat_destroy(ctx, fresh);
    free(data);
    free(got);
    free(zeros);
}

/* ---- element-wise operations ---- */

enum {
    E_COPY, E_ADD, E_SUB, E_MUL, E_SCALE, E_SCALE_SELF, E_ACC, E_ACC_SCALED, E_ACC_MUL,
    E_ADD_SCALED, E_MADAD, E_MAX_POS, E_MAX_NEG, E_COUNT
};
static const struct {
    const char *name, *bound; /* bound per element on |got - ref| */
    int exact;
} ew[E_COUNT] = {
    {"texla_mat_copy", "exact", 1},
    {"texla_mat_add", "u|C|", 0},
    {"texla_mat_sub", "u|C|", 0},
    {"texla_mat_mul", "u|C|", 0},
    {"texla_mat_scale", "u|C|", 0},
    {"texla_mat_rescale", "u|C|", 0},
    {"texla_mat_acc", "u|C|", 0},
    {"texla_mat_acc", "u|C| + u(1+u)|sB|", 0},
    {"texla_mat_acc_mul", "u|C| + u(1+u)|A.*B|", 0},
    {"texla_mat_axpy", "u|C| + u(1+u)|sB|", 0},
    {"texla_mat_madad", "u|C| + (1+u)g2|(B+D).*E|", 0},
    {"texla_mat_clamp_min s>0", "exact", 1},
    {"texla_mat_clamp_min s<0", "exact", 1},
};
/* Coefficients: |s| > 1 and negative for the scales (a blend constant clamped to [0, 1], or a
 * lost sign, fails), none a power of two (those would make the products exact). */
#define S_SCALE (-2.7182817f)
#define S_ACC (0.31830987f)
#define S_ADD (-1.4142135f)
#define S_MAXP (0.25f) /* > 0: max(0, s) in an unmasked padding lane would be s */
#define S_MAXN (-0.5f)

/* worst normwise error (units of u) with the bound of the same shape, and the worst ratio */
static double ew_worst[E_COUNT], ew_worst_tol[E_COUNT], ew_worst_ratio[E_COUNT];

static void ew_shape(int rows, int cols) {
    size_t n = (size_t)rows * (size_t)cols;
    float *A = check_rnd(n), *B = check_rnd(n), *D = check_rnd(n), *E = check_rnd(n),
          *C0 = check_rnd(n),
          *got = check_alloc(n, sizeof *got), *want = check_alloc(n, sizeof *want);
    double *ref = check_alloc(n, sizeof *ref), *bnd = check_alloc(n, sizeof *bnd);
    char what[160];
    texla_mat a = mk(rows, cols, A, "element-wise: A"), b = mk(rows, cols, B, "element-wise: B"),
              d = mk(rows, cols, D, "element-wise: D"), e = mk(rows, cols, E, "element-wise: E"),
              c = mk(rows, cols, C0, "element-wise: C");
    for (int op = 0; op < E_COUNT; op++) {
        snprintf(what, sizeof what, "%s %dx%d", ew[op].name, rows, cols);
        /* the destination starts with random contents: the accumulating ops add to them and
         * the others must overwrite them */
        CHECK_OK(ctx, texla_mat_write(ctx, C0, c), what);
        texla_result r = TEXLA_OK;
        switch (op) {
        case E_COPY: r = texla_mat_copy(ctx, a, c); break;
        case E_ADD: r = texla_mat_add(ctx, a, b, c); break;
        case E_SUB: r = texla_mat_sub(ctx, a, b, c); break;
        case E_MUL: r = texla_mat_mul(ctx, a, b, c); break;
        case E_SCALE: r = texla_mat_scale(ctx, a, texla_host(S_SCALE), c); break;
        case E_SCALE_SELF: r = texla_mat_rescale(ctx, S_SCALE, c); break;
        case E_ACC: r = texla_mat_acc(ctx, texla_host(1.0f), b, c); break;
        case E_ACC_SCALED: r = texla_mat_acc(ctx, texla_host(S_ACC), b, c); break;
        case E_ACC_MUL: r = texla_mat_acc_mul(ctx, a, b, c); break;
        case E_ADD_SCALED: r = texla_mat_axpy(ctx, a, texla_host(S_ADD), b, c); break;
        case E_MADAD: r = texla_mat_madad(ctx, a, b, d, e, c); break;
        case E_MAX_POS: r = texla_mat_clamp_min(ctx, a, S_MAXP, c); break;
        case E_MAX_NEG: r = texla_mat_clamp_min(ctx, a, S_MAXN, c); break;
        }
        CHECK_OK(ctx, r, what);
        if (r || fetch(c, rows, cols, got, what)) continue;
        for (size_t i = 0; i < n; i++) {
            double x = A[i], y = B[i], z = D[i], w = E[i], c0 = C0[i], t = 0, mag = 0;
            switch (op) {
            case E_COPY: ref[i] = x; break;
            case E_ADD: ref[i] = x + y, mag = fabs(x) + fabs(y); break;
            case E_SUB: ref[i] = x - y, mag = fabs(x) + fabs(y); break;
            case E_MUL: ref[i] = x * y; break; /* exact in float64 */
            case E_SCALE: ref[i] = (double)S_SCALE * x; break;
            case E_SCALE_SELF: ref[i] = (double)S_SCALE * c0; break;
            case E_ACC: ref[i] = c0 + y, mag = fabs(c0) + fabs(y); break;
            case E_ACC_SCALED:
                t = (double)S_ACC * y, ref[i] = c0 + t, mag = fabs(c0) + fabs(t);
                break;
            case E_ACC_MUL: t = x * y, ref[i] = c0 + t, mag = fabs(c0) + fabs(t); break;
            case E_ADD_SCALED:
                t = (double)S_ADD * y, ref[i] = x + t, mag = fabs(x) + fabs(t);
                break;
            case E_MADAD:
                t = (y + z) * w, ref[i] = x + t, mag = fabs(x) + (fabs(y) + fabs(z)) * fabs(w);
                break;
            case E_MAX_POS: ref[i] = fmax(x, (double)S_MAXP); break;
            case E_MAX_NEG: ref[i] = fmax(x, (double)S_MAXN); break;
            }
            double r1 = U * fabs(ref[i]) + REF_EPS * mag;
            if (op == E_ACC_SCALED || op == E_ACC_MUL || op == E_ADD_SCALED)
                r1 += U * (1.0 + U) * fabs(t);
            if (op == E_MADAD) r1 += (1.0 + U) * check_gamma(2) * fabs(t);
            bnd[i] = ew[op].exact ? 0.0 : r1;
        }
        if (ew[op].exact) {
            for (size_t i = 0; i < n; i++) want[i] = (float)ref[i];
            expect_exact(got, want, rows, cols, what);
            continue;
        }
        double rel = check_relerr(got, ref, n), rn = check_norm_d(ref, n);
        double tol = rn > 0 ? check_norm_d(bnd, n) / rn : check_norm_d(bnd, n);
        CHECK(rel <= tol, "%s: normwise relative error %.3g (%.3f u) > bound %.3g (%.3f u), "
              "bound per element %s", what, rel, rel / U, tol, tol / U, ew[op].bound);
        if (!(rel / U <= ew_worst[op])) ew_worst[op] = rel / U, ew_worst_tol[op] = tol / U;
        if (!(rel / tol <= ew_worst_ratio[op])) ew_worst_ratio[op] = rel / tol;
    }
    /* the sources were only read */
    holds_then_destroy(a, rows, cols, A, "element-wise: source A unchanged");
    holds_then_destroy(b, rows, cols, B, "element-wise: source B unchanged");
    holds_then_destroy(d, rows, cols, D, "element-wise: source D unchanged");
    holds_then_destroy(e, rows, cols, E, "element-wise: source E unchanged");
    texla_mat_destroy(ctx, c);
    free(A), free(B), free(D), free(E), free(C0), free(got), free(want), free(ref), free(bnd);
}

static void test_elementwise(void) {
    static const int shapes[][2] = {{1, 1}, {1, 13}, {13, 1}, {3, 5}, {7, 11},
                                    {255, 2}, {257, 3}, {1001, 37}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        ew_shape(shapes[s][0], shapes[s][1]);
    printf("element-wise: worst normwise relative error over %zu shapes, the bound of that "
           "shape, and the worst error/bound ratio:\n",
           sizeof shapes / sizeof shapes[0]);
    for (int op = 0; op < E_COUNT; op++) {
        if (ew[op].exact)
            printf("  %-18s exact (required exact)\n", ew[op].name);
        else
            printf("  %-18s %.3f u   bound %.3f u   worst ratio %.3f   (per element %s)\n",
                   ew[op].name, ew_worst[op], ew_worst_tol[op], ew_worst_ratio[op],
                   ew[op].bound);
    }
}

/* ---- products ---- */

/* C = A * B and |A| * |B| in float64; A is n x K, B is K x m, row-major. */
static void ref_matmul(int n, int K, int m, const float *A, const float *B, double *C,
                       double *absC) {
    memset(C, 0, (size_t)n * (size_t)m * sizeof *C);
    memset(absC, 0, (size_t)n * (size_t)m * sizeof *absC);
    for (int i = 0; i < n; i++) {
        double *c = C + (size_t)i * (size_t)m, *ac = absC + (size_t)i * (size_t)m;
        for (int k = 0; k < K; k++) {
            double x = A[(size_t)i * (size_t)K + (size_t)k], ax = fabs(x);
            const float *b = B + (size_t)k * (size_t)m;
            for (int j = 0; j < m; j++) {
                c[j] += x * b[j];
                ac[j] += ax * fabs((double)b[j]);
            }
        }
    }
}

static double abs_err(const float *got, const double *ref, size_t n) {
    double e = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)got[i] - ref[i];
        e += d * d;
    }
    return isnan(e) ? INFINITY : sqrt(e);
}

/* Passes a product or dot makes: the fragment path ceil(blocks/k) (blending adds the rest),
 * the compute backend one dispatch for a product and a log-pass reduction (one pass per
 * halving of the 1 x blocks texture, at least one) for a dot. */
static int on_compute(void) {
    texla_info i;
    return texla_ctx_info(ctx, &i) == TEXLA_OK && i.backend == TEXLA_BACKEND_COMPUTE;
}

static uint64_t product_passes(int blocks, int kk) {
    return on_compute() ? 1 : (uint64_t)((blocks + kk - 1) / kk);
}

/* passes of a reduction of an n x 1 matrix (a 1 x blocks texture) into a scalar: one kernel
 * on the compute backend, 2x2 folds down to one texel on the fragment backend */
static uint64_t dot_passes(int blocks, int kk) {
    (void)kk;
    if (on_compute()) return 1;
    uint64_t n = 1;
    for (int h = blocks; h > 1; h = (h + 1) / 2) n++;
    return n > 1 ? n - 1 : 1;
}

static uint64_t passes_now(void) {
    texla_stats st = {0};
    texla_ctx_stats(ctx, &st);
    return st.passes;
}

static void set_k(int k, const char *what) {
    CHECK_OK(ctx, texla_ctx_set_matmul_k(ctx, k), what);
    texla_info info = {0};
    CHECK_OK(ctx, texla_ctx_info(ctx, &info), what);
    int want = k ? k : TEXLA_MATMUL_K_DEFAULT;
    CHECK(info.matmul_k == want, "%s: texla_ctx_info says matmul_k %d after texla_ctx_set_matmul_k(%d)",
          what, info.matmul_k, k);
}

static const char *const kind_name[3] = {"texla_mat_matmul", "texla_mat_matmul_tn", "texla_mat_matmul_nt"};

/* All three products of one shape, n x K times K x m, for every k in ks (0: the default). The
 * operands of A' * B and A * B' are the transposes of the same random A and B, so one
 * reference serves all three. */
static void product_shape(int n, int K, int m, const int *ks, int nks) {
    size_t na = (size_t)n * (size_t)K, nb = (size_t)K * (size_t)m, nc = (size_t)n * (size_t)m;
    float *A = check_rnd(na), *B = check_rnd(nb), *At = transpose(A, n, K),
          *Bt = transpose(B, K, m),
          *garbage = check_rnd(nc), *got = check_alloc(nc, sizeof *got);
    double *ref = check_alloc(nc, sizeof *ref), *absref = check_alloc(nc, sizeof *absref);
    int big = n >= 1000;
    /* the compute backend's A B and A' B by the tiled kernel alone (one pass); the path
     * through transposed copies is the kernels suite's */
    CHECK_OK(ctx, texla_ctx_set_variant(ctx, "gemm_path", "direct"), "gemm_path direct");
    /* and the family's default tiles: on a GPU an unpinned product is timed with every tile
     * variant on first use, which the pass counts below would count (an H100 ran 235-289) */
    const char *tiles = NULL;
    CHECK_OK(ctx, texla_kernel_variant(ctx, "gemm", 0, &tiles), "the default gemm variant");
    if (tiles) CHECK_OK(ctx, texla_ctx_set_variant(ctx, "gemm", tiles), "gemm tiles pinned");
    tiles = NULL; /* an n x 1 operand goes to the matrix-vector kernel: its default too */
    CHECK_OK(ctx, texla_kernel_variant(ctx, "gemv", 0, &tiles), "the default gemv variant");
    if (tiles) CHECK_OK(ctx, texla_ctx_set_variant(ctx, "gemv", tiles), "gemv pinned");
    double t0 = check_now();
    ref_matmul(n, K, m, A, B, ref, absref);
    double t_ref = check_now() - t0;
    double gK = check_gamma(K);
    double bnd_norm = 1.01 * gK * check_norm_f(A, na) * check_norm_f(B, nb);
    double bnd_comp = 1.01 * gK * check_norm_d(absref, nc);
    char what[200];
    snprintf(what, sizeof what, "products %dx%d * %dx%d", n, K, K, m);
    texla_mat a = mk(n, K, A, what), at = mk(K, n, At, what), b = mk(K, m, B, what),
              bt = mk(m, K, Bt, what), c = mk(n, m, NULL, what);
    int blocks = (K + 3) / 4;
    for (int kind = 0; kind < 3; kind++) {
        if (big && kind) break; /* one 1000^3 product (NN) keeps the suite short */
        double worst = 0, t_gpu = 0;
        for (int ki = 0; ki < nks; ki++) {
            int k = ks[ki], keff = k ? k : TEXLA_MATMUL_K_DEFAULT;
            snprintf(what, sizeof what, "%s %dx%d * %dx%d (K=%d) k=%d", kind_name[kind], n, K, K,
                     m, K, keff);
            set_k(k, what);
            /* random destination contents: the first pass must overwrite, not blend */
            CHECK_OK(ctx, texla_mat_write(ctx, garbage, c), what);
            texla_ctx_finish(ctx);
            uint64_t p0 = passes_now();
            t0 = check_now();
            texla_result r = kind == 0   ? texla_mat_matmul(ctx, a, b, c)
                             : kind == 1 ? texla_mat_matmul_tn(ctx, at, b, c)
                                         : texla_mat_matmul_nt(ctx, a, bt, c);
            texla_ctx_finish(ctx);
            t_gpu = check_now() - t0;
            uint64_t passes = passes_now() - p0;
            CHECK_OK(ctx, r, what);
            int kk = keff < blocks ? keff : blocks;
            uint64_t want_passes = product_passes(blocks, kk);
            CHECK(passes == want_passes, "%s: %llu passes, expected ceil(ceil(K/4)/k) = %llu",
                  what, (unsigned long long)passes, (unsigned long long)want_passes);
            if (r || fetch(c, n, m, got, what)) continue;
            double err = abs_err(got, ref, nc);
            CHECK(err <= bnd_comp,
                  "%s: ||C - Cref||_F = %.3g > 1.01 gamma_K || |A||B| ||_F = %.3g", what, err,
                  bnd_comp);
            CHECK(err <= bnd_norm,
                  "%s: ||C - Cref||_F = %.3g > 1.01 gamma_K ||A||_F ||B||_F = %.3g", what, err,
                  bnd_norm);
            if (!(err <= worst)) worst = err;
        }
        printf("  %-15s %4dx%-4d * %4dx%-4d  err_F %.3e   bound gK|A||B| %.3e (%.2f%%)   "
               "gK||A||||B|| %.3e (%.3f%%)\n", kind_name[kind], n, K, K, m, worst, bnd_comp,
               100.0 * worst / bnd_comp, bnd_norm, 100.0 * worst / bnd_norm);
        if (big)
            printf("  %dx%d * %dx%d: GPU product %.2f s (k=%d, %d passes, finish included), "
                   "float64 CPU reference %.2f s\n", n, K, K, m, t_gpu, TEXLA_MATMUL_K_DEFAULT,
                   (blocks + TEXLA_MATMUL_K_DEFAULT - 1) / TEXLA_MATMUL_K_DEFAULT, t_ref);
    }
    holds_then_destroy(a, n, K, A, "products: source A unchanged");
    holds_then_destroy(at, K, n, At, "products: source A' unchanged");
    holds_then_destroy(b, K, m, B, "products: source B unchanged");
    holds_then_destroy(bt, m, K, Bt, "products: source B' unchanged");
    texla_mat_destroy(ctx, c);
    CHECK_OK(ctx, texla_ctx_set_variant(ctx, "gemm_path", NULL), "gemm_path unpinned");
    CHECK_OK(ctx, texla_ctx_set_variant(ctx, "gemm", NULL), "gemm unpinned");
    CHECK_OK(ctx, texla_ctx_set_variant(ctx, "gemv", NULL), "gemv unpinned");
    free(A), free(B), free(At), free(Bt), free(garbage), free(got), free(ref), free(absref);
}

static void test_products(void) {
    /* n, K, m: 1x1; 1xK*Kx1; nx1*1xm (K = 1); 1xK*Kxm; nxK*Kx1; 3x5*5x7; primes; K = 28 and 64
     * (7 and 16 blocks: exact multiples of 4k for k = 7 and 16, partial passes for the other
     * k); 255/256/257 in every position */
    static const int shapes[][3] = {{1, 1, 1},    {1, 7, 1},     {7, 1, 9},     {1, 13, 9},
                                    {9, 13, 1},   {3, 5, 7},     {13, 17, 11},  {31, 37, 29},
                                    {6, 28, 9},   {5, 64, 3},    {255, 256, 257},
                                    {257, 255, 256}, {256, 257, 255}};
    printf("products: ||C - Cref||_F, worst over k = 1, 2, 3, 7, 16, %d (one pass), against the "
           "bounds (gK = gamma_K, both times 1.01):\n", BIG_K);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        product_shape(shapes[s][0], shapes[s][1], shapes[s][2], matmul_ks, N_MATMUL_KS);
    static const int kdef[] = {0};
    product_shape(1000, 1000, 1000, kdef, 1);
    set_k(0, "restore the default k");
}

/* dot and norm2 of n x 1 vectors for every k in ks. */
static void dot_size(int n, const int *ks, int nks) {
    float *a = check_rnd((size_t)n), *b = check_rnd((size_t)n);
    double ref = 0, absref = 0, aa = 0;
    for (int i = 0; i < n; i++) {
        ref += (double)a[i] * b[i];
        absref += fabs((double)a[i] * b[i]);
        aa += (double)a[i] * a[i];
    }
    double gn = check_gamma(n);
    double bnd_comp = 1.01 * gn * absref;
    double bnd_norm = 1.01 * gn * check_norm_f(a, (size_t)n) * check_norm_f(b, (size_t)n);
    double bnd_n2 = 1.01 * gn * aa; /* |a|'|a| = ||a||^2: both bounds coincide */
    char what[160];
    texla_mat va = mk(n, 1, a, "dot: a"), vb = mk(n, 1, b, "dot: b");
    int blocks = (n + 3) / 4;
    double worst = 0, worst2 = 0;
    for (int ki = 0; ki < nks; ki++) {
        int k = ks[ki], keff = k ? k : TEXLA_MATMUL_K_DEFAULT, kk = keff < blocks ? keff : blocks;
        uint64_t want_passes = dot_passes(blocks, kk);
        snprintf(what, sizeof what, "texla_dot n=%d k=%d", n, keff);
        set_k(k, what);
        float d = NAN;
        uint64_t p0 = passes_now();
        texla_result r = check_mat_dot(ctx, va, vb, &d);
        uint64_t passes = passes_now() - p0;
        CHECK_OK(ctx, r, what);
        CHECK(passes == want_passes, "%s: %llu passes, expected %llu", what,
              (unsigned long long)passes, (unsigned long long)want_passes);
        double err = fabs((double)d - ref);
        if (isnan(err)) err = INFINITY;
        CHECK(err <= bnd_comp, "%s: |d - ref| = %.3g (d = %.9g, ref = %.17g) > 1.01 gamma_n "
              "sum|a.*b| = %.3g", what, err, (double)d, ref, bnd_comp);
        CHECK(err <= bnd_norm, "%s: |d - ref| = %.3g (d = %.9g, ref = %.17g) > 1.01 gamma_n "
              "||a|| ||b|| = %.3g", what, err, (double)d, ref, bnd_norm);
        if (!(err <= worst)) worst = err;

        snprintf(what, sizeof what, "texla_norm2 n=%d k=%d", n, keff);
        float q = NAN;
        p0 = passes_now();
        r = check_mat_sqnorm(ctx, va, &q);
        passes = passes_now() - p0;
        CHECK_OK(ctx, r, what);
        CHECK(passes == want_passes, "%s: %llu passes, expected %llu", what,
              (unsigned long long)passes, (unsigned long long)want_passes);
        err = fabs((double)q - aa);
        if (isnan(err)) err = INFINITY;
        CHECK(err <= bnd_n2, "%s: |q - ||a||^2| = %.3g (q = %.9g, ref = %.17g) > 1.01 gamma_n "
              "||a||^2 = %.3g", what, err, (double)q, aa, bnd_n2);
        if (!(err <= worst2)) worst2 = err;
    }
    printf("  n=%-6d dot err %.3e  bound gn*sum|ab| %.3e (%.2f%%), gn*||a||||b|| %.3e;   "
           "norm2 err %.3e  bound %.3e (%.2f%%)\n", n, worst, bnd_comp, 100.0 * worst / bnd_comp,
           bnd_norm, worst2, bnd_n2, 100.0 * worst2 / bnd_n2);
    holds_then_destroy(va, n, 1, a, "dot: a unchanged");
    holds_then_destroy(vb, n, 1, b, "dot: b unchanged");
    free(a);
    free(b);
}

static void test_dots(void) {
    static const int ns[] = {1, 2, 3, 4, 5, 255, 256, 257, 4099};
    static const int ks[] = {1, 3, 16, BIG_K};
    printf("dot and norm2 of n x 1 vectors, worst |error| over k = 1, 3, 16, %d (gn = gamma_n, "
           "bounds times 1.01):\n", BIG_K);
    for (size_t s = 0; s < sizeof ns / sizeof ns[0]; s++) dot_size(ns[s], ks, 4);
    /* a long vector: the tallest prime-length one that fits the texture limit */
    texla_info info = {0};
    CHECK_OK(ctx, texla_ctx_info(ctx, &info), "texla_ctx_info");
    int n = 65521; /* prime; ceil(n/4) = 16381 texels */
    if ((n + 3) / 4 > info.max_texture_size) n = 4 * info.max_texture_size - 3;
    static const int kbig[] = {16, BIG_K};
    dot_size(n, kbig, 2);
    set_k(0, "restore the default k");
}

void suite_dense(void) {
    double t0 = check_now();
    ctx = suite_ctx(NULL);
    if (!ctx) return;
    texla_info info = {0};
    CHECK_OK(ctx, texla_ctx_info(ctx, &info), "texla_ctx_info");
    printf("GL: %s | %s | %s\n", info.renderer, info.version, info.platform);
    check_negzero_reset();
    test_make();
    test_handles();
    test_elementwise();
    test_products();
    test_dots();
    check_negzero_report();
    texla_ctx_destroy(ctx);
    ctx = NULL;
    printf("dense suite: %.1f s\n", check_now() - t0);
}
