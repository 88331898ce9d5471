/* par.h - a small pool of threads for the cubes demo's CPU work (contact generation, the rows,
 * the lambda_max estimate): par_run(n, fn, arg) calls fn(arg, 0) .. fn(arg, n - 1) spread over
 * the threads and returns when all have run. The work is split into n chunks fixed by the
 * caller, not by the thread count, and each chunk writes only its own outputs, so the results
 * are the same with any number of threads (sums over chunks are added in chunk order). Jobs of
 * fewer than 4 chunks run on the caller alone (waking threads would cost more). */
#ifndef CUBES_PAR_H
#define CUBES_PAR_H

typedef void (*par_fn)(void *arg, int chunk);

/* threads in all (the caller's included): 0 asks for the online CPUs, at most PAR_MAX; 1 runs
 * everything on the caller. The environment's TEXLA_CUBES_THREADS overrides. Returns the
 * number used. */
#define PAR_MAX 16
int par_init(int threads);
int par_threads(void);
void par_run(int nchunks, par_fn fn, void *arg);
void par_shutdown(void);
/* the first index past chunk c of size `size` over 0 .. n-1 */
static inline int par_end(int c, int size, int n) { return (c + 1) * size < n ? (c + 1) * size : n; }

#endif
