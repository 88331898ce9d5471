/* values.c - the interpreter's values: making and freeing them, converting between dense,
 * banded and sparse storage, rand's generator, and loading, saving, drawing and printing.
 * Banded and sparse matrices keep a host copy of what they were built from, so conversions,
 * transposes and saves need no read-back; dense matrices live on the GPU only. */
#include "values.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- errors ---- */

int fail_at(interp *in, pos at, const char *fmt, ...) {
    if (in->failed) return -1;
    in->failed = 1;
    in->err->at = at;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(in->err->msg, sizeof in->err->msg, fmt, ap);
    va_end(ap);
    return -1;
}

int gl_fail(interp *in, pos at, const char *what) {
    const char *m = texla_error_message(in->ctx);
    return fail_at(in, at, "%s: %s", what, *m ? m : "failed");
}

void warn_at(interp *in, pos at, const char *fmt, ...) {
    fflush(in->out);
    fprintf(stderr, "%s:%d:%d: warning: ", in->sc->file, at.line, at.col);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

const char *describe_val(const val *v, char *buf, size_t n) {
    switch (v->kind) {
    case V_SCALAR: snprintf(buf, n, "scalar %g", v->s); break;
    case V_VEC:
        if (v->nx) snprintf(buf, n, "%d x 1 vector (%d x %d grid)", v->rows, v->nx, v->ny);
        else snprintf(buf, n, "%d x 1 vector", v->rows);
        break;
    case V_DENSE: snprintf(buf, n, "%d x %d dense matrix", v->rows, v->cols); break;
    case V_BANDED:
        snprintf(buf, n, "%d x %d banded matrix (%d diagonal%s)", v->rows, v->cols, v->ndiag,
                 v->ndiag == 1 ? "" : "s");
        break;
    case V_SPARSE:
        snprintf(buf, n, "%d x %d sparse matrix (%d entr%s)", v->rows, v->cols, v->nnz,
                 v->nnz == 1 ? "y" : "ies");
        break;
    }
    return buf;
}

/* ---- making and freeing ---- */

static val *val_new(interp *in, pos at, vkind k) {
    val *v = calloc(1, sizeof *v);
    if (!v) {
        fail_at(in, at, "out of host memory");
        return NULL;
    }
    v->refs = 1;
    v->kind = k;
    return v;
}

val *val_ref(val *v) {
    if (v) v->refs++;
    return v;
}

void val_unref(interp *in, val *v) {
    if (!v || --v->refs > 0) return;
    texla_mat_destroy(in->ctx, v->m);
    texla_vec_destroy(in->ctx, v->x);
    texla_banded_destroy(in->ctx, v->b);
    texla_sparse_destroy(in->ctx, v->sp);
    texla_vec_destroy(in->ctx, v->like);
    texla_vec_destroy(in->ctx, v->clike);
    free(v->offs), free(v->diags);
    free(v->ri), free(v->ci), free(v->vv);
    free(v);
}

val *scalar_new(interp *in, double s) {
    val *v = val_new(in, (pos){0, 0}, V_SCALAR);
    if (v) v->s = s;
    return v;
}

val *vec_take(interp *in, pos at, texla_vec x, int nx, int ny) {
    texla_vec_info vi;
    if (texla_vec_info_get(in->ctx, x, &vi)) {
        gl_fail(in, at, "a vector");
        texla_vec_destroy(in->ctx, x);
        return NULL;
    }
    val *v = val_new(in, at, V_VEC);
    if (!v) {
        texla_vec_destroy(in->ctx, x);
        return NULL;
    }
    v->x = x;
    v->rows = vi.n, v->cols = 1;
    if ((long long)nx * ny == vi.n) v->nx = nx, v->ny = ny;
    return v;
}

val *vec_new(interp *in, pos at, int n, int nx, int ny, const float *data) {
    texla_vec x;
    if (texla_vec_make(in->ctx, n, data, &x)) {
        gl_fail(in, at, "making a vector");
        return NULL;
    }
    return vec_take(in, at, x, nx, ny);
}

val *dense_new(interp *in, pos at, int rows, int cols, const float *data) {
    if (cols == 1) return vec_new(in, at, rows, 0, 0, data);
    val *v = val_new(in, at, V_DENSE);
    if (!v) return NULL;
    v->rows = rows, v->cols = cols;
    if (texla_mat_make(in->ctx, rows, cols, data, &v->m)) {
        gl_fail(in, at, "making a matrix");
        val_unref(in, v);
        return NULL;
    }
    return v;
}

val *dense_const(interp *in, pos at, int rows, int cols, float value) {
    if (cols == 1) {
        val *v = vec_new(in, at, rows, 0, 0, NULL);
        if (v && value != 0.0f && texla_vec_fill(in->ctx, texla_host(value), v->x)) {
            gl_fail(in, at, "making a constant vector");
            val_unref(in, v);
            return NULL;
        }
        return v;
    }
    val *v = val_new(in, at, V_DENSE);
    if (!v) return NULL;
    v->rows = rows, v->cols = cols;
    if (texla_mat_make_const(in->ctx, rows, cols, value, &v->m)) {
        gl_fail(in, at, "making a constant matrix");
        val_unref(in, v);
        return NULL;
    }
    return v;
}

val *dense_eye(interp *in, pos at, int n) {
    if (n == 1) return dense_const(in, at, 1, 1, 1.0f);
    val *v = val_new(in, at, V_DENSE);
    if (!v) return NULL;
    v->rows = v->cols = n;
    if (texla_mat_make_identity(in->ctx, n, &v->m)) {
        gl_fail(in, at, "making an identity matrix");
        val_unref(in, v);
        return NULL;
    }
    return v;
}

val *val_of_mat(interp *in, pos at, texla_mat m, int rows, int cols) {
    if (cols != 1) {
        val *v = val_new(in, at, V_DENSE);
        if (!v) {
            texla_mat_destroy(in->ctx, m);
            return NULL;
        }
        v->m = m;
        v->rows = rows, v->cols = cols;
        return v;
    }
    texla_vec x;
    texla_result r = texla_vec_make(in->ctx, rows, NULL, &x);
    if (!r && (r = texla_vec_from_mat(in->ctx, m, x))) texla_vec_destroy(in->ctx, x);
    texla_mat_destroy(in->ctx, m);
    if (r) {
        gl_fail(in, at, "converting a vector to the 2D layout");
        return NULL;
    }
    return vec_take(in, at, x, 0, 0);
}

/* a vector of n elements on an nx x ny grid, or a plain one when nx == 0 */
static int layout_vec(interp *in, pos at, int n, int nx, int ny, texla_vec *out) {
    texla_result r = nx ? texla_vec_make_grid(in->ctx, nx, ny, NULL, out)
                        : texla_vec_make(in->ctx, n, NULL, out);
    return r ? gl_fail(in, at, "making a vector") : 0;
}

val *banded_new(interp *in, pos at, int n, int nx, int ny, int ndiag, int *offs, float *diags) {
    val *v = val_new(in, at, V_BANDED);
    if (!v) {
        free(offs), free(diags);
        return NULL;
    }
    v->rows = v->cols = n;
    v->nx = nx, v->ny = ny;
    v->ndiag = ndiag, v->offs = offs, v->diags = diags;
    if (layout_vec(in, at, n, nx, ny, &v->like) ||
        (texla_banded_make(in->ctx, v->like, ndiag, offs, diags, &v->b) &&
         gl_fail(in, at, "making a banded matrix"))) {
        val_unref(in, v);
        return NULL;
    }
    return v;
}

val *sparse_new(interp *in, pos at, int rows, int cols, int nnz, int *ri, int *ci, float *vv) {
    val *v = val_new(in, at, V_SPARSE);
    if (!v) {
        free(ri), free(ci), free(vv);
        return NULL;
    }
    v->rows = rows, v->cols = cols;
    v->nnz = nnz, v->ri = ri, v->ci = ci, v->vv = vv;
    if (!ri || !ci || !vv) { /* an empty file may come with no arrays: keep them non-NULL */
        free(v->ri), free(v->ci), free(v->vv);
        v->ri = malloc(sizeof *v->ri * (size_t)(nnz ? nnz : 1));
        v->ci = malloc(sizeof *v->ci * (size_t)(nnz ? nnz : 1));
        v->vv = malloc(sizeof *v->vv * (size_t)(nnz ? nnz : 1));
        if (!v->ri || !v->ci || !v->vv || nnz) {
            fail_at(in, at, "making a sparse matrix: out of host memory");
            val_unref(in, v);
            return NULL;
        }
    }
    if (layout_vec(in, at, rows, 0, 0, &v->like) || layout_vec(in, at, cols, 0, 0, &v->clike) ||
        (texla_sparse_make_coo(in->ctx, v->like, v->clike, nnz, ri, ci, vv, &v->sp) &&
         gl_fail(in, at, "making a sparse matrix"))) {
        val_unref(in, v);
        return NULL;
    }
    return v;
}

/* the diagonal offsets of texla_banded_poisson (0, -1, +1, -nx, +nx; fewer on thin grids) */
static int poisson_offsets(int nx, int ny, int offs[5]) {
    int nd = 0;
    offs[nd++] = 0;
    if (nx > 1) offs[nd++] = -1, offs[nd++] = 1;
    if (ny > 1) offs[nd++] = -nx, offs[nd++] = nx;
    return nd;
}

val *poisson_new(interp *in, pos at, int nx, int ny, double alpha, double beta) {
    if ((long long)nx * ny > 0x7fffffff) {
        fail_at(in, at, "poisson: a %d x %d grid has too many cells (at most 2147483647)", nx, ny);
        return NULL;
    }
    /* the GPU matrix first: the GL's limits are checked before any host memory is taken; the
     * host copy is made from the parameters when something needs it (banded_host) */
    val *v = val_new(in, at, V_BANDED);
    if (!v) return NULL;
    v->rows = v->cols = nx * ny;
    v->nx = nx, v->ny = ny;
    v->pa = alpha, v->pb = beta;
    int offs5[5];
    v->ndiag = poisson_offsets(nx, ny, offs5);
    v->offs = malloc(sizeof *v->offs * 5);
    if (!v->offs) {
        fail_at(in, at, "poisson: out of host memory");
        val_unref(in, v);
        return NULL;
    }
    memcpy(v->offs, offs5, sizeof offs5);
    if (texla_banded_poisson(in->ctx, nx, ny, (float)alpha, (float)beta, &v->b)) {
        gl_fail(in, at, "poisson");
        val_unref(in, v);
        return NULL;
    }
    if (layout_vec(in, at, nx * ny, nx, ny, &v->like)) {
        val_unref(in, v);
        return NULL;
    }
    return v;
}

int banded_host(interp *in, pos at, val *v) {
    if (v->diags) return 0;
    int n = v->rows, nx = v->nx, ny = v->ny, nd = v->ndiag;
    if ((long long)nd * n > DENSE_MAX_ELEMS)
        return fail_at(in, at, "the %d diagonals of the %d x %d banded matrix are too many for "
                       "a host copy (at most %lld elements)", nd, n, n, DENSE_MAX_ELEMS);
    float *d = calloc((size_t)nd * (size_t)n, sizeof *d);
    if (!d) return fail_at(in, at, "out of host memory for a banded matrix's host copy");
    float a = (float)v->pa, b = (float)v->pb;
    for (int k = 0; k < n; k++) {
        int cx = k % nx, cy = k / nx;
        for (int i = 0; i < nd; i++) {
            int o = v->offs[i];
            float *e = &d[(size_t)i * (size_t)n + (size_t)k];
            if (o == 0) *e = a + 4.0f * b;
            else if (o == -1 && nx > 1) *e = cx > 0 ? -b : 0.0f;
            else if (o == 1 && nx > 1) *e = cx < nx - 1 ? -b : 0.0f;
            else if (o == -nx) *e = cy > 0 ? -b : 0.0f;
            else if (o == nx) *e = cy < ny - 1 ? -b : 0.0f;
        }
    }
    v->diags = d;
    return 0;
}

/* ---- rand: MRG32k3a (P. L'Ecuyer, "Good parameters and implementations for combined
 * multiple recursive random number generators", 1999), in its floating-point form: every
 * intermediate is an integer below 2^53, so any IEEE double implementation (awk included)
 * reproduces it bit for bit. The seed S (0 <= S < 2^31) fills the six state words:
 * x0 = S mod 67108859, x(i) = (x(i-1)^2 + 1234567 + i) mod 67108859 for i = 1..5 (a quadratic
 * map, so nearby seeds give unrelated states), state = x0+1, ..., x4+1, x5+1 + 2^26 floor(S /
 * 67108859) in the order s1[0], s1[1], s1[2], s2[0], s2[1], s2[2] (distinct seeds, distinct
 * states). Element k of rand(R, C, S) (row-major) is floor(u_k * 2^24) / 2^23 - 1 with u_k the
 * k-th output: uniform in [-1, 1) on a 2^-23 grid, exact in float. */

#define MRG_M1 4294967087.0
#define MRG_M2 4294944443.0
#define MRG_NORM 2.328306549295727688e-10
#define SEED_P 67108859ULL

void mrg_seed(mrg *g, unsigned long seed) {
    uint64_t x = (uint64_t)seed % SEED_P;
    double *w[6] = {&g->s1[0], &g->s1[1], &g->s1[2], &g->s2[0], &g->s2[1], &g->s2[2]};
    for (int i = 0; i < 6; i++) {
        if (i) x = (x * x + 1234567ULL + (uint64_t)i) % SEED_P;
        *w[i] = (double)(x + 1);
    }
    *w[5] += 67108864.0 * (double)((uint64_t)seed / SEED_P); /* < 2^31 < m2 for seed < 2^31 */
}

double mrg_next(mrg *g) {
    double p1 = 1403580.0 * g->s1[1] - 810728.0 * g->s1[0];
    long long k = (long long)(p1 / MRG_M1);
    p1 -= (double)k * MRG_M1;
    if (p1 < 0.0) p1 += MRG_M1;
    g->s1[0] = g->s1[1], g->s1[1] = g->s1[2], g->s1[2] = p1;
    double p2 = 527612.0 * g->s2[2] - 1370589.0 * g->s2[0];
    k = (long long)(p2 / MRG_M2);
    p2 -= (double)k * MRG_M2;
    if (p2 < 0.0) p2 += MRG_M2;
    g->s2[0] = g->s2[1], g->s2[1] = g->s2[2], g->s2[2] = p2;
    return (p1 <= p2 ? p1 - p2 + MRG_M1 : p1 - p2) * MRG_NORM;
}

float mrg_uniform_pm1(mrg *g) {
    return (float)(floor(mrg_next(g) * 16777216.0) / 8388608.0 - 1.0);
}

val *rand_new(interp *in, pos at, int rows, int cols, unsigned long seed) {
    /* the GPU object first: a shape past the GL's limits is refused before the host array */
    val *v = dense_new(in, at, rows, cols, NULL);
    if (!v) return NULL;
    size_t n = (size_t)rows * (size_t)cols;
    float *d = malloc(sizeof *d * n);
    if (!d) {
        fail_at(in, at, "rand: out of host memory for %d x %d", rows, cols);
        val_unref(in, v);
        return NULL;
    }
    mrg g;
    mrg_seed(&g, seed);
    for (size_t i = 0; i < n; i++) d[i] = mrg_uniform_pm1(&g);
    texla_result r = v->kind == V_VEC ? texla_vec_write(in->ctx, d, v->x)
                                      : texla_mat_write(in->ctx, d, v->m);
    free(d);
    if (r) {
        gl_fail(in, at, "rand");
        val_unref(in, v);
        return NULL;
    }
    return v;
}

/* ---- conversions ---- */

static int dense_limit(interp *in, pos at, const val *v, const char *why) {
    long long e = (long long)v->rows * v->cols;
    if (e <= DENSE_MAX_ELEMS) return 0;
    char b[128];
    return fail_at(in, at, "%s: the %s would need %lld elements as a dense matrix (at most %lld "
                   "are converted)", why, describe_val(v, b, sizeof b), e, DENSE_MAX_ELEMS);
}

float *host_dense(interp *in, pos at, const val *v, const char *why) {
    if (v->kind == V_SCALAR) {
        float *d = malloc(sizeof *d);
        if (d) *d = (float)v->s;
        else fail_at(in, at, "%s: out of host memory", why);
        return d;
    }
    if ((v->kind == V_BANDED || v->kind == V_SPARSE) && dense_limit(in, at, v, why)) return NULL;
    /* the host copy of a banded matrix is a cache: filling it does not change the value */
    if (v->kind == V_BANDED && banded_host(in, at, (val *)v)) return NULL;
    size_t n = (size_t)v->rows * (size_t)v->cols;
    float *d = calloc(n, sizeof *d);
    if (!d) {
        fail_at(in, at, "%s: out of host memory for %d x %d", why, v->rows, v->cols);
        return NULL;
    }
    texla_result r = TEXLA_OK;
    if (v->kind == V_DENSE) {
        r = texla_mat_read(in->ctx, v->m, d);
    } else if (v->kind == V_VEC) {
        r = texla_vec_read(in->ctx, v->x, d);
    } else if (v->kind == V_BANDED) {
        size_t nn = (size_t)v->rows;
        for (int i = 0; i < v->ndiag; i++)
            for (int k = 0; k < v->rows; k++) {
                long long j = (long long)k + v->offs[i];
                if (j >= 0 && j < v->rows) d[(size_t)k * nn + (size_t)j] += v->diags[(size_t)i * nn + (size_t)k];
            }
    } else {
        for (int e = 0; e < v->nnz; e++) d[(size_t)v->ri[e] * (size_t)v->cols + (size_t)v->ci[e]] += v->vv[e];
    }
    if (r) {
        free(d);
        gl_fail(in, at, why);
        return NULL;
    }
    return d;
}

int num_of(interp *in, pos at, const val *v, double *out) {
    if (v->kind == V_SCALAR) {
        *out = v->s;
        return 0;
    }
    if (v->rows != 1 || v->cols != 1) return 1;
    float *d = host_dense(in, at, v, "a 1 x 1 value as a number");
    if (!d) return -1;
    *out = d[0];
    free(d);
    return 0;
}

val *to_dense(interp *in, pos at, val *v, const char *why) {
    if (v->kind == V_DENSE || v->kind == V_VEC) return val_ref(v);
    if (v->kind == V_SCALAR) {
        float f = (float)v->s;
        return dense_new(in, at, 1, 1, &f);
    }
    if (dense_limit(in, at, v, why)) return NULL;
    /* the GPU object first (the GL's limits), then the host array */
    val *r = dense_new(in, at, v->rows, v->cols, NULL);
    float *d = r ? host_dense(in, at, v, why) : NULL;
    if (d && (r->kind == V_VEC ? texla_vec_write(in->ctx, d, r->x)
                               : texla_mat_write(in->ctx, d, r->m)))
        gl_fail(in, at, why);
    if (!d || in->failed) {
        free(d);
        val_unref(in, r);
        return NULL;
    }
    free(d);
    return r;
}

int mat_of(interp *in, pos at, val *v, const char *why, texla_mat *out, int *owned) {
    out->id = 0;
    *owned = 0;
    if (v->kind == V_DENSE) {
        *out = v->m;
        return 0;
    }
    if (v->kind == V_VEC) {
        if (texla_mat_make(in->ctx, v->rows, 1, NULL, out) ||
            texla_mat_from_vec(in->ctx, v->x, *out)) {
            texla_mat_destroy(in->ctx, *out);
            out->id = 0;
            return gl_fail(in, at, why);
        }
        *owned = 1;
        return 0;
    }
    int rows = v->kind == V_SCALAR ? 1 : v->rows, cols = v->kind == V_SCALAR ? 1 : v->cols;
    if (v->kind != V_SCALAR && dense_limit(in, at, v, why)) return -1;
    if (texla_mat_make(in->ctx, rows, cols, NULL, out)) return gl_fail(in, at, why);
    float *d = host_dense(in, at, v, why);
    if (!d || texla_mat_write(in->ctx, d, *out)) {
        if (d) gl_fail(in, at, why);
        free(d);
        texla_mat_destroy(in->ctx, *out);
        out->id = 0;
        return -1;
    }
    free(d);
    *owned = 1;
    return 0;
}

/* triplets of the nonzeros of a row-major rows x cols array (malloc'd) */
static int triplets_of(interp *in, pos at, const float *d, int rows, int cols, int *nnz,
                       int **ri, int **ci, float **vv) {
    size_t n = (size_t)rows * (size_t)cols, cnt = 0;
    for (size_t i = 0; i < n; i++) cnt += d[i] != 0.0f;
    if (cnt > 0x7fffffff) return fail_at(in, at, "too many nonzeros (%zu)", cnt);
    *ri = malloc(sizeof **ri * (cnt ? cnt : 1));
    *ci = malloc(sizeof **ci * (cnt ? cnt : 1));
    *vv = malloc(sizeof **vv * (cnt ? cnt : 1));
    if (!*ri || !*ci || !*vv) {
        free(*ri), free(*ci), free(*vv);
        return fail_at(in, at, "out of host memory for %zu entries", cnt);
    }
    size_t e = 0;
    for (size_t i = 0; i < n; i++)
        if (d[i] != 0.0f) {
            (*ri)[e] = (int)(i / (size_t)cols), (*ci)[e] = (int)(i % (size_t)cols);
            (*vv)[e++] = d[i];
        }
    *nnz = (int)cnt;
    return 0;
}

val *to_sparse(interp *in, pos at, val *v, const char *why) {
    if (v->kind == V_SPARSE) return val_ref(v);
    int nnz = 0, *ri = NULL, *ci = NULL;
    float *vv = NULL;
    if (v->kind == V_BANDED) {
        if (banded_host(in, at, v)) return NULL;
        size_t cnt = 0, n = (size_t)v->rows;
        for (size_t i = 0; i < (size_t)v->ndiag * n; i++) cnt += v->diags[i] != 0.0f;
        ri = malloc(sizeof *ri * (cnt ? cnt : 1));
        ci = malloc(sizeof *ci * (cnt ? cnt : 1));
        vv = malloc(sizeof *vv * (cnt ? cnt : 1));
        if (!ri || !ci || !vv) {
            free(ri), free(ci), free(vv);
            fail_at(in, at, "%s: out of host memory", why);
            return NULL;
        }
        for (int i = 0; i < v->ndiag; i++)
            for (int k = 0; k < v->rows; k++) {
                float x = v->diags[(size_t)i * n + (size_t)k];
                long long j = (long long)k + v->offs[i];
                if (x != 0.0f && j >= 0 && j < v->rows) ri[nnz] = k, ci[nnz] = (int)j, vv[nnz++] = x;
            }
        return sparse_new(in, at, v->rows, v->cols, nnz, ri, ci, vv);
    }
    float *d = host_dense(in, at, v, why);
    if (!d) return NULL;
    int rows = v->kind == V_SCALAR ? 1 : v->rows, cols = v->kind == V_SCALAR ? 1 : v->cols;
    int r = triplets_of(in, at, d, rows, cols, &nnz, &ri, &ci, &vv);
    free(d);
    if (r) return NULL;
    return sparse_new(in, at, rows, cols, nnz, ri, ci, vv);
}

typedef struct diag_entry {
    long long off; /* column - row */
    int e;         /* the triplet */
} diag_entry;

static int by_offset(const void *pa, const void *pb) {
    const diag_entry *a = pa, *b = pb;
    return a->off < b->off ? -1 : a->off > b->off ? 1 : (a->e > b->e) - (a->e < b->e);
}

/* A banded matrix of the square triplets: one diagonal per offset that has an entry. Memory in
 * the number of entries and of stored elements (never in 2n), and the size of the diagonals is
 * checked before they are allocated. */
static val *banded_of_triplets(interp *in, pos at, int n, int nx, int ny, int nnz, const int *ri,
                               const int *ci, const float *vv, const char *why) {
    diag_entry *t = malloc(sizeof *t * (size_t)(nnz ? nnz : 1));
    if (!t) {
        fail_at(in, at, "%s: out of host memory for %d entries", why, nnz);
        return NULL;
    }
    for (int e = 0; e < nnz; e++) t[e] = (diag_entry){(long long)ci[e] - ri[e], e};
    if (nnz) qsort(t, (size_t)nnz, sizeof *t, by_offset);
    int nd = 0;
    for (int e = 0; e < nnz; e++) nd += e == 0 || t[e].off != t[e - 1].off;
    if ((long long)nd * n > DENSE_MAX_ELEMS) {
        free(t);
        fail_at(in, at, "%s: %d diagonal%s of %d elements %s too many for a banded matrix (at "
                "most %lld elements); use a sparse one", why, nd, nd == 1 ? "" : "s", n,
                nd == 1 ? "is" : "are", DENSE_MAX_ELEMS);
        return NULL;
    }
    int *offs = malloc(sizeof *offs * (size_t)(nd ? nd : 1));
    float *d = calloc((size_t)(nd ? nd : 1) * (size_t)n, sizeof *d);
    if (!offs || !d) {
        free(t), free(offs), free(d);
        fail_at(in, at, "%s: out of host memory", why);
        return NULL;
    }
    /* diagonals in increasing offset order; duplicates add in the file's order */
    nd = -1;
    for (int e = 0; e < nnz; e++) {
        if (e == 0 || t[e].off != t[e - 1].off) offs[++nd] = (int)t[e].off;
        int k = t[e].e;
        d[(size_t)nd * (size_t)n + (size_t)ri[k]] += vv[k];
    }
    free(t);
    return banded_new(in, at, n, nx, ny, nd + 1, offs, d);
}

val *to_banded(interp *in, pos at, val *v, const char *why) {
    if (v->kind == V_BANDED) return val_ref(v);
    char b[128];
    if (v->kind == V_SCALAR || v->rows != v->cols) {
        fail_at(in, at, "%s: a banded matrix must be square; this is a %s", why,
                describe_val(v, b, sizeof b));
        return NULL;
    }
    if (v->kind == V_SPARSE)
        return banded_of_triplets(in, at, v->rows, 0, 0, v->nnz, v->ri, v->ci, v->vv, why);
    float *d = host_dense(in, at, v, why);
    if (!d) return NULL;
    int nnz, *ri, *ci;
    float *vv;
    int r = triplets_of(in, at, d, v->rows, v->cols, &nnz, &ri, &ci, &vv);
    free(d);
    if (r) return NULL;
    val *res = banded_of_triplets(in, at, v->rows, 0, 0, nnz, ri, ci, vv, why);
    free(ri), free(ci), free(vv);
    return res;
}

val *transpose(interp *in, pos at, val *v) {
    if (v->kind == V_SCALAR) return val_ref(v);
    if (v->kind == V_SPARSE) {
        size_t n = (size_t)(v->nnz ? v->nnz : 1);
        int *ri = malloc(sizeof *ri * n), *ci = malloc(sizeof *ci * n);
        float *vv = malloc(sizeof *vv * n);
        if (!ri || !ci || !vv) {
            free(ri), free(ci), free(vv);
            fail_at(in, at, "transpose: out of host memory");
            return NULL;
        }
        memcpy(ri, v->ci, sizeof *ri * (size_t)v->nnz);
        memcpy(ci, v->ri, sizeof *ci * (size_t)v->nnz);
        memcpy(vv, v->vv, sizeof *vv * (size_t)v->nnz);
        return sparse_new(in, at, v->cols, v->rows, v->nnz, ri, ci, vv);
    }
    if (v->kind == V_BANDED) {
        if (banded_host(in, at, v)) return NULL;
        /* A'(k, k - d) = A(k - d, k): diagonal d becomes -d, shifted by d */
        size_t n = (size_t)v->rows;
        int *offs = malloc(sizeof *offs * (size_t)(v->ndiag ? v->ndiag : 1));
        float *d = calloc((size_t)(v->ndiag ? v->ndiag : 1) * n, sizeof *d);
        if (!offs || !d) {
            free(offs), free(d);
            fail_at(in, at, "transpose: out of host memory");
            return NULL;
        }
        for (int i = 0; i < v->ndiag; i++) {
            int o = v->offs[i];
            offs[i] = -o;
            for (long long k = 0; k < (long long)n; k++)
                if (k - o >= 0 && k - o < (long long)n)
                    d[(size_t)i * n + (size_t)k] = v->diags[(size_t)i * n + (size_t)(k - o)];
        }
        return banded_new(in, at, v->rows, v->nx, v->ny, v->ndiag, offs, d);
    }
    /* dense and vectors: through the host (exact; A' * B and A * B' never get here). The
     * destination first, so a shape past the GL's limits costs nothing. */
    val *r = dense_new(in, at, v->cols, v->rows, NULL);
    if (!r) return NULL;
    float *d = host_dense(in, at, v, "transpose");
    float *t = d ? malloc(sizeof *t * (size_t)v->rows * (size_t)v->cols) : NULL;
    if (d && !t) fail_at(in, at, "transpose: out of host memory");
    if (t) {
        for (size_t i = 0; i < (size_t)v->rows; i++)
            for (size_t j = 0; j < (size_t)v->cols; j++)
                t[j * (size_t)v->rows + i] = d[i * (size_t)v->cols + j];
        if (r->kind == V_VEC ? texla_vec_write(in->ctx, t, r->x) : texla_mat_write(in->ctx, t, r->m))
            gl_fail(in, at, "transpose");
    }
    free(d), free(t);
    if (in->failed) {
        val_unref(in, r);
        return NULL;
    }
    return r;
}

/* same n, same grid and texture: the element-wise operations accept them together */
static int same_layout(interp *in, texla_vec a, texla_vec b) {
    texla_vec_info ia, ib;
    if (texla_vec_info_get(in->ctx, a, &ia) || texla_vec_info_get(in->ctx, b, &ib)) return 0;
    return ia.n == ib.n && ia.nx == ib.nx && ia.gx == ib.gx && ia.gy == ib.gy;
}

/* copies src into dst of another layout (same n): on the GPU through a dense n x 1 texture
 * where the GL holds one, through the host otherwise */
static int relayout(interp *in, pos at, texla_vec src, texla_vec dst) {
    texla_vec_info vi;
    if (texla_vec_info_get(in->ctx, src, &vi)) return gl_fail(in, at, "a vector");
    if ((vi.n + 3) / 4 <= in->max_tex) {
        texla_mat t;
        texla_result r = texla_mat_make(in->ctx, vi.n, 1, NULL, &t);
        if (!r) r = texla_mat_from_vec(in->ctx, src, t);
        if (!r) r = texla_vec_from_mat(in->ctx, t, dst);
        texla_mat_destroy(in->ctx, t);
        return r ? gl_fail(in, at, "changing a vector's layout") : 0;
    }
    float *d = malloc(sizeof *d * (size_t)vi.n);
    if (!d) return fail_at(in, at, "out of host memory changing the layout of a vector of %d", vi.n);
    texla_result r = texla_vec_read(in->ctx, src, d);
    if (!r) r = texla_vec_write(in->ctx, d, dst);
    free(d);
    return r ? gl_fail(in, at, "changing a vector's layout") : 0;
}

int vec_in(interp *in, pos at, const val *x, texla_vec like, texla_vec *out, int *owned) {
    *owned = 0;
    if (!like.id || same_layout(in, x->x, like)) {
        *out = x->x;
        return 0;
    }
    if (texla_vec_make_like(in->ctx, like, out)) return gl_fail(in, at, "making a vector");
    if (relayout(in, at, x->x, *out)) {
        texla_vec_destroy(in->ctx, *out);
        out->id = 0;
        return -1;
    }
    *owned = 1;
    return 0;
}

int vec_on_grid(interp *in, pos at, const val *x, texla_vec *out, int *owned) {
    texla_vec_info vi;
    *owned = 0;
    if (texla_vec_info_get(in->ctx, x->x, &vi)) return gl_fail(in, at, "a vector");
    if (!x->nx || (vi.nx == x->nx && vi.n == x->rows && vi.gx == x->nx + (x->nx & 1))) {
        *out = x->x;
        return 0;
    }
    if (texla_vec_make_grid(in->ctx, x->nx, x->ny, NULL, out))
        return gl_fail(in, at, "making a grid vector");
    if (relayout(in, at, x->x, *out)) {
        texla_vec_destroy(in->ctx, *out);
        out->id = 0;
        return -1;
    }
    *owned = 1;
    return 0;
}

val *with_grid(interp *in, pos at, val *v, int nx, int ny) {
    char b[128];
    if (v->kind != V_VEC && v->kind != V_BANDED) {
        fail_at(in, at, "grid: expected a vector or a banded matrix, not a %s",
                describe_val(v, b, sizeof b));
        return NULL;
    }
    if ((long long)nx * ny != v->rows) {
        fail_at(in, at, "grid: a %d x %d grid has %lld cells; the %s has %d rows", nx, ny,
                (long long)nx * ny, describe_val(v, b, sizeof b), v->rows);
        return NULL;
    }
    if (v->kind == V_BANDED) {
        if (banded_host(in, at, v)) return NULL;
        size_t n = (size_t)v->rows, nd = (size_t)(v->ndiag ? v->ndiag : 1);
        int *offs = malloc(sizeof *offs * nd);
        float *d = malloc(sizeof *d * nd * n);
        if (!offs || !d) {
            free(offs), free(d);
            fail_at(in, at, "grid: out of host memory");
            return NULL;
        }
        memcpy(offs, v->offs, sizeof *offs * (size_t)v->ndiag);
        memcpy(d, v->diags, sizeof *d * (size_t)v->ndiag * n);
        return banded_new(in, at, v->rows, nx, ny, v->ndiag, offs, d);
    }
    /* the copy goes to the grid's layout at once: its products and images want that */
    texla_vec g;
    if (texla_vec_make_grid(in->ctx, nx, ny, NULL, &g)) {
        gl_fail(in, at, "grid");
        return NULL;
    }
    if (same_layout(in, v->x, g) ? texla_vec_copy(in->ctx, v->x, g) && gl_fail(in, at, "grid")
                                 : relayout(in, at, v->x, g)) {
        texla_vec_destroy(in->ctx, g);
        return NULL;
    }
    return vec_take(in, at, g, nx, ny);
}

/* ---- files ---- */

/* the path of a load: relative ones start in the script's folder */
static char *resolve(const interp *in, const char *path) {
    const char *dir = in->sc->dir ? in->sc->dir : "";
    size_t a = path[0] == '/' ? 0 : strlen(dir), b = strlen(path);
    char *p = malloc(a + b + 1);
    if (p) {
        memcpy(p, dir, a);
        memcpy(p + a, path, b + 1);
    }
    return p;
}

val *load_file(interp *in, pos at, const char *path, load_as as) {
    char what[600];
    snprintf(what, sizeof what, "load \"%.500s\"", path);
    char *full = resolve(in, path);
    if (!full) {
        fail_at(in, at, "%s: out of host memory", what);
        return NULL;
    }
    size_t pl = strlen(path);
    if (pl > 4 && !strcasecmp(path + pl - 4, ".png")) {
        /* a PNG image: grey levels (or its texla:range) into a dense matrix */
        texla_mat m = {0};
        texla_mat_info mi;
        val *v = NULL;
        if (texla_png_read(in->ctx, full, &m) || texla_mat_info_get(in->ctx, m, &mi)) {
            gl_fail(in, at, what);
            texla_mat_destroy(in->ctx, m);
        } else {
            v = val_of_mat(in, at, m, mi.rows, mi.cols);
        }
        free(full);
        if (!v) return NULL;
        if (as == AS_AUTO || as == AS_DENSE) return v;
        val *c = as == AS_SPARSE ? to_sparse(in, at, v, what) : to_banded(in, at, v, what);
        val_unref(in, v);
        return c;
    }
    texla_mm mm;
    texla_result r = texla_mm_read(in->ctx, full, &mm);
    free(full);
    if (r == TEXLA_ERR_FORMAT && strstr(texla_error_message(in->ctx), "field 'complex'")) {
        /* the library's message names its complex reader, which a script cannot call */
        fail_at(in, at, "%s: a complex Matrix Market file; scripts hold real values only "
                "(`texla tune FILE` tunes complex matrices)", what);
        return NULL;
    }
    if (r) {
        gl_fail(in, at, what);
        return NULL;
    }
    val *v = NULL;
    if (mm.rows < 1 || mm.cols < 1) {
        fail_at(in, at, "%s: the matrix is empty (%d x %d)", what, mm.rows, mm.cols);
    } else if (as == AS_DENSE || (as == AS_AUTO && !mm.coordinate)) {
        if (mm.coordinate) {
            val tmp = {.kind = V_SPARSE, .rows = mm.rows, .cols = mm.cols, .nnz = mm.nnz,
                       .ri = mm.row, .ci = mm.col, .vv = mm.val};
            v = to_dense(in, at, &tmp, what);
        } else {
            v = dense_new(in, at, mm.rows, mm.cols, mm.dense);
        }
    } else if (as == AS_SPARSE || as == AS_AUTO) {
        if (mm.coordinate) {
            v = sparse_new(in, at, mm.rows, mm.cols, mm.nnz, mm.row, mm.col, mm.val);
            mm.row = mm.col = NULL, mm.val = NULL; /* taken */
        } else {
            int nnz, *ri, *ci;
            float *vv;
            if (!triplets_of(in, at, mm.dense, mm.rows, mm.cols, &nnz, &ri, &ci, &vv))
                v = sparse_new(in, at, mm.rows, mm.cols, nnz, ri, ci, vv);
        }
    } else { /* banded */
        if (mm.rows != mm.cols) {
            fail_at(in, at, "%s as banded: a banded matrix must be square; the file's is %d x %d",
                    what, mm.rows, mm.cols);
        } else if (mm.coordinate) {
            v = banded_of_triplets(in, at, mm.rows, 0, 0, mm.nnz, mm.row, mm.col, mm.val, what);
        } else {
            int nnz, *ri, *ci;
            float *vv;
            if (!triplets_of(in, at, mm.dense, mm.rows, mm.cols, &nnz, &ri, &ci, &vv)) {
                v = banded_of_triplets(in, at, mm.rows, 0, 0, nnz, ri, ci, vv, what);
                free(ri), free(ci), free(vv);
            }
        }
    }
    texla_mm_free(&mm);
    return v;
}

/* (key, place) pairs: by key, then place */
static int by_key_place(const void *a, const void *b) {
    const long long *x = a, *y = b;
    if (x[0] != y[0]) return (x[0] > y[0]) - (x[0] < y[0]);
    return (x[1] > y[1]) - (x[1] < y[1]);
}

int cells_merge(int cols, int n, const int *ri, const int *ci, const float *vv, int *m, int **ro,
                int **co, float **vo) {
    size_t sz = (size_t)(n > 0 ? n : 1);
    long long *key = malloc(sizeof *key * 2 * sz); /* (row * cols + col, place) pairs */
    int *r = malloc(sizeof *r * sz), *c = malloc(sizeof *c * sz);
    float *v = malloc(sizeof *v * sz);
    if (!key || !r || !c || !v) {
        free(key), free(r), free(c), free(v);
        return -1;
    }
    size_t N = (size_t)(n > 0 ? n : 0), k = 0;
    for (size_t e = 0; e < N; e++) {
        key[2 * e] = (long long)ri[e] * cols + ci[e];
        key[2 * e + 1] = (long long)e;
    }
    if (N) qsort(key, N, 2 * sizeof *key, by_key_place);
    for (size_t e = 0; e < N;) {
        long long cell = key[2 * e];
        double sum = 0;
        for (; e < N && key[2 * e] == cell; e++) sum += vv[key[2 * e + 1]];
        r[k] = (int)(cell / cols), c[k] = (int)(cell % cols), v[k++] = (float)sum;
    }
    free(key);
    *m = (int)k, *ro = r, *co = c, *vo = v;
    return 0;
}

/* banded and sparse: a coordinate file of the nonzeros, duplicates added, in row order */
static int save_coord(interp *in, pos at, const val *v, const char *path, const char *what) {
    val *s = to_sparse(in, at, (val *)v, what);
    if (!s) return -1;
    int m = 0, *ri = NULL, *ci = NULL, rc = 0;
    float *vv = NULL;
    if (cells_merge(s->cols, s->nnz, s->ri, s->ci, s->vv, &m, &ri, &ci, &vv)) {
        rc = fail_at(in, at, "%s: out of host memory", what);
    } else {
        int k = 0; /* cells whose duplicates cancel are not written */
        for (int e = 0; e < m; e++)
            if (vv[e] != 0.0f) ri[k] = ri[e], ci[k] = ci[e], vv[k++] = vv[e];
        if (texla_mm_write_coord(in->ctx, path, s->rows, s->cols, k, ri, ci, vv))
            rc = gl_fail(in, at, what);
    }
    free(ri), free(ci), free(vv);
    val_unref(in, s);
    return rc;
}

int save_file(interp *in, pos at, const val *v, const char *path) {
    char what[600];
    snprintf(what, sizeof what, "save \"%.500s\"", path);
    if (v->kind == V_BANDED || v->kind == V_SPARSE) return save_coord(in, at, v, path, what);
    float *d = host_dense(in, at, v, what);
    if (!d) return -1;
    int rows = v->kind == V_SCALAR ? 1 : v->rows, cols = v->kind == V_SCALAR ? 1 : v->cols;
    int rc = 0;
    if (texla_mm_write_array(in->ctx, path, rows, cols, d)) rc = gl_fail(in, at, what);
    free(d);
    return rc;
}

int png_file(interp *in, pos at, const val *v, const char *path, const texla_png_desc *d) {
    char what[600];
    snprintf(what, sizeof what, "png \"%.500s\"", path);
    texla_result r = TEXLA_OK;
    switch (v->kind) {
    case V_SCALAR: {
        texla_scalar s = {0};
        r = texla_scalar_make(in->ctx, (float)v->s, &s);
        if (!r) r = texla_png_scalar(in->ctx, s, path, d);
        texla_scalar_destroy(in->ctx, s);
        break;
    }
    case V_VEC: {
        /* a grid vector on its grid; a plain one as the n x 1 picture it is, where the dense
         * layout holds it, else as its 2D layout */
        texla_vec g;
        texla_mat m;
        int owned;
        if (v->nx || (v->rows + 3) / 4 > in->max_tex) {
            if (vec_on_grid(in, at, v, &g, &owned)) return -1;
            r = texla_png_vec(in->ctx, g, path, d);
            if (owned) texla_vec_destroy(in->ctx, g);
        } else {
            if (mat_of(in, at, (val *)v, what, &m, &owned)) return -1;
            r = texla_png_mat(in->ctx, m, path, d);
            if (owned) texla_mat_destroy(in->ctx, m);
        }
        break;
    }
    case V_DENSE: r = texla_png_mat(in->ctx, v->m, path, d); break;
    case V_BANDED: r = texla_png_banded(in->ctx, v->b, path, d); break;
    case V_SPARSE: r = texla_png_sparse(in->ctx, v->sp, path, d); break;
    }
    return r ? gl_fail(in, at, what) : 0;
}

/* ---- print ---- */

#define PRINT_MAX 10 /* rows and columns shown */

int print_val(interp *in, pos at, const val *v, const char *label) {
    FILE *o = in->out;
    if (v->kind == V_SCALAR && !label) {
        fprintf(o, "  %.9g\n", v->s);
        return 0;
    }
    if (v->kind == V_SCALAR) {
        fprintf(o, "%s = %.9g\n", label, v->s);
        return 0;
    }
    int sr = v->rows < PRINT_MAX ? v->rows : PRINT_MAX, sc = v->cols < PRINT_MAX ? v->cols : PRINT_MAX;
    float *blk = calloc((size_t)sr * (size_t)sc, sizeof *blk);
    if (!blk) return fail_at(in, at, "print: out of host memory");
    if (v->kind == V_DENSE || v->kind == V_VEC) {
        float *d = host_dense(in, at, v, "print");
        if (!d) {
            free(blk);
            return -1;
        }
        for (int i = 0; i < sr; i++)
            for (int j = 0; j < sc; j++) blk[i * sc + j] = d[(size_t)i * (size_t)v->cols + (size_t)j];
        free(d);
    } else if (v->kind == V_BANDED) {
        if (banded_host(in, at, (val *)v)) {
            free(blk);
            return -1;
        }
        for (int i = 0; i < v->ndiag; i++)
            for (int k = 0; k < sr; k++) {
                long long j = (long long)k + v->offs[i];
                if (j >= 0 && j < sc) blk[k * sc + j] += v->diags[(size_t)i * (size_t)v->rows + (size_t)k];
            }
    } else {
        for (int e = 0; e < v->nnz; e++)
            if (v->ri[e] < sr && v->ci[e] < sc) blk[v->ri[e] * sc + v->ci[e]] += v->vv[e];
    }
    char b[160];
    /* without a label (print "text", A) the shape was on the item's line: only the notes */
    if (label) fprintf(o, "%s = %s", label, describe_val(v, b, sizeof b));
    int notes = v->kind == V_BANDED || sr < v->rows || sc < v->cols;
    if (!label && notes) fputs("  (", o);
    if (v->kind == V_BANDED) {
        fprintf(o, label ? ", offsets" : "offsets");
        for (int i = 0; i < v->ndiag && i < 16; i++) fprintf(o, " %d", v->offs[i]);
        if (v->ndiag > 16) fprintf(o, " ...");
    }
    const char *sep = label || v->kind == V_BANDED ? "; " : "";
    if (sr < v->rows && sc < v->cols)
        fprintf(o, "%sthe first %d rows and %d columns shown", sep, sr, sc);
    else if (sr < v->rows)
        fprintf(o, "%sthe first %d rows shown", sep, sr);
    else if (sc < v->cols)
        fprintf(o, "%sthe first %d columns shown", sep, sc);
    if (!label && notes) fputc(')', o);
    if (label || notes) fputc('\n', o);
    int w = 1;
    char cell[64];
    for (int i = 0; i < sr * sc; i++) {
        int l = snprintf(cell, sizeof cell, "%.6g", (double)blk[i]);
        if (l > w) w = l;
    }
    for (int i = 0; i < sr; i++) {
        for (int j = 0; j < sc; j++) fprintf(o, "  %*.6g", w, (double)blk[i * sc + j]);
        fprintf(o, "%s\n", sc < v->cols ? "  ..." : "");
    }
    if (sr < v->rows) fprintf(o, "  ... (%d more rows)\n", v->rows - sr);
    free(blk);
    return 0;
}

static unsigned name_hash(const char *s) {
    unsigned h = 2166136261u; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

var *find_var(interp *in, const char *name) {
    if (!in->vhash || in->vhn != in->nvars) { /* not indexed (out of memory): a scan */
        for (int i = 0; i < in->nvars; i++)
            if (!strcmp(in->vars[i].name, name)) return &in->vars[i];
        return NULL;
    }
    unsigned m = (unsigned)in->vhcap - 1;
    for (unsigned k = name_hash(name) & m;; k = (k + 1) & m) {
        int e = in->vhash[k];
        if (!e) return NULL;
        if (!strcmp(in->vars[e - 1].name, name)) return &in->vars[e - 1];
    }
}

int index_vars(interp *in) {
    if (in->vhn == in->nvars && in->vhash) return 0;
    if (!in->vhash || 2 * in->nvars > in->vhcap) { /* at most half full: rebuilt larger */
        int cap = 64;
        while (cap < 4 * in->nvars) cap *= 2;
        int *h = calloc((size_t)cap, sizeof *h);
        if (!h) {
            free(in->vhash);
            in->vhash = NULL;
            in->vhcap = in->vhn = 0;
            return -1;
        }
        free(in->vhash);
        in->vhash = h;
        in->vhcap = cap;
        in->vhn = 0;
    }
    unsigned m = (unsigned)in->vhcap - 1;
    for (; in->vhn < in->nvars; in->vhn++) {
        unsigned k = name_hash(in->vars[in->vhn].name) & m;
        while (in->vhash[k]) k = (k + 1) & m;
        in->vhash[k] = in->vhn + 1;
    }
    return 0;
}
