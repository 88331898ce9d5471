/* hud.h - the demos' on-screen text: their own bitmap font (font.c) drawn with their own GL
 * (texla only computes). Text and boxes are queued in pixels from the frame's top-left corner
 * and drawn together over the finished frame by demo_hud_draw. Glyph pixels are drawn opaque
 * in the exact colour asked for (no filtering, whole-pixel scales), so a test can find them. */
#ifndef TEXLA_DEMO_HUD_H
#define TEXLA_DEMO_HUD_H

#include <glad/gl.h>

#define DEMO_FONT_GLYPHS 95 /* printable ASCII, 32..126 */
#define DEMO_FONT_W 6       /* the cell at scale 1: a 5x7 glyph and a pixel of spacing */
#define DEMO_FONT_H 8
extern const char *const demo_font_glyphs[DEMO_FONT_GLYPHS];

/* The demos' HUD colours (8-bit: the tests look for the text colour's exact pixels). In text,
 * the character '\1' switches to the accent colour and '\2' back to the text colour. */
#define DEMO_HUD_TEXT_RGB 235, 235, 235
#define DEMO_HUD_ACCENT_RGB 255, 205, 80

typedef struct demo_hud {
    GLuint prog, vao, vbo, tex;
    GLint u_view, u_font;
    float *v;      /* queued vertices: x, y (pixels), u, v (font texels; u < 0: a solid box), rgba */
    int n, cap;
    int scale;     /* screen pixels per font pixel */
} demo_hud;

/* 0 on success (errors on stderr, prefixed by who); needs the GL loaded and a context current */
int demo_hud_init(demo_hud *h, const char *who);
void demo_hud_free(demo_hud *h);
/* the scale for a frame of w x h pixels: 2 from 1000 x 700 up, else 1 */
int demo_hud_scale_for(int w, int h);
/* width and height in pixels of text (lines split at '\n') at the HUD's scale */
void demo_hud_measure(const demo_hud *h, const char *text, int *w, int *hgt);
void demo_hud_box(demo_hud *h, int x, int y, int w, int hgt, const float rgba[4]);
void demo_hud_text(demo_hud *h, int x, int y, const char *text);
/* text on a translucent dark panel with a margin; x < 0 or y < 0: that far from the right or
 * bottom edge of a fb_w x fb_h frame; DEMO_HUD_CENTRE: centred. Returns the panel's height in
 * pixels. */
#define DEMO_HUD_CENTRE (-1000000)
int demo_hud_panel(demo_hud *h, int x, int y, int fb_w, int fb_h, const char *text);
/* draws what was queued over the frame of fbo (0: the window) and empties the queue; leaves
 * blending and depth testing off and no program, vertex array or texture bound */
void demo_hud_draw(demo_hud *h, GLuint fbo, int fb_w, int fb_h);
#endif
