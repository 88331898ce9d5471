/* sptune.c - choosing a sparse product's variant (seed 002's joint layout and schedule
 * tuning): the rule used when nothing was timed, the candidates the row statistics suggest,
 * timing them on this device (GPU timer queries; the wall clock around glFinish on software
 * renderers), the cross-check of every candidate's y against a float64 reference on the host
 * (only correct variants may win), and the tuning cache's keys and values. No GL here.
 *
 * How a product is tuned (the cost is CPU work on the host: building and uploading storages,
 * the reference, reading y back; the GPU's runs are short):
 *  - candidates from the row statistics; padded storages moving more than twice CSR's bytes are
 *    not built, and row schedules that leave more entries of the longest row to one invocation
 *    than serial_cap are not tried. They are ordered by prior: the rule's variant and its
 *    storage first, then the storages by the bytes they move; a storage is built once for all
 *    its candidates. Every candidate's kernel is handed to the driver's compiler threads first.
 *  - the budget (a deadline per product): once past it no new storage is started (the first
 *    two always are); the untried candidates are reported skipped.
 *  - each candidate: y checked against the float64 reference, then batches of about 0.5 ms
 *    until two in a row agree within 3% (at most 60 ms; a few batches on software renderers,
 *    whose timer is the wall clock around glFinish): right after the host built, uploaded or
 *    freed a storage the GPU ran up to 3.5x slow for a few hundred ms (H100), which ranked
 *    storages wrongly. Its first-round time is the median of 3 batches. A candidate whose
 *    first product takes HOPELESS times the best so far is kept at that one time.
 *    On the H100 this was not enough: the first round's times still read 2-4x the warm
 *    product's, unevenly (the clocks follow the load, and the bursts between the host's builds
 *    are short); the final round's warm-up (below) is what made the reported times match the
 *    warm product's within 1-2% and the choices right (fem3x3: BSR b = 3 at 0.046 ms, where
 *    the first tuner picked CSR at 0.079). Since then the GPU is also kept busy while the host
 *    builds a storage (sp_spin, for 0.6 of the last build's time, at most 150 ms; its rest
 *    waited for): the first round's times then matched the final round's (H100). But a GPU
 *    idle for a second and a half lowers its clocks and raises them only under a sustained
 *    load (H200: 345-960 MHz of 1980 through A x's first round, every time 1.7-3.6x the warm
 *    one): after each build the clocks are brought up by spins back to back until the spin's
 *    rate reaches the fastest this context has seen (sp_heat, the clock probe; heat).
 *  - a second look: with the GPU warm after the first round, its candidates short of
 *    HOPELESS times the best on kept storages are timed again and keep the lower time.
 *  - the forms of the best KEEP storages stay alive (freed, and the storage retried, when a new
 *    one does not fit): the workgroup sizes and fixed grids of the best two run on them
 *    without a rebuild (fixed grids only where row lengths vary); past the deadline only the
 *    best two's other workgroup sizes, where their storages are kept (a storage of SELL rows
 *    sorted within each workgroup depends on the size: those are not built then, and where
 *    such a storage is the best, the fastest other candidate on a kept storage takes its
 *    place).
 *  - the final round: the best FINALISTS (at most FINAL_PER_STORAGE per storage, two sizes of
 *    one variant) and the first's other workgroup sizes run back to back for FINAL_WARM_MS
 *    after the clock probe (the GPU's clocks follow its load: the short bursts between the
 *    host's builds ran at a fraction of them, so first-round times read 2-4x the warm ones,
 *    unevenly), then timed again, interleaved, FINAL_ROUNDS times, each keeping its best
 *    median; the choice is the fastest of them on those times, which are the ones reported
 *    (texla_sparse_trial.final) and cached. */
#include "storage/sparse.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 2: variants have xbuf, and CSR the stream schedule; 3: cols16, rowsort; 4: cols8 (far8);
 * 5: the merge path writes y itself and is the rule for skewed rows (choices timed before it
 * ranked the merge path at 1.7x its time now: retuned); 6: the long rows' count (the rule's
 * merge path for many long rows); 7: rows past serial_cap skewed, and row schedules past it not
 * tried (power-law rows of a few thousand entries had been tuned to 12x the merge path); 8: the
 * merge path a candidate for complex and quaternion entries and for rows of lengths far apart;
 * 9: the merge path's complex and quaternion candidates on entries in planes (SoA); 10: CSR and
 * BSR lanes past 32 (8 for BSR) for few, very long rows (a dense matrix stored sparse had been
 * tuned to 2x cuSPARSE's time), and the runs statistic (x-buffer twins for columns in runs);
 * 11: A' x's own nearness (cnear: a rectangular A's was read for both products); 12: CSR's
 * 16- and 8-bit columns also from a column of each row's own (wide16, wide8); 13: the merge
 * path's split groups an invocation a tile, and its real candidate of 4 items at 128; 14: CSR's
 * vec4 (a row's entries four at a time), the field v4; 15: the merge path on tiles of entries
 * (tiles), the field tl */
#define KEY_VERSION 15

/* a row schedule whose longest row's chain of loads takes far longer than a whole product
 * (H100, circuit's row of 834880 entries: 170 ms by one invocation, 86 by 4 lanes, where the
 * tuned product takes 0.14; the tuner spent its budget timing them). Such a chain costs
 * about 0.8 us an entry on the H100 whatever the rest of the product (power-law rows of mean
 * 7.9, the longest 2608, 16.5M entries: SELL-32 a row 2.2 ms, where the merge path takes
 * 0.18; the tuner's budget went to rows of that kind and that was its choice), so the chain
 * is capped at SERIAL_SOFT entries, or 64 times the mean row where rows are that long
 * anyway (every invocation's chain then about as long), and rows past the cap are skewed */
#define SERIAL_MAX 16384.0
#define SERIAL_SOFT 1024.0
static double serial_cap(double mean) { return fmin(SERIAL_MAX, fmax(SERIAL_SOFT, 64 * mean)); }

/* more long rows (past SP_LONG_ROW entries) than this: the merge path's, whatever the longest
 * (a few long rows: chunks) */
#define MANY_LONG 256

static const char *const fmt_names[] = {"auto", "points", "gather", "coo", "csr",
                                        "csc",  "ell",    "sell",   "bsr"};
static const char *const sched_names[] = {"auto", "row",  "lanes",  "group",
                                          "atomic", "draw", "segment", "merge", "stream"};

/* ---- the cache ---- */

void sp_tune_key(const sp_stats *st, int entry, int op, int compute, char *key, size_t n) {
    /* the shape statistics: sizes, row and column lengths, block fill; the backend's kind and
     * whether scatter forms were allowed (bit 1 of compute) */
    texla__snprintf_c(key, n, /* the same key whatever LC_NUMERIC the application set */
             "spmv%d %s %s%s e%d r%d c%d nz%lld rows %d..%d m%.4g sd%.4g em%d cols %d m%.4g "
             "sd%.4g em%d fill %.3f %.3f %.3f near %.2f %.2f runs %.2f %.2f far16 %lld far8 %lld "
             "wide %lld %lld sym %d long %d %d",
             KEY_VERSION, op ? "T" : "N", compute & 1 ? "compute" : "fragment",
             compute & 2 ? "+scatter" : "", entry, st->rows, st->cols, st->nnz, st->lmin, st->lmax,
             st->mean, st->sd, st->empty, st->cmax, st->cmean, st->csd, st->cempty, st->fill[2],
             st->fill[3], st->fill[4], st->near, st->cnear, st->runs, st->cruns, st->far16,
             st->far8, st->wide16, st->wide8, st->sym, st->nlong, st->cnlong);
}

/* the index of the name s[0..len) among names[1..n) ("auto" is never cached), or -1 */
static int name_index(const char *s, size_t len, const char *const *names, int n) {
    for (int i = 1; i < n; i++)
        if (strlen(names[i]) == len && !memcmp(s, names[i], len)) return i;
    return -1;
}

/* The cache's value, as sp_tune_store writes it: "fmt=sell sched=group L=0 wg=128 dist=0 bpsm=0
 * C=32 sigma=1024 b=0 bell=0 soa=0 long=0 chunk=0 xb=0 c16=0 c8=0 rs=0 v4=0 tl=0 us=12.5", every
 * field in that order, separated by spaces. Each number is read whole and checked (sscanf's %d
 * on a number out of an int's range is undefined behaviour): an integer field is an optional sign
 * and decimal digits within an int's range, us a finite number >= 0, and nothing else but
 * spaces follows us. NULL when every field is there and well formed, else what is wrong (into
 * bad, n bytes) */
static const char *parse_value(const char *s, texla_sparse_variant *v, double *us, char *bad,
                               size_t n) {
    memset(v, 0, sizeof *v);
    *us = 0;
    static const char *const keys[] = {"fmt", "sched", "L",    "wg", "dist", "bpsm",
                                       "C",   "sigma", "b",    "bell", "soa", "long",
                                       "chunk", "xb",  "c16",  "c8", "rs",   "v4", "tl",
                                       "us"};
    /* the integer fields, keys[2..18] */
    int *const ints[] = {&v->lanes, &v->wg,    &v->dist, &v->bpsm,      &v->slice,
                         &v->sigma, &v->block, &v->bell, &v->soa,       &v->long_rows,
                         &v->long_chunk, &v->xbuf, &v->cols16, &v->cols8, &v->rowsort,
                         &v->vec4, &v->tiles};
    enum { NKEYS = sizeof keys / sizeof keys[0] };
    const char *p = s;
    for (int i = 0; i < NKEYS; i++) {
        size_t kn = strlen(keys[i]);
        int spaced = i == 0 || *p == ' '; /* at least one space between fields */
        while (i > 0 && *p == ' ') p++;
        if (!spaced || strncmp(p, keys[i], kn) != 0 || p[kn] != '=') {
            snprintf(bad, n, "no field %s= where expected (at \"%.40s\")", keys[i], p);
            return bad;
        }
        const char *val = p + kn + 1, *end = val + strcspn(val, " ");
        int len = (int)(end - val < 40 ? end - val : 40); /* what the message quotes */
        p = end;
        if (i < 2) { /* a storage format's or a schedule's name */
            int f = i ? name_index(val, (size_t)(end - val), sched_names, TEXLA_SCHED_STREAM + 1)
                      : name_index(val, (size_t)(end - val), fmt_names, TEXLA_SPARSE_NFORMATS);
            if (f < 0) {
                snprintf(bad, n, "%s=\"%.*s\" names no %s", keys[i], len, val,
                         i ? "schedule" : "storage format");
                return bad;
            }
            if (i) v->sched = (texla_sparse_sched)f;
            else v->format = (texla_sparse_format)f;
            continue;
        }
        /* a number: from the '=' on (strtoll and strtod would skip spaces: "wg= 5" has an empty
         * value) to the field's end, whole (not "12abc") */
        int ok = val < end && (*val == '-' || *val == '+' || isdigit((unsigned char)*val) ||
                               (i == NKEYS - 1 && *val == '.'));
        int saved = errno, range = 1;
        char *stop = NULL;
        errno = 0;
        if (ok && i == NKEYS - 1) { /* us: microseconds */
            double d = texla__strtod_c(val, &stop); /* '.' whatever the locale */
            ok = stop == end;
            range = errno != ERANGE && isfinite(d) && d >= 0;
            if (ok && range) *us = d;
        } else if (ok) {
            long long x = strtoll(val, &stop, 10);
            ok = stop == end;
            range = errno != ERANGE && x >= INT_MIN && x <= INT_MAX;
            if (ok && range) *ints[i - 2] = (int)x;
        }
        errno = saved;
        if (!ok || !range) {
            snprintf(bad, n, "%s=\"%.*s\" is %s", keys[i], len, val,
                     !ok ? (i == NKEYS - 1 ? "not a number" : "not a decimal integer")
                         : (i == NKEYS - 1 ? "not a finite number of microseconds >= 0"
                                           : "out of an int's range"));
            return bad;
        }
    }
    while (*p == ' ') p++;
    if (*p) {
        snprintf(bad, n, "text follows us: \"%.40s\"", p);
        return bad;
    }
    return NULL;
}

int sp_tune_cached(texla_ctx *ctx, const char *key, int k, int op, texla_sparse_variant *v,
                   double *us) {
    char val[512], bad[160], why_buf[200];
    if (!texla__tune_get(ctx, key, val, sizeof val)) return 0;
    const char *why = NULL, *wrong = parse_value(val, v, us, bad, sizeof bad);
    if (wrong) {
        snprintf(why_buf, sizeof why_buf, "is not a sparse variant (%s)", wrong);
        why = why_buf;
    } else {
        texla_sparse_variant n = *v;
        sp_variant_norm(&n);
        if (memcmp(&n, v, sizeof n)) why = "is not a normalized variant";
        else sp_variant_check(ctx, v, k, op, &why);
    }
    if (why) {
        texla__tune_invalid(ctx, key, why);
        return 0;
    }
    return 1;
}

void sp_tune_store(texla_ctx *ctx, const char *key, const texla_sparse_variant *v, double us) {
    char val[256];
    texla__snprintf_c(val, sizeof val, /* '.' whatever the locale */
             "fmt=%s sched=%s L=%d wg=%d dist=%d bpsm=%d C=%d sigma=%d b=%d bell=%d soa=%d "
             "long=%d chunk=%d xb=%d c16=%d c8=%d rs=%d v4=%d tl=%d us=%.3f",
             fmt_names[v->format], sched_names[v->sched], v->lanes, v->wg, v->dist, v->bpsm,
             v->slice, v->sigma, v->block, v->bell, v->soa, v->long_rows, v->long_chunk, v->xbuf,
             v->cols16, v->cols8, v->rowsort, v->vec4, v->tiles, us);
    texla__tune_put(ctx, key, val);
}

/* ---- the rule ---- */

static int pow2_at_least(double v, int lo, int hi) {
    int p = lo;
    while (p < hi && p < v) p *= 2;
    return p;
}

/* the workgroup of a lanes schedule: 128 invocations, or the lanes of 4 rows where that is more
 * (a workgroup holds a whole texel's rows) */
static int lanes_wg(int lanes) { return 4 * lanes > 128 ? 4 * lanes : 128; }

/* BSR's lanes a row that fill the GPU with invocations (about 2^18 of them: an H200 holds
 * 132 x 2048) where n rows have about mb blocks each, at least 3 blocks a lane; 0 where 8 lanes
 * or fewer do (FEM's short block rows) */
static int bsr_lanes_fill(int n, double mb) {
    int l = 8;
    while (l < 128 && (double)n * l < (1 << 18) && 3.0 * 2 * l <= mb) l *= 2;
    return l > 8 ? l : 0;
}

/* the lanes a row the candidates start from: half the mean row, a power of two in 2..32 */
static int lanes_of_mean(const sp_stats *st, int op) {
    return pow2_at_least((op ? st->cmean : st->mean) / 2, 2, 32);
}

texla_sparse_variant sp_rule(const texla_ctx *ctx, const sp_stats *st, int k, int entry, int op,
                             int compute) {
    texla_sparse_variant v = {0};
    if (!compute) {
        v.format = TEXLA_SPARSE_POINTS;
        sp_variant_norm(&v);
        return v;
    }
    double m = op ? st->cmean : st->mean, sd = op ? st->csd : st->sd;
    int M = op ? st->cmax : st->lmax, n = op ? st->cols : st->rows;
    int nl = op ? st->cnlong : st->nlong;
    int skewed = M > serial_cap(m);
    /* empty rows at most a quarter of the entries: the merge path's tiles (a stand-in each) */
    int few_empty = 4LL * (op ? st->cempty : st->empty) <= st->nnz;
    v.wg = 128;
    int best_b = 0;
    if (k <= 2)
        for (int b = 2; b <= 4; b++)
            if (st->fill[b] >= 0.9 && (!best_b || st->fill[b] > st->fill[best_b])) best_b = b;
    if (entry == TEXLA_ENTRY_BLOCK3 && st->fill[3] >= 0.5) best_b = 3;
    if (best_b) {
        v.format = TEXLA_SPARSE_BSR;
        v.sched = TEXLA_SCHED_ROW;
        v.block = best_b;
        v.bell = sd <= 0.25 * m + 1;
        int lb = bsr_lanes_fill(n, m / best_b);
        if (lb > 8) {
            /* few rows of many blocks (a dense matrix stored sparse): lanes enough to fill the
             * GPU, blocks by row (H200, 4096 x 4096 every entry stored: BSR 2 a row 1990 us,
             * block CSR 64 lanes 31.0, block ELL 32 lanes 173; cuSPARSE 45.4) */
            v.sched = TEXLA_SCHED_LANES;
            v.lanes = lb > 64 ? 64 : lb;
            v.bell = 0;
            v.wg = lanes_wg(v.lanes);
        }
    } else if (m > 48 && (n < 32768 || !skewed)) {
        /* long rows: lanes, more of them where rows are few, to keep the GPU busy (H100,
         * 2^17 rows of 128: 16 lanes 121.7 us, 32 131.8, where ELL by groups takes 275;
         * 2^16 rows of 64..320: 32 lanes 136.6, 16 143.3, SELL-32 by groups 703). Where rows
         * are many and skewed, the merge path or chunks below */
        v.format = TEXLA_SPARSE_CSR;
        v.sched = TEXLA_SCHED_LANES;
        v.lanes = pow2_at_least(n < 32768 ? m / 4 : m / 8, 2, 32);
        /* and past 32 where the rows are few and very long (H200, 4096 rows of 4096 random
         * columns: 32 lanes 151.7 us, 128 134.8; 16384 rows of 1024: 32 lanes 131.4, 64 125.8,
         * 128 139.7) */
        if (n < 32768 && m / 16 > 32) v.lanes = pow2_at_least(m / 16, 32, 128);
        v.wg = lanes_wg(v.lanes);
        /* the longest row in chunks where its lanes would take it too long */
        if ((double)M / v.lanes > serial_cap(m)) v.long_rows = (int)fmin(fmax(256, 16 * ceil(m)), 1 << 30);
    } else if (M <= 1.25 * m + 2 && M <= 1.4 * m && M <= SERIAL_MAX) {
        /* rows of about one length: ELL, padded 40% at most; past that SELL below (H200, 4M x
         * 256K of 4..12 random columns, ELL padded 50%: ELL by groups 274.7 us, SELL-32 a row
         * 253.8; 4M rows of 2..6: 159.2 against 151.1. As the rule's storage, the first built,
         * ELL took the tall matrix's whole budget: 2.1 s for 419 MB, nothing else timed) */
        v.format = TEXLA_SPARSE_ELL;
        v.sched = TEXLA_SCHED_GROUP;
    } else if ((skewed && (M <= 65536 || nl > MANY_LONG || (op ? st->cnear : st->near) < 0.5) &&
                (k == 1 || few_empty)) ||
               (!skewed && k == 1 && (M > 8 * m + 64 || sd > m) && few_empty)) {
        /* rows of every length up to some tens of thousands (power-law graphs): the merge
         * path, whose work per invocation is the same whatever the rows (H100, R-MAT: 0.165
         * ms, where CSR with its long rows in chunks takes 0.42). Past 65536 entries where long
         * rows are many, or the columns scattered: where a few very long rows hold many entries
         * and the rest are short rows near the diagonal, circuit (a row of 834880 entries, 10
         * rows past 256) took 0.141 ms by the merge path, 0.116 by CSR lanes with its long rows
         * in chunks and x from a buffer, the rule below; rows of Pareto(1.5) lengths (2^21 rows,
         * the longest 193582, 2713 past 256) took 0.189 by the merge path, 0.342 by that rule;
         * 2^20 rows of 8 random columns and 64 of 2^17 (dense_rows) 0.143 by the merge path,
         * 0.183 by that rule (no x buffer for scattered columns). On tiles of entries where
         * empty rows (a stand-in entry each) are at most a quarter of the entries (H200, R-MAT,
         * 1.24M of 2^21 rows empty: 136 us against 146-152; complex R-MAT 149 against 193,
         * where the merge path had lost to CSR lanes with chunks: not the rule for compound
         * entries then). Also real rows far apart though none past the serial cap (power-law
         * rows of mean 7.7, the longest 600; rows of 3..128 in two groups; half the rows
         * empty): tiles were every tuned choice of these (H200, 15-21M entries: 0.138-0.178
         * ms), where SELL-32 by groups, the rule before, took 0.712 ms on the power-law rows
         * (slices padded 68%) and 0.144 on half-empty rows; built first as the rule's storage,
         * the tiles are also timed before the tuner's budget runs out (that tuning had built
         * SELL, then CSR's two storages, and skipped them) */
        v.format = TEXLA_SPARSE_CSR;
        v.sched = TEXLA_SCHED_MERGE;
        v.lanes = 4;
        v.wg = ctx->gl.caps.wg_invocations >= 512 ? 512 : 128;
        if (few_empty) {
            v.tiles = 1;
            v.wg = 256;
            v.soa = k > 1;
        }
    } else if (skewed) {
        /* a few very long rows (circuits): CSR, unpadded, with the long rows in workgroup
         * chunks (H100: rmat 0.57 ms; SELL there pads 183%, and plain CSR takes 3-11 ms) */
        v.format = TEXLA_SPARSE_CSR;
        v.sched = TEXLA_SCHED_LANES;
        v.lanes = 4;
        v.long_rows = 256;
    } else {
        v.format = TEXLA_SPARSE_SELL;
        v.sched = TEXLA_SCHED_GROUP;
        v.slice = 32;
        v.sigma = 1024;
    }
    /* big real matrices whose columns lie near the diagonal: x from a storage buffer (H100:
     * every row schedule and BSR gained 10-20% on the random band, FEM 3x3 blocks and circuit,
     * 15-20M entries; the copy of x is a pass of its own, not worth it for small products) */
    v.xbuf = k == 1 && (op ? st->cnear : st->near) >= 0.5 && st->nnz >= (1 << 20);
    /* and ELL, SELL, CSR lanes with 16-bit columns where every column is within their reach,
     * 8-bit where those reach (H100, the random band's SELL: 82.7 us against 97.3 with 32-bit
     * columns; 8-bit against 16-bit by groups, 71.3 against 79.8; a band of 1025 columns, CSR
     * with 16 lanes, 66.4 against 75.1) */
    v.cols16 = v.xbuf && st->far16 == 0 && !v.long_rows &&
               (v.format == TEXLA_SPARSE_ELL || v.format == TEXLA_SPARSE_SELL ||
                v.format == TEXLA_SPARSE_CSR);
    v.cols8 = v.cols16 && st->far8 == 0;
    sp_variant_norm(&v);
    return v;
}

/* ---- the reference ---- */

typedef struct ref {
    double *y, *bound; /* per real element of y */
    long long n;
} ref;

/* a x for entries of k doubles */
static void emul_d(int k, const double *a, const double *x, double *o) {
    if (k == 1) {
        o[0] = a[0] * x[0];
    } else if (k == 2) {
        o[0] = a[0] * x[0] - a[1] * x[1];
        o[1] = a[0] * x[1] + a[1] * x[0];
    } else {
        o[0] = a[0] * x[0] - a[1] * x[1] - a[2] * x[2] - a[3] * x[3];
        o[1] = a[0] * x[1] + a[1] * x[0] + a[2] * x[3] - a[3] * x[2];
        o[2] = a[0] * x[2] - a[1] * x[3] + a[2] * x[0] + a[3] * x[1];
        o[3] = a[0] * x[3] + a[1] * x[2] - a[2] * x[1] + a[3] * x[0];
    }
}

/* y = op(A) x in float64, and per element a bound on float32 rounding: (2 k len + 8) u sum of
 * |a_c| |x_d| over the terms */
static int reference(const sp_csr *a, int op, const float *x, ref *rf) {
    int k = a->k;
    long long n = (long long)(op ? a->cols : a->rows) * k;
    rf->n = n;
    rf->y = calloc(texla__at_least_one(n), sizeof *rf->y);
    rf->bound = calloc(texla__at_least_one(n), sizeof *rf->bound);
    if (!rf->y || !rf->bound) {
        free(rf->y), free(rf->bound);
        rf->y = rf->bound = NULL;
        return 0;
    }
    if (!op) { /* row by row, the sums in registers (the same order of terms) */
        for (int i = 0; i < a->rows; i++) {
            double acc[4] = {0, 0, 0, 0}, mag = 0;
            for (int e = a->ptr[i]; e < a->ptr[i + 1]; e++) {
                const float *av = a->val + (size_t)e * k, *xv = x + (size_t)a->col[e] * k;
                if (k == 1) {
                    acc[0] += (double)av[0] * xv[0];
                    mag += fabs((double)av[0]) * fabs((double)xv[0]);
                    continue;
                }
                double ad[4], xd[4], o[4], aa = 0, xa = 0;
                for (int c = 0; c < k; c++) {
                    ad[c] = av[c], xd[c] = xv[c];
                    aa += fabs(ad[c]), xa += fabs(xd[c]);
                }
                emul_d(k, ad, xd, o);
                for (int c = 0; c < k; c++) acc[c] += o[c];
                mag += aa * xa;
            }
            double scale = (2.0 * k * (a->ptr[i + 1] - a->ptr[i]) + 8) * 5.9604644775390625e-08;
            for (int c = 0; c < k; c++) {
                rf->y[(size_t)i * k + c] = acc[c];
                rf->bound[(size_t)i * k + c] = mag * scale;
            }
        }
        return 1;
    }
    int *cnt = calloc(texla__at_least_one(a->cols), sizeof *cnt);
    if (!cnt) {
        free(rf->y), free(rf->bound);
        rf->y = rf->bound = NULL;
        return 0;
    }
    for (int i = 0; i < a->rows; i++)
        for (int e = a->ptr[i]; e < a->ptr[i + 1]; e++) {
            int out = op ? a->col[e] : i, in = op ? i : a->col[e];
            double av[4], xv[4], o[4], aa = 0, xa = 0;
            for (int c = 0; c < k; c++) {
                av[c] = a->val[(size_t)e * k + c];
                if (op && c) av[c] = -av[c];
                xv[c] = x[(size_t)in * k + c];
                aa += fabs(av[c]);
                xa += fabs(xv[c]);
            }
            emul_d(k, av, xv, o);
            for (int c = 0; c < k; c++) {
                rf->y[(size_t)out * k + c] += o[c];
                rf->bound[(size_t)out * k + c] += aa * xa;
            }
            cnt[out]++;
        }
    for (long long i = 0; i < n; i++)
        rf->bound[i] *= (2.0 * k * cnt[i / k] + 8) * 5.9604644775390625e-08;
    free(cnt);
    return 1;
}

/* 1 when y (float32, n elements) is within the bound of the reference everywhere */
static int matches(const ref *rf, const float *y) {
    for (long long i = 0; i < rf->n; i++) {
        double r = rf->y[i], g = y[i];
        if (!isfinite(r) || !isfinite(rf->bound[i]) || fabs(r) > 3.4e38) {
            if (isfinite(g) && fabs(r) <= 3.4e38 && isfinite(r)) return 0;
            if (isnan(r) && !isnan(g) && isfinite(g)) return 0;
            continue;
        }
        if (!(fabs(g - r) <= rf->bound[i] + 1e-37)) return 0;
    }
    return 1;
}

/* The reference made on a thread of its own while the host builds the first storage (H200
 * host, 16-19M entries: 0.17-0.66 s a product, which came before the first build); waited
 * for at the first check */
typedef struct ref_job {
    const sp_csr *m;
    int op;
    const float *x;
    ref *rf;
    int ok, running;
    pthread_t th;
} ref_job;

static void *ref_work(void *p) {
    ref_job *j = p;
    j->ok = reference(j->m, j->op, j->x, j->rf);
    return NULL;
}

static void ref_start(ref_job *j) {
    j->running = pthread_create(&j->th, NULL, ref_work, j) == 0;
    if (!j->running) ref_work(j); /* no thread: here and now */
}

/* 1 when the reference is made (waited for) */
static int ref_ready(ref_job *j) {
    if (j->running) pthread_join(j->th, NULL);
    j->running = 0;
    return j->ok;
}

/* ---- candidates ---- */

typedef struct cand {
    texla_sparse_variant v;
    int plane;
    texla_sparse_variant fv; /* storage */
    double us;               /* the first round's median (the lower after a second look);
                                then, for finalists, the final time */
    double first_us;         /* its first median (the first round's, or a later candidate's) */
    int looks;               /* times measured: the first round, a second look, final rounds */
    double bytes, padding;
    double prior;            /* the storage's bytes, worked out from the row lengths */
    double build_ms, at_ms;  /* its storage's build (0: built for another), and when it was
                                first timed, since the product's tuning began */
    int ok, tried, final;
} cand;

typedef struct clist {
    cand *c;
    int n, cap;
    struct cost {
        int plane;
        texla_sparse_variant fv;
        double bytes;
    } cost[64]; /* storages sized so far */
    int ncost;
} clist;

/* the bytes of storage fv of plane (-1: does not apply), sized once per storage */
static double storage_bytes(clist *L, const sp_tune_req *q, int plane,
                            const texla_sparse_variant *fv) {
    for (int i = 0; i < L->ncost; i++)
        if (L->cost[i].plane == plane && sp_format_same(&L->cost[i].fv, fv)) return L->cost[i].bytes;
    double bytes = -1, pad = 0;
    sp_form_cost(q->pl[plane], fv, &bytes, &pad);
    if (L->ncost < (int)(sizeof L->cost / sizeof L->cost[0]))
        L->cost[L->ncost++] = (struct cost){plane, *fv, bytes};
    return bytes;
}

/* entries of the longest row that one invocation of v adds one after another (0: the
 * schedule splits long rows itself) */
static double serial_entries(const texla_sparse_variant *v, int M) {
    int rowfmt = v->format == TEXLA_SPARSE_CSR || v->format == TEXLA_SPARSE_ELL ||
                 v->format == TEXLA_SPARSE_SELL;
    if (!rowfmt) return 0;
    double n = v->long_rows > 0 && v->long_rows < M ? v->long_rows : M;
    switch (v->sched) {
    case TEXLA_SCHED_ROW:
    case TEXLA_SCHED_GROUP: return n;
    case TEXLA_SCHED_LANES: return n / (v->lanes > 0 ? v->lanes : 1);
    default: return 0;
    }
}

/* v with x from a storage buffer into *t: 0 where v's schedule cannot have it */
static int xbuf_twin(const texla_sparse_variant *v, texla_sparse_variant *t) {
    *t = *v;
    t->xbuf = 1;
    sp_variant_norm(t);
    return t->xbuf;
}

/* v with its columns as offsets from their row (CSR: or from a column of the row's own) in
 * `bits` (16 or 8) bits into *t: 0 where v cannot have them (the format, the schedule, long
 * rows, or a column out of their reach in the plane v reads) */
static int short_twin(const texla_sparse_variant *v, const sp_tune_req *q, int bits,
                      texla_sparse_variant *t) {
    *t = *v;
    t->cols16 = 1;
    t->cols8 = bits == 8;
    sp_variant_norm(t);
    int plane;
    sp_format_of(t, q->op, &plane);
    const sp_stats *st = q->pl[plane] ? q->pl[plane]->st : NULL;
    return t->cols16 && !t->long_rows && q->k == 1 && st &&
           ((bits == 8 ? st->far8 : st->far16) == 0 ||
            (t->format == TEXLA_SPARSE_CSR && (bits == 8 ? st->wide8 : st->wide16) == 0));
}

/* v with the narrowest column offsets that reach (8 bits, else 16) into *t; 0: none */
static int c16_twin(const texla_sparse_variant *v, const sp_tune_req *q, texla_sparse_variant *t) {
    return short_twin(v, q, 8, t) || short_twin(v, q, 16, t);
}

/* x-buffer twins are tried for real entries whose columns mostly lie near the diagonal, or in
 * runs within their rows wherever those lie (H200, 2^20 rows each one run of 16 columns at a
 * random start: CSR 8 lanes 95.4 us from the texture, 92.7 from the buffer, 4 lanes 82.2) */
static int twins_wanted(const sp_tune_req *q) {
    const sp_stats *st = q->pl[0]->st; /* A's: its rows for A x, its columns for A' x */
    return q->compute && q->k == 1 &&
           ((q->op ? st->cnear : st->near) >= 0.5 || (q->op ? st->cruns : st->runs) >= 0.5);
}

/* neighbouring rows of the product share columns: A's columns in runs for A x (rows i and i + 1
 * both hold column j), its rows' runs for A' x. SELL's rows sorted with x from a buffer is tried
 * for scattered columns only there (H200, each gathered x read by the slice's rows: the transpose
 * of 2^20 rows each one run of 16 columns, 64.6 us against 91.2 for SELL-32 padded 35%; where
 * the rows share nothing (uniform random rows of 2..6 and of 0..32 entries, power-law rows) it
 * ran 1.9-2.9x slower than the tuned choice, its storage built in 0.4-1.0 s of the tuning) */
static int rows_share(const sp_tune_req *q) {
    const sp_stats *st = q->pl[0]->st;
    return (q->op ? st->runs : st->cruns) >= 0.5;
}

static void add(texla_ctx *ctx, clist *L, texla_sparse_variant v, const sp_tune_req *q) {
    sp_variant_norm(&v);
    const char *why;
    if (sp_variant_check(ctx, &v, q->k, q->op, &why)) return;
    if (!q->all && q->compute && q->pl[0] && q->pl[0]->st) {
        const sp_stats *st = q->pl[0]->st;
        if (serial_entries(&v, q->op ? st->cmax : st->lmax) > serial_cap(q->op ? st->cmean : st->mean))
            return;
    }
    if (v.sched == TEXLA_SCHED_ATOMIC && !q->scatter) return;
    for (int i = 0; i < L->n; i++)
        if (!memcmp(&L->c[i].v, &v, sizeof v)) return;
    int plane;
    texla_sparse_variant fv = sp_format_of(&v, q->op, &plane);
    if (!q->pl[plane] || !q->pl[plane]->m) return;
    double prior = 0;
    if (q->compute) {
        /* storage that moves more than twice CSR's bytes cannot win: not built */
        const sp_csr *m = q->pl[plane]->m;
        double csr = ((double)m->rows + 1) * 4 + (double)m->nnz * (4 + 4.0 * m->k);
        double bytes = storage_bytes(L, q, plane, &fv);
        int padded = fv.format == TEXLA_SPARSE_ELL || fv.format == TEXLA_SPARSE_SELL ||
                     (fv.format == TEXLA_SPARSE_BSR && fv.block != q->block);
        if (padded && !q->all && (bytes < 0 || bytes > 2 * csr)) return;
        prior = bytes < 0 ? 1e300 : bytes;
        /* SELL's smaller slices after SELL-32 where their bytes are about the same (H100: SELL-32
         * ran faster at equal bytes, circuit 110 us against 131 for SELL-8, the band 89 against
         * 104; with SELL-8 first by 1% fewer bytes, circuit's A x ran out of budget before
         * SELL-32 in some calls) */
        if (fv.format == TEXLA_SPARSE_SELL) prior *= fv.slice == 8 ? 1.04 : fv.slice == 16 ? 1.02 : 1;
    }
    if (L->n == L->cap) {
        int cap = L->cap ? 2 * L->cap : 32;
        cand *c = realloc(L->c, sizeof *c * (size_t)cap);
        if (!c) return;
        L->c = c;
        L->cap = cap;
    }
    cand *c = &L->c[L->n++];
    memset(c, 0, sizeof *c);
    c->v = v;
    c->plane = plane;
    c->fv = fv;
    c->us = -1;
    c->prior = prior;
}

static int same_storage(const cand *a, const cand *b) {
    return a->plane == b->plane && sp_format_same(&a->fv, &b->fv);
}

/* candidates in order of their prior: the rule's storage first (the rule's variant at its
 * head), then storages by bytes moved, each storage's candidates together (one build each) */
static void order(clist *L, const texla_sparse_variant *rule) {
    int head = -1;
    for (int i = 0; i < L->n && head < 0; i++)
        if (!memcmp(&L->c[i].v, rule, sizeof *rule)) head = i;
    if (head > 0) {
        cand t = L->c[head];
        memmove(L->c + 1, L->c, sizeof *L->c * (size_t)head);
        L->c[0] = t;
    }
    double *key = malloc(sizeof *key * texla__at_least_one(L->n));
    if (!key) return;
    for (int i = 0; i < L->n; i++) { /* a storage's key: its first candidate's position */
        key[i] = L->c[i].prior;
        for (int j = 0; j < i; j++)
            if (same_storage(&L->c[j], &L->c[i])) {
                key[i] = key[j];
                break;
            }
        if (head >= 0 && same_storage(&L->c[0], &L->c[i])) key[i] = -1;
    }
    for (int i = 1; i < L->n; i++) { /* stable insertion sort: a few dozen candidates */
        cand t = L->c[i];
        double k = key[i];
        int j = i - 1;
        for (; j >= 0 && key[j] > k; j--) {
            L->c[j + 1] = L->c[j];
            key[j + 1] = key[j];
        }
        L->c[j + 1] = t;
        key[j + 1] = k;
    }
    free(key);
}

/* the candidates the statistics of the rows the product reads suggest */
static void candidates(texla_ctx *ctx, const sp_tune_req *q, clist *L) {
    if (!q->compute) {
        add(ctx, L, (texla_sparse_variant){.format = TEXLA_SPARSE_POINTS}, q);
        add(ctx, L, (texla_sparse_variant){.format = TEXLA_SPARSE_GATHER}, q);
        return;
    }
    const sp_stats *st = q->pl[0]->st;
    int op = q->op, all = q->all, k = q->k;
    double m = op ? st->cmean : st->mean, sd = op ? st->csd : st->sd;
    int M = op ? st->cmax : st->lmax;
    typedef texla_sparse_variant V;
    add(ctx, L, (V){.format = TEXLA_SPARSE_CSR, .sched = TEXLA_SCHED_ROW}, q);
    add(ctx, L, (V){.format = TEXLA_SPARSE_CSR, .sched = TEXLA_SCHED_GROUP}, q);
    /* CSR-stream: coalesced loads of whole blocks whatever the rows' lengths; a group too long
     * for a block is summed by one workgroup, and rows past 16384 entries (where that workgroup
     * would keep the others waiting) go to chunks */
    for (int wgs = 128; wgs <= 512; wgs *= 2) {
        if (!all && wgs != 512) continue; /* H100: 512 beat 256 and 128 on every matrix */
        add(ctx, L, (V){.format = TEXLA_SPARSE_CSR, .sched = TEXLA_SCHED_STREAM, .wg = wgs}, q);
        if (all || M > 16384)
            add(ctx, L, (V){.format = TEXLA_SPARSE_CSR, .sched = TEXLA_SCHED_STREAM, .wg = wgs,
                            .long_rows = 16384}, q);
    }
    int l1 = lanes_of_mean(st, op), nrows = op ? st->cols : st->rows;
    for (int L2 = 2; L2 <= 128; L2 *= 2)
        if (all || (L2 <= 32 && (L2 == l1 || L2 == l1 * 2 || L2 == l1 / 2)) ||
            (L2 > 32 && nrows < 32768 && m / 16 > 32)) /* few, very long rows: as the rule */
            add(ctx, L, (V){.format = TEXLA_SPARSE_CSR, .sched = TEXLA_SCHED_LANES, .lanes = L2,
                            .wg = lanes_wg(L2)}, q);
    /* a row's entries four at a time (vec4): when asked for all, with every CSR row and lanes
     * candidate so far (else twins of the fastest, sp_tune) */
    for (int i = 0, n = L->n; all && k == 1 && i < n; i++) {
        V u = L->c[i].v;
        u.vec4 = 1;
        if (u.format == TEXLA_SPARSE_CSR &&
            (u.sched == TEXLA_SCHED_ROW || u.sched == TEXLA_SCHED_LANES))
            add(ctx, L, u, q);
    }
    /* padded formats: only where the padding stays moderate */
    double ell_pad = m > 0 ? M / m - 1 : 0;
    if (all || ell_pad <= 1.0) {
        add(ctx, L, (V){.format = TEXLA_SPARSE_ELL, .sched = TEXLA_SCHED_GROUP}, q);
        add(ctx, L, (V){.format = TEXLA_SPARSE_ELL, .sched = TEXLA_SCHED_ROW}, q);
    }
    int sigmas[2] = {0, 1024};
    /* small slices sorted: little padding wherever rows vary (H100, the random band: SELL-32
     * unsorted pads 44%, sorted 23%) */
    for (int C = 8; C <= 32; C *= 2)
        for (int s = 0; s < 2; s++) {
            if (!all && C != 32 && s == 0 && sd < 0.5 * m) continue;
            if (!all && s == 1 && sd < 0.05 * m + 0.5) continue;
            if (!all && C == 16 && sd < 0.5 * m) continue;
            add(ctx, L, (V){.format = TEXLA_SPARSE_SELL, .sched = TEXLA_SCHED_GROUP, .slice = C,
                            .sigma = sigmas[s]}, q);
            if (all || C == 32 || (s == 1 && C == 8))
                add(ctx, L, (V){.format = TEXLA_SPARSE_SELL, .sched = TEXLA_SCHED_ROW, .slice = C,
                                .sigma = sigmas[s]}, q);
        }
    /* rows sorted one by one within each workgroup's rows (rowsort): none of the group sort's
     * padding (a texel's rows padded to its longest); with x from its texture it lost on the
     * H100 (the band: 139 us against 131 by groups, SELL-8 and SELL-32), so here only when
     * asked for all (with 16-bit columns it is one of their twins, sp_tune) */
    if (all)
        for (int C = 8; C <= 32; C *= 2)
            add(ctx, L, (V){.format = TEXLA_SPARSE_SELL, .sched = TEXLA_SCHED_ROW, .slice = C,
                            .rowsort = 1}, q);
    /* long rows to chunks (the hybrid), for skewed rows */
    if (all || (M > 8 * m + 64 && M > 512)) {
        /* the second threshold only when asked for all: on the H100 the two ran within 2% of
         * each other (circuit: SELL-8 130.8 / 133.0 us, CSR lanes 174.2 / 174.9), and each is a
         * storage to build (0.2-0.5 s at 15M entries) */
        int Ts[2] = {(int)fmin(fmax(256, 16 * ceil(m)), 1 << 30),
                     (int)fmin(fmax(1024, 64 * ceil(m)), 1 << 30)};
        for (int t = 0; t < (all ? 2 : 1); t++) {
            if (Ts[t] >= M) continue;
            add(ctx, L, (V){.format = TEXLA_SPARSE_SELL, .sched = TEXLA_SCHED_GROUP, .slice = 32,
                            .sigma = 1024, .long_rows = Ts[t]}, q);
            add(ctx, L, (V){.format = TEXLA_SPARSE_SELL, .sched = TEXLA_SCHED_ROW, .slice = 8,
                            .sigma = 1024, .long_rows = Ts[t]}, q);
            if (all)
                add(ctx, L, (V){.format = TEXLA_SPARSE_SELL, .sched = TEXLA_SCHED_ROW, .slice = 8,
                                .rowsort = 1, .long_rows = Ts[t]}, q);
            add(ctx, L, (V){.format = TEXLA_SPARSE_SELL, .sched = TEXLA_SCHED_GROUP, .slice = 8,
                            .sigma = 1024, .long_rows = Ts[t]}, q);
            add(ctx, L, (V){.format = TEXLA_SPARSE_CSR, .sched = TEXLA_SCHED_LANES, .lanes = l1,
                            .long_rows = Ts[t]}, q);
            /* one invocation a short row, on the same storage (H100, circuit's short rows
             * alone: CSR per row with x from a buffer 77.4 us, SELL-32 by groups 82.2) */
            add(ctx, L, (V){.format = TEXLA_SPARSE_CSR, .sched = TEXLA_SCHED_ROW,
                            .long_rows = Ts[t]}, q);
            add(ctx, L, (V){.format = TEXLA_SPARSE_ELL, .sched = TEXLA_SCHED_GROUP,
                            .long_rows = Ts[t]}, q);
        }
    }
    /* blocks (real or complex); of a matrix equal to its transpose (or, complex, to its
     * conjugate transpose), also only the blocks on and above the diagonal (symmetric block ELL:
     * about half the bytes from memory, the mirrored half read again through the cache) */
    int sym = -1;
    if (k <= 2)
        for (int b = 2; b <= 4; b++) {
            if (!all && b != q->block && st->fill[b] < 0.5) continue;
            /* (A's statistics checked it where blocks fill: the cache's key holds it) */
            if (sym < 0) sym = st->sym != 0;
            /* x by block column from a buffer, or for complex blocks from the texture too (no
             * copy of x first); H100: real FEM blocks 27.2 us with the buffer, 45.2 without;
             * complex Hermitian blocks 36.6 with it, 32.1 without, 31.4 at 256 invocations,
             * 29.9 at 512 (31.5 at 256 in that call) */
            for (int xb = 1; sym && xb >= (k == 2 || all ? 0 : 1); xb--)
                for (int wg = 128; wg <= (xb ? 128 : 512); wg *= 2)
                    add(ctx, L, (V){.format = TEXLA_SPARSE_BSR, .sched = TEXLA_SCHED_ROW,
                                    .block = b, .bell = 3, .xbuf = xb, .wg = wg}, q);
            /* sliced block ELL where block rows vary (on FEM's even rows block ELL won: 38.4
             * against 40.6 us) */
            for (int bell = 0; bell < 3; bell++)
                for (int soa = 0; soa < 2 && (bell < 2 || all || sd > 0.25 * m + 1); soa++) {
                    add(ctx, L, (V){.format = TEXLA_SPARSE_BSR, .sched = TEXLA_SCHED_ROW,
                                    .block = b, .bell = bell, .soa = soa}, q);
                    /* lanes per row (on the storage just built): more invocations, shorter
                     * chains of loads, where block rows are few and long (on FEM's 192000
                     * rows of ~26 blocks they lost: 39.7 us at 2 lanes against 37.7 at 1) */
                    double mb = m / b; /* blocks per block row, about */
                    if (soa || bell == 2 || (!all && !((nrows < 65536 && mb >= 12) || mb >= 64)))
                        continue;
                    /* past 8 lanes where few block rows are very long (as the rule), and then
                     * only around the lanes that fill the GPU, of block rows stored by row */
                    int lb = bsr_lanes_fill(nrows, mb);
                    for (int L2 = 2; L2 <= 128; L2 *= 2)
                        if (all || (L2 <= 8 && L2 * 3 <= mb && L2 >= lb / 2) ||
                            (bell == 0 && L2 > 8 && L2 >= lb / 2 && L2 <= 2 * lb))
                            add(ctx, L, (V){.format = TEXLA_SPARSE_BSR, .sched = TEXLA_SCHED_LANES,
                                            .lanes = L2, .block = b, .bell = bell,
                                            .wg = lanes_wg(L2)}, q);
                }
        }
    /* the inner layout of compound entries */
    if (k > 1) {
        add(ctx, L, (V){.format = TEXLA_SPARSE_CSR, .sched = TEXLA_SCHED_ROW, .soa = 1}, q);
        add(ctx, L, (V){.format = TEXLA_SPARSE_SELL, .sched = TEXLA_SCHED_GROUP, .slice = 32,
                        .soa = 1}, q);
        if (all || ell_pad <= 1.0)
            add(ctx, L, (V){.format = TEXLA_SPARSE_ELL, .sched = TEXLA_SCHED_GROUP, .soa = 1}, q);
    }
    /* CSR by the merge path, for skewed rows: the same work per invocation whatever the rows
     * (CSR's storage, so none of its own to build, and the candidates cost only their
     * timing; a tile past this GL's shared memory is not added). On the H100, R-MAT: 4 items an
     * invocation 177 us with 128 invocations a workgroup, 169 with 256, 165 with 512, 8 items
     * 174 (16 items 185); the bigger tiles also carry a long row across fewer tiles; the merge
     * path lost to the rows' schedules where rows are even (band 1.1 ms vs 0.12): only for
     * skewed rows, or rows of lengths far apart (H200, 2^21 rows, 95% of 4 entries and 5% of
     * 128: CSR stream 0.208 ms, the merge path 0.192, cuSPARSE 0.172). Complex and quaternion
     * entries take fewer items and smaller workgroups (H200, R-MAT's pattern with complex
     * entries: 2 items 232 us at 128 invocations, 238 at 256, 255 at 512; 4 items 244 at 64,
     * 295 at 256, 446 at 512; CSR lanes with chunks 245, cuSPARSE 149; quaternion power-law
     * rows: 2 items at 128 109 us, 4 at 64 132, CSR lanes with chunks 118; real R-MAT: 2 items
     * 204-219, 4 items 148), so not the rule for their skewed rows. Their entries in planes
     * (SoA, the storage of the CSR SoA candidate) ran faster at every size tried (H200: complex
     * R-MAT 4 items at 64 invocations 243 -> 206 us, at 128 208; 2 at 128 232 -> 220;
     * quaternion power-law rows 2 at 128 109 -> 105, 4 at 64 132 -> 116; complex circuit 4 at
     * 128 234, AoS 255-311 at the old sizes) */
    if (all || M > 8 * m + 64 || sd > m) {
        add(ctx, L, (V){.format = TEXLA_SPARSE_CSR, .sched = TEXLA_SCHED_MERGE,
                        .lanes = k == 1 ? 4 : 2, .wg = k == 1 ? 512 : 128, .soa = k > 1}, q);
        add(ctx, L, (V){.format = TEXLA_SPARSE_CSR, .sched = TEXLA_SCHED_MERGE,
                        .lanes = 4, .wg = k == 1 ? 256 : 128, .soa = k > 1}, q);
        add(ctx, L, (V){.format = TEXLA_SPARSE_CSR, .sched = TEXLA_SCHED_MERGE,
                        .lanes = k == 1 ? 8 : 4, .wg = k == 1 ? 128 : 64, .soa = k > 1}, q);
        /* real entries, 4 items at 128 invocations: since the split groups' pass took an
         * invocation a tile (H200, R-MAT 145 us against 157 at 256; 150 before) */
        if (k == 1)
            add(ctx, L, (V){.format = TEXLA_SPARSE_CSR, .sched = TEXLA_SCHED_MERGE, .lanes = 4,
                            .wg = 128}, q);
        if (all) {
            add(ctx, L, (V){.format = TEXLA_SPARSE_CSR, .sched = TEXLA_SCHED_MERGE, .lanes = 16},
                q);
        }
        /* their storage built right after the rule's (same bytes as CSR's AoS storage, added
         * later: H200, complex R-MAT's budget ran out before it was built, 12 candidates timed) */
        for (int i = 0; k > 1 && i < L->n; i++)
            if (L->c[i].fv.format == TEXLA_SPARSE_CSR && L->c[i].fv.soa) L->c[i].prior *= 0.98;
    }
    if (all || M > 8 * m + 64 || sd > 0.5 * m) {
        /* the merge path on tiles of entries (tiles): each invocation sums its own 4 entries,
         * loaded beside its neighbours', closing rows at bits; no row ends staged or searched
         * (pinned, H200 GPU us: R-MAT 136 at 128 and 256 invocations, the merge path 146-152;
         * Pareto(1.5) rows 162 at 256 and 512, the merge path 168-172; rows of 2^0..2^12
         * entries 167 at 64..256, 171-183; complex R-MAT in planes 149 at 256, 152 at 128, the
         * merge path 193 at 2 items; 2 entries an invocation ran 8-25% slower than 4, 8 at
         * 128 3-5%). Also where rows vary less (sd past half the mean: 2^20 rows of 1..31
         * entries 143 us at 256, CSR stream 147, the merge path 145) */
        add(ctx, L, (V){.format = TEXLA_SPARSE_CSR, .sched = TEXLA_SCHED_MERGE, .lanes = 4,
                        .wg = 256, .soa = k > 1, .tiles = 1}, q);
        add(ctx, L, (V){.format = TEXLA_SPARSE_CSR, .sched = TEXLA_SCHED_MERGE, .lanes = 4,
                        .wg = 128, .soa = k > 1, .tiles = 1}, q);
        if (k == 1)
            add(ctx, L, (V){.format = TEXLA_SPARSE_CSR, .sched = TEXLA_SCHED_MERGE, .lanes = 4,
                            .wg = 512, .tiles = 1}, q);
        if (all)
            add(ctx, L, (V){.format = TEXLA_SPARSE_CSR, .sched = TEXLA_SCHED_MERGE, .lanes = 8,
                            .wg = 128, .soa = k > 1, .tiles = 1}, q);
    }
    /* COO's segmented reduction: the same work per invocation whatever the rows */
    if (all || M > 8 * m + 64)
        add(ctx, L, (V){.format = TEXLA_SPARSE_COO, .sched = TEXLA_SCHED_SEGMENT}, q);
    /* x from a storage buffer: with every candidate only when asked for all (else the twins
     * of the fastest of each format and schedule, after the first round: sp_tune) */
    for (int i = 0, n = all ? L->n : 0; i < n; i++) {
        V t = L->c[i].v;
        t.xbuf = 1;
        add(ctx, L, t, q);
        if (short_twin(&L->c[i].v, q, 16, &t)) add(ctx, L, t, q);
        if (short_twin(&L->c[i].v, q, 8, &t)) add(ctx, L, t, q);
    }
    /* scatter forms, where allowed */
    add(ctx, L, (V){.format = TEXLA_SPARSE_CSC, .sched = TEXLA_SCHED_ATOMIC}, q);
    add(ctx, L, (V){.format = TEXLA_SPARSE_COO, .sched = TEXLA_SCHED_ATOMIC}, q);
}

/* ---- timing ---- */

#define KEEP 4         /* storages kept alive for the schedule variants and the final round */
#define FINALISTS 6     /* re-timed in the final round (at most FINAL_PER_STORAGE of one
                           storage, two sizes of one variant; ten
                           took the budget of the other product's candidates: H100, rmat's
                           A' x kept long-row lanes, 0.42 ms, where the merge path runs 0.28) */
#define FINAL_PER_STORAGE 3
#define TWINS 5 /* candidates given an x-from-a-buffer twin after the first round */
#define FINAL_WARM_MS 100.0 /* the final round keeps the GPU busy this long (hardware), after heat */
#define FINAL_WARM_COLD_MS 300.0 /* where the clock probe cannot run */
#define FINAL_ROUNDS 3
#define SETTLE_MS 60.0 /* the settle loop's cap (hardware) */
#define SETTLE_SW 4    /* its cap in batches on software renderers, whose clock is the wall's */
#define FIRST_STORAGES 2 /* storages the first round builds whatever the budget */
#define HOPELESS 8.0   /* a candidate this many times slower than the best so far: timed once */
#define SPIN_MS_FIRST 60.0 /* GPU work queued before the first build (hardware) */
#define SPIN_PART 0.6      /* before the others: this part of the last build's time, */
#define SPIN_MS_MAX 150.0  /* at most this much (the build waits for the spin's rest: as long as
                              the whole build it cost the H100 half the candidates the budget
                              had allowed) */

typedef struct kept {
    sp_form f;
    int used;
} kept;

typedef struct bench {
    texla_ctx *ctx;
    texla__obj xo, yo; /* stand-ins of x and y: textures and layouts */
    sp_scratch scr;
    ref rf;
    float *y;          /* read back, per element */
    float *tex;        /* read back, as stored */
    kept keep[KEEP];   /* forms of the best storages so far */
    sp_spinner spin;   /* the GPU kept busy while the host builds a storage */
    double build_ms;   /* the last build's wall time (0: none yet) */
    double t0;         /* when the product's tuning began (texla__now_ms) */
    double forced_ms;  /* past the deadline, the first round's second storage (FIRST_STORAGES):
                          not counted against the late candidates (overdue) */
    ref_job rj;        /* the reference's thread */
    int warm;          /* heat's fallback spins done */
    const char *fn;    /* the API call, for messages */
} bench;

static texla_result run_once(bench *b, const cand *c, sp_form *f) {
    return sp_run(b->ctx, &c->v, f, &b->xo, &b->yo, 0.0f, 0, &b->scr);
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static texla_result batch(bench *b, const cand *c, sp_form *f, int reps, double *ms) {
    texla__gl *g = &b->ctx->gl;
    texla_result r = TEXLA_OK;
    texla__timer_begin(g);
    for (int i = 0; i < reps && !r; i++) r = run_once(b, c, f);
    *ms = texla__timer_end_ms(g) / reps;
    return r;
}

/* microseconds per product: batches of about 0.5 ms until two in a row agree within 3% (the
 * GPU's clocks and the memory work left by building, uploading and freeing storages make the
 * first ones slow, up to 3.5x for a few hundred ms on an H100), capped; then the median of 3 */
static texla_result measure(bench *b, const cand *c, sp_form *f, int settle, double bar,
                            double *us) {
    texla__gl *g = &b->ctx->gl;
    double one;
    texla_result r = batch(b, c, f, 1, &one);
    if (r) return r;
    /* hopeless: one product HOPELESS times the best so far (bar, microseconds; <= 0: none) is
     * kept as measured once; settling and medians of it would cost seconds where a few rows
     * hold most entries (circuit-like matrices: 65-180 ms a product for plain CSR) */
    if (bar > 0 && one * 1e3 > HOPELESS * bar) {
        *us = one * 1e3;
        return TEXLA_OK;
    }
    int reps = one > 0 ? (int)ceil(0.5 / one) : 20;
    if (reps < 1) reps = 1;
    if (reps > 50) reps = 50;
    if (settle) {
        double t0 = texla__now_ms(), prev = -1, t;
        for (int n = 0;; n++) {
            r = batch(b, c, f, reps, &t);
            if (r) return r;
            if (prev > 0 && fabs(t - prev) <= 0.03 * fmin(t, prev)) break;
            prev = t;
            if (g->caps.software ? n + 1 >= SETTLE_SW : texla__now_ms() - t0 >= SETTLE_MS) break;
        }
    }
    double t[3];
    for (int s = 0; s < 3 && !r; s++) r = batch(b, c, f, reps, &t[s]);
    if (r) return r;
    qsort(t, 3, sizeof t[0], cmp_d);
    *us = t[1] * 1e3;
    return TEXLA_OK;
}

/* y checked against the reference, then timed after settling */
static texla_result try_cand(bench *b, cand *c, sp_form *f, double bar) {
    texla_ctx *ctx = b->ctx;
    texla__gl *g = &ctx->gl;
    c->tried = 1;
    c->bytes = f->bytes;
    c->padding = f->padding;
    texla_result r = run_once(b, c, f);
    if (r) return r;
    r = texla__tex_download(g, &b->yo.t, b->tex);
    if (r) return r;
    if (!ref_ready(&b->rj))
        return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory for the float64 "
                           "reference (%.0f MB)", b->fn, (double)b->rf.n * 16 / 1e6);
    texla__texels_unpack(&b->yo.lay, b->tex, b->y, b->rf.n);
    c->ok = matches(&b->rf, b->y);
    if (!c->ok) return TEXLA_OK;
    r = measure(b, c, f, 1, bar, &c->us);
    c->first_us = c->us;
    c->looks = 1;
    return r;
}

static texla_result make_form(texla_ctx *ctx, const char *fn, const sp_tune_req *q, const cand *c,
                              sp_form *f) {
    const sp_plane *p = q->pl[c->plane];
    texla_result r;
    if (c->fv.format == TEXLA_SPARSE_POINTS) r = sp_points_make(ctx, fn, p, f);
    else if (c->fv.format == TEXLA_SPARSE_GATHER) r = sp_gather_make(ctx, fn, p, f);
    else r = sp_form_make(ctx, fn, p, &c->fv, f);
    if (!r) {
        f->fv = c->fv;
        f->plane = c->plane;
    }
    return r;
}

static int kept_of(bench *b, const cand *c) {
    for (int i = 0; i < KEEP; i++)
        if (b->keep[i].used && b->keep[i].f.plane == c->plane &&
            sp_format_same(&b->keep[i].f.fv, &c->fv))
            return i;
    return -1;
}

/* the best time among the correct candidates of storage s (-1: none) */
static double storage_best(const clist *L, const cand *s) {
    double best = -1;
    for (int i = 0; i < L->n; i++)
        if (L->c[i].ok && same_storage(&L->c[i], s) && (best < 0 || L->c[i].us < best))
            best = L->c[i].us;
    return best;
}

/* is storage s among the KEEP best storages so far? */
static int among_best(const clist *L, const cand *s) {
    double mine = storage_best(L, s);
    if (mine < 0) return 0;
    int better = 0;
    for (int i = 0; i < L->n; i++) {
        if (!L->c[i].ok || same_storage(&L->c[i], s)) continue;
        int first = 1; /* count each storage once, at its first correct candidate */
        for (int j = 0; j < i && first; j++)
            if (L->c[j].ok && same_storage(&L->c[j], &L->c[i])) first = 0;
        if (first && storage_best(L, &L->c[i]) < mine) better++;
    }
    return better < KEEP;
}

/* frees the kept forms whose storage fell out of the best (all but the best's: all = 1) */
static void prune_kept(bench *b, const clist *L, int all, int best) {
    for (int i = 0; i < KEEP; i++) {
        if (!b->keep[i].used) continue;
        cand s = {0};
        s.plane = b->keep[i].f.plane;
        s.fv = b->keep[i].f.fv;
        int is_best = best >= 0 && same_storage(&s, &L->c[best]);
        if (is_best || (!all && among_best(L, &s))) continue;
        sp_form_free(b->ctx, &b->keep[i].f);
        b->keep[i].used = 0;
    }
}

static int best_of(const clist *L) {
    int best = -1;
    for (int i = 0; i < L->n; i++)
        if (L->c[i].ok && (best < 0 || L->c[i].us < L->c[best].us)) best = i;
    return best;
}

/* Before a new storage's candidates are timed, the GPU's clocks brought up (sp_heat, waited
 * for: after the first build, and after each later one, since the host's builds leave it
 * idle; short where the clocks held), for at most a tenth of the call's budget (not under
 * 50 ms). Before the clock probe, 150 ms of spins after the first build only: on an H200 the
 * first round of A x then ran at 345-960 MHz of 1980 (kkt: SELL-32 by groups 361 us, 118
 * warm), and an H100 idle before the tuning had run the first storage's candidates at 1.7-2x
 * their warm times (circuit's CSR a row, 227.6 us against 125.7, ranked its storage fifth,
 * which dropped it). Where the probe cannot run (a host's GL_TIME_ELAPSED query active), those
 * spins still (the wall clock's, WARM_MS after the first build). 1: the probe ran */
#define WARM_MS 150.0
static int heat(bench *b, const sp_tune_req *q) {
    texla_ctx *ctx = b->ctx;
    int ran = 0;
    if (sp_heat(ctx, &b->spin, q->budget_ms > 0 ? 0.1 * q->budget_ms : 1e9, &ran))
        b->spin.per_ms = -1; /* no more spins, no failure */
    if (ran || b->warm || ctx->gl.caps.software) return ran;
    b->warm = 1;
    double t0 = texla__now_ms();
    while (b->spin.per_ms >= 0 && texla__now_ms() - t0 < WARM_MS) {
        if (sp_spin(ctx, &b->spin, 20.0)) b->spin.per_ms = -1;
        if (b->spin.per_ms == 0) break; /* no spins here (no timer queries, no compute) */
        texla__gl_finish(&ctx->gl);
    }
    if (b->spin.per_ms > 0) b->spin.per_ms = 0; /* measured again at the next spin */
    return 0;
}

/* twice the product's part of the budget spent, and at least OVERDUE_MS past its deadline (a
 * product of seconds on a software renderer: a 10^7 x 1 matrix took 60 s of a 6 s budget):
 * the second look, the late candidates and the final round are left out, the first round's
 * best is the choice. The first round's storages past the first, built past the deadline
 * because two always are, do not count (forced_ms): the late ones keep the time they had */
#define OVERDUE_MS 5000.0
static int overdue(const bench *b, const sp_tune_req *q) {
    return q->deadline_ms > 0 && texla__now_ms() > q->deadline_ms + b->forced_ms +
                                                       fmax(q->deadline_ms - b->t0, OVERDUE_MS);
}

/* a second look at the first round's candidates, the GPU warm by now: each correct one on
 * a kept storage short of HOPELESS times the best is timed again (a median of 3 batches, not
 * settled: a few ms each) and keeps the lower of its two times. The GPU idle before a tuning
 * still ran the first storage's first candidates slow after the spins (H200, kkt's A x, 1.0-1.3
 * s into the tuning: SELL-32 by groups with rows sorted 236, 309 and 416 us in three calls,
 * where it runs 118, its twin with x from a buffer once 837 where it runs 194; in one call
 * that storage was dropped, the choice 0.137 ms where 0.109 was there) */
#define SECOND_LOOK HOPELESS
static texla_result second_look(bench *b, clist *L, const sp_tune_req *q) {
    int best = best_of(L);
    texla_result r = TEXLA_OK;
    for (int i = 0; best >= 0 && i < L->n && !r && !overdue(b, q); i++) {
        cand *c = &L->c[i];
        int k = kept_of(b, c);
        if (!c->ok || c->us <= 0 || c->us > SECOND_LOOK * L->c[best].us || k < 0) continue;
        double us;
        r = measure(b, c, &b->keep[k].f, 0, -1, &us);
        c->looks++;
        if (!r && us < c->us) c->us = us;
    }
    return r;
}

/* runs every untried candidate sharing storage with c[i0] (only: c[i0] alone) on one form
 * (kept or made); keeps the form while its storage is among the best */
static texla_result run_storage(bench *b, const char *fn, const sp_tune_req *q, clist *L, int i0,
                                int only) {
    texla_ctx *ctx = b->ctx;
    sp_form own, *f = &own;
    int k = kept_of(b, &L->c[i0]);
    texla_result r = TEXLA_OK;
    if (k >= 0) {
        f = &b->keep[k].f;
    } else {
        /* the GPU busy for most of the time the build takes (as long as the last one), so its
         * clocks are still up when this storage's candidates are timed (H100: without it some
         * first-round times read 3-4x the warm ones); then the spin's rest and the uploads
         * waited for */
        if (sp_spin(ctx, &b->spin,
                    b->build_ms > 0 ? fmin(SPIN_PART * b->build_ms, SPIN_MS_MAX) : SPIN_MS_FIRST))
            b->spin.per_ms = -1; /* not worth failing the tuning for: no more spins */
        double t0 = texla__now_ms();
        r = make_form(ctx, fn, q, &L->c[i0], &own);
        b->build_ms = texla__now_ms() - t0; /* the host's part (the next spin's measure) */
        L->c[i0].build_ms = b->build_ms;
        texla__gl_finish(&ctx->gl);
        if (r == TEXLA_ERR_LIMIT || r == TEXLA_ERR_MEMORY) { /* room for it without the others? */
            int any = 0;
            for (int i = 0; i < KEEP; i++) any |= b->keep[i].used;
            if (any) {
                prune_kept(b, L, 1, best_of(L));
                r = make_form(ctx, fn, q, &L->c[i0], &own);
            }
        }
        /* this storage does not fit, or does not hold this matrix (a short column's reach, a
         * symmetric form's mirror, should the statistics that offered it ever disagree): skip */
        if (r == TEXLA_ERR_LIMIT || r == TEXLA_ERR_MEMORY || r == TEXLA_ERR_UNSUPPORTED) {
            for (int i = i0; i < L->n; i++)
                if (!L->c[i].tried && same_storage(&L->c[i], &L->c[i0])) {
                    L->c[i].tried = 1;
                    L->c[i].at_ms = texla__now_ms() - b->t0;
                }
            return TEXLA_OK;
        }
        if (r) return r;
        heat(b, q);
    }
    for (int i = i0; i < L->n && !r; i++) {
        cand *c = &L->c[i];
        if (c->tried || !same_storage(c, &L->c[i0]) || (only && i != i0)) continue;
        int bi = best_of(L);
        c->at_ms = texla__now_ms() - b->t0;
        r = try_cand(b, c, f, bi >= 0 ? L->c[bi].us : -1);
        if (r == TEXLA_ERR_SHADER || r == TEXLA_ERR_LIMIT) { /* this variant cannot run here */
            c->ok = 0;
            r = TEXLA_OK;
        }
    }
    if (k < 0) {
        int slot = -1;
        if (!r && among_best(L, &L->c[i0])) {
            prune_kept(b, L, 0, best_of(L));
            for (int i = 0; i < KEEP && slot < 0; i++)
                if (!b->keep[i].used) slot = i;
        }
        if (slot >= 0) {
            b->keep[slot].f = own;
            b->keep[slot].used = 1;
        } else {
            sp_form_free(ctx, &own);
        }
    }
    return r;
}

/* a row's entries four at a time (vec4: aligned 16-byte loads): twins of the fastest CSR row or
 * lanes candidate, on its storage, at its lanes, a half and a quarter of them (one lane: also
 * two), and fewer while the fewest is the fastest, where it is within VEC4_NEAR of the best.
 * Wider loads let fewer lanes keep as many bytes in flight (H200, 2^17 rows of 128 random
 * columns: 16 lanes 109.1 us, 8 lanes 100.0; vec4 at 16 lanes 111.0, at 8 lanes 88.5; 2^20
 * rows each a run of 16 columns, 8-bit columns: 4 lanes 64.8, vec4 62.7; 2^16 rows of 64..320:
 * 32 lanes 111.2, vec4 104.9; circuit's short rows one an invocation, x from a buffer: 66.4,
 * vec4 72.2) */
#define VEC4_NEAR 1.6
static texla_result vec4_twins(bench *b, const char *fn, const sp_tune_req *q, clist *L,
                               int best) {
    int c = -1;
    for (int i = 0; i < L->n; i++) {
        const texla_sparse_variant *v = &L->c[i].v;
        if (L->c[i].ok && !v->vec4 && v->format == TEXLA_SPARSE_CSR &&
            (v->sched == TEXLA_SCHED_ROW || v->sched == TEXLA_SCHED_LANES) &&
            (c < 0 || L->c[i].us < L->c[c].us))
            c = i;
    }
    if (c < 0 || L->c[c].us > VEC4_NEAR * L->c[best].us) return TEXLA_OK;
    int n0 = L->n, lanes = L->c[c].v.sched == TEXLA_SCHED_LANES ? L->c[c].v.lanes : 1;
    int ls[3] = {lanes, lanes > 1 ? lanes / 2 : 2, lanes / 4};
    for (int j = 0; j < 3 && ls[j] >= 1; j++) {
        texla_sparse_variant u = L->c[c].v;
        u.vec4 = 1;
        u.sched = ls[j] > 1 ? TEXLA_SCHED_LANES : TEXLA_SCHED_ROW;
        u.lanes = ls[j] > 1 ? ls[j] : 0;
        add(b->ctx, L, u, q);
    }
    texla_result r = TEXLA_OK;
    for (int i = n0; i < L->n && !r && !overdue(b, q); i++) {
        if (!L->c[i].tried && (kept_of(b, &L->c[i]) >= 0 || q->deadline_ms <= 0 ||
                               texla__now_ms() <= q->deadline_ms))
            r = run_storage(b, fn, q, L, i, 0);
        /* the fewest lanes so far the fastest of the twins: half of them next (H200, 2^17 rows
         * of 128: vec4 at 16 lanes 117.9 us, 8 91.6, 4 81.7) */
        if (i != L->n - 1 || r) continue;
        int f = -1;
        for (int j = n0; j < L->n; j++)
            if (L->c[j].ok && (f < 0 || L->c[j].us < L->c[f].us)) f = j;
        const texla_sparse_variant *w = f >= 0 ? &L->c[f].v : NULL;
        int fl = w && w->sched == TEXLA_SCHED_LANES ? w->lanes : 1;
        if (f == L->n - 1 && fl > 1 && fl < lanes) {
            texla_sparse_variant u = *w;
            u.sched = fl > 2 ? TEXLA_SCHED_LANES : TEXLA_SCHED_ROW;
            u.lanes = fl > 2 ? fl / 2 : 0;
            add(b->ctx, L, u, q);
        }
    }
    return r;
}

/* a and b the same variant but for their workgroup size */
static int same_but_wg(const texla_sparse_variant *a, const texla_sparse_variant *b) {
    texla_sparse_variant t = *a;
    t.wg = b->wg;
    return !memcmp(&t, b, sizeof t);
}

/* the final round: the best FINALISTS (at most FINAL_PER_STORAGE per storage, and two sizes
 * of one variant, their forms kept), and the first's other sizes, timed again, interleaved,
 * FINAL_ROUNDS times; each keeps its best median, and the choice is made on those. (H100,
 * rect_tall: the first round, slowed by a 2 s build, ranked ELL per row at three sizes before
 * ELL by groups, 0.300 ms against 0.343 once both were timed warm) */
static texla_result final_round(bench *b, const sp_tune_req *q, clist *L) {
    int fin[FINALISTS + 3], nf = 0;
    while (nf < FINALISTS) {
        int pick = -1;
        for (int i = 0; i < L->n; i++) {
            cand *c = &L->c[i];
            if (!c->ok || c->final || kept_of(b, c) < 0) continue;
            int same = 0, sizes = 0;
            for (int j = 0; j < nf; j++) {
                same += same_storage(&L->c[fin[j]], c);
                sizes += same_but_wg(&L->c[fin[j]].v, &c->v);
            }
            if (same >= FINAL_PER_STORAGE || sizes >= 2) continue;
            if (pick < 0 || c->us < L->c[pick].us) pick = i;
        }
        if (pick < 0) break;
        L->c[pick].final = 1;
        fin[nf++] = pick;
    }
    /* and the first finalist's other workgroup sizes, whatever their first times short of
     * hopeless: one timed late, alone, right after the twins' builds read 1.7x its warm time
     * (H100, circuit's CSR a row with x from a buffer at 256 invocations: 146.4 us once,
     * 86.5-87 pinned; its size 128, 90.6, was chosen) */
    for (int i = 0; nf > 0 && i < L->n && nf < FINALISTS + 2; i++) {
        cand *c = &L->c[i];
        if (!c->ok || c->final || kept_of(b, c) < 0 || !same_but_wg(&L->c[fin[0]].v, &c->v) ||
            c->us > HOPELESS * L->c[fin[0]].us)
            continue;
        c->final = 1;
        fin[nf++] = i;
    }
    /* and the first candidate timed (right after the first build, the GPU least warm) short of
     * hopeless, whatever its storage's other finalists (but not as a third size of a variant):
     * H100, short_wide (4096 rows of 4096), the rule's CSR with 32 lanes read 344.9 us first,
     * behind three of its storage's, and was never timed again, where it runs 160 (the choice:
     * CSR-stream, 176). So at most FINALISTS + 3 are timed again. */
    int first = -1;
    for (int i = 0; i < L->n; i++)
        if (L->c[i].ok && L->c[i].us > 0 && (first < 0 || L->c[i].at_ms < L->c[first].at_ms))
            first = i;
    int sizes = 0; /* at most two sizes of a variant but the first finalist's, as above */
    for (int j = 0; first >= 0 && j < nf; j++)
        sizes += same_but_wg(&L->c[fin[j]].v, &L->c[first].v);
    if (nf > 0 && first >= 0 && !L->c[first].final && kept_of(b, &L->c[first]) >= 0 &&
        sizes < 2 && L->c[first].us <= HOPELESS * L->c[fin[0]].us) {
        L->c[first].final = 1;
        fin[nf++] = first;
    }
    double best[FINALISTS + 3];
    for (int j = 0; j < nf; j++) best[j] = -1;
    texla_result r = TEXLA_OK;
    /* The GPU's clocks follow its load: the tuner's short bursts between long builds on the
     * host ran at a fraction of them (H100: first-round times 2-4x the warm ones, unevenly,
     * which ranked candidates wrongly). The finalists run back to back for FINAL_WARM_MS
     * first, so that the final times are taken at the clocks a steady caller gets (300 ms
     * until the clock probe: it brings the clocks up first, and the finalists then only
     * settle) */
    if (nf && !b->ctx->gl.caps.software) {
        double warm = heat(b, q) ? FINAL_WARM_MS : FINAL_WARM_COLD_MS, t0 = texla__now_ms();
        for (int k = 0; !r && texla__now_ms() - t0 < warm; k++) {
            cand *c = &L->c[fin[k % nf]];
            double ms;
            r = batch(b, c, &b->keep[kept_of(b, c)].f, 8, &ms);
        }
    }
    for (int round = 0; round < FINAL_ROUNDS && !r; round++)
        for (int j = 0; j < nf && !r; j++) {
            cand *c = &L->c[fin[j]];
            double us;
            r = measure(b, c, &b->keep[kept_of(b, c)].f, 0, -1, &us);
            c->looks++;
            if (!r && (best[j] < 0 || us < best[j])) best[j] = us;
        }
    for (int j = 0; j < nf && !r; j++) L->c[fin[j]].us = best[j];
    return r;
}

/* the affected groups of each long-row threshold met so far (a scan of the rows each) */
typedef struct nag_memo {
    int n;
    struct { int plane, long_rows, nag; } e[16];
} nag_memo;

/* v's kernels handed to the driver's compiler threads, for this product's longest row (A
 * Hermitian: A^H is too) and, with long rows, the form's affected groups: the programs its
 * product runs (sp_long_pass) */
static void prefetch(texla_ctx *ctx, const sp_tune_req *q, const texla_sparse_variant *v,
                     nag_memo *mm) {
    if (!ctx->gl.caps.parallel_compile) return; /* no rows scanned for nothing */
    const char *why; /* a size the variant cannot take (64 lanes at 64 invocations): nothing */
    if (sp_variant_check(ctx, v, q->k, q->op, &why)) return;
    const sp_stats *st = q->pl[0]->st;
    int M = q->op ? st->cmax : st->lmax, plane, nag = 0;
    texla_sparse_variant fv = sp_format_of(v, q->op, &plane);
    if (fv.long_rows > 0 && M > fv.long_rows && q->pl[plane] && q->pl[plane]->m) {
        int i = 0;
        while (i < mm->n && (mm->e[i].plane != plane || mm->e[i].long_rows != fv.long_rows)) i++;
        if (i < mm->n) {
            nag = mm->e[i].nag;
        } else {
            nag = sp_long_groups(q->pl[plane], fv.long_rows);
            if (nag < 0) return; /* out of memory: compiled when first run */
            if (mm->n < (int)(sizeof mm->e / sizeof mm->e[0]))
                mm->e[mm->n].plane = plane, mm->e[mm->n].long_rows = fv.long_rows,
                mm->e[mm->n++].nag = nag;
        }
    }
    sp_prefetch(ctx, v, q->k, M, nag, st->sym == 2);
}

static int uniform_rows(const sp_tune_req *q) {
    const sp_stats *st = q->pl[0]->st;
    double m = q->op ? st->cmean : st->mean, sd = q->op ? st->csd : st->sd;
    int M = q->op ? st->cmax : st->lmax;
    return sd <= 0.1 * m + 1 && M <= 2 * m + 8;
}

texla_result sp_tune(texla_ctx *ctx, const char *fn, sp_tune_req *q, texla_sparse_variant *best_v,
                     double *us, sp_form *form) {
    long long compile_threads = -1; /* the host's setting, put back at the end */
    double t_begin = texla__now_ms();
    clist L = {0};
    nag_memo memo = {0};
    candidates(ctx, q, &L);
    texla_sparse_variant rule = sp_rule(ctx, q->pl[0]->st, q->k, q->entry, q->op, q->compute);
    /* the rule's variant is always a candidate, and the first: with the budget spent after one
     * storage (skewed rows, where plain CSR takes milliseconds) it is what is left (rmat A' x on
     * the H100: the budget ran out on plain CSR, 3.1 ms, where the long-row rule runs 0.57) */
    int have_rule = 0;
    for (int i = 0; i < L.n && !have_rule; i++) have_rule = !memcmp(&L.c[i].v, &rule, sizeof rule);
    if (!have_rule) add(ctx, &L, rule, q);
    order(&L, &rule);
    /* every candidate's kernel compiled by the driver's threads while the host builds the
     * storages (H100: 100-330 ms a new kernel, waited for at its first product, about a third
     * of a product's budget), and the twins with x from a buffer where those will be tried.
     * The driver's compiler threads are asked for (NVIDIA compiled on the calling thread until
     * then, 115 ms a kernel) and the host's setting is put back at the end */
    {
        compile_threads = texla__compile_threads(&ctx->gl, -1);
        int twins = twins_wanted(q);
        for (int i = 0; q->compute && i < L.n; i++) {
            prefetch(ctx, q, &L.c[i].v, &memo);
            texla_sparse_variant t;
            if (twins && xbuf_twin(&L.c[i].v, &t)) prefetch(ctx, q, &t, &memo);
            if (twins && c16_twin(&L.c[i].v, q, &t)) prefetch(ctx, q, &t, &memo);
        }
    }
    bench b;
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    b.fn = fn;
    b.t0 = t_begin;
    texla__gl *g = &ctx->gl;
    const sp_plane *p0 = q->pl[0];
    const texla__layout *xl = q->xl, *yl = q->yl;
    b.xo.lay = *xl;
    b.yo.lay = *yl;
    b.xo.kind = b.yo.kind = TEXLA__KIND_VEC;
    size_t xt = (size_t)(xl->gx / 2) * (xl->gy / 2) * 4, yt = (size_t)(yl->gx / 2) * (yl->gy / 2) * 4;
    float *x = malloc(sizeof *x * (size_t)xl->n), *xtex = calloc(xt, sizeof *xtex);
    b.tex = malloc(sizeof *b.tex * yt);
    b.y = malloc(sizeof *b.y * texla__at_least_one(yl->n));
    texla_result r = TEXLA_OK;
    int best = -1;
    q->skipped = 0;
    if (x) { /* x: uniform in [-1, 1), the same every run */
        uint64_t s = 0x9E3779B97F4A7C15ull;
        for (int i = 0; i < xl->n; i++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            x[i] = (float)((double)(s >> 11) / 9007199254740992.0 * 2 - 1);
        }
    }
    /* A' x's reference from A' where it is made (its rows: the writes in order; H200 host,
     * R-MAT's pattern from A, about half a second) */
    const sp_csr *rm = q->op && q->pl[1] && q->pl[1]->m ? q->pl[1]->m : p0->m;
    if (!x || !xtex || !b.tex || !b.y) {
        r = texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory for the tuning vectors", fn);
        goto done;
    }
    b.rj = (ref_job){.m = rm, .op = rm == p0->m ? q->op : 0, .x = x, .rf = &b.rf};
    ref_start(&b.rj);
    texla__texels_pack(xl, x, xtex, xl->n);
    r = texla__pool_take(g, xl->gx / 2, xl->gy / 2, &b.xo.t);
    if (!r) r = texla__tex_upload(g, &b.xo.t, xtex);
    if (!r) r = texla__pool_take(g, yl->gx / 2, yl->gy / 2, &b.yo.t);
    /* the budget: once spent, no new storage is built; the first two always are (H200,
     * powerlaw_mid's A x: its setup and the rule's storage, SELL-32 with rows sorted, took the
     * whole part of the budget in some calls, 0.556 ms chosen where CSR's stream runs 0.150) */
    for (int i = 0, built = 0; i < L.n && !r; i++) {
        if (L.c[i].tried) continue;
        if (built >= FIRST_STORAGES && q->deadline_ms > 0 && texla__now_ms() > q->deadline_ms &&
            best_of(&L) >= 0)
            break;
        double t_run = texla__now_ms();
        int late = built >= 1 && q->deadline_ms > 0 && t_run > q->deadline_ms;
        r = run_storage(&b, fn, q, &L, i, 0);
        if (late) b.forced_ms += texla__now_ms() - t_run;
        built += storage_best(&L, &L.c[i]) >= 0; /* one that refused the matrix: not counted */
    }
    if (!r && !overdue(&b, q)) r = second_look(&b, &L, q);
    /* the schedule's grid and workgroup size, around the best two (after the twins), on their
     * kept storages (SELL rows sorted in each workgroup: a storage per size, built before the
     * deadline only); the fixed grids only where the rows' lengths vary (uniform rows balance
     * themselves) */
    best = best_of(&L);
    /* the first round's best two at their other workgroup sizes, and the best's twin with x
     * from a buffer, handed to the driver's compiler threads during the twins' builds (the
     * best two's sizes, below, are timed even past the deadline; a best the twins brought, the
     * late twins, or a merge path, which sp_prefetch leaves out, compile when first run) */
    if (!r && best >= 0 && q->compute) {
        int second = -1;
        for (int i = 0; i < L.n; i++)
            if (L.c[i].ok && i != best && (second < 0 || L.c[i].us < L.c[second].us)) second = i;
        texla_sparse_variant v[3] = {L.c[best].v, L.c[best].v, L.c[best].v};
        int nv = 1 + (twins_wanted(q) && xbuf_twin(&L.c[best].v, &v[1]));
        if (second >= 0) v[nv++] = L.c[second].v;
        for (int i = 0; i < nv; i++)
            for (int w = 64; w <= 256; w *= 4) {
                texla_sparse_variant u = v[i];
                u.wg = w;
                prefetch(ctx, q, &u, &memo);
            }
    }
    /* x from a storage buffer: twins of the fastest of each format and schedule (at most
     * TWINS), on their storages, for real entries where most columns lie near the diagonal or
     * in runs (twins_wanted; H100: the random band 116 -> 90 us, FEM 3x3 45.8 -> 38.4, circuit
     * 134 -> 110; on R-MAT's scattered columns the texture was faster, and for complex 3x3
     * blocks too: 41 against 47 us, also with x by block column). Not just the best three: the
     * texture's ranking is not the buffer's (the band: SELL per row was fourth with the texture,
     * 135 us, and first with the buffer, 89) */
    int twins = twins_wanted(q);
    if (!r && best >= 0 && q->compute && q->k == 1) { /* (rows sorted below also without twins) */
        int n0 = L.n, got[TWINS];
        for (int t = 0; t < TWINS; t++) got[t] = -1;
        for (int t = 0; twins && t < TWINS; t++) {
            for (int i = 0; i < n0; i++) {
                const texla_sparse_variant *v = &L.c[i].v;
                int seen = 0;
                for (int u = 0; u < t; u++)
                    seen |= L.c[got[u]].v.format == v->format && L.c[got[u]].v.sched == v->sched;
                texla_sparse_variant tw;
                if (!L.c[i].ok || v->xbuf || seen || !xbuf_twin(v, &tw)) continue;
                if (got[t] < 0 || L.c[i].us < L.c[got[t]].us) got[t] = i;
            }
            if (got[t] < 0) break;
        }
        for (int t = 0; t < TWINS; t++) {
            texla_sparse_variant u;
            if (got[t] >= 0 && xbuf_twin(&L.c[got[t]].v, &u)) add(ctx, &L, u, q);
        }
        /* columns in 16 bits, or 8 where they reach (a storage of its own: a build), for the
         * fastest ELL or SELL storage where every column lies within reach of its row, in both
         * its schedules; built even past the deadline (H100, the random band: 75.9 us against
         * 89.1 with 32-bit columns; with the 6 s budget A x's deadline had passed when the twins
         * came. 8 bits against 16, in one tuning: SELL-32 rows sorted 65.6 against 72.1 us, by
         * groups 71.3 against 79.8) */
        int c16 = -1, csr16 = -1;
        texla_sparse_variant u;
        for (int i = 0; twins && i < n0; i++) {
            if (!L.c[i].ok || !c16_twin(&L.c[i].v, q, &u)) continue;
            int *best16 = L.c[i].v.format == TEXLA_SPARSE_CSR ? &csr16 : &c16;
            if (*best16 < 0 || L.c[i].us < L.c[*best16].us) *best16 = i;
        }
        /* and CSR's, a row's lanes reading neighbouring offsets, with a half and a quarter of
         * the lanes too on its storage (H100, a band of 1025 columns filled 15%, 2^17 rows of
         * ~154: 16 lanes with x from a buffer 75.1 us, SELL rows sorted with 16-bit columns
         * 71.9; with 16-bit columns 32 lanes 71.9, 16 66.4, 8 65.7; cuSPARSE 68.0) */
        if (csr16 >= 0 && c16_twin(&L.c[csr16].v, q, &u)) {
            add(ctx, &L, u, q);
            for (int f = 2; f <= 4 && u.sched == TEXLA_SCHED_LANES && u.lanes / f >= 2; f *= 2) {
                texla_sparse_variant w = u;
                w.lanes = u.lanes / f;
                add(ctx, &L, w, q);
            }
        }
        /* where the budget ended before any CSR storage was timed, CSR's short columns all the
         * same, one invocation and the candidates' first lanes a row (H100, poisson3d: CSR a row
         * with 16-bit columns 0.0618 ms when a CSR storage had been timed, SELL-32 0.0639 when
         * not) */
        if (csr16 < 0 && c16 >= 0) {
            texla_sparse_variant w = {.format = TEXLA_SPARSE_CSR, .sched = TEXLA_SCHED_ROW};
            if (c16_twin(&w, q, &u)) add(ctx, &L, u, q);
            w.sched = TEXLA_SCHED_LANES;
            w.lanes = lanes_of_mean(q->pl[0]->st, q->op);
            if (c16_twin(&w, q, &u)) add(ctx, &L, u, q);
        }
        /* and where only CSR's can have them (columns far from their rows, close together
         * within each: offsets from a column of the row's own), at the candidates' first lanes
         * a row, a half and a quarter of them (H200, 2^20 rows each one run of 16 columns at a
         * random start: the budget ended after ELL's and SELL's storages, ELL a row chosen,
         * 125.3 us; CSR 4 lanes with 8-bit columns 66.9, 8 lanes 78.0, 2 lanes 80.2, with x
         * from a buffer and 32-bit columns 80.3) */
        texla_sparse_variant cw = {.format = TEXLA_SPARSE_CSR, .sched = TEXLA_SCHED_LANES};
        int cp;
        sp_format_of(&cw, q->op, &cp);
        const sp_stats *cst = q->pl[cp] ? q->pl[cp]->st : NULL;
        if (twins && csr16 < 0 && c16 < 0 && cst && cst->far16 > 0) {
            int l = lanes_of_mean(q->pl[0]->st, q->op);
            for (int f = 1; f <= 4 && l / f >= 2; f *= 2) {
                cw.lanes = l / f;
                if (c16_twin(&cw, q, &u)) add(ctx, &L, u, q);
            }
        }
        if (c16 >= 0 && c16_twin(&L.c[c16].v, q, &u)) {
            add(ctx, &L, u, q);
            u.sched = u.sched == TEXLA_SCHED_ROW ? TEXLA_SCHED_GROUP : TEXLA_SCHED_ROW;
            if (!u.rowsort) add(ctx, &L, u, q); /* rowsort is ROW's only */
            /* and, where that storage pads, SELL with rows sorted one by one in each
             * workgroup's rows: no padding of a texel's rows to its longest (H100, the band:
             * SELL-32 by groups pads 22.7%, 76.5 us; rows sorted, 13.6%, 74.4 us. Smaller
             * slices padded less and ran slower: C = 16 6.6%, 76.3 us; C = 8 3.1%, 80.2) */
            texla_sparse_variant w = {.format = TEXLA_SPARSE_SELL, .sched = TEXLA_SCHED_ROW,
                                      .slice = 32, .rowsort = 1, .wg = 128};
            if (L.c[c16].padding > 0.05 && c16_twin(&w, q, &u)) add(ctx, &L, u, q);
        }
        /* where no 16-bit columns reach, the same rows sorted with 32-bit columns and x from a
         * buffer, where the fastest SELL storage pads and has no long rows' chunks (H100, 2M
         * rows of 1..11 entries, one of them far from the diagonal: 73.3 us at 256 invocations
         * against 75.3 for the tuned SELL-32 by groups, padded 35%; cuSPARSE 57.7. With
         * circuit's chunks, 88.6 against CSR a row's 86.7, and chosen through the final round's
         * spread: 0.0893 ms against 0.0873). Also where no twins are wanted, columns scattered,
         * if neighbouring rows share them (rows_share) */
        int sl = -1;
        for (int i = 0; i < n0; i++)
            if (L.c[i].ok && L.c[i].v.format == TEXLA_SPARSE_SELL && !L.c[i].v.rowsort &&
                (sl < 0 || L.c[i].us < L.c[sl].us))
                sl = i;
        if (c16 < 0 && sl >= 0 && L.c[sl].padding > 0.05 && !L.c[sl].v.long_rows &&
            (twins || rows_share(q))) {
            texla_sparse_variant w = {.format = TEXLA_SPARSE_SELL, .sched = TEXLA_SCHED_ROW,
                                      .slice = 32, .rowsort = 1, .wg = 256};
            if (xbuf_twin(&w, &u)) add(ctx, &L, u, q);
        }
        /* past the deadline, only those whose storage is kept (no new build), and the twins
         * of short columns (at most three storages) and of rows sorted with x from a buffer */
        for (int i = n0; i < L.n && !r && !overdue(&b, q); i++) {
            if (L.c[i].tried) continue;
            if (q->deadline_ms > 0 && texla__now_ms() > q->deadline_ms &&
                kept_of(&b, &L.c[i]) < 0 && !L.c[i].v.cols16 && !L.c[i].v.rowsort)
                continue;
            r = run_storage(&b, fn, q, &L, i, 0);
        }
        best = best_of(&L);
        if (!r && best >= 0) r = vec4_twins(&b, fn, q, &L, best);
        best = best_of(&L);
    }
    /* long rows in chunks of four times the entries: a twin of the fastest variant with
     * chunks, built even past the deadline (fewer chunks, each ending with its row's count:
     * H100, dense_rows' 64 rows of 2^17, SELL-32 by groups 126.4 us against 135.8; circuit's
     * rows of 10^4..10^6, CSR a row with x from a buffer, 81.4 against 78.5), at its
     * workgroup size, at 256 and at 512 (a chunk's entries an invocation: dense_rows' twin at
     * 128, the first round's size, ran 146.9 us against 142.7 with chunks of 4096; at 256
     * 125.0, at 512 119.0, where its long rows alone ran 56.2 and 47.9) */
    if (!r && q->compute && best >= 0) {
        /* the fastest whose chunks are real: a row past its threshold and past one chunk (else
         * the twin is the same storage); not, unless every candidate is asked for, where it is
         * far behind the best (R-MAT's merge path: 165 us against 420 and more) */
        const sp_stats *st = q->pl[0] ? q->pl[0]->st : NULL;
        int longest = st ? (q->op ? st->cmax : st->lmax) : 0, lb = -1;
        for (int i = 0; i < L.n; i++) {
            const texla_sparse_variant *v = &L.c[i].v;
            if (L.c[i].ok && v->long_rows && v->long_chunk <= SP_CHUNK &&
                longest > v->long_chunk && longest > v->long_rows &&
                (lb < 0 || L.c[i].us < L.c[lb].us))
                lb = i;
        }
        if (lb >= 0 && !q->all && L.c[lb].us > 1.5 * L.c[best].us) lb = -1;
        if (lb >= 0) {
            texla_sparse_variant u = L.c[lb].v;
            u.long_chunk = 4 * L.c[lb].v.long_chunk;
            int n1 = L.n;
            add(ctx, &L, u, q);
            u.wg = 256;
            add(ctx, &L, u, q);
            u.wg = 512;
            add(ctx, &L, u, q);
            for (int i = n1; i < L.n && !r && !overdue(&b, q); i++)
                if (!L.c[i].tried) r = run_storage(&b, fn, q, &L, i, 0);
            best = best_of(&L);
        }
    }
    if (!r && q->compute && best >= 0) {
        int top[2] = {best, -1};
        for (int i = 0; i < L.n; i++)
            if (L.c[i].ok && i != best && (top[1] < 0 || L.c[i].us < L.c[top[1]].us)) top[1] = i;
        /* a best of rows sorted (a storage per size, whose other sizes the deadline cuts) goes
         * second: first the fastest whose other sizes run on its kept storage (H100, circuit: SELL
         * rows sorted 89.1 us at 256 invocations ahead of CSR a row at 128, 90.9, whose 256,
         * 87.4, was then never timed) */
        if (L.c[best].v.rowsort) {
            int other = -1;
            for (int i = 0; i < L.n; i++)
                if (L.c[i].ok && !L.c[i].v.rowsort && L.c[i].v.sched != TEXLA_SCHED_ATOMIC &&
                    kept_of(&b, &L.c[i]) >= 0 && (other < 0 || L.c[i].us < L.c[other].us))
                    other = i;
            if (other >= 0) top[0] = other, top[1] = best;
        }
        int n0 = L.n, uni = uniform_rows(q), wlo[2] = {n0, n0}, whi[2] = {n0, n0};
        for (int t = 0; t < 2; t++) {
            if (top[t] < 0 || L.c[top[t]].v.sched == TEXLA_SCHED_ATOMIC) continue;
            texla_sparse_variant v = L.c[top[t]].v;
            int wgs[2] = {64, 256};
            wlo[t] = L.n;
            for (int w = 0; w < 2; w++) {
                texla_sparse_variant u = v;
                u.wg = wgs[w];
                add(ctx, &L, u, q);
            }
            whi[t] = L.n;
            static const int dists[3][2] = {{1, 4}, {2, 4}, {2, 8}};
            for (int d = 0; d < 3 && !uni; d++) {
                texla_sparse_variant u = v;
                u.dist = dists[d][0];
                u.bpsm = dists[d][1];
                add(ctx, &L, u, q);
            }
        }
        /* past the deadline, the best two's other workgroup sizes still (the best after the
         * twins, or the fastest whose storage serves every size, and the second), each alone on
         * its kept storage (no build; a kernel's compile and its timing: H100, circuit's CSR a
         * row with x from a buffer, 86.6 us at 256 invocations against 89.4 at 128, which the
         * budget had not reached; H200, kkt's A x, the second best, SELL-32 by groups with rows
         * sorted, 108.7 us at 256 against 118.6 at 128, where the best's 256 ran 112.2) */
        for (int i = n0; i < L.n && !r && !overdue(&b, q); i++) {
            if (L.c[i].tried) continue;
            if (q->deadline_ms > 0 && texla__now_ms() > q->deadline_ms) {
                int sized = (i >= wlo[0] && i < whi[0]) || (i >= wlo[1] && i < whi[1]);
                if (sized && kept_of(&b, &L.c[i]) >= 0) r = run_storage(&b, fn, q, &L, i, 1);
                continue;
            }
            r = run_storage(&b, fn, q, &L, i, 0);
        }
    }
    if (!r && best_of(&L) >= 0 && !overdue(&b, q)) r = final_round(&b, q, &L);
    best = -1;
    for (int i = 0; i < L.n; i++) /* the choice: the fastest finalist, on its final time */
        if (L.c[i].final && (best < 0 || L.c[i].us < L.c[best].us)) best = i;
    if (best < 0) best = best_of(&L);
    if (!r && best < 0)
        r = texla__fail(ctx, TEXLA_ERR_UNSUPPORTED,
                        "%s: no candidate variant ran correctly here (%d tried)", fn, L.n);
    if (!r) {
        *best_v = L.c[best].v;
        *us = L.c[best].us;
        int k = kept_of(&b, &L.c[best]);
        if (k >= 0) {
            *form = b.keep[k].f;
            b.keep[k].used = 0;
        } else {
            r = make_form(ctx, fn, q, &L.c[best], form);
        }
    }
    texla__pool_give(g, &b.xo.t);
    texla__pool_give(g, &b.yo.t);
done:
    if (compile_threads >= 0) texla__compile_threads(&ctx->gl, compile_threads);
    for (int i = 0; i < KEEP; i++)
        if (b.keep[i].used) sp_form_free(ctx, &b.keep[i].f);
    /* the trials, for reports */
    q->ntrials = 0;
    {
        const sp_csr *m = p0->m;
        double native = ((double)m->rows + 1) * 4 + (double)m->nnz * (4 + 4.0 * m->k) +
                        (double)xl->n * 4 + (double)yl->n * 4;
        for (int i = 0; i < L.n; i++) {
            if (!L.c[i].tried) {
                q->skipped++;
                continue;
            }
            if (q->trials && q->ntrials < q->max_trials) {
                texla_sparse_trial *t = &q->trials[q->ntrials];
                t->op = (texla_sparse_op)q->op;
                t->v = L.c[i].v;
                t->us = L.c[i].ok ? L.c[i].us : -1;
                t->gbs = L.c[i].ok && L.c[i].us > 0 ? native / (L.c[i].us * 1e3) : 0;
                t->bytes = L.c[i].bytes;
                t->padding = L.c[i].padding;
                t->ok = L.c[i].ok;
                t->final = L.c[i].final;
                t->build_s = L.c[i].build_ms * 1e-3;
                t->at_s = L.c[i].at_ms * 1e-3;
                t->first_us = L.c[i].ok ? L.c[i].first_us : -1;
                t->looks = L.c[i].ok ? L.c[i].looks : 0;
            }
            q->ntrials++;
        }
    }
    texla__buf_free(g, &b.scr.ylin);
    texla__buf_free(g, &b.scr.xlin);
    texla__buf_free(g, &b.spin.sink);
    ref_ready(&b.rj); /* (a tuning that failed before its first check) */
    free(x), free(xtex), free(b.tex), free(b.y), free(b.rf.y), free(b.rf.bound), free(L.c);
    return r;
}
