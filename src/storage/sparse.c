/* sparse.c - the sparse storage kind: one object (texla_sparse) for every sparse matrix, its
 * public API (making, products, tuning, pinning, info) and its image grid. The object keeps
 * the canonical CSR on the host (and, when a product needs it, the transposed copy), and for
 * each product (y = A x, y = A' x) the variant in use and its stored form (spformats.c,
 * points.c), shared when both products use the same one. No GL here. */
#include "storage/sparse.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FORMS 4

typedef struct sp_prod {
    texla_sparse_variant v; /* normalized */
    sp_form *form;
    int how;                /* 0 none, 1 rule, 2 tuned, 3 cache, 4 pinned */
    int compute;            /* the backend it was chosen for */
    double us;
    int pinned;
    texla_sparse_variant pin;
} sp_prod;

typedef struct sparse_part {
    int entry, k;           /* texla_entry; floats per entry in the kernels (BLOCK3: 1) */
    int rows, cols;         /* public: entries (BLOCK3: blocks) */
    int scatter;            /* the desc allowed scatter forms */
    sp_csr a, at;           /* A, and A' when made */
    sp_stats st, stt;       /* st: made on first need (a product's rule, the tuner, info) */
    int st_made;
    texla__layout rl, cl;   /* y's and x's layouts of y = A x */
    sp_nat nat;             /* the natural CSR on the GPU, for fused solver kernels (splcp.c) */
    sp_form *forms[MAX_FORMS];
    sp_prod prod[2];
    sp_scratch scr;
} sparse_part;

static int floats_of(int entry) { return entry == TEXLA_ENTRY_BLOCK3 ? 3 : entry; }

static void form_release(texla_ctx *ctx, sparse_part *P, sp_form *f) {
    if (!f || --f->refs > 0) return;
    for (int i = 0; i < MAX_FORMS; i++)
        if (P->forms[i] == f) P->forms[i] = NULL;
    sp_form_free(ctx, f);
    free(f);
}

static void release(texla_ctx *ctx, texla__obj *o) {
    sparse_part *P = o->part;
    if (!P) return;
    for (int i = 0; i < MAX_FORMS; i++)
        if (P->forms[i]) {
            sp_form_free(ctx, P->forms[i]);
            free(P->forms[i]);
        }
    texla__buf_free(&ctx->gl, &P->scr.ylin);
    texla__buf_free(&ctx->gl, &P->scr.xlin);
    sp_nat_free(ctx, &P->nat);
    sp_csr_free(&P->a);
    sp_csr_free(&P->at); /* the part itself is freed by the handle table */
}

static const char *entry_name(int e) {
    return e == TEXLA_ENTRY_COMPLEX ? "complex" : e == TEXLA_ENTRY_QUAT ? "quaternion"
           : e == TEXLA_ENTRY_BLOCK3 ? "3x3-block" : "real";
}

static void describe(const texla__obj *o, char *buf, size_t n) {
    const sparse_part *P = o->part;
    if (!P || P->entry == TEXLA_ENTRY_REAL)
        snprintf(buf, n, "a sparse %d x %d matrix", o->rows, o->cols);
    else
        snprintf(buf, n, "a sparse %d x %d matrix of %s entries (%d x %d as a real operator)",
                 P->rows, P->cols, entry_name(P->entry), o->rows, o->cols);
}

static texla_result grid(texla_ctx *ctx, texla__obj *o, const texla__grid_req *q, texla__grid *g);

static const texla__kind_desc kind = {"sparse matrix", release, describe, grid};

/* A's row statistics, made on first need: a matrix used only by fused kernels never pays */
static const sp_stats *stats_a(sparse_part *P) {
    if (!P->st_made) sp_stats_of(&P->a, &P->st), sp_stats_sym(&P->a, &P->st), P->st_made = 1;
    return &P->st;
}

static sp_plane plane_of(sparse_part *P, int which) {
    stats_a(P);
    sp_plane p = {which ? &P->at : &P->a, which ? &P->stt : &P->st, which ? P->cl : P->rl,
                  which ? P->rl : P->cl, P->k};
    return p;
}

/* the transposed copy, made once when a product first needs it */
static texla_result need_at(texla_ctx *ctx, const char *fn, sparse_part *P) {
    if (P->at.ptr) return TEXLA_OK;
    texla_result r = sp_csr_adjoint(ctx, fn, &P->a, &P->at);
    if (!r) sp_stats_of(&P->at, &P->stt);
    return r;
}

/* The transposed copy and its statistics made on a thread of its own while A x is tuned
 * (which reads neither: they are P's only once joined). H200 host, 16-19M entries: 0.8-0.9 s
 * (the copy 0.52-0.58, its statistics 0.29-0.33), which came before A x's tuning. */
typedef struct at_job {
    const sp_csr *a;
    sp_csr at;
    sp_stats st;
    int ok;
    pthread_t th;
} at_job;

static void *at_work(void *p) {
    at_job *j = p;
    j->ok = sp_csr_adjoint_of(j->a, &j->at);
    if (j->ok) sp_stats_of(&j->at, &j->st);
    return NULL;
}

/* 1 when the thread runs (else need_at, here and now) */
static int at_start(sparse_part *P, at_job *j) {
    memset(j, 0, sizeof *j);
    j->a = &P->a;
    return pthread_create(&j->th, NULL, at_work, j) == 0;
}

/* waits for the thread; its copy becomes P's. Where it ran out of memory (A x's storages
 * were alive then), made again here and now (ctx NULL: not, and no error reported) */
static texla_result at_join(texla_ctx *ctx, const char *fn, sparse_part *P, at_job *j) {
    pthread_join(j->th, NULL);
    if (!j->ok) return ctx ? need_at(ctx, fn, P) : TEXLA_ERR_MEMORY;
    P->at = j->at;
    P->stt = j->st;
    return TEXLA_OK;
}

/* a form of (plane, storage variant) shared with whoever already has it, else made */
static texla_result form_acquire(texla_ctx *ctx, const char *fn, sparse_part *P,
                                 const texla_sparse_variant *v, int op, sp_form **out) {
    int plane;
    texla_sparse_variant fv = sp_format_of(v, op, &plane);
    for (int i = 0; i < MAX_FORMS; i++)
        if (P->forms[i] && P->forms[i]->plane == plane && sp_format_same(&P->forms[i]->fv, &fv)) {
            P->forms[i]->refs++;
            *out = P->forms[i];
            return TEXLA_OK;
        }
    int slot = -1;
    for (int i = 0; i < MAX_FORMS && slot < 0; i++)
        if (!P->forms[i]) slot = i;
    if (slot < 0) return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: internal: no free form slot", fn);
    texla_result r = plane ? need_at(ctx, fn, P) : TEXLA_OK;
    if (r) return r;
    sp_form *f = calloc(1, sizeof *f);
    if (!f) return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory", fn);
    sp_plane p = plane_of(P, plane);
    if (fv.format == TEXLA_SPARSE_POINTS) r = sp_points_make(ctx, fn, &p, f);
    else if (fv.format == TEXLA_SPARSE_GATHER) r = sp_gather_make(ctx, fn, &p, f);
    else r = sp_form_make(ctx, fn, &p, &fv, f);
    if (r) {
        free(f);
        return r;
    }
    f->fv = fv;
    f->plane = plane;
    f->refs = 1;
    P->forms[slot] = f;
    *out = f;
    return TEXLA_OK;
}

/* makes v the variant of product op (its form acquired before the old one is released) */
static texla_result set_variant(texla_ctx *ctx, const char *fn, sparse_part *P, int op,
                                const texla_sparse_variant *v, int how, double us, int compute) {
    sp_form *f = NULL;
    texla_result r = form_acquire(ctx, fn, P, v, op, &f);
    if (r) return r;
    sp_prod *pr = &P->prod[op];
    form_release(ctx, P, pr->form);
    pr->form = f;
    pr->v = *v;
    pr->how = how;
    pr->us = us;
    pr->compute = compute;
    return TEXLA_OK;
}

/* installs a form the tuner made (a pinned product keeps its pin: the form is let go) */
static texla_result adopt(texla_ctx *ctx, sparse_part *P, int op, const texla_sparse_variant *v,
                          sp_form *made, double us, int compute) {
    if (P->prod[op].pinned) {
        sp_form_free(ctx, made);
        return TEXLA_OK;
    }
    int plane;
    texla_sparse_variant fv = sp_format_of(v, op, &plane);
    sp_form *f = NULL;
    for (int i = 0; i < MAX_FORMS && !f; i++)
        if (P->forms[i] && P->forms[i]->plane == plane && sp_format_same(&P->forms[i]->fv, &fv)) {
            f = P->forms[i];
            f->refs++;
        }
    if (f) {
        sp_form_free(ctx, made);
    } else {
        int slot = -1;
        for (int i = 0; i < MAX_FORMS && slot < 0; i++)
            if (!P->forms[i]) slot = i;
        f = malloc(sizeof *f);
        if (!f || slot < 0) {
            free(f);
            sp_form_free(ctx, made);
            return texla__fail(ctx, TEXLA_ERR_MEMORY, "texla_sparse_tune: out of host memory");
        }
        *f = *made;
        f->fv = fv;
        f->plane = plane;
        f->refs = 1;
        P->forms[slot] = f;
    }
    sp_prod *pr = &P->prod[op];
    form_release(ctx, P, pr->form);
    pr->form = f;
    pr->v = *v;
    pr->how = 2;
    pr->us = us;
    pr->compute = compute;
    return TEXLA_OK;
}

static int compute_now(texla_ctx *ctx) {
    return ctx->gl.info.compute &&
           texla__backend_of(&ctx->gl, TEXLA__P_SPMV) == TEXLA_BACKEND_COMPUTE;
}

/* the key and the rule read A's rows (y = A x) and columns (y = A' x) */
static const sp_stats *stats_for(texla_ctx *ctx, sparse_part *P, int op) {
    (void)ctx, (void)op;
    return stats_a(P);
}

/* the variant of product op now: the pin, the one chosen before on this backend, the cache's,
 * or the rule's */
static texla_result ensure_prod(texla_ctx *ctx, const char *fn, sparse_part *P, int op) {
    sp_prod *pr = &P->prod[op];
    int compute = compute_now(ctx);
    if (pr->pinned) {
        if (pr->form && pr->how == 4) return TEXLA_OK;
        return set_variant(ctx, fn, P, op, &pr->pin, 4, 0, compute);
    }
    if (pr->form && pr->compute == compute) return TEXLA_OK;
    char key[512];
    sp_tune_key(stats_for(ctx, P, op), P->entry, op, compute | (P->scatter && compute) << 1,
                key, sizeof key);
    texla_sparse_variant v;
    double us = 0;
    if (sp_tune_cached(ctx, key, P->k, op, &v, &us)) {
        const char *why;
        if (sp_variant_check(ctx, &v, P->k, op, &why) == TEXLA_OK &&
            !(v.sched == TEXLA_SCHED_ATOMIC && !P->scatter) &&
            set_variant(ctx, fn, P, op, &v, 3, us, compute) == TEXLA_OK)
            return TEXLA_OK;
        texla__tune_invalid(ctx, key, why ? why : "cannot be used for this matrix");
    }
    v = sp_rule(ctx, stats_for(ctx, P, op), P->k, P->entry, op, compute);
    /* the error callback held back while a storage that does not fit gives way to another:
     * it hears the rule's error once if none fits, nothing if one does (and the last error's
     * message stays the caller's) */
    texla_error_fn cb = ctx->err.cb;
    static _Thread_local char before[TEXLA__MSG_LEN], rule_msg[TEXLA__MSG_LEN];
    memcpy(before, ctx->err.msg, sizeof before);
    ctx->err.cb = NULL;
    texla_result r = set_variant(ctx, fn, P, op, &v, 1, 0, compute), r0 = r;
    memcpy(rule_msg, ctx->err.msg, sizeof rule_msg);
    if ((r == TEXLA_ERR_LIMIT || r == TEXLA_ERR_MEMORY) && compute) {
        /* the rule's storage does not fit this GL (ELL of 40M rows and one entry: 160 MB of
         * padding past a 128 MiB buffer): the compact storages in turn (SELL by slices pads
         * within 32 rows, COO stores the entries alone, CSR unpadded) */
        static const texla_sparse_variant fb[] = {
            {.format = TEXLA_SPARSE_SELL, .sched = TEXLA_SCHED_GROUP, .slice = 32, .sigma = 1024},
            {.format = TEXLA_SPARSE_COO, .sched = TEXLA_SCHED_SEGMENT},
            {.format = TEXLA_SPARSE_CSR, .sched = TEXLA_SCHED_ROW},
        };
        for (size_t i = 0; i < sizeof fb / sizeof fb[0] && (r == TEXLA_ERR_LIMIT || r == TEXLA_ERR_MEMORY); i++) {
            texla_sparse_variant w = fb[i];
            const char *why;
            sp_variant_norm(&w);
            if (w.format == v.format || sp_variant_check(ctx, &w, P->k, op, &why)) continue;
            r = set_variant(ctx, fn, P, op, &w, 1, 0, compute);
        }
    }
    ctx->err.cb = cb;
    if (r == TEXLA_OK) {
        memcpy(ctx->err.msg, before, sizeof before);
        return TEXLA_OK;
    }
    return texla__fail(ctx, r0, "%s", rule_msg);
}

/* ---- making ---- */

static texla_result like_layout(texla_ctx *ctx, const char *fn, const char *name, texla_vec v,
                                texla__layout *l) {
    const texla__obj *o = texla__obj_get(ctx, v.id, TEXLA__KIND_VEC);
    if (!o) return texla__bad_handle(ctx, fn, name, TEXLA__KIND_VEC, v.id);
    *l = o->lay;
    return TEXLA_OK;
}

/* the entries' count of a layout for k floats per entry, and whether its rows fit whole
 * entries (complex: even widths; quaternion: multiples of 4) */
static texla_result entries_of(texla_ctx *ctx, const char *fn, const char *name,
                               const texla__layout *l, int entry, int *n) {
    int f = floats_of(entry);
    if (l->n % f)
        return texla__fail(ctx, TEXLA_ERR_SHAPE,
                           "%s: %s has %d elements, not a whole number of %s entries (%d floats "
                           "each)", fn, name, l->n, entry_name(entry), f);
    int align = entry == TEXLA_ENTRY_COMPLEX ? 2 : entry == TEXLA_ENTRY_QUAT ? 4 : 1;
    if (l->nx % align)
        return texla__fail(ctx, TEXLA_ERR_SHAPE,
                           "%s: %s's rows are %d elements wide; %s entries need a multiple of "
                           "%d (make the vector with texla_vec_make_entries)", fn, name, l->nx,
                           entry_name(entry), align);
    *n = l->n / f;
    return TEXLA_OK;
}

texla_result texla_sparse_make(texla_ctx *ctx, const texla_sparse_desc *d, texla_sparse *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_sparse_make";
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: out is NULL", fn);
    out->id = 0;
    if (!d) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: desc is NULL", fn);
    int entry = d->entry ? (int)d->entry : TEXLA_ENTRY_REAL;
    if (entry != TEXLA_ENTRY_REAL && entry != TEXLA_ENTRY_COMPLEX && entry != TEXLA_ENTRY_QUAT &&
        entry != TEXLA_ENTRY_BLOCK3)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: entry is %d; it must be TEXLA_ENTRY_REAL, _COMPLEX, _QUAT or "
                           "_BLOCK3", fn, entry);
    texla__layout rl, cl;
    texla_result r = like_layout(ctx, fn, "row_like", d->row_like, &rl);
    if (!r) r = like_layout(ctx, fn, "col_like", d->col_like, &cl);
    int rows = 0, cols = 0;
    if (!r) r = entries_of(ctx, fn, "row_like", &rl, entry, &rows);
    if (!r) r = entries_of(ctx, fn, "col_like", &cl, entry, &cols);
    if (r) return r;
    /* neither array is fine for a matrix without entries (nnz 0): all zeros */
    if (d->row_ptr && d->row_idx)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: give row_ptr (CSR) or row_idx (COO), not both", fn);
    if (!d->row_ptr && !d->row_idx && d->nnz != 0)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: nnz is %lld but neither row_ptr (CSR) nor row_idx (COO) is given",
                           fn, (long long)d->nnz);
    long long nnz = d->nnz;
    if (d->row_ptr) {
        if (d->row_ptr[0] != 0)
            return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: row_ptr[0] is %d, not 0", fn,
                               d->row_ptr[0]);
        for (int i = 0; i < rows; i++)
            if (d->row_ptr[i + 1] < d->row_ptr[i])
                return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                                   "%s: row_ptr decreases at row %d (%d then %d)", fn, i,
                                   d->row_ptr[i], d->row_ptr[i + 1]);
        nnz = d->row_ptr[rows];
    } else if (nnz < 0) {
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: nnz is %lld", fn, nnz);
    }
    if (nnz > 0 && (!d->col_idx || !d->vals))
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: %lld entries with %s NULL", fn, nnz,
                           !d->col_idx ? "col_idx" : "vals");
    sparse_part *P = calloc(1, sizeof *P);
    if (!P) return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory", fn);
    P->entry = entry;
    P->k = entry == TEXLA_ENTRY_BLOCK3 ? 1 : entry;
    P->rows = rows;
    P->cols = cols;
    P->scatter = d->scatter != 0;
    P->rl = rl;
    P->cl = cl;
    r = sp_csr_make(ctx, fn, rows, cols, entry, nnz, d->row_ptr, d->row_idx, d->col_idx, d->vals,
                    &P->a);
    if (r) {
        free(P);
        return r;
    }
    texla__gl_enter(&ctx->gl);
    texla__obj *o;
    uint64_t id = 0;
    r = texla__obj_new(ctx, TEXLA__KIND_SPARSE, &kind, &id, &o);
    if (!r) {
        o->lay = rl;
        o->rows = rl.n; /* as a real operator (texla_op_shape, CG) */
        o->cols = cl.n;
        o->part = P;
        if (d->tune) {
            texla_sparse_tune_desc td = {0};
            r = texla_sparse_tune(ctx, (texla_sparse){id}, &td);
        }
    } else {
        sp_csr_free(&P->a);
        free(P);
    }
    if (r && id) texla__obj_release(ctx, id);
    else out->id = id;
    texla__gl_leave(&ctx->gl);
    return r;
}

texla_result texla_sparse_make_coo(texla_ctx *ctx, texla_vec row_like, texla_vec col_like, int nnz,
                                   const int *rows, const int *cols, const float *vals,
                                   texla_sparse *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_sparse_make_coo";
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: out is NULL", fn);
    out->id = 0;
    if (nnz < 0 || (nnz > 0 && (!rows || !cols || !vals)))
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: nnz is %d with %s arrays", fn, nnz,
                           nnz < 0 ? "given" : "NULL");
    static const int none = 0;
    texla_sparse_desc d = {TEXLA_ENTRY_REAL, row_like, col_like, nnz, NULL, rows ? rows : &none,
                           cols, vals, 0, 0};
    return texla_sparse_make(ctx, &d, out);
}

texla_result texla_sparse_make_csr(texla_ctx *ctx, texla_vec row_like, texla_vec col_like,
                                   const int *row_ptr, const int *cols, const float *vals,
                                   texla_sparse *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    if (!row_ptr) {
        if (out) out->id = 0;
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_sparse_make_csr: row_ptr is NULL");
    }
    texla_sparse_desc d = {TEXLA_ENTRY_REAL, row_like, col_like, 0, row_ptr, NULL, cols, vals, 0, 0};
    return texla_sparse_make(ctx, &d, out);
}

void texla_sparse_destroy(texla_ctx *ctx, texla_sparse a) {
    texla__destroy(ctx, a.id, TEXLA__KIND_SPARSE);
}

/* ---- products ---- */

static texla_result product(texla_ctx *ctx, const char *fn, texla_sparse a, texla_vec x,
                            texla_vec y, int op, float beta, int add) {
    texla__operand ops[3] = {{"a", a.id, TEXLA__KIND_SPARSE, NULL},
                             {"x", x.id, TEXLA__KIND_VEC, NULL},
                             {"y", y.id, TEXLA__KIND_VEC, NULL}};
    texla_result r = texla__resolve(ctx, fn, ops, 3);
    if (r) return r;
    if (add && !isfinite(beta))
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: beta is %g; it must be finite", fn,
                           (double)beta);
    sparse_part *P = ops[0].o->part;
    const texla__layout *xl = op ? &P->rl : &P->cl, *yl = op ? &P->cl : &P->rl;
    if (!texla__same_layout(&ops[1].o->lay, xl) || !texla__same_layout(&ops[2].o->lay, yl)) {
        char b0[160], b1[96], b2[96];
        return texla__fail(ctx, TEXLA_ERR_SHAPE,
                           "%s: a is %s, made on layouts of %d (rows) and %d (columns) elements; "
                           "x is %s, y is %s: %s", fn, texla__describe(ops[0].o, b0, sizeof b0),
                           P->rl.n, P->cl.n, texla__describe(ops[1].o, b1, sizeof b1),
                           texla__describe(ops[2].o, b2, sizeof b2),
                           op ? "x must have a's row layout and y its column layout"
                              : "x must have a's column layout and y its row layout");
    }
    texla__gl_enter(&ctx->gl);
    r = texla__gl_current(&ctx->gl, fn); /* before the product's variant may change */
    if (!r) r = ensure_prod(ctx, fn, P, op);
    if (!r) r = sp_run(ctx, &P->prod[op].v, P->prod[op].form, ops[1].o, ops[2].o, beta, add,
                       &P->scr);
    texla__gl_leave(&ctx->gl);
    return r;
}

texla_result texla_sparse_matvec(texla_ctx *ctx, texla_sparse a, texla_vec x, texla_vec y) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    return product(ctx, "texla_sparse_matvec", a, x, y, 0, 0.0f, 0);
}

texla_result texla_sparse_matvec_add(texla_ctx *ctx, texla_sparse a, texla_vec x, float beta,
                                     texla_vec y) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    return product(ctx, "texla_sparse_matvec_add", a, x, y, 0, beta, 1);
}

texla_result texla_sparse_matvec_t(texla_ctx *ctx, texla_sparse a, texla_vec x, texla_vec y) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    return product(ctx, "texla_sparse_matvec_t", a, x, y, 1, 0.0f, 0);
}

/* ---- tuning, pinning, info ---- */

static sparse_part *part_of(texla_ctx *ctx, const char *fn, texla_sparse a, texla_result *r) {
    texla__obj *o = texla__obj_get(ctx, a.id, TEXLA__KIND_SPARSE);
    if (!o) {
        *r = texla__bad_handle(ctx, fn, "a", TEXLA__KIND_SPARSE, a.id);
        return NULL;
    }
    *r = TEXLA_OK;
    return o->part;
}

texla__obj *sp_object(texla_ctx *ctx, uint64_t id) {
    return texla__obj_get(ctx, id, TEXLA__KIND_SPARSE);
}

int sp_layouts(const texla__obj *o, const texla__layout **rl, const texla__layout **cl) {
    const sparse_part *P = o->part;
    *rl = &P->rl, *cl = &P->cl;
    return P->k == 1;
}

const sp_nat *sp_natural(texla_ctx *ctx, const char *fn, texla__obj *o, int want_mid,
                         texla_result *r) {
    sparse_part *P = o->part;
    *r = TEXLA_OK;
    if (!P->nat.made) *r = sp_nat_make(ctx, fn, &P->a, &P->cl, &P->nat);
    if (!*r && want_mid && !P->nat.buf[3].buf)
        *r = texla__buf_make(&ctx->gl, sizeof(float) * (size_t)texla__at_least_one(P->a.rows),
                             NULL, &P->nat.buf[3]);
    return *r ? NULL : &P->nat;
}

texla_result texla_sparse_tune(texla_ctx *ctx, texla_sparse a, texla_sparse_tune_desc *d) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_sparse_tune";
    texla_result r;
    sparse_part *P = part_of(ctx, fn, a, &r);
    if (!P) return r;
    texla_sparse_tune_desc def = {0};
    if (!d) d = &def;
    int ops = d->ops ? d->ops : 1;
    if (ops & ~3)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: ops is %d; bits 0 (A x) and 1 (A' x)",
                           fn, d->ops);
    if (d->block && (d->block < 2 || d->block > 4))
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: block is %d; 2, 3 or 4 (0: none)", fn,
                           d->block);
    if (d->max_trials < 0 || (d->max_trials && !d->trials))
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: max_trials %d with trials %s", fn,
                           d->max_trials, d->trials ? "given" : "NULL");
    if (!(d->budget == d->budget))
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: budget is NaN; seconds (0: the default, "
                           "< 0: no limit)", fn);
    double t0 = texla__now_ms();
    /* the budget, shared by the asked products: each gets an equal part of what is left; by
     * default 6 s, more past 2^24 entries (texla__tune_budget_ms) */
    double budget_ms = d->budget > 0    ? d->budget * 1e3
                       : d->budget < 0 ? -1
                                       : texla__tune_budget_ms(P->a.nnz);
    d->ntrials = 0;
    d->cached = 0;
    d->skipped = 0;
    d->budget_s = d->budget > 0 ? d->budget : budget_ms < 0 ? -1.0 : budget_ms / 1e3;
    texla__gl_enter(&ctx->gl);
    r = texla__gl_current(&ctx->gl, fn); /* before a cached variant is installed */
    if (r) {
        texla__gl_leave(&ctx->gl);
        return r;
    }
    int compute = compute_now(ctx);
    int scatter = (d->scatter || P->scatter) && ctx->gl.caps.atomic_float && compute;
    char keys[2][512];
    int tune = 0; /* the products to time: those the cache does not answer */
    for (int op = 0; op < 2; op++) {
        if (!(ops & (1 << op))) continue;
        sp_tune_key(stats_for(ctx, P, op), P->entry, op, compute | scatter << 1, keys[op],
                    sizeof keys[op]);
        texla_sparse_variant v;
        double us = 0;
        if (!d->force && sp_tune_cached(ctx, keys[op], P->k, op, &v, &us)) {
            const char *why;
            if (sp_variant_check(ctx, &v, P->k, op, &why) == TEXLA_OK &&
                (P->prod[op].pinned || set_variant(ctx, fn, P, op, &v, 3, us, compute) == TEXLA_OK)) {
                d->cached |= 1 << op;
                continue;
            }
            texla__tune_invalid(ctx, keys[op], why ? why : "cannot be used for this matrix");
        }
        tune |= 1 << op;
    }
    /* A' (the transposed rows) made first where A' x is timed: it took A' x's part of the
     * budget (H100, R-MAT: 1.2 s of it); on a thread of its own while A x is tuned where A x
     * comes first and does not read it (no scatter forms) */
    at_job job;
    int behind = (tune & 3) == 3 && !scatter && !P->at.ptr && at_start(P, &job);
    if (!behind) r = (tune & 2) || ((tune & 1) && scatter) ? need_at(ctx, fn, P) : TEXLA_OK;
    for (int op = 0; op < 2 && !r; op++) {
        if (!(tune & (1 << op))) continue;
        if (op == 1 && behind) {
            behind = 0;
            r = at_join(ctx, fn, P, &job);
            if (r) break;
        }
        const char *key = keys[op];
        texla_sparse_variant v;
        double us = 0;
        sp_plane p0 = plane_of(P, 0), p1 = plane_of(P, 1);
        sp_tune_req q = {{&p0, P->at.ptr ? &p1 : NULL}, P->entry, P->k, op, compute, scatter,
                         d->block, d->all, op ? &P->rl : &P->cl, op ? &P->cl : &P->rl,
                         d->trials ? d->trials + d->ntrials : NULL,
                         d->max_trials > d->ntrials ? d->max_trials - d->ntrials : 0, 0, 0, 0,
                         budget_ms};
        if (budget_ms >= 0) {
            /* A x, with A' x to come, past its deadline still finishes its last storage and
             * its final round (about 15% of the default budget on the H100): its part is cut
             * by that, so both products get about the same time to build storages */
            int two = op == 0 && (tune & 2);
            double now = texla__now_ms(), rest = t0 + budget_ms - now;
            q.deadline_ms = now + fmax(0.0, two ? 0.85 * rest / 2 : rest);
            if (!(q.deadline_ms > 0)) q.deadline_ms = 1e-9; /* a clock at 0: spent at once */
        }
        sp_form made;
        r = sp_tune(ctx, fn, &q, &v, &us, &made);
        d->ntrials += q.ntrials;
        d->skipped += q.skipped;
        if (r) break;
        r = adopt(ctx, P, op, &v, &made, us, compute);
        if (!r) sp_tune_store(ctx, key, &v, us);
    }
    if (behind) at_join(NULL, fn, P, &job); /* A x failed (its error stands): the copy kept */
    texla__gl_leave(&ctx->gl);
    d->seconds = (texla__now_ms() - t0) / 1e3;
    return r;
}

texla_result texla_sparse_pin(texla_ctx *ctx, texla_sparse a, texla_sparse_op op,
                              const texla_sparse_variant *v) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_sparse_pin";
    texla_result r;
    sparse_part *P = part_of(ctx, fn, a, &r);
    if (!P) return r;
    if (op != TEXLA_SPARSE_N && op != TEXLA_SPARSE_T)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: op is %d; TEXLA_SPARSE_N or _T", fn,
                           (int)op);
    sp_prod *pr = &P->prod[op];
    if (!v) {
        texla__gl_enter(&ctx->gl);
        r = texla__gl_current(&ctx->gl, fn);
        if (!r) {
            pr->pinned = 0;
            pr->how = 0; /* chosen again at the next product */
            form_release(ctx, P, pr->form);
            pr->form = NULL;
        }
        texla__gl_leave(&ctx->gl);
        return r;
    }
    /* as given: the normal form drops long_rows and long_chunk where they do not apply */
    int wg0 = v->wg ? v->wg : 128;
    if (v->long_rows < 0 || v->long_chunk < 0 || v->long_chunk > SP_CHUNK_MAX ||
        (v->long_chunk && v->long_chunk < wg0))
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: long_rows is %d and long_chunk %d: long_rows must be >= 0, and "
                           "long_chunk 0 (4096) or at least wg (%d) and at most 2^20", fn,
                           v->long_rows, v->long_chunk, wg0);
    texla_sparse_variant n = *v;
    sp_variant_norm(&n);
    const char *why;
    r = sp_variant_check(ctx, &n, P->k, op, &why);
    if (r) {
        char f[16], s[16], p[96];
        texla_sparse_variant_names(&n, f, s, p);
        return texla__fail(ctx, r, "%s: %s %s %s cannot run for this %s matrix here: %s", fn, f,
                           s, p, entry_name(P->entry), why);
    }
    texla__gl_enter(&ctx->gl);
    r = texla__gl_current(&ctx->gl, fn);
    if (!r)
        r = set_variant(ctx, fn, P, op, &n, 4, 0, !(n.format == TEXLA_SPARSE_POINTS ||
                                                    n.format == TEXLA_SPARSE_GATHER));
    texla__gl_leave(&ctx->gl);
    if (!r) {
        pr->pinned = 1;
        pr->pin = n;
    }
    return r;
}

/* points and gather costs from the real expansion's row lengths */
static void fragment_costs(const sparse_part *P, double *pb, double *pp, double *gb) {
    const sp_csr *m = &P->a;
    int k = P->k;
    double verts = 0, nnz = (double)m->nnz * k * k;
    for (int i = 0; i < m->rows; i++) verts += k * ((k * (m->ptr[i + 1] - m->ptr[i]) + 3) / 4);
    *pb = verts * 36;
    *pp = nnz ? (verts * 4 - nnz) / nnz : 0;
    *gb = nnz * 16 + (double)P->rl.gx * (double)P->rl.gy * 8;
}

texla_result texla_sparse_info_get(texla_ctx *ctx, texla_sparse a, texla_sparse_info *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_sparse_info_get";
    texla_result r;
    sparse_part *P = part_of(ctx, fn, a, &r);
    if (!P) return r;
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: out is NULL", fn);
    memset(out, 0, sizeof *out);
    const sp_stats *st = stats_a(P);
    int rb = P->entry == TEXLA_ENTRY_BLOCK3 ? 3 : 1;
    out->rows = P->rows;
    out->cols = P->cols;
    out->entry = (texla_entry)P->entry;
    out->nnz = st->nnz / (rb * rb);
    out->row_min = st->lmin;
    out->row_max = st->lmax;
    out->empty_rows = st->empty;
    out->row_mean = st->mean;
    out->row_sd = st->sd;
    for (int b = 2; b <= 4; b++) out->block_fill[b] = st->fill[b];
    for (int op = 0; op < 2; op++) {
        if (P->prod[op].form) out->now[op] = P->prod[op].v;
        out->how[op] = P->prod[op].form ? P->prod[op].how : 0;
        out->us[op] = P->prod[op].us;
    }
    for (int i = 0; i < MAX_FORMS; i++)
        if (P->forms[i]) out->gpu_bytes += P->forms[i]->bytes;
    out->host_bytes = (double)sp_csr_bytes(&P->a) + (P->at.ptr ? (double)sp_csr_bytes(&P->at) : 0);
    sp_plane p0 = plane_of(P, 0);
    for (int f = 0; f < TEXLA_SPARSE_NFORMATS; f++) {
        out->format_bytes[f] = -1;
        out->format_padding[f] = 0;
    }
    int best_b = 2;
    for (int b = 3; b <= 4; b++)
        if (st->fill[b] > st->fill[best_b] + 1e-9) best_b = b;
    const texla_sparse_variant defs[] = {
        {.format = TEXLA_SPARSE_CSR}, {.format = TEXLA_SPARSE_ELL},
        {.format = TEXLA_SPARSE_SELL, .slice = 32, .sigma = 1024},
        {.format = TEXLA_SPARSE_BSR, .block = best_b}, {.format = TEXLA_SPARSE_COO}};
    for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++)
        sp_form_cost(&p0, &defs[i], &out->format_bytes[defs[i].format],
                     &out->format_padding[defs[i].format]);
    double csc = -1;
    if (ctx->gl.caps.atomic_float) {
        double groups = (double)(P->cl.gx / 2) * (P->cl.gy / 2);
        csc = (groups * (P->k == 1 ? 4 : 2) + 1) * 4 + (double)st->nnz * (4 + 4.0 * P->k);
    }
    out->format_bytes[TEXLA_SPARSE_CSC] = csc;
    if (!ctx->gl.caps.atomic_float) out->format_bytes[TEXLA_SPARSE_COO] = -1;
    fragment_costs(P, &out->format_bytes[TEXLA_SPARSE_POINTS],
                   &out->format_padding[TEXLA_SPARSE_POINTS],
                   &out->format_bytes[TEXLA_SPARSE_GATHER]);
    return TEXLA_OK;
}

void texla_sparse_variant_names(const texla_sparse_variant *v, char format[16], char sched[16],
                                char params[96]) {
    static const char *const fn[] = {"auto", "points", "gather", "coo", "csr",
                                     "csc",  "ell",    "sell",   "bsr"};
    static const char *const sn[] = {"auto",   "row",  "lanes",   "group",
                                     "atomic", "draw", "segment", "merge", "stream"};
    if (!v) return;
    if (format)
        snprintf(format, 16, "%s", (unsigned)v->format < TEXLA_SPARSE_NFORMATS ? fn[v->format] : "?");
    if (sched) snprintf(sched, 16, "%s", (unsigned)v->sched <= TEXLA_SCHED_STREAM ? sn[v->sched] : "?");
    if (!params) return;
    int n = 0;
    params[0] = '\0';
#define P_(...) n += snprintf(params + n, n < 96 ? (size_t)(96 - n) : 0, __VA_ARGS__)
    if (v->format == TEXLA_SPARSE_SELL && v->rowsort) P_("C=%d rowsort ", v->slice);
    else if (v->format == TEXLA_SPARSE_SELL) P_("C=%d sigma=%d ", v->slice, v->sigma);
    if (v->format == TEXLA_SPARSE_BSR)
        P_("b=%d %s ", v->block,
           v->bell == 3 ? "sym" : v->bell == 2 ? "sell" : v->bell ? "ell" : "csr");
    if (v->sched == TEXLA_SCHED_LANES) P_("L=%d ", v->lanes);
    if (v->sched == TEXLA_SCHED_MERGE) P_("E=%d ", v->lanes);
    if (v->soa) P_("soa ");
    if (v->cols8) P_("cols8 ");
    else if (v->cols16) P_("cols16 ");
    else if (v->xbuf) P_("xbuf ");
    if (v->vec4) P_("vec4 ");
    if (v->tiles) P_("tiles ");
    if (v->long_rows) P_("long>%d/%d ", v->long_rows, v->long_chunk);
    if (v->wg) P_("wg=%d ", v->wg);
    if (v->dist) P_("%s/%d ", v->dist == 1 ? "static" : "dynamic", v->bpsm);
#undef P_
    if (n > 0 && n < 96 && params[n - 1] == ' ') params[n - 1] = '\0';
}

/* ---- the image grid ----
 * logical: the pattern (compound entries as their real expansion; axes longer than 4096
 * binned, the entry of largest magnitude of a bin shown, NaN first); raw: the real rows as the
 * points form stores them, one row of 4 slots per group of up to 4 entries of a row. */

#define SPARSE_BIN 4096

/* does value a win a bin over b: NaN first, then the larger magnitude */
static int wins(float a, float b) {
    if (isnan(b)) return 0;
    return isnan(a) || fabsf(a) > fabsf(b);
}

static texla_result grid(texla_ctx *ctx, texla__obj *so, const texla__grid_req *q, texla__grid *g) {
    const sparse_part *P = so->part;
    sp_csr re;
    texla_result r = sp_csr_real(ctx, q->fn, &P->a, &re);
    if (r) return r;
    char layout[64];
    snprintf(layout, sizeof layout, "sparse nnz %lld", re.nnz);
    if (q->raw) {
        long long nv = 0;
        for (int i = 0; i < re.rows; i++) nv += (re.ptr[i + 1] - re.ptr[i] + 3) / 4;
        r = texla__grid_make(ctx, q, 4, nv, g);
        if (!r) r = texla__grid_layout(ctx, q, g, layout);
        if (r) return sp_csr_free(&re), texla__grid_free(g), r;
        snprintf(g->shape, sizeof g->shape, "%d x %d vertices %lld", re.rows, re.cols, nv);
        long long v = 0;
        for (int i = 0; i < re.rows; i++)
            for (int e = re.ptr[i]; e < re.ptr[i + 1]; e += 4, v++)
                for (int k = 0; k < 4; k++) {
                    int has = e + k < re.ptr[i + 1];
                    texla__grid_put(g, k, (int)v, has ? re.val[e + k] : 0.0f,
                                    has ? TEXLA__CELL_VALUE : TEXLA__CELL_PAD);
                }
    } else {
        int br = (re.rows + SPARSE_BIN - 1) / SPARSE_BIN;
        int bc = (re.cols + SPARSE_BIN - 1) / SPARSE_BIN;
        r = texla__grid_make(ctx, q, (re.cols + bc - 1) / bc, (re.rows + br - 1) / br, g);
        if (!r) r = texla__grid_layout(ctx, q, g, layout);
        if (r) return sp_csr_free(&re), texla__grid_free(g), r;
        if (br > 1 || bc > 1)
            snprintf(g->shape, sizeof g->shape, "%d x %d binned %d x %d", re.rows, re.cols, br,
                     bc);
        else
            snprintf(g->shape, sizeof g->shape, "%d x %d", re.rows, re.cols);
        for (int i = 0; i < re.rows; i++)
            for (int e = re.ptr[i]; e < re.ptr[i + 1]; e++) {
                size_t cell = (size_t)(i / br) * (size_t)g->w + (size_t)(re.col[e] / bc);
                if (g->cls[cell] != TEXLA__CELL_VALUE || wins(re.val[e], g->v[cell])) {
                    g->v[cell] = re.val[e];
                    g->cls[cell] = TEXLA__CELL_VALUE;
                }
            }
    }
    sp_csr_free(&re);
    return TEXLA_OK; /* gpu stays 0: the writer finds the range of these host values */
}
