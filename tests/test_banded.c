/* test_banded.c - banded and random sparse matrix-vector products of texla.h against float64
 * CPU references on fresh random data (the seed is printed by main), through the public API.
 *
 * BANDED (texla_banded_make: row k holds A(k, k + d) = diags[i n + k] for offset d = offsets[i];
 * indices are element numbers, so on a grid vector element k is cell (k mod nx, k div nx) and an
 * offset can carry from the end of a grid row into the next one). Vectors: plain of lengths 1,
 * 7, 9, 13, 97, 257, 1001 and grids 3x3, 7x5, 13x11, 1x9, 9x1, 8x6, 64x63 (odd nx: the padding
 * column cx = nx lies between the end of a row and the start of the next). Offsets, with W the
 * row width in element numbers (gx for plain vectors, nx for grid vectors): every single
 * diagonal 0, +-1, +-2, +-3, +-W, +-(W+1), +-(W-1), +-2W, +-(2W+3), 3W+2, -(3W+1), and for grids
 * +-gx, +-(gx+1) too (so every parity of the x and y shift and every 2x2 alignment), the sets
 * {5,-7,0,3}, {1,-1,0}, {W,-W,1,-1,0}, {3,-3}, {W+1,-(W+1),W-1,-(W-1)}, {0..6} (more diagonals
 * than one pass takes), and the full matrix (all offsets -(n-1)..n-1) for n <= 13. Entries whose
 * column is out of range hold garbage (huge finite values; in one case per shape NaN and Inf),
 * which must have no effect. y starts with garbage and must be overwritten.
 * Poisson (texla_banded_poisson) against a CPU 5-point Laplacian with Dirichlet boundaries on
 * grids 1x1, 3x3, 7x5, 1x6, 5x8, 64x63 for (alpha, beta) = (0, 1), (2, -0.3), (1, 0.15).
 *
 * SPARSE (texla_sparse_make_coo / _csr): rows x cols = 1x1, 5x7, 7x5, 257x100, 100x257,
 * 1000x1000 and a grid-layout 35x27 (rows like a 7x5 grid, columns like a 9x3 grid). Rows hold
 * 0..9 entries (so groups of four split every way), larger ones ~10 on average and one row of
 * 37; duplicates (summed) and empty rows throughout; random columns; COO entries shuffled. Also
 * a matrix with no entries at all.
 *
 * After every product y is read back raw: padding lanes must be 0 and texla_vec_read must agree
 * with the documented layout (see test_vec.c).
 *
 * TOLERANCES (u = 2^-24, g_k = k u / (1 - k u); Higham 3.1/3.5; never tuned): a row of k terms
 * (products of a stored value and an element of x, plus s b for the _add form) summed in any
 * order, blocks or blending: |y_i - ref_i| <= g_k sum |terms|, asserted with a factor 1.01 for
 * the float64 reference. Banded: k = the number of diagonals (+1 with s b). Sparse: k = the
 * row's entries, duplicates counted (summing a duplicate first costs one rounding, the same
 * as one more term). Poisson: the diagonal alpha + 4 beta is one rounding, then 5 products and
 * 4 sums, or alpha x + beta (4x - sum): in both forms a term sees <= 6 roundings, so g_6 times
 * |alpha||x_k| + |beta| (4|x_k| + sum |x_nb|) (g_7 with s b).
 */
#include "suites.h"
#include "testutil.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static texla_ctx *ctx;

#define U CHECK_U

/* ---- banded ---- */

#define S_ADD (-0.61803399f) /* s of y = A x + s b */
#define GARBAGE() ((float)(1e30 * check_rand() + 12345.0))

static double band_worst[2];
static int band_cases, band_sets;

static void set_str(char *buf, size_t size, int nd, const int *offs) {
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < nd && len + 16 < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%d", i ? "," : "{", offs[i]);
    if (len + 2 < size) snprintf(buf + len, size - len, "}");
    if (nd > 12) snprintf(buf, size, "{all %d offsets %d..%d}", nd, offs[0], offs[nd - 1]);
}

/* one banded matrix on shape s: y = A x and y = A x + s b (b = x too when b_is_x) */
static void band_case(vshape s, int nd, const int *offs, int nan_garbage, int b_is_x) {
    size_t n = (size_t)s.n;
    char sets[160], what[320];
    set_str(sets, sizeof sets, nd, offs);
    float *diags = check_alloc((size_t)nd * n, sizeof *diags), *X = check_rnd(n),
          *Bv = check_rnd(n),
          *Y0 = check_rnd(n), *got = check_alloc(n, sizeof *got);
    double *ref = check_alloc(n, sizeof *ref), *bnd = check_alloc(n, sizeof *bnd);
    for (size_t k = 0; k < n; k++) Y0[k] *= 1e6f;
    for (int i = 0; i < nd; i++)
        for (size_t k = 0; k < n; k++) {
            long col = (long)k + offs[i];
            float *d = &diags[(size_t)i * n + k];
            if (col >= 0 && col < (long)n) *d = (float)check_rand();
            else if (nan_garbage)
                *d = (k + (size_t)i) % 3 == 0 ? NAN : (k % 2 ? INFINITY : -INFINITY);
            else *d = GARBAGE();
        }
    texla_vec like = mkv(s, NULL, "banded: like"), x = mkv(s, X, "banded: x"),
              b = mkv(s, Bv, "banded: b"), y = mkv(s, Y0, "banded: y");
    texla_banded a = {0};
    snprintf(what, sizeof what, "texla_banded_make %s offsets %s%s", sname(s).s, sets,
             nan_garbage ? " (NaN/Inf garbage out of range)" : "");
    texla_result r = texla_banded_make(ctx, like, nd, offs, diags, &a);
    CHECK(r == TEXLA_OK && a.id != 0, "%s: %s: %s", what, texla_result_name(r),
          texla_error_message(ctx));
    if (r) goto done;
    texla_vec_destroy(ctx, like); /* the matrix must not depend on its layout vector */
    like.id = 0;
    for (int form = 0; form < 2; form++) {
        const float *bb = b_is_x ? X : Bv;
        int k = nd + form;
        for (size_t e = 0; e < n; e++) {
            double acc = 0, mag = 0;
            for (int i = 0; i < nd; i++) {
                long col = (long)e + offs[i];
                if (col < 0 || col >= (long)n) continue;
                double t = (double)diags[(size_t)i * n + e] * X[col];
                acc += t, mag += fabs(t);
            }
            if (form) {
                double t = (double)S_ADD * bb[e];
                acc += t, mag += fabs(t);
            }
            ref[e] = acc, bnd[e] = 1.01 * check_gamma(k) * mag;
        }
        snprintf(what, sizeof what, "%s %s offsets %s%s", form ? "texla_banded_matvec_add" :
                 "texla_banded_matvec", sname(s).s, sets, nan_garbage ? " (NaN/Inf garbage out of "
                 "range)" : form && b_is_x ? " (b = x)" : "");
        CHECK_OK(ctx, texla_vec_write(ctx, Y0, y), what);
        r = form ? texla_banded_matvec_add(ctx, a, x, S_ADD, b_is_x ? x : b, y)
                 : texla_banded_matvec(ctx, a, x, y);
        CHECK_OK(ctx, r, what);
        if (r || vfetch(y, s, got, what)) continue;
        double w = expect_bound(got, ref, bnd, n, what, form ? "1.01 g_(nd+1) sum|terms|"
                                                             : "1.01 g_nd sum|terms|");
        if (w > band_worst[form]) band_worst[form] = w;
    }
    band_cases++;
    expect_holds(x, s, X, "banded: x unchanged");
done:
    texla_banded_destroy(ctx, a);
    texla_vec_destroy(ctx, like);
    texla_vec_destroy(ctx, x);
    texla_vec_destroy(ctx, b);
    texla_vec_destroy(ctx, y);
    free(diags), free(X), free(Bv), free(Y0), free(got), free(ref), free(bnd);
}

/* keeps the offsets with |d| < n, each once; returns how many */
static int filter_set(const int *in, int m, int n, int *out) {
    int k = 0;
    for (int i = 0; i < m; i++) {
        if (in[i] <= -n || in[i] >= n) continue;
        int dup = 0;
        for (int j = 0; j < k; j++) dup |= out[j] == in[i];
        if (!dup) out[k++] = in[i];
    }
    return k;
}

static void band_shape(vshape s) {
    texla_vec v = mkv(s, NULL, "banded: layout probe");
    texla_vec_info inf;
    if (vinfo(v, s, &inf, "banded: layout probe")) {
        texla_vec_destroy(ctx, v);
        return;
    }
    texla_vec_destroy(ctx, v);
    int n = s.n, W = s.grid ? s.nx : inf.gx, gx = inf.gx;
    int singles[] = {0, 1, -1, 2, -2, 3, -3, W, -W, W + 1, -W - 1, W - 1, -(W - 1), 2 * W,
                     -2 * W, 2 * W + 3, -2 * W - 3, 3 * W + 2, -(3 * W + 1), gx, -gx, gx + 1,
                     -gx - 1};
    int ns = (int)(sizeof singles / sizeof singles[0]), offs[64], seen[64], nseen = 0;
    for (int i = 0; i < ns; i++) {
        int d = singles[i], dup = 0;
        if (d <= -n || d >= n) continue;
        for (int j = 0; j < nseen; j++) dup |= seen[j] == d;
        if (dup) continue;
        seen[nseen++] = d;
        band_case(s, 1, &d, 0, 0);
    }
    const int set1[] = {5, -7, 0, 3}, set2[] = {1, -1, 0}, set3[] = {W, -W, 1, -1, 0},
              set4[] = {3, -3}, set5[] = {W + 1, -(W + 1), W - 1, -(W - 1)},
              set6[] = {0, 1, 2, 3, 4, 5, 6};
    const struct { const int *o; int m; } sets[] = {{set1, 4}, {set2, 3}, {set3, 5}, {set4, 2},
                                                    {set5, 4}, {set6, 7}};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        int k = filter_set(sets[i].o, sets[i].m, n, offs);
        if (k) band_case(s, k, offs, 0, i == 2);
    }
    /* NaN and Inf in the ignored entries */
    int k = filter_set(set1, 4, n, offs);
    if (k) band_case(s, k, offs, 1, 0);
    if (n <= 13) {
        int nd = 0;
        for (int d = -(n - 1); d <= n - 1; d++) offs[nd++] = d;
        band_case(s, nd, offs, 0, 0);
    }
    band_sets++;
}

static void test_banded(void) {
    static const int plains[] = {1, 7, 9, 13, 97, 257, 1001};
    static const int gr[][2] = {{3, 3}, {7, 5}, {13, 11}, {1, 9}, {9, 1}, {8, 6}, {64, 63}};
    for (size_t i = 0; i < sizeof plains / sizeof plains[0]; i++)
        band_shape(plain_shape(plains[i]));
    for (size_t i = 0; i < sizeof gr / sizeof gr[0]; i++)
        band_shape(grid_shape(gr[i][0], gr[i][1]));
    printf("banded: %d matrices on %d shapes (every offset parity and alignment, garbage out of "
           "range): worst |err|/bound: y = A x %.3f, y = A x + s b %.3f\n", band_cases, band_sets,
           band_worst[0], band_worst[1]);
}

static double poisson_worst[2];

static void poisson_case(int nx, int ny, float alpha, float beta) {
    vshape s = grid_shape(nx, ny);
    size_t n = (size_t)s.n;
    char what[200];
    float *X = check_rnd(n), *Bv = check_rnd(n), *Y0 = check_rnd(n),
          *got = check_alloc(n, sizeof *got);
    double *ref = check_alloc(n, sizeof *ref), *bnd = check_alloc(n, sizeof *bnd);
    texla_banded p = {0};
    snprintf(what, sizeof what, "texla_banded_poisson(%d, %d, %g, %g)", nx, ny, (double)alpha,
             (double)beta);
    texla_result r = texla_banded_poisson(ctx, nx, ny, alpha, beta, &p);
    CHECK(r == TEXLA_OK && p.id != 0, "%s: %s: %s", what, texla_result_name(r),
          texla_error_message(ctx));
    texla_vec x = mkv(s, X, what), b = mkv(s, Bv, what), y = mkv(s, Y0, what);
    for (int form = 0; form < 2 && !r; form++) {
        for (int cy = 0; cy < ny; cy++)
            for (int cx = 0; cx < nx; cx++) {
                size_t k = (size_t)cy * (size_t)nx + (size_t)cx;
                double xk = X[k], nb = 0, nbabs = 0;
                if (cx > 0) nb += X[k - 1], nbabs += fabs((double)X[k - 1]);
                if (cx < nx - 1) nb += X[k + 1], nbabs += fabs((double)X[k + 1]);
                if (cy > 0) nb += X[k - (size_t)nx], nbabs += fabs((double)X[k - (size_t)nx]);
                if (cy < ny - 1) nb += X[k + (size_t)nx], nbabs += fabs((double)X[k + (size_t)nx]);
                double v = (double)alpha * xk + (double)beta * (4.0 * xk - nb);
                double mag =
                    fabs((double)alpha * xk) + fabs((double)beta) * (4.0 * fabs(xk) + nbabs);
                if (form) v += (double)S_ADD * Bv[k], mag += fabs((double)S_ADD * Bv[k]);
                ref[k] = v, bnd[k] = 1.01 * check_gamma(6 + form) * mag;
            }
        char w2[240];
        snprintf(w2, sizeof w2, "%s: %s", what, form ? "y = P x + s b" : "y = P x");
        CHECK_OK(ctx, texla_vec_write(ctx, Y0, y), w2);
        texla_result rr = form ? texla_banded_matvec_add(ctx, p, x, S_ADD, b, y)
                               : texla_banded_matvec(ctx, p, x, y);
        CHECK_OK(ctx, rr, w2);
        if (rr || vfetch(y, s, got, w2)) continue;
        double w = expect_bound(got, ref, bnd, n, w2, form ? "1.01 g_7 sum|terms|"
                                                           : "1.01 g_6 sum|terms|");
        if (w > poisson_worst[form]) poisson_worst[form] = w;
    }
    texla_banded_destroy(ctx, p);
    texla_vec_destroy(ctx, x);
    texla_vec_destroy(ctx, b);
    texla_vec_destroy(ctx, y);
    free(X), free(Bv), free(Y0), free(got), free(ref), free(bnd);
}

static void test_poisson(void) {
    static const int gr[][2] = {{1, 1}, {3, 3}, {7, 5}, {1, 6}, {5, 8}, {64, 63}};
    static const float ab[][2] = {{0, 1}, {2, -0.3f}, {1, 0.15f}};
    for (size_t i = 0; i < sizeof gr / sizeof gr[0]; i++)
        for (size_t j = 0; j < sizeof ab / sizeof ab[0]; j++)
            poisson_case(gr[i][0], gr[i][1], ab[j][0], ab[j][1]);
    printf("poisson: grids 1x1 3x3 7x5 1x6 5x8 64x63 x (alpha, beta) (0,1) (2,-0.3) (1,0.15): "
           "worst |err|/bound: P x %.3f, P x + s b %.3f\n", poisson_worst[0], poisson_worst[1]);
}

/* ---- sparse ---- */

typedef struct spm {
    int rows, cols, nnz;
    int *ptr, *col;  /* CSR, entries in generation order within a row */
    float *val;
    int *crow, *ccol; /* COO: the same entries shuffled */
    float *cval;
    int maxrow;
} spm;

/* Rows of small matrices hold (7i + 3) mod 10 entries: every count 0..9 in ten consecutive
 * rows; big ones 0..20 (mean 10), one row 37. An entry repeats an earlier column of its row
 * with probability 1/5 (a duplicate, summed). */
static spm gen_sparse(int rows, int cols, int big) {
    spm m = {rows, cols, 0, NULL, NULL, NULL, NULL, NULL, NULL, 0};
    int *cnt = check_alloc((size_t)rows, sizeof *cnt);
    for (int i = 0; i < rows; i++) {
        cnt[i] = big ? (int)((check_rand() + 1.0) * 10.5) : (7 * i + 3) % 10;
        if (big && i == rows / 2) cnt[i] = 37;
        if (cnt[i] > 40) cnt[i] = 40;
        m.nnz += cnt[i];
        if (cnt[i] > m.maxrow) m.maxrow = cnt[i];
    }
    m.ptr = check_alloc((size_t)rows + 1, sizeof *m.ptr);
    m.col = check_alloc((size_t)m.nnz, sizeof *m.col);
    m.val = check_alloc((size_t)m.nnz, sizeof *m.val);
    int e = 0;
    for (int i = 0; i < rows; i++) {
        m.ptr[i] = e;
        for (int j = 0; j < cnt[i]; j++, e++) {
            int dup = j > 0 && check_rand() < -0.6;
            m.col[e] = dup ? m.col[m.ptr[i] + (int)((check_rand() + 1.0) * 0.5 * j)]
                           : (int)((check_rand() + 1.0) * 0.5 * cols);
            if (m.col[e] >= cols) m.col[e] = cols - 1;
            m.val[e] = (float)check_rand();
        }
    }
    m.ptr[rows] = e;
    m.crow = check_alloc((size_t)m.nnz, sizeof *m.crow);
    m.ccol = check_alloc((size_t)m.nnz, sizeof *m.ccol);
    m.cval = check_alloc((size_t)m.nnz, sizeof *m.cval);
    for (int i = 0; i < rows; i++)
        for (int q = m.ptr[i]; q < m.ptr[i + 1]; q++)
            m.crow[q] = i, m.ccol[q] = m.col[q], m.cval[q] = m.val[q];
    for (int q = m.nnz - 1; q > 0; q--) { /* Fisher-Yates */
        int p = (int)((check_rand() + 1.0) * 0.5 * (q + 1));
        if (p > q) p = q;
        int tr = m.crow[q], tc = m.ccol[q];
        float tv = m.cval[q];
        m.crow[q] = m.crow[p], m.ccol[q] = m.ccol[p], m.cval[q] = m.cval[p];
        m.crow[p] = tr, m.ccol[p] = tc, m.cval[p] = tv;
    }
    free(cnt);
    return m;
}

static void free_spm(spm *m) {
    free(m->ptr), free(m->col), free(m->val), free(m->crow), free(m->ccol), free(m->cval);
}

static double sparse_worst;
static int sparse_cases;

static void sparse_case(vshape sr, vshape sc, int big) {
    spm m = gen_sparse(sr.n, sc.n, big);
    size_t nr = (size_t)sr.n, ncl = (size_t)sc.n;
    float *X = check_rnd(ncl), *Y0 = check_rnd(nr), *got = check_alloc(nr, sizeof *got);
    double *ref = check_alloc(nr, sizeof *ref), *bnd = check_alloc(nr, sizeof *bnd);
    int hist[10] = {0}, dups = 0;
    for (int i = 0; i < m.rows; i++) {
        double acc = 0, mag = 0;
        for (int q = m.ptr[i]; q < m.ptr[i + 1]; q++) {
            double t = (double)m.val[q] * X[m.col[q]];
            acc += t, mag += fabs(t);
            for (int p = m.ptr[i]; p < q; p++)
                if (m.col[p] == m.col[q]) {
                    dups++;
                    break;
                }
        }
        int k = m.ptr[i + 1] - m.ptr[i];
        if (k < 10) hist[k]++;
        ref[i] = acc, bnd[i] = 1.01 * check_gamma(k) * mag;
    }
    for (size_t i = 0; i < nr; i++) Y0[i] *= 1e6f;
    texla_vec rl = mkv(sr, NULL, "sparse: row_like"), cl = mkv(sc, NULL, "sparse: col_like"),
              x = mkv(sc, X, "sparse: x"), y = mkv(sr, Y0, "sparse: y");
    char what[240];
    for (int fmt = 0; fmt < 2; fmt++) {
        snprintf(what, sizeof what, "texla_sparse_make_%s %dx%d (rows %s, cols %s, nnz %d, %d "
                 "duplicates, longest row %d)", fmt ? "csr" : "coo", m.rows, m.cols, sname(sr).s,
                 sname(sc).s, m.nnz, dups, m.maxrow);
        texla_sparse a = {0};
        texla_result r =
            fmt ? texla_sparse_make_csr(ctx, rl, cl, m.ptr, m.col, m.val, &a)
                : texla_sparse_make_coo(ctx, rl, cl, m.nnz, m.crow, m.ccol, m.cval, &a);
        CHECK(r == TEXLA_OK && a.id != 0, "%s: %s: %s", what, texla_result_name(r),
              texla_error_message(ctx));
        if (r) continue;
        char w2[300];
        snprintf(w2, sizeof w2, "texla_sparse_matvec of %s", what);
        CHECK_OK(ctx, texla_vec_write(ctx, Y0, y), w2);
        r = texla_sparse_matvec(ctx, a, x, y);
        CHECK_OK(ctx, r, w2);
        if (!r && !vfetch(y, sr, got, w2)) {
            double w = expect_bound(got, ref, bnd, nr, w2, "1.01 g_(row entries) sum|a x|");
            if (w > sparse_worst) sparse_worst = w;
        }
        expect_holds(x, sc, X, "sparse: x unchanged");
        texla_sparse_destroy(ctx, a);
        sparse_cases++;
    }
    printf("  sparse %dx%d (%s x %s): nnz %d, %d duplicates, rows with 0..9 entries:", m.rows,
           m.cols, sname(sr).s, sname(sc).s, m.nnz, dups);
    for (int k = 0; k < 10; k++) printf(" %d", hist[k]);
    printf(", longest %d\n", m.maxrow);
    texla_vec_destroy(ctx, rl);
    texla_vec_destroy(ctx, cl);
    texla_vec_destroy(ctx, x);
    texla_vec_destroy(ctx, y);
    free_spm(&m);
    free(X), free(Y0), free(got), free(ref), free(bnd);
}

static void test_sparse(void) {
    sparse_case(plain_shape(1), plain_shape(1), 0);
    sparse_case(plain_shape(5), plain_shape(7), 0);
    sparse_case(plain_shape(7), plain_shape(5), 0);
    sparse_case(plain_shape(257), plain_shape(100), 0);
    sparse_case(plain_shape(100), plain_shape(257), 0);
    sparse_case(grid_shape(7, 5), grid_shape(9, 3), 0);
    sparse_case(plain_shape(1000), plain_shape(1000), 1);
    printf("sparse: %d products (COO and CSR): worst |err| / (1.01 g_k sum|a x|) per row %.3f\n",
           sparse_cases, sparse_worst);

    /* a matrix with no entries at all: y = 0 */
    vshape s = plain_shape(13);
    float *Y0 = check_rnd(13), *X = check_rnd(13), got[13], zeros[13] = {0};
    texla_vec l = mkv(s, NULL, "sparse: empty: like"), x = mkv(s, X, "sparse: empty: x"),
              y = mkv(s, Y0, "sparse: empty: y");
    int ptr[14] = {0}, dummy_i[1] = {0};
    float dummy_f[1] = {0};
    texla_sparse e = {0};
    CHECK_OK(ctx, texla_sparse_make_csr(ctx, l, l, ptr, dummy_i, dummy_f, &e),
             "texla_sparse_make_csr 13x13 with no entries");
    CHECK_OK(ctx, texla_sparse_matvec(ctx, e, x, y), "texla_sparse_matvec of a matrix with no entries");
    if (!vfetch(y, s, got, "sparse: no entries"))
        expect_exact(got, zeros, 13, "texla_sparse_matvec of a matrix with no entries: y = 0");
    texla_sparse_destroy(ctx, e);
    texla_sparse e2 = {0};
    CHECK_OK(ctx, texla_vec_write(ctx, Y0, y), "sparse: empty COO: y");
    CHECK_OK(ctx, texla_sparse_make_coo(ctx, l, l, 0, dummy_i, dummy_i, dummy_f, &e2),
             "texla_sparse_make_coo 13x13 with nnz = 0");
    CHECK_OK(ctx, texla_sparse_matvec(ctx, e2, x, y), "texla_sparse_matvec of a COO matrix with nnz = 0");
    if (!vfetch(y, s, got, "sparse: nnz 0"))
        expect_exact(got, zeros, 13, "texla_sparse_matvec of a COO matrix with nnz = 0: y = 0");
    texla_sparse_destroy(ctx, e2);
    texla_vec_destroy(ctx, l);
    texla_vec_destroy(ctx, x);
    texla_vec_destroy(ctx, y);
    free(Y0), free(X);
}

/* ---- error codes ---- */

static void test_errors(void) {
    vshape s = plain_shape(29), s2 = plain_shape(31), g = grid_shape(7, 5), gp = plain_shape(35);
    float *D = check_rnd(29), *X = check_rnd(29);
    texla_vec l = mkv(s, NULL, "errors: like"), x = mkv(s, X, "errors: x"),
              y = mkv(s, D, "errors: y"), w = mkv(s2, NULL, "errors: n=31"),
              gv = mkv(g, NULL, "errors: grid 7x5"), pv = mkv(gp, NULL, "errors: plain 35");
    int offs[3] = {0, 1, -1};
    float *diags = check_rnd(3 * 29);
    texla_banded a = {0};
    CHECK_OK(ctx, texla_banded_make(ctx, l, 3, offs, diags, &a), "errors: banded");
    /* banded shapes, aliasing, arguments, handles */
    CHECK_CODE(ctx, texla_banded_matvec(ctx, a, w, y), TEXLA_ERR_SHAPE,
               "texla_banded_matvec x of n=31 (A n=29)");
    CHECK_CODE(ctx, texla_banded_matvec(ctx, a, x, w), TEXLA_ERR_SHAPE,
               "texla_banded_matvec y of n=31 (A n=29)");
    CHECK_CODE(ctx, texla_banded_matvec_add(ctx, a, x, 1, w, y), TEXLA_ERR_SHAPE,
               "texla_banded_matvec_add b of n=31 (A n=29)");
    CHECK_CODE(ctx, texla_banded_matvec(ctx, a, x, x), TEXLA_ERR_ALIAS, "texla_banded_matvec y = x");
    CHECK_CODE(ctx, texla_banded_matvec_add(ctx, a, x, 1, y, y), TEXLA_ERR_ALIAS,
               "texla_banded_matvec_add y = b");
    CHECK_CODE(ctx, texla_banded_matvec_add(ctx, a, x, NAN, x, y), TEXLA_ERR_ARGUMENT,
               "texla_banded_matvec_add s = NaN");
    expect_holds(y, s, D, "errors: y unchanged after the failed banded products");
    texla_banded p = {0};
    CHECK_OK(ctx, texla_banded_poisson(ctx, 7, 5, 0, 1, &p), "errors: poisson 7x5");
    texla_vec gy = mkv(g, NULL, "errors: grid 7x5 y");
    CHECK_CODE(ctx, texla_banded_matvec(ctx, p, pv, gy), TEXLA_ERR_SHAPE,
               "texla_banded_matvec poisson 7x5 with x a plain vector of 35");
    CHECK_CODE(ctx, texla_banded_poisson(ctx, 0, 5, 0, 1, &(texla_banded){0}), TEXLA_ERR_ARGUMENT,
               "texla_banded_poisson 0 x 5");
    CHECK_CODE(ctx, texla_banded_poisson(ctx, 4, -2, 0, 1, &(texla_banded){0}), TEXLA_ERR_ARGUMENT,
               "texla_banded_poisson 4 x -2");
    /* a side of INT_MAX: the texture limit, before the even sizes overflow and before the
     * diagonals' host memory (it had asked for 24 GB) */
    CHECK_CODE(ctx, texla_banded_poisson(ctx, 1, INT_MAX, 0, 1, &(texla_banded){0}),
               TEXLA_ERR_LIMIT, "texla_banded_poisson 1 x INT_MAX");
    CHECK_CODE(ctx, texla_banded_poisson(ctx, INT_MAX, 1, 0, 1, &(texla_banded){0}),
               TEXLA_ERR_LIMIT, "texla_banded_poisson INT_MAX x 1");
    CHECK_CODE(ctx, texla_banded_poisson(ctx, 4, 4, NAN, 1, &(texla_banded){0}), TEXLA_ERR_ARGUMENT,
               "texla_banded_poisson alpha NaN");
    CHECK_CODE(ctx, texla_banded_make(ctx, l, -1, offs, diags, &(texla_banded){0}),
               TEXLA_ERR_ARGUMENT, "texla_banded_make ndiag -1");
    CHECK_CODE(ctx, texla_banded_make(ctx, l, 3, NULL, diags, &(texla_banded){0}),
               TEXLA_ERR_ARGUMENT, "texla_banded_make offsets NULL");
    CHECK_CODE(ctx, texla_banded_make(ctx, l, 3, offs, NULL, &(texla_banded){0}),
               TEXLA_ERR_ARGUMENT, "texla_banded_make diags NULL");
    {
        /* an offset twice: the first repeat named with the diagonal it repeats */
        int dup[5] = {3, -2, 7, -2, 3};
        float *dd = check_alloc(5 * 29, sizeof *dd);
        texla_banded no = {0};
        CHECK_CODE(ctx, texla_banded_make(ctx, l, 5, dup, dd, &no), TEXLA_ERR_ARGUMENT,
                   "texla_banded_make offsets 3 -2 7 -2 3");
        const char *m = texla_error_message(ctx);
        CHECK(strstr(m, "offset -2") && strstr(m, "diagonals 1 and 3") && no.id == 0,
              "texla_banded_make with offset -2 twice: \"%s\"", m);
        free(dd);
        /* 200000 distinct offsets of a 1-element matrix (all but 0 ignored): the duplicate
         * check took 12 s (every pair); sorted it takes milliseconds */
        vshape s1 = plain_shape(1);
        texla_vec one = mkv(s1, NULL, "errors: n=1");
        int nd = 200000;
        int *many = check_alloc((size_t)nd, sizeof *many);
        float *dz = check_alloc((size_t)nd, sizeof *dz);
        for (int i = 0; i < nd; i++) many[i] = i % 2 ? i : -i;
        double t0 = check_now();
        texla_banded big = {0};
        CHECK_OK(ctx, texla_banded_make(ctx, one, nd, many, dz, &big), "200000 diagonals of n=1");
        double dt = check_now() - t0;
        CHECK(dt < 3.0, "texla_banded_make with 200000 distinct offsets took %.2f s", dt);
        texla_banded_destroy(ctx, big);
        texla_vec_destroy(ctx, one);
        free(many), free(dz);
    }
    texla_vec dead = mkv(s, NULL, "errors: dead");
    texla_vec_destroy(ctx, dead);
    CHECK_CODE(ctx, texla_banded_make(ctx, dead, 3, offs, diags, &(texla_banded){0}),
               TEXLA_ERR_HANDLE, "texla_banded_make like stale");
    texla_banded adead = {0};
    CHECK_OK(ctx, texla_banded_make(ctx, l, 3, offs, diags, &adead), "errors: banded to destroy");
    texla_banded_destroy(ctx, adead);
    CHECK_CODE(ctx, texla_banded_matvec(ctx, adead, x, y), TEXLA_ERR_HANDLE,
               "texla_banded_matvec stale A");
    texla_banded_destroy(ctx, adead); /* no-op */

    /* sparse: 29 x 31 */
    int rows[3] = {0, 5, 28}, cols[3] = {30, 2, 0}, ptr[30];
    float vals[3] = {1, 2, 3};
    for (int i = 0; i < 30; i++) ptr[i] = i == 0 ? 0 : i <= 5 ? 1 : i <= 28 ? 2 : 3;
    int csr_cols[3] = {30, 2, 0};
    texla_sparse sp = {0};
    CHECK_OK(ctx, texla_sparse_make_coo(ctx, l, w, 3, rows, cols, vals, &sp),
             "errors: sparse 29x31");
    CHECK_CODE(ctx, texla_sparse_matvec(ctx, sp, x, y), TEXLA_ERR_SHAPE,
               "texla_sparse_matvec 29x31 with x of n=29");
    texla_vec w2 = mkv(s2, NULL, "errors: second n=31");
    CHECK_CODE(ctx, texla_sparse_matvec(ctx, sp, w, w2), TEXLA_ERR_SHAPE,
               "texla_sparse_matvec 29x31 with y of n=31");
    texla_vec_destroy(ctx, w2);
    expect_holds(y, s, D, "errors: y unchanged after the failed sparse products");
    texla_sparse sq = {0};
    int rs[2] = {3, 7}, cs[2] = {7, 3};
    float vs[2] = {1, -1};
    CHECK_OK(ctx, texla_sparse_make_coo(ctx, l, l, 2, rs, cs, vs, &sq), "errors: sparse 29x29");
    CHECK_CODE(ctx, texla_sparse_matvec(ctx, sq, x, x), TEXLA_ERR_ALIAS, "texla_sparse_matvec y = x");
    texla_sparse tmp = {0};
    int bad_row[3] = {0, 29, 1}, bad_col_neg[3] = {0, -1, 1}, bad_col[3] = {0, 31, 1};
    CHECK_CODE(ctx, texla_sparse_make_coo(ctx, l, w, 3, bad_row, cols, vals, &tmp),
               TEXLA_ERR_ARGUMENT, "texla_sparse_make_coo 29x31 with row index 29");
    CHECK_CODE(ctx, texla_sparse_make_coo(ctx, l, w, 3, rows, bad_col_neg, vals, &tmp),
               TEXLA_ERR_ARGUMENT, "texla_sparse_make_coo 29x31 with column index -1");
    CHECK_CODE(ctx, texla_sparse_make_coo(ctx, l, w, 3, rows, bad_col, vals, &tmp),
               TEXLA_ERR_ARGUMENT, "texla_sparse_make_coo 29x31 with column index 31");
    CHECK_CODE(ctx, texla_sparse_make_coo(ctx, l, w, -1, rows, cols, vals, &tmp),
               TEXLA_ERR_ARGUMENT, "texla_sparse_make_coo nnz -1");
    CHECK_CODE(ctx, texla_sparse_make_coo(ctx, l, w, 3, NULL, cols, vals, &tmp), TEXLA_ERR_ARGUMENT,
               "texla_sparse_make_coo rows NULL");
    csr_cols[1] = 31;
    CHECK_CODE(ctx, texla_sparse_make_csr(ctx, l, w, ptr, csr_cols, vals, &tmp), TEXLA_ERR_ARGUMENT,
               "texla_sparse_make_csr 29x31 with column index 31");
    csr_cols[1] = 2;
    ptr[10] = 0; /* row_ptr decreasing */
    CHECK_CODE(ctx, texla_sparse_make_csr(ctx, l, w, ptr, csr_cols, vals, &tmp), TEXLA_ERR_ARGUMENT,
               "texla_sparse_make_csr with a decreasing row_ptr");
    texla_sparse_destroy(ctx, sp);
    CHECK_CODE(ctx, texla_sparse_matvec(ctx, sp, w, y), TEXLA_ERR_HANDLE, "texla_sparse_matvec stale A");
    texla_sparse_destroy(ctx, sp); /* no-op */
    texla_sparse_destroy(ctx, sq);
    texla_banded_destroy(ctx, a);
    texla_banded_destroy(ctx, p);
    texla_vec_destroy(ctx, l);
    texla_vec_destroy(ctx, x);
    texla_vec_destroy(ctx, y);
    texla_vec_destroy(ctx, w);
    texla_vec_destroy(ctx, gv);
    texla_vec_destroy(ctx, pv);
    texla_vec_destroy(ctx, gy);
    free(D), free(X), free(diags);
}

void suite_banded(void) {
    double t0 = check_now();
    ctx = suite_ctx(NULL);
    if (!ctx) return;
    tu_begin(ctx);
    double t = check_now();
    test_banded();
    printf("  (banded: %.1f s)\n", check_now() - t), t = check_now();
    test_poisson();
    printf("  (poisson: %.1f s)\n", check_now() - t), t = check_now();
    test_sparse();
    printf("  (sparse: %.1f s)\n", check_now() - t), t = check_now();
    test_errors();
    tu_end();
    texla_ctx_destroy(ctx);
    ctx = NULL;
    printf("banded suite: %.1f s\n", check_now() - t0);
}
