/* check.h - texla's tiny test framework: counters, seeds, normwise errors, and what the suites
 * share: result-code checks, gamma_k, a clock, host buffers, the -0.0 padding note, scratch
 * folders (suites.h adds a headless context). Each test binary ends with the line "N passed,
 * M failed, K skipped"; tests/run.sh adds the lines of all binaries up. */
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
/* TEXLA_TEST_TRACE=1: every later check waits for ctx's GPU work and is named with the time
 * (stdout) and in the kernel log (/dev/kmsg, where writable): to place a GPU fault. NULL (before
 * ctx is destroyed): no more */
void check_trace(texla_ctx *ctx);
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
#define CHECK_REF_EPS 8.8817841970012523e-16 /* 2^-50: error of a float64 reference of <= 3 ops */

/* gamma_k = k u / (1 - k u) (Higham), u = CHECK_U */
double check_gamma(double k);
/* seconds on the monotonic clock */
double check_now(void);

/* calloc of n elements (at least one); out of memory ends the process with status 2 */
void *check_alloc(size_t n, size_t size);
/* n new floats uniform in [-1, 1) (check_fill); free() them */
float *check_rnd(size_t n);

/* CHECK_OK(ctx, r, what): counts one check that r is TEXLA_OK; the failure message names what,
 * the code and ctx's last error message. Evaluates to 1 when r is TEXLA_OK. */
#define CHECK_OK(ctx, r, what) check_ok_at(__FILE__, __LINE__, (ctx), (r), (what))
int check_ok_at(const char *file, int line, texla_ctx *ctx, texla_result r, const char *what);
/* CHECK_CODE(ctx, r, want, what): counts one check that r is exactly want (an error code, or
 * TEXLA_OK); the failure message names both codes and ctx's last error message. */
#define CHECK_CODE(ctx, r, want, what) check_code_at(__FILE__, __LINE__, (ctx), (r), (want), (what))
void check_code_at(const char *file, int line, texla_ctx *ctx, texla_result r, texla_result want,
                   const char *what);

/* The dense dot product and squared norm read back to the host: texla_mat_dot / _sqnorm into
 * a temporary GPU scalar, then texla_scalar_read. */
texla_result check_mat_dot(texla_ctx *ctx, texla_mat a, texla_mat b, float *out);
texla_result check_mat_sqnorm(texla_ctx *ctx, texla_mat a, float *out);

/* Padding lanes that held -0.0: equal to 0, so accepted, but counted and reported. A suite
 * calls check_negzero_reset at its start and check_negzero_report at its end (a note with the
 * count and the first operation, when there was any); check_negzero counts one lane. */
void check_negzero(const char *what);
void check_negzero_reset(void);
void check_negzero_report(void);

/* A scratch folder for files: check_mkdtemp makes one from a template such as
 * "/tmp/texla-mm-XXXXXX" (into dir, of size cap), 0 and a failed check when it cannot. */
int check_mkdtemp(char *dir, size_t cap, const char *templ);
/* dir/name, in one of 16 buffers used in turn */
const char *check_path(const char *dir, const char *name);

/* LC_NUMERIC set to a locale whose decimal point is ',' (de_DE or fr_FR: installed, else made
 * once with localedef into a scratch folder that LOCPATH names): its name, or NULL where none
 * can be had; keep gets what check_locale_restore puts back */
const char *check_comma_locale(char *keep, size_t cap);
void check_locale_restore(const char *keep);
/* how many files in dir have ".tmp" in their name (left-over temporaries); -1: dir unreadable */
int check_count_tmp(const char *dir);
/* unlinks the files in dir, then removes it; returns rmdir's result (errno set when -1) */
int check_rmdir_all(const char *dir);

#endif
