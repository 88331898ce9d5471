/* guard.c - the state guard. In host mode the outermost texla call (or texla_ctx_begin) saves
 * every piece of GL state texla may touch, puts the context into texla's canonical state, and
 * restores the host's state on return. The list here is the list in texla.h ("GL state
 * touched"). */
#include "gl/gl.h"

/* Capabilities switched off for texla's passes; restored as found. */
/* (scissor test: per viewport since GL 4.1, handled apart so only index 0 is touched) */
static const GLenum enable_caps[] = {
    GL_DEPTH_TEST,         GL_STENCIL_TEST,                             GL_CULL_FACE,
    GL_RASTERIZER_DISCARD, GL_FRAMEBUFFER_SRGB, GL_COLOR_LOGIC_OP,      GL_SAMPLE_ALPHA_TO_COVERAGE,
    GL_SAMPLE_MASK,        GL_PROGRAM_POINT_SIZE, GL_PRIMITIVE_RESTART, GL_CLIP_DISTANCE0,
    GL_CLIP_DISTANCE1,     GL_CLIP_DISTANCE2, GL_CLIP_DISTANCE3,        GL_CLIP_DISTANCE4,
    GL_CLIP_DISTANCE5,     GL_CLIP_DISTANCE6, GL_CLIP_DISTANCE7,
};
#define N_CAPS (int)(sizeof enable_caps / sizeof enable_caps[0])

static const GLenum pack_names[7] = {GL_PACK_ALIGNMENT,    GL_PACK_ROW_LENGTH,
                                     GL_PACK_SKIP_ROWS,    GL_PACK_SKIP_PIXELS,
                                     GL_PACK_IMAGE_HEIGHT, GL_PACK_SKIP_IMAGES,
                                     GL_PACK_SWAP_BYTES};
static const GLenum unpack_names[7] = {GL_UNPACK_ALIGNMENT,    GL_UNPACK_ROW_LENGTH,
                                       GL_UNPACK_SKIP_ROWS,    GL_UNPACK_SKIP_PIXELS,
                                       GL_UNPACK_IMAGE_HEIGHT, GL_UNPACK_SKIP_IMAGES,
                                       GL_UNPACK_SWAP_BYTES};

static void save(texla__glstate *s) {
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &s->draw_fbo);
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &s->read_fbo);
    if (GLAD_GL_VERSION_4_1) glGetFloati_v(GL_VIEWPORT, 0, s->viewport);
    else glGetFloatv(GL_VIEWPORT, s->viewport);
    s->scissor0 = GLAD_GL_VERSION_4_1 ? glIsEnabledi(GL_SCISSOR_TEST, 0) : glIsEnabled(GL_SCISSOR_TEST);
    glGetIntegerv(GL_CURRENT_PROGRAM, &s->program);
    glGetIntegerv(GL_ACTIVE_TEXTURE, &s->active_tex);
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &s->vao);
    glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &s->array_buf);
    glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &s->pack_buf);
    glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &s->unpack_buf);
    for (int i = 0; i < TEXLA__UNITS; i++) {
        glActiveTexture(GL_TEXTURE0 + (GLenum)i);
        glGetIntegerv(GL_TEXTURE_BINDING_2D, &s->tex2d[i]);
        glGetIntegerv(GL_SAMPLER_BINDING, &s->sampler[i]);
    }
    glActiveTexture((GLenum)s->active_tex);
    for (int i = 0; i < 7; i++) glGetIntegerv(pack_names[i], &s->pack[i]);
    for (int i = 0; i < 7; i++) glGetIntegerv(unpack_names[i], &s->unpack[i]);
    glGetIntegerv(GL_CLAMP_READ_COLOR, &s->clamp_read);
    s->blend0 = glIsEnabledi(GL_BLEND, 0);
    glGetBooleani_v(GL_COLOR_WRITEMASK, 0, s->color_mask);
    /* draw buffer 0's blend functions (GL 4.0 has one set per draw buffer) */
    static const GLenum bq[6] = {GL_BLEND_SRC_RGB,   GL_BLEND_DST_RGB,      GL_BLEND_SRC_ALPHA,
                                 GL_BLEND_DST_ALPHA, GL_BLEND_EQUATION_RGB, GL_BLEND_EQUATION_ALPHA};
    GLint *bv[6] = {&s->blend_src_rgb, &s->blend_dst_rgb, &s->blend_src_a,
                    &s->blend_dst_a,   &s->blend_eq_rgb,  &s->blend_eq_a};
    for (int i = 0; i < 6; i++) {
        if (GLAD_GL_VERSION_4_0) glGetIntegeri_v(bq[i], 0, bv[i]);
        else glGetIntegerv(bq[i], bv[i]);
    }
    glGetFloatv(GL_BLEND_COLOR, s->blend_color);
    glGetIntegerv(GL_POLYGON_MODE, s->polygon_mode);
    if (GLAD_GL_VERSION_4_5 || GLAD_GL_ARB_clip_control) {
        glGetIntegerv(GL_CLIP_ORIGIN, &s->clip_origin);
        glGetIntegerv(GL_CLIP_DEPTH_MODE, &s->clip_depth);
    }
    if (GLAD_GL_VERSION_4_2) {
        static const GLenum q[6] = {GL_IMAGE_BINDING_NAME,  GL_IMAGE_BINDING_LEVEL,
                                    GL_IMAGE_BINDING_LAYERED, GL_IMAGE_BINDING_LAYER,
                                    GL_IMAGE_BINDING_ACCESS, GL_IMAGE_BINDING_FORMAT};
        for (int u = 0; u < TEXLA__MAX_IMG; u++)
            for (int i = 0; i < 6; i++) glGetIntegeri_v(q[i], (GLuint)u, &s->image[u][i]);
    }
    if (GLAD_GL_VERSION_4_3) {
        glGetIntegerv(GL_SHADER_STORAGE_BUFFER_BINDING, &s->ssbo_generic);
        for (int i = 0; i < TEXLA__MAX_SSBO; i++) {
            glGetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, (GLuint)i, &s->ssbo[i]);
            glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_START, (GLuint)i, &s->ssbo_start[i]);
            glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_SIZE, (GLuint)i, &s->ssbo_size[i]);
        }
    }
    for (int i = 0; i < N_CAPS; i++) s->enables[i] = glIsEnabled(enable_caps[i]);
}

static void set_cap(GLenum cap, GLboolean on) {
    if (on) glEnable(cap);
    else glDisable(cap);
}

static void restore(const texla__glstate *s) {
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)s->draw_fbo);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)s->read_fbo);
    if (GLAD_GL_VERSION_4_1) {
        glViewportIndexedfv(0, s->viewport);
        if (s->scissor0) glEnablei(GL_SCISSOR_TEST, 0);
        else glDisablei(GL_SCISSOR_TEST, 0);
    } else {
        glViewport((GLint)s->viewport[0], (GLint)s->viewport[1], (GLsizei)s->viewport[2],
                   (GLsizei)s->viewport[3]);
        set_cap(GL_SCISSOR_TEST, s->scissor0);
    }
    glUseProgram((GLuint)s->program);
    for (int i = 0; i < TEXLA__UNITS; i++) {
        glActiveTexture(GL_TEXTURE0 + (GLenum)i);
        glBindTexture(GL_TEXTURE_2D, (GLuint)s->tex2d[i]);
        glBindSampler((GLuint)i, (GLuint)s->sampler[i]);
    }
    glActiveTexture((GLenum)s->active_tex);
    glBindVertexArray((GLuint)s->vao);
    glBindBuffer(GL_ARRAY_BUFFER, (GLuint)s->array_buf);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, (GLuint)s->pack_buf);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, (GLuint)s->unpack_buf);
    for (int i = 0; i < 7; i++) glPixelStorei(pack_names[i], s->pack[i]);
    for (int i = 0; i < 7; i++) glPixelStorei(unpack_names[i], s->unpack[i]);
    glClampColor(GL_CLAMP_READ_COLOR, (GLenum)s->clamp_read);
    if (s->blend0) glEnablei(GL_BLEND, 0);
    else glDisablei(GL_BLEND, 0);
    glColorMaski(0, s->color_mask[0], s->color_mask[1], s->color_mask[2], s->color_mask[3]);
    if (GLAD_GL_VERSION_4_0) {
        glBlendFuncSeparatei(0, (GLenum)s->blend_src_rgb, (GLenum)s->blend_dst_rgb,
                             (GLenum)s->blend_src_a, (GLenum)s->blend_dst_a);
        glBlendEquationSeparatei(0, (GLenum)s->blend_eq_rgb, (GLenum)s->blend_eq_a);
    } else {
        glBlendFuncSeparate((GLenum)s->blend_src_rgb, (GLenum)s->blend_dst_rgb,
                            (GLenum)s->blend_src_a, (GLenum)s->blend_dst_a);
        glBlendEquationSeparate((GLenum)s->blend_eq_rgb, (GLenum)s->blend_eq_a);
    }
    glBlendColor(s->blend_color[0], s->blend_color[1], s->blend_color[2], s->blend_color[3]);
    /* core profile: front and back modes are always equal */
    glPolygonMode(GL_FRONT_AND_BACK, (GLenum)s->polygon_mode[0]);
    if (GLAD_GL_VERSION_4_5 || GLAD_GL_ARB_clip_control)
        glClipControl((GLenum)s->clip_origin, (GLenum)s->clip_depth);
    if (GLAD_GL_VERSION_4_2)
        for (int u = 0; u < TEXLA__MAX_IMG; u++) {
            const GLint *m = s->image[u];
            glBindImageTexture((GLuint)u, (GLuint)m[0], m[1], (GLboolean)m[2], m[3], (GLenum)m[4],
                               (GLenum)m[5]);
        }
    if (GLAD_GL_VERSION_4_3) {
        /* a range of size 0 is how GL reports a whole-buffer (glBindBufferBase) binding */
        for (int i = 0; i < TEXLA__MAX_SSBO; i++) {
            if (s->ssbo[i] && s->ssbo_size[i] > 0)
                glBindBufferRange(GL_SHADER_STORAGE_BUFFER, (GLuint)i, (GLuint)s->ssbo[i],
                                  (GLintptr)s->ssbo_start[i], (GLsizeiptr)s->ssbo_size[i]);
            else
                glBindBufferBase(GL_SHADER_STORAGE_BUFFER, (GLuint)i, (GLuint)s->ssbo[i]);
        }
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, (GLuint)s->ssbo_generic);
    }
    for (int i = 0; i < N_CAPS; i++) set_cap(enable_caps[i], s->enables[i]);
}

/* The state every pass assumes: nothing but the fragment program decides what is written. */
static void canonical_state(void) {
    for (int i = 0; i < N_CAPS; i++) glDisable(enable_caps[i]);
    glColorMaski(0, GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
    /* a host's upper-left clip origin turned the points drawn for sparse rows upside down */
    if (GLAD_GL_VERSION_4_5 || GLAD_GL_ARB_clip_control)
        glClipControl(GL_LOWER_LEFT, GL_NEGATIVE_ONE_TO_ONE);
    if (GLAD_GL_VERSION_4_0) glBlendEquationSeparatei(0, GL_FUNC_ADD, GL_FUNC_ADD);
    else glBlendEquationSeparate(GL_FUNC_ADD, GL_FUNC_ADD);
    if (GLAD_GL_VERSION_4_1) glDisablei(GL_SCISSOR_TEST, 0);
    else glDisable(GL_SCISSOR_TEST);
    glClampColor(GL_CLAMP_READ_COLOR, GL_FALSE);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    /* alignment 4, no row length, no skips, no byte swapping */
    static const GLint defaults[7] = {4, 0, 0, 0, 0, 0, GL_FALSE};
    for (int i = 0; i < 7; i++) glPixelStorei(pack_names[i], defaults[i]);
    for (int i = 0; i < 7; i++) glPixelStorei(unpack_names[i], defaults[i]);
    for (int i = 0; i < TEXLA__UNITS; i++) glBindSampler((GLuint)i, 0);
}

/* Draw buffer 0 and viewport 0 only: the plain calls would set every buffer and viewport. */
void texla__viewport(int x, int y, int w, int h) {
    if (GLAD_GL_VERSION_4_1) glViewportIndexedf(0, (GLfloat)x, (GLfloat)y, (GLfloat)w, (GLfloat)h);
    else glViewport(x, y, w, h);
}

void texla__blend_func(GLenum src, GLenum dst) {
    if (GLAD_GL_VERSION_4_0) glBlendFunci(0, src, dst);
    else glBlendFunc(src, dst);
}

/* texla's vertex array mark: attribute 15's divisor set to a value made from the texla_ctx's
 * tag (GL 3.3 has at least 16 attributes; texla enables none of its vertex array's, so the
 * divisor changes no draw). From the tag, so two texla contexts whose vertex arrays have the
 * same name in their GL contexts still tell them apart; scrambled, with bit 30 set, so no
 * application's instancing divisor (1, 2, ...) reads as one; below 2^31, so a driver that
 * clamps unsigned state to INT_MAX in glGetVertexAttribiv still returns it as it is. */
#define MARK_ATTR 15u

void texla__gl_mark(texla__gl *g, unsigned tag) {
    g->mark = ((tag * 2654435761u) & 0x3FFFFFFFu) | 0x40000000u;
    glBindVertexArray(g->vao); /* inside texla_ctx_make's guard: the host's binding goes back */
    glVertexAttribDivisor(MARK_ATTR, g->mark);
    g->marked = 1;
}

/* is texla's marked vertex array there in the current context: not in another context (a
 * vertex array is never shared, and another's array of the same name lacks this mark), nor
 * with no context current (GL's calls then do nothing and return 0). glIsVertexArray first:
 * binding a name the context never made would raise an error. The binding is put back. */
static int context_is_ours(const texla__gl *g) {
    if (!glIsVertexArray(g->vao)) return 0;
    GLint was = 0, d = 0;
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &was);
    glBindVertexArray(g->vao);
    glGetVertexAttribiv(MARK_ATTR, GL_VERTEX_ATTRIB_ARRAY_DIVISOR, &d);
    glBindVertexArray((GLuint)was);
    return (GLuint)d == g->mark;
}

texla_result texla__gl_current(texla__gl *g, const char *what) {
    texla_result r = texla__in_callback(g->err, what);
    if (r || !g->lost) return r;
    return texla__glfail(g, TEXLA_ERR_CONTEXT,
                         "%s: the GL context texla_ctx_make found is not current on this thread "
                         "(another one is, or none); make it current: nothing was done", what);
}

void texla__gl_enter(texla__gl *g) {
    if (g->depth++ > 0) return;
    if (!g->host) texla__egl_make_current(g);
    /* host mode, another context current (or none): nothing else is asked or set there */
    g->lost = g->host && g->marked && !context_is_ours(g);
    if (g->lost) return;
    if (g->host) save(&g->saved);
    /* Headless too: the application may draw in texla's context between calls (the demos
     * do), so nothing from an earlier call is assumed. */
    canonical_state();
}

void texla__gl_leave(texla__gl *g) {
    if (--g->depth > 0) return;
    if (g->host && !g->lost) restore(&g->saved);
    if (!g->host) texla__egl_restore(g);
}
