/* consumer.c - an application built against an installed texla (tests/test_install.sh): one
 * small product on the GPU, checked exactly (small integers are exact in float32).
 * It also defines symbols a host application's own glad would define: a library that exported
 * its glad would clash with them when linked statically, or (shared) have its GL calls bound to
 * these null pointers and crash. */
#include <texla.h>

#include <stdio.h>

void *glad_glClear, *glad_glUseProgram, *glad_glDrawArrays; /* the app's own (unloaded) glad */
int gladLoadGL(void *load) { (void)load; return 0; }

int main(void) {
    enum { N = 5, K = 7, M = 3 };
    float a[N * K], b[K * M], c[N * M];
    for (int i = 0; i < N; i++)
        for (int k = 0; k < K; k++) a[i * K + k] = (float)(i + k - 3);
    for (int k = 0; k < K; k++)
        for (int j = 0; j < M; j++) b[k * M + j] = (float)((k * j) % 5 - 2);
    texla_ctx *ctx;
    if (texla_ctx_make(NULL, &ctx)) {
        fprintf(stderr, "consumer: %s\n", texla_error_message(NULL));
        return 1;
    }
    texla_mat A, B, C;
    if (texla_mat_make(ctx, N, K, a, &A) || texla_mat_make(ctx, K, M, b, &B) ||
        texla_mat_make(ctx, N, M, NULL, &C) || texla_mat_matmul(ctx, A, B, C) ||
        texla_mat_read(ctx, C, c)) {
        fprintf(stderr, "consumer: %s\n", texla_error_message(ctx));
        texla_ctx_destroy(ctx);
        return 1;
    }
    int bad = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) {
            float want = 0;
            for (int k = 0; k < K; k++) want += a[i * K + k] * b[k * M + j];
            if (c[i * M + j] != want) {
                if (!bad) fprintf(stderr, "consumer: C(%d, %d) = %g, want %g\n", i, j, c[i * M + j], want);
                bad++;
            }
        }
    texla_ctx_destroy(ctx);
    printf("consumer (C): texla %s, %dx%d product %s\n", TEXLA_VERSION_STRING, N, M,
           bad ? "WRONG" : "exact");
    return bad ? 1 : 0;
}
