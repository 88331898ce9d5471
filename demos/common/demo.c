/* demo.c - see demo.h. */
#include <glad/egl.h>

#include "demo.h"

#include <errno.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char *frame_target(const char *who, const char *path, mode_t *mode);

int demo_open(const char *who, int headless, int w, int h, int stencil, int frames,
              texla_backend backend, const char **png, const char *default_png, GLFWwindow **win,
              texla_ctx **ctx) {
    *win = NULL;
    *ctx = NULL;
    if (!headless) {
        if (!glfwInit()) {
            if (!*png) *png = default_png;
            printf("%s: no display available; running headless (%d frames, writing %s)\n", who,
                   frames, *png);
        } else {
            glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
            glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
            glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
            glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
            if (stencil) glfwWindowHint(GLFW_STENCIL_BITS, 8);
            *win = glfwCreateWindow(w, h, who, NULL, NULL);
            if (!*win) {
                if (!*png) *png = default_png;
                printf("%s: no window could be opened; running headless (%d frames, writing "
                       "%s)\n", who, frames, *png);
                glfwTerminate();
            }
        }
    }
    if (*png) { /* a frame path that will be refused is said now, not after the run */
        mode_t mode;
        char *t = frame_target(who, *png, &mode);
        if (!t) {
            if (*win) glfwDestroyWindow(*win), glfwTerminate(), *win = NULL;
            return -1;
        }
        free(t);
    }
    if (*win) {
        glfwMakeContextCurrent(*win);
        glfwSwapInterval(0);
        if (!gladLoadGL((GLADloadfunc)glfwGetProcAddress)) {
            fprintf(stderr, "%s: cannot load OpenGL\n", who);
            return -1;
        }
        texla_ctx_desc d = {.host_getproc = (texla_getproc_fn)glfwGetProcAddress,
                            .backend = backend};
        if (texla_ctx_make(&d, ctx)) {
            fprintf(stderr, "%s: %s\n", who, texla_error_message(NULL));
            return -1;
        }
        return 0;
    }
    texla_ctx_desc d = {.backend = backend};
    if (texla_ctx_make(&d, ctx)) {
        fprintf(stderr, "%s: %s\n", who, texla_error_message(NULL));
        return -1;
    }
    /* draw with our own GL entry points in texla's (current) EGL context */
    if (!gladLoaderLoadEGL(NULL) || !gladLoadGL((GLADloadfunc)eglGetProcAddress)) {
        fprintf(stderr, "%s: cannot load OpenGL through EGL\n", who);
        return -1;
    }
    return 0;
}

void demo_close(GLFWwindow *win, texla_ctx *ctx) {
    texla_ctx_destroy(ctx);
    if (win) {
        glfwDestroyWindow(win);
        glfwTerminate();
    }
}

double demo_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int demo_cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static GLuint compile(const char *who, GLenum type, const char *src) {
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[4096];
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        fprintf(stderr, "%s: shader: %s\n", who, log);
    }
    return s;
}

GLuint demo_program(const char *who, const char *vs_src, const char *fs_src) {
    GLuint vs = compile(who, GL_VERTEX_SHADER, vs_src), fs = compile(who, GL_FRAGMENT_SHADER, fs_src);
    GLuint p = glCreateProgram();
    glAttachShader(p, vs);
    glAttachShader(p, fs);
    glLinkProgram(p);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[4096];
        glGetProgramInfoLog(p, sizeof log, NULL, log);
        fprintf(stderr, "%s: link: %s\n", who, log);
        glDeleteProgram(p);
        return 0;
    }
    return p;
}

int demo_offscreen(int w, int h, GLuint *fbo, GLuint *color, GLuint *depth) {
    glGenFramebuffers(1, fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, *fbo);
    glGenRenderbuffers(1, color);
    glBindRenderbuffer(GL_RENDERBUFFER, *color);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, *color);
    glGenRenderbuffers(1, depth);
    glBindRenderbuffer(GL_RENDERBUFFER, *depth);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH24_STENCIL8, w, h);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER, *depth);
    int ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    return ok ? 0 : -1;
}

void demo_offscreen_free(GLuint *fbo, GLuint *color, GLuint *depth) {
    if (*fbo) glDeleteFramebuffers(1, fbo);
    GLuint rb[2] = {*color, *depth};
    glDeleteRenderbuffers(2, rb);
    *fbo = *color = *depth = 0;
}

/* Where a frame for PATH goes, with the library's writers' rule (src/base/afile.c): a regular
 * file or nothing: PATH; a symbolic link: the file it leads to (up to 40 links, relative ones
 * from their own folder), the link kept; a directory, FIFO, socket or device: refused, so
 * `--png /dev/null` as root cannot replace the system's node and a FIFO is not opened to block.
 * *mode: the replaced file's permissions (0644 for a new one). Returns the target (malloc'ed)
 * or NULL with a message. */
static char *frame_target(const char *who, const char *path, mode_t *mode) {
    char *cur = strdup(path);
    *mode = 0644;
    for (int hops = 0; cur; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0) {
            if (errno == ENOENT) return cur; /* a new file (a dangling link gets its target) */
            fprintf(stderr, "%s: cannot write %s: %s\n", who, path, strerror(errno));
            break;
        }
        if (S_ISREG(st.st_mode)) {
            *mode = st.st_mode & 07777;
            return cur;
        }
        if (!S_ISLNK(st.st_mode)) {
            const char *kind = S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO"
                               : S_ISSOCK(st.st_mode) ? "a socket" : S_ISCHR(st.st_mode)
                               ? "a character device" : S_ISBLK(st.st_mode) ? "a block device"
                               : "not a regular file";
            fprintf(stderr, "%s: cannot write %s: %s%s%s is %s; not replaced\n", who, path,
                    strcmp(cur, path) ? "its target " : "", strcmp(cur, path) ? cur : "",
                    strcmp(cur, path) ? "" : "it", kind);
            break;
        }
        if (hops >= 40) {
            fprintf(stderr, "%s: cannot write %s: more than 40 symbolic links\n", who, path);
            break;
        }
        char link[4096];
        ssize_t k = readlink(cur, link, sizeof link - 1);
        if (k < 0 || k >= (ssize_t)sizeof link - 1) {
            fprintf(stderr, "%s: cannot write %s: reading the link %s failed\n", who, path, cur);
            break;
        }
        link[k] = '\0';
        char *next;
        const char *slash = strrchr(cur, '/');
        if (link[0] == '/' || !slash) {
            next = strdup(link);
        } else { /* relative: from the link's own folder */
            size_t dl = (size_t)(slash - cur) + 1, n = dl + (size_t)k + 1;
            next = malloc(n);
            if (next) memcpy(next, cur, dl), memcpy(next + dl, link, (size_t)k + 1);
        }
        free(cur);
        cur = next;
    }
    if (!cur) fprintf(stderr, "%s: cannot write %s: out of memory\n", who, path);
    free(cur);
    return NULL;
}

/* the w x h RGBA rows of px (bottom row first, as GL reads them) as a PNG into f; 1 on success */
static int write_rgba(FILE *f, const unsigned char *px, int w, int h) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    int ok = png && info;
    if (ok && setjmp(png_jmpbuf(png))) ok = 0;
    else if (ok) {
        png_init_io(png, f);
        png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGBA,
                     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        png_write_info(png, info);
        for (int y = h - 1; y >= 0; y--) png_write_row(png, px + (size_t)y * w * 4); /* top first */
        png_write_end(png, NULL);
    }
    png_destroy_write_struct(&png, &info);
    return ok;
}

int demo_write_png(const char *who, GLuint fbo, int w, int h, const char *path) {
    mode_t mode;
    char *target = frame_target(who, path, &mode);
    if (!target) return -1;
    unsigned char *px = malloc((size_t)w * h * 4);
    if (!px) {
        free(target);
        return -1;
    }
    glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
    if (!fbo) glReadBuffer(GL_BACK); /* the window: the frame not yet swapped */
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    /* a temporary file beside the target, renamed over it once complete */
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmpXXXXXX", target);
    int fd = mkstemp(tmp);
    if (fd >= 0) fchmod(fd, mode); /* mkstemp makes 0600; keep the replaced file's mode */
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f) {
        fprintf(stderr, "%s: cannot write %s: %s\n", who, path, strerror(errno));
        if (fd >= 0) close(fd), unlink(tmp);
        free(px), free(target);
        return -1;
    }
    int ok = write_rgba(f, px, w, h) && fflush(f) == 0 && fsync(fileno(f)) == 0;
    ok = (fclose(f) == 0) && ok;
    free(px);
    if (!ok || rename(tmp, target) != 0) {
        fprintf(stderr, "%s: cannot write %s: %s\n", who, path, strerror(errno));
        unlink(tmp);
        free(target);
        return -1;
    }
    free(target);
    return 0;
}

void demo_v3_norm(float v[3]) {
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int i = 0; i < 3; i++) v[i] /= l;
}

void demo_v3_cross(const float a[3], const float b[3], float out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

void demo_look(const float eye[3], float fwd[3], float fovy, float aspect, float zn, float zf,
               float right[3], float up[3], float vp[16]) {
    demo_v3_norm(fwd);
    const float wup[3] = {0, 1, 0};
    demo_v3_cross(fwd, wup, right);
    demo_v3_norm(right);
    demo_v3_cross(right, fwd, up);
    float f = 1.0f / tanf(fovy / 2);
    float view[16] = {right[0], up[0], -fwd[0], 0, right[1], up[1], -fwd[1], 0,
                      right[2], up[2], -fwd[2], 0, 0, 0, 0, 1};
    for (int i = 0; i < 3; i++)
        view[12 + i] = -(view[i] * eye[0] + view[4 + i] * eye[1] + view[8 + i] * eye[2]);
    float proj[16] = {f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (zf + zn) / (zn - zf), -1,
                      0, 0, 2 * zf * zn / (zn - zf), 0};
    for (int col = 0; col < 4; col++)
        for (int r = 0; r < 4; r++) {
            float sum = 0;
            for (int k = 0; k < 4; k++) sum += proj[k * 4 + r] * view[col * 4 + k];
            vp[col * 4 + r] = sum;
        }
}

const char *demo_backend_name(texla_ctx *ctx) {
    texla_info info;
    if (texla_ctx_info(ctx, &info)) return "?";
    return info.backend == TEXLA_BACKEND_COMPUTE ? "compute" : "fragment";
}

void demo_keys_format(const demo_key *keys, int accent, int indent, char *buf, size_t size) {
    size_t w = 0, n = 0;
    for (const demo_key *k = keys; k->key; k++)
        if (strlen(k->key) > w) w = strlen(k->key);
    buf[0] = 0;
    for (const demo_key *k = keys; k->key && n < size; k++) {
        int r = snprintf(buf + n, size - n, "%*s%s%-*s%s  %s\n", indent, "", accent ? "\1" : "",
                         (int)w, k->key, accent ? "\2" : "", k->does);
        if (r < 0) break;
        n += (size_t)r;
    }
}

int demo_usage_hint(const char *who) {
    fprintf(stderr, "usage: %s [OPTION]...  (%s --help lists the options and keys)\n", who, who);
    return 2;
}

int demo_opt_int(const char *who, const char *opt, const char *v, int lo, int hi, int *out) {
    char *e;
    errno = 0;
    long x = strtol(v, &e, 10);
    if (e == v || *e || errno || x < lo || x > hi) {
        fprintf(stderr, "%s: --%s: '%s' is not an integer from %d to %d\n", who, opt, v, lo, hi);
        return -1;
    }
    *out = (int)x;
    return 0;
}

int demo_opt_float(const char *who, const char *opt, const char *v, float lo, int lo_open,
                   float hi, float *out) {
    char *e;
    double x = strtod(v, &e);
    if (e == v || *e || !isfinite(x) || (lo_open ? !(x > lo) : !(x >= lo)) || !(x <= hi)) {
        fprintf(stderr, "%s: --%s: '%s' is not a number %s %g and at most %g\n", who, opt, v,
                lo_open ? "above" : "of at least", lo, hi);
        return -1;
    }
    *out = (float)x;
    return 0;
}

int demo_opt_backend(const char *who, const char *v, texla_backend *out) {
    static const char *names[3] = {"auto", "fragment", "compute"};
    static const texla_backend values[3] = {TEXLA_BACKEND_AUTO, TEXLA_BACKEND_FRAGMENT,
                                            TEXLA_BACKEND_COMPUTE};
    for (int i = 0; i < 3; i++)
        if (!strcmp(v, names[i])) {
            *out = values[i];
            return 0;
        }
    fprintf(stderr, "%s: --backend: '%s' is not fragment, compute or auto\n", who, v);
    return -1;
}

void demo_progress(const char *who, int frame, int frames, double t_start, double *last) {
    static double every = -1;
    if (every < 0) { /* TEXLA_DEMO_PROGRESS_S: seconds between the lines (tests make it short) */
        const char *e = getenv("TEXLA_DEMO_PROGRESS_S");
        every = e && atof(e) > 0 ? atof(e) : 3.0;
    }
    double t = demo_now_s();
    if (t - *last < every || frame <= 0 || frame >= frames) return;
    *last = t;
    double fps = frame / (t - t_start), left = fps > 0 ? (frames - frame) / fps : 0;
    fprintf(stderr, "%s: frame %d/%d, %.1f fps, about %.0f s left\n", who, frame, frames, fps,
            left);
}
