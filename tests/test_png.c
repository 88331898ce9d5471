/* test_png.c - PNG dumps and reading. Every file texla writes is read back here with libpng
 * directly (samples as stored, text chunks) and checked pixel by pixel where the answer is
 * known without texla's colour tables:
 * - orientation with an asymmetric matrix (maximum top-left, minimum bottom-right, an 'F'),
 *   so that a flip or a transpose fails; the upscale as uniform blocks;
 * - the raw views: padding colour at exactly the padding lanes (dense 4x1, plain and odd-width
 *   grid vectors, banded diagonals, scalar, sparse vertex slots);
 * - NaN, +Inf, -Inf colours at the planted positions, and alpha 0 there in the grey maps;
 * - no map produces a reserved colour (ramps over the whole range);
 * - gray16 and gray round trips through texla_png_read within the quantisation;
 * - the text chunks; host textures (logical and raw); sparse patterns, duplicates, binning;
 * - texla_png_read of grey, grey+alpha, RGB, RGBA, palette and 1-bit files;
 * - atomic writes (missing folder, a folder as PATH, a write that fails part-way under
 *   RLIMIT_FSIZE: no file, no temporary, an existing file untouched) and exact error codes.
 * Files live in a mkdtemp folder under /tmp, removed at the end. */
#include "suites.h"

#include <math.h>
#include <png.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];
static texla_ctx *ctx;

static const char *at(const char *name) { return check_path(dir, name); }

static const char *msg(void) { return texla_error_message(ctx); }

/* ---- reading what texla wrote, as stored ---- */

typedef struct img {
    int w, h, ch, depth; /* ch: 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA */
    uint16_t *px;        /* w * h * ch samples */
    int ntext;
    char key[16][80], text[16][256];
} img;

typedef struct loadjob {
    png_structp png;
    png_infop info;
    FILE *f;
    img *im;
    uint8_t *buf;
    png_bytep *rows;
} loadjob;

static int load_body(loadjob *j) {
    if (setjmp(png_jmpbuf(j->png))) return 0;
    png_init_io(j->png, j->f);
    png_read_info(j->png, j->info);
    img *im = j->im;
    im->w = (int)png_get_image_width(j->png, j->info);
    im->h = (int)png_get_image_height(j->png, j->info);
    im->ch = png_get_channels(j->png, j->info);
    im->depth = png_get_bit_depth(j->png, j->info);
    size_t rb = png_get_rowbytes(j->png, j->info);
    j->buf = malloc(rb * (size_t)im->h);
    j->rows = malloc(sizeof *j->rows * (size_t)im->h);
    im->px = malloc(sizeof *im->px * (size_t)im->w * (size_t)im->h * (size_t)im->ch);
    if (!j->buf || !j->rows || !im->px) return 0;
    for (int y = 0; y < im->h; y++) j->rows[y] = j->buf + rb * (size_t)y;
    png_read_image(j->png, j->rows);
    png_read_end(j->png, j->info);
    png_textp t;
    int nt = 0;
    png_get_text(j->png, j->info, &t, &nt);
    for (int i = 0; i < nt && im->ntext < 16; i++, im->ntext++) {
        snprintf(im->key[im->ntext], sizeof im->key[0], "%s", t[i].key);
        snprintf(im->text[im->ntext], sizeof im->text[0], "%s", t[i].text);
    }
    size_t n = (size_t)im->w * (size_t)im->ch;
    for (int y = 0; y < im->h; y++)
        for (size_t i = 0; i < n; i++)
            im->px[(size_t)y * n + i] = im->depth == 16
                                            ? (uint16_t)(j->rows[y][2 * i] << 8 | j->rows[y][2 * i + 1])
                                            : j->rows[y][i];
    return 1;
}

/* 1: read (8 or 16 bits per sample) */
static int load(const char *path, img *im) {
    memset(im, 0, sizeof *im);
    loadjob j = {0};
    j.im = im;
    j.f = fopen(path, "rb");
    if (!j.f) return 0;
    j.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    j.info = j.png ? png_create_info_struct(j.png) : NULL;
    int ok = j.png && j.info && load_body(&j);
    png_destroy_read_struct(j.png ? &j.png : NULL, j.info ? &j.info : NULL, NULL);
    fclose(j.f);
    free(j.buf), free(j.rows);
    if (!ok) free(im->px), im->px = NULL;
    return ok && (im->depth == 8 || im->depth == 16);
}

static int S(const img *im, int x, int y, int c) {
    return im->px[((size_t)y * (size_t)im->w + (size_t)x) * (size_t)im->ch + (size_t)c];
}

static int is_rgb(const img *im, int x, int y, const int c[3]) {
    return im->ch == 3 && S(im, x, y, 0) == c[0] && S(im, x, y, 1) == c[1] && S(im, x, y, 2) == c[2];
}

static const char *text_of(const img *im, const char *key) {
    for (int i = 0; i < im->ntext; i++)
        if (!strcmp(im->key[i], key)) return im->text[i];
    return NULL;
}

static const int NAN_C[3] = {255, 0, 255}, PINF_C[3] = {0, 255, 0}, NINF_C[3] = {0, 255, 255},
                 PAD_C[3] = {255, 128, 0}, BACK_C[3] = {32, 32, 32};
static const int VIR_LO[3] = {68, 1, 84}, VIR_HI[3] = {253, 231, 37}, DIV_LO[3] = {5, 48, 97},
                 DIV_MID[3] = {247, 247, 247}, DIV_HI[3] = {103, 0, 31};

static int special(const img *im, int x, int y) {
    return is_rgb(im, x, y, NAN_C) || is_rgb(im, x, y, PINF_C) || is_rgb(im, x, y, NINF_C) ||
           is_rgb(im, x, y, PAD_C) || is_rgb(im, x, y, BACK_C);
}

/* the text chunks every dump has; NULL: not compared */
static void texts(const char *what, const img *im, const char *range, const char *view,
                  const char *shape, const char *layout, const char *map) {
    const char *keys[] = {"texla:range", "texla:view", "texla:shape", "texla:layout", "texla:map"};
    const char *want[] = {range, view, shape, layout, map};
    for (int i = 0; i < 5; i++) {
        const char *t = text_of(im, keys[i]);
        CHECK(t != NULL, "%s: no %s chunk", what, keys[i]);
        if (t && want[i])
            CHECK(!strcmp(t, want[i]), "%s: %s is '%s', expected '%s'", what, keys[i], t, want[i]);
    }
}

static texla_png_desc D(texla_png_view view, texla_png_map map, int scale) {
    texla_png_desc d = {.view = view, .map = map, .scale = scale};
    return d;
}

static texla_png_desc DR(texla_png_view view, texla_png_map map, float lo, float hi) {
    texla_png_desc d = {.view = view, .map = map, .fixed_range = 1, .lo = lo, .hi = hi, .scale = 1};
    return d;
}

/* writes with texla's result checked, then loads */
#define WRITE(call, path, im)                                                                    \
    do {                                                                                         \
        texla_result r_ = (call);                                                                \
        CHECK(r_ == TEXLA_OK, "%s: %s: %s", #call, texla_result_name(r_), msg());               \
        CHECK(load(path, im), "cannot read back %s", path);                                      \
    } while (0)

/* texla_png_read of path into a fresh host array (rows x cols); NULL on failure */
static float *read_back(const char *path, int *rows, int *cols) {
    texla_mat m = {0};
    texla_result r = texla_png_read(ctx, path, &m);
    CHECK(r == TEXLA_OK, "texla_png_read %s: %s: %s", path, texla_result_name(r), msg());
    if (r) return NULL;
    texla_mat_info mi;
    texla_mat_info_get(ctx, m, &mi);
    float *out = malloc(sizeof *out * (size_t)mi.rows * (size_t)mi.cols);
    if (out) texla_mat_read(ctx, m, out);
    *rows = mi.rows, *cols = mi.cols;
    texla_mat_destroy(ctx, m);
    return out;
}

/* ---- dense matrices: orientation, views, upscale, host textures ---- */

enum { R = 9, C = 6 };

/* max 10 top-left, min 0 bottom-right, an 'F' of 6 over a gradient 1..4 */
static float fval(int i, int j) {
    if (i == 0 && j == 0) return 10.0f;
    if (i == R - 1 && j == C - 1) return 0.0f;
    if ((j == 1 && i >= 1 && i <= 7) || (i == 1 && j >= 1 && j <= 4) || (i == 4 && j >= 1 && j <= 3))
        return 6.0f;
    return 1.0f + 3.0f * (float)(i * C + j) / (R * C);
}

static void test_dense(void) {
    float a[R * C];
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) a[i * C + j] = fval(i, j);
    texla_mat m;
    CHECK(texla_mat_make(ctx, R, C, a, &m) == TEXLA_OK, "%s", msg());
    img g, v, v3, rv, rg;
    texla_png_desc d;

    d = D(TEXLA_PNG_LOGICAL, TEXLA_MAP_GRAY, 0);
    WRITE(texla_png_mat(ctx, m, at("f_gray.png"), &d), at("f_gray.png"), &g);
    CHECK(g.w == C && g.h == R && g.ch == 1 && g.depth == 8, "gray: %d x %d, %d channels, %d bits",
          g.w, g.h, g.ch, g.depth);
    int bad = 0;
    for (int i = 0; i < R && g.px; i++)
        for (int j = 0; j < C; j++) {
            int want = (int)(fval(i, j) / 10.0 * 255 + 0.5);
            bad += abs(S(&g, j, i, 0) - want) > 1;
        }
    CHECK(bad == 0, "gray: %d pixels differ from the matrix (row 0 at the top)", bad);
    CHECK(g.px && S(&g, 0, 0, 0) == 255 && S(&g, C - 1, R - 1, 0) == 0,
          "gray: top-left %d (want 255), bottom-right %d (want 0)", g.px ? S(&g, 0, 0, 0) : -1,
          g.px ? S(&g, C - 1, R - 1, 0) : -1);
    texts("gray", &g, "0 10", "logical", "9 x 6", "dense 4x1", "gray");

    d = D(TEXLA_PNG_LOGICAL, TEXLA_MAP_AUTO, 1);
    WRITE(texla_png_mat(ctx, m, at("f_vir.png"), &d), at("f_vir.png"), &v);
    texts("auto", &v, "0 10", "logical", NULL, NULL, "viridis");
    d = D(TEXLA_PNG_LOGICAL, TEXLA_MAP_VIRIDIS, 3);
    WRITE(texla_png_mat(ctx, m, at("f_vir3.png"), &d), at("f_vir3.png"), &v3);
    CHECK(v3.w == 3 * C && v3.h == 3 * R && v3.ch == 3, "scale 3: %d x %d x %d", v3.w, v3.h, v3.ch);
    if (v.px && v3.px && v.w == C && v.h == R && v3.w == 3 * C && v3.h == 3 * R) {
        CHECK(is_rgb(&v, 0, 0, VIR_HI) && is_rgb(&v, C - 1, R - 1, VIR_LO),
              "viridis: top-left (%d %d %d) must be the top colour, bottom-right the bottom one",
              S(&v, 0, 0, 0), S(&v, 0, 0, 1), S(&v, 0, 0, 2));
        int blocks = 0, fdiff = 0;
        for (int y = 0; y < 3 * R; y++)
            for (int x = 0; x < 3 * C; x++)
                for (int c = 0; c < 3; c++) blocks += S(&v3, x, y, c) != S(&v, x / 3, y / 3, c);
        /* the F: one colour, different from every other cell's */
        for (int i = 0; i < R; i++)
            for (int j = 0; j < C; j++) {
                int isf = fval(i, j) == 6.0f, same = 1;
                for (int c = 0; c < 3; c++) same &= S(&v, j, i, c) == S(&v, 1, 1, c);
                fdiff += isf != same;
            }
        CHECK(blocks == 0, "scale 3: %d samples differ from the 3x3 block of their element", blocks);
        CHECK(fdiff == 0, "viridis: %d cells break the F pattern", fdiff);
    }

    /* raw: 4x1 texels as columns of 4 pixels; rows 9..11 are padding lanes */
    d = D(TEXLA_PNG_RAW, TEXLA_MAP_VIRIDIS, 1);
    WRITE(texla_png_mat(ctx, m, at("f_raw.png"), &d), at("f_raw.png"), &rv);
    CHECK(rv.w == C && rv.h == 12 && rv.ch == 3, "raw: %d x %d x %d, expected 6 x 12 RGB", rv.w,
          rv.h, rv.ch);
    texts("raw", &rv, "0 10", "raw", "9 x 6", "dense 4x1", "viridis");
    if (rv.px && v.px && rv.w == C && rv.h == 12 && v.w == C) {
        int wrong = 0;
        for (int y = 0; y < 12; y++)
            for (int x = 0; x < C; x++) {
                if (y >= R) wrong += !is_rgb(&rv, x, y, PAD_C);
                else
                    for (int c = 0; c < 3; c++) wrong += S(&rv, x, y, c) != S(&v, x, y, c);
            }
        CHECK(wrong == 0, "raw: %d pixels are not the logical image above padding rows 9..11",
              wrong);
    }
    d = D(TEXLA_PNG_RAW, TEXLA_MAP_GRAY, 1);
    WRITE(texla_png_mat(ctx, m, at("f_rawg.png"), &d), at("f_rawg.png"), &rg);
    CHECK(rg.ch == 2 && rg.h == 12, "raw gray: %d channels (want grey+alpha), %d rows", rg.ch, rg.h);
    if (rg.px && g.px && rg.ch == 2 && rg.h == 12 && rg.w == C) {
        int wrong = 0;
        for (int y = 0; y < 12; y++)
            for (int x = 0; x < C; x++)
                wrong += y >= R ? S(&rg, x, y, 1) != 0
                                : S(&rg, x, y, 1) != 255 || S(&rg, x, y, 0) != S(&g, x, y, 0);
        CHECK(wrong == 0, "raw gray: %d pixels wrong (alpha 0 exactly on padding)", wrong);
        CHECK(text_of(&rg, "texla:alpha") != NULL, "raw gray: no texla:alpha chunk");
    }
    free(g.px), free(v.px), free(v3.px), free(rv.px), free(rg.px);

    /* the same matrix as a host texture: 6 x 3 texels */
    texla_mat_info mi;
    texla_mat_info_get(ctx, m, &mi);
    img t, tr;
    d = DR(TEXLA_PNG_LOGICAL, TEXLA_MAP_GRAY16, 0.0f, 10.0f);
    WRITE(texla_png_texture(ctx, mi.texture, mi.tex_width, mi.tex_height, at("t.png"), &d),
          at("t.png"), &t);
    CHECK(t.w == 6 && t.h == 3 && t.ch == 1 && t.depth == 16, "texture: %d x %d x %d, %d bits",
          t.w, t.h, t.ch, t.depth);
    texts("texture", &t, "0 10", "logical", "texture 6 x 3", "texture channel 0", "gray16");
    d = DR(TEXLA_PNG_RAW, TEXLA_MAP_GRAY16, 0.0f, 10.0f);
    WRITE(texla_png_texture(ctx, mi.texture, mi.tex_width, mi.tex_height, at("tr.png"), &d),
          at("tr.png"), &tr);
    CHECK(tr.w == 24 && tr.h == 3, "texture raw: %d x %d, expected 24 x 3", tr.w, tr.h);
    int rows, cols;
    float *b = read_back(at("t.png"), &rows, &cols), *br = read_back(at("tr.png"), &rows, &cols);
    double tol = 10.0 / 65535 / 2 * (1 + 1e-6) + 1e-6;
    if (b && br && rows == 3 && cols == 24) {
        double worst = 0, worst_r = 0;
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 6; x++) {
                worst = fmax(worst, fabs(b[y * 6 + x] - fval(4 * y, x)));
                for (int c = 0; c < 4; c++) {
                    int i = 4 * y + c;
                    worst_r = fmax(worst_r, fabs(br[y * 24 + c * 6 + x] - (i < R ? fval(i, x) : 0)));
                }
            }
        CHECK(worst <= tol, "texture: channel 0 off by %g (tolerance %g)", worst, tol);
        CHECK(worst_r <= tol, "texture raw: planes off by %g (tolerance %g)", worst_r, tol);
    } else {
        CHECK(0, "texture raw read back as %d x %d", rows, cols);
    }
    free(b), free(br), free(t.px), free(tr.px);

    texla_result r = texla_png_texture(ctx, mi.texture, 5, 3, at("x.png"), NULL);
    CHECK(r == TEXLA_ERR_ARGUMENT && strstr(msg(), "6 x 3"), "texture of the wrong size: %s: %s",
          texla_result_name(r), msg());
    r = texla_png_texture(ctx, 0, 6, 3, at("x.png"), NULL);
    CHECK(r == TEXLA_ERR_ARGUMENT, "texture 0: %s", texla_result_name(r));
    r = texla_png_texture(ctx, 987654u, 6, 3, at("x.png"), NULL);
    CHECK(r == TEXLA_ERR_ARGUMENT, "not a texture: %s: %s", texla_result_name(r), msg());
    r = texla_png_texture(ctx, mi.texture, 6, 0, at("x.png"), NULL);
    CHECK(r == TEXLA_ERR_ARGUMENT, "texture height 0: %s", texla_result_name(r));
    texla_info info;
    texla_ctx_info(ctx, &info);
    r = texla_png_texture(ctx, mi.texture, info.max_texture_size + 1, 3, at("x.png"), NULL);
    CHECK(r == TEXLA_ERR_LIMIT, "texture wider than the GL allows: %s", texla_result_name(r));
    CHECK(access(at("x.png"), F_OK) != 0, "a failed dump left x.png");
    texla_mat_destroy(ctx, m);
}

/* ---- non-finite values ---- */

static void test_nonfinite(void) {
    float a[12] = {-1, NAN, 0.5f, 2, 0, 1, INFINITY, 1.5f, -0.5f, 0.25f, 0.75f, -INFINITY};
    texla_mat m;
    CHECK(texla_mat_make(ctx, 4, 3, a, &m) == TEXLA_OK, "%s", msg());
    img v, g, w;
    texla_png_desc d = D(TEXLA_PNG_LOGICAL, TEXLA_MAP_AUTO, 2);
    WRITE(texla_png_mat(ctx, m, at("nf.png"), &d), at("nf.png"), &v);
    texts("non-finite", &v, "-2 2", "logical", "4 x 3", "dense 4x1", "diverging");
    const char *nf = text_of(&v, "texla:nonfinite");
    CHECK(nf && !strcmp(nf, "nan 1 +inf 1 -inf 1"), "texla:nonfinite is '%s'", nf ? nf : "(none)");
    if (v.px && v.w == 6 && v.h == 8) {
        CHECK(is_rgb(&v, 2, 0, NAN_C) && is_rgb(&v, 3, 1, NAN_C), "NaN at (0, 1) not magenta");
        CHECK(is_rgb(&v, 0, 4, PINF_C) && is_rgb(&v, 1, 5, PINF_C), "+Inf at (2, 0) not green");
        CHECK(is_rgb(&v, 4, 6, NINF_C) && is_rgb(&v, 5, 7, NINF_C), "-Inf at (3, 2) not cyan");
        CHECK(is_rgb(&v, 2, 2, DIV_MID), "0 at (1, 1) is (%d %d %d), not the diverging white",
              S(&v, 2, 2, 0), S(&v, 2, 2, 1), S(&v, 2, 2, 2));
        CHECK(is_rgb(&v, 0, 2, DIV_HI), "2 at (1, 0) is not the diverging top");
        int specials = 0;
        for (int y = 0; y < 8; y++)
            for (int x = 0; x < 6; x++) specials += special(&v, x, y);
        CHECK(specials == 12, "%d pixels in reserved colours, expected 12 (3 elements x 4)",
              specials);
    } else {
        CHECK(0, "non-finite image is %d x %d, expected 6 x 8", v.w, v.h);
    }
    /* grey maps: alpha 0 exactly at the non-finite elements */
    d = D(TEXLA_PNG_LOGICAL, TEXLA_MAP_GRAY, 1);
    WRITE(texla_png_mat(ctx, m, at("nfg.png"), &d), at("nfg.png"), &g);
    d = D(TEXLA_PNG_LOGICAL, TEXLA_MAP_GRAY16, 1);
    WRITE(texla_png_mat(ctx, m, at("nfw.png"), &d), at("nfw.png"), &w);
    const img *both[2] = {&g, &w};
    for (int k = 0; k < 2; k++) {
        const img *im = both[k];
        int top = k ? 65535 : 255;
        CHECK(im->ch == 2 && im->w == 3 && im->h == 4, "grey non-finite: %d channels, %d x %d",
              im->ch, im->w, im->h);
        if (!im->px || im->ch != 2 || im->w != 3 || im->h != 4) continue;
        int wrong = 0;
        for (int i = 0; i < 12; i++) wrong += S(im, i % 3, i / 3, 1) != (isfinite(a[i]) ? top : 0);
        CHECK(wrong == 0, "grey non-finite (%d bits): %d alpha values wrong", im->depth, wrong);
        CHECK(S(im, 0, 2, 0) == top && S(im, 1, 0, 0) == 0 && S(im, 2, 3, 0) == 0,
              "grey non-finite: +Inf must be the top grey, NaN and -Inf 0");
        CHECK(text_of(im, "texla:nonfinite") && text_of(im, "texla:alpha"),
              "grey non-finite: texla:nonfinite and texla:alpha chunks");
    }
    free(v.px), free(g.px), free(w.px);
    texla_mat_destroy(ctx, m);

    /* nothing finite: range 0 0 */
    float z[2] = {NAN, INFINITY};
    CHECK(texla_mat_make(ctx, 2, 1, z, &m) == TEXLA_OK, "%s", msg());
    img e;
    WRITE(texla_png_mat(ctx, m, at("nf0.png"), NULL), at("nf0.png"), &e);
    texts("nothing finite", &e, "0 0", NULL, NULL, NULL, "viridis");
    CHECK(e.px && is_rgb(&e, 0, 0, NAN_C) && is_rgb(&e, 0, 1, PINF_C), "nothing finite: colours");
    free(e.px);
    texla_mat_destroy(ctx, m);
}

/* ---- no map produces a reserved colour ---- */

static void test_maps(void) {
    enum { N = 1021 };
    float a[N];
    for (int i = 0; i < N; i++) a[i] = -1.0f + 2.0f * (float)i / (N - 1);
    texla_mat m;
    CHECK(texla_mat_make(ctx, 1, N, a, &m) == TEXLA_OK, "%s", msg());
    const texla_png_map maps[2] = {TEXLA_MAP_VIRIDIS, TEXLA_MAP_DIVERGING};
    const int *ends[2][2] = {{VIR_LO, VIR_HI}, {DIV_LO, DIV_HI}};
    for (int k = 0; k < 2; k++) {
        img im;
        texla_png_desc d = D(TEXLA_PNG_LOGICAL, maps[k], 1);
        WRITE(texla_png_mat(ctx, m, at("ramp.png"), &d), at("ramp.png"), &im);
        if (!im.px || im.w != N) {
            CHECK(0, "ramp %d: %d wide", k, im.w);
            continue;
        }
        int specials = 0, distinct = 1, prev = -1;
        for (int x = 0; x < N; x++) {
            specials += special(&im, x, 0);
            int c = S(&im, x, 0, 0) << 16 | S(&im, x, 0, 1) << 8 | S(&im, x, 0, 2);
            distinct += x && c != prev;
            prev = c;
        }
        CHECK(specials == 0, "map %d: %d ramp pixels in a reserved colour", k, specials);
        CHECK(distinct >= 250, "map %d: only %d colours along the ramp", k, distinct);
        CHECK(is_rgb(&im, 0, 0, ends[k][0]) && is_rgb(&im, N - 1, 0, ends[k][1]),
              "map %d: ends (%d %d %d) .. (%d %d %d)", k, S(&im, 0, 0, 0), S(&im, 0, 0, 1),
              S(&im, 0, 0, 2), S(&im, N - 1, 0, 0), S(&im, N - 1, 0, 1), S(&im, N - 1, 0, 2));
        free(im.px);
    }
    texla_mat_destroy(ctx, m);
}

/* ---- round trips through texla_png_read ---- */

static void round_trip(const char *name, texla_mat m, const float *a, int rows, int cols,
                       const texla_png_desc *d, double lo, double hi, int top) {
    img im;
    WRITE(texla_png_mat(ctx, m, at(name), d), at(name), &im);
    int s = d->scale ? d->scale : 1;
    CHECK(im.depth == (top == 255 ? 8 : 16) && im.ch == 1, "%s: %d bits, %d channels", name,
          im.depth, im.ch);
    free(im.px);
    int rr, cc;
    float *b = read_back(at(name), &rr, &cc);
    if (!b || rr != rows * s || cc != cols * s) {
        CHECK(0, "%s: read back as %d x %d, expected %d x %d", name, rr, cc, rows * s, cols * s);
        free(b);
        return;
    }
    double tol = (hi - lo) / top / 2 * (1 + 1e-6) + fmax(fabs(lo), fabs(hi)) * CHECK_U * 4,
           worst = 0;
    for (int i = 0; i < rr; i++)
        for (int j = 0; j < cc; j++) {
            double want = fmin(fmax(a[(i / s) * cols + j / s], lo), hi);
            worst = fmax(worst, fabs(b[i * cc + j] - want));
        }
    CHECK(worst <= tol, "%s: read back off by %g, more than the quantisation %g", name, worst, tol);
    free(b);
}

static void test_round_trip(void) {
    enum { RR = 13, CC = 11 };
    float a[RR * CC];
    for (int i = 0; i < RR * CC; i++) a[i] = (float)(1.0 + 4.0 * check_rand());
    float lo = a[0], hi = a[0];
    for (int i = 0; i < RR * CC; i++) lo = fminf(lo, a[i]), hi = fmaxf(hi, a[i]);
    texla_mat m;
    CHECK(texla_mat_make(ctx, RR, CC, a, &m) == TEXLA_OK, "%s", msg());
    texla_png_desc d = D(TEXLA_PNG_LOGICAL, TEXLA_MAP_GRAY16, 0);
    round_trip("rt16.png", m, a, RR, CC, &d, lo, hi, 65535);
    d.scale = 2;
    round_trip("rt16s.png", m, a, RR, CC, &d, lo, hi, 65535);
    d = D(TEXLA_PNG_LOGICAL, TEXLA_MAP_GRAY, 0);
    round_trip("rt8.png", m, a, RR, CC, &d, lo, hi, 255);
    d = DR(TEXLA_PNG_LOGICAL, TEXLA_MAP_GRAY16, -4.0f, 6.0f);
    round_trip("rt16f.png", m, a, RR, CC, &d, -4, 6, 65535);
    d = DR(TEXLA_PNG_LOGICAL, TEXLA_MAP_GRAY16, -1.0f, 2.0f); /* clamped at both ends */
    round_trip("rt16c.png", m, a, RR, CC, &d, -1, 2, 65535);
    img im;
    d = D(TEXLA_PNG_LOGICAL, TEXLA_MAP_GRAY16, 0);
    WRITE(texla_png_mat(ctx, m, at("rt16.png"), &d), at("rt16.png"), &im);
    char want[64];
    snprintf(want, sizeof want, "%.9g %.9g", lo, hi);
    texts("gray16", &im, want, "logical", "13 x 11", "dense 4x1", "gray16");
    free(im.px);
    /* an application whose LC_NUMERIC writes ',': the range is written and read with '.' */
    char keep[128];
    const char *comma = check_comma_locale(keep, sizeof keep);
    if (comma) {
        d = DR(TEXLA_PNG_LOGICAL, TEXLA_MAP_GRAY16, -0.5f, 5.25f);
        round_trip("rt16comma.png", m, a, RR, CC, &d, -0.5, 5.25, 65535);
        WRITE(texla_png_mat(ctx, m, at("rt16comma.png"), &d), at("rt16comma.png"), &im);
        texts("gray16 under a comma locale", &im, "-0.5 5.25", "logical", "13 x 11", "dense 4x1",
              "gray16");
        free(im.px);
        check_locale_restore(keep);
    } else {
        check_skip("png under a comma locale", "no de_DE or fr_FR locale installed or made");
    }
    texla_mat_destroy(ctx, m);
}

/* ---- vectors and scalars ---- */

static void test_vec(void) {
    float a[35];
    for (int k = 0; k < 35; k++) a[k] = (float)k;
    /* plain: 35 elements on a 6 x 6 grid; cell (5, 5) is padding */
    texla_vec p, gv;
    CHECK(texla_vec_make(ctx, 35, a, &p) == TEXLA_OK, "%s", msg());
    texla_vec_info pi;
    texla_vec_info_get(ctx, p, &pi);
    CHECK(pi.nx == 6 && pi.gx == 6 && pi.gy == 6, "plain vector of 35: grid %d (%d x %d)", pi.nx,
          pi.gx, pi.gy);
    const texla_png_view views[2] = {TEXLA_PNG_LOGICAL, TEXLA_PNG_RAW};
    for (int k = 0; k < 2; k++) {
        img im;
        texla_png_desc d = D(views[k], TEXLA_MAP_VIRIDIS, 1);
        WRITE(texla_png_vec(ctx, p, at("vp.png"), &d), at("vp.png"), &im);
        texts("plain vector", &im, "0 34", k ? "raw" : "logical", "vector 35 grid 6 x 6",
              "vector 2x2 gx 6 gy 6", "viridis");
        if (im.px && im.w == 6 && im.h == 6) {
            int wrong = 0;
            for (int y = 0; y < 6; y++)
                for (int x = 0; x < 6; x++) wrong += is_rgb(&im, x, y, PAD_C) != (x == 5 && y == 5);
            CHECK(wrong == 0, "plain vector view %d: padding must be exactly cell (5, 5)", k);
            CHECK(is_rgb(&im, 0, 0, VIR_LO) && is_rgb(&im, 4, 5, VIR_HI),
                  "plain vector view %d: element 0 top-left, 34 at (4, 5)", k);
        } else {
            CHECK(0, "plain vector view %d: %d x %d", k, im.w, im.h);
        }
        free(im.px);
    }
    /* a 7 x 5 grid: gx 8, gy 6; column 7 and row 5 are padding in the raw view */
    CHECK(texla_vec_make_grid(ctx, 7, 5, a, &gv) == TEXLA_OK, "%s", msg());
    for (int k = 0; k < 2; k++) {
        img im;
        texla_png_desc d = D(views[k], TEXLA_MAP_VIRIDIS, 1);
        WRITE(texla_png_vec(ctx, gv, at("vg.png"), &d), at("vg.png"), &im);
        texts("grid vector", &im, "0 34", NULL, "vector 35 grid 7 x 5", "vector 2x2 gx 8 gy 6",
              NULL);
        int w = k ? 8 : 7, h = k ? 6 : 5;
        if (im.px && im.w == w && im.h == h) {
            int wrong = 0;
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) wrong += is_rgb(&im, x, y, PAD_C) != (x == 7 || y == 5);
            CHECK(wrong == 0, "grid vector view %d: %d pixels wrong about padding", k, wrong);
            CHECK(is_rgb(&im, 0, 0, VIR_LO) && is_rgb(&im, 6, 4, VIR_HI),
                  "grid vector view %d: gy = 0 at the top", k);
        } else {
            CHECK(0, "grid vector view %d: %d x %d, expected %d x %d", k, im.w, im.h, w, h);
        }
        free(im.px);
        texla_png_desc d16 = DR(views[k], TEXLA_MAP_GRAY16, 0.0f, 40.0f);
        CHECK(texla_png_vec(ctx, gv, at("vg16.png"), &d16) == TEXLA_OK, "%s", msg());
        int rr, cc;
        float *b = read_back(at("vg16.png"), &rr, &cc);
        if (b && rr == h && cc == w) {
            double worst = 0;
            for (int y = 0; y < 5; y++)
                for (int x = 0; x < 7; x++) worst = fmax(worst, fabs(b[y * w + x] - (y * 7 + x)));
            CHECK(worst <= 40.0 / 65535 / 2 * 1.001, "grid vector view %d: off by %g", k, worst);
        } else {
            CHECK(0, "grid vector view %d read back as %d x %d", k, rr, cc);
        }
        free(b);
    }
    texla_vec_destroy(ctx, p);
    texla_vec_destroy(ctx, gv);

    texla_scalar s;
    CHECK(texla_scalar_make(ctx, 3.5f, &s) == TEXLA_OK, "%s", msg());
    img im;
    texla_png_desc d = D(TEXLA_PNG_LOGICAL, TEXLA_MAP_GRAY16, 1);
    WRITE(texla_png_scalar(ctx, s, at("s.png"), &d), at("s.png"), &im);
    texts("scalar", &im, "3.5 3.5", "logical", "scalar", "scalar", "gray16");
    CHECK(im.px && im.w == 1 && im.h == 1 && S(&im, 0, 0, 0) == 32768,
          "scalar: a 1 x 1 image of the middle grey");
    free(im.px);
    int rr, cc;
    float *b = read_back(at("s.png"), &rr, &cc);
    CHECK(b && rr == 1 && cc == 1 && b[0] == 3.5f, "scalar read back as %g", b ? b[0] : -1.0);
    free(b);
    d = D(TEXLA_PNG_RAW, TEXLA_MAP_AUTO, 1);
    WRITE(texla_png_scalar(ctx, s, at("sr.png"), &d), at("sr.png"), &im);
    CHECK(im.px && im.w == 1 && im.h == 4 && !special(&im, 0, 0) && is_rgb(&im, 0, 1, PAD_C) &&
              is_rgb(&im, 0, 2, PAD_C) && is_rgb(&im, 0, 3, PAD_C),
          "scalar raw: one value over three padding lanes");
    free(im.px);
    texla_scalar_destroy(ctx, s);
}

/* ---- banded ---- */

static void test_banded(void) {
    texla_vec like;
    CHECK(texla_vec_make_grid(ctx, 5, 3, NULL, &like) == TEXLA_OK, "%s", msg());
    int offs[3] = {1, -5, 0};
    float dg[45];
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 15; k++) dg[i * 15 + k] = (float)((i + 1) * 10) + 0.5f * (float)k;
    texla_banded b;
    CHECK(texla_banded_make(ctx, like, 3, offs, dg, &b) == TEXLA_OK, "%s", msg());
    img im;
    texla_png_desc d = D(TEXLA_PNG_LOGICAL, TEXLA_MAP_AUTO, 1);
    WRITE(texla_png_banded(ctx, b, at("b.png"), &d), at("b.png"), &im);
    texts("banded", &im, "0 37", "logical", "banded 15 x 15 grid 5 x 3 diagonals 3",
          "banded -5 0 1", "viridis");
    CHECK(im.w == 5 && im.h == 9, "banded: %d x %d, expected 5 x 9", im.w, im.h);
    free(im.px);
    d = DR(TEXLA_PNG_LOGICAL, TEXLA_MAP_GRAY16, 0.0f, 40.0f);
    CHECK(texla_png_banded(ctx, b, at("b16.png"), &d) == TEXLA_OK, "%s", msg());
    int rr, cc;
    float *r = read_back(at("b16.png"), &rr, &cc);
    if (r && rr == 9 && cc == 5) {
        /* rows 0..2 offset -5 (stored diagonal 1), 3..5 offset 0 (2), 6..8 offset 1 (0) */
        const int which[3] = {1, 2, 0};
        double worst = 0;
        for (int blk = 0; blk < 3; blk++)
            for (int k = 0; k < 15; k++) {
                int i = which[blk], col = k + offs[i];
                double want = col >= 0 && col < 15 ? dg[i * 15 + k] : 0.0;
                worst = fmax(worst, fabs(r[(blk * 3 + k / 5) * 5 + k % 5] - want));
            }
        CHECK(worst <= 40.0 / 65535 / 2 * 1.001, "banded: diagonals off by %g", worst);
    } else {
        CHECK(0, "banded read back as %d x %d", rr, cc);
    }
    free(r);
    d = D(TEXLA_PNG_RAW, TEXLA_MAP_VIRIDIS, 1);
    WRITE(texla_png_banded(ctx, b, at("br.png"), &d), at("br.png"), &im);
    if (im.px && im.w == 6 && im.h == 12) {
        int wrong = 0;
        for (int y = 0; y < 12; y++)
            for (int x = 0; x < 6; x++) wrong += is_rgb(&im, x, y, PAD_C) != (x == 5 || y % 4 == 3);
        CHECK(wrong == 0, "banded raw: %d pixels wrong about padding", wrong);
    } else {
        CHECK(0, "banded raw: %d x %d, expected 6 x 12", im.w, im.h);
    }
    free(im.px);
    texla_banded_destroy(ctx, b);
    texla_vec_destroy(ctx, like);
}

/* ---- sparse ---- */

static void test_sparse(void) {
    texla_vec rl, cl;
    CHECK(texla_vec_make(ctx, 6, NULL, &rl) == TEXLA_OK, "%s", msg());
    CHECK(texla_vec_make(ctx, 9, NULL, &cl) == TEXLA_OK, "%s", msg());
    int ri[5] = {0, 5, 2, 3, 2}, ci[5] = {8, 0, 3, 3, 3};
    float va[5] = {5, -2, 1, 4, 0.5f};
    texla_sparse sp;
    CHECK(texla_sparse_make_coo(ctx, rl, cl, 5, ri, ci, va, &sp) == TEXLA_OK, "%s", msg());
    img im;
    WRITE(texla_png_sparse(ctx, sp, at("sp.png"), NULL), at("sp.png"), &im);
    texts("sparse", &im, "-5 5", "logical", "6 x 9", "sparse nnz 4", "diverging"); /* (2, 3) summed */
    if (im.px && im.w == 9 && im.h == 6) {
        int wrong = 0;
        for (int y = 0; y < 6; y++)
            for (int x = 0; x < 9; x++) {
                int entry = (y == 0 && x == 8) || (y == 5 && x == 0) || (y == 2 && x == 3) ||
                            (y == 3 && x == 3);
                wrong += is_rgb(&im, x, y, BACK_C) == entry || (entry && special(&im, x, y));
            }
        CHECK(wrong == 0, "sparse: %d pixels wrong (entries coloured, the rest background)",
              wrong);
        CHECK(is_rgb(&im, 8, 0, DIV_HI), "sparse: 5 at (0, 8) must be the diverging top");
    } else {
        CHECK(0, "sparse: %d x %d, expected 9 x 6", im.w, im.h);
    }
    free(im.px);
    texla_png_desc d = DR(TEXLA_PNG_LOGICAL, TEXLA_MAP_GRAY16, -4.0f, 6.0f);
    WRITE(texla_png_sparse(ctx, sp, at("sp16.png"), &d), at("sp16.png"), &im);
    if (im.px && im.ch == 2 && im.w == 9 && im.h == 6) {
        int alpha = 0;
        for (int y = 0; y < 6; y++)
            for (int x = 0; x < 9; x++) alpha += S(&im, x, y, 1) != 0;
        CHECK(alpha == 4, "sparse gray16: %d opaque pixels, expected 4", alpha);
        double q = 10.0 / 65535, got = -4 + S(&im, 3, 2, 0) * q;
        CHECK(fabs(got - 1.5) <= q, "sparse gray16: duplicates summed: %g, expected 1.5", got);
        got = -4 + S(&im, 0, 5, 0) * q;
        CHECK(fabs(got + 2) <= q, "sparse gray16: (5, 0) is %g, expected -2", got);
    } else {
        CHECK(0, "sparse gray16: %d channels, %d x %d", im.ch, im.w, im.h);
    }
    free(im.px);
    /* raw: the vertices (rows 0, 2, 3, 5: four), 4 slots each, 4 used (the duplicates at (2, 3)
     * were summed when the matrix was made) */
    d = D(TEXLA_PNG_RAW, TEXLA_MAP_VIRIDIS, 1);
    WRITE(texla_png_sparse(ctx, sp, at("spr.png"), &d), at("spr.png"), &im);
    if (im.px && im.w == 4 && im.h == 4) {
        int pad = 0;
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 4; x++) pad += is_rgb(&im, x, y, PAD_C);
        CHECK(pad == 12, "sparse raw: %d padding slots, expected 12", pad);
        CHECK(!is_rgb(&im, 0, 1, PAD_C) && is_rgb(&im, 1, 1, PAD_C),
              "sparse raw: row 2's vertex holds one entry (its duplicates summed)");
    } else {
        CHECK(0, "sparse raw: %d x %d, expected 4 x 4", im.w, im.h);
    }
    free(im.px);
    texla_sparse_destroy(ctx, sp);
    texla_vec_destroy(ctx, rl);
    texla_vec_destroy(ctx, cl);

    /* binning: 5000 rows become 2500 pixel rows; a bin shows its largest magnitude */
    CHECK(texla_vec_make(ctx, 5000, NULL, &rl) == TEXLA_OK, "%s", msg());
    CHECK(texla_vec_make(ctx, 3, NULL, &cl) == TEXLA_OK, "%s", msg());
    int r2[3] = {10, 11, 4999}, c2[3] = {1, 1, 2};
    float v2[3] = {1, -3, 2};
    CHECK(texla_sparse_make_coo(ctx, rl, cl, 3, r2, c2, v2, &sp) == TEXLA_OK, "%s", msg());
    d = DR(TEXLA_PNG_LOGICAL, TEXLA_MAP_GRAY16, -4.0f, 4.0f);
    WRITE(texla_png_sparse(ctx, sp, at("spb.png"), &d), at("spb.png"), &im);
    texts("binned", &im, "-4 4", "logical", "5000 x 3 binned 2 x 1", "sparse nnz 3", "gray16");
    if (im.px && im.ch == 2 && im.w == 3 && im.h == 2500) {
        int opaque = 0;
        for (int y = 0; y < 2500; y++)
            for (int x = 0; x < 3; x++) opaque += S(&im, x, y, 1) != 0;
        double q = 8.0 / 65535;
        CHECK(opaque == 2, "binned: %d opaque pixels, expected 2", opaque);
        CHECK(fabs(-4 + S(&im, 1, 5, 0) * q + 3) <= q && fabs(-4 + S(&im, 2, 2499, 0) * q - 2) <= q,
              "binned: bins hold -3 and 2");
    } else {
        CHECK(0, "binned: %d x %d x %d, expected 3 x 2500 x 2", im.w, im.h, im.ch);
    }
    free(im.px);
    texla_sparse_destroy(ctx, sp);
    texla_vec_destroy(ctx, rl);
    texla_vec_destroy(ctx, cl);
}

/* ---- texla_png_read of files from elsewhere ---- */

typedef struct wpng {
    png_structp png;
    png_infop info;
    FILE *f;
    int w, h, colour, depth;
    const uint8_t *data; /* packed rows */
    const png_color *palette;
    int npalette;
    const char *range; /* a texla:range chunk, or NULL */
    const png_byte *trns; /* the palette's alpha (npalette of them), or NULL */
} wpng;

static int wpng_body(wpng *j) {
    if (setjmp(png_jmpbuf(j->png))) return 0;
    png_init_io(j->png, j->f);
    png_set_IHDR(j->png, j->info, (png_uint_32)j->w, (png_uint_32)j->h, j->depth, j->colour,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (j->palette) png_set_PLTE(j->png, j->info, j->palette, j->npalette);
    if (j->trns) png_set_tRNS(j->png, j->info, j->trns, j->npalette, NULL);
    char key[] = "texla:range", text[64];
    snprintf(text, sizeof text, "%s", j->range ? j->range : "");
    png_text t = {.compression = PNG_TEXT_COMPRESSION_NONE, .key = key, .text = text};
    if (j->range) png_set_text(j->png, j->info, &t, 1);
    png_write_info(j->png, j->info);
    int ch = j->colour == PNG_COLOR_TYPE_RGB ? 3 : j->colour == PNG_COLOR_TYPE_RGB_ALPHA ? 4
             : j->colour == PNG_COLOR_TYPE_GRAY_ALPHA ? 2 : 1;
    size_t rb = ((size_t)j->w * (size_t)ch * (size_t)j->depth + 7) / 8;
    for (int y = 0; y < j->h; y++) png_write_row(j->png, j->data + rb * (size_t)y);
    png_write_end(j->png, NULL);
    return 1;
}

static const png_byte *trns_next; /* the next put_png's palette alpha (tRNS), then none */

static void put_png(const char *path, int w, int h, int colour, int depth, const uint8_t *data,
                    const png_color *pal, int npal, const char *range) {
    wpng j = {NULL, NULL, fopen(path, "wb"), w, h, colour, depth, data, pal, npal, range, trns_next};
    trns_next = NULL;
    CHECK(j.f != NULL, "cannot create %s", path);
    if (!j.f) return;
    j.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    j.info = j.png ? png_create_info_struct(j.png) : NULL;
    CHECK(j.png && j.info && wpng_body(&j), "libpng could not write %s", path);
    png_destroy_write_struct(j.png ? &j.png : NULL, j.info ? &j.info : NULL);
    fclose(j.f);
}

static void expect_read(const char *what, const char *path, int rows, int cols, const double *want) {
    int rr = 0, cc = 0;
    float *b = read_back(path, &rr, &cc);
    if (!b || rr != rows || cc != cols) {
        CHECK(0, "%s: read as %d x %d, expected %d x %d", what, rr, cc, rows, cols);
        free(b);
        return;
    }
    double worst = 0;
    for (int i = 0; i < rows * cols; i++) worst = fmax(worst, fabs(b[i] - want[i]));
    CHECK(worst <= 1e-6, "%s: off by %g", what, worst);
    free(b);
}

static void test_read(void) {
    /* RGB 8-bit, 3 x 2: the mean of R, G, B over 255 */
    const uint8_t rgb[18] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 30, 60, 90, 255, 255, 255, 0, 0, 0};
    put_png(at("in_rgb.png"), 3, 2, PNG_COLOR_TYPE_RGB, 8, rgb, NULL, 0, NULL);
    const double w_rgb[6] = {1 / 3.0, 1 / 3.0, 1 / 3.0, 60 / 255.0, 1, 0};
    expect_read("RGB 8", at("in_rgb.png"), 2, 3, w_rgb);
    /* RGBA 8: alpha ignored */
    const uint8_t rgba[8] = {51, 102, 153, 0, 255, 255, 0, 255};
    put_png(at("in_rgba.png"), 2, 1, PNG_COLOR_TYPE_RGB_ALPHA, 8, rgba, NULL, 0, NULL);
    const double w_rgba[2] = {102 / 255.0, 510 / 765.0};
    expect_read("RGBA 8", at("in_rgba.png"), 1, 2, w_rgba);
    /* grey+alpha 16-bit, 1 x 2 (big-endian samples) */
    const uint8_t ga[8] = {0x12, 0x34, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00};
    put_png(at("in_ga16.png"), 1, 2, PNG_COLOR_TYPE_GRAY_ALPHA, 16, ga, NULL, 0, NULL);
    const double w_ga[2] = {0x1234 / 65535.0, 1};
    expect_read("grey+alpha 16", at("in_ga16.png"), 2, 1, w_ga);
    /* palette, 2 bits per index: 4 x 1 */
    const png_color pal[4] = {{0, 0, 0}, {255, 0, 0}, {0, 0, 255}, {90, 90, 90}};
    const uint8_t idx[1] = {0x1b}; /* 00 01 10 11 */
    put_png(at("in_pal.png"), 4, 1, PNG_COLOR_TYPE_PALETTE, 2, idx, pal, 4, NULL);
    const double w_pal[4] = {0, 1 / 3.0, 1 / 3.0, 90 / 255.0};
    expect_read("palette 2-bit", at("in_pal.png"), 1, 4, w_pal);
    /* the same with a tRNS chunk: its alpha is not averaged in (0.875 for a white pixel of
     * alpha 128 was read) */
    static const png_byte alpha[4] = {0, 128, 255, 40};
    trns_next = alpha;
    put_png(at("in_palt.png"), 4, 1, PNG_COLOR_TYPE_PALETTE, 2, idx, pal, 4, NULL);
    expect_read("palette 2-bit with tRNS", at("in_palt.png"), 1, 4, w_pal);
    /* grey 1-bit: 8 x 1 */
    const uint8_t bits[1] = {0xa5};
    put_png(at("in_g1.png"), 8, 1, PNG_COLOR_TYPE_GRAY, 1, bits, NULL, 0, NULL);
    const double w_g1[8] = {1, 0, 1, 0, 0, 1, 0, 1};
    expect_read("grey 1-bit", at("in_g1.png"), 1, 8, w_g1);
    /* a texla:range: grey g means LO + g / 255 (HI - LO); a malformed one is FORMAT */
    const uint8_t grey[3] = {0, 51, 255};
    put_png(at("in_range.png"), 3, 1, PNG_COLOR_TYPE_GRAY, 8, grey, NULL, 0, "-1 3");
    const double w_range[3] = {-1, -1 + 0.8, 3};
    expect_read("texla:range", at("in_range.png"), 1, 3, w_range);
    put_png(at("in_badrange.png"), 3, 1, PNG_COLOR_TYPE_GRAY, 8, grey, NULL, 0, "3 x");
    texla_mat m = {0};
    texla_result r = texla_png_read(ctx, at("in_badrange.png"), &m);
    CHECK(r == TEXLA_ERR_FORMAT && strstr(msg(), "texla:range"), "malformed texla:range: %s: %s",
          texla_result_name(r), msg());
    texla_mat_destroy(ctx, m);
}

/* ---- atomic writes and errors ---- */

static unsigned char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *s = malloc(len > 0 ? (size_t)len : 1);
    *n = s && len > 0 ? fread(s, 1, (size_t)len, f) : 0;
    fclose(f);
    return s;
}

static int temporaries(void) { return check_count_tmp(dir); }

static int unchanged(const char *path, const unsigned char *old, size_t n) {
    size_t m = 0;
    unsigned char *now = slurp(path, &m);
    int same = now && m == n && !memcmp(now, old, n);
    free(now);
    return same;
}

static void test_errors(void) {
    float a[6] = {1, 2, 3, 4, 5, 6};
    texla_mat m, dead;
    CHECK(texla_mat_make(ctx, 2, 3, a, &m) == TEXLA_OK, "%s", msg());
    CHECK(texla_mat_make(ctx, 2, 3, a, &dead) == TEXLA_OK, "%s", msg());
    texla_mat_destroy(ctx, dead);
    const char *keep = at("keep.png");
    CHECK(texla_png_mat(ctx, m, keep, NULL) == TEXLA_OK, "%s", msg());
    size_t n = 0;
    unsigned char *old = slurp(keep, &n);
    CHECK(old && n > 8, "keep.png not written");

    texla_png_desc d = D(TEXLA_PNG_LOGICAL, TEXLA_MAP_AUTO, -1);
    struct {
        const char *what;
        texla_result got, want;
    } cases[16];
    int nc = 0;
#define CASE(w, call, code) cases[nc].what = w, cases[nc].got = (call), cases[nc++].want = code
    CASE("stale handle", texla_png_mat(ctx, dead, keep, NULL), TEXLA_ERR_HANDLE);
    CASE("handle 0", texla_png_mat(ctx, (texla_mat){0}, keep, NULL), TEXLA_ERR_HANDLE);
    CASE("scale -1", texla_png_mat(ctx, m, keep, &d), TEXLA_ERR_ARGUMENT);
    d.scale = 6000;
    CASE("scale 6000 (18000 px)", texla_png_mat(ctx, m, keep, &d), TEXLA_ERR_LIMIT);
    d = D((texla_png_view)7, TEXLA_MAP_AUTO, 1);
    CASE("view 7", texla_png_mat(ctx, m, keep, &d), TEXLA_ERR_ARGUMENT);
    d = D(TEXLA_PNG_LOGICAL, (texla_png_map)9, 1);
    CASE("map 9", texla_png_mat(ctx, m, keep, &d), TEXLA_ERR_ARGUMENT);
    d = DR(TEXLA_PNG_LOGICAL, TEXLA_MAP_AUTO, 2.0f, 1.0f);
    CASE("lo > hi", texla_png_mat(ctx, m, keep, &d), TEXLA_ERR_ARGUMENT);
    d = DR(TEXLA_PNG_LOGICAL, TEXLA_MAP_AUTO, NAN, 1.0f);
    CASE("lo NaN", texla_png_mat(ctx, m, keep, &d), TEXLA_ERR_ARGUMENT);
    CASE("path NULL", texla_png_mat(ctx, m, NULL, NULL), TEXLA_ERR_ARGUMENT);
    CASE("ctx NULL", texla_png_mat(NULL, m, keep, NULL), TEXLA_ERR_ARGUMENT);
    CASE("vector handle of a matrix", texla_png_vec(ctx, (texla_vec){m.id}, keep, NULL),
         TEXLA_ERR_HANDLE);
    CASE("stale sparse", texla_png_sparse(ctx, (texla_sparse){dead.id}, keep, NULL),
         TEXLA_ERR_HANDLE);
    for (int i = 0; i < nc; i++)
        CHECK(cases[i].got == cases[i].want, "%s: %s, expected %s (%s)", cases[i].what,
              texla_result_name(cases[i].got), texla_result_name(cases[i].want), msg());
    CHECK(unchanged(keep, old, n), "a rejected call changed keep.png");

    /* a missing folder: IO, naming the path; nothing created */
    const char *lost = at("no/such/dir/x.png");
    texla_result r = texla_png_mat(ctx, m, lost, NULL);
    CHECK(r == TEXLA_ERR_IO && strstr(msg(), lost), "missing folder: %s: %s", texla_result_name(r),
          msg());
    CHECK(access(at("no"), F_OK) != 0, "missing folder: something was created");
    /* a folder as PATH: the rename fails; the folder stays, no temporary */
    const char *sub = at("sub");
    mkdir(sub, 0755);
    r = texla_png_mat(ctx, m, sub, NULL);
    struct stat st;
    CHECK(r == TEXLA_ERR_IO && stat(sub, &st) == 0 && S_ISDIR(st.st_mode),
          "a folder as PATH: %s: %s", texla_result_name(r), msg());
    rmdir(sub);
    /* a write that fails part-way (file size limit): keep.png untouched, no temporary */
    enum { BIG = 160 };
    float *noise = malloc(sizeof *noise * BIG * BIG);
    texla_mat big = {0};
    if (noise) {
        check_fill(noise, BIG * BIG);
        CHECK(texla_mat_make(ctx, BIG, BIG, noise, &big) == TEXLA_OK, "%s", msg());
    }
    struct rlimit lim, low;
    if (big.id && getrlimit(RLIMIT_FSIZE, &lim) == 0) {
        low = lim;
        low.rlim_cur = 4096;
        void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
        int limited = setrlimit(RLIMIT_FSIZE, &low) == 0;
        d = D(TEXLA_PNG_LOGICAL, TEXLA_MAP_GRAY16, 1);
        r = limited ? texla_png_mat(ctx, big, keep, &d) : TEXLA_OK;
        if (limited) setrlimit(RLIMIT_FSIZE, &lim);
        signal(SIGXFSZ, old_handler);
        if (limited)
            CHECK(r == TEXLA_ERR_IO && strstr(msg(), keep), "write past RLIMIT_FSIZE: %s: %s",
                  texla_result_name(r), msg());
        else
            check_skip("png write past RLIMIT_FSIZE", "setrlimit failed");
    }
    texla_mat_destroy(ctx, big);
    free(noise);
    CHECK(unchanged(keep, old, n), "a failed write changed keep.png");
    CHECK(temporaries() == 0, "%d temporary files left behind", temporaries());
    free(old);

    /* reading */
    texla_mat out = {12345};
    r = texla_png_read(ctx, at("absent.png"), &out);
    CHECK(r == TEXLA_ERR_IO && out.id == 0 && strstr(msg(), "absent.png"), "missing file: %s: %s",
          texla_result_name(r), msg());
    FILE *f = fopen(at("text.png"), "wb");
    if (f) fputs("this is not a PNG file\n", f), fclose(f);
    r = texla_png_read(ctx, at("text.png"), &out);
    CHECK(r == TEXLA_ERR_FORMAT && strstr(msg(), at("text.png")), "non-PNG file: %s: %s",
          texla_result_name(r), msg());
    unsigned char *png = slurp(at("f_gray.png"), &n);
    if (png && n > 80) {
        f = fopen(at("cut.png"), "wb");
        if (f) fwrite(png, 1, n - 30, f), fclose(f);
        r = texla_png_read(ctx, at("cut.png"), &out);
        CHECK(r == TEXLA_ERR_FORMAT, "truncated PNG: %s: %s", texla_result_name(r), msg());
        /* one byte of the first IDAT's data: a CRC error in a critical chunk */
        for (size_t i = 8; i + 8 < n; i++)
            if (!memcmp(png + i, "IDAT", 4)) {
                png[i + 6] ^= 0x55;
                break;
            }
        f = fopen(at("crc.png"), "wb");
        if (f) fwrite(png, 1, n, f), fclose(f);
        r = texla_png_read(ctx, at("crc.png"), &out);
        CHECK(r == TEXLA_ERR_FORMAT, "corrupted PNG: %s: %s", texla_result_name(r), msg());
    }
    free(png);
    r = texla_png_read(ctx, at("f_gray.png"), NULL);
    CHECK(r == TEXLA_ERR_ARGUMENT, "out NULL: %s", texla_result_name(r));
    r = texla_png_read(ctx, NULL, &out);
    CHECK(r == TEXLA_ERR_ARGUMENT, "path NULL: %s", texla_result_name(r));
    texla_mat_destroy(ctx, m);
}

/* ---- options for people (zero keeps everything above): colour bar, plots, spy views, banded
 * labels, the Description chunk ---- */

static const int INK[3] = {0, 0, 0}, PAPER[3] = {255, 255, 255}, LINE_C[3] = {31, 119, 180},
                 SEP_C[3] = {90, 90, 90}, SPYDOT_C[3] = {20, 20, 20};

/* pixels of colour c in the rectangle x0..x1-1, y0..y1-1 */
static int count_rgb(const img *im, int x0, int y0, int x1, int y1, const int c[3]) {
    int n = 0;
    for (int y = y0; y < y1 && y < im->h; y++)
        for (int x = x0; x < x1 && x < im->w; x++) n += is_rgb(im, x, y, c);
    return n;
}

static void test_options(void) {
    img im = {0}, plain = {0};
    /* the colour bar: the picture unchanged at the left, the map's ends at the bar's ends,
     * labels beside it, the image at least 128 pixels tall */
    float a[4 * 6];
    for (int i = 0; i < 24; i++) a[i] = (float)i - 4.0f; /* -4 .. 19: viridis (no zero span) */
    a[0] = 30.0f;                                       /* so hi = 30, lo = -3 */
    texla_mat m = {0};
    CHECK_OK(ctx, texla_mat_make(ctx, 4, 6, a, &m), "options: 4 x 6");
    texla_png_desc d = {.scale = 5, .map = TEXLA_MAP_VIRIDIS};
    CHECK_OK(ctx, texla_png_mat(ctx, m, at("o_plain.png"), &d), "png plain");
    d.colorbar = 1;
    CHECK_OK(ctx, texla_png_mat(ctx, m, at("o_bar.png"), &d), "png colorbar");
    if (load(at("o_plain.png"), &plain) && load(at("o_bar.png"), &im)) {
        CHECK(im.ch == 3 && im.w > plain.w + 30 && im.h == 128,
              "colour bar: %d x %d (%d channels) for a %d x %d picture", im.w, im.h, im.ch,
              plain.w, plain.h);
        int same = 1;
        for (int y = 0; y < plain.h; y++)
            for (int x = 0; x < plain.w; x++)
                for (int c = 0; c < 3; c++) same &= S(&im, x, y, c) == S(&plain, x, y, c);
        CHECK(same, "colour bar: the picture at the left is the plain dump, pixel for pixel");
        CHECK(count_rgb(&im, 0, plain.h, plain.w, im.h, PAPER) == plain.w * (im.h - plain.h),
              "colour bar: white below the picture");
        int bx = plain.w + 10 + 8; /* the middle of the bar */
        CHECK(is_rgb(&im, bx, 4, VIR_HI) && is_rgb(&im, bx, im.h - 5, VIR_LO),
              "colour bar: viridis's top colour at the top (%d %d %d), its bottom at the bottom "
              "(%d %d %d)", S(&im, bx, 4, 0), S(&im, bx, 4, 1), S(&im, bx, 4, 2),
              S(&im, bx, im.h - 5, 0), S(&im, bx, im.h - 5, 1), S(&im, bx, im.h - 5, 2));
        int ink = count_rgb(&im, plain.w + 10 + 16 + 4, 0, im.w, im.h, INK);
        CHECK(ink > 5 * 40, "colour bar: %d ink pixels of 5 labels beside it", ink);
        /* the top label is the range's top: 30 in the 5x7 font ('3' then '0') */
        CHECK(count_rgb(&im, plain.w + 10 + 16 + 4, 0, im.w, 9, INK) >= 20,
              "colour bar: a label at the top");
    } else {
        CHECK(0, "colour bar: cannot read the images");
    }
    free(im.px), free(plain.px);
    const char *t = NULL;
    if (load(at("o_plain.png"), &im)) t = text_of(&im, "Description");
    CHECK(t && strstr(t, "4 x 6") && strstr(t, "-3 30") && strstr(t, "viridis"),
          "the Description chunk has the shape, the range and the map: \"%s\"", t ? t : "(none)");
    free(im.px);

    /* a line plot of a vector: y = i / 100 except a spike at 250 */
    float y[400];
    for (int i = 0; i < 400; i++) y[i] = (float)i / 100.0f;
    y[250] = 10.0f;
    texla_vec v = {0};
    CHECK_OK(ctx, texla_vec_make(ctx, 400, y, &v), "plot: vector");
    texla_png_desc dp = {.plot = 1, .title = "T"};
    CHECK_OK(ctx, texla_png_vec(ctx, v, at("o_plot.png"), &dp), "png plot of a vector");
    if (load(at("o_plot.png"), &im)) {
        CHECK(im.w == 640 && im.h == 400 && im.ch == 3, "plot: %d x %d, %d channels", im.w, im.h,
              im.ch);
        /* the line: its lowest pixel at the left, its highest near x of index 250 */
        int lx = -1, ly = -1, hx = -1, hy = im.h, n = 0;
        for (int x = 0; x < im.w; x++)
            for (int yy = 0; yy < im.h; yy++)
                if (is_rgb(&im, x, yy, LINE_C)) {
                    n++;
                    if (yy > ly) ly = yy, lx = x;
                    if (yy < hy) hy = yy, hx = x;
                }
        CHECK(n > 500, "plot: %d pixels of the line", n);
        CHECK(lx >= 0 && lx < im.w / 8 && hx > im.w / 2 && hx < im.w * 3 / 4 && hy < im.h / 4,
              "plot: lowest point at x %d (left), highest at x %d y %d (the spike at index 250 "
              "of 400)", lx, hx, hy);
        t = text_of(&im, "texla:view");
        CHECK(t && !strcmp(t, "plot"), "plot: texla:view is \"%s\"", t ? t : "(none)");
        t = text_of(&im, "Description");
        CHECK(t && strstr(t, "400 points"), "plot: Description \"%s\"", t ? t : "(none)");
        CHECK(count_rgb(&im, 0, 0, im.w, 20, INK) > 10, "plot: the title is drawn at the top");
    }
    free(im.px);
    /* n x 1 and 1 x n matrices plot too; a matrix does not */
    texla_mat col = {0}, row = {0};
    CHECK_OK(ctx, texla_mat_make(ctx, 400, 1, y, &col), "plot: 400 x 1");
    CHECK_OK(ctx, texla_mat_make(ctx, 1, 400, y, &row), "plot: 1 x 400");
    texla_png_desc ds = {.plot = 1, .width = 300, .height = 200};
    CHECK_OK(ctx, texla_png_mat(ctx, col, at("o_col.png"), &ds), "png plot of a 400 x 1 matrix");
    CHECK_OK(ctx, texla_png_mat(ctx, row, at("o_row.png"), &ds), "png plot of a 1 x 400 matrix");
    img im2 = {0};
    if (load(at("o_col.png"), &im) && load(at("o_row.png"), &im2)) {
        int same = im.w == 300 && im.h == 200 && im2.w == 300 && im2.h == 200;
        for (size_t i = 0; same && i < (size_t)im.w * im.h * 3; i++) same = im.px[i] == im2.px[i];
        CHECK(same, "plot: a 400 x 1 and a 1 x 400 matrix of the same values give the same "
              "300 x 200 picture");
    }
    free(im.px), free(im2.px);
    CHECK_CODE(ctx, texla_png_mat(ctx, m, at("o_no.png"), &dp), TEXLA_ERR_ARGUMENT,
               "plot of a 4 x 6 matrix");
    /* a log axis: values <= 0 are left out, a residual history reaches from 1 to 1e-6 */
    float hx[50], hy[50];
    for (int i = 0; i < 50; i++) hx[i] = (float)(8 * i), hy[i] = powf(10.0f, -6.0f * i / 49.0f);
    hy[10] = 0.0f;
    texla_png_desc dl = {.log_y = 1, .xlabel = "iteration", .ylabel = "relative residual"};
    CHECK_OK(ctx, texla_png_plot(ctx, hx, hy, 50, at("o_hist.png"), &dl), "texla_png_plot log");
    if (load(at("o_hist.png"), &im)) {
        int first = -1, last = -1, top = im.h, bottom = -1;
        for (int x = 0; x < im.w; x++)
            for (int yy = 0; yy < im.h; yy++)
                if (is_rgb(&im, x, yy, LINE_C)) {
                    if (first < 0) first = x;
                    last = x;
                    if (yy < top) top = yy;
                    if (yy > bottom) bottom = yy;
                }
        /* 1e0 .. 1e-6 fills the axis: from near the top to near the bottom, left to right */
        CHECK(first >= 0 && top < 40 && bottom > im.h - 50 && last > im.w - 40,
              "log plot: line from x %d to %d, y %d to %d in %d x %d", first, last, top, bottom,
              im.w, im.h);
    }
    free(im.px);

    /* a spy view: white, a dark 2 x 2 dot per nonzero (scale 0 becomes 2) */
    int rs[5] = {0, 1, 2, 4, 4}, cs[5] = {0, 3, 1, 4, 0};
    float vs[5] = {1, -2, 3, 0.5f, 7};
    texla_vec l5 = {0};
    texla_sparse sp = {0};
    CHECK_OK(ctx, texla_vec_make(ctx, 5, NULL, &l5), "spy: layout");
    CHECK_OK(ctx, texla_sparse_make_coo(ctx, l5, l5, 5, rs, cs, vs, &sp), "spy: 5 x 5");
    texla_png_desc dy = {.spy = TEXLA_SPY_DOTS};
    CHECK_OK(ctx, texla_png_sparse(ctx, sp, at("o_spy.png"), &dy), "png spy");
    if (load(at("o_spy.png"), &im)) {
        CHECK(im.w == 10 && im.h == 10 && im.ch == 3, "spy: %d x %d (a 5 x 5 matrix at 2 px)",
              im.w, im.h);
        int ok = 1;
        for (int r = 0; r < 5; r++)
            for (int c = 0; c < 5; c++) {
                int nz = 0;
                for (int e = 0; e < 5; e++) nz |= rs[e] == r && cs[e] == c;
                for (int k = 0; k < 4; k++)
                    ok &= is_rgb(&im, 2 * c + (k & 1), 2 * r + k / 2, nz ? SPYDOT_C : PAPER);
            }
        CHECK(ok, "spy: a dark 2 x 2 dot at each nonzero, white elsewhere");
    }
    free(im.px);
    dy.spy = TEXLA_SPY_COLOUR, dy.map = TEXLA_MAP_VIRIDIS, dy.scale = 3;
    CHECK_OK(ctx, texla_png_sparse(ctx, sp, at("o_spyc.png"), &dy), "png spy in colour");
    if (load(at("o_spyc.png"), &im))
        CHECK(im.w == 15 && is_rgb(&im, 1, 13, VIR_HI) && is_rgb(&im, 10, 4, VIR_LO) &&
              is_rgb(&im, 13, 1, PAPER),
              "spy in colour: the largest entry (4, 0) in viridis's top colour, the smallest "
              "(1, 3) in its bottom one, zeros white");
    free(im.px);
    /* a spy view of a dense matrix: its nonzero pattern */
    dy.spy = TEXLA_SPY_DOTS, dy.scale = 2;
    float z[6] = {0, 1, 0, 0, 0, 2};
    texla_mat zm = {0};
    CHECK_OK(ctx, texla_mat_make(ctx, 2, 3, z, &zm), "spy dense");
    CHECK_OK(ctx, texla_png_mat(ctx, zm, at("o_spyd.png"), &dy), "png spy of a dense matrix");
    if (load(at("o_spyd.png"), &im))
        CHECK(im.w == 6 && im.h == 4 && is_rgb(&im, 2, 0, SPYDOT_C) && is_rgb(&im, 4, 2, SPYDOT_C) &&
              is_rgb(&im, 0, 0, PAPER) && count_rgb(&im, 0, 0, 6, 4, SPYDOT_C) == 8,
              "spy of a dense 2 x 3 matrix: 2 dots of 4 pixels");
    free(im.px);

    /* banded: a separator between diagonals and each one's offset at its left */
    texla_banded p = {0};
    CHECK_OK(ctx, texla_banded_poisson(ctx, 6, 4, 0.0f, 1.0f, &p), "annotate: poisson 6 x 4");
    texla_png_desc da = {.annotate = 1, .map = TEXLA_MAP_VIRIDIS};
    CHECK_OK(ctx, texla_png_banded(ctx, p, at("o_band.png"), &da), "png banded annotated");
    if (load(at("o_band.png"), &im)) {
        /* 5 diagonals of a 6 x 4 grid, 4 rows each: scaled to 3 (12 >= 10 pixels a diagonal),
         * 2-pixel separators: 5 * 12 + 4 * 2 = 68 rows */
        CHECK(im.h == 68 && im.ch == 3 && im.w > 18 + 30, "annotated banded: %d x %d", im.w,
              im.h);
        int lw = im.w - 18, seps = 1;
        for (int k = 1; k < 5; k++)
            for (int r = 0; r < 2; r++)
                seps &= count_rgb(&im, 0, 12 * k + 2 * (k - 1) + r, im.w, 12 * k + 2 * (k - 1) + r + 1,
                                  SEP_C) == im.w;
        CHECK(seps, "annotated banded: a full separator line (2 pixels) between the diagonals");
        int labels = 1;
        for (int k = 0; k < 5; k++)
            labels &= count_rgb(&im, 0, 14 * k, lw, 14 * k + 12, INK) >= 15;
        CHECK(labels, "annotated banded: a label in the left column of each diagonal");
        CHECK(count_rgb(&im, 0, 0, lw, 12, INK) > count_rgb(&im, 0, 28, lw, 40, INK),
              "annotated banded: 'd = -6' (first) has more ink than 'd = 0' (third)");
    }
    free(im.px);

    /* options that cannot be */
    texla_png_desc bad1 = {.colorbar = 1, .map = TEXLA_MAP_GRAY16}, bad2 = {.plot = 1, .view = TEXLA_PNG_RAW},
                   bad3 = {.spy = 7}, bad4 = {.plot = 1, .width = 100};
    CHECK_CODE(ctx, texla_png_mat(ctx, m, at("o_x.png"), &bad1), TEXLA_ERR_ARGUMENT,
               "png gray16 with a colour bar");
    CHECK_CODE(ctx, texla_png_mat(ctx, col, at("o_x.png"), &bad2), TEXLA_ERR_ARGUMENT,
               "png plot of the raw view");
    CHECK_CODE(ctx, texla_png_mat(ctx, m, at("o_x.png"), &bad3), TEXLA_ERR_ARGUMENT, "png spy 7");
    CHECK_CODE(ctx, texla_png_mat(ctx, col, at("o_x.png"), &bad4), TEXLA_ERR_ARGUMENT,
               "png plot 100 pixels wide");
    CHECK_CODE(ctx, texla_png_plot(ctx, NULL, hy, 0, at("o_x.png"), NULL), TEXLA_ERR_ARGUMENT,
               "texla_png_plot of 0 points");
    CHECK_CODE(ctx, texla_png_plot(ctx, NULL, NULL, 5, at("o_x.png"), NULL), TEXLA_ERR_ARGUMENT,
               "texla_png_plot with y NULL");
    struct stat st;
    CHECK(stat(at("o_x.png"), &st) != 0, "no file from the refused options");
    texla_mat_destroy(ctx, m), texla_mat_destroy(ctx, col), texla_mat_destroy(ctx, row);
    texla_mat_destroy(ctx, zm);
    texla_vec_destroy(ctx, v), texla_vec_destroy(ctx, l5);
    texla_sparse_destroy(ctx, sp);
    texla_banded_destroy(ctx, p);
}

void suite_png(void) {
    if (!check_mkdtemp(dir, sizeof dir, "/tmp/texla-png-XXXXXX")) return;
    ctx = suite_ctx(NULL);
    if (ctx) {
        test_dense();
        test_nonfinite();
        test_maps();
        test_round_trip();
        test_vec();
        test_banded();
        test_sparse();
        test_read();
        test_errors();
        test_options();
        texla_ctx_destroy(ctx);
        ctx = NULL;
    }
    if (getenv("TEXLA_PNG_KEEP")) printf("png: files kept in %s\n", dir);
    else check_rmdir_all(dir);
}
