/* texla-cubes: walls, pyramids and piles of cubes knocked down by a projectile; every step's
 * contacts are one linear complementarity problem (or one per island) solved by projected Jacobi
 * on the GPU with texla: matrix-free (J and M^-1 J' sparse, A never formed; the default), or
 * with A = J M^-1 J' formed densely (the application of Moravanszky's "Dense Matrix Algebra on
 * the GPU", fig. 4). The physics is in physics.c; this file draws and interacts.
 *
 *   texla-cubes [--cubes N [--scene wall|pyramid|pile] | --wall WxH] [--mu MU] [--iters N]
 *               [--max-iters N] [--omega W] [--solver dense|islands|sparse] [--shoot FRAME]
 *               [--backend B] [--frames N --png FILE]
 *   texla-cubes --headless [--frames N] [--png FILE] [--cubes N] [--shoot FRAME] [--solver S]
 *               [--no-pool] [--width W --height H]
 *   texla-cubes --help         (the options, and the keys of the demos' common key map)
 *
 * In a window: an on-screen HUD (fps, bodies, the solver, LCP rows and nonzeros, iterations,
 * solver time and quality, the UNSOLVED flag), H shows the keys, M switches the solver. Without
 * a display it runs headless (writing cubes.png). In a window, --png FILE takes a screenshot
 * after --frames frames and exits (for tests). Headless prints the median and p95 of the frame
 * time, the physics step, the solver (uploads, GPU products and Jacobi, read-back), the LCP
 * sizes, the CPU parts, a WARNING for unsolved LCPs and a one-line summary: the benchmark is
 * `--headless --frames N --cubes N --scene S --solver S` (bench/cubes_bench.sh runs the
 * matrix). */
#include <glad/gl.h>

#include "../common/demo.h"
#include "../common/hud.h"
#include "physics.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WHO "texla-cubes"

typedef struct opts {
    int wide, high, cubes, headless, frames, shoot, width, height, iters, no_pool, mu_set;
    int matmul_k;
    int solver, scene; /* cubes_solver (0: the default), cubes_scene_kind */
    int max_iters;     /* --max-iters (0: 4 x --iters) */
    int win_w, win_h; /* the window: 1280 x 800, or --width / --height when given */
    int hud, keys;
    float mu, omega;
    texla_backend backend;
    const char *png;
} opts;

typedef struct app {
    opts o;
    texla_ctx *ctx;
    cubes_world world;
    GLFWwindow *win;
    GLuint prog, ground_prog, vao, ground_vao, vbo, ibo, fbo, color, depth;
    int inst_cap;
    float *inst;
    GLint u_vp, u_shadow, u_mode, u_eye, u_light, g_vp, g_eye;
    int paused, step_once;
    float angle, dist, centre[3], target[3];
    int fb_w, fb_h;
    float eye[3], fwd[3], right[3], up[3], fovy;
    /* the window */
    demo_hud hud;
    int show_keys, want_shot, shots;
    double fps;
    char note[256];
    double note_until;
} app;

/* the demos' common key map (demos/common/demo.h), as this demo reads it */
static const demo_key KEYS[] = {
    {"click", "a projectile at the cursor"},
    {"F", "a projectile at the wall"},
    {"Space", "pause / resume"},
    {"N", "one step (pauses)"},
    {"R", "reset: the scene anew"},
    {"M", "solver: dense -> islands -> sparse (matrix-free)"},
    {"+ / -", "time step dt x1.25 / /1.25"},
    {"] / [", "Jacobi iterations x1.25 / /1.25"},
    {"1 .. 5", "the scene of 15, 30, 60, 120, 240 cubes"},
    {"Left / Right", "turn the camera"},
    {"P", "PNG of the window"},
    {"H", "this key list"},
    {"Esc, Q", "quit"},
    {NULL, NULL},
};


static const float LIGHT[3] = {-0.55f, 0.75f, 0.35f}; /* towards the light, normalised in Init */

/* ---- scene ---- */

/* --cubes N: the scene (wall, pyramid, pile) of N cubes; --wall W x H: that wall */
static int build_scene(app *a) {
    cubes_world *w = &a->world;
    cubes_world_clear(w);
    if (a->o.cubes) {
        cubes_scene_info in;
        if (cubes_scene(w, a->o.scene, a->o.cubes, &in)) return -1;
        memcpy(a->centre, in.centre, sizeof a->centre);
        memcpy(a->target, in.target, sizeof a->target);
        a->dist = in.size + 5.0f;
        return 0;
    }
    int wide = a->o.wide, high = a->o.high;
    if (cubes_scene_wall(w, wide, high, 1.0f, 0.05f)) return -1;
    a->centre[0] = 0, a->centre[1] = high * 0.4f, a->centre[2] = 0;
    a->target[0] = 0, a->target[1] = a->centre[1] * 0.8f, a->target[2] = 0;
    float size = (float)(wide > high ? wide : high) * 1.05f;
    a->dist = size * 1.0f + 5.0f;
    return 0;
}

static void camera(app *a, float vp[16]);

/* a projectile from the camera towards target (NULL: the structure's target point) */
static void shoot(app *a, const float *target) {
    float vp[16];
    camera(a, vp); /* the camera of now: a shot before the first frame was drawn came from 0 */
    float t[3] = {a->target[0], a->target[1], a->target[2]};
    if (target) memcpy(t, target, sizeof t);
    float from[3];
    for (int i = 0; i < 3; i++) from[i] = a->eye[i] + a->fwd[i] * 1.5f;
    from[1] -= 0.5f;
    if (from[1] < 0.6f) from[1] = 0.6f;
    if (cubes_shoot(&a->world, from, t, 30.0f) < 0) fprintf(stderr, "texla-cubes: cannot shoot\n");
}

/* ---- drawing (the demo's own GL: texla only solves) ---- */

static const char *VS =
    "#version 330 core\n"
    "layout(location = 0) in vec3 a_pos;   // unit cube corner (-1..1)\n"
    "layout(location = 1) in vec3 a_nrm;\n"
    "layout(location = 2) in vec4 a_m0;    // per instance: model matrix columns, colour\n"
    "layout(location = 3) in vec4 a_m1;\n"
    "layout(location = 4) in vec4 a_m2;\n"
    "layout(location = 5) in vec4 a_m3;\n"
    "layout(location = 6) in vec4 a_col;\n"
    "uniform mat4 u_vp, u_shadow;\n"
    "uniform int u_mode;                   // 0 lit, 1 planar shadow\n"
    "out vec3 v_pos, v_nrm, v_loc, v_col;\n"
    "void main() {\n"
    "    mat4 m = mat4(a_m0, a_m1, a_m2, a_m3);\n"
    "    vec4 wp = m * vec4(a_pos, 1.0);\n"
    "    if (u_mode == 1) wp = u_shadow * wp;\n"
    "    v_nrm = normalize(transpose(inverse(mat3(m))) * a_nrm);\n"
    "    v_pos = wp.xyz; v_loc = a_pos; v_col = a_col.rgb;\n"
    "    gl_Position = u_vp * wp;\n"
    "}\n";

static const char *FS =
    "#version 330 core\n"
    "uniform vec3 u_eye, u_light;\n"
    "uniform int u_mode;\n"
    "in vec3 v_pos, v_nrm, v_loc, v_col;\n"
    "out vec4 o;\n"
    "void main() {\n"
    "    if (u_mode == 1) { o = vec4(0.0, 0.0, 0.0, 0.45); return; }\n"
    "    vec3 n = normalize(v_nrm), v = normalize(u_eye - v_pos), h = normalize(u_light + v);\n"
    "    float diff = max(dot(n, u_light), 0.0), spec = pow(max(dot(n, h), 0.0), 48.0);\n"
    "    vec3 a = abs(v_loc);\n"
    "    float second = a.x + a.y + a.z - max(a.x, max(a.y, a.z)) - min(a.x, min(a.y, a.z));\n"
    "    float edge = smoothstep(0.88, 0.97, second);  // dark edges: the cubes read apart\n"
    "    float sky = 0.5 + 0.5 * n.y;\n"
    "    vec3 col = v_col * (0.22 + 0.12 * sky + 0.72 * diff) + vec3(0.25) * spec;\n"
    "    o = vec4(col * (1.0 - 0.55 * edge), 1.0);\n"
    "}\n";

static const char *GVS =
    "#version 330 core\n"
    "uniform mat4 u_vp;\n"
    "out vec3 v_pos;\n"
    "void main() {\n"
    "    const vec2 c[4] = vec2[4](vec2(-1, -1), vec2(1, -1), vec2(-1, 1), vec2(1, 1));\n"
    "    v_pos = vec3(c[gl_VertexID].x * 80.0, 0.0, c[gl_VertexID].y * 80.0);\n"
    "    gl_Position = u_vp * vec4(v_pos, 1.0);\n"
    "}\n";

static const char *GFS =
    "#version 330 core\n"
    "uniform vec3 u_eye;\n"
    "in vec3 v_pos;\n"
    "out vec4 o;\n"
    "void main() {\n"
    "    vec2 q = floor(v_pos.xz / 2.0);\n"
    "    float chk = mod(q.x + q.y, 2.0);\n"
    "    vec3 col = mix(vec3(0.36, 0.38, 0.36), vec3(0.44, 0.46, 0.44), chk);\n"
    "    float fog = clamp(length(v_pos - u_eye) / 90.0, 0.0, 1.0);\n"
    "    o = vec4(mix(col, vec3(0.62, 0.70, 0.80), fog * fog), 1.0);\n"
    "}\n";


static int render_init(app *a) {
    a->prog = demo_program("texla-cubes", VS, FS);
    a->ground_prog = demo_program("texla-cubes", GVS, GFS);
    if (!a->prog || !a->ground_prog) return -1;
    a->u_vp = glGetUniformLocation(a->prog, "u_vp");
    a->u_shadow = glGetUniformLocation(a->prog, "u_shadow");
    a->u_mode = glGetUniformLocation(a->prog, "u_mode");
    a->u_eye = glGetUniformLocation(a->prog, "u_eye");
    a->u_light = glGetUniformLocation(a->prog, "u_light");
    a->g_vp = glGetUniformLocation(a->ground_prog, "u_vp");
    a->g_eye = glGetUniformLocation(a->ground_prog, "u_eye");
    /* the unit cube: 6 faces x 2 triangles, position and normal per vertex */
    float cube[36 * 6];
    int v = 0;
    for (int f = 0; f < 6; f++) {
        int ax = f / 2;
        float s = (f & 1) ? 1.0f : -1.0f;
        int u = (ax + 1) % 3, w = (ax + 2) % 3;
        static const float c[6][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, -1}, {1, 1}, {-1, 1}};
        for (int k = 0; k < 6; k++) {
            int kk = s > 0 ? k : 5 - k; /* counter-clockwise seen from outside */
            float *p = cube + 6 * v++;
            p[ax] = s, p[u] = c[kk][0], p[w] = c[kk][1];
            p[3] = p[4] = p[5] = 0;
            p[3 + ax] = s;
        }
    }
    glGenVertexArrays(1, &a->vao);
    glGenVertexArrays(1, &a->ground_vao);
    glBindVertexArray(a->vao);
    glGenBuffers(1, &a->vbo);
    glBindBuffer(GL_ARRAY_BUFFER, a->vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof cube, cube, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (void *)0);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (void *)(3 * sizeof(float)));
    glGenBuffers(1, &a->ibo);
    glBindBuffer(GL_ARRAY_BUFFER, a->ibo);
    for (int i = 0; i < 5; i++) {
        glEnableVertexAttribArray(2 + i);
        glVertexAttribPointer(2 + i, 4, GL_FLOAT, GL_FALSE, 20 * sizeof(float),
                              (void *)(4 * i * sizeof(float)));
        glVertexAttribDivisor(2 + i, 1);
    }
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    if (a->o.headless) { /* an offscreen target: the same drawing, read back at the end */
        if (demo_offscreen(a->o.width, a->o.height, &a->fbo, &a->color, &a->depth)) return -1;
        a->fb_w = a->o.width;
        a->fb_h = a->o.height;
    }
    return 0;
}

/* column-major view-projection of the orbiting camera; keeps its basis for aiming */
static void camera(app *a, float vp[16]) {
    float aspect = (float)a->fb_w / (float)(a->fb_h ? a->fb_h : 1);
    a->fovy = 0.75f;
    a->eye[0] = a->centre[0] + a->dist * sinf(a->angle);
    a->eye[1] = a->centre[1] + a->dist * 0.35f;
    a->eye[2] = a->centre[2] + a->dist * cosf(a->angle);
    for (int i = 0; i < 3; i++) a->fwd[i] = a->centre[i] - a->eye[i];
    demo_look(a->eye, a->fwd, a->fovy, aspect, 0.1f, 300.0f, a->right, a->up, vp);
}

static void draw(app *a) {
    const cubes_world *w = &a->world;
    float vp[16], L[3] = {LIGHT[0], LIGHT[1], LIGHT[2]};
    demo_v3_norm(L);
    camera(a, vp);
    /* per-instance data: model matrix and colour */
    int n = w->nbodies;
    if (n > a->inst_cap) {
        float *p = realloc(a->inst, sizeof *p * 20 * (size_t)n);
        if (!p) return;
        a->inst = p;
        a->inst_cap = n;
    }
    for (int i = 0; i < n; i++) {
        float *p = a->inst + 20 * i;
        cubes_body_model(&w->bodies[i], p);
        memcpy(p + 16, w->bodies[i].color, 3 * sizeof(float));
        p[19] = 1;
    }
    glBindBuffer(GL_ARRAY_BUFFER, a->ibo);
    glBufferData(GL_ARRAY_BUFFER, sizeof(float) * 20 * (size_t)(n ? n : 1), a->inst,
                 GL_STREAM_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);

    glBindFramebuffer(GL_FRAMEBUFFER, a->fbo);
    glViewport(0, 0, a->fb_w, a->fb_h);
    glClearColor(0.62f, 0.70f, 0.80f, 1.0f);
    glClearStencil(0);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glEnable(GL_CULL_FACE);
    /* ground */
    glUseProgram(a->ground_prog);
    glUniformMatrix4fv(a->g_vp, 1, GL_FALSE, vp);
    glUniform3fv(a->g_eye, 1, a->eye);
    glBindVertexArray(a->ground_vao);
    glDisable(GL_CULL_FACE);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glEnable(GL_CULL_FACE);
    /* planar shadows: the cubes squashed onto y = 0 along the light, blended once per pixel */
    glUseProgram(a->prog);
    glUniformMatrix4fv(a->u_vp, 1, GL_FALSE, vp);
    glUniform3fv(a->u_eye, 1, a->eye);
    glUniform3fv(a->u_light, 1, L);
    const float eps = 0.003f;
    float S[16] = {1, 0, 0, 0, -L[0] / L[1], 0, -L[2] / L[1], 0, 0, 0, 1, 0,
                   L[0] / L[1] * eps, eps, L[2] / L[1] * eps, 1};
    glUniformMatrix4fv(a->u_shadow, 1, GL_FALSE, S);
    glBindVertexArray(a->vao);
    glUniform1i(a->u_mode, 1);
    glDisable(GL_CULL_FACE);
    glDepthMask(GL_FALSE);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glEnable(GL_STENCIL_TEST);
    glStencilFunc(GL_EQUAL, 0, 0xff);
    glStencilOp(GL_KEEP, GL_KEEP, GL_INCR);
    glDrawArraysInstanced(GL_TRIANGLES, 0, 36, n);
    glDisable(GL_STENCIL_TEST);
    glDisable(GL_BLEND);
    glDepthMask(GL_TRUE);
    glEnable(GL_CULL_FACE);
    /* the cubes, lit */
    glUniform1i(a->u_mode, 0);
    glDrawArraysInstanced(GL_TRIANGLES, 0, 36, n);
    glBindVertexArray(0);
    glDisable(GL_CULL_FACE);
    glDisable(GL_DEPTH_TEST);
}

/* ---- the HUD (window only: headless frames stay deterministic) ---- */

static void hud_draw(app *a) {
    if (!a->o.hud) return;
    const cubes_stats *s = &a->world.stats;
    const cubes_params *p = &a->world.p;
    const char *sv = cubes_solver_name(s->solver);
    char t[1280], lcp[160], un[128] = "";
    if (s->solver == CUBES_SOLVER_ISLANDS)
        snprintf(lcp, sizeof lcp, "LCP per island: %d rows in %d LCPs (largest %d), nnz %ld",
                 s->rows, s->groups, s->max_rows, s->nnz);
    else if (s->solver == CUBES_SOLVER_SPARSE)
        snprintf(lcp, sizeof lcp, "LCP of all contacts, matrix-free: %d rows, nnz(J) %ld", s->rows,
                 s->nnz);
    else
        snprintf(lcp, sizeof lcp, "LCP of all contacts: %d rows (%d padded), nnz %ld", s->rows,
                 s->padded_rows, s->nnz);
    if (s->unsolved) /* the LCP clearly not solved this step: said where it cannot be missed */
        snprintf(un, sizeof un, "\1UNSOLVED: %d rows w < -%.2g\2\n", s->unsolved_rows, s->w_tol);
    snprintf(t, sizeof t,
             "texla-cubes  %.1f fps  %.1f ms/frame\n"
             "bodies %d   contacts %d   backend %s\n"
             "solver %s%s: %.2f ms   physics step %.2f ms\n"
             "%s\n"
             "Jacobi %d iterations (%d..%d)  omega %.2f   dt %.4f s\n"
             "quality: min w %.1e  max|x w| %.1e  friction excess %.1e\n"
             "%s%sH: keys",
             a->fps, a->fps > 0 ? 1e3 / a->fps : 0.0, s->bodies, s->contacts,
             demo_backend_name(a->ctx), sv ? sv : "-",
             s->fallback ? " (dense too large: sparse solved it)" : "", s->t_solve_ms,
             s->t_step_ms, lcp, s->iterations, p->iterations, p->max_iterations, s->omega_min,
             p->dt, s->min_w, s->max_xw, s->max_fric_excess, un,
             a->paused ? "\1paused\2   " : "");
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

/* the point where the ray through the cursor meets the wall's plane (z = 0), or 25 m along */
static void shoot_at_cursor(app *a, double mx, double my) {
    int ww, wh;
    glfwGetWindowSize(a->win, &ww, &wh);
    float nx = (float)(2.0 * mx / ww - 1.0), ny = (float)(1.0 - 2.0 * my / wh);
    float t = tanf(a->fovy / 2), aspect = (float)ww / (float)(wh ? wh : 1), d[3], p[3];
    for (int i = 0; i < 3; i++)
        d[i] = a->fwd[i] + nx * t * aspect * a->right[i] + ny * t * a->up[i];
    demo_v3_norm(d);
    float s = fabsf(d[2]) > 1e-3f ? -a->eye[2] / d[2] : -1;
    if (!(s > 0 && s < 200)) s = 25;
    for (int i = 0; i < 3; i++) p[i] = a->eye[i] + s * d[i];
    if (p[1] < 0.3f) p[1] = 0.3f;
    shoot(a, p);
}

static void note(app *a, const char *text) {
    snprintf(a->note, sizeof a->note, "%s", text);
    a->note_until = demo_now_s() + 4;
    printf(WHO ": %s\n", text);
}

/* P: the window as the frame was drawn, HUD included */
static void shoot_png(app *a) {
    char path[64], msg[128];
    snprintf(path, sizeof path, "texla-cubes-%03d.png", ++a->shots);
    if (demo_write_png(WHO, a->fbo, a->fb_w, a->fb_h, path)) return;
    snprintf(msg, sizeof msg, "wrote %s", path);
    note(a, msg);
}

static int more_iters(int n) {
    n += n / 4 > 1 ? n / 4 : 1;
    return n > 100000 ? 100000 : n;
}

static int fewer_iters(int n) {
    n -= n / 5 > 1 ? n / 5 : 1;
    return n < 1 ? 1 : n;
}

static void key_cb(GLFWwindow *win, int key, int sc, int action, int mods) {
    (void)sc, (void)mods;
    app *a = glfwGetWindowUserPointer(win);
    if (action != GLFW_PRESS && action != GLFW_REPEAT) return;
    cubes_params *p = &a->world.p;
    static const int sizes[5] = {15, 30, 60, 120, 240};
    switch (key) {
    case GLFW_KEY_F: shoot(a, NULL); break;
    case GLFW_KEY_SPACE: a->paused = !a->paused; break;
    case GLFW_KEY_N: a->paused = 1, a->step_once = 1; break;
    case GLFW_KEY_R: build_scene(a); break;
    case GLFW_KEY_M: { /* the solver: dense -> islands -> sparse -> dense */
        char msg[64];
        p->solver = p->solver % CUBES_SOLVER_SPARSE + 1;
        snprintf(msg, sizeof msg, "solver %s", cubes_solver_name(p->solver));
        note(a, msg);
        break;
    }
    case GLFW_KEY_EQUAL: case GLFW_KEY_KP_ADD:
        p->dt = fminf(p->dt * 1.25f, 0.1f);
        break;
    case GLFW_KEY_MINUS: case GLFW_KEY_KP_SUBTRACT:
        p->dt = fmaxf(p->dt / 1.25f, 0.001f);
        break;
    case GLFW_KEY_RIGHT_BRACKET: /* the floor and the ceiling of the adaptive count together */
        p->iterations = more_iters(p->iterations);
        p->max_iterations = more_iters(p->max_iterations);
        break;
    case GLFW_KEY_LEFT_BRACKET:
        p->iterations = fewer_iters(p->iterations);
        p->max_iterations = fewer_iters(p->max_iterations);
        if (p->max_iterations < p->iterations) p->max_iterations = p->iterations;
        break;
    case GLFW_KEY_1: case GLFW_KEY_2: case GLFW_KEY_3: case GLFW_KEY_4: case GLFW_KEY_5:
        a->o.cubes = sizes[key - GLFW_KEY_1];
        build_scene(a);
        break;
    case GLFW_KEY_LEFT: a->angle -= 0.1f; break;
    case GLFW_KEY_RIGHT: a->angle += 0.1f; break;
    case GLFW_KEY_P: a->want_shot = 1; break;
    case GLFW_KEY_H: a->show_keys = !a->show_keys; break;
    case GLFW_KEY_ESCAPE: case GLFW_KEY_Q: glfwSetWindowShouldClose(win, 1); break;
    }
}

/* a click arrives through the callback, so a quick one between two slow frames counts */
static void mouse_cb(GLFWwindow *win, int button, int action, int mods) {
    (void)mods;
    app *a = glfwGetWindowUserPointer(win);
    if (button != GLFW_MOUSE_BUTTON_LEFT || action != GLFW_PRESS) return;
    double mx, my;
    glfwGetCursorPos(win, &mx, &my);
    shoot_at_cursor(a, mx, my);
}

/* ---- the loop ---- */

static int step(app *a) {
    if (cubes_step(&a->world)) {
        fprintf(stderr, "texla-cubes: %s\n", texla_error_message(a->ctx));
        return -1;
    }
    return 0;
}

static int run_window(app *a) {
    printf(WHO ": H shows the keys on screen; --help lists them\n");
    a->show_keys = a->o.keys;
    glfwSetWindowUserPointer(a->win, a);
    glfwSetKeyCallback(a->win, key_cb);
    glfwSetMouseButtonCallback(a->win, mouse_cb);
    double fps_t = demo_now_s();
    int frames = 0, total = 0;
    while (!glfwWindowShouldClose(a->win)) {
        glfwPollEvents();
        /* Update */
        if (total == a->o.shoot) shoot(a, NULL);
        if (!a->paused || a->step_once) {
            if (step(a)) return 1;
            a->step_once = 0;
            if (!a->paused) a->angle += 0.0015f;
        }
        /* Draw */
        glfwGetFramebufferSize(a->win, &a->fb_w, &a->fb_h);
        draw(a);
        hud_draw(a);
        total++;
        if (a->want_shot) a->want_shot = 0, shoot_png(a);
        if (a->o.png && total >= a->o.frames) { /* --png: a screenshot after --frames, then exit */
            int rc = demo_write_png(WHO, a->fbo, a->fb_w, a->fb_h, a->o.png);
            if (!rc)
                printf(WHO ": wrote %s (window screenshot after %d frames)\n", a->o.png, total);
            return rc ? 1 : 0;
        }
        glfwSwapBuffers(a->win);
        frames++;
        double t = demo_now_s();
        if (t - fps_t > 0.5) {
            a->fps = frames / (t - fps_t);
            frames = 0;
            fps_t = t;
            char title[128];
            const cubes_stats *s = &a->world.stats;
            snprintf(title, sizeof title, WHO " | %.1f fps | %s%s", a->fps,
                     cubes_solver_name(s->solver) ? cubes_solver_name(s->solver) : "-",
                     s->unsolved ? " | UNSOLVED" : "");
            glfwSetWindowTitle(a->win, title);
        }
    }
    return 0;
}

static void stat_line(const char *what, double *v, int n, const char *unit) {
    qsort(v, (size_t)n, sizeof *v, demo_cmp_double);
    double med = n ? v[n / 2] : 0, p95 = n ? v[(int)(0.95 * (n - 1))] : 0, mx = n ? v[n - 1] : 0;
    printf("texla-cubes: %-22s median %9.3f%s  p95 %9.3f%s  max %9.3f%s\n", what, med, unit, p95,
           unit, mx, unit);
}

static double median_of(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, demo_cmp_double);
    return n ? v[n / 2] : 0;
}

static int run_headless(app *a) {
    int n = a->o.frames;
    enum { NSTAT = 17 };
    double *st = malloc(sizeof *st * NSTAT * (size_t)(n ? n : 1));
    if (!st) return 1;
    double *ft = st, *phys = st + n, *solve = st + 2 * n, *rows = st + 3 * n, *maxr = st + 4 * n,
           *groups = st + 5 * n, *coll = st + 6 * n, *broad = st + 7 * n, *build = st + 8 * n,
           *upl = st + 9 * n, *fin = st + 10 * n, *nnz = st + 11 * n, *its = st + 12 * n,
           *mk = st + 13 * n, *sub = st + 14 * n, *first = st + 15 * n, *iters = st + 16 * n;
    long made = 0;
    float max_depth = 0, worst_w = 0, worst_xw = 0, worst_ratio = 0;
    int peak_contacts = 0, unsolved = 0, fallback = 0, first_unsolved = -1;
    texla_stats ts0, ts1;
    texla_ctx_stats(a->ctx, &ts0);
    if (!a->o.png)
        printf(WHO ": headless, %d frames: printing statistics only (--png FILE writes the last "
               "frame)\n", n);
    double start = demo_now_s(), last = start;
    for (int f = 0; f < n; f++) {
        double t0 = demo_now_s();
        if (f == a->o.shoot) shoot(a, NULL);
        if (step(a)) return free(st), 1;
        a->angle += 0.0015f;
        draw(a);
        glFinish(); /* a frame is done when the GPU is */
        const cubes_stats *s = &a->world.stats;
        ft[f] = (demo_now_s() - t0) * 1e3;
        phys[f] = s->t_step_ms;
        solve[f] = s->t_solve_ms;
        rows[f] = s->rows;
        maxr[f] = s->max_rows;
        groups[f] = s->groups;
        coll[f] = s->t_collide_ms, broad[f] = s->t_broad_ms, build[f] = s->t_build_ms;
        upl[f] = s->t_upload_ms, fin[f] = s->t_finish_ms, nnz[f] = (double)s->nnz;
        mk[f] = s->t_make_ms, sub[f] = s->t_submit_ms;
        first[f] = s->t_first_ms, iters[f] = s->t_iters_ms;
        its[f] = s->iterations;
        made += s->mats_made;
        if (s->max_depth > max_depth) max_depth = s->max_depth;
        if (s->min_w < worst_w) worst_w = s->min_w;
        if (s->max_xw > worst_xw) worst_xw = s->max_xw;
        if (s->w_tol > 0 && -s->min_w / s->w_tol > worst_ratio) worst_ratio = -s->min_w / s->w_tol;
        if (s->contacts > peak_contacts) peak_contacts = s->contacts;
        if (s->unsolved && first_unsolved < 0) first_unsolved = f;
        unsolved += s->unsolved;
        fallback += s->fallback;
        demo_progress(WHO, f + 1, n, start, &last);
    }
    texla_ctx_stats(a->ctx, &ts1);
    const cubes_params *p = &a->world.p;
    const char *sv = cubes_solver_name(p->solver);
    texla_info info;
    texla_ctx_info(a->ctx, &info);
    printf("texla-cubes: %s | %s | texla backend %s\n", info.renderer, info.version,
           info.backend == TEXLA_BACKEND_COMPUTE ? "compute" : "fragment");
    char shot[32] = "no shot";
    if (a->o.shoot >= 0) snprintf(shot, sizeof shot, "shot at frame %d", a->o.shoot);
    printf("texla-cubes: %d frames, %d bodies, mode %s, %d to %d Jacobi iterations (omega <= %.2f), "
           "mu %.2f, %s, matmul_k %d\n", n, a->world.nbodies, sv, p->iterations, p->max_iterations,
           p->omega, p->mu, shot, info.matmul_k);
    stat_line("frame (ms)", ft, n, "");
    stat_line("physics step (ms)", phys, n, "");
    stat_line("solver (ms)", solve, n, "");
    stat_line("LCP rows (all)", rows, n, "");
    stat_line("LCP rows (largest)", maxr, n, "");
    stat_line("LCPs per frame", groups, n, "");
    stat_line("nonzeros of J", nnz, n, "");
    stat_line("Jacobi iterations", its, n, "");
    stat_line("CPU collide (ms)", coll, n, "");
    stat_line("CPU broadphase (ms)", broad, n, "");
    stat_line("CPU rows, lambda (ms)", build, n, "");
    stat_line("CPU uploads (ms)", upl, n, "");
    stat_line("CPU after solve (ms)", fin, n, "");
    if (p->solver == CUBES_SOLVER_SPARSE) {
        stat_line("solver: CPU, matrices made (ms)", mk, n, "");
        stat_line("solver: CPU, Jacobi issued (ms)", sub, n, "");
        if (a->world.split) {
            stat_line("solver: first iteration, done (ms)", first, n, "");
            stat_line("solver: the others, done (ms)", iters, n, "");
        }
    }
    printf("texla-cubes: median %.1f fps; peak %d contacts; deepest penetration %.4f; min w %.2e; "
           "GPU matrices made %ld (%s), %llu passes, %llu read-backs\n",
           ft[n / 2] > 0 ? 1e3 / ft[n / 2] : 0, peak_contacts, max_depth, worst_w, made,
           p->no_pool ? "no pool" : "pooled", (unsigned long long)(ts1.passes - ts0.passes),
           (unsigned long long)(ts1.readbacks - ts0.readbacks));
    if (unsolved)
        printf("texla-cubes: WARNING: the LCP was not solved in %d of %d frames (first: frame %d; "
               "a contact left sinking more than %.0f%% of the smallest half extent in a step; worst %.1f x that): more "
               "--iters, or a smaller scene\n", unsolved, n, first_unsolved, 100 * p->unsolved_tol,
               worst_ratio);
    if (fallback)
        printf("texla-cubes: NOTE: %d of %d frames had a dense LCP over %d rows; the sparse solver "
               "solved them\n", fallback, n, p->dense_max_rows);
    /* the benchmark's one line (medians; stat_line sorted the arrays) */
    double cpu = median_of(coll, n) + median_of(build, n) + median_of(upl, n) + median_of(fin, n);
    printf("texla-cubes: summary scene %s cubes %d solver %s%s frames %d | frame %.2f ms (%.1f fps) "
           "solver %.2f ms cpu %.2f ms (collide %.2f broad %.2f rows %.2f upload %.2f finish %.2f) "
           "| rows %.0f nnz %.0f lcps %.0f iters %.0f | min w %.2e max|xw| %.2e unsolved %d/%d\n",
           a->o.cubes ? cubes_scene_name(a->o.scene) : "wall", a->world.nbodies, sv,
           fallback ? "(fallback sparse)" : "", n, median_of(ft, n),
           median_of(ft, n) > 0 ? 1e3 / median_of(ft, n) : 0, median_of(solve, n), cpu,
           median_of(coll, n), median_of(broad, n), median_of(build, n), median_of(upl, n),
           median_of(fin, n), median_of(rows, n), median_of(nnz, n), median_of(groups, n),
           median_of(its, n), worst_w, worst_xw, unsolved, n);
    free(st);
    if (a->o.png) {
        if (demo_write_png("texla-cubes", a->fbo, a->fb_w, a->fb_h, a->o.png)) return 1;
        printf("texla-cubes: wrote %s\n", a->o.png);
    }
    return 0;
}

/* ---- the command line ---- */

static void help(void) {
    char keys[1024];
    demo_keys_format(KEYS, 0, 2, keys, sizeof keys);
    printf("texla-cubes: walls, pyramids and piles of cubes knocked down by a projectile; each\n"
           "step's contacts are a linear complementarity problem solved by projected Jacobi on\n"
           "the GPU with texla, matrix-free (sparse J) or with the matrix formed (dense).\n\n"
           "usage: texla-cubes [OPTION]...\n"
           "  --cubes N          a scene of N cubes, 1..16384 (60)\n"
           "  --scene S          with --cubes: wall (about 10:6, in layers past 24 high),\n"
           "                     pyramid (each cube on four) or pile (turned cubes dropped)\n"
           "                     (wall)\n"
           "  --wall WxH         a wall W cubes wide and H high, W H <= 4096 (also\n"
           "                     --width-cubes W, --height-cubes H)\n"
           "  --solver S         sparse: one LCP of all contacts, matrix-free (J and M^-1 J'\n"
           "                     sparse; the default); dense: one LCP, A = J M^-1 J' formed;\n"
           "                     islands: one dense LCP per island\n"
           "  --mode M           older spelling: single (= --solver dense) or islands\n"
           "  --iters N          Jacobi iterations per step at least, 1..100000 (96)\n"
           "  --max-iters N      at most, after a step left unsolved, 1..100000 (4 x --iters;\n"
           "                     --max-iters N --iters N: a fixed count)\n"
           "  --omega W          Jacobi relaxation at most, in (0, 2] (0.7)\n"
           "  --mu MU            friction coefficient, >= 0; 0: none (0.6)\n"
           "  --matmul-k K       texla's MOPs per product pass (fragment backend)\n"
           "  --no-pool          make the GPU matrices anew every step (for measuring)\n"
           "  --backend B        texla's backend: fragment, compute or auto (auto: measured)\n"
           "  --shoot FRAME      a projectile at the wall at this frame (-1: none)\n"
           "  --headless         no window: draw offscreen, print statistics (also without a\n"
           "                     display, writing cubes.png)\n"
           "  --frames N         headless: frames to run (300); in a window with --png: frames\n"
           "                     before the screenshot\n"
           "  --png FILE         headless: write the last frame; in a window: a screenshot\n"
           "                     after --frames frames, then exit\n"
           "  --width W          headless image 960 x 600, window 1280 x 800, unless given\n"
           "  --height H\n"
           "  --no-hud           no on-screen text in the window\n"
           "  --keys             start with the key list on screen\n"
           "  --help             this text\n\n"
           "keys (the same map in every texla demo):\n%s", keys);
}

static int parse(int argc, char **argv, opts *o) {
    enum { O_CUBES = 256, O_WALL, O_WCUBES, O_HCUBES, O_MODE, O_ITERS, O_OMEGA, O_MU, O_MATMULK,
           O_NOPOOL, O_BACKEND, O_SHOOT, O_HEADLESS, O_FRAMES, O_PNG, O_WIDTH, O_HEIGHT, O_NOHUD,
           O_KEYS, O_SOLVER, O_SCENE, O_MAXITERS };
    static const struct option lo[] = {
        {"cubes", required_argument, 0, O_CUBES},
        {"wall", required_argument, 0, O_WALL},
        {"width-cubes", required_argument, 0, O_WCUBES},
        {"height-cubes", required_argument, 0, O_HCUBES},
        {"mode", required_argument, 0, O_MODE},
        {"solver", required_argument, 0, O_SOLVER},
        {"scene", required_argument, 0, O_SCENE},
        {"iters", required_argument, 0, O_ITERS},
        {"max-iters", required_argument, 0, O_MAXITERS},
        {"omega", required_argument, 0, O_OMEGA},
        {"mu", required_argument, 0, O_MU},
        {"matmul-k", required_argument, 0, O_MATMULK},
        {"no-pool", no_argument, 0, O_NOPOOL},
        {"backend", required_argument, 0, O_BACKEND},
        {"shoot", required_argument, 0, O_SHOOT},
        {"headless", no_argument, 0, O_HEADLESS},
        {"frames", required_argument, 0, O_FRAMES},
        {"png", required_argument, 0, O_PNG},
        {"width", required_argument, 0, O_WIDTH},
        {"height", required_argument, 0, O_HEIGHT},
        {"no-hud", no_argument, 0, O_NOHUD},
        {"keys", no_argument, 0, O_KEYS},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int c, bad = 0;
    while (!bad && (c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'h': help(); exit(0);
        case O_CUBES:
            bad = demo_opt_int(WHO, "cubes", optarg, 1, 16384, &o->cubes);
            o->wide = o->high = -1;
            break;
        case O_WALL: {
            char x = 0, rest = 0;
            if (sscanf(optarg, "%d%c%d%c", &o->wide, &x, &o->high, &rest) != 3 || x != 'x' ||
                o->wide < 1 || o->high < 1 || o->wide > 4096 || o->high > 4096 / o->wide) {
                fprintf(stderr, WHO ": --wall: '%s' is not WxH with W, H >= 1 and W H <= 4096\n",
                        optarg);
                bad = 1;
            }
            o->cubes = 0;
            break;
        }
        case O_WCUBES:
            bad = demo_opt_int(WHO, "width-cubes", optarg, 1, 4096, &o->wide), o->cubes = 0;
            break;
        case O_HCUBES:
            bad = demo_opt_int(WHO, "height-cubes", optarg, 1, 4096, &o->high), o->cubes = 0;
            break;
        case O_MODE: /* the older spelling of --solver dense|islands */
            if (!strcmp(optarg, "single")) o->solver = CUBES_SOLVER_DENSE;
            else if (!strcmp(optarg, "islands")) o->solver = CUBES_SOLVER_ISLANDS;
            else {
                fprintf(stderr, WHO ": --mode: '%s' is not single or islands\n", optarg);
                bad = 1;
            }
            break;
        case O_SOLVER:
            if ((o->solver = cubes_solver_parse(optarg)) < 0) {
                fprintf(stderr, WHO ": --solver: '%s' is not dense, islands or sparse\n", optarg);
                bad = 1;
            }
            break;
        case O_SCENE:
            if ((o->scene = cubes_scene_parse(optarg)) < 0) {
                fprintf(stderr, WHO ": --scene: '%s' is not wall, pyramid or pile\n", optarg);
                bad = 1;
            }
            break;
        case O_ITERS: bad = demo_opt_int(WHO, "iters", optarg, 1, 100000, &o->iters); break;
        case O_MAXITERS:
            bad = demo_opt_int(WHO, "max-iters", optarg, 1, 100000, &o->max_iters);
            break;
        case O_OMEGA: bad = demo_opt_float(WHO, "omega", optarg, 0, 1, 2, &o->omega); break;
        case O_MU:
            bad = demo_opt_float(WHO, "mu", optarg, 0, 0, 1000, &o->mu), o->mu_set = 1;
            break;
        case O_MATMULK: bad = demo_opt_int(WHO, "matmul-k", optarg, 1, 1 << 20, &o->matmul_k); break;
        case O_NOPOOL: o->no_pool = 1; break;
        case O_BACKEND: bad = demo_opt_backend(WHO, optarg, &o->backend); break;
        case O_SHOOT: bad = demo_opt_int(WHO, "shoot", optarg, -1, INT_MAX, &o->shoot); break;
        case O_HEADLESS: o->headless = 1; break;
        case O_FRAMES: bad = demo_opt_int(WHO, "frames", optarg, 1, INT_MAX / 8, &o->frames); break;
        case O_PNG: o->png = optarg; break;
        case O_WIDTH:
            bad = demo_opt_int(WHO, "width", optarg, 16, 8192, &o->width), o->win_w = o->width;
            break;
        case O_HEIGHT:
            bad = demo_opt_int(WHO, "height", optarg, 16, 8192, &o->height), o->win_h = o->height;
            break;
        case O_NOHUD: o->hud = 0; break;
        case O_KEYS: o->keys = 1; break;
        default: bad = 1; break; /* getopt_long said which option */
        }
    }
    if (!bad && optind < argc) {
        fprintf(stderr, WHO ": unexpected argument '%s'\n", argv[optind]);
        bad = 1;
    }
    if (!bad && o->max_iters) { /* below --iters the physics would take 4 x --iters instead */
        cubes_params none = {0};
        int floor = o->iters ? o->iters : cubes_params_resolve(&none).iterations;
        if (o->max_iters < floor) {
            fprintf(stderr, WHO ": --max-iters: %d is below the iterations at least (%d, --iters)\n",
                    o->max_iters, floor);
            bad = 1;
        }
    }
    if (!bad && !o->cubes) { /* a wall option: one of --width-cubes / --height-cubes keeps the other */
        if (o->wide == -1) o->wide = 10;
        if (o->high == -1) o->high = 6;
        if (o->wide * o->high > 4096) {
            fprintf(stderr, WHO ": --width-cubes x --height-cubes: %d x %d cubes, more than 4096\n",
                    o->wide, o->high);
            bad = 1;
        }
    }
    return bad ? -1 : 0;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    app a = {0};
    a.o = (opts){.cubes = 60, .wide = -1, .high = -1, .frames = 300, .shoot = -1, .width = 960,
                 .height = 600, .win_w = 1280, .win_h = 800, .hud = 1,
                 .backend = TEXLA_BACKEND_AUTO};
    if (parse(argc, argv, &a.o)) return demo_usage_hint(WHO);

    /* Init: a window and its context when there is a display, else texla's headless one */
    if (demo_open(WHO, a.o.headless, a.o.win_w, a.o.win_h, 1, a.o.frames, a.o.backend, &a.o.png,
                  "cubes.png", &a.win, &a.ctx))
        return 1;
    a.o.headless = a.win == NULL;
    cubes_params p = {.mu = a.o.mu, .iterations = a.o.iters, .omega = a.o.omega,
                      .solver = a.o.solver, .max_iterations = a.o.max_iters,
                      .no_pool = a.o.no_pool, .matmul_k = a.o.matmul_k};
    if (a.o.mu_set && a.o.mu == 0) p.mu = -1; /* frictionless (0 in the params: the default) */
    if (cubes_world_init(&a.world, a.ctx, &p)) {
        fprintf(stderr, "texla-cubes: %s\n", texla_error_message(a.ctx));
        return 1;
    }
    a.angle = -0.5f;
    if (render_init(&a) || build_scene(&a) || (a.win && demo_hud_init(&a.hud, WHO))) {
        fprintf(stderr, WHO ": initialisation failed\n");
        return 1;
    }
    if (a.win) a.hud.scale = demo_hud_scale_for(a.o.win_w, a.o.win_h);
    int rc = a.win ? run_window(&a) : run_headless(&a);
    /* Shutdown */
    cubes_world_free(&a.world);
    demo_hud_free(&a.hud);
    free(a.inst);
    glDeleteProgram(a.prog);
    glDeleteProgram(a.ground_prog);
    GLuint vaos[2] = {a.vao, a.ground_vao}, bufs[2] = {a.vbo, a.ibo};
    glDeleteVertexArrays(2, vaos);
    glDeleteBuffers(2, bufs);
    demo_offscreen_free(&a.fbo, &a.color, &a.depth);
    demo_close(a.win, a.ctx);
    return rc;
}
