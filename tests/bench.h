/* bench.h - what the benchmark's section files share (tests/bench*.c, linked into
 * texla-bench): timing, table rows, sections. A new section: a file tests/bench_NAME.c with
 * void bench_NAME(const bench_env *e), declared here, and one line in bench.c's `extra`. */
#ifndef TEXLA_BENCH_H
#define TEXLA_BENCH_H

#include "texla.h"

#include <stddef.h>

typedef struct bench_env {
    texla_ctx *ctx;
    int soft;         /* a software rasteriser: small sizes */
    int batches;      /* batches per median */
    int quick;        /* --quick */
    const char *spdir; /* --spdir: the sparse suite's .tsp files (bench/spgen.py), or NULL */
} bench_env;

typedef int (*op_fn)(void *arg);
/* median ms per call of fn(arg): warm-up, then `batches` batches of >= 20 ms between
 * glFinish calls (fn returns nonzero on failure: -1) */
double time_op(op_fn fn, void *arg, int batches);
double gpu_time_op(op_fn fn, void *arg, int batches);
double now_ms(void);
/* one table row: | op | size | ms | rate (bytes or flops per ms) | of ceiling | limited by | */
void row(const char *op, const char *size, double ms, double bytes, double flops,
         const char *limit);
int want(const char *section); /* asked for by --sections (or no --sections) */
float *rnd(size_t n);          /* uniform in [-1, 1) */
/* a GL program of a vertex and a fragment shader, or of a compute shader (vs NULL, fs its
 * source); 0 where it does not compile or link (the log on stderr, after what) */
unsigned bench_program(const char *vs, const char *fs, const char *what);
int parse_list(const char *s, int *out, int max);

/* sections (tests/bench_NAME.c) */
void bench_kernels(const bench_env *e);
void bench_spsuite(const bench_env *e); /* the sparse suite of bench/spgen.py (--spdir) */
void bench_contact(const bench_env *e); /* a cubes-like contact LCP, matrix-free */
void bench_stream(const bench_env *e);  /* plain-GL compute read ceilings */

#endif
