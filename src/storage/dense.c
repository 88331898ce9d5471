/* dense.c - dense matrices in 4x1 column packing (Moravanszky): A(i, j) is texel (j, i/4),
 * channel i%4 of a cols x ceil(rows/4) texture. Making, writing, reading, the products
 * (multi-pass by additive blending on the fragment backend), the diagonal, the LCP projection
 * and the image grid. The element-wise operations and reductions are ops/. No GL here. */
#include "core/core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define M(nm, h) {nm, (h).id, TEXLA__KIND_MAT, NULL}

static void describe(const texla__obj *o, char *buf, size_t n) {
    snprintf(buf, n, "%d x %d", o->rows, o->cols);
}

static texla_result grid(texla_ctx *ctx, texla__obj *m, const texla__grid_req *q, texla__grid *g);

static const texla__kind_desc kind = {"matrix", NULL, describe, grid};

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
    texla_result r = texla__check_size(&ctx->gl, what, cols, texla__blocks_of(rows));
    if (r) return r;
    r = texla__tex_obj_new(ctx, TEXLA__KIND_MAT, &kind, cols, texla__blocks_of(rows), &out->id,
                           obj);
    if (r) return r;
    (*obj)->rows = rows;
    (*obj)->cols = cols;
    return TEXLA_OK;
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
            tx[texla__dense_index(o->cols, i, j)] = data[(size_t)i * (size_t)o->cols + (size_t)j];
    texla_result r = texla__tex_upload(&ctx->gl, &o->t, tx);
    free(tx);
    return r;
}

static texla_result make_common(texla_ctx *ctx, const char *fn, int rows, int cols,
                                const float *data, texla__prog_id prog, float v, texla_mat *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla__gl_enter(&ctx->gl);
    texla__obj *o;
    texla_result r = new_mat(ctx, fn, rows, cols, out, &o);
    if (!r && data) {
        r = upload(ctx, o, data);
    } else if (!r) {
        texla__pass p = {.prog = prog, .dst = &o->t, .f0 = {v, v, v, v}};
        texla__shape_of(o, p.shape);
        r = texla__run(&ctx->gl, &p);
    }
    if (r && out && out->id) {
        texla__obj_release(ctx, out->id);
        out->id = 0;
    }
    texla__gl_leave(&ctx->gl);
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

void texla_mat_destroy(texla_ctx *ctx, texla_mat m) { texla__destroy(ctx, m.id, TEXLA__KIND_MAT); }

texla_result texla_mat_write(texla_ctx *ctx, const float *data, texla_mat m) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla__obj *o = texla__obj_get(ctx, m.id, TEXLA__KIND_MAT);
    if (!o) return texla__bad_handle(ctx, "texla_mat_write", "m", TEXLA__KIND_MAT, m.id);
    if (!data) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_mat_write: data is NULL");
    texla__gl_enter(&ctx->gl);
    texla_result r = upload(ctx, o, data);
    texla__gl_leave(&ctx->gl);
    return r;
}

static texla_result read_texels(texla_ctx *ctx, const char *fn, texla_mat m, float **tx,
                                texla__obj **obj) {
    texla__obj *o = texla__obj_get(ctx, m.id, TEXLA__KIND_MAT);
    if (!o) return texla__bad_handle(ctx, fn, "m", TEXLA__KIND_MAT, m.id);
    size_t n = (size_t)o->t.w * (size_t)o->t.h * 4;
    *tx = malloc(n * sizeof **tx);
    if (!*tx) return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory", fn);
    texla__gl_enter(&ctx->gl);
    texla_result r = texla__tex_download(&ctx->gl, &o->t, *tx);
    texla__gl_leave(&ctx->gl);
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
                out[(size_t)i * (size_t)o->cols + (size_t)j] = tx[texla__dense_index(o->cols, i, j)];
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
    texla__obj *o = texla__obj_get(ctx, m.id, TEXLA__KIND_MAT);
    if (!o) return texla__bad_handle(ctx, "texla_mat_info_get", "m", TEXLA__KIND_MAT, m.id);
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_mat_info_get: out is NULL");
    *out = (texla_mat_info){o->rows, o->cols, o->t.w, o->t.h, o->t.tex};
    return TEXLA_OK;
}

/* ---- the diagonal and the LCP projection ---- */

texla_result texla_mat_diag(texla_ctx *ctx, texla_mat a, texla_mat dst) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla__operand ops[2] = {M("a", a), M("dst", dst)};
    texla_result r = texla__resolve(ctx, "texla_mat_diag", ops, 2);
    if (r) return r;
    const texla__obj *A = ops[0].o, *D = ops[1].o;
    if (A->rows != A->cols || D->rows != A->rows || D->cols != 1)
        return texla__fail(ctx, TEXLA_ERR_SHAPE,
                           "texla_mat_diag: a must be square and dst its n x 1 diagonal; a is %d "
                           "x %d, dst is %d x %d", A->rows, A->cols, D->rows, D->cols);
    texla__pass p = {.prog = TEXLA__P_DIAG, .dst = &ops[1].o->t, .src = {&A->t}};
    p.i0[0] = A->rows;
    return texla__run1(ctx, &p);
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
    return texla__run1(ctx, &p);
}

/* ---- products ---- */

typedef enum { NN, TN, NT } product_kind;

/* C (+)= op(A) op(B). The fragment backend: the seed's passes of k MOPs added by blending. The
 * compute backend: the tiled kernel, or for a K x 1 B the gather matrix-vector kernel. */
static texla_result product(texla_ctx *ctx, const char *fn, product_kind pk, texla_mat a,
                            texla_mat b, texla_mat dst, int accumulate) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla__operand ops[3] = {M("a", a), M("b", b), M("dst", dst)};
    texla_result r = texla__resolve(ctx, fn, ops, 3);
    if (r) return r;
    const texla__obj *A = ops[0].o, *B = ops[1].o, *C = ops[2].o;
    /* logical shapes of the factors after transposition */
    int ar = pk == TN ? A->cols : A->rows, ac = pk == TN ? A->rows : A->cols;
    int br = pk == NT ? B->cols : B->rows, bc = pk == NT ? B->rows : B->cols;
    static const char *const form[] = {"A * B", "A' * B", "A * B'"};
    if (ac != br)
        return texla__fail(ctx, TEXLA_ERR_SHAPE,
                           "%s: inner dimensions differ in %s: a is %d x %d, b is %d x %d", fn,
                           form[pk], A->rows, A->cols, B->rows, B->cols);
    if (C->rows != ar || C->cols != bc)
        return texla__fail(ctx, TEXLA_ERR_SHAPE,
                           "%s: %s of a %d x %d and a %d x %d matrix is %d x %d, but dst is "
                           "%d x %d", fn, form[pk], A->rows, A->cols, B->rows, B->cols, ar, bc,
                           C->rows, C->cols);
    static const texla__prog_id progs[] = {TEXLA__P_MATMUL, TEXLA__P_MATMUL_TN, TEXLA__P_MATMUL_NT};
    int iz = pk == TN ? A->cols : ac; /* TN guards A's columns, NN/NT the inner dimension */
    texla__gl *g = &ctx->gl;
    texla__gl_enter(g);
    if (texla__backend_of(g, progs[pk]) != TEXLA_BACKEND_COMPUTE)
        r = texla__multipass(ctx, progs[pk], &A->t, &B->t, &ops[2].o->t, texla__blocks_of(ac),
                             iz, accumulate);
    else if (pk == NN && bc == 1 && !accumulate)
        r = texla__gemv(ctx, &A->t, ar, ac, &B->t, 0, NULL, 0, 0.0f, &ops[2].o->t, NULL);
    else
        r = texla__gemm(ctx, pk == TN, pk == NT, &A->t, &B->t, &ops[2].o->t, ar, bc, ac,
                        accumulate);
    texla__gl_leave(g);
    return r;
}

texla_result texla_mat_matmul(texla_ctx *ctx, texla_mat a, texla_mat b, texla_mat dst) {
    return product(ctx, "texla_mat_matmul", NN, a, b, dst, 0);
}

texla_result texla_mat_matmul_tn(texla_ctx *ctx, texla_mat a, texla_mat b, texla_mat dst) {
    return product(ctx, "texla_mat_matmul_tn", TN, a, b, dst, 0);
}

texla_result texla_mat_matmul_nt(texla_ctx *ctx, texla_mat a, texla_mat b, texla_mat dst) {
    return product(ctx, "texla_mat_matmul_nt", NT, a, b, dst, 0);
}

texla_result texla_mat_matmul_acc(texla_ctx *ctx, texla_mat a, texla_mat b, unsigned flags,
                                  texla_mat dst) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_mat_matmul_acc";
    if (flags > TEXLA_MATMUL_TB)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: flags is 0x%x; it must be 0 (A B), TEXLA_MATMUL_TA (A' B) or "
                           "TEXLA_MATMUL_TB (A B')", fn, flags);
    return product(ctx, fn, flags == TEXLA_MATMUL_TA ? TN : flags == TEXLA_MATMUL_TB ? NT : NN, a,
                   b, dst, 1);
}

/* y = A x (+ s b) with x, b, y 2D vectors. Compute: the gather kernel into a dense n x 1
 * temporary (s b added there), then into y's layout. Fragment: x converted to n x 1, the
 * multi-pass product, converted back (and s b added). */
static texla_result matvec(texla_ctx *ctx, const char *fn, texla_mat a, texla_vec x, float s,
                           const texla_vec *b, texla_vec y) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    if (b && texla__finite(ctx, fn, "s", s)) return TEXLA_ERR_ARGUMENT;
    texla__operand ops[4] = {M("a", a), {"x", x.id, TEXLA__KIND_VEC, NULL},
                             {"b", b ? b->id : x.id, TEXLA__KIND_VEC, NULL},
                             {"y", y.id, TEXLA__KIND_VEC, NULL}};
    texla_result r = texla__resolve(ctx, fn, ops, 4);
    if (r) return r;
    const texla__obj *A = ops[0].o, *X = ops[1].o, *Bv = ops[2].o;
    texla__obj *Y = ops[3].o;
    if (A->cols != X->lay.n || A->rows != Y->lay.n)
        return texla__fail(ctx, TEXLA_ERR_SHAPE,
                           "%s: a is %d x %d, so x needs %d elements and y %d; they have %d and %d",
                           fn, A->rows, A->cols, A->cols, A->rows, X->lay.n, Y->lay.n);
    if (b && !texla__same_layout(&Bv->lay, &Y->lay)) {
        char b1[96], b2[96];
        return texla__fail(ctx, TEXLA_ERR_SHAPE, "%s: b is %s but y is %s", fn,
                           texla__describe(Bv, b1, sizeof b1), texla__describe(Y, b2, sizeof b2));
    }
    texla__gl *g = &ctx->gl;
    texla__gl_enter(g);
    texla__tex tx = {0}, ty = {0}, tv = {0};
    r = texla__pool_take(g, 1, texla__blocks_of(A->rows), &ty);
    if (!r && texla__backend_of(g, TEXLA__P_MATMUL) == TEXLA_BACKEND_COMPUTE) {
        r = texla__gemv(ctx, &A->t, A->rows, A->cols, &X->t, X->lay.nx, b ? &Bv->t : NULL,
                        Bv->lay.nx, s, &ty, NULL);
        if (!r) r = texla__dense_to_vec(ctx, &ty, Y);
    } else if (!r) {
        r = texla__pool_take(g, 1, texla__blocks_of(A->cols), &tx);
        if (!r) r = texla__vec_to_dense(ctx, X, &tx);
        if (!r)
            r = texla__multipass(ctx, TEXLA__P_MATMUL, &A->t, &tx, &ty,
                                 texla__blocks_of(A->cols), A->cols, 0);
        if (!r && !b) r = texla__dense_to_vec(ctx, &ty, Y);
        if (!r && b) { /* into a temporary of y's layout, then y = that + s b */
            texla__obj tmp = *Y;
            r = texla__pool_take(g, Y->t.w, Y->t.h, &tv);
            tmp.t = tv;
            if (!r) r = texla__dense_to_vec(ctx, &ty, &tmp);
            texla__pass p = {.prog = TEXLA__P_AXPBY, .dst = &Y->t, .src = {&tv, &Bv->t},
                             .f0 = {1.0f, s, 0.0f, 0.0f}};
            texla__shape_of(Y, p.shape);
            if (!r) r = texla__run(g, &p);
        }
    }
    texla__pool_give(g, &tx);
    texla__pool_give(g, &ty);
    texla__pool_give(g, &tv);
    texla__gl_leave(g);
    return r;
}

texla_result texla_mat_matvec(texla_ctx *ctx, texla_mat a, texla_vec x, texla_vec y) {
    return matvec(ctx, "texla_mat_matvec", a, x, 0.0f, NULL, y);
}

texla_result texla_mat_matvec_add(texla_ctx *ctx, texla_mat a, texla_vec x, float s, texla_vec b,
                                  texla_vec y) {
    return matvec(ctx, "texla_mat_matvec_add", a, x, s, &b, y);
}

/* q = A p and pq = p'q for square dense A (ops/fused.c checks the operands): the gather kernel
 * with the dot folded in, into a dense temporary, then into q's layout. */
texla_result texla__dense_matvec_dot(texla_ctx *ctx, const texla__obj *A, const texla__obj *P,
                                     texla__obj *Q, texla__obj *PQ) {
    texla__gl *g = &ctx->gl;
    texla__tex ty = {0};
    texla_result r = texla__pool_take(g, 1, texla__blocks_of(A->rows), &ty);
    if (!r)
        r = texla__gemv(ctx, &A->t, A->rows, A->cols, &P->t, P->lay.nx, NULL, 0, 0.0f, &ty,
                        &PQ->t);
    if (!r) r = texla__dense_to_vec(ctx, &ty, Q);
    texla__pool_give(g, &ty);
    return r;
}

texla_result texla_lcp_step(texla_ctx *ctx, texla_mat a, texla_mat b, texla_mat e, texla_mat x,
                            texla_mat index, texla_mat mu, texla_mat dst) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_lcp_step";
    int bounded = index.id != 0 || mu.id != 0;
    texla__operand ops[7] = {M("a", a), M("b", b), M("e", e), M("x", x)};
    int n = 4;
    if (bounded) ops[n++] = (texla__operand)M("index", index), ops[n++] = (texla__operand)M("mu", mu);
    ops[n++] = (texla__operand)M("dst", dst);
    texla_result r = texla__resolve(ctx, fn, ops, n);
    if (!r) r = texla__same_shape(ctx, fn, ops + 1, n - 1);
    if (r) return r;
    const texla__obj *A = ops[0].o, *X = ops[3].o;
    if (A->rows != A->cols || X->cols != 1 || X->rows != A->rows)
        return texla__fail(ctx, TEXLA_ERR_SHAPE,
                           "%s: a must be n x n and b, e, x%s, dst n x 1; a is %d x %d, x %d x %d",
                           fn, bounded ? ", index, mu" : "", A->rows, A->cols, X->rows, X->cols);
    int N = A->rows;
    const texla__tex *tb = &ops[1].o->t, *te = &ops[2].o->t, *tx = &X->t;
    const texla__tex *ti = bounded ? &ops[4].o->t : NULL, *tm = bounded ? &ops[5].o->t : NULL;
    texla__tex *td = &ops[n - 1].o->t;
    texla__gl *g = &ctx->gl;
    texla__gl_enter(g);
    if (texla__backend_of(g, TEXLA__P_MATMUL) == TEXLA_BACKEND_COMPUTE) {
        r = texla__gemv_lcp(ctx, &A->t, N, tx, tb, te, ti, tm, td);
    } else { /* the classic passes: a product, the seed's madad, a projection */
        texla__tex w = {0}, v = {0};
        r = texla__pool_take(g, 1, texla__blocks_of(N), &w);
        if (!r) r = texla__pool_take(g, 1, texla__blocks_of(N), &v);
        if (!r) r = texla__multipass(ctx, TEXLA__P_MATMUL, &A->t, tx, &w, texla__blocks_of(N), N, 0);
        texla__pass p = {.prog = TEXLA__P_MADAD, .dst = &v, .src = {tx, &w, tb, te}};
        texla__shape_of(X, p.shape);
        if (!r) r = texla__run(g, &p);
        texla__pass q = {.prog = bounded ? TEXLA__P_LCP_PROJECT : TEXLA__P_CLAMP_MIN, .dst = td,
                         .src = {&v, ti, tm}};
        texla__shape_of(X, q.shape);
        q.i0[0] = N;
        if (!r) r = texla__run(g, &q);
        texla__pool_give(g, &w);
        texla__pool_give(g, &v);
    }
    texla__gl_leave(g);
    return r;
}

/* ---- the image grid: logical rows x cols, raw the texture's 4 sub-rows per texel row ---- */

static texla_result grid(texla_ctx *ctx, texla__obj *m, const texla__grid_req *q, texla__grid *g) {
    texla_result r = q->raw ? texla__grid_make(ctx, q, m->t.w, 4LL * m->t.h, g)
                            : texla__grid_make(ctx, q, m->cols, m->rows, g);
    if (!r) r = texla__grid_layout(ctx, q, g, "dense 4x1");
    if (r) return texla__grid_free(g), r;
    snprintf(g->shape, sizeof g->shape, "%d x %d", m->rows, m->cols);
    float *tx = malloc((size_t)m->t.w * (size_t)m->t.h * 4 * sizeof *tx);
    if (!tx) return texla__grid_free(g), texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host "
                                                     "memory", q->fn);
    texla__gl_enter(&ctx->gl);
    r = texla__tex_download(&ctx->gl, &m->t, tx);
    texla__gl_leave(&ctx->gl);
    int32_t shape[4];
    texla__shape_of(m, shape);
    if (!r && q->range) r = texla__grid_range(ctx, &m->t, shape, g);
    if (!r)
        for (int y = 0; y < g->h; y++)
            for (int x = 0; x < g->w; x++)
                texla__grid_put(g, x, y, tx[texla__dense_index(m->t.w, y, x)],
                                !q->raw || y < m->rows ? TEXLA__CELL_VALUE : TEXLA__CELL_PAD);
    free(tx);
    if (r) texla__grid_free(g);
    return r;
}
