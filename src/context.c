/* context.c - contexts, errors, capability probe, info. */
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static _Thread_local char make_msg[TEXLA__MSG_LEN];

static const char *const result_names[] = {
    "TEXLA_OK",          "TEXLA_ERR_ARGUMENT", "TEXLA_ERR_HANDLE",      "TEXLA_ERR_SHAPE",
    "TEXLA_ERR_ALIAS",   "TEXLA_ERR_LIMIT",    "TEXLA_ERR_UNSUPPORTED", "TEXLA_ERR_CONTEXT",
    "TEXLA_ERR_SHADER",  "TEXLA_ERR_GL",       "TEXLA_ERR_MEMORY",      "TEXLA_ERR_IO",
    "TEXLA_ERR_FORMAT",  "TEXLA_ERR_NOT_READY",
};

const char *texla_result_name(texla_result r) {
    if ((unsigned)r < sizeof result_names / sizeof result_names[0]) return result_names[r];
    return "TEXLA_ERR_?";
}

static void report(const texla_ctx_desc *desc, char *buf, texla_result code, const char *fmt,
                   va_list ap) {
    vsnprintf(buf, TEXLA__MSG_LEN, fmt, ap);
    if (desc && desc->error_cb) desc->error_cb(code, buf, desc->error_user);
}

texla_result texla__fail(texla_ctx *ctx, texla_result code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    report(&ctx->desc, ctx->msg, code, fmt, ap);
    va_end(ap);
    return code;
}

texla_result texla__fail_make(const texla_ctx_desc *desc, texla_result code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    report(desc, make_msg, code, fmt, ap);
    va_end(ap);
    return code;
}

const char *texla_error_message(const texla_ctx *ctx) { return ctx ? ctx->msg : make_msg; }

static void copy_str(char *dst, size_t n, const GLubyte *s) {
    snprintf(dst, n, "%s", s ? (const char *)s : "");
}

/* Renders and blends known values into a 2x1 RGBA32F target and reads them back: the only
 * trustworthy answer to "are float targets renderable and blendable without clamping". */
static texla_result probe_float(texla_ctx *ctx) {
    texla__tex t;
    texla_result r = texla__tex_make(ctx, 2, 1, &t);
    if (r) return r;
    texla__pass p = {.prog = TEXLA__P_FILL, .dst = &t, .shape = {-1, 0, 0, 0},
                     .f0 = {-2.5f, 1.0e10f, 0.125f, 3.0e38f}};
    r = texla__run(ctx, &p);
    float got[8] = {0};
    if (!r) r = texla__tex_download(ctx, &t, got);
    const float want1[4] = {-2.5f, 1.0e10f, 0.125f, 3.0e38f};
    if (!r) {
        ctx->info.float_render = !memcmp(got, want1, sizeof want1);
        p.blend = TEXLA__BLEND_ADD;
        p.f0[0] = -1.0f;
        p.f0[1] = 1.0e10f;
        p.f0[2] = 0.25f;
        p.f0[3] = -3.0e38f;
        r = texla__run(ctx, &p);
        if (!r) r = texla__tex_download(ctx, &t, got);
    }
    const float want2[4] = {-3.5f, 2.0e10f, 0.375f, 0.0f};
    if (!r) ctx->info.float_blend = !memcmp(got, want2, sizeof want2);
    texla__tex_free(ctx, &t);
    if (r) return r;
    if (!ctx->info.float_render)
        return texla__fail(ctx, TEXLA_ERR_UNSUPPORTED,
                           "RGBA32F render targets clamp or lose values: wrote (-2.5, 1e10, "
                           "0.125, 3e38), read (%g, %g, %g, %g)",
                           got[0], got[1], got[2], got[3]);
    if (!ctx->info.float_blend)
        return texla__fail(ctx, TEXLA_ERR_UNSUPPORTED,
                           "additive blending into RGBA32F is not exact: expected (-3.5, 2e10, "
                           "0.375, 0), read (%g, %g, %g, %g)",
                           got[0], got[1], got[2], got[3]);
    return TEXLA_OK;
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Median-free but warm timing of a few copies of a 512x512 texture, one backend at a time. */
static texla_result time_copies(texla_ctx *ctx, int compute, double *ms) {
    texla__tex a, b;
    texla_result r = texla__pool_take(ctx, 512, 512, &a);
    if (!r) r = texla__pool_take(ctx, 512, 512, &b);
    ctx->use_compute = compute;
    texla__pass p = {.prog = TEXLA__P_COPY, .dst = &b, .src = {&a}};
    for (int i = 0; i < 3 && !r; i++) r = texla__run(ctx, &p); /* compile and warm up */
    glFinish();
    double t0 = now_ms();
    for (int i = 0; i < 8 && !r; i++) r = texla__run(ctx, &p);
    glFinish();
    *ms = (now_ms() - t0) / 8;
    texla__pool_give(ctx, &a);
    texla__pool_give(ctx, &b);
    return r;
}

/* The backend: as asked, or (AUTO) the faster of the two on a copy, measured here. */
static texla_result choose_backend(texla_ctx *ctx) {
    texla_backend want = ctx->desc.backend;
    if (want == TEXLA_BACKEND_COMPUTE && !ctx->info.compute)
        return texla__fail(ctx, TEXLA_ERR_UNSUPPORTED,
                           "the compute backend needs OpenGL 4.3; this context is %d.%d",
                           ctx->info.gl_major, ctx->info.gl_minor);
    ctx->use_compute = want == TEXLA_BACKEND_COMPUTE;
    if (want == TEXLA_BACKEND_AUTO && ctx->info.compute) {
        double fragment = 0, compute = 0;
        texla_result r = time_copies(ctx, 0, &fragment);
        if (!r) r = time_copies(ctx, 1, &compute);
        if (r) return r;
        ctx->info.calib_fragment_ms = (float)fragment;
        ctx->info.calib_compute_ms = (float)compute;
        ctx->use_compute = compute * 1.25 < fragment; /* clearly faster, or the classic path */
    }
    ctx->info.backend = ctx->use_compute ? TEXLA_BACKEND_COMPUTE : TEXLA_BACKEND_FRAGMENT;
    return TEXLA_OK;
}

/* KHR_debug messages of texla's own debug context: the last one joins the next GL error's
 * message (a host's context keeps its own callback: texla does not replace it). */
static void GLAD_API_PTR on_gl_debug(GLenum source, GLenum type, GLuint id, GLenum severity,
                                     GLsizei length, const GLchar *message, const void *user) {
    (void)source, (void)id, (void)length;
    if (severity == GL_DEBUG_SEVERITY_NOTIFICATION && type != GL_DEBUG_TYPE_ERROR) return;
    texla_ctx *ctx = (texla_ctx *)(uintptr_t)user;
    snprintf(ctx->gl_debug, sizeof ctx->gl_debug, "%s", message);
}

static texla_result init_gl(texla_ctx *ctx) {
    texla_getproc_fn gp = ctx->desc.host_getproc;
    int ver = gladLoadGL((GLADloadfunc)(gp ? gp : texla__egl_getproc()));
    if (!ver || !glGetString)
        return texla__fail(ctx, TEXLA_ERR_CONTEXT,
                           "could not load OpenGL through %s: is a GL context current on this "
                           "thread?", gp ? "the host's proc-address function" : "EGL");
    const GLubyte *vs = glGetString(GL_VERSION);
    if (!vs)
        return texla__fail(ctx, TEXLA_ERR_CONTEXT,
                           "glGetString(GL_VERSION) returned NULL: no GL context is current");
    ctx->info.gl_major = GLAD_VERSION_MAJOR(ver);
    ctx->info.gl_minor = GLAD_VERSION_MINOR(ver);
    if (ctx->info.gl_major * 10 + ctx->info.gl_minor < 33)
        return texla__fail(ctx, TEXLA_ERR_UNSUPPORTED,
                           "OpenGL %d.%d found (%s); texla needs OpenGL 3.3 core or later",
                           ctx->info.gl_major, ctx->info.gl_minor, (const char *)vs);
    copy_str(ctx->info.vendor, sizeof ctx->info.vendor, glGetString(GL_VENDOR));
    copy_str(ctx->info.renderer, sizeof ctx->info.renderer, glGetString(GL_RENDERER));
    copy_str(ctx->info.version, sizeof ctx->info.version, vs);
    copy_str(ctx->info.glsl_version, sizeof ctx->info.glsl_version,
             glGetString(GL_SHADING_LANGUAGE_VERSION));
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &ctx->info.max_texture_size);
    glGetIntegerv(GL_MAX_VIEWPORT_DIMS, ctx->info.max_viewport);
    ctx->info.compute = GLAD_GL_VERSION_4_3;
    if (ctx->desc.debug && !ctx->host && GLAD_GL_VERSION_4_3) {
        glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
        glDebugMessageCallback(on_gl_debug, ctx);
    }
    ctx->info.host = ctx->host;
    if (ctx->host) snprintf(ctx->info.platform, sizeof ctx->info.platform, "host context");
    return TEXLA_OK;
}

texla_result texla_ctx_make(const texla_ctx_desc *desc_in, texla_ctx **out) {
    texla_ctx_desc desc = {0};
    if (desc_in) desc = *desc_in;
    make_msg[0] = '\0';
    if (!out) return texla__fail_make(&desc, TEXLA_ERR_ARGUMENT, "texla_ctx_make: out is NULL");
    *out = NULL;
    if (desc.matmul_k < 0)
        return texla__fail_make(&desc, TEXLA_ERR_ARGUMENT,
                                "texla_ctx_make: matmul_k is %d; it must be >= 0 (0: default)",
                                desc.matmul_k);
    if ((unsigned)desc.backend > TEXLA_BACKEND_COMPUTE)
        return texla__fail_make(&desc, TEXLA_ERR_ARGUMENT,
                                "texla_ctx_make: backend is %d; it must be TEXLA_BACKEND_AUTO, "
                                "_FRAGMENT or _COMPUTE", (int)desc.backend);
    if (desc.egl_device < 0 || desc.gl_version_max < 0)
        return texla__fail_make(&desc, TEXLA_ERR_ARGUMENT,
                                "texla_ctx_make: egl_device (%d) and gl_version_max (%d) must be "
                                ">= 0", desc.egl_device, desc.gl_version_max);
    texla_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return texla__fail_make(&desc, TEXLA_ERR_MEMORY, "texla_ctx_make: out of memory");
#ifdef TEXLA_DEBUG
    desc.debug = 1; /* a debug build checks every pass */
#endif
    ctx->desc = desc;
    ctx->host = desc.host_getproc != NULL;
    ctx->matmul_k = desc.matmul_k ? desc.matmul_k : TEXLA_MATMUL_K_DEFAULT;
    ctx->info.matmul_k = ctx->matmul_k;
    texla_result r = TEXLA_OK;
    if (!ctx->host) r = texla__egl_make(ctx);
    if (!r) r = init_gl(ctx);
    if (!r) {
        texla__enter(ctx);
        glGenVertexArrays(1, &ctx->vao); /* core profile draws need one bound */
        r = probe_float(ctx);
        if (!r) r = choose_backend(ctx);
        texla__leave(ctx);
    }
    if (r) {
        snprintf(make_msg, sizeof make_msg, "%s", ctx->msg);
        texla_ctx_destroy(ctx);
        return r;
    }
    *out = ctx;
    return TEXLA_OK;
}

void texla_ctx_destroy(texla_ctx *ctx) {
    if (!ctx) return;
    if (glGetString) { /* GL was loaded: delete our objects */
        texla__enter(ctx);
        texla__objs_destroy(ctx);
        texla__pool_destroy(ctx);
        texla__progs_destroy(ctx);
        if (ctx->vao) glDeleteVertexArrays(1, &ctx->vao);
        ctx->vao = 0;
        texla__leave(ctx);
    }
    if (!ctx->host) texla__egl_destroy(ctx);
    free(ctx->objs);
    free(ctx->pool);
    free(ctx);
}

texla_result texla_ctx_info(texla_ctx *ctx, texla_info *out) {
    if (!ctx || !out) return ctx ? texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_ctx_info: out is NULL")
                                 : TEXLA_ERR_ARGUMENT;
    ctx->info.matmul_k = ctx->matmul_k;
    *out = ctx->info;
    return TEXLA_OK;
}

texla_result texla_ctx_stats(texla_ctx *ctx, texla_stats *out) {
    if (!ctx || !out) return ctx ? texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_ctx_stats: out is NULL")
                                 : TEXLA_ERR_ARGUMENT;
    *out = ctx->stats;
    return TEXLA_OK;
}

texla_result texla_ctx_finish(texla_ctx *ctx) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    glFinish();
    return TEXLA_OK;
}

texla_result texla_set_matmul_k(texla_ctx *ctx, int k) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    if (k < 0)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "texla_set_matmul_k: k is %d; it must be >= 1, or 0 for the default (%d)",
                           k, TEXLA_MATMUL_K_DEFAULT);
    ctx->matmul_k = k ? k : TEXLA_MATMUL_K_DEFAULT;
    return TEXLA_OK;
}
