/* values.h - the interpreter's values (scalars and dense, banded and sparse matrices), their
 * conversions and their files. Values are immutable and reference counted: an assignment
 * shares, every operation makes a new value, so no texla call ever writes a source. */
#ifndef TEXLA_CLI_VALUES_H
#define TEXLA_CLI_VALUES_H

#include "cli.h"

/* most elements a banded or sparse matrix is expanded to when it must be dense (256 MiB) */
#define DENSE_MAX_ELEMS (1LL << 26)

typedef enum vkind { V_SCALAR = 1, V_DENSE, V_BANDED, V_SPARSE } vkind;

typedef struct val {
    int refs;
    vkind kind;
    double s;            /* V_SCALAR: a host number */
    int rows, cols;      /* matrices; a vector is a rows x 1 dense matrix */
    int nx, ny;          /* the grid of a vector, or of a banded matrix's vectors; 0: none */
    texla_mat m;         /* V_DENSE */
    texla_banded b;      /* V_BANDED: the GPU diagonals and their host copy */
    int ndiag, *offs;
    float *diags;        /* diags[i * rows + k] = A(k, k + offs[i]) */
    texla_sparse sp;     /* V_SPARSE: the GPU points and the host triplets (duplicates add) */
    int nnz, *ri, *ci;
    float *vv;
    texla_vec like;      /* banded: a vector of its layout; sparse: of its row layout */
    texla_vec clike;     /* sparse: of its column layout */
} val;

typedef struct var {
    const char *name;
    val *v;
} var;

typedef struct interp {
    texla_ctx *ctx;
    const script *sc;
    FILE *out;
    diag *err;
    int failed;
    var *vars;
    int nvars, capvars;
} interp;

/* errors: the first one wins; each returns -1 */
int fail_at(interp *in, pos at, const char *fmt, ...) CLI_PRINTF(3, 4);
/* "WHAT: <texla's message>" */
int gl_fail(interp *in, pos at, const char *what);

/* "3 x 4 dense matrix", "64 x 1 vector (8 x 8 grid)", "scalar 2.5", ... */
const char *describe_val(const val *v, char *buf, size_t n);

val *val_ref(val *v);
void val_unref(interp *in, val *v);

val *scalar_new(interp *in, double s);
/* rows x cols from row-major data (NULL: zeros) */
val *dense_new(interp *in, pos at, int rows, int cols, const float *data);
val *dense_const(interp *in, pos at, int rows, int cols, float value);
val *dense_eye(interp *in, pos at, int n);
/* takes offs and diags (malloc'd) in every case; nx == 0: a plain layout */
val *banded_new(interp *in, pos at, int n, int nx, int ny, int ndiag, int *offs, float *diags);
/* takes ri, ci and vv (malloc'd) in every case */
val *sparse_new(interp *in, pos at, int rows, int cols, int nnz, int *ri, int *ci, float *vv);
/* alpha I + beta P, P the 5-point Laplacian of an nx x ny grid (texla_banded_poisson) */
val *poisson_new(interp *in, pos at, int nx, int ny, double alpha, double beta);
val *rand_new(interp *in, pos at, int rows, int cols, unsigned long seed);

/* row-major host copy of any matrix (malloc'd); banded and sparse limited by DENSE_MAX_ELEMS */
float *host_dense(interp *in, pos at, const val *v, const char *why);
val *to_dense(interp *in, pos at, val *v, const char *why);
val *to_sparse(interp *in, pos at, val *v, const char *why);
val *to_banded(interp *in, pos at, val *v, const char *why);
val *transpose(interp *in, pos at, val *v);
/* a copy of v on an nx x ny grid (vectors, banded matrices) */
val *with_grid(interp *in, pos at, val *v, int nx, int ny);

/* x (an n x 1 dense value) as a 2D vector: of like's layout when like.id != 0, else on x's
 * grid or a plain one */
int vec_of(interp *in, pos at, const val *x, texla_vec like, texla_vec *out);
/* the n x 1 dense value of a 2D vector, keeping the grid nx x ny (0: none) */
val *dense_of_vec(interp *in, pos at, texla_vec v, int nx, int ny);

/* files; relative load paths start in the script's folder */
val *load_file(interp *in, pos at, const char *path, load_as as);
int save_file(interp *in, pos at, const val *v, const char *path);
int png_file(interp *in, pos at, const val *v, const char *path, const texla_png_desc *d);
int print_val(interp *in, pos at, const val *v, const char *label);

#endif /* TEXLA_CLI_VALUES_H */
