#include "check.h"

#include <dirent.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int check_passed, check_failed, check_skipped;

static texla_ctx *trace_ctx;
static FILE *trace_kmsg;

/* TEXLA_TEST_TRACE=1 (the sparse suite calls this with its context, and with NULL before it
 * destroys it): every check first waits for ctx's GPU work, then is named with the time on
 * stdout and, where /dev/kmsg can be written (root), in the kernel log, so a GPU fault's Xid
 * line there falls between two named checks */
void check_trace(texla_ctx *ctx) {
    const char *e = getenv("TEXLA_TEST_TRACE");
    if (!ctx || !e || !*e || !strcmp(e, "0")) {
        trace_ctx = NULL;
        return;
    }
    trace_ctx = ctx;
    if (!trace_kmsg) trace_kmsg = fopen("/dev/kmsg", "w");
}

static void trace(const char *file, int line, int ok) {
    if (!trace_ctx) return;
    texla_ctx_finish(trace_ctx);
    printf("trace %.6f %s:%d %s\n", check_now(), file, line, ok ? "ok" : "FAIL");
    if (trace_kmsg) {
        fprintf(trace_kmsg, "texla-trace %s:%d %s\n", file, line, ok ? "ok" : "FAIL");
        fflush(trace_kmsg);
    }
}

void check_report(int ok, const char *file, int line, const char *expr, const char *fmt, ...) {
    trace(file, line, ok);
    if (ok) {
        check_passed++;
        return;
    }
    check_failed++;
    printf("FAIL %s:%d: %s: ", file, line, expr);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

void check_skip(const char *what, const char *why) {
    check_skipped++;
    printf("SKIP %s: %s\n", what, why);
}

int check_summary(void) {
    printf("%d passed, %d failed, %d skipped\n", check_passed, check_failed, check_skipped);
    fflush(stdout);
    return check_failed ? 1 : 0;
}

static uint64_t rng_state;

uint64_t check_seed(void) {
    const char *e = getenv("TEXLA_TEST_SEED");
    uint64_t s = e && *e ? strtoull(e, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    printf("seed %llu (rerun with TEXLA_TEST_SEED=%llu)\n", (unsigned long long)s,
           (unsigned long long)s);
    return s;
}

void check_srand(uint64_t seed) { rng_state = seed * 2654435761u + 0x9E3779B97F4A7C15ull; }

double check_rand(void) {
    /* splitmix64 */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

void check_fill(float *x, size_t n) {
    for (size_t i = 0; i < n; i++) x[i] = (float)check_rand();
}

double check_norm_f(const float *x, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (double)x[i] * x[i];
    return sqrt(s);
}

double check_norm_d(const double *x, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += x[i] * x[i];
    return sqrt(s);
}

double check_relerr(const float *x, const double *ref, size_t n) {
    double e = 0, r = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)x[i] - ref[i];
        e += d * d;
        r += ref[i] * ref[i];
    }
    if (isnan(e)) return INFINITY;
    return r > 0 ? sqrt(e / r) : sqrt(e);
}

double check_gamma(double k) { return k * CHECK_U / (1.0 - k * CHECK_U); }

double check_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void *check_alloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        printf("test-texla: out of host memory (%zu x %zu bytes)\n", n, size);
        exit(2);
    }
    return p;
}

float *check_rnd(size_t n) {
    float *x = check_alloc(n, sizeof *x);
    check_fill(x, n);
    return x;
}

int check_ok_at(const char *file, int line, texla_ctx *ctx, texla_result r, const char *what) {
    check_report(r == TEXLA_OK, file, line, "r == TEXLA_OK", "%s: %s: %s", what,
                 texla_result_name(r), texla_error_message(ctx));
    return r == TEXLA_OK;
}

void check_code_at(const char *file, int line, texla_ctx *ctx, texla_result r, texla_result want,
                   const char *what) {
    check_report(r == want, file, line, "r == want",
                 "%s: returned %s, expected %s (message: \"%s\")", what, texla_result_name(r),
                 texla_result_name(want), r != TEXLA_OK ? texla_error_message(ctx) : "");
}

static long negzero_lanes;
static char negzero_first[160];

void check_negzero(const char *what) {
    if (!negzero_lanes++) snprintf(negzero_first, sizeof negzero_first, "%.150s", what);
}

void check_negzero_reset(void) { negzero_lanes = 0; }

void check_negzero_report(void) {
    if (negzero_lanes)
        printf("note: %ld padding lanes held -0.0 (equal to 0, accepted); first after %s\n",
               negzero_lanes, negzero_first);
}

int check_mkdtemp(char *dir, size_t cap, const char *templ) {
    snprintf(dir, cap, "%s", templ);
    if (mkdtemp(dir)) return 1;
    CHECK(0, "mkdtemp: %s", strerror(errno));
    return 0;
}

const char *check_path(const char *dir, const char *name) {
    static char buf[16][512];
    static int k;
    k = (k + 1) % 16;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static char loc_dir[64];  /* the locales made with localedef, removed at exit */
static pid_t loc_owner;   /* the process that made it (a forked child must not remove it) */

static void loc_cleanup(void) {
    char cmd[128];
    if (!loc_dir[0] || getpid() != loc_owner) return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", loc_dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", loc_dir);
}

static const char *comma_named(void) {
    static const char *names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8",
                                  "de_DE", "fr_FR"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (setlocale(LC_NUMERIC, names[i]) && localeconv()->decimal_point[0] == ',')
            return names[i];
    return NULL;
}

/* comma_named with LOCPATH at the folder of made locales (glibc reads it at each setlocale and
 * keeps what it loaded), LOCPATH put back after: the installed locales stay reachable */
static const char *comma_made(void) {
    const char *was = getenv("LOCPATH");
    char keep[512];
    snprintf(keep, sizeof keep, "%s", was ? was : "");
    setenv("LOCPATH", loc_dir, 1);
    const char *got = comma_named();
    if (was) setenv("LOCPATH", keep, 1);
    else unsetenv("LOCPATH");
    return got;
}

const char *check_comma_locale(char *keep, size_t cap) {
    const char *saved = setlocale(LC_NUMERIC, NULL);
    snprintf(keep, cap, "%s", saved ? saved : "C");
    const char *got = comma_named();
    static int tried;
    if (!got && !tried) {
        tried = 1;
        snprintf(loc_dir, sizeof loc_dir, "/tmp/texla-locale-XXXXXX");
        if (mkdtemp(loc_dir)) {
            loc_owner = getpid();
            atexit(loc_cleanup);
            char cmd[256];
            snprintf(cmd, sizeof cmd,
                     "localedef -i de_DE -f UTF-8 '%s/de_DE.UTF-8' >/dev/null 2>&1", loc_dir);
            /* its status is not the verdict: it exits 1 after warnings with the locale made */
            if (system(cmd) == -1) fprintf(stderr, "could not run localedef\n");
        } else {
            loc_dir[0] = '\0';
        }
    }
    if (!got && loc_dir[0]) got = comma_made();
    if (!got) setlocale(LC_NUMERIC, keep);
    return got;
}

void check_locale_restore(const char *keep) { setlocale(LC_NUMERIC, keep); }

int check_count_tmp(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strstr(e->d_name, ".tmp")) n++;
    closedir(d);
    return n;
}

int check_rmdir_all(const char *dir) {
    DIR *d = opendir(dir);
    if (d) {
        for (struct dirent *e; (e = readdir(d)) != NULL;)
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                unlink(check_path(dir, e->d_name));
        closedir(d);
    }
    return rmdir(dir);
}

static texla_result mat_reduce(texla_ctx *ctx, texla_mat a, const texla_mat *b, float *out) {
    texla_scalar s = {0};
    texla_result r = texla_scalar_make(ctx, 0.0f, &s);
    if (!r) r = b ? texla_mat_dot(ctx, a, *b, s) : texla_mat_sqnorm(ctx, a, s);
    if (!r) r = texla_scalar_read(ctx, s, out);
    texla_scalar_destroy(ctx, s);
    return r;
}

texla_result check_mat_dot(texla_ctx *ctx, texla_mat a, texla_mat b, float *out) {
    return mat_reduce(ctx, a, &b, out);
}

texla_result check_mat_sqnorm(texla_ctx *ctx, texla_mat a, float *out) {
    return mat_reduce(ctx, a, NULL, out);
}
