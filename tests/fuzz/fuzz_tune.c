/* fuzz_tune.c - libFuzzer harness for the tuning cache's reader (core/tune.c) on a real
 * headless context whose desc.tune_cache names the file each input is written to. The seam:
 * texla__tune_free forgets what was read, so the next query reads the file again (through
 * the public texla_tune_count / texla_tune_entry, as an application would). Checked: every
 * entry the reader accepts has a non-empty key and value without tabs or line breaks, and
 * survives a write (texla__tune_put rewrites the file atomically) and a second read. */
#include "fuzz.h"

#include "core/core.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    texla_ctx_desc d = {0};
    static char path[512];
    snprintf(path, sizeof path, "%s", fuzz_path("tune.txt"));
    d.tune_cache = path;
    fuzz_ctx(&d);
    return 0;
}

static int clean(const char *s) {
    if (!*s) return 0;
    for (; *s; s++)
        if (*s == '\t' || *s == '\n' || *s == '\r') return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    texla_ctx *ctx = fuzz_ctx(NULL);
    texla__tune_free(ctx);
    fuzz_file("tune.txt", data, size);
    int n = texla_tune_count(ctx);
    FUZZ_ASSERT(n >= 0, "count %d", n);
    char **keys = calloc((size_t)n + 1, sizeof *keys), **vals = calloc((size_t)n + 1, sizeof *vals);
    if (!keys || !vals) return free(keys), free(vals), 0;
    for (int i = 0; i < n; i++) {
        const char *k, *v;
        FUZZ_ASSERT(texla_tune_entry(ctx, i, &k, &v) == TEXLA_OK, "entry %d of %d: %s", i, n,
                    texla_error_message(ctx));
        FUZZ_ASSERT(clean(k) && clean(v), "entry %d: key \"%s\" value \"%s\"", i, k, v);
        char got[4200];
        FUZZ_ASSERT(texla__tune_get(ctx, k, got, sizeof got) == 1, "key \"%s\" not found", k);
        keys[i] = strdup(k), vals[i] = strdup(v);
    }
    texla_result r = texla_tune_entry(ctx, n, &(const char *){0}, &(const char *){0});
    FUZZ_ASSERT(r == TEXLA_ERR_ARGUMENT, "entry %d of %d: %s", n, n, texla_result_name(r));
    /* a new entry makes the cache write itself; what was read must survive it (a file it
     * refused to trust is left alone and not written) */
    texla__tune_put(ctx, "fuzz 1 key", "value");
    texla__tune_free(ctx);
    int m = texla_tune_count(ctx);
    FUZZ_ASSERT(m >= n, "%d entries after a write, %d before", m, n);
    for (int i = 0; i < n; i++) {
        char got[4200];
        if (!keys[i]) continue;
        /* a duplicated key reads as its first entry, before and after */
        FUZZ_ASSERT(texla__tune_get(ctx, keys[i], got, sizeof got) == 1,
                    "key \"%s\" lost by a write", keys[i]);
        free(keys[i]), free(vals[i]);
    }
    free(keys), free(vals);
    return 0;
}
