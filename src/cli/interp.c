/* interp.c - evaluates a parsed texla script: expressions, builtins and statements. Every
 * operation makes a new value, so a texla destination is never also a source; layouts are
 * converted on the GPU where texla can (dense n x 1 <-> 2D vectors) and through the host copies
 * of banded and sparse matrices otherwise. */
#include "values.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


int cli_out_errno; /* the first failed flush of the output's errno (0: none seen) */

/* ---- variables ---- */

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
    (void)index_vars(in); /* out of memory: find_var scans */
    return 0;
}

/* ---- arithmetic ---- */

/* r = s * X for any value */
static val *scale(interp *in, pos at, val *x, double s) {
    if (x->kind == V_SCALAR) return scalar_new(in, x->s * s);
    float f = (float)s;
    if (!isfinite(f)) {
        fail_at(in, at, "the factor %g is not a finite float", s);
        return NULL;
    }
    if (x->kind == V_DENSE || x->kind == V_VEC) {
        val *ops[1] = {x};
        return ew_apply(in, at, EW_scale, ops, texla_host(f), NULL);
    }
    if (x->kind == V_BANDED) {
        if (banded_host(in, at, x)) return NULL;
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

/* y = A x for banded or sparse A and a vector x, in A's layouts */
static val *apply(interp *in, pos at, val *a, val *x) {
    texla_vec xv = {0}, yv = {0};
    int owned = 0;
    if (vec_in(in, at, x, a->kind == V_BANDED ? a->like : a->clike, &xv, &owned)) return NULL;
    val *r = NULL;
    texla_op op = a->kind == V_BANDED ? texla_op_banded(a->b) : texla_op_sparse(a->sp);
    if (texla_vec_make_like(in->ctx, a->like, &yv) || texla_op_matvec(in->ctx, op, xv, yv)) {
        gl_fail(in, at, a->kind == V_BANDED ? "banded product" : "sparse product");
        texla_vec_destroy(in->ctx, yv);
    } else {
        int sq = a->rows == a->cols;
        r = vec_take(in, at, yv, a->kind == V_BANDED ? a->nx : sq ? x->nx : 0,
                     a->kind == V_BANDED ? a->ny : sq ? x->ny : 0);
    }
    if (owned) texla_vec_destroy(in->ctx, xv);
    return r;
}

/* y = A' x for sparse A: texla's transposed product (no host transpose) */
static val *apply_t(interp *in, pos at, val *a, val *x) {
    texla_vec xv = {0}, yv = {0};
    int owned = 0;
    if (vec_in(in, at, x, a->like, &xv, &owned)) return NULL;
    val *r = NULL;
    if (texla_vec_make_like(in->ctx, a->clike, &yv) ||
        texla_sparse_matvec_t(in->ctx, a->sp, xv, yv)) {
        gl_fail(in, at, "transposed sparse product");
        texla_vec_destroy(in->ctx, yv);
    } else {
        int sq = a->rows == a->cols;
        r = vec_take(in, at, yv, sq ? x->nx : 0, sq ? x->ny : 0);
    }
    if (owned) texla_vec_destroy(in->ctx, xv);
    return r;
}

/* x' A = (A' x)' for a vector x and banded or sparse A: x' is never formed (as a 1 x n dense
 * matrix it stops at the GL's texture size, where x and A' x do not) */
static val *apply_left(interp *in, pos at, val *x, val *a) {
    val *y = NULL;
    if (a->kind == V_SPARSE) {
        y = apply_t(in, at, a, x);
    } else {
        val *t = transpose(in, at, a);
        y = t ? apply(in, at, t, x) : NULL;
        val_unref(in, t);
    }
    val *r = y ? transpose(in, at, y) : NULL;
    val_unref(in, y);
    return r;
}

typedef enum prod { P_NN, P_TN, P_NT } prod;

static int is_plain(const val *v) { return v->kind == V_DENSE || v->kind == V_VEC; }

/* products of dense matrices and vectors: C = A * B, A' * B, A * B'. A dense matrix times a
 * vector is texla_mat_matvec (any length the dense matrix allows); x' * y of two vectors is a
 * dot product; the rest goes through dense textures. */
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
    if (p == P_NN && a->kind == V_DENSE && b->kind == V_VEC) {
        texla_vec y;
        if (texla_vec_make(in->ctx, n, NULL, &y) || texla_mat_matvec(in->ctx, a->m, b->x, y)) {
            gl_fail(in, at, "product");
            texla_vec_destroy(in->ctx, y);
            return NULL;
        }
        /* a square matrix times a grid vector keeps the grid */
        return vec_take(in, at, y, n == k1 ? b->nx : 0, n == k1 ? b->ny : 0);
    }
    if (p == P_TN && a->kind == V_VEC && b->kind == V_VEC) { /* x' * y: 1 x 1, on the GPU */
        texla_vec bv = {0}, r = {0};
        texla_scalar s = {0};
        int owned = 0;
        if (vec_in(in, at, b, a->x, &bv, &owned)) return NULL;
        texla_result e = texla_scalar_make(in->ctx, 0.0f, &s);
        if (!e) e = texla_vec_dot(in->ctx, a->x, bv, s);
        if (!e) e = texla_vec_make(in->ctx, 1, NULL, &r);
        if (!e) e = texla_vec_fill(in->ctx, texla_gpu(1.0f, s), r);
        texla_scalar_destroy(in->ctx, s);
        if (owned) texla_vec_destroy(in->ctx, bv);
        if (e) {
            gl_fail(in, at, "product");
            texla_vec_destroy(in->ctx, r);
            return NULL;
        }
        return vec_take(in, at, r, 0, 0);
    }
    texla_mat ma = {0}, mb = {0}, mr = {0};
    int oa = 0, ob = 0;
    if (mat_of(in, at, a, "product", &ma, &oa) || mat_of(in, at, b, "product", &mb, &ob)) {
        if (oa) texla_mat_destroy(in->ctx, ma);
        return NULL;
    }
    texla_result e = texla_mat_make(in->ctx, n, m, NULL, &mr);
    if (!e) e = p == P_NN ? texla_mat_matmul(in->ctx, ma, mb, mr)
              : p == P_TN ? texla_mat_matmul_tn(in->ctx, ma, mb, mr)
                          : texla_mat_matmul_nt(in->ctx, ma, mb, mr);
    if (oa) texla_mat_destroy(in->ctx, ma);
    if (ob) texla_mat_destroy(in->ctx, mb);
    if (e) {
        gl_fail(in, at, "product");
        texla_mat_destroy(in->ctx, mr);
        return NULL;
    }
    val *r = val_of_mat(in, at, mr, n, m);
    /* a square matrix times a grid vector keeps the grid */
    if (r && r->kind == V_VEC && b->kind == V_VEC && p == P_NN && n == k1)
        r->nx = b->nx, r->ny = b->ny;
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
    if (is_plain(a) && is_plain(b)) return matmul(in, at, a, b, P_NN);
    if (b->kind == V_VEC) return apply(in, at, a, b);
    if ((a->kind == V_DENSE || a->kind == V_VEC) && a->rows == 1) { /* x' B = (B' x)' (a 1 x 1
                                                                      value is a vector) */
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

/* a op b for two dense matrices, or two vectors, of one shape; op '+', '-' or OP_EMUL (rows of
 * the operation table). Vectors are combined in the layout of the one with a grid (else a's). */
static val *dense_ew(interp *in, pos at, int op, val *a, val *b) {
    val *ops[2] = {a, b};
    return ew_apply(in, at, op == '+' ? EW_add : op == '-' ? EW_sub : EW_mul, ops,
                    texla_host(0.0f), NULL);
}

/* a + b or a - b of two banded matrices: the union of their diagonals (host), a's layout */
static val *banded_sum(interp *in, pos at, val *a, val *b, double sign) {
    if (banded_host(in, at, a) || banded_host(in, at, b)) return NULL;
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

/* a + b or a - b of sparse matrices: the triplets of both, each cell once (its values added:
 * kept apart, S = S + S doubled the entries each time, 12582912 of them for a 7 x 5 matrix) */
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
    int m, *r2, *c2;
    float *v2;
    int rc = cells_merge(a->cols, (int)nnz, ri, ci, vv, &m, &r2, &c2, &v2);
    free(ri), free(ci), free(vv);
    if (rc) {
        fail_at(in, at, "out of host memory");
        return NULL;
    }
    return sparse_new(in, at, a->rows, a->cols, m, r2, c2, v2);
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
        if (xd) c = const_like(in, at, xd, f);
        if (c) r = a->kind == V_SCALAR ? dense_ew(in, at, op, c, xd) : dense_ew(in, at, op, xd, c);
        val_unref(in, xd), val_unref(in, c);
        return r;
    }
    if (a->rows != b->rows || a->cols != b->cols) {
        fail_at(in, at, "shape mismatch: %s %s %s", describe_val(a, b1, sizeof b1), op_name(op),
                describe_val(b, b2, sizeof b2));
        return NULL;
    }
    if (is_plain(a) && is_plain(b)) return dense_ew(in, at, op, a, b);
    double sign = op == '-' ? -1.0 : 1.0;
    if (op != OP_EMUL && a->kind == V_BANDED && b->kind == V_BANDED)
        return banded_sum(in, at, a, b, sign);
    if (op != OP_EMUL && !is_plain(a) && !is_plain(b)) {
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

static val *eval(interp *in, const node *n);

/* One binary operation of a left spine: a (taken) is the value of n->a, or of n->a->a when
 * that is a transposed operand of a product (ta). */
static val *bin_step(interp *in, const node *n, val *a, int ta) {
    /* A' * B and A * B' of dense matrices are texla's transposed products; so are A' * x and
     * x' * A of a sparse A (x' * A of a banded A transposes A, not x) */
    int tb = n->op == '*' && n->b->kind == N_TRANS;
    val *b = eval(in, tb ? n->b->a : n->b);
    if (!b) {
        val_unref(in, a);
        return NULL;
    }
    val *r = NULL;
    if (ta != tb && is_plain(a) && is_plain(b)) {
        r = matmul(in, n->at, a, b, ta ? P_TN : P_NT);
    } else if (ta && !tb && a->kind == V_SPARSE && is_plain(b) && b->cols == 1 &&
               a->rows == b->rows) {
        r = apply_t(in, n->at, a, b);
    } else if (ta && !tb && a->kind == V_VEC && (b->kind == V_SPARSE || b->kind == V_BANDED) &&
               a->rows == b->rows) {
        r = apply_left(in, n->at, a, b);
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
            case '/': {
                double d = 0;
                int rc = num_of(in, n->at, b, &d);
                if (rc > 0) {
                    char b1[128];
                    fail_at(in, n->at, "division: the divisor must be a number, not a %s",
                            describe_val(b, b1, sizeof b1));
                } else if (rc == 0 && d == 0) {
                    fail_at(in, n->at, "division by zero");
                } else if (rc == 0) {
                    r = a->kind == V_SCALAR ? scalar_new(in, a->s / d) : scale(in, n->at, a, 1.0 / d);
                }
                break;
            }
            default: r = elementwise(in, n->at, n->op, a, b); break;
            }
        }
    }
    val_unref(in, a);
    val_unref(in, b);
    return r;
}

/* A flat chain a + b - c * d ... is a left spine in the tree, as deep as the chain is long:
 * evaluated bottom up in a loop (the right operands are shallow: their depth is the script's
 * nesting, which the parser bounds). */
static val *eval_bin(interp *in, const node *n) {
    size_t len = 0;
    for (const node *k = n; k->kind == N_BIN; k = k->a) len++;
    const node **spine = malloc(sizeof *spine * len);
    if (!spine) {
        fail_at(in, n->at, "out of host memory");
        return NULL;
    }
    size_t i = len;
    for (const node *k = n; k->kind == N_BIN; k = k->a) spine[--i] = k;
    const node *bottom = spine[0];
    int ta = bottom->op == '*' && bottom->a->kind == N_TRANS;
    val *acc = eval(in, ta ? bottom->a->a : bottom->a);
    for (i = 0; i < len && acc; i++) acc = bin_step(in, spine[i], acc, i == 0 && ta);
    free(spine);
    return acc;
}

static val *eval_node(interp *in, const node *n) { return eval(in, n); }

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
    case N_STR: fail_at(in, n->at, "a string can only be printed"); return NULL;
    }
    return NULL;
}

/* ---- statements ---- */

static int eval_num(interp *in, const node *n, const char *what, double *out) {
    val *v = eval(in, n);
    if (!v) return -1;
    char b[128];
    int rc = num_of(in, start_of(in, n), v, out);
    if (rc > 0)
        rc = fail_at(in, start_of(in, n), "png: %s must be a number, not a %s", what,
                     describe_val(v, b, sizeof b));
    val_unref(in, v);
    return rc;
}

/* a file named for another kind of file is written anyway, with a warning */
static void check_ext(interp *in, pos at, const char *path, const char *ext, const char *what) {
    size_t n = strlen(path), e = strlen(ext);
    int ok = n > e;
    for (size_t i = 0; ok && i < e; i++) {
        char c = path[n - e + i];
        ok = (c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c) == ext[i];
    }
    if (!ok) warn_at(in, at, "%s writes %s; \"%s\" does not end in %s", what,
                     ext[1] == 'p' ? "a PNG image" : "a Matrix Market file", path, ext);
}

/* print "text", value, ...: the items on one line (numbers as numbers, matrices by their
 * shape), then the values of the matrices among them */
static int print_items(interp *in, const stmt *s) {
    val **v = calloc((size_t)s->nitems, sizeof *v);
    if (!v) return fail_at(in, s->at, "out of host memory");
    int rc = 0;
    for (int i = 0; i < s->nitems && !rc; i++)
        if (s->items[i]->kind != N_STR && !(v[i] = eval(in, s->items[i]))) rc = -1;
    for (int i = 0; i < s->nitems && !rc; i++) {
        char b[160];
        fputs(i ? " " : "", in->out);
        if (s->items[i]->kind == N_STR) fputs(s->items[i]->name, in->out);
        else if (v[i]->kind == V_SCALAR) fprintf(in->out, "%.9g", v[i]->s);
        else fputs(describe_val(v[i], b, sizeof b), in->out);
    }
    if (!rc) fputc('\n', in->out);
    for (int i = 0; i < s->nitems && !rc; i++)
        if (v[i] && v[i]->kind != V_SCALAR) rc = print_val(in, s->at, v[i], NULL);
    for (int i = 0; i < s->nitems; i++) val_unref(in, v[i]);
    free(v);
    return rc;
}

/* history "FILE": the residual plot of the statement's last solve */
static int write_history(interp *in, const stmt *s) {
    if (in->nhist <= 0)
        return fail_at(in, s->hist_at, "history \"%s\": the solve read no residuals (cg with TOL 0 "
                       "runs a fixed count of iterations without reading any)", s->hist);
    /* cg: the recurrence's residuals as the line, the true ones (b - A x) as dots */
    int n = in->nhist;
    float *x = malloc(sizeof *x * (size_t)n * 4), *y = x + n, *px = x + 2 * n, *py = x + 3 * n;
    if (!x) return fail_at(in, s->hist_at, "out of host memory");
    int nl = 0, np = 0;
    for (int i = 0; i < n; i++) {
        if (in->hist_split && in->hist_true[i]) px[np] = (float)in->hist_it[i], py[np++] = in->hist[i];
        else x[nl] = (float)in->hist_it[i], y[nl++] = in->hist[i];
    }
    if (!nl) /* only true residuals: they are the line */
        for (; nl < np; nl++) x[nl] = px[nl], y[nl] = py[nl];
    texla_png_desc d = {.log_y = 1, .title = in->hist_title, .xlabel = "iteration",
                        .ylabel = in->hist_ylabel};
    if (in->hist_split && np && nl != np) {
        d.points_x = px, d.points_y = py, d.npoints = np;
        d.line_label = "recurrence residual", d.points_label = "true residual (b - A x)";
    }
    check_ext(in, s->hist_at, s->hist, ".png", "history");
    int rc = 0;
    if (texla_png_plot(in->ctx, x, y, nl, s->hist, &d)) {
        char what[600];
        snprintf(what, sizeof what, "history \"%.500s\"", s->hist);
        rc = gl_fail(in, s->hist_at, what);
    }
    free(x);
    return rc;
}

static int exec(interp *in, const stmt *s) {
    if (s->hist) in->want_hist = 1, in->nhist = -1;
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
    } else if (s->kind == S_PRINT && (s->nitems > 1 || !s->e)) {
        if (print_items(in, s)) return -1;
    } else {
        val *v = eval(in, s->e);
        if (!v) return -1;
        int rc = 0;
        switch (s->kind) {
        case S_ASSIGN:
            rc = set_var(in, s->at, s->name, v);
            v = NULL; /* taken */
            break;
        case S_SAVE:
            check_ext(in, s->path_at, s->path, ".mtx", "save");
            rc = save_file(in, s->at, v, s->path);
            break;
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
            d.colorbar = s->colorbar, d.plot = s->plot, d.log_y = s->log_y;
            d.spy = (texla_png_spy)s->spy, d.annotate = s->annotate, d.title = s->title;
            double lo = 0, hi = 0, k = 1, w = 0, h = 0;
            if (s->lo && (eval_num(in, s->lo, "range LO", &lo) || eval_num(in, s->hi, "range HI", &hi)))
                rc = -1;
            else if (s->scale && eval_num(in, s->scale, "scale K", &k))
                rc = -1;
            else if (s->width && (eval_num(in, s->width, "size W", &w) ||
                                  eval_num(in, s->height, "size H", &h)))
                rc = -1;
            else if (s->lo && !(lo < hi))
                rc = fail_at(in, start_of(in, s->lo), "png: range %g %g: LO must be below HI", lo, hi);
            else if (k != floor(k) || k < 1 || k > 4096)
                rc = fail_at(in, start_of(in, s->scale), "png: scale must be an integer from 1 to "
                             "4096, not %g", k);
            else if (s->width && (w != floor(w) || h != floor(h) || w < 160 || w > 16384 ||
                                  h < 120 || h > 16384))
                rc = fail_at(in, start_of(in, s->width), "png: size %g %g: a plot is 160..16384 "
                             "pixels wide and 120..16384 high", w, h);
            if (!rc) {
                d.fixed_range = s->lo != NULL;
                d.lo = (float)lo, d.hi = (float)hi;
                d.scale = (int)k;
                d.width = (int)w, d.height = (int)h;
                check_ext(in, s->path_at, s->path, ".png", "png");
                rc = png_file(in, s->at, v, s->path, &d);
            }
            break;
        }
        default: break;
        }
        val_unref(in, v);
        if (rc) return -1;
    }
    if (s->hist) {
        in->want_hist = 0;
        return write_history(in, s);
    }
    return 0;
}

int script_run(texla_ctx *ctx, const script *sc, const run_opts *opt, FILE *out, diag *err) {
    static const run_opts defaults = {0, -1};
    interp in = {.eval = eval_node, .ctx = ctx, .sc = sc, .out = out, .err = err,
                 .opt = opt ? opt : &defaults};
    texla_info info;
    if (texla_ctx_info(ctx, &info)) return gl_fail(&in, (pos){1, 1}, "texla_ctx_info");
    in.max_tex = info.max_texture_size;
    int rc = 0;
    for (int i = 0; i < sc->nstmts && !rc; i++) rc = exec(&in, sc->stmts[i]);
    for (int i = 0; i < in.nvars; i++) val_unref(&in, in.vars[i].v);
    free(in.vars);
    free(in.vhash);
    free(in.hist), free(in.hist_it), free(in.hist_true);
    errno = 0;
    if (fflush(out) != 0 && !cli_out_errno) cli_out_errno = errno ? errno : EIO;
    return rc;
}
