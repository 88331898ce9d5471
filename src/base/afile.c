/* afile.c - atomic file writes, shared by every writer (Matrix Market, PNG, the tuning cache):
 * the data goes to a temporary file beside the file it replaces (NAME.tmpXXXXXX, NAME cut to
 * 200 bytes at a character's start, created
 * exclusively with mode 0666 & ~umask, or the mode of the file it replaces, so a replaced file
 * keeps its permissions; mkstemp would give 0600), is flushed and synced, and only then
 * renamed over it. On any failure the temporary file is removed and nothing else changes.
 *
 * What is at PATH decides what is written (at the time of the call):
 * - nothing, or a regular file: PATH itself is written (a file with other hard links is
 *   replaced by a new one; its other names keep the old contents, as with an editor's save);
 * - a symbolic link: the file it leads to (links followed up to 40 deep, relative ones from
 *   their own folder), replaced atomically beside itself; the link stays a link. A dangling
 *   link gets its target made, as the shell's `>` would;
 * - a directory, FIFO, socket or device: refused with TEXLA_ERR_IO naming the kind. Writing a
 *   regular file in their place would destroy them (as root, /dev/null), and opening a FIFO
 *   to write into it would block until a reader comes. */
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

#define MAX_LINKS 40 /* as Linux's own limit on symbolic links in one lookup */

static const char *kind_of(mode_t m) {
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO (named pipe)"
           : S_ISSOCK(m) ? "a socket"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
                         : "not a regular file";
}

/* The target of the symbolic link at p (lstat'ed as *st): relative targets are relative to
 * p's folder. NULL with errno set on failure. */
static char *follow(const char *p, const struct stat *st) {
    size_t cap = st->st_size > 0 ? (size_t)st->st_size + 1 : 256;
    char *t = NULL;
    for (;;) {
        char *n = realloc(t, cap);
        if (!n) {
            free(t);
            errno = ENOMEM;
            return NULL;
        }
        t = n;
        ssize_t k = readlink(p, t, cap);
        if (k < 0) {
            int err = errno;
            free(t);
            errno = err;
            return NULL;
        }
        if ((size_t)k < cap) {
            t[k] = '\0';
            break;
        }
        cap *= 2; /* the link changed, or its size was not reported (procfs) */
    }
    const char *slash = strrchr(p, '/');
    if (t[0] == '/' || !slash) return t;
    size_t d = (size_t)(slash - p) + 1, k = strlen(t);
    char *full = malloc(d + k + 1);
    if (!full) {
        free(t);
        errno = ENOMEM;
        return NULL;
    }
    memcpy(full, p, d);
    memcpy(full + d, t, k + 1);
    free(t);
    return full;
}

/* e may be NULL (the host-side I/O calls allow it): the message then goes to
 * texla_error_message(NULL). */
static texla_result afail(texla__err *e, texla_result code, const char *fn, const char *path,
                          const char *target, const char *fmt, ...) TEXLA__PRINTF(6, 7);
static texla_result afail(texla__err *e, texla_result code, const char *fn, const char *path,
                          const char *target, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (target && strcmp(target, path) != 0)
        return texla__errf(e, code, "%s: %s (a symbolic link to %s): %s", fn, path, target, msg);
    return texla__errf(e, code, "%s: %s: %s", fn, path, msg);
}

/* What path names: the file to write (malloc'd) in *target, and *st its status when it
 * exists (*exists 1). */
static texla_result resolve(texla__err *e, const char *fn, const char *path, char **target,
                            struct stat *st, int *exists) {
    size_t n = strlen(path);
    char *cur = malloc(n + 1);
    if (!cur) return afail(e, TEXLA_ERR_MEMORY, fn, path, NULL, "out of host memory");
    memcpy(cur, path, n + 1);
    *exists = 0;
    for (int links = 0;; links++) {
        if (lstat(cur, st) != 0) {
            int err = errno;
            if (err == ENOENT) break; /* a new file (maybe a dangling link's target) */
            texla_result r = afail(e, TEXLA_ERR_IO, fn, path, cur, "%s", strerror(err));
            free(cur);
            return r;
        }
        if (!S_ISLNK(st->st_mode)) {
            *exists = 1;
            break;
        }
        char *next = links < MAX_LINKS ? follow(cur, st) : NULL;
        if (!next) {
            int err = links < MAX_LINKS ? errno : ELOOP;
            texla_result r = afail(e, err == ENOMEM ? TEXLA_ERR_MEMORY : TEXLA_ERR_IO, fn, path,
                                   cur, "cannot follow the symbolic link: %s", strerror(err));
            free(cur);
            return r;
        }
        free(cur);
        cur = next;
    }
    if (*exists && !S_ISREG(st->st_mode)) {
        texla_result r = afail(e, TEXLA_ERR_IO, fn, path, cur,
                               "is %s; texla writes only regular files (replacing it would "
                               "destroy it, and writing into it is not atomic)",
                               kind_of(st->st_mode));
        free(cur);
        return r;
    }
    *target = cur;
    return TEXLA_OK;
}

#define TMP_BASE 200 /* bytes of the target's name kept in the temporary's */

texla_result texla__afile_open(texla__err *e, const char *fn, const char *path, texla__afile *a) {
    static _Thread_local unsigned long counter; /* only varies the names; EEXIST retries */
    static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    a->f = NULL;
    a->path = path;
    a->target = NULL;
    a->tmp = NULL;
    struct stat st;
    int exists = 0;
    texla_result r = resolve(e, fn, path, &a->target, &st, &exists);
    if (r) return r;
    /* a file the user may not write is not replaced (a rename needs only the folder's
     * permission: a read-only file was replaced where the shell's > refused) */
    if (exists && faccessat(AT_FDCWD, a->target, W_OK, AT_EACCESS) != 0) {
        int err = errno;
        r = afail(e, TEXLA_ERR_IO, fn, path, a->target, "cannot write it: %s (texla replaces "
                  "only files that may be written)", strerror(err));
        free(a->target);
        a->target = NULL;
        return r;
    }
    /* the temporary name: the target's, its last component cut to TMP_BASE bytes, and
     * ".tmpXXXXXX" (names of 246..255 bytes went past NAME_MAX with the suffix) */
    size_t n = strlen(a->target);
    const char *slash = strrchr(a->target, '/');
    size_t dir = slash ? (size_t)(slash - a->target) + 1 : 0;
    if (n - dir > TMP_BASE) { /* cut at a character's start (a UTF-8 name stays valid) */
        n = dir + TMP_BASE;
        while (n > dir && ((unsigned char)a->target[n] & 0xC0) == 0x80) n--;
    }
    a->tmp = malloc(n + 11);
    if (!a->tmp) {
        free(a->target);
        a->target = NULL;
        return afail(e, TEXLA_ERR_MEMORY, fn, path, NULL, "out of host memory");
    }
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
        memcpy(a->tmp, a->target, n);
        memcpy(a->tmp + n, ".tmp", 4);
        for (int i = 0; i < 6; i++, z /= 62) a->tmp[n + 4 + i] = chars[z % 62];
        a->tmp[n + 10] = '\0';
        fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
        err = errno;
        if (fd < 0 && err != EEXIST) break;
    }
    if (fd < 0) {
        r = afail(e, TEXLA_ERR_IO, fn, path, a->target,
                  "cannot create a temporary file beside it: %s", strerror(err));
        free(a->tmp), free(a->target);
        a->tmp = a->target = NULL;
        return r;
    }
    if (exists) (void)fchmod(fd, st.st_mode & 07777);
    a->f = fdopen(fd, "wb");
    if (!a->f) {
        err = errno;
        close(fd);
        unlink(a->tmp);
        r = afail(e, TEXLA_ERR_IO, fn, path, a->target, "%s", strerror(err));
        free(a->tmp), free(a->target);
        a->tmp = a->target = NULL;
        return r;
    }
    return TEXLA_OK;
}

texla_result texla__afile_commit(texla__err *e, const char *fn, texla__afile *a, int err,
                                 const char *what) {
    if (!what && fflush(a->f) != 0) what = "flush", err = errno;
    if (!what && fsync(fileno(a->f)) != 0) what = "fsync", err = errno;
    if (fclose(a->f) != 0 && !what) what = "close", err = errno;
    a->f = NULL;
    if (!what && rename(a->tmp, a->target) != 0) what = "rename", err = errno;
    texla_result r = TEXLA_OK;
    if (what) {
        unlink(a->tmp);
        if (err)
            r = afail(e, TEXLA_ERR_IO, fn, a->path, a->target, "cannot write: %s (%s)",
                      strerror(err), what);
        else
            r = afail(e, TEXLA_ERR_IO, fn, a->path, a->target, "cannot write: %s", what);
    } else {
        /* make the rename itself durable; a failure here loses nothing already written */
        const char *slash = strrchr(a->target, '/');
        if (slash) {
            size_t k = slash == a->target ? 1 : (size_t)(slash - a->target);
            memcpy(a->tmp, a->target, k); /* tmp holds at least the folder's part */
            a->tmp[k] = '\0';
        }
        int dfd = open(slash ? a->tmp : ".", O_RDONLY | O_CLOEXEC);
        if (dfd >= 0) {
            (void)fsync(dfd);
            close(dfd);
        }
    }
    free(a->tmp), free(a->target);
    a->tmp = a->target = NULL;
    return r;
}
