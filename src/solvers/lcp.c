/* lcp.c - projected Jacobi for linear complementarity problems, built only from texla's public
 * operations (texla.h): no GL here, no read-back inside the iterations. */
#include "texla.h"

#include <math.h>
#include <stdlib.h>

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

void texla_lcp_workspace_destroy(texla_ctx *ctx, texla_lcp_workspace *ws) {
    if (!ctx || !ws) return;
    for (int k = 0; k < 4; k++) texla_mat_destroy(ctx, ws->m[k]);
    *ws = (texla_lcp_workspace){0};
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
    texla_ctx_begin(ctx);
    if (!ws) {
        r = texla_lcp_workspace_make(ctx, n, &own);
        ws = &own;
    }
    texla_mat d = ws->m[0], e = ws->m[1], w = ws->m[2], x2 = ws->m[3];
    /* e = -omega / diag(A) */
    if (!r) r = texla_mat_diag(ctx, a, d);
    if (!r) r = texla_mat_recip(ctx, d, -omega, e);
    /* x <- project(x + (A x + b) .* e): the product, the seed's madad and the projection as
     * one step (one kernel on the compute backend), between x and x2 in turn */
    texla_mat proj_i = bounded ? desc.friction_index : (texla_mat){0};
    texla_mat proj_mu = bounded ? desc.friction_mu : (texla_mat){0};
    for (int i = 0; i < iters && !r; i++)
        r = i % 2 == 0 ? texla_lcp_step(ctx, a, b, e, x, proj_i, proj_mu, x2)
                       : texla_lcp_step(ctx, a, b, e, x2, proj_i, proj_mu, x);
    if (!r && iters % 2) r = texla_mat_copy(ctx, x2, x);
    if (!r && out) {
        /* the measures: w = A x + b, read back once with x */
        float *hx = malloc(sizeof *hx * (size_t)n * 4), *hw = hx + n, *hi = hx + 2 * n,
              *hm = hx + 3 * n;
        r = hx ? TEXLA_OK : texla_ctx_fail(ctx, TEXLA_ERR_MEMORY, "texla_lcp_jacobi: out of memory");
        if (!r) r = texla_mat_matmul(ctx, a, x, w);
        if (!r) r = texla_mat_acc(ctx, texla_host(1.0f), b, w);
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
    texla_lcp_workspace_destroy(ctx, &own);
    texla_ctx_end(ctx);
    return r;
}
