/* spkern.c - the sparse product's passes: a variant (format, schedule, parameters) on a stored
 * form becomes one kernel pass (spmv_row, spmv_bsr), a scatter and a pack pass (COO, CSC), or a
 * fragment draw (points.c). Each variant is a set of defines: the program cache compiles it
 * once. No GL here. */
#include "storage/sparse.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int sp_sm_count(const texla_ctx *ctx) {
    return ctx->gl.caps.sm_count > 0 ? ctx->gl.caps.sm_count : 16;
}

static int pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

void sp_variant_norm(texla_sparse_variant *v) {
    if (v->sched == TEXLA_SCHED_AUTO) {
        switch (v->format) {
        case TEXLA_SPARSE_POINTS:
        case TEXLA_SPARSE_GATHER: v->sched = TEXLA_SCHED_DRAW; break;
        case TEXLA_SPARSE_COO: v->sched = TEXLA_SCHED_SEGMENT; break;
        case TEXLA_SPARSE_CSC: v->sched = TEXLA_SCHED_ATOMIC; break;
        case TEXLA_SPARSE_ELL:
        case TEXLA_SPARSE_SELL: v->sched = TEXLA_SCHED_GROUP; break;
        default: v->sched = TEXLA_SCHED_ROW; break;
        }
    }
    int fragment = v->format == TEXLA_SPARSE_POINTS || v->format == TEXLA_SPARSE_GATHER;
    if (fragment) {
        texla_sparse_variant d = {.format = v->format, .sched = TEXLA_SCHED_DRAW};
        *v = d;
        return;
    }
    if (!v->wg) v->wg = 128;
    v->soa = v->soa != 0;
    if (v->sched != TEXLA_SCHED_LANES && v->sched != TEXLA_SCHED_MERGE) v->lanes = 0;
    else if (!v->lanes) v->lanes = 8;
    if (v->dist == 0) v->bpsm = 0;
    else if (!v->bpsm) v->bpsm = 4;
    if (v->format != TEXLA_SPARSE_SELL) v->slice = v->sigma = v->rowsort = 0;
    else {
        if (!v->slice) v->slice = 32;
        if (v->sigma <= 1) v->sigma = 0;
        v->rowsort = v->rowsort != 0;
        if (v->rowsort) v->sigma = 0;
    }
    if (v->format != TEXLA_SPARSE_BSR) v->block = v->bell = 0;
    else if (!v->block) v->block = 3;
    int rowfmt = v->format == TEXLA_SPARSE_CSR || v->format == TEXLA_SPARSE_ELL ||
                 v->format == TEXLA_SPARSE_SELL;
    if (!rowfmt || v->sched == TEXLA_SCHED_ATOMIC || v->long_rows <= 0) v->long_rows = v->long_chunk = 0;
    else if (!v->long_chunk) v->long_chunk = SP_CHUNK;
    if (v->sched == TEXLA_SCHED_ATOMIC || v->sched == TEXLA_SCHED_SEGMENT ||
        v->sched == TEXLA_SCHED_MERGE)
        v->dist = v->bpsm = 0;
    if (v->sched == TEXLA_SCHED_MERGE) v->long_rows = v->long_chunk = 0;
    if (v->cols8) v->cols16 = 1; /* 8-bit columns: cols16's machinery, narrower words */
    if (v->cols16)
        v->cols16 = ((v->format == TEXLA_SPARSE_ELL || v->format == TEXLA_SPARSE_SELL) &&
                     (v->sched == TEXLA_SCHED_ROW || v->sched == TEXLA_SCHED_GROUP)) ||
                    (v->format == TEXLA_SPARSE_CSR &&
                     (v->sched == TEXLA_SCHED_ROW || v->sched == TEXLA_SCHED_LANES));
    v->cols8 = v->cols16 && v->cols8;
    v->vec4 = v->vec4 && v->format == TEXLA_SPARSE_CSR &&
              (v->sched == TEXLA_SCHED_ROW || v->sched == TEXLA_SCHED_LANES);
    v->tiles = v->tiles && v->format == TEXLA_SPARSE_CSR && v->sched == TEXLA_SCHED_MERGE;
    if (v->cols16) v->xbuf = 1; /* x in element order, in the x buffer */
    if (v->xbuf) v->xbuf = (rowfmt && v->sched != TEXLA_SCHED_MERGE && v->sched != TEXLA_SCHED_ATOMIC &&
                            v->sched != TEXLA_SCHED_SEGMENT) || v->format == TEXLA_SPARSE_BSR;
}

texla_result sp_variant_check(texla_ctx *ctx, const texla_sparse_variant *v, int k, int op,
                              const char **why) {
    (void)op;
    const texla__caps *c = &ctx->gl.caps;
    texla_sparse_format f = v->format;
    texla_sparse_sched s = v->sched;
    *why = NULL;
    if ((unsigned)f >= TEXLA_SPARSE_NFORMATS || f == TEXLA_SPARSE_AUTO)
        return *why = "the format is none of texla_sparse_format's", TEXLA_ERR_ARGUMENT;
    if ((unsigned)s > TEXLA_SCHED_STREAM)
        return *why = "the schedule is none of texla_sparse_sched's", TEXLA_ERR_ARGUMENT;
    if (f == TEXLA_SPARSE_POINTS || f == TEXLA_SPARSE_GATHER) {
        if (s != TEXLA_SCHED_DRAW) return *why = "the fragment forms are drawn (TEXLA_SCHED_DRAW)", TEXLA_ERR_ARGUMENT;
        return TEXLA_OK;
    }
    if (!ctx->gl.info.compute)
        return *why = "the compute formats need OpenGL 4.3 (compute shaders, storage buffers)",
               TEXLA_ERR_UNSUPPORTED;
    int rowfmt = f == TEXLA_SPARSE_CSR || f == TEXLA_SPARSE_ELL || f == TEXLA_SPARSE_SELL;
    switch (s) {
    case TEXLA_SCHED_ROW:
        if (!rowfmt && f != TEXLA_SPARSE_BSR) return *why = "ROW runs CSR, ELL, SELL and BSR", TEXLA_ERR_ARGUMENT;
        break;
    case TEXLA_SCHED_LANES:
        if (f != TEXLA_SPARSE_CSR && f != TEXLA_SPARSE_BSR)
            return *why = "LANES runs CSR and BSR", TEXLA_ERR_ARGUMENT;
        if (!pow2(v->lanes) || v->lanes < 2 || v->lanes > 128)
            return *why = "lanes must be 2, 4, .. 128", TEXLA_ERR_ARGUMENT;
        if (v->lanes * (k == 1 ? 4 : 2) > v->wg)
            return *why = "a workgroup must hold the lanes of a whole texel's rows (wg >= 4 lanes; "
                          "2 lanes for complex and quaternion entries)", TEXLA_ERR_ARGUMENT;
        break;
    case TEXLA_SCHED_GROUP:
        if (!rowfmt) return *why = "GROUP runs CSR, ELL and SELL", TEXLA_ERR_ARGUMENT;
        break;
    case TEXLA_SCHED_ATOMIC:
        if (f != TEXLA_SPARSE_COO && f != TEXLA_SPARSE_CSC)
            return *why = "ATOMIC runs COO and CSC", TEXLA_ERR_ARGUMENT;
        if (!c->atomic_float)
            return *why = "the atomic scatter forms need float atomics "
                          "(GL_NV_shader_atomic_float); COO has SEGMENT", TEXLA_ERR_UNSUPPORTED;
        break;
    case TEXLA_SCHED_SEGMENT:
        if (f != TEXLA_SPARSE_COO) return *why = "SEGMENT runs COO", TEXLA_ERR_ARGUMENT;
        break;
    case TEXLA_SCHED_MERGE:
        if (f != TEXLA_SPARSE_CSR) return *why = "MERGE runs CSR", TEXLA_ERR_ARGUMENT;
        if (k != 1 && k != 2 && k != 4)
            return *why = "MERGE runs real, complex and quaternion entries (3x3 blocks as their "
                          "real expansion)",
                   TEXLA_ERR_UNSUPPORTED;
        if (v->lanes != 2 && v->lanes != 4 && v->lanes != 8 && v->lanes != 16)
            return *why = "MERGE takes 2, 4, 8 or 16 items per invocation (lanes)",
                   TEXLA_ERR_ARGUMENT;
        if (v->long_rows) return *why = "MERGE splits long rows itself (long_rows 0)", TEXLA_ERR_ARGUMENT;
        if (v->tiles) { /* the rows' values, the scan's keys and sums */
            if (((size_t)v->wg * (size_t)v->lanes * (size_t)k + (size_t)v->wg * (size_t)(1 + k)) *
                    4 + 16 > (size_t)c->shared_max)
                return *why = "the merge tile of entries (tiles) exceeds "
                              "GL_MAX_COMPUTE_SHARED_MEMORY_SIZE", TEXLA_ERR_UNSUPPORTED;
            break;
        }
        if ((v->wg * v->lanes) % 256)
            return *why = "MERGE's tile (wg x items) is a multiple of 256 items", TEXLA_ERR_ARGUMENT;
        /* the tile's row ends and products, the scan's keys and sums */
        if (((size_t)v->wg * (size_t)v->lanes + (size_t)v->wg) * 4 * (size_t)(1 + k) + 16 >
            (size_t)c->shared_max)
            return *why = "the merge tile exceeds GL_MAX_COMPUTE_SHARED_MEMORY_SIZE",
                   TEXLA_ERR_UNSUPPORTED;
        break;
    case TEXLA_SCHED_STREAM:
        if (f != TEXLA_SPARSE_CSR) return *why = "STREAM runs CSR", TEXLA_ERR_ARGUMENT;
        if ((size_t)(SP_STREAM_ENT + SP_STREAM_ROWS) * 4 + (size_t)v->wg * 4 * (size_t)k + 64 >
            (size_t)c->shared_max)
            return *why = "the stream block exceeds GL_MAX_COMPUTE_SHARED_MEMORY_SIZE",
                   TEXLA_ERR_UNSUPPORTED;
        break;
    default:
        return *why = "the compute formats run ROW, LANES, GROUP, ATOMIC, SEGMENT, MERGE or STREAM",
               TEXLA_ERR_ARGUMENT;
    }
    if (f == TEXLA_SPARSE_COO && s != TEXLA_SCHED_ATOMIC && s != TEXLA_SCHED_SEGMENT)
        return *why = "COO runs ATOMIC or SEGMENT", TEXLA_ERR_ARGUMENT;
    if (f == TEXLA_SPARSE_CSC && s != TEXLA_SCHED_ATOMIC)
        return *why = "CSC is a scatter form (TEXLA_SCHED_ATOMIC)", TEXLA_ERR_ARGUMENT;
    if (f == TEXLA_SPARSE_BSR && k > 2)
        return *why = "BSR holds real or complex blocks; quaternion entries use the other formats",
               TEXLA_ERR_UNSUPPORTED;
    if (f == TEXLA_SPARSE_BSR && (v->block < 2 || v->block > 4))
        return *why = "the BSR block is 2, 3 or 4", TEXLA_ERR_ARGUMENT;
    if (f == TEXLA_SPARSE_BSR && (v->bell < 0 || v->bell > 3))
        return *why = "bell is 0 (block CSR), 1 (block ELL), 2 (sliced block ELL) or 3 "
                      "(symmetric block ELL)", TEXLA_ERR_ARGUMENT;
    if (f == TEXLA_SPARSE_BSR && v->bell == 3 && v->soa)
        return *why = "symmetric block ELL (bell 3) holds whole blocks (soa 0)",
               TEXLA_ERR_UNSUPPORTED;
    if (f == TEXLA_SPARSE_SELL && v->slice != 8 && v->slice != 16 && v->slice != 32)
        return *why = "the SELL slice is 8, 16 or 32 rows", TEXLA_ERR_ARGUMENT;
    if (f == TEXLA_SPARSE_SELL && v->sigma > (1 << 30))
        return *why = "the SELL sigma is 0 (no sorting) or 2 .. 2^30 rows", TEXLA_ERR_ARGUMENT;
    if (v->rowsort && (f != TEXLA_SPARSE_SELL || s != TEXLA_SCHED_ROW))
        return *why = "rowsort is SELL's, with ROW (a workgroup puts its rows back in order)",
               TEXLA_ERR_ARGUMENT;
    if (!pow2(v->wg) || v->wg < 32 || v->wg > 512 || v->wg > c->wg_invocations)
        return *why = "wg must be 32, 64, 128, 256 or 512 (and at most "
                      "GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS)", TEXLA_ERR_ARGUMENT;
    if (v->dist < 0 || v->dist > 2 || v->bpsm < 0 || v->bpsm > 64)
        return *why = "dist is 0, 1 or 2 and bpsm 0..64", TEXLA_ERR_ARGUMENT;
    if (v->long_rows < 0 || v->long_chunk < 0 || (v->long_rows && v->long_chunk < v->wg) ||
        v->long_chunk > SP_CHUNK_MAX)
        return *why = "long_rows >= 0, and long_chunk at least the workgroup and at most 2^20",
               TEXLA_ERR_ARGUMENT;
    if (v->cols16 && k != 1)
        return *why = v->cols8 ? "cols8 holds real entries' columns"
                               : "cols16 holds real entries' columns", TEXLA_ERR_UNSUPPORTED;
    if (v->vec4 && k != 1)
        return *why = "vec4 reads real entries four at a time", TEXLA_ERR_UNSUPPORTED;
    if (v->cols16 && v->long_rows)
        return *why = v->cols8 ? "cols8 has no long-row chunks (long_rows 0)"
                               : "cols16 has no long-row chunks (long_rows 0)", TEXLA_ERR_ARGUMENT;
    if (v->wg * 4 * 4 * 2 > c->shared_max)
        return *why = "the workgroup's shared memory exceeds GL_MAX_COMPUTE_SHARED_MEMORY_SIZE",
               TEXLA_ERR_UNSUPPORTED;
    return TEXLA_OK;
}

/* spin.comp: 4 workgroups an SM, iters multiply-adds per invocation */
static texla_result spin_run(texla_ctx *ctx, texla__buf *sink, int iters) {
    texla__pass p = {.prog = TEXLA__P_SPIN_K, .draw = TEXLA__DRAW_KERNEL};
    p.i0[0] = iters;
    p.ssbo[0].b = sink;
    p.groups[0] = (unsigned)(4 * sp_sm_count(ctx));
    p.groups[1] = p.groups[2] = 1;
    return texla__run(&ctx->gl, &p);
}

#define SPIN_CAL 4096   /* iterations of the calibration dispatch */
#define SPIN_SKIP(g) ((g)->caps.software || !(g)->caps.timer)
#define SPIN_MAX_MS 40  /* one dispatch at most this long */

texla_result sp_spin(texla_ctx *ctx, sp_spinner *s, double ms) {
    texla__gl *g = &ctx->gl;
    if (SPIN_SKIP(g) || !g->info.compute || ms <= 0 || s->per_ms < 0) return TEXLA_OK;
    texla_result r = TEXLA_OK;
    if (!s->sink.buf) r = texla__buf_make(g, 16, NULL, &s->sink);
    if (!r && s->per_ms <= 0) { /* iterations per ms, from one timed dispatch */
        texla__timer_begin(g);
        r = spin_run(ctx, &s->sink, SPIN_CAL);
        double t = texla__timer_end_ms(g);
        s->per_ms = t > 0 ? SPIN_CAL / t : SPIN_CAL * 10.0;
    }
    for (double left = ms; !r && left > 0; left -= SPIN_MAX_MS) {
        double part = left < SPIN_MAX_MS ? left : SPIN_MAX_MS;
        double it = part * s->per_ms;
        r = spin_run(ctx, &s->sink, it < 1 ? 1 : it > 1e9 ? 1000000000 : (int)it);
    }
    /* sent now: a driver may hold queued work until the next flush, and the spin must run
     * while the host builds (H100: unflushed, it ran after the build, 50-230 ms waited for) */
    texla__gl_flush(&ctx->gl);
    return r;
}

/* The clock probe. A GPU idle for about a second and a half lowers its clocks, and raises
 * them again only under a sustained load: on an H200 (nvidia-smi beside the tuning) the SM
 * clock fell from 1980 to 345 MHz while the host read a matrix and built the first storage,
 * and the tuner's short bursts between later builds left it at 345-960, so every
 * first-round time of A x read 1.7-3.6x its warm one (kkt: SELL-32 by groups 361 us, 118
 * warm; crmat's merge path 630 against 208) until the final round's 300 ms back to back
 * brought 1980; A' x, tuned right after, kept the clock up and read its warm times. So spins
 * run back to back, two in flight, each timed, until the spin runs within HEAT_NEAR of the
 * fastest rate this context has seen (the H200 from 345 MHz: 170-320 ms); where none has been
 * seen yet, until at least HEAT_MIN_MS have passed and the rate has not risen by HEAT_NEAR
 * for HEAT_FLAT_MS (stopped at 250 ms and a flat 150, two heats ended at a fifth and a
 * quarter of the peak rate); at most HEAT_MAX_MS, and then the fastest rate is what this
 * GPU does now (a later heat is not held to a peak it cannot reach); at most the caller's cap
 * (the tuner's: a tenth of its budget), not under HEAT_LEAST_MS. The spinner's rate is the
 * hot one. */
#define HEAT_CHUNK_MS 5.0
#define HEAT_NEAR 0.03
#define HEAT_MIN_MS 400.0
#define HEAT_FLAT_MS 150.0
#define HEAT_MAX_MS 600.0
#define HEAT_LEAST_MS 50.0 /* the least a caller's cap leaves it */

texla_result sp_heat(texla_ctx *ctx, sp_spinner *s, double cap_ms, int *ran) {
    texla__gl *g = &ctx->gl;
    double t0 = texla__now_ms(), most = fmin(HEAT_MAX_MS, fmax(HEAT_LEAST_MS, cap_ms));
    *ran = 0;
    if (SPIN_SKIP(g) || !g->info.compute || s->per_ms < 0 || !texla__laps_on(g)) return TEXLA_OK;
    texla_result r = TEXLA_OK;
    if (!s->sink.buf) r = texla__buf_make(g, 16, NULL, &s->sink);
    double peak = g->spin_peak, best = 0, t_best = 0, rate = s->per_ms > 0 ? s->per_ms : 0;
    int it[2] = {SPIN_CAL, SPIN_CAL}, n = 0, timed_out = 0; /* n: laps begun */
    while (!r) {
        /* the next lap queued before the last one's time is read: the GPU never waits; at
         * most 4 times the last one's work (a lap of one bad reading stays short) */
        int cur = n & 1, prev = cur ^ 1;
        if (rate > 0) it[cur] = (int)fmin(fmax(rate * HEAT_CHUNK_MS, 64), 4.0 * it[prev]);
        texla__lap_begin(g, cur);
        r = spin_run(ctx, &s->sink, it[cur]);
        texla__lap_end(g);
        if (n++ == 0) continue;
        double ms = texla__lap_ms(g, prev), now = texla__now_ms() - t0;
        if (r || !(ms > 0)) break;
        rate = it[prev] / ms;
        if (rate > best * (1 + HEAT_NEAR)) t_best = now;
        if (rate > best) best = rate;
        if (peak > 0 && rate >= peak * (1 - HEAT_NEAR)) break;
        if ((timed_out = now >= most)) break;
        if (peak <= 0 && now >= HEAT_MIN_MS && now - t_best >= HEAT_FLAT_MS) break;
    }
    if (n) (void)texla__lap_ms(g, (n - 1) & 1); /* waits for the last lap */
    /* a peak not reached in HEAT_MAX_MS: what this GPU does now; a heat the caller's cap cut
     * short sets no first peak */
    int cut = timed_out && most < HEAT_MAX_MS;
    if (best > 0 && (peak > 0 ? best > peak || (timed_out && !cut) : !cut)) g->spin_peak = best;
    if (best > 0) s->per_ms = best;
    *ran = n > 1;
    return r;
}

/* a dispatch of n workgroups as gx x gy (GL_MAX_COMPUTE_WORK_GROUP_COUNT) */
texla_result sp_groups_of(texla_ctx *ctx, long long n, texla__pass *p) {
    long long gmax = ctx->gl.caps.groups_max[0] > 0 ? ctx->gl.caps.groups_max[0] : 65535;
    long long ymax = ctx->gl.caps.groups_max[1] > 0 ? ctx->gl.caps.groups_max[1] : 65535;
    if (n < 1) n = 1;
    long long gx = n < gmax ? n : gmax, gy = (n + gx - 1) / gx;
    if (gy > ymax)
        return texla__fail(ctx, TEXLA_ERR_LIMIT,
                           "a sparse product needs %lld workgroups; this GL dispatches at most %lld "
                           "x %lld (GL_MAX_COMPUTE_WORK_GROUP_COUNT)", n, gmax, ymax);
    p->groups[0] = (unsigned)gx;
    p->groups[1] = (unsigned)gy;
    p->groups[2] = 1;
    return TEXLA_OK;
}

/* workgroups of 256 invocations that give each of n items a subgroup where there are
 * subgroups, else an invocation (the kernels stride over the items) */
static long long subgroup_each(const texla_ctx *ctx, long long n) {
    int sgs = ctx->gl.caps.subgroup_size > 0 ? ctx->gl.caps.subgroup_size : 1;
    int per = ctx->gl.caps.subgroup && sgs <= 256 ? 256 / sgs : 256;
    return (n + per - 1) / per;
}

/* x into scr->xlin (spmv_pack.comp, UNPACK), for a variant with xbuf: its texels as stored
 * (bk = 0: the row formats), in element order (bk < 0: cols16), both by tiles of texels, or by
 * block column, bk = B K floats in ceil(bk / 4) vec4s each (BSR) */
static const char *unpack_defines(int bk) {
    return bk > 0 ? "#define UNPACK 2" : bk ? "#define UNPACK 3" : "#define UNPACK 1";
}

static texla_result xlin_fill(texla_ctx *ctx, const texla__obj *x, sp_scratch *scr, int bk) {
    size_t texels = (size_t)x->t.w * (size_t)x->t.h, nv = bk > 0 ? (size_t)(bk + 3) / 4 : 0;
    size_t items = bk > 0 ? ((size_t)x->lay.n + (size_t)bk - 1) / (size_t)bk * nv : texels;
    size_t need = items * 16;
    if (scr->xlin.size < need) {
        texla__buf_free(&ctx->gl, &scr->xlin);
        texla_result r = texla__buf_make(&ctx->gl, need, NULL, &scr->xlin);
        if (r) return r;
    }
    texla__pass q = {.prog = TEXLA__P_SPMV_PACK, .defines = unpack_defines(bk), .src = {&x->t},
                     .draw = TEXLA__DRAW_KERNEL};
    q.i0[0] = (int)items;
    q.i0[1] = x->t.w;
    q.i0[2] = x->lay.nx;
    q.i0[3] = x->lay.n;
    q.i1[0] = bk;
    q.i1[1] = (int)nv;
    q.ssbo[7].b = &scr->xlin;
    texla_result r = TEXLA_OK;
    if (bk > 0) { /* UNPACK 2: 256 vec4s a workgroup */
        r = sp_groups_of(ctx, (long long)(items + 255) / 256, &q);
    } else { /* tiles of 64 x 16 texels (spmv_pack.comp, TPI 4) */
        q.groups[0] = (unsigned)(x->t.w + 63) / 64;
        q.groups[1] = (unsigned)(x->t.h + 15) / 16;
        q.groups[2] = 1;
    }
    return r ? r : texla__run(&ctx->gl, &q);
}

static void bind(texla__pass *p, const sp_form *f, int i, int slot) {
    if (f->buf[i].buf) p->ssbo[slot].b = &f->buf[i];
}

static long long grid(const texla_ctx *ctx, const texla_sparse_variant *v, long long total) {
    if (v->dist == 0) return total;
    long long g = (long long)sp_sm_count(ctx) * v->bpsm;
    return g < total ? g : total;
}

/* the defines of spmv_row's main pass: k floats an entry, G rows a group, lng: long rows in
 * chunks, lpass: how they reach y (1: a pass of their own; 2: their groups' last parties) */
static void rows_defines(char *defs, size_t cap, const texla_sparse_variant *v, int k, int G,
                         int soa, int lng, int lpass, int based) {
    int group = v->sched == TEXLA_SCHED_GROUP, stream = v->sched == TEXLA_SCHED_STREAM;
    int L = v->sched == TEXLA_SCHED_LANES ? v->lanes : 1;
    int fmt = v->format == TEXLA_SPARSE_CSR ? 0 : v->format == TEXLA_SPARSE_ELL ? 1 : 2;
    int n = snprintf(defs, cap,
                     "#define K %d\n#define G %d\n#define FMT %d\n#define MODE %d\n#define L %d\n"
                     "#define WG %d\n#define SOA %d\n#define LONG %d\n#define XBUF %d\n"
                     "#define LONGPASS %d\n#define CPW %d\n#define BASED %d\n#define VEC %d",
                     k, G, fmt, stream ? 2 : group, L, v->wg, soa && k > 1, lng, v->xbuf, lpass,
                     v->cols8 ? 4 : v->cols16 ? 2 : 0, based && v->cols16, v->vec4 && k == 1);
    if (stream && n > 0 && (size_t)n < cap)
        snprintf(defs + n, cap - (size_t)n, "\n#define TB %d\n#define RB %d", SP_STREAM_ENT / k,
                 SP_STREAM_ROWS / k);
}

/* the defines of spmv_bsr */
static void bsr_defines(char *defs, size_t cap, const texla_sparse_variant *v, int k, int herm) {
    int L = v->sched == TEXLA_SCHED_LANES ? v->lanes : 1;
    snprintf(defs, cap, "#define K %d\n#define B %d\n#define FMT %d\n#define SOA %d\n"
             "#define WG %d\n#define XBUF %d\n#define L %d\n#define HERM %d", k, v->block,
             v->bell, v->soa, v->wg, v->xbuf, L, herm);
}

int sp_long_pass(int lng, int nag, int wg) {
    /* the long rows added by the last of each affected group's parties (LONGPASS 2: no pass,
     * no wait; H100: circuit's CSR a row 86.8 -> 78.6 us, dense_rows' SELL-32 by groups 161.1 ->
     * 142.1 against a pass of their own), or by a pass of their own where the affected groups
     * are many (powerlaw_light, CSR 4 lanes: 239.2 us with the pass, 246.3 without: each of its
     * long rows has a chunk or two, and each group's writer looked itself up) */
    return !lng ? 0 : nag > 2 * wg ? 1 : 2;
}

/* the defines of the long rows' own pass (LONGPASS 1) */
static void long_pass_defines(char *defs, size_t cap, int k, int G) {
    snprintf(defs, cap, "#define K %d\n#define G %d\n#define FMT 0\n#define MODE 3\n"
             "#define L 1\n#define WG 256\n#define SOA 0\n#define LONG 1\n#define XBUF 0\n"
             "#define LONGPASS 1\n#define CPW 0", k, G);
}

void sp_prefetch(texla_ctx *ctx, const texla_sparse_variant *v, int k, int M, int nag, int herm) {
    texla__gl *g = &ctx->gl;
    if (!g->caps.parallel_compile) return;
    char defs[512];
    texla_sparse_format f = v->format;
    texla_sparse_sched s = v->sched;
    if (f == TEXLA_SPARSE_BSR) {
        bsr_defines(defs, sizeof defs, v, k, v->bell == 3 && herm);
        texla__prefetch(g, TEXLA__P_SPMV_BSR, defs);
    } else if ((f == TEXLA_SPARSE_CSR || f == TEXLA_SPARSE_ELL || f == TEXLA_SPARSE_SELL) &&
               (s == TEXLA_SCHED_ROW || s == TEXLA_SCHED_LANES || s == TEXLA_SCHED_GROUP ||
                s == TEXLA_SCHED_STREAM)) {
        int lng = v->long_rows > 0 && M > v->long_rows, G = k == 1 ? 4 : 2;
        int lpass = sp_long_pass(lng, nag, v->wg);
        rows_defines(defs, sizeof defs, v, k, G, v->soa, lng, lpass, 0); /* based: made on use */
        texla__prefetch(g, TEXLA__P_SPMV_ROW, defs);
        if (lpass == 1) {
            long_pass_defines(defs, sizeof defs, k, G);
            texla__prefetch(g, TEXLA__P_SPMV_ROW, defs);
        }
    } else {
        return;
    }
    if (v->xbuf)
        texla__prefetch(g, TEXLA__P_SPMV_PACK,
                        unpack_defines(f == TEXLA_SPARSE_BSR ? 1 : v->cols16 ? -1 : 0));
}

static texla_result run_rows(texla_ctx *ctx, const texla_sparse_variant *v, sp_form *f,
                             const texla__obj *x, texla__obj *y, float beta, int add,
                             sp_scratch *scr) {
    int group = v->sched == TEXLA_SCHED_GROUP, stream = v->sched == TEXLA_SCHED_STREAM;
    int L = v->sched == TEXLA_SCHED_LANES ? v->lanes : 1;
    int wg = v->wg, G = f->G;
    long long units;
    if (stream) {
        units = f->nblocks;
    } else if (group) {
        units = (f->ngroups + wg - 1) / wg;
    } else {
        int gpu = wg / L / G;
        if (gpu < 1) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "internal: %d lanes in a workgroup of %d", L, wg);
        units = (f->ngroups + gpu - 1) / gpu;
    }
    int beta_on = add && beta != 0.0f, lng = f->nchunks > 0;
    int lpass = sp_long_pass(lng, f->nag, wg);
    char defs[512];
    rows_defines(defs, sizeof defs, v, f->k, G, f->fv.soa, lng, lpass, f->based);
    int sh = 0;
    while (f->fv.slice && (1 << sh) < f->fv.slice) sh++;
    texla__pass p = {.prog = TEXLA__P_SPMV_ROW, .defines = defs, .dst = &y->t, .src = {&x->t},
                     .draw = TEXLA__DRAW_KERNEL};
    p.i0[0] = f->ngroups;
    p.i0[1] = (int)units;
    p.i0[2] = f->w;
    p.i0[3] = f->nchunks;
    p.i1[0] = f->rs;
    p.i1[1] = f->width;
    p.i1[2] = (int)f->ne;
    p.i1[3] = f->nag;
    p.i2[0] = v->cols16 ? y->lay.nx : f->lt_lr; /* cols16 (no long rows): y's rows' width */
    p.i2[1] = f->lt_ag;
    p.i2[2] = beta_on;
    p.i2[3] = sh;
    p.i3[0] = v->dist;
    p.i3[1] = x->t.w;
    p.i3[2] = f->perm;
    p.i3[3] = f->lens;
    p.f0[0] = beta;
    for (int i = 0; i < 3; i++) bind(&p, f, i, i);
    if (f->lens || stream) bind(&p, f, 3, 3);
    if (f->perm) bind(&p, f, 4, 4);
    if (lng || v->dist == 2) bind(&p, f, 5, 5);
    if (lng) bind(&p, f, 6, 6);
    if (v->xbuf) p.ssbo[7].b = &scr->xlin;
    /* cols16: x in element order */
    texla_result r = v->xbuf ? xlin_fill(ctx, x, scr, v->cols16 ? -1 : 0) : TEXLA_OK;
    if (!r) r = sp_groups_of(ctx, grid(ctx, v, units + f->nchunks), &p);
    if (!r) r = texla__run(&ctx->gl, &p);
    if (!r && lpass == 1) {
        char d3[256];
        long_pass_defines(d3, sizeof d3, f->k, G);
        texla__pass q = {.prog = TEXLA__P_SPMV_ROW, .defines = d3, .dst = &y->t,
                         .draw = TEXLA__DRAW_KERNEL};
        memcpy(q.i0, p.i0, sizeof q.i0);
        memcpy(q.i1, p.i1, sizeof q.i1);
        memcpy(q.i2, p.i2, sizeof q.i2);
        bind(&q, f, 5, 5);
        bind(&q, f, 6, 6);
        r = sp_groups_of(ctx, subgroup_each(ctx, f->nag), &q);
        if (!r) r = texla__run(&ctx->gl, &q);
    }
    return r;
}

static texla_result run_bsr(texla_ctx *ctx, const texla_sparse_variant *v, sp_form *f,
                            const texla__obj *x, texla__obj *y, float beta, int add,
                            sp_scratch *scr) {
    int wg = v->wg, L = v->sched == TEXLA_SCHED_LANES ? v->lanes : 1;
    int S = wg / L * f->k / 4, W = y->t.w;
    if (S < 1) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "internal: %d lanes in a workgroup of %d", L, wg);
    int spr = (W + S - 1) / S;
    long long units = (long long)spr * y->t.h;
    char defs[256];
    bsr_defines(defs, sizeof defs, v, f->k, f->herm);
    texla__pass p = {.prog = TEXLA__P_SPMV_BSR, .defines = defs, .dst = &y->t, .src = {&x->t},
                     .draw = TEXLA__DRAW_KERNEL};
    p.i0[0] = W;
    p.i0[1] = spr;
    p.i0[2] = (int)units;
    p.i0[3] = x->lay.nx;
    p.i1[0] = y->lay.nx;
    p.i1[1] = y->lay.n;
    p.i1[2] = (int)f->ne;
    p.i1[3] = f->nbr;
    p.i2[0] = x->lay.n;
    p.i2[2] = add && beta != 0.0f;
    p.i3[0] = v->dist;
    p.i3[1] = x->t.w;
    p.f0[0] = beta;
    for (int i = 0; i < 3; i++) bind(&p, f, i, i);
    if (f->fv.bell == 3) bind(&p, f, 3, 3); /* the mirrored blocks' places */
    if (v->dist == 2) bind(&p, f, 5, 5);
    if (v->xbuf) p.ssbo[7].b = &scr->xlin;
    texla_result r = v->xbuf ? xlin_fill(ctx, x, scr, f->fv.block * f->k) : TEXLA_OK;
    if (!r) r = sp_groups_of(ctx, grid(ctx, v, units), &p);
    return r ? r : texla__run(&ctx->gl, &p);
}

/* ylin (y's texels as stored, float texel * 4 + channel) at least the size of y, zero when new */
static texla_result ylin_for(texla_ctx *ctx, const texla__obj *y, texla__buf *ylin) {
    size_t need = (size_t)y->t.w * (size_t)y->t.h * 16;
    if (ylin->size >= need) return TEXLA_OK;
    texla__buf_free(&ctx->gl, ylin);
    return texla__buf_make(&ctx->gl, need, NULL, ylin);
}

/* ylin into y (+ beta y when add and beta != 0), leaving ylin zero (spmv_pack.comp) */
static texla_result pack_ylin(texla_ctx *ctx, texla__obj *y, float beta, int add,
                              texla__buf *ylin) {
    size_t texels = (size_t)y->t.w * (size_t)y->t.h;
    texla__pass q = {.prog = TEXLA__P_SPMV_PACK, .dst = &y->t, .draw = TEXLA__DRAW_KERNEL};
    q.i0[0] = (int)texels;
    q.i0[1] = y->t.w;
    q.i0[2] = add && beta != 0.0f;
    q.f0[0] = beta;
    q.ssbo[5].b = ylin;
    texla_result r = sp_groups_of(ctx, (long long)(texels + 255) / 256, &q);
    return r ? r : texla__run(&ctx->gl, &q);
}

#define SEG_ENT 8 /* entries per invocation of the segmented reduction */

static texla_result run_scatter(texla_ctx *ctx, const texla_sparse_variant *v, sp_form *f,
                                const texla__obj *x, texla__obj *y, float beta, int add,
                                texla__buf *ylin) {
    texla_result r = ylin_for(ctx, y, ylin);
    if (r) return r;
    int coo = v->format == TEXLA_SPARSE_COO, wg = v->wg, seg = v->sched == TEXLA_SCHED_SEGMENT;
    long long count = coo ? f->ne : (long long)f->ngroups * f->G;
    long long ninv = (f->ne + SEG_ENT - 1) / SEG_ENT;
    if (seg && !f->buf[6].buf && ninv) { /* the carries, made on first use */
        r = texla__buf_make(&ctx->gl, (size_t)ninv * 2 * (1 + f->k) * 4, NULL, &f->buf[6]);
        if (r) return r;
        f->bytes += (double)ninv * 2 * (1 + f->k) * 4;
    }
    char defs[256];
    snprintf(defs, sizeof defs, "#define K %d\n#define MODE %d\n#define FMT 0\n#define SOA %d\n"
             "#define WG %d\n#define PERM 0\n#define C 4\n#define ENT %d", f->k,
             seg ? 2 : !coo, f->fv.soa && f->k > 1, wg, SEG_ENT);
    texla__pass p = {.prog = TEXLA__P_SPMV_SCATTER, .defines = defs, .src = {&x->t},
                     .draw = TEXLA__DRAW_KERNEL};
    p.i0[0] = (int)count;
    p.i0[1] = y->t.w;
    p.i0[2] = f->rs;
    p.i0[3] = f->width;
    p.i1[2] = (int)f->ne;
    p.i2[0] = f->w;
    if (!coo) bind(&p, f, 0, 0);
    bind(&p, f, 1, 1);
    bind(&p, f, 2, 2);
    if (coo) bind(&p, f, 3, 3);
    p.ssbo[5].b = ylin;
    if (seg) bind(&p, f, 6, 6);
    long long inv = seg ? ninv : count;
    r = sp_groups_of(ctx, (inv + wg - 1) / wg, &p);
    if (!r && count) r = texla__run(&ctx->gl, &p);
    if (!r && seg && count) { /* the carries, element by element in order */
        char d3[256];
        snprintf(d3, sizeof d3, "#define K %d\n#define MODE 3\n#define FMT 0\n#define SOA 0\n"
                 "#define WG %d\n#define PERM 0\n#define C 4\n#define ENT %d", f->k, wg, SEG_ENT);
        texla__pass q = p;
        q.defines = d3;
        q.i2[1] = (int)ninv;
        r = sp_groups_of(ctx, (2 * ninv + wg - 1) / wg, &q);
        if (!r) r = texla__run(&ctx->gl, &q);
    }
    return r ? r : pack_ylin(ctx, y, beta, add, ylin);
}

/* CSR by the merge path (glsl/kernels/spmv_merge.comp): the tiles, writing the groups of y
 * each holds whole, then the groups split between tiles. No pass of its own moves the rows
 * into y (H100, R-MAT: ylin and spmv_pack.comp's pass took 38 of 201 us). With tiles, the
 * stored form's units of 32 x E entries (spformats.c, make_tiles), wg / 32 a tile, their splits
 * made with the form. */
#define MERGE_SPLIT 256 /* the splits' spacing in items: the smallest tile (E 4 x WG 64) */
static texla_result run_merge(texla_ctx *ctx, const texla_sparse_variant *v, sp_form *f,
                              const texla__obj *x, texla__obj *y, float beta, int add) {
    long long R = (long long)f->ngroups * f->G, K = f->k;
    int wg = v->wg, E = v->lanes;
    char kdefs[64];
    snprintf(kdefs, sizeof kdefs, "#define K %lld\n#define SOA %d\n", K, f->fv.soa && K > 1);
    texla_result r = TEXLA_OK;
    long long M, per; /* splits, and splits a tile */
    if (v->tiles) {
        M = f->ne / (32LL * E);
        per = wg / 32;
    } else {
        long long items = R + f->ne;
        M = (items + MERGE_SPLIT - 1) / MERGE_SPLIT; /* splits every MERGE_SPLIT items */
        per = wg * E / MERGE_SPLIT;
        if (M > 0x3fffffffLL || (K + 3) * M + 2 + K * R > 0x7fffffffLL)
            return texla__fail(ctx, TEXLA_ERR_LIMIT, "a merge-path product of %lld tiles", M);
        /* the tiles' open rows and sums, the splits (made once for the stored form: every tile
         * size is a multiple of MERGE_SPLIT), the rows' values; K words a sum or value */
        size_t cbytes = (size_t)M * 4 * (size_t)(1 + K) + ((size_t)M + 1) * 8 + (size_t)(R * K) * 4;
        if (!f->merge_split) {
            texla__buf_free(&ctx->gl, &f->buf[6]);
            r = texla__buf_make(&ctx->gl, cbytes, NULL, &f->buf[6]);
            if (r) return r;
            f->bytes += (double)cbytes;
            char sdefs[128];
            snprintf(sdefs, sizeof sdefs, "%s#define MODE 2\n#define WG 256\n#define E 1", kdefs);
            texla__pass s = {.prog = TEXLA__P_SPMV_MERGE, .defines = sdefs, .draw = TEXLA__DRAW_KERNEL};
            s.i0[0] = (int)R;
            s.i0[1] = (int)f->ne;
            s.i0[3] = (int)M;
            bind(&s, f, 0, 0);
            s.ssbo[6].b = &f->buf[6];
            r = sp_groups_of(ctx, (M + 1 + 255) / 256, &s);
            if (!r) r = texla__run(&ctx->gl, &s);
            if (r) return r;
            f->merge_split = 1;
        }
    }
    long long tiles = (M + per - 1) / per;
    char defs[192];
    snprintf(defs, sizeof defs, "%s#define MODE %d\n#define WG %d\n#define E %d", kdefs,
             v->tiles ? 3 : 0, wg, E);
    texla__pass p = {.prog = TEXLA__P_SPMV_MERGE, .defines = defs, .src = {&x->t},
                     .dst = &y->t, .draw = TEXLA__DRAW_KERNEL};
    p.i0[0] = (int)R;
    p.i0[1] = (int)f->ne;
    p.i0[2] = (int)tiles;
    p.i0[3] = (int)M;
    p.i1[0] = (int)per;
    p.i1[1] = f->w;
    p.i1[2] = (int)((K + 3) * M + 2);
    p.i2[2] = add && beta != 0.0f;
    p.f0[0] = beta;
    for (int i = 0; i < 4; i++) bind(&p, f, i, i); /* (tiles: the row ends' bits at 3) */
    p.ssbo[6].b = &f->buf[6];
    r = sp_groups_of(ctx, tiles, &p);
    if (!r) r = texla__run(&ctx->gl, &p);
    if (!r && tiles > 1) {
        char qdefs[128]; /* one program for every E; an invocation a tile */
        snprintf(qdefs, sizeof qdefs, "%s#define MODE 1\n#define WG 256\n#define E 1", kdefs);
        texla__pass q = p;
        q.defines = qdefs;
        q.src[0] = NULL;
        r = sp_groups_of(ctx, (tiles + 255) / 256, &q);
        if (!r) r = texla__run(&ctx->gl, &q);
    }
    return r;
}

texla_result sp_run(texla_ctx *ctx, const texla_sparse_variant *v, sp_form *f,
                    const texla__obj *x, texla__obj *y, float beta, int add, sp_scratch *scr) {
    texla__buf *ylin = &scr->ylin;
    switch (v->format) {
    case TEXLA_SPARSE_POINTS:
    case TEXLA_SPARSE_GATHER: return sp_fragment_run(ctx, f, x, y, beta, add);
    case TEXLA_SPARSE_BSR: return run_bsr(ctx, v, f, x, y, beta, add, scr);
    case TEXLA_SPARSE_COO:
    case TEXLA_SPARSE_CSC: return run_scatter(ctx, v, f, x, y, beta, add, ylin);
    default:
        if (v->sched == TEXLA_SCHED_MERGE) return run_merge(ctx, v, f, x, y, beta, add);
        return run_rows(ctx, v, f, x, y, beta, add, scr);
    }
}
