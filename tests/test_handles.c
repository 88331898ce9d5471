/* test_handles.c - a handle names one object of one context, through the public API.
 *
 * Another context's handle: two contexts make the same objects in the same order (so the
 * same slots: before handles carried their context, the first matrix of both had the same
 * handle). For every call of the API that takes a handle (the table below; check_handle_calls.py
 * checks against texla.h that none is missing), each handle position in turn gets the other
 * context's object while every other operand is the calling context's own: the call must
 * return TEXLA_ERR_HANDLE with a message saying "another texla context", write nothing into
 * the caller's buffers (they are filled with a sentinel first), change none of the calling
 * context's objects, and the same call with every operand its own must not fail with a
 * handle error (so the handle is what is refused). Destroying another context's object is
 * a no-op in both. At the end the other context's objects still hold their data.
 *
 * Stale handles: a few thousand make/destroy cycles of one slot through the public API; no
 * new handle ever equals an earlier one, every earlier handle is refused while an object
 * lives in that slot, and destroying one leaves it alive. (The 2^24 cycles that reach the
 * retirement of a slot run on the handle table alone: tests/unit/test_units.c.) */
#include "suites.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define N 6 /* every matrix is N x N or N x 1; every vector an NX x NY grid */
#define NX 2
#define NY 3

typedef struct objs {
    texla_ctx *ctx;
    texla_mat m[6];   /* N x N; m[0] symmetric positive definite (cg, lcp) */
    texla_mat col[6]; /* N x 1: lcp b, x, friction index (all -1), friction mu, a destination,
                         another x */
    texla_vec v[6];   /* NX x NY grid vectors */
    texla_scalar s[4];
    texla_banded b;
    texla_sparse sp;
    texla_lcp_workspace ws;
    texla_lcp_op_workspace ows; /* texla_lcp_jacobi_op's, for v[0]'s layout */
    texla_cg_workspace cws;     /* texla_cg's, for v[0]'s layout */
    float md[6][N * N], cd[6][N], vd[6][N], sd[4];
} objs;

/* the caller's buffers: each call's outputs go here, filled with SENTINEL before a call */
#define SENTINEL 0xA5
static unsigned char outbuf[4096];
static char dir[256];

/* from byte `from` on (a make call sets its out handle to 0 on failure: bytes 0..7) */
static int untouched(size_t from) {
    for (size_t i = from; i < sizeof outbuf; i++)
        if (outbuf[i] != SENTINEL) return 0;
    return 1;
}

static void make_objs(texla_ctx *ctx, objs *o, float salt) {
    memset(o, 0, sizeof *o);
    o->ctx = ctx;
    for (int k = 0; k < 6; k++) {
        check_fill(o->md[k], N * N);
        for (int i = 0; i < N * N; i++) o->md[k][i] += salt;
    }
    for (int i = 0; i < N; i++) /* m[0]: 8 I + a small symmetric part */
        for (int j = 0; j < N; j++)
            o->md[0][i * N + j] = i == j ? 8.0f : 0.1f * (float)((i + j) % 3);
    for (int k = 0; k < 6; k++) check_fill(o->cd[k], N);
    for (int i = 0; i < N; i++) o->cd[2][i] = -1.0f, o->cd[3][i] = 0.5f;
    for (int k = 0; k < 6; k++) check_fill(o->vd[k], N);
    for (int i = 0; i < N; i++) o->vd[4][i] = -1.0f; /* as friction indices: normal rows */
    for (int k = 0; k < 4; k++) o->sd[k] = 1.5f + (float)k + salt;
    int ok = 1;
    for (int k = 0; k < 6; k++) ok &= CHECK_OK(ctx, texla_mat_make(ctx, N, N, o->md[k], &o->m[k]), "mat_make");
    for (int k = 0; k < 6; k++) ok &= CHECK_OK(ctx, texla_mat_make(ctx, N, 1, o->cd[k], &o->col[k]), "mat_make col");
    for (int k = 0; k < 6; k++)
        ok &= CHECK_OK(ctx, texla_vec_make_grid(ctx, NX, NY, o->vd[k], &o->v[k]), "vec_make_grid");
    for (int k = 0; k < 4; k++) ok &= CHECK_OK(ctx, texla_scalar_make(ctx, o->sd[k], &o->s[k]), "scalar_make");
    ok &= CHECK_OK(ctx, texla_banded_poisson(ctx, NX, NY, 1.0f, 0.5f, &o->b), "banded_poisson");
    static const int ri[] = {0, 1, 2, 5, 5}, ci[] = {0, 3, 2, 1, 5};
    static const float vv[] = {2, -1, 3, 0.5f, 4};
    ok &= CHECK_OK(ctx, texla_sparse_make_coo(ctx, o->v[0], o->v[0], 5, ri, ci, vv, &o->sp),
                   "sparse_make_coo");
    ok &= CHECK_OK(ctx, texla_lcp_workspace_make(ctx, N, &o->ws), "lcp_workspace_make");
    ok &= CHECK_OK(ctx, texla_lcp_op_workspace_make(ctx, o->v[0], &o->ows), "lcp_op_workspace_make");
    ok &= CHECK_OK(ctx, texla_cg_workspace_make(ctx, o->v[0], &o->cws), "cg_workspace_make");
    (void)ok;
}

/* the calling context's objects (O) with the other context's (F) at position pos */
#define P(field, p) (pos == (p) ? F->field : O->field)
#define OUTF ((float *)(void *)outbuf)
#define PATH(name) check_path(dir, name)

typedef texla_result (*call_fn)(texla_ctx *c, const objs *O, const objs *F, int pos);

/* ---- every call that takes a handle ---- */

static texla_result c_mat_write(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_mat_write(c, O->md[1], P(m[1], 0));
}
static texla_result c_mat_read(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_mat_read(c, P(m[1], 0), OUTF);
}
static texla_result c_mat_read_raw(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_mat_read_raw(c, P(m[1], 0), OUTF);
}
static texla_result c_mat_info_get(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_mat_info_get(c, P(m[1], 0), (texla_mat_info *)(void *)outbuf);
}
static texla_result c_vec_make_like(texla_ctx *c, const objs *O, const objs *F, int pos) {
    texla_vec *out = (texla_vec *)(void *)outbuf;
    texla_result r = texla_vec_make_like(c, P(v[1], 0), out);
    if (!r) texla_vec_destroy(c, *out);
    return r;
}
static texla_result c_vec_write(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_vec_write(c, O->vd[1], P(v[1], 0));
}
static texla_result c_vec_read(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_vec_read(c, P(v[1], 0), OUTF);
}
static texla_result c_vec_read_raw(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_vec_read_raw(c, P(v[1], 0), OUTF);
}
static texla_result c_vec_info_get(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_vec_info_get(c, P(v[1], 0), (texla_vec_info *)(void *)outbuf);
}
static texla_result c_vec_splat(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_vec_splat(c, 1.0f, 1.0f, 1.0f, 0.5f, P(v[5], 0));
}
static texla_result c_vec_from_mat(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_vec_from_mat(c, P(col[0], 0), P(v[5], 1));
}
static texla_result c_mat_from_vec(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_mat_from_vec(c, P(v[0], 0), P(col[4], 1));
}
static texla_result c_scalar_write(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_scalar_write(c, 2.5f, P(s[2], 0));
}
static texla_result c_scalar_read(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_scalar_read(c, P(s[0], 0), OUTF);
}
static texla_result c_scalar_read_start(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_scalar_read_start(c, P(s[0], 0));
}
static texla_result c_scalar_read_poll(texla_ctx *c, const objs *O, const objs *F, int pos) {
    texla_result r = texla_scalar_read_start(c, O->s[1]);
    if (r) return r;
    r = texla_scalar_read_poll(c, P(s[1], 0), OUTF);
    if (pos < 0) { /* the own call: take the result, so nothing is left pending */
        float v;
        while ((r = texla_scalar_read_poll(c, O->s[1], &v)) == TEXLA_ERR_NOT_READY) {}
        memset(outbuf, SENTINEL, sizeof outbuf);
    }
    return r;
}
static texla_result c_scalar_read_wait(texla_ctx *c, const objs *O, const objs *F, int pos) {
    texla_result r = texla_scalar_read_start(c, O->s[1]);
    if (r) return r;
    r = texla_scalar_read_wait(c, P(s[1], 0), OUTF);
    if (pos < 0) memset(outbuf, SENTINEL, sizeof outbuf);
    else { /* the foreign call failed: take the own read's result */
        float v;
        (void)texla_scalar_read_wait(c, O->s[1], &v);
    }
    return r;
}
#define SCALAR3(op)                                                                            \
    static texla_result c_scalar_##op(texla_ctx *c, const objs *O, const objs *F, int pos) {   \
        return texla_scalar_##op(c, P(s[0], 0), P(s[1], 1), P(s[2], 2));                      \
    }
SCALAR3(div)
SCALAR3(div_or_zero)
SCALAR3(mul)
SCALAR3(sub)
static texla_result c_scalar_neg(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_scalar_neg(c, P(s[0], 0), P(s[2], 1));
}

/* element-wise operations and reductions, for T = mat (N x N) and vec; X the object array */
#define EW(T, X)                                                                               \
    static texla_result c_##T##_fill(texla_ctx *c, const objs *O, const objs *F, int pos) {    \
        return texla_##T##_fill(c, texla_gpu(2.0f, P(s[0], 0)), P(X[5], 1));                  \
    }                                                                                          \
    static texla_result c_##T##_copy(texla_ctx *c, const objs *O, const objs *F, int pos) {    \
        return texla_##T##_copy(c, P(X[0], 0), P(X[5], 1));                                    \
    }                                                                                          \
    static texla_result c_##T##_add(texla_ctx *c, const objs *O, const objs *F, int pos) {     \
        return texla_##T##_add(c, P(X[0], 0), P(X[1], 1), P(X[5], 2));                         \
    }                                                                                          \
    static texla_result c_##T##_sub(texla_ctx *c, const objs *O, const objs *F, int pos) {     \
        return texla_##T##_sub(c, P(X[0], 0), P(X[1], 1), P(X[5], 2));                         \
    }                                                                                          \
    static texla_result c_##T##_mul(texla_ctx *c, const objs *O, const objs *F, int pos) {     \
        return texla_##T##_mul(c, P(X[0], 0), P(X[1], 1), P(X[5], 2));                         \
    }                                                                                          \
    static texla_result c_##T##_min(texla_ctx *c, const objs *O, const objs *F, int pos) {     \
        return texla_##T##_min(c, P(X[0], 0), P(X[1], 1), P(X[5], 2));                         \
    }                                                                                          \
    static texla_result c_##T##_max(texla_ctx *c, const objs *O, const objs *F, int pos) {     \
        return texla_##T##_max(c, P(X[0], 0), P(X[1], 1), P(X[5], 2));                         \
    }                                                                                          \
    static texla_result c_##T##_abs(texla_ctx *c, const objs *O, const objs *F, int pos) {     \
        return texla_##T##_abs(c, P(X[0], 0), P(X[5], 1));                                     \
    }                                                                                          \
    static texla_result c_##T##_scale(texla_ctx *c, const objs *O, const objs *F, int pos) {   \
        return texla_##T##_scale(c, P(X[0], 0), texla_gpu(0.5f, P(s[0], 1)), P(X[5], 2));      \
    }                                                                                          \
    static texla_result c_##T##_axpy(texla_ctx *c, const objs *O, const objs *F, int pos) {    \
        return texla_##T##_axpy(c, P(X[0], 0), texla_gpu(0.5f, P(s[0], 1)), P(X[1], 2),        \
                                P(X[5], 3));                                                   \
    }                                                                                          \
    static texla_result c_##T##_madad(texla_ctx *c, const objs *O, const objs *F, int pos) {   \
        return texla_##T##_madad(c, P(X[0], 0), P(X[1], 1), P(X[2], 2), P(X[3], 3),            \
                                 P(X[5], 4));                                                  \
    }                                                                                          \
    static texla_result c_##T##_clamp_min(texla_ctx *c, const objs *O, const objs *F,          \
                                          int pos) {                                           \
        return texla_##T##_clamp_min(c, P(X[0], 0), 0.0f, P(X[5], 1));                         \
    }                                                                                          \
    static texla_result c_##T##_clamp(texla_ctx *c, const objs *O, const objs *F, int pos) {   \
        return texla_##T##_clamp(c, P(X[0], 0), -0.5f, 0.5f, P(X[5], 1));                      \
    }                                                                                          \
    static texla_result c_##T##_recip(texla_ctx *c, const objs *O, const objs *F, int pos) {   \
        return texla_##T##_recip(c, P(X[0], 0), 1.0f, P(X[5], 1));                             \
    }                                                                                          \
    static texla_result c_##T##_acc(texla_ctx *c, const objs *O, const objs *F, int pos) {     \
        return texla_##T##_acc(c, texla_gpu(0.25f, P(s[0], 0)), P(X[1], 1), P(X[5], 2));       \
    }                                                                                          \
    static texla_result c_##T##_acc_mul(texla_ctx *c, const objs *O, const objs *F, int pos) { \
        return texla_##T##_acc_mul(c, P(X[0], 0), P(X[1], 1), P(X[5], 2));                     \
    }                                                                                          \
    static texla_result c_##T##_rescale(texla_ctx *c, const objs *O, const objs *F, int pos) { \
        return texla_##T##_rescale(c, 0.5f, P(X[5], 0));                                       \
    }                                                                                          \
    static texla_result c_##T##_sum(texla_ctx *c, const objs *O, const objs *F, int pos) {     \
        return texla_##T##_sum(c, P(X[0], 0), P(s[2], 1));                                     \
    }                                                                                          \
    static texla_result c_##T##_dot(texla_ctx *c, const objs *O, const objs *F, int pos) {     \
        return texla_##T##_dot(c, P(X[0], 0), P(X[1], 1), P(s[2], 2));                         \
    }                                                                                          \
    static texla_result c_##T##_sqnorm(texla_ctx *c, const objs *O, const objs *F, int pos) {  \
        return texla_##T##_sqnorm(c, P(X[0], 0), P(s[2], 1));                                  \
    }                                                                                          \
    static texla_result c_##T##_maxval(texla_ctx *c, const objs *O, const objs *F, int pos) {  \
        return texla_##T##_maxval(c, P(X[0], 0), P(s[2], 1));                                  \
    }                                                                                          \
    static texla_result c_##T##_minval(texla_ctx *c, const objs *O, const objs *F, int pos) {  \
        return texla_##T##_minval(c, P(X[0], 0), P(s[2], 1));                                  \
    }                                                                                          \
    static texla_result c_##T##_maxabs(texla_ctx *c, const objs *O, const objs *F, int pos) {  \
        return texla_##T##_maxabs(c, P(X[0], 0), P(s[2], 1));                                  \
    }
EW(mat, m)
EW(vec, v)

static texla_result c_mat_matmul(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_mat_matmul(c, P(m[0], 0), P(m[1], 1), P(m[5], 2));
}
static texla_result c_mat_matmul_tn(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_mat_matmul_tn(c, P(m[0], 0), P(m[1], 1), P(m[5], 2));
}
static texla_result c_mat_matmul_nt(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_mat_matmul_nt(c, P(m[0], 0), P(m[1], 1), P(m[5], 2));
}
static texla_result c_mat_diag(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_mat_diag(c, P(m[0], 0), P(col[4], 1));
}
static texla_result c_mat_matvec(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_mat_matvec(c, P(m[0], 0), P(v[0], 1), P(v[5], 2));
}
static texla_result c_banded_make(texla_ctx *c, const objs *O, const objs *F, int pos) {
    static const int off[2] = {0, 1};
    float d[2 * N];
    for (int i = 0; i < 2 * N; i++) d[i] = (float)i;
    texla_banded *out = (texla_banded *)(void *)outbuf;
    texla_result r = texla_banded_make(c, P(v[0], 0), 2, off, d, out);
    if (!r) texla_banded_destroy(c, *out), memset(outbuf, SENTINEL, sizeof outbuf);
    return r;
}
static texla_result c_banded_matvec(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_banded_matvec(c, P(b, 0), P(v[0], 1), P(v[5], 2));
}
static texla_result c_banded_matvec_add(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_banded_matvec_add(c, P(b, 0), P(v[0], 1), 0.5f, P(v[1], 2), P(v[5], 3));
}
static texla_result c_sparse_make_coo(texla_ctx *c, const objs *O, const objs *F, int pos) {
    static const int ri[] = {0, 5}, ci[] = {1, 2};
    static const float vv[] = {1, 2};
    texla_sparse *out = (texla_sparse *)(void *)outbuf;
    texla_result r = texla_sparse_make_coo(c, P(v[0], 0), P(v[1], 1), 2, ri, ci, vv, out);
    if (!r) texla_sparse_destroy(c, *out), memset(outbuf, SENTINEL, sizeof outbuf);
    return r;
}
static texla_result c_sparse_make_csr(texla_ctx *c, const objs *O, const objs *F, int pos) {
    static const int rp[] = {0, 1, 1, 1, 1, 1, 2}, ci[] = {1, 2};
    static const float vv[] = {1, 2};
    texla_sparse *out = (texla_sparse *)(void *)outbuf;
    texla_result r = texla_sparse_make_csr(c, P(v[0], 0), P(v[1], 1), rp, ci, vv, out);
    if (!r) texla_sparse_destroy(c, *out), memset(outbuf, SENTINEL, sizeof outbuf);
    return r;
}
static texla_result c_sparse_matvec(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_sparse_matvec(c, P(sp, 0), P(v[0], 1), P(v[5], 2));
}
/* operators: op_kind 0 dense, 1 banded, 2 sparse */
static texla_op op_of(const objs *o, int kind) {
    return kind == 0 ? texla_op_dense(o->m[0]) : kind == 1 ? texla_op_banded(o->b)
                                                           : texla_op_sparse(o->sp);
}
#define OPS(k)                                                                                 \
    static texla_result c_op_matvec_##k(texla_ctx *c, const objs *O, const objs *F, int pos) { \
        return texla_op_matvec(c, op_of(pos == 0 ? F : O, k), P(v[0], 1), P(v[5], 2));         \
    }                                                                                          \
    static texla_result c_op_shape_##k(texla_ctx *c, const objs *O, const objs *F, int pos) {  \
        int *rc = (int *)(void *)outbuf;                                                       \
        return texla_op_shape(c, op_of(pos == 0 ? F : O, k), &rc[0], &rc[1]);                  \
    }                                                                                          \
    static texla_result c_cg_##k(texla_ctx *c, const objs *O, const objs *F, int pos) {        \
        texla_cg_desc d = {.max_iter = 2};                                                     \
        return texla_cg(c, op_of(pos == 0 ? F : O, k), P(v[1], 1), &d, P(v[5], 2),             \
                        (texla_cg_result *)(void *)outbuf);                                    \
    }
OPS(0)
OPS(1)
OPS(2)
static texla_result c_lcp_project(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_lcp_project(c, P(col[0], 0), P(col[2], 1), P(col[3], 2), P(col[4], 3));
}
/* positions: a, b, x, friction_index, friction_mu, the workspace's four matrices */
static texla_result c_lcp_jacobi(texla_ctx *c, const objs *O, const objs *F, int pos) {
    texla_lcp_workspace ws = O->ws;
    for (int k = 0; k < 4; k++)
        if (pos == 5 + k) ws.m[k] = F->ws.m[k];
    texla_lcp_desc d = {.iterations = 3, .omega = 1.0f, .friction_index = P(col[2], 3),
                        .friction_mu = P(col[3], 4), .workspace = &ws};
    return texla_lcp_jacobi(c, P(m[0], 0), P(col[0], 1), &d, P(col[1], 2),
                            (texla_lcp_result *)(void *)outbuf);
}
#define PNGC(T, X)                                                                             \
    static texla_result c_png_##T(texla_ctx *c, const objs *O, const objs *F, int pos) {       \
        return texla_png_##T(c, P(X, 0), PATH("h.png"), NULL);                                 \
    }
PNGC(mat, m[0])
PNGC(vec, v[0])
PNGC(scalar, s[0])
PNGC(banded, b)
PNGC(sparse, sp)

/* the compute kernels' calls (fragment passes on the fragment backend) */
static texla_result c_mat_matmul_acc(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_mat_matmul_acc(c, P(m[0], 0), P(m[1], 1), TEXLA_MATMUL_TA, P(m[5], 2));
}
static texla_result c_mat_matvec_add(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_mat_matvec_add(c, P(m[0], 0), P(v[0], 1), 0.5f, P(v[1], 2), P(v[5], 3));
}
#define OPDOT(k)                                                                               \
    static texla_result c_op_matvec_dot_##k(texla_ctx *c, const objs *O, const objs *F,        \
                                            int pos) {                                         \
        return texla_op_matvec_dot(c, op_of(pos == 0 ? F : O, k), P(v[0], 1), P(v[5], 2),      \
                                   P(s[2], 3));                                                \
    }
OPDOT(0)
OPDOT(1)
OPDOT(2)
static texla_result c_vec_cg_update(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_vec_cg_update(c, P(s[0], 0), P(s[1], 1), P(v[0], 2), P(v[1], 3), P(v[2], 4),
                               P(v[3], 5), P(s[2], 6), P(s[3], 7));
}
static texla_result c_lcp_step(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_lcp_step(c, P(m[0], 0), P(col[0], 1), P(col[1], 2), P(col[5], 3), P(col[2], 4),
                          P(col[3], 5), P(col[4], 6));
}

/* the sparse engine's calls and complex vectors and scalars */
static texla_result c_sparse_make(texla_ctx *c, const objs *O, const objs *F, int pos) {
    static const int ri[] = {0, 5}, ci[] = {1, 2};
    static const float vv[] = {1, 2};
    texla_sparse_desc d = {.row_like = P(v[0], 0), .col_like = P(v[1], 1), .nnz = 2,
                           .row_idx = ri, .col_idx = ci, .vals = vv};
    texla_sparse *out = (texla_sparse *)(void *)outbuf;
    texla_result r = texla_sparse_make(c, &d, out);
    if (!r) texla_sparse_destroy(c, *out), memset(outbuf, SENTINEL, sizeof outbuf);
    return r;
}
static texla_result c_sparse_matvec_add(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_sparse_matvec_add(c, P(sp, 0), P(v[0], 1), 0.5f, P(v[5], 2));
}
static texla_result c_sparse_matvec_t(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_sparse_matvec_t(c, P(sp, 0), P(v[0], 1), P(v[5], 2));
}
static texla_result c_sparse_tune(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_sparse_tune(c, P(sp, 0), NULL);
}
static texla_result c_sparse_pin(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_sparse_pin(c, P(sp, 0), TEXLA_SPARSE_N, NULL);
}
static texla_result c_sparse_info_get(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_sparse_info_get(c, P(sp, 0), (texla_sparse_info *)(void *)outbuf);
}
static texla_result c_cvec_mul(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_cvec_mul(c, P(v[0], 0), P(v[1], 1), 1, P(v[5], 2));
}
static texla_result c_cvec_axpy(texla_ctx *c, const objs *O, const objs *F, int pos) {
    texla_ccoef k = {0.5f, -0.25f, P(s[0], 1)};
    return texla_cvec_axpy(c, P(v[0], 0), k, P(v[1], 2), P(v[5], 3));
}
static texla_result c_cvec_dot(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_cvec_dot(c, P(v[0], 0), P(v[1], 1), P(s[2], 2));
}
static texla_result c_cscalar_div(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_cscalar_div(c, P(s[0], 0), P(s[1], 1), P(s[2], 2));
}
static texla_result c_cscalar_mul(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_cscalar_mul(c, P(s[0], 0), P(s[1], 1), P(s[2], 2));
}
static texla_result c_scalar_read_complex(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_scalar_read_complex(c, P(s[0], 0), OUTF);
}
static texla_result c_scalar_write_complex(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_scalar_write_complex(c, 1.0f, -2.0f, P(s[2], 0));
}

/* matrix-free LCPs: a failed make leaves its out zero (checked here, on a local) */
static texla_result c_op_product(texla_ctx *c, const objs *O, const objs *F, int pos) {
    texla_op o = {(texla_op_kind)7, 7};
    texla_result r = texla_op_product(c, op_of(pos == 0 ? F : O, 2), op_of(pos == 1 ? F : O, 2),
                                      P(v[2], 2), &o);
    if (!r) texla_op_destroy(c, o);
    else if (o.id != 0 || o.kind != 0) outbuf[0] ^= 1; /* untouched() reports it */
    return r;
}
static texla_result c_op_writes(texla_ctx *c, const objs *O, const objs *F, int pos) {
    int w = 0;
    return texla_op_writes(c, op_of(pos == 0 ? F : O, 2), P(v[2], 1), &w);
}
static texla_result c_vec_lcp_step(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_vec_lcp_step(c, P(v[0], 0), P(v[1], 1), P(v[2], 2), P(v[3], 3), P(v[4], 4),
                              P(v[3], 5), P(v[5], 6));
}
static texla_result c_op_lcp_step(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_op_lcp_step(c, op_of(pos == 0 ? F : O, 2), P(v[0], 1), P(v[1], 2), P(v[2], 3),
                             P(v[4], 4), P(v[2], 5), P(v[3], 6), P(v[5], 7));
}
static texla_result c_op_lcp_iterate(texla_ctx *c, const objs *O, const objs *F, int pos) {
    return texla_op_lcp_iterate(c, op_of(pos == 0 ? F : O, 2), P(v[1], 1), P(v[2], 2),
                                P(v[4], 3), P(v[2], 4), 2, P(v[3], 5), P(v[5], 6), P(v[0], 7));
}
static texla_result c_lcp_op_workspace_make(texla_ctx *c, const objs *O, const objs *F, int pos) {
    texla_lcp_op_workspace w;
    memset(&w, 0x5A, sizeof w);
    texla_result r = texla_lcp_op_workspace_make(c, P(v[0], 0), &w);
    if (!r) texla_lcp_op_workspace_destroy(c, &w);
    else if (w.v[0].id || w.v[1].id || w.v[2].id) outbuf[0] ^= 1;
    return r;
}
static texla_result c_lcp_jacobi_op(texla_ctx *c, const objs *O, const objs *F, int pos) {
    texla_lcp_op_workspace ws = O->ows;
    for (int k = 0; k < 3; k++)
        if (pos == 5 + k) ws.v[k] = F->ows.v[k];
    texla_lcp_op_desc d = {.iterations = 2, .omega = 0.5f, .diag = P(v[2], 2),
                           .friction_index = P(v[4], 3), .friction_mu = P(v[3], 4),
                           .workspace = &ws};
    return texla_lcp_jacobi_op(c, op_of(pos == 0 ? F : O, 2), P(v[1], 1), &d, P(v[5], 8),
                               (texla_lcp_result *)(void *)outbuf);
}

static texla_result c_cg_workspace_make(texla_ctx *c, const objs *O, const objs *F, int pos) {
    texla_cg_workspace w;
    memset(&w, 0x5A, sizeof w);
    texla_result r = texla_cg_workspace_make(c, P(v[0], 0), &w);
    if (!r) texla_cg_workspace_destroy(c, &w);
    else if (w.v[0].id || w.s[0].id) outbuf[0] ^= 1;
    return r;
}
/* texla_cg with a workspace: another context's object in each of its 11 places */
static texla_result c_cg_ws(texla_ctx *c, const objs *O, const objs *F, int pos) {
    texla_cg_workspace ws = O->cws;
    for (int k = 0; k < 6; k++)
        if (pos == k) ws.v[k] = F->cws.v[k];
    for (int k = 0; k < 5; k++)
        if (pos == 6 + k) ws.s[k] = F->cws.s[k];
    texla_cg_desc d = {.max_iter = 2, .workspace = &ws};
    return texla_cg(c, texla_op_banded(O->b), O->v[1], &d, O->v[5],
                    (texla_cg_result *)(void *)outbuf);
}

typedef struct call {
    const char *name; /* the API function (check_handle_calls.py reads these) */
    call_fn fn;
    int npos;         /* handle positions */
    int writes_file;  /* h.png */
    int makes;        /* its out handle (at outbuf) is set to 0 when it fails */
} call;

#define EWROWS(T)                                                                              \
    {"texla_" #T "_fill", c_##T##_fill, 2, 0, 0}, {"texla_" #T "_copy", c_##T##_copy, 2, 0, 0},     \
        {"texla_" #T "_add", c_##T##_add, 3, 0, 0}, {"texla_" #T "_sub", c_##T##_sub, 3, 0, 0},     \
        {"texla_" #T "_mul", c_##T##_mul, 3, 0, 0}, {"texla_" #T "_min", c_##T##_min, 3, 0, 0},     \
        {"texla_" #T "_max", c_##T##_max, 3, 0, 0}, {"texla_" #T "_abs", c_##T##_abs, 2, 0, 0},     \
        {"texla_" #T "_scale", c_##T##_scale, 3, 0, 0}, {"texla_" #T "_axpy", c_##T##_axpy, 4, 0, 0}, \
        {"texla_" #T "_madad", c_##T##_madad, 5, 0, 0},                                           \
        {"texla_" #T "_clamp_min", c_##T##_clamp_min, 2, 0, 0},                                   \
        {"texla_" #T "_clamp", c_##T##_clamp, 2, 0, 0}, {"texla_" #T "_recip", c_##T##_recip, 2, 0, 0}, \
        {"texla_" #T "_acc", c_##T##_acc, 3, 0, 0}, {"texla_" #T "_acc_mul", c_##T##_acc_mul, 3, 0, 0}, \
        {"texla_" #T "_rescale", c_##T##_rescale, 1, 0, 0}, {"texla_" #T "_sum", c_##T##_sum, 2, 0, 0}, \
        {"texla_" #T "_dot", c_##T##_dot, 3, 0, 0}, {"texla_" #T "_sqnorm", c_##T##_sqnorm, 2, 0, 0}, \
        {"texla_" #T "_maxval", c_##T##_maxval, 2, 0, 0},                                         \
        {"texla_" #T "_minval", c_##T##_minval, 2, 0, 0},                                         \
        {"texla_" #T "_maxabs", c_##T##_maxabs, 2, 0, 0}

static const call calls[] = {
    {"texla_mat_write", c_mat_write, 1, 0, 0},
    {"texla_mat_read", c_mat_read, 1, 0, 0},
    {"texla_mat_read_raw", c_mat_read_raw, 1, 0, 0},
    {"texla_mat_info_get", c_mat_info_get, 1, 0, 0},
    {"texla_vec_make_like", c_vec_make_like, 1, 0, 1},
    {"texla_vec_write", c_vec_write, 1, 0, 0},
    {"texla_vec_read", c_vec_read, 1, 0, 0},
    {"texla_vec_read_raw", c_vec_read_raw, 1, 0, 0},
    {"texla_vec_info_get", c_vec_info_get, 1, 0, 0},
    {"texla_vec_splat", c_vec_splat, 1, 0, 0},
    {"texla_vec_from_mat", c_vec_from_mat, 2, 0, 0},
    {"texla_mat_from_vec", c_mat_from_vec, 2, 0, 0},
    {"texla_scalar_write", c_scalar_write, 1, 0, 0},
    {"texla_scalar_read", c_scalar_read, 1, 0, 0},
    {"texla_scalar_read_start", c_scalar_read_start, 1, 0, 0},
    {"texla_scalar_read_poll", c_scalar_read_poll, 1, 0, 0},
    {"texla_scalar_read_wait", c_scalar_read_wait, 1, 0, 0},
    {"texla_scalar_div", c_scalar_div, 3, 0, 0},
    {"texla_scalar_div_or_zero", c_scalar_div_or_zero, 3, 0, 0},
    {"texla_scalar_mul", c_scalar_mul, 3, 0, 0},
    {"texla_scalar_sub", c_scalar_sub, 3, 0, 0},
    {"texla_scalar_neg", c_scalar_neg, 2, 0, 0},
    EWROWS(mat),
    EWROWS(vec),
    {"texla_mat_matmul", c_mat_matmul, 3, 0, 0},
    {"texla_mat_matmul_tn", c_mat_matmul_tn, 3, 0, 0},
    {"texla_mat_matmul_nt", c_mat_matmul_nt, 3, 0, 0},
    {"texla_mat_diag", c_mat_diag, 2, 0, 0},
    {"texla_mat_matvec", c_mat_matvec, 3, 0, 0},
    {"texla_banded_make", c_banded_make, 1, 0, 1},
    {"texla_banded_matvec", c_banded_matvec, 3, 0, 0},
    {"texla_banded_matvec_add", c_banded_matvec_add, 4, 0, 0},
    {"texla_sparse_make_coo", c_sparse_make_coo, 2, 0, 1},
    {"texla_sparse_make_csr", c_sparse_make_csr, 2, 0, 1},
    {"texla_sparse_matvec", c_sparse_matvec, 3, 0, 0},
    {"texla_op_matvec (dense)", c_op_matvec_0, 3, 0, 0},
    {"texla_op_matvec (banded)", c_op_matvec_1, 3, 0, 0},
    {"texla_op_matvec (sparse)", c_op_matvec_2, 3, 0, 0},
    {"texla_op_shape (dense)", c_op_shape_0, 1, 0, 0},
    {"texla_op_shape (banded)", c_op_shape_1, 1, 0, 0},
    {"texla_op_shape (sparse)", c_op_shape_2, 1, 0, 0},
    {"texla_cg (dense)", c_cg_0, 3, 0, 0},
    {"texla_cg (banded)", c_cg_1, 3, 0, 0},
    {"texla_cg (sparse)", c_cg_2, 3, 0, 0},
    {"texla_lcp_project", c_lcp_project, 4, 0, 0},
    {"texla_lcp_jacobi", c_lcp_jacobi, 9, 0, 0},
    {"texla_png_mat", c_png_mat, 1, 1, 0},
    {"texla_png_vec", c_png_vec, 1, 1, 0},
    {"texla_png_scalar", c_png_scalar, 1, 1, 0},
    {"texla_png_banded", c_png_banded, 1, 1, 0},
    {"texla_png_sparse", c_png_sparse, 1, 1, 0},
    {"texla_mat_matmul_acc", c_mat_matmul_acc, 3, 0, 0},
    {"texla_mat_matvec_add", c_mat_matvec_add, 4, 0, 0},
    {"texla_op_matvec_dot (dense)", c_op_matvec_dot_0, 4, 0, 0},
    {"texla_op_matvec_dot (banded)", c_op_matvec_dot_1, 4, 0, 0},
    {"texla_op_matvec_dot (sparse)", c_op_matvec_dot_2, 4, 0, 0},
    {"texla_vec_cg_update", c_vec_cg_update, 8, 0, 0},
    {"texla_lcp_step", c_lcp_step, 7, 0, 0},
    {"texla_sparse_make", c_sparse_make, 2, 0, 1},
    {"texla_sparse_matvec_add", c_sparse_matvec_add, 3, 0, 0},
    {"texla_sparse_matvec_t", c_sparse_matvec_t, 3, 0, 0},
    {"texla_sparse_tune", c_sparse_tune, 1, 0, 0},
    {"texla_sparse_pin", c_sparse_pin, 1, 0, 0},
    {"texla_sparse_info_get", c_sparse_info_get, 1, 0, 0},
    {"texla_cvec_mul", c_cvec_mul, 3, 0, 0},
    {"texla_cvec_axpy", c_cvec_axpy, 4, 0, 0},
    {"texla_cvec_dot", c_cvec_dot, 3, 0, 0},
    {"texla_cscalar_div", c_cscalar_div, 3, 0, 0},
    {"texla_cscalar_mul", c_cscalar_mul, 3, 0, 0},
    {"texla_scalar_read_complex", c_scalar_read_complex, 1, 0, 0},
    {"texla_scalar_write_complex", c_scalar_write_complex, 1, 0, 0},
    {"texla_op_product", c_op_product, 3, 0, 0},
    {"texla_op_writes", c_op_writes, 2, 0, 0},
    {"texla_vec_lcp_step", c_vec_lcp_step, 7, 0, 0},
    {"texla_op_lcp_step", c_op_lcp_step, 8, 0, 0},
    {"texla_op_lcp_iterate", c_op_lcp_iterate, 8, 0, 0},
    {"texla_lcp_op_workspace_make", c_lcp_op_workspace_make, 1, 0, 0},
    {"texla_lcp_jacobi_op", c_lcp_jacobi_op, 9, 0, 0},
    {"texla_cg_workspace_make", c_cg_workspace_make, 1, 0, 0},
    {"texla_cg (workspace)", c_cg_ws, 11, 0, 0},
};
/* the destroy calls are checked by test_destroy: texla_mat_destroy, texla_vec_destroy,
 * texla_scalar_destroy, texla_banded_destroy, texla_sparse_destroy,
 * texla_lcp_workspace_destroy, texla_lcp_op_workspace_destroy, texla_cg_workspace_destroy,
 * texla_op_destroy */

/* ---- snapshots of a context's objects ---- */

typedef struct snap {
    float m[6][N * N], col[6][N], v[6][N], s[4];
} snap;

static void take(const objs *o, snap *s) {
    for (int k = 0; k < 6; k++) texla_mat_read(o->ctx, o->m[k], s->m[k]);
    for (int k = 0; k < 6; k++) texla_mat_read(o->ctx, o->col[k], s->col[k]);
    for (int k = 0; k < 6; k++) texla_vec_read(o->ctx, o->v[k], s->v[k]);
    for (int k = 0; k < 4; k++) texla_scalar_read(o->ctx, o->s[k], &s->s[k]);
}

static int same(const snap *a, const snap *b) { return memcmp(a, b, sizeof *a) == 0; }

/* ---- the tests ---- */

static void test_foreign_calls(objs *own, objs *other) {
    texla_ctx *c = own->ctx;
    snap before, after;
    int refused = 0;
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        const call *k = &calls[i];
        /* the same call on its own objects is no handle error */
        memset(outbuf, SENTINEL, sizeof outbuf);
        texla_result r = k->fn(c, own, other, -1);
        CHECK(r != TEXLA_ERR_HANDLE, "%s with its own objects: %s (%s)", k->name,
              texla_result_name(r), texla_error_message(c));
        if (k->writes_file) unlink(PATH("h.png"));
        take(own, &before);
        for (int pos = 0; pos < k->npos; pos++) {
            memset(outbuf, SENTINEL, sizeof outbuf);
            r = k->fn(c, own, other, pos);
            const char *msg = texla_error_message(c);
            CHECK(r == TEXLA_ERR_HANDLE, "%s: another context's handle at position %d: %s (%s)",
                  k->name, pos, texla_result_name(r), msg);
            CHECK(strstr(msg, "another texla context") != NULL,
                  "%s: position %d: the message does not say whose handle it is: \"%s\"",
                  k->name, pos, msg);
            if (k->makes) {
                uint64_t id;
                memcpy(&id, outbuf, sizeof id);
                CHECK(id == 0, "%s: position %d: a failed make gave the handle %llx", k->name,
                      pos, (unsigned long long)id);
            }
            CHECK(untouched(k->makes ? sizeof(uint64_t) : 0),
                  "%s: position %d: the call wrote into the caller's buffer", k->name, pos);
            if (k->writes_file) {
                struct stat st;
                CHECK(stat(PATH("h.png"), &st) != 0, "%s: position %d: a file was written",
                      k->name, pos);
                unlink(PATH("h.png"));
            }
            refused += r == TEXLA_ERR_HANDLE;
            take(own, &after);
            CHECK(same(&before, &after),
                  "%s: position %d: the refused call changed the calling context's objects",
                  k->name, pos);
            before = after;
        }
    }
    printf("  %d calls with another context's handle refused (%zu functions and operator kinds)\n",
           refused, sizeof calls / sizeof calls[0]);
}

/* the case: the first matrix of two contexts; a read through the wrong one must not
 * write another (larger) matrix into the caller's buffer */
static void test_first_matrices(void) {
    texla_ctx *c1 = suite_ctx(NULL), *c2 = suite_ctx(NULL), *c3 = suite_ctx(NULL);
    if (!c1 || !c2 || !c3) return;
    float a6[6] = {1, 2, 3, 4, 5, 6}, b25[25] = {0};
    texla_mat a, b, d;
    CHECK_OK(c1, texla_mat_make(c1, 2, 3, a6, &a), "c1: 2 x 3");
    CHECK_OK(c2, texla_mat_make(c2, 5, 5, b25, &b), "c2: 5 x 5");
    CHECK_OK(c3, texla_mat_make(c3, 1, 1, NULL, &d), "c3: 1 x 1");
    CHECK(a.id != b.id && a.id != d.id && b.id != d.id,
          "the first matrices of three contexts share a handle: %llx %llx %llx",
          (unsigned long long)a.id, (unsigned long long)b.id, (unsigned long long)d.id);
    float buf[6 + 32];
    memset(buf, SENTINEL, sizeof buf);
    CHECK_CODE(c2, texla_mat_read(c2, a, buf), TEXLA_ERR_HANDLE, "texla_mat_read(c2, c1's 2 x 3)");
    int clean = 1;
    for (size_t i = 0; i < sizeof buf; i++) clean &= ((unsigned char *)buf)[i] == SENTINEL;
    CHECK(clean, "texla_mat_read through the wrong context wrote into the caller's buffer");
    /* a handle of a context that is gone names nothing in the others */
    texla_ctx_destroy(c3);
    CHECK_CODE(c2, texla_mat_read(c2, d, buf), TEXLA_ERR_HANDLE, "a destroyed context's handle");
    CHECK_CODE(c1, texla_mat_read(c1, d, buf), TEXLA_ERR_HANDLE, "a destroyed context's handle");
    float back[6];
    CHECK_OK(c1, texla_mat_read(c1, a, back), "c1 reads its own matrix");
    CHECK(memcmp(back, a6, sizeof a6) == 0, "c1's matrix changed");
    texla_ctx_destroy(c2);
    texla_ctx_destroy(c1);
}

static uint64_t textures_of(texla_ctx *c) {
    texla_stats st;
    return texla_ctx_stats(c, &st) ? 0 : st.textures;
}

/* destroying another context's object is a no-op in both contexts */
static void test_destroy(objs *own, objs *other) {
    texla_ctx *c = own->ctx, *o = other->ctx;
    uint64_t t_own = textures_of(c), t_other = textures_of(o);
    texla_mat_destroy(c, other->m[0]);
    texla_mat_destroy(c, other->col[0]);
    texla_vec_destroy(c, other->v[0]);
    texla_scalar_destroy(c, other->s[0]);
    texla_banded_destroy(c, other->b);
    texla_sparse_destroy(c, other->sp);
    texla_lcp_workspace ws = other->ws;
    texla_lcp_workspace_destroy(c, &ws);
    texla_lcp_op_workspace ows = other->ows;
    texla_lcp_op_workspace_destroy(c, &ows);
    texla_cg_workspace cws = other->cws;
    texla_cg_workspace_destroy(c, &cws);
    CHECK(textures_of(c) == t_own && textures_of(o) == t_other,
          "destroying another context's objects freed textures (%llu -> %llu here, %llu -> %llu "
          "there)", (unsigned long long)t_own, (unsigned long long)textures_of(c),
          (unsigned long long)t_other, (unsigned long long)textures_of(o));
    /* both contexts' objects in those slots are alive */
    const objs *both[2] = {own, other};
    for (int i = 0; i < 2; i++) {
        const objs *x = both[i];
        texla_mat_info mi;
        texla_vec_info vi;
        float f;
        int r, k;
        CHECK_OK(x->ctx, texla_mat_info_get(x->ctx, x->m[0], &mi), "matrix alive");
        CHECK_OK(x->ctx, texla_mat_info_get(x->ctx, x->col[0], &mi), "matrix alive");
        CHECK_OK(x->ctx, texla_vec_info_get(x->ctx, x->v[0], &vi), "vector alive");
        CHECK_OK(x->ctx, texla_scalar_read(x->ctx, x->s[0], &f), "scalar alive");
        CHECK_OK(x->ctx, texla_op_shape(x->ctx, texla_op_banded(x->b), &r, &k), "banded alive");
        CHECK_OK(x->ctx, texla_op_shape(x->ctx, texla_op_sparse(x->sp), &r, &k), "sparse alive");
        for (int j = 0; j < 4; j++)
            CHECK_OK(x->ctx, texla_mat_info_get(x->ctx, x->ws.m[j], &mi), "workspace alive");
    }
}

/* the other context's objects hold what they were made with */
static void test_other_intact(const objs *o) {
    snap s;
    take(o, &s);
    int ok = 1;
    for (int k = 0; k < 6; k++) ok &= !memcmp(s.m[k], o->md[k], sizeof s.m[k]);
    for (int k = 0; k < 6; k++) ok &= !memcmp(s.col[k], o->cd[k], sizeof s.col[k]);
    for (int k = 0; k < 6; k++) ok &= !memcmp(s.v[k], o->vd[k], sizeof s.v[k]);
    for (int k = 0; k < 4; k++) ok &= s.s[k] == o->sd[k];
    CHECK(ok, "the other context's objects changed while another context was handed them");
}

#define CYCLES 3000

static void test_stale_cycles(void) {
    texla_ctx *c = suite_ctx(NULL);
    if (!c) return;
    uint64_t *ids = check_alloc(CYCLES, sizeof *ids);
    int distinct = 1, ok = 1;
    for (int i = 0; i < CYCLES && ok; i++) {
        texla_mat m;
        ok = texla_mat_make(c, 1, 1, NULL, &m) == TEXLA_OK;
        ids[i] = m.id;
        texla_mat_destroy(c, m);
    }
    CHECK(ok, "make/destroy cycle: %s", texla_error_message(c));
    /* one slot was reused every time: the handles differ only in their generation */
    for (int i = 1; i < CYCLES; i++) distinct &= ids[i] != ids[i - 1];
    CHECK(distinct, "a make/destroy cycle gave the handle of the cycle before");
    for (int i = 0; i < CYCLES && distinct; i++)
        for (int j = i + 1; j < CYCLES; j++)
            if (ids[i] == ids[j]) {
                distinct = 0;
                CHECK(0, "cycles %d and %d got the same handle %llx", i, j,
                      (unsigned long long)ids[i]);
                break;
            }
    float one = 7.0f, got = 0;
    texla_mat live;
    CHECK_OK(c, texla_mat_make(c, 1, 1, &one, &live), "the live matrix");
    int refused = 0, kept = 1;
    for (int i = 0; i < CYCLES; i++) {
        texla_mat stale = {ids[i]};
        texla_mat_info mi;
        refused += texla_mat_info_get(c, stale, &mi) == TEXLA_ERR_HANDLE;
        texla_mat_destroy(c, stale);
    }
    kept = texla_mat_read(c, live, &got) == TEXLA_OK && got == 7.0f;
    CHECK(refused == CYCLES, "%d of %d stale handles were refused", refused, CYCLES);
    CHECK(kept, "destroying stale handles destroyed or changed the live matrix in their slot");
    free(ids);
    texla_ctx_destroy(c);
}

void suite_handles(void) {
    if (!check_mkdtemp(dir, sizeof dir, "/tmp/texla-handles-XXXXXX")) return;
    test_first_matrices();
    texla_ctx_desc nocache = {.tune_cache = ""}; /* texla_sparse_tune writes none */
    texla_ctx *c1 = suite_ctx(&nocache), *c2 = suite_ctx(&nocache);
    if (c1 && c2) {
        objs *o1 = check_alloc(1, sizeof *o1), *o2 = check_alloc(1, sizeof *o2);
        make_objs(c1, o1, 0.25f);
        make_objs(c2, o2, -0.25f);
        CHECK(o1->m[0].id != o2->m[0].id, "two contexts gave one handle");
        test_foreign_calls(o2, o1); /* c2 is handed c1's objects; c1 itself is never called */
        test_other_intact(o1);
        test_destroy(o2, o1);
        free(o1), free(o2);
    }
    texla_ctx_destroy(c2);
    texla_ctx_destroy(c1);
    test_stale_cycles();
    check_rmdir_all(dir);
}
