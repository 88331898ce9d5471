/* sparse.h - what the sparse storage kind's files share (storage/sparse.c the object and public
 * API, spformats.c the host arrays and GPU formats, spkern.c the passes, sptune.c the tuner,
 * points.c the fragment backend's forms). Calls go one way: sparse.c -> sptune.c -> spkern.c
 * -> spformats.c, and sparse.c, spkern.c -> points.c -> spformats.c.
 *
 * Two orientations ("planes") of a matrix A can be stored: plane 0 holds A's rows (y = A x by
 * gathering, y = A' x by scattering them), plane 1 a transposed copy, A' (y = A' x by
 * gathering, y = A x by scattering: the CSC form). Rows are stored in texel order of the
 * output vector: storage row p is row (p mod G) of group p / G, and a group's G rows fill
 * whole texels of y (see glsl/kernels/spmv_row.comp). Columns are stored packed: the texel
 * (15 + 15 bits) and channel (2 bits) of the column's first element in x's texture. */
#ifndef TEXLA_SPARSE_H
#define TEXLA_SPARSE_H

#include "core/core.h"

#define SP_PAD 0xFFFFFFFFu   /* the column of a padding entry */
#define SP_CHUNK 4096        /* default entries per chunk of a long row */
#define SP_CHUNK_MAX (1 << 20) /* the most entries a chunk may have (long_chunk) */
#define SP_LONG_ROW 256      /* a row longer than this counts as long (sp_stats.nlong) */
#define SP_NBUF 7
#define SP_NEAR 32768        /* sp_stats.near's window */
#define SP_RUN_GAP 8         /* sp_stats.runs: the widest step from a column to the next */
#define SP_C16 32767         /* cols16: the farthest column from its row (0x8000 marks padding) */
#define SP_C8 127            /* cols8: the farthest column from its row (0x80 marks padding) */
/* CSR-stream blocks: at most SP_STREAM_ENT / k entries and SP_STREAM_ROWS / k rows (8 KiB of
 * products and 4 KiB of row sums in shared memory whatever k is) */
#define SP_STREAM_ENT 2048
#define SP_STREAM_ROWS 1024

/* A canonical CSR on the host: rows in natural order, columns sorted and unique, k floats per
 * entry (1 real, 2 complex, 4 quaternion; BLOCK3 matrices are stored expanded, k = 1). */
typedef struct sp_csr {
    int rows, cols, k;
    long long nnz;
    int *ptr; /* rows + 1 */
    int *col;
    float *val; /* nnz * k */
} sp_csr;

/* Row statistics (and the block fill of a real matrix). */
typedef struct sp_stats {
    int rows, cols;
    long long nnz;
    int lmin, lmax, empty;
    double mean, sd;
    double fill[5];        /* [b], b = 2..4 */
    long long nblocks[5];  /* b x b blocks touched */
    int cmax, cempty;      /* columns: the longest, and the empty ones */
    double cmean, csd;
    double near;           /* the entries within SP_NEAR columns of their row's diagonal (scaled
                              for rectangular shapes), per entry: x's locality */
    double cnear;          /* the same of A' (A's row within SP_NEAR of its column's diagonal,
                              scaled the other way): y = A' x's x; equal to near where square */
    double runs;           /* the entries within SP_RUN_GAP columns of their row's entry before
                              (its columns in runs, wherever they lie), per entry: x's locality
                              within rows (y = A x) */
    double cruns;          /* the same of the columns: within SP_RUN_GAP rows of their column's
                              entry before (y = A' x reads A's columns as its rows) */
    long long far16;       /* the entries more than SP_C16 columns from their row (cols16 needs 0) */
    long long far8;        /* the entries more than SP_C8 columns from their row (cols8 needs 0) */
    long long wide16, wide8; /* the rows whose columns span more than 2 SP_C16 (2 SP_C8): CSR's
                              cols16 (cols8) needs far16 (far8) or these 0 */
    int nlong, cnlong;     /* the rows (columns) longer than SP_LONG_ROW entries */
    int sym;               /* of real or complex entries filling blocks (a fill of 0.5 or
                              more): 1 equal to its transpose, 2 (complex) to its conjugate
                              transpose (symmetric block ELL applies); 0 neither, or not
                              checked (other entries, sparse blocks), nor for A' (sp_stats_sym) */
} sp_stats;

/* One orientation of the matrix and the layouts of its product. */
typedef struct sp_plane {
    const sp_csr *m;
    const sp_stats *st;
    texla__layout out, in; /* y (m's rows) and x (m's columns), real elements */
    int k;
} sp_plane;

/* The texel order of an output vector's rows. */
typedef struct sp_rows {
    int G;       /* rows per group */
    int ngroups; /* texels (k = 4: texel pairs) of y */
    int w;       /* groups per texture row */
    int *nat;    /* ngroups * G entries: the natural row, or -1 for a padding row */
} sp_rows;

/* A stored form of one plane on the GPU. */
typedef struct sp_form {
    int refs;
    int plane;
    texla_sparse_variant fv; /* the format fields (normalized, see sp_format_of) */
    int k, G, ngroups, w, rs, width;
    long long ne;            /* stored entries, padding and long-row chunks included */
    int perm, lens;
    int nchunks, nag, lt_lr, lt_ag; /* long rows */
    int nbr;                 /* BSR: block rows; its ne counts blocks */
    int herm;                /* BSR bell 3: the mirrored blocks conjugated (A Hermitian) */
    int based;               /* CSR with cols16 / cols8: the offsets from a column of each
                                row's own (buf[0]: after the rows' starts), not from the row */
    int merge_split;         /* MERGE: buf[6] holds the tiles' open rows and sums, the merge
                                path's splits and the rows' values */
    int nblocks;             /* CSR: the stream blocks, buf[3]: (first group, first entry) of
                                each, and (groups, entries) */
    texla__buf buf[SP_NBUF]; /* 0 ptr, 1 col, 2 val, 3 lens / orow / CSR blocks (tiles: row
                                ends' bits), 4 perm, 5 state, 6 long (MERGE: carries) */
    /* fragment forms */
    GLuint vao, vbo;
    int nverts;
    texla__tex tex[2];       /* gather: row info, entries */
    int gshift;
    double bytes, padding;
} sp_form;

/* Scratch buffers of a matrix's products: ylin, the scatter forms' y as stored (made on first
 * use, left zero), and xlin, x's texels copied for the variants with xbuf (made on first use) */
typedef struct sp_scratch {
    texla__buf ylin, xlin;
} sp_scratch;

/* The natural CSR of a real matrix on the GPU (rows in order, columns sorted), for fused
 * solver kernels (splcp.c: texla_op_lcp_step). */
typedef struct sp_nat {
    texla__buf buf[4]; /* 0 row starts (rows + 1), 1 packed columns (each column's texel and
                          channel in x's layout; a product's left factor finds the element of
                          the intermediate vector from them), 2 values, 3 a scratch of one float
                          per row, made when the matrix is first a product's right factor */
    int rows, cols, made;
    long long nnz;
} sp_nat;

/* ---- spformats.c ---- */
void sp_csr_free(sp_csr *m);
/* The canonical CSR of COO (rptr NULL) or CSR (ridx NULL) input of k floats per entry
 * (BLOCK3: k = 9, then rows/cols are block rows/columns and the result is real, 3x bigger).
 * Indices are checked (TEXLA_ERR_ARGUMENT with the entry); values may be anything. */
texla_result sp_csr_make(texla_ctx *ctx, const char *fn, int rows, int cols, int kin,
                         long long nnz, const int *rptr, const int *ridx, const int *cidx,
                         const float *val, sp_csr *out);
/* the transpose of the real matrix the entries stand for (conjugated entries) */
texla_result sp_csr_adjoint(texla_ctx *ctx, const char *fn, const sp_csr *a, sp_csr *out);
/* the same without a context, for a thread of its own (0: out of host memory, *out empty) */
int sp_csr_adjoint_of(const sp_csr *a, sp_csr *out);
/* the real matrix of compound entries (2x2 / 4x4 blocks); k = 1 is a copy */
texla_result sp_csr_real(texla_ctx *ctx, const char *fn, const sp_csr *a, sp_csr *out);
void sp_stats_of(const sp_csr *m, sp_stats *st);
size_t sp_csr_bytes(const sp_csr *m);
/* packed texel and channel of element i of layout l */
uint32_t sp_loc(const texla__layout *l, long long i);
/* the texel order of the rows of a k-entry vector of layout l */
texla_result sp_rows_make(texla_ctx *ctx, const char *fn, const texla__layout *l, int k,
                          sp_rows *out);
void sp_rows_free(sp_rows *r);
/* the groups of plane p's rows holding a row of more than long_rows entries: a row form's
 * affected groups (sp_form.nag) without making it; -1 out of host memory */
int sp_long_groups(const sp_plane *p, int long_rows);
/* the variant with the fields that shape the storage only, and which plane it reads, for
 * product op (0 A x, 1 A' x) */
texla_sparse_variant sp_format_of(const texla_sparse_variant *v, int op, int *plane);
int sp_format_same(const texla_sparse_variant *a, const texla_sparse_variant *b);
/* bytes and padding of a compute form without making it (-1: the format does not apply) */
void sp_form_cost(const sp_plane *p, const texla_sparse_variant *fv, double *bytes,
                  double *padding);
/* builds and uploads the compute form fv of plane p */
texla_result sp_form_make(texla_ctx *ctx, const char *fn, const sp_plane *p,
                          const texla_sparse_variant *fv, sp_form *f);
void sp_form_free(texla_ctx *ctx, sp_form *f);
/* 1 when m (real or complex) is square and equal to its transpose, entry for entry; 2 when
 * (complex, not 1) equal to its conjugate transpose (Hermitian: a real diagonal); else 0.
 * (at[0], at[1]): the entry whose mirror ruled out A = A', (at[2], at[3]) the one that ruled out
 * A = A^H (complex; at[2] == at[3]: a diagonal entry not real); -1 where not ruled out, or for
 * a shape that is not square or entries of more than 2 floats */
int sp_csr_symmetric(const sp_csr *m, int at[4]);
/* st->sym of m (st made by sp_stats_of): checked only where the tuner would offer symmetric
 * block ELL (real or complex, blocks filling half or more), a check of every entry's mirror that
 * stops where both kinds are ruled out. A's own statistics only: A' is symmetric (Hermitian)
 * when A is */
void sp_stats_sym(const sp_csr *m, sp_stats *st);
/* uploads m (real entries) as a natural CSR, packed columns in layout cl */
texla_result sp_nat_make(texla_ctx *ctx, const char *fn, const sp_csr *m, const texla__layout *cl,
                         sp_nat *out);
void sp_nat_free(texla_ctx *ctx, sp_nat *n);

/* ---- splcp.c: projected Jacobi steps with a sparse product inside ---- */
/* dst = project(x + (A x + b) .* e) (texla_vec_lcp_step's projection; idx, mu NULL: max(0, .))
 * with A the sparse object l, or A = L R with r the sparse object R (r NULL: A = l), in kernel
 * passes, when it can: real entries, the compute backend, x's layout what the matrices' products
 * read and write. *done 0 when it cannot (nothing run, no error). Operands checked by the
 * caller (ops/operator.c: texla_op_lcp_step). Runs inside the guard. */
texla_result sp_lcp_step(texla_ctx *ctx, const char *fn, texla__obj *l, texla__obj *r,
                         const texla__obj *x, const texla__obj *b, const texla__obj *e,
                         const texla__obj *idx, const texla__obj *mu, texla__obj *dst, int *done);

/* ---- sparse.c, for splcp.c ---- */
/* The sparse object of handle id (NULL: not one, no error reported); the layouts of y and x of
 * its y = A x, and whether its entries are real (BLOCK3 expanded) */
texla__obj *sp_object(texla_ctx *ctx, uint64_t id);
int sp_layouts(const texla__obj *o, const texla__layout **rl, const texla__layout **cl);
/* its natural CSR (real entries), made on first use, with the row scratch when want_mid; NULL
 * with *r set on failure */
const sp_nat *sp_natural(texla_ctx *ctx, const char *fn, texla__obj *o, int want_mid,
                         texla_result *r);

/* ---- points.c: the fragment backend's forms (the plane's real expansion) ---- */
texla_result sp_points_make(texla_ctx *ctx, const char *fn, const sp_plane *p, sp_form *f);
texla_result sp_gather_make(texla_ctx *ctx, const char *fn, const sp_plane *p, sp_form *f);
/* y = A x (+ beta y) by points or the gather program (inside the guard) */
texla_result sp_fragment_run(texla_ctx *ctx, const sp_form *f, const texla__obj *x,
                             texla__obj *y, float beta, int add);

/* ---- spkern.c ---- */
/* p's dispatch: n workgroups as gx x gy (GL_MAX_COMPUTE_WORK_GROUP_COUNT; TEXLA_ERR_LIMIT) */
texla_result sp_groups_of(texla_ctx *ctx, long long n, texla__pass *p);
/* can v run for op here (compute, atomics, entry type)? 0 yes; else an error code and why */
texla_result sp_variant_check(texla_ctx *ctx, const texla_sparse_variant *v, int k, int op,
                              const char **why);
/* fills defaults of a variant (wg, slice, block, ...) */
void sp_variant_norm(texla_sparse_variant *v);
/* y = A x (+ beta y) with variant v on form f, x and y vectors of the form's layouts (inside
 * the guard), with the matrix's scratch buffers */
texla_result sp_run(texla_ctx *ctx, const texla_sparse_variant *v, sp_form *f,
                    const texla__obj *x, texla__obj *y, float beta, int add, sp_scratch *scr);
/* the SM count the fixed grids are sized by */
int sp_sm_count(const texla_ctx *ctx);

/* The GPU kept busy while the host works (glsl/kernels/spin.comp), calibrated on first use. */
typedef struct sp_spinner {
    texla__buf sink;
    double per_ms; /* iterations a millisecond (0: not yet measured; < 0: spin failed, off) */
} sp_spinner;
/* queues about ms milliseconds of GPU work (nothing on software renderers or without timer
 * queries) and returns at once */
texla_result sp_spin(texla_ctx *ctx, sp_spinner *s, double ms);
/* spins back to back until the GPU's clocks are up (spkern.c: the clock probe), waited for,
 * at most about cap_ms; *ran 0 where it cannot (software renderers, no timer queries, a host's
 * GL_TIME_ELAPSED query active, spins off) */
texla_result sp_heat(texla_ctx *ctx, sp_spinner *s, double cap_ms, int *ran);
/* how a row form's long rows reach y (lng: it has some; nag: its affected groups, those
 * holding a long row; wg: the variant's workgroup): 0 none, 1 a pass of their own, 2 added by
 * the last of each affected group's parties. The one rule, for the product and the prefetch */
int sp_long_pass(int lng, int nag, int wg);
/* the kernels v runs for k floats an entry and rows of at most M entries (nag: the affected
 * groups of its long rows, sp_long_groups, where M > v->long_rows; herm: of a Hermitian matrix,
 * its symmetric block ELL conjugating the mirrored blocks), compiled by the driver's threads
 * now, not waited for (texla__prefetch; nothing where it cannot) */
void sp_prefetch(texla_ctx *ctx, const texla_sparse_variant *v, int k, int M, int nag, int herm);

/* ---- sptune.c: the rule, the tuner, the cache ---- */
/* the cache key of product op of a matrix with statistics st on the compute (or fragment)
 * backend */
void sp_tune_key(const sp_stats *st, int entry, int op, int compute, char *key, size_t n);
/* 1 and the cached variant (checked: a value that cannot be used is dropped with a warning) */
int sp_tune_cached(texla_ctx *ctx, const char *key, int k, int op, texla_sparse_variant *v,
                   double *us);
void sp_tune_store(texla_ctx *ctx, const char *key, const texla_sparse_variant *v, double us);
/* the variant the row statistics suggest, untimed */
texla_sparse_variant sp_rule(const texla_ctx *ctx, const sp_stats *st, int k, int entry, int op,
                             int compute);
typedef struct sp_tune_req {
    const sp_plane *pl[2]; /* plane 0 (A) and 1 (A'; may have m NULL: then no candidate uses it) */
    int entry, k, op, compute, scatter, block, all;
    const texla__layout *xl, *yl;
    texla_sparse_trial *trials;
    int max_trials, ntrials;
    double deadline_ms; /* texla__now_ms() past which no new storage is built (0: none) */
    int skipped;        /* candidates left untried by the deadline */
    double budget_ms;   /* the whole call's budget (<= 0: none): caps the clock probe */
} sp_tune_req;
/* times the candidates of q->op and returns the fastest correct one, with its form (made) */
texla_result sp_tune(texla_ctx *ctx, const char *fn, sp_tune_req *q, texla_sparse_variant *best,
                     double *us, sp_form *form);

#endif
