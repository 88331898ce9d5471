/* banded.c - banded matrices as stacks of diagonals (Krueger & Westermann), stored the GPU Gems
 * way: a texture in the 2D layout of the vectors it multiplies holds the wrapped diagonal w
 * (0 <= w < n), A(k, (k + w) mod n) at element k, so a diagonal d >= 0 (w = d, elements
 * 0 .. n-d-1) and its partner d - n (w = d, elements n-d .. n-1) share one texture and even a
 * full matrix wastes no texture space. y = A x is the sum over the textures of
 * diag_w .* x shifted by w (with wrap-around), the shift a change of fetch coordinates.
 * Fragment backend: up to four textures per pass, further passes added by blending. Compute
 * backend: one kernel over the textures (five per pass, further passes adding in the kernel),
 * and a matrix that is a constant-coefficient 5-point stencil on its grid (what
 * texla_banded_poisson makes, or the same diagonals given by hand) computed from five x
 * texels per output texel, its diagonals never read. No GL here. */
#include "core/core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIAGS_PER_PASS 4   /* fragment: x + 4 diagonals (+ b) of the 7 units */
#define DIAGS_PER_KERNEL 5 /* compute: x, b + 5 diagonals */

typedef struct banded_part {
    int ndiag;          /* the diagonals given with |offset| < n, in the order given */
    int *offsets;
    int *slot;          /* the texture holding each */
    int ntex;
    int *wrap;          /* the wrapped offset of each texture */
    texla__tex *tex;
    int stencil;        /* 1: a constant 5-point stencil on the grid (coefficients sc) */
    float sc[5];        /* centre, west (-1), east (+1), south (-nx), north (+nx) */
} banded_part;

static void release(texla_ctx *ctx, texla__obj *o) {
    banded_part *b = o->part;
    if (!b) return;
    for (int i = 0; i < b->ntex; i++) texla__tex_free(&ctx->gl, &b->tex[i]);
    free(b->tex), free(b->wrap), free(b->slot), free(b->offsets);
}

static void describe(const texla__obj *o, char *buf, size_t n) {
    const banded_part *b = o->part;
    snprintf(buf, n, "a banded %d x %d matrix of %d diagonals (grid %d wide)", o->rows, o->cols,
             b ? b->ndiag : 0, o->lay.nx);
}

static texla_result grid(texla_ctx *ctx, texla__obj *o, const texla__grid_req *q, texla__grid *g);

static const texla__kind_desc kind = {"banded matrix", release, describe, grid};

/* Where the diagonals' values come from: the caller's array (diags[i n + k] = A(k, k + off[i])),
 * or, diags NULL, texla_banded_poisson's stencil on an nx x ny grid (no host copy of them) */
typedef struct diag_src {
    const float *diags;
    int nx, ny;
    float alpha, beta;
} diag_src;

/* element k of diagonal i (offset d) of n */
static float diag_at(const diag_src *s, int i, int d, int k, int n) {
    if (s->diags) return s->diags[(size_t)i * (size_t)n + (size_t)k];
    if (d == 0) return s->alpha + 4.0f * s->beta;
    int cx = k % s->nx, cy = k / s->nx;
    int inside = d == -s->nx  ? cy > 0
                 : d == s->nx ? cy < s->ny - 1
                 : d == -1    ? cx > 0
                              : cx < s->nx - 1;
    return inside ? -s->beta : 0.0f;
}

/* Whether the diagonals are a constant-coefficient 5-point stencil with zero (Dirichlet)
 * boundaries on the full nx x ny grid of lay: offsets among 0, -1, +1, -nx, +nx, each
 * diagonal one value inside the grid and 0 where the neighbour lies across the grid's edge.
 * Fills sc (a missing diagonal is 0). */
static int is_stencil(const texla__layout *lay, int nd, const int *offs, const int *src,
                      const diag_src *ds, float sc[5]) {
    int n = lay->n, nx = lay->nx;
    if (nx < 2 || n % nx != 0) return 0;
    int ny = n / nx;
    for (int i = 0; i < 5; i++) sc[i] = 0.0f;
    for (int i = 0; i < nd; i++) {
        int d = offs[i], which = d == 0 ? 0 : d == -1 ? 1 : d == 1 ? 2 : d == -nx ? 3
                                          : d == nx ? 4 : -1;
        if (which < 0) return 0;
        int first = 1;
        for (int k = 0; k < n; k++) {
            long long j = (long long)k + d;
            if (j < 0 || j >= n) continue;
            float vk = diag_at(ds, src[i], d, k, n);
            int cx = k % nx, cy = k / nx;
            int inside = which == 0   ? 1
                         : which == 1 ? cx > 0
                         : which == 2 ? cx < nx - 1
                         : which == 3 ? cy > 0
                                      : cy < ny - 1;
            if (!inside) {
                if (vk != 0.0f) return 0;
            } else if (first) {
                if (!isfinite(vk)) return 0;
                sc[which] = vk;
                first = 0;
            } else if (vk != sc[which]) {
                return 0;
            }
        }
    }
    return 1;
}

/* (offset, diagonal) pairs by offset, then diagonal */
static int by_offset(const void *a, const void *b) {
    const int *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* no offset twice: sorted, O(ndiag log ndiag) (a scan of every pair took 12 s at 200000) */
static texla_result no_duplicates(texla_ctx *ctx, const char *fn, int ndiag, const int *offsets) {
    if (ndiag < 2) return TEXLA_OK;
    int *pair = malloc(sizeof *pair * 2 * (size_t)ndiag);
    if (!pair) return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory", fn);
    for (int i = 0; i < ndiag; i++) pair[2 * i] = offsets[i], pair[2 * i + 1] = i;
    qsort(pair, (size_t)ndiag, 2 * sizeof *pair, by_offset);
    int at = -1; /* the duplicate whose second diagonal comes first */
    for (int i = 1; i < ndiag; i++)
        if (pair[2 * i] == pair[2 * i - 2] && (at < 0 || pair[2 * i + 1] < pair[2 * at + 1]))
            at = i;
    texla_result r = TEXLA_OK;
    if (at >= 0)
        r = texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: offset %d appears twice (diagonals %d and %d)",
                        fn, pair[2 * at], pair[2 * at - 1], pair[2 * at + 1]);
    free(pair);
    return r;
}

/* Makes a banded matrix on layout lay from ndiag diagonals of ds (offsets off[i]). Its
 * textures are made before the host memory that fills them is taken: a matrix too large for
 * the GPU fails at once. */
static texla_result make(texla_ctx *ctx, const char *fn, texla__layout lay, int ndiag,
                         const int *offsets, const diag_src *ds, texla_banded *out) {
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: out is NULL", fn);
    out->id = 0;
    if (ndiag < 0 || (ndiag > 0 && (!offsets || !ds)))
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: ndiag is %d (offsets %s, diags %s)", fn,
                           ndiag, offsets ? "given" : "NULL", ds ? "given" : "NULL");
    int n = lay.n;
    texla_result r = no_duplicates(ctx, fn, ndiag, offsets);
    if (r) return r;
    size_t ntexel = (size_t)(lay.gx / 2) * (size_t)(lay.gy / 2) * 4;
    size_t cap = texla__at_least_one(ndiag);
    banded_part *b = calloc(1, sizeof *b);
    int *offs = malloc(sizeof *offs * cap), *slot = malloc(sizeof *slot * cap),
        *wrap = malloc(sizeof *wrap * cap), *src = malloc(sizeof *src * cap);
    texla__tex *texs = calloc(cap, sizeof *texs);
    if (!b || !offs || !slot || !wrap || !src || !texs) {
        free(b), free(offs), free(slot), free(wrap), free(src), free(texs);
        return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory", fn);
    }
    b->offsets = offs, b->slot = slot, b->wrap = wrap, b->tex = texs;
    /* a diagonal wholly outside the matrix has no entries: nothing to store; the others go to
     * the texture of their wrapped offset */
    for (int i = 0; i < ndiag; i++) {
        if (offsets[i] <= -n || offsets[i] >= n) continue;
        int w = offsets[i] >= 0 ? offsets[i] : n + offsets[i], t = 0;
        while (t < b->ntex && b->wrap[t] != w) t++;
        if (t == b->ntex) b->wrap[b->ntex++] = w;
        src[b->ndiag] = i;
        b->offsets[b->ndiag] = offsets[i];
        b->slot[b->ndiag++] = t;
    }
    texla__gl_enter(&ctx->gl);
    texla__obj *o;
    uint64_t id = 0;
    int ntex = b->ntex;
    b->ntex = 0; /* counts the textures made, for release */
    r = texla__obj_new(ctx, TEXLA__KIND_BANDED, &kind, &id, &o);
    if (!r) {
        o->lay = lay;
        o->rows = o->cols = n;
        o->part = b;
    } else {
        free(b), free(offs), free(slot), free(wrap), free(texs);
    }
    for (int t = 0; t < ntex && !r; t++)
        if (!(r = texla__tex_make(&ctx->gl, lay.gx / 2, lay.gy / 2, &b->tex[t]))) b->ntex = t + 1;
    float *tx = !r && ntex ? malloc(ntexel * sizeof *tx) : NULL;
    if (!r && ntex && !tx) r = texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory", fn);
    if (!r) b->stencil = is_stencil(&lay, b->ndiag, b->offsets, src, ds, b->sc);
    for (int t = 0; t < ntex && !r; t++) {
        /* entries whose column falls outside the matrix are not the diagonal's: the texture's
         * other elements belong to the partner diagonal, or are 0 */
        memset(tx, 0, ntexel * sizeof *tx);
        for (int i = 0; i < b->ndiag; i++) {
            if (b->slot[i] != t) continue;
            int d = b->offsets[i], k0 = d >= 0 ? 0 : -d, k1 = d >= 0 ? n - d : n;
            for (int k = k0; k < k1; k++)
                tx[texla__texel_index(&lay, k)] = diag_at(ds, src[i], d, k, n);
        }
        r = texla__tex_upload(&ctx->gl, &b->tex[t], tx);
    }
    if (r && id) texla__obj_release(ctx, id);
    else out->id = id;
    texla__gl_leave(&ctx->gl);
    free(tx), free(src);
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
    diag_src ds = {.diags = diags};
    return make(ctx, "texla_banded_make", v->lay, ndiag, offsets, diags ? &ds : NULL, out);
}

texla_result texla_banded_poisson(texla_ctx *ctx, int nx, int ny, float alpha, float beta,
                                  texla_banded *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_banded_poisson";
    if (out) out->id = 0;
    if (nx < 1 || ny < 1 || (long long)nx * ny > 0x7fffffff)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: a %d x %d grid: each side must be at least 1 and nx ny at most "
                           "2147483647 (INT_MAX) cells", fn, nx, ny);
    if (texla__finite(ctx, fn, "alpha", alpha) || texla__finite(ctx, fn, "beta", beta))
        return TEXLA_ERR_ARGUMENT;
    /* the layout (the texture's size checked) before the diagonals' host memory is taken */
    char what[96];
    snprintf(what, sizeof what, "%s: a %d x %d grid", fn, nx, ny);
    texla__layout lay;
    texla_result r = texla__grid_lay(ctx, what, nx, ny, &lay);
    if (r) return r;
    /* diagonals 0, -1, +1, -nx, +nx (the last two only when there is more than one row) */
    int offsets[5] = {0, -1, 1, -nx, nx};
    int nd = ny > 1 ? 5 : 3;
    if (nx == 1) { /* no horizontal neighbours: keep the vertical ones */
        offsets[1] = -1, offsets[2] = 1; /* -nx, +nx with nx = 1 */
        nd = ny > 1 ? 3 : 1;
    }
    /* the values from the parameters: no 5 n floats of host memory */
    diag_src ds = {.nx = nx, .ny = ny, .alpha = alpha, .beta = beta};
    return make(ctx, fn, lay, nd, offsets, &ds, out);
}

void texla_banded_destroy(texla_ctx *ctx, texla_banded a) {
    texla__destroy(ctx, a.id, TEXLA__KIND_BANDED);
}


/* One compute pass over textures t0 .. t0+nt-1 (or the stencil, nt 0): y (+)= their terms,
 * first pass with s b, last with the dot product x'y into dot. */
static texla_result kernel_pass(texla_ctx *ctx, const texla__obj *A, const texla__obj *X,
                                const texla__tex *b, float s, texla__obj *Y, int t0, int nt,
                                int accumulate, texla__tex *dot) {
    const banded_part *B = A->part;
    const texla__layout *l = &A->lay;
    int tw = l->gx / 2, th = l->gy / 2;
    unsigned gx = (unsigned)(tw + 15) / 16, gy = (unsigned)(th + 15) / 16;
    /* bound even when unused: the kernel declares it */
    texla_result r = texla__scratch(ctx, dot ? (size_t)gx * gy : 1);
    if (r) return r;
    texla__pass p = {.prog = TEXLA__P_BANDED_K, .dst = &Y->t, .draw = TEXLA__DRAW_KERNEL,
                     .src = {&X->t, b ? b : &X->t}, .groups = {gx, gy, 1},
                     .defines = B->stencil ? "#define STENCIL 1\n" : "#define STENCIL 0\n"};
    texla__shape_of(Y, p.shape);
    int nx = l->nx;
    p.i0[0] = nt;
    p.i0[1] = (b ? 1 : 0) | (accumulate ? 2 : 0) | (dot ? 4 : 0);
    p.i0[2] = l->n / nx;
    p.i0[3] = l->n % nx;
    int32_t *wx[5] = {&p.i1[0], &p.i1[1], &p.i1[2], &p.i1[3], &p.i3[0]};
    int32_t *wy[5] = {&p.i2[0], &p.i2[1], &p.i2[2], &p.i2[3], &p.i3[1]};
    for (int i = 0; i < DIAGS_PER_KERNEL; i++) {
        int w = i < nt ? B->wrap[t0 + i] : 0;
        *wx[i] = w % nx;
        *wy[i] = w / nx;
        p.src[2 + i] = i < nt ? &B->tex[t0 + i] : &X->t;
    }
    p.i3[2] = Y->t.w; /* y's texture size */
    p.i3[3] = Y->t.h;
    p.f0[0] = s;
    if (B->stencil) {
        p.f0[1] = B->sc[0];
        for (int i = 0; i < 4; i++) p.f1[i] = B->sc[1 + i];
    }
    p.img[1] = dot;
    p.ssbo[0].b = &ctx->scratch;
    return texla__run(&ctx->gl, &p);
}

/* y = A x (+ s b) on the compute backend (dot: also x'y into it) */
static texla_result mul_kernel(texla_ctx *ctx, const texla__obj *A, const texla__obj *X,
                               const texla__tex *b, float s, texla__obj *Y, texla__tex *dot) {
    const banded_part *B = A->part;
    if (B->stencil) return kernel_pass(ctx, A, X, b, s, Y, 0, 0, 0, dot);
    texla_result r = TEXLA_OK;
    int t0 = 0;
    do { /* a diagonal-less matrix still needs one pass (writes zeros, or s b) */
        int nt = B->ntex - t0 < DIAGS_PER_KERNEL ? B->ntex - t0 : DIAGS_PER_KERNEL;
        int last = t0 + nt >= B->ntex;
        r = kernel_pass(ctx, A, X, t0 == 0 ? b : NULL, s, Y, t0, nt, t0 > 0, last ? dot : NULL);
        t0 += nt;
    } while (!r && t0 < B->ntex);
    return r;
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
    if (texla__backend_of(&ctx->gl, TEXLA__P_BANDED) == TEXLA_BACKEND_COMPUTE) {
        r = mul_kernel(ctx, A, ops[1].o, b ? &ops[2].o->t : NULL, s, ops[3].o, NULL);
        texla__gl_leave(&ctx->gl);
        return r;
    }
    texla__pass p = {.prog = TEXLA__P_BANDED, .dst = &ops[3].o->t};
    texla__shape_of(ops[3].o, p.shape);
    p.src[0] = &ops[1].o->t;
    int first = 1;
    for (int d0 = 0; d0 < B->ntex || first; d0 += DIAGS_PER_PASS) {
        int nd = B->ntex - d0 < DIAGS_PER_PASS ? B->ntex - d0 : DIAGS_PER_PASS;
        if (nd < 0) nd = 0;
        /* a diagonal-less matrix still needs one pass (writes zeros, or s*b) */
        for (int i = 0; i < DIAGS_PER_PASS; i++) {
            p.src[1 + i] = i < nd ? &B->tex[d0 + i] : &ops[1].o->t;
            p.i0[i] = i < nd ? B->wrap[d0 + i] : 0;
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

/* q = A p, pq = p'q (ops/fused.c checks the operands): one kernel on the compute backend for
 * up to five textures or the stencil */
texla_result texla__banded_matvec_dot(texla_ctx *ctx, const texla__obj *A, const texla__obj *P,
                                      texla__obj *Q, texla__obj *PQ) {
    return mul_kernel(ctx, A, P, NULL, 0.0f, Q, &PQ->t);
}

texla_result texla_banded_matvec(texla_ctx *ctx, texla_banded a, texla_vec x, texla_vec y) {
    return mul(ctx, "texla_banded_matvec", a, x, 0.0f, NULL, y);
}

texla_result texla_banded_matvec_add(texla_ctx *ctx, texla_banded a, texla_vec x, float s,
                                  texla_vec b, texla_vec y) {
    return mul(ctx, "texla_banded_matvec_add", a, x, s, &b, y);
}

/* ---- the image grid: the diagonals' grids stacked top to bottom by increasing offset ---- */

/* widens g's range by the finite values of a diagonal's elements (on the host: the texture
 * holds the partner's elements too) */
static texla_result grid_range(texla_ctx *ctx, const float *tx, const texla__layout *l,
                               texla__grid *g) {
    (void)ctx;
    for (int k = 0; k < l->n; k++) {
        float v = tx[texla__texel_index(l, k)];
        if (!isfinite(v)) continue;
        if (g->lo > g->hi) g->lo = g->hi = v;
        if (v < g->lo) g->lo = v;
        if (v > g->hi) g->hi = v;
    }
    g->gpu = 1;
    return TEXLA_OK;
}

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
    texla__gl_enter(&ctx->gl);
    for (int i = 0; i < nd && !r; i++) {
        /* the diagonal's own elements of its texture (the partner's zeroed) */
        int d = b->offsets[order[i]], k0 = d >= 0 ? 0 : -d, k1 = d >= 0 ? l->n - d : l->n;
        const texla__tex *t = &b->tex[b->slot[order[i]]];
        r = texla__tex_download(&ctx->gl, t, tx);
        for (int k = 0; k < l->n && !r; k++)
            if (k < k0 || k >= k1) tx[texla__texel_index(l, k)] = 0.0f;
        if (!r && q->range) r = grid_range(ctx, tx, l, g);
        if (!r) texla__grid_vec(g, i * each, tx, l, q->raw);
    }
    texla__gl_leave(&ctx->gl);
    free(order), free(tx);
    if (r) texla__grid_free(g);
    return r;
}
