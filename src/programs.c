/* programs.c - the program cache. Each operation is one file of glsl/ defining
 * vec4 texla_op(ivec2 texel); it is compiled as the fragment stage of a program (with the shared
 * vertex shader and glsl/common/frag_main.glsl) and, for the second backend, as a compute shader
 * (with glsl/common/comp_main.glsl). Sources are embedded at build time. The library prepends
 * the #version line; glsl/common/texla.glsl, the file and the main are separate source strings
 * with #line directives, so the driver's line numbers match the files: source 1 is the common
 * file, source 2 the operation, source 3 the main. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *vert, *frag;
    int own_main; /* a fragment shader with its own main and inputs: no compute version */
} prog_files[TEXLA__P_COUNT] = {
    [TEXLA__P_FILL] = {"quad.vert", "fill.frag"},
    [TEXLA__P_IDENTITY] = {"quad.vert", "identity.frag"},
    [TEXLA__P_COPY] = {"quad.vert", "copy.frag"},
    [TEXLA__P_SCALE] = {"quad.vert", "scale.frag"},
    [TEXLA__P_AXPBY] = {"quad.vert", "axpby.frag"},
    [TEXLA__P_MUL] = {"quad.vert", "mul.frag"},
    [TEXLA__P_MADAD] = {"quad.vert", "madad.frag"},
    [TEXLA__P_MAX] = {"quad.vert", "max.frag"},
    [TEXLA__P_MATMUL] = {"quad.vert", "matmul.frag"},
    [TEXLA__P_MATMUL_TN] = {"quad.vert", "matmul_tn.frag"},
    [TEXLA__P_MATMUL_NT] = {"quad.vert", "matmul_nt.frag"},
    [TEXLA__P_CLAMP] = {"quad.vert", "clamp.frag"},
    [TEXLA__P_RECIP] = {"quad.vert", "recip.frag"},
    [TEXLA__P_DIAG] = {"quad.vert", "diag.frag"},
    [TEXLA__P_VEC_TO_DENSE] = {"quad.vert", "vec_to_dense.frag"},
    [TEXLA__P_DENSE_TO_VEC] = {"quad.vert", "dense_to_vec.frag"},
    [TEXLA__P_REDUCE] = {"quad.vert", "reduce.frag"},
    [TEXLA__P_SCALAR] = {"quad.vert", "scalar.frag"},
    [TEXLA__P_BANDED] = {"quad.vert", "banded.frag"},
    [TEXLA__P_SPARSE] = {"sparse.vert", "sparse.frag", 1},
    [TEXLA__P_SPLAT] = {"quad.vert", "splat.frag"},
    [TEXLA__P_LCP_PROJECT] = {"quad.vert", "lcp_project.frag"},
};

#define COMMON_FILE "common/texla.glsl"
#define FRAG_MAIN "common/frag_main.glsl"
#define COMP_MAIN "common/comp_main.glsl"

/* Returns the source of a glsl/ file: embedded, or read from desc.glsl_dir (malloc'd, *owned
 * set) when that development override is given. */
static texla_result source_of(texla_ctx *ctx, const char *name, const char **src, int *owned) {
    *owned = 0;
    if (ctx->desc.glsl_dir) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", ctx->desc.glsl_dir, name);
        FILE *f = fopen(path, "rb");
        if (!f) return texla__fail(ctx, TEXLA_ERR_IO, "shader %s: cannot open %s", name, path);
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
        size_t got = buf ? fread(buf, 1, (size_t)n, f) : 0;
        fclose(f);
        if (!buf || got != (size_t)n) {
            free(buf);
            return texla__fail(ctx, TEXLA_ERR_IO, "shader %s: cannot read %s", name, path);
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
    return texla__fail(ctx, TEXLA_ERR_SHADER, "shader %s is not embedded in this build", name);
}

/* Compiles glsl/NAME as a shader of the given type: #version, the common file, NAME, and for
 * operations the stage's main (main_file, or NULL when NAME has its own). */
static texla_result compile(texla_ctx *ctx, GLenum type, const char *name, const char *main_file,
                            GLuint *out) {
    const char *src[3] = {NULL, NULL, NULL};
    int own[3] = {0, 0, 0};
    const char *files[3] = {COMMON_FILE, name, main_file};
    texla_result r = TEXLA_OK;
    for (int i = 0; i < 3 && !r; i++)
        if (files[i]) r = source_of(ctx, files[i], &src[i], &own[i]);
    if (!r) {
        const char *strs[7] = {type == GL_COMPUTE_SHADER ? "#version 430 core\n" : "#version 330 core\n",
                               "#line 1 1\n", src[0], "#line 1 2\n", src[1], "#line 1 3\n",
                               src[2] ? src[2] : ""};
        GLuint s = glCreateShader(type);
        glShaderSource(s, 7, strs, NULL);
        glCompileShader(s);
        GLint ok = 0;
        glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
        if (!ok) {
            char log[3000] = "";
            glGetShaderInfoLog(s, sizeof log, NULL, log);
            glDeleteShader(s);
            r = texla__fail(ctx, TEXLA_ERR_SHADER,
                            "glsl/%s failed to compile as a %s shader (source 1 = glsl/" COMMON_FILE
                            ", source 2 = glsl/%s, source 3 = %s%s):\n%s",
                            name, type == GL_COMPUTE_SHADER ? "compute" : type == GL_VERTEX_SHADER ?
                            "vertex" : "fragment", name, main_file ? "glsl/" : "none",
                            main_file ? main_file : "", log);
        } else {
            *out = s;
        }
    }
    for (int i = 0; i < 3; i++)
        if (own[i]) free((void *)src[i]);
    return r;
}

/* Links shaders into a program and finds its uniforms. */
static texla_result link(texla_ctx *ctx, texla__prog_id id, GLuint a, GLuint b, texla__prog *p) {
    GLuint prog = glCreateProgram();
    glAttachShader(prog, a);
    if (b) glAttachShader(prog, b);
    if (b) glBindFragDataLocation(prog, 0, "o");
    glLinkProgram(prog);
    glDeleteShader(a);
    if (b) glDeleteShader(b);
    GLint ok = 0;
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[3000] = "";
        glGetProgramInfoLog(prog, sizeof log, NULL, log);
        glDeleteProgram(prog);
        return texla__fail(ctx, TEXLA_ERR_SHADER, "glsl/%s (%s) failed to link:\n%s",
                           prog_files[id].frag, b ? "fragment program" : "compute", log);
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
    ctx->cur_prog = prog;
    p->id = prog;
    p->u_i0 = glGetUniformLocation(prog, "u_i0");
    p->u_i1 = glGetUniformLocation(prog, "u_i1");
    p->u_i2 = glGetUniformLocation(prog, "u_i2");
    p->u_coef = glGetUniformLocation(prog, "u_coef");
    p->u_f0 = glGetUniformLocation(prog, "u_f0");
    p->u_f1 = glGetUniformLocation(prog, "u_f1");
    p->u_shape = glGetUniformLocation(prog, "u_shape");
    p->u_rect = glGetUniformLocation(prog, "u_rect");
    p->u_blend = glGetUniformLocation(prog, "u_blend");
    p->u_blend_scale = glGetUniformLocation(prog, "u_blend_scale");
    ctx->stats.programs++;
    return TEXLA_OK;
}

static texla_result build(texla_ctx *ctx, texla__prog_id id, int compute, texla__prog *p) {
    GLuint a = 0, b = 0;
    texla_result r;
    if (compute) {
        r = compile(ctx, GL_COMPUTE_SHADER, prog_files[id].frag, COMP_MAIN, &a);
    } else {
        r = compile(ctx, GL_VERTEX_SHADER, prog_files[id].vert, NULL, &a);
        if (!r)
            r = compile(ctx, GL_FRAGMENT_SHADER, prog_files[id].frag,
                        prog_files[id].own_main ? NULL : FRAG_MAIN, &b);
        if (r && a) glDeleteShader(a);
    }
    return r ? r : link(ctx, id, a, b, p);
}

int texla__prog_has_compute(texla__prog_id id) { return !prog_files[id].own_main; }

const char *texla__prog_name(texla__prog_id id) { return prog_files[id].frag; }

texla_result texla__prog_get(texla_ctx *ctx, texla__prog_id id, int compute, texla__prog **out) {
    texla__prog *p = compute ? &ctx->cprogs[id] : &ctx->progs[id];
    if (!p->id) {
        texla_result r = build(ctx, id, compute, p);
        if (r) return r;
    }
    *out = p;
    return TEXLA_OK;
}

void texla__progs_destroy(texla_ctx *ctx) {
    for (int i = 0; i < TEXLA__P_COUNT; i++) {
        if (ctx->progs[i].id) glDeleteProgram(ctx->progs[i].id);
        if (ctx->cprogs[i].id) glDeleteProgram(ctx->cprogs[i].id);
    }
    memset(ctx->progs, 0, sizeof ctx->progs);
    memset(ctx->cprogs, 0, sizeof ctx->cprogs);
}
