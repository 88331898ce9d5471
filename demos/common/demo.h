/* demo.h - what texla's demos share: their own GL plumbing (texla only computes), the
 * offscreen target of headless runs and the atomic PNG writer of rendered frames. Include
 * <glad/gl.h> first. */
#ifndef TEXLA_DEMO_H
#define TEXLA_DEMO_H

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "texla.h"

/* Init: unless headless, a w x h window with a GL 3.3 core context (stencil bits if asked) and
 * texla in host mode on it; when no display or window can be had, and with headless, texla's
 * own headless EGL context instead, saying so and setting *png to default_png if it is NULL.
 * Either way GL is loaded for the demo's own drawing. *win is NULL when headless. 0: success
 * (errors on stderr, prefixed by who). */
int demo_open(const char *who, int headless, int w, int h, int stencil, int frames,
              const char **png, const char *default_png, GLFWwindow **win, texla_ctx **ctx);
/* Shutdown: texla's context, then the window. */
void demo_close(GLFWwindow *win, texla_ctx *ctx);
double demo_now_s(void); /* a monotonic clock, seconds */
int demo_cmp_double(const void *x, const void *y); /* for qsort */
/* a program from vertex and fragment sources; 0 (logs on stderr, prefixed by who) on failure */
GLuint demo_program(const char *who, const char *vs, const char *fs);
/* a w x h RGBA8 + depth/stencil framebuffer for headless runs; 0 on success */
int demo_offscreen(int w, int h, GLuint *fbo, GLuint *color, GLuint *depth);
void demo_offscreen_free(GLuint *fbo, GLuint *color, GLuint *depth);
/* Reads the w x h frame of fbo (0: the window's back buffer, before the swap) and writes it to
 * path as an RGBA PNG, top row first, atomically (a temporary file, then rename); 0 on success. */
int demo_write_png(const char *who, GLuint fbo, int w, int h, const char *path);
/* A camera at eye looking along fwd (normalised here), y up: its basis (right, up) and the
 * column-major view-projection vp for a vertical field of view fovy and depth range zn..zf. */
void demo_look(const float eye[3], float fwd[3], float fovy, float aspect, float zn, float zf,
               float right[3], float up[3], float vp[16]);
/* 3-vectors */
void demo_v3_norm(float v[3]);
void demo_v3_cross(const float a[3], const float b[3], float out[3]);
#endif
