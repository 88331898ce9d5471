/* sim.h - the 2D wave equation on an n x n grid, simulated with texla's public API only.
 *
 * u_tt = c^2 (u_xx + u_yy) on cells of size h = 1 with u = 0 on the border (Dirichlet: the
 * grid is clamped at its edges), time step dt, r = (c dt)^2, P the 5-point Laplacian matrix
 * (texla_banded_poisson), damping d in [0, 1):
 *   explicit:  y(t+1) = ((2 - d) I - r P) y(t) - (1 - d) y(t-1)          (one banded product;
 *              stable only while r <= 1/2, i.e. c dt <= 0.707)
 *   implicit:  (I + r/2 P) y(t+1) = (2 - d) y(t) - (1 - d) (I + r/2 P) y(t-1)
 *              (Crank-Nicolson-like average of the Laplacian over t+1 and t-1: unconditionally
 *              stable; solved by CG with a fixed iteration count, warm-started from
 *              2 y(t) - y(t-1), so the GPU never waits for the CPU). */
#ifndef WAVE_SIM_H
#define WAVE_SIM_H
#include "texla.h"

typedef struct wave_sim {
    texla_ctx *ctx;
    int n;            /* grid n x n */
    float c, dt, damping;
    int implicit;
    int cg_iters;     /* CG iterations per implicit step */
    texla_vec y[3];   /* y[cur] now, y[(cur+2)%3] previous, y[(cur+1)%3] next */
    int cur;
    texla_vec rhs, res;
    texla_scalar rr, bb;
    texla_cg_workspace cg; /* CG's work objects, kept across steps */
    texla_banded A;   /* explicit step matrix */
    texla_banded M;   /* implicit: I + r/2 P */
    texla_banded N;   /* implicit: -(1 - d) M */
    long long steps;
} wave_sim;

/* 0 on success; on failure the texla error is in texla_error_message(ctx). */
int wave_sim_init(wave_sim *s, texla_ctx *ctx, int n, float dt, int implicit, int cg_iters);
void wave_sim_free(wave_sim *s);
/* rebuilds the matrices for a new dt (or damping) */
int wave_sim_set_dt(wave_sim *s, float dt);
int wave_sim_step(wave_sim *s);
int wave_sim_reset(wave_sim *s);
/* a drop: a Gaussian bump of the given radius (cells) and amplitude at grid point (x, y),
 * added to both the current and the previous state (a displacement at rest) */
int wave_sim_drop(wave_sim *s, float x, float y, float radius, float amplitude);
texla_vec wave_sim_state(const wave_sim *s);
/* starts an asynchronous read of the implicit solve's relative residual ||rhs - M y|| / ||rhs||
 * of the last step (no stall); wave_sim_residual_poll gives it once the GPU has got there */
int wave_sim_residual_start(wave_sim *s);
int wave_sim_residual_poll(wave_sim *s, float *rel); /* 1: ready, 0: not yet, -1: error */
#endif
