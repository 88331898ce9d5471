/* splcp.c - projected Jacobi steps with the sparse product inside (texla_op_lcp_step on the
 * compute backend): dst = project(x + (A x + b) .* e) in one kernel pass for a sparse A, two for
 * A = L R with L and R sparse (R x into a storage buffer, then L's rows, the step and the
 * projection in one pass), glsl/kernels/lcp_sparse.comp, on each matrix's natural CSR. The
 * matrix-free contact LCP (J (M^-1 J' x)) was three passes an iteration through the tuned
 * products (the products, then texla_vec_lcp_step) and ran at ~37 us an iteration on the H100
 * whatever its size, bound by the passes and a block-row schedule with little parallelism on a
 * few thousand rows; here each row has L lanes. No GL here. */
#include "storage/sparse.h"

#include <stdio.h>

#define LCP_WG 128

/* lanes per row for rows of `mean` entries: each lane takes about three */
static int lanes_for(long long nnz, int rows) {
    double mean = rows > 0 ? (double)nnz / rows : 0;
    int L = 1;
    while (L < 32 && L * 3 < mean) L *= 2;
    return L;
}

static void bind3(texla__pass *p, const sp_nat *n) {
    p->ssbo[0].b = &n->buf[0];
    p->ssbo[1].b = &n->buf[1];
    p->ssbo[2].b = &n->buf[2];
}

texla_result sp_lcp_step(texla_ctx *ctx, const char *fn, texla__obj *l, texla__obj *r,
                         const texla__obj *x, const texla__obj *b, const texla__obj *e,
                         const texla__obj *idx, const texla__obj *mu, texla__obj *dst, int *done) {
    *done = 0;
    if (!ctx->gl.info.compute ||
        texla__backend_of(&ctx->gl, TEXLA__P_SPMV) != TEXLA_BACKEND_COMPUTE)
        return TEXLA_OK;
    /* real entries; L's rows are x's elements; the columns read from x's texture are in x's
     * layout (checked before anything is uploaded) */
    const texla__layout *lrl, *lcl, *rrl = NULL, *rcl = NULL;
    if (!sp_layouts(l, &lrl, &lcl) || (r && !sp_layouts(r, &rrl, &rcl)) ||
        !texla__same_layout(lrl, &x->lay) || !texla__same_layout(r ? rcl : lcl, &x->lay) ||
        (r && lcl->n != rrl->n))
        return TEXLA_OK;
    texla_result res;
    const sp_nat *nl = sp_natural(ctx, fn, l, 0, &res), *nr = NULL;
    if (res) return res;
    if (r && !(nr = sp_natural(ctx, fn, r, 1, &res))) return res;
    int Ll = lanes_for(nl->nnz, nl->rows), Lr = nr ? lanes_for(nr->nnz, nr->rows) : 1;
    char defs[160];
    if (nr) { /* mid = R x */
        snprintf(defs, sizeof defs, "#define MODE 0\n#define MID 0\n#define BOUNDED 0\n"
                 "#define L %d\n#define WG %d", Lr, LCP_WG);
        texla__pass p = {.prog = TEXLA__P_LCP_SPARSE_K, .defines = defs, .src = {&x->t},
                         .draw = TEXLA__DRAW_KERNEL};
        bind3(&p, nr);
        p.ssbo[3].b = &nr->buf[3];
        p.i0[0] = nr->rows;
        res = sp_groups_of(ctx, ((long long)nr->rows + LCP_WG / Lr - 1) / (LCP_WG / Lr), &p);
        if (!res) res = texla__run(&ctx->gl, &p);
        if (res) return res;
    }
    int bounded = idx != NULL;
    snprintf(defs, sizeof defs, "#define MODE 1\n#define MID %d\n#define BOUNDED %d\n"
             "#define L %d\n#define WG %d", nr != NULL, bounded, Ll, LCP_WG);
    texla__pass p = {.prog = TEXLA__P_LCP_SPARSE_K, .defines = defs, .dst = &dst->t,
                     .src = {&x->t, &b->t, &e->t}, .draw = TEXLA__DRAW_KERNEL};
    if (bounded) p.src[3] = &idx->t, p.src[4] = &mu->t;
    bind3(&p, nl);
    if (nr) p.ssbo[3].b = &nr->buf[3];
    long long texels = (long long)dst->t.w * dst->t.h;
    p.i0[0] = x->lay.n;
    p.i0[1] = x->lay.nx;
    p.i0[2] = dst->t.w;
    p.i0[3] = (int)texels;
    p.i1[0] = lcl->nx; /* the intermediate vector's row width: its element from a column */
    int per = LCP_WG / Ll / 4; /* texels a workgroup */
    res = sp_groups_of(ctx, (texels + per - 1) / per, &p);
    if (!res) res = texla__run(&ctx->gl, &p);
    if (!res) *done = 1;
    return res;
}
