/* egl_context.c - texla's own headless context: EGL with no window system.
 * Order: EGL device platform (hardware devices, then software ones), Mesa's surfaceless
 * platform, then the default display; core profile, 4.6 down to 3.3. libEGL.so.1 is opened
 * at run time by glad's EGL loader, so applications need not link -lEGL. want: 0 any device,
 * N: only EGL device N-1; vmax: cap on the context version (e.g. 33), 0 none. */
#include "gl/gl.h"

#include <glad/egl.h>
#include <stdio.h>
#include <string.h>

#ifndef EGL_PLATFORM_SURFACELESS_MESA
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#endif
#ifndef EGL_PLATFORM_DEVICE_EXT
#define EGL_PLATFORM_DEVICE_EXT 0x313F
#endif
#ifndef EGL_NO_CONFIG_KHR
#define EGL_NO_CONFIG_KHR ((EGLConfig)0)
#endif

static const char *egl_err(void) {
    switch (eglGetError()) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    default: return "EGL error";
    }
}

static int has_ext(const char *list, const char *name) {
    size_t n = strlen(name);
    for (const char *p = list; p && (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    return 0;
}

static texla_glproc egl_getproc(const char *name) { return (texla_glproc)eglGetProcAddress(name); }
texla_getproc_fn texla__egl_getproc(void) { return egl_getproc; }

/* Appends to the attempt log so a failure explains every path tried. */
static void note(char *log, size_t cap, const char *fmt, const char *a, const char *b) {
    size_t len = strlen(log);
    if (len + 1 < cap) snprintf(log + len, cap - len, fmt, a, b);
}

/* Initialises dpy and makes the highest core context current on it; 0 on failure. */
static int try_display(texla__gl *g, int vmax, EGLDisplay dpy, const char *what, char *log,
                       size_t cap) {
    EGLint maj = 0, min = 0;
    if (dpy == EGL_NO_DISPLAY) {
        note(log, cap, "%s: no display (%s); ", what, egl_err());
        return 0;
    }
    if (!eglInitialize(dpy, &maj, &min)) {
        note(log, cap, "%s: eglInitialize failed (%s); ", what, egl_err());
        return 0;
    }
    gladLoaderLoadEGL(dpy); /* display extensions (and EGL 1.4's calls) */
    /* another context current: current again when texla_ctx_make returns */
    texla__egl_save_current(g);
    const char *dext = eglQueryString(dpy, EGL_EXTENSIONS);
    if (!eglBindAPI(EGL_OPENGL_API)) {
        note(log, cap, "%s: no desktop OpenGL (%s); ", what, egl_err());
        return 0;
    }
    EGLConfig cfg = EGL_NO_CONFIG_KHR;
    EGLint n = 0;
    int pbuffer_ok = 0;
    const EGLint pb[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                         EGL_NONE};
    const EGLint any[] = {EGL_SURFACE_TYPE, EGL_DONT_CARE, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                          EGL_NONE};
    if (eglChooseConfig(dpy, pb, &cfg, 1, &n) && n > 0) {
        pbuffer_ok = 1;
    } else if (!(eglChooseConfig(dpy, any, &cfg, 1, &n) && n > 0)) {
        if (!has_ext(dext, "EGL_KHR_no_config_context")) {
            note(log, cap, "%s: no EGLConfig for OpenGL (%s); ", what, egl_err());
            return 0;
        }
        cfg = EGL_NO_CONFIG_KHR;
    }
    static const int vers[] = {46, 45, 44, 43, 42, 41, 40, 33};
    EGLContext c = EGL_NO_CONTEXT;
    int ver = 0;
    for (size_t i = 0; i < sizeof vers / sizeof vers[0] && c == EGL_NO_CONTEXT; i++) {
        if (vmax && vers[i] > vmax) continue;
        const EGLint ca[] = {EGL_CONTEXT_MAJOR_VERSION, vers[i] / 10,
                             EGL_CONTEXT_MINOR_VERSION, vers[i] % 10,
                             EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                             EGL_CONTEXT_OPENGL_DEBUG, g->debug ? EGL_TRUE : EGL_FALSE,
                             EGL_NONE};
        c = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ca);
        ver = vers[i];
    }
    if (c == EGL_NO_CONTEXT) {
        note(log, cap, "%s: no core context 4.6..3.3 (%s); ", what, egl_err());
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
        note(log, cap, "%s: cannot make the context current (%s); ", what, egl_err());
        if (s != EGL_NO_SURFACE) eglDestroySurface(dpy, s);
        eglDestroyContext(dpy, c);
        return 0;
    }
    g->egl_dpy = dpy;
    g->egl_ctx = c;
    g->egl_surf = s;
    snprintf(g->info.platform, sizeof g->info.platform, "%s, core %d.%d requested", what,
             ver / 10, ver % 10);
    return 1;
}

texla_result texla__egl_make(texla__gl *g, int want, int vmax) {
    char log[2048] = "";
    if (!gladLoaderLoadEGL(EGL_NO_DISPLAY))
        return texla__glfail(g, TEXLA_ERR_CONTEXT,
                           "headless context: libEGL.so.1 could not be loaded (install libegl1, "
                           "or use host mode with texla_ctx_desc.host_getproc)");
    const char *cext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (!cext) eglGetError(); /* EGL 1.4 without client extensions: clear the error */
    if (has_ext(cext, "EGL_EXT_platform_device") && eglQueryDevicesEXT && eglGetPlatformDisplayEXT) {
        EGLDeviceEXT devs[16];
        EGLint ndev = 0;
        if (!eglQueryDevicesEXT(16, devs, &ndev)) ndev = 0;
        if (want > ndev)
            return texla__glfail(g, TEXLA_ERR_CONTEXT,
                               "headless context: EGL device %d asked for, %d found", want - 1,
                               (int)ndev);
        for (int soft = 0; soft < 2; soft++) /* hardware first */
            for (int i = 0; i < ndev; i++) {
                const char *dx = eglQueryDeviceStringEXT ?
                                 eglQueryDeviceStringEXT(devs[i], EGL_EXTENSIONS) : NULL;
                if (has_ext(dx, "EGL_MESA_device_software") != soft) continue;
                if (want && i != want - 1) continue;
                char what[64];
                snprintf(what, sizeof what, "EGL device %d%s", i, soft ? " (software)" : "");
                EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devs[i], NULL);
                if (try_display(g, vmax, d, what, log, sizeof log)) return TEXLA_OK;
            }
    } else {
        note(log, sizeof log, "%s%s", "EGL_EXT_platform_device: not offered; ", "");
    }
    if (want)
        return texla__glfail(g, TEXLA_ERR_CONTEXT, "headless context: EGL device %d failed: %s",
                           want - 1, log);
    if (has_ext(cext, "EGL_MESA_platform_surfaceless") && eglGetPlatformDisplayEXT) {
        EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA,
                                                (void *)EGL_DEFAULT_DISPLAY, NULL);
        if (try_display(g, vmax, d, "EGL surfaceless (Mesa)", log, sizeof log)) return TEXLA_OK;
    }
    if (try_display(g, vmax, eglGetDisplay(EGL_DEFAULT_DISPLAY), "EGL default display", log,
                    sizeof log))
        return TEXLA_OK;
    return texla__glfail(g, TEXLA_ERR_CONTEXT, "no headless OpenGL 3.3+ core context: %s", log);
}

void texla__egl_save_current(texla__gl *g) {
    if (!eglGetCurrentContext || !eglGetCurrentDisplay || !eglGetCurrentSurface) return;
    EGLContext cur = eglGetCurrentContext();
    if (cur == EGL_NO_CONTEXT || cur == g->egl_ctx) return;
    g->prev_ctx = cur; /* another one (the application's, another texla_ctx's) */
    g->prev_dpy = eglGetCurrentDisplay();
    g->prev_draw = eglGetCurrentSurface(EGL_DRAW);
    g->prev_read = eglGetCurrentSurface(EGL_READ);
}

void texla__egl_make_current(texla__gl *g) {
    if (!g->egl_ctx || eglGetCurrentContext() == g->egl_ctx) return;
    texla__egl_save_current(g);
    eglMakeCurrent(g->egl_dpy, g->egl_surf, g->egl_surf, g->egl_ctx);
}

/* the context texla__egl_make_current found current, current again (a call on this context
 * from inside a call on another, e.g. from its callback, leaves that one as it was) */
void texla__egl_restore(texla__gl *g) {
    if (!g->prev_ctx) return;
    eglMakeCurrent(g->prev_dpy, g->prev_draw, g->prev_read, g->prev_ctx);
    g->prev_ctx = NULL;
}

void texla__egl_destroy(texla__gl *g) {
    if (!g->egl_dpy) return;
    /* another context current (texla_ctx_destroy's leave put it back): it stays current */
    EGLContext cur = eglGetCurrentContext();
    int other = cur != EGL_NO_CONTEXT && cur != g->egl_ctx;
    if (!other) eglMakeCurrent(g->egl_dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (g->egl_surf) eglDestroySurface(g->egl_dpy, g->egl_surf);
    if (g->egl_ctx) eglDestroyContext(g->egl_dpy, g->egl_ctx);
    /* eglTerminate is not called: EGL displays are shared per process, and another
     * context (texla's or the application's) may still use this one. */
    if (!other) eglReleaseThread();
    g->egl_dpy = g->egl_ctx = g->egl_surf = NULL;
}
