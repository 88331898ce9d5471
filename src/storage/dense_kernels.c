/* dense_kernels.c - the compute backend's dense kernels: tiled products C (+)= op(A) op(B)
 * (glsl/kernels/gemm.comp) and the gather matrix-vector product y = A x (+ s b), alone, with
 * p'y folded in, or as a projected Jacobi step (glsl/kernels/gemv.comp); A B and A' B may go
 * through transposed copies (glsl/kernels/transpose.comp) to the A B' form. Tile sizes and
 * schedules are variants (core/variants.c), tuned per device and problem class. Shapes and
 * handles are checked by the callers (dense.c, ops/); these take textures. No GL here. */
#include "core/core.h"

#include <stdio.h>

/* ---- tiled products ---- */

typedef struct gemm_call {
    int ta, tb;
    const texla__tex *a, *b;
    texla__tex *c;
    int n, m, K, acc;
} gemm_call;

static texla_result gemm_run(texla_ctx *ctx, int variant, void *arg) {
    const gemm_call *q = arg;
    const texla__variant *v = &texla__families[TEXLA__FAM_GEMM].v[variant];
    int bm = 0, bn = 0;
    sscanf(v->name, "%dx%d", &bm, &bn);
    char defs[400];
    snprintf(defs, sizeof defs, "%s#define WG %d\n#define TRANS_A %d\n#define TRANS_B %d\n",
             v->defines, v->wg, q->ta, q->tb);
    texla__pass p = {.prog = TEXLA__P_GEMM_K, .defines = defs, .dst = q->c, .src = {q->a, q->b},
                     .draw = TEXLA__DRAW_KERNEL,
                     .groups = {(unsigned)((q->m + bn - 1) / bn), (unsigned)((q->n + bm - 1) / bm),
                                1}};
    p.i0[0] = q->n, p.i0[1] = q->m, p.i0[2] = q->K, p.i0[3] = q->acc;
    return texla__run(&ctx->gl, &p);
}

/* C (+)= op(A) op(B) by the tiled kernel in that form, its tiles tuned per form and class */
static texla_result gemm_tiled(texla_ctx *ctx, gemm_call *call) {
    char key[96];
    snprintf(key, sizeof key, "gemm 1 %s %d %d %d", call->ta ? "tn" : call->tb ? "nt" : "nn",
             texla__size_class(call->n, 16, 8192), texla__size_class(call->m, 16, 8192),
             texla__size_class(call->K, 16, 8192));
    int variant = -1;
    texla_result r = texla__variant_pick(ctx, TEXLA__FAM_GEMM, key, NULL, NULL, &variant);
    if (!r && variant < 0) {
        /* the tuner writes a temporary of C's shape, never C itself (C += ... reads it) */
        texla__tex tmp = {0};
        gemm_call trial = *call;
        trial.acc = 0;
        trial.c = &tmp;
        r = texla__pool_take(&ctx->gl, call->c->w, call->c->h, &tmp);
        if (!r) r = texla__variant_pick(ctx, TEXLA__FAM_GEMM, key, gemm_run, &trial, &variant);
        texla__pool_give(&ctx->gl, &tmp);
    }
    if (!r) r = gemm_run(ctx, variant, call);
    return r;
}

/* ---- transposed copies: C = A B and A' B through the A B' form (variants.c, "gemm_path") ---- */

#define TRANSPOSE_TW 32 /* glsl/kernels/transpose.comp's tile: TW x TH texels of src */
#define TRANSPOSE_TH 8

/* *dst = a pool texture holding src' (src r x c, so dst is r x ceil(c/4) texels). *made 0 and
 * TEXLA_OK, with no error reported, when no texture of that size can be had (wider than
 * GL_MAX_TEXTURE_SIZE, out of GPU memory): the caller then takes the direct kernel. */
static texla_result transposed(texla_ctx *ctx, const texla__tex *src, int r, int c,
                               texla__tex *dst, int *made) {
    texla__gl *g = &ctx->gl;
    int w = r, h = (c + 3) / 4, max = g->info.max_texture_size;
    *made = 0;
    if (w > max || h > max) return TEXLA_OK;
    /* an allocation that fails is not the caller's error: no message, no callback */
    texla__err saved = *g->err;
    g->err->cb = NULL;
    texla_result r0 = texla__pool_take(g, w, h, dst);
    *g->err = saved;
    if (r0) {
        texla__warn(ctx, "a %d x %d transposed copy for a matrix product could not be "
                    "allocated; the direct kernel runs instead", c, r);
        return TEXLA_OK;
    }
    texla__pass p = {.prog = TEXLA__P_TRANSPOSE_K, .dst = dst, .src = {src},
                     .draw = TEXLA__DRAW_KERNEL,
                     .groups = {(unsigned)((c + TRANSPOSE_TW - 1) / TRANSPOSE_TW),
                                (unsigned)(((r + 3) / 4 + TRANSPOSE_TH - 1) / TRANSPOSE_TH), 1}};
    p.i0[0] = r, p.i0[1] = c;
    texla_result res = texla__run(g, &p);
    if (res) texla__pool_give(g, dst);
    else *made = 1;
    return res;
}

/* C (+)= A B as A (B')', C (+)= A' B as (A') (B')': transposed copies of B (and A) from the
 * pool, the A B' kernel, the copies given back; the direct kernel where no copy can be had */
static texla_result gemm_via_nt(texla_ctx *ctx, gemm_call *q) {
    texla__tex at = {0}, bt = {0};
    int made_a = 1, made_b = 0;
    texla_result r = TEXLA_OK;
    if (q->ta) r = transposed(ctx, q->a, q->K, q->n, &at, &made_a);
    if (!r && made_a) r = transposed(ctx, q->b, q->K, q->m, &bt, &made_b);
    if (!r) {
        if (made_a && made_b) {
            gemm_call nt = *q;
            nt.ta = 0, nt.tb = 1;
            if (q->ta) nt.a = &at;
            nt.b = &bt;
            r = gemm_tiled(ctx, &nt);
        } else {
            r = gemm_tiled(ctx, q);
        }
    }
    texla__pool_give(&ctx->gl, &at);
    texla__pool_give(&ctx->gl, &bt);
    return r;
}

enum { PATH_DIRECT, PATH_VIA_NT };

static texla_result path_run(texla_ctx *ctx, int variant, void *arg) {
    return variant == PATH_VIA_NT ? gemm_via_nt(ctx, arg) : gemm_tiled(ctx, arg);
}

/* Where nothing is measured (software renderers, tune -1): via the A B' form from 2^24
 * multiply-adds up (256^3): there the copies (two memory passes over B, and A) cost a few
 * percent of the product on a large GPU, which runs the A B' kernel 1.5-2.4x faster than the
 * scattering forms (H100, 4096^3); below, the extra dispatches are not worth it. */
static int path_default(int n, int m, int K) {
    return (double)n * m * K >= (double)(1 << 24) ? PATH_VIA_NT : PATH_DIRECT;
}

texla_result texla__gemm(texla_ctx *ctx, int ta, int tb, const texla__tex *a, const texla__tex *b,
                         texla__tex *c, int n, int m, int K, int accumulate) {
    gemm_call call = {ta, tb, a, b, c, n, m, K, accumulate};
    if (tb) return gemm_tiled(ctx, &call);
    char key[96];
    snprintf(key, sizeof key, "gemm_path 1 %s %d %d %d", ta ? "tn" : "nn",
             texla__size_class(n, 16, 8192), texla__size_class(m, 16, 8192),
             texla__size_class(K, 16, 8192));
    int path = -1, def = path_default(n, m, K);
    texla_result r = texla__variant_choose(ctx, TEXLA__FAM_GEMM_PATH, key, def, NULL, NULL, &path);
    if (!r && path < 0) { /* timed into a temporary of C's shape, as the tiles are */
        texla__tex tmp = {0};
        gemm_call trial = call;
        trial.acc = 0;
        trial.c = &tmp;
        r = texla__pool_take(&ctx->gl, c->w, c->h, &tmp);
        if (!r)
            r = texla__variant_choose(ctx, TEXLA__FAM_GEMM_PATH, key, def, path_run, &trial,
                                      &path);
        texla__pool_give(&ctx->gl, &tmp);
    }
    if (!r) r = path_run(ctx, path, &call);
    return r;
}

/* ---- matrix-vector products ---- */

typedef struct gemv_call {
    const texla__tex *a, *x, *b, *e, *idx, *mu;
    texla__tex *y, *dot;
    int n, m, xnx, bnx, flags, lcp, bounded;
    float s;
} gemv_call;

static texla_result gemv_run(texla_ctx *ctx, int variant, void *arg) {
    const gemv_call *q = arg;
    const texla__variant *v = &texla__families[TEXLA__FAM_GEMV].v[variant];
    int rows = 1;
    sscanf(v->name, "r%d", &rows);
    int rows_t = texla__blocks_of(q->n);
    unsigned groups = (unsigned)((rows_t + rows - 1) / rows);
    texla_result r = texla__scratch(ctx, q->lcp ? (size_t)rows_t * 4 : groups);
    if (r) return r;
    char defs[300];
    snprintf(defs, sizeof defs, "%s#define WG %d\n#define LCP %d\n", v->defines, v->wg, q->lcp);
    texla__pass p = {.prog = TEXLA__P_GEMV_K, .defines = defs, .dst = q->y,
                     .src = {q->a, q->x, q->b ? q->b : q->x},
                     .draw = TEXLA__DRAW_KERNEL, .groups = {groups, 1, 1}};
    if (q->lcp) {
        p.src[3] = q->e;
        p.src[4] = q->bounded ? q->idx : q->e;
        p.src[5] = q->bounded ? q->mu : q->e;
    }
    p.img[1] = q->dot;
    p.ssbo[0].b = &ctx->scratch;
    p.i0[0] = q->n, p.i0[1] = q->m, p.i0[2] = q->xnx, p.i0[3] = q->flags;
    p.i1[0] = q->bnx, p.i1[1] = q->bounded;
    p.f0[0] = q->s;
    return texla__run(&ctx->gl, &p);
}

static texla_result gemv(texla_ctx *ctx, gemv_call *call) {
    char key[96];
    snprintf(key, sizeof key, "gemv 1 %d %d", texla__size_class(call->n, 16, 32768),
             texla__size_class(call->m, 16, 32768));
    int variant = -1;
    texla_result r = texla__variant_pick(ctx, TEXLA__FAM_GEMV, key, NULL, NULL, &variant);
    if (!r && variant < 0) { /* timed on the plain product into a temporary */
        texla__tex tmp = {0};
        gemv_call trial = *call;
        trial.flags = 0, trial.lcp = 0, trial.dot = NULL, trial.y = &tmp;
        r = texla__pool_take(&ctx->gl, 1, texla__blocks_of(call->n), &tmp);
        if (!r) r = texla__variant_pick(ctx, TEXLA__FAM_GEMV, key, gemv_run, &trial, &variant);
        texla__pool_give(&ctx->gl, &tmp);
    }
    if (!r) r = gemv_run(ctx, variant, call);
    return r;
}

texla_result texla__gemv(texla_ctx *ctx, const texla__tex *a, int n, int m, const texla__tex *x,
                         int xnx, const texla__tex *b, int bnx, float s, texla__tex *y,
                         texla__tex *dot) {
    gemv_call call = {.a = a, .x = x, .b = b, .y = y, .dot = dot, .n = n, .m = m, .xnx = xnx,
                      .bnx = bnx, .flags = (b ? 1 : 0) | (dot ? 2 : 0), .s = s};
    return gemv(ctx, &call);
}

texla_result texla__gemv_lcp(texla_ctx *ctx, const texla__tex *a, int n, const texla__tex *x,
                             const texla__tex *b, const texla__tex *e, const texla__tex *idx,
                             const texla__tex *mu, texla__tex *dst) {
    gemv_call call = {.a = a, .x = x, .b = b, .e = e, .idx = idx, .mu = mu, .y = dst, .n = n,
                      .m = n, .lcp = 1, .bounded = idx != NULL};
    return gemv(ctx, &call);
}
