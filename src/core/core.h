/* core.h - contexts, handles, operands, the storage-kind registry, grids for images and the
 * shared pass recipes (the multi-pass product, reductions). Built on the GL layer (gl.h);
 * storage/, ops/ and io/ are built on this. */
#ifndef TEXLA_CORE_H
#define TEXLA_CORE_H

#include "gl/gl.h"

#include <stdio.h>

/* ---- objects and handles ----
 * A handle is (context tag << 44) | (generation << 20) | slot: a handle of another context, or
 * of a destroyed object, names nothing here (TEXLA_ERR_HANDLE). A slot whose generation would
 * wrap is retired, so a stale handle never names a later object. */
#define TEXLA__SLOT_BITS 20
#define TEXLA__GEN_BITS 24
#define TEXLA__TAG_BITS 20
#define TEXLA__MAX_OBJS ((1 << TEXLA__SLOT_BITS) - 1)

typedef enum texla__kind {
    TEXLA__KIND_FREE = 0,
    TEXLA__KIND_MAT,
    TEXLA__KIND_VEC,
    TEXLA__KIND_SCALAR,
    TEXLA__KIND_BANDED,
    TEXLA__KIND_SPARSE,
    TEXLA__KIND_OPERATOR, /* an operator made of others (ops/operator.c: products) */
    TEXLA__KIND_COUNT
} texla__kind;

/* The 2D layout of a vector: n elements, element k at cell (k mod nx, k div nx) of an even
 * gx x gy grid (nx <= gx; plain vectors have nx = gx). */
typedef struct texla__layout {
    int n, nx, gx, gy;
} texla__layout;

/* A picture of an object for the image writers (io/png.c): w x h cells, row 0 at the top. */
enum { TEXLA__CELL_VALUE, TEXLA__CELL_PAD, TEXLA__CELL_BACK };
/* a horizontal block of a picture (one diagonal of a banded matrix): rows y0 .. y0 + h - 1 */
typedef struct texla__grid_band {
    int y0, h;
    char label[24];
} texla__grid_band;
typedef struct texla__grid {
    int w, h;       /* cells */
    float *v;       /* w * h values */
    uint8_t *cls;   /* w * h TEXLA__CELL_* */
    int gpu;        /* lo..hi is the finite range of the values (lo > hi: none) */
    float lo, hi;
    char shape[160];  /* "texla:shape" */
    char *layout;     /* "texla:layout", allocated */
    texla__grid_band *bands; /* optional blocks, top to bottom (separators and labels when the
                                writer annotates); allocated */
    int nbands;
} texla__grid;
/* what the writer asks of a storage kind's grid */
typedef struct texla__grid_req {
    const char *fn; /* for messages */
    int raw;        /* the texture as stored, padding included */
    int range;      /* also compute the finite range (on the GPU where the values are there) */
    int max_side;   /* the largest image side the writer accepts, in pixels */
    int scale;      /* pixels per cell and side */
} texla__grid_req;

typedef struct texla__obj texla__obj;
/* What each storage file registers for its kind (storage/KIND.c). */
typedef struct texla__kind_desc {
    const char *name; /* "matrix", "vector", ... in messages */
    void (*release)(texla_ctx *ctx, texla__obj *o);           /* frees the part */
    void (*describe)(const texla__obj *o, char *buf, size_t n); /* "3 x 4", ... */
    texla_result (*grid)(texla_ctx *ctx, texla__obj *o, const texla__grid_req *q, texla__grid *g);
} texla__kind_desc;

/* The common header of every object; the storage kind owns `part`. */
struct texla__obj {
    uint32_t gen;       /* of the slot */
    uint8_t kind;       /* TEXLA__KIND_FREE when the slot is free */
    const texla__kind_desc *k;
    int next_free;      /* free list */
    int rows, cols;     /* the logical shape (a vector: n x 1, a scalar 1 x 1) */
    texla__layout lay;  /* VEC and the matrices on vectors (banded, sparse rows) */
    texla__tex t;       /* the primary texture (MAT, VEC, SCALAR) */
    void *part;         /* the kind's own data */
};

/* the tuning cache (tune.c) */
typedef struct texla__tune_entry {
    char *dev, *key, *val;
    int mine; /* put by this context since its last save (the save writes it over the file's) */
    int dead; /* found invalid here: not used, and dropped from the file at the next save */
} texla__tune_entry;
typedef struct texla__tune {
    int loaded, readonly;
    char path[1024];
    char device[300];
    texla__tune_entry *e;
    int n, cap;
} texla__tune;

/* the families of tuned kernels (variants.c) */
enum { TEXLA__FAM_GEMM, TEXLA__FAM_GEMV, TEXLA__FAM_GEMM_PATH, TEXLA__FAM_REDUCE, TEXLA__FAM_COUNT };

struct texla_ctx {
    texla__err err;
    texla__gl gl;
    texla_ctx_desc desc;
    uint32_t tag;           /* the context's handle tag */
    int matmul_k;
    texla__obj *objs;       /* slot 0 unused */
    int nobjs, capobjs, free_head;
    float calib_ms[TEXLA__NBACKENDS]; /* a copy timed on each backend at creation */
    texla__buf scratch;     /* kernels' partial results (reductions), made on first use */
    void *hscratch;         /* host memory reused by uploads made every step (texla__hscratch) */
    size_t hscratch_n;
    texla__tune tune;
    int pin[TEXLA__FAM_COUNT]; /* per kernel family (variants.c): variant + 1 pinned, 0: none */
};

#define texla__fail(ctx, ...) texla__errf(&(ctx)->err, __VA_ARGS__)

/* a warning through texla_ctx_desc.warning_cb (nothing when there is none) */
void texla__warn(texla_ctx *ctx, const char *fmt, ...) TEXLA__PRINTF(2, 3);

/* ---- the tuning cache (tune.c) ----
 * Keys name what was tuned and what it was tuned for ("spmv 1 real r.. n.. ...", "gemm 1 nn
 * 4096 4096 4096"); put a version into each key so a new tuner never reads old values. */
/* 1 and the value for this device, 0 when there is none */
int texla__tune_get(texla_ctx *ctx, const char *key, char *value, size_t n);
/* records (and writes the file); a failure to write is a warning, never an error */
void texla__tune_put(texla_ctx *ctx, const char *key, const char *value);
/* a cached value its user cannot use: a warning, and the entry is dropped */
void texla__tune_invalid(texla_ctx *ctx, const char *key, const char *why);
void texla__tune_free(texla_ctx *ctx);
/* the default tuning budget of a sparse product in ms (texla_sparse_tune_desc.budget 0): 6 s up
 * to 2^24 stored entries, in proportion past that (a 33M-entry matrix's first storage took the
 * whole 6 s: nothing else was timed), at most 24 s */
double texla__tune_budget_ms(long long entries);

/* handles (handles.c) */
texla_result texla__obj_new(texla_ctx *ctx, texla__kind kind, const texla__kind_desc *k,
                            uint64_t *id, texla__obj **out);
texla__obj *texla__obj_get(texla_ctx *ctx, uint64_t id, texla__kind kind);
void texla__obj_release(texla_ctx *ctx, uint64_t id);
void texla__objs_destroy(texla_ctx *ctx);
/* why a handle names nothing here: "the null handle", "of another context", ... */
const char *texla__handle_problem(const texla_ctx *ctx, uint64_t id, texla__kind kind);
/* destroy through the guard; 0, stale and foreign handles are no-ops */
void texla__destroy(texla_ctx *ctx, uint64_t id, texla__kind kind);

/* ---- operands (operands.c) ---- */
typedef struct texla__operand {
    const char *name; /* in messages */
    uint64_t id;
    texla__kind kind;
    texla__obj *o;    /* set by texla__resolve */
} texla__operand;

extern const char *const texla__kind_names[TEXLA__KIND_COUNT];
/* handles live and of the right kind; the last operand (the destination) none of the others */
texla_result texla__resolve(texla_ctx *ctx, const char *fn, texla__operand *ops, int n);
/* every operand of ops[0]'s shape (matrices) or layout (vectors) */
texla_result texla__same_shape(texla_ctx *ctx, const char *fn, const texla__operand *ops, int n);
texla_result texla__finite(texla_ctx *ctx, const char *fn, const char *name, float s);
texla_result texla__bad_handle(texla_ctx *ctx, const char *fn, const char *name, texla__kind kind,
                               uint64_t id);
/* a coefficient's value must be finite; its scalar (if any) live: *src its texture or NULL */
texla_result texla__coef(texla_ctx *ctx, const char *fn, const char *name, texla_coef c,
                         const texla__tex **src);
const char *texla__describe(const texla__obj *o, char *buf, size_t n);
int texla__same_layout(const texla__layout *a, const texla__layout *b);
/* the layout of an nx x ny grid (nx, ny >= 1, nx * ny an int), its texture's size checked
 * against the GL's limits (named by what) before the even sizes are formed: nx + 1 of INT_MAX
 * would overflow */
texla_result texla__grid_lay(texla_ctx *ctx, const char *what, int nx, int ny, texla__layout *out);
/* where element k of layout l lives in its packed texels (a float index) */
size_t texla__texel_index(const texla__layout *l, int k);
/* the first n elements of layout l into its packed texels (padding untouched), and back */
void texla__texels_pack(const texla__layout *l, const float *el, float *tex, long long n);
void texla__texels_unpack(const texla__layout *l, const float *tex, float *el, long long n);
/* u_shape (padding mask) of an object's primary texture */
void texla__shape_of(const texla__obj *o, int32_t shape[4]);
/* runs a pass inside the guard */
texla_result texla__run1(texla_ctx *ctx, const texla__pass *p);

/* ---- recipes (recipes.c): passes shared by several storage kinds ---- */
/* ceil(blocks/k) passes of prog (glsl/matmul*.frag), the first replacing dst (accumulate:
 * added too) and the rest added by blending (the fragment path's design; the compute backend
 * does it in one dispatch); iz is the shader's u_i0.z */
texla_result texla__multipass(texla_ctx *ctx, texla__prog_id prog, const texla__tex *a,
                              const texla__tex *b, texla__tex *dst, int blocks, int iz,
                              int accumulate);
/* reductions over any texture into a 1x1 texture */
enum { TEXLA__FOLD_SUM, TEXLA__FOLD_MAX, TEXLA__FOLD_MIN };
enum {
    TEXLA__MAP_NONE,
    TEXLA__MAP_MUL,    /* a .* b */
    TEXLA__MAP_SQUARE, /* a .* a */
    TEXLA__MAP_ABS,    /* |a| */
    TEXLA__MAP_FINITE  /* NaN and +-Inf become the fold's identity (for a finite range) */
};
texla_result texla__reduce(texla_ctx *ctx, const texla__tex *a, const int32_t shape[4],
                           const texla__tex *b, int fold, int map, texla__tex *dst);

/* a vector's elements into a dense n x 1 texture, and back (inside the guard) */
texla_result texla__vec_to_dense(texla_ctx *ctx, const texla__obj *v, texla__tex *dst);
texla_result texla__dense_to_vec(texla_ctx *ctx, const texla__tex *src, texla__obj *v);

/* the kernels' scratch storage buffer (ctx->scratch): a 16-byte header (binding 0's `count`,
 * left at zero by every kernel that uses it) and at least `floats` floats after it */
texla_result texla__scratch(texla_ctx *ctx, size_t floats);
/* host memory of at least `bytes`, the context's, valid until the next call (NULL: out of
 * memory): uploads made every solver step reuse it instead of fresh pages each time */
void *texla__hscratch(texla_ctx *ctx, size_t bytes);

/* ---- kernel variants and the tuner (variants.c) ---- */
typedef struct texla__variant {
    const char *name;    /* in the tuning cache and texla_ctx_set_variant */
    const char *defines; /* what the kernel is compiled with */
    int wg;              /* invocations per workgroup */
    int smem;            /* bytes of shared memory */
    int tuned;           /* 1: the tuner may choose it (0: only when pinned) */
    int arg[3];          /* numbers the caller needs (reduce: tile width, unroll, groups/SM) */
} texla__variant;
typedef struct texla__family {
    const char *name;
    const texla__variant *v;
    int n, def;
} texla__family;
extern const texla__family texla__families[TEXLA__FAM_COUNT];
/* whether this GL can run variant i (shared memory, workgroup size) */
int texla__variant_usable(const texla_ctx *ctx, int fam, int i);
int texla__variant_default(const texla_ctx *ctx, int fam);
/* runs the call being tuned with variant i (into a scratch destination) */
typedef texla_result (*texla__variant_run)(texla_ctx *ctx, int variant, void *arg);
/* the variant a call uses: pinned, else cached under key, else the fastest tuned one timed
 * with run (then cached), or the default where no measuring is wanted (see variants.c); run
 * NULL: *out is -1 when timing would be needed (so the caller prepares for it only then) */
texla_result texla__variant_pick(texla_ctx *ctx, int fam, const char *key, texla__variant_run run,
                                 void *arg, int *out);
/* the same with the variant to use where nothing is measured (pinned or cached still win);
 * def < 0: the family's default */
texla_result texla__variant_choose(texla_ctx *ctx, int fam, const char *key, int def,
                                   texla__variant_run run, void *arg, int *out);
/* a power of two >= v within lo .. hi (problem classes in tuning keys) */
int texla__size_class(int v, int lo, int hi);

/* ---- grids (grid.c) ---- */
/* allocates a w x h grid, every cell background; TEXLA_ERR_LIMIT past q->max_w x q->max_h */
texla_result texla__grid_make(texla_ctx *ctx, const texla__grid_req *q, long long w, long long h,
                              texla__grid *g);
texla_result texla__grid_layout(texla_ctx *ctx, const texla__grid_req *q, texla__grid *g,
                                const char *text);
void texla__grid_free(texla__grid *g);
static inline void texla__grid_put(texla__grid *g, int x, int y, float v, int cls) {
    size_t i = (size_t)y * (size_t)g->w + (size_t)x;
    g->v[i] = v;
    g->cls[i] = (uint8_t)cls;
}
/* widens g's range by the finite min and max of texture t (padding mask shape), on the GPU */
texla_result texla__grid_range(texla_ctx *ctx, const texla__tex *t, const int32_t shape[4],
                               texla__grid *g);
/* the grid of any object (its kind's grid function) */
texla_result texla__grid_of(texla_ctx *ctx, uint64_t id, texla__kind kind,
                            const texla__grid_req *q, texla__grid *g);
/* the grid of a host's RGBA32F 2D texture: channel 0, or (raw) the four planes side by side */
texla_result texla__grid_texture(texla_ctx *ctx, uint32_t texture, int width, int height,
                                 const texla__grid_req *q, texla__grid *g);

/* ---- the storage kinds' shared pieces (storage/) ---- */
/* 4x1 dense: texel index of A(i, j) in a texture cols wide */
static inline size_t texla__dense_index(int cols, int i, int j) {
    return ((size_t)(i / 4) * (size_t)cols + (size_t)j) * 4 + (size_t)(i % 4);
}
/* fills grid rows y0.. with a 2D vector's texels (logical nx x ceil(n/nx), raw gx x gy) */
void texla__grid_vec(texla__grid *g, int y0, const float *tx, const texla__layout *l, int raw);
/* the compute kernels of dense matrices (storage/dense_kernels.c), on textures, shapes checked
 * by the caller: C (+)= op(A) op(B), C n x m, inner dimension K (ta: A is K x n, tb: B is
 * m x K) */
texla_result texla__gemm(texla_ctx *ctx, int ta, int tb, const texla__tex *a, const texla__tex *b,
                         texla__tex *c, int n, int m, int K, int accumulate);
/* y (a dense n x 1 texture) = A x (+ s b), A n x m; x and b dense (nx 0) or 2D vectors rows nx
 * wide (b: n elements); dot non-NULL (n == m): the 1x1 texture gets x'y */
texla_result texla__gemv(texla_ctx *ctx, const texla__tex *a, int n, int m, const texla__tex *x,
                         int xnx, const texla__tex *b, int bnx, float s, texla__tex *y,
                         texla__tex *dot);
/* dst = project(x + (A x + b) .* e), all dense n x 1; idx and mu NULL: max(0, .) */
texla_result texla__gemv_lcp(texla_ctx *ctx, const texla__tex *a, int n, const texla__tex *x,
                             const texla__tex *b, const texla__tex *e, const texla__tex *idx,
                             const texla__tex *mu, texla__tex *dst);

/* q = A p, pq = p'q for a square dense A and 2D vectors p, q (storage/dense.c) */
texla_result texla__dense_matvec_dot(texla_ctx *ctx, const texla__obj *A, const texla__obj *P,
                                     texla__obj *Q, texla__obj *PQ);

/* q = A p, pq = p'q for a banded A and 2D vectors p, q of its layout (storage/banded.c) */
texla_result texla__banded_matvec_dot(texla_ctx *ctx, const texla__obj *A, const texla__obj *P,
                                      texla__obj *Q, texla__obj *PQ);

/* makes an object of a texture-backed kind (MAT, VEC, SCALAR): a w x h texture */
texla_result texla__tex_obj_new(texla_ctx *ctx, texla__kind kind, const texla__kind_desc *k,
                                int w, int h, uint64_t *id, texla__obj **out);

#endif
