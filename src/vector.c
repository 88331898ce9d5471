/* vector.c - 2D vectors with 2x2 packing, GPU scalars, reductions in log passes, and the
 * conversions to and from the dense n x 1 layout (Krueger & Westermann). No GL here. */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define V(nm, h) {nm, (h).id, TEXLA__KIND_VEC, NULL}
#define S(nm, h) {nm, (h).id, TEXLA__KIND_SCALAR, NULL}
#define OPS(...) ((texla__operand[]){__VA_ARGS__})
#define NOPS(...) ((int)(sizeof((texla__operand[]){__VA_ARGS__}) / sizeof(texla__operand)))


/* ---- making, writing, reading ---- */

static texla_result upload(texla_ctx *ctx, texla__obj *o, const float *data) {
    size_t n = (size_t)o->t.w * (size_t)o->t.h * 4;
    float *tx = calloc(n, sizeof *tx);
    if (!tx)
        return texla__fail(ctx, TEXLA_ERR_MEMORY, "out of host memory packing a vector of %d",
                           o->lay.n);
    for (int k = 0; k < o->lay.n; k++) tx[texla__texel_index(&o->lay, k)] = data[k];
    texla_result r = texla__tex_upload(ctx, &o->t, tx);
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
    texla_result r = texla__check_size(ctx, what, lay.gx / 2, lay.gy / 2);
    if (r) return r;
    texla__enter(ctx);
    texla__obj *o;
    uint32_t id = 0;
    r = texla__obj_new(ctx, TEXLA__KIND_VEC, &id, &o);
    if (!r) {
        o->lay = lay;
        o->rows = lay.n;
        o->cols = 1;
        r = texla__tex_make(ctx, lay.gx / 2, lay.gy / 2, &o->t);
    }
    if (!r && data) r = upload(ctx, o, data);
    if (!r && !data) {
        texla__pass p = {.prog = TEXLA__P_FILL, .dst = &o->t};
        texla__shape_of(o, p.shape);
        r = texla__run(ctx, &p);
    }
    if (r && id) texla__obj_release(ctx, id);
    else out->id = id;
    texla__leave(ctx);
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
    long long w = (long long)ceil(sqrt((double)texels)), max = ctx->info.max_texture_size;
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
    texla__layout lay = {nx * ny, nx, nx + (nx & 1), ny + (ny & 1)};
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

static void destroy_kind(texla_ctx *ctx, uint32_t id, texla__kind kind) {
    if (!ctx || !texla__obj_get(ctx, id, kind)) return;
    texla__enter(ctx);
    texla__obj_release(ctx, id);
    texla__leave(ctx);
}

void texla_vec_destroy(texla_ctx *ctx, texla_vec v) { destroy_kind(ctx, v.id, TEXLA__KIND_VEC); }
void texla_scalar_destroy(texla_ctx *ctx, texla_scalar s) {
    destroy_kind(ctx, s.id, TEXLA__KIND_SCALAR);
}

texla_result texla_vec_write(texla_ctx *ctx, const float *data, texla_vec v) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla__obj *o = texla__obj_get(ctx, v.id, TEXLA__KIND_VEC);
    if (!o) return texla__bad_handle(ctx, "texla_vec_write", "v", TEXLA__KIND_VEC, v.id);
    if (!data) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_vec_write: data is NULL");
    texla__enter(ctx);
    texla_result r = upload(ctx, o, data);
    texla__leave(ctx);
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
    texla__enter(ctx);
    texla_result r = texla__tex_download(ctx, &o->t, tx);
    texla__leave(ctx);
    if (!raw) {
        if (!r)
            for (int k = 0; k < o->lay.n; k++) out[k] = tx[texla__texel_index(&o->lay, k)];
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

/* ---- element-wise ---- */

/* coefficient flags: which of u_f0's components the GPU scalar multiplies */
static texla_result ew(texla_ctx *ctx, const char *fn, texla__operand *ops, int n,
                       texla__prog_id prog, texla__blend blend, float f0, float f1,
                       const texla_coef *c, int cbits) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla__ew e = {prog, blend, {f0, f1, f0, f0}, 0, NULL};
    if (c) {
        texla_result r = texla__coef(ctx, fn, "s", *c, &e.coef_src);
        if (r) return r;
        e.coef = cbits;
        if (cbits == 2) e.f0[1] = c->value;
        else if (cbits == 1) e.f0[0] = c->value;
        else e.f0[0] = e.f0[1] = e.f0[2] = e.f0[3] = c->value; /* fill: every lane */
    }
    return texla__elementwise(ctx, fn, ops, n, &e);
}

texla_result texla_vec_fill(texla_ctx *ctx, texla_coef c, texla_vec dst) {
    return ew(ctx, "texla_vec_fill", OPS(V("dst", dst)), 1, TEXLA__P_FILL, TEXLA__BLEND_NONE, 0, 0,
              &c, 0xf);
}

texla_result texla_vec_copy(texla_ctx *ctx, texla_vec a, texla_vec dst) {
    return ew(ctx, "texla_vec_copy", OPS(V("a", a), V("dst", dst)), 2, TEXLA__P_COPY,
              TEXLA__BLEND_NONE, 0, 0, NULL, 0);
}

texla_result texla_vec_add(texla_ctx *ctx, texla_vec a, texla_vec b, texla_vec dst) {
    return ew(ctx, "texla_vec_add", OPS(V("a", a), V("b", b), V("dst", dst)), 3, TEXLA__P_AXPBY,
              TEXLA__BLEND_NONE, 1, 1, NULL, 0);
}

texla_result texla_vec_sub(texla_ctx *ctx, texla_vec a, texla_vec b, texla_vec dst) {
    return ew(ctx, "texla_vec_sub", OPS(V("a", a), V("b", b), V("dst", dst)), 3, TEXLA__P_AXPBY,
              TEXLA__BLEND_NONE, 1, -1, NULL, 0);
}

texla_result texla_vec_mul(texla_ctx *ctx, texla_vec a, texla_vec b, texla_vec dst) {
    return ew(ctx, "texla_vec_mul", OPS(V("a", a), V("b", b), V("dst", dst)), 3, TEXLA__P_MUL,
              TEXLA__BLEND_NONE, 0, 0, NULL, 0);
}

texla_result texla_vec_scale(texla_ctx *ctx, texla_vec a, texla_coef s, texla_vec dst) {
    return ew(ctx, "texla_vec_scale", OPS(V("a", a), V("dst", dst)), 2, TEXLA__P_SCALE,
              TEXLA__BLEND_NONE, 0, 0, &s, 1);
}

texla_result texla_vec_axpy(texla_ctx *ctx, texla_vec a, texla_coef s, texla_vec b,
                            texla_vec dst) {
    return ew(ctx, "texla_vec_axpy", OPS(V("a", a), V("b", b), V("dst", dst)), 3, TEXLA__P_AXPBY,
              TEXLA__BLEND_NONE, 1, 0, &s, 2);
}

texla_result texla_vec_acc(texla_ctx *ctx, texla_coef s, texla_vec b, texla_vec dst) {
    return ew(ctx, "texla_vec_acc", OPS(V("b", b), V("dst", dst)), 2, TEXLA__P_SCALE,
              TEXLA__BLEND_ADD, 0, 0, &s, 1);
}

texla_result texla_vec_max(texla_ctx *ctx, texla_vec a, float s, texla_vec dst) {
    if (ctx && texla__finite(ctx, "texla_vec_max", "s", s)) return TEXLA_ERR_ARGUMENT;
    return ew(ctx, "texla_vec_max", OPS(V("a", a), V("dst", dst)), 2, TEXLA__P_MAX,
              TEXLA__BLEND_NONE, s, 0, NULL, 0);
}

texla_result texla_vec_clamp(texla_ctx *ctx, texla_vec a, float lo, float hi, texla_vec dst) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    if (texla__finite(ctx, "texla_vec_clamp", "lo", lo) ||
        texla__finite(ctx, "texla_vec_clamp", "hi", hi))
        return TEXLA_ERR_ARGUMENT;
    if (lo > hi)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_vec_clamp: lo (%g) > hi (%g)", lo, hi);
    return ew(ctx, "texla_vec_clamp", OPS(V("a", a), V("dst", dst)), 2, TEXLA__P_CLAMP,
              TEXLA__BLEND_NONE, lo, hi, NULL, 0);
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
    /* the bounding rectangle in texels, clipped to the texture */
    float reach = 3.0f * radius;
    int x0 = (int)floorf((x - reach) / 2), x1 = (int)ceilf((x + reach) / 2) + 1;
    int y0 = (int)floorf((y - reach) / 2), y1 = (int)ceilf((y + reach) / 2) + 1;
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > o->t.w) x1 = o->t.w;
    if (y1 > o->t.h) y1 = o->t.h;
    if (x0 >= x1 || y0 >= y1) return TEXLA_OK; /* entirely outside the grid */
    texla__rect rect = {x0, y0, x1 - x0, y1 - y0, {0, 0, 0, 0}};
    texla__pass p = {.prog = TEXLA__P_SPLAT, .dst = &ops[0].o->t, .blend = TEXLA__BLEND_ADD,
                     .draw = TEXLA__DRAW_RECTS, .rects = &rect, .nrects = 1,
                     .f0 = {x, y, radius, amplitude}};
    texla__shape_of(o, p.shape);
    texla__enter(ctx);
    r = texla__run(ctx, &p);
    texla__leave(ctx);
    return r;
}

/* ---- reductions ---- */

/* Folds 2x2 texels per pass until one texel is left, then its four channels, into dst (1x1).
 * shape: the source's padding mask; b: the second factor of MAP_MUL, else NULL. */
texla_result texla__reduce(texla_ctx *ctx, const texla__tex *a, const int32_t shape[4],
                           const texla__tex *b, int fold, int map, texla__tex *dst) {
    const texla__tex *src = a;
    texla__tex tmp[2] = {{0}, {0}};
    int w = src->w, h = src->h, first = 1, which = 0;
    texla_result r = TEXLA_OK;
    for (;;) {
        int nw = (w + 1) / 2, nh = (h + 1) / 2, last = nw == 1 && nh == 1;
        texla__tex *out = dst;
        if (!last) {
            texla__pool_give(ctx, &tmp[which]);
            r = texla__pool_take(ctx, nw, nh, &tmp[which]);
            if (r) break;
            out = &tmp[which];
        }
        texla__pass p = {.prog = TEXLA__P_REDUCE, .dst = out,
                         .src = {src, first && map == TEXLA__MAP_MUL ? b : NULL}};
        p.i0[0] = fold;
        p.i0[1] = first ? map : TEXLA__MAP_NONE;
        p.i0[2] = last;
        p.i1[0] = w;
        p.i1[1] = h;
        for (int i = 0; i < 4; i++) p.shape[i] = first ? shape[i] : (i ? 0 : -1);
        r = texla__run(ctx, &p);
        if (r || last) break;
        src = out;
        which ^= 1;
        w = nw, h = nh, first = 0;
    }
    texla__pool_give(ctx, &tmp[0]);
    texla__pool_give(ctx, &tmp[1]);
    return r;
}

static texla_result reduce(texla_ctx *ctx, const char *fn, texla_vec a, const texla_vec *b,
                           int fold, int map, texla_scalar dst) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla__operand ops[3] = {V("a", a), V("b", b ? *b : a), S("dst", dst)};
    texla_result r = texla__resolve(ctx, fn, ops, 3);
    if (!r && b) r = texla__same_shape(ctx, fn, ops, 2);
    if (r) return r;
    int32_t shape[4];
    texla__shape_of(ops[0].o, shape);
    texla__enter(ctx);
    r = texla__reduce(ctx, &ops[0].o->t, shape, &ops[1].o->t, fold, map, &ops[2].o->t);
    texla__leave(ctx);
    return r;
}

texla_result texla_vec_sum(texla_ctx *ctx, texla_vec a, texla_scalar dst) {
    return reduce(ctx, "texla_vec_sum", a, NULL, TEXLA__FOLD_SUM, TEXLA__MAP_NONE, dst);
}
texla_result texla_vec_dot(texla_ctx *ctx, texla_vec a, texla_vec b, texla_scalar dst) {
    return reduce(ctx, "texla_vec_dot", a, &b, TEXLA__FOLD_SUM, TEXLA__MAP_MUL, dst);
}
texla_result texla_vec_norm2(texla_ctx *ctx, texla_vec a, texla_scalar dst) {
    return reduce(ctx, "texla_vec_norm2", a, NULL, TEXLA__FOLD_SUM, TEXLA__MAP_SQUARE, dst);
}
texla_result texla_vec_maxval(texla_ctx *ctx, texla_vec a, texla_scalar dst) {
    return reduce(ctx, "texla_vec_maxval", a, NULL, TEXLA__FOLD_MAX, TEXLA__MAP_NONE, dst);
}
texla_result texla_vec_minval(texla_ctx *ctx, texla_vec a, texla_scalar dst) {
    return reduce(ctx, "texla_vec_minval", a, NULL, TEXLA__FOLD_MIN, TEXLA__MAP_NONE, dst);
}
texla_result texla_vec_maxabs(texla_ctx *ctx, texla_vec a, texla_scalar dst) {
    return reduce(ctx, "texla_vec_maxabs", a, NULL, TEXLA__FOLD_MAX, TEXLA__MAP_ABS, dst);
}

/* ---- conversions ---- */

static texla_result vec_to_dense(texla_ctx *ctx, const texla__obj *v, texla__tex *dst) {
    texla__pass p = {.prog = TEXLA__P_VEC_TO_DENSE, .dst = dst, .src = {&v->t}};
    p.i0[0] = v->lay.n;
    p.i0[1] = v->lay.nx;
    return texla__run(ctx, &p);
}

static texla_result dense_to_vec(texla_ctx *ctx, const texla__tex *src, texla__obj *v) {
    texla__pass p = {.prog = TEXLA__P_DENSE_TO_VEC, .dst = &v->t, .src = {src}};
    texla__shape_of(v, p.shape);
    return texla__run(ctx, &p);
}

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
    texla__enter(ctx);
    r = to_vec ? dense_to_vec(ctx, &mo->t, vo) : vec_to_dense(ctx, vo, &mo->t);
    texla__leave(ctx);
    return r;
}

texla_result texla_vec_from_mat(texla_ctx *ctx, texla_mat m, texla_vec dst) {
    return convert(ctx, "texla_vec_from_mat", m, dst, 1);
}

texla_result texla_mat_from_vec(texla_ctx *ctx, texla_vec v, texla_mat dst) {
    return convert(ctx, "texla_mat_from_vec", dst, v, 0);
}

texla_result texla_mat_mul_vec(texla_ctx *ctx, texla_mat a, texla_vec x, texla_vec y) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_mat_mul_vec";
    texla__operand ops[3] = {{"a", a.id, TEXLA__KIND_MAT, NULL}, V("x", x), V("y", y)};
    texla_result r = texla__resolve(ctx, fn, ops, 3);
    if (r) return r;
    const texla__obj *A = ops[0].o, *X = ops[1].o;
    texla__obj *Y = ops[2].o;
    if (A->cols != X->lay.n || A->rows != Y->lay.n)
        return texla__fail(ctx, TEXLA_ERR_SHAPE,
                           "%s: a is %d x %d, so x needs %d elements and y %d; they have %d and %d",
                           fn, A->rows, A->cols, A->cols, A->rows, X->lay.n, Y->lay.n);
    texla__enter(ctx);
    texla__tex tx = {0}, ty = {0};
    r = texla__pool_take(ctx, 1, (A->cols + 3) / 4, &tx);
    if (!r) r = texla__pool_take(ctx, 1, (A->rows + 3) / 4, &ty);
    if (!r) r = vec_to_dense(ctx, X, &tx);
    if (!r) r = texla__multipass(ctx, TEXLA__P_MATMUL, &A->t, &tx, &ty, (A->cols + 3) / 4, A->cols);
    if (!r) r = dense_to_vec(ctx, &ty, Y);
    texla__pool_give(ctx, &tx);
    texla__pool_give(ctx, &ty);
    texla__leave(ctx);
    return r;
}

/* ---- scalars ---- */

texla_result texla_scalar_make(texla_ctx *ctx, float value, texla_scalar *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_scalar_make: out is NULL");
    out->id = 0;
    texla__enter(ctx);
    texla__obj *o;
    uint32_t id = 0;
    texla_result r = texla__obj_new(ctx, TEXLA__KIND_SCALAR, &id, &o);
    if (!r) {
        o->rows = o->cols = 1;
        r = texla__tex_make(ctx, 1, 1, &o->t);
    }
    const float px[4] = {value, 0, 0, 0};
    if (!r) r = texla__tex_upload(ctx, &o->t, px);
    if (r && id) texla__obj_release(ctx, id);
    else out->id = id;
    texla__leave(ctx);
    return r;
}

static texla__obj *scalar_of(texla_ctx *ctx, const char *fn, texla_scalar s, texla_result *r) {
    texla__obj *o = texla__obj_get(ctx, s.id, TEXLA__KIND_SCALAR);
    *r = o ? TEXLA_OK : texla__bad_handle(ctx, fn, "s", TEXLA__KIND_SCALAR, s.id);
    return o;
}

texla_result texla_scalar_write(texla_ctx *ctx, float value, texla_scalar s) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla_result r;
    texla__obj *o = scalar_of(ctx, "texla_scalar_write", s, &r);
    if (!o) return r;
    const float px[4] = {value, 0, 0, 0};
    texla__enter(ctx);
    r = texla__tex_upload(ctx, &o->t, px);
    texla__leave(ctx);
    return r;
}

texla_result texla_scalar_read(texla_ctx *ctx, texla_scalar s, float *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla_result r;
    texla__obj *o = scalar_of(ctx, "texla_scalar_read", s, &r);
    if (!o) return r;
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_scalar_read: out is NULL");
    float px[4];
    texla__enter(ctx);
    r = texla__tex_download(ctx, &o->t, px);
    texla__leave(ctx);
    if (!r) *out = px[0];
    return r;
}

texla_result texla_scalar_read_start(texla_ctx *ctx, texla_scalar s) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla_result r;
    texla__obj *o = scalar_of(ctx, "texla_scalar_read_start", s, &r);
    if (!o) return r;
    texla__enter(ctx);
    r = texla__tex_read_start(ctx, &o->t, &o->pbo, &o->fence);
    texla__leave(ctx);
    return r;
}

texla_result texla_scalar_read_poll(texla_ctx *ctx, texla_scalar s, float *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla_result r;
    texla__obj *o = scalar_of(ctx, "texla_scalar_read_poll", s, &r);
    if (!o) return r;
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_scalar_read_poll: out is NULL");
    if (!o->pbo)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "texla_scalar_read_poll: no read of this scalar was started "
                           "(texla_scalar_read_start), or its result was already taken");
    float px[4];
    texla__enter(ctx);
    r = texla__tex_read_poll(ctx, o->pbo, &o->fence, px);
    if (!r) texla__read_free(&o->pbo, &o->fence);
    texla__leave(ctx);
    if (!r) *out = px[0];
    return r;
}

enum { SC_DIV, SC_DIV_OR_ZERO, SC_MUL, SC_SUB, SC_NEG };

static texla_result scalar_op(texla_ctx *ctx, const char *fn, int op, texla_scalar a,
                              const texla_scalar *b, texla_scalar dst) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla__operand ops[3] = {S("a", a), S("b", b ? *b : a), S("dst", dst)};
    texla_result r = texla__resolve(ctx, fn, ops, 3);
    if (r) return r;
    texla__pass p = {.prog = TEXLA__P_SCALAR, .dst = &ops[2].o->t,
                     .src = {&ops[0].o->t, &ops[1].o->t}};
    p.i0[0] = op;
    texla__enter(ctx);
    r = texla__run(ctx, &p);
    texla__leave(ctx);
    return r;
}

texla_result texla_scalar_div(texla_ctx *ctx, texla_scalar a, texla_scalar b, texla_scalar dst) {
    return scalar_op(ctx, "texla_scalar_div", SC_DIV, a, &b, dst);
}
texla_result texla_scalar_div_or_zero(texla_ctx *ctx, texla_scalar a, texla_scalar b,
                                      texla_scalar dst) {
    return scalar_op(ctx, "texla_scalar_div_or_zero", SC_DIV_OR_ZERO, a, &b, dst);
}
texla_result texla_scalar_mul(texla_ctx *ctx, texla_scalar a, texla_scalar b, texla_scalar dst) {
    return scalar_op(ctx, "texla_scalar_mul", SC_MUL, a, &b, dst);
}
texla_result texla_scalar_sub(texla_ctx *ctx, texla_scalar a, texla_scalar b, texla_scalar dst) {
    return scalar_op(ctx, "texla_scalar_sub", SC_SUB, a, &b, dst);
}
texla_result texla_scalar_neg(texla_ctx *ctx, texla_scalar a, texla_scalar dst) {
    return scalar_op(ctx, "texla_scalar_neg", SC_NEG, a, NULL, dst);
}
