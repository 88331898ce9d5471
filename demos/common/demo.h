/* demo.h - what texla's demos share: their own GL plumbing (texla only computes), the
 * offscreen target of headless runs and the atomic PNG writer of rendered frames. Include
 * <glad/gl.h> first. */
#ifndef TEXLA_DEMO_H
#define TEXLA_DEMO_H

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "texla.h"

#include <stdio.h>

/* Init: unless headless, a w x h window with a GL 3.3 core context (stencil bits if asked) and
 * texla in host mode on it; when no display or window can be had, and with headless, texla's
 * own headless EGL context instead, saying so and setting *png to default_png if it is NULL.
 * Either way GL is loaded for the demo's own drawing. *win is NULL when headless. texla's
 * operations run on `backend` (AUTO: texla measures). 0: success (errors on stderr, prefixed
 * by who). */
int demo_open(const char *who, int headless, int w, int h, int stencil, int frames,
              texla_backend backend, const char **png, const char *default_png, GLFWwindow **win,
              texla_ctx **ctx);
/* "fragment" or "compute": the backend texla's operations run on by default in ctx */
const char *demo_backend_name(texla_ctx *ctx);
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
/* ---- the demos' one key map ----
 * The same key does the same kind of thing in every demo (each demo's table says what exactly;
 * --help and the H overlay show it):
 *   left click   act at the cursor (wave: a drop, drag for more; cubes: a projectile)
 *   F            act without the mouse (a drop at a random place; a projectile at the wall)
 *   Space        pause / resume            N        one step (pauses)
 *   R            reset                     M        switch the simulation's mode
 *   + / -        time step dt x1.25 / /1.25
 *   ] / [        more / fewer solver iterations per step
 *   1 .. 5       problem size              Left / Right   turn the camera
 *   P            PNG of the window (and of the state, where there is one)
 *   H            the key overlay           Esc, Q   quit */
typedef struct demo_key {
    const char *key, *does;
} demo_key;
/* the keys (up to a {NULL, NULL} entry) as aligned lines, each ending in '\n' and indented by
 * indent spaces, into buf; with accent, the key names in the HUD's accent colour */
void demo_keys_format(const demo_key *keys, int accent, int indent, char *buf, size_t size);

/* ---- command lines (getopt_long) ----
 * A bad value names its option: "WHO: --size: '3' is not an integer from 4 to 8192", and the
 * caller exits 2 after demo_usage_hint. These return 0 on success, -1 (message printed). */
int demo_opt_int(const char *who, const char *opt, const char *v, int lo, int hi, int *out);
/* a finite number in (lo, hi] when lo_open, else [lo, hi] */
int demo_opt_float(const char *who, const char *opt, const char *v, float lo, int lo_open,
                   float hi, float *out);
int demo_opt_backend(const char *who, const char *v, texla_backend *out);
/* "usage: WHO [OPTION]...  (WHO --help lists the options and keys)" on stderr; returns 2 */
int demo_usage_hint(const char *who);

/* Headless progress on stderr, a line every 3 seconds ("WHO: frame 120/300, 41.0 fps, about
 * 4 s left"; the environment's TEXLA_DEMO_PROGRESS_S changes the interval); *last: the time
 * of the last line (start with demo_now_s() at frame 0). */
void demo_progress(const char *who, int frame, int frames, double t_start, double *last);

/* 3-vectors */
void demo_v3_norm(float v[3]);
void demo_v3_cross(const float a[3], const float b[3], float out[3]);
#endif
