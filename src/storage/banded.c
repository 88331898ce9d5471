/* banded.c - banded matrices as stacks of diagonals (Krueger & Westermann): each diagonal is
 * stored in the 2D layout of the vectors it multiplies, A(k, k+d) at element k, and y = A x is
 * the sum over d of diag_d .* shift(x, d), the shift a change of fetch coordinates. Up to four
 * diagonals per pass; further passes are added by blending. No GL here. */
#include "core/core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIAGS_PER_PASS 4

/* the diagonals: offsets[i] and its texture diags[i] (A(k, k + offsets[i]) at element k) */
typedef struct banded_part {
    int ndiag;
    int *offsets;
    texla__tex *diags;
} banded_part;

static void release(texla_ctx *ctx, texla__obj *o) {
    banded_part *b = o->part;
    if (!b) return;
    for (int i = 0; i < b->ndiag; i++) texla__tex_free(&ctx->gl, &b->diags[i]);
    free(b->diags);
    free(b->offsets);
}

static void describe(const texla__obj *o, char *buf, size_t n) {
    const banded_part *b = o->part;
    snprintf(buf, n, "a banded %d x %d matrix of %d diagonals (grid %d wide)", o->rows, o->cols,
             b ? b->ndiag : 0, o->lay.nx);
}

static texla_result grid(texla_ctx *ctx, texla__obj *o, const texla__grid_req *q, texla__grid *g);

static const texla__kind_desc kind = {"banded matrix", release, describe, grid};


/* Makes a banded matrix on layout lay from ndiag diagonals (diags[i*n + k] = A(k, k+off[i])). */
static texla_result make(texla_ctx *ctx, const char *fn, texla__layout lay, int ndiag,
                         const int *offsets, const float *diags, texla_banded *out) {
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: out is NULL", fn);
    out->id = 0;
    if (ndiag < 0 || (ndiag > 0 && (!offsets || !diags)))
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: ndiag is %d (offsets %s, diags %s)", fn,
                           ndiag, offsets ? "given" : "NULL", diags ? "given" : "NULL");
    int n = lay.n;
    for (int i = 0; i < ndiag; i++) {
        for (int j = 0; j < i; j++)
            if (offsets[j] == offsets[i])
                return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                                   "%s: offset %d appears twice (diagonals %d and %d)", fn,
                                   offsets[i], j, i);
    }
    size_t ntex = (size_t)(lay.gx / 2) * (size_t)(lay.gy / 2) * 4;
    float *tx = calloc(ntex, sizeof *tx);
    banded_part *b = calloc(1, sizeof *b);
    int *offs = malloc(sizeof *offs * texla__at_least_one(ndiag));
    texla__tex *texs = calloc(texla__at_least_one(ndiag), sizeof *texs);
    if (!tx || !b || !offs || !texs) {
        free(tx), free(b), free(offs), free(texs);
        return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory", fn);
    }
    b->offsets = offs;
    b->diags = texs;
    texla__gl_enter(&ctx->gl);
    texla__obj *o;
    uint64_t id = 0;
    texla_result r = texla__obj_new(ctx, TEXLA__KIND_BANDED, &kind, &id, &o);
    if (!r) {
        o->lay = lay;
        o->rows = o->cols = n;
        o->part = b;
    } else {
        free(b), free(offs), free(texs);
    }
    for (int i = 0; i < ndiag && !r; i++) {
        /* a diagonal wholly outside the matrix has no entries: nothing to store */
        if (offsets[i] <= -n || offsets[i] >= n) continue;
        int d = b->ndiag;
        b->offsets[d] = offsets[i];
        /* entries whose column falls outside the matrix are stored as 0: the shader skips
         * them anyway, and padding lanes must stay 0 */
        memset(tx, 0, ntex * sizeof *tx);
        for (int k = 0; k < n; k++) {
            long long j = (long long)k + offsets[i];
            if (j >= 0 && j < n) tx[texla__texel_index(&lay, k)] = diags[(size_t)i * (size_t)n + (size_t)k];
        }
        r = texla__tex_make(&ctx->gl, lay.gx / 2, lay.gy / 2, &b->diags[d]);
        if (!r) {
            b->ndiag = d + 1;
            r = texla__tex_upload(&ctx->gl, &b->diags[d], tx);
        }
    }
    if (r && id) texla__obj_release(ctx, id);
    else out->id = id;
    texla__gl_leave(&ctx->gl);
    free(tx);
    return r;
}

texla_result texla_banded_make(texla_ctx *ctx, texla_vec like, int ndiag, const int *offsets,
                               const float *diags, texla_banded *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    texla__obj *v = texla__obj_get(ctx, like.id, TEXLA__KIND_VEC);
    if (!v) {
        if (out) out->id = 0;
        return texla__bad_handle(ctx, "texla_banded_make", "like", TEXLA__KIND_VEC, like.id);
    }
    return make(ctx, "texla_banded_make", v->lay, ndiag, offsets, diags, out);
}

texla_result texla_banded_poisson(texla_ctx *ctx, int nx, int ny, float alpha, float beta,
                                  texla_banded *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_banded_poisson";
    if (out) out->id = 0;
    if (nx < 1 || ny < 1 || (long long)nx * ny > 0x7fffffff)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: grid %d x %d", fn, nx, ny);
    if (texla__finite(ctx, fn, "alpha", alpha) || texla__finite(ctx, fn, "beta", beta))
        return TEXLA_ERR_ARGUMENT;
    texla__layout lay = {nx * ny, nx, nx + (nx & 1), ny + (ny & 1)};
    char what[96];
    snprintf(what, sizeof what, "%s: a %d x %d grid", fn, nx, ny);
    texla_result r = texla__check_size(&ctx->gl, what, lay.gx / 2, lay.gy / 2);
    if (r) return r;
    int n = nx * ny;
    /* diagonals 0, -1, +1, -nx, +nx (the last two only when there is more than one row) */
    int offsets[5] = {0, -1, 1, -nx, nx};
    int nd = ny > 1 ? 5 : 3;
    if (nx == 1) { /* no horizontal neighbours: keep the vertical ones */
        offsets[1] = -1, offsets[2] = 1; /* -nx, +nx with nx = 1 */
        nd = ny > 1 ? 3 : 1;
    }
    float *d = calloc((size_t)nd * (size_t)n, sizeof *d);
    if (!d) return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory", fn);
    for (int k = 0; k < n; k++) {
        int cx = k % nx, cy = k / nx;
        d[k] = alpha + 4.0f * beta;
        if (nx > 1) {
            d[(size_t)1 * n + k] = cx > 0 ? -beta : 0.0f;
            d[(size_t)2 * n + k] = cx < nx - 1 ? -beta : 0.0f;
            if (ny > 1) {
                d[(size_t)3 * n + k] = cy > 0 ? -beta : 0.0f;
                d[(size_t)4 * n + k] = cy < ny - 1 ? -beta : 0.0f;
            }
        } else if (ny > 1) {
            d[(size_t)1 * n + k] = cy > 0 ? -beta : 0.0f;
            d[(size_t)2 * n + k] = cy < ny - 1 ? -beta : 0.0f;
        }
    }
    r = make(ctx, fn, lay, nd, offsets, d, out);
    free(d);
    return r;
}

void texla_banded_destroy(texla_ctx *ctx, texla_banded a) {
    texla__destroy(ctx, a.id, TEXLA__KIND_BANDED);
}


static texla_result mul(texla_ctx *ctx, const char *fn, texla_banded a, texla_vec x, float s,
                        const texla_vec *b, texla_vec y) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    if (b && texla__finite(ctx, fn, "s", s)) return TEXLA_ERR_ARGUMENT;
    texla__operand ops[4] = {{"a", a.id, TEXLA__KIND_BANDED, NULL},
                             {"x", x.id, TEXLA__KIND_VEC, NULL},
                             {"b", b ? b->id : x.id, TEXLA__KIND_VEC, NULL},
                             {"y", y.id, TEXLA__KIND_VEC, NULL}};
    texla_result r = texla__resolve(ctx, fn, ops, 4);
    if (r) return r;
    const texla__obj *A = ops[0].o;
    const banded_part *B = A->part;
    for (int i = 1; i < 4; i++)
        if (!texla__same_layout(&ops[i].o->lay, &A->lay)) {
            char b1[96];
            return texla__fail(ctx, TEXLA_ERR_SHAPE,
                               "%s: %s is %s; the matrix is %d x %d on a grid %d wide (gx %d)", fn,
                               ops[i].name, texla__describe(ops[i].o, b1, sizeof b1), A->lay.n,
                               A->lay.n, A->lay.nx, A->lay.gx);
        }
    texla__gl_enter(&ctx->gl);
    texla__pass p = {.prog = TEXLA__P_BANDED, .dst = &ops[3].o->t};
    texla__shape_of(ops[3].o, p.shape);
    p.src[0] = &ops[1].o->t;
    int first = 1;
    for (int d0 = 0; d0 < B->ndiag || first; d0 += DIAGS_PER_PASS) {
        int nd = B->ndiag - d0 < DIAGS_PER_PASS ? B->ndiag - d0 : DIAGS_PER_PASS;
        if (nd < 0) nd = 0;
        /* a diagonal-less matrix still needs one pass (writes zeros, or s*b) */
        for (int i = 0; i < DIAGS_PER_PASS; i++) {
            p.src[1 + i] = i < nd ? &B->diags[d0 + i] : &ops[1].o->t;
            p.i0[i] = i < nd ? B->offsets[d0 + i] : 0;
        }
        p.src[5] = first && b ? &ops[2].o->t : NULL;
        p.i2[0] = nd;
        p.i2[1] = first && b;
        p.f0[0] = s;
        p.blend = first ? TEXLA__BLEND_NONE : TEXLA__BLEND_ADD;
        r = texla__run(&ctx->gl, &p);
        first = 0;
        if (r) break;
    }
    texla__gl_leave(&ctx->gl);
    return r;
}

texla_result texla_banded_matvec(texla_ctx *ctx, texla_banded a, texla_vec x, texla_vec y) {
    return mul(ctx, "texla_banded_matvec", a, x, 0.0f, NULL, y);
}

texla_result texla_banded_matvec_add(texla_ctx *ctx, texla_banded a, texla_vec x, float s,
                                  texla_vec b, texla_vec y) {
    return mul(ctx, "texla_banded_matvec_add", a, x, s, &b, y);
}

/* ---- the image grid: the diagonals' grids stacked top to bottom by increasing offset ---- */

static texla_result grid(texla_ctx *ctx, texla__obj *o, const texla__grid_req *q, texla__grid *g) {
    const banded_part *b = o->part;
    const texla__layout *l = &o->lay;
    int ny = (l->n + l->nx - 1) / l->nx, each = q->raw ? l->gy : ny, nd = b->ndiag;
    texla_result r = texla__grid_make(ctx, q, q->raw ? l->gx : l->nx,
                                      (long long)each * (nd ? nd : 1), g);
    if (r) return r;
    int *order = malloc(sizeof *order * texla__at_least_one(nd));
    char *layout = malloc(16 + 12 * (size_t)nd);
    float *tx = malloc((size_t)(l->gx / 2) * (size_t)(l->gy / 2) * 4 * sizeof *tx);
    g->bands = calloc(texla__at_least_one(nd), sizeof *g->bands);
    if (!order || !layout || !tx || !g->bands) {
        free(order), free(layout), free(tx), texla__grid_free(g);
        return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory", q->fn);
    }
    for (int i = 0; i < nd; i++) {
        int k = i;
        for (; k > 0 && b->offsets[order[k - 1]] > b->offsets[i]; k--) order[k] = order[k - 1];
        order[k] = i;
    }
    size_t len = (size_t)sprintf(layout, "banded");
    for (int i = 0; i < nd; i++) len += (size_t)sprintf(layout + len, " %d", b->offsets[order[i]]);
    for (int i = 0; i < nd; i++) { /* one block per diagonal, labelled with its offset */
        g->bands[i].y0 = i * each, g->bands[i].h = each;
        snprintf(g->bands[i].label, sizeof g->bands[i].label, "d = %d", b->offsets[order[i]]);
    }
    g->nbands = nd;
    g->layout = layout;
    snprintf(g->shape, sizeof g->shape, "banded %d x %d grid %d x %d diagonals %d", l->n, l->n,
             l->nx, ny, nd);
    int32_t shape[4] = {1, l->n, l->nx, 0};
    texla__gl_enter(&ctx->gl);
    for (int i = 0; i < nd && !r; i++) {
        const texla__tex *t = &b->diags[order[i]];
        r = texla__tex_download(&ctx->gl, t, tx);
        if (!r && q->range) r = texla__grid_range(ctx, t, shape, g);
        if (!r) texla__grid_vec(g, i * each, tx, l, q->raw);
    }
    texla__gl_leave(&ctx->gl);
    free(order), free(tx);
    if (r) texla__grid_free(g);
    return r;
}
