/* testutil.h - helpers of the suites that check 2D vectors (test_vec.c, test_banded.c,
 * test_solvers.c): vector shapes, making vectors, reading them back raw and through
 * texla_vec_read against the documented layout (see test_vec.c), and element-wise checks.
 * They work on the suite's context, given to tu_begin when the suite starts. */
#ifndef TEXLA_TESTUTIL_H
#define TEXLA_TESTUTIL_H
#include "check.h"

/* A suite starts: the helpers below work on ctx, and the count of padding lanes that held -0.0
 * starts at 0 (check_negzero_reset). */
void tu_begin(texla_ctx *ctx);
/* The suite ends (before it destroys its context): the note on -0.0 padding lanes, if any
 * (check_negzero_report). */
void tu_end(void);

typedef struct vshape {
    int grid;      /* 1: nx x ny PDE grid vector; 0: plain vector of length n */
    int n, nx, ny;
} vshape;
typedef struct sname_buf { char s[48]; } sname_buf;

vshape plain_shape(int n);
vshape grid_shape(int nx, int ny);
/* "plain n=N" or "grid NXxNY" */
sname_buf sname(vshape s);

/* texla_vec_make / _make_grid of shape s from data (NULL: zeros); one check */
texla_vec mkv(vshape s, const float *data, const char *what);
/* texla_vec_info_get against the contract; returns 0 when it held. */
int vinfo(texla_vec v, vshape s, texla_vec_info *inf, const char *what);
/* Reads v back raw and through texla_vec_read; out gets n floats unpacked from the raw texels
 * by the documented layout, every padding lane must be 0 (-0.0 is counted by check_negzero)
 * and texla_vec_read must agree bit for bit. Returns 0 when every check held. */
int vfetch(texla_vec v, vshape s, float *out, const char *what);

/* got must equal want bit for bit */
void expect_exact(const float *got, const float *want, size_t n, const char *what);
/* v must still hold data exactly (padding 0) */
void expect_holds(texla_vec v, vshape s, const float *data, const char *what);
/* |got_i - ref_i| <= bnd_i for every i; returns the worst err/bound ratio (0/0 counts 0) */
double expect_bound(const float *got, const double *ref, const double *bnd, size_t n,
                    const char *what, const char *bound_name);

#endif
