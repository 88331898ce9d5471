/* plot.c - texla's own small plotter for its PNG writer (io/png.c): an RGB canvas, a 5x7
 * bitmap font, lines and rectangles, and the line plot of a series (linear or log10 value
 * axis, "nice" ticks with numeric labels, title and axis labels). No GL and no libpng here: the
 * writer encodes the canvas.
 *
 * A series longer than the plot is wide is drawn as its envelope: each pixel column gets a
 * vertical stroke from the smallest to the largest value of the points that fall in it, joined
 * to its neighbours, so a spike of one element among millions stays visible. NaN and +-Inf are
 * left out and break the line; on a log axis, values <= 0 sit on the bottom edge. A second
 * series may be drawn as dots (a solver's true residuals beside its recurrence's). */
#include "io/io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The classic 5x7 character patterns of LCD controllers (public domain), ASCII 32..126: five
 * columns per character, bit 0 the top row. */
static const uint8_t font5x7[95][5] = {
    {0x00, 0x00, 0x00, 0x00, 0x00}, {0x00, 0x00, 0x5F, 0x00, 0x00}, {0x00, 0x07, 0x00, 0x07, 0x00},
    {0x14, 0x7F, 0x14, 0x7F, 0x14}, {0x24, 0x2A, 0x7F, 0x2A, 0x12}, {0x23, 0x13, 0x08, 0x64, 0x62},
    {0x36, 0x49, 0x55, 0x22, 0x50}, {0x00, 0x05, 0x03, 0x00, 0x00}, {0x00, 0x1C, 0x22, 0x41, 0x00},
    {0x00, 0x41, 0x22, 0x1C, 0x00}, {0x08, 0x2A, 0x1C, 0x2A, 0x08}, {0x08, 0x08, 0x3E, 0x08, 0x08},
    {0x00, 0x50, 0x30, 0x00, 0x00}, {0x08, 0x08, 0x08, 0x08, 0x08}, {0x00, 0x60, 0x60, 0x00, 0x00},
    {0x20, 0x10, 0x08, 0x04, 0x02}, {0x3E, 0x51, 0x49, 0x45, 0x3E}, {0x00, 0x42, 0x7F, 0x40, 0x00},
    {0x42, 0x61, 0x51, 0x49, 0x46}, {0x21, 0x41, 0x45, 0x4B, 0x31}, {0x18, 0x14, 0x12, 0x7F, 0x10},
    {0x27, 0x45, 0x45, 0x45, 0x39}, {0x3C, 0x4A, 0x49, 0x49, 0x30}, {0x01, 0x71, 0x09, 0x05, 0x03},
    {0x36, 0x49, 0x49, 0x49, 0x36}, {0x06, 0x49, 0x49, 0x29, 0x1E}, {0x00, 0x36, 0x36, 0x00, 0x00},
    {0x00, 0x56, 0x36, 0x00, 0x00}, {0x08, 0x14, 0x22, 0x41, 0x00}, {0x14, 0x14, 0x14, 0x14, 0x14},
    {0x00, 0x41, 0x22, 0x14, 0x08}, {0x02, 0x01, 0x51, 0x09, 0x06}, {0x32, 0x49, 0x79, 0x41, 0x3E},
    {0x7E, 0x11, 0x11, 0x11, 0x7E}, {0x7F, 0x49, 0x49, 0x49, 0x36}, {0x3E, 0x41, 0x41, 0x41, 0x22},
    {0x7F, 0x41, 0x41, 0x22, 0x1C}, {0x7F, 0x49, 0x49, 0x49, 0x41}, {0x7F, 0x09, 0x09, 0x09, 0x01},
    {0x3E, 0x41, 0x49, 0x49, 0x7A}, {0x7F, 0x08, 0x08, 0x08, 0x7F}, {0x00, 0x41, 0x7F, 0x41, 0x00},
    {0x20, 0x40, 0x41, 0x3F, 0x01}, {0x7F, 0x08, 0x14, 0x22, 0x41}, {0x7F, 0x40, 0x40, 0x40, 0x40},
    {0x7F, 0x02, 0x0C, 0x02, 0x7F}, {0x7F, 0x04, 0x08, 0x10, 0x7F}, {0x3E, 0x41, 0x41, 0x41, 0x3E},
    {0x7F, 0x09, 0x09, 0x09, 0x06}, {0x3E, 0x41, 0x51, 0x21, 0x5E}, {0x7F, 0x09, 0x19, 0x29, 0x46},
    {0x46, 0x49, 0x49, 0x49, 0x31}, {0x01, 0x01, 0x7F, 0x01, 0x01}, {0x3F, 0x40, 0x40, 0x40, 0x3F},
    {0x1F, 0x20, 0x40, 0x20, 0x1F}, {0x3F, 0x40, 0x38, 0x40, 0x3F}, {0x63, 0x14, 0x08, 0x14, 0x63},
    {0x07, 0x08, 0x70, 0x08, 0x07}, {0x61, 0x51, 0x49, 0x45, 0x43}, {0x00, 0x7F, 0x41, 0x41, 0x00},
    {0x02, 0x04, 0x08, 0x10, 0x20}, {0x00, 0x41, 0x41, 0x7F, 0x00}, {0x04, 0x02, 0x01, 0x02, 0x04},
    {0x40, 0x40, 0x40, 0x40, 0x40}, {0x00, 0x01, 0x02, 0x04, 0x00}, {0x20, 0x54, 0x54, 0x54, 0x78},
    {0x7F, 0x48, 0x44, 0x44, 0x38}, {0x38, 0x44, 0x44, 0x44, 0x20}, {0x38, 0x44, 0x44, 0x48, 0x7F},
    {0x38, 0x54, 0x54, 0x54, 0x18}, {0x08, 0x7E, 0x09, 0x01, 0x02}, {0x08, 0x54, 0x54, 0x54, 0x3C},
    {0x7F, 0x08, 0x04, 0x04, 0x78}, {0x00, 0x44, 0x7D, 0x40, 0x00}, {0x20, 0x40, 0x44, 0x3D, 0x00},
    {0x7F, 0x10, 0x28, 0x44, 0x00}, {0x00, 0x41, 0x7F, 0x40, 0x00}, {0x7C, 0x04, 0x18, 0x04, 0x78},
    {0x7C, 0x08, 0x04, 0x04, 0x78}, {0x38, 0x44, 0x44, 0x44, 0x38}, {0x7C, 0x14, 0x14, 0x14, 0x08},
    {0x08, 0x14, 0x14, 0x18, 0x7C}, {0x7C, 0x08, 0x04, 0x04, 0x08}, {0x48, 0x54, 0x54, 0x54, 0x20},
    {0x04, 0x3F, 0x44, 0x40, 0x20}, {0x3C, 0x40, 0x40, 0x20, 0x7C}, {0x1C, 0x20, 0x40, 0x20, 0x1C},
    {0x3C, 0x40, 0x30, 0x40, 0x3C}, {0x44, 0x28, 0x10, 0x28, 0x44}, {0x0C, 0x50, 0x50, 0x50, 0x3C},
    {0x44, 0x64, 0x54, 0x4C, 0x44}, {0x00, 0x08, 0x36, 0x41, 0x00}, {0x00, 0x00, 0x7F, 0x00, 0x00},
    {0x00, 0x41, 0x36, 0x08, 0x00}, {0x08, 0x04, 0x08, 0x10, 0x08},
};

const uint8_t texla__ink[3] = {0, 0, 0}, texla__paper[3] = {255, 255, 255};
static const uint8_t GRID[3] = {228, 228, 228}, FRAME[3] = {120, 120, 120},
                     LINE[3] = {31, 119, 180}, DOTS[3] = {230, 97, 1};

/* ---- canvas ---- */

texla_result texla__canvas_make(texla__err *e, const char *fn, int w, int h, texla__canvas *c) {
    c->w = w, c->h = h;
    c->rgb = malloc((size_t)w * (size_t)h * 3);
    if (!c->rgb)
        return texla__errf(e, TEXLA_ERR_MEMORY, "%s: out of host memory for a %d x %d image", fn,
                           w, h);
    memset(c->rgb, 255, (size_t)w * (size_t)h * 3);
    return TEXLA_OK;
}

void texla__canvas_free(texla__canvas *c) {
    free(c->rgb);
    c->rgb = NULL;
}

void texla__canvas_put(texla__canvas *c, int x, int y, const uint8_t col[3]) {
    if (x < 0 || y < 0 || x >= c->w || y >= c->h) return;
    uint8_t *p = c->rgb + ((size_t)y * (size_t)c->w + (size_t)x) * 3;
    p[0] = col[0], p[1] = col[1], p[2] = col[2];
}

void texla__canvas_rect(texla__canvas *c, int x, int y, int w, int h, const uint8_t col[3]) {
    for (int j = y; j < y + h; j++)
        for (int i = x; i < x + w; i++) texla__canvas_put(c, i, j, col);
}

void texla__canvas_line(texla__canvas *c, int x0, int y0, int x1, int y1, const uint8_t col[3]) {
    int dx = abs(x1 - x0), dy = -abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    for (;;) { /* Bresenham */
        texla__canvas_put(c, x0, y0, col);
        if (x0 == x1 && y0 == y1) break;
        int e2 = 2 * err;
        if (e2 >= dy) err += dy, x0 += sx;
        if (e2 <= dx) err += dx, y0 += sy;
    }
}

int texla__text_width(const char *s) {
    size_t n = strlen(s);
    return n ? (int)n * 6 - 1 : 0;
}

void texla__canvas_text(texla__canvas *c, int x, int y, const char *s, const uint8_t col[3]) {
    for (; *s; s++, x += 6) {
        unsigned ch = (unsigned char)*s;
        if (ch < 32 || ch > 126) ch = '?';
        const uint8_t *g = font5x7[ch - 32];
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 7; j++)
                if (g[i] >> j & 1) texla__canvas_put(c, x + i, y + j, col);
    }
}

/* a number for a label: at most 4 significant digits, no trailing zeros */
void texla__label(char *buf, size_t n, double v) {
    if (v == 0) v = 0; /* no "-0" */
    snprintf(buf, n, "%.4g", v);
}

/* ---- the line plot ---- */

/* "nice" linear ticks over lo..hi (Heckbert's steps 1, 2, 5 x 10^k), about `want` of them */
static double nice_step(double span, int want) {
    double raw = span / want, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

typedef struct axis {
    int log;
    double lo, hi; /* in axis units (log10 of the value on a log axis) */
} axis;

/* on a log axis, values <= 0 (a residual that reached exactly 0) sit on the bottom edge */
static double to_axis(const axis *a, double v) { return a->log ? (v > 0 ? log10(v) : a->lo) : v; }

static int usable(double v) { return isfinite(v); }

/* the range of the values (two series, the second may be empty), widened when empty or flat;
 * 0 when there is none */
static int fit(axis *a, const double *v, size_t n, const double *v2, size_t n2, int from_zero) {
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n + n2; i++) {
        double x = i < n ? v[i] : v2[i - n];
        if (isfinite(x) && (!a->log || x > 0)) {
            double t = a->log ? log10(x) : x;
            if (t < lo) lo = t;
            if (t > hi) hi = t;
        }
    }
    if (!(lo <= hi)) return 0;
    if (a->log) { /* whole decades; float's 1e-6 is a hair below 10^-6: not a decade more */
        lo = floor(lo + 1e-6), hi = ceil(hi - 1e-6);
        if (hi - lo < 1) hi = lo + 1;
    } else {
        if (from_zero && lo > 0 && lo < 0.25 * hi) lo = 0;
        if (hi == lo) {
            double d = lo != 0 ? fabs(lo) * 0.1 : 1;
            lo -= d, hi += d;
        }
        double st = nice_step(hi - lo, 6);
        lo = floor(lo / st) * st, hi = ceil(hi / st) * st;
    }
    a->lo = lo, a->hi = hi;
    return 1;
}

/* the tick values of an axis (in axis units) and their labels; returns how many (<= max) */
static int ticks(const axis *a, double *t, char (*lab)[24], int max) {
    int n = 0;
    if (a->log) {
        int span = (int)(a->hi - a->lo), every = span > 8 ? (span + 7) / 8 : 1;
        for (int k = (int)a->lo; k <= (int)a->hi && n < max; k += every) {
            t[n] = k;
            snprintf(lab[n], 24, k == 0 ? "1" : k == 1 ? "10" : "1e%d", k);
            n++;
        }
        return n;
    }
    double st = nice_step(a->hi - a->lo, 6);
    for (double v = a->lo; v <= a->hi + st * 1e-9 && n < max; v += st) {
        t[n] = fabs(v) < st * 1e-9 ? 0 : v;
        texla__label(lab[n], 24, t[n]);
        n++;
    }
    return n;
}

texla_result texla__plot(texla__err *e, const char *fn, const double *x, const double *y,
                         size_t n, const texla__plot_desc *d, texla__canvas *c) {
    int w = d->width > 0 ? d->width : 640, h = d->height > 0 ? d->height : 400;
    if (w < 160 || h < 120 || w > 16384 || h > 16384)
        return texla__errf(e, TEXLA_ERR_ARGUMENT, "%s: a plot of %d x %d pixels; the size must be "
                           "160..16384 x 120..16384", fn, w, h);
    axis ax = {0, 0, 1}, ay = {d->log_y, 0, 1};
    double *xi = NULL;
    size_t pn = d->py ? d->pn : 0, nx = n > pn ? n : pn;
    if (!x || (pn && !d->px)) { /* the index */
        xi = malloc(sizeof *xi * (nx ? nx : 1));
        if (!xi) return texla__errf(e, TEXLA_ERR_MEMORY, "%s: out of host memory", fn);
        for (size_t i = 0; i < nx; i++) xi[i] = (double)i;
    }
    if (!x) x = xi;
    const double *dx = pn ? (d->px ? d->px : xi) : NULL;
    int have_x = fit(&ax, x, n, dx, pn, 1), have_y = fit(&ay, y, n, d->py, pn, 0);
    if (!have_x) ax.lo = 0, ax.hi = 1;
    if (!have_y) ay.lo = ay.log ? -1 : 0, ay.hi = ay.log ? 0 : 1;
    double yt[32], xt[32];
    char ylab[32][24], xlab[32][24];
    int nyt = ticks(&ay, yt, ylab, 32), nxt = ticks(&ax, xt, xlab, 32);
    int lw = 0;
    for (int i = 0; i < nyt; i++)
        if (texla__text_width(ylab[i]) > lw) lw = texla__text_width(ylab[i]);
    /* the plot area */
    int left = lw + 12, right = w - 16, top = d->title && *d->title ? 34 : 22, bottom = h - 34;
    texla_result r = texla__canvas_make(e, fn, w, h, c);
    if (r) {
        free(xi);
        return r;
    }
    if (right - left < 40 || bottom - top < 40) right = left + 40, bottom = top + 40;
    double sx = (right - left) / (ax.hi - ax.lo), sy = (bottom - top) / (ay.hi - ay.lo);
#define PX(v) (left + (int)lround((to_axis(&ax, (v)) - ax.lo) * sx))
#define PY(v) (bottom - (int)lround((to_axis(&ay, (v)) - ay.lo) * sy))
    /* grid, ticks and their labels */
    for (int i = 0; i < nyt; i++) {
        int py = bottom - (int)lround((yt[i] - ay.lo) * sy);
        texla__canvas_line(c, left, py, right, py, GRID);
        texla__canvas_line(c, left - 4, py, left, py, FRAME);
        texla__canvas_text(c, left - 6 - texla__text_width(ylab[i]), py - 3, ylab[i], texla__ink);
    }
    int lastx = -1000;
    for (int i = 0; i < nxt; i++) {
        int px = left + (int)lround((xt[i] - ax.lo) * sx), tw = texla__text_width(xlab[i]);
        texla__canvas_line(c, px, top, px, bottom, GRID);
        texla__canvas_line(c, px, bottom, px, bottom + 4, FRAME);
        if (px - tw / 2 > lastx + 4) { /* labels that would touch are left out */
            texla__canvas_text(c, px - tw / 2, bottom + 7, xlab[i], texla__ink);
            lastx = px + tw / 2;
        }
    }
    texla__canvas_line(c, left, top, left, bottom, FRAME);
    texla__canvas_line(c, left, bottom, right, bottom, FRAME);
    texla__canvas_line(c, left, top, right, top, FRAME);
    texla__canvas_line(c, right, top, right, bottom, FRAME);
    /* texts */
    const char *xl = d->xlabel ? d->xlabel : "index", *yl = d->ylabel ? d->ylabel : "value";
    if (d->title && *d->title)
        texla__canvas_text(c, (w - texla__text_width(d->title)) / 2, 6, d->title, texla__ink);
    texla__canvas_text(c, left, top - 11, yl, texla__ink);
    texla__canvas_text(c, (left + right - texla__text_width(xl)) / 2, h - 12, xl, texla__ink);
    /* the series: point to point where it is sparse, the column envelope where it is dense */
    int prev_ok = 0, px0 = 0, py0 = 0;
    int col = -1, cmin = 0, cmax = 0, first_y = 0, last_y = 0;
    for (size_t i = 0; i <= n; i++) {
        int ok = i < n && usable(x[i]) && usable(y[i]);
        int px = ok ? PX(x[i]) : 0, py = ok ? PY(y[i]) : 0;
        if (ok && px == col) { /* the same pixel column: widen its stroke */
            if (py < cmin) cmin = py;
            if (py > cmax) cmax = py;
            last_y = py;
            continue;
        }
        if (col >= 0) { /* close the column */
            texla__canvas_line(c, col, cmin, col, cmax, LINE);
            texla__canvas_line(c, col + 1, cmin, col + 1, cmax, LINE);
            px0 = col, py0 = last_y, prev_ok = 1;
            (void)first_y;
        }
        col = -1;
        if (!ok) {
            prev_ok = 0;
            continue;
        }
        if (prev_ok) { /* joined to the previous column, two pixels thick */
            texla__canvas_line(c, px0, py0, px, py, LINE);
            texla__canvas_line(c, px0, py0 + 1, px, py + 1, LINE);
        } else {
            texla__canvas_rect(c, px - 1, py - 1, 3, 3, LINE); /* a lone point stays visible */
        }
        col = px, cmin = cmax = first_y = last_y = py;
    }
    /* the dots */
    for (size_t i = 0; i < pn; i++)
        if (usable(dx[i]) && usable(d->py[i])) {
            int qx = PX(dx[i]), qy = PY(d->py[i]);
            texla__canvas_rect(c, qx - 2, qy - 1, 5, 3, DOTS);
            texla__canvas_rect(c, qx - 1, qy - 2, 3, 5, DOTS);
        }
#undef PX
#undef PY
    /* the legend, top right inside the frame */
    if (d->line_label || d->points_label) {
        const char *l1 = d->line_label ? d->line_label : "", *l2 = d->points_label ? d->points_label : "";
        int tw = texla__text_width(l1) > texla__text_width(l2) ? texla__text_width(l1)
                                                                : texla__text_width(l2);
        int lw2 = tw + 30, lx = right - lw2 - 6, ly = top + 6, rows = (*l1 != 0) + (*l2 != 0);
        texla__canvas_rect(c, lx, ly, lw2, 6 + 12 * rows, texla__paper);
        int yy = ly + 3;
        if (*l1) {
            texla__canvas_rect(c, lx + 4, yy + 3, 16, 2, LINE);
            texla__canvas_text(c, lx + 24, yy, l1, texla__ink);
            yy += 12;
        }
        if (*l2) {
            texla__canvas_rect(c, lx + 10, yy + 1, 5, 3, DOTS);
            texla__canvas_rect(c, lx + 11, yy, 3, 5, DOTS);
            texla__canvas_text(c, lx + 24, yy, l2, texla__ink);
        }
    }
    free(xi);
    return TEXLA_OK;
}
