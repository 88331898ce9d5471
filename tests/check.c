#include "check.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>

int check_passed, check_failed, check_skipped;

void check_report(int ok, const char *file, int line, const char *expr, const char *fmt, ...) {
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
