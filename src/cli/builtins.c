/* builtins.c - the script language's functions: the table the parser checks argument counts
 * against; the element-wise functions and reductions generated from texla's operation table
 * (base/optable.h: a row with a script name is a function, and every row must say whether it
 * has one, so a new row cannot be forgotten here); constructors, conversions, the solvers with
 * their outcomes, progress and residual histories; and element reads x(i), A(i, j). */
#include "values.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

pos start_of(const interp *in, const node *n) { return pos_of(in->sc, n->src0); }

/* ---- the operation table's rows, callable on dense matrices or on vectors ---- */

typedef struct ewx {
    texla_ctx *ctx;
    int vec;              /* 1: the texla_vec fields, 0: the texla_mat ones */
    texla_mat m[4], md;
    texla_vec v[4], vd;
    texla_coef c;
    float f[2];
} ewx;

#define EWC_c(nm, x) ((x)->vec ? texla_vec_##nm((x)->ctx, (x)->c, (x)->vd)                         \
                               : texla_mat_##nm((x)->ctx, (x)->c, (x)->md))
#define EWC_f(nm, x) ((x)->vec ? texla_vec_##nm((x)->ctx, (x)->f[0], (x)->vd)                      \
                               : texla_mat_##nm((x)->ctx, (x)->f[0], (x)->md))
#define EWC_A(nm, x) ((x)->vec ? texla_vec_##nm((x)->ctx, (x)->v[0], (x)->vd)                      \
                               : texla_mat_##nm((x)->ctx, (x)->m[0], (x)->md))
#define EWC_AB(nm, x) ((x)->vec ? texla_vec_##nm((x)->ctx, (x)->v[0], (x)->v[1], (x)->vd)          \
                                : texla_mat_##nm((x)->ctx, (x)->m[0], (x)->m[1], (x)->md))
#define EWC_Ac(nm, x) ((x)->vec ? texla_vec_##nm((x)->ctx, (x)->v[0], (x)->c, (x)->vd)             \
                                : texla_mat_##nm((x)->ctx, (x)->m[0], (x)->c, (x)->md))
#define EWC_AcB(nm, x) ((x)->vec ? texla_vec_##nm((x)->ctx, (x)->v[0], (x)->c, (x)->v[1], (x)->vd) \
                                 : texla_mat_##nm((x)->ctx, (x)->m[0], (x)->c, (x)->m[1], (x)->md))
#define EWC_cB(nm, x) ((x)->vec ? texla_vec_##nm((x)->ctx, (x)->c, (x)->v[0], (x)->vd)             \
                                : texla_mat_##nm((x)->ctx, (x)->c, (x)->m[0], (x)->md))
#define EWC_ABDE(nm, x)                                                                          \
    ((x)->vec ? texla_vec_##nm((x)->ctx, (x)->v[0], (x)->v[1], (x)->v[2], (x)->v[3], (x)->vd)     \
              : texla_mat_##nm((x)->ctx, (x)->m[0], (x)->m[1], (x)->m[2], (x)->m[3], (x)->md))
#define EWC_Af(nm, x) ((x)->vec ? texla_vec_##nm((x)->ctx, (x)->v[0], (x)->f[0], (x)->vd)          \
                                : texla_mat_##nm((x)->ctx, (x)->m[0], (x)->f[0], (x)->md))
#define EWC_Aff(nm, x)                                                                           \
    ((x)->vec ? texla_vec_##nm((x)->ctx, (x)->v[0], (x)->f[0], (x)->f[1], (x)->vd)               \
              : texla_mat_##nm((x)->ctx, (x)->m[0], (x)->f[0], (x)->f[1], (x)->md))

/* sources, coefficients and floats of each signature */
#define EWN_c 0, 1, 0
#define EWN_f 0, 0, 1
#define EWN_A 1, 0, 0
#define EWN_AB 2, 0, 0
#define EWN_Ac 1, 1, 0
#define EWN_AcB 2, 1, 0
#define EWN_cB 1, 1, 0
#define EWN_ABDE 4, 0, 0
#define EWN_Af 1, 0, 1
#define EWN_Aff 1, 0, 2

/* The script name of each row. Every row of TEXLA__EW_OPS needs a line here (a row without one
 * does not compile). NULL: written as an operator (+, -, .*, a number times a matrix), part of
 * min/max (see b_minmax), or in place (no use in a language whose values are immutable). */
#define CLI_EW_fill NULL
#define CLI_EW_copy NULL
#define CLI_EW_add NULL       /* A + B */
#define CLI_EW_sub NULL       /* A - B */
#define CLI_EW_mul NULL       /* A .* B */
#define CLI_EW_min NULL       /* min(A, B) */
#define CLI_EW_max NULL       /* max(A, B) */
#define CLI_EW_abs "abs"
#define CLI_EW_scale NULL     /* s * A */
#define CLI_EW_axpy NULL
#define CLI_EW_madad "madad"
#define CLI_EW_clamp_min NULL /* max(A, s) */
#define CLI_EW_clamp "clamp"
#define CLI_EW_recip "recip"
#define CLI_EW_acc NULL
#define CLI_EW_acc_mul NULL
#define CLI_EW_rescale NULL

#define X(nm, sg, prog, bl, k0, k1, doc)                                                         \
    static texla_result ew_##nm(const ewx *x) { return EWC_##sg(nm, x); }
TEXLA__EW_OPS(X)
#undef X

static const struct ew_row {
    const char *name, *cli, *doc;
    int nsrc, ncoef, nf;
    texla_result (*fn)(const ewx *x);
} ew_rows[EW_COUNT] = {
#define X(nm, sg, prog, bl, k0, k1, doc) {#nm, CLI_EW_##nm, doc, EWN_##sg, ew_##nm},
    TEXLA__EW_OPS(X)
#undef X
};

/* reductions: the script name of each row, as above */
#define CLI_RED_sum "sum"
#define CLI_RED_dot "dot"
#define CLI_RED_sqnorm "norm2"
#define CLI_RED_maxval NULL /* max(A) */
#define CLI_RED_minval NULL /* min(A) */
#define CLI_RED_maxabs "maxabs"

#define REDC_A(nm, vec, a, b, s) ((vec) ? texla_vec_##nm(ctx, (a)->x, s) : texla_mat_##nm(ctx, (a)->m, s))
#define REDC_AB(nm, vec, a, b, s)                                                                \
    ((vec) ? texla_vec_##nm(ctx, (a)->x, *(texla_vec *)(b), s)                                   \
           : texla_mat_##nm(ctx, (a)->m, *(texla_mat *)(b), s))
#define X(nm, sg, fold, map, doc)                                                                \
    static texla_result red_##nm(texla_ctx *ctx, int vec, const val *a, const void *b,           \
                                 texla_scalar s) {                                               \
        (void)b;                                                                                 \
        return REDC_##sg(nm, vec, a, b, s);                                                      \
    }
TEXLA__REDUCE_OPS(X)
#undef X

enum { FOLD_SUM, FOLD_MAX, FOLD_MIN };
enum { MAP_NONE, MAP_MUL, MAP_SQUARE, MAP_ABS };

static const struct red_row {
    const char *name, *cli, *doc;
    int two, fold, map;
    texla_result (*fn)(texla_ctx *ctx, int vec, const val *a, const void *b, texla_scalar s);
} red_rows[RED_COUNT] = {
#define X(nm, sg, fold, map, doc)                                                                \
    {#nm, CLI_RED_##nm, doc, sizeof #sg - 2, FOLD_##fold, MAP_##map, red_##nm},
    TEXLA__REDUCE_OPS(X)
#undef X
};

/* a constant of x's shape and storage (dense, or a vector in x's layout) */
val *const_like(interp *in, pos at, const val *x, float f) {
    if (x->kind != V_VEC) return dense_const(in, at, x->rows, x->cols, f);
    texla_vec c;
    if (texla_vec_make_like(in->ctx, x->x, &c) || texla_vec_fill(in->ctx, texla_host(f), c)) {
        gl_fail(in, at, "making a constant vector");
        texla_vec_destroy(in->ctx, c);
        return NULL;
    }
    return vec_take(in, at, c, x->nx, x->ny);
}

val *ew_apply(interp *in, pos at, int row, val *const *ops, texla_coef c, const float *f) {
    const struct ew_row *r = &ew_rows[row];
    ewx x = {.ctx = in->ctx, .c = c};
    if (f) x.f[0] = f[0], x.f[1] = r->nf > 1 ? f[1] : 0.0f;
    const val *base = ops[0];
    for (int i = 0; i < r->nsrc; i++)
        if (ops[i]->kind == V_VEC && ops[i]->nx && !base->nx) base = ops[i];
    int owned[4] = {0}, fail = 0;
    x.vec = base->kind == V_VEC;
    for (int i = 0; i < r->nsrc && !fail; i++) {
        if (x.vec) fail = vec_in(in, at, ops[i], base->x, &x.v[i], &owned[i]);
        else x.m[i] = ops[i]->m;
    }
    val *res = NULL;
    if (!fail) {
        res = x.vec ? NULL : dense_new(in, at, base->rows, base->cols, NULL);
        texla_result e = TEXLA_OK;
        if (x.vec) e = texla_vec_make_like(in->ctx, base->x, &x.vd);
        else if (res) x.md = res->m;
        if (!e && (x.vec || res)) e = r->fn(&x);
        if (e) {
            gl_fail(in, at, r->cli ? r->cli : r->name);
            if (x.vec) texla_vec_destroy(in->ctx, x.vd);
            val_unref(in, res);
            res = NULL;
        } else if (x.vec) {
            res = vec_take(in, at, x.vd, base->nx, base->ny);
        }
    }
    for (int i = 0; i < 4; i++)
        if (owned[i]) texla_vec_destroy(in->ctx, x.v[i]);
    return res;
}

/* ---- reductions ---- */

static double fold_one(int fold, int map, double acc, double v) {
    v = map == MAP_ABS ? fabs(v) : map == MAP_SQUARE ? v * v : v;
    return fold == FOLD_SUM ? acc + v : fold == FOLD_MAX ? (v > acc || v != v ? v : acc)
                                                          : (v < acc || v != v ? v : acc);
}

/* a reduction of a banded or sparse matrix on its host copy (duplicates summed first), the
 * elements it does not store counted as zeros */
static int reduce_host(interp *in, pos at, const struct red_row *r, val *a, double *out) {
    double acc = r->fold == FOLD_SUM ? 0 : r->fold == FOLD_MAX ? -INFINITY : INFINITY;
    long long stored = 0;
    if (a->kind == V_BANDED) {
        if (banded_host(in, at, a)) return -1;
        for (int i = 0; i < a->ndiag; i++)
            for (int k = 0; k < a->rows; k++) {
                long long j = (long long)k + a->offs[i];
                if (j < 0 || j >= a->rows) continue;
                acc = fold_one(r->fold, r->map, acc, a->diags[(size_t)i * (size_t)a->rows + (size_t)k]);
                stored++;
            }
    } else {
        int m, *ri, *ci;
        float *vv;
        if (cells_merge(a->cols, a->nnz, a->ri, a->ci, a->vv, &m, &ri, &ci, &vv))
            return fail_at(in, at, "%s: out of host memory", r->cli ? r->cli : r->name);
        for (int e = 0; e < m; e++) acc = fold_one(r->fold, r->map, acc, vv[e]);
        stored = m;
        free(ri), free(ci), free(vv);
    }
    if (stored < (long long)a->rows * a->cols) acc = fold_one(r->fold, r->map, acc, 0.0);
    *out = acc;
    return 0;
}

int reduce_val(interp *in, pos at, int row, val *a, val *b, double *out) {
    const struct red_row *r = &red_rows[row];
    const char *what = r->cli ? r->cli : r->name;
    if (a->kind == V_SCALAR) {
        double s = a->s, t = b ? b->s : s;
        *out = r->map == MAP_MUL ? s * t : r->map == MAP_SQUARE ? s * s : r->map == MAP_ABS ? fabs(s) : s;
        return 0;
    }
    if (!r->two && (a->kind == V_BANDED || a->kind == V_SPARSE)) return reduce_host(in, at, r, a, out);
    val *da = to_dense(in, at, a, what), *db = r->two && da ? to_dense(in, at, b, what) : NULL;
    if (!da || (r->two && !db)) {
        val_unref(in, da);
        return -1;
    }
    texla_vec bv = {0};
    int owned = 0, vec = da->kind == V_VEC;
    if (r->two && vec && vec_in(in, at, db, da->x, &bv, &owned)) {
        val_unref(in, da), val_unref(in, db);
        return -1;
    }
    texla_scalar s = {0};
    float f = 0;
    texla_result e = texla_scalar_make(in->ctx, 0.0f, &s);
    if (!e) e = r->fn(in->ctx, vec, da, r->two ? (vec ? (const void *)&bv : (const void *)&db->m) : NULL, s);
    if (!e) e = texla_scalar_read(in->ctx, s, &f);
    texla_scalar_destroy(in->ctx, s);
    if (owned) texla_vec_destroy(in->ctx, bv);
    val_unref(in, da), val_unref(in, db);
    if (e) return gl_fail(in, at, what);
    *out = f;
    return 0;
}

/* ---- calls ---- */

typedef struct call {
    interp *in;
    const node *n;
    val **a;  /* evaluated arguments */
    int row;  /* the operation table's row (generated functions) */
} call;

/* a number, or a 1 x 1 value (its element) */
static int want_num(call *c, int i, const char *name, double *out) {
    const val *v = c->a[i];
    pos at = start_of(c->in, c->n->args[i]);
    char b[128];
    int rc = num_of(c->in, at, v, out);
    if (rc > 0)
        return fail_at(c->in, at, "%s: %s must be a number, not a %s", c->n->name, name,
                       describe_val(v, b, sizeof b));
    return rc;
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
    if (v->kind != V_VEC)
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

static int want_float(call *c, int i, const char *name, float *out) {
    double x;
    if (want_num(c, i, name, &x)) return -1;
    *out = (float)x;
    if (!isfinite(*out))
        return fail_at(c->in, start_of(c->in, c->n->args[i]), "%s: %s is %g, not a finite float",
                       c->n->name, name, x);
    return 0;
}

/* x (> 0 or 0 as the caller checked) for a float field of texla where 0 means something else
 * (zero_means): a positive x that rounds to 0 as a float would silently become it, and one past
 * float's range would be refused by texla in its own words */
static int want_float_param(call *c, int i, const char *name, double x, const char *zero_means) {
    pos at = start_of(c->in, c->n->args[i]);
    if (x > 0 && (float)x == 0)
        return fail_at(c->in, at, "%s: %s %g rounds to 0 in float32, which means %s; the "
                       "smallest usable %s is %.9g", c->n->name, name, x, zero_means, name,
                       (double)FLT_TRUE_MIN);
    if (!isfinite((float)x))
        return fail_at(c->in, at, "%s: %s %g is past the largest float, %.9g", c->n->name, name,
                       x, (double)FLT_MAX);
    return 0;
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

/* |A| of a banded or sparse matrix, keeping its storage (duplicates summed first) */
static val *abs_struct(interp *in, pos at, val *a) {
    if (a->kind == V_BANDED) {
        if (banded_host(in, at, a)) return NULL;
        size_t n = (size_t)a->ndiag * (size_t)a->rows;
        int *offs = malloc(sizeof *offs * (size_t)(a->ndiag ? a->ndiag : 1));
        float *d = malloc(sizeof *d * (n ? n : 1));
        if (!offs || !d) {
            free(offs), free(d);
            fail_at(in, at, "abs: out of host memory");
            return NULL;
        }
        memcpy(offs, a->offs, sizeof *offs * (size_t)a->ndiag);
        for (size_t i = 0; i < n; i++) d[i] = fabsf(a->diags[i]);
        return banded_new(in, at, a->rows, a->nx, a->ny, a->ndiag, offs, d);
    }
    int m, *ri, *ci;
    float *vv;
    if (cells_merge(a->cols, a->nnz, a->ri, a->ci, a->vv, &m, &ri, &ci, &vv)) {
        fail_at(in, at, "abs: out of host memory");
        return NULL;
    }
    for (int e = 0; e < m; e++) vv[e] = fabsf(vv[e]);
    return sparse_new(in, at, a->rows, a->cols, m, ri, ci, vv);
}

/* the functions of the operation table's named rows: matrices in the source places, numbers
 * in the float places */
static val *b_ew(call *c) {
    const struct ew_row *r = &ew_rows[c->row];
    interp *in = c->in;
    if (c->row == EW_abs && c->a[0]->kind == V_SCALAR) return scalar_new(in, fabs(c->a[0]->s));
    if (c->row == EW_abs && (c->a[0]->kind == V_BANDED || c->a[0]->kind == V_SPARSE))
        return abs_struct(in, c->n->at, c->a[0]);
    static const char *const names[] = {"A", "B", "D", "E"};
    val *d[4] = {0}, *res = NULL;
    float f[2] = {0, 0};
    int ok = 1;
    for (int i = 0; i < r->nsrc && ok; i++) ok = !want_matrix(c, i, names[i]);
    for (int i = 0; i < r->nf && ok; i++)
        ok = !want_float(c, r->nsrc + i, r->nf == 1 ? "s" : i ? "HI" : "LO", &f[i]);
    if (ok && r->nf == 2 && f[0] > f[1]) {
        fail_at(in, start_of(in, c->n->args[1]), "%s: LO %g is above HI %g", r->cli, (double)f[0],
                (double)f[1]);
        ok = 0;
    }
    for (int i = 1; i < r->nsrc && ok; i++)
        if (c->a[i]->rows != c->a[0]->rows || c->a[i]->cols != c->a[0]->cols) {
            char b1[128], b2[128];
            fail_at(in, c->n->at, "shape mismatch: %s(...) of a %s and a %s", r->cli,
                    describe_val(c->a[0], b1, sizeof b1), describe_val(c->a[i], b2, sizeof b2));
            ok = 0;
        }
    for (int i = 0; i < r->nsrc && ok; i++) ok = (d[i] = to_dense(in, c->n->at, c->a[i], r->cli)) != NULL;
    if (ok) res = ew_apply(in, c->n->at, c->row, d, texla_host(0.0f), f);
    for (int i = 0; i < 4; i++) val_unref(in, d[i]);
    return res;
}

/* sum, dot, norm2, maxabs (the table's named reductions) and norm */
static val *b_reduce(call *c) {
    const struct red_row *r = &red_rows[c->row];
    int norm = !strcmp(c->n->name, "norm");
    if (r->two) {
        val *a = c->a[0], *b = c->a[1];
        if ((a->kind == V_SCALAR) != (b->kind == V_SCALAR) ||
            (a->kind != V_SCALAR && (a->rows != b->rows || a->cols != b->cols))) {
            char b1[128], b2[128];
            fail_at(c->in, c->n->at, "shape mismatch: %s of a %s and a %s", c->n->name,
                    describe_val(a, b1, sizeof b1), describe_val(b, b2, sizeof b2));
            return NULL;
        }
    }
    double v;
    if (reduce_val(c->in, c->n->at, c->row, c->a[0], r->two ? c->a[1] : NULL, &v)) return NULL;
    return scalar_new(c->in, norm ? sqrt(v) : v);
}

/* min and max: of one argument, the smallest or largest element (a number); of two, element by
 * element (a number and a matrix: the matrix clamped at the number) */
static val *b_minmax(call *c) {
    interp *in = c->in;
    int mx = !strcmp(c->n->name, "max");
    if (c->n->nargs == 1) {
        double v;
        if (reduce_val(in, c->n->at, mx ? RED_maxval : RED_minval, c->a[0], NULL, &v)) return NULL;
        return scalar_new(in, v);
    }
    val *x = c->a[0], *s = c->a[1];
    if (x->kind == V_SCALAR && s->kind == V_SCALAR)
        return scalar_new(in, mx ? (x->s > s->s ? x->s : s->s) : (x->s < s->s ? x->s : s->s));
    if (x->kind == V_SCALAR) x = c->a[1], s = c->a[0];
    if (s->kind != V_SCALAR && (x->rows != s->rows || x->cols != s->cols)) {
        char b1[128], b2[128];
        fail_at(in, c->n->at, "shape mismatch: %s of a %s and a %s", c->n->name,
                describe_val(x, b1, sizeof b1), describe_val(s, b2, sizeof b2));
        return NULL;
    }
    float f = s->kind == V_SCALAR ? (float)s->s : 0.0f;
    if (!isfinite(f)) {
        fail_at(in, c->n->at, "%s: %g is not a finite float", c->n->name, s->s);
        return NULL;
    }
    val *d = to_dense(in, c->n->at, x, c->n->name), *e = NULL, *r = NULL;
    if (d && s->kind == V_SCALAR && mx) {
        val *ops[1] = {d};
        r = ew_apply(in, c->n->at, EW_clamp_min, ops, texla_host(0.0f), &f);
    } else if (d) {
        e = s->kind == V_SCALAR ? const_like(in, c->n->at, d, f) : to_dense(in, c->n->at, s, c->n->name);
        val *ops[2] = {d, e};
        if (e) r = ew_apply(in, c->n->at, mx ? EW_max : EW_min, ops, texla_host(0.0f), NULL);
    }
    val_unref(in, d), val_unref(in, e);
    return r;
}

static val *b_size(call *c) { /* size(A): [rows cols]; size(A, D); rows(A), cols(A) */
    const val *v = c->a[0];
    int r = v->kind == V_SCALAR ? 1 : v->rows, k = v->kind == V_SCALAR ? 1 : v->cols;
    if (!strcmp(c->n->name, "size")) {
        if (c->n->nargs == 1) {
            float d[2] = {(float)r, (float)k};
            return dense_new(c->in, c->n->at, 1, 2, d);
        }
        long long dim;
        if (want_int(c, 1, "D", 1, 2, &dim)) return NULL;
        return scalar_new(c->in, dim == 1 ? r : k);
    }
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

/* ---- the solvers: what they say, their progress, their histories ---- */

/* solver notes go to stderr, after what the script printed so far */
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

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Progress on stderr: on a terminal, one line rewritten in place once a solve has run for a
 * second (texla run's default); with --progress, a line at most every 0.2 s from the start. */
typedef struct progress {
    interp *in;
    pos at;
    const char *what;
    double t0, last;
    int tty, shown;
} progress;

static int on_progress(const texla_solve_progress *p, void *user) {
    progress *g = user;
    int mode = g->in->opt->progress;
    double t = now_s();
    if (mode == 0 || (mode < 0 && (!g->tty || t - g->t0 < 1.0))) return 0;
    if (g->shown && t - g->last < 0.2) return 0;
    g->last = t;
    fflush(g->in->out);
    char res[48] = "";
    if (p->residual >= 0) snprintf(res, sizeof res, ", residual %.3g", (double)p->residual);
    if (g->tty)
        fprintf(stderr, "\r%s:%d: %s: iteration %d of %d%s (%.1f s)\033[K", g->in->sc->file,
                g->at.line, g->what, p->iteration, p->max_iter, res, t - g->t0);
    else
        fprintf(stderr, "%s:%d: %s: iteration %d of %d%s (%.1f s)\n", g->in->sc->file, g->at.line,
                g->what, p->iteration, p->max_iter, res, t - g->t0);
    g->shown = 1;
    return 0;
}

static void progress_end(progress *g) {
    if (g->shown && g->tty) fputs("\r\033[K", stderr);
}

/* the statement wants a residual plot: room for a solve's history */
static int hist_room(interp *in, pos at, long long n) {
    if (n > 1 << 24) n = 1 << 24;
    if (n <= in->caphist) return 0;
    float *h = realloc(in->hist, sizeof *h * (size_t)n);
    if (h) in->hist = h;
    int *hi = h ? realloc(in->hist_it, sizeof *hi * (size_t)n) : NULL;
    if (hi) in->hist_it = hi;
    int *ht = hi ? realloc(in->hist_true, sizeof *ht * (size_t)n) : NULL;
    if (ht) in->hist_true = ht;
    if (!h || !hi || !ht) return fail_at(in, at, "out of host memory for a residual history");
    in->caphist = (int)n;
    return 0;
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
    if (c->n->nargs > 2 && want_float_param(c, 2, "TOL", tol, "a fixed count of iterations"))
        return NULL;
    /* a 1 x 1 A is a vector value: dense for texla_cg */
    texla_mat ma = a->kind == V_DENSE ? a->m : (texla_mat){0};
    int oa = 0;
    if (a->kind == V_VEC && mat_of(in, c->n->at, a, "cg", &ma, &oa)) return NULL;
    texla_op op = a->kind == V_BANDED   ? texla_op_banded(a->b)
                : a->kind == V_SPARSE   ? texla_op_sparse(a->sp)
                                        : texla_op_dense(ma);
    int plain = a->kind == V_DENSE || a->kind == V_VEC;
    texla_vec bv = {0}, xv = {0};
    int owned = 0;
    if (vec_in(in, c->n->at, b, plain ? (texla_vec){0} : a->like, &bv, &owned)) {
        if (oa) texla_mat_destroy(in->ctx, ma);
        return NULL;
    }
    progress g = {in, c->n->at, "cg", now_s(), 0, isatty(2), 0};
    texla_cg_desc d = {.max_iter = (int)maxit, .tol = (float)tol, .progress = on_progress,
                       .progress_user = &g};
    int max_iter = maxit ? (int)maxit : a->rows;
    if (in->want_hist && tol > 0 && !hist_room(in, c->n->at, (long long)max_iter / 8 + 16)) {
        d.history = in->hist, d.history_iter = in->hist_it, d.history_cap = in->caphist;
        d.history_true = in->hist_true;
    }
    texla_cg_result res;
    val *x = NULL;
    if (in->failed) {
        /* hist_room reported */
    } else if (texla_vec_make_like(in->ctx, bv, &xv) || texla_cg(in->ctx, op, bv, &d, xv, &res)) {
        progress_end(&g);
        gl_fail(in, c->n->at, "cg");
        texla_vec_destroy(in->ctx, xv);
    } else {
        progress_end(&g);
        int grid = a->kind == V_BANDED && a->nx;
        x = vec_take(in, c->n->at, xv, grid ? a->nx : b->nx, grid ? a->ny : b->ny);
        char why[256] = "";
        switch (res.stop) {
        case TEXLA_CG_FIXED:
            note(in, c->n->at, "cg: %d iterations (fixed count, residual not read back)",
                 res.iterations);
            break;
        case TEXLA_CG_CONVERGED:
            note(in, c->n->at, "cg: converged: %d iterations, relative residual %.3g (tolerance %g)",
                 res.iterations, (double)res.rel_residual, tol);
            break;
        case TEXLA_CG_STAGNATED:
            snprintf(why, sizeof why, "cg: NOT converged (float32 stagnation): %d iterations, "
                     "relative residual %.3g, best %.3g at iteration %d (tolerance %g)",
                     res.iterations, (double)res.rel_residual, (double)res.best_residual,
                     res.best_iteration, tol);
            break;
        case TEXLA_CG_NAN:
            snprintf(why, sizeof why, "cg: NOT converged (NaN): %d iterations; A is not symmetric "
                     "positive definite, or A or b is not finite", res.iterations);
            break;
        default:
            snprintf(why, sizeof why, "cg: NOT converged (%s): %d iterations, relative residual "
                     "%.3g (tolerance %g)", texla_cg_stop_name(res.stop), res.iterations,
                     (double)res.rel_residual, tol);
            break;
        }
        if (d.history) {
            in->nhist = res.history_len, in->hist_split = 1;
            snprintf(in->hist_title, sizeof in->hist_title, "cg: relative residual (tolerance %g): %s",
                     tol, texla_cg_stop_name(res.stop));
            in->hist_ylabel = "relative residual ||b - A x|| / ||b||";
        }
        if (*why && in->opt->strict) {
            fail_at(in, c->n->at, "%s (--strict)", why);
            val_unref(in, x);
            x = NULL;
        } else if (*why) {
            note(in, c->n->at, "%s", why);
        }
    }
    if (owned) texla_vec_destroy(in->ctx, bv);
    if (oa) texla_mat_destroy(in->ctx, ma);
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
    if (c->n->nargs > 3 && want_float_param(c, 3, "OMEGA", omega, "the default, 1"))
        return NULL;
    texla_mat ma = {0}, mb = {0}, mx = {0};
    int oa = 0, ob = 0;
    if (mat_of(in, c->n->at, a, "lcp (projected Jacobi needs a dense A)", &ma, &oa)) return NULL;
    val *x = NULL;
    progress g = {in, c->n->at, "lcp", now_s(), 0, isatty(2), 0};
    texla_lcp_desc d = {.iterations = (int)iters, .omega = (float)omega};
    /* the natural residual is measured (a product every 16 iterations) only when someone looks */
    if (in->opt->progress > 0 || (in->opt->progress < 0 && g.tty) || in->want_hist)
        d.progress = on_progress, d.progress_user = &g, d.check_every = 16;
    if (in->want_hist && !hist_room(in, c->n->at, iters / 16 + 8))
        d.history = in->hist, d.history_iter = in->hist_it, d.history_cap = in->caphist;
    texla_lcp_result res;
    if (in->failed || mat_of(in, c->n->at, b, "lcp", &mb, &ob)) {
        /* reported */
    } else if (texla_mat_make(in->ctx, a->rows, 1, NULL, &mx) ||
               texla_lcp_jacobi(in->ctx, ma, mb, &d, mx, &res)) {
        progress_end(&g);
        gl_fail(in, c->n->at, "lcp");
        texla_mat_destroy(in->ctx, mx);
    } else {
        progress_end(&g);
        x = val_of_mat(in, c->n->at, mx, a->rows, 1);
        if (x) x->nx = b->nx, x->ny = b->ny;
        char why[320] = "";
        if (res.status == TEXLA_LCP_SOLVED)
            note(in, c->n->at, "lcp: solved: %lld iterations (omega %g): min x %.3g, min w %.3g, "
                 "x'w %.3g, max |x_i w_i| %.3g (tolerance %g of the scale %.3g)", iters, omega,
                 (double)res.min_x, (double)res.min_w, (double)res.xw, (double)res.max_abs_xw,
                 (double)res.tol, (double)res.scale);
        else if (res.status == TEXLA_LCP_NAN)
            snprintf(why, sizeof why, "lcp: NOT solved (NaN): %lld iterations (omega %g); A or b "
                     "is not finite, or the iteration diverged", iters, omega);
        else
            snprintf(why, sizeof why, "lcp: NOT solved: %lld iterations (omega %g): min w %.3g "
                     "(%.3g of the scale %.3g), max |x_i w_i| %.3g (%.3g relative), x'w %.3g; "
                     "tolerance %g", iters, omega, (double)res.min_w, (double)res.rel_min_w,
                     (double)res.scale, (double)res.max_abs_xw, (double)res.rel_xw,
                     (double)res.xw, (double)res.tol);
        if (d.history) {
            in->nhist = res.history_len, in->hist_split = 0;
            snprintf(in->hist_title, sizeof in->hist_title, "lcp: natural residual: %s",
                     texla_lcp_status_name(res.status));
            in->hist_ylabel = "||min(x, A x + b)|| / ||b|| (max norms)";
        }
        if (*why && in->opt->strict) {
            fail_at(in, c->n->at, "%s (--strict)", why);
            val_unref(in, x);
            x = NULL;
        } else if (*why) {
            note(in, c->n->at, "%s", why);
        }
    }
    if (oa) texla_mat_destroy(in->ctx, ma);
    if (ob) texla_mat_destroy(in->ctx, mb);
    return x;
}

/* ---- the table ---- */

typedef struct builtin {
    const char *name;
    int min, max;
    const char *args;
    val *(*fn)(call *);
    int row; /* of the operation table (generated entries), else -1 */
} builtin;

static const builtin builtins[] = {
    {"rand", 2, 3, "R, C[, SEED]", b_rand, -1},
    {"zeros", 1, 2, "R[, C]", b_fill, -1},
    {"ones", 1, 2, "R[, C]", b_fill, -1},
    {"eye", 1, 1, "N", b_eye, -1},
    {"poisson", 2, 4, "NX, NY[, ALPHA, BETA]", b_poisson, -1},
    {"min", 1, 2, "A[, B]", b_minmax, -1},
    {"max", 1, 2, "A[, B]", b_minmax, -1},
    {"norm", 1, 1, "A", b_reduce, RED_sqnorm},
    {"cg", 2, 4, "A, b[, TOL[, MAXIT]]", b_cg, -1},
    {"lcp", 2, 4, "A, b[, ITERS[, OMEGA]]", b_lcp, -1},
    {"dense", 1, 1, "A", b_convert, -1},
    {"sparse", 1, 1, "A", b_convert, -1},
    {"banded", 1, 1, "A", b_convert, -1},
    {"grid", 3, 3, "x, NX, NY", b_grid, -1},
    {"transpose", 1, 1, "A", b_transpose, -1},
    {"size", 1, 2, "A[, D]", b_size, -1},
    {"rows", 1, 1, "A", b_size, -1},
    {"cols", 1, 1, "A", b_size, -1},
    {"sqrt", 1, 1, "x", b_sqrt, -1},
};

/* the arguments of a generated function, by its row's signature */
static const char *ew_args(const struct ew_row *r) {
    return r->nsrc == 4 ? "A, B, D, E" : r->nsrc == 2 ? "A, B" : r->nf == 2 ? "A, LO, HI"
         : r->nf == 1 ? "A, s" : "A";
}

/* A builtin by name: the hand-written table, then the operation table's named rows (a name is
 * in one place only: tests/test_cli.sh calls every one). */
static int find_builtin(const char *name, builtin *out) {
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (!strcmp(builtins[i].name, name)) return *out = builtins[i], 1;
    for (int i = 0; i < EW_COUNT; i++)
        if (ew_rows[i].cli && !strcmp(ew_rows[i].cli, name)) {
            int n = ew_rows[i].nsrc + ew_rows[i].nf;
            *out = (builtin){ew_rows[i].cli, n, n, ew_args(&ew_rows[i]), b_ew, i};
            return 1;
        }
    for (int i = 0; i < RED_COUNT; i++)
        if (red_rows[i].cli && !strcmp(red_rows[i].cli, name)) {
            int n = red_rows[i].two ? 2 : 1;
            *out = (builtin){red_rows[i].cli, n, n, n == 2 ? "a, b" : "A", b_reduce, i};
            return 1;
        }
    return 0;
}

void builtin_list(char *buf, size_t n) {
    size_t len = 0;
    buf[0] = '\0';
#define ADD(s) len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%s", len ? ", " : "", s)
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++) ADD(builtins[i].name);
    for (int i = 0; i < EW_COUNT; i++)
        if (ew_rows[i].cli) ADD(ew_rows[i].cli);
    for (int i = 0; i < RED_COUNT; i++)
        if (red_rows[i].cli) ADD(red_rows[i].cli);
#undef ADD
    if (len >= n && n > 4) strcpy(buf + n - 4, "...");
}

int is_builtin(const char *name) {
    builtin b;
    return find_builtin(name, &b);
}

int call_arity_check(const char *name, int nargs, char *why, size_t n) {
    builtin b;
    if (!find_builtin(name, &b)) {
        if (nargs == 1 || nargs == 2) return 0; /* an element read, or an unknown function */
        char list[600];
        builtin_list(list, sizeof list);
        snprintf(why, n, "%s(...) with %d argument%s: '%s' is not a function (functions: %s), and "
                 "an element read takes 1 or 2 indices (x(i), A(i, j))", name, nargs,
                 nargs == 1 ? "" : "s", name, list);
        return -1;
    }
    if (nargs >= b.min && nargs <= b.max) return 0;
    char want[32];
    if (b.min == b.max) snprintf(want, sizeof want, "%d", b.min);
    else snprintf(want, sizeof want, "%d %s %d", b.min, b.max == b.min + 1 ? "or" : "to", b.max);
    snprintf(why, n, "%s: expected %s argument%s (%s), got %d", b.name, want,
             b.max == 1 ? "" : "s", b.args, nargs);
    return -1;
}

/* ---- element reads: x(i), A(i, j), indices from 1 ---- */

static val *element(interp *in, const node *n, val *x, val **args) {
    char b[128];
    if (x->kind == V_SCALAR) {
        fail_at(in, n->at, "%s is a number (%g); only matrices and vectors have elements", n->name,
                x->s);
        return NULL;
    }
    long long idx[2];
    double raw[2] = {0, 0}; /* as written, for the messages (idx is clamped) */
    for (int k = 0; k < n->nargs; k++) {
        double v = NAN;
        int rc = num_of(in, start_of(in, n->args[k]), args[k], &v);
        if (rc < 0) return NULL;
        raw[k] = v;
        if (rc > 0 || v != floor(v)) {
            fail_at(in, start_of(in, n->args[k]), "%s(...): an index must be a whole number, not "
                    "%s", n->name, rc == 0 ? "a fraction" : describe_val(args[k], b, sizeof b));
            return NULL;
        }
        idx[k] = v < -1e18 ? -1 : v > 1e18 ? (long long)1e18 : (long long)v;
    }
    long long i, j;
    if (n->nargs == 1) {
        if (x->cols != 1 && x->rows != 1) {
            fail_at(in, n->at, "%s(i) reads an element of a vector; %s is a %s: write %s(i, j)",
                    n->name, n->name, describe_val(x, b, sizeof b), n->name);
            return NULL;
        }
        i = x->cols == 1 ? idx[0] : 1, j = x->cols == 1 ? 1 : idx[0];
        long long len = x->cols == 1 ? x->rows : x->cols;
        if (idx[0] < 1 || idx[0] > len) {
            fail_at(in, start_of(in, n->args[0]), "%s(%.15g): the index is out of range 1..%lld "
                    "(a %s)", n->name, raw[0], len, describe_val(x, b, sizeof b));
            return NULL;
        }
    } else {
        i = idx[0], j = idx[1];
        for (int k = 0; k < 2; k++) {
            long long lim = k ? x->cols : x->rows;
            if (idx[k] < 1 || idx[k] > lim) {
                fail_at(in, start_of(in, n->args[k]), "%s(%.15g, %.15g): the %s index is out "
                        "of range 1..%lld (a %s)", n->name, raw[0], raw[1], k ? "column" : "row",
                        lim, describe_val(x, b, sizeof b));
                return NULL;
            }
        }
    }
    i--, j--;
    if (x->kind == V_BANDED) {
        if (banded_host(in, n->at, x)) return NULL;
        double s = 0;
        for (int d = 0; d < x->ndiag; d++)
            if (x->offs[d] == j - i) s += x->diags[(size_t)d * (size_t)x->rows + (size_t)i];
        return scalar_new(in, s);
    }
    if (x->kind == V_SPARSE) {
        double s = 0;
        for (int e = 0; e < x->nnz; e++)
            if (x->ri[e] == i && x->ci[e] == j) s += x->vv[e];
        return scalar_new(in, (float)s);
    }
    /* dense and vectors: read back (the whole texture: texla has no partial read) */
    float *h = host_dense(in, n->at, x, n->name);
    if (!h) return NULL;
    double s = h[(size_t)i * (size_t)x->cols + (size_t)j];
    free(h);
    return scalar_new(in, s);
}

val *eval_call(interp *in, const node *n) {
    builtin b;
    var *x = NULL;
    if (!find_builtin(n->name, &b) && !(x = find_var(in, n->name))) {
        char list[600];
        builtin_list(list, sizeof list);
        fail_at(in, n->at, "unknown function '%s' (functions: %s)", n->name, list);
        return NULL;
    }
    char why[1024];
    if (call_arity_check(n->name, n->nargs, why, sizeof why)) { /* the parser checked already */
        fail_at(in, n->at, "%s", why);
        return NULL;
    }
    val *args[4] = {0};
    val *r = NULL;
    int i = 0;
    for (; i < n->nargs; i++)
        if (!(args[i] = in->eval(in, n->args[i]))) break;
    if (i == n->nargs) {
        if (x) {
            r = element(in, n, x->v, args);
        } else {
            call c = {in, n, args, b.row};
            r = b.fn(&c);
        }
    }
    for (int j = 0; j < n->nargs; j++) val_unref(in, args[j]);
    return r;
}
