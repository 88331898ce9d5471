/* fuzz_mm.c - libFuzzer harness for the Matrix Market reader (texla_mm_read). Besides "no
 * crash, no leak, no undefined behaviour", it checks what a successful read promises: indices
 * inside the shape, finite values, and that writing the result and reading it back gives the
 * same matrix bit for bit (the writer's %.9g reads back exactly). */
#include "fuzz.h"

#include <math.h>
#include <strings.h>

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    fuzz_scratch();
    return 0;
}

/* the banner names a field this harness does not round-trip (complex: two values an entry) */
static int other_field(const uint8_t *data, size_t size) {
    char line[256];
    size_t n = 0;
    while (n < size && n < sizeof line - 1 && data[n] != '\n') line[n] = (char)data[n], n++;
    line[n] = '\0';
    for (char *p = line; *p; p++)
        if (!strncasecmp(p, "complex", 7)) return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_file("in.mtx", data, size);
    texla_mm m;
    if (texla_mm_read(NULL, path, &m) != TEXLA_OK) {
        FUZZ_ASSERT(texla_error_message(NULL)[0] != '\0', "a failed read without a message");
        return 0;
    }
    FUZZ_ASSERT(m.rows >= 0 && m.cols >= 0, "shape %d x %d", m.rows, m.cols);
    if (m.coordinate) {
        FUZZ_ASSERT(m.nnz >= 0 && m.row && m.col && m.val, "nnz %d", m.nnz);
        for (int k = 0; k < m.nnz; k++) {
            FUZZ_ASSERT(m.row[k] >= 0 && m.row[k] < m.rows && m.col[k] >= 0 && m.col[k] < m.cols,
                        "entry %d at (%d, %d) of %d x %d", k, m.row[k], m.col[k], m.rows, m.cols);
            FUZZ_ASSERT(isfinite(m.val[k]), "entry %d is %g", k, (double)m.val[k]);
        }
    } else {
        FUZZ_ASSERT(m.dense != NULL, "no dense data");
        for (size_t i = 0, n = (size_t)m.rows * (size_t)m.cols; i < n; i++)
            FUZZ_ASSERT(isfinite(m.dense[i]), "element %zu is %g", i, (double)m.dense[i]);
    }
    if (!other_field(data, size)) {
        const char *out = fuzz_path("out.mtx");
        texla_result w = m.coordinate
                             ? texla_mm_write_coord(NULL, out, m.rows, m.cols, m.nnz, m.row, m.col,
                                                    m.val)
                             : texla_mm_write_array(NULL, out, m.rows, m.cols, m.dense);
        FUZZ_ASSERT(w == TEXLA_OK, "writing what was read: %s", texla_error_message(NULL));
        texla_mm b;
        FUZZ_ASSERT(texla_mm_read(NULL, out, &b) == TEXLA_OK, "reading back: %s",
                    texla_error_message(NULL));
        FUZZ_ASSERT(b.rows == m.rows && b.cols == m.cols && b.coordinate == m.coordinate &&
                        b.nnz == m.nnz,
                    "read back as %d x %d (%d entries), was %d x %d (%d)", b.rows, b.cols, b.nnz,
                    m.rows, m.cols, m.nnz);
        if (m.coordinate)
            for (int k = 0; k < m.nnz; k++)
                FUZZ_ASSERT(b.row[k] == m.row[k] && b.col[k] == m.col[k] &&
                                memcmp(&b.val[k], &m.val[k], sizeof(float)) == 0,
                            "entry %d differs after a round trip", k);
        else
            FUZZ_ASSERT(memcmp(b.dense, m.dense,
                               sizeof(float) * (size_t)m.rows * (size_t)m.cols) == 0,
                        "the array differs after a round trip");
        texla_mm_free(&b);
    }
    texla_mm_free(&m);
    return 0;
}
