/* complex.c - what CG/BiCG-type solvers need for complex vectors besides the real-view
 * operations: the element-wise complex product (conjugated or not), a + s b with a complex
 * coefficient (from the host, times a complex GPU scalar), the conjugated dot product into a
 * complex GPU scalar, and complex scalar arithmetic. A complex vector is a texla_vec of
 * (re, im) pairs whose rows are an even number of elements wide (texla_vec_make_entries), so
 * every texel holds two whole complex numbers (.xy, .zw) and the operations are texel-wise.
 * A complex GPU scalar is a texla_scalar with (re, im) in its texel's .x, .y. No GL here. */
#include "core/core.h"

#include <math.h>

enum { CV_AXPY = 0, CV_MUL, CV_CONJ_MUL, CV_SWAP };
enum { CS_DIV = 0, CS_MUL, CS_PACK };

/* every operand a vector of one layout that holds whole complex numbers per texel; the last
 * one is the destination (none of the others) unless dst is 0 (the dot product: only sources) */
static texla_result complex_operands(texla_ctx *ctx, const char *fn, texla__operand *ops, int n,
                                     int dst) {
    texla_result r = TEXLA_OK;
    if (dst) {
        r = texla__resolve(ctx, fn, ops, n);
    } else {
        for (int i = 0; i < n && !r; i++) {
            ops[i].o = texla__obj_get(ctx, ops[i].id, ops[i].kind);
            if (!ops[i].o) r = texla__bad_handle(ctx, fn, ops[i].name, ops[i].kind, ops[i].id);
        }
    }
    if (!r) r = texla__same_shape(ctx, fn, ops, n);
    if (r) return r;
    const texla__layout *l = &ops[0].o->lay;
    if (l->n % 2 || l->nx % 2)
        return texla__fail(ctx, TEXLA_ERR_SHAPE,
                           "%s: %s has %d elements in rows of %d: a complex vector has an even "
                           "number of elements in rows of an even width (texla_vec_make_entries)",
                           fn, ops[0].name, l->n, l->nx);
    return TEXLA_OK;
}

static texla_result cvec_pass(texla_ctx *ctx, int op, const texla__tex *a, const texla__tex *b,
                              const texla__tex *s, const float f[2], texla__obj *dst) {
    texla__pass p = {.prog = TEXLA__P_CVEC, .dst = &dst->t, .src = {a ? a : b, b, s}};
    p.i0[0] = op;
    p.i0[1] = s != NULL;
    if (f) p.f0[0] = f[0], p.f0[1] = f[1];
    texla__shape_of(dst, p.shape);
    return texla__run(&ctx->gl, &p);
}

texla_result texla_cvec_mul(texla_ctx *ctx, texla_vec a, texla_vec b, int conj_a, texla_vec dst) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla__operand ops[3] = {{"a", a.id, TEXLA__KIND_VEC, NULL},
                             {"b", b.id, TEXLA__KIND_VEC, NULL},
                             {"dst", dst.id, TEXLA__KIND_VEC, NULL}};
    texla_result r = complex_operands(ctx, "texla_cvec_mul", ops, 3, 1);
    if (r) return r;
    texla__gl_enter(&ctx->gl);
    r = cvec_pass(ctx, conj_a ? CV_CONJ_MUL : CV_MUL, &ops[0].o->t, &ops[1].o->t, NULL, NULL,
                  ops[2].o);
    texla__gl_leave(&ctx->gl);
    return r;
}

texla_result texla_cvec_axpy(texla_ctx *ctx, texla_vec a, texla_ccoef s, texla_vec b,
                             texla_vec dst) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_cvec_axpy";
    texla__operand ops[3] = {{"a", a.id, TEXLA__KIND_VEC, NULL},
                             {"b", b.id, TEXLA__KIND_VEC, NULL},
                             {"dst", dst.id, TEXLA__KIND_VEC, NULL}};
    texla_result r = complex_operands(ctx, fn, ops, 3, 1);
    if (!r) r = texla__finite(ctx, fn, "s.re", s.re);
    if (!r) r = texla__finite(ctx, fn, "s.im", s.im);
    if (r) return r;
    const texla__tex *st = NULL;
    if (s.scalar.id) {
        texla__obj *so = texla__obj_get(ctx, s.scalar.id, TEXLA__KIND_SCALAR);
        if (!so) return texla__bad_handle(ctx, fn, "s.scalar", TEXLA__KIND_SCALAR, s.scalar.id);
        st = &so->t;
        if (st->tex == ops[2].o->t.tex)
            return texla__fail(ctx, TEXLA_ERR_ALIAS, "%s: s.scalar is the destination", fn);
    }
    float f[2] = {s.re, s.im};
    texla__gl_enter(&ctx->gl);
    r = cvec_pass(ctx, CV_AXPY, &ops[0].o->t, &ops[1].o->t, st, f, ops[2].o);
    texla__gl_leave(&ctx->gl);
    return r;
}

static texla_result cscalar_pass(texla_ctx *ctx, int op, const texla__tex *a, const texla__tex *b,
                                 texla__tex *dst) {
    texla__pass p = {.prog = TEXLA__P_CSCALAR, .dst = dst, .src = {a, b}};
    p.shape[0] = -1;
    p.i0[0] = op;
    return texla__run(&ctx->gl, &p);
}

texla_result texla_cvec_dot(texla_ctx *ctx, texla_vec a, texla_vec b, texla_scalar dst) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_cvec_dot";
    texla__operand ops[2] = {{"a", a.id, TEXLA__KIND_VEC, NULL},
                             {"b", b.id, TEXLA__KIND_VEC, NULL}};
    texla_result r = complex_operands(ctx, fn, ops, 2, 0);
    if (r) return r;
    texla__obj *d = texla__obj_get(ctx, dst.id, TEXLA__KIND_SCALAR);
    if (!d) return texla__bad_handle(ctx, fn, "dst", TEXLA__KIND_SCALAR, dst.id);
    texla__obj *ao = ops[0].o, *bo = ops[1].o;
    int32_t shape[4];
    texla__shape_of(ao, shape);
    texla__gl_enter(&ctx->gl);
    texla__tex re = {0}, im = {0}, jb = {0};
    /* re = sum a .* b; im = sum a .* (b.y, -b.x) */
    r = texla__pool_take(&ctx->gl, 1, 1, &re);
    if (!r) r = texla__pool_take(&ctx->gl, 1, 1, &im);
    if (!r) r = texla__pool_take(&ctx->gl, bo->t.w, bo->t.h, &jb);
    if (!r) r = texla__reduce(ctx, &ao->t, shape, &bo->t, TEXLA__FOLD_SUM, TEXLA__MAP_MUL, &re);
    if (!r) {
        texla__obj tmp = *bo;
        tmp.t = jb;
        r = cvec_pass(ctx, CV_SWAP, NULL, &bo->t, NULL, NULL, &tmp);
    }
    if (!r) r = texla__reduce(ctx, &ao->t, shape, &jb, TEXLA__FOLD_SUM, TEXLA__MAP_MUL, &im);
    if (!r) r = cscalar_pass(ctx, CS_PACK, &re, &im, &d->t);
    texla__pool_give(&ctx->gl, &re);
    texla__pool_give(&ctx->gl, &im);
    texla__pool_give(&ctx->gl, &jb);
    texla__gl_leave(&ctx->gl);
    return r;
}

static texla_result cscalar_op(texla_ctx *ctx, const char *fn, int op, texla_scalar a,
                               texla_scalar b, texla_scalar dst) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla__operand ops[3] = {{"a", a.id, TEXLA__KIND_SCALAR, NULL},
                             {"b", b.id, TEXLA__KIND_SCALAR, NULL},
                             {"dst", dst.id, TEXLA__KIND_SCALAR, NULL}};
    texla_result r = texla__resolve(ctx, fn, ops, 3);
    if (r) return r;
    texla__gl_enter(&ctx->gl);
    r = cscalar_pass(ctx, op, &ops[0].o->t, &ops[1].o->t, &ops[2].o->t);
    texla__gl_leave(&ctx->gl);
    return r;
}

texla_result texla_cscalar_div(texla_ctx *ctx, texla_scalar a, texla_scalar b, texla_scalar dst) {
    return cscalar_op(ctx, "texla_cscalar_div", CS_DIV, a, b, dst);
}

texla_result texla_cscalar_mul(texla_ctx *ctx, texla_scalar a, texla_scalar b, texla_scalar dst) {
    return cscalar_op(ctx, "texla_cscalar_mul", CS_MUL, a, b, dst);
}

texla_result texla_scalar_read_complex(texla_ctx *ctx, texla_scalar s, float out[2]) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_scalar_read_complex";
    texla__obj *o = texla__obj_get(ctx, s.id, TEXLA__KIND_SCALAR);
    if (!o) return texla__bad_handle(ctx, fn, "s", TEXLA__KIND_SCALAR, s.id);
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: out is NULL", fn);
    float px[4];
    texla__gl_enter(&ctx->gl);
    texla_result r = texla__tex_download(&ctx->gl, &o->t, px);
    texla__gl_leave(&ctx->gl);
    if (!r) out[0] = px[0], out[1] = px[1];
    return r;
}

texla_result texla_scalar_write_complex(texla_ctx *ctx, float re, float im, texla_scalar s) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_scalar_write_complex";
    texla__obj *o = texla__obj_get(ctx, s.id, TEXLA__KIND_SCALAR);
    if (!o) return texla__bad_handle(ctx, fn, "s", TEXLA__KIND_SCALAR, s.id);
    float px[4] = {re, im, 0, 0};
    texla__gl_enter(&ctx->gl);
    texla_result r = texla__tex_upload(&ctx->gl, &o->t, px);
    texla__gl_leave(&ctx->gl);
    return r;
}
