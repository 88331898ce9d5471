/* spformats.c - the sparse engine's host side: the canonical CSR (made from COO or CSR input,
 * duplicates summed), its transpose and real expansion, row statistics, the texel order of
 * rows, and the compute formats (CSR, ELLPACK-R, SELL-C-sigma, long-row chunks, COO, BSR)
 * built on the host and uploaded into storage buffers. No GL here. */
#include "storage/sparse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define one texla__at_least_one

void sp_csr_free(sp_csr *m) {
    free(m->ptr);
    free(m->col);
    free(m->val);
    memset(m, 0, sizeof *m);
}

size_t sp_csr_bytes(const sp_csr *m) {
    return ((size_t)m->rows + 1) * 4 + (size_t)m->nnz * (4 + 4 * (size_t)m->k);
}

static texla_result oom(texla_ctx *ctx, const char *fn, const char *what, double bytes) {
    if (!ctx) return TEXLA_ERR_MEMORY; /* a cost estimate: no message */
    return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory for %s (%.1f MB)", fn, what,
                       bytes / 1e6);
}

/* Sorts the indices a[0..n) by key[a[i]] (descending when desc), stably: equal keys keep their
 * order (duplicates are summed in input order; sorting is the same run to run). tmp: n ints. */
static void sort_by(int *a, int *tmp, int n, const int *key, int desc) {
#define BEFORE(x, y) (desc ? key[x] > key[y] : key[x] < key[y])
    for (int i0 = 0; i0 < n; i0 += 16) { /* runs of 16 by insertion */
        int i1 = i0 + 16 < n ? i0 + 16 : n;
        for (int i = i0 + 1; i < i1; i++) {
            int v = a[i], j = i;
            for (; j > i0 && BEFORE(v, a[j - 1]); j--) a[j] = a[j - 1];
            a[j] = v;
        }
    }
    for (int run = 16; run < n; run *= 2) {
        for (int lo = 0; lo < n; lo += 2 * run) {
            int mid = lo + run < n ? lo + run : n, hi = lo + 2 * run < n ? lo + 2 * run : n;
            int i = lo, j = mid, o = lo;
            while (i < mid && j < hi) tmp[o++] = BEFORE(a[j], a[i]) ? a[j++] : a[i++];
            while (i < mid) tmp[o++] = a[i++];
            while (j < hi) tmp[o++] = a[j++];
        }
        memcpy(a, tmp, sizeof *a * (size_t)n);
    }
#undef BEFORE
}

texla_result sp_csr_make(texla_ctx *ctx, const char *fn, int rows, int cols, int kin,
                         long long nnz, const int *rptr, const int *ridx, const int *cidx,
                         const float *val, sp_csr *out) {
    memset(out, 0, sizeof *out);
    /* the indices checked (CSR input: row by row, noting in the same pass whether every row's
     * columns strictly increase) */
    int clean = rptr && kin != 9;
    if (rptr) {
        for (int i = 0; i < rows; i++)
            for (int q = rptr[i]; q < rptr[i + 1]; q++) {
                int j = cidx[q];
                if (j < 0 || j >= cols)
                    return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                                       "%s: entry %d is at (%d, %d), outside the %d x %d matrix",
                                       fn, q, -1, j, rows, cols);
                clean &= q == rptr[i] || cidx[q - 1] < j;
            }
    } else {
        for (long long e = 0; e < nnz; e++) {
            int i = ridx[e], j = cidx[e];
            if (i < 0 || i >= rows || j < 0 || j >= cols)
                return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                                   "%s: entry %lld is at (%d, %d), outside the %d x %d matrix", fn,
                                   e, i, j, rows, cols);
        }
    }
    /* CSR input whose rows are already strictly increasing: a copy */
    if (rptr && kin != 9) {
        if (clean) {
            out->rows = rows, out->cols = cols, out->k = kin, out->nnz = nnz;
            out->ptr = malloc(sizeof *out->ptr * ((size_t)rows + 1));
            out->col = malloc(sizeof *out->col * one(nnz));
            out->val = malloc(sizeof *out->val * one(nnz * kin));
            if (!out->ptr || !out->col || !out->val) {
                sp_csr_free(out);
                return oom(ctx, fn, "the canonical CSR", (double)nnz * (4 + 4 * kin));
            }
            memcpy(out->ptr, rptr, sizeof *out->ptr * ((size_t)rows + 1));
            memcpy(out->col, cidx, sizeof *out->col * (size_t)nnz);
            memcpy(out->val, val, sizeof *out->val * (size_t)(nnz * kin));
            return TEXLA_OK;
        }
    }
    /* entries grouped by row, in input order within a row */
    int *ptr = calloc((size_t)rows + 1, sizeof *ptr);
    int *order = malloc(sizeof *order * one(nnz));
    if (!ptr || !order) {
        free(ptr), free(order);
        return oom(ctx, fn, "the entries", (double)nnz * 8);
    }
    if (rptr) {
        memcpy(ptr, rptr, sizeof *ptr * ((size_t)rows + 1));
        for (long long e = 0; e < nnz; e++) order[e] = (int)e;
    } else {
        for (long long e = 0; e < nnz; e++) ptr[ridx[e] + 1]++;
        for (int i = 0; i < rows; i++) ptr[i + 1] += ptr[i];
        int *fill = malloc(sizeof *fill * one(rows));
        if (!fill) {
            free(ptr), free(order);
            return oom(ctx, fn, "the rows", (double)rows * 4);
        }
        memcpy(fill, ptr, sizeof *fill * (size_t)rows);
        for (long long e = 0; e < nnz; e++) order[fill[ridx[e]]++] = (int)e;
        free(fill);
    }
    /* columns sorted within rows, duplicates counted */
    long long uniq = 0;
    int *tmp = NULL, tmpn = 0; /* a row's keys, positions, merge space and new order */
    for (int i = 0; i < rows; i++) {
        int *o = order + ptr[i], n = ptr[i + 1] - ptr[i], sorted = 1;
        for (int q = 1; q < n && sorted; q++) sorted = cidx[o[q - 1]] < cidx[o[q]];
        if (!sorted) {
            if (n > tmpn) {
                free(tmp);
                tmpn = n;
                tmp = malloc(sizeof *tmp * 4 * (size_t)n);
                if (!tmp) {
                    free(ptr), free(order);
                    return oom(ctx, fn, "sorting a row", (double)n * 16);
                }
            }
            int *key = tmp, *pos = tmp + n, *mrg = tmp + 2 * n, *no = tmp + 3 * n;
            for (int q = 0; q < n; q++) key[q] = cidx[o[q]], pos[q] = q;
            sort_by(pos, mrg, n, key, 0); /* local keys: the sort stays in cache */
            for (int q = 0; q < n; q++) no[q] = o[pos[q]];
            memcpy(o, no, sizeof *o * (size_t)n);
        }
        for (int q = 0; q < n; q++) uniq += q == 0 || cidx[o[q]] != cidx[o[q - 1]];
    }
    free(tmp);
    int block = kin == 9, k = block ? 1 : kin, b = block ? 3 : 1;
    int orows = rows * b, ocols = cols * b;
    long long onnz = uniq * (long long)(block ? 9 : 1);
    if (onnz > 0x7fffffffLL) {
        free(ptr), free(order);
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: %lld nonzeros after expanding the 3x3 blocks; at most %d", fn,
                           onnz, 0x7fffffff);
    }
    out->rows = orows;
    out->cols = ocols;
    out->k = k;
    out->nnz = onnz;
    out->ptr = malloc(sizeof *out->ptr * ((size_t)orows + 1));
    out->col = malloc(sizeof *out->col * one(onnz));
    out->val = malloc(sizeof *out->val * one(onnz * k));
    if (!out->ptr || !out->col || !out->val) {
        free(ptr), free(order), sp_csr_free(out);
        return oom(ctx, fn, "the canonical CSR", (double)onnz * (4 + 4 * k));
    }
    long long w = 0;
    out->ptr[0] = 0;
    for (int i = 0; i < rows; i++) {
        const int *o = order + ptr[i];
        int n = ptr[i + 1] - ptr[i];
        if (!block && k == 1) { /* real entries: no per-entry copy loop (it became memcpy) */
            for (int q = 0; q < n; q++) {
                if (q == 0 || cidx[o[q]] != cidx[o[q - 1]]) {
                    out->col[w] = cidx[o[q]];
                    out->val[w++] = val[o[q]];
                } else {
                    out->val[w - 1] += val[o[q]];
                }
            }
            out->ptr[i + 1] = (int)w;
            continue;
        }
        if (!block) {
            for (int q = 0; q < n; q++) {
                const float *v = val + (size_t)o[q] * (size_t)kin;
                if (q == 0 || cidx[o[q]] != cidx[o[q - 1]]) {
                    out->col[w] = cidx[o[q]];
                    for (int c = 0; c < k; c++) out->val[w * k + c] = v[c];
                    w++;
                } else {
                    for (int c = 0; c < k; c++) out->val[(w - 1) * k + c] += v[c];
                }
            }
            out->ptr[i + 1] = (int)w;
            continue;
        }
        /* block row i: its nb distinct blocks side by side in scalar rows 3i, 3i+1, 3i+2 */
        long long nb = 0;
        for (int q = 0; q < n; q++) nb += q == 0 || cidx[o[q]] != cidx[o[q - 1]];
        for (int r = 0; r < 3; r++) out->ptr[3 * i + r + 1] = (int)(w + (r + 1) * nb * 3);
        long long bi = -1;
        for (int q = 0; q < n; q++) {
            int dup = q > 0 && cidx[o[q]] == cidx[o[q - 1]];
            if (!dup) bi++;
            const float *v = val + (size_t)o[q] * 9;
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++) {
                    long long at = w + r * nb * 3 + bi * 3 + c;
                    out->col[at] = 3 * cidx[o[q]] + c;
                    out->val[at] = dup ? out->val[at] + v[r * 3 + c] : v[r * 3 + c];
                }
        }
        w += 9 * nb;
    }
    free(ptr), free(order);
    return TEXLA_OK;
}

int sp_csr_adjoint_of(const sp_csr *a, sp_csr *out) {
    memset(out, 0, sizeof *out);
    int k = a->k;
    out->rows = a->cols;
    out->cols = a->rows;
    out->k = k;
    out->nnz = a->nnz;
    out->ptr = calloc((size_t)a->cols + 1, sizeof *out->ptr);
    out->col = malloc(sizeof *out->col * one(a->nnz));
    out->val = malloc(sizeof *out->val * one(a->nnz * k));
    int *fill = malloc(sizeof *fill * one(a->cols));
    if (!out->ptr || !out->col || !out->val || !fill) {
        free(fill), sp_csr_free(out);
        return 0;
    }
    for (long long e = 0; e < a->nnz; e++) out->ptr[a->col[e] + 1]++;
    for (int j = 0; j < a->cols; j++) out->ptr[j + 1] += out->ptr[j];
    memcpy(fill, out->ptr, sizeof *fill * (size_t)a->cols);
    for (int i = 0; i < a->rows; i++)
        for (int e = a->ptr[i]; e < a->ptr[i + 1]; e++) {
            int d = fill[a->col[e]]++;
            out->col[d] = i;
            for (int c = 0; c < k; c++)
                out->val[(size_t)d * k + c] = c ? -a->val[(size_t)e * k + c] : a->val[(size_t)e * k];
        }
    free(fill);
    return 1;
}

texla_result sp_csr_adjoint(texla_ctx *ctx, const char *fn, const sp_csr *a, sp_csr *out) {
    return sp_csr_adjoint_of(a, out) ? TEXLA_OK
                                     : oom(ctx, fn, "the transposed copy", (double)sp_csr_bytes(a));
}

texla_result sp_csr_real(texla_ctx *ctx, const char *fn, const sp_csr *a, sp_csr *out) {
    memset(out, 0, sizeof *out);
    int k = a->k;
    long long nnz = a->nnz * k * k;
    if (nnz > 0x7fffffffLL)
        return texla__fail(ctx, TEXLA_ERR_LIMIT,
                           "%s: the real expansion of %lld entries has %lld nonzeros; at most %d",
                           fn, a->nnz, nnz, 0x7fffffff);
    out->rows = a->rows * k;
    out->cols = a->cols * k;
    out->k = 1;
    out->nnz = nnz;
    out->ptr = malloc(sizeof *out->ptr * ((size_t)out->rows + 1));
    out->col = malloc(sizeof *out->col * one(nnz));
    out->val = malloc(sizeof *out->val * one(nnz));
    if (!out->ptr || !out->col || !out->val) {
        sp_csr_free(out);
        return oom(ctx, fn, "the real expansion", (double)nnz * 8);
    }
    long long w = 0;
    out->ptr[0] = 0;
    for (int i = 0; i < a->rows; i++)
        for (int r = 0; r < k; r++) {
            for (int e = a->ptr[i]; e < a->ptr[i + 1]; e++) {
                const float *q = a->val + (size_t)e * k;
                for (int c = 0; c < k; c++) {
                    float v;
                    if (k == 1) {
                        v = q[0];
                    } else if (k == 2) { /* [re -im; im re] */
                        v = r == c ? q[0] : r == 0 ? -q[1] : q[1];
                    } else { /* L(q): rows (w -x -y -z) (x w -z y) (y z w -x) (z -y x w) */
                        static const int idx[4][4] = {{0, 1, 2, 3}, {1, 0, 3, 2}, {2, 3, 0, 1},
                                                      {3, 2, 1, 0}};
                        static const float sgn[4][4] = {{1, -1, -1, -1}, {1, 1, -1, 1},
                                                        {1, 1, 1, -1}, {1, -1, 1, 1}};
                        v = sgn[r][c] * q[idx[r][c]];
                    }
                    out->col[w] = a->col[e] * k + c;
                    out->val[w] = v;
                    w++;
                }
            }
            out->ptr[i * k + r + 1] = (int)w;
        }
    return TEXLA_OK;
}

void sp_stats_of(const sp_csr *m, sp_stats *st) {
    memset(st, 0, sizeof *st);
    st->rows = m->rows;
    st->cols = m->cols;
    st->nnz = m->nnz;
    st->lmin = m->rows ? 0x7fffffff : 0;
    double s = 0, s2 = 0;
    for (int i = 0; i < m->rows; i++) {
        int n = m->ptr[i + 1] - m->ptr[i];
        if (n < st->lmin) st->lmin = n;
        if (n > st->lmax) st->lmax = n;
        st->empty += n == 0;
        st->nlong += n > SP_LONG_ROW;
        s += n;
        s2 += (double)n * n;
    }
    if (m->rows) {
        st->mean = s / m->rows;
        double var = s2 / m->rows - st->mean * st->mean;
        st->sd = var > 0 ? sqrt(var) : 0;
    }
    long long near = 0, cnear = 0, runs = 0;
    double scale = m->rows ? (double)m->cols / m->rows : 0;
    double cscale = m->cols ? (double)m->rows / m->cols : 0; /* A' x's rows (A's columns) */
    for (int i = 0; i < m->rows; i++) {
        long long d = (long long)(i * scale);
        for (int e = m->ptr[i]; e < m->ptr[i + 1]; e++) {
            near += m->col[e] >= d - SP_NEAR && m->col[e] <= d + SP_NEAR;
            long long cd = (long long)(m->col[e] * cscale);
            cnear += i >= cd - SP_NEAR && i <= cd + SP_NEAR;
            runs += e > m->ptr[i] && m->col[e] - m->col[e - 1] <= SP_RUN_GAP;
            st->far16 += m->col[e] < i - SP_C16 || m->col[e] > i + SP_C16;
            st->far8 += m->col[e] < i - SP_C8 || m->col[e] > i + SP_C8;
        }
        if (m->ptr[i + 1] > m->ptr[i]) { /* the columns sorted */
            long long span = (long long)m->col[m->ptr[i + 1] - 1] - m->col[m->ptr[i]];
            st->wide16 += span > 2LL * SP_C16;
            st->wide8 += span > 2LL * SP_C8;
        }
    }
    st->near = m->nnz ? (double)near / (double)m->nnz : 0;
    st->cnear = m->nnz ? (double)cnear / (double)m->nnz : 0;
    st->runs = m->nnz ? (double)runs / (double)m->nnz : 0;
    int *cl = calloc(texla__at_least_one(m->cols), sizeof *cl);
    if (cl) {
        for (long long e = 0; e < m->nnz; e++) cl[m->col[e]]++;
        double c1 = 0, c2 = 0;
        for (int j = 0; j < m->cols; j++) {
            if (cl[j] > st->cmax) st->cmax = cl[j];
            st->cempty += cl[j] == 0;
            st->cnlong += cl[j] > SP_LONG_ROW;
            c1 += cl[j];
            c2 += (double)cl[j] * cl[j];
        }
        if (m->cols) {
            st->cmean = c1 / m->cols;
            double var = c2 / m->cols - st->cmean * st->cmean;
            st->csd = var > 0 ? sqrt(var) : 0;
        }
        /* the columns' runs (the rows of A'): each column's last row so far, plus one (0: none) */
        memset(cl, 0, sizeof *cl * (size_t)m->cols);
        long long cruns = 0;
        for (int i = 0; i < m->rows; i++)
            for (int e = m->ptr[i]; e < m->ptr[i + 1]; e++) {
                int j = m->col[e];
                cruns += cl[j] && i + 1 - cl[j] <= SP_RUN_GAP;
                cl[j] = i + 1;
            }
        st->cruns = m->nnz ? (double)cruns / (double)m->nnz : 0;
        free(cl);
    }
    if (m->k > 2) return;
    /* the fill of b x b blocks, b = 2, 3, 4: on every block row of smaller matrices, on 2^16
     * block rows spread evenly over bigger ones (an estimate for the rule and the tuner's
     * pruning; the same every time) */
    for (int b = 2; b <= 4; b++) {
        int nbr = (m->rows + b - 1) / b, nbc = (m->cols + b - 1) / b;
        int step = nbr > 65536 ? nbr / 65536 : 1;
        int *stamp = malloc(sizeof *stamp * one(nbc));
        if (!stamp) continue;
        for (int j = 0; j < nbc; j++) stamp[j] = -1;
        long long nb = 0, nz = 0;
        for (int I = 0; I < nbr; I += step)
            for (int i = I * b; i < (I + 1) * b && i < m->rows; i++)
                for (int e = m->ptr[i]; e < m->ptr[i + 1]; e++) {
                    int J = m->col[e] / b;
                    nz++;
                    if (stamp[J] != I) stamp[J] = I, nb++;
                }
        free(stamp);
        st->nblocks[b] = step == 1 ? nb : (long long)((double)nb * nbr / ((nbr + step - 1) / step));
        st->fill[b] = nb ? (double)nz / ((double)nb * b * b) : 0;
    }
}

void sp_stats_sym(const sp_csr *m, sp_stats *st) {
    int at[4];
    st->sym = m->k <= 2 && (st->fill[2] >= 0.5 || st->fill[3] >= 0.5 || st->fill[4] >= 0.5)
                  ? sp_csr_symmetric(m, at) : 0;
}

uint32_t sp_loc(const texla__layout *l, long long i) {
    long long cy = i / l->nx, cx = i - cy * l->nx;
    return (uint32_t)(cx >> 1) | (uint32_t)(cy >> 1) << 15 |
           (uint32_t)((cx & 1) + 2 * (cy & 1)) << 30;
}

texla_result sp_rows_make(texla_ctx *ctx, const char *fn, const texla__layout *l, int k,
                          sp_rows *out) {
    memset(out, 0, sizeof *out);
    int W = l->gx / 2, H = l->gy / 2;
    out->G = k == 1 ? 4 : 2;
    out->w = k == 4 ? W / 2 : W;
    out->ngroups = out->w * H;
    size_t n = (size_t)out->ngroups * (size_t)out->G;
    out->nat = malloc(sizeof *out->nat * one((long long)n));
    if (!out->nat) return oom(ctx, fn, "the row order", (double)n * 4);
    for (int g = 0; g < out->ngroups; g++) {
        int ty = g / out->w, gx = g % out->w;
        for (int c = 0; c < out->G; c++) {
            long long cx, cy;
            if (k == 1) cx = 2 * gx + (c & 1), cy = 2 * ty + (c >> 1);
            else if (k == 2) cx = 2 * gx, cy = 2 * ty + c;
            else cx = 4 * gx, cy = 2 * ty + c;
            long long e = cy * l->nx + cx;
            int live = cx < l->nx && e < l->n;
            out->nat[(size_t)g * out->G + c] = live ? (int)(e / k) : -1;
        }
    }
    return TEXLA_OK;
}

void sp_rows_free(sp_rows *r) {
    free(r->nat);
    r->nat = NULL;
}

/* groups of rows (natural texel order) holding a row of m longer than T */
static int long_groups(const sp_rows *rows, const sp_csr *m, int T) {
    int nag = 0;
    for (int g = 0; g < rows->ngroups; g++)
        for (int c = 0; c < rows->G; c++) {
            int i = rows->nat[(size_t)g * rows->G + c];
            if (i >= 0 && m->ptr[i + 1] - m->ptr[i] > T) {
                nag++;
                break;
            }
        }
    return nag;
}

int sp_long_groups(const sp_plane *p, int long_rows) {
    if (long_rows <= 0) return 0;
    sp_rows rows;
    if (sp_rows_make(NULL, "", &p->out, p->k, &rows)) return -1;
    int nag = long_groups(&rows, p->m, long_rows);
    sp_rows_free(&rows);
    return nag;
}

/* ---- variants: the fields that shape the storage ---- */

texla_sparse_variant sp_format_of(const texla_sparse_variant *v, int op, int *plane) {
    texla_sparse_variant f = {0};
    f.format = v->format;
    *plane = op;
    switch (v->format) {
    case TEXLA_SPARSE_CSC:
        f.format = TEXLA_SPARSE_CSR; /* the other plane's rows, as CSR */
        f.soa = v->soa;
        *plane = !op;
        break;
    case TEXLA_SPARSE_SELL:
        f.slice = v->slice;
        f.sigma = v->rowsort || v->sigma <= 1 ? 0 : v->sigma;
        f.rowsort = v->rowsort ? (v->wg > 0 ? v->wg : 128) : 0; /* the window: wg rows */
        /* fall through */
    case TEXLA_SPARSE_ELL:
        f.cols16 = v->cols16;
        f.cols8 = v->cols8;
        /* fall through */
    case TEXLA_SPARSE_CSR:
        if (v->format == TEXLA_SPARSE_CSR) {
            f.cols16 = v->cols16;
            f.cols8 = v->cols8;
            f.tiles = v->tiles;
            f.lanes = v->tiles ? v->lanes : 0; /* the tiles' height */
        }
        f.soa = v->soa;
        f.long_rows = v->sched == TEXLA_SCHED_ATOMIC ? 0 : v->long_rows;
        f.long_chunk = f.long_rows ? v->long_chunk : 0;
        break;
    case TEXLA_SPARSE_BSR:
        f.block = v->block;
        f.bell = v->bell;
        f.soa = v->soa;
        break;
    case TEXLA_SPARSE_COO:
        f.soa = v->soa;
        break;
    default: break;
    }
    return f;
}

int sp_format_same(const texla_sparse_variant *a, const texla_sparse_variant *b) {
    return a->format == b->format && a->slice == b->slice && a->sigma == b->sigma &&
           a->rowsort == b->rowsort &&
           a->block == b->block && a->bell == b->bell && a->soa == b->soa &&
           a->long_rows == b->long_rows && a->long_chunk == b->long_chunk &&
           a->cols16 == b->cols16 && a->cols8 == b->cols8 && a->tiles == b->tiles &&
           a->lanes == b->lanes;
}

/* ---- the plan of a row format: sizes first (cost), then the arrays (make) ---- */

typedef struct plan {
    sp_rows rows;
    int *len;         /* storage row -> entries in the main part (long rows: 0) */
    int *sorted;      /* SELL: sorted group -> group (perm) */
    int *rsorted;     /* SELL with rowsort: storage row -> natural storage row */
    int rs;           /* storage rows, padded */
    int width;        /* ELL */
    int nslices;
    long long ne_main, ne, nlong_entries;
    int nlong, nchunks, nag;
    long long stored; /* entries stored in the main part (padding included) */
} plan;

static void plan_free(plan *pl) {
    sp_rows_free(&pl->rows);
    free(pl->len);
    free(pl->sorted);
    free(pl->rsorted);
}

static int round_up(int n, int m) { return (n + m - 1) / m * m; }

/* SELL: the longest of slice s's C rows (len in storage order) */
static int slice_width(const int *len, int s, int C) {
    int w = 0;
    for (int c = 0; c < C; c++) w = len[s * C + c] > w ? len[s * C + c] : w;
    return w;
}

static texla_result plan_make(texla_ctx *ctx, const char *fn, const sp_plane *p,
                              const texla_sparse_variant *fv, plan *pl) {
    memset(pl, 0, sizeof *pl);
    texla_result r = sp_rows_make(ctx, fn, &p->out, p->k, &pl->rows);
    if (r) return r;
    int G = pl->rows.G, ng = pl->rows.ngroups, n = ng * G;
    int C = fv->format == TEXLA_SPARSE_SELL ? fv->slice : 4;
    pl->rs = round_up(n, C > 4 ? C : 4);
    pl->len = calloc((size_t)pl->rs, sizeof *pl->len);
    if (!pl->len) return plan_free(pl), oom(ctx, fn, "row lengths", (double)pl->rs * 4);
    const sp_csr *m = p->m;
    int T = fv->long_rows > 0 ? fv->long_rows : 0x7fffffff;
    int CH = fv->long_chunk > 0 ? fv->long_chunk : SP_CHUNK;
    for (int q = 0; q < n; q++) {
        int i = pl->rows.nat[q];
        int len = i < 0 ? 0 : m->ptr[i + 1] - m->ptr[i];
        if (len > T) {
            pl->nlong++;
            pl->nchunks += (int)(((long long)len + CH - 1) / CH);
            pl->nlong_entries += len;
            len = 0;
        }
        pl->len[q] = len;
    }
    pl->nag = pl->nlong ? long_groups(&pl->rows, m, T) : 0;
    long long main_nnz = m->nnz - pl->nlong_entries;
    if (fv->format == TEXLA_SPARSE_CSR || fv->format == TEXLA_SPARSE_COO) {
        pl->stored = main_nnz;
    } else if (fv->format == TEXLA_SPARSE_ELL) {
        for (int q = 0; q < n; q++)
            if (pl->len[q] > pl->width) pl->width = pl->len[q];
        pl->stored = (long long)pl->width * pl->rs;
    } else if (fv->rowsort) { /* SELL: rows sorted one by one within windows of a workgroup */
        int win = fv->rowsort;
        pl->rsorted = malloc(sizeof *pl->rsorted * (size_t)pl->rs);
        int *sl = calloc((size_t)pl->rs, sizeof *sl), *tmp = malloc(sizeof *tmp * (size_t)win);
        if (!pl->rsorted || !sl || !tmp) {
            free(sl), free(tmp);
            plan_free(pl);
            return oom(ctx, fn, "the SELL order", (double)pl->rs * 8);
        }
        for (int q = 0; q < pl->rs; q++) pl->rsorted[q] = q;
        for (int q0 = 0; q0 < n; q0 += win)
            sort_by(pl->rsorted + q0, tmp, n - q0 < win ? n - q0 : win, pl->len, 1);
        free(tmp);
        for (int q = 0; q < pl->rs; q++) sl[q] = pl->len[pl->rsorted[q]];
        free(pl->len);
        pl->len = sl;
    } else { /* SELL: groups sorted by their longest row within windows of sigma rows */
        pl->sorted = malloc(sizeof *pl->sorted * one(ng));
        int *key = malloc(sizeof *key * one(ng));
        if (!pl->sorted || !key) {
            free(key);
            plan_free(pl);
            return oom(ctx, fn, "the SELL order", (double)ng * 8);
        }
        for (int g = 0; g < ng; g++) {
            pl->sorted[g] = g;
            key[g] = 0;
            for (int c = 0; c < G; c++) key[g] = pl->len[g * G + c] > key[g] ? pl->len[g * G + c] : key[g];
        }
        int win = fv->sigma > 1 ? (fv->sigma + G - 1) / G : 1;
        if (win > 1) {
            int *tmp = malloc(sizeof *tmp * (size_t)(win < ng ? win : ng));
            if (!tmp) {
                free(key);
                plan_free(pl);
                return oom(ctx, fn, "the SELL order", (double)win * 4);
            }
            for (int g0 = 0; g0 < ng; g0 += win)
                sort_by(pl->sorted + g0, tmp, ng - g0 < win ? ng - g0 : win, key, 1);
            free(tmp);
        }
        /* lengths in sorted order */
        int *sl = calloc((size_t)pl->rs, sizeof *sl);
        if (!sl) {
            free(key);
            plan_free(pl);
            return oom(ctx, fn, "row lengths", (double)pl->rs * 4);
        }
        for (int q = 0; q < ng; q++)
            for (int c = 0; c < G; c++) sl[q * G + c] = pl->len[pl->sorted[q] * G + c];
        free(pl->len);
        pl->len = sl;
        free(key);
    }
    if (fv->format == TEXLA_SPARSE_SELL) {
        pl->nslices = pl->rs / C;
        for (int s = 0; s < pl->nslices; s++) {
            pl->stored += (long long)slice_width(pl->len, s, C) * C;
        }
    }
    pl->ne_main = pl->stored;
    pl->ne = pl->stored + pl->nlong_entries;
    return TEXLA_OK;
}

/* The long rows' table (buf 6, words): chunks (start, count); long rows (row of the group,
 * first chunk, chunks); affected groups (group, first long row) and an end; then (spmv_row.comp's
 * LONGPASS 2) each chunk's long row, each long row's affected group, a bit per group of y */
static size_t long_words(const plan *pl) {
    return 2 * (size_t)pl->nchunks + 3 * (size_t)pl->nlong + 2 * ((size_t)pl->nag + 1) +
           (size_t)pl->nchunks + (size_t)pl->nlong + ((size_t)pl->rows.ngroups + 31) / 32;
}

/* The state buffer (buf 5, bytes): next, done, two words; the chunks' sums; the long rows'
 * totals and counters, the affected groups' counters (LONGPASS 2) */
static size_t state_bytes(const plan *pl, int k) {
    return 16 + 4 * ((size_t)k * ((size_t)pl->nchunks + (size_t)pl->nlong) + (size_t)pl->nlong +
                     (size_t)pl->nag);
}

/* CSR's stream blocks (buf 3): whole groups, greedily, at most SP_STREAM_ENT / k entries and
 * SP_STREAM_ROWS / k rows each; (first group, first entry) of each and an end into blk (NULL:
 * counted only), from the main part's row lengths; their count */
static int stream_blocks(const plan *pl, int k, uint32_t *blk) {
    int ng = pl->rows.ngroups, G = pl->rows.G, gmax = SP_STREAM_ROWS / k / G;
    long long TBk = SP_STREAM_ENT / k, s = 0;
    int nb = 0;
    for (int g = 0; g < ng;) {
        long long acc = 0;
        for (int c = 0; c < G; c++) acc += pl->len[(size_t)g * G + c];
        int h = g + 1;
        if (acc <= TBk)
            for (; h < ng && h - g < gmax; h++) {
                long long lh = 0;
                for (int c = 0; c < G; c++) lh += pl->len[(size_t)h * G + c];
                if (acc + lh > TBk) break;
                acc += lh;
            }
        if (blk) blk[2 * nb] = (uint32_t)g, blk[2 * nb + 1] = (uint32_t)s;
        nb++;
        s += acc;
        g = h;
    }
    if (blk) blk[2 * nb] = (uint32_t)ng, blk[2 * nb + 1] = (uint32_t)s;
    return nb;
}

/* cols16 / cols8: column words, cpw entries (steps cpw j .. cpw j + cpw - 1 of a row) each:
 * CSR entry e in word e / cpw, part e % cpw; ELL ceil(width / cpw) rows of rs words; SELL each
 * slice's ceil(width / cpw) x C after the slices before it; cpw 1: a word an entry */
static long long col_words(const plan *pl, const texla_sparse_variant *fv, int cpw) {
    if (cpw == 1 || fv->format == TEXLA_SPARSE_CSR) return (pl->ne + cpw - 1) / cpw;
    if (fv->format == TEXLA_SPARSE_ELL) return (long long)((pl->width + cpw - 1) / cpw) * pl->rs;
    long long nw = 0;
    for (int s = 0; s < pl->nslices; s++)
        nw += (long long)((slice_width(pl->len, s, fv->slice) + cpw - 1) / cpw) * fv->slice;
    return nw;
}

static long long round4(long long n) { return (n + 3) / 4 * 4; }

/* CSR in tiles (make_tiles): its entries with a stand-in for each empty row, in whole units of
 * 32 x sg (*ne), its units (*units) and bytes */
static double tiles_shape(const plan *pl, int k, int sg, long long *ne, long long *units) {
    int R = pl->rows.ngroups * pl->rows.G;
    long long empty = 0, TS = 32LL * sg;
    for (int q = 0; q < R; q++) empty += pl->len[q] == 0;
    *units = (pl->ne + empty + TS - 1) / TS;
    if (*units < 1) *units = 1;
    *ne = *units * TS;
    /* row starts, columns, values, row ends' bits, carries (open rows and sums, splits, rows) */
    return ((double)R + 1) * 4 + (double)*ne * 4 * (1 + k) + (double)*units * sg * 4 +
           (double)*units * 4 * (1 + k) + ((double)*units + 1) * 8 + (double)R * k * 4;
}

static void row_cost(const sp_plane *p, const plan *pl, const texla_sparse_variant *fv,
                     double *bytes) {
    if (fv->tiles) {
        long long ne, units;
        *bytes = tiles_shape(pl, p->k, fv->lanes, &ne, &units);
        return;
    }
    int cpw = fv->cols16 && fv->format != TEXLA_SPARSE_COO ? (fv->cols8 ? 4 : 2) : 1;
    /* the column words and values as make_rows uploads them, in whole 16-byte chunks */
    double b = (double)round4(col_words(pl, fv, cpw)) * 4 + (double)round4(pl->ne * p->k) * 4;
    switch (fv->format) {
    case TEXLA_SPARSE_CSR:
        b += ((double)pl->rs + 1) * 4 + 8.0 * (stream_blocks(pl, p->k, NULL) + 1);
        /* short columns from each row's own column: those columns (make_rows, based) */
        if (fv->cols16 && p->st && (fv->cols8 ? p->st->far8 : p->st->far16) > 0)
            b += (double)pl->rs * 4;
        break;
    case TEXLA_SPARSE_ELL: b += (double)pl->rs * 4; break;
    case TEXLA_SPARSE_SELL: /* the slices' starts (cols16 / cols8: and their column words') */
        b += ((double)pl->nslices + 1) * 4 * (cpw > 1 ? 2 : 1) +
             (double)(pl->rsorted ? pl->rs : pl->rows.ngroups) * 4;
        break;
    case TEXLA_SPARSE_COO: b += (double)pl->ne * 4; break; /* the output index of each entry */
    default: break;
    }
    /* the tables and state buffer as make_rows uploads them (the long rows' entries are in ne) */
    if (pl->nlong) b += (double)long_words(pl) * 4;
    b += (double)state_bytes(pl, p->k);
    *bytes = b;
}

/* ---- BSR ---- */

#define BSLICE 32 /* block rows per slice of sliced block ELL (bell 2) */

typedef struct bplan {
    int b, nbr, nbc, width;
    int wup, wlow; /* the most blocks of a block row on and above the diagonal, and below it */
    long long nb;
    int *bptr; /* nbr + 1: blocks before each block row */
} bplan;

/* blocks stored by layout bell (0 block CSR, 1 block ELL, 2 sliced block ELL) */
static long long bsr_stored(const bplan *bp, int bell) {
    if (bell == 0) return bp->nb;
    if (bell == 1) return (long long)bp->width * bp->nbr;
    if (bell == 3) return (long long)bp->wup * bp->nbr; /* the blocks on and above the diagonal */
    long long s = 0;
    for (int I0 = 0; I0 < bp->nbr; I0 += BSLICE) {
        int w = 0;
        for (int I = I0; I < I0 + BSLICE && I < bp->nbr; I++)
            if (bp->bptr[I + 1] - bp->bptr[I] > w) w = bp->bptr[I + 1] - bp->bptr[I];
        s += (long long)w * BSLICE;
    }
    return s;
}

static texla_result bplan_make(texla_ctx *ctx, const char *fn, const sp_csr *m, int b,
                               bplan *bp) {
    memset(bp, 0, sizeof *bp);
    bp->b = b;
    bp->nbr = (m->rows + b - 1) / b;
    bp->nbc = (m->cols + b - 1) / b;
    bp->bptr = calloc((size_t)bp->nbr + 1, sizeof *bp->bptr);
    int *stamp = malloc(sizeof *stamp * one(bp->nbc));
    if (!bp->bptr || !stamp) {
        free(stamp), free(bp->bptr);
        return oom(ctx, fn, "the block rows", (double)bp->nbr * 4);
    }
    for (int j = 0; j < bp->nbc; j++) stamp[j] = -1;
    for (int I = 0; I < bp->nbr; I++) {
        int cnt = 0, up = 0;
        for (int i = I * b; i < (I + 1) * b && i < m->rows; i++)
            for (int e = m->ptr[i]; e < m->ptr[i + 1]; e++) {
                int J = m->col[e] / b;
                if (stamp[J] != I) stamp[J] = I, cnt++, up += J >= I;
            }
        bp->bptr[I + 1] = bp->bptr[I] + cnt;
        if (cnt > bp->width) bp->width = cnt;
        if (up > bp->wup) bp->wup = up;
        if (cnt - up > bp->wlow) bp->wlow = cnt - up;
    }
    free(stamp);
    bp->nb = bp->bptr[bp->nbr];
    return TEXLA_OK;
}

void sp_form_cost(const sp_plane *p, const texla_sparse_variant *fv, double *bytes,
                  double *padding) {
    *bytes = -1;
    *padding = 0;
    double nnz = p->m->nnz ? (double)p->m->nnz : 1;
    if (fv->format == TEXLA_SPARSE_BSR) {
        if (p->k > 2) return;
        bplan bp;
        int b = fv->block ? fv->block : 3;
        if (bplan_make(NULL, "", p->m, b, &bp)) return;
        long long stored = bsr_stored(&bp, fv->bell);
        *bytes = (double)stored * (4.0 * b * b * p->k + 4) + ((double)bp.nbr + 1) * 4;
        *padding = ((double)stored * b * b - (double)p->m->nnz) / nnz;
        if (fv->bell == 3) { /* the mirrored blocks' places; padding of the half stored */
            *bytes += (double)bp.wlow * bp.nbr * 4 + (double)bp.nbr * 4;
            *padding = ((double)stored * b * b - 0.5 * ((double)p->m->nnz + p->m->rows)) / nnz;
        }
        free(bp.bptr);
        return;
    }
    if (fv->format != TEXLA_SPARSE_CSR && fv->format != TEXLA_SPARSE_ELL &&
        fv->format != TEXLA_SPARSE_SELL && fv->format != TEXLA_SPARSE_COO)
        return;
    plan pl;
    if (plan_make(NULL, "", p, fv, &pl)) return;
    row_cost(p, &pl, fv, bytes);
    long long ne = pl.ne, units;
    if (fv->tiles) tiles_shape(&pl, p->k, fv->lanes, &ne, &units);
    *padding = ((double)ne - (double)p->m->nnz) / nnz;
    plan_free(&pl);
}

/* ---- making the forms ---- */

static texla_result limit_check(texla_ctx *ctx, const char *fn, const char *what, double bytes,
                                double entries) {
    long long max = ctx->gl.caps.ssbo_max;
    if (entries >= 4294967295.0)
        return texla__fail(ctx, TEXLA_ERR_LIMIT,
                           "%s: %s would store %.0f entries; the kernels index at most 2^32 - 1",
                           fn, what, entries);
    if (max > 0 && bytes > (double)max)
        return texla__fail(ctx, TEXLA_ERR_LIMIT,
                           "%s: %s needs a storage buffer of %.0f bytes; this GL allows at most "
                           "%lld (GL_MAX_SHADER_STORAGE_BLOCK_SIZE)", fn, what, bytes, max);
    return TEXLA_OK;
}

static texla_result upload(texla_ctx *ctx, sp_form *f, int i, const void *data, size_t bytes) {
    texla_result r = texla__buf_make(&ctx->gl, bytes ? bytes : 4, data, &f->buf[i]);
    if (!r) f->bytes += (double)(bytes ? bytes : 4);
    return r;
}

/* value c of entry e (canonical AoS) into the stored values at slot d */
static inline void put_val(float *dst, int soa, int k, long long ne, long long d, const float *src) {
    for (int c = 0; c < k; c++) dst[soa ? c * ne + d : d * k + c] = src[c];
}

/* CSR in tiles of entries (MERGE with tiles; after CSR5, Liu & Vinter): a stand-in entry
 * (column SP_PAD, value 0) for each empty row of the first R storage rows, the entries padded
 * to whole units of 32 lanes x sg, lane l's entries l sg .. l sg + sg - 1 of a unit stored at l,
 * 32 + l, ..: each lane's entries in a row of memory, neighbouring lanes' loads together.
 * buf 0: the row starts with the stand-ins (R + 1); 1, 2: the columns and values so ordered;
 * 3: a bit an entry, set where it ends a row, sg words a unit; 6: the carries of
 * spmv_merge.comp (M = units) with each unit's split made here: (rows ended before its first
 * entry, its first entry). ptr, col, val: the stored CSR (k floats an entry, soa: in planes). */
static texla_result make_tiles(texla_ctx *ctx, const char *fn, sp_form *f, const plan *pl,
                              const uint32_t *ptr, const uint32_t *col, const float *val,
                              int soa, int k, int sg) {
    int R = pl->rows.ngroups * pl->rows.G;
    long long ne = pl->ne, ne5, M, TS = 32LL * sg;
    tiles_shape(pl, k, sg, &ne5, &M);
    texla_result r = limit_check(ctx, fn, "the CSR form in tiles", (double)ne5 * 4 * k, (double)ne5);
    if (!r && (ne5 > 0x7fffffffLL || (k + 3) * M + 2 + (long long)k * R > 0x7fffffffLL))
        r = texla__fail(ctx, TEXLA_ERR_LIMIT, "%s: the CSR form in tiles would store %lld "
                        "entries; its kernels index at most 2^31 - 1", fn, ne5);
    if (r) return r;
    size_t cbytes = (size_t)M * 4 * (size_t)(1 + k) + ((size_t)M + 1) * 8 + (size_t)R * k * 4;
    uint32_t *ap = malloc(sizeof *ap * ((size_t)R + 1)), *c5 = malloc(sizeof *c5 * (size_t)ne5),
             *ds = calloc((size_t)M * sg, sizeof *ds), *cr = calloc(cbytes / 4, 4);
    float *v5 = calloc((size_t)ne5 * k, sizeof *v5);
    if (!ap || !c5 || !ds || !cr || !v5) {
        r = oom(ctx, fn, "the CSR form in tiles", (double)ne5 * (4 + 4 * k));
        goto out;
    }
    for (long long e = 0; e < ne5; e++) c5[e] = SP_PAD;
    long long a = 0;
    ap[0] = 0;
#define SLOT(e) (((e) / TS) * TS + ((e) % sg) * 32 + ((e) % TS) / sg)
    for (int q = 0; q < R; q++) {
        long long a0 = a;
        for (uint32_t e = ptr[q]; e < ptr[q + 1]; e++, a++) {
            long long d = SLOT(a);
            c5[d] = col[e];
            for (int c = 0; c < k; c++)
                v5[soa ? c * ne5 + d : d * k + c] = val[soa ? c * ne + e : (long long)e * k + c];
        }
        if (a == a0) a++; /* the stand-in */
        long long last = a - 1; /* ends row q: bit last % TS of its unit's sg words */
        ds[last / TS * sg + last % TS / 32] |= 1u << (last % TS % 32);
        ap[q + 1] = (uint32_t)a;
    }
#undef SLOT
    /* the units' splits: rows ended before each unit's first entry, and that entry */
    uint32_t *spl = cr + (size_t)M * (1 + k);
    uint32_t ended = 0;
    for (long long t = 0; t < M; t++) {
        spl[2 * t] = ended;
        spl[2 * t + 1] = (uint32_t)(t * TS);
        for (int w = 0; w < sg; w++) ended += (uint32_t)__builtin_popcount(ds[t * sg + w]);
    }
    spl[2 * M] = (uint32_t)R;
    spl[2 * M + 1] = (uint32_t)ne5;
    ap[R] = (uint32_t)ne5; /* (the padding after the last row's end: no row's) */
    f->ne = ne5;
    r = upload(ctx, f, 0, ap, sizeof *ap * ((size_t)R + 1));
    if (!r) r = upload(ctx, f, 1, c5, sizeof *c5 * (size_t)ne5);
    if (!r) r = upload(ctx, f, 2, v5, sizeof *v5 * (size_t)ne5 * k);
    if (!r) r = upload(ctx, f, 3, ds, sizeof *ds * (size_t)M * sg);
    if (!r) r = upload(ctx, f, 6, cr, cbytes);
out:
    free(ap), free(c5), free(ds), free(cr), free(v5);
    return r;
}

#define ELL_TILE 256 /* ELL's storage rows written together (make_rows) */
static texla_result make_rows(texla_ctx *ctx, const char *fn, const sp_plane *p,
                              const texla_sparse_variant *fv, sp_form *f) {
    plan pl;
    texla_result r = plan_make(ctx, fn, p, fv, &pl);
    if (r) return r;
    const sp_csr *m = p->m;
    int k = p->k, G = pl.rows.G, soa = fv->soa && k > 1;
    int C = fv->format == TEXLA_SPARSE_SELL ? fv->slice : 0;
    int CH = fv->long_chunk > 0 ? fv->long_chunk : SP_CHUNK;
    int n = pl.rows.ngroups * G;
    const char *what = fv->format == TEXLA_SPARSE_CSR ? "the CSR form"
                       : fv->format == TEXLA_SPARSE_ELL ? "the ELLPACK-R form"
                       : fv->format == TEXLA_SPARSE_SELL ? "the SELL form" : "the COO form";
    r = limit_check(ctx, fn, what, (double)pl.ne * 4 * k, (double)pl.ne * k);
    if (r) return plan_free(&pl), r;
    if (p->in.gx / 2 > 32768 || p->in.gy / 2 > 32768) {
        plan_free(&pl);
        return texla__fail(ctx, TEXLA_ERR_LIMIT, "%s: x's texture is %d x %d texels; the packed "
                           "columns address at most 32768 x 32768", fn, p->in.gx / 2, p->in.gy / 2);
    }
    /* cols16 / cols8: columns as offsets from the row, cpw (2 / 4) to a word */
    int c16 = fv->cols16 && fv->format != TEXLA_SPARSE_COO;
    int cpw = c16 ? (fv->cols8 ? 4 : 2) : 1, reach = fv->cols8 ? SP_C8 : SP_C16;
    const char *cname = fv->cols8 ? "cols8" : "cols16";
    /* CSR (based): the offsets from a column of each row's own, its first column + reach,
     * where some column lies out of reach of its row; each row's columns span at most 2 reach */
    int based = 0;
    if (c16) { /* every column within reach of its row (or of its own), checked first */
        if (k != 1 || pl.nlong) {
            plan_free(&pl);
            return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: %s holds real entries' columns "
                               "and no long rows", fn, cname);
        }
        for (int i = 0; i < m->rows && !based; i++)
            for (int e = m->ptr[i]; e < m->ptr[i + 1]; e++)
                if (m->col[e] < i - reach || m->col[e] > i + reach) {
                    if (fv->format == TEXLA_SPARSE_CSR) {
                        based = 1;
                        break;
                    }
                    plan_free(&pl);
                    return texla__fail(ctx, TEXLA_ERR_UNSUPPORTED, "%s: %s stores a column as "
                                       "its offset from the row, at most %d; entry (%d, %d) lies %d "
                                       "columns from its row", fn, cname, reach, i, m->col[e],
                                       m->col[e] > i ? m->col[e] - i : i - m->col[e]);
                }
        for (int i = 0; based && i < m->rows; i++) /* the columns sorted: first and last */
            if (m->ptr[i + 1] > m->ptr[i] &&
                (long long)m->col[m->ptr[i + 1] - 1] - m->col[m->ptr[i]] > 2LL * reach) {
                plan_free(&pl);
                return texla__fail(ctx, TEXLA_ERR_UNSUPPORTED, "%s: %s stores a column as its "
                                   "offset from the row or, in CSR, from a column of the row's "
                                   "own, at most %d; row %d's columns span %d .. %d (more than "
                                   "%d apart)", fn, cname, reach, i, m->col[m->ptr[i]],
                                   m->col[m->ptr[i + 1] - 1], 2 * reach);
            }
    }
    long long ne = pl.ne, nw = col_words(&pl, fv, cpw);
    /* the column words and the values in whole 16-byte chunks (CSR's VEC reads chunks of four
     * entries; the tail zero) */
    long long nw4 = round4(nw), nv4 = round4(ne * k);
    uint32_t *col = calloc(one(nw4), sizeof *col);
    float *val = calloc(one(nv4), sizeof *val);
    uint32_t *ptr = NULL, *aux = NULL, *lt = NULL, *blk = NULL;
    /* every column's packed texel and channel, once */
    uint32_t *cloc = malloc(sizeof *cloc * one(m->cols));
    if (!col || !val || !cloc) {
        r = oom(ctx, fn, what, (double)ne * (4 + 4 * k));
        goto done;
    }
    for (int j = 0; j < m->cols; j++) cloc[j] = sp_loc(&p->in, (long long)j * k);
    f->k = k;
    f->G = G;
    f->ngroups = pl.rows.ngroups;
    f->w = pl.rows.w;
    f->rs = pl.rs;
    f->width = pl.width;
    f->ne = ne;
    f->based = based;
    /* storage row q -> canonical row (SELL: q in sorted order) */
    /* column of entry e of canonical row i at slot d (cols16 / cols8: word w, its part
     * j % cpw of 32 / cpw bits) */
    int cb = 32 / cpw;
    uint32_t cmask = c16 ? (1u << cb) - 1u : 0;
#define PUTC(d, w, j, i, e)                                                                       \
    do {                                                                                          \
        if (c16)                                                                                  \
            col[w] = (col[w] & ~(cmask << cb * ((j) % cpw))) |                                    \
                     ((uint32_t)(m->col[e] - REF(i)) & cmask) << cb * ((j) % cpw);             \
        else                                                                                      \
            col[d] = cloc[m->col[e]];                                                             \
    } while (0)
/* the column row i's offsets are from: the row, or (based) its first column + reach */
#define REF(i) (based ? (int)((uint32_t)m->col[m->ptr[i]] + (uint32_t)reach) : (i))
#define NAT(q) (pl.rsorted ? pl.rows.nat[pl.rsorted[q]] \
                : pl.sorted ? pl.rows.nat[(size_t)pl.sorted[(q) / G] * G + (q) % G] : pl.rows.nat[q])
    if (fv->format == TEXLA_SPARSE_CSR || fv->format == TEXLA_SPARSE_COO) {
        int coo = fv->format == TEXLA_SPARSE_COO;
        /* based: each storage row's reference column after the row starts */
        ptr = malloc(sizeof *ptr * ((size_t)(coo ? one(ne) : (size_t)pl.rs * (1 + based) + 1)));
        if (!ptr) {
            r = oom(ctx, fn, what, (double)pl.rs * 4);
            goto done;
        }
        long long w = 0;
        if (!coo) ptr[0] = 0; /* (col and val start zero: calloc) */
        for (int q = 0; q < pl.rs; q++) {
            int i = q < n ? NAT(q) : -1;
            if (i >= 0 && pl.len[q] > 0)
                for (int e = m->ptr[i]; e < m->ptr[i + 1]; e++, w++) {
                    PUTC(w, w / cpw, w, i, e); /* cols16: entry w in part w % cpw */
                    put_val(val, soa, k, ne, w, m->val + (size_t)e * k);
                    if (coo) {
                        int g = q / G, c = q % G;
                        ptr[w] = k == 1 ? (uint32_t)(4 * g + c)
                                 : k == 2 ? (uint32_t)(4 * g + 2 * c) : (uint32_t)(8 * g + 2 * c);
                    }
                }
            if (!coo) ptr[q + 1] = (uint32_t)w;
            if (based) ptr[pl.rs + 1 + q] = i >= 0 && pl.len[q] > 0 ? (uint32_t)REF(i) : 0u;
        }
        if (coo) {
            aux = ptr; /* the output index of each entry goes to binding 3 */
            ptr = NULL;
        } else if (!fv->tiles) { /* the stream blocks: whole groups, greedily, at most TBk
                                  * entries and RBk rows (tiles: not stored) */
            int ng = pl.rows.ngroups;
            blk = malloc(sizeof *blk * 2 * ((size_t)ng + 1));
            if (!blk) {
                r = oom(ctx, fn, what, (double)ng * 8);
                goto done;
            }
            f->nblocks = stream_blocks(&pl, k, blk);
        }
    } else {
        if (c16) /* every part padding */
            for (long long w = 0; w < nw; w++) col[w] = cpw == 4 ? 0x80808080u : 0x80008000u;
        else
            for (long long d = 0; d < pl.ne_main; d++) col[d] = SP_PAD;
        /* (padding values: zero from calloc) */
        if (fv->format == TEXLA_SPARSE_ELL) {
            aux = malloc(sizeof *aux * (size_t)pl.rs); /* lengths */
            if (!aux) {
                r = oom(ctx, fn, what, (double)pl.rs * 4);
                goto done;
            }
            /* in tiles of ELL_TILE storage rows, a step of all of a tile's rows at a time, so
             * that the writes run along each step (row by row, a row's steps lie rs words
             * apart, rs often a power of two: 2^20 rows of 16 built in 0.60 s, in tiles 0.42,
             * on this project's 2-core host; the H200's host took 1.2 s, SELL-32 0.4) */
            int ti[ELL_TILE];
            for (int q0 = 0; q0 < pl.rs; q0 += ELL_TILE) {
                int q1 = q0 + ELL_TILE < pl.rs ? q0 + ELL_TILE : pl.rs, tw = 0;
                for (int q = q0; q < q1; q++) {
                    aux[q] = (uint32_t)pl.len[q];
                    int i = q < n && pl.len[q] ? NAT(q) : -1;
                    ti[q - q0] = i;
                    if (i >= 0 && m->ptr[i + 1] - m->ptr[i] > tw) tw = m->ptr[i + 1] - m->ptr[i];
                }
                for (int j = 0; j < tw; j++)
                    for (int q = q0; q < q1; q++) {
                        int i = ti[q - q0];
                        if (i < 0 || j >= m->ptr[i + 1] - m->ptr[i]) continue;
                        int e = m->ptr[i] + j;
                        long long d = (long long)j * pl.rs + q;
                        PUTC(d, (long long)(j / cpw) * pl.rs + q, j, i, e);
                        put_val(val, soa, k, ne, d, m->val + (size_t)e * k);
                    }
            }
            f->lens = 1;
        } else { /* SELL */
            /* cols16: the slices' first words after their first entries */
            size_t np = (size_t)pl.nslices + 1;
            ptr = malloc(sizeof *ptr * (c16 ? 2 * np : np));
            /* perm: the sorted groups' places, or (rowsort) each storage row's */
            aux = malloc(sizeof *aux * one(pl.rsorted ? pl.rs : pl.rows.ngroups));
            if (!ptr || !aux) {
                r = oom(ctx, fn, what, (double)pl.nslices * 4);
                goto done;
            }
            uint32_t *wptr = c16 ? ptr + np : NULL;
            ptr[0] = 0;
            if (wptr) wptr[0] = 0;
            for (int s = 0; s < pl.nslices; s++) {
                int wmax = slice_width(pl.len, s, C);
                ptr[s + 1] = ptr[s] + (uint32_t)(wmax * C);
                if (wptr) wptr[s + 1] = wptr[s] + (uint32_t)((wmax + cpw - 1) / cpw * C);
                for (int c = 0; c < C; c++) {
                    int q = s * C + c, i = q < n ? NAT(q) : -1;
                    if (i < 0 || !pl.len[q]) continue;
                    for (int j = 0, e = m->ptr[i]; e < m->ptr[i + 1]; e++, j++) {
                        long long d = ptr[s] + (long long)j * C + c;
                        PUTC(d, (wptr ? wptr[s] : 0) + (long long)(j / cpw) * C + c, j, i, e);
                        put_val(val, soa, k, ne, d, m->val + (size_t)e * k);
                    }
                }
            }
            if (pl.rsorted)
                for (int q = 0; q < pl.rs; q++) aux[q] = (uint32_t)pl.rsorted[q];
            else
                for (int g = 0; g < pl.rows.ngroups; g++) aux[g] = (uint32_t)pl.sorted[g];
            f->perm = pl.rsorted ? 2 : 1;
            f->lens = 0;
        }
    }
    /* long rows: their entries after the main part, in chunks; the tables the kernel reads */
    f->nchunks = pl.nchunks;
    f->nag = pl.nag;
    if (pl.nlong) {
        /* the tables of long_words, in its order */
        size_t nbm = ((size_t)pl.rows.ngroups + 31) / 32, ltn = long_words(&pl);
        lt = malloc(sizeof *lt * ltn);
        if (!lt) {
            r = oom(ctx, fn, "the long rows", (double)ltn * 4);
            goto done;
        }
        f->lt_lr = 2 * pl.nchunks;
        f->lt_ag = f->lt_lr + 3 * pl.nlong;
        size_t lt_cl = (size_t)f->lt_ag + 2 * ((size_t)pl.nag + 1), lt_la = lt_cl + (size_t)pl.nchunks,
               lt_bm = lt_la + (size_t)pl.nlong;
        memset(lt + lt_bm, 0, sizeof *lt * nbm);
        long long w = pl.ne_main;
        int chunk = 0, lr = 0, ag = 0, last_g = -1;
        int T = fv->long_rows;
        /* in the original group order, so each affected group's long rows are together */
        for (int q = 0; q < n; q++) {
            int i = pl.rows.nat[q];
            int len = i < 0 ? 0 : m->ptr[i + 1] - m->ptr[i];
            if (len <= T) continue;
            int g = q / G;
            if (g != last_g) {
                lt[f->lt_ag + 2 * ag] = (uint32_t)g;
                lt[f->lt_ag + 2 * ag + 1] = (uint32_t)lr;
                ag++;
                last_g = g;
            }
            int nch = (int)(((long long)len + CH - 1) / CH);
            lt[f->lt_lr + 3 * lr] = (uint32_t)(q % G);
            lt[f->lt_lr + 3 * lr + 1] = (uint32_t)chunk;
            lt[f->lt_lr + 3 * lr + 2] = (uint32_t)nch;
            lt[lt_la + (size_t)lr] = (uint32_t)(ag - 1);
            lt[lt_bm + (size_t)g / 32] |= 1u << (g % 32);
            for (int c = 0; c < nch; c++) lt[lt_cl + (size_t)chunk + (size_t)c] = (uint32_t)lr;
            lr++;
            for (int c = 0; c < nch; c++, chunk++) {
                int n0 = c * CH, cnt = len - n0 < CH ? len - n0 : CH;
                lt[2 * chunk] = (uint32_t)(w);
                lt[2 * chunk + 1] = (uint32_t)cnt;
                for (int e = m->ptr[i] + n0; e < m->ptr[i] + n0 + cnt; e++, w++) {
                    col[w] = cloc[m->col[e]];
                    put_val(val, soa, k, ne, w, m->val + (size_t)e * k);
                }
            }
        }
        lt[f->lt_ag + 2 * ag] = 0;
        lt[f->lt_ag + 2 * ag + 1] = (uint32_t)lr; /* the end of the last group's long rows */
        r = upload(ctx, f, 6, lt, sizeof *lt * ltn);
        if (r) goto done;
    }
#undef PUTC
#undef REF
#undef NAT
    if (fv->tiles) { /* the CSR rearranged into tiles; only that uploaded */
        r = make_tiles(ctx, fn, f, &pl, ptr, col, val, soa, k, fv->lanes);
        f->padding = m->nnz ? ((double)f->ne - (double)m->nnz) / (double)m->nnz : 0;
        goto done;
    }
    if (ptr) r = upload(ctx, f, 0, ptr, sizeof *ptr * (fv->format == TEXLA_SPARSE_SELL
                                                           ? ((size_t)pl.nslices + 1) * (c16 ? 2 : 1)
                                                           : (size_t)pl.rs * (1 + based) + 1));
    if (!r) r = upload(ctx, f, 1, col, sizeof *col * (size_t)nw4);
    if (!r) r = upload(ctx, f, 2, val, sizeof *val * (size_t)nv4);
    if (!r && aux)
        r = upload(ctx, f, fv->format == TEXLA_SPARSE_SELL ? 4 : 3, aux,
                   sizeof *aux * (fv->format == TEXLA_SPARSE_SELL && !pl.rsorted ? (size_t)pl.rows.ngroups
                                  : fv->format == TEXLA_SPARSE_COO ? (size_t)ne : (size_t)pl.rs));
    if (!r && blk) r = upload(ctx, f, 3, blk, sizeof *blk * 2 * ((size_t)f->nblocks + 1));
    if (!r) r = upload(ctx, f, 5, NULL, state_bytes(&pl, k));
    f->padding = m->nnz ? ((double)ne - (double)m->nnz) / (double)m->nnz : 0;
done:
    free(col), free(val), free(ptr), free(aux), free(lt), free(cloc), free(blk);
    plan_free(&pl);
    return r;
}

/* the distinct block columns J, jlo <= J < jhi, of b x b block row I into list, increasing
 * (stamp[J] = tag marks those seen: a tag no other call of the same stamp uses); their count */
static int block_list(const sp_csr *m, int b, int I, int jlo, int jhi, int tag, int *stamp,
                      int *list) {
    int cnt = 0;
    for (int i = I * b; i < (I + 1) * b && i < m->rows; i++)
        for (int e = m->ptr[i]; e < m->ptr[i + 1]; e++) {
            int J = m->col[e] / b;
            if (J >= jlo && J < jhi && stamp[J] != tag) stamp[J] = tag, list[cnt++] = J;
        }
    for (int a = 1; a < cnt; a++) { /* insertion sort: nearly sorted lists */
        int v = list[a], q = a;
        for (; q > 0 && list[q - 1] > v; q--) list[q] = list[q - 1];
        list[q] = v;
    }
    return cnt;
}

/* entry (i, j) of a CSR with sorted columns, or NULL where it is not stored */
static const float *entry_at(const sp_csr *m, int i, int j) {
    int lo = m->ptr[i], hi = m->ptr[i + 1] - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (m->col[mid] < j) lo = mid + 1;
        else if (m->col[mid] > j) hi = mid - 1;
        else return m->val + (size_t)mid * (size_t)m->k;
    }
    return NULL;
}

/* why entry (i, j) is not entry (j, i) (conj: its conjugate), in words: one of them is not
 * stored, or is NaN (equal to nothing), or their values */
static void pair_why(const sp_csr *m, int i, int j, int conj, char *buf, size_t cap) {
    const float *a = entry_at(m, i, j), *t = entry_at(m, j, i);
    int cx = m->k == 2;
    if (!a || !t) {
        snprintf(buf, cap, "entry (%d, %d) is not stored", a ? j : i, a ? i : j);
    } else if (isnan(a[0]) || (cx && isnan(a[1])) || isnan(t[0]) || (cx && isnan(t[1]))) {
        int an = isnan(a[0]) || (cx && isnan(a[1]));
        snprintf(buf, cap, "entry (%d, %d) is NaN", an ? i : j, an ? j : i);
    } else if (!cx) {
        snprintf(buf, cap, "%.9g against %.9g", a[0], t[0]);
    } else {
        snprintf(buf, cap, conj ? "%.9g%+.9gi against conj(%.9g%+.9gi)" : "%.9g%+.9gi against "
                 "%.9g%+.9gi", a[0], a[1], t[0], t[1]);
    }
}

int sp_csr_symmetric(const sp_csr *m, int at[4]) {
    for (int q = 0; q < 4; q++) at[q] = -1;
    if (m->rows != m->cols || m->k > 2) return 0;
    int k = m->k, can_s = 1, can_h = k == 2; /* A = A' still possible; A = A^H still possible */
    for (int i = 0; i < m->rows && (can_s || can_h); i++)
        for (int e = m->ptr[i]; e < m->ptr[i + 1] && (can_s || can_h); e++) {
            int j = m->col[e];
            const float *a = m->val + (size_t)e * (size_t)k;
            if (j == i) { /* its own mirror: Hermitian only where it is real */
                if (can_h && !(a[1] == 0.0f)) can_h = 0, at[2] = at[3] = i;
                continue;
            }
            const float *t = entry_at(m, j, i);
            if (can_s && !(t && t[0] == a[0] && (k == 1 || t[1] == a[1])))
                can_s = 0, at[0] = i, at[1] = j;
            if (can_h && !(t && t[0] == a[0] && t[1] == -a[1])) can_h = 0, at[2] = i, at[3] = j;
        }
    return can_s ? 1 : can_h ? 2 : 0;
}

/* bell 3, symmetric block ELL (real or complex blocks, AoS): the blocks on and above the block
 * diagonal as block ELL (ptr[I] of them in block row I), and for each block row the places of
 * the stored blocks that its blocks below the diagonal mirror (buf[3], column-major like the
 * blocks, ptr[nbr + 1 + I] of them): the kernel reads those transposed, conjugated where the
 * matrix is Hermitian (f->herm) */
static texla_result make_bsr_sym(texla_ctx *ctx, const char *fn, const sp_plane *p,
                                 const texla_sparse_variant *fv, sp_form *f) {
    const sp_csr *m = p->m;
    int b = fv->block, k = p->k, at[4];
    if (k > 2 || fv->soa)
        return texla__fail(ctx, TEXLA_ERR_UNSUPPORTED, "%s: symmetric block ELL (bell 3) holds "
                           "real or complex blocks, AoS", fn);
    int kind = sp_csr_symmetric(m, at);
    if (!kind) {
        if (m->rows != m->cols)
            return texla__fail(ctx, TEXLA_ERR_UNSUPPORTED, "%s: symmetric block ELL (bell 3) "
                               "needs a square matrix; this one is %d x %d", fn, m->rows, m->cols);
        char w[96], h[192], hw[96];
        pair_why(m, at[0], at[1], 0, w, sizeof w);
        if (k == 1)
            return texla__fail(ctx, TEXLA_ERR_UNSUPPORTED, "%s: symmetric block ELL (bell 3) "
                               "needs A = A'; entry (%d, %d) is not entry (%d, %d) (%s)", fn,
                               at[0], at[1], at[1], at[0], w);
        if (at[2] == at[3]) {
            const float *d = entry_at(m, at[2], at[2]);
            snprintf(h, sizeof h, "diagonal entry (%d, %d) is not real (imaginary part %.9g)",
                     at[2], at[3], d ? d[1] : 0.0);
        } else {
            pair_why(m, at[2], at[3], 1, hw, sizeof hw);
            snprintf(h, sizeof h, "entry (%d, %d) is not the conjugate of entry (%d, %d) (%s)",
                     at[2], at[3], at[3], at[2], hw);
        }
        return texla__fail(ctx, TEXLA_ERR_UNSUPPORTED, "%s: symmetric block ELL (bell 3) needs "
                           "A = A' or A = A^H; entry (%d, %d) is not entry (%d, %d) (%s), and %s",
                           fn, at[0], at[1], at[1], at[0], w, h);
    }
    bplan bp;
    texla_result r = bplan_make(ctx, fn, m, b, &bp);
    if (r) return r;
    long long nbr = bp.nbr, stored = (long long)bp.wup * nbr, nref = (long long)bp.wlow * nbr;
    r = limit_check(ctx, fn, "the symmetric BSR form", (double)stored * b * b * 4 * k,
                    (double)stored * b * b * k);
    if (r) return free(bp.bptr), r;
    size_t nptr = 2 * (size_t)nbr + 1;
    uint32_t *ptr = calloc(nptr, sizeof *ptr), *col = calloc(one(stored), sizeof *col);
    uint32_t *ref = calloc(one(nref), sizeof *ref);
    int *ublk = malloc(sizeof *ublk * one(stored)); /* each stored block's block column */
    float *val = calloc(one(stored) * (size_t)(b * b * k), sizeof *val);
    int *pos = malloc(sizeof *pos * one(bp.nbc)), *stampJ = malloc(sizeof *stampJ * one(bp.nbc));
    int *list = malloc(sizeof *list * one(bp.width));
    if (!ptr || !col || !ref || !ublk || !val || !pos || !stampJ || !list) {
        r = oom(ctx, fn, "the symmetric BSR form", (double)stored * (8 + 4 * b * b * k));
        goto done;
    }
    for (int J = 0; J < bp.nbc; J++) stampJ[J] = -1;
    for (int I = 0; I < nbr; I++) { /* the blocks on and above the diagonal */
        int cnt = block_list(m, b, I, I, bp.nbc, I, stampJ, list);
        for (int q = 0; q < cnt; q++) {
            pos[list[q]] = q;
            ublk[(long long)q * nbr + I] = list[q];
            col[(long long)q * nbr + I] = sp_loc(&p->in, (long long)list[q] * b * k);
        }
        ptr[I] = (uint32_t)cnt;
        for (int i = I * b; i < (I + 1) * b && i < m->rows; i++)
            for (int e = m->ptr[i]; e < m->ptr[i + 1]; e++) {
                int J = m->col[e] / b;
                if (J < I) continue;
                long long d = (long long)pos[J] * nbr + I;
                size_t o = ((size_t)d * b * b + (size_t)((i - I * b) * b + m->col[e] - J * b)) * k;
                for (int c = 0; c < k; c++) val[o + c] = m->val[(size_t)e * k + c];
            }
    }
    for (int I = 0; I < nbr; I++) { /* below: block (I, J), J < I, is stored block (J, I) */
        int cnt = block_list(m, b, I, 0, I, -2 - I, stampJ, list);
        for (int q = 0; q < cnt; q++) {
            int J = list[q], lo = 0, hi = (int)ptr[J] - 1; /* I among row J's stored columns */
            while (lo <= hi) {
                int mid = lo + (hi - lo) / 2;
                if (ublk[(long long)mid * nbr + J] < I) lo = mid + 1;
                else hi = mid - 1;
            }
            ref[(long long)q * nbr + I] = (uint32_t)((long long)lo * nbr + J);
        }
        ptr[nbr + 1 + I] = (uint32_t)cnt;
    }
    f->k = k;
    f->herm = kind == 2;
    f->nbr = bp.nbr;
    f->ne = stored;
    r = upload(ctx, f, 0, ptr, sizeof *ptr * nptr);
    if (!r) r = upload(ctx, f, 1, col, sizeof *col * (size_t)stored);
    if (!r) r = upload(ctx, f, 2, val, sizeof *val * (size_t)stored * (size_t)(b * b * k));
    if (!r) r = upload(ctx, f, 3, ref, sizeof *ref * (size_t)one(nref));
    if (!r) r = upload(ctx, f, 5, NULL, 16);
    f->padding = m->nnz ? ((double)stored * b * b - 0.5 * ((double)m->nnz + m->rows)) / (double)m->nnz
                        : 0;
done:
    free(ptr), free(col), free(ref), free(ublk), free(val), free(pos), free(stampJ), free(list),
        free(bp.bptr);
    return r;
}

static texla_result make_bsr(texla_ctx *ctx, const char *fn, const sp_plane *p,
                             const texla_sparse_variant *fv, sp_form *f) {
    if (fv->bell == 3) return make_bsr_sym(ctx, fn, p, fv, f);
    const sp_csr *m = p->m;
    int b = fv->block, k = p->k;
    bplan bp;
    texla_result r = bplan_make(ctx, fn, m, b, &bp);
    if (r) return r;
    long long stored = bsr_stored(&bp, fv->bell);
    int nsl = (bp.nbr + BSLICE - 1) / BSLICE;
    r = limit_check(ctx, fn, "the BSR form", (double)stored * b * b * 4 * k,
                    (double)stored * b * b * k);
    if (!r && (p->in.gx / 2 > 32768 || p->in.gy / 2 > 32768))
        r = texla__fail(ctx, TEXLA_ERR_LIMIT, "%s: x's texture is %d x %d texels; the packed "
                        "columns address at most 32768 x 32768", fn, p->in.gx / 2, p->in.gy / 2);
    if (r) return free(bp.bptr), r;
    /* bell 2: the block rows' counts, then each slice's first stored block (nsl + 1) */
    size_t nptr = (size_t)bp.nbr + 1 + (fv->bell == 2 ? (size_t)nsl + 1 : 0);
    uint32_t *ptr = malloc(sizeof *ptr * nptr);
    uint32_t *col = malloc(sizeof *col * one(stored));
    float *val = calloc(one(stored) * (size_t)(b * b * k), sizeof *val);
    int *pos = malloc(sizeof *pos * one(bp.nbc)), *stampJ = malloc(sizeof *stampJ * one(bp.nbc));
    int *list = malloc(sizeof *list * one(bp.width));
    if (!ptr || !col || !val || !pos || !stampJ || !list) {
        r = oom(ctx, fn, "the BSR form", (double)stored * (4 + 4 * b * b));
        goto done;
    }
    for (int J = 0; J < bp.nbc; J++) stampJ[J] = -1;
    for (long long d = 0; d < stored; d++) col[d] = 0;
    if (fv->bell == 2) {
        uint32_t *sb = ptr + bp.nbr + 1;
        sb[0] = 0;
        for (int s = 0; s < nsl; s++) {
            int w = 0;
            for (int I = s * BSLICE; I < (s + 1) * BSLICE && I < bp.nbr; I++)
                if (bp.bptr[I + 1] - bp.bptr[I] > w) w = bp.bptr[I + 1] - bp.bptr[I];
            sb[s + 1] = sb[s] + (uint32_t)(w * BSLICE);
        }
    }
    /* block q of block row I is stored at */
#define BAT(I, q) (fv->bell == 2 ? (long long)ptr[bp.nbr + 1 + (I) / BSLICE] + (long long)(q) * BSLICE + (I) % BSLICE \
                   : fv->bell ? (long long)(q) * bp.nbr + (I) : (long long)bp.bptr[I] + (q))
    for (int I = 0; I < bp.nbr; I++) {
        /* the distinct block columns of block row I, in increasing order */
        int cnt = block_list(m, b, I, 0, bp.nbc, I, stampJ, list);
        for (int q = 0; q < cnt; q++) pos[list[q]] = q;
        ptr[I] = fv->bell ? (uint32_t)cnt : (uint32_t)bp.bptr[I];
        for (int q = 0; q < cnt; q++) col[BAT(I, q)] = sp_loc(&p->in, (long long)list[q] * b * k);
        for (int i = I * b; i < (I + 1) * b && i < m->rows; i++)
            for (int e = m->ptr[i]; e < m->ptr[i + 1]; e++) {
                int J = m->col[e] / b, q = pos[J], rr = i - I * b, cc = m->col[e] - J * b;
                long long d = BAT(I, q);
                size_t qq = (size_t)(rr * b + cc);
                for (int c = 0; c < k; c++) {
                    size_t at = fv->soa ? (qq * (size_t)k + (size_t)c) * (size_t)stored + (size_t)d
                                        : ((size_t)d * b * b + qq) * (size_t)k + (size_t)c;
                    val[at] = m->val[(size_t)e * k + c];
                }
            }
    }
#undef BAT
    ptr[bp.nbr] = fv->bell ? 0 : (uint32_t)bp.nb;
    f->k = k;
    f->nbr = bp.nbr;
    f->ne = stored;
    r = upload(ctx, f, 0, ptr, sizeof *ptr * nptr);
    if (!r) r = upload(ctx, f, 1, col, sizeof *col * (size_t)stored);
    if (!r) r = upload(ctx, f, 2, val, sizeof *val * (size_t)stored * (size_t)(b * b * k));
    if (!r) r = upload(ctx, f, 5, NULL, 16);
    f->padding = m->nnz ? ((double)stored * b * b - (double)m->nnz) / (double)m->nnz : 0;
done:
    free(ptr), free(col), free(val), free(pos), free(stampJ), free(list), free(bp.bptr);
    return r;
}

texla_result sp_form_make(texla_ctx *ctx, const char *fn, const sp_plane *p,
                          const texla_sparse_variant *fv, sp_form *f) {
    memset(f, 0, sizeof *f);
    f->fv = *fv;
    texla_result r;
    if (fv->format == TEXLA_SPARSE_BSR) r = make_bsr(ctx, fn, p, fv, f);
    else r = make_rows(ctx, fn, p, fv, f);
    if (r) sp_form_free(ctx, f);
    return r;
}

void sp_form_free(texla_ctx *ctx, sp_form *f) {
    for (int i = 0; i < SP_NBUF; i++) texla__buf_free(&ctx->gl, &f->buf[i]);
    texla__points_free(&ctx->gl, &f->vao, &f->vbo);
    for (int i = 0; i < 2; i++) texla__tex_free(&ctx->gl, &f->tex[i]);
    f->bytes = 0;
}

/* ---- the natural CSR (fused solver kernels) ---- */

texla_result sp_nat_make(texla_ctx *ctx, const char *fn, const sp_csr *m, const texla__layout *cl,
                         sp_nat *out) {
    memset(out, 0, sizeof *out);
    size_t nnz = (size_t)m->nnz, cols = (size_t)m->cols;
    /* each column's texel and channel in x's layout: from a table of the columns where there
     * are fewer columns than entries (no division an entry), in the context's host scratch */
    int table = cols < nnz;
    uint32_t *packed = texla__hscratch(ctx, sizeof *packed * (one((long long)nnz) +
                                                              (table ? cols : 0)));
    if (!packed) return oom(ctx, fn, "the packed columns", (double)nnz * 4);
    if (table) {
        uint32_t *loc = packed + nnz;
        long long cx = 0, cy = 0;
        for (size_t c = 0; c < cols; c++) {
            loc[c] = (uint32_t)(cx >> 1) | (uint32_t)(cy >> 1) << 15 |
                     (uint32_t)((cx & 1) + 2 * (cy & 1)) << 30;
            if (++cx == cl->nx) cx = 0, cy++;
        }
        for (size_t e = 0; e < nnz; e++) packed[e] = loc[m->col[e]];
    } else {
        for (size_t e = 0; e < nnz; e++) packed[e] = sp_loc(cl, m->col[e]);
    }
    texla__gl *g = &ctx->gl;
    texla_result r = texla__buf_make(g, sizeof(int) * ((size_t)m->rows + 1), m->ptr, &out->buf[0]);
    if (!r) r = texla__buf_make(g, sizeof *packed * nnz, packed, &out->buf[1]);
    if (!r) r = texla__buf_make(g, sizeof(float) * nnz, m->val, &out->buf[2]);
    if (r) {
        sp_nat_free(ctx, out);
        return r;
    }
    out->rows = m->rows, out->cols = m->cols, out->nnz = m->nnz, out->made = 1;
    return TEXLA_OK;
}

void sp_nat_free(texla_ctx *ctx, sp_nat *n) {
    for (int i = 0; i < 4; i++) texla__buf_free(&ctx->gl, &n->buf[i]);
    memset(n, 0, sizeof *n);
}
