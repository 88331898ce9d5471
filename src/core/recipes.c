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
        texla__pass p = {.prog = TEXLA__P_REDUCE, .dst = out,
                         .src = {src, first && map == TEXLA__MAP_MUL ? b : NULL}};
        p.i0[0] = fold;
        p.i0[1] = first ? map : TEXLA__MAP_NONE;
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

#define REDUCE_WG 256     /* invocations per workgroup of glsl/kernels/reduce.comp */
#define REDUCE_PER_INV 4  /* texels each invocation folds at least, before more workgroups */
#define REDUCE_PER_SM 8   /* workgroups per SM at most (2048 invocations: one full wave) */
#define REDUCE_MAX_WG 1024 /* without an SM count */

/* One kernel pass: ceil(texels / (256 * 4)) workgroups, at most one wave of the GPU (8 per
 * SM where the GL tells the SM count, else 1024); one workgroup needs no second fold. */
static texla_result reduce_kernel(texla_ctx *ctx, const texla__tex *a, const int32_t shape[4],
                                  const texla__tex *b, int fold, int map, texla__tex *dst) {
    long long max_groups = ctx->gl.caps.sm_count > 0 ? (long long)ctx->gl.caps.sm_count * REDUCE_PER_SM
                                                     : REDUCE_MAX_WG;
    texla_result r = texla__scratch(ctx, (size_t)max_groups);
    if (r) return r;
    long long texels = (long long)a->w * a->h;
    long long groups = (texels + REDUCE_WG * REDUCE_PER_INV - 1) / (REDUCE_WG * REDUCE_PER_INV);
    if (groups > max_groups) groups = max_groups;
    if (groups < 1) groups = 1;
    long long stride = groups * REDUCE_WG;
    int fam = TEXLA__FAM_REDUCE;
    /* unpinned: tiles from 2^16 texels up, rows below (H100: a dot of 2^24 elements 0.0585 ms
     * in tiles, 0.0768 in rows; of 1024, 8.0 us in tiles, 5.7 in rows) */
    int v = ctx->pin[fam] ? ctx->pin[fam] - 1 : texels >= 65536 ? 1 : 0;
    int tile = !strcmp(texla__families[fam].v[v].name, "tiles");
    char defs[96];
    snprintf(defs, sizeof defs, "#define FOLD %d\n#define MAP %d\n%s", fold, map,
             texla__families[fam].v[v].defines);
    texla__pass p = {.prog = TEXLA__P_REDUCE_K, .defines = defs, .dst = dst,
                     .draw = TEXLA__DRAW_KERNEL, .src = {a, map == TEXLA__MAP_MUL ? b : NULL},
                     .groups = {(unsigned)groups, 1, 1}};
    p.ssbo[0].b = &ctx->scratch;
    p.i1[0] = a->w;
    p.i1[1] = a->h;
    p.i1[2] = (int)(stride % a->w);
    p.i1[3] = (int)(stride / a->w);
    if (tile) { /* tiles of 32 x 8 texels: across, and in all */
        long long tw = (a->w + 31) / 32, tiles = tw * ((a->h + 7) / 8);
        groups = (tiles + REDUCE_PER_INV - 1) / REDUCE_PER_INV;
        if (groups > max_groups) groups = max_groups;
        if (groups < 1) groups = 1;
        p.groups[0] = (unsigned)groups;
        p.i1[2] = (int)tw;
        p.i1[3] = (int)tiles;
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
