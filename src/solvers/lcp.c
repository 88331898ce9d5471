/* lcp.c - projected Jacobi for linear complementarity problems, built only from texla's public
 * operations (texla.h): no GL here, no read-back inside the iterations. texla_lcp_jacobi on a
 * dense A (n x 1 matrices), texla_lcp_jacobi_op over any operator (vectors: a product of
 * sparse matrices that is never formed, for contacts), and what both say of the x they return
 * (the friction indices checked, the measures and the verdict, from host copies of x,
 * w = A x + b and b read back once). */
#include "texla.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

/* ---- the measures and the verdict ----
 * check_friction: every friction row's index names a normal row (checked with the measures
 * only: the loop stays free of read-backs); fn names the call in the message.
 * verdict: out's measures and verdict (min_x, min_w, xw, max_abs_xw, max_friction_excess,
 * tol, scale, rel_*, status SOLVED / UNSOLVED / NAN); index and mu are read when bounded. tol_in
 * 0: the default, above float32's rounding of a length-n product. The caller sets iterations
 * and history_len, and CANCELLED over a status that is not NAN. */

static texla_result check_friction(texla_ctx *ctx, const char *fn, const float *h, int n) {
    for (int i = 0; i < n; i++) {
        float f = h[i];
        const char *why = NULL;
        if (!(f == floorf(f)) || !isfinite(f)) why = "is not an integer";
        else if (f < 0) continue;
        else if (f >= (float)n) why = "is past the last row";
        else if ((int)f == i) why = "names its own row";
        else if (!(h[(int)f] < 0)) why = "names a friction row, not a normal one";
        if (why)
            return texla_ctx_fail(ctx, TEXLA_ERR_ARGUMENT,
                                  "%s: friction_index[%d] = %g %s (a friction row's index names "
                                  "a normal row 0..%d, whose own index is < 0); x holds the "
                                  "iterations made with it", fn, i, (double)f, why, n - 1);
    }
    return TEXLA_OK;
}

static void verdict(int n, const float *hx, const float *hw, const float *hb, const float *hi,
                        const float *hm, int bounded, float tol_in, texla_lcp_result *out) {
    double mx = INFINITY, mw = INFINITY, xw = 0, mxw = 0, fx = 0;
    double xmax = 0, bmax = 0, axmax = 0;
    int nan = 0;
    for (int i = 0; i < n; i++) {
        nan |= hx[i] != hx[i] || hw[i] != hw[i];
        xmax = fmax(xmax, fabs((double)hx[i]));
        bmax = fmax(bmax, fabs((double)hb[i]));
        axmax = fmax(axmax, fabs((double)hw[i] - (double)hb[i]));
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
    *out = (texla_lcp_result){.min_x = (float)mx, .min_w = (float)mw, .xw = (float)xw,
                              .max_abs_xw = (float)mxw, .max_friction_excess = (float)fx};
    /* the verdict, relative to the problem's scale ||b|| + ||A x|| (max norms); the default
     * tolerance sits above float32's rounding of a length-n product */
    double tol = tol_in > 0 ? tol_in : fmax(1e-4, 16.0 * sqrt((double)n) * 0x1p-24);
    double scale = bmax + axmax, tiny = 1e-30;
    out->tol = (float)tol;
    out->scale = (float)scale;
    out->rel_min_w = (float)(mw < 0 ? -mw / fmax(scale, tiny) : 0.0);
    out->rel_xw = (float)(mxw / fmax(scale * xmax, tiny));
    out->rel_friction = (float)(fx / fmax(xmax, tiny));
    out->status = nan ? TEXLA_LCP_NAN
                : out->rel_min_w > tol || out->rel_xw > tol || out->rel_friction > tol
                    ? TEXLA_LCP_UNSOLVED
                    : TEXLA_LCP_SOLVED;
}

/* ---- dense A ---- */

texla_result texla_lcp_workspace_make(texla_ctx *ctx, int n, texla_lcp_workspace *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    if (!out) return texla_ctx_fail(ctx, TEXLA_ERR_ARGUMENT, "texla_lcp_workspace_make: out is NULL");
    *out = (texla_lcp_workspace){0};
    if (n < 1)
        return texla_ctx_fail(ctx, TEXLA_ERR_ARGUMENT,
                              "texla_lcp_workspace_make: n is %d; it must be >= 1", n);
    texla_result r = TEXLA_OK;
    for (int k = 0; k < 4 && !r; k++) r = texla_mat_make(ctx, n, 1, NULL, &out->m[k]);
    if (r) texla_lcp_workspace_destroy(ctx, out);
    else out->n = n;
    return r;
}

/* The workspaces' destroys: nothing where refused (inside a callback, or host mode with
 * another context current), when each destroy would do nothing; the refusal names the destroy,
 * and ws keeps its handles, all still valid. */
void texla_lcp_workspace_destroy(texla_ctx *ctx, texla_lcp_workspace *ws) {
    if (!ctx || !ws) return;
    uint64_t any = 0;
    for (int k = 0; k < 4; k++) any |= ws->m[k].id;
    if (!any) return; /* zeroed: nothing asked of GL */
    if (texla_ctx_check(ctx, "texla_lcp_workspace_destroy")) return;
    texla_ctx_begin(ctx);
    for (int k = 0; k < 4; k++) texla_mat_destroy(ctx, ws->m[k]);
    *ws = (texla_lcp_workspace){0};
    texla_ctx_end(ctx);
}

const char *texla_lcp_status_name(texla_lcp_status s) {
    switch (s) {
    case TEXLA_LCP_SOLVED: return "solved";
    case TEXLA_LCP_UNSOLVED: return "not solved";
    case TEXLA_LCP_NAN: return "NaN";
    case TEXLA_LCP_CANCELLED: return "cancelled";
    }
    return "unknown";
}

/* the history and the progress callback (as in cg.c) */
typedef struct lcp_report {
    const texla_lcp_desc *d;
    int iters, len, cancelled;
} lcp_report;

static void report(lcp_report *rp, int iter, float res) {
    const texla_lcp_desc *d = rp->d;
    if (d->history && rp->len < d->history_cap) {
        d->history[rp->len] = res;
        if (d->history_iter) d->history_iter[rp->len] = iter;
        rp->len++;
    }
    if (d->progress) {
        texla_solve_progress p = {iter, rp->iters, res, 1};
        if (d->progress(&p, d->progress_user)) rp->cancelled = 1;
    }
}

/* ||x - P(x - (A x + b))||_inf / ||b||_inf into res (GPU), with w, t and u as scratch: zero
 * exactly at a solution, for normal and friction rows alike */
static texla_result natural_residual(texla_ctx *ctx, texla_mat a, texla_mat b, const texla_lcp_desc *d,
                                     texla_mat x, texla_mat w, texla_mat t, texla_mat u,
                                     texla_scalar bmax, texla_scalar tmp, texla_scalar res) {
    texla_result r = texla_mat_matmul(ctx, a, x, w);
    if (!r) r = texla_mat_acc(ctx, texla_host(1.0f), b, w);
    if (!r) r = texla_mat_sub(ctx, x, w, t);
    if (!r) r = d->friction_index.id ? texla_lcp_project(ctx, t, d->friction_index, d->friction_mu, u)
                                     : texla_mat_clamp_min(ctx, t, 0.0f, u);
    if (!r) r = texla_mat_sub(ctx, x, u, t);
    if (!r) r = texla_mat_maxabs(ctx, t, tmp);
    if (!r) r = texla_scalar_div_or_zero(ctx, tmp, bmax, res);
    return r;
}

/* the workspace's objects (ws[k], nws of them) neither the call's own (ins[i], named names[i];
 * 0: none) nor each other: the iteration writes them (a workspace holding b overwrote it, and
 * the verdict, measured against the overwritten b, said solved) */
static texla_result ws_alias(texla_ctx *ctx, const char *fn, const uint64_t *ws, int nws,
                             const uint64_t *ins, const char *const *names, int nin) {
    for (int k = 0; k < nws; k++) {
        for (int i = 0; i < nin; i++)
            if (ins[i] && ws[k] == ins[i])
                return texla_ctx_fail(ctx, TEXLA_ERR_ALIAS,
                                      "%s: the workspace's entry %d is also %s; the iteration "
                                      "writes the workspace, so its entries must be of their own",
                                      fn, k, names[i]);
        for (int j = 0; j < k; j++)
            if (ws[j] == ws[k])
                return texla_ctx_fail(ctx, TEXLA_ERR_ALIAS,
                                      "%s: the workspace's entries %d and %d are one object", fn,
                                      j, k);
    }
    return TEXLA_OK;
}

texla_result texla_lcp_jacobi(texla_ctx *ctx, texla_mat a, texla_mat b, const texla_lcp_desc *desc_in,
                              texla_mat x, texla_lcp_result *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla_lcp_desc desc = {0};
    if (desc_in) desc = *desc_in;
    int iters = desc.iterations ? desc.iterations : 100;
    float omega = desc.omega != 0.0f ? desc.omega : 1.0f;
    if (iters < 0 || !isfinite(omega) || omega < 0)
        return texla_ctx_fail(ctx, TEXLA_ERR_ARGUMENT,
                           "texla_lcp_jacobi: iterations %d must be >= 0 and omega %g finite and > 0",
                           desc.iterations, desc.omega);
    if (!(desc.tol >= 0) || !isfinite(desc.tol) || desc.check_every < 0 || desc.history_cap < 0 ||
        (desc.history_cap > 0 && !desc.history))
        return texla_ctx_fail(ctx, TEXLA_ERR_ARGUMENT,
                              "texla_lcp_jacobi: tol %g must be finite and >= 0, check_every %d "
                              ">= 0, and history_cap %d >= 0 with a buffer (history %s)",
                              desc.tol, desc.check_every, desc.history_cap,
                              desc.history ? "given" : "NULL");
    texla_mat_info ai, bi, xi;
    texla_result r = texla_mat_info_get(ctx, a, &ai);
    if (!r) r = texla_mat_info_get(ctx, b, &bi);
    if (!r) r = texla_mat_info_get(ctx, x, &xi);
    if (r) return r;
    int n = ai.rows;
    if (ai.cols != n || bi.rows != n || bi.cols != 1 || xi.rows != n || xi.cols != 1)
        return texla_ctx_fail(ctx, TEXLA_ERR_SHAPE,
                           "texla_lcp_jacobi: a must be n x n and b, x n x 1; they are %d x %d, "
                           "%d x %d, %d x %d", ai.rows, ai.cols, bi.rows, bi.cols, xi.rows, xi.cols);
    uint64_t ins[4] = {a.id, b.id, desc.friction_index.id, desc.friction_mu.id};
    static const char *const names[4] = {"a", "b", "friction_index", "friction_mu"};
    for (int i = 0; i < 4; i++)
        if (ins[i] == x.id)
            return texla_ctx_fail(ctx, TEXLA_ERR_ALIAS,
                               "texla_lcp_jacobi: x is also %s; the iteration rewrites x, so it "
                               "must be a matrix of its own", names[i]);
    int bounded = desc.friction_index.id != 0;
    if (bounded != (desc.friction_mu.id != 0))
        return texla_ctx_fail(ctx, TEXLA_ERR_HANDLE,
                              "texla_lcp_jacobi: friction_index and friction_mu come together; "
                              "%s is the null handle", bounded ? "friction_mu" : "friction_index");
    texla_mat_info fi, fm;
    if (bounded) {
        r = texla_mat_info_get(ctx, desc.friction_index, &fi);
        if (!r) r = texla_mat_info_get(ctx, desc.friction_mu, &fm);
        if (r) return r;
        if (fi.rows != n || fi.cols != 1 || fm.rows != n || fm.cols != 1)
            return texla_ctx_fail(ctx, TEXLA_ERR_SHAPE,
                               "texla_lcp_jacobi: friction_index and friction_mu must be %d x 1; "
                               "they are %d x %d and %d x %d", n, fi.rows, fi.cols, fm.rows, fm.cols);
    }
    texla_lcp_workspace own = {0}, *ws = desc.workspace;
    if (ws && ws->n != n)
        return texla_ctx_fail(ctx, TEXLA_ERR_SHAPE,
                              "texla_lcp_jacobi: the workspace is for n = %d; this LCP has n = %d",
                              ws->n, n);
    /* every work matrix checked before x is touched: one used only at the end (w, for the
     * measures) must not fail the call after the iterations rewrote x */
    for (int k = 0; ws && k < 4; k++) {
        texla_mat_info wi;
        r = texla_mat_info_get(ctx, ws->m[k], &wi);
        if (r) return r;
        if (wi.rows != n || wi.cols != 1)
            return texla_ctx_fail(ctx, TEXLA_ERR_SHAPE,
                                  "texla_lcp_jacobi: workspace matrix %d is %d x %d; it must be "
                                  "%d x 1", k, wi.rows, wi.cols, n);
    }
    if (ws) {
        uint64_t wids[4] = {ws->m[0].id, ws->m[1].id, ws->m[2].id, ws->m[3].id};
        uint64_t all[5] = {a.id, b.id, x.id, desc.friction_index.id, desc.friction_mu.id};
        static const char *const all_names[5] = {"a", "b", "x", "friction_index", "friction_mu"};
        r = ws_alias(ctx, "texla_lcp_jacobi", wids, 4, all, all_names, 5);
        if (r) return r;
    }
    texla_ctx_begin(ctx);
    if (!ws) {
        r = texla_lcp_workspace_make(ctx, n, &own);
        ws = &own;
    }
    texla_mat d = ws->m[0], e = ws->m[1], w = ws->m[2], x2 = ws->m[3];
    /* e = -omega / diag(A) */
    if (!r) r = texla_mat_diag(ctx, a, d);
    if (!r) r = texla_mat_recip(ctx, d, -omega, e);
    /* progress and history: the natural residual every k iterations, read asynchronously
     * (d is free once e is made; w is rewritten by every iteration) */
    lcp_report rp = {&desc, iters, 0, 0};
    int every = desc.check_every;
    if (!every && (desc.progress || (desc.history && desc.history_cap > 0))) every = 16;
    texla_scalar bmax = {0}, tmp = {0}, res[2] = {{0}, {0}};
    int pending = -1, pending_it = 0, it = 0;
    if (!r && every) {
        r = texla_scalar_make(ctx, 0.0f, &bmax);
        if (!r) r = texla_scalar_make(ctx, 0.0f, &tmp);
        if (!r) r = texla_scalar_make(ctx, 0.0f, &res[0]);
        if (!r) r = texla_scalar_make(ctx, 0.0f, &res[1]);
        if (!r) r = texla_mat_maxabs(ctx, b, bmax);
    }
    /* x <- project(x + (A x + b) .* e): the product, the seed's madad and the projection as
     * one step (one kernel on the compute backend), between x and x2 in turn: after an odd
     * number of iterations the iterate is in x2 */
    texla_mat proj_i = bounded ? desc.friction_index : (texla_mat){0};
    texla_mat proj_mu = bounded ? desc.friction_mu : (texla_mat){0};
    for (int i = 0; i < iters && !r; i++) {
        r = i % 2 == 0 ? texla_lcp_step(ctx, a, b, e, x, proj_i, proj_mu, x2)
                       : texla_lcp_step(ctx, a, b, e, x2, proj_i, proj_mu, x);
        it = i + 1;
        if (r || !every || it % every) continue;
        float v;
        if (pending >= 0 && texla_scalar_read_poll(ctx, res[pending], &v) == TEXLA_OK) {
            report(&rp, pending_it, v);
            pending = -1;
            if (rp.cancelled) break;
        }
        if (pending < 0 && it < iters) {
            int k = (it / every) & 1;
            texla_mat cur = it % 2 ? x2 : x, spare = it % 2 ? x : x2;
            r = natural_residual(ctx, a, b, &desc, cur, w, spare, d, bmax, tmp, res[k]);
            if (!r) r = texla_scalar_read_start(ctx, res[k]);
            if (!r) pending = k, pending_it = it;
        }
    }
    if (!r && it % 2) r = texla_mat_copy(ctx, x2, x); /* the iterate back into x */
    if (!r && every) { /* the x returned: its residual ends the history */
        float v = 0;
        if (rp.len == desc.history_cap && rp.len > 0) rp.len--;
        r = natural_residual(ctx, a, b, &desc, x, w, x2, d, bmax, tmp, res[0]);
        if (!r) r = texla_scalar_read(ctx, res[0], &v);
        int cancelled = rp.cancelled;
        if (!r) report(&rp, it, v);
        rp.cancelled = cancelled;
    }
    texla_scalar_destroy(ctx, bmax), texla_scalar_destroy(ctx, tmp);
    texla_scalar_destroy(ctx, res[0]), texla_scalar_destroy(ctx, res[1]);
    if (!r && out) {
        /* the measures: w = A x + b, read back once with x and b */
        float *hx = malloc(sizeof *hx * (size_t)n * 5), *hw = hx + n, *hi = hx + 2 * n,
              *hm = hx + 3 * n, *hb = hx + 4 * n;
        r = hx ? TEXLA_OK : texla_ctx_fail(ctx, TEXLA_ERR_MEMORY, "texla_lcp_jacobi: out of memory");
        if (!r) r = texla_mat_matmul(ctx, a, x, w);
        if (!r) r = texla_mat_acc(ctx, texla_host(1.0f), b, w);
        if (!r) r = texla_mat_read(ctx, x, hx);
        if (!r) r = texla_mat_read(ctx, w, hw);
        if (!r) r = texla_mat_read(ctx, b, hb);
        if (!r && bounded) r = texla_mat_read(ctx, desc.friction_index, hi);
        if (!r && bounded) r = texla_mat_read(ctx, desc.friction_mu, hm);
        if (!r && bounded) r = check_friction(ctx, "texla_lcp_jacobi", hi, n);
        if (!r) {
            verdict(n, hx, hw, hb, hi, hm, bounded, desc.tol, out);
            out->iterations = it;
            out->history_len = rp.len;
            if (rp.cancelled && out->status != TEXLA_LCP_NAN) out->status = TEXLA_LCP_CANCELLED;
        }
        free(hx);
    }
    texla_lcp_workspace_destroy(ctx, &own);
    texla_ctx_end(ctx);
    return r;
}

/* ---- any operator (texla_op) ---- */

texla_result texla_lcp_op_workspace_make(texla_ctx *ctx, texla_vec like,
                                         texla_lcp_op_workspace *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    if (!out)
        return texla_ctx_fail(ctx, TEXLA_ERR_ARGUMENT, "texla_lcp_op_workspace_make: out is NULL");
    *out = (texla_lcp_op_workspace){0};
    texla_vec_info li;
    texla_result r = texla_vec_info_get(ctx, like, &li);
    for (int k = 0; k < 3 && !r; k++) r = texla_vec_make_like(ctx, like, &out->v[k]);
    if (r) texla_lcp_op_workspace_destroy(ctx, out);
    else out->n = li.n;
    return r;
}

/* as texla_lcp_workspace_destroy */
void texla_lcp_op_workspace_destroy(texla_ctx *ctx, texla_lcp_op_workspace *ws) {
    if (!ctx || !ws) return;
    uint64_t any = 0;
    for (int k = 0; k < 3; k++) any |= ws->v[k].id;
    if (!any) return; /* zeroed: nothing asked of GL */
    if (texla_ctx_check(ctx, "texla_lcp_op_workspace_destroy")) return;
    texla_ctx_begin(ctx);
    for (int k = 0; k < 3; k++) texla_vec_destroy(ctx, ws->v[k]);
    *ws = (texla_lcp_op_workspace){0};
    texla_ctx_end(ctx);
}

/* a and b of one layout (the element count and the grid) */
static int same_layout(const texla_vec_info *a, const texla_vec_info *b) {
    return a->n == b->n && a->nx == b->nx && a->gx == b->gx && a->gy == b->gy;
}

/* the measures and the verdict of texla_lcp_result (as texla_lcp_jacobi's) from x, w = A x + b
 * and b, read back once */
static texla_result measures(texla_ctx *ctx, int n, texla_vec x, texla_vec w, texla_vec b,
                             int bounded, texla_vec fi, texla_vec fm, float tol_in, int iters,
                             texla_lcp_result *out) {
    float *hx = malloc(sizeof *hx * (size_t)n * 5), *hw = hx + n, *hi = hw + n, *hm = hi + n,
          *hb = hm + n;
    if (!hx) return texla_ctx_fail(ctx, TEXLA_ERR_MEMORY, "texla_lcp_jacobi_op: out of memory");
    texla_result r = texla_vec_read(ctx, x, hx);
    if (!r) r = texla_vec_read(ctx, w, hw);
    if (!r) r = texla_vec_read(ctx, b, hb);
    if (!r && bounded) r = texla_vec_read(ctx, fi, hi);
    if (!r && bounded) r = texla_vec_read(ctx, fm, hm);
    if (!r && bounded) r = check_friction(ctx, "texla_lcp_jacobi_op", hi, n);
    if (!r) {
        verdict(n, hx, hw, hb, hi, hm, bounded, tol_in, out);
        out->iterations = iters;
    }
    free(hx);
    return r;
}

texla_result texla_lcp_jacobi_op(texla_ctx *ctx, texla_op a, texla_vec b,
                                 const texla_lcp_op_desc *desc_in, texla_vec x,
                                 texla_lcp_result *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_lcp_jacobi_op";
    texla_lcp_op_desc desc = {0};
    if (desc_in) desc = *desc_in;
    int iters = desc.iterations ? desc.iterations : 100;
    float omega = desc.omega != 0.0f ? desc.omega : 1.0f;
    if (iters < 0 || !isfinite(omega) || omega < 0)
        return texla_ctx_fail(ctx, TEXLA_ERR_ARGUMENT,
                              "%s: iterations %d must be >= 0 and omega %g finite and > 0", fn,
                              desc.iterations, desc.omega);
    if (!(desc.tol >= 0) || !isfinite(desc.tol))
        return texla_ctx_fail(ctx, TEXLA_ERR_ARGUMENT, "%s: tol %g must be finite and >= 0", fn,
                              desc.tol);
    int rows = 0, cols = 0;
    texla_result r = texla_op_shape(ctx, a, &rows, &cols);
    texla_vec_info bi, xi, vi;
    if (!r) r = texla_vec_info_get(ctx, b, &bi);
    if (!r) r = texla_vec_info_get(ctx, x, &xi);
    if (r) return r;
    if (rows != cols || bi.n != rows || !same_layout(&bi, &xi))
        return texla_ctx_fail(ctx, TEXLA_ERR_SHAPE,
                              "%s: a must be n x n and b, x vectors of n elements in one layout; a "
                              "is %d x %d, b has %d elements (grid %d x %d), x %d (grid %d x %d)",
                              fn, rows, cols, bi.n, bi.gx, bi.gy, xi.n, xi.gx, xi.gy);
    int bounded = desc.friction_index.id != 0 || desc.friction_mu.id != 0;
    if (bounded && (!desc.friction_index.id || !desc.friction_mu.id))
        return texla_ctx_fail(ctx, TEXLA_ERR_HANDLE,
                              "%s: friction_index and friction_mu come together; %s is the null "
                              "handle", fn, desc.friction_index.id ? "friction_mu" : "friction_index");
    const texla_vec opt[3] = {desc.diag, desc.friction_index, desc.friction_mu};
    static const char *const names[3] = {"diag", "friction_index", "friction_mu"};
    for (int i = 0; i < 3; i++) {
        if (opt[i].id == 0 && (i == 0 || !bounded)) continue;
        r = texla_vec_info_get(ctx, opt[i], &vi);
        if (r) return r;
        if (!same_layout(&vi, &xi))
            return texla_ctx_fail(ctx, TEXLA_ERR_SHAPE,
                                  "%s: %s has %d elements (grid %d x %d); x has %d (grid %d x %d)",
                                  fn, names[i], vi.n, vi.gx, vi.gy, xi.n, xi.gx, xi.gy);
        if (opt[i].id == x.id)
            return texla_ctx_fail(ctx, TEXLA_ERR_ALIAS,
                                  "%s: x is also %s; the iteration rewrites x, so it must be a "
                                  "vector of its own", fn, names[i]);
    }
    if (b.id == x.id)
        return texla_ctx_fail(ctx, TEXLA_ERR_ALIAS,
                              "%s: x is also b; the iteration rewrites x, so it must be a vector "
                              "of its own", fn);
    if (desc.diag.id == 0 && a.kind != TEXLA_OP_DENSE)
        return texla_ctx_fail(ctx, TEXLA_ERR_ARGUMENT,
                              "%s: desc.diag is 0 and a is not dense: texla computes diag(A) for a "
                              "dense A only; give it (for A = J M^-1 J', row i's J_i M^-1 J_i')",
                              fn);
    texla_lcp_op_workspace own = {0}, *ws = desc.workspace;
    if (ws) {
        texla_vec_info wi;
        for (int k = 0; k < 3 && !r; k++) {
            r = texla_vec_info_get(ctx, ws->v[k], &wi);
            if (!r && !same_layout(&wi, &xi))
                r = texla_ctx_fail(ctx, TEXLA_ERR_SHAPE,
                                   "%s: the workspace is for vectors of %d elements (grid %d x %d);"
                                   " x has %d (grid %d x %d)", fn, wi.n, wi.gx, wi.gy, xi.n, xi.gx,
                                   xi.gy);
        }
        uint64_t wids[3] = {ws->v[0].id, ws->v[1].id, ws->v[2].id};
        uint64_t all[5] = {b.id, x.id, desc.diag.id, desc.friction_index.id,
                           desc.friction_mu.id};
        static const char *const all_names[5] = {"b", "x", "diag", "friction_index",
                                                 "friction_mu"};
        if (!r) r = ws_alias(ctx, fn, wids, 3, all, all_names, 5);
        if (r) return r;
    }
    /* a product operator writes its mid: not b, x, diag, the friction vectors or a work vector
     * (the first product would overwrite it) */
    for (int k = 0; a.kind == TEXLA_OP_PRODUCT && k < (ws ? 8 : 5); k++) {
        const texla_vec own_v[5] = {b, x, desc.diag, desc.friction_index, desc.friction_mu};
        texla_vec v = k < 5 ? own_v[k] : ws->v[k - 5];
        static const char *const vn[8] = {"b", "x", "diag", "friction_index", "friction_mu",
                                          "the workspace's vector 0", "the workspace's vector 1",
                                          "the workspace's vector 2"};
        int w = 0;
        if (v.id == 0) continue;
        if ((r = texla_op_writes(ctx, a, v, &w))) return r;
        if (w)
            return texla_ctx_fail(ctx, TEXLA_ERR_ALIAS, "%s: %s is the product operator's "
                                  "intermediate vector (mid), which every product rewrites", fn,
                                  vn[k]);
    }
    texla_ctx_begin(ctx);
    if (!ws) {
        r = texla_lcp_op_workspace_make(ctx, x, &own);
        ws = &own;
    }
    texla_vec e = ws->v[0], w = ws->v[1], x2 = ws->v[2];
    /* e = -omega / diag(A); a dense A's diagonal goes through w (as n x 1) */
    if (!r && desc.diag.id) {
        r = texla_vec_recip(ctx, desc.diag, -omega, e);
    } else if (!r) {
        texla_mat d = {0};
        r = texla_mat_make(ctx, rows, 1, NULL, &d);
        if (!r) r = texla_mat_diag(ctx, (texla_mat){a.id}, d);
        if (!r) r = texla_vec_from_mat(ctx, d, w);
        if (!r) r = texla_vec_recip(ctx, w, -omega, e);
        texla_mat_destroy(ctx, d);
    }
    /* x <- project(x + (A x + b) .* e), iters times */
    texla_vec none = {0};
    texla_vec fi = bounded ? desc.friction_index : none, fm = bounded ? desc.friction_mu : none;
    if (!r) r = texla_op_lcp_iterate(ctx, a, b, e, fi, fm, iters, w, x2, x);
    if (!r && out) {
        /* the measures: w = A x + b, read back once with x */
        r = texla_op_matvec(ctx, a, x, x2);
        if (!r) r = texla_vec_add(ctx, x2, b, w);
        if (!r) r = measures(ctx, rows, x, w, b, bounded, fi, fm, desc.tol, iters, out);
    }
    texla_lcp_op_workspace_destroy(ctx, &own);
    texla_ctx_end(ctx);
    return r;
}
