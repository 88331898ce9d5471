/* solvers.c - conjugate gradients and projected Jacobi, built only from texla's public
 * operations: no GL here, and no read-back inside the iterations (CG's tolerance mode reads
 * its residual asynchronously; the GPU never waits for the CPU). */
#include "internal.h"

#include <math.h>
#include <stdlib.h>

texla_result texla_op_apply(texla_ctx *ctx, texla_op a, texla_vec x, texla_vec y) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    switch (a.kind) {
    case TEXLA_OP_DENSE: return texla_mat_mul_vec(ctx, (texla_mat){a.id}, x, y);
    case TEXLA_OP_BANDED: return texla_banded_mul(ctx, (texla_banded){a.id}, x, y);
    case TEXLA_OP_SPARSE: return texla_sparse_mul(ctx, (texla_sparse){a.id}, x, y);
    }
    return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                       "texla_op_apply: operator kind %d is none of TEXLA_OP_DENSE, _BANDED, "
                       "_SPARSE", (int)a.kind);
}

/* The CG state: vectors r, p, p2 (p's next value), q, and GPU scalars. */
typedef struct cg_state {
    texla_vec r, p, p2, q;
    texla_scalar rr, rr_new, pq, alpha, beta, bb;
} cg_state;

static void cg_free(texla_ctx *ctx, cg_state *s) {
    texla_vec_destroy(ctx, s->r), texla_vec_destroy(ctx, s->p);
    texla_vec_destroy(ctx, s->p2), texla_vec_destroy(ctx, s->q);
    texla_scalar *sc[] = {&s->rr, &s->rr_new, &s->pq, &s->alpha, &s->beta, &s->bb};
    for (size_t i = 0; i < sizeof sc / sizeof sc[0]; i++) texla_scalar_destroy(ctx, *sc[i]);
}

texla_result texla_cg(texla_ctx *ctx, texla_op a, texla_vec b, const texla_cg_desc *desc_in,
                      texla_vec x, texla_cg_result *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla_cg_desc desc = {0};
    if (desc_in) desc = *desc_in;
    texla_vec_info bi;
    texla_result r = texla_vec_info_get(ctx, b, &bi);
    if (r) return r;
    if (desc.max_iter < 0 || desc.check_every < 0 || !(desc.tol >= 0) || !isfinite(desc.tol))
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "texla_cg: max_iter %d, check_every %d and tol %g must be >= 0 and "
                           "finite", desc.max_iter, desc.check_every, desc.tol);
    if (x.id == b.id)
        return texla__fail(ctx, TEXLA_ERR_ALIAS,
                           "texla_cg: x is also b; CG rewrites x and reads b again when it "
                           "replaces the recurrence residual");
    int max_iter = desc.max_iter ? desc.max_iter : bi.n;
    int every = desc.check_every ? desc.check_every : 8;
    texla__enter(ctx);
    cg_state s = {0};
    texla_scalar *sc[] = {&s.rr, &s.rr_new, &s.pq, &s.alpha, &s.beta, &s.bb};
    for (size_t i = 0; i < sizeof sc / sizeof sc[0] && !r; i++) r = texla_scalar_make(ctx, 0, sc[i]);
    texla_vec *vs[] = {&s.r, &s.p, &s.p2, &s.q};
    for (size_t i = 0; i < sizeof vs / sizeof vs[0] && !r; i++) r = texla_vec_make_like(ctx, b, vs[i]);
    /* r = b - A x; p = r; rr = r'r */
    if (!r) r = texla_op_apply(ctx, a, x, s.q);
    if (!r) r = texla_vec_sub(ctx, b, s.q, s.r);
    if (!r) r = texla_vec_copy(ctx, s.r, s.p);
    if (!r) r = texla_vec_norm2(ctx, s.r, s.rr);
    if (!r) r = texla_vec_norm2(ctx, b, s.bb);
    int tolmode = desc.tol > 0, it = 0, converged = 0, reading = 0;
    texla_scalar rd = {0}; /* the scalar whose read is pending (rr is swapped every iteration) */
    int verifying = 0;     /* the pending read is of a recomputed (true) residual */
    float bb = -1, true_best = INFINITY;
    int stalls = 0;
    if (!r && tolmode) r = texla_scalar_read_start(ctx, s.bb);
    for (; it < max_iter && !r && !converged; it++) {
        /* tolerance mode: look at the residual read started earlier, start the next one */
        if (tolmode && it % every == 0) {
            float v;
            if (bb < 0 && texla_scalar_read_poll(ctx, s.bb, &v) == TEXLA_OK) bb = v;
            if (reading && texla_scalar_read_poll(ctx, rd, &v) == TEXLA_OK) {
                reading = 0;
                if (v != v) break; /* NaN: A is not SPD (or not finite); reported below */
                int below = bb >= 0 && (v <= desc.tol * desc.tol * bb || v == 0);
                if (verifying) { /* v is a true residual ||b - A x||^2 */
                    verifying = 0;
                    if (below) {
                        converged = 1;
                        break;
                    }
                    /* float32 bounds the attainable accuracy: give up after eight replacements
                     * in a row that did not lower the true residual by 10% */
                    stalls = v > 0.81f * true_best ? stalls + 1 : 0;
                    if (v < true_best) true_best = v;
                    if (stalls >= 8) break;
                } else if (below) {
                    /* In float the recurrence residual drifts from the true one (here by up to
                     * 100x): replace it by b - A x and restart from it (p = r; keeping p with a
                     * residual that far off diverges), and stop only when the true residual is
                     * below tol too. */
                    r = texla_op_apply(ctx, a, x, s.q);
                    if (!r) r = texla_vec_sub(ctx, b, s.q, s.r);
                    if (!r) r = texla_vec_copy(ctx, s.r, s.p);
                    if (!r) r = texla_vec_norm2(ctx, s.r, s.rr);
                    if (r) break;
                    verifying = 1;
                }
            }
            if (!reading) {
                rd = s.rr;
                r = texla_scalar_read_start(ctx, rd);
                reading = !r;
                if (it == 0) verifying = 1; /* the first r is b - A x itself */
            }
        }
        /* q = A p; alpha = rr / p'q; x += alpha p; r -= alpha q */
        if (!r) r = texla_op_apply(ctx, a, s.p, s.q);
        if (!r) r = texla_vec_dot(ctx, s.p, s.q, s.pq);
        if (!r) r = texla_scalar_div_or_zero(ctx, s.rr, s.pq, s.alpha);
        if (!r) r = texla_vec_acc(ctx, texla_gpu(1.0f, s.alpha), s.p, x);
        if (!r) r = texla_vec_acc(ctx, texla_gpu(-1.0f, s.alpha), s.q, s.r);
        /* beta = rr_new / rr; p = r + beta p */
        if (!r) r = texla_vec_norm2(ctx, s.r, s.rr_new);
        if (!r) r = texla_scalar_div_or_zero(ctx, s.rr_new, s.rr, s.beta);
        if (!r) r = texla_vec_axpy(ctx, s.r, texla_gpu(1.0f, s.beta), s.p, s.p2);
        texla_vec tv = s.p;
        s.p = s.p2, s.p2 = tv;
        texla_scalar ts = s.rr;
        s.rr = s.rr_new, s.rr_new = ts;
    }
    if (!r && out) {
        out->iterations = it;
        out->converged = converged;
        out->rel_residual = -1.0f;
        if (tolmode) {
            /* the true relative residual of the x returned (one more product and a read: the
             * call's result) */
            float v = 0;
            r = texla_op_apply(ctx, a, x, s.q);
            if (!r) r = texla_vec_sub(ctx, b, s.q, s.p2);
            if (!r) r = texla_vec_norm2(ctx, s.p2, s.rr_new);
            if (!r) r = texla_scalar_read(ctx, s.rr_new, &v);
            if (!r && bb < 0) r = texla_scalar_read(ctx, s.bb, &bb);
            if (!r) out->rel_residual = bb > 0 ? sqrtf(v / bb) : sqrtf(v);
        }
    }
    cg_free(ctx, &s);
    texla__leave(ctx);
    return r;
}

/* Four n x 1 work matrices: kept in a small cache by n (least recently used goes), so that
 * solving many LCPs a frame makes no new textures once sizes repeat. Public operations only. */
static texla_result lcp_work(texla_ctx *ctx, int n, texla_mat m[4]) {
    struct texla__lcp_tmp *slot = NULL, *lru = &ctx->lcp_tmp[0];
    int cap = (int)(sizeof ctx->lcp_tmp / sizeof ctx->lcp_tmp[0]);
    for (int i = 0; i < cap && !slot; i++) {
        texla_mat_info mi;
        struct texla__lcp_tmp *t = &ctx->lcp_tmp[i];
        if (t->n == n && texla_mat_info_get(ctx, t->m[3], &mi) == TEXLA_OK) slot = t;
        else if (t->used < lru->used) lru = t;
    }
    texla_result r = TEXLA_OK;
    if (!slot) {
        slot = lru;
        for (int k = 0; k < 4; k++) texla_mat_destroy(ctx, slot->m[k]), slot->m[k].id = 0;
        slot->n = 0;
        for (int k = 0; k < 4 && !r; k++) r = texla_mat_make(ctx, n, 1, NULL, &slot->m[k]);
        if (!r) slot->n = n;
    }
    slot->used = ++ctx->lcp_clock;
    for (int k = 0; k < 4; k++) m[k] = slot->m[k];
    return r;
}

texla_result texla_lcp_jacobi(texla_ctx *ctx, texla_mat a, texla_mat b, const texla_lcp_desc *desc_in,
                              texla_mat x, texla_lcp_result *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla_lcp_desc desc = {0};
    if (desc_in) desc = *desc_in;
    int iters = desc.iterations ? desc.iterations : 100;
    float omega = desc.omega != 0.0f ? desc.omega : 1.0f;
    if (iters < 0 || !isfinite(omega) || omega < 0)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "texla_lcp_jacobi: iterations %d must be >= 0 and omega %g finite and > 0",
                           desc.iterations, desc.omega);
    texla_mat_info ai, bi, xi;
    texla_result r = texla_mat_info_get(ctx, a, &ai);
    if (!r) r = texla_mat_info_get(ctx, b, &bi);
    if (!r) r = texla_mat_info_get(ctx, x, &xi);
    if (r) return r;
    int n = ai.rows;
    if (ai.cols != n || bi.rows != n || bi.cols != 1 || xi.rows != n || xi.cols != 1)
        return texla__fail(ctx, TEXLA_ERR_SHAPE,
                           "texla_lcp_jacobi: a must be n x n and b, x n x 1; they are %d x %d, "
                           "%d x %d, %d x %d", ai.rows, ai.cols, bi.rows, bi.cols, xi.rows, xi.cols);
    uint32_t ins[4] = {a.id, b.id, desc.friction_index.id, desc.friction_mu.id};
    static const char *const names[4] = {"a", "b", "friction_index", "friction_mu"};
    for (int i = 0; i < 4; i++)
        if (ins[i] == x.id)
            return texla__fail(ctx, TEXLA_ERR_ALIAS,
                               "texla_lcp_jacobi: x is also %s; the iteration rewrites x, so it "
                               "must be a matrix of its own", names[i]);
    int bounded = desc.friction_index.id != 0;
    texla_mat_info fi, fm;
    if (bounded) {
        r = texla_mat_info_get(ctx, desc.friction_index, &fi);
        if (!r) r = texla_mat_info_get(ctx, desc.friction_mu, &fm);
        if (r) return r;
        if (fi.rows != n || fi.cols != 1 || fm.rows != n || fm.cols != 1)
            return texla__fail(ctx, TEXLA_ERR_SHAPE,
                               "texla_lcp_jacobi: friction_index and friction_mu must be %d x 1; "
                               "they are %d x %d and %d x %d", n, fi.rows, fi.cols, fm.rows, fm.cols);
    }
    texla__enter(ctx);
    texla_mat work[4];
    r = lcp_work(ctx, n, work);
    texla_mat d = work[0], e = work[1], w = work[2], x2 = work[3];
    /* e = -omega / diag(A) */
    if (!r) r = texla_diag(ctx, a, d);
    if (!r) r = texla_recip(ctx, d, -omega, e);
    /* x <- max(0, x + (A x + b) .* e): a product, the seed's madad, a max */
    for (int i = 0; i < iters && !r; i++) {
        r = texla_matmul(ctx, a, x, w);
        if (!r) r = texla_madad(ctx, x, w, b, e, x2);
        if (!r) r = bounded ? texla_lcp_project(ctx, x2, desc.friction_index, desc.friction_mu, x)
                            : texla_max(ctx, x2, 0.0f, x);
    }
    if (!r && out) {
        /* the measures: w = A x + b, read back once with x */
        float *hx = malloc(sizeof *hx * (size_t)n * 4), *hw = hx + n, *hi = hx + 2 * n,
              *hm = hx + 3 * n;
        r = hx ? TEXLA_OK : texla__fail(ctx, TEXLA_ERR_MEMORY, "texla_lcp_jacobi: out of memory");
        if (!r) r = texla_matmul(ctx, a, x, w);
        if (!r) r = texla_acc(ctx, b, w);
        if (!r) r = texla_mat_read(ctx, x, hx);
        if (!r) r = texla_mat_read(ctx, w, hw);
        if (!r && bounded) r = texla_mat_read(ctx, desc.friction_index, hi);
        if (!r && bounded) r = texla_mat_read(ctx, desc.friction_mu, hm);
        if (!r) {
            double mx = INFINITY, mw = INFINITY, xw = 0, mxw = 0, fx = 0;
            for (int i = 0; i < n; i++) {
                int j = bounded ? (int)hi[i] : -1;
                if (j >= 0 && j < n) { /* friction row: within its cone? */
                    fx = fmax(fx, fabs((double)hx[i]) - (double)hm[i] * fmax(hx[j], 0.0));
                    continue;
                }
                mx = fmin(mx, hx[i]);
                mw = fmin(mw, hw[i]);
                xw += (double)hx[i] * hw[i];
                mxw = fmax(mxw, fabs((double)hx[i] * hw[i]));
            }
            *out = (texla_lcp_result){(float)mx, (float)mw, (float)xw, (float)mxw, (float)fx};
        }
        free(hx);
    }
    texla__leave(ctx);
    return r;
}
