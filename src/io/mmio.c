/* mmio.c - Matrix Market reader and writer. Host code only (no GL): layer 5, I/O.
 *
 * Reading is strict: every malformed input is TEXLA_ERR_FORMAT with "PATH:LINE: problem",
 * and nothing is returned (*out is zeroed, everything freed). Nothing is allocated from the
 * counts a file announces: storage grows with the entries actually read, so a size line that
 * promises billions of entries costs nothing until they appear. Numbers are parsed in the C
 * locale's syntax whatever the host's LC_NUMERIC says, and written the same way.
 *
 * Writing is atomic (base/afile.c): a temporary file beside the file written (PATH, or where
 * its symbolic links lead; a FIFO, socket, device or directory there is refused), every write
 * checked, fflush + fsync, then rename() over it; on any failure the temporary file is removed
 * and what was there is left untouched. */
#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A banner or data line longer than this is rejected as soon as it gets there, without reading
 * on (the format itself limits lines to 1024 characters); comment lines may be of any length,
 * they are skipped without storing. A NUL byte ends the reading at once (not a text file). */
#define MM_MAX_LINE (1 << 20)

/* Reports through the context when there is one, else through texla_error_message(NULL). */
static texla_result fail(texla_ctx *ctx, texla_result code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static texla_result fail(texla_ctx *ctx, texla_result code, const char *fmt, ...) {
    char msg[TEXLA__MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return texla__iofail(ctx, code, "%s", msg);
}

/* ---- reading lines ---- */

typedef struct reader {
    texla_ctx *ctx;
    FILE *f;
    const char *path;
    unsigned char buf[1 << 16];
    size_t pos, len;
    int at_end;         /* EOF or a read error seen */
    int read_errno;     /* errno of a read error, 0: none */
    long long line;     /* number of the current line (1-based) */
    int ended_nl;       /* the last line read ended with '\n' */
    char *ln;           /* the current line, NUL-terminated (not stored for comments) */
    size_t lncap, lnlen;
    int comment, blank, too_long, has_nul;
    texla__cnum num;    /* the "C" numeric locale the values are read in (made once a file) */
} reader;

static int next_byte(reader *r) {
    if (r->pos == r->len) {
        if (r->at_end) return EOF;
        errno = 0;
        r->len = fread(r->buf, 1, sizeof r->buf, r->f);
        r->pos = 0;
        if (r->len == 0) {
            r->at_end = 1;
            if (ferror(r->f)) r->read_errno = errno ? errno : EIO;
            return EOF;
        }
    }
    return r->buf[r->pos++];
}

static int is_space(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* Reads the next line. Returns 1 (a line), 0 (end of file) or minus a texla error code (read
 * error, out of memory, a line that cannot be a line of text). A line whose first non-blank
 * character is '%' is a comment (not stored) unless keep_comment is set (the banner). */
static int read_line(reader *r, int keep_comment) {
    r->lnlen = 0;
    r->comment = 0;
    r->blank = 1;
    r->too_long = 0;
    r->has_nul = 0;
    int c = next_byte(r);
    if (c == EOF) {
        if (r->read_errno)
            return -(int)fail(r->ctx, TEXLA_ERR_IO, "%s:%lld: read error: %s", r->path,
                              r->line + 1, strerror(r->read_errno));
        return 0;
    }
    r->line++;
    /* Both errors stop the reading where they are found: the rest of the line may never end
     * (/dev/zero through a pipe, a binary file of gigabytes). */
    for (; c != EOF && c != '\n'; c = next_byte(r)) {
        if (c == '\0') {
            r->has_nul = 1;
            break;
        }
        if (r->blank && !is_space(c)) {
            r->blank = 0;
            if (c == '%' && !keep_comment) r->comment = 1;
        }
        if (r->comment) continue;
        if (r->lnlen >= MM_MAX_LINE) {
            r->too_long = 1;
            break;
        }
        if (r->lnlen + 1 >= r->lncap) {
            size_t cap = r->lncap ? r->lncap * 2 : 256;
            char *p = realloc(r->ln, cap);
            if (!p)
                return -(int)fail(r->ctx, TEXLA_ERR_MEMORY, "%s:%lld: out of memory reading "
                                  "the line", r->path, r->line);
            r->ln = p;
            r->lncap = cap;
        }
        r->ln[r->lnlen++] = (char)c;
    }
    if (c == EOF && r->read_errno)
        return -(int)fail(r->ctx, TEXLA_ERR_IO, "%s:%lld: read error: %s", r->path, r->line,
                          strerror(r->read_errno));
    r->ended_nl = c == '\n';
    if (r->too_long)
        return -(int)fail(r->ctx, TEXLA_ERR_FORMAT, "%s:%lld: line longer than %d characters "
                          "(not a Matrix Market file?)", r->path, r->line, MM_MAX_LINE);
    if (!r->ln) { /* an empty first line: still give callers a string */
        r->ln = malloc(1);
        if (!r->ln) return -(int)fail(r->ctx, TEXLA_ERR_MEMORY, "%s: out of memory", r->path);
        r->lncap = 1;
    }
    r->ln[r->lnlen] = '\0';
    if (r->has_nul) /* the line is where the NUL byte is */
        return -(int)fail(r->ctx, TEXLA_ERR_FORMAT, "%s:%lld: NUL byte in the line (not a "
                          "text file?)", r->path, r->line);
    return 1;
}

/* The line number to name at end of file: the line after the last one when the file ends
 * with a newline (or is empty), else the last line. */
static long long eof_line(const reader *r) {
    return r->line == 0 || r->ended_nl ? r->line + 1 : r->line;
}

/* Splits s in place at blanks: NUL-terminates and stores the first max tokens, returns how
 * many there are in all. */
static int split(char *s, char **tok, int max) {
    int n = 0;
    while (*s) {
        while (is_space((unsigned char)*s)) s++;
        if (!*s) break;
        char *start = s;
        while (*s && !is_space((unsigned char)*s)) s++;
        if (n < max) {
            tok[n] = start;
            if (*s) *s++ = '\0';
        }
        n++;
    }
    return n;
}

/* ---- numbers ---- */

static int is_digit(int c) { return c >= '0' && c <= '9'; }

/* [+-]?digits: 1 with *v the value (saturated at +-LLONG_MAX), 0: not an integer. */
static int parse_int(const char *s, long long *v) {
    int neg = *s == '-';
    if (*s == '+' || *s == '-') s++;
    if (!is_digit((unsigned char)*s)) return 0;
    long long x = 0;
    for (; is_digit((unsigned char)*s); s++) {
        int d = *s - '0';
        x = x > (LLONG_MAX - d) / 10 ? LLONG_MAX : x * 10 + d;
    }
    if (*s) return 0;
    *v = neg ? -x : x;
    return 1;
}

/* The decimal syntax of the format: [+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?
 * (no hex, no inf/nan). integer_only: [+-]?digits. */
static int decimal_syntax(const char *s, int integer_only) {
    int digits = 0;
    if (*s == '+' || *s == '-') s++;
    for (; is_digit((unsigned char)*s); s++) digits++;
    if (integer_only) return digits > 0 && !*s;
    if (*s == '.')
        for (s++; is_digit((unsigned char)*s); s++) digits++;
    if (!digits) return 0;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-') s++;
        if (!is_digit((unsigned char)*s)) return 0;
        while (is_digit((unsigned char)*s)) s++;
    }
    return !*s;
}

static int ieq(const char *a, const char *b) {
    for (; *a && *b; a++, b++) {
        int x = (unsigned char)*a, y = (unsigned char)*b;
        if (x >= 'A' && x <= 'Z') x += 'a' - 'A';
        if (y >= 'A' && y <= 'Z') y += 'a' - 'A';
        if (x != y) return 0;
    }
    return *a == *b;
}

/* Converts text of the checked syntax to the nearest float (strtof: correctly rounded, so
 * %.9g output reads back bit-exactly), in the reader's "C" numeric locale, whatever
 * LC_NUMERIC the application set. Returns 0, or ENOMEM (that locale could not be made). */
static int to_float(const reader *r, const char *s, float *out) {
    if (!r->num.c) return ENOMEM;
    *out = texla__strtof_in(&r->num, s, NULL);
    return 0;
}

/* ---- the banner ---- */

typedef enum mm_field { F_REAL, F_INTEGER, F_PATTERN, F_COMPLEX } mm_field;
typedef enum mm_sym { S_GENERAL, S_SYMMETRIC, S_SKEW, S_HERMITIAN } mm_sym;

static const char banner_usage[] =
    "expected '%%MatrixMarket matrix coordinate|array real|integer|pattern "
    "general|symmetric|skew-symmetric'";

/* complex: 1 when the caller takes complex files (texla_mm_read_complex) */
static texla_result read_banner(reader *r, int complex, int *coordinate, mm_field *field,
                                mm_sym *sym) {
    int got = read_line(r, 1);
    if (got == 0)
        return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:1: empty file; %s", r->path, banner_usage);
    if (got < 0) return (texla_result)-got;
    if (strncmp(r->ln, "%%", 2) != 0 || !(r->ln[2] == 'M' || r->ln[2] == 'm'))
        return fail(r->ctx, TEXLA_ERR_FORMAT,
                    "%s:1: missing banner (a Matrix Market file's first line); %s", r->path,
                    banner_usage);
    char *t[5];
    int n = split(r->ln, t, 5);
    if (n < 1 || !ieq(t[0], "%%MatrixMarket"))
        return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:1: bad banner '%.40s'; %s", r->path,
                    n >= 1 ? t[0] : "", banner_usage);
    if (n != 5)
        return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:1: the banner has %d fields, not 5; %s",
                    r->path, n, banner_usage);
    if (!ieq(t[1], "matrix"))
        return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:1: object '%.40s' is not supported (only "
                    "'matrix')", r->path, t[1]);
    if (ieq(t[2], "coordinate"))
        *coordinate = 1;
    else if (ieq(t[2], "array"))
        *coordinate = 0;
    else
        return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:1: unknown format '%.40s'; expected "
                    "'coordinate' or 'array'", r->path, t[2]);
    if (ieq(t[3], "real"))
        *field = F_REAL;
    else if (ieq(t[3], "integer"))
        *field = F_INTEGER;
    else if (ieq(t[3], "pattern"))
        *field = F_PATTERN;
    else if (ieq(t[3], "complex") && complex)
        *field = F_COMPLEX;
    else if (ieq(t[3], "complex"))
        return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:1: field 'complex' is not supported "
                    "by texla_mm_read (real, integer or pattern; texla_mm_read_complex reads "
                    "complex files)", r->path);
    else
        return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:1: unknown field '%.40s'; expected 'real', "
                    "'integer' or 'pattern'", r->path, t[3]);
    if (ieq(t[4], "general"))
        *sym = S_GENERAL;
    else if (ieq(t[4], "symmetric"))
        *sym = S_SYMMETRIC;
    else if (ieq(t[4], "skew-symmetric"))
        *sym = S_SKEW;
    else if (ieq(t[4], "hermitian") && *field == F_COMPLEX)
        *sym = S_HERMITIAN;
    else if (ieq(t[4], "hermitian"))
        return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:1: symmetry 'hermitian' is not supported "
                    "for field '%.40s' (only for 'complex', read by texla_mm_read_complex)",
                    r->path, t[3]);
    else
        return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:1: unknown symmetry '%.40s'; expected "
                    "'general', 'symmetric' or 'skew-symmetric'", r->path, t[4]);
    if (!*coordinate && *field == F_PATTERN)
        return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:1: 'pattern' is only valid in coordinate "
                    "files, not in array files", r->path);
    if (!*coordinate && *field == F_COMPLEX)
        return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:1: complex array files are not supported "
                    "(texla has no complex dense matrices); coordinate files are", r->path);
    return TEXLA_OK;
}

/* The next line that is neither blank nor a comment: 1, 0 at end of file, or an error. */
static int next_data_line(reader *r) {
    for (;;) {
        int got = read_line(r, 0);
        if (got != 1) return got;
        if (!r->blank && !r->comment) return 1;
    }
}

/* A size on the size line: a non-negative integer that fits an int. */
static texla_result parse_size(reader *r, const char *what, const char *tok, long long *v) {
    if (!parse_int(tok, v))
        return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:%lld: %s '%.40s' is not an integer", r->path,
                    r->line, what, tok);
    if (*v < 0)
        return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:%lld: %s %.40s is negative", r->path, r->line,
                    what, tok);
    if (*v > INT_MAX)
        return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:%lld: %s %.40s is too large (at most %d)",
                    r->path, r->line, what, tok, INT_MAX);
    return TEXLA_OK;
}

/* An entry's value in the field's syntax, as a finite float. */
static texla_result parse_value(reader *r, mm_field field, const char *tok, float *v) {
    if (!decimal_syntax(tok, field == F_INTEGER)) {
        if (ieq(tok, "nan") || ieq(tok, "+nan") || ieq(tok, "-nan") || ieq(tok, "inf") ||
            ieq(tok, "+inf") || ieq(tok, "-inf") || ieq(tok, "infinity") ||
            ieq(tok, "+infinity") || ieq(tok, "-infinity"))
            return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:%lld: value '%s' is not a finite number",
                        r->path, r->line, tok);
        return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:%lld: value '%.40s' is not %s", r->path,
                    r->line, tok, field == F_INTEGER ? "an integer" : "a real number");
    }
    if (to_float(r, tok, v))
        return fail(r->ctx, TEXLA_ERR_MEMORY, "%s:%lld: out of memory", r->path, r->line);
    if (!isfinite(*v))
        return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:%lld: value %.40s is out of float range",
                    r->path, r->line, tok);
    return TEXLA_OK;
}

/* An entry's 1-based index, checked against 1..n, returned 0-based. */
static texla_result parse_index(reader *r, const char *what, const char *tok, int n, int *out) {
    long long v;
    if (!parse_int(tok, &v))
        return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:%lld: %s index '%.40s' is not an integer",
                    r->path, r->line, what, tok);
    if (v < 1 || v > n)
        return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:%lld: %s index %.40s is out of range 1..%d",
                    r->path, r->line, what, tok, n);
    *out = (int)(v - 1);
    return TEXLA_OK;
}

/* ---- reading entries ---- */

static texla_result coo_grow(reader *r, texla_mm *m, int *cap, long long announced) {
    if (*cap == INT_MAX)
        return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:%lld: more than %d entries after expanding "
                    "the symmetry", r->path, r->line, INT_MAX);
    long long want = *cap ? (long long)*cap * 2 : (announced < 4096 ? announced + 2 : 4096);
    if (want > INT_MAX) want = INT_MAX;
    int *row = realloc(m->row, (size_t)want * sizeof *row);
    if (row) m->row = row;
    int *col = row ? realloc(m->col, (size_t)want * sizeof *col) : NULL;
    if (col) m->col = col;
    float *val = col ? realloc(m->val, (size_t)want * sizeof *val) : NULL;
    if (val) m->val = val;
    float *imag = val && m->imag ? realloc(m->imag, (size_t)want * sizeof *imag) : NULL;
    if (imag) m->imag = imag;
    if (!val || (m->imag && !imag))
        return fail(r->ctx, TEXLA_ERR_MEMORY, "%s:%lld: out of memory after %d entries",
                    r->path, r->line, m->nnz);
    *cap = (int)want;
    return TEXLA_OK;
}

static texla_result coo_push(reader *r, texla_mm *m, int *cap, long long announced, int i, int j,
                             float v, float im) {
    if (m->nnz == *cap) {
        texla_result e = coo_grow(r, m, cap, announced);
        if (e) return e;
    }
    m->row[m->nnz] = i;
    m->col[m->nnz] = j;
    m->val[m->nnz] = v;
    if (m->imag) m->imag[m->nnz] = im;
    m->nnz++;
    return TEXLA_OK;
}

static const char *sym_name(mm_sym s) {
    return s == S_GENERAL ? "general" : s == S_SYMMETRIC ? "symmetric"
           : s == S_HERMITIAN ? "hermitian" : "skew-symmetric";
}

static texla_result read_coordinate(reader *r, mm_field field, mm_sym sym, long long announced,
                                    long long size_line, texla_mm *m) {
    int want = field == F_PATTERN ? 2 : field == F_COMPLEX ? 4 : 3, cap = 0;
    for (long long k = 0;; k++) {
        int got = next_data_line(r);
        if (got < 0) return (texla_result)-got;
        if (got == 0) {
            if (k == announced) return TEXLA_OK;
            return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:%lld: end of file after %lld of the %lld "
                        "entries announced on line %lld (truncated file?)", r->path,
                        eof_line(r), k, announced, size_line);
        }
        if (k == announced)
            return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:%lld: extra entry: line %lld announced "
                        "%lld entries", r->path, r->line, size_line, announced);
        char *t[4];
        int n = split(r->ln, t, 4);
        if (n != want)
            return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:%lld: %d field%s; a %s entry has %d (%s)",
                        r->path, r->line, n, n == 1 ? "" : "s",
                        field == F_PATTERN ? "pattern" : field == F_COMPLEX ? "complex" : "coordinate",
                        want, field == F_PATTERN ? "row col" : field == F_COMPLEX
                              ? "row col real imaginary" : "row col value");
        int i, j;
        float v = 1.0f, im = 0.0f;
        texla_result e = parse_index(r, "row", t[0], m->rows, &i);
        if (!e) e = parse_index(r, "column", t[1], m->cols, &j);
        if (!e && field != F_PATTERN) e = parse_value(r, field, t[2], &v);
        if (!e && field == F_COMPLEX) e = parse_value(r, field, t[3], &im);
        if (e) return e;
        if (sym != S_GENERAL && i < j)
            return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:%lld: entry (%d, %d) is above the "
                        "diagonal; a %s file stores only the lower triangle", r->path, r->line,
                        i + 1, j + 1, sym_name(sym));
        if (sym == S_SKEW && i == j)
            return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:%lld: diagonal entry (%d, %d) in a "
                        "skew-symmetric file (its diagonal is zero and not stored)", r->path,
                        r->line, i + 1, j + 1);
        if (sym == S_HERMITIAN && i == j && im != 0.0f)
            return fail(r->ctx, TEXLA_ERR_FORMAT, "%s:%lld: diagonal entry (%d, %d) of a "
                        "hermitian file has imaginary part %g; a Hermitian matrix's diagonal is "
                        "real", r->path, r->line, i + 1, j + 1, (double)im);
        e = coo_push(r, m, &cap, announced, i, j, v, im);
        /* the mirrored entry: the same (symmetric), negated (skew), conjugated (hermitian) */
        if (!e && sym != S_GENERAL && i != j)
            e = coo_push(r, m, &cap, announced, j, i, sym == S_SKEW ? -v : v,
                         sym == S_SKEW ? -im : sym == S_HERMITIAN ? -im : im);
        if (e) return e;
    }
}

/* Array files list their values column by column (only the lower triangle for symmetric,
 * below the diagonal for skew-symmetric); they are collected in that order, growing as they
 * come, and placed into the row-major result once all are read. */
static texla_result read_array(reader *r, mm_field field, mm_sym sym, long long size_line,
                               texla_mm *m) {
    size_t n = (size_t)m->rows, total;
    if (sym == S_GENERAL)
        total = (size_t)m->rows * (size_t)m->cols;
    else if (sym == S_SYMMETRIC)
        total = n * (n + 1) / 2;
    else
        total = n ? n * (n - 1) / 2 : 0;
    float *vals = NULL;
    size_t cap = 0, count = 0;
    texla_result e = TEXLA_OK;
    for (;;) {
        int got = next_data_line(r);
        if (got < 0) {
            e = (texla_result)-got;
            break;
        }
        if (got == 0) {
            if (count != total)
                e = fail(r->ctx, TEXLA_ERR_FORMAT, "%s:%lld: end of file after %zu of the %zu "
                         "values announced on line %lld (truncated file?)", r->path,
                         eof_line(r), count, total, size_line);
            break;
        }
        if (count == total) {
            e = fail(r->ctx, TEXLA_ERR_FORMAT, "%s:%lld: extra value: line %lld announced a "
                     "%d x %d %s array of %zu values", r->path, r->line, size_line, m->rows,
                     m->cols, sym_name(sym), total);
            break;
        }
        char *t[1];
        int nt = split(r->ln, t, 1);
        if (nt != 1) {
            e = fail(r->ctx, TEXLA_ERR_FORMAT, "%s:%lld: %d field%s; an array file has one "
                     "value per line", r->path, r->line, nt, nt == 1 ? "" : "s");
            break;
        }
        if (count == cap) {
            size_t c = cap ? cap * 2 : (total < 4096 ? total : 4096);
            float *p = c <= SIZE_MAX / sizeof *p ? realloc(vals, c * sizeof *p) : NULL;
            if (!p) {
                e = fail(r->ctx, TEXLA_ERR_MEMORY, "%s:%lld: out of memory after %zu values",
                         r->path, r->line, count);
                break;
            }
            vals = p;
            cap = c;
        }
        e = parse_value(r, field, t[0], &vals[count]);
        if (e) break;
        count++;
    }
    if (!e) {
        size_t cells = (size_t)m->rows * (size_t)m->cols;
        m->dense = calloc(cells ? cells : 1, sizeof *m->dense);
        if (!m->dense)
            e = fail(r->ctx, TEXLA_ERR_MEMORY, "%s: out of memory for a %d x %d matrix",
                     r->path, m->rows, m->cols);
    }
    if (!e && total > 0) { /* (0 x 2^31 - 1 has no values: no walk over its columns) */
        size_t k = 0, c = (size_t)m->cols;
        for (size_t j = 0; j < c; j++) {
            size_t i0 = sym == S_GENERAL ? 0 : sym == S_SYMMETRIC ? j : j + 1;
            for (size_t i = i0; i < n; i++) {
                float v = vals[k++];
                m->dense[i * c + j] = v;
                if (sym == S_SYMMETRIC) m->dense[j * c + i] = v;
                if (sym == S_SKEW) m->dense[j * c + i] = -v;
            }
        }
    }
    free(vals);
    return e;
}

/* What can be read as a file: a regular file, or a pipe (a FIFO, process substitution,
 * /dev/stdin on a pipe), whose end is its writer's business. A directory, a socket or a
 * device is refused before it is opened: opening some devices has effects of its own (a tape
 * rewinds, a terminal waits), and one such as /dev/zero or /dev/urandom never ends. The kind is
 * checked again on the open stream, in case PATH changed in between. */
static const char *unreadable_kind(mode_t m) {
    if (S_ISREG(m) || S_ISFIFO(m)) return NULL;
    return S_ISDIR(m)    ? "a directory"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

static texla_result open_input(texla_ctx *ctx, const char *path, FILE **out) {
    struct stat st;
    const char *kind = stat(path, &st) == 0 ? unreadable_kind(st.st_mode) : NULL;
    *out = NULL;
    if (!kind) {
        errno = 0;
        FILE *f = fopen(path, "rb");
        if (!f) {
            int err = errno;
            return fail(ctx, TEXLA_ERR_IO, "%s: cannot open for reading: %s", path,
                        strerror(err));
        }
        kind = fstat(fileno(f), &st) == 0 ? unreadable_kind(st.st_mode) : NULL;
        if (!kind) {
            *out = f;
            return TEXLA_OK;
        }
        fclose(f);
    }
    return fail(ctx, TEXLA_ERR_IO, "%s: is %s; Matrix Market files are read from regular files "
                "or pipes", path, kind);
}

static texla_result mm_read(texla_ctx *ctx, const char *fn, const char *path, int complex,
                            texla_mm *out) {
    if (out) memset(out, 0, sizeof *out);
    if (!path || !out)
        return fail(ctx, TEXLA_ERR_ARGUMENT, "%s: %s is NULL", fn, path ? "out" : "path");
    reader *r = calloc(1, sizeof *r);
    if (!r) return fail(ctx, TEXLA_ERR_MEMORY, "%s: %s: out of memory", fn, path);
    r->ctx = ctx;
    r->path = path;
    texla_result oe = open_input(ctx, path, &r->f);
    if (oe) {
        free(r);
        return oe;
    }
    texla__cnum_open(&r->num); /* where it cannot be made, the first value says so */
    texla_mm m = {0};
    int coordinate = 0;
    mm_field field = F_REAL;
    mm_sym sym = S_GENERAL;
    texla_result e = read_banner(r, complex, &coordinate, &field, &sym);
    if (!e) {
        int got = next_data_line(r);
        if (got == 0)
            e = fail(ctx, TEXLA_ERR_FORMAT, "%s:%lld: end of file before the size line (%s)",
                     path, eof_line(r), coordinate ? "rows cols entries" : "rows cols");
        else if (got < 0)
            e = (texla_result)-got;
    }
    long long rows = 0, cols = 0, nnz = 0, size_line = r->line;
    if (!e) {
        char *t[3];
        int n = split(r->ln, t, 3), want = coordinate ? 3 : 2;
        if (n != want)
            e = fail(ctx, TEXLA_ERR_FORMAT, "%s:%lld: the size line has %d field%s; %s", path,
                     r->line, n, n == 1 ? "" : "s",
                     coordinate ? "a coordinate file's has 3 (rows cols entries)"
                                : "an array file's has 2 (rows cols)");
        if (!e) e = parse_size(r, "rows", t[0], &rows);
        if (!e) e = parse_size(r, "columns", t[1], &cols);
        if (!e && coordinate) e = parse_size(r, "entries", t[2], &nnz);
        if (!e && sym != S_GENERAL && rows != cols)
            e = fail(ctx, TEXLA_ERR_FORMAT, "%s:%lld: a %s matrix must be square, not %lld x "
                     "%lld", path, r->line, sym_name(sym), rows, cols);
        if (!e && !coordinate && (size_t)rows * (size_t)cols > SIZE_MAX / 2 / sizeof(float))
            e = fail(ctx, TEXLA_ERR_FORMAT, "%s:%lld: a %lld x %lld array is too large", path,
                     r->line, rows, cols);
    }
    if (!e) {
        m.rows = (int)rows;
        m.cols = (int)cols;
        m.coordinate = coordinate;
        if (field == F_COMPLEX && !(m.imag = malloc(sizeof *m.imag)))
            e = fail(ctx, TEXLA_ERR_MEMORY, "%s: out of memory", path);
        if (!e)
            e = coordinate ? read_coordinate(r, field, sym, nnz, size_line, &m)
                           : read_array(r, field, sym, size_line, &m);
    }
    /* a coordinate file with no entries still gets (empty) arrays, so success is never NULL */
    if (!e && coordinate && !m.row) {
        m.row = malloc(sizeof *m.row);
        m.col = malloc(sizeof *m.col);
        m.val = malloc(sizeof *m.val);
        if (!m.row || !m.col || !m.val)
            e = fail(ctx, TEXLA_ERR_MEMORY, "%s: out of memory", path);
    }
    fclose(r->f);
    texla__cnum_close(&r->num);
    free(r->ln);
    free(r);
    if (e) {
        texla_mm_free(&m);
        return e;
    }
    *out = m;
    return TEXLA_OK;
}

texla_result texla_mm_read(texla_ctx *ctx, const char *path, texla_mm *out) {
    return mm_read(ctx, "texla_mm_read", path, 0, out);
}

texla_result texla_mm_read_complex(texla_ctx *ctx, const char *path, texla_mm *out) {
    return mm_read(ctx, "texla_mm_read_complex", path, 1, out);
}

void texla_mm_free(texla_mm *m) {
    if (!m) return;
    free(m->imag);
    free(m->row);
    free(m->col);
    free(m->val);
    free(m->dense);
    memset(m, 0, sizeof *m);
}

/* ---- writing ---- */

typedef struct writer {
    texla_ctx *ctx;
    const char *fn, *path;
    texla__afile af; /* the temporary file and its commit */
    FILE *f;         /* af.f */
    int err;      /* first errno seen, 0: none */
    texla__cnum num; /* the "C" numeric locale the values are written in */
} writer;

static texla_result w_open(writer *w) {
    if (texla__cnum_open(&w->num)) /* before the file: PATH as it was */
        return fail(w->ctx, TEXLA_ERR_MEMORY, "%s: %s: out of memory", w->fn, w->path);
    texla_result r = texla__afile_open(w->ctx ? &w->ctx->err : NULL, w->fn, w->path, &w->af);
    w->f = w->af.f;
    if (r) texla__cnum_close(&w->num);
    return r;
}

static void w_check(writer *w, int rc) {
    if (rc < 0 && !w->err) w->err = errno ? errno : EIO;
}

/* A float in %.9g (enough digits to read back bit-exactly), always with '.' as the point. */
static void w_float(writer *w, float v, const char *end) {
    char b[64];
    texla__snprintf_in(&w->num, b, sizeof b, "%.9g", (double)v);
    if (!w->err) w_check(w, fputs(b, w->f));
    if (!w->err) w_check(w, fputs(end, w->f));
}

/* Commits the file atomically; an earlier failed write makes it fail and leave PATH as it was. */
static texla_result w_close(writer *w) {
    texla_result r = texla__afile_commit(w->ctx ? &w->ctx->err : NULL, w->fn, &w->af, w->err, w->err ? "write" : NULL);
    texla__cnum_close(&w->num);
    w->f = NULL;
    return r;
}

static texla_result check_path(texla_ctx *ctx, const char *fn, const char *path) {
    if (!path) return fail(ctx, TEXLA_ERR_ARGUMENT, "%s: path is NULL", fn);
    if (!*path) return fail(ctx, TEXLA_ERR_ARGUMENT, "%s: path is empty", fn);
    return TEXLA_OK;
}

texla_result texla_mm_write_array(texla_ctx *ctx, const char *path, int rows, int cols,
                                  const float *data) {
    const char *fn = "texla_mm_write_array";
    texla_result e = check_path(ctx, fn, path);
    if (e) return e;
    if (rows < 0 || cols < 0)
        return fail(ctx, TEXLA_ERR_ARGUMENT, "%s: %s: shape %d x %d; sizes must be >= 0", fn,
                    path, rows, cols);
    if (!data && rows && cols)
        return fail(ctx, TEXLA_ERR_ARGUMENT, "%s: %s: data is NULL", fn, path);
    size_t c = (size_t)cols;
    for (size_t i = 0; i < (size_t)rows; i++)
        for (size_t j = 0; j < c; j++)
            if (!isfinite(data[i * c + j]))
                return fail(ctx, TEXLA_ERR_ARGUMENT, "%s: %s: data[%zu] (row %zu, column %zu) "
                            "is %g; Matrix Market values must be finite", fn, path, i * c + j,
                            i, j, (double)data[i * c + j]);
    writer w = {.ctx = ctx, .fn = fn, .path = path};
    e = w_open(&w);
    if (e) return e;
    w_check(&w, fprintf(w.f, "%%%%MatrixMarket matrix array real general\n%d %d\n", rows, cols));
    for (size_t j = 0; j < c && !w.err; j++)
        for (size_t i = 0; i < (size_t)rows && !w.err; i++) w_float(&w, data[i * c + j], "\n");
    return w_close(&w);
}

texla_result texla_mm_write_coord(texla_ctx *ctx, const char *path, int rows, int cols, int nnz,
                                  const int *row, const int *col, const float *val) {
    const char *fn = "texla_mm_write_coord";
    texla_result e = check_path(ctx, fn, path);
    if (e) return e;
    if (rows < 0 || cols < 0 || nnz < 0)
        return fail(ctx, TEXLA_ERR_ARGUMENT, "%s: %s: shape %d x %d with %d entries; all must "
                    "be >= 0", fn, path, rows, cols, nnz);
    if (nnz && (!row || !col || !val))
        return fail(ctx, TEXLA_ERR_ARGUMENT, "%s: %s: %s is NULL", fn, path,
                    !row ? "row" : !col ? "col" : "val");
    for (int k = 0; k < nnz; k++) {
        if (row[k] < 0 || row[k] >= rows || col[k] < 0 || col[k] >= cols)
            return fail(ctx, TEXLA_ERR_ARGUMENT, "%s: %s: entry %d at (%d, %d) is outside the "
                        "%d x %d matrix (indices are 0-based)", fn, path, k, row[k], col[k],
                        rows, cols);
        if (!isfinite(val[k]))
            return fail(ctx, TEXLA_ERR_ARGUMENT, "%s: %s: entry %d at (%d, %d) is %g; Matrix "
                        "Market values must be finite", fn, path, k, row[k], col[k],
                        (double)val[k]);
    }
    writer w = {.ctx = ctx, .fn = fn, .path = path};
    e = w_open(&w);
    if (e) return e;
    w_check(&w, fprintf(w.f, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", rows,
                        cols, nnz));
    for (int k = 0; k < nnz && !w.err; k++) {
        w_check(&w, fprintf(w.f, "%d %d ", row[k] + 1, col[k] + 1));
        w_float(&w, val[k], "\n");
    }
    return w_close(&w);
}
