/* cg.c - conjugate gradients, built only from texla's public operations (texla.h): no GL
 * here, and no read-back inside the iterations (the tolerance mode reads its residual
 * asynchronously; the GPU never waits for the CPU). */
#include "texla.h"

#include <math.h>
#include <stdlib.h>

/* The CG state: vectors r, p, p2 (p's next value), q, and GPU scalars. */
typedef struct cg_state {
    texla_vec r, p, p2, q, xs, xbest;
    texla_scalar rr, rr_new, pq, beta, bb;
} cg_state;

static void cg_free(texla_ctx *ctx, cg_state *s) {
    texla_vec_destroy(ctx, s->r), texla_vec_destroy(ctx, s->p);
    texla_vec_destroy(ctx, s->p2), texla_vec_destroy(ctx, s->q);
    texla_vec_destroy(ctx, s->xs), texla_vec_destroy(ctx, s->xbest);
    texla_scalar *sc[] = {&s->rr, &s->rr_new, &s->pq, &s->beta, &s->bb};
    for (size_t i = 0; i < sizeof sc / sizeof sc[0]; i++) texla_scalar_destroy(ctx, *sc[i]);
}

texla_result texla_cg_workspace_make(texla_ctx *ctx, texla_vec like, texla_cg_workspace *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    if (!out)
        return texla_ctx_fail(ctx, TEXLA_ERR_ARGUMENT, "texla_cg_workspace_make: out is NULL");
    *out = (texla_cg_workspace){0};
    texla_vec_info li;
    texla_result r = texla_vec_info_get(ctx, like, &li);
    for (int k = 0; k < 6 && !r; k++) r = texla_vec_make_like(ctx, like, &out->v[k]);
    for (int k = 0; k < 5 && !r; k++) r = texla_scalar_make(ctx, 0.0f, &out->s[k]);
    if (r) texla_cg_workspace_destroy(ctx, out);
    else out->n = li.n;
    return r;
}

void texla_cg_workspace_destroy(texla_ctx *ctx, texla_cg_workspace *ws) {
    if (!ctx || !ws) return;
    uint64_t any = 0;
    for (int k = 0; k < 6; k++) any |= ws->v[k].id;
    for (int k = 0; k < 5; k++) any |= ws->s[k].id;
    if (!any) return; /* zeroed: nothing asked of GL */
    /* refused (inside a callback, or host mode with another context current), by this name:
     * each destroy would do nothing, so ws keeps its handles, all still valid */
    if (texla_ctx_check(ctx, "texla_cg_workspace_destroy")) return;
    texla_ctx_begin(ctx);
    for (int k = 0; k < 6; k++) texla_vec_destroy(ctx, ws->v[k]);
    for (int k = 0; k < 5; k++) texla_scalar_destroy(ctx, ws->s[k]);
    *ws = (texla_cg_workspace){0};
    texla_ctx_end(ctx);
}

/* the caller's workspace: its objects are this context's, of b's layout, none is x or b, and
 * none is another of its entries (one written while the other is read: x was rewritten before a
 * later pass refused, or the solve ended in NaN and reported it as TEXLA_OK) */
static texla_result check_workspace(texla_ctx *ctx, const texla_cg_workspace *ws,
                                    const texla_vec_info *bi, texla_vec b, texla_vec x) {
    for (int k = 0; k < 6; k++) {
        texla_vec_info wi;
        texla_result r = texla_vec_info_get(ctx, ws->v[k], &wi);
        if (r) return r;
        if (wi.n != bi->n || wi.nx != bi->nx || wi.gx != bi->gx || wi.gy != bi->gy)
            return texla_ctx_fail(ctx, TEXLA_ERR_SHAPE,
                                  "texla_cg: the workspace is for vectors of %d elements (grid %d "
                                  "x %d); b has %d (grid %d x %d)", wi.n, wi.gx, wi.gy, bi->n,
                                  bi->gx, bi->gy);
        if (ws->v[k].id == b.id || ws->v[k].id == x.id)
            return texla_ctx_fail(ctx, TEXLA_ERR_ALIAS,
                                  "texla_cg: the workspace's vector %d is also %s", k,
                                  ws->v[k].id == b.id ? "b" : "x");
    }
    /* each entry an object of its own (the vectors' handles checked above; a zero scalar handle
     * is left to the scalars' check below, which names it) */
    for (int k = 0; k < 6; k++)
        for (int j = 0; j < k; j++)
            if (ws->v[j].id == ws->v[k].id)
                return texla_ctx_fail(ctx, TEXLA_ERR_ALIAS,
                                      "texla_cg: the workspace's vectors %d and %d are one vector; "
                                      "each must be a vector of its own", j, k);
    for (int k = 0; k < 5; k++)
        for (int j = 0; j < k; j++)
            if (ws->s[k].id && ws->s[j].id == ws->s[k].id)
                return texla_ctx_fail(ctx, TEXLA_ERR_ALIAS,
                                      "texla_cg: the workspace's scalars %d and %d are one scalar; "
                                      "each must be a scalar of its own", j, k);
    /* the scalars: this context's (their values mean nothing between solves: zeroed) */
    for (int k = 0; k < 5; k++) {
        texla_result r = texla_scalar_write(ctx, 0.0f, ws->s[k]);
        if (r) return r;
    }
    return TEXLA_OK;
}

const char *texla_cg_stop_name(texla_cg_stop s) {
    switch (s) {
    case TEXLA_CG_FIXED: return "fixed iteration count";
    case TEXLA_CG_CONVERGED: return "converged";
    case TEXLA_CG_MAX_ITER: return "iteration limit";
    case TEXLA_CG_STAGNATED: return "float32 stagnation";
    case TEXLA_CG_NAN: return "NaN";
    case TEXLA_CG_CANCELLED: return "cancelled";
    }
    return "unknown";
}

/* what the caller asked to hear: the history and the progress callback */
typedef struct cg_report {
    const texla_cg_desc *d;
    int max_iter, len, cancelled;
} cg_report;

static void report(cg_report *rp, int iter, float rel, int truth) {
    const texla_cg_desc *d = rp->d;
    if (d->history && rp->len < d->history_cap && rel >= 0) {
        d->history[rp->len] = rel;
        if (d->history_iter) d->history_iter[rp->len] = iter;
        if (d->history_true) d->history_true[rp->len] = truth;
        rp->len++;
    }
    if (d->progress) {
        texla_solve_progress p = {iter, rp->max_iter, rel, truth};
        if (d->progress(&p, d->progress_user)) rp->cancelled = 1;
    }
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
    if (desc.history_cap < 0 || (desc.history_cap > 0 && !desc.history))
        return texla_ctx_fail(ctx, TEXLA_ERR_ARGUMENT,
                              "texla_cg: history_cap is %d with history %s; a history needs a "
                              "buffer of history_cap >= 0 floats", desc.history_cap,
                              desc.history ? "given" : "NULL");
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
    texla_cg_workspace *ws = desc.workspace;
    if (ws && (r = check_workspace(ctx, ws, &bi, b, x))) return r;
    /* a product operator writes its mid: not b, x or a work vector (b was overwritten by the
     * first product and the solve reported converged) */
    for (int k = 0; a.kind == TEXLA_OP_PRODUCT && k < (ws ? 8 : 2); k++) {
        texla_vec v = k == 0 ? b : k == 1 ? x : ws->v[k - 2];
        static const char *const vn[8] = {
            "b", "x", "the workspace's vector 0", "the workspace's vector 1",
            "the workspace's vector 2", "the workspace's vector 3", "the workspace's vector 4",
            "the workspace's vector 5"};
        int w = 0;
        if ((r = texla_op_writes(ctx, a, v, &w))) return r;
        if (w)
            return texla_ctx_fail(ctx, TEXLA_ERR_ALIAS, "texla_cg: %s is the product operator's "
                                  "intermediate vector (mid), which every product rewrites", vn[k]);
    }
    texla_ctx_begin(ctx);
    cg_state s = {0};
    texla_scalar *sc[] = {&s.rr, &s.rr_new, &s.pq, &s.beta, &s.bb};
    texla_vec *vs[] = {&s.r, &s.p, &s.p2, &s.q, &s.xs, &s.xbest};
    if (ws) {
        for (size_t i = 0; i < 5; i++) *sc[i] = ws->s[i];
        for (size_t i = 0; i < 6; i++) *vs[i] = ws->v[i];
    } else {
        for (size_t i = 0; i < sizeof sc / sizeof sc[0] && !r; i++)
            r = texla_scalar_make(ctx, 0, sc[i]);
        /* tolerance mode keeps the x under verification and the best verified x (xs, xbest) */
        size_t nvs = desc.tol > 0 ? 6 : 4;
        for (size_t i = 0; i < nvs && !r; i++) r = texla_vec_make_like(ctx, b, vs[i]);
    }
    /* r = b - A x; p = r; rr = r'r */
    if (!r) r = texla_op_matvec(ctx, a, x, s.q);
    if (!r) r = texla_vec_sub(ctx, b, s.q, s.r);
    if (!r) r = texla_vec_copy(ctx, s.r, s.p);
    if (!r) r = texla_vec_sqnorm(ctx, s.r, s.rr);
    int tolmode = desc.tol > 0, it = 0, converged = 0, reading = 0;
    if (!r && tolmode) r = texla_vec_sqnorm(ctx, b, s.bb); /* ||b||^2: tolerance mode's scale */
    texla_scalar rd = {0}; /* the scalar whose read is pending (rr is swapped every iteration) */
    int verifying = 0;     /* the pending read is of a recomputed (true) residual */
    float bb = -1, true_best = INFINITY;
    int stalls = 0, rd_it = 0, best_it = 0, nan = 0, stagnated = 0, have_best = 0;
    cg_report rp = {&desc, max_iter, 0, 0};
    int listening = desc.progress || (desc.history && desc.history_cap > 0);
    /* ||b||^2 read now: the first check (iteration 0) needs it, with no work queued between */
    if (!r && tolmode) r = texla_scalar_read(ctx, s.bb, &bb);
    for (; it < max_iter && !r && !converged && !rp.cancelled; it++) {
        if (!tolmode && desc.progress && it > 0 && it % every == 0) {
            report(&rp, it, -1.0f, 0); /* fixed mode: progress without a residual */
            if (rp.cancelled) break;
        }
        /* tolerance mode: take the residual read started every iterations ago (waited for:
         * polled, its arrival followed the GPU's pace, and the same solve ran 64 or 80
         * iterations, with different x, from one call to the next on an H100; the GPU has
         * these iterations queued behind it, so the wait leaves it nothing idle), start the
         * next one */
        if (tolmode && it % every == 0) {
            float v;
            if (reading && (r = texla_scalar_read_wait(ctx, rd, &v))) break;
            if (reading) {
                reading = 0;
                if (v != v) { /* NaN: A is not SPD (or not finite); reported below */
                    nan = 1;
                    break;
                }
                if (listening) report(&rp, rd_it, bb > 0 ? sqrtf(v / bb) : sqrtf(v), verifying);
                int below = v <= desc.tol * desc.tol * bb || v == 0;
                if (verifying) { /* v is a true residual ||b - A x||^2, of the x kept in xs */
                    verifying = 0;
                    /* float32 bounds the attainable accuracy: give up after eight replacements
                     * in a row that did not lower the true residual by 10% */
                    stalls = v > 0.81f * true_best ? stalls + 1 : 0;
                    if (v < true_best) {
                        texla_vec t = s.xbest;
                        s.xbest = s.xs, s.xs = t;
                        true_best = v, best_it = rd_it, have_best = 1;
                    }
                    if (below) {
                        converged = 1;
                        break;
                    }
                    if (stalls >= 8) {
                        stagnated = 1;
                        break;
                    }
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
            if (rp.cancelled) break;
            if (!reading) {
                rd = s.rr;
                rd_it = it;
                if (it == 0) verifying = 1; /* the first r is b - A x itself */
                /* a true residual is read: keep its x, which the iterations go on changing */
                if (verifying) r = texla_vec_copy(ctx, x, s.xs);
                if (!r) r = texla_scalar_read_start(ctx, rd);
                reading = !r;
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
        out->rel_residual = -1.0f;
        out->best_residual = -1.0f;
        out->best_iteration = it;
        out->stop = !tolmode ? TEXLA_CG_FIXED : TEXLA_CG_MAX_ITER;
        if (tolmode) {
            /* the true relative residual of the x returned (one more product and a read: the
             * call's result) */
            float v = 0;
            r = texla_op_matvec(ctx, a, x, s.q);
            if (!r) r = texla_vec_sub(ctx, b, s.q, s.p2);
            if (!r) r = texla_vec_sqnorm(ctx, s.p2, s.rr_new);
            if (!r) r = texla_scalar_read(ctx, s.rr_new, &v);
            /* x went on from the best verified x and is worse now (float32 noise after
             * convergence, stagnation): return that best x, whose residual is known */
            int returned_best = 0;
            if (!r && have_best && (v != v || v > true_best)) {
                r = texla_vec_copy(ctx, s.xbest, x);
                v = true_best;
                returned_best = 1;
            }
            if (!r) {
                float rel = bb > 0 ? sqrtf(v / bb) : sqrtf(v);
                out->rel_residual = rel;
                float best = true_best < INFINITY ? (bb > 0 ? sqrtf(true_best / bb) : sqrtf(true_best))
                                                  : INFINITY;
                out->best_residual = rel <= best || rel != rel ? rel : best;
                out->best_iteration = returned_best || !(rel <= best || rel != rel) ? best_it : it;
                out->stop = rel != rel || nan ? TEXLA_CG_NAN
                          : rel <= desc.tol     ? TEXLA_CG_CONVERGED /* the x returned meets the
                                                                         tolerance, however the
                                                                         loop ended */
                          : rp.cancelled        ? TEXLA_CG_CANCELLED
                          : stagnated           ? TEXLA_CG_STAGNATED
                                                : TEXLA_CG_MAX_ITER;
                /* the last entry is the x returned (in the last slot when the buffer is full) */
                if (listening && rp.len == desc.history_cap && rp.len > 0) rp.len--;
                if (listening) report(&rp, it, rel, 1);
            }
        } else if (rp.cancelled) {
            out->stop = TEXLA_CG_CANCELLED;
        }
        out->converged = out->stop == TEXLA_CG_CONVERGED;
        out->history_len = rp.len;
    }
    if (!ws) cg_free(ctx, &s); /* a workspace's objects stay the caller's */
    texla_ctx_end(ctx);
    return r;
}

