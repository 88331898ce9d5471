/* texla-host: texla inside an application's own window (host mode), in one page. The app makes
 * a GLFW window and loads GL itself; texla computes C = A B on that context every frame; the
 * app draws C's texture with its own shader. texla leaves the app's GL state as it found it.
 *   texla-host                     a window until Esc
 *   texla-host FRAMES SHOT.ppm     FRAMES frames, then the window's pixels to SHOT.ppm (tests) */
#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <texla.h>

enum { N = 128, K = 4 }; /* C (N x N) = A (N x K) B (K x N): K separable waves */

/* C's element (i, j) is texel (j, i / 4), channel i % 4 (texla's dense 4x1 packing) */
static const char *VS = "#version 330 core\nvoid main() {\n"
    "  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));\n"
    "  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);\n}\n";
static const char *FS = "#version 330 core\nuniform sampler2D u_c; uniform vec2 u_view; out vec4 o;\n"
    "void main() {\n  vec2 uv = gl_FragCoord.xy / u_view;\n"
    "  int i = int((1.0 - uv.y) * 128.0), j = int(uv.x * 128.0); /* row 0 at the top */\n"
    "  float v = texelFetch(u_c, ivec2(j, i / 4), 0)[i % 4];\n"
    "  o = vec4(0.5 + 0.5 * v, 0.3 + 0.3 * v * v, 0.5 - 0.5 * v, 1.0);\n}\n";

static GLuint shader(GLenum type, const char *src) {
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    return s;
}

int main(int argc, char **argv) {
    int frames = argc > 2 ? atoi(argv[1]) : -1;
    if (!glfwInit()) return fprintf(stderr, "texla-host: no display\n"), 1;
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    GLFWwindow *win = glfwCreateWindow(512, 512, "texla-host", NULL, NULL);
    if (!win) return fprintf(stderr, "texla-host: no GL 3.3 window\n"), 1;
    glfwMakeContextCurrent(win);
    gladLoadGL((GLADloadfunc)glfwGetProcAddress); /* the app's own GL loader */
    texla_ctx_desc desc = {.host_getproc = (texla_getproc_fn)glfwGetProcAddress};
    texla_ctx *ctx;
    if (texla_ctx_make(&desc, &ctx)) return fprintf(stderr, "%s\n", texla_error_message(NULL)), 1;
    static float a[N * K], b[K * N];
    for (int i = 0; i < N; i++)
        for (int k = 0; k < K; k++) a[i * K + k] = cosf(6.2831853f * (k + 1) * i / N) / K;
    texla_mat A, B, C;
    if (texla_mat_make(ctx, N, K, a, &A) || texla_mat_make(ctx, K, N, NULL, &B) ||
        texla_mat_make(ctx, N, N, NULL, &C))
        return fprintf(stderr, "%s\n", texla_error_message(ctx)), 1;
    texla_mat_info ci;
    texla_mat_info_get(ctx, C, &ci); /* ci.texture: the app samples it directly */
    GLuint prog = glCreateProgram(), vao;
    glAttachShader(prog, shader(GL_VERTEX_SHADER, VS));
    glAttachShader(prog, shader(GL_FRAGMENT_SHADER, FS));
    glLinkProgram(prog);
    glGenVertexArrays(1, &vao);
    for (int f = 0; frames < 0 ? !glfwWindowShouldClose(win) : f < frames; f++) {
        float t = 0.03f * f; /* B moves each wave along j: the picture drifts */
        for (int k = 0; k < K; k++)
            for (int j = 0; j < N; j++) b[k * N + j] = cosf(6.2831853f * (k + 1) * j / N + t * (k + 1));
        if (texla_mat_write(ctx, b, B) || texla_mat_matmul(ctx, A, B, C)) /* the GPU work */
            return fprintf(stderr, "%s\n", texla_error_message(ctx)), 1;
        int w, h;
        glfwGetFramebufferSize(win, &w, &h);
        glViewport(0, 0, w, h);
        glUseProgram(prog);
        glUniform2f(glGetUniformLocation(prog, "u_view"), (float)w, (float)h);
        glActiveTexture(GL_TEXTURE0);
        glBindTexture(GL_TEXTURE_2D, ci.texture);
        glBindVertexArray(vao);
        glDrawArrays(GL_TRIANGLES, 0, 3);
        if (frames > 0 && f == frames - 1) { /* the frame before the swap, top row first */
            unsigned char *px = malloc((size_t)w * h * 3);
            FILE *out = fopen(argv[2], "wb");
            glPixelStorei(GL_PACK_ALIGNMENT, 1);
            glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, px);
            if (!px || !out) return fprintf(stderr, "texla-host: cannot write %s\n", argv[2]), 1;
            fprintf(out, "P6\n%d %d\n255\n", w, h);
            for (int y = h - 1; y >= 0; y--) fwrite(px + (size_t)y * w * 3, 3, (size_t)w, out);
            fclose(out), free(px);
        }
        glfwSwapBuffers(win);
        glfwPollEvents();
        if (glfwGetKey(win, GLFW_KEY_ESCAPE) == GLFW_PRESS) glfwSetWindowShouldClose(win, 1);
    }
    texla_ctx_destroy(ctx); /* frees A, B, C; the app's GL objects are the app's */
    glDeleteProgram(prog), glDeleteVertexArrays(1, &vao);
    glfwTerminate();
    return 0;
}
