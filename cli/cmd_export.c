/* skelanim export-mannequin OUT.glb
 * skelanim export-course OUT.glb
 * skelanim convert FILE OUT.glb   (any file the loader reads, or @mannequin) */
#include "cli.h"
#include "course.h"

#include <string.h>

/* What the writer leaves out goes to stderr (nothing is lost silently). */
static void write_warning(void *user, const char *message) {
    fprintf(stderr, "skelanim: warning: %s: %s\n", (const char *)user, message);
}

static int write_glb(const char *in, const char *out, double scale) {
    sk_asset *a = NULL;
    if (!cli_load_scaled(in, scale, &a)) return 1;
    sk_error err = {0};
    sk_glb_write_options wo;
    memset(&wo, 0, sizeof wo);
    wo.warning = write_warning;
    wo.warning_user = (void *)out;
    sk_result r = sk_glb_write_file_ex(a, out, &wo, &err);
    sk_asset_destroy(a);
    if (r != SK_OK) {
        fprintf(stderr, "skelanim: %s\n", err.message); /* the message names the file */
        return 1;
    }
    printf("wrote %s\n", out);
    return 0;
}

typedef struct export_args {
    const char *in, *out;
    double scale;
} export_args;

static int cmd_export_mannequin(int argc, char **argv) {
    export_args a = {NULL, NULL, 0.0};
    int rc = cli_parse(&cli_cmd_export_mannequin, argc, argv, &a, NULL);
    return rc != CLI_CONTINUE ? rc : write_glb(SK_CLI_MANNEQUIN, a.out, 0.0);
}

static int cmd_convert(int argc, char **argv) {
    export_args a = {NULL, NULL, 0.0};
    int rc = cli_parse(&cli_cmd_convert, argc, argv, &a, NULL);
    return rc != CLI_CONTINUE ? rc : write_glb(a.in, a.out, a.scale);
}

static int cmd_export_course(int argc, char **argv) {
    export_args a = {NULL, NULL, 0.0};
    int rc = cli_parse(&cli_cmd_export_course, argc, argv, &a, NULL);
    if (rc != CLI_CONTINUE) return rc;
    sk_asset *asset = NULL;
    sk_error err = {0};
    if (cli_course_asset(&asset, &err) != SK_OK || sk_glb_write_file(asset, a.out, NULL, &err) != SK_OK) {
        fprintf(stderr, "skelanim: export-course: %s\n", err.message);
        sk_asset_destroy(asset);
        return 1;
    }
    sk_asset_destroy(asset);
    printf("wrote %s\n", a.out);
    return 0;
}

static const cli_arg out_arg[] = {{"OUT.glb", CLI_ARG(export_args, out), .flags = CLI_REQUIRED, .help = "the file to write"}};
const cli_command cli_cmd_export_mannequin = {
    .name = "export-mannequin",
    .run = cmd_export_mannequin,
    .summary = "write the built-in character as a .glb",
    .about = "Writes the built-in character (" SK_CLI_MANNEQUIN ": skeleton, skinned mesh, materials, clips) as a "
             "self-contained .glb.",
    .args = out_arg,
    .nargs = CLI_COUNT(out_arg),
};
const cli_command cli_cmd_export_course = {
    .name = "export-course",
    .run = cmd_export_course,
    .summary = "write the locomotion course (--terrain course) as a .glb",
    .args = out_arg,
    .nargs = CLI_COUNT(out_arg),
};

static const cli_opt convert_opts[] = {CLI_OPT_SCALE(export_args, scale)};
static const cli_arg convert_args[] = {
    {"FILE", CLI_ARG(export_args, in), .flags = CLI_REQUIRED, .help = CLI_FILE_HELP},
    {"OUT.glb", CLI_ARG(export_args, out), .flags = CLI_REQUIRED, .help = "the file to write"},
};
const cli_command cli_cmd_convert = {
    .name = "convert",
    .run = cmd_convert,
    .summary = "write FILE as a self-contained .glb",
    .about = "Writes FILE (skeleton, meshes, skins, materials, textures, clips) as a "
             "self-contained .glb; what the writer leaves out is said on stderr.",
    .opts = convert_opts,
    .nopts = CLI_COUNT(convert_opts),
    .args = convert_args,
    .nargs = CLI_COUNT(convert_args),
};
