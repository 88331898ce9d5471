/* texla-wave: the 2D wave equation simulated with texla and drawn as a lit height field,
 * with no copy of the state to the CPU: the mesh's vertex shader reads texla's state texture.
 *
 *   texla-wave [--size S] [--mode explicit|implicit] [--dt DT] [--cg N]
 *   texla-wave --headless --frames N [--size S] [--mode M] [--dt DT] [--cg N] --png FILE
 *              [--drops K] [--seed X]
 *
 * Window: click or drag to drop; space pause, R reset, E/I explicit/implicit, +/- time step,
 * 1..5 grid 128..2048, P dump the state to PNG, H help. Without a display it runs headless.
 * In a window, --png FILE takes a screenshot after --frames frames and exits (for tests). */
#include <glad/gl.h>

#include "../common/demo.h"
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct opts {
    int size, implicit, cg, headless, frames, drops, width, height;
    unsigned seed;
    float dt;
    const char *png;
} opts;

typedef struct app {
    opts o;
    texla_ctx *ctx;
    wave_sim sim;
    GLFWwindow *win;
    GLuint prog, vao, fbo, color, depth; /* fbo: headless render target */
    GLint u_state, u_nx, u_mesh, u_mvp, u_eye, u_scale;
    int paused, mesh, dumps;
    float angle, residual;
    int residual_pending;
    double last_title;
    int fb_w, fb_h;
    float eye[3], fwd[3], right[3], up[3], fovy;
} app;


/* ---- drawing (the demo's own GL: texla only simulates) ---- */

static const char *VS =
    "#version 330 core\n"
    "uniform sampler2D u_state;  // texla's 2D vector: cell (x, y) is texel (x/2, y/2), channel (x%2) + 2(y%2)\n"
    "uniform int u_nx;           // grid n x n\n"
    "uniform int u_mesh;         // mesh m x m vertices over the grid\n"
    "uniform mat4 u_mvp;\n"
    "uniform float u_scale;      // height scale\n"
    "out vec3 v_pos; out vec3 v_normal; out float v_h;\n"
    "float height(ivec2 c) {\n"
    "    c = clamp(c, ivec2(0), ivec2(u_nx - 1));\n"
    "    return texelFetch(u_state, c / 2, 0)[(c.x & 1) + 2 * (c.y & 1)];\n"
    "}\n"
    "void main() {\n"
    "    const ivec2 corner[6] = ivec2[6](ivec2(0,0), ivec2(1,0), ivec2(1,1), ivec2(0,0), ivec2(1,1), ivec2(0,1));\n"
    "    int quad = gl_VertexID / 6;\n"
    "    ivec2 m = ivec2(quad % (u_mesh - 1), quad / (u_mesh - 1)) + corner[gl_VertexID % 6];\n"
    "    vec2 uv = vec2(m) / float(u_mesh - 1);\n"
    "    ivec2 c = ivec2(uv * float(u_nx - 1) + 0.5);\n"
    "    int st = max(1, (u_nx - 1) / (u_mesh - 1));\n"
    "    float h = height(c);\n"
    "    float dx = (height(c + ivec2(st, 0)) - height(c - ivec2(st, 0))) * u_scale;\n"
    "    float dy = (height(c + ivec2(0, st)) - height(c - ivec2(0, st))) * u_scale;\n"
    "    float cell = 2.0 / float(u_nx - 1) * float(st);\n"
    "    v_normal = normalize(vec3(-dx, 2.0 * cell, -dy));\n"
    "    v_h = h; // NaN or Inf (a blown-up explicit run) shows magenta: keep such vertices finite\n"
    "    float hp = (isnan(h) || isinf(h)) ? 0.0 : clamp(h, -4.0, 4.0);\n"
    "    v_pos = vec3(uv.x * 2.0 - 1.0, hp * u_scale, uv.y * 2.0 - 1.0);\n"
    "    gl_Position = u_mvp * vec4(v_pos, 1.0);\n"
    "}\n";

static const char *FS =
    "#version 330 core\n"
    "uniform vec3 u_eye;\n"
    "in vec3 v_pos; in vec3 v_normal; in float v_h;\n"
    "out vec4 o;\n"
    "void main() {\n"
    "    vec3 n = normalize(v_normal), l = normalize(vec3(0.4, 1.0, 0.3));\n"
    "    vec3 v = normalize(u_eye - v_pos), hv = normalize(l + v);\n"
    "    vec3 base = mix(vec3(0.02, 0.12, 0.30), vec3(0.10, 0.55, 0.75), clamp(0.5 + 3.0 * v_h, 0.0, 1.0));\n"
    "    float diff = max(dot(n, l), 0.0), spec = pow(max(dot(n, hv), 0.0), 64.0);\n"
    "    float fres = pow(1.0 - max(dot(n, v), 0.0), 3.0);\n"
    "    vec3 col = base * (0.25 + 0.75 * diff) + vec3(0.9) * spec + vec3(0.25, 0.35, 0.45) * fres;\n"
    "    if (isnan(v_h) || isinf(v_h)) col = vec3(1.0, 0.0, 1.0);\n"
    "    o = vec4(col, 1.0);\n"
    "}\n";

static int render_init(app *a) {
    a->prog = demo_program("texla-wave", VS, FS);
    if (!a->prog) return -1;
    a->u_state = glGetUniformLocation(a->prog, "u_state");
    a->u_nx = glGetUniformLocation(a->prog, "u_nx");
    a->u_mesh = glGetUniformLocation(a->prog, "u_mesh");
    a->u_mvp = glGetUniformLocation(a->prog, "u_mvp");
    a->u_eye = glGetUniformLocation(a->prog, "u_eye");
    a->u_scale = glGetUniformLocation(a->prog, "u_scale");
    glGenVertexArrays(1, &a->vao);
    if (a->o.headless) { /* an offscreen target: the same drawing, read back at the end */
        if (demo_offscreen(a->o.width, a->o.height, &a->fbo, &a->color, &a->depth)) return -1;
        a->fb_w = a->o.width;
        a->fb_h = a->o.height;
    }
    return 0;
}

/* column-major view-projection of the orbiting camera; keeps its basis for picking */
static void camera(app *a, float mvp[16]) {
    float aspect = (float)a->fb_w / (float)(a->fb_h ? a->fb_h : 1);
    a->fovy = 0.8f;
    a->eye[0] = 2.2f * cosf(a->angle);
    a->eye[1] = 1.2f;
    a->eye[2] = 2.2f * sinf(a->angle);
    for (int i = 0; i < 3; i++) a->fwd[i] = -a->eye[i];
    a->fwd[1] -= 0.2f; /* look slightly below the centre */
    demo_look(a->eye, a->fwd, a->fovy, aspect, 0.05f, 20.0f, a->right, a->up, mvp);
}

static void draw(app *a) {
    float mvp[16];
    camera(a, mvp);
    texla_vec_info vi;
    texla_vec_info_get(a->ctx, wave_sim_state(&a->sim), &vi);
    glBindFramebuffer(GL_FRAMEBUFFER, a->fbo);
    glViewport(0, 0, a->fb_w, a->fb_h);
    glEnable(GL_DEPTH_TEST);
    glClearColor(0.06f, 0.07f, 0.09f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glUseProgram(a->prog);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, vi.texture);
    glUniform1i(a->u_state, 0);
    glUniform1i(a->u_nx, a->sim.n);
    glUniform1i(a->u_mesh, a->mesh);
    glUniformMatrix4fv(a->u_mvp, 1, GL_FALSE, mvp);
    glUniform3fv(a->u_eye, 1, a->eye);
    glUniform1f(a->u_scale, 1.0f);
    glBindVertexArray(a->vao);
    glDrawArrays(GL_TRIANGLES, 0, (a->mesh - 1) * (a->mesh - 1) * 6);
    glBindVertexArray(0);
    glDisable(GL_DEPTH_TEST);
}

/* ---- PNG of the rendered frame (atomic: temporary file, then rename) ---- */


/* ---- interaction ---- */

static void drop_at_cursor(app *a, double mx, double my) {
    int ww, wh;
    glfwGetWindowSize(a->win, &ww, &wh);
    float nx = (float)(2.0 * mx / ww - 1.0), ny = (float)(1.0 - 2.0 * my / wh);
    float t = tanf(a->fovy / 2), aspect = (float)ww / (float)(wh ? wh : 1), d[3];
    for (int i = 0; i < 3; i++) d[i] = a->fwd[i] + nx * t * aspect * a->right[i] + ny * t * a->up[i];
    if (d[1] >= -1e-4f) return; /* not looking down at the water */
    float s = -a->eye[1] / d[1], x = a->eye[0] + s * d[0], z = a->eye[2] + s * d[2];
    if (fabsf(x) > 1 || fabsf(z) > 1) return;
    float gx = (x + 1) / 2 * (a->sim.n - 1), gy = (z + 1) / 2 * (a->sim.n - 1);
    wave_sim_drop(&a->sim, gx, gy, a->sim.n / 64.0f + 1.0f, 0.25f);
}

static void help(void) {
    printf("texla-wave keys: click/drag drop | space pause | R reset | E explicit | I implicit | "
           "+/- time step | 1..5 grid 128..2048 | P dump state PNG | H help\n");
}

static int set_size(app *a, int n) {
    wave_sim_free(&a->sim);
    a->o.size = n;
    a->mesh = n < 512 ? n : 512;
    if (wave_sim_init(&a->sim, a->ctx, n, a->o.dt, a->o.implicit, a->o.cg)) {
        fprintf(stderr, "texla-wave: %s\n", texla_error_message(a->ctx));
        return -1;
    }
    return 0;
}

static void key_cb(GLFWwindow *w, int key, int sc, int action, int mods) {
    (void)sc, (void)mods;
    app *a = glfwGetWindowUserPointer(w);
    if (action != GLFW_PRESS && action != GLFW_REPEAT) return;
    switch (key) {
    case GLFW_KEY_SPACE: a->paused = !a->paused; break;
    case GLFW_KEY_R: wave_sim_reset(&a->sim); break;
    case GLFW_KEY_E: a->sim.implicit = a->o.implicit = 0; break;
    case GLFW_KEY_I: a->sim.implicit = a->o.implicit = 1; break;
    case GLFW_KEY_EQUAL: case GLFW_KEY_KP_ADD:
        a->o.dt *= 1.25f;
        wave_sim_set_dt(&a->sim, a->o.dt);
        break;
    case GLFW_KEY_MINUS: case GLFW_KEY_KP_SUBTRACT:
        a->o.dt /= 1.25f;
        wave_sim_set_dt(&a->sim, a->o.dt);
        break;
    case GLFW_KEY_1: case GLFW_KEY_2: case GLFW_KEY_3: case GLFW_KEY_4: case GLFW_KEY_5:
        set_size(a, 128 << (key - GLFW_KEY_1));
        break;
    case GLFW_KEY_P: {
        char path[64];
        snprintf(path, sizeof path, "wave-state-%d.png", a->dumps++);
        texla_png_desc d = {.map = TEXLA_MAP_DIVERGING};
        if (texla_png_vec(a->ctx, wave_sim_state(&a->sim), path, &d))
            fprintf(stderr, "texla-wave: %s\n", texla_error_message(a->ctx));
        else
            printf("texla-wave: wrote %s\n", path);
        break;
    }
    case GLFW_KEY_H: help(); break;
    case GLFW_KEY_ESCAPE: glfwSetWindowShouldClose(w, 1); break;
    }
}

/* ---- the loop ---- */


static void title(app *a, double fps) {
    char t[256];
    if (a->residual_pending == 0 && a->sim.implicit && !wave_sim_residual_start(&a->sim))
        a->residual_pending = 1;
    if (a->residual_pending && wave_sim_residual_poll(&a->sim, &a->residual) != 0)
        a->residual_pending = 0;
    float r = a->sim.c * a->sim.c * a->sim.dt * a->sim.dt;
    if (a->sim.implicit)
        snprintf(t, sizeof t, "texla-wave | %.0f fps | %dx%d | implicit (CN) | dt %.3f (r %.3f) | "
                 "CG %d it, residual %.1e%s", fps, a->sim.n, a->sim.n, a->sim.dt, r, a->sim.cg_iters,
                 a->residual, a->paused ? " | paused" : "");
    else
        snprintf(t, sizeof t, "texla-wave | %.0f fps | %dx%d | explicit | dt %.3f (r %.3f%s)%s", fps,
                 a->sim.n, a->sim.n, a->sim.dt, r, r > 0.5f ? " > 0.5: unstable" : "",
                 a->paused ? " | paused" : "");
    if (a->win) glfwSetWindowTitle(a->win, t);
    else printf("%s\n", t);
}

/* --drops K: K drops at random places (seeded), spread over the first half of the frames */
static void scheduled_drop(app *a, int frame) {
    if (!a->o.drops) return;
    int every = a->o.frames / 2 / a->o.drops > 0 ? a->o.frames / 2 / a->o.drops : 1;
    if (frame % every || frame / every >= a->o.drops) return;
    float x = (float)(rand() % a->sim.n), y = (float)(rand() % a->sim.n);
    wave_sim_drop(&a->sim, x, y, a->sim.n / 64.0f + 1.0f, 0.25f);
}

static int run_window(app *a) {
    srand(a->o.seed);
    help();
    glfwSetWindowUserPointer(a->win, a);
    glfwSetKeyCallback(a->win, key_cb);
    double last = demo_now_s(), fps_t = last;
    int frames = 0, was_down = 0, total = 0;
    while (!glfwWindowShouldClose(a->win)) {
        glfwPollEvents();
        /* Update */
        if (glfwGetMouseButton(a->win, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS) {
            double mx, my;
            glfwGetCursorPos(a->win, &mx, &my);
            if (!was_down || frames % 4 == 0) drop_at_cursor(a, mx, my);
            was_down = 1;
        } else {
            was_down = 0;
        }
        if (!a->paused) {
            scheduled_drop(a, total);
            if (wave_sim_step(&a->sim)) {
                fprintf(stderr, "texla-wave: %s\n", texla_error_message(a->ctx));
                return 1;
            }
            a->angle += 0.002f;
        }
        /* Draw */
        glfwGetFramebufferSize(a->win, &a->fb_w, &a->fb_h);
        draw(a);
        total++;
        if (a->o.png && total >= a->o.frames) { /* --png: a screenshot after --frames, then exit */
            int rc = demo_write_png("texla-wave", a->fbo, a->fb_w, a->fb_h, a->o.png);
            if (!rc) printf("texla-wave: wrote %s (window screenshot after %d frames)\n", a->o.png, total);
            return rc ? 1 : 0;
        }
        glfwSwapBuffers(a->win);
        frames++;
        double t = demo_now_s();
        if (t - fps_t > 0.25) {
            title(a, frames / (t - fps_t));
            frames = 0;
            fps_t = t;
        }
        last = t;
    }
    (void)last;
    return 0;
}

static int run_headless(app *a) {
    srand(a->o.seed);
    double *ft = malloc(sizeof *ft * (size_t)(a->o.frames ? a->o.frames : 1));
    if (!ft) return 1;
    for (int f = 0; f < a->o.frames; f++) {
        double t0 = demo_now_s();
        scheduled_drop(a, f);
        if (wave_sim_step(&a->sim)) {
            fprintf(stderr, "texla-wave: %s\n", texla_error_message(a->ctx));
            return 1;
        }
        a->angle += 0.002f;
        draw(a);
        glFinish(); /* a frame is done when the GPU is */
        ft[f] = (demo_now_s() - t0) * 1e3;
    }
    int n = a->o.frames;
    qsort(ft, (size_t)n, sizeof *ft, demo_cmp_double);
    double med = n ? ft[n / 2] : 0, p95 = n ? ft[(int)(0.95 * (n - 1))] : 0;
    printf("texla-wave: %d frames %dx%d %s dt %.3f%s: frame median %.3f ms (%.1f fps), p95 %.3f ms\n",
           n, a->sim.n, a->sim.n, a->sim.implicit ? "implicit" : "explicit", a->sim.dt,
           a->sim.implicit ? "" : "", med, med > 0 ? 1e3 / med : 0, p95);
    if (a->sim.implicit) printf("texla-wave: CG iterations per frame: %d\n", a->sim.cg_iters);
    free(ft);
    if (a->o.png) {
        if (demo_write_png("texla-wave", a->fbo, a->fb_w, a->fb_h, a->o.png)) return 1;
        printf("texla-wave: wrote %s\n", a->o.png);
    }
    return 0;
}

static int usage(const char *argv0) {
    fprintf(stderr,
            "usage: %s [--size S] [--mode explicit|implicit] [--dt DT] [--cg N] [--frames N --png FILE]\n"
            "       %s --headless --frames N [--size S] [--mode M] [--dt DT] [--cg N] --png FILE\n"
            "          [--drops K] [--seed X] [--width W --height H]\n",
            argv0, argv0);
    return 2;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    app a = {0};
    a.o = (opts){.size = 256, .implicit = 1, .cg = 8, .frames = 300, .width = 800, .height = 600,
                 .seed = 1, .dt = 0.5f};
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--headless")) a.o.headless = 1;
        else if (!strcmp(argv[i], "--size") && v) a.o.size = atoi(v), i++;
        else if (!strcmp(argv[i], "--frames") && v) a.o.frames = atoi(v), i++;
        else if (!strcmp(argv[i], "--dt") && v) a.o.dt = (float)atof(v), i++;
        else if (!strcmp(argv[i], "--cg") && v) a.o.cg = atoi(v), i++;
        else if (!strcmp(argv[i], "--png") && v) a.o.png = v, i++;
        else if (!strcmp(argv[i], "--drops") && v) a.o.drops = atoi(v), i++;
        else if (!strcmp(argv[i], "--seed") && v) a.o.seed = (unsigned)strtoul(v, NULL, 0), i++;
        else if (!strcmp(argv[i], "--width") && v) a.o.width = atoi(v), i++;
        else if (!strcmp(argv[i], "--height") && v) a.o.height = atoi(v), i++;
        else if (!strcmp(argv[i], "--mode") && v) {
            if (!strcmp(v, "explicit")) a.o.implicit = 0;
            else if (!strcmp(v, "implicit")) a.o.implicit = 1;
            else return usage(argv[0]);
            i++;
        } else return usage(argv[0]);
    }
    if (a.o.size < 4 || a.o.size > 8192 || a.o.frames < 0 || !(a.o.dt > 0) || a.o.cg < 1 ||
        a.o.drops < 0 || a.o.width < 16 || a.o.height < 16 || a.o.width > 8192 || a.o.height > 8192)
        return usage(argv[0]);

    /* Init: a window and its context when there is a display, else texla's headless one */
    if (demo_open("texla-wave", a.o.headless, 1024, 768, 0, a.o.frames, &a.o.png, "wave.png",
                  &a.win, &a.ctx))
        return 1;
    a.o.headless = a.win == NULL;
    if (render_init(&a) || set_size(&a, a.o.size)) return 1;
    int rc = a.win ? run_window(&a) : run_headless(&a);
    /* Shutdown */
    wave_sim_free(&a.sim);
    glDeleteProgram(a.prog);
    glDeleteVertexArrays(1, &a.vao);
    demo_offscreen_free(&a.fbo, &a.color, &a.depth);
    demo_close(a.win, a.ctx);
    return rc;
}
