/* png.c - PNG images of texla objects and of host textures, and PNG files read into matrices
 * (libpng). No GL here: texels come to the host through the GL layer, and the automatic range
 * of a texla object is a min/max reduction on the GPU (texla__reduce, TEXLA__MAP_FINITE).
 *
 * A dump: the texels are read back and laid out as a grid of cells, one per pixel before the
 * upscale, each a value, padding or background; the range is resolved; every cell is encoded
 * once (RGB, grey or grey+alpha); the rows are written upscaled into a temporary file beside
 * the file written (PATH, or where its links lead: base/afile.c), which is flushed, synced,
 * closed and renamed over it. On any failure the temporary file is removed and what was there
 * is left as it was.
 *
 * Decisions the header leaves open:
 * - Grey maps (gray, gray16) cannot colour NaN, +-Inf, padding or the sparse background. When
 *   an image has any such cell it is written grey+alpha: alpha 0 marks exactly those cells
 *   (grey 0, or the top grey for +Inf), every other pixel is opaque; otherwise plain grey.
 *   With every map, the counts of non-finite elements go into "texla:nonfinite".
 * - "texla:range" is the range the map spans, so that a pixel at t in [0, 1] of the map means
 *   lo + t (hi - lo): for the diverging map that is -m..m, m = max(|lo|, |hi|).
 * - lo == hi (a constant): values equal to it get the middle of the map (a gray16 dump reads
 *   back exactly), values below or above the ends. No finite values at all: the range is 0 0.
 * - The automatic range of a host texture (which may not be complete for sampling) and of a
 *   sparse matrix (whose values are kept on the host) is computed on the host.
 * - Logical view of a plain vector: the cells past n in the last grid row are padding.
 * - Banded matrices: diagonals stacked top to bottom by increasing offset ("texla:layout" lists
 *   them in that order); entries whose column falls outside the matrix show as stored (0).
 * - Sparse matrices: the logical view bins each axis longer than 4096 separately (ceil(n /
 *   4096) rows or columns per pixel; the entry of largest magnitude of a bin is shown, NaN
 *   first); the raw view is the vertex buffer as stored, one row of 4 slots per vertex (unused
 *   slots are padding).
 * - Host textures, raw view: the four channel planes side by side (R | G | B | A).
 * - Images are at most 16384 pixels per side (TEXLA_ERR_LIMIT beyond).
 *
 * Reading is budgeted, so that a small file cannot cost gigabytes or minutes:
 * - an image of more pixels than the context's budget (texla_ctx_desc.png_max_pixels) or than
 *   a matrix of this GL holds is refused with TEXLA_ERR_LIMIT when its header is read, before
 *   anything is allocated for it; what is allocated is 4 bytes per pixel (the matrix's data)
 *   and one row (all rows of an interlaced image, whose passes revisit them);
 * - no chunk may declare more than MAX_CHUNK bytes, at most MAX_CHUNKS ancillary chunks are
 *   kept, and libpng's "benign" errors are errors: libpng would otherwise only warn about an
 *   oversized chunk and then allocate what it declares (a 2 GB tEXt in a 79-byte file);
 * - ancillary chunks other than tEXt (colour profiles, compressed text, ...) are skipped
 *   unread: nothing here uses them, so none of their decoders runs. */
#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <png.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIDE 16384  /* pixels per side of a written image */
#define MAX_CHUNK (8u << 20) /* bytes of one chunk's data when reading (texla's own tEXt: < 1 MB) */
#define MAX_CHUNKS 256   /* ancillary chunks kept when reading (texla writes 8) */


/* colours no map produces (the test suite checks the maps against them) */
static const uint8_t COLOUR_NAN[3] = {255, 0, 255}, COLOUR_PINF[3] = {0, 255, 0},
                     COLOUR_NINF[3] = {0, 255, 255}, COLOUR_PAD[3] = {255, 128, 0},
                     COLOUR_BACK[3] = {32, 32, 32};

/* viridis (matplotlib; Smith, van der Walt, Firing; CC0), the 256 entries rounded to 8 bits */
static const uint8_t viridis[256][3] = {
    {68, 1, 84}, {68, 2, 86}, {69, 4, 87}, {69, 5, 89}, {70, 7, 90}, {70, 8, 92},
    {70, 10, 93}, {70, 11, 94}, {71, 13, 96}, {71, 14, 97}, {71, 16, 99}, {71, 17, 100},
    {71, 19, 101}, {72, 20, 103}, {72, 22, 104}, {72, 23, 105}, {72, 24, 106}, {72, 26, 108},
    {72, 27, 109}, {72, 28, 110}, {72, 29, 111}, {72, 31, 112}, {72, 32, 113}, {72, 33, 115},
    {72, 35, 116}, {72, 36, 117}, {72, 37, 118}, {72, 38, 119}, {72, 40, 120}, {72, 41, 121},
    {71, 42, 122}, {71, 44, 122}, {71, 45, 123}, {71, 46, 124}, {71, 47, 125}, {70, 48, 126},
    {70, 50, 126}, {70, 51, 127}, {70, 52, 128}, {69, 53, 129}, {69, 55, 129}, {69, 56, 130},
    {68, 57, 131}, {68, 58, 131}, {68, 59, 132}, {67, 61, 132}, {67, 62, 133}, {66, 63, 133},
    {66, 64, 134}, {66, 65, 134}, {65, 66, 135}, {65, 68, 135}, {64, 69, 136}, {64, 70, 136},
    {63, 71, 136}, {63, 72, 137}, {62, 73, 137}, {62, 74, 137}, {62, 76, 138}, {61, 77, 138},
    {61, 78, 138}, {60, 79, 138}, {60, 80, 139}, {59, 81, 139}, {59, 82, 139}, {58, 83, 139},
    {58, 84, 140}, {57, 85, 140}, {57, 86, 140}, {56, 88, 140}, {56, 89, 140}, {55, 90, 140},
    {55, 91, 141}, {54, 92, 141}, {54, 93, 141}, {53, 94, 141}, {53, 95, 141}, {52, 96, 141},
    {52, 97, 141}, {51, 98, 141}, {51, 99, 141}, {50, 100, 142}, {50, 101, 142}, {49, 102, 142},
    {49, 103, 142}, {49, 104, 142}, {48, 105, 142}, {48, 106, 142}, {47, 107, 142}, {47, 108, 142},
    {46, 109, 142}, {46, 110, 142}, {46, 111, 142}, {45, 112, 142}, {45, 113, 142}, {44, 113, 142},
    {44, 114, 142}, {44, 115, 142}, {43, 116, 142}, {43, 117, 142}, {42, 118, 142}, {42, 119, 142},
    {42, 120, 142}, {41, 121, 142}, {41, 122, 142}, {41, 123, 142}, {40, 124, 142}, {40, 125, 142},
    {39, 126, 142}, {39, 127, 142}, {39, 128, 142}, {38, 129, 142}, {38, 130, 142}, {38, 130, 142},
    {37, 131, 142}, {37, 132, 142}, {37, 133, 142}, {36, 134, 142}, {36, 135, 142}, {35, 136, 142},
    {35, 137, 142}, {35, 138, 141}, {34, 139, 141}, {34, 140, 141}, {34, 141, 141}, {33, 142, 141},
    {33, 143, 141}, {33, 144, 141}, {33, 145, 140}, {32, 146, 140}, {32, 146, 140}, {32, 147, 140},
    {31, 148, 140}, {31, 149, 139}, {31, 150, 139}, {31, 151, 139}, {31, 152, 139}, {31, 153, 138},
    {31, 154, 138}, {30, 155, 138}, {30, 156, 137}, {30, 157, 137}, {31, 158, 137}, {31, 159, 136},
    {31, 160, 136}, {31, 161, 136}, {31, 161, 135}, {31, 162, 135}, {32, 163, 134}, {32, 164, 134},
    {33, 165, 133}, {33, 166, 133}, {34, 167, 133}, {34, 168, 132}, {35, 169, 131}, {36, 170, 131},
    {37, 171, 130}, {37, 172, 130}, {38, 173, 129}, {39, 173, 129}, {40, 174, 128}, {41, 175, 127},
    {42, 176, 127}, {44, 177, 126}, {45, 178, 125}, {46, 179, 124}, {47, 180, 124}, {49, 181, 123},
    {50, 182, 122}, {52, 182, 121}, {53, 183, 121}, {55, 184, 120}, {56, 185, 119}, {58, 186, 118},
    {59, 187, 117}, {61, 188, 116}, {63, 188, 115}, {64, 189, 114}, {66, 190, 113}, {68, 191, 112},
    {70, 192, 111}, {72, 193, 110}, {74, 193, 109}, {76, 194, 108}, {78, 195, 107}, {80, 196, 106},
    {82, 197, 105}, {84, 197, 104}, {86, 198, 103}, {88, 199, 101}, {90, 200, 100}, {92, 200, 99},
    {94, 201, 98}, {96, 202, 96}, {99, 203, 95}, {101, 203, 94}, {103, 204, 92}, {105, 205, 91},
    {108, 205, 90}, {110, 206, 88}, {112, 207, 87}, {115, 208, 86}, {117, 208, 84}, {119, 209, 83},
    {122, 209, 81}, {124, 210, 80}, {127, 211, 78}, {129, 211, 77}, {132, 212, 75}, {134, 213, 73},
    {137, 213, 72}, {139, 214, 70}, {142, 214, 69}, {144, 215, 67}, {147, 215, 65}, {149, 216, 64},
    {152, 216, 62}, {155, 217, 60}, {157, 217, 59}, {160, 218, 57}, {162, 218, 55}, {165, 219, 54},
    {168, 219, 52}, {170, 220, 50}, {173, 220, 48}, {176, 221, 47}, {178, 221, 45}, {181, 222, 43},
    {184, 222, 41}, {186, 222, 40}, {189, 223, 38}, {192, 223, 37}, {194, 223, 35}, {197, 224, 33},
    {200, 224, 32}, {202, 225, 31}, {205, 225, 29}, {208, 225, 28}, {210, 226, 27}, {213, 226, 26},
    {216, 226, 25}, {218, 227, 25}, {221, 227, 24}, {223, 227, 24}, {226, 228, 24}, {229, 228, 25},
    {231, 228, 25}, {234, 229, 26}, {236, 229, 27}, {239, 229, 28}, {241, 229, 29}, {244, 230, 30},
    {246, 230, 32}, {248, 230, 33}, {251, 231, 35}, {253, 231, 37},
};

/* The diverging map: ColorBrewer's RdBu, 11 classes (Cynthia A. Brewer, colorbrewer.org),
 * blue for negative, interpolated linearly into 255 levels so that level 127 (zero) is the
 * white anchor exactly. */
static const uint8_t rdbu[11][3] = {
    {5, 48, 97},     {33, 102, 172},  {67, 147, 195}, {146, 197, 222}, {209, 229, 240},
    {247, 247, 247}, {253, 219, 199}, {244, 165, 130}, {214, 96, 77},  {178, 24, 43},
    {103, 0, 31}};

static const char *map_names[] = {"auto", "gray", "viridis", "diverging", "gray16"};

/* ---- options ---- */

typedef struct opts {
    int raw;
    texla_png_map map;
    int fixed;
    float lo, hi;
    int scale;
    int colorbar, plot, log_y, annotate;
    texla_png_spy spy;
    texla__plot_desc pd;
} opts;

static texla_result get_opts(texla_ctx *ctx, const char *fn, const char *path,
                             const texla_png_desc *d, opts *o) {
    if (!path) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: path is NULL", fn);
    if (!*path) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: path is empty", fn);
    texla_png_desc def = {0};
    if (!d) d = &def;
    if (d->view != TEXLA_PNG_LOGICAL && d->view != TEXLA_PNG_RAW)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: desc->view is %d; use TEXLA_PNG_LOGICAL (0) or TEXLA_PNG_RAW (1)",
                           fn, (int)d->view);
    if ((int)d->map < TEXLA_MAP_AUTO || (int)d->map > TEXLA_MAP_GRAY16)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: desc->map is %d; use TEXLA_MAP_AUTO .. TEXLA_MAP_GRAY16 (0..4)", fn,
                           (int)d->map);
    if (d->scale < 0)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: desc->scale is %d; it must be >= 0", fn,
                           d->scale);
    if (d->fixed_range && (!isfinite(d->lo) || !isfinite(d->hi) || d->lo > d->hi))
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: desc->lo .. desc->hi is %g .. %g; a fixed range must be finite "
                           "with lo <= hi", fn, d->lo, d->hi);
    if ((int)d->spy < TEXLA_SPY_OFF || (int)d->spy > TEXLA_SPY_COLOUR)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: desc->spy is %d; use TEXLA_SPY_OFF, _DOTS or _COLOUR (0..2)", fn,
                           (int)d->spy);
    if (d->map == TEXLA_MAP_GRAY16 && (d->colorbar || d->plot || d->annotate || d->spy))
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: the gray16 map is for reading values back; a colour bar, a plot, "
                           "labels or a spy view make an 8-bit picture (use another map)", fn);
    if (d->plot && d->view == TEXLA_PNG_RAW)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: a plot shows the logical values; desc->view must be LOGICAL", fn);
    if ((d->width && (d->width < 160 || d->width > MAX_SIDE)) ||
        (d->height && (d->height < 120 || d->height > MAX_SIDE)))
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: desc->width x height is %d x %d; a plot is 160..%d x 120..%d pixels "
                           "(0: 640 x 400)", fn, d->width, d->height, MAX_SIDE, MAX_SIDE);
    *o = (opts){d->view == TEXLA_PNG_RAW, d->map, d->fixed_range != 0, d->lo, d->hi,
                d->scale ? d->scale : 1, d->colorbar != 0, d->plot != 0, d->log_y != 0,
                d->annotate != 0, d->spy,
                {.width = d->width, .height = d->height, .log_y = d->log_y != 0,
                 .title = d->title, .xlabel = d->xlabel, .ylabel = d->ylabel}};
    /* a spy dot is at least 2 x 2 pixels */
    if (o->spy && o->scale < 2) o->scale = 2;
    return TEXLA_OK;
}

typedef texla__grid grid;
#define CELL_VALUE TEXLA__CELL_VALUE
#define CELL_PAD TEXLA__CELL_PAD
#define CELL_BACK TEXLA__CELL_BACK
#define grid_free texla__grid_free

/* ---- encoding ---- */

enum { FMT_RGB8, FMT_G8, FMT_GA8, FMT_G16, FMT_GA16 };
static const int fmt_bpp[] = {3, 1, 2, 2, 4};

/* where v falls in lo..hi, clamped to [0, 1]; lo == hi: 0.5 at v == lo */
static double unit(float v, float lo, float hi) {
    if (!(hi > lo)) return v < lo ? 0.0 : v > hi ? 1.0 : 0.5;
    double t = ((double)v - lo) / ((double)hi - lo);
    return t < 0 ? 0.0 : t > 1 ? 1.0 : t;
}

static int level(double t, int top) { return (int)(t * top + 0.5); }

static void diverging(double t, uint8_t out[3]) {
    double pos = level(t, 254) * 10.0 / 254.0;
    int i = (int)pos;
    if (i > 9) i = 9;
    double f = pos - i;
    for (int c = 0; c < 3; c++)
        out[c] = (uint8_t)(rdbu[i][c] + f * (rdbu[i + 1][c] - rdbu[i][c]) + 0.5);
}

static void rgb(uint8_t *p, const uint8_t c[3]) { p[0] = c[0], p[1] = c[1], p[2] = c[2]; }

/* the colour of t in [0, 1] on a map (grey maps as grey) */
static void map_colour(texla_png_map map, double t, uint8_t *p) {
    if (map == TEXLA_MAP_DIVERGING) {
        diverging(t, p);
    } else if (map == TEXLA_MAP_GRAY || map == TEXLA_MAP_GRAY16) {
        p[0] = p[1] = p[2] = (uint8_t)level(t, 255);
    } else {
        rgb(p, viridis[level(t, 255)]);
    }
}

/* spy views: the background and the plain dots */
static const uint8_t SPY_DOT[3] = {20, 20, 20};

static void encode_cell(uint8_t *p, int fmt, texla_png_map map, float v, int cls, float lo,
                        float hi, texla_png_spy spy) {
    if (fmt == FMT_RGB8) {
        if (spy && (cls != CELL_VALUE || v == 0.0f)) rgb(p, texla__paper);
        else if (cls == CELL_PAD) rgb(p, COLOUR_PAD);
        else if (cls == CELL_BACK) rgb(p, COLOUR_BACK);
        else if (isnan(v)) rgb(p, COLOUR_NAN);
        else if (isinf(v)) rgb(p, v > 0 ? COLOUR_PINF : COLOUR_NINF);
        else if (spy == TEXLA_SPY_DOTS) rgb(p, SPY_DOT);
        else map_colour(map, unit(v, lo, hi), p);
        return;
    }
    int wide = fmt == FMT_G16 || fmt == FMT_GA16, top = wide ? 65535 : 255;
    int ok = cls == CELL_VALUE && isfinite(v);
    int g = ok ? level(unit(v, lo, hi), top) : cls == CELL_VALUE && v > 0 && isinf(v) ? top : 0;
    int a = ok ? top : 0;
    if (wide) {
        p[0] = (uint8_t)(g >> 8), p[1] = (uint8_t)g;
        if (fmt == FMT_GA16) p[2] = (uint8_t)(a >> 8), p[3] = (uint8_t)a;
    } else {
        p[0] = (uint8_t)g;
        if (fmt == FMT_GA8) p[1] = (uint8_t)a;
    }
}

/* ---- numbers in text chunks, with '.' whatever the locale says ---- */

/* "LO HI" as written by write_image, read in the "C" numeric locale whatever LC_NUMERIC the
 * application set; 0: not two finite numbers with LO <= HI; -1: out of memory (no locale) */
static int parse_range(const char *s, float *lo, float *hi) {
    texla__cnum n;
    if (texla__cnum_open(&n)) return -1;
    char *e1, *e2;
    float a = texla__strtof_in(&n, s, &e1);
    float b = texla__strtof_in(&n, e1, &e2);
    texla__cnum_close(&n);
    while (*e2 == ' ' || *e2 == '\t') e2++;
    if (e1 == s || e2 == e1 || *e2 || !isfinite(a) || !isfinite(b) || a > b) return 0;
    *lo = a, *hi = b;
    return 1;
}

/* ---- libpng errors: recorded, then longjmp back to the setjmp of the job ---- */

typedef struct pngerr {
    char msg[200];
    int err; /* errno when libpng gave up (a failed fwrite sets it) */
} pngerr;

static void on_error(png_structp png, png_const_charp msg) {
    pngerr *e = png_get_error_ptr(png);
    e->err = errno;
    snprintf(e->msg, sizeof e->msg, "%s", msg ? msg : "unknown error");
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg) {
    (void)png, (void)msg;
}

/* ---- writing ---- */

typedef struct wjob {
    pngerr e;
    png_structp png;
    png_infop info;
    FILE *f;
    const uint8_t *px; /* encoded cells */
    uint8_t *row;      /* one upscaled row */
    int w, h, scale, bpp, depth, colour;
    png_text text[10];
    int ntext;
} wjob;

/* Everything libpng may longjmp out of; all state lives in *j (not in locals of this function
 * that setjmp would leave indeterminate). 0: written; -1: libpng failed (j->e). */
static int write_body(wjob *j) {
    if (setjmp(png_jmpbuf(j->png))) return -1;
    png_init_io(j->png, j->f);
    png_set_IHDR(j->png, j->info, (png_uint_32)(j->w * j->scale), (png_uint_32)(j->h * j->scale),
                 j->depth, j->colour, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_set_text(j->png, j->info, j->text, j->ntext);
    png_write_info(j->png, j->info);
    size_t cellrow = (size_t)j->w * (size_t)j->bpp;
    for (int y = 0; y < j->h; y++) {
        const uint8_t *src = j->px + (size_t)y * cellrow;
        if (j->scale > 1) {
            uint8_t *d = j->row;
            for (int x = 0; x < j->w; x++)
                for (int s = 0; s < j->scale; s++, d += j->bpp)
                    memcpy(d, src + (size_t)x * (size_t)j->bpp, (size_t)j->bpp);
            src = j->row;
        }
        for (int s = 0; s < j->scale; s++) png_write_row(j->png, src);
    }
    png_write_end(j->png, NULL);
    return 0;
}

/* the text chunks of an image: key, value pairs */
typedef struct texts {
    const char *key[10], *val[10];
    int n;
} texts;

static void add_text(texts *t, const char *key, const char *val) {
    if (t->n < 10) t->key[t->n] = key, t->val[t->n] = val, t->n++;
}

/* Writes w x h encoded cells (fmt), each upscaled to scale x scale pixels, with the texts, to
 * path atomically. */
static texla_result write_png(texla_ctx *ctx, const char *fn, const char *path, const uint8_t *px,
                              int w, int h, int scale, int fmt, const texts *t) {
    wjob j = {.w = w, .h = h, .scale = scale, .bpp = fmt_bpp[fmt], .px = px,
              .depth = fmt == FMT_G16 || fmt == FMT_GA16 ? 16 : 8,
              .colour = fmt == FMT_RGB8                    ? PNG_COLOR_TYPE_RGB
                        : fmt == FMT_GA8 || fmt == FMT_GA16 ? PNG_COLOR_TYPE_GRAY_ALPHA
                                                             : PNG_COLOR_TYPE_GRAY};
    j.row = scale > 1 ? malloc((size_t)w * (size_t)scale * (size_t)j.bpp) : NULL;
    if (scale > 1 && !j.row)
        return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory for a %d x %d image", fn,
                           w * scale, h * scale);
    for (int i = 0; i < t->n; i++) /* libpng copies the text; it only reads it through these
                                      non-const pointers */
        j.text[j.ntext++] = (png_text){.compression = PNG_TEXT_COMPRESSION_NONE,
                                       .key = (png_charp)(uintptr_t)t->key[i],
                                       .text = (png_charp)(uintptr_t)t->val[i]};
    texla__afile af;
    texla_result r = texla__afile_open(&ctx->err, fn, path, &af);
    if (!r) {
        j.f = af.f;
        j.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &j.e, on_error, on_warning);
        if (j.png) j.info = png_create_info_struct(j.png);
        int err = 0;
        const char *what = NULL;
        char pngmsg[sizeof j.e.msg + 16];
        if (!j.png || !j.info) {
            what = "out of memory for libpng";
        } else {
            errno = 0;
            if (write_body(&j)) {
                snprintf(pngmsg, sizeof pngmsg, "libpng: %s", j.e.msg);
                what = pngmsg, err = j.e.err;
            }
        }
        png_destroy_write_struct(j.png ? &j.png : NULL, j.info ? &j.info : NULL);
        r = texla__afile_commit(&ctx->err, fn, &af, err, what);
    }
    free(j.row);
    return r;
}

/* ---- decorations: separators and labels between the blocks of a picture, a colour bar ---- */

static const uint8_t SEPARATOR[3] = {90, 90, 90}, BAR_FRAME[3] = {120, 120, 120};

#define BAR_GAP 10
#define BAR_W 16
#define BAR_MIN_H 128

/* The picture of g (RGB cells px, scale s) on a canvas: a label column and separators when
 * annotated, a colour bar for lo..hi when asked. */
static texla_result decorate(texla_ctx *ctx, const char *fn, const grid *g, const uint8_t *px,
                             int s, const opts *o, texla_png_map map, float lo, float hi,
                             texla__canvas *c) {
    int nb = o->annotate ? g->nbands : 0, lw = 0;
    texla__grid_band whole = {0, g->h, ""};
    const texla__grid_band *bands = nb ? g->bands : &whole;
    if (!nb) nb = 1;
    else
        for (int i = 0; i < nb; i++) {
            int tw = texla__text_width(bands[i].label);
            if (tw + 8 > lw) lw = tw + 8;
        }
    int sep = o->annotate && g->nbands > 1 ? 2 : 0;
    int iw = g->w * s, ih = g->h * s + sep * (nb - 1);
    char lab[5][24];
    int nlab = 0, labw = 0;
    if (o->colorbar) {
        double span = (double)hi - lo;
        nlab = span > 0 ? 5 : 1;
        for (int k = 0; k < nlab; k++) {
            texla__label(lab[k], sizeof lab[k], nlab == 1 ? lo : hi - span * k / 4.0);
            if (texla__text_width(lab[k]) > labw) labw = texla__text_width(lab[k]);
        }
    }
    int cw = lw + iw + (o->colorbar ? BAR_GAP + BAR_W + 6 + labw + 4 : 0);
    int ch = o->colorbar && ih < BAR_MIN_H ? BAR_MIN_H : ih;
    if (cw > MAX_SIDE || ch > MAX_SIDE)
        return texla__fail(ctx, TEXLA_ERR_LIMIT, "%s: the image with its decorations would be "
                           "%d x %d pixels; at most %d per side", fn, cw, ch, MAX_SIDE);
    texla_result r = texla__canvas_make(&ctx->err, fn, cw, ch, c);
    if (r) return r;
    for (int b = 0; b < nb; b++) {
        int cy0 = bands[b].y0 * s + sep * b;
        for (int y = 0; y < bands[b].h * s; y++) {
            const uint8_t *src = px + (size_t)(bands[b].y0 + y / s) * (size_t)g->w * 3;
            uint8_t *dst = c->rgb + ((size_t)(cy0 + y) * (size_t)cw + (size_t)lw) * 3;
            for (int x = 0; x < iw; x++) memcpy(dst + 3 * x, src + 3 * (x / s), 3);
        }
        if (sep && b) texla__canvas_rect(c, 0, cy0 - sep, lw + iw, sep, SEPARATOR);
        if (lw) texla__canvas_text(c, 3, cy0 + (bands[b].h * s >= 9 ? 1 : 0), bands[b].label,
                                   texla__ink);
    }
    if (o->colorbar) { /* hi at the top, lo at the bottom */
        int bx = lw + iw + BAR_GAP, by = 4, bh = ch - 8;
        for (int y = 0; y < bh; y++) {
            uint8_t col[3];
            map_colour(map, bh > 1 ? 1.0 - (double)y / (bh - 1) : 0.5, col);
            texla__canvas_rect(c, bx, by + y, BAR_W, 1, col);
        }
        texla__canvas_line(c, bx - 1, by - 1, bx + BAR_W, by - 1, BAR_FRAME);
        texla__canvas_line(c, bx - 1, by + bh, bx + BAR_W, by + bh, BAR_FRAME);
        texla__canvas_line(c, bx - 1, by - 1, bx - 1, by + bh, BAR_FRAME);
        texla__canvas_line(c, bx + BAR_W, by - 1, bx + BAR_W, by + bh, BAR_FRAME);
        for (int k = 0; k < nlab; k++) {
            int ty = nlab == 1 ? by + bh / 2 : by + (int)lround((bh - 1) * k / 4.0);
            texla__canvas_line(c, bx + BAR_W, ty, bx + BAR_W + 3, ty, BAR_FRAME);
            int yy = ty - 3 < 0 ? 0 : ty - 3 > ch - 7 ? ch - 7 : ty - 3;
            texla__canvas_text(c, bx + BAR_W + 6, yy, lab[k], texla__ink);
        }
    }
    return TEXLA_OK;
}

/* Resolves the range and the map, encodes g and writes it to path atomically. Frees g. */
static texla_result write_image(texla_ctx *ctx, const char *fn, const char *path, const opts *o,
                                grid *g) {
    size_t n = (size_t)g->w * (size_t)g->h;
    /* the range: given, the GPU's, or the finite values' here */
    float lo = g->lo, hi = g->hi;
    long long nan = 0, pinf = 0, ninf = 0, special = 0;
    for (size_t i = 0; i < n; i++) {
        if (g->cls[i] != CELL_VALUE) {
            special++;
            continue;
        }
        float v = g->v[i];
        if (isnan(v)) nan++;
        else if (isinf(v) && v > 0) pinf++;
        else if (isinf(v)) ninf++;
        else if (!g->gpu) {
            if (v < lo) lo = v;
            if (v > hi) hi = v;
        }
    }
    if (o->fixed) lo = o->lo, hi = o->hi;
    if (!(lo <= hi)) lo = hi = 0.0f; /* nothing finite */
    texla_png_map map = o->map;
    if (map == TEXLA_MAP_AUTO) map = lo < 0 && hi > 0 ? TEXLA_MAP_DIVERGING : TEXLA_MAP_VIRIDIS;
    if (map == TEXLA_MAP_DIVERGING) {
        float m = fabsf(lo) > fabsf(hi) ? fabsf(lo) : fabsf(hi);
        lo = -m, hi = m;
    }
    int decorated = o->colorbar || (o->annotate && g->nbands > 0);
    int alpha = special + nan + pinf + ninf > 0;
    int fmt = decorated || o->spy   ? FMT_RGB8
              : map == TEXLA_MAP_GRAY   ? (alpha ? FMT_GA8 : FMT_G8)
              : map == TEXLA_MAP_GRAY16 ? (alpha ? FMT_GA16 : FMT_G16)
                                        : FMT_RGB8;
    uint8_t *px = malloc(n * (size_t)fmt_bpp[fmt]);
    if (!px) {
        grid_free(g);
        return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory for a %d x %d image", fn,
                           g->w * o->scale, g->h * o->scale);
    }
    for (size_t i = 0; i < n; i++)
        encode_cell(px + i * (size_t)fmt_bpp[fmt], fmt, map, g->v[i], g->cls[i], lo, hi, o->spy);

    char range[64], nonfinite[96], desc[400];
    texla__snprintf_c(range, sizeof range, "%.9g %.9g", lo, hi); /* '.' whatever the locale */
    snprintf(nonfinite, sizeof nonfinite, "nan %lld +inf %lld -inf %lld", nan, pinf, ninf);
    snprintf(desc, sizeof desc, "texla %s view of %s; values %s, map %s%s%s", o->raw ? "raw" :
             "logical", g->shape, range, map_names[map], nan + pinf + ninf ? "; " : "",
             nan + pinf + ninf ? nonfinite : "");
    texts t = {0};
    add_text(&t, "texla:range", range);
    add_text(&t, "texla:view", o->raw ? "raw" : "logical");
    add_text(&t, "texla:shape", g->shape);
    add_text(&t, "texla:layout", g->layout);
    add_text(&t, "texla:map", map_names[map]);
    if (nan + pinf + ninf) add_text(&t, "texla:nonfinite", nonfinite);
    if (alpha && fmt != FMT_RGB8)
        add_text(&t, "texla:alpha", "0 marks NaN, Inf, padding and background");
    add_text(&t, "Description", desc);
    add_text(&t, "Software", "texla " TEXLA_VERSION_STRING);

    texla_result r;
    if (decorated) {
        /* labelled blocks at least 10 pixels tall where the side limit allows */
        int s = o->scale, minh = g->h;
        for (int b = 0; o->annotate && b < g->nbands; b++)
            if (g->bands[b].h < minh) minh = g->bands[b].h;
        if (o->annotate && g->nbands && minh * s < 10) {
            int need = (10 + minh - 1) / minh;
            if ((long long)g->w * need <= MAX_SIDE && (long long)g->h * need <= MAX_SIDE) s = need;
        }
        texla__canvas c = {0};
        r = decorate(ctx, fn, g, px, s, o, map, lo, hi, &c);
        if (!r) r = write_png(ctx, fn, path, c.rgb, c.w, c.h, 1, FMT_RGB8, &t);
        texla__canvas_free(&c);
    } else {
        r = write_png(ctx, fn, path, px, g->w, g->h, o->scale, fmt, &t);
    }
    free(px), grid_free(g);
    return r;
}

/* ---- line plots ---- */

static texla_result write_plot(texla_ctx *ctx, const char *fn, const char *path, const opts *o,
                               const double *x, const double *y, size_t n, const char *shape) {
    texla__canvas c = {0};
    texla_result r = texla__plot(&ctx->err, fn, x, y, n, &o->pd, &c);
    if (r) return r;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (isfinite(y[i])) lo = fmin(lo, y[i]), hi = fmax(hi, y[i]);
    if (!(lo <= hi)) lo = hi = 0;
    char range[64], desc[400];
    texla__snprintf_c(range, sizeof range, "%.9g %.9g", lo, hi); /* '.' whatever the locale */
    snprintf(desc, sizeof desc, "texla line plot of %s (%zu points%s); values %s%s%s", shape, n,
             o->pd.log_y ? ", log10 value axis" : "", range, o->pd.title ? "; " : "",
             o->pd.title ? o->pd.title : "");
    texts t = {0};
    add_text(&t, "texla:range", range);
    add_text(&t, "texla:view", "plot");
    add_text(&t, "texla:shape", shape);
    add_text(&t, "Description", desc);
    add_text(&t, "Software", "texla " TEXLA_VERSION_STRING);
    r = write_png(ctx, fn, path, c.rgb, c.w, c.h, 1, FMT_RGB8, &t);
    texla__canvas_free(&c);
    return r;
}

/* the values of a vector's grid in element order (its value cells, row by row) */
static texla_result plot_grid(texla_ctx *ctx, const char *fn, const char *path, const opts *o,
                              texla__kind kind, grid *g) {
    int vector = kind == TEXLA__KIND_VEC || kind == TEXLA__KIND_SCALAR ||
                 (kind == TEXLA__KIND_MAT && (g->w == 1 || g->h == 1));
    if (!vector) {
        texla_result r = texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                                     "%s: a line plot needs a vector (n x 1, 1 x n, a 2D vector or "
                                     "a scalar); this is %s", fn, g->shape);
        grid_free(g);
        return r;
    }
    size_t n = (size_t)g->w * (size_t)g->h, m = 0;
    double *y = malloc(sizeof *y * (n ? n : 1));
    if (!y) {
        grid_free(g);
        return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory", fn);
    }
    for (size_t i = 0; i < n; i++)
        if (g->cls[i] == CELL_VALUE) y[m++] = g->v[i];
    texla_result r = write_plot(ctx, fn, path, o, NULL, y, m, g->shape);
    free(y), grid_free(g);
    return r;
}

/* ---- the objects: each storage kind draws its grid (core/grid.c, storage/) ---- */

static texla_result dump(texla_ctx *ctx, const char *fn, uint64_t id, texla__kind kind,
                         const char *path, const texla_png_desc *desc) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    opts o;
    texla_result r = get_opts(ctx, fn, path, desc, &o);
    if (r) return r;
    /* a plot takes the values, not a picture of them: no side limit, no range */
    texla__grid_req q = {fn, o.raw, !o.fixed && !o.plot, o.plot ? 0x7fffffff : MAX_SIDE,
                         o.plot ? 1 : o.scale};
    grid g = {0};
    r = texla__grid_of(ctx, id, kind, &q, &g);
    if (r) return r;
    return o.plot ? plot_grid(ctx, fn, path, &o, kind, &g) : write_image(ctx, fn, path, &o, &g);
}

texla_result texla_png_mat(texla_ctx *ctx, texla_mat m, const char *path,
                           const texla_png_desc *desc) {
    return dump(ctx, "texla_png_mat", m.id, TEXLA__KIND_MAT, path, desc);
}

texla_result texla_png_scalar(texla_ctx *ctx, texla_scalar s, const char *path,
                              const texla_png_desc *desc) {
    return dump(ctx, "texla_png_scalar", s.id, TEXLA__KIND_SCALAR, path, desc);
}

texla_result texla_png_vec(texla_ctx *ctx, texla_vec v, const char *path,
                           const texla_png_desc *desc) {
    return dump(ctx, "texla_png_vec", v.id, TEXLA__KIND_VEC, path, desc);
}

texla_result texla_png_banded(texla_ctx *ctx, texla_banded a, const char *path,
                              const texla_png_desc *desc) {
    return dump(ctx, "texla_png_banded", a.id, TEXLA__KIND_BANDED, path, desc);
}

texla_result texla_png_sparse(texla_ctx *ctx, texla_sparse a, const char *path,
                              const texla_png_desc *desc) {
    return dump(ctx, "texla_png_sparse", a.id, TEXLA__KIND_SPARSE, path, desc);
}

texla_result texla_png_texture(texla_ctx *ctx, uint32_t texture, int width, int height,
                               const char *path, const texla_png_desc *desc) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_png_texture";
    opts o;
    texla_result r = get_opts(ctx, fn, path, desc, &o);
    if (r) return r;
    if (!texture) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: texture is 0", fn);
    if (width < 1 || height < 1)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: the size is %d x %d; both must be >= 1",
                           fn, width, height);
    texla__grid_req q = {fn, o.raw, !o.fixed, o.plot ? 0x7fffffff : MAX_SIDE, o.plot ? 1 : o.scale};
    grid g = {0};
    r = texla__grid_texture(ctx, texture, width, height, &q, &g);
    if (r) return r;
    /* a texture one texel wide or high plots as a vector */
    return o.plot ? plot_grid(ctx, fn, path, &o, g.w == 1 || g.h == 1 ? TEXLA__KIND_MAT
                                                                      : TEXLA__KIND_BANDED, &g)
                  : write_image(ctx, fn, path, &o, &g);
}

texla_result texla_png_plot(texla_ctx *ctx, const float *x, const float *y, int n,
                            const char *path, const texla_png_desc *desc) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_png_plot";
    if (!y) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: y is NULL", fn);
    if (n < 1) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: n is %d; it must be >= 1", fn, n);
    texla_png_desc d = {0};
    if (desc) { /* the plot's own fields; a map or a view means nothing here */
        d.width = desc->width, d.height = desc->height, d.log_y = desc->log_y;
        d.title = desc->title, d.xlabel = desc->xlabel, d.ylabel = desc->ylabel;
        if (desc->npoints < 0 || (desc->npoints > 0 && !desc->points_y))
            return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: desc->npoints is %d with points_y "
                               "%s", fn, desc->npoints, desc->points_y ? "given" : "NULL");
    }
    d.plot = 1;
    opts o;
    texla_result r = get_opts(ctx, fn, path, &d, &o);
    if (r) return r;
    int pn = desc && desc->points_y ? desc->npoints : 0;
    double *xd = x ? malloc(sizeof *xd * (size_t)n) : NULL, *yd = malloc(sizeof *yd * (size_t)n);
    double *pxd = pn && desc->points_x ? malloc(sizeof *pxd * (size_t)pn) : NULL;
    double *pyd = pn ? malloc(sizeof *pyd * (size_t)pn) : NULL;
    if (!yd || (x && !xd) || (pn && !pyd) || (pn && desc->points_x && !pxd)) {
        free(xd), free(yd), free(pxd), free(pyd);
        return texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: out of host memory for %d points", fn, n);
    }
    for (int i = 0; i < n; i++) {
        yd[i] = y[i];
        if (x) xd[i] = x[i];
    }
    for (int i = 0; i < pn; i++) {
        pyd[i] = desc->points_y[i];
        if (pxd) pxd[i] = desc->points_x[i];
    }
    o.pd.px = pxd, o.pd.py = pyd, o.pd.pn = (size_t)pn;
    if (desc) o.pd.line_label = desc->line_label, o.pd.points_label = desc->points_label;
    char shape[64];
    snprintf(shape, sizeof shape, pn ? "%d points and %d dots" : "%d points", n, pn);
    r = write_plot(ctx, fn, path, &o, xd, yd, (size_t)n, shape);
    free(xd), free(yd), free(pxd), free(pyd);
    return r;
}

/* ---- reading ---- */

typedef struct rjob {
    pngerr e;
    png_structp png;
    png_infop info;
    FILE *f;
    int max_w, max_h;      /* the largest matrix this GL holds */
    long long budget;      /* pixels (texla_ctx_desc.png_max_pixels) */
    png_uint_32 w, h;
    int ch, depth;
    int too_big, over_budget, no_memory;
    png_bytep *rows;       /* interlaced: every row; else rows[0] is the one row */
    uint8_t *pix;
    float *data;           /* w * h: the sum of each pixel's samples (exact in a float) */
    const char *range;     /* the texla:range text (owned by libpng until destroy) */
} rjob;

/* the sum of the samples of each pixel of a decoded row into data */
static void sum_row(const rjob *j, const uint8_t *p, float *data) {
    int step = j->ch * (j->depth == 16 ? 2 : 1);
    for (png_uint_32 x = 0; x < j->w; x++, p += step) {
        unsigned s = 0;
        for (int c = 0; c < j->ch; c++) s += j->depth == 16 ? (unsigned)(p[2 * c] << 8 | p[2 * c + 1]) : p[c];
        data[x] = (float)s;
    }
}

/* the ancillary chunks skipped unread (tEXt is kept: texla:range) */
static const png_byte skipped[] = "bKGD" "cHRM" "eXIf" "gAMA" "hIST" "iCCP" "iTXt" "oFFs"
                                  "pCAL" "pHYs" "sBIT" "sCAL" "sPLT" "sRGB" "tIME" "zTXt";

/* All libpng calls of a read; state lives in *j (see write_body). 0: read; 1: stopped before
 * the pixels (too_big, over_budget, no_memory); -1: libpng failed (j->e). */
static int read_body(rjob *j) {
    if (setjmp(png_jmpbuf(j->png))) return -1;
    png_set_benign_errors(j->png, 0);
    png_set_chunk_malloc_max(j->png, MAX_CHUNK);
    png_set_chunk_cache_max(j->png, MAX_CHUNKS);
    png_set_keep_unknown_chunks(j->png, PNG_HANDLE_CHUNK_NEVER, skipped,
                                (int)(sizeof skipped - 1) / 4);
    png_init_io(j->png, j->f);
    png_set_sig_bytes(j->png, 8);
    png_read_info(j->png, j->info);
    int depth, colour, interlace;
    png_get_IHDR(j->png, j->info, &j->w, &j->h, &depth, &colour, &interlace, NULL, NULL);
    if (j->w > (png_uint_32)j->max_w || j->h > (png_uint_32)j->max_h) {
        j->too_big = 1;
        return 1;
    }
    if ((long long)j->w * (long long)j->h > j->budget) {
        j->over_budget = 1;
        return 1;
    }
    if (colour == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(j->png);
    if (colour == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(j->png);
    /* alpha dropped, also the one a palette's tRNS becomes when expanded (it was averaged
     * into the value: 0.875 for a white pixel of alpha 128) */
    if ((colour & PNG_COLOR_MASK_ALPHA) ||
        (colour == PNG_COLOR_TYPE_PALETTE && png_get_valid(j->png, j->info, PNG_INFO_tRNS)))
        png_set_strip_alpha(j->png);
    int passes = interlace != PNG_INTERLACE_NONE ? png_set_interlace_handling(j->png) : 1;
    png_read_update_info(j->png, j->info);
    j->ch = png_get_channels(j->png, j->info);
    j->depth = png_get_bit_depth(j->png, j->info);
    size_t rb = png_get_rowbytes(j->png, j->info), nrows = passes > 1 ? j->h : 1;
    j->data = malloc(sizeof *j->data * (size_t)j->w * j->h); /* libpng refuses 0 x 0 */
    j->pix = malloc(rb * nrows);
    j->rows = malloc(sizeof *j->rows * nrows);
    if (!j->data || !j->pix || !j->rows) {
        j->no_memory = 1;
        return 1;
    }
    for (size_t y = 0; y < nrows; y++) j->rows[y] = j->pix + rb * y;
    if (passes > 1) {
        png_read_image(j->png, j->rows);
        for (png_uint_32 y = 0; y < j->h; y++) sum_row(j, j->rows[y], j->data + (size_t)y * j->w);
    } else {
        for (png_uint_32 y = 0; y < j->h; y++) {
            png_read_row(j->png, j->rows[0], NULL);
            sum_row(j, j->rows[0], j->data + (size_t)y * j->w);
        }
    }
    png_read_end(j->png, j->info);
    png_textp text;
    int nt = 0;
    png_get_text(j->png, j->info, &text, &nt);
    for (int i = 0; i < nt; i++)
        if (!strcmp(text[i].key, "texla:range")) j->range = text[i].text;
    return 0;
}

texla_result texla_png_read(texla_ctx *ctx, const char *path, texla_mat *out) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_png_read";
    if (!out) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: out is NULL", fn);
    out->id = 0;
    if (!path) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: path is NULL", fn);
    rjob j = {.max_w = ctx->gl.info.max_texture_size,
              .budget = ctx->desc.png_max_pixels ? ctx->desc.png_max_pixels
                                                 : TEXLA_PNG_MAX_PIXELS_DEFAULT};
    j.max_h = ctx->gl.info.max_texture_size > 0x1fffffff ? 0x7fffffff
                                                          : 4 * ctx->gl.info.max_texture_size;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
        return texla__fail(ctx, TEXLA_ERR_IO, "%s: %s: is %s; PNG files are read from regular "
                           "files or pipes", fn, path,
                           S_ISDIR(st.st_mode) ? "a directory" : S_ISCHR(st.st_mode) ? "a character device"
                           : S_ISBLK(st.st_mode) ? "a block device" : S_ISSOCK(st.st_mode) ? "a socket"
                           : "not a regular file");
    j.f = fopen(path, "rb");
    if (!j.f) return texla__fail(ctx, TEXLA_ERR_IO, "%s: %s: %s", fn, path, strerror(errno));
    unsigned char sig[8];
    size_t got = fread(sig, 1, 8, j.f);
    if (got < 8 || png_sig_cmp(sig, 0, 8)) {
        int err = ferror(j.f) ? errno : 0;
        fclose(j.f);
        if (err) return texla__fail(ctx, TEXLA_ERR_IO, "%s: %s: %s", fn, path, strerror(err));
        return texla__fail(ctx, TEXLA_ERR_FORMAT, "%s: %s: not a PNG file (no PNG signature)", fn,
                           path);
    }
    j.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &j.e, on_error, on_warning);
    if (j.png) j.info = png_create_info_struct(j.png);
    texla_result r = TEXLA_OK;
    float *data = NULL;
    if (!j.png || !j.info) {
        r = texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: %s: out of memory for libpng", fn, path);
    } else {
        int rst = read_body(&j);
        if (rst < 0)
            r = texla__fail(ctx, TEXLA_ERR_FORMAT, "%s: %s: malformed PNG: %s%s", fn, path, j.e.msg,
                            strstr(j.e.msg, "too large") || strstr(j.e.msg, "chunk cache")
                                ? " (texla reads chunks of at most 8 MiB, 256 ancillary chunks)"
                                : "");
        else if (j.over_budget)
            r = texla__fail(ctx, TEXLA_ERR_LIMIT,
                            "%s: %s: the image is %u x %u = %lld pixels, over the budget of %lld "
                            "pixels for reading a PNG (texla_ctx_desc.png_max_pixels; default "
                            "%lld)", fn, path, (unsigned)j.w, (unsigned)j.h,
                            (long long)j.w * (long long)j.h, j.budget,
                            (long long)TEXLA_PNG_MAX_PIXELS_DEFAULT);
        else if (j.too_big)
            r = texla__fail(ctx, TEXLA_ERR_LIMIT,
                            "%s: %s: the image is %u x %u pixels; a matrix of this GL holds at "
                            "most %d columns and %d rows", fn, path, (unsigned)j.w, (unsigned)j.h,
                            j.max_w, j.max_h);
        else if (j.no_memory)
            r = texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: %s: out of host memory for %u x %u pixels",
                            fn, path, (unsigned)j.w, (unsigned)j.h);
    }
    float lo = 0.0f, hi = 1.0f;
    int range_ok = !r && j.range ? parse_range(j.range, &lo, &hi) : 1;
    if (range_ok < 0)
        r = texla__fail(ctx, TEXLA_ERR_MEMORY, "%s: %s: out of memory reading texla:range", fn,
                        path);
    else if (!range_ok)
        r = texla__fail(ctx, TEXLA_ERR_FORMAT,
                        "%s: %s: texla:range is \"%s\"; expected two finite numbers LO HI with "
                        "LO <= HI", fn, path, j.range);
    if (!r) {
        double top = j.depth == 16 ? 65535.0 : 255.0, span = (double)hi - lo;
        data = j.data;
        j.data = NULL;
        for (size_t i = 0, n = (size_t)j.w * j.h; i < n; i++)
            data[i] = (float)(lo + (double)data[i] / (top * j.ch) * span);
    }
    png_destroy_read_struct(j.png ? &j.png : NULL, j.info ? &j.info : NULL, NULL);
    fclose(j.f);
    free(j.pix), free(j.rows), free(j.data);
    if (!r) r = texla_mat_make(ctx, (int)j.h, (int)j.w, data, out);
    free(data);
    return r;
}
