/* banded.c - banded matrices as stacks of diagonals (Krueger & Westermann): each diagonal is
 * stored in the 2D layout of the vectors it multiplies, A(k, k+d) at element k, and y = A x is
 * the sum over d of diag_d .* shift(x, d), the shift a change of fetch coordinates. Up to four
 * diagonals per pass; further passes are added by blending. No GL here. */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIAGS_PER_PASS 4


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
        if (offsets[i] <= -n || offsets[i] >= n)
            return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                               "%s: offset %d (diagonal %d) is outside -(n-1)..n-1 for n = %d", fn,
                               offsets[i], i, n);
        for (int j = 0; j < i; j++)
            if (offsets[j] == offsets[i])
                return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                                   "%s: offset %d appears twice (diagonals %d and %d)", fn,
                                   offsets[i], j, i);
    }
    size_t ntex = (size_t)(lay.gx / 2) * (size_t)(lay.gy / 2) * 4;
    float *tx = calloc(ntex, sizeof *tx);
    int *offs = malloc(sizeof *offs * (size_t)(ndiag ? ndiag : 1));
    texla__tex *texs = calloc((size_t)(ndiag ? ndiag : 1), sizeof *texs);
    if (!tx || !offs || !texs) {
        free(tx), free(offs), free(texs);
        return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory", fn);
    }
    texla__enter(ctx);
    texla__obj *o;
    uint32_t id = 0;
    texla_result r = texla__obj_new(ctx, TEXLA__KIND_BANDED, &id, &o);
    if (!r) {
        o->lay = lay;
        o->rows = o->cols = n;
        o->offsets = offs;
        o->diags = texs;
        offs = NULL, texs = NULL;
    }
    for (int i = 0; i < ndiag && !r; i++) {
        o->offsets[i] = offsets[i];
        /* entries whose column falls outside the matrix are stored as 0: the shader skips
         * them anyway, and padding lanes must stay 0 */
        memset(tx, 0, ntex * sizeof *tx);
        for (int k = 0; k < n; k++) {
            long long j = (long long)k + offsets[i];
            if (j >= 0 && j < n) tx[texla__texel_index(&lay, k)] = diags[(size_t)i * (size_t)n + (size_t)k];
        }
        r = texla__tex_make(ctx, lay.gx / 2, lay.gy / 2, &o->diags[i]);
        if (!r) {
            o->ndiag = i + 1;
            r = texla__tex_upload(ctx, &o->diags[i], tx);
        }
    }
    if (r && id) texla__obj_release(ctx, id);
    else out->id = id;
    texla__leave(ctx);
    free(tx), free(offs), free(texs);
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
    texla_result r = texla__check_size(ctx, what, lay.gx / 2, lay.gy / 2);
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
    if (!ctx || !texla__obj_get(ctx, a.id, TEXLA__KIND_BANDED)) return;
    texla__enter(ctx);
    texla__obj_release(ctx, a.id);
    texla__leave(ctx);
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
    for (int i = 1; i < 4; i++)
        if (!texla__same_layout(&ops[i].o->lay, &A->lay)) {
            char b1[96];
            return texla__fail(ctx, TEXLA_ERR_SHAPE,
                               "%s: %s is %s; the matrix is %d x %d on a grid %d wide (gx %d)", fn,
                               ops[i].name, texla__describe(ops[i].o, b1, sizeof b1), A->lay.n,
                               A->lay.n, A->lay.nx, A->lay.gx);
        }
    texla__enter(ctx);
    texla__pass p = {.prog = TEXLA__P_BANDED, .dst = &ops[3].o->t};
    texla__shape_of(ops[3].o, p.shape);
    p.src[0] = &ops[1].o->t;
    int first = 1;
    for (int d0 = 0; d0 < A->ndiag || first; d0 += DIAGS_PER_PASS) {
        int nd = A->ndiag - d0 < DIAGS_PER_PASS ? A->ndiag - d0 : DIAGS_PER_PASS;
        if (nd < 0) nd = 0;
        /* a diagonal-less matrix still needs one pass (writes zeros, or s*b) */
        for (int i = 0; i < DIAGS_PER_PASS; i++) {
            p.src[1 + i] = i < nd ? &A->diags[d0 + i] : &ops[1].o->t;
            p.i0[i] = i < nd ? A->offsets[d0 + i] : 0;
        }
        p.src[5] = first && b ? &ops[2].o->t : NULL;
        p.i2[0] = nd;
        p.i2[1] = first && b;
        p.f0[0] = s;
        p.blend = first ? TEXLA__BLEND_NONE : TEXLA__BLEND_ADD;
        r = texla__run(ctx, &p);
        first = 0;
        if (r) break;
    }
    texla__leave(ctx);
    return r;
}

texla_result texla_banded_mul(texla_ctx *ctx, texla_banded a, texla_vec x, texla_vec y) {
    return mul(ctx, "texla_banded_mul", a, x, 0.0f, NULL, y);
}

texla_result texla_banded_mul_add(texla_ctx *ctx, texla_banded a, texla_vec x, float s,
                                  texla_vec b, texla_vec y) {
    return mul(ctx, "texla_banded_mul_add", a, x, s, &b, y);
}
