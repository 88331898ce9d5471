/* operator.c - linear operators (texla_op): any matrix kind behind one matrix-vector product,
 * for the solvers; and products of operators, A x = L (R x), applied without forming L R (the
 * matrix-free contact LCP: J (M^-1 J' x)). */
#include "core/core.h"
#include "storage/sparse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const texla__kind op_kinds[] = {[TEXLA_OP_DENSE] = TEXLA__KIND_MAT,
                                       [TEXLA_OP_BANDED] = TEXLA__KIND_BANDED,
                                       [TEXLA_OP_SPARSE] = TEXLA__KIND_SPARSE,
                                       [TEXLA_OP_PRODUCT] = TEXLA__KIND_OPERATOR};

/* a product's part: the operators and the vector between them (named, not owned); depth: 1 +
 * the deeper part's (a matrix's is 0); cost: the matrix products one application makes (a
 * matrix's is 1); seen: the walk that last visited it (writes) */
typedef struct product_part {
    texla_op l, r;
    texla_vec mid;
    int depth;
    long long cost;
    unsigned seen;
} product_part;

/* products nest at most this deep (applying one recurses once a level), and one application
 * makes at most this many matrix products (a product may name one operator twice: P = Q Q of
 * Q = R R .. doubles at each level) */
#define MAX_DEPTH 64
#define MAX_COST (1LL << 20)

static int writes(texla_ctx *ctx, texla_op a, uint64_t v, int depth);

static void describe(const texla__obj *o, char *buf, size_t n) {
    snprintf(buf, n, "a %d x %d product operator", o->rows, o->cols);
}

static const texla__kind_desc product_kind = {"product operator", NULL, describe, NULL};

static texla_result bad_kind(texla_ctx *ctx, const char *fn, texla_op a) {
    return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                       "%s: operator kind %d is none of TEXLA_OP_DENSE, _BANDED, _SPARSE, _PRODUCT",
                       fn, (int)a.kind);
}

static int kind_ok(texla_op a) { return a.kind >= TEXLA_OP_DENSE && a.kind <= TEXLA_OP_PRODUCT; }

/* the operator's object, or a precise error */
static texla_result op_obj(texla_ctx *ctx, const char *fn, const char *name, texla_op a,
                           texla__obj **out) {
    if (!kind_ok(a)) return bad_kind(ctx, fn, a);
    *out = texla__obj_get(ctx, a.id, op_kinds[a.kind]);
    if (!*out) return texla__bad_handle(ctx, fn, name, op_kinds[a.kind], a.id);
    return TEXLA_OK;
}

texla_result texla_op_matvec(texla_ctx *ctx, texla_op a, texla_vec x, texla_vec y) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    switch (a.kind) {
    case TEXLA_OP_DENSE: return texla_mat_matvec(ctx, (texla_mat){a.id}, x, y);
    case TEXLA_OP_BANDED: return texla_banded_matvec(ctx, (texla_banded){a.id}, x, y);
    case TEXLA_OP_SPARSE: return texla_sparse_matvec(ctx, (texla_sparse){a.id}, x, y);
    case TEXLA_OP_PRODUCT: {
        const char *fn = "texla_op_matvec";
        texla__obj *o;
        texla_result r = op_obj(ctx, fn, "a", a, &o);
        if (r) return r;
        product_part p = *(const product_part *)o->part; /* a copy: o may move when objects grow */
        /* any product's mid at any depth: it is written while a is applied (x after it was
         * read, y before L has read what it needs) */
        int wx = writes(ctx, a, x.id, 0);
        if (wx || writes(ctx, a, y.id, 0))
            return texla__fail(ctx, TEXLA_ERR_ALIAS,
                               "%s: %s is the intermediate vector (mid) of a product in a; it is "
                               "written while a is applied", fn, wx ? "x" : "y");
        texla_ctx_begin(ctx);
        r = texla_op_matvec(ctx, p.r, x, p.mid);
        if (!r) r = texla_op_matvec(ctx, p.l, p.mid, y);
        texla_ctx_end(ctx);
        return r;
    }
    }
    return bad_kind(ctx, "texla_op_matvec", a);
}

texla_result texla_op_shape(texla_ctx *ctx, texla_op a, int *rows, int *cols) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_op_shape";
    if (!rows || !cols) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: rows or cols is NULL", fn);
    texla__obj *o;
    texla_result r = op_obj(ctx, fn, "a", a, &o);
    if (r) return r;
    *rows = o->rows;
    *cols = o->cols;
    return TEXLA_OK;
}

texla_result texla_op_product(texla_ctx *ctx, texla_op l, texla_op r, texla_vec mid,
                              texla_op *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_op_product";
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: out is NULL", fn);
    *out = (texla_op){0, 0};
    texla__obj *lo, *ro;
    texla_result res = op_obj(ctx, fn, "l", l, &lo);
    if (!res) res = op_obj(ctx, fn, "r", r, &ro);
    if (res) return res;
    int lrows = lo->rows, lcols = lo->cols, rrows = ro->rows, rcols = ro->cols;
    int ld = l.kind == TEXLA_OP_PRODUCT ? ((const product_part *)lo->part)->depth : 0;
    int rd = r.kind == TEXLA_OP_PRODUCT ? ((const product_part *)ro->part)->depth : 0;
    long long cost = (l.kind == TEXLA_OP_PRODUCT ? ((const product_part *)lo->part)->cost : 1) +
                     (r.kind == TEXLA_OP_PRODUCT ? ((const product_part *)ro->part)->cost : 1);
    int depth = 1 + (ld > rd ? ld : rd);
    if (depth > MAX_DEPTH)
        return texla__fail(ctx, TEXLA_ERR_LIMIT,
                           "%s: the product would nest %d products deep; at most %d", fn, depth,
                           MAX_DEPTH);
    if (cost > MAX_COST)
        return texla__fail(ctx, TEXLA_ERR_LIMIT,
                           "%s: applying the product would make %lld matrix products (its parts "
                           "name operators more than once); at most %lld", fn, cost, MAX_COST);
    const texla__obj *mo = texla__obj_get(ctx, mid.id, TEXLA__KIND_VEC);
    if (!mo) return texla__bad_handle(ctx, fn, "mid", TEXLA__KIND_VEC, mid.id);
    if (lcols != rrows || mo->lay.n != rrows)
        return texla__fail(ctx, TEXLA_ERR_SHAPE,
                           "%s: l is %d x %d and r %d x %d: l's columns must be r's rows, and mid "
                           "(%d elements) must have as many", fn, lrows, lcols, rrows, rcols,
                           mo->lay.n);
    /* mid already the intermediate of a product inside l or r: applying this one would have
     * that part rewrite the vector it reads (every texla_op_matvec would refuse) */
    for (int k = 0; k < 2; k++)
        if (writes(ctx, k ? r : l, mid.id, 0))
            return texla__fail(ctx, TEXLA_ERR_ALIAS,
                               "%s: mid is already the intermediate vector of a product in %s; "
                               "give this product a mid that no product inside l or r uses", fn,
                               k ? "r" : "l");
    product_part *p = calloc(1, sizeof *p);
    if (!p) return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory", fn);
    *p = (product_part){l, r, mid, depth, cost, 0};
    texla__obj *o;
    uint64_t id = 0;
    res = texla__obj_new(ctx, TEXLA__KIND_OPERATOR, &product_kind, &id, &o);
    if (res) {
        free(p);
        return res;
    }
    o->rows = lrows;
    o->cols = rcols;
    o->part = p;
    *out = (texla_op){TEXLA_OP_PRODUCT, id};
    return TEXLA_OK;
}

/* does applying a write v (a product's mid, at any depth below a)? Each product once per
 * walk (walk: a stamp of this query; an operator named twice is not walked twice); products
 * nest at most MAX_DEPTH deep, depth only guards the walk */
static int walk_writes(texla_ctx *ctx, texla_op a, uint64_t v, int depth, unsigned walk) {
    if (a.kind != TEXLA_OP_PRODUCT || depth > MAX_DEPTH) return 0;
    texla__obj *o = texla__obj_get(ctx, a.id, TEXLA__KIND_OPERATOR);
    if (!o) return 0;
    product_part *p = o->part;
    if (p->seen == walk) return 0; /* walked already in this query, without finding v */
    p->seen = walk;
    return p->mid.id == v || walk_writes(ctx, p->l, v, depth + 1, walk) ||
           walk_writes(ctx, p->r, v, depth + 1, walk);
}

static int writes(texla_ctx *ctx, texla_op a, uint64_t v, int depth) {
    static _Thread_local unsigned walks;
    if (++walks == 0) walks = 1; /* 0: never walked */
    return walk_writes(ctx, a, v, depth, walks);
}

texla_result texla_op_writes(texla_ctx *ctx, texla_op a, texla_vec v, int *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_op_writes";
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: out is NULL", fn);
    *out = 0;
    texla__obj *o;
    texla_result r = op_obj(ctx, fn, "a", a, &o);
    if (r) return r;
    if (!texla__obj_get(ctx, v.id, TEXLA__KIND_VEC))
        return texla__bad_handle(ctx, fn, "v", TEXLA__KIND_VEC, v.id);
    *out = writes(ctx, a, v.id, 0);
    return TEXLA_OK;
}

void texla_op_destroy(texla_ctx *ctx, texla_op a) {
    if (a.kind != TEXLA_OP_PRODUCT) return;
    texla__destroy(ctx, a.id, TEXLA__KIND_OPERATOR);
}

/* The operands of a projected Jacobi step (texla_op_lcp_step, texla_op_lcp_iterate): ops[] x, b,
 * e, work, index, mu, dst (without index and mu: dst 4th, *n = 5) checked and resolved, *ao the
 * operator's object; dst_name names the last operand in messages, dst_read says whether it is
 * read later (iterating: x2), so it must not be a product's mid either. */
static texla_result lcp_operands(texla_ctx *ctx, const char *fn, texla_op a, texla_vec x,
                                 texla_vec b, texla_vec e, texla_vec index, texla_vec mu,
                                 texla_vec work, texla_vec dst, const char *dst_name,
                                 int dst_read, texla__operand ops[7], int *n, texla__obj **ao) {
    int bounded = index.id != 0 || mu.id != 0;
    texla__operand o[7] = {{"x", x.id, TEXLA__KIND_VEC, NULL},
                           {"b", b.id, TEXLA__KIND_VEC, NULL},
                           {"e", e.id, TEXLA__KIND_VEC, NULL},
                           {"work", work.id, TEXLA__KIND_VEC, NULL},
                           {"index", index.id, TEXLA__KIND_VEC, NULL},
                           {"mu", mu.id, TEXLA__KIND_VEC, NULL},
                           {dst_name, dst.id, TEXLA__KIND_VEC, NULL}};
    memcpy(ops, o, sizeof o);
    *n = 7;
    if (!bounded) ops[4] = ops[6], *n = 5;
    texla_result r = texla__resolve(ctx, fn, ops, *n);
    if (!r) r = texla__same_shape(ctx, fn, ops, *n);
    if (r) return r;
    /* work receives A x while x, b, e (and index, mu) are still read */
    for (int i = 0; i < *n - 1; i++)
        if (i != 3 && ops[i].id == work.id)
            return texla__fail(ctx, TEXLA_ERR_ALIAS,
                               "%s: work is also %s; it receives A x, so it must be a vector of "
                               "its own", fn, ops[i].name);
    r = op_obj(ctx, fn, "a", a, ao);
    if (r) return r;
    if ((*ao)->rows != (*ao)->cols || (*ao)->rows != ops[0].o->lay.n)
        return texla__fail(ctx, TEXLA_ERR_SHAPE,
                           "%s: a must be n x n with n the vectors' %d elements; it is %d x %d",
                           fn, ops[0].o->lay.n, (*ao)->rows, (*ao)->cols);
    /* a product's mid receives R x before the step reads b, e, index and mu (and, iterating,
     * the next step reads dst as its x): refused on every backend, the fused kernels' too
     * (they leave mid alone), so a call means the same wherever it runs */
    for (int i = 0; a.kind == TEXLA_OP_PRODUCT && i < *n - !dst_read; i++)
        if (writes(ctx, a, ops[i].id, 0))
            return texla__fail(ctx, TEXLA_ERR_ALIAS,
                               "%s: %s is the intermediate vector (mid) of a product in a, which "
                               "every product rewrites", fn, ops[i].name);
    return TEXLA_OK;
}

texla_result texla_op_lcp_step(texla_ctx *ctx, texla_op a, texla_vec x, texla_vec b, texla_vec e,
                               texla_vec index, texla_vec mu, texla_vec work, texla_vec dst) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_op_lcp_step";
    int bounded = index.id != 0 || mu.id != 0, n;
    texla__operand ops[7];
    texla__obj *ao;
    texla_result r = lcp_operands(ctx, fn, a, x, b, e, index, mu, work, dst, "dst", 0, ops, &n,
                                  &ao);
    if (r) return r;
    /* a sparse A, or L R with both sparse: the fused kernels (storage/splcp.c) */
    texla__obj *lo = NULL, *ro = NULL;
    if (a.kind == TEXLA_OP_SPARSE) {
        lo = ao;
    } else if (a.kind == TEXLA_OP_PRODUCT) {
        product_part p = *(const product_part *)ao->part;
        if (p.l.kind == TEXLA_OP_SPARSE && p.r.kind == TEXLA_OP_SPARSE) {
            lo = sp_object(ctx, p.l.id), ro = sp_object(ctx, p.r.id);
            if (!lo || !ro) lo = ro = NULL; /* texla_op_matvec below names the part that is gone */
        }
    }
    int done = 0;
    if (lo) {
        texla__gl_enter(&ctx->gl);
        r = sp_lcp_step(ctx, fn, lo, ro, ops[0].o, ops[1].o, ops[2].o,
                        bounded ? ops[4].o : NULL, bounded ? ops[5].o : NULL, ops[n - 1].o, &done);
        texla__gl_leave(&ctx->gl);
        if (r || done) return r;
    }
    texla_ctx_begin(ctx);
    r = texla_op_matvec(ctx, a, x, work);
    if (!r) r = texla_vec_lcp_step(ctx, x, work, b, e, index, mu, dst);
    texla_ctx_end(ctx);
    return r;
}

texla_result texla_op_lcp_iterate(texla_ctx *ctx, texla_op a, texla_vec b, texla_vec e,
                                  texla_vec index, texla_vec mu, int steps, texla_vec work,
                                  texla_vec x2, texla_vec x) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_op_lcp_iterate";
    if (steps < 0)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: steps is %d; it must be >= 0", fn, steps);
    int n;
    texla__operand ops[7];
    texla__obj *ao;
    /* x2 in dst's place: it receives each odd step while x, b, e, ... are read */
    texla_result r = lcp_operands(ctx, fn, a, x, b, e, index, mu, work, x2, "x2", 1, ops, &n, &ao);
    if (r) return r;
    for (int i = 0; i < n - 1; i++)
        if (ops[i].id == x2.id)
            return texla__fail(ctx, TEXLA_ERR_ALIAS,
                               "%s: x2 is also %s; it holds every other iterate, so it must be a "
                               "vector of its own", fn, ops[i].name);
    if (!steps) return TEXLA_OK;
    texla_ctx_begin(ctx);
    for (int i = 0; i < steps && !r; i++) /* x -> x2 -> x ... */
        r = i % 2 ? texla_op_lcp_step(ctx, a, x2, b, e, index, mu, work, x)
                  : texla_op_lcp_step(ctx, a, x, b, e, index, mu, work, x2);
    if (!r && steps % 2) r = texla_vec_copy(ctx, x2, x);
    texla_ctx_end(ctx);
    return r;
}
