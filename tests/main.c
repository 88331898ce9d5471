/* test-texla: headless tests. Usage: test-texla [SUITE...]  (dense errors state vec banded mm
 * solvers png wave cubes handles files; default all). test-texla --probe ...: one call measured
 * in a process of its own (tests/probe.h). */
#include "suites.h"
#include "probe.h"

#include <stdlib.h>
#include <string.h>

/* TEXLA_TEST_BACKEND=fragment|compute runs the suites on one backend (default: AUTO) */
texla_backend suite_backend(void) {
    const char *b = getenv("TEXLA_TEST_BACKEND");
    if (b && !strcmp(b, "compute")) return TEXLA_BACKEND_COMPUTE;
    if (b && !strcmp(b, "fragment")) return TEXLA_BACKEND_FRAGMENT;
    return TEXLA_BACKEND_AUTO;
}

texla_ctx *suite_ctx(const texla_ctx_desc *desc_in) {
    texla_ctx *ctx = NULL;
    texla_ctx_desc desc = {0};
    if (desc_in) desc = *desc_in;
    if (!desc.backend) desc.backend = suite_backend();
    texla_result r = texla_ctx_make(&desc, &ctx);
    CHECK(r == TEXLA_OK, "texla_ctx_make: %s: %s", texla_result_name(r), texla_error_message(NULL));
    return ctx;
}

static const struct {
    const char *name;
    void (*run)(void);
} suites[] = {{"dense", suite_dense},   {"errors", suite_errors}, {"state", suite_state},
              {"vec", suite_vec},       {"banded", suite_banded}, {"mm", suite_mm},
              {"solvers", suite_solvers}, {"png", suite_png},  {"wave", suite_wave},
              {"cubes", suite_cubes},
              {"handles", suite_handles}, {"files", suite_files}};

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--probe")) return probe_main(argc - 2, argv + 2);
    setvbuf(stdout, NULL, _IOLBF, 0);
    check_srand(check_seed());
    texla_backend be = suite_backend();
    printf("backend: %s\n", be == TEXLA_BACKEND_COMPUTE ? "compute (TEXLA_TEST_BACKEND)"
                             : be == TEXLA_BACKEND_FRAGMENT ? "fragment (TEXLA_TEST_BACKEND)"
                                                            : "auto");
    for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++) {
        int want = argc < 2;
        for (int a = 1; a < argc; a++) want |= !strcmp(argv[a], suites[i].name);
        if (!want) continue;
        int f0 = check_failed, p0 = check_passed;
        printf("-- suite %s\n", suites[i].name);
        suites[i].run();
        printf("-- suite %s: %d passed, %d failed\n", suites[i].name, check_passed - p0,
               check_failed - f0);
    }
    return check_summary();
}
