/* fused.c - the solvers' fused steps: q = A p with p'q for any operator (one kernel per kind
 * that has one: dense and banded on the compute backend; other kinds, and the fragment
 * backend, the product then the dot product), and the conjugate-gradient update (one kernel on
 * the compute backend, else the unfused passes it replaces). A storage kind that gains a fused
 * product adds its case to matvec_dot below; the update works for every operator. */
#include "core/core.h"

#include <stdio.h>

static const texla__kind op_kinds[] = {[TEXLA_OP_DENSE] = TEXLA__KIND_MAT,
                                       [TEXLA_OP_BANDED] = TEXLA__KIND_BANDED,
                                       [TEXLA_OP_SPARSE] = TEXLA__KIND_SPARSE};

texla_result texla_op_matvec_dot(texla_ctx *ctx, texla_op a, texla_vec p, texla_vec q,
                                 texla_scalar pq) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_op_matvec_dot";
    if (a.kind == TEXLA_OP_PRODUCT) { /* no fused kernel: the product, then the dot product */
        int rows = 0, cols = 0;
        texla_result r = texla_op_shape(ctx, a, &rows, &cols);
        if (r) return r;
        /* every operand checked before the product writes q (and its mid) */
        texla__operand po[3] = {{"p", p.id, TEXLA__KIND_VEC, NULL},
                                {"pq", pq.id, TEXLA__KIND_SCALAR, NULL},
                                {"q", q.id, TEXLA__KIND_VEC, NULL}};
        if ((r = texla__resolve(ctx, fn, po, 3))) return r;
        if (rows != cols || po[0].o->lay.n != cols || po[2].o->lay.n != rows)
            return texla__fail(ctx, TEXLA_ERR_SHAPE, "%s: a must be square with p and q of its "
                               "size; the product operator is %d x %d, p has %d elements, q %d",
                               fn, rows, cols, po[0].o->lay.n, po[2].o->lay.n);
        if (p.id == q.id)
            return texla__fail(ctx, TEXLA_ERR_ALIAS, "%s: p is also q; q = A p is written while "
                               "p is read", fn);
        for (int k = 0; k < 3; k += 2) {
            int w = 0;
            if ((r = texla_op_writes(ctx, a, k ? q : p, &w))) return r;
            if (w)
                return texla__fail(ctx, TEXLA_ERR_ALIAS, "%s: %s is the product operator's "
                                   "intermediate vector (mid), which the product rewrites", fn,
                                   k ? "q" : "p");
        }
        texla_ctx_begin(ctx);
        r = texla_op_matvec(ctx, a, p, q);
        if (!r) r = texla_vec_dot(ctx, p, q, pq);
        texla_ctx_end(ctx);
        return r;
    }
    if (a.kind < TEXLA_OP_DENSE || a.kind > TEXLA_OP_SPARSE)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: operator kind %d is none of TEXLA_OP_DENSE, _BANDED, _SPARSE, "
                           "_PRODUCT", fn, (int)a.kind);
    texla__operand ops[4] = {{"a", a.id, op_kinds[a.kind], NULL},
                             {"p", p.id, TEXLA__KIND_VEC, NULL},
                             {"pq", pq.id, TEXLA__KIND_SCALAR, NULL},
                             {"q", q.id, TEXLA__KIND_VEC, NULL}};
    texla_result r = texla__resolve(ctx, fn, ops, 4);
    if (r) return r;
    const texla__obj *A = ops[0].o, *P = ops[1].o;
    texla__obj *Q = ops[3].o, *PQ = ops[2].o;
    if (A->rows != A->cols || P->lay.n != A->cols || Q->lay.n != A->rows)
        return texla__fail(ctx, TEXLA_ERR_SHAPE,
                           "%s: a must be square with p and q of its size; a is %d x %d, p has "
                           "%d elements, q %d", fn, A->rows, A->cols, P->lay.n, Q->lay.n);
    texla__gl *g = &ctx->gl;
    if (a.kind == TEXLA_OP_BANDED &&
        (!texla__same_layout(&P->lay, &A->lay) || !texla__same_layout(&Q->lay, &A->lay))) {
        char b1[96], b2[96];
        return texla__fail(ctx, TEXLA_ERR_SHAPE, "%s: p is %s and q %s; the banded matrix is on "
                           "a grid %d wide (gx %d)", fn, texla__describe(P, b1, sizeof b1),
                           texla__describe(Q, b2, sizeof b2), A->lay.nx, A->lay.gx);
    }
    texla__gl_enter(g);
    if (a.kind == TEXLA_OP_DENSE && texla__backend_of(g, TEXLA__P_MATMUL) == TEXLA_BACKEND_COMPUTE)
        r = texla__dense_matvec_dot(ctx, A, P, Q, PQ);
    else if (a.kind == TEXLA_OP_BANDED &&
             texla__backend_of(g, TEXLA__P_BANDED) == TEXLA_BACKEND_COMPUTE)
        r = texla__banded_matvec_dot(ctx, A, P, Q, PQ);
    else { /* the product, then the dot product */
        r = texla_op_matvec(ctx, a, p, q);
        if (!r) r = texla_vec_dot(ctx, p, q, pq);
    }
    texla__gl_leave(g);
    return r;
}

texla_result texla_vec_cg_update(texla_ctx *ctx, texla_scalar rr, texla_scalar pq, texla_vec p,
                                 texla_vec q, texla_vec x, texla_vec r, texla_scalar rr_new,
                                 texla_scalar beta) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_vec_cg_update";
    texla__operand ops[8] = {{"rr", rr.id, TEXLA__KIND_SCALAR, NULL},
                             {"pq", pq.id, TEXLA__KIND_SCALAR, NULL},
                             {"rr_new", rr_new.id, TEXLA__KIND_SCALAR, NULL},
                             {"beta", beta.id, TEXLA__KIND_SCALAR, NULL},
                             {"p", p.id, TEXLA__KIND_VEC, NULL},
                             {"q", q.id, TEXLA__KIND_VEC, NULL},
                             {"x", x.id, TEXLA__KIND_VEC, NULL},
                             {"r", r.id, TEXLA__KIND_VEC, NULL}};
    texla_result res = texla__resolve(ctx, fn, ops, 8);
    if (res) return res;
    /* every operand its own object: x and r are rewritten while p and q are read, the scalars
     * read while others are written */
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < i; j++)
            if (ops[i].id == ops[j].id)
                return texla__fail(ctx, TEXLA_ERR_ALIAS,
                                   "%s: %s and %s are the same %s; every operand must be its "
                                   "own", fn, ops[j].name, ops[i].name,
                                   texla__kind_names[ops[i].kind]);
    res = texla__same_shape(ctx, fn, ops + 4, 4);
    if (res) return res;
    texla__tex *trr = &ops[0].o->t, *tpq = &ops[1].o->t, *tnew = &ops[2].o->t,
               *tbeta = &ops[3].o->t, *tp = &ops[4].o->t, *tq = &ops[5].o->t,
               *tx = &ops[6].o->t, *tr = &ops[7].o->t;
    texla__gl *g = &ctx->gl;
    texla__gl_enter(g);
    if (texla__backend_of(g, TEXLA__P_AXPBY) == TEXLA_BACKEND_COMPUTE) {
        unsigned gx = (unsigned)(tx->w + 15) / 16, gy = (unsigned)(tx->h + 15) / 16;
        res = texla__scratch(ctx, (size_t)gx * gy);
        texla__pass pa = {.prog = TEXLA__P_CG_UPDATE_K, .dst = tx, .src = {tp, tq, trr, tpq},
                          .draw = TEXLA__DRAW_KERNEL, .groups = {gx, gy, 1},
                          .img = {NULL, tr, tnew, tbeta}, .i0 = {tx->w, tx->h, 0, 0}};
        texla__shape_of(ops[7].o, pa.shape); /* x and r: one layout (checked above) */
        pa.ssbo[0].b = &ctx->scratch;
        if (!res) res = texla__run(g, &pa);
    } else { /* the passes it replaces: alpha, two accumulations, a reduction, beta */
        texla__tex alpha = {0};
        int32_t shape[4];
        texla__shape_of(ops[7].o, shape);
        res = texla__pool_take(g, 1, 1, &alpha);
        texla__pass ps = {.prog = TEXLA__P_SCALAR, .dst = &alpha, .src = {trr, tpq},
                          .i0 = {1, 0, 0, 0}};
        if (!res) res = texla__run(g, &ps);
        texla__pass pu = {.prog = TEXLA__P_SCALE, .dst = tx, .src = {tp},
                          .blend = TEXLA__BLEND_ADD, .f0 = {1.0f, 0, 0, 0}, .coef = 1,
                          .coef_src = &alpha};
        for (int i = 0; i < 4; i++) pu.shape[i] = shape[i];
        if (!res) res = texla__run(g, &pu);
        pu.dst = tr, pu.src[0] = tq, pu.f0[0] = -1.0f;
        if (!res) res = texla__run(g, &pu);
        if (!res) res = texla__reduce(ctx, tr, shape, NULL, TEXLA__FOLD_SUM, TEXLA__MAP_SQUARE, tnew);
        ps.dst = tbeta, ps.src[0] = tnew, ps.src[1] = trr;
        if (!res) res = texla__run(g, &ps);
        texla__pool_give(g, &alpha);
    }
    texla__gl_leave(g);
    return res;
}
