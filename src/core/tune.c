/* tune.c - the tuning cache: choices found by timing on this device (sparse formats and
 * schedules, product tiles), kept in a plain text file a person can read:
 *   # texla tuning cache 1 ...
 *   <device> TAB <key> TAB <value>
 * one entry per line, the device being "renderer | GL version" (the driver's version is in
 * it). Entries of other devices are kept in the file and never used here. The file is read
 * once, on first use; every change is merged into the file as it is then (other processes'
 * entries kept, entries found invalid dropped; under a lock on tune.txt.lock beside the file
 * its links lead to) and rewrites it atomically (a temporary file, then rename).
 * A file that cannot be read as a cache, a line that is not an entry, or a value its user can
 * no longer parse is ignored with a warning (texla_ctx_desc.warning_cb), never trusted. */
#include "core/core.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEADER "# texla tuning cache 1: device<TAB>key<TAB>value per line; delete to retune"
#define MAX_FILE (16L << 20) /* a larger file is not a cache of ours */
#define MAX_LINE 4096

void texla__warn(texla_ctx *ctx, const char *fmt, ...) {
    char msg[TEXLA__MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    texla__callback(&ctx->err, ctx->desc.warning_cb, TEXLA_OK, msg);
}

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* "renderer | version", tabs and newlines made spaces */
static void device_of(const texla_ctx *ctx, char *buf, size_t n) {
    snprintf(buf, n, "%s | %s", ctx->gl.info.renderer, ctx->gl.info.version);
    for (char *p = buf; *p; p++)
        if (*p == '\t' || *p == '\n' || *p == '\r') *p = ' ';
}

static void default_path(texla_ctx *ctx) {
    texla__tune *t = &ctx->tune;
    const char *p = ctx->desc.tune_cache;
    if (p) {
        snprintf(t->path, sizeof t->path, "%s", p);
        return;
    }
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && *xdg == '/') snprintf(t->path, sizeof t->path, "%s/texla/tune.txt", xdg);
    else if (home && *home) snprintf(t->path, sizeof t->path, "%s/.cache/texla/tune.txt", home);
    else t->path[0] = '\0';
}

static int add(texla__tune *t, const char *dev, const char *key, const char *val) {
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        texla__tune_entry *e = realloc(t->e, sizeof *e * (size_t)cap);
        if (!e) return 0;
        t->e = e;
        t->cap = cap;
    }
    texla__tune_entry *e = &t->e[t->n];
    e->dev = dup_str(dev), e->key = dup_str(key), e->val = dup_str(val);
    e->mine = e->dead = 0;
    if (!e->dev || !e->key || !e->val) {
        free(e->dev), free(e->key), free(e->val);
        return 0;
    }
    t->n++;
    return 1;
}

/* the file at t->path into t's entries (t->readonly where it is no cache of ours); warn: say
 * what was ignored. 1: read whole (or no file yet), 0: not (unreadable, out of memory: the
 * entries may be a part of the file's) */
static int parse_file(texla_ctx *ctx, texla__tune *t, int warn) {
    /* opened without blocking and checked on the open file, so that a FIFO (or a device) put
     * there, even after a stat, is never waited on or read */
    int fd = open(t->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        if (err != ENOENT && warn) /* ENOENT: no cache yet */
            texla__warn(ctx, "tuning cache %s: %s; ignored", t->path, strerror(err));
        return err == ENOENT;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > MAX_FILE) {
        close(fd);
        if (warn)
            texla__warn(ctx, "tuning cache %s: not a regular file of at most %ld bytes; ignored",
                        t->path, MAX_FILE);
        t->readonly = 1;
        return 1;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        if (warn) texla__warn(ctx, "tuning cache %s: %s; ignored", t->path, strerror(errno));
        close(fd);
        return 0;
    }
    char line[MAX_LINE + 2];
    int lineno = 0, bad = 0, whole_file = 1;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        int whole = len && line[len - 1] == '\n';
        if (whole) line[--len] = '\0';
        if (lineno == 1) { /* the header, or a file that is no cache of ours: left alone */
            if (!whole && !feof(f)) len = 0;
            if (!len || strncmp(line, "# texla tuning cache 1", 22) != 0) {
                if (warn)
                    texla__warn(ctx, "tuning cache %s: not a texla tuning cache (line 1 is not "
                                "its header); ignored and left as it is", t->path);
                t->readonly = 1;
                break;
            }
            continue;
        }
        if (!whole && !feof(f)) { /* longer than any entry we write */
            bad++;
            int c;
            while ((c = fgetc(f)) != EOF && c != '\n') {}
            continue;
        }
        if (!len || line[0] == '#') continue;
        char *k = strchr(line, '\t'), *v = k ? strchr(k + 1, '\t') : NULL;
        int ok = k && v && k > line && v > k + 1 && v[1] && !strchr(v + 1, '\t');
        for (const char *p = line; ok && *p; p++) ok = (unsigned char)*p >= 0x20 || *p == '\t';
        if (!ok) {
            bad++;
            continue;
        }
        *k = '\0', *v = '\0';
        if (!add(t, line, k + 1, v + 1)) {
            whole_file = 0;
            break;
        }
    }
    if (ferror(f)) whole_file = 0;
    fclose(f);
    if (bad && warn)
        texla__warn(ctx, "tuning cache %s: %d malformed line%s ignored", t->path, bad,
                    bad > 1 ? "s" : "");
    return whole_file;
}

static void load(texla_ctx *ctx) {
    texla__tune *t = &ctx->tune;
    if (t->loaded) return;
    t->loaded = 1;
    default_path(ctx);
    device_of(ctx, t->device, sizeof t->device);
    if (t->path[0]) (void)parse_file(ctx, t, 1);
}

static void free_entries(texla__tune *t) {
    for (int i = 0; i < t->n; i++) free(t->e[i].dev), free(t->e[i].key), free(t->e[i].val);
    free(t->e);
    t->e = NULL;
    t->n = t->cap = 0;
}

static int find_in(const texla__tune *t, const char *dev, const char *key) {
    for (int i = 0; i < t->n; i++)
        if (!t->e[i].dead && !strcmp(t->e[i].dev, dev) && !strcmp(t->e[i].key, key)) return i;
    return -1;
}

/* the lock beside the file its writes replace (target: the cache's path with its links
 * followed, so every name of one file takes one lock): opened read-only, never through a link
 * or into a FIFO; -1 where there is none to take (written all the same: the rename keeps the
 * file whole) */
static int lock_for(const char *target) {
    size_t n = strlen(target);
    char *lp = malloc(n + 6);
    if (!lp) return -1;
    memcpy(lp, target, n);
    memcpy(lp + n, ".lock", 6);
    int lk = open(lp, O_RDONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
    free(lp);
    if (lk < 0) return -1;
    struct stat ls;
    int r = fstat(lk, &ls) == 0 && S_ISREG(ls.st_mode) ? 0 : -1;
    while (r == 0 && (r = flock(lk, LOCK_EX)) != 0 && errno == EINTR) r = 0;
    if (r != 0) {
        close(lk);
        return -1;
    }
    return lk;
}

/* this context's entries written into the file as it is now (other processes' entries, made
 * since it was read, are kept; the entries it found invalid are dropped where the file still
 * holds them as they were), under a lock on a file beside it; the context then holds what
 * was written. Where the file cannot be read whole now, nothing is written (its entries would
 * be lost) and this context's stay to be written the next time */
static void save(texla_ctx *ctx) {
    texla__tune *t = &ctx->tune;
    if (!t->path[0] || t->readonly) return;
    /* the folder: $XDG_CACHE_HOME/texla or ~/.cache/texla (made as needed) */
    char dir[sizeof t->path];
    snprintf(dir, sizeof dir, "%s", t->path);
    int mk_err = 0; /* why a folder could not be made: the reason to name (the temporary file's
                       ENOENT that follows says nothing) */
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
                mk_err = errno;
                break;
            }
            *p = '/';
        }
    texla__err quiet = {0};
    texla__afile af;
    if (texla__afile_open(&quiet, "tuning cache", t->path, &af)) {
        if (mk_err)
            texla__warn(ctx, "tuning cache %s: cannot make the folder %s: %s; the tuning result "
                        "is kept for this context only", t->path, dir, strerror(mk_err));
        else
            texla__warn(ctx, "%s; the tuning result is kept for this context only", quiet.msg);
        return;
    }
    int lk = lock_for(af.target);
    texla__tune disk = {0};
    memcpy(disk.path, t->path, sizeof disk.path);
    int ok = parse_file(ctx, &disk, 0);
    if (!ok)
        texla__warn(ctx, "tuning cache %s: cannot be read whole now; not written (its entries "
                    "would be lost), the tuning result is kept for this context", t->path);
    else if (disk.readonly) /* made into something else since: left as it is */
        texla__warn(ctx, "tuning cache %s: no longer a texla tuning cache; the tuning result is "
                    "kept for this context only", t->path);
    ok = ok && !disk.readonly;
    for (int i = 0; i < t->n && ok; i++) {
        int j = find_in(&disk, t->e[i].dev, t->e[i].key);
        if (t->e[i].dead) { /* found invalid: gone, unless the file has another value now */
            if (j >= 0 && !strcmp(disk.e[j].val, t->e[i].val)) {
                free(disk.e[j].dev), free(disk.e[j].key), free(disk.e[j].val);
                memmove(&disk.e[j], &disk.e[j + 1], sizeof *disk.e * (size_t)(disk.n - j - 1));
                disk.n--;
            }
        } else if (!t->e[i].mine) {
            continue;
        } else if (j < 0) {
            ok = add(&disk, t->e[i].dev, t->e[i].key, t->e[i].val);
        } else {
            char *v = dup_str(t->e[i].val);
            if (!v) ok = 0;
            else free(disk.e[j].val), disk.e[j].val = v;
        }
    }
    int err = !ok;
    if (ok) {
        err = fprintf(af.f, "%s\n", HEADER) < 0;
        for (int i = 0; i < disk.n && !err; i++)
            err = fprintf(af.f, "%s\t%s\t%s\n", disk.e[i].dev, disk.e[i].key, disk.e[i].val) < 0;
    }
    /* not ok: the temporary file is removed, the cache left as it is */
    if (texla__afile_commit(&quiet, "tuning cache", &af, err ? (ok ? errno : 0) : 0,
                            err ? (ok ? "write" : "not merged") : NULL)) {
        if (ok) texla__warn(ctx, "%s; the tuning result is kept for this context only", quiet.msg);
    } else { /* the context holds the file as written */
        free_entries(t);
        t->e = disk.e, t->n = disk.n, t->cap = disk.cap;
        disk.e = NULL, disk.n = disk.cap = 0;
    }
    free_entries(&disk);
    if (lk >= 0) close(lk); /* and its lock with it */
}

static int find(texla__tune *t, const char *key) { return find_in(t, t->device, key); }

int texla__tune_get(texla_ctx *ctx, const char *key, char *value, size_t n) {
    load(ctx);
    int i = find(&ctx->tune, key);
    if (i < 0) return 0;
    snprintf(value, n, "%s", ctx->tune.e[i].val);
    return 1;
}

void texla__tune_put(texla_ctx *ctx, const char *key, const char *value) {
    load(ctx);
    texla__tune *t = &ctx->tune;
    int i = find(t, key);
    if (i >= 0) {
        char *v = dup_str(value);
        if (!v) return;
        free(t->e[i].val);
        t->e[i].val = v;
    } else if (!add(t, t->device, key, value)) {
        return;
    } else {
        i = t->n - 1;
    }
    t->e[i].mine = 1;
    save(ctx);
}

void texla__tune_invalid(texla_ctx *ctx, const char *key, const char *why) {
    load(ctx);
    texla__tune *t = &ctx->tune;
    int i = find(t, key);
    if (i < 0) return;
    texla__warn(ctx, "tuning cache %s: entry %s (\"%s\") %s; ignored and tuned again", t->path,
                key, t->e[i].val, why);
    t->e[i].dead = 1; /* dropped from the file at its next write, if unchanged there */
    t->e[i].mine = 0;
}

void texla__tune_free(texla_ctx *ctx) {
    texla__tune *t = &ctx->tune;
    free_entries(t);
    memset(t, 0, sizeof *t);
}

double texla__tune_budget_ms(long long entries) {
    double f = entries > (1LL << 24) ? (double)entries / (double)(1LL << 24) : 1.0;
    return 6e3 * (f < 4.0 ? f : 4.0);
}

/* ---- public: what the cache holds for this device ---- */

int texla_tune_count(texla_ctx *ctx) {
    if (!ctx) return 0;
    load(ctx);
    int c = 0;
    for (int i = 0; i < ctx->tune.n; i++)
        c += !ctx->tune.e[i].dead && !strcmp(ctx->tune.e[i].dev, ctx->tune.device);
    return c;
}

texla_result texla_tune_entry(texla_ctx *ctx, int i, const char **key, const char **value) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    if (!key || !value)
        return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "texla_tune_entry: key or value is NULL");
    load(ctx);
    for (int j = 0, c = 0; j < ctx->tune.n; j++)
        if (!ctx->tune.e[j].dead && !strcmp(ctx->tune.e[j].dev, ctx->tune.device) && c++ == i) {
            *key = ctx->tune.e[j].key;
            *value = ctx->tune.e[j].val;
            return TEXLA_OK;
        }
    return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                       "texla_tune_entry: entry %d asked for; the cache has %d for this device", i,
                       texla_tune_count(ctx));
}

const char *texla_tune_path(texla_ctx *ctx) {
    if (!ctx) return "";
    load(ctx);
    return ctx->tune.path;
}
