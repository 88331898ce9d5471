/* elementwise.c - the element-wise operations and reductions of base/optable.h, generated for
 * dense matrices (texla_mat_*) and 2D vectors (texla_vec_*). They are layout-agnostic: a pass
 * over the texels of textures of one shape, padding lanes masked by the destination's shape
 * (element-wise), or a reduction of any texture into a GPU scalar (core/recipes.c). */
#include "core/core.h"

#include <stdio.h>

typedef enum sig { SIG_c, SIG_f, SIG_A, SIG_AB, SIG_Ac, SIG_AcB, SIG_cB, SIG_ABDE, SIG_Af, SIG_Aff } sig;

static const struct ew_row {
    const char *name;
    sig sig;
    texla__prog_id prog;
    texla__blend blend;
    float k0, k1;
} ew_rows[] = {
#define TEXLA__X(name, sg, prog, bl, k0, k1, doc)                                              \
    {#name, SIG_##sg, TEXLA__P_##prog, TEXLA__BLEND_##bl, (float)(k0), (float)(k1)},
    TEXLA__EW_OPS(TEXLA__X)
#undef TEXLA__X
};

enum {
#define TEXLA__X(name, ...) EW_##name,
    TEXLA__EW_OPS(TEXLA__X)
#undef TEXLA__X
};

/* the source operands' names of each signature, in argument order */
static const char *const src_names[][4] = {
    [SIG_c] = {NULL},          [SIG_f] = {NULL},     [SIG_A] = {"a"},
    [SIG_AB] = {"a", "b"},     [SIG_Ac] = {"a"},     [SIG_AcB] = {"a", "b"},
    [SIG_cB] = {"b"},          [SIG_ABDE] = {"a", "b", "d", "e"},
    [SIG_Af] = {"a"},          [SIG_Aff] = {"a"},
};

/* One element-wise operation: validates (handles, shapes, aliasing, coefficients) and runs one
 * pass over dst's texels. c: the texla_coef argument (if the signature has one); fl: its float
 * arguments. */
static texla_result ew(texla_ctx *ctx, int op, texla__kind kind, const char *type,
                       const uint64_t *src, uint64_t dst, const texla_coef *c, const float *fl) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const struct ew_row *row = &ew_rows[op];
    char fn[64];
    snprintf(fn, sizeof fn, "texla_%s_%s", type, row->name);
    texla__operand ops[5];
    int n = 0;
    for (; n < 4 && src_names[row->sig][n]; n++)
        ops[n] = (texla__operand){src_names[row->sig][n], src[n], kind, NULL};
    ops[n++] = (texla__operand){"dst", dst, kind, NULL};
    texla_result r = texla__resolve(ctx, fn, ops, n);
    if (!r) r = texla__same_shape(ctx, fn, ops, n);
    if (r) return r;
    texla__pass p = {.prog = row->prog, .dst = &ops[n - 1].o->t, .blend = row->blend,
                     .f0 = {row->k0, row->k1, row->k0, row->k0}};
    for (int i = 0; i < n - 1; i++) p.src[i] = &ops[i].o->t;
    if (c) {
        r = texla__coef(ctx, fn, row->sig == SIG_c ? "c" : "s", *c, &p.coef_src);
        if (r) return r;
        int lane = row->sig == SIG_AcB ? 1 : 0;
        if (row->sig == SIG_c) {
            p.f0[0] = p.f0[1] = p.f0[2] = p.f0[3] = c->value;
            p.coef = 0xf;
        } else {
            p.f0[lane] = c->value;
            p.coef = 1 << lane;
        }
    }
    if (row->sig == SIG_Af || row->sig == SIG_f) {
        r = texla__finite(ctx, fn, "s", fl[0]);
        if (r) return r;
        p.f0[0] = fl[0];
        p.blend_scale = fl[0];
    } else if (row->sig == SIG_Aff) {
        r = texla__finite(ctx, fn, "lo", fl[0]);
        if (!r) r = texla__finite(ctx, fn, "hi", fl[1]);
        if (r) return r;
        if (fl[0] > fl[1])
            return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: lo (%g) > hi (%g)", fn, fl[0], fl[1]);
        p.f0[0] = fl[0];
        p.f0[1] = fl[1];
    }
    texla__shape_of(ops[n - 1].o, p.shape);
    return texla__run1(ctx, &p);
}

#define KIND_mat TEXLA__KIND_MAT
#define KIND_vec TEXLA__KIND_VEC

#define DEF_c(T, name)                                                                          \
    texla_result texla_##T##_##name(texla_ctx *ctx, texla_coef c, texla_##T dst) {              \
        return ew(ctx, EW_##name, KIND_##T, #T, NULL, dst.id, &c, NULL);                        \
    }
#define DEF_f(T, name)                                                                          \
    texla_result texla_##T##_##name(texla_ctx *ctx, float s, texla_##T dst) {                   \
        return ew(ctx, EW_##name, KIND_##T, #T, NULL, dst.id, NULL, &s);                        \
    }
#define DEF_A(T, name)                                                                          \
    texla_result texla_##T##_##name(texla_ctx *ctx, texla_##T a, texla_##T dst) {               \
        uint64_t s[1] = {a.id};                                                                 \
        return ew(ctx, EW_##name, KIND_##T, #T, s, dst.id, NULL, NULL);                         \
    }
#define DEF_AB(T, name)                                                                         \
    texla_result texla_##T##_##name(texla_ctx *ctx, texla_##T a, texla_##T b, texla_##T dst) {  \
        uint64_t s[2] = {a.id, b.id};                                                           \
        return ew(ctx, EW_##name, KIND_##T, #T, s, dst.id, NULL, NULL);                         \
    }
#define DEF_Ac(T, name)                                                                         \
    texla_result texla_##T##_##name(texla_ctx *ctx, texla_##T a, texla_coef c, texla_##T dst) { \
        uint64_t s[1] = {a.id};                                                                 \
        return ew(ctx, EW_##name, KIND_##T, #T, s, dst.id, &c, NULL);                           \
    }
#define DEF_AcB(T, name)                                                                        \
    texla_result texla_##T##_##name(texla_ctx *ctx, texla_##T a, texla_coef c, texla_##T b,     \
                                    texla_##T dst) {                                            \
        uint64_t s[2] = {a.id, b.id};                                                           \
        return ew(ctx, EW_##name, KIND_##T, #T, s, dst.id, &c, NULL);                           \
    }
#define DEF_cB(T, name)                                                                         \
    texla_result texla_##T##_##name(texla_ctx *ctx, texla_coef c, texla_##T b, texla_##T dst) { \
        uint64_t s[1] = {b.id};                                                                 \
        return ew(ctx, EW_##name, KIND_##T, #T, s, dst.id, &c, NULL);                           \
    }
#define DEF_ABDE(T, name)                                                                       \
    texla_result texla_##T##_##name(texla_ctx *ctx, texla_##T a, texla_##T b, texla_##T d,      \
                                    texla_##T e, texla_##T dst) {                               \
        uint64_t s[4] = {a.id, b.id, d.id, e.id};                                               \
        return ew(ctx, EW_##name, KIND_##T, #T, s, dst.id, NULL, NULL);                         \
    }
#define DEF_Af(T, name)                                                                         \
    texla_result texla_##T##_##name(texla_ctx *ctx, texla_##T a, float f, texla_##T dst) {      \
        uint64_t s[1] = {a.id};                                                                 \
        return ew(ctx, EW_##name, KIND_##T, #T, s, dst.id, NULL, &f);                           \
    }
#define DEF_Aff(T, name)                                                                        \
    texla_result texla_##T##_##name(texla_ctx *ctx, texla_##T a, float lo, float hi,            \
                                    texla_##T dst) {                                            \
        uint64_t s[1] = {a.id};                                                                 \
        const float f[2] = {lo, hi};                                                            \
        return ew(ctx, EW_##name, KIND_##T, #T, s, dst.id, NULL, f);                            \
    }

#define DEF_EW(name, sg, prog, bl, k0, k1, doc) DEF_##sg(mat, name) DEF_##sg(vec, name)
TEXLA__EW_OPS(DEF_EW)

/* ---- reductions ---- */

static texla_result reduce(texla_ctx *ctx, texla__kind kind, const char *type, const char *name,
                           uint64_t a, const uint64_t *b, int fold, int map, texla_scalar dst) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    char fn[64];
    snprintf(fn, sizeof fn, "texla_%s_%s", type, name);
    texla__operand ops[3] = {{"a", a, kind, NULL}, {"b", b ? *b : a, kind, NULL},
                             {"dst", dst.id, TEXLA__KIND_SCALAR, NULL}};
    texla_result r = texla__resolve(ctx, fn, ops, 3);
    if (!r && b) r = texla__same_shape(ctx, fn, ops, 2);
    if (r) return r;
    int32_t shape[4];
    texla__shape_of(ops[0].o, shape);
    texla__gl_enter(&ctx->gl);
    r = texla__reduce(ctx, &ops[0].o->t, shape, &ops[1].o->t, fold, map, &ops[2].o->t);
    texla__gl_leave(&ctx->gl);
    return r;
}

#define DEFR_A(T, name, fold, map)                                                              \
    texla_result texla_##T##_##name(texla_ctx *ctx, texla_##T a, texla_scalar dst) {            \
        return reduce(ctx, KIND_##T, #T, #name, a.id, NULL, TEXLA__FOLD_##fold,                 \
                      TEXLA__MAP_##map, dst);                                                   \
    }
#define DEFR_AB(T, name, fold, map)                                                             \
    texla_result texla_##T##_##name(texla_ctx *ctx, texla_##T a, texla_##T b,                   \
                                    texla_scalar dst) {                                         \
        return reduce(ctx, KIND_##T, #T, #name, a.id, &b.id, TEXLA__FOLD_##fold,                \
                      TEXLA__MAP_##map, dst);                                                   \
    }
#define DEF_RED(name, sg, fold, map, doc) DEFR_##sg(mat, name, fold, map) DEFR_##sg(vec, name, fold, map)
TEXLA__REDUCE_OPS(DEF_RED)
