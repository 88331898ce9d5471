/* test_state.c - host mode leaves the host's GL state exactly as it found it.
 *
 * The test is the host: it makes its own headless EGL context and loads GL with its own glad,
 * as an application would, then makes texla in host mode on that context. It sets sentinel
 * state, different from the defaults and from what texla's passes need, for everything
 * texla.h lists under "GL STATE TOUCHED" (and some state texla has no business touching),
 * snapshots it with glGet*, and after EVERY texla call takes a new snapshot and compares it
 * field by field with the one before, naming the field and the call. The same hostile state
 * (scissor, rasterizer discard, colour mask, polygon mode GL_LINE, culling of everything,
 * clip distances, bound pixel buffers, odd pixel-store values, blending) would break a naive
 * implementation, so results are checked against the CPU as well. Every entry point is called:
 * dense matrices, 2D vectors, GPU scalars (with the asynchronous read: pixel-pack buffer, fence,
 * mapping), banded and sparse matrices (their own vertex arrays and buffers: the host's vertex
 * array keeps its attribute layout; points drawn with the host's point size 3 and
 * GL_PROGRAM_POINT_SIZE on), the operator interface, CG, projected Jacobi, and the host-only
 * Matrix Market reader and writer (which must not touch GL at all). Then a few host situations
 * beyond the header's list: per-draw-buffer blend state and per-viewport-index viewports,
 * GL_PACK/UNPACK_SWAP_BYTES, and a GL error left pending by the host. Public texla API only. */
#include "optest.h"
#include "suites.h"

#include <glad/egl.h>
#include <glad/gl.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef EGL_PLATFORM_SURFACELESS_MESA
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#endif
#ifndef EGL_PLATFORM_DEVICE_EXT
#define EGL_PLATFORM_DEVICE_EXT 0x313F
#endif
#ifndef EGL_NO_CONFIG_KHR
#define EGL_NO_CONFIG_KHR ((EGLConfig)0)
#endif

/* ---- the host's own headless context ---- */

typedef struct host {
    EGLDisplay dpy;
    EGLContext ctx;
    EGLSurface surf;
    char how[160];
    int gl; /* 10 * major + minor */
} host;

static int has_ext(const char *list, const char *name) {
    size_t n = strlen(name);
    for (const char *p = list; p && (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    return 0;
}

/* Initialises dpy and makes a core 3.3+ context current on it (surfaceless, else a 1x1
 * pbuffer); 0 on failure, with why appended. */
static int host_try(host *h, EGLDisplay dpy, const char *how, char *why, size_t cap) {
    size_t len = strlen(why);
    EGLint maj = 0, min = 0;
    if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &maj, &min)) {
        snprintf(why + len, cap - len, "%s: no display / eglInitialize failed; ", how);
        return 0;
    }
    gladLoaderLoadEGL(dpy); /* display extensions */
    const char *dext = eglQueryString(dpy, EGL_EXTENSIONS);
    if (!eglBindAPI(EGL_OPENGL_API)) {
        snprintf(why + len, cap - len, "%s: no desktop OpenGL; ", how);
        return 0;
    }
    EGLConfig cfg = EGL_NO_CONFIG_KHR;
    EGLint n = 0;
    const EGLint pb[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                         EGL_NONE};
    int pbuffer_ok = eglChooseConfig(dpy, pb, &cfg, 1, &n) && n > 0;
    if (!pbuffer_ok) {
        const EGLint any[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
        if (!(eglChooseConfig(dpy, any, &cfg, 1, &n) && n > 0)) {
            if (!has_ext(dext, "EGL_KHR_no_config_context")) {
                snprintf(why + len, cap - len, "%s: no EGLConfig for OpenGL; ", how);
                return 0;
            }
            cfg = EGL_NO_CONFIG_KHR;
        }
    }
    static const int vers[] = {46, 45, 44, 43, 42, 41, 40, 33};
    EGLContext c = EGL_NO_CONTEXT;
    int ver = 0;
    for (size_t i = 0; i < sizeof vers / sizeof vers[0] && c == EGL_NO_CONTEXT; i++) {
        const EGLint ca[] = {EGL_CONTEXT_MAJOR_VERSION, vers[i] / 10, EGL_CONTEXT_MINOR_VERSION,
                             vers[i] % 10, EGL_CONTEXT_OPENGL_PROFILE_MASK,
                             EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
        c = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ca);
        ver = vers[i];
    }
    if (c == EGL_NO_CONTEXT) {
        snprintf(why + len, cap - len, "%s: no core context 4.6..3.3; ", how);
        return 0;
    }
    EGLSurface s = EGL_NO_SURFACE;
    int current = has_ext(dext, "EGL_KHR_surfaceless_context") &&
                  eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, c);
    if (!current && pbuffer_ok) {
        const EGLint pa[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
        s = eglCreatePbufferSurface(dpy, cfg, pa);
        current = s != EGL_NO_SURFACE && eglMakeCurrent(dpy, s, s, c);
    }
    if (!current) {
        if (s != EGL_NO_SURFACE) eglDestroySurface(dpy, s);
        eglDestroyContext(dpy, c);
        snprintf(why + len, cap - len, "%s: cannot make the context current; ", how);
        return 0;
    }
    h->dpy = dpy;
    h->ctx = c;
    h->surf = s;
    snprintf(h->how, sizeof h->how, "%s, core %d.%d requested%s", how, ver / 10, ver % 10,
             s == EGL_NO_SURFACE ? ", surfaceless" : ", 1x1 pbuffer");
    return 1;
}

/* EGL device platform first, then Mesa's surfaceless platform, then the default display. */
static int host_make(host *h, char *why, size_t cap) {
    memset(h, 0, sizeof *h);
    why[0] = '\0';
    if (!gladLoaderLoadEGL(EGL_NO_DISPLAY)) {
        snprintf(why, cap, "libEGL.so.1 could not be loaded");
        return 0;
    }
    const char *cext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (!cext) eglGetError();
    if (has_ext(cext, "EGL_EXT_platform_device") && eglQueryDevicesEXT &&
        eglGetPlatformDisplayEXT) {
        EGLDeviceEXT devs[16];
        EGLint ndev = 0;
        if (!eglQueryDevicesEXT(16, devs, &ndev)) ndev = 0;
        for (int i = 0; i < ndev; i++) {
            char how[48];
            snprintf(how, sizeof how, "EGL device %d", i);
            EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devs[i], NULL);
            if (host_try(h, d, how, why, cap)) return 1;
        }
    }
    if (has_ext(cext, "EGL_MESA_platform_surfaceless") && eglGetPlatformDisplayEXT) {
        EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA,
                                                (void *)EGL_DEFAULT_DISPLAY, NULL);
        if (host_try(h, d, "EGL surfaceless (Mesa)", why, cap)) return 1;
    }
    return host_try(h, eglGetDisplay(EGL_DEFAULT_DISPLAY), "EGL default display", why, cap);
}

/* The display is not terminated: EGL displays are shared per process, and texla or another
 * suite may hold contexts on the same one. */
/* a second GL 3.3 context on h's display, of the given profile (an EGL_CONTEXT_OPENGL_*_BIT),
 * not made current; EGL_NO_CONTEXT where the display cannot make one (no-config and
 * surfaceless contexts needed) */
static EGLContext extra_context(const host *h, EGLint profile) {
    const char *dext = eglQueryString(h->dpy, EGL_EXTENSIONS);
    const EGLint ca[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                         EGL_CONTEXT_OPENGL_PROFILE_MASK, profile, EGL_NONE};
    if (!has_ext(dext, "EGL_KHR_no_config_context") ||
        !has_ext(dext, "EGL_KHR_surfaceless_context"))
        return EGL_NO_CONTEXT;
    return eglCreateContext(h->dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, ca);
}

static void host_destroy(host *h) {
    eglMakeCurrent(h->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (h->surf != EGL_NO_SURFACE) eglDestroySurface(h->dpy, h->surf);
    eglDestroyContext(h->dpy, h->ctx);
    eglReleaseThread();
}

/* ---- GL errors, attributed to the call in flight through KHR_debug ---- */

static const char *cur_call = "setup";
static int dbg_on, dbg_errors;
static char dbg_first[600];

static void GLAD_API_PTR on_gl_debug(GLenum source, GLenum type, GLuint id, GLenum severity,
                                     GLsizei length, const GLchar *message, const void *user) {
    (void)source;
    (void)id;
    (void)severity;
    (void)length;
    (void)user;
    if (type != GL_DEBUG_TYPE_ERROR) return;
    if (dbg_errors++ == 0) snprintf(dbg_first, sizeof dbg_first, "%s", message);
}

/* ---- snapshots: every field by name ---- */

#define MAXF 320

typedef struct field {
    char name[72];
    double v;
} field;

typedef struct snap {
    int n;
    field f[MAXF];
} snap;

static int gl_ver; /* of the host context, 10 * major + minor */

static void put(snap *s, double v, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void put(snap *s, double v, const char *fmt, ...) {
    if (s->n >= MAXF) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->f[s->n].name, sizeof s->f[s->n].name, fmt, ap);
    va_end(ap);
    s->f[s->n].v = v;
    s->n++;
}

static void geti(snap *s, const char *name, GLenum pname, int count) {
    GLint v[4] = {0, 0, 0, 0};
    glGetIntegerv(pname, v);
    for (int i = 0; i < count; i++)
        if (count == 1) put(s, v[i], "%s", name);
        else put(s, v[i], "%s[%d]", name, i);
}

static void getf(snap *s, const char *name, GLenum pname, int count) {
    GLfloat v[4] = {0, 0, 0, 0};
    glGetFloatv(pname, v);
    for (int i = 0; i < count; i++)
        if (count == 1) put(s, v[i], "%s", name);
        else put(s, v[i], "%s[%d]", name, i);
}

#define GETI(s, pname, count) geti(s, #pname, pname, count)
#define GETF(s, pname, count) getf(s, #pname, pname, count)
#define ENABLED(s, cap) put(s, glIsEnabled(cap), "enable %s", #cap)

/* The listed state ("GL STATE TOUCHED" in texla.h), then state texla must not touch at all. */
static void take(snap *s) {
    s->n = 0;
    /* -- listed -- */
    GETI(s, GL_DRAW_FRAMEBUFFER_BINDING, 1);
    GETI(s, GL_READ_FRAMEBUFFER_BINDING, 1);
    GETI(s, GL_VIEWPORT, 4);
    GETI(s, GL_CURRENT_PROGRAM, 1);
    GLint active = 0;
    glGetIntegerv(GL_ACTIVE_TEXTURE, &active);
    put(s, active, "GL_ACTIVE_TEXTURE");
    for (int u = 0; u < 10; u++) { /* 0..7 listed; 8 and 9 must not be touched */
        glActiveTexture(GL_TEXTURE0 + (GLenum)u);
        GLint t = 0, smp = 0;
        glGetIntegerv(GL_TEXTURE_BINDING_2D, &t);
        glGetIntegerv(GL_SAMPLER_BINDING, &smp);
        put(s, t, "unit %d GL_TEXTURE_BINDING_2D", u);
        put(s, smp, "unit %d GL_SAMPLER_BINDING", u);
        /* parameters of the texture bound there (the host's: texla must not set them); the
         * same fields whatever is bound, -1 for none, so that snapshots always line up */
        static const GLenum tp[] = {GL_TEXTURE_MIN_FILTER, GL_TEXTURE_MAG_FILTER,
                                    GL_TEXTURE_WRAP_S, GL_TEXTURE_WRAP_T, GL_TEXTURE_MAX_LEVEL};
        static const char *const tpn[] = {"MIN_FILTER", "MAG_FILTER", "WRAP_S", "WRAP_T",
                                          "MAX_LEVEL"};
        for (int k = 0; k < 5; k++) {
            GLint v = -1;
            if (t) glGetTexParameteriv(GL_TEXTURE_2D, tp[k], &v);
            put(s, v, "unit %d bound texture's GL_TEXTURE_%s", u, tpn[k]);
        }
    }
    glActiveTexture((GLenum)active);
    GETI(s, GL_VERTEX_ARRAY_BINDING, 1);
    GETI(s, GL_ARRAY_BUFFER_BINDING, 1);
    GETI(s, GL_PIXEL_PACK_BUFFER_BINDING, 1);
    GETI(s, GL_PIXEL_UNPACK_BUFFER_BINDING, 1);
    GETI(s, GL_PACK_ALIGNMENT, 1);
    GETI(s, GL_PACK_ROW_LENGTH, 1);
    GETI(s, GL_PACK_SKIP_ROWS, 1);
    GETI(s, GL_PACK_SKIP_PIXELS, 1);
    GETI(s, GL_PACK_IMAGE_HEIGHT, 1);
    GETI(s, GL_PACK_SKIP_IMAGES, 1);
    GETI(s, GL_UNPACK_ALIGNMENT, 1);
    GETI(s, GL_UNPACK_ROW_LENGTH, 1);
    GETI(s, GL_UNPACK_SKIP_ROWS, 1);
    GETI(s, GL_UNPACK_SKIP_PIXELS, 1);
    GETI(s, GL_UNPACK_IMAGE_HEIGHT, 1);
    GETI(s, GL_UNPACK_SKIP_IMAGES, 1);
    GETI(s, GL_CLAMP_READ_COLOR, 1);
    put(s, glIsEnabledi(GL_BLEND, 0), "enable GL_BLEND (draw buffer 0)");
    GETI(s, GL_BLEND_SRC_RGB, 1);
    GETI(s, GL_BLEND_DST_RGB, 1);
    GETI(s, GL_BLEND_SRC_ALPHA, 1);
    GETI(s, GL_BLEND_DST_ALPHA, 1);
    GETI(s, GL_BLEND_EQUATION_RGB, 1);
    GETI(s, GL_BLEND_EQUATION_ALPHA, 1);
    GETF(s, GL_BLEND_COLOR, 4);
    for (GLuint b = 0; b < 2; b++) { /* buffer 0 listed, buffer 1 must not be touched */
        GLboolean m[4] = {0, 0, 0, 0};
        glGetBooleani_v(GL_COLOR_WRITEMASK, b, m);
        for (int i = 0; i < 4; i++) put(s, m[i], "GL_COLOR_WRITEMASK (draw buffer %u)[%d]", b, i);
    }
    GETI(s, GL_POLYGON_MODE, 2);
    if (gl_ver >= 45) {
        GETI(s, GL_CLIP_ORIGIN, 1);
        GETI(s, GL_CLIP_DEPTH_MODE, 1);
    }
    if (gl_ver >= 43) { /* storage buffer bindings 0..8 (texla's kernels use 0..7) + generic */
        GETI(s, GL_SHADER_STORAGE_BUFFER_BINDING, 1);
        for (GLuint i = 0; i < 9; i++) {
            GLint v = -1;
            GLint64 st = -1, sz = -1;
            glGetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, i, &v);
            glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_START, i, &st);
            glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_SIZE, i, &sz);
            put(s, v, "storage buffer binding %u", i);
            put(s, (double)st, "storage buffer binding %u start", i);
            put(s, (double)sz, "storage buffer binding %u size", i);
        }
    }
    { /* image units 0..4 (kernels bind 0..3 and must restore them; 4 is never touched) */
        static const GLenum iq[6] = {GL_IMAGE_BINDING_NAME,  GL_IMAGE_BINDING_LEVEL,
                                     GL_IMAGE_BINDING_LAYERED, GL_IMAGE_BINDING_LAYER,
                                     GL_IMAGE_BINDING_ACCESS, GL_IMAGE_BINDING_FORMAT};
        static const char *const iqn[6] = {"NAME", "LEVEL", "LAYERED", "LAYER", "ACCESS", "FORMAT"};
        for (GLuint u = 0; u < 5; u++)
            for (int k = 0; k < 6; k++) {
                GLint v = -1;
                glGetIntegeri_v(iq[k], u, &v);
                put(s, v, "image unit %u GL_IMAGE_BINDING_%s", u, iqn[k]);
            }
    }
    static const GLenum caps[] = {
        GL_DEPTH_TEST,     GL_STENCIL_TEST,        GL_SCISSOR_TEST,
        GL_CULL_FACE,      GL_RASTERIZER_DISCARD,  GL_FRAMEBUFFER_SRGB,
        GL_COLOR_LOGIC_OP, GL_SAMPLE_ALPHA_TO_COVERAGE, GL_SAMPLE_MASK,
        GL_PROGRAM_POINT_SIZE, GL_PRIMITIVE_RESTART};
    static const char *const capn[] = {
        "GL_DEPTH_TEST",     "GL_STENCIL_TEST",       "GL_SCISSOR_TEST",
        "GL_CULL_FACE",      "GL_RASTERIZER_DISCARD", "GL_FRAMEBUFFER_SRGB",
        "GL_COLOR_LOGIC_OP", "GL_SAMPLE_ALPHA_TO_COVERAGE", "GL_SAMPLE_MASK",
        "GL_PROGRAM_POINT_SIZE", "GL_PRIMITIVE_RESTART"};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++)
        put(s, glIsEnabled(caps[i]), "enable %s", capn[i]);
    for (int i = 0; i < 8; i++)
        put(s, glIsEnabled(GL_CLIP_DISTANCE0 + (GLenum)i), "enable GL_CLIP_DISTANCE%d", i);

    /* -- not listed: texla must leave these alone -- */
    GETI(s, GL_PACK_SWAP_BYTES, 1);
    GETI(s, GL_UNPACK_SWAP_BYTES, 1);
    GETI(s, GL_PACK_LSB_FIRST, 1);
    GETI(s, GL_UNPACK_LSB_FIRST, 1);
    GETI(s, GL_ELEMENT_ARRAY_BUFFER_BINDING, 1);
    GETI(s, GL_UNIFORM_BUFFER_BINDING, 1);
    GETI(s, GL_COPY_READ_BUFFER_BINDING, 1);
    GETI(s, GL_COPY_WRITE_BUFFER_BINDING, 1);
    GETI(s, GL_RENDERBUFFER_BINDING, 1);
    /* attributes 0..2 of the bound vertex array (the host's; texla's sparse matrices use
     * attributes 0..2 of their own) and the generic current values (context state) */
    for (GLuint a = 0; a < 3; a++) {
        static const GLenum ap[] = {GL_VERTEX_ATTRIB_ARRAY_ENABLED,
                                    GL_VERTEX_ATTRIB_ARRAY_BUFFER_BINDING,
                                    GL_VERTEX_ATTRIB_ARRAY_SIZE, GL_VERTEX_ATTRIB_ARRAY_STRIDE,
                                    GL_VERTEX_ATTRIB_ARRAY_TYPE,
                                    GL_VERTEX_ATTRIB_ARRAY_NORMALIZED,
                                    GL_VERTEX_ATTRIB_ARRAY_INTEGER,
                                    GL_VERTEX_ATTRIB_ARRAY_DIVISOR};
        static const char *const apn[] = {"ENABLED", "BUFFER_BINDING", "SIZE", "STRIDE", "TYPE",
                                          "NORMALIZED", "INTEGER", "DIVISOR"};
        for (int k = 0; k < 8; k++) {
            GLint va = 0;
            glGetVertexAttribiv(a, ap[k], &va);
            put(s, va, "vertex attrib %u GL_VERTEX_ATTRIB_ARRAY_%s", a, apn[k]);
        }
        void *ptr = NULL;
        glGetVertexAttribPointerv(a, GL_VERTEX_ATTRIB_ARRAY_POINTER, &ptr);
        put(s, (double)(uintptr_t)ptr, "vertex attrib %u GL_VERTEX_ATTRIB_ARRAY_POINTER", a);
        GLfloat cur[4] = {0, 0, 0, 0};
        glGetVertexAttribfv(a, GL_CURRENT_VERTEX_ATTRIB, cur);
        for (int i = 0; i < 4; i++)
            put(s, cur[i], "vertex attrib %u GL_CURRENT_VERTEX_ATTRIB[%d]", a, i);
    }
    /* the host's bound pixel and array buffers: not mapped, their size unchanged (-1: none) */
    static const GLenum bt[] = {GL_PIXEL_PACK_BUFFER, GL_PIXEL_UNPACK_BUFFER, GL_ARRAY_BUFFER};
    static const GLenum bb[] = {GL_PIXEL_PACK_BUFFER_BINDING, GL_PIXEL_UNPACK_BUFFER_BINDING,
                                GL_ARRAY_BUFFER_BINDING};
    static const char *const btn[] = {"GL_PIXEL_PACK_BUFFER", "GL_PIXEL_UNPACK_BUFFER",
                                      "GL_ARRAY_BUFFER"};
    for (int k = 0; k < 3; k++) {
        GLint bound = 0, mapped = -1, size = -1;
        glGetIntegerv(bb[k], &bound);
        if (bound) {
            glGetBufferParameteriv(bt[k], GL_BUFFER_MAPPED, &mapped);
            glGetBufferParameteriv(bt[k], GL_BUFFER_SIZE, &size);
        }
        put(s, mapped, "bound %s's GL_BUFFER_MAPPED", btn[k]);
        put(s, size, "bound %s's GL_BUFFER_SIZE", btn[k]);
    }
    GETI(s, GL_DRAW_BUFFER0, 1); /* of the host's bound draw framebuffer */
    GETI(s, GL_DRAW_BUFFER1, 1);
    GETI(s, GL_READ_BUFFER, 1);  /* of the host's bound read framebuffer */
    put(s, glIsEnabledi(GL_BLEND, 1), "enable GL_BLEND (draw buffer 1)");
    GETI(s, GL_SCISSOR_BOX, 4);
    GETF(s, GL_COLOR_CLEAR_VALUE, 4);
    GETF(s, GL_DEPTH_CLEAR_VALUE, 1);
    GETF(s, GL_DEPTH_RANGE, 2);
    GETI(s, GL_DEPTH_WRITEMASK, 1);
    GETI(s, GL_DEPTH_FUNC, 1);
    GETI(s, GL_STENCIL_FUNC, 1);
    GETI(s, GL_STENCIL_REF, 1);
    GETI(s, GL_STENCIL_VALUE_MASK, 1);
    GETI(s, GL_CULL_FACE_MODE, 1);
    GETI(s, GL_FRONT_FACE, 1);
    GETI(s, GL_LOGIC_OP_MODE, 1);
    GETI(s, GL_PRIMITIVE_RESTART_INDEX, 1);
    GETF(s, GL_POINT_SIZE, 1);
    GETF(s, GL_POINT_FADE_THRESHOLD_SIZE, 1);
    GETI(s, GL_POINT_SPRITE_COORD_ORIGIN, 1);
    GETI(s, GL_PROVOKING_VERTEX, 1);
    GETF(s, GL_POLYGON_OFFSET_FACTOR, 1);
    GETF(s, GL_POLYGON_OFFSET_UNITS, 1);
    GETF(s, GL_SAMPLE_COVERAGE_VALUE, 1);
    GLint sm = 0;
    glGetIntegeri_v(GL_SAMPLE_MASK_VALUE, 0, &sm);
    put(s, (double)(GLuint)sm, "GL_SAMPLE_MASK_VALUE[0]");
    ENABLED(s, GL_DITHER);
    ENABLED(s, GL_MULTISAMPLE);
    ENABLED(s, GL_POLYGON_OFFSET_FILL);
    ENABLED(s, GL_DEPTH_CLAMP);
    ENABLED(s, GL_SAMPLE_COVERAGE);
    ENABLED(s, GL_TEXTURE_CUBE_MAP_SEAMLESS);
    ENABLED(s, GL_LINE_SMOOTH);
    if (dbg_on) ENABLED(s, GL_DEBUG_OUTPUT_SYNCHRONOUS);
    /* per-draw-buffer blend state and per-index viewports (GL 4.0 / 4.1) */
    if (gl_ver >= 40) {
        static const GLenum bp[] = {GL_BLEND_SRC_RGB, GL_BLEND_DST_RGB, GL_BLEND_SRC_ALPHA,
                                    GL_BLEND_DST_ALPHA, GL_BLEND_EQUATION_RGB,
                                    GL_BLEND_EQUATION_ALPHA};
        static const char *const bpn[] = {"GL_BLEND_SRC_RGB", "GL_BLEND_DST_RGB",
                                          "GL_BLEND_SRC_ALPHA", "GL_BLEND_DST_ALPHA",
                                          "GL_BLEND_EQUATION_RGB", "GL_BLEND_EQUATION_ALPHA"};
        for (int k = 0; k < 6; k++) {
            GLint v = 0;
            glGetIntegeri_v(bp[k], 1, &v);
            put(s, v, "%s (draw buffer 1)", bpn[k]);
        }
    }
    if (gl_ver >= 41) {
        GLfloat v[4] = {0, 0, 0, 0};
        glGetFloati_v(GL_VIEWPORT, 1, v);
        for (int i = 0; i < 4; i++) put(s, v[i], "GL_VIEWPORT (index 1)[%d]", i);
    }
}

static void fmt_value(char *buf, size_t n, double v) {
    if (v == floor(v) && fabs(v) < 4294967296.0 && v >= 256)
        snprintf(buf, n, "%.0f (0x%x)", v, (unsigned)(long long)v);
    else
        snprintf(buf, n, "%.9g", v);
}

/* One failed check per field that differs, or one passed check when none does. */
static int compare(const snap *before, const snap *after, const char *when) {
    int diffs = 0;
    if (before->n != after->n) {
        CHECK(0, "%s: the snapshot has %d fields, it had %d", when, after->n, before->n);
        return 1;
    }
    for (int i = 0; i < before->n; i++) {
        double a = before->f[i].v, b = after->f[i].v;
        if (a == b || (a != a && b != b)) continue;
        char sa[48], sb[48];
        fmt_value(sa, sizeof sa, a);
        fmt_value(sb, sizeof sb, b);
        check_report(0, __FILE__, __LINE__, "host GL state unchanged", "%s: %s changed: was %s, "
                     "now %s", when, before->f[i].name, sa, sb);
        diffs++;
    }
    if (!diffs) check_report(1, __FILE__, __LINE__, "host GL state unchanged", "%s", when);
    return diffs;
}

/* ---- the sequence: state compared after every texla call ---- */

static snap st_prev, st_now, st_sentinel;
static int changed_calls;

static void after_call(const char *call) {
    char when[160];
    snprintf(when, sizeof when, "after %s", call);
    take(&st_now);
    if (compare(&st_prev, &st_now, when)) changed_calls++;
    st_prev = st_now;
    if (dbg_on) {
        CHECK(dbg_errors == 0, "%s raised %d GL error(s) in the host's context; first: %s", call,
              dbg_errors, dbg_first);
        dbg_errors = 0;
    }
}

/* STEP(ctx, "label", call): the call succeeds and leaves the state as it was. */
#define STEP(ctx, label, call)                                                                 \
    do {                                                                                       \
        cur_call = (label);                                                                    \
        texla_result r_ = (call);                                                              \
        CHECK(r_ == TEXLA_OK, "%s: %s: %s", (label), texla_result_name(r_),                    \
              texla_error_message(ctx));                                                       \
        after_call(label);                                                                     \
    } while (0)

/* ---- the host's objects and sentinel state ---- */

#define N_UNIT_TEX 10

typedef struct host_objs {
    GLuint unit_tex[N_UNIT_TEX], att_tex[3], fbo_draw, fbo_read, samplers[8], prog;
    GLuint vao, abo, ebo, pack_buf, unpack_buf, ubo, copy_r, copy_w, rbo, ssbo[2];
    unsigned char pattern[N_UNIT_TEX][4 * 4 * 4]; /* contents of unit_tex */
    unsigned char bufpat[3][256];                 /* contents of pack_buf, unpack_buf, abo */
} host_objs;

static GLuint compile_trivial(void) {
    static const char *vs = "#version 330 core\nvoid main() { gl_Position = vec4(0.0); }\n";
    static const char *fs = "#version 330 core\nout vec4 o;\nvoid main() { o = vec4(1.0); }\n";
    GLuint v = glCreateShader(GL_VERTEX_SHADER), f = glCreateShader(GL_FRAGMENT_SHADER);
    glShaderSource(v, 1, &vs, NULL);
    glShaderSource(f, 1, &fs, NULL);
    glCompileShader(v);
    glCompileShader(f);
    GLuint p = glCreateProgram();
    glAttachShader(p, v);
    glAttachShader(p, f);
    glLinkProgram(p);
    glDeleteShader(v);
    glDeleteShader(f);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    CHECK(ok, "the host's trivial program did not link");
    return p;
}

static void set_sentinel(host_objs *o) {
    /* textures with known contents (uploaded before the pixel-store state turns hostile) */
    glGenTextures(N_UNIT_TEX, o->unit_tex);
    for (int t = 0; t < N_UNIT_TEX; t++) {
        for (int i = 0; i < 64; i++) o->pattern[t][i] = (unsigned char)(t * 37 + i * 11 + 1);
        glBindTexture(GL_TEXTURE_2D, o->unit_tex[t]);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 4, 4, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                     o->pattern[t]);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_MIRRORED_REPEAT);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 3 + t);
    }
    glGenTextures(3, o->att_tex);
    for (int t = 0; t < 3; t++) {
        glBindTexture(GL_TEXTURE_2D, o->att_tex[t]);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 32, 32, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    }
    /* framebuffers: a draw one with attachments 0 and 1 and draw buffers (NONE, 1), a read
     * one reading attachment 2 */
    glGenFramebuffers(1, &o->fbo_draw);
    glGenFramebuffers(1, &o->fbo_read);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, o->fbo_draw);
    glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D,
                           o->att_tex[0], 0);
    glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT1, GL_TEXTURE_2D,
                           o->att_tex[1], 0);
    const GLenum bufs[2] = {GL_NONE, GL_COLOR_ATTACHMENT1};
    glDrawBuffers(2, bufs);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, o->fbo_read);
    glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT2, GL_TEXTURE_2D,
                           o->att_tex[2], 0);
    glReadBuffer(GL_COLOR_ATTACHMENT2);
    glViewport(3, 5, 17, 19);
    o->prog = compile_trivial();
    glUseProgram(o->prog);
    /* textures and samplers on units 0..9 (samplers that would make texelFetch of an RGBA32F
     * texture without mipmaps return zero), then unit 3 active */
    glGenSamplers(8, o->samplers);
    for (int u = 0; u < N_UNIT_TEX; u++) {
        glActiveTexture(GL_TEXTURE0 + (GLenum)u);
        glBindTexture(GL_TEXTURE_2D, o->unit_tex[u]);
        if (u < 8) {
            glSamplerParameteri(o->samplers[u], GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
            glSamplerParameteri(o->samplers[u], GL_TEXTURE_WRAP_S, GL_REPEAT);
            glBindSampler((GLuint)u, o->samplers[u]);
        }
    }
    glActiveTexture(GL_TEXTURE3);
    /* vertex array with an element buffer and attribute 0, an array buffer */
    glGenVertexArrays(1, &o->vao);
    glBindVertexArray(o->vao);
    GLuint b8[8];
    glGenBuffers(8, b8);
    o->abo = b8[0];
    o->ebo = b8[1];
    o->pack_buf = b8[2];
    o->unpack_buf = b8[3];
    o->ubo = b8[4];
    o->copy_r = b8[5];
    o->copy_w = b8[6];
    glBindBuffer(GL_ARRAY_BUFFER, o->abo);
    glBufferData(GL_ARRAY_BUFFER, 256, NULL, GL_STATIC_DRAW);
    /* attribute 0 enabled with an odd layout; 1 disabled but set up (integer); 2 enabled
     * (normalized bytes); generic value of 1 set: none of it texla's business */
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_TRUE, 20, (void *)32);
    glVertexAttribDivisor(0, 2);
    glEnableVertexAttribArray(0);
    glVertexAttribIPointer(1, 2, GL_SHORT, 12, (void *)8);
    glVertexAttribPointer(2, 2, GL_UNSIGNED_BYTE, GL_TRUE, 8, (void *)4);
    glEnableVertexAttribArray(2);
    glVertexAttrib4f(1, 0.5f, 1.5f, 2.5f, 3.5f);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, o->ebo);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, 64, NULL, GL_STATIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, b8[7]); /* a different one than attribute 0's */
    glDeleteBuffers(1, &o->abo);             /* attribute 0 keeps it alive */
    o->abo = b8[7];
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 256; i++) o->bufpat[k][i] = (unsigned char)(k * 91 + i * 7 + 5);
    glBufferData(GL_ARRAY_BUFFER, 256, o->bufpat[2], GL_STATIC_DRAW);
    /* pixel buffers bound: texla's uploads and downloads would go into them */
    glBindBuffer(GL_PIXEL_PACK_BUFFER, o->pack_buf);
    glBufferData(GL_PIXEL_PACK_BUFFER, 256, o->bufpat[0], GL_STREAM_READ);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, o->unpack_buf);
    glBufferData(GL_PIXEL_UNPACK_BUFFER, 256, o->bufpat[1], GL_STREAM_DRAW);
    glBindBuffer(GL_UNIFORM_BUFFER, o->ubo);
    glBindBuffer(GL_COPY_READ_BUFFER, o->copy_r);
    glBindBuffer(GL_COPY_WRITE_BUFFER, o->copy_w);
    glGenRenderbuffers(1, &o->rbo);
    glBindRenderbuffer(GL_RENDERBUFFER, o->rbo);
    /* pixel store */
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glPixelStorei(GL_PACK_ROW_LENGTH, 3);
    glPixelStorei(GL_PACK_SKIP_ROWS, 2);
    glPixelStorei(GL_PACK_SKIP_PIXELS, 1);
    glPixelStorei(GL_PACK_IMAGE_HEIGHT, 5);
    glPixelStorei(GL_PACK_SKIP_IMAGES, 1);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 6);
    glPixelStorei(GL_UNPACK_SKIP_ROWS, 3);
    glPixelStorei(GL_UNPACK_SKIP_PIXELS, 2);
    glPixelStorei(GL_UNPACK_IMAGE_HEIGHT, 9);
    glPixelStorei(GL_UNPACK_SKIP_IMAGES, 2);
    glClampColor(GL_CLAMP_READ_COLOR, GL_TRUE);
    /* blending: on for every draw buffer but 1, odd functions and equations */
    glEnable(GL_BLEND);
    glDisablei(GL_BLEND, 1);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE_MINUS_DST_ALPHA,
                        GL_DST_COLOR);
    glBlendEquationSeparate(GL_FUNC_REVERSE_SUBTRACT, GL_MIN);
    glBlendColor(0.1f, 0.2f, 0.3f, 0.4f);
    glColorMaski(0, GL_TRUE, GL_FALSE, GL_TRUE, GL_FALSE);
    glColorMaski(1, GL_FALSE, GL_TRUE, GL_TRUE, GL_FALSE);
    glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
    /* an upper-left clip origin turned the points of the sparse product's rows upside down */
    if (gl_ver >= 45) glClipControl(GL_UPPER_LEFT, GL_ZERO_TO_ONE);
    /* image units 0..4 hold the host's textures with assorted access and formats */
    glBindImageTexture(0, o->unit_tex[0], 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA8);
    if (gl_ver >= 42) {
        glBindImageTexture(1, o->unit_tex[1], 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA8);
        glBindImageTexture(2, o->unit_tex[2], 0, GL_FALSE, 0, GL_READ_WRITE, GL_R32UI);
        glBindImageTexture(3, o->unit_tex[0], 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA8);
        glBindImageTexture(4, o->unit_tex[1], 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA8);
    }
    /* storage buffers: whole-buffer and ranged bindings at 0..8, another generic binding */
    if (gl_ver >= 43) {
        GLint align = 256;
        glGetIntegerv(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, &align);
        glGenBuffers(2, o->ssbo);
        for (int i = 0; i < 2; i++) {
            glBindBuffer(GL_SHADER_STORAGE_BUFFER, o->ssbo[i]);
            glBufferData(GL_SHADER_STORAGE_BUFFER, 16 * align, NULL, GL_STATIC_DRAW);
        }
        for (GLuint i = 0; i < 9; i++) {
            if (i % 3 == 0) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, i, o->ssbo[i % 2]);
            else glBindBufferRange(GL_SHADER_STORAGE_BUFFER, i, o->ssbo[i % 2], (GLintptr)i * align, align);
        }
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, o->ssbo[1]);
    }
    /* every listed enable on, each with settings that would drop all fragments */
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_NEVER);
    glDepthMask(GL_FALSE);
    glEnable(GL_STENCIL_TEST);
    glStencilFunc(GL_NEVER, 3, 0x0f);
    glEnable(GL_SCISSOR_TEST);
    glScissor(1, 2, 3, 4);
    glEnable(GL_CULL_FACE);
    glCullFace(GL_FRONT_AND_BACK);
    glFrontFace(GL_CW);
    glEnable(GL_RASTERIZER_DISCARD);
    glEnable(GL_FRAMEBUFFER_SRGB);
    glEnable(GL_COLOR_LOGIC_OP);
    glLogicOp(GL_CLEAR);
    glEnable(GL_SAMPLE_ALPHA_TO_COVERAGE);
    glEnable(GL_SAMPLE_MASK);
    glSampleMaski(0, 0);
    glEnable(GL_PROGRAM_POINT_SIZE);
    glEnable(GL_PRIMITIVE_RESTART);
    glPrimitiveRestartIndex(7);
    for (int i = 0; i < 8; i++) glEnable(GL_CLIP_DISTANCE0 + (GLenum)i);
    /* unlisted state, away from its defaults */
    glClearColor(0.5f, 0.25f, 0.125f, 1.0f);
    glClearDepth(0.25);
    glDepthRange(0.125, 0.875);
    glPointSize(3.0f);
    glPointParameterf(GL_POINT_FADE_THRESHOLD_SIZE, 2.0f);
    glPointParameteri(GL_POINT_SPRITE_COORD_ORIGIN, GL_LOWER_LEFT);
    glProvokingVertex(GL_FIRST_VERTEX_CONVENTION);
    glPolygonOffset(1.5f, 2.5f);
    glEnable(GL_POLYGON_OFFSET_FILL);
    glEnable(GL_DEPTH_CLAMP);
    glDisable(GL_DITHER);
    glDisable(GL_MULTISAMPLE);
    glEnable(GL_SAMPLE_COVERAGE);
    glSampleCoverage(0.5f, GL_TRUE);
    glEnable(GL_TEXTURE_CUBE_MAP_SEAMLESS);
    glEnable(GL_LINE_SMOOTH);
}

/* After everything: the host's objects still exist and its textures hold their contents. */
static void check_host_objects(const host_objs *o) {
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glPixelStorei(GL_PACK_ROW_LENGTH, 0);
    glPixelStorei(GL_PACK_SKIP_ROWS, 0);
    glPixelStorei(GL_PACK_SKIP_PIXELS, 0);
    glPixelStorei(GL_PACK_IMAGE_HEIGHT, 0);
    glPixelStorei(GL_PACK_SKIP_IMAGES, 0);
    glPixelStorei(GL_PACK_SWAP_BYTES, GL_FALSE);
    glActiveTexture(GL_TEXTURE0);
    for (int t = 0; t < N_UNIT_TEX; t++) {
        CHECK(glIsTexture(o->unit_tex[t]), "the host's texture %u was deleted", o->unit_tex[t]);
        unsigned char got[64];
        memset(got, 0, sizeof got);
        glBindTexture(GL_TEXTURE_2D, o->unit_tex[t]);
        glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, got);
        CHECK(memcmp(got, o->pattern[t], sizeof got) == 0,
              "the contents of the host's texture %u (unit %d) changed", o->unit_tex[t], t);
    }
    CHECK(glIsFramebuffer(o->fbo_draw) && glIsFramebuffer(o->fbo_read),
          "the host's framebuffers were deleted");
    CHECK(glIsProgram(o->prog), "the host's program was deleted");
    CHECK(glIsVertexArray(o->vao), "the host's vertex array was deleted");
    CHECK(glIsBuffer(o->abo) && glIsBuffer(o->pack_buf) && glIsBuffer(o->unpack_buf),
          "the host's buffers were deleted");
    const GLuint bufs[3] = {o->pack_buf, o->unpack_buf, o->abo};
    static const char *const bufn[3] = {"pixel pack", "pixel unpack", "array"};
    for (int k = 0; k < 3; k++) {
        unsigned char got[256];
        memset(got, 0, sizeof got);
        glBindBuffer(GL_COPY_READ_BUFFER, bufs[k]);
        glGetBufferSubData(GL_COPY_READ_BUFFER, 0, sizeof got, got);
        CHECK(memcmp(got, o->bufpat[k], sizeof got) == 0,
              "the contents of the host's %s buffer %u changed", bufn[k], bufs[k]);
    }
    glBindBuffer(GL_COPY_READ_BUFFER, o->copy_r);
    for (int i = 0; i < 8; i++)
        CHECK(glIsSampler(o->samplers[i]), "the host's sampler %u was deleted", o->samplers[i]);
}

static void delete_host_objects(host_objs *o) {
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glUseProgram(0);
    glBindVertexArray(0);
    for (GLuint u = 0; u < 8; u++) glBindSampler(u, 0);
    glDeleteTextures(N_UNIT_TEX, o->unit_tex);
    glDeleteTextures(3, o->att_tex);
    glDeleteFramebuffers(1, &o->fbo_draw);
    glDeleteFramebuffers(1, &o->fbo_read);
    glDeleteSamplers(8, o->samplers);
    glDeleteProgram(o->prog);
    glDeleteVertexArrays(1, &o->vao);
    GLuint b[7] = {o->abo, o->ebo, o->pack_buf, o->unpack_buf, o->ubo, o->copy_r, o->copy_w};
    glDeleteBuffers(7, b);
    if (o->ssbo[0]) glDeleteBuffers(2, o->ssbo);
    glDeleteRenderbuffers(1, &o->rbo);
}

/* ---- results, against the CPU ---- */

static int read_m(texla_ctx *ctx, texla_mat m, float *out, const char *after) {
    char label[128];
    snprintf(label, sizeof label, "texla_mat_read (result of %s)", after);
    cur_call = label;
    texla_result r = texla_mat_read(ctx, m, out);
    CHECK(r == TEXLA_OK, "%s: %s: %s", label, texla_result_name(r), texla_error_message(ctx));
    after_call(label);
    return r == TEXLA_OK;
}

/* C = op(A) * op(B) in float64 with the bound 2 * K * u * (|A||B|)_ij */
static void product_ref(const float *a, const float *b, int n, int k, int m, int ta, int tb,
                        double *ref, double *bound) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            double s = 0, sa = 0;
            for (int p = 0; p < k; p++) {
                double x = ta ? a[p * n + i] : a[i * k + p];
                double y = tb ? b[j * k + p] : b[p * m + j];
                s += x * y;
                sa += fabs(x * y);
            }
            ref[i * m + j] = s;
            bound[i * m + j] = 2.0 * k * CHECK_U * sa + 1e-30;
        }
}

/* ---- the rest of the API: 2D vectors, GPU scalars, banded and sparse matrices, solvers,
 * Matrix Market files; the same rule (state compared after every call), light result checks
 * (the vec, banded, solvers and mm suites check the numerics) ---- */

#define VMAX 128

/* got[0..n) is exactly want */
static void arr_exact(const float *got, const float *want, int n, const char *op) {
    int bad = 0, first = -1;
    for (int i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof(float)) != 0) {
            if (first < 0) first = i;
            bad++;
        }
    CHECK(bad == 0, "%s in host mode under the sentinel state: %d of %d elements wrong; first: "
          "element %d is %.9g, expected %.9g", op, bad, n, first, first >= 0 ? got[first] : 0.0,
          first >= 0 ? want[first] : 0.0);
}

/* got[0..n) is within bound[i] of ref[i] */
static void arr_near(const float *got, const double *ref, const double *bound, int n,
                     const char *op) {
    int bad = 0, first = -1;
    for (int i = 0; i < n; i++)
        if (!(fabs((double)got[i] - ref[i]) <= bound[i])) {
            if (first < 0) first = i;
            bad++;
        }
    CHECK(bad == 0, "%s in host mode under the sentinel state: %d of %d elements off; first: "
          "element %d is %.9g, expected %.9g +- %.3g", op, bad, n, first,
          first >= 0 ? got[first] : 0.0, first >= 0 ? ref[first] : 0.0,
          first >= 0 ? bound[first] : 0.0);
}

/* exactly the float32 result */
static void expect_exact(texla_ctx *ctx, texla_mat m, const float *want, int n, const char *op) {
    float got[64];
    if (read_m(ctx, m, got, op)) arr_exact(got, want, n, op);
}

/* within tol of a float64 reference, elementwise relative to bound[i] */
static void expect_near(texla_ctx *ctx, texla_mat m, const double *ref, const double *bound,
                        int n, const char *op) {
    float got[64];
    if (read_m(ctx, m, got, op)) arr_near(got, ref, bound, n, op);
}

static int read_v(texla_ctx *ctx, texla_vec v, float *out, const char *after) {
    char label[128];
    snprintf(label, sizeof label, "texla_vec_read (result of %s)", after);
    cur_call = label;
    texla_result r = texla_vec_read(ctx, v, out);
    CHECK(r == TEXLA_OK, "%s: %s: %s", label, texla_result_name(r), texla_error_message(ctx));
    after_call(label);
    return r == TEXLA_OK;
}

static void expect_v_exact(texla_ctx *ctx, texla_vec v, const float *want, int n,
                           const char *op) {
    float got[VMAX];
    if (read_v(ctx, v, got, op)) arr_exact(got, want, n, op);
}

static void expect_v_near(texla_ctx *ctx, texla_vec v, const double *ref, const double *bound,
                          int n, const char *op) {
    float got[VMAX];
    if (read_v(ctx, v, got, op)) arr_near(got, ref, bound, n, op);
}

/* the blocking read of a scalar, within bound of ref */
static void expect_s_near(texla_ctx *ctx, texla_scalar s, double ref, double bound,
                          const char *op) {
    char label[128];
    snprintf(label, sizeof label, "texla_scalar_read (result of %s)", op);
    cur_call = label;
    float got = NAN;
    texla_result r = texla_scalar_read(ctx, s, &got);
    CHECK(r == TEXLA_OK, "%s: %s: %s", label, texla_result_name(r), texla_error_message(ctx));
    after_call(label);
    if (r == TEXLA_OK)
        CHECK(fabs((double)got - ref) <= bound, "%s in host mode under the sentinel state: "
              "%.9g, expected %.9g +- %.3g", op, (double)got, ref, bound);
}

/* polls an asynchronous scalar read until it is ready (state compared after every poll) */
static void poll_until(texla_ctx *ctx, texla_scalar s, float want, const char *what) {
    char label[128];
    snprintf(label, sizeof label, "texla_scalar_read_poll (%s)", what);
    float got = NAN;
    int polls = 0, ready = 0, not_ready = 0;
    texla_result r = TEXLA_OK;
    for (; polls < 2000 && !ready; polls++) {
        cur_call = label;
        r = texla_scalar_read_poll(ctx, s, &got);
        after_call(label);
        if (r == TEXLA_OK) {
            ready = 1;
        } else if (r == TEXLA_ERR_NOT_READY) {
            not_ready++;
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        } else {
            break;
        }
    }
    CHECK(ready, "%s: %s after %d polls (%d not ready): %s", label, texla_result_name(r), polls,
          not_ready, texla_error_message(ctx));
    if (ready)
        CHECK(memcmp(&got, &want, sizeof got) == 0, "%s in host mode under the sentinel state: "
              "%.9g, expected %.9g (after %d polls)", label, (double)got, (double)want, polls);
}

/* element k of a 2D vector: cell (k mod nx, k div nx); its index in the raw texture */
static int vec_raw_index(int k, int nx, int gx) {
    int cy = k / nx, cx = k % nx;
    return ((cy / 2) * (gx / 2) + cx / 2) * 4 + (cx & 1) + 2 * (cy & 1);
}

#define NV 37 /* a plain vector: 37 elements, 11 padding lanes */

static void run_vectors(texla_ctx *ctx) {
    float VA[NV], VB[NV], VC[NV], want[NV], got[VMAX];
    double ref[VMAX], bnd[VMAX];
    check_fill(VA, NV);
    check_fill(VB, NV);
    check_fill(VC, NV);
    texla_vec va = {0}, vb = {0}, vd = {0}, vl = {0}, vg = {0};
    STEP(ctx, "texla_vec_make (data)", texla_vec_make(ctx, NV, VA, &va));
    STEP(ctx, "texla_vec_make (data)", texla_vec_make(ctx, NV, VB, &vb));
    STEP(ctx, "texla_vec_make (zeros)", texla_vec_make(ctx, NV, NULL, &vd));
    for (int i = 0; i < NV; i++) want[i] = 0.0f;
    expect_v_exact(ctx, vd, want, NV, "texla_vec_make (zeros)");
    STEP(ctx, "texla_vec_make_like", texla_vec_make_like(ctx, va, &vl));
    expect_v_exact(ctx, vl, want, NV, "texla_vec_make_like");
    memset(got, 0, sizeof got);
    STEP(ctx, "texla_vec_read", texla_vec_read(ctx, va, got));
    arr_exact(got, VA, NV, "texla_vec_read (of texla_vec_make's data)");
    STEP(ctx, "texla_vec_write", texla_vec_write(ctx, VC, vl));
    expect_v_exact(ctx, vl, VC, NV, "texla_vec_write");

    /* a 5 x 3 grid vector: odd nx and ny, so the grid has a padding column and row */
    float G[15];
    check_fill(G, 15);
    STEP(ctx, "texla_vec_make_grid", texla_vec_make_grid(ctx, 5, 3, G, &vg));
    texla_vec_info vi;
    memset(&vi, 0, sizeof vi);
    STEP(ctx, "texla_vec_info_get", texla_vec_info_get(ctx, vg, &vi));
    CHECK(vi.n == 15 && vi.nx == 5 && vi.ny == 3 && vi.gx == 6 && vi.gy == 4 &&
          vi.tex_width == 3 && vi.tex_height == 2 && vi.texture != 0,
          "texla_vec_info_get (5 x 3 grid): n %d, nx %d, ny %d, gx %d, gy %d, texture %d x %d, "
          "name %u", vi.n, vi.nx, vi.ny, vi.gx, vi.gy, vi.tex_width, vi.tex_height, vi.texture);
    float raw[24];
    memset(raw, 0xff, sizeof raw);
    STEP(ctx, "texla_vec_read_raw", texla_vec_read_raw(ctx, vg, raw));
    float rawwant[24];
    memset(rawwant, 0, sizeof rawwant);
    for (int k = 0; k < 15; k++) rawwant[vec_raw_index(k, 5, 6)] = G[k];
    arr_exact(raw, rawwant, 24, "texla_vec_read_raw (5 x 3 grid, padding lanes 0)");

    /* scalars and coefficients */
    texla_scalar s1 = {0}, s2 = {0}, s3 = {0}, sz = {0}, sr = {0}, spend = {0};
    STEP(ctx, "texla_scalar_make", texla_scalar_make(ctx, 0.75f, &s1));
    expect_s_near(ctx, s1, 0.75, 0.0, "texla_scalar_make");

    STEP(ctx, "texla_vec_fill (host coefficient)", texla_vec_fill(ctx, texla_host(1.25f), vd));
    for (int i = 0; i < NV; i++) want[i] = 1.25f;
    expect_v_exact(ctx, vd, want, NV, "texla_vec_fill (host coefficient)");
    STEP(ctx, "texla_vec_fill (GPU coefficient)", texla_vec_fill(ctx, texla_gpu(2.0f, s1), vd));
    for (int i = 0; i < NV; i++) want[i] = 1.5f;
    expect_v_exact(ctx, vd, want, NV, "texla_vec_fill (GPU coefficient 2 * 0.75)");
    /* the padding lanes stayed 0 under the GPU coefficient */
    float vraw[VMAX];
    memset(vraw, 0xff, sizeof vraw);
    texla_vec_info vdi;
    memset(&vdi, 0, sizeof vdi);
    STEP(ctx, "texla_vec_info_get", texla_vec_info_get(ctx, vd, &vdi));
    int lanes = vdi.tex_width * vdi.tex_height * 4;
    CHECK(vdi.n == NV && vdi.nx == vdi.gx && lanes >= NV && lanes <= VMAX,
          "texla_vec_info_get (plain vector of %d): n %d, nx %d, gx %d, %d lanes", NV, vdi.n,
          vdi.nx, vdi.gx, lanes);
    if (lanes >= NV && lanes <= VMAX) {
        STEP(ctx, "texla_vec_read_raw", texla_vec_read_raw(ctx, vd, vraw));
        float rw[VMAX];
        memset(rw, 0, sizeof rw);
        for (int k = 0; k < NV; k++) rw[vec_raw_index(k, vdi.nx, vdi.gx)] = 1.5f;
        arr_exact(vraw, rw, lanes, "texla_vec_fill (GPU coefficient), raw with padding");
    }

    STEP(ctx, "texla_vec_copy", texla_vec_copy(ctx, va, vd));
    expect_v_exact(ctx, vd, VA, NV, "texla_vec_copy");
    STEP(ctx, "texla_vec_add", texla_vec_add(ctx, va, vb, vd));
    for (int i = 0; i < NV; i++) want[i] = VA[i] + VB[i];
    expect_v_exact(ctx, vd, want, NV, "texla_vec_add");
    STEP(ctx, "texla_vec_sub", texla_vec_sub(ctx, va, vb, vd));
    for (int i = 0; i < NV; i++) want[i] = VA[i] - VB[i];
    expect_v_exact(ctx, vd, want, NV, "texla_vec_sub");
    STEP(ctx, "texla_vec_mul", texla_vec_mul(ctx, va, vb, vd));
    for (int i = 0; i < NV; i++) want[i] = VA[i] * VB[i];
    expect_v_exact(ctx, vd, want, NV, "texla_vec_mul");
    STEP(ctx, "texla_vec_scale (host coefficient)",
         texla_vec_scale(ctx, va, texla_host(0.75f), vd));
    for (int i = 0; i < NV; i++) want[i] = 0.75f * VA[i];
    expect_v_exact(ctx, vd, want, NV, "texla_vec_scale (host coefficient)");
    STEP(ctx, "texla_vec_scale (GPU coefficient)",
         texla_vec_scale(ctx, va, texla_gpu(1.0f, s1), vd));
    expect_v_exact(ctx, vd, want, NV, "texla_vec_scale (GPU coefficient 1 * 0.75)");
    /* a + s*b may be contracted to an FMA: a few ulps */
    STEP(ctx, "texla_vec_axpy (GPU coefficient)",
         texla_vec_axpy(ctx, va, texla_gpu(1.0f, s1), vb, vd));
    for (int i = 0; i < NV; i++) {
        ref[i] = (double)VA[i] + 0.75 * VB[i];
        bnd[i] = 4 * CHECK_U * (fabs(VA[i]) + fabs(0.75 * VB[i])) + 1e-30;
    }
    expect_v_near(ctx, vd, ref, bnd, NV, "texla_vec_axpy (GPU coefficient)");
    /* dst += s*b by additive blending, under the host's reverse-subtract/min blending */
    STEP(ctx, "texla_vec_copy", texla_vec_copy(ctx, va, vd));
    STEP(ctx, "texla_vec_acc (GPU coefficient, blended)",
         texla_vec_acc(ctx, texla_gpu(-1.0f, s1), vb, vd));
    for (int i = 0; i < NV; i++) want[i] = VA[i] + -0.75f * VB[i];
    expect_v_exact(ctx, vd, want, NV, "texla_vec_acc (GPU coefficient -1 * 0.75, blended)");
    STEP(ctx, "texla_vec_acc (host coefficient, blended)",
         texla_vec_acc(ctx, texla_host(2.0f), vb, vd));
    for (int i = 0; i < NV; i++) want[i] = want[i] + 2.0f * VB[i];
    expect_v_exact(ctx, vd, want, NV, "texla_vec_acc (host coefficient, blended)");
    STEP(ctx, "texla_vec_clamp_min", texla_vec_clamp_min(ctx, va, 0.125f, vd));
    for (int i = 0; i < NV; i++) want[i] = VA[i] > 0.125f ? VA[i] : 0.125f;
    expect_v_exact(ctx, vd, want, NV, "texla_vec_clamp_min");
    STEP(ctx, "texla_vec_clamp", texla_vec_clamp(ctx, va, -0.25f, 0.5f, vd));
    for (int i = 0; i < NV; i++) want[i] = VA[i] < -0.25f ? -0.25f : VA[i] > 0.5f ? 0.5f : VA[i];
    expect_v_exact(ctx, vd, want, NV, "texla_vec_clamp");

    /* reductions into a GPU scalar, each read back */
    STEP(ctx, "texla_scalar_make", texla_scalar_make(ctx, 0.0f, &sr));
    double sum = 0, asum = 0, dot = 0, adot = 0, nrm = 0, mx = -INFINITY, mn = INFINITY, ma = 0;
    for (int i = 0; i < NV; i++) {
        sum += VA[i];
        asum += fabs(VA[i]);
        dot += (double)VA[i] * VB[i];
        adot += fabs((double)VA[i] * VB[i]);
        nrm += (double)VA[i] * VA[i];
        mx = fmax(mx, VA[i]);
        mn = fmin(mn, VA[i]);
        ma = fmax(ma, fabs(VA[i]));
    }
    STEP(ctx, "texla_vec_sum", texla_vec_sum(ctx, va, sr));
    expect_s_near(ctx, sr, sum, 2 * NV * CHECK_U * asum + 1e-30, "texla_vec_sum");
    STEP(ctx, "texla_vec_dot", texla_vec_dot(ctx, va, vb, sr));
    expect_s_near(ctx, sr, dot, 2 * NV * CHECK_U * adot + 1e-30, "texla_vec_dot");
    STEP(ctx, "texla_vec_sqnorm", texla_vec_sqnorm(ctx, va, sr));
    expect_s_near(ctx, sr, nrm, 2 * NV * CHECK_U * nrm + 1e-30, "texla_vec_sqnorm");
    STEP(ctx, "texla_vec_maxval", texla_vec_maxval(ctx, va, sr));
    expect_s_near(ctx, sr, mx, 0.0, "texla_vec_maxval");
    STEP(ctx, "texla_vec_minval", texla_vec_minval(ctx, va, sr));
    expect_s_near(ctx, sr, mn, 0.0, "texla_vec_minval");
    STEP(ctx, "texla_vec_maxabs", texla_vec_maxabs(ctx, va, sr));
    expect_s_near(ctx, sr, ma, 0.0, "texla_vec_maxabs");

    /* conversions and the dense product */
    texla_mat mcol = {0}, mv = {0}, ma6 = {0};
    STEP(ctx, "texla_mat_make (n x 1)", texla_mat_make(ctx, NV, 1, VB, &mcol));
    STEP(ctx, "texla_vec_from_mat", texla_vec_from_mat(ctx, mcol, vd));
    expect_v_exact(ctx, vd, VB, NV, "texla_vec_from_mat");
    STEP(ctx, "texla_mat_make (n x 1, zeros)", texla_mat_make(ctx, NV, 1, NULL, &mv));
    STEP(ctx, "texla_mat_from_vec", texla_mat_from_vec(ctx, va, mv));
    float mgot[NV];
    if (read_m(ctx, mv, mgot, "texla_mat_from_vec")) arr_exact(mgot, VA, NV, "texla_mat_from_vec");
    float A6[6 * NV];
    check_fill(A6, 6 * NV);
    texla_vec y6 = {0};
    STEP(ctx, "texla_mat_make (6 x 37)", texla_mat_make(ctx, 6, NV, A6, &ma6));
    STEP(ctx, "texla_vec_make (6, zeros)", texla_vec_make(ctx, 6, NULL, &y6));
    STEP(ctx, "texla_mat_matvec", texla_mat_matvec(ctx, ma6, va, y6));
    product_ref(A6, VA, 6, NV, 1, 0, 0, ref, bnd);
    expect_v_near(ctx, y6, ref, bnd, 6, "texla_mat_matvec");

    /* scalar arithmetic */
    STEP(ctx, "texla_scalar_make", texla_scalar_make(ctx, 1.0f, &s2));
    STEP(ctx, "texla_scalar_make", texla_scalar_make(ctx, 0.0f, &s3));
    STEP(ctx, "texla_scalar_make", texla_scalar_make(ctx, 0.0f, &sz));
    STEP(ctx, "texla_scalar_write", texla_scalar_write(ctx, 3.0f, s2));
    expect_s_near(ctx, s2, 3.0, 0.0, "texla_scalar_write");
    STEP(ctx, "texla_scalar_div", texla_scalar_div(ctx, s2, s1, s3));
    expect_s_near(ctx, s3, 4.0, 4 * CHECK_U * 4.0, "texla_scalar_div (3 / 0.75)");
    STEP(ctx, "texla_scalar_div_or_zero", texla_scalar_div_or_zero(ctx, s2, s1, s3));
    expect_s_near(ctx, s3, 4.0, 4 * CHECK_U * 4.0, "texla_scalar_div_or_zero (3 / 0.75)");
    STEP(ctx, "texla_scalar_div_or_zero (by 0)", texla_scalar_div_or_zero(ctx, s2, sz, s3));
    expect_s_near(ctx, s3, 0.0, 0.0, "texla_scalar_div_or_zero (3 / 0)");
    STEP(ctx, "texla_scalar_mul", texla_scalar_mul(ctx, s2, s1, s3));
    expect_s_near(ctx, s3, 2.25, 0.0, "texla_scalar_mul (3 * 0.75)");
    STEP(ctx, "texla_scalar_sub", texla_scalar_sub(ctx, s2, s1, s3));
    expect_s_near(ctx, s3, 2.25, 0.0, "texla_scalar_sub (3 - 0.75)");
    STEP(ctx, "texla_scalar_neg", texla_scalar_neg(ctx, s2, s3));
    expect_s_near(ctx, s3, -3.0, 0.0, "texla_scalar_neg (-3)");

    /* the asynchronous read: a pixel-pack buffer, a fence and a mapping, all in the host's
     * context, with the host's own pack buffer bound */
    STEP(ctx, "texla_scalar_read_start", texla_scalar_read_start(ctx, s2));
    poll_until(ctx, s2, 3.0f, "of 3");
    STEP(ctx, "texla_scalar_read_start", texla_scalar_read_start(ctx, s3));
    STEP(ctx, "texla_scalar_write (while a read is pending)",
         texla_scalar_write(ctx, 5.0f, s3));
    STEP(ctx, "texla_scalar_read_start (replacing a pending one)",
         texla_scalar_read_start(ctx, s3));
    poll_until(ctx, s3, 5.0f, "of 5, the replacing read");
    STEP(ctx, "texla_scalar_make", texla_scalar_make(ctx, 7.0f, &spend));
    STEP(ctx, "texla_scalar_read_start (left pending)", texla_scalar_read_start(ctx, spend));
    cur_call = "texla_scalar_destroy (with a read pending)";
    texla_scalar_destroy(ctx, spend);
    after_call("texla_scalar_destroy (with a read pending)");

    /* a Gaussian splat, drawn over its bounding rectangle */
    texla_vec g8 = {0};
    STEP(ctx, "texla_vec_make_grid (8 x 8, zeros)", texla_vec_make_grid(ctx, 8, 8, NULL, &g8));
    STEP(ctx, "texla_vec_splat", texla_vec_splat(ctx, 1.0f, 1.0f, 0.5f, 0.5f, g8));
    float sg[64];
    if (read_v(ctx, g8, sg, "texla_vec_splat")) {
        double r11 = 0.5, r21 = 0.5 * exp(-4.0);
        CHECK(fabs(sg[1 * 8 + 1] - r11) <= 1e-6 && fabs(sg[1 * 8 + 2] - r21) <= 1e-6 * r21 + 1e-7 &&
              sg[7 * 8 + 7] == 0.0f, "texla_vec_splat in host mode under the sentinel state: "
              "cell (1,1) %.9g (expected %.9g), (2,1) %.9g (expected %.9g), (7,7) %.9g "
              "(expected 0)", (double)sg[9], r11, (double)sg[10], r21, (double)sg[63]);
    }

    texla_vec vs[] = {va, vb, vd, vl, vg, y6, g8};
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
        cur_call = "texla_vec_destroy";
        texla_vec_destroy(ctx, vs[i]);
        after_call("texla_vec_destroy");
    }
    texla_scalar ss[] = {s1, s2, s3, sz, sr};
    for (size_t i = 0; i < sizeof ss / sizeof ss[0]; i++) {
        cur_call = "texla_scalar_destroy";
        texla_scalar_destroy(ctx, ss[i]);
        after_call("texla_scalar_destroy");
    }
    texla_mat ms[] = {mcol, mv, ma6};
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
        cur_call = "texla_mat_destroy";
        texla_mat_destroy(ctx, ms[i]);
        after_call("texla_mat_destroy");
    }
}

/* y = alpha x + beta P x on an nx x ny grid (P the 5-point Laplacian, Dirichlet) in float64 */
static void poisson_ref(const float *x, int nx, int ny, double alpha, double beta, double *y,
                        double *absy) {
    for (int k = 0; k < nx * ny; k++) {
        int cx = k % nx, cy = k / nx;
        double s = (alpha + 4 * beta) * x[k], a = fabs(s);
        int nb[4] = {cx > 0 ? k - 1 : -1, cx < nx - 1 ? k + 1 : -1, cy > 0 ? k - nx : -1,
                     cy < ny - 1 ? k + nx : -1};
        for (int i = 0; i < 4; i++)
            if (nb[i] >= 0) {
                s -= beta * x[nb[i]];
                a += fabs(beta * x[nb[i]]);
            }
        y[k] = s;
        if (absy) absy[k] = a;
    }
}

#define GX 6
#define GY 5
#define GN (GX * GY)
#define SR 7 /* rows of the sparse matrix */

static void run_banded_sparse(texla_ctx *ctx) {
    float X[GN], Bv[GN];
    double ref[VMAX], bnd[VMAX];
    check_fill(X, GN);
    check_fill(Bv, GN);
    texla_vec xg = {0}, bg = {0}, yg = {0}, y7 = {0};
    STEP(ctx, "texla_vec_make_grid (6 x 5)", texla_vec_make_grid(ctx, GX, GY, X, &xg));
    STEP(ctx, "texla_vec_make_grid (6 x 5)", texla_vec_make_grid(ctx, GX, GY, Bv, &bg));
    STEP(ctx, "texla_vec_make_like", texla_vec_make_like(ctx, xg, &yg));

    /* 5 diagonals: two passes, the second added by blending */
    texla_banded pz = {0}, bd = {0};
    STEP(ctx, "texla_banded_poisson", texla_banded_poisson(ctx, GX, GY, 0.5f, 1.0f, &pz));
    STEP(ctx, "texla_banded_matvec (Poisson, 2 passes)", texla_banded_matvec(ctx, pz, xg, yg));
    double absy[GN];
    poisson_ref(X, GX, GY, 0.5, 1.0, ref, absy);
    for (int k = 0; k < GN; k++) bnd[k] = 8 * CHECK_U * absy[k] + 1e-30;
    expect_v_near(ctx, yg, ref, bnd, GN, "texla_banded_matvec (Poisson 6 x 5, alpha 0.5, beta 1)");

    /* diagonals 0, +1, -GX from host data, then y = A x + s b */
    const int offs[3] = {0, 1, -GX};
    float D[3 * GN];
    check_fill(D, 3 * GN);
    STEP(ctx, "texla_banded_make", texla_banded_make(ctx, xg, 3, offs, D, &bd));
    STEP(ctx, "texla_banded_matvec_add", texla_banded_matvec_add(ctx, bd, xg, -0.5f, bg, yg));
    for (int k = 0; k < GN; k++) {
        double s = -0.5 * Bv[k], a = fabs(s);
        for (int i = 0; i < 3; i++) {
            int j = k + offs[i];
            if (j < 0 || j >= GN) continue;
            s += (double)D[i * GN + k] * X[j];
            a += fabs((double)D[i * GN + k] * X[j]);
        }
        ref[k] = s;
        bnd[k] = 8 * CHECK_U * a + 1e-30;
    }
    expect_v_near(ctx, yg, ref, bnd, GN, "texla_banded_matvec_add");

    /* a 7 x 30 sparse matrix: duplicates, an empty row (3), a row of 9 entries (3 points) */
    static const int rows[] = {0, 0, 1, 2, 2, 2, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 6, 6, 0};
    static const int cols[] = {0, 29, 7, 3, 3, 12, 1, 5, 9, 13, 17, 21, 25, 28, 2, 6, 11, 24, 29};
    enum { NNZ = (int)(sizeof rows / sizeof rows[0]) };
    float V[NNZ];
    check_fill(V, NNZ);
    /* the same matrix in CSR: row-sorted (the order within a row is the COO order) */
    int row_ptr[SR + 1], ccols[NNZ];
    float cvals[NNZ];
    row_ptr[0] = 0;
    for (int r = 0, e = 0; r < SR; r++) {
        for (int i = 0; i < NNZ; i++)
            if (rows[i] == r) {
                ccols[e] = cols[i];
                cvals[e] = V[i];
                e++;
            }
        row_ptr[r + 1] = e;
    }
    double sref[SR], sbnd[SR];
    for (int r = 0; r < SR; r++) {
        double s = 0, a = 0;
        int cnt = 0;
        for (int i = 0; i < NNZ; i++)
            if (rows[i] == r) {
                s += (double)V[i] * X[cols[i]];
                a += fabs((double)V[i] * X[cols[i]]);
                cnt++;
            }
        sref[r] = s;
        sbnd[r] = 2 * (cnt + 1) * CHECK_U * a + 1e-30;
    }
    texla_sparse sc = {0}, sr = {0};
    STEP(ctx, "texla_vec_make (7, zeros)", texla_vec_make(ctx, SR, NULL, &y7));
    /* these make a vertex array and an array buffer: the host's vertex array (with its
     * attributes) and array buffer binding must survive */
    STEP(ctx, "texla_sparse_make_coo",
         texla_sparse_make_coo(ctx, y7, xg, NNZ, rows, cols, V, &sc));
    STEP(ctx, "texla_sparse_make_csr",
         texla_sparse_make_csr(ctx, y7, xg, row_ptr, ccols, cvals, &sr));
    /* points drawn with GL_PROGRAM_POINT_SIZE: the host's point size 3 must not leak in */
    STEP(ctx, "texla_sparse_matvec (COO)", texla_sparse_matvec(ctx, sc, xg, y7));
    expect_v_near(ctx, y7, sref, sbnd, SR, "texla_sparse_matvec (COO)");
    STEP(ctx, "texla_vec_fill", texla_vec_fill(ctx, texla_host(9.0f), y7));
    STEP(ctx, "texla_sparse_matvec (CSR)", texla_sparse_matvec(ctx, sr, xg, y7));
    expect_v_near(ctx, y7, sref, sbnd, SR, "texla_sparse_matvec (CSR)");
    /* the sparse engine's other products and forms: storage buffers, image units, the
     * transposed copy, scatter with atomics and the pack pass, the gather program */
    {
        double tref[GN], tbnd[GN];
        float X7[SR];
        check_fill(X7, SR);
        for (int j = 0; j < GN; j++) {
            double s = 0, a = 0;
            int cnt = 0;
            for (int i = 0; i < NNZ; i++)
                if (cols[i] == j) {
                    s += (double)V[i] * X7[rows[i]];
                    a += fabs((double)V[i] * X7[rows[i]]);
                    cnt++;
                }
            tref[j] = s;
            tbnd[j] = 2 * (cnt + 1) * CHECK_U * a + 1e-30;
        }
        texla_vec x7 = {0};
        STEP(ctx, "texla_vec_make (7)", texla_vec_make(ctx, SR, X7, &x7));
        STEP(ctx, "texla_sparse_matvec_t", texla_sparse_matvec_t(ctx, sc, x7, yg));
        expect_v_near(ctx, yg, tref, tbnd, GN, "texla_sparse_matvec_t");
        texla_info inf;
        texla_ctx_info(ctx, &inf);
        const texla_sparse_variant vs[] = {
            {.format = TEXLA_SPARSE_GATHER},
            {.format = TEXLA_SPARSE_ELL, .sched = TEXLA_SCHED_GROUP, .dist = 2, .long_rows = 4,
             .long_chunk = 64, .wg = 64},
            {.format = TEXLA_SPARSE_CSR, .sched = TEXLA_SCHED_LANES, .lanes = 4},
            {.format = TEXLA_SPARSE_BSR, .block = 2, .bell = 1},
            {.format = TEXLA_SPARSE_COO, .sched = TEXLA_SCHED_ATOMIC},
            {.format = TEXLA_SPARSE_CSR, .sched = TEXLA_SCHED_MERGE, .lanes = 4, .wg = 64},
            {.format = TEXLA_SPARSE_CSR, .sched = TEXLA_SCHED_STREAM, .wg = 64},
            {.format = TEXLA_SPARSE_SELL, .sched = TEXLA_SCHED_GROUP, .xbuf = 1},
            {.format = TEXLA_SPARSE_BSR, .block = 3, .xbuf = 1}};
        for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
            if (vs[i].format >= TEXLA_SPARSE_COO && !inf.compute) continue;
            if (vs[i].sched == TEXLA_SCHED_ATOMIC && !inf.atomic_float) continue;
            STEP(ctx, "texla_sparse_pin", texla_sparse_pin(ctx, sc, TEXLA_SPARSE_N, &vs[i]));
            STEP(ctx, "texla_vec_fill", texla_vec_fill(ctx, texla_host(9.0f), y7));
            STEP(ctx, "texla_sparse_matvec (pinned)", texla_sparse_matvec(ctx, sc, xg, y7));
            expect_v_near(ctx, y7, sref, sbnd, SR, "texla_sparse_matvec (pinned variant)");
        }
        /* y = A x + 0 y ignores y's old values */
        STEP(ctx, "texla_vec_fill", texla_vec_fill(ctx, texla_host(9.0f), y7));
        STEP(ctx, "texla_sparse_matvec_add", texla_sparse_matvec_add(ctx, sc, xg, 0.0f, y7));
        expect_v_near(ctx, y7, sref, sbnd, SR, "texla_sparse_matvec_add (beta 0)");
        STEP(ctx, "texla_sparse_pin (none)", texla_sparse_pin(ctx, sc, TEXLA_SPARSE_N, NULL));
        texla_sparse_info si;
        STEP(ctx, "texla_sparse_info_get", texla_sparse_info_get(ctx, sc, &si));
        /* the LCP step with the product inside (fused kernels on the compute backend):
         * dst = max(0, x + (A x + b) .* e) for a 7 x 7 A of the first entries' values */
        {
            int qr[SR], qc[SR];
            float qv[SR], B7[SR], E7[SR], ref7[SR], got7[SR];
            for (int i = 0; i < SR; i++) {
                qr[i] = i, qc[i] = (i * 3 + 1) % SR, qv[i] = V[i % NNZ];
                B7[i] = 0.25f * (float)(i - 3), E7[i] = -0.5f;
            }
            for (int i = 0; i < SR; i++) {
                double w = (double)qv[i] * X7[qc[i]];
                ref7[i] = (float)fmax(0.0, X7[i] + (w + B7[i]) * E7[i]);
            }
            texla_sparse sq = {0};
            texla_vec b7 = {0}, e7 = {0}, w7 = {0}, d7 = {0}, none = {0};
            STEP(ctx, "texla_sparse_make_coo (7 x 7)",
                 texla_sparse_make_coo(ctx, x7, x7, SR, qr, qc, qv, &sq));
            STEP(ctx, "texla_vec_make (b)", texla_vec_make(ctx, SR, B7, &b7));
            STEP(ctx, "texla_vec_make (e)", texla_vec_make(ctx, SR, E7, &e7));
            STEP(ctx, "texla_vec_make (work)", texla_vec_make(ctx, SR, NULL, &w7));
            STEP(ctx, "texla_vec_make (dst)", texla_vec_make(ctx, SR, NULL, &d7));
            STEP(ctx, "texla_op_lcp_step", texla_op_lcp_step(ctx, texla_op_sparse(sq), x7, b7, e7,
                                                             none, none, w7, d7));
            STEP(ctx, "texla_vec_read", texla_vec_read(ctx, d7, got7));
            int bad = 0;
            for (int i = 0; i < SR; i++) bad += fabs((double)got7[i] - ref7[i]) > 1e-5 * (1 + fabs(ref7[i]));
            CHECK(bad == 0, "texla_op_lcp_step in host mode: %d of %d elements off", bad, SR);
            texla_vec c7 = {0};
            STEP(ctx, "texla_vec_make (x2)", texla_vec_make(ctx, SR, NULL, &c7));
            STEP(ctx, "texla_op_lcp_iterate", texla_op_lcp_iterate(ctx, texla_op_sparse(sq), b7, e7,
                                                                   none, none, 3, w7, c7, d7));
            cur_call = "texla_vec_destroy";
            texla_vec_destroy(ctx, c7);
            after_call("texla_vec_destroy");
            cur_call = "texla_sparse_destroy";
            texla_sparse_destroy(ctx, sq);
            texla_vec vs7[4] = {b7, e7, w7, d7};
            for (int i = 0; i < 4; i++) texla_vec_destroy(ctx, vs7[i]);
            after_call("texla_sparse_destroy");
        }
        cur_call = "texla_vec_destroy";
        texla_vec_destroy(ctx, x7);
        after_call("texla_vec_destroy");
        /* complex vectors */
        float C[8] = {1, 2, -1, 0.5f, 3, -2, 0.25f, 1};
        texla_vec ca = {0}, cb = {0};
        texla_scalar cs = {0};
        STEP(ctx, "texla_vec_make_entries", texla_vec_make_entries(ctx, 4, TEXLA_ENTRY_COMPLEX, C, &ca));
        STEP(ctx, "texla_vec_make_like", texla_vec_make_like(ctx, ca, &cb));
        STEP(ctx, "texla_scalar_make", texla_scalar_make(ctx, 0, &cs));
        STEP(ctx, "texla_cvec_mul", texla_cvec_mul(ctx, ca, ca, 1, cb));
        STEP(ctx, "texla_cvec_dot", texla_cvec_dot(ctx, ca, ca, cs));
        float dr[2] = {0, 0};
        STEP(ctx, "texla_scalar_read_complex", texla_scalar_read_complex(ctx, cs, dr));
        CHECK(fabsf(dr[0] - 20.3125f) < 1e-4f && fabsf(dr[1]) < 1e-6f,
              "texla_cvec_dot (a, a) = %g %+gi, expected 20.3125", dr[0], dr[1]);
        cur_call = "texla_vec_destroy";
        texla_vec_destroy(ctx, ca);
        texla_vec_destroy(ctx, cb);
        texla_scalar_destroy(ctx, cs);
        after_call("texla_vec_destroy");
    }

    /* the operator interface, one of each kind */
    STEP(ctx, "texla_op_matvec (banded)", texla_op_matvec(ctx, texla_op_banded(pz), xg, yg));
    poisson_ref(X, GX, GY, 0.5, 1.0, ref, absy);
    for (int k = 0; k < GN; k++) bnd[k] = 8 * CHECK_U * absy[k] + 1e-30;
    expect_v_near(ctx, yg, ref, bnd, GN, "texla_op_matvec (banded)");
    STEP(ctx, "texla_vec_fill", texla_vec_fill(ctx, texla_host(9.0f), y7));
    STEP(ctx, "texla_op_matvec (sparse)", texla_op_matvec(ctx, texla_op_sparse(sc), xg, y7));
    expect_v_near(ctx, y7, sref, sbnd, SR, "texla_op_matvec (sparse)");
    float Ad[SR * GN];
    check_fill(Ad, SR * GN);
    texla_mat md = {0};
    STEP(ctx, "texla_mat_make (7 x 30)", texla_mat_make(ctx, SR, GN, Ad, &md));
    STEP(ctx, "texla_op_matvec (dense)", texla_op_matvec(ctx, texla_op_dense(md), xg, y7));
    product_ref(Ad, X, SR, GN, 1, 0, 0, ref, bnd);
    expect_v_near(ctx, y7, ref, bnd, SR, "texla_op_matvec (dense)");

    cur_call = "texla_sparse_destroy";
    texla_sparse_destroy(ctx, sc);
    after_call("texla_sparse_destroy");
    cur_call = "texla_sparse_destroy";
    texla_sparse_destroy(ctx, sr);
    after_call("texla_sparse_destroy");
    cur_call = "texla_banded_destroy";
    texla_banded_destroy(ctx, pz);
    after_call("texla_banded_destroy");
    cur_call = "texla_banded_destroy";
    texla_banded_destroy(ctx, bd);
    after_call("texla_banded_destroy");
    cur_call = "texla_mat_destroy";
    texla_mat_destroy(ctx, md);
    after_call("texla_mat_destroy");
    texla_vec vs[] = {xg, bg, yg, y7};
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
        cur_call = "texla_vec_destroy";
        texla_vec_destroy(ctx, vs[i]);
        after_call("texla_vec_destroy");
    }
}

#define LN 12

static void run_solvers(texla_ctx *ctx) {
    /* CG on the 8 x 8 Poisson problem, tolerance mode (asynchronous residual reads) and fixed */
    float Bc[64], Xc[64];
    double ax[64];
    check_fill(Bc, 64);
    texla_banded p8 = {0};
    texla_vec b8 = {0}, x8 = {0};
    STEP(ctx, "texla_banded_poisson (8 x 8)", texla_banded_poisson(ctx, 8, 8, 0.0f, 1.0f, &p8));
    STEP(ctx, "texla_vec_make_grid (8 x 8)", texla_vec_make_grid(ctx, 8, 8, Bc, &b8));
    STEP(ctx, "texla_vec_make_grid (8 x 8, zeros)", texla_vec_make_grid(ctx, 8, 8, NULL, &x8));
    double bn = check_norm_f(Bc, 64);
    for (int mode = 0; mode < 2; mode++) {
        texla_cg_desc cd = {0};
        texla_cg_result cr = {.iterations = -1, .rel_residual = -2.0f, .converged = -1};
        const char *label = mode == 0 ? "texla_cg (tolerance mode, tol 1e-5)"
                                      : "texla_cg (fixed mode, 48 iterations)";
        if (mode == 0) {
            cd.tol = 1e-5f;
            cd.max_iter = 200;
            cd.check_every = 4;
        } else {
            cd.max_iter = 48;
            STEP(ctx, "texla_vec_fill", texla_vec_fill(ctx, texla_host(0.0f), x8));
        }
        STEP(ctx, label, texla_cg(ctx, texla_op_banded(p8), b8, &cd, x8, &cr));
        if (mode == 0)
            CHECK(cr.converged == 1 && cr.iterations > 0 && cr.iterations < 200 &&
                  cr.rel_residual >= 0 && cr.rel_residual <= 1e-5f,
                  "%s: converged %d after %d iterations, rel_residual %.3g", label, cr.converged,
                  cr.iterations, (double)cr.rel_residual);
        else
            CHECK(cr.iterations == 48 && cr.rel_residual == -1.0f,
                  "%s: %d iterations, rel_residual %.3g (expected 48 and -1)", label,
                  cr.iterations, (double)cr.rel_residual);
        if (read_v(ctx, x8, Xc, label)) {
            poisson_ref(Xc, 8, 8, 0.0, 1.0, ax, NULL);
            double rr = 0;
            for (int k = 0; k < 64; k++) rr += (Bc[k] - ax[k]) * (Bc[k] - ax[k]);
            double rel = sqrt(rr) / bn;
            CHECK(rel <= 1e-3, "%s in host mode under the sentinel state: true relative "
                  "residual %.3g (want <= 1e-3)", label, rel);
        }
    }

    /* projected Jacobi for an LCP, n = 12, strictly diagonally dominant */
    float A[LN * LN], b[LN], x[LN];
    for (int i = 0; i < LN; i++)
        for (int j = 0; j <= i; j++) {
            float v = i == j ? 4.0f + (float)fabs(check_rand()) : 0.3f * (float)check_rand();
            A[i * LN + j] = A[j * LN + i] = v;
        }
    check_fill(b, LN);
    texla_mat ma = {0}, mb = {0}, mx = {0};
    STEP(ctx, "texla_mat_make (12 x 12)", texla_mat_make(ctx, LN, LN, A, &ma));
    STEP(ctx, "texla_mat_make (12 x 1)", texla_mat_make(ctx, LN, 1, b, &mb));
    STEP(ctx, "texla_mat_make (12 x 1, zeros)", texla_mat_make(ctx, LN, 1, NULL, &mx));
    texla_lcp_desc ld = {0};
    ld.iterations = 150;
    texla_lcp_result lr;
    memset(&lr, 0, sizeof lr);
    STEP(ctx, "texla_lcp_jacobi (n = 12, 150 iterations)",
         texla_lcp_jacobi(ctx, ma, mb, &ld, mx, &lr));
    CHECK(lr.min_x >= 0 && lr.min_w >= -1e-4f && lr.max_abs_xw <= 1e-4f,
          "texla_lcp_jacobi's measures: min x %.3g, min w %.3g, max |x w| %.3g", (double)lr.min_x,
          (double)lr.min_w, (double)lr.max_abs_xw);
    if (read_m(ctx, mx, x, "texla_lcp_jacobi")) {
        double minx = INFINITY, minw = INFINITY, mxw = 0;
        for (int i = 0; i < LN; i++) {
            double w = b[i];
            for (int j = 0; j < LN; j++) w += (double)A[i * LN + j] * x[j];
            minx = fmin(minx, x[i]);
            minw = fmin(minw, w);
            mxw = fmax(mxw, fabs(x[i] * w));
        }
        CHECK(minx >= 0 && minw >= -1e-4 && mxw <= 1e-4,
              "texla_lcp_jacobi in host mode under the sentinel state (CPU check): min x %.3g, "
              "min w %.3g, max |x w| %.3g", minx, minw, mxw);
    }

    /* the bounded projection: rows 0..3 normal, rows 4..11 friction of row i % 4, mu 0.5 */
    float v[LN], idx[LN], mu[LN], want[LN];
    check_fill(v, LN);
    for (int i = 0; i < LN; i++) {
        idx[i] = i < 4 ? -1.0f : (float)(i % 4);
        mu[i] = 0.5f;
    }
    for (int i = 0; i < LN; i++) {
        if (i < 4) {
            want[i] = v[i] > 0 ? v[i] : 0.0f;
        } else {
            float nj = v[i % 4] > 0 ? v[i % 4] : 0.0f, lim = mu[i] * nj;
            want[i] = v[i] < -lim ? -lim : v[i] > lim ? lim : v[i];
        }
    }
    texla_mat mvv = {0}, mi = {0}, mm = {0};
    STEP(ctx, "texla_mat_make (12 x 1)", texla_mat_make(ctx, LN, 1, v, &mvv));
    STEP(ctx, "texla_mat_make (12 x 1)", texla_mat_make(ctx, LN, 1, idx, &mi));
    STEP(ctx, "texla_mat_make (12 x 1)", texla_mat_make(ctx, LN, 1, mu, &mm));
    STEP(ctx, "texla_lcp_project", texla_lcp_project(ctx, mvv, mi, mm, mx));
    /* exact values; clamp(v, -0, 0) may give either zero, so compared as numbers */
    float pgot[LN];
    double pref[LN], pzero[LN];
    for (int i = 0; i < LN; i++) pref[i] = want[i], pzero[i] = 0.0;
    if (read_m(ctx, mx, pgot, "texla_lcp_project"))
        arr_near(pgot, pref, pzero, LN, "texla_lcp_project");

    cur_call = "texla_banded_destroy";
    texla_banded_destroy(ctx, p8);
    after_call("texla_banded_destroy");
    texla_vec vs[] = {b8, x8};
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
        cur_call = "texla_vec_destroy";
        texla_vec_destroy(ctx, vs[i]);
        after_call("texla_vec_destroy");
    }
    texla_mat ms[] = {ma, mb, mx, mvv, mi, mm};
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
        cur_call = "texla_mat_destroy";
        texla_mat_destroy(ctx, ms[i]);
        after_call("texla_mat_destroy");
    }
}

/* Matrix Market files: host-only, and they must not touch GL state either */
static void run_mm(texla_ctx *ctx) {
    char path[64];
    snprintf(path, sizeof path, "/tmp/texla-state-XXXXXX");
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp(%s) failed", path);
    if (fd < 0) return;
    close(fd);
    float M[12];
    check_fill(M, 12);
    STEP(ctx, "texla_mm_write_array", texla_mm_write_array(ctx, path, 3, 4, M));
    texla_mm mm;
    memset(&mm, 0, sizeof mm);
    STEP(ctx, "texla_mm_read (array file)", texla_mm_read(ctx, path, &mm));
    CHECK(mm.rows == 3 && mm.cols == 4 && mm.coordinate == 0 && mm.dense != NULL,
          "texla_mm_read of texla_mm_write_array's 3 x 4 file: %d x %d, coordinate %d, dense %s",
          mm.rows, mm.cols, mm.coordinate, mm.dense ? "given" : "NULL");
    if (mm.dense && mm.rows == 3 && mm.cols == 4)
        arr_exact(mm.dense, M, 12, "texla_mm_write_array then texla_mm_read");
    cur_call = "texla_mm_free";
    texla_mm_free(&mm);
    after_call("texla_mm_free");
    static const int ri[3] = {0, 2, 1}, ci[3] = {3, 0, 1};
    float cv[3] = {1.5f, -0.25f, 3.0f};
    STEP(ctx, "texla_mm_write_coord", texla_mm_write_coord(ctx, path, 3, 4, 3, ri, ci, cv));
    memset(&mm, 0, sizeof mm);
    STEP(ctx, "texla_mm_read (coordinate file)", texla_mm_read(ctx, path, &mm));
    int found = 0;
    for (int i = 0; mm.row && mm.col && mm.val && i < mm.nnz; i++)
        for (int e = 0; e < 3; e++)
            found += mm.row[i] == ri[e] && mm.col[i] == ci[e] && mm.val[i] == cv[e];
    CHECK(mm.rows == 3 && mm.cols == 4 && mm.coordinate == 1 && mm.nnz == 3 && found == 3,
          "texla_mm_read of texla_mm_write_coord's file: %d x %d, coordinate %d, nnz %d, %d of "
          "the 3 entries found", mm.rows, mm.cols, mm.coordinate, mm.nnz, found);
    cur_call = "texla_mm_free";
    texla_mm_free(&mm);
    after_call("texla_mm_free");
    remove(path);
}

#define R7 7
#define C5 5
#define N35 (R7 * C5)

/* Calls every texla operation once in host mode, comparing the state after each. */
static void run_optable(texla_ctx *ctx);

static void run_sequence(host *h) {
    texla_ctx_desc desc = {0};
    desc.host_getproc = (texla_getproc_fn)eglGetProcAddress;
    desc.backend = suite_backend(); /* the state guard of the compute backend too */
    texla_ctx *ctx = NULL;
    STEP(ctx, "texla_ctx_make (host mode)", texla_ctx_make(&desc, &ctx));
    if (!ctx) return;
    texla_info info;
    memset(&info, 0, sizeof info);
    STEP(ctx, "texla_ctx_info", texla_ctx_info(ctx, &info));
    CHECK(info.host == 1, "texla_ctx_info: host is %d in host mode", info.host);
    printf("host context: %s; texla sees GL %d.%d, %s\n", h->how, info.gl_major, info.gl_minor,
           info.renderer);

    float A[N35], B[N35], C0[N35], want[N35];
    double ref[64], bnd[64];
    check_fill(A, N35);
    check_fill(B, N35);
    check_fill(C0, N35);
    texla_mat a = {0}, b = {0}, c = {0}, d = {0}, k = {0}, id = {0};
    STEP(ctx, "texla_mat_make (data)", texla_mat_make(ctx, R7, C5, A, &a));
    STEP(ctx, "texla_mat_make (data)", texla_mat_make(ctx, R7, C5, B, &b));
    STEP(ctx, "texla_mat_make (zeros)", texla_mat_make(ctx, R7, C5, NULL, &c));
    for (int i = 0; i < N35; i++) want[i] = 0.0f;
    expect_exact(ctx, c, want, N35, "texla_mat_make (zeros)");
    STEP(ctx, "texla_mat_make (zeros)", texla_mat_make(ctx, R7, C5, NULL, &d));
    STEP(ctx, "texla_mat_make_const", texla_mat_make_const(ctx, R7, C5, 2.5f, &k));
    for (int i = 0; i < N35; i++) want[i] = 2.5f;
    expect_exact(ctx, k, want, N35, "texla_mat_make_const");
    STEP(ctx, "texla_mat_make_identity", texla_mat_make_identity(ctx, 6, &id));
    float eye[36];
    for (int i = 0; i < 36; i++) eye[i] = (i / 6 == i % 6) ? 1.0f : 0.0f;
    expect_exact(ctx, id, eye, 36, "texla_mat_make_identity");
    expect_exact(ctx, a, A, N35, "texla_mat_make (data)");

    STEP(ctx, "texla_mat_write", texla_mat_write(ctx, C0, c));
    expect_exact(ctx, c, C0, N35, "texla_mat_write");

    float raw[5 * 2 * 4];
    memset(raw, 0xff, sizeof raw);
    STEP(ctx, "texla_mat_read_raw", texla_mat_read_raw(ctx, a, raw));
    int raw_bad = 0;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < C5; j++) {
            float w = i < R7 ? A[i * C5 + j] : 0.0f; /* row 7 is a padding lane */
            if (memcmp(&raw[((i / 4) * C5 + j) * 4 + i % 4], &w, sizeof w)) raw_bad++;
        }
    CHECK(raw_bad == 0, "texla_mat_read_raw in host mode: %d of 40 texel channels wrong", raw_bad);

    texla_mat_info mi;
    memset(&mi, 0, sizeof mi);
    STEP(ctx, "texla_mat_info_get", texla_mat_info_get(ctx, a, &mi));
    CHECK(mi.rows == R7 && mi.cols == C5 && mi.tex_width == C5 && mi.tex_height == 2 &&
          mi.texture != 0, "texla_mat_info_get: %d x %d, texture %d x %d, name %u", mi.rows,
          mi.cols, mi.tex_width, mi.tex_height, mi.texture);

    /* element-wise operations, each checked against float32 C (no contraction in C11 mode) */
    STEP(ctx, "texla_mat_copy", texla_mat_copy(ctx, a, d));
    expect_exact(ctx, d, A, N35, "texla_mat_copy");
    STEP(ctx, "texla_mat_add", texla_mat_add(ctx, a, b, d));
    for (int i = 0; i < N35; i++) want[i] = A[i] + B[i];
    expect_exact(ctx, d, want, N35, "texla_mat_add");
    STEP(ctx, "texla_mat_sub", texla_mat_sub(ctx, a, b, d));
    for (int i = 0; i < N35; i++) want[i] = A[i] - B[i];
    expect_exact(ctx, d, want, N35, "texla_mat_sub");
    STEP(ctx, "texla_mat_mul", texla_mat_mul(ctx, a, b, d));
    for (int i = 0; i < N35; i++) want[i] = A[i] * B[i];
    expect_exact(ctx, d, want, N35, "texla_mat_mul");
    STEP(ctx, "texla_mat_scale", texla_mat_scale(ctx, a, texla_host(0.75f), d));
    for (int i = 0; i < N35; i++) want[i] = 0.75f * A[i];
    expect_exact(ctx, d, want, N35, "texla_mat_scale");
    STEP(ctx, "texla_mat_rescale", texla_mat_rescale(ctx, 1.5f, d));
    for (int i = 0; i < N35; i++) want[i] = 1.5f * want[i];
    expect_exact(ctx, d, want, N35, "texla_mat_rescale");
    STEP(ctx, "texla_mat_acc", texla_mat_acc(ctx, texla_host(1.0f), b, d));
    for (int i = 0; i < N35; i++) want[i] = want[i] + B[i];
    expect_exact(ctx, d, want, N35, "texla_mat_acc");
    STEP(ctx, "texla_mat_acc", texla_mat_acc(ctx, texla_host(-0.5f), b, d));
    for (int i = 0; i < N35; i++) want[i] = want[i] + -0.5f * B[i];
    expect_exact(ctx, d, want, N35, "texla_mat_acc");
    STEP(ctx, "texla_mat_acc_mul", texla_mat_acc_mul(ctx, a, b, d));
    for (int i = 0; i < N35; i++) want[i] = want[i] + A[i] * B[i];
    expect_exact(ctx, d, want, N35, "texla_mat_acc_mul");
    /* these two may be contracted to FMAs by the shader compiler: a few ulps */
    STEP(ctx, "texla_mat_axpy", texla_mat_axpy(ctx, a, texla_host(3.0f), b, d));
    for (int i = 0; i < N35; i++) {
        ref[i] = (double)A[i] + 3.0 * B[i];
        bnd[i] = 4 * CHECK_U * (fabs(A[i]) + fabs(3.0 * B[i])) + 1e-30;
    }
    expect_near(ctx, d, ref, bnd, N35, "texla_mat_axpy");
    STEP(ctx, "texla_mat_madad", texla_mat_madad(ctx, a, b, c, k, d));
    for (int i = 0; i < N35; i++) {
        ref[i] = (double)A[i] + ((double)B[i] + C0[i]) * 2.5;
        bnd[i] = 6 * CHECK_U * (fabs(A[i]) + (fabs(B[i]) + fabs(C0[i])) * 2.5) + 1e-30;
    }
    expect_near(ctx, d, ref, bnd, N35, "texla_mat_madad");
    STEP(ctx, "texla_mat_clamp_min", texla_mat_clamp_min(ctx, a, 0.125f, d));
    for (int i = 0; i < N35; i++) want[i] = A[i] > 0.125f ? A[i] : 0.125f;
    expect_exact(ctx, d, want, N35, "texla_mat_clamp_min");

    STEP(ctx, "texla_mat_recip", texla_mat_recip(ctx, a, 2.0f, d));
    for (int i = 0; i < N35; i++) { /* GLSL division need not be correctly rounded */
        ref[i] = 2.0 / A[i];
        bnd[i] = 4 * CHECK_U * fabs(ref[i]);
    }
    expect_near(ctx, d, ref, bnd, N35, "texla_mat_recip");
    float S[36], sdiag[6];
    check_fill(S, 36);
    for (int i = 0; i < 6; i++) sdiag[i] = S[i * 6 + i];
    texla_mat sq = {0}, dg = {0};
    STEP(ctx, "texla_mat_make (square)", texla_mat_make(ctx, 6, 6, S, &sq));
    STEP(ctx, "texla_mat_make (diagonal)", texla_mat_make(ctx, 6, 1, NULL, &dg));
    STEP(ctx, "texla_mat_diag", texla_mat_diag(ctx, sq, dg));
    expect_exact(ctx, dg, sdiag, 6, "texla_mat_diag");

    /* reductions */
    float va[11], vb[11];
    check_fill(va, 11);
    check_fill(vb, 11);
    texla_mat xa = {0}, xb = {0};
    STEP(ctx, "texla_mat_make (vector)", texla_mat_make(ctx, 11, 1, va, &xa));
    STEP(ctx, "texla_mat_make (vector)", texla_mat_make(ctx, 11, 1, vb, &xb));
    float dot = NAN, nrm = NAN;
    STEP(ctx, "texla_dot", check_mat_dot(ctx, xa, xb, &dot));
    STEP(ctx, "texla_norm2", check_mat_sqnorm(ctx, xa, &nrm));
    double rd = 0, rds = 0, rn = 0;
    for (int i = 0; i < 11; i++) {
        rd += (double)va[i] * vb[i];
        rds += fabs((double)va[i] * vb[i]);
        rn += (double)va[i] * va[i];
    }
    CHECK(fabs(dot - rd) <= 2 * 11 * CHECK_U * rds + 1e-30,
          "texla_dot in host mode: %.9g, expected %.9g", (double)dot, rd);
    CHECK(fabs(nrm - rn) <= 2 * 11 * CHECK_U * rn + 1e-30,
          "texla_norm2 in host mode: %.9g, expected %.9g", (double)nrm, rn);

    /* products: 6 x 9 times 9 x 7 (inner dimension not a multiple of 4) */
    float P[54], Q[63];
    check_fill(P, 54);
    check_fill(Q, 63);
    float Pt[54], Qt[63];
    for (int i = 0; i < 6; i++)
        for (int p = 0; p < 9; p++) Pt[p * 6 + i] = P[i * 9 + p];
    for (int p = 0; p < 9; p++)
        for (int j = 0; j < 7; j++) Qt[j * 9 + p] = Q[p * 7 + j];
    texla_mat mp = {0}, mq = {0}, mpt = {0}, mqt = {0}, mr = {0};
    STEP(ctx, "texla_mat_make (P)", texla_mat_make(ctx, 6, 9, P, &mp));
    STEP(ctx, "texla_mat_make (Q)", texla_mat_make(ctx, 9, 7, Q, &mq));
    STEP(ctx, "texla_mat_make (P')", texla_mat_make(ctx, 9, 6, Pt, &mpt));
    STEP(ctx, "texla_mat_make (Q')", texla_mat_make(ctx, 7, 9, Qt, &mqt));
    STEP(ctx, "texla_mat_make (R)", texla_mat_make(ctx, 6, 7, NULL, &mr));
    product_ref(P, Q, 6, 9, 7, 0, 0, ref, bnd);
    STEP(ctx, "texla_mat_matmul", texla_mat_matmul(ctx, mp, mq, mr));
    expect_near(ctx, mr, ref, bnd, 42, "texla_mat_matmul");
    STEP(ctx, "texla_mat_matmul_tn", texla_mat_matmul_tn(ctx, mpt, mq, mr));
    expect_near(ctx, mr, ref, bnd, 42, "texla_mat_matmul_tn");
    STEP(ctx, "texla_mat_matmul_nt", texla_mat_matmul_nt(ctx, mp, mqt, mr));
    expect_near(ctx, mr, ref, bnd, 42, "texla_mat_matmul_nt");
    /* one block per pass: three passes, the later two added by blending */
    STEP(ctx, "texla_ctx_set_matmul_k(1)", texla_ctx_set_matmul_k(ctx, 1));
    STEP(ctx, "texla_mat_matmul (k = 1, 3 passes)", texla_mat_matmul(ctx, mp, mq, mr));
    expect_near(ctx, mr, ref, bnd, 42, "texla_mat_matmul (k = 1, 3 passes)");
    STEP(ctx, "texla_mat_matmul_tn (k = 1, 3 passes)", texla_mat_matmul_tn(ctx, mpt, mq, mr));
    expect_near(ctx, mr, ref, bnd, 42, "texla_mat_matmul_tn (k = 1, 3 passes)");
    STEP(ctx, "texla_mat_matmul_nt (k = 1, 3 passes)", texla_mat_matmul_nt(ctx, mp, mqt, mr));
    expect_near(ctx, mr, ref, bnd, 42, "texla_mat_matmul_nt (k = 1, 3 passes)");
    STEP(ctx, "texla_ctx_set_matmul_k(0)", texla_ctx_set_matmul_k(ctx, 0));

    /* the rest of the API, same rule */
    run_vectors(ctx);
    run_banded_sparse(ctx);
    run_solvers(ctx);
    run_mm(ctx);
    run_optable(ctx);

    texla_stats stats;
    STEP(ctx, "texla_ctx_stats", texla_ctx_stats(ctx, &stats));
    STEP(ctx, "texla_ctx_finish", texla_ctx_finish(ctx));
    STEP(ctx, "texla_ctx_check", texla_ctx_check(ctx, "a caller"));

    /* a failing call leaves the state alone too */
    cur_call = "texla_mat_add (shape mismatch)";
    texla_result r = texla_mat_add(ctx, a, mp, d);
    CHECK(r == TEXLA_ERR_SHAPE, "texla_mat_add of 7 x 5 and 6 x 9 returned %s", texla_result_name(r));
    after_call("texla_mat_add (failing: shape mismatch)");

    texla_mat all[] = {a, b, c, d, k, id, sq, dg, xa, xb, mp, mq, mpt, mqt, mr};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        cur_call = "texla_mat_destroy";
        texla_mat_destroy(ctx, all[i]);
        after_call("texla_mat_destroy");
    }
    cur_call = "texla_ctx_destroy";
    texla_ctx_destroy(ctx);
    after_call("texla_ctx_destroy");
}

/* Every row of the operation table (element-wise and reductions, matrices and vectors, host and
 * GPU coefficients) through its generated wrapper, results checked against float64, and the
 * state compared after each: "every entry point is covered" holds by construction. */
static void run_optable(texla_ctx *ctx) {
    const ot_shape ms = {7, 5, 0, 0, 0}, vs = {0, 0, 1, 7, 5};
    char label[96];
    for (int i = 0; i < ot_nrows; i++)
        for (int t = 0; t < 2; t++)
            for (int gpu = 0; gpu <= (ot_rows[i].ncoef ? 1 : 0); gpu++) {
                snprintf(label, sizeof label, "texla_%s_%s%s", t ? "vec" : "mat", ot_rows[i].name,
                         gpu ? " (GPU coefficient)" : "");
                cur_call = label;
                ot_case(ctx, &ot_rows[i], (ot_type)t, t ? vs : ms, gpu, "host mode", NULL, NULL);
                after_call(label);
            }
    for (int i = 0; i < ot_nreds; i++)
        for (int t = 0; t < 2; t++) {
            snprintf(label, sizeof label, "texla_%s_%s", t ? "vec" : "mat", ot_reds[i].name);
            cur_call = label;
            ot_red_case(ctx, &ot_reds[i], (ot_type)t, t ? vs : ms, "host mode", NULL);
            after_call(label);
        }
    /* a batch: the state is texla's between begin and end (saved once), the host's again
     * after end */
    texla_mat a = {0}, b = {0};
    cur_call = "a batch (texla_ctx_begin .. texla_ctx_end)";
    CHECK_OK(ctx, texla_ctx_begin(ctx), "texla_ctx_begin");
    CHECK_OK(ctx, texla_ctx_begin(ctx), "texla_ctx_begin (nested)");
    CHECK_OK(ctx, texla_mat_make(ctx, 3, 3, NULL, &a), "texla_mat_make in a batch");
    CHECK_OK(ctx, texla_mat_make_const(ctx, 3, 3, 1.0f, &b), "texla_mat_make_const in a batch");
    CHECK_OK(ctx, texla_mat_add(ctx, b, b, a), "texla_mat_add in a batch");
    CHECK_OK(ctx, texla_ctx_end(ctx), "texla_ctx_end (nested)");
    CHECK_OK(ctx, texla_ctx_end(ctx), "texla_ctx_end");
    after_call("a batch (texla_ctx_begin .. texla_ctx_end)");
    float got[9];
    STEP(ctx, "texla_mat_read after a batch", texla_mat_read(ctx, a, got));
    int bad = 0;
    for (int i = 0; i < 9; i++) bad += got[i] != 2.0f;
    CHECK(bad == 0, "a batch in host mode: %d of 9 elements of b + b are not 2", bad);
    cur_call = "texla_ctx_end without a begin";
    CHECK(texla_ctx_end(ctx) == TEXLA_ERR_ARGUMENT, "texla_ctx_end without a begin is accepted");
    after_call("texla_ctx_end without a begin");
    texla_mat_destroy(ctx, a);
    texla_mat_destroy(ctx, b);
    after_call("texla_mat_destroy");
}

/* A host-mode context and one element-wise round trip, comparing the state after each call
 * with the state before the first: for the host situations beyond the header's list. */
static void round_trip(const char *situation) {
    char label[200];
    texla_ctx_desc desc = {0};
    desc.host_getproc = (texla_getproc_fn)eglGetProcAddress;
    texla_ctx *ctx = NULL;
    take(&st_prev);
    snprintf(label, sizeof label, "texla_ctx_make [%s]", situation);
    STEP(ctx, label, texla_ctx_make(&desc, &ctx));
    if (!ctx) return;
    float A[6] = {1.5f, -2.25f, 3.0f, 0.0625f, -7.0f, 1e-3f}, B[6] = {0.5f, 4.0f, -1.0f, 2.0f,
                                                                       0.25f, 8.0f};
    float want[6], got[6];
    for (int i = 0; i < 6; i++) want[i] = A[i] + B[i];
    texla_mat a = {0}, b = {0}, c = {0};
    snprintf(label, sizeof label, "texla_mat_make [%s]", situation);
    STEP(ctx, label, texla_mat_make(ctx, 3, 2, A, &a));
    STEP(ctx, label, texla_mat_make(ctx, 3, 2, B, &b));
    STEP(ctx, label, texla_mat_make(ctx, 3, 2, NULL, &c));
    snprintf(label, sizeof label, "texla_mat_add [%s]", situation);
    STEP(ctx, label, texla_mat_add(ctx, a, b, c));
    memset(got, 0, sizeof got);
    snprintf(label, sizeof label, "texla_mat_read [%s]", situation);
    STEP(ctx, label, texla_mat_read(ctx, c, got));
    CHECK(memcmp(got, want, sizeof got) == 0, "[%s] 3 x 2 add read back (%.9g %.9g %.9g ...), "
          "expected (%.9g %.9g %.9g ...)", situation, (double)got[0], (double)got[1],
          (double)got[2], (double)want[0], (double)want[1], (double)want[2]);
    snprintf(label, sizeof label, "texla_mat_destroy [%s]", situation);
    cur_call = label;
    texla_mat_destroy(ctx, a);
    texla_mat_destroy(ctx, b);
    texla_mat_destroy(ctx, c);
    after_call(label);
    snprintf(label, sizeof label, "texla_ctx_destroy [%s]", situation);
    cur_call = label;
    texla_ctx_destroy(ctx);
    after_call(label);
}

/* the errors of the host-mode context used with another context current: how many, and the
 * last one's message */
static int lost_errors;
static char lost_error[512];
static void on_lost_error(texla_result code, const char *message, void *user) {
    (void)code, (void)user;
    lost_errors++;
    snprintf(lost_error, sizeof lost_error, "%s", message);
}

void suite_state(void) {
    host h;
    char why[1024];
    if (!host_make(&h, why, sizeof why)) {
        check_skip("host-mode GL state", why);
        return;
    }
    int ver = gladLoadGL((GLADloadfunc)eglGetProcAddress);
    CHECK(ver != 0, "gladLoadGL failed in the host context (%s)", h.how);
    if (!ver) {
        host_destroy(&h);
        return;
    }
    gl_ver = GLAD_VERSION_MAJOR(ver) * 10 + GLAD_VERSION_MINOR(ver);

    /* KHR_debug attributes GL errors to the call in flight; self-tested with a bad enum */
    if (GLAD_GL_VERSION_4_3 || GLAD_GL_KHR_debug) {
        glDebugMessageCallback(on_gl_debug, NULL);
        glEnable(GL_DEBUG_OUTPUT);
        glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
        dbg_errors = 0;
        glBindBuffer(0xdeadu, 0);
        dbg_on = dbg_errors == 1;
        dbg_errors = 0;
    }
    while (glGetError() != GL_NO_ERROR) {}
    if (!dbg_on) printf("note: no KHR_debug output; GL errors are checked at the end only\n");

    host_objs o;
    memset(&o, 0, sizeof o);
    cur_call = "setting the sentinel state";
    set_sentinel(&o);
    GLenum e = glGetError();
    CHECK(e == GL_NO_ERROR, "setting the sentinel state raised GL error 0x%04x (test bug)", e);
    dbg_errors = 0;
    take(&st_sentinel);
    st_prev = st_sentinel;
    printf("host state: %d fields compared after every call\n", st_sentinel.n);

    run_sequence(&h);
    take(&st_now);
    compare(&st_sentinel, &st_now, "after the whole sequence, against the sentinel state");
    e = glGetError();
    CHECK(e == GL_NO_ERROR, "glGetError() after the whole sequence is 0x%04x", e);
    CHECK(changed_calls == 0, "%d texla calls changed the host's state", changed_calls);

    /* per-draw-buffer blend state (GL 4.0) and a second viewport (GL 4.1): glBlendFunc and
     * glViewport set them for every buffer and index at once */
    if (gl_ver >= 41) {
        glBlendFunci(1, GL_DST_COLOR, GL_SRC_COLOR);
        glBlendEquationi(1, GL_MAX);
        glViewportIndexedf(1, 2.0f, 4.0f, 6.0f, 8.0f);
        round_trip("draw buffer 1 with its own blend function and equation, viewport 1 set");
        glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE_MINUS_DST_ALPHA,
                            GL_DST_COLOR);
        glBlendEquationSeparate(GL_FUNC_REVERSE_SUBTRACT, GL_MIN);
        glViewport(3, 5, 17, 19);
    } else {
        check_skip("per-draw-buffer blend and per-index viewport state", "GL < 4.1");
    }

    /* byte swapping in the pixel store: uploads and read-backs must not be swapped */
    glPixelStorei(GL_PACK_SWAP_BYTES, GL_TRUE);
    glPixelStorei(GL_UNPACK_SWAP_BYTES, GL_TRUE);
    round_trip("GL_PACK_SWAP_BYTES and GL_UNPACK_SWAP_BYTES on");
    glPixelStorei(GL_PACK_SWAP_BYTES, GL_FALSE);
    glPixelStorei(GL_UNPACK_SWAP_BYTES, GL_FALSE);

    /* a compatibility-profile host context: refused (its alpha test and colour clamping
     * changed texla's results); made beside the host's, then the host's made current again */
    {
        EGLContext cc = extra_context(&h, EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT);
        if (cc != EGL_NO_CONTEXT && eglMakeCurrent(h.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, cc)) {
            texla_ctx_desc desc = {0};
            desc.host_getproc = (texla_getproc_fn)eglGetProcAddress;
            texla_ctx *cctx = NULL;
            texla_result r = texla_ctx_make(&desc, &cctx);
            CHECK(r == TEXLA_ERR_UNSUPPORTED && strstr(texla_error_message(NULL), "compatibility"),
                  "texla_ctx_make in a compatibility-profile context: %s: %s",
                  texla_result_name(r), texla_error_message(NULL));
            if (cctx) texla_ctx_destroy(cctx);
            eglMakeCurrent(h.dpy, h.surf, h.surf, h.ctx);
            eglDestroyContext(h.dpy, cc);
            gladLoadGL((GLADloadfunc)eglGetProcAddress);
        } else {
            if (cc != EGL_NO_CONTEXT) eglDestroyContext(h.dpy, cc);
            check_skip("a compatibility-profile host context", "none could be made here");
        }
    }

    /* the host's own GL_TIME_ELAPSED query active while texla makes its context and times
     * programs (a first use's timing, a sparse tuning): texla must neither begin a second one
     * (GL_INVALID_OPERATION) nor end the host's */
    if (gl_ver >= 33) {
        GLuint hq = 0;
        glGenQueries(1, &hq);
        glBeginQuery(GL_TIME_ELAPSED, hq);
        texla_ctx_desc desc = {0};
        desc.host_getproc = (texla_getproc_fn)eglGetProcAddress;
        desc.backend = suite_backend();
        texla_ctx *ctx = NULL;
        texla_result r = texla_ctx_make(&desc, &ctx);
        CHECK(r == TEXLA_OK, "texla_ctx_make (host mode, host query active): %s: %s",
              texla_result_name(r), texla_error_message(NULL));
        if (ctx) {
            cur_call = "texla calls while the host's timer query is active";
            texla_vec l = {0};
            texla_sparse sp = {0};
            static const int ri[6] = {0, 1, 2, 3, 4, 5}, ci[6] = {1, 2, 3, 4, 5, 0};
            static const float vv[6] = {1, 2, 3, 4, 5, 6};
            r = texla_vec_make(ctx, 6, NULL, &l);
            if (!r) r = texla_sparse_make_coo(ctx, l, l, 6, ri, ci, vv, &sp);
            texla_sparse_tune_desc td = {0};
            td.budget = 0.5;
            if (!r) r = texla_sparse_tune(ctx, sp, &td);
            CHECK(r == TEXLA_OK, "texla calls with the host's timer query active: %s: %s",
                  texla_result_name(r), texla_error_message(ctx));
            GLint cur = 0;
            glGetQueryiv(GL_TIME_ELAPSED, GL_CURRENT_QUERY, &cur);
            CHECK((GLuint)cur == hq, "the host's timer query is no longer active after texla's "
                  "calls (current query %d, the host's %u)", cur, hq);
            texla_sparse_destroy(ctx, sp);
            texla_vec_destroy(ctx, l);
            texla_ctx_destroy(ctx);
        }
        glEndQuery(GL_TIME_ELAPSED);
        GLuint64 ns = 0;
        glGetQueryObjectui64v(hq, GL_QUERY_RESULT, &ns);
        e = glGetError();
        CHECK(e == GL_NO_ERROR, "glGetError() after texla's calls inside the host's timer query "
              "is 0x%04x", e);
        while (glGetError() != GL_NO_ERROR) {}
        glDeleteQueries(1, &hq);
        dbg_errors = 0;
    }

    /* a GL error the host has not collected yet: texla's calls, texla_ctx_make among them,
     * still work, and the host still finds its error (GL error flags are state too; on a
     * driver with GL_KHR_shader_subgroup, texla_ctx_make's device queries once cleared it) */
    {
        texla_ctx_desc desc = {0};
        desc.host_getproc = (texla_getproc_fn)eglGetProcAddress;
        texla_ctx *ctx = NULL;
        cur_call = "the host's own invalid call";
        glBindBuffer(0xdeadu, 0); /* GL_INVALID_ENUM, left pending */
        dbg_errors = 0;
        texla_result r = texla_ctx_make(&desc, &ctx);
        CHECK(r == TEXLA_OK, "texla_ctx_make (host mode, a host's GL error pending): %s: %s",
              texla_result_name(r), texla_error_message(NULL));
        if (ctx) {
            texla_mat m = {0};
            float x[4] = {1, 2, 3, 4}, y[4] = {0, 0, 0, 0};
            r = texla_mat_make(ctx, 2, 2, x, &m);
            CHECK(r == TEXLA_OK, "texla_mat_make with a GL error pending from the host: %s: %s",
                  texla_result_name(r), texla_error_message(ctx));
            if (r == TEXLA_OK) {
                r = texla_mat_read(ctx, m, y);
                CHECK(r == TEXLA_OK && !memcmp(x, y, sizeof x),
                      "texla_mat_read with a GL error pending from the host: %s",
                      texla_result_name(r));
            }
            e = glGetError();
            CHECK(e == GL_INVALID_ENUM, "the host's pending GL_INVALID_ENUM was lost: "
                  "glGetError() after texla's calls is 0x%04x", e);
            while (glGetError() != GL_NO_ERROR) {}
            texla_mat_destroy(ctx, m);
            texla_ctx_destroy(ctx);
            dbg_errors = 0;
        } else {
            while (glGetError() != GL_NO_ERROR) {}
        }
    }

    /* another context current, or none: texla's calls refuse (TEXLA_ERR_CONTEXT) and touch
     * nothing of that context, not even its objects of the names texla's have; back in the
     * context texla_ctx_make found, everything is as it was (before, they ran in the other
     * context and returned garbage with TEXLA_OK, and a destroy deleted its objects) */
    {
        EGLContext oc = extra_context(&h, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT);
        texla_ctx_desc desc = {0};
        desc.host_getproc = (texla_getproc_fn)eglGetProcAddress;
        desc.error_cb = on_lost_error;
        texla_ctx *ctx = NULL;
        texla_result r = texla_ctx_make(&desc, &ctx);
        CHECK(r == TEXLA_OK, "texla_ctx_make (host mode): %s: %s", texla_result_name(r),
              texla_error_message(NULL));
        float x[4] = {1, 2, 3, 4}, y[4] = {0, 0, 0, 0};
        texla_mat m = {0}, m2 = {0}, m3 = {0};
        texla_vec sx = {0}, sy = {0};
        texla_sparse sa = {0};
        const int si[3] = {0, 1, 2}, sj[3] = {2, 0, 1};
        const float sv[3] = {1.5f, -2.0f, 4.0f}, ones[3] = {1, 1, 1};
        if (ctx) r = texla_mat_make(ctx, 2, 2, x, &m);
        if (ctx && !r) r = texla_mat_make(ctx, 2, 2, NULL, &m3);
        if (ctx && !r) r = texla_vec_make(ctx, 3, ones, &sx);
        if (ctx && !r) r = texla_vec_make(ctx, 3, NULL, &sy);
        if (ctx && !r) r = texla_sparse_make_coo(ctx, sy, sx, 3, si, sj, sv, &sa);
        if (ctx && !r) r = texla_sparse_matvec(ctx, sa, sx, sy); /* its product's form made */
        texla_cg_workspace ws = {0};
        texla_lcp_workspace lws = {0};
        texla_lcp_op_workspace ows = {0};
        if (ctx && !r) r = texla_cg_workspace_make(ctx, sx, &ws);
        if (ctx && !r) r = texla_lcp_workspace_make(ctx, 3, &lws);
        if (ctx && !r) r = texla_lcp_op_workspace_make(ctx, sx, &ows);
        if (ctx && !r && oc != EGL_NO_CONTEXT &&
            eglMakeCurrent(h.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, oc)) {
            gladLoadGL((GLADloadfunc)eglGetProcAddress);
            /* the other context's own objects: names 1.. as texla's in its context */
            GLuint otex[16], ovao = 0;
            glGenTextures(16, otex);
            for (int i = 0; i < 16; i++) glBindTexture(GL_TEXTURE_2D, otex[i]);
            glBindTexture(GL_TEXTURE_2D, 0);
            glGenVertexArrays(1, &ovao);
            glBindVertexArray(ovao);
            for (int pass = 0; pass < 2; pass++) { /* 0: the other context, 1: none */
                const char *where = pass ? "no context current" : "another context current";
                if (pass) eglMakeCurrent(h.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
                r = texla_mat_make(ctx, 2, 2, x, &m2);
                CHECK(r == TEXLA_ERR_CONTEXT &&
                          strstr(texla_error_message(ctx), "not current on this thread"),
                      "texla_mat_make with %s: %s: %s", where, texla_result_name(r),
                      texla_error_message(ctx));
                if (!r) texla_mat_destroy(ctx, m2);
                r = texla_mat_add(ctx, m, m, m3);
                CHECK(r == TEXLA_ERR_CONTEXT, "texla_mat_add with %s: %s", where,
                      texla_result_name(r));
                r = texla_mat_read(ctx, m, y);
                CHECK(r == TEXLA_ERR_CONTEXT, "texla_mat_read with %s: %s", where,
                      texla_result_name(r));
                texla_mat_destroy(ctx, m); /* refused: m stays */
                texla_cg_workspace_destroy(ctx, &ws); /* refused: ws keeps its handles */
                CHECK(ws.n == 3 && ws.v[5].id && ws.s[4].id,
                      "texla_cg_workspace_destroy with %s zeroed the workspace (n %d)", where,
                      ws.n);
                /* each refused once, by its own name (it named texla_ctx_begin) */
                for (int k = 0; k < 3; k++) {
                    static const char *const wn[3] = {"texla_cg_workspace_destroy",
                                                      "texla_lcp_workspace_destroy",
                                                      "texla_lcp_op_workspace_destroy"};
                    lost_errors = 0;
                    if (k == 0) texla_cg_workspace_destroy(ctx, &ws);
                    if (k == 1) texla_lcp_workspace_destroy(ctx, &lws);
                    if (k == 2) texla_lcp_op_workspace_destroy(ctx, &ows);
                    const char *msg = texla_error_message(ctx);
                    size_t wl = strlen(wn[k]);
                    CHECK(lost_errors == 1 && !strcmp(lost_error, msg) &&
                              !strncmp(msg, wn[k], wl) && !strncmp(msg + wl, ": ", 2) &&
                              strstr(msg, "not current on this thread"),
                          "%s with %s: %d error callback(s), message \"%s\"", wn[k], where,
                          lost_errors, msg);
                }
                CHECK(ws.n == 3 && ws.v[5].id && lws.n == 3 && lws.m[3].id && ows.n == 3 &&
                          ows.v[2].id,
                      "the refused workspace destroys with %s zeroed a workspace (n %d %d %d)",
                      where, ws.n, lws.n, ows.n);
                r = texla_sparse_matvec(ctx, sa, sx, sy);
                CHECK(r == TEXLA_ERR_CONTEXT, "texla_sparse_matvec with %s: %s", where,
                      texla_result_name(r));
                r = texla_sparse_pin(ctx, sa, TEXLA_SPARSE_N, NULL); /* unpin: its form kept */
                CHECK(r == TEXLA_ERR_CONTEXT, "texla_sparse_pin (unpin) with %s: %s", where,
                      texla_result_name(r));
                texla_cg_desc cd = {.max_iter = 2};
                texla_cg_result cr;
                r = texla_cg(ctx, texla_op_sparse(sa), sy, &cd, sx, &cr);
                CHECK(r == TEXLA_ERR_CONTEXT &&
                          strstr(texla_error_message(ctx), "not current on this thread"),
                      "texla_cg with %s: %s: %s", where, texla_result_name(r),
                      texla_error_message(ctx));
                r = texla_ctx_begin(ctx); /* refused, but begun: its end is needed */
                CHECK(r == TEXLA_ERR_CONTEXT, "texla_ctx_begin with %s: %s", where,
                      texla_result_name(r));
                r = texla_ctx_end(ctx);
                CHECK(r == TEXLA_OK, "texla_ctx_end after a refused begin with %s: %s: %s",
                      where, texla_result_name(r), texla_error_message(ctx));
                r = texla_ctx_finish(ctx);
                CHECK(r == TEXLA_ERR_CONTEXT, "texla_ctx_finish with %s: %s", where,
                      texla_result_name(r));
            }
            eglMakeCurrent(h.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, oc);
            int kept = 0;
            for (int i = 0; i < 16; i++) kept += glIsTexture(otex[i]) == GL_TRUE;
            GLint bound = 0;
            glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &bound);
            e = glGetError();
            CHECK(kept == 16 && (GLuint)bound == ovao && e == GL_NO_ERROR,
                  "the other context after texla's refused calls: %d of its 16 textures, vertex "
                  "array %d bound (its own %u), glGetError 0x%04x", kept, bound, ovao, e);
            eglMakeCurrent(h.dpy, h.surf, h.surf, h.ctx);
            gladLoadGL((GLADloadfunc)eglGetProcAddress);
            r = texla_mat_read(ctx, m, y);
            CHECK(r == TEXLA_OK && !memcmp(x, y, sizeof x),
                  "texla_mat_read back in texla's context: %s: %s (the matrix lost?)",
                  texla_result_name(r), texla_error_message(ctx));
            r = texla_mat_add(ctx, m, m, m3);
            if (!r) r = texla_mat_read(ctx, m3, y);
            CHECK(r == TEXLA_OK && y[0] == 2 && y[3] == 8,
                  "texla_mat_add back in texla's context: %s, %g .. %g", texla_result_name(r),
                  y[0], y[3]);
            r = texla_sparse_matvec(ctx, sa, sx, sy);
            if (!r) r = texla_vec_read(ctx, sy, y);
            CHECK(r == TEXLA_OK && y[0] == 1.5f && y[1] == -2.0f && y[2] == 4.0f,
                  "texla_sparse_matvec back in texla's context: %s, %g %g %g",
                  texla_result_name(r), y[0], y[1], y[2]);
            texla_vec_info wi;
            r = texla_vec_info_get(ctx, ws.v[5], &wi);
            CHECK(r == TEXLA_OK && wi.n == 3, "the CG workspace back in texla's context: %s",
                  texla_result_name(r));
            texla_cg_workspace_destroy(ctx, &ws);
            CHECK(ws.n == 0 && !ws.v[0].id && !ws.s[4].id,
                  "texla_cg_workspace_destroy in texla's context left n %d", ws.n);
            texla_lcp_workspace_destroy(ctx, &lws);
            texla_lcp_op_workspace_destroy(ctx, &ows);
            CHECK(lws.n == 0 && !lws.m[3].id && ows.n == 0 && !ows.v[2].id,
                  "the LCP workspace destroys in texla's context left n %d %d", lws.n, ows.n);
            /* texla_ctx_destroy in the other context: host memory freed (the sanitizer's leak
             * check), none of that context's objects deleted (texla's stay with its own) */
            eglMakeCurrent(h.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, oc);
            texla_ctx_destroy(ctx);
            ctx = NULL;
            kept = 0;
            for (int i = 0; i < 16; i++) kept += glIsTexture(otex[i]) == GL_TRUE;
            e = glGetError();
            CHECK(kept == 16 && glIsVertexArray(ovao) && e == GL_NO_ERROR,
                  "texla_ctx_destroy in another context deleted its objects: %d of 16 textures "
                  "left, glGetError 0x%04x", kept, e);
            glDeleteTextures(16, otex);
            glDeleteVertexArrays(1, &ovao);
            eglMakeCurrent(h.dpy, h.surf, h.surf, h.ctx);
            gladLoadGL((GLADloadfunc)eglGetProcAddress);
        } else if (ctx) {
            CHECK(r == TEXLA_OK, "texla_mat_make (host mode): %s", texla_result_name(r));
            check_skip("another context current", "no second context could be made here");
        }
        if (ctx) {
            texla_cg_workspace_destroy(ctx, &ws);
            texla_lcp_workspace_destroy(ctx, &lws);
            texla_lcp_op_workspace_destroy(ctx, &ows);
            texla_mat_destroy(ctx, m);
            texla_mat_destroy(ctx, m3);
            texla_sparse_destroy(ctx, sa);
            texla_vec_destroy(ctx, sx), texla_vec_destroy(ctx, sy);
            texla_ctx_destroy(ctx);
        }
        if (oc != EGL_NO_CONTEXT) eglDestroyContext(h.dpy, oc);
        while (glGetError() != GL_NO_ERROR) {}
        dbg_errors = 0;
    }

    /* two texla contexts in two fresh GL contexts: their vertex arrays likely have the same
     * name (each the first of its context), so only the marks (from each texla_ctx's tag) tell
     * them apart; each refuses the other's GL context and works in its own */
    {
        EGLContext c[2];
        for (int i = 0; i < 2; i++) c[i] = extra_context(&h, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT);
        texla_ctx *t[2] = {NULL, NULL};
        texla_mat mm[2] = {{0}, {0}};
        float v[2][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}}, y[4];
        int ok = c[0] != EGL_NO_CONTEXT && c[1] != EGL_NO_CONTEXT;
        for (int i = 0; i < 2 && ok; i++) {
            ok = eglMakeCurrent(h.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, c[i]);
            texla_ctx_desc desc = {0};
            desc.host_getproc = (texla_getproc_fn)eglGetProcAddress;
            texla_result r = ok ? texla_ctx_make(&desc, &t[i]) : TEXLA_ERR_CONTEXT;
            if (!r) r = texla_mat_make(t[i], 2, 2, v[i], &mm[i]);
            CHECK(r == TEXLA_OK, "texla context %d of two in fresh GL contexts: %s: %s", i,
                  texla_result_name(r), texla_error_message(t[i]));
            ok = ok && !r;
        }
        for (int cur = 0; cur < 2 && ok; cur++) {
            eglMakeCurrent(h.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, c[cur]);
            for (int i = 0; i < 2; i++) {
                texla_result r = texla_mat_read(t[i], mm[i], y);
                if (i == cur)
                    CHECK(r == TEXLA_OK && !memcmp(y, v[i], sizeof y),
                          "texla context %d in its own GL context: %s", i, texla_result_name(r));
                else
                    CHECK(r == TEXLA_ERR_CONTEXT,
                          "texla context %d with the other's GL context current: %s (the same "
                          "vertex array name, another mark)", i, texla_result_name(r));
            }
        }
        for (int i = 0; i < 2; i++) {
            if (c[i] == EGL_NO_CONTEXT) continue;
            eglMakeCurrent(h.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, c[i]);
            if (t[i]) texla_mat_destroy(t[i], mm[i]), texla_ctx_destroy(t[i]);
        }
        if (c[0] == EGL_NO_CONTEXT || c[1] == EGL_NO_CONTEXT)
            check_skip("two texla contexts", "no second GL context could be made here");
        eglMakeCurrent(h.dpy, h.surf, h.surf, h.ctx);
        gladLoadGL((GLADloadfunc)eglGetProcAddress);
        for (int i = 0; i < 2; i++)
            if (c[i] != EGL_NO_CONTEXT) eglDestroyContext(h.dpy, c[i]);
        while (glGetError() != GL_NO_ERROR) {}
        dbg_errors = 0;
    }

    take(&st_now);
    compare(&st_sentinel, &st_now, "at the end, against the sentinel state");
    check_host_objects(&o);
    e = glGetError();
    CHECK(e == GL_NO_ERROR, "glGetError() at the end is 0x%04x", e);
    if (dbg_on) {
        glDisable(GL_DEBUG_OUTPUT);
        glDebugMessageCallback(NULL, NULL);
    }
    delete_host_objects(&o);
    host_destroy(&h);
}
