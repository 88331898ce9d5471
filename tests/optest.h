/* optest.h - the library's operation table (src/base/optable.h) as test cases: every
 * element-wise operation and reduction, for matrices and vectors, with its float64 reference
 * (tests/ref_ops.c). Used by the operation suite (test_ops.c, every row on every backend in one
 * process), the host-state suite (test_state.c) and the benchmark rows. */
#ifndef TEXLA_OPTEST_H
#define TEXLA_OPTEST_H

#include "check.h"

typedef enum ot_type { OT_MAT, OT_VEC } ot_type;
typedef enum ot_sig { OT_c, OT_f, OT_A, OT_AB, OT_Ac, OT_AcB, OT_cB, OT_ABDE, OT_Af, OT_Aff } ot_sig;

/* the float64 reference of one element: s the sources' elements, k the coefficients (texla_coef
 * or float arguments, in argument order), old the destination's element before (in-place
 * operations); *mag gets the sum of the magnitudes of the terms (the error bound's scale) */
typedef double (*ot_ref_fn)(const double *s, const double *k, double old, double *mag);

typedef struct ot_row {
    const char *name, *formula;
    ot_sig sig;
    int nsrc;     /* source operands */
    int ncoef;    /* texla_coef arguments (0 or 1) */
    int nfloat;   /* float arguments (0..2) */
    int inplace;  /* reads dst (accumulating operations) */
    ot_ref_fn ref;
    void (*mat_fn)(void), (*vec_fn)(void); /* the wrappers, called through ot_call */
} ot_row;

extern const ot_row ot_rows[];
extern const int ot_nrows;

/* reductions: fold 0 sum, 1 max, 2 min; map 0 none, 1 a.*b, 2 a.*a, 3 |a| */
typedef struct ot_red {
    const char *name, *formula;
    int two, fold, map;
    void (*mat_fn)(void), (*vec_fn)(void);
} ot_red;

extern const ot_red ot_reds[];
extern const int ot_nreds;

/* calls a row's wrapper for type t: src the sources' handle ids (nsrc), dst, c the coefficient
 * (when ncoef), f the floats (when nfloat) */
texla_result ot_call(texla_ctx *ctx, const ot_row *r, ot_type t, const uint64_t *src,
                     uint64_t dst, texla_coef c, const float *f);
texla_result ot_reduce(texla_ctx *ctx, const ot_red *r, ot_type t, uint64_t a, uint64_t b,
                       texla_scalar dst);
/* float64 reference of a reduction over n elements (b may be NULL); *bound its error bound */
double ot_reduce_ref(const ot_red *r, const float *a, const float *b, size_t n, double *bound);

/* One case: a shape of type t (matrix rows x cols, or vector: grid nx x ny when grid, else n
 * = rows), random sources, dst (random too for in-place rows), a coefficient (on the GPU when
 * gpu_coef); runs the row, reads dst back, checks every element against the reference within
 * 8u times its magnitude and every padding lane zero. out (may be NULL) gets the n elements for
 * cross-backend comparison; returns the number of failed checks. */
typedef struct ot_shape {
    int rows, cols; /* matrices; vectors: rows = n (plain) */
    int grid, nx, ny;
} ot_shape;
int ot_case(texla_ctx *ctx, const ot_row *r, ot_type t, ot_shape sh, int gpu_coef,
            const char *label, float *out, size_t *n_out);
int ot_red_case(texla_ctx *ctx, const ot_red *r, ot_type t, ot_shape sh, const char *label,
                float *out);
size_t ot_elems(ot_type t, ot_shape sh);

#endif
