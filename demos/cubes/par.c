/* par.c - see par.h. Workers sleep on a condition variable between jobs; a job hands out its
 * chunks through an atomic counter, the caller taking chunks too. */
#include "par.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

static struct {
    int n;                 /* threads in all (0: not started) */
    pthread_t tid[PAR_MAX];
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    unsigned long gen;     /* job number */
    int stop, busy;        /* workers still inside the current job */
    par_fn fn;
    void *arg;
    int nchunks;
    atomic_int next;
} P = {.mu = PTHREAD_MUTEX_INITIALIZER, .go = PTHREAD_COND_INITIALIZER,
       .done = PTHREAD_COND_INITIALIZER};

static void take_chunks(par_fn fn, void *arg, int nchunks) {
    for (int c; (c = atomic_fetch_add(&P.next, 1)) < nchunks;) fn(arg, c);
}

static void *worker(void *unused) {
    (void)unused;
    unsigned long seen = 0;
    pthread_mutex_lock(&P.mu);
    for (;;) {
        while (!P.stop && P.gen == seen) pthread_cond_wait(&P.go, &P.mu);
        if (P.stop) break;
        seen = P.gen;
        par_fn fn = P.fn;
        void *arg = P.arg;
        int nchunks = P.nchunks;
        pthread_mutex_unlock(&P.mu);
        take_chunks(fn, arg, nchunks);
        pthread_mutex_lock(&P.mu);
        if (--P.busy == 0) pthread_cond_signal(&P.done);
    }
    pthread_mutex_unlock(&P.mu);
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
    if (P.n <= 1 || nchunks == 1) {
        for (int c = 0; c < nchunks; c++) fn(arg, c);
        return;
    }
    pthread_mutex_lock(&P.mu);
    P.fn = fn, P.arg = arg, P.nchunks = nchunks;
    atomic_store(&P.next, 0);
    P.busy = P.n - 1;
    P.gen++;
    pthread_cond_broadcast(&P.go);
    pthread_mutex_unlock(&P.mu);
    take_chunks(fn, arg, nchunks);
    pthread_mutex_lock(&P.mu);
    while (P.busy > 0) pthread_cond_wait(&P.done, &P.mu);
    pthread_mutex_unlock(&P.mu);
}

void par_shutdown(void) {
    if (P.n <= 1) {
        P.n = 0;
        return;
    }
    pthread_mutex_lock(&P.mu);
    P.stop = 1;
    pthread_cond_broadcast(&P.go);
    pthread_mutex_unlock(&P.mu);
    for (int i = 1; i < P.n; i++) pthread_join(P.tid[i], NULL);
    P.n = 0, P.stop = 0;
}
