/* optest.c - the library's operation table as test cases (see optest.h). The rows are made from
 * src/base/optable.h with the same X-macros the library uses, so a new operation is tested as
 * soon as its table line, header declaration and ref_NAME (tests/ref_ops.c) exist. */
#include "optest.h"

#include "../src/base/optable.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SIG_INFO_c 0, 1, 0
#define SIG_INFO_f 0, 0, 1
#define SIG_INFO_A 1, 0, 0
#define SIG_INFO_AB 2, 0, 0
#define SIG_INFO_Ac 1, 1, 0
#define SIG_INFO_AcB 2, 1, 0
#define SIG_INFO_cB 1, 1, 0
#define SIG_INFO_ABDE 4, 0, 0
#define SIG_INFO_Af 1, 0, 1
#define SIG_INFO_Aff 1, 0, 2
#define INPLACE_NONE 0
#define INPLACE_ADD 1
#define INPLACE_SCALE 1
#define EXPAND(...) __VA_ARGS__

#define DECL_REF(name, sg, prog, bl, k0, k1, doc)                                              \
    double ref_##name(const double *s, const double *k, double old, double *mag);
TEXLA__EW_OPS(DECL_REF)

#define ROW(name, sg, prog, bl, k0, k1, doc)                                                   \
    {#name, doc, OT_##sg, EXPAND(SIG_INFO_##sg), INPLACE_##bl, ref_##name,                      \
     (void (*)(void))texla_mat_##name, (void (*)(void))texla_vec_##name},
const ot_row ot_rows[] = {TEXLA__EW_OPS(ROW)};
const int ot_nrows = (int)(sizeof ot_rows / sizeof ot_rows[0]);

#define FOLD_SUM 0
#define FOLD_MAX 1
#define FOLD_MIN 2
#define MAP_NONE 0
#define MAP_MUL 1
#define MAP_SQUARE 2
#define MAP_ABS 3
#define TWO_A 0
#define TWO_AB 1
#define RED(name, sg, fold, map, doc)                                                          \
    {#name, doc, TWO_##sg, FOLD_##fold, MAP_##map, (void (*)(void))texla_mat_##name,           \
     (void (*)(void))texla_vec_##name},
const ot_red ot_reds[] = {TEXLA__REDUCE_OPS(RED)};
const int ot_nreds = (int)(sizeof ot_reds / sizeof ot_reds[0]);

#define CALL_T(T)                                                                               \
    do {                                                                                        \
        typedef texla_##T H;                                                                    \
        H d = {dst};                                                                            \
        switch (r->sig) {                                                                       \
        case OT_c: return ((texla_result(*)(texla_ctx *, texla_coef, H))fn)(ctx, c, d);         \
        case OT_f: return ((texla_result(*)(texla_ctx *, float, H))fn)(ctx, f[0], d);           \
        case OT_A: return ((texla_result(*)(texla_ctx *, H, H))fn)(ctx, (H){src[0]}, d);        \
        case OT_AB:                                                                             \
            return ((texla_result(*)(texla_ctx *, H, H, H))fn)(ctx, (H){src[0]}, (H){src[1]}, d); \
        case OT_Ac:                                                                             \
            return ((texla_result(*)(texla_ctx *, H, texla_coef, H))fn)(ctx, (H){src[0]}, c, d); \
        case OT_AcB:                                                                            \
            return ((texla_result(*)(texla_ctx *, H, texla_coef, H, H))fn)(ctx, (H){src[0]}, c, \
                                                                          (H){src[1]}, d);      \
        case OT_cB:                                                                             \
            return ((texla_result(*)(texla_ctx *, texla_coef, H, H))fn)(ctx, c, (H){src[0]}, d); \
        case OT_ABDE:                                                                           \
            return ((texla_result(*)(texla_ctx *, H, H, H, H, H))fn)(                           \
                ctx, (H){src[0]}, (H){src[1]}, (H){src[2]}, (H){src[3]}, d);                    \
        case OT_Af:                                                                             \
            return ((texla_result(*)(texla_ctx *, H, float, H))fn)(ctx, (H){src[0]}, f[0], d);  \
        case OT_Aff:                                                                            \
            return ((texla_result(*)(texla_ctx *, H, float, float, H))fn)(ctx, (H){src[0]}, f[0], \
                                                                         f[1], d);              \
        }                                                                                       \
    } while (0)

texla_result ot_call(texla_ctx *ctx, const ot_row *r, ot_type t, const uint64_t *src,
                     uint64_t dst, texla_coef c, const float *f) {
    void (*fn)(void) = t == OT_MAT ? r->mat_fn : r->vec_fn;
    if (t == OT_MAT) CALL_T(mat);
    else CALL_T(vec);
    return TEXLA_ERR_ARGUMENT;
}

texla_result ot_reduce(texla_ctx *ctx, const ot_red *r, ot_type t, uint64_t a, uint64_t b,
                       texla_scalar dst) {
    void (*fn)(void) = t == OT_MAT ? r->mat_fn : r->vec_fn;
    if (t == OT_MAT) {
        if (r->two)
            return ((texla_result(*)(texla_ctx *, texla_mat, texla_mat, texla_scalar))fn)(
                ctx, (texla_mat){a}, (texla_mat){b}, dst);
        return ((texla_result(*)(texla_ctx *, texla_mat, texla_scalar))fn)(ctx, (texla_mat){a},
                                                                           dst);
    }
    if (r->two)
        return ((texla_result(*)(texla_ctx *, texla_vec, texla_vec, texla_scalar))fn)(
            ctx, (texla_vec){a}, (texla_vec){b}, dst);
    return ((texla_result(*)(texla_ctx *, texla_vec, texla_scalar))fn)(ctx, (texla_vec){a}, dst);
}

double ot_reduce_ref(const ot_red *r, const float *a, const float *b, size_t n, double *bound) {
    double acc = r->fold == 1 ? -INFINITY : r->fold == 2 ? INFINITY : 0.0, mag = 0;
    for (size_t i = 0; i < n; i++) {
        double v = a[i];
        if (r->map == 1) v *= b[i];
        else if (r->map == 2) v *= v;
        else if (r->map == 3) v = fabs(v);
        if (r->fold == 0) acc += v, mag += fabs(v);
        else if (r->fold == 1) acc = v > acc || isnan(v) ? v : acc; /* NaN wins (numpy's rule) */
        else acc = v < acc || isnan(v) ? v : acc;
    }
    /* sums: the float products (one rounding each) and any summation order: gamma_{n+1} */
    *bound = r->fold == 0 ? 1.01 * check_gamma((double)n + 1) * mag : 0.0;
    return acc;
}

size_t ot_elems(ot_type t, ot_shape sh) {
    if (t == OT_MAT) return (size_t)sh.rows * (size_t)sh.cols;
    return sh.grid ? (size_t)sh.nx * (size_t)sh.ny : (size_t)sh.rows;
}

static const char *type_name(ot_type t) { return t == OT_MAT ? "mat" : "vec"; }

static uint64_t make(texla_ctx *ctx, ot_type t, ot_shape sh, const float *data,
                     const char *what) {
    texla_result r;
    uint64_t id = 0;
    if (t == OT_MAT) {
        texla_mat m = {0};
        r = texla_mat_make(ctx, sh.rows, sh.cols, data, &m);
        id = m.id;
    } else {
        texla_vec v = {0};
        r = sh.grid ? texla_vec_make_grid(ctx, sh.nx, sh.ny, data, &v)
                    : texla_vec_make(ctx, sh.rows, data, &v);
        id = v.id;
    }
    CHECK_OK(ctx, r, what);
    return r ? 0 : id;
}

static void destroy(texla_ctx *ctx, ot_type t, uint64_t id) {
    if (t == OT_MAT) texla_mat_destroy(ctx, (texla_mat){id});
    else texla_vec_destroy(ctx, (texla_vec){id});
}

/* reads id's elements (n) and checks its padding lanes are zero; 0 when it could */
static int read_back(texla_ctx *ctx, ot_type t, uint64_t id, float *out, const char *what,
                     int *pad_bad) {
    *pad_bad = 0;
    if (t == OT_MAT) {
        texla_mat m = {id};
        texla_mat_info in;
        if (texla_mat_info_get(ctx, m, &in) || texla_mat_read(ctx, m, out)) return 0;
        float *raw = check_alloc((size_t)in.tex_width * in.tex_height * 4, sizeof *raw);
        if (texla_mat_read_raw(ctx, m, raw)) return free(raw), 0;
        for (int y = 0; y < in.tex_height; y++)
            for (int x = 0; x < in.tex_width; x++)
                for (int c = 0; c < 4; c++)
                    if (4 * y + c >= in.rows && raw[((size_t)y * in.tex_width + x) * 4 + c] != 0)
                        (*pad_bad)++;
        free(raw);
        return 1;
    }
    texla_vec v = {id};
    texla_vec_info in;
    if (texla_vec_info_get(ctx, v, &in) || texla_vec_read(ctx, v, out)) return 0;
    float *raw = check_alloc((size_t)in.tex_width * in.tex_height * 4, sizeof *raw);
    if (texla_vec_read_raw(ctx, v, raw)) return free(raw), 0;
    for (int cy = 0; cy < in.gy; cy++)
        for (int cx = 0; cx < in.gx; cx++) {
            long long k = (long long)cy * in.nx + cx;
            int live = cx < in.nx && k < in.n;
            size_t i = ((size_t)(cy / 2) * (size_t)(in.gx / 2) + (size_t)(cx / 2)) * 4 +
                       (size_t)((cx & 1) + 2 * (cy & 1));
            if (!live && raw[i] != 0) (*pad_bad)++;
        }
    (void)what;
    free(raw);
    return 1;
}

int ot_case(texla_ctx *ctx, const ot_row *r, ot_type t, ot_shape sh, int gpu_coef,
            const char *label, float *out, size_t *n_out) {
    int f0 = check_failed;
    size_t n = ot_elems(t, sh);
    char what[200];
    snprintf(what, sizeof what, "%s texla_%s_%s (%s) %s%s", label, type_name(t), r->name,
             r->formula, t == OT_MAT ? "" : sh.grid ? "grid " : "plain ", "");
    size_t wl = strlen(what);
    if (t == OT_MAT) snprintf(what + wl, sizeof what - wl, "%d x %d", sh.rows, sh.cols);
    else if (sh.grid) snprintf(what + wl, sizeof what - wl, "%d x %d", sh.nx, sh.ny);
    else snprintf(what + wl, sizeof what - wl, "n=%d", sh.rows);
    if (gpu_coef) strncat(what, " (GPU scalar coefficient)", sizeof what - strlen(what) - 1);
    float *in[5];
    uint64_t ids[5] = {0};
    for (int i = 0; i < 5; i++) in[i] = check_rnd(n);
    /* coefficients: random; GPU ones as value * scalar, multiplied in float like the shader */
    float kv = (float)(2 * check_rand()), kw = (float)(0.5 + check_rand());
    float fl[2] = {(float)check_rand(), (float)check_rand()};
    if (fl[0] > fl[1]) {
        float tmp = fl[0];
        fl[0] = fl[1], fl[1] = tmp;
    }
    texla_scalar sc = {0};
    texla_coef coef = texla_host(kv);
    double keff = kv;
    if (gpu_coef && r->ncoef) {
        CHECK_OK(ctx, texla_scalar_make(ctx, kw, &sc), what);
        coef = texla_gpu(kv, sc);
        keff = (double)(kv * kw);
    }
    int ok = 1;
    for (int i = 0; i < r->nsrc && ok; i++) ok = (ids[i] = make(ctx, t, sh, in[i], what)) != 0;
    uint64_t dst = ok ? make(ctx, t, sh, in[4], what) : 0; /* dst starts random (poisoned) */
    float *got = check_alloc(n, sizeof *got);
    if (dst) {
        texla_result res = ot_call(ctx, r, t, ids, dst, coef, fl);
        int pad_bad = 0;
        if (CHECK_OK(ctx, res, what) && read_back(ctx, t, dst, got, what, &pad_bad)) {
            double k[2] = {r->ncoef ? keff : fl[0], fl[1]};
            size_t bad = 0, first = 0;
            double worst = 0, first_ref = 0;
            for (size_t e = 0; e < n; e++) {
                double s[4], mag = 0;
                for (int i = 0; i < 4; i++) s[i] = in[i][e];
                double ref = r->ref(s, k, in[4][e], &mag);
                double err = fabs((double)got[e] - ref);
                /* one or two roundings of float32 (FMA contraction allowed), GLSL division
                 * within 3 ulp: 8u of the terms' magnitude; exact operations exactly */
                double bound = mag > 0 ? 8 * CHECK_U * mag + 1e-37 : 0.0;
                if (mag == 0 && (float)ref == got[e]) err = 0;
                if (!(err <= bound)) {
                    if (!bad) first = e, first_ref = ref;
                    bad++;
                }
                if (err > worst && bound > 0) worst = err / bound;
            }
            CHECK(bad == 0, "%s: %zu of %zu elements off the float64 reference (first [%zu] = "
                  "%.9g, expected %.17g)", what, bad, n, first, (double)got[first], first_ref);
            (void)worst;
            CHECK(pad_bad == 0, "%s: %d padding lanes are not zero", what, pad_bad);
        }
    }
    if (out) memcpy(out, got, n * sizeof *got);
    if (n_out) *n_out = n;
    free(got);
    for (int i = 0; i < 5; i++) free(in[i]);
    for (int i = 0; i < r->nsrc; i++)
        if (ids[i]) destroy(ctx, t, ids[i]);
    if (dst) destroy(ctx, t, dst);
    texla_scalar_destroy(ctx, sc);
    return check_failed - f0;
}

int ot_red_case(texla_ctx *ctx, const ot_red *r, ot_type t, ot_shape sh, const char *label,
                float *out) {
    int f0 = check_failed;
    size_t n = ot_elems(t, sh);
    char what[200];
    snprintf(what, sizeof what, "%s texla_%s_%s (%s) %zu elements", label, type_name(t), r->name,
             r->formula, n);
    float *a = check_rnd(n), *b = check_rnd(n);
    uint64_t ia = make(ctx, t, sh, a, what), ib = r->two ? make(ctx, t, sh, b, what) : 0;
    texla_scalar s = {0};
    CHECK_OK(ctx, texla_scalar_make(ctx, 12345.0f, &s), what);
    float got = NAN;
    if (ia && (!r->two || ib) && s.id) {
        texla_result res = ot_reduce(ctx, r, t, ia, ib, s);
        if (CHECK_OK(ctx, res, what) && CHECK_OK(ctx, texla_scalar_read(ctx, s, &got), what)) {
            double bound, ref = ot_reduce_ref(r, a, r->two ? b : NULL, n, &bound);
            double err = fabs((double)got - ref);
            CHECK(err <= bound, "%s: %.9g, expected %.17g (error %.3g > bound %.3g)", what,
                  (double)got, ref, err, bound);
        }
    }
    if (out) *out = got;
    if (ia) destroy(ctx, t, ia);
    if (ib) destroy(ctx, t, ib);
    texla_scalar_destroy(ctx, s);
    free(a), free(b);
    return check_failed - f0;
}
