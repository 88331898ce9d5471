/* base.h - the ground floor of texla's sources: the public header, error reporting (codes,
 * messages, the callback) and small helpers every layer may use. It calls nothing above it.
 * Layers, each including the header of the one below: base/ -> gl/ (gl.h) -> core/ (core.h)
 * -> storage/, ops/ -> io/; solvers/ and cli/ use only texla.h. */
#ifndef TEXLA_BASE_H
#define TEXLA_BASE_H

#include "texla.h"

#include <locale.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define TEXLA__MSG_LEN 4096

#if defined(__GNUC__) || defined(__clang__)
#define TEXLA__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TEXLA__PRINTF(f, a)
#endif

/* Where a context's errors go: the last message and the optional callback. in_cb: a callback
 * of this context (error or warning) is running; it is not called again from inside, and the
 * calls that could move or free what the interrupted call holds refuse (texla__in_callback). */
typedef struct texla__err {
    char msg[TEXLA__MSG_LEN];
    texla_error_fn cb;
    void *user;
    int in_cb;
} texla__err;

/* Calls cb(code, msg, user) as a callback of e, with e->in_cb set (msg e->msg: a copy of it);
 * e->msg is put back afterwards (a call refused inside the callback rewrote it); nothing
 * where e->in_cb is set already. */
void texla__callback(texla__err *e, texla_error_fn cb, texla_result code, const char *msg);
/* From inside a callback of e: the error (TEXLA_ERR_CONTEXT) for what, which was not done;
 * else TEXLA_OK. */
texla_result texla__in_callback(texla__err *e, const char *what);

/* Formats the message into e (NULL: the thread's message for calls without a context, as
 * texla_error_message(NULL) reads it), calls the callback, returns code. */
texla_result texla__errf(texla__err *e, texla_result code, const char *fmt, ...)
    TEXLA__PRINTF(3, 4);
texla_result texla__verrf(texla__err *e, texla_result code, const char *fmt, va_list ap);
/* the thread's message for calls without a context (texla_ctx_make, host-side I/O) */
char *texla__thread_msg(void);

/* atomic file writes (afile.c): write to a->f, then commit (rename over path) */
#include <stdio.h>
typedef struct texla__afile {
    FILE *f;
    char *tmp;
    const char *path; /* as the caller named it (messages) */
    char *target;     /* the file replaced: path, or where its symbolic links lead */
} texla__afile;
/* e: where errors go (NULL: the thread's message). A directory, FIFO, socket or device at
 * path (or where its links lead) is refused with TEXLA_ERR_IO naming the kind (afile.c). */
texla_result texla__afile_open(texla__err *e, const char *fn, const char *path, texla__afile *a);
/* err/what: an earlier write's errno and a word for it (what NULL: all went well); always
 * closes; on failure removes the temporary file and leaves path untouched */
texla_result texla__afile_commit(texla__err *e, const char *fn, texla__afile *a, int err,
                                 const char *what);

/* Numbers in the text texla writes and reads back (cnum.c): snprintf, strtod and strtof in the
 * "C" locale, so '.' is the decimal point whatever LC_NUMERIC the application set. The _c calls
 * make that locale for one number; a file of many makes it once (texla__cnum_open: 0, or ENOMEM
 * with c (locale_t)0, where the _in calls use the application's locale) and closes it after */
typedef struct texla__cnum {
    locale_t c;
} texla__cnum;
int texla__cnum_open(texla__cnum *n);
void texla__cnum_close(texla__cnum *n);
int texla__vsnprintf_in(const texla__cnum *n, char *s, size_t size, const char *fmt, va_list ap);
int texla__snprintf_in(const texla__cnum *n, char *s, size_t size, const char *fmt, ...)
    TEXLA__PRINTF(4, 5);
double texla__strtod_in(const texla__cnum *n, const char *s, char **end);
float texla__strtof_in(const texla__cnum *n, const char *s, char **end);
int texla__snprintf_c(char *s, size_t size, const char *fmt, ...) TEXLA__PRINTF(3, 4);
double texla__strtod_c(const char *s, char **end);

/* an allocation count of n >= 0 elements, at least one */
static inline size_t texla__at_least_one(long long n) { return n > 0 ? (size_t)n : 1; }
/* ceil(n / 4) without overflow at INT_MAX */
static inline int texla__blocks_of(int n) { return n / 4 + (n % 4 != 0); }

#endif
