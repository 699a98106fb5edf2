/* The one option parser of the command-line tool: conventions in options.h. */
#include "options.h"
#include "parse_number.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/* What each argument turned out to be: a positional argument, a value of
 * list option k (k >= 0), or nothing to keep (an option, a stored value). */
enum { ROLE_SKIP = -1, ROLE_ARG = -2 };

typedef struct parser {
    const cli_command *cmd;
    int argc;
    char **argv;
    void *out;
    int *role;
    uint64_t seen; /* bit k: cmd->opts[k] was given */
} parser;

static void *field(void *out, size_t off) { return (char *)out + off; }

static const cli_opt *find_long(const cli_command *c, const char *s, size_t len) {
    for (size_t k = 0; k < c->nopts; k++)
        if (strlen(c->opts[k].name) == len && !strncmp(c->opts[k].name, s, len)) return &c->opts[k];
    return NULL;
}

static const cli_opt *find_short(const cli_command *c, char ch) {
    for (size_t k = 0; k < c->nopts; k++)
        if (ch && c->opts[k].short_name == ch) return &c->opts[k];
    return NULL;
}

/* An argument that is an option (not a value): "-x", "--xyz"; not "-", "-5", "-.5". */
static bool looks_like_option(const char *a) {
    if (a[0] != '-' || !a[1]) return false;
    char c = a[1] == '.' ? a[2] : a[1];
    return !(c >= '0' && c <= '9');
}

/* One of the command's options spelled in full: it cannot be the value of the one before. */
static bool is_option(const cli_command *c, const char *a) {
    if (!looks_like_option(a)) return false;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return true;
    if (a[1] == '-') return find_long(c, a, strcspn(a, "=")) != NULL;
    return !a[2] && find_short(c, a[1]) != NULL;
}

bool cli_asks_help(int argc, char *const *argv) {
    for (int i = 0; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return true;
    return false;
}

/* The index of word in "a|b|c", or -1. */
static int choice_index(const char *choices, const char *word) {
    size_t n = strlen(word);
    int i = 0;
    for (const char *p = choices;; i++) {
        size_t len = strcspn(p, "|");
        if (len == n && !strncmp(p, word, n)) return i;
        if (!p[len]) return -1;
        p += len + 1;
    }
}

/* "a, b or c" */
static void print_choices(FILE *f, const char *choices) {
    for (const char *p = choices; *p;) {
        size_t len = strcspn(p, "|");
        const char *next = p[len] ? p + len + 1 : p + len;
        fprintf(f, "%s%.*s", p == choices ? "" : *next ? ", " : " or ", (int)len, p);
        p = next;
    }
}

bool cli_opt_bounded(const cli_opt *o) {
    if (o->kind == CLI_KIND_INT) return o->min > 0.0 || o->max < 4294967295.0;
    return o->kind == CLI_KIND_REAL && (o->min > -DBL_MAX || o->max < DBL_MAX);
}

void cli_format_bound(char *buf, size_t cap, double v) {
    char tmp[32], *e;
    snprintf(tmp, sizeof tmp, "%.6g", v);
    if ((e = strchr(tmp, 'e'))) { /* 1e+09 -> 1e9, 1e-06 -> 1e-6 */
        char *d = e + 1, *out = e + 1;
        if (*d == '+') d++;
        else if (*d == '-') *out++ = *d++;
        while (*d == '0' && d[1]) d++;
        memmove(out, d, strlen(d) + 1);
    }
    snprintf(buf, cap, "%s", tmp);
}

/* "skelanim: --fps: 'q' is not a finite number (expected a number in [10, 1000])" */
static void number_error(const cli_opt *o, const char *spelled, const char *text, const char *why) {
    fprintf(stderr, "skelanim: %s: '%s' %s", spelled, text, why);
    if (!strncmp(why, "is not a", 8) && cli_opt_bounded(o)) {
        char lo[32], hi[32];
        cli_format_bound(lo, sizeof lo, o->min);
        cli_format_bound(hi, sizeof hi, o->max);
        bool many = o->count > 1, integer = o->kind == CLI_KIND_INT;
        fprintf(stderr, " (expected %s in [%s, %s])", integer ? (many ? "integers" : "an integer") : many ? "numbers" : "a number",
                lo, hi);
    }
    fprintf(stderr, "\n");
}

/* Checks text as a value of o (numbers within its bounds, a choice among its
 * words) into v; prints why not. spelled: the option as typed. */
static bool check_value(const cli_opt *o, const char *spelled, const char *text, cli_value *v) {
    memset(v, 0, sizeof *v);
    v->text = text;
    if (o->kind == CLI_KIND_INT || o->kind == CLI_KIND_REAL) {
        cli_num_kind k = o->kind == CLI_KIND_INT ? CLI_NUM_UINT : CLI_NUM_REAL;
        int n = o->count > 1 ? o->count : 1;
        char why[160];
        bool ok = n == 1 ? cli_number(text, strlen(text), k, o->min, o->max, v->num, why, sizeof why)
                         : cli_numbers(text, o->sep, n, k, o->min, o->max, v->num, why, sizeof why);
        if (!ok) number_error(o, spelled, text, why);
        return ok;
    }
    if (o->kind == CLI_KIND_CHOICE) {
        int i = choice_index(o->choices, text);
        if (i < 0) {
            fprintf(stderr, "skelanim: %s %s: expected ", spelled, text);
            print_choices(stderr, o->choices);
            fprintf(stderr, "\n");
            return false;
        }
        v->num[0] = i;
    }
    return true;
}

static void store(const cli_opt *o, void *out, const cli_value *v) {
    void *p = field(out, o->off);
    int n = o->count > 1 ? o->count : 1;
    switch (o->kind) {
    case CLI_KIND_FLAG: *(bool *)p = true; break;
    case CLI_KIND_INT:
        for (int i = 0; i < n; i++) ((uint32_t *)p)[i] = (uint32_t)v->num[i];
        break;
    case CLI_KIND_REAL:
        for (int i = 0; i < n; i++) ((double *)p)[i] = v->num[i];
        break;
    case CLI_KIND_STRING: *(const char **)p = v->text; break;
    case CLI_KIND_CHOICE: *(int *)p = (int)v->num[0]; break;
    }
}

/* The table's defaults, before the command line (a default the option's own
 * checks refuse is a bug of the table: cli_table_check finds it, through
 * skelanim help --commands in tests/cli_help.sh). */
static bool apply_defaults(const cli_command *c, void *out) {
    for (size_t k = 0; k < c->nopts; k++) {
        const cli_opt *o = &c->opts[k];
        if (!o->dflt || o->on || (o->flags & (CLI_LIST | CLI_AS_ARGUMENT)) || o->kind == CLI_KIND_FLAG) continue;
        cli_value v;
        if (!check_value(o, o->name, o->dflt, &v)) {
            fprintf(stderr, "skelanim: %s: the table's default of %s is refused\n", c->name, o->name);
            return false;
        }
        store(o, out, &v);
    }
    return true;
}

static int unknown_option(const parser *P, const char *a) {
    const cli_command *c = P->cmd;
    fprintf(stderr, "skelanim: %s: %s '%s'", c->name, c->unknown ? c->unknown : "unknown option", a);
    if (a[1] != '-' && a[2]) { /* "-time": one dash short of --time? */
        char buf[128];
        snprintf(buf, sizeof buf, "-%.*s", (int)strcspn(a, "="), a);
        if (find_long(c, buf, strlen(buf))) fprintf(stderr, " (did you mean %s?)", buf);
    }
    fprintf(stderr, "\n");
    cli_help_usage(stderr, c);
    return -1;
}

/* Takes the value at argv[vi] for option o: checks it, then calls back,
 * stores it, or marks it as a list value or a positional argument. */
static bool take_value(parser *P, const cli_opt *o, const char *spelled, int vi) {
    cli_value v;
    if (!check_value(o, spelled, P->argv[vi], &v)) return false;
    if (o->on) return o->on(P->out, spelled, &v);
    if (o->flags & CLI_AS_ARGUMENT) P->role[vi] = ROLE_ARG;
    else if (o->flags & CLI_LIST) P->role[vi] = (int)(o - P->cmd->opts);
    else store(o, P->out, &v);
    return true;
}

/* The option at argv[i] and its value(s): the index of the last argument
 * it took, or -1 after an error. */
static int take_option(parser *P, int i) {
    const cli_command *c = P->cmd;
    char *a = P->argv[i];
    size_t len = a[1] == '-' ? strcspn(a, "=") : strlen(a);
    const cli_opt *o = a[1] == '-' ? find_long(c, a, len) : a[2] ? NULL : find_short(c, a[1]);
    if (!o) return unknown_option(P, a);
    char spelled[96];
    snprintf(spelled, sizeof spelled, "%.*s", (int)(len < 90 ? len : 90), a);
    uint64_t bit = (uint64_t)1 << (o - c->opts);
    bool once = o->kind != CLI_KIND_FLAG && !(o->flags & CLI_LIST) && !o->on;
    if (once && (P->seen & bit)) {
        fprintf(stderr, "skelanim: %s: %s is given twice\n", c->name, spelled);
        return -1;
    }
    P->seen |= bit;
    const char *inline_value = a[len] == '=' ? a + len + 1 : NULL;
    if (o->kind == CLI_KIND_FLAG) {
        if (inline_value) {
            fprintf(stderr, "skelanim: %s: %s takes no value\n", c->name, spelled);
            return -1;
        }
        cli_value v = {NULL, {0}};
        if (o->on) return o->on(P->out, spelled, &v) ? i : -1;
        store(o, P->out, &v);
        return i;
    }
    int last = i;
    if (inline_value) {
        P->argv[i] = (char *)inline_value; /* the same string, past "--name=" */
    } else if (i + 1 < P->argc && !is_option(c, P->argv[i + 1])) {
        last = ++i;
    } else {
        fprintf(stderr, "skelanim: %s: %s needs a value (%s %s)\n", c->name, spelled, spelled,
                o->meta ? o->meta : o->choices ? o->choices : "VALUE");
        return -1;
    }
    P->role[last] = ROLE_SKIP;
    if (!take_value(P, o, spelled, last)) return -1;
    while ((o->flags & CLI_GREEDY) && last + 1 < P->argc && P->argv[last + 1][0] != '-') {
        P->role[++last] = ROLE_SKIP;
        if (!take_value(P, o, spelled, last)) return -1;
    }
    return last;
}

static bool scan(parser *P) {
    bool options = true;
    for (int i = 0; i < P->argc; i++) {
        const char *a = P->argv[i];
        P->role[i] = ROLE_SKIP;
        if (options && !strcmp(a, "--")) options = false;
        else if (!options || !looks_like_option(a)) P->role[i] = ROLE_ARG;
        else if ((i = take_option(P, i)) < 0) return false;
    }
    return true;
}

/* The required option's name in the messages: its short name when it has one (-o OUTDIR). */
static void print_option_use(FILE *f, const cli_opt *o) {
    if (o->short_name) fprintf(f, "-%c", o->short_name);
    else fprintf(f, "%s", o->name);
    if (o->kind != CLI_KIND_FLAG) fprintf(f, " %s", o->meta ? o->meta : o->choices ? o->choices : "VALUE");
}

/* argv reordered: positional arguments, then each list option's values in
 * table order, then the rest; the lists point into it. */
static bool gather(parser *P, int *npos) {
    const cli_command *c = P->cmd;
    char **tmp = malloc(((size_t)P->argc + 1) * sizeof *tmp);
    if (!tmp) {
        fprintf(stderr, "skelanim: %s: out of memory\n", c->name);
        return false;
    }
    int n = 0;
    for (int i = 0; i < P->argc; i++)
        if (P->role[i] == ROLE_ARG) tmp[n++] = P->argv[i];
    *npos = n;
    bool ok = true;
    for (size_t k = 0; k < c->nopts; k++) {
        const cli_opt *o = &c->opts[k];
        if (!(o->flags & CLI_LIST) || o->on || (o->flags & CLI_AS_ARGUMENT)) continue;
        int start = n;
        for (int i = 0; i < P->argc; i++)
            if (P->role[i] == (int)k) tmp[n++] = P->argv[i];
        cli_list *l = field(P->out, o->off);
        l->v = (const char *const *)(P->argv + start);
        l->n = (uint32_t)(n - start);
        if (o->max_count && l->n > o->max_count && ok) {
            fprintf(stderr, "skelanim: %s: at most %u %s values\n", c->name, o->max_count, o->name);
            ok = false;
        }
    }
    for (int i = 0; i < P->argc; i++)
        if (P->role[i] == ROLE_SKIP) tmp[n++] = P->argv[i];
    memcpy(P->argv, tmp, (size_t)n * sizeof *tmp);
    free(tmp);
    return ok;
}

/* Positional arguments into their fields; then what is required and missing. */
static int finish(parser *P) {
    const cli_command *c = P->cmd;
    int npos = 0;
    if (!gather(P, &npos)) return 1;
    int p = 0;
    for (size_t j = 0; j < c->nargs; j++) {
        const cli_arg *g = &c->args[j];
        bool present = p < npos;
        if (g->flags & CLI_LIST) {
            cli_list *l = field(P->out, g->off);
            l->v = (const char *const *)(P->argv + p);
            l->n = (uint32_t)(npos - p);
            if (g->max_count && l->n > g->max_count) {
                fprintf(stderr, "skelanim: %s: at most %u %s arguments\n", c->name, g->max_count, g->meta);
                return 1;
            }
            p = npos;
        } else if (present) {
            *(const char **)field(P->out, g->off) = P->argv[p++];
        }
        if ((g->flags & CLI_REQUIRED) && !present) {
            fprintf(stderr, "skelanim: %s: %s is required\n", c->name, g->meta);
            cli_help_usage(stderr, c);
            return 1;
        }
    }
    if (p < npos) {
        fprintf(stderr, "skelanim: %s: unexpected argument '%s'\n", c->name, P->argv[p]);
        cli_help_usage(stderr, c);
        return 1;
    }
    for (size_t k = 0; k < c->nopts; k++)
        if ((c->opts[k].flags & CLI_REQUIRED) && !(P->seen >> k & 1)) {
            fprintf(stderr, "skelanim: %s: ", c->name);
            print_option_use(stderr, &c->opts[k]);
            fprintf(stderr, " is required\n");
            cli_help_usage(stderr, c);
            return 1;
        }
    return CLI_CONTINUE;
}

int cli_parse(const cli_command *cmd, int argc, char **argv, void *out, cli_seen *seen) {
    if (seen) seen->cmd = cmd, seen->bits = 0;
    if (cli_asks_help(argc, argv)) {
        cli_help_command(stdout, cmd);
        return 0;
    }
    if (cmd->nopts > 64) {
        fprintf(stderr, "skelanim: %s: more than 64 options in the table\n", cmd->name);
        return 1;
    }
    if (!apply_defaults(cmd, out)) return 1;
    parser P = {cmd, argc, argv, out, malloc(((size_t)argc + 1) * sizeof(int)), 0};
    if (!P.role) {
        fprintf(stderr, "skelanim: %s: out of memory\n", cmd->name);
        return 1;
    }
    int rc = scan(&P) ? finish(&P) : 1;
    free(P.role);
    if (seen && rc == CLI_CONTINUE) seen->bits = P.seen;
    return rc;
}

bool cli_given(const cli_seen *seen, const char *name) {
    const cli_command *c = seen->cmd;
    for (size_t k = 0; c && k < c->nopts; k++)
        if (!strcmp(c->opts[k].name, name)) return seen->bits >> k & 1;
    return false;
}

static bool table_problem(const cli_command *c, const char *what, const char *name) {
    fprintf(stderr, "skelanim: the table of %s: %s%s%s\n", c->name, what, name ? ": " : "", name ? name : "");
    return false;
}

bool cli_table_check(const cli_command *c) {
    bool ok = c->name && c->run && c->summary ? true : table_problem(c, "no name, run or summary", NULL);
    if (c->nopts > 64) ok = table_problem(c, "more than 64 options", NULL);
    for (size_t k = 0; k < c->nopts; k++) {
        const cli_opt *o = &c->opts[k];
        if (strncmp(o->name, "--", 2) || !o->name[2] || !strcmp(o->name, "--help") || o->short_name == 'h')
            ok = table_problem(c, "a bad option name", o->name);
        if (find_long(c, o->name, strlen(o->name)) != o || (o->short_name && find_short(c, o->short_name) != o))
            ok = table_problem(c, "an option named twice", o->name);
        if (!o->help) ok = table_problem(c, "an option without help", o->name);
        if (o->kind != CLI_KIND_FLAG && !o->meta && !o->choices) ok = table_problem(c, "a value without a meta", o->name);
        if ((o->kind == CLI_KIND_CHOICE) != (o->choices != NULL)) ok = table_problem(c, "choices", o->name);
        if (o->count > 4 || ((o->count > 1) != (o->sep != 0))) ok = table_problem(c, "count and sep", o->name);
        if ((o->flags & CLI_GREEDY) && !(o->flags & CLI_LIST)) ok = table_problem(c, "greedy but not a list", o->name);
        if (o->dflt && o->kind == CLI_KIND_FLAG) ok = table_problem(c, "a flag with a default", o->name);
        cli_value v;
        if (o->dflt && o->kind != CLI_KIND_FLAG && !check_value(o, o->name, o->dflt, &v))
            ok = table_problem(c, "a default its checks refuse", o->name);
    }
    for (size_t j = 0; j < c->nargs; j++) {
        const cli_arg *g = &c->args[j];
        if ((g->flags & CLI_LIST) && j + 1 != c->nargs) ok = table_problem(c, "a list before the last argument", g->meta);
        if ((g->flags & CLI_REQUIRED) && j && !(c->args[j - 1].flags & CLI_REQUIRED))
            ok = table_problem(c, "a required argument after an optional one", g->meta);
    }
    return ok;
}

uint32_t cli_list_uint(const cli_list *l, uint32_t i) { return (uint32_t)strtoul(l->v[i], NULL, 10); }

double cli_list_real(const cli_list *l, uint32_t i) { return strtod(l->v[i], NULL); }
