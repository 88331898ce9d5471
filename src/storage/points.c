/* points.c - the sparse product's fragment-backend forms (OpenGL 3.3), built from the real
 * expansion of a plane (compound entries as their 2x2 / 4x4 real blocks, so every entry type
 * runs here too):
 *  - points (Krueger & Westermann, GPU Gems 2 ch. 44): one vertex per group of up to four
 *    entries of a row, drawn as a point on the row's texel of y; its vertex shader fetches x at
 *    the four columns and the points of a row add up by blending, each writing only its row's
 *    channel (glsl/sparse.vert, sparse.frag);
 *  - gather: one fragment per texel of y sums its four rows from two textures, the rows' first
 *    entries and lengths and the entries themselves (glsl/spmv.frag).
 * No GL here. */
#include "storage/sparse.h"

#include <stdlib.h>
#include <string.h>

/* One vertex: up to four entries of one row (unused: col -1, val 0). */
typedef struct sparse_vertex {
    int32_t row;
    int32_t col[4];
    float val[4];
} sparse_vertex;

static const texla__attr attrs[3] = {
    {0, 1, GL_INT, offsetof(sparse_vertex, row)},
    {1, 4, GL_INT, offsetof(sparse_vertex, col)},
    {2, 4, GL_FLOAT, offsetof(sparse_vertex, val)},
};

texla_result sp_points_make(texla_ctx *ctx, const char *fn, const sp_plane *p, sp_form *f) {
    memset(f, 0, sizeof *f);
    f->fv.format = TEXLA_SPARSE_POINTS;
    sp_csr re;
    texla_result r = sp_csr_real(ctx, fn, p->m, &re);
    if (r) return r;
    long long nv = 0;
    for (int i = 0; i < re.rows; i++) nv += (re.ptr[i + 1] - re.ptr[i] + 3) / 4;
    if (nv > 0x7fffffffLL / (long long)sizeof(sparse_vertex)) {
        sp_csr_free(&re);
        return texla__fail(ctx, TEXLA_ERR_LIMIT, "%s: %lld points do not fit one vertex buffer",
                           fn, nv);
    }
    sparse_vertex *v = malloc(sizeof *v * texla__at_least_one(nv));
    if (!v) {
        sp_csr_free(&re);
        return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory for %lld points", fn,
                           nv);
    }
    long long w = 0;
    for (int i = 0; i < re.rows; i++)
        for (int e = re.ptr[i]; e < re.ptr[i + 1]; e += 4, w++) {
            v[w].row = i;
            for (int q = 0; q < 4; q++) {
                int has = e + q < re.ptr[i + 1];
                v[w].col[q] = has ? re.col[e + q] : -1;
                v[w].val[q] = has ? re.val[e + q] : 0.0f;
            }
        }
    f->nverts = (int)nv;
    if (nv)
        r = texla__points_make(&ctx->gl, v, (int)nv, sizeof *v, attrs, 3, &f->vao, &f->vbo);
    f->bytes = (double)nv * sizeof *v;
    f->padding = re.nnz ? (double)(nv * 4 - re.nnz) / (double)re.nnz : 0;
    free(v);
    sp_csr_free(&re);
    return r;
}

texla_result sp_gather_make(texla_ctx *ctx, const char *fn, const sp_plane *p, sp_form *f) {
    memset(f, 0, sizeof *f);
    f->fv.format = TEXLA_SPARSE_GATHER;
    sp_csr re;
    texla_result r = sp_csr_real(ctx, fn, p->m, &re);
    if (r) return r;
    sp_rows rows;
    r = sp_rows_make(ctx, fn, &p->out, 1, &rows);
    if (r) return sp_csr_free(&re), r;
    int max = ctx->gl.info.max_texture_size, shift = 12;
    while ((1 << shift) > max) shift--;
    long long ne = re.nnz, eh = (ne + (1LL << shift) - 1) >> shift;
    int W = p->out.gx / 2, H = p->out.gy / 2;
    if (eh < 1) eh = 1;
    if (eh > max) {
        sp_rows_free(&rows), sp_csr_free(&re);
        return texla__fail(ctx, TEXLA_ERR_LIMIT,
                           "%s: the gather form's %lld entries need a %d x %lld texture; this GL "
                           "allows at most %d x %d (GL_MAX_TEXTURE_SIZE)", fn, ne, 1 << shift, eh,
                           max, max);
    }
    r = texla__check_size(&ctx->gl, fn, 2 * W, H);
    float *info = calloc((size_t)2 * W * H * 4, sizeof *info);
    float *ent = calloc((size_t)eh << shift, 4 * sizeof *ent);
    if (!r && (!info || !ent))
        r = texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory for the gather form", fn);
    if (!r) {
        long long w = 0;
        for (int g = 0; g < rows.ngroups; g++) {
            float *a = info + (size_t)8 * g; /* texels (2 tx, ty) and (2 tx + 1, ty) */
            a[0] = (float)(w & ((1LL << shift) - 1));
            a[1] = (float)(w >> shift);
            for (int c = 0; c < 4; c++) {
                int i = rows.nat[g * 4 + c];
                int n = i < 0 ? 0 : re.ptr[i + 1] - re.ptr[i];
                a[c < 2 ? 2 + c : 4 + c - 2] = (float)n;
                for (int e = i < 0 ? 0 : re.ptr[i]; n > 0 && e < re.ptr[i + 1]; e++, w++) {
                    uint32_t loc = sp_loc(&p->in, re.col[e]);
                    float *q = ent + (size_t)w * 4;
                    q[0] = re.val[e];
                    q[1] = (float)(loc & 0x7fff);
                    q[2] = (float)((loc >> 15) & 0x7fff);
                    q[3] = (float)(loc >> 30);
                }
            }
        }
        r = texla__tex_make(&ctx->gl, 2 * W, H, &f->tex[0]);
        if (!r) r = texla__tex_upload(&ctx->gl, &f->tex[0], info);
        if (!r) r = texla__tex_make(&ctx->gl, 1 << shift, (int)eh, &f->tex[1]);
        if (!r) r = texla__tex_upload(&ctx->gl, &f->tex[1], ent);
    }
    f->gshift = shift;
    f->bytes = (double)2 * W * H * 16 + (double)(eh << shift) * 16;
    f->padding = 0;
    free(info), free(ent);
    sp_rows_free(&rows), sp_csr_free(&re);
    if (r) sp_form_free(ctx, f);
    return r;
}

texla_result sp_fragment_run(texla_ctx *ctx, const sp_form *f, const texla__obj *x,
                             texla__obj *y, float beta, int add) {
    texla_result r;
    /* y = beta y first (0: cleared; the gather form then replaces when not adding) */
    int gather = f->fv.format == TEXLA_SPARSE_GATHER;
    if (add && beta != 0.0f) {
        if (beta != 1.0f) {
            texla__pass s = {.prog = TEXLA__P_FILL, .dst = &y->t, .blend = TEXLA__BLEND_SCALE,
                             .blend_scale = beta};
            texla__shape_of(y, s.shape);
            r = texla__run(&ctx->gl, &s);
            if (r) return r;
        }
    } else if (!gather) {
        texla__pass clear = {.prog = TEXLA__P_FILL, .dst = &y->t};
        texla__shape_of(y, clear.shape);
        r = texla__run(&ctx->gl, &clear);
        if (r) return r;
    }
    int blend = add && beta != 0.0f;
    if (gather) {
        texla__pass p = {.prog = TEXLA__P_SPMV, .dst = &y->t,
                         .src = {&x->t, &f->tex[0], &f->tex[1]},
                         .blend = blend ? TEXLA__BLEND_ADD : TEXLA__BLEND_NONE};
        p.shape[0] = -1;
        p.i0[0] = f->gshift;
        /* the compute version of the same program when "spmv" runs there is not used: the
         * kernels are; this form is always drawn */
        return texla__run(&ctx->gl, &p);
    }
    if (!f->nverts) return TEXLA_OK;
    texla__pass p = {.prog = TEXLA__P_POINTS, .dst = &y->t, .src = {&x->t},
                     .blend = TEXLA__BLEND_ADD, .draw = TEXLA__DRAW_POINTS, .vao = f->vao,
                     .count = f->nverts};
    texla__shape_of(y, p.shape);
    p.i0[0] = y->t.w;
    p.i0[1] = y->t.h;
    p.i0[2] = x->lay.nx;
    return texla__run(&ctx->gl, &p);
}
