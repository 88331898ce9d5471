/* bench_kernels.c - texla-bench section "kernels": the compute kernels on the workloads of
 * issue 11, in the table format of the other sections:
 *   products A B, A' B, A B' at 1024^3 and 4096^3 (the tuned path and tiles; TFLOP/s; then A B
 *   and A' B with each "gemm_path" forced: direct and via_nt), the dense
 *   matrix-vector product 8192^2 (n x 1 operands, and 2D vectors), dot products of 2^20 and
 *   2^24 elements and a 1024-element one into a GPU scalar, a CG iteration on a 2048^2 Poisson
 *   system (fixed iterations, no read-back), the banded 5-point product 2048^2 (the recognised
 *   stencil, and the same diagonals perturbed so the general kernel runs), a projected Jacobi
 *   iteration n = 1024, a wave-demo-like implicit step 1024^2 with 8 CG iterations; then a
 *   sweep timing EVERY gemm variant at 4096^3 and 1024^3, A B direct and A B' (the kernel the
 *   via_nt path runs), and every gemv variant at 8192^2,
 *   each checked on 64 sampled elements against float64 ("ok" / "WRONG").
 * On a software GL every size is scaled down. Run on its own:
 *   texla-bench --backend compute --sections kernels */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct kb {
    texla_ctx *ctx;
    texla_mat a, b, c, x, y;
    texla_vec va, vb, vc, vd;
    texla_scalar s;
    texla_banded band;
    int which, iters;
    float tol; /* CG: tolerance mode where > 0 */
    texla_op op;
    texla_cg_workspace *ws; /* CG: the caller's workspace, or NULL */
} kb;

enum { K_MM, K_MM_TN, K_MM_NT, K_GEMV, K_MATVEC, K_DOT, K_BANDED, K_CG, K_WAVE, K_LCP };

static int kb_op(void *arg) {
    kb *t = arg;
    switch (t->which) {
    case K_MM: return texla_mat_matmul(t->ctx, t->a, t->b, t->c);
    case K_MM_TN: return texla_mat_matmul_tn(t->ctx, t->a, t->b, t->c);
    case K_MM_NT: return texla_mat_matmul_nt(t->ctx, t->a, t->b, t->c);
    case K_GEMV: return texla_mat_matmul(t->ctx, t->a, t->x, t->y);
    case K_MATVEC: return texla_mat_matvec(t->ctx, t->a, t->va, t->vb);
    case K_DOT: return texla_vec_dot(t->ctx, t->va, t->vb, t->s);
    case K_BANDED: return texla_banded_matvec(t->ctx, t->band, t->va, t->vc);
    case K_CG: {
        texla_cg_desc d = {.max_iter = t->iters, .tol = t->tol, .workspace = t->ws};
        texla_cg_result r;
        if (t->tol > 0) { /* from x = 0 each time, and all max_iter iterations run */
            texla_result e = texla_vec_fill(t->ctx, texla_host(0.0f), t->vc);
            if (!e) e = texla_cg(t->ctx, t->op, t->va, &d, t->vc, &r);
            return e ? (int)e : r.stop == TEXLA_CG_MAX_ITER && r.iterations == t->iters ? 0 : -1;
        }
        return texla_cg(t->ctx, t->op, t->va, &d, t->vc, &r);
    }
    case K_WAVE: { /* the demo's implicit step: rhs = N prev + (2 - d) now, guess, 8 CG its */
        texla_result r = texla_banded_matvec_add(t->ctx, t->band, t->vb, 2.0f, t->va, t->vd);
        if (!r) r = texla_vec_scale(t->ctx, t->va, texla_host(2.0f), t->vc);
        if (!r) r = texla_vec_acc(t->ctx, texla_host(-1.0f), t->vb, t->vc);
        texla_cg_desc d = {.max_iter = t->iters, .workspace = t->ws};
        texla_cg_result res;
        if (!r) r = texla_cg(t->ctx, t->op, t->vd, &d, t->vc, &res);
        return r;
    }
    case K_LCP: {
        texla_lcp_desc d = {.iterations = t->iters};
        return texla_lcp_jacobi(t->ctx, t->a, t->x, &d, t->y, NULL);
    }
    }
    return 1;
}

static void fail(texla_ctx *ctx) { fprintf(stderr, "texla-bench: %s\n", texla_error_message(ctx)); }

/* the cached choice for a key of this device ("" when there is none) */
static const char *cached(texla_ctx *ctx, const char *key) {
    for (int i = 0; i < texla_tune_count(ctx); i++) {
        const char *k, *v;
        if (!texla_tune_entry(ctx, i, &k, &v) && !strcmp(k, key)) return v;
    }
    return "default (not tuned)";
}

/* 64 sampled elements of C = op(A) op(B) (A, B n x n row-major host copies) against float64:
 * "ok" when each is within gamma_n sum |a b| */
static const char *sample_check(texla_ctx *ctx, texla_mat c, int n, int form, const float *A,
                                const float *B) {
    float *got = malloc(sizeof *got * (size_t)n * n);
    if (!got || texla_mat_read(ctx, c, got)) {
        free(got);
        return "read failed";
    }
    int bad = 0;
    for (int s = 0; s < 64; s++) {
        int i = rand() % n, j = rand() % n;
        double v = 0, av = 0;
        for (int k = 0; k < n; k++) {
            double a = form == 1 ? A[(size_t)k * n + i] : A[(size_t)i * n + k];
            double b = form == 2 ? B[(size_t)j * n + k] : B[(size_t)k * n + j];
            v += a * b, av += fabs(a * b);
        }
        double g = n * 5.96e-8 / (1 - n * 5.96e-8);
        if (!(fabs(got[(size_t)i * n + j] - v) <= 1.01 * g * av)) bad++;
    }
    free(got);
    return bad ? "WRONG" : "ok";
}

static void products(const bench_env *e, int n) {
    kb t = {.ctx = e->ctx};
    float *A = rnd((size_t)n * n), *B = rnd((size_t)n * n);
    if (texla_mat_make(e->ctx, n, n, A, &t.a) || texla_mat_make(e->ctx, n, n, B, &t.b) ||
        texla_mat_make(e->ctx, n, n, NULL, &t.c)) {
        fail(e->ctx);
        free(A), free(B);
        return;
    }
    static const char *const names[3] = {"kernels matmul (A B)", "kernels matmul_tn (A'B)",
                                         "kernels matmul_nt (AB')"};
    static const char *const forms[3] = {"nn", "tn", "nt"};
    static const char *const paths[2] = {"direct", "via_nt"};
    char sz[48], lim[200], key[96], pkey[96], op[80], path[64];
    int cls = 16;
    while (cls < n && cls < 8192) cls *= 2;
    double fl = 2.0 * n * n * n;
    snprintf(sz, sizeof sz, "%d^3", n);
    /* the library's choice first (gemm_path tuned or defaulted, then its tiles), then A B and
     * A' B with each path forced: "direct" (the tiled kernel in that form) and "via_nt"
     * (transposed copies, then the A B' kernel; the copies are in the time) */
    for (int pin = -1; pin < 2; pin++) {
        for (int f = 0; f < 3; f++) {
            if (pin >= 0 && f == 2) continue; /* A B' has one path */
            if (pin >= 0 && texla_ctx_set_variant(e->ctx, "gemm_path", paths[pin])) {
                fail(e->ctx);
                continue;
            }
            t.which = K_MM + f;
            double ms = time_op(kb_op, &t, n >= 4096 ? 5 : e->batches);
            snprintf(pkey, sizeof pkey, "gemm_path 1 %s %d %d %d", forms[f], cls, cls, cls);
            snprintf(path, sizeof path, "%s",
                     f == 2 ? "direct" : pin >= 0 ? paths[pin] : cached(e->ctx, pkey));
            int via = !strcmp(path, "via_nt");
            snprintf(key, sizeof key, "gemm 1 %s %d %d %d", via ? "nt" : forms[f], cls, cls, cls);
            snprintf(lim, sizeof lim, "%.2f TFLOP/s; path %s%s; tiles %s; check %s",
                     ms > 0 ? fl / (ms * 1e9) : 0.0, path, pin >= 0 ? " (forced)" : "",
                     cached(e->ctx, key), sample_check(e->ctx, t.c, n, f, A, B));
            snprintf(op, sizeof op, "%s%s%s", names[f], pin >= 0 ? " " : "",
                     pin >= 0 ? paths[pin] : "");
            row(op, sz, ms, 0, fl, lim);
        }
    }
    texla_ctx_set_variant(e->ctx, "gemm_path", NULL);
    texla_mat_destroy(e->ctx, t.a), texla_mat_destroy(e->ctx, t.b), texla_mat_destroy(e->ctx, t.c);
    free(A), free(B);
}

/* every gemm variant at n^3, A B by the direct kernel (nt 0), or A B' (nt 1: the kernel A B
 * and A' B run via_nt) */
static void sweep_gemm(const bench_env *e, int n, int nt) {
    kb t = {.ctx = e->ctx, .which = nt ? K_MM_NT : K_MM};
    texla_ctx_set_variant(e->ctx, "gemm_path", "direct");
    float *A = rnd((size_t)n * n), *B = rnd((size_t)n * n);
    if (texla_mat_make(e->ctx, n, n, A, &t.a) || texla_mat_make(e->ctx, n, n, B, &t.b) ||
        texla_mat_make(e->ctx, n, n, NULL, &t.c)) {
        fail(e->ctx);
        free(A), free(B);
        return;
    }
    char op[64], sz[48], lim[160];
    double fl = 2.0 * n * n * n;
    for (int v = 0;; v++) {
        const char *name;
        if (texla_kernel_variant(e->ctx, "gemm", v, &name)) break;
        snprintf(op, sizeof op, "sweep gemm %s", name);
        snprintf(sz, sizeof sz, "%d^3 %s", n, nt ? "A B'" : "A B");
        if (texla_ctx_set_variant(e->ctx, "gemm", name)) {
            row(op, sz, -1, 0, fl, "not available on this GL (shared memory)");
            continue;
        }
        double ms = time_op(kb_op, &t, n >= 4096 ? 3 : e->batches);
        snprintf(lim, sizeof lim, "%.2f TFLOP/s; check %s", ms > 0 ? fl / (ms * 1e9) : 0.0,
                 ms > 0 ? sample_check(e->ctx, t.c, n, nt ? 2 : 0, A, B) : "-");
        row(op, sz, ms, 0, fl, lim);
    }
    texla_ctx_set_variant(e->ctx, "gemm", NULL);
    texla_ctx_set_variant(e->ctx, "gemm_path", NULL);
    texla_mat_destroy(e->ctx, t.a), texla_mat_destroy(e->ctx, t.b), texla_mat_destroy(e->ctx, t.c);
    free(A), free(B);
}

/* y = A x, n x n: dense n x 1 operands (one kernel), 2D vectors (kernel + conversion); sweep:
 * every gemv variant on the n x 1 form */
static void gemv(const bench_env *e, int n, int sweep) {
    kb t = {.ctx = e->ctx};
    float *A = rnd((size_t)n * n), *x = rnd((size_t)n);
    if (texla_mat_make(e->ctx, n, n, A, &t.a) || texla_mat_make(e->ctx, n, 1, x, &t.x) ||
        texla_mat_make(e->ctx, n, 1, NULL, &t.y) || texla_vec_make(e->ctx, n, x, &t.va) ||
        texla_vec_make(e->ctx, n, NULL, &t.vb)) {
        fail(e->ctx);
        free(A), free(x);
        return;
    }
    free(A), free(x);
    char sz[48], op[64], lim[96];
    double bytes = 4.0 * n * n + 8.0 * n;
    snprintf(sz, sizeof sz, "%d^2", n);
    if (!sweep) {
        char key[64];
        int cls = 16;
        while (cls < n && cls < 32768) cls *= 2;
        snprintf(key, sizeof key, "gemv 1 %d %d", cls, cls);
        t.which = K_GEMV;
        double ms = time_op(kb_op, &t, e->batches); /* the first call tunes (on a GPU) */
        snprintf(lim, sizeof lim, "memory: A once; %s", cached(e->ctx, key));
        row("kernels gemv (n x 1 operands)", sz, ms, bytes, 0, lim);
        t.which = K_MATVEC;
        row("kernels texla_mat_matvec (2D)", sz, time_op(kb_op, &t, e->batches), bytes, 0,
            "memory; + the conversion of y to 2D");
    } else {
        t.which = K_GEMV;
        for (int v = 0;; v++) {
            const char *name;
            if (texla_kernel_variant(e->ctx, "gemv", v, &name)) break;
            snprintf(op, sizeof op, "sweep gemv %s", name);
            if (texla_ctx_set_variant(e->ctx, "gemv", name)) {
                row(op, sz, -1, 0, 0, "not available on this GL");
                continue;
            }
            row(op, sz, time_op(kb_op, &t, e->batches), bytes, 0, "memory: A once");
        }
        texla_ctx_set_variant(e->ctx, "gemv", NULL);
    }
    texla_mat_destroy(e->ctx, t.a), texla_mat_destroy(e->ctx, t.x), texla_mat_destroy(e->ctx, t.y);
    texla_vec_destroy(e->ctx, t.va), texla_vec_destroy(e->ctx, t.vb);
}

static void dots(const bench_env *e, int n, const char *label) {
    kb t = {.ctx = e->ctx, .which = K_DOT};
    float *h = rnd((size_t)n);
    if (texla_vec_make(e->ctx, n, h, &t.va) || texla_vec_make(e->ctx, n, h, &t.vb) ||
        texla_scalar_make(e->ctx, 0, &t.s)) {
        fail(e->ctx);
        free(h);
        return;
    }
    free(h);
    char sz[48];
    snprintf(sz, sizeof sz, "n = %d", n);
    const char *def = NULL;
    texla_kernel_variant(e->ctx, "reduce", 0, &def);
    row(label, sz, time_op(kb_op, &t, e->batches), 8.0 * n, 0, "one kernel pass -> GPU scalar");
    /* each way of walking the texture, pinned */
    for (int v = 0;; v++) {
        const char *name;
        char op[96], lim[64];
        if (texla_kernel_variant(e->ctx, "reduce", v, &name)) break;
        if (texla_ctx_set_variant(e->ctx, "reduce", name)) continue;
        snprintf(op, sizeof op, "%s, %s", label, name);
        snprintf(lim, sizeof lim, "reduce variant %s (pinned)", name);
        row(op, sz, time_op(kb_op, &t, e->batches), 8.0 * n, 0, lim);
    }
    texla_ctx_set_variant(e->ctx, "reduce", NULL);
    (void)def;
    texla_vec_destroy(e->ctx, t.va), texla_vec_destroy(e->ctx, t.vb);
    texla_scalar_destroy(e->ctx, t.s);
}

/* grid vectors va (random), vb (random), vc, vd on n x n */
static int grid4(texla_ctx *ctx, int n, kb *t) {
    float *h = rnd((size_t)n * n);
    int r = texla_vec_make_grid(ctx, n, n, h, &t->va) || texla_vec_make_grid(ctx, n, n, h, &t->vb) ||
            texla_vec_make_grid(ctx, n, n, NULL, &t->vc) || texla_vec_make_grid(ctx, n, n, NULL, &t->vd);
    free(h);
    if (r) fail(ctx);
    return r;
}

static void free4(texla_ctx *ctx, kb *t) {
    texla_vec_destroy(ctx, t->va), texla_vec_destroy(ctx, t->vb);
    texla_vec_destroy(ctx, t->vc), texla_vec_destroy(ctx, t->vd);
}

static void banded(const bench_env *e, int n) {
    kb t = {.ctx = e->ctx, .which = K_BANDED};
    if (grid4(e->ctx, n, &t)) return;
    char sz[48];
    snprintf(sz, sizeof sz, "%d^2 grid", n);
    if (texla_banded_poisson(e->ctx, n, n, 0, 1, &t.band)) {
        fail(e->ctx);
        free4(e->ctx, &t);
        return;
    }
    row("kernels banded 5-point (stencil)", sz, time_op(kb_op, &t, e->batches), 8.0 * n * n, 0,
        "memory: x, y once (diagonals not read)");
    texla_banded_destroy(e->ctx, t.band);
    /* the same five diagonals, one entry perturbed: no longer a stencil */
    size_t N = (size_t)n * n;
    float *d = calloc(5 * N, sizeof *d);
    int off[5] = {0, -1, 1, -n, n};
    for (size_t k = 0; k < N; k++) {
        int cx = (int)(k % (size_t)n), cy = (int)(k / (size_t)n);
        d[k] = 4.0f;
        d[N + k] = cx > 0 ? -1.0f : 0.0f;
        d[2 * N + k] = cx < n - 1 ? -1.0f : 0.0f;
        d[3 * N + k] = cy > 0 ? -1.0f : 0.0f;
        d[4 * N + k] = cy < n - 1 ? -1.0f : 0.0f;
    }
    d[0] = 4.5f;
    int r = texla_banded_make(e->ctx, t.va, 5, off, d, &t.band);
    free(d);
    if (r) {
        fail(e->ctx);
        free4(e->ctx, &t);
        return;
    }
    row("kernels banded 5 diagonals", sz, time_op(kb_op, &t, e->batches), 28.0 * n * n, 0,
        "memory: x, 5 diagonals, y");
    texla_banded_destroy(e->ctx, t.band);
    free4(e->ctx, &t);
}

/* ms per CG iteration: a fixed-iteration solve of `iters` minus one of 1, over iters - 1 */
static void cg(const bench_env *e, int n, int iters) {
    kb t = {.ctx = e->ctx, .which = K_CG};
    if (grid4(e->ctx, n, &t) || texla_banded_poisson(e->ctx, n, n, 0, 1, &t.band)) return;
    t.op = texla_op_banded(t.band);
    t.iters = 1;
    double one = time_op(kb_op, &t, 5);
    t.iters = iters;
    double many = time_op(kb_op, &t, 5);
    texla_stats s0, s1;
    texla_ctx_stats(e->ctx, &s0);
    kb_op(&t);
    texla_ctx_stats(e->ctx, &s1);
    char sz[64], lim[128];
    snprintf(sz, sizeof sz, "%d^2 Poisson", n);
    snprintf(lim, sizeof lim, "per iteration (%d its - 1 it); %llu passes and %llu read-backs per "
             "solve", iters, (unsigned long long)(s1.passes - s0.passes),
             (unsigned long long)(s1.readbacks - s0.readbacks));
    double per = one > 0 && many > 0 ? (many - one) / (iters - 1) : -1;
    row("kernels CG iteration", sz, per, 0, 0, lim);
    row("kernels CG setup (1 iteration)", sz, one, 0, 0,
        "a solve of 1 iteration: work vectors, r = b - A x, norms");
    texla_cg_workspace ws;
    if (!texla_cg_workspace_make(e->ctx, t.va, &ws)) {
        t.ws = &ws;
        t.iters = 1;
        row("kernels CG setup, workspace kept", sz, time_op(kb_op, &t, 5), 0, 0,
            "a solve of 1 iteration with texla_cg_desc.workspace: r = b - A x, norm");
        /* tolerance mode, a tolerance the iterations do not reach (the residual read every 8
         * iterations, waited for 8 later): what the checks add to an iteration */
        t.tol = 1e-7f;
        double tone = time_op(kb_op, &t, 5);
        t.iters = iters;
        double tmany = time_op(kb_op, &t, 5);
        snprintf(lim, sizeof lim, "per iteration (%d its - 1 it), tol 1e-7 not reached, a "
                 "residual read every 8 its; workspace kept", iters);
        row("kernels CG iteration, tolerance mode", sz,
            tone > 0 && tmany > 0 ? (tmany - tone) / (iters - 1) : -1, 0, 0, lim);
        t.tol = 0;
        t.ws = NULL;
        texla_cg_workspace_destroy(e->ctx, &ws);
    }
    texla_banded_destroy(e->ctx, t.band);
    free4(e->ctx, &t);
}

static void wave(const bench_env *e, int n) {
    kb t = {.ctx = e->ctx, .which = K_WAVE, .iters = 8};
    texla_banded m = {0};
    if (grid4(e->ctx, n, &t) || texla_banded_poisson(e->ctx, n, n, -0.99f, -0.99f * 0.125f, &t.band) ||
        texla_banded_poisson(e->ctx, n, n, 1.0f, 0.125f, &m)) {
        fail(e->ctx);
        return;
    }
    t.op = texla_op_banded(m);
    char sz[48], lim[96];
    snprintf(sz, sizeof sz, "%d^2, 8 CG its", n);
    texla_cg_workspace ws; /* as the demo: CG's work objects kept across steps */
    if (!texla_cg_workspace_make(e->ctx, t.va, &ws)) t.ws = &ws;
    double ms = time_op(kb_op, &t, e->batches);
    snprintf(lim, sizeof lim, "%.0f steps/s (the demo also draws)", ms > 0 ? 1000.0 / ms : 0.0);
    row("kernels wave implicit step", sz, ms, 0, 0, lim);
    if (t.ws) texla_cg_workspace_destroy(e->ctx, &ws);
    texla_banded_destroy(e->ctx, t.band), texla_banded_destroy(e->ctx, m);
    free4(e->ctx, &t);
}

static void lcp(const bench_env *e, int n, int iters) {
    kb t = {.ctx = e->ctx, .which = K_LCP};
    float *a = rnd((size_t)n * n), *b = rnd((size_t)n);
    for (int k = 0; k < n; k++) a[(size_t)k * n + k] = (float)n;
    int r = texla_mat_make(e->ctx, n, n, a, &t.a) || texla_mat_make(e->ctx, n, 1, b, &t.x) ||
            texla_mat_make(e->ctx, n, 1, NULL, &t.y);
    free(a), free(b);
    if (r) {
        fail(e->ctx);
        return;
    }
    t.iters = 1;
    double one = time_op(kb_op, &t, 5);
    t.iters = iters;
    double many = time_op(kb_op, &t, 5);
    char sz[48], lim[96];
    snprintf(sz, sizeof sz, "n = %d", n);
    snprintf(lim, sizeof lim, "per iteration (%d its - 1 it): one step kernel", iters);
    row("kernels LCP Jacobi iteration", sz, one > 0 && many > 0 ? (many - one) / (iters - 1) : -1,
        4.0 * n * n, 0, lim);
    texla_mat_destroy(e->ctx, t.a), texla_mat_destroy(e->ctx, t.x), texla_mat_destroy(e->ctx, t.y);
}

void bench_kernels(const bench_env *e) {
    texla_info info;
    texla_ctx_info(e->ctx, &info);
    if (!info.compute) {
        printf("| kernels | - | - | - | - | no compute shaders (OpenGL 4.3) |\n");
        return;
    }
    if (info.backend != TEXLA_BACKEND_COMPUTE)
        printf("(kernels section: the default backend is fragment here; the products, banded and "
               "solver rows below run the classic passes; --backend compute runs the kernels)\n");
    int soft = e->soft, q = e->quick;
    int big = soft ? 256 : 4096, small = soft ? 128 : 1024;
    products(e, small);
    if (!q || soft) products(e, big);
    gemv(e, soft ? 1024 : 8192, 0);
    dots(e, soft ? 1 << 16 : 1 << 20, "kernels vec_dot (2^20)");
    dots(e, soft ? 1 << 18 : 1 << 24, "kernels vec_dot (2^24)");
    dots(e, 1024, "kernels vec_dot (1024)");
    cg(e, soft ? 256 : 2048, soft ? 10 : 100);
    banded(e, soft ? 256 : 2048);
    lcp(e, soft ? 256 : 1024, soft ? 10 : 100);
    wave(e, soft ? 128 : 1024);
    sweep_gemm(e, big, 0);
    sweep_gemm(e, small, 0);
    sweep_gemm(e, big, 1);
    sweep_gemm(e, small, 1);
    gemv(e, soft ? 1024 : 8192, 1);
}
