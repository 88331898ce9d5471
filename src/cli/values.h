/* values.h - the interpreter's values (scalars, dense matrices, vectors, banded and sparse
 * matrices), their conversions and their files. Values are immutable and reference counted: an
 * assignment shares, every operation makes a new value, so no texla call ever writes a source.
 *
 * Every n x 1 value is a V_VEC: a texla_vec in the 2D layout, which holds vectors of any length
 * the GL's textures can (4 * max_texture_size^2 elements), where the dense 4x1 layout stops at
 * 4 * max_texture_size rows. Operations that need the dense n x 1 form (dense products with a
 * vector on the left, the LCP solver) convert on the GPU for that call. A vector's grid (nx x ny,
 * for images) is its logical shape; its texla_vec may be in any layout, and operations that need
 * a given layout (a banded product, two operands of one element-wise operation) copy it there. */
#ifndef TEXLA_CLI_VALUES_H
#define TEXLA_CLI_VALUES_H

#include "cli.h"

#include "../base/optable.h" /* texla's operation table: a pure list, no library internals */

/* the rows of the operation table */
enum {
#define CLI_X(name, ...) EW_##name,
    TEXLA__EW_OPS(CLI_X)
#undef CLI_X
    EW_COUNT
};
enum {
#define CLI_X(name, ...) RED_##name,
    TEXLA__REDUCE_OPS(CLI_X)
#undef CLI_X
    RED_COUNT
};

/* most elements a banded or sparse matrix is expanded to when it must be dense, and most
 * elements of a banded matrix's host copy (256 MiB) */
#define DENSE_MAX_ELEMS (1LL << 26)

typedef enum vkind { V_SCALAR = 1, V_DENSE, V_VEC, V_BANDED, V_SPARSE } vkind;

typedef struct val {
    int refs;
    vkind kind;
    double s;            /* V_SCALAR: a host number */
    int rows, cols;      /* matrices and vectors (rows x 1) */
    int nx, ny;          /* the grid of a vector, or of a banded matrix's vectors; 0: none */
    texla_mat m;         /* V_DENSE (never n x 1) */
    texla_vec x;         /* V_VEC */
    texla_banded b;      /* V_BANDED: the GPU diagonals and their host copy */
    int ndiag, *offs;
    float *diags;        /* diags[i * rows + k] = A(k, k + offs[i]); NULL until asked for when
                            the matrix is a poisson(...) (made from its parameters on demand) */
    double pa, pb;       /* poisson: alpha, beta */
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

/* what a solver reported, for --strict and the residual plot (interp.c) */
typedef struct solve_note {
    int unsolved;        /* the last solve did not meet its tolerance */
    char why[256];
} solve_note;

typedef struct interp {
    /* evaluates an expression (interp.c's eval_node): builtins.c evaluates its arguments through
     * it, so the two files do not call each other in a circle */
    struct val *(*eval)(struct interp *in, const node *n);
    texla_ctx *ctx;
    const script *sc;
    FILE *out;
    diag *err;
    const run_opts *opt;
    int failed;
    var *vars;
    int nvars, capvars;
    int *vhash;          /* open addressing over vars (index + 1; 0: empty), vhcap slots */
    int vhcap, vhn;      /* vhn: the vars indexed so far */
    int max_tex;         /* GL_MAX_TEXTURE_SIZE */
    /* the residual history of the last solve of the statement running (history "FILE") */
    int want_hist;
    float *hist;
    int *hist_it, *hist_true; /* the iteration of each entry; cg: 1 for a true residual */
    int nhist, caphist, hist_split; /* hist_split: true residuals drawn as dots */
    char hist_title[160];
    const char *hist_ylabel;
} interp;

/* values.c: the variable of that name, or NULL */
var *find_var(interp *in, const char *name);
/* values.c: the variables appended since the last call indexed for find_var (a linear scan
 * took 39 s over 80000 variables); 0, or -1 out of memory (find_var then scans) */
int index_vars(interp *in);

/* builtins.c */
pos start_of(const interp *in, const node *n); /* where an expression's text starts */
val *eval_call(interp *in, const node *n);     /* a function call or an element read */
void builtin_list(char *buf, size_t n);        /* "rand, zeros, ..." */
/* a constant of x's shape and storage (dense, or a vector in x's layout) */
val *const_like(interp *in, pos at, const val *x, float f);
/* Row `row` of TEXLA__EW_OPS on dense matrices, or on vectors, of one shape: ops are its
 * sources in order, c its coefficient, f its floats. Vectors are combined in the layout of the
 * first with a grid (else the first's), and the result keeps that grid. */
val *ew_apply(interp *in, pos at, int row, val *const *ops, texla_coef c, const float *f);
/* row `row` of TEXLA__REDUCE_OPS of a (and b for dot) as a host number */
int reduce_val(interp *in, pos at, int row, val *a, val *b, double *out);

/* errors: the first one wins; each returns -1 */
int fail_at(interp *in, pos at, const char *fmt, ...) CLI_PRINTF(3, 4);
/* "WHAT: <texla's message>" */
int gl_fail(interp *in, pos at, const char *what);
/* a warning on stderr: FILE:LINE:COL: warning: ... (after what the script printed so far) */
void warn_at(interp *in, pos at, const char *fmt, ...) CLI_PRINTF(3, 4);

/* "3 x 4 dense matrix", "64 x 1 vector (8 x 8 grid)", "scalar 2.5", ... */
const char *describe_val(const val *v, char *buf, size_t n);

val *val_ref(val *v);
void val_unref(interp *in, val *v);

val *scalar_new(interp *in, double s);
/* rows x cols from row-major data (NULL: zeros); rows x 1 makes a vector */
val *dense_new(interp *in, pos at, int rows, int cols, const float *data);
val *dense_const(interp *in, pos at, int rows, int cols, float value);
val *dense_eye(interp *in, pos at, int n);
/* a vector of n elements with the grid nx x ny (0: none), in a plain layout (data NULL: 0) */
val *vec_new(interp *in, pos at, int n, int nx, int ny, const float *data);
/* takes v (a texla_vec of the context) into a new value with the grid nx x ny (0: none) */
val *vec_take(interp *in, pos at, texla_vec v, int nx, int ny);
/* takes offs and diags (malloc'd) in every case; nx == 0: a plain layout */
val *banded_new(interp *in, pos at, int n, int nx, int ny, int ndiag, int *offs, float *diags);
/* the n triplets ri, ci, vv of a matrix of cols columns with each cell once, in row then column
 * order, its values summed in float64 in their order: new arrays (malloc'd, the caller's) in
 * *ro, *co, *vo, their count in *m; -1 when out of host memory (nothing allocated) */
int cells_merge(int cols, int n, const int *ri, const int *ci, const float *vv, int *m, int **ro,
                int **co, float **vo);
/* takes ri, ci and vv (malloc'd) in every case */
val *sparse_new(interp *in, pos at, int rows, int cols, int nnz, int *ri, int *ci, float *vv);
/* alpha I + beta P, P the 5-point Laplacian of an nx x ny grid (texla_banded_poisson) */
val *poisson_new(interp *in, pos at, int nx, int ny, double alpha, double beta);
val *rand_new(interp *in, pos at, int rows, int cols, unsigned long seed);
/* the host copy of a banded matrix's diagonals (made on demand for a poisson(...)); -1: error */
int banded_host(interp *in, pos at, val *v);

/* the number v stands for: a number's, or the one element of a 1 x 1 value of any storage
 * (read back); 0, 1 when v is neither (nothing reported), -1 on an error (reported) */
int num_of(interp *in, pos at, const val *v, double *out);
/* row-major host copy of any value (malloc'd); banded and sparse limited by DENSE_MAX_ELEMS */
float *host_dense(interp *in, pos at, const val *v, const char *why);
/* dense storage on the GPU: V_DENSE, or V_VEC for n x 1 shapes */
val *to_dense(interp *in, pos at, val *v, const char *why);
val *to_sparse(interp *in, pos at, val *v, const char *why);
val *to_banded(interp *in, pos at, val *v, const char *why);
val *transpose(interp *in, pos at, val *v);
/* a copy of v on an nx x ny grid (vectors, banded matrices) */
val *with_grid(interp *in, pos at, val *v, int nx, int ny);

/* the vector of x (V_VEC) in like's layout (like.id == 0: any): x's own texla_vec (*owned 0)
 * or a copy in that layout (*owned 1: destroy it) */
int vec_in(interp *in, pos at, const val *x, texla_vec like, texla_vec *out, int *owned);
/* the vector of x on its grid nx x ny (a grid layout), for images; *owned as for vec_in */
int vec_on_grid(interp *in, pos at, const val *x, texla_vec *out, int *owned);
/* a dense texla_mat of any matrix or vector value (V_DENSE: its own, *owned 0; vectors and the
 * rest: a new one, *owned 1) */
int mat_of(interp *in, pos at, val *v, const char *why, texla_mat *out, int *owned);
/* the value of a dense texla_mat (taken): a V_DENSE, or a V_VEC when it is n x 1 */
val *val_of_mat(interp *in, pos at, texla_mat m, int rows, int cols);

/* files; relative load paths start in the script's folder */
val *load_file(interp *in, pos at, const char *path, load_as as);
int save_file(interp *in, pos at, const val *v, const char *path);
int png_file(interp *in, pos at, const val *v, const char *path, const texla_png_desc *d);
/* "label = shape" (label NULL: "  shape") and the top-left 10 x 10 values */
int print_val(interp *in, pos at, const val *v, const char *label);

#endif /* TEXLA_CLI_VALUES_H */
