/* gl_texture.c - RGBA32F textures, their upload and download, and the temporary pool. */
#include "internal.h"

#include <stdlib.h>

#define POOL_KEEP 16 /* free temporaries kept for reuse */

texla_result texla__check_size(texla_ctx *ctx, const char *what, int w, int h) {
    int max = ctx->info.max_texture_size;
    if (w > max || h > max)
        return texla__fail(ctx, TEXLA_ERR_LIMIT,
                           "%s needs a %d x %d texture; this GL allows at most %d x %d "
                           "(GL_MAX_TEXTURE_SIZE)", what, w, h, max, max);
    if (w > ctx->info.max_viewport[0] || h > ctx->info.max_viewport[1])
        return texla__fail(ctx, TEXLA_ERR_LIMIT,
                           "%s needs a %d x %d render target; this GL allows at most %d x %d "
                           "(GL_MAX_VIEWPORT_DIMS)", what, w, h, ctx->info.max_viewport[0],
                           ctx->info.max_viewport[1]);
    return TEXLA_OK;
}

texla_result texla__tex_make(texla_ctx *ctx, int w, int h, texla__tex *out) {
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
        return texla__fail(ctx, TEXLA_ERR_MEMORY,
                           "allocating a %d x %d RGBA32F texture (%.1f MB) failed: out of GPU "
                           "memory?", w, h, (double)w * h * 16 / 1e6);
    }
    ctx->stats.textures++;
    return TEXLA_OK;
}

void texla__tex_free(texla_ctx *ctx, texla__tex *t) {
    if (t->fbo) {
        texla__runner_forget_fbo(ctx, t->fbo);
        glDeleteFramebuffers(1, &t->fbo);
    }
    if (t->tex) {
        glDeleteTextures(1, &t->tex);
        ctx->stats.textures--;
    }
    t->tex = t->fbo = 0;
}

texla_result texla__tex_upload(texla_ctx *ctx, const texla__tex *t, const float *texels) {
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, t->tex);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, t->w, t->h, GL_RGBA, GL_FLOAT, texels);
    ctx->stats.uploads++;
    return TEXLA_OK;
}

texla_result texla__tex_download(texla_ctx *ctx, const texla__tex *t, float *texels) {
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, t->tex);
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_FLOAT, texels);
    ctx->stats.readbacks++;
    return TEXLA_OK;
}

texla_result texla__tex_download_name(texla_ctx *ctx, const char *fn, GLuint tex, int w, int h,
                                      float *texels) {
    if (!glIsTexture(tex))
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: %u is not a texture name of the current context", fn, tex);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, tex);
    /* A texture of another target cannot be bound to GL_TEXTURE_2D: the binding stays as it
     * was. Asked of the binding, not of glGetError (see texla__tex_make); in texla's own
     * context the error the failed bind raised is cleared. */
    GLint bound = 0;
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &bound);
    if ((GLuint)bound != tex) {
        if (!ctx->host) (void)glGetError();
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: texture %u is not a 2D texture", fn, tex);
    }
    GLint gw = 0, gh = 0, red = 0;
    glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_WIDTH, &gw);
    glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_HEIGHT, &gh);
    glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_RED_TYPE, &red);
    if (gw != w || gh != h)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: texture %u is %d x %d texels (level 0), not %d x %d as given", fn,
                           tex, gw, gh, w, h);
    if (red == GL_NONE || red == GL_INT || red == GL_UNSIGNED_INT)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                           "%s: texture %u holds %s data; only colour textures read as floats", fn,
                           tex, red == GL_NONE ? "depth or stencil (no red channel)" : "integer");
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_FLOAT, texels);
    ctx->stats.readbacks++;
    return TEXLA_OK;
}

texla_result texla__pool_take(texla_ctx *ctx, int w, int h, texla__tex *out) {
    for (int i = ctx->npool - 1; i >= 0; i--)
        if (ctx->pool[i].w == w && ctx->pool[i].h == h) {
            *out = ctx->pool[i];
            ctx->pool[i] = ctx->pool[--ctx->npool];
            return TEXLA_OK;
        }
    return texla__tex_make(ctx, w, h, out);
}

void texla__pool_give(texla_ctx *ctx, texla__tex *t) {
    if (!t->tex) return;
    if (ctx->npool == ctx->cappool && ctx->cappool < POOL_KEEP) {
        int cap = ctx->cappool ? ctx->cappool * 2 : 4;
        texla__tex *p = realloc(ctx->pool, sizeof *p * (size_t)cap);
        if (p) {
            ctx->pool = p;
            ctx->cappool = cap;
        }
    }
    if (ctx->npool < ctx->cappool) {
        ctx->pool[ctx->npool++] = *t;
        t->tex = t->fbo = 0;
    } else {
        /* pool full: the oldest goes */
        texla__tex_free(ctx, &ctx->pool[0]);
        ctx->pool[0] = *t;
        t->tex = t->fbo = 0;
    }
}

void texla__pool_destroy(texla_ctx *ctx) {
    for (int i = 0; i < ctx->npool; i++) texla__tex_free(ctx, &ctx->pool[i]);
    ctx->npool = 0;
}

/* ---- asynchronous read-back of one texel ---- */

texla_result texla__tex_read_start(texla_ctx *ctx, const texla__tex *t, GLuint *pbo, GLsync *fence) {
    texla__read_free(pbo, fence);
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
    (void)ctx;
    return TEXLA_OK;
}

texla_result texla__tex_read_poll(texla_ctx *ctx, GLuint pbo, GLsync *fence, float texel[4]) {
    if (*fence) {
        GLenum st = glClientWaitSync(*fence, 0, 0);
        if (st == GL_TIMEOUT_EXPIRED) return TEXLA_ERR_NOT_READY;
        if (st == GL_WAIT_FAILED)
            return texla__fail(ctx, TEXLA_ERR_GL, "glClientWaitSync failed on a read-back fence");
        glDeleteSync(*fence);
        *fence = 0;
    }
    glBindBuffer(GL_PIXEL_PACK_BUFFER, pbo);
    const float *m = glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, 4 * sizeof(float), GL_MAP_READ_BIT);
    texla_result r = TEXLA_OK;
    if (m) {
        for (int i = 0; i < 4; i++) texel[i] = m[i];
        glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
        ctx->stats.readbacks++;
    } else {
        r = texla__fail(ctx, TEXLA_ERR_GL, "mapping a read-back buffer failed");
    }
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    return r;
}

void texla__read_free(GLuint *pbo, GLsync *fence) {
    if (*fence) glDeleteSync(*fence);
    if (*pbo) glDeleteBuffers(1, pbo);
    *fence = 0;
    *pbo = 0;
}

/* ---- vertex buffers of sparse matrices ---- */

texla_result texla__points_make(texla_ctx *ctx, const texla__sparse_vertex *v, int count,
                                GLuint *vao, GLuint *vbo) {
    glGenVertexArrays(1, vao);
    glBindVertexArray(*vao);
    glGenBuffers(1, vbo);
    glBindBuffer(GL_ARRAY_BUFFER, *vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)count * (GLsizeiptr)sizeof *v, v, GL_STATIC_DRAW);
    const GLsizei st = (GLsizei)sizeof *v;
    glEnableVertexAttribArray(0);
    glVertexAttribIPointer(0, 1, GL_INT, st, (void *)offsetof(texla__sparse_vertex, row));
    glEnableVertexAttribArray(1);
    glVertexAttribIPointer(1, 4, GL_INT, st, (void *)offsetof(texla__sparse_vertex, col));
    glEnableVertexAttribArray(2);
    glVertexAttribPointer(2, 4, GL_FLOAT, GL_FALSE, st, (void *)offsetof(texla__sparse_vertex, val));
    GLint64 size = 0; /* asked of the buffer, not of glGetError (see texla__tex_make) */
    glGetBufferParameteri64v(GL_ARRAY_BUFFER, GL_BUFFER_SIZE, &size);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    if (size != (GLint64)count * (GLint64)sizeof *v) {
        texla__points_free(vao, vbo);
        return texla__fail(ctx, TEXLA_ERR_MEMORY,
                           "allocating a vertex buffer of %d points (%.1f MB) failed: out of GPU "
                           "memory?", count, (double)count * sizeof *v / 1e6);
    }
    return TEXLA_OK;
}

void texla__points_free(GLuint *vao, GLuint *vbo) {
    if (*vao) glDeleteVertexArrays(1, vao);
    if (*vbo) glDeleteBuffers(1, vbo);
    *vao = *vbo = 0;
}
