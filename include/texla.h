/*
 * texla.h - linear algebra on the GPU through OpenGL render-to-texture.
 * Copyright (c) 2026 the texla authors; zlib licence (see LICENSE): free to use, change and
 * redistribute, also commercially, with no warranty.
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
 *   No double precision (all GPU arithmetic is float32), no calls from other threads (a
 *   context belongs to the thread it was made on; the sparse tuner alone starts threads of its
 *   own for host work, no GL, joined before it returns), no hidden read-backs (only calls whose purpose is a host
 *   value copy data back: *_read, the scalar reads, CG's tolerance mode, LCP measures and the
 *   progress/history you ask a solver for, PNG dumps), no printing (unless you install a
 *   callback).
 *
 * SOLVERS SAY HOW THEY ENDED
 *   texla_cg_result.stop and texla_lcp_result.status: converged or not and why (iteration
 *   limit, float32 stagnation with the best true residual, NaN, cancelled; an LCP unsolved
 *   against a tolerance relative to its scale). Not reaching a tolerance is not an error: the
 *   call returns TEXLA_OK and says so. Progress callbacks and residual histories (caller
 *   buffers) are in the descs.
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
 *   Every texla call must then be made with that context current: with another context
 *   current, or none, calls that use GL return TEXLA_ERR_CONTEXT and leave that context and
 *   texla's objects as they were (texla knows its context by a mark, from the texla_ctx, on
 *   its vertex array object: vertex arrays are never shared between contexts). A destroy
 *   does nothing then (the handle stays valid), and texla_ctx_destroy frees texla's host
 *   memory but leaves its GL objects to the context they live in. Within a batch
 *   (texla_ctx_begin) the context is checked once, at the outermost begin. A handle belongs to the
 *   texla_ctx that made it: another refuses it (TEXLA_ERR_HANDLE).
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
 *   The error and warning callbacks run inside the call that raised them: from there only
 *   queries work on that context (texla_error_message, texla_result_name, the info and shape
 *   calls); a call on it that would make, destroy, read, write or run anything, texla_ctx_begin,
 *   _end, _finish and _check and the texla_ctx_set_ calls return TEXLA_ERR_CONTEXT and do nothing
 *   (texla_ctx_destroy does nothing), and no callback is called again from inside one. Other
 *   contexts work as anywhere. The message a callback gets is its own copy; the context's
 *   message is as it was before the callback when it returns.
 *
 * GL STATE TOUCHED (host mode: all of it is saved on entry and restored on return)
 *   framebuffer bindings (draw, read), viewport 0, current program, active texture unit,
 *   image units 0..3 and shader storage buffer bindings 0..7 and the generic one (compute
 *   backend, GL 4.3),
 *   2D texture and sampler bindings of units 0..7, vertex array and array buffer bindings,
 *   pixel pack/unpack buffer bindings and pack/unpack alignment, row length, skips,
 *   image height, GL_CLAMP_READ_COLOR, blend enable (draw buffer 0), blend functions,
 *   equations and colour, colour write mask (draw buffer 0), polygon mode, clip control
 *   (origin and depth mode, GL 4.5 or ARB_clip_control), the enables of
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
 *   C = A*B is bounded by K*2^-24*|A||B| (K the inner dimension). The compute backend's
 *   tiled products sum 128 values of k at a time into a running total (two-level), so
 *   their bound is about (128 + K/128)*2^-24*|A||B|; reductions fold in a fixed order, so a
 *   result is the same run to run.
 *
 * FILES (Matrix Market, PNG, the tuning cache; the demos' frames are PNG dumps)
 *   Writing is atomic: a temporary file beside the file written, flushed and synced, then
 *   renamed over it; on failure nothing changes. What is at PATH decides what is written:
 *   nothing or a regular file: PATH (its mode kept; a file with other hard links is replaced
 *   by a new one, its other names keep the old contents); a symbolic link: the file it leads
 *   to (links followed, relative ones from their own folder), replaced beside itself, the
 *   link kept (a dangling link gets its file made, as the shell's `>` does); a directory, a
 *   FIFO, a socket or a device: refused with TEXLA_ERR_IO naming the kind, without opening it
 *   (replacing it would destroy it, /dev/null as root; writing into it is not atomic).
 *   Reading takes regular files and pipes; a directory, socket or device is refused
 *   (TEXLA_ERR_IO) before it is opened. Readers are bounded: a Matrix Market line stops at
 *   1 MiB, a NUL byte at once (TEXLA_ERR_FORMAT); a PNG has a pixel budget
 *   (texla_ctx_desc.png_max_pixels) checked at its header, and chunks of at most 8 MiB.
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
    TEXLA_ERR_CONTEXT,     /* no GL context could be made, GL could not be loaded, or (host
                              mode) the context current is not the one texla_ctx_make found */
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
 * AUTO takes the faster of the two as measured on a copy at context creation, and times each
 * element-wise program again on its first use on a destination of 16384 texels or more (both
 * backends, once each after compiling), keeping the other backend for that program where it was
 * more than 1.5x faster (that first call issues 4 or 5 passes; passes that blend into their
 * destination are not timed); the caller may pin any operation (texla_ctx_set_backend), and
 * texla_ctx_get_backend says where one runs now. Some programs exist on one backend only: the
 * points-drawn sparse product draws (fragment); kernels with storage buffers and shared memory
 * (one-pass reductions, tiled products, the sparse formats) are compute. */
typedef enum texla_backend {
    TEXLA_BACKEND_AUTO = 0,
    TEXLA_BACKEND_FRAGMENT,
    TEXLA_BACKEND_COMPUTE
} texla_backend;

typedef struct texla_ctx_desc {
    texla_getproc_fn host_getproc; /* non-NULL: host mode (use the current context, a core
                                      profile of OpenGL 3.3 or later: a compatibility profile
                                      is refused, TEXLA_ERR_UNSUPPORTED) */
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
    /* texla_png_read's budget: an image of more pixels is refused (TEXLA_ERR_LIMIT) as soon as
     * its header is read; 0: TEXLA_PNG_MAX_PIXELS_DEFAULT. Reading costs about 4 bytes of host
     * memory per pixel (and the matrix 4 bytes of GPU memory). */
    int64_t png_max_pixels;
    /* the compute kernels' tile and schedule choice (texla_kernel_variant): 0 measure on first
     * use per problem class and keep the result in the tuning cache, except on software
     * renderers (there the defaults); 1 measure everywhere; -1 never (the defaults) */
    int tune;
} texla_ctx_desc;

/* 2^26 pixels (8192 x 8192): 256 MiB of floats */
#define TEXLA_PNG_MAX_PIXELS_DEFAULT (INT64_C(1) << 26)

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
    uint64_t buffers_made; /* storage buffers the driver allocated so far (one given again from
                              texla's pool of freed buffers is not counted) */
} texla_stats;

/* Handles: small structs, 0 never valid. A handle names one object of one context: another
 * context refuses it (TEXLA_ERR_HANDLE), and a destroyed object's handle never names a later
 * one (a slot is retired for good before its 24-bit generation could wrap). */
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
 * in between pay no state save each. Nestable; every begin needs its end, also one that
 * returned TEXLA_ERR_CONTEXT (host mode, texla's context not current: every call in the batch
 * is refused). */
TEXLA_API texla_result texla_ctx_begin(texla_ctx *ctx);
TEXLA_API texla_result texla_ctx_end(texla_ctx *ctx);
/* Whether texla's calls on ctx would run now: TEXLA_OK, or, where they would be refused
 * (inside texla's error or warning callback; host mode with texla's context not current, or
 * within a batch whose begin found it so), TEXLA_ERR_CONTEXT reported as theirs would be, the
 * message naming caller (NULL: "texla_ctx_check"). Begins nothing: for code built on the
 * public API whose refusals should name its own call (texla's solvers' workspace destroys). */
TEXLA_API texla_result texla_ctx_check(texla_ctx *ctx, const char *caller);
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
 * later run reuses them. Written atomically, each write merged into the file as it is then
 * (other processes' entries kept; a lock file, the cache's name + ".lock", beside it); a file
 * or line that cannot be read as a cache is ignored with a warning (warning_cb), never
 * trusted. */
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
 * waiting; wait returns it once the GPU has got there, waiting as long as that takes (at most
 * 60 s: then TEXLA_ERR_GL), the value as it was at the start whatever was queued since. A new
 * start replaces a pending one. */
TEXLA_API texla_result texla_scalar_read_start(texla_ctx *ctx, texla_scalar s);
TEXLA_API texla_result texla_scalar_read_poll(texla_ctx *ctx, texla_scalar s, float *out);
TEXLA_API texla_result texla_scalar_read_wait(texla_ctx *ctx, texla_scalar s, float *out);
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
     * fragment one. NaN propagates, as in numpy: any NaN element makes every one of these      \
     * NaN (maxval, minval and maxabs included; maxabs is never negative). A denormal           \
     * largest or smallest value may come back as 0 (GLSL lets float compares flush them), the  \
     * compute backend's maxabs excepted (it compares the bits as integers). */                 \
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
 * are the vector's element numbers. A diagonal d and its partner d - n share one texture. A
 * matrix that is a constant 5-point stencil on like's full grid (offsets among 0, +-1, +-nx,
 * one value per diagonal inside the grid, 0 across its edges) is recognised: the compute
 * backend computes it from x alone and skips the terms across the edges (so an Inf or NaN
 * of x there does not reach y, as in a sparse product). */
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

/* ==== sparse matrices ====
 * One handle, texla_sparse, for every sparse matrix. The host arrays (COO or CSR, in any order;
 * duplicates are summed; empty rows, rectangular shapes, 1 x n and n x 1 are fine) are kept as
 * a canonical CSR on the host, and the GPU holds the form chosen for each product:
 *  - compute backend (OpenGL 4.3): kernel passes over storage buffers, in one of the formats
 *    COO, CSR, CSC, ELLPACK-R, SELL-C-sigma, BSR (2x2, 3x3, 4x4 blocks), CSR/ELL/SELL with the
 *    longest rows split into chunks that whole workgroups sum (the hybrid form for skewed rows),
 *    and with a schedule: one invocation per row, L lanes per row, one invocation per texel of
 *    y, a segmented reduction of the entries (COO), or a scatter with float atomics (COO, CSC:
 *    only when the caller allows it, as the order of the additions, so the rounding, then
 *    changes run to run); a grid of one workgroup per
 *    unit of work, or a fixed grid sized to the GPU (static striding or an atomic work
 *    counter). x is gathered from its RGBA32F texture with texelFetch at each column's
 *    precomputed texel and channel; y is written whole texels at a time with imageStore.
 *  - fragment backend (and OpenGL 3.3): the classic rows drawn as points with additive
 *    blending (GPU Gems 2 ch. 44), or a gather in a fragment program.
 * The sparse product runs on the backend of the program "spmv" (texla_ctx_set_backend(ctx,
 * "spmv", ...); AUTO follows the context's default backend).
 * Which variant (format, schedule, parameters) is used comes, in this order, from a pin
 * (texla_sparse_pin), from the tuner (texla_sparse_tune: times the candidates the row
 * statistics suggest on this device, keeps the fastest of those whose y matched a float64
 * reference, and records it in the tuning cache), from the tuning cache (a matrix of the same
 * entry type and shape statistics tuned before on this device), or from a rule on the row
 * statistics.
 *
 * ENTRIES (texla_sparse_desc.entry): REAL one float; COMPLEX (re, im); QUAT a quaternion
 * (w, x, y, z), the product being the Hamilton product with the matrix entry on the left;
 * BLOCK3 a dense real 3 x 3 block, row-major (then x and y are real vectors of 3 elements per
 * block column / row, and the matrix is stored as the real matrix it stands for, BSR 3 being
 * one of its formats). Vectors of complex or quaternion entries are texla_vec of K = 2 or 4
 * floats per entry, interleaved (AoS): entry e is elements K e .. K e + K - 1. When the rows of
 * the vector's 2D layout are a multiple of 4 elements wide (texla_vec_make_entries makes such
 * vectors; quaternion products require it, complex ones an even width), one RGBA texel holds
 * two complex entries (.xy: entry e, .zw: entry e + nx / 2, the one below it in the grid), and
 * a quaternion is the .xy (or .zw) halves of two neighbouring texels. Real-view operations
 * apply to them as they are (add, axpy with a real coefficient, copy; sqnorm is the squared
 * norm and dot the real part of conj(a) b); the complex ones are texla_cvec_*.
 *
 * PRODUCTS: y = A x, y = A x + beta y, and y = A' x, A' being the transpose of the real matrix
 * the entries stand for (the conjugate transpose for complex and quaternion entries), through a
 * transposed copy or a scatter along A's own rows (CSC), as chosen. NaN and Inf in the values
 * reach exactly the rows that hold them. */
typedef enum texla_entry {
    TEXLA_ENTRY_REAL = 1,
    TEXLA_ENTRY_COMPLEX = 2,
    TEXLA_ENTRY_QUAT = 4,
    TEXLA_ENTRY_BLOCK3 = 9
} texla_entry;

typedef struct texla_sparse_desc {
    texla_entry entry;      /* 0: REAL */
    texla_vec row_like;     /* y's layout: rows x K elements (BLOCK3: 3 per block row) */
    texla_vec col_like;     /* x's layout: cols x K elements */
    int nnz;                /* entries given (COO); CSR: row_ptr[rows] */
    const int *row_ptr;     /* CSR: rows + 1 offsets, row_ptr[0] = 0 (row_idx NULL) */
    const int *row_idx;     /* COO: nnz row indices (row_ptr NULL); with nnz 0 both may
                               be NULL: a matrix of zeros */
    const int *col_idx;     /* nnz column indices */
    const float *vals;      /* nnz entries of 1, 2, 4 or 9 floats (BLOCK3: row-major) */
    int scatter;            /* 1: the tuner may pick scatter forms (float atomics) */
    int tune;               /* 1: tune now (as texla_sparse_tune with defaults), unless cached */
} texla_sparse_desc;

typedef enum texla_sparse_format {
    TEXLA_SPARSE_AUTO = 0,
    TEXLA_SPARSE_POINTS,  /* fragment: groups of 4 entries of a row drawn as points, blended */
    TEXLA_SPARSE_GATHER,  /* fragment: one fragment per texel of y gathers its 4 rows */
    TEXLA_SPARSE_COO,     /* compute: one invocation per entry, float atomics */
    TEXLA_SPARSE_CSR,
    TEXLA_SPARSE_CSC,     /* compute: rows of the other orientation scattered with atomics */
    TEXLA_SPARSE_ELL,     /* ELLPACK-R: column-major, padded to the longest row, row lengths */
    TEXLA_SPARSE_SELL,    /* SELL-C-sigma: slices of C rows, rows sorted within sigma */
    TEXLA_SPARSE_BSR,     /* b x b blocks (b = 2, 3, 4) of real or complex entries; whole blocks
                             are multiplied, zeros included: a NaN or infinite x also reaches,
                             as NaN, the other rows of a block row with a block over its column */
    TEXLA_SPARSE_NFORMATS
} texla_sparse_format;

typedef enum texla_sparse_sched {
    TEXLA_SCHED_AUTO = 0,
    TEXLA_SCHED_ROW,    /* one invocation per row */
    TEXLA_SCHED_LANES,  /* `lanes` invocations per row, 2 .. 128 (CSR; BSR: each taking every
                           lanes-th block of the row) */
    TEXLA_SCHED_GROUP,  /* one invocation per texel of y: its 4 rows (2 complex/quaternion) */
    TEXLA_SCHED_ATOMIC, /* scatter with float atomics (COO, CSC) */
    TEXLA_SCHED_DRAW,   /* the fragment forms (POINTS, GATHER) */
    TEXLA_SCHED_SEGMENT, /* COO without atomics: a segmented reduction of the row-sorted entries,
                           8 per invocation whatever the rows' lengths (deterministic) */
    TEXLA_SCHED_MERGE   /* CSR split by the merge path: every invocation takes `lanes` items
                           (2, 4, 8 or 16) of the rows' ends and the entries merged, whatever the
                           rows' lengths (with `tiles`: `lanes` entries, whatever the rows);
                           open row sums carried in order (deterministic). Real,
                           complex and quaternion entries (3x3 blocks as their real expansion);
                           TEXLA_ERR_UNSUPPORTED where the tile, (wg lanes + wg) 4 (1 + k)
                           bytes, passes GL_MAX_COMPUTE_SHARED_MEMORY_SIZE (k floats an entry) */,
    TEXLA_SCHED_STREAM  /* CSR streamed in row blocks (CSR-stream): a workgroup loads a block of
                           up to 2048 / k entries with consecutive invocations, keeps the products
                           in shared memory, then sums each row there with as many invocations
                           as the block's row count allows (any entry type; long_rows applies) */
} texla_sparse_sched;

/* A variant of the product: zero fields mean defaults. */
typedef struct texla_sparse_variant {
    texla_sparse_format format;
    texla_sparse_sched sched;
    int lanes;          /* LANES: 2, 4, 8, 16, 32, 64 or 128 invocations per row; MERGE: items
                           per invocation, 2, 4, 8 or 16 (0: 8) */
    int wg;             /* invocations per workgroup: 32, 64, 128, 256 or 512, at most
                           GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS (0: 128) */
    int dist;           /* 0: one workgroup per unit of work; 1: a fixed grid of SMs x bpsm
                           workgroups striding over the units; 2: the fixed grid taking units
                           from an atomic counter */
    int bpsm;           /* workgroups per SM of the fixed grid (0: 4) */
    int slice;          /* SELL: C = 8, 16 or 32 (0: 32) */
    int sigma;          /* SELL: rows sorted by length within windows of sigma rows (0: none;
                           at most 2^30) */
    int block;          /* BSR: 2, 3 or 4 (0: 3) */
    int bell;           /* BSR: 0 block CSR; 1 blocks column-major over block rows (block ELL);
                           2 block ELL in slices of 32 block rows, each padded to its own
                           longest (sliced block ELL: consecutive steps of a slice together);
                           3 symmetric block ELL: for a matrix equal to its transpose, or
                           (complex) to its conjugate transpose (TEXLA_ERR_UNSUPPORTED
                           otherwise, naming the entries), only the blocks on and above the
                           diagonal, those below read as their mirrors (AoS) */
    int soa;            /* compound entries and blocks: 1 components in planes (SoA), 0 whole
                           entries (AoS) */
    int long_rows;      /* CSR, ELL, SELL: rows longer than this go to chunks of long_chunk
                           entries, each summed by one workgroup (0: none) */
    int long_chunk;     /* 0: 4096; at least wg, at most 2^20 (TEXLA_ERR_ARGUMENT otherwise) */
    int xbuf;           /* CSR, ELL, SELL (not MERGE) and BSR: 1 x first copied into a storage
                           buffer and gathered from there (cheaper than texture fetches where a
                           row's columns lie near each other: the texture units' rate, not the
                           memory, bounds those), 0 x fetched from its texture */
    int cols16;         /* ELL and SELL of real entries, ROW or GROUP, and CSR of real entries,
                           ROW or LANES: 1 each column stored as
                           its 16-bit offset from the entry's row, two to a word (6 bytes an
                           entry instead of 8); needs every entry within 32767 columns of its
                           row (TEXLA_ERR_UNSUPPORTED otherwise) and no long_rows; x is copied
                           into a buffer in element order (implies xbuf). CSR, where some entry
                           lies farther from its row: the offsets from a column of each row's
                           own (4 bytes a row more), which needs each row's columns within
                           65534 of each other instead. Other formats and schedules keep
                           32-bit columns (the field is normalised to 0) */
    int rowsort;        /* SELL with ROW: 1 rows sorted by length one by one within each
                           workgroup's wg rows (sigma unused: it sorts texels' groups of rows),
                           so slices pad little where a texel's rows differ in length; the
                           workgroup puts its rows back in order (the storage is wg's) */
    int cols8;          /* with cols16's formats, schedules and conditions: 1 each column stored
                           as its 8-bit offset from the entry's row, four to a word (5 bytes an
                           entry); needs every entry within 127 columns of its row
                           (TEXLA_ERR_UNSUPPORTED otherwise; CSR: as cols16, each row's columns
                           within 254 of each other); sets cols16 */
    int vec4;           /* CSR of real entries, ROW or LANES: 1 a row's entries read four at a
                           time, one 16-byte load of values (and of columns) a chunk of four
                           aligned entries, the chunk's entries outside the row dropped (the
                           same storage; fewer, wider loads where rows are long enough, at
                           fewer lanes a row: H200, 2^17 rows of 128 at 8 lanes 100 -> 89 us;
                           TEXLA_ERR_UNSUPPORTED for compound entries). Other formats and
                           schedules: normalised to 0 */
    int tiles;          /* CSR with MERGE: 1 the entries stored in tiles of 32 x lanes (after
                           Liu & Vinter's CSR5): each invocation sums its own `lanes` entries,
                           loaded beside its neighbours', and closes a row where a bit marks its
                           last entry; the merge path's staging of row ends and products and
                           its search are gone (an empty row costs a stand-in entry; wg 32 ..
                           512; H200, R-MAT 2^21 rows: 146 -> 136 us, complex R-MAT 193 -> 149).
                           Other formats and schedules: normalised to 0 */
} texla_sparse_variant;

typedef enum texla_sparse_op {
    TEXLA_SPARSE_N = 0, /* y = A x */
    TEXLA_SPARSE_T = 1  /* y = A' x */
} texla_sparse_op;

/* One candidate the tuner timed. */
typedef struct texla_sparse_trial {
    texla_sparse_op op;
    texla_sparse_variant v;
    double us;          /* median microseconds per product (< 0: not timed) */
    double gbs;         /* GB/s of the native CSR bytes (row_ptr + col + values + x + y), the
                           same numerator for every variant (bench/peers.py counts the same) */
    double bytes;       /* the variant's matrix arrays on the GPU */
    double padding;     /* stored entries past the nonzeros, per nonzero */
    int ok;             /* 1: y matched the float64 reference; 0: rejected or failed */
    int final;          /* 1: re-timed in the final round; the choice is the fastest of these,
                           and us is its final time (others: their first time, or the lower of
                           it and a second look's) */
    double build_s;     /* seconds the host spent building this variant's storage (0: the
                           storage was built for an earlier candidate) */
    double at_s;        /* when it was first timed: seconds into its product's tuning */
    double first_us;    /* its first median (< 0: not timed); us is the lower of this and a
                           second look's, taken with the GPU warm after the first round (the
                           first round's correct candidates on a kept storage within 8x of the
                           best; later ones are timed once), or for finalists the final time */
    int looks;          /* how many times it was measured: 1 the first round, one more for a
                           second look, one for each final round */
} texla_sparse_trial;

typedef struct texla_sparse_tune_desc {
    int ops;            /* bit 0: A x, bit 1: A' x (0: A x) */
    int force;          /* 1: tune even when the cache has the answer */
    int scatter;        /* 1: scatter forms too (also when the matrix's desc allowed them) */
    int block;          /* 2..4: BSR with this block size too, whatever the block fill */
    int all;            /* 1: every candidate, not only those the row statistics suggest */
    texla_sparse_trial *trials; /* may be NULL: each candidate's result, up to max_trials */
    int max_trials;
    double budget;      /* seconds the call may spend trying candidates (0: 6 s up to 2^24
                           stored entries, in proportion past that, at most 24 s; < 0: no limit);
                           candidates come in order of their prior (the rule's variant first,
                           then storages by bytes moved), so the budget cuts the unlikely ones;
                           the first two storages (that hold the matrix) always run, the
                           second look at the first round and the final round too, and so do the
                           16- or 8-bit-column storages (cols16, cols8; at most three) where
                           they apply, SELL with rows sorted and x from a buffer where SELL
                           pads and they do not (compute; with all, these are first-round
                           candidates, which the budget cuts), and the best's other workgroup
                           sizes (64, 256), and the second best's, where their storages are
                           still kept (compute; a best of rows sorted, whose storage is one
                           per size: the fastest other's);
                           once twice a product's part is spent (and 5 s past its deadline,
                           not counting the second storage's time past it),
                           those late ones, the second look and the final round are left
                           out, and the choice is the first round's best */
    /* filled in by the call */
    int ntrials;        /* candidates tried */
    int cached;         /* ops answered from the cache (bits as ops) */
    double seconds;     /* wall-clock time of the call */
    int skipped;        /* candidates not tried because the budget ran out */
    double budget_s;    /* the budget the call had, in seconds (budget 0: the default for this
                           matrix's size); < 0: no limit */
} texla_sparse_tune_desc;

typedef struct texla_sparse_info {
    int rows, cols;           /* in entries (BLOCK3: blocks) */
    texla_entry entry;
    long long nnz;            /* entries after duplicates were summed */
    int row_min, row_max, empty_rows;
    double row_mean, row_sd;  /* entries per row */
    double block_fill[5];     /* [b], b = 2, 3, 4: scalar nonzeros / (b x b blocks touched x b^2) */
    texla_sparse_variant now[2]; /* the variants of A x [0] and A' x [1] (format AUTO: none yet) */
    int how[2];               /* 0 none yet, 1 rule, 2 tuned, 3 tuning cache, 4 pinned */
    double us[2];             /* the tuned time of each (0: not timed) */
    double gpu_bytes;         /* the forms on the GPU now */
    double host_bytes;        /* the host copies (canonical CSR, transposed copy) */
    /* every format's bytes and padding per nonzero for A x with its default parameters
     * (SELL 32 sorted within 1024 rows; BSR of the best filled block size); bytes -1: the
     * format does not apply (BSR of quaternion entries, scatter without float atomics) */
    double format_bytes[TEXLA_SPARSE_NFORMATS];
    double format_padding[TEXLA_SPARSE_NFORMATS];
} texla_sparse_info;

/* Makes a sparse matrix from COO (row_idx) or CSR (row_ptr) arrays; see texla_sparse_desc. */
TEXLA_API texla_result texla_sparse_make(texla_ctx *ctx, const texla_sparse_desc *desc,
                                         texla_sparse *out);
/* Real entries: rows x cols with rows = row_like's length, cols = col_like's. */
TEXLA_API texla_result texla_sparse_make_coo(texla_ctx *ctx, texla_vec row_like,
                                             texla_vec col_like, int nnz, const int *rows,
                                             const int *cols, const float *vals,
                                             texla_sparse *out);
TEXLA_API texla_result texla_sparse_make_csr(texla_ctx *ctx, texla_vec row_like,
                                             texla_vec col_like, const int *row_ptr,
                                             const int *cols, const float *vals,
                                             texla_sparse *out);
TEXLA_API void texla_sparse_destroy(texla_ctx *ctx, texla_sparse a);
/* y = A x (x in col_like's layout, y in row_like's) */
TEXLA_API texla_result texla_sparse_matvec(texla_ctx *ctx, texla_sparse a, texla_vec x,
                                           texla_vec y);
/* y = A x + beta y, in place (beta finite; 0 ignores y's old values, NaN included) */
TEXLA_API texla_result texla_sparse_matvec_add(texla_ctx *ctx, texla_sparse a, texla_vec x,
                                               float beta, texla_vec y);
/* y = A' x (x in row_like's layout, y in col_like's) */
TEXLA_API texla_result texla_sparse_matvec_t(texla_ctx *ctx, texla_sparse a, texla_vec x,
                                             texla_vec y);
/* Times the candidates for this matrix on this device and keeps the fastest correct one for
 * each asked product; the result goes to the tuning cache. desc may be NULL (A x). A pinned
 * product keeps its pin: the tuner's choice goes to the cache (and the trials), and is used
 * once the product is unpinned.
 * Measuring: each candidate's y is first checked against a float64 reference; then it runs in
 * batches until two consecutive batches agree within 3% (capped at 60 ms; a few batches on
 * software renderers), so clocks and the memory work left by building and freeing storages do
 * not distort it, and its time is the median of 3 batches; one 8x slower than the best so far
 * is timed once. After the first round, with the GPU warm, those within 8x of the best whose
 * storages are kept are timed once more and keep the lower time (a GPU idle before the tuning
 * ran the first storage's first candidates up to 4.3x slow). The best two are also timed at their
 * other workgroup sizes. The best 6 (at most 3 per storage, their storages kept alive), and the
 * first's other workgroup sizes, then run back to back for 100 ms on a GPU (300 ms where no
 * clock probe ran) and are re-timed together, interleaved, 3 rounds, each keeping its best
 * median; the choice is the fastest of that final round, on those times (the trials say which
 * were final). A GPU's clocks follow its load (idle while the host builds, an H200 ran the
 * tuner's short bursts at a fraction of them): after each build, and before the final round, a
 * small kernel runs back to back until its rate is within 3% of the fastest seen (not while the
 * host has a GL_TIME_ELAPSED query active). */
TEXLA_API texla_result texla_sparse_tune(texla_ctx *ctx, texla_sparse a,
                                         texla_sparse_tune_desc *desc);
/* Pins the variant of one product (NULL: unpins; the cache or the rule decide again).
 * TEXLA_ERR_UNSUPPORTED when it cannot run here (a compute format without OpenGL 4.3, a
 * scatter without float atomics, BSR of quaternion entries, ...). */
TEXLA_API texla_result texla_sparse_pin(texla_ctx *ctx, texla_sparse a, texla_sparse_op op,
                                        const texla_sparse_variant *v);
TEXLA_API texla_result texla_sparse_info_get(texla_ctx *ctx, texla_sparse a,
                                             texla_sparse_info *out);
/* A variant in words: format ("sell"), schedule ("group"), parameters ("C=32 sigma=1024
 * wg=128"); any of the buffers may be NULL. */
TEXLA_API void texla_sparse_variant_names(const texla_sparse_variant *v, char format[16],
                                          char sched[16], char params[96]);

/* ---- vectors of compound entries (see ENTRIES above) ---- */
/* n entries of K floats each (COMPLEX 2, QUAT 4, BLOCK3 3, REAL 1) from data (NULL: zeros),
 * interleaved; the layout's rows are a multiple of 4 elements wide. Read and write them with
 * texla_vec_read / _write (K n floats). */
TEXLA_API texla_result texla_vec_make_entries(texla_ctx *ctx, int n, texla_entry entry,
                                              const float *data, texla_vec *out);
/* A complex coefficient: re + i im, times the complex GPU scalar (.x + i .y of its texel)
 * when scalar.id != 0. */
typedef struct texla_ccoef {
    float re, im;
    texla_scalar scalar;
} texla_ccoef;
/* complex vectors (texla_vec of (re, im) pairs, an even number of elements, rows of an even
 * width): dst = a .* b, or conj(a) .* b when conj_a */
TEXLA_API texla_result texla_cvec_mul(texla_ctx *ctx, texla_vec a, texla_vec b, int conj_a,
                                      texla_vec dst);
/* dst = a + s b */
TEXLA_API texla_result texla_cvec_axpy(texla_ctx *ctx, texla_vec a, texla_ccoef s, texla_vec b,
                                       texla_vec dst);
/* dst = conj(a) . b, a complex GPU scalar: (re, im) in its texel's .x, .y */
TEXLA_API texla_result texla_cvec_dot(texla_ctx *ctx, texla_vec a, texla_vec b,
                                      texla_scalar dst);
/* complex GPU scalars: dst = a / b, a * b; reading and writing both parts */
TEXLA_API texla_result texla_cscalar_div(texla_ctx *ctx, texla_scalar a, texla_scalar b,
                                         texla_scalar dst);
TEXLA_API texla_result texla_cscalar_mul(texla_ctx *ctx, texla_scalar a, texla_scalar b,
                                         texla_scalar dst);
TEXLA_API texla_result texla_scalar_read_complex(texla_ctx *ctx, texla_scalar s, float out[2]);
TEXLA_API texla_result texla_scalar_write_complex(texla_ctx *ctx, float re, float im,
                                                  texla_scalar s);

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
    float *imag;      /* texla_mm_read_complex of a complex file: the imaginary parts (nnz);
                         NULL otherwise */
} texla_mm;
/* ctx may be NULL (then texla_error_message(NULL) has the message). PATH is a regular file or
 * a pipe (TEXLA_ERR_IO for a directory, device or socket); a line longer than 1 MiB (comment
 * lines excepted) or a NUL byte is TEXLA_ERR_FORMAT, found without reading further. */
TEXLA_API texla_result texla_mm_read(texla_ctx *ctx, const char *path, texla_mm *out);
/* As texla_mm_read, and also coordinate files of field complex (general, symmetric,
 * skew-symmetric, hermitian: the mirrored entries are the same, negated, or conjugated):
 * val gets the real parts, imag the imaginary ones (interleave them for texla_sparse_make's
 * TEXLA_ENTRY_COMPLEX). Other files read as with texla_mm_read, imag NULL. */
TEXLA_API texla_result texla_mm_read_complex(texla_ctx *ctx, const char *path, texla_mm *out);
TEXLA_API void texla_mm_free(texla_mm *m);
/* Writes atomically (a temporary file in the same folder, then rename; symbolic links, FIFOs
 * and devices as in FILES above): an array file of a row-major rows x cols matrix, or a
 * coordinate real general file of nnz entries (0-based). */
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

/* What a solver's progress callback sees (texla_cg_desc.progress, texla_lcp_desc.progress). */
typedef struct texla_solve_progress {
    int iteration;      /* iterations done so far */
    int max_iter;       /* the solve's iteration limit */
    float residual;     /* the newest residual read back (CG: relative residual ||r|| / ||b||;
                           LCP: the natural residual, see texla_lcp_desc.check_every); -1 when
                           none is read (CG's fixed-iteration mode) */
    int true_residual;  /* CG: 1 when residual is ||b - A x|| / ||b|| recomputed, 0 when it is
                           the recurrence's (which drifts from the true one in float32) */
} texla_solve_progress;
/* Called on the calling thread between iterations; return nonzero to stop the solve (its
 * result then says CANCELLED and x holds the iterate reached). */
typedef int (*texla_progress_fn)(const texla_solve_progress *p, void *user);

typedef struct texla_cg_desc {
    int max_iter;    /* 0: n */
    float tol;       /* relative residual ||b - Ax|| / ||b||; 0: fixed-iteration mode, max_iter
                        iterations and no read-back at all */
    int check_every; /* tolerance mode: start an asynchronous residual read every k iterations,
                        take it k iterations later (waited for there, so the solve is the same
                        run to run; the GPU has those k iterations queued meanwhile) and stop at
                        the first one found below tol; fixed mode: how often the progress
                        callback is called; 0: 8 */
    /* optional: called with every residual read back (tolerance mode), or every check_every
     * iterations without a residual (fixed mode) */
    texla_progress_fn progress;
    void *progress_user;
    /* optional residual history (tolerance mode): each residual read back, in order, goes to
     * history[k] (relative residual) and history_iter[k] (the iteration it belongs to; may be
     * NULL), up to history_cap entries; the last entry is the true residual of the x returned.
     * Owned by the caller; nothing is allocated. */
    float *history;
    int *history_iter;
    int history_cap;
    int *history_true; /* optional: 1 where the entry is a true residual (b - A x recomputed),
                          0 where it is the recurrence's */
    /* optional: the work vectors and scalars, made once by texla_cg_workspace_make for b's
     * layout and kept by the caller across solves (a solver called every frame saves their
     * making: 0.38 ms a solve of 2048^2 unknowns on an H100); NULL: made and destroyed by
     * the call */
    struct texla_cg_workspace *workspace;
} texla_cg_desc;
/* The work objects of texla_cg for one layout (like's), owned by the caller: six vectors (four
 * in fixed-iteration mode) and five GPU scalars. Their contents between solves mean nothing;
 * each is an object of its own (texla_cg refuses a workspace naming one twice: TEXLA_ERR_ALIAS). */
typedef struct texla_cg_workspace {
    int n;
    texla_vec v[6];
    texla_scalar s[5];
} texla_cg_workspace;
TEXLA_API texla_result texla_cg_workspace_make(texla_ctx *ctx, texla_vec like,
                                               texla_cg_workspace *out);
/* Destroys what ws holds (of ctx) and zeroes it; NULL and zeroed workspaces are no-ops. Where
 * destroys are refused (from inside a callback, or host mode with another context current)
 * nothing is destroyed and ws keeps its handles, still valid: destroy it again later; the
 * error (TEXLA_ERR_CONTEXT) names this call. The other workspaces' destroys do the same. */
TEXLA_API void texla_cg_workspace_destroy(texla_ctx *ctx, texla_cg_workspace *ws);
/* Why texla_cg stopped. */
typedef enum texla_cg_stop {
    TEXLA_CG_FIXED = 0,  /* fixed-iteration mode: max_iter iterations, no residual read */
    TEXLA_CG_CONVERGED,  /* the x returned has a true relative residual <= tol */
    TEXLA_CG_MAX_ITER,   /* max_iter iterations without reaching tol */
    TEXLA_CG_STAGNATED,  /* float32 could not lower the true residual any further (eight residual
                            replacements in a row without a 10% gain); best_residual says how
                            far it got */
    TEXLA_CG_NAN,        /* a residual was NaN: A is not symmetric positive definite, or A, b or
                            the warm start is not finite */
    TEXLA_CG_CANCELLED   /* the progress callback asked to stop */
} texla_cg_stop;
typedef struct texla_cg_result {
    int iterations;
    float rel_residual; /* true ||b - A x|| / ||b|| of the x returned; -1 in fixed-iteration
                           mode (not read back) */
    int converged;      /* 1 when stop is TEXLA_CG_CONVERGED */
    texla_cg_stop stop; /* why it stopped */
    float best_residual; /* tolerance mode: the lowest true relative residual seen (at the checks
                            and at the end), at iteration best_iteration; -1 in fixed mode */
    int best_iteration;
    int history_len;    /* entries written to desc->history */
} texla_cg_result;
/* Conjugate gradients for symmetric positive definite A, warm-started from x. In tolerance mode
 * the x returned is the last iterate, or the best x whose true residual was verified when the
 * iterations ended worse than it (float32 noise after convergence, stagnation); rel_residual
 * is the true residual of the x returned. */
TEXLA_API texla_result texla_cg(texla_ctx *ctx, texla_op a, texla_vec b, const texla_cg_desc *desc,
                                texla_vec x, texla_cg_result *out);
/* "converged", "iteration limit", "float32 stagnation", ... */
TEXLA_API const char *texla_cg_stop_name(texla_cg_stop s);

/* Work matrices of the LCP solver for one size n, owned by the caller: solving many LCPs of
 * the same size with one workspace allocates nothing. */
typedef struct texla_lcp_workspace {
    int n;
    texla_mat m[4];
} texla_lcp_workspace;
TEXLA_API texla_result texla_lcp_workspace_make(texla_ctx *ctx, int n, texla_lcp_workspace *out);
/* As texla_cg_workspace_destroy: zeroes ws, or keeps it where refused. */
TEXLA_API void texla_lcp_workspace_destroy(texla_ctx *ctx, texla_lcp_workspace *ws);

typedef struct texla_lcp_desc {
    int iterations;  /* 0: 100 */
    float omega;     /* relaxation; 0: 1 */
    /* The bounded variant (contacts with friction), when friction_index is given (n x 1):
     * row i with friction_index[i] < 0 is a normal impulse, projected to max(0, x_i); row i
     * with friction_index[i] = j >= 0 is a friction impulse of normal row j, projected to
     * [-mu_i x_j, mu_i x_j] with mu_i = friction_mu[i] (n x 1). Indices are stored as floats.
     * The indices are checked when the measures are read (out != NULL; no read-back is made
     * for them alone): an index that is not an integer, is n or more, names its own row or a
     * row that is not a normal one makes the call return TEXLA_ERR_ARGUMENT naming the row and
     * the index (x then holds the iterations made with it). With out == NULL they are not
     * checked. */
    texla_mat friction_index;
    texla_mat friction_mu;
    /* work matrices for this n (NULL: made and destroyed by the call) */
    texla_lcp_workspace *workspace;
    /* the tolerance of the measures (see texla_lcp_result), relative to the problem's scale;
     * 0: max(1e-4, 16 sqrt(n) 2^-24) (float32's rounding of a length-n product) */
    float tol;
    /* k > 0: every k iterations the natural residual ||x - P(x - (A x + b))||_inf / ||b||_inf
     * (P the projection; 0 exactly at a solution) is computed on the GPU (a product and five
     * passes) and read asynchronously, for progress and history. 0: not measured, no read-back
     * in the loop; with a progress callback or a history buffer, 0 means 16. */
    int check_every;
    texla_progress_fn progress; /* optional, as for CG: called with each residual read back */
    void *progress_user;
    float *history;       /* optional residual history (caller's buffers, as for CG) */
    int *history_iter;
    int history_cap;
} texla_lcp_desc;
/* How the LCP solve ended (out->status). */
typedef enum texla_lcp_status {
    TEXLA_LCP_SOLVED = 0, /* every measure within tol */
    TEXLA_LCP_UNSOLVED,   /* min w, complementarity or friction past tol (the rel_ fields) */
    TEXLA_LCP_NAN,        /* x or w holds NaN (A, b or the warm start not finite, or diverged) */
    TEXLA_LCP_CANCELLED   /* the progress callback asked to stop */
} texla_lcp_status;
typedef struct texla_lcp_result { /* over the normal rows (all rows without friction) */
    float min_x;      /* min x_i (>= 0 by construction) */
    float min_w;      /* min w_i, w = A x + b */
    float xw;         /* x' w, the complementarity gap */
    float max_abs_xw; /* max |x_i w_i| */
    float max_friction_excess; /* bounded variant: max(|x_i| - mu_i x_j, 0) over friction rows */
    /* the verdict: with scale = ||b||_inf + ||A x||_inf (all rows), the relative measures
     * rel_min_w = max(-min_w, 0) / scale, rel_xw = max |x_i w_i| / (scale ||x||_inf) and
     * rel_friction = max_friction_excess / ||x||_inf are compared with tol */
    texla_lcp_status status;
    float tol, scale;
    float rel_min_w, rel_xw, rel_friction;
    int iterations;   /* done (fewer than asked when cancelled) */
    int history_len;  /* entries written to desc->history */
} texla_lcp_result;
/* "solved", "not solved", "NaN", "cancelled" */
TEXLA_API const char *texla_lcp_status_name(texla_lcp_status s);
/* The projection step of the bounded variant on its own (see texla_lcp_desc):
 * dst = project(v) with the same index/mu vectors; all n x 1. */
TEXLA_API texla_result texla_lcp_project(texla_ctx *ctx, texla_mat v, texla_mat index,
                                         texla_mat mu, texla_mat dst);
/* Projected Jacobi for the LCP: x >= 0, w = A x + b >= 0, x' w = 0, with dense n x n A and
 * n x 1 b and x (x is the warm start). x <- max(0, x - omega D^-1 (A x + b)), D = diag(A);
 * no read-back inside the loop unless asked (check_every, progress, history); at the end x, w
 * and b are read back for the measures and the verdict (out may be NULL: then nothing is read
 * back). An unsolved problem is not an error: the call returns TEXLA_OK and out->status says
 * so. x must be none of a, b and the friction vectors. */
TEXLA_API texla_result texla_lcp_jacobi(texla_ctx *ctx, texla_mat a, texla_mat b,
                                        const texla_lcp_desc *desc, texla_mat x,
                                        texla_lcp_result *out);

/* ---- matrix-free LCPs: operators as products, projected Jacobi on vectors ----
 * For A = L R never formed (contacts: A = J (M^-1 J'), two sparse products per iteration). */

/* *out: the operator A x = L (R x), l p x q and r q x n (any kinds, products included). mid, a
 * vector of q elements in the layout r's product writes (a sparse or banded r: its row layout),
 * holds R x during each product: it must be none of the vectors the product is applied to
 * (texla_op_matvec refuses an x or y that is the mid of any product in it, TEXLA_ERR_ALIAS),
 * nor the mid of a product inside l or r (refused here, TEXLA_ERR_ALIAS). Products nest at
 * most 64 deep, and one application makes at most 2^20 matrix products (TEXLA_ERR_LIMIT).
 * The product names l, r and mid without owning them: keep them alive while it is used (a
 * product whose part is gone fails with TEXLA_ERR_HANDLE). Destroy it with texla_op_destroy. */
TEXLA_API texla_result texla_op_product(texla_ctx *ctx, texla_op l, texla_op r, texla_vec mid,
                                        texla_op *out);
/* Destroys a product operator (a no-op for 0, stale handles and the other kinds: those are
 * destroyed as the matrices they are). */
TEXLA_API void texla_op_destroy(texla_ctx *ctx, texla_op a);
/* *out = 1 when applying a writes v besides its y: v is the mid of a product, of a product
 * inside it included; else 0. The solvers refuse such a v as their b, x or work vector (the
 * first product would overwrite it). */
TEXLA_API texla_result texla_op_writes(texla_ctx *ctx, texla_op a, texla_vec v, int *out);

/* One projected Jacobi step on vectors: dst = project(v), v = x + (w + b) .* e, with w = A x
 * computed by the caller (any operator) and e = -omega / diag(A). project is max(0, v_i), or,
 * with index and mu (both 0 handles: none), the bounded projection of texla_lcp_desc: a row with
 * index[i] = j (0 <= j < n) is clamped to [-mu_i n_j, mu_i n_j], n_j = max(0, v_j); other rows
 * are normal rows. All of one layout; dst is none of the others. One pass. */
TEXLA_API texla_result texla_vec_lcp_step(texla_ctx *ctx, texla_vec x, texla_vec w, texla_vec b,
                                          texla_vec e, texla_vec index, texla_vec mu,
                                          texla_vec dst);
/* The same step with the product inside: dst = project(x + (A x + b) .* e), A any n x n
 * operator. On the compute backend a sparse A with real entries (TEXLA_ENTRY_REAL or _BLOCK3)
 * is one kernel pass, and a product L R of two such two passes (R x stays in an internal buffer:
 * the product's mid is not written; each row's lanes sum in a fixed order, so the result is
 * the same run to run, equal to the unfused step's up to the order of the row sums); x's layout
 * must be what the matrices' products read and write. Otherwise A x goes to work, then
 * texla_vec_lcp_step. work (x's layout) is none of the others; dst is none of the others. A
 * product A's mid (at any depth) is none of x, b, e, index, mu and work, on every backend
 * (TEXLA_ERR_ALIAS). */
TEXLA_API texla_result texla_op_lcp_step(texla_ctx *ctx, texla_op a, texla_vec x, texla_vec b,
                                         texla_vec e, texla_vec index, texla_vec mu,
                                         texla_vec work, texla_vec dst);
/* texla_op_lcp_step `steps` times on x in place: x <- project(x + (A x + b) .* e), steps >= 0.
 * work and x2 (x's layout, vectors of their own) are scratch: the steps alternate between x and
 * x2, and an odd count ends with a copy into x. A product A's mid is none of x, b, e, index,
 * mu, work and x2 (TEXLA_ERR_ALIAS). */
TEXLA_API texla_result texla_op_lcp_iterate(texla_ctx *ctx, texla_op a, texla_vec b, texla_vec e,
                                            texla_vec index, texla_vec mu, int steps,
                                            texla_vec work, texla_vec x2, texla_vec x);

/* The work vectors of texla_lcp_jacobi_op for one layout (like's), owned by the caller. */
typedef struct texla_lcp_op_workspace {
    int n;
    texla_vec v[3];
} texla_lcp_op_workspace;
TEXLA_API texla_result texla_lcp_op_workspace_make(texla_ctx *ctx, texla_vec like,
                                                   texla_lcp_op_workspace *out);
/* As texla_cg_workspace_destroy: zeroes ws, or keeps it where refused. */
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
    float tol; /* the verdict's tolerance, as texla_lcp_desc's (0: its default) */
} texla_lcp_op_desc;
/* Projected Jacobi for the LCP x >= 0, w = A x + b >= 0, x' w = 0 (or its bounded variant) with
 * A any square operator and b, x vectors of one layout (x the warm start):
 * x <- project(x - omega D^-1 (A x + b)), D = diag(A); per iteration one product and one
 * texla_vec_lcp_step, no read-back inside; out (may be NULL) as texla_lcp_jacobi (measures,
 * verdict and friction indices checked; no progress or history: history_len 0), read back at
 * the end. x must be none of b, diag and the friction vectors; a product A's mid none of b, x,
 * diag, the friction vectors and the workspace's vectors. */
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
 * Files are written atomically (a temporary file, then rename; see FILES above). */
typedef enum texla_png_view { TEXLA_PNG_LOGICAL = 0, TEXLA_PNG_RAW } texla_png_view;
typedef enum texla_png_map {
    TEXLA_MAP_AUTO = 0,   /* diverging when the range spans 0, else viridis */
    TEXLA_MAP_GRAY,       /* 8-bit grey */
    TEXLA_MAP_VIRIDIS,    /* perceptual sequential */
    TEXLA_MAP_DIVERGING,  /* blue - white - red, centred on 0 */
    TEXLA_MAP_GRAY16      /* 16-bit grey, for quantitative use (range in the text chunk) */
} texla_png_map;
/* Every dump also gets a standard "Description" text chunk (what ordinary viewers show):
 * the shape and the value range. */
typedef enum texla_png_spy {
    TEXLA_SPY_OFF = 0,
    TEXLA_SPY_DOTS,    /* white background, a dark dot per nonzero (black) */
    TEXLA_SPY_COLOUR   /* the same dots coloured by value with the map */
} texla_png_spy;
typedef struct texla_png_desc {
    texla_png_view view;
    texla_png_map map;
    int fixed_range;  /* 1: use lo..hi; 0: min..max of the finite values, computed on the GPU */
    float lo, hi;
    int scale;        /* integer upscale, each element a scale x scale block; 0: 1 */
    /* Options for people looking at the image; zero everywhere gives the plain image above.
     * The options other than spy make an 8-bit RGB picture (not for texla_png_read: gray16
     * refuses them). */
    int colorbar;     /* 1: a colour bar at the right with the range's numbers */
    int plot;         /* 1: a vector (n x 1, 1 x n, a texla_vec, a scalar) as a line plot of its
                         values against the index, with axes, ticks and labels */
    int log_y;        /* plot: a log10 value axis (values <= 0 at its bottom edge) */
    texla_png_spy spy;/* a matrix's nonzero pattern on white, at least 2 x 2 pixels a dot */
    int annotate;     /* banded matrices: a separator between diagonals and each one's offset
                         ("d = -64") at its left; each diagonal at least 10 pixels tall where
                         the size limit allows */
    int width, height;/* plot: the picture's size in pixels; 0: 640 x 400 */
    const char *title, *xlabel, *ylabel; /* plot: texts (NULL: none, "index", "value") */
    /* texla_png_plot: a second series drawn as dots (points_x NULL: the index), and the
     * legend's names of the line and the dots (NULL: no legend) */
    const float *points_x, *points_y;
    int npoints;
    const char *line_label, *points_label;
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
/* A line plot of n host values: (x[i], y[i]), or (i, y[i]) when x is NULL (desc->width,
 * height, log_y, title, xlabel, ylabel, the dots and the legend; the other fields are ignored).
 * NaN and +-Inf points are left out; on a log axis, values <= 0 sit on its bottom edge. For
 * residual histories and the like. */
TEXLA_API texla_result texla_png_plot(texla_ctx *ctx, const float *x, const float *y, int n,
                                      const char *path, const texla_png_desc *desc);
/* Reads an 8- or 16-bit grey or RGB(A) PNG into a new rows x cols matrix (rows = image height):
 * grey values, or the mean of R, G, B, scaled to [0, 1], or to the file's texla:range when it
 * has one (so a TEXLA_MAP_GRAY16 dump's finite values read back within its quantisation; its
 * cells marked transparent, NaN, +-Inf, padding or background, read back as the grey they
 * carry: 0, or the top for +Inf; texla:nonfinite counts them). Alpha is ignored. Bounded: an image
 * of more pixels than the context's budget (texla_ctx_desc.png_max_pixels, default
 * TEXLA_PNG_MAX_PIXELS_DEFAULT) or than a matrix holds is TEXLA_ERR_LIMIT when its header is
 * read, before anything is allocated for it; a chunk declaring more than 8 MiB, more than 256
 * ancillary chunks, or anything libpng finds wrong is TEXLA_ERR_FORMAT; ancillary chunks other
 * than tEXt are skipped unread. It costs about 4 bytes of host memory per pixel (interlaced
 * images: up to 10). */
TEXLA_API texla_result texla_png_read(texla_ctx *ctx, const char *path, texla_mat *out);

/* ==== compute kernels: tiled products, matrix-vector products, fused solver steps ====
 * On the compute backend the dense products run as tiled kernels (blocks of A and B staged in
 * shared memory, a register tile of outputs per invocation, two-level summation so the error
 * grows like (c + K/c) u rather than K u), the dense matrix-vector product as a gather kernel
 * (several invocations per row, x staged in shared memory, a tree in shared memory), banded
 * products as one kernel over all diagonals (the constant 5-point stencil recognised and
 * computed without reading its diagonals), and the solvers' iterations as a few fused kernels.
 * The fragment backend runs the classic passes for the same calls. Tile sizes and schedules are
 * variants, chosen per device and problem class by measurement (texla_ctx_desc.tune) and kept
 * in the tuning cache. */

/* dst += op(A) op(B): flags 0 is A B, TEXLA_MATMUL_TA A' B, TEXLA_MATMUL_TB A B' (shapes as
 * texla_mat_matmul, _tn, _nt); dst is neither a nor b. Blending adds the passes on the
 * fragment backend; the tiled kernel adds into dst on the compute backend. */
enum { TEXLA_MATMUL_TA = 1, TEXLA_MATMUL_TB = 2 };
TEXLA_API texla_result texla_mat_matmul_acc(texla_ctx *ctx, texla_mat a, texla_mat b,
                                            unsigned flags, texla_mat dst);
/* y = A x + s * b for a dense n x m matrix and 2D vectors x (m), b and y (n) (the argument
 * order of texla_banded_matvec_add) */
TEXLA_API texla_result texla_mat_matvec_add(texla_ctx *ctx, texla_mat a, texla_vec x, float s,
                                            texla_vec b, texla_vec y);

/* Fused steps of the solvers (each one kernel or a few on the compute backend; on the fragment
 * backend the same unfused passes as before, so the results agree within rounding):
 * q = A p and pq = p'q for a square operator (one kernel for dense and banded operators). */
TEXLA_API texla_result texla_op_matvec_dot(texla_ctx *ctx, texla_op a, texla_vec p, texla_vec q,
                                           texla_scalar pq);
/* A conjugate-gradient update after q = A p, pq = p'q: alpha = rr / pq (0 when pq is 0);
 * x += alpha p; r -= alpha q; rr_new = r'r; beta = rr_new / rr (0 when rr is 0). One kernel
 * on the compute backend. The vectors share one layout and are distinct; the scalars are
 * distinct (rr_new and beta are written, rr and pq read). */
TEXLA_API texla_result texla_vec_cg_update(texla_ctx *ctx, texla_scalar rr, texla_scalar pq,
                                           texla_vec p, texla_vec q, texla_vec x, texla_vec r,
                                           texla_scalar rr_new, texla_scalar beta);
/* One projected Jacobi step for the LCP (see texla_lcp_jacobi): dst = project(x + (A x + b) .* e)
 * with dense n x n A and n x 1 b, e (e = -omega / diag(A)), x and dst; project is max(0, .),
 * or with index and mu given (n x 1, see texla_lcp_desc; both 0 handles: none) the bounded
 * projection of texla_lcp_project. dst is none of the others. One kernel on the compute
 * backend. */
TEXLA_API texla_result texla_lcp_step(texla_ctx *ctx, texla_mat a, texla_mat b, texla_mat e,
                                      texla_mat x, texla_mat index, texla_mat mu, texla_mat dst);

/* The variants of a tuned kernel family ("gemm": the tiled products, "gemv": the dense
 * matrix-vector product, "gemm_path": how A B and A' B are computed, "direct" by the tiled
 * kernel in that form or "via_nt" through transposed copies and the A B' kernel, "reduce":
 * how the one-pass reductions walk a texture, "rows" or "tiles" of 32 x 8 texels), by index:
 * *name for i = 0, 1, ... (TEXLA_ERR_ARGUMENT past the last). gemm names read like
 * "128x128x8/8x8/c128": block rows x columns x inner slice / outputs per invocation / values
 * per first-level sum (c0: one serial sum). */
TEXLA_API texla_result texla_kernel_variant(texla_ctx *ctx, const char *family, int i,
                                            const char **name);
/* Pins a family's variant for this context (for benchmarks and comparisons); NULL returns to
 * the tuned choice. TEXLA_ERR_UNSUPPORTED when this GL cannot run it (shared memory). */
TEXLA_API texla_result texla_ctx_set_variant(texla_ctx *ctx, const char *family,
                                             const char *variant);

#ifdef __cplusplus
}
#endif
#endif /* TEXLA_H */
