/* afile.c - atomic file writes, shared by the Matrix Market and PNG writers: the data goes to a
 * temporary file beside PATH (PATH.tmpXXXXXX, created exclusively with mode 0666 & ~umask, or
 * the mode of an existing PATH, so a replaced file keeps its permissions; mkstemp would give
 * 0600), is flushed and synced, and only then renamed over PATH. On any failure the temporary
 * file is removed and PATH is left as it was. Used by every writer (Matrix Market, PNG, the
 * tuning cache). */
#include "base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* e may be NULL (the host-side I/O calls allow it): the message then goes to
 * texla_error_message(NULL). */
static texla_result afail(texla__err *e, texla_result code, const char *fmt, const char *fn,
                          const char *path, const char *a, const char *b) {
    char msg[1024];
    snprintf(msg, sizeof msg, fmt, fn, path, a, b);
    return texla__errf(e, code, "%s", msg);
}

texla_result texla__afile_open(texla__err *e, const char *fn, const char *path, texla__afile *a) {
    static _Thread_local unsigned long counter; /* only varies the names; EEXIST retries */
    static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    a->f = NULL;
    a->path = path;
    size_t n = strlen(path);
    a->tmp = malloc(n + 11);
    if (!a->tmp)
        return afail(e, TEXLA_ERR_MEMORY, "%s: %s: out of host memory%s%s", fn, path, "", "");
    uint64_t s = (uint64_t)getpid() * 0x9E3779B97F4A7C15ull ^ (uint64_t)time(NULL) ^
                 (uint64_t)(uintptr_t)a->tmp ^ ((uint64_t)clock() << 20) ^
                 ((uint64_t)++counter << 40);
    int fd = -1, err = 0;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        s += 0x9E3779B97F4A7C15ull; /* splitmix64 */
        uint64_t z = s;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        memcpy(a->tmp, path, n);
        memcpy(a->tmp + n, ".tmp", 4);
        for (int i = 0; i < 6; i++, z /= 62) a->tmp[n + 4 + i] = chars[z % 62];
        a->tmp[n + 10] = '\0';
        fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        err = errno;
        if (fd < 0 && err != EEXIST) break;
    }
    if (fd < 0) {
        free(a->tmp);
        a->tmp = NULL;
        return afail(e, TEXLA_ERR_IO, "%s: %s: cannot create a temporary file beside it: %s%s",
                     fn, path, strerror(err), "");
    }
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) (void)fchmod(fd, st.st_mode & 07777);
    a->f = fdopen(fd, "wb");
    if (!a->f) {
        err = errno;
        close(fd);
        unlink(a->tmp);
        free(a->tmp);
        a->tmp = NULL;
        return afail(e, TEXLA_ERR_IO, "%s: %s: %s%s", fn, path, strerror(err), "");
    }
    return TEXLA_OK;
}

texla_result texla__afile_commit(texla__err *e, const char *fn, texla__afile *a, int err,
                                 const char *what) {
    if (!what && fflush(a->f) != 0) what = "flush", err = errno;
    if (!what && fsync(fileno(a->f)) != 0) what = "fsync", err = errno;
    if (fclose(a->f) != 0 && !what) what = "close", err = errno;
    a->f = NULL;
    if (!what && rename(a->tmp, a->path) != 0) what = "rename", err = errno;
    texla_result r = TEXLA_OK;
    if (what) {
        unlink(a->tmp);
        if (err)
            r = afail(e, TEXLA_ERR_IO, "%s: %s: cannot write: %s (%s)", fn, a->path,
                      strerror(err), what);
        else
            r = afail(e, TEXLA_ERR_IO, "%s: %s: cannot write: %s%s", fn, a->path, what, "");
    } else {
        /* make the rename itself durable; a failure here loses nothing already written */
        const char *slash = strrchr(a->path, '/');
        if (slash) {
            size_t k = slash == a->path ? 1 : (size_t)(slash - a->path);
            memcpy(a->tmp, a->path, k); /* tmp is longer than path */
            a->tmp[k] = '\0';
        }
        int dfd = open(slash ? a->tmp : ".", O_RDONLY);
        if (dfd >= 0) {
            (void)fsync(dfd);
            close(dfd);
        }
    }
    free(a->tmp);
    a->tmp = NULL;
    return r;
}
