/* physics.c - rigid boxes with contacts solved as an LCP on the GPU (see physics.h). */
#include "physics.h"
#include "par.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- small vector helpers ---- */

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static float dot3(const float a[3], const float b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static void cross3(const float a[3], const float b[3], float o[3]) {
    float x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2];
    float z = a[0] * b[1] - a[1] * b[0];
    o[0] = x, o[1] = y, o[2] = z;
}
static void sub3(const float a[3], const float b[3], float o[3]) {
    o[0] = a[0] - b[0], o[1] = a[1] - b[1], o[2] = a[2] - b[2];
}
static void mad3(const float a[3], float s, const float b[3], float o[3]) { /* o = a + s b */
    o[0] = a[0] + s * b[0], o[1] = a[1] + s * b[1], o[2] = a[2] + s * b[2];
}
static float len3(const float a[3]) { return sqrtf(dot3(a, a)); }
static void mat3_vec(const float m[9], const float v[3], float o[3]) {
    float x = m[0] * v[0] + m[1] * v[1] + m[2] * v[2];
    float y = m[3] * v[0] + m[4] * v[1] + m[5] * v[2];
    float z = m[6] * v[0] + m[7] * v[1] + m[8] * v[2];
    o[0] = x, o[1] = y, o[2] = z;
}
static void axis(const cubes_body *b, int k, float o[3]) {
    o[0] = b->R[k], o[1] = b->R[3 + k], o[2] = b->R[6 + k];
}
static float minf(float a, float b) { return a < b ? a : b; }
static float maxf(float a, float b) { return a > b ? a : b; }

/* R and the world inverse inertia from q */
static void body_refresh(cubes_body *b) {
    float w = b->q[0], x = b->q[1], y = b->q[2], z = b->q[3];
    float *R = b->R;
    R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z), R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x), R[8] = 1 - 2 * (x * x + y * y);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            float s = 0;
            for (int k = 0; k < 3; k++) s += R[i * 3 + k] * b->inv_inertia[k] * R[j * 3 + k];
            b->inv_inertia_w[i * 3 + j] = s;
        }
}

void cubes_body_model(const cubes_body *b, float m[16]) {
    float w = b->q[0], x = b->q[1], y = b->q[2], z = b->q[3];
    float R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                  2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                  2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)};
    for (int c = 0; c < 3; c++) {
        for (int r = 0; r < 3; r++) m[c * 4 + r] = R[r * 3 + c] * b->half[c];
        m[c * 4 + 3] = 0;
    }
    m[12] = b->x[0], m[13] = b->x[1], m[14] = b->x[2], m[15] = 1;
}

/* ---- world ---- */

cubes_params cubes_params_resolve(const cubes_params *in) {
    cubes_params p = {0};
    if (in) p = *in;
    if (p.dt == 0) p.dt = 1.0f / 60.0f;
    if (p.gravity == 0) p.gravity = 9.81f;
    else if (p.gravity < 0) p.gravity = 0;
    if (p.mu == 0) p.mu = 0.6f;
    else if (p.mu < 0) p.mu = 0;
    if (p.iterations == 0) p.iterations = 96;
    if (p.max_iterations < p.iterations) p.max_iterations = 4 * p.iterations;
    if (p.omega == 0) p.omega = 0.7f;
    if (p.beta == 0) p.beta = 0.2f;
    if (p.slop == 0) p.slop = 0.002f;
    if (p.margin == 0) p.margin = 0.02f;
    if (p.max_push == 0) p.max_push = 2.0f;
    if (p.solver <= CUBES_SOLVER_DEFAULT || p.solver > CUBES_SOLVER_SPARSE)
        p.solver = p.islands ? CUBES_SOLVER_ISLANDS : CUBES_SOLVER_DEFAULT_MODE;
    if (p.dense_max_rows <= 0) p.dense_max_rows = 16384;
    if (p.unsolved_tol <= 0) p.unsolved_tol = 0.02f;
    return p;
}

static const char *const solver_names[] = {[CUBES_SOLVER_DENSE] = "dense",
                                           [CUBES_SOLVER_ISLANDS] = "islands",
                                           [CUBES_SOLVER_SPARSE] = "sparse"};

const char *cubes_solver_name(int solver) {
    return solver >= CUBES_SOLVER_DENSE && solver <= CUBES_SOLVER_SPARSE ? solver_names[solver]
                                                                         : NULL;
}

int cubes_solver_parse(const char *name) {
    for (int i = CUBES_SOLVER_DENSE; name && i <= CUBES_SOLVER_SPARSE; i++)
        if (!strcmp(name, solver_names[i])) return i;
    return -1;
}

static const char *const scene_names[] = {"wall", "pyramid", "pile"};

const char *cubes_scene_name(int scene) {
    return scene >= 0 && scene <= CUBES_SCENE_PILE ? scene_names[scene] : NULL;
}

int cubes_scene_parse(const char *name) {
    for (int i = 0; name && i <= CUBES_SCENE_PILE; i++)
        if (!strcmp(name, scene_names[i])) return i;
    return -1;
}

int cubes_world_init(cubes_world *w, texla_ctx *ctx, const cubes_params *p) {
    memset(w, 0, sizeof *w);
    /* iteration counts below 0 or past CUBES_MAX_ITERATIONS: refused (2^30 overflowed the
     * doubled count; -5 failed the second step naming -2) */
    if (p && (p->iterations < 0 || p->iterations > CUBES_MAX_ITERATIONS ||
              p->max_iterations < 0 || p->max_iterations > CUBES_MAX_ITERATIONS))
        return -1;
    w->ctx = ctx;
    w->p = cubes_params_resolve(p);
    const char *sp = getenv("TEXLA_CUBES_SPLIT");
    w->split = sp && *sp && strcmp(sp, "0");
    par_init(0); /* the threads of the CPU work (one pool for every world; left to the exit) */
    if (w->p.matmul_k > 0 && texla_ctx_set_matmul_k(ctx, w->p.matmul_k)) return -1;
    return 0;
}

static void slot_free(cubes_world *w, cubes_slot *s) {
    texla_mat *m[7] = {&s->J, &s->B, &s->A, &s->b, &s->x, &s->fi, &s->mu};
    for (int i = 0; i < 7; i++) texla_mat_destroy(w->ctx, *m[i]), m[i]->id = 0;
    texla_lcp_workspace_destroy(w->ctx, &s->ws);
}

/* the sparse solver's per-step objects (the matrices and their product) */
static void sslot_drop_step(cubes_world *w, cubes_sslot *s) {
    texla_op_destroy(w->ctx, s->A);
    texla_sparse_destroy(w->ctx, s->J);
    texla_sparse_destroy(w->ctx, s->B);
    s->A = (texla_op){0, 0}, s->J.id = s->B.id = 0;
}

static void sslot_free(cubes_world *w, cubes_sslot *s) {
    sslot_drop_step(w, s);
    texla_vec *v[6] = {&s->x, &s->b, &s->d, &s->fi, &s->mu, &s->v};
    for (int i = 0; i < 6; i++) texla_vec_destroy(w->ctx, *v[i]), v[i]->id = 0;
    texla_lcp_op_workspace_destroy(w->ctx, &s->ws);
}

void cubes_world_free(cubes_world *w) {
    for (int i = 0; i < w->nslots; i++) slot_free(w, &w->slots[i]);
    for (int i = 0; i < w->nsslots; i++) sslot_free(w, &w->sslots[i]);
    free(w->slots), free(w->sslots);
    free(w->bodies), free(w->contacts), free(w->prev), free(w->groups);
    free(w->order), free(w->border), free(w->col), free(w->uf);
    free(w->hJ), free(w->hB), free(w->hb), free(w->hx), free(w->hfi), free(w->hmu), free(w->hc);
    free(w->hd), free(w->rows);
    free(w->sp_ptr), free(w->sp_col), free(w->sp_val), free(w->sp_bptr), free(w->sp_bfill);
    free(w->sp_bcol), free(w->sp_bval);
    free(w->bp_ent), free(w->bp_start), free(w->bp_pairs), free(w->bp_first), free(w->bp_box);
    memset(w, 0, sizeof *w);
}

void cubes_world_clear(cubes_world *w) {
    w->nbodies = w->ncontacts = w->nprev = w->ngroups = 0;
    w->time = 0;
    w->pending = 0;
}

/* grows *ptr to hold at least n items of size sz; returns 0 or -1 */
static int grow(void **ptr, int *cap, int n, size_t sz) {
    if (n <= *cap) return 0;
    int c = *cap ? *cap : 16;
    while (c < n) c *= 2;
    void *q = realloc(*ptr, sz * (size_t)c);
    if (!q) return -1;
    *ptr = q;
    *cap = c;
    return 0;
}

static int growz(float **ptr, size_t *cap, size_t n) {
    if (n <= *cap) return 0;
    size_t c = *cap ? *cap : 1024;
    while (c < n) c *= 2;
    float *q = realloc(*ptr, sizeof *q * c);
    if (!q) return -1;
    *ptr = q;
    *cap = c;
    return 0;
}

int cubes_add_box(cubes_world *w, const float pos[3], const float half[3], float mass,
                  const float q[4]) {
    if (!(mass > 0) || !isfinite(mass) || !pos || !half) return -1;
    for (int i = 0; i < 3; i++)
        if (!isfinite(pos[i]) || !(half[i] > 0) || !isfinite(half[i])) return -1;
    if (q) { /* a rotation: finite, and not of length 0 (normalised below) */
        float l2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
        if (!isfinite(l2) || !(l2 > 1e-12f)) return -1;
    }
    if (grow((void **)&w->bodies, &w->cap_bodies, w->nbodies + 1, sizeof *w->bodies)) return -1;
    cubes_body *b = &w->bodies[w->nbodies];
    memset(b, 0, sizeof *b);
    memcpy(b->x, pos, sizeof b->x);
    b->q[0] = 1;
    if (q) {
        float l = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        for (int i = 0; i < 4; i++) b->q[i] = q[i] / l;
    }
    memcpy(b->half, half, sizeof b->half);
    b->mass = mass;
    b->inv_mass = 1.0f / mass;
    float e[3] = {2 * half[0], 2 * half[1], 2 * half[2]};
    b->inv_inertia[0] = 12.0f / (mass * (e[1] * e[1] + e[2] * e[2]));
    b->inv_inertia[1] = 12.0f / (mass * (e[0] * e[0] + e[2] * e[2]));
    b->inv_inertia[2] = 12.0f / (mass * (e[0] * e[0] + e[1] * e[1]));
    b->color[0] = 0.8f, b->color[1] = 0.8f, b->color[2] = 0.8f;
    body_refresh(b);
    return w->nbodies++;
}

int cubes_scene_wall(cubes_world *w, int wide, int high, float edge, float gap) {
    static const float palette[4][3] = {
        {0.85f, 0.62f, 0.25f}, {0.30f, 0.55f, 0.80f}, {0.45f, 0.72f, 0.40f}, {0.80f, 0.80f, 0.78f}};
    float h = edge / 2, half[3] = {h, h, h};
    float x0 = -(wide - 1) * (edge + gap) / 2;
    for (int r = 0; r < high; r++)
        for (int c = 0; c < wide; c++) {
            float pos[3] = {x0 + c * (edge + gap), h + r * edge, 0};
            int i = cubes_add_box(w, pos, half, 1.0f, NULL);
            if (i < 0) return -1;
            memcpy(w->bodies[i].color, palette[(r + c) % 4], sizeof palette[0]);
        }
    return 0;
}

/* a small deterministic generator for the pile (the same pile on every machine) */
static float scene_rand(uint64_t *st) {
    *st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
    return (float)((*st >> 40) & 0xffffff) / (float)0x1000000; /* [0, 1) */
}

static const float scene_palette[4][3] = {
    {0.85f, 0.62f, 0.25f}, {0.30f, 0.55f, 0.80f}, {0.45f, 0.72f, 0.40f}, {0.80f, 0.80f, 0.78f}};

static int scene_box(cubes_world *w, float x, float y, float z, const float q[4], int colour) {
    float pos[3] = {x, y, z}, half[3] = {0.5f, 0.5f, 0.5f};
    int i = cubes_add_box(w, pos, half, 1.0f, q);
    if (i < 0) return -1;
    memcpy(w->bodies[i].color, scene_palette[colour & 3], sizeof scene_palette[0]);
    return 0;
}

int cubes_scene(cubes_world *w, int scene, int n, cubes_scene_info *info) {
    if (n < 1 || scene < 0 || scene > CUBES_SCENE_PILE) return -1;
    const float pitch = 1.05f; /* cubes of edge 1, 5 cm apart: no side contacts at rest */
    cubes_scene_info in = {{0, 0, 0}, 1, {0, 0, 0}};
    if (scene == CUBES_SCENE_WALL) {
        /* about 10:6, at most WALL_HIGH high: larger walls get thicker (layers 5 cm apart) */
        enum { WALL_HIGH = 24 };
        int deep = 1, per, high, wide;
        for (;; deep++) {
            per = (n + deep - 1) / deep;
            high = (int)lround(sqrt(per * 0.6));
            if (high < 1) high = 1;
            if (high <= WALL_HIGH) break;
        }
        wide = (per + high - 1) / high;
        int left = n, rows = 0;
        float z0 = -(deep - 1) * pitch / 2, x0 = -(wide - 1) * pitch / 2;
        for (int l = 0; l < deep; l++) {
            int here = left / (deep - l); /* spread the cubes evenly over the layers */
            left -= here;
            int full = here / wide, rest = here % wide;
            for (int r = 0; r < full; r++)
                for (int c = 0; c < wide; c++)
                    if (scene_box(w, x0 + c * pitch, 0.5f + r, z0 + l * pitch, NULL, r + c + l))
                        return -1;
            float xr = -(rest - 1) * pitch / 2; /* a partial top row, centred */
            for (int c = 0; c < rest; c++)
                if (scene_box(w, xr + c * pitch, 0.5f + full, z0 + l * pitch, NULL, 3)) return -1;
            if (full + (rest > 0) > rows) rows = full + (rest > 0);
        }
        in.centre[1] = rows * 0.4f;
        in.size = (float)(wide > rows ? wide : rows) * pitch;
        in.target[1] = in.centre[1] * 0.8f;
        in.target[2] = z0;
    } else if (scene == CUBES_SCENE_PYRAMID) {
        /* layers of b x b, (b-1) x (b-1), ... cubes, each layer centred, so every cube above the
         * first rests on four (a quarter of each one's top face) */
        int b = 1;
        while ((long)b * (b + 1) * (2 * b + 1) / 6 < n) b++;
        int left = n, layer = 0;
        for (; left > 0; layer++) {
            int side = b - layer;
            float x0 = -(side - 1) * pitch / 2;
            for (int i = 0; i < side * side && left > 0; i++, left--)
                if (scene_box(w, x0 + (i % side) * pitch, 0.5f + layer, x0 + (i / side) * pitch,
                              NULL, layer))
                    return -1;
        }
        in.centre[1] = layer * 0.35f;
        in.size = (float)(b > layer ? b : layer) * pitch;
        in.target[1] = 0.5f + layer * 0.2f;
    } else {
        /* a column of randomly turned cubes, s x s per layer, 1.8 m apart (no two can touch
         * whatever their turn: a cube's bounding sphere has radius 0.87), dropped from 2 m up */
        int side = (int)ceil(sqrt(n / 12.0));
        if (side < 2) side = 2;
        const float gap = 1.8f;
        uint64_t st = 0x9e3779b97f4a7c15ULL;
        float x0 = -(side - 1) * gap / 2;
        for (int i = 0; i < n; i++) {
            float q[4], ax[3], l = 0;
            for (int k = 0; k < 3; k++) ax[k] = scene_rand(&st) - 0.5f, l += ax[k] * ax[k];
            l = sqrtf(l) + 1e-6f;
            float ang = 3.14159265f * scene_rand(&st);
            q[0] = cosf(ang / 2);
            for (int k = 0; k < 3; k++) q[1 + k] = sinf(ang / 2) * ax[k] / l;
            int c = i % (side * side), layer = i / (side * side);
            float jx = 0.1f * (scene_rand(&st) - 0.5f), jz = 0.1f * (scene_rand(&st) - 0.5f);
            if (scene_box(w, x0 + (c % side) * gap + jx, 2.0f + layer * gap,
                          x0 + (c / side) * gap + jz, q, i))
                return -1;
        }
        /* where it lands: a heap about as wide as the column, a few cubes high */
        in.centre[1] = 1.5f;
        in.size = (float)side * gap + 4;
        in.target[1] = 1.0f;
    }
    if (info) *info = in;
    return 0;
}

int cubes_shoot(cubes_world *w, const float from[3], const float target[3], float speed) {
    float half[3] = {0.4f, 0.4f, 0.4f}, d[3];
    sub3(target, from, d);
    float dist = len3(d);
    if (!(dist > 0) || !(speed > 0)) return -1;
    int i = cubes_add_box(w, from, half, 4.0f, NULL);
    if (i < 0) return -1;
    cubes_body *b = &w->bodies[i];
    float t = dist / speed;
    for (int k = 0; k < 3; k++) b->v[k] = d[k] / t;
    b->v[1] += 0.5f * w->p.gravity * t; /* ballistic: arrive at the target after t */
    b->w[0] = 1.0f, b->w[1] = 2.0f;
    b->color[0] = 0.85f, b->color[1] = 0.15f, b->color[2] = 0.12f;
    b->projectile = 1;
    return i;
}

double cubes_kinetic_energy(const cubes_world *w) {
    double e = 0;
    for (int i = 0; i < w->nbodies; i++) {
        const cubes_body *b = &w->bodies[i];
        e += 0.5 * b->mass * (double)dot3(b->v, b->v);
        /* body-frame angular velocity R' w: E = 1/2 sum I_k (R'w)_k^2 */
        for (int k = 0; k < 3; k++) {
            double wk = (double)b->R[k] * b->w[0] + (double)b->R[3 + k] * b->w[1] +
                        (double)b->R[6 + k] * b->w[2];
            e += 0.5 * wk * wk / b->inv_inertia[k];
        }
    }
    return e;
}

double cubes_potential_energy(const cubes_world *w) {
    double e = 0;
    for (int i = 0; i < w->nbodies; i++)
        e += (double)w->bodies[i].mass * w->p.gravity * w->bodies[i].x[1];
    return e;
}

/* ---- contacts ---- */

static cubes_contact *new_contact(cubes_world *w) {
    if (grow((void **)&w->contacts, &w->cap_contacts, w->ncontacts + 1, sizeof *w->contacts))
        return NULL;
    cubes_contact *c = &w->contacts[w->ncontacts++];
    memset(c, 0, sizeof *c);
    return c;
}

/* n from b to a; p the contact point (midway between the surfaces) */
static int add_contact(cubes_world *w, int a, int b, const float p[3], const float n[3],
                       float depth) {
    cubes_contact *c = new_contact(w);
    if (!c) return -1;
    c->a = a, c->b = b;
    memcpy(c->p, p, sizeof c->p);
    memcpy(c->n, n, sizeof c->n);
    c->depth = depth;
    /* friction directions: a fixed function of n, so warm starts along them stay meaningful */
    float e[3] = {0, 0, 0};
    int k = fabsf(n[0]) < fabsf(n[1]) ? (fabsf(n[0]) < fabsf(n[2]) ? 0 : 2)
                                      : (fabsf(n[1]) < fabsf(n[2]) ? 1 : 2);
    e[k] = 1;
    cross3(n, e, c->t1);
    float l = len3(c->t1);
    for (int i = 0; i < 3; i++) c->t1[i] /= l;
    cross3(n, c->t1, c->t2);
    /* in a's frame: R' (p - x) */
    const cubes_body *A = &w->bodies[a];
    float d[3];
    sub3(p, A->x, d);
    for (int i = 0; i < 3; i++) c->la[i] = A->R[i] * d[0] + A->R[3 + i] * d[1] + A->R[6 + i] * d[2];
    return 0;
}

static void box_vertex(const cubes_body *b, int i, float o[3]) {
    float s[3] = {(i & 1) ? b->half[0] : -b->half[0], (i & 2) ? b->half[1] : -b->half[1],
                  (i & 4) ? b->half[2] : -b->half[2]};
    mat3_vec(b->R, s, o);
    for (int k = 0; k < 3; k++) o[k] += b->x[k];
}

/* the speculative distance of a body: the margin plus how far its points may move in a step */
static float reach(const cubes_world *w, const cubes_body *b) {
    return w->p.dt * (len3(b->v) + len3(b->w) * len3(b->half));
}

static int collide_ground(cubes_world *w, int ia) {
    const cubes_body *b = &w->bodies[ia];
    float lowest = b->x[1] - (b->half[0] + b->half[1] + b->half[2]);
    float margin = w->p.margin + reach(w, b);
    if (lowest > margin) return 0;
    static const float up[3] = {0, 1, 0};
    for (int i = 0; i < 8; i++) {
        float v[3];
        box_vertex(b, i, v);
        if (v[1] > margin) continue;
        float p[3] = {v[0], v[1] * 0.5f, v[2]};
        if (add_contact(w, ia, -1, p, up, -v[1])) return -1;
    }
    return 0;
}

/* Sutherland-Hodgman: keeps the part of polygon in (n pts) with dot(ax, p - o) * s <= h.
 * Points within eps of the plane count as on it: aligned boxes put the incident face's edges
 * exactly on the side planes, and rounding noise there must not cut an edge at a random point
 * (that point could then replace a corner in the manifold). */
static int clip(const float (*in)[3], int n, float (*out)[3], const float ax[3], float s,
                const float o[3], float h) {
    int m = 0;
    const float eps = 1e-4f * h;
    for (int i = 0; i < n; i++) {
        const float *p = in[i], *q = in[(i + 1) % n];
        float dp[3], dq[3];
        sub3(p, o, dp);
        sub3(q, o, dq);
        float fp = s * dot3(ax, dp) - h, fq = s * dot3(ax, dq) - h;
        if (fp <= eps) memcpy(out[m++], p, sizeof out[0]);
        if ((fp < -eps && fq > eps) || (fp > eps && fq < -eps)) {
            float t = fp / (fp - fq);
            for (int k = 0; k < 3; k++) out[m][k] = p[k] + t * (q[k] - p[k]);
            m++;
        }
    }
    return m;
}

/* face contact: reference box r (face axis i), incident box c, nrc unit normal from r to c;
 * contacts are reported with the normal from b to a for the pair (a, b) = (ia, ib) */
static int face_contact(cubes_world *w, int ia, int ib, int ref_is_a, int i, const float nrc[3],
                        float margin) {
    const cubes_body *R = &w->bodies[ref_is_a ? ia : ib], *C = &w->bodies[ref_is_a ? ib : ia];
    /* incident face: the face of C most anti-parallel to nrc */
    int j = 0;
    float best = -1, ax[3][3], rx[3][3];
    for (int k = 0; k < 3; k++) {
        axis(C, k, ax[k]);
        axis(R, k, rx[k]);
        float d = fabsf(dot3(nrc, ax[k]));
        if (d > best) best = d, j = k;
    }
    float sgn = dot3(nrc, ax[j]) > 0 ? -1.0f : 1.0f;
    int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
    float fc[3];
    mad3(C->x, sgn * C->half[j], ax[j], fc);
    float poly[8][3], tmp[8][3];
    static const float corner[4][2] = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
    for (int k = 0; k < 4; k++) {
        mad3(fc, corner[k][0] * C->half[j1], ax[j1], poly[k]);
        mad3(poly[k], corner[k][1] * C->half[j2], ax[j2], poly[k]);
    }
    int n = 4, i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    n = clip((const float (*)[3])poly, n, tmp, rx[i1], 1, R->x, R->half[i1]);
    n = clip((const float (*)[3])tmp, n, poly, rx[i1], -1, R->x, R->half[i1]);
    n = clip((const float (*)[3])poly, n, tmp, rx[i2], 1, R->x, R->half[i2]);
    n = clip((const float (*)[3])tmp, n, poly, rx[i2], -1, R->x, R->half[i2]);
    /* points within the margin of the reference face */
    float rc[3], sep[8];
    mad3(R->x, R->half[i], nrc, rc);
    int keep[8], nk = 0;
    const float dup = 1e-3f * C->half[j1];
    for (int k = 0; k < n; k++) {
        float d[3];
        sub3(poly[k], rc, d);
        sep[k] = dot3(nrc, d);
        int twin = 0; /* a point the clipping made twice */
        for (int e = 0; e < nk && !twin; e++) {
            sub3(poly[k], poly[keep[e]], d);
            twin = dot3(d, d) < dup * dup;
        }
        if (sep[k] <= margin && !twin) keep[nk++] = k;
    }
    if (nk == 0) return 0;
    int sel[4], ns = nk;
    if (nk <= 4) {
        for (int k = 0; k < nk; k++) sel[k] = keep[k];
    } else {
        /* the deepest (of points equally deep within a small tolerance, the one farthest from
         * the centre, so a flat contact starts at a corner), the farthest from it, then the
         * largest triangle, then the largest quad */
        float lo = FLT_MAX, cen[3] = {0, 0, 0};
        for (int k = 0; k < nk; k++) {
            lo = minf(lo, sep[keep[k]]);
            mad3(cen, 1.0f / (float)nk, poly[keep[k]], cen);
        }
        int s0 = -1;
        float far = -1;
        for (int k = 0; k < nk; k++) {
            float d[3];
            sub3(poly[keep[k]], cen, d);
            if (sep[keep[k]] <= lo + 1e-3f * R->half[i] && dot3(d, d) > far)
                far = dot3(d, d), s0 = keep[k];
        }
        int s1 = -1;
        float bd = -1;
        for (int k = 0; k < nk; k++) {
            float d[3];
            sub3(poly[keep[k]], poly[s0], d);
            if (keep[k] != s0 && dot3(d, d) > bd) bd = dot3(d, d), s1 = keep[k];
        }
        int s2 = -1;
        float ba = -1, e01[3], nt[3];
        sub3(poly[s1], poly[s0], e01);
        for (int k = 0; k < nk; k++) {
            if (keep[k] == s0 || keep[k] == s1) continue;
            float d[3], cr[3];
            sub3(poly[keep[k]], poly[s0], d);
            cross3(e01, d, cr);
            if (len3(cr) > ba) ba = len3(cr), s2 = keep[k];
        }
        float d2[3];
        sub3(poly[s2], poly[s0], d2);
        cross3(e01, d2, nt);
        int tri[3] = {s0, s1, s2}, s3 = -1;
        float bg = -FLT_MAX;
        for (int k = 0; k < nk; k++) {
            int c = keep[k];
            if (c == s0 || c == s1 || c == s2) continue;
            float gain = -FLT_MAX;
            for (int e = 0; e < 3; e++) { /* area outside the triangle across edge e */
                float ee[3], dc[3], cr[3];
                sub3(poly[tri[(e + 1) % 3]], poly[tri[e]], ee);
                sub3(poly[c], poly[tri[e]], dc);
                cross3(ee, dc, cr);
                gain = maxf(gain, -dot3(cr, nt));
            }
            if (gain > bg) bg = gain, s3 = c;
        }
        sel[0] = s0, sel[1] = s1, sel[2] = s2, sel[3] = s3;
        ns = 4;
    }
    float nab[3]; /* normal from b to a */
    for (int k = 0; k < 3; k++) nab[k] = ref_is_a ? -nrc[k] : nrc[k];
    for (int k = 0; k < ns; k++) {
        float p[3];
        mad3(poly[sel[k]], -0.5f * sep[sel[k]], nrc, p);
        if (add_contact(w, ia, ib, p, nab, -sep[sel[k]])) return -1;
    }
    return 0;
}

static int collide_boxes(cubes_world *w, int ia, int ib) {
    const cubes_body *A = &w->bodies[ia], *B = &w->bodies[ib];
    float d[3], ax[3][3], bx[3][3];
    sub3(B->x, A->x, d);
    float ra0 = len3(A->half), rb0 = len3(B->half);
    const float margin = w->p.margin + reach(w, A) + reach(w, B);
    if (dot3(d, d) > (ra0 + rb0 + margin) * (ra0 + rb0 + margin)) return 0;
    for (int k = 0; k < 3; k++) axis(A, k, ax[k]), axis(B, k, bx[k]);
    float C[3][3], absC[3][3]; /* C_ij = a_i . b_j */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            C[i][j] = dot3(ax[i], bx[j]), absC[i][j] = fabsf(C[i][j]) + 1e-6f;
    float sep_a = -FLT_MAX, sep_b = -FLT_MAX, sep_e = -FLT_MAX;
    int fa = 0, fb = 0, ei = -1, ej = -1;
    for (int i = 0; i < 3; i++) {
        float rb = B->half[0] * absC[i][0] + B->half[1] * absC[i][1] + B->half[2] * absC[i][2];
        float s = fabsf(dot3(d, ax[i])) - A->half[i] - rb;
        if (s > margin) return 0;
        if (s > sep_a) sep_a = s, fa = i;
    }
    for (int j = 0; j < 3; j++) {
        float ra = A->half[0] * absC[0][j] + A->half[1] * absC[1][j] + A->half[2] * absC[2][j];
        float s = fabsf(dot3(d, bx[j])) - B->half[j] - ra;
        if (s > margin) return 0;
        if (s > sep_b) sep_b = s, fb = j;
    }
    float eu[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            float u[3];
            cross3(ax[i], bx[j], u);
            float l = len3(u);
            if (l < 1e-3f) continue; /* parallel edges: the face axes cover them */
            for (int k = 0; k < 3; k++) u[k] /= l;
            float ra = 0, rb = 0;
            for (int k = 0; k < 3; k++)
                ra += A->half[k] * fabsf(dot3(u, ax[k])), rb += B->half[k] * fabsf(dot3(u, bx[k]));
            float s = fabsf(dot3(d, u)) - ra - rb;
            if (s > margin) return 0;
            if (s > sep_e) sep_e = s, ei = i, ej = j, memcpy(eu, u, sizeof eu);
        }
    /* prefer faces (stable manifolds), A over B, unless clearly worse (Box2D's tolerances) */
    const float rel = 0.95f, abs_tol = 0.01f * minf(A->half[0], B->half[0]);
    int ref_a = !(sep_b > rel * sep_a + abs_tol);
    float sep_f = ref_a ? sep_a : sep_b;
    if (ei >= 0 && sep_e > rel * sep_f + abs_tol) {
        /* edge-edge: the support edges along u (u from A to B), closest points */
        if (dot3(eu, d) < 0)
            for (int k = 0; k < 3; k++) eu[k] = -eu[k];
        float pa[3], pb[3];
        memcpy(pa, A->x, sizeof pa);
        memcpy(pb, B->x, sizeof pb);
        for (int k = 0; k < 3; k++) {
            if (k != ei) mad3(pa, dot3(eu, ax[k]) > 0 ? A->half[k] : -A->half[k], ax[k], pa);
            if (k != ej) mad3(pb, dot3(eu, bx[k]) > 0 ? -B->half[k] : B->half[k], bx[k], pb);
        }
        /* lines pa + s ax[ei], pb + t bx[ej] */
        float r[3];
        sub3(pa, pb, r);
        float b = dot3(ax[ei], bx[ej]), c = dot3(ax[ei], r), f = dot3(bx[ej], r);
        float den = 1 - b * b, s = 0, t = 0;
        if (den > 1e-6f) s = (b * f - c) / den;
        s = maxf(-A->half[ei], minf(A->half[ei], s));
        t = b * s + f;
        t = maxf(-B->half[ej], minf(B->half[ej], t));
        float qa[3], qb[3], p[3], n[3];
        mad3(pa, s, ax[ei], qa);
        mad3(pb, t, bx[ej], qb);
        for (int k = 0; k < 3; k++) p[k] = 0.5f * (qa[k] + qb[k]), n[k] = -eu[k];
        return add_contact(w, ia, ib, p, n, -sep_e);
    }
    float n[3]; /* from the reference box to the incident one */
    if (ref_a) {
        float sg = dot3(d, ax[fa]) > 0 ? 1.0f : -1.0f;
        for (int k = 0; k < 3; k++) n[k] = sg * ax[fa][k];
        return face_contact(w, ia, ib, 1, fa, n, margin);
    }
    float sg = dot3(d, bx[fb]) > 0 ? -1.0f : 1.0f; /* from B towards A */
    for (int k = 0; k < 3; k++) n[k] = sg * bx[fb][k];
    return face_contact(w, ia, ib, 0, fb, n, margin);
}

/* Warm starts. The previous step's contacts are sorted by pair, and a pair's new contacts are
 * consecutive. Each new contact takes the impulses of the previous contact of its pair nearest
 * to it (in a's frame, within a fifth of a's smallest half extent). A new point that matches
 * none (the manifold changed: a clipped corner moved, a point was traded in the reduction to
 * 4) gets an equal share of what the pair carried and the matched points do not carry now, so
 * a manifold change keeps the pair's load: a cold point would let the stack sag and rebound. */
static long pair_key(const cubes_world *w, int a, int b) {
    return (long)a * (w->nbodies + 1) + (b + 1);
}

/* the order of pair_key: by a, then b */
static int cmp_prev(const void *x, const void *y) {
    const cubes_contact *p = x, *q = y;
    if (p->a != q->a) return (p->a > q->a) - (p->a < q->a);
    return (p->b > q->b) - (p->b < q->b);
}

static void friction_vector(const cubes_contact *c, float f[3]) {
    for (int k = 0; k < 3; k++) f[k] = c->lambda[1] * c->t1[k] + c->lambda[2] * c->t2[k];
}

static void warm_start(cubes_world *w) {
    for (int i0 = 0; i0 < w->ncontacts;) {
        long key = pair_key(w, w->contacts[i0].a, w->contacts[i0].b);
        int i1 = i0 + 1;
        while (i1 < w->ncontacts && pair_key(w, w->contacts[i1].a, w->contacts[i1].b) == key) i1++;
        int lo = 0, hi = w->nprev; /* first prev with key >= key */
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (pair_key(w, w->prev[mid].a, w->prev[mid].b) < key) lo = mid + 1;
            else hi = mid;
        }
        hi = lo;
        float load = 0, F[3] = {0, 0, 0}, f[3];
        for (; hi < w->nprev && pair_key(w, w->prev[hi].a, w->prev[hi].b) == key; hi++) {
            load += w->prev[hi].lambda[0];
            friction_vector(&w->prev[hi], f);
            mad3(F, 1, f, F);
        }
        const cubes_body *A = &w->bodies[w->contacts[i0].a];
        float tol = 0.2f * minf(A->half[0], minf(A->half[1], A->half[2]));
        int unmatched = 0;
        for (int i = i0; i < i1; i++) {
            cubes_contact *c = &w->contacts[i];
            const cubes_contact *m = NULL;
            float best = tol * tol;
            for (int k = lo; k < hi; k++) {
                float d[3];
                sub3(w->prev[k].la, c->la, d);
                if (dot3(d, d) < best) best = dot3(d, d), m = &w->prev[k];
            }
            if (!m) {
                unmatched++;
                continue;
            }
            c->warm = 1;
            memcpy(c->ev, m->ev, sizeof c->ev);
            c->lmax = m->lmax;
            c->lambda[0] = m->lambda[0];
            friction_vector(m, f); /* the old friction impulse, on the new directions */
            c->lambda[1] = dot3(f, c->t1);
            c->lambda[2] = dot3(f, c->t2);
            load -= m->lambda[0];
            mad3(F, -1, f, F);
        }
        if (unmatched && hi > lo) {
            float share = maxf(load, 0) / (float)unmatched, s = 1.0f / (float)unmatched;
            for (int i = i0; i < i1; i++) {
                cubes_contact *c = &w->contacts[i];
                if (c->warm) continue;
                c->warm = 2;
                c->lambda[0] = share;
                c->lambda[1] = s * dot3(F, c->t1);
                c->lambda[2] = s * dot3(F, c->t2);
            }
        }
        i0 = i1;
    }
}

/* ---- the broadphase ----
 * Each body's bounding sphere, grown by its reach and half the margin, is exactly the first
 * test of collide_boxes: two bodies can touch this step only where their spheres overlap. The
 * bodies go into a uniform grid by their centres (cells as wide as the largest sphere, at most
 * 8 mean radii so one fast body cannot make every cell huge), hashed into buckets and counting-
 * sorted; each body then looks for partners of higher index in its cell and the 26 around it,
 * so each pair is found once and the work is O(bodies + candidate pairs). A body wider than a
 * cell (absurdly fast) is tested against every body instead. The pairs come out sorted by
 * (i, j): the narrow phase runs in the order of the all-pairs loop it replaces, so contacts (and
 * results) do not depend on the broadphase. */

static uint32_t cell_hash(int x, int y, int z) {
    return (uint32_t)x * 73856093u ^ (uint32_t)y * 19349663u ^ (uint32_t)z * 83492791u;
}

/* the cell of coordinate v (clamped: a body flying off cannot overflow an int) */
static int cell_of(float v, float inv_h) {
    float c = floorf(v * inv_h);
    return c < -1e6f ? -1000000 : c > 1e6f ? 1000000 : (int)c;
}

typedef struct bp_entry {
    int body, cx, cy, cz;
} bp_entry;

/* appends pair (i, j) to bp_pairs at *np */
static int bp_add(cubes_world *w, int *np, int j) {
    if (grow((void **)&w->bp_pairs, &w->cap_bp_pairs, *np + 1, sizeof *w->bp_pairs)) return -1;
    w->bp_pairs[(*np)++] = j;
    return 0;
}

static int broadphase(cubes_world *w) {
    int n = w->nbodies;
    w->stats.pairs = 0;
    if (grow((void **)&w->bp_box, &w->cap_bp_box, 4 * n + 4, sizeof *w->bp_box) ||
        grow((void **)&w->bp_first, &w->cap_bp_first, n + 2, sizeof *w->bp_first) ||
        grow(&w->bp_ent, &w->cap_bp_ent, n + 1, sizeof(bp_entry)))
        return -1;
    float *box = w->bp_box, rmax = 0;
    double rsum = 0;
    int live = 0;
    for (int i = 0; i < n; i++) {
        const cubes_body *b = &w->bodies[i];
        float r = len3(b->half) + reach(w, b) + 0.5f * w->p.margin;
        int ok = isfinite(b->x[0]) && isfinite(b->x[1]) && isfinite(b->x[2]) && isfinite(r);
        box[4 * i] = b->x[0], box[4 * i + 1] = b->x[1], box[4 * i + 2] = b->x[2];
        box[4 * i + 3] = ok ? r : -1; /* a body gone non-finite meets nothing */
        if (ok) rsum += r, live++;
    }
    int *first = w->bp_first;
    memset(first, 0, sizeof *first * (size_t)(n + 2));
    if (live < 2) return 0;
    for (int i = 0; i < n; i++)
        if (box[4 * i + 3] >= 0) rmax = maxf(rmax, minf(box[4 * i + 3], (float)(4 * rsum / live)));
    float h = 2 * rmax, inv_h = 1.0f / h; /* a body of radius <= h/2 meets only its 27 cells */
    int nbk = 1;
    while (nbk < 2 * live) nbk *= 2;
    if (grow((void **)&w->bp_start, &w->cap_bp_start, nbk + 1 + n, sizeof *w->bp_start))
        return -1;
    int *start = w->bp_start, *sorted = start + nbk + 1;
    bp_entry *ent = w->bp_ent;
    memset(start, 0, sizeof *start * (size_t)(nbk + 1));
    int nbig = 0;
    for (int i = 0; i < n; i++) {
        const float *c = box + 4 * i;
        ent[i] = (bp_entry){-1, 0, 0, 0};
        if (c[3] < 0) continue;
        if (c[3] > h / 2) { /* too wide for the grid */
            nbig++;
            continue;
        }
        ent[i] = (bp_entry){i, cell_of(c[0], inv_h), cell_of(c[1], inv_h), cell_of(c[2], inv_h)};
        start[(cell_hash(ent[i].cx, ent[i].cy, ent[i].cz) & (uint32_t)(nbk - 1)) + 1]++;
    }
    for (int b = 0; b < nbk; b++) start[b + 1] += start[b];
    for (int i = 0; i < n; i++) /* bodies by bucket, in increasing index within a bucket */
        if (ent[i].body >= 0)
            sorted[start[cell_hash(ent[i].cx, ent[i].cy, ent[i].cz) & (uint32_t)(nbk - 1)]++] = i;
    for (int b = nbk; b > 0; b--) start[b] = start[b - 1];
    start[0] = 0;
    int np = 0;
    for (int i = 0; i < n; i++) {
        first[i] = np;
        const float *c0 = box + 4 * i;
        if (c0[3] < 0) continue;
        int big = ent[i].body < 0;
        if (big || nbig) { /* a big body meets all; everyone meets the big ones */
            for (int j = i + 1; j < n; j++) {
                const float *c1 = box + 4 * j;
                if (c1[3] < 0 || (!big && ent[j].body >= 0)) continue;
                float d[3] = {c1[0] - c0[0], c1[1] - c0[1], c1[2] - c0[2]}, rr = c0[3] + c1[3];
                if (dot3(d, d) <= rr * rr && bp_add(w, &np, j)) return -1;
            }
            if (big) continue;
        }
        const bp_entry *e0 = &ent[i];
        for (int dx = -1; dx <= 1; dx++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dz = -1; dz <= 1; dz++) {
                    int cx = e0->cx + dx, cy = e0->cy + dy, cz = e0->cz + dz;
                    uint32_t bk = cell_hash(cx, cy, cz) & (uint32_t)(nbk - 1);
                    for (int k = start[bk]; k < start[bk + 1]; k++) {
                        int j = sorted[k];
                        if (j <= i) continue;
                        const bp_entry *e1 = &ent[j];
                        if (e1->cx != cx || e1->cy != cy || e1->cz != cz) continue;
                        const float *c1 = box + 4 * j;
                        float d[3] = {c1[0] - c0[0], c1[1] - c0[1], c1[2] - c0[2]};
                        float rr = c0[3] + c1[3];
                        if (dot3(d, d) <= rr * rr && bp_add(w, &np, j)) return -1;
                    }
                }
        /* i's partners in increasing order (the all-pairs loop's); short lists */
        int *js = w->bp_pairs;
        for (int a = first[i] + 1; a < np; a++) {
            int v = js[a], c = a;
            while (c > first[i] && js[c - 1] > v) js[c] = js[c - 1], c--;
            js[c] = v;
        }
    }
    first[n] = np;
    w->stats.pairs = np;
    return 0;
}

static int collide(cubes_world *w) {
    w->ncontacts = 0;
    double t = now_ms();
    if (broadphase(w)) return -1;
    w->stats.t_broad_ms = now_ms() - t;
    const int *first = w->bp_first, *js = w->bp_pairs;
    for (int i = 0; i < w->nbodies; i++) {
        if (collide_ground(w, i)) return -1;
        for (int k = first[i]; k < first[i + 1]; k++)
            if (collide_boxes(w, i, js[k])) return -1;
    }
    warm_start(w);
    return 0;
}

/* ---- groups ---- */

static int uf_find(int *uf, int i) {
    while (uf[i] != i) uf[i] = uf[uf[i]], i = uf[i];
    return i;
}

/* size classes: round up to a multiple of max(4, 2^floor(log2 n) / 8) (padding <= 12.5%) */
static int size_class(int n) {
    int p = 1;
    while (p * 2 <= n) p *= 2;
    int q = p / 8 < 4 ? 4 : p / 8;
    return (n + q - 1) / q * q;
}

static int make_groups(cubes_world *w, int islands) {
    int nb = w->nbodies, nc = w->ncontacts;
    if (grow((void **)&w->uf, &w->cap_uf, nb + 1, sizeof *w->uf) ||
        grow((void **)&w->border, &w->cap_border, nb + 1, sizeof *w->border) ||
        grow((void **)&w->col, &w->cap_col, nb + 1, sizeof *w->col) ||
        grow((void **)&w->order, &w->cap_order, nc + 1, sizeof *w->order))
        return -1;
    int *uf = w->uf, *root_group = w->col; /* col doubles as root -> group before columns */
    for (int i = 0; i < nb; i++) uf[i] = i;
    if (islands)
        for (int k = 0; k < nc; k++) {
            const cubes_contact *c = &w->contacts[k];
            if (c->b < 0) continue;
            int ra = uf_find(uf, c->a), rb = uf_find(uf, c->b);
            if (ra != rb) uf[ra < rb ? rb : ra] = ra < rb ? ra : rb;
        }
    for (int i = 0; i < nb; i++) root_group[i] = -1;
    w->ngroups = 0;
    for (int k = 0; k < nc; k++) {
        cubes_contact *c = &w->contacts[k];
        int r = islands ? uf_find(uf, c->a) : 0;
        if (root_group[r] < 0) {
            if (grow((void **)&w->groups, &w->cap_groups, w->ngroups + 1, sizeof *w->groups))
                return -1;
            memset(&w->groups[w->ngroups], 0, sizeof *w->groups);
            root_group[r] = w->ngroups++;
        }
        c->group = root_group[r];
        w->groups[c->group].nc++;
    }
    /* contacts sorted by group (counting sort, stable) */
    int acc = 0;
    for (int g = 0; g < w->ngroups; g++)
        w->groups[g].c0 = acc, acc += w->groups[g].nc, w->groups[g].nc = 0;
    for (int k = 0; k < nc; k++) {
        cubes_group *g = &w->groups[w->contacts[k].group];
        w->order[g->c0 + g->nc++] = k;
    }
    /* bodies of each group and their columns */
    for (int i = 0; i < nb; i++) w->col[i] = -1;
    int nbo = 0;
    for (int g = 0; g < w->ngroups; g++) {
        cubes_group *G = &w->groups[g];
        G->b0 = nbo;
        for (int k = 0; k < G->nc; k++) {
            const cubes_contact *c = &w->contacts[w->order[G->c0 + k]];
            int ids[2] = {c->a, c->b};
            for (int e = 0; e < 2; e++)
                if (ids[e] >= 0 && w->col[ids[e]] < 0) {
                    w->col[ids[e]] = nbo - G->b0;
                    w->border[nbo++] = ids[e];
                }
        }
        G->nb = nbo - G->b0;
        G->m = 3 * G->nc;
        G->K = 6 * G->nb;
        G->mc = size_class(G->m);
        G->kc = size_class(G->K + 1); /* at least one spare column for the padding rows */
    }
    return 0;
}

/* ---- the GPU matrix pool ---- */

static int slot_acquire(cubes_world *w, int mc, int kc) {
    for (int i = 0; i < w->nslots; i++) {
        cubes_slot *s = &w->slots[i];
        if (!s->in_use && s->mc == mc && s->kc == kc) {
            s->in_use = 1;
            s->last_used = w->frame;
            return i;
        }
    }
    if (grow((void **)&w->slots, &w->cap_slots, w->nslots + 1, sizeof *w->slots)) return -1;
    cubes_slot *s = &w->slots[w->nslots];
    memset(s, 0, sizeof *s);
    s->mc = mc, s->kc = kc, s->in_use = 1, s->last_used = w->frame;
    texla_ctx *ctx = w->ctx;
    texla_result r = texla_mat_make(ctx, mc, kc, NULL, &s->J);
    if (!r) r = texla_mat_make(ctx, mc, kc, NULL, &s->B);
    if (!r) r = texla_mat_make(ctx, mc, mc, NULL, &s->A);
    if (!r) r = texla_mat_make(ctx, mc, 1, NULL, &s->b);
    if (!r) r = texla_mat_make(ctx, mc, 1, NULL, &s->x);
    if (!r) r = texla_mat_make(ctx, mc, 1, NULL, &s->fi);
    if (!r) r = texla_mat_make(ctx, mc, 1, NULL, &s->mu);
    if (!r) r = texla_lcp_workspace_make(ctx, mc, &s->ws);
    w->stats.mats_made += 11;
    if (r) {
        slot_free(w, s);
        return -1;
    }
    return w->nslots++;
}

/* the sparse solver's vectors for (mc, kc), from the pool */
static int sslot_acquire(cubes_world *w, int mc, int kc) {
    for (int i = 0; i < w->nsslots; i++) {
        cubes_sslot *s = &w->sslots[i];
        if (!s->in_use && s->mc == mc && s->kc == kc) {
            s->in_use = 1;
            s->last_used = w->frame;
            return i;
        }
    }
    if (grow((void **)&w->sslots, &w->cap_sslots, w->nsslots + 1, sizeof *w->sslots)) return -1;
    cubes_sslot *s = &w->sslots[w->nsslots];
    memset(s, 0, sizeof *s);
    s->mc = mc, s->kc = kc, s->in_use = 1, s->last_used = w->frame;
    texla_ctx *ctx = w->ctx;
    texla_vec *v[5] = {&s->x, &s->b, &s->d, &s->fi, &s->mu};
    texla_result r = TEXLA_OK;
    for (int i = 0; i < 5 && !r; i++) r = texla_vec_make(ctx, mc, NULL, v[i]);
    if (!r) r = texla_vec_make(ctx, kc, NULL, &s->v);
    if (!r) r = texla_lcp_op_workspace_make(ctx, s->x, &s->ws);
    w->stats.mats_made += 9;
    if (r) {
        sslot_free(w, s);
        return -1;
    }
    return w->nsslots++;
}

/* after a step: everything back to the pool; slots unused for 120 steps are destroyed */
static void slots_release(cubes_world *w) {
    for (int i = 0; i < w->nslots;) {
        cubes_slot *s = &w->slots[i];
        s->in_use = 0;
        if (w->p.no_pool || w->frame - s->last_used > 120) {
            slot_free(w, s);
            w->slots[i] = w->slots[--w->nslots];
        } else {
            i++;
        }
    }
    for (int i = 0; i < w->nsslots;) {
        cubes_sslot *s = &w->sslots[i];
        s->in_use = 0;
        sslot_drop_step(w, s);
        if (w->p.no_pool || w->frame - s->last_used > 120) {
            sslot_free(w, s);
            w->sslots[i] = w->sslots[--w->nsslots];
        } else {
            i++;
        }
    }
    w->sslot = -1;
}

/* ---- the LCP of a group ---- */

/* the dense J and B exist for the dense solvers only */
const float *cubes_group_J(const cubes_world *w, int g) {
    return w->mode == CUBES_SOLVER_SPARSE ? NULL : w->hJ + w->groups[g].off_j;
}
const float *cubes_group_B(const cubes_world *w, int g) {
    return w->mode == CUBES_SOLVER_SPARSE ? NULL : w->hB + w->groups[g].off_j;
}
const float *cubes_group_b(const cubes_world *w, int g) { return w->hb + w->groups[g].off_v; }
const float *cubes_group_x0(const cubes_world *w, int g) { return w->hx + w->groups[g].off_v; }
const float *cubes_group_index(const cubes_world *w, int g) { return w->hfi + w->groups[g].off_v; }
const float *cubes_group_mu(const cubes_world *w, int g) { return w->hmu + w->groups[g].off_v; }
const float *cubes_group_diag(const cubes_world *w, int g) { return w->hd + w->groups[g].off_v; }
const cubes_row *cubes_group_rows(const cubes_world *w, int g) {
    return w->rows + w->groups[g].off_v;
}

/* the row of direction d at contact c: J_a = [d, ra x d], J_b = -[d, rb x d], and the same row
 * of J M^-1 (= (M^-1 J')'); J v* into *jv, and J_i M^-1 J_i' (float64) into *dd */
static void build_row(const cubes_world *w, const cubes_contact *c, const float d[3],
                      cubes_row *R, const float vstar[][6], float *jv, double *dd) {
    int ids[2] = {c->a, c->b};
    double s = 0, dg = 0;
    R->ca = 6 * w->col[c->a];
    R->cb = c->b >= 0 ? 6 * w->col[c->b] : -1;
    for (int e = 0; e < 2; e++) {
        float *J = R->j + 6 * e, *B = R->mj + 6 * e;
        if (ids[e] < 0) {
            memset(J, 0, 6 * sizeof *J);
            memset(B, 0, 6 * sizeof *B);
            continue;
        }
        const cubes_body *b = &w->bodies[ids[e]];
        float sg = e ? -1.0f : 1.0f, r[3], rxd[3], ia[3];
        sub3(c->p, b->x, r);
        cross3(r, d, rxd);
        mat3_vec(b->inv_inertia_w, rxd, ia);
        for (int i = 0; i < 3; i++) {
            J[i] = sg * d[i];
            J[3 + i] = sg * rxd[i];
            B[i] = sg * d[i] * b->inv_mass;
            B[3 + i] = sg * ia[i];
            s += (double)J[i] * vstar[ids[e]][i] + (double)J[3 + i] * vstar[ids[e]][3 + i];
        }
        for (int k = 0; k < 6; k++) dg += (double)B[k] * J[k];
    }
    *jv = (float)s;
    *dd = dg;
}

/* the host vectors (b, x, index, mu, bias, diag) and rows: nv entries */
static int grow_vectors(cubes_world *w, size_t nv) {
    if (nv + 1 <= w->cap_hv) return 0;
    size_t c = w->cap_hv ? w->cap_hv : 1024;
    while (c < nv + 1) c *= 2;
    float **v[6] = {&w->hb, &w->hx, &w->hfi, &w->hmu, &w->hc, &w->hd};
    for (int i = 0; i < 6; i++) {
        float *q = realloc(*v[i], sizeof *q * c);
        if (!q) return -1;
        *v[i] = q;
    }
    cubes_row *r = realloc(w->rows, sizeof *r * c);
    if (!r) return -1;
    w->rows = r;
    w->cap_hv = c;
    return 0;
}

/* The rows of a group's contacts, spread over threads (par.h) in chunks of ROWS_CHUNK
 * contacts: each contact writes only its own three rows and entries; the chunks' deepest
 * penetration and nonzero count are combined in chunk order. */
#define ROWS_CHUNK 256
typedef struct rows_job {
    cubes_world *w;
    const cubes_group *G;
    const float (*vstar)[6];
    float *depth;
    long *cnt;
} rows_job;

static void rows_chunk(void *arg, int chunk) {
    rows_job *J = arg;
    cubes_world *w = J->w;
    const cubes_group *G = J->G;
    const cubes_params *p = &w->p;
    cubes_row *rows = w->rows + G->off_v;
    float *b = w->hb + G->off_v, *x = w->hx + G->off_v, *fi = w->hfi + G->off_v,
          *mu = w->hmu + G->off_v, *cb = w->hc + G->off_v, *dg = w->hd + G->off_v;
    float max_depth = 0;
    long nnz = 0;
    int k1 = par_end(chunk, ROWS_CHUNK, G->nc);
    for (int k = chunk * ROWS_CHUNK; k < k1; k++) {
        cubes_contact *c = &w->contacts[w->order[G->c0 + k]];
        int r = 3 * k;
        c->row = r;
        const float *dirs[3] = {c->n, c->t1, c->t2};
        for (int e = 0; e < 3; e++) {
            float jv;
            double dd;
            build_row(w, c, dirs[e], &rows[r + e], J->vstar, &jv, &dd);
            float bias = 0;
            if (e == 0) {
                /* speculative: may close the gap this step; penetrating: pushed out */
                if (c->depth < 0) bias = -c->depth / p->dt;
                else if (c->depth > p->slop)
                    bias = -minf(p->beta * (c->depth - p->slop) / p->dt, p->max_push);
            }
            cb[r + e] = bias;
            b[r + e] = jv + bias;
            x[r + e] = c->lambda[e];
            fi[r + e] = e ? (float)r : -1.0f;
            mu[r + e] = e ? p->mu : 0.0f;
            dg[r + e] = dd > 0 ? (float)dd : 1.0f;
            for (int q = 0; q < 12; q++) nnz += rows[r + e].j[q] != 0;
        }
        /* a warm start that is outside the cone would be projected anyway: keep it inside */
        if (x[r] < 0) x[r] = 0;
        for (int e = 1; e < 3; e++) x[r + e] = maxf(-p->mu * x[r], minf(p->mu * x[r], x[r + e]));
        max_depth = maxf(max_depth, c->depth);
    }
    J->depth[chunk] = max_depth, J->cnt[chunk] = nnz;
}

/* Every group's rows, b, warm start, index, mu, diag; with dense, J and B as dense mc x kc
 * matrices too (the dense solvers' uploads). */
static int build_groups(cubes_world *w, int dense) {
    size_t nj = 0, nv = 0;
    for (int g = 0; g < w->ngroups; g++) {
        cubes_group *G = &w->groups[g];
        G->off_j = nj, G->off_v = nv;
        if (dense) nj += (size_t)G->mc * G->kc;
        nv += (size_t)G->mc;
    }
    if (dense && (growz(&w->hJ, &w->cap_hJ, nj + 1) || growz(&w->hB, &w->cap_hB, nj + 1)))
        return -1;
    if (grow_vectors(w, nv)) return -1;
    if (dense) {
        memset(w->hJ, 0, sizeof *w->hJ * nj);
        memset(w->hB, 0, sizeof *w->hB * nj);
    }
    /* v* per body (linear, angular) */
    float (*vstar)[6] = malloc(sizeof *vstar * (size_t)(w->nbodies + 1));
    if (!vstar) return -1;
    for (int i = 0; i < w->nbodies; i++)
        for (int k = 0; k < 3; k++)
            vstar[i][k] = w->bodies[i].v[k], vstar[i][3 + k] = w->bodies[i].w[k];
    float max_depth = 0;
    long nnz = 0;
    for (int g = 0; g < w->ngroups; g++) {
        cubes_group *G = &w->groups[g];
        cubes_row *rows = w->rows + G->off_v;
        float *b = w->hb + G->off_v, *x = w->hx + G->off_v, *fi = w->hfi + G->off_v,
              *mu = w->hmu + G->off_v, *cb = w->hc + G->off_v, *dg = w->hd + G->off_v;
        int nch = (G->nc + ROWS_CHUNK - 1) / ROWS_CHUNK;
        float *depth = malloc(sizeof *depth * (size_t)(nch + 1));
        long *cnt = malloc(sizeof *cnt * (size_t)(nch + 1));
        if (!depth || !cnt) {
            free(depth), free(cnt), free(vstar);
            return -1;
        }
        rows_job job = {w, G, (const float(*)[6])vstar, depth, cnt};
        par_run(nch, rows_chunk, &job);
        for (int c = 0; c < nch; c++) max_depth = maxf(max_depth, depth[c]), nnz += cnt[c];
        free(depth), free(cnt);
        for (int r = G->m; r < G->mc; r++) { /* padding: impulse-free rows */
            memset(&rows[r], 0, sizeof rows[r]);
            rows[r].ca = rows[r].cb = -1;
            b[r] = x[r] = mu[r] = cb[r] = 0;
            fi[r] = -1;
            dg[r] = 1;
        }
        if (!dense) continue;
        float *J = w->hJ + G->off_j, *B = w->hB + G->off_j;
        for (int r = 0; r < G->m; r++) {
            const cubes_row *R = &rows[r];
            int cols[2] = {R->ca, R->cb};
            for (int e = 0; e < 2; e++)
                for (int q = 0; cols[e] >= 0 && q < 6; q++) {
                    J[(size_t)r * G->kc + cols[e] + q] = R->j[6 * e + q];
                    B[(size_t)r * G->kc + cols[e] + q] = R->mj[6 * e + q];
                }
        }
        for (int r = G->m; r < G->mc; r++) { /* padding: a unit in the spare column */
            J[(size_t)r * G->kc + G->kc - 1] = 1;
            B[(size_t)r * G->kc + G->kc - 1] = 1;
        }
    }
    free(vstar);
    w->stats.max_depth = max_depth;
    w->stats.nnz = nnz;
    return 0;
}

/* The largest eigenvalue of D^-1 A (A = J M^-1 J', D = diag A) by power iteration on the
 * symmetric D^-1/2 A D^-1/2, with the compact rows on the CPU (A v = J (M^-1 J' v); each row has
 * at most 12 nonzeros). Projected Jacobi with relaxation omega converges only where
 * omega lambda_max < 2, and lambda_max depends on how the contacts couple (about 3.6 for a box
 * on the ground, 5.9 for a stack, 12 and more in piles), so the relaxation is set from it.
 * The iteration's vector is kept per contact row and carried to the next step with the
 * contacts (warm start), so the iteration continues across steps: when nearly all rows carry a
 * value (LMAX_WARM_SHARE) LMAX_WARM_ITERS iterations a step do, else LMAX_COLD_ITERS. The start
 * is the carried vector plus half as much of a fixed vector over all rows, so rows whose mode
 * was not carried (new contacts, or a carried mode that left with the contacts it lived on)
 * still weigh in. The Rayleigh quotient of a power iterate rises to lambda_max from below (A is
 * positive semidefinite), so the estimate errs low, the dangerous side: besides OMEGA_SAFE's
 * margin, the estimate never drops below LMAX_DECAY times the previous step's estimate of any
 * contact it carries (measured on a 1000-cube wall: 8 warm iterations agree with 400 cold ones
 * to 0.3% while the contacts persist; once, when the contacts of the top mode vanished, the warm
 * iterate read 3.9 for a true 6.0 and the wall blew up). A true drop is followed within a few
 * steps; a rise at once. */
#define LMAX_COLD_ITERS 40
#define LMAX_WARM_ITERS 8
#define LMAX_WARM_SHARE 0.9
#define LMAX_DECAY 0.9f
/* The iteration's work, spread over threads (par.h) in chunks of LMAX_CHUNK rows or body
 * blocks: u = M^-1 J' D^-1/2 v gathered per body (its rows in increasing order: the same sums
 * as scattering the rows in order), y = D^-1/2 J u per row with each chunk's share of the
 * three dot products; the chunks' shares are added in chunk order, so the estimate does not
 * depend on the number of threads. */
#define LMAX_CHUNK 1024
typedef struct lmax_job {
    int m, K, nblk;
    float *a, *q, *v, *y, *u;
    int *ca, *cb;
    const int *bstart, *blist; /* per body block: entries 2 r + side of the rows on it */
    double *part;              /* per row chunk: nn, vy, vv (setup: wsum, csum, warm rows) */
    float inv;
    const cubes_world *w;
    const cubes_group *G;
    const cubes_row *rows;
    float *floor_;             /* per row chunk: the largest carried estimate, decayed */
    float sw, sc;              /* the start's weights of the carried and the fixed vectors */
} lmax_job;

/* a row chunk's scaled rows, columns, carried and fixed start vectors (v, y) */
static void lmax_setup(void *arg, int chunk) {
    lmax_job *J = arg;
    int r1 = par_end(chunk, LMAX_CHUNK, J->m);
    double wsum = 0, csum = 0;
    int warm = 0;
    float floor_ = 0;
    for (int r = chunk * LMAX_CHUNK; r < r1; r++) {
        const cubes_row *R = &J->rows[r];
        int cols[2] = {R->ca, R->cb};
        double d = 0;
        for (int e = 0; e < 2; e++)
            for (int k = 0; cols[e] >= 0 && k < 6; k++)
                d += (double)R->mj[6 * e + k] * R->j[6 * e + k];
        float di = d > 0 ? (float)(1 / sqrt(d)) : 0;
        for (int k = 0; k < 12; k++)
            J->a[12 * (size_t)r + k] = R->j[k] * di, J->q[12 * (size_t)r + k] = R->mj[k] * di;
        J->ca[r] = R->ca, J->cb[r] = R->cb;
        const cubes_contact *c = &J->w->contacts[J->w->order[J->G->c0 + r / 3]];
        float ev = c->ev[r % 3];
        J->v[r] = 0;
        if (c->warm == 1 && ev != 0 && isfinite(ev)) warm++, wsum += (double)ev * ev, J->v[r] = ev;
        if (c->warm == 1 && isfinite(c->lmax)) floor_ = maxf(floor_, LMAX_DECAY * c->lmax);
        J->y[r] = (float)(1.0 + 0.5 * sin(1.3 * r)); /* fixed, not orthogonal to anything special */
        csum += (double)J->y[r] * J->y[r];
    }
    J->part[3 * chunk] = wsum, J->part[3 * chunk + 1] = csum, J->part[3 * chunk + 2] = warm;
    J->floor_[chunk] = floor_;
}

static void lmax_start(void *arg, int chunk) {
    lmax_job *J = arg;
    int r1 = par_end(chunk, LMAX_CHUNK, J->m);
    for (int r = chunk * LMAX_CHUNK; r < r1; r++) J->v[r] = J->v[r] * J->sw + J->y[r] * J->sc;
}

static void lmax_gather(void *arg, int chunk) {
    lmax_job *J = arg;
    int b1 = par_end(chunk, LMAX_CHUNK, J->nblk);
    for (int b = chunk * LMAX_CHUNK; b < b1; b++) {
        float acc[6] = {0, 0, 0, 0, 0, 0};
        for (int t = J->bstart[b]; t < J->bstart[b + 1]; t++) {
            int r = J->blist[t] >> 1, side = J->blist[t] & 1;
            const float *ar = J->a + 12 * (size_t)r + 6 * side;
            float vr = J->v[r];
            for (int k = 0; k < 6; k++) acc[k] += ar[k] * vr;
        }
        for (int k = 0; k < 6 && 6 * b + k < J->K; k++) J->u[6 * b + k] = acc[k];
    }
}

static void lmax_apply(void *arg, int chunk) {
    lmax_job *J = arg;
    int r1 = par_end(chunk, LMAX_CHUNK, J->m);
    double nn = 0, vy = 0, vv = 0;
    for (int r = chunk * LMAX_CHUNK; r < r1; r++) {
        const float *qr = J->q + 12 * (size_t)r;
        const float *ua = J->u + J->ca[r];
        float s = 0;
        for (int k = 0; k < 6; k++) s += qr[k] * ua[k];
        if (J->cb[r] >= 0) {
            const float *ub = J->u + J->cb[r];
            for (int k = 0; k < 6; k++) s += qr[6 + k] * ub[k];
        }
        J->y[r] = s;
        nn += (double)s * s, vy += (double)J->v[r] * s, vv += (double)J->v[r] * J->v[r];
    }
    J->part[3 * chunk] = nn, J->part[3 * chunk + 1] = vy, J->part[3 * chunk + 2] = vv;
}

static void lmax_scale(void *arg, int chunk) {
    lmax_job *J = arg;
    int r1 = par_end(chunk, LMAX_CHUNK, J->m);
    for (int r = chunk * LMAX_CHUNK; r < r1; r++) J->v[r] = J->y[r] * J->inv;
}

static float estimate_lmax(cubes_world *w, const cubes_group *G) {
    int m = G->m, K = G->kc, nblk = (K + 5) / 6;
    if (m == 0) return 1;
    const cubes_row *rows = w->rows + G->off_v;
    int nch = (m + LMAX_CHUNK - 1) / LMAX_CHUNK, nbch = (nblk + LMAX_CHUNK - 1) / LMAX_CHUNK;
    /* the rows scaled by D^-1/2 on both sides, in float: a = D^-1/2 J, q = D^-1/2 J M^-1 */
    float *a = malloc(sizeof *a * ((size_t)24 * m + 2 * (size_t)m + K));
    int *ia = malloc(sizeof *ia * ((size_t)4 * m + nblk + 1));
    double *part = malloc(sizeof *part * 3 * (size_t)nch);
    float *fl = malloc(sizeof *fl * (size_t)nch);
    if (!a || !ia || !part || !fl) {
        free(a), free(ia), free(part), free(fl);
        return 12;
    }
    float *q = a + (size_t)12 * m, *v = q + (size_t)12 * m, *y = v + m, *u = y + m;
    int *ca = ia, *cb = ca + m, *blist = cb + m, *bstart = blist + 2 * (size_t)m;
    lmax_job J = {m, K, nblk, a, q, v, y, u, ca, cb, bstart, blist, part, 0, w, G, rows, fl, 0, 0};
    par_run(nch, lmax_setup, &J);
    int warm = 0;
    double wsum = 0, csum = 0;
    float floor_ = 0;
    for (int c = 0; c < nch; c++) {
        warm += (int)part[3 * c + 2];
        wsum += part[3 * c], csum += part[3 * c + 1];
        floor_ = maxf(floor_, J.floor_[c]);
    }
    memset(bstart, 0, sizeof *bstart * (size_t)(nblk + 1));
    for (int r = 0; r < m; r++) {
        bstart[ca[r] / 6 + 1]++;
        if (cb[r] >= 0) bstart[cb[r] / 6 + 1]++;
    }
    for (int b = 0; b < nblk; b++) bstart[b + 1] += bstart[b];
    int *fill = malloc(sizeof *fill * (size_t)nblk);
    if (!fill) {
        free(a), free(ia), free(part), free(fl);
        return 12;
    }
    memcpy(fill, bstart, sizeof *fill * (size_t)nblk);
    for (int r = 0; r < m; r++) { /* each body's rows in increasing order */
        blist[fill[ca[r] / 6]++] = 2 * r;
        if (cb[r] >= 0) blist[fill[cb[r] / 6]++] = 2 * r + 1;
    }
    free(fill);
    J.sw = wsum > 0 ? (float)(1 / sqrt(wsum)) : 0;
    J.sc = (float)((wsum > 0 ? 0.5 : 1) / sqrt(csum));
    par_run(nch, lmax_start, &J);
    int iters = warm >= LMAX_WARM_SHARE * m ? LMAX_WARM_ITERS : LMAX_COLD_ITERS;
    double lambda = 0;
    for (int it = 0; it < iters; it++) {
        par_run(nbch, lmax_gather, &J);
        par_run(nch, lmax_apply, &J);
        double nn = 0, vy = 0, vv = 0;
        for (int c = 0; c < nch; c++) nn += part[3 * c], vy += part[3 * c + 1], vv += part[3 * c + 2];
        lambda = vv > 0 ? vy / vv : 0; /* Rayleigh quotient: from below */
        nn = sqrt(nn);
        if (!(nn > 0)) break;
        J.inv = (float)(1 / nn);
        par_run(nch, lmax_scale, &J);
    }
    float est = maxf((float)lambda, floor_);
    for (int r = 0; r < m; r++) {
        cubes_contact *c = &w->contacts[w->order[G->c0 + r / 3]];
        c->ev[r % 3] = v[r];
        c->lmax = est;
    }
    free(a), free(ia), free(part), free(fl);
    return est;
}

/* the same iteration as the GPU's, on the CPU in float with the compact rows (debugging) */
static void cpu_jacobi(const cubes_world *w, const cubes_group *G, float *x) {
    int n = G->mc, K = G->kc;
    const cubes_row *rows = w->rows + G->off_v;
    const float *b = w->hb + G->off_v, *fi = w->hfi + G->off_v, *mu = w->hmu + G->off_v,
                *dg = w->hd + G->off_v;
    float *u = malloc(sizeof *u * (size_t)(K + n)), *x2 = u + K;
    if (!u) return;
    float om = G->omega;
    for (int it = 0; it < w->stats.iterations; it++) {
        memset(u, 0, sizeof *u * (size_t)K); /* u = M^-1 J' x */
        for (int r = 0; r < n; r++) {
            int cols[2] = {rows[r].ca, rows[r].cb};
            for (int e = 0; e < 2; e++)
                for (int k = 0; cols[e] >= 0 && k < 6; k++)
                    u[cols[e] + k] += rows[r].mj[6 * e + k] * x[r];
        }
        for (int r = 0; r < n; r++) {
            int cols[2] = {rows[r].ca, rows[r].cb};
            float s = b[r];
            for (int e = 0; e < 2; e++)
                for (int k = 0; cols[e] >= 0 && k < 6; k++) s += rows[r].j[6 * e + k] * u[cols[e] + k];
            x2[r] = x[r] + s * (-om / dg[r]);
        }
        for (int i = 0; i < n; i++) {
            int j = (int)fi[i];
            if (j < 0) x[i] = maxf(x2[i], 0);
            else {
                float nj = maxf(x2[j], 0);
                x[i] = maxf(-mu[i] * nj, minf(mu[i] * nj, x2[i]));
            }
        }
    }
    free(u);
}

/* omega lambda_max below 2 with room for the estimate being low (it converges from below) */
#define OMEGA_SAFE 1.6f

static int tx(texla_result r) { return r == TEXLA_OK ? 0 : -1; }

/* The sparse solver: J (mc x kc) and M^-1 J' (kc x mc) as CSR with sorted columns (texla takes
 * such arrays as they are) from the compact rows (exact zeros left out), their product, and
 * texla_lcp_jacobi_op with diag(A) from the rows. */
static int solve_sparse(cubes_world *w, cubes_group *G) {
    int m = G->m, mc = G->mc, kc = G->kc;
    const cubes_row *rows = w->rows + G->off_v;
    double t = now_ms();
    if (grow((void **)&w->sp_ptr, &w->cap_sp_ptr, mc + 1, sizeof *w->sp_ptr) ||
        grow((void **)&w->sp_col, &w->cap_sp, 12 * m + 1, sizeof *w->sp_col))
        return -1;
    int cap = w->cap_sp; /* sp_val, sp_bcol and sp_bval follow sp_col's capacity */
    int *bc = realloc(w->sp_bcol, sizeof *bc * (size_t)cap);
    if (!bc) return -1;
    w->sp_bcol = bc;
    float *fv[2] = {w->sp_val, w->sp_bval};
    for (int i = 0; i < 2; i++) {
        float *q = realloc(fv[i], sizeof *q * (size_t)cap);
        if (!q) return -1;
        if (i) w->sp_bval = q;
        else w->sp_val = q;
    }
    if (kc + 1 > w->cap_sp_b) {
        int *p = realloc(w->sp_bptr, sizeof *p * (size_t)(kc + 1)),
            *f = p ? realloc(w->sp_bfill, sizeof *f * (size_t)(kc + 1)) : NULL;
        if (p) w->sp_bptr = p;
        if (!f) return -1;
        w->sp_bfill = f;
        w->cap_sp_b = kc + 1;
    }
    /* J's rows, each body's six columns in column order; M^-1 J' counted per row (a body DOF) */
    int *ptr = w->sp_ptr, *bptr = w->sp_bptr, nj = 0;
    memset(bptr, 0, sizeof *bptr * (size_t)(kc + 1));
    ptr[0] = 0;
    for (int r = 0; r < m; r++) {
        const cubes_row *R = &rows[r];
        int first = R->cb >= 0 && R->cb < R->ca; /* body b's columns come first */
        for (int h = 0; h < 2; h++) {
            int e = h ^ first, c0 = e ? R->cb : R->ca;
            for (int k = 0; c0 >= 0 && k < 6; k++) {
                float jv = R->j[6 * e + k];
                if (jv != 0) w->sp_col[nj] = c0 + k, w->sp_val[nj++] = jv;
                bptr[c0 + k + 1] += R->mj[6 * e + k] != 0;
            }
        }
        ptr[r + 1] = nj;
    }
    for (int r = m; r < mc; r++) ptr[r + 1] = nj;
    for (int i = 0; i < kc; i++) bptr[i + 1] += bptr[i];
    memcpy(w->sp_bfill, bptr, sizeof *bptr * (size_t)kc);
    for (int r = 0; r < m; r++) { /* rows in order: each DOF's columns come sorted */
        const cubes_row *R = &rows[r];
        int cols[2] = {R->ca, R->cb};
        for (int e = 0; e < 2; e++)
            for (int k = 0; cols[e] >= 0 && k < 6; k++) {
                float bv = R->mj[6 * e + k];
                if (bv != 0) {
                    int at = w->sp_bfill[cols[e] + k]++;
                    w->sp_bcol[at] = r, w->sp_bval[at] = bv;
                }
            }
    }
    double t1 = now_ms();
    w->stats.t_build_ms += t1 - t; /* the arrays are the rows' work; the uploads texla's */
    t = t1;
    int si = sslot_acquire(w, mc, kc);
    if (si < 0) return -1;
    w->sslot = si;
    cubes_sslot *s = &w->sslots[si];
    texla_ctx *ctx = w->ctx;
    if (tx(texla_sparse_make_csr(ctx, s->x, s->v, ptr, w->sp_col, w->sp_val, &s->J)) ||
        tx(texla_sparse_make_csr(ctx, s->v, s->x, bptr, w->sp_bcol, w->sp_bval, &s->B)) ||
        tx(texla_op_product(ctx, texla_op_sparse(s->J), texla_op_sparse(s->B), s->v, &s->A)))
        return -1;
    w->stats.mats_made += 3;
    w->stats.t_make_ms = now_ms() - t;
    if (tx(texla_vec_write(ctx, w->hx + G->off_v, s->x)) ||
        tx(texla_vec_write(ctx, w->hb + G->off_v, s->b)) ||
        tx(texla_vec_write(ctx, w->hd + G->off_v, s->d)) ||
        tx(texla_vec_write(ctx, w->hfi + G->off_v, s->fi)) ||
        tx(texla_vec_write(ctx, w->hmu + G->off_v, s->mu)))
        return -1;
    w->stats.t_upload_ms += now_ms() - t;
    texla_lcp_op_desc d = {.iterations = w->stats.iterations, .omega = G->omega, .diag = s->d,
                           .friction_index = s->fi, .friction_mu = s->mu, .workspace = &s->ws};
    t = now_ms();
    int rc;
    if (w->split) { /* TEXLA_CUBES_SPLIT: the first iteration (matrices prepared) on its own */
        int its = d.iterations;
        d.iterations = 1;
        rc = tx(texla_lcp_jacobi_op(ctx, s->A, s->b, &d, s->x, NULL));
        texla_ctx_finish(ctx);
        w->stats.t_first_ms = now_ms() - t;
        t = now_ms();
        d.iterations = its - 1;
        if (!rc && its > 1) rc = tx(texla_lcp_jacobi_op(ctx, s->A, s->b, &d, s->x, NULL));
        w->stats.t_submit_ms = now_ms() - t;
        texla_ctx_finish(ctx);
        w->stats.t_iters_ms = now_ms() - t;
        return rc;
    }
    rc = tx(texla_lcp_jacobi_op(ctx, s->A, s->b, &d, s->x, NULL));
    w->stats.t_submit_ms = now_ms() - t;
    return rc;
}

/* The dense solvers for group G: J, B, b, x, index, mu uploaded, A = B J' on the GPU,
 * texla_lcp_jacobi. */
static int solve_dense(cubes_world *w, cubes_group *G) {
    double t = now_ms();
    int si = slot_acquire(w, G->mc, G->kc);
    if (si < 0) return -1;
    G->slot = si;
    cubes_slot *s = &w->slots[si];
    texla_ctx *ctx = w->ctx;
    if (tx(texla_mat_write(ctx, w->hJ + G->off_j, s->J)) ||
        tx(texla_mat_write(ctx, w->hB + G->off_j, s->B)) ||
        tx(texla_mat_write(ctx, w->hb + G->off_v, s->b)) ||
        tx(texla_mat_write(ctx, w->hx + G->off_v, s->x)) ||
        tx(texla_mat_write(ctx, w->hfi + G->off_v, s->fi)) ||
        tx(texla_mat_write(ctx, w->hmu + G->off_v, s->mu)))
        return -1;
    w->stats.t_upload_ms += now_ms() - t;
    /* A = B J' = J M^-1 J', on the GPU */
    if (tx(texla_mat_matmul_nt(ctx, s->B, s->J, s->A))) return -1;
    texla_lcp_desc d = {.iterations = w->stats.iterations, .omega = G->omega,
                        .friction_index = s->fi, .friction_mu = s->mu, .workspace = &s->ws};
    return tx(texla_lcp_jacobi(ctx, s->A, s->b, &d, s->x, NULL));
}

int cubes_step_begin(cubes_world *w) {
    memset(&w->stats, 0, sizeof w->stats);
    w->t0 = now_ms();
    w->sslot = -1;
    const cubes_params *p = &w->p;
    for (int i = 0; i < w->nbodies; i++) {
        cubes_body *b = &w->bodies[i];
        body_refresh(b);
        b->v[1] -= p->gravity * p->dt; /* v* */
    }
    double t = now_ms();
    if (collide(w)) return -1;
    w->stats.t_collide_ms = now_ms() - t;
    t = now_ms();
    int mode = p->solver >= CUBES_SOLVER_DENSE && p->solver <= CUBES_SOLVER_SPARSE
                   ? p->solver : CUBES_SOLVER_DEFAULT_MODE;
    if (make_groups(w, mode == CUBES_SOLVER_ISLANDS)) return -1;
    if (mode != CUBES_SOLVER_SPARSE) {
        /* a dense group too large to form: this step goes to the sparse solver */
        for (int g = 0; g < w->ngroups && !w->stats.fallback; g++)
            w->stats.fallback = w->groups[g].mc > p->dense_max_rows;
        if (w->stats.fallback) {
            mode = CUBES_SOLVER_SPARSE;
            if (make_groups(w, 0)) return -1;
        }
    }
    w->mode = w->stats.solver = mode;
    if (w->iters_now < p->iterations || w->iters_now > p->max_iterations)
        w->iters_now = p->iterations;
    w->stats.iterations = w->iters_now;
    if (build_groups(w, mode != CUBES_SOLVER_SPARSE)) return -1;
    w->pending = 1;
    w->stats.omega_min = p->omega;
    for (int g = 0; g < w->ngroups; g++) {
        cubes_group *G = &w->groups[g];
        G->lmax = estimate_lmax(w, G);
        G->omega = minf(p->omega, OMEGA_SAFE / G->lmax);
        w->stats.omega_min = minf(w->stats.omega_min, G->omega);
    }
    w->stats.t_build_ms = now_ms() - t;
    w->t_solve0 = now_ms();
    for (int g = 0; g < w->ngroups; g++) w->groups[g].slot = -1;
    if (p->cpu_solve) return 0;
    if (mode == CUBES_SOLVER_SPARSE) return w->ngroups ? solve_sparse(w, &w->groups[0]) : 0;
    for (int g = 0; g < w->ngroups; g++)
        if (solve_dense(w, &w->groups[g])) return -1;
    return 0;
}

static void apply_impulse(cubes_world *w, const cubes_contact *c, const float d[3], float l) {
    int ids[2] = {c->a, c->b};
    for (int e = 0; e < 2; e++) {
        if (ids[e] < 0) continue;
        cubes_body *b = &w->bodies[ids[e]];
        float P[3], r[3], rxp[3], dw[3];
        for (int k = 0; k < 3; k++) P[k] = (e ? -l : l) * d[k];
        sub3(c->p, b->x, r);
        cross3(r, P, rxp);
        mat3_vec(b->inv_inertia_w, rxp, dw);
        mad3(b->v, b->inv_mass, P, b->v);
        mad3(b->w, 1.0f, dw, b->w);
    }
}

/* J_r v for the row of direction d at c */
static double row_velocity(const cubes_world *w, const cubes_contact *c, const float d[3]) {
    int ids[2] = {c->a, c->b};
    double s = 0;
    for (int e = 0; e < 2; e++) {
        if (ids[e] < 0) continue;
        const cubes_body *b = &w->bodies[ids[e]];
        float r[3], rxd[3];
        sub3(c->p, b->x, r);
        cross3(r, d, rxd);
        double v = (double)dot3(d, b->v) + (double)dot3(rxd, b->w);
        s += e ? -v : v;
    }
    return s;
}

int cubes_step_end(cubes_world *w) {
    if (!w->pending) return -1;
    w->pending = 0;
    const cubes_params *p = &w->p;
    /* the impulses: one read-back per group, after every group's solve was issued */
    for (int g = 0; g < w->ngroups; g++) {
        cubes_group *G = &w->groups[g];
        float *x = w->hx + G->off_v;
        if (p->cpu_solve) cpu_jacobi(w, G, x);
        else if (w->mode == CUBES_SOLVER_SPARSE) {
            if (tx(texla_vec_read(w->ctx, w->sslots[w->sslot].x, x))) return -1;
        } else if (tx(texla_mat_read(w->ctx, w->slots[G->slot].x, x))) {
            return -1;
        }
    }
    double t_fin = now_ms();
    w->stats.t_solve_ms = t_fin - w->t_solve0;
    int rows = 0, prow = 0, maxr = 0, warm = 0, inherited = 0;
    for (int g = 0; g < w->ngroups; g++) {
        const cubes_group *G = &w->groups[g];
        const float *x = w->hx + G->off_v;
        for (int k = 0; k < G->nc; k++) {
            cubes_contact *c = &w->contacts[w->order[G->c0 + k]];
            for (int e = 0; e < 3; e++) c->lambda[e] = x[c->row + e];
            warm += c->warm == 1, inherited += c->warm == 2;
        }
        rows += G->m, prow += G->mc;
        if (G->m > maxr) maxr = G->m;
    }
    for (int k = 0; k < w->ncontacts; k++) {
        const cubes_contact *c = &w->contacts[k];
        const float *dirs[3] = {c->n, c->t1, c->t2};
        for (int e = 0; e < 3; e++)
            if (c->lambda[e] != 0) apply_impulse(w, c, dirs[e], c->lambda[e]);
    }
    /* measures: w = J v + bias (= A x + b up to rounding). The velocity scale: the smallest
     * half extent of the bodies in contact per step, so w < -unsolved_tol * scale means a contact
     * left sinking by more than that share of the smallest body's size in one step (with the
     * default 0.02, 1 cm for the unit cubes at 60 Hz: 0.6 m/s) */
    float min_x = FLT_MAX, min_w = FLT_MAX, max_xw = 0, fex = 0, wf = 0, work = 0;
    float hmin = FLT_MAX;
    for (int k = 0; k < w->ncontacts; k++) {
        const cubes_contact *c = &w->contacts[k];
        for (int e = 0; e < 2; e++) {
            if ((e ? c->b : c->a) < 0) continue;
            const float *h = w->bodies[e ? c->b : c->a].half;
            hmin = minf(hmin, minf(h[0], minf(h[1], h[2])));
        }
    }
    float scale = w->ncontacts ? hmin / p->dt : 0;
    float wtol = p->unsolved_tol * scale;
    int unsolved_rows = 0;
    for (int g = 0; g < w->ngroups; g++) {
        const cubes_group *G = &w->groups[g];
        const float *cb = w->hc + G->off_v;
        for (int k = 0; k < G->nc; k++) {
            const cubes_contact *c = &w->contacts[w->order[G->c0 + k]];
            float wn = (float)(row_velocity(w, c, c->n) + cb[c->row]);
            min_x = minf(min_x, c->lambda[0]);
            min_w = minf(min_w, wn);
            unsolved_rows += wn < -wtol;
            max_xw = maxf(max_xw, fabsf(c->lambda[0] * wn));
            if (cb[c->row] < 0) work += -cb[c->row] * c->lambda[0];
            const float *t[2] = {c->t1, c->t2};
            for (int e = 1; e < 3; e++) {
                float lim = p->mu * maxf(c->lambda[0], 0);
                fex = maxf(fex, fabsf(c->lambda[e]) - lim);
                if (fabsf(c->lambda[e]) < 0.99f * lim)
                    wf = maxf(wf, fabsf((float)row_velocity(w, c, t[e - 1])));
            }
        }
    }
    cubes_stats *s = &w->stats;
    s->bodies = w->nbodies;
    s->contacts = w->ncontacts;
    s->warm = warm, s->inherited = inherited;
    s->rows = rows, s->padded_rows = prow, s->max_rows = maxr, s->groups = w->ngroups;
    s->min_x = w->ncontacts ? min_x : 0;
    s->min_w = w->ncontacts ? min_w : 0;
    s->max_xw = max_xw, s->max_fric_excess = fex, s->max_w_fric = wf, s->bias_work = work;
    s->w_scale = scale, s->w_tol = wtol, s->unsolved_rows = unsolved_rows;
    s->unsolved = unsolved_rows > 0;
    /* the next step's iterations (see cubes_world.iters_now) */
    float ok = 0.1f * p->slop / p->dt;
    if (s->min_w < -ok) w->iters_now = w->iters_now * 2 < p->max_iterations ? w->iters_now * 2
                                                                         : p->max_iterations;
    else if (s->min_w > -ok / 2) w->iters_now -= (w->iters_now - p->iterations + 3) / 4;
    /* semi-implicit Euler: positions with the new velocities */
    for (int i = 0; i < w->nbodies; i++) {
        cubes_body *b = &w->bodies[i];
        mad3(b->x, p->dt, b->v, b->x);
        float *q = b->q, h = 0.5f * p->dt;
        float dq[4] = {-b->w[0] * q[1] - b->w[1] * q[2] - b->w[2] * q[3],
                       b->w[0] * q[0] + b->w[1] * q[3] - b->w[2] * q[2],
                       -b->w[0] * q[3] + b->w[1] * q[0] + b->w[2] * q[1],
                       b->w[0] * q[2] - b->w[1] * q[1] + b->w[2] * q[0]};
        float l = 0;
        for (int k = 0; k < 4; k++) q[k] += h * dq[k], l += q[k] * q[k];
        l = 1.0f / sqrtf(l);
        for (int k = 0; k < 4; k++) q[k] *= l;
        body_refresh(b);
    }
    /* this step's contacts become the next one's warm starts */
    cubes_contact *t = w->prev;
    int tc = w->cap_prev;
    w->prev = w->contacts, w->cap_prev = w->cap_contacts, w->nprev = w->ncontacts;
    w->contacts = t, w->cap_contacts = tc, w->ncontacts = 0;
    /* qsort's array must be a valid pointer even for 0 elements (C11 7.22.5), and the first
     * step has no contacts yet (prev NULL) */
    if (w->nprev > 1) qsort(w->prev, (size_t)w->nprev, sizeof *w->prev, cmp_prev);
    slots_release(w);
    s->slots = w->nslots + w->nsslots;
    w->frame++;
    w->time += p->dt;
    s->t_finish_ms = now_ms() - t_fin;
    s->t_step_ms = now_ms() - w->t0;
    return 0;
}

int cubes_step(cubes_world *w) {
    if (cubes_step_begin(w)) {
        w->pending = 0;
        slots_release(w);
        return -1;
    }
    return cubes_step_end(w);
}
