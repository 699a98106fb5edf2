/* The help of the command-line tool, printed from the commands' tables
 * (options.h): `skelanim help`, `skelanim help CMD`, `skelanim CMD --help`,
 * the usage line after an error, and the reference docs/cli.md
 * (`skelanim help --markdown`; tests/cli_help.sh compares the two). */
#include "cli.h"

#include <stdarg.h>
#include <string.h>

enum { WIDTH = 100, COL = 30, LIST_COL = 26 }; /* line width; where the help of an option, of a command starts */

static const char file_note[] =
    "FILE is a .glb or .gltf file, a packed .skc (skelanim compress), a .bvh motion capture (positions in the "
    "file's units unless --scale M gives metres per file unit, e.g. 0.0564444 = 2.54/45 for CMU files), or "
    SK_CLI_MANNEQUIN " for the built-in character. Errors go to stderr with exit status 1.";

static const char conventions[] =
    "Options take their value as the next argument (--fps 30) or after '=' (--fps=30); options and arguments "
    "mix in any order, and -- ends the options. -h or --help after a command prints its options. Numbers are "
    "checked against the ranges below; an option that is not a list or a flag may be given once.";

/* appendf: printf at the end of buf (cap bytes), truncating. */
static void appendf(char *buf, size_t cap, const char *fmt, ...) {
    size_t n = strlen(buf);
    if (n + 1 >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, cap - n, fmt, ap);
    va_end(ap);
}

static const char *opt_meta(const cli_opt *o) { return o->meta ? o->meta : o->choices ? o->choices : "VALUE"; }

static bool visible(const cli_opt *o) { return !(o->flags & CLI_HIDDEN); }

/* "-j, --jobs N", "--cpu" */
static void opt_spec(const cli_opt *o, char *buf, size_t cap) {
    buf[0] = 0;
    if (o->short_name) appendf(buf, cap, "-%c, ", o->short_name);
    appendf(buf, cap, "%s", o->name);
    if (o->kind != CLI_KIND_FLAG) appendf(buf, cap, " %s", opt_meta(o));
}

/* The help line and what the table knows: "... (required; default 15; 0.001 to 100)". */
static void opt_text(const cli_opt *o, char *buf, size_t cap) {
    char extra[256] = "";
    const char *sep = "";
    if (o->flags & CLI_REQUIRED) appendf(extra, sizeof extra, "%srequired", sep), sep = "; ";
    if (o->dflt) appendf(extra, sizeof extra, "%sdefault %s", sep, o->dflt), sep = "; ";
    else if (o->dflt_text) appendf(extra, sizeof extra, "%sdefault: %s", sep, o->dflt_text), sep = "; ";
    if (cli_opt_bounded(o)) {
        char lo[32], hi[32];
        cli_format_bound(lo, sizeof lo, o->min);
        cli_format_bound(hi, sizeof hi, o->max);
        appendf(extra, sizeof extra, "%s%s%s to %s", sep, o->count > 1 ? "each " : "", lo, hi), sep = "; ";
    }
    if (((o->flags & CLI_LIST) && !(o->flags & CLI_GREEDY)) || (o->on && o->kind != CLI_KIND_FLAG))
        appendf(extra, sizeof extra, "%smay be repeated", sep);
    snprintf(buf, cap, "%s", o->help ? o->help : "");
    if (extra[0]) appendf(buf, cap, " (%s)", extra);
}

static void arg_text(const cli_arg *g, char *buf, size_t cap) {
    snprintf(buf, cap, "%s", g->help ? g->help : "");
    if (g->dflt_text) appendf(buf, cap, " (default: %s)", g->dflt_text);
}

/* The forms after "skelanim NAME": the table's synopsis, or arguments and required options. */
static void make_synopsis(const cli_command *c, bool with_options, char *buf, size_t cap) {
    buf[0] = 0;
    for (size_t j = 0; j < c->nargs; j++) {
        const cli_arg *g = &c->args[j];
        bool req = g->flags & CLI_REQUIRED, list = g->flags & CLI_LIST;
        appendf(buf, cap, "%s%s%s%s%s", buf[0] ? " " : "", req ? "" : "[", g->meta, list ? "..." : "", req ? "" : "]");
    }
    bool optional = false;
    for (size_t k = 0; k < c->nopts; k++) {
        const cli_opt *o = &c->opts[k];
        if (!visible(o)) continue;
        if (!(o->flags & CLI_REQUIRED)) {
            optional = true;
            continue;
        }
        if (o->short_name) appendf(buf, cap, "%s-%c %s", buf[0] ? " " : "", o->short_name, opt_meta(o));
        else appendf(buf, cap, "%s%s %s", buf[0] ? " " : "", o->name, opt_meta(o));
    }
    if (with_options && optional) appendf(buf, cap, "%s[options]", buf[0] ? " " : "");
}

/* Prints text from column col (where the cursor is), wrapped at WIDTH, the
 * lines after the first indented by indent; '\n' breaks a line. */
static void wrap(FILE *f, const char *text, int col, int indent) {
    bool start = true;
    for (const char *p = text; *p;) {
        if (*p == '\n') {
            fprintf(f, "\n%*s", indent, "");
            col = indent, start = true, p++;
            continue;
        }
        if (*p == ' ') {
            p++;
            continue;
        }
        int w = (int)strcspn(p, " \n");
        if (!start && col + 1 + w > WIDTH) {
            fprintf(f, "\n%*s", indent, "");
            col = indent, start = true;
        }
        fprintf(f, "%s%.*s", start ? "" : " ", w, p);
        col += w + (start ? 0 : 1);
        start = false;
        p += w;
    }
    fprintf(f, "\n");
}

/* "  SPEC   help...", the help at column col (on the next line when SPEC is longer). */
static void item(FILE *f, const char *spec, const char *text, int col) {
    int n = fprintf(f, "  %s", spec);
    if (n + 2 > col) fprintf(f, "\n%*s", col, "");
    else fprintf(f, "%*s", col - n, "");
    wrap(f, text, col, col);
}

static void print_forms(FILE *f, const cli_command *c, const char *first_prefix, const char *hint) {
    char buf[512];
    const char *forms = c->synopsis;
    if (!forms) {
        make_synopsis(c, true, buf, sizeof buf);
        forms = buf;
    }
    const char *prefix = first_prefix;
    for (const char *p = forms; *p;) {
        size_t len = strcspn(p, "\n");
        const char *next = p[len] ? p + len + 1 : p + len;
        fprintf(f, "%sskelanim %s%s%.*s", prefix, c->name, len ? " " : "", (int)len, p);
        if (!*next && hint) fprintf(f, "   %s", hint);
        fprintf(f, "\n");
        prefix = "       ";
        p = next;
    }
}

void cli_help_usage(FILE *f, const cli_command *c) {
    char hint[128];
    snprintf(hint, sizeof hint, "(every option: skelanim help %s)", c->name);
    print_forms(f, c, "usage: ", hint);
}

void cli_help_command(FILE *f, const cli_command *c) {
    print_forms(f, c, "usage: ", NULL);
    fprintf(f, "\n");
    wrap(f, c->about ? c->about : c->summary, 0, 0);
    char spec[160], text[1024];
    if (c->nargs) fprintf(f, "\narguments:\n");
    for (size_t j = 0; j < c->nargs; j++) {
        arg_text(&c->args[j], text, sizeof text);
        item(f, c->args[j].meta, text, COL);
    }
    fprintf(f, "\noptions:\n");
    for (size_t k = 0; k < c->nopts; k++) {
        if (!visible(&c->opts[k])) continue;
        opt_spec(&c->opts[k], spec, sizeof spec);
        opt_text(&c->opts[k], text, sizeof text);
        item(f, spec, text, COL);
    }
    item(f, "-h, --help", "this help", COL);
    for (const char *const *n = c->notes; n && *n; n++) fprintf(f, "\n%s", *n);
}

/* The column of `skelanim help`: the name, its arguments and required options. */
static void overview_entry(FILE *f, const cli_command *c) {
    char args[512], spec[600];
    make_synopsis(c, false, args, sizeof args);
    snprintf(spec, sizeof spec, "%s%s%s", c->name, args[0] ? " " : "", args);
    item(f, spec, c->summary, LIST_COL);
}

void cli_help_overview(FILE *f, const cli_command *const *cmds, size_t n) {
    fprintf(f, "skelanim %s — skeletal character animation\n\n", SK_VERSION_STRING);
    fprintf(f, "usage: skelanim COMMAND [options]\n");
    fprintf(f, "       skelanim help COMMAND        every option of a command (or: skelanim COMMAND --help)\n");
    fprintf(f, "\ncommands:\n");
    for (size_t i = 0; i < n; i++) overview_entry(f, cmds[i]);
    fprintf(f, "\n");
    wrap(f, file_note, 0, 0);
}

void cli_help_group(FILE *f, const char *group, const cli_command *const *cmds, size_t n) {
    fprintf(f, "usage: skelanim %s NAME [options]   (the options of one: skelanim help %s NAME)\n\n", group, group);
    size_t len = strlen(group);
    for (size_t i = 0; i < n; i++)
        if (!strncmp(cmds[i]->name, group, len) && (cmds[i]->name[len] == ' ' || !cmds[i]->name[len]))
            overview_entry(f, cmds[i]);
    if (!strcmp(group, "bench"))
        fprintf(f, "\nEvery bench also takes --simd scalar|sse2|avx2|avx512: the SIMD level capped (what a lesser CPU\n"
                   "runs; the environment variable SKELANIM_SIMD does the same), reported first as\n"
                   "{\"bench\":\"simd\",\"cap\":...,\"level\":...}.\n");
}

/* ---- docs/cli.md ------------------------------------------------------------- */

/* Prose, with Markdown's special characters escaped. */
static void md_text(FILE *f, const char *s) {
    for (; *s; s++) {
        if (strchr("\\`*_<>[]", *s)) fputc('\\', f);
        fputc(*s, f);
    }
}

static void md_anchor(FILE *f, const char *name) {
    fprintf(f, "#skelanim-");
    for (const char *p = name; *p; p++) fputc(*p == ' ' ? '-' : *p, f);
}

static void md_command(FILE *f, const cli_command *c) {
    fprintf(f, "## skelanim %s\n\n", c->name);
    md_text(f, c->about ? c->about : c->summary);
    fprintf(f, "\n\n```\n");
    print_forms(f, c, "", NULL);
    fprintf(f, "```\n");
    char spec[160], text[1024];
    if (c->nargs) fprintf(f, "\nArguments:\n\n");
    for (size_t j = 0; j < c->nargs; j++) {
        arg_text(&c->args[j], text, sizeof text);
        fprintf(f, "- `%s` — ", c->args[j].meta);
        md_text(f, text);
        fprintf(f, "\n");
    }
    fprintf(f, "\nOptions:\n\n");
    for (size_t k = 0; k < c->nopts; k++) {
        if (!visible(&c->opts[k])) continue;
        opt_spec(&c->opts[k], spec, sizeof spec);
        opt_text(&c->opts[k], text, sizeof text);
        fprintf(f, "- `%s` — ", spec);
        md_text(f, text);
        fprintf(f, "\n");
    }
    fprintf(f, "- `-h, --help` — this help\n");
    for (const char *const *n = c->notes; n && *n; n++) fprintf(f, "\n```text\n%s```\n", *n);
    fprintf(f, "\n");
}

void cli_help_markdown(FILE *f, const cli_command *const *cmds, size_t n) {
    fprintf(f, "# skelanim command line\n\n");
    fprintf(f, "<!-- Generated by `skelanim help --markdown` from the option tables in cli/ (cli/options.h);\n"
               "     tests/cli_help.sh fails when this file differs from what the tool prints. -->\n\n");
    fprintf(f, "`skelanim COMMAND [options]`. `skelanim help` lists the commands; `skelanim help COMMAND` or "
               "`skelanim COMMAND --help` prints the part of this page about one command.\n\n");
    md_text(f, conventions);
    fprintf(f, "\n\n");
    md_text(f, file_note);
    fprintf(f, "\n\n## Commands\n\n");
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "- [`skelanim %s`](", cmds[i]->name);
        md_anchor(f, cmds[i]->name);
        fprintf(f, ") — ");
        md_text(f, cmds[i]->summary);
        fprintf(f, "\n");
    }
    fprintf(f, "\n");
    for (size_t i = 0; i < n; i++) md_command(f, cmds[i]);
}
