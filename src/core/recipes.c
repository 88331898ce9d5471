/* recipes.c - passes shared by several storage kinds: the seed's multi-pass product (dense
 * products and the dense matrix-vector product) and reductions of any texture into a GPU
 * scalar (log passes of 2x2 folds on the fragment backend; one kernel pass on the compute
 * backend: each workgroup folds its share, the last one to finish folds the partial results
 * in a fixed order, so the result is the same run to run). No GL here. */
#include "core/core.h"

#include <stdio.h>
#include <string.h>

texla_result texla__multipass(texla_ctx *ctx, texla__prog_id prog, const texla__tex *a,
                              const texla__tex *b, texla__tex *dst, int blocks, int iz,
                              int accumulate) {
    /* the fragment path adds passes by blending (the seed's design, k MOPs each); the compute
     * backend does the whole inner dimension in one dispatch (measured fastest there) */
    int compute = texla__backend_of(&ctx->gl, prog) == TEXLA_BACKEND_COMPUTE;
    int k = compute || ctx->matmul_k > blocks ? blocks : ctx->matmul_k;
    texla__pass p = {.prog = prog, .dst = dst, .src = {a, b}};
    p.shape[0] = -1;
    texla_result r = TEXLA_OK;
    for (int t0 = 0; t0 < blocks && !r; t0 += k) {
        p.i0[0] = t0;
        p.i0[1] = blocks - t0 < k ? blocks - t0 : k;
        p.i0[2] = iz;
        p.blend = t0 == 0 && !accumulate ? TEXLA__BLEND_NONE : TEXLA__BLEND_ADD;
        r = texla__run(&ctx->gl, &p);
    }
    return r;
}

/* Folds 2x2 texels per pass until one texel is left, then its four channels, into dst. */
static texla_result reduce_passes(texla_ctx *ctx, const texla__tex *a, const int32_t shape[4],
                                  const texla__tex *b, int fold, int map, texla__tex *dst) {
    const texla__tex *src = a;
    texla__tex tmp[2] = {{0}, {0}};
    int w = src->w, h = src->h, first = 1, which = 0;
    texla_result r = TEXLA_OK;
    for (;;) {
        int nw = (w + 1) / 2, nh = (h + 1) / 2, last = nw == 1 && nh == 1;
        texla__tex *out = dst;
        if (!last) {
            texla__pool_give(&ctx->gl, &tmp[which]);
            r = texla__pool_take(&ctx->gl, nw, nh, &tmp[which]);
            if (r) break;
            out = &tmp[which];
        }
        /* the fold a define (reduce.frag: a program each; the sum's carries no NaN code) */
        static const char *const folds[3] = {"#define FOLD 0", "#define FOLD 1", "#define FOLD 2"};
        texla__pass p = {.prog = TEXLA__P_REDUCE, .dst = out,
                         .defines = folds[fold > 0 && fold < 3 ? fold : 0],
                         .src = {src, first && map == TEXLA__MAP_MUL ? b : NULL}};
        /* |A| on every pass of maxabs: reduce.frag then folds the bits on each (a partial is
         * never negative, so |partial| is the partial) */
        p.i0[1] = first || map == TEXLA__MAP_ABS ? map : TEXLA__MAP_NONE;
        p.i0[2] = last;
        p.i1[0] = w;
        p.i1[1] = h;
        for (int i = 0; i < 4; i++) p.shape[i] = first ? shape[i] : (i ? 0 : -1);
        r = texla__run(&ctx->gl, &p);
        if (r || last) break;
        src = out;
        which ^= 1;
        w = nw, h = nh, first = 0;
    }
    texla__pool_give(&ctx->gl, &tmp[0]);
    texla__pool_give(&ctx->gl, &tmp[1]);
    return r;
}

texla_result texla__scratch(texla_ctx *ctx, size_t floats) {
    size_t want = 16 + 4 * floats;
    if (ctx->scratch.buf && ctx->scratch.size >= want) return TEXLA_OK;
    if (want < 16 + 4 * 1024) want = 16 + 4 * 1024;
    texla__buf_free(&ctx->gl, &ctx->scratch);
    return texla__buf_make(&ctx->gl, want, NULL, &ctx->scratch); /* zeros: count starts at 0 */
}

#define REDUCE_WG 256      /* invocations per workgroup of glsl/kernels/reduce.comp */
#define REDUCE_MAX_WG 1024 /* workgroups at most without an SM count */
#define REDUCE_SOFT_WG 16  /* on a software renderer (where several rounds get tested) */

/* One kernel pass. The workgroups: as few rounds (of 256 x unroll texels, or unroll tiles, a
 * workgroup) as the variant's workgroups per SM allow (1024 in all where the GL tells no SM
 * count, 16 on a software renderer), then the fewest workgroups that cover the texture in that
 * many rounds, so that every workgroup does the same number of full rounds; one workgroup needs
 * no second fold. */
static texla_result reduce_kernel(texla_ctx *ctx, const texla__tex *a, const int32_t shape[4],
                                  const texla__tex *b, int fold, int map, texla__tex *dst) {
    int fam = TEXLA__FAM_REDUCE;
    /* unpinned: 4 x 64 tiles ("gobs", variants.c's fifth) from 2^16 texels up, rows below
     * (H100, 2026-11-26: a dot of 2^24 elements 0.0525 ms in gobs, 0.0533 in 32 x 8 tiles,
     * 0.0563 with eight in flight, 0.0780 in rows; of 1024, 5.7 us in rows, 6.2 in gobs) */
    int v = ctx->pin[fam] ? ctx->pin[fam] - 1 : (long long)a->w * a->h >= 65536 ? 4 : 0;
    const texla__variant *var = &texla__families[fam].v[v];
    int tile = var->arg[0] > 0, unroll = var->arg[1];
    const texla__caps *c = &ctx->gl.caps;
    long long max_groups = c->sm_count > 0 ? (long long)c->sm_count * var->arg[2]
                           : c->software   ? REDUCE_SOFT_WG
                                           : REDUCE_MAX_WG;
    long long units = (long long)a->w * a->h, per = (long long)REDUCE_WG * unroll, tw = 0;
    if (tile) { /* tiles of tw x (256 / tw) texels: across, and in all */
        tw = (a->w + var->arg[0] - 1) / var->arg[0];
        units = tw * ((a->h + REDUCE_WG / var->arg[0] - 1) / (REDUCE_WG / var->arg[0]));
        per = unroll;
    }
    long long rounds = (units + per * max_groups - 1) / (per * max_groups);
    long long groups = (units + per * rounds - 1) / (per * rounds);
    if (groups < 1) groups = 1;
    texla_result r = texla__scratch(ctx, (size_t)groups);
    if (r) return r;
    char defs[128];
    snprintf(defs, sizeof defs, "#define FOLD %d\n#define MAP %d\n%s", fold, map, var->defines);
    texla__pass p = {.prog = TEXLA__P_REDUCE_K, .defines = defs, .dst = dst,
                     .draw = TEXLA__DRAW_KERNEL, .src = {a, map == TEXLA__MAP_MUL ? b : NULL},
                     .groups = {(unsigned)groups, 1, 1}};
    p.ssbo[0].b = &ctx->scratch;
    p.i1[0] = a->w;
    p.i1[1] = a->h;
    if (tile) {
        p.i1[2] = (int)tw;
        p.i1[3] = (int)units;
    } else { /* the grid stride as (N mod w, N div w) */
        long long stride = groups * REDUCE_WG;
        p.i1[2] = (int)(stride % a->w);
        p.i1[3] = (int)(stride / a->w);
    }
    for (int i = 0; i < 4; i++) p.shape[i] = shape[i];
    return texla__run(&ctx->gl, &p);
}

texla_result texla__reduce(texla_ctx *ctx, const texla__tex *a, const int32_t shape[4],
                           const texla__tex *b, int fold, int map, texla__tex *dst) {
    if (texla__backend_of(&ctx->gl, TEXLA__P_REDUCE) == TEXLA_BACKEND_COMPUTE)
        return reduce_kernel(ctx, a, shape, b, fold, map, dst);
    return reduce_passes(ctx, a, shape, b, fold, map, dst);
}

/* ---- conversions between the 2D layout and the dense n x 1 layout ---- */

texla_result texla__vec_to_dense(texla_ctx *ctx, const texla__obj *v, texla__tex *dst) {
    texla__pass p = {.prog = TEXLA__P_VEC_TO_DENSE, .dst = dst, .src = {&v->t}};
    p.i0[0] = v->lay.n;
    p.i0[1] = v->lay.nx;
    return texla__run(&ctx->gl, &p);
}

texla_result texla__dense_to_vec(texla_ctx *ctx, const texla__tex *src, texla__obj *v) {
    texla__pass p = {.prog = TEXLA__P_DENSE_TO_VEC, .dst = &v->t, .src = {src}};
    texla__shape_of(v, p.shape);
    return texla__run(&ctx->gl, &p);
}
