/* par.c - see par.h. A job hands out its chunks through an atomic counter, the caller taking
 * chunks too. The CPU work of a step is many short jobs back to back (a power iteration is three
 * a round), so waking sleeping threads for each would cost more than the work: between jobs the
 * workers spin for a while on the job number before they sleep on a condition variable, and
 * the caller spins until the last chunk is done. Jobs of fewer than PAR_MIN_CHUNKS chunks run
 * on the caller alone. */
#include "par.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#define PAR_MIN_CHUNKS 4
#define SPIN_LIMIT 200000 /* about 0.1 ms of pauses before a worker sleeps */

static struct {
    int n; /* threads in all (0: not started) */
    pthread_t tid[PAR_MAX];
    pthread_mutex_t mu;
    pthread_cond_t go;
    atomic_ulong gen;  /* job number: fn, arg, nchunks are written before it is raised */
    atomic_int busy;   /* workers still inside the current job */
    atomic_int stop;
    atomic_int next;   /* the next chunk to take */
    par_fn fn;
    void *arg;
    int nchunks;
} P = {.mu = PTHREAD_MUTEX_INITIALIZER, .go = PTHREAD_COND_INITIALIZER};

static void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void take_chunks(par_fn fn, void *arg, int nchunks) {
    for (int c; (c = atomic_fetch_add(&P.next, 1)) < nchunks;) fn(arg, c);
}

static void *worker(void *unused) {
    (void)unused;
    unsigned long seen = 0;
    for (;;) {
        unsigned long g;
        int spins = 0;
        while ((g = atomic_load_explicit(&P.gen, memory_order_acquire)) == seen &&
               !atomic_load(&P.stop)) {
            if (++spins < SPIN_LIMIT) {
                relax();
                continue;
            }
            pthread_mutex_lock(&P.mu);
            while (atomic_load(&P.gen) == seen && !atomic_load(&P.stop))
                pthread_cond_wait(&P.go, &P.mu);
            pthread_mutex_unlock(&P.mu);
            spins = 0;
        }
        if (atomic_load(&P.stop)) break;
        seen = g;
        take_chunks(P.fn, P.arg, P.nchunks);
        atomic_fetch_sub_explicit(&P.busy, 1, memory_order_release);
    }
    return NULL;
}

int par_init(int threads) {
    if (P.n) return P.n;
    const char *env = getenv("TEXLA_CUBES_THREADS");
    if (env && *env) threads = atoi(env);
    if (threads <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        threads = c > 0 ? (int)c : 1;
    }
    if (threads > PAR_MAX) threads = PAR_MAX;
    P.n = 1;
    for (int i = 1; i < threads; i++) {
        if (pthread_create(&P.tid[i], NULL, worker, NULL)) break; /* fewer threads: still right */
        P.n++;
    }
    return P.n;
}

int par_threads(void) { return P.n ? P.n : 1; }

void par_run(int nchunks, par_fn fn, void *arg) {
    if (nchunks <= 0) return;
    if (P.n <= 1 || nchunks < PAR_MIN_CHUNKS) {
        for (int c = 0; c < nchunks; c++) fn(arg, c);
        return;
    }
    P.fn = fn, P.arg = arg, P.nchunks = nchunks;
    atomic_store(&P.next, 0);
    atomic_store(&P.busy, P.n - 1);
    pthread_mutex_lock(&P.mu); /* a worker about to sleep checks the job number under it */
    atomic_fetch_add_explicit(&P.gen, 1, memory_order_release);
    pthread_cond_broadcast(&P.go);
    pthread_mutex_unlock(&P.mu);
    take_chunks(fn, arg, nchunks);
    for (long spins = 0; atomic_load_explicit(&P.busy, memory_order_acquire) > 0; spins++) {
        if (spins < SPIN_LIMIT) relax();
        else sched_yield();
    }
}

void par_shutdown(void) {
    if (P.n <= 1) {
        P.n = 0;
        return;
    }
    pthread_mutex_lock(&P.mu);
    atomic_store(&P.stop, 1);
    pthread_cond_broadcast(&P.go);
    pthread_mutex_unlock(&P.mu);
    for (int i = 1; i < P.n; i++) pthread_join(P.tid[i], NULL);
    P.n = 0;
    atomic_store(&P.stop, 0);
}
