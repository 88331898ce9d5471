/* cnum.c - numbers in the text texla writes and reads back (the tuning cache, PNG text chunks):
 * always with '.' as the decimal point, whatever LC_NUMERIC the host application set (a GTK
 * program in a German locale has ','; snprintf and strtod follow it). Each call formats or
 * reads in the "C" locale made for this thread with uselocale (POSIX 2008): thread-safe, unlike
 * localeconv, and the whole number is read whatever its length. */
#include "base/base.h"

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

/* the "C" numeric locale made current for this thread (*c (locale_t)0 where it could not be
 * made: out of memory; then the application's locale stays, as before this file) */
static locale_t c_begin(locale_t *c) {
    *c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    return *c ? uselocale(*c) : (locale_t)0;
}

static void c_end(locale_t c, locale_t old) {
    if (!c) return;
    uselocale(old);
    freelocale(c);
}

int texla__snprintf_c(char *s, size_t n, const char *fmt, ...) {
    locale_t c, old = c_begin(&c);
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(s, n, fmt, ap);
    va_end(ap);
    c_end(c, old);
    return r;
}

double texla__strtod_c(const char *s, char **end) {
    locale_t c, old = c_begin(&c);
    int saved = errno;
    errno = 0;
    double d = strtod(s, end);
    int e = errno; /* strtod's ERANGE, whatever the locale calls leave */
    c_end(c, old);
    errno = e ? e : saved;
    return d;
}
