/* cnum.c - numbers in the text texla writes and reads back (the tuning cache, PNG text chunks,
 * Matrix Market files): always with '.' as the decimal point, whatever LC_NUMERIC the host
 * application set (a GTK program in a German locale has ','; snprintf and strtod follow it).
 * Each call formats or reads in a "C" locale made current for this thread with uselocale (POSIX
 * 2008): thread-safe, unlike localeconv or setlocale, and the whole number is read whatever its
 * length. A file of many numbers makes its locale once (texla__cnum_open) and switches to it
 * per number (a thread-local pointer), so the application's locale is current again between
 * numbers: its error callback runs in it. */
#include "base/base.h"

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

int texla__cnum_open(texla__cnum *n) {
    n->c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    return n->c ? 0 : ENOMEM;
}

void texla__cnum_close(texla__cnum *n) {
    if (n->c) freelocale(n->c);
    n->c = (locale_t)0;
}

int texla__vsnprintf_in(const texla__cnum *n, char *s, size_t size, const char *fmt, va_list ap) {
    locale_t old = n->c ? uselocale(n->c) : (locale_t)0;
    int r = vsnprintf(s, size, fmt, ap);
    if (n->c) uselocale(old);
    return r;
}

int texla__snprintf_in(const texla__cnum *n, char *s, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int r = texla__vsnprintf_in(n, s, size, fmt, ap);
    va_end(ap);
    return r;
}

/* strtod or strtof (f) in n's locale; errno: strtod's ERANGE, else as it was */
static double strto_in(const texla__cnum *n, const char *s, char **end, int f) {
    locale_t old = n->c ? uselocale(n->c) : (locale_t)0;
    int saved = errno;
    errno = 0;
    double d = f ? (double)strtof(s, end) : strtod(s, end);
    int e = errno; /* whatever the locale calls leave */
    if (n->c) uselocale(old);
    errno = e ? e : saved;
    return d;
}

double texla__strtod_in(const texla__cnum *n, const char *s, char **end) {
    return strto_in(n, s, end, 0);
}

float texla__strtof_in(const texla__cnum *n, const char *s, char **end) {
    return (float)strto_in(n, s, end, 1);
}

/* one number: a locale of its own (where it cannot be made, out of memory, the application's
 * locale, as before this file) */
int texla__snprintf_c(char *s, size_t size, const char *fmt, ...) {
    texla__cnum n;
    texla__cnum_open(&n);
    va_list ap;
    va_start(ap, fmt);
    int r = texla__vsnprintf_in(&n, s, size, fmt, ap);
    va_end(ap);
    texla__cnum_close(&n);
    return r;
}

/* errno: strtod's, whatever freelocale leaves */
double texla__strtod_c(const char *s, char **end) {
    texla__cnum n;
    texla__cnum_open(&n);
    double d = texla__strtod_in(&n, s, end);
    int e = errno;
    texla__cnum_close(&n);
    errno = e;
    return d;
}
