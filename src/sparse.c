/* sparse.c - random sparse matrices as vertex buffers (Krueger & Westermann): one vertex per
 * group of up to four nonzeros of a row, drawn as a point on the row's texel of y; its vertex
 * shader fetches x at the four columns, and the points of one row add up by blending, each
 * writing only its row's channel. No GL here. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>

/* an allocation count of n >= 0 elements, at least one */
static size_t at_least_one(int n) { return n > 0 ? (size_t)n : 1; }

/* Builds the vertices from COO triplets (validated), grouped by row. */
static texla_result build(texla_ctx *ctx, const char *fn, const texla__layout *rl,
                          const texla__layout *cl, int nnz, const int *rows, const int *cols,
                          const float *vals, texla_sparse *out) {
    for (int i = 0; i < nnz; i++) {
        if (rows[i] < 0 || rows[i] >= rl->n || cols[i] < 0 || cols[i] >= cl->n)
            return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                               "%s: entry %d is (%d, %d), outside the %d x %d matrix", fn, i,
                               rows[i], cols[i], rl->n, cl->n);
        if (!isfinite(vals[i]))
            return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: entry %d (%d, %d) is %g", fn, i,
                               rows[i], cols[i], vals[i]);
    }
    /* counting sort by row */
    int *start = calloc((size_t)(unsigned)rl->n + 1, sizeof *start); /* n >= 1: a vector */
    int *order = malloc(sizeof *order * at_least_one(nnz));
    texla__sparse_vertex *v = NULL;
    long long nverts = 0;
    if (start && order) {
        for (int i = 0; i < nnz; i++) start[rows[i] + 1]++;
        for (int r = 0; r < rl->n; r++) {
            nverts += (start[r + 1] + 3) / 4;
            start[r + 1] += start[r];
        }
        v = malloc(sizeof *v * (size_t)(nverts > 0 ? nverts : 1));
    }
    if (!start || !order || !v) {
        free(start), free(order), free(v);
        return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory for %d entries", fn, nnz);
    }
    int *fillp = malloc(sizeof *fillp * (size_t)rl->n);
    if (!fillp) {
        free(start), free(order), free(v);
        return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory", fn);
    }
    for (int r = 0; r < rl->n; r++) fillp[r] = start[r];
    for (int i = 0; i < nnz; i++) order[fillp[rows[i]]++] = i;
    free(fillp);
    long long nv = 0;
    for (int r = 0; r < rl->n; r++)
        for (int e = start[r]; e < start[r + 1]; e += 4, nv++) {
            texla__sparse_vertex *p = &v[nv];
            p->row = r;
            for (int q = 0; q < 4; q++) {
                int has = e + q < start[r + 1];
                p->col[q] = has ? cols[order[e + q]] : -1;
                p->val[q] = has ? vals[order[e + q]] : 0.0f;
            }
        }
    free(start), free(order);
    texla__enter(ctx);
    texla__obj *o;
    uint32_t id = 0;
    texla_result r = texla__obj_new(ctx, TEXLA__KIND_SPARSE, &id, &o);
    if (!r) {
        o->lay = *rl;
        o->lay2 = *cl;
        o->rows = rl->n;
        o->cols = cl->n;
        o->nverts = (int)nverts;
        if (nverts) r = texla__points_make(ctx, v, (int)nverts, &o->vao, &o->vbo);
        if (!r) o->host_verts = v, v = NULL; /* kept for texla_png_sparse; freed on release */
    }
    if (r && id) texla__obj_release(ctx, id);
    else out->id = id;
    texla__leave(ctx);
    free(v);
    return r;
}

static texla_result layouts(texla_ctx *ctx, const char *fn, texla_vec row_like, texla_vec col_like,
                            texla__layout *rl, texla__layout *cl) {
    const texla__obj *a = texla__obj_get(ctx, row_like.id, TEXLA__KIND_VEC);
    if (!a) return texla__bad_handle(ctx, fn, "row_like", TEXLA__KIND_VEC, row_like.id);
    const texla__obj *b = texla__obj_get(ctx, col_like.id, TEXLA__KIND_VEC);
    if (!b) return texla__bad_handle(ctx, fn, "col_like", TEXLA__KIND_VEC, col_like.id);
    *rl = a->lay;
    *cl = b->lay;
    return TEXLA_OK;
}

texla_result texla_sparse_make_coo(texla_ctx *ctx, texla_vec row_like, texla_vec col_like, int nnz,
                                   const int *rows, const int *cols, const float *vals,
                                   texla_sparse *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_sparse_make_coo";
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: out is NULL", fn);
    out->id = 0;
    texla__layout rl, cl;
    texla_result r = layouts(ctx, fn, row_like, col_like, &rl, &cl);
    if (r) return r;
    if (nnz < 0 || (nnz > 0 && (!rows || !cols || !vals)))
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: nnz is %d with %s arrays", fn, nnz,
                           nnz < 0 ? "given" : "NULL");
    return build(ctx, fn, &rl, &cl, nnz, rows, cols, vals, out);
}

texla_result texla_sparse_make_csr(texla_ctx *ctx, texla_vec row_like, texla_vec col_like,
                                   const int *row_ptr, const int *cols, const float *vals,
                                   texla_sparse *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_sparse_make_csr";
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: out is NULL", fn);
    out->id = 0;
    texla__layout rl, cl;
    texla_result r = layouts(ctx, fn, row_like, col_like, &rl, &cl);
    if (r) return r;
    if (!row_ptr) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: row_ptr is NULL", fn);
    if (row_ptr[0] != 0)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: row_ptr[0] is %d, not 0", fn, row_ptr[0]);
    for (int i = 0; i < rl.n; i++)
        if (row_ptr[i + 1] < row_ptr[i])
            return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                               "%s: row_ptr decreases at row %d (%d then %d)", fn, i, row_ptr[i],
                               row_ptr[i + 1]);
    int nnz = row_ptr[rl.n];
    if (nnz > 0 && (!cols || !vals))
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: cols or vals is NULL", fn);
    int *rows = malloc(sizeof *rows * at_least_one(nnz));
    if (!rows) return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory", fn);
    for (int i = 0; i < rl.n; i++)
        for (int e = row_ptr[i]; e < row_ptr[i + 1]; e++) rows[e] = i;
    r = build(ctx, fn, &rl, &cl, nnz, rows, cols, vals, out);
    free(rows);
    return r;
}

void texla_sparse_destroy(texla_ctx *ctx, texla_sparse a) {
    if (!ctx || !texla__obj_get(ctx, a.id, TEXLA__KIND_SPARSE)) return;
    texla__enter(ctx);
    texla__obj_release(ctx, a.id);
    texla__leave(ctx);
}


texla_result texla_sparse_mul(texla_ctx *ctx, texla_sparse a, texla_vec x, texla_vec y) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_sparse_mul";
    texla__operand ops[3] = {{"a", a.id, TEXLA__KIND_SPARSE, NULL},
                             {"x", x.id, TEXLA__KIND_VEC, NULL},
                             {"y", y.id, TEXLA__KIND_VEC, NULL}};
    texla_result r = texla__resolve(ctx, fn, ops, 3);
    if (r) return r;
    const texla__obj *A = ops[0].o;
    if (!texla__same_layout(&ops[1].o->lay, &A->lay2) || !texla__same_layout(&ops[2].o->lay, &A->lay)) {
        char b1[96], b2[96];
        return texla__fail(ctx, TEXLA_ERR_SHAPE,
                           "%s: a is %d x %d (built on layouts of %d and %d elements), x is %s, "
                           "y is %s: x must have a's column layout and y its row layout", fn,
                           A->rows, A->cols, A->lay.n, A->lay2.n,
                           texla__describe(ops[1].o, b1, sizeof b1),
                           texla__describe(ops[2].o, b2, sizeof b2));
    }
    texla__enter(ctx);
    texla__pass clear = {.prog = TEXLA__P_FILL, .dst = &ops[2].o->t};
    texla__shape_of(ops[2].o, clear.shape);
    r = texla__run(ctx, &clear);
    if (!r && A->nverts) {
        texla__pass p = {.prog = TEXLA__P_SPARSE, .dst = &ops[2].o->t, .src = {&ops[1].o->t},
                         .blend = TEXLA__BLEND_ADD, .draw = TEXLA__DRAW_POINTS, .vao = A->vao,
                         .count = A->nverts};
        texla__shape_of(ops[2].o, p.shape);
        p.i0[0] = ops[2].o->t.w;
        p.i0[1] = ops[2].o->t.h;
        p.i0[2] = A->lay2.nx;
        r = texla__run(ctx, &p);
    }
    texla__leave(ctx);
    return r;
}
