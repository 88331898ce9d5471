/* lcp_op.c - projected Jacobi for LCPs whose matrix is any operator (texla_op: a product of
 * sparse matrices for contacts, never formed), on vectors; built only from texla's public
 * operations (texla.h): no GL here, no read-back inside the iterations. */
#include "texla.h"
#include "solvers/lcp_verdict.h"

#include <math.h>
#include <stdlib.h>

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

void texla_lcp_op_workspace_destroy(texla_ctx *ctx, texla_lcp_op_workspace *ws) {
    if (!ctx || !ws) return;
    for (int k = 0; k < 3; k++) texla_vec_destroy(ctx, ws->v[k]);
    *ws = (texla_lcp_op_workspace){0};
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
    if (!r && bounded) r = texla__lcp_check_friction(ctx, "texla_lcp_jacobi_op", hi, n);
    if (!r) {
        texla__lcp_verdict(n, hx, hw, hb, hi, hm, bounded, tol_in, out);
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
        if (r) return r;
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
    /* x <- project(x + (A x + b) .* e), alternating between x and x2 */
    texla_vec cur = x, nxt = x2, none = {0};
    texla_vec fi = bounded ? desc.friction_index : none, fm = bounded ? desc.friction_mu : none;
    for (int i = 0; i < iters && !r; i++) {
        r = texla_op_lcp_step(ctx, a, cur, b, e, fi, fm, w, nxt);
        texla_vec t = cur;
        cur = nxt, nxt = t;
    }
    if (!r && cur.id != x.id) r = texla_vec_copy(ctx, cur, x);
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
