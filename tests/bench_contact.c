/* bench_contact.c - texla-bench section "contact": the pieces of a falling-cubes-like contact
 * LCP solved matrix-free (issue 12), at the sizes of 240, 1000 and 4000 cubes: J (m x 6 nb,
 * 12 entries a row: each contact row touches two bodies, a tenth of them one body and the
 * ground), B = M^-1 J' (6 nb x m), the operator A = J B, and per piece the wall-clock time per
 * call (median of batches between glFinish calls) and the host's share (the time to issue a
 * batch of calls before the glFinish): when the two agree, the piece is bound by the host, not
 * by the GPU. Rows: a one-pass floor (a 1024-element vector copy), J x, B y, A x, one
 * texla_vec_lcp_step, one texla_op_lcp_step (the step with A x inside: fused kernels on the
 * compute backend) and texla_lcp_jacobi_op per iteration (96 iterations a call).
 *   texla-bench --backend compute --sections contact */
#include "bench.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glad/gl.h>

typedef struct cb {
    texla_ctx *ctx;
    int which;
    texla_sparse J, B;
    texla_op A;
    texla_vec x, b, d, fi, mu, v, w, y, s0, s1;
    texla_lcp_op_workspace ws;
} cb;

enum { C_FLOOR, C_J, C_B, C_A, C_STEP, C_OPSTEP, C_JACOBI };
#define JACOBI_ITERS 96

static int cb_op(void *arg) {
    cb *t = arg;
    switch (t->which) {
    case C_FLOOR: return texla_vec_copy(t->ctx, t->s0, t->s1);
    case C_J: return texla_sparse_matvec(t->ctx, t->J, t->v, t->w);
    case C_B: return texla_sparse_matvec(t->ctx, t->B, t->x, t->v);
    case C_A: return texla_op_matvec(t->ctx, t->A, t->x, t->w);
    case C_STEP: return texla_vec_lcp_step(t->ctx, t->x, t->w, t->b, t->d, t->fi, t->mu, t->y);
    case C_OPSTEP:
        return texla_op_lcp_step(t->ctx, t->A, t->x, t->b, t->d, t->fi, t->mu, t->w, t->y);
    case C_JACOBI: {
        texla_lcp_op_desc d = {.iterations = JACOBI_ITERS, .omega = 0.7f, .diag = t->d,
                               .friction_index = t->fi, .friction_mu = t->mu,
                               .workspace = &t->ws};
        return texla_lcp_jacobi_op(t->ctx, t->A, t->b, &d, t->x, NULL);
    }
    }
    return 1;
}

/* ms to issue n calls (no glFinish inside) */
static double issue_ms(cb *t, int n) {
    glFinish();
    double s = now_ms();
    for (int i = 0; i < n; i++) cb_op(t);
    double e = now_ms() - s;
    glFinish();
    return e / n;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double urand(void) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static void variant(texla_ctx *ctx, texla_sparse a, char *out, size_t n) {
    texla_sparse_info inf;
    char f[16] = "", s[16] = "", p[96] = "";
    if (!texla_sparse_info_get(ctx, a, &inf)) texla_sparse_variant_names(&inf.now[0], f, s, p);
    snprintf(out, n, "%s %s %s", f, s, p);
}

static void one_size(const bench_env *e, int cubes) {
    texla_ctx *ctx = e->ctx;
    int nb = cubes, k = 6 * nb, contacts = 4 * cubes, m = 3 * contacts;
    int *ptr = malloc(sizeof *ptr * ((size_t)m + 1)), *col = malloc(sizeof *col * 12u * m);
    int *brow = malloc(sizeof *brow * 12u * m), *bcol = malloc(sizeof *bcol * 12u * m);
    float *val = malloc(sizeof *val * 12u * m), *bval = malloc(sizeof *bval * 12u * m);
    float *hx = malloc(sizeof *hx * (size_t)m * 5), *hb = hx + m, *hd = hb + m, *hfi = hd + m,
          *hmu = hfi + m;
    if (!ptr || !col || !brow || !bcol || !val || !bval || !hx) {
        printf("contact: out of host memory\n");
        goto out;
    }
    int nz = 0;
    ptr[0] = 0;
    for (int c = 0; c < contacts; c++) {
        int a = (int)(urand() * nb), b = urand() < 0.1 ? -1 : (a + 1 + (int)(urand() * 20)) % nb;
        if (b == a) b = -1;
        for (int r3 = 0; r3 < 3; r3++) {
            int r = 3 * c + r3;
            int bodies[2] = {a, b};
            for (int q = 0; q < 2; q++)
                for (int j = 0; bodies[q] >= 0 && j < 6; j++) {
                    float v = (float)(urand() * 2 - 1);
                    col[nz] = 6 * bodies[q] + j, val[nz] = v;
                    brow[nz] = 6 * bodies[q] + j, bcol[nz] = r, bval[nz] = 0.5f * v;
                    nz++;
                }
            ptr[r + 1] = nz;
            hx[r] = 0, hb[r] = (float)(urand() - 0.7), hd[r] = 4.0f;
            hfi[r] = r3 ? (float)(3 * c) : -1.0f, hmu[r] = r3 ? 0.6f : 0.0f;
        }
    }
    cb t = {.ctx = ctx};
    texla_result r = texla_vec_make(ctx, m, hx, &t.x);
    if (!r) r = texla_vec_make(ctx, m, hb, &t.b);
    if (!r) r = texla_vec_make(ctx, m, hd, &t.d);
    if (!r) r = texla_vec_make(ctx, m, hfi, &t.fi);
    if (!r) r = texla_vec_make(ctx, m, hmu, &t.mu);
    if (!r) r = texla_vec_make(ctx, m, NULL, &t.w);
    if (!r) r = texla_vec_make(ctx, m, NULL, &t.y);
    if (!r) r = texla_vec_make(ctx, k, NULL, &t.v);
    if (!r) r = texla_vec_make(ctx, 1024, NULL, &t.s0);
    if (!r) r = texla_vec_make(ctx, 1024, NULL, &t.s1);
    double t0 = now_ms();
    if (!r) r = texla_sparse_make_csr(ctx, t.x, t.v, ptr, col, val, &t.J);
    double tj = now_ms() - t0;
    t0 = now_ms();
    if (!r) r = texla_sparse_make_coo(ctx, t.v, t.x, nz, brow, bcol, bval, &t.B);
    double tbm = now_ms() - t0;
    texla_vec mid = {0};
    if (!r) r = texla_vec_make(ctx, k, NULL, &mid);
    if (!r) r = texla_op_product(ctx, texla_op_sparse(t.J), texla_op_sparse(t.B), mid, &t.A);
    if (!r) r = texla_lcp_op_workspace_make(ctx, t.x, &t.ws);
    if (r) {
        printf("contact %d cubes: %s\n", cubes, texla_error_message(ctx));
    } else {
        char vj[160], vb[160], size[64];
        t.which = C_J, cb_op(&t);
        t.which = C_B, cb_op(&t);
        glFinish();
        variant(ctx, t.J, vj, sizeof vj);
        variant(ctx, t.B, vb, sizeof vb);
        printf("contact %d cubes: m %d rows, %d body DOFs, %d entries in J; make J %.2f ms, "
               "make B %.2f ms; J x: %s; B y: %s\n", cubes, m, k, nz, tj, tbm, vj, vb);
        static const char *const names[] = {"one pass (copy 1024)", "J x", "B y", "A x = J (B x)",
                                            "vec_lcp_step", "op_lcp_step (A x inside)",
                                            "lcp_jacobi_op / iteration"};
        for (int w = C_FLOOR; w <= C_JACOBI; w++) {
            t.which = w;
            double ms = time_op(cb_op, &t, e->batches);
            double is = issue_ms(&t, w == C_JACOBI ? 4 : 64);
            double per = w == C_JACOBI ? JACOBI_ITERS : 1;
            char lim[64];
            snprintf(lim, sizeof lim, "host issues in %.4f ms", is / per);
            snprintf(size, sizeof size, "%d cubes, m %d", cubes, m);
            row(names[w], size, ms / per, 0, 0, lim);
        }
    }
    texla_lcp_op_workspace_destroy(ctx, &t.ws);
    texla_op_destroy(ctx, t.A);
    texla_sparse_destroy(ctx, t.J);
    texla_sparse_destroy(ctx, t.B);
    texla_vec *vs[] = {&t.x, &t.b, &t.d, &t.fi, &t.mu, &t.v, &t.w, &t.y, &t.s0, &t.s1, &mid};
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) texla_vec_destroy(ctx, *vs[i]);
out:
    free(ptr), free(col), free(brow), free(bcol), free(val), free(bval), free(hx);
}

void bench_contact(const bench_env *e) {
    printf("\n## contact: a cubes-like contact LCP, matrix-free (J, B = M^-1 J' sparse)\n");
    int sizes[8] = {240, 1000, 4000}, n = e->soft ? 1 : 3;
    if (e->soft) sizes[0] = 60;
    /* CONTACT_CUBES=a,b,...: other sizes (cubes) */
    const char *env = getenv("CONTACT_CUBES");
    if (env && *env) n = parse_list(env, sizes, 8);
    for (int i = 0; i < n; i++) one_size(e, sizes[i]);
}
