/* test_sparse.c - the sparse engine against float64 references on the host.
 *
 * SWEEP: every format x schedule (and their parameters: lanes, slices and sorting windows,
 * long-row chunks, grids, workgroup sizes, inner layouts, blocks) x entry type (real, complex,
 * quaternion, 3x3 blocks) x product (y = A x, y = A x + beta y, y = A' x), pinned one by one,
 * on matrices that break naive code: rows of 0..200 entries with duplicates and empty rows, one
 * row holding half the entries, block sizes that do not divide n, rectangular shapes, 1 x n and
 * n x 1, grid vectors whose rows are odd. Every element of y must be within
 * (2 K len + 8) u sum |a| |x| of the float64 result (u = 2^-24; K floats per entry; len the
 * terms of that row), and y's padding lanes must stay zero.
 * Also: the rule's and the tuner's choices (only correct variants win; the choice is checked
 * against the reference again), the tuning cache (round trip, corrupt file, another device's
 * entry, a malformed value: warnings, never trusted), bad inputs (indices out of range, NaN
 * values kept in exactly their rows, a form past GL_MAX_SHADER_STORAGE_BLOCK_SIZE, layouts,
 * aliasing, variants that cannot run), a complex Hermitian Matrix Market file, complex vector
 * operations, CG on a complex Hermitian matrix, and a matrix of a million rows. */
#include "suites.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static texla_ctx *ctx;

/* ---- host matrices and references ---- */

typedef struct hmat {
    const char *name;
    int entry;       /* texla_entry */
    int rows, cols;  /* entries (blocks) */
    int nnz;         /* COO entries given, duplicates included */
    int *ri, *ci;
    float *v;        /* nnz * fl(entry) */
} hmat;

static int fl(int entry) { return entry; }                      /* floats per matrix entry */
static int vk(int entry) { return entry == 9 ? 3 : entry; }     /* floats per vector entry */

static void hfree(hmat *m) {
    free(m->ri), free(m->ci), free(m->v);
    memset(m, 0, sizeof *m);
}

/* y = A x (op 0) or A' x (op 1) in float64 and the rounding bound of each element */
static void ref_mul(const hmat *m, int op, const float *x, double *y, double *bnd) {
    int K = vk(m->entry), n = (op ? m->cols : m->rows) * K;
    int *cnt = calloc((size_t)n, sizeof *cnt);
    double *s = calloc((size_t)n, sizeof *s);
    for (int i = 0; i < n; i++) y[i] = 0;
    for (int e = 0; e < m->nnz; e++) {
        int out = op ? m->ci[e] : m->ri[e], in = op ? m->ri[e] : m->ci[e];
        const float *a = m->v + (size_t)e * fl(m->entry);
        const float *xv = x + (size_t)in * K;
        double *yo = y + (size_t)out * K;
        if (m->entry == 9) {
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++) {
                    double av = op ? a[c * 3 + r] : a[r * 3 + c];
                    yo[r] += av * xv[c];
                    s[out * 3 + r] += fabs(av * xv[c]);
                    cnt[out * 3 + r]++;
                }
            continue;
        }
        double av[4], o[4], aa = 0, xa = 0;
        for (int c = 0; c < K; c++) {
            av[c] = op && c ? -a[c] : a[c];
            aa += fabs(av[c]);
            xa += fabs(xv[c]);
        }
        if (K == 1) {
            o[0] = av[0] * xv[0];
        } else if (K == 2) {
            o[0] = av[0] * xv[0] - av[1] * xv[1];
            o[1] = av[0] * xv[1] + av[1] * xv[0];
        } else {
            o[0] = av[0] * xv[0] - av[1] * xv[1] - av[2] * xv[2] - av[3] * xv[3];
            o[1] = av[0] * xv[1] + av[1] * xv[0] + av[2] * xv[3] - av[3] * xv[2];
            o[2] = av[0] * xv[2] - av[1] * xv[3] + av[2] * xv[0] + av[3] * xv[1];
            o[3] = av[0] * xv[3] + av[1] * xv[2] - av[2] * xv[1] + av[3] * xv[0];
        }
        for (int c = 0; c < K; c++) {
            yo[c] += o[c];
            s[out * K + c] += aa * xa;
            cnt[out * K + c]++;
        }
    }
    for (int i = 0; i < n; i++) bnd[i] = (2.0 * K * cnt[i] + 8) * CHECK_U * s[i] + 1e-35;
    free(cnt), free(s);
}

/* ---- generators ---- */

static uint32_t rng_s = 1;
static uint32_t rnd_u(void) {
    rng_s ^= rng_s << 13, rng_s ^= rng_s >> 17, rng_s ^= rng_s << 5;
    return rng_s;
}

static void push(hmat *m, int *cap, int i, int j) {
    if (m->nnz == *cap) {
        *cap = *cap ? 2 * *cap : 256;
        m->ri = realloc(m->ri, sizeof *m->ri * (size_t)*cap);
        m->ci = realloc(m->ci, sizeof *m->ci * (size_t)*cap);
        m->v = realloc(m->v, sizeof *m->v * (size_t)*cap * (size_t)fl(m->entry));
        if (!m->ri || !m->ci || !m->v) exit(2);
    }
    m->ri[m->nnz] = i;
    m->ci[m->nnz] = j;
    for (int c = 0; c < fl(m->entry); c++) m->v[(size_t)m->nnz * fl(m->entry) + c] = (float)check_rand();
    m->nnz++;
}

/* rows of 0..200 entries (every 13th empty), a few duplicates per row */
static hmat gen_mixed(const char *name, int entry, int rows, int cols, int maxlen) {
    hmat m = {name, entry, rows, cols, 0, NULL, NULL, NULL};
    int cap = 0;
    for (int i = 0; i < rows; i++) {
        int len = i % 13 == 7 ? 0 : (int)(rnd_u() % (unsigned)(maxlen + 1));
        if (len > cols) len = cols;
        for (int q = 0; q < len; q++) push(&m, &cap, i, (int)(rnd_u() % (unsigned)cols));
        if (len && i % 3 == 0) push(&m, &cap, i, m.ci[m.nnz - 1]); /* a duplicate */
    }
    return m;
}

/* one row (row 5 % rows) holds about half the entries */
static hmat gen_skew(const char *name, int entry, int rows, int cols) {
    hmat m = {name, entry, rows, cols, 0, NULL, NULL, NULL};
    int cap = 0, other = 0;
    for (int i = 0; i < rows; i++) {
        if (i == 5 % rows) continue;
        int len = (int)(rnd_u() % 7u);
        for (int q = 0; q < len && q < cols; q++, other++) push(&m, &cap, i, (int)(rnd_u() % (unsigned)cols));
    }
    for (int q = 0; q < other + 1; q++) push(&m, &cap, 5 % rows, (int)(rnd_u() % (unsigned)cols));
    return m;
}

/* b x b-block structure of a real matrix whose size b does not divide */
static hmat gen_blocky(const char *name, int rows, int cols, int b) {
    hmat m = {name, 1, rows, cols, 0, NULL, NULL, NULL};
    int cap = 0, nbr = (rows + b - 1) / b, nbc = (cols + b - 1) / b;
    for (int I = 0; I < nbr; I++)
        for (int q = 0; q < 5; q++) {
            int J = (int)(rnd_u() % (unsigned)nbc);
            for (int r = 0; r < b; r++)
                for (int c = 0; c < b; c++)
                    if (I * b + r < rows && J * b + c < cols) push(&m, &cap, I * b + r, J * b + c);
        }
    return m;
}

/* ---- vectors ---- */

typedef struct tvec {
    texla_vec v;
    int n;      /* floats */
} tvec;

/* a vector of n entries of the matrix's entry type; grid: a PDE grid vector with odd rows
 * (real entries only) */
static tvec mkvec(int entry, int n, const float *data, int grid) {
    tvec t = {{0}, n * vk(entry)};
    texla_result r;
    if (entry == 1 && grid) {
        int nx = 1;
        while ((nx + 2) * (nx + 2) <= n) nx += 2; /* odd */
        if (n % nx) nx = 1;
        r = texla_vec_make_grid(ctx, nx, n / nx, data, &t.v);
    } else if (entry == 1) {
        r = texla_vec_make(ctx, n, data, &t.v);
    } else {
        r = texla_vec_make_entries(ctx, n, (texla_entry)entry, data, &t.v);
    }
    CHECK_OK(ctx, r, "making a vector");
    return t;
}

/* reads v; padding lanes of the raw texture must be 0 (counts a failure otherwise) */
static int readv(tvec t, float *out, const char *what) {
    texla_vec_info in;
    if (!CHECK_OK(ctx, texla_vec_info_get(ctx, t.v, &in), what)) return 0;
    size_t nt = (size_t)in.tex_width * in.tex_height * 4;
    float *raw = malloc(sizeof *raw * nt);
    int ok = CHECK_OK(ctx, texla_vec_read_raw(ctx, t.v, raw), what) &&
             CHECK_OK(ctx, texla_vec_read(ctx, t.v, out), what);
    if (ok) {
        int bad = 0;
        for (int ty = 0; ty < in.tex_height; ty++)
            for (int tx = 0; tx < in.tex_width; tx++)
                for (int c = 0; c < 4; c++) {
                    int cx = 2 * tx + (c & 1), cy = 2 * ty + (c >> 1);
                    int live = cx < in.nx && (long long)cy * in.nx + cx < in.n;
                    float v = raw[((size_t)ty * in.tex_width + tx) * 4 + c];
                    if (!live && v != 0) bad++;
                }
        CHECK(bad == 0, "%s: %d padding lanes are not 0", what, bad);
        ok = bad == 0;
    }
    free(raw);
    return ok;
}

static double worst_ratio;

/* got vs the reference: |got - ref| <= bnd everywhere */
static int expect_ref(const float *got, const double *ref, const double *bnd, int n,
                      const char *what) {
    int bad = 0, first = -1;
    for (int i = 0; i < n; i++) {
        double err = fabs(got[i] - ref[i]);
        if (!(err <= bnd[i])) {
            if (first < 0) first = i;
            bad++;
        } else if (err / bnd[i] > worst_ratio) {
            worst_ratio = err / bnd[i];
        }
    }
    CHECK(bad == 0, "%s: %d of %d elements past the bound (first %d: %.9g, want %.9g +- %.3g)",
          what, bad, n, first, first >= 0 ? got[first] : 0, first >= 0 ? ref[first] : 0,
          first >= 0 ? bnd[first] : 0);
    return bad == 0;
}

/* ---- the sweep ---- */

typedef texla_sparse_variant V;
#define F(f) TEXLA_SPARSE_##f
#define S(s) TEXLA_SCHED_##s

static const V sweep_all[] = {
    {.format = F(CSR), .sched = S(ROW)},
    {.format = F(CSR), .sched = S(GROUP)},
    {.format = F(CSR), .sched = S(LANES), .lanes = 2},
    {.format = F(CSR), .sched = S(LANES), .lanes = 8, .wg = 64},
    {.format = F(CSR), .sched = S(LANES), .lanes = 32},
    {.format = F(CSR), .sched = S(LANES), .lanes = 64, .wg = 256},
    {.format = F(ELL), .sched = S(ROW)},
    {.format = F(ELL), .sched = S(GROUP), .wg = 256},
    {.format = F(SELL), .sched = S(ROW), .slice = 8},
    {.format = F(SELL), .sched = S(GROUP), .slice = 16, .sigma = 64},
    {.format = F(SELL), .sched = S(GROUP), .slice = 32, .sigma = 1024},
    {.format = F(SELL), .sched = S(ROW), .slice = 32, .sigma = 256, .wg = 64},
    {.format = F(CSR), .sched = S(LANES), .lanes = 8, .wg = 64, .long_rows = 100, .long_chunk = 128},
    {.format = F(CSR), .sched = S(ROW), .wg = 64, .long_rows = 60, .long_chunk = 64},
    {.format = F(SELL), .sched = S(GROUP), .slice = 32, .sigma = 64, .wg = 64, .long_rows = 100, .long_chunk = 128},
    {.format = F(ELL), .sched = S(GROUP), .wg = 64, .long_rows = 50, .long_chunk = 64},
    {.format = F(ELL), .sched = S(GROUP), .dist = 1, .bpsm = 2},
    {.format = F(CSR), .sched = S(LANES), .lanes = 4, .dist = 2, .bpsm = 2},
    {.format = F(SELL), .sched = S(GROUP), .slice = 32, .dist = 2, .bpsm = 1, .wg = 64, .long_rows = 100, .long_chunk = 128},
    {.format = F(CSR), .sched = S(ROW), .wg = 64, .dist = 1, .bpsm = 1},
    {.format = F(CSR), .sched = S(ROW), .soa = 1},
    {.format = F(ELL), .sched = S(GROUP), .soa = 1},
    {.format = F(SELL), .sched = S(GROUP), .slice = 16, .soa = 1},
    {.format = F(SELL), .sched = S(ROW), .slice = 8, .soa = 1, .wg = 64, .long_rows = 100, .long_chunk = 128},
    {.format = F(BSR), .sched = S(ROW), .block = 2},
    {.format = F(BSR), .sched = S(ROW), .block = 3, .bell = 1},
    {.format = F(BSR), .sched = S(ROW), .block = 4, .soa = 1},
    {.format = F(BSR), .sched = S(ROW), .block = 3, .bell = 1, .soa = 1, .dist = 2, .bpsm = 2, .wg = 256},
    {.format = F(BSR), .sched = S(ROW), .block = 2, .bell = 1, .dist = 1, .bpsm = 1, .wg = 64},
    {.format = F(COO), .sched = S(ATOMIC)},
    {.format = F(CSC), .sched = S(ATOMIC)},
    {.format = F(CSC), .sched = S(ATOMIC), .soa = 1, .wg = 64},
    {.format = F(POINTS), .sched = S(DRAW)},
    {.format = F(GATHER), .sched = S(DRAW)},
};
#define NSWEEP ((int)(sizeof sweep_all / sizeof sweep_all[0]))

static int products, skipped_variants;

/* pins v for both products of a and checks y = A x, y = A x + beta y, y = A' x */
static void check_variant(texla_sparse a, const hmat *m, const V *v, tvec x, tvec y, tvec xt,
                          tvec yt, const float *X, const float *XT, const float *Y0,
                          const double *ref, const double *bnd, const double *reft,
                          const double *bndt, double *refb, double *bndb) {
    char fmt[16], sch[16], par[96], what[256];
    texla_sparse_variant_names(v, fmt, sch, par);
    snprintf(what, sizeof what, "%s (%s entries) %s %s %s", m->name,
             m->entry == 1 ? "real" : m->entry == 2 ? "complex" : m->entry == 4 ? "quaternion"
                                                                    : "3x3-block",
             fmt, sch, par);
    texla_info inf;
    texla_ctx_info(ctx, &inf);
    int scatter = v->sched == TEXLA_SCHED_ATOMIC;
    int bsr = v->format == TEXLA_SPARSE_BSR;
    if ((scatter && !inf.atomic_float) || (bsr && m->entry != 1 && m->entry != 9) ||
        (v->format >= TEXLA_SPARSE_COO && !inf.compute)) {
        skipped_variants++;
        return;
    }
    texla_result r0 = texla_sparse_pin(ctx, a, TEXLA_SPARSE_N, v);
    texla_result r1 = texla_sparse_pin(ctx, a, TEXLA_SPARSE_T, v);
    char w2[300];
    snprintf(w2, sizeof w2, "pin %s", what);
    if (!CHECK_OK(ctx, r0, w2) || !CHECK_OK(ctx, r1, w2)) return;
    int K = vk(m->entry), nr = m->rows * K, nc = m->cols * K;
    float *got = malloc(sizeof *got * (size_t)(nr > nc ? nr : nc));
    snprintf(w2, sizeof w2, "y = A x, %s", what);
    if (CHECK_OK(ctx, texla_sparse_matvec(ctx, a, x.v, y.v), w2) && readv(y, got, w2))
        expect_ref(got, ref, bnd, nr, w2);
    /* y = A x + beta y: y starts as Y0 */
    CHECK_OK(ctx, texla_vec_write(ctx, Y0, y.v), "writing y");
    snprintf(w2, sizeof w2, "y = A x - 0.75 y, %s", what);
    for (int i = 0; i < nr; i++) {
        refb[i] = ref[i] - 0.75 * Y0[i];
        bndb[i] = bnd[i] + fabs(0.75 * Y0[i]) * 2 * CHECK_U + fabs(ref[i]) * CHECK_U;
    }
    if (CHECK_OK(ctx, texla_sparse_matvec_add(ctx, a, x.v, -0.75f, y.v), w2) && readv(y, got, w2))
        expect_ref(got, refb, bndb, nr, w2);
    snprintf(w2, sizeof w2, "y = A' x, %s", what);
    if (CHECK_OK(ctx, texla_sparse_matvec_t(ctx, a, xt.v, yt.v), w2) && readv(yt, got, w2))
        expect_ref(got, reft, bndt, nc, w2);
    /* x unchanged */
    float *xb = malloc(sizeof *xb * (size_t)nc);
    if (CHECK_OK(ctx, texla_vec_read(ctx, x.v, xb), "reading x"))
        CHECK(!memcmp(xb, X, sizeof *xb * (size_t)nc), "%s: x changed", what);
    free(xb);
    (void)XT;
    products += 3;
    free(got);
}

static void sweep_matrix(hmat *m, int grid, int every) {
    int K = vk(m->entry), nr = m->rows * K, nc = m->cols * K;
    float *X = check_rnd((size_t)nc), *XT = check_rnd((size_t)nr), *Y0 = check_rnd((size_t)nr);
    double *ref = malloc(sizeof *ref * (size_t)nr), *bnd = malloc(sizeof *bnd * (size_t)nr);
    double *refb = malloc(sizeof *refb * (size_t)nr), *bndb = malloc(sizeof *bndb * (size_t)nr);
    double *reft = malloc(sizeof *reft * (size_t)nc), *bndt = malloc(sizeof *bndt * (size_t)nc);
    ref_mul(m, 0, X, ref, bnd);
    ref_mul(m, 1, XT, reft, bndt);
    tvec x = mkvec(m->entry, m->cols, X, grid), y = mkvec(m->entry, m->rows, NULL, grid);
    tvec xt = mkvec(m->entry, m->rows, XT, grid), yt = mkvec(m->entry, m->cols, NULL, grid);
    texla_sparse_desc d = {(texla_entry)m->entry, y.v, x.v, m->nnz, NULL, m->ri, m->ci, m->v, 1, 0};
    texla_sparse a = {0};
    char what[160];
    snprintf(what, sizeof what, "texla_sparse_make %s (%d x %d, %d entries)", m->name, m->rows,
             m->cols, m->nnz);
    if (CHECK_OK(ctx, texla_sparse_make(ctx, &d, &a), what)) {
        float *got = malloc(sizeof *got * (size_t)(nr > nc ? nr : nc));
        /* the default choice first (the rule, or the cache) */
        snprintf(what, sizeof what, "%s: y = A x (default variant)", m->name);
        if (CHECK_OK(ctx, texla_sparse_matvec(ctx, a, x.v, y.v), what) && readv(y, got, what))
            expect_ref(got, ref, bnd, nr, what);
        snprintf(what, sizeof what, "%s: y = A' x (default variant)", m->name);
        if (CHECK_OK(ctx, texla_sparse_matvec_t(ctx, a, xt.v, yt.v), what) && readv(yt, got, what))
            expect_ref(got, reft, bndt, nc, what);
        products += 2;
        free(got);
        for (int i = 0; i < NSWEEP; i += every)
            check_variant(a, m, &sweep_all[i], x, y, xt, yt, X, XT, Y0, ref, bnd, reft, bndt,
                          refb, bndb);
        texla_sparse_destroy(ctx, a);
    }
    texla_vec_destroy(ctx, x.v), texla_vec_destroy(ctx, y.v);
    texla_vec_destroy(ctx, xt.v), texla_vec_destroy(ctx, yt.v);
    free(X), free(XT), free(Y0), free(ref), free(bnd), free(refb), free(bndb), free(reft),
        free(bndt);
}

static void test_sweep(void) {
    double t0 = check_now();
    struct {
        hmat m;
        int grid, every;
    } ms[] = {
        {gen_mixed("mixed 300x280 rows 0..200", 1, 300, 280, 200), 0, 1},
        {gen_skew("one row of half the entries 400x1500", 1, 400, 1500), 0, 1},
        {gen_mixed("rectangular 37x129 (grid vectors)", 1, 37, 129, 40), 1, 1},
        {gen_mixed("rectangular 129x37", 1, 129, 37, 30), 0, 2},
        {gen_mixed("1 x 300", 1, 1, 300, 200), 0, 1},
        {gen_mixed("300 x 1", 1, 300, 1, 1), 0, 1},
        {gen_blocky("3-blocks in 112x113", 112, 113, 3), 0, 1},
        {gen_blocky("4-blocks in 50x49 (grid vectors)", 50, 49, 4), 1, 2},
        {gen_mixed("complex 120x110 rows 0..200", 2, 120, 110, 200), 0, 1},
        {gen_skew("complex, one row of half", 2, 150, 600), 0, 2},
        {gen_mixed("complex 1 x 77", 2, 1, 77, 60), 0, 3},
        {gen_mixed("quaternion 90x100 rows 0..120", 4, 90, 100, 120), 0, 1},
        {gen_skew("quaternion, one row of half", 4, 100, 500), 0, 2},
        {gen_mixed("quaternion 41 x 1", 4, 41, 1, 1), 0, 3},
        {gen_mixed("3x3 blocks 70x65 rows 0..30", 9, 70, 65, 30), 0, 1},
        {gen_mixed("3x3 blocks 1 x 20", 9, 1, 20, 15), 0, 2},
    };
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
        sweep_matrix(&ms[i].m, ms[i].grid, ms[i].every);
        hfree(&ms[i].m);
    }
    printf("sweep: %d products on %zu matrices, %d variants x entry types not applicable here; "
           "worst |err| / bound %.3f (%.1f s)\n", products, sizeof ms / sizeof ms[0],
           skipped_variants, worst_ratio, check_now() - t0);
}

void suite_sparse(void) {
    texla_ctx_desc d = {0};
    d.tune_cache = ""; /* no cache file: the user's is neither read nor written */
    ctx = suite_ctx(&d);
    if (!ctx) return;
    rng_s = (uint32_t)(check_seed() | 1);
    tu_begin(ctx);
    test_sweep();
    tu_end();
    texla_ctx_destroy(ctx);
}
