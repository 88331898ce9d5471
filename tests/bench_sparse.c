/* bench_sparse.c - section spsuite of texla-bench: texla's sparse engine on the .tsp files of
 * bench/spgen.py (--spdir DIR), the matrices bench/peers.py times cuSPARSE on.
 *   python3 bench/spgen.py /tmp/sps --scale 1.0
 *   build/bin/texla-bench --sections spsuite --spdir /tmp/sps
 *   python3 bench/peers.py spsuite --spdir /tmp/sps
 * Per matrix (suite.json's order): the conversion of the CSR arrays into a texla_sparse, the
 * tuning of y = A x and y = A' x (every candidate timed, force = 1) and a second, cached tune,
 * then the tuned products timed like every texla-bench row (median of batches between glFinish
 * calls). GB/s counts the native .tsp bytes, as peers.py does: row_ptr + col + values + x + y.
 * Every candidate's time is printed for a few representative matrices (all of them go to
 * $OUT/texla_spsuite_trials.txt when OUT is set), the summary rows last. */
#include "bench.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_TRIALS 512
#define MAX_FILES 64

typedef struct tsp {
    int rows, cols, kind;
    long long nnz;
    int *ptr, *col;
    float *val;
} tsp;

static void tsp_free(tsp *m) {
    free(m->ptr), free(m->col), free(m->val);
    memset(m, 0, sizeof *m);
}

/* reads a .tsp file (see bench/tsp.py); 0 on success */
static int tsp_read(const char *path, tsp *m) {
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    char magic[8];
    int32_t h[4];
    int64_t nnz;
    int ok = fread(magic, 1, 8, f) == 8 && !memcmp(magic, "TXSP0001", 8) &&
             fread(h, 4, 4, f) == 4 && fread(&nnz, 8, 1, f) == 1 && h[0] >= 1 && h[1] >= 1 &&
             (h[2] == 1 || h[2] == 2 || h[2] == 4 || h[2] == 9) && nnz >= 0 && nnz < 0x7fffffff;
    if (ok) {
        m->rows = h[0], m->cols = h[1], m->kind = h[2], m->nnz = nnz;
        m->ptr = malloc(sizeof *m->ptr * ((size_t)m->rows + 1));
        m->col = malloc(sizeof *m->col * (size_t)(nnz ? nnz : 1));
        m->val = malloc(sizeof *m->val * (size_t)(nnz ? nnz : 1) * (size_t)m->kind);
        ok = m->ptr && m->col && m->val &&
             fread(m->ptr, 4, (size_t)m->rows + 1, f) == (size_t)m->rows + 1 &&
             fread(m->col, 4, (size_t)nnz, f) == (size_t)nnz &&
             fread(m->val, 4, (size_t)nnz * m->kind, f) == (size_t)nnz * m->kind &&
             m->ptr[0] == 0 && m->ptr[m->rows] == nnz;
    }
    fclose(f);
    if (!ok) tsp_free(m);
    return ok ? 0 : -1;
}

typedef struct spx {
    texla_ctx *ctx;
    texla_sparse a;
    texla_vec x, y, xt, yt;
    int t;
} spx;

static int run_n(void *arg) {
    spx *s = arg;
    return s->t ? texla_sparse_matvec_t(s->ctx, s->a, s->xt, s->yt) != TEXLA_OK
                : texla_sparse_matvec(s->ctx, s->a, s->x, s->y) != TEXLA_OK;
}

static int by_time(const void *pa, const void *pb) {
    const texla_sparse_trial *a = pa, *b = pb;
    if (a->op != b->op) return a->op - b->op;
    if (a->ok != b->ok) return b->ok - a->ok;
    return (a->us > b->us) - (a->us < b->us);
}

/* the .tsp files of dir, in suite.json's order when there is one */
static int list_files(const char *dir, char names[][64]) {
    int n = 0;
    char path[1024];
    snprintf(path, sizeof path, "%s/suite.json", dir);
    FILE *f = fopen(path, "rb");
    if (f) {
        static char buf[1 << 16];
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        buf[len] = '\0';
        fclose(f);
        for (char *p = buf; n < MAX_FILES && (p = strstr(p, "\"file\": \"")); ) {
            p += 9;
            size_t k = strcspn(p, "\"");
            if (k < 64) snprintf(names[n++], 64, "%.*s", (int)k, p);
            p += k;
        }
        if (n) return n;
    }
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < MAX_FILES) {
        size_t k = strlen(e->d_name);
        if (k > 4 && k < 64 && !strcmp(e->d_name + k - 4, ".tsp")) snprintf(names[n++], 64, "%s", e->d_name);
    }
    closedir(d);
    for (int i = 1; i < n; i++) /* sorted by name */
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char t[64];
            memcpy(t, names[j], 64), memcpy(names[j], names[j - 1], 64), memcpy(names[j - 1], t, 64);
        }
    return n;
}

static int representative(const char *name) {
    static const char *const reps[] = {"rand_1m_16", "fem3x3", "rmat", "circuit", "complex3x3"};
    for (size_t i = 0; i < sizeof reps / sizeof reps[0]; i++)
        if (!strncmp(name, reps[i], strlen(reps[i]))) return 1;
    return 0;
}

/* t is exactly fmt's word with one (two) numbers, nothing after them */
static int word1(const char *t, const char *fmt, int *a) {
    int end = -1;
    return sscanf(t, fmt, a, &end) == 1 && end > 0 && t[end] == '\0';
}
static int word2(const char *t, const char *fmt, int *a, int *b) {
    int end = -1;
    return sscanf(t, fmt, a, b, &end) == 2 && end > 0 && t[end] == '\0';
}

/* a variant in the words texla_sparse_variant_names prints, as in the candidate tables
 * ("csr row xbuf long>256/4096 wg=128", "sell row C=32 rowsort"); 0 on success (at most 255
 * characters a variant, 1023 for SP_PIN's whole list) */
static int parse_variant(const char *text, texla_sparse_variant *v) {
    static const char *const fn[] = {"auto", "points", "gather", "coo", "csr",
                                     "csc",  "ell",    "sell",   "bsr"};
    static const char *const sn[] = {"auto",   "row",  "lanes",   "group",
                                     "atomic", "draw", "segment", "merge", "stream"};
    char buf[256], *save = NULL;
    snprintf(buf, sizeof buf, "%s", text);
    memset(v, 0, sizeof *v);
    int i = 0, ok = 1;
    for (char *t = strtok_r(buf, " ", &save); t && ok; t = strtok_r(NULL, " ", &save), i++) {
        int a = 0, b = 0;
        if (i == 0 || i == 1) {
            int found = -1;
            for (int j = 0; j < 9; j++)
                if (!strcmp(t, i ? sn[j] : fn[j])) found = j;
            if (found < 0) ok = 0;
            else if (i) v->sched = (texla_sparse_sched)found;
            else v->format = (texla_sparse_format)found;
        } else if (word1(t, "C=%d%n", &a)) v->slice = a;
        else if (word1(t, "sigma=%d%n", &a)) v->sigma = a;
        else if (word1(t, "b=%d%n", &a)) v->block = a;
        else if (word1(t, "L=%d%n", &a) || word1(t, "E=%d%n", &a)) v->lanes = a;
        else if (word1(t, "wg=%d%n", &a)) v->wg = a;
        else if (word2(t, "long>%d/%d%n", &a, &b)) v->long_rows = a, v->long_chunk = b;
        else if (word1(t, "static/%d%n", &a)) v->dist = 1, v->bpsm = a;
        else if (word1(t, "dynamic/%d%n", &a)) v->dist = 2, v->bpsm = a;
        else if (!strcmp(t, "rowsort")) v->rowsort = 1;
        else if (!strcmp(t, "xbuf")) v->xbuf = 1;
        else if (!strcmp(t, "soa")) v->soa = 1;
        else if (!strcmp(t, "cols16")) v->cols16 = 1;
        else if (!strcmp(t, "cols8")) v->cols8 = v->cols16 = 1;
        else if (!strcmp(t, "vec4")) v->vec4 = 1;
        else if (!strcmp(t, "tiles")) v->tiles = 1;
        else if (!strcmp(t, "csr")) v->bell = 0;
        else if (!strcmp(t, "ell")) v->bell = 1;
        else if (!strcmp(t, "sell")) v->bell = 2;
        else if (!strcmp(t, "sym")) v->bell = 3;
        else ok = 0;
    }
    return ok && i >= 2 ? 0 : -1;
}

/* A x pinned to each variant of list ("csr row xbuf wg=128;sell row C=32 rowsort"), the GPU's
 * time of each printed; then unpinned */
static void time_pins(spx *s, const char *name, const char *list, int batches) {
    char plist[1024], *save = NULL;
    snprintf(plist, sizeof plist, "%s", list);
    s->t = 0;
    for (char *t = strtok_r(plist, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
        texla_sparse_variant v;
        if (parse_variant(t, &v)) {
            printf("  %s pin '%s': not a variant\n", name, t);
            continue;
        }
        if (texla_sparse_pin(s->ctx, s->a, TEXLA_SPARSE_N, &v) == TEXLA_OK) {
            double ms = gpu_time_op(run_n, s, batches);
            double wall = ms < 0 ? -1 : time_op(run_n, s, batches);
            printf("  %s pin %-40s GPU %.4f ms, wall %.4f ms%s%s\n", name, t, ms, wall,
                   ms < 0 ? ": " : "", ms < 0 ? texla_error_message(s->ctx) : "");
        } else {
            printf("  %s pin %-40s %s\n", name, t, texla_error_message(s->ctx));
        }
    }
    texla_sparse_pin(s->ctx, s->a, TEXLA_SPARSE_N, NULL);
}

/* the wall clock's time of day, UTC, to the millisecond (to line up with nvidia-smi's log) */
static void clock_text(char *buf, size_t cap) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long long ms = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    snprintf(buf, cap, "%02lld:%02lld:%02lld.%03lld", ms / 3600000 % 24, ms / 60000 % 60,
             ms / 1000 % 60, ms % 1000);
}

static void print_trials(FILE *f, const char *name, texla_sparse_trial *t, int n, int top) {
    qsort(t, (size_t)n, sizeof *t, by_time);
    for (int op = 0; op < 2; op++) {
        fprintf(f, "  %s, y = A%s x: candidates (fastest first)\n", name, op ? "'" : "");
        int shown = 0;
        for (int i = 0; i < n; i++) {
            if ((int)t[i].op != op || (top && shown >= top)) continue;
            char fm[16], sc[16], pa[96];
            texla_sparse_variant_names(&t[i].v, fm, sc, pa);
            char built[32] = "";
            if (t[i].build_s > 0) snprintf(built, sizeof built, " (built in %.2f s)", t[i].build_s);
            char first[40] = ""; /* the first round's time, where it was looked at again */
            if (t[i].looks > 1) snprintf(first, sizeof first, " (first %.1f us)", t[i].first_us);
            if (t[i].ok)
                fprintf(f, "    %-6s %-7s %-38s %9.1f us %7.1f GB/s %8.1f MB pad %5.1f%% at %5.2f s"
                        "%s%s%s\n", fm, sc, pa, t[i].us, t[i].gbs, t[i].bytes / 1e6,
                        100 * t[i].padding, t[i].at_s, t[i].final ? " final" : "", built, first);
            else
                fprintf(f, "    %-6s %-7s %-38s  rejected at %5.2f s%s\n", fm, sc, pa, t[i].at_s,
                        built);
            shown++;
        }
    }
}

void bench_spsuite(const bench_env *e) {
    if (!e->spdir) {
        printf("\nspsuite: skipped (give --spdir DIR, made by bench/spgen.py)\n");
        return;
    }
    static char names[MAX_FILES][64];
    int nf = list_files(e->spdir, names);
    printf("\n## spsuite: texla's sparse engine on %s (%d matrices)\n", e->spdir, nf);
    const char *outdir = getenv("OUT");
    FILE *tf = NULL;
    if (outdir && *outdir) {
        char p[1024];
        snprintf(p, sizeof p, "%s/texla_spsuite_trials.txt", outdir);
        tf = fopen(p, "w");
    }
    texla_info inf;
    texla_ctx_info(e->ctx, &inf);
    texla_backend be = TEXLA_BACKEND_FRAGMENT;
    texla_ctx_get_backend(e->ctx, "spmv", &be);
    printf("device: %s; sparse products on the %s backend; tuning cache %s\n", inf.renderer,
           be == TEXLA_BACKEND_COMPUTE ? "compute" : "fragment", texla_tune_path(e->ctx));
    static char summary[MAX_FILES][2][320];
    int rows_out = 0;
    texla_sparse_trial *trials = malloc(sizeof *trials * MAX_TRIALS);
    for (int i = 0; i < nf && trials; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", e->spdir, names[i]);
        char name[64];
        snprintf(name, sizeof name, "%s", names[i]);
        name[strcspn(name, ".")] = '\0';
        tsp m;
        double t0 = now_ms();
        if (tsp_read(path, &m)) {
            printf("%s: cannot read %s\n", name, path);
            continue;
        }
        double read_ms = now_ms() - t0;
        texla_ctx *ctx = e->ctx;
        texla_entry entry = m.kind == 1 ? TEXLA_ENTRY_REAL : m.kind == 2 ? TEXLA_ENTRY_COMPLEX
                            : m.kind == 4 ? TEXLA_ENTRY_QUAT : TEXLA_ENTRY_BLOCK3;
        int vf = m.kind == 9 ? 3 : m.kind;
        spx s = {ctx, {0}, {0}, {0}, {0}, {0}, 0};
        float *xd = rnd((size_t)m.cols * vf), *xtd = rnd((size_t)m.rows * vf);
        int bad = !xd || !xtd || texla_vec_make_entries(ctx, m.cols, entry, xd, &s.x) ||
                  texla_vec_make_entries(ctx, m.rows, entry, NULL, &s.y) ||
                  texla_vec_make_entries(ctx, m.rows, entry, xtd, &s.xt) ||
                  texla_vec_make_entries(ctx, m.cols, entry, NULL, &s.yt);
        free(xd), free(xtd);
        texla_sparse_desc d = {entry, s.y, s.x, (int)m.nnz, m.ptr, NULL, m.col, m.val, 0, 0};
        t0 = now_ms();
        if (!bad) bad = texla_sparse_make(ctx, &d, &s.a) != TEXLA_OK;
        double make_s = (now_ms() - t0) / 1e3;
        texla_sparse_tune_desc td = {0}, t2 = {0};
        td.ops = 3;
        td.force = 1;
        td.trials = trials;
        td.max_trials = MAX_TRIALS;
        /* SP_BUDGET=S: the tuner's budget in seconds (< 0: every candidate); default its own */
        const char *bud = getenv("SP_BUDGET");
        if (bud && *bud) td.budget = atof(bud);
        /* SP_ALL=1: every candidate the tuner knows (texla_sparse_tune_desc.all) */
        const char *all = getenv("SP_ALL");
        td.all = all && *all == '1';
        t2.ops = 3;
        char began[32];
        clock_text(began, sizeof began);
        if (!bad) bad = texla_sparse_tune(ctx, s.a, &td) != TEXLA_OK;
        if (!bad) bad = texla_sparse_tune(ctx, s.a, &t2) != TEXLA_OK;
        if (bad) {
            printf("%s: %s\n", name, texla_error_message(ctx));
        } else {
            texla_sparse_info si;
            texla_sparse_info_get(ctx, s.a, &si);
            double native = 4.0 * (m.rows + 1) + 4.0 * m.nnz + 4.0 * m.kind * m.nnz +
                            4.0 * vf * ((double)m.rows + m.cols);
            printf("%s: %d x %d %s entries, %lld of them (rows %d..%d, mean %.1f); read %.0f ms, "
                   "made in %.2f s, tuned in %.2f s (%d candidates, %d skipped), cached tune %.3f s\n", name,
                   m.rows, m.cols, m.kind == 1 ? "real" : m.kind == 2 ? "complex"
                   : m.kind == 4 ? "quaternion" : "3x3-block", m.nnz, si.row_min, si.row_max,
                   si.row_mean, read_ms, make_s, td.seconds, td.ntrials, td.skipped, t2.seconds);
            int n = td.ntrials < MAX_TRIALS ? td.ntrials : MAX_TRIALS;
            if (tf) {
                fprintf(tf, "%s (%s), tuning began %s UTC\n", name, path, began);
                print_trials(tf, name, trials, n, 0);
            }
            if (representative(name)) print_trials(stdout, name, trials, n, 8);
            /* the wall clock of back-to-back public calls, then the GPU's own time of the
             * same calls (timer queries, as the tuner measures), in both orders: a gap between
             * them, or between the orders, is the public call's, not the kernel's */
            double wall[2][2], gpu[2][2];
            for (int pass = 0; pass < 2; pass++)
                for (int k = 0; k < 2; k++) {
                    int op = pass ? 1 - k : k;
                    s.t = op;
                    wall[pass][op] = time_op(run_n, &s, e->batches);
                    gpu[pass][op] = gpu_time_op(run_n, &s, e->batches);
                }
            printf("  %s timing: A x wall %.4f / %.4f ms, GPU %.4f / %.4f ms; A' x wall %.4f / "
                   "%.4f ms, GPU %.4f / %.4f ms (first / second pass; A x first, then A' x first); "
                   "tuner %.4f, %.4f ms\n", name, wall[0][0], wall[1][0], gpu[0][0], gpu[1][0],
                   wall[0][1], wall[1][1], gpu[0][1], gpu[1][1], si.us[0] * 1e-3, si.us[1] * 1e-3);
            /* SP_MERGE=1: the merge path at several items an invocation and workgroup sizes
             * (real entries); SP_PIN: the variants listed */
            const char *mg = getenv("SP_MERGE");
            if (mg && *mg == '1' && m.kind == 1)
                time_pins(&s, name, "csr merge E=4 wg=128;csr merge E=4 wg=256;csr merge E=4 "
                          "wg=512;csr merge E=8 wg=128;csr merge E=8 wg=256;csr merge E=16 wg=128",
                          e->batches);
            const char *pins = getenv("SP_PIN");
            if (pins && *pins) time_pins(&s, name, pins, e->batches);
            /* SP_RETUNE=N: tuned again N times (the GPU warm from the timings): the choices'
             * spread run to run, each retune's candidates in the trials file (the tuning cache
             * keeps the last retune's choice; the summary's times are the first tuning's) */
            const char *rt = getenv("SP_RETUNE");
            for (int k = 0, nrt = rt ? atoi(rt) : 0; k < nrt && k < 16; k++) {
                clock_text(began, sizeof began);
                td.ntrials = td.skipped = 0;
                if (texla_sparse_tune(ctx, s.a, &td) != TEXLA_OK) {
                    printf("  %s retune %d: %s\n", name, k + 1, texla_error_message(ctx));
                    break;
                }
                texla_sparse_info ri;
                if (texla_sparse_info_get(ctx, s.a, &ri) != TEXLA_OK) {
                    printf("  %s retune %d: %s\n", name, k + 1, texla_error_message(ctx));
                    break;
                }
                char f0[16], c0[16], p0[96], f1[16], c1[16], p1[96];
                texla_sparse_variant_names(&ri.now[0], f0, c0, p0);
                texla_sparse_variant_names(&ri.now[1], f1, c1, p1);
                printf("  %s retune %d (%.2f s, %d candidates, %d skipped): A x %s %s %s %.4f ms; "
                       "A' x %s %s %s %.4f ms\n", name, k + 1, td.seconds, td.ntrials, td.skipped,
                       f0, c0, p0, ri.us[0] * 1e-3, f1, c1, p1, ri.us[1] * 1e-3);
                if (tf) {
                    fprintf(tf, "%s (retune %d), tuning began %s UTC\n", name, k + 1, began);
                    print_trials(tf, name, trials, td.ntrials < MAX_TRIALS ? td.ntrials
                                                                          : MAX_TRIALS, 0);
                }
            }
            for (int op = 0; op < 2; op++) {
                s.t = op;
                double ms = wall[1][op] < wall[0][op] ? wall[1][op] : wall[0][op];
                char fm[16], sc[16], pa[96];
                texla_sparse_variant_names(&si.now[op], fm, sc, pa);
                snprintf(summary[rows_out][op], sizeof summary[0][0],
                         "| %-12s | %-9s | %10lld | %-3s | %-6s | %-7s | %-34s | %8.4f | %7.1f |",
                         name, m.kind == 1 ? "real" : m.kind == 2 ? "complex" : m.kind == 4
                         ? "quat" : "real3x3", m.nnz, op ? "A'x" : "Ax", fm, sc, pa, ms,
                         ms > 0 ? native / (ms * 1e6) : 0);
            }
            rows_out++;
        }
        texla_sparse_destroy(ctx, s.a);
        texla_vec_destroy(ctx, s.x), texla_vec_destroy(ctx, s.y);
        texla_vec_destroy(ctx, s.xt), texla_vec_destroy(ctx, s.yt);
        tsp_free(&m);
    }
    free(trials);
    if (tf) fclose(tf);
    printf("\n| %-12s | %-9s | %10s | %-3s | %-6s | %-7s | %-34s | %8s | %7s |\n", "matrix", "class",
           "entries", "op", "format", "sched", "parameters", "ms", "GB/s");
    for (int i = 0; i < rows_out; i++) printf("%s\n%s\n", summary[i][0], summary[i][1]);
}
