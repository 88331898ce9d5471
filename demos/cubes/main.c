/* texla-cubes: walls, pyramids and piles of cubes knocked down by a projectile; every step's
 * contacts are one linear complementarity problem (or one per island) solved by projected Jacobi
 * on the GPU with texla: matrix-free (J and M^-1 J' sparse, A never formed; the default), or
 * with A = J M^-1 J' formed densely (the application of Moravanszky's "Dense Matrix Algebra on
 * the GPU", fig. 4). The physics is in physics.c; this file draws and interacts.
 *
 *   texla-cubes [--cubes N [--scene wall|pyramid|pile] | --wall WxH] [--mu MU] [--iters N]
 *               [--max-iters N] [--omega W] [--solver dense|islands|sparse]
 *               [--frames N --png FILE] [--shoot FRAME]
 *   texla-cubes --headless --frames N --png FILE [--cubes N] [--shoot FRAME] [--solver S]
 *               [--no-pool] [--width W --height H]
 *
 * Window: click or space shoots at the cursor / the structure, R reset, M solver (dense,
 * islands, sparse), + / - solver iterations, P pause, N single step (paused), H help, Esc quit.
 * Without a display it runs headless (writing cubes.png). In a window, --png FILE takes a
 * screenshot after --frames frames and exits (for tests). Headless prints the median and p95
 * of the frame time, the physics step, the solver (uploads, GPU products and Jacobi,
 * read-back), the LCP sizes, the CPU parts, a WARNING for unsolved LCPs and a one-line summary:
 * the benchmark is `--headless --frames N --cubes N --scene S --solver S` (bench/cubes_bench.sh
 * runs the matrix). */
#include <glad/gl.h>

#include "../common/demo.h"
#include "physics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct opts {
    int wide, high, cubes, headless, frames, shoot, width, height, iters, islands, no_pool, mu_set;
    int matmul_k;
    int solver, scene; /* cubes_solver (0: the default), cubes_scene_kind */
    int max_iters;     /* --max-iters (0: 4 x --iters) */
    int win_w, win_h; /* the window: 1280 x 800, or --width / --height when given */
    float mu, omega;
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
} app;


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

/* ---- PNG of the rendered frame (atomic: temporary file, then rename) ---- */


/* ---- interaction ---- */

static void help(void) {
    printf("texla-cubes keys: click/space shoot | R reset | M solver dense/islands/sparse | +/- solver "
           "iterations | P pause | N single step | H help | Esc quit\n");
}

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

static void key_cb(GLFWwindow *win, int key, int sc, int action, int mods) {
    (void)sc, (void)mods;
    app *a = glfwGetWindowUserPointer(win);
    if (action != GLFW_PRESS && action != GLFW_REPEAT) return;
    cubes_params *p = &a->world.p;
    switch (key) {
    case GLFW_KEY_SPACE: shoot(a, NULL); break;
    case GLFW_KEY_R: build_scene(a); break;
    case GLFW_KEY_M: /* the solver: dense -> islands -> sparse -> dense */
        p->solver = p->solver % CUBES_SOLVER_SPARSE + 1;
        break;
    case GLFW_KEY_EQUAL: case GLFW_KEY_KP_ADD:
        p->iterations += p->iterations / 4 > 1 ? p->iterations / 4 : 1;
        break;
    case GLFW_KEY_MINUS: case GLFW_KEY_KP_SUBTRACT:
        p->iterations -= p->iterations / 5 > 1 ? p->iterations / 5 : 1;
        if (p->iterations < 1) p->iterations = 1;
        break;
    case GLFW_KEY_P: a->paused = !a->paused; break;
    case GLFW_KEY_N: a->paused = 1, a->step_once = 1; break;
    case GLFW_KEY_H: help(); break;
    case GLFW_KEY_ESCAPE: glfwSetWindowShouldClose(win, 1); break;
    }
}

static void mouse_cb(GLFWwindow *win, int button, int action, int mods) {
    (void)mods;
    app *a = glfwGetWindowUserPointer(win);
    if (button != GLFW_MOUSE_BUTTON_LEFT || action != GLFW_PRESS) return;
    double mx, my;
    glfwGetCursorPos(win, &mx, &my);
    shoot_at_cursor(a, mx, my);
}

/* ---- the loop ---- */


static void title(app *a, double fps) {
    const cubes_stats *s = &a->world.stats;
    char t[448], u[96] = "";
    int isl = s->solver == CUBES_SOLVER_ISLANDS;
    if (s->unsolved) /* the LCP clearly not solved this frame: say so */
        snprintf(u, sizeof u, " | UNSOLVED: %d rows w < -%.2g", s->unsolved_rows, s->w_tol);
    snprintf(t, sizeof t,
             "texla-cubes | %.1f fps | %d bodies | %d contacts | LCP %s%s: %d rows%s%d%s | "
             "Jacobi %d it (omega %.2f) %.1f ms | residual max|x w| %.1e, min w %.1e%s%s",
             fps, s->bodies, s->contacts, cubes_solver_name(s->solver) ? cubes_solver_name(s->solver) : "-",
             s->fallback ? " (too large: sparse)" : "", s->rows, isl ? " in " : " (",
             isl ? s->groups : s->padded_rows, isl ? " islands" : " padded)", a->world.p.iterations,
             s->omega_min, s->t_solve_ms, s->max_xw, s->min_w, u, a->paused ? " | paused" : "");
    if (a->win) glfwSetWindowTitle(a->win, t);
    else printf("%s\n", t);
}

static int step(app *a) {
    if (cubes_step(&a->world)) {
        fprintf(stderr, "texla-cubes: %s\n", texla_error_message(a->ctx));
        return -1;
    }
    return 0;
}

static int run_window(app *a) {
    help();
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
            a->angle += 0.0015f;
        }
        /* Draw */
        glfwGetFramebufferSize(a->win, &a->fb_w, &a->fb_h);
        draw(a);
        total++;
        if (a->o.png && total >= a->o.frames) { /* --png: a screenshot after --frames, then exit */
            int rc = demo_write_png("texla-cubes", a->fbo, a->fb_w, a->fb_h, a->o.png);
            if (!rc)
                printf("texla-cubes: wrote %s (window screenshot after %d frames)\n", a->o.png,
                       total);
            return rc ? 1 : 0;
        }
        glfwSwapBuffers(a->win);
        frames++;
        double t = demo_now_s();
        if (t - fps_t > 0.5) {
            title(a, frames / (t - fps_t));
            frames = 0;
            fps_t = t;
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
    enum { NSTAT = 13 };
    double *st = malloc(sizeof *st * NSTAT * (size_t)(n ? n : 1));
    if (!st) return 1;
    double *ft = st, *phys = st + n, *solve = st + 2 * n, *rows = st + 3 * n, *maxr = st + 4 * n,
           *groups = st + 5 * n, *coll = st + 6 * n, *broad = st + 7 * n, *build = st + 8 * n,
           *upl = st + 9 * n, *fin = st + 10 * n, *nnz = st + 11 * n, *its = st + 12 * n;
    long made = 0;
    float max_depth = 0, worst_w = 0, worst_xw = 0, worst_ratio = 0;
    int peak_contacts = 0, unsolved = 0, fallback = 0, first_unsolved = -1;
    texla_stats ts0, ts1;
    texla_ctx_stats(a->ctx, &ts0);
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

static int usage(const char *argv0) {
    fprintf(stderr,
            "usage: %s [--cubes N | --wall WxH | --width-cubes W --height-cubes H] [--mu MU]\n"
            "          [--scene wall|pyramid|pile] [--solver dense|islands|sparse]\n"
            "          [--iters N] [--max-iters N] [--omega W] [--mode single|islands]\n"
            "          [--shoot FRAME]\n"
            "          [--frames N --png FILE] [--headless] [--no-pool] [--matmul-k K]\n"
            "          [--width W --height H]\n",
            argv0);
    return 2;
}

static int parse_int(const char *s, int *out) {
    char *e;
    long v = strtol(s, &e, 10);
    if (e == s || *e || v < -1000000000L || v > 1000000000L) return -1;
    *out = (int)v;
    return 0;
}

static int parse_float(const char *s, float *out) {
    char *e;
    double v = strtod(s, &e);
    if (e == s || *e || !isfinite(v)) return -1;
    *out = (float)v;
    return 0;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    app a = {0};
    a.o = (opts){.cubes = 60, .wide = -1, .high = -1, .frames = 300, .shoot = -1, .width = 960,
                 .height = 600, .win_w = 1280, .win_h = 800};
    int bad = 0;
    for (int i = 1; i < argc && !bad; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL, *o = argv[i];
        if (!strcmp(o, "--headless")) a.o.headless = 1;
        else if (!strcmp(o, "--no-pool")) a.o.no_pool = 1;
        else if (!v) bad = 1;
        else if (!strcmp(o, "--cubes")) {
            bad = parse_int(v, &a.o.cubes) || a.o.cubes < 1, a.o.wide = a.o.high = -1, i++;
        } else if (!strcmp(o, "--wall")) {
            char x = 0, rest = 0;
            bad = sscanf(v, "%d%c%d%c", &a.o.wide, &x, &a.o.high, &rest) != 3 || x != 'x';
            a.o.cubes = 0, i++;
        } else if (!strcmp(o, "--width-cubes")) bad = parse_int(v, &a.o.wide), a.o.cubes = 0, i++;
        else if (!strcmp(o, "--height-cubes")) bad = parse_int(v, &a.o.high), a.o.cubes = 0, i++;
        else if (!strcmp(o, "--frames")) bad = parse_int(v, &a.o.frames), i++;
        else if (!strcmp(o, "--matmul-k")) {
            bad = parse_int(v, &a.o.matmul_k) || a.o.matmul_k < 1, i++;
        } else if (!strcmp(o, "--shoot")) bad = parse_int(v, &a.o.shoot), i++;
        else if (!strcmp(o, "--iters")) bad = parse_int(v, &a.o.iters) || a.o.iters < 1, i++;
        else if (!strcmp(o, "--max-iters")) {
            bad = parse_int(v, &a.o.max_iters) || a.o.max_iters < 1, i++;
        }
        else if (!strcmp(o, "--mu")) {
            bad = parse_float(v, &a.o.mu) || a.o.mu < 0, a.o.mu_set = 1, i++;
        } else if (!strcmp(o, "--omega")) {
            bad = parse_float(v, &a.o.omega) || !(a.o.omega > 0), i++;
        } else if (!strcmp(o, "--png")) a.o.png = v, i++;
        else if (!strcmp(o, "--width")) bad = parse_int(v, &a.o.width), a.o.win_w = a.o.width, i++;
        else if (!strcmp(o, "--height")) {
            bad = parse_int(v, &a.o.height), a.o.win_h = a.o.height, i++;
        } else if (!strcmp(o, "--mode")) { /* the older spelling of --solver dense|islands */
            if (!strcmp(v, "single")) a.o.solver = CUBES_SOLVER_DENSE;
            else if (!strcmp(v, "islands")) a.o.solver = CUBES_SOLVER_ISLANDS;
            else bad = 1;
            i++;
        } else if (!strcmp(o, "--solver")) {
            a.o.solver = cubes_solver_parse(v);
            bad = a.o.solver < 0, i++;
        } else if (!strcmp(o, "--scene")) {
            a.o.scene = cubes_scene_parse(v);
            bad = a.o.scene < 0, i++;
        } else bad = 1;
    }
    if (!a.o.cubes) { /* a wall option: one of --width-cubes / --height-cubes keeps the other */
        if (a.o.wide == -1) a.o.wide = 10;
        if (a.o.high == -1) a.o.high = 6;
    }
    if (bad || a.o.frames < 1 || a.o.shoot < -1 || a.o.width < 16 || a.o.height < 16 ||
        a.o.width > 8192 || a.o.height > 8192 ||
        (a.o.cubes && (a.o.cubes < 1 || a.o.cubes > 16384)) ||
        (!a.o.cubes && (a.o.wide < 1 || a.o.high < 1 || a.o.wide * a.o.high > 4096)) ||
        a.o.iters > 100000 || a.o.max_iters > 100000 || a.o.omega > 2)
        return usage(argv[0]);

    /* Init: a window and its context when there is a display, else texla's headless one */
    if (demo_open("texla-cubes", a.o.headless, a.o.win_w, a.o.win_h, 1, a.o.frames, &a.o.png, "cubes.png",
                  &a.win, &a.ctx))
        return 1;
    a.o.headless = a.win == NULL;
    cubes_params p = {.mu = a.o.mu, .iterations = a.o.iters, .omega = a.o.omega,
                      .solver = a.o.solver, .max_iterations = a.o.max_iters, .no_pool = a.o.no_pool, .matmul_k = a.o.matmul_k};
    if (a.o.mu_set && a.o.mu == 0) p.mu = -1; /* frictionless (0 in the params: the default) */
    if (cubes_world_init(&a.world, a.ctx, &p)) {
        fprintf(stderr, "texla-cubes: %s\n", texla_error_message(a.ctx));
        return 1;
    }
    a.angle = -0.5f;
    if (render_init(&a) || build_scene(&a)) {
        fprintf(stderr, "texla-cubes: initialisation failed\n");
        return 1;
    }
    int rc = a.win ? run_window(&a) : run_headless(&a);
    /* Shutdown */
    cubes_world_free(&a.world);
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
