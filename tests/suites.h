/* suites.h - the suites linked into build/bin/test-texla (tests/main.c runs them in order). */
#ifndef TEXLA_SUITES_H
#define TEXLA_SUITES_H
#include "check.h"

/* a headless texla context for a suite; NULL (and a failed check) when none can be made */
texla_ctx *suite_ctx(const texla_ctx_desc *desc);
/* the backend asked for by TEXLA_TEST_BACKEND (suite_ctx applies it when desc leaves it 0) */
texla_backend suite_backend(void);

void suite_dense(void);  /* tests/test_dense.c: every operation against float64 CPU references */
void suite_errors(void); /* tests/test_errors.c: exact error codes for bad calls */
void suite_state(void);  /* tests/test_state.c: host mode leaves the host's GL state unchanged */
void suite_vec(void);    /* tests/test_vec.c: 2D vectors, scalars, reductions, conversions */
void suite_banded(void); /* tests/test_banded.c: banded and sparse matrix-vector products */
void suite_mm(void);     /* tests/test_mm.c: Matrix Market reader and writer */
void suite_solvers(void);/* tests/test_solvers.c: CG and projected Jacobi (LCP) */
void suite_png(void);    /* tests/test_png.c: PNG dumps and reading */
void suite_wave(void);   /* tests/test_wave.c: the wave demo's simulation against the CPU */
void suite_ops(void);    /* tests/test_ops.c: the operation table on every backend, one process */
void suite_cubes(void);  /* tests/test_cubes.c: the cubes demo's physics and contact LCP */
void suite_handles(void); /* tests/test_handles.c: handles of other contexts, stale handles */
void suite_files(void);  /* tests/test_files.c: what writers do at PATH, bounded readers */
void suite_kernels(void);/* tests/test_kernels.c: the compute kernels against float64 and the fragment path */
void suite_sparse(void); /* tests/test_sparse.c: the sparse engine: formats, schedules, entries,
                            the tuner and its cache */
void suite_lcp_op(void); /* tests/test_lcp_op.c: operator products, matrix-free LCP (vectors) */
#endif
