/* io.h - what the file readers and writers share (io/). */
#ifndef TEXLA_IO_H
#define TEXLA_IO_H

#include "core/core.h"

/* ctx's error, or (ctx NULL: host-side I/O without a context) the thread's message */
#define texla__iofail(ctx, ...) texla__errf((ctx) ? &(ctx)->err : NULL, __VA_ARGS__)

/* ---- the plotter (plot.c): an RGB canvas, a 5x7 font, lines and the line plot ---- */
typedef struct texla__canvas {
    int w, h;
    uint8_t *rgb; /* w * h * 3, row 0 at the top */
} texla__canvas;
extern const uint8_t texla__ink[3], texla__paper[3];
/* a w x h canvas of paper (white) */
texla_result texla__canvas_make(texla__err *e, const char *fn, int w, int h, texla__canvas *c);
void texla__canvas_free(texla__canvas *c);
void texla__canvas_put(texla__canvas *c, int x, int y, const uint8_t col[3]); /* clipped */
void texla__canvas_rect(texla__canvas *c, int x, int y, int w, int h, const uint8_t col[3]);
void texla__canvas_line(texla__canvas *c, int x0, int y0, int x1, int y1, const uint8_t col[3]);
/* text in the 5x7 font, 6 pixels per character, its top-left corner at (x, y) */
void texla__canvas_text(texla__canvas *c, int x, int y, const char *s, const uint8_t col[3]);
int texla__text_width(const char *s);
/* a number as a label (4 significant digits) */
void texla__label(char *buf, size_t n, double v);

typedef struct texla__plot_desc {
    int width, height;  /* pixels; 0: 640 x 400 */
    int log_y;          /* log10 value axis (values <= 0 left out) */
    const char *title, *xlabel, *ylabel; /* NULL: none, "index", "value" */
    const double *px, *py; /* a second series, drawn as dots (px NULL: the index) */
    size_t pn;
    const char *line_label, *points_label; /* the legend (NULL: none) */
} texla__plot_desc;
/* A line plot of (x[i], y[i]), i < n (x NULL: the index) onto a new canvas. */
texla_result texla__plot(texla__err *e, const char *fn, const double *x, const double *y,
                         size_t n, const texla__plot_desc *d, texla__canvas *c);

#endif
