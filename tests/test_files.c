/* test_files.c - what texla's writers do with what is at PATH, and readers that stay bounded.
 *
 * Writers (every one goes through the atomic writer, src/base/afile.c; each is tried):
 * texla_mm_write_array, texla_mm_write_coord, texla_png_mat, texla_png_texture (the demos'
 * frames have their own writer with the same rule: tests/test_files.sh). At PATH there is, in
 * turn:
 * - a symbolic link (relative, into another folder) to a file of mode 0640: the file it leads
 *   to gets the new contents with its mode, the link stays the same link, and no temporary
 *   file is left in either folder; a chain of two links the same;
 * - a dangling link: the file it names is made, the link stays;
 * - a loop of links: TEXLA_ERR_IO saying so, the links unchanged;
 * - a FIFO, a socket, a directory, a character device (a node made here as root, else
 *   /dev/null), and a link to one of them: TEXLA_ERR_IO naming the kind, returning at once
 *   (a FIFO is not opened: the writer runs in a probe process with a timeout), and the thing
 *   at PATH is still what it was;
 * - a file with a second hard link: PATH gets the new contents, the other name keeps the old
 *   ones (the documented behaviour of a replacing write).
 * Readers, each bad input answered in < 2 s and < 200 MB of the probe process (probe.h):
 * - Matrix Market: /dev/zero, /dev/urandom and a directory refused before reading; a pipe of
 *   endless NUL bytes, and one of an endless line, stopped at once or at the 1 MiB line limit;
 *   a pipe carrying a good file still reads;
 * - PNG: a 79-byte file whose tEXt chunk declares 2 GB; a 3 MB file that decodes to 3.2 GB
 *   (16384 x 65536 RGB; refused by the pixel budget when its header is read); a zTXt chunk
 *   that would inflate to 256 MB (skipped unread); 300 text chunks; the budget's own edge
 *   (texla_ctx_desc.png_max_pixels: at it read, one row more refused); devices;
 * - the tuning cache: a FIFO named as the cache is not waited on (a warning, no entries).
 * The zlib streams of the big images are made here (all-zero data, one dynamic Huffman block
 * whose length-258 match and distance-1 codes are one bit each); a small image made the same
 * way is read back, so the generator is known to give valid PNG files. */
#define _XOPEN_SOURCE 700 /* mknod */
#include "probe.h"
#include "suites.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_S 2.0    /* seconds a bad input may cost */
#define MAX_MB 200.0 /* and megabytes */
#define NEEDLES(...) ((const char *const[]){__VA_ARGS__, NULL})

static char dir[256];
static texla_ctx *ctx;
static texla_mat m23; /* the matrix the PNG writers write */
static const float d23[6] = {1, -2, 3.5f, 0.25f, 5, -6};

/* ---- small helpers ---- */

static const char *sub(const char *name) { return check_path(dir, name); }

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "cannot create %s: %s", path, strerror(errno));
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* the whole file into buf (NUL-terminated); its length, -1 when it cannot be read */
static long read_all(const char *path, char *buf, size_t cap) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = '\0';
    return (long)n;
}

static int is_kind(const char *path, mode_t kind) {
    struct stat st;
    return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == kind;
}

static int link_says(const char *path, const char *target) {
    char b[512];
    ssize_t n = readlink(path, b, sizeof b - 1);
    if (n < 0) return 0;
    b[n] = '\0';
    return !strcmp(b, target);
}

/* ---- the writers ---- */

enum { W_MM, W_MMC, W_PNG, W_TEX, W_COUNT };
static const char *const wname[W_COUNT] = {"texla_mm_write_array", "texla_mm_write_coord",
                                           "texla_png_mat", "texla_png_texture"};

static texla_result write_with(int w, const char *path) {
    static const int ri[2] = {0, 1}, ci[2] = {2, 0};
    static const float vv[2] = {4.5f, -1};
    texla_mat_info mi;
    switch (w) {
    case W_MM: return texla_mm_write_array(NULL, path, 2, 3, d23);
    case W_MMC: return texla_mm_write_coord(ctx, path, 2, 3, 2, ri, ci, vv);
    case W_PNG: return texla_png_mat(ctx, m23, path, NULL);
    default:
        if (texla_mat_info_get(ctx, m23, &mi)) return TEXLA_ERR_HANDLE;
        return texla_png_texture(ctx, mi.texture, mi.tex_width, mi.tex_height, path, NULL);
    }
}

static const char *werr(int w) { return texla_error_message(w == W_MM ? NULL : ctx); }
/* CHECK_CODE with the writer's context (W_MM reports without one) */
#define WCHECK(w, r, want, what) CHECK_CODE((w) == W_MM ? NULL : ctx, r, want, what)

/* what a writer wrote at path reads back as its data */
static int holds_new(int w, const char *path) {
    if (w == W_MM || w == W_MMC) {
        texla_mm m;
        if (texla_mm_read(NULL, path, &m)) return 0;
        int ok = m.rows == 2 && m.cols == 3 &&
                 (w == W_MM ? m.dense && !memcmp(m.dense, d23, sizeof d23)
                            : m.nnz == 2 && m.val[0] == 4.5f && m.col[0] == 2);
        texla_mm_free(&m);
        return ok;
    }
    texla_mat r;
    texla_mat_info mi;
    if (texla_png_read(ctx, path, &r)) return 0;
    int ok = !texla_mat_info_get(ctx, r, &mi) && mi.rows >= 1 && mi.cols >= 2;
    texla_mat_destroy(ctx, r);
    return ok;
}

static const char *ext(int w) { return w <= W_MMC ? "mtx" : "png"; }

/* the writer w at a link chain: link (in a/) -> [link2 ->] b/target */
static void test_links(int w) {
    char a[300], b[300], target[320], link[320], what[200];
    snprintf(a, sizeof a, "%s/a%d", dir, w);
    snprintf(b, sizeof b, "%s/b%d", dir, w);
    CHECK(mkdir(a, 0777) == 0 && mkdir(b, 0777) == 0, "mkdir: %s", strerror(errno));
    snprintf(target, sizeof target, "%s/target.%s", b, ext(w));
    write_text(target, "old contents\n");
    chmod(target, 0640);
    for (int chain = 0; chain < 2; chain++) {
        snprintf(link, sizeof link, "%s/link%d.%s", a, chain, ext(w));
        char rel[64];
        snprintf(rel, sizeof rel, "../b%d/target.%s", w, ext(w));
        if (chain) { /* link1 -> link0 -> target */
            write_text(target, "old contents\n");
            snprintf(rel, sizeof rel, "link0.%s", ext(w));
        }
        CHECK(symlink(rel, link) == 0, "symlink: %s", strerror(errno));
        snprintf(what, sizeof what, "%s through %s", wname[w], chain ? "two links" : "a link");
        WCHECK(w, write_with(w, link), TEXLA_OK, what);
        CHECK(is_kind(link, S_IFLNK) && link_says(link, rel), "%s: the link was replaced", what);
        CHECK(is_kind(target, S_IFREG) && holds_new(w, target),
              "%s: the file the link leads to did not get the new contents", what);
        struct stat st;
        CHECK(stat(target, &st) == 0 && (st.st_mode & 07777) == 0640,
              "%s: the target's mode became %o (was 0640)", what, (unsigned)(st.st_mode & 07777));
        CHECK(check_count_tmp(a) == 0 && check_count_tmp(b) == 0,
              "%s: temporary files left behind", what);
    }
    /* dangling: the file it names is made */
    char dl[320], made[320], rel[64];
    snprintf(dl, sizeof dl, "%s/dangling.%s", a, ext(w));
    snprintf(rel, sizeof rel, "../b%d/new.%s", w, ext(w));
    snprintf(made, sizeof made, "%s/new.%s", b, ext(w));
    CHECK(symlink(rel, dl) == 0, "symlink: %s", strerror(errno));
    snprintf(what, sizeof what, "%s through a dangling link", wname[w]);
    WCHECK(w, write_with(w, dl), TEXLA_OK, what);
    CHECK(is_kind(dl, S_IFLNK) && link_says(dl, rel), "%s: the link was replaced", what);
    CHECK(holds_new(w, made), "%s: the file it names was not made", what);
    /* a loop */
    char l1[320], l2[320];
    snprintf(l1, sizeof l1, "%s/loop1", a);
    snprintf(l2, sizeof l2, "%s/loop2", a);
    CHECK(symlink("loop2", l1) == 0 && symlink("loop1", l2) == 0, "symlink: %s", strerror(errno));
    snprintf(what, sizeof what, "%s at a loop of links", wname[w]);
    WCHECK(w, write_with(w, l1), TEXLA_ERR_IO, what);
    CHECK(strstr(werr(w), "symbolic link") != NULL, "%s: message \"%s\"", what, werr(w));
    CHECK(link_says(l1, "loop2") && link_says(l2, "loop1"), "%s: the links changed", what);
    check_rmdir_all(a);
    check_rmdir_all(b);
}

/* a hard link: PATH is replaced by a new file, the other name keeps the old contents */
static void test_hard_link(int w) {
    char p[320], q[320], buf[64], what[160];
    snprintf(p, sizeof p, "%s/hard.%s", dir, ext(w));
    snprintf(q, sizeof q, "%s/other_name", dir);
    write_text(p, "old contents\n");
    CHECK(link(p, q) == 0, "link: %s", strerror(errno));
    snprintf(what, sizeof what, "%s at a file with two names", wname[w]);
    WCHECK(w, write_with(w, p), TEXLA_OK, what);
    CHECK(holds_new(w, p), "%s: PATH does not hold the new contents", what);
    CHECK(read_all(q, buf, sizeof buf) > 0 && !strcmp(buf, "old contents\n"),
          "%s: the other name's contents changed", what);
    unlink(p), unlink(q);
}

/* a special file at path (and a link to it): refused naming the kind, left as it is */
static void refuse_at(int w, const char *path, mode_t kind, const char *kind_word) {
    char what[200];
    for (int via_link = 0; via_link < 2; via_link++) {
        const char *at = path;
        if (via_link) {
            at = sub("to_special");
            unlink(at);
            CHECK(symlink(path, at) == 0, "symlink: %s", strerror(errno));
        }
        snprintf(what, sizeof what, "%s at %s%s", wname[w], via_link ? "a link to " : "",
                 kind_word);
        double t0 = check_now();
        WCHECK(w, write_with(w, at), TEXLA_ERR_IO, what);
        CHECK(check_now() - t0 < MAX_S, "%s took %.1f s", what, check_now() - t0);
        CHECK(strstr(werr(w), kind_word) != NULL, "%s: the message \"%s\" does not say \"%s\"",
              what, werr(w), kind_word);
        CHECK(is_kind(path, kind), "%s: it is no longer %s", what, kind_word);
        if (via_link) CHECK(is_kind(at, S_IFLNK), "%s: the link was replaced", what);
        CHECK(check_count_tmp(dir) == 0, "%s: a temporary file was left", what);
    }
    unlink(sub("to_special"));
}

static void test_special(int w) {
    /* a FIFO: in a probe process for the writers that have one, so a writer that opened it
     * (and waited for a reader) would be killed instead of stopping the suite */
    const char *fifo = sub("fifo");
    CHECK(mkfifo(fifo, 0666) == 0, "mkfifo: %s", strerror(errno));
    if (w == W_MM || w == W_PNG) {
        probe_result p;
        char what[160];
        snprintf(what, sizeof what, "%s at a FIFO (probe)", wname[w]);
        probe_run((const char *const[]){w == W_MM ? "mm-write" : "png-write", fifo, NULL}, 20, &p);
        probe_expect(&p, TEXLA_ERR_IO, MAX_S, MAX_MB, what, NEEDLES("FIFO"));
    }
    refuse_at(w, fifo, S_IFIFO, "FIFO");
    unlink(fifo);

    const char *sock = sub("sock");
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock);
    if (s >= 0 && bind(s, (struct sockaddr *)&sa, sizeof sa) == 0) {
        refuse_at(w, sock, S_IFSOCK, "socket");
    } else {
        check_skip("writing at a socket", strerror(errno));
    }
    if (s >= 0) close(s);
    unlink(sock);

    const char *d = sub("a_dir");
    CHECK(mkdir(d, 0777) == 0, "mkdir: %s", strerror(errno));
    refuse_at(w, d, S_IFDIR, "directory");
    rmdir(d);

    /* a character device: as root a node of our own (a failure here would otherwise replace
     * the system's /dev/null), else /dev/null itself, which a non-root writer cannot harm */
    const char *dev = "/dev/null";
    if (geteuid() == 0) {
        dev = sub("null");
        if (mknod(dev, S_IFCHR | 0666, makedev(1, 3)) != 0) {
            check_skip("writing at a character device as root", strerror(errno));
            return;
        }
    }
    refuse_at(w, dev, S_IFCHR, "character device");
    if (geteuid() == 0) unlink(dev);
}

/* ---- readers: Matrix Market ---- */

/* a child writing pattern to the FIFO at path forever (until its reader goes: SIGPIPE) */
static pid_t endless_writer(const char *path, char byte, const char *first) {
    static char block[65536];
    memset(block, byte, sizeof block);
    size_t fl = first ? strlen(first) : 0;
    pid_t pid = fork();
    if (pid == 0) { /* only async-signal-safe calls here */
        int fd = open(path, O_WRONLY);
        if (fd < 0) _exit(1);
        if (fl && write(fd, first, fl) < 0) _exit(0);
        for (;;)
            if (write(fd, block, sizeof block) < 0) _exit(0);
    }
    return pid;
}

static void stop(pid_t pid) {
    if (pid <= 0) return;
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

static void test_mm_readers(void) {
    probe_result p;
    probe_run((const char *const[]){"mm-read", "/dev/zero", NULL}, 20, &p);
    probe_expect(&p, TEXLA_ERR_IO, MAX_S, MAX_MB, "texla_mm_read(/dev/zero)",
                 NEEDLES("character device"));
    probe_run((const char *const[]){"mm-read", "/dev/urandom", NULL}, 20, &p);
    probe_expect(&p, TEXLA_ERR_IO, MAX_S, MAX_MB, "texla_mm_read(/dev/urandom)",
                 NEEDLES("character device"));
    probe_run((const char *const[]){"mm-read", dir, NULL}, 20, &p);
    probe_expect(&p, TEXLA_ERR_IO, MAX_S, MAX_MB, "texla_mm_read(a directory)",
                 NEEDLES("directory"));

    const char *fifo = sub("mm_fifo");
    CHECK(mkfifo(fifo, 0666) == 0, "mkfifo: %s", strerror(errno));
    /* endless NUL bytes (cat /dev/zero | ...): stopped at the first */
    pid_t w = endless_writer(fifo, '\0', NULL);
    probe_run((const char *const[]){"mm-read", fifo, NULL}, 20, &p);
    stop(w);
    probe_expect(&p, TEXLA_ERR_FORMAT, MAX_S, MAX_MB, "texla_mm_read(a pipe of NUL bytes)",
                 NEEDLES(":1: NUL byte"));
    /* an endless data line: stopped at the 1 MiB limit */
    w = endless_writer(fifo, '7', "%%MatrixMarket matrix array real general\n");
    probe_run((const char *const[]){"mm-read", fifo, NULL}, 20, &p);
    stop(w);
    probe_expect(&p, TEXLA_ERR_FORMAT, MAX_S, MAX_MB, "texla_mm_read(a pipe of one endless line)",
                 NEEDLES(":2: line longer than 1048576"));
    /* an endless banner */
    w = endless_writer(fifo, 'M', "%%");
    probe_run((const char *const[]){"mm-read", fifo, NULL}, 20, &p);
    stop(w);
    probe_expect(&p, TEXLA_ERR_FORMAT, MAX_S, MAX_MB, "texla_mm_read(a pipe of an endless banner)",
                 NEEDLES(":1: line longer than"));
    /* a good file through a pipe still reads */
    pid_t pid = fork();
    if (pid == 0) {
        static const char good[] = "%%MatrixMarket matrix array real general\n1 2\n3\n-4\n";
        int fd = open(fifo, O_WRONLY);
        if (fd >= 0 && write(fd, good, sizeof good - 1) < 0) _exit(1);
        _exit(0);
    }
    probe_run((const char *const[]){"mm-read", fifo, NULL}, 20, &p);
    stop(pid);
    probe_expect(&p, TEXLA_OK, MAX_S, MAX_MB, "texla_mm_read(a good file through a pipe)", NULL);
    unlink(fifo);

    /* a regular file with a 3 MiB line: refused at the limit */
    const char *big = sub("long.mtx");
    FILE *f = fopen(big, "wb");
    if (f) {
        fputs("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 ", f);
        for (int i = 0; i < 3 << 20; i++) fputc('1', f);
        fputs("\n", f);
        fclose(f);
    }
    probe_run((const char *const[]){"mm-read", big, NULL}, 20, &p);
    probe_expect(&p, TEXLA_ERR_FORMAT, MAX_S, MAX_MB, "texla_mm_read(a 3 MiB line)",
                 NEEDLES(":3: line longer than 1048576"));
    unlink(big);
}

/* ---- readers: PNG ---- */

typedef struct bits {
    uint8_t *p;
    size_t n, cap;
    uint32_t acc;
    int nb;
} bits;

static void put(bits *b, uint32_t v, int n) { /* LSB first, as deflate's fields */
    b->acc |= v << b->nb;
    b->nb += n;
    while (b->nb >= 8) {
        b->p[b->n++] = (uint8_t)b->acc;
        b->acc >>= 8;
        b->nb -= 8;
    }
}

static void put_code(bits *b, uint32_t code, int len) { /* Huffman codes go MSB first */
    uint32_t r = 0;
    for (int i = 0; i < len; i++) r |= ((code >> i) & 1u) << (len - 1 - i);
    put(b, r, len);
}

/* a zlib stream of n zero bytes (malloc'd, *len bytes): one dynamic block whose codes are
 * literal 0: 10, literal 1: 110 (unused), end: 111, length 258: 0; distance 1: 0. So after
 * the first literal every 258 zeros cost two 0 bits: about n / 1032 bytes. */
static uint8_t *zeros_zlib(uint64_t n, size_t *len) {
    bits b = {0};
    b.cap = (size_t)(n / 1032) + 256;
    b.p = calloc(b.cap, 1);
    if (!b.p) return NULL;
    b.p[b.n++] = 0x78, b.p[b.n++] = 0x01;
    put(&b, 1, 1), put(&b, 2, 2);              /* the last block; dynamic Huffman */
    put(&b, 29, 5), put(&b, 0, 5), put(&b, 14, 4); /* 286 literal/length codes, 1 distance
                                                      code, 18 code-length codes */
    static const int order[18] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1};
    for (int i = 0; i < 18; i++) { /* code-length codes: 1, 2, 3, 18 of 2 bits each */
        int s = order[i];
        put(&b, s == 1 || s == 2 || s == 3 || s == 18 ? 2 : 0, 3);
    }
    /* canonical code-length codes: 1 -> 00, 2 -> 01, 3 -> 10, 18 -> 11 */
    put_code(&b, 1, 2);                          /* literal 0: length 2 */
    put_code(&b, 2, 2);                          /* literal 1: length 3 */
    put_code(&b, 3, 2), put(&b, 138 - 11, 7);    /* 2..139: 0 */
    put_code(&b, 3, 2), put(&b, 116 - 11, 7);    /* 140..255: 0 */
    put_code(&b, 2, 2);                          /* 256 (end): length 3 */
    put_code(&b, 3, 2), put(&b, 28 - 11, 7);     /* 257..284: 0 */
    put_code(&b, 0, 2);                          /* 285 (length 258): length 1 */
    put_code(&b, 0, 2);                          /* distance code 0 (distance 1): length 1 */
    uint64_t left = n;
    if (left) put_code(&b, 2, 2), left--;        /* literal 0 */
    for (uint64_t k = left / 258; k > 0; k--) {
        if (k >= 4 * 4096) { /* 32768 zero bits at a time: the pending bits' byte, then zero
                                bytes (calloc'd), then as many zero bits pending as before */
            b.p[b.n] = (uint8_t)b.acc;
            b.n += 4096, b.acc = 0, k -= 4 * 4096 - 1;
            continue;
        }
        put(&b, 0, 2);                           /* length 258, distance 1 */
    }
    for (uint64_t k = left % 258; k > 0; k--) put_code(&b, 2, 2);
    put_code(&b, 7, 3);                          /* end of block */
    if (b.nb) put(&b, 0, 8 - b.nb);
    uint32_t adler = (uint32_t)(n % 65521) << 16 | 1u; /* a = 1, b = n (every byte is 0) */
    for (int i = 3; i >= 0; i--) b.p[b.n++] = (uint8_t)(adler >> (8 * i));
    *len = b.n;
    return b.p;
}

static uint32_t crc_of(const uint8_t *p, size_t n, uint32_t c) {
    static uint32_t t[256];
    if (!t[1])
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t x = i;
            for (int k = 0; k < 8; k++) x = x & 1 ? 0xEDB88320u ^ (x >> 1) : x >> 1;
            t[i] = x;
        }
    for (size_t i = 0; i < n; i++) c = t[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c;
}

static void be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

/* one chunk; declared: the length written in its header (the data may be shorter) */
static void chunk(FILE *f, const char *type, const uint8_t *data, size_t n, uint32_t declared) {
    uint8_t h[8];
    be32(h, declared);
    memcpy(h + 4, type, 4);
    uint32_t c = crc_of((const uint8_t *)type, 4, 0xFFFFFFFFu);
    c = crc_of(data, n, c) ^ 0xFFFFFFFFu;
    uint8_t t[4];
    be32(t, c);
    fwrite(h, 1, 8, f);
    if (n) fwrite(data, 1, n, f);
    fwrite(t, 1, 4, f);
}

static void ihdr(FILE *f, uint32_t w, uint32_t h, int depth, int colour) {
    uint8_t d[13] = {0};
    be32(d, w), be32(d + 4, h);
    d[8] = (uint8_t)depth, d[9] = (uint8_t)colour;
    fwrite("\x89PNG\r\n\x1a\n", 1, 8, f);
    chunk(f, "IHDR", d, 13, 13);
}

/* a w x h image (8-bit, colour type colour with ch channels) of zeros; before: chunks to put
 * before the image data */
static void zero_png(const char *path, uint32_t w, uint32_t h, int colour, int ch,
                     void (*before)(FILE *)) {
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "cannot create %s", path);
    if (!f) return;
    ihdr(f, w, h, 8, colour);
    if (before) before(f);
    size_t len;
    uint8_t *z = zeros_zlib((uint64_t)h * (1 + (uint64_t)w * (uint64_t)ch), &len);
    for (size_t at = 0; z && at < len; at += 1 << 20) {
        size_t k = len - at < (1u << 20) ? len - at : 1u << 20;
        chunk(f, "IDAT", z + at, k, (uint32_t)k);
    }
    free(z);
    chunk(f, "IEND", NULL, 0, 0);
    fclose(f);
}

static void ztxt_bomb(FILE *f) { /* a zTXt chunk that inflates to 256 MB */
    size_t len;
    uint8_t *z = zeros_zlib(256u << 20, &len);
    if (!z) return;
    uint8_t *d = malloc(len + 9);
    if (d) {
        memcpy(d, "Comment\0\0", 9);
        memcpy(d + 9, z, len);
        chunk(f, "zTXt", d, len + 9, (uint32_t)(len + 9));
        free(d);
    }
    free(z);
}

static void many_texts(FILE *f) {
    for (int i = 0; i < 300; i++) chunk(f, "tEXt", (const uint8_t *)"k\0v", 3, 3);
}

static void test_png_readers(void) {
    probe_result p;
    /* the generator's own check: a small zero image reads back as zeros */
    const char *small = sub("zeros.png");
    zero_png(small, 301, 7, 2, 3, NULL);
    texla_mat m;
    if (CHECK_OK(ctx, texla_png_read(ctx, small, &m), "a 301 x 7 RGB image of zeros made here")) {
        texla_mat_info mi;
        float *v = check_alloc(301 * 7, sizeof *v);
        CHECK_OK(ctx, texla_mat_info_get(ctx, m, &mi), "info");
        CHECK(mi.rows == 7 && mi.cols == 301, "the zero image read as %d x %d", mi.rows, mi.cols);
        CHECK_OK(ctx, texla_mat_read(ctx, m, v), "read");
        int zero = 1;
        for (int i = 0; i < 301 * 7; i++) zero &= v[i] == 0.0f;
        CHECK(zero, "the zero image did not read as zeros");
        free(v);
        texla_mat_destroy(ctx, m);
    }
    unlink(small);

    /* 79 bytes: a 1 x 1 image and a tEXt chunk declaring 2 GB */
    const char *t79 = sub("t79.png");
    FILE *f = fopen(t79, "wb");
    if (f) {
        ihdr(f, 1, 1, 8, 0);
        uint8_t h[8];
        be32(h, 0x7FFFFFF0u);
        memcpy(h + 4, "tEXt", 4);
        fwrite(h, 1, 8, f);
        for (long at = ftell(f); at < 79; at++) fputc('x', f);
        fclose(f);
    }
    probe_run((const char *const[]){"png-read", t79, NULL}, 20, &p);
    probe_expect(&p, TEXLA_ERR_FORMAT, MAX_S, MAX_MB, "texla_png_read(79 bytes, tEXt of 2 GB)",
                 NEEDLES("malformed PNG", "too large"));
    unlink(t79);

    /* 3 MB that decode to 3.2 GB: the budget refuses it at the header */
    const char *bomb = sub("bomb.png");
    zero_png(bomb, 16384, 65536, 2, 3, NULL);
    struct stat st;
    CHECK(stat(bomb, &st) == 0 && st.st_size < (4 << 20), "the bomb is %lld bytes",
          (long long)st.st_size);
    probe_run((const char *const[]){"png-read", bomb, NULL}, 20, &p);
    probe_expect(&p, TEXLA_ERR_LIMIT, MAX_S, MAX_MB, "texla_png_read(16384 x 65536 RGB in 3 MB)",
                 NEEDLES("16384 x 65536", "budget of 67108864 pixels", "png_max_pixels"));
    unlink(bomb);

    /* a zTXt chunk that would inflate to 256 MB is skipped unread */
    const char *zb = sub("ztxt.png");
    zero_png(zb, 3, 2, 0, 1, ztxt_bomb);
    probe_run((const char *const[]){"png-read", zb, NULL}, 20, &p);
    probe_expect(&p, TEXLA_OK, MAX_S, MAX_MB, "texla_png_read(a 256 MB zTXt)", NULL);
    unlink(zb);

    /* more text chunks than kept */
    const char *mt = sub("texts.png");
    zero_png(mt, 2, 2, 0, 1, many_texts);
    probe_run((const char *const[]){"png-read", mt, NULL}, 20, &p);
    probe_expect(&p, TEXLA_ERR_FORMAT, MAX_S, MAX_MB, "texla_png_read(300 tEXt chunks)",
                 NEEDLES("chunk cache"));
    unlink(mt);

    probe_run((const char *const[]){"png-read", "/dev/zero", NULL}, 20, &p);
    probe_expect(&p, TEXLA_ERR_IO, MAX_S, MAX_MB, "texla_png_read(/dev/zero)",
                 NEEDLES("character device"));
    CHECK_CODE(ctx, texla_png_read(ctx, dir, &m), TEXLA_ERR_IO, "texla_png_read(a directory)");
    CHECK(strstr(texla_error_message(ctx), "directory") != NULL, "message: %s",
          texla_error_message(ctx));

    /* the budget's edge, and its setting */
    texla_ctx_desc d = {0};
    d.png_max_pixels = 100;
    d.tune_cache = "";
    texla_ctx *c100 = suite_ctx(&d);
    if (c100) {
        const char *at = sub("edge.png");
        zero_png(at, 10, 10, 0, 1, NULL);
        CHECK_CODE(c100, texla_png_read(c100, at, &m), TEXLA_OK, "10 x 10 with a budget of 100");
        texla_mat_destroy(c100, m);
        zero_png(at, 10, 11, 0, 1, NULL);
        CHECK_CODE(c100, texla_png_read(c100, at, &m), TEXLA_ERR_LIMIT,
                   "10 x 11 with a budget of 100");
        CHECK(m.id == 0, "a refused read returned a handle");
        CHECK(strstr(texla_error_message(c100), "110 pixels, over the budget of 100") != NULL,
              "message: %s", texla_error_message(c100));
        unlink(at);
        texla_ctx_destroy(c100);
    }
    d.png_max_pixels = -1;
    texla_ctx *bad = NULL;
    CHECK_CODE(NULL, texla_ctx_make(&d, &bad), TEXLA_ERR_ARGUMENT, "png_max_pixels -1");
    CHECK(bad == NULL && strstr(texla_error_message(NULL), "png_max_pixels") != NULL,
          "message: %s", texla_error_message(NULL));
}

/* the tuning cache named a FIFO: not waited on, not read, not replaced */
static void test_tune_cache(void) {
    const char *fifo = sub("tune_fifo");
    CHECK(mkfifo(fifo, 0666) == 0, "mkfifo: %s", strerror(errno));
    probe_result p;
    probe_run((const char *const[]){"tune-count", fifo, NULL}, 20, &p);
    probe_expect(&p, TEXLA_OK, MAX_S, MAX_MB, "a tuning cache that is a FIFO",
                 NEEDLES("not a regular file"));
    CHECK(is_kind(fifo, S_IFIFO), "the FIFO named as the tuning cache was replaced");
    unlink(fifo);
}

void suite_files(void) {
    if (!check_mkdtemp(dir, sizeof dir, "/tmp/texla-files-XXXXXX")) return;
    ctx = suite_ctx(NULL);
    if (!ctx) return;
    CHECK_OK(ctx, texla_mat_make(ctx, 2, 3, d23, &m23), "the matrix to write");
    for (int w = 0; w < W_COUNT; w++) {
        test_links(w);
        test_hard_link(w);
        test_special(w);
    }
    test_mm_readers();
    test_png_readers();
    test_tune_cache();
    texla_ctx_destroy(ctx);
    ctx = NULL;
    check_rmdir_all(dir);
}
