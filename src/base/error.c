/* error.c - error codes, messages and the callback: the only error reporting in texla. */
#include "base/base.h"

#include <stdio.h>
#include <string.h>

static _Thread_local char thread_msg[TEXLA__MSG_LEN];

static const char *const result_names[] = {
    "TEXLA_OK",          "TEXLA_ERR_ARGUMENT", "TEXLA_ERR_HANDLE",      "TEXLA_ERR_SHAPE",
    "TEXLA_ERR_ALIAS",   "TEXLA_ERR_LIMIT",    "TEXLA_ERR_UNSUPPORTED", "TEXLA_ERR_CONTEXT",
    "TEXLA_ERR_SHADER",  "TEXLA_ERR_GL",       "TEXLA_ERR_MEMORY",      "TEXLA_ERR_IO",
    "TEXLA_ERR_FORMAT",  "TEXLA_ERR_NOT_READY",
};

const char *texla_result_name(texla_result r) {
    if ((unsigned)r < sizeof result_names / sizeof result_names[0]) return result_names[r];
    return "TEXLA_ERR_?";
}

char *texla__thread_msg(void) { return thread_msg; }

texla_result texla__verrf(texla__err *e, texla_result code, const char *fmt, va_list ap) {
    char *buf = e ? e->msg : thread_msg;
    vsnprintf(buf, TEXLA__MSG_LEN, fmt, ap);
    if (e) texla__callback(e, e->cb, code, buf);
    return code;
}

void texla__callback(texla__err *e, texla_error_fn cb, texla_result code, const char *msg) {
    if (!cb || e->in_cb) return;
    /* the context's message as it is (for an error, msg itself): a call refused inside the
     * callback writes its own, which must not outlive the callback */
    char saved[TEXLA__MSG_LEN];
    size_t n = strnlen(e->msg, TEXLA__MSG_LEN - 1);
    memcpy(saved, e->msg, n);
    saved[n] = 0;
    e->in_cb = 1;
    cb(code, msg == e->msg ? saved : msg, e->user);
    e->in_cb = 0;
    memcpy(e->msg, saved, n + 1);
}

texla_result texla__in_callback(texla__err *e, const char *what) {
    if (!e || !e->in_cb) return TEXLA_OK;
    return texla__errf(e, TEXLA_ERR_CONTEXT,
                       "%s: called from inside texla's error or warning callback, where only "
                       "texla_error_message, texla_result_name and the info and shape queries "
                       "work; nothing was done", what);
}

texla_result texla__errf(texla__err *e, texla_result code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    texla__verrf(e, code, fmt, ap);
    va_end(ap);
    return code;
}
