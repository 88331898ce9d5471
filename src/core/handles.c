/* handles.c - the handle table. A handle is (context tag << 44) | (generation << 20) | slot.
 * Each context draws its tag from a process-wide counter, so the first matrix of two contexts
 * has different handles, and a handle of one context names nothing in another. A slot's
 * generation changes when it is freed; a slot whose 24-bit generation is used up is retired
 * (never reused), so a stale handle is never confused with a later object. Free slots form a
 * list. Slot 0 is never used, so the handle 0 is always invalid. */
#include "core/core.h"

#include <stdlib.h>

#define SLOT_MASK ((1u << TEXLA__SLOT_BITS) - 1u)
#define GEN_MASK ((1u << TEXLA__GEN_BITS) - 1u)
#define SLOT(id) ((int)((id)&SLOT_MASK))
#define GEN(id) ((uint32_t)(((id) >> TEXLA__SLOT_BITS) & GEN_MASK))
#define TAG(id) ((uint32_t)((id) >> (TEXLA__SLOT_BITS + TEXLA__GEN_BITS)))
#define RETIRED GEN_MASK /* a generation no handle carries */

static uint64_t handle_of(const texla_ctx *ctx, int slot, uint32_t gen) {
    return ((uint64_t)ctx->tag << (TEXLA__SLOT_BITS + TEXLA__GEN_BITS)) |
           ((uint64_t)gen << TEXLA__SLOT_BITS) | (uint64_t)(unsigned)slot;
}

texla_result texla__obj_new(texla_ctx *ctx, texla__kind kind, const texla__kind_desc *k,
                            uint64_t *id, texla__obj **out) {
    /* objs may move below: not while a callback interrupts a call holding pointers into it */
    texla_result r = texla__in_callback(&ctx->err, "making an object");
    if (r) return r;
    int slot = ctx->free_head;
    if (slot) {
        ctx->free_head = ctx->objs[slot].next_free;
    } else {
        if (ctx->nobjs >= TEXLA__MAX_OBJS)
            return texla__fail(ctx, TEXLA_ERR_MEMORY, "more than %d texla objects alive",
                               TEXLA__MAX_OBJS - 1);
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
    *o = (texla__obj){.gen = o->gen, .kind = (uint8_t)kind, .k = k};
    *id = handle_of(ctx, slot, o->gen);
    *out = o;
    return TEXLA_OK;
}

texla__obj *texla__obj_get(texla_ctx *ctx, uint64_t id, texla__kind kind) {
    int slot = SLOT(id);
    if (!ctx || TAG(id) != ctx->tag || slot <= 0 || slot >= ctx->nobjs) return NULL;
    texla__obj *o = &ctx->objs[slot];
    if (o->kind != kind || o->gen != GEN(id)) return NULL;
    return o;
}

const char *texla__handle_problem(const texla_ctx *ctx, uint64_t id, texla__kind kind) {
    if (id == 0) return "the null handle";
    if (TAG(id) == 0) return "no texla handle (no context's tag is 0)"; /* e.g. a small integer */
    if (TAG(id) != ctx->tag) return "a handle of another texla context";
    int slot = SLOT(id);
    if (slot <= 0 || slot >= ctx->nobjs) return "never made by this context";
    const texla__obj *o = &ctx->objs[slot];
    if (o->gen != GEN(id)) return "destroyed";
    if (o->kind != kind) return "a handle of another kind of object";
    return "not live";
}

void texla__obj_release(texla_ctx *ctx, uint64_t id) {
    int slot = SLOT(id);
    texla__obj *o = &ctx->objs[slot];
    if (o->k && o->k->release) o->k->release(ctx, o);
    texla__tex_free(&ctx->gl, &o->t);
    free(o->part);
    uint32_t gen = o->gen + 1 >= RETIRED ? RETIRED : o->gen + 1;
    *o = (texla__obj){.gen = gen, .kind = TEXLA__KIND_FREE};
    if (gen != RETIRED) { /* a retired slot stays off the free list for good */
        o->next_free = ctx->free_head;
        ctx->free_head = slot;
    }
}

void texla__objs_destroy(texla_ctx *ctx) {
    for (int i = 1; i < ctx->nobjs; i++)
        if (ctx->objs[i].kind != TEXLA__KIND_FREE)
            texla__obj_release(ctx, handle_of(ctx, i, ctx->objs[i].gen));
}

void texla__destroy(texla_ctx *ctx, uint64_t id, texla__kind kind) {
    if (!ctx || !texla__obj_get(ctx, id, kind)) return;
    texla__gl_enter(&ctx->gl);
    /* another context current: nothing destroyed (its objects of the same names stay), the
     * handle still valid; the message says why */
    if (!texla__gl_current(&ctx->gl, "destroying an object")) texla__obj_release(ctx, id);
    texla__gl_leave(&ctx->gl);
}
