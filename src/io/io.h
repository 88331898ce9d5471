/* io.h - what the file readers and writers share (io/): atomic file writes. */
#ifndef TEXLA_IO_H
#define TEXLA_IO_H

#include "core/core.h"

/* atomic file writes (afile.c): write to a->f, then commit (rename over path) */
typedef struct texla__afile {
    FILE *f;
    char *tmp;
    const char *path;
} texla__afile;
texla_result texla__afile_open(texla_ctx *ctx, const char *fn, const char *path, texla__afile *a);
/* err/what: an earlier write's errno and a word for it (what NULL: all went well); always
 * closes; on failure removes the temporary file and leaves path untouched */
texla_result texla__afile_commit(texla_ctx *ctx, const char *fn, texla__afile *a, int err,
                                 const char *what);
/* ctx's error, or (ctx NULL: host-side I/O without a context) the thread's message */
#define texla__iofail(ctx, ...) texla__errf((ctx) ? &(ctx)->err : NULL, __VA_ARGS__)

#endif
