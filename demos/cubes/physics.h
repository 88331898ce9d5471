/* physics.h - the falling-cubes demo's rigid-body simulation: boxes, contacts, and the contact
 * LCP formed and solved on the GPU with texla (no GL here: texla's public API only).
 *
 * One step (cubes_step, or cubes_step_begin + cubes_step_end):
 *   1. v* = v + g dt (external forces).
 *   2. Contacts: box-ground (vertices) and box-box (separating-axis test over the 15 axes; face
 *      contacts clip the incident face against the reference face's side planes and keep up to
 *      4 points; edge-edge contacts give one point). Contacts closer than `margin` plus how far
 *      the bodies' points can move in a step are kept (speculative: they may close the gap but
 *      not cross it, so fast bodies neither tunnel nor land deep); each is matched to the
 *      previous step's contact of the same body pair with the nearest point (in body a's frame)
 *      and inherits its impulses (warm start); new points of an old pair share what the pair
 *      carried before.
 *   3. Groups: one LCP of all contacts, or one per island (union-find over bodies in contact;
 *      the ground joins none).
 *   4. Per group, on the CPU: J (m x K: a normal row and two friction rows per contact point,
 *      6 columns per body), B = J M^-1 (block-sparse), b = J v* + bias, the warm start, and the
 *      friction index / mu vectors; uploaded, then ON THE GPU A = B J' (texla_mat_matmul_nt) and the
 *      bounded projected Jacobi (texla_lcp_jacobi, no read-back inside), relaxed per group by
 *      min(omega, 1.6 / lambda_max(D^-1 A)), lambda_max estimated on the CPU from the sparse J.
 *   5. The impulses of every group are read back (once per group, after all solves are issued),
 *      v = v* + M^-1 J' lambda, the complementarity measures from w = J v + bias, and semi-
 *      implicit Euler for position and orientation (quaternion, renormalised).
 * GPU matrices come from a pool of slots keyed by their (padded) size and are reused across
 * steps: a group of m rows is padded to a size class mc >= m with rows that cannot carry
 * impulse (J = B = a unit in a spare column, b = 0: their solution is 0). */
#ifndef CUBES_PHYSICS_H
#define CUBES_PHYSICS_H

#include "texla.h"

#include <stddef.h>

typedef struct cubes_params {
    float dt;          /* time step (s); 0: 1/60 */
    float gravity;     /* m/s^2 downwards (-y); 0: 9.81 (use a negative value for none) */
    float mu;          /* friction coefficient (pyramid); 0: 0.6 (negative: frictionless) */
    int iterations;    /* projected Jacobi iterations per step; 0: 96 */
    float omega;       /* Jacobi under-relaxation, at most; each group uses
                          min(omega, 1.6 / lambda_max(D^-1 A)) (see physics.c); 0: 0.7 */
    float beta;        /* Baumgarte factor of the position correction; 0: 0.2 */
    float slop;        /* penetration left uncorrected (m); 0: 0.002 */
    float margin;      /* speculative contact distance (m) beyond the step's motion; 0: 0.02 */
    float max_push;    /* cap on the correction velocity (m/s); 0: 2 */
    int islands;       /* 1: one LCP per island; 0: one dense LCP of all contacts */
    int no_pool;       /* 1: make and destroy the GPU matrices every step (for measuring) */
    int cpu_solve;     /* 1: the same projected Jacobi on the CPU in float (debugging only) */
    int matmul_k;      /* texla_ctx_set_matmul_k for the context (MOPs per product pass); 0: leave
                          the context's setting */
} cubes_params;

typedef struct cubes_body {
    float x[3], q[4];  /* position of the centre, orientation (w, x, y, z), unit */
    float v[3], w[3];  /* linear and angular velocity (world) */
    float half[3];     /* half extents */
    float mass, inv_mass;
    float inv_inertia[3];     /* body frame (diagonal for a box) */
    float R[9];               /* rotation, row-major: column k is body axis k (refreshed) */
    float inv_inertia_w[9];   /* world inverse inertia R diag(inv_inertia) R' (refreshed) */
    float color[3];
    int projectile;
} cubes_body;

typedef struct cubes_contact {
    int a, b;          /* bodies; b = -1: the ground */
    float p[3];        /* world point */
    float n[3];        /* unit normal from b to a: impulse +lambda n acts on a */
    float t1[3], t2[3];/* friction directions */
    float la[3];       /* p in a's body frame (for matching across steps) */
    float depth;       /* > 0: penetration, < 0: separation (speculative) */
    float lambda[3];   /* impulses along n, t1, t2: warm start in, solution out */
    int warm;          /* 1: matched a contact of the previous step; 2: took a share of its
                          pair's previous load (a new point of an old manifold); 0: cold */
    int group, row;    /* its LCP group and its normal row there */
} cubes_contact;

typedef struct cubes_stats {
    int bodies, contacts, warm;        /* contact points, of them matched to a previous one */
    int inherited;                     /* new points given a share of their pair's old load */
    int rows, groups, max_rows;        /* LCP rows in all, groups, rows of the largest group */
    int padded_rows;                   /* rows incl. padding to the size classes */
    int iterations;
    float omega_min;                   /* the smallest relaxation of the step's groups */
    double t_collide_ms, t_build_ms;   /* CPU: contacts; J, B, b */
    double t_solve_ms;                 /* uploads, GPU products and Jacobi, read-backs */
    double t_step_ms;                  /* the whole step */
    float min_x, min_w, max_xw;        /* normal rows: min impulse, min w, max |x w| */
    float max_fric_excess;             /* max(|x_t| - mu x_n, 0) over friction rows */
    float max_w_fric;                  /* max |w_t| over friction rows strictly inside the cone */
    float max_depth;                   /* deepest penetration of the step's contacts */
    float bias_work;                   /* sum of lambda_n * correction velocity (J): energy the
                                          position correction may add this step, at most */
    int mats_made;                     /* texla matrices created this step */
    int slots;                         /* pool slots alive */
} cubes_stats;

/* one LCP of the step: rows [row0, row0 + m) of the step's contacts sorted by group */
typedef struct cubes_group {
    int c0, nc;        /* contacts order[c0 .. c0 + nc) */
    int b0, nb;        /* bodies border[b0 .. b0 + nb) */
    int m, K;          /* rows 3 nc, columns 6 nb */
    int mc, kc;        /* padded sizes of the GPU matrices */
    int slot;
    float lmax, omega;    /* largest eigenvalue of D^-1 A (estimated), the relaxation used */
    size_t off_j, off_v;  /* offsets of its J/B (mc * kc) and vectors (mc) in the host arrays */
} cubes_group;

typedef struct cubes_slot {
    int mc, kc, in_use;
    long last_used;
    texla_mat J, B, A, b, x, fi, mu;
    texla_lcp_workspace ws; /* the solver's work matrices for this size */
} cubes_slot;

typedef struct cubes_world {
    texla_ctx *ctx;
    cubes_params p;
    cubes_body *bodies;
    int nbodies, cap_bodies;
    cubes_contact *contacts, *prev;
    int ncontacts, nprev, cap_contacts, cap_prev;
    /* per step */
    cubes_group *groups;
    int ngroups, cap_groups;
    int *order, *border, *col, *uf; /* contacts, bodies by group; body column; union-find */
    int cap_order, cap_border, cap_col, cap_uf;
    float *hJ, *hB, *hb, *hx, *hfi, *hmu, *hc; /* host J, B (all groups), b, x, index, mu, bias */
    size_t cap_hJ, cap_hB, cap_hv;
    cubes_slot *slots;
    int nslots, cap_slots;
    long frame;
    double time;
    int pending;       /* a step was begun and not ended */
    double t0, t_solve0;
    cubes_stats stats;
} cubes_world;

/* The parameters with every zero field resolved to its default. */
cubes_params cubes_params_resolve(const cubes_params *p);

/* ctx: a texla context (headless or host mode) current on this thread. p may be NULL.
 * Sets the context's matmul_k when p asks. Returns 0, or -1 (texla refused matmul_k). */
int cubes_world_init(cubes_world *w, texla_ctx *ctx, const cubes_params *p);
/* Frees everything, the GPU matrices included (with ctx current). */
void cubes_world_free(cubes_world *w);
/* Removes all bodies and contacts (the GPU pool stays). */
void cubes_world_clear(cubes_world *w);

/* Adds a box of the given half extents and mass at pos with orientation q (w, x, y, z; NULL:
 * identity), at rest. Returns its index, or -1 (out of memory or bad arguments). */
int cubes_add_box(cubes_world *w, const float pos[3], const float half[3], float mass,
                  const float q[4]);
/* A wall of wide x high cubes of edge `edge`, mass 1 each, on the ground, centred on x = 0,
 * z = 0, columns `gap` apart. Returns 0 or -1. */
int cubes_scene_wall(cubes_world *w, int wide, int high, float edge, float gap);
/* A heavier cube (edge 0.8, mass 4) shot from `from` so that it reaches `target` at `speed`
 * (aimed above the target to allow for the fall). Returns its index or -1. */
int cubes_shoot(cubes_world *w, const float from[3], const float target[3], float speed);

/* One time step. Returns 0, or -1 on a texla error (texla_error_message(ctx) says which). */
int cubes_step(cubes_world *w);
/* The step in two halves: begin does 1-4 (contacts, groups, uploads, GPU solves issued);
 * between them the groups' GPU matrices (w->slots[w->groups[g].slot]) hold the step's J, B,
 * A, b, x (the solution) and the host arrays the group's data (cubes_group_*); end reads the
 * impulses back, applies them and integrates. */
int cubes_step_begin(cubes_world *w);
int cubes_step_end(cubes_world *w);

/* The host data of group g during a step (after cubes_step_begin): J and B (mc x kc,
 * row-major, padded), b, the warm start, the friction index and mu (mc each). */
const float *cubes_group_J(const cubes_world *w, int g);
const float *cubes_group_B(const cubes_world *w, int g);
const float *cubes_group_b(const cubes_world *w, int g);
const float *cubes_group_x0(const cubes_world *w, int g);
const float *cubes_group_index(const cubes_world *w, int g);
const float *cubes_group_mu(const cubes_world *w, int g);

/* Energies: kinetic (translation + rotation) and potential (m g y) of all bodies (J). */
double cubes_kinetic_energy(const cubes_world *w);
double cubes_potential_energy(const cubes_world *w);
/* Column-major 4x4 model matrix of body i (rotation, scale by its extents, translation). */
void cubes_body_model(const cubes_body *b, float m[16]);

#endif
