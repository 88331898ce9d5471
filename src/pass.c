/* pass.c - the pass runner: the only code that binds a framebuffer, sets the viewport,
 * program, textures and blend state, and draws (or dispatches: the compute backend runs the
 * same operations as compute shaders). Operations describe a texla__pass. */
#include "internal.h"

#include <string.h>

static const char *fbo_status_name(GLenum s) {
    switch (s) {
    case GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT: return "GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT";
    case GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT: return "GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT";
    case GL_FRAMEBUFFER_UNSUPPORTED: return "GL_FRAMEBUFFER_UNSUPPORTED";
    case GL_FRAMEBUFFER_INCOMPLETE_DRAW_BUFFER: return "GL_FRAMEBUFFER_INCOMPLETE_DRAW_BUFFER";
    default: return "incomplete framebuffer";
    }
}

void texla__runner_reset(texla_ctx *ctx) {
    ctx->cur_prog = 0;
    ctx->cur_fbo = 0;
    ctx->cur_blend = -1; /* unknown: set on the next pass */
    ctx->cur_blend_scale = 0.0f;
}

void texla__runner_forget_fbo(texla_ctx *ctx, GLuint fbo) {
    if (ctx->cur_fbo == fbo) ctx->cur_fbo = 0;
}

static texla_result bind_target(texla_ctx *ctx, texla__tex *t) {
    if (!t->fbo) {
        glGenFramebuffers(1, &t->fbo);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, t->fbo);
        glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, t->tex, 0);
        const GLenum buf = GL_COLOR_ATTACHMENT0;
        glDrawBuffers(1, &buf);
        GLenum st = glCheckFramebufferStatus(GL_DRAW_FRAMEBUFFER);
        ctx->cur_fbo = t->fbo;
        if (st != GL_FRAMEBUFFER_COMPLETE)
            return texla__fail(ctx, TEXLA_ERR_UNSUPPORTED,
                               "a %d x %d RGBA32F texture cannot be rendered to: %s (0x%04x)",
                               t->w, t->h, fbo_status_name(st), st);
    } else if (ctx->cur_fbo != t->fbo) {
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, t->fbo);
        ctx->cur_fbo = t->fbo;
    }
    return TEXLA_OK;
}

static void set_blend(texla_ctx *ctx, texla__blend b, float scale) {
    if ((int)b == ctx->cur_blend && (b != TEXLA__BLEND_SCALE || scale == ctx->cur_blend_scale))
        return;
    if (b == TEXLA__BLEND_NONE) {
        glDisablei(GL_BLEND, 0);
    } else {
        glEnablei(GL_BLEND, 0);
        if (b == TEXLA__BLEND_ADD) {
            texla__blend_func(GL_ONE, GL_ONE);
        } else {
            texla__blend_func(GL_ZERO, GL_CONSTANT_COLOR);
            glBlendColor(scale, scale, scale, scale);
        }
    }
    ctx->cur_blend = (int)b;
    ctx->cur_blend_scale = scale;
}

static const char *gl_err_name(GLenum e) {
    switch (e) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    default: return "GL error";
    }
}

/* The compute backend: the operation's compute version over each rectangle, the destination
 * bound read-write to image unit 0, blending done in the shader; a barrier after each
 * dispatch so later passes, read-backs and the host's shaders see the result. */
static void dispatch(const texla__prog *prog, const texla__pass *p) {
    glBindImageTexture(0, p->dst->tex, 0, GL_FALSE, 0, GL_READ_WRITE, GL_RGBA32F);
    if (prog->u_blend >= 0) glUniform1i(prog->u_blend, (GLint)p->blend);
    if (prog->u_blend_scale >= 0) glUniform1f(prog->u_blend_scale, p->blend_scale);
    texla__rect full = {0, 0, p->dst->w, p->dst->h, {p->i1[0], p->i1[1], p->i1[2], p->i1[3]}};
    const texla__rect *rects = p->draw == TEXLA__DRAW_RECTS ? p->rects : &full;
    int n = p->draw == TEXLA__DRAW_RECTS ? p->nrects : 1;
    for (int i = 0; i < n; i++) {
        const texla__rect *rc = &rects[i];
        if (prog->u_i1 >= 0) glUniform4iv(prog->u_i1, 1, rc->i1);
        if (prog->u_rect >= 0) glUniform4i(prog->u_rect, rc->x, rc->y, rc->w, rc->h);
        glDispatchCompute((GLuint)(rc->w + 15) / 16, (GLuint)(rc->h + 15) / 16, 1);
    }
    glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT |
                    GL_TEXTURE_UPDATE_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT |
                    GL_PIXEL_BUFFER_BARRIER_BIT);
}

texla_result texla__run(texla_ctx *ctx, const texla__pass *p) {
    for (int i = 0; i < TEXLA__MAX_SRC && p->src[i]; i++)
        if (p->src[i]->tex == p->dst->tex)
            return texla__fail(ctx, TEXLA_ERR_ALIAS,
                               "internal: a pass would sample its own render target");
    if (p->coef_src && p->coef_src->tex == p->dst->tex)
        return texla__fail(ctx, TEXLA_ERR_ALIAS, "internal: a pass would sample its own render target");
    int compute = ctx->use_compute && p->draw != TEXLA__DRAW_POINTS &&
                  texla__prog_has_compute(p->prog);
    texla__prog *prog;
    texla_result r = texla__prog_get(ctx, p->prog, compute, &prog);
    if (r) return r;
    if (!compute) {
        r = bind_target(ctx, p->dst);
        if (r) return r;
    }
    if (ctx->cur_prog != prog->id) {
        glUseProgram(prog->id);
        ctx->cur_prog = prog->id;
    }
    for (int i = 0; i < TEXLA__MAX_SRC && p->src[i]; i++) {
        glActiveTexture(GL_TEXTURE0 + (GLenum)i);
        glBindTexture(GL_TEXTURE_2D, p->src[i]->tex);
    }
    if (p->coef_src) {
        glActiveTexture(GL_TEXTURE0 + TEXLA__COEF_UNIT);
        glBindTexture(GL_TEXTURE_2D, p->coef_src->tex);
    }
    if (prog->u_i0 >= 0) glUniform4iv(prog->u_i0, 1, p->i0);
    if (prog->u_i1 >= 0) glUniform4iv(prog->u_i1, 1, p->i1);
    if (prog->u_i2 >= 0) glUniform4iv(prog->u_i2, 1, p->i2);
    if (prog->u_coef >= 0) glUniform1i(prog->u_coef, p->coef_src ? p->coef : 0);
    if (prog->u_f0 >= 0) glUniform4fv(prog->u_f0, 1, p->f0);
    if (prog->u_f1 >= 0) glUniform4fv(prog->u_f1, 1, p->f1);
    if (prog->u_shape >= 0) glUniform4iv(prog->u_shape, 1, p->shape);
    if (compute) {
        dispatch(prog, p);
    } else {
        set_blend(ctx, p->blend, p->blend_scale);
        switch (p->draw) {
        case TEXLA__DRAW_QUAD:
            glBindVertexArray(ctx->vao);
            texla__viewport(0, 0, p->dst->w, p->dst->h);
            glDrawArrays(GL_TRIANGLES, 0, 3);
            break;
        case TEXLA__DRAW_RECTS:
            glBindVertexArray(ctx->vao);
            /* gl_FragCoord stays in target coordinates: the viewport only selects the rect */
            for (int i = 0; i < p->nrects; i++) {
                const texla__rect *rc = &p->rects[i];
                if (prog->u_i1 >= 0) glUniform4iv(prog->u_i1, 1, rc->i1);
                texla__viewport(rc->x, rc->y, rc->w, rc->h);
                glDrawArrays(GL_TRIANGLES, 0, 3);
            }
            break;
        case TEXLA__DRAW_POINTS:
            glBindVertexArray(p->vao);
            texla__viewport(0, 0, p->dst->w, p->dst->h);
            glEnable(GL_PROGRAM_POINT_SIZE); /* the vertex shader sets gl_PointSize = 1 */
            glDrawArrays(GL_POINTS, 0, p->count);
            glDisable(GL_PROGRAM_POINT_SIZE);
            break;
        }
    }
    ctx->stats.passes++;
    if (ctx->desc.debug) {
        GLenum e = glGetError();
        if (e != GL_NO_ERROR)
            return texla__fail(ctx, TEXLA_ERR_GL,
                               "pass glsl/%s into a %d x %d target (%s): %s (0x%04x)%s%s",
                               texla__prog_name(p->prog), p->dst->w, p->dst->h,
                               compute ? "compute" : "fragment", gl_err_name(e), e,
                               ctx->gl_debug[0] ? "; KHR_debug: " : "", ctx->gl_debug);
    }
    return TEXLA_OK;
}
