/* physics.h - the falling-cubes demo's rigid-body simulation: boxes, contacts, and the contact
 * LCP formed and solved on the GPU with texla (no GL here: texla's public API only).
 *
 * One step (cubes_step, or cubes_step_begin + cubes_step_end):
 *   1. v* = v + g dt (external forces).
 *   2. Contacts: a broadphase (a uniform grid over the bodies' bounding spheres, each grown by
 *      how far the body can move in a step) finds the pairs worth testing in O(n); the narrow
 *      phase tests them in the order of the O(n^2) loop it replaced (so the contacts, and
 *      results, are the same): box-ground (vertices) and box-box (separating-axis test over the
 *      15 axes; face contacts clip the incident face against the reference face's side planes
 *      and keep up to 4 points; edge-edge contacts give one point). Contacts closer than
 *      `margin` plus how far the bodies' points can move in a step are kept (speculative: they
 *      may close the gap but not cross it, so fast bodies neither tunnel nor land deep); each is
 *      matched to the previous step's contact of the same body pair with the nearest point (in
 *      body a's frame) and inherits its impulses (warm start); new points of an old pair share
 *      what the pair carried before.
 *   3. Groups: one LCP of all contacts, or one per island (union-find over bodies in contact;
 *      the ground joins none).
 *   4. Per group, on the CPU, the rows in compact form (cubes_row: a normal row and two friction
 *      rows per contact point, 6 columns per body, at most 12 nonzeros a row): J, M^-1 J',
 *      diag(A) = J_i M^-1 J_i' (12 products a row: A is never formed for it), b = J v* + bias,
 *      the warm start, the friction index and mu. Then one of three solvers (cubes_solver):
 *        DENSE / ISLANDS: J and B = J M^-1 as dense matrices, A = B J' on the GPU
 *          (texla_mat_matmul_nt) and texla_lcp_jacobi;
 *        SPARSE (matrix-free): J (m x 6 nbodies) and M^-1 J' as texla_sparse matrices, their
 *          product a texla_op (texla_op_product), and texla_lcp_jacobi_op: per iteration
 *          w = J (M^-1 J' x) + b as two sparse products and one projection pass.
 *      All run the bounded projected Jacobi (normal >= 0, friction within +-mu normal) on the
 *      GPU with no read-back inside, relaxed per group by min(omega, 1.6 / lambda_max(D^-1 A)),
 *      lambda_max estimated on the CPU from the compact rows.
 *   5. The impulses of every group are read back (once per group, after all solves are issued),
 *      v = v* + M^-1 J' lambda, the complementarity measures from w = J v + bias, and semi-
 *      implicit Euler for position and orientation (quaternion, renormalised).
 * Dense GPU matrices come from a pool of slots keyed by their (padded) size and are reused
 * across steps: a group of m rows is padded to a size class mc >= m with rows that cannot carry
 * impulse (J = B = a unit in a spare column, b = 0: their solution is 0); the sparse solver's
 * vectors likewise (padding rows of J empty, diag 1, b 0). */
#ifndef CUBES_PHYSICS_H
#define CUBES_PHYSICS_H

#include "texla.h"

#include <stddef.h>

/* the contact solver */
typedef enum cubes_solver {
    CUBES_SOLVER_DEFAULT = 0, /* resolved by cubes_params_resolve: ISLANDS when .islands is set,
                                 else CUBES_SOLVER_DEFAULT_MODE */
    CUBES_SOLVER_DENSE,       /* one dense LCP of all contacts (A = B J' formed on the GPU) */
    CUBES_SOLVER_ISLANDS,     /* one dense LCP per island */
    CUBES_SOLVER_SPARSE       /* one LCP of all contacts, matrix-free (J, M^-1 J' sparse) */
} cubes_solver;
#define CUBES_SOLVER_DEFAULT_MODE CUBES_SOLVER_SPARSE
/* "dense", "islands", "sparse" (NULL for others) and back (-1: none) */
const char *cubes_solver_name(int solver);
int cubes_solver_parse(const char *name);

typedef struct cubes_params {
    float dt;          /* time step (s); 0: 1/60 */
    float gravity;     /* m/s^2 downwards (-y); 0: 9.81 (use a negative value for none) */
    float mu;          /* friction coefficient (pyramid); 0: 0.6 (negative: frictionless) */
    int iterations;    /* projected Jacobi iterations per step, at least; 0: 96 */
    int max_iterations;/* at most (see cubes_world.iters_now); 0: 4 x iterations; set it to
                          iterations for a fixed count */
    float omega;       /* Jacobi under-relaxation, at most; each group uses
                          min(omega, 1.6 / lambda_max(D^-1 A)) (see physics.c); 0: 0.7 */
    float beta;        /* Baumgarte factor of the position correction; 0: 0.2 */
    float slop;        /* penetration left uncorrected (m); 0: 0.002 */
    float margin;      /* speculative contact distance (m) beyond the step's motion; 0: 0.02 */
    float max_push;    /* cap on the correction velocity (m/s); 0: 2 */
    int solver;        /* cubes_solver; 0: default (see CUBES_SOLVER_DEFAULT); may be changed
                          between steps */
    int islands;       /* older spelling: 1 and solver 0 means CUBES_SOLVER_ISLANDS */
    int dense_max_rows;/* a dense group of more (padded) rows is not formed: the step is solved
                          by the sparse solver instead (stats.fallback); 0: 16384 (A 1 GiB) */
    float unsolved_tol;/* a step's LCP counts as unsolved when min w < -unsolved_tol * scale,
                          scale = the smallest half extent of the bodies in contact / dt: a
                          contact left sinking more than that share of it in one step; 0: 0.02
                          (1 cm a step for unit cubes) */
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
    float ev[3];       /* the lambda_max power iteration's vector at its rows (carried across
                          steps like lambda, so the iteration continues where it stopped) */
    float lmax;        /* its group's lambda_max estimate (carried: a floor for the next) */
    int warm;          /* 1: matched a contact of the previous step; 2: took a share of its
                          pair's previous load (a new point of an old manifold); 0: cold */
    int group, row;    /* its LCP group and its normal row there */
} cubes_contact;

typedef struct cubes_stats {
    int solver;                        /* the cubes_solver that solved the step */
    int fallback;                      /* 1: a dense solver was asked, the sparse one solved (a
                                          group over dense_max_rows) */
    int bodies, contacts, warm;        /* contact points, of them matched to a previous one */
    int pairs;                         /* body pairs the broadphase passed to the narrow phase */
    long nnz;                          /* nonzeros of J (all groups; M^-1 J' has as many) */
    int inherited;                     /* new points given a share of their pair's old load */
    int rows, groups, max_rows;        /* LCP rows in all, groups, rows of the largest group */
    int padded_rows;                   /* rows incl. padding to the size classes */
    int iterations;                    /* Jacobi iterations this step */
    float omega_min;                   /* the smallest relaxation of the step's groups */
    double t_broad_ms;                 /* CPU: the broadphase (part of t_collide_ms) */
    double t_collide_ms, t_build_ms;   /* CPU: contacts; rows, diag, lambda_max, b, and the
                                          dense J, B (dense solvers) or the sparse arrays */
    double t_upload_ms;                /* CPU side of the uploads: texla's calls that make and
                                          write the matrices and vectors */
    double t_solve_ms;                 /* uploads, GPU products and Jacobi, read-backs */
    double t_make_ms;                  /* of it, CPU: the sparse matrices and their product made
                                          (sparse solver) */
    double t_submit_ms;                /* of it, CPU: the Jacobi iterations issued (the first
                                          one's matrix preparation included) */
    double t_first_ms, t_iters_ms;     /* TEXLA_CUBES_SPLIT set: the first iteration alone, to
                                          its end on the GPU; the others, likewise */
    double t_finish_ms;                /* CPU after the read-back: impulses, measures, Euler */
    double t_step_ms;                  /* the whole step */
    float min_x, min_w, max_xw;        /* normal rows: min impulse, min w, max |x w| */
    float max_fric_excess;             /* max(|x_t| - mu x_n, 0) over friction rows */
    float max_w_fric;                  /* max |w_t| over friction rows strictly inside the cone */
    float max_depth;                   /* deepest penetration of the step's contacts */
    float bias_work;                   /* sum of lambda_n * correction velocity (J): energy the
                                          position correction may add this step, at most */
    float w_scale;                     /* the step's velocity scale: the smallest half extent of
                                          the bodies in contact / dt (m/s) */
    float w_tol;                       /* unsolved_tol * w_scale */
    int unsolved;                      /* 1: min_w < -w_tol (the LCP is clearly not solved) */
    int unsolved_rows;                 /* normal rows with w < -w_tol */
    int mats_made;                     /* texla objects created this step (matrices, vectors,
                                          sparse matrices, operators, workspaces) */
    int slots;                         /* pool slots alive */
} cubes_stats;

/* one row of an LCP in compact form: columns ca .. ca+5 (body a) and cb .. cb+5 (body b; -1:
 * the ground) of J and of (M^-1 J')' */
typedef struct cubes_row {
    int ca, cb;
    float j[12], mj[12];
} cubes_row;

/* one LCP of the step: rows [row0, row0 + m) of the step's contacts sorted by group */
typedef struct cubes_group {
    int c0, nc;        /* contacts order[c0 .. c0 + nc) */
    int b0, nb;        /* bodies border[b0 .. b0 + nb) */
    int m, K;          /* rows 3 nc, columns 6 nb */
    int mc, kc;        /* padded sizes of the GPU matrices */
    int slot;
    float lmax, omega;    /* largest eigenvalue of D^-1 A (estimated), the relaxation used */
    size_t off_j, off_v;  /* offsets of its J/B (mc * kc; dense solvers) and vectors and rows (mc)
                             in the host arrays */
} cubes_group;

typedef struct cubes_slot {
    int mc, kc, in_use;
    long last_used;
    texla_mat J, B, A, b, x, fi, mu;
    texla_lcp_workspace ws; /* the solver's work matrices for this size */
} cubes_slot;

/* the sparse solver's GPU vectors for one padded size (mc rows, kc columns), reused */
typedef struct cubes_sslot {
    int mc, kc, in_use;
    long last_used;
    texla_vec x, b, d, fi, mu; /* mc: impulses, b, diag(A), friction index, mu */
    texla_vec v;               /* kc: M^-1 J' x, between the two products */
    texla_lcp_op_workspace ws;
    texla_sparse J, B;         /* the step's matrices (made per step) */
    texla_op A;                /* J (B .) */
} cubes_sslot;

/* scenes */
typedef enum cubes_scene_kind { CUBES_SCENE_WALL = 0, CUBES_SCENE_PYRAMID, CUBES_SCENE_PILE } cubes_scene_kind;
const char *cubes_scene_name(int scene);
int cubes_scene_parse(const char *name); /* -1: none */
/* where a scene is, for a camera */
typedef struct cubes_scene_info {
    float centre[3];  /* the middle of the structure (of where the pile lands) */
    float size;       /* its largest extent (m) */
    float target[3];  /* where a shot should hit */
} cubes_scene_info;

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
    float *hJ, *hB, *hb, *hx, *hfi, *hmu, *hc, *hd; /* host J, B (dense solvers), b, x, index,
                                                      mu, bias, diag (all groups) */
    size_t cap_hJ, cap_hB, cap_hv;
    cubes_row *rows;   /* the rows of all groups (at off_v) */
    /* the sparse solver's host arrays: J in CSR, M^-1 J' in COO */
    int *sp_ptr, *sp_col, *sp_bptr, *sp_bfill, *sp_bcol; /* J and M^-1 J' as CSR */
    float *sp_val, *sp_bval;
    int cap_sp, cap_sp_ptr, cap_sp_b;
    cubes_sslot *sslots;
    int nsslots, cap_sslots, sslot; /* the step's slot (-1: none) */
    int mode;          /* the solver of the step being solved */
    int iters_now;     /* Jacobi iterations for the next step: doubled (up to max_iterations)
                          after a step whose LCP was left with a contact sinking faster than a
                          tenth of slop / dt, lowered by a quarter towards iterations after one
                          below half that (the residual is known after the read-back, so this
                          costs no read-back). Tall stacks need it: warm-started Jacobi keeps a
                          24-high wall standing with 96 iterations, but from a cold start it
                          settles only with 192 or more; with 96 it sags and bounces. */
    /* the broadphase */
    void *bp_ent;      /* (cell, body) entries */
    int *bp_start, *bp_pairs, *bp_first; /* bucket starts; pairs (i, j); pairs of body i */
    float *bp_box;     /* per body: bounding sphere centre and radius */
    int cap_bp_ent, cap_bp_start, cap_bp_pairs, cap_bp_first, cap_bp_box;
    cubes_slot *slots;
    int nslots, cap_slots;
    long frame;
    double time;
    int pending;       /* a step was begun and not ended */
    int split;         /* TEXLA_CUBES_SPLIT set: the sparse solve timed in parts (for measuring) */
    double t0, t_solve0;
    cubes_stats stats;
} cubes_world;

/* The parameters with every zero field resolved to its default. */
cubes_params cubes_params_resolve(const cubes_params *p);

/* at most this many Jacobi iterations a step (iterations, max_iterations) */
#define CUBES_MAX_ITERATIONS 1000000
/* ctx: a texla context (headless or host mode) current on this thread. p may be NULL.
 * Sets the context's matmul_k when p asks. Returns 0, or -1 (iterations or max_iterations
 * below 0 or past CUBES_MAX_ITERATIONS; texla refused matmul_k). */
int cubes_world_init(cubes_world *w, texla_ctx *ctx, const cubes_params *p);
/* Frees everything, the GPU matrices included (with ctx current). */
void cubes_world_free(cubes_world *w);
/* Removes all bodies and contacts (the GPU pool stays). */
void cubes_world_clear(cubes_world *w);

/* Builds a scene of n cubes (edge 1, mass 1) on an empty world: a wall about 10:6 wide to high
 * (columns 5 cm apart, the top row centred if partial; at most 24 high: a larger wall is made
 * of several such layers 5 cm apart, as few as keep that height), a square pyramid of layers offset by
 * half a cube (each cube on four), or a pile of randomly turned cubes dropped from a height (a
 * fixed seed: the same pile every time). info (may be NULL) says where it is. Returns 0 or -1. */
int cubes_scene(cubes_world *w, int scene, int n, cubes_scene_info *info);

/* Adds a box of the given half extents and mass at pos with orientation q (w, x, y, z; NULL:
 * identity), at rest. Returns its index, or -1 (out of memory or bad arguments: a position or
 * size not finite, a size or mass not > 0, q not finite or of length 0). */
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
 * between them the groups' GPU matrices (dense solvers: w->slots[w->groups[g].slot]; sparse:
 * w->sslots[w->sslot]) hold the step's J, B, A, b, x (the solution) and the host arrays the
 * group's data (cubes_group_*); end reads the impulses back, applies them and integrates. */
int cubes_step_begin(cubes_world *w);
int cubes_step_end(cubes_world *w);

/* The host data of group g during a step (after cubes_step_begin): J and B (mc x kc,
 * row-major, padded; the dense solvers only: NULL when the step is sparse), b, the warm start,
 * the friction index and mu (mc each). During a sparse step the GPU objects are
 * w->sslots[w->sslot] (x, b, d = diag(A), fi, mu, the step's J, B and A = J (B .)). */
const float *cubes_group_J(const cubes_world *w, int g);
const float *cubes_group_B(const cubes_world *w, int g);
const float *cubes_group_b(const cubes_world *w, int g);
const float *cubes_group_x0(const cubes_world *w, int g);
const float *cubes_group_index(const cubes_world *w, int g);
const float *cubes_group_mu(const cubes_world *w, int g);

/* The compact rows of group g (G->mc of them; rows past G->m are padding) and its diag(A). */
const cubes_row *cubes_group_rows(const cubes_world *w, int g);
const float *cubes_group_diag(const cubes_world *w, int g);

/* Energies: kinetic (translation + rotation) and potential (m g y) of all bodies (J). */
double cubes_kinetic_energy(const cubes_world *w);
double cubes_potential_energy(const cubes_world *w);
/* Column-major 4x4 model matrix of body i (rotation, scale by its extents, translation). */
void cubes_body_model(const cubes_body *b, float m[16]);

#endif
