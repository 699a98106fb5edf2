/* skelanim command-line tool: the one option parser, and the tables it reads.
 *
 * Every command describes itself in a const cli_command: its name, a one-line
 * summary, its options (cli_opt) and its positional arguments (cli_arg). The
 * parser (options.c) reads a command line against that table and fills the
 * command's own struct of arguments; `skelanim help`, `skelanim CMD --help`
 * and docs/cli.md (`skelanim help --markdown`) are printed from the same
 * tables (help.c), so the help cannot drift from what the parser accepts.
 *
 * Conventions of the parser (the same for every command):
 *  - `--name VALUE` or `--name=VALUE`; a short name is one letter, `-j VALUE`.
 *    A value is the next argument whatever it starts with (`--time -1`,
 *    `--target -1,0,0`), unless that argument is an option of the command
 *    spelled in full: then the value is missing.
 *  - Options and positional arguments mix in any order; `--` ends the
 *    options (what follows is positional); `-` and negative numbers (`-5`)
 *    are positional.
 *  - `-h` or `--help` anywhere prints the command's help to stdout, exit 0.
 *  - Numbers go through cli_number (parse_number.h), with the option's
 *    bounds: `skelanim: --fps: 'q' is not a finite number (expected a number
 *    in [0.001, 100])`, `skelanim: --size: '3x3' is outside [16, 4096]` (the
 *    option as typed).
 *  - Errors name the command: `skelanim: CMD: unknown option '--x'` (then the
 *    usage line), `skelanim: CMD: --x needs a value`, `skelanim: CMD: --x is
 *    given twice` (an option that is not a list or a flag), `skelanim: CMD:
 *    FILE is required`, `skelanim: CMD: unexpected argument 'y'`; a choice:
 *    `skelanim: --loop sideways: expected repeat or clamp`. Exit status 1.
 *  - Flags may be repeated; a list option (CLI_LIST) keeps every value in
 *    order; any other option may be given once.
 */
#ifndef SK_CLI_OPTIONS_H
#define SK_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum cli_kind {
    CLI_KIND_FLAG,   /* no value: a bool set to true */
    CLI_KIND_INT,    /* a non-negative integer in [min, max]: uint32_t, or count of them
                        separated by sep ("WxH", "NODE:PRIM:VTX"): uint32_t[count] */
    CLI_KIND_REAL,   /* a finite number in [min, max]: double, or double[count] ("X,Y,Z") */
    CLI_KIND_STRING, /* const char *: checked by the command */
    CLI_KIND_CHOICE  /* one of the words of choices ("repeat|clamp"): int, the word's index */
} cli_kind;

enum {
    CLI_REQUIRED = 1u << 0,   /* must be given (an option or a positional argument) */
    CLI_LIST = 1u << 1,       /* may be repeated; every value kept in order, in a cli_list
                                 (a positional argument: it takes the rest) */
    CLI_GREEDY = 1u << 2,     /* (with CLI_LIST) also takes the arguments after it up to
                                 the next one starting with '-': --clips walk run */
    CLI_AS_ARGUMENT = 1u << 3,/* the value is one more positional argument (bench crowd
                                 --count N is the same as N) */
    CLI_HIDDEN = 1u << 4      /* not shown by the help (developer options) */
};

/* The values of a list option or of the last positional argument, in the
 * order given: they point into argv (which the parser reorders). */
typedef struct cli_list {
    const char *const *v;
    uint32_t n;
} cli_list;

/* One occurrence of an option, for a callback: the text as given and its
 * value (INT, REAL: count numbers; CHOICE: num[0], the word's index). */
typedef struct cli_value {
    const char *text;
    double num[4];
} cli_value;

/* Called for each occurrence, in command-line order, instead of storing the
 * value (for options that depend on the ones before them: sample --weight
 * follows a --clip). opt is the option as typed. Returns false after
 * printing why the value is refused. */
typedef bool (*cli_on_option)(void *out, const char *opt, const cli_value *v);

typedef struct cli_opt {
    const char *name;   /* "--time" */
    cli_kind kind;
    size_t off;         /* where the value goes in the command's struct (the CLI_AT_* macros) */
    char short_name;    /* 'j' for -j, or 0 */
    unsigned flags;     /* CLI_REQUIRED, CLI_LIST, ... */
    const char *meta;   /* the value in the help: "T", "WxH" (a choice: its words when NULL) */
    const char *help;   /* one line (a sentence fragment, no final full stop) */
    const char *dflt;   /* the default as one would type it: set before parsing (not for a
                           list or a callback, where it is only shown), shown in the help */
    const char *dflt_text; /* or the default in words, when it is no value (the command sets it) */
    double min, max;    /* INT, REAL: the bounds */
    int count;          /* INT, REAL: numbers in the value (0 or 1: one) */
    char sep;           /* their separator */
    const char *choices;  /* CHOICE: "repeat|clamp" */
    cli_on_option on;     /* a callback instead of off */
    uint32_t max_count;   /* CLI_LIST: at most this many values (0: any) */
} cli_opt;

/* A positional argument: const char * (or cli_list for CLI_LIST, the last one). */
typedef struct cli_arg {
    const char *meta; /* "FILE" */
    size_t off;
    unsigned flags;   /* CLI_REQUIRED, CLI_LIST */
    const char *help;
    uint32_t max_count; /* CLI_LIST: at most this many (0: any) */
    const char *dflt_text; /* the default in words, when it may be left out */
} cli_arg;

typedef struct cli_command {
    const char *name;    /* "render", "bench crowd" */
    int (*run)(int argc, char **argv); /* the arguments after the name */
    const char *summary; /* one line for `skelanim help` (a fragment, about 70 characters) */
    const char *about;   /* sentences for `skelanim help NAME` instead of the summary, or NULL */
    const cli_opt *opts;
    size_t nopts;
    const cli_arg *args;
    size_t nargs;
    const char *synopsis;      /* the forms after "skelanim NAME", one per line; NULL: made from the tables */
    const char *const *notes;  /* more text for `skelanim help NAME` (NULL-terminated), or NULL */
    const char *unknown;       /* the words for an unknown option when not "unknown option" */
} cli_command;

#define CLI_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Field offsets checked against the field's type (a mismatch does not compile). */
#define CLI_OFF_(T, f, type) _Generic(((T *)0)->f, type: offsetof(T, f))
#define CLI_ARRAY_OFF_(T, f, type, n)                                                                  \
    (CLI_OFF_(T, f, type *) + 0 * sizeof(char[sizeof(((T *)0)->f) == (n) * sizeof(type) ? 1 : -1]))
/* The kind and the field of an option, in one: {"--time", CLI_REAL(args, time), ...}. */
#define CLI_FLAG(T, f) CLI_KIND_FLAG, CLI_OFF_(T, f, bool)
#define CLI_INT(T, f) CLI_KIND_INT, CLI_OFF_(T, f, uint32_t)
#define CLI_INTS(T, f, n, s) CLI_KIND_INT, CLI_ARRAY_OFF_(T, f, uint32_t, n), .count = (n), .sep = (s)
#define CLI_REAL(T, f) CLI_KIND_REAL, CLI_OFF_(T, f, double)
#define CLI_REALS(T, f, n, s) CLI_KIND_REAL, CLI_ARRAY_OFF_(T, f, double, n), .count = (n), .sep = (s)
#define CLI_STRING(T, f) CLI_KIND_STRING, CLI_OFF_(T, f, const char *)
#define CLI_CHOICE(T, f, words) CLI_KIND_CHOICE, CLI_OFF_(T, f, int), .choices = (words)
/* A list of values of that kind (checked as such, kept as text); fl: more flags (CLI_GREEDY). */
#define CLI_LIST_OF(kind, T, f, fl) kind, CLI_OFF_(T, f, cli_list), .flags = CLI_LIST | (fl)
/* A callback (it may be given any number of times): {"--clip", CLI_CALL(CLI_KIND_STRING, on_clip), ...}. */
#define CLI_CALL(kind, fn) kind, 0, .on = (fn)
/* Positional arguments: {"FILE", CLI_ARG(args, file), .flags = CLI_REQUIRED, ...};
 * the last may take the rest: {"PATH", CLI_ARGS(args, paths, CLI_REQUIRED), ...}. */
#define CLI_ARG(T, f) CLI_OFF_(T, f, const char *)
#define CLI_ARGS(T, f, fl) CLI_OFF_(T, f, cli_list), .flags = CLI_LIST | (fl)

/* What was given on the command line (options with a default cannot tell otherwise). */
typedef struct cli_seen {
    const cli_command *cmd;
    uint64_t bits; /* bit i: cmd->opts[i] */
} cli_seen;
bool cli_given(const cli_seen *seen, const char *name);

/* Parses argv (argc arguments after the command's name) into out, the
 * command's struct (zeroed by the caller, or set to what the table does not
 * give). Returns CLI_CONTINUE when the command should run; else the exit
 * status: 0 after printing the help (-h, --help), 1 after an error.
 * seen may be NULL. argv is reordered (positional arguments first). */
#define CLI_CONTINUE (-1)
int cli_parse(const cli_command *cmd, int argc, char **argv, void *out, cli_seen *seen);
/* True when -h or --help is among the arguments (before any "--"). */
bool cli_asks_help(int argc, char *const *argv);
/* The table's own consistency: option names ("--x", unique, short names
 * unique), at most 64 options, a meta or choices for every value, defaults
 * that pass the option's checks, a list only as the last argument. Prints
 * each problem; true when there is none (skelanim help --commands). */
bool cli_table_check(const cli_command *cmd);
/* An INT or REAL option's bounds are narrower than its type's; a bound as
 * one writes it (0.001, 3600, 1e-6, 1e9). */
bool cli_opt_bounded(const cli_opt *o);
void cli_format_bound(char *buf, size_t cap, double v);
/* The i-th value of a list of INT or REAL values (already checked by the parser). */
uint32_t cli_list_uint(const cli_list *l, uint32_t i);
double cli_list_real(const cli_list *l, uint32_t i);

/* The help (help.c). */
/* "usage: skelanim NAME SYNOPSIS" for each form, and where the rest is. */
void cli_help_usage(FILE *f, const cli_command *cmd);
/* Everything about one command: usage, summary, arguments, options, notes. */
void cli_help_command(FILE *f, const cli_command *cmd);
/* The overview: every command with its summary (and the notes on FILE). */
void cli_help_overview(FILE *f, const cli_command *const *cmds, size_t n);
/* The reference in Markdown, docs/cli.md. */
void cli_help_markdown(FILE *f, const cli_command *const *cmds, size_t n);
/* The commands of a group ("bench"): each with its summary. */
void cli_help_group(FILE *f, const char *group, const cli_command *const *cmds, size_t n);

#endif
