/* context.c - contexts: making one (headless EGL or the host's), the backend of each program
 * (measured or pinned), info, stats, batches, destroying. */
#include "core/core.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_uint next_tag = 1;

/* a tag for a new context: 1 .. 2^20 - 1, never 0 (so no handle of a context is 0) */
static uint32_t new_tag(void) {
    for (;;) {
        uint32_t t = atomic_fetch_add(&next_tag, 1u) & ((1u << TEXLA__TAG_BITS) - 1u);
        if (t) return t;
    }
}

const char *texla_error_message(const texla_ctx *ctx) {
    return ctx ? ctx->err.msg : texla__thread_msg();
}

texla_result texla_ctx_fail(texla_ctx *ctx, texla_result code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    texla__verrf(ctx ? &ctx->err : NULL, code, fmt ? fmt : "", ap);
    va_end(ap);
    return code;
}

/* The failure of texla_ctx_make: the thread's message, and the desc's callback. */
static texla_result make_fail(const texla_ctx_desc *d, texla_result code, const char *fmt, ...)
    TEXLA__PRINTF(3, 4);
static texla_result make_fail(const texla_ctx_desc *d, texla_result code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    texla__verrf(NULL, code, fmt, ap);
    va_end(ap);
    if (d->error_cb) d->error_cb(code, texla__thread_msg(), d->error_user);
    return code;
}

/* Warm timing of a few copies of a 512x512 texture on one backend. */
static texla_result time_copies(texla_ctx *ctx, int backend, double *ms) {
    texla__gl *g = &ctx->gl;
    texla__tex a, b;
    texla_result r = texla__pool_take(g, 512, 512, &a);
    if (!r) r = texla__pool_take(g, 512, 512, &b);
    uint8_t saved = g->choice[TEXLA__P_COPY];
    g->choice[TEXLA__P_COPY] = (uint8_t)backend;
    texla__pass p = {.prog = TEXLA__P_COPY, .dst = &b, .src = {&a}};
    for (int i = 0; i < 3 && !r; i++) r = texla__run(g, &p); /* compile and warm up */
    texla__gl_finish(g);
    double t0 = texla__now_ms();
    for (int i = 0; i < 8 && !r; i++) r = texla__run(g, &p);
    texla__gl_finish(g);
    *ms = (texla__now_ms() - t0) / 8;
    g->choice[TEXLA__P_COPY] = saved;
    texla__pool_give(g, &a);
    texla__pool_give(g, &b);
    return r;
}

/* The default backend: as asked, or (AUTO) the faster of the two on a copy, measured here. */
static texla_result choose_backend(texla_ctx *ctx) {
    texla__gl *g = &ctx->gl;
    texla_backend want = ctx->desc.backend;
    if (want == TEXLA_BACKEND_COMPUTE && !g->info.compute)
        return texla__fail(ctx, TEXLA_ERR_UNSUPPORTED,
                           "the compute backend needs OpenGL 4.3; this context is %d.%d",
                           g->info.gl_major, g->info.gl_minor);
    g->default_backend = want == TEXLA_BACKEND_COMPUTE ? TEXLA_BACKEND_COMPUTE
                                                       : TEXLA_BACKEND_FRAGMENT;
    if (want == TEXLA_BACKEND_AUTO && g->info.compute) {
        double fragment = 0, compute = 0;
        texla_result r = time_copies(ctx, TEXLA_BACKEND_FRAGMENT, &fragment);
        if (!r) r = time_copies(ctx, TEXLA_BACKEND_COMPUTE, &compute);
        if (r) return r;
        ctx->calib_ms[TEXLA_BACKEND_FRAGMENT] = (float)fragment;
        ctx->calib_ms[TEXLA_BACKEND_COMPUTE] = (float)compute;
        /* clearly faster, or the classic path */
        g->default_backend = compute * 1.25 < fragment ? TEXLA_BACKEND_COMPUTE
                                                       : TEXLA_BACKEND_FRAGMENT;
    }
    return TEXLA_OK;
}

texla_result texla_ctx_make(const texla_ctx_desc *desc_in, texla_ctx **out) {
    texla_ctx_desc desc = {0};
    if (desc_in) desc = *desc_in;
    texla__thread_msg()[0] = '\0';
    if (!out) return make_fail(&desc, TEXLA_ERR_ARGUMENT, "texla_ctx_make: out is NULL");
    *out = NULL;
    if (desc.matmul_k < 0)
        return make_fail(&desc, TEXLA_ERR_ARGUMENT,
                         "texla_ctx_make: matmul_k is %d; it must be >= 0 (0: default)",
                         desc.matmul_k);
    if ((unsigned)desc.backend > TEXLA_BACKEND_COMPUTE)
        return make_fail(&desc, TEXLA_ERR_ARGUMENT,
                         "texla_ctx_make: backend is %d; it must be TEXLA_BACKEND_AUTO, "
                         "_FRAGMENT or _COMPUTE", (int)desc.backend);
    if (desc.egl_device < 0 || desc.gl_version_max < 0)
        return make_fail(&desc, TEXLA_ERR_ARGUMENT,
                         "texla_ctx_make: egl_device (%d) and gl_version_max (%d) must be >= 0",
                         desc.egl_device, desc.gl_version_max);
    if (desc.gl_version_max > 0 && desc.gl_version_max < 33)
        return make_fail(&desc, TEXLA_ERR_ARGUMENT,
                         "texla_ctx_make: gl_version_max is %d; texla needs OpenGL 3.3 at least, "
                         "so the cap must be 33 or more (major * 10 + minor, e.g. 33, 43, 46; 0: "
                         "the highest)", desc.gl_version_max);
    if (desc.png_max_pixels < 0)
        return make_fail(&desc, TEXLA_ERR_ARGUMENT,
                         "texla_ctx_make: png_max_pixels is %lld; it must be >= 0 (0: default)",
                         (long long)desc.png_max_pixels);
    texla_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return make_fail(&desc, TEXLA_ERR_MEMORY, "texla_ctx_make: out of memory");
#ifdef TEXLA_DEBUG
    desc.debug = 1; /* a debug build checks every pass */
#endif
    ctx->desc = desc;
    ctx->err.cb = desc.error_cb;
    ctx->err.user = desc.error_user;
    ctx->tag = new_tag();
    ctx->matmul_k = desc.matmul_k ? desc.matmul_k : TEXLA_MATMUL_K_DEFAULT;
    texla__gl *g = &ctx->gl;
    g->err = &ctx->err;
    g->host = desc.host_getproc != NULL;
    g->debug = desc.debug;
    g->glsl_dir = desc.glsl_dir;
    g->default_backend = TEXLA_BACKEND_FRAGMENT;
    texla_result r = TEXLA_OK;
    if (!g->host) r = texla__egl_make(g, desc.egl_device, desc.gl_version_max);
    if (!r) r = texla__gl_load(g, desc.host_getproc);
    if (!r) {
        texla__gl_enter(g);
        r = texla__gl_probe_float(g);
        if (!r) r = choose_backend(ctx);
        if (!r && g->host) texla__gl_mark(g, ctx->tag);
        texla__gl_leave(g);
    }
    if (r) {
        snprintf(texla__thread_msg(), TEXLA__MSG_LEN, "%s", ctx->err.msg);
        ctx->err.cb = NULL; /* the callback has had this message */
        texla_ctx_destroy(ctx);
        return r;
    }
    *out = ctx;
    return TEXLA_OK;
}

void *texla__hscratch(texla_ctx *ctx, size_t bytes) {
    if (bytes <= ctx->hscratch_n) return ctx->hscratch;
    void *p = malloc(bytes);
    if (!p) return NULL;
    free(ctx->hscratch);
    ctx->hscratch = p;
    ctx->hscratch_n = bytes;
    return p;
}

void texla_ctx_destroy(texla_ctx *ctx) {
    if (!ctx || texla__in_callback(&ctx->err, "texla_ctx_destroy")) return;
    if (texla__gl_loaded() && (ctx->gl.host || ctx->gl.egl_ctx)) { /* delete our GL objects */
        texla__gl_enter(&ctx->gl);
        texla__objs_destroy(ctx);
        texla__buf_free(&ctx->gl, &ctx->scratch);
        texla__gl_release(&ctx->gl);
        texla__gl_leave(&ctx->gl);
    }
    if (!ctx->gl.host) texla__egl_destroy(&ctx->gl);
    texla__tune_free(ctx);
    free(ctx->objs);
    free(ctx->gl.pool);
    free(ctx->hscratch);
    free(ctx);
}

texla_result texla_ctx_info(texla_ctx *ctx, texla_info *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_ctx_info: out is NULL");
    texla__gl *g = &ctx->gl;
    *out = g->info;
    out->matmul_k = ctx->matmul_k;
    out->backend = (texla_backend)g->default_backend;
    out->nbackends = 2;
    for (int b = 1; b < TEXLA__NBACKENDS; b++) {
        texla_backend_info *bi = &out->backends[b - 1];
        memset(bi, 0, sizeof *bi);
        snprintf(bi->name, sizeof bi->name, "%s", texla__backends[b].name);
        bi->available = g->info.gl_major * 10 + g->info.gl_minor >= texla__backends[b].min_gl;
        bi->calib_ms = ctx->calib_ms[b];
        for (int p = 0; p < TEXLA__P_COUNT; p++)
            bi->programs += bi->available && texla__backend_of(g, (texla__prog_id)p) == b;
    }
    return TEXLA_OK;
}

texla_result texla_ctx_stats(texla_ctx *ctx, texla_stats *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_ctx_stats: out is NULL");
    *out = ctx->gl.stats;
    return TEXLA_OK;
}

texla_result texla_ctx_finish(texla_ctx *ctx) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla__gl_enter(&ctx->gl);
    texla_result r = texla__gl_current(&ctx->gl, "texla_ctx_finish");
    if (!r) texla__gl_finish(&ctx->gl);
    texla__gl_leave(&ctx->gl);
    return r;
}

texla_result texla_ctx_begin(texla_ctx *ctx) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    /* from inside a callback nothing is begun (its end is refused there too) */
    texla_result rc = texla__in_callback(&ctx->err, "texla_ctx_begin");
    if (rc) return rc;
    texla__gl_enter(&ctx->gl);
    /* refused, the batch is still begun (its end still needed): every call in it refuses */
    return texla__gl_current(&ctx->gl, "texla_ctx_begin");
}

/* texla_ctx_begin's checks under the caller's name, with nothing left begun; outside a batch the
 * context is found as a call finds it (host mode: the state saved and restored) */
texla_result texla_ctx_check(texla_ctx *ctx, const char *caller) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = caller ? caller : "texla_ctx_check";
    texla_result r = texla__in_callback(&ctx->err, fn);
    if (r) return r;
    texla__gl_enter(&ctx->gl);
    r = texla__gl_current(&ctx->gl, fn);
    texla__gl_leave(&ctx->gl);
    return r;
}

texla_result texla_ctx_end(texla_ctx *ctx) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla_result r = texla__in_callback(&ctx->err, "texla_ctx_end");
    if (r) return r;
    if (ctx->gl.depth <= 0)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "texla_ctx_end: no texla_ctx_begin is open on this context");
    texla__gl_leave(&ctx->gl);
    return TEXLA_OK;
}

/* the program named name (its glsl/ file without the extension and folder), or -1 */
static int program_named(const char *name) {
    for (int p = 0; p < TEXLA__P_COUNT; p++) {
        const char *f = texla__prog_file((texla__prog_id)p);
        const char *slash = strrchr(f, '/');
        if (slash) f = slash + 1;
        size_t n = strcspn(f, ".");
        if (strlen(name) == n && !strncmp(f, name, n)) return p;
    }
    return -1;
}

texla_result texla_ctx_set_backend(texla_ctx *ctx, const char *program, texla_backend backend) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_ctx_set_backend";
    texla_result r0 = texla__in_callback(&ctx->err, fn);
    if (r0) return r0;
    if ((unsigned)backend > TEXLA_BACKEND_COMPUTE)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: backend is %d", fn, (int)backend);
    texla__gl *g = &ctx->gl;
    if (!program) {
        if (backend == TEXLA_BACKEND_COMPUTE && !g->info.compute)
            return texla__fail(ctx, TEXLA_ERR_UNSUPPORTED,
                               "%s: the compute backend needs OpenGL 4.3; this context is %d.%d",
                               fn, g->info.gl_major, g->info.gl_minor);
        for (int p = 0; p < TEXLA__P_COUNT; p++)
            if (texla__prog_form((texla__prog_id)p) == TEXLA__FORM_OP) g->choice[p] = (uint8_t)backend;
        return TEXLA_OK;
    }
    int p = program_named(program);
    if (p < 0)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: no program \"%s\" (names are glsl/ files without the extension, "
                           "e.g. \"axpby\", \"matmul\", \"reduce\")", fn, program);
    if (backend && !(texla__prog_backends(g, (texla__prog_id)p) & (1u << backend)))
        return texla__fail(ctx, TEXLA_ERR_UNSUPPORTED, "%s: %s cannot run on the %s backend here",
                           fn, program, texla__backends[backend].name);
    if (texla__prog_form((texla__prog_id)p) == TEXLA__FORM_OP) g->choice[p] = (uint8_t)backend;
    return TEXLA_OK;
}

texla_result texla_ctx_get_backend(texla_ctx *ctx, const char *program, texla_backend *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    if (!out || !program)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_ctx_get_backend: %s is NULL",
                           out ? "program" : "out");
    int p = program_named(program);
    if (p < 0)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_ctx_get_backend: no program \"%s\"",
                           program);
    *out = (texla_backend)texla__backend_of(&ctx->gl, (texla__prog_id)p);
    return TEXLA_OK;
}

texla_result texla_ctx_set_matmul_k(texla_ctx *ctx, int k) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla_result r = texla__in_callback(&ctx->err, "texla_ctx_set_matmul_k");
    if (r) return r;
    if (k < 0)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "texla_ctx_set_matmul_k: k is %d; it must be >= 1, or 0 for the "
                           "default (%d)", k, TEXLA_MATMUL_K_DEFAULT);
    ctx->matmul_k = k ? k : TEXLA_MATMUL_K_DEFAULT;
    return TEXLA_OK;
}
