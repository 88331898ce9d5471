/* texla-demo: multiplies two matrices on the GPU, checks the result against the CPU and
 * prints both. Usage: texla-demo [N K M]   (default 5 7 3) */
#include "texla.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void print_mat(const char *title, const float *m, int rows, int cols) {
    printf("%s (%d x %d):\n", title, rows, cols);
    for (int i = 0; i < rows && i < 8; i++) {
        for (int j = 0; j < cols && j < 8; j++) printf(" %9.4f", m[i * cols + j]);
        printf("%s\n", cols > 8 ? " ..." : "");
    }
    if (rows > 8) printf("  ...\n");
}

int main(int argc, char **argv) {
    int n = argc > 3 ? atoi(argv[1]) : 5, k = argc > 3 ? atoi(argv[2]) : 7,
        m = argc > 3 ? atoi(argv[3]) : 3;
    if (n < 1 || k < 1 || m < 1) {
        fprintf(stderr, "usage: %s [N K M]  (all >= 1)\n", argv[0]);
        return 2;
    }
    /* Init */
    texla_ctx *ctx;
    if (texla_ctx_make(NULL, &ctx)) {
        fprintf(stderr, "texla-demo: %s\n", texla_error_message(NULL));
        return 1;
    }
    texla_info info;
    texla_ctx_info(ctx, &info);
    printf("texla %s on %s (%s), OpenGL %d.%d via %s\n", TEXLA_VERSION_STRING, info.renderer,
           info.vendor, info.gl_major, info.gl_minor, info.platform);
    float *a = malloc(sizeof *a * (size_t)n * k), *b = malloc(sizeof *b * (size_t)k * m);
    float *c = malloc(sizeof *c * (size_t)n * m);
    double *ref = malloc(sizeof *ref * (size_t)n * m);
    if (!a || !b || !c || !ref) return 1;
    for (int i = 0; i < n * k; i++) a[i] = (float)((i * 37 % 23) - 11) / 8.0f;
    for (int i = 0; i < k * m; i++) b[i] = (float)((i * 53 % 19) - 9) / 4.0f;

    /* Update: C = A * B on the GPU */
    texla_mat A, B, C;
    int rc = texla_mat_make(ctx, n, k, a, &A) || texla_mat_make(ctx, k, m, b, &B) ||
             texla_mat_make(ctx, n, m, NULL, &C) || texla_mat_matmul(ctx, A, B, C) ||
             texla_mat_read(ctx, C, c);
    if (rc) {
        fprintf(stderr, "texla-demo: %s\n", texla_error_message(ctx));
        return 1;
    }
    /* the same on the CPU in double */
    double err = 0, nrm = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            double s = 0;
            for (int t = 0; t < k; t++) s += (double)a[i * k + t] * b[t * m + j];
            ref[i * m + j] = s;
            err += (c[i * m + j] - s) * (c[i * m + j] - s);
            nrm += s * s;
        }

    /* Draw: print */
    print_mat("A", a, n, k);
    print_mat("B", b, k, m);
    print_mat("C = A * B computed on the GPU", c, n, m);
    for (int i = 0; i < n * m; i++) c[i] = (float)ref[i];
    print_mat("C computed on the CPU (double)", c, n, m);
    double rel = nrm > 0 ? sqrt(err / nrm) : sqrt(err);
    printf("relative error ||C_gpu - C_cpu|| / ||C_cpu|| = %.3g -> %s\n", rel,
           rel < 1e-6 ? "match" : "MISMATCH");

    /* Shutdown */
    texla_ctx_destroy(ctx);
    free(a), free(b), free(c), free(ref);
    return rel < 1e-6 ? 0 : 1;
}
