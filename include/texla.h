/*
 * texla.h - linear algebra on the GPU through OpenGL render-to-texture.
 * Copyright (c) 2026 the texla authors; zlib licence (see LICENSE): free to use, change and
 * redistribute, also commercially, with no warranty.
 * Copyright (c) 2026 the texla authors. zlib licence: see LICENSE (use, change and redistribute
 * freely, including commercially; no warranty).
 *
 * WHAT IT DOES
 *   Matrices and vectors live in RGBA32F textures; every operation is a fragment program drawn
 *   over a full-screen quad (or quads, or points) into a framebuffer object: the classic GPGPU
 *   designs of Moravanszky ("Dense Matrix Algebra on the GPU": dense 4x1 packing, products
 *   accumulated over passes by additive blending, CG, projected Jacobi for LCPs) and Krueger &
 *   Westermann (GPU Gems 2 ch. 44: 2D vectors, GPU scalars, log-pass reductions, banded and
 *   points-drawn sparse matrices). With OpenGL 4.3 the same operations can also run as compute
 *   shaders, chosen per operation (texla_backend). Works from OpenGL 3.3 core up; no CUDA, no
 *   GL headers needed here.
 *
 * WHAT IT DOES NOT DO
 *   No double precision (all GPU arithmetic is float32), no threads (a context belongs to
 *   the thread it was made on), no hidden read-backs (only calls whose purpose is a host
 *   value copy data back: *_read, the scalar reads, CG's tolerance mode, LCP measures, PNG
 *   dumps), no printing (unless you install a callback).
 *
 * STEP BY STEP
 *   texla_ctx *ctx;
 *   texla_ctx_desc desc = {0};                  // zero fields mean defaults
 *   if (texla_ctx_make(&desc, &ctx)) { puts(texla_error_message(NULL)); return 1; }
 *   texla_mat a, b, c;
 *   texla_mat_make(ctx, 3, 5, a_rows, &a);      // host arrays are row-major floats
 *   texla_mat_make(ctx, 5, 7, b_rows, &b);
 *   texla_mat_make(ctx, 3, 7, NULL, &c);        // NULL data: zeros
 *   texla_mat_matmul(ctx, a, b, c);             // destination last
 *   texla_mat_read(ctx, c, c_rows);
 *   texla_mat_destroy(ctx, a); ...; texla_ctx_destroy(ctx);
 *
 * CONTEXTS
 *   Headless (desc.host_getproc == NULL): texla makes its own EGL context with no window
 *   system: EGL device platform first (hardware devices before software ones), then Mesa's
 *   surfaceless platform, then the default display; core profile, highest of 4.6 .. 3.3.
 *   Host (desc.host_getproc != NULL): texla uses the context current on the calling thread
 *   and loads GL through the given function (glfwGetProcAddress, eglGetProcAddress, ...).
 *   Every texla call must then be made with that context current. A handle belongs to the
 *   context that made it: another context refuses it (TEXLA_ERR_HANDLE).
 *
 * NAMES
 *   texla_<type>_<verb>(ctx, inputs..., destination): texla_mat_add(ctx, a, b, dst). The
 *   same operation takes the same arguments in the same order on every type. `mul` is the
 *   element-wise product; `matmul` is dense times dense and `matvec` any matrix times a
 *   vector. Coefficients that may live on the GPU are texla_coef (texla_host(2.0f), or
 *   texla_gpu(1.0f, scalar)); bounds are plain floats.
 *
 * BATCHES
 *   In host mode every call saves and restores the GL state it touches. texla_ctx_begin and
 *   texla_ctx_end bracket many calls so the state is saved once (they nest).
 *
 * ERRORS
 *   Every call returns TEXLA_OK (0) or an error code; texla_error_message() describes the
 *   last failure precisely (which operand, which sizes, the shader file and driver log).
 *   An optional callback receives every error. Errors are never fatal: nothing aborts, and
 *   an operation that fails leaves its destination's previous contents or zeros, never a
 *   partial mix of texla state. Destroying 0 or a stale handle is a no-op.
 *
 * GL STATE TOUCHED (host mode: all of it is saved on entry and restored on return)
 *   framebuffer bindings (draw, read), viewport 0, current program, active texture unit,
 *   image units 0..3 and shader storage buffer bindings 0..7 and the generic one (compute
 *   backend, GL 4.3),
 *   2D texture and sampler bindings of units 0..7, vertex array and array buffer bindings,
 *   pixel pack/unpack buffer bindings and pack/unpack alignment, row length, skips,
 *   image height, GL_CLAMP_READ_COLOR, blend enable (draw buffer 0), blend functions,
 *   equations and colour, colour write mask (draw buffer 0), polygon mode, the enables of
 *   depth test, stencil test, scissor test, face culling, rasterizer discard,
 *   GL_FRAMEBUFFER_SRGB, colour logic op, sample alpha-to-coverage, sample mask,
 *   program point size, primitive restart and clip distances 0..7.
 *   texla's own objects (textures, framebuffers, programs, one vertex array) are created in
 *   the host context and deleted by texla_ctx_destroy (call it with the context current).
 *
 * LAYOUT (dense, "4x1 column packing")
 *   An n x m matrix is a texture of width m and height ceil(n/4); A(i, j) is texel
 *   (x = j, y = i / 4), channel i % 4. A vector is an n x 1 matrix. Channels past row n-1
 *   (padding lanes) are zero and every operation keeps them zero. Limits: m and ceil(n/4)
 *   at most GL_MAX_TEXTURE_SIZE (texla_ctx_info().max_texture_size).
 *
 * NUMERICS
 *   Element-wise operations round once per arithmetic operation like float32 C code.
 *   Products and dot products accumulate in float32 in blocks of 4; the error of
 *   C = A*B is bounded by K*2^-24*|A||B| (K the inner dimension).
 */
#ifndef TEXLA_H
#define TEXLA_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TEXLA_API __attribute__((visibility("default")))
#else
#define TEXLA_API
#endif

#define TEXLA_VERSION_MAJOR 0
#define TEXLA_VERSION_MINOR 2
#define TEXLA_VERSION_PATCH 0
#define TEXLA_VERSION_STRING "0.2.0"

/* Default number of MOPs (4x4 block of A times 4x1 block of B) per product pass. */
#define TEXLA_MATMUL_K_DEFAULT 16

typedef enum texla_result {
    TEXLA_OK = 0,
    TEXLA_ERR_ARGUMENT,    /* NULL pointer, negative size, non-finite coefficient, bad option */
    TEXLA_ERR_HANDLE,      /* handle 0, destroyed (stale), of another kind or another context */
    TEXLA_ERR_SHAPE,       /* operand shapes do not fit the operation */
    TEXLA_ERR_ALIAS,       /* the destination is also a source of the same pass */
    TEXLA_ERR_LIMIT,       /* a size past a limit of the GL driver (GL_MAX_TEXTURE_SIZE) */
    TEXLA_ERR_UNSUPPORTED, /* the GL implementation lacks a needed capability */
    TEXLA_ERR_CONTEXT,     /* no GL context could be made, or GL could not be loaded */
    TEXLA_ERR_SHADER,      /* a shader failed to compile or link (file name and log in message) */
    TEXLA_ERR_GL,          /* the GL reported an error (message names the pass) */
    TEXLA_ERR_MEMORY,      /* host or GPU memory exhausted */
    TEXLA_ERR_IO,          /* a file could not be read or written */
    TEXLA_ERR_FORMAT,      /* malformed input (message names the file, line and problem) */
    TEXLA_ERR_NOT_READY    /* an asynchronous read-back has not finished yet: ask again */
} texla_result;

typedef struct texla_ctx texla_ctx;

typedef void (*texla_glproc)(void);
typedef texla_glproc (*texla_getproc_fn)(const char *name);
typedef void (*texla_error_fn)(texla_result code, const char *message, void *user);

/* How an operation runs: as a fragment program drawn into a framebuffer (the classic design,
 * GL 3.3), or as a GL 4.3 compute shader over the same texels (on GPUs where only a few units
 * run fragment shaders, such as the H100, many times faster). The choice is made per operation:
 * AUTO takes the faster of the two as measured on a copy at context creation; the caller may
 * pin any operation (texla_ctx_set_backend). Some programs exist on one backend only: the
 * points-drawn sparse product draws (fragment); kernels with storage buffers and shared memory
 * (one-pass reductions, tiled products, the sparse formats) are compute. */
typedef enum texla_backend {
    TEXLA_BACKEND_AUTO = 0,
    TEXLA_BACKEND_FRAGMENT,
    TEXLA_BACKEND_COMPUTE
} texla_backend;

typedef struct texla_ctx_desc {
    texla_getproc_fn host_getproc; /* non-NULL: host mode (use the current context) */
    texla_error_fn error_cb;       /* called with every error; NULL: none */
    void *error_user;              /* passed to error_cb */
    int debug;          /* 1: glGetError after every pass (in host mode that takes the host's
                           pending errors too), and on texla's own contexts a KHR_debug
                           context whose last message joins the error; always on in
                           DEBUG=1 builds */
    int matmul_k;       /* MOPs per product pass (fragment path); 0: TEXLA_MATMUL_K_DEFAULT */
    const char *glsl_dir; /* development override: read shaders from this folder */
    int egl_device;     /* headless: 0 automatic; N > 0: only EGL device N-1 */
    int gl_version_max; /* headless: cap the context version, e.g. 33; 0: highest */
    texla_backend backend; /* every operation's backend; 0: AUTO (measured) */
    /* the tuning cache file (see texla_tune_count); NULL: $XDG_CACHE_HOME/texla/tune.txt,
     * else ~/.cache/texla/tune.txt; "": none (tuning results live as long as the context) */
    const char *tune_cache;
    /* called with warnings (code TEXLA_OK): a tuning cache ignored as corrupt or stale, a
     * cache that could not be written; NULL: none. Gets error_user. */
    texla_error_fn warning_cb;
} texla_ctx_desc;

typedef struct texla_backend_info {
    char name[16];      /* "fragment", "compute" */
    int available;      /* this GL can run it */
    float calib_ms;     /* the 512 x 512 copy timed on it at context creation (0: not timed) */
    int programs;       /* how many of texla's programs run on it now */
} texla_backend_info;

typedef struct texla_info {
    char vendor[128], renderer[128], version[128], glsl_version[64];
    char platform[96];      /* how the context was made: "EGL device 0 (software)", "host", ... */
    int gl_major, gl_minor; /* context version */
    int max_texture_size;   /* GL_MAX_TEXTURE_SIZE */
    int max_viewport[2];    /* GL_MAX_VIEWPORT_DIMS */
    int float_render;       /* RGBA32F renderable (probed by rendering) */
    int float_blend;        /* RGBA32F additive blending unclamped (probed) */
    int compute;            /* GL 4.3 compute shaders available */
    int subgroup_size;      /* GL_KHR_shader_subgroup's size for kernels; 0: none (shared memory
                               is used instead) */
    int shared_memory;      /* bytes of shared memory per workgroup */
    int atomic_float;       /* GL_NV_shader_atomic_float */
    texla_backend backend;  /* the default backend (AUTO's measurement, or the desc's) */
    int nbackends;
    texla_backend_info backends[2]; /* [0] fragment, [1] compute */
    int host;               /* 1: host mode */
    int matmul_k;           /* MOPs per product pass now */
} texla_info;

typedef struct texla_stats {
    uint64_t passes;      /* draws and dispatches issued by the pass runner */
    uint64_t readbacks;   /* GPU-to-host copies */
    uint64_t uploads;     /* host-to-GPU copies */
    uint64_t textures;    /* textures alive (matrices and pool temporaries) */
    uint64_t programs;    /* programs compiled so far */
} texla_stats;

/* Handles: small structs, 0 never valid. A handle names one object of one context. */
typedef struct texla_mat { uint64_t id; } texla_mat;       /* dense matrix (4x1 packing) */
typedef struct texla_vec { uint64_t id; } texla_vec;       /* vector in the 2D layout */
typedef struct texla_scalar { uint64_t id; } texla_scalar; /* one float on the GPU */
typedef struct texla_banded { uint64_t id; } texla_banded; /* stack of diagonals */
typedef struct texla_sparse { uint64_t id; } texla_sparse; /* sparse matrix */

/* A coefficient: value, times the GPU scalar when scalar.id != 0. */
typedef struct texla_coef {
    float value;
    texla_scalar scalar;
} texla_coef;
static inline texla_coef texla_host(float v) { texla_coef c = {v, {0}}; return c; }
static inline texla_coef texla_gpu(float v, texla_scalar s) { texla_coef c = {v, s}; return c; }

/* ==== context ==== */

/* Makes a context (headless EGL, or the host's current one); *out is NULL on failure.
 * desc may be NULL (all defaults). On failure texla_error_message(NULL) says why. */
TEXLA_API texla_result texla_ctx_make(const texla_ctx_desc *desc, texla_ctx **out);
/* Deletes every object of ctx and, headless, the context itself. NULL is a no-op. */
TEXLA_API void texla_ctx_destroy(texla_ctx *ctx);
/* Message of the last error of ctx, or of the last failed call without a context on this
 * thread when ctx is NULL. Never NULL; "" when there was none. */
TEXLA_API const char *texla_error_message(const texla_ctx *ctx);
/* "TEXLA_ERR_SHAPE" etc. */
TEXLA_API const char *texla_result_name(texla_result r);
/* Reports an error through ctx (message and callback) and returns code: for code built on
 * texla's public API that wants its errors to read like texla's (texla's solvers use it). */
TEXLA_API texla_result texla_ctx_fail(texla_ctx *ctx, texla_result code, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
TEXLA_API texla_result texla_ctx_info(texla_ctx *ctx, texla_info *out);
TEXLA_API texla_result texla_ctx_stats(texla_ctx *ctx, texla_stats *out);
/* Waits until the GPU has finished all work issued so far (for timing). */
TEXLA_API texla_result texla_ctx_finish(texla_ctx *ctx);
/* A batch: the GL state is saved by begin and restored by the matching end (host mode); calls
 * in between pay no state save each. Nestable; every begin needs its end. */
TEXLA_API texla_result texla_ctx_begin(texla_ctx *ctx);
TEXLA_API texla_result texla_ctx_end(texla_ctx *ctx);
/* Pins the backend of one program (its glsl/ file name without the extension, e.g. "axpby",
 * "matmul", "reduce"; NULL: every program) to FRAGMENT or COMPUTE, or back to AUTO.
 * TEXLA_ERR_UNSUPPORTED when the program cannot run there. */
TEXLA_API texla_result texla_ctx_set_backend(texla_ctx *ctx, const char *program,
                                             texla_backend backend);
/* The backend a program runs on now (its name as for texla_ctx_set_backend). */
TEXLA_API texla_result texla_ctx_get_backend(texla_ctx *ctx, const char *program,
                                             texla_backend *out);
/* MOPs per product pass, k >= 1 (k >= ceil(K/4) gives one pass); 0 restores the default.
 * The fragment path's setting: the compute backend does the whole inner dimension at once. */
TEXLA_API texla_result texla_ctx_set_matmul_k(texla_ctx *ctx, int k);

/* ---- the tuning cache ----
 * Choices found by timing on the device (sparse formats and schedules, product tiles) are kept
 * in a plain text file, one entry per line (device = renderer | GL version, key, value), so a
 * later run reuses them. Written atomically; a file or line that cannot be read as a cache is
 * ignored with a warning (warning_cb), never trusted. */
TEXLA_API int texla_tune_count(texla_ctx *ctx); /* entries for this device */
/* entry i (0 .. count-1) of this device; the strings live until the cache changes */
TEXLA_API texla_result texla_tune_entry(texla_ctx *ctx, int i, const char **key,
                                        const char **value);
/* the cache file ("" when there is none) */
TEXLA_API const char *texla_tune_path(texla_ctx *ctx);

/* ==== dense matrices ==== */

typedef struct texla_mat_info {
    int rows, cols;       /* logical shape */
    int tex_width, tex_height; /* texture size: cols x ceil(rows/4) */
    uint32_t texture;     /* GL texture name (RGBA32F, GL_NEAREST); read-only for the host */
} texla_mat_info;

/* rows x cols matrix from row-major data (NULL: zeros). */
TEXLA_API texla_result texla_mat_make(texla_ctx *ctx, int rows, int cols, const float *data,
                                      texla_mat *out);
TEXLA_API texla_result texla_mat_make_const(texla_ctx *ctx, int rows, int cols, float value,
                                            texla_mat *out);
TEXLA_API texla_result texla_mat_make_identity(texla_ctx *ctx, int n, texla_mat *out);
TEXLA_API void texla_mat_destroy(texla_ctx *ctx, texla_mat m);
/* Replaces all elements with row-major data (rows*cols floats). */
TEXLA_API texla_result texla_mat_write(texla_ctx *ctx, const float *data, texla_mat m);
/* Copies the elements to out (rows*cols floats, row-major). */
TEXLA_API texla_result texla_mat_read(texla_ctx *ctx, texla_mat m, float *out);
/* Copies the texture as stored to out (tex_width*tex_height*4 floats, texel rows from y=0,
 * RGBA per texel), padding lanes included. */
TEXLA_API texla_result texla_mat_read_raw(texla_ctx *ctx, texla_mat m, float *out);
TEXLA_API texla_result texla_mat_info_get(texla_ctx *ctx, texla_mat m, texla_mat_info *out);

/* ==== 2D vectors and GPU scalars (Krueger & Westermann) ====
 * A vector in the 2D layout: element k is grid cell (k mod gx, k div gx) of an even gx x gy
 * grid, texel (gx/2, gy/2) of a (gx/2) x (gy/2) texture, channel (gx%2) + 2*(gy%2).
 * A plain vector of length n uses a near-square grid; a PDE grid vector of nx x ny cells uses
 * gx = nx rounded up to even, so grid neighbours are texel neighbours (its host data is the
 * nx x ny grid, row-major, and element k of it is cell (k mod nx, k div nx)). */
typedef struct texla_vec_info {
    int n;          /* elements */
    int nx, ny;     /* the logical grid: nx * ny >= n; plain vectors: nx = gx */
    int gx, gy;     /* the element grid (even) */
    int tex_width, tex_height; /* gx/2 x gy/2 */
    uint32_t texture;
} texla_vec_info;

/* length-n vector from data (NULL: zeros); the grid is the most square one within limits */
TEXLA_API texla_result texla_vec_make(texla_ctx *ctx, int n, const float *data, texla_vec *out);
/* nx x ny PDE grid vector from row-major grid data (NULL: zeros) */
TEXLA_API texla_result texla_vec_make_grid(texla_ctx *ctx, int nx, int ny, const float *data,
                                           texla_vec *out);
/* a zero vector of v's layout */
TEXLA_API texla_result texla_vec_make_like(texla_ctx *ctx, texla_vec v, texla_vec *out);
TEXLA_API void texla_vec_destroy(texla_ctx *ctx, texla_vec v);
TEXLA_API texla_result texla_vec_write(texla_ctx *ctx, const float *data, texla_vec v);
TEXLA_API texla_result texla_vec_read(texla_ctx *ctx, texla_vec v, float *out);
/* the texture as stored: tex_width*tex_height*4 floats, padding included */
TEXLA_API texla_result texla_vec_read_raw(texla_ctx *ctx, texla_vec v, float *out);
TEXLA_API texla_result texla_vec_info_get(texla_ctx *ctx, texla_vec v, texla_vec_info *out);
/* dst += amplitude * exp(-d^2 / radius^2), d the distance of each element's grid cell
 * (k mod nx, k div nx) to (x, y); drawn over the bump's bounding rectangle (3 radii), by
 * additive blending. For interactive disturbances of PDE grids. */
TEXLA_API texla_result texla_vec_splat(texla_ctx *ctx, float x, float y, float radius,
                                       float amplitude, texla_vec dst);
/* conversions between the 2D layout and the dense n x 1 layout, on the GPU */
TEXLA_API texla_result texla_vec_from_mat(texla_ctx *ctx, texla_mat m, texla_vec dst);
TEXLA_API texla_result texla_mat_from_vec(texla_ctx *ctx, texla_vec v, texla_mat dst);

/* scalars */
TEXLA_API texla_result texla_scalar_make(texla_ctx *ctx, float value, texla_scalar *out);
TEXLA_API void texla_scalar_destroy(texla_ctx *ctx, texla_scalar s);
TEXLA_API texla_result texla_scalar_write(texla_ctx *ctx, float value, texla_scalar s);
/* blocking read-back */
TEXLA_API texla_result texla_scalar_read(texla_ctx *ctx, texla_scalar s, float *out);
/* non-blocking: start copies the value into a pixel-pack buffer behind a fence; poll returns
 * TEXLA_OK with the value once the GPU has got there, TEXLA_ERR_NOT_READY before, without
 * waiting. A new start replaces a pending one. */
TEXLA_API texla_result texla_scalar_read_start(texla_ctx *ctx, texla_scalar s);
TEXLA_API texla_result texla_scalar_read_poll(texla_ctx *ctx, texla_scalar s, float *out);
TEXLA_API texla_result texla_scalar_div(texla_ctx *ctx, texla_scalar a, texla_scalar b,
                                        texla_scalar dst); /* a / b */
TEXLA_API texla_result texla_scalar_div_or_zero(texla_ctx *ctx, texla_scalar a, texla_scalar b,
                                                texla_scalar dst); /* b == 0 ? 0 : a / b */
TEXLA_API texla_result texla_scalar_mul(texla_ctx *ctx, texla_scalar a, texla_scalar b,
                                        texla_scalar dst);
TEXLA_API texla_result texla_scalar_sub(texla_ctx *ctx, texla_scalar a, texla_scalar b,
                                        texla_scalar dst);
TEXLA_API texla_result texla_scalar_neg(texla_ctx *ctx, texla_scalar a, texla_scalar dst);

/* ==== element-wise operations: the same for matrices (texla_mat_*) and vectors (texla_vec_*)
 * All operands of one shape (vectors: one layout); dst is never also a source. Operations
 * marked "in place" read dst too (accumulated by blending on the fragment backend). Padding
 * lanes stay zero. */
#define TEXLA_EW_DECLARE(T)                                                                     \
    /* dst = c */                                                                               \
    TEXLA_API texla_result texla_##T##_fill(texla_ctx *ctx, texla_coef c, texla_##T dst);      \
    /* dst = a */                                                                               \
    TEXLA_API texla_result texla_##T##_copy(texla_ctx *ctx, texla_##T a, texla_##T dst);       \
    /* dst = a + b, a - b, a .* b, min(a, b), max(a, b) */                                      \
    TEXLA_API texla_result texla_##T##_add(texla_ctx *ctx, texla_##T a, texla_##T b,           \
                                           texla_##T dst);                                      \
    TEXLA_API texla_result texla_##T##_sub(texla_ctx *ctx, texla_##T a, texla_##T b,           \
                                           texla_##T dst);                                      \
    TEXLA_API texla_result texla_##T##_mul(texla_ctx *ctx, texla_##T a, texla_##T b,           \
                                           texla_##T dst);                                      \
    TEXLA_API texla_result texla_##T##_min(texla_ctx *ctx, texla_##T a, texla_##T b,           \
                                           texla_##T dst);                                      \
    TEXLA_API texla_result texla_##T##_max(texla_ctx *ctx, texla_##T a, texla_##T b,           \
                                           texla_##T dst);                                      \
    /* dst = |a| */                                                                             \
    TEXLA_API texla_result texla_##T##_abs(texla_ctx *ctx, texla_##T a, texla_##T dst);        \
    /* dst = s a */                                                                             \
    TEXLA_API texla_result texla_##T##_scale(texla_ctx *ctx, texla_##T a, texla_coef s,        \
                                             texla_##T dst);                                    \
    /* dst = a + s b */                                                                         \
    TEXLA_API texla_result texla_##T##_axpy(texla_ctx *ctx, texla_##T a, texla_coef s,         \
                                            texla_##T b, texla_##T dst);                        \
    /* dst = a + (b + d) .* e (the dense paper's "madad") */                                    \
    TEXLA_API texla_result texla_##T##_madad(texla_ctx *ctx, texla_##T a, texla_##T b,         \
                                             texla_##T d, texla_##T e, texla_##T dst);          \
    /* dst = max(a, s) */                                                                       \
    TEXLA_API texla_result texla_##T##_clamp_min(texla_ctx *ctx, texla_##T a, float s,         \
                                                 texla_##T dst);                                \
    /* dst = min(max(a, lo), hi), lo <= hi */                                                   \
    TEXLA_API texla_result texla_##T##_clamp(texla_ctx *ctx, texla_##T a, float lo, float hi,  \
                                             texla_##T dst);                                    \
    /* dst = s ./ a (a zero element gives +-Inf there) */                                       \
    TEXLA_API texla_result texla_##T##_recip(texla_ctx *ctx, texla_##T a, float s,             \
                                             texla_##T dst);                                    \
    /* in place: dst += s b */                                                                  \
    TEXLA_API texla_result texla_##T##_acc(texla_ctx *ctx, texla_coef s, texla_##T b,          \
                                           texla_##T dst);                                      \
    /* in place: dst += a .* b */                                                               \
    TEXLA_API texla_result texla_##T##_acc_mul(texla_ctx *ctx, texla_##T a, texla_##T b,       \
                                               texla_##T dst);                                  \
    /* in place: dst *= s */                                                                    \
    TEXLA_API texla_result texla_##T##_rescale(texla_ctx *ctx, float s, texla_##T dst);        \
    /* reductions into a GPU scalar (read it with texla_scalar_read): the sum, the dot product  \
     * sum(a .* b), the squared 2-norm sum(a .* a), the largest and smallest element, the      \
     * largest magnitude; in one kernel pass on the compute backend, log passes on the          \
     * fragment one */                                                                          \
    TEXLA_API texla_result texla_##T##_sum(texla_ctx *ctx, texla_##T a, texla_scalar dst);     \
    TEXLA_API texla_result texla_##T##_dot(texla_ctx *ctx, texla_##T a, texla_##T b,           \
                                           texla_scalar dst);                                   \
    TEXLA_API texla_result texla_##T##_sqnorm(texla_ctx *ctx, texla_##T a, texla_scalar dst);  \
    TEXLA_API texla_result texla_##T##_maxval(texla_ctx *ctx, texla_##T a, texla_scalar dst);  \
    TEXLA_API texla_result texla_##T##_minval(texla_ctx *ctx, texla_##T a, texla_scalar dst);  \
    TEXLA_API texla_result texla_##T##_maxabs(texla_ctx *ctx, texla_##T a, texla_scalar dst);
TEXLA_EW_DECLARE(mat)
TEXLA_EW_DECLARE(vec)

/* ==== products ==== */

/* C = A * B (n x K times K x m); C = A' * B (A is K x n); C = A * B' (B is m x K). The
 * fragment path accumulates ceil(K/4/k) passes by additive blending (k MOPs each). */
TEXLA_API texla_result texla_mat_matmul(texla_ctx *ctx, texla_mat a, texla_mat b, texla_mat dst);
TEXLA_API texla_result texla_mat_matmul_tn(texla_ctx *ctx, texla_mat a, texla_mat b,
                                           texla_mat dst);
TEXLA_API texla_result texla_mat_matmul_nt(texla_ctx *ctx, texla_mat a, texla_mat b,
                                           texla_mat dst);
/* dst (n x 1) = the diagonal of the n x n matrix A. */
TEXLA_API texla_result texla_mat_diag(texla_ctx *ctx, texla_mat a, texla_mat dst);
/* y = A x for a dense n x m matrix and 2D vectors x (m) and y (n). */
TEXLA_API texla_result texla_mat_matvec(texla_ctx *ctx, texla_mat a, texla_vec x, texla_vec y);

/* ==== banded matrices: a stack of diagonals, each in the 2D layout of `like` ====
 * Row k of A holds A(k, k + offsets[i]) = diags[i * n + k] (n = like's length; entries whose
 * column falls outside 0..n-1 are ignored, and so is a diagonal with |offset| >= n). Indices
 * are the vector's element numbers. */
TEXLA_API texla_result texla_banded_make(texla_ctx *ctx, texla_vec like, int ndiag,
                                         const int *offsets, const float *diags,
                                         texla_banded *out);
/* alpha * I + beta * P on an nx x ny grid vector, P the 5-point Laplacian with zero
 * (Dirichlet) boundaries: 4 on the diagonal, -1 for each grid neighbour inside the grid.
 * Poisson: (0, 1). Wave equation with r = (c dt / h)^2: explicit step matrix 2I - rP is
 * (2, -r); the Crank-Nicolson matrix I + (r/2) P is (1, r/2). */
TEXLA_API texla_result texla_banded_poisson(texla_ctx *ctx, int nx, int ny, float alpha,
                                            float beta, texla_banded *out);
TEXLA_API void texla_banded_destroy(texla_ctx *ctx, texla_banded a);
/* y = A x */
TEXLA_API texla_result texla_banded_matvec(texla_ctx *ctx, texla_banded a, texla_vec x,
                                           texla_vec y);
/* y = A x + s * b */
TEXLA_API texla_result texla_banded_matvec_add(texla_ctx *ctx, texla_banded a, texla_vec x,
                                               float s, texla_vec b, texla_vec y);

/* ==== sparse matrices (GPU Gems: points drawn with additive blending) ====
 * rows x cols; x has cols elements, y has rows. Duplicates are summed; empty rows are fine. */
TEXLA_API texla_result texla_sparse_make_coo(texla_ctx *ctx, texla_vec row_like,
                                             texla_vec col_like, int nnz, const int *rows,
                                             const int *cols, const float *vals,
                                             texla_sparse *out);
TEXLA_API texla_result texla_sparse_make_csr(texla_ctx *ctx, texla_vec row_like,
                                             texla_vec col_like, const int *row_ptr,
                                             const int *cols, const float *vals,
                                             texla_sparse *out);
TEXLA_API void texla_sparse_destroy(texla_ctx *ctx, texla_sparse a);
TEXLA_API texla_result texla_sparse_matvec(texla_ctx *ctx, texla_sparse a, texla_vec x,
                                           texla_vec y);

/* ---- Matrix Market files (host side) ----
 * Reads coordinate (real, integer, pattern; general, symmetric, skew-symmetric) and array
 * (real; general, symmetric) files strictly: anything malformed is TEXLA_ERR_FORMAT with the
 * file, line and problem in the message, and nothing is returned. Symmetric and
 * skew-symmetric files are expanded to all their entries; pattern entries are 1. */
typedef struct texla_mm {
    int rows, cols;
    int coordinate;   /* 1: coordinate file (nnz entries in row/col/val), 0: array (dense) */
    int nnz;          /* entries after expansion (coordinate) */
    int *row, *col;   /* 0-based */
    float *val;
    float *dense;     /* array files: rows * cols, row-major */
} texla_mm;
/* ctx may be NULL (then texla_error_message(NULL) has the message). */
TEXLA_API texla_result texla_mm_read(texla_ctx *ctx, const char *path, texla_mm *out);
TEXLA_API void texla_mm_free(texla_mm *m);
/* Writes atomically (a temporary file in the same folder, then rename): an array file of a
 * row-major rows x cols matrix, or a coordinate real general file of nnz entries (0-based). */
TEXLA_API texla_result texla_mm_write_array(texla_ctx *ctx, const char *path, int rows, int cols,
                                            const float *data);
TEXLA_API texla_result texla_mm_write_coord(texla_ctx *ctx, const char *path, int rows, int cols,
                                            int nnz, const int *row, const int *col,
                                            const float *val);

/* ---- solvers (built only from the public operations above) ---- */

/* A linear operator: a dense square matrix, a banded or a sparse matrix, or the product of two
 * operators (texla_op_product). */
typedef enum texla_op_kind {
    TEXLA_OP_DENSE = 1,
    TEXLA_OP_BANDED,
    TEXLA_OP_SPARSE,
    TEXLA_OP_PRODUCT
} texla_op_kind;
typedef struct texla_op {
    texla_op_kind kind;
    uint64_t id;      /* the texla_mat, texla_banded, texla_sparse or product handle's id */
} texla_op;
static inline texla_op texla_op_dense(texla_mat m) { texla_op o = {TEXLA_OP_DENSE, m.id}; return o; }
static inline texla_op texla_op_banded(texla_banded m) { texla_op o = {TEXLA_OP_BANDED, m.id}; return o; }
static inline texla_op texla_op_sparse(texla_sparse m) { texla_op o = {TEXLA_OP_SPARSE, m.id}; return o; }
/* y = A x for any operator */
TEXLA_API texla_result texla_op_matvec(texla_ctx *ctx, texla_op a, texla_vec x, texla_vec y);
/* the operator's rows and columns */
TEXLA_API texla_result texla_op_shape(texla_ctx *ctx, texla_op a, int *rows, int *cols);

typedef struct texla_cg_desc {
    int max_iter;    /* 0: n */
    float tol;       /* relative residual ||b - Ax|| / ||b||; 0: fixed-iteration mode, max_iter
                        iterations and no read-back at all */
    int check_every; /* tolerance mode: start an asynchronous residual read every k iterations
                        and stop at the first one found below tol; 0: 8 */
} texla_cg_desc;
typedef struct texla_cg_result {
    int iterations;
    float rel_residual; /* true ||b - A x|| / ||b|| of the x returned; -1 in fixed-iteration
                           mode (not read back) */
    int converged;      /* 1: a true residual below tol was seen. 0: max_iter reached, or
                           float32 could not get there (eight residual replacements in a
                           row without lowering it by 10%), or NaN (A not SPD) */
} texla_cg_result;
/* Conjugate gradients for symmetric positive definite A, warm-started from x. */
TEXLA_API texla_result texla_cg(texla_ctx *ctx, texla_op a, texla_vec b, const texla_cg_desc *desc,
                                texla_vec x, texla_cg_result *out);

/* Work matrices of the LCP solver for one size n, owned by the caller: solving many LCPs of
 * the same size with one workspace allocates nothing. */
typedef struct texla_lcp_workspace {
    int n;
    texla_mat m[4];
} texla_lcp_workspace;
TEXLA_API texla_result texla_lcp_workspace_make(texla_ctx *ctx, int n, texla_lcp_workspace *out);
TEXLA_API void texla_lcp_workspace_destroy(texla_ctx *ctx, texla_lcp_workspace *ws);

typedef struct texla_lcp_desc {
    int iterations;  /* 0: 100 */
    float omega;     /* relaxation; 0: 1 */
    /* The bounded variant (contacts with friction), when friction_index is given (n x 1):
     * row i with friction_index[i] < 0 is a normal impulse, projected to max(0, x_i); row i
     * with friction_index[i] = j >= 0 is a friction impulse of normal row j, projected to
     * [-mu_i x_j, mu_i x_j] with mu_i = friction_mu[i] (n x 1). Indices are stored as floats. */
    texla_mat friction_index;
    texla_mat friction_mu;
    /* work matrices for this n (NULL: made and destroyed by the call) */
    texla_lcp_workspace *workspace;
} texla_lcp_desc;
typedef struct texla_lcp_result { /* over the normal rows (all rows without friction) */
    float min_x;      /* min x_i (>= 0 by construction) */
    float min_w;      /* min w_i, w = A x + b */
    float xw;         /* x' w, the complementarity gap */
    float max_abs_xw; /* max |x_i w_i| */
    float max_friction_excess; /* bounded variant: max(|x_i| - mu_i x_j, 0) over friction rows */
} texla_lcp_result;
/* The projection step of the bounded variant on its own (see texla_lcp_desc):
 * dst = project(v) with the same index/mu vectors; all n x 1. */
TEXLA_API texla_result texla_lcp_project(texla_ctx *ctx, texla_mat v, texla_mat index,
                                         texla_mat mu, texla_mat dst);
/* Projected Jacobi for the LCP: x >= 0, w = A x + b >= 0, x' w = 0, with dense n x n A and
 * n x 1 b and x (x is the warm start). x <- max(0, x - omega D^-1 (A x + b)), D = diag(A);
 * no read-back inside the loop; at the end x and w are read back for the measures (out may be
 * NULL: then nothing is read back). x must be none of a, b and the friction vectors. */
TEXLA_API texla_result texla_lcp_jacobi(texla_ctx *ctx, texla_mat a, texla_mat b,
                                        const texla_lcp_desc *desc, texla_mat x,
                                        texla_lcp_result *out);

/* ---- matrix-free LCPs: operators as products, projected Jacobi on vectors ----
 * For A = L R never formed (contacts: A = J (M^-1 J'), two sparse products per iteration). */

/* *out: the operator A x = L (R x), l p x q and r q x n (any kinds, products included). mid, a
 * vector of q elements in the layout r's product writes (a sparse or banded r: its row layout),
 * holds R x during each product: it must be none of the vectors the product is applied to. The
 * product names l, r and mid without owning them: keep them alive while it is used (a product
 * whose part is gone fails with TEXLA_ERR_HANDLE). Destroy it with texla_op_destroy. */
TEXLA_API texla_result texla_op_product(texla_ctx *ctx, texla_op l, texla_op r, texla_vec mid,
                                        texla_op *out);
/* Destroys a product operator (a no-op for 0, stale handles and the other kinds: those are
 * destroyed as the matrices they are). */
TEXLA_API void texla_op_destroy(texla_ctx *ctx, texla_op a);

/* One projected Jacobi step on vectors: dst = project(v), v = x + (w + b) .* e, with w = A x
 * computed by the caller (any operator) and e = -omega / diag(A). project is max(0, v_i), or,
 * with index and mu (both 0 handles: none), the bounded projection of texla_lcp_desc: a row with
 * index[i] = j (0 <= j < n) is clamped to [-mu_i n_j, mu_i n_j], n_j = max(0, v_j); other rows
 * are normal rows. All of one layout; dst is none of the others. One pass. */
TEXLA_API texla_result texla_vec_lcp_step(texla_ctx *ctx, texla_vec x, texla_vec w, texla_vec b,
                                          texla_vec e, texla_vec index, texla_vec mu,
                                          texla_vec dst);

/* The work vectors of texla_lcp_jacobi_op for one layout (like's), owned by the caller. */
typedef struct texla_lcp_op_workspace {
    int n;
    texla_vec v[3];
} texla_lcp_op_workspace;
TEXLA_API texla_result texla_lcp_op_workspace_make(texla_ctx *ctx, texla_vec like,
                                                   texla_lcp_op_workspace *out);
TEXLA_API void texla_lcp_op_workspace_destroy(texla_ctx *ctx, texla_lcp_op_workspace *ws);

typedef struct texla_lcp_op_desc {
    int iterations;  /* 0: 100 */
    float omega;     /* relaxation; 0: 1 */
    /* diag(A) (n elements, none zero: give 1 for a row of A that is all zero); 0 handle:
     * computed, which texla can do for a dense A only (TEXLA_ERR_ARGUMENT otherwise) */
    texla_vec diag;
    /* the bounded variant, as in texla_lcp_desc, as vectors of x's layout (0: none) */
    texla_vec friction_index;
    texla_vec friction_mu;
    texla_lcp_op_workspace *workspace; /* NULL: made and destroyed by the call */
} texla_lcp_op_desc;
/* Projected Jacobi for the LCP x >= 0, w = A x + b >= 0, x' w = 0 (or its bounded variant) with
 * A any square operator and b, x vectors of one layout (x the warm start):
 * x <- project(x - omega D^-1 (A x + b)), D = diag(A); per iteration one product and one
 * texla_vec_lcp_step, no read-back inside; out (may be NULL) as texla_lcp_jacobi, read back at
 * the end. x must be none of b, diag and the friction vectors. */
TEXLA_API texla_result texla_lcp_jacobi_op(texla_ctx *ctx, texla_op a, texla_vec b,
                                           const texla_lcp_op_desc *desc, texla_vec x,
                                           texla_lcp_result *out);

/* ---- PNG images (libpng): look at what the GPU computed ----
 * Logical view: one pixel per element, row 0 at the top, column 0 at the left; a 2D vector on
 * its nx x ny grid; a scalar as 1x1; a banded matrix as its diagonals, one grid image per
 * diagonal stacked top to bottom in the order of their offsets; a sparse matrix as its rows x
 * cols pattern (nonzeros coloured by value, the rest in the background colour; matrices wider
 * or taller than 4096 are binned, the largest magnitude of a bin shown).
 * Raw view: the texture as stored, each texel as its packed sub-pixels (4x1: one column of 4
 * pixels; 2x2: a 2x2 block), padding lanes in the padding colour.
 * NaN, +Inf and -Inf get colours no map uses (magenta, green, cyan); padding orange. The
 * range, view, shape, layout and map are written into tEXt chunks ("texla:range" etc.).
 * Files are written atomically (a temporary file, then rename). */
typedef enum texla_png_view { TEXLA_PNG_LOGICAL = 0, TEXLA_PNG_RAW } texla_png_view;
typedef enum texla_png_map {
    TEXLA_MAP_AUTO = 0,   /* diverging when the range spans 0, else viridis */
    TEXLA_MAP_GRAY,       /* 8-bit grey */
    TEXLA_MAP_VIRIDIS,    /* perceptual sequential */
    TEXLA_MAP_DIVERGING,  /* blue - white - red, centred on 0 */
    TEXLA_MAP_GRAY16      /* 16-bit grey, for quantitative use (range in the text chunk) */
} texla_png_map;
typedef struct texla_png_desc {
    texla_png_view view;
    texla_png_map map;
    int fixed_range;  /* 1: use lo..hi; 0: min..max of the finite values, computed on the GPU */
    float lo, hi;
    int scale;        /* integer upscale, each element a scale x scale block; 0: 1 */
} texla_png_desc;
/* desc may be NULL (defaults). */
TEXLA_API texla_result texla_png_mat(texla_ctx *ctx, texla_mat m, const char *path,
                                     const texla_png_desc *desc);
TEXLA_API texla_result texla_png_vec(texla_ctx *ctx, texla_vec v, const char *path,
                                     const texla_png_desc *desc);
TEXLA_API texla_result texla_png_scalar(texla_ctx *ctx, texla_scalar s, const char *path,
                                        const texla_png_desc *desc);
TEXLA_API texla_result texla_png_banded(texla_ctx *ctx, texla_banded a, const char *path,
                                        const texla_png_desc *desc);
TEXLA_API texla_result texla_png_sparse(texla_ctx *ctx, texla_sparse a, const char *path,
                                        const texla_png_desc *desc);
/* Any RGBA32F 2D texture of the host (width x height texels): the logical view shows it as a
 * width x height image of channel 0, the raw view all four channels side by side. */
TEXLA_API texla_result texla_png_texture(texla_ctx *ctx, uint32_t texture, int width, int height,
                                         const char *path, const texla_png_desc *desc);
/* Reads an 8- or 16-bit grey or RGB(A) PNG into a new rows x cols matrix (rows = image height):
 * grey values, or the mean of R, G, B, scaled to [0, 1], or to the file's texla:range when it
 * has one (so a TEXLA_MAP_GRAY16 dump reads back within its quantisation). */
TEXLA_API texla_result texla_png_read(texla_ctx *ctx, const char *path, texla_mat *out);

#ifdef __cplusplus
}
#endif
#endif /* TEXLA_H */
