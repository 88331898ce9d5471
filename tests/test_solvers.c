/* test_solvers.c - conjugate gradients (texla_cg) and projected Jacobi for the LCP
 * (texla_lcp_jacobi), every result checked on the CPU in float64 (the seed is printed by main).
 *
 * CG, tolerance mode (tol 1e-5, the relative residual of the recurrence): the 2D Poisson matrix
 * of a 256x256 grid (texla_banded_poisson(256, 256, 0, 1)) with a random b; a random SPD dense
 * system A = M M' + n I, n = 100; a random symmetric strictly diagonally dominant sparse system,
 * n = 2000, ~8 off-diagonal entries per row (COO, duplicates summed), positive diagonal.
 * Each returned x is checked on the CPU: ||b - A x|| / ||b|| <= 2 tol. WHY 2: CG stops on its
 * recurrence residual r_k, which in float32 drifts from the true b - A x_k by the rounding
 * accumulated in the x and r updates (Greenbaum; the gap grows like k u ||A|| ||x||), and x
 * itself cannot be stored more accurately than u |x|, a floor of about u || |A||x| || / ||b||;
 * both are printed. A factor 2 allows a gap as large as tol itself while still failing a solver
 * that stops early, mis-scales the residual or drops the warm start. Fixed in advance, not tuned.
 * Also: the readbacks of tolerance mode (<= one per check interval, plus 3); warm start from an
 * accurate solution converges within one check interval; warm start at an exact solution
 * (r0 = 0 exactly, A = I) must not produce NaN; fixed-iteration mode (tol 0, max_iter 50)
 * reports rel_residual -1, 50 iterations and ZERO read-backs (texla_ctx_stats), lowers the true
 * residual, and gives the x of tolerance mode stopped at the same 50 iterations (the same
 * arithmetic: required within 1e-3 relative, printed beside the change one more iteration
 * makes, which that bound must be far below to mean anything); texla_op_matvec for each kind.
 *
 * LCP: random symmetric A with off-diagonal entries in [-1, 1) and a_ii = 2 sum_j |a_ij| + 1
 * (so SPD, and q = max_i sum_j |a_ij| / a_ii < 1/2), n = 16, 64, 200, b random with mixed
 * signs, 300 iterations, omega 1 and 0.7, cold (x = 0) and warm (random x >= 0) starts. On the
 * CPU in float64 with w = A x + b and scale = ||b||_inf max(1, ||x||_inf): x >= 0 exactly,
 * min w >= -1e-5 scale, |x'w| <= 1e-4 scale (issue 3's criteria). The returned measures against
 * the CPU ones: min_x exact; min_w and max_abs_xw within g_(n+2) (|A||x| + |b|) terms, x'w
 * within g_(2n+1) sum_i |x_i| (|A||x| + |b|)_i (w rounds in the product and the add, x'w in its
 * dot), each times 1.01. x against a float64 projected Gauss-Seidel solution (unique for SPD A):
 * the map x -> max(0, x - omega D^-1 (A x + b)) contracts in the inf-norm by
 * q_w = |1 - omega| + omega q, and one float32 step differs from it by at most
 * E_i = (omega / a_ii) g_(n+7) (|A||x| + |b|)_i + u |x_i| (product, add, scaling, subtraction,
 * projection), so ||x - x_ref||_inf <= q_w^iters ||x0 - x_ref||_inf + 2 max E / (1 - q_w); the 2
 * covers evaluating E at x_ref instead of at the iterates and the reference's own error
 * (<= 1e-15 relative). Read-backs: none with out = NULL, one with out (texla.h). A = 2I gives
 * x = max(0, -b/2) exactly.
 *
 * ERRORS: shapes (b, x, a non-square operator), bad options (max_iter, tol, check_every,
 * iterations, omega), stale handles and a handle of another kind. x = b: CG reads b only before
 * it first writes x, so TEXLA_ERR_ALIAS or the solution for the original b are both accepted;
 * projected Jacobi rewrites x every iteration, so there x = b must be TEXLA_ERR_ALIAS or (checked
 * on A = 2I) the solution for the original b.
 */
#include "suites.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static texla_ctx *ctx;

#define U CHECK_U

static uint64_t readbacks_now(void) {
    texla_stats st = {0};
    texla_ctx_stats(ctx, &st);
    return st.readbacks;
}

static double norm_inf_f(const float *x, size_t n) {
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs((double)x[i]));
    return m;
}

/* ---- CPU operators in float64 ---- */

/* y = (alpha I + beta P) x on an nx x ny grid, P the 5-point Laplacian with Dirichlet
 * boundaries; absy (may be NULL) = |alpha I + beta P| |x| */
static void cpu_poisson(int nx, int ny, double alpha, double beta, const float *x, double *y,
                        double *absy) {
    for (int cy = 0; cy < ny; cy++)
        for (int cx = 0; cx < nx; cx++) {
            size_t k = (size_t)cy * (size_t)nx + (size_t)cx;
            double nb = 0, nba = 0;
            if (cx > 0) nb += x[k - 1], nba += fabs((double)x[k - 1]);
            if (cx < nx - 1) nb += x[k + 1], nba += fabs((double)x[k + 1]);
            if (cy > 0) nb += x[k - (size_t)nx], nba += fabs((double)x[k - (size_t)nx]);
            if (cy < ny - 1) nb += x[k + (size_t)nx], nba += fabs((double)x[k + (size_t)nx]);
            y[k] = alpha * x[k] + beta * (4.0 * x[k] - nb);
            if (absy) absy[k] = fabs(alpha + 4.0 * beta) * fabs((double)x[k]) + fabs(beta) * nba;
        }
}

static void cpu_dense(int n, int m, const float *a, const float *x, double *y, double *absy) {
    for (int i = 0; i < n; i++) {
        double s = 0, sa = 0;
        for (int j = 0; j < m; j++) {
            double t = (double)a[(size_t)i * (size_t)m + (size_t)j] * x[j];
            s += t, sa += fabs(t);
        }
        y[i] = s;
        if (absy) absy[i] = sa;
    }
}

static void cpu_coo(int n, int nnz, const int *r, const int *c, const float *v, const float *x,
                    double *y, double *absy) {
    for (int i = 0; i < n; i++) {
        y[i] = 0;
        if (absy) absy[i] = 0;
    }
    for (int e = 0; e < nnz; e++) {
        double t = (double)v[e] * x[c[e]];
        y[r[e]] += t;
        if (absy) absy[r[e]] += fabs(t);
    }
}

/* ||b - Ax|| / ||b|| with Ax given in float64 */
static double relres(const float *b, const double *ax, size_t n) {
    double e = 0, nb = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)b[i] - ax[i];
        e += d * d, nb += (double)b[i] * b[i];
    }
    return isnan(e) ? INFINITY : sqrt(e / nb);
}

/* || |A||x| || / ||b|| times u: the residual that storing x in float32 alone can cause */
static double floor_est(const float *b, const double *absax, size_t n) {
    return U * check_norm_d(absax, n) / check_norm_f(b, n);
}

#define CG_TOL 1e-5f
#define CG_FACTOR 2.0

/* runs texla_cg, prints a line, returns the result; *rb gets the read-backs it made */
static texla_cg_result run_cg(texla_op op, texla_vec b, texla_cg_desc d, texla_vec x,
                              const char *what, uint64_t *rb, double *secs) {
    texla_cg_result out = {.iterations = -7, .rel_residual = -7.0f, .converged = -7};
    texla_ctx_finish(ctx);
    uint64_t r0 = readbacks_now();
    double t0 = check_now();
    texla_result r = texla_cg(ctx, op, b, &d, x, &out);
    texla_ctx_finish(ctx);
    *secs = check_now() - t0;
    *rb = readbacks_now() - r0;
    CHECK_OK(ctx, r, what);
    return out;
}

/* tolerance-mode checks of one solve; ax/absax are filled from x by the caller's operator */
static void check_tol_solve(const char *what, texla_cg_result out, int max_iter, int every,
                            uint64_t rb, double secs, const float *b, const double *ax,
                            const double *absax, size_t n) {
    double rr = relres(b, ax, n), fl = floor_est(b, absax, n);
    /* float32 cannot hold an x much better than fl (the rounding of x alone; for a random b on
     * the 256^2 grid it is 3e-6..1.6e-5, seed-dependent). Where 2 fl <= tol, convergence to tol
     * is required; above, tol may be out of float32's reach, and an honest report is required:
     * converged, or a true residual within 2 fl (what texla returns and what it says). */
    int reachable = 2 * fl <= CG_TOL;
    double target = reachable ? CG_TOL : fmax(CG_TOL, 2 * fl);
    if (reachable) {
        CHECK(out.converged == 1 && out.iterations >= 1 && out.iterations <= max_iter,
              "%s: converged %d after %d iterations (max %d)", what, out.converged,
              out.iterations, max_iter);
    } else {
        printf("  %s: tol %.0e is below twice the float32 floor %.1e: convergence not required\n",
               what, (double)CG_TOL, fl);
        CHECK(out.iterations >= 1 && out.iterations <= max_iter, "%s: %d iterations (max %d)",
              what, out.iterations, max_iter);
    }
    CHECK(out.rel_residual >= 0 && out.rel_residual <= target,
          "%s: reported rel_residual %.3g, expected in [0, %.3g]", what, (double)out.rel_residual,
          target);
    CHECK(out.converged == 0 || out.rel_residual <= CG_TOL,
          "%s: says converged with a true residual %.3g > tol", what, (double)out.rel_residual);
    /* and the other way (a held-out 512^2 check once returned 7.55e-6 < 1e-5 as not converged):
     * a reported residual within tol is a convergence, whatever the stop's path */
    CHECK(!(out.rel_residual >= 0 && out.rel_residual <= CG_TOL) || out.converged == 1,
          "%s: reports rel_residual %.3g <= tol %.0e but converged %d (stop %s)", what,
          (double)out.rel_residual, (double)CG_TOL, out.converged, texla_cg_stop_name(out.stop));
    CHECK(rr <= CG_FACTOR * target, "%s: true ||b - Ax||/||b|| = %.3g (float64 on the CPU) > "
          "%.0f x %.3g (recurrence residual %.3g)", what, rr, CG_FACTOR, target,
          (double)out.rel_residual);
    uint64_t max_rb = (uint64_t)(out.iterations / every) + 3;
    CHECK(rb <= max_rb, "%s: %llu read-backs in %d iterations with check_every %d (at most "
          "iterations/check_every + 3 = %llu)", what, (unsigned long long)rb, out.iterations,
          every, (unsigned long long)max_rb);
    printf("  %-34s %4d it  %7.1f ms  %5.2f ms/it  recurrence %.3e  true %.3e (bound %.0e)  "
           "x-rounding floor %.1e  read-backs %llu\n", what, out.iterations, 1e3 * secs,
           out.iterations > 0 ? 1e3 * secs / out.iterations : 0.0, (double)out.rel_residual, rr,
           CG_FACTOR * CG_TOL, fl, (unsigned long long)rb);
}

/* fixed-iteration mode (tol 0, 10 iterations) of op ("dense", "sparse"): no read-backs */
static void check_fixed10(texla_op op, texla_vec b, texla_vec x, const char *kind) {
    char what[64];
    uint64_t rb;
    double secs;
    snprintf(what, sizeof what, "cg %s fixed 10", kind);
    texla_cg_desc df = {.max_iter = 10, .tol = 0, .check_every = 0};
    texla_cg_result out = run_cg(op, b, df, x, what, &rb, &secs);
    CHECK(rb == 0 && out.rel_residual == -1.0f && out.iterations == 10,
          "cg %s fixed-iteration mode: %llu read-backs (expected 0), rel_residual %g, %d "
          "iterations", kind, (unsigned long long)rb, (double)out.rel_residual, out.iterations);
}

static void test_cg_poisson(void) {
    const int nx = 256, ny = 256, every = 8;
    vshape s = grid_shape(nx, ny);
    size_t n = (size_t)s.n;
    float *B = check_rnd(n), *X = check_alloc(n, sizeof *X), *X50 = check_alloc(n, sizeof *X50),
          *X50t = check_alloc(n, sizeof *X50t), *XT = check_rnd(n),
          *B2 = check_alloc(n, sizeof *B2);
    double *ax = check_alloc(n, sizeof *ax), *absax = check_alloc(n, sizeof *absax);
    texla_banded p = {0};
    CHECK_OK(ctx, texla_banded_poisson(ctx, nx, ny, 0, 1, &p), "cg: texla_banded_poisson 256x256");
    texla_op op = texla_op_banded(p);
    texla_vec b = mkv(s, B, "cg poisson: b"), x = mkv(s, NULL, "cg poisson: x");
    uint64_t rb;
    double secs;
    char what[160];

    /* tolerance mode from x = 0 */
    texla_cg_desc d = {.max_iter = 4000, .tol = CG_TOL, .check_every = 0};
    texla_cg_result out = run_cg(op, b, d, x, "cg poisson 256x256 tol 1e-5", &rb, &secs);
    if (!vfetch(x, s, X, "cg poisson: x")) {
        cpu_poisson(nx, ny, 0, 1, X, ax, absax);
        check_tol_solve("cg poisson 256x256 (banded)", out, 4000, every, rb, secs, B, ax, absax,
                        n);
    }
    expect_holds(b, s, B, "cg poisson: b unchanged");

    /* b = A xr for a random xr: a right-hand side whose float32 floor is far below tol, so
     * convergence to 1e-5 is always required here */
    {
        float *XR = check_rnd(n), *BR = check_alloc(n, sizeof *BR);
        cpu_poisson(nx, ny, 0, 1, XR, ax, NULL);
        for (size_t i = 0; i < n; i++) BR[i] = (float)ax[i];
        texla_vec br = mkv(s, BR, "cg poisson: b = A xr"), xr = mkv(s, NULL, "cg poisson: x");
        out = run_cg(op, br, d, xr, "cg poisson 256x256 b = A xr", &rb, &secs);
        if (!vfetch(xr, s, X, "cg poisson: x")) {
            cpu_poisson(nx, ny, 0, 1, X, ax, absax);
            CHECK(2 * floor_est(BR, absax, n) <= CG_TOL, "cg poisson b = A xr: float32 floor %.2g "
                  "not below tol / 2", floor_est(BR, absax, n));
            check_tol_solve("cg poisson 256x256 (b = A xr)", out, 4000, every, rb, secs, BR, ax,
                            absax, n);
        }
        texla_vec_destroy(ctx, br);
        texla_vec_destroy(ctx, xr);
        free(XR), free(BR);
    }

    /* warm start from an accurate solution: b = A xt in float64, rounded; x0 = xt. The true
     * relative residual of x0 is ~u, so the first check (<= 8 iterations) must stop it; a cold
     * start needs hundreds. */
    cpu_poisson(nx, ny, 0, 1, XT, ax, NULL);
    for (size_t i = 0; i < n; i++) B2[i] = (float)ax[i];
    texla_vec b2 = mkv(s, B2, "cg warm: b"), xw = mkv(s, XT, "cg warm: x0");
    texla_cg_desc dw = {.max_iter = 4000, .tol = CG_TOL, .check_every = every};
    out = run_cg(op, b2, dw, xw, "cg warm start", &rb, &secs);
    CHECK(out.converged == 1 && out.iterations <= every,
          "cg warm start from a solution (256x256 Poisson): converged %d after %d iterations, "
          "expected convergence within one check interval (%d)", out.converged, out.iterations,
          every);
    if (!vfetch(xw, s, X, "cg warm: x")) {
        cpu_poisson(nx, ny, 0, 1, X, ax, absax);
        double rr = relres(B2, ax, n);
        CHECK(rr <= CG_FACTOR * CG_TOL, "cg warm start: true relative residual %.3g > %.3g", rr,
              CG_FACTOR * CG_TOL);
        printf("  %-34s %4d it  recurrence %.3e  true %.3e\n", "cg warm start (x0 = solution)",
               out.iterations, (double)out.rel_residual, rr);
    }

    /* fixed-iteration mode: 50 iterations from 0, zero read-backs */
    CHECK_OK(ctx, texla_vec_fill(ctx, texla_host(0), x), "cg fixed: x = 0");
    texla_cg_desc df = {.max_iter = 50, .tol = 0, .check_every = 0};
    out = run_cg(op, b, df, x, "cg fixed 50", &rb, &secs);
    CHECK(out.rel_residual == -1.0f && out.iterations == 50,
          "cg fixed-iteration mode: rel_residual %.9g (expected -1), iterations %d (expected 50)",
          (double)out.rel_residual, out.iterations);
    CHECK(rb == 0, "cg fixed-iteration mode (50 iterations, 256x256 Poisson): %llu read-backs, "
          "expected 0", (unsigned long long)rb);
    double r50 = INFINITY, r50t = INFINITY, r51 = INFINITY;
    if (!vfetch(x, s, X50, "cg fixed: x")) {
        cpu_poisson(nx, ny, 0, 1, X50, ax, NULL);
        r50 = relres(B, ax, n);
        CHECK(r50 < 1.0, "cg fixed 50 iterations from x = 0: true relative residual %.3g, not "
              "below the start's 1", r50);
    }
    printf("  %-34s %4d it  %7.1f ms  %5.2f ms/it  rel_residual %g  read-backs %llu  true %.3e "
           "(start 1)\n", "cg fixed-iteration (tol 0)", out.iterations, 1e3 * secs,
           1e3 * secs / 50, (double)out.rel_residual, (unsigned long long)rb, r50);
    /* the same 50 iterations in tolerance mode (a tol never reached) */
    CHECK_OK(ctx, texla_vec_fill(ctx, texla_host(0), x), "cg tol-50: x = 0");
    texla_cg_desc dt = {.max_iter = 50, .tol = 1e-30f, .check_every = 10};
    out = run_cg(op, b, dt, x, "cg tol 1e-30 max 50", &rb, &secs);
    CHECK(out.iterations == 50 && out.converged == 0,
          "cg tolerance mode, tol 1e-30, max_iter 50: %d iterations, converged %d (expected 50, "
          "0)", out.iterations, out.converged);
    if (!vfetch(x, s, X50t, "cg tol-50: x")) {
        cpu_poisson(nx, ny, 0, 1, X50t, ax, NULL);
        r50t = relres(B, ax, n);
    }
    /* and 51 fixed iterations: how much one iteration moves x */
    CHECK_OK(ctx, texla_vec_fill(ctx, texla_host(0), x), "cg fixed 51: x = 0");
    texla_cg_desc d51 = {.max_iter = 51, .tol = 0, .check_every = 0};
    out = run_cg(op, b, d51, x, "cg fixed 51", &rb, &secs);
    double diff = INFINITY, diff51 = INFINITY, nx50 = check_norm_f(X50t, n);
    if (!vfetch(x, s, X, "cg fixed 51: x")) {
        double e = 0, e51 = 0;
        for (size_t i = 0; i < n; i++) {
            double t = (double)X50[i] - X50t[i], t51 = (double)X[i] - X50t[i];
            e += t * t, e51 += t51 * t51;
        }
        diff = sqrt(e) / nx50, diff51 = sqrt(e51) / nx50;
        cpu_poisson(nx, ny, 0, 1, X, ax, NULL);
        r51 = relres(B, ax, n);
    }
    snprintf(what, sizeof what, "cg fixed 50 vs tolerance mode stopped at 50");
    CHECK(diff <= 1e-3, "%s: ||x_fixed - x_tol|| / ||x_tol|| = %.3g > 1e-3 (one more iteration "
          "changes x by %.3g)", what, diff, diff51);
    printf("  fixed 50 vs tolerance-mode 50: ||dx||/||x|| = %.3e (bound 1e-3); fixed 51 vs 50: "
           "%.3e; true residuals %.4e / %.4e / %.4e (fixed 50 / tol 50 / fixed 51)\n", diff,
           diff51, r50, r50t, r51);

    /* r0 = 0 exactly: A = I (alpha 1, beta 0), x0 = b */
    texla_banded id = {0};
    vshape s16 = grid_shape(16, 16);
    float *B16 = check_rnd(256), X16[256];
    CHECK_OK(ctx, texla_banded_poisson(ctx, 16, 16, 1, 0, &id), "cg r0 = 0: identity");
    texla_vec b16 = mkv(s16, B16, "cg r0 = 0: b"), x16 = mkv(s16, B16, "cg r0 = 0: x0 = b");
    for (int mode = 0; mode < 2; mode++) {
        texla_cg_desc dz = {.max_iter = mode ? 10 : 100, .tol = mode ? 0 : CG_TOL,
                            .check_every = 4};
        snprintf(what, sizeof what, "cg %s from the exact solution (r0 = 0, A = I 16x16)",
                 mode ? "fixed 10" : "tol 1e-5");
        out = run_cg(texla_op_banded(id), b16, dz, x16, what, &rb, &secs);
        if (vfetch(x16, s16, X16, what)) continue;
        size_t bad = 0;
        for (int i = 0; i < 256; i++)
            bad += !(fabs((double)X16[i] - B16[i]) <= U * fabs((double)B16[i]));
        CHECK(bad == 0, "%s: %zu of 256 elements of x moved from the solution (NaN from 0/0?); "
              "iterations %d, rel_residual %.9g", what, bad, out.iterations,
              (double)out.rel_residual);
        if (!mode)
            CHECK(out.converged == 1 && out.rel_residual == out.rel_residual &&
                      out.rel_residual <= CG_TOL && out.iterations <= 4,
                  "%s: converged %d, rel_residual %.9g, %d iterations (check_every 4)", what,
                  out.converged, (double)out.rel_residual, out.iterations);
    }
    texla_banded_destroy(ctx, id);
    texla_vec_destroy(ctx, b16);
    texla_vec_destroy(ctx, x16);
    free(B16);

    texla_banded_destroy(ctx, p);
    texla_vec_destroy(ctx, b);
    texla_vec_destroy(ctx, x);
    texla_vec_destroy(ctx, b2);
    texla_vec_destroy(ctx, xw);
    free(B), free(X), free(X50), free(X50t), free(XT), free(B2), free(ax), free(absax);
}

static void test_cg_dense(void) {
    const int n = 100;
    size_t nn = (size_t)n * (size_t)n;
    float *M = check_rnd(nn), *A = check_alloc(nn, sizeof *A), *B = check_rnd((size_t)n),
          *X = check_alloc((size_t)n, 4);
    double *ax = check_alloc((size_t)n, sizeof *ax), *absax = check_alloc((size_t)n, sizeof *absax);
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            double s = i == j ? n : 0;
            for (int k = 0; k < n; k++)
                s += (double)M[(size_t)i * (size_t)n + (size_t)k] *
                     M[(size_t)j * (size_t)n + (size_t)k];
            A[(size_t)i * (size_t)n + (size_t)j] = A[(size_t)j * (size_t)n + (size_t)i] = (float)s;
        }
    texla_mat a = {0};
    CHECK_OK(ctx, texla_mat_make(ctx, n, n, A, &a), "cg dense: A");
    vshape s = plain_shape(n);
    texla_vec b = mkv(s, B, "cg dense: b"), x = mkv(s, NULL, "cg dense: x");
    uint64_t rb;
    double secs;
    texla_cg_desc d = {.max_iter = 1000, .tol = CG_TOL, .check_every = 4};
    texla_cg_result out = run_cg(texla_op_dense(a), b, d, x, "cg dense", &rb, &secs);
    if (!vfetch(x, s, X, "cg dense: x")) {
        cpu_dense(n, n, A, X, ax, absax);
        check_tol_solve("cg dense SPD n=100 (M M' + n I)", out, 1000, 4, rb, secs, B, ax, absax,
                        (size_t)n);
    }
    /* fixed mode: zero read-backs for this operator too */
    check_fixed10(texla_op_dense(a), b, x, "dense");
    texla_mat_destroy(ctx, a);
    texla_vec_destroy(ctx, b);
    texla_vec_destroy(ctx, x);
    free(M), free(A), free(B), free(X), free(ax), free(absax);
}

/* CG on a product operator, A = M M' (M a dense 70 x 70 matrix, M' its transpose, applied in
 * turn: texla_op_product), against A x in float64; the bound is |M| (|M'| |x|), what the two
 * products round against. (texla_cg refused product operators: its fused q = A p, p'q step knew
 * only the storage kinds.) */
static void test_cg_product(void) {
    const int n = 70;
    size_t nn = (size_t)n * (size_t)n;
    float *M = check_rnd(nn), *Mt = check_alloc(nn, sizeof *Mt), *B = check_rnd((size_t)n),
          *X = check_alloc((size_t)n, 4);
    for (int i = 0; i < n; i++) M[(size_t)i * (size_t)n + (size_t)i] += (float)n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) Mt[(size_t)j * (size_t)n + (size_t)i] = M[(size_t)i * (size_t)n + (size_t)j];
    double *t = check_alloc((size_t)n, sizeof *t), *ta = check_alloc((size_t)n, sizeof *ta),
           *ax = check_alloc((size_t)n, sizeof *ax), *absax = check_alloc((size_t)n, sizeof *absax);
    texla_mat m = {0}, mt = {0};
    CHECK_OK(ctx, texla_mat_make(ctx, n, n, M, &m), "cg product: M");
    CHECK_OK(ctx, texla_mat_make(ctx, n, n, Mt, &mt), "cg product: M'");
    vshape s = plain_shape(n);
    texla_vec b = mkv(s, B, "cg product: b"), x = mkv(s, NULL, "cg product: x"),
              mid = mkv(s, NULL, "cg product: mid");
    texla_op a = {0};
    CHECK_OK(ctx, texla_op_product(ctx, texla_op_dense(m), texla_op_dense(mt), mid, &a),
             "cg product: texla_op_product");
    uint64_t rb;
    double secs;
    texla_cg_desc d = {.max_iter = 500, .tol = CG_TOL, .check_every = 4};
    texla_cg_result out = run_cg(a, b, d, x, "cg product M M'", &rb, &secs);
    if (!vfetch(x, s, X, "cg product: x")) {
        for (int i = 0; i < n; i++) { /* t = M' x, ta = |M'| |x| */
            double v = 0, va = 0;
            for (int k = 0; k < n; k++) {
                double e = Mt[(size_t)i * (size_t)n + (size_t)k];
                v += e * X[k], va += fabs(e) * fabs((double)X[k]);
            }
            t[i] = v, ta[i] = va;
        }
        for (int i = 0; i < n; i++) {
            double v = 0, va = 0;
            for (int k = 0; k < n; k++) {
                double e = M[(size_t)i * (size_t)n + (size_t)k];
                v += e * t[k], va += fabs(e) * ta[k];
            }
            ax[i] = v, absax[i] = va;
        }
        check_tol_solve("cg product M M' n=70", out, 500, 4, rb, secs, B, ax, absax, (size_t)n);
    }
    /* the product's mid as b, x or a work vector: refused before anything is written (b was
     * overwritten by the first product and the solve said converged); texla_op_writes says so,
     * through a product of a product too */
    {
        float before[70], after[70];
        CHECK_OK(ctx, texla_vec_read(ctx, mid, before), "cg product: read mid");
        texla_cg_result o3;
        CHECK_CODE(ctx, texla_cg(ctx, a, mid, &d, x, &o3), TEXLA_ERR_ALIAS, "cg: b is the product's mid");
        CHECK_CODE(ctx, texla_cg(ctx, a, b, &d, mid, &o3), TEXLA_ERR_ALIAS, "cg: x is the product's mid");
        texla_cg_workspace cw;
        if (CHECK_OK(ctx, texla_cg_workspace_make(ctx, b, &cw), "cg product: workspace")) {
            texla_vec keep = cw.v[3];
            cw.v[3] = mid;
            d.workspace = &cw;
            CHECK_CODE(ctx, texla_cg(ctx, a, b, &d, x, &o3), TEXLA_ERR_ALIAS,
                       "cg: a work vector is the product's mid");
            d.workspace = NULL;
            cw.v[3] = keep;
            texla_cg_workspace_destroy(ctx, &cw);
        }
        CHECK_OK(ctx, texla_vec_read(ctx, mid, after), "cg product: read mid");
        CHECK(!memcmp(before, after, sizeof before), "cg product: mid changed by the refused solves");
        texla_vec mid2 = mkv(s, NULL, "cg product: mid2");
        texla_op a3 = {0};
        int w1 = -1, w2 = -1, w3 = -1;
        if (CHECK_OK(ctx, texla_op_product(ctx, a, texla_op_dense(m), mid2, &a3), "(M M') M") &&
            CHECK_OK(ctx, texla_op_writes(ctx, a3, mid, &w1), "texla_op_writes mid") &&
            CHECK_OK(ctx, texla_op_writes(ctx, a3, mid2, &w2), "texla_op_writes mid2") &&
            CHECK_OK(ctx, texla_op_writes(ctx, a3, b, &w3), "texla_op_writes b"))
            CHECK(w1 == 1 && w2 == 1 && w3 == 0, "texla_op_writes of (M M') M: mid %d, mid2 %d, "
                  "b %d (want 1 1 0)", w1, w2, w3);
        CHECK_OK(ctx, texla_op_writes(ctx, texla_op_dense(m), b, &w3), "texla_op_writes of a matrix");
        CHECK(w3 == 0, "texla_op_writes of a dense matrix: %d", w3);
        /* texla_op_matvec_dot on the product: p = q and a bad pq refused, q untouched */
        texla_scalar pq = {0};
        CHECK_OK(ctx, texla_scalar_make(ctx, 0, &pq), "cg product: pq");
        CHECK_CODE(ctx, texla_op_matvec_dot(ctx, a, b, b, pq), TEXLA_ERR_ALIAS, "matvec_dot p = q");
        CHECK_CODE(ctx, texla_op_matvec_dot(ctx, a, b, mid, pq), TEXLA_ERR_ALIAS, "matvec_dot q = mid");
        CHECK_OK(ctx, texla_vec_read(ctx, x, before), "cg product: read x");
        CHECK_CODE(ctx, texla_op_matvec_dot(ctx, a, b, x, (texla_scalar){12345}), TEXLA_ERR_HANDLE,
                   "matvec_dot with a bad pq");
        CHECK_OK(ctx, texla_vec_read(ctx, x, after), "cg product: read x");
        CHECK(!memcmp(before, after, sizeof before), "matvec_dot with a bad pq wrote q");
        texla_scalar_destroy(ctx, pq);
        texla_op_destroy(ctx, a3);
        texla_vec_destroy(ctx, mid2);
    }
    /* a product that is not square: a shape error */
    texla_mat w = {0};
    texla_op a2 = {0};
    CHECK_OK(ctx, texla_mat_make(ctx, n, 3, NULL, &w), "cg product: W");
    texla_vec m3 = mkv(s, NULL, "cg product: mid of M W");
    CHECK_OK(ctx, texla_op_product(ctx, texla_op_dense(m), texla_op_dense(w), m3, &a2),
             "cg product: M W");
    texla_cg_result o2;
    CHECK_CODE(ctx, texla_cg(ctx, a2, b, &d, x, &o2), TEXLA_ERR_SHAPE, "cg of a 70 x 3 product");
    texla_op_destroy(ctx, a2);
    texla_op_destroy(ctx, a);
    texla_mat_destroy(ctx, m), texla_mat_destroy(ctx, mt), texla_mat_destroy(ctx, w);
    texla_vec_destroy(ctx, b), texla_vec_destroy(ctx, x), texla_vec_destroy(ctx, mid);
    texla_vec_destroy(ctx, m3);
    free(M), free(Mt), free(B), free(X), free(t), free(ta), free(ax), free(absax);
}

static void test_cg_sparse(void) {
    const int n = 2000, per = 4;
    int cap = 2 * per * n + n, nnz = 0;
    int *r = check_alloc((size_t)cap, sizeof *r), *c = check_alloc((size_t)cap, sizeof *c);
    float *v = check_alloc((size_t)cap, sizeof *v), *B = check_rnd((size_t)n),
          *X = check_alloc((size_t)n, 4);
    double *rowabs = check_alloc((size_t)n, sizeof *rowabs),
           *ax = check_alloc((size_t)n, sizeof *ax), *absax = check_alloc((size_t)n, sizeof *absax);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < per; k++) {
            int j = (int)((check_rand() + 1.0) * 0.5 * n);
            if (j >= n) j = n - 1;
            if (j == i) continue;
            float val = (float)check_rand();
            r[nnz] = i, c[nnz] = j, v[nnz++] = val;
            r[nnz] = j, c[nnz] = i, v[nnz++] = val;
            rowabs[i] += fabs((double)val), rowabs[j] += fabs((double)val);
        }
    for (int i = 0; i < n; i++) r[nnz] = i, c[nnz] = i, v[nnz++] = (float)(rowabs[i] + 1.0);
    /* shuffle the COO entries */
    for (int q = nnz - 1; q > 0; q--) {
        int p = (int)((check_rand() + 1.0) * 0.5 * (q + 1));
        if (p > q) p = q;
        int tr = r[q], tc = c[q];
        float tv = v[q];
        r[q] = r[p], c[q] = c[p], v[q] = v[p], r[p] = tr, c[p] = tc, v[p] = tv;
    }
    vshape s = plain_shape(n);
    texla_vec l = mkv(s, NULL, "cg sparse: like"), b = mkv(s, B, "cg sparse: b"),
              x = mkv(s, NULL, "cg sparse: x");
    texla_sparse a = {0};
    CHECK_OK(ctx, texla_sparse_make_coo(ctx, l, l, nnz, r, c, v, &a), "cg sparse: A");
    uint64_t rb;
    double secs;
    texla_cg_desc d = {.max_iter = 2000, .tol = CG_TOL, .check_every = 0};
    texla_cg_result out = run_cg(texla_op_sparse(a), b, d, x, "cg sparse", &rb, &secs);
    char what[120];
    snprintf(what, sizeof what, "cg sparse SPD n=%d nnz=%d", n, nnz);
    if (!vfetch(x, s, X, "cg sparse: x")) {
        cpu_coo(n, nnz, r, c, v, X, ax, absax);
        check_tol_solve(what, out, 2000, 8, rb, secs, B, ax, absax, (size_t)n);
    }
    check_fixed10(texla_op_sparse(a), b, x, "sparse");
    texla_sparse_destroy(ctx, a);
    texla_vec_destroy(ctx, l);
    texla_vec_destroy(ctx, b);
    texla_vec_destroy(ctx, x);
    free(r), free(c), free(v), free(B), free(X), free(rowabs), free(ax), free(absax);
}

/* y = A x through texla_op_matvec for each kind, componentwise within 1.01 g_k |A||x| */
static void test_op_apply(void) {
    char what[120];
    double worst = 0;
    for (int kind = 0; kind < 3; kind++) {
        int n = kind == 0 ? 35 : kind == 1 ? 37 : 50, k = kind == 0 ? 5 : kind == 1 ? 37 : 0;
        vshape s = kind == 0 ? grid_shape(7, 5) : plain_shape(n);
        float *X = check_rnd((size_t)n), *Y0 = check_rnd((size_t)n),
              *got = check_alloc((size_t)n, 4),
              *A = check_rnd((size_t)n * (size_t)n);
        double *ref = check_alloc((size_t)n, sizeof *ref),
               *absr = check_alloc((size_t)n, sizeof *absr),
               *bnd = check_alloc((size_t)n, sizeof *bnd);
        int *rr = check_alloc((size_t)n * 3, sizeof *rr),
            *cc = check_alloc((size_t)n * 3, sizeof *cc);
        float *vv = check_rnd((size_t)n * 3);
        int *cnt = check_alloc((size_t)n, sizeof *cnt);
        texla_vec x = mkv(s, X, "op_apply: x"), y = mkv(s, Y0, "op_apply: y");
        texla_op op = {TEXLA_OP_DENSE, 0};
        texla_banded pb = {0};
        texla_mat am = {0};
        texla_sparse as = {0};
        if (kind == 0) {
            CHECK_OK(ctx, texla_banded_poisson(ctx, 7, 5, 2, -0.3f, &pb), "op_apply: poisson");
            op = texla_op_banded(pb);
            cpu_poisson(7, 5, 2, -0.3, X, ref, absr);
        } else if (kind == 1) {
            CHECK_OK(ctx, texla_mat_make(ctx, n, n, A, &am), "op_apply: dense");
            op = texla_op_dense(am);
            cpu_dense(n, n, A, X, ref, absr);
        } else {
            for (int e = 0; e < 3 * n; e++) {
                rr[e] = (int)((check_rand() + 1.0) * 0.5 * n);
                cc[e] = (int)((check_rand() + 1.0) * 0.5 * n);
                if (rr[e] >= n) rr[e] = n - 1;
                if (cc[e] >= n) cc[e] = n - 1;
                cnt[rr[e]]++;
            }
            texla_vec l = mkv(s, NULL, "op_apply: like");
            CHECK_OK(ctx, texla_sparse_make_coo(ctx, l, l, 3 * n, rr, cc, vv, &as),
                     "op_apply: sparse");
            texla_vec_destroy(ctx, l);
            op = texla_op_sparse(as);
            cpu_coo(n, 3 * n, rr, cc, vv, X, ref, absr);
        }
        for (int i = 0; i < n; i++)
            bnd[i] = 1.01 * check_gamma(kind == 2 ? cnt[i] : kind == 0 ? 6 : k) * absr[i];
        snprintf(what, sizeof what, "texla_op_matvec %s n=%d", kind == 0 ? "banded (poisson 7x5, "
                 "2, -0.3)" : kind == 1 ? "dense" : "sparse", n);
        texla_result r = texla_op_matvec(ctx, op, x, y);
        CHECK_OK(ctx, r, what);
        if (!r && !vfetch(y, s, got, what)) {
            double w = expect_bound(got, ref, bnd, (size_t)n, what, "1.01 g_k (|A||x|)_i");
            if (w > worst) worst = w;
        }
        texla_banded_destroy(ctx, pb);
        texla_mat_destroy(ctx, am);
        texla_sparse_destroy(ctx, as);
        texla_vec_destroy(ctx, x);
        texla_vec_destroy(ctx, y);
        free(X), free(Y0), free(got), free(A), free(ref), free(absr), free(bnd), free(rr),
            free(cc), free(vv), free(cnt);
    }
    printf("texla_op_matvec banded/dense/sparse: worst |err|/bound %.3f\n", worst);
}

static void test_cg_errors(void) {
    vshape s = plain_shape(37), s2 = plain_shape(38);
    texla_mat a = {0}, wide = {0};
    float *A = check_rnd(37 * 37);
    CHECK_OK(ctx, texla_mat_make(ctx, 37, 37, A, &a), "cg errors: A");
    CHECK_OK(ctx, texla_mat_make(ctx, 37, 38, NULL, &wide), "cg errors: 37x38");
    texla_vec b = mkv(s, NULL, "cg errors: b"), x = mkv(s, NULL, "cg errors: x"),
              w = mkv(s2, NULL, "cg errors: n=38");
    texla_cg_desc d = {.max_iter = 10, .tol = CG_TOL, .check_every = 0};
    texla_cg_result out;
    CHECK_CODE(ctx, texla_cg(ctx, texla_op_dense(a), w, &d, x, &out), TEXLA_ERR_SHAPE,
               "texla_cg 37x37 with b of n=38");
    CHECK_CODE(ctx, texla_cg(ctx, texla_op_dense(a), b, &d, w, &out), TEXLA_ERR_SHAPE,
               "texla_cg 37x37 with x of n=38");
    CHECK_CODE(ctx, texla_cg(ctx, texla_op_dense(wide), b, &d, x, &out), TEXLA_ERR_SHAPE,
               "texla_cg with a 37x38 dense operator");
    /* x = b: no pass of CG renders into a texture it samples, and b is needed only before x
     * is first written, so either TEXLA_ERR_ALIAS or the solution for the original b is right */
    {
        const int m = 37;
        float *S = check_alloc((size_t)m * m, sizeof *S), *B0 = check_rnd((size_t)m), X[37];
        double ax[37];
        for (int i = 0; i < m; i++)
            for (int j = 0; j < i; j++) S[i * m + j] = S[j * m + i] = (float)check_rand();
        for (int i = 0; i < m; i++) {
            double off = 0;
            for (int j = 0; j < m; j++) off += j != i ? fabs((double)S[i * m + j]) : 0;
            S[i * m + i] = (float)(off + 1.0);
        }
        texla_mat sa = {0};
        CHECK_OK(ctx, texla_mat_make(ctx, m, m, S, &sa), "cg x = b: A");
        texla_vec xb = mkv(s, B0, "cg x = b: b and x");
        texla_cg_desc dd = {.max_iter = 200, .tol = CG_TOL, .check_every = 4};
        texla_result r = texla_cg(ctx, texla_op_dense(sa), xb, &dd, xb, &out);
        if (r == TEXLA_OK) {
            CHECK_OK(ctx, texla_vec_read(ctx, xb, X), "cg x = b: read x");
            cpu_dense(m, m, S, X, ax, NULL);
            double rr = relres(B0, ax, (size_t)m);
            CHECK(rr <= CG_FACTOR * CG_TOL, "texla_cg with x = b (SPD 37x37) returned TEXLA_OK "
                  "but ||b - A x|| / ||b|| = %.3g for the original b (> %.3g): expected "
                  "TEXLA_ERR_ALIAS or the solution", rr, CG_FACTOR * CG_TOL);
            printf("  texla_cg with x = b: accepted, solution for the original b (true residual "
                   "%.2e)\n", rr);
        } else {
            CHECK_CODE(ctx, r, TEXLA_ERR_ALIAS, "texla_cg with x = b");
        }
        texla_mat_destroy(ctx, sa);
        texla_vec_destroy(ctx, xb);
        free(S), free(B0);
    }
    texla_cg_desc bad1 = {.max_iter = -1, .tol = CG_TOL}, bad2 = {.max_iter = 10, .tol = NAN},
                  bad3 = {.max_iter = 10, .tol = -1e-5f},
                  bad4 = {.max_iter = 10, .tol = CG_TOL, .check_every = -2};
    CHECK_CODE(ctx, texla_cg(ctx, texla_op_dense(a), b, &bad1, x, &out), TEXLA_ERR_ARGUMENT,
               "texla_cg max_iter -1");
    CHECK_CODE(ctx, texla_cg(ctx, texla_op_dense(a), b, &bad2, x, &out), TEXLA_ERR_ARGUMENT,
               "texla_cg tol NaN");
    CHECK_CODE(ctx, texla_cg(ctx, texla_op_dense(a), b, &bad3, x, &out), TEXLA_ERR_ARGUMENT,
               "texla_cg tol -1e-5");
    CHECK_CODE(ctx, texla_cg(ctx, texla_op_dense(a), b, &bad4, x, &out), TEXLA_ERR_ARGUMENT,
               "texla_cg check_every -2");
    texla_mat dead = {0};
    CHECK_OK(ctx, texla_mat_make(ctx, 37, 37, NULL, &dead), "cg errors: dead");
    texla_mat_destroy(ctx, dead);
    CHECK_CODE(ctx, texla_cg(ctx, texla_op_dense(dead), b, &d, x, &out), TEXLA_ERR_HANDLE,
               "texla_cg with a destroyed matrix");
    texla_op wrong = {TEXLA_OP_BANDED, a.id};
    CHECK_CODE(ctx, texla_cg(ctx, wrong, b, &d, x, &out), TEXLA_ERR_HANDLE,
               "texla_cg with a dense matrix's id passed as a banded operator");
    CHECK_CODE(ctx, texla_op_matvec(ctx, texla_op_dense(a), w, x), TEXLA_ERR_SHAPE,
               "texla_op_matvec 37x37 with x of n=38");
    CHECK_CODE(ctx, texla_op_matvec(ctx, texla_op_dense(a), x, x), TEXLA_ERR_ALIAS,
               "texla_op_matvec with y = x");
    texla_mat_destroy(ctx, a);
    texla_mat_destroy(ctx, wide);
    texla_vec_destroy(ctx, b);
    texla_vec_destroy(ctx, x);
    texla_vec_destroy(ctx, w);
    free(A);
}

/* ---- LCP ---- */

static void lcp_case(int n, float omega, int iters, int warm) {
    size_t nn = (size_t)n * (size_t)n;
    float *A = check_alloc(nn, sizeof *A), *B = check_rnd((size_t)n),
          *X0 = check_alloc((size_t)n, 4),
          *X = check_alloc((size_t)n, 4);
    double *xr = check_alloc((size_t)n, sizeof *xr), *wv = check_alloc((size_t)n, sizeof *wv),
           *absw = check_alloc((size_t)n, sizeof *absw);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            A[(size_t)i * (size_t)n + (size_t)j] = A[(size_t)j * (size_t)n + (size_t)i] =
                (float)check_rand();
    double q = 0;
    for (int i = 0; i < n; i++) {
        double off = 0;
        for (int j = 0; j < n; j++)
            if (j != i) off += fabs((double)A[(size_t)i * (size_t)n + (size_t)j]);
        A[(size_t)i * (size_t)n + (size_t)i] = (float)(2.0 * off + 1.0);
        q = fmax(q, off / A[(size_t)i * (size_t)n + (size_t)i]);
    }
    for (int i = 0; i < n; i++) X0[i] = warm ? (float)(0.5 * (check_rand() + 1.0)) : 0.0f;
    /* float64 projected Gauss-Seidel reference */
    int sweeps = 0;
    for (; sweeps < 1000; sweeps++) { /* contracts by <= q < 1/2 per sweep */
        double change = 0, big = 0;
        for (int i = 0; i < n; i++) {
            double r = B[i];
            for (int j = 0; j < n; j++) r += (double)A[(size_t)i * (size_t)n + (size_t)j] * xr[j];
            double nv = fmax(0.0, xr[i] - r / A[(size_t)i * (size_t)n + (size_t)i]);
            change = fmax(change, fabs(nv - xr[i]));
            xr[i] = nv;
            big = fmax(big, fabs(nv));
        }
        if (change <= 1e-15 * fmax(big, 1e-300) && sweeps > 2) break;
    }
    texla_mat a = {0}, b = {0}, x = {0};
    CHECK_OK(ctx, texla_mat_make(ctx, n, n, A, &a), "lcp: A");
    CHECK_OK(ctx, texla_mat_make(ctx, n, 1, B, &b), "lcp: b");
    CHECK_OK(ctx, texla_mat_make(ctx, n, 1, X0, &x), "lcp: x");
    char what[160];
    snprintf(what, sizeof what, "texla_lcp_jacobi n=%d omega=%.2f %d iterations, %s start", n,
             (double)omega, iters, warm ? "warm" : "cold");
    texla_lcp_desc d = {.iterations = iters, .omega = omega};
    texla_lcp_result out = {.min_x = NAN, .min_w = NAN, .xw = NAN, .max_abs_xw = NAN};
    texla_ctx_finish(ctx);
    uint64_t rb0 = readbacks_now();
    double t0 = check_now();
    texla_result r = texla_lcp_jacobi(ctx, a, b, &d, x, &out);
    texla_ctx_finish(ctx);
    double secs = check_now() - t0;
    uint64_t rb = readbacks_now() - rb0;
    CHECK_OK(ctx, r, what);
    CHECK(rb == 3, "%s: %llu read-backs, expected 3 (texla.h: \"no read-back inside the "
          "loop ...; at the end x, w and b are read back for the measures\")", what,
          (unsigned long long)rb);
    CHECK(out.status == TEXLA_LCP_SOLVED && out.iterations == iters && out.tol == 1e-4f,
          "%s: status %s (rel min w %.2g, rel x.*w %.2g, tol %g), %d iterations", what,
          texla_lcp_status_name(out.status), (double)out.rel_min_w, (double)out.rel_xw,
          (double)out.tol, out.iterations);
    if (r) goto done;
    CHECK_OK(ctx, texla_mat_read(ctx, x, X), what);
    /* CPU measures in float64 */
    double min_x = INFINITY, min_w = INFINITY, xw = 0, maxxw = 0, m_xw = 0, e_minw = 0, e_maxxw = 0;
    double gn2 = 1.01 * check_gamma(n + 2), g2n = 1.01 * check_gamma(2 * n + 1);
    double E = 0, dx = 0, x0d = 0;
    for (int i = 0; i < n; i++) {
        double s = B[i], sa = fabs((double)B[i]), sar = fabs((double)B[i]);
        for (int j = 0; j < n; j++) {
            double aij = A[(size_t)i * (size_t)n + (size_t)j];
            s += aij * X[j], sa += fabs(aij * X[j]), sar += fabs(aij * xr[j]);
        }
        wv[i] = s, absw[i] = sa;
        min_x = fmin(min_x, X[i]), min_w = fmin(min_w, s);
        xw += X[i] * s, maxxw = fmax(maxxw, fabs(X[i] * s));
        m_xw += fabs((double)X[i]) * sa;
        e_minw = fmax(e_minw, gn2 * sa);
        e_maxxw = fmax(e_maxxw, gn2 * fabs((double)X[i]) * sa);
        double aii = A[(size_t)i * (size_t)n + (size_t)i];
        E = fmax(E, (omega / aii) * check_gamma(n + 7) * sar + U * fabs(xr[i]));
        dx = fmax(dx, fabs((double)X[i] - xr[i]));
        x0d = fmax(x0d, fabs((double)X0[i] - xr[i]));
    }
    double scale = norm_inf_f(B, (size_t)n) * fmax(1.0, norm_inf_f(X, (size_t)n));
    CHECK(min_x >= 0, "%s: min x = %.9g < 0", what, min_x);
    CHECK(min_w >= -1e-5 * scale, "%s: min w = %.3g < -1e-5 scale = %.3g", what, min_w,
          -1e-5 * scale);
    CHECK(fabs(xw) <= 1e-4 * scale, "%s: |x'w| = %.3g > 1e-4 scale = %.3g", what, fabs(xw),
          1e-4 * scale);
    /* the returned measures */
    CHECK((double)out.min_x == min_x, "%s: returned min_x %.9g, min of the returned x %.9g",
          what, (double)out.min_x, min_x);
    CHECK(fabs((double)out.min_w - min_w) <= e_minw, "%s: returned min_w %.9g, CPU %.9g, "
          "|diff| %.3g > %.3g", what, (double)out.min_w, min_w, fabs((double)out.min_w - min_w),
          e_minw);
    CHECK(fabs((double)out.xw - xw) <= g2n * m_xw, "%s: returned xw %.9g, CPU %.9g, |diff| "
          "%.3g > %.3g", what, (double)out.xw, xw, fabs((double)out.xw - xw), g2n * m_xw);
    CHECK(fabs((double)out.max_abs_xw - maxxw) <= e_maxxw, "%s: returned max_abs_xw %.9g, CPU "
          "%.9g, |diff| %.3g > %.3g", what, (double)out.max_abs_xw, maxxw,
          fabs((double)out.max_abs_xw - maxxw), e_maxxw);
    /* against the reference solution */
    double qw = fabs(1.0 - omega) + omega * q;
    double tol_x = pow(qw, iters) * x0d + 2.0 * E / (1.0 - qw);
    CHECK(dx <= tol_x, "%s: ||x - x_pgs||_inf = %.3g > %.3g (q_w = %.3f, ||x_pgs||_inf %.3g, "
          "PGS sweeps %d)", what, dx, tol_x, qw, norm_inf_f(X, (size_t)n), sweeps);
    int active = 0;
    for (int i = 0; i < n; i++) active += xr[i] > 0;
    printf("  n=%-3d omega %.1f %s: %6.1f ms (%.2f ms/it)  x>0 in %d/%d  min_w %+.2e (>= %.0e)  "
           "x'w %+.2e (|.| <= %.0e)  ret(min_x %.1e min_w %+.2e xw %+.2e maxxw %.1e)  "
           "||x-x_pgs|| %.2e (<= %.2e, q_w %.2f)\n", n, (double)omega, warm ? "warm" : "cold",
           1e3 * secs, 1e3 * secs / iters, active, n, min_w, -1e-5 * scale, xw, 1e-4 * scale,
           (double)out.min_x, (double)out.min_w, (double)out.xw, (double)out.max_abs_xw, dx,
           tol_x, qw);
done:
    texla_mat_destroy(ctx, a);
    texla_mat_destroy(ctx, b);
    texla_mat_destroy(ctx, x);
    free(A), free(B), free(X0), free(X), free(xr), free(wv), free(absw);
}

static void test_lcp(void) {
    static const int ns[] = {16, 64, 200};
    printf("LCP (projected Jacobi, 300 iterations), scale = ||b||_inf max(1, ||x||_inf):\n");
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        lcp_case(ns[i], 1.0f, 300, 0);
        lcp_case(ns[i], 0.7f, 300, i == 1);
    }
    /* out = NULL: no read-back at all */
    const int n = 16;
    float *A = check_alloc(256, sizeof *A), *B = check_rnd(16);
    for (int i = 0; i < n; i++) A[i * n + i] = 2.0f;
    texla_mat a = {0}, b = {0}, x = {0}, w = {0}, b2 = {0};
    CHECK_OK(ctx, texla_mat_make(ctx, n, n, A, &a), "lcp NULL out: A");
    CHECK_OK(ctx, texla_mat_make(ctx, n, 1, B, &b), "lcp NULL out: b");
    CHECK_OK(ctx, texla_mat_make(ctx, n, 1, NULL, &x), "lcp NULL out: x");
    texla_lcp_desc d = {.iterations = 20, .omega = 1.0f};
    uint64_t rb0 = readbacks_now();
    CHECK_OK(ctx, texla_lcp_jacobi(ctx, a, b, &d, x, NULL), "texla_lcp_jacobi out NULL");
    uint64_t rb = readbacks_now() - rb0;
    CHECK(rb == 0, "texla_lcp_jacobi with out = NULL: %llu read-backs, expected 0",
          (unsigned long long)rb);
    /* A = 2I: x = max(0, -b/2) exactly after one step, whatever follows */
    float X[16];
    CHECK_OK(ctx, texla_mat_read(ctx, x, X), "lcp 2I: read x");
    size_t bad = 0;
    for (int i = 0; i < n; i++) bad += X[i] != fmaxf(0.0f, -B[i] / 2.0f);
    CHECK(bad == 0, "texla_lcp_jacobi A = 2I: %zu of 16 elements differ from max(0, -b/2)", bad);
    /* a workspace holding one of the call's matrices, or one matrix twice: refused before
     * anything is written (one holding b overwrote b and reported the LCP solved) */
    {
        texla_lcp_workspace lw = {0};
        CHECK_OK(ctx, texla_lcp_workspace_make(ctx, n, &lw), "lcp: workspace");
        texla_mat keep[4] = {lw.m[0], lw.m[1], lw.m[2], lw.m[3]};
        texla_lcp_desc dw = {.iterations = 20, .workspace = &lw};
        texla_mat in[2] = {b, x}; /* (a, n x n, is a shape error) */
        static const char *const nm[2] = {"b", "x"};
        for (int k = 0; k < 4; k++)
            for (int i = 0; i < 3; i++) {
                lw.m[k] = i < 2 ? in[i] : keep[(k + 1) % 4];
                char what[96];
                snprintf(what, sizeof what, "texla_lcp_jacobi: workspace entry %d is %s", k,
                         i < 2 ? nm[i] : "another entry");
                CHECK_CODE(ctx, texla_lcp_jacobi(ctx, a, b, &dw, x, NULL), TEXLA_ERR_ALIAS, what);
                lw.m[k] = keep[k];
            }
        float Bn[16], Xn[16];
        CHECK_OK(ctx, texla_mat_read(ctx, b, Bn), "lcp: read b");
        CHECK_OK(ctx, texla_mat_read(ctx, x, Xn), "lcp: read x");
        CHECK(memcmp(Bn, B, sizeof Bn) == 0 && memcmp(Xn, X, sizeof Xn) == 0,
              "texla_lcp_jacobi: b or x changed by the refused workspaces");
        texla_lcp_workspace_destroy(ctx, &lw);
    }
    /* error codes */
    CHECK_OK(ctx, texla_mat_make(ctx, n, n + 1, NULL, &w), "lcp errors: 16x17");
    CHECK_OK(ctx, texla_mat_make(ctx, n + 1, 1, NULL, &b2), "lcp errors: 17x1");
    texla_lcp_result out;
    CHECK_CODE(ctx, texla_lcp_jacobi(ctx, w, b, &d, x, &out), TEXLA_ERR_SHAPE,
               "texla_lcp_jacobi with a 16x17 A");
    CHECK_CODE(ctx, texla_lcp_jacobi(ctx, a, b2, &d, x, &out), TEXLA_ERR_SHAPE,
               "texla_lcp_jacobi 16x16 with b 17x1");
    CHECK_CODE(ctx, texla_lcp_jacobi(ctx, a, b, &d, b2, &out), TEXLA_ERR_SHAPE,
               "texla_lcp_jacobi 16x16 with x 17x1");
    /* x = b: every iteration overwrites x, so b would change under the iteration; either
     * TEXLA_ERR_ALIAS or the solution for the original b, max(0, -b/2) for A = 2I */
    {
        texla_mat xb = {0};
        CHECK_OK(ctx, texla_mat_make(ctx, n, 1, B, &xb), "lcp x = b: b and x");
        texla_result r = texla_lcp_jacobi(ctx, a, xb, &d, xb, &out);
        if (r == TEXLA_OK) {
            float XB[16];
            CHECK_OK(ctx, texla_mat_read(ctx, xb, XB), "lcp x = b: read x");
            size_t nbad = 0;
            int first = -1;
            for (int i = 0; i < n; i++)
                if (XB[i] != fmaxf(0.0f, -B[i] / 2.0f) && !nbad++) first = i;
            CHECK(nbad == 0, "texla_lcp_jacobi with x = b (A = 2I, n = 16, 20 iterations) "
                  "returned TEXLA_OK, but %zu of 16 elements are not the solution max(0, -b/2) "
                  "for the original b (first x[%d] = %.9g, expected %.9g): expected "
                  "TEXLA_ERR_ALIAS or the solution", nbad, first, first >= 0 ? (double)XB[first]
                  : 0.0, first >= 0 ? (double)fmaxf(0.0f, -B[first] / 2.0f) : 0.0);
        } else {
            CHECK_CODE(ctx, r, TEXLA_ERR_ALIAS, "texla_lcp_jacobi with x = b");
        }
        texla_mat_destroy(ctx, xb);
    }
    texla_lcp_desc bad1 = {.iterations = -5, .omega = 1.0f},
                   bad2 = {.iterations = 10, .omega = NAN};
    CHECK_CODE(ctx, texla_lcp_jacobi(ctx, a, b, &bad1, x, &out), TEXLA_ERR_ARGUMENT,
               "texla_lcp_jacobi iterations -5");
    CHECK_CODE(ctx, texla_lcp_jacobi(ctx, a, b, &bad2, x, &out), TEXLA_ERR_ARGUMENT,
               "texla_lcp_jacobi omega NaN");
    texla_mat_destroy(ctx, w);
    CHECK_CODE(ctx, texla_lcp_jacobi(ctx, w, b, &d, x, &out), TEXLA_ERR_HANDLE,
               "texla_lcp_jacobi with a destroyed A");
    texla_mat_destroy(ctx, a);
    texla_mat_destroy(ctx, b);
    texla_mat_destroy(ctx, x);
    texla_mat_destroy(ctx, b2);
    free(A), free(B);
}

/* ---- outcomes: why a solve stopped, the callbacks and the histories ---- */

typedef struct listen {
    int calls, stop_at;          /* stop_at > 0: return 1 from that call on */
    int last_iter, last_true, max_iter;
    float last;
    int nondecreasing;           /* iterations came in order */
    int neg;                     /* residuals reported as -1 */
} listen;

static int on_progress(const texla_solve_progress *p, void *user) {
    listen *l = user;
    if (l->calls && p->iteration < l->last_iter) l->nondecreasing = 0;
    l->calls++;
    l->last_iter = p->iteration, l->last = p->residual, l->last_true = p->true_residual;
    l->max_iter = p->max_iter;
    l->neg += p->residual == -1.0f;
    return l->stop_at > 0 && l->calls >= l->stop_at;
}

/* history entries: non-negative, iterations in order and within 0..iters */
static void check_history(const char *what, const float *h, const int *hi, int len, int iters) {
    int bad = 0;
    for (int k = 0; k < len; k++)
        bad += !(h[k] >= 0) || hi[k] < 0 || hi[k] > iters || (k && hi[k] < hi[k - 1]);
    CHECK(bad == 0, "%s: %d of %d history entries are negative or out of order", what, bad, len);
}

static void test_cg_outcomes(void) {
    const int nx = 32, ny = 32, n = nx * ny;
    vshape s = grid_shape(nx, ny);
    float *XR = check_rnd((size_t)n), *B = check_alloc((size_t)n, sizeof *B),
          *X = check_alloc((size_t)n, sizeof *X);
    double *ax = check_alloc((size_t)n, sizeof *ax);
    cpu_poisson(nx, ny, 0, 1, XR, ax, NULL);
    for (int i = 0; i < n; i++) B[i] = (float)ax[i]; /* b = A xr: tol 1e-4 is within reach */
    texla_banded p = {0};
    CHECK_OK(ctx, texla_banded_poisson(ctx, nx, ny, 0.0f, 1.0f, &p), "outcomes: poisson");
    texla_vec b = mkv(s, B, "outcomes: b"), x = mkv(s, NULL, "outcomes: x");
    texla_op op = texla_op_banded(p);
    float h[64];
    int hi[64];
    char what[96];

    /* converged, with the history and the callback */
    listen l = {.nondecreasing = 1};
    texla_cg_desc d = {.max_iter = 2000, .tol = 1e-4f, .check_every = 4, .progress = on_progress,
                       .progress_user = &l, .history = h, .history_iter = hi, .history_cap = 64};
    texla_cg_result out = {.stop = -1};
    CHECK_OK(ctx, texla_cg(ctx, op, b, &d, x, &out), "cg converged");
    CHECK(out.stop == TEXLA_CG_CONVERGED && out.converged == 1 && out.rel_residual <= 1e-4f,
          "cg poisson 32x32, b = A xr, tol 1e-4: stop %d (%s), converged %d, residual %.3g",
          (int)out.stop, texla_cg_stop_name(out.stop), out.converged, (double)out.rel_residual);
    CHECK(out.history_len >= 2 && out.history_len <= 64 && l.calls == out.history_len &&
          l.nondecreasing && l.max_iter == 2000,
          "cg history: %d entries, %d callback calls (in order %d, max_iter %d)",
          out.history_len, l.calls, l.nondecreasing, l.max_iter);
    check_history("cg history", h, hi, out.history_len, out.iterations);
    if (out.history_len > 0)
        CHECK(h[out.history_len - 1] == out.rel_residual && hi[out.history_len - 1] == out.iterations &&
              l.last == out.rel_residual && l.last_true == 1,
              "cg history: the last entry (%g at %d) is the x returned (%g after %d)",
              (double)h[out.history_len - 1], hi[out.history_len - 1], (double)out.rel_residual,
              out.iterations);
    /* the x returned is the best seen: the last one, or the one verified at the last check
     * when the iterations after it ended worse (CG's residual is not monotonic: a CI seed's
     * solve returned the x of iteration 44 after 48) */
    CHECK(out.best_residual == out.rel_residual && out.best_iteration <= out.iterations &&
              out.best_iteration >= out.iterations - d.check_every,
          "cg converged: best residual %g at %d, returned %g after %d", (double)out.best_residual,
          out.best_iteration, (double)out.rel_residual, out.iterations);
    CHECK(h[0] > 0.5f && hi[0] == 0, "cg history starts at iteration 0 with the residual of "
          "x = 0 (1): %g at %d", (double)h[0], hi[0]);
    if (!vfetch(x, s, X, "cg converged: x")) {
        cpu_poisson(nx, ny, 0, 1, X, ax, NULL);
        double rr = relres(B, ax, (size_t)n);
        CHECK(fabs(rr - out.rel_residual) <= 0.05 * rr + 1e-7, "cg converged: reported %.4g, "
              "true %.4g (float64)", (double)out.rel_residual, rr);
    }

    /* a history too short: the last slot keeps the x returned */
    texla_vec_fill(ctx, texla_host(0.0f), x);
    texla_cg_desc d2 = {.max_iter = 2000, .tol = 1e-4f, .check_every = 4, .history = h,
                        .history_cap = 2};
    CHECK_OK(ctx, texla_cg(ctx, op, b, &d2, x, &out), "cg short history");
    CHECK(out.history_len == 2 && h[1] == out.rel_residual,
          "cg history of 2: %d entries, last %g, returned %g", out.history_len, (double)h[1],
          (double)out.rel_residual);

    /* the iteration limit */
    texla_vec_fill(ctx, texla_host(0.0f), x);
    texla_cg_desc d3 = {.max_iter = 5, .tol = 1e-6f, .check_every = 4};
    CHECK_OK(ctx, texla_cg(ctx, op, b, &d3, x, &out), "cg max_iter 5");
    CHECK(out.stop == TEXLA_CG_MAX_ITER && out.converged == 0 && out.iterations == 5 &&
          out.rel_residual > 1e-6f && out.best_residual <= out.rel_residual,
          "cg max_iter 5: stop %s, converged %d, %d iterations, residual %.3g (best %.3g)",
          texla_cg_stop_name(out.stop), out.converged, out.iterations, (double)out.rel_residual,
          (double)out.best_residual);

    /* float32 stagnation: 1e-9 is out of float32's reach */
    texla_vec_fill(ctx, texla_host(0.0f), x);
    texla_cg_desc d4 = {.max_iter = 5000, .tol = 1e-9f, .check_every = 4};
    double t0 = check_now();
    CHECK_OK(ctx, texla_cg(ctx, op, b, &d4, x, &out), "cg tol 1e-9");
    CHECK(out.stop == TEXLA_CG_STAGNATED && out.converged == 0 && out.iterations < 5000 &&
          out.best_residual > 1e-9f && out.best_residual <= out.rel_residual &&
          out.best_residual < 1e-4f && out.best_iteration <= out.iterations,
          "cg tol 1e-9: stop %s after %d iterations, residual %.3g, best %.3g at %d",
          texla_cg_stop_name(out.stop), out.iterations, (double)out.rel_residual,
          (double)out.best_residual, out.best_iteration);
    printf("  cg tol 1e-9 on poisson 32x32: %s after %d iterations (%.2f s), returned %.2e, "
           "best %.2e at %d\n", texla_cg_stop_name(out.stop), out.iterations, check_now() - t0,
           (double)out.rel_residual, (double)out.best_residual, out.best_iteration);

    /* cancelled by the callback at its first call */
    texla_vec_fill(ctx, texla_host(0.0f), x);
    listen lc = {.stop_at = 1, .nondecreasing = 1};
    texla_cg_desc d5 = {.max_iter = 2000, .tol = 1e-6f, .check_every = 4,
                        .progress = on_progress, .progress_user = &lc};
    CHECK_OK(ctx, texla_cg(ctx, op, b, &d5, x, &out), "cg cancelled");
    CHECK(out.stop == TEXLA_CG_CANCELLED && out.converged == 0 && out.iterations <= 8 &&
          out.rel_residual > 1e-6f,
          "cg cancelled at the first callback: stop %s after %d iterations, residual %.3g",
          texla_cg_stop_name(out.stop), out.iterations, (double)out.rel_residual);

    /* fixed mode: the callback without residuals, and still no read-back */
    texla_vec_fill(ctx, texla_host(0.0f), x);
    listen lf = {.nondecreasing = 1};
    texla_cg_desc d6 = {.max_iter = 20, .check_every = 5, .progress = on_progress,
                        .progress_user = &lf, .history = h, .history_cap = 64};
    uint64_t rb0 = readbacks_now();
    CHECK_OK(ctx, texla_cg(ctx, op, b, &d6, x, &out), "cg fixed with a callback");
    uint64_t rb = readbacks_now() - rb0;
    CHECK(out.stop == TEXLA_CG_FIXED && lf.calls == 3 && lf.neg == 3 && lf.last_iter == 15 &&
          out.history_len == 0 && rb == 0 && out.iterations == 20,
          "cg fixed 20, check_every 5: stop %s, %d calls (%d without residual, last at %d), "
          "history %d, %llu read-backs", texla_cg_stop_name(out.stop), lf.calls, lf.neg,
          lf.last_iter, out.history_len, (unsigned long long)rb);

    /* NaN in A */
    {
        float A[9] = {1, 0, 0, 0, NAN, 0, 0, 0, 1}, b3[3] = {1, 1, 1};
        texla_mat an = {0};
        texla_vec bn = {0}, xn = {0};
        CHECK_OK(ctx, texla_mat_make(ctx, 3, 3, A, &an), "cg NaN: A");
        CHECK_OK(ctx, texla_vec_make(ctx, 3, b3, &bn), "cg NaN: b");
        CHECK_OK(ctx, texla_vec_make(ctx, 3, NULL, &xn), "cg NaN: x");
        texla_cg_desc dn = {.max_iter = 50, .tol = 1e-5f, .check_every = 1};
        CHECK_OK(ctx, texla_cg(ctx, texla_op_dense(an), bn, &dn, xn, &out), "cg NaN");
        CHECK(out.stop == TEXLA_CG_NAN && out.converged == 0 && isnan(out.rel_residual),
              "cg with NaN in A: stop %s, residual %g", texla_cg_stop_name(out.stop),
              (double)out.rel_residual);
        texla_mat_destroy(ctx, an);
        texla_vec_destroy(ctx, bn);
        texla_vec_destroy(ctx, xn);
    }

    /* bad history arguments; the shape error names texla_cg (not the product it calls) */
    texla_cg_desc bh1 = {.max_iter = 5, .tol = 1e-5f, .history_cap = 4},
                  bh2 = {.max_iter = 5, .tol = 1e-5f, .history = h, .history_cap = -1};
    CHECK_CODE(ctx, texla_cg(ctx, op, b, &bh1, x, &out), TEXLA_ERR_ARGUMENT,
               "texla_cg history_cap 4 with history NULL");
    CHECK_CODE(ctx, texla_cg(ctx, op, b, &bh2, x, &out), TEXLA_ERR_ARGUMENT,
               "texla_cg history_cap -1");
    texla_vec w = mkv(plain_shape(n + 1), NULL, "outcomes: n+1");
    CHECK_CODE(ctx, texla_cg(ctx, op, w, &d3, x, &out), TEXLA_ERR_SHAPE, "texla_cg b of n+1");
    snprintf(what, sizeof what, "texla_cg: ");
    CHECK(!strncmp(texla_error_message(ctx), what, strlen(what)),
          "texla_cg's shape error names texla_cg: \"%s\"", texla_error_message(ctx));
    static const texla_cg_stop stops[] = {TEXLA_CG_FIXED, TEXLA_CG_CONVERGED, TEXLA_CG_MAX_ITER,
                                          TEXLA_CG_STAGNATED, TEXLA_CG_NAN, TEXLA_CG_CANCELLED};
    int named = 0;
    for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++)
        named += strcmp(texla_cg_stop_name(stops[i]), "unknown") != 0;
    CHECK(named == 6, "texla_cg_stop_name names all 6 outcomes (%d)", named);
    texla_banded_destroy(ctx, p);
    texla_vec_destroy(ctx, b);
    texla_vec_destroy(ctx, x);
    texla_vec_destroy(ctx, w);
    free(XR), free(B), free(X), free(ax);
}

/* the natural residual ||min(x, w)||_inf / ||b||_inf of x for dense A on the CPU */
static double cpu_natural(int n, const float *A, const float *B, const float *X, double *bound) {
    double r = 0, bm = norm_inf_f(B, (size_t)n), e = 0;
    for (int i = 0; i < n; i++) {
        double w = B[i], wa = fabs((double)B[i]);
        for (int j = 0; j < n; j++) {
            w += (double)A[(size_t)i * (size_t)n + (size_t)j] * X[j];
            wa += fabs((double)A[(size_t)i * (size_t)n + (size_t)j] * X[j]);
        }
        r = fmax(r, fabs(fmin((double)X[i], w)));
        e = fmax(e, check_gamma(n + 4) * (wa + fabs((double)X[i])));
    }
    *bound = 1.01 * e / bm;
    return r / bm;
}

static void test_lcp_outcomes(void) {
    const int n = 24;
    float *A = check_alloc((size_t)n * n, sizeof *A), *B = check_rnd((size_t)n),
          *X = check_alloc((size_t)n, sizeof *X);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) A[i * n + j] = A[j * n + i] = (float)check_rand();
    for (int i = 0; i < n; i++) {
        double off = 0;
        for (int j = 0; j < n; j++) off += j != i ? fabs((double)A[i * n + j]) : 0;
        A[i * n + i] = (float)(1.2 * off + 0.1); /* slow: a handful of sweeps leave it unsolved */
    }
    texla_mat a = {0}, b = {0}, x = {0};
    CHECK_OK(ctx, texla_mat_make(ctx, n, n, A, &a), "lcp outcomes: A");
    CHECK_OK(ctx, texla_mat_make(ctx, n, 1, B, &b), "lcp outcomes: b");
    CHECK_OK(ctx, texla_mat_make(ctx, n, 1, NULL, &x), "lcp outcomes: x");
    texla_lcp_result out;
    float h[32];
    int hi[32];

    /* 2 iterations: not solved, said so with the measures that fail */
    texla_lcp_desc d = {.iterations = 2};
    CHECK_OK(ctx, texla_lcp_jacobi(ctx, a, b, &d, x, &out), "lcp 2 iterations");
    CHECK(out.status == TEXLA_LCP_UNSOLVED && (out.rel_min_w > out.tol || out.rel_xw > out.tol) &&
          out.iterations == 2 && out.tol == 1e-4f && out.scale > 0,
          "lcp n=24, 2 iterations: status %s, rel min w %.3g, rel x.*w %.3g (tol %g, scale %g)",
          texla_lcp_status_name(out.status), (double)out.rel_min_w, (double)out.rel_xw,
          (double)out.tol, (double)out.scale);
    CHECK(out.rel_min_w == (out.min_w < 0 ? -out.min_w / out.scale : 0.0f) ||
          fabsf(out.rel_min_w - (-out.min_w / out.scale)) <= 1e-6f * out.rel_min_w,
          "lcp: rel_min_w %g is -min_w / scale (%g / %g)", (double)out.rel_min_w,
          (double)out.min_w, (double)out.scale);
    /* the same x with tol 1: every relative measure is <= 1, so solved */
    texla_mat_write(ctx, (float[24]){0}, x);
    texla_lcp_desc d1 = {.iterations = 2, .tol = 1.0f};
    CHECK_OK(ctx, texla_lcp_jacobi(ctx, a, b, &d1, x, &out), "lcp tol 1");
    CHECK(out.status == TEXLA_LCP_SOLVED && out.tol == 1.0f, "lcp tol 1: status %s",
          texla_lcp_status_name(out.status));

    /* enough iterations: solved; the history and the callback every 4 */
    texla_mat_write(ctx, (float[24]){0}, x);
    listen l = {.nondecreasing = 1};
    texla_lcp_desc d2 = {.iterations = 400, .check_every = 4, .progress = on_progress,
                         .progress_user = &l, .history = h, .history_iter = hi, .history_cap = 32};
    CHECK_OK(ctx, texla_lcp_jacobi(ctx, a, b, &d2, x, &out), "lcp 400 iterations");
    /* How many of the 99 residuals read asynchronously during the iterations arrive before
     * the loop ends depends on how far the GPU lags the host (llvmpipe: all, filling the 32
     * entries; an H100: 30 of them): any count from none to the cap, then the x returned. */
    int hl = out.history_len;
    CHECK(out.status == TEXLA_LCP_SOLVED && out.iterations == 400 && hl >= 1 && hl <= 32 &&
          l.calls >= hl && l.nondecreasing && l.max_iter == 400,
          "lcp 400 iterations: status %s (rel min w %.2g, x.*w %.2g), history %d, %d calls",
          texla_lcp_status_name(out.status), (double)out.rel_min_w, (double)out.rel_xw, hl,
          l.calls);
    CHECK(hl == 32 || l.calls == hl, "lcp history of %d entries (not full) but %d callbacks", hl,
          l.calls);
    check_history("lcp history", h, hi, hl, 400);
    CHECK_OK(ctx, texla_mat_read(ctx, x, X), "lcp: read x");
    double bound, nat = cpu_natural(n, A, B, X, &bound);
    if (hl >= 1)
        CHECK(hi[hl - 1] == 400 && fabs(h[hl - 1] - nat) <= bound,
              "lcp history: the last entry (%g at %d) is the natural residual of the x returned "
              "(%g, float64, +- %.2g)", (double)h[hl - 1], hi[hl - 1], nat, bound);
    if (hl >= 3)
        CHECK(h[0] > h[hl - 2], "lcp history falls: %g at %d, %g at %d", (double)h[0], hi[0],
              (double)h[hl - 2], hi[hl - 2]);

    /* cancelled at the first callback */
    texla_mat_write(ctx, (float[24]){0}, x);
    listen lc = {.stop_at = 1, .nondecreasing = 1};
    texla_lcp_desc d3 = {.iterations = 400, .check_every = 4, .progress = on_progress,
                         .progress_user = &lc};
    CHECK_OK(ctx, texla_lcp_jacobi(ctx, a, b, &d3, x, &out), "lcp cancelled");
    CHECK(out.status == TEXLA_LCP_CANCELLED && out.iterations < 400 && out.iterations >= 4,
          "lcp cancelled at the first callback: status %s after %d iterations",
          texla_lcp_status_name(out.status), out.iterations);

    /* NaN in b */
    {
        float bn[24];
        memcpy(bn, B, sizeof bn);
        bn[5] = NAN;
        texla_mat b2 = {0};
        CHECK_OK(ctx, texla_mat_make(ctx, n, 1, bn, &b2), "lcp NaN: b");
        CHECK_OK(ctx, texla_lcp_jacobi(ctx, a, b2, &d, x, &out), "lcp NaN");
        CHECK(out.status == TEXLA_LCP_NAN, "lcp with NaN in b: status %s",
              texla_lcp_status_name(out.status));
        texla_mat_destroy(ctx, b2);
    }

    /* friction indices: checked when the measures are read */
    {
        float idx[24], mu[24];
        for (int i = 0; i < n; i++) idx[i] = -1, mu[i] = 0.5f;
        idx[1] = 0, idx[2] = 0; /* rows 1 and 2: friction of normal row 0 */
        texla_mat fi = {0}, fm = {0};
        CHECK_OK(ctx, texla_mat_make(ctx, n, 1, idx, &fi), "lcp friction: index");
        CHECK_OK(ctx, texla_mat_make(ctx, n, 1, mu, &fm), "lcp friction: mu");
        texla_lcp_desc df = {.iterations = 50, .friction_index = fi, .friction_mu = fm};
        CHECK_OK(ctx, texla_lcp_jacobi(ctx, a, b, &df, x, &out), "lcp friction, valid indices");
        static const struct { int row; float v; const char *why; } bad[] = {
            {7, 24, "is past the last row"}, {7, 1000, "is past the last row"},
            {3, 3, "names its own row"}, {4, 1, "names a friction row, not a normal one"},
            {6, 2.5f, "is not an integer"}, {6, -0.5f, "is not an integer"}};
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            float idx2[24];
            memcpy(idx2, idx, sizeof idx2);
            idx2[bad[k].row] = bad[k].v;
            texla_mat_write(ctx, idx2, fi);
            char want[160], what[96];
            snprintf(want, sizeof want, "texla_lcp_jacobi: friction_index[%d] = %g %s", bad[k].row,
                     (double)bad[k].v, bad[k].why);
            snprintf(what, sizeof what, "lcp friction_index[%d] = %g", bad[k].row, (double)bad[k].v);
            CHECK_CODE(ctx, texla_lcp_jacobi(ctx, a, b, &df, x, &out), TEXLA_ERR_ARGUMENT, what);
            CHECK(!strncmp(texla_error_message(ctx), want, strlen(want)), "%s: message \"%s\"",
                  what, texla_error_message(ctx));
        }
        /* one of the two without the other: named as missing (the message named
         * texla_mat_info_get's null handle, or mu alone was ignored) */
        texla_lcp_desc only_i = {.iterations = 5, .friction_index = fi};
        texla_lcp_desc only_m = {.iterations = 5, .friction_mu = fm};
        CHECK_CODE(ctx, texla_lcp_jacobi(ctx, a, b, &only_i, x, &out), TEXLA_ERR_HANDLE,
                   "lcp friction_index without friction_mu");
        CHECK(strstr(texla_error_message(ctx), "friction_mu is the null handle") != NULL,
              "lcp friction_index without friction_mu: \"%s\"", texla_error_message(ctx));
        CHECK_CODE(ctx, texla_lcp_jacobi(ctx, a, b, &only_m, x, &out), TEXLA_ERR_HANDLE,
                   "lcp friction_mu without friction_index");
        CHECK(strstr(texla_error_message(ctx), "friction_index is the null handle") != NULL,
              "lcp friction_mu without friction_index: \"%s\"", texla_error_message(ctx));
        texla_mat_destroy(ctx, fi);
        texla_mat_destroy(ctx, fm);
    }
    texla_lcp_desc bt = {.iterations = 2, .tol = -1}, bh = {.iterations = 2, .history_cap = 3};
    CHECK_CODE(ctx, texla_lcp_jacobi(ctx, a, b, &bt, x, &out), TEXLA_ERR_ARGUMENT, "lcp tol -1");
    CHECK_CODE(ctx, texla_lcp_jacobi(ctx, a, b, &bh, x, &out), TEXLA_ERR_ARGUMENT,
               "lcp history_cap 3 with history NULL");
    texla_mat_destroy(ctx, a);
    texla_mat_destroy(ctx, b);
    texla_mat_destroy(ctx, x);
    free(A), free(B), free(X);
}

/* issue 13's numerics, held: a banded matrix with no diagonals is 0 on both backends (the
 * first diagonal's term was not guarded); offsets with |d| >= n are accepted and ignored */
static void test_banded_regressions(void) {
    const int n = 37;
    float X[37], Y[37], D[3 * 37];
    check_fill(X, 37);
    check_fill(D, 3 * 37);
    texla_vec x = mkv(plain_shape(n), X, "banded regressions: x"),
              y = mkv(plain_shape(n), NULL, "banded regressions: y");
    static const texla_backend bes[] = {TEXLA_BACKEND_FRAGMENT, TEXLA_BACKEND_COMPUTE};
    static const char *const bn[] = {"fragment", "compute"};
    for (int k = 0; k < 2; k++) {
        if (texla_ctx_set_backend(ctx, "banded", bes[k]) != TEXLA_OK) {
            check_skip("banded with no diagonals", "this GL has no compute backend");
            continue;
        }
        texla_banded e = {0};
        CHECK_OK(ctx, texla_banded_make(ctx, x, 0, NULL, NULL, &e), "banded with no diagonals");
        texla_vec_fill(ctx, texla_host(7.0f), y);
        CHECK_OK(ctx, texla_banded_matvec(ctx, e, x, y), "banded with no diagonals: y = A x");
        CHECK_OK(ctx, texla_vec_read(ctx, y, Y), "read y");
        int nz = 0;
        for (int i = 0; i < n; i++) nz += Y[i] != 0.0f;
        CHECK(nz == 0, "banded with no diagonals (%s backend): %d of %d elements of A x are not 0",
              bn[k], nz, n);
        texla_banded_destroy(ctx, e);
        /* offsets n, -n - 3 beside the main diagonal: ignored */
        int offs[3] = {n, 0, -n - 3};
        texla_banded f = {0};
        CHECK_OK(ctx, texla_banded_make(ctx, x, 3, offs, D, &f),
                 "texla_banded_make with offsets 37 and -40 on n = 37");
        CHECK_OK(ctx, texla_banded_matvec(ctx, f, x, y), "banded |offset| >= n: y = A x");
        CHECK_OK(ctx, texla_vec_read(ctx, y, Y), "read y");
        int bad = 0;
        for (int i = 0; i < n; i++) bad += Y[i] != D[n + i] * X[i];
        CHECK(bad == 0, "banded with offsets past n (%s backend): %d elements differ from the main "
              "diagonal's product alone", bn[k], bad);
        texla_banded_destroy(ctx, f);
    }
    texla_ctx_set_backend(ctx, "banded", suite_backend());
    texla_vec_destroy(ctx, x);
    texla_vec_destroy(ctx, y);
}

/* a caller's workspace (texla_cg_desc.workspace): the same x bit for bit as without one, in both
 * modes and across solves; no object made or freed by a solve; bad workspaces refused before x
 * is touched */
static void test_cg_workspace(void) {
    const int nx = 61, ny = 47;
    vshape s = grid_shape(nx, ny), s2 = grid_shape(nx, ny + 1);
    size_t n = (size_t)s.n;
    float *B = check_rnd(n), *X0 = check_rnd(n), *Xa = check_alloc(n, sizeof *Xa),
          *Xb = check_alloc(n, sizeof *Xb);
    texla_banded p = {0};
    CHECK_OK(ctx, texla_banded_poisson(ctx, nx, ny, 0.5f, 1, &p), "cg workspace: poisson");
    texla_op op = texla_op_banded(p);
    texla_vec b = mkv(s, B, "cg workspace: b"), x = mkv(s, X0, "cg workspace: x");
    texla_cg_workspace ws;
    CHECK_OK(ctx, texla_cg_workspace_make(ctx, b, &ws), "texla_cg_workspace_make");
    CHECK(ws.n == s.n, "workspace n %d, want %d", ws.n, s.n);
    for (int mode = 0; mode < 2; mode++) {
        texla_cg_desc d = {.max_iter = mode ? 400 : 25, .tol = mode ? 1e-5f : 0.0f};
        texla_cg_result o1, o2;
        CHECK_OK(ctx, texla_vec_write(ctx, X0, x), "x0");
        CHECK_OK(ctx, texla_cg(ctx, op, b, &d, x, &o1), "cg without a workspace");
        vfetch(x, s, Xa, "x without");
        for (int rep = 0; rep < 2; rep++) {
            texla_stats st0, st1;
            texla_ctx_stats(ctx, &st0);
            d.workspace = &ws;
            CHECK_OK(ctx, texla_vec_write(ctx, X0, x), "x0");
            CHECK_OK(ctx, texla_cg(ctx, op, b, &d, x, &o2), "cg with a workspace");
            d.workspace = NULL;
            texla_ctx_stats(ctx, &st1);
            vfetch(x, s, Xb, "x with");
            CHECK(!memcmp(Xa, Xb, n * sizeof *Xa) && o1.iterations == o2.iterations &&
                      o1.stop == o2.stop,
                  "cg %s mode, solve %d with a workspace: x differs from the solve without one "
                  "(iterations %d / %d)", mode ? "tolerance" : "fixed", rep + 1, o1.iterations,
                  o2.iterations);
            CHECK(st1.textures == st0.textures, "cg with a workspace: textures %llu -> %llu",
                  (unsigned long long)st0.textures, (unsigned long long)st1.textures);
        }
    }
    /* refused: a workspace of another layout, one holding x or b; x unchanged */
    texla_cg_workspace w2;
    texla_vec b2 = mkv(s2, NULL, "cg workspace: b2");
    CHECK_OK(ctx, texla_cg_workspace_make(ctx, b2, &w2), "a workspace of another layout");
    CHECK_OK(ctx, texla_vec_write(ctx, X0, x), "x0");
    texla_cg_desc d = {.max_iter = 5, .workspace = &w2};
    CHECK_CODE(ctx, texla_cg(ctx, op, b, &d, x, NULL), TEXLA_ERR_SHAPE, "cg: workspace of 61 x 48");
    texla_vec keep = ws.v[3];
    ws.v[3] = x;
    d.workspace = &ws;
    CHECK_CODE(ctx, texla_cg(ctx, op, b, &d, x, NULL), TEXLA_ERR_ALIAS, "cg: x in the workspace");
    ws.v[3] = b;
    CHECK_CODE(ctx, texla_cg(ctx, op, b, &d, x, NULL), TEXLA_ERR_ALIAS, "cg: b in the workspace");
    ws.v[3] = keep;
    expect_holds(x, s, X0, "cg workspace: x untouched by the refused calls");
    CHECK_CODE(ctx, texla_cg_workspace_make(ctx, b, NULL), TEXLA_ERR_ARGUMENT, "out NULL");
    texla_cg_workspace_destroy(ctx, &w2);
    texla_cg_workspace_destroy(ctx, &ws);
    CHECK(ws.n == 0 && ws.v[0].id == 0 && ws.s[4].id == 0, "destroy zeroes the workspace");
    texla_cg_workspace_destroy(ctx, &ws); /* zeroed: a no-op */
    texla_cg_workspace_destroy(ctx, NULL);
    texla_vec_destroy(ctx, b), texla_vec_destroy(ctx, x), texla_vec_destroy(ctx, b2);
    texla_banded_destroy(ctx, p);
    free(B), free(X0), free(Xa), free(Xb);
}

void suite_solvers(void) {
    double t0 = check_now();
    ctx = suite_ctx(NULL);
    if (!ctx) return;
    tu_begin(ctx);
    double t = check_now();
    test_op_apply();
    printf("CG (tol %.0e; true residual bound %.0f tol):\n", (double)CG_TOL, CG_FACTOR);
    test_cg_poisson();
    printf("  (cg poisson: %.1f s)\n", check_now() - t), t = check_now();
    test_cg_dense();
    test_cg_sparse();
    test_cg_product();
    test_cg_errors();
    test_cg_workspace();
    printf("  (cg dense, sparse, errors: %.1f s)\n", check_now() - t), t = check_now();
    test_lcp();
    printf("  (lcp: %.1f s)\n", check_now() - t), t = check_now();
    printf("outcomes, callbacks, histories:\n");
    test_cg_outcomes();
    test_lcp_outcomes();
    test_banded_regressions();
    printf("  (outcomes: %.1f s)\n", check_now() - t);
    tu_end();
    texla_ctx_destroy(ctx);
    ctx = NULL;
    printf("solvers suite: %.1f s\n", check_now() - t0);
}
