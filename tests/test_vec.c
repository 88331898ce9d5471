/* test_vec.c - 2D vectors, GPU scalars, reductions and conversions of texla.h against float64
 * CPU references on fresh random data (the seed is printed by main), through the public API.
 *
 * SHAPES. Plain vectors of lengths 1, 2, 3, 5, 7, 97, 255, 256, 257, 1000, primes 4099 and 10007,
 * and 65537; PDE grid vectors of nx x ny = 1x1, 1x7, 7x1, 3x5, 17x13, 64x64, 255x3 (odd nx gives
 * a padding column cx = nx, odd ny a padding row cy = ny). All data is random, so a swapped
 * axis or operand cannot pass.
 *
 * LAYOUT. After every operation the destination is read back twice: raw (texla_vec_read_raw)
 * and through texla_vec_read. The raw texels are unpacked by the documented layout: texel
 * (tx, ty) channel c is grid cell (cx, cy) = (2 tx + c % 2, 2 ty + c / 2), which holds element
 * k = cy * nx + cx of a grid vector when cx < nx and cy < ny, and element k = cy * gx + cx of a
 * plain vector when k < n; every other lane is padding and must be 0 (-0.0 is counted and
 * reported, not failed). texla_vec_read must agree with that unpacking bit for bit.
 *
 * TOLERANCES (u = 2^-24, from the rounding model fl(x op y) = (x op y)(1 + d), |d| <= u; none
 * tuned). Element-wise, a bound per element on |got - ref|, checked element by element:
 *   exact: make, write/read, fill with a host value, copy, max, clamp
 *   one rounding, u|ref|: add, sub, mul, scale (host coefficient), fill (GPU coefficient v*s)
 *   scale with a GPU coefficient: the coefficient v*s rounds once, the product once: g2|ref|
 *   axpy / acc, ref = a + t with t = c*b: host c: u|ref| + u(1+u)|t| (second rounding of t
 *     under cancellation, as in test_dense.c); GPU c = v*s: u|ref| + (1+u) g2 |t|.
 *   Every bound gets 2^-50 times the sum of the magnitudes of the terms (float64 reference).
 * Reductions: sum, dot, norm2 in any order (tree, blocks, fused or not): |s - ref| <=
 *   g_n sum|terms| (Higham 3.1; adding padding zeros is exact), asserted with a factor 1.01 for
 *   the float64 reference; maxval, minval, maxabs exact (all-negative data so that a padding 0
 *   would win the max, all-positive data so that it would win the min), and NaN when any
 *   element is NaN (first, middle, last, all; among negative values), maxabs never negative.
 * Scalars: make/write/read and neg exact; mul, sub one rounding u|ref|; div and div_or_zero
 *   within the GLSL precision of x / y, 2.5 ULP (GLSL 4.60 section 4.7.1; GL 3.3 leaves it
 *   unspecified): 2.5 ULP <= 5 u|ref| (NVIDIA computes x * rcp(y), seen at 1.5 u|ref|);
 *   div_or_zero(a, 0) exactly 0.
 * Conversions texla_vec_from_mat / texla_mat_from_vec exact; texla_mat_matvec (n x m)
 *   componentwise |y - ref| <= 1.01 g_m (|A||x|) (Higham 3.5).
 * g_k = k u / (1 - k u).
 *
 * ERRORS (exact codes): layouts of different lengths, and the same length in another layout
 * (plain 57 vs grid 3x19) -> TEXLA_ERR_SHAPE; destination = a source -> TEXLA_ERR_ALIAS; stale
 * vectors, scalars and GPU coefficients -> TEXLA_ERR_HANDLE; non-finite host coefficients, bad
 * sizes and NULL pointers -> TEXLA_ERR_ARGUMENT; a failed call leaves its destination as it was.
 * Async read-back: poll until ready (polls counted), ready at once after texla_ctx_finish, the
 * value as of the start, a second start replaces the first, a poll without a start fails.
 */
#include "suites.h"
#include "testutil.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static texla_ctx *ctx;

#define U CHECK_U
#define REF_EPS CHECK_REF_EPS

/* uniform in [lo, hi) */
static float *rnd_range(size_t n, double lo, double hi) {
    float *x = check_alloc(n, sizeof *x);
    for (size_t i = 0; i < n; i++) x[i] = (float)(lo + (hi - lo) * 0.5 * (check_rand() + 1.0));
    return x;
}

static texla_scalar mks(float value, const char *what) {
    texla_scalar s = {0};
    texla_result r = texla_scalar_make(ctx, value, &s);
    CHECK(r == TEXLA_OK && s.id != 0, "%s: texla_scalar_make(%.9g): %s: %s", what, (double)value,
          texla_result_name(r), texla_error_message(ctx));
    return s;
}

static float sread(texla_scalar s, const char *what) {
    float v = NAN;
    CHECK_OK(ctx, texla_scalar_read(ctx, s, &v), what);
    return v;
}

/* ---- making, writing, reading, layout ---- */

static const int plain_ns[] = {1, 2, 3, 5, 7, 97, 255, 256, 257, 1000, 4099, 10007, 65537};
#define N_PLAIN ((int)(sizeof plain_ns / sizeof plain_ns[0]))
static const int grids[][2] = {{1, 1}, {1, 7}, {7, 1}, {3, 5}, {17, 13}, {64, 64}, {255, 3}};
#define N_GRIDS ((int)(sizeof grids / sizeof grids[0]))

static vshape shape_at(int i) {
    return i < N_PLAIN ? plain_shape(plain_ns[i]) : grid_shape(grids[i - N_PLAIN][0],
                                                                grids[i - N_PLAIN][1]);
}

static void make_shape(vshape s) {
    char what[200];
    size_t n = (size_t)s.n;
    float *data = check_rnd(n), *data2 = check_rnd(n), *got = check_alloc(n, sizeof *got),
          *zeros = check_alloc(n, sizeof *zeros);
    snprintf(what, sizeof what, "texla_vec_make %s from data", sname(s).s);
    texla_vec v = mkv(s, data, what);
    texla_vec_info inf;
    if (!vinfo(v, s, &inf, what) && !s.grid) {
        /* near-square: at most about two rows or columns of slack and an aspect ratio <= 2
         * (plus one texel), which any "most square" even grid meets */
        long long area = (long long)inf.gx * inf.gy;
        int lo = inf.gx < inf.gy ? inf.gx : inf.gy, hi = inf.gx < inf.gy ? inf.gy : inf.gx;
        CHECK(area <= (long long)s.n + 2LL * (inf.gx + inf.gy) + 4 && hi <= 2 * lo + 2,
              "%s: grid %d x %d for n = %d is not near-square (area %lld, slack %lld)", what,
              inf.gx, inf.gy, s.n, area, area - s.n);
    }
    if (!vfetch(v, s, got, what)) expect_exact(got, data, n, what);

    snprintf(what, sizeof what, "texla_vec_write %s", sname(s).s);
    CHECK_OK(ctx, texla_vec_write(ctx, data2, v), what);
    if (!vfetch(v, s, got, what)) expect_exact(got, data2, n, what);

    snprintf(what, sizeof what, "texla_vec_make %s NULL (zeros)", sname(s).s);
    texla_vec z = mkv(s, NULL, what);
    if (!vfetch(z, s, got, what)) expect_exact(got, zeros, n, what);

    snprintf(what, sizeof what, "texla_vec_make_like %s (zeros, same layout)", sname(s).s);
    texla_vec l = {0};
    texla_result r = texla_vec_make_like(ctx, v, &l);
    CHECK_OK(ctx, r, what);
    texla_vec_info li;
    if (!r && !vinfo(l, s, &li, what)) {
        CHECK(li.gx == inf.gx && li.gy == inf.gy && li.nx == inf.nx && li.ny == inf.ny,
              "%s: layout %dx%d (grid %dx%d) differs from the original's %dx%d (grid %dx%d)",
              what, li.nx, li.ny, li.gx, li.gy, inf.nx, inf.ny, inf.gx, inf.gy);
        if (!vfetch(l, s, got, what)) expect_exact(got, zeros, n, what);
    }
    texla_vec_destroy(ctx, v);
    texla_vec_destroy(ctx, z);
    texla_vec_destroy(ctx, l);
    free(data), free(data2), free(got), free(zeros);
}

static void test_make(void) {
    for (int i = 0; i < N_PLAIN + N_GRIDS; i++) make_shape(shape_at(i));
    printf("make/write/read/make_like: %d plain lengths and %d grids, layout and padding "
           "checked lane by lane\n", N_PLAIN, N_GRIDS);
    /* the grids chosen for a few plain lengths, for the record */
    printf("  plain grids:");
    for (int i = 0; i < N_PLAIN; i++) {
        texla_vec v = mkv(plain_shape(plain_ns[i]), NULL, "grid listing");
        texla_vec_info inf = {0};
        texla_vec_info_get(ctx, v, &inf);
        printf(" %d:%dx%d", plain_ns[i], inf.gx, inf.gy);
        texla_vec_destroy(ctx, v);
    }
    printf("\n");
}

/* A destroyed handle stays dead when its slot is reused. */
static void test_handles(void) {
    vshape s = grid_shape(5, 3);
    float *data = check_rnd(15), got[15];
    texla_vec old = mkv(s, data, "handles: first vector");
    texla_vec_destroy(ctx, old);
    texla_vec fresh = mkv(s, NULL, "handles: vector made after destroying the first");
    CHECK(fresh.id != old.id, "handles: a new vector got the destroyed handle 0x%016llx back",
          (unsigned long long)old.id);
    CHECK_CODE(ctx, texla_vec_read(ctx, old, got), TEXLA_ERR_HANDLE,
               "handles: texla_vec_read on a destroyed vector");
    texla_vec zero = {0};
    CHECK_CODE(ctx, texla_vec_read(ctx, zero, got), TEXLA_ERR_HANDLE,
               "handles: texla_vec_read on 0");
    texla_vec_destroy(ctx, old); /* a no-op: must not destroy its successor */
    texla_vec_destroy(ctx, zero);
    CHECK_OK(ctx, texla_vec_write(ctx, data, fresh), "handles: write after a stale destroy");
    expect_holds(fresh, s, data, "handles: new vector after a stale destroy");
    texla_scalar so = mks(1.5f, "handles: scalar");
    texla_scalar_destroy(ctx, so);
    texla_scalar sn = mks(2.5f, "handles: second scalar");
    float f = 0;
    CHECK_CODE(ctx, texla_scalar_read(ctx, so, &f), TEXLA_ERR_HANDLE,
               "handles: texla_scalar_read on a destroyed scalar");
    texla_scalar_destroy(ctx, so);
    CHECK(sread(sn, "handles: second scalar") == 2.5f,
          "handles: destroying a stale scalar changed its successor");
    texla_scalar_destroy(ctx, sn);
    texla_vec_destroy(ctx, fresh);
    free(data);
}

/* ---- element-wise operations ---- */

enum {
    V_FILL_H, V_FILL_G, V_COPY, V_ADD, V_SUB, V_MUL, V_SCALE_H, V_SCALE_G, V_AXPY_H, V_AXPY_G,
    V_ACC_H, V_ACC_G, V_MAX_P, V_MAX_N, V_CLAMP_MIX, V_CLAMP_POS, V_CLAMP_NEG, V_COUNT
};
static const struct {
    const char *name, *bound;
    int exact;
} vop[V_COUNT] = {
    {"fill host", "exact", 1},
    {"fill gpu", "u|ref|", 0},
    {"copy", "exact", 1},
    {"add", "u|ref|", 0},
    {"sub", "u|ref|", 0},
    {"mul", "u|ref|", 0},
    {"scale host", "u|ref|", 0},
    {"scale gpu", "g2|ref|", 0},
    {"axpy host", "u|ref| + u(1+u)|sb|", 0},
    {"axpy gpu", "u|ref| + (1+u)g2|sb|", 0},
    {"acc host", "u|ref| + u(1+u)|sb|", 0},
    {"acc gpu", "u|ref| + (1+u)g2|sb|", 0},
    {"max s>0", "exact", 1},
    {"max s<0", "exact", 1},
    {"clamp -.3,.5", "exact", 1},
    {"clamp .2,.6", "exact", 1},
    {"clamp -.7,-.1", "exact", 1},
};
/* Coefficients: none a power of two, several negative or > 1, and the fill/max/clamp values
 * chosen so that an unmasked padding lane would not be 0. */
#define C_FILL (0.75f)
#define C_FILL_G (-2.236068f)
#define C_SCALE (-2.7182817f)
#define C_SCALE_G (1.7320508f)
#define C_AXPY (-1.4142135f)
#define C_AXPY_G (-0.31830987f)
#define C_ACC (0.31830987f)
#define C_ACC_G (2.5066283f)
#define C_MAXP (0.25f)
#define C_MAXN (-0.5f)
#define S1 (0.70710677f)  /* GPU scalars for the coefficients */
#define S2 (-0.57735026f)

static double vop_worst[V_COUNT];
static int vop_runs[V_COUNT];

static void ew_shape(vshape s, texla_scalar s1, texla_scalar s2) {
    size_t n = (size_t)s.n;
    float *A = check_rnd(n), *B = check_rnd(n), *C0 = check_rnd(n),
          *got = check_alloc(n, sizeof *got), *want = check_alloc(n, sizeof *want);
    double *ref = check_alloc(n, sizeof *ref), *bnd = check_alloc(n, sizeof *bnd);
    char what[200];
    texla_vec a = mkv(s, A, "element-wise: a"), b = mkv(s, B, "element-wise: b"),
              c = mkv(s, C0, "element-wise: dst");
    for (int op = 0; op < V_COUNT; op++) {
        snprintf(what, sizeof what, "texla_vec %s %s", vop[op].name, sname(s).s);
        /* the destination starts with random contents: acc adds to them, the rest overwrite */
        CHECK_OK(ctx, texla_vec_write(ctx, C0, c), what);
        texla_result r = TEXLA_OK;
        switch (op) {
        case V_FILL_H: r = texla_vec_fill(ctx, texla_host(C_FILL), c); break;
        case V_FILL_G: r = texla_vec_fill(ctx, texla_gpu(C_FILL_G, s1), c); break;
        case V_COPY: r = texla_vec_copy(ctx, a, c); break;
        case V_ADD: r = texla_vec_add(ctx, a, b, c); break;
        case V_SUB: r = texla_vec_sub(ctx, a, b, c); break;
        case V_MUL: r = texla_vec_mul(ctx, a, b, c); break;
        case V_SCALE_H: r = texla_vec_scale(ctx, a, texla_host(C_SCALE), c); break;
        case V_SCALE_G: r = texla_vec_scale(ctx, a, texla_gpu(C_SCALE_G, s2), c); break;
        case V_AXPY_H: r = texla_vec_axpy(ctx, a, texla_host(C_AXPY), b, c); break;
        case V_AXPY_G: r = texla_vec_axpy(ctx, a, texla_gpu(C_AXPY_G, s1), b, c); break;
        case V_ACC_H: r = texla_vec_acc(ctx, texla_host(C_ACC), b, c); break;
        case V_ACC_G: r = texla_vec_acc(ctx, texla_gpu(C_ACC_G, s2), b, c); break;
        case V_MAX_P: r = texla_vec_clamp_min(ctx, a, C_MAXP, c); break;
        case V_MAX_N: r = texla_vec_clamp_min(ctx, a, C_MAXN, c); break;
        case V_CLAMP_MIX: r = texla_vec_clamp(ctx, a, -0.3f, 0.5f, c); break;
        case V_CLAMP_POS: r = texla_vec_clamp(ctx, a, 0.2f, 0.6f, c); break;
        case V_CLAMP_NEG: r = texla_vec_clamp(ctx, a, -0.7f, -0.1f, c); break;
        }
        CHECK_OK(ctx, r, what);
        if (r || vfetch(c, s, got, what)) continue;
        for (size_t i = 0; i < n; i++) {
            double x = A[i], y = B[i], c0 = C0[i], t = 0, mag = 0, cf;
            switch (op) {
            case V_FILL_H: ref[i] = C_FILL; break;
            case V_FILL_G: ref[i] = (double)C_FILL_G * S1; break;
            case V_COPY: ref[i] = x; break;
            case V_ADD: ref[i] = x + y, mag = fabs(x) + fabs(y); break;
            case V_SUB: ref[i] = x - y, mag = fabs(x) + fabs(y); break;
            case V_MUL: ref[i] = x * y; break;
            case V_SCALE_H: ref[i] = (double)C_SCALE * x; break;
            case V_SCALE_G: ref[i] = (double)C_SCALE_G * S2 * x, mag = fabs(ref[i]); break;
            case V_AXPY_H: t = (double)C_AXPY * y, ref[i] = x + t, mag = fabs(x) + fabs(t); break;
            case V_AXPY_G:
                cf = (double)C_AXPY_G * S1, t = cf * y, ref[i] = x + t, mag = fabs(x) + fabs(t);
                break;
            case V_ACC_H: t = (double)C_ACC * y, ref[i] = c0 + t, mag = fabs(c0) + fabs(t); break;
            case V_ACC_G:
                cf = (double)C_ACC_G * S2, t = cf * y, ref[i] = c0 + t, mag = fabs(c0) + fabs(t);
                break;
            case V_MAX_P: ref[i] = fmax(x, (double)C_MAXP); break;
            case V_MAX_N: ref[i] = fmax(x, (double)C_MAXN); break;
            case V_CLAMP_MIX: ref[i] = fmin(fmax(x, (double)-0.3f), (double)0.5f); break;
            case V_CLAMP_POS: ref[i] = fmin(fmax(x, (double)0.2f), (double)0.6f); break;
            case V_CLAMP_NEG: ref[i] = fmin(fmax(x, (double)-0.7f), (double)-0.1f); break;
            }
            double b1 = U * fabs(ref[i]) + REF_EPS * mag;
            if (op == V_SCALE_G) b1 = check_gamma(2) * fabs(ref[i]) + REF_EPS * mag;
            if (op == V_AXPY_H || op == V_ACC_H) b1 += U * (1.0 + U) * fabs(t);
            if (op == V_AXPY_G || op == V_ACC_G) b1 += (1.0 + U) * check_gamma(2) * fabs(t);
            bnd[i] = vop[op].exact ? 0.0 : b1;
        }
        if (vop[op].exact) {
            for (size_t i = 0; i < n; i++) want[i] = (float)ref[i];
            expect_exact(got, want, n, what);
            continue;
        }
        double w = expect_bound(got, ref, bnd, n, what, vop[op].bound);
        if (!(w <= vop_worst[op])) vop_worst[op] = w;
        vop_runs[op]++;
    }
    expect_holds(a, s, A, "element-wise: source a unchanged");
    expect_holds(b, s, B, "element-wise: source b unchanged");
    texla_vec_destroy(ctx, a);
    texla_vec_destroy(ctx, b);
    texla_vec_destroy(ctx, c);
    free(A), free(B), free(C0), free(got), free(want), free(ref), free(bnd);
}

static void test_elementwise(void) {
    texla_scalar s1 = mks(S1, "element-wise: scalar s1"), s2 = mks(S2, "element-wise: scalar s2");
    for (int i = 0; i < N_PLAIN + N_GRIDS; i++) ew_shape(shape_at(i), s1, s2);
    /* the coefficient scalars were only read */
    CHECK(sread(s1, "s1") == S1 && sread(s2, "s2") == S2,
          "element-wise: a coefficient scalar changed");
    texla_scalar_destroy(ctx, s1);
    texla_scalar_destroy(ctx, s2);
    printf("element-wise over %d shapes: worst |err|/bound per element (exact ops must be "
           "bit-exact):\n", N_PLAIN + N_GRIDS);
    for (int op = 0; op < V_COUNT; op++) {
        if (vop[op].exact)
            printf("  %-14s exact (required exact)\n", vop[op].name);
        else
            printf("  %-14s worst ratio %.3f   (bound per element %s)\n", vop[op].name,
                   vop_worst[op], vop[op].bound);
    }
}

/* ---- reductions ---- */

enum { R_SUM, R_SUM_POS, R_DOT, R_NORM2, R_MAX, R_MAX_NEG, R_MIN, R_MIN_POS, R_MAXABS,
       R_MAXABS_NEG, R_COUNT };
static const char *const red_name[R_COUNT] = {
    "sum (mixed)", "sum (positive)", "dot", "norm2", "maxval (mixed)", "maxval (negative)",
    "minval (mixed)", "minval (positive)", "maxabs (mixed)", "maxabs (negative)"};
static double red_worst[R_COUNT]; /* worst |err| / bound for the summing ones */

static void red_shape(vshape s, texla_scalar out) {
    size_t n = (size_t)s.n;
    float *A = check_rnd(n), *B = check_rnd(n), *P = rnd_range(n, 1.0 / 1024, 1.0),
          *N = rnd_range(n, -1.0, -1.0 / 1024);
    char what[200];
    texla_vec a = mkv(s, A, "reductions: a"), b = mkv(s, B, "reductions: b"),
              p = mkv(s, P, "reductions: positive"), m = mkv(s, N, "reductions: negative");
    double gn = check_gamma((double)n);
    for (int op = 0; op < R_COUNT; op++) {
        snprintf(what, sizeof what, "texla_vec %s %s", red_name[op], sname(s).s);
        CHECK_OK(ctx, texla_scalar_write(ctx, NAN, out), what); /* a stale value cannot pass */
        texla_result r = TEXLA_OK;
        double ref = 0, mag = 0;
        int exact = 0;
        switch (op) {
        case R_SUM: r = texla_vec_sum(ctx, a, out); break;
        case R_SUM_POS: r = texla_vec_sum(ctx, p, out); break;
        case R_DOT: r = texla_vec_dot(ctx, a, b, out); break;
        case R_NORM2: r = texla_vec_sqnorm(ctx, a, out); break;
        case R_MAX: r = texla_vec_maxval(ctx, a, out); break;
        case R_MAX_NEG: r = texla_vec_maxval(ctx, m, out); break;
        case R_MIN: r = texla_vec_minval(ctx, a, out); break;
        case R_MIN_POS: r = texla_vec_minval(ctx, p, out); break;
        case R_MAXABS: r = texla_vec_maxabs(ctx, a, out); break;
        case R_MAXABS_NEG: r = texla_vec_maxabs(ctx, m, out); break;
        }
        CHECK_OK(ctx, r, what);
        if (r) continue;
        float got = sread(out, what);
        for (size_t i = 0; i < n; i++) {
            double x = A[i];
            switch (op) {
            case R_SUM: ref += x, mag += fabs(x); break;
            case R_SUM_POS: ref += P[i], mag += P[i]; break;
            case R_DOT: ref += x * B[i], mag += fabs(x * B[i]); break;
            case R_NORM2: ref += x * x, mag += x * x; break;
            case R_MAX: ref = i ? fmax(ref, x) : x, exact = 1; break;
            case R_MAX_NEG: ref = i ? fmax(ref, N[i]) : N[i], exact = 1; break;
            case R_MIN: ref = i ? fmin(ref, x) : x, exact = 1; break;
            case R_MIN_POS: ref = i ? fmin(ref, P[i]) : P[i], exact = 1; break;
            case R_MAXABS: ref = fmax(ref, fabs(x)), exact = 1; break;
            case R_MAXABS_NEG: ref = fmax(ref, fabs(N[i])), exact = 1; break;
            }
        }
        if (exact) {
            CHECK((double)got == ref, "%s: got %.9g, expected exactly %.9g%s", what, (double)got,
                  ref, got == 0.0f ? " (a padding zero took part?)" : "");
            continue;
        }
        double bound = 1.01 * gn * mag, err = fabs((double)got - ref);
        if (isnan(err)) err = INFINITY;
        CHECK(err <= bound, "%s: |s - ref| = %.3g (s = %.9g, ref = %.17g) > 1.01 g_n sum|terms| "
              "= %.3g", what, err, (double)got, ref, bound);
        double ratio = bound > 0 ? err / bound : (err > 0 ? INFINITY : 0);
        if (!(ratio <= red_worst[op])) red_worst[op] = ratio;
    }
    expect_holds(a, s, A, "reductions: source a unchanged");
    expect_holds(m, s, N, "reductions: source (negative) unchanged");
    texla_vec_destroy(ctx, a);
    texla_vec_destroy(ctx, b);
    texla_vec_destroy(ctx, p);
    texla_vec_destroy(ctx, m);
    free(A), free(B), free(P), free(N);
}

/* NaN in maxval, minval and maxabs (numpy's rule): NaN when any element is, wherever it sits
 * (first, middle, last: in a partial texel where the shape has padding), among negative values
 * (a padding lane would win their max), or all NaN; maxabs never negative */
static void red_nan_shape(vshape s, texla_scalar out) {
    size_t n = (size_t)s.n;
    float *A = rnd_range(n, -1.0, -1.0 / 1024);
    static const char *const where[4] = {"all NaN", "NaN first", "NaN in the middle", "NaN last"};
    static const char *const names[3] = {"maxval", "minval", "maxabs"};
    char what[200];
    for (int k = 0; k < 4; k++) {
        float *B = check_alloc(n, sizeof *B);
        memcpy(B, A, n * sizeof *B);
        if (k == 0)
            for (size_t i = 0; i < n; i++) B[i] = -NAN; /* the sign of 0 / 0 on x86 */
        else B[k == 1 ? 0 : k == 2 ? n / 2 : n - 1] = k == 2 ? -NAN : NAN;
        texla_vec b = mkv(s, B, "reductions: NaN data");
        for (int op = 0; op < 3; op++) {
            snprintf(what, sizeof what, "texla_vec %s %s, %s", names[op], sname(s).s, where[k]);
            CHECK_OK(ctx, texla_scalar_write(ctx, 12345.0f, out), what); /* not stale */
            texla_result r = op == 0 ? texla_vec_maxval(ctx, b, out)
                             : op == 1 ? texla_vec_minval(ctx, b, out)
                                       : texla_vec_maxabs(ctx, b, out);
            if (!CHECK_OK(ctx, r, what)) continue;
            float got = sread(out, what);
            CHECK(isnan(got), "%s: got %.9g, expected NaN", what, (double)got);
            if (op == 2) CHECK(!(got < 0), "%s: a negative largest magnitude", what);
        }
        texla_vec_destroy(ctx, b);
        free(B);
    }
    free(A);
}

static void test_reductions(void) {
    texla_scalar out = mks(0, "reductions: destination scalar");
    for (int i = 0; i < N_PLAIN + N_GRIDS; i++) red_shape(shape_at(i), out);
    for (int i = 0; i < N_PLAIN + N_GRIDS; i++) red_nan_shape(shape_at(i), out);
    texla_scalar_destroy(ctx, out);
    printf("reductions over %d shapes: worst |err| / (1.01 g_n sum|terms|); max/min/maxabs "
           "required exact, and NaN with a NaN element:\n", N_PLAIN + N_GRIDS);
    for (int op = 0; op < R_COUNT; op++)
        if (op <= R_NORM2) printf("  %-18s worst ratio %.2e\n", red_name[op], red_worst[op]);
}

/* ---- scalars ---- */

static void test_scalars(void) {
    static const float vals[] = {0.0f, 1.0f, -1.0f, 3.14159274f, -123.456f, 1e-30f, -2.5e30f,
                                 3.4e38f, 1.17549435e-38f};
    char what[200];
    texla_scalar s = mks(0, "scalars: s");
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        snprintf(what, sizeof what, "texla_scalar_make(%.9g) / read", (double)vals[i]);
        texla_scalar t = mks(vals[i], what);
        float g = sread(t, what);
        CHECK(memcmp(&g, &vals[i], sizeof g) == 0, "%s: read %.9g", what, (double)g);
        texla_scalar_destroy(ctx, t);
        snprintf(what, sizeof what, "texla_scalar_write(%.9g) / read", (double)vals[i]);
        CHECK_OK(ctx, texla_scalar_write(ctx, vals[i], s), what);
        g = sread(s, what);
        CHECK(memcmp(&g, &vals[i], sizeof g) == 0, "%s: read %.9g", what, (double)g);
    }
    texla_scalar_destroy(ctx, s);

    /* arithmetic on random pairs (magnitudes over several binades, signs mixed) */
    texla_scalar a = mks(0, "scalars: a"), b = mks(0, "scalars: b"), d = mks(0, "scalars: dst");
    double worst[4] = {0, 0, 0, 0};
    const char *const names[5] = {"div", "div_or_zero", "mul", "sub", "neg"};
    for (int it = 0; it < 24; it++) {
        float x = (float)(check_rand() * pow(2.0, 8.0 * check_rand()));
        float y = (float)(check_rand() * pow(2.0, 8.0 * check_rand()));
        if (y == 0.0f) y = 0.5f;
        CHECK_OK(ctx, texla_scalar_write(ctx, x, a), "scalars: write a");
        CHECK_OK(ctx, texla_scalar_write(ctx, y, b), "scalars: write b");
        for (int op = 0; op < 5; op++) {
            snprintf(what, sizeof what, "texla_scalar_%s(%.9g, %.9g)", names[op], (double)x,
                     (double)y);
            CHECK_OK(ctx, texla_scalar_write(ctx, NAN, d), what);
            texla_result r = op == 0   ? texla_scalar_div(ctx, a, b, d)
                             : op == 1 ? texla_scalar_div_or_zero(ctx, a, b, d)
                             : op == 2 ? texla_scalar_mul(ctx, a, b, d)
                             : op == 3 ? texla_scalar_sub(ctx, a, b, d)
                                       : texla_scalar_neg(ctx, a, d);
            CHECK_OK(ctx, r, what);
            if (r) continue;
            float g = sread(d, what);
            double ref = op <= 1 ? (double)x / y : op == 2 ? (double)x * y : op == 3 ? (double)x - y
                                                                                   : -(double)x;
            double err = fabs((double)g - ref);
            if (isnan(err)) err = INFINITY;
            if (op == 4) {
                CHECK(g == -x, "%s: got %.9g, expected exactly %.9g", what, (double)g, (double)-x);
                continue;
            }
            double ulps = op <= 1 ? 5.0 : 1.0; /* division: 2.5 ULP in GLSL (see the top) */
            CHECK(err <= ulps * U * fabs(ref), "%s: got %.9g, ref %.17g, |err| = %.3f u|ref| > "
                  "%.0f u|ref|", what, (double)g, ref, ref != 0 ? err / (U * fabs(ref)) : err,
                  ulps);
            double ratio = ref != 0 ? err / (U * fabs(ref)) : 0;
            if (!(ratio <= worst[op])) worst[op] = ratio;
        }
    }
    /* div_or_zero by zero (and -0) gives exactly 0, whatever a is (0 included) */
    static const float nums[] = {1.5f, -7.25f, 0.0f, 3e20f};
    static const float zs[] = {0.0f, -0.0f};
    for (size_t i = 0; i < 4; i++)
        for (size_t j = 0; j < 2; j++) {
            snprintf(what, sizeof what, "texla_scalar_div_or_zero(%.9g, %s0)", (double)nums[i],
                     j ? "-" : "+");
            CHECK_OK(ctx, texla_scalar_write(ctx, nums[i], a), what);
            CHECK_OK(ctx, texla_scalar_write(ctx, zs[j], b), what);
            CHECK_OK(ctx, texla_scalar_write(ctx, NAN, d), what);
            CHECK_OK(ctx, texla_scalar_div_or_zero(ctx, a, b, d), what);
            float g = sread(d, what);
            CHECK(g == 0.0f, "%s: got %.9g, expected exactly 0", what, (double)g);
        }
    printf("scalars: make/write/read exact for %zu values incl. 0, 1e-30, 3.4e38; 24 random "
           "pairs: worst |err| in u|ref|: div %.3f, div_or_zero %.3f, mul %.3f, sub %.3f (bound "
           "1); neg exact; div_or_zero(x, +-0) = 0\n", sizeof vals / sizeof vals[0], worst[0],
           worst[1], worst[2], worst[3]);

    /* aliasing and handles */
    CHECK_CODE(ctx, texla_scalar_div(ctx, a, b, a), TEXLA_ERR_ALIAS, "texla_scalar_div(a, b, a)");
    CHECK_CODE(ctx, texla_scalar_mul(ctx, a, b, b), TEXLA_ERR_ALIAS, "texla_scalar_mul(a, b, b)");
    CHECK_CODE(ctx, texla_scalar_neg(ctx, a, a), TEXLA_ERR_ALIAS, "texla_scalar_neg(a, a)");
    texla_scalar dead = mks(1, "scalars: dead");
    texla_scalar_destroy(ctx, dead);
    CHECK_CODE(ctx, texla_scalar_sub(ctx, a, dead, d), TEXLA_ERR_HANDLE,
               "texla_scalar_sub with a destroyed operand");
    CHECK_CODE(ctx, texla_scalar_write(ctx, 1, dead), TEXLA_ERR_HANDLE,
               "texla_scalar_write to a destroyed scalar");
    CHECK_CODE(ctx, texla_scalar_read(ctx, a, NULL), TEXLA_ERR_ARGUMENT,
               "texla_scalar_read to NULL");
    texla_scalar_destroy(ctx, a);
    texla_scalar_destroy(ctx, b);
    texla_scalar_destroy(ctx, d);
}

/* non-blocking read-back: start, then poll until ready */
/* texla_scalar_read_wait: the value at the start, whatever was queued since; a second wait
 * (nothing pending) is an argument error */
static void test_read_wait(void) {
    texla_scalar s = mks(0, "read wait: s");
    float v = NAN;
    CHECK_OK(ctx, texla_scalar_write(ctx, 2.5f, s), "read wait: write 2.5");
    CHECK_OK(ctx, texla_scalar_read_start(ctx, s), "read wait: start");
    CHECK_OK(ctx, texla_scalar_write(ctx, -7.0f, s), "read wait: write -7 after the start");
    CHECK_OK(ctx, texla_scalar_read_wait(ctx, s, &v), "texla_scalar_read_wait");
    CHECK(v == 2.5f, "texla_scalar_read_wait: %g, want 2.5 (the value at the start)", (double)v);
    CHECK_CODE(ctx, texla_scalar_read_wait(ctx, s, &v), TEXLA_ERR_ARGUMENT,
               "texla_scalar_read_wait with no read started");
    CHECK_OK(ctx, texla_scalar_read(ctx, s, &v), "read wait: blocking read");
    CHECK(v == -7.0f, "read wait: the scalar now %g, want -7", (double)v);
    texla_scalar_destroy(ctx, s);
}

static void test_async(void) {
    const int n = 65537;
    float *A = rnd_range((size_t)n, 0.0, 1.0);
    double ref = 0, mag = 0;
    for (int i = 0; i < n; i++) ref += A[i], mag += A[i];
    texla_vec a = mkv(plain_shape(n), A, "async: a");
    texla_scalar s = mks(0, "async: s");
    char what[200];
    for (int round = 0; round < 3; round++) {
        snprintf(what, sizeof what, "async read of texla_vec_sum n=%d (round %d)", n, round);
        CHECK_OK(ctx, texla_vec_sum(ctx, a, s), what);
        texla_result r = texla_scalar_read_start(ctx, s);
        CHECK_OK(ctx, r, what);
        if (r) continue;
        float v = NAN;
        long polls = 0;
        double t0 = check_now();
        for (;;) {
            r = texla_scalar_read_poll(ctx, s, &v);
            polls++;
            if (r != TEXLA_ERR_NOT_READY || check_now() - t0 > 20.0) break;
        }
        CHECK(r == TEXLA_OK, "%s: poll returned %s after %ld polls (%.1f s): %s", what,
              texla_result_name(r), polls, check_now() - t0, texla_error_message(ctx));
        double err = fabs((double)v - ref), bound = 1.01 * check_gamma(n) * mag;
        CHECK(err <= bound, "%s: polled value %.9g, ref %.17g, |err| %.3g > g_n sum = %.3g", what,
              (double)v, ref, err, bound);
        CHECK(v == sread(s, what), "%s: polled value %.9g differs from the blocking read", what,
              (double)v);
        printf("  async read round %d: %ld polls (%.2f ms), value %.9g (ref %.9g)\n", round,
               polls, 1e3 * (check_now() - t0), (double)v, ref);
    }
    /* after texla_ctx_finish the first poll must be ready */
    CHECK_OK(ctx, texla_vec_sum(ctx, a, s), "async: sum before finish");
    CHECK_OK(ctx, texla_scalar_read_start(ctx, s), "async: start before finish");
    CHECK_OK(ctx, texla_ctx_finish(ctx), "async: texla_ctx_finish");
    float v = NAN;
    texla_result r = texla_scalar_read_poll(ctx, s, &v);
    CHECK(r == TEXLA_OK, "async: first poll after texla_ctx_finish returned %s, expected OK",
          texla_result_name(r));
    CHECK(fabs((double)v - ref) <= 1.01 * check_gamma(n) * mag,
          "async: value after finish %.9g, ref %.17g", (double)v, ref);
    /* start copies the value at the time of the start: a later write does not change it */
    texla_scalar t = mks(1.25f, "async: t");
    CHECK_OK(ctx, texla_scalar_read_start(ctx, t), "async: start on t = 1.25");
    CHECK_OK(ctx, texla_scalar_write(ctx, -8.5f, t), "async: write t = -8.5 after the start");
    CHECK_OK(ctx, texla_ctx_finish(ctx), "async: finish");
    v = NAN;
    r = texla_scalar_read_poll(ctx, t, &v);
    CHECK(r == TEXLA_OK && v == 1.25f, "async: start, then write -8.5, then poll: %s, %.9g; "
          "expected OK and the value at the start, 1.25", texla_result_name(r), (double)v);
    /* a new start replaces a pending one */
    CHECK_OK(ctx, texla_scalar_read_start(ctx, t), "async: start on t = -8.5");
    CHECK_OK(ctx, texla_scalar_write(ctx, 6.0f, t), "async: write t = 6");
    CHECK_OK(ctx, texla_scalar_read_start(ctx, t), "async: second start on t = 6");
    CHECK_OK(ctx, texla_ctx_finish(ctx), "async: finish");
    v = NAN;
    r = texla_scalar_read_poll(ctx, t, &v);
    CHECK(r == TEXLA_OK && v == 6.0f, "async: two starts then poll: %s, %.9g; expected OK and "
          "6 (the second start replaces the first)", texla_result_name(r), (double)v);
    /* a poll without a start is an error, not a crash and not a value */
    texla_scalar u = mks(3.0f, "async: never started");
    v = NAN;
    r = texla_scalar_read_poll(ctx, u, &v);
    CHECK(r != TEXLA_OK, "async: poll without a start returned TEXLA_OK (value %.9g)", (double)v);
    printf("  poll without a start: %s\n", texla_result_name(r));
    CHECK_CODE(ctx, texla_scalar_read_start(ctx, (texla_scalar){0}), TEXLA_ERR_HANDLE,
               "async: start on scalar 0");
    texla_scalar_destroy(ctx, u);
    texla_scalar_destroy(ctx, t);
    texla_scalar_destroy(ctx, s);
    texla_vec_destroy(ctx, a);
    free(A);
}

/* ---- conversions and the dense product ---- */

/* an n x 1 dense matrix read raw: padding rows past n must be 0; out gets n floats */
static int mfetch_col(texla_mat m, int n, float *out, const char *what) {
    int fails = check_failed, h = (n + 3) / 4;
    float *raw = check_alloc((size_t)h * 4, sizeof *raw), *rd = check_alloc((size_t)n, sizeof *rd);
    texla_result r = texla_mat_read_raw(ctx, m, raw);
    CHECK_OK(ctx, r, what);
    if (!r) {
        size_t bad = 0;
        for (int i = 0; i < 4 * h; i++) {
            if (i < n) out[i] = raw[i];
            else if (raw[i] != 0.0f) bad++;
        }
        CHECK(bad == 0, "%s: %zu padding lanes of the %d x 1 matrix are not 0", what, bad, n);
        CHECK_OK(ctx, texla_mat_read(ctx, m, rd), what);
        expect_exact(rd, out, (size_t)n, what);
    }
    free(raw), free(rd);
    return check_failed != fails;
}

static void conv_shape(vshape s) {
    size_t n = (size_t)s.n;
    char what[200];
    float *X = check_rnd(n), *Y = check_rnd(n), *got = check_alloc(n, sizeof *got);
    texla_mat m = {0}, md = {0};
    CHECK_OK(ctx, texla_mat_make(ctx, s.n, 1, X, &m), "conversions: dense x");
    CHECK_OK(ctx, texla_mat_make(ctx, s.n, 1, Y, &md), "conversions: dense destination");
    texla_vec v = mkv(s, Y, "conversions: vector destination");
    snprintf(what, sizeof what, "texla_vec_from_mat %s", sname(s).s);
    CHECK_OK(ctx, texla_vec_from_mat(ctx, m, v), what);
    if (!vfetch(v, s, got, what)) expect_exact(got, X, n, what);
    snprintf(what, sizeof what, "texla_mat_from_vec %s", sname(s).s);
    texla_vec w = mkv(s, Y, "conversions: vector source");
    CHECK_OK(ctx, texla_mat_from_vec(ctx, w, md), what);
    if (!mfetch_col(md, s.n, got, what)) expect_exact(got, Y, n, what);
    /* shape errors: a dense matrix of another length, or of two columns */
    texla_mat wrong = {0}, wide = {0};
    CHECK_OK(ctx, texla_mat_make(ctx, s.n + 1, 1, NULL, &wrong), what);
    CHECK_OK(ctx, texla_mat_make(ctx, s.n, 2, NULL, &wide), what);
    snprintf(what, sizeof what, "texla_vec_from_mat (%d x 1) into %s", s.n + 1, sname(s).s);
    CHECK_CODE(ctx, texla_vec_from_mat(ctx, wrong, v), TEXLA_ERR_SHAPE, what);
    snprintf(what, sizeof what, "texla_mat_from_vec %s into %d x 2", sname(s).s, s.n);
    CHECK_CODE(ctx, texla_mat_from_vec(ctx, w, wide), TEXLA_ERR_SHAPE, what);
    if (!vfetch(v, s, got, "conversions: destination after a failed call"))
        expect_exact(got, X, n, "conversions: a failed texla_vec_from_mat left its destination");
    texla_mat_destroy(ctx, wrong);
    texla_mat_destroy(ctx, wide);
    texla_mat_destroy(ctx, m);
    texla_mat_destroy(ctx, md);
    texla_vec_destroy(ctx, v);
    texla_vec_destroy(ctx, w);
    free(X), free(Y), free(got);
}

static double mv_worst;

/* y = A x for a dense n x m matrix and 2D vectors */
static void mat_vec_shape(vshape sy, vshape sx) {
    int n = sy.n, m = sx.n;
    size_t na = (size_t)n * (size_t)m;
    float *A = check_rnd(na), *X = check_rnd((size_t)m), *Y0 = check_rnd((size_t)n),
          *got = check_alloc((size_t)n, 4);
    double *ref = check_alloc((size_t)n, sizeof *ref), *bnd = check_alloc((size_t)n, sizeof *bnd);
    char what[200];
    snprintf(what, sizeof what, "texla_mat_matvec %dx%d * (%s) -> (%s)", n, m, sname(sx).s,
             sname(sy).s);
    texla_mat a = {0};
    CHECK_OK(ctx, texla_mat_make(ctx, n, m, A, &a), what);
    texla_vec x = mkv(sx, X, what), y = mkv(sy, Y0, what);
    double gm = check_gamma(m);
    for (int i = 0; i < n; i++) {
        double acc = 0, mag = 0;
        for (int j = 0; j < m; j++) {
            double t = (double)A[(size_t)i * (size_t)m + (size_t)j] * X[j];
            acc += t, mag += fabs(t);
        }
        ref[i] = acc, bnd[i] = 1.01 * gm * mag;
    }
    texla_result r = texla_mat_matvec(ctx, a, x, y);
    CHECK_OK(ctx, r, what);
    if (!r && !vfetch(y, sy, got, what)) {
        double w = expect_bound(got, ref, bnd, (size_t)n, what, "1.01 g_m (|A||x|)_i");
        if (w > mv_worst) mv_worst = w;
    }
    expect_holds(x, sx, X, "texla_mat_matvec: x unchanged");
    texla_mat_destroy(ctx, a);
    texla_vec_destroy(ctx, x);
    texla_vec_destroy(ctx, y);
    free(A), free(X), free(Y0), free(got), free(ref), free(bnd);
}

static void test_conversions(void) {
    static const int ns[] = {1, 5, 257, 4099};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) conv_shape(plain_shape(ns[i]));
    conv_shape(grid_shape(17, 13));
    conv_shape(grid_shape(1, 7));
    printf("conversions vec <-> dense n x 1: n = 1, 5, 257, 4099 and grids 17x13, 1x7: exact\n");

    mat_vec_shape(plain_shape(37), plain_shape(53));
    mat_vec_shape(plain_shape(53), plain_shape(37));
    mat_vec_shape(plain_shape(1), plain_shape(1));
    mat_vec_shape(plain_shape(1), plain_shape(257));
    mat_vec_shape(plain_shape(257), plain_shape(1));
    mat_vec_shape(grid_shape(7, 5), grid_shape(9, 7));
    printf("texla_mat_matvec 37x53, 53x37, 1x1, 1x257, 257x1, 35x63 (grids): worst |err| / "
           "(1.01 g_m (|A||x|)_i) = %.3f\n", mv_worst);

    /* shape and alias errors */
    texla_mat a = {0};
    CHECK_OK(ctx, texla_mat_make(ctx, 37, 53, NULL, &a), "mat_mul_vec errors: a");
    texla_vec x52 = mkv(plain_shape(52), NULL, "x52"), y37 = mkv(plain_shape(37), NULL, "y37"),
              x53 = mkv(plain_shape(53), NULL, "x53"), y36 = mkv(plain_shape(36), NULL, "y36");
    CHECK_CODE(ctx, texla_mat_matvec(ctx, a, x52, y37), TEXLA_ERR_SHAPE,
               "texla_mat_matvec 37x53 with x of length 52");
    CHECK_CODE(ctx, texla_mat_matvec(ctx, a, x53, y36), TEXLA_ERR_SHAPE,
               "texla_mat_matvec 37x53 with y of length 36");
    texla_mat sq = {0};
    CHECK_OK(ctx, texla_mat_make(ctx, 53, 53, NULL, &sq), "mat_mul_vec errors: square");
    CHECK_CODE(ctx, texla_mat_matvec(ctx, sq, x53, x53), TEXLA_ERR_ALIAS,
               "texla_mat_matvec 53x53 with y = x");
    texla_mat_destroy(ctx, a);
    texla_mat_destroy(ctx, sq);
    texla_vec_destroy(ctx, x52);
    texla_vec_destroy(ctx, y37);
    texla_vec_destroy(ctx, x53);
    texla_vec_destroy(ctx, y36);
}

/* ---- error codes ---- */

static void test_errors(void) {
    vshape s = plain_shape(57), s2 = plain_shape(58), g = grid_shape(3, 19);
    float *A = check_rnd(57), *D = check_rnd(57);
    texla_vec a = mkv(s, A, "errors: a"), b = mkv(s, A, "errors: b"),
              dst = mkv(s, D, "errors: dst"),
              o = mkv(s2, NULL, "errors: other length"), gv = mkv(g, NULL, "errors: grid 3x19");
    texla_scalar sc = mks(0.5f, "errors: scalar");
    /* mixing layouts of different length */
    CHECK_CODE(ctx, texla_vec_add(ctx, a, o, dst), TEXLA_ERR_SHAPE, "texla_vec_add n=57, n=58");
    CHECK_CODE(ctx, texla_vec_add(ctx, o, a, dst), TEXLA_ERR_SHAPE, "texla_vec_add n=58, n=57");
    CHECK_CODE(ctx, texla_vec_sub(ctx, a, b, o), TEXLA_ERR_SHAPE, "texla_vec_sub into n=58");
    CHECK_CODE(ctx, texla_vec_copy(ctx, o, dst), TEXLA_ERR_SHAPE, "texla_vec_copy n=58 -> n=57");
    CHECK_CODE(ctx, texla_vec_axpy(ctx, a, texla_host(2), o, dst), TEXLA_ERR_SHAPE,
               "texla_vec_axpy b of n=58");
    CHECK_CODE(ctx, texla_vec_acc(ctx, texla_host(2), o, dst), TEXLA_ERR_SHAPE,
               "texla_vec_acc b of n=58");
    CHECK_CODE(ctx, texla_vec_mul(ctx, a, b, o), TEXLA_ERR_SHAPE, "texla_vec_mul into n=58");
    CHECK_CODE(ctx, texla_vec_clamp_min(ctx, o, 0, dst), TEXLA_ERR_SHAPE, "texla_vec_clamp_min n=58 -> n=57");
    CHECK_CODE(ctx, texla_vec_clamp(ctx, o, 0, 1, dst), TEXLA_ERR_SHAPE,
               "texla_vec_clamp n=58 -> n=57");
    CHECK_CODE(ctx, texla_vec_dot(ctx, a, o, sc), TEXLA_ERR_SHAPE, "texla_vec_dot n=57, n=58");
    /* the same length in another layout (grid 3x19 = 57 elements) */
    CHECK_CODE(ctx, texla_vec_add(ctx, a, gv, dst), TEXLA_ERR_SHAPE,
               "texla_vec_add plain n=57 and grid 3x19");
    CHECK_CODE(ctx, texla_vec_dot(ctx, a, gv, sc), TEXLA_ERR_SHAPE,
               "texla_vec_dot plain n=57 and grid 3x19");
    expect_holds(dst, s, D, "errors: destination unchanged after the shape errors");
    /* aliasing */
    CHECK_CODE(ctx, texla_vec_add(ctx, a, b, a), TEXLA_ERR_ALIAS, "texla_vec_add(a, b, a)");
    CHECK_CODE(ctx, texla_vec_add(ctx, a, b, b), TEXLA_ERR_ALIAS, "texla_vec_add(a, b, b)");
    CHECK_CODE(ctx, texla_vec_copy(ctx, a, a), TEXLA_ERR_ALIAS, "texla_vec_copy(a, a)");
    CHECK_CODE(ctx, texla_vec_scale(ctx, a, texla_host(2), a), TEXLA_ERR_ALIAS,
               "texla_vec_scale(a, 2, a)");
    CHECK_CODE(ctx, texla_vec_axpy(ctx, a, texla_host(2), b, b), TEXLA_ERR_ALIAS,
               "texla_vec_axpy(a, 2, b, b)");
    CHECK_CODE(ctx, texla_vec_acc(ctx, texla_host(2), dst, dst), TEXLA_ERR_ALIAS,
               "texla_vec_acc(2, dst, dst)");
    CHECK_CODE(ctx, texla_vec_clamp_min(ctx, a, 0, a), TEXLA_ERR_ALIAS, "texla_vec_clamp_min(a, 0, a)");
    CHECK_CODE(ctx, texla_vec_clamp(ctx, a, 0, 1, a), TEXLA_ERR_ALIAS,
               "texla_vec_clamp(a, 0, 1, a)");
    expect_holds(dst, s, D, "errors: destination unchanged after texla_vec_acc(2, dst, dst)");
    /* stale handles */
    texla_vec dead = mkv(s, NULL, "errors: dead");
    texla_vec_destroy(ctx, dead);
    texla_scalar sdead = mks(1, "errors: dead scalar");
    texla_scalar_destroy(ctx, sdead);
    CHECK_CODE(ctx, texla_vec_add(ctx, a, dead, dst), TEXLA_ERR_HANDLE,
               "texla_vec_add with a stale b");
    CHECK_CODE(ctx, texla_vec_copy(ctx, a, dead), TEXLA_ERR_HANDLE,
               "texla_vec_copy into a stale dst");
    CHECK_CODE(ctx, texla_vec_sum(ctx, dead, sc), TEXLA_ERR_HANDLE,
               "texla_vec_sum of a stale vector");
    CHECK_CODE(ctx, texla_vec_sum(ctx, a, sdead), TEXLA_ERR_HANDLE,
               "texla_vec_sum into a stale scalar");
    CHECK_CODE(ctx, texla_vec_scale(ctx, a, texla_gpu(1, sdead), dst), TEXLA_ERR_HANDLE,
               "texla_vec_scale with a stale GPU coefficient");
    CHECK_CODE(ctx, texla_vec_fill(ctx, texla_gpu(1, sdead), dst), TEXLA_ERR_HANDLE,
               "texla_vec_fill with a stale GPU coefficient");
    CHECK_CODE(ctx, texla_vec_info_get(ctx, dead, &(texla_vec_info){0}), TEXLA_ERR_HANDLE,
               "texla_vec_info_get of a stale vector");
    CHECK_CODE(ctx, texla_vec_make_like(ctx, dead, &(texla_vec){0}), TEXLA_ERR_HANDLE,
               "texla_vec_make_like of a stale vector");
    /* non-finite host coefficients */
    CHECK_CODE(ctx, texla_vec_scale(ctx, a, texla_host(NAN), dst), TEXLA_ERR_ARGUMENT,
               "texla_vec_scale by NaN");
    CHECK_CODE(ctx, texla_vec_scale(ctx, a, texla_host(INFINITY), dst), TEXLA_ERR_ARGUMENT,
               "texla_vec_scale by +Inf");
    CHECK_CODE(ctx, texla_vec_axpy(ctx, a, texla_host(-INFINITY), b, dst), TEXLA_ERR_ARGUMENT,
               "texla_vec_axpy by -Inf");
    CHECK_CODE(ctx, texla_vec_acc(ctx, texla_host(NAN), b, dst), TEXLA_ERR_ARGUMENT,
               "texla_vec_acc by NaN");
    CHECK_CODE(ctx, texla_vec_fill(ctx, texla_host(INFINITY), dst), TEXLA_ERR_ARGUMENT,
               "texla_vec_fill with +Inf");
    CHECK_CODE(ctx, texla_vec_scale(ctx, a, texla_gpu(NAN, sc), dst), TEXLA_ERR_ARGUMENT,
               "texla_vec_scale by NaN times a GPU scalar");
    CHECK_CODE(ctx, texla_vec_clamp_min(ctx, a, NAN, dst), TEXLA_ERR_ARGUMENT, "texla_vec_clamp_min with NaN");
    CHECK_CODE(ctx, texla_vec_clamp(ctx, a, -INFINITY, NAN, dst), TEXLA_ERR_ARGUMENT,
               "texla_vec_clamp with hi NaN");
    expect_holds(dst, s, D, "errors: destination unchanged after the argument errors");
    /* bad sizes and NULL pointers */
    texla_vec tmp = {0};
    CHECK_CODE(ctx, texla_vec_make(ctx, -1, NULL, &tmp), TEXLA_ERR_ARGUMENT, "texla_vec_make n=-1");
    CHECK_CODE(ctx, texla_vec_make_grid(ctx, 4, -3, NULL, &tmp), TEXLA_ERR_ARGUMENT,
               "texla_vec_make_grid 4 x -3");
    /* a side of INT_MAX: the texture limit, before the even sizes overflow and a negative width
     * reaches GL (whose error then failed the next, valid call in a debug context) */
    CHECK_CODE(ctx, texla_vec_make_grid(ctx, INT_MAX, 1, NULL, &tmp), TEXLA_ERR_LIMIT,
               "texla_vec_make_grid INT_MAX x 1");
    CHECK_CODE(ctx, texla_vec_make_grid(ctx, 1, INT_MAX, NULL, &tmp), TEXLA_ERR_LIMIT,
               "texla_vec_make_grid 1 x INT_MAX");
    CHECK(tmp.id == 0, "texla_vec_make_grid 1 x INT_MAX: out not zeroed");
    if (CHECK_OK(ctx, texla_vec_make(ctx, 8, NULL, &tmp), "texla_vec_make after the refused grids"))
        texla_vec_destroy(ctx, tmp);
    CHECK_CODE(ctx, texla_vec_make(ctx, 5, NULL, NULL), TEXLA_ERR_ARGUMENT,
               "texla_vec_make with out NULL");
    CHECK_CODE(ctx, texla_vec_read(ctx, a, NULL), TEXLA_ERR_ARGUMENT, "texla_vec_read to NULL");
    CHECK_CODE(ctx, texla_vec_write(ctx, NULL, a), TEXLA_ERR_ARGUMENT, "texla_vec_write from NULL");
    texla_vec_destroy(ctx, a);
    texla_vec_destroy(ctx, b);
    texla_vec_destroy(ctx, dst);
    texla_vec_destroy(ctx, o);
    texla_vec_destroy(ctx, gv);
    texla_scalar_destroy(ctx, sc);
    free(A), free(D);
}

/* texla_vec_splat on a 5 x 4 grid (odd width: a padding column) against
 * amplitude exp(-d^2 / r^2) in float64: an ordinary bump, radii and positions whose bounding
 * rectangle is past INT_MAX texels (converted to int out of range it came out empty and the
 * splat did nothing), a bump far outside (nothing), and the padding lanes zero throughout */
static void test_splat(void) {
    const int nx = 5, ny = 4, n = nx * ny;
    texla_vec v = {0};
    if (!CHECK_OK(ctx, texla_vec_make_grid(ctx, nx, ny, NULL, &v), "splat: grid 5 x 4")) return;
    static const struct { float x, y, r, a; } cases[] = {
        {2.3f, 1.6f, 1.5f, 0.7f}, {1, 1, 2e9f, 1}, {1, 1, 1e30f, -2}, {-3e9f, 2, 4e9f, 1},
        {1e12f, 1, 1, 1}, {2, -1e20f, 5, 1}};
    float got[20], raw[6 * 4];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char what[128];
        snprintf(what, sizeof what, "splat at (%g, %g), radius %g, amplitude %g",
                 (double)cases[c].x, (double)cases[c].y, (double)cases[c].r, (double)cases[c].a);
        if (!CHECK_OK(ctx, texla_vec_fill(ctx, texla_host(0.0f), v), "splat: zero") ||
            !CHECK_OK(ctx, texla_vec_splat(ctx, cases[c].x, cases[c].y, cases[c].r, cases[c].a, v),
                      what) ||
            !CHECK_OK(ctx, texla_vec_read(ctx, v, got), what) ||
            !CHECK_OK(ctx, texla_vec_read_raw(ctx, v, raw), what))
            continue;
        int bad = 0;
        double worst = 0;
        for (int k = 0; k < n; k++) {
            /* the shader's float32 differences: the cell minus the point, rounded */
            double dx = (double)((float)(k % nx) - cases[c].x);
            double dy = (double)((float)(k / nx) - cases[c].y);
            double r = cases[c].r, want = cases[c].a * exp(-(dx * dx + dy * dy) / (r * r));
            double err = fabs(got[k] - want);
            worst = fmax(worst, err);
            bad += !(err <= 1e-5 * fabs((double)cases[c].a));
        }
        int pad = 0; /* texel column 2's right-hand cells, x = 5: padding */
        for (int ty = 0; ty < 2; ty++) { /* raw: 3 x 2 texels, RGBA = cells (0,0) (1,0) (0,1) (1,1) */
            const float *tx = raw + (ty * 3 + 2) * 4;
            pad += tx[1] != 0.0f || tx[3] != 0.0f;
        }
        CHECK(bad == 0 && pad == 0, "%s: %d of %d elements off amplitude exp(-d^2/r^2) (worst "
              "%.3g), %d padding texels not zero", what, bad, n, worst, pad);
    }
    texla_vec_destroy(ctx, v);
}

/* a GPU scalar of +Inf or NaN as the coefficient of scale, axpy and acc, on a vector of a 5 x 4
 * grid and a 5 x 1 matrix (both with padding lanes): the live lanes are what IEEE says, the
 * padding lanes stay 0 (Inf times a padding lane's 0 was NaN there) */
static void test_nonfinite_coef(void) {
    static const float vals[2] = {INFINITY, NAN};
    float A[20], B[20], raw[6 * 4 * 4];
    for (int k = 0; k < 20; k++) A[k] = (float)(k % 3) - 1.0f, B[k] = 0.5f * (float)(k % 5);
    texla_vec a = {0}, b = {0}, o = {0};
    texla_mat ma = {0}, mb = {0}, mo = {0};
    texla_scalar sc = {0};
    if (!CHECK_OK(ctx, texla_vec_make_grid(ctx, 5, 4, A, &a), "coef: a") ||
        !CHECK_OK(ctx, texla_vec_make_grid(ctx, 5, 4, B, &b), "coef: b") ||
        !CHECK_OK(ctx, texla_vec_make_grid(ctx, 5, 4, NULL, &o), "coef: o") ||
        !CHECK_OK(ctx, texla_mat_make(ctx, 5, 1, A, &ma), "coef: ma") ||
        !CHECK_OK(ctx, texla_mat_make(ctx, 5, 1, B, &mb), "coef: mb") ||
        !CHECK_OK(ctx, texla_mat_make(ctx, 5, 1, NULL, &mo), "coef: mo") ||
        !CHECK_OK(ctx, texla_scalar_make(ctx, 0, &sc), "coef: scalar"))
        goto out;
    for (int vi = 0; vi < 2; vi++) {
        float c = vals[vi];
        CHECK_OK(ctx, texla_scalar_write(ctx, c, sc), "coef: write the scalar");
        for (int op = 0; op < 6; op++) {
            static const char *const names[6] = {"texla_vec_scale", "texla_vec_axpy",
                                                  "texla_vec_acc", "texla_mat_scale",
                                                  "texla_mat_axpy", "texla_mat_acc"};
            int mat = op >= 3, n = mat ? 5 : 20;
            texla_result r;
            if (mat) {
                CHECK_OK(ctx, texla_mat_copy(ctx, mb, mo), "coef: mo = mb");
                r = op == 3 ? texla_mat_scale(ctx, ma, texla_gpu(1, sc), mo)
                    : op == 4 ? texla_mat_axpy(ctx, mb, texla_gpu(1, sc), ma, mo)
                              : texla_mat_acc(ctx, texla_gpu(1, sc), ma, mo);
            } else {
                CHECK_OK(ctx, texla_vec_copy(ctx, b, o), "coef: o = b");
                r = op == 0 ? texla_vec_scale(ctx, a, texla_gpu(1, sc), o)
                    : op == 1 ? texla_vec_axpy(ctx, b, texla_gpu(1, sc), a, o)
                              : texla_vec_acc(ctx, texla_gpu(1, sc), a, o);
            }
            char what[96];
            snprintf(what, sizeof what, "%s with a GPU scalar of %g", names[op], (double)c);
            float got[20];
            if (!CHECK_OK(ctx, r, what) ||
                !CHECK_OK(ctx, mat ? texla_mat_read(ctx, mo, got) : texla_vec_read(ctx, o, got), what) ||
                !CHECK_OK(ctx, mat ? texla_mat_read_raw(ctx, mo, raw) : texla_vec_read_raw(ctx, o, raw), what))
                continue;
            int bad = 0, pad = 0;
            for (int k = 0; k < n; k++) {
                float want = op % 3 == 0 ? c * A[k] : B[k] + c * A[k];
                bad += isnan(want) ? !isnan(got[k]) : got[k] != want;
            }
            if (mat) { /* 5 x 1: texels of rows 0-3 and 4-7; rows 5..7 are padding */
                for (int q = 5; q < 8; q++) pad += raw[q] != 0.0f;
            } else { /* 3 x 2 texels; texel column 2's x = 5 cells are padding */
                for (int ty = 0; ty < 2; ty++) {
                    const float *tx = raw + (ty * 3 + 2) * 4;
                    pad += tx[1] != 0.0f || tx[3] != 0.0f;
                }
            }
            CHECK(bad == 0 && pad == 0, "%s: %d of %d elements not IEEE's, %d padding lanes not 0",
                  what, bad, n, pad);
        }
    }
    /* the CG update with alpha = rr / pq = 1e30 / 1e-30, Inf in float32 (the compute backend's
     * fused kernel left NaN in the padding lanes of x and r) */
    {
        texla_scalar rr = {0}, pq = {0}, rn = {0}, be = {0};
        texla_vec x = {0}, r = {0};
        float X[20], R[20], gx[20], gr[20], rx[24], rrw[24];
        for (int k = 0; k < 20; k++) X[k] = 0.25f * (float)(k % 4), R[k] = (float)(k % 7) - 3.0f;
        if (CHECK_OK(ctx, texla_scalar_make(ctx, 1e30f, &rr), "cg update: rr") &&
            CHECK_OK(ctx, texla_scalar_make(ctx, 1e-30f, &pq), "cg update: pq") &&
            CHECK_OK(ctx, texla_scalar_make(ctx, 0, &rn), "cg update: rr_new") &&
            CHECK_OK(ctx, texla_scalar_make(ctx, 0, &be), "cg update: beta") &&
            CHECK_OK(ctx, texla_vec_make_grid(ctx, 5, 4, X, &x), "cg update: x") &&
            CHECK_OK(ctx, texla_vec_make_grid(ctx, 5, 4, R, &r), "cg update: r") &&
            CHECK_OK(ctx, texla_vec_cg_update(ctx, rr, pq, a, b, x, r, rn, be),
                     "texla_vec_cg_update with alpha = Inf") &&
            CHECK_OK(ctx, texla_vec_read(ctx, x, gx), "cg update: read x") &&
            CHECK_OK(ctx, texla_vec_read(ctx, r, gr), "cg update: read r") &&
            CHECK_OK(ctx, texla_vec_read_raw(ctx, x, rx), "cg update: raw x") &&
            CHECK_OK(ctx, texla_vec_read_raw(ctx, r, rrw), "cg update: raw r")) {
            float alpha = 1e30f / 1e-30f;
            int bad = 0, pad = 0;
            for (int k = 0; k < 20; k++) {
                float wx = X[k] + alpha * A[k], wr = R[k] - alpha * B[k];
                bad += isnan(wx) ? !isnan(gx[k]) : gx[k] != wx;
                bad += isnan(wr) ? !isnan(gr[k]) : gr[k] != wr;
            }
            for (int ty = 0; ty < 2; ty++) {
                const float *t1 = rx + (ty * 3 + 2) * 4, *t2 = rrw + (ty * 3 + 2) * 4;
                pad += t1[1] != 0.0f || t1[3] != 0.0f || t2[1] != 0.0f || t2[3] != 0.0f;
            }
            CHECK(bad == 0 && pad == 0, "texla_vec_cg_update with alpha = Inf: %d elements not "
                  "IEEE's, %d padding texels of x or r not 0", bad, pad);
        }
        texla_scalar_destroy(ctx, rr), texla_scalar_destroy(ctx, pq);
        texla_scalar_destroy(ctx, rn), texla_scalar_destroy(ctx, be);
        texla_vec_destroy(ctx, x), texla_vec_destroy(ctx, r);
    }
out:
    texla_vec_destroy(ctx, a), texla_vec_destroy(ctx, b), texla_vec_destroy(ctx, o);
    texla_mat_destroy(ctx, ma), texla_mat_destroy(ctx, mb), texla_mat_destroy(ctx, mo);
    texla_scalar_destroy(ctx, sc);
}

void suite_vec(void) {
    double t0 = check_now();
    ctx = suite_ctx(NULL);
    if (!ctx) return;
    texla_info info = {0};
    CHECK_OK(ctx, texla_ctx_info(ctx, &info), "texla_ctx_info");
    printf("GL: %s | %s | %s\n", info.renderer, info.version, info.platform);
    tu_begin(ctx);
    double t = check_now();
    test_make();
    test_handles();
    printf("  (make: %.1f s)\n", check_now() - t), t = check_now();
    test_elementwise();
    printf("  (element-wise: %.1f s)\n", check_now() - t), t = check_now();
    test_reductions();
    printf("  (reductions: %.1f s)\n", check_now() - t), t = check_now();
    test_scalars();
    test_async();
    test_read_wait();
    printf("  (scalars: %.1f s)\n", check_now() - t), t = check_now();
    test_conversions();
    test_splat();
    test_nonfinite_coef();
    printf("  (conversions, splats: %.1f s)\n", check_now() - t), t = check_now();
    test_errors();
    tu_end();
    texla_ctx_destroy(ctx);
    ctx = NULL;
    printf("vec suite: %.1f s\n", check_now() - t0);
}
