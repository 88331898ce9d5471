/* sim.c - see sim.h. Only texla's public API: no GL here. */
#include "sim.h"

#include <math.h>
#include <string.h>

#define TRY(x) do { if ((x) != TEXLA_OK) return -1; } while (0)

static int build(wave_sim *s) {
    float r = s->c * s->c * s->dt * s->dt, d = s->damping;
    texla_banded_destroy(s->ctx, s->A);
    texla_banded_destroy(s->ctx, s->M);
    texla_banded_destroy(s->ctx, s->N);
    s->A.id = s->M.id = s->N.id = 0;
    TRY(texla_banded_poisson(s->ctx, s->n, s->n, 2.0f - d, -r, &s->A));
    TRY(texla_banded_poisson(s->ctx, s->n, s->n, 1.0f, 0.5f * r, &s->M));
    TRY(texla_banded_poisson(s->ctx, s->n, s->n, -(1.0f - d), -(1.0f - d) * 0.5f * r, &s->N));
    return 0;
}

int wave_sim_init(wave_sim *s, texla_ctx *ctx, int n, float dt, int implicit, int cg_iters) {
    memset(s, 0, sizeof *s);
    /* CG iterations a step: at least 1 (0 meant CG's default, n^2 a step: minutes at n = 64);
     * dt finite and > 0 */
    if (implicit && (cg_iters < 1 || cg_iters > 100000)) {
        texla_ctx_fail(ctx, TEXLA_ERR_ARGUMENT, "wave_sim_init: cg_iters is %d; it must be 1 .. "
                       "100000", cg_iters);
        return -1;
    }
    if (!(dt > 0) || !isfinite(dt)) {
        texla_ctx_fail(ctx, TEXLA_ERR_ARGUMENT, "wave_sim_init: dt is %g; it must be finite and "
                       "> 0", (double)dt);
        return -1;
    }
    s->ctx = ctx;
    s->n = n;
    s->c = 1.0f;
    s->dt = dt;
    s->damping = 0.001f;
    s->implicit = implicit;
    s->cg_iters = cg_iters;
    for (int i = 0; i < 3; i++) TRY(texla_vec_make_grid(ctx, n, n, NULL, &s->y[i]));
    TRY(texla_vec_make_grid(ctx, n, n, NULL, &s->rhs));
    TRY(texla_vec_make_grid(ctx, n, n, NULL, &s->res));
    TRY(texla_scalar_make(ctx, 0, &s->rr));
    TRY(texla_scalar_make(ctx, 0, &s->bb));
    TRY(texla_cg_workspace_make(ctx, s->rhs, &s->cg));
    return build(s);
}

void wave_sim_free(wave_sim *s) {
    if (!s->ctx) return;
    for (int i = 0; i < 3; i++) texla_vec_destroy(s->ctx, s->y[i]);
    texla_vec_destroy(s->ctx, s->rhs);
    texla_vec_destroy(s->ctx, s->res);
    texla_scalar_destroy(s->ctx, s->rr);
    texla_scalar_destroy(s->ctx, s->bb);
    texla_cg_workspace_destroy(s->ctx, &s->cg);
    texla_banded_destroy(s->ctx, s->A);
    texla_banded_destroy(s->ctx, s->M);
    texla_banded_destroy(s->ctx, s->N);
    memset(s, 0, sizeof *s);
}

int wave_sim_set_dt(wave_sim *s, float dt) {
    s->dt = dt;
    return build(s);
}

int wave_sim_step(wave_sim *s) {
    texla_vec now = s->y[s->cur], prev = s->y[(s->cur + 2) % 3], next = s->y[(s->cur + 1) % 3];
    if (!s->implicit) {
        TRY(texla_banded_matvec_add(s->ctx, s->A, now, -(1.0f - s->damping), prev, next));
    } else {
        /* rhs = (2 - d) y(t) + N y(t-1); then M y(t+1) = rhs from 2 y(t) - y(t-1) */
        TRY(texla_banded_matvec_add(s->ctx, s->N, prev, 2.0f - s->damping, now, s->rhs));
        TRY(texla_vec_scale(s->ctx, now, texla_host(2.0f), next));
        TRY(texla_vec_acc(s->ctx, texla_host(-1.0f), prev, next));
        /* fixed iterations: no read-back */
        texla_cg_desc d = {.max_iter = s->cg_iters, .workspace = &s->cg};
        texla_cg_result res;
        TRY(texla_cg(s->ctx, texla_op_banded(s->M), s->rhs, &d, next, &res));
    }
    s->cur = (s->cur + 1) % 3;
    s->steps++;
    return 0;
}

int wave_sim_reset(wave_sim *s) {
    for (int i = 0; i < 3; i++) TRY(texla_vec_fill(s->ctx, texla_host(0.0f), s->y[i]));
    s->steps = 0;
    return 0;
}

int wave_sim_drop(wave_sim *s, float x, float y, float radius, float amplitude) {
    TRY(texla_vec_splat(s->ctx, x, y, radius, amplitude, s->y[s->cur]));
    TRY(texla_vec_splat(s->ctx, x, y, radius, amplitude, s->y[(s->cur + 2) % 3]));
    return 0;
}

texla_vec wave_sim_state(const wave_sim *s) { return s->y[s->cur]; }

int wave_sim_residual_start(wave_sim *s) {
    TRY(texla_banded_matvec_add(s->ctx, s->M, s->y[s->cur], -1.0f, s->rhs, s->res));
    TRY(texla_vec_sqnorm(s->ctx, s->res, s->rr));
    TRY(texla_vec_sqnorm(s->ctx, s->rhs, s->bb));
    TRY(texla_scalar_read_start(s->ctx, s->bb)); /* bb first: its fence passes before rr's */
    TRY(texla_scalar_read_start(s->ctx, s->rr));
    return 0;
}

int wave_sim_residual_poll(wave_sim *s, float *rel) {
    float rr, bb;
    texla_result r = texla_scalar_read_poll(s->ctx, s->rr, &rr);
    if (r == TEXLA_ERR_NOT_READY) return 0;
    if (r) return -1;
    /* rr's fence has passed, so bb's (started earlier) has too */
    if (texla_scalar_read_poll(s->ctx, s->bb, &bb)) return -1;
    *rel = bb > 0 ? sqrtf(rr / bb) : sqrtf(rr);
    return 1;
}
