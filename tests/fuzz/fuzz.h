/* fuzz.h - what texla's libFuzzer harnesses share (tests/fuzz/, built by `make fuzz`): a
 * private scratch folder on tmpfs where each input is written as a file (texla's readers take
 * paths), removed when the process ends, and a headless texla context made once per process
 * (making one costs ~0.5 s, far more than an input). Header-only: each harness is one file. */
#ifndef TEXLA_FUZZ_H
#define TEXLA_FUZZ_H

#include "texla.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static char fuzz_dir[256];

static inline void fuzz_cleanup(void) {
    DIR *d = opendir(fuzz_dir);
    if (d) {
        struct dirent *e;
        char p[512];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(p, sizeof p, "%s/%s", fuzz_dir, e->d_name);
                unlink(p);
            }
        closedir(d);
    }
    rmdir(fuzz_dir);
}

/* the scratch folder (made on first use; the process ends when it cannot be made) */
static inline const char *fuzz_scratch(void) {
    if (fuzz_dir[0]) return fuzz_dir;
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(fuzz_dir, sizeof fuzz_dir, "%s/texla-fuzz-XXXXXX", base);
    if (!mkdtemp(fuzz_dir)) {
        perror("texla fuzz: mkdtemp");
        exit(2);
    }
    atexit(fuzz_cleanup);
    return fuzz_dir;
}

/* scratch/name, in a static buffer */
static inline const char *fuzz_path(const char *name) {
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", fuzz_scratch(), name);
    return p;
}

/* writes data to scratch/name and returns its path */
static inline const char *fuzz_file(const char *name, const uint8_t *data, size_t size) {
    const char *p = fuzz_path(name);
    FILE *f = fopen(p, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror("texla fuzz: writing the input");
        exit(2);
    }
    return p;
}

/* a headless context for the whole process (desc may be NULL) */
static inline texla_ctx *fuzz_ctx(const texla_ctx_desc *desc) {
    static texla_ctx *ctx;
    if (!ctx && texla_ctx_make(desc, &ctx)) {
        fprintf(stderr, "texla fuzz: no GL context: %s\n", texla_error_message(NULL));
        exit(2);
    }
    return ctx;
}

/* a property the harness checks failed: abort, so libFuzzer keeps the input */
#define FUZZ_ASSERT(cond, ...)                                                                 \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "texla fuzz: %s:%d: %s: ", __FILE__, __LINE__, #cond);            \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
            abort();                                                                           \
        }                                                                                      \
    } while (0)

#endif
