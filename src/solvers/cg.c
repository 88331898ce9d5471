/* cg.c - conjugate gradients, built only from texla's public operations (texla.h): no GL
 * here, and no read-back inside the iterations (the tolerance mode reads its residual
 * asynchronously; the GPU never waits for the CPU). */
#include "texla.h"

#include <math.h>
#include <stdlib.h>

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
        return texla_ctx_fail(ctx, TEXLA_ERR_ARGUMENT,
                           "texla_cg: max_iter %d, check_every %d and tol %g must be >= 0 and "
                           "finite", desc.max_iter, desc.check_every, desc.tol);
    if (x.id == b.id)
        return texla_ctx_fail(ctx, TEXLA_ERR_ALIAS,
                           "texla_cg: x is also b; CG rewrites x and reads b again when it "
                           "replaces the recurrence residual");
    int rows = 0, cols = 0;
    r = texla_op_shape(ctx, a, &rows, &cols);
    if (r) return r;
    texla_vec_info xi;
    r = texla_vec_info_get(ctx, x, &xi);
    if (r) return r;
    if (rows != cols || rows != bi.n || xi.n != bi.n)
        return texla_ctx_fail(ctx, TEXLA_ERR_SHAPE,
                              "texla_cg: A must be n x n with b and x of n elements; A is %d x %d, "
                              "b has %d elements, x %d", rows, cols, bi.n, xi.n);
    int max_iter = desc.max_iter ? desc.max_iter : bi.n;
    int every = desc.check_every ? desc.check_every : 8;
    texla_ctx_begin(ctx);
    cg_state s = {0};
    texla_scalar *sc[] = {&s.rr, &s.rr_new, &s.pq, &s.alpha, &s.beta, &s.bb};
    for (size_t i = 0; i < sizeof sc / sizeof sc[0] && !r; i++) r = texla_scalar_make(ctx, 0, sc[i]);
    texla_vec *vs[] = {&s.r, &s.p, &s.p2, &s.q};
    for (size_t i = 0; i < sizeof vs / sizeof vs[0] && !r; i++) r = texla_vec_make_like(ctx, b, vs[i]);
    /* r = b - A x; p = r; rr = r'r */
    if (!r) r = texla_op_matvec(ctx, a, x, s.q);
    if (!r) r = texla_vec_sub(ctx, b, s.q, s.r);
    if (!r) r = texla_vec_copy(ctx, s.r, s.p);
    if (!r) r = texla_vec_sqnorm(ctx, s.r, s.rr);
    if (!r) r = texla_vec_sqnorm(ctx, b, s.bb);
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
                    r = texla_op_matvec(ctx, a, x, s.q);
                    if (!r) r = texla_vec_sub(ctx, b, s.q, s.r);
                    if (!r) r = texla_vec_copy(ctx, s.r, s.p);
                    if (!r) r = texla_vec_sqnorm(ctx, s.r, s.rr);
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
        /* q = A p and p'q; alpha = rr / p'q, x += alpha p, r -= alpha q, rr_new = r'r,
         * beta = rr_new / rr (on the compute backend one kernel each); p = r + beta p */
        if (!r) r = texla_op_matvec_dot(ctx, a, s.p, s.q, s.pq);
        if (!r) r = texla_vec_cg_update(ctx, s.rr, s.pq, s.p, s.q, x, s.r, s.rr_new, s.beta);
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
            r = texla_op_matvec(ctx, a, x, s.q);
            if (!r) r = texla_vec_sub(ctx, b, s.q, s.p2);
            if (!r) r = texla_vec_sqnorm(ctx, s.p2, s.rr_new);
            if (!r) r = texla_scalar_read(ctx, s.rr_new, &v);
            if (!r && bb < 0) r = texla_scalar_read(ctx, s.bb, &bb);
            if (!r) out->rel_residual = bb > 0 ? sqrtf(v / bb) : sqrtf(v);
            /* the x returned meets the tolerance: say so, however the loop ended */
            if (!r && out->rel_residual <= desc.tol) out->converged = 1;
        }
    }
    cg_free(ctx, &s);
    texla_ctx_end(ctx);
    return r;
}

