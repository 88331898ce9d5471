/* lcp_step.c - the projected Jacobi step of an LCP on 2D vectors (texla_vec_lcp_step): the one
 * pass per iteration besides the product, for solvers over any operator (solvers/lcp.c: texla_lcp_jacobi_op). */
#include "core/core.h"

texla_result texla_vec_lcp_step(texla_ctx *ctx, texla_vec x, texla_vec w, texla_vec b, texla_vec e,
                                texla_vec index, texla_vec mu, texla_vec dst) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_vec_lcp_step";
    int bounded = index.id != 0 || mu.id != 0;
    texla__operand ops[7] = {{"x", x.id, TEXLA__KIND_VEC, NULL},
                             {"w", w.id, TEXLA__KIND_VEC, NULL},
                             {"b", b.id, TEXLA__KIND_VEC, NULL},
                             {"e", e.id, TEXLA__KIND_VEC, NULL},
                             {"index", index.id, TEXLA__KIND_VEC, NULL},
                             {"mu", mu.id, TEXLA__KIND_VEC, NULL},
                             {"dst", dst.id, TEXLA__KIND_VEC, NULL}};
    int n = 7;
    if (!bounded) ops[4] = ops[6], n = 5; /* no index and mu: x, w, b, e, dst */
    texla_result r = texla__resolve(ctx, fn, ops, n);
    if (!r) r = texla__same_shape(ctx, fn, ops, n);
    if (r) return r;
    const texla__obj *X = ops[0].o;
    texla__pass p = {.prog = TEXLA__P_LCP_STEP_VEC, .dst = &ops[n - 1].o->t,
                     .src = {&X->t, &ops[1].o->t, &ops[2].o->t, &ops[3].o->t}};
    if (bounded) p.src[4] = &ops[4].o->t, p.src[5] = &ops[5].o->t;
    p.i0[0] = X->lay.n;
    p.i0[1] = X->lay.nx;
    p.i0[2] = bounded;
    texla__shape_of(ops[n - 1].o, p.shape);
    return texla__run1(ctx, &p);
}
