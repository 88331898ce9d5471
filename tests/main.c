/* test-texla: headless tests. Usage: test-texla [SUITE...]  (ops dense errors state vec banded mm
 * solvers png wave cubes kernels sparse lcp_op handles files; default all). Every suite runs on
 * every backend this GL has,
 * in this one process: fragment, then compute (TEXLA_TEST_BACKEND=fragment|compute runs one).
 * The operation table suite (ops) and the kernels suite make both backends themselves and
 * compare them. The handles and files suites run once (on the first backend): what they check
 * is not the backends'. test-texla --probe ...: one call measured in a process of its own
 * (tests/probe.h). */
#include "suites.h"
#include "probe.h"

#include <stdlib.h>
#include <string.h>

static texla_backend current = TEXLA_BACKEND_FRAGMENT;

texla_backend suite_backend(void) { return current; }

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
    int per_backend; /* 0: the suite covers the backends itself */
} suites[] = {{"ops", suite_ops, 0},         {"dense", suite_dense, 1},
              {"errors", suite_errors, 1},   {"state", suite_state, 1},
              {"vec", suite_vec, 1},         {"banded", suite_banded, 1},
              {"mm", suite_mm, 1},           {"solvers", suite_solvers, 1},
              {"png", suite_png, 1},         {"wave", suite_wave, 1},
              {"cubes", suite_cubes, 1},     {"kernels", suite_kernels, 0},
              {"sparse", suite_sparse, 1},   {"lcp_op", suite_lcp_op, 1},
              {"handles", suite_handles, 0}, {"files", suite_files, 0}};

/* can this machine's GL run backend b (a context with it can be made)? */
static int available(texla_backend b) {
    texla_ctx_desc d = {.backend = b};
    texla_ctx *c = NULL;
    if (texla_ctx_make(&d, &c) != TEXLA_OK) return 0;
    texla_ctx_destroy(c);
    return 1;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--probe")) return probe_main(argc - 2, argv + 2);
    setvbuf(stdout, NULL, _IOLBF, 0);
    check_srand(check_seed());
    texla_backend bes[2] = {TEXLA_BACKEND_FRAGMENT, TEXLA_BACKEND_COMPUTE};
    int nb = 2;
    const char *env = getenv("TEXLA_TEST_BACKEND");
    if (env && !strcmp(env, "fragment")) nb = 1;
    else if (env && !strcmp(env, "compute")) bes[0] = TEXLA_BACKEND_COMPUTE, nb = 1;
    if (nb == 2 && !available(TEXLA_BACKEND_COMPUTE)) {
        check_skip("the suites on the compute backend", "this GL has no compute shaders (< 4.3)");
        nb = 1;
    }
    for (int b = 0; b < nb; b++) {
        current = bes[b];
        const char *bn = current == TEXLA_BACKEND_COMPUTE ? "compute" : "fragment";
        printf("== backend: %s\n", bn);
        for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++) {
            int want = argc < 2;
            for (int a = 1; a < argc; a++) want |= !strcmp(argv[a], suites[i].name);
            if (!want || (!suites[i].per_backend && b > 0)) continue;
            int f0 = check_failed, p0 = check_passed;
            printf("-- suite %s (%s)\n", suites[i].name, suites[i].per_backend ? bn : "all backends");
            suites[i].run();
            printf("-- suite %s (%s): %d passed, %d failed\n", suites[i].name,
                   suites[i].per_backend ? bn : "all backends", check_passed - p0,
                   check_failed - f0);
        }
    }
    return check_summary();
}
