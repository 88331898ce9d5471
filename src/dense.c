/* dense.c - dense matrices in 4x1 column packing and their operations. No GL here: every
 * operation validates its operands and describes passes for the runner. */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int blocks_of(int n) { return n / 4 + (n % 4 != 0); } /* no overflow at INT_MAX */

static texla__obj *mat_of(texla_ctx *ctx, texla_mat m) {
    return texla__obj_get(ctx, m.id, TEXLA__KIND_MAT);
}

static texla_result bad_handle(texla_ctx *ctx, const char *fn, const char *name, texla_mat m) {
    return texla__bad_handle(ctx, fn, name, TEXLA__KIND_MAT, m.id);
}

#define M(nm, h) {nm, (h).id, TEXLA__KIND_MAT, NULL}

/* ---- making, writing, reading ---- */

static texla_result new_mat(texla_ctx *ctx, const char *fn, int rows, int cols, texla_mat *out,
                            texla__obj **obj) {
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: out is NULL", fn);
    out->id = 0;
    if (rows < 1 || cols < 1)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: shape %d x %d; both must be >= 1", fn,
                           rows, cols);
    char what[96];
    snprintf(what, sizeof what, "%s: a %d x %d matrix", fn, rows, cols);
    texla_result r = texla__check_size(ctx, what, cols, blocks_of(rows));
    if (r) return r;
    uint32_t id;
    r = texla__obj_new(ctx, TEXLA__KIND_MAT, &id, obj);
    if (r) return r;
    (*obj)->rows = rows;
    (*obj)->cols = cols;
    r = texla__tex_make(ctx, cols, blocks_of(rows), &(*obj)->t);
    if (r) {
        texla__obj_release(ctx, id);
        return r;
    }
    out->id = id;
    return TEXLA_OK;
}

static texla_result fill(texla_ctx *ctx, texla__obj *o, texla__prog_id prog, float v) {
    texla__pass p = {.prog = prog, .dst = &o->t, .f0 = {v, v, v, v}};
    texla__shape_of(o, p.shape);
    return texla__run(ctx, &p);
}

/* Packs row-major data into texels (padding zero) and uploads it. */
static texla_result upload(texla_ctx *ctx, texla__obj *o, const float *data) {
    size_t n = (size_t)o->t.w * (size_t)o->t.h * 4;
    float *tx = calloc(n, sizeof *tx);
    if (!tx)
        return texla__fail(ctx, TEXLA_ERR_MEMORY, "out of host memory packing a %d x %d matrix",
                           o->rows, o->cols);
    for (int i = 0; i < o->rows; i++)
        for (int j = 0; j < o->cols; j++)
            tx[((size_t)(i / 4) * (size_t)o->cols + (size_t)j) * 4 + (size_t)(i % 4)] =
                data[(size_t)i * (size_t)o->cols + (size_t)j];
    texla_result r = texla__tex_upload(ctx, &o->t, tx);
    free(tx);
    return r;
}

static texla_result make_common(texla_ctx *ctx, const char *fn, int rows, int cols,
                                const float *data, texla__prog_id prog, float v, texla_mat *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla__enter(ctx);
    texla__obj *o;
    texla_result r = new_mat(ctx, fn, rows, cols, out, &o);
    if (!r) r = data ? upload(ctx, o, data) : fill(ctx, o, prog, v);
    if (r && out && out->id) {
        texla__obj_release(ctx, out->id);
        out->id = 0;
    }
    texla__leave(ctx);
    return r;
}

texla_result texla_mat_make(texla_ctx *ctx, int rows, int cols, const float *data, texla_mat *out) {
    return make_common(ctx, "texla_mat_make", rows, cols, data, TEXLA__P_FILL, 0.0f, out);
}

texla_result texla_mat_make_const(texla_ctx *ctx, int rows, int cols, float value, texla_mat *out) {
    if (ctx && !isfinite(value)) {
        if (out) out->id = 0;
        return texla__finite(ctx, "texla_mat_make_const", "value", value);
    }
    return make_common(ctx, "texla_mat_make_const", rows, cols, NULL, TEXLA__P_FILL, value, out);
}

texla_result texla_mat_make_identity(texla_ctx *ctx, int n, texla_mat *out) {
    return make_common(ctx, "texla_mat_make_identity", n, n, NULL, TEXLA__P_IDENTITY, 0.0f, out);
}

void texla_mat_destroy(texla_ctx *ctx, texla_mat m) {
    if (!ctx || !mat_of(ctx, m)) return;
    texla__enter(ctx);
    texla__obj_release(ctx, m.id);
    texla__leave(ctx);
}

texla_result texla_mat_write(texla_ctx *ctx, const float *data, texla_mat m) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla__obj *o = mat_of(ctx, m);
    if (!o) return bad_handle(ctx, "texla_mat_write", "m", m);
    if (!data) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_mat_write: data is NULL");
    texla__enter(ctx);
    texla_result r = upload(ctx, o, data);
    texla__leave(ctx);
    return r;
}

static texla_result read_texels(texla_ctx *ctx, const char *fn, texla_mat m, float **tx,
                                texla__obj **obj) {
    texla__obj *o = mat_of(ctx, m);
    if (!o) return bad_handle(ctx, fn, "m", m);
    size_t n = (size_t)o->t.w * (size_t)o->t.h * 4;
    *tx = malloc(n * sizeof **tx);
    if (!*tx) return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory", fn);
    texla__enter(ctx);
    texla_result r = texla__tex_download(ctx, &o->t, *tx);
    texla__leave(ctx);
    *obj = o;
    return r;
}

texla_result texla_mat_read(texla_ctx *ctx, texla_mat m, float *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_mat_read: out is NULL");
    float *tx = NULL;
    texla__obj *o;
    texla_result r = read_texels(ctx, "texla_mat_read", m, &tx, &o);
    if (!r)
        for (int i = 0; i < o->rows; i++)
            for (int j = 0; j < o->cols; j++)
                out[(size_t)i * (size_t)o->cols + (size_t)j] =
                    tx[((size_t)(i / 4) * (size_t)o->cols + (size_t)j) * 4 + (size_t)(i % 4)];
    free(tx);
    return r;
}

texla_result texla_mat_read_raw(texla_ctx *ctx, texla_mat m, float *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_mat_read_raw: out is NULL");
    float *tx = NULL;
    texla__obj *o;
    texla_result r = read_texels(ctx, "texla_mat_read_raw", m, &tx, &o);
    if (!r) memcpy(out, tx, (size_t)o->t.w * (size_t)o->t.h * 4 * sizeof *out);
    free(tx);
    return r;
}

texla_result texla_mat_info_get(texla_ctx *ctx, texla_mat m, texla_mat_info *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla__obj *o = mat_of(ctx, m);
    if (!o) return bad_handle(ctx, "texla_mat_info_get", "m", m);
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_mat_info_get: out is NULL");
    *out = (texla_mat_info){o->rows, o->cols, o->t.w, o->t.h, o->t.tex};
    return TEXLA_OK;
}

/* ---- element-wise operations ---- */

#define OPS(...) ((texla__operand[]){__VA_ARGS__})
#define NOPS(...) ((int)(sizeof((texla__operand[]){__VA_ARGS__}) / sizeof(texla__operand)))
#define EW(fn, prog, blend, f0, f1, ...)                                                      \
    texla__elementwise(ctx, fn, OPS(__VA_ARGS__), NOPS(__VA_ARGS__),                          \
                       &(texla__ew){prog, blend, {f0, f1, f0, f0}, 0, NULL})

static texla_result coef_ok(texla_ctx *ctx, const char *fn, float s) {
    return ctx ? texla__finite(ctx, fn, "s", s) : TEXLA_ERR_ARGUMENT;
}

texla_result texla_copy(texla_ctx *ctx, texla_mat a, texla_mat dst) {
    return EW("texla_copy", TEXLA__P_COPY, TEXLA__BLEND_NONE, 0.0f, 0.0f, M("a", a), M("dst", dst));
}

texla_result texla_add(texla_ctx *ctx, texla_mat a, texla_mat b, texla_mat dst) {
    return EW("texla_add", TEXLA__P_AXPBY, TEXLA__BLEND_NONE, 1.0f, 1.0f, M("a", a), M("b", b),
              M("dst", dst));
}

texla_result texla_sub(texla_ctx *ctx, texla_mat a, texla_mat b, texla_mat dst) {
    return EW("texla_sub", TEXLA__P_AXPBY, TEXLA__BLEND_NONE, 1.0f, -1.0f, M("a", a), M("b", b),
              M("dst", dst));
}

texla_result texla_mul(texla_ctx *ctx, texla_mat a, texla_mat b, texla_mat dst) {
    return EW("texla_mul", TEXLA__P_MUL, TEXLA__BLEND_NONE, 0.0f, 0.0f, M("a", a), M("b", b),
              M("dst", dst));
}

texla_result texla_scale(texla_ctx *ctx, texla_mat a, float s, texla_mat dst) {
    texla_result r = coef_ok(ctx, "texla_scale", s);
    return r ? r : EW("texla_scale", TEXLA__P_SCALE, TEXLA__BLEND_NONE, s, 0.0f, M("a", a),
                      M("dst", dst));
}

texla_result texla_scale_self(texla_ctx *ctx, float s, texla_mat dst) {
    texla_result r = coef_ok(ctx, "texla_scale_self", s);
    /* dst *= s by blending (source factor 0, destination factor s): no read of dst */
    return r ? r : EW("texla_scale_self", TEXLA__P_FILL, TEXLA__BLEND_SCALE, s, 0.0f,
                      M("dst", dst));
}

texla_result texla_acc(texla_ctx *ctx, texla_mat b, texla_mat dst) {
    return EW("texla_acc", TEXLA__P_COPY, TEXLA__BLEND_ADD, 0.0f, 0.0f, M("b", b), M("dst", dst));
}

texla_result texla_acc_scaled(texla_ctx *ctx, texla_mat b, float s, texla_mat dst) {
    texla_result r = coef_ok(ctx, "texla_acc_scaled", s);
    return r ? r : EW("texla_acc_scaled", TEXLA__P_SCALE, TEXLA__BLEND_ADD, s, 0.0f, M("b", b),
                      M("dst", dst));
}

texla_result texla_acc_mul(texla_ctx *ctx, texla_mat a, texla_mat b, texla_mat dst) {
    return EW("texla_acc_mul", TEXLA__P_MUL, TEXLA__BLEND_ADD, 0.0f, 0.0f, M("a", a), M("b", b),
              M("dst", dst));
}

texla_result texla_add_scaled(texla_ctx *ctx, texla_mat a, texla_mat b, float s, texla_mat dst) {
    texla_result r = coef_ok(ctx, "texla_add_scaled", s);
    return r ? r : EW("texla_add_scaled", TEXLA__P_AXPBY, TEXLA__BLEND_NONE, 1.0f, s, M("a", a),
                      M("b", b), M("dst", dst));
}

texla_result texla_madad(texla_ctx *ctx, texla_mat a, texla_mat b, texla_mat d, texla_mat e,
                         texla_mat dst) {
    return EW("texla_madad", TEXLA__P_MADAD, TEXLA__BLEND_NONE, 0.0f, 0.0f, M("a", a), M("b", b),
              M("d", d), M("e", e), M("dst", dst));
}

texla_result texla_max(texla_ctx *ctx, texla_mat a, float s, texla_mat dst) {
    texla_result r = coef_ok(ctx, "texla_max", s);
    return r ? r : EW("texla_max", TEXLA__P_MAX, TEXLA__BLEND_NONE, s, 0.0f, M("a", a),
                      M("dst", dst));
}

texla_result texla_recip(texla_ctx *ctx, texla_mat a, float s, texla_mat dst) {
    texla_result r = coef_ok(ctx, "texla_recip", s);
    return r ? r : EW("texla_recip", TEXLA__P_RECIP, TEXLA__BLEND_NONE, s, 0.0f, M("a", a),
                      M("dst", dst));
}

texla_result texla_diag(texla_ctx *ctx, texla_mat a, texla_mat dst) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla__operand ops[2] = {M("a", a), M("dst", dst)};
    texla_result r = texla__resolve(ctx, "texla_diag", ops, 2);
    if (r) return r;
    const texla__obj *A = ops[0].o, *D = ops[1].o;
    if (A->rows != A->cols || D->rows != A->rows || D->cols != 1)
        return texla__fail(ctx, TEXLA_ERR_SHAPE,
                           "texla_diag: a must be square and dst its n x 1 diagonal; a is %d x "
                           "%d, dst is %d x %d", A->rows, A->cols, D->rows, D->cols);
    texla__pass p = {.prog = TEXLA__P_DIAG, .dst = &ops[1].o->t, .src = {&A->t}};
    p.i0[0] = A->rows;
    texla__enter(ctx);
    r = texla__run(ctx, &p);
    texla__leave(ctx);
    return r;
}

texla_result texla_lcp_project(texla_ctx *ctx, texla_mat v, texla_mat index, texla_mat mu,
                               texla_mat dst) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_lcp_project";
    texla__operand ops[4] = {M("v", v), M("index", index), M("mu", mu), M("dst", dst)};
    texla_result r = texla__resolve(ctx, fn, ops, 4);
    if (!r) r = texla__same_shape(ctx, fn, ops, 4);
    if (r) return r;
    if (ops[0].o->cols != 1)
        return texla__fail(ctx, TEXLA_ERR_SHAPE, "%s: v is %d x %d; it must be n x 1", fn,
                           ops[0].o->rows, ops[0].o->cols);
    texla__pass p = {.prog = TEXLA__P_LCP_PROJECT, .dst = &ops[3].o->t,
                     .src = {&ops[0].o->t, &ops[1].o->t, &ops[2].o->t}};
    p.i0[0] = ops[0].o->rows;
    texla__enter(ctx);
    r = texla__run(ctx, &p);
    texla__leave(ctx);
    return r;
}

/* ---- products ---- */

/* Runs ceil(blocks / k) passes of prog, each over k blocks of the inner dimension; passes
 * after the first are added by blending. */
texla_result texla__multipass(texla_ctx *ctx, texla__prog_id prog, const texla__tex *a,
                              const texla__tex *b, texla__tex *dst, int blocks, int iz) {
    /* the fragment path adds passes by blending (the seed's design, k MOPs each); the compute
     * backend does the whole inner dimension in one dispatch (measured fastest there) */
    int k = ctx->use_compute || ctx->matmul_k > blocks ? blocks : ctx->matmul_k;
    texla__pass p = {.prog = prog, .dst = dst, .src = {a, b}};
    p.shape[0] = -1;
    texla_result r = TEXLA_OK;
    for (int t0 = 0; t0 < blocks && !r; t0 += k) {
        p.i0[0] = t0;
        p.i0[1] = blocks - t0 < k ? blocks - t0 : k;
        p.i0[2] = iz;
        p.blend = t0 == 0 ? TEXLA__BLEND_NONE : TEXLA__BLEND_ADD;
        r = texla__run(ctx, &p);
    }
    return r;
}

typedef enum { NN, TN, NT } product_kind;

static texla_result product(texla_ctx *ctx, const char *fn, product_kind kind, texla_mat a,
                            texla_mat b, texla_mat dst) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla__operand ops[3] = {M("a", a), M("b", b), M("dst", dst)};
    texla_result r = texla__resolve(ctx, fn, ops, 3);
    if (r) return r;
    const texla__obj *A = ops[0].o, *B = ops[1].o, *C = ops[2].o;
    /* logical shapes of the factors after transposition */
    int ar = kind == TN ? A->cols : A->rows, ac = kind == TN ? A->rows : A->cols;
    int br = kind == NT ? B->cols : B->rows, bc = kind == NT ? B->rows : B->cols;
    static const char *const form[] = {"A * B", "A' * B", "A * B'"};
    if (ac != br)
        return texla__fail(ctx, TEXLA_ERR_SHAPE,
                           "%s: inner dimensions differ in %s: a is %d x %d, b is %d x %d", fn,
                           form[kind], A->rows, A->cols, B->rows, B->cols);
    if (C->rows != ar || C->cols != bc)
        return texla__fail(ctx, TEXLA_ERR_SHAPE,
                           "%s: %s of a %d x %d and a %d x %d matrix is %d x %d, but dst is "
                           "%d x %d", fn, form[kind], A->rows, A->cols, B->rows, B->cols, ar, bc,
                           C->rows, C->cols);
    static const texla__prog_id progs[] = {TEXLA__P_MATMUL, TEXLA__P_MATMUL_TN, TEXLA__P_MATMUL_NT};
    int iz = kind == TN ? A->cols : ac; /* TN guards A's columns, NN/NT the inner dimension */
    texla__enter(ctx);
    r = texla__multipass(ctx, progs[kind], &A->t, &B->t, &ops[2].o->t, blocks_of(ac), iz);
    texla__leave(ctx);
    return r;
}

texla_result texla_matmul(texla_ctx *ctx, texla_mat a, texla_mat b, texla_mat dst) {
    return product(ctx, "texla_matmul", NN, a, b, dst);
}

texla_result texla_matmul_tn(texla_ctx *ctx, texla_mat a, texla_mat b, texla_mat dst) {
    return product(ctx, "texla_matmul_tn", TN, a, b, dst);
}

texla_result texla_matmul_nt(texla_ctx *ctx, texla_mat a, texla_mat b, texla_mat dst) {
    return product(ctx, "texla_matmul_nt", NT, a, b, dst);
}

/* dot(a, b) = a' * b into a 1x1 pool texture, then one read-back of that texel. */
static texla_result dot_common(texla_ctx *ctx, const char *fn, texla_mat a, texla_mat b,
                               float *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: out is NULL", fn);
    texla__operand ops[2] = {M("a", a), M("b", b)};
    for (int i = 0; i < 2; i++) {
        ops[i].o = texla__obj_get(ctx, ops[i].id, TEXLA__KIND_MAT);
        if (!ops[i].o) return texla__bad_handle(ctx, fn, ops[i].name, TEXLA__KIND_MAT, ops[i].id);
        if (ops[i].o->cols != 1)
            return texla__fail(ctx, TEXLA_ERR_SHAPE, "%s: %s is %d x %d; it must be a vector "
                               "(n x 1)", fn, ops[i].name, ops[i].o->rows, ops[i].o->cols);
    }
    if (ops[0].o->rows != ops[1].o->rows)
        return texla__fail(ctx, TEXLA_ERR_SHAPE, "%s: a has %d elements, b has %d", fn,
                           ops[0].o->rows, ops[1].o->rows);
    texla__enter(ctx);
    texla__tex t;
    texla_result r = texla__pool_take(ctx, 1, 1, &t);
    if (!r) {
        if (ctx->use_compute) {
            /* compute backend: a log-pass reduction of a .* b (one serial invocation over the
             * whole transposed product is slow there); the fragment path keeps the seed's way */
            int32_t shape[4];
            texla__shape_of(ops[0].o, shape);
            r = texla__reduce(ctx, &ops[0].o->t, shape, &ops[1].o->t, TEXLA__FOLD_SUM,
                              TEXLA__MAP_MUL, &t);
        } else {
            r = texla__multipass(ctx, TEXLA__P_MATMUL_TN, &ops[0].o->t, &ops[1].o->t, &t,
                                 blocks_of(ops[0].o->rows), 1);
        }
        float px[4];
        if (!r) r = texla__tex_download(ctx, &t, px);
        if (!r) *out = px[0];
        texla__pool_give(ctx, &t);
    }
    texla__leave(ctx);
    return r;
}

texla_result texla_dot(texla_ctx *ctx, texla_mat a, texla_mat b, float *out) {
    return dot_common(ctx, "texla_dot", a, b, out);
}

texla_result texla_norm2(texla_ctx *ctx, texla_mat a, float *out) {
    return dot_common(ctx, "texla_norm2", a, a, out);
}
