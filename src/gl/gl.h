/* gl.h - the GL layer: the loaded GL, headless EGL contexts, the state guard, textures,
 * buffers and the temporary pool, the program cache built from the embedded glsl/ sources,
 * and ONE pass runner. Only files of src/gl/ call gl* functions; the layers above describe
 * passes (texla__pass) and hand them to texla__run. Everything here works on a texla__gl,
 * the GL half of a context; errors go to its texla__err (base/). */
#ifndef TEXLA_GL_H
#define TEXLA_GL_H

#include "base/base.h"
#include "base/optable.h"

#include <glad/gl.h>

#define TEXLA__MAX_SRC 7   /* texture units a pass may sample (units 0..6, u_src0..u_src6) */
#define TEXLA__COEF_UNIT 7 /* the unit of a GPU scalar coefficient (u_coef_src) */
#define TEXLA__UNITS 8     /* texture units texla touches */
#define TEXLA__MAX_IMG 4   /* image units a kernel may use (0..3; the destination is unit 0) */
#define TEXLA__MAX_SSBO 8  /* shader storage buffer binding points a kernel may use (0..7) */

/* ---- resources ---- */

typedef struct texla__tex {
    GLuint tex, fbo; /* fbo made lazily by the pass runner */
    int w, h;
} texla__tex;

/* a shader storage buffer: size bytes asked for, cap allocated (a buffer taken from the pool
 * of freed ones may be larger; passes bind the first size bytes) */
typedef struct texla__buf {
    GLuint buf;
    size_t size, cap;
} texla__buf;

/* ---- programs (base/optable.h) ---- */

typedef enum texla__prog_id {
#define TEXLA__X(id, file, form) TEXLA__P_##id,
    TEXLA__PROGRAMS(TEXLA__X)
#undef TEXLA__X
    TEXLA__P_COUNT
} texla__prog_id;

typedef enum texla__form { TEXLA__FORM_OP, TEXLA__FORM_POINTS, TEXLA__FORM_KERNEL } texla__form;

/* One compiled variant of a program: (backend, defines) picks it. */
typedef struct texla__prog {
    GLuint id;
    int backend;
    char *defines;
    GLint u_i0, u_i1, u_i2, u_i3, u_f0, u_f1, u_shape, u_coef;
    GLint u_rect, u_blend, u_blend_scale; /* compute versions of OP programs */
    GLuint pending;     /* the shader of a prefetched kernel whose link was not waited for */
    struct texla__prog *next;
} texla__prog;

/* ---- backends: data, indexed by texla_backend ---- */

enum {
    TEXLA__CAP_OP = 1,      /* runs texla_op programs (one output texel per invocation) */
    TEXLA__CAP_POINTS = 2,  /* draws points with blending (the classic sparse product) */
    TEXLA__CAP_KERNEL = 4,  /* runs kernels: own workgroups, buffers, images, shared memory */
    TEXLA__CAP_BLEND = 8    /* accumulates by fixed-function blending (else in the shader) */
};

typedef struct texla__pass texla__pass;
typedef struct texla__gl texla__gl;
typedef struct texla__backend {
    const char *name;      /* "fragment", "compute" */
    const char *main_file; /* the main that wraps texla_op (glsl/common/...) */
    int min_gl;            /* major*10 + minor */
    unsigned caps;         /* TEXLA__CAP_* */
    texla_result (*run)(texla__gl *g, const texla__prog *prog, const texla__pass *p);
} texla__backend;
#define TEXLA__NBACKENDS 3 /* index 0 (AUTO) unused */
extern const texla__backend texla__backends[TEXLA__NBACKENDS];

/* ---- the pass ---- */

typedef enum texla__draw {
    TEXLA__DRAW_QUAD,   /* every texel of the destination */
    TEXLA__DRAW_RECTS,  /* the texels of each rect, each with its own u_i1 */
    TEXLA__DRAW_POINTS, /* `count` points from vertex array `vao` */
    TEXLA__DRAW_KERNEL  /* a kernel dispatched as groups[0] x groups[1] x groups[2] workgroups */
} texla__draw;

typedef enum texla__blend {
    TEXLA__BLEND_NONE,  /* replace */
    TEXLA__BLEND_ADD,   /* dst += src */
    TEXLA__BLEND_SCALE  /* dst *= blend_scale (the program's value is ignored) */
} texla__blend;

typedef struct texla__rect {
    int x, y, w, h;
    int32_t i1[4]; /* u_i1 for this rect */
} texla__rect;

/* Everything one pass needs; the layers above fill this and call texla__run. */
struct texla__pass {
    texla__prog_id prog;
    const char *defines;    /* kernels: the variant ("#define BM 64\n..."); NULL: none */
    texla__tex *dst;        /* render target; for kernels image unit 0 (may be NULL) */
    const texla__tex *src[TEXLA__MAX_SRC]; /* bound to units 0.. in order, NULL ends */
    texla__blend blend;
    float blend_scale;
    int32_t i0[4], i1[4], i2[4], i3[4], shape[4];
    float f0[4], f1[4];
    int coef;               /* u_coef: bit i set: f0[i] is multiplied by the GPU scalar */
    const texla__tex *coef_src; /* bound to unit TEXLA__COEF_UNIT */
    texla__draw draw;
    const texla__rect *rects;
    int nrects;
    GLuint vao;             /* DRAW_POINTS */
    int count;
    /* kernels */
    unsigned groups[3];
    const texla__tex *img[TEXLA__MAX_IMG]; /* image units 1..3 (img[0] unused: dst), read-write */
    struct {
        const texla__buf *b;
        size_t off, size;   /* size 0: the whole buffer from off */
    } ssbo[TEXLA__MAX_SSBO];
};

/* ---- the GL half of a context ---- */

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
    GLint clip_origin, clip_depth; /* glClipControl (GL 4.5, ARB_clip_control) */
    GLint image[TEXLA__MAX_IMG][6]; /* name, level, layered, layer, access, format (GL 4.2) */
    GLint ssbo_generic;             /* GL_SHADER_STORAGE_BUFFER (GL 4.3) */
    GLint ssbo[TEXLA__MAX_SSBO];    /* indexed bindings: name */
    GLint64 ssbo_start[TEXLA__MAX_SSBO], ssbo_size[TEXLA__MAX_SSBO];
    GLboolean enables[24];
} texla__glstate;

/* what kernels may use, asked of the GL at context creation */
typedef struct texla__caps {
    int compute;          /* GL 4.3 compute shaders */
    int glsl_version;     /* 330, 430, 450, 460: the #version kernels get */
    int subgroup;         /* GL_KHR_shader_subgroup with arithmetic and shuffle in compute */
    int subgroup_size;    /* 0 when none */
    int atomic_float;     /* GL_NV_shader_atomic_float */
    int shared_max;       /* GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, bytes */
    int wg_invocations;   /* GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS */
    int groups_max[3];    /* GL_MAX_COMPUTE_WORK_GROUP_COUNT */
    long long ssbo_max;   /* GL_MAX_SHADER_STORAGE_BLOCK_SIZE */
    int sm_count;         /* GL_SM_COUNT_NV where offered, else 0 */
    int timer;            /* GPU timer queries that measure GPU time (not on llvmpipe) */
    int parallel_compile; /* GL_KHR/ARB_parallel_shader_compile, on hardware */
    int software;         /* a software rasteriser (llvmpipe, softpipe) */
} texla__caps;

struct texla__gl {
    texla__err *err;
    int host, debug;
    const char *glsl_dir;  /* development override (texla_ctx_desc.glsl_dir) */
    void *egl_dpy, *egl_ctx, *egl_surf; /* headless only */
    /* headless: another thread-current context found at the outermost enter, made current
     * again at its leave (prev_ctx NULL: none) */
    void *prev_dpy, *prev_ctx, *prev_draw, *prev_read;
    texla_info info;       /* strings and limits; core adds the rest */
    texla__caps caps;
    texla_stats stats;
    texla__prog *progs[TEXLA__P_COUNT]; /* compiled variants */
    uint8_t choice[TEXLA__P_COUNT];     /* the backend of each OP program; 0: default_backend */
    uint8_t measured[TEXLA__P_COUNT];   /* AUTO: the faster backend of an element-wise program,
                                           timed on its first large use (core/operands.c); 0:
                                           not timed, default_backend */
    int default_backend;
    GLuint vao;            /* the empty vertex array full-screen draws need in core profile */
    texla__tex *pool;      /* free temporaries */
    int npool, cappool;
    struct {
        texla__buf b;
        GLsync done;       /* the GPU past every command before its free (0: known passed) */
    } bpool[32];           /* freed storage buffers kept for reuse (resources.c) */
    int nbpool;
    size_t bpool_bytes;
    char gl_debug[512];    /* the last KHR_debug message of texla's own debug context */
    GLuint timer_q;        /* texla__timer_begin/end */
    double timer_t0;
    int timer_on;          /* this timing by the query (else the wall clock: no timer queries,
                              or a host's GL_TIME_ELAPSED query active) */
    GLuint lap_q[2];       /* texla__lap_*: two timings in flight */
    double spin_peak;      /* the clock probe's fastest rate seen here (sp_heat; 0: none yet) */
    int depth;             /* guard nesting */
    int marked;            /* host mode: vao carries texla's mark (texla__gl_mark) */
    unsigned mark;         /* the mark: the texla_ctx's tag */
    int lost;              /* host mode: the context current at the outermost texla__gl_enter
                              is not the one texla_ctx_make found (or none is current) */
    texla__glstate saved;
};

#define texla__glfail(g, ...) texla__errf((g)->err, __VA_ARGS__)

/* ---- EGL (egl.c) ---- */
texla_result texla__egl_make(texla__gl *g, int egl_device, int gl_version_max);
void texla__egl_destroy(texla__gl *g);
/* headless: texla's context current, another found current noted (save) for restore, which
 * the outermost leave calls (texla__egl_make notes one before it makes its context) */
void texla__egl_save_current(texla__gl *g);
void texla__egl_make_current(texla__gl *g);
void texla__egl_restore(texla__gl *g);
texla_getproc_fn texla__egl_getproc(void); /* eglGetProcAddress, for glad */

/* ---- the loaded GL (device.c) ---- */
/* loads GL through getproc (NULL: EGL's), fills g->info and g->caps */
texla_result texla__gl_load(texla__gl *g, texla_getproc_fn getproc);
/* whether GL was loaded at all (texla_ctx_destroy after a failed make) */
int texla__gl_loaded(void);
/* renders and blends known values into an RGBA32F target: sets info.float_render/_blend */
texla_result texla__gl_probe_float(texla__gl *g);
/* deletes texla's GL objects (programs, pool, vertex array); inside the guard */
void texla__gl_release(texla__gl *g);
/* waits for the GPU */
void texla__gl_finish(texla__gl *g);
void texla__gl_flush(texla__gl *g); /* queued work sent to the GPU now (not waited for) */
/* a kernel's variant compiled and linked by the driver's threads, not waited for (where
 * caps.parallel_compile); the pass that first runs it waits for it then */
void texla__prefetch(texla__gl *g, texla__prog_id prog, const char *defines);
/* the driver's compiler threads set to n (< 0: as many as it likes); returns the setting
 * before (host state: put it back), -1 where caps.parallel_compile is 0 (nothing done) */
long long texla__compile_threads(texla__gl *g, long long n);
/* milliseconds on the monotonic clock */
double texla__now_ms(void);

/* ---- guard (guard.c): brackets every public call that touches GL; nestable ---- */
void texla__gl_enter(texla__gl *g);
void texla__gl_leave(texla__gl *g);
/* host mode, inside texla_ctx_make's guard: marks texla's vertex array with tag (a divisor on
 * an attribute texla leaves disabled), by which later calls know its context current */
void texla__gl_mark(texla__gl *g, unsigned tag);
/* nothing is done in GL now: another context is current (g->lost), or a callback of texla's
 * interrupts a call (its objects must stay as they are); frees then keep what they free */
static inline int texla__gl_refuses(const texla__gl *g) {
    return g->lost || (g->err && g->err->in_cb);
}
/* TEXLA_ERR_CONTEXT (message names what) where texla__gl_refuses, else TEXLA_OK: every function
 * that makes, reads, writes or draws into GL objects asks it first */
texla_result texla__gl_current(texla__gl *g, const char *what);
#define TEXLA__GL_CURRENT(g, what)                                                                \
    do {                                                                                          \
        texla_result cur_ = texla__gl_current((g), (what));                                       \
        if (cur_) return cur_;                                                                    \
    } while (0)
/* viewport 0 and draw buffer 0's blend function only (GL 4.1 / 4.0 have several) */
void texla__viewport(int x, int y, int w, int h);
void texla__blend_func(GLenum src, GLenum dst);

/* ---- programs (programs.c) ---- */
/* the variant (backend, defines) of program id, compiled on first use; main_file: the
 * backend's main for OP programs */
texla_result texla__prog_get(texla__gl *g, texla__prog_id id, int backend, const char *main_file,
                             const char *defines, texla__prog **out);
void texla__prog_prefetch(texla__gl *g, texla__prog_id id, int backend, const char *defines);
void texla__progs_destroy(texla__gl *g);
const char *texla__prog_file(texla__prog_id id);
texla__form texla__prog_form(texla__prog_id id);

/* ---- textures, buffers, pool (resources.c) ---- */
texla_result texla__check_size(texla__gl *g, const char *what, int w, int h);
texla_result texla__tex_make(texla__gl *g, int w, int h, texla__tex *out);
void texla__tex_free(texla__gl *g, texla__tex *t);
texla_result texla__tex_upload(texla__gl *g, const texla__tex *t, const float *texels);
texla_result texla__tex_download(texla__gl *g, const texla__tex *t, float *texels);
/* level 0 of a host's texture name as w x h RGBA floats: TEXLA_ERR_ARGUMENT unless tex is a 2D
 * texture of exactly w x h texels with colour (not integer) data */
texla_result texla__tex_download_name(texla__gl *g, const char *fn, GLuint tex, int w, int h,
                                      float *texels);
/* asynchronous read of texel (0, 0) into a pixel-pack buffer behind a fence */
texla_result texla__tex_read_start(texla__gl *g, const texla__tex *t, GLuint *pbo, GLsync *fence);
/* TEXLA_OK and the texel once the fence has passed; before it, TEXLA_ERR_NOT_READY at once
 * (wait 0), or waited for (wait 1: at most 60 s, then TEXLA_ERR_GL) */
texla_result texla__tex_read_take(texla__gl *g, GLuint pbo, GLsync *fence, float texel[4],
                                  int wait);
void texla__read_free(texla__gl *g, GLuint *pbo, GLsync *fence);
/* pool temporaries of size w x h (contents undefined) */
texla_result texla__pool_take(texla__gl *g, int w, int h, texla__tex *out);
void texla__pool_give(texla__gl *g, texla__tex *t);
void texla__pool_destroy(texla__gl *g);
/* shader storage buffers: size bytes, from data (NULL: zeros) */
texla_result texla__buf_make(texla__gl *g, size_t size, const void *data, texla__buf *out);
void texla__buf_free(texla__gl *g, texla__buf *b); /* into the pool of freed buffers */
void texla__bufpool_destroy(texla__gl *g);
texla_result texla__buf_upload(texla__gl *g, const texla__buf *b, size_t off, size_t size,
                               const void *data);
texla_result texla__buf_download(texla__gl *g, const texla__buf *b, size_t off, size_t size,
                                 void *data);
/* vertex buffers of points (the classic sparse product): count vertices of `stride` bytes,
 * attributes (location, components, GL type, offset) */
typedef struct texla__attr {
    int loc, comps;
    GLenum type;
    size_t offset;
} texla__attr;
texla_result texla__points_make(texla__gl *g, const void *v, int count, size_t stride,
                                const texla__attr *attrs, int nattrs, GLuint *vao, GLuint *vbo);
void texla__points_free(texla__gl *g, GLuint *vao, GLuint *vbo);

/* ---- the pass runner (runner.c): the only code that binds and draws or dispatches ---- */
texla_result texla__run(texla__gl *g, const texla__pass *p);
/* the backend a pass of program id runs on */
int texla__backend_of(const texla__gl *g, texla__prog_id id);
/* the backends that can run a program (bit b: texla__backends[b]) on this GL */
unsigned texla__prog_backends(const texla__gl *g, texla__prog_id id);
/* GPU time of the passes between begin and end: a timer query where it measures GPU time,
 * else the wall clock around glFinish */
void texla__timer_begin(texla__gl *g);
double texla__timer_end_ms(texla__gl *g);
/* two GPU timings in flight, so the GPU never waits between them (the sparse tuner's clock
 * probe): lap i holds the passes between texla__lap_begin(g, i) and texla__lap_end(g), and
 * texla__lap_ms(g, i) waits for its time. Only where texla__laps_on: timer queries that measure
 * GPU time, and no host's GL_TIME_ELAPSED query active */
int texla__laps_on(texla__gl *g);
void texla__lap_begin(texla__gl *g, int i);
void texla__lap_end(texla__gl *g);
double texla__lap_ms(texla__gl *g, int i);

/* ---- shaders embedded at build time (build/gen/shaders.c) ---- */
typedef struct texla__shader_file {
    const char *name;
    const char *source;
} texla__shader_file;
extern const texla__shader_file texla__shader_files[];
extern const int texla__shader_file_count;

#endif
