/* test_cubes.c - the cubes demo's physics (demos/cubes/physics.c) and its contact LCP.
 *
 * A ON THE GPU: random boxes (random extents, masses and orientations, seeded by main) piled
 * so that box-box face, edge and ground contacts occur; one step begun in single and in island
 * mode; every group's A = B J' read back from the GPU and compared with J M^-1 J' formed on the
 * CPU in float64 from the same J and from M^-1 computed independently (R from the quaternion in
 * float64). Bound per element: |A_gpu - A_ref|_ij <= (g_K + 32 u) (|J| |M^-1|+ |J|')_ij, with K
 * the inner (padded) dimension: g_K for the GPU product (texla.h: K 2^-24 |A||B|), and 32 u for
 * what the physics rounds before it (the rotation from the quaternion, 6 u absolute per entry;
 * R diag R' and B = J M^-1, 3-term sums; |M^-1|+ bounds the angular block by |R| D |R'| plus
 * 12 u d_max absolute). The padding rows must be exactly the unit block they are built to be.
 *
 * LCP: a resting scene with random sliding velocities (so rows separate, stick and slide: the
 * first of up to eight whose PGS solution with friction has normal rows active and friction
 * rows both at their bound and inside); the GPU's bounded projected Jacobi run to convergence (rounds of 4000 iterations from x = 0, up
 * to four until x meets the conditions below, the group's relaxation) and checked in float64
 * with w = A_ref x + b: x_n >= 0 exactly, |x_t| <= mu x_n (to the float product: 2 u), and per
 * row the fixed-point tolerance
 *   tol_i = 4 (g_(m+2) (|A||x| + |b|)_i + 2 u |x_i| A_ii / omega):
 * the product and the add (g), and a float32 fixed point moves x by less than an ulp, so
 * |w_i| <= 2 u |x_i| A_ii / omega where x_i > 0; the 4 covers the GPU's A differing from A_ref
 * (same order, bound above) and evaluating at the limit instead of the exact fixed point.
 * Normal rows: w >= -tol, and |w| <= tol where x > 0 (complementarity |x w| <= x tol);
 * friction rows: |w| <= tol inside the cone, w of the sign that opposes the impulse at its
 * bound. A float64 projected Gauss-Seidel reference (same A_ref, b; swept until no impulse
 * changes by 1e-13 relative) must meet the same conditions. With friction the solution is not
 * unique (redundant contacts share load differently and the cones follow), so the two are only
 * compared where it is: the same scene without friction is a convex QP whose net body impulses
 * z = J'x are unique, and for the GPU's x and the solution x*
 *   1/2 ||z - z*||^2_M^-1 <= f(x) - f(x*) <= sum_n w_n x_n + sum_n max(-w_n, 0) x*_n
 * (convexity and optimality of x*), a bound computed from the residuals, x* from PGS, plus
 * 8 u ||z*|| for float32 (the GPU's x is float: u per impulse, a few u of fixed-point shift).
 * At the demo's settings (warm start,
 * default iterations) in a settled stack: x >= 0, friction inside its cone, min w >= -1e-3 m/s
 * (chosen: a contact sinking at 1 mm/s is invisible; the slop is 2 mm). Read-backs: none while
 * the solves are issued, one per group at the end; the matrix pool makes nothing once sizes
 * repeat (and 7 matrices per group per step without it).
 *
 * SIMULATION (defaults of the demo: dt 1/60, 96 iterations, mu 0.6):
 *   drop: a tilted unit cube from 1.5 m comes to rest: after 300 steps the deepest vertex is
 *     less than 1% of the edge below the ground, |v| < 1e-3 m/s, and over the last 100 steps
 *     it moves less than 1e-4 m horizontally and turns less than 1e-4 rad (no drift).
 *   stack: 5 unit cubes stand for 5 s (300 steps): the top cube moves less than 2% of its edge
 *     (each of the 5 interfaces may settle to the 2 mm slop: 1 cm, plus 1 cm), and turns less
 *     than 1e-3 rad.
 *   energy: in the drop, a tumbling drop (corner first, spinning) and the stack, with
 *     E = KE + m g y: at every step E <= E(0) + sum of the position correction's work so far
 *     (sum over contacts of lambda_n times its correction velocity: the only energy the
 *     Baumgarte term may add) + 1e-6 (|E| + 1 J) (float32 positions); and once settled (after
 *     step 60) each step's growth <= that step's correction work + the same. The cumulative form
 *     allows the projected Jacobi's one-off rebound after a cold start (it returns energy lost
 *     in the initial sag; measured and printed).
 *   wall: a 10 x 6 wall of 60 cubes (the default, sparse solver, at most 192 iterations a step)
 *     shot at 25 m/s from 6 m: after 75 steps the wall's centre of mass is more than 0.1 m
 *     lower than before (its columns standing alone are the stack above: they move by less
 *     than 2 cm).
 * The drop runs the dense solver, the tumble and one stack the sparse one, the other stack the
 * dense one (its pool checks are the dense solver's; the sparse solver makes the step's two
 * sparse matrices and their product and nothing else once sizes repeat).
 *
 * THE SPARSE (MATRIX-FREE) SOLVER AND THE REST OF ISSUE 12 (each function's comment has the
 * bounds and why): the broadphase passes exactly the all-pairs sphere test's pairs, sorted
 * (test_broadphase); w = J (M^-1 J' x) + b on the GPU against float64 J M^-1 J' x + b
 * (test_matfree_w); the sparse and the dense solver's impulses on the same frame, within the
 * rounding the two product orders can accumulate (test_sparse_vs_dense); the sparse solver run
 * to convergence meets the same LCP conditions as the dense one (test_lcp); the unsolved flag
 * raised with 1 iteration, not with 96 (test_unsolved_flag); solvers switched between steps and
 * the dense solvers' fallback (test_switch); the 1000-cube wall falls when shot
 * (test_wall_1000, once per process: llvmpipe takes seconds a step there).
 */
#include "physics.h"
#include "suites.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static texla_ctx *ctx;

#define U CHECK_U
#define gamma_k check_gamma
#define now_s check_now
#define xalloc check_alloc

static void expect_ok(texla_result r, const char *what) { CHECK_OK(ctx, r, what); }

/* float64 M^-1 of body i as 6x6 (linear 1/m I, angular R diag(inv_inertia) R'), R from q */
static void minv_ref(const cubes_body *b, double M[6][6], double Mabs[6][6]) {
    double w = b->q[0], x = b->q[1], y = b->q[2], z = b->q[3];
    double n = sqrt(w * w + x * x + y * y + z * z);
    w /= n, x /= n, y /= n, z /= n;
    double R[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                      {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                      {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
    double dmax = 0;
    for (int k = 0; k < 3; k++) dmax = fmax(dmax, b->inv_inertia[k]);
    memset(M, 0, sizeof(double) * 36);
    memset(Mabs, 0, sizeof(double) * 36);
    for (int k = 0; k < 3; k++) M[k][k] = Mabs[k][k] = b->inv_mass;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0, sa = 0;
            for (int k = 0; k < 3; k++) {
                s += R[i][k] * (double)b->inv_inertia[k] * R[j][k];
                sa += fabs(R[i][k]) * (double)b->inv_inertia[k] * fabs(R[j][k]);
            }
            M[3 + i][3 + j] = s;
            Mabs[3 + i][3 + j] = sa + 12 * U * dmax;
        }
}

/* A_ref = J M^-1 J' (float64) and Aabs = |J| |M^-1|+ |J|' for group g; m x m (unpadded). J is
 * the group's rows (compact: two 6-column blocks, the bodies' columns), M^-1 from minv_ref. */
static void build_A_ref(const cubes_world *w, int g, double *A, double *Aabs) {
    const cubes_group *G = &w->groups[g];
    const cubes_row *rows = cubes_group_rows(w, g);
    int m = G->m;
    double (*MJ)[12] = xalloc((size_t)m, sizeof *MJ), (*MJa)[12] = xalloc((size_t)m, sizeof *MJa);
    for (int r = 0; r < m; r++) {
        int cols[2] = {rows[r].ca, rows[r].cb};
        for (int e = 0; e < 2; e++) {
            if (cols[e] < 0) continue;
            double M[6][6], Ma[6][6];
            minv_ref(&w->bodies[w->border[G->b0 + cols[e] / 6]], M, Ma);
            for (int i = 0; i < 6; i++) {
                double s = 0, sa = 0;
                for (int j = 0; j < 6; j++) {
                    double jv = rows[r].j[6 * e + j];
                    s += M[i][j] * jv;
                    sa += Ma[i][j] * fabs(jv);
                }
                MJ[r][6 * e + i] = s;
                MJa[r][6 * e + i] = sa;
            }
        }
    }
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) {
            double s = 0, sa = 0;
            int ci[2] = {rows[i].ca, rows[i].cb}, cj[2] = {rows[j].ca, rows[j].cb};
            for (int e = 0; e < 2; e++)
                for (int f = 0; f < 2; f++) {
                    if (ci[e] < 0 || ci[e] != cj[f]) continue;
                    for (int k = 0; k < 6; k++) {
                        s += (double)rows[i].j[6 * e + k] * MJ[j][6 * f + k];
                        sa += fabs((double)rows[i].j[6 * e + k]) * MJa[j][6 * f + k];
                    }
                }
            A[(size_t)i * m + j] = s;
            Aabs[(size_t)i * m + j] = sa;
        }
    free(MJ);
    free(MJa);
}

static void rand_quat(float q[4], double spread) {
    double ax[3] = {check_rand(), check_rand(), check_rand()}, l = 0;
    for (int k = 0; k < 3; k++) l += ax[k] * ax[k];
    l = sqrt(l) + 1e-9;
    double ang = spread * check_rand();
    q[0] = (float)cos(ang / 2);
    for (int k = 0; k < 3; k++) q[1 + k] = (float)(sin(ang / 2) * ax[k] / l);
}

/* ---- A on the GPU against the CPU ---- */

static void check_A_groups(cubes_world *w, const char *mode) {
    int groups = 0;
    double worst = 0, worst_rel = 0;
    for (int g = 0; g < w->ngroups; g++) {
        const cubes_group *G = &w->groups[g];
        int m = G->m, mc = G->mc;
        float *A = xalloc((size_t)mc * mc, sizeof *A);
        expect_ok(texla_mat_read(ctx, w->slots[G->slot].A, A), "read A");
        double *Ar = xalloc((size_t)m * m, sizeof *Ar), *Aa = xalloc((size_t)m * m, sizeof *Aa);
        build_A_ref(w, g, Ar, Aa);
        double c = gamma_k(G->kc) + 32 * U, e2 = 0, r2 = 0, ratio = 0;
        int bad_pad = 0;
        for (int i = 0; i < mc; i++)
            for (int j = 0; j < mc; j++) {
                double a = A[(size_t)i * mc + j];
                if (i >= m || j >= m) { /* padding: the unit block, nothing coupling to it */
                    bad_pad += a != ((i >= m && j >= m) ? 1.0 : 0.0);
                    continue;
                }
                double d = a - Ar[(size_t)i * m + j], bound = c * Aa[(size_t)i * m + j];
                e2 += d * d, r2 += Ar[(size_t)i * m + j] * Ar[(size_t)i * m + j];
                if (fabs(d) > 0) ratio = fmax(ratio, bound > 0 ? fabs(d) / bound : INFINITY);
            }
        CHECK(ratio <= 1.0, "%s group %d (%d rows, K %d): max |dA| / bound = %.3g", mode, g, m,
              G->kc, ratio);
        CHECK(bad_pad == 0, "%s group %d: %d padding entries of A are not the unit block", mode,
              g, bad_pad);
        worst = fmax(worst, ratio);
        worst_rel = fmax(worst_rel, r2 > 0 ? sqrt(e2 / r2) : 0);
        groups++;
        free(A), free(Ar), free(Aa);
    }
    printf("cubes: A = B J' on the GPU, %s: %d groups, %d rows; normwise relative error %.2e, "
           "worst element error / bound %.3f\n", mode, groups, w->stats.rows ? w->stats.rows : 0,
           worst_rel, worst);
}

static void add_random_pile(cubes_world *w) {
    /* a 3 x 3 grid of random boxes, two layers, overlapping a little: faces, edges, ground */
    for (int layer = 0; layer < 2; layer++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                float half[3], q[4];
                for (int k = 0; k < 3; k++) half[k] = (float)(0.45 + 0.15 * check_rand());
                float pos[3] = {(float)(1.0 * (i - 1) + 0.1 * check_rand()),
                                (float)(half[1] * 0.98 + layer * 0.9 + 0.05 * check_rand()),
                                (float)(1.0 * (j - 1) + 0.1 * check_rand())};
                rand_quat(q, layer ? 0.6 : 0.2);
                cubes_add_box(w, pos, half, (float)(1.5 + check_rand()), q);
            }
}

/* bad parameters refused: iteration counts past the limit or negative (2^30 overflowed the
 * doubled count, -5 failed the second step), boxes with a NaN position or size, a rotation of
 * length 0 */
static void test_bad_params(void) {
    cubes_world w;
    static const int its[4] = {1 << 30, -5, 0, 0}, mits[4] = {0, 0, -1, CUBES_MAX_ITERATIONS + 1};
    for (int k = 0; k < 4; k++) {
        cubes_params p = {.iterations = its[k], .max_iterations = mits[k]};
        CHECK(cubes_world_init(&w, ctx, &p) == -1, "cubes_world_init(iterations %d, "
              "max_iterations %d) accepted", its[k], mits[k]);
    }
    cubes_params p = {.iterations = 20};
    int ok = cubes_world_init(&w, ctx, &p) == 0;
    CHECK(ok, "cubes_world_init(iterations 20)");
    if (!ok) return;
    float h[3] = {0.5f, 0.5f, 0.5f}, zero[4] = {0, 0, 0, 0}, nanq[4] = {NAN, 0, 0, 1};
    CHECK(cubes_add_box(&w, (float[3]){NAN, 1, 0}, h, 1, NULL) == -1, "a box at x = NaN added");
    CHECK(cubes_add_box(&w, (float[3]){0, 1, 0}, (float[3]){0.5f, INFINITY, 0.5f}, 1, NULL) == -1,
          "a box of infinite size added");
    CHECK(cubes_add_box(&w, (float[3]){0, 1, 0}, h, 1, zero) == -1, "a box turned by q = 0 added");
    CHECK(cubes_add_box(&w, (float[3]){0, 1, 0}, h, 1, nanq) == -1, "a box turned by a NaN q added");
    CHECK(cubes_add_box(&w, (float[3]){0, 1, 0}, h, INFINITY, NULL) == -1, "a box of infinite mass added");
    CHECK(w.nbodies == 0 && cubes_add_box(&w, (float[3]){0, 1, 0}, h, 1, NULL) == 0,
          "after the refused boxes: %d bodies, or a good box refused", w.nbodies);
    cubes_world_free(&w);
}

static void test_A(void) {
    for (int islands = 0; islands < 2; islands++) {
        cubes_world w;
        cubes_params p = {.solver = islands ? CUBES_SOLVER_ISLANDS : CUBES_SOLVER_DENSE};
        cubes_world_init(&w, ctx, &p);
        add_random_pile(&w);
        /* two more apart: an island of their own in island mode */
        float h[3] = {0.5f, 0.5f, 0.5f}, q[4];
        rand_quat(q, 0.3);
        cubes_add_box(&w, (float[3]){6, 0.45f, 0}, h, 1, q);
        cubes_add_box(&w, (float[3]){6.1f, 1.4f, 0}, h, 1, NULL);
        int r = cubes_step_begin(&w);
        CHECK(r == 0, "cubes_step_begin: %s", texla_error_message(ctx));
        if (r == 0) {
            CHECK(w.ncontacts > 20, "random pile: only %d contacts", w.ncontacts);
            CHECK(!islands || w.ngroups >= 2, "islands: %d groups", w.ngroups);
            w.stats.rows = 0;
            for (int g = 0; g < w.ngroups; g++) w.stats.rows += w.groups[g].m;
            check_A_groups(&w, islands ? "islands" : "single");
            CHECK(cubes_step_end(&w) == 0, "cubes_step_end: %s", texla_error_message(ctx));
        }
        cubes_world_free(&w);
    }
}

/* ---- the matrix-free product against float64 ---- */

/* The sparse solver's operator w = J (M^-1 J' x) + b on the GPU (texla_op_product of the two
 * texla_sparse matrices) for a random x, against float64 J M^-1 J' x + b with M^-1 from the
 * quaternion (minv_ref) and J the rows the GPU got (compact rows). Per row the bound is
 *   (g_(c+12) + 32 u) (|J| |M^-1|+ |J|' |x|)_i + u (|b_i| + |w_i|),
 * c the most rows on one body's column: the GPU sums c terms for M^-1 J' x, 12 for J (.); the
 * 32 u is what the physics rounded in M^-1 J' (test_A); u for the add of b. Padding rows give
 * exactly b (0). */
static void test_matfree_w(void) {
    cubes_world w;
    cubes_params p = {.solver = CUBES_SOLVER_SPARSE};
    cubes_world_init(&w, ctx, &p);
    add_random_pile(&w);
    float h[3] = {0.5f, 0.5f, 0.5f};
    cubes_add_box(&w, (float[3]){6, 0.45f, 0}, h, 1, NULL);
    int r = cubes_step_begin(&w);
    CHECK(r == 0, "matrix-free: cubes_step_begin: %s", texla_error_message(ctx));
    if (r) {
        cubes_world_free(&w);
        return;
    }
    CHECK(w.mode == CUBES_SOLVER_SPARSE && w.ngroups == 1 && w.sslot >= 0,
          "matrix-free: mode %d, %d groups, slot %d", w.mode, w.ngroups, w.sslot);
    const cubes_group *G = &w.groups[0];
    const cubes_sslot *s = &w.sslots[w.sslot];
    const cubes_row *rows = cubes_group_rows(&w, 0);
    const float *hb = cubes_group_b(&w, 0);
    int m = G->m, mc = G->mc, nb = G->nb;
    float *x = xalloc((size_t)mc, sizeof *x), *wg = xalloc((size_t)mc, sizeof *wg);
    for (int i = 0; i < m; i++) x[i] = (float)check_rand();
    texla_vec xv = {0}, wv = {0}, tv = {0};
    expect_ok(texla_vec_make(ctx, mc, x, &xv), "x");
    expect_ok(texla_vec_make(ctx, mc, NULL, &wv), "w");
    expect_ok(texla_vec_make(ctx, mc, NULL, &tv), "A x");
    expect_ok(texla_op_matvec(ctx, s->A, xv, tv), "texla_op_matvec(J (M^-1 J' .))");
    expect_ok(texla_vec_add(ctx, tv, s->b, wv), "w = A x + b");
    expect_ok(texla_vec_read(ctx, wv, wg), "read w");
    /* float64: z = J' x per body column, then M^-1 z and its absolute bound */
    double *z = xalloc((size_t)6 * nb, sizeof *z), *za = xalloc((size_t)6 * nb, sizeof *za);
    double *mz = xalloc((size_t)6 * nb, sizeof *mz), *mza = xalloc((size_t)6 * nb, sizeof *mza);
    int *cnt = xalloc((size_t)nb, sizeof *cnt), cmax = 0;
    for (int i = 0; i < m; i++) {
        int cols[2] = {rows[i].ca, rows[i].cb};
        for (int e = 0; e < 2; e++) {
            if (cols[e] < 0) continue;
            cnt[cols[e] / 6]++;
            for (int k = 0; k < 6; k++) {
                z[cols[e] + k] += (double)rows[i].j[6 * e + k] * x[i];
                za[cols[e] + k] += fabs((double)rows[i].j[6 * e + k] * x[i]);
            }
        }
    }
    for (int l = 0; l < nb; l++) {
        double M[6][6], Ma[6][6];
        minv_ref(&w.bodies[w.border[G->b0 + l]], M, Ma);
        cmax = cnt[l] > cmax ? cnt[l] : cmax;
        for (int i = 0; i < 6; i++)
            for (int k = 0; k < 6; k++) {
                mz[6 * l + i] += M[i][k] * z[6 * l + k];
                mza[6 * l + i] += Ma[i][k] * za[6 * l + k];
            }
    }
    double c = gamma_k(cmax + 12) + 32 * U, worst = 0, e2 = 0, r2 = 0;
    int bad = 0, bad_pad = 0;
    for (int i = 0; i < mc; i++) {
        if (i >= m) {
            bad_pad += wg[i] != 0;
            continue;
        }
        double ref = hb[i], bound = 0;
        int cols[2] = {rows[i].ca, rows[i].cb};
        for (int e = 0; e < 2; e++)
            for (int k = 0; cols[e] >= 0 && k < 6; k++) {
                ref += (double)rows[i].j[6 * e + k] * mz[cols[e] + k];
                bound += fabs((double)rows[i].j[6 * e + k]) * mza[cols[e] + k];
            }
        bound = c * bound + U * (fabs((double)hb[i]) + fabs(ref));
        double d = fabs(wg[i] - ref);
        bad += d > bound;
        worst = fmax(worst, bound > 0 ? d / bound : (d > 0 ? INFINITY : 0));
        e2 += d * d, r2 += ref * ref;
    }
    CHECK(bad == 0, "matrix-free w: %d of %d rows off float64 J M^-1 J' x + b (worst error / "
          "bound %.3g)", bad, m, worst);
    CHECK(bad_pad == 0, "matrix-free w: %d padding rows are not 0", bad_pad);
    printf("cubes: matrix-free w = J (M^-1 J' x) + b on the GPU, %d rows, %d bodies (%ld nonzeros "
           "in J): normwise relative error %.2e, worst element error / bound %.3f\n", m, nb,
           w.stats.nnz, r2 > 0 ? sqrt(e2 / r2) : 0, worst);
    texla_vec_destroy(ctx, xv), texla_vec_destroy(ctx, wv), texla_vec_destroy(ctx, tv);
    free(x), free(wg), free(z), free(za), free(mz), free(mza), free(cnt);
    CHECK(cubes_step_end(&w) == 0, "matrix-free: cubes_step_end");
    cubes_world_free(&w);
}

/* The sparse solver's impulses against the dense solver's on the same frame: two worlds built
 * alike (the random pile, with friction), one step begun in each, the solutions read back. Both
 * run the same iteration (same rows, b, warm start, omega, diag); they differ by the float
 * rounding of the products (dense A formed by a K-term product, then m-term sums; sparse:
 * c-term then 12-term sums), per iteration at most
 *   delta_i = (omega / A_ii) g_(K+m) (|J| |M^-1|+ |J|' |x| + |b|)_i   (|x|: the larger of the two),
 * and the iteration does not amplify what came before (for normal rows it is nonexpansive in
 * the D-norm, D = diag A, where omega lambda_max < 2); so ||x_s - x_d||_D <= iterations
 * ||delta||_D, doubled for the friction rows' projection (it moves its bound with the normal
 * impulse). */
static void test_sparse_vs_dense(void) {
    uint64_t seed = (uint64_t)(check_rand() * 1e15);
    cubes_world w[2];
    int solvers[2] = {CUBES_SOLVER_DENSE, CUBES_SOLVER_SPARSE}, ok = 1;
    for (int k = 0; k < 2; k++) {
        cubes_params p = {.solver = solvers[k]};
        cubes_world_init(&w[k], ctx, &p);
        check_srand(seed);
        add_random_pile(&w[k]);
        ok &= cubes_step_begin(&w[k]) == 0;
    }
    CHECK(ok, "sparse vs dense: cubes_step_begin: %s", texla_error_message(ctx));
    if (ok) {
        const cubes_group *G = &w[0].groups[0], *Gs = &w[1].groups[0];
        int m = G->m, mc = G->mc;
        CHECK(w[1].ngroups == 1 && Gs->m == m && Gs->omega == G->omega,
              "sparse vs dense: not the same LCP (%d and %d rows, omega %g and %g)", m, Gs->m,
              G->omega, Gs->omega);
        float *xd = xalloc((size_t)mc, sizeof *xd), *xs = xalloc((size_t)mc, sizeof *xs);
        expect_ok(texla_mat_read(ctx, w[0].slots[G->slot].x, xd), "read dense x");
        expect_ok(texla_vec_read(ctx, w[1].sslots[w[1].sslot].x, xs), "read sparse x");
        double *A = xalloc((size_t)m * m, sizeof *A), *Aa = xalloc((size_t)m * m, sizeof *Aa);
        build_A_ref(&w[0], 0, A, Aa);
        const float *hb = cubes_group_b(&w[0], 0);
        double c = gamma_k(G->kc + m), d2 = 0, b2 = 0, xmax = 0, dmax = 0;
        for (int i = 0; i < m; i++) {
            double mag = fabs((double)hb[i]);
            for (int j = 0; j < m; j++) mag += Aa[(size_t)i * m + j] * fmax(fabs(xd[j]), fabs(xs[j]));
            double aii = A[(size_t)i * m + i], delta = G->omega / aii * c * mag;
            double dx = (double)xs[i] - xd[i];
            d2 += aii * dx * dx, b2 += aii * delta * delta;
            xmax = fmax(xmax, fabs(xd[i])), dmax = fmax(dmax, fabs(dx));
        }
        double bound = 2.0 * w[0].p.iterations * sqrt(b2), dn = sqrt(d2);
        CHECK(dn <= bound, "sparse vs dense: ||x_sparse - x_dense||_D = %.3g > bound %.3g", dn, bound);
        CHECK(xmax > 0, "sparse vs dense: no impulse at all");
        printf("cubes: sparse vs dense solver, same frame, %d rows, %d iterations: max |dx| %.2e "
               "of max |x| %.2e; ||dx||_D %.2e (bound %.2e)\n", m, w[0].p.iterations, dmax, xmax,
               dn, bound);
        free(xd), free(xs), free(A), free(Aa);
        for (int k = 0; k < 2; k++) CHECK(cubes_step_end(&w[k]) == 0, "cubes_step_end");
    }
    cubes_world_free(&w[0]);
    cubes_world_free(&w[1]);
}

/* ---- the LCP against the conditions and a float64 PGS ---- */

static void pgs(const double *A, const double *b, const float *fi, const float *mu, int m,
                double *x) {
    for (int i = 0; i < m; i++) x[i] = 0;
    for (int sweep = 0; sweep < 200000; sweep++) {
        double change = 0, size = 0;
        for (int i = 0; i < m; i++) {
            double w = b[i];
            for (int j = 0; j < m; j++) w += A[(size_t)i * m + j] * x[j];
            double v = x[i] - w / A[(size_t)i * m + i];
            int j = (int)fi[i];
            if (j < 0) v = fmax(v, 0);
            else v = fmax(-mu[i] * x[j], fmin(mu[i] * x[j], v));
            change = fmax(change, fabs(v - x[i]));
            size = fmax(size, fabs(v));
            x[i] = v;
        }
        if (change <= 1e-13 * fmax(size, 1e-30)) break;
    }
}

static void resting_scene(cubes_world *w) {
    float h[3] = {0.5f, 0.5f, 0.5f};
    float qy30[4] = {cosf(0.2618f), 0, sinf(0.2618f), 0};
    float qy20[4] = {cosf(0.1745f), 0, sinf(0.1745f), 0};
    float qz45[4] = {cosf(0.3927f), 0, 0, sinf(0.3927f)};
    cubes_add_box(w, (float[3]){0, 0.5f, 0}, h, 1, NULL);
    cubes_add_box(w, (float[3]){0.2f, 1.5f, 0.1f}, h, 1, qy30);
    cubes_add_box(w, (float[3]){2.2f, 0.25f, 0}, (float[3]){0.8f, 0.25f, 0.4f}, 2, qy20);
    cubes_add_box(w, (float[3]){2.0f, 1.0f, 0}, h, 1.5f, NULL);
    cubes_add_box(w, (float[3]){-2.2f, 0.70710678f, 0}, h, 1, qz45);
    for (int i = 0; i < w->nbodies; i++)
        for (int k = 0; k < 3; k++) {
            w->bodies[i].v[k] = (float)(0.5 * check_rand());
            w->bodies[i].w[k] = (float)(0.5 * check_rand());
        }
}

typedef struct lcp_check {
    int neg, cone, wbad, compl_bad, fbad, active, at_bound, inside;
    double worst, min_w, max_xw;
} lcp_check;

/* the conditions of the header for x (float or double data) against A_ref, b */
static lcp_check lcp_conditions(const double *A, const double *b, const double *x, const float *fi,
                                const float *mu, int m, float omega) {
    lcp_check c = {.min_w = INFINITY};
    for (int i = 0; i < m; i++) {
        double w_i = b[i], mag = fabs(b[i]);
        for (int j = 0; j < m; j++) {
            double t = A[(size_t)i * m + j] * x[j];
            w_i += t, mag += fabs(t);
        }
        double tol = 4 * (gamma_k(m + 2) * mag + 2 * U * fabs(x[i]) * A[(size_t)i * m + i] / omega);
        int j = (int)fi[i];
        if (j < 0) {
            c.neg += x[i] < 0;
            c.wbad += w_i < -tol;
            if (x[i] > 0) c.active++, c.compl_bad += fabs(w_i) > tol;
            c.min_w = fmin(c.min_w, w_i);
            c.max_xw = fmax(c.max_xw, fabs(x[i] * w_i));
            c.worst = fmax(c.worst, x[i] > 0 ? fabs(w_i) / tol : -w_i / tol);
        } else {
            double lim = (double)mu[i] * x[j];
            c.cone += fabs(x[i]) > lim * (1 + 2 * U);
            if (fabs(x[i]) < lim * (1 - 1e-5)) {
                c.inside++, c.fbad += fabs(w_i) > tol;
                c.worst = fmax(c.worst, fabs(w_i) / tol);
            } else if (x[i] > 0) c.at_bound++, c.fbad += w_i > tol; /* sliding: w opposes x */
            else if (x[i] < 0) c.at_bound++, c.fbad += w_i < -tol;
        }
    }
    return c;
}

static void report_conditions(const char *who, const lcp_check *c) {
    CHECK(c->neg == 0, "%s: %d normal impulses < 0", who, c->neg);
    CHECK(c->cone == 0, "%s: %d friction impulses outside mu x_n", who, c->cone);
    CHECK(c->wbad == 0, "%s: %d normal rows with w < -tol", who, c->wbad);
    CHECK(c->compl_bad == 0, "%s: %d active normal rows with |w| > tol (complementarity)", who,
          c->compl_bad);
    CHECK(c->fbad == 0, "%s: %d friction rows off their condition", who, c->fbad);
}

/* z = J'x per body and its M^-1 norm of the difference: ||J'(x - y)||_M^-1, ||J'y||_M^-1 */
static void net_impulse_diff(const cubes_world *w, const double *x, const double *y, double *dn,
                             double *yn) {
    const cubes_group *G = &w->groups[0];
    const cubes_row *rows = cubes_group_rows(w, 0);
    double *z = xalloc((size_t)6 * G->nb, sizeof *z), *zr = xalloc((size_t)6 * G->nb, sizeof *zr);
    for (int r = 0; r < G->m; r++) {
        int cols[2] = {rows[r].ca, rows[r].cb};
        for (int e = 0; e < 2; e++)
            for (int k = 0; cols[e] >= 0 && k < 6; k++) {
                z[cols[e] + k] += (double)rows[r].j[6 * e + k] * x[r];
                zr[cols[e] + k] += (double)rows[r].j[6 * e + k] * y[r];
            }
    }
    double d2 = 0, r2 = 0;
    for (int l = 0; l < G->nb; l++) {
        double M[6][6], Ma[6][6];
        minv_ref(&w->bodies[w->border[G->b0 + l]], M, Ma);
        for (int i = 0; i < 6; i++)
            for (int k = 0; k < 6; k++) {
                d2 += (z[6 * l + i] - zr[6 * l + i]) * M[i][k] * (z[6 * l + k] - zr[6 * l + k]);
                r2 += zr[6 * l + i] * M[i][k] * zr[6 * l + k];
            }
    }
    free(z), free(zr);
    *dn = sqrt(d2), *yn = sqrt(r2);
}

/* one LCP of the resting scene: GPU Jacobi to convergence and PGS; frictionless: mu -1; solver
 * dense (texla_lcp_jacobi on the formed A) or sparse (texla_lcp_jacobi_op on J (M^-1 J' .)).
 * With friction, 1 (nothing checked) where the PGS reference has no active normal row, no
 * friction row at its bound or none inside: a scene too tame to test the projection with */
static int lcp_case(float mu_param, int solver) {
    cubes_world w;
    cubes_params p = {.mu = mu_param, .solver = solver};
    cubes_world_init(&w, ctx, &p);
    resting_scene(&w);
    int sparse = solver == CUBES_SOLVER_SPARSE;
    const char *name = mu_param < 0 ? (sparse ? "LCP without friction, sparse solver"
                                              : "LCP without friction")
                                    : (sparse ? "LCP with friction, sparse solver"
                                              : "LCP with friction");
    if (cubes_step_begin(&w)) {
        CHECK(0, "%s: cubes_step_begin: %s", name, texla_error_message(ctx));
        cubes_world_free(&w);
        return 0;
    }
    const cubes_group *G = &w.groups[0];
    int m = G->m, mc = G->mc;
    const float *fi = cubes_group_index(&w, 0), *mu = cubes_group_mu(&w, 0);
    const float *hb = cubes_group_b(&w, 0);
    double *A = xalloc((size_t)m * m, sizeof *A), *Aa = xalloc((size_t)m * m, sizeof *Aa);
    double *b = xalloc((size_t)m, sizeof *b), *xr = xalloc((size_t)m, sizeof *xr);
    double *xd = xalloc((size_t)m, sizeof *xd);
    float *x = xalloc((size_t)mc, sizeof *x);
    build_A_ref(&w, 0, A, Aa);
    for (int i = 0; i < m; i++) b[i] = hb[i];
    /* the GPU solve to convergence from x = 0: rounds of 4000 iterations, each from the last
     * round's x, until x meets the conditions (a slowly settling stick-slip scene can need
     * more than one round), four rounds at most */
    const int round = 4000;
    int iters = 0;
    double t0 = now_s();
    lcp_check c;
    for (int r = 0; r < 4; r++) {
        if (sparse) {
            const cubes_sslot *s = &w.sslots[w.sslot];
            if (!r) expect_ok(texla_vec_write(ctx, x, s->x), "zero x");
            texla_lcp_op_desc d = {.iterations = round, .omega = G->omega, .diag = s->d,
                                   .friction_index = s->fi, .friction_mu = s->mu};
            expect_ok(texla_lcp_jacobi_op(ctx, s->A, s->b, &d, s->x, NULL), "texla_lcp_jacobi_op");
            expect_ok(texla_vec_read(ctx, s->x, x), "read x");
        } else {
            const cubes_slot *s = &w.slots[G->slot];
            if (!r) expect_ok(texla_mat_write(ctx, x, s->x), "zero x");
            texla_lcp_desc d = {.iterations = round, .omega = G->omega, .friction_index = s->fi,
                                .friction_mu = s->mu};
            expect_ok(texla_lcp_jacobi(ctx, s->A, s->b, &d, s->x, NULL), "texla_lcp_jacobi");
            expect_ok(texla_mat_read(ctx, s->x, x), "read x");
        }
        iters += round;
        for (int i = 0; i < m; i++) xd[i] = x[i];
        c = lcp_conditions(A, b, xd, fi, mu, m, G->omega);
        if (!(c.neg || c.cone || c.wbad || c.compl_bad || c.fbad)) break;
    }
    double t1 = now_s();
    pgs(A, b, fi, mu, m, xr);
    char who[96];
    lcp_check cr = lcp_conditions(A, b, xr, fi, mu, m, G->omega);
    int tame = mu_param >= 0 && !(cr.active > 0 && cr.at_bound > 0 && cr.inside > 0);
    if (tame) {
        printf("cubes: %s: the scene is too tame (PGS: %d active normal rows, %d friction rows at "
               "the bound, %d inside); another\n", name, cr.active, cr.at_bound, cr.inside);
        cubes_step_end(&w);
        free(A), free(Aa), free(b), free(xr), free(xd), free(x);
        cubes_world_free(&w);
        return 1;
    }
    snprintf(who, sizeof who, "%s, GPU Jacobi", name);
    report_conditions(who, &c);
    snprintf(who, sizeof who, "%s, CPU PGS reference", name);
    report_conditions(who, &cr);
    double dn, rn;
    net_impulse_diff(&w, xd, xr, &dn, &rn);
    if (mu_param < 0) {
        /* a convex QP: J'x is unique, and for feasible x, with x* the solution,
         * 1/2 ||J'(x - x*)||^2_M^-1 <= f(x) - f(x*) <= sum_n w_n x_n + sum_n max(-w_n, 0) x*_n */
        double gap = 0;
        for (int i = 0; i < m; i++) {
            if ((int)fi[i] >= 0) continue;
            double w_i = b[i];
            for (int j = 0; j < m; j++) w_i += A[(size_t)i * m + j] * xd[j];
            gap += w_i * xd[i] + fmax(-w_i, 0.0) * xr[i];
        }
        /* plus the float32 floor: the GPU's x is float (each impulse off by up to u of itself
         * even at the exact fixed point) and the iteration's fixed point moves by a few u, so
         * ||J'(x - x*)|| is at least ~u ||J' x*|| whatever the gap says; 8 u rn covers both
         * (the former 1e-9 rn asked for more than float32 holds, and failed at 2.7e-7 rn) */
        double bound = sqrt(2 * fmax(gap, 0.0)) + 8 * CHECK_U * rn;
        CHECK(c.active > 0, "%s: no active contact", name);
        CHECK(dn <= bound, "%s: ||J'(x_gpu - x_pgs)||_M^-1 = %.3g > bound %.3g", name, dn, bound);
        printf("cubes: %s, %d rows, omega %.3f (lambda_max %.2f), %d iterations in %.0f ms: min w "
               "%.2e, max |x w| %.2e, worst residual / tol %.3f; %d active rows; net impulses vs "
               "PGS %.2e (bound from the residuals %.2e) of %.2e\n", name, m, G->omega, G->lmax,
               iters, (t1 - t0) * 1e3, c.min_w, c.max_xw, c.worst, c.active, dn, bound, rn);
    } else {
        CHECK(c.active > 0 && c.at_bound > 0 && c.inside > 0,
              "%s: scene too tame: %d active normal rows, %d friction rows at the bound, %d inside",
              name, c.active, c.at_bound, c.inside);
        printf("cubes: %s, %d rows (%d contacts), omega %.3f (lambda_max %.2f), %d iterations in "
               "%.0f ms: min w %.2e, max |x w| %.2e, worst residual / tol %.3f (PGS %.3f); %d "
               "active normal rows, %d friction rows sliding, %d sticking; net impulses vs PGS "
               "%.2e relative (not unique with friction: reported)\n", name, m, G->nc, G->omega,
               G->lmax, iters, (t1 - t0) * 1e3, c.min_w, c.max_xw, c.worst, cr.worst, c.active,
               c.at_bound, c.inside, rn > 0 ? dn / rn : dn);
    }
    CHECK(cubes_step_end(&w) == 0, "cubes_step_end");
    free(A), free(Aa), free(b), free(xr), free(xd), free(x);
    cubes_world_free(&w);
    return 0;
}

static void test_lcp(void) {
    /* the same scene for every case: the first of eight random ones lively enough with friction */
    uint64_t seed_state = 0;
    int found = 0;
    for (int k = 0; k < 8 && !found; k++) {
        seed_state = (uint64_t)(check_rand() * 1e15);
        check_srand(seed_state);
        found = lcp_case(0.0f, CUBES_SOLVER_DENSE) == 0;
        check_srand(seed_state * 2654435761u + 1); /* the next candidate's stream */
    }
    CHECK(found, "LCP: none of eight resting scenes has normal rows active and friction rows both "
          "at their bound and inside");
    check_srand(seed_state);
    lcp_case(-1.0f, CUBES_SOLVER_DENSE);
    check_srand(seed_state);
    lcp_case(0.0f, CUBES_SOLVER_SPARSE);
    check_srand(seed_state);
    lcp_case(-1.0f, CUBES_SOLVER_SPARSE);
}

/* ---- simulations ---- */

static float lowest_vertex(const cubes_body *b) {
    float lo = FLT_MAX;
    for (int i = 0; i < 8; i++) {
        float s[3] = {(i & 1) ? b->half[0] : -b->half[0], (i & 2) ? b->half[1] : -b->half[1],
                      (i & 4) ? b->half[2] : -b->half[2]};
        float y = b->R[3] * s[0] + b->R[4] * s[1] + b->R[5] * s[2] + b->x[1];
        lo = y < lo ? y : lo;
    }
    return lo;
}

/* the angle of the rotation from a to b: conj(a) b, by atan2 (acos of the dot product would
 * turn float rounding of 1e-8 into 1e-4 rad) */
static double quat_angle(const float a[4], const float b[4]) {
    double w0 = a[0], x0 = -a[1], y0 = -a[2], z0 = -a[3];
    double w1 = b[0], x1 = b[1], y1 = b[2], z1 = b[3];
    double w = w0 * w1 - x0 * x1 - y0 * y1 - z0 * z1;
    double x = w0 * x1 + x0 * w1 + y0 * z1 - z0 * y1;
    double y = w0 * y1 - x0 * z1 + y0 * w1 + z0 * x1;
    double z = w0 * z1 + x0 * y1 - y0 * x1 + z0 * w1;
    return 2 * atan2(sqrt(x * x + y * y + z * z), fabs(w));
}

typedef struct energy_log {
    double e0, work, max_excess_cum, max_excess_step, max_rebound;
    int bad_cum, bad_step, steps;
} energy_log;

/* one step with the energy bookkeeping of the header */
static int step_logged(cubes_world *w, energy_log *e) {
    double before = cubes_kinetic_energy(w) + cubes_potential_energy(w);
    if (e->steps == 0) e->e0 = before;
    if (cubes_step(w)) return -1;
    double after = cubes_kinetic_energy(w) + cubes_potential_energy(w);
    double tol = 1e-6 * (fabs(after) + 1.0);
    e->work += w->stats.bias_work;
    double cum = after - (e->e0 + e->work);
    e->max_excess_cum = fmax(e->max_excess_cum, cum);
    e->bad_cum += cum > tol;
    double st = after - before - w->stats.bias_work;
    if (e->steps >= 60) {
        e->max_excess_step = fmax(e->max_excess_step, st);
        e->bad_step += st > tol;
    } else {
        e->max_rebound = fmax(e->max_rebound, st);
    }
    e->steps++;
    return 0;
}

static void energy_report(const char *what, const energy_log *e) {
    CHECK(e->bad_cum == 0, "%s: total energy above E(0) + correction work at %d steps (max %.3g J)",
          what, e->bad_cum, e->max_excess_cum);
    CHECK(e->bad_step == 0, "%s: energy grew beyond the step's correction work at %d settled steps "
          "(max %.3g J)", what, e->bad_step, e->max_excess_step);
    printf("cubes: energy, %s: E(0) %.3f J, correction work %.3g J, max E - E(0) - work %.3g J, "
           "max growth per step beyond the work %.3g J settled (%.3g J in the first 60 steps)\n",
           what, e->e0, e->work, e->max_excess_cum, e->max_excess_step, e->max_rebound);
}

static void test_drop(void) {
    cubes_world w;
    cubes_params pd = {.solver = CUBES_SOLVER_DENSE}; /* the tumble below: sparse */
    cubes_world_init(&w, ctx, &pd);
    float h[3] = {0.5f, 0.5f, 0.5f}, q[4] = {0.98f, 0.1f, 0.05f, 0.15f};
    cubes_add_box(&w, (float[3]){0.3f, 1.5f, -0.2f}, h, 1, q);
    energy_log e = {0};
    float x200[3] = {0}, q200[4] = {0};
    int ok = 1;
    double t0 = now_s();
    for (int s = 0; s < 300 && ok; s++) {
        ok = step_logged(&w, &e) == 0;
        if (s == 199) {
            memcpy(x200, w.bodies[0].x, sizeof x200);
            memcpy(q200, w.bodies[0].q, sizeof q200);
        }
    }
    CHECK(ok, "drop: step failed: %s", texla_error_message(ctx));
    const cubes_body *b = &w.bodies[0];
    float pen = -lowest_vertex(b);
    float v = sqrtf(b->v[0] * b->v[0] + b->v[1] * b->v[1] + b->v[2] * b->v[2]);
    double dh = hypot(b->x[0] - x200[0], b->x[2] - x200[2]), da = quat_angle(b->q, q200);
    CHECK(pen < 0.01f, "drop: penetration %.4g m after 300 steps (edge 1 m)", pen);
    CHECK(v < 1e-3f, "drop: still moving at %.3g m/s", v);
    CHECK(dh < 1e-4 && da < 1e-4, "drop: drift over the last 100 steps %.3g m, %.3g rad", dh, da);
    printf("cubes: drop: penetration %.5f m, |v| %.2e m/s, drift over 100 steps %.2e m, %.2e rad "
           "(%.2f s)\n", pen, v, dh, da, now_s() - t0);
    energy_report("drop (dense)", &e);
    cubes_world_free(&w);

    /* tumbling: corner first, spinning, onto the ground */
    cubes_params ps = {.solver = CUBES_SOLVER_SPARSE};
    cubes_world_init(&w, ctx, &ps);
    float q2[4] = {0.85f, 0.3f, 0.2f, 0.38f};
    int i = cubes_add_box(&w, (float[3]){0, 1.6f, 0}, h, 1, q2);
    w.bodies[i].w[0] = 3, w.bodies[i].w[2] = -2, w.bodies[i].v[0] = 1.5f;
    energy_log e2 = {0};
    ok = 1;
    for (int s = 0; s < 200 && ok; s++) ok = step_logged(&w, &e2) == 0;
    CHECK(ok, "tumble: step failed: %s", texla_error_message(ctx));
    energy_report("tumble (sparse)", &e2);
    cubes_world_free(&w);
}

/* a stack of 5 unit cubes standing 5 s with the given solver (see the header) */
static void test_stack(int solver) {
    cubes_world w;
    cubes_params p = {.solver = solver};
    cubes_world_init(&w, ctx, &p);
    int sparse = solver == CUBES_SOLVER_SPARSE;
    const char *sn = cubes_solver_name(solver);
    float h[3] = {0.5f, 0.5f, 0.5f};
    for (int i = 0; i < 5; i++) cubes_add_box(&w, (float[3]){0, 0.5f + i, 0}, h, 1, NULL);
    const cubes_body *top = &w.bodies[4];
    float x0[3], q0[4];
    memcpy(x0, top->x, sizeof x0);
    memcpy(q0, top->q, sizeof q0);
    energy_log e = {0};
    int ok = 1, pool_made = -1, rb_begin = -1, rb_end = -1, groups = 0, unsolved = 0;
    float min_w = 0, min_x = 0, fex = 0;
    double t0 = now_s();
    for (int s = 0; s < 300 && ok; s++) {
        if (s == 150) { /* read-backs of a step, and the pool once sizes repeat */
            texla_stats a, b, c;
            texla_ctx_stats(ctx, &a);
            ok = cubes_step_begin(&w) == 0;
            texla_ctx_stats(ctx, &b);
            ok = ok && cubes_step_end(&w) == 0;
            texla_ctx_stats(ctx, &c);
            rb_begin = (int)(b.readbacks - a.readbacks), rb_end = (int)(c.readbacks - b.readbacks);
            pool_made = w.stats.mats_made;
            groups = w.stats.groups;
            continue;
        }
        ok = step_logged(&w, &e) == 0;
        unsolved += w.stats.unsolved;
        if (s >= 60) {
            min_w = fminf(min_w, w.stats.min_w);
            min_x = fminf(min_x, w.stats.min_x);
            fex = fmaxf(fex, w.stats.max_fric_excess);
        }
    }
    CHECK(ok, "stack (%s): step failed: %s", sn, texla_error_message(ctx));
    CHECK(w.stats.solver == solver && !w.stats.fallback, "stack: solved by %d, asked %d",
          w.stats.solver, solver);
    double d = sqrt(pow(top->x[0] - x0[0], 2) + pow(top->x[1] - x0[1], 2) +
                    pow(top->x[2] - x0[2], 2));
    double da = quat_angle(top->q, q0);
    CHECK(d < 0.02, "stack (%s): the top cube moved %.4g m in 5 s", sn, d);
    CHECK(da < 1e-3, "stack (%s): the top cube turned %.3g rad in 5 s", sn, da);
    CHECK(min_x >= 0, "stack (%s): a normal impulse %.3g < 0", sn, min_x);
    CHECK(fex <= 1e-6f, "stack (%s): friction outside its cone by %.3g", sn, fex);
    CHECK(min_w >= -1e-3f, "stack (%s): min w %.3g m/s at the demo's settings", sn, min_w);
    CHECK(unsolved == 0, "stack (%s): %d steps flagged unsolved", sn, unsolved);
    CHECK(rb_begin == 0 && rb_end == groups, "stack (%s): %d read-backs while solving, %d after "
          "(%d groups)", sn, rb_begin, rb_end, groups);
    /* the dense solvers' pooled matrices; the sparse solver's pooled vectors and the step's
     * J, M^-1 J' and their product (made each step: texla_sparse has no in-place update) */
    CHECK(pool_made == (sparse ? 3 : 0), "stack (%s): %d GPU objects made in a step whose sizes "
          "repeat", sn, pool_made);
    printf("cubes: stack of 5 (%s), 300 steps (%.2f s): top moved %.5f m (y %+.5f), turned %.2e "
           "rad; settled min w %.2e m/s, min x %.2e, friction excess %.2e; read-backs %d while "
           "solving, %d after\n", sn, now_s() - t0, d, top->x[1] - x0[1], da, min_w, min_x, fex,
           rb_begin, rb_end);
    energy_report(sparse ? "stack, sparse" : "stack, dense", &e);
    /* without the pool: every object per group per step (the first step still finds the pooled
     * slot; at its end every slot goes) */
    w.p.no_pool = 1;
    CHECK(cubes_step(&w) == 0 && cubes_step(&w) == 0, "stack: no-pool steps");
    int want = sparse ? 6 + 3 + 3 : 11; /* vectors, workspace, step objects; 7 + a workspace */
    CHECK(w.stats.mats_made == want * w.stats.groups, "no pool (%s): %d objects made for %d "
          "groups, want %d each", sn, w.stats.mats_made, w.stats.groups, want);
    cubes_world_free(&w);
}

static double com_y(const cubes_world *w, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += w->bodies[i].x[1];
    return s / n;
}

/* a 10 x 6 wall shot (see the header) */
static void test_wall(void) {
    cubes_world w;
    cubes_params p = {.max_iterations = 192}; /* the default solver; at most 2x iterations (time) */
    cubes_world_init(&w, ctx, &p);
    CHECK(cubes_scene_wall(&w, 10, 6, 1.0f, 0.05f) == 0, "wall");
    double y0 = com_y(&w, 60), t0 = now_s(), ymax = y0;
    int ok = 1, peak = 0;
    for (int s = 0; s < 75 && ok; s++) {
        if (s == 2) cubes_shoot(&w, (float[3]){0.3f, 3.0f, 6.0f}, (float[3]){0.3f, 2.5f, 0}, 25);
        ok = cubes_step(&w) == 0;
        peak = w.stats.max_rows > peak ? w.stats.max_rows : peak;
        ymax = fmax(ymax, com_y(&w, 60));
    }
    CHECK(ok, "wall: step failed: %s", texla_error_message(ctx));
    double y1 = com_y(&w, 60);
    CHECK(y1 < y0 - 0.1, "wall: centre of mass from %.3f to %.3f m", y0, y1);
    int finite = 1;
    for (int i = 0; i < w.nbodies; i++)
        for (int k = 0; k < 3; k++)
            finite &= isfinite(w.bodies[i].x[k]) && isfinite(w.bodies[i].v[k]);
    CHECK(finite, "wall: non-finite state");
    printf("cubes: wall 10 x 6 shot (%s): centre of mass %.3f -> %.3f m after 75 steps (max %.3f), "
           "largest LCP %d rows (%.1f s)\n", cubes_solver_name(w.p.solver), y0, y1, ymax, peak,
           now_s() - t0);
    cubes_world_free(&w);
}

/* The thousand-cube wall (cubes_scene: 41 x 24, 12000 LCP rows at rest, one sparse LCP). On
 * llvmpipe a step of it on the GPU takes seconds (tens under load), so the GPU does the steps
 * that matter and the CPU the rest (cpu_solve: the same Jacobi on the same rows, in float):
 * SETTLE steps on the CPU (a cold 24-high wall needs a few hundred iterations a step for a
 * while), one GPU step at rest (not flagged unsolved), the shot from 1 m in front at 25 m/s,
 * IMPACT GPU steps at a fixed 96 iterations (the projectile enters the wall), then FALL CPU
 * steps. It falls: the shot knocks cubes out (at least 5 moved more than 10 cm) and cubes above
 * the hole drop (at least 3 lower by more than 2 cm than when settled), the state stays finite,
 * and the GPU's LCPs had up to the rows and nonzeros reported. */
static void test_wall_1000(void) {
    enum { SETTLE = 30, IMPACT = 4, FALL = 8 };
    cubes_world w;
    cubes_params p = {.cpu_solve = 1};
    cubes_world_init(&w, ctx, &p);
    cubes_scene_info in;
    CHECK(cubes_scene(&w, CUBES_SCENE_WALL, 1000, &in) == 0 && w.nbodies == 1000,
          "the 1000-cube wall");
    double t0 = now_s();
    int ok = 1;
    for (int s = 0; s < SETTLE && ok; s++) ok = cubes_step(&w) == 0;
    double t_settle = now_s() - t0;
    float *x0 = xalloc((size_t)3 * w.nbodies, sizeof *x0);
    for (int i = 0; i < w.nbodies; i++) memcpy(x0 + 3 * i, w.bodies[i].x, 3 * sizeof *x0);
    w.p.cpu_solve = 0;
    w.p.max_iterations = w.p.iterations;
    t0 = now_s();
    ok = ok && cubes_step(&w) == 0;
    int unsolved_rest = w.stats.unsolved, rows = 0, gpu = w.stats.solver == CUBES_SOLVER_SPARSE;
    double t_cpu = 0;
    long nnz = 0;
    cubes_shoot(&w, (float[3]){in.target[0], in.target[1] + 0.2f, in.target[2] + 1.0f},
                in.target, 25);
    for (int s = 0; s < IMPACT && ok; s++) {
        ok = cubes_step(&w) == 0;
        gpu &= w.stats.solver == CUBES_SOLVER_SPARSE;
        rows = w.stats.rows > rows ? w.stats.rows : rows;
        nnz = w.stats.nnz > nnz ? w.stats.nnz : nnz;
        t_cpu += w.stats.t_collide_ms + w.stats.t_build_ms + w.stats.t_upload_ms +
                 w.stats.t_finish_ms;
    }
    double t_gpu = now_s() - t0;
    w.p.cpu_solve = 1;
    for (int s = 0; s < FALL && ok; s++) ok = cubes_step(&w) == 0;
    CHECK(ok, "1000-cube wall: step failed: %s", texla_error_message(ctx));
    int moved = 0, dropped = 0, finite = 1;
    for (int i = 0; i < 1000; i++) {
        const float *x = w.bodies[i].x, *q = x0 + 3 * i;
        double d = sqrt(pow(x[0] - q[0], 2) + pow(x[1] - q[1], 2) + pow(x[2] - q[2], 2));
        moved += d > 0.1, dropped += q[1] - x[1] > 0.02;
        for (int k = 0; k < 3; k++) finite &= isfinite(x[k]) && isfinite(w.bodies[i].v[k]);
    }
    CHECK(finite, "1000-cube wall: non-finite state");
    CHECK(moved >= 5 && dropped >= 3, "1000-cube wall: after the shot %d cubes moved > 10 cm, %d "
          "dropped > 2 cm", moved, dropped);
    CHECK(unsolved_rest == 0, "1000-cube wall: the GPU step at rest flagged unsolved");
    CHECK(gpu, "1000-cube wall: a GPU step not solved by the sparse solver");
    printf("cubes: 1000-cube wall shot (settled in %d CPU steps, %.1f s; %d GPU steps, sparse, one "
           "LCP of up to %d rows, %ld nonzeros in J, %.1f s, CPU side %.0f ms a step; %d CPU steps "
           "more): %d cubes moved > 10 cm, %d dropped > 2 cm\n", SETTLE, t_settle, 1 + IMPACT,
           rows, nnz, t_gpu, t_cpu / IMPACT, FALL, moved, dropped);
    free(x0);
    cubes_world_free(&w);
}

/* The broadphase passes exactly the pairs whose grown bounding spheres overlap (the all-pairs
 * test it replaces): a random pile with random velocities, one body absurdly fast (wider than a
 * grid cell: tested against all) and one gone non-finite (meets nothing). */
static void test_broadphase(void) {
    cubes_world w;
    cubes_params p = {.cpu_solve = 1};
    cubes_world_init(&w, ctx, &p);
    add_random_pile(&w);
    add_random_pile(&w);
    for (int i = 0; i < w.nbodies; i++)
        for (int k = 0; k < 3; k++) {
            w.bodies[i].x[k] += (float)(3 * check_rand());
            w.bodies[i].v[k] = (float)(4 * check_rand());
        }
    w.bodies[3].v[0] = 3000; /* reach 50 m */
    w.bodies[5].x[1] = NAN;
    CHECK(cubes_step_begin(&w) == 0, "broadphase: cubes_step_begin");
    int n = w.nbodies, missing = 0, extra = 0, want = 0;
    for (int i = 0; i < n; i++) {
        const cubes_body *a = &w.bodies[i];
        for (int j = i + 1; j < n; j++) {
            const cubes_body *b = &w.bodies[j];
            float ra = sqrtf(a->half[0] * a->half[0] + a->half[1] * a->half[1] +
                             a->half[2] * a->half[2]);
            float rb = sqrtf(b->half[0] * b->half[0] + b->half[1] * b->half[1] +
                             b->half[2] * b->half[2]);
            float va = sqrtf(a->v[0] * a->v[0] + a->v[1] * a->v[1] + a->v[2] * a->v[2]);
            float vb = sqrtf(b->v[0] * b->v[0] + b->v[1] * b->v[1] + b->v[2] * b->v[2]);
            float wa = sqrtf(a->w[0] * a->w[0] + a->w[1] * a->w[1] + a->w[2] * a->w[2]);
            float wb = sqrtf(b->w[0] * b->w[0] + b->w[1] * b->w[1] + b->w[2] * b->w[2]);
            /* each body's radius as the physics computes it (same float operations) */
            float r0 = ra + w.p.dt * (va + wa * ra) + 0.5f * w.p.margin;
            float r1 = rb + w.p.dt * (vb + wb * rb) + 0.5f * w.p.margin, r = r0 + r1;
            float d[3] = {b->x[0] - a->x[0], b->x[1] - a->x[1], b->x[2] - a->x[2]};
            int hit = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= r * r;
            int found = 0;
            for (int k = w.bp_first[i]; k < w.bp_first[i + 1]; k++) found |= w.bp_pairs[k] == j;
            want += hit, missing += hit && !found, extra += found && !hit;
        }
    }
    int sorted = 1;
    for (int i = 0; i < n; i++)
        for (int k = w.bp_first[i] + 1; k < w.bp_first[i + 1]; k++)
            sorted &= w.bp_pairs[k - 1] < w.bp_pairs[k];
    CHECK(missing == 0 && extra == 0 && w.stats.pairs == want, "broadphase: %d pairs, want %d: "
          "%d missing, %d extra", w.stats.pairs, want, missing, extra);
    CHECK(sorted, "broadphase: a body's partners are not in increasing order");
    printf("cubes: broadphase: %d bodies, %d pairs, the all-pairs sphere test's exactly\n", n,
           w.stats.pairs);
    cubes_step_end(&w);
    cubes_world_free(&w);
}

/* The solver switched between steps (as key M does) and the dense solvers' fallback: a stack of
 * 3 stepped dense, islands, sparse, dense again, each step solved by the solver asked; with
 * dense_max_rows below the LCP's rows the dense step goes to the sparse solver and says so. */
static void test_switch(void) {
    cubes_world w;
    cubes_params p = {.solver = CUBES_SOLVER_DENSE};
    cubes_world_init(&w, ctx, &p);
    float h[3] = {0.5f, 0.5f, 0.5f};
    for (int i = 0; i < 3; i++) cubes_add_box(&w, (float[3]){0, 0.5f + i, 0}, h, 1, NULL);
    static const int order[4] = {CUBES_SOLVER_DENSE, CUBES_SOLVER_ISLANDS, CUBES_SOLVER_SPARSE,
                                 CUBES_SOLVER_DENSE};
    int bad = 0;
    for (int k = 0; k < 4; k++) {
        w.p.solver = order[k];
        CHECK(cubes_step(&w) == 0, "switch: step with solver %d", order[k]);
        bad += w.stats.solver != order[k] || w.stats.fallback;
    }
    CHECK(bad == 0, "switch: %d steps not solved by the solver asked", bad);
    w.p.dense_max_rows = 8;
    CHECK(cubes_step(&w) == 0, "fallback step");
    CHECK(w.stats.fallback == 1 && w.stats.solver == CUBES_SOLVER_SPARSE && w.stats.rows > 8,
          "fallback: %d rows over the cap of 8 solved by %d (fallback %d)", w.stats.rows,
          w.stats.solver, w.stats.fallback);
    CHECK(w.bodies[2].x[1] > 2.4f && w.bodies[2].x[1] < 2.6f, "switching moved the top cube to %g",
          w.bodies[2].x[1]);
    cubes_world_free(&w);
}

/* The unsolved flag can be raised: a cube dropped from 3 m lands with 1 Jacobi iteration a step
 * (flagged: it sinks faster than the tolerance) and with the default 96 (never flagged). */
static void test_unsolved_flag(void) {
    int flagged[2] = {0, 0};
    float worst[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        cubes_world w;
        cubes_params p = {.iterations = k ? 0 : 1};
        cubes_world_init(&w, ctx, &p);
        float h[3] = {0.5f, 0.5f, 0.5f};
        cubes_add_box(&w, (float[3]){0, 3.5f, 0}, h, 1, NULL);
        for (int s = 0; s < 60; s++) {
            if (cubes_step(&w)) break;
            flagged[k] += w.stats.unsolved;
            if (w.stats.w_tol > 0) worst[k] = fmaxf(worst[k], -w.stats.min_w / w.stats.w_tol);
        }
        cubes_world_free(&w);
    }
    CHECK(flagged[0] > 0, "unsolved flag: never raised with 1 iteration (worst min w / tol %.2f)",
          worst[0]);
    CHECK(flagged[1] == 0, "unsolved flag: raised %d times at the default iterations (worst %.2f)",
          flagged[1], worst[1]);
    printf("cubes: unsolved flag: a 3 m drop with 1 Jacobi iteration flagged in %d steps (worst "
           "min w %.1f x tol), with 96 in %d (worst %.2f x tol)\n", flagged[0], worst[0],
           flagged[1], worst[1]);
}

void suite_cubes(void) {
    ctx = suite_ctx(NULL);
    if (!ctx) return;
    test_broadphase();
    test_bad_params();
    test_A();
    test_matfree_w();
    test_sparse_vs_dense();
    test_lcp();
    test_drop();
    test_stack(CUBES_SOLVER_SPARSE);
    test_stack(CUBES_SOLVER_DENSE);
    test_unsolved_flag();
    test_switch();
    test_wall();
    static int big_done; /* the 1000-cube wall on the first backend only (test time) */
    if (!big_done++) test_wall_1000();
    texla_ctx_destroy(ctx);
    ctx = NULL;
}
