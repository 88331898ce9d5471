/* fuzz_png.c - libFuzzer harness for the PNG reader (texla_png_read) on a real headless
 * context. The chunks' CRCs are recomputed before the file is written (where the chunk
 * structure is intact), so mutations reach the decoders instead of stopping at a CRC error.
 * The context's budget is 2^20 pixels, so that inputs stay fast; the budget itself is checked:
 * a successful read never gives more pixels than it. A successful read must give a matrix of
 * the image's shape with finite values. */
#include "fuzz.h"

#include <math.h>

#define BUDGET (1 << 20)

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    texla_ctx_desc d = {0};
    d.png_max_pixels = BUDGET;
    d.tune_cache = "";
    fuzz_ctx(&d);
    fuzz_scratch();
    return 0;
}

static uint32_t crc_table[256];

static uint32_t crc32_of(const uint8_t *p, size_t n) {
    if (!crc_table[1])
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            crc_table[i] = c;
        }
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

/* every chunk that fits in the data gets the CRC of its type and data */
static void fix_crcs(uint8_t *d, size_t n) {
    size_t at = 8;
    while (at + 12 <= n) {
        uint32_t len = (uint32_t)d[at] << 24 | (uint32_t)d[at + 1] << 16 |
                       (uint32_t)d[at + 2] << 8 | d[at + 3];
        if (len > n - at - 12) break;
        uint32_t c = crc32_of(d + at + 4, 4 + (size_t)len);
        uint8_t *q = d + at + 8 + len;
        q[0] = (uint8_t)(c >> 24), q[1] = (uint8_t)(c >> 16), q[2] = (uint8_t)(c >> 8),
        q[3] = (uint8_t)c;
        at += 12 + (size_t)len;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    texla_ctx *ctx = fuzz_ctx(NULL);
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return 0;
    memcpy(copy, data, size);
    fix_crcs(copy, size);
    const char *path = fuzz_file("in.png", copy, size);
    free(copy);
    texla_mat m = {0};
    texla_result r = texla_png_read(ctx, path, &m);
    if (r != TEXLA_OK) {
        FUZZ_ASSERT(m.id == 0, "a failed read returned a handle");
        FUZZ_ASSERT(r != TEXLA_ERR_MEMORY, "out of memory within the budget: %s",
                    texla_error_message(ctx));
        return 0;
    }
    texla_mat_info mi;
    FUZZ_ASSERT(texla_mat_info_get(ctx, m, &mi) == TEXLA_OK, "%s", texla_error_message(ctx));
    FUZZ_ASSERT(mi.rows >= 1 && mi.cols >= 1 && (long long)mi.rows * mi.cols <= BUDGET,
                "%d x %d past the budget of %d pixels", mi.rows, mi.cols, BUDGET);
    float *v = malloc(sizeof *v * (size_t)mi.rows * (size_t)mi.cols);
    if (v) {
        FUZZ_ASSERT(texla_mat_read(ctx, m, v) == TEXLA_OK, "%s", texla_error_message(ctx));
        for (size_t i = 0, n = (size_t)mi.rows * (size_t)mi.cols; i < n; i++)
            FUZZ_ASSERT(isfinite(v[i]), "pixel %zu read as %g", i, (double)v[i]);
        free(v);
    }
    texla_mat_destroy(ctx, m);
    return 0;
}
