/* internal.h - shared between texla's source files; never installed. */
#ifndef TEXLA_INTERNAL_H
#define TEXLA_INTERNAL_H

#include "texla.h"
#include <glad/gl.h>
#include <stdarg.h>
#include <stddef.h>

#define TEXLA__MAX_SRC 8      /* texture units a pass may sample */
#define TEXLA__MSG_LEN 4096

/* ---- GL layer: textures ---- */

typedef struct texla__tex {
    GLuint tex, fbo; /* fbo made lazily by the pass runner */
    int w, h;
} texla__tex;

/* ---- GL layer: programs (one per file in glsl/) ---- */

typedef enum texla__prog_id {
    TEXLA__P_FILL,       /* o = mask(u_f0)                        */
    TEXLA__P_IDENTITY,   /* o = mask(row == col)                  */
    TEXLA__P_COPY,       /* o = A                                  */
    TEXLA__P_SCALE,      /* o = u_f0.x * A                         */
    TEXLA__P_AXPBY,      /* o = u_f0.x * A + u_f0.y * B           */
    TEXLA__P_MUL,        /* o = A .* B                             */
    TEXLA__P_MADAD,      /* o = A + (B + D) .* E                   */
    TEXLA__P_MAX,        /* o = mask(max(A, u_f0.x))              */
    TEXLA__P_MATMUL,     /* o = A * B over a range of blocks       */
    TEXLA__P_MATMUL_TN,  /* o = A' * B over a range of blocks      */
    TEXLA__P_MATMUL_NT,  /* o = A * B' over a range of blocks      */
    TEXLA__P_COUNT
} texla__prog_id;

typedef struct texla__prog {
    GLuint id;
    GLint u_i0, u_i1, u_f0, u_f1, u_shape;
} texla__prog;

/* ---- GL layer: the pass ---- */

typedef enum texla__draw {
    TEXLA__DRAW_QUAD,   /* one full-screen triangle over the destination */
    TEXLA__DRAW_RECTS,  /* one quad per rect, each with its own u_i1 */
    TEXLA__DRAW_POINTS  /* `count` points from vertex array `vao` */
} texla__draw;

typedef enum texla__blend {
    TEXLA__BLEND_NONE,  /* replace */
    TEXLA__BLEND_ADD,   /* dst += src */
    TEXLA__BLEND_SCALE  /* dst *= blend_scale (the fragment value is ignored) */
} texla__blend;

typedef struct texla__rect {
    int x, y, w, h;
    int32_t i1[4];      /* u_i1 for this rect */
} texla__rect;

/* Everything one pass needs; operations fill this and call texla__run. */
typedef struct texla__pass {
    texla__prog_id prog;
    texla__tex *dst;
    const texla__tex *src[TEXLA__MAX_SRC]; /* bound to units 0.. in order, NULL ends */
    texla__blend blend;
    float blend_scale;
    int32_t i0[4], i1[4], shape[4];
    float f0[4], f1[4];
    texla__draw draw;
    const texla__rect *rects;
    int nrects;
    GLuint vao;         /* DRAW_POINTS */
    int count;
} texla__pass;

/* ---- objects and handles ---- */

typedef enum texla__kind { TEXLA__KIND_FREE = 0, TEXLA__KIND_MAT } texla__kind;

typedef struct texla__obj {
    uint16_t gen;
    uint8_t kind;
    int rows, cols;
    texla__tex t;
} texla__obj;

/* host GL state saved by the guard (host mode) */
typedef struct texla__glstate {
    GLint draw_fbo, read_fbo, viewport[4], program, active_tex, vao, array_buf;
    GLint pack_buf, unpack_buf, tex2d[TEXLA__MAX_SRC], sampler[TEXLA__MAX_SRC];
    GLint pack[6], unpack[7], clamp_read;
    GLboolean blend0, color_mask[4];
    GLint blend_src_rgb, blend_dst_rgb, blend_src_a, blend_dst_a, blend_eq_rgb, blend_eq_a;
    GLfloat blend_color[4];
    GLint polygon_mode[2];
    GLboolean enables[24];
} texla__glstate;

struct texla_ctx {
    texla_ctx_desc desc;
    int host;
    void *egl_dpy, *egl_ctx, *egl_surf;  /* headless only */
    int egl_own_display;
    texla_info info;
    texla_stats stats;
    int matmul_k;
    char msg[TEXLA__MSG_LEN];
    /* objects: slot 0 unused */
    texla__obj *objs;
    int nobjs, capobjs;
    /* pool of free temporaries */
    texla__tex *pool;
    int npool, cappool;
    /* GL objects */
    texla__prog progs[TEXLA__P_COUNT];
    GLuint vao;
    /* runner cache (valid inside one guard scope) */
    GLuint cur_prog, cur_fbo;
    int cur_blend;
    float cur_blend_scale;
    /* guard */
    int depth;
    texla__glstate saved;
};

/* ---- errors (context.c) ---- */
texla_result texla__fail(texla_ctx *ctx, texla_result code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
texla_result texla__fail_make(const texla_ctx_desc *desc, texla_result code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- EGL (egl_context.c) ---- */
texla_result texla__egl_make(texla_ctx *ctx);
void texla__egl_destroy(texla_ctx *ctx);
void texla__egl_make_current(texla_ctx *ctx); /* when another context is current */

/* ---- guard (gl_state.c): brackets every public call that touches GL ---- */
void texla__enter(texla_ctx *ctx);
void texla__leave(texla_ctx *ctx);
void texla__glstate_save(texla__glstate *s);
void texla__glstate_restore(const texla__glstate *s);
void texla__canonical_state(void);

/* ---- programs (programs.c) ---- */
texla_result texla__prog_get(texla_ctx *ctx, texla__prog_id id, texla__prog **out);
void texla__progs_destroy(texla_ctx *ctx);
const char *texla__prog_name(texla__prog_id id); /* its glsl/ file, for messages */

/* ---- textures (gl_texture.c) ---- */
texla_result texla__tex_make(texla_ctx *ctx, int w, int h, texla__tex *out);
void texla__tex_free(texla_ctx *ctx, texla__tex *t);
texla_result texla__tex_upload(texla_ctx *ctx, const texla__tex *t, const float *texels);
texla_result texla__tex_download(texla_ctx *ctx, const texla__tex *t, float *texels);
/* pool temporaries of size w x h (contents undefined) */
texla_result texla__pool_take(texla_ctx *ctx, int w, int h, texla__tex *out);
void texla__pool_give(texla_ctx *ctx, texla__tex *t);
void texla__pool_destroy(texla_ctx *ctx);
texla_result texla__check_size(texla_ctx *ctx, const char *what, int w, int h);

/* ---- the pass runner (pass.c): the only code that draws ---- */
texla_result texla__run(texla_ctx *ctx, const texla__pass *p);
void texla__runner_reset(texla_ctx *ctx);
void texla__runner_forget_fbo(texla_ctx *ctx, GLuint fbo);

/* ---- handles (objects.c) ---- */
texla_result texla__obj_new(texla_ctx *ctx, texla__kind kind, uint32_t *id, texla__obj **out);
texla__obj *texla__obj_get(texla_ctx *ctx, uint32_t id, texla__kind kind);
void texla__obj_release(texla_ctx *ctx, uint32_t id);
void texla__objs_destroy(texla_ctx *ctx);

/* ---- shaders embedded at build time (build/gen/shaders.c) ---- */
typedef struct texla__shader_file {
    const char *name;
    const char *source;
} texla__shader_file;
extern const texla__shader_file texla__shader_files[];
extern const int texla__shader_file_count;

#endif
