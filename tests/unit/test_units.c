/* test_units.c (build/bin/test-units) - library files tested on their own, linked with the GL
 * layer stubbed out: src/core/handles.c, src/core/tune.c, src/base/afile.c, src/base/error.c.
 *
 * - The handle table through the whole life of a slot: one slot made and destroyed until its
 *   24-bit generation is used up (2^24 - 2 objects, the real code path; a second or so). Every
 *   handle it gave is new, the first handle stays dead all along, the slot is then retired
 *   (never reused: later objects go to other slots) and none of its handles names anything,
 *   not even at the generation where the counter would have wrapped.
 * - Handles of another context (another tag) name nothing, whatever their slot and generation.
 * - The tuning cache's writer (the atomic writer under it): through a symbolic link the file it
 *   leads to is written and the link kept, a dangling link gets its file made; a FIFO or a
 *   directory named as the cache is never waited on, read or replaced (a warning instead).
 * - The default tuning budget of a sparse product against the entries it has.
 * Ends with the line "N passed, M failed, 0 skipped" (tests/run.sh adds it up). */
#define _XOPEN_SOURCE 700 /* S_IFMT */
#include "core/core.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int passed, failed;
#define EXPECT(cond, ...)                                                                      \
    do {                                                                                       \
        if (cond) {                                                                            \
            passed++;                                                                          \
        } else {                                                                               \
            failed++;                                                                          \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                            \
            printf(__VA_ARGS__);                                                               \
            printf("\n");                                                                      \
        }                                                                                      \
    } while (0)

/* ---- the GL layer, stubbed: handles.c frees an object's texture, inside the guard ---- */
static long textures_freed;
void texla__tex_free(texla__gl *g, texla__tex *t) {
    (void)g;
    textures_freed += t->tex != 0;
    t->tex = 0;
}
void texla__gl_enter(texla__gl *g) { (void)g; }
void texla__gl_leave(texla__gl *g) { (void)g; }
texla_result texla__gl_current(texla__gl *g, const char *what) {
    (void)g, (void)what;
    return TEXLA_OK;
}

#define SLOT(id) ((int)((id) & ((1u << TEXLA__SLOT_BITS) - 1u)))
#define GEN(id) ((uint32_t)(((id) >> TEXLA__SLOT_BITS) & ((1u << TEXLA__GEN_BITS) - 1u)))
#define HANDLE(tag, gen, slot)                                                                 \
    ((uint64_t)(tag) << (TEXLA__SLOT_BITS + TEXLA__GEN_BITS) |                                 \
     (uint64_t)(gen) << TEXLA__SLOT_BITS | (uint64_t)(slot))

static const texla__kind_desc kd = {"matrix", NULL, NULL, NULL};

static texla_ctx *fake_ctx(uint32_t tag) {
    texla_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) exit(2);
    ctx->tag = tag;
    return ctx;
}

static void free_ctx(texla_ctx *ctx) {
    texla__objs_destroy(ctx);
    texla__tune_free(ctx);
    free(ctx->objs);
    free(ctx);
}

static void test_slot_life(void) {
    texla_ctx *ctx = fake_ctx(7);
    uint64_t first, id, last = 0;
    texla__obj *o;
    EXPECT(texla__obj_new(ctx, TEXLA__KIND_MAT, &kd, &first, &o) == TEXLA_OK, "obj_new");
    EXPECT(SLOT(first) == 1 && GEN(first) == 1, "the first object: slot %d generation %u",
           SLOT(first), GEN(first));
    texla__obj_release(ctx, first);
    long made = 1, fresh = 1, first_dead = 1;
    uint32_t prev = GEN(first);
    for (;;) {
        if (texla__obj_new(ctx, TEXLA__KIND_MAT, &kd, &id, &o) != TEXLA_OK) break;
        if (SLOT(id) != 1) break; /* the slot is used up */
        if (made > (1L << TEXLA__GEN_BITS) + 2) break; /* its generation wrapped: it never is */
        made++;
        fresh &= GEN(id) > prev; /* so every handle of the slot is new */
        prev = GEN(id);
        first_dead &= texla__obj_get(ctx, first, TEXLA__KIND_MAT) == NULL;
        last = id;
        texla__obj_release(ctx, id);
    }
    EXPECT(made == (1L << TEXLA__GEN_BITS) - 2,
           "slot 1 held %ld objects before it was retired (expected 2^%d - 2)", made,
           TEXLA__GEN_BITS);
    EXPECT(fresh, "a generation of slot 1 came back");
    EXPECT(first_dead, "the first handle of slot 1 named a later object");
    EXPECT(SLOT(id) == 2, "after slot 1 was used up the next object went to slot %d", SLOT(id));
    /* id (slot 2) is live; none of slot 1's handles names anything, whatever its generation */
    uint32_t gens[] = {0, 1, 2, GEN(last), GEN(last) + 1, (1u << TEXLA__GEN_BITS) - 1};
    for (size_t i = 0; i < sizeof gens / sizeof gens[0]; i++) {
        uint64_t h = HANDLE(7, gens[i] & ((1u << TEXLA__GEN_BITS) - 1u), 1);
        EXPECT(texla__obj_get(ctx, h, TEXLA__KIND_MAT) == NULL,
               "slot 1 (retired) at generation %u names an object", gens[i]);
    }
    EXPECT(!strcmp(texla__handle_problem(ctx, last, TEXLA__KIND_MAT), "destroyed"),
           "the last handle of slot 1: \"%s\"", texla__handle_problem(ctx, last, TEXLA__KIND_MAT));
    /* destroying slot 1's handles (no-ops) leaves slot 2's object alive */
    texla__destroy(ctx, first, TEXLA__KIND_MAT);
    texla__destroy(ctx, last, TEXLA__KIND_MAT);
    EXPECT(texla__obj_get(ctx, id, TEXLA__KIND_MAT) != NULL, "slot 2's object was destroyed");
    /* the retired slot never comes back: many more cycles all land elsewhere */
    int reused = 0;
    texla__obj_release(ctx, id);
    for (int i = 0; i < 100000; i++) {
        uint64_t h;
        if (texla__obj_new(ctx, TEXLA__KIND_MAT, &kd, &h, &o)) break;
        reused |= SLOT(h) == 1;
        texla__obj_release(ctx, h);
    }
    EXPECT(!reused, "the retired slot 1 was given out again");
    printf("  slot 1: %ld objects, retired at generation %u; later objects in slot 2\n", made,
           prev);
    free_ctx(ctx);
}

static void test_other_tag(void) {
    texla_ctx *a = fake_ctx(1), *b = fake_ctx(2);
    uint64_t ha, hb;
    texla__obj *o;
    EXPECT(texla__obj_new(a, TEXLA__KIND_MAT, &kd, &ha, &o) == TEXLA_OK &&
               texla__obj_new(b, TEXLA__KIND_MAT, &kd, &hb, &o) == TEXLA_OK,
           "obj_new");
    EXPECT(SLOT(ha) == SLOT(hb) && GEN(ha) == GEN(hb) && ha != hb,
           "same slot and generation, different handles: %llx %llx", (unsigned long long)ha,
           (unsigned long long)hb);
    EXPECT(texla__obj_get(b, ha, TEXLA__KIND_MAT) == NULL, "b resolved a's handle");
    EXPECT(!strcmp(texla__handle_problem(b, ha, TEXLA__KIND_MAT),
                   "a handle of another texla context"),
           "the problem: \"%s\"", texla__handle_problem(b, ha, TEXLA__KIND_MAT));
    /* a value whose tag is 0 (a small integer) was never any context's handle */
    EXPECT(!strcmp(texla__handle_problem(b, 12345, TEXLA__KIND_MAT),
                   "no texla handle (no context's tag is 0)"),
           "the problem of 12345: \"%s\"", texla__handle_problem(b, 12345, TEXLA__KIND_MAT));
    texla__destroy(b, ha, TEXLA__KIND_MAT);
    EXPECT(texla__obj_get(a, ha, TEXLA__KIND_MAT) != NULL && texla__obj_get(b, hb, TEXLA__KIND_MAT),
           "destroying a's handle through b destroyed something");
    free_ctx(a);
    free_ctx(b);
}

/* ---- the tuning cache's writer ---- */

static char warned[1024];
static void on_warning(texla_result code, const char *message, void *user) {
    (void)code, (void)user;
    snprintf(warned, sizeof warned, "%s", message);
}

static texla_ctx *tune_ctx(const char *path) {
    texla_ctx *ctx = fake_ctx(9);
    snprintf(ctx->gl.info.renderer, sizeof ctx->gl.info.renderer, "unit renderer");
    snprintf(ctx->gl.info.version, sizeof ctx->gl.info.version, "4.5 unit");
    ctx->desc.tune_cache = path;
    ctx->desc.warning_cb = on_warning;
    return ctx;
}

static int file_has(const char *path, const char *text) {
    static char buf[16384];
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strstr(buf, text) != NULL;
}

static int is_kind(const char *path, mode_t kind) {
    struct stat st;
    return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == kind;
}

static void test_tune_writer(void) {
    char dir[] = "/tmp/texla-units-XXXXXX", p[4][300];
    if (!mkdtemp(dir)) {
        EXPECT(0, "mkdtemp: %s", strerror(errno));
        return;
    }
    const char *names[4] = {"real.txt", "link.txt", "dangling.txt", "made.txt"};
    for (int i = 0; i < 4; i++) snprintf(p[i], sizeof p[i], "%s/%s", dir, names[i]);
    FILE *f = fopen(p[0], "w");
    if (f) fputs("# texla tuning cache 1\n", f), fclose(f);
    EXPECT(symlink("real.txt", p[1]) == 0 && symlink("made.txt", p[2]) == 0, "symlink");

    texla_ctx *ctx = tune_ctx(p[1]);
    texla__tune_put(ctx, "unit key", "through a link");
    EXPECT(is_kind(p[1], S_IFLNK), "the cache's link was replaced");
    EXPECT(file_has(p[0], "unit key\tthrough a link"), "the file behind the link lacks the entry");
    { /* the lock is the file's, whatever name the cache was given */
        char lk0[1300], lk1[1300];
        snprintf(lk0, sizeof lk0, "%s.lock", p[0]);
        snprintf(lk1, sizeof lk1, "%s.lock", p[1]);
        EXPECT(is_kind(lk0, S_IFREG) && access(lk1, F_OK) != 0,
               "the lock of a cache named through a link is not beside the file it leads to");
    }
    free_ctx(ctx);

    ctx = tune_ctx(p[2]);
    texla__tune_put(ctx, "unit key", "dangling");
    EXPECT(is_kind(p[2], S_IFLNK) && file_has(p[3], "unit key\tdangling"),
           "a dangling link named as the cache: its file was not made, or the link replaced");
    free_ctx(ctx);

    /* a FIFO and a directory: a warning, no entries, nothing written (and no waiting) */
    char fifo[300], sub[300];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(sub, sizeof sub, "%s/adir", dir);
    EXPECT(mkfifo(fifo, 0666) == 0 && mkdir(sub, 0777) == 0, "mkfifo, mkdir");
    const char *special[2] = {fifo, sub};
    mode_t kind[2] = {S_IFIFO, S_IFDIR};
    for (int i = 0; i < 2; i++) {
        warned[0] = '\0';
        ctx = tune_ctx(special[i]);
        EXPECT(texla_tune_count(ctx) == 0, "entries read from %s", special[i]);
        EXPECT(strstr(warned, "not a regular file") != NULL, "the warning: \"%s\"", warned);
        texla__tune_put(ctx, "unit key", "v");
        EXPECT(is_kind(special[i], kind[i]), "%s was replaced", special[i]);
        free_ctx(ctx);
    }
    unlink(fifo), rmdir(sub);
    for (int i = 0; i < 4; i++) {
        char lk[1300];
        snprintf(lk, sizeof lk, "%s.lock", p[i]);
        unlink(p[i]), unlink(lk);
    }
    rmdir(dir);
}

/* two contexts sharing a cache file: each one's entries survive the other's writes (merged
 * into the file as it is when written), a key one context changed later is not written back
 * by the other, and a file whose first line is too long for a header is no cache of ours */
static void test_tune_merge(void) {
    char dir[] = "/tmp/texla-units-XXXXXX", p[300], lock[310], other[300];
    if (!mkdtemp(dir)) {
        EXPECT(0, "mkdtemp: %s", strerror(errno));
        return;
    }
    snprintf(p, sizeof p, "%s/tune.txt", dir);
    snprintf(lock, sizeof lock, "%s.lock", p);
    snprintf(other, sizeof other, "%s/other.txt", dir);
    texla_ctx *a = tune_ctx(p), *b = tune_ctx(p);
    EXPECT(texla_tune_count(a) == 0 && texla_tune_count(b) == 0, "entries in a new cache");
    texla__tune_put(b, "k1", "b1");
    texla__tune_put(a, "k2", "a2");
    EXPECT(file_has(p, "k1\tb1") && file_has(p, "k2\ta2"),
           "an entry of one context was lost by the other's write");
    EXPECT(texla_tune_count(a) == 2, "a holds %d entries after its write (want 2)", texla_tune_count(a));
    /* an entry a found invalid is dropped at a's next write (it came back from the file),
     * unless b has written another value for it since */
    texla__tune_put(b, "bad", "v1");
    texla__tune_put(b, "bad2", "w1");
    free_ctx(a);
    a = tune_ctx(p);
    char got[64];
    EXPECT(texla__tune_get(a, "bad", got, sizeof got) && texla__tune_get(a, "bad2", got, sizeof got),
           "the entries to invalidate are not read");
    texla__tune_invalid(a, "bad", "is a test");
    texla__tune_invalid(a, "bad2", "is a test");
    texla__tune_put(b, "bad2", "w2");
    texla__tune_put(a, "k9", "a9");
    EXPECT(!file_has(p, "bad\tv1") && file_has(p, "bad2\tw2") && file_has(p, "k9\ta9"),
           "after a's write: an invalid entry kept, or another context's newer value lost");
    EXPECT(!texla__tune_get(a, "bad", got, sizeof got),
           "an invalidated entry is found again after a write");
    texla__tune_put(b, "k2", "b2");
    texla__tune_put(a, "k3", "a3");
    EXPECT(file_has(p, "k2\tb2") && !file_has(p, "k2\ta2") && file_has(p, "k3\ta3") &&
           file_has(p, "k1\tb1"), "a wrote back its old k2, or lost an entry");
    free_ctx(a), free_ctx(b);

    FILE *f = fopen(other, "w");
    if (f) {
        for (int i = 0; i < 5000; i++) fputc('x', f);
        fputs("\nmy data\n", f);
        fclose(f);
    }
    warned[0] = '\0';
    a = tune_ctx(other);
    texla__tune_put(a, "k", "v");
    EXPECT(file_has(other, "my data") && !file_has(other, "k\tv"),
           "a file with a 5000-byte first line was taken for a cache");
    EXPECT(strstr(warned, "not a texla tuning cache") != NULL, "the warning: \"%s\"", warned);
    free_ctx(a);
    unlink(p), unlink(lock), unlink(other);
    rmdir(dir);
}

/* the default tuning budget: 6 s to 2^24 entries, in proportion past them, at most 24 s */
static void test_tune_budget(void) {
    static const struct {
        long long n;
        double ms;
    } c[] = {{0, 6e3}, {1, 6e3}, {1LL << 24, 6e3}, {(1LL << 24) + (1LL << 23), 9e3},
             {33554432, 12e3}, {1LL << 26, 24e3}, {1LL << 40, 24e3}, {-5, 6e3}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        double ms = texla__tune_budget_ms(c[i].n);
        EXPECT(fabs(ms - c[i].ms) < 1e-6, "tuning budget for %lld entries: %.1f ms, want %.1f",
               c[i].n, ms, c[i].ms);
    }
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("-- units: the handle table, the tuning cache's writer (GL stubbed)\n");
    test_slot_life();
    test_other_tag();
    test_tune_writer();
    test_tune_merge();
    test_tune_budget();
    printf("%d passed, %d failed, 0 skipped\n", passed, failed);
    return failed != 0;
}
