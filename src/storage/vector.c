/* vector.c - 2D vectors with 2x2 packing (Krueger & Westermann): making, writing, reading,
 * splats, the conversions to and from the dense n x 1 layout, and the image grid. The
 * element-wise operations and reductions are ops/. No GL here. */
#include "core/core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define V(nm, h) {nm, (h).id, TEXLA__KIND_VEC, NULL}

static void describe(const texla__obj *o, char *buf, size_t n) {
    snprintf(buf, n, "a vector of %d elements (rows %d wide, grid %d x %d)", o->lay.n, o->lay.nx,
             o->lay.gx, o->lay.gy);
}

static texla_result grid(texla_ctx *ctx, texla__obj *v, const texla__grid_req *q, texla__grid *g);

static const texla__kind_desc kind = {"vector", NULL, describe, grid};

/* ---- making, writing, reading ---- */

static texla_result upload(texla_ctx *ctx, texla__obj *o, const float *data) {
    size_t n = (size_t)o->t.w * (size_t)o->t.h * 4;
    float *tx = calloc(n, sizeof *tx);
    if (!tx)
        return texla__fail(ctx, TEXLA_ERR_MEMORY, "out of host memory packing a vector of %d",
                           o->lay.n);
    texla__texels_pack(&o->lay, data, tx, o->lay.n);
    texla_result r = texla__tex_upload(&ctx->gl, &o->t, tx);
    free(tx);
    return r;
}

static texla_result make_vec(texla_ctx *ctx, const char *fn, texla__layout lay, const float *data,
                             texla_vec *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: out is NULL", fn);
    out->id = 0;
    char what[96];
    snprintf(what, sizeof what, "%s: a vector of %d elements", fn, lay.n);
    texla_result r = texla__check_size(&ctx->gl, what, lay.gx / 2, lay.gy / 2);
    if (r) return r;
    texla__gl_enter(&ctx->gl);
    texla__obj *o;
    uint64_t id = 0;
    r = texla__tex_obj_new(ctx, TEXLA__KIND_VEC, &kind, lay.gx / 2, lay.gy / 2, &id, &o);
    if (!r) {
        o->lay = lay;
        o->rows = lay.n;
        o->cols = 1;
    }
    if (!r && data) r = upload(ctx, o, data);
    if (!r && !data) {
        texla__pass p = {.prog = TEXLA__P_FILL, .dst = &o->t};
        texla__shape_of(o, p.shape);
        r = texla__run(&ctx->gl, &p);
    }
    if (r && id) texla__obj_release(ctx, id);
    else out->id = id;
    texla__gl_leave(&ctx->gl);
    return r;
}

texla_result texla_vec_make(texla_ctx *ctx, int n, const float *data, texla_vec *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    if (n < 1) {
        if (out) out->id = 0;
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_vec_make: n is %d; it must be >= 1", n);
    }
    /* the most square texture of ceil(n/4) texels whose sides fit the limit */
    long long texels = ((long long)n + 3) / 4;
    long long w = (long long)ceil(sqrt((double)texels)), max = ctx->gl.info.max_texture_size;
    if (w > max) w = max;
    long long h = (texels + w - 1) / w;
    if (h > max) {
        if (out) out->id = 0;
        return texla__fail(ctx, TEXLA_ERR_LIMIT,
                           "texla_vec_make: %d elements need %lld texels; this GL allows at most "
                           "%lld x %lld (GL_MAX_TEXTURE_SIZE)", n, texels, max, max);
    }
    texla__layout lay = {n, (int)(2 * w), (int)(2 * w), (int)(2 * h)};
    return make_vec(ctx, "texla_vec_make", lay, data, out);
}

texla_result texla_vec_make_grid(texla_ctx *ctx, int nx, int ny, const float *data,
                                 texla_vec *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    if (nx < 1 || ny < 1 || (long long)nx * ny > 0x7fffffff) {
        if (out) out->id = 0;
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "texla_vec_make_grid: grid %d x %d; both must be >= 1 and nx*ny must "
                           "fit an int", nx, ny);
    }
    char what[96];
    snprintf(what, sizeof what, "texla_vec_make_grid: a %d x %d grid", nx, ny);
    texla__layout lay;
    texla_result r = texla__grid_lay(ctx, what, nx, ny, &lay);
    if (r) {
        if (out) out->id = 0;
        return r;
    }
    return make_vec(ctx, "texla_vec_make_grid", lay, data, out);
}

texla_result texla_vec_make_like(texla_ctx *ctx, texla_vec v, texla_vec *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla__obj *o = texla__obj_get(ctx, v.id, TEXLA__KIND_VEC);
    if (!o) {
        if (out) out->id = 0;
        return texla__bad_handle(ctx, "texla_vec_make_like", "v", TEXLA__KIND_VEC, v.id);
    }
    return make_vec(ctx, "texla_vec_make_like", o->lay, NULL, out);
}

void texla_vec_destroy(texla_ctx *ctx, texla_vec v) { texla__destroy(ctx, v.id, TEXLA__KIND_VEC); }

texla_result texla_vec_write(texla_ctx *ctx, const float *data, texla_vec v) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla__obj *o = texla__obj_get(ctx, v.id, TEXLA__KIND_VEC);
    if (!o) return texla__bad_handle(ctx, "texla_vec_write", "v", TEXLA__KIND_VEC, v.id);
    if (!data) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_vec_write: data is NULL");
    texla__gl_enter(&ctx->gl);
    texla_result r = upload(ctx, o, data);
    texla__gl_leave(&ctx->gl);
    return r;
}

static texla_result download(texla_ctx *ctx, const char *fn, texla_vec v, int raw, float *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla__obj *o = texla__obj_get(ctx, v.id, TEXLA__KIND_VEC);
    if (!o) return texla__bad_handle(ctx, fn, "v", TEXLA__KIND_VEC, v.id);
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: out is NULL", fn);
    size_t n = (size_t)o->t.w * (size_t)o->t.h * 4;
    float *tx = raw ? out : malloc(n * sizeof *tx);
    if (!tx) return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory", fn);
    texla__gl_enter(&ctx->gl);
    texla_result r = texla__tex_download(&ctx->gl, &o->t, tx);
    texla__gl_leave(&ctx->gl);
    if (!raw) {
        if (!r)
            texla__texels_unpack(&o->lay, tx, out, o->lay.n);
        free(tx);
    }
    return r;
}

texla_result texla_vec_read(texla_ctx *ctx, texla_vec v, float *out) {
    return download(ctx, "texla_vec_read", v, 0, out);
}

texla_result texla_vec_read_raw(texla_ctx *ctx, texla_vec v, float *out) {
    return download(ctx, "texla_vec_read_raw", v, 1, out);
}

texla_result texla_vec_info_get(texla_ctx *ctx, texla_vec v, texla_vec_info *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla__obj *o = texla__obj_get(ctx, v.id, TEXLA__KIND_VEC);
    if (!o) return texla__bad_handle(ctx, "texla_vec_info_get", "v", TEXLA__KIND_VEC, v.id);
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_vec_info_get: out is NULL");
    *out = (texla_vec_info){o->lay.n, o->lay.nx, (o->lay.n + o->lay.nx - 1) / o->lay.nx,
                            o->lay.gx, o->lay.gy, o->t.w, o->t.h, o->t.tex};
    return TEXLA_OK;
}

texla_result texla_vec_splat(texla_ctx *ctx, float x, float y, float radius, float amplitude,
                             texla_vec dst) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_vec_splat";
    texla__operand ops[1] = {V("dst", dst)};
    texla_result r = texla__resolve(ctx, fn, ops, 1);
    if (r) return r;
    if (!isfinite(x) || !isfinite(y) || !isfinite(amplitude) || !(radius > 0) || !isfinite(radius))
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: x %g, y %g, amplitude %g must be finite and radius %g > 0", fn, x,
                           y, amplitude, radius);
    const texla__obj *o = ops[0].o;
    /* the bounding rectangle in texels, clipped to the texture in double before it becomes
     * int (a radius or a position past INT_MAX texels converted out of range: the rectangle
     * came out empty and the splat did nothing) */
    double reach = 3.0 * radius;
    double fx0 = fmax(floor((x - reach) / 2), 0), fx1 = fmin(ceil((x + reach) / 2) + 1, o->t.w);
    double fy0 = fmax(floor((y - reach) / 2), 0), fy1 = fmin(ceil((y + reach) / 2) + 1, o->t.h);
    if (fx0 >= fx1 || fy0 >= fy1) return TEXLA_OK; /* entirely outside the grid */
    int x0 = (int)fx0, x1 = (int)fx1, y0 = (int)fy0, y1 = (int)fy1;
    texla__rect rect = {x0, y0, x1 - x0, y1 - y0, {0, 0, 0, 0}};
    texla__pass p = {.prog = TEXLA__P_SPLAT, .dst = &ops[0].o->t, .blend = TEXLA__BLEND_ADD,
                     .draw = TEXLA__DRAW_RECTS, .rects = &rect, .nrects = 1,
                     .f0 = {x, y, radius, amplitude}};
    texla__shape_of(o, p.shape);
    return texla__run1(ctx, &p);
}

/* ---- conversions ---- */

static texla_result convert(texla_ctx *ctx, const char *fn, texla_mat m, texla_vec v, int to_vec) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla__operand ops[2] = {{"m", m.id, TEXLA__KIND_MAT, NULL}, V("v", v)};
    if (!to_vec) {
        ops[0] = (texla__operand)V("v", v);
        ops[1] = (texla__operand){"dst", m.id, TEXLA__KIND_MAT, NULL};
    }
    texla_result r = texla__resolve(ctx, fn, ops, 2);
    if (r) return r;
    texla__obj *mo = ops[to_vec ? 0 : 1].o, *vo = ops[to_vec ? 1 : 0].o;
    if (mo->cols != 1 || mo->rows != vo->lay.n)
        return texla__fail(ctx, TEXLA_ERR_SHAPE,
                           "%s: the matrix must be n x 1 with n the vector's length; it is %d x "
                           "%d, the vector has %d elements", fn, mo->rows, mo->cols, vo->lay.n);
    texla__gl_enter(&ctx->gl);
    r = to_vec ? texla__dense_to_vec(ctx, &mo->t, vo) : texla__vec_to_dense(ctx, vo, &mo->t);
    texla__gl_leave(&ctx->gl);
    return r;
}

texla_result texla_vec_from_mat(texla_ctx *ctx, texla_mat m, texla_vec dst) {
    return convert(ctx, "texla_vec_from_mat", m, dst, 1);
}

texla_result texla_mat_from_vec(texla_ctx *ctx, texla_vec v, texla_mat dst) {
    return convert(ctx, "texla_mat_from_vec", dst, v, 0);
}


/* ---- the image grid: logical nx x ceil(n/nx), raw gx x gy ---- */

static texla_result grid(texla_ctx *ctx, texla__obj *v, const texla__grid_req *q, texla__grid *g) {
    const texla__layout *l = &v->lay;
    int ny = (l->n + l->nx - 1) / l->nx;
    char layout[96];
    snprintf(layout, sizeof layout, "vector 2x2 gx %d gy %d", l->gx, l->gy);
    texla_result r = q->raw ? texla__grid_make(ctx, q, l->gx, l->gy, g)
                            : texla__grid_make(ctx, q, l->nx, ny, g);
    if (!r) r = texla__grid_layout(ctx, q, g, layout);
    if (r) return texla__grid_free(g), r;
    snprintf(g->shape, sizeof g->shape, "vector %d grid %d x %d", l->n, l->nx, ny);
    float *tx = malloc((size_t)v->t.w * (size_t)v->t.h * 4 * sizeof *tx);
    if (!tx) return texla__grid_free(g), texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host "
                                                     "memory", q->fn);
    texla__gl_enter(&ctx->gl);
    r = texla__tex_download(&ctx->gl, &v->t, tx);
    texla__gl_leave(&ctx->gl);
    int32_t shape[4];
    texla__shape_of(v, shape);
    if (!r && q->range) r = texla__grid_range(ctx, &v->t, shape, g);
    if (!r) texla__grid_vec(g, 0, tx, l, q->raw);
    free(tx);
    if (r) texla__grid_free(g);
    return r;
}

/* ---- vectors of compound entries (sparse products): K floats per entry, interleaved, on a
 * grid whose rows are a multiple of 4 elements wide, so a complex entry never straddles a texel
 * and a quaternion is the same halves of two neighbouring texels ---- */

texla_result texla_vec_make_entries(texla_ctx *ctx, int n, texla_entry entry, const float *data,
                                    texla_vec *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_vec_make_entries";
    if (out) out->id = 0;
    int k = entry == TEXLA_ENTRY_REAL ? 1 : entry == TEXLA_ENTRY_COMPLEX ? 2
            : entry == TEXLA_ENTRY_QUAT ? 4 : entry == TEXLA_ENTRY_BLOCK3 ? 3 : 0;
    if (!k)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: entry is %d; it must be "
                           "TEXLA_ENTRY_REAL, _COMPLEX, _QUAT or _BLOCK3", fn, (int)entry);
    if (n < 1 || (long long)n * k > 0x7fffffffLL)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: n is %d; it must be >= 1 and %d n must "
                           "fit an int", fn, n, k);
    long long len = (long long)n * k, texels = (len + 3) / 4;
    long long w = (long long)ceil(sqrt((double)texels)), max = ctx->gl.info.max_texture_size;
    w += w & 1; /* rows of 2w elements: a multiple of 4 */
    if (w > max) w = max & ~1LL;
    long long h = (texels + w - 1) / w;
    if (h > max)
        return texla__fail(ctx, TEXLA_ERR_LIMIT,
                           "%s: %d entries of %d floats need %lld texels; this GL allows at most "
                           "%lld x %lld (GL_MAX_TEXTURE_SIZE)", fn, n, k, texels, max, max);
    texla__layout lay = {(int)len, (int)(2 * w), (int)(2 * w), (int)(2 * h)};
    return make_vec(ctx, fn, lay, data, out);
}
