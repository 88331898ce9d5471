/* test_mm.c - the Matrix Market reader and writer, host side only (a GL context is made once,
 * to see the message reach texla_error_message(ctx) and the error callback).
 *
 * Reading: hand-written files for every supported combination (coordinate real / integer /
 * pattern x general / symmetric / skew-symmetric; array real general / symmetric /
 * skew-symmetric and integer) compared entry by entry with what they mean, with the format's
 * variations (case, comments, blank lines, CRLF, tabs, no final newline, number spellings).
 * Every malformed input is rejected with TEXLA_ERR_FORMAT, a message that starts with
 * "PATH:LINE: " naming the offending line and says what is wrong, and a zeroed result.
 *
 * Writing: exact file text, bit-exact round trips (random, tiny, denormal, huge, -0), argument
 * errors that leave an existing file intact, atomicity: a missing folder, a path that is a
 * folder, and writes that fail part-way (RLIMIT_FSIZE in a child process) all leave the old
 * file as it was and no temporary file behind. All files live in a mkdtemp folder under /tmp
 * that is removed at the end. */
#include "suites.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[64];

/* DIR/name in one of a few rotating buffers */
static const char *at(const char *name) { return check_path(dir, name); }

static const char *put_n(const char *name, const char *text, size_t n) {
    const char *p = at(name);
    FILE *f = fopen(p, "wb");
    CHECK(f != NULL, "cannot create %s: %s", p, strerror(errno));
    if (f) {
        CHECK(fwrite(text, 1, n, f) == n, "short write to %s", p);
        fclose(f);
    }
    return p;
}

static const char *put(const char *name, const char *text) {
    return put_n(name, text, strlen(text));
}

/* the whole file, NUL-terminated; NULL when it cannot be read */
static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *s = malloc(cap);
    for (size_t got; s && (got = fread(s + n, 1, cap - n - 1, f)) > 0;) {
        n += got;
        if (n + 1 == cap) {
            char *t = realloc(s, cap *= 2);
            if (!t) free(s);
            s = t;
        }
    }
    fclose(f);
    if (s) s[n] = '\0';
    if (len) *len = n;
    return s;
}

static int exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* files in dir whose name contains ".tmp" (left-over temporaries) */
static int temporaries(void) { return check_count_tmp(dir); }

static int is_zero(const texla_mm *m) {
    texla_mm z;
    memset(&z, 0, sizeof z);
    return !memcmp(m, &z, sizeof z);
}

static void garbage(texla_mm *m) { memset(m, 0x5a, sizeof *m); }

/* ---- reading: what must be rejected ---- */

/* last_msg(), never NULL */
static const char *last_msg(void) {
    const char *m = texla_error_message(NULL);
    return m ? m : "(null)";
}

/* Reads text as DIR/name: TEXLA_ERR_FORMAT, the message starts with "PATH:LINE: " and
 * contains what, and *out is zeroed. */
static void bad_n(const char *name, const char *text, size_t n, int line, const char *what) {
    const char *p = put_n(name, text, n);
    texla_mm m;
    garbage(&m);
    texla_result r = texla_mm_read(NULL, p, &m);
    char msg[4096], want[600];
    snprintf(msg, sizeof msg, "%s", last_msg());
    snprintf(want, sizeof want, "%s:%d: ", p, line);
    CHECK(r == TEXLA_ERR_FORMAT, "%s: got %s (%s)", name, texla_result_name(r), msg);
    CHECK(!strncmp(msg, want, strlen(want)), "%s: message '%s' does not start with '%s'", name,
          msg, want);
    CHECK(!what || strstr(msg, what), "%s: message '%s' does not say '%s'", name, msg,
          what ? what : "");
    CHECK(is_zero(&m), "%s: *out not zeroed on failure", name);
    if (r == TEXLA_OK) texla_mm_free(&m);
}

static void bad(const char *name, const char *text, int line, const char *what) {
    bad_n(name, text, strlen(text), line, what);
}

#define CRG "%%MatrixMarket matrix coordinate real general\n"
#define CRS "%%MatrixMarket matrix coordinate real symmetric\n"
#define CRK "%%MatrixMarket matrix coordinate real skew-symmetric\n"
#define CIG "%%MatrixMarket matrix coordinate integer general\n"
#define CPG "%%MatrixMarket matrix coordinate pattern general\n"
#define CPS "%%MatrixMarket matrix coordinate pattern symmetric\n"
#define ARG "%%MatrixMarket matrix array real general\n"
#define ARS "%%MatrixMarket matrix array real symmetric\n"
#define AIG "%%MatrixMarket matrix array integer general\n"

static void test_banner(void) {
    bad("empty.mtx", "", 1, "empty file");
    bad("blank1.mtx", "\n" CRG "1 1 0\n", 1, "missing banner");
    bad("nobanner.mtx", "3 3 1\n1 1 1\n", 1, "missing banner");
    bad("comment_first.mtx", "% made by hand\n" CRG "1 1 0\n", 1, "missing banner");
    bad("misspelt.mtx", "%%MatrixMarkt matrix coordinate real general\n1 1 0\n", 1, "bad banner");
    bad("four.mtx", "%%MatrixMarket matrix coordinate real\n1 1 0\n", 1, "4 fields");
    bad("six.mtx", "%%MatrixMarket matrix coordinate real general x\n1 1 0\n", 1, "6 fields");
    bad("vector.mtx", "%%MatrixMarket vector coordinate real general\n1 1 0\n", 1,
        "not supported");
    bad("format.mtx", "%%MatrixMarket matrix coordinates real general\n1 1 0\n", 1,
        "unknown format");
    bad("complex.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1,
        "not supported");
    bad("hermitian.mtx", "%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", 1,
        "not supported");
    bad("field.mtx", "%%MatrixMarket matrix coordinate double general\n1 1 0\n", 1,
        "unknown field");
    bad("sym.mtx", "%%MatrixMarket matrix coordinate real symmetrical\n1 1 0\n", 1,
        "unknown symmetry");
    bad("arraypat.mtx", "%%MatrixMarket matrix array pattern general\n1 1\n", 1, "pattern");
}

static void test_size_line(void) {
    bad("nosize.mtx", CRG "% only a comment\n", 3, "before the size line");
    bad("nosize_nonl.mtx", CRG "% only a comment", 2, "before the size line");
    bad("nosize_blank.mtx", CRG "\n\n  \n", 5, "before the size line");
    bad("size2.mtx", CRG "3 3\n", 2, "2 fields");
    bad("size4.mtx", CRG "3 3 1 1\n1 1 1\n", 2, "4 fields");
    bad("asize3.mtx", ARG "3 3 9\n", 2, "3 fields");
    bad("negrows.mtx", CRG "-3 3 1\n1 1 1\n", 2, "negative");
    bad("negcols.mtx", CRG "3 -3 1\n1 1 1\n", 2, "negative");
    bad("negnnz.mtx", CRG "3 3 -1\n", 2, "negative");
    bad("anegrows.mtx", ARG "% c\n-2 2\n", 3, "negative");
    bad("xsize.mtx", CRG "3 x 1\n1 1 1\n", 2, "not an integer");
    bad("fsize.mtx", CRG "3.0 3 1\n1 1 1\n", 2, "not an integer");
    bad("esize.mtx", CRG "3 3 1e3\n1 1 1\n", 2, "not an integer");
    bad("hugerows.mtx", CRG "99999999999 3 1\n1 1 1\n", 2, "too large");
    bad("hugennz.mtx", CRG "3 3 99999999999999999999999\n", 2, "too large");
    bad("hugearray.mtx", ARG "2147483647 2147483647\n1\n", 2, "too large");
    bad("nonsquare.mtx", CRS "3 4 1\n1 1 1\n", 2, "square");
    bad("anonsquare.mtx", ARS "3 2\n1\n", 2, "square");

    /* announced counts allocate nothing: these fail at once at end of file */
    clock_t t0 = clock();
    bad("bignnz.mtx", CRG "2 2 2000000000\n1 1 1\n", 4, "end of file after 1 of the 2000000000");
    bad("bigarray.mtx", ARG "100000 100000\n1\n", 4, "end of file after 1 of the 10000000000");
    bad("bigsym.mtx", CRS "2000000000 2000000000 2000000000\n1 1 1\n", 4, "end of file");
    double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK(s < 0.5, "reading files with huge announced counts took %.3f s", s);
}

static void test_counts(void) {
    const char *four = CRG "3 3 4\n1 1 1\n2 2 1\n3 3 1\n";
    bad("trunc.mtx", four, 6, "end of file after 3 of the 4 entries");
    bad("trunc_nonl.mtx", CRG "3 3 4\n1 1 1\n2 2 1\n3 3 1", 5, "end of file after 3 of the 4");
    bad("trunc_tail.mtx", CRG "% c\n3 3 4\n1 1 1\n\n2 2 1\n3 3 1\n% end\n\n", 10,
        "end of file after 3 of the 4");
    bad("trunc0.mtx", CRG "3 3 2\n", 3, "end of file after 0 of the 2");
    bad("extra.mtx", CRG "3 3 2\n1 1 1\n2 2 1\n3 3 1\n", 5, "extra entry");
    bad("extra_late.mtx", CRG "3 3 2\n1 1 1\n2 2 1\n\n% more\n3 3 1\n", 7, "extra entry");
    bad("extra0.mtx", CRG "3 3 0\n1 1 1\n", 3, "extra entry");
    bad("atrunc.mtx", ARG "2 2\n1\n2\n3\n", 6, "end of file after 3 of the 4 values");
    bad("aextra.mtx", ARG "2 1\n1\n2\n3\n", 5, "extra value");
    /* symmetric arrays hold the lower triangle only: 6 values for 3 x 3 */
    bad("asym9.mtx", ARS "3 3\n1\n2\n3\n4\n5\n6\n7\n8\n9\n", 9, "extra value");
    bad("askew.mtx",
        "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n4\n", 6, "extra value");
    bad("f2.mtx", CRG "3 3 2\n1 1 1\n2 2\n", 4, "2 fields");
    bad("f4.mtx", CRG "3 3 2\n1 1 1\n2 2 1 1\n", 4, "4 fields");
    bad("fcomment.mtx", CRG "3 3 1\n1 1 1 % trailing comment\n", 3, "6 fields");
    bad("fpat3.mtx", CPG "3 3 2\n1 1\n2 2 1\n", 4, "3 fields");
    bad("fpat1.mtx", CPG "3 3 2\n1 1\n2\n", 4, "1 field;");
    bad("farray2.mtx", ARG "2 1\n1\n2 3\n", 4, "2 fields");
}

static void test_indices(void) {
    bad("row0.mtx", CRG "3 4 2\n1 1 1\n0 1 1\n", 4, "row index 0 is out of range 1..3");
    bad("col0.mtx", CRG "3 4 2\n1 1 1\n1 0 1\n", 4, "column index 0 is out of range 1..4");
    bad("rowbig.mtx", CRG "3 4 2\n1 1 1\n4 1 1\n", 4, "row index 4 is out of range");
    bad("colbig.mtx", CRG "3 4 2\n1 1 1\n1 5 1\n", 4, "column index 5 is out of range");
    bad("rowneg.mtx", CRG "3 4 2\n1 1 1\n-1 1 1\n", 4, "out of range");
    bad("rowhuge.mtx", CRG "3 4 1\n99999999999999999999999999 1 1\n", 3, "out of range");
    bad("rowfloat.mtx", CRG "3 4 1\n1.0 1 1\n", 3, "not an integer");
    bad("rowword.mtx", CRG "3 4 1\none 1 1\n", 3, "not an integer");
    bad("rowx.mtx", CRG "3 4 1\n1x 1 1\n", 3, "not an integer");
    bad("patrow.mtx", CPG "2 2 1\n3 1\n", 3, "out of range");
    bad("empty0.mtx", CRG "0 0 1\n1 1 1\n", 3, "out of range 1..0");
}

static void test_values(void) {
    static const struct { const char *v, *what; } cases[] = {
        {"abc", "not a real number"},   {"1.5x", "not a real number"},
        {"1e", "not a real number"},    {".", "not a real number"},
        {"--1", "not a real number"},   {"+-1", "not a real number"},
        {"0x10", "not a real number"},  {"1,5", "not a real number"},
        {"1.5.2", "not a real number"}, {"e5", "not a real number"},
        {"nan", "not a finite"},        {"NaN", "not a finite"},
        {"-inf", "not a finite"},       {"Infinity", "not a finite"},
        {"1e39", "out of float range"}, {"-1e39", "out of float range"},
        {"3.5e38", "out of float range"}, {"1e99999", "out of float range"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256], name[64];
        snprintf(text, sizeof text, "%s%% c\n3 3 2\n1 1 1\n2 2 %s\n", CRG, cases[i].v);
        snprintf(name, sizeof name, "value%zu.mtx", i);
        bad(name, text, 5, cases[i].what);
        snprintf(text, sizeof text, "%s2 1\n%s\n1\n", ARG, cases[i].v);
        snprintf(name, sizeof name, "avalue%zu.mtx", i);
        bad(name, text, 3, cases[i].what);
    }
    bad("int_frac.mtx", CIG "2 2 1\n1 1 1.5\n", 3, "not an integer");
    bad("int_exp.mtx", CIG "2 2 1\n1 1 1e3\n", 3, "not an integer");
    bad("int_huge.mtx", CIG "2 2 1\n1 1 1000000000000000000000000000000000000000\n", 3,
        "out of float range");
    bad("aint_frac.mtx", AIG "1 1\n2.5\n", 3, "not an integer");
}

static void test_symmetry_rules(void) {
    bad("upper.mtx", CRS "3 3 2\n1 1 1\n1 2 5\n", 4, "entry (1, 2) is above the diagonal");
    bad("upper_pat.mtx", CPS "3 3 1\n2 3\n", 3, "above the diagonal");
    bad("upper_int.mtx", "%%MatrixMarket matrix coordinate integer symmetric\n3 3 1\n1 3 2\n", 3,
        "above the diagonal");
    bad("skew_diag.mtx", CRK "3 3 2\n2 1 1\n2 2 1\n", 4, "diagonal entry (2, 2)");
    bad("skew_diag0.mtx", CRK "3 3 1\n3 3 0\n", 3, "diagonal entry");
    bad("skew_upper.mtx", CRK "3 3 1\n1 2 1\n", 3, "above the diagonal");
}

static void test_lines(void) {
    bad_n("nul.mtx", CRG "2 2 1\n1 1\0 1\n", sizeof(CRG "2 2 1\n1 1\0 1\n") - 1, 3, "NUL");
    /* a data line longer than the reader takes is rejected, never cut */
    size_t n = (size_t)3 << 20;
    char *big = malloc(n + 400);
    if (big) {
        int k = snprintf(big, 200, "%s2 2 1\n1 1", CRG);
        memset(big + k, ' ', n);
        snprintf(big + k + n, 200, "1\n");
        bad("longline.mtx", big, 3, "longer than");
        /* a long comment is fine */
        k = snprintf(big, 200, "%s%%", CRG);
        memset(big + k, 'c', n);
        snprintf(big + k + n, 200, "\n1 1 1\n1 1 2.5\n");
        const char *p = put("longcomment.mtx", big);
        texla_mm m;
        texla_result r = texla_mm_read(NULL, p, &m);
        CHECK(r == TEXLA_OK && m.nnz == 1 && m.val[0] == 2.5f, "long comment: %s (%s)",
              texla_result_name(r), last_msg());
        texla_mm_free(&m);
        free(big);
    }
}

static void test_io_errors(void) {
    const char *p = at("does-not-exist.mtx");
    texla_mm m;
    garbage(&m);
    texla_result r = texla_mm_read(NULL, p, &m);
    const char *msg = last_msg();
    CHECK(r == TEXLA_ERR_IO, "missing file: %s", texla_result_name(r));
    CHECK(strstr(msg, p) && strstr(msg, strerror(ENOENT)), "missing file: message '%s'", msg);
    CHECK(is_zero(&m), "missing file: *out not zeroed");

    garbage(&m);
    r = texla_mm_read(NULL, dir, &m);
    msg = last_msg();
    CHECK(r == TEXLA_ERR_IO, "a folder: %s (%s)", texla_result_name(r), msg);
    CHECK(strstr(msg, dir) != NULL, "a folder: message '%s'", msg);
    CHECK(is_zero(&m), "a folder: *out not zeroed");

    garbage(&m);
    r = texla_mm_read(NULL, NULL, &m);
    CHECK(r == TEXLA_ERR_ARGUMENT && is_zero(&m), "NULL path: %s", texla_result_name(r));
    r = texla_mm_read(NULL, p, NULL);
    CHECK(r == TEXLA_ERR_ARGUMENT, "NULL out: %s", texla_result_name(r));

    texla_mm_free(NULL);
    texla_mm z;
    memset(&z, 0, sizeof z);
    texla_mm_free(&z);
    texla_mm_free(&z);
    CHECK(is_zero(&z), "texla_mm_free of a zeroed struct");
}

/* ---- reading: what must be accepted ---- */

static void ok_dense(const char *name, const char *text, int rows, int cols, const float *want) {
    const char *p = put(name, text);
    texla_mm m;
    garbage(&m);
    texla_result r = texla_mm_read(NULL, p, &m);
    CHECK(r == TEXLA_OK, "%s: %s (%s)", name, texla_result_name(r), last_msg());
    if (r) return;
    CHECK(m.coordinate == 0 && m.rows == rows && m.cols == cols && m.dense && !m.row &&
              !m.col && !m.val && m.nnz == 0,
          "%s: coordinate %d, %d x %d, nnz %d", name, m.coordinate, m.rows, m.cols, m.nnz);
    if (m.rows == rows && m.cols == cols && m.dense)
        for (int i = 0; i < rows * cols; i++)
            CHECK(!memcmp(&m.dense[i], &want[i], sizeof(float)), "%s: dense[%d] (%d, %d) is %.9g, "
                  "want %.9g", name, i, i / cols, i % cols, m.dense[i], want[i]);
    texla_mm_free(&m);
    CHECK(is_zero(&m), "%s: texla_mm_free leaves a zeroed struct", name);
}

/* entries given as {row, col, value} triples, 0-based, in the order expected */
static void ok_coo(const char *name, const char *text, int rows, int cols, int nnz,
                   const float (*want)[3]) {
    const char *p = put(name, text);
    texla_mm m;
    garbage(&m);
    texla_result r = texla_mm_read(NULL, p, &m);
    CHECK(r == TEXLA_OK, "%s: %s (%s)", name, texla_result_name(r), last_msg());
    if (r) return;
    CHECK(m.coordinate == 1 && m.rows == rows && m.cols == cols && m.nnz == nnz && m.row &&
              m.col && m.val && !m.dense,
          "%s: coordinate %d, %d x %d, nnz %d (want %d)", name, m.coordinate, m.rows, m.cols,
          m.nnz, nnz);
    if (m.nnz == nnz)
        for (int k = 0; k < nnz; k++)
            CHECK(m.row[k] == (int)want[k][0] && m.col[k] == (int)want[k][1] &&
                      !memcmp(&m.val[k], &want[k][2], sizeof(float)),
                  "%s: entry %d is (%d, %d, %.9g), want (%g, %g, %.9g)", name, k, m.row[k],
                  m.col[k], m.val[k], want[k][0], want[k][1], want[k][2]);
    texla_mm_free(&m);
}

static void test_coordinate(void) {
    /* general: duplicates kept in file order, a comment, blank lines, number spellings */
    static const float g[][3] = {{0, 0, 1.5f}, {2, 3, -2e-3f}, {1, 2, 0.25f}, {0, 0, 0.5f},
                                 {2, 0, -7.0f}, {1, 1, 200.0f}, {0, 3, 1.0f}};
    ok_coo("real_general.mtx",
           CRG "% a comment\n%\n\n3 4 7\n1 1 1.5\n3 4 -2e-3\n\n2 3 .25\n% between entries\n"
               "1 1 0.5\n3 1 -7\n  2\t2   +2E+2  \n1 4 1.\n\n",
           3, 4, 7, g);
    ok_coo("real_general_case_crlf.mtx",
           "%%matrixmarket MATRIX Coordinate REAL General\r\n% c\r\n3 4 7\r\n1 1 1.5\r\n"
           "3 4 -2e-3\r\n2 3 .25\r\n1 1 0.5\r\n3 1 -7\r\n2 2 +2E+2\r\n1 4 1.",
           3, 4, 7, g);
    /* symmetric: the lower triangle mirrored right after each entry; nnz counts both */
    static const float s[][3] = {{0, 0, 4}, {1, 0, -1}, {0, 1, -1}, {2, 1, 2.5f},
                                 {1, 2, 2.5f}, {2, 2, 1}};
    ok_coo("real_symmetric.mtx", CRS "3 3 4\n1 1 4\n2 1 -1\n3 2 2.5\n3 3 1\n", 3, 3, 6, s);
    static const float k[][3] = {{1, 0, 3}, {0, 1, -3}, {2, 0, -1.5f}, {0, 2, 1.5f}};
    ok_coo("real_skew.mtx", CRK "3 3 2\n2 1 3\n3 1 -1.5\n", 3, 3, 4, k);
    static const float ig[][3] = {{0, 1, -3}, {1, 0, 7}, {1, 1, 0}};
    ok_coo("int_general.mtx", CIG "2 2 3\n1 2 -3\n2 1 +7\n2 2 0\n", 2, 2, 3, ig);
    static const float is[][3] = {{1, 0, 16777216.0f}, {0, 1, 16777216.0f}, {1, 1, -2}};
    ok_coo("int_symmetric.mtx",
           "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n2 1 16777216\n2 2 -2\n",
           2, 2, 3, is);
    static const float ik[][3] = {{2, 1, 5}, {1, 2, -5}};
    ok_coo("int_skew.mtx",
           "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 1\n3 2 5\n", 3, 3, 2,
           ik);
    static const float pg[][3] = {{0, 2, 1}, {1, 0, 1}, {0, 2, 1}};
    ok_coo("pattern_general.mtx", CPG "2 3 3\n1 3\n2 1\n1 3\n", 2, 3, 3, pg);
    static const float ps[][3] = {{0, 0, 1}, {2, 0, 1}, {0, 2, 1}};
    ok_coo("pattern_symmetric.mtx", CPS "3 3 2\n1 1\n3 1\n", 3, 3, 3, ps);
    static const float pk[][3] = {{2, 0, 1}, {0, 2, -1}};
    ok_coo("pattern_skew.mtx",
           "%%MatrixMarket matrix coordinate pattern skew-symmetric\n3 3 1\n3 1\n", 3, 3, 2, pk);
    ok_coo("empty_coo.mtx", CRG "5 6 0\n", 5, 6, 0, NULL);
    ok_coo("zero_size.mtx", CRG "0 0 0\n", 0, 0, 0, NULL);
    /* extremes of float: FLT_MAX spelt by %.9g, the smallest denormal, -0 */
    static const float x[][3] = {{0, 0, FLT_MAX}, {0, 0, -FLT_MAX}, {0, 0, 1.40129846e-45f},
                                 {0, 0, -0.0f}, {0, 0, FLT_MIN}};
    ok_coo("extremes.mtx",
           CRG "1 1 5\n1 1 3.40282347e+38\n1 1 -3.40282347e+38\n1 1 1.40129846e-45\n1 1 -0\n"
               "1 1 1.17549435e-38\n",
           1, 1, 5, x);
}

static void test_array(void) {
    /* column-major in the file, row-major in texla_mm.dense */
    static const float g[] = {1, 3, 5, 2, 4, 6};
    ok_dense("array_general.mtx", ARG "% c\n2 3\n1\n2\n3\n4\n5\n6\n", 2, 3, g);
    ok_dense("array_general_ws.mtx",
             "%%MatrixMarket Matrix Array Real General\r\n\r\n 2 \t3\r\n1.0\r\n 2e0\r\n"
             "\r\n3\r\n+4\r\n5.\r\n6",
             2, 3, g);
    static const float col[] = {-1.5f, 2.25f, 0};
    ok_dense("array_col.mtx", ARG "3 1\n-1.5\n2.25\n0\n", 3, 1, col);
    static const float row[] = {-1.5f, 2.25f, 0};
    ok_dense("array_row.mtx", ARG "1 3\n-1.5\n2.25\n0\n", 1, 3, row);
    /* symmetric: the lower triangle column by column */
    static const float s[] = {1, 2, 3, 2, 4, 5, 3, 5, 6};
    ok_dense("array_symmetric.mtx", ARS "3 3\n1\n2\n3\n4\n5\n6\n", 3, 3, s);
    static const float k[] = {0, -1, -2, 1, 0, -3, 2, 3, 0};
    ok_dense("array_skew.mtx", "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n",
             3, 3, k);
    static const float ig[] = {1, -3, -2, 4};
    ok_dense("array_int.mtx", AIG "2 2\n1\n-2\n-3\n+4\n", 2, 2, ig);
    static const float is[] = {7, -1, -1, 8};
    ok_dense("array_int_sym.mtx", "%%MatrixMarket matrix array integer symmetric\n2 2\n7\n-1\n8\n",
             2, 2, is);
    ok_dense("array_empty.mtx", ARG "0 4\n", 0, 4, NULL);
    /* no values, however many columns: at once (fuzz-mm found 0 x 2147483647 taking seconds in
     * a walk over the empty columns) */
    double t0 = check_now();
    ok_dense("array_empty_wide.mtx", ARG "0 2147483647\n", 0, 2147483647, NULL);
    double dt = check_now() - t0;
    CHECK(dt < 0.5, "a 0 x 2147483647 array read in %.2f s (< 0.5 s)", dt);
    static const float one[] = {42};
    ok_dense("array_1x1.mtx", ARG "1 1\n42\n", 1, 1, one);
}

/* ---- writing ---- */

static void test_write_text(void) {
    const float a[] = {1, 2.5f, -3, 0.1f, 1e-30f, -0.0f}; /* 2 x 3, row-major */
    const char *p = at("w_array.mtx");
    texla_result r = texla_mm_write_array(NULL, p, 2, 3, a);
    CHECK(r == TEXLA_OK, "write_array: %s (%s)", texla_result_name(r), last_msg());
    char *s = slurp(p, NULL);
    const char *want = "%%MatrixMarket matrix array real general\n2 3\n1\n0.100000001\n2.5\n"
                       "1e-30\n-3\n-0\n";
    CHECK(s && !strcmp(s, want), "array text:\n%s\nwant:\n%s", s ? s : "(none)", want);
    free(s);

    const int ri[] = {1, 0}, ci[] = {2, 0};
    const float v[] = {-7.25f, 3};
    p = at("w_coord.mtx");
    r = texla_mm_write_coord(NULL, p, 2, 3, 2, ri, ci, v);
    CHECK(r == TEXLA_OK, "write_coord: %s (%s)", texla_result_name(r), last_msg());
    s = slurp(p, NULL);
    want = "%%MatrixMarket matrix coordinate real general\n2 3 2\n2 3 -7.25\n1 1 3\n";
    CHECK(s && !strcmp(s, want), "coord text:\n%s\nwant:\n%s", s ? s : "(none)", want);
    free(s);
}

/* values that break a lazy formatter: denormals, extremes, -0, many digits */
static float special(int i) {
    static const float v[] = {FLT_MAX, -FLT_MAX, FLT_MIN, -FLT_MIN, 1.40129846e-45f,
                              -1.40129846e-45f, 5.87747175e-39f, -0.0f, 0.0f, 1.0f / 3.0f,
                              0.1f, 16777215.0f, 16777217.0f, 3.14159274f, 1e30f, -1e-30f,
                              123456.789f, 8388608.5f};
    return v[i % (int)(sizeof v / sizeof v[0])];
}

static void test_round_trip(void) {
    static const int shapes[][2] = {{1, 1}, {1, 9}, {9, 1}, {7, 5}, {17, 13}, {0, 0}, {0, 3},
                                    {64, 33}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int rows = shapes[s][0], cols = shapes[s][1], n = rows * cols;
        float *a = malloc(((size_t)n + 1) * sizeof *a);
        if (!a) continue;
        check_fill(a, (size_t)n);
        for (int i = 0; i < n; i += 3) a[i] = special(i / 3) * (i % 2 ? 1.0f : -1.0f);
        for (int i = 1; i < n; i += 7) a[i] = (float)ldexp(check_rand(), (int)(check_rand() * 120));
        const char *p = at("rt_array.mtx");
        texla_result r = texla_mm_write_array(NULL, p, rows, cols, a);
        CHECK(r == TEXLA_OK, "write %d x %d: %s (%s)", rows, cols, texla_result_name(r),
              last_msg());
        texla_mm m;
        r = texla_mm_read(NULL, p, &m);
        CHECK(r == TEXLA_OK && !m.coordinate && m.rows == rows && m.cols == cols,
              "read back %d x %d: %s (%s)", rows, cols, texla_result_name(r),
              last_msg());
        if (!r && m.rows == rows && m.cols == cols) {
            int diff = -1;
            for (int i = 0; i < n && diff < 0; i++)
                if (memcmp(&a[i], &m.dense[i], sizeof(float))) diff = i;
            CHECK(diff < 0, "array %d x %d round trip: element %d wrote %.9g read %.9g", rows,
                  cols, diff, diff >= 0 ? a[diff] : 0, diff >= 0 ? m.dense[diff] : 0);
        }
        texla_mm_free(&m);
        free(a);
    }

    /* coordinate: random entries with duplicates, and an empty one */
    enum { R = 37, C = 23, NNZ = 500 };
    int row[NNZ], col[NNZ];
    float val[NNZ];
    for (int k = 0; k < NNZ; k++) {
        row[k] = (int)((check_rand() + 1) * 0.5 * R) % R;
        col[k] = (int)((check_rand() + 1) * 0.5 * C) % C;
        val[k] = k % 4 == 0 ? special(k / 4)
                            : (float)ldexp(check_rand(), (int)(check_rand() * 100));
    }
    row[1] = row[0]; /* a duplicate */
    col[1] = col[0];
    row[2] = R - 1;
    col[2] = C - 1;
    for (int nnz = 0; nnz <= NNZ; nnz += NNZ) {
        const char *p = at("rt_coord.mtx");
        texla_result r = texla_mm_write_coord(NULL, p, R, C, nnz, row, col, val);
        CHECK(r == TEXLA_OK, "write_coord %d: %s (%s)", nnz, texla_result_name(r),
              last_msg());
        texla_mm m;
        r = texla_mm_read(NULL, p, &m);
        CHECK(r == TEXLA_OK && m.coordinate && m.rows == R && m.cols == C && m.nnz == nnz,
              "coord read back: %s (%s), nnz %d", texla_result_name(r), last_msg(),
              m.nnz);
        if (!r && m.nnz == nnz) {
            int diff = -1;
            for (int k = 0; k < nnz && diff < 0; k++)
                if (m.row[k] != row[k] || m.col[k] != col[k] ||
                    memcmp(&m.val[k], &val[k], sizeof(float)))
                    diff = k;
            CHECK(diff < 0, "coord round trip differs at entry %d", diff);
        }
        texla_mm_free(&m);
    }
}

/* A larger file: how fast reading and writing go (printed, not asserted). */
static void test_speed(void) {
    enum { N = 2000, NNZ = 400000 };
    int *row = malloc(NNZ * sizeof *row), *col = malloc(NNZ * sizeof *col);
    float *val = malloc(NNZ * sizeof *val);
    if (!row || !col || !val) {
        free(row), free(col), free(val);
        return;
    }
    for (int k = 0; k < NNZ; k++) {
        row[k] = k % N;
        col[k] = (int)(((long long)k * 7919) % N);
        val[k] = (float)check_rand();
    }
    const char *p = at("speed.mtx");
    struct timespec t0, t1, t2;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    texla_result r = texla_mm_write_coord(NULL, p, N, N, NNZ, row, col, val);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    texla_mm m;
    texla_result r2 = texla_mm_read(NULL, p, &m);
    clock_gettime(CLOCK_MONOTONIC, &t2);
    CHECK(r == TEXLA_OK && r2 == TEXLA_OK && m.nnz == NNZ &&
              !memcmp(m.val, val, NNZ * sizeof *val) && !memcmp(m.row, row, NNZ * sizeof *row),
          "speed file: %s / %s", texla_result_name(r), texla_result_name(r2));
    printf("mm: %d entries written in %.1f ms, read in %.1f ms\n", NNZ,
           ((double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6),
           ((double)(t2.tv_sec - t1.tv_sec) * 1e3 + (double)(t2.tv_nsec - t1.tv_nsec) * 1e-6));
    texla_mm_free(&m);
    unlink(p);
    free(row), free(col), free(val);
}

/* the old file is byte-for-byte what it was */
static void intact(const char *p, const char *old, const char *what) {
    char *s = slurp(p, NULL);
    CHECK(s && !strcmp(s, old), "%s: the existing file changed", what);
    free(s);
}

static void bad_arg(texla_result r, const char *p, const char *old, const char *what) {
    const char *msg = last_msg();
    CHECK(r == TEXLA_ERR_ARGUMENT, "%s: %s (%s)", what, texla_result_name(r), msg);
    CHECK(*msg != '\0', "%s: empty message", what);
    intact(p, old, what);
}

static void test_write_errors(void) {
    const char *old = "%%MatrixMarket matrix array real general\n1 1\n42\n";
    char p[600];
    snprintf(p, sizeof p, "%s", put("keep.mtx", old));
    const float a[] = {1, 2, 3, 4};
    const float nan_a[] = {1, 2, NAN, 4}, inf_a[] = {1, INFINITY, 3, 4};
    const int ri[] = {0, 1}, ci[] = {1, 1}, bad_r[] = {0, 2}, bad_c[] = {-1, 0};
    const float v[] = {1, 2}, nan_v[] = {1, NAN};

    bad_arg(texla_mm_write_array(NULL, p, -1, 2, a), p, old, "array rows -1");
    bad_arg(texla_mm_write_array(NULL, p, 2, -1, a), p, old, "array cols -1");
    bad_arg(texla_mm_write_array(NULL, p, 2, 2, NULL), p, old, "array data NULL");
    bad_arg(texla_mm_write_array(NULL, p, 2, 2, nan_a), p, old, "array NaN");
    CHECK(strstr(last_msg(), "row 1, column 0") != NULL, "NaN position: %s",
          last_msg());
    bad_arg(texla_mm_write_array(NULL, p, 2, 2, inf_a), p, old, "array inf");
    bad_arg(texla_mm_write_array(NULL, NULL, 2, 2, a), p, old, "array path NULL");
    bad_arg(texla_mm_write_array(NULL, "", 2, 2, a), p, old, "array path empty");
    bad_arg(texla_mm_write_coord(NULL, p, -2, 2, 2, ri, ci, v), p, old, "coord rows -2");
    bad_arg(texla_mm_write_coord(NULL, p, 2, -2, 2, ri, ci, v), p, old, "coord cols -2");
    bad_arg(texla_mm_write_coord(NULL, p, 2, 2, -1, ri, ci, v), p, old, "coord nnz -1");
    bad_arg(texla_mm_write_coord(NULL, p, 2, 2, 2, NULL, ci, v), p, old, "coord row NULL");
    bad_arg(texla_mm_write_coord(NULL, p, 2, 2, 2, ri, NULL, v), p, old, "coord col NULL");
    bad_arg(texla_mm_write_coord(NULL, p, 2, 2, 2, ri, ci, NULL), p, old, "coord val NULL");
    bad_arg(texla_mm_write_coord(NULL, p, 2, 2, 2, bad_r, ci, v), p, old, "coord row == rows");
    CHECK(strstr(last_msg(), "entry 1 at (2, 1)") != NULL, "bad index: %s",
          last_msg());
    bad_arg(texla_mm_write_coord(NULL, p, 2, 2, 2, ri, bad_c, v), p, old, "coord col -1");
    bad_arg(texla_mm_write_coord(NULL, p, 2, 2, 2, ri, ci, nan_v), p, old, "coord NaN");
    bad_arg(texla_mm_write_coord(NULL, NULL, 2, 2, 2, ri, ci, v), p, old, "coord path NULL");
    CHECK(temporaries() == 0, "temporary files left after argument errors: %d", temporaries());

    /* a folder that does not exist: TEXLA_ERR_IO, nothing created */
    const char *missing = at("no-such-folder/x.mtx");
    texla_result r = texla_mm_write_array(NULL, missing, 2, 2, a);
    const char *msg = last_msg();
    CHECK(r == TEXLA_ERR_IO, "missing folder: %s (%s)", texla_result_name(r), msg);
    CHECK(strstr(msg, missing) && strstr(msg, strerror(ENOENT)), "missing folder: '%s'", msg);
    CHECK(!exists(at("no-such-folder")), "missing folder: something was created");
    r = texla_mm_write_coord(NULL, missing, 2, 2, 2, ri, ci, v);
    CHECK(r == TEXLA_ERR_IO, "missing folder (coord): %s", texla_result_name(r));

    /* PATH is a non-empty folder: the rename fails, the temporary file goes away */
    const char *sub = at("subdir");
    CHECK(mkdir(sub, 0777) == 0, "mkdir %s: %s", sub, strerror(errno));
    char inner[600];
    snprintf(inner, sizeof inner, "%s/inner", sub);
    FILE *f = fopen(inner, "w");
    if (f) fclose(f);
    r = texla_mm_write_array(NULL, sub, 2, 2, a);
    msg = last_msg();
    CHECK(r == TEXLA_ERR_IO && strstr(msg, sub), "PATH a folder: %s (%s)", texla_result_name(r),
          msg);
    CHECK(temporaries() == 0, "PATH a folder: temporary files left: %d", temporaries());
    unlink(inner);
    rmdir(sub);

    /* writes that fail part-way (the file size limit, in a child process): in the buffered
     * writes (64 x 64 values) and only at the final flush (2 x 2 values) */
    static const int sizes[] = {64, 2};
    for (int t = 0; t < 2; t++) {
        int n = sizes[t];
        float *big = calloc((size_t)n * n, sizeof *big);
        if (!big) continue;
        check_fill(big, (size_t)n * n);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            struct rlimit rl;
            getrlimit(RLIMIT_FSIZE, &rl);
            rl.rlim_cur = 40;
            signal(SIGXFSZ, SIG_IGN);
            if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(100);
            texla_result cr = texla_mm_write_array(NULL, p, n, n, big);
            int io = cr == TEXLA_ERR_IO && strstr(last_msg(), strerror(EFBIG));
            _exit(io ? 0 : 1 + (int)cr);
        }
        int status = 0;
        CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork/wait failed");
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "write past RLIMIT_FSIZE (%d x %d): child status %d, want TEXLA_ERR_IO naming "
              "EFBIG", n, n, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        intact(p, old, "write that failed part-way");
        CHECK(temporaries() == 0, "failed write left temporary files: %d", temporaries());
        free(big);
    }

    /* success replaces the file and keeps its permissions; a new file gets 0666 & ~umask */
    chmod(p, 0640);
    r = texla_mm_write_array(NULL, p, 2, 2, a);
    CHECK(r == TEXLA_OK, "overwrite: %s (%s)", texla_result_name(r), last_msg());
    texla_mm m;
    r = texla_mm_read(NULL, p, &m);
    CHECK(r == TEXLA_OK && m.rows == 2 && m.cols == 2 && !memcmp(m.dense, a, sizeof a),
          "overwritten file reads back: %s", texla_result_name(r));
    texla_mm_free(&m);
    struct stat st;
    CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0640, "overwrite changed the mode to %o",
          (unsigned)(st.st_mode & 0777));
    mode_t mask = umask(022);
    umask(mask);
    const char *fresh = at("fresh.mtx");
    r = texla_mm_write_coord(NULL, fresh, 1, 1, 0, NULL, NULL, NULL);
    CHECK(r == TEXLA_OK, "new file: %s (%s)", texla_result_name(r), last_msg());
    CHECK(stat(fresh, &st) == 0 && (st.st_mode & 0777) == (0666 & ~mask),
          "new file mode %o, want %o", (unsigned)(st.st_mode & 0777), (unsigned)(0666 & ~mask));
    CHECK(temporaries() == 0, "temporary files left: %d", temporaries());
}

/* A host application with a comma as decimal point must still read and write '.' */
static void test_locale(void) {
    char keep[128];
    const char *got = check_comma_locale(keep, sizeof keep);
    if (!got) {
        check_skip("mm under a comma locale", "no de_DE or fr_FR locale installed or made");
        return;
    }
    const float a[] = {1.5f, -0.25f, 3e-7f};
    const char *p = at("locale.mtx");
    texla_result r = texla_mm_write_array(NULL, p, 1, 3, a);
    char *s = slurp(p, NULL);
    CHECK(r == TEXLA_OK && s && strstr(s, "1.5\n-0.25\n") && !strchr(s, ','),
          "write under %s: %s", got, s ? s : "(none)");
    free(s);
    texla_mm m;
    r = texla_mm_read(NULL, p, &m);
    CHECK(r == TEXLA_OK && !memcmp(m.dense, a, sizeof a), "read under %s: %s (%s)", got,
          texla_result_name(r), last_msg());
    texla_mm_free(&m);
    bad("comma.mtx", ARG "1 1\n1,5\n", 3, "not a real number");
    check_locale_restore(keep);
}

/* ---- with a context: the message reaches texla_error_message(ctx) and the callback ---- */

static struct {
    int calls;
    texla_result code;
    char msg[512];
} cb;

static void on_error(texla_result code, const char *message, void *user) {
    (void)user;
    cb.calls++;
    cb.code = code;
    snprintf(cb.msg, sizeof cb.msg, "%s", message);
}

static void test_with_ctx(void) {
    texla_ctx_desc desc = {0};
    desc.error_cb = on_error;
    texla_ctx *ctx = suite_ctx(&desc);
    if (!ctx) return;
    const char *p = put("ctx.mtx", CRG "3 3 2\n1 1 1\n4 1 1\n");
    char want[600];
    snprintf(want, sizeof want, "%s:4: ", p);
    cb.calls = 0;
    texla_mm m;
    texla_result r = texla_mm_read(ctx, p, &m);
    const char *msg = texla_error_message(ctx);
    CHECK(r == TEXLA_ERR_FORMAT && !strncmp(msg, want, strlen(want)),
          "with ctx: %s, message '%s'", texla_result_name(r), msg);
    CHECK(cb.calls == 1 && cb.code == TEXLA_ERR_FORMAT && !strcmp(cb.msg, msg),
          "callback: %d calls, code %d, '%s'", cb.calls, (int)cb.code, cb.msg);
    cb.calls = 0;
    r = texla_mm_write_array(ctx, at("nowhere/x.mtx"), 1, 1, (const float[]){1});
    CHECK(r == TEXLA_ERR_IO && cb.calls == 1 && strstr(texla_error_message(ctx), "nowhere"),
          "write with ctx: %s, '%s'", texla_result_name(r), texla_error_message(ctx));
    r = texla_mm_read(ctx, at("array_general.mtx"), &m);
    CHECK(r == TEXLA_OK && m.rows == 2, "read with ctx: %s", texla_result_name(r));
    texla_mm_free(&m);
    texla_ctx_destroy(ctx);
}

void suite_mm(void) {
    if (!check_mkdtemp(dir, sizeof dir, "/tmp/texla-mm-XXXXXX")) return;
    test_banner();
    test_size_line();
    test_counts();
    test_indices();
    test_values();
    test_symmetry_rules();
    test_lines();
    test_io_errors();
    test_coordinate();
    test_array();
    test_write_text();
    test_round_trip();
    test_write_errors();
    test_locale();
    test_speed();
    test_with_ctx();
    CHECK(temporaries() == 0, "temporary files left at the end: %d", temporaries());
    CHECK(check_rmdir_all(dir) == 0, "cannot remove %s: %s", dir, strerror(errno));
}
