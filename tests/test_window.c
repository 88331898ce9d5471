/* test_window.c - texla inside a host application's window (GLFW, under Xvfb in the tests).
 *
 * A small GLFW program the way a real host would write one: it makes its own window and
 * GL 3.3+ core context, loads GL with its own glad, sets up its own program, vertex array,
 * texture and buffer, and then hands the context to texla (host mode). texla computes a
 * 64 x 64 "F" image, C = A*B + F, on the GPU; the app reads it back and compares with a
 * float64 CPU reference, then draws texla's texture with its own shader (decoding the 4x1
 * packing itself), reads the window back and compares pixel by pixel, orientation included.
 * Around every texla call the app's GL state must be exactly as the app left it.
 *
 * No display (glfwInit fails) or no GL 3.3 core context: counted as skipped, never a crash.
 * TEXLA_SCREENSHOT=file.ppm writes what the window shows as a binary PPM. */
#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WIN_W 256
#define WIN_H 256
#define N 64  /* the image is N x N elements */
#define K 13  /* inner dimension of A*B: not a multiple of 4 on purpose */
#define TOL_LEVELS 2 /* 8-bit quantization of the window: +-2 levels */

/* ---- GLFW errors: kept for the skip reason, not printed while probing versions ---- */

static char glfw_error[512];

static void on_glfw_error(int code, const char *desc) {
    snprintf(glfw_error, sizeof glfw_error, "GLFW error 0x%x: %s", code, desc);
}

static void on_texla_error(texla_result code, const char *message, void *user) {
    (void)user;
    printf("texla error %s: %s\n", texla_result_name(code), message);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the app's own drawing: a fullscreen triangle that samples texla's texture ---- */

static const char *vs_src =
    "#version 330 core\n"
    "void main() {\n"
    "    vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));\n"
    "    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);\n"
    "}\n";

/* Element (i, j) of a rows x cols matrix is texel (x = j, y = i / 4), channel i % 4.
 * Row 0 is drawn at the top of the window; each element covers a block of pixels. */
static const char *fs_src =
    "#version 330 core\n"
    "uniform sampler2D u_mat;\n"
    "uniform ivec2 u_shape; /* rows, cols */\n"
    "uniform ivec2 u_size;  /* framebuffer width, height */\n"
    "out vec4 o_color;\n"
    "void main() {\n"
    "    ivec2 p = ivec2(gl_FragCoord.xy);\n"
    "    int ytop = u_size.y - 1 - p.y;\n"
    "    int i = ytop * u_shape.x / u_size.y;\n"
    "    int j = p.x * u_shape.y / u_size.x;\n"
    "    vec4 t = texelFetch(u_mat, ivec2(j, i / 4), 0);\n"
    "    float v = clamp(t[i % 4], 0.0, 1.0);\n"
    "    o_color = vec4(v, v, v, 1.0);\n"
    "}\n";

static GLuint compile(GLenum type, const char *src, const char *what) {
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[2048] = "";
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        printf("app %s shader: %s\n", what, log);
        glDeleteShader(s);
        return 0;
    }
    return s;
}

static GLuint make_program(void) {
    GLuint vs = compile(GL_VERTEX_SHADER, vs_src, "vertex");
    GLuint fs = compile(GL_FRAGMENT_SHADER, fs_src, "fragment");
    GLuint p = 0;
    if (vs && fs) {
        p = glCreateProgram();
        glAttachShader(p, vs);
        glAttachShader(p, fs);
        glLinkProgram(p);
        GLint ok = 0;
        glGetProgramiv(p, GL_LINK_STATUS, &ok);
        if (!ok) {
            char log[2048] = "";
            glGetProgramInfoLog(p, sizeof log, NULL, log);
            printf("app program: %s\n", log);
            glDeleteProgram(p);
            p = 0;
        }
    }
    if (vs) glDeleteShader(vs);
    if (fs) glDeleteShader(fs);
    return p;
}

/* ---- the app's GL state, as glGet sees it ---- */

typedef struct app_state {
    GLint program, vao, viewport[4], draw_fbo, read_fbo, active_tex, tex2d, array_buf;
    GLint blend_src_rgb, blend_dst_rgb, blend_src_a, blend_dst_a, pack_align;
    GLboolean blend, depth_test;
    GLfloat clear_color[4];
} app_state;

static void state_get(app_state *s) {
    memset(s, 0, sizeof *s);
    glGetIntegerv(GL_CURRENT_PROGRAM, &s->program);
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &s->vao);
    glGetIntegerv(GL_VIEWPORT, s->viewport);
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &s->draw_fbo);
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &s->read_fbo);
    glGetIntegerv(GL_ACTIVE_TEXTURE, &s->active_tex);
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &s->tex2d);
    glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &s->array_buf);
    glGetIntegerv(GL_BLEND_SRC_RGB, &s->blend_src_rgb);
    glGetIntegerv(GL_BLEND_DST_RGB, &s->blend_dst_rgb);
    glGetIntegerv(GL_BLEND_SRC_ALPHA, &s->blend_src_a);
    glGetIntegerv(GL_BLEND_DST_ALPHA, &s->blend_dst_a);
    glGetIntegerv(GL_PACK_ALIGNMENT, &s->pack_align);
    s->blend = glIsEnabled(GL_BLEND);
    s->depth_test = glIsEnabled(GL_DEPTH_TEST);
    glGetFloatv(GL_COLOR_CLEAR_VALUE, s->clear_color);
}

/* Compares the state now with the state the app set (want); after names the texla call. */
static void state_check(const app_state *want, const char *after) {
    app_state s;
    state_get(&s);
    CHECK(s.program == want->program, "after %s: program %d, app's %d", after, s.program,
          want->program);
    CHECK(s.vao == want->vao, "after %s: vertex array %d, app's %d", after, s.vao, want->vao);
    CHECK(memcmp(s.viewport, want->viewport, sizeof s.viewport) == 0,
          "after %s: viewport %d %d %d %d, app's %d %d %d %d", after, s.viewport[0], s.viewport[1],
          s.viewport[2], s.viewport[3], want->viewport[0], want->viewport[1], want->viewport[2],
          want->viewport[3]);
    CHECK(s.draw_fbo == want->draw_fbo && s.read_fbo == want->read_fbo,
          "after %s: framebuffers draw %d read %d, app's %d %d", after, s.draw_fbo, s.read_fbo,
          want->draw_fbo, want->read_fbo);
    CHECK(s.blend == want->blend, "after %s: blend enable %d, app's %d", after, s.blend,
          want->blend);
    CHECK(s.blend_src_rgb == want->blend_src_rgb && s.blend_dst_rgb == want->blend_dst_rgb &&
              s.blend_src_a == want->blend_src_a && s.blend_dst_a == want->blend_dst_a,
          "after %s: blend func 0x%x 0x%x 0x%x 0x%x, app's 0x%x 0x%x 0x%x 0x%x", after,
          s.blend_src_rgb, s.blend_dst_rgb, s.blend_src_a, s.blend_dst_a, want->blend_src_rgb,
          want->blend_dst_rgb, want->blend_src_a, want->blend_dst_a);
    CHECK(s.depth_test == want->depth_test, "after %s: depth test %d, app's %d", after,
          s.depth_test, want->depth_test);
    CHECK(s.active_tex == want->active_tex && s.tex2d == want->tex2d,
          "after %s: active texture 0x%x binding %d, app's 0x%x %d", after, s.active_tex, s.tex2d,
          want->active_tex, want->tex2d);
    CHECK(s.array_buf == want->array_buf, "after %s: array buffer %d, app's %d", after,
          s.array_buf, want->array_buf);
    CHECK(s.pack_align == want->pack_align, "after %s: pack alignment %d, app's %d", after,
          s.pack_align, want->pack_align);
    CHECK(memcmp(s.clear_color, want->clear_color, sizeof s.clear_color) == 0,
          "after %s: clear colour %g %g %g %g, app's %g %g %g %g", after, s.clear_color[0],
          s.clear_color[1], s.clear_color[2], s.clear_color[3], want->clear_color[0],
          want->clear_color[1], want->clear_color[2], want->clear_color[3]);
}

/* ---- the test image ---- */

/* An "F" with no symmetry: background 0.15, strokes 0.85; flips and transposes move it. */
static float f_pattern(int i, int j) {
    int stem = j >= 16 && j < 24 && i >= 8 && i < 56;
    int top = i >= 8 && i < 16 && j >= 16 && j < 48;
    int mid = i >= 26 && i < 32 && j >= 16 && j < 40;
    return stem || top || mid ? 0.85f : 0.15f;
}

static int grey_of(double v) {
    if (v < 0) v = 0;
    if (v > 1) v = 1;
    return (int)lround(v * 255.0);
}

/* Element shown at window pixel (x, ytop), ytop counted from the top: the shader's mapping. */
static void elem_at(int x, int ytop, int w, int h, int *i, int *j) {
    *i = ytop * N / h;
    *j = x * N / w;
}

typedef enum { VIEW_AS_IS, VIEW_FLIP_V, VIEW_FLIP_H, VIEW_ROT180, VIEW_TRANSPOSE } view_kind;
static const char *view_names[] = {"as is", "flipped vertically", "flipped horizontally",
                                   "rotated 180", "transposed"};

/* Counts pixels of the window image (rows from the top, grey in the red channel) that differ
 * by more than TOL_LEVELS from the expected image seen through view v; *worst: largest diff. */
static int count_mismatch(const unsigned char *rgba_top, int w, int h, const double *c,
                          view_kind v, int *worst) {
    int bad = 0;
    *worst = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int i, j;
            elem_at(x, y, w, h, &i, &j);
            switch (v) {
            case VIEW_AS_IS: break;
            case VIEW_FLIP_V: i = N - 1 - i; break;
            case VIEW_FLIP_H: j = N - 1 - j; break;
            case VIEW_ROT180: i = N - 1 - i; j = N - 1 - j; break;
            case VIEW_TRANSPOSE: { int t = i; i = j; j = t; } break;
            }
            int want = grey_of(c[(size_t)i * N + j]);
            const unsigned char *p = rgba_top + ((size_t)y * w + x) * 4;
            int d = 0;
            for (int ch = 0; ch < 3; ch++) {
                int e = abs((int)p[ch] - want);
                if (e > d) d = e;
            }
            if (d > *worst) *worst = d;
            if (d > TOL_LEVELS) bad++;
        }
    return bad;
}

static void write_ppm(const char *path, const unsigned char *rgba_top, int w, int h) {
    FILE *f = fopen(path, "wb");
    if (!f) {
        printf("cannot write screenshot %s\n", path);
        return;
    }
    fprintf(f, "P6\n%d %d\n255\n", w, h);
    for (size_t k = 0; k < (size_t)w * h; k++) fwrite(rgba_top + k * 4, 1, 3, f);
    fclose(f);
    printf("screenshot: %s (%d x %d)\n", path, w, h);
}

/* ---- the test ---- */

static GLFWwindow *open_window(int *major, int *minor) {
    static const int versions[][2] = {{4, 5}, {4, 4}, {4, 3}, {4, 2}, {4, 1}, {4, 0}, {3, 3}};
    for (size_t v = 0; v < sizeof versions / sizeof versions[0]; v++) {
        glfwDefaultWindowHints();
        glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_API);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, versions[v][0]);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, versions[v][1]);
        glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
        glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
        glfwWindowHint(GLFW_RESIZABLE, GLFW_FALSE);
        glfwWindowHint(GLFW_DOUBLEBUFFER, GLFW_TRUE);
        glfwWindowHint(GLFW_DEPTH_BITS, 24);
        glfwWindowHint(GLFW_SAMPLES, 0);
        GLFWwindow *w = glfwCreateWindow(WIN_W, WIN_H, "texla test-window", NULL, NULL);
        if (w) {
            *major = versions[v][0];
            *minor = versions[v][1];
            return w;
        }
    }
    return NULL;
}

static void run_window_test(void) {
    if (!glfwInit()) {
        char why[600];
        snprintf(why, sizeof why, "glfwInit failed (no display?): %s",
                 glfw_error[0] ? glfw_error : "no GLFW error message");
        check_skip("window", why);
        return;
    }
    int req_major = 0, req_minor = 0;
    GLFWwindow *win = open_window(&req_major, &req_minor);
    if (!win) {
        char why[600];
        snprintf(why, sizeof why, "no window with a GL 3.3+ core context: %s", glfw_error);
        check_skip("window", why);
        glfwTerminate();
        return;
    }
    glfwMakeContextCurrent(win);
    int glver = gladLoadGL((GLADloadfunc)glfwGetProcAddress);
    CHECK(glver != 0, "the app's glad could not load GL");
    if (!glver) goto done_window;
    printf("window: GL %d.%d core (asked for %d.%d), %s, %s\n", GLAD_VERSION_MAJOR(glver),
           GLAD_VERSION_MINOR(glver), req_major, req_minor,
           (const char *)glGetString(GL_RENDERER), (const char *)glGetString(GL_VERSION));

    int fbw = 0, fbh = 0;
    glfwGetFramebufferSize(win, &fbw, &fbh);
    CHECK(fbw > 0 && fbh > 0, "framebuffer size %d x %d", fbw, fbh);
    if (fbw <= 0 || fbh <= 0) goto done_window;

    /* ---- the app's own objects and state, set before texla exists ---- */
    GLuint prog = make_program();
    CHECK(prog != 0, "the app's shader program failed to build");
    if (!prog) goto done_window;
    GLuint vao = 0, vbo = 0, app_tex = 0;
    glGenVertexArrays(1, &vao);
    glGenBuffers(1, &vbo);
    glGenTextures(1, &app_tex);
    const float one_texel[4] = {1, 0, 1, 1};
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_2D, app_tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, 1, 1, 0, GL_RGBA, GL_FLOAT, one_texel);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, 64, NULL, GL_STATIC_DRAW);
    glUseProgram(prog);
    glUniform1i(glGetUniformLocation(prog, "u_mat"), 2);
    glUniform2i(glGetUniformLocation(prog, "u_shape"), N, N);
    glUniform2i(glGetUniformLocation(prog, "u_size"), fbw, fbh);
    glBindVertexArray(vao);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, fbw, fbh);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glClearColor(0.25f, 0.5f, 0.75f, 1.0f);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    CHECK(glGetError() == GL_NO_ERROR, "GL error setting up the app");
    app_state want;
    state_get(&want);

    /* ---- texla in the app's context ---- */
    texla_ctx *ctx = NULL;
    texla_ctx_desc desc = {0};
    desc.host_getproc = (texla_getproc_fn)glfwGetProcAddress;
    desc.error_cb = on_texla_error;
    texla_result r = texla_ctx_make(&desc, &ctx);
    if (r == TEXLA_ERR_UNSUPPORTED) {
        char why[600];
        snprintf(why, sizeof why, "texla in this context: %s", texla_error_message(NULL));
        check_skip("window", why);
        goto done_app;
    }
    CHECK(r == TEXLA_OK && ctx, "texla_ctx_make (host): %s: %s", texla_result_name(r),
          texla_error_message(NULL));
    if (r != TEXLA_OK || !ctx) goto done_app;
    state_check(&want, "texla_ctx_make");

    texla_info info;
    CHECK(texla_ctx_info(ctx, &info) == TEXLA_OK, "texla_ctx_info: %s", texla_error_message(ctx));
    CHECK(info.host == 1, "texla_ctx_info: host %d, want 1", info.host);
    printf("texla: %s, GL %d.%d, platform \"%s\"\n", info.renderer, info.gl_major, info.gl_minor,
           info.platform);
    state_check(&want, "texla_ctx_info");

    uint64_t seed = check_seed();
    check_srand(seed);
    static float a[N * K], b[K * N], f[N * N], p[N * N], c[N * N], half[N * N];
    static double pref[N * N], cref[N * N];
    for (int k = 0; k < N * K; k++) a[k] = (float)(0.25 * check_rand());
    for (int k = 0; k < K * N; k++) b[k] = (float)(0.025 * check_rand());
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) f[i * N + j] = f_pattern(i, j);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int k = 0; k < K; k++) s += (double)a[i * K + k] * b[k * N + j];
            pref[i * N + j] = s;
            cref[i * N + j] = s + f[i * N + j];
        }

    double t0 = now_s();
    texla_mat ma = {0}, mb = {0}, mf = {0}, mp = {0}, mc = {0}, mh = {0};
    /* Every call runs with the app's blending, depth test, program and VAO in place: texla must
     * neither be disturbed by them nor change them. */
#define TCALL(call)                                                                         \
    do {                                                                                    \
        texla_result rr_ = (call);                                                          \
        CHECK(rr_ == TEXLA_OK, "%s: %s: %s", #call, texla_result_name(rr_),                 \
              texla_error_message(ctx));                                                    \
        state_check(&want, #call);                                                          \
    } while (0)
    TCALL(texla_mat_make(ctx, N, K, a, &ma));
    TCALL(texla_mat_make(ctx, K, N, b, &mb));
    TCALL(texla_mat_make(ctx, N, N, f, &mf));
    TCALL(texla_mat_make(ctx, N, N, NULL, &mp));
    TCALL(texla_mat_make(ctx, N, N, NULL, &mc));
    TCALL(texla_mat_matmul(ctx, ma, mb, mp));
    TCALL(texla_mat_add(ctx, mp, mf, mc));
    TCALL(texla_mat_read(ctx, mp, p));
    TCALL(texla_mat_read(ctx, mc, c));
    texla_mat_info mi = {0};
    TCALL(texla_mat_info_get(ctx, mc, &mi));
    double t1 = now_s();
    printf("texla: C = A*B + F (%dx%d * %dx%d) made, computed and read back in %.1f ms\n", N, K,
           K, N, (t1 - t0) * 1e3);

    /* numerics: ||P - A*B|| <= gamma_K ||A|| ||B||; C = P + F adds one rounding per element */
    double na = check_norm_f(a, (size_t)N * K), nb = check_norm_f(b, (size_t)K * N);
    double gamma = K * CHECK_U / (1 - K * CHECK_U);
    double ep = 0, ec = 0;
    for (int k = 0; k < N * N; k++) {
        ep += ((double)p[k] - pref[k]) * ((double)p[k] - pref[k]);
        ec += ((double)c[k] - cref[k]) * ((double)c[k] - cref[k]);
    }
    ep = sqrt(ep);
    ec = sqrt(ec);
    double bound_p = gamma * na * nb, bound_c = bound_p + CHECK_U * check_norm_d(cref, N * N);
    printf("A*B: ||err|| %.3g (bound gamma_K ||A|| ||B|| = %.3g); A*B+F: ||err|| %.3g "
           "(bound %.3g), relative %.3g\n",
           ep, bound_p, ec, bound_c, check_relerr(c, cref, N * N));
    CHECK(ep <= bound_p, "A*B: ||err|| %.3g > %.3g", ep, bound_p);
    CHECK(ec <= bound_c, "A*B+F: ||err|| %.3g > %.3g", ec, bound_c);
    CHECK(mi.rows == N && mi.cols == N && mi.tex_width == N && mi.tex_height == N / 4,
          "texla_mat_info_get: %d x %d, texture %d x %d; want %d x %d, %d x %d", mi.rows, mi.cols,
          mi.tex_width, mi.tex_height, N, N, N, N / 4);
    CHECK(mi.texture != 0 && glIsTexture(mi.texture), "texla_mat_info_get: texture %u",
          (unsigned)mi.texture);

    /* ---- draw texla's texture with the app's own program, VAO and state ---- */
    static double cgpu[N * N];
    for (int k = 0; k < N * N; k++) cgpu[k] = c[k];
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_2D, mi.texture);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    CHECK(glGetError() == GL_NO_ERROR, "GL error drawing the result");

    size_t npix = (size_t)fbw * fbh;
    unsigned char *px = malloc(npix * 4), *top = malloc(npix * 4);
    CHECK(px && top, "out of memory for %d x %d pixels", fbw, fbh);
    if (px && top) {
        glReadBuffer(GL_BACK);
        glReadPixels(0, 0, fbw, fbh, GL_RGBA, GL_UNSIGNED_BYTE, px);
        CHECK(glGetError() == GL_NO_ERROR, "GL error reading the window back");
        for (int y = 0; y < fbh; y++) /* GL rows start at the bottom; images at the top */
            memcpy(top + (size_t)y * fbw * 4, px + (size_t)(fbh - 1 - y) * fbw * 4,
                   (size_t)fbw * 4);
        const char *shot = getenv("TEXLA_SCREENSHOT");
        if (shot && *shot) write_ppm(shot, top, fbw, fbh);

        /* the window shows C (the GPU's values, and the CPU's within quantization) as is */
        int worst = 0;
        int bad = count_mismatch(top, fbw, fbh, cgpu, VIEW_AS_IS, &worst);
        CHECK(bad == 0, "window vs texla's C: %d of %zu pixels off by more than %d levels "
              "(worst %d)", bad, npix, TOL_LEVELS, worst);
        printf("window vs texla's C: worst difference %d levels\n", worst);
        bad = count_mismatch(top, fbw, fbh, cref, VIEW_AS_IS, &worst);
        CHECK(bad == 0, "window vs CPU reference: %d of %zu pixels off by more than %d levels "
              "(worst %d)", bad, npix, TOL_LEVELS, worst);
        /* ... and in the right orientation: no flip or transpose of it would also pass */
        for (int v = VIEW_FLIP_V; v <= VIEW_TRANSPOSE; v++) {
            bad = count_mismatch(top, fbw, fbh, cref, (view_kind)v, &worst);
            CHECK(bad >= (int)(npix / 20), "the window also matches the image %s (%d of %zu "
                  "pixels differ)", view_names[v], bad, npix);
        }
        /* spot checks at the corners of the F: its top-left is at element (8, 16) */
        int i0, j0;
        elem_at(16 * fbw / N + 1, 8 * fbh / N + 1, fbw, fbh, &i0, &j0);
        CHECK(i0 == 8 && j0 == 16, "pixel mapping: element (%d, %d), want (8, 16)", i0, j0);
        const unsigned char *tl = top + ((size_t)(8 * fbh / N + 1) * fbw + 16 * fbw / N + 1) * 4;
        const unsigned char *tr = top + ((size_t)(8 * fbh / N + 1) * fbw + (size_t)fbw - 2) * 4;
        CHECK(tl[0] > 150 && tr[0] < 100, "F stroke at the top left (%d) should be bright, "
              "the top right corner (%d) dark", tl[0], tr[0]);
    }
    free(px);
    free(top);

    /* ---- texla again, now with the app's drawing state (texla's texture on unit 2) ---- */
    state_get(&want);
    TCALL(texla_mat_make(ctx, N, N, NULL, &mh));
    TCALL(texla_mat_scale(ctx, mc, texla_host(0.5f), mh));
    TCALL(texla_mat_read(ctx, mh, half));
    int exact = 1;
    for (int k = 0; k < N * N; k++) exact &= half[k] == 0.5f * c[k];
    CHECK(exact, "texla_mat_scale(C, 0.5) after the app's draw is not exactly C/2");
#undef TCALL

    glfwSwapBuffers(win);
    glfwPollEvents();
    CHECK(glGetError() == GL_NO_ERROR, "GL error after swapping");

    /* texla's objects go with texla_ctx_destroy; the app's stay */
    glBindTexture(GL_TEXTURE_2D, app_tex);
    state_get(&want);
    texla_mat_destroy(ctx, ma);
    texla_mat_destroy(ctx, mb);
    texla_mat_destroy(ctx, mf);
    texla_mat_destroy(ctx, mp);
    texla_mat_destroy(ctx, mh);
    state_check(&want, "texla_mat_destroy");
    texla_ctx_destroy(ctx); /* mc still alive: destroy must delete it */
    state_check(&want, "texla_ctx_destroy");
    CHECK(!glIsTexture(mi.texture), "texture %u of a matrix outlived texla_ctx_destroy",
          (unsigned)mi.texture);
    CHECK(glIsProgram(prog) && glIsVertexArray(vao) && glIsTexture(app_tex) && glIsBuffer(vbo),
          "texla_ctx_destroy deleted an object of the app");
    CHECK(glGetError() == GL_NO_ERROR, "GL error after texla_ctx_destroy");

done_app:
    glBindVertexArray(0);
    glUseProgram(0);
    glDeleteVertexArrays(1, &vao);
    glDeleteBuffers(1, &vbo);
    glDeleteTextures(1, &app_tex);
    glDeleteProgram(prog);
done_window:
    glfwMakeContextCurrent(NULL);
    glfwDestroyWindow(win);
    glfwTerminate();
}

int main(void) {
    double t0 = now_s();
    glfwSetErrorCallback(on_glfw_error);
    run_window_test();
    printf("test-window: %.2f s\n", now_s() - t0);
    return check_summary();
}
