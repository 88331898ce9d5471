/* texla-bench: times texla's operations and measures the fragment path's ceilings on the same
 * GPU, in texla's own headless context.
 *   texla-bench [--sizes N,N,..] [--mm N,N,..] [--ks K,K,..] [--quick]
 * Timing: glFinish, then batches of back-to-back calls between glFinish and a monotonic clock;
 * warm-up first; the median over the batches. The ceilings are plain GL written here (not texla
 * code): a texelFetch copy pass (bandwidth) and an FMA-chain pass (arithmetic), both fragment
 * programs, plus the same copy as a compute shader for comparison. */
#include "bench.h"
#include "optest.h"

#include <glad/egl.h>
#include <glad/gl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* the dense dot product read back to the host */
static texla_result dot_read(texla_ctx *ctx, texla_mat a, texla_mat b, float *out) {
    texla_scalar s = {0};
    texla_result r = texla_scalar_make(ctx, 0.0f, &s);
    if (!r) r = texla_mat_dot(ctx, a, b, s);
    if (!r) r = texla_scalar_read(ctx, s, out);
    texla_scalar_destroy(ctx, s);
    return r;
}

double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median ms per call: warm-up, then batches sized to >= 20 ms (at most 200 calls). */
double time_op(op_fn fn, void *arg, int batches) {
    for (int i = 0; i < 2; i++)
        if (fn(arg)) return -1;
    glFinish();
    /* warm-up: back-to-back calls for 300 ms. On the H100 the first few hundred ms after a
     * call that tuned (timing variants, allocating and freeing big buffers) ran up to 3.5x
     * slow; a first call's tuning is not the steady state this table reports. */
    double w0 = now_ms();
    for (int i = 0; i < 100000 && now_ms() - w0 < 300.0; i++) {
        if (fn(arg)) return -1;
        if (i % 16 == 15) glFinish();
    }
    glFinish();
    double t0 = now_ms();
    if (fn(arg)) return -1;
    glFinish();
    double one = now_ms() - t0;
    int inner = one > 0 ? (int)ceil(20.0 / one) : 200;
    if (inner < 1) inner = 1;
    if (inner > 200) inner = 200;
    double t[32];
    if (batches > 32) batches = 32;
    for (int b = 0; b < batches; b++) {
        glFinish();
        double s = now_ms();
        for (int i = 0; i < inner; i++) fn(arg);
        glFinish();
        t[b] = (now_ms() - s) / inner;
    }
    qsort(t, (size_t)batches, sizeof t[0], cmp_d);
    return t[batches / 2];
}

/* the GPU's own time per call (a GL_TIME_ELAPSED query around `inner` back-to-back calls,
 * median of `batches`); -1 when the GL has no timer queries (GL 3.3 has them) */
double gpu_time_op(op_fn fn, void *arg, int batches) {
    for (int i = 0; i < 2; i++)
        if (fn(arg)) return -1;
    glFinish();
    GLuint q = 0;
    glGenQueries(1, &q);
    if (!q) return -1;
    double t[32];
    if (batches > 32) batches = 32;
    int inner = 20;
    for (int b = 0; b < batches; b++) {
        glBeginQuery(GL_TIME_ELAPSED, q);
        for (int i = 0; i < inner; i++) fn(arg);
        glEndQuery(GL_TIME_ELAPSED);
        GLuint64 ns = 0;
        glGetQueryObjectui64v(q, GL_QUERY_RESULT, &ns);
        t[b] = (double)ns * 1e-6 / inner;
    }
    glDeleteQueries(1, &q);
    qsort(t, (size_t)batches, sizeof t[0], cmp_d);
    return t[batches / 2];
}

/* ---- plain-GL ceilings ---- */

static const char *VS = "#version 330 core\nvoid main(){vec2 p=vec2(gl_VertexID==1?3.0:-1.0,"
                        "gl_VertexID==2?3.0:-1.0);gl_Position=vec4(p,0,1);}\n";
static const char *FS_COPY = "#version 330 core\nuniform sampler2D s;out vec4 o;void main(){"
                             "o=texelFetch(s,ivec2(gl_FragCoord.xy),0);}\n";
static const char *FS_FMA =
    "#version 330 core\nuniform int n;uniform vec4 a,b;out vec4 o;void main(){"
    "vec4 x0=gl_FragCoord.xyxy*1e-3,x1=x0+1.0,x2=x0+2.0,x3=x0+3.0,x4=x0+4.0,x5=x0+5.0,x6=x0+6.0,x7=x0+7.0;"
    "for(int i=0;i<n;++i){x0=x0*a+b;x1=x1*a+b;x2=x2*a+b;x3=x3*a+b;x4=x4*a+b;x5=x5*a+b;x6=x6*a+b;x7=x7*a+b;}"
    "o=x0+x1+x2+x3+x4+x5+x6+x7;}\n";
/* texel-fetch rate: each fragment fetches n RGBA32F texels of a 1024-wide texture with 4
 * independent accumulators; "a" mode: every fragment of a row reads the same texels (like A in
 * the product), "b" mode: neighbouring fragments read neighbouring texels (like B) */
static const char *FS_FETCH =
    "#version 330 core\nuniform sampler2D s;uniform int n;uniform int bmode;out vec4 o;void main(){"
    "ivec2 p=ivec2(gl_FragCoord.xy);int x=bmode!=0?(p.x&1023):0;int y=p.y&255;"
    "vec4 a0=vec4(0),a1=vec4(0),a2=vec4(0),a3=vec4(0);"
    "for(int i=0;i<n;i+=4){a0+=texelFetch(s,ivec2((x+i)&1023,y),0);a1+=texelFetch(s,ivec2((x+i+1)&1023,y),0);"
    "a2+=texelFetch(s,ivec2((x+i+2)&1023,y),0);a3+=texelFetch(s,ivec2((x+i+3)&1023,y),0);}"
    "o=a0+a1+a2+a3;}\n";
static const char *CS_COPY =
    "#version 430 core\nlayout(local_size_x=16,local_size_y=16)in;"
    "layout(rgba32f,binding=0)uniform readonly image2D ia;"
    "layout(rgba32f,binding=1)uniform writeonly image2D ic;void main(){"
    "ivec2 p=ivec2(gl_GlobalInvocationID.xy);if(any(greaterThanEqual(p,imageSize(ic))))return;"
    "imageStore(ic,p,imageLoad(ia,p));}\n";

static GLuint shader(GLenum type, const char *src, const char *what) {
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[2048];
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        fprintf(stderr, "%s shader: %s\n", what, log);
        glDeleteShader(s);
        return 0;
    }
    return s;
}

unsigned bench_program(const char *vs, const char *fs, const char *what) {
    GLuint a = shader(vs ? GL_VERTEX_SHADER : GL_COMPUTE_SHADER, vs ? vs : fs, what);
    GLuint b = vs ? shader(GL_FRAGMENT_SHADER, fs, what) : 0;
    if (!a || (vs && !b)) {
        if (a) glDeleteShader(a);
        if (b) glDeleteShader(b);
        return 0;
    }
    GLuint p = glCreateProgram();
    glAttachShader(p, a);
    if (b) glAttachShader(p, b);
    glLinkProgram(p);
    glDeleteShader(a);
    if (b) glDeleteShader(b);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        fprintf(stderr, "%s program: not linked\n", what);
        glDeleteProgram(p);
        return 0;
    }
    return p;
}

static GLuint tex(int w, int h) {
    GLuint t;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA32F, w, h);
    return t;
}

typedef struct raw {
    GLuint prog, src, dst, fbo, vao;
    int w, h, compute;
} raw;

static int raw_draw(void *arg) {
    raw *r = arg;
    if (r->compute) {
        glDispatchCompute((GLuint)(r->w + 15) / 16, (GLuint)(r->h + 15) / 16, 1);
        return 0;
    }
    glDrawArrays(GL_TRIANGLES, 0, 3);
    return 0;
}

static void raw_setup(raw *r, const char *fs, int compute, int w, int h) {
    memset(r, 0, sizeof *r);
    r->w = w, r->h = h, r->compute = compute;
    r->prog = bench_program(compute ? NULL : VS, fs, "bench");
    r->src = tex(w, h);
    r->dst = tex(w, h);
    float *z = calloc((size_t)w * h * 4, sizeof *z);
    for (size_t i = 0; i < (size_t)w * h * 4; i++) z[i] = (float)(i % 1000) * 0.001f;
    glBindTexture(GL_TEXTURE_2D, r->src);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_FLOAT, z);
    free(z);
    glUseProgram(r->prog);
    if (compute) {
        glBindImageTexture(0, r->src, 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA32F);
        glBindImageTexture(1, r->dst, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA32F);
        return;
    }
    glGenVertexArrays(1, &r->vao);
    glBindVertexArray(r->vao);
    glGenFramebuffers(1, &r->fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, r->fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, r->dst, 0);
    glViewport(0, 0, w, h);
    glDisable(GL_BLEND);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, r->src);
    glUniform1i(glGetUniformLocation(r->prog, "s"), 0);
}

static void raw_free(raw *r) {
    glDeleteProgram(r->prog);
    GLuint t[2] = {r->src, r->dst};
    glDeleteTextures(2, t);
    if (r->fbo) glDeleteFramebuffers(1, &r->fbo);
    if (r->vao) glDeleteVertexArrays(1, &r->vao);
}

/* ---- texla ops ---- */

typedef struct tx {
    texla_ctx *ctx;
    texla_mat a, b, c, d, e;
    int which;
    float out;
} tx;

enum { OP_MATMUL, OP_MATMUL_TN, OP_MATMUL_NT, OP_DOT };

static int tx_op(void *arg) {
    tx *t = arg;
    switch (t->which) {
    case OP_MATMUL: return texla_mat_matmul(t->ctx, t->a, t->b, t->c);
    case OP_MATMUL_TN: return texla_mat_matmul_tn(t->ctx, t->a, t->b, t->c);
    case OP_MATMUL_NT: return texla_mat_matmul_nt(t->ctx, t->a, t->b, t->c);
    case OP_DOT: return dot_read(t->ctx, t->a, t->b, &t->out);
    }
    return 1;
}

/* one row of the operation table on matrices, coefficients small so accumulations stay finite */
typedef struct ew_arg {
    texla_ctx *ctx;
    const ot_row *row;
    uint64_t src[4], dst;
} ew_arg;

static int ew_op(void *arg) {
    ew_arg *e = arg;
    const float f[2] = {-0.5f, 0.5f};
    return ot_call(e->ctx, e->row, OT_MAT, e->src, e->dst, texla_host(1e-9f), f);
}

int parse_list(const char *s, int *out, int max) {
    int n = 0;
    while (s && *s && n < max) {
        out[n++] = atoi(s);
        s = strchr(s, ',');
        if (s) s++;
    }
    return n;
}

float *rnd(size_t n) {
    float *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++) x[i] = (float)((double)rand() / RAND_MAX * 2.0 - 1.0);
    return x;
}

static double copy_gbs, fma_gflops; /* the fragment path's measured ceilings */

void row(const char *op, const char *size, double ms, double bytes, double flops,
         const char *limit) {
    char rate[32] = "-", pct[16] = "-";
    if (ms <= 0) {
        printf("| %-26s | %-18s | %10s | %12s | %6s | %s |\n", op, size, "failed", rate, pct, limit);
        return;
    }
    if (bytes > 0) {
        double g = bytes / (ms * 1e6);
        snprintf(rate, sizeof rate, "%.1f GB/s", g);
        if (copy_gbs > 0) snprintf(pct, sizeof pct, "%.0f%%", 100 * g / copy_gbs);
    } else if (flops > 0) {
        double g = flops / (ms * 1e6);
        snprintf(rate, sizeof rate, "%.1f GFLOP/s", g);
        if (fma_gflops > 0) snprintf(pct, sizeof pct, "%.0f%%", 100 * g / fma_gflops);
    }
    printf("| %-26s | %-18s | %10.4f | %12s | %6s | %s |\n", op, size, ms, rate, pct, limit);
    fflush(stdout);
}

/* sections in other files (tests/bench_*.c): name, function; each runs when --sections names
 * it, or with no --sections at all */
static const struct {
    const char *name;
    void (*fn)(const bench_env *e);
} extra[] = {
    /* {"name", bench_name}, one line per section file */
    {"kernels", bench_kernels},
    {"spsuite", bench_spsuite},
    {"contact", bench_contact},
    {"stream", bench_stream},
    {NULL, NULL},
};

static const char *sections = NULL; /* NULL: every section */
int want(const char *sec) {
    if (!sections) return 1;
    size_t n = strlen(sec);
    for (const char *p = sections; (p = strstr(p, sec)) != NULL; p += n)
        if ((p == sections || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return 1;
    return 0;
}

/* ---- 2D vectors, banded, sparse, solvers ---- */

typedef struct vx {
    texla_ctx *ctx;
    texla_vec a, b, c;
    texla_scalar s;
    texla_banded band;
    texla_sparse sp;
    int which;
} vx;

enum { V_ADD, V_AXPY_GPU, V_ACC_GPU, V_DOT, V_NORM2, V_MAXABS, V_BANDED, V_SPARSE };

static int vx_op(void *arg) {
    vx *t = arg;
    switch (t->which) {
    case V_ADD: return texla_vec_add(t->ctx, t->a, t->b, t->c);
    case V_AXPY_GPU: return texla_vec_axpy(t->ctx, t->a, texla_gpu(1e-3f, t->s), t->b, t->c);
    case V_ACC_GPU: return texla_vec_acc(t->ctx, texla_gpu(1e-9f, t->s), t->b, t->c);
    case V_DOT: return texla_vec_dot(t->ctx, t->a, t->b, t->s);
    case V_NORM2: return texla_vec_sqnorm(t->ctx, t->a, t->s);
    case V_MAXABS: return texla_vec_maxabs(t->ctx, t->a, t->s);
    case V_BANDED: return texla_banded_matvec(t->ctx, t->band, t->a, t->c);
    case V_SPARSE: return texla_sparse_matvec(t->ctx, t->sp, t->a, t->c);
    }
    return 1;
}

static int make_grid3(texla_ctx *ctx, int n, vx *t) {
    float *h = rnd((size_t)n * n);
    int r = texla_vec_make_grid(ctx, n, n, h, &t->a) || texla_vec_make_grid(ctx, n, n, h, &t->b) ||
            texla_vec_make_grid(ctx, n, n, NULL, &t->c) || texla_scalar_make(ctx, 0.5f, &t->s);
    free(h);
    if (r) fprintf(stderr, "texla-bench: %s\n", texla_error_message(ctx));
    return r;
}

static void free_grid3(texla_ctx *ctx, vx *t) {
    texla_vec_destroy(ctx, t->a), texla_vec_destroy(ctx, t->b), texla_vec_destroy(ctx, t->c);
    texla_scalar_destroy(ctx, t->s);
}

static void bench_vec(texla_ctx *ctx, int soft, int batches) {
    int sizes[4] = {512, 1024, 2048, 4096}, ns = soft ? 2 : 4;
    char sz[48];
    for (int i = 0; i < ns; i++) {
        int n = sizes[i];
        vx t = {.ctx = ctx};
        if (make_grid3(ctx, n, &t)) return;
        /* the bandwidth ceiling at this size: a plain copy pass over the vector's texture */
        raw r;
        raw_setup(&r, FS_COPY, 0, n / 2, n / 2);
        double ms = time_op(raw_draw, &r, batches);
        snprintf(sz, sizeof sz, "%dx%d texels", n / 2, n / 2);
        copy_gbs = 0;
        row("CEILING fragment copy", sz, ms, 2.0 * n * n * 4, 0, "plain GL texelFetch pass");
        copy_gbs = 2.0 * n * n * 4 / (ms * 1e6);
        raw_free(&r);
        snprintf(sz, sizeof sz, "%d^2 elements", n);
        double e = (double)n * n * 4; /* bytes per vector */
        static const struct { int op; double vecs; const char *name, *lim; } v[] = {
            {V_ADD, 3, "texla_vec_add", "fragment rate"},
            {V_AXPY_GPU, 3, "texla_vec_axpy (GPU coef)", "fragment rate"},
            {V_ACC_GPU, 3, "texla_vec_acc (blend)", "RGBA32F blend rate"},
            {V_DOT, 2, "texla_vec_dot -> scalar", "log passes (first: 2 reads)"},
            {V_NORM2, 1, "texla_vec_sqnorm -> scalar", "log passes"},
            {V_MAXABS, 1, "texla_vec_maxabs -> scalar", "log passes"}};
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
            t.which = v[k].op;
            row(v[k].name, sz, time_op(vx_op, &t, batches), v[k].vecs * e, 0, v[k].lim);
        }
        free_grid3(ctx, &t);
    }
}

static void bench_banded(texla_ctx *ctx, int soft, int batches) {
    int sizes[3] = {512, 1024, 2048}, ns = soft ? 1 : 3;
    char sz[48];
    for (int i = 0; i < ns; i++) {
        int n = sizes[i];
        vx t = {.ctx = ctx, .which = V_BANDED};
        if (make_grid3(ctx, n, &t) || texla_banded_poisson(ctx, n, n, 0, 1, &t.band)) return;
        snprintf(sz, sizeof sz, "%d^2 grid, 5 diagonals", n);
        /* bytes: x, 5 diagonals, y once each */
        row("texla_banded_matvec (Poisson)", sz, time_op(vx_op, &t, batches), 7.0 * n * n * 4, 0,
            "fetches: 2 per diagonal per element");
        texla_banded_destroy(ctx, t.band);
        free_grid3(ctx, &t);
    }
}

static void bench_sparse(texla_ctx *ctx, int soft, int batches) {
    int n = soft ? 256 : 1024, per_row = 8; /* n^2 rows, 8 random nonzeros each */
    int rows_n = n * n, nnz = rows_n * per_row;
    vx t = {.ctx = ctx, .which = V_SPARSE};
    if (make_grid3(ctx, n, &t)) return;
    int *r = malloc(sizeof *r * (size_t)nnz), *c = malloc(sizeof *c * (size_t)nnz);
    float *v = rnd((size_t)nnz);
    for (int i = 0; i < nnz; i++) r[i] = i / per_row, c[i] = rand() % rows_n;
    if (texla_sparse_make_coo(ctx, t.c, t.a, nnz, r, c, v, &t.sp)) {
        fprintf(stderr, "texla-bench: %s\n", texla_error_message(ctx));
        return;
    }
    free(r), free(c), free(v);
    char sz[64];
    snprintf(sz, sizeof sz, "%d rows, %d nnz, %d points", rows_n, nnz, rows_n * per_row / 4);
    double ms = time_op(vx_op, &t, batches);
    printf("| %-26s | %-18s | %10.4f | %8.0f Mpoints/s | %6s | %s |\n", "texla_sparse_matvec (points)",
           sz, ms, rows_n * per_row / 4 / (ms * 1e3), "-", "point rasterization + blending");
    texla_sparse_destroy(ctx, t.sp);
    free_grid3(ctx, &t);
}

static void bench_cg(texla_ctx *ctx, int soft) {
    int sizes[2] = {1024, 2048}, ns = soft ? 1 : 2, iters = soft ? 10 : 100;
    if (soft) sizes[0] = 256;
    for (int i = 0; i < ns; i++) {
        int n = sizes[i];
        vx t = {.ctx = ctx};
        if (make_grid3(ctx, n, &t) || texla_banded_poisson(ctx, n, n, 0, 1, &t.band)) return;
        texla_cg_desc d = {.max_iter = iters}; /* fixed-iteration mode: no read-back */
        texla_cg_result res;
        texla_stats s0, s1;
        texla_cg(ctx, texla_op_banded(t.band), t.a, &d, t.c, &res); /* warm-up */
        texla_ctx_finish(ctx);
        texla_ctx_stats(ctx, &s0);
        double best[3];
        for (int rep = 0; rep < 3; rep++) {
            texla_vec_fill(ctx, texla_host(0), t.c);
            texla_ctx_finish(ctx);
            double t0 = now_ms();
            texla_cg(ctx, texla_op_banded(t.band), t.a, &d, t.c, &res);
            texla_ctx_finish(ctx);
            best[rep] = (now_ms() - t0) / iters;
        }
        texla_ctx_stats(ctx, &s1);
        qsort(best, 3, sizeof best[0], cmp_d);
        char sz[64], lim[96];
        snprintf(sz, sizeof sz, "%d^2 Poisson, %d it", n, iters);
        snprintf(lim, sizeof lim, "per iteration; %llu read-backs in the 3 solves",
                 (unsigned long long)(s1.readbacks - s0.readbacks));
        row("texla_cg (fixed iterations)", sz, best[1], 0, 0, lim);
        texla_banded_destroy(ctx, t.band);
        free_grid3(ctx, &t);
    }
}

static void bench_lcp(texla_ctx *ctx, int soft) {
    int sizes[3] = {400, 1024, 4096}, ns = soft ? 1 : 3, iters = soft ? 10 : 50;
    for (int i = 0; i < ns; i++) {
        int n = sizes[i];
        float *a = rnd((size_t)n * n), *b = rnd((size_t)n);
        for (int k = 0; k < n; k++) a[(size_t)k * n + k] = (float)n; /* diagonally dominant */
        texla_mat A, B, X;
        if (texla_mat_make(ctx, n, n, a, &A) || texla_mat_make(ctx, n, 1, b, &B) ||
            texla_mat_make(ctx, n, 1, NULL, &X)) {
            fprintf(stderr, "texla-bench: %s\n", texla_error_message(ctx));
            return;
        }
        free(a), free(b);
        texla_lcp_desc d = {.iterations = iters};
        texla_lcp_jacobi(ctx, A, B, &d, X, NULL);
        double t[3];
        for (int rep = 0; rep < 3; rep++) {
            texla_ctx_finish(ctx);
            double t0 = now_ms();
            texla_lcp_jacobi(ctx, A, B, &d, X, NULL);
            texla_ctx_finish(ctx);
            t[rep] = (now_ms() - t0) / iters;
        }
        qsort(t, 3, sizeof t[0], cmp_d);
        char sz[48];
        snprintf(sz, sizeof sz, "n = %d, %d it", n, iters);
        row("texla_lcp_jacobi", sz, t[1], 4.0 * n * n, 0, "per iteration: product + madad + max");
        texla_mat_destroy(ctx, A), texla_mat_destroy(ctx, B), texla_mat_destroy(ctx, X);
    }
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    int sizes[8] = {1024, 2048, 4096}, nsizes = 3;
    int mm[8] = {1024, 2048, 4096}, nmm = 3;
    int ks[16] = {1, 4, 16, 64, 1024}, nks = 5;
    int quick = 0, batches = 9, given_sizes = 0, given_mm = 0, given_ks = 0;
    const char *spdir = NULL;
    texla_ctx_desc desc = {0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) nsizes = parse_list(argv[++i], sizes, 8), given_sizes = 1;
        else if (!strcmp(argv[i], "--mm") && i + 1 < argc) nmm = parse_list(argv[++i], mm, 8), given_mm = 1;
        else if (!strcmp(argv[i], "--ks") && i + 1 < argc) nks = parse_list(argv[++i], ks, 16), given_ks = 1;
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--sections") && i + 1 < argc) sections = argv[++i];
        else if (!strcmp(argv[i], "--spdir") && i + 1 < argc) spdir = argv[++i];
        else if (!strcmp(argv[i], "--glsl") && i + 1 < argc) desc.glsl_dir = argv[++i];
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            const char *b = argv[++i];
            desc.backend = !strcmp(b, "compute") ? TEXLA_BACKEND_COMPUTE
                           : !strcmp(b, "fragment") ? TEXLA_BACKEND_FRAGMENT : TEXLA_BACKEND_AUTO;
        }
        else {
            fprintf(stderr, "usage: %s [--sizes N,..] [--mm N,..] [--ks K,..] [--quick] [--glsl DIR]\n"
                            "          [--backend auto|fragment|compute]\n"
                            "          [--sections ew,dot,mm,vec,banded,sparse,cg,lcp,...] [--spdir DIR]\n", argv[0]);
            return 2;
        }
    }
    texla_ctx *ctx;
    if (texla_ctx_make(&desc, &ctx)) {
        fprintf(stderr, "texla-bench: %s\n", texla_error_message(NULL));
        return 1;
    }
    /* texla's context is current: load our own GL entry points for the plain-GL ceilings */
    if (!gladLoaderLoadEGL(NULL) || !gladLoadGL((GLADloadfunc)eglGetProcAddress)) {
        fprintf(stderr, "texla-bench: cannot load GL\n");
        return 1;
    }
    texla_info info;
    texla_ctx_info(ctx, &info);
    int soft = strstr(info.renderer, "llvmpipe") != NULL;
    if (soft || quick) { /* software rasterizer: small sizes unless given */
        if (!given_sizes) sizes[0] = 256, sizes[1] = 512, nsizes = 2;
        if (!given_mm) mm[0] = 256, mm[1] = 512, nmm = 2;
        if (!given_ks) ks[0] = 1, ks[1] = 16, ks[2] = 128, nks = 3;
        batches = 5;
    }
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
    printf("texla %s benchmark, %s\nGPU: %s | %s | GL %s | %s\n", TEXLA_VERSION_STRING, date,
           info.renderer, info.vendor, info.version, info.platform);
    printf("backend: %s (calibration copy 512x512: fragment %.3f ms, compute %.3f ms)\n",
           info.backend == TEXLA_BACKEND_COMPUTE ? "compute shaders" : "fragment programs",
           (double)info.backends[0].calib_ms, (double)info.backends[1].calib_ms);
    printf("median of %d batches after 300 ms of warm-up calls; batch >= 20 ms of back-to-back calls, glFinish "
           "around it\n\n", batches);
    printf("| operation | size | median ms | rate | of ceiling | limited by |\n");
    printf("|---|---|---|---|---|---|\n");

    /* arithmetic ceiling */
    char sz[48];
    raw r;
    double ms;
    {
        int iters = soft ? 64 : 512, fw = soft ? 256 : 2048, fh = soft ? 256 : 2048;
        raw_setup(&r, FS_FMA, 0, fw, fh);
        glUniform1i(glGetUniformLocation(r.prog, "n"), iters);
        glUniform4f(glGetUniformLocation(r.prog, "a"), 0.999f, 0.999f, 0.999f, 0.999f);
        glUniform4f(glGetUniformLocation(r.prog, "b"), 0.001f, 0.001f, 0.001f, 0.001f);
        ms = time_op(raw_draw, &r, batches);
        double fl = 64.0 * iters * fw * fh;
        snprintf(sz, sizeof sz, "%dx%d x %d it", fw, fh, iters);
        row("CEILING fragment FMA", sz, ms, 0, fl, "plain GL: 8 vec4 FMA chains");
        fma_gflops = fl / (ms * 1e6);
        raw_free(&r);
        for (int mode = 0; mode < 2; mode++) {
            int n = soft ? 64 : 1024;
            raw_setup(&r, FS_FETCH, 0, 1024, 256);
            glUniform1i(glGetUniformLocation(r.prog, "n"), n);
            glUniform1i(glGetUniformLocation(r.prog, "bmode"), mode);
            ms = time_op(raw_draw, &r, batches);
            snprintf(sz, sizeof sz, "1024x256 x %d fetches", n);
            double g = 1024.0 * 256 * n / (ms * 1e6);
            printf("| %-26s | %-18s | %10.4f | %7.1f Gtexel/s | %6s | %s |\n",
                   mode ? "CEILING fetch, B-like" : "CEILING fetch, A-like", sz, ms, g, "-",
                   mode ? "neighbours read neighbours" : "a row of fragments reads one texel");
            raw_free(&r);
        }
    }

    /* element-wise: the rows of the operation table */
    if (!want("ew")) nsizes = 0;
    for (int s = 0; s < nsizes; s++) {
        int n = sizes[s];
        tx t = {.ctx = ctx};
        float *h = rnd((size_t)n * n);
        if (texla_mat_make(ctx, n, n, h, &t.a) || texla_mat_make(ctx, n, n, h, &t.b) ||
            texla_mat_make(ctx, n, n, h, &t.d) || texla_mat_make(ctx, n, n, h, &t.e) ||
            texla_mat_make(ctx, n, n, NULL, &t.c)) {
            fprintf(stderr, "texla-bench: %s\n", texla_error_message(ctx));
            return 1;
        }
        free(h);
        /* bandwidth ceiling at this size: a plain texelFetch copy pass (and a compute copy) */
        snprintf(sz, sizeof sz, "%dx%d texels", n, n / 4);
        raw_setup(&r, FS_COPY, 0, n, n / 4);
        ms = time_op(raw_draw, &r, batches);
        copy_gbs = 0; /* the ceiling row itself */
        row("CEILING fragment copy", sz, ms, 2.0 * n * n * 4, 0, "plain GL texelFetch pass");
        copy_gbs = 2.0 * n * n * 4 / (ms * 1e6);
        raw_free(&r);
        if (info.compute) {
            raw_setup(&r, CS_COPY, 1, n, n / 4);
            ms = time_op(raw_draw, &r, batches);
            row("(compute-shader copy)", sz, ms, 2.0 * n * n * 4, 0, "plain GL imageLoad/Store");
            raw_free(&r);
        }
        snprintf(sz, sizeof sz, "%d x %d", n, n);
        /* every row of the operation table (src/base/optable.h), on matrices */
        for (int i = 0; i < ot_nrows; i++) {
            ew_arg e = {ctx, &ot_rows[i], {t.a.id, t.b.id, t.d.id, t.e.id}, t.c.id};
            ms = time_op(ew_op, &e, batches);
            /* bytes: each source read once, destination written once (+ read when in place) */
            double bytes = (double)n * n * 4 * (ot_rows[i].nsrc + 1 + ot_rows[i].inplace);
            char name[48];
            snprintf(name, sizeof name, "texla_mat_%s", ot_rows[i].name);
            row(name, sz, ms, bytes, 0, "memory");
        }
        texla_mat_destroy(ctx, t.a), texla_mat_destroy(ctx, t.b), texla_mat_destroy(ctx, t.c);
        texla_mat_destroy(ctx, t.d), texla_mat_destroy(ctx, t.e);
    }

    /* dot products */
    int dots[3] = {4096, 65536, 4 * info.max_texture_size};
    for (int s = 0; s < (want("dot") ? 3 : 0); s++) {
        int n = dots[s];
        if (s > 0 && n <= dots[s - 1]) continue;
        tx t = {.ctx = ctx, .which = OP_DOT};
        float *h = rnd((size_t)n);
        texla_mat_make(ctx, n, 1, h, &t.a);
        texla_mat_make(ctx, n, 1, h, &t.b);
        free(h);
        snprintf(sz, sizeof sz, "n = %d", n);
        ms = time_op(tx_op, &t, batches);
        row("texla_dot (+ read-back)", sz, ms, 2.0 * n * 4, 0, "latency: one fragment, serial");
        texla_mat_destroy(ctx, t.a), texla_mat_destroy(ctx, t.b);
    }

    /* products: first a correctness check (the shaders may come from --glsl) */
    if (!want("mm")) nmm = 0;
    if (nmm) {
        int n = 257, K = 259, m = 263;
        float *a = rnd((size_t)n * K), *b = rnd((size_t)K * m), *c = malloc(sizeof *c * n * m);
        texla_mat A, B, C;
        texla_mat_make(ctx, n, K, a, &A), texla_mat_make(ctx, K, m, b, &B);
        texla_mat_make(ctx, n, m, NULL, &C);
        double err = 0, na = 0, nb = 0;
        for (int k = 1; k <= 65; k += 16) {
            texla_ctx_set_matmul_k(ctx, k);
            if (texla_mat_matmul(ctx, A, B, C) || texla_mat_read(ctx, C, c)) {
                fprintf(stderr, "texla-bench: %s\n", texla_error_message(ctx));
                return 1;
            }
            for (int i = 0; i < n; i++)
                for (int j = 0; j < m; j++) {
                    double s = 0;
                    for (int q = 0; q < K; q++) s += (double)a[i * K + q] * b[q * m + j];
                    err += (c[i * m + j] - s) * (c[i * m + j] - s);
                }
        }
        texla_ctx_set_matmul_k(ctx, 0);
        for (int i = 0; i < n * K; i++) na += (double)a[i] * a[i];
        for (int i = 0; i < K * m; i++) nb += (double)b[i] * b[i];
        double bound = 5 * K * 5.96e-8 * sqrt(na * nb); /* 5 values of k summed */
        printf("check: matmul %dx%d * %dx%d, k = 1..65: error %.3g, bound %.3g -> %s\n\n", n, K, K,
               m, sqrt(err), bound, sqrt(err) <= bound ? "ok" : "WRONG");
        texla_mat_destroy(ctx, A), texla_mat_destroy(ctx, B), texla_mat_destroy(ctx, C);
        free(a), free(b), free(c);
        if (!(sqrt(err) <= bound)) return 1;
    }

    /* products */
    for (int s = 0; s < nmm; s++) {
        int n = mm[s];
        tx t = {.ctx = ctx};
        float *h = rnd((size_t)n * n);
        texla_mat_make(ctx, n, n, h, &t.a);
        texla_mat_make(ctx, n, n, h, &t.b);
        texla_mat_make(ctx, n, n, NULL, &t.c);
        free(h);
        double fl = 2.0 * n * n * n;
        for (int q = 0; q < nks; q++) {
            int k = ks[q] < n / 4 ? ks[q] : n / 4;
            if (q > 0 && k == (ks[q - 1] < n / 4 ? ks[q - 1] : n / 4)) continue;
            texla_ctx_set_matmul_k(ctx, k);
            t.which = OP_MATMUL;
            snprintf(sz, sizeof sz, "%d^3, k=%d (%d pass%s)", n, k, (n / 4 + k - 1) / k,
                     (n / 4 + k - 1) / k > 1 ? "es" : "");
            ms = time_op(tx_op, &t, n >= 4096 ? 3 : batches);
            row("texla_mat_matmul", sz, ms, 0, fl, "texture fetch + FMA");
        }
        texla_ctx_set_matmul_k(ctx, 0);
        snprintf(sz, sizeof sz, "%d^3, k=%d", n, TEXLA_MATMUL_K_DEFAULT);
        t.which = OP_MATMUL_TN;
        ms = time_op(tx_op, &t, n >= 4096 ? 3 : batches);
        row("texla_mat_matmul_tn (A'B)", sz, ms, 0, fl, "texture fetch + FMA");
        t.which = OP_MATMUL_NT;
        ms = time_op(tx_op, &t, n >= 4096 ? 3 : batches);
        row("texla_mat_matmul_nt (AB')", sz, ms, 0, fl, "texture fetch + FMA");
        texla_mat_destroy(ctx, t.a), texla_mat_destroy(ctx, t.b), texla_mat_destroy(ctx, t.c);
    }
    if (want("vec")) bench_vec(ctx, soft, batches);
    if (want("banded")) bench_banded(ctx, soft, batches);
    if (want("sparse")) bench_sparse(ctx, soft, batches);
    if (want("cg")) bench_cg(ctx, soft);
    if (want("lcp")) bench_lcp(ctx, soft);
    bench_env env = {ctx, soft, batches, quick, spdir};
    for (int i = 0; extra[i].name; i++)
        if (want(extra[i].name)) extra[i].fn(&env);
    printf("\nceilings: fragment FMA %.1f GFLOP/s", fma_gflops);
    if (copy_gbs > 0) printf(", fragment copy %.1f GB/s (largest size)", copy_gbs);
    printf("\n");
    texla_ctx_destroy(ctx);
    return 0;
}
