/* test_errors.c - exact error codes for bad calls, through the public API only.
 *
 * Every failing call is checked four ways: the returned code; the error callback ran exactly
 * once with that code and with the message texla_error_message() returns; the message is not
 * empty and names the operand or sizes involved; and where the destination is a live matrix,
 * its contents did not change. Errors covered: shape mismatches (every element-wise operand
 * position, the three products, dot), aliasing (destination == each source), handles (0,
 * destroyed, destroyed and slot reused, garbage), driver limits (GL_MAX_TEXTURE_SIZE),
 * non-finite coefficients, bad sizes, NULL pointers, bad options, bad context descriptions,
 * and a bad shader directory (missing: TEXLA_ERR_IO; a syntax error: TEXLA_ERR_SHADER with the
 * file name and the driver's log). */
#include "suites.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the error callback: counts calls, keeps the last code and message ---- */

static struct {
    int calls;
    int bad_user;        /* calls whose user pointer was not the one given in the desc */
    texla_result code;
    char msg[8192];
} cb;

static void on_error(texla_result code, const char *message, void *user) {
    cb.calls++;
    if (user != (void *)&cb) cb.bad_user++;
    cb.code = code;
    snprintf(cb.msg, sizeof cb.msg, "%s", message ? message : "(null)");
}

static void cb_reset(void) {
    cb.calls = 0;
    cb.bad_user = 0;
    cb.code = TEXLA_OK;
    cb.msg[0] = '\0';
}

static int ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* needle occurs in s as a whole word (not inside a longer identifier or number) */
static int has_word(const char *s, const char *needle) {
    size_t n = strlen(needle);
    for (const char *p = s; (p = strstr(p, needle)) != NULL; p++) {
        int before_ok = p == s || !ident_char(p[-1]) || !ident_char(needle[0]);
        int after_ok = !ident_char(p[n]) || !ident_char(needle[n - 1]);
        if (before_ok && after_ok) return 1;
    }
    return 0;
}

/* Checks one call's outcome. ctx NULL: the call was texla_ctx_make (message of the thread).
 * cb_expected: whether this call can reach a callback (0 when there is no context). */
static void expect_at(texla_ctx *ctx, int cb_expected, texla_result got, texla_result want,
                      const char *file, int line, const char *what, const char *const *needles) {
    check_report(got == want, file, line, what, "returned %s, expected %s (message: \"%s\")",
                 texla_result_name(got), texla_result_name(want),
                 got != TEXLA_OK ? texla_error_message(ctx) : "");
    if (want == TEXLA_OK || got != want) return;
    const char *msg = texla_error_message(ctx);
    check_report(msg != NULL && msg[0] != '\0', file, line, what, "error message is empty");
    if (!msg) return;
    if (cb_expected) {
        check_report(cb.calls == 1, file, line, what, "error callback ran %d times, expected 1",
                     cb.calls);
        check_report(cb.calls == 0 || cb.code == want, file, line, what,
                     "error callback got %s, the call returned %s", texla_result_name(cb.code),
                     texla_result_name(want));
        check_report(cb.calls == 0 || strcmp(cb.msg, msg) == 0, file, line, what,
                     "error callback got message \"%s\", texla_error_message says \"%s\"", cb.msg,
                     msg);
        check_report(cb.bad_user == 0, file, line, what,
                     "error callback got a user pointer other than desc.error_user");
    }
    for (const char *const *n = needles; n && *n; n++)
        check_report(has_word(msg, *n), file, line, what, "message \"%s\" does not mention \"%s\"",
                     msg, *n);
}

#define NEEDLES(...) ((const char *const[]){__VA_ARGS__, NULL})
/* EXPECT(ctx, want, call, needle...): the call returns want; see expect_at. Pass NULL as the
 * only needle when the message has nothing specific to check. */
#define EXPECT(ctx, want, call, ...) EXPECT_LABEL(ctx, #call, want, call, __VA_ARGS__)
/* the same with a label of its own for the messages instead of the call's text */
#define EXPECT_LABEL(ctx, label, want, call, ...)                                              \
    do {                                                                                       \
        cb_reset();                                                                            \
        texla_result r_ = (call);                                                              \
        expect_at((ctx), 1, r_, (want), __FILE__, __LINE__, (label), NEEDLES(__VA_ARGS__));    \
    } while (0)
/* the same for calls that have no context to report through (ctx argument NULL) */
#define EXPECT_NOCTX(want, call)                                                               \
    do {                                                                                       \
        texla_result r_ = (call);                                                              \
        check_report(r_ == (want), __FILE__, __LINE__, #call, "returned %s, expected %s",     \
                     texla_result_name(r_), texla_result_name(want));                          \
    } while (0)

/* Calls that pass NULL where a pointer is expected run in a child process, so that a crash
 * is counted as a failure instead of ending the run. The child makes no GL call that needs
 * driver threads (these calls fail validation first) and reports through its exit status. */
typedef texla_result (*call_fn)(texla_ctx *ctx, const void *arg);

static void expect_isolated_at(texla_ctx *ctx, call_fn call, const void *arg, texla_result want,
                               const char *needle, const char *file, int line, const char *what) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(30);
        cb_reset();
        texla_result r = call(ctx, arg);
        const char *msg = texla_error_message(ctx);
        int bits = (int)r & 15;
        if (cb.calls == 1 && cb.code == r && msg && !strcmp(cb.msg, msg)) bits |= 16;
        if (msg && msg[0] && (!needle || has_word(msg, needle))) bits |= 32;
        _exit(bits | 64); /* 64: the call returned */
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        check_report(0, file, line, what, "fork/waitpid failed");
        return;
    }
    if (WIFSIGNALED(status)) {
        check_report(0, file, line, what, "crashed with signal %d (expected %s)",
                     WTERMSIG(status), texla_result_name(want));
        return;
    }
    int bits = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    if (!(bits & 64)) {
        check_report(0, file, line, what, "the call did not return: the child process ended "
                     "with status %d (a sanitizer's crash report?)", bits);
        return;
    }
    texla_result got = (texla_result)(bits & 15);
    check_report(got == want, file, line, what, "returned %s, expected %s",
                 texla_result_name(got), texla_result_name(want));
    if (got != want || want == TEXLA_OK) return;
    check_report(!ctx || (bits & 16), file, line, what,
                 "the error callback did not run exactly once with the code and message");
    check_report(bits & 32, file, line, what, "the message is empty or does not mention \"%s\"",
                 needle ? needle : "");
}
#define EXPECT_ISOLATED(ctx, want, call, arg, needle, label) \
    expect_isolated_at(ctx, call, arg, want, needle, __FILE__, __LINE__, label)

static texla_result c_make_null(texla_ctx *c, const void *a) {
    (void)a;
    return texla_mat_make(c, 3, 3, NULL, NULL);
}
static texla_result c_make_const_null(texla_ctx *c, const void *a) {
    (void)a;
    return texla_mat_make_const(c, 3, 3, 1.0f, NULL);
}
static texla_result c_make_identity_null(texla_ctx *c, const void *a) {
    (void)a;
    return texla_mat_make_identity(c, 3, NULL);
}
static texla_result c_read_null(texla_ctx *c, const void *a) {
    return texla_mat_read(c, *(const texla_mat *)a, NULL);
}
static texla_result c_read_raw_null(texla_ctx *c, const void *a) {
    return texla_mat_read_raw(c, *(const texla_mat *)a, NULL);
}
static texla_result c_info_get_null(texla_ctx *c, const void *a) {
    return texla_mat_info_get(c, *(const texla_mat *)a, NULL);
}
static texla_result c_write_null(texla_ctx *c, const void *a) {
    return texla_mat_write(c, NULL, *(const texla_mat *)a);
}
static texla_result c_ctx_info_null(texla_ctx *c, const void *a) {
    (void)a;
    return texla_ctx_info(c, NULL);
}
static texla_result c_ctx_stats_null(texla_ctx *c, const void *a) {
    (void)a;
    return texla_ctx_stats(c, NULL);
}

/* ---- matrices with known contents ---- */

typedef struct hmat {
    texla_mat m;
    int rows, cols;
    float *data; /* what the matrix holds */
} hmat;

static hmat hmat_make(texla_ctx *ctx, int rows, int cols) {
    hmat h = {{0}, rows, cols, malloc(sizeof(float) * (size_t)rows * (size_t)cols)};
    check_fill(h.data, (size_t)rows * (size_t)cols);
    texla_result r = texla_mat_make(ctx, rows, cols, h.data, &h.m);
    CHECK(r == TEXLA_OK, "making a %d x %d matrix: %s: %s", rows, cols, texla_result_name(r),
          texla_error_message(ctx));
    return h;
}

static void hmat_free(texla_ctx *ctx, hmat *h) {
    texla_mat_destroy(ctx, h->m);
    free(h->data);
    h->data = NULL;
}

/* The matrix still holds exactly what it held before a failed call. */
static void unchanged_at(texla_ctx *ctx, const hmat *h, const char *file, int line,
                         const char *what) {
    size_t n = (size_t)h->rows * (size_t)h->cols;
    float *got = malloc(sizeof(float) * n);
    texla_result r = texla_mat_read(ctx, h->m, got);
    check_report(r == TEXLA_OK && memcmp(got, h->data, sizeof(float) * n) == 0, file, line, what,
                 "after the failed call the destination (%d x %d) no longer holds its previous "
                 "contents (read: %s)", h->rows, h->cols, texla_result_name(r));
    free(got);
}
#define UNCHANGED(ctx, h, what) unchanged_at(ctx, h, __FILE__, __LINE__, what)

static uint64_t textures_alive(texla_ctx *ctx) {
    texla_stats st;
    memset(&st, 0, sizeof st);
    texla_ctx_stats(ctx, &st);
    return st.textures;
}

/* ---- the element-wise operations as one table ---- */

enum { EW_COPY, EW_ADD, EW_SUB, EW_MUL, EW_SCALE, EW_SCALE_SELF, EW_ACC, EW_ACC_SCALED,
       EW_ACC_MUL, EW_ADD_SCALED, EW_MADAD, EW_MAX, EW_RECIP, EW_COUNT };

static const struct {
    const char *name;
    int nsrc;                 /* sources before the destination */
    int coef;                 /* takes a float coefficient */
    const char *src_name[4];  /* parameter names in texla.h */
} ew[EW_COUNT] = {
    [EW_COPY] = {"texla_mat_copy", 1, 0, {"a"}},
    [EW_ADD] = {"texla_mat_add", 2, 0, {"a", "b"}},
    [EW_SUB] = {"texla_mat_sub", 2, 0, {"a", "b"}},
    [EW_MUL] = {"texla_mat_mul", 2, 0, {"a", "b"}},
    [EW_SCALE] = {"texla_mat_scale", 1, 1, {"a"}},
    [EW_SCALE_SELF] = {"texla_mat_rescale", 0, 1, {NULL}},
    [EW_ACC] = {"texla_mat_acc", 1, 0, {"b"}},
    [EW_ACC_SCALED] = {"texla_mat_acc", 1, 1, {"b"}},
    [EW_ACC_MUL] = {"texla_mat_acc_mul", 2, 0, {"a", "b"}},
    [EW_ADD_SCALED] = {"texla_mat_axpy", 2, 1, {"a", "b"}},
    [EW_MADAD] = {"texla_mat_madad", 4, 0, {"a", "b", "d", "e"}},
    [EW_MAX] = {"texla_mat_clamp_min", 1, 1, {"a"}},
    [EW_RECIP] = {"texla_mat_recip", 1, 1, {"a"}},
};

/* m[0..nsrc-1] are the sources in parameter order, m[nsrc] the destination */
static texla_result ew_call(texla_ctx *ctx, int op, const texla_mat *m, float s) {
    switch (op) {
    case EW_COPY: return texla_mat_copy(ctx, m[0], m[1]);
    case EW_ADD: return texla_mat_add(ctx, m[0], m[1], m[2]);
    case EW_SUB: return texla_mat_sub(ctx, m[0], m[1], m[2]);
    case EW_MUL: return texla_mat_mul(ctx, m[0], m[1], m[2]);
    case EW_SCALE: return texla_mat_scale(ctx, m[0], texla_host(s), m[1]);
    case EW_SCALE_SELF: return texla_mat_rescale(ctx, s, m[0]);
    case EW_ACC: return texla_mat_acc(ctx, texla_host(1.0f), m[0], m[1]);
    case EW_ACC_SCALED: return texla_mat_acc(ctx, texla_host(s), m[0], m[1]);
    case EW_ACC_MUL: return texla_mat_acc_mul(ctx, m[0], m[1], m[2]);
    case EW_ADD_SCALED: return texla_mat_axpy(ctx, m[0], texla_host(s), m[1], m[2]);
    case EW_MADAD: return texla_mat_madad(ctx, m[0], m[1], m[2], m[3], m[4]);
    case EW_MAX: return texla_mat_clamp_min(ctx, m[0], s, m[1]);
    case EW_RECIP: return texla_mat_recip(ctx, m[0], s, m[1]);
    default: return TEXLA_ERR_ARGUMENT;
    }
}

static const char *operand_name(int op, int pos) {
    return pos == ew[op].nsrc ? "dst" : ew[op].src_name[pos];
}

/* One failing element-wise call: code, callback, message words, destination unchanged. */
static void ew_expect(texla_ctx *ctx, int op, const texla_mat *m, float s, texla_result want,
                      const hmat *dst_known, const char *const *needles, const char *what) {
    char label[256];
    snprintf(label, sizeof label, "%s: %s", ew[op].name, what);
    cb_reset();
    texla_result r = ew_call(ctx, op, m, s);
    expect_at(ctx, 1, r, want, __FILE__, __LINE__, label, needles);
    if (dst_known) UNCHANGED(ctx, dst_known, label);
}

#define SH_R 6
#define SH_C 5

static void test_elementwise(texla_ctx *ctx) {
    /* four sources and a destination of the common shape, and three wrong shapes: the
     * transpose (same element count, so counting elements is not enough), more columns, more
     * rows */
    hmat src[4], dst = hmat_make(ctx, SH_R, SH_C);
    for (int i = 0; i < 4; i++) src[i] = hmat_make(ctx, SH_R, SH_C);
    static const int odd[3][2] = {{SH_C, SH_R}, {SH_R, 9}, {7, SH_C}};
    hmat wrong[3];
    for (int i = 0; i < 3; i++) wrong[i] = hmat_make(ctx, odd[i][0], odd[i][1]);

    /* handles that are not live: 0; destroyed with its slot then reused by a live matrix of
     * the same shape (so treating it as live would succeed); a garbage id */
    hmat gone = hmat_make(ctx, SH_R, SH_C);
    texla_mat stale = gone.m;
    hmat_free(ctx, &gone);
    hmat reuser = hmat_make(ctx, SH_R, SH_C);
    CHECK(reuser.m.id != stale.id, "a new matrix got the handle 0x%016llx of a destroyed one",
          (unsigned long long)stale.id);
    const texla_mat bad[3] = {{0}, stale, {0xfffffff7u}};
    static const char *const bad_name[3] = {"handle 0", "stale handle (slot reused)",
                                            "garbage handle"};

    for (int op = 0; op < EW_COUNT; op++) {
        int n = ew[op].nsrc;
        texla_mat m[5];
        char what[160];

        /* bad handles in every operand position */
        for (int pos = 0; pos <= n; pos++)
            for (int b = 0; b < 3; b++) {
                for (int i = 0; i < n; i++) m[i] = src[i].m;
                m[n] = dst.m;
                m[pos] = bad[b];
                snprintf(what, sizeof what, "%s as %s", bad_name[b], operand_name(op, pos));
                ew_expect(ctx, op, m, 0.5f, TEXLA_ERR_HANDLE, pos < n ? &dst : NULL,
                          NEEDLES(operand_name(op, pos)), what);
            }

        /* a wrong shape in every operand position */
        for (int pos = 0; pos <= n && n > 0; pos++)
            for (int w = 0; w < 3; w++) {
                for (int i = 0; i < n; i++) m[i] = src[i].m;
                m[n] = dst.m;
                m[pos] = wrong[w].m;
                char r_s[16], c_s[16];
                snprintf(r_s, sizeof r_s, "%d", odd[w][0]);
                snprintf(c_s, sizeof c_s, "%d", odd[w][1]);
                snprintf(what, sizeof what, "%s is %d x %d, the others %d x %d",
                         operand_name(op, pos), odd[w][0], odd[w][1], SH_R, SH_C);
                ew_expect(ctx, op, m, 0.5f, TEXLA_ERR_SHAPE, pos < n ? &dst : &wrong[w],
                          NEEDLES(r_s, c_s), what);
            }

        /* the destination is also each source in turn */
        for (int pos = 0; pos < n; pos++) {
            for (int i = 0; i < n; i++) m[i] = src[i].m;
            m[n] = dst.m;
            m[pos] = dst.m;
            snprintf(what, sizeof what, "dst == %s", operand_name(op, pos));
            ew_expect(ctx, op, m, 0.5f, TEXLA_ERR_ALIAS, &dst,
                      NEEDLES("dst", operand_name(op, pos)), what);
        }

        /* non-finite coefficients */
        if (ew[op].coef) {
            const float nonfinite[3] = {NAN, INFINITY, -INFINITY};
            for (int v = 0; v < 3; v++) {
                for (int i = 0; i < n; i++) m[i] = src[i].m;
                m[n] = dst.m;
                snprintf(what, sizeof what, "coefficient %g", (double)nonfinite[v]);
                ew_expect(ctx, op, m, nonfinite[v], TEXLA_ERR_ARGUMENT, &dst, NEEDLES("s"),
                          what);
            }
        }

        /* no context */
        for (int i = 0; i < n; i++) m[i] = src[i].m;
        m[n] = dst.m;
        texla_result r = ew_call(NULL, op, m, 0.5f);
        CHECK(r == TEXLA_ERR_ARGUMENT, "%s with ctx NULL returned %s, expected TEXLA_ERR_ARGUMENT",
              ew[op].name, texla_result_name(r));
        UNCHANGED(ctx, &dst, ew[op].name);
    }

    /* sources may repeat (only the destination must differ from them) */
    hmat out = hmat_make(ctx, SH_R, SH_C);
    EXPECT(ctx, TEXLA_OK, texla_mat_add(ctx, src[0].m, src[0].m, out.m), NULL);
    EXPECT(ctx, TEXLA_OK, texla_mat_mul(ctx, src[1].m, src[1].m, out.m), NULL);
    EXPECT(ctx, TEXLA_OK,
           texla_mat_madad(ctx, src[0].m, src[0].m, src[0].m, src[0].m, out.m), NULL);
    EXPECT(ctx, TEXLA_OK, texla_mat_acc_mul(ctx, src[2].m, src[2].m, out.m), NULL);
    /* the one-operand form is the way to update in place */
    EXPECT(ctx, TEXLA_OK, texla_mat_rescale(ctx, 2.0f, out.m), NULL);

    /* a just-destroyed handle (no other matrix made since) */
    hmat z = hmat_make(ctx, SH_R, SH_C);
    texla_mat zid = z.m;
    hmat_free(ctx, &z);
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_copy(ctx, zid, dst.m), "a");
    UNCHANGED(ctx, &dst, "texla_mat_copy from a destroyed matrix");
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_add(ctx, src[0].m, zid, dst.m), "b");
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_rescale(ctx, 2.0f, zid), "dst");
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_madad(ctx, src[0].m, src[1].m, src[2].m, zid, dst.m), "e");
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_clamp_min(ctx, src[0].m, 0.0f, zid), "dst");

    /* the stale handle whose slot was reused must not reach the new matrix */
    texla_mat_destroy(ctx, stale);
    UNCHANGED(ctx, &reuser, "texla_mat_destroy of a stale handle whose slot was reused");

    hmat_free(ctx, &out);
    hmat_free(ctx, &reuser);
    for (int i = 0; i < 3; i++) hmat_free(ctx, &wrong[i]);
    for (int i = 0; i < 4; i++) hmat_free(ctx, &src[i]);
    hmat_free(ctx, &dst);
}

/* ---- products and dot ---- */

typedef texla_result (*product_fn)(texla_ctx *, texla_mat, texla_mat, texla_mat);

static void test_product(texla_ctx *ctx, product_fn fn, const char *name, int tn, int nt) {
    /* C (6 x 3) = op(A) * op(B) with inner dimension 5 */
    hmat a = tn ? hmat_make(ctx, 5, 6) : hmat_make(ctx, 6, 5);
    hmat b = nt ? hmat_make(ctx, 3, 5) : hmat_make(ctx, 5, 3);
    hmat c = hmat_make(ctx, 6, 3);
    /* inner dimension 4 instead of 5 */
    hmat b4 = nt ? hmat_make(ctx, 3, 4) : hmat_make(ctx, 4, 3);
    hmat c_wide = hmat_make(ctx, 6, 4), c_t = hmat_make(ctx, 3, 6);
    char what[160];

    snprintf(what, sizeof what, "%s with fitting shapes", name);
    EXPECT_LABEL(ctx, what, TEXLA_OK, fn(ctx, a.m, b.m, c.m), NULL);
    float *cur = malloc(sizeof(float) * 18);
    texla_mat_read(ctx, c.m, cur);
    memcpy(c.data, cur, sizeof(float) * 18); /* c's contents now */
    free(cur);

    snprintf(what, sizeof what, "%s: inner dimensions 5 and 4", name);
    EXPECT_LABEL(ctx, what, TEXLA_ERR_SHAPE, fn(ctx, a.m, b4.m, c.m), "5", "4");
    UNCHANGED(ctx, &c, what);

    snprintf(what, sizeof what, "%s: dst 6 x 4 for a 6 x 3 product", name);
    EXPECT_LABEL(ctx, what, TEXLA_ERR_SHAPE, fn(ctx, a.m, b.m, c_wide.m), "dst", "4");
    UNCHANGED(ctx, &c_wide, what);

    snprintf(what, sizeof what, "%s: dst 3 x 6 (transposed) for a 6 x 3 product", name);
    EXPECT_LABEL(ctx, what, TEXLA_ERR_SHAPE, fn(ctx, a.m, b.m, c_t.m), "dst");
    UNCHANGED(ctx, &c_t, what);

    /* handles */
    hmat gone = hmat_make(ctx, 6, 3);
    texla_mat stale = gone.m;
    hmat_free(ctx, &gone);
    const texla_mat ops[3] = {a.m, b.m, c.m};
    static const char *const opname[3] = {"a", "b", "dst"};
    for (int pos = 0; pos < 3; pos++)
        for (int k = 0; k < 2; k++) {
            texla_mat m[3] = {ops[0], ops[1], ops[2]};
            m[pos] = k ? stale : (texla_mat){0};
            snprintf(what, sizeof what, "%s: %s handle as %s", name, k ? "stale" : "0",
                     opname[pos]);
            EXPECT_LABEL(ctx, what, TEXLA_ERR_HANDLE, fn(ctx, m[0], m[1], m[2]), opname[pos]);
            if (pos < 2) UNCHANGED(ctx, &c, what);
        }

    /* aliasing, with square operands so that every shape fits */
    hmat s1 = hmat_make(ctx, 5, 5), s2 = hmat_make(ctx, 5, 5);
    snprintf(what, sizeof what, "%s: dst == a", name);
    EXPECT_LABEL(ctx, what, TEXLA_ERR_ALIAS, fn(ctx, s1.m, s2.m, s1.m), "dst", "a");
    UNCHANGED(ctx, &s1, what);
    snprintf(what, sizeof what, "%s: dst == b", name);
    EXPECT_LABEL(ctx, what, TEXLA_ERR_ALIAS, fn(ctx, s1.m, s2.m, s2.m), "dst", "b");
    UNCHANGED(ctx, &s2, what);
    snprintf(what, sizeof what, "%s: dst == a == b", name);
    EXPECT_LABEL(ctx, what, TEXLA_ERR_ALIAS, fn(ctx, s1.m, s1.m, s1.m), "dst");
    UNCHANGED(ctx, &s1, what);
    /* a == b is a legitimate product (A*A, A'*A, A*A') */
    hmat s3 = hmat_make(ctx, 5, 5);
    snprintf(what, sizeof what, "%s: a == b (allowed)", name);
    EXPECT_LABEL(ctx, what, TEXLA_OK, fn(ctx, s1.m, s1.m, s3.m), NULL);

    texla_result r = fn(NULL, a.m, b.m, c.m);
    CHECK(r == TEXLA_ERR_ARGUMENT, "%s with ctx NULL returned %s", name, texla_result_name(r));

    hmat *all[] = {&a, &b, &c, &b4, &c_wide, &c_t, &s1, &s2, &s3};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) hmat_free(ctx, all[i]);
}

/* texla_mat_diag: a must be square, dst its n x 1 diagonal */
static void test_diag(texla_ctx *ctx) {
    hmat a = hmat_make(ctx, 5, 5), d = hmat_make(ctx, 5, 1), rect = hmat_make(ctx, 5, 4);
    hmat d4 = hmat_make(ctx, 4, 1), row = hmat_make(ctx, 1, 5), one = hmat_make(ctx, 1, 1);
    EXPECT(ctx, TEXLA_OK, texla_mat_diag(ctx, a.m, d.m), NULL);
    float cur[5];
    texla_mat_read(ctx, d.m, cur);
    memcpy(d.data, cur, sizeof cur);
    EXPECT(ctx, TEXLA_ERR_SHAPE, texla_mat_diag(ctx, rect.m, d.m), "5", "4");
    UNCHANGED(ctx, &d, "texla_mat_diag of a 5 x 4 matrix");
    EXPECT(ctx, TEXLA_ERR_SHAPE, texla_mat_diag(ctx, a.m, d4.m), "dst", "4");
    UNCHANGED(ctx, &d4, "texla_mat_diag into a 4 x 1 dst");
    EXPECT(ctx, TEXLA_ERR_SHAPE, texla_mat_diag(ctx, a.m, row.m), "dst");
    UNCHANGED(ctx, &row, "texla_mat_diag into a 1 x 5 dst");
    /* the only shapes where dst can be a: 1 x 1 */
    EXPECT(ctx, TEXLA_ERR_ALIAS, texla_mat_diag(ctx, one.m, one.m), "dst", "a");
    UNCHANGED(ctx, &one, "texla_mat_diag with dst == a");
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_diag(ctx, (texla_mat){0}, d.m), "a");
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_diag(ctx, a.m, (texla_mat){0}), "dst");
    texla_mat stale = rect.m;
    hmat_free(ctx, &rect);
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_diag(ctx, stale, d.m), "a");
    UNCHANGED(ctx, &d, "texla_mat_diag of a destroyed matrix");
    EXPECT_NOCTX(TEXLA_ERR_ARGUMENT, texla_mat_diag(NULL, a.m, d.m));
    hmat *all[] = {&a, &d, &d4, &row, &one};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) hmat_free(ctx, all[i]);
}

/* reductions of dense matrices into GPU scalars: any shape, both operands of one shape */
static void test_dot(texla_ctx *ctx) {
    hmat v5 = hmat_make(ctx, 5, 1), w5 = hmat_make(ctx, 5, 1), v6 = hmat_make(ctx, 6, 1);
    hmat m52 = hmat_make(ctx, 5, 2), row = hmat_make(ctx, 1, 5);
    texla_scalar out = {0};
    EXPECT(ctx, TEXLA_OK, texla_scalar_make(ctx, 0.0f, &out), NULL);
    EXPECT(ctx, TEXLA_OK, texla_mat_dot(ctx, v5.m, w5.m, out), NULL);
    EXPECT(ctx, TEXLA_OK, texla_mat_dot(ctx, v5.m, v5.m, out), NULL); /* not aliasing */
    EXPECT(ctx, TEXLA_OK, texla_mat_dot(ctx, m52.m, m52.m, out), NULL); /* Frobenius */
    EXPECT(ctx, TEXLA_OK, texla_mat_sqnorm(ctx, row.m, out), NULL);
    EXPECT(ctx, TEXLA_ERR_SHAPE, texla_mat_dot(ctx, v5.m, v6.m, out), "5", "6");
    EXPECT(ctx, TEXLA_ERR_SHAPE, texla_mat_dot(ctx, v6.m, v5.m, out), "5", "6");
    EXPECT(ctx, TEXLA_ERR_SHAPE, texla_mat_dot(ctx, v5.m, m52.m, out), "b", "2");
    EXPECT(ctx, TEXLA_ERR_SHAPE, texla_mat_dot(ctx, v5.m, row.m, out), "b", "1", "5");
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_dot(ctx, v5.m, w5.m, (texla_scalar){0}), "dst");
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_dot(ctx, (texla_mat){0}, w5.m, out), "a");
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_dot(ctx, v5.m, (texla_mat){0}, out), "b");
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_sqnorm(ctx, (texla_mat){0}, out), NULL);
    texla_mat stale = v6.m;
    hmat_free(ctx, &v6);
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_dot(ctx, stale, w5.m, out), "a");
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_dot(ctx, v5.m, stale, out), "b");
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_sqnorm(ctx, stale, out), NULL);
    EXPECT_NOCTX(TEXLA_ERR_ARGUMENT, texla_mat_dot(NULL, v5.m, w5.m, out));
    EXPECT_NOCTX(TEXLA_ERR_ARGUMENT, texla_mat_sqnorm(NULL, v5.m, out));
    texla_scalar_destroy(ctx, out);
    hmat_free(ctx, &v5);
    hmat_free(ctx, &w5);
    hmat_free(ctx, &m52);
    hmat_free(ctx, &row);
}

/* ---- making, reading, writing, handles ---- */

static void test_make_and_io(texla_ctx *ctx) {
    texla_mat m = {0xdeadbeefu};
    uint64_t t0 = textures_alive(ctx);
    /* sizes 0 and negative */
    static const int bad_sizes[][2] = {{0, 5}, {5, 0}, {0, 0}, {-1, 5}, {5, -3}, {INT_MIN, 1},
                                       {1, INT_MIN}};
    for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
        int r0 = bad_sizes[i][0], c0 = bad_sizes[i][1];
        char rs[16], cs[16], what[128];
        snprintf(rs, sizeof rs, "%d", r0);
        snprintf(cs, sizeof cs, "%d", c0);
        snprintf(what, sizeof what, "texla_mat_make(%d x %d)", r0, c0);
        m.id = 0xdeadbeefu;
        EXPECT_LABEL(ctx, what, TEXLA_ERR_ARGUMENT, texla_mat_make(ctx, r0, c0, NULL, &m), rs, cs);
        CHECK(m.id == 0, "%s failed but *out is 0x%016llx, not the 0 handle", what,
              (unsigned long long)m.id);
        snprintf(what, sizeof what, "texla_mat_make_const(%d x %d)", r0, c0);
        m.id = 0xdeadbeefu;
        EXPECT_LABEL(ctx, what, TEXLA_ERR_ARGUMENT, texla_mat_make_const(ctx, r0, c0, 1.0f, &m),
                     rs, cs);
        CHECK(m.id == 0, "%s failed but *out is 0x%016llx, not the 0 handle", what,
              (unsigned long long)m.id);
    }
    EXPECT(ctx, TEXLA_ERR_ARGUMENT, texla_mat_make_identity(ctx, 0, &m), "0");
    EXPECT(ctx, TEXLA_ERR_ARGUMENT, texla_mat_make_identity(ctx, -4, &m), "-4");
    /* NULL out pointers */
    EXPECT_ISOLATED(ctx, TEXLA_ERR_ARGUMENT, c_make_null, NULL, "out",
                    "texla_mat_make(ctx, 3, 3, NULL, NULL)");
    EXPECT_ISOLATED(ctx, TEXLA_ERR_ARGUMENT, c_make_const_null, NULL, "out",
                    "texla_mat_make_const(ctx, 3, 3, 1.0f, NULL)");
    EXPECT_ISOLATED(ctx, TEXLA_ERR_ARGUMENT, c_make_identity_null, NULL, "out",
                    "texla_mat_make_identity(ctx, 3, NULL)");
    /* non-finite constants */
    const float nonfinite[3] = {NAN, INFINITY, -INFINITY};
    for (int v = 0; v < 3; v++) {
        char what[96];
        snprintf(what, sizeof what, "texla_mat_make_const(3 x 3, %g)", (double)nonfinite[v]);
        m.id = 0xdeadbeefu;
        EXPECT_LABEL(ctx, what, TEXLA_ERR_ARGUMENT,
                     texla_mat_make_const(ctx, 3, 3, nonfinite[v], &m), "value");
        CHECK(m.id == 0, "%s failed but *out is 0x%016llx, not the 0 handle", what,
              (unsigned long long)m.id);
    }
    CHECK(textures_alive(ctx) == t0, "failed makes left %llu textures alive (before: %llu)",
          (unsigned long long)textures_alive(ctx), (unsigned long long)t0);
    /* no context */
    EXPECT_NOCTX(TEXLA_ERR_ARGUMENT, texla_mat_make(NULL, 3, 3, NULL, &m));
    EXPECT_NOCTX(TEXLA_ERR_ARGUMENT, texla_mat_make_const(NULL, 3, 3, 1.0f, &m));
    EXPECT_NOCTX(TEXLA_ERR_ARGUMENT, texla_mat_make_identity(NULL, 3, &m));

    /* reading, writing, info: NULL pointers and bad handles */
    hmat a = hmat_make(ctx, 5, 3);
    float buf[64];
    texla_mat_info mi;
    EXPECT_ISOLATED(ctx, TEXLA_ERR_ARGUMENT, c_read_null, &a.m, "out",
                    "texla_mat_read(ctx, m, NULL)");
    EXPECT_ISOLATED(ctx, TEXLA_ERR_ARGUMENT, c_read_raw_null, &a.m, "out",
                    "texla_mat_read_raw(ctx, m, NULL)");
    EXPECT_ISOLATED(ctx, TEXLA_ERR_ARGUMENT, c_info_get_null, &a.m, "out",
                    "texla_mat_info_get(ctx, m, NULL)");
    EXPECT_ISOLATED(ctx, TEXLA_ERR_ARGUMENT, c_write_null, &a.m, "data",
                    "texla_mat_write(ctx, NULL, m)");
    UNCHANGED(ctx, &a, "texla_mat_write(NULL data)");
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_read(ctx, (texla_mat){0}, buf), "m");
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_read_raw(ctx, (texla_mat){0}, buf), "m");
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_info_get(ctx, (texla_mat){0}, &mi), "m");
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_write(ctx, buf, (texla_mat){0}), "m");
    EXPECT_NOCTX(TEXLA_ERR_ARGUMENT, texla_mat_read(NULL, a.m, buf));
    EXPECT_NOCTX(TEXLA_ERR_ARGUMENT, texla_mat_read_raw(NULL, a.m, buf));
    EXPECT_NOCTX(TEXLA_ERR_ARGUMENT, texla_mat_info_get(NULL, a.m, &mi));
    EXPECT_NOCTX(TEXLA_ERR_ARGUMENT, texla_mat_write(NULL, buf, a.m));

    /* a destroyed handle, then the same slot reused by a new matrix */
    texla_mat stale = a.m;
    hmat_free(ctx, &a);
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_read(ctx, stale, buf), "m");
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_read_raw(ctx, stale, buf), "m");
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_info_get(ctx, stale, &mi), "m");
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_write(ctx, buf, stale), "m");
    hmat b = hmat_make(ctx, 5, 3); /* same shape, takes the freed slot */
    CHECK(b.m.id != stale.id, "a new matrix got the handle 0x%016llx of a destroyed one", (unsigned long long)stale.id);
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_read(ctx, stale, buf), "m");
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_read_raw(ctx, stale, buf), "m");
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_info_get(ctx, stale, &mi), "m");
    EXPECT(ctx, TEXLA_ERR_HANDLE, texla_mat_write(ctx, buf, stale), "m");
    UNCHANGED(ctx, &b, "texla_mat_write through a stale handle whose slot was reused");

    /* destroying 0 or a stale handle is a no-op: no error, no callback, nothing freed */
    uint64_t t1 = textures_alive(ctx);
    cb_reset();
    texla_mat_destroy(ctx, (texla_mat){0});
    texla_mat_destroy(ctx, stale);
    texla_mat_destroy(ctx, (texla_mat){0xfffffff7u});
    texla_mat_destroy(NULL, b.m);
    CHECK(cb.calls == 0, "destroying 0/stale handles reported %d errors (last: %s)", cb.calls,
          cb.msg);
    CHECK(textures_alive(ctx) == t1, "destroying 0/stale handles freed textures (%llu -> %llu)",
          (unsigned long long)t1, (unsigned long long)textures_alive(ctx));
    UNCHANGED(ctx, &b, "texla_mat_destroy of 0, stale and garbage handles");
    texla_mat bid = b.m;
    hmat_free(ctx, &b);
    cb_reset();
    texla_mat_destroy(ctx, bid); /* twice */
    CHECK(cb.calls == 0, "destroying a matrix twice reported an error: %s", cb.msg);
    CHECK(textures_alive(ctx) == t1 - 1, "textures alive %llu after destroying one of %llu",
          (unsigned long long)textures_alive(ctx), (unsigned long long)t1);
}

/* ---- driver limits ---- */

/* The solvers' operands that a call writes behind the caller's back: a product operator's mid
 * (R x, rewritten by every product) as an operand the step reads, and a CG workspace that names
 * one object twice. Each is TEXLA_ERR_ALIAS naming the operand, before anything is written:
 * once, dst, x and the friction vectors came back silently wrong (or x as NaN with TEXLA_OK). */
static void test_solver_aliases(texla_ctx *ctx) {
    enum { n = 8 };
    float h[6][n], lr[n * n], before[n], after[n];
    texla_vec v[6];
    for (int k = 0; k < 6; k++) {
        for (int i = 0; i < n; i++) h[k][i] = (float)((k * 7 + i * 3) % 11) / 11.0f - 0.3f;
        texla_vec_make(ctx, n, h[k], &v[k]);
    }
    for (int i = 0; i < n * n; i++) lr[i] = i % n == i / n ? 2.0f : 0.125f * (float)(i % 5);
    texla_mat l, rm;
    texla_mat_make(ctx, n, n, lr, &l);
    texla_mat_make(ctx, n, n, lr, &rm);
    texla_vec x = v[0], b = v[1], e = v[2], work = v[3], dst = v[4], mid = v[5], none = {0};
    /* mid as b, e, index, mu of a step, or as x2 of the iteration: refused, dst and x kept */
    static const char *const names[5] = {"b", "e", "index", "mu", "x2"};
    texla_op p;
    CHECK_OK(ctx, texla_op_product(ctx, texla_op_dense(l), texla_op_dense(rm), mid, &p),
             "texla_op_product");
    for (int k = 0; k < 5; k++) {
        texla_vec sb = k == 0 ? mid : b, se = k == 1 ? mid : e;
        texla_vec idx = k == 2 ? mid : k == 3 ? b : none, mu = k == 3 ? mid : k == 2 ? e : none;
        texla_vec_read(ctx, k < 4 ? dst : x, before);
        if (k < 4)
            EXPECT_LABEL(ctx, "texla_op_lcp_step, a product's mid read by the step",
                         TEXLA_ERR_ALIAS,
                         texla_op_lcp_step(ctx, p, x, sb, se, idx, mu, work, dst), names[k], "mid");
        else
            EXPECT_LABEL(ctx, "texla_op_lcp_iterate, a product's mid as x2", TEXLA_ERR_ALIAS,
                         texla_op_lcp_iterate(ctx, p, b, e, none, none, 2, work, mid, x), "x2",
                         "mid");
        texla_vec_read(ctx, k < 4 ? dst : x, after);
        CHECK(!memcmp(before, after, sizeof before), "a refused LCP step (mid as %s) changed its "
              "destination", names[k]);
    }
    /* a product of a product over the same mid: every application would refuse (the inner
     * product rewrites what the outer one reads), so making it is refused, on either side */
    for (int k = 0; k < 2; k++) {
        texla_op q = {0, 0};
        EXPECT_LABEL(ctx, "texla_op_product, mid already a part's mid", TEXLA_ERR_ALIAS,
                     texla_op_product(ctx, k ? texla_op_dense(l) : p, k ? p : texla_op_dense(rm),
                                      mid, &q), "mid", k ? "r" : "l");
        CHECK(q.id == 0, "a refused texla_op_product gave a handle");
    }
    /* texla_lcp_jacobi_op: the friction vectors as the mid */
    for (int k = 0; k < 2; k++) {
        texla_lcp_op_desc d = {0};
        d.iterations = 2;
        d.diag = work;
        d.friction_index = k ? e : mid;
        d.friction_mu = k ? mid : e;
        texla_vec_read(ctx, x, before);
        EXPECT_LABEL(ctx, "texla_lcp_jacobi_op, a friction vector as the product's mid",
                     TEXLA_ERR_ALIAS, texla_lcp_jacobi_op(ctx, p, b, &d, x, NULL),
                     k ? "friction_mu" : "friction_index", "mid");
        texla_vec_read(ctx, x, after);
        CHECK(!memcmp(before, after, sizeof before), "a refused texla_lcp_jacobi_op changed x");
    }
    texla_op_destroy(ctx, p);
    /* texla_cg: a workspace naming one vector, or one scalar, twice */
    for (int k = 0; k < 2; k++) {
        texla_cg_workspace ws, twice;
        CHECK_OK(ctx, texla_cg_workspace_make(ctx, b, &ws), "texla_cg_workspace_make");
        twice = ws;
        if (k) twice.s[1] = twice.s[0];
        else twice.v[4] = twice.v[0];
        texla_cg_desc d = {0};
        d.tol = 1e-5f;
        d.workspace = &twice;
        texla_vec_read(ctx, x, before);
        EXPECT_LABEL(ctx, "texla_cg, a workspace naming an object twice", TEXLA_ERR_ALIAS,
                     texla_cg(ctx, texla_op_dense(l), b, &d, x, NULL), "texla_cg", "workspace");
        texla_vec_read(ctx, x, after);
        CHECK(!memcmp(before, after, sizeof before), "a refused texla_cg changed x");
        texla_cg_workspace_destroy(ctx, &ws);
    }
    /* two entries never made (zero handles): the handle check names them, not "one vector" */
    {
        texla_cg_workspace ws;
        CHECK_OK(ctx, texla_cg_workspace_make(ctx, b, &ws), "texla_cg_workspace_make");
        texla_cg_workspace part = ws;
        part.v[4] = part.v[5] = (texla_vec){0};
        texla_cg_desc d = {0};
        d.tol = 1e-5f;
        d.workspace = &part;
        texla_result r = texla_cg(ctx, texla_op_dense(l), b, &d, x, NULL);
        CHECK(r != TEXLA_OK && r != TEXLA_ERR_ALIAS &&
                  !strstr(texla_error_message(ctx), "one vector"),
              "texla_cg, a workspace with two zero handles: %s: %s", texla_result_name(r),
              texla_error_message(ctx));
        texla_cg_workspace_destroy(ctx, &ws);
    }
    for (int k = 0; k < 6; k++) texla_vec_destroy(ctx, v[k]);
    texla_mat_destroy(ctx, l);
    texla_mat_destroy(ctx, rm);
}

static void test_limits(texla_ctx *ctx) {
    texla_info info;
    memset(&info, 0, sizeof info);
    CHECK(texla_ctx_info(ctx, &info) == TEXLA_OK, "texla_ctx_info failed");
    int max = info.max_texture_size;
    CHECK(max > 0, "max_texture_size is %d", max);
    if (max <= 0 || max > INT_MAX / 4 - 1) return;
    char maxs[16], max1s[16];
    snprintf(maxs, sizeof maxs, "%d", max);
    snprintf(max1s, sizeof max1s, "%d", max + 1);
    uint64_t t0 = textures_alive(ctx);
    texla_mat m;
    const struct { int rows, cols; } over[] = {
        {1, max + 1}, {4 * max + 1, 1}, {4 * max + 1, max + 1}, {INT_MAX, 1}, {1, INT_MAX},
        {INT_MAX, INT_MAX},
    };
    for (size_t i = 0; i < sizeof over / sizeof over[0]; i++) {
        char what[128];
        int big = over[i].rows != INT_MAX && over[i].cols != INT_MAX;
        snprintf(what, sizeof what, "texla_mat_make(%d x %d), GL_MAX_TEXTURE_SIZE %d",
                 over[i].rows, over[i].cols, max);
        m.id = 0xdeadbeefu;
        cb_reset();
        texla_result r = texla_mat_make(ctx, over[i].rows, over[i].cols, NULL, &m);
        expect_at(ctx, 1, r, TEXLA_ERR_LIMIT, __FILE__, __LINE__, what,
                  big ? NEEDLES(maxs, max1s) : NEEDLES(maxs));
        CHECK(m.id == 0, "%s failed but *out is 0x%016llx", what, (unsigned long long)m.id);
        snprintf(what, sizeof what, "texla_mat_make_const(%d x %d), GL_MAX_TEXTURE_SIZE %d",
                 over[i].rows, over[i].cols, max);
        EXPECT_LABEL(ctx, what, TEXLA_ERR_LIMIT,
                     texla_mat_make_const(ctx, over[i].rows, over[i].cols, 1.0f, &m), maxs);
    }
    EXPECT(ctx, TEXLA_ERR_LIMIT, texla_mat_make_identity(ctx, max + 1, &m), maxs, max1s);
    EXPECT(ctx, TEXLA_ERR_LIMIT, texla_mat_make_identity(ctx, INT_MAX, &m), maxs);
    CHECK(textures_alive(ctx) == t0, "oversize makes allocated textures (%llu -> %llu)",
          (unsigned long long)t0, (unsigned long long)textures_alive(ctx));

    /* exactly at the limit is allowed: ceil(rows/4) == max, cols == max (thin, so cheap) */
    int lim = max;
    if (info.max_viewport[0] < lim) lim = info.max_viewport[0];
    if (info.max_viewport[1] < lim) lim = info.max_viewport[1];
    EXPECT(ctx, TEXLA_OK, texla_mat_make(ctx, 4 * lim, 1, NULL, &m), NULL);
    texla_mat_destroy(ctx, m);
    EXPECT(ctx, TEXLA_OK, texla_mat_make(ctx, 1, lim, NULL, &m), NULL);
    texla_mat_destroy(ctx, m);
}

/* ---- context-level calls ---- */

static void test_ctx_calls(texla_ctx *ctx) {
    texla_info info;
    EXPECT_ISOLATED(ctx, TEXLA_ERR_ARGUMENT, c_ctx_info_null, NULL, "out",
                    "texla_ctx_info(ctx, NULL)");
    EXPECT_ISOLATED(ctx, TEXLA_ERR_ARGUMENT, c_ctx_stats_null, NULL, "out",
                    "texla_ctx_stats(ctx, NULL)");
    EXPECT_NOCTX(TEXLA_ERR_ARGUMENT, texla_ctx_info(NULL, &info));
    texla_stats st;
    EXPECT_NOCTX(TEXLA_ERR_ARGUMENT, texla_ctx_stats(NULL, &st));
    EXPECT_NOCTX(TEXLA_ERR_ARGUMENT, texla_ctx_finish(NULL));
    EXPECT_NOCTX(TEXLA_ERR_ARGUMENT, texla_ctx_set_matmul_k(NULL, 1));

    EXPECT_NOCTX(TEXLA_ERR_ARGUMENT, texla_ctx_check(NULL, "x"));
    /* a check that passes begins nothing: an end then has no begin to close */
    EXPECT(ctx, TEXLA_OK, texla_ctx_check(ctx, NULL), NULL);
    EXPECT(ctx, TEXLA_ERR_ARGUMENT, texla_ctx_end(ctx), "texla_ctx_end", "no texla_ctx_begin");
    EXPECT(ctx, TEXLA_OK, texla_ctx_set_matmul_k(ctx, 3), NULL);
    EXPECT(ctx, TEXLA_ERR_ARGUMENT, texla_ctx_set_matmul_k(ctx, -1), "-1");
    EXPECT(ctx, TEXLA_ERR_ARGUMENT, texla_ctx_set_matmul_k(ctx, INT_MIN), NULL);
    memset(&info, 0, sizeof info);
    texla_ctx_info(ctx, &info);
    CHECK(info.matmul_k == 3, "a rejected texla_ctx_set_matmul_k changed matmul_k from 3 to %d",
          info.matmul_k);
    EXPECT(ctx, TEXLA_OK, texla_ctx_set_matmul_k(ctx, 0), NULL);
    texla_ctx_info(ctx, &info);
    CHECK(info.matmul_k == TEXLA_MATMUL_K_DEFAULT, "texla_ctx_set_matmul_k(0) left matmul_k %d, "
          "expected the default %d", info.matmul_k, TEXLA_MATMUL_K_DEFAULT);

    /* names of codes */
    CHECK(strcmp(texla_result_name(TEXLA_OK), "TEXLA_OK") == 0, "%s", texla_result_name(TEXLA_OK));
    CHECK(strcmp(texla_result_name(TEXLA_ERR_SHAPE), "TEXLA_ERR_SHAPE") == 0, "%s",
          texla_result_name(TEXLA_ERR_SHAPE));
    CHECK(strcmp(texla_result_name(TEXLA_ERR_IO), "TEXLA_ERR_IO") == 0, "%s",
          texla_result_name(TEXLA_ERR_IO));
    CHECK(texla_result_name((texla_result)999) != NULL, "texla_result_name(999) is NULL");
    texla_ctx_destroy(NULL); /* a no-op */
    CHECK(1, "texla_ctx_destroy(NULL) returned");
}

/* ---- making contexts ---- */

/* One texla_ctx_make that must fail: code, *out NULL, callback once, thread message. */
static void expect_make_fail_at(const texla_ctx_desc *desc, texla_result want, const char *file,
                                int line, const char *what, const char *const *needles) {
    texla_ctx *out = (texla_ctx *)&cb; /* not NULL: the call must clear it */
    cb_reset();
    texla_result r = texla_ctx_make(desc, &out);
    expect_at(NULL, desc && desc->error_cb, r, want, file, line, what, needles);
    check_report(out == NULL, file, line, what, "failed, but *out is not NULL");
    if (r == TEXLA_OK && out && out != (texla_ctx *)&cb) texla_ctx_destroy(out);
}

static int file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

static int copy_file(const char *from, const char *to) {
    FILE *in = fopen(from, "rb");
    if (!in) return 0;
    FILE *out = fopen(to, "wb");
    if (!out) {
        fclose(in);
        return 0;
    }
    char buf[4096];
    size_t n;
    int ok = 1;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n) ok = 0;
    fclose(in);
    if (fclose(out) != 0) ok = 0;
    return ok;
}

/* Copies the directory tree from into to (which must not exist). */
static int copy_tree(const char *from, const char *to) {
    if (mkdir(to, 0700) != 0) return 0;
    DIR *d = opendir(from);
    if (!d) return 0;
    int ok = 1;
    struct dirent *e;
    while (ok && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char a[1024], b[1024];
        snprintf(a, sizeof a, "%s/%s", from, e->d_name);
        snprintf(b, sizeof b, "%s/%s", to, e->d_name);
        struct stat st;
        if (stat(a, &st) != 0) ok = 0;
        else if (S_ISDIR(st.st_mode)) ok = copy_tree(a, b);
        else ok = copy_file(a, b);
    }
    closedir(d);
    return ok;
}

static void remove_tree(const char *path) {
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char p[1024];
            snprintf(p, sizeof p, "%s/%s", path, e->d_name);
            struct stat st;
            if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) remove_tree(p);
            else unlink(p);
        }
        closedir(d);
    }
    rmdir(path);
}

/* desc.glsl_dir: a missing folder (TEXLA_ERR_IO), a good copy of glsl/ (works), and the copy
 * with a syntax error on line 3 of fill.frag, the first shader the capability probe builds
 * (TEXLA_ERR_SHADER naming fill.frag, with the driver's log). */
static void test_glsl_dir(void) {
    texla_ctx_desc desc = {0};
    desc.error_cb = on_error;
    desc.error_user = &cb;
    desc.glsl_dir = "/nonexistent";
    expect_make_fail_at(&desc, TEXLA_ERR_IO, __FILE__, __LINE__,
                        "texla_ctx_make(glsl_dir = \"/nonexistent\")", NEEDLES("/nonexistent"));

    const char *glsl = getenv("TEXLA_GLSL_DIR");
    if (!glsl || !*glsl) glsl = "glsl";
    char probe[1024];
    snprintf(probe, sizeof probe, "%s/fill.frag", glsl);
    if (!file_exists(probe)) {
        check_skip("glsl_dir with a broken fill.frag",
                   "glsl/ not found (run from the repository root or set TEXLA_GLSL_DIR)");
        return;
    }
    char tmp[] = "/tmp/texla-test-errors-XXXXXX";
    if (!mkdtemp(tmp)) {
        check_skip("glsl_dir with a broken fill.frag", "mkdtemp failed");
        return;
    }
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/glsl", tmp);
    int copied = copy_tree(glsl, dir);
    CHECK(copied, "copying %s to %s failed", glsl, dir);
    if (copied) {
        /* the unmodified copy works: the failure below is the syntax error's doing */
        desc.glsl_dir = dir;
        texla_ctx *good = NULL;
        cb_reset();
        texla_result r = texla_ctx_make(&desc, &good);
        CHECK(r == TEXLA_OK && good,
              "texla_ctx_make with an unmodified copy of glsl/ in %s: %s: %s", dir,
              texla_result_name(r), texla_error_message(NULL));
        texla_ctx_destroy(good);

        char path[1200];
        snprintf(path, sizeof path, "%s/fill.frag", dir);
        FILE *f = fopen(path, "rb");
        char orig[16384];
        size_t n = f ? fread(orig, 1, sizeof orig - 1, f) : 0;
        if (f) fclose(f);
        orig[n] = '\0';
        f = fopen(path, "wb");
        CHECK(f != NULL, "cannot write %s", path);
        if (f) {
            /* the syntax error sits on line 3 of the file */
            fprintf(f, "// fill.frag with a syntax error on line 3\n\nint broken = ;\n%s", orig);
            fclose(f);
            cb_reset();
            texla_ctx *bad = (texla_ctx *)&cb;
            r = texla_ctx_make(&desc, &bad);
            const char *msg = texla_error_message(NULL);
            CHECK(msg != NULL, "texla_error_message(NULL) is NULL");
            if (!msg) msg = "";
            CHECK(r == TEXLA_ERR_SHADER, "texla_ctx_make with a syntax error in fill.frag returned "
                  "%s, expected TEXLA_ERR_SHADER (message: \"%s\")", texla_result_name(r), msg);
            CHECK(bad == NULL, "texla_ctx_make failed but *out is not NULL");
            CHECK(strstr(msg, "fill.frag") != NULL, "the message does not name fill.frag: \"%s\"",
                  msg);
            /* the driver's log, with line numbers of the file itself (source 2, line 3):
             * Mesa writes "2:3(N): error: ...", NVIDIA "2(3) : error ...", others "2:3: ..." */
            CHECK(strstr(msg, "2:3(") || strstr(msg, "2(3)") || strstr(msg, "2:3:"),
                  "the message does not carry the driver's log for line 3 of fill.frag: \"%s\"",
                  msg);
            CHECK(cb.calls == 1 && cb.code == TEXLA_ERR_SHADER && !strcmp(cb.msg, msg),
                  "error callback: %d calls, last %s \"%s\"; expected one TEXLA_ERR_SHADER with "
                  "the message", cb.calls, texla_result_name(cb.code), cb.msg);
            if (r == TEXLA_OK && bad && bad != (texla_ctx *)&cb) texla_ctx_destroy(bad);
        }
    }
    remove_tree(tmp);
}

static void test_ctx_make(void) {
    texla_ctx_desc desc = {0};
    desc.error_cb = on_error;
    desc.error_user = &cb;
    desc.matmul_k = -1;
    expect_make_fail_at(&desc, TEXLA_ERR_ARGUMENT, __FILE__, __LINE__,
                        "texla_ctx_make(matmul_k = -1)", NEEDLES("matmul_k", "-1"));
    desc.matmul_k = INT_MIN;
    expect_make_fail_at(&desc, TEXLA_ERR_ARGUMENT, __FILE__, __LINE__,
                        "texla_ctx_make(matmul_k = INT_MIN)", NEEDLES("matmul_k"));
    desc.matmul_k = 0;
    desc.egl_device = -1;
    expect_make_fail_at(&desc, TEXLA_ERR_ARGUMENT, __FILE__, __LINE__,
                        "texla_ctx_make(egl_device = -1)", NEEDLES("egl_device"));
    desc.egl_device = 0;
    desc.gl_version_max = -1;
    expect_make_fail_at(&desc, TEXLA_ERR_ARGUMENT, __FILE__, __LINE__,
                        "texla_ctx_make(gl_version_max = -1)", NEEDLES("gl_version_max"));
    /* a cap below 3.3: nothing could be tried (it said "no core context 4.6..3.3") */
    desc.gl_version_max = 32;
    expect_make_fail_at(&desc, TEXLA_ERR_ARGUMENT, __FILE__, __LINE__,
                        "texla_ctx_make(gl_version_max = 32)", NEEDLES("gl_version_max", "3.3"));
    desc.gl_version_max = 0;
    /* an EGL device that does not exist */
    desc.egl_device = 1000;
    expect_make_fail_at(&desc, TEXLA_ERR_CONTEXT, __FILE__, __LINE__,
                        "texla_ctx_make(egl_device = 1000)", NEEDLES(NULL));
    desc.egl_device = 0;
    /* the same without a callback: the thread's message still explains */
    texla_ctx_desc plain = {0};
    plain.matmul_k = -7;
    expect_make_fail_at(&plain, TEXLA_ERR_ARGUMENT, __FILE__, __LINE__,
                        "texla_ctx_make(matmul_k = -7), no callback", NEEDLES("matmul_k", "-7"));
    /* out NULL */
    cb_reset();
    texla_result r = texla_ctx_make(&desc, NULL);
    expect_at(NULL, 1, r, TEXLA_ERR_ARGUMENT, __FILE__, __LINE__, "texla_ctx_make(&desc, NULL)",
              NEEDLES("out"));
    CHECK(texla_error_message(NULL) != NULL, "texla_error_message(NULL) is NULL");
}

/* ---- calls made from inside the error and warning callbacks ---- */

static struct {
    texla_ctx *ctx;
    texla_ctx *other;        /* another context, which a callback may use */
    texla_mat keep;          /* a live matrix the callback tries to destroy */
    texla_vec v;             /* a live vector the callback tries to read */
    texla_vec w;             /* a live vector the callback tries to write by a pass */
    int calls, warnings, refused, wrong, msg_changed;
    char first[256];         /* the first wrong result, described */
} re;

static void re_note(texla_result got, texla_result want, const char *what) {
    if (got == want) {
        if (want == TEXLA_ERR_CONTEXT) {
            re.refused++;
            /* the refusal names the callback */
            if (!strstr(texla_error_message(re.ctx), "callback")) {
                re.wrong++;
                if (!re.first[0])
                    snprintf(re.first, sizeof re.first, "%s refused without naming the callback: %s",
                             what, texla_error_message(re.ctx));
            }
        }
        return;
    }
    re.wrong++;
    if (!re.first[0])
        snprintf(re.first, sizeof re.first, "%s returned %s, expected %s", what,
                 texla_result_name(got), texla_result_name(want));
}

/* tries what could move or free the interrupted call's objects, or run GL in its middle */
static void on_reenter(texla_result code, const char *message, void *user) {
    (void)user;
    if (!re.ctx) return; /* texla_ctx_make's own, if any */
    re.calls++;
    if (code == TEXLA_OK) re.warnings++;
    char before[512];
    snprintf(before, sizeof before, "%s", message);
    texla_mat m[40];
    for (int i = 0; i < 40; i++) /* enough to grow the object table, if one were made */
        re_note(texla_mat_make(re.ctx, 2, 2, NULL, &m[i]), TEXLA_ERR_CONTEXT, "texla_mat_make");
    texla_mat_destroy(re.ctx, re.keep);
    float out[4];
    re_note(texla_vec_read(re.ctx, re.v, out), TEXLA_ERR_CONTEXT, "texla_vec_read");
    re_note(texla_ctx_end(re.ctx), TEXLA_ERR_CONTEXT, "texla_ctx_end");
    re_note(texla_ctx_begin(re.ctx), TEXLA_ERR_CONTEXT, "texla_ctx_begin");
    re_note(texla_ctx_check(re.ctx, "a caller's call"), TEXLA_ERR_CONTEXT, "texla_ctx_check");
    if (!strstr(texla_error_message(re.ctx), "a caller's call: ")) {
        re.wrong++;
        if (!re.first[0])
            snprintf(re.first, sizeof re.first, "texla_ctx_check's refusal does not name its "
                     "caller: %s", texla_error_message(re.ctx));
    }
    re_note(texla_vec_add(re.ctx, re.v, re.v, re.w), TEXLA_ERR_CONTEXT, "texla_vec_add");
    re_note(texla_ctx_finish(re.ctx), TEXLA_ERR_CONTEXT, "texla_ctx_finish");
    re_note(texla_ctx_set_matmul_k(re.ctx, 3), TEXLA_ERR_CONTEXT, "texla_ctx_set_matmul_k");
    if (re.other) { /* another context works, and leaves this one's call as it was */
        texla_vec o = {0};
        float ov[4] = {1, 2, 3, 4}, back[4] = {0};
        texla_result r = texla_vec_make(re.other, 4, ov, &o);
        if (!r) r = texla_vec_read(re.other, o, back);
        if (r || back[3] != 4) {
            re.wrong++;
            if (!re.first[0])
                snprintf(re.first, sizeof re.first, "another context from inside a callback: %s, "
                         "read %g", texla_result_name(r), back[3]);
        }
        texla_vec_destroy(re.other, o);
    }
    if (re.calls == 1) { /* a context made and destroyed inside: the interrupted call's stays */
        texla_ctx *t = NULL;
        if (texla_ctx_make(NULL, &t) == TEXLA_OK) texla_ctx_destroy(t);
    }
    texla_mat_info mi;
    re_note(texla_mat_info_get(re.ctx, re.keep, &mi), TEXLA_OK, "texla_mat_info_get");
    texla_ctx_destroy(re.ctx); /* does nothing here */
    if (strcmp(before, message)) re.msg_changed++;
}

/* A warning (a corrupt tuning cache, read during a sparse product) and an error (a bad size),
 * each with a callback that makes 40 matrices, destroys one, reads, ends a batch, checks the
 * context (texla_ctx_check, its refusal naming its caller), sets an option and destroys the
 * context: each of those is refused (TEXLA_ERR_CONTEXT) and does nothing, the product is
 * right, the failing call keeps its own message. Before: the makes moved the object table
 * under the product (a use after free; the CLI's ASan run caught it). */
static void test_callback_reentry(void) {
    char dir[] = "/tmp/texla-test-reentry-XXXXXX";
    if (!mkdtemp(dir)) {
        check_skip("calls from inside callbacks", "mkdtemp failed");
        return;
    }
    char path[256];
    snprintf(path, sizeof path, "%s/tune.txt", dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("not a texla tuning cache\n", f);
        fclose(f);
    }
    texla_ctx_desc desc = {0};
    desc.error_cb = on_reenter;
    desc.warning_cb = on_reenter;
    desc.tune_cache = path;
    memset(&re, 0, sizeof re);
    texla_ctx *ctx = suite_ctx(&desc);
    if (!ctx) {
        unlink(path);
        rmdir(dir);
        return;
    }
    re.ctx = ctx;
    texla_ctx_desc od = {0};
    re.other = suite_ctx(&od); /* NULL where a second context cannot be made */
    float xv[3] = {1, 2, 3};
    texla_vec y, x;
    texla_sparse s = {0};
    int ri[3] = {0, 4, 2}, ci[3] = {0, 2, 1};
    float vv[3] = {1, 2, 3};
    texla_result r = texla_mat_make(ctx, 2, 2, NULL, &re.keep);
    if (!r) r = texla_vec_make(ctx, 5, NULL, &y);
    if (!r) r = texla_vec_make(ctx, 3, xv, &x);
    if (!r) r = texla_vec_make(ctx, 3, NULL, &re.w);
    if (!r) r = texla_sparse_make_coo(ctx, y, x, 3, ri, ci, vv, &s);
    re.v = x;
    if (!r) r = texla_sparse_matvec(ctx, s, x, y);
    float got[5] = {0};
    if (!r) r = texla_vec_read(ctx, y, got);
    CHECK(r == TEXLA_OK, "a sparse product with a corrupt tuning cache and a re-entering warning "
          "callback: %s: %s", texla_result_name(r), texla_error_message(ctx));
    float want[5] = {1, 0, 6, 0, 6};
    int bad = 0;
    for (int i = 0; i < 5; i++) bad += got[i] != want[i];
    CHECK(!r && !bad, "y = A x with the callback re-entering: (%g %g %g %g %g), expected (1 0 6 0 6)",
          got[0], got[1], got[2], got[3], got[4]);
    CHECK(re.warnings >= 1, "no warning for the corrupt tuning cache %s (%d callbacks)", path,
          re.calls);
    CHECK(!strstr(texla_error_message(ctx), "callback"),
          "after a product whose warning callback made refused calls, the context's message is "
          "a refusal's: \"%s\"", texla_error_message(ctx));
    int warn_calls = re.calls;
    /* an error: the callback's calls refused, the failing call's message its own */
    texla_mat bad_m;
    r = texla_mat_make(ctx, -1, 2, NULL, &bad_m);
    const char *msg = texla_error_message(ctx);
    CHECK(r == TEXLA_ERR_ARGUMENT && re.calls == warn_calls + 1 && strstr(msg, "-1") &&
              !strstr(msg, "callback"),
          "texla_mat_make(-1 rows) with a re-entering error callback: %s, %d callback(s), "
          "message \"%s\"", texla_result_name(r), re.calls - warn_calls, msg);
    CHECK(re.wrong == 0, "from inside a callback: %d wrong result(s), the first: %s", re.wrong,
          re.first);
    CHECK(re.refused == re.calls * 47, "%d calls refused from inside %d callbacks, expected %d",
          re.refused, re.calls, re.calls * 47);
    CHECK(re.msg_changed == 0, "the message a callback was given changed under it (%d times)",
          re.msg_changed);
    /* no batch was begun or ended inside: none is open now */
    r = texla_ctx_end(ctx);
    CHECK(r == TEXLA_ERR_ARGUMENT, "texla_ctx_end after the callbacks: %s (a begin inside a "
          "callback left a batch open?)", texla_result_name(r));
    /* nothing was destroyed, made or ended: the matrix is alive, the context works */
    texla_mat_info mi;
    CHECK(texla_mat_info_get(ctx, re.keep, &mi) == TEXLA_OK,
          "the matrix a callback destroyed is gone: %s", texla_error_message(ctx));
    texla_stats st;
    r = texla_ctx_stats(ctx, &st);
    CHECK(r == TEXLA_OK, "texla_ctx_stats after the callbacks: %s", texla_error_message(ctx));
    re.ctx = NULL;
    texla_ctx_destroy(ctx);
    if (re.other) texla_ctx_destroy(re.other);
    re.other = NULL;
    unlink(path);
    rmdir(dir);
}

/* the solvers' workspaces, destroyed from inside an error callback: refused, so each keeps its
 * handles (before, each was zeroed with its objects alive: leaked until texla_ctx_destroy) */
static struct {
    texla_ctx *ctx;
    texla_cg_workspace cg;
    texla_lcp_workspace lcp;
    texla_lcp_op_workspace lop;
    int calls;
    char msg[3][512]; /* the context's message after each refused destroy */
} wsr;

static void on_error_destroy_ws(texla_result code, const char *message, void *user) {
    (void)code, (void)message, (void)user;
    if (!wsr.ctx) return;
    wsr.calls++;
    texla_cg_workspace_destroy(wsr.ctx, &wsr.cg);
    snprintf(wsr.msg[0], sizeof wsr.msg[0], "%s", texla_error_message(wsr.ctx));
    texla_lcp_workspace_destroy(wsr.ctx, &wsr.lcp);
    snprintf(wsr.msg[1], sizeof wsr.msg[1], "%s", texla_error_message(wsr.ctx));
    texla_lcp_op_workspace_destroy(wsr.ctx, &wsr.lop);
    snprintf(wsr.msg[2], sizeof wsr.msg[2], "%s", texla_error_message(wsr.ctx));
}

static void test_callback_workspaces(void) {
    texla_ctx_desc desc = {0};
    desc.error_cb = on_error_destroy_ws;
    memset(&wsr, 0, sizeof wsr);
    texla_ctx *ctx = suite_ctx(&desc);
    if (!ctx) return;
    texla_vec like = {0};
    texla_result r = texla_vec_make(ctx, 37, NULL, &like);
    if (!r) r = texla_cg_workspace_make(ctx, like, &wsr.cg);
    if (!r) r = texla_lcp_workspace_make(ctx, 37, &wsr.lcp);
    if (!r) r = texla_lcp_op_workspace_make(ctx, like, &wsr.lop);
    CHECK(r == TEXLA_OK, "the workspaces: %s: %s", texla_result_name(r), texla_error_message(ctx));
    if (r) {
        texla_ctx_destroy(ctx);
        return;
    }
    texla_stats st0, st1;
    texla_ctx_stats(ctx, &st0);
    wsr.ctx = ctx;
    texla_mat bad;
    r = texla_mat_make(ctx, -1, 2, NULL, &bad); /* the error whose callback destroys them */
    wsr.ctx = NULL;
    texla_ctx_stats(ctx, &st1);
    CHECK(r == TEXLA_ERR_ARGUMENT && wsr.calls == 1, "texla_mat_make(-1 rows): %s, %d callback(s)",
          texla_result_name(r), wsr.calls);
    int kept = 0, live = 0;
    texla_vec_info vi;
    texla_mat_info mi;
    for (int k = 0; k < 6; k++) {
        kept += wsr.cg.v[k].id != 0;
        live += wsr.cg.v[k].id && texla_vec_info_get(ctx, wsr.cg.v[k], &vi) == TEXLA_OK;
    }
    for (int k = 0; k < 5; k++) kept += wsr.cg.s[k].id != 0;
    for (int k = 0; k < 4; k++) {
        kept += wsr.lcp.m[k].id != 0;
        live += wsr.lcp.m[k].id && texla_mat_info_get(ctx, wsr.lcp.m[k], &mi) == TEXLA_OK;
    }
    for (int k = 0; k < 3; k++) {
        kept += wsr.lop.v[k].id != 0;
        live += wsr.lop.v[k].id && texla_vec_info_get(ctx, wsr.lop.v[k], &vi) == TEXLA_OK;
    }
    CHECK(kept == 18 && live == 13 && wsr.cg.n == 37 && wsr.lcp.n == 37 && wsr.lop.n == 37,
          "workspaces destroyed (refused) inside a callback: %d of 18 handles kept, %d of 13 "
          "vectors and matrices live, n %d %d %d (expected 37)", kept, live, wsr.cg.n, wsr.lcp.n,
          wsr.lop.n);
    CHECK(st1.textures == st0.textures, "textures alive %llu after the refused destroys, %llu "
          "before", (unsigned long long)st1.textures, (unsigned long long)st0.textures);
    /* each refusal names the destroy called, not the texla_ctx_begin it is built on */
    static const char *const ws_names[3] = {"texla_cg_workspace_destroy: ",
                                            "texla_lcp_workspace_destroy: ",
                                            "texla_lcp_op_workspace_destroy: "};
    for (int k = 0; k < 3; k++)
        CHECK(!strncmp(wsr.msg[k], ws_names[k], strlen(ws_names[k])) &&
                  strstr(wsr.msg[k], "callback") && !strstr(wsr.msg[k], "texla_ctx_begin"),
              "%sinside a callback: the message is \"%s\"", ws_names[k], wsr.msg[k]);
    /* outside the callback the destroys work and zero the workspaces */
    texla_vec v0 = wsr.cg.v[0];
    texla_cg_workspace_destroy(ctx, &wsr.cg);
    texla_lcp_workspace_destroy(ctx, &wsr.lcp);
    texla_lcp_op_workspace_destroy(ctx, &wsr.lop);
    texla_stats st2;
    texla_ctx_stats(ctx, &st2);
    kept = wsr.cg.n + wsr.lcp.n + wsr.lop.n;
    for (int k = 0; k < 6; k++) kept += wsr.cg.v[k].id != 0;
    for (int k = 0; k < 5; k++) kept += wsr.cg.s[k].id != 0;
    for (int k = 0; k < 4; k++) kept += wsr.lcp.m[k].id != 0;
    for (int k = 0; k < 3; k++) kept += wsr.lop.v[k].id != 0;
    CHECK(kept == 0 && st2.textures + 18 <= st0.textures &&
              texla_vec_info_get(ctx, v0, &vi) == TEXLA_ERR_HANDLE,
          "the workspaces destroyed outside a callback: %d fields left nonzero, textures %llu "
          "(were %llu)", kept, (unsigned long long)st2.textures,
          (unsigned long long)st0.textures);
    texla_vec_destroy(ctx, like);
    texla_ctx_destroy(ctx);
}

void suite_errors(void) {
    test_callback_reentry();
    test_callback_workspaces();
    test_ctx_make();
    test_glsl_dir();

    texla_ctx_desc desc = {0};
    desc.error_cb = on_error;
    desc.error_user = &cb;
    texla_ctx *ctx = suite_ctx(&desc);
    if (!ctx) return;
    test_ctx_calls(ctx);
    test_make_and_io(ctx);
    test_elementwise(ctx);
    test_product(ctx, texla_mat_matmul, "texla_mat_matmul", 0, 0);
    test_product(ctx, texla_mat_matmul_tn, "texla_mat_matmul_tn", 1, 0);
    test_product(ctx, texla_mat_matmul_nt, "texla_mat_matmul_nt", 0, 1);
    test_diag(ctx);
    test_dot(ctx);
    test_solver_aliases(ctx);
    test_limits(ctx);
    texla_ctx_destroy(ctx);
}
