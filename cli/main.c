/* skelanim — command-line tool. Exit status: 0 success, 1 rejected file or bad
 * argument (message on stderr).
 *
 * Every command is a cli_command (options.h) in its own file; this list is
 * the order of `skelanim help` and docs/cli.md. A name of two words ("bench
 * crowd", "demo locomotion") is a subcommand. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const cli_command cli_cmd_help;

static const cli_command *const commands[] = {
    &cli_cmd_demo,
    &cli_cmd_demo_locomotion,
    &cli_cmd_demo_procedural,
    &cli_cmd_info,
    &cli_cmd_sample,
    &cli_cmd_render,
    &cli_cmd_view,
    &cli_cmd_analyze,
    &cli_cmd_locomote,
    &cli_cmd_play,
    &cli_cmd_ik,
    &cli_cmd_export_mannequin,
    &cli_cmd_export_course,
    &cli_cmd_convert,
    &cli_cmd_compress,
    &cli_cmd_retarget,
    &cli_cmd_bench_load,
    &cli_cmd_bench_json,
    &cli_cmd_bench_blend,
    &cli_cmd_bench_ik,
    &cli_cmd_bench_skin,
    &cli_cmd_bench_crowd,
    &cli_cmd_bench_terrain,
    &cli_cmd_bench_locomotion,
    &cli_cmd_bench_retarget,
    &cli_cmd_bench_sample,
    &cli_cmd_bench_mix,
    &cli_cmd_bench_ltm,
    &cli_cmd_bench_palette,
    &cli_cmd_bench_sample_compressed,
    &cli_cmd_help,
};
enum { NCOMMANDS = CLI_COUNT(commands) };

/* The command named by the first words of argv (two words first: "demo
 * locomotion" before "demo"); *words: how many it took. */
static const cli_command *find_command(int argc, char **argv, int *words) {
    for (int w = 2; w >= 1; w--) {
        if (argc < w) continue;
        for (size_t i = 0; i < NCOMMANDS; i++) {
            const char *name = commands[i]->name, *space = strchr(name, ' ');
            bool match = w == 1 ? !space && !strcmp(name, argv[0])
                                : space && !strncmp(name, argv[0], (size_t)(space - name)) &&
                                      !argv[0][space - name] && !strcmp(space + 1, argv[1]);
            if (match) {
                *words = w;
                return commands[i];
            }
        }
    }
    return NULL;
}

/* A word that starts subcommands ("bench", "demo"). */
static bool is_group(const char *word) {
    size_t n = strlen(word);
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strncmp(commands[i]->name, word, n) && commands[i]->name[n] == ' ') return true;
    return false;
}

static void group_usage(FILE *f, const char *group) {
    fprintf(f, "usage: skelanim %s NAME [options]   (NAME:", group);
    size_t n = strlen(group);
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strncmp(commands[i]->name, group, n) && commands[i]->name[n] == ' ')
            fprintf(f, " %s", commands[i]->name + n + 1);
    fprintf(f, "; skelanim help %s)\n", group);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        cli_help_overview(stderr, commands, NCOMMANDS);
        return 1;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
        cli_help_overview(stdout, commands, NCOMMANDS);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("skelanim %s\n", SK_VERSION_STRING);
        return 0;
    }
    int words = 0;
    const cli_command *c = find_command(argc - 1, argv + 1, &words);
    if (c && !strncmp(c->name, "bench ", 6)) {
        /* --simd LEVEL (any bench): the SIMD level capped for the run
         * (SKELANIM_SIMD, core/simd.h), and the level reported first */
        static const char *const levels[] = {"scalar", "sse2", "avx2", "avx512"};
        const char *cap = NULL;
        for (int i = 1 + words; i < argc; i++) {
            const char *v = NULL;
            if (!strcmp(argv[i], "--simd")) {
                if (i + 1 >= argc) {
                    fprintf(stderr, "skelanim: %s: --simd needs a level: scalar, sse2, avx2 or avx512\n", c->name);
                    return 2;
                }
                v = argv[i + 1];
                memmove(&argv[i], &argv[i + 2], (size_t)(argc - i - 2) * sizeof *argv);
                argc -= 2;
            } else if (!strncmp(argv[i], "--simd=", 7)) {
                v = argv[i] + 7;
                memmove(&argv[i], &argv[i + 1], (size_t)(argc - i - 1) * sizeof *argv);
                argc -= 1;
            }
            if (!v) continue;
            bool ok = false;
            for (int k = 0; k < 4; k++) ok = ok || !strcmp(v, levels[k]);
            if (!ok) {
                fprintf(stderr, "skelanim: %s: --simd %s: expected scalar, sse2, avx2 or avx512\n", c->name, v);
                return 2;
            }
            cap = v;
            i--;
        }
        if (cap) setenv("SKELANIM_SIMD", cap, 1);
        const char *env = getenv("SKELANIM_SIMD");
        if (env && *env) {
            printf("{\"bench\":\"simd\",\"cap\":\"%s\",\"level\":\"%s\"}\n", env, sk_simd_name(sk_simd_best()));
            fflush(stdout);
        }
    }
    if (c) return c->run(argc - 1 - words, argv + 1 + words);
    if (is_group(cmd)) {
        if (argc > 2 && (!strcmp(argv[2], "-h") || !strcmp(argv[2], "--help"))) {
            cli_help_group(stdout, cmd, commands, NCOMMANDS);
            return 0;
        }
        if (argc > 2) fprintf(stderr, "skelanim: %s: unknown subcommand '%s'\n", cmd, argv[2]);
        else fprintf(stderr, "skelanim: %s: which one?\n", cmd);
        group_usage(stderr, cmd);
        return 1;
    }
    fprintf(stderr, "skelanim: unknown command '%s' (see skelanim help)\n", cmd);
    return 1;
}

/* ---- skelanim help ------------------------------------------------------------ */

typedef struct help_args {
    cli_list topic;
    bool markdown, list;
} help_args;

static int cmd_help(int argc, char **argv) {
    help_args a = {{NULL, 0}, false, false};
    int rc = cli_parse(&cli_cmd_help, argc, argv, &a, NULL);
    if (rc != CLI_CONTINUE) return rc;
    if (a.markdown) {
        cli_help_markdown(stdout, commands, NCOMMANDS);
        return 0;
    }
    if (a.list) { /* (and the tables' own consistency: tests/cli_help.sh) */
        bool ok = true;
        for (size_t i = 0; i < NCOMMANDS; i++) {
            printf("%s\n", commands[i]->name);
            if (!cli_table_check(commands[i])) ok = false;
        }
        return ok ? 0 : 1;
    }
    if (!a.topic.n) {
        cli_help_overview(stdout, commands, NCOMMANDS);
        return 0;
    }
    int words = 0;
    const cli_command *c = find_command((int)a.topic.n, (char **)a.topic.v, &words);
    if (c && (uint32_t)words == a.topic.n) {
        cli_help_command(stdout, c);
        return 0;
    }
    if (a.topic.n == 1 && is_group(a.topic.v[0])) {
        cli_help_group(stdout, a.topic.v[0], commands, NCOMMANDS);
        return 0;
    }
    fprintf(stderr, "skelanim: help: no command '%s%s%s' (skelanim help lists them)\n", a.topic.v[0],
            a.topic.n > 1 ? " " : "", a.topic.n > 1 ? a.topic.v[1] : "");
    return 1;
}

static const cli_opt help_opts[] = {
    {"--markdown", CLI_FLAG(help_args, markdown), .flags = CLI_HIDDEN,
     .help = "the reference of every command in Markdown (docs/cli.md)"},
    {"--commands", CLI_FLAG(help_args, list), .flags = CLI_HIDDEN,
     .help = "every command's name, one per line (exit status 1 when a table is not consistent)"},
};
static const cli_arg help_arg_list[] = {
    {"COMMAND", CLI_ARGS(help_args, topic, 0), .max_count = 2,
     .help = "a command (render) or a subcommand (bench crowd): its options; none: every command"},
};
static const cli_command cli_cmd_help = {
    .name = "help",
    .run = cmd_help,
    .summary = "this list, or every option of a command",
    .opts = help_opts,
    .nopts = CLI_COUNT(help_opts),
    .args = help_arg_list,
    .nargs = CLI_COUNT(help_arg_list),
};
