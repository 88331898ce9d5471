/* cnum.c - numbers in the text texla writes and reads back (the tuning cache, PNG text chunks):
 * always with '.' as the decimal point, whatever LC_NUMERIC the host application set (a GTK
 * program in a German locale has ','; snprintf and strtod follow it). */
#include "base/base.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

/* the locale's decimal point where it is not ".", else NULL */
static const char *other_point(void) {
    const char *dp = localeconv()->decimal_point;
    return dp && *dp && strcmp(dp, ".") ? dp : NULL;
}

void texla__c_point(char *s) {
    const char *dp = other_point();
    if (!dp) return;
    size_t k = strlen(dp);
    for (char *p = strstr(s, dp); p; p = strstr(p + 1, dp)) {
        *p = '.';
        memmove(p + 1, p + k, strlen(p + k) + 1);
    }
}

double texla__strtod_c(const char *s, char **end) {
    const char *dp = other_point(), *dot = strchr(s, '.');
    if (!dp || !dot) return strtod(s, end);
    /* a copy with the locale's point for the first '.' (a number's text is short: a longer one
     * is cut, and its end is found early, where the cut is) */
    char buf[96];
    size_t at = (size_t)(dot - s), k = strlen(dp), n = strlen(s);
    if (at + k >= sizeof buf) return strtod(s, end);
    size_t rest = n - at - 1, room = sizeof buf - 1 - at - k;
    if (rest > room) rest = room;
    memcpy(buf, s, at);
    memcpy(buf + at, dp, k);
    memcpy(buf + at + k, dot + 1, rest);
    buf[at + k + rest] = '\0';
    char *e = NULL;
    double d = strtod(buf, &e);
    if (end) {
        size_t off = (size_t)(e - buf);
        *end = (char *)(uintptr_t)(s + (off > at ? off - (k - 1) : off));
    }
    return d;
}
