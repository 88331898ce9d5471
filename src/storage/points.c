/* points.c - random sparse matrices as vertex buffers (Krueger & Westermann): one vertex per
 * group of up to four nonzeros of a row, drawn as a point on the row's texel of y; its vertex
 * shader fetches x at the four columns, and the points of one row add up by blending, each
 * writing only its row's channel. The fragment backend's sparse product (and GL 3.3's). No GL
 * here. */
#include "core/core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define at_least_one texla__at_least_one

/* One vertex: up to four nonzeros of one row (unused: col -1, val 0). */
typedef struct sparse_vertex {
    int32_t row;
    int32_t col[4];
    float val[4];
} sparse_vertex;

typedef struct points_part {
    texla__layout cols;   /* the column (x) layout; the row layout is the object's lay */
    GLuint vao, vbo;
    int nverts;
    sparse_vertex *host;  /* the vertices, kept for images */
} points_part;

static void release(texla_ctx *ctx, texla__obj *o) {
    (void)ctx;
    points_part *p = o->part;
    if (!p) return;
    texla__points_free(&p->vao, &p->vbo);
    free(p->host);
}

static void describe(const texla__obj *o, char *buf, size_t n) {
    snprintf(buf, n, "a sparse %d x %d matrix", o->rows, o->cols);
}

static texla_result grid(texla_ctx *ctx, texla__obj *o, const texla__grid_req *q, texla__grid *g);

static const texla__kind_desc kind = {"sparse matrix", release, describe, grid};

static const texla__attr attrs[3] = {
    {0, 1, GL_INT, offsetof(sparse_vertex, row)},
    {1, 4, GL_INT, offsetof(sparse_vertex, col)},
    {2, 4, GL_FLOAT, offsetof(sparse_vertex, val)},
};

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
    sparse_vertex *v = NULL;
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
            sparse_vertex *p = &v[nv];
            p->row = r;
            for (int q = 0; q < 4; q++) {
                int has = e + q < start[r + 1];
                p->col[q] = has ? cols[order[e + q]] : -1;
                p->val[q] = has ? vals[order[e + q]] : 0.0f;
            }
        }
    free(start), free(order);
    points_part *pp = calloc(1, sizeof *pp);
    if (!pp) {
        free(v);
        return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory", fn);
    }
    texla__gl_enter(&ctx->gl);
    texla__obj *o;
    uint64_t id = 0;
    texla_result r = texla__obj_new(ctx, TEXLA__KIND_SPARSE, &kind, &id, &o);
    if (!r) {
        o->lay = *rl;
        o->rows = rl->n;
        o->cols = cl->n;
        o->part = pp;
        pp->cols = *cl;
        pp->nverts = (int)nverts;
        if (nverts)
            r = texla__points_make(&ctx->gl, v, (int)nverts, sizeof *v, attrs, 3, &pp->vao,
                                   &pp->vbo);
        if (!r) pp->host = v, v = NULL; /* kept for images; freed on release */
    } else {
        free(pp);
    }
    if (r && id) texla__obj_release(ctx, id);
    else out->id = id;
    texla__gl_leave(&ctx->gl);
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
    texla__destroy(ctx, a.id, TEXLA__KIND_SPARSE);
}


texla_result texla_sparse_matvec(texla_ctx *ctx, texla_sparse a, texla_vec x, texla_vec y) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_sparse_matvec";
    texla__operand ops[3] = {{"a", a.id, TEXLA__KIND_SPARSE, NULL},
                             {"x", x.id, TEXLA__KIND_VEC, NULL},
                             {"y", y.id, TEXLA__KIND_VEC, NULL}};
    texla_result r = texla__resolve(ctx, fn, ops, 3);
    if (r) return r;
    const texla__obj *A = ops[0].o;
    const points_part *P = A->part;
    if (!texla__same_layout(&ops[1].o->lay, &P->cols) || !texla__same_layout(&ops[2].o->lay, &A->lay)) {
        char b1[96], b2[96];
        return texla__fail(ctx, TEXLA_ERR_SHAPE,
                           "%s: a is %d x %d (built on layouts of %d and %d elements), x is %s, "
                           "y is %s: x must have a's column layout and y its row layout", fn,
                           A->rows, A->cols, A->lay.n, P->cols.n,
                           texla__describe(ops[1].o, b1, sizeof b1),
                           texla__describe(ops[2].o, b2, sizeof b2));
    }
    texla__gl_enter(&ctx->gl);
    texla__pass clear = {.prog = TEXLA__P_FILL, .dst = &ops[2].o->t};
    texla__shape_of(ops[2].o, clear.shape);
    r = texla__run(&ctx->gl, &clear);
    if (!r && P->nverts) {
        texla__pass p = {.prog = TEXLA__P_POINTS, .dst = &ops[2].o->t, .src = {&ops[1].o->t},
                         .blend = TEXLA__BLEND_ADD, .draw = TEXLA__DRAW_POINTS, .vao = P->vao,
                         .count = P->nverts};
        texla__shape_of(ops[2].o, p.shape);
        p.i0[0] = ops[2].o->t.w;
        p.i0[1] = ops[2].o->t.h;
        p.i0[2] = P->cols.nx;
        r = texla__run(&ctx->gl, &p);
    }
    texla__gl_leave(&ctx->gl);
    return r;
}

/* ---- the image grid ----
 * logical: the rows x cols pattern (axes longer than 4096 binned, the entry of largest
 * magnitude of a bin shown, NaN first; duplicates summed as the product sums them);
 * raw: the vertex buffer as stored, one row of 4 slots per vertex (unused slots padding). */

#define SPARSE_BIN 4096

typedef struct triplet {
    int r, c;
    float v;
} triplet;

static int by_position(const void *pa, const void *pb) {
    const triplet *a = pa, *b = pb;
    if (a->r != b->r) return a->r < b->r ? -1 : 1;
    return a->c < b->c ? -1 : a->c > b->c;
}

/* does value a win a bin over b: NaN first, then the larger magnitude */
static int wins(float a, float b) {
    if (isnan(b)) return 0;
    return isnan(a) || fabsf(a) > fabsf(b);
}

static texla_result grid(texla_ctx *ctx, texla__obj *so, const texla__grid_req *q, texla__grid *g) {
    const points_part *P = so->part;
    const sparse_vertex *vs = P->host;
    int nv = vs ? P->nverts : 0;
    long long nnz = 0;
    for (int i = 0; i < nv; i++)
        for (int k = 0; k < 4; k++) nnz += vs[i].col[k] >= 0;
    char layout[64];
    snprintf(layout, sizeof layout, "sparse nnz %lld", nnz);
    texla_result r;
    if (q->raw) {
        r = texla__grid_make(ctx, q, 4, nv, g);
        if (!r) r = texla__grid_layout(ctx, q, g, layout);
        if (r) return texla__grid_free(g), r;
        snprintf(g->shape, sizeof g->shape, "%d x %d vertices %d", so->rows, so->cols, nv);
        for (int i = 0; i < nv; i++)
            for (int k = 0; k < 4; k++)
                texla__grid_put(g, k, i, vs[i].val[k],
                                vs[i].col[k] >= 0 ? TEXLA__CELL_VALUE : TEXLA__CELL_PAD);
    } else {
        int br = (so->rows + SPARSE_BIN - 1) / SPARSE_BIN;
        int bc = (so->cols + SPARSE_BIN - 1) / SPARSE_BIN;
        r = texla__grid_make(ctx, q, (so->cols + bc - 1) / bc, (so->rows + br - 1) / br, g);
        if (!r) r = texla__grid_layout(ctx, q, g, layout);
        if (r) return texla__grid_free(g), r;
        if (br > 1 || bc > 1)
            snprintf(g->shape, sizeof g->shape, "%d x %d binned %d x %d", so->rows, so->cols, br,
                     bc);
        else
            snprintf(g->shape, sizeof g->shape, "%d x %d", so->rows, so->cols);
        triplet *t = malloc(sizeof *t * texla__at_least_one(nnz));
        if (!t) {
            texla__grid_free(g);
            return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory for %lld entries",
                               q->fn, nnz);
        }
        size_t m = 0;
        for (int i = 0; i < nv; i++)
            for (int k = 0; k < 4; k++)
                if (vs[i].col[k] >= 0) t[m++] = (triplet){vs[i].row, vs[i].col[k], vs[i].val[k]};
        if (m) qsort(t, m, sizeof *t, by_position);
        for (size_t i = 0; i < m;) {
            triplet s = t[i++];
            for (; i < m && t[i].r == s.r && t[i].c == s.c; i++) s.v += t[i].v;
            size_t cell = (size_t)(s.r / br) * (size_t)g->w + (size_t)(s.c / bc);
            if (g->cls[cell] != TEXLA__CELL_VALUE || wins(s.v, g->v[cell])) {
                g->v[cell] = s.v;
                g->cls[cell] = TEXLA__CELL_VALUE;
            }
        }
        free(t);
    }
    return TEXLA_OK; /* gpu stays 0: the writer finds the range of these host values */
}
