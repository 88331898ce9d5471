/* test_wave.c - the wave demo's simulation (demos/wave/sim.c, texla's public API only) against
 * float64 CPU references (the seed is printed by main). Notation as in sim.h: n x n grid, P the
 * 5-point Laplacian with zero (Dirichlet) values outside the grid, (P y)_k = 4 y_k - sum of the
 * in-grid neighbours, r = (c dt)^2, damping d. The CPU side uses the sim's own float parameters
 * (s.c, s.dt, s.damping) converted to double, so the references are the exact formulas.
 *
 * EXPLICIT STEP (13x13 and 31x31: odd, so the 2D layout has a padding column; dt 0.5 from init
 * and dt 1.5 through wave_sim_set_dt): random y(t), y(t-1) in [-1, 1) written with
 * texla_vec_write into y[cur], y[prev]; one wave_sim_step; y[next] against
 *   ref = ((2 - d) I - r P) y(t) - (1 - d) y(t-1)
 * per element. TOLERANCE (u = 2^-24, g_k = k u / (1 - k u), Higham 3.1/3.5): the stored
 * coefficients carry r_f = fl(fl(c c) dt) dt) (3 roundings), the diagonal fl(fl(2 - d) + 4 r_f)
 * (<= 4 roundings against 2 - d + 4r, both terms positive), the off-diagonals r_f, the
 * coefficient -fl(1 - d) (1); the shader forms 6 products and sums them (1 + 5 roundings per
 * term, in any order or split into passes). So every term sees <= 10 roundings and
 *   |y_k - ref_k| <= g_10 ((2 - d + 4r) |y_k| + r sum |y_nb| + (1 - d) |y(t-1)_k|),
 * asserted with a factor 1.01 for the float64 reference. Not tuned.
 *
 * IMPLICIT STEP (13x13 and 31x31, dt 1.5 so r = 2.25 > 1/2, cg_iters 60): the right-hand side
 * the sim leaves in s.rhs against rhs = (2 - d) y(t) - (1 - d) (I + r/2 P) y(t-1) elementwise:
 * its matrix N = -(1 - d)(I + r/2 P) is stored with alpha = -fl(1 - d) (1 rounding),
 * beta = fl(-fl(1 - d) fl(0.5 r_f)) (5), diagonal fl(alpha + 4 beta) (6), plus the coefficient
 * fl(2 - d) (1), then 6 products summed (6): g_12 per term, times 1.01. Then y(t+1) against the
 * float64 solution of (I + r/2 P) y = rhs (CPU CG to a relative residual <= 1e-13; the CPU
 * solve is for the exact rhs, not the GPU's): relative 2-norm error <= 1e-5. WHY 1e-5: the
 * eigenvalues of M = I + r/2 P lie in (1, 1 + 4r), so kappa(M) < 10 at r = 2.25, and 60 CG
 * iterations contract the error by far more than float32 can resolve (2 ((sqrt k - 1) /
 * (sqrt k + 1))^60 < 1e-16); what is left is float32 rounding, about kappa times a few u in
 * the rhs and in CG's updates: ~1e-6. 1e-5 leaves a factor ~10 and still fails a wrong rhs, a
 * wrong matrix (r instead of r/2, a missing damping factor: all >= 1e-3 here) or a CG that
 * stops early. Also the demo's residual read (wave_sim_residual_start/poll, asynchronous) must
 * report ||rhs - M y|| / ||rhs|| <= 1e-5, like the same quantity recomputed on the CPU from the
 * GPU's rhs and y.
 *
 * STABILITY (64x64, dt 1.5, r = 2.25 > 1/2 where the explicit scheme is unstable): two drops
 * (wave_sim_drop: Gaussian bumps at rest) then 1000 implicit steps with cg_iters 8, the demo's
 * default (--cg). The discrete energy of the scheme (for d = 0 exactly conserved by
 * (y+ - 2y + y-) + r/2 P (y+ + y-) = 0: multiply by y+ - y-)
 *   E(t) = ||y(t+1) - y(t)||^2 + r/2 (y(t+1)' P y(t+1) + y(t)' P y(t)),
 * computed in float64 from read-backs every 50 steps, must stay finite and <= 2 E(0) and end
 * below E(0) (damping); max |y| (texla_vec_maxabs) is printed. The explicit scheme from the same
 * state at the same dt: its highest grid mode grows by ~|2 - 8r| ~ 16 per step; within 200 steps
 * max |y| must reach, while still finite, more than 1e3 times its initial value (an actual
 * growth, not merely NaN garbage). The step where the state first holds NaN/Inf is printed.
 *
 * ALSO: wave_sim_drop adds the same bump to y(t) and y(t-1) (equal afterwards, the peak equals
 * the amplitude at a grid point); wave_sim_reset zeroes the state and the step count; a failed
 * wave_sim_init (n = 0) returns -1 with a message and wave_sim_free after it is safe.
 */
#include "suites.h"

#include "../demos/wave/sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static texla_ctx *ctx;

#define U CHECK_U

static int sim_ok(int rc, const char *what) {
    CHECK(rc == 0, "%s failed: %s", what, texla_error_message(ctx));
    return rc == 0;
}

static texla_vec prev_of(const wave_sim *s) { return s->y[(s->cur + 2) % 3]; }

/* out = (P y) on the n x n grid, zero outside; also abs_out = 4|y_k| + sum |y_nb| when asked */
static double lap_at(const double *y, int n, int x, int yy, double *nbabs) {
    double s = 0, a = 0;
    if (x > 0) s += y[yy * n + x - 1], a += fabs(y[yy * n + x - 1]);
    if (x < n - 1) s += y[yy * n + x + 1], a += fabs(y[yy * n + x + 1]);
    if (yy > 0) s += y[(yy - 1) * n + x], a += fabs(y[(yy - 1) * n + x]);
    if (yy < n - 1) s += y[(yy + 1) * n + x], a += fabs(y[(yy + 1) * n + x]);
    if (nbabs) *nbabs = a;
    return 4.0 * y[yy * n + x] - s;
}

static void lap(const double *y, int n, double *out) {
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) out[j * n + i] = lap_at(y, n, i, j, NULL);
}

static double dotd(const double *a, const double *b, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

/* solves (I + h P) x = b in float64 by CG from 0; returns the relative residual reached */
static double cpu_cg(int n, double h, const double *b, double *x) {
    size_t N = (size_t)n * n;
    double *r = check_alloc(N, sizeof *r), *p = check_alloc(N, sizeof *p),
           *q = check_alloc(N, sizeof *q);
    memset(x, 0, N * sizeof *x);
    memcpy(r, b, N * sizeof *r);
    memcpy(p, b, N * sizeof *p);
    double bb = dotd(b, b, N), rr = bb;
    for (int it = 0; it < 10000 && rr > 1e-30 * bb; it++) {
        lap(p, n, q);
        for (size_t i = 0; i < N; i++) q[i] = p[i] + h * q[i];
        double alpha = rr / dotd(p, q, N);
        for (size_t i = 0; i < N; i++) x[i] += alpha * p[i], r[i] -= alpha * q[i];
        double rr1 = dotd(r, r, N);
        for (size_t i = 0; i < N; i++) p[i] = r[i] + rr1 / rr * p[i];
        rr = rr1;
    }
    /* the true residual */
    lap(x, n, q);
    double e = 0;
    for (size_t i = 0; i < N; i++) {
        double d = b[i] - (x[i] + h * q[i]);
        e += d * d;
    }
    free(r), free(p), free(q);
    return bb > 0 ? sqrt(e / bb) : sqrt(e);
}

static void to_d(const float *f, double *d, size_t n) {
    for (size_t i = 0; i < n; i++) d[i] = f[i];
}

/* n random values into f, and the same in float64 into d */
static void random_state(float *f, double *d, size_t n) {
    check_fill(f, n);
    to_d(f, d, n);
}

/* y(t) = y0, y(t-1) = ym, one step of s, got = y(t+1); 1 when every call worked */
static int step_from(wave_sim *s, const float *y0, const float *ym, float *got) {
    return CHECK_OK(ctx, texla_vec_write(ctx, y0, s->y[s->cur]), "write y(t)") &&
           CHECK_OK(ctx, texla_vec_write(ctx, ym, prev_of(s)), "write y(t-1)") &&
           sim_ok(wave_sim_step(s), "wave_sim_step") &&
           CHECK_OK(ctx, texla_vec_read(ctx, wave_sim_state(s), got), "read y(t+1)");
}

/* ---- one explicit step ---- */

static void explicit_step(int n, float dt) {
    char what[96];
    snprintf(what, sizeof what, "explicit step %dx%d dt %g", n, n, dt);
    wave_sim s;
    if (!sim_ok(wave_sim_init(&s, ctx, n, 0.5f, 0, 8), "wave_sim_init")) {
        wave_sim_free(&s);
        return;
    }
    if (dt != 0.5f && !sim_ok(wave_sim_set_dt(&s, dt), "wave_sim_set_dt")) {
        wave_sim_free(&s);
        return;
    }
    size_t N = (size_t)n * n;
    float *y0 = check_alloc(N, sizeof *y0), *ym = check_alloc(N, sizeof *ym),
          *got = check_alloc(N, sizeof *got);
    double *y0d = check_alloc(N, sizeof *y0d), *ymd = check_alloc(N, sizeof *ymd);
    random_state(y0, y0d, N);
    random_state(ym, ymd, N);
    if (step_from(&s, y0, ym, got)) {
        double d = s.damping, r = (double)s.c * s.c * s.dt * s.dt, g = 1.01 * check_gamma(10);
        double worst = 0, maxerr = 0;
        long bad = 0;
        int first = -1;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                size_t k = (size_t)j * n + i;
                double nbabs, pk = lap_at(y0d, n, i, j, &nbabs);
                double ref = (2.0 - d) * y0d[k] - r * pk - (1.0 - d) * ymd[k];
                double mag = (2.0 - d + 4.0 * r) * fabs(y0d[k]) + r * nbabs + (1.0 - d) * fabs(ymd[k]);
                double err = fabs((double)got[k] - ref);
                if (!(err <= g * mag)) {
                    if (first < 0) first = (int)k;
                    bad++;
                }
                if (err > maxerr) maxerr = err;
                if (mag > 0 && err / mag > worst) worst = err / mag;
            }
        CHECK(bad == 0, "%s: %ld elements off the CPU formula, first (%d, %d): got %.9g", what,
              bad, first >= 0 ? first % n : -1, first >= 0 ? first / n : -1,
              first >= 0 ? got[first] : 0.0);
        printf("  %s: max |err| %.3g, max err/magnitude %.3g u (bound %.3g u)\n", what, maxerr,
               worst / U, g / U);
        CHECK(s.steps == 1 && s.cur == 1, "%s: steps %lld cur %d after one step", what, s.steps, s.cur);
    }
    free(y0), free(ym), free(got), free(y0d), free(ymd);
    wave_sim_free(&s);
}

/* ---- one implicit (Crank-Nicolson) step ---- */

static void implicit_step(int n, float dt, int cg_iters) {
    char what[96];
    snprintf(what, sizeof what, "implicit step %dx%d dt %g cg %d", n, n, dt, cg_iters);
    wave_sim s;
    if (!sim_ok(wave_sim_init(&s, ctx, n, dt, 1, cg_iters), "wave_sim_init")) {
        wave_sim_free(&s);
        return;
    }
    size_t N = (size_t)n * n;
    float *y0 = check_alloc(N, sizeof *y0), *ym = check_alloc(N, sizeof *ym),
          *got = check_alloc(N, sizeof *got);
    float *rhsg = check_alloc(N, sizeof *rhsg);
    double *y0d = check_alloc(N, sizeof *y0d), *ymd = check_alloc(N, sizeof *ymd),
           *rhs = check_alloc(N, sizeof *rhs);
    double *ref = check_alloc(N, sizeof *ref), *tmp = check_alloc(N, sizeof *tmp);
    random_state(y0, y0d, N);
    random_state(ym, ymd, N);
    double t0 = check_now();
    if (step_from(&s, y0, ym, got) && CHECK_OK(ctx, texla_vec_read(ctx, s.rhs, rhsg), "read rhs")) {
        double gpu_s = check_now() - t0;
        double d = s.damping, r = (double)s.c * s.c * s.dt * s.dt, h = 0.5 * r;
        /* rhs = (2 - d) y(t) - (1 - d) (I + r/2 P) y(t-1) */
        long bad = 0;
        int first = -1;
        double g = 1.01 * check_gamma(12), worst = 0;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                size_t k = (size_t)j * n + i;
                double nbabs, pk = lap_at(ymd, n, i, j, &nbabs);
                rhs[k] = (2.0 - d) * y0d[k] - (1.0 - d) * (ymd[k] + h * pk);
                double mag = (2.0 - d) * fabs(y0d[k]) +
                             (1.0 - d) * ((1.0 + 4.0 * h) * fabs(ymd[k]) + h * nbabs);
                double err = fabs((double)rhsg[k] - rhs[k]);
                if (!(err <= g * mag)) {
                    if (first < 0) first = (int)k;
                    bad++;
                }
                if (mag > 0 && err / mag > worst) worst = err / mag;
            }
        CHECK(bad == 0, "%s: rhs: %ld elements off (2-d) y(t) - (1-d) M y(t-1), first (%d, %d): "
              "got %.9g want %.9g", what, bad, first >= 0 ? first % n : -1,
              first >= 0 ? first / n : -1, first >= 0 ? rhsg[first] : 0.0,
              first >= 0 ? rhs[first] : 0.0);
        double cres = cpu_cg(n, h, rhs, ref);
        CHECK(cres <= 1e-13, "%s: the CPU reference solve reached only %.3g", what, cres);
        double e = check_relerr(got, ref, N);
        CHECK(e <= 1e-5, "%s: ||y(t+1) - y_CN|| / ||y_CN|| = %.3g > 1e-5", what, e);
        /* the residual of the GPU's y for the GPU's rhs, on the CPU */
        double *gd = check_alloc(N, sizeof *gd), num = 0, den = 0;
        to_d(got, gd, N);
        lap(gd, n, tmp);
        for (size_t k = 0; k < N; k++) {
            double dd = (double)rhsg[k] - (gd[k] + h * tmp[k]);
            num += dd * dd;
            den += (double)rhsg[k] * rhsg[k];
        }
        double cpu_rel = sqrt(num / den);
        free(gd);
        /* the demo's asynchronous residual read */
        float rel = -1;
        int got_it = 0;
        if (sim_ok(wave_sim_residual_start(&s), "wave_sim_residual_start")) {
            int p = 0, tries = 0;
            while (tries < 1000 && (p = wave_sim_residual_poll(&s, &rel)) == 0) {
                tries++;
                texla_ctx_finish(ctx);
            }
            got_it = p == 1;
            CHECK(got_it, "%s: the residual read: poll %d after %d tries: %s", what, p, tries,
                  texla_error_message(ctx));
            if (got_it)
                CHECK(rel >= 0 && rel <= 1e-5, "%s: demo residual %.3g (CPU: %.3g) > 1e-5", what,
                      rel, cpu_rel);
        }
        CHECK(cpu_rel <= 1e-5, "%s: ||rhs - M y|| / ||rhs|| on the CPU %.3g > 1e-5", what, cpu_rel);
        printf("  %s: rhs max err/magnitude %.3g u (bound %.3g u); rel err vs float64 CN %.3g; "
               "residual: demo %.3g, CPU %.3g; GPU step+reads %.3f s\n", what, worst / U, g / U,
               e, rel, cpu_rel, gpu_s);
    }
    free(y0), free(ym), free(got), free(rhsg), free(y0d), free(ymd), free(rhs), free(ref), free(tmp);
    wave_sim_free(&s);
}

/* ---- stability: implicit stays bounded where explicit blows up ---- */

static double energy(const wave_sim *s, double *y1, double *y0, float *buf, double *tmp) {
    int n = s->n;
    size_t N = (size_t)n * n;
    if (texla_vec_read(ctx, s->y[s->cur], buf)) return NAN;
    to_d(buf, y1, N);
    if (texla_vec_read(ctx, prev_of(s), buf)) return NAN;
    to_d(buf, y0, N);
    double r = (double)s->c * s->c * s->dt * s->dt, kin = 0;
    for (size_t k = 0; k < N; k++) kin += (y1[k] - y0[k]) * (y1[k] - y0[k]);
    lap(y1, n, tmp);
    double p1 = dotd(y1, tmp, N);
    lap(y0, n, tmp);
    double p0 = dotd(y0, tmp, N);
    return kin + 0.5 * r * (p1 + p0);
}

static float maxabs(const wave_sim *s, texla_scalar sc) {
    float v = NAN;
    if (texla_vec_maxabs(ctx, wave_sim_state(s), sc) || texla_scalar_read(ctx, sc, &v)) return NAN;
    return v;
}

static long nonfinite(const wave_sim *s, float *buf) {
    size_t N = (size_t)s->n * s->n;
    if (texla_vec_read(ctx, wave_sim_state(s), buf)) return -1;
    long c = 0;
    for (size_t k = 0; k < N; k++) c += !isfinite(buf[k]);
    return c;
}

static int drops(wave_sim *s) {
    return wave_sim_drop(s, 20.0f, 30.0f, 2.0f, 0.25f) || wave_sim_drop(s, 45.0f, 18.0f, 3.0f, -0.2f);
}

static void stability(void) {
    const int n = 64, cg = 8, steps_i = 1000, steps_e = 200;
    const float dt = 1.5f;
    size_t N = (size_t)n * n;
    float *buf = check_alloc(N, sizeof *buf);
    double *y1 = check_alloc(N, sizeof *y1), *y0 = check_alloc(N, sizeof *y0),
           *tmp = check_alloc(N, sizeof *tmp);
    texla_scalar sc = {0};
    wave_sim s;
    if (!CHECK_OK(ctx, texla_scalar_make(ctx, 0, &sc), "texla_scalar_make")) goto out;

    /* implicit, 1000 steps */
    if (!sim_ok(wave_sim_init(&s, ctx, n, dt, 1, cg), "wave_sim_init implicit")) goto free_i;
    if (!sim_ok(drops(&s), "wave_sim_drop")) goto free_i;
    double t0 = check_now();
    double e0 = energy(&s, y1, y0, buf, tmp), emax = e0, elast = e0;
    float m0 = maxabs(&s, sc), mmax = m0;
    int emax_at = 0, bad_at = -1;
    for (int t = 1; t <= steps_i; t++) {
        if (wave_sim_step(&s)) {
            CHECK(0, "wave_sim_step implicit, step %d: %s", t, texla_error_message(ctx));
            goto free_i;
        }
        if (t % 50 == 0) {
            double e = energy(&s, y1, y0, buf, tmp);
            float m = maxabs(&s, sc);
            if (!(isfinite(e) && e <= 2 * e0 && isfinite(m)) && bad_at < 0) bad_at = t;
            if (e > emax) emax = e, emax_at = t;
            if (m > mmax) mmax = m;
            elast = e;
        }
    }
    double ti = check_now() - t0;
    CHECK(e0 > 0 && isfinite(e0), "implicit: initial energy %.6g", e0);
    CHECK(bad_at < 0, "implicit dt %g (r %g) cg %d: energy left [0, 2 E0] or max|y| not finite "
          "at step %d (E0 %.6g, max E %.6g at step %d)", dt, (double)(dt * dt), cg, bad_at, e0,
          emax, emax_at);
    CHECK(elast < e0, "implicit: the damped energy after %d steps %.6g is not below E0 %.6g",
          steps_i, elast, e0);
    printf("  implicit %dx%d dt %g (r %g) cg %d, %d steps: E0 %.6g, max E %.6g (step %d), "
           "E(%d) %.6g = %.3f E0; max|y| %.4g -> max %.4g; %.2f s (%.2f ms/step)\n", n, n, dt,
           (double)(dt * dt), cg, steps_i, e0, emax, emax_at, steps_i, elast, elast / e0, m0,
           mmax, ti, 1e3 * ti / steps_i);
free_i:
    wave_sim_free(&s);

    /* explicit from the same state, 200 steps */
    if (!sim_ok(wave_sim_init(&s, ctx, n, dt, 0, cg), "wave_sim_init explicit")) goto free_e;
    if (!sim_ok(drops(&s), "wave_sim_drop")) goto free_e;
    t0 = check_now();
    m0 = maxabs(&s, sc);
    int grew_at = -1, nan_at = -1;
    float grew = 0;
    for (int t = 1; t <= steps_e; t++) {
        if (wave_sim_step(&s)) {
            CHECK(0, "wave_sim_step explicit, step %d: %s", t, texla_error_message(ctx));
            goto free_e;
        }
        float m = maxabs(&s, sc);
        if (grew_at < 0 && isfinite(m) && m > 1e3f * m0) grew_at = t, grew = m;
        if (nan_at < 0 && t % 5 == 0 && nonfinite(&s, buf) > 0) nan_at = t;
    }
    long nf = nonfinite(&s, buf);
    double te = check_now() - t0;
    CHECK(m0 > 0, "explicit: initial max|y| %g", m0);
    CHECK(grew_at > 0, "explicit dt %g (r %g > 1/2): max|y| never grew past 1e3 x %g while finite "
          "in %d steps", dt, (double)(dt * dt), m0, steps_e);
    printf("  explicit %dx%d dt %g, %d steps: max|y| %.4g -> %.4g (> 1e3 x) at step %d; first "
           "NaN/Inf by step %d; after %d steps %ld of %zu elements NaN/Inf; %.2f s\n", n, n, dt,
           steps_e, m0, grew, grew_at, nan_at, steps_e, nf, N, te);
free_e:
    wave_sim_free(&s);
out:
    texla_scalar_destroy(ctx, sc);
    free(buf), free(y1), free(y0), free(tmp);
}

/* ---- drops, reset, init failure ---- */

static void drop_reset(void) {
    const int n = 13;
    size_t N = (size_t)n * n;
    wave_sim s;
    if (!sim_ok(wave_sim_init(&s, ctx, n, 0.5f, 1, 8), "wave_sim_init")) {
        wave_sim_free(&s);
        return;
    }
    float *a = check_alloc(N, sizeof *a), *b = check_alloc(N, sizeof *b);
    if (sim_ok(wave_sim_drop(&s, 6.0f, 4.0f, 2.0f, 0.25f), "wave_sim_drop") &&
        CHECK_OK(ctx, texla_vec_read(ctx, wave_sim_state(&s), a), "read y(t)") &&
        CHECK_OK(ctx, texla_vec_read(ctx, prev_of(&s), b), "read y(t-1)")) {
        CHECK(!memcmp(a, b, N * sizeof *a), "drop: y(t) and y(t-1) differ (not at rest)");
        /* the peak: amplitude exp(0) = amplitude, up to the splat's float rounding */
        CHECK(fabs(a[4 * n + 6] - 0.25) <= 4 * U * 0.25, "drop: peak %.9g, want 0.25", a[4 * n + 6]);
        float mx = 0;
        for (size_t k = 0; k < N; k++) mx = fabsf(a[k]) > mx ? fabsf(a[k]) : mx;
        CHECK(mx == a[4 * n + 6], "drop: the largest value %.9g is not at the centre", mx);
    }
    if (sim_ok(wave_sim_step(&s), "wave_sim_step") && sim_ok(wave_sim_reset(&s), "wave_sim_reset")) {
        long nz = 0;
        for (int i = 0; i < 3; i++) {
            if (!CHECK_OK(ctx, texla_vec_read(ctx, s.y[i], a), "read after reset")) break;
            for (size_t k = 0; k < N; k++) nz += a[k] != 0.0f;
        }
        CHECK(nz == 0 && s.steps == 0, "reset: %ld nonzero elements, steps %lld", nz, s.steps);
    }
    free(a), free(b);
    wave_sim_free(&s);

    wave_sim f;
    int rc = wave_sim_init(&f, ctx, 0, 0.5f, 1, 8);
    CHECK(rc == -1 && texla_error_message(ctx)[0], "wave_sim_init(n = 0) = %d, message \"%s\"", rc,
          texla_error_message(ctx));
    wave_sim_free(&f); /* must be safe after a failed init */
    CHECK(f.ctx == NULL, "wave_sim_free after a failed init left the struct set");
    /* no CG iterations (0 meant n^2 a step: minutes), a negative count, a NaN dt: refused */
    static const int cgs[3] = {0, -3, 8};
    static const float dts[3] = {0.5f, 0.5f, NAN};
    for (int k = 0; k < 3; k++) {
        rc = wave_sim_init(&f, ctx, 8, dts[k], 1, cgs[k]);
        CHECK(rc == -1 && strstr(texla_error_message(ctx), "wave_sim_init"), "wave_sim_init(cg "
              "%d, dt %g) = %d, message \"%s\"", cgs[k], (double)dts[k], rc, texla_error_message(ctx));
        wave_sim_free(&f);
    }
}

void suite_wave(void) {
    double t0 = check_now();
    ctx = suite_ctx(NULL);
    if (!ctx) return;
    explicit_step(13, 0.5f);
    explicit_step(13, 1.5f);
    explicit_step(31, 0.5f);
    implicit_step(13, 1.5f, 60);
    implicit_step(31, 1.5f, 60);
    drop_reset();
    stability();
    texla_ctx_destroy(ctx);
    ctx = NULL;
    printf("  suite wave: %.2f s\n", check_now() - t0);
}
