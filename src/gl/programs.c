/* programs.c - the program cache. The registry is base/optable.h's TEXLA__PROGRAMS. An OP
 * program's file defines vec4 texla_op(ivec2 texel); it is compiled as the fragment stage of a
 * program (glsl/quad.vert, common/frag_main.glsl) or as a compute shader (common/comp_main.glsl):
 * the backend decides. A POINTS program is a fragment shader with its own main, drawn from
 * TEXLA__POINTS_VERT. A KERNEL is a compute shader with its own main; it is compiled per variant
 * (the pass's defines: tile sizes, schedules) with the GL's capabilities as defines
 * (TEXLA_SUBGROUP, TEXLA_SUBGROUP_SIZE, TEXLA_ATOMIC_FLOAT, TEXLA_SHARED_MAX). Sources are
 * embedded at build time. The library writes the #version line; glsl/common/texla.glsl, the file
 * and the main are separate source strings with #line directives, so the driver's line numbers
 * match the files: source 1 is the common file, source 2 the program's file, source 3 the main. */
#include "gl/gl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *file;
    texla__form form;
} registry[TEXLA__P_COUNT] = {
#define TEXLA__X(id, file, form) [TEXLA__P_##id] = {file, TEXLA__FORM_##form},
    TEXLA__PROGRAMS(TEXLA__X)
#undef TEXLA__X
};

#define COMMON_FILE "common/texla.glsl"
#define QUAD_VERT "quad.vert"

const char *texla__prog_file(texla__prog_id id) { return registry[id].file; }
texla__form texla__prog_form(texla__prog_id id) { return registry[id].form; }

/* The source of a glsl/ file: embedded, or read from glsl_dir (malloc'd, *owned set) when that
 * development override is given. */
static texla_result source_of(texla__gl *g, const char *name, const char **src, int *owned) {
    *owned = 0;
    if (g->glsl_dir) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", g->glsl_dir, name);
        FILE *f = fopen(path, "rb");
        if (!f) return texla__glfail(g, TEXLA_ERR_IO, "shader %s: cannot open %s", name, path);
        long n = -1;
        if (fseek(f, 0, SEEK_END) == 0) n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) != 0) n = -1;
        char *buf = n >= 0 && n < (1L << 24) ? malloc((size_t)n + 1) : NULL;
        size_t got = buf ? fread(buf, 1, (size_t)n, f) : 0;
        fclose(f);
        if (!buf || got != (size_t)n) {
            free(buf);
            return texla__glfail(g, TEXLA_ERR_IO, "shader %s: cannot read %s", name, path);
        }
        buf[n] = '\0';
        *src = buf;
        *owned = 1;
        return TEXLA_OK;
    }
    for (int i = 0; i < texla__shader_file_count; i++)
        if (!strcmp(texla__shader_files[i].name, name)) {
            *src = texla__shader_files[i].source;
            return TEXLA_OK;
        }
    return texla__glfail(g, TEXLA_ERR_SHADER, "shader %s is not embedded in this build", name);
}

static const char *stage_name(GLenum type) {
    return type == GL_COMPUTE_SHADER ? "compute" : type == GL_VERTEX_SHADER ? "vertex" : "fragment";
}

/* The first lines of a shader: #version, extensions, capability and variant defines. */
static void prelude(const texla__gl *g, GLenum type, const char *defines, char *buf, size_t cap) {
    const texla__caps *c = &g->caps;
    if (type != GL_COMPUTE_SHADER) {
        snprintf(buf, cap, "#version 330 core\n%s%s", defines ? defines : "", defines ? "\n" : "");
        return;
    }
    int n = snprintf(buf, cap, "#version %d core\n", c->glsl_version >= 450 ? 450 : 430);
    if (c->subgroup)
        n += snprintf(buf + n, cap - (size_t)n,
                      "#extension GL_KHR_shader_subgroup_basic : require\n"
                      "#extension GL_KHR_shader_subgroup_arithmetic : require\n"
                      "#extension GL_KHR_shader_subgroup_shuffle : require\n"
                      "#extension GL_KHR_shader_subgroup_ballot : require\n"
                      "#define TEXLA_SUBGROUP 1\n#define TEXLA_SUBGROUP_SIZE %d\n",
                      c->subgroup_size);
    if (c->atomic_float)
        n += snprintf(buf + n, cap - (size_t)n,
                      "#extension GL_NV_shader_atomic_float : require\n"
                      "#define TEXLA_ATOMIC_FLOAT 1\n");
    n += snprintf(buf + n, cap - (size_t)n, "#define TEXLA_SHARED_MAX %d\n", c->shared_max);
    if (defines) snprintf(buf + n, cap - (size_t)n, "%s\n", defines);
}

/* Compiles glsl/NAME as a shader of the given type: the prelude, the common file, NAME, and for
 * OP programs the backend's main (main_file; NULL when NAME has its own). */
static texla_result compile(texla__gl *g, GLenum type, const char *name, const char *main_file,
                            const char *defines, int nowait, GLuint *out) {
    const char *src[3] = {NULL, NULL, NULL};
    int own[3] = {0, 0, 0};
    const char *files[3] = {COMMON_FILE, name, main_file};
    texla_result r = TEXLA_OK;
    for (int i = 0; i < 3 && !r; i++)
        if (files[i]) r = source_of(g, files[i], &src[i], &own[i]);
    if (!r) {
        char pre[1024];
        prelude(g, type, defines, pre, sizeof pre);
        const char *strs[7] = {pre, "#line 1 1\n", src[0], "#line 1 2\n", src[1], "#line 1 3\n",
                               src[2] ? src[2] : ""};
        GLuint s = glCreateShader(type);
        glShaderSource(s, 7, strs, NULL);
        glCompileShader(s);
        GLint ok = 0;
        if (nowait) { /* prefetch: the status is asked when the program is first used */
            *out = s;
            goto done;
        }
        glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
        if (!ok) {
            char log[3000] = "";
            glGetShaderInfoLog(s, sizeof log, NULL, log);
            glDeleteShader(s);
            r = texla__glfail(g, TEXLA_ERR_SHADER,
                              "glsl/%s failed to compile as a %s shader (source 1 = glsl/"
                              COMMON_FILE ", source 2 = glsl/%s, source 3 = %s%s%s%s):\n%s",
                              name, stage_name(type), name, main_file ? "glsl/" : "none",
                              main_file ? main_file : "", defines ? "; variant: " : "",
                              defines ? defines : "", log);
        } else {
            *out = s;
        }
    }
done:
    for (int i = 0; i < 3; i++)
        if (own[i]) free((void *)src[i]);
    return r;
}

static texla_result link_finish(texla__gl *g, texla__prog_id id, GLuint prog, int frag,
                                texla__prog *p);

static GLuint link_start(GLuint a, GLuint b) {
    GLuint prog = glCreateProgram();
    glAttachShader(prog, a);
    if (b) glAttachShader(prog, b);
    if (b) glBindFragDataLocation(prog, 0, "o");
    glLinkProgram(prog);
    return prog;
}

/* Links shaders into a program and finds its uniforms. */
static texla_result link(texla__gl *g, texla__prog_id id, GLuint a, GLuint b, texla__prog *p) {
    GLuint prog = link_start(a, b);
    glDeleteShader(a);
    if (b) glDeleteShader(b);
    return link_finish(g, id, prog, b != 0, p);
}

/* a linked program's status, then its uniforms */
static texla_result link_finish(texla__gl *g, texla__prog_id id, GLuint prog, int frag,
                                texla__prog *p) {
    GLint ok = 0;
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[3000] = "";
        glGetProgramInfoLog(prog, sizeof log, NULL, log);
        glDeleteProgram(prog);
        return texla__glfail(g, TEXLA_ERR_SHADER, "glsl/%s (%s) failed to link:\n%s",
                             registry[id].file, frag ? "fragment program" : "compute", log);
    }
    /* samplers u_src0.. read units 0..; set once, the runner binds textures to units */
    glUseProgram(prog);
    for (int i = 0; i < TEXLA__MAX_SRC; i++) {
        char u[16];
        snprintf(u, sizeof u, "u_src%d", i);
        GLint loc = glGetUniformLocation(prog, u);
        if (loc >= 0) glUniform1i(loc, i);
    }
    GLint cl = glGetUniformLocation(prog, "u_coef_src");
    if (cl >= 0) glUniform1i(cl, TEXLA__COEF_UNIT);
    p->id = prog;
    p->u_i0 = glGetUniformLocation(prog, "u_i0");
    p->u_i1 = glGetUniformLocation(prog, "u_i1");
    p->u_i2 = glGetUniformLocation(prog, "u_i2");
    p->u_i3 = glGetUniformLocation(prog, "u_i3");
    p->u_coef = glGetUniformLocation(prog, "u_coef");
    p->u_f0 = glGetUniformLocation(prog, "u_f0");
    p->u_f1 = glGetUniformLocation(prog, "u_f1");
    p->u_shape = glGetUniformLocation(prog, "u_shape");
    p->u_rect = glGetUniformLocation(prog, "u_rect");
    p->u_blend = glGetUniformLocation(prog, "u_blend");
    p->u_blend_scale = glGetUniformLocation(prog, "u_blend_scale");
    g->stats.programs++;
    return TEXLA_OK;
}

static texla_result build(texla__gl *g, texla__prog_id id, int backend, const char *main_file,
                          const char *defines, texla__prog *p) {
    GLuint a = 0, b = 0;
    texla_result r;
    const char *file = registry[id].file;
    if (registry[id].form == TEXLA__FORM_KERNEL) {
        r = compile(g, GL_COMPUTE_SHADER, file, NULL, defines, 0, &a);
    } else if (backend == TEXLA_BACKEND_COMPUTE) {
        r = compile(g, GL_COMPUTE_SHADER, file, main_file, defines, 0, &a);
    } else {
        int points = registry[id].form == TEXLA__FORM_POINTS;
        r = compile(g, GL_VERTEX_SHADER, points ? TEXLA__POINTS_VERT : QUAD_VERT, NULL, NULL, 0, &a);
        if (!r)
            r = compile(g, GL_FRAGMENT_SHADER, file, points ? NULL : main_file, defines, 0, &b);
        if (r && a) glDeleteShader(a);
    }
    return r ? r : link(g, id, a, b, p);
}

texla_result texla__prog_get(texla__gl *g, texla__prog_id id, int backend, const char *main_file,
                             const char *defines, texla__prog **out) {
    for (texla__prog **pp = &g->progs[id]; *pp; pp = &(*pp)->next) {
        texla__prog *p = *pp;
        if (p->backend != backend ||
            !(p->defines ? defines && !strcmp(p->defines, defines) : !defines))
            continue;
        if (p->pending) { /* prefetched: waited for now; a failure is built again, for its log */
            GLuint s = p->pending;
            GLint ok = 0;
            glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
            glDeleteShader(s);
            p->pending = 0;
            GLint linked = 0;
            if (ok) glGetProgramiv(p->id, GL_LINK_STATUS, &linked);
            if (!linked) {
                glDeleteProgram(p->id);
                *pp = p->next;
                free(p->defines);
                free(p);
                break;
            }
            texla_result r = link_finish(g, id, p->id, 0, p); /* linked: its uniforms */
            if (r) return r;
        }
        *out = p;
        return TEXLA_OK;
    }
    texla__prog *p = calloc(1, sizeof *p);
    char *d = defines ? malloc(strlen(defines) + 1) : NULL;
    if (!p || (defines && !d)) {
        free(p), free(d);
        return texla__glfail(g, TEXLA_ERR_MEMORY, "out of host memory for a program");
    }
    if (d) strcpy(d, defines);
    texla_result r = build(g, id, backend, main_file, defines, p);
    if (r) {
        free(p), free(d);
        return r;
    }
    p->backend = backend;
    p->defines = d;
    p->next = g->progs[id];
    g->progs[id] = p;
    *out = p;
    return TEXLA_OK;
}

void texla__prog_prefetch(texla__gl *g, texla__prog_id id, int backend, const char *defines) {
    /* not with a glsl_dir override: a file that cannot be read would be reported here and
     * again when the pass builds it (embedded sources do not fail) */
    if (registry[id].form != TEXLA__FORM_KERNEL || !g->caps.parallel_compile || g->glsl_dir)
        return;
    for (texla__prog *p = g->progs[id]; p; p = p->next)
        if (p->backend == backend && (p->defines ? defines && !strcmp(p->defines, defines)
                                                 : !defines))
            return;
    texla__prog *p = calloc(1, sizeof *p);
    char *d = defines ? malloc(strlen(defines) + 1) : NULL;
    GLuint a = 0;
    if (!p || (defines && !d) ||
        compile(g, GL_COMPUTE_SHADER, registry[id].file, NULL, defines, 1, &a)) {
        free(p), free(d);
        return; /* not worth an error: the pass builds it when it runs */
    }
    if (d) strcpy(d, defines);
    p->id = link_start(a, 0);
    p->pending = a;
    p->backend = backend;
    p->defines = d;
    p->next = g->progs[id];
    g->progs[id] = p;
}

void texla__progs_destroy(texla__gl *g) {
    for (int i = 0; i < TEXLA__P_COUNT; i++) {
        texla__prog *p = g->progs[i];
        while (p) {
            texla__prog *next = p->next;
            if (p->pending && !g->lost) glDeleteShader(p->pending);
            if (!g->lost) glDeleteProgram(p->id);
            free(p->defines);
            free(p);
            p = next;
        }
        g->progs[i] = NULL;
    }
}
