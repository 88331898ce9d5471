/* probe.c - see probe.h. */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- the probe: one call, measured ---- */

/* a field of /proc/self/status in MB ("VmRSS", "VmHWM": the peak of this address space;
 * getrusage's ru_maxrss would not do: Linux carries it across exec, so a probe started by
 * posix_spawn would report its parent's peak) */
static double status_mb(const char *field) {
    char line[256];
    double kb = 0;
    size_t n = strlen(field);
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, field, n) && line[n] == ':') kb = strtod(line + n + 1, NULL);
    fclose(f);
    return kb / 1024.0;
}

/* the peak (VmHWM) starts again from the resident size now (Linux >= 4.0) */
static void reset_peak(void) {
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
}

static char note[1024]; /* the last warning (tune-count) */
static void on_warning(texla_result code, const char *message, void *user) {
    (void)code, (void)user;
    snprintf(note, sizeof note, "%s", message);
}

int probe_main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test-texla --probe WHAT PATH [ARG]\n");
        return 2;
    }
    const char *what = argv[0], *path = argv[1];
    texla_ctx *ctx = NULL;
    if (!strcmp(what, "png-read") || !strcmp(what, "png-write") || !strcmp(what, "tune-count")) {
        texla_ctx_desc d = {0};
        d.tune_cache = strcmp(what, "tune-count") ? "" : path;
        d.warning_cb = on_warning;
        if (argc > 2) d.png_max_pixels = strtoll(argv[2], NULL, 0);
        if (texla_ctx_make(&d, &ctx)) {
            printf("nocontext %s\n", texla_error_message(NULL));
            return 3;
        }
    }
    static const float m22[4] = {1, 2, 3, 4};
    texla_mat m = {0};
    if (!strcmp(what, "png-write") && texla_mat_make(ctx, 2, 2, m22, &m)) {
        printf("nocontext %s\n", texla_error_message(ctx));
        return 3;
    }
    reset_peak();
    double before = status_mb("VmRSS"), t0 = check_now();
    texla_result r;
    if (!strcmp(what, "mm-read")) {
        texla_mm mm;
        r = texla_mm_read(NULL, path, &mm);
        texla_mm_free(&mm);
    } else if (!strcmp(what, "mm-write")) {
        r = texla_mm_write_array(NULL, path, 2, 2, m22);
    } else if (!strcmp(what, "png-read")) {
        texla_mat out;
        r = texla_png_read(ctx, path, &out);
    } else if (!strcmp(what, "png-write")) {
        r = texla_png_mat(ctx, m, path, NULL);
    } else if (!strcmp(what, "tune-count")) {
        int n = texla_tune_count(ctx);
        r = n == 0 ? TEXLA_OK : TEXLA_ERR_FORMAT; /* a cache it may not read has no entries */
    } else {
        fprintf(stderr, "test-texla --probe: unknown %s\n", what);
        return 2;
    }
    double secs = check_now() - t0, grew = status_mb("VmHWM") - before;
    const char *msg = texla_error_message(ctx);
    printf("probe %d %.6f %.3f %s\n", (int)r, secs, grew < 0 ? 0.0 : grew, r ? msg : note);
    fflush(stdout);
    texla_ctx_destroy(ctx);
    return 0;
}

/* ---- the parent ---- */

void probe_run(const char *const *args, double timeout_s, probe_result *out) {
    memset(out, 0, sizeof *out);
    const char *argv[16] = {"/proc/self/exe", "--probe"};
    int n = 2;
    for (int i = 0; args[i] && n < 15; i++) argv[n++] = args[i];
    argv[n] = NULL;
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(out->why, sizeof out->why, "pipe: %s", strerror(errno));
        return;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    pid_t pid;
    int e = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (e) {
        close(fds[0]);
        snprintf(out->why, sizeof out->why, "posix_spawn: %s", strerror(e));
        return;
    }
    char buf[4096];
    size_t len = 0;
    double t0 = check_now();
    for (;;) {
        double left = timeout_s - (check_now() - t0);
        if (left <= 0) {
            out->timed_out = 1;
            kill(pid, SIGKILL);
            break;
        }
        struct pollfd p = {fds[0], POLLIN, 0};
        int k = poll(&p, 1, (int)(left * 1000) + 1);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) continue;
        ssize_t got = read(fds[0], buf + len, sizeof buf - 1 - len);
        if (got <= 0) break; /* the probe ended (or closed its output) */
        len += (size_t)got;
        if (len == sizeof buf - 1) break;
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    buf[len] = '\0';
    char *line = strstr(buf, "probe ");
    int code;
    if (!out->timed_out && line &&
        sscanf(line, "probe %d %lf %lf", &code, &out->seconds, &out->grew_mb) == 3) {
        out->ran = 1;
        out->code = (texla_result)code;
        const char *m = line;
        for (int sp = 0; sp < 4 && m; sp++) m = strchr(m + 1, ' ');
        snprintf(out->msg, sizeof out->msg, "%s", m ? m + 1 : "");
        size_t ml = strlen(out->msg);
        if (ml && out->msg[ml - 1] == '\n') out->msg[ml - 1] = '\0';
    } else if (out->timed_out) {
        snprintf(out->why, sizeof out->why, "killed after %.0f s (it hung)", timeout_s);
    } else if (WIFSIGNALED(status)) {
        snprintf(out->why, sizeof out->why, "died of signal %d", WTERMSIG(status));
    } else {
        snprintf(out->why, sizeof out->why, "exit %d without a report: %.200s",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1, buf);
    }
}

void probe_expect(const probe_result *p, texla_result want, double max_s, double max_mb,
                  const char *what, const char *const *needles) {
    CHECK(p->ran, "%s: the probe did not report: %s", what, p->why);
    if (!p->ran) return;
    printf("  %s: %s in %.3f s, %.1f MB\n", what, texla_result_name(p->code), p->seconds,
           p->grew_mb);
    CHECK(p->code == want, "%s: returned %s, expected %s (message: \"%s\")", what,
          texla_result_name(p->code), texla_result_name(want), p->msg);
    for (int i = 0; needles && needles[i]; i++)
        CHECK(strstr(p->msg, needles[i]) != NULL, "%s: the message \"%s\" does not say \"%s\"",
              what, p->msg, needles[i]);
    CHECK(p->seconds < max_s, "%s: took %.2f s (bound %.1f s)", what, p->seconds, max_s);
    CHECK(p->grew_mb < max_mb, "%s: used %.0f MB (bound %.0f MB)", what, p->grew_mb, max_mb);
}
