/* probe.h - bad inputs with time and memory bounds: a call runs in a fresh process (this test
 * binary run again as `test-texla --probe WHAT ARGS...`), so that its memory is measured on
 * its own (the suite's process has long since peaked elsewhere) and a call that hangs is
 * killed after a timeout instead of stopping the suite. */
#ifndef TEXLA_PROBE_H
#define TEXLA_PROBE_H
#include "check.h"

typedef struct probe_result {
    int ran;             /* 1: the probe reported (else: killed, crashed or did not start) */
    int timed_out;       /* killed after the timeout */
    texla_result code;   /* what the call returned */
    char msg[2048];      /* and its message (tune-count: the last warning) */
    double seconds;      /* the call's wall time, measured in the probe */
    double grew_mb;      /* peak resident memory during the call minus the resident memory
                            just before it: an upper bound on what the call used */
    char why[256];       /* when !ran */
} probe_result;

/* Runs `test-texla --probe args...` (args NULL-terminated), killed after timeout_s. */
void probe_run(const char *const *args, double timeout_s, probe_result *out);

/* The probe side (tests/main.c calls it for --probe): WHAT is one of
 *   mm-read PATH               texla_mm_read(NULL, PATH)
 *   mm-write PATH              texla_mm_write_array(NULL, PATH, 2 x 2)
 *   png-read PATH [BUDGET]     texla_png_read on a headless context (budget: png_max_pixels)
 *   png-write PATH             texla_png_mat of a 2 x 2 matrix
 *   tune-count PATH            texla_tune_count on a context whose tuning cache is PATH (OK
 *                              when it has no entries; the message is the last warning)
 * and prints one line that probe_run reads. Returns the exit status. */
int probe_main(int argc, char **argv);

/* Checks a probe's outcome: it ran, returned want, its message has every needle, and it took
 * less than max_s seconds and max_mb MB. what names the case in failures. */
void probe_expect(const probe_result *p, texla_result want, double max_s, double max_mb,
                  const char *what, const char *const *needles);
#endif
