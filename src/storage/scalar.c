/* scalar.c - GPU scalars (Krueger & Westermann): one float in a 1x1 texture. Reductions write
 * them, coefficients read them; blocking and asynchronous read-backs; scalar arithmetic. */
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>

#define S(nm, h) {nm, (h).id, TEXLA__KIND_SCALAR, NULL}

/* a pending asynchronous read-back */
typedef struct scalar_part {
    GLuint pbo;
    GLsync fence;
} scalar_part;

static void release(texla_ctx *ctx, texla__obj *o) {
    scalar_part *sp = o->part;
    if (sp) texla__read_free(&ctx->gl, &sp->pbo, &sp->fence);
}

static void describe(const texla__obj *o, char *buf, size_t n) {
    (void)o;
    snprintf(buf, n, "a scalar");
}

/* logical: 1 x 1; raw: the texel's four channels as a column (3 padding) */
static texla_result grid(texla_ctx *ctx, texla__obj *o, const texla__grid_req *q, texla__grid *g) {
    texla_result r = texla__grid_make(ctx, q, 1, q->raw ? 4 : 1, g);
    if (!r) r = texla__grid_layout(ctx, q, g, "scalar");
    if (r) return texla__grid_free(g), r;
    snprintf(g->shape, sizeof g->shape, "scalar");
    float px[4];
    texla__gl_enter(&ctx->gl);
    r = texla__tex_download(&ctx->gl, &o->t, px);
    texla__gl_leave(&ctx->gl);
    int32_t shape[4];
    texla__shape_of(o, shape);
    if (!r && q->range) r = texla__grid_range(ctx, &o->t, shape, g);
    if (r) return texla__grid_free(g), r;
    for (int y = 0; y < g->h; y++)
        texla__grid_put(g, 0, y, px[y], y == 0 ? TEXLA__CELL_VALUE : TEXLA__CELL_PAD);
    return TEXLA_OK;
}

static const texla__kind_desc kind = {"scalar", release, describe, grid};

void texla_scalar_destroy(texla_ctx *ctx, texla_scalar s) {
    texla__destroy(ctx, s.id, TEXLA__KIND_SCALAR);
}


texla_result texla_scalar_make(texla_ctx *ctx, float value, texla_scalar *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_scalar_make: out is NULL");
    out->id = 0;
    texla__gl_enter(&ctx->gl);
    texla__obj *o;
    uint64_t id = 0;
    texla_result r = texla__tex_obj_new(ctx, TEXLA__KIND_SCALAR, &kind, 1, 1, &id, &o);
    if (!r) {
        o->rows = o->cols = 1;
        o->part = calloc(1, sizeof(scalar_part));
        if (!o->part) r = texla__fail(ctx, TEXLA_ERR_MEMORY, "texla_scalar_make: out of memory");
    }
    const float px[4] = {value, 0, 0, 0};
    if (!r) r = texla__tex_upload(&ctx->gl, &o->t, px);
    if (r && id) texla__obj_release(ctx, id);
    else out->id = id;
    texla__gl_leave(&ctx->gl);
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
    texla__gl_enter(&ctx->gl);
    r = texla__tex_upload(&ctx->gl, &o->t, px);
    texla__gl_leave(&ctx->gl);
    return r;
}

texla_result texla_scalar_read(texla_ctx *ctx, texla_scalar s, float *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla_result r;
    texla__obj *o = scalar_of(ctx, "texla_scalar_read", s, &r);
    if (!o) return r;
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_scalar_read: out is NULL");
    float px[4];
    texla__gl_enter(&ctx->gl);
    r = texla__tex_download(&ctx->gl, &o->t, px);
    texla__gl_leave(&ctx->gl);
    if (!r) *out = px[0];
    return r;
}

texla_result texla_scalar_read_start(texla_ctx *ctx, texla_scalar s) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla_result r;
    texla__obj *o = scalar_of(ctx, "texla_scalar_read_start", s, &r);
    if (!o) return r;
    texla__gl_enter(&ctx->gl);
    scalar_part *sp = o->part;
    r = texla__tex_read_start(&ctx->gl, &o->t, &sp->pbo, &sp->fence);
    texla__gl_leave(&ctx->gl);
    return r;
}

static texla_result read_take(texla_ctx *ctx, const char *fn, texla_scalar s, float *out,
                              int wait) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla_result r;
    texla__obj *o = scalar_of(ctx, fn, s, &r);
    if (!o) return r;
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: out is NULL", fn);
    scalar_part *sp = o->part;
    if (!sp->pbo)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: no read of this scalar was started (texla_scalar_read_start), or "
                           "its result was already taken", fn);
    float px[4];
    texla__gl_enter(&ctx->gl);
    r = texla__tex_read_take(&ctx->gl, sp->pbo, &sp->fence, px, wait);
    if (!r) texla__read_free(&ctx->gl, &sp->pbo, &sp->fence);
    texla__gl_leave(&ctx->gl);
    if (!r) *out = px[0];
    return r;
}

texla_result texla_scalar_read_poll(texla_ctx *ctx, texla_scalar s, float *out) {
    return read_take(ctx, "texla_scalar_read_poll", s, out, 0);
}

texla_result texla_scalar_read_wait(texla_ctx *ctx, texla_scalar s, float *out) {
    return read_take(ctx, "texla_scalar_read_wait", s, out, 1);
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
    return texla__run1(ctx, &p);
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
