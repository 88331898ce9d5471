/* runner.c - the pass runner: the only code that binds framebuffers, images, textures and
 * storage buffers, sets program and blend state, and draws or dispatches. The backends are
 * data (texla__backends): a pass of an OP program runs on the backend chosen for that program
 * (g->choice, set by core from measurements or by the caller), a POINTS program on the fragment
 * backend, a KERNEL on the compute backend. */
#include "gl/gl.h"

#include <string.h>
#include <time.h>

static texla_result run_fragment(texla__gl *g, const texla__prog *prog, const texla__pass *p);
static texla_result run_compute(texla__gl *g, const texla__prog *prog, const texla__pass *p);

const texla__backend texla__backends[TEXLA__NBACKENDS] = {
    [TEXLA_BACKEND_FRAGMENT] = {"fragment", "common/frag_main.glsl", 33,
                                TEXLA__CAP_OP | TEXLA__CAP_POINTS | TEXLA__CAP_BLEND,
                                run_fragment},
    [TEXLA_BACKEND_COMPUTE] = {"compute", "common/comp_main.glsl", 43,
                               TEXLA__CAP_OP | TEXLA__CAP_KERNEL, run_compute},
};

static const char *fbo_status_name(GLenum s) {
    switch (s) {
    case GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT: return "GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT";
    case GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT: return "GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT";
    case GL_FRAMEBUFFER_UNSUPPORTED: return "GL_FRAMEBUFFER_UNSUPPORTED";
    case GL_FRAMEBUFFER_INCOMPLETE_DRAW_BUFFER: return "GL_FRAMEBUFFER_INCOMPLETE_DRAW_BUFFER";
    default: return "incomplete framebuffer";
    }
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

unsigned texla__prog_backends(const texla__gl *g, texla__prog_id id) {
    unsigned m = 0;
    texla__form form = texla__prog_form(id);
    unsigned need = form == TEXLA__FORM_OP       ? TEXLA__CAP_OP
                    : form == TEXLA__FORM_POINTS ? TEXLA__CAP_POINTS
                                                 : TEXLA__CAP_KERNEL;
    for (int b = 1; b < TEXLA__NBACKENDS; b++)
        if ((texla__backends[b].caps & need) &&
            g->info.gl_major * 10 + g->info.gl_minor >= texla__backends[b].min_gl)
            m |= 1u << b;
    return m;
}

int texla__backend_of(const texla__gl *g, texla__prog_id id) {
    switch (texla__prog_form(id)) {
    case TEXLA__FORM_KERNEL: return TEXLA_BACKEND_COMPUTE;
    case TEXLA__FORM_POINTS: return TEXLA_BACKEND_FRAGMENT;
    case TEXLA__FORM_OP: break;
    }
    int b = g->choice[id] ? g->choice[id] : g->measured[id] ? g->measured[id] : g->default_backend;
    return texla__prog_backends(g, id) & (1u << b) ? b : TEXLA_BACKEND_FRAGMENT;
}

static texla_result bind_target(texla__gl *g, texla__tex *t) {
    if (!t->fbo) {
        glGenFramebuffers(1, &t->fbo);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, t->fbo);
        glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, t->tex, 0);
        const GLenum buf = GL_COLOR_ATTACHMENT0;
        glDrawBuffers(1, &buf);
        GLenum st = glCheckFramebufferStatus(GL_DRAW_FRAMEBUFFER);
        if (st != GL_FRAMEBUFFER_COMPLETE)
            return texla__glfail(g, TEXLA_ERR_UNSUPPORTED,
                                 "a %d x %d RGBA32F texture cannot be rendered to: %s (0x%04x)",
                                 t->w, t->h, fbo_status_name(st), st);
    } else {
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, t->fbo);
    }
    return TEXLA_OK;
}

static void set_blend(texla__blend b, float scale) {
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
}

static void bind_sources(const texla__prog *prog, const texla__pass *p) {
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
    if (prog->u_i3 >= 0) glUniform4iv(prog->u_i3, 1, p->i3);
    if (prog->u_coef >= 0) glUniform1i(prog->u_coef, p->coef_src ? p->coef : 0);
    if (prog->u_f0 >= 0) glUniform4fv(prog->u_f0, 1, p->f0);
    if (prog->u_f1 >= 0) glUniform4fv(prog->u_f1, 1, p->f1);
    if (prog->u_shape >= 0) glUniform4iv(prog->u_shape, 1, p->shape);
}

/* The fragment backend: one fragment per destination texel (quad or rects), or points, into
 * the destination's framebuffer; accumulation by fixed-function blending. */
static texla_result run_fragment(texla__gl *g, const texla__prog *prog, const texla__pass *p) {
    texla_result r = bind_target(g, p->dst);
    if (r) return r;
    glUseProgram(prog->id);
    bind_sources(prog, p);
    set_blend(p->blend, p->blend_scale);
    switch (p->draw) {
    case TEXLA__DRAW_QUAD:
        glBindVertexArray(g->vao);
        texla__viewport(0, 0, p->dst->w, p->dst->h);
        glDrawArrays(GL_TRIANGLES, 0, 3);
        break;
    case TEXLA__DRAW_RECTS:
        glBindVertexArray(g->vao);
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
    case TEXLA__DRAW_KERNEL: break; /* not reached: kernels run on the compute backend */
    }
    glDisablei(GL_BLEND, 0);
    return TEXLA_OK;
}

/* Barriers after every dispatch, so later passes, read-backs, draws and the host's shaders see
 * what it wrote. */
static void barrier(void) {
    glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT |
                    GL_TEXTURE_UPDATE_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT |
                    GL_PIXEL_BUFFER_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT |
                    GL_BUFFER_UPDATE_BARRIER_BIT);
}

/* The compute backend. OP programs: the operation's compute version over each rectangle of
 * 16 x 16 invocations, the destination bound read-write to image unit 0, blending done in the
 * shader. Kernels: their own geometry, images and storage buffers. */
static texla_result run_compute(texla__gl *g, const texla__prog *prog, const texla__pass *p) {
    (void)g;
    glUseProgram(prog->id);
    bind_sources(prog, p);
    if (p->dst) glBindImageTexture(0, p->dst->tex, 0, GL_FALSE, 0, GL_READ_WRITE, GL_RGBA32F);
    if (p->draw == TEXLA__DRAW_KERNEL) {
        for (int i = 1; i < TEXLA__MAX_IMG; i++)
            if (p->img[i])
                glBindImageTexture((GLuint)i, p->img[i]->tex, 0, GL_FALSE, 0, GL_READ_WRITE,
                                   GL_RGBA32F);
        for (int i = 0; i < TEXLA__MAX_SSBO; i++) {
            const texla__buf *b = p->ssbo[i].b;
            if (!b) continue;
            size_t size = p->ssbo[i].size ? p->ssbo[i].size : b->size - p->ssbo[i].off;
            if (p->ssbo[i].off == 0 && (size == b->cap || !size))
                glBindBufferBase(GL_SHADER_STORAGE_BUFFER, (GLuint)i, b->buf);
            else
                glBindBufferRange(GL_SHADER_STORAGE_BUFFER, (GLuint)i, b->buf,
                                  (GLintptr)p->ssbo[i].off, (GLsizeiptr)size);
        }
        if (p->groups[0] && p->groups[1] && p->groups[2])
            glDispatchCompute(p->groups[0], p->groups[1], p->groups[2]);
        barrier();
        return TEXLA_OK;
    }
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
    barrier();
    return TEXLA_OK;
}

texla_result texla__run(texla__gl *g, const texla__pass *p) {
    if (texla__gl_refuses(g)) {
        char what[96];
        snprintf(what, sizeof what, "a pass of glsl/%s", texla__prog_file(p->prog));
        return texla__gl_current(g, what);
    }
    for (int i = 0; i < TEXLA__MAX_SRC && p->src[i]; i++)
        if (p->dst && p->src[i]->tex == p->dst->tex)
            return texla__glfail(g, TEXLA_ERR_ALIAS,
                                 "internal: a pass of glsl/%s would sample its own target",
                                 texla__prog_file(p->prog));
    if (p->coef_src && p->dst && p->coef_src->tex == p->dst->tex)
        return texla__glfail(g, TEXLA_ERR_ALIAS, "internal: a pass would sample its own target");
    int backend = texla__backend_of(g, p->prog);
    if (!(texla__prog_backends(g, p->prog) & (1u << backend)))
        return texla__glfail(g, TEXLA_ERR_UNSUPPORTED,
                             "glsl/%s cannot run on the %s backend of this OpenGL %d.%d context",
                             texla__prog_file(p->prog), texla__backends[backend].name,
                             g->info.gl_major, g->info.gl_minor);
    texla__prog *prog;
    texla_result r = texla__prog_get(g, p->prog, backend, texla__backends[backend].main_file,
                                     p->defines, &prog);
    if (r) return r;
    r = texla__backends[backend].run(g, prog, p);
    if (r) return r;
    g->stats.passes++;
    if (g->debug) {
        GLenum e = glGetError();
        if (e != GL_NO_ERROR)
            return texla__glfail(g, TEXLA_ERR_GL,
                                 "pass glsl/%s into a %d x %d target (%s): %s (0x%04x)%s%s",
                                 texla__prog_file(p->prog), p->dst ? p->dst->w : 0,
                                 p->dst ? p->dst->h : 0, texla__backends[backend].name,
                                 gl_err_name(e), e, g->gl_debug[0] ? "; KHR_debug: " : "",
                                 g->gl_debug);
    }
    return TEXLA_OK;
}

/* ---- timing for the tuners ---- */

double texla__now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* (nothing where another context is current: g->lost) */
void texla__gl_finish(texla__gl *g) {
    if (!g->lost) glFinish();
}

void texla__gl_flush(texla__gl *g) {
    if (!g->lost) glFlush();
}

long long texla__compile_threads(texla__gl *g, long long n) {
    if (!g->caps.parallel_compile || g->lost) return -1;
    /* 64-bit: the setting is unsigned, and 32-bit reads may clamp 0xFFFFFFFF */
    GLint64 old = -1;
    glGetInteger64v(GL_MAX_SHADER_COMPILER_THREADS_KHR, &old);
    GLuint want = n < 0 ? 0xFFFFFFFFu : (GLuint)n;
    if (GLAD_GL_KHR_parallel_shader_compile) glMaxShaderCompilerThreadsKHR(want);
    else glMaxShaderCompilerThreadsARB(want);
    return old < 0 ? 0xFFFFFFFFLL : (long long)old;
}

void texla__prefetch(texla__gl *g, texla__prog_id prog, const char *defines) {
    if (g->lost) return; /* no programs made in another context */
    int backend = texla__backend_of(g, prog);
    if (texla__prog_backends(g, prog) & (1u << backend))
        texla__prog_prefetch(g, prog, backend, defines);
}

/* a host's own GL_TIME_ELAPSED query may be active (a frame profiler): beginning another is
 * an error, and ending it would end the host's */
static int queries_free(texla__gl *g) {
    GLint busy = 0;
    if (g->caps.timer && g->host && !g->lost) glGetQueryiv(GL_TIME_ELAPSED, GL_CURRENT_QUERY, &busy);
    return g->caps.timer && !busy && !g->lost; /* lost: nothing asked of another context */
}

void texla__timer_begin(texla__gl *g) {
    g->timer_on = queries_free(g); /* else the wall clock around glFinish */
    if (g->timer_on) {
        if (!g->timer_q) glGenQueries(1, &g->timer_q);
        glBeginQuery(GL_TIME_ELAPSED, g->timer_q);
    } else {
        texla__gl_finish(g);
        g->timer_t0 = texla__now_ms();
    }
}

double texla__timer_end_ms(texla__gl *g) {
    if (g->timer_on) {
        glEndQuery(GL_TIME_ELAPSED);
        GLuint64 ns = 0;
        glGetQueryObjectui64v(g->timer_q, GL_QUERY_RESULT, &ns);
        return (double)ns / 1e6;
    }
    texla__gl_finish(g);
    return texla__now_ms() - g->timer_t0;
}

int texla__laps_on(texla__gl *g) {
    if (!queries_free(g) || g->caps.software) return 0;
    if (!g->lap_q[0]) glGenQueries(2, g->lap_q);
    return 1;
}

void texla__lap_begin(texla__gl *g, int i) {
    glBeginQuery(GL_TIME_ELAPSED, g->lap_q[i & 1]);
}

void texla__lap_end(texla__gl *g) {
    (void)g;
    glEndQuery(GL_TIME_ELAPSED);
}

double texla__lap_ms(texla__gl *g, int i) {
    GLuint64 ns = 0;
    glGetQueryObjectui64v(g->lap_q[i & 1], GL_QUERY_RESULT, &ns);
    return (double)ns / 1e6;
}
