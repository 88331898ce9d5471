/* resources.c - RGBA32F textures, their upload and download, the temporary pool, shader storage
 * buffers and the vertex buffers of the classic sparse product. */
#include "gl/gl.h"

#include <string.h>

#include <stdlib.h>

#define POOL_KEEP 16 /* free temporaries kept for reuse */

texla_result texla__check_size(texla__gl *g, const char *what, int w, int h) {
    int max = g->info.max_texture_size;
    if (w < 1 || h < 1) /* an overflowed size: never handed to GL */
        return texla__glfail(g, TEXLA_ERR_LIMIT, "%s needs a %d x %d texture: past any GL's "
                             "limit (at most %d x %d here, GL_MAX_TEXTURE_SIZE)", what, w, h, max,
                             max);
    if (w > max || h > max)
        return texla__glfail(g, TEXLA_ERR_LIMIT,
                           "%s needs a %d x %d texture; this GL allows at most %d x %d "
                           "(GL_MAX_TEXTURE_SIZE)", what, w, h, max, max);
    if (w > g->info.max_viewport[0] || h > g->info.max_viewport[1])
        return texla__glfail(g, TEXLA_ERR_LIMIT,
                           "%s needs a %d x %d render target; this GL allows at most %d x %d "
                           "(GL_MAX_VIEWPORT_DIMS)", what, w, h, g->info.max_viewport[0],
                           g->info.max_viewport[1]);
    return TEXLA_OK;
}

/* the errors a failed allocation raised, cleared in texla's own context (a host's pending
 * errors are the host's: left), so that a later pass checked with glGetError (debug) does not
 * report them */
static void clear_own_errors(texla__gl *g) {
    for (int i = 0; !g->host && i < 16 && glGetError() != GL_NO_ERROR; i++) {
    }
}

texla_result texla__tex_make(texla__gl *g, int w, int h, texla__tex *out) {
    TEXLA__GL_CURRENT(g, "making a texture"); /* before out changes: it may hold a handle */
    out->tex = out->fbo = 0;
    out->w = w;
    out->h = h;
    glActiveTexture(GL_TEXTURE0);
    glGenTextures(1, &out->tex);
    glBindTexture(GL_TEXTURE_2D, out->tex);
    /* NEAREST and one level: texelFetch on an incomplete texture returns 0 */
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, w, h, 0, GL_RGBA, GL_FLOAT, NULL);
    /* Asked of the texture, not of glGetError: that would consume a host's pending errors.
     * A failed allocation (GL_OUT_OF_MEMORY) leaves the level empty. */
    GLint gw = 0, gh = 0;
    glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_WIDTH, &gw);
    glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_HEIGHT, &gh);
    if (gw != w || gh != h) {
        glDeleteTextures(1, &out->tex);
        out->tex = 0;
        clear_own_errors(g);
        return texla__glfail(g, TEXLA_ERR_MEMORY,
                           "allocating a %d x %d RGBA32F texture (%.1f MB) failed: out of GPU "
                           "memory?", w, h, (double)w * h * 16 / 1e6);
    }
    g->stats.textures++;
    return TEXLA_OK;
}

void texla__tex_free(texla__gl *g, texla__tex *t) {
    /* another context current (nothing deleted there: its objects may have these names), or
     * inside a callback: t kept as it is, so a free-then-make that the make refuses changes
     * nothing */
    if (texla__gl_refuses(g)) return;
    if (t->fbo) {
        glDeleteFramebuffers(1, &t->fbo);
    }
    if (t->tex) {
        glDeleteTextures(1, &t->tex);
        g->stats.textures--;
    }
    t->tex = t->fbo = 0;
}

texla_result texla__tex_upload(texla__gl *g, const texla__tex *t, const float *texels) {
    TEXLA__GL_CURRENT(g, "writing a texture");
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, t->tex);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, t->w, t->h, GL_RGBA, GL_FLOAT, texels);
    g->stats.uploads++;
    return TEXLA_OK;
}

texla_result texla__tex_download(texla__gl *g, const texla__tex *t, float *texels) {
    TEXLA__GL_CURRENT(g, "reading a texture");
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, t->tex);
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_FLOAT, texels);
    g->stats.readbacks++;
    return TEXLA_OK;
}

texla_result texla__tex_download_name(texla__gl *g, const char *fn, GLuint tex, int w, int h,
                                      float *texels) {
    TEXLA__GL_CURRENT(g, fn);
    if (!glIsTexture(tex))
        return texla__glfail(g, TEXLA_ERR_ARGUMENT,
                           "%s: %u is not a texture name of the current context", fn, tex);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, tex);
    /* A texture of another target cannot be bound to GL_TEXTURE_2D: the binding stays as it
     * was. Asked of the binding, not of glGetError (see texla__tex_make); in texla's own
     * context the error the failed bind raised is cleared. */
    GLint bound = 0;
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &bound);
    if ((GLuint)bound != tex) {
        if (!g->host) (void)glGetError();
        return texla__glfail(g, TEXLA_ERR_ARGUMENT, "%s: texture %u is not a 2D texture", fn, tex);
    }
    GLint gw = 0, gh = 0, red = 0;
    glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_WIDTH, &gw);
    glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_HEIGHT, &gh);
    glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_RED_TYPE, &red);
    if (gw != w || gh != h)
        return texla__glfail(g, TEXLA_ERR_ARGUMENT,
                           "%s: texture %u is %d x %d texels (level 0), not %d x %d as given", fn,
                           tex, gw, gh, w, h);
    if (red == GL_NONE || red == GL_INT || red == GL_UNSIGNED_INT)
        return texla__glfail(g, TEXLA_ERR_ARGUMENT,
                           "%s: texture %u holds %s data; only colour textures read as floats", fn,
                           tex, red == GL_NONE ? "depth or stencil (no red channel)" : "integer");
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_FLOAT, texels);
    g->stats.readbacks++;
    return TEXLA_OK;
}

texla_result texla__pool_take(texla__gl *g, int w, int h, texla__tex *out) {
    for (int i = g->npool - 1; i >= 0; i--)
        if (g->pool[i].w == w && g->pool[i].h == h) {
            *out = g->pool[i];
            g->pool[i] = g->pool[--g->npool];
            return TEXLA_OK;
        }
    return texla__tex_make(g, w, h, out);
}

void texla__pool_give(texla__gl *g, texla__tex *t) {
    if (!t->tex) return;
    /* another context current: no eviction (it would delete there); the pool grows instead */
    if (g->npool == g->cappool && (g->cappool < POOL_KEEP || g->lost)) {
        int cap = g->cappool ? g->cappool * 2 : 4;
        texla__tex *p = realloc(g->pool, sizeof *p * (size_t)cap);
        if (p) {
            g->pool = p;
            g->cappool = cap;
        }
    }
    if (g->npool < g->cappool) {
        g->pool[g->npool++] = *t;
        t->tex = t->fbo = 0;
    } else if (!g->lost) {
        /* pool full: the oldest goes */
        texla__tex_free(g, &g->pool[0]);
        g->pool[0] = *t;
        t->tex = t->fbo = 0;
    }
}

void texla__pool_destroy(texla__gl *g) {
    for (int i = 0; i < g->npool; i++) texla__tex_free(g, &g->pool[i]);
    g->npool = 0;
}

/* ---- asynchronous read-back of one texel ---- */

texla_result texla__tex_read_start(texla__gl *g, const texla__tex *t, GLuint *pbo, GLsync *fence) {
    TEXLA__GL_CURRENT(g, "starting a read-back");
    texla__read_free(g, pbo, fence);
    glGenBuffers(1, pbo);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, *pbo);
    glBufferData(GL_PIXEL_PACK_BUFFER, 4 * sizeof(float), NULL, GL_STREAM_READ);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, t->tex);
    /* level 0 of a 1x1 texture: exactly one texel into the buffer at offset 0 */
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_FLOAT, (void *)0);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    *fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    glFlush(); /* so the fence is on its way and a later poll can see it pass */
    (void)g;
    return TEXLA_OK;
}

#define READ_WAIT_S 60

texla_result texla__tex_read_take(texla__gl *g, GLuint pbo, GLsync *fence, float texel[4],
                                  int wait) {
    TEXLA__GL_CURRENT(g, "taking a read-back");
    if (*fence) {
        /* wait: flushed, in slices of 0.1 s, at most READ_WAIT_S (a GPU that never gets
         * there is an error, not a hang) */
        GLenum st = glClientWaitSync(*fence, wait ? GL_SYNC_FLUSH_COMMANDS_BIT : 0,
                                     wait ? 100000000u : 0);
        for (int k = 1; wait && st == GL_TIMEOUT_EXPIRED && k < 10 * READ_WAIT_S; k++)
            st = glClientWaitSync(*fence, 0, 100000000u);
        if (st == GL_TIMEOUT_EXPIRED && wait)
            return texla__glfail(g, TEXLA_ERR_GL, "a read-back did not complete in %d s",
                                 READ_WAIT_S);
        if (st == GL_TIMEOUT_EXPIRED) return TEXLA_ERR_NOT_READY;
        if (st == GL_WAIT_FAILED)
            return texla__glfail(g, TEXLA_ERR_GL, "glClientWaitSync failed on a read-back fence");
        glDeleteSync(*fence);
        *fence = 0;
    }
    glBindBuffer(GL_PIXEL_PACK_BUFFER, pbo);
    const float *m = glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, 4 * sizeof(float), GL_MAP_READ_BIT);
    texla_result r = TEXLA_OK;
    if (m) {
        for (int i = 0; i < 4; i++) texel[i] = m[i];
        glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
        g->stats.readbacks++;
    } else {
        r = texla__glfail(g, TEXLA_ERR_GL, "mapping a read-back buffer failed");
    }
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    return r;
}

void texla__read_free(texla__gl *g, GLuint *pbo, GLsync *fence) {
    if (texla__gl_refuses(g)) return; /* as texla__tex_free: kept */
    if (*fence) glDeleteSync(*fence);
    if (*pbo) glDeleteBuffers(1, pbo);
    *fence = 0;
    *pbo = 0;
}

/* ---- shader storage buffers ---- */

/* Freed storage buffers are kept (at most 32, 256 MiB in all) and given again to a request
 * they fit without wasting more than half: a solver that makes its sparse matrices anew every
 * step (the cubes' contacts) would otherwise have the driver allocate GPU memory for each of
 * their buffers every step (on the H100, milliseconds). Only buffers up to 16 MiB: a big one
 * (the tuner's storages, 50-200 MB each) is allocated anew. A kept buffer is given again only
 * once the GPU has passed a fence set at its free (every command before it finished), and is
 * never refilled in place while work on it may be pending: on an H200 (NVIDIA's GL) the
 * row offsets of a CSR matrix uploaded into a buffer freed a moment before lost their first
 * 16 bytes to zeros (rows 0, 1, 8 and 9 of a NaN test's products read 0; a glFinish before
 * each free, or no pool, and they did not): by their size most likely the 16-byte clear of an
 * earlier owner (a storage of no entries, made zero here) landing after the upload. */
#define BPOOL_BYTES ((size_t)256 << 20)
#define BPOOL_ONE ((size_t)16 << 20)
#define BPOOL_N ((int)(sizeof ((texla__gl *)0)->bpool / sizeof((texla__gl *)0)->bpool[0]))

/* has the GPU passed kept buffer i's fence? (asked without waiting; the fence let go once) */
static int bpool_idle(texla__gl *g, int i) {
    if (!g->bpool[i].done) return 1;
    GLenum st = glClientWaitSync(g->bpool[i].done, 0, 0);
    if (st != GL_ALREADY_SIGNALED && st != GL_CONDITION_SATISFIED) return 0;
    glDeleteSync(g->bpool[i].done);
    g->bpool[i].done = 0;
    return 1;
}

/* the kept buffer i out of the pool: deleted (del) or handed on */
static void bpool_drop(texla__gl *g, int i, int del) {
    if (del) glDeleteBuffers(1, &g->bpool[i].b.buf);
    if (g->bpool[i].done) glDeleteSync(g->bpool[i].done);
    g->bpool_bytes -= g->bpool[i].b.cap;
    memmove(g->bpool + i, g->bpool + i + 1, sizeof *g->bpool * (size_t)(g->nbpool - i - 1));
    g->nbpool--;
}

static int bpool_take(texla__gl *g, size_t alloc, texla__buf *out) {
    int best = -1;
    for (int i = 0; i < g->nbpool; i++) {
        size_t c = g->bpool[i].b.cap;
        if (c >= alloc && c <= 2 * alloc + 4096 && (best < 0 || c < g->bpool[best].b.cap) &&
            bpool_idle(g, i))
            best = i;
    }
    if (best < 0) return 0;
    out->buf = g->bpool[best].b.buf;
    out->cap = g->bpool[best].b.cap;
    bpool_drop(g, best, 0);
    return 1;
}

texla_result texla__buf_make(texla__gl *g, size_t size, const void *data, texla__buf *out) {
    TEXLA__GL_CURRENT(g, "making a storage buffer"); /* before out changes (texla__tex_make) */
    out->buf = 0;
    out->size = size;
    out->cap = 0;
    if (!g->info.compute)
        return texla__glfail(g, TEXLA_ERR_UNSUPPORTED,
                             "storage buffers need OpenGL 4.3; this context is %d.%d",
                             g->info.gl_major, g->info.gl_minor);
    if ((long long)size > g->caps.ssbo_max && g->caps.ssbo_max > 0)
        return texla__glfail(g, TEXLA_ERR_LIMIT,
                             "a storage buffer of %zu bytes is larger than this GL allows (%lld, "
                             "GL_MAX_SHADER_STORAGE_BLOCK_SIZE)", size, g->caps.ssbo_max);
    size_t alloc = size ? size : 16;
    if (bpool_take(g, alloc, out)) { /* the first alloc bytes: the data, or zeros */
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, out->buf);
        if (data) {
            glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)alloc, data);
        } else {
            const uint32_t zero = 0; /* whole words (sizes are) */
            size_t words = (alloc + 3) / 4 * 4 <= out->cap ? (alloc + 3) / 4 * 4 : alloc / 4 * 4;
            glClearBufferSubData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, 0, (GLsizeiptr)words,
                                 GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
        }
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
        g->stats.uploads += data != NULL;
        return TEXLA_OK;
    }
    glGenBuffers(1, &out->buf);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, out->buf);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)alloc, data, GL_STATIC_DRAW);
    g->stats.buffers_made++;
    GLint64 got = 0; /* asked of the buffer, not of glGetError (see texla__tex_make) */
    glGetBufferParameteri64v(GL_SHADER_STORAGE_BUFFER, GL_BUFFER_SIZE, &got);
    if (got == (GLint64)alloc && !data) {
        const uint32_t zero = 0;
        glClearBufferData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
    }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    if (got != (GLint64)alloc) {
        glDeleteBuffers(1, &out->buf);
        out->buf = 0;
        clear_own_errors(g);
        return texla__glfail(g, TEXLA_ERR_MEMORY,
                             "allocating a storage buffer of %.1f MB failed: out of GPU memory?",
                             (double)alloc / 1e6);
    }
    out->cap = alloc;
    g->stats.uploads += data != NULL;
    return TEXLA_OK;
}

void texla__buf_free(texla__gl *g, texla__buf *b) {
    if (texla__gl_refuses(g)) return; /* as texla__tex_free: b kept */
    if (b->buf && b->cap && b->cap <= BPOOL_ONE) {
        /* room for it: the oldest go first */
        while (g->nbpool && (g->nbpool == BPOOL_N || g->bpool_bytes + b->cap > BPOOL_BYTES))
            bpool_drop(g, 0, 1);
        g->bpool[g->nbpool].b = *b;
        g->bpool[g->nbpool++].done = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
        g->bpool_bytes += b->cap;
    } else if (b->buf) {
        glDeleteBuffers(1, &b->buf);
    }
    b->buf = 0;
    b->size = b->cap = 0;
}

void texla__bufpool_destroy(texla__gl *g) {
    for (int i = 0; i < g->nbpool && !g->lost; i++) {
        glDeleteBuffers(1, &g->bpool[i].b.buf);
        if (g->bpool[i].done) glDeleteSync(g->bpool[i].done);
    }
    g->nbpool = 0;
    g->bpool_bytes = 0;
}

texla_result texla__buf_upload(texla__gl *g, const texla__buf *b, size_t off, size_t size,
                               const void *data) {
    TEXLA__GL_CURRENT(g, "writing a storage buffer");
    if (!size) return TEXLA_OK;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, b->buf);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, (GLintptr)off, (GLsizeiptr)size, data);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    g->stats.uploads++;
    return TEXLA_OK;
}

texla_result texla__buf_download(texla__gl *g, const texla__buf *b, size_t off, size_t size,
                                 void *data) {
    TEXLA__GL_CURRENT(g, "reading a storage buffer");
    if (!size) return TEXLA_OK;
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, b->buf);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, (GLintptr)off, (GLsizeiptr)size, data);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    g->stats.readbacks++;
    return TEXLA_OK;
}

/* ---- vertex buffers of points ---- */

texla_result texla__points_make(texla__gl *g, const void *v, int count, size_t stride,
                                const texla__attr *attrs, int nattrs, GLuint *vao, GLuint *vbo) {
    TEXLA__GL_CURRENT(g, "making a vertex buffer");
    *vao = *vbo = 0;
    glGenVertexArrays(1, vao);
    glBindVertexArray(*vao);
    glGenBuffers(1, vbo);
    glBindBuffer(GL_ARRAY_BUFFER, *vbo);
    GLint64 want = (GLint64)count * (GLint64)stride;
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)want, v, GL_STATIC_DRAW);
    for (int i = 0; i < nattrs; i++) {
        const texla__attr *a = &attrs[i];
        glEnableVertexAttribArray((GLuint)a->loc);
        if (a->type == GL_FLOAT)
            glVertexAttribPointer((GLuint)a->loc, a->comps, a->type, GL_FALSE, (GLsizei)stride,
                                  (void *)a->offset);
        else
            glVertexAttribIPointer((GLuint)a->loc, a->comps, a->type, (GLsizei)stride,
                                   (void *)a->offset);
    }
    GLint64 size = 0; /* asked of the buffer, not of glGetError (see texla__tex_make) */
    glGetBufferParameteri64v(GL_ARRAY_BUFFER, GL_BUFFER_SIZE, &size);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    if (size != want) {
        texla__points_free(g, vao, vbo);
        clear_own_errors(g);
        return texla__glfail(g, TEXLA_ERR_MEMORY,
                             "allocating a vertex buffer of %d points (%.1f MB) failed: out of GPU "
                             "memory?", count, (double)want / 1e6);
    }
    g->stats.uploads++;
    return TEXLA_OK;
}

void texla__points_free(texla__gl *g, GLuint *vao, GLuint *vbo) {
    if (texla__gl_refuses(g)) return; /* as texla__tex_free: kept */
    if (*vao) glDeleteVertexArrays(1, vao);
    if (*vbo) glDeleteBuffers(1, vbo);
    *vao = *vbo = 0;
}
