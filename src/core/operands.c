/* operands.c - what every operation shares: operand validation (handles, shapes, aliasing,
 * coefficients), descriptions for messages, the 2D vector layout's index map. No GL here. */
#include "core/core.h"

#include <math.h>
#include <stdio.h>

const char *const texla__kind_names[TEXLA__KIND_COUNT] = {"object", "matrix", "vector", "scalar",
                                                          "banded matrix", "sparse matrix",
                                                          "product operator"};

texla_result texla__bad_handle(texla_ctx *ctx, const char *fn, const char *name, texla__kind kind,
                               uint64_t id) {
    return texla__fail(ctx, TEXLA_ERR_HANDLE, "%s: %s is not a live %s of this context (handle "
                       "0x%016llx: %s)", fn, name, texla__kind_names[kind], (unsigned long long)id,
                       texla__handle_problem(ctx, id, kind));
}

const char *texla__describe(const texla__obj *o, char *buf, size_t n) {
    if (o->k && o->k->describe) o->k->describe(o, buf, n);
    else snprintf(buf, n, "%d x %d", o->rows, o->cols);
    return buf;
}

texla_result texla__resolve(texla_ctx *ctx, const char *fn, texla__operand *ops, int n) {
    for (int i = 0; i < n; i++) {
        ops[i].o = texla__obj_get(ctx, ops[i].id, ops[i].kind);
        if (!ops[i].o) return texla__bad_handle(ctx, fn, ops[i].name, ops[i].kind, ops[i].id);
    }
    const texla__operand *dst = &ops[n - 1];
    for (int i = 0; i < n - 1; i++)
        if (ops[i].id == dst->id && ops[i].kind == dst->kind)
            return texla__fail(ctx, TEXLA_ERR_ALIAS,
                               "%s: the destination %s is also operand %s; a pass cannot read "
                               "the texture it renders into (use a different destination)",
                               fn, dst->name, ops[i].name);
    return TEXLA_OK;
}

int texla__same_layout(const texla__layout *a, const texla__layout *b) {
    return a->n == b->n && a->nx == b->nx && a->gx == b->gx && a->gy == b->gy;
}

texla_result texla__grid_lay(texla_ctx *ctx, const char *what, int nx, int ny, texla__layout *out) {
    int w = (int)(((long long)nx + 1) / 2), h = (int)(((long long)ny + 1) / 2);
    texla_result r = texla__check_size(&ctx->gl, what, w, h);
    if (!r) *out = (texla__layout){nx * ny, nx, 2 * w, 2 * h};
    return r;
}

size_t texla__texel_index(const texla__layout *l, int k) {
    int cy = k / l->nx, cx = k - cy * l->nx;
    return ((size_t)(cy / 2) * (size_t)(l->gx / 2) + (size_t)(cx / 2)) * 4 +
           (size_t)((cx & 1) + 2 * (cy & 1));
}

/* The first n elements of a vector of layout l, from element order into its texels (tex: (gx /
 * 2) (gy / 2) 4 floats) and back, row by row of the grid: texla__texel_index's order without
 * its two divisions an element (H200 host: the tuner's check of 2M elements took 11 ms a
 * candidate that way). Row cy of the grid starts at float ROW0 of tex; cell cx is 4 (cx / 2) +
 * (cx & 1) past it. */
#define ROW0(l, cy) ((size_t)((cy) / 2) * (size_t)((l)->gx / 2) * 4 + (size_t)(2 * ((cy) & 1)))

void texla__texels_pack(const texla__layout *l, const float *el, float *tex, long long n) {
    long long k = 0;
    if (l->nx < 1) return; /* no grid row to walk */
    for (long long cy = 0; k < n; cy++) {
        float *row = tex + ROW0(l, cy);
        long long m = n - k < l->nx ? n - k : l->nx;
        for (long long cx = 0; cx < m; cx++) row[(cx >> 1) * 4 + (cx & 1)] = el[k + cx];
        k += m;
    }
}

void texla__texels_unpack(const texla__layout *l, const float *tex, float *el, long long n) {
    long long k = 0;
    if (l->nx < 1) return; /* no grid row to walk */
    for (long long cy = 0; k < n; cy++) {
        const float *row = tex + ROW0(l, cy);
        long long m = n - k < l->nx ? n - k : l->nx;
        for (long long cx = 0; cx < m; cx++) el[k + cx] = row[(cx >> 1) * 4 + (cx & 1)];
        k += m;
    }
}
#undef ROW0

static int same_layout(const texla__obj *a, const texla__obj *b) {
    if (a->kind == TEXLA__KIND_VEC) return texla__same_layout(&a->lay, &b->lay);
    return a->rows == b->rows && a->cols == b->cols;
}

texla_result texla__same_shape(texla_ctx *ctx, const char *fn, const texla__operand *ops, int n) {
    for (int i = 1; i < n; i++)
        if (!same_layout(ops[i].o, ops[0].o)) {
            char b1[96], b2[96];
            return texla__fail(ctx, TEXLA_ERR_SHAPE, "%s: %s is %s but %s is %s", fn, ops[i].name,
                               texla__describe(ops[i].o, b1, sizeof b1), ops[0].name,
                               texla__describe(ops[0].o, b2, sizeof b2));
        }
    return TEXLA_OK;
}

texla_result texla__finite(texla_ctx *ctx, const char *fn, const char *name, float s) {
    if (isfinite(s)) return TEXLA_OK;
    return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                       "%s: coefficient %s is %g; coefficients must be finite (Inf or NaN times "
                       "a padding lane would break the zero-padding invariant)", fn, name, s);
}

texla_result texla__coef(texla_ctx *ctx, const char *fn, const char *name, texla_coef c,
                         const texla__tex **src) {
    *src = NULL;
    texla_result r = texla__finite(ctx, fn, name, c.value);
    if (r || !c.scalar.id) return r;
    texla__obj *o = texla__obj_get(ctx, c.scalar.id, TEXLA__KIND_SCALAR);
    if (!o) return texla__bad_handle(ctx, fn, name, TEXLA__KIND_SCALAR, c.scalar.id);
    *src = &o->t;
    return TEXLA_OK;
}

void texla__shape_of(const texla__obj *o, int32_t shape[4]) {
    shape[3] = 0;
    if (o->kind == TEXLA__KIND_VEC) {
        shape[0] = 1;
        shape[1] = o->lay.n;
        shape[2] = o->lay.nx;
    } else {
        shape[0] = 0;
        shape[1] = o->rows;
        shape[2] = o->cols;
    }
}

/* Backends per operation (AUTO). The context's default comes from a copy timed on both
 * backends when it is made; an element-wise program's own first use on a destination of at
 * least MEASURE_TEXELS texels is timed on both too (each once to compile, then once timed:
 * GPU timer queries, or the wall clock around glFinish), and the other backend is kept for it
 * when it was more than MEASURE_GAIN times faster. The pass then runs once more on the backend
 * kept if that was not the last, so the result is the kept backend's. Passes that blend into
 * their destination are not timed (running them twice would add twice). */
#define MEASURE_TEXELS 16384
#define MEASURE_GAIN 1.5

static int ew_program(texla__prog_id id) {
    static const texla__prog_id ids[] = {
#define X(name, sig, PROG, blend, k0, k1, formula) TEXLA__P_##PROG,
        TEXLA__EW_OPS(X)
#undef X
    };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        if (ids[i] == id) return 1;
    return 0;
}

static int to_measure(const texla_ctx *ctx, const texla__pass *p) {
    const texla__gl *g = &ctx->gl;
    unsigned both = 1u << TEXLA_BACKEND_FRAGMENT | 1u << TEXLA_BACKEND_COMPUTE;
    return ctx->desc.backend == TEXLA_BACKEND_AUTO && !g->lost && !g->choice[p->prog] &&
           !g->measured[p->prog] && p->blend == TEXLA__BLEND_NONE && p->dst &&
           (long long)p->dst->w * p->dst->h >= MEASURE_TEXELS && ew_program(p->prog) &&
           (texla__prog_backends(g, p->prog) & both) == both;
}

static texla_result run_measured(texla_ctx *ctx, const texla__pass *p) {
    texla__gl *g = &ctx->gl;
    double ms[3] = {0, 0, 0};
    texla_result r = TEXLA_OK;
    for (int pass = 0; pass < 2 && !r; pass++)
        for (int b = TEXLA_BACKEND_FRAGMENT; b <= TEXLA_BACKEND_COMPUTE && !r; b++) {
            g->measured[p->prog] = (uint8_t)b;
            if (pass) texla__timer_begin(g);
            r = texla__run(g, p);
            if (pass) ms[b] = texla__timer_end_ms(g);
        }
    int def = g->default_backend, other = def == TEXLA_BACKEND_COMPUTE ? TEXLA_BACKEND_FRAGMENT
                                                                        : TEXLA_BACKEND_COMPUTE;
    int keep = !r && ms[other] * MEASURE_GAIN < ms[def] ? other : def;
    g->measured[p->prog] = (uint8_t)keep;
    if (!r && keep != TEXLA_BACKEND_COMPUTE) r = texla__run(g, p); /* compute ran last */
    return r;
}

texla_result texla__run1(texla_ctx *ctx, const texla__pass *p) {
    texla__gl_enter(&ctx->gl);
    texla_result r = to_measure(ctx, p) ? run_measured(ctx, p) : texla__run(&ctx->gl, p);
    texla__gl_leave(&ctx->gl);
    return r;
}
