/* device.c - the loaded GL: entry points, version, limits and the capabilities kernels may use,
 * the float render/blend probe, and the release of texla's GL objects. */
#include "gl/gl.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifndef GL_SUBGROUP_SIZE_KHR
#define GL_SUBGROUP_SIZE_KHR 0x9532
#define GL_SUBGROUP_SUPPORTED_STAGES_KHR 0x9533
#define GL_SUBGROUP_SUPPORTED_FEATURES_KHR 0x9534
#define GL_SUBGROUP_FEATURE_BASIC_BIT_KHR 0x00000001
#define GL_SUBGROUP_FEATURE_ARITHMETIC_BIT_KHR 0x00000004
#define GL_SUBGROUP_FEATURE_BALLOT_BIT_KHR 0x00000008
#define GL_SUBGROUP_FEATURE_SHUFFLE_BIT_KHR 0x00000010
#endif
#ifndef GL_SM_COUNT_NV
#define GL_SM_COUNT_NV 0x933B
#endif

static void copy_str(char *dst, size_t n, const GLubyte *s) {
    snprintf(dst, n, "%s", s ? (const char *)s : "");
}

static int has_extension(const char *name) {
    GLint n = 0;
    glGetIntegerv(GL_NUM_EXTENSIONS, &n);
    for (GLint i = 0; i < n; i++) {
        const GLubyte *e = glGetStringi(GL_EXTENSIONS, (GLuint)i);
        if (e && !strcmp((const char *)e, name)) return 1;
    }
    return 0;
}

/* KHR_debug messages of texla's own debug context: the last one joins the next GL error's
 * message (a host's context keeps its own callback: texla does not replace it). */
static void GLAD_API_PTR on_gl_debug(GLenum source, GLenum type, GLuint id, GLenum severity,
                                     GLsizei length, const GLchar *message, const void *user) {
    (void)source, (void)id, (void)length;
    if (severity == GL_DEBUG_SEVERITY_NOTIFICATION && type != GL_DEBUG_TYPE_ERROR) return;
    texla__gl *g = (texla__gl *)(uintptr_t)user;
    snprintf(g->gl_debug, sizeof g->gl_debug, "%s", message);
}

static void query_caps(texla__gl *g) {
    texla__caps *c = &g->caps;
    memset(c, 0, sizeof *c);
    c->compute = GLAD_GL_VERSION_4_3;
    c->glsl_version = GLAD_GL_VERSION_4_6 ? 460 : GLAD_GL_VERSION_4_5 ? 450
                      : GLAD_GL_VERSION_4_3 ? 430 : 330;
    const char *rn = g->info.renderer;
    c->software = strstr(rn, "llvmpipe") || strstr(rn, "softpipe") || strstr(rn, "SwiftShader");
    if (!c->compute) return;
    glGetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &c->shared_max);
    glGetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &c->wg_invocations);
    for (int i = 0; i < 3; i++)
        glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, (GLuint)i, &c->groups_max[i]);
    GLint64 sb = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &sb);
    c->ssbo_max = sb;
    if (has_extension("GL_KHR_shader_subgroup")) {
        /* -1: not written. A query the driver refuses (one that lists the extension but not
         * its queries) leaves its value as it was and raises an error, which is texla's to
         * clear; where every query answered, glGetError is not called: in host mode it would
         * take an error the host has not collected yet */
        GLint stages = -1, feats = -1, size = -1;
        glGetIntegerv(GL_SUBGROUP_SUPPORTED_STAGES_KHR, &stages);
        glGetIntegerv(GL_SUBGROUP_SUPPORTED_FEATURES_KHR, &feats);
        glGetIntegerv(GL_SUBGROUP_SIZE_KHR, &size);
        const GLint need = GL_SUBGROUP_FEATURE_BASIC_BIT_KHR |
                           GL_SUBGROUP_FEATURE_ARITHMETIC_BIT_KHR |
                           GL_SUBGROUP_FEATURE_BALLOT_BIT_KHR | GL_SUBGROUP_FEATURE_SHUFFLE_BIT_KHR;
        if (stages == -1 || feats == -1 || size == -1)
            (void)glGetError();
        else if ((stages & GL_COMPUTE_SHADER_BIT) && (feats & need) == need && size >= 4 &&
                 (size & (size - 1)) == 0) {
            c->subgroup = 1;
            c->subgroup_size = size;
        }
    }
    c->atomic_float = has_extension("GL_NV_shader_atomic_float");
    if (has_extension("GL_NV_shader_thread_group")) {
        GLint sm = -1; /* as above */
        glGetIntegerv(GL_SM_COUNT_NV, &sm);
        if (sm == -1) (void)glGetError();
        else c->sm_count = sm;
    }
    /* llvmpipe answers timer queries with CPU time of its own threads: not the GPU time of
     * a pass; there the wall clock around glFinish is the honest measure */
    c->timer = !c->software;
    /* programs compiled by the driver's threads while the host works (the sparse tuner's
     * kernels); not on software renderers, whose compiles share the host's few cores */
    c->parallel_compile = !c->software && (GLAD_GL_KHR_parallel_shader_compile ||
                                           GLAD_GL_ARB_parallel_shader_compile);
}

int texla__gl_loaded(void) { return glGetString != NULL; }

texla_result texla__gl_load(texla__gl *g, texla_getproc_fn gp) {
    int ver = gladLoadGL((GLADloadfunc)(gp ? gp : texla__egl_getproc()));
    if (!ver || !glGetString)
        return texla__glfail(g, TEXLA_ERR_CONTEXT,
                             "could not load OpenGL through %s: is a GL context current on this "
                             "thread?", gp ? "the host's proc-address function" : "EGL");
    const GLubyte *vs = glGetString(GL_VERSION);
    if (!vs)
        return texla__glfail(g, TEXLA_ERR_CONTEXT,
                             "glGetString(GL_VERSION) returned NULL: no GL context is current");
    texla_info *in = &g->info;
    in->gl_major = GLAD_VERSION_MAJOR(ver);
    in->gl_minor = GLAD_VERSION_MINOR(ver);
    if (in->gl_major * 10 + in->gl_minor < 33)
        return texla__glfail(g, TEXLA_ERR_UNSUPPORTED,
                             "OpenGL %d.%d found (%s); texla needs OpenGL 3.3 core or later",
                             in->gl_major, in->gl_minor, (const char *)vs);
    /* a host's compatibility-profile context: its legacy state (alpha test, fragment colour
     * clamping, stipples, separate back-face polygon modes) changes what texla's passes write,
     * and texla saves only the core profile's state: refused */
    if (g->host) {
        GLint mask = 0;
        glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &mask);
        if (mask & GL_CONTEXT_COMPATIBILITY_PROFILE_BIT)
            return texla__glfail(g, TEXLA_ERR_UNSUPPORTED,
                                 "the host's context is a compatibility profile (%s); texla needs "
                                 "a core profile context (its legacy state, such as the alpha "
                                 "test or fragment colour clamping, would change texla's "
                                 "results): ask for one, e.g. GLFW_OPENGL_CORE_PROFILE",
                                 (const char *)vs);
    }
    copy_str(in->vendor, sizeof in->vendor, glGetString(GL_VENDOR));
    copy_str(in->renderer, sizeof in->renderer, glGetString(GL_RENDERER));
    copy_str(in->version, sizeof in->version, vs);
    copy_str(in->glsl_version, sizeof in->glsl_version, glGetString(GL_SHADING_LANGUAGE_VERSION));
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &in->max_texture_size);
    glGetIntegerv(GL_MAX_VIEWPORT_DIMS, in->max_viewport);
    in->compute = GLAD_GL_VERSION_4_3;
    query_caps(g);
    in->subgroup_size = g->caps.subgroup_size;
    in->shared_memory = g->caps.shared_max;
    in->atomic_float = g->caps.atomic_float;
    if (g->debug && !g->host && GLAD_GL_VERSION_4_3) {
        glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
        glDebugMessageCallback(on_gl_debug, g);
    }
    in->host = g->host;
    if (g->host) snprintf(in->platform, sizeof in->platform, "host context");
    glGenVertexArrays(1, &g->vao); /* core profile draws need one bound */
    return TEXLA_OK;
}

/* Renders and blends known values into a 2x1 RGBA32F target and reads them back: the only
 * trustworthy answer to "are float targets renderable and blendable without clamping". Always
 * on the fragment backend: that is the one that renders. */
texla_result texla__gl_probe_float(texla__gl *g) {
    texla__tex t;
    texla_result r = texla__tex_make(g, 2, 1, &t);
    if (r) return r;
    uint8_t saved = g->choice[TEXLA__P_FILL];
    g->choice[TEXLA__P_FILL] = TEXLA_BACKEND_FRAGMENT;
    texla__pass p = {.prog = TEXLA__P_FILL, .dst = &t, .shape = {-1, 0, 0, 0},
                     .f0 = {-2.5f, 1.0e10f, 0.125f, 3.0e38f}};
    r = texla__run(g, &p);
    float got[8] = {0};
    if (!r) r = texla__tex_download(g, &t, got);
    const float want1[4] = {-2.5f, 1.0e10f, 0.125f, 3.0e38f};
    if (!r) {
        g->info.float_render = !memcmp(got, want1, sizeof want1);
        p.blend = TEXLA__BLEND_ADD;
        p.f0[0] = -1.0f;
        p.f0[1] = 1.0e10f;
        p.f0[2] = 0.25f;
        p.f0[3] = -3.0e38f;
        r = texla__run(g, &p);
        if (!r) r = texla__tex_download(g, &t, got);
    }
    g->choice[TEXLA__P_FILL] = saved;
    const float want2[4] = {-3.5f, 2.0e10f, 0.375f, 0.0f};
    if (!r) g->info.float_blend = !memcmp(got, want2, sizeof want2);
    texla__tex_free(g, &t);
    if (r) return r;
    if (!g->info.float_render)
        return texla__glfail(g, TEXLA_ERR_UNSUPPORTED,
                             "RGBA32F render targets clamp or lose values: wrote (-2.5, 1e10, "
                             "0.125, 3e38), read (%g, %g, %g, %g)",
                             got[0], got[1], got[2], got[3]);
    if (!g->info.float_blend)
        return texla__glfail(g, TEXLA_ERR_UNSUPPORTED,
                             "additive blending into RGBA32F is not exact: expected (-3.5, 2e10, "
                             "0.375, 0), read (%g, %g, %g, %g)",
                             got[0], got[1], got[2], got[3]);
    return TEXLA_OK;
}

void texla__gl_release(texla__gl *g) {
    texla__pool_destroy(g);
    texla__bufpool_destroy(g);
    texla__progs_destroy(g);
    if (g->vao && !g->lost) glDeleteVertexArrays(1, &g->vao);
    if (g->timer_q && !g->lost) glDeleteQueries(1, &g->timer_q);
    if (g->lap_q[0] && !g->lost) glDeleteQueries(2, g->lap_q);
    g->vao = 0;
    g->timer_q = 0;
    g->lap_q[0] = g->lap_q[1] = 0;
}
