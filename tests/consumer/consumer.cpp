// consumer.cpp - the C++ side of tests/test_install.sh: texla.h compiled as C++ (with
// -Wall -Wextra -Wpedantic -Werror), linked against an installed texla, one element-wise
// operation on the GPU checked exactly.
#include <texla.h>

#include <cstdio>
#include <vector>

int main() {
    const int n = 6, m = 9;
    std::vector<float> a(n * m), b(n * m), c(n * m);
    for (int i = 0; i < n * m; i++) {
        a[i] = static_cast<float>(i % 7 - 3);
        b[i] = static_cast<float>(i % 4);
    }
    texla_ctx *ctx = nullptr;
    texla_ctx_desc desc = {};
    if (texla_ctx_make(&desc, &ctx) != TEXLA_OK) {
        std::fprintf(stderr, "consumer++: %s\n", texla_error_message(nullptr));
        return 1;
    }
    texla_mat A, B, C;
    // C = A + 2 B
    if (texla_mat_make(ctx, n, m, a.data(), &A) || texla_mat_make(ctx, n, m, b.data(), &B) ||
        texla_mat_make(ctx, n, m, nullptr, &C) ||
        texla_mat_axpy(ctx, A, texla_host(2.0f), B, C) || texla_mat_read(ctx, C, c.data())) {
        std::fprintf(stderr, "consumer++: %s\n", texla_error_message(ctx));
        texla_ctx_destroy(ctx);
        return 1;
    }
    int bad = 0;
    for (int i = 0; i < n * m; i++)
        if (c[i] != a[i] + 2 * b[i]) bad++;
    texla_ctx_destroy(ctx);
    std::printf("consumer (C++): texla %s, %dx%d axpy %s\n", TEXLA_VERSION_STRING, n, m,
                bad ? "WRONG" : "exact");
    return bad ? 1 : 0;
}
