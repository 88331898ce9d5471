/* interp.c - evaluates a parsed texla script: expressions, builtins and statements. Every
 * operation makes a new value, so a texla destination is never also a source; layouts are
 * converted on the GPU where texla can (dense n x 1 <-> 2D vectors) and through the host copies
 * of banded and sparse matrices otherwise. */
#include "values.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define INT_LIMIT ((double)INT_MAX) /* sizes, counts and seeds: up to 2^31 - 1 */

/* the line and column of a byte of the script (for errors about whole expressions) */
static pos pos_of(const script *sc, int off) {
    pos p = {1, 1};
    for (int i = 0; i < off && (size_t)i < sc->len; i++) {
        if (sc->text[i] == '\n') p.line++, p.col = 1;
        else p.col++;
    }
    return p;
}

static pos start_of(const interp *in, const node *n) { return pos_of(in->sc, n->src0); }

/* ---- variables ---- */

static var *find_var(interp *in, const char *name) {
    for (int i = 0; i < in->nvars; i++)
        if (!strcmp(in->vars[i].name, name)) return &in->vars[i];
    return NULL;
}

/* binds name to v (taking the reference) */
static int set_var(interp *in, pos at, const char *name, val *v) {
    var *x = find_var(in, name);
    if (x) {
        val_unref(in, x->v);
        x->v = v;
        return 0;
    }
    if (in->nvars == in->capvars) {
        int cap = in->capvars ? in->capvars * 2 : 16;
        var *nv = realloc(in->vars, sizeof *nv * (size_t)cap);
        if (!nv) {
            val_unref(in, v);
            return fail_at(in, at, "out of host memory");
        }
        in->vars = nv;
        in->capvars = cap;
    }
    in->vars[in->nvars++] = (var){name, v};
    return 0;
}

/* ---- arithmetic ---- */

static int grid_x(const val *a, const val *b) { return a->nx ? a->nx : b ? b->nx : 0; }
static int grid_y(const val *a, const val *b) { return a->nx ? a->ny : b ? b->ny : 0; }

/* r = s * X for any matrix */
static val *scale(interp *in, pos at, val *x, double s) {
    if (x->kind == V_SCALAR) return scalar_new(in, x->s * s);
    float f = (float)s;
    if (!isfinite(f)) {
        fail_at(in, at, "the factor %g is not a finite float", s);
        return NULL;
    }
    if (x->kind == V_DENSE) {
        val *r = dense_new(in, at, x->rows, x->cols, NULL);
        if (r && texla_mat_scale(in->ctx, x->m, texla_host(f), r->m)) {
            gl_fail(in, at, "scaling");
            val_unref(in, r);
            return NULL;
        }
        if (r) r->nx = x->nx, r->ny = x->ny;
        return r;
    }
    if (x->kind == V_BANDED) {
        size_t n = (size_t)x->ndiag * (size_t)x->rows;
        int *offs = malloc(sizeof *offs * (size_t)(x->ndiag ? x->ndiag : 1));
        float *d = malloc(sizeof *d * (n ? n : 1));
        if (!offs || !d) {
            free(offs), free(d);
            fail_at(in, at, "out of host memory");
            return NULL;
        }
        memcpy(offs, x->offs, sizeof *offs * (size_t)x->ndiag);
        for (size_t i = 0; i < n; i++) d[i] = x->diags[i] * f;
        return banded_new(in, at, x->rows, x->nx, x->ny, x->ndiag, offs, d);
    }
    size_t n = (size_t)(x->nnz ? x->nnz : 1);
    int *ri = malloc(sizeof *ri * n), *ci = malloc(sizeof *ci * n);
    float *vv = malloc(sizeof *vv * n);
    if (!ri || !ci || !vv) {
        free(ri), free(ci), free(vv);
        fail_at(in, at, "out of host memory");
        return NULL;
    }
    memcpy(ri, x->ri, sizeof *ri * (size_t)x->nnz);
    memcpy(ci, x->ci, sizeof *ci * (size_t)x->nnz);
    for (int e = 0; e < x->nnz; e++) vv[e] = x->vv[e] * f;
    return sparse_new(in, at, x->rows, x->cols, x->nnz, ri, ci, vv);
}

/* y = A x for banded or sparse A and an n x 1 dense x, through 2D vectors on the GPU */
static val *apply(interp *in, pos at, val *a, val *x) {
    texla_vec xv = {0}, yv = {0};
    if (vec_of(in, at, x, a->kind == V_BANDED ? a->like : a->clike, &xv)) return NULL;
    val *r = NULL;
    texla_op op = a->kind == V_BANDED ? texla_op_banded(a->b) : texla_op_sparse(a->sp);
    if (texla_vec_make_like(in->ctx, a->like, &yv) || texla_op_matvec(in->ctx, op, xv, yv)) {
        gl_fail(in, at, a->kind == V_BANDED ? "banded product" : "sparse product");
    } else {
        int sq = a->rows == a->cols;
        r = dense_of_vec(in, at, yv, a->kind == V_BANDED ? a->nx : sq ? x->nx : 0,
                         a->kind == V_BANDED ? a->ny : sq ? x->ny : 0);
    }
    texla_vec_destroy(in->ctx, xv);
    texla_vec_destroy(in->ctx, yv);
    return r;
}

/* y = A' x for sparse A and an n x 1 dense x: texla's transposed product (no host transpose) */
static val *apply_t(interp *in, pos at, val *a, val *x) {
    texla_vec xv = {0}, yv = {0};
    if (vec_of(in, at, x, a->like, &xv)) return NULL;
    val *r = NULL;
    if (texla_vec_make_like(in->ctx, a->clike, &yv) ||
        texla_sparse_matvec_t(in->ctx, a->sp, xv, yv))
        gl_fail(in, at, "transposed sparse product");
    else
        r = dense_of_vec(in, at, yv, a->rows == a->cols ? x->nx : 0, a->rows == a->cols ? x->ny : 0);
    texla_vec_destroy(in->ctx, xv);
    texla_vec_destroy(in->ctx, yv);
    return r;
}

typedef enum prod { P_NN, P_TN, P_NT } prod;

/* dense products: C = A * B, A' * B, A * B' */
static val *matmul(interp *in, pos at, val *a, val *b, prod p) {
    int n = p == P_TN ? a->cols : a->rows, k1 = p == P_TN ? a->rows : a->cols;
    int m = p == P_NT ? b->rows : b->cols, k2 = p == P_NT ? b->cols : b->rows;
    if (k1 != k2) {
        char b1[128], b2[128];
        fail_at(in, at, "shape mismatch: %s%s * %s%s (inner dimensions %d and %d differ)",
                describe_val(a, b1, sizeof b1), p == P_TN ? " transposed" : "",
                describe_val(b, b2, sizeof b2), p == P_NT ? " transposed" : "", k1, k2);
        return NULL;
    }
    val *r = dense_new(in, at, n, m, NULL);
    if (!r) return NULL;
    texla_result e = p == P_NN ? texla_mat_matmul(in->ctx, a->m, b->m, r->m)
                   : p == P_TN ? texla_mat_matmul_tn(in->ctx, a->m, b->m, r->m)
                               : texla_mat_matmul_nt(in->ctx, a->m, b->m, r->m);
    if (e) {
        gl_fail(in, at, "product");
        val_unref(in, r);
        return NULL;
    }
    /* a square matrix times a grid vector keeps the grid */
    if (p == P_NN && m == 1 && n == k1) r->nx = b->nx, r->ny = b->ny;
    return r;
}

static val *mul(interp *in, pos at, val *a, val *b) {
    char b1[128], b2[128];
    if (a->kind == V_SCALAR && b->kind == V_SCALAR) return scalar_new(in, a->s * b->s);
    if (a->kind == V_SCALAR) return scale(in, at, b, a->s);
    if (b->kind == V_SCALAR) return scale(in, at, a, b->s);
    if (a->cols != b->rows) {
        fail_at(in, at, "shape mismatch: %s * %s (inner dimensions %d and %d differ)",
                describe_val(a, b1, sizeof b1), describe_val(b, b2, sizeof b2), a->cols, b->rows);
        return NULL;
    }
    if (a->kind == V_DENSE && b->kind == V_DENSE) return matmul(in, at, a, b, P_NN);
    if (b->kind == V_DENSE && b->cols == 1) return apply(in, at, a, b);
    if (a->kind == V_DENSE && a->rows == 1) { /* x' B = (B' x)' */
        val *bt = transpose(in, at, b), *xt = bt ? transpose(in, at, a) : NULL;
        val *y = xt ? apply(in, at, bt, xt) : NULL, *r = y ? transpose(in, at, y) : NULL;
        val_unref(in, bt), val_unref(in, xt), val_unref(in, y);
        return r;
    }
    fail_at(in, at, "not supported: %s * %s (banded and sparse matrices multiply vectors; "
            "convert with dense(...) for a matrix product)", describe_val(a, b1, sizeof b1),
            describe_val(b, b2, sizeof b2));
    return NULL;
}

/* a op b for two dense matrices of one shape; op '+', '-' or OP_EMUL */
static val *dense_ew(interp *in, pos at, int op, val *a, val *b) {
    val *r = dense_new(in, at, a->rows, a->cols, NULL);
    if (!r) return NULL;
    texla_result e = op == '+' ? texla_mat_add(in->ctx, a->m, b->m, r->m)
                   : op == '-' ? texla_mat_sub(in->ctx, a->m, b->m, r->m)
                               : texla_mat_mul(in->ctx, a->m, b->m, r->m);
    if (e) {
        gl_fail(in, at, op == '+' ? "sum" : op == '-' ? "difference" : "element-wise product");
        val_unref(in, r);
        return NULL;
    }
    if (r->cols == 1) r->nx = grid_x(a, b), r->ny = grid_y(a, b);
    return r;
}

/* a + b or a - b of two banded matrices: the union of their diagonals (host), a's layout */
static val *banded_sum(interp *in, pos at, val *a, val *b, double sign) {
    size_t n = (size_t)a->rows;
    int cap = a->ndiag + b->ndiag;
    int *offs = malloc(sizeof *offs * (size_t)(cap ? cap : 1));
    float *d = calloc((size_t)(cap ? cap : 1) * n, sizeof *d);
    if (!offs || !d) {
        free(offs), free(d);
        fail_at(in, at, "out of host memory");
        return NULL;
    }
    int nd = 0;
    for (int pass = 0; pass < 2; pass++) {
        val *x = pass ? b : a;
        float f = pass ? (float)sign : 1.0f;
        for (int i = 0; i < x->ndiag; i++) {
            int j = 0;
            while (j < nd && offs[j] != x->offs[i]) j++;
            if (j == nd) offs[nd++] = x->offs[i];
            for (size_t k = 0; k < n; k++) d[(size_t)j * n + k] += f * x->diags[(size_t)i * n + k];
        }
    }
    return banded_new(in, at, a->rows, a->nx, a->ny, nd, offs, d);
}

/* a + b or a - b of sparse matrices: the triplets of both (duplicates add) */
static val *sparse_sum(interp *in, pos at, val *a, val *b, double sign) {
    long long nnz = (long long)a->nnz + b->nnz;
    if (nnz > 0x7fffffff) {
        fail_at(in, at, "too many entries (%lld)", nnz);
        return NULL;
    }
    size_t n = (size_t)(nnz ? nnz : 1);
    int *ri = malloc(sizeof *ri * n), *ci = malloc(sizeof *ci * n);
    float *vv = malloc(sizeof *vv * n);
    if (!ri || !ci || !vv) {
        free(ri), free(ci), free(vv);
        fail_at(in, at, "out of host memory");
        return NULL;
    }
    memcpy(ri, a->ri, sizeof *ri * (size_t)a->nnz);
    memcpy(ci, a->ci, sizeof *ci * (size_t)a->nnz);
    memcpy(vv, a->vv, sizeof *vv * (size_t)a->nnz);
    memcpy(ri + a->nnz, b->ri, sizeof *ri * (size_t)b->nnz);
    memcpy(ci + a->nnz, b->ci, sizeof *ci * (size_t)b->nnz);
    for (int e = 0; e < b->nnz; e++) vv[a->nnz + e] = (float)sign * b->vv[e];
    return sparse_new(in, at, a->rows, a->cols, (int)nnz, ri, ci, vv);
}

static const char *op_name(int op) {
    return op == '+' ? "+" : op == '-' ? "-" : op == OP_EMUL ? ".*" : op == '*' ? "*" : "/";
}

/* +, - and .* for every pair of kinds */
static val *elementwise(interp *in, pos at, int op, val *a, val *b) {
    char b1[128], b2[128];
    if (a->kind == V_SCALAR && b->kind == V_SCALAR)
        return scalar_new(in, op == '+' ? a->s + b->s : op == '-' ? a->s - b->s : a->s * b->s);
    if (op == OP_EMUL && (a->kind == V_SCALAR || b->kind == V_SCALAR))
        return a->kind == V_SCALAR ? scale(in, at, b, a->s) : scale(in, at, a, b->s);
    if (a->kind == V_SCALAR || b->kind == V_SCALAR) { /* s + X: X plus a constant matrix */
        val *x = a->kind == V_SCALAR ? b : a, *s = a->kind == V_SCALAR ? a : b;
        float f = (float)s->s;
        if (!isfinite(f)) {
            fail_at(in, at, "the number %g is not a finite float", s->s);
            return NULL;
        }
        val *xd = to_dense(in, at, x, op_name(op)), *c = NULL, *r = NULL;
        if (xd) c = dense_const(in, at, x->rows, x->cols, f);
        if (c) {
            r = a->kind == V_SCALAR ? dense_ew(in, at, op, c, xd) : dense_ew(in, at, op, xd, c);
            if (r && r->cols == 1) r->nx = x->nx, r->ny = x->ny;
        }
        val_unref(in, xd), val_unref(in, c);
        return r;
    }
    if (a->rows != b->rows || a->cols != b->cols) {
        fail_at(in, at, "shape mismatch: %s %s %s", describe_val(a, b1, sizeof b1), op_name(op),
                describe_val(b, b2, sizeof b2));
        return NULL;
    }
    if (a->kind == V_DENSE && b->kind == V_DENSE) return dense_ew(in, at, op, a, b);
    double sign = op == '-' ? -1.0 : 1.0;
    if (op != OP_EMUL && a->kind == V_BANDED && b->kind == V_BANDED)
        return banded_sum(in, at, a, b, sign);
    if (op != OP_EMUL && a->kind != V_DENSE && b->kind != V_DENSE) {
        val *sa = to_sparse(in, at, a, op_name(op)), *sb = sa ? to_sparse(in, at, b, op_name(op)) : NULL;
        val *r = sb ? sparse_sum(in, at, sa, sb, sign) : NULL;
        val_unref(in, sa), val_unref(in, sb);
        return r;
    }
    /* a dense operand (or .* of structured ones): everything dense */
    val *da = to_dense(in, at, a, op_name(op)), *db = da ? to_dense(in, at, b, op_name(op)) : NULL;
    val *r = db ? dense_ew(in, at, op, da, db) : NULL;
    val_unref(in, da), val_unref(in, db);
    return r;
}

/* ---- builtins ---- */

typedef struct call {
    interp *in;
    const node *n;
    val **a; /* evaluated arguments */
} call;

static int want_num(call *c, int i, const char *name, double *out) {
    const val *v = c->a[i];
    char b[128];
    if (v->kind != V_SCALAR)
        return fail_at(c->in, start_of(c->in, c->n->args[i]), "%s: %s must be a number, not a %s",
                       c->n->name, name, describe_val(v, b, sizeof b));
    *out = v->s;
    return 0;
}

static int want_int(call *c, int i, const char *name, double lo, double hi, long long *out) {
    double x;
    if (want_num(c, i, name, &x)) return -1;
    if (x != floor(x) || x < lo || x > hi)
        return fail_at(c->in, start_of(c->in, c->n->args[i]),
                       "%s: %s must be an integer from %.0f to %.0f, not %.9g", c->n->name, name, lo,
                       hi, x);
    *out = (long long)x;
    return 0;
}

static int want_vec(call *c, int i, const char *name) {
    const val *v = c->a[i];
    char b[128];
    if (v->kind != V_DENSE || v->cols != 1)
        return fail_at(c->in, start_of(c->in, c->n->args[i]),
                       "%s: %s must be an n x 1 vector, not a %s", c->n->name, name,
                       describe_val(v, b, sizeof b));
    return 0;
}

static int want_matrix(call *c, int i, const char *name) {
    if (c->a[i]->kind != V_SCALAR) return 0;
    return fail_at(c->in, start_of(c->in, c->n->args[i]), "%s: %s must be a matrix, not a number",
                   c->n->name, name);
}

static val *b_rand(call *c) {
    long long r, k, seed = 0;
    if (want_int(c, 0, "R", 1, INT_LIMIT, &r) || want_int(c, 1, "C", 1, INT_LIMIT, &k) ||
        (c->n->nargs > 2 && want_int(c, 2, "SEED", 0, INT_LIMIT, &seed)))
        return NULL;
    return rand_new(c->in, c->n->at, (int)r, (int)k, (unsigned long)seed);
}

static val *b_fill(call *c) { /* zeros, ones */
    long long r, k;
    if (want_int(c, 0, "R", 1, INT_LIMIT, &r)) return NULL;
    k = r;
    if (c->n->nargs > 1 && want_int(c, 1, "C", 1, INT_LIMIT, &k)) return NULL;
    if (!strcmp(c->n->name, "zeros")) return dense_new(c->in, c->n->at, (int)r, (int)k, NULL);
    return dense_const(c->in, c->n->at, (int)r, (int)k, 1.0f);
}

static val *b_eye(call *c) {
    long long n;
    if (want_int(c, 0, "N", 1, INT_LIMIT, &n)) return NULL;
    return dense_eye(c->in, c->n->at, (int)n);
}

static val *b_poisson(call *c) {
    long long nx, ny;
    double alpha = 0, beta = 1;
    if (c->n->nargs == 3) {
        fail_at(c->in, c->n->at, "poisson: expected 2 or 4 arguments (NX, NY[, ALPHA, BETA]), got 3");
        return NULL;
    }
    if (want_int(c, 0, "NX", 1, INT_LIMIT, &nx) || want_int(c, 1, "NY", 1, INT_LIMIT, &ny) ||
        (c->n->nargs == 4 && (want_num(c, 2, "ALPHA", &alpha) || want_num(c, 3, "BETA", &beta))))
        return NULL;
    return poisson_new(c->in, c->n->at, (int)nx, (int)ny, alpha, beta);
}

static val *b_max(call *c) {
    val *x = c->a[0], *s = c->a[1];
    if (x->kind == V_SCALAR && s->kind != V_SCALAR) x = c->a[1], s = c->a[0];
    if (s->kind != V_SCALAR) {
        char b[128];
        fail_at(c->in, start_of(c->in, c->n->args[1]), "max: one argument must be a number "
                "(max(A, s)); both are matrices (the second is a %s)", describe_val(s, b, sizeof b));
        return NULL;
    }
    if (x->kind == V_SCALAR) return scalar_new(c->in, x->s > s->s ? x->s : s->s);
    float f = (float)s->s;
    if (!isfinite(f)) {
        fail_at(c->in, c->n->at, "max: %g is not a finite float", s->s);
        return NULL;
    }
    val *d = to_dense(c->in, c->n->at, x, "max"), *r = NULL;
    if (d) r = dense_new(c->in, c->n->at, d->rows, d->cols, NULL);
    if (r && texla_mat_clamp_min(c->in->ctx, d->m, f, r->m)) {
        gl_fail(c->in, c->n->at, "max");
        val_unref(c->in, r);
        r = NULL;
    }
    if (r) r->nx = d->nx, r->ny = d->ny;
    val_unref(c->in, d);
    return r;
}

/* a' * b (or a' * a) of dense matrices, read back */
static texla_result mat_reduce(texla_ctx *ctx, texla_mat a, const texla_mat *b, float *out) {
    texla_scalar s = {0};
    texla_result r = texla_scalar_make(ctx, 0.0f, &s);
    if (!r) r = b ? texla_mat_dot(ctx, a, *b, s) : texla_mat_sqnorm(ctx, a, s);
    if (!r) r = texla_scalar_read(ctx, s, out);
    texla_scalar_destroy(ctx, s);
    return r;
}

static val *b_dot(call *c) {
    int two = !strcmp(c->n->name, "dot");
    if (want_vec(c, 0, two ? "a" : "x") || (two && want_vec(c, 1, "b"))) return NULL;
    val *a = c->a[0], *b = two ? c->a[1] : c->a[0];
    if (a->rows != b->rows) {
        char b1[128], b2[128];
        fail_at(c->in, c->n->at, "shape mismatch: dot of a %s and a %s",
                describe_val(a, b1, sizeof b1), describe_val(b, b2, sizeof b2));
        return NULL;
    }
    float f;
    if (mat_reduce(c->in->ctx, a->m, two ? &b->m : NULL, &f)) {
        gl_fail(c->in, c->n->at, c->n->name);
        return NULL;
    }
    return scalar_new(c->in, f);
}

/* diagnostics of the solvers go to stderr, after what the script printed so far */
static void note(interp *in, pos at, const char *fmt, ...) CLI_PRINTF(3, 4);
static void note(interp *in, pos at, const char *fmt, ...) {
    fflush(in->out);
    fprintf(stderr, "%s:%d: ", in->sc->file, at.line);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static val *b_cg(call *c) {
    interp *in = c->in;
    val *a = c->a[0], *b = c->a[1];
    double tol = 1e-4;
    long long maxit = 0;
    if (want_matrix(c, 0, "A") || want_vec(c, 1, "b") ||
        (c->n->nargs > 2 && want_num(c, 2, "TOL", &tol)) ||
        (c->n->nargs > 3 && want_int(c, 3, "MAXIT", 0, INT_LIMIT, &maxit)))
        return NULL;
    char b1[128], b2[128];
    if (a->rows != a->cols || b->rows != a->rows) {
        fail_at(in, c->n->at, "shape mismatch: cg needs a square A and b of its size; A is a %s, "
                "b a %s", describe_val(a, b1, sizeof b1), describe_val(b, b2, sizeof b2));
        return NULL;
    }
    if (!(tol >= 0) || !isfinite(tol)) {
        fail_at(in, start_of(in, c->n->args[2]), "cg: TOL must be >= 0, not %g", tol);
        return NULL;
    }
    texla_op op = a->kind == V_DENSE    ? texla_op_dense(a->m)
                : a->kind == V_BANDED   ? texla_op_banded(a->b)
                                        : texla_op_sparse(a->sp);
    texla_vec bv = {0}, xv = {0};
    if (vec_of(in, c->n->at, b, a->kind == V_DENSE ? (texla_vec){0} : a->like, &bv)) return NULL;
    texla_cg_desc d = {.max_iter = (int)maxit, .tol = (float)tol};
    texla_cg_result res;
    val *x = NULL;
    if (texla_vec_make_like(in->ctx, bv, &xv) || texla_cg(in->ctx, op, bv, &d, xv, &res)) {
        gl_fail(in, c->n->at, "cg");
    } else {
        int grid = a->kind == V_BANDED && a->nx;
        x = dense_of_vec(in, c->n->at, xv, grid ? a->nx : b->nx, grid ? a->ny : b->ny);
        if (x && tol > 0)
            note(in, c->n->at, "cg: %d iterations, relative residual %.3g (%s tolerance %g)",
                 res.iterations, (double)res.rel_residual,
                 res.converged ? "within the" : "NOT within the", tol);
        else if (x)
            note(in, c->n->at, "cg: %d iterations (fixed count, residual not read back)",
                 res.iterations);
    }
    texla_vec_destroy(in->ctx, bv);
    texla_vec_destroy(in->ctx, xv);
    return x;
}

static val *b_lcp(call *c) {
    interp *in = c->in;
    long long iters = 100;
    double omega = 1.0;
    if (want_matrix(c, 0, "A") || want_vec(c, 1, "b") ||
        (c->n->nargs > 2 && want_int(c, 2, "ITERS", 1, INT_LIMIT, &iters)) ||
        (c->n->nargs > 3 && want_num(c, 3, "OMEGA", &omega)))
        return NULL;
    val *a = c->a[0], *b = c->a[1];
    char b1[128], b2[128];
    if (a->rows != a->cols || b->rows != a->rows) {
        fail_at(in, c->n->at, "shape mismatch: lcp needs a square A and b of its size; A is a %s, "
                "b a %s", describe_val(a, b1, sizeof b1), describe_val(b, b2, sizeof b2));
        return NULL;
    }
    if (!(omega > 0) || !isfinite(omega)) {
        fail_at(in, start_of(in, c->n->args[3]), "lcp: OMEGA must be > 0, not %g", omega);
        return NULL;
    }
    val *ad = to_dense(in, c->n->at, a, "lcp (projected Jacobi needs a dense A)");
    if (!ad) return NULL;
    val *x = dense_new(in, c->n->at, a->rows, 1, NULL);
    texla_lcp_desc d = {.iterations = (int)iters, .omega = (float)omega};
    texla_lcp_result res;
    if (x && texla_lcp_jacobi(in->ctx, ad->m, b->m, &d, x->m, &res)) {
        gl_fail(in, c->n->at, "lcp");
        val_unref(in, x);
        x = NULL;
    }
    if (x) {
        x->nx = b->nx, x->ny = b->ny;
        note(in, c->n->at, "lcp: %lld iterations (omega %g): min x %.3g, min w %.3g, x'w %.3g, "
             "max |x_i w_i| %.3g", iters, omega, (double)res.min_x, (double)res.min_w,
             (double)res.xw, (double)res.max_abs_xw);
    }
    val_unref(in, ad);
    return x;
}

static val *b_convert(call *c) {
    if (want_matrix(c, 0, "A")) return NULL;
    const char *f = c->n->name;
    if (!strcmp(f, "dense")) return to_dense(c->in, c->n->at, c->a[0], f);
    if (!strcmp(f, "sparse")) return to_sparse(c->in, c->n->at, c->a[0], f);
    return to_banded(c->in, c->n->at, c->a[0], f);
}

static val *b_grid(call *c) {
    long long nx, ny;
    if (want_matrix(c, 0, "A") || want_int(c, 1, "NX", 1, INT_LIMIT, &nx) ||
        want_int(c, 2, "NY", 1, INT_LIMIT, &ny))
        return NULL;
    return with_grid(c->in, c->n->at, c->a[0], (int)nx, (int)ny);
}

static val *b_transpose(call *c) { return transpose(c->in, c->n->at, c->a[0]); }

static val *b_size(call *c) { /* rows, cols */
    const val *v = c->a[0];
    int r = v->kind == V_SCALAR ? 1 : v->rows, k = v->kind == V_SCALAR ? 1 : v->cols;
    return scalar_new(c->in, c->n->name[0] == 'r' ? r : k);
}

static val *b_sqrt(call *c) {
    double x;
    if (want_num(c, 0, "x", &x)) return NULL;
    if (x < 0) {
        fail_at(c->in, start_of(c->in, c->n->args[0]), "sqrt: %g is negative", x);
        return NULL;
    }
    return scalar_new(c->in, sqrt(x));
}

static const struct builtin {
    const char *name;
    int min, max;
    const char *args;
    val *(*fn)(call *);
} builtins[] = {
    {"rand", 2, 3, "R, C[, SEED]", b_rand},
    {"zeros", 1, 2, "R[, C]", b_fill},
    {"ones", 1, 2, "R[, C]", b_fill},
    {"eye", 1, 1, "N", b_eye},
    {"poisson", 2, 4, "NX, NY[, ALPHA, BETA]", b_poisson},
    {"max", 2, 2, "A, s", b_max},
    {"dot", 2, 2, "a, b", b_dot},
    {"norm2", 1, 1, "x", b_dot},
    {"cg", 2, 4, "A, b[, TOL[, MAXIT]]", b_cg},
    {"lcp", 2, 4, "A, b[, ITERS[, OMEGA]]", b_lcp},
    {"dense", 1, 1, "A", b_convert},
    {"sparse", 1, 1, "A", b_convert},
    {"banded", 1, 1, "A", b_convert},
    {"grid", 3, 3, "x, NX, NY", b_grid},
    {"transpose", 1, 1, "A", b_transpose},
    {"rows", 1, 1, "A", b_size},
    {"cols", 1, 1, "A", b_size},
    {"sqrt", 1, 1, "x", b_sqrt},
};

static val *eval(interp *in, const node *n);

static val *eval_call(interp *in, const node *n) {
    const struct builtin *b = NULL;
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (!strcmp(builtins[i].name, n->name)) b = &builtins[i];
    if (!b) {
        if (find_var(in, n->name))
            fail_at(in, n->at, "'%s' is a variable, not a function (no indexing in texla scripts)",
                    n->name);
        else
            fail_at(in, n->at, "unknown function '%s' (functions: rand, zeros, ones, eye, poisson, "
                    "max, dot, norm2, cg, lcp, dense, sparse, banded, grid, transpose, rows, cols, "
                    "sqrt)", n->name);
        return NULL;
    }
    if (n->nargs < b->min || n->nargs > b->max) {
        char want[32];
        if (b->min == b->max) snprintf(want, sizeof want, "%d", b->min);
        else snprintf(want, sizeof want, "%d %s %d", b->min, b->max == b->min + 1 ? "or" : "to",
                      b->max);
        fail_at(in, n->at, "%s: expected %s argument%s (%s), got %d", b->name, want,
                b->max == 1 ? "" : "s", b->args, n->nargs);
        return NULL;
    }
    val *args[4] = {0};
    val *r = NULL;
    int i = 0;
    for (; i < n->nargs; i++)
        if (!(args[i] = eval(in, n->args[i]))) break;
    if (i == n->nargs) {
        call c = {in, n, args};
        r = b->fn(&c);
    }
    for (int j = 0; j < n->nargs; j++) val_unref(in, args[j]);
    return r;
}

static val *eval_bin(interp *in, const node *n) {
    /* A' * B and A * B' of dense matrices are texla's transposed products; so is A' * x of a
     * sparse A */
    int ta = n->op == '*' && n->a->kind == N_TRANS, tb = n->op == '*' && n->b->kind == N_TRANS;
    val *a = eval(in, ta ? n->a->a : n->a);
    if (!a) return NULL;
    val *b = eval(in, tb ? n->b->a : n->b);
    if (!b) {
        val_unref(in, a);
        return NULL;
    }
    val *r = NULL;
    if (ta != tb && a->kind == V_DENSE && b->kind == V_DENSE) {
        r = matmul(in, n->at, a, b, ta ? P_TN : P_NT);
    } else if (ta && !tb && a->kind == V_SPARSE && b->kind == V_DENSE && b->cols == 1 &&
               a->rows == b->rows) {
        r = apply_t(in, n->at, a, b);
    } else {
        if (ta) {
            val *t = transpose(in, n->a->at, a);
            val_unref(in, a);
            a = t;
        }
        if (tb && a) {
            val *t = transpose(in, n->b->at, b);
            val_unref(in, b);
            b = t;
        }
        if (a && b) {
            switch (n->op) {
            case '*': r = mul(in, n->at, a, b); break;
            case '/':
                if (b->kind != V_SCALAR) {
                    char b1[128];
                    fail_at(in, n->at, "division: the divisor must be a number, not a %s",
                            describe_val(b, b1, sizeof b1));
                } else if (b->s == 0) {
                    fail_at(in, n->at, "division by zero");
                } else {
                    r = a->kind == V_SCALAR ? scalar_new(in, a->s / b->s) : scale(in, n->at, a, 1.0 / b->s);
                }
                break;
            default: r = elementwise(in, n->at, n->op, a, b); break;
            }
        }
    }
    val_unref(in, a);
    val_unref(in, b);
    return r;
}

static val *eval(interp *in, const node *n) {
    switch (n->kind) {
    case N_NUM: return scalar_new(in, n->num);
    case N_VAR: {
        var *x = find_var(in, n->name);
        if (!x) {
            fail_at(in, n->at, "unknown variable '%s'", n->name);
            return NULL;
        }
        return val_ref(x->v);
    }
    case N_CALL: return eval_call(in, n);
    case N_LOAD: return load_file(in, n->at, n->name, n->as);
    case N_NEG: {
        val *a = eval(in, n->a);
        if (!a) return NULL;
        val *r = scale(in, n->at, a, -1.0);
        val_unref(in, a);
        return r;
    }
    case N_TRANS: {
        val *a = eval(in, n->a);
        if (!a) return NULL;
        val *r = transpose(in, n->at, a);
        val_unref(in, a);
        return r;
    }
    case N_BIN: return eval_bin(in, n);
    }
    return NULL;
}

/* ---- statements ---- */

static int eval_num(interp *in, const node *n, const char *what, double *out) {
    val *v = eval(in, n);
    if (!v) return -1;
    int rc = 0;
    char b[128];
    if (v->kind != V_SCALAR)
        rc = fail_at(in, start_of(in, n), "png: %s must be a number, not a %s", what,
                     describe_val(v, b, sizeof b));
    else *out = v->s;
    val_unref(in, v);
    return rc;
}

static int exec(interp *in, const stmt *s) {
    if (s->kind == S_TIME) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if (exec(in, s->inner)) return -1;
        if (texla_ctx_finish(in->ctx)) return gl_fail(in, s->at, "time");
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
        int len = s->inner->src1 - s->inner->src0;
        fprintf(in->out, "time: %.3f ms (line %d: %.*s%s)\n", ms, s->at.line, len > 60 ? 57 : len,
                in->sc->text + s->inner->src0, len > 60 ? "..." : "");
        return 0;
    }
    val *v = eval(in, s->e);
    if (!v) return -1;
    int rc = 0;
    switch (s->kind) {
    case S_ASSIGN: return set_var(in, s->at, s->name, v);
    case S_SAVE: rc = save_file(in, s->at, v, s->path); break;
    case S_PRINT: {
        int len = s->e->src1 - s->e->src0;
        char *label = malloc((size_t)len + 1);
        if (!label) {
            rc = fail_at(in, s->at, "out of host memory");
            break;
        }
        memcpy(label, in->sc->text + s->e->src0, (size_t)len);
        label[len] = '\0';
        rc = print_val(in, s->at, v, label);
        free(label);
        break;
    }
    case S_PNG: {
        texla_png_desc d = {0};
        d.view = s->raw ? TEXLA_PNG_RAW : TEXLA_PNG_LOGICAL;
        d.map = (texla_png_map)s->map;
        double lo = 0, hi = 0, k = 1;
        if (s->lo && (eval_num(in, s->lo, "range LO", &lo) || eval_num(in, s->hi, "range HI", &hi)))
            rc = -1;
        else if (s->scale && eval_num(in, s->scale, "scale K", &k))
            rc = -1;
        else if (s->lo && !(lo < hi))
            rc = fail_at(in, start_of(in, s->lo), "png: range %g %g: LO must be below HI", lo, hi);
        else if (k != floor(k) || k < 1 || k > 4096)
            rc = fail_at(in, start_of(in, s->scale), "png: scale must be an integer from 1 to "
                         "4096, not %g", k);
        if (!rc) {
            d.fixed_range = s->lo != NULL;
            d.lo = (float)lo, d.hi = (float)hi;
            d.scale = (int)k;
            rc = png_file(in, s->at, v, s->path, &d);
        }
        break;
    }
    default: break;
    }
    val_unref(in, v);
    return rc;
}

int script_run(texla_ctx *ctx, const script *sc, FILE *out, diag *err) {
    interp in = {.ctx = ctx, .sc = sc, .out = out, .err = err};
    int rc = 0;
    for (int i = 0; i < sc->nstmts && !rc; i++) rc = exec(&in, sc->stmts[i]);
    for (int i = 0; i < in.nvars; i++) val_unref(&in, in.vars[i].v);
    free(in.vars);
    fflush(out);
    return rc;
}
