/* texla-wave: the 2D wave equation simulated with texla and drawn as a lit height field,
 * with no copy of the state to the CPU: the mesh's vertex shader reads texla's state texture.
 *
 *   texla-wave [--size S] [--mode explicit|implicit] [--dt DT] [--cg N] [--backend B]
 *   texla-wave --headless [--frames N] [--png FILE] [--drops K] [--seed X] [--width W --height H]
 *   texla-wave --help          (the options, and the keys of the demos' common key map)
 *
 * In a window: an on-screen HUD (fps, grid, mode, dt, CG iterations and residual), H shows
 * the keys. Without a display it runs headless. In a window, --png FILE takes a screenshot
 * after --frames frames and exits (for tests). */
#include <glad/gl.h>

#include "../common/demo.h"
#include "../common/hud.h"
#include "sim.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WHO "texla-wave"

typedef struct opts {
    int size, implicit, cg, headless, frames, drops, width, height, win_w, win_h, hud, keys;
    unsigned seed;
    float dt;
    texla_backend backend;
    const char *png;
} opts;

typedef struct app {
    opts o;
    texla_ctx *ctx;
    wave_sim sim;
    GLFWwindow *win;
    GLuint prog, vao, fbo, color, depth; /* fbo: headless render target */
    GLuint ebo;                           /* the mesh's triangles as indices of its vertices */
    int ebo_mesh;                         /* the mesh size ebo was made for */
    GLint u_state, u_nx, u_mesh, u_mvp, u_eye, u_scale;
    int paused, step_once, mesh, shots, want_shot, show_keys;
    float angle, residual;
    int residual_pending, residual_known;
    int fb_w, fb_h;
    float eye[3], fwd[3], right[3], up[3], fovy, shift;
    /* the window */
    demo_hud hud;
    double fps;
    int dragging;
    double drag_x, drag_y;
    char note[256];
    double note_until;
} app;

/* the demos' common key map (demos/common/demo.h), as this demo reads it */
static const demo_key KEYS[] = {
    {"click, drag", "drops into the water at the cursor"},
    {"F", "a drop at a random place"},
    {"Space", "pause / resume"},
    {"N", "one step (pauses)"},
    {"R", "reset: still water"},
    {"M", "mode: implicit (Crank-Nicolson) / explicit"},
    {"+ / -", "time step dt x1.25 / /1.25"},
    {"] / [", "CG iterations per step +1 / -1"},
    {"1 .. 5", "grid 128, 256, 512, 1024, 2048"},
    {"Left / Right", "turn the camera"},
    {"P", "PNG of the window, and of the state"},
    {"H", "this key list"},
    {"Esc, Q", "quit"},
    {NULL, NULL},
};

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
    "    // indexed: each vertex is shaded once and shared by its six triangles (the H100 runs\n"
    "    // vertex shaders on its few graphics units)\n"
    "    ivec2 m = ivec2(gl_VertexID % u_mesh, gl_VertexID / u_mesh);\n"
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

/* The framing: the distance and the vertical lens shift (in NDC) at which the whole water plane
 * stays in view whatever the camera's turn: the circle its corners sweep (radius sqrt 2), at the
 * heights drawn, fills at most 94% of the frame, centred. Bisection on the distance (the fit is
 * monotonic in it); the shift centres the circle's image, which is taller below the target. */
static float framing(float aspect, float fovy, float elev, float *shift) {
    float lo = 0.5f, hi = 40.0f;
    *shift = 0;
    for (int it = 0; it < 32; it++) {
        float d = 0.5f * (lo + hi), eye[3] = {d * cosf(elev), d * sinf(elev), 0};
        float fwd[3] = {-eye[0], -eye[1], -eye[2]}, r[3], u[3], vp[16];
        float xmax = 0, ymin = 1e30f, ymax = -1e30f;
        int behind = 0;
        demo_look(eye, fwd, fovy, aspect, 0.05f, 50.0f, r, u, vp);
        for (int k = 0; k < 64; k++)
            for (int side = -1; side <= 1; side += 2) {
                float th = (float)k * 6.2831853f / 64, p[3] = {1.4142f * cosf(th), 0.25f * side,
                                                                1.4142f * sinf(th)}, c[4];
                for (int i = 0; i < 4; i++)
                    c[i] = vp[i] * p[0] + vp[4 + i] * p[1] + vp[8 + i] * p[2] + vp[12 + i];
                if (c[3] <= 0.05f) { behind = 1; continue; }
                xmax = fmaxf(xmax, fabsf(c[0] / c[3]));
                ymin = fminf(ymin, c[1] / c[3]), ymax = fmaxf(ymax, c[1] / c[3]);
            }
        if (!behind && xmax <= 0.94f && ymax - ymin <= 2 * 0.94f) {
            hi = d;
            *shift = -(ymin + ymax) / 2;
        } else {
            lo = d;
        }
    }
    return hi;
}

/* column-major view-projection of the orbiting camera, its lens shifted to centre the water;
 * keeps its basis and the shift for picking */
static void camera(app *a, float mvp[16]) {
    float aspect = (float)a->fb_w / (float)(a->fb_h ? a->fb_h : 1), elev = 0.6f;
    a->fovy = 0.8f;
    float d = framing(aspect, a->fovy, elev, &a->shift);
    a->eye[0] = d * cosf(elev) * cosf(a->angle);
    a->eye[1] = d * sinf(elev);
    a->eye[2] = d * cosf(elev) * sinf(a->angle);
    for (int i = 0; i < 3; i++) a->fwd[i] = -a->eye[i];
    demo_look(a->eye, a->fwd, a->fovy, aspect, 0.05f, 50.0f, a->right, a->up, mvp);
    for (int c = 0; c < 4; c++) mvp[c * 4 + 1] += a->shift * mvp[c * 4 + 3]; /* y += shift w */
}

/* the mesh's two triangles a quad as indices of its m x m vertices (bound to the VAO, which
 * is bound when this runs) */
static void mesh_indices(app *a) {
    int m = a->mesh, q = m - 1;
    GLuint *idx = malloc(sizeof *idx * (size_t)q * (size_t)q * 6);
    if (!idx) return;
    static const int cx[6] = {0, 1, 1, 0, 1, 0}, cy[6] = {0, 0, 1, 0, 1, 1};
    size_t k = 0;
    for (int y = 0; y < q; y++)
        for (int x = 0; x < q; x++)
            for (int c = 0; c < 6; c++) idx[k++] = (GLuint)((y + cy[c]) * m + x + cx[c]);
    if (!a->ebo) glGenBuffers(1, &a->ebo);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, a->ebo);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)(k * sizeof *idx), idx, GL_STATIC_DRAW);
    free(idx);
    a->ebo_mesh = m;
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
    if (a->ebo_mesh != a->mesh) mesh_indices(a);
    glDrawElements(GL_TRIANGLES, (a->mesh - 1) * (a->mesh - 1) * 6, GL_UNSIGNED_INT, NULL);
    glBindVertexArray(0);
    glDisable(GL_DEPTH_TEST);
}

/* ---- the HUD (window only: headless frames stay deterministic) ---- */

static void hud_draw(app *a) {
    if (!a->o.hud) return;
    const wave_sim *s = &a->sim;
    float r = s->c * s->c * s->dt * s->dt;
    char t[768], res[32] = "-";
    if (a->residual_known) snprintf(res, sizeof res, "%.1e", a->residual);
    int n = snprintf(t, sizeof t, "texla-wave  %.0f fps  %.1f ms/frame\ngrid %d x %d   backend %s\n",
                     a->fps, a->fps > 0 ? 1e3 / a->fps : 0.0, s->n, s->n,
                     demo_backend_name(a->ctx));
    if (s->implicit)
        n += snprintf(t + n, sizeof t - (size_t)n,
                      "implicit (Crank-Nicolson)  dt %.3f  r %.3f\nCG %d iterations/step  "
                      "residual %s\n", s->dt, r, s->cg_iters, res);
    else
        n += snprintf(t + n, sizeof t - (size_t)n,
                      "explicit  dt %.3f  r %.3f%s\none banded product per step\n", s->dt, r,
                      r > 0.5f ? "  \1> 1/2: unstable\2" : "");
    snprintf(t + n, sizeof t - (size_t)n, "%sH: keys", a->paused ? "\1paused\2   " : "");
    int hud_h = demo_hud_panel(&a->hud, 8, 8, a->fb_w, a->fb_h, t);
    if (a->show_keys) {
        char k[1024];
        demo_keys_format(KEYS, 1, 0, k, sizeof k);
        demo_hud_panel(&a->hud, DEMO_HUD_CENTRE, 16 + hud_h, a->fb_w, a->fb_h, k);
    }
    if (a->note[0] && demo_now_s() < a->note_until)
        demo_hud_panel(&a->hud, 8, -8, a->fb_w, a->fb_h, a->note);
    demo_hud_draw(&a->hud, a->fbo, a->fb_w, a->fb_h);
}

/* ---- interaction ---- */

static void drop_at_cursor(app *a, double mx, double my) {
    int ww, wh;
    glfwGetWindowSize(a->win, &ww, &wh);
    float nx = (float)(2.0 * mx / ww - 1.0), ny = (float)(1.0 - 2.0 * my / wh) - a->shift;
    float t = tanf(a->fovy / 2), aspect = (float)ww / (float)(wh ? wh : 1), d[3];
    for (int i = 0; i < 3; i++) d[i] = a->fwd[i] + nx * t * aspect * a->right[i] + ny * t * a->up[i];
    if (d[1] >= -1e-4f) return; /* not looking down at the water */
    float s = -a->eye[1] / d[1], x = a->eye[0] + s * d[0], z = a->eye[2] + s * d[2];
    if (fabsf(x) > 1 || fabsf(z) > 1) return;
    float gx = (x + 1) / 2 * (a->sim.n - 1), gy = (z + 1) / 2 * (a->sim.n - 1);
    wave_sim_drop(&a->sim, gx, gy, a->sim.n / 64.0f + 1.0f, 0.25f);
}

static void random_drop(app *a) {
    float x = (float)(rand() % a->sim.n), y = (float)(rand() % a->sim.n);
    wave_sim_drop(&a->sim, x, y, a->sim.n / 64.0f + 1.0f, 0.25f);
}

static int set_size(app *a, int n) {
    wave_sim_free(&a->sim);
    a->o.size = n;
    a->mesh = n < 512 ? n : 512;
    a->residual_pending = a->residual_known = 0;
    if (wave_sim_init(&a->sim, a->ctx, n, a->o.dt, a->o.implicit, a->o.cg)) {
        fprintf(stderr, WHO ": %s\n", texla_error_message(a->ctx));
        return -1;
    }
    return 0;
}

static void note(app *a, const char *text) {
    snprintf(a->note, sizeof a->note, "%s", text);
    a->note_until = demo_now_s() + 4;
    printf(WHO ": %s\n", text);
}

/* P: the window as the frame was drawn (HUD included), and texla's dump of the state */
static void shoot_png(app *a) {
    char win[64], state[64], msg[256];
    a->shots++;
    snprintf(win, sizeof win, "texla-wave-%03d.png", a->shots);
    snprintf(state, sizeof state, "texla-wave-state-%03d.png", a->shots);
    texla_png_desc d = {.map = TEXLA_MAP_DIVERGING};
    if (demo_write_png(WHO, a->fbo, a->fb_w, a->fb_h, win)) return;
    if (texla_png_vec(a->ctx, wave_sim_state(&a->sim), state, &d)) {
        snprintf(msg, sizeof msg, "wrote %s; the state: %s", win, texla_error_message(a->ctx));
    } else {
        snprintf(msg, sizeof msg, "wrote %s and %s", win, state);
    }
    note(a, msg);
}

static void key_cb(GLFWwindow *w, int key, int sc, int action, int mods) {
    (void)sc, (void)mods;
    app *a = glfwGetWindowUserPointer(w);
    if (action != GLFW_PRESS && action != GLFW_REPEAT) return;
    switch (key) {
    case GLFW_KEY_F: random_drop(a); break;
    case GLFW_KEY_SPACE: a->paused = !a->paused; break;
    case GLFW_KEY_N: a->paused = 1, a->step_once = 1; break;
    case GLFW_KEY_R: wave_sim_reset(&a->sim); break;
    case GLFW_KEY_M:
        a->sim.implicit = a->o.implicit = !a->o.implicit;
        a->residual_known = 0;
        break;
    case GLFW_KEY_EQUAL: case GLFW_KEY_KP_ADD:
        a->o.dt *= 1.25f;
        wave_sim_set_dt(&a->sim, a->o.dt);
        break;
    case GLFW_KEY_MINUS: case GLFW_KEY_KP_SUBTRACT:
        a->o.dt /= 1.25f;
        wave_sim_set_dt(&a->sim, a->o.dt);
        break;
    case GLFW_KEY_RIGHT_BRACKET:
        if (a->o.cg < 200) a->sim.cg_iters = ++a->o.cg;
        break;
    case GLFW_KEY_LEFT_BRACKET:
        if (a->o.cg > 1) a->sim.cg_iters = --a->o.cg;
        break;
    case GLFW_KEY_1: case GLFW_KEY_2: case GLFW_KEY_3: case GLFW_KEY_4: case GLFW_KEY_5:
        if (set_size(a, 128 << (key - GLFW_KEY_1))) glfwSetWindowShouldClose(w, 1);
        break;
    case GLFW_KEY_LEFT: a->angle -= 0.1f; break;
    case GLFW_KEY_RIGHT: a->angle += 0.1f; break;
    case GLFW_KEY_P: a->want_shot = 1; break;
    case GLFW_KEY_H: a->show_keys = !a->show_keys; break;
    case GLFW_KEY_ESCAPE: case GLFW_KEY_Q: glfwSetWindowShouldClose(w, 1); break;
    }
}

/* clicks and drags arrive through callbacks, so a quick click between two slow frames counts */
static void mouse_cb(GLFWwindow *w, int button, int action, int mods) {
    (void)mods;
    app *a = glfwGetWindowUserPointer(w);
    if (button != GLFW_MOUSE_BUTTON_LEFT) return;
    a->dragging = action == GLFW_PRESS;
    if (!a->dragging) return;
    glfwGetCursorPos(w, &a->drag_x, &a->drag_y);
    drop_at_cursor(a, a->drag_x, a->drag_y);
}

static void cursor_cb(GLFWwindow *w, double x, double y) {
    app *a = glfwGetWindowUserPointer(w);
    if (!a->dragging || hypot(x - a->drag_x, y - a->drag_y) < 12) return; /* a drop per 12 px */
    a->drag_x = x, a->drag_y = y;
    drop_at_cursor(a, x, y);
}

/* ---- the loop ---- */

/* the residual of the implicit solve, read asynchronously (no stall) */
static void poll_residual(app *a) {
    if (!a->sim.implicit) return;
    if (!a->residual_pending && !wave_sim_residual_start(&a->sim)) a->residual_pending = 1;
    if (a->residual_pending && wave_sim_residual_poll(&a->sim, &a->residual) != 0)
        a->residual_pending = 0, a->residual_known = 1;
}

/* --drops K: K drops at random places (seeded), spread over the first half of the frames */
static void scheduled_drop(app *a, int frame) {
    if (!a->o.drops) return;
    int every = a->o.frames / 2 / a->o.drops > 0 ? a->o.frames / 2 / a->o.drops : 1;
    if (frame % every || frame / every >= a->o.drops) return;
    random_drop(a);
}

static int run_window(app *a) {
    srand(a->o.seed);
    printf(WHO ": H shows the keys on screen; --help lists them\n");
    a->show_keys = a->o.keys;
    glfwSetWindowUserPointer(a->win, a);
    glfwSetKeyCallback(a->win, key_cb);
    glfwSetMouseButtonCallback(a->win, mouse_cb);
    glfwSetCursorPosCallback(a->win, cursor_cb);
    double fps_t = demo_now_s();
    int frames = 0, total = 0;
    while (!glfwWindowShouldClose(a->win)) {
        glfwPollEvents();
        /* Update */
        if (!a->paused || a->step_once) {
            scheduled_drop(a, total);
            if (wave_sim_step(&a->sim)) {
                fprintf(stderr, WHO ": %s\n", texla_error_message(a->ctx));
                return 1;
            }
            a->step_once = 0;
            if (!a->paused) a->angle += 0.002f;
        }
        /* Draw */
        glfwGetFramebufferSize(a->win, &a->fb_w, &a->fb_h);
        draw(a);
        hud_draw(a);
        total++;
        if (a->want_shot) a->want_shot = 0, shoot_png(a);
        if (a->o.png && total >= a->o.frames) { /* --png: a screenshot after --frames, then exit */
            int rc = demo_write_png(WHO, a->fbo, a->fb_w, a->fb_h, a->o.png);
            if (!rc) printf(WHO ": wrote %s (window screenshot after %d frames)\n", a->o.png, total);
            return rc ? 1 : 0;
        }
        glfwSwapBuffers(a->win);
        frames++;
        double t = demo_now_s();
        if (t - fps_t > 0.25) {
            a->fps = frames / (t - fps_t);
            frames = 0;
            fps_t = t;
            poll_residual(a);
            char title[64];
            snprintf(title, sizeof title, WHO " | %.0f fps", a->fps);
            glfwSetWindowTitle(a->win, title);
        }
    }
    return 0;
}

static int run_headless(app *a) {
    srand(a->o.seed);
    if (!a->o.png)
        printf(WHO ": headless, %d frames: printing frame times only (--png FILE writes the last "
               "frame)\n", a->o.frames);
    double *ft = malloc(sizeof *ft * (size_t)(a->o.frames ? a->o.frames : 1));
    if (!ft) return 1;
    double start = demo_now_s(), last = start;
    for (int f = 0; f < a->o.frames; f++) {
        double t0 = demo_now_s();
        scheduled_drop(a, f);
        if (wave_sim_step(&a->sim)) {
            fprintf(stderr, WHO ": %s\n", texla_error_message(a->ctx));
            return free(ft), 1;
        }
        a->angle += 0.002f;
        draw(a);
        glFinish(); /* a frame is done when the GPU is */
        ft[f] = (demo_now_s() - t0) * 1e3;
        demo_progress(WHO, f + 1, a->o.frames, start, &last);
    }
    int n = a->o.frames;
    qsort(ft, (size_t)n, sizeof *ft, demo_cmp_double);
    double med = n ? ft[n / 2] : 0, p95 = n ? ft[(int)(0.95 * (n - 1))] : 0;
    printf(WHO ": %d frames %dx%d %s dt %.3f, backend %s: frame median %.3f ms (%.1f fps), p95 "
           "%.3f ms\n", n, a->sim.n, a->sim.n, a->sim.implicit ? "implicit" : "explicit",
           a->sim.dt, demo_backend_name(a->ctx), med, med > 0 ? 1e3 / med : 0, p95);
    if (a->sim.implicit) printf(WHO ": CG iterations per frame: %d\n", a->sim.cg_iters);
    free(ft);
    if (a->o.png) {
        if (demo_write_png(WHO, a->fbo, a->fb_w, a->fb_h, a->o.png)) return 1;
        printf(WHO ": wrote %s\n", a->o.png);
    }
    return 0;
}

/* ---- the command line ---- */

static void help(void) {
    char keys[1024];
    demo_keys_format(KEYS, 0, 2, keys, sizeof keys);
    printf("texla-wave: the 2D wave equation on the GPU with texla (explicit steps, or\n"
           "Crank-Nicolson solved by CG), drawn as a lit height field.\n\n"
           "usage: texla-wave [OPTION]...\n"
           "  --size N           grid N x N, 4..8192 (256)\n"
           "  --mode M           implicit (Crank-Nicolson, CG) or explicit (implicit)\n"
           "  --dt DT            time step, > 0 (0.5); explicit steps blow up past 0.707\n"
           "  --cg N             CG iterations per implicit step, 1..1000 (8)\n"
           "  --backend B        texla's backend: fragment, compute or auto (auto: measured)\n"
           "  --headless         no window: draw offscreen, print frame times (also without a\n"
           "                     display, writing wave.png)\n"
           "  --frames N         headless: frames to run (300); in a window with --png: frames\n"
           "                     before the screenshot\n"
           "  --png FILE         headless: write the last frame; in a window: a screenshot\n"
           "                     after --frames frames, then exit\n"
           "  --drops K          K drops at random places over the first half of the frames (0)\n"
           "  --seed X           the drops' random seed (1)\n"
           "  --width W          headless image 800 x 600, window 1024 x 768, unless given\n"
           "  --height H\n"
           "  --no-hud           no on-screen text in the window\n"
           "  --keys             start with the key list on screen\n"
           "  --help             this text\n\n"
           "keys (the same map in every texla demo):\n%s", keys);
}

static int parse(int argc, char **argv, opts *o) {
    enum { O_SIZE = 256, O_MODE, O_DT, O_CG, O_BACKEND, O_HEADLESS, O_FRAMES, O_PNG, O_DROPS,
           O_SEED, O_WIDTH, O_HEIGHT, O_NOHUD, O_KEYS };
    static const struct option lo[] = {
        {"size", required_argument, 0, O_SIZE},     {"mode", required_argument, 0, O_MODE},
        {"dt", required_argument, 0, O_DT},         {"cg", required_argument, 0, O_CG},
        {"backend", required_argument, 0, O_BACKEND}, {"headless", no_argument, 0, O_HEADLESS},
        {"frames", required_argument, 0, O_FRAMES}, {"png", required_argument, 0, O_PNG},
        {"drops", required_argument, 0, O_DROPS},   {"seed", required_argument, 0, O_SEED},
        {"width", required_argument, 0, O_WIDTH},   {"height", required_argument, 0, O_HEIGHT},
        {"no-hud", no_argument, 0, O_NOHUD},        {"keys", no_argument, 0, O_KEYS},
        {"help", no_argument, 0, 'h'},              {0, 0, 0, 0}};
    int c, bad = 0, seed = 1, w = 0, h = 0;
    while (!bad && (c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'h': help(); exit(0);
        case O_SIZE: bad = demo_opt_int(WHO, "size", optarg, 4, 8192, &o->size); break;
        case O_MODE:
            if (!strcmp(optarg, "explicit")) o->implicit = 0;
            else if (!strcmp(optarg, "implicit")) o->implicit = 1;
            else {
                fprintf(stderr, WHO ": --mode: '%s' is not explicit or implicit\n", optarg);
                bad = 1;
            }
            break;
        case O_DT: bad = demo_opt_float(WHO, "dt", optarg, 0, 1, 1000, &o->dt); break;
        case O_CG: bad = demo_opt_int(WHO, "cg", optarg, 1, 1000, &o->cg); break;
        case O_BACKEND: bad = demo_opt_backend(WHO, optarg, &o->backend); break;
        case O_HEADLESS: o->headless = 1; break;
        case O_FRAMES: bad = demo_opt_int(WHO, "frames", optarg, 0, INT_MAX / 2, &o->frames); break;
        case O_PNG: o->png = optarg; break;
        case O_DROPS: bad = demo_opt_int(WHO, "drops", optarg, 0, 1000000, &o->drops); break;
        case O_SEED: bad = demo_opt_int(WHO, "seed", optarg, 0, INT_MAX, &seed); break;
        case O_WIDTH: bad = demo_opt_int(WHO, "width", optarg, 16, 8192, &w); break;
        case O_HEIGHT: bad = demo_opt_int(WHO, "height", optarg, 16, 8192, &h); break;
        case O_NOHUD: o->hud = 0; break;
        case O_KEYS: o->keys = 1; break;
        default: bad = 1; break; /* getopt_long said which option */
        }
    }
    if (!bad && optind < argc) {
        fprintf(stderr, WHO ": unexpected argument '%s'\n", argv[optind]);
        bad = 1;
    }
    o->seed = (unsigned)seed;
    if (w) o->width = o->win_w = w;
    if (h) o->height = o->win_h = h;
    return bad ? -1 : 0;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    app a = {0};
    a.o = (opts){.size = 256, .implicit = 1, .cg = 8, .frames = 300, .width = 800, .height = 600,
                 .win_w = 1024, .win_h = 768, .seed = 1, .dt = 0.5f, .hud = 1,
                 .backend = TEXLA_BACKEND_AUTO};
    if (parse(argc, argv, &a.o)) return demo_usage_hint(WHO);

    /* Init: a window and its context when there is a display, else texla's headless one */
    if (demo_open(WHO, a.o.headless, a.o.win_w, a.o.win_h, 0, a.o.frames, a.o.backend, &a.o.png,
                  "wave.png", &a.win, &a.ctx))
        return 1;
    a.o.headless = a.win == NULL;
    if (render_init(&a) || set_size(&a, a.o.size)) return 1;
    if (a.win && demo_hud_init(&a.hud, WHO)) return 1;
    if (a.win) a.hud.scale = demo_hud_scale_for(a.o.win_w, a.o.win_h);
    int rc = a.win ? run_window(&a) : run_headless(&a);
    /* Shutdown */
    wave_sim_free(&a.sim);
    demo_hud_free(&a.hud);
    glDeleteProgram(a.prog);
    glDeleteVertexArrays(1, &a.vao);
    if (a.ebo) glDeleteBuffers(1, &a.ebo);
    demo_offscreen_free(&a.fbo, &a.color, &a.depth);
    demo_close(a.win, a.ctx);
    return rc;
}
