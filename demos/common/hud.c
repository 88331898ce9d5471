/* hud.c - see hud.h. */
#include "hud.h"
#include "demo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *VS =
    "#version 330 core\n"
    "layout(location = 0) in vec2 a_pos;  // pixels from the top-left corner\n"
    "layout(location = 1) in vec2 a_uv;   // font texels; x < 0: a solid box\n"
    "layout(location = 2) in vec4 a_col;\n"
    "uniform vec2 u_view;\n"
    "out vec2 v_uv; out vec4 v_col;\n"
    "void main() {\n"
    "    v_uv = a_uv; v_col = a_col;\n"
    "    gl_Position = vec4(a_pos.x / u_view.x * 2.0 - 1.0, 1.0 - a_pos.y / u_view.y * 2.0, 0.0, 1.0);\n"
    "}\n";

static const char *FS =
    "#version 330 core\n"
    "uniform sampler2D u_font;\n"
    "in vec2 v_uv; in vec4 v_col;\n"
    "out vec4 o;\n"
    "void main() {\n"
    "    if (v_uv.x >= 0.0 && texelFetch(u_font, ivec2(v_uv), 0).r < 0.5) discard;\n"
    "    o = v_col;\n"
    "}\n";

int demo_hud_init(demo_hud *h, const char *who) {
    memset(h, 0, sizeof *h);
    h->scale = 1;
    h->prog = demo_program(who, VS, FS);
    if (!h->prog) return -1;
    h->u_view = glGetUniformLocation(h->prog, "u_view");
    h->u_font = glGetUniformLocation(h->prog, "u_font");
    /* the font as one row of cells, glyph g at x = 6 g, its top row at y = 0 */
    enum { TW = DEMO_FONT_GLYPHS * DEMO_FONT_W, TH = DEMO_FONT_H };
    static unsigned char px[TW * TH];
    memset(px, 0, sizeof px);
    for (int g = 0; g < DEMO_FONT_GLYPHS; g++) {
        const char *s = demo_font_glyphs[g] + 2; /* past the character and its space */
        for (int r = 0; r < 7; r++, s++)
            for (int c = 0; c < 5; c++, s++)
                if (*s == '#') px[r * TW + g * DEMO_FONT_W + c] = 255;
    }
    glGenTextures(1, &h->tex);
    glBindTexture(GL_TEXTURE_2D, h->tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, TW, TH, 0, GL_RED, GL_UNSIGNED_BYTE, px);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glBindTexture(GL_TEXTURE_2D, 0);
    glGenVertexArrays(1, &h->vao);
    glGenBuffers(1, &h->vbo);
    glBindVertexArray(h->vao);
    glBindBuffer(GL_ARRAY_BUFFER, h->vbo);
    for (int i = 0; i < 3; i++) {
        static const int size[3] = {2, 2, 4}, off[3] = {0, 2, 4};
        glEnableVertexAttribArray(i);
        glVertexAttribPointer(i, size[i], GL_FLOAT, GL_FALSE, 8 * sizeof(float),
                              (void *)(off[i] * sizeof(float)));
    }
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    return 0;
}

void demo_hud_free(demo_hud *h) {
    if (h->prog) glDeleteProgram(h->prog);
    if (h->tex) glDeleteTextures(1, &h->tex);
    if (h->vao) glDeleteVertexArrays(1, &h->vao);
    if (h->vbo) glDeleteBuffers(1, &h->vbo);
    free(h->v);
    memset(h, 0, sizeof *h);
}

int demo_hud_scale_for(int w, int h) { return w >= 1000 && h >= 700 ? 2 : 1; }

/* one quad: two triangles; u0 < 0: solid */
static void quad(demo_hud *h, float x0, float y0, float x1, float y1, float u0, float v0,
                 float u1, float v1, const float c[4]) {
    if (h->n + 6 > h->cap) {
        int cap = h->cap ? 2 * h->cap : 6 * 256;
        float *p = realloc(h->v, sizeof *p * 8 * (size_t)cap);
        if (!p) return; /* out of memory: the HUD loses some text, the demo goes on */
        h->v = p, h->cap = cap;
    }
    const float corner[6][4] = {{x0, y0, u0, v0}, {x1, y0, u1, v0}, {x1, y1, u1, v1},
                                {x0, y0, u0, v0}, {x1, y1, u1, v1}, {x0, y1, u0, v1}};
    for (int i = 0; i < 6; i++) {
        float *p = h->v + 8 * (size_t)h->n++;
        memcpy(p, corner[i], 4 * sizeof(float));
        memcpy(p + 4, c, 4 * sizeof(float));
    }
}

void demo_hud_box(demo_hud *h, int x, int y, int w, int hgt, const float rgba[4]) {
    quad(h, (float)x, (float)y, (float)(x + w), (float)(y + hgt), -1, -1, -1, -1, rgba);
}

void demo_hud_measure(const demo_hud *h, const char *text, int *w, int *hgt) {
    int cols = 0, lines = 1, col = 0;
    for (const char *s = text; *s; s++) {
        if (*s == '\n') lines++, col = 0;
        else if ((unsigned char)*s >= 32) col++;
        if (col > cols) cols = col;
    }
    *w = cols * DEMO_FONT_W * h->scale;
    *hgt = lines * (DEMO_FONT_H + 2) * h->scale; /* 2 font pixels between lines */
}

void demo_hud_text(demo_hud *h, int x, int y, const char *text) {
    const float text_c[4] = {DEMO_HUD_TEXT_RGB, 255}, accent_c[4] = {DEMO_HUD_ACCENT_RGB, 255};
    float tc[4], ac[4];
    for (int i = 0; i < 4; i++) tc[i] = text_c[i] / 255.0f, ac[i] = accent_c[i] / 255.0f;
    const float *c = tc;
    int s = h->scale, cx = x, cy = y;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '\n') {
            cx = x, cy += (DEMO_FONT_H + 2) * s;
            continue;
        }
        if (*p == 1 || *p == 2) {
            c = *p == 1 ? ac : tc;
            continue;
        }
        int g = *p >= 32 && *p < 127 ? *p - 32 : '?' - 32;
        if (g) { /* not a space */
            float u = (float)(g * DEMO_FONT_W);
            quad(h, (float)cx, (float)cy, (float)(cx + DEMO_FONT_W * s),
                 (float)(cy + DEMO_FONT_H * s), u, 0, u + DEMO_FONT_W, DEMO_FONT_H, c);
        }
        cx += DEMO_FONT_W * s;
    }
}

int demo_hud_panel(demo_hud *h, int x, int y, int fb_w, int fb_h, const char *text) {
    static const float bg[4] = {0.02f, 0.03f, 0.05f, 0.62f};
    int w, hgt, m = 4 * h->scale;
    demo_hud_measure(h, text, &w, &hgt);
    w += 2 * m, hgt += 2 * m - 2 * h->scale; /* no line gap below the last line */
    if (x == DEMO_HUD_CENTRE) x = (fb_w - w) / 2;
    else if (x < 0) x = fb_w - w + x + 1;
    if (y == DEMO_HUD_CENTRE) y = (fb_h - hgt) / 2;
    else if (y < 0) y = fb_h - hgt + y + 1;
    demo_hud_box(h, x, y, w, hgt, bg);
    demo_hud_text(h, x + m, y + m, text);
    return hgt;
}

void demo_hud_draw(demo_hud *h, GLuint fbo, int fb_w, int fb_h) {
    if (!h->n) return;
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glViewport(0, 0, fb_w, fb_h);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    glDisable(GL_STENCIL_TEST);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(h->prog);
    glUniform2f(h->u_view, (float)fb_w, (float)fb_h);
    glUniform1i(h->u_font, 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, h->tex);
    glBindVertexArray(h->vao);
    glBindBuffer(GL_ARRAY_BUFFER, h->vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof(float) * 8 * (size_t)h->n, h->v, GL_STREAM_DRAW);
    glDrawArrays(GL_TRIANGLES, 0, h->n);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glBindVertexArray(0);
    glBindTexture(GL_TEXTURE_2D, 0);
    glUseProgram(0);
    glDisable(GL_BLEND);
    h->n = 0;
}
