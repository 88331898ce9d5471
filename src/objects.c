/* objects.c - the handle table. A handle is (generation << 16) | slot; a slot's generation
 * changes when it is freed, so a stale handle is recognised, never confused with its
 * successor. Slot 0 is never used, so the handle 0 is always invalid. */
#include "internal.h"

#include <stdlib.h>

#define SLOT(id) ((int)((id)&0xffffu))
#define GEN(id) ((uint16_t)((id) >> 16))

texla_result texla__obj_new(texla_ctx *ctx, texla__kind kind, uint32_t *id, texla__obj **out) {
    int slot = 0;
    for (int i = 1; i < ctx->nobjs; i++)
        if (ctx->objs[i].kind == TEXLA__KIND_FREE) {
            slot = i;
            break;
        }
    if (!slot) {
        if (ctx->nobjs == 0xffff)
            return texla__fail(ctx, TEXLA_ERR_MEMORY, "more than 65534 texla objects alive");
        if (ctx->nobjs + 1 > ctx->capobjs) {
            int cap = ctx->capobjs ? ctx->capobjs * 2 : 64;
            texla__obj *o = realloc(ctx->objs, sizeof *o * (size_t)cap);
            if (!o) return texla__fail(ctx, TEXLA_ERR_MEMORY, "out of host memory for handles");
            for (int i = ctx->capobjs; i < cap; i++) o[i] = (texla__obj){.gen = 1};
            ctx->objs = o;
            ctx->capobjs = cap;
        }
        if (ctx->nobjs == 0) ctx->nobjs = 1;
        slot = ctx->nobjs++;
    }
    texla__obj *o = &ctx->objs[slot];
    uint16_t gen = o->gen;
    *o = (texla__obj){.gen = gen, .kind = (uint8_t)kind};
    *id = ((uint32_t)o->gen << 16) | (uint32_t)slot;
    *out = o;
    return TEXLA_OK;
}

texla__obj *texla__obj_get(texla_ctx *ctx, uint32_t id, texla__kind kind) {
    int slot = SLOT(id);
    if (!ctx || slot <= 0 || slot >= ctx->nobjs) return NULL;
    texla__obj *o = &ctx->objs[slot];
    if (o->kind != kind || o->gen != GEN(id)) return NULL;
    return o;
}

void texla__obj_release(texla_ctx *ctx, uint32_t id) {
    texla__obj *o = &ctx->objs[SLOT(id)];
    texla__tex_free(ctx, &o->t);
    for (int i = 0; i < o->ndiag; i++) texla__tex_free(ctx, &o->diags[i]);
    free(o->diags);
    free(o->offsets);
    o->diags = NULL;
    o->offsets = NULL;
    o->ndiag = 0;
    texla__points_free(&o->vao, &o->vbo);
    o->nverts = 0;
    free(o->host_verts);
    o->host_verts = NULL;
    texla__read_free(&o->pbo, &o->fence);
    o->kind = TEXLA__KIND_FREE;
    o->gen = (uint16_t)(o->gen == 0xffffu ? 1u : o->gen + 1u);
}

void texla__objs_destroy(texla_ctx *ctx) {
    for (int i = 1; i < ctx->nobjs; i++)
        if (ctx->objs[i].kind != TEXLA__KIND_FREE)
            texla__obj_release(ctx, ((uint32_t)ctx->objs[i].gen << 16) | (uint32_t)i);
}
