/* test_lcp_op.c - matrix-free LCPs: products of operators (texla_op_product), the projected
 * Jacobi step on vectors (texla_vec_lcp_step) and projected Jacobi over any operator
 * (texla_lcp_jacobi_op), each checked on the CPU in float64 (the seed is printed by main).
 *
 * PRODUCT: y = L (R x) for random sparse L (p x q) and R (q x n) at shapes that break naive code
 * (1x1x1, primes, 127/128/129, a thousand rows), a dense L times a sparse R, and a product of a
 * product (three factors); per element |y - y_ref| <= g_(kL + kR) (|L| |R| |x|)_i with kL, kR
 * the most nonzeros in a row of L and of R (each product sums that many terms in float32; the
 * dense factor counts its columns). The shape is L's rows by R's columns.
 *
 * STEP: dst = project(x + (w + b) .* e) against float64 on random data (mixed signs), without
 * and with friction rows (index: every third row a normal row, the next two its friction rows;
 * mu in [0, 1)), n = 1, 7, 129, 1000. Per element the GPU rounds the sum, the product and the
 * add (3 u of |x| + |w + b| |e| and |w| + |b| before it): |dst - ref| <= 4 u (|x| + (|w| + |b|)
 * |e|) + mu_i 4 u (the same of the normal row j) where a friction row sits at its bound (the
 * bound moves with row j's rounded value). Padding lanes stay 0 (read raw).
 *
 * JACOBI: the LCP of test_solvers.c (A SPD with a_ii = 2 sum_j |a_ij| + 1, so the projected
 * iteration contracts in the inf-norm by q_w = |1 - omega| + omega q, q < 1/2) built as a
 * product A = L R of two sparse matrices (L = [D S], R = [D; S'], A = D^2 + S S', never formed on
 * the GPU), and as a dense A with the diagonal left to texla; against a float64 projected
 * Gauss-Seidel solution: ||x - x_ref||_inf <= q_w^iters ||x0 - x_ref||_inf + 2 max E / (1 - q_w),
 * E_i = (omega / a_ii) g_(kL+kR+8) (|L| |R| |x_ref| + |b|)_i + u |x_ref_i| (the two products of
 * kL and kR terms, the step's 3 roundings, e = -omega / diag rounded, the diagonal given in
 * float; a dense A: g_(n+8)). Read-backs: none with out = NULL, two with out (x and w), and
 * out.min_x is exactly the returned x's. A workspace gives bit-equal results to none.
 * The bounded variant (a normal and two friction rows per contact, mu 0.6, normal rows pressed)
 * over A = L R against texla_lcp_jacobi on the same A formed densely, 200 iterations: both run
 * the same iteration and differ only by the rounding of the products (each step's share is
 * about g_(k) ~ 1e-6 of |x|, and the iteration contracts), so |x_op - x_dense| <= 1e-4 ||x||_inf
 * is required (a wrong friction index, a missing term or a lost clamp gives O(1) differences);
 * friction inside its cone, the case having rows both at the bound and inside.
 *
 * ERRORS: exact codes for a NULL out, an operator kind out of range, a destroyed factor, shapes
 * that do not chain, mid also x or y (ALIAS), a non-square operator, b or x of another layout, x
 * also b or the diagonal, no diagonal for a non-dense operator (ARGUMENT), a workspace of another
 * layout, one of index/mu without the other (HANDLE), negative iterations. texla_op_destroy of 0
 * or a matrix kind is a no-op. */
#include "suites.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static texla_ctx *ctx;

#define U CHECK_U

/* a random sparse matrix in COO: about k entries per row (at least one), values in [-1, 1) */
typedef struct coo {
    int rows, cols, nnz;
    int *r, *c;
    float *v;
} coo;

static coo coo_random(int rows, int cols, int k) {
    coo m = {rows, cols, 0, NULL, NULL, NULL};
    int cap = rows * k + rows;
    m.r = check_alloc((size_t)cap, sizeof *m.r);
    m.c = check_alloc((size_t)cap, sizeof *m.c);
    m.v = check_alloc((size_t)cap, sizeof *m.v);
    for (int i = 0; i < rows; i++) {
        int here = 1 + (int)((check_rand() + 1) * 0.5 * k);
        for (int e = 0; e < here && m.nnz < cap; e++) {
            m.r[m.nnz] = i;
            m.c[m.nnz] = (int)((check_rand() + 1) * 0.5 * cols) % cols;
            m.v[m.nnz++] = (float)check_rand();
        }
    }
    return m;
}

static void coo_free(coo *m) { free(m->r), free(m->c), free(m->v); }

/* y = M x and |M| |x| in float64; the most entries in a row into *kmax */
static void coo_apply(const coo *m, const double *x, const double *xa, double *y, double *ya,
                      int *kmax) {
    int *cnt = check_alloc((size_t)m->rows, sizeof *cnt);
    for (int i = 0; i < m->rows; i++) y[i] = ya[i] = 0;
    for (int e = 0; e < m->nnz; e++) {
        y[m->r[e]] += (double)m->v[e] * x[m->c[e]];
        ya[m->r[e]] += fabs((double)m->v[e]) * xa[m->c[e]];
        cnt[m->r[e]]++;
    }
    *kmax = 0;
    for (int i = 0; i < m->rows; i++) *kmax = cnt[i] > *kmax ? cnt[i] : *kmax;
    free(cnt);
}

static texla_sparse coo_upload(const coo *m, texla_vec row_like, texla_vec col_like) {
    texla_sparse s = {0};
    CHECK_OK(ctx, texla_sparse_make_coo(ctx, row_like, col_like, m->nnz, m->r, m->c, m->v, &s),
             "texla_sparse_make_coo");
    return s;
}

/* ---- products ---- */

static void product_case(int p, int q, int n, int dense_l) {
    coo L = coo_random(p, q, 5), R = coo_random(q, n, 4);
    texla_vec vp = {0}, vq = {0}, vn = {0}, y = {0};
    float *x = check_rnd((size_t)n);
    CHECK_OK(ctx, texla_vec_make(ctx, p, NULL, &vp), "vec p");
    CHECK_OK(ctx, texla_vec_make(ctx, q, NULL, &vq), "vec q");
    CHECK_OK(ctx, texla_vec_make(ctx, n, x, &vn), "vec n");
    CHECK_OK(ctx, texla_vec_make(ctx, p, NULL, &y), "vec y");
    texla_sparse rs = coo_upload(&R, vq, vn), ls = {0};
    texla_mat ld = {0};
    texla_op lop;
    if (dense_l) { /* L as a dense matrix (its duplicates summed) */
        float *d = check_alloc((size_t)p * q, sizeof *d);
        for (int e = 0; e < L.nnz; e++) d[(size_t)L.r[e] * q + L.c[e]] += L.v[e];
        CHECK_OK(ctx, texla_mat_make(ctx, p, q, d, &ld), "dense L");
        free(d);
        lop = texla_op_dense(ld);
    } else {
        ls = coo_upload(&L, vp, vq);
        lop = texla_op_sparse(ls);
    }
    texla_op a = {0, 0};
    CHECK_OK(ctx, texla_op_product(ctx, lop, texla_op_sparse(rs), vq, &a), "texla_op_product");
    int rows = -1, cols = -1;
    CHECK_OK(ctx, texla_op_shape(ctx, a, &rows, &cols), "texla_op_shape");
    CHECK(rows == p && cols == n, "product %dx%dx%d: shape %d x %d", p, q, n, rows, cols);
    CHECK_OK(ctx, texla_op_matvec(ctx, a, vn, y), "texla_op_matvec(product)");
    float *yg = check_alloc((size_t)p, sizeof *yg);
    CHECK_OK(ctx, texla_vec_read(ctx, y, yg), "read y");
    double *xd = check_alloc((size_t)n, sizeof *xd), *xa = check_alloc((size_t)n, sizeof *xa);
    double *t = check_alloc((size_t)q, sizeof *t), *ta = check_alloc((size_t)q, sizeof *ta);
    double *yr = check_alloc((size_t)p, sizeof *yr), *ya = check_alloc((size_t)p, sizeof *ya);
    for (int i = 0; i < n; i++) xd[i] = x[i], xa[i] = fabs((double)x[i]);
    int kr, kl;
    coo_apply(&R, xd, xa, t, ta, &kr);
    coo_apply(&L, t, ta, yr, ya, &kl);
    if (dense_l) kl = q;
    double g = check_gamma(kl + kr), worst = 0;
    int bad = 0;
    for (int i = 0; i < p; i++) {
        double d = fabs(yg[i] - yr[i]), b = g * ya[i];
        bad += d > b;
        worst = fmax(worst, b > 0 ? d / b : (d > 0 ? INFINITY : 0));
    }
    CHECK(bad == 0, "product %s %dx%d times sparse %dx%d: %d of %d elements off (worst error / "
          "bound %.3g)", dense_l ? "dense" : "sparse", p, q, q, n, bad, p, worst);
    /* a product of the product with a third factor: (L R) S, S n x 3 */
    if (!dense_l && p > 1) {
        coo S = coo_random(n, 3, 2);
        texla_vec v3 = {0};
        float x3[3] = {0.5f, -1.25f, 2.0f};
        CHECK_OK(ctx, texla_vec_make(ctx, 3, x3, &v3), "vec 3");
        texla_sparse ss = coo_upload(&S, vn, v3);
        texla_vec mid2 = {0};
        CHECK_OK(ctx, texla_vec_make_like(ctx, vn, &mid2), "mid2");
        texla_op a3 = {0, 0};
        CHECK_OK(ctx, texla_op_product(ctx, a, texla_op_sparse(ss), mid2, &a3), "nested product");
        CHECK_OK(ctx, texla_op_shape(ctx, a3, &rows, &cols), "shape of the nested product");
        CHECK(rows == p && cols == 3, "nested product: %d x %d, want %d x 3", rows, cols, p);
        CHECK_OK(ctx, texla_op_matvec(ctx, a3, v3, y), "texla_op_matvec(nested)");
        CHECK_OK(ctx, texla_vec_read(ctx, y, yg), "read y");
        double x3d[3] = {0.5, -1.25, 2.0}, x3a[3] = {0.5, 1.25, 2.0};
        double *s1 = check_alloc((size_t)n, sizeof *s1), *s1a = check_alloc((size_t)n, sizeof *s1a);
        int ks;
        coo_apply(&S, x3d, x3a, s1, s1a, &ks);
        coo_apply(&R, s1, s1a, t, ta, &kr);
        coo_apply(&L, t, ta, yr, ya, &kl);
        g = check_gamma(kl + kr + ks);
        bad = 0;
        for (int i = 0; i < p; i++) bad += fabs(yg[i] - yr[i]) > g * ya[i];
        CHECK(bad == 0, "nested product (%dx%d)(%dx%d)(%dx3): %d of %d elements off", p, q, q, n,
              n, bad, p);
        texla_op_destroy(ctx, a3);
        texla_sparse_destroy(ctx, ss);
        texla_vec_destroy(ctx, mid2), texla_vec_destroy(ctx, v3);
        free(s1), free(s1a);
        coo_free(&S);
    }
    printf("  product %s %dx%d . sparse %dx%d: worst error / bound %.3f\n",
           dense_l ? "dense" : "sparse", p, q, q, n, worst);
    texla_op_destroy(ctx, a);
    texla_sparse_destroy(ctx, rs), texla_sparse_destroy(ctx, ls), texla_mat_destroy(ctx, ld);
    texla_vec_destroy(ctx, vp), texla_vec_destroy(ctx, vq), texla_vec_destroy(ctx, vn);
    texla_vec_destroy(ctx, y);
    free(x), free(yg), free(xd), free(xa), free(t), free(ta), free(yr), free(ya);
    coo_free(&L), coo_free(&R);
}

static void test_product(void) {
    static const int shapes[][3] = {{1, 1, 1}, {7, 3, 5}, {127, 129, 128}, {1000, 301, 499}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        product_case(shapes[i][0], shapes[i][1], shapes[i][2], 0);
    product_case(129, 37, 64, 1);
}

/* ---- the step ---- */

static void step_case(int n, int bounded) {
    float *x = check_rnd((size_t)n), *w = check_rnd((size_t)n), *b = check_rnd((size_t)n);
    float *e = check_rnd((size_t)n), *fi = check_alloc((size_t)n, 4), *mu = check_alloc((size_t)n, 4);
    for (int i = 0; i < n; i++) {
        fi[i] = bounded && i % 3 ? (float)(i - i % 3) : -1.0f;
        mu[i] = bounded && i % 3 ? (float)(0.5 * (check_rand() + 1)) : 0.0f;
    }
    texla_vec v[7] = {{0}};
    float *src[6] = {x, w, b, e, fi, mu};
    for (int k = 0; k < 6; k++) CHECK_OK(ctx, texla_vec_make(ctx, n, src[k], &v[k]), "step vec");
    CHECK_OK(ctx, texla_vec_make(ctx, n, NULL, &v[6]), "step dst");
    texla_vec none = {0};
    CHECK_OK(ctx, texla_vec_lcp_step(ctx, v[0], v[1], v[2], v[3], bounded ? v[4] : none,
                                     bounded ? v[5] : none, v[6]), "texla_vec_lcp_step");
    float *got = check_alloc((size_t)n, sizeof *got);
    CHECK_OK(ctx, texla_vec_read(ctx, v[6], got), "read dst");
    int bad = 0;
    double worst = 0;
    for (int i = 0; i < n; i++) {
        double vi = (double)x[i] + ((double)w[i] + b[i]) * e[i];
        double ei = 4 * U * (fabs((double)x[i]) + (fabs((double)w[i]) + fabs((double)b[i])) * fabs((double)e[i]));
        double ref = fmax(vi, 0.0), tol = ei;
        int j = (int)fi[i];
        if (j >= 0) {
            double vj = (double)x[j] + ((double)w[j] + b[j]) * e[j];
            double ej = 4 * U * (fabs((double)x[j]) + (fabs((double)w[j]) + fabs((double)b[j])) * fabs((double)e[j]));
            double nj = fmax(vj, 0.0), lim = mu[i] * nj;
            ref = fmax(-lim, fmin(lim, vi));
            tol = ei + mu[i] * ej + 2 * U * lim;
        }
        double d = fabs(got[i] - ref);
        bad += d > tol;
        worst = fmax(worst, tol > 0 ? d / tol : (d > 0 ? INFINITY : 0));
    }
    CHECK(bad == 0, "texla_vec_lcp_step n=%d %s: %d elements off (worst error / bound %.3g)", n,
          bounded ? "bounded" : "plain", bad, worst);
    texla_vec_info vi;
    CHECK_OK(ctx, texla_vec_info_get(ctx, v[6], &vi), "info");
    size_t raw = (size_t)vi.tex_width * vi.tex_height * 4;
    float *r = check_alloc(raw, sizeof *r);
    CHECK_OK(ctx, texla_vec_read_raw(ctx, v[6], r), "read raw");
    size_t nz = 0;
    for (size_t k = 0; k < raw; k++) nz += r[k] != 0;
    size_t live = 0;
    for (int i = 0; i < n; i++) live += got[i] != 0;
    CHECK(nz == live, "texla_vec_lcp_step n=%d: %zu nonzero lanes in the texture, %zu elements "
          "nonzero: padding lanes are not 0", n, nz, live);
    for (int k = 0; k < 7; k++) texla_vec_destroy(ctx, v[k]);
    free(x), free(w), free(b), free(e), free(fi), free(mu), free(got), free(r);
}

static void test_step(void) {
    static const int ns[] = {1, 7, 129, 1000};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        step_case(ns[i], 0);
        step_case(ns[i], 1);
    }
}

/* v's texture holds as many nonzero lanes as its n elements got[] (padding lanes stay 0) */
static void padding_zero(texla_vec v, const float *got, int n, const char *what) {
    texla_vec_info info;
    CHECK_OK(ctx, texla_vec_info_get(ctx, v, &info), "info");
    size_t raw = (size_t)info.tex_width * info.tex_height * 4, nz = 0, live = 0;
    float *rr = check_alloc(raw, sizeof *rr);
    CHECK_OK(ctx, texla_vec_read_raw(ctx, v, rr), "read raw");
    for (size_t t = 0; t < raw; t++) nz += rr[t] != 0;
    for (int i = 0; i < n; i++) live += got[i] != 0;
    CHECK(nz == live, "%s: padding lanes stay 0 (%zu nonzero lanes, %zu elements)", what, nz,
          live);
    free(rr);
}

/* texla_op_lcp_step: dst = project(x + (A x + b) .* e) with A sparse, or A = L R with both
 * sparse (the fused kernels of the compute backend: one pass and two; elsewhere the product
 * and texla_vec_lcp_step), against float64: the product's error g_k (|A| |x|)_i (k the most
 * terms a row sums; a product L R: g_(kL+kR) (|L| |R| |x|)_i) scaled by |e_i|, plus the step's
 * own 4 u of step_case; friction rows add mu_i times their normal row's bound. Rows of 1..~3k
 * entries (lanes 1..32), empty rows, friction rows whose index is their own row or out of
 * range (then normal rows), n = 1, 7, 129, 1000. Compared with the unfused step on the same
 * data, and run twice: bit-identical. Padding lanes stay 0. */
static void opstep_case(int n, int q, int k, int product, int bounded) {
    coo L = coo_random(n, product ? q : n, k), R = coo_random(product ? q : n, n, k / 2 + 1);
    if (n > 100) { /* a long row and an empty one (coo_random gives each row at least one) */
        int keep = 0;
        for (int e = 0; e < L.nnz; e++)
            if (L.r[e] != 3) L.r[keep] = L.r[e], L.c[keep] = L.c[e], L.v[keep++] = L.v[e];
        L.nnz = keep;
    }
    float *x = check_rnd((size_t)n), *b = check_rnd((size_t)n), *e = check_rnd((size_t)n);
    float *fi = check_alloc((size_t)n, 4), *mu = check_alloc((size_t)n, 4);
    for (int i = 0; i < n; i++) {
        fi[i] = bounded && i % 3 ? (float)(i - i % 3) : -1.0f;
        if (bounded && i % 7 == 5) fi[i] = (float)i;  /* its own row */
        if (bounded && i % 11 == 10) fi[i] = (float)n; /* out of range: a normal row */
        mu[i] = bounded && i % 3 ? (float)(0.5 * (check_rand() + 1)) : 0.0f;
        e[i] = -0.5f * fabsf(e[i]) - 0.1f;
    }
    texla_vec vx = {0}, vb = {0}, ve = {0}, vfi = {0}, vmu = {0}, vq = {0}, work = {0}, d1 = {0},
              d2 = {0}, d3 = {0};
    CHECK_OK(ctx, texla_vec_make(ctx, n, x, &vx), "x");
    CHECK_OK(ctx, texla_vec_make(ctx, n, b, &vb), "b");
    CHECK_OK(ctx, texla_vec_make(ctx, n, e, &ve), "e");
    CHECK_OK(ctx, texla_vec_make(ctx, n, fi, &vfi), "index");
    CHECK_OK(ctx, texla_vec_make(ctx, n, mu, &vmu), "mu");
    CHECK_OK(ctx, texla_vec_make(ctx, product ? q : n, NULL, &vq), "mid");
    CHECK_OK(ctx, texla_vec_make(ctx, n, NULL, &work), "work");
    CHECK_OK(ctx, texla_vec_make(ctx, n, NULL, &d1), "dst");
    CHECK_OK(ctx, texla_vec_make(ctx, n, NULL, &d2), "dst 2");
    CHECK_OK(ctx, texla_vec_make(ctx, n, NULL, &d3), "dst 3");
    texla_sparse ls = coo_upload(&L, vx, product ? vq : vx), rs = {0};
    texla_op a = texla_op_sparse(ls);
    if (product) {
        rs = coo_upload(&R, vq, vx);
        CHECK_OK(ctx, texla_op_product(ctx, texla_op_sparse(ls), texla_op_sparse(rs), vq, &a),
                 "texla_op_product");
    }
    texla_vec none = {0}, vi = bounded ? vfi : none, vm = bounded ? vmu : none;
    texla_stats s0, s1;
    texla_ctx_stats(ctx, &s0);
    CHECK_OK(ctx, texla_op_lcp_step(ctx, a, vx, vb, ve, vi, vm, work, d1), "texla_op_lcp_step");
    texla_ctx_stats(ctx, &s1);
    uint64_t passes = s1.passes - s0.passes;
    CHECK_OK(ctx, texla_op_lcp_step(ctx, a, vx, vb, ve, vi, vm, work, d2), "again");
    CHECK_OK(ctx, texla_op_matvec(ctx, a, vx, work), "A x");
    CHECK_OK(ctx, texla_vec_lcp_step(ctx, vx, work, vb, ve, vi, vm, d3), "unfused");
    /* float64: w = A x and |A| |x| */
    double *xd = check_alloc((size_t)n, sizeof *xd), *xa = check_alloc((size_t)n, sizeof *xa);
    double *w = check_alloc((size_t)n, sizeof *w), *wa = check_alloc((size_t)n, sizeof *wa);
    int kl = 0, kr = 0;
    for (int i = 0; i < n; i++) xd[i] = x[i], xa[i] = fabs((double)x[i]);
    if (product) {
        double *m = check_alloc((size_t)q, sizeof *m), *ma = check_alloc((size_t)q, sizeof *ma);
        coo_apply(&R, xd, xa, m, ma, &kr);
        coo_apply(&L, m, ma, w, wa, &kl);
        free(m), free(ma);
    } else {
        coo_apply(&L, xd, xa, w, wa, &kl);
    }
    double g = (kl + kr + 2) * U / (1 - (kl + kr + 2) * U);
    float *got = check_alloc((size_t)n, 4), *got2 = check_alloc((size_t)n, 4),
          *un = check_alloc((size_t)n, 4);
    CHECK_OK(ctx, texla_vec_read(ctx, d1, got), "read");
    CHECK_OK(ctx, texla_vec_read(ctx, d2, got2), "read 2");
    CHECK_OK(ctx, texla_vec_read(ctx, d3, un), "read unfused");
    int bad = 0, badu = 0;
    double worst = 0;
    for (int i = 0; i < n; i++) {
        double vi_ = x[i] + (w[i] + b[i]) * e[i];
        double ei = 4 * U * (fabs((double)x[i]) + (fabs(w[i]) + fabs((double)b[i])) * fabs((double)e[i])) +
                    g * wa[i] * fabs((double)e[i]);
        double ref = fmax(vi_, 0.0), tol = ei;
        int j = (int)fi[i];
        if (bounded && j >= 0 && j < n) {
            double vj = x[j] + (w[j] + b[j]) * e[j];
            double ej = 4 * U * (fabs((double)x[j]) + (fabs(w[j]) + fabs((double)b[j])) * fabs((double)e[j])) +
                        g * wa[j] * fabs((double)e[j]);
            double lim = mu[i] * fmax(vj, 0.0);
            ref = fmax(-lim, fmin(lim, vi_));
            tol = ei + mu[i] * ej + 2 * U * lim;
        }
        double d = fabs(got[i] - ref);
        bad += d > tol;
        badu += fabs((double)un[i] - ref) > tol;
        worst = fmax(worst, tol > 0 ? d / tol : (d > 0 ? INFINITY : 0));
    }
    char what[96];
    snprintf(what, sizeof what, "%s", product ? "L R" : "sparse A");
    CHECK(bad == 0, "texla_op_lcp_step %s n=%d %s: %d elements off (worst error / bound %.3g)",
          what, n, bounded ? "bounded" : "plain", bad, worst);
    CHECK(badu == 0, "unfused step %s n=%d: %d elements off", what, n, badu);
    CHECK(!memcmp(got, got2, sizeof *got * (size_t)n),
          "texla_op_lcp_step %s n=%d: two runs bit-identical", what, n);
    texla_info inf;
    texla_ctx_info(ctx, &inf);
    if (inf.backend == TEXLA_BACKEND_COMPUTE)
        CHECK(passes == (uint64_t)(product ? 2 : 1),
              "texla_op_lcp_step %s on the compute backend: %llu passes (fused: %d)", what,
              (unsigned long long)passes, product ? 2 : 1);
    snprintf(what, sizeof what, "texla_op_lcp_step n=%d", n);
    padding_zero(d1, got, n, what);
    if (product) texla_op_destroy(ctx, a);
    texla_sparse_destroy(ctx, ls), texla_sparse_destroy(ctx, rs);
    texla_vec vs[10] = {vx, vb, ve, vfi, vmu, vq, work, d1, d2, d3};
    for (int i = 0; i < 10; i++) texla_vec_destroy(ctx, vs[i]);
    coo_free(&L), coo_free(&R);
    free(x), free(b), free(e), free(fi), free(mu), free(xd), free(xa), free(w), free(wa);
    free(got), free(got2), free(un);
}

static void test_opstep(void) {
    static const int ns[] = {1, 7, 129, 1000};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (int product = 0; product < 2; product++)
            for (int bounded = 0; bounded < 2; bounded++)
                opstep_case(ns[i], ns[i] / 2 + 3, ns[i] < 100 ? 4 : 12, product, bounded);
    opstep_case(300, 40, 200, 1, 1); /* long rows: 32 lanes */
    opstep_case(200, 150, 2, 0, 1);  /* short rows: 1 lane */
}

/* ---- projected Jacobi over an operator ---- */

typedef struct lcp_problem {
    int n, k;
    coo L, R;          /* L = [D S] (n x (n+k)), R = [D; S'] ((n+k) x n) */
    double *A;         /* n x n, float64 */
    float *Af;         /* the same in float (for the dense runs) */
    float *diag, *b;
    double q;
} lcp_problem;

static lcp_problem lcp_problem_make(int n, int k) {
    lcp_problem P = {n, k, {0}, {0}, NULL, NULL, NULL, NULL, 0};
    coo S = coo_random(n, k, 3);
    P.A = check_alloc((size_t)n * n, sizeof *P.A);
    for (int e = 0; e < S.nnz; e++)
        for (int f = 0; f < S.nnz; f++)
            if (S.c[e] == S.c[f]) P.A[(size_t)S.r[e] * n + S.r[f]] += (double)S.v[e] * S.v[f];
    float *D = check_alloc((size_t)n, sizeof *D);
    for (int i = 0; i < n; i++) {
        double off = 0;
        for (int j = 0; j < n; j++)
            if (j != i) off += fabs(P.A[(size_t)i * n + j]);
        D[i] = (float)sqrt(2 * off + 1.0 + 0.5 * (check_rand() + 1));
        P.A[(size_t)i * n + i] += (double)D[i] * D[i];
        P.q = fmax(P.q, off / P.A[(size_t)i * n + i]);
    }
    int nnz = S.nnz + n;
    P.L = (coo){n, n + k, nnz, check_alloc((size_t)nnz, 4), check_alloc((size_t)nnz, 4),
                check_alloc((size_t)nnz, 4)};
    P.R = (coo){n + k, n, nnz, check_alloc((size_t)nnz, 4), check_alloc((size_t)nnz, 4),
                check_alloc((size_t)nnz, 4)};
    for (int i = 0; i < n; i++) {
        P.L.r[i] = i, P.L.c[i] = i, P.L.v[i] = D[i];
        P.R.r[i] = i, P.R.c[i] = i, P.R.v[i] = D[i];
    }
    for (int e = 0; e < S.nnz; e++) {
        P.L.r[n + e] = S.r[e], P.L.c[n + e] = n + S.c[e], P.L.v[n + e] = S.v[e];
        P.R.r[n + e] = n + S.c[e], P.R.c[n + e] = S.r[e], P.R.v[n + e] = S.v[e];
    }
    P.Af = check_alloc((size_t)n * n, sizeof *P.Af);
    P.diag = check_alloc((size_t)n, sizeof *P.diag);
    for (size_t i = 0; i < (size_t)n * n; i++) P.Af[i] = (float)P.A[i];
    for (int i = 0; i < n; i++) P.diag[i] = (float)P.A[(size_t)i * n + i];
    P.b = check_rnd((size_t)n);
    free(D);
    coo_free(&S);
    return P;
}

static void lcp_problem_free(lcp_problem *P) {
    coo_free(&P->L), coo_free(&P->R);
    free(P->A), free(P->Af), free(P->diag), free(P->b);
}

static uint64_t readbacks(void) {
    texla_stats s;
    texla_ctx_stats(ctx, &s);
    return s.readbacks;
}

/* texla_op_lcp_iterate: `steps` projected Jacobi steps on x in place, A = L R (the JACOBI
 * problem, omega 1) or A alone (L R formed on the host as one sparse matrix), with and without
 * friction rows (the STEP scheme, mu in [0, 1)). Against a float64 run of the same steps: each
 * step's map is Lipschitz in the inf-norm with F = (1 + max mu) max_i sum_j |d_ij + e_i a_ij|
 * (a friction row's bound moves with its normal row), so the float run stays within
 * E_(s+1) = F E_s + eps_s, eps_s the largest of one step's rounding bounds (opstep_case's, at
 * |x_ref| + E_s). Also against the same steps taken one at a time (texla_op_lcp_step); two runs
 * bit-identical; on the compute backend the fused steps' passes (one or two a step, a copy after
 * an odd count); padding lanes stay 0. */
static void iterate_case(int n, int k, int product, int bounded, int steps) {
    lcp_problem P = lcp_problem_make(n, k);
    float *fi = check_alloc((size_t)n, 4), *mu = check_alloc((size_t)n, 4);
    float *x0 = check_rnd((size_t)n), *e = check_alloc((size_t)n, 4);
    double mumax = 0;
    for (int i = 0; i < n; i++) {
        fi[i] = bounded && i % 3 ? (float)(i - i % 3) : -1.0f;
        mu[i] = bounded && i % 3 ? (float)(0.5 * (check_rand() + 1)) : 0.0f;
        mumax = fmax(mumax, mu[i]);
        e[i] = (float)(-1.0 / P.A[(size_t)i * n + i]);
        x0[i] = fabsf(x0[i]);
    }
    /* A alone: L R's entries on the host, row by row */
    coo A1 = {n, n, 0, NULL, NULL, NULL};
    if (!product) {
        int cnt = 0;
        for (size_t t = 0; t < (size_t)n * n; t++) cnt += P.A[t] != 0;
        A1 = (coo){n, n, cnt, check_alloc((size_t)cnt, 4), check_alloc((size_t)cnt, 4),
                   check_alloc((size_t)cnt, 4)};
        cnt = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (P.A[(size_t)i * n + j] != 0)
                    A1.r[cnt] = i, A1.c[cnt] = j, A1.v[cnt++] = (float)P.A[(size_t)i * n + j];
        for (size_t t = 0; t < (size_t)n * n; t++) P.A[t] = 0; /* A as its float entries */
        for (int q = 0; q < cnt; q++) P.A[(size_t)A1.r[q] * n + A1.c[q]] = A1.v[q];
    }
    texla_vec vn = {0}, vm = {0}, vb = {0}, ve = {0}, vfi = {0}, vmu = {0}, w = {0}, x2 = {0},
              xa = {0}, xb = {0}, xc = {0};
    CHECK_OK(ctx, texla_vec_make(ctx, n, NULL, &vn), "vec n");
    CHECK_OK(ctx, texla_vec_make(ctx, n + k, NULL, &vm), "vec n+k");
    CHECK_OK(ctx, texla_vec_make(ctx, n, P.b, &vb), "b");
    CHECK_OK(ctx, texla_vec_make(ctx, n, e, &ve), "e");
    CHECK_OK(ctx, texla_vec_make(ctx, n, fi, &vfi), "index");
    CHECK_OK(ctx, texla_vec_make(ctx, n, mu, &vmu), "mu");
    CHECK_OK(ctx, texla_vec_make(ctx, n, NULL, &w), "work");
    CHECK_OK(ctx, texla_vec_make(ctx, n, NULL, &x2), "x2");
    CHECK_OK(ctx, texla_vec_make(ctx, n, x0, &xa), "x (iterate)");
    CHECK_OK(ctx, texla_vec_make(ctx, n, x0, &xb), "x (again)");
    CHECK_OK(ctx, texla_vec_make(ctx, n, x0, &xc), "x (steps)");
    texla_sparse ls = {0}, rs = {0};
    texla_op a;
    if (product) {
        ls = coo_upload(&P.L, vn, vm);
        rs = coo_upload(&P.R, vm, vn);
        CHECK_OK(ctx, texla_op_product(ctx, texla_op_sparse(ls), texla_op_sparse(rs), vm, &a),
                 "A = L R");
    } else {
        ls = coo_upload(&A1, vn, vn);
        a = texla_op_sparse(ls);
    }
    texla_vec none = {0}, vi = bounded ? vfi : none, vmm = bounded ? vmu : none;
    char what[128];
    snprintf(what, sizeof what, "texla_op_lcp_iterate %s n=%d %s, %d steps",
             product ? "L R" : "sparse A", n, bounded ? "bounded" : "plain", steps);
    texla_stats s0, s1;
    texla_ctx_stats(ctx, &s0);
    CHECK_OK(ctx, texla_op_lcp_iterate(ctx, a, vb, ve, vi, vmm, steps, w, x2, xa), what);
    texla_ctx_stats(ctx, &s1);
    CHECK_OK(ctx, texla_op_lcp_iterate(ctx, a, vb, ve, vi, vmm, steps, w, x2, xb), "again");
    for (int s = 0; s < steps; s++)
        CHECK_OK(ctx, s % 2 ? texla_op_lcp_step(ctx, a, x2, vb, ve, vi, vmm, w, xc)
                            : texla_op_lcp_step(ctx, a, xc, vb, ve, vi, vmm, w, x2), "a step");
    if (steps % 2) CHECK_OK(ctx, texla_vec_copy(ctx, x2, xc), "copy");
    /* float64: the steps, and the bound */
    /* the terms a row sums: L's and R's longest rows, or A's */
    int kmax = 0;
    const coo *ms[2] = {product ? &P.L : &A1, product ? &P.R : NULL};
    for (int m = 0; m < 2 && ms[m]; m++) {
        int *cnt = check_alloc((size_t)ms[m]->rows + 1, sizeof *cnt), most = 0;
        for (int q = 0; q < ms[m]->nnz; q++) most = ++cnt[ms[m]->r[q]] > most ? cnt[ms[m]->r[q]] : most;
        kmax += most;
        free(cnt);
    }
    double rho = 0, g = check_gamma(kmax + 2);
    for (int i = 0; i < n; i++) {
        double r = 0;
        for (int j = 0; j < n; j++) r += fabs((i == j) + (double)e[i] * P.A[(size_t)i * n + j]);
        rho = fmax(rho, r);
    }
    double F = (1 + mumax) * rho, E = 0;
    double *x = check_alloc((size_t)n, 8), *v = check_alloc((size_t)n, 8),
           *eps = check_alloc((size_t)n, 8), *nx_ = check_alloc((size_t)n, 8);
    for (int i = 0; i < n; i++) x[i] = x0[i];
    for (int s = 0; s < steps; s++) {
        double big = 0;
        for (int i = 0; i < n; i++) {
            double wv = 0, wa = 0;
            for (int j = 0; j < n; j++) {
                wv += P.A[(size_t)i * n + j] * x[j];
                wa += fabs(P.A[(size_t)i * n + j]) * (fabs(x[j]) + E);
            }
            v[i] = x[i] + (wv + P.b[i]) * e[i];
            eps[i] = 4 * U * (fabs(x[i]) + E + (fabs(wv) + fabs((double)P.b[i])) * fabs((double)e[i])) +
                     g * wa * fabs((double)e[i]);
        }
        for (int i = 0; i < n; i++) {
            int j = (int)fi[i];
            double ei = eps[i];
            if (bounded && j >= 0 && j < n) {
                double lim = mu[i] * fmax(v[j], 0.0);
                nx_[i] = fmax(-lim, fmin(lim, v[i]));
                ei += mu[i] * eps[j] + 2 * U * lim;
            } else {
                nx_[i] = fmax(v[i], 0.0);
            }
            big = fmax(big, ei);
        }
        memcpy(x, nx_, sizeof *x * (size_t)n);
        E = F * E + big;
    }
    float *ga = check_alloc((size_t)n, 4), *gb = check_alloc((size_t)n, 4),
          *gc = check_alloc((size_t)n, 4);
    CHECK_OK(ctx, texla_vec_read(ctx, xa, ga), "read");
    CHECK_OK(ctx, texla_vec_read(ctx, xb, gb), "read again");
    CHECK_OK(ctx, texla_vec_read(ctx, xc, gc), "read steps");
    double da = 0, dc = 0;
    for (int i = 0; i < n; i++) {
        da = fmax(da, fabs(ga[i] - x[i]));
        dc = fmax(dc, fabs(gc[i] - x[i]));
    }
    CHECK(da <= E, "%s: ||x - x_ref||_inf %.3g > %.3g (F %.3f)", what, da, E, F);
    CHECK(dc <= E, "%s, one step at a time: ||x - x_ref||_inf %.3g > %.3g", what, dc, E);
    CHECK(!memcmp(ga, gb, sizeof *ga * (size_t)n), "%s: two runs bit-identical", what);
    texla_info inf;
    texla_ctx_info(ctx, &inf);
    uint64_t want = (uint64_t)steps * (inf.backend == TEXLA_BACKEND_COMPUTE ? (product ? 2 : 1)
                                                                            : (product ? 5 : 3));
    if (inf.backend == TEXLA_BACKEND_COMPUTE)
        CHECK(s1.passes - s0.passes == want + (steps % 2),
              "%s: %llu passes; %llu expected (the fused steps, a copy after an odd count)", what,
              (unsigned long long)(s1.passes - s0.passes), (unsigned long long)(want + steps % 2));
    padding_zero(xa, ga, n, what);
    printf("  %s: ||x - x_ref|| %.2e (<= %.2e), one step at a time %.2e, %llu passes\n", what, da,
           E, dc, (unsigned long long)(s1.passes - s0.passes));
    if (product) texla_op_destroy(ctx, a);
    texla_sparse_destroy(ctx, ls), texla_sparse_destroy(ctx, rs);
    texla_vec vs[11] = {vn, vm, vb, ve, vfi, vmu, w, x2, xa, xb, xc};
    for (int i = 0; i < 11; i++) texla_vec_destroy(ctx, vs[i]);
    if (!product) coo_free(&A1);
    lcp_problem_free(&P);
    free(fi), free(mu), free(x0), free(e), free(x), free(v), free(eps), free(nx_);
    free(ga), free(gb), free(gc);
}

static void test_iterate(void) {
    /* odd and even step counts, 0 and 1 steps, a larger LCP */
    static const int ns[] = {1, 7, 255, 257};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (int product = 0; product < 2; product++)
            for (int bounded = 0; bounded < 2; bounded++)
                iterate_case(ns[i], ns[i] / 2 + 2, product, bounded, i % 2 ? 7 : 12);
    iterate_case(30, 9, 1, 1, 2);
    iterate_case(30, 9, 0, 0, 1);
    iterate_case(30, 9, 1, 1, 0);
    iterate_case(3000, 5000, 1, 1, 3);
}

/* sparse product or dense A (diagonal computed), against float64 PGS */
static void jacobi_case(int n, int k, int dense, float omega, int iters) {
    lcp_problem P = lcp_problem_make(n, k);
    double *xr = check_alloc((size_t)n, sizeof *xr);
    for (int sweep = 0; sweep < 1000; sweep++) { /* PGS: contracts by q < 1/2 a sweep */
        double change = 0, big = 0;
        for (int i = 0; i < n; i++) {
            double r = P.b[i];
            for (int j = 0; j < n; j++) r += P.A[(size_t)i * n + j] * xr[j];
            double nv = fmax(0.0, xr[i] - r / P.A[(size_t)i * n + i]);
            change = fmax(change, fabs(nv - xr[i])), big = fmax(big, fabs(nv));
            xr[i] = nv;
        }
        if (change <= 1e-15 * fmax(big, 1e-300) && sweep > 2) break;
    }
    texla_vec vn = {0}, vm = {0}, b = {0}, x = {0}, d = {0};
    CHECK_OK(ctx, texla_vec_make(ctx, n, NULL, &vn), "vec n");
    CHECK_OK(ctx, texla_vec_make(ctx, n + k, NULL, &vm), "vec n+k");
    CHECK_OK(ctx, texla_vec_make(ctx, n, P.b, &b), "b");
    CHECK_OK(ctx, texla_vec_make(ctx, n, NULL, &x), "x");
    CHECK_OK(ctx, texla_vec_make(ctx, n, P.diag, &d), "diag");
    texla_sparse ls = {0}, rs = {0};
    texla_mat ad = {0};
    texla_op a = {0, 0};
    if (dense) {
        CHECK_OK(ctx, texla_mat_make(ctx, n, n, P.Af, &ad), "dense A");
        a = texla_op_dense(ad);
    } else {
        ls = coo_upload(&P.L, vn, vm);
        rs = coo_upload(&P.R, vm, vn);
        CHECK_OK(ctx, texla_op_product(ctx, texla_op_sparse(ls), texla_op_sparse(rs), vm, &a),
                 "A = L R");
    }
    texla_lcp_op_desc desc = {.iterations = iters, .omega = omega};
    if (!dense) desc.diag = d;
    char what[128];
    snprintf(what, sizeof what, "texla_lcp_jacobi_op %s n=%d omega %.1f, %d iterations",
             dense ? "dense A, diag computed" : "A = L R sparse", n, (double)omega, iters);
    uint64_t rb0 = readbacks();
    CHECK_OK(ctx, texla_lcp_jacobi_op(ctx, a, b, &desc, x, NULL), what);
    CHECK(readbacks() == rb0, "%s: %llu read-backs with out NULL", what,
          (unsigned long long)(readbacks() - rb0));
    float *xg = check_alloc((size_t)n, sizeof *xg);
    CHECK_OK(ctx, texla_vec_read(ctx, x, xg), "read x");
    int kl = 0, kr = 0;
    {
        double *t = check_alloc((size_t)(n + k), 8), *ta = check_alloc((size_t)(n + k), 8);
        double *y = check_alloc((size_t)n, 8), *ya = check_alloc((size_t)n, 8);
        double *xa = check_alloc((size_t)n, 8);
        for (int i = 0; i < n; i++) xa[i] = fabs(xr[i]);
        coo_apply(&P.R, xr, xa, t, ta, &kr);
        coo_apply(&P.L, t, ta, y, ya, &kl);
        double E = 0, dx = 0, x0d = 0, g = check_gamma((dense ? n : kl + kr) + n + 8);
        for (int i = 0; i < n; i++) {
            double aii = P.A[(size_t)i * n + i];
            E = fmax(E, (omega / aii) * g * (ya[i] + fabs((double)P.b[i])) + U * fabs(xr[i]));
            dx = fmax(dx, fabs(xg[i] - xr[i]));
            x0d = fmax(x0d, fabs(xr[i]));
        }
        double qw = fabs(1.0 - omega) + omega * P.q;
        double tol = pow(qw, iters) * x0d + 2 * E / (1 - qw);
        CHECK(dx <= tol, "%s: ||x - x_pgs||_inf = %.3g > %.3g (q_w %.3f)", what, dx, tol, qw);
        printf("  %s: ||x - x_pgs|| %.2e (<= %.2e)\n", what, dx, tol);
        free(t), free(ta), free(y), free(ya), free(xa);
    }
    /* with a workspace: the same bits; with out: the measures and min_x exact */
    texla_lcp_op_workspace ws = {0};
    CHECK_OK(ctx, texla_lcp_op_workspace_make(ctx, x, &ws), "workspace");
    float *zero = check_alloc((size_t)n, sizeof *zero), *xw = check_alloc((size_t)n, sizeof *xw);
    CHECK_OK(ctx, texla_vec_write(ctx, zero, x), "x = 0");
    desc.workspace = &ws;
    texla_lcp_result out = {.min_x = NAN, .min_w = NAN, .xw = NAN, .max_abs_xw = NAN,
                            .max_friction_excess = NAN, .status = (texla_lcp_status)-1};
    rb0 = readbacks();
    CHECK_OK(ctx, texla_lcp_jacobi_op(ctx, a, b, &desc, x, &out), "with a workspace and out");
    CHECK(readbacks() - rb0 == 3, "%s with out: %llu read-backs, want 3 (x, w and b)", what,
          (unsigned long long)(readbacks() - rb0));
    CHECK_OK(ctx, texla_vec_read(ctx, x, xw), "read x");
    CHECK(memcmp(xw, xg, sizeof *xg * (size_t)n) == 0, "%s: a workspace changes the result", what);
    /* a workspace holding b or x, or one vector twice: refused, b and x unchanged (one holding
     * b overwrote it, and the verdict said solved) */
    {
        texla_vec keep[3] = {ws.v[0], ws.v[1], ws.v[2]}, in[2] = {b, x};
        float *bb = check_alloc((size_t)n, sizeof *bb), *b1 = check_alloc((size_t)n, sizeof *b1);
        CHECK_OK(ctx, texla_vec_read(ctx, b, bb), "read b");
        for (int e = 0; e < 3; e++)
            for (int i = 0; i < 3; i++) {
                ws.v[e] = i < 2 ? in[i] : keep[(e + 1) % 3];
                CHECK_CODE(ctx, texla_lcp_jacobi_op(ctx, a, b, &desc, x, NULL), TEXLA_ERR_ALIAS,
                           i == 0 ? "workspace entry is b" : i == 1 ? "workspace entry is x"
                                                                    : "workspace entry twice");
                ws.v[e] = keep[e];
            }
        CHECK_OK(ctx, texla_vec_read(ctx, b, b1), "read b");
        CHECK_OK(ctx, texla_vec_read(ctx, x, xw), "read x");
        CHECK(memcmp(bb, b1, sizeof *bb * (size_t)n) == 0 &&
                  memcmp(xw, xg, sizeof *xg * (size_t)n) == 0,
              "%s: b or x changed by the refused workspaces", what);
        free(bb), free(b1);
    }
    double mx = INFINITY;
    for (int i = 0; i < n; i++) mx = fmin(mx, xw[i]);
    CHECK((double)out.min_x == mx && out.min_x >= 0, "%s: out.min_x %g, min of x %g", what,
          (double)out.min_x, mx);
    /* the verdict, as texla_lcp_jacobi states it: scale = ||b|| + ||A x|| (float64 here) */
    {
        double bm = 0, axm = 0, xm = 0, mw = INFINITY, mxw = 0;
        for (int i = 0; i < n; i++) {
            double ax = 0;
            for (int j = 0; j < n; j++) ax += P.A[(size_t)i * n + j] * xw[j];
            bm = fmax(bm, fabs((double)P.b[i])), axm = fmax(axm, fabs(ax));
            xm = fmax(xm, fabs((double)xw[i]));
            mw = fmin(mw, ax + P.b[i]), mxw = fmax(mxw, fabs(xw[i] * (ax + P.b[i])));
        }
        double sc = bm + axm, tol0 = fmax(1e-4, 16.0 * sqrt((double)n) * 0x1p-24);
        double rw = mw < 0 ? -mw / sc : 0, rx = mxw / fmax(sc * xm, 1e-30);
        CHECK(fabs(out.scale - sc) <= 1e-4 * sc && out.tol == (float)tol0 &&
                  out.iterations == iters && out.history_len == 0,
              "%s: out.scale %g (float64 %g), tol %g (want %g), iterations %d, history_len %d",
              what, (double)out.scale, sc, (double)out.tol, tol0, out.iterations, out.history_len);
        /* the status follows from the rel_ measures; either side of tol by a clear margin only */
        int want = rw > tol0 || rx > tol0;
        int clear = fabs(fmax(rw, rx) - tol0) > 0.1 * tol0 + 1e-5 * (rw + rx);
        CHECK(!clear || (int)out.status == (want ? TEXLA_LCP_UNSOLVED : TEXLA_LCP_SOLVED),
              "%s: status %s, rel_min_w %.3g (float64 %.3g), rel_xw %.3g (%.3g), tol %.3g", what,
              texla_lcp_status_name(out.status), (double)out.rel_min_w, rw, (double)out.rel_xw,
              rx, tol0);
        printf("  %s: verdict %s (rel_min_w %.2e, rel_xw %.2e, tol %.1e)\n", what,
               texla_lcp_status_name(out.status), (double)out.rel_min_w, (double)out.rel_xw,
               tol0);
    }
    texla_lcp_op_workspace_destroy(ctx, &ws);
    texla_op_destroy(ctx, a);
    texla_sparse_destroy(ctx, ls), texla_sparse_destroy(ctx, rs), texla_mat_destroy(ctx, ad);
    texla_vec_destroy(ctx, vn), texla_vec_destroy(ctx, vm), texla_vec_destroy(ctx, b);
    texla_vec_destroy(ctx, x), texla_vec_destroy(ctx, d);
    free(xr), free(xg), free(zero), free(xw);
    lcp_problem_free(&P);
}

/* the bounded variant over A = L R against texla_lcp_jacobi on the dense A */
static void bounded_case(int n, int k) {
    int m = 3 * n; /* contacts: a normal row and two friction rows each */
    lcp_problem P = lcp_problem_make(m, k);
    float *fi = check_alloc((size_t)m, 4), *mu = check_alloc((size_t)m, 4);
    for (int i = 0; i < m; i++) {
        fi[i] = i % 3 ? (float)(i - i % 3) : -1.0f;
        mu[i] = i % 3 ? 0.6f : 0.0f;
        if (i % 3 == 0) P.b[i] = -fabsf(P.b[i]) - 0.1f; /* pressed: friction has room */
    }
    texla_vec vm = {0}, vk = {0}, b = {0}, x = {0}, d = {0}, vfi = {0}, vmu = {0};
    CHECK_OK(ctx, texla_vec_make(ctx, m, NULL, &vm), "vec m");
    CHECK_OK(ctx, texla_vec_make(ctx, m + k, NULL, &vk), "vec m+k");
    CHECK_OK(ctx, texla_vec_make(ctx, m, P.b, &b), "b");
    CHECK_OK(ctx, texla_vec_make(ctx, m, NULL, &x), "x");
    CHECK_OK(ctx, texla_vec_make(ctx, m, P.diag, &d), "diag");
    CHECK_OK(ctx, texla_vec_make(ctx, m, fi, &vfi), "index");
    CHECK_OK(ctx, texla_vec_make(ctx, m, mu, &vmu), "mu");
    texla_sparse ls = coo_upload(&P.L, vm, vk), rs = coo_upload(&P.R, vk, vm);
    texla_op a = {0, 0};
    CHECK_OK(ctx, texla_op_product(ctx, texla_op_sparse(ls), texla_op_sparse(rs), vk, &a), "A");
    const int iters = 200;
    const float omega = 0.7f;
    texla_lcp_op_desc desc = {.iterations = iters, .omega = omega, .diag = d,
                              .friction_index = vfi, .friction_mu = vmu};
    texla_lcp_result out;
    CHECK_OK(ctx, texla_lcp_jacobi_op(ctx, a, b, &desc, x, &out), "bounded texla_lcp_jacobi_op");
    float *xs = check_alloc((size_t)m, 4), *xd = check_alloc((size_t)m, 4);
    CHECK_OK(ctx, texla_vec_read(ctx, x, xs), "read x");
    texla_mat ma = {0}, mb = {0}, mx = {0}, mfi = {0}, mmu = {0};
    CHECK_OK(ctx, texla_mat_make(ctx, m, m, P.Af, &ma), "dense A");
    CHECK_OK(ctx, texla_mat_make(ctx, m, 1, P.b, &mb), "dense b");
    CHECK_OK(ctx, texla_mat_make(ctx, m, 1, NULL, &mx), "dense x");
    CHECK_OK(ctx, texla_mat_make(ctx, m, 1, fi, &mfi), "dense index");
    CHECK_OK(ctx, texla_mat_make(ctx, m, 1, mu, &mmu), "dense mu");
    texla_lcp_desc dd = {.iterations = iters, .omega = omega, .friction_index = mfi,
                         .friction_mu = mmu};
    texla_lcp_result dout;
    CHECK_OK(ctx, texla_lcp_jacobi(ctx, ma, mb, &dd, mx, &dout), "texla_lcp_jacobi (dense)");
    CHECK(out.status == dout.status && out.status == TEXLA_LCP_SOLVED &&
              fabsf(out.scale - dout.scale) <= 1e-3f * dout.scale,
          "bounded LCP: status %s (dense: %s), scale %g (dense %g)",
          texla_lcp_status_name(out.status), texla_lcp_status_name(dout.status),
          (double)out.scale, (double)dout.scale);
    /* one iteration from 0 leaves it unsolved, and says so */
    texla_lcp_op_desc one = desc;
    one.iterations = 1;
    texla_lcp_result o1;
    float *zm = check_alloc((size_t)m, 4);
    CHECK_OK(ctx, texla_vec_write(ctx, zm, x), "x = 0");
    CHECK_OK(ctx, texla_lcp_jacobi_op(ctx, a, b, &one, x, &o1), "bounded, 1 iteration");
    CHECK(o1.status == TEXLA_LCP_UNSOLVED && o1.iterations == 1,
          "bounded LCP after 1 iteration: status %s (rel_min_w %g, rel_xw %g), iterations %d",
          texla_lcp_status_name(o1.status), (double)o1.rel_min_w, (double)o1.rel_xw,
          o1.iterations);
    free(zm);
    CHECK_OK(ctx, texla_mat_read(ctx, mx, xd), "read dense x");
    double dmax = 0, xmax = 0, fex = 0;
    int at_bound = 0, inside = 0;
    for (int i = 0; i < m; i++) {
        dmax = fmax(dmax, fabs((double)xs[i] - xd[i])), xmax = fmax(xmax, fabs((double)xd[i]));
        if (i % 3) {
            double lim = mu[i] * fmax(xs[i - i % 3], 0.0f);
            fex = fmax(fex, fabs((double)xs[i]) - lim * (1 + 2 * U));
            at_bound += fabs((double)xs[i]) >= lim * (1 - 1e-5) && lim > 0;
            inside += fabs((double)xs[i]) < lim * (1 - 1e-5);
        }
    }
    CHECK(xmax > 0 && dmax <= 1e-4 * xmax, "bounded LCP %d rows: |x_op - x_dense| %.3g of "
          "||x|| %.3g", m, dmax, xmax);
    CHECK(fex <= 0, "bounded LCP: friction outside its cone by %.3g", fex);
    CHECK(out.min_x >= 0 && out.max_friction_excess <= 1e-6f * (float)xmax,
          "bounded LCP: out.min_x %g, friction excess %g", (double)out.min_x,
          (double)out.max_friction_excess);
    CHECK(at_bound > 0 && inside > 0, "bounded LCP: %d friction rows at the bound, %d inside "
          "(the case should have both)", at_bound, inside);
    printf("  bounded, A = L R (%d rows): against texla_lcp_jacobi on the dense A max |dx| %.2e of "
           "%.2e; %d friction rows at the bound, %d inside\n", m, dmax, xmax, at_bound, inside);
    texla_op_destroy(ctx, a);
    texla_sparse_destroy(ctx, ls), texla_sparse_destroy(ctx, rs);
    texla_vec vs[7] = {vm, vk, b, x, d, vfi, vmu};
    for (int i = 0; i < 7; i++) texla_vec_destroy(ctx, vs[i]);
    texla_mat ms[5] = {ma, mb, mx, mfi, mmu};
    for (int i = 0; i < 5; i++) texla_mat_destroy(ctx, ms[i]);
    free(fi), free(mu), free(xs), free(xd);
    lcp_problem_free(&P);
}

static void test_jacobi(void) {
    jacobi_case(1, 1, 0, 1.0f, 50);
    jacobi_case(64, 40, 0, 0.7f, 300);
    jacobi_case(257, 129, 0, 1.0f, 200);
    jacobi_case(64, 40, 1, 0.7f, 300);
    bounded_case(43, 60);
}

/* ---- errors ---- */

static void test_errors(void) {
    texla_vec v5 = {0}, v6 = {0}, v5b = {0}, v5c = {0}, v5d = {0};
    CHECK_OK(ctx, texla_vec_make(ctx, 5, NULL, &v5), "v5");
    CHECK_OK(ctx, texla_vec_make(ctx, 6, NULL, &v6), "v6");
    CHECK_OK(ctx, texla_vec_make(ctx, 5, NULL, &v5b), "v5b");
    CHECK_OK(ctx, texla_vec_make(ctx, 5, NULL, &v5c), "v5c");
    CHECK_OK(ctx, texla_vec_make(ctx, 5, NULL, &v5d), "v5d");
    int r[2] = {0, 4}, c[2] = {1, 5};
    float val[2] = {1, 2};
    texla_sparse s56 = {0}, s65 = {0}, s55 = {0};
    CHECK_OK(ctx, texla_sparse_make_coo(ctx, v5, v6, 2, r, c, val, &s56), "5x6");
    CHECK_OK(ctx, texla_sparse_make_coo(ctx, v6, v5, 2, c, r, val, &s65), "6x5");
    CHECK_OK(ctx, texla_sparse_make_coo(ctx, v5, v5, 2, r, r, val, &s55), "5x5");
    texla_op a = {0, 0}, bad = {0, 0};
    CHECK_CODE(ctx, texla_op_product(ctx, texla_op_sparse(s56), texla_op_sparse(s65), v6, NULL),
               TEXLA_ERR_ARGUMENT, "texla_op_product out NULL");
    texla_op wrong = {(texla_op_kind)9, s56.id};
    CHECK_CODE(ctx, texla_op_product(ctx, wrong, texla_op_sparse(s65), v6, &a), TEXLA_ERR_ARGUMENT,
               "texla_op_product kind 9");
    CHECK_CODE(ctx, texla_op_product(ctx, texla_op_sparse(s56), texla_op_sparse(s56), v6, &a),
               TEXLA_ERR_SHAPE, "texla_op_product 5x6 . 5x6");
    CHECK_CODE(ctx, texla_op_product(ctx, texla_op_sparse(s56), texla_op_sparse(s65), v5, &a),
               TEXLA_ERR_SHAPE, "texla_op_product mid of 5 for 6");
    CHECK_CODE(ctx, texla_op_product(ctx, texla_op_sparse(s56), texla_op_sparse(s65),
                                     (texla_vec){0}, &a), TEXLA_ERR_HANDLE, "mid 0");
    CHECK_OK(ctx, texla_op_product(ctx, texla_op_sparse(s56), texla_op_sparse(s65), v6, &a),
             "5x6 . 6x5");
    CHECK_CODE(ctx, texla_op_matvec(ctx, a, v6, v5), TEXLA_ERR_ALIAS, "product: x is mid");
    CHECK_CODE(ctx, texla_op_matvec(ctx, a, v5, v5b), TEXLA_OK, "product: fine");
    {
        /* a mid inside the left factor, as x or y: written while the product is applied (x
         * used to be overwritten after it was read, with TEXLA_OK) */
        texla_op in = {0, 0}, out = {0, 0};
        CHECK_OK(ctx, texla_op_product(ctx, a, texla_op_sparse(s55), v5d, &in), "(a s55)");
        CHECK_OK(ctx, texla_op_product(ctx, in, texla_op_sparse(s55), v5c, &out), "(a s55) s55");
        CHECK_CODE(ctx, texla_op_matvec(ctx, out, v5d, v5b), TEXLA_ERR_ALIAS,
                   "nested product: x is the left factor's mid");
        CHECK_CODE(ctx, texla_op_matvec(ctx, out, v5b, v5d), TEXLA_ERR_ALIAS,
                   "nested product: y is the left factor's mid");
        CHECK_CODE(ctx, texla_op_matvec(ctx, out, v5, v5b), TEXLA_OK, "nested product: fine");
        texla_op_destroy(ctx, out), texla_op_destroy(ctx, in);
        /* a product of a product over the same mid (which no application could run) */
        CHECK_OK(ctx, texla_op_product(ctx, a, texla_op_sparse(s55), v5d, &in), "(a s55)");
        texla_op nest = {0, 0};
        CHECK_CODE(ctx, texla_op_product(ctx, in, texla_op_sparse(s55), v5d, &nest),
                   TEXLA_ERR_ALIAS, "nested product over its part's mid");
        texla_op_destroy(ctx, in);
        /* products nest at most 64 deep (a mid of its own at each level); texla_op_writes sees
         * the innermost mid */
        texla_vec mids[65] = {{0}};
        for (int i = 1; i < 65; i++) texla_vec_make(ctx, 5, NULL, &mids[i]);
        mids[0] = v5d;
        texla_op chain[65];
        int made = 0;
        texla_result rc = TEXLA_OK;
        for (; made < 65 && !rc; made++)
            rc = texla_op_product(ctx, texla_op_sparse(s55),
                                  made ? chain[made - 1] : texla_op_sparse(s55), mids[made],
                                  &chain[made]);
        CHECK(made == 65 && rc == TEXLA_ERR_LIMIT && strstr(texla_error_message(ctx), "64"),
              "a chain of products: the %dth returned %s (%s); expected the 65th to be refused "
              "naming 64", made, texla_result_name(rc), texla_error_message(ctx));
        int w = 0;
        CHECK_OK(ctx, texla_op_writes(ctx, chain[63], v5d, &w), "texla_op_writes, 64 deep");
        CHECK(w == 1, "texla_op_writes of the innermost mid 64 products deep: %d, expected 1", w);
        for (int i = 0; i < 64; i++) texla_op_destroy(ctx, chain[i]);
        /* one operator named twice at each level (P = Q Q): one application doubles at each;
         * at most 2^20 matrix products an application (TEXLA_ERR_LIMIT), and texla_op_writes
         * walks each product once (it took 2^depth steps) */
        texla_op dag[24];
        int nd = 0;
        rc = TEXLA_OK;
        for (; nd < 24 && !rc; nd++)
            rc = texla_op_product(ctx, nd ? dag[nd - 1] : texla_op_sparse(s55),
                                  nd ? dag[nd - 1] : texla_op_sparse(s55), mids[nd], &dag[nd]);
        /* level k makes 2^(k+1) products: level 20 (the 21st) is the first past 2^20 */
        CHECK(nd == 21 && rc == TEXLA_ERR_LIMIT && strstr(texla_error_message(ctx), "1048576"),
              "products naming one operator twice: the %dth returned %s (%s); expected the 21st "
              "refused", nd, texla_result_name(rc), texla_error_message(ctx));
        double t0 = check_now();
        w = 0;
        if (nd >= 2)
            CHECK_OK(ctx, texla_op_writes(ctx, dag[nd - 2], v5d, &w), "texla_op_writes of a DAG");
        CHECK(w == 1 && check_now() - t0 < 1.0, "texla_op_writes through %d levels of a shared "
              "operator: %d in %.2f s", nd - 1, w, check_now() - t0);
        for (int i = 0; i + 1 < nd; i++) texla_op_destroy(ctx, dag[i]);
        for (int i = 1; i < 65; i++) texla_vec_destroy(ctx, mids[i]);
    }
    /* the LCP over it */
    texla_lcp_op_desc d = {.iterations = 3, .diag = v5c};
    CHECK_CODE(ctx, texla_lcp_jacobi_op(ctx, texla_op_sparse(s56), v5, &d, v5b, NULL),
               TEXLA_ERR_SHAPE, "lcp op: 5x6 operator");
    CHECK_CODE(ctx, texla_lcp_jacobi_op(ctx, a, v6, &d, v5b, NULL), TEXLA_ERR_SHAPE,
               "lcp op: b of 6");
    CHECK_CODE(ctx, texla_lcp_jacobi_op(ctx, a, v5, &d, v5, NULL), TEXLA_ERR_ALIAS,
               "lcp op: x is b");
    CHECK_CODE(ctx, texla_lcp_jacobi_op(ctx, a, v5, &d, v5c, NULL), TEXLA_ERR_ALIAS,
               "lcp op: x is diag");
    texla_lcp_op_desc nod = {.iterations = 3};
    CHECK_CODE(ctx, texla_lcp_jacobi_op(ctx, a, v5, &nod, v5b, NULL), TEXLA_ERR_ARGUMENT,
               "lcp op: no diag for a product");
    texla_lcp_op_desc neg = {.iterations = -1, .diag = v5c};
    CHECK_CODE(ctx, texla_lcp_jacobi_op(ctx, a, v5, &neg, v5b, NULL), TEXLA_ERR_ARGUMENT,
               "lcp op: iterations -1");
    texla_lcp_op_desc half = {.iterations = 3, .diag = v5c, .friction_index = v5d};
    CHECK_CODE(ctx, texla_lcp_jacobi_op(ctx, a, v5, &half, v5b, NULL), TEXLA_ERR_HANDLE,
               "lcp op: index without mu");
    texla_lcp_op_desc badtol = {.iterations = 3, .diag = v5c, .tol = -1};
    CHECK_CODE(ctx, texla_lcp_jacobi_op(ctx, a, v5, &badtol, v5b, NULL), TEXLA_ERR_ARGUMENT,
               "lcp op: tol -1");
    badtol.tol = NAN;
    CHECK_CODE(ctx, texla_lcp_jacobi_op(ctx, a, v5, &badtol, v5b, NULL), TEXLA_ERR_ARGUMENT,
               "lcp op: tol NaN");
    { /* friction indices, checked with the measures: each names a normal row */
        static const float bads[4][5] = {{-1, 0, 0.5f, -1, -1},  /* not an integer */
                                         {-1, 0, 5, -1, -1},     /* past the last row */
                                         {-1, 1, -1, -1, -1},    /* its own row */
                                         {-1, 0, 1, -1, -1}};    /* a friction row */
        static const char *const why[4] = {"0.5", "5 past the end", "own row", "a friction row"};
        float ones[5] = {1, 1, 1, 1, 1};
        CHECK_OK(ctx, texla_vec_write(ctx, ones, v5c), "diag 1");
        for (int t = 0; t < 4; t++) {
            CHECK_OK(ctx, texla_vec_write(ctx, bads[t], v5d), "index");
            texla_lcp_op_desc fd = {.iterations = 2, .diag = v5c, .friction_index = v5d,
                                    .friction_mu = v5c};
            texla_lcp_result o;
            CHECK_CODE(ctx, texla_lcp_jacobi_op(ctx, a, v5, &fd, v5b, &o), TEXLA_ERR_ARGUMENT,
                       why[t]);
            CHECK(strstr(texla_error_message(ctx), "friction_index[") != NULL,
                  "lcp op friction index %s: message '%s' names no row", why[t],
                  texla_error_message(ctx));
        }
        /* one without the other: named as missing */
        texla_lcp_op_desc oi = {.iterations = 2, .diag = v5c, .friction_index = v5d};
        CHECK_CODE(ctx, texla_lcp_jacobi_op(ctx, a, v5, &oi, v5b, NULL), TEXLA_ERR_HANDLE,
                   "lcp op: friction_index without friction_mu");
        CHECK(strstr(texla_error_message(ctx), "friction_mu is the null handle") != NULL,
              "lcp op: friction_index without friction_mu: '%s'", texla_error_message(ctx));
    }
    texla_lcp_op_workspace ws6 = {0};
    CHECK_OK(ctx, texla_lcp_op_workspace_make(ctx, v6, &ws6), "workspace of 6");
    texla_lcp_op_desc wsd = {.iterations = 3, .diag = v5c, .workspace = &ws6};
    CHECK_CODE(ctx, texla_lcp_jacobi_op(ctx, a, v5, &wsd, v5b, NULL), TEXLA_ERR_SHAPE,
               "lcp op: workspace of 6 for 5");
    texla_lcp_op_workspace_destroy(ctx, &ws6);
    /* the step */
    texla_vec none = {0};
    CHECK_CODE(ctx, texla_vec_lcp_step(ctx, v5, v5b, v5c, v5d, none, none, v5), TEXLA_ERR_ALIAS,
               "step: dst is x");
    CHECK_CODE(ctx, texla_vec_lcp_step(ctx, v5, v5b, v5c, v6, none, none, v5d), TEXLA_ERR_SHAPE,
               "step: e of 6");
    CHECK_CODE(ctx, texla_vec_lcp_step(ctx, v5, v5b, v5c, v5d, v5b, none, v6), TEXLA_ERR_HANDLE,
               "step: index without mu");
    /* a factor destroyed: the product names nothing */
    texla_sparse_destroy(ctx, s65);
    CHECK_CODE(ctx, texla_op_matvec(ctx, a, v5, v5b), TEXLA_ERR_HANDLE, "product of a destroyed "
               "factor");
    texla_op_destroy(ctx, a);
    CHECK_CODE(ctx, texla_op_matvec(ctx, a, v5, v5b), TEXLA_ERR_HANDLE, "destroyed product");
    int rows, cols;
    CHECK_CODE(ctx, texla_op_shape(ctx, a, &rows, &cols), TEXLA_ERR_HANDLE, "shape of it");
    texla_op_destroy(ctx, a);   /* stale: no-op */
    texla_op_destroy(ctx, bad); /* 0: no-op */
    texla_op_destroy(ctx, texla_op_sparse(s55)); /* a matrix kind: no-op */
    CHECK_CODE(ctx, texla_op_matvec(ctx, texla_op_sparse(s55), v5, v5b), TEXLA_OK,
               "texla_op_destroy left the sparse matrix alone");
    texla_sparse_destroy(ctx, s56), texla_sparse_destroy(ctx, s55);
    texla_vec vs[5] = {v5, v6, v5b, v5c, v5d};
    for (int i = 0; i < 5; i++) texla_vec_destroy(ctx, vs[i]);
}

/* the product's mid as b, x or diag of texla_lcp_jacobi_op: refused before anything is
 * written (the first product would overwrite it) */
static void test_mid_alias(void) {
    const int n = 4;
    int ri[4] = {0, 1, 2, 3};
    float one[4] = {1, 1, 1, 1}, two[4] = {2, 2, 2, 2}, bv[4] = {-1, 2, -3, 4};
    texla_vec b = {0}, x = {0}, mid = {0}, dg = {0};
    texla_sparse l = {0}, r = {0};
    texla_op a = {0, 0};
    if (!CHECK_OK(ctx, texla_vec_make(ctx, n, bv, &b), "mid alias: b") ||
        !CHECK_OK(ctx, texla_vec_make(ctx, n, NULL, &x), "mid alias: x") ||
        !CHECK_OK(ctx, texla_vec_make(ctx, n, bv, &mid), "mid alias: mid") ||
        !CHECK_OK(ctx, texla_vec_make(ctx, n, two, &dg), "mid alias: diag") ||
        !CHECK_OK(ctx, texla_sparse_make_coo(ctx, b, b, n, ri, ri, one, &l), "mid alias: L = I") ||
        !CHECK_OK(ctx, texla_sparse_make_coo(ctx, b, b, n, ri, ri, two, &r), "mid alias: R = 2I") ||
        !CHECK_OK(ctx, texla_op_product(ctx, texla_op_sparse(l), texla_op_sparse(r), mid, &a),
                  "mid alias: A = L R"))
        goto out;
    texla_lcp_op_desc d = {.iterations = 5, .diag = dg};
    float before[4], after[4];
    CHECK_OK(ctx, texla_vec_read(ctx, mid, before), "mid alias: read mid");
    CHECK_CODE(ctx, texla_lcp_jacobi_op(ctx, a, mid, &d, x, NULL), TEXLA_ERR_ALIAS,
               "texla_lcp_jacobi_op: b is the product's mid");
    CHECK_CODE(ctx, texla_lcp_jacobi_op(ctx, a, b, &d, mid, NULL), TEXLA_ERR_ALIAS,
               "texla_lcp_jacobi_op: x is the product's mid");
    d.diag = mid;
    CHECK_CODE(ctx, texla_lcp_jacobi_op(ctx, a, b, &d, x, NULL), TEXLA_ERR_ALIAS,
               "texla_lcp_jacobi_op: diag is the product's mid");
    CHECK_OK(ctx, texla_vec_read(ctx, mid, after), "mid alias: read mid");
    CHECK(!memcmp(before, after, sizeof before), "texla_lcp_jacobi_op: mid changed by refused calls");
    /* and the same call with b of its own solves: A = 2I, x = max(0, -b / 2) */
    d.diag = dg;
    float X[4];
    if (CHECK_OK(ctx, texla_lcp_jacobi_op(ctx, a, b, &d, x, NULL), "mid alias: a proper call") &&
        CHECK_OK(ctx, texla_vec_read(ctx, x, X), "mid alias: read x"))
        CHECK(X[0] == 0.5f && X[1] == 0 && X[2] == 1.5f && X[3] == 0,
              "A = 2I: x = %g %g %g %g, want 0.5 0 1.5 0", X[0], X[1], X[2], X[3]);
out:
    texla_op_destroy(ctx, a);
    texla_sparse_destroy(ctx, l), texla_sparse_destroy(ctx, r);
    texla_vec_destroy(ctx, b), texla_vec_destroy(ctx, x), texla_vec_destroy(ctx, mid);
    texla_vec_destroy(ctx, dg);
}

void suite_lcp_op(void) {
    ctx = suite_ctx(NULL);
    if (!ctx) return;
    test_product();
    test_step();
    test_opstep();
    test_iterate();
    test_jacobi();
    test_errors();
    test_mid_alias();
    texla_ctx_destroy(ctx);
    ctx = NULL;
}
