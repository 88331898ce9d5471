/* internal.h - shared between texla's source files; never installed. */
#ifndef TEXLA_INTERNAL_H
#define TEXLA_INTERNAL_H

#include "texla.h"
#include <glad/gl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#define TEXLA__MAX_SRC 7      /* texture units a pass may sample (units 0..6) */
#define TEXLA__COEF_UNIT 7    /* the unit of a GPU scalar coefficient (u_coef_src) */
#define TEXLA__UNITS 8        /* units texla touches */
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
    TEXLA__P_CLAMP,      /* o = mask(clamp(A, lo, hi))             */
    TEXLA__P_RECIP,      /* o = mask(s ./ A)                       */
    TEXLA__P_DIAG,       /* dense diagonal                         */
    TEXLA__P_VEC_TO_DENSE,
    TEXLA__P_DENSE_TO_VEC,
    TEXLA__P_REDUCE,     /* one 2x2-folding pass of a reduction    */
    TEXLA__P_SCALAR,     /* scalar arithmetic                      */
    TEXLA__P_BANDED,     /* up to four diagonals of y = A x (+ s b) */
    TEXLA__P_SPARSE,     /* points: partial row products           */
    TEXLA__P_SPLAT,      /* a Gaussian bump over a rectangle       */
    TEXLA__P_LCP_PROJECT,/* bounded LCP projection (friction)      */
    TEXLA__P_COUNT
} texla__prog_id;

typedef struct texla__prog {
    GLuint id;
    GLint u_i0, u_i1, u_i2, u_f0, u_f1, u_shape, u_coef;
    GLint u_rect, u_blend, u_blend_scale; /* compute versions */
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
    int32_t i0[4], i1[4], i2[4], shape[4];
    float f0[4], f1[4];
    int coef;           /* u_coef: bit i set: f0[i] is multiplied by the GPU scalar coef_src */
    const texla__tex *coef_src; /* bound to unit TEXLA__COEF_UNIT */
    texla__draw draw;
    const texla__rect *rects;
    int nrects;
    GLuint vao;         /* DRAW_POINTS */
    int count;
} texla__pass;

/* ---- objects and handles ---- */

typedef enum texla__kind {
    TEXLA__KIND_FREE = 0,
    TEXLA__KIND_MAT,
    TEXLA__KIND_VEC,
    TEXLA__KIND_SCALAR,
    TEXLA__KIND_BANDED,
    TEXLA__KIND_SPARSE
} texla__kind;

/* The 2D layout of a vector: n elements, element k at cell (k mod nx, k div nx) of an even
 * gx x gy grid (nx <= gx; plain vectors have nx = gx). */
typedef struct texla__layout {
    int n, nx, gx, gy;
} texla__layout;

/* One vertex of a sparse matrix: up to four nonzeros of one row (unused: col -1, val 0). */
typedef struct texla__sparse_vertex {
    int32_t row;
    int32_t col[4];
    float val[4];
} texla__sparse_vertex;

typedef struct texla__obj {
    uint16_t gen;
    uint8_t kind;
    int rows, cols;        /* MAT: the shape; VEC: n x 1; SCALAR: 1 x 1 */
    texla__layout lay;     /* VEC; BANDED and SPARSE: the row (y) layout */
    texla__layout lay2;    /* SPARSE: the column (x) layout */
    texla__tex t;          /* MAT, VEC, SCALAR */
    /* BANDED: one texture per diagonal */
    int ndiag;
    int *offsets;
    texla__tex *diags;
    /* SPARSE: the vertex buffer */
    GLuint vao, vbo;
    int nverts;
    texla__sparse_vertex *host_verts; /* SPARSE: host copy of the vertices (texla_png_sparse) */
    /* SCALAR: a pending asynchronous read-back */
    GLuint pbo;
    GLsync fence;
} texla__obj;

/* host GL state saved by the guard (host mode) */
typedef struct texla__glstate {
    GLint draw_fbo, read_fbo, program, active_tex, vao, array_buf;
    GLfloat viewport[4];
    GLboolean scissor0;
    GLint pack_buf, unpack_buf, tex2d[TEXLA__UNITS], sampler[TEXLA__UNITS];
    GLint pack[7], unpack[7], clamp_read;
    GLboolean blend0, color_mask[4];
    GLint blend_src_rgb, blend_dst_rgb, blend_src_a, blend_dst_a, blend_eq_rgb, blend_eq_a;
    GLfloat blend_color[4];
    GLint polygon_mode[2];
    GLint image0[6]; /* image unit 0: name, level, layered, layer, access, format (GL 4.2) */
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
    char gl_debug[512]; /* the last KHR_debug message of texla's own debug context */
    /* objects: slot 0 unused */
    texla__obj *objs;
    int nobjs, capobjs;
    /* pool of free temporaries */
    texla__tex *pool;
    int npool, cappool;
    /* GL objects */
    texla__prog progs[TEXLA__P_COUNT];
    texla__prog cprogs[TEXLA__P_COUNT]; /* compute versions (second backend) */
    int use_compute;                    /* run operations as compute shaders */
    GLuint vao;
    /* runner cache (valid inside one guard scope) */
    GLuint cur_prog, cur_fbo;
    int cur_blend;
    float cur_blend_scale;
    /* the LCP solver's n x 1 work matrices, kept for reuse (islands solve many LCPs a frame) */
    struct texla__lcp_tmp {
        int n;
        texla_mat m[4];
        uint64_t used;
    } lcp_tmp[8];
    uint64_t lcp_clock;
    /* guard */
    int depth;
    texla__glstate saved;
};

/* ---- operands and element-wise passes (ops.c) ---- */
typedef struct texla__operand {
    const char *name; /* in messages */
    uint32_t id;
    texla__kind kind;
    texla__obj *o;    /* set by texla__resolve */
} texla__operand;

typedef struct texla__ew {
    texla__prog_id prog;
    texla__blend blend;       /* TEXLA__BLEND_SCALE uses f0[0] as the factor */
    float f0[4];
    int coef;                 /* u_coef bits, used when coef_src is set */
    const texla__tex *coef_src;
} texla__ew;

/* handles live and of the right kind; the last operand (the destination) none of the others */
texla_result texla__resolve(texla_ctx *ctx, const char *fn, texla__operand *ops, int n);
/* every operand of ops[0]'s shape (matrices) or layout (vectors) */
texla_result texla__same_shape(texla_ctx *ctx, const char *fn, const texla__operand *ops, int n);
texla_result texla__finite(texla_ctx *ctx, const char *fn, const char *name, float s);
texla_result texla__bad_handle(texla_ctx *ctx, const char *fn, const char *name, texla__kind kind,
                               uint32_t id);
/* a coefficient's value must be finite; its scalar (if any) live: *src its texture or NULL */
texla_result texla__coef(texla_ctx *ctx, const char *fn, const char *name, texla_coef c,
                         const texla__tex **src);
const char *texla__describe(const texla__obj *o, char *buf, size_t n);
int texla__same_layout(const texla__layout *a, const texla__layout *b);
/* where element k of layout l lives in its packed texels (a float index) */
size_t texla__texel_index(const texla__layout *l, int k);
/* u_shape (padding mask) of an object's texture */
void texla__shape_of(const texla__obj *o, int32_t shape[4]);
/* validates ops (sources then destination, one shape) and runs one full-screen pass */
texla_result texla__elementwise(texla_ctx *ctx, const char *fn, texla__operand *ops, int n,
                                const texla__ew *ew);

/* ---- dense products (dense.c): ceil(blocks/k) passes of prog, the first replacing dst and
 * the rest added by blending; iz is the shader's u_i0.z (see glsl/matmul*.frag) ---- */
texla_result texla__multipass(texla_ctx *ctx, texla__prog_id prog, const texla__tex *a,
                              const texla__tex *b, texla__tex *dst, int blocks, int iz);

/* ---- reductions (vector.c): log passes over any texture into a 1x1 texture ---- */
enum { TEXLA__FOLD_SUM, TEXLA__FOLD_MAX, TEXLA__FOLD_MIN };
enum {
    TEXLA__MAP_NONE,
    TEXLA__MAP_MUL,    /* a .* b */
    TEXLA__MAP_SQUARE, /* a .* a */
    TEXLA__MAP_ABS,    /* |a| */
    TEXLA__MAP_FINITE  /* NaN and +-Inf become the fold's identity (for a finite range) */
};
texla_result texla__reduce(texla_ctx *ctx, const texla__tex *a, const int32_t shape[4],
                           const texla__tex *b, int fold, int map, texla__tex *dst);

/* ---- atomic file writes (afile.c): write to a->f, then commit (rename over path) ---- */
typedef struct texla__afile {
    FILE *f;
    char *tmp;
    const char *path;
} texla__afile;
texla_result texla__afile_open(texla_ctx *ctx, const char *fn, const char *path, texla__afile *a);
/* err/what: an earlier write's errno and a word for it (what NULL: all went well); always
 * closes; on failure removes the temporary file and leaves path untouched */
texla_result texla__afile_commit(texla_ctx *ctx, const char *fn, texla__afile *a, int err,
                                 const char *what);

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
texla_getproc_fn texla__egl_getproc(void);     /* eglGetProcAddress, for glad */

/* ---- guard (gl_state.c): brackets every public call that touches GL ---- */
void texla__enter(texla_ctx *ctx);
void texla__leave(texla_ctx *ctx);
void texla__glstate_save(texla__glstate *s);
void texla__glstate_restore(const texla__glstate *s);
void texla__canonical_state(void);
/* viewport 0 and draw buffer 0's blend function only (GL 4.1 / 4.0 have several) */
void texla__viewport(int x, int y, int w, int h);
void texla__blend_func(GLenum src, GLenum dst);

/* ---- programs (programs.c) ---- */
/* the fragment program of an operation, or (compute = 1) its compute version */
texla_result texla__prog_get(texla_ctx *ctx, texla__prog_id id, int compute, texla__prog **out);
int texla__prog_has_compute(texla__prog_id id);
void texla__progs_destroy(texla_ctx *ctx);
const char *texla__prog_name(texla__prog_id id); /* its glsl/ file, for messages */

/* ---- textures (gl_texture.c) ---- */
texla_result texla__tex_make(texla_ctx *ctx, int w, int h, texla__tex *out);
void texla__tex_free(texla_ctx *ctx, texla__tex *t);
texla_result texla__tex_upload(texla_ctx *ctx, const texla__tex *t, const float *texels);
texla_result texla__tex_download(texla_ctx *ctx, const texla__tex *t, float *texels);
/* asynchronous read of texel (0, 0) into a pixel-pack buffer behind a fence */
texla_result texla__tex_read_start(texla_ctx *ctx, const texla__tex *t, GLuint *pbo, GLsync *fence);
/* TEXLA_OK and the texel once the fence has passed; TEXLA_ERR_NOT_READY before (no wait) */
texla_result texla__tex_read_poll(texla_ctx *ctx, GLuint pbo, GLsync *fence, float texel[4]);
void texla__read_free(GLuint *pbo, GLsync *fence);
/* the vertex buffer and array of a sparse matrix */
texla_result texla__points_make(texla_ctx *ctx, const texla__sparse_vertex *v, int count,
                                GLuint *vao, GLuint *vbo);
void texla__points_free(GLuint *vao, GLuint *vbo);
/* pool temporaries of size w x h (contents undefined) */
texla_result texla__pool_take(texla_ctx *ctx, int w, int h, texla__tex *out);
void texla__pool_give(texla_ctx *ctx, texla__tex *t);
void texla__pool_destroy(texla_ctx *ctx);
texla_result texla__check_size(texla_ctx *ctx, const char *what, int w, int h);
/* level 0 of a host's texture name as w x h RGBA floats (texla_png_texture): TEXLA_ERR_ARGUMENT
 * unless tex is a 2D texture of exactly w x h texels with colour (not integer) data */
texla_result texla__tex_download_name(texla_ctx *ctx, const char *fn, GLuint tex, int w, int h,
                                      float *texels);

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
