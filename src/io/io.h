/* io.h - what the file readers and writers share (io/). */
#ifndef TEXLA_IO_H
#define TEXLA_IO_H

#include "core/core.h"

/* ctx's error, or (ctx NULL: host-side I/O without a context) the thread's message */
#define texla__iofail(ctx, ...) texla__errf((ctx) ? &(ctx)->err : NULL, __VA_ARGS__)

#endif
