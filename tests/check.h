/* check.h - texla's tiny test framework: counters, seeds, normwise errors, and a way to
 * make a headless context. Each test binary ends with the line "N passed, M failed,
 * K skipped"; tests/run.sh adds the lines of all binaries up. */
#ifndef TEXLA_CHECK_H
#define TEXLA_CHECK_H

#include "texla.h"

#include <stdint.h>
#include <stdio.h>

extern int check_passed, check_failed, check_skipped;

/* CHECK(cond, fmt, ...): counts one assertion; prints the message with file:line on failure. */
#define CHECK(cond, ...) check_report(!!(cond), __FILE__, __LINE__, #cond, __VA_ARGS__)
void check_report(int ok, const char *file, int line, const char *expr, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* Counts a test that cannot run here, with the reason. */
void check_skip(const char *what, const char *why);
/* Prints the summary line; returns the process exit status (0: nothing failed). */
int check_summary(void);

/* Deterministic generator seeded per run (seed printed by check_seed). */
uint64_t check_seed(void);
void check_srand(uint64_t seed);
double check_rand(void);                 /* uniform in [-1, 1) */
void check_fill(float *x, size_t n);     /* uniform in [-1, 1) */

/* ||x - ref||_2 / ||ref||_2 (or ||x - ref|| when ref is 0) */
double check_relerr(const float *x, const double *ref, size_t n);
/* ||x||_2 of float or double data */
double check_norm_f(const float *x, size_t n);
double check_norm_d(const double *x, size_t n);

#define CHECK_U 5.9604644775390625e-08 /* 2^-24, float32 unit roundoff */

#endif
