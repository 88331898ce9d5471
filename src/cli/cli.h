/* cli.h - the texla command-line program: its script language's syntax tree, parser and
 * interpreter. Built on texla's public API only (texla.h); not part of the library. */
#ifndef TEXLA_CLI_H
#define TEXLA_CLI_H

#include "texla.h"

#include <stddef.h>
#include <stdio.h>

#if defined(__GNUC__) || defined(__clang__)
#define CLI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLI_PRINTF(f, a)
#endif

/* A place in the script: line and column, both from 1 (columns count bytes). */
typedef struct pos {
    int line, col;
} pos;

/* Every allocation of a parse, freed at once. */
typedef struct arena {
    void **ptrs;
    size_t n, cap;
} arena;
void *arena_alloc(arena *a, size_t size); /* zeroed; NULL when out of memory */
char *arena_strndup(arena *a, const char *s, size_t n);
void arena_free(arena *a);

/* ---- syntax tree ---- */

typedef enum node_kind {
    N_NUM,   /* number literal */
    N_VAR,   /* variable */
    N_CALL,  /* name(args) */
    N_LOAD,  /* load "path" [as dense|banded|sparse] */
    N_NEG,   /* -a */
    N_TRANS, /* a' */
    N_BIN,   /* a op b */
    N_STR    /* a string: only as an item of print */
} node_kind;

typedef enum load_as { AS_AUTO, AS_DENSE, AS_BANDED, AS_SPARSE } load_as;

/* binary operators (besides '+', '-', '*', '/') */
#define OP_EMUL 'e' /* .* */

typedef struct node {
    node_kind kind;
    pos at;            /* the operator, name, literal or keyword */
    int src0, src1;    /* its text: script bytes [src0, src1) */
    double num;        /* N_NUM */
    const char *name;  /* N_VAR, N_CALL; N_LOAD: the path as written */
    int op;            /* N_BIN */
    struct node *a, *b;
    struct node **args; /* N_CALL */
    int nargs;
    load_as as;        /* N_LOAD */
} node;

typedef enum stmt_kind { S_ASSIGN, S_SAVE, S_PNG, S_PRINT, S_TIME } stmt_kind;

typedef struct stmt {
    stmt_kind kind;
    pos at;            /* the keyword, or the variable of an assignment */
    int src0, src1;
    const char *name;  /* S_ASSIGN */
    node *e;           /* S_ASSIGN, S_SAVE, S_PNG, S_PRINT */
    const char *path;  /* S_SAVE, S_PNG */
    pos path_at;
    /* png options */
    int raw;
    int map;           /* texla_png_map */
    node *lo, *hi;     /* range LO HI (NULL: automatic) */
    node *scale;       /* scale K (NULL: 1) */
    int colorbar, plot, log_y, spy, annotate; /* spy: texla_png_spy */
    const char *title;
    node *width, *height; /* size W H (plot) */
    struct stmt *inner; /* S_TIME */
    node **items;      /* S_PRINT: what to print, strings (N_STR) and values */
    int nitems;
    const char *hist;  /* history "FILE": the residual plot of the statement's last solve */
    pos hist_at;
} stmt;

typedef struct script {
    const char *file;  /* the name in messages ("<stdin>" for standard input) */
    const char *dir;   /* folder of the script, relative load paths start there ("" = cwd) */
    const char *text;
    size_t len;
    stmt **stmts;
    int nstmts;
    arena mem;
} script;

/* A message with its place, for FILE:LINE:COLUMN: error: MESSAGE. */
typedef struct diag {
    pos at;
    char msg[2048];
} diag;

/* Parses the whole script (text must stay alive with sc). Returns 0, or -1 with the first
 * syntax error in *err. */
int script_parse(script *sc, diag *err);
void script_free(script *sc);

/* The builtins' argument counts, for the parser: 0 when name(nargs arguments) may be valid
 * (a builtin with an acceptable count, or not a builtin), else -1 and why. */
int call_arity_check(const char *name, int nargs, char *why, size_t n);
/* 1: name is a builtin function (no variable may take its name) */
int is_builtin(const char *name);

/* How a script runs (texla run's options). */
typedef struct run_opts {
    int strict;   /* 1: a solve that does not reach its tolerance is an error */
    int progress; /* solver progress on stderr: -1 when stderr is a terminal and a solve takes
                     over a second; 0 never; 1 always */
} run_opts;

/* Runs a parsed script on ctx, printing to out (opt NULL: defaults). Returns 0, or -1 with the
 * error in *err. */
int script_run(texla_ctx *ctx, const script *sc, const run_opts *opt, FILE *out, diag *err);

/* ---- random numbers (rand): MRG32k3a, see values.c ---- */
typedef struct mrg {
    double s1[3], s2[3];
} mrg;
void mrg_seed(mrg *g, unsigned long seed);
double mrg_next(mrg *g);           /* uniform in (0, 1) */
float mrg_uniform_pm1(mrg *g);     /* uniform in [-1, 1), multiples of 2^-23 */

/* interp.c: the errno of the first failed flush of a script's output (0: none), for main's
 * message (a later flush of the emptied buffer succeeds and says nothing) */
extern int cli_out_errno;

/* tune.c: `texla tune FILE.mtx ...` (argv as main's; backend: the global --backend, which the
 * command's own overrides), and the tuning cache for `texla info` */
int cli_tune(int argc, char **argv, texla_backend backend);
void cli_tune_list(texla_ctx *ctx, FILE *out);
/* the CLI's contexts' warning_cb: "texla: warning: MESSAGE" on stderr, counted */
void cli_warning(texla_result code, const char *message, void *user);
extern int cli_warnings;

#endif /* TEXLA_CLI_H */
