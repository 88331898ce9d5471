/* grid.c - grids: the pictures of objects the image writers encode (io/png.c). Each storage
 * kind draws its own (its kind_desc's grid function); this file holds what they share. No GL
 * here. */
#include "core/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void texla__grid_free(texla__grid *g) {
    free(g->v), free(g->cls), free(g->layout), free(g->bands);
    g->v = NULL, g->cls = NULL, g->layout = NULL, g->bands = NULL;
    g->nbands = 0;
}

texla_result texla__grid_make(texla_ctx *ctx, const texla__grid_req *q, long long w, long long h,
                              texla__grid *g) {
    if (w < 1) w = 1;
    if (h < 1) h = 1;
    long long sc = q->scale > 0 ? q->scale : 1;
    if (w * sc > q->max_side || h * sc > q->max_side)
        return texla__fail(ctx, TEXLA_ERR_LIMIT,
                           "%s: the image would be %lld x %lld pixels (%lld x %lld at scale %lld); "
                           "at most %d per side", q->fn, w * sc, h * sc, w, h, sc, q->max_side);
    g->w = (int)w, g->h = (int)h;
    size_t n = (size_t)w * (size_t)h;
    g->v = calloc(n, sizeof *g->v);
    g->cls = malloc(n);
    if (!g->v || !g->cls) {
        texla__grid_free(g);
        return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory for a %lld x %lld image",
                           q->fn, w, h);
    }
    memset(g->cls, TEXLA__CELL_BACK, n);
    g->lo = INFINITY, g->hi = -INFINITY;
    return TEXLA_OK;
}

texla_result texla__grid_layout(texla_ctx *ctx, const texla__grid_req *q, texla__grid *g,
                                const char *text) {
    free(g->layout);
    g->layout = malloc(strlen(text) + 1);
    if (!g->layout) return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory", q->fn);
    strcpy(g->layout, text);
    return TEXLA_OK;
}

texla_result texla__grid_range(texla_ctx *ctx, const texla__tex *t, const int32_t shape[4],
                               texla__grid *g) {
    texla__tex mx = {0}, mn = {0};
    float a[4], b[4];
    texla__gl_enter(&ctx->gl);
    texla_result r = texla__pool_take(&ctx->gl, 1, 1, &mx);
    if (!r) r = texla__pool_take(&ctx->gl, 1, 1, &mn);
    if (!r) r = texla__reduce(ctx, t, shape, NULL, TEXLA__FOLD_MAX, TEXLA__MAP_FINITE, &mx);
    if (!r) r = texla__reduce(ctx, t, shape, NULL, TEXLA__FOLD_MIN, TEXLA__MAP_FINITE, &mn);
    if (!r) r = texla__tex_download(&ctx->gl, &mx, a);
    if (!r) r = texla__tex_download(&ctx->gl, &mn, b);
    if (!r) {
        if (b[0] < g->lo) g->lo = b[0];
        if (a[0] > g->hi) g->hi = a[0];
        g->gpu = 1;
    }
    texla__pool_give(&ctx->gl, &mx);
    texla__pool_give(&ctx->gl, &mn);
    texla__gl_leave(&ctx->gl);
    return r;
}

texla_result texla__grid_of(texla_ctx *ctx, uint64_t id, texla__kind kind,
                            const texla__grid_req *q, texla__grid *g) {
    texla__obj *o = texla__obj_get(ctx, id, kind);
    if (!o) return texla__bad_handle(ctx, q->fn, kind == TEXLA__KIND_MAT ? "m" :
                                     kind == TEXLA__KIND_VEC ? "v" :
                                     kind == TEXLA__KIND_SCALAR ? "s" : "a", kind, id);
    return o->k->grid(ctx, o, q, g);
}

void texla__grid_vec(texla__grid *g, int y0, const float *tx, const texla__layout *l, int raw) {
    int h = raw ? l->gy : (l->n + l->nx - 1) / l->nx, w = raw ? l->gx : l->nx;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            long long k = (long long)y * l->nx + x;
            int live = x < l->nx && k < l->n;
            size_t i = raw ? ((size_t)(y / 2) * (size_t)(l->gx / 2) + (size_t)(x / 2)) * 4 +
                                 (size_t)((x & 1) + 2 * (y & 1))
                           : live ? texla__texel_index(l, (int)k) : 0;
            texla__grid_put(g, x, y0 + y, live ? tx[i] : 0.0f,
                            live ? TEXLA__CELL_VALUE : TEXLA__CELL_PAD);
        }
}

texla_result texla__grid_texture(texla_ctx *ctx, uint32_t texture, int width, int height,
                                 const texla__grid_req *q, texla__grid *g) {
    int max = ctx->gl.info.max_texture_size;
    if (width > max || height > max)
        return texla__fail(ctx, TEXLA_ERR_LIMIT,
                           "%s: the size is %d x %d; this GL has no textures past %d x %d "
                           "(GL_MAX_TEXTURE_SIZE)", q->fn, width, height, max, max);
    texla_result r = texla__grid_make(ctx, q, (q->raw ? 4LL : 1LL) * width, height, g);
    if (!r) r = texla__grid_layout(ctx, q, g, q->raw ? "texture RGBA planes" : "texture channel 0");
    if (r) return texla__grid_free(g), r;
    snprintf(g->shape, sizeof g->shape, "texture %d x %d", width, height);
    float *tx = malloc((size_t)width * (size_t)height * 4 * sizeof *tx);
    if (!tx) {
        texla__grid_free(g);
        return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory", q->fn);
    }
    texla__gl_enter(&ctx->gl);
    r = texla__tex_download_name(&ctx->gl, q->fn, texture, width, height, tx);
    texla__gl_leave(&ctx->gl);
    if (r) return free(tx), texla__grid_free(g), r;
    for (int y = 0; y < g->h; y++)
        for (int x = 0; x < g->w; x++) {
            int c = x / width, xx = x % width;
            texla__grid_put(g, x, y, tx[((size_t)y * (size_t)width + (size_t)xx) * 4 + (size_t)c],
                            TEXLA__CELL_VALUE);
        }
    free(tx);
    return TEXLA_OK; /* gpu stays 0: the range of a host texture (perhaps not complete for
                        sampling) is found by the writer on the host */
}

texla_result texla__tex_obj_new(texla_ctx *ctx, texla__kind kind, const texla__kind_desc *k,
                                int w, int h, uint64_t *id, texla__obj **out) {
    texla_result r = texla__obj_new(ctx, kind, k, id, out);
    if (r) return r;
    r = texla__tex_make(&ctx->gl, w, h, &(*out)->t);
    if (r) {
        texla__obj_release(ctx, *id);
        *id = 0;
    }
    return r;
}
