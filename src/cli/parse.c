/* parse.c - lexer and recursive-descent parser of texla scripts. The whole script is parsed
 * before anything runs, so a syntax error anywhere stops it with no side effects.
 *
 *   script    := { line }
 *   line      := [ statement { ';' statement } ] [ '#' comment ] NEWLINE
 *   statement := NAME '=' expr
 *              | 'save' expr STRING
 *              | 'png' expr STRING { 'raw' | 'map' NAME | 'range' unary unary | 'scale' unary
 *                                   | 'colorbar' | 'plot' | 'log' | 'spy' | 'colour' | 'labels'
 *                                   | 'title' STRING | 'size' unary unary }
 *              | 'print' item { ',' item }        item := STRING | expr
 *              | 'time' statement
 *   (any statement may end with: 'history' STRING, the residual plot of its last solve)
 *   expr      := term { ('+' | '-') term }
 *   term      := unary { ('*' | '.*' | '/') unary }
 *   unary     := ('-' | '+') unary | postfix
 *   postfix   := primary { "'" }
 *   primary   := NUMBER | NAME | NAME '(' [ expr { ',' expr } ] ')' | '(' expr ')'
 *              | 'load' STRING [ 'as' ('dense' | 'banded' | 'sparse') ]
 */
#include "cli.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena ---- */

void *arena_alloc(arena *a, size_t size) {
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 64;
        void **p = realloc(a->ptrs, cap * sizeof *p);
        if (!p) return NULL;
        a->ptrs = p;
        a->cap = cap;
    }
    void *m = calloc(1, size ? size : 1);
    if (m) a->ptrs[a->n++] = m;
    return m;
}

char *arena_strndup(arena *a, const char *s, size_t n) {
    char *d = arena_alloc(a, n + 1);
    if (d) memcpy(d, s, n);
    return d;
}

void arena_free(arena *a) {
    for (size_t i = 0; i < a->n; i++) free(a->ptrs[i]);
    free(a->ptrs);
    memset(a, 0, sizeof *a);
}

/* ---- lexer ---- */

typedef enum tok_kind {
    T_EOF, T_EOL, T_NAME, T_NUM, T_STR, T_OP
} tok_kind;

typedef struct token {
    tok_kind kind;
    pos at;
    int src0, src1;   /* its bytes in the text */
    int op;           /* T_OP: '=', '+', '-', '*', '/', OP_EMUL, '\'', '(', ')', ',' */
    double num;       /* T_NUM */
    const char *str;  /* T_NAME, T_STR (unescaped) */
} token;

typedef struct parser {
    script *sc;
    diag *err;
    size_t i;         /* next byte */
    int line, col;    /* of byte i */
    token tok;        /* the current token */
    int failed;
    int depth;        /* parse_expr calls in progress (nesting) */
} parser;

#define MAX_NEST 256 /* levels of parentheses and call arguments */

static int fail(parser *p, pos at, const char *fmt, ...) CLI_PRINTF(3, 4);
static int fail(parser *p, pos at, const char *fmt, ...) {
    if (p->failed) return -1;
    p->failed = 1;
    p->err->at = at;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err->msg, sizeof p->err->msg, fmt, ap);
    va_end(ap);
    return -1;
}

static int oom(parser *p) { return fail(p, p->tok.at, "out of memory"); }

static int peekc(const parser *p, size_t k) {
    return p->i + k < p->sc->len ? (unsigned char)p->sc->text[p->i + k] : -1;
}

static void adv(parser *p) {
    if (p->sc->text[p->i] == '\n') p->line++, p->col = 1;
    else p->col++;
    p->i++;
}

static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_word(int c) { return is_alpha(c) || is_digit(c); }

/* A number: digits [. digits] [e [+-] digits], or . digits ...; anything glued to it that
 * could continue a word or number makes the whole run a bad number. */
static int lex_number(parser *p, token *t) {
    size_t s = p->i;
    int ok = 1, digits = 0;
    while (is_digit(peekc(p, 0))) adv(p), digits++;
    if (peekc(p, 0) == '.' && peekc(p, 1) != '*') {
        adv(p);
        while (is_digit(peekc(p, 0))) adv(p), digits++;
    }
    if (!digits) ok = 0;
    if (peekc(p, 0) == 'e' || peekc(p, 0) == 'E') {
        adv(p);
        if (peekc(p, 0) == '+' || peekc(p, 0) == '-') adv(p);
        if (!is_digit(peekc(p, 0))) ok = 0;
        while (is_digit(peekc(p, 0))) adv(p);
    }
    /* glued letters, digits or a second point: take the whole run for the message */
    while (is_word(peekc(p, 0)) || (peekc(p, 0) == '.' && peekc(p, 1) != '*')) adv(p), ok = 0;
    const char *txt = p->sc->text + s;
    int len = (int)(p->i - s);
    if (!ok) return fail(p, t->at, "bad number '%.*s'", len, txt);
    /* a long literal (a run of zeros) in a buffer of its own: strtod needs the NUL */
    char small[128], *buf = small;
    if (len >= (int)sizeof small && !(buf = malloc((size_t)len + 1))) return oom(p);
    memcpy(buf, txt, (size_t)len);
    buf[len] = '\0';
    errno = 0;
    char *end;
    double v = strtod(buf, &end);
    /* ERANGE with a result of at most DBL_MIN is an underflow: strtod returns the subnormal (or
     * zero) nearest, which is the number (1e-310 was made 0) */
    int bad = *end || !isfinite(v) || (errno == ERANGE && fabs(v) > DBL_MIN);
    if (bad) fail(p, t->at, "bad number '%.60s%s' (out of range)", buf, len > 60 ? "..." : "");
    if (buf != small) free(buf);
    if (bad) return 1;
    t->kind = T_NUM;
    t->num = v;
    return 0;
}

static int lex_string(parser *p, token *t) {
    adv(p); /* the opening quote */
    size_t cap = 64, n = 0;
    char *buf = malloc(cap);
    if (!buf) return oom(p);
    for (;;) {
        int c = peekc(p, 0);
        if (c < 0 || c == '\n') {
            free(buf);
            return fail(p, t->at, "unterminated string (a string ends with \" on the same line)");
        }
        if (c == '"') {
            adv(p);
            break;
        }
        if (c == '\\') {
            int e = peekc(p, 1);
            if (e != '"' && e != '\\') {
                pos at = {p->line, p->col};
                free(buf);
                return fail(p, at, "unknown escape '\\%c' in a string (only \\\" and \\\\)",
                            e < 0 || e == '\n' ? ' ' : e);
            }
            adv(p);
            c = e;
        }
        if (c == 0) {
            pos at = {p->line, p->col};
            free(buf);
            return fail(p, at, "NUL byte in a string");
        }
        if (n + 2 > cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                return oom(p);
            }
            buf = nb;
        }
        buf[n++] = (char)c;
        adv(p);
    }
    t->kind = T_STR;
    t->str = arena_strndup(&p->sc->mem, buf, n);
    free(buf);
    return t->str ? 0 : oom(p);
}

/* Reads the next token into p->tok. */
static int next(parser *p) {
    token t = {0};
    for (;;) {
        int c = peekc(p, 0);
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') adv(p);
        else if (c == '#')
            while (peekc(p, 0) >= 0 && peekc(p, 0) != '\n') adv(p);
        else break;
    }
    t.at = (pos){p->line, p->col};
    t.src0 = (int)p->i;
    int c = peekc(p, 0);
    int r = 0;
    if (c < 0) t.kind = T_EOF;
    else if (c == '\n' || c == ';') {
        t.kind = T_EOL;
        adv(p);
    } else if (is_alpha(c)) {
        size_t s = p->i;
        while (is_word(peekc(p, 0))) adv(p);
        t.kind = T_NAME;
        t.str = arena_strndup(&p->sc->mem, p->sc->text + s, p->i - s);
        if (!t.str) r = oom(p);
    } else if (is_digit(c) || (c == '.' && is_digit(peekc(p, 1)))) {
        r = lex_number(p, &t);
    } else if (c == '"') {
        r = lex_string(p, &t);
    } else if (c == '.' && peekc(p, 1) == '*') {
        t.kind = T_OP;
        t.op = OP_EMUL;
        adv(p), adv(p);
    } else if (strchr("=+-*/'(),", c) && c) {
        t.kind = T_OP;
        t.op = c;
        adv(p);
    } else if (c >= 0x20 && c < 0x7f) {
        r = fail(p, t.at, "unexpected character '%c'", c);
    } else {
        r = fail(p, t.at, "unexpected byte 0x%02x", (unsigned)c);
    }
    t.src1 = (int)p->i;
    p->tok = t;
    return r;
}


/* ---- parser ---- */

static const char *describe(const token *t, const char *text, char *buf, size_t n) {
    switch (t->kind) {
    case T_EOF: return "the end of the script";
    case T_EOL: return text[t->src0] == ';' ? "';'" : "the end of the line";
    case T_NAME: snprintf(buf, n, "'%.60s'", t->str); break;
    case T_NUM: snprintf(buf, n, "number '%.*s'", t->src1 - t->src0 > 60 ? 60 : t->src1 - t->src0,
                         text + t->src0); break;
    case T_STR: snprintf(buf, n, "string \"%.60s\"", t->str); break;
    case T_OP:
        if (t->op == OP_EMUL) snprintf(buf, n, "'.*'");
        else snprintf(buf, n, "'%c'", t->op);
        break;
    }
    return buf;
}

#define DESC(p) describe(&(p)->tok, (p)->sc->text, dbuf, sizeof dbuf)

static const char *const reserved[] = {"load", "save", "png", "print", "time", "as"};

static int is_reserved(const char *s) {
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (!strcmp(s, reserved[i])) return 1;
    return 0;
}

static int is_name(const parser *p, const char *s) {
    return p->tok.kind == T_NAME && !strcmp(p->tok.str, s);
}

static int is_op(const parser *p, int op) { return p->tok.kind == T_OP && p->tok.op == op; }

/* Consumes the current token; *end (if given) gets its end offset. */
static int eat(parser *p, int *end) {
    if (end) *end = p->tok.src1;
    return next(p);
}

static node *new_node(parser *p, node_kind k, pos at, int src0) {
    node *n = arena_alloc(&p->sc->mem, sizeof *n);
    if (!n) {
        oom(p);
        return NULL;
    }
    n->kind = k;
    n->at = at;
    n->src0 = n->src1 = src0;
    return n;
}

static node *parse_expr(parser *p);
static node *parse_unary(parser *p);

static node *parse_load(parser *p) {
    char dbuf[96];
    node *n = new_node(p, N_LOAD, p->tok.at, p->tok.src0);
    if (!n || eat(p, NULL)) return NULL;
    if (p->tok.kind != T_STR) {
        fail(p, p->tok.at, "load: expected a file name in double quotes, found %s", DESC(p));
        return NULL;
    }
    n->name = p->tok.str;
    if (eat(p, &n->src1)) return NULL;
    if (is_name(p, "as")) {
        if (eat(p, NULL)) return NULL;
        if (is_name(p, "dense")) n->as = AS_DENSE;
        else if (is_name(p, "banded")) n->as = AS_BANDED;
        else if (is_name(p, "sparse")) n->as = AS_SPARSE;
        else {
            fail(p, p->tok.at, "load ... as: expected dense, banded or sparse, found %s", DESC(p));
            return NULL;
        }
        if (eat(p, &n->src1)) return NULL;
    }
    return n;
}

static node *parse_primary(parser *p) {
    char dbuf[96];
    token t = p->tok;
    node *n = NULL;
    switch (t.kind) {
    case T_NUM:
        if (!(n = new_node(p, N_NUM, t.at, t.src0))) return NULL;
        n->num = t.num;
        return eat(p, &n->src1) ? NULL : n;
    case T_NAME:
        if (!strcmp(t.str, "load")) return parse_load(p);
        if (is_reserved(t.str)) {
            fail(p, t.at, "'%s' is a keyword; it cannot be used as a value", t.str);
            return NULL;
        }
        if (eat(p, NULL)) return NULL;
        if (!is_op(p, '(')) {
            if (!(n = new_node(p, N_VAR, t.at, t.src0))) return NULL;
            n->name = t.str;
            n->src1 = t.src1;
            return n;
        }
        if (!(n = new_node(p, N_CALL, t.at, t.src0))) return NULL;
        n->name = t.str;
        if (eat(p, NULL)) return NULL;
        int cap = 0;
        if (!is_op(p, ')'))
            for (;;) {
                node *a = parse_expr(p);
                if (!a) return NULL;
                if (n->nargs == cap) { /* doubling: linear memory in the argument count */
                    cap = cap ? 2 * cap : 4;
                    node **args = arena_alloc(&p->sc->mem, sizeof *args * (size_t)cap);
                    if (!args) {
                        oom(p);
                        return NULL;
                    }
                    if (n->nargs) memcpy(args, n->args, sizeof *args * (size_t)n->nargs);
                    n->args = args;
                }
                n->args[n->nargs++] = a;
                if (is_op(p, ')')) break;
                if (!is_op(p, ',')) {
                    fail(p, p->tok.at, "%s(...): expected ',' or ')', found %s", t.str, DESC(p));
                    return NULL;
                }
                if (eat(p, NULL)) return NULL;
            }
        if (eat(p, &n->src1)) return NULL;
        /* the argument count is known now: wrong counts stop the script before it runs */
        char why[512];
        if (call_arity_check(n->name, n->nargs, why, sizeof why)) {
            fail(p, n->at, "%s", why);
            return NULL;
        }
        return n;
    case T_OP:
        if (t.op == '(') {
            if (eat(p, NULL) || !(n = parse_expr(p))) return NULL;
            if (!is_op(p, ')')) {
                fail(p, p->tok.at, "expected ')' to close the '(' at column %d, found %s", t.at.col,
                     DESC(p));
                return NULL;
            }
            /* the parenthesised text is the node's text (for print's header) */
            n->src0 = t.src0;
            return eat(p, &n->src1) ? NULL : n;
        }
        break;
    case T_STR:
        fail(p, t.at, "a string can only follow load, save or png");
        return NULL;
    default: break;
    }
    fail(p, t.at, "expected a value (a number, a name, a call or '('), found %s", DESC(p));
    return NULL;
}

/* Transposes and signs come in runs that may be long (a million quotes is a valid script):
 * they are read in a loop, and a run keeps only its parity (x'' is x and - -x is x exactly, in
 * float too), so neither the parser nor the evaluator recurses once per operator. */
static node *parse_postfix(parser *p) {
    node *n = parse_primary(p);
    if (!n || !is_op(p, '\'')) return n;
    token first = p->tok;
    int count = 0, end = n->src1;
    while (is_op(p, '\'')) {
        count++;
        if (eat(p, &end)) return NULL;
    }
    if (count % 2 == 0) {
        n->src1 = end;
        return n;
    }
    node *t = new_node(p, N_TRANS, first.at, n->src0);
    if (!t) return NULL;
    t->a = n;
    t->src1 = end;
    return t;
}

static node *parse_unary(parser *p) {
    if (!is_op(p, '-') && !is_op(p, '+')) return parse_postfix(p);
    token first = p->tok;
    int neg = 0;
    while (is_op(p, '-') || is_op(p, '+')) {
        neg ^= p->tok.op == '-';
        if (eat(p, NULL)) return NULL;
    }
    node *a = parse_postfix(p);
    if (!a) return NULL;
    if (!neg) {
        a->src0 = first.src0;
        return a;
    }
    if (a->kind == N_NUM) { /* a negative literal */
        a->num = -a->num;
        a->at = first.at;
        a->src0 = first.src0;
        return a;
    }
    node *n = new_node(p, N_NEG, first.at, first.src0);
    if (!n) return NULL;
    n->a = a;
    n->src1 = a->src1;
    return n;
}

static node *binary(parser *p, node *a, node *b, const token *op) {
    node *n = new_node(p, N_BIN, op->at, a->src0);
    if (!n) return NULL;
    n->op = op->op;
    n->a = a;
    n->b = b;
    n->src1 = b->src1;
    return n;
}

static node *parse_term(parser *p) {
    node *n = parse_unary(p);
    while (n && (is_op(p, '*') || is_op(p, '/') || is_op(p, OP_EMUL))) {
        token op = p->tok;
        if (eat(p, NULL)) return NULL;
        node *b = parse_unary(p);
        n = b ? binary(p, n, b, &op) : NULL;
    }
    return n;
}

/* Flat chains (a + b + c ...) are loops here and left spines in the tree, which the evaluator
 * also walks in a loop; only real nesting (parentheses, call arguments) recurses, and that is
 * bounded by MAX_NEST so a hostile script cannot overflow the stack. */
static node *parse_expr(parser *p) {
    if (p->depth >= MAX_NEST) {
        fail(p, p->tok.at, "expression nested too deeply (more than %d levels of parentheses "
             "and calls)", MAX_NEST);
        return NULL;
    }
    p->depth++;
    node *n = parse_term(p);
    while (n && (is_op(p, '+') || is_op(p, '-'))) {
        token op = p->tok;
        if (eat(p, NULL)) return NULL;
        node *b = parse_term(p);
        n = b ? binary(p, n, b, &op) : NULL;
    }
    p->depth--;
    return n;
}

static int parse_path(parser *p, stmt *s, const char *what) {
    char dbuf[96];
    if (p->tok.kind != T_STR)
        return fail(p, p->tok.at, "%s: expected the file name in double quotes after the value, "
                    "found %s", what, DESC(p));
    s->path = p->tok.str;
    s->path_at = p->tok.at;
    if (!*s->path) return fail(p, p->tok.at, "%s: the file name is empty", what);
    return eat(p, &s->src1);
}

static int parse_png_options(parser *p, stmt *s) {
    char dbuf[96];
    token colour = {0}, logt = {0};
    while (p->tok.kind == T_NAME && !is_name(p, "history")) {
        token t = p->tok;
        if (eat(p, &s->src1)) return -1;
        if (!strcmp(t.str, "raw")) {
            s->raw = 1;
        } else if (!strcmp(t.str, "colorbar") || !strcmp(t.str, "colourbar")) {
            s->colorbar = 1;
        } else if (!strcmp(t.str, "plot")) {
            s->plot = 1;
        } else if (!strcmp(t.str, "log")) {
            s->log_y = 1, logt = t;
        } else if (!strcmp(t.str, "spy")) {
            if (!s->spy) s->spy = TEXLA_SPY_DOTS;
        } else if (!strcmp(t.str, "colour") || !strcmp(t.str, "color")) {
            s->spy = TEXLA_SPY_COLOUR, colour = t;
        } else if (!strcmp(t.str, "labels")) {
            s->annotate = 1;
        } else if (!strcmp(t.str, "title")) {
            if (p->tok.kind != T_STR)
                return fail(p, p->tok.at, "png: title: expected the title in double quotes, found %s",
                            DESC(p));
            s->title = p->tok.str;
            if (eat(p, &s->src1)) return -1;
        } else if (!strcmp(t.str, "size")) {
            if (!(s->width = parse_unary(p)) || !(s->height = parse_unary(p))) return -1;
            s->src1 = s->height->src1;
        } else if (!strcmp(t.str, "map")) {
            static const struct { const char *name; int map; } maps[] = {
                {"gray", TEXLA_MAP_GRAY},     {"grey", TEXLA_MAP_GRAY},
                {"viridis", TEXLA_MAP_VIRIDIS}, {"diverging", TEXLA_MAP_DIVERGING},
                {"gray16", TEXLA_MAP_GRAY16}, {"grey16", TEXLA_MAP_GRAY16},
                {"auto", TEXLA_MAP_AUTO}};
            int found = -1;
            for (size_t i = 0; p->tok.kind == T_NAME && i < sizeof maps / sizeof maps[0]; i++)
                if (!strcmp(p->tok.str, maps[i].name)) found = maps[i].map;
            if (found < 0)
                return fail(p, p->tok.at, "png: map: expected gray, viridis, diverging, gray16 or "
                            "auto, found %s", DESC(p));
            s->map = found;
            if (eat(p, &s->src1)) return -1;
        } else if (!strcmp(t.str, "range")) {
            if (!(s->lo = parse_unary(p)) || !(s->hi = parse_unary(p))) return -1;
            s->src1 = s->hi->src1;
        } else if (!strcmp(t.str, "scale")) {
            if (!(s->scale = parse_unary(p))) return -1;
            s->src1 = s->scale->src1;
        } else {
            return fail(p, t.at, "png: unknown option '%s' (options: raw, map NAME, range LO HI, "
                        "scale K, colorbar, plot, log, spy, colour, labels, title \"T\", size W H)",
                        t.str);
        }
    }
    if (logt.kind && !s->plot) return fail(p, logt.at, "png: log is the value axis of a plot: add plot");
    if (colour.kind && s->spy != TEXLA_SPY_COLOUR)
        return fail(p, colour.at, "png: colour colours the dots of a spy view");
    if (colour.kind) s->spy = TEXLA_SPY_COLOUR; /* 'colour' alone asks for a coloured spy view */
    if ((s->title || s->width) && !s->plot)
        return fail(p, s->at, "png: title and size are a plot's: add plot");
    return 0;
}

static stmt *parse_statement(parser *p) {
    char dbuf[96];
    stmt *s = arena_alloc(&p->sc->mem, sizeof *s);
    if (!s) {
        oom(p);
        return NULL;
    }
    token t = p->tok;
    s->at = t.at;
    s->src0 = t.src0;
    if (t.kind != T_NAME) {
        fail(p, t.at, "expected a statement (NAME = EXPR, save, png, print or time), found %s",
             DESC(p));
        return NULL;
    }
    if (eat(p, &s->src1)) return NULL;
    if (!strcmp(t.str, "save") || !strcmp(t.str, "png")) {
        s->kind = t.str[0] == 's' ? S_SAVE : S_PNG;
        if (!(s->e = parse_expr(p)) || parse_path(p, s, t.str)) return NULL;
        if (s->kind == S_PNG && parse_png_options(p, s)) return NULL;
    } else if (!strcmp(t.str, "print")) {
        s->kind = S_PRINT;
        int cap = 0;
        for (;;) { /* items: strings and values, separated by ',' */
            node *it;
            if (p->tok.kind == T_STR) {
                if (!(it = new_node(p, N_STR, p->tok.at, p->tok.src0))) return NULL;
                it->name = p->tok.str;
                if (eat(p, &it->src1)) return NULL;
            } else if (!(it = parse_expr(p))) {
                return NULL;
            }
            if (s->nitems == cap) {
                cap = cap ? 2 * cap : 4;
                node **items = arena_alloc(&p->sc->mem, sizeof *items * (size_t)cap);
                if (!items) {
                    oom(p);
                    return NULL;
                }
                if (s->nitems) memcpy(items, s->items, sizeof *items * (size_t)s->nitems);
                s->items = items;
            }
            s->items[s->nitems++] = it;
            s->src1 = it->src1;
            if (!is_op(p, ',')) break;
            if (eat(p, NULL)) return NULL;
        }
        s->e = s->items[0]->kind == N_STR ? NULL : s->items[0];
    } else if (!strcmp(t.str, "time")) {
        s->kind = S_TIME;
        if (p->tok.kind == T_EOL || p->tok.kind == T_EOF) {
            fail(p, p->tok.at, "time: expected a statement to time, found %s", DESC(p));
            return NULL;
        }
        if (is_name(p, "time")) { /* also keeps the recursion here one level deep */
            fail(p, p->tok.at, "time: a time statement cannot be timed again");
            return NULL;
        }
        if (!(s->inner = parse_statement(p))) return NULL;
        s->src1 = s->inner->src1;
    } else if (is_reserved(t.str)) {
        fail(p, t.at, "'%s' cannot start a statement (write NAME = load \"FILE\")", t.str);
        return NULL;
    } else {
        s->kind = S_ASSIGN;
        s->name = t.str;
        if (is_builtin(t.str)) { /* name(...) would call the function, never index this */
            fail(p, t.at, "'%s' is the name of a function; a variable needs another name", t.str);
            return NULL;
        }
        if (!is_op(p, '=')) {
            fail(p, p->tok.at, "expected '=' after '%s', found %s (a statement is NAME = EXPR, "
                 "save, png, print or time)", t.str, DESC(p));
            return NULL;
        }
        if (eat(p, NULL) || !(s->e = parse_expr(p))) return NULL;
        s->src1 = s->e->src1;
    }
    return s;
}

/* does the expression call cg or lcp? Left spines in a loop, the rest by recursion (bounded
 * by the nesting limit) */
static int calls_solver(const node *n) {
    while (n) {
        if (n->kind == N_CALL) {
            if (!strcmp(n->name, "cg") || !strcmp(n->name, "lcp")) return 1;
            for (int i = 0; i < n->nargs; i++)
                if (calls_solver(n->args[i])) return 1;
            return 0;
        }
        if (n->kind == N_BIN && calls_solver(n->b)) return 1;
        n = n->kind == N_BIN || n->kind == N_NEG || n->kind == N_TRANS ? n->a : NULL;
    }
    return 0;
}

static int parse_history(parser *p, stmt *s) {
    char dbuf[96];
    token t = p->tok;
    if (eat(p, &s->src1)) return -1;
    if (p->tok.kind != T_STR)
        return fail(p, p->tok.at, "history: expected the file name of the residual plot in double "
                    "quotes, found %s", DESC(p));
    s->hist = p->tok.str;
    s->hist_at = p->tok.at;
    if (!*s->hist) return fail(p, p->tok.at, "history: the file name is empty");
    if (eat(p, &s->src1)) return -1;
    const stmt *body = s->kind == S_TIME ? s->inner : s;
    int solver = 0;
    for (int i = 0; i < body->nitems && !solver; i++) solver = calls_solver(body->items[i]);
    if (!solver && !calls_solver(body->e))
        return fail(p, t.at, "history: this statement calls no solver (cg or lcp) whose residuals "
                    "it could plot");
    return 0;
}

int script_parse(script *sc, diag *err) {
    parser p = {.sc = sc, .err = err, .line = 1, .col = 1};
    sc->stmts = NULL;
    sc->nstmts = 0;
    int cap = 0;
    char dbuf[96];
    if (next(&p)) return -1;
    while (p.tok.kind != T_EOF) {
        if (p.tok.kind == T_EOL) {
            if (next(&p)) return -1;
            continue;
        }
        stmt *s = parse_statement(&p);
        if (!s) return -1;
        if (is_name(&p, "history") && parse_history(&p, s)) return -1;
        if (p.tok.kind != T_EOL && p.tok.kind != T_EOF)
            return fail(&p, p.tok.at, "expected the end of the statement, found %s", DESC(&p));
        if (sc->nstmts == cap) {
            cap = cap ? cap * 2 : 32;
            stmt **ns = arena_alloc(&sc->mem, sizeof *ns * (size_t)cap);
            if (!ns) return oom(&p);
            if (sc->nstmts) memcpy(ns, sc->stmts, sizeof *ns * (size_t)sc->nstmts);
            sc->stmts = ns;
        }
        sc->stmts[sc->nstmts++] = s;
    }
    return 0;
}

void script_free(script *sc) {
    arena_free(&sc->mem);
    sc->stmts = NULL;
    sc->nstmts = 0;
}
