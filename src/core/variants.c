/* variants.c - the variants of the tuned compute kernels (tile sizes, schedules: each a set of
 * #defines its kernel is compiled with), which one a call uses, and the tuner: a variant pinned
 * by the caller (texla_ctx_set_variant), else the one the tuning cache names for this device
 * and problem class, else (on first use) the fastest usable one timed on the call's own
 * operands and then kept in the cache; on software renderers, where timing says nothing about
 * a GPU, the family's default unless texla_ctx_desc.tune asks to measure. No GL here. */
#include "core/core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Tiled products (glsl/kernels/gemm.comp): block BM x BN x BK, TM x TN outputs per invocation,
 * CHUNK values of k per first-level sum (0: one serial sum). Shared memory: two buffers of
 * BK x (BM + BN) floats. Only two-level variants are tuned into use (the accuracy the products
 * promise at large K); the one-level ones are there to be pinned and compared. */
#define GEMM(bm, bn, bk, tm, tn, ch)                                                            \
    {#bm "x" #bn "x" #bk "/" #tm "x" #tn "/c" #ch,                                              \
     "#define BM " #bm "\n#define BN " #bn "\n#define BK " #bk "\n#define TM " #tm              \
     "\n#define TN " #tn "\n#define CHUNK " #ch "\n",                                           \
     ((bm) / (tm)) * ((bn) / (tn)), 2 * (bk) * ((bm) + (bn)) * 4, (ch) > 0, {0, 0, 0}}
static const texla__variant gemm_v[] = {
    GEMM(64, 64, 8, 4, 4, 128),     /* the default: 32 registers of sums, 8 KiB shared */
    GEMM(128, 128, 8, 8, 8, 0),     /* the CUDA ladder's 2D block tiling, one-level */
    GEMM(128, 128, 8, 8, 8, 128),
    GEMM(128, 128, 16, 8, 8, 128),  /* 32 KiB shared */
    GEMM(128, 64, 8, 8, 4, 128),
    GEMM(64, 128, 8, 4, 8, 128),
    GEMM(128, 64, 16, 8, 4, 128),
    GEMM(64, 64, 16, 8, 4, 128),
    GEMM(64, 64, 8, 8, 8, 0),
    GEMM(64, 64, 8, 8, 8, 128),
    GEMM(64, 64, 8, 4, 4, 0),
    GEMM(32, 32, 8, 4, 4, 128),     /* small outputs: more workgroups */
    GEMM(32, 64, 8, 4, 4, 128),
};
#undef GEMM

/* Dense matrix-vector products (glsl/kernels/gemv.comp): ROWS texel rows (4 matrix rows each)
 * per workgroup, Z invocations per texel row, x staged XCHUNK elements at a time. */
#define GEMV(rows, z, xc)                                                                       \
    {"r" #rows "z" #z "x" #xc,                                                                  \
     "#define ROWS " #rows "\n#define Z " #z "\n#define XCHUNK " #xc "\n", (rows) * (z),       \
     (xc) * 4 + (rows) * (z) * 16, 1, {0, 0, 0}}
static const texla__variant gemv_v[] = {
    GEMV(1, 256, 2048), /* the default */
    GEMV(2, 128, 2048),
    GEMV(4, 64, 2048),
    GEMV(8, 32, 2048),
    GEMV(1, 128, 1024),
    GEMV(2, 64, 1024),
    GEMV(16, 16, 1024),
    GEMV(1, 512, 2048),
};
#undef GEMV

/* How C (+)= A B and C (+)= A' B are computed (storage/dense_kernels.c): "direct", the tiled
 * kernel in that form, which scatters the texels of B (and of A') into its k-major tiles one
 * float at a time; or "via_nt", transposed copies of those operands (glsl/kernels/transpose.comp,
 * 32 x 8 invocations, 4 KiB shared) into pool textures, then the A B' form, where both operands
 * arrive as texels of 4 rows at one k and are stored whole. Same tiles, same two-level sums.
 * Where nothing is measured, the caller's size-based default (dense_kernels.c). */
static const texla__variant gemm_path_v[] = {
    {"direct", "", 1, 0, 1, {0, 0, 0}},
    {"via_nt", "", 256, 4096, 1, {0, 0, 0}},
};

/* How the one-pass reduction (glsl/kernels/reduce.comp) walks its texture: "rows", a grid
 * stride in row-major order (neighbouring invocations on neighbouring texels of a row), or
 * whole tiles of tw x (256 / tw) texels per workgroup, as GPUs lay textures out in memory,
 * `unroll` of them in flight, at most `groups/SM` workgroups an SM (arg). Not tuned (a
 * reduction runs inside solver loops, where timing on first use would cost more than it
 * saves): "gobs" from 2^16 texels up, rows below (core/recipes.c), or the one pinned
 * (texla_ctx_set_variant). */
#define RTILE(name, tw, un, sm)                                                                 \
    {name, "#define TILE 1\n#define TW " #tw "\n#define UNROLL " #un "\n", 256, 0, 0, {tw, un, sm}}
static const texla__variant reduce_v[] = {
    {"rows", "#define TILE 0\n", 256, 0, 0, {0, 4, 8}},
    RTILE("tiles", 32, 4, 8),       /* 32 x 8 texels, four in flight, one wave */
    RTILE("tiles_u8", 32, 8, 8),    /* eight in flight */
    RTILE("tiles_2w", 32, 4, 16),   /* two waves of workgroups */
    RTILE("gobs", 4, 4, 8),         /* 4 x 64 texels: 64-byte columns (the default for large
                                       textures, core/recipes.c) */
    RTILE("gobs_u8", 4, 8, 8),
    RTILE("squares_u8", 16, 8, 8),  /* 16 x 16 */
};
#undef RTILE

const texla__family texla__families[TEXLA__FAM_COUNT] = {
    [TEXLA__FAM_GEMM] = {"gemm", gemm_v, (int)(sizeof gemm_v / sizeof gemm_v[0]), 0},
    [TEXLA__FAM_GEMV] = {"gemv", gemv_v, (int)(sizeof gemv_v / sizeof gemv_v[0]), 0},
    [TEXLA__FAM_GEMM_PATH] = {"gemm_path", gemm_path_v,
                              (int)(sizeof gemm_path_v / sizeof gemm_path_v[0]), 0},
    [TEXLA__FAM_REDUCE] = {"reduce", reduce_v, (int)(sizeof reduce_v / sizeof reduce_v[0]), 1},
};
/* the tuner keeps one time per variant in an array of 64 */
_Static_assert(sizeof gemm_v / sizeof gemm_v[0] <= 64 && sizeof gemv_v / sizeof gemv_v[0] <= 64,
               "a family of more than 64 variants: enlarge texla__variant_pick's t[]");

int texla__variant_usable(const texla_ctx *ctx, int fam, int i) {
    const texla__variant *v = &texla__families[fam].v[i];
    const texla__caps *c = &ctx->gl.caps;
    return v->smem <= c->shared_max && v->wg <= c->wg_invocations;
}

static int family_named(const char *name) {
    for (int f = 0; f < TEXLA__FAM_COUNT; f++)
        if (name && !strcmp(texla__families[f].name, name)) return f;
    return -1;
}

static int variant_named(int fam, const char *name) {
    const texla__family *f = &texla__families[fam];
    for (int i = 0; i < f->n; i++)
        if (!strcmp(f->v[i].name, name)) return i;
    return -1;
}

int texla__variant_default(const texla_ctx *ctx, int fam) {
    const texla__family *f = &texla__families[fam];
    if (texla__variant_usable(ctx, fam, f->def)) return f->def;
    for (int i = 0; i < f->n; i++)
        if (texla__variant_usable(ctx, fam, i) && f->v[i].tuned) return i;
    return f->def; /* none fits: the kernel reports why when it fails to compile */
}

/* Times variant i: a warm-up call (compiles it), then calls in one timer until about 20 ms or
 * 16 calls, whichever comes first; the mean per call. */
static texla_result time_variant(texla_ctx *ctx, int i, texla__variant_run run, void *arg,
                                 double *ms) {
    texla__gl *g = &ctx->gl;
    texla_result r = run(ctx, i, arg);
    if (r) return r;
    texla__timer_begin(g);
    r = run(ctx, i, arg);
    double one = texla__timer_end_ms(g);
    if (r) return r;
    int reps = one > 0 ? (int)(20.0 / one) : 16;
    if (reps > 16) reps = 16;
    if (reps < 1) {
        *ms = one;
        return TEXLA_OK;
    }
    texla__timer_begin(g);
    for (int k = 0; k < reps && !r; k++) r = run(ctx, i, arg);
    *ms = texla__timer_end_ms(g) / reps;
    return r;
}

texla_result texla__variant_pick(texla_ctx *ctx, int fam, const char *key, texla__variant_run run,
                                 void *arg, int *out) {
    return texla__variant_choose(ctx, fam, key, -1, run, arg, out);
}

texla_result texla__variant_choose(texla_ctx *ctx, int fam, const char *key, int def,
                                   texla__variant_run run, void *arg, int *out) {
    const texla__family *f = &texla__families[fam];
    if (ctx->pin[fam]) {
        *out = ctx->pin[fam] - 1;
        return TEXLA_OK;
    }
    int mode = ctx->desc.tune;
    if (mode < 0 || (mode == 0 && ctx->gl.caps.software)) {
        *out = def >= 0 && def < f->n && texla__variant_usable(ctx, fam, def)
                   ? def
                   : texla__variant_default(ctx, fam);
        return TEXLA_OK;
    }
    char val[128];
    if (texla__tune_get(ctx, key, val, sizeof val)) {
        int i = variant_named(fam, val);
        if (i >= 0 && texla__variant_usable(ctx, fam, i)) {
            *out = i;
            return TEXLA_OK;
        }
        char why[160];
        snprintf(why, sizeof why, i < 0 ? "names no %s variant of this texla"
                                        : "names a %s variant this GL cannot run",
                 f->name);
        texla__tune_invalid(ctx, key, why);
    }
    if (!run) { /* the caller asks whether timing is needed: it is */
        *out = -1;
        return TEXLA_OK;
    }
    /* The GPU first settles: timings taken straight after a pause (the CPU building data,
     * uploads, memory freed) ran up to 3.5x slow for a few hundred ms on an H100, and the
     * first variants timed lost to later ones for it. The default variant runs until two
     * timings in a row agree within 3% (at most 12 timings or about 150 ms). Then every
     * variant is timed once, and the best three again in reverse order; each keeps its
     * faster time. */
    int first = def >= 0 && def < f->n && texla__variant_usable(ctx, fam, def)
                    ? def
                    : texla__variant_default(ctx, fam);
    {
        double prev = -1, t0 = texla__now_ms();
        for (int k = 0; k < 12 && texla__now_ms() - t0 < 150; k++) {
            double ms = 0;
            if (time_variant(ctx, first, run, arg, &ms)) break; /* reported when timed below */
            if (prev > 0 && fabs(ms - prev) <= 0.03 * prev) break;
            prev = ms;
        }
    }
    double t[64]; /* families have fewer variants (a static check below) */
    int best = -1;
    for (int i = 0; i < f->n && i < 64; i++) {
        t[i] = -1;
        if (!f->v[i].tuned || !texla__variant_usable(ctx, fam, i)) continue;
        double ms = 0;
        texla_result r = time_variant(ctx, i, run, arg, &ms);
        if (r == TEXLA_ERR_SHADER) { /* a driver that cannot build one variant: the others */
            texla__warn(ctx, "%s variant %s skipped by the tuner: %s", f->name, f->v[i].name,
                        ctx->err.msg);
            continue;
        }
        if (r) return r;
        t[i] = ms;
    }
    int top[3] = {-1, -1, -1};
    for (int i = 0; i < f->n && i < 64; i++) {
        if (t[i] < 0) continue;
        for (int j = 0; j < 3; j++)
            if (top[j] < 0 || t[i] < t[top[j]]) {
                for (int m = 2; m > j; m--) top[m] = top[m - 1];
                top[j] = i;
                break;
            }
    }
    for (int j = 2; j >= 0; j--) {
        if (top[j] < 0) continue;
        double ms = 0;
        texla_result r = time_variant(ctx, top[j], run, arg, &ms);
        if (r) return r;
        if (ms < t[top[j]]) t[top[j]] = ms;
    }
    for (int i = 0; i < f->n && i < 64; i++)
        if (t[i] >= 0 && (best < 0 || t[i] < t[best])) best = i;
    if (best < 0) best = first;
    texla__tune_put(ctx, key, f->v[best].name);
    *out = best;
    return TEXLA_OK;
}

/* a power of two >= v, at least lo and at most hi: the problem classes of tuning keys */
int texla__size_class(int v, int lo, int hi) {
    int c = lo;
    while (c < v && c < hi) c *= 2;
    return c;
}

/* ---- public ---- */

texla_result texla_kernel_variant(texla_ctx *ctx, const char *family, int i, const char **name) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_kernel_variant";
    if (!name) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: name is NULL", fn);
    *name = NULL;
    int f = family_named(family);
    if (f < 0)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: no kernel family \"%s\" (there are \"gemm\", \"gemv\", "
                           "\"gemm_path\" and \"reduce\")", fn,
                           family ? family : "(NULL)");
    if (i < 0 || i >= texla__families[f].n)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: %s has variants 0 .. %d; %d asked for",
                           fn, family, texla__families[f].n - 1, i);
    *name = texla__families[f].v[i].name;
    return TEXLA_OK;
}

texla_result texla_ctx_set_variant(texla_ctx *ctx, const char *family, const char *variant) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_ctx_set_variant";
    texla_result r0 = texla__in_callback(&ctx->err, fn);
    if (r0) return r0;
    int f = family_named(family);
    if (f < 0)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: no kernel family \"%s\" (there are \"gemm\", \"gemv\", "
                           "\"gemm_path\" and \"reduce\")", fn,
                           family ? family : "(NULL)");
    if (!variant) {
        ctx->pin[f] = 0;
        return TEXLA_OK;
    }
    int i = variant_named(f, variant);
    if (i < 0)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: %s has no variant \"%s\" (texla_kernel_variant lists them)", fn,
                           family, variant);
    if (!texla__variant_usable(ctx, f, i))
        return texla__fail(ctx, TEXLA_ERR_UNSUPPORTED,
                           "%s: %s variant %s needs %d bytes of shared memory and %d invocations "
                           "per workgroup; this GL offers %d and %d", fn, family, variant,
                           texla__families[f].v[i].smem, texla__families[f].v[i].wg,
                           ctx->gl.caps.shared_max, ctx->gl.caps.wg_invocations);
    ctx->pin[f] = i + 1;
    return TEXLA_OK;
}
