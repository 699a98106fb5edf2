/* skelanim export-mannequin OUT.glb
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

int cmd_export_mannequin(int argc, char **argv) {
    if (argc != 1 || argv[0][0] == '-') {
        fprintf(stderr, "usage: skelanim export-mannequin OUT.glb\n");
        return 1;
    }
    return write_glb(SK_CLI_MANNEQUIN, argv[0], 0.0);
}

int cmd_convert(int argc, char **argv) {
    double scale = 0.0;
    if (argc == 4 && !strcmp(argv[2], "--scale")) { /* convert FILE.bvh OUT.glb --scale M */
        if (!cli_parse_real("--scale", argv[3], CLI_SCALE_MIN, CLI_SCALE_MAX, &scale)) return 1;
        argc = 2;
    }
    if (argc != 2 || argv[0][0] == '-' || argv[1][0] == '-') {
        fprintf(stderr, "usage: skelanim convert FILE OUT.glb [--scale M_PER_UNIT (.bvh)]\n");
        return 1;
    }
    return write_glb(argv[0], argv[1], scale);
}

int cmd_export_course(int argc, char **argv) {
    if (argc != 1 || argv[0][0] == '-') {
        fprintf(stderr, "usage: skelanim export-course OUT.glb   (the --terrain course mesh as a file)\n");
        return 1;
    }
    sk_asset *a = NULL;
    sk_error err = {0};
    if (cli_course_asset(&a, &err) != SK_OK || sk_glb_write_file(a, argv[0], NULL, &err) != SK_OK) {
        fprintf(stderr, "skelanim: export-course: %s\n", err.message);
        sk_asset_destroy(a);
        return 1;
    }
    sk_asset_destroy(a);
    printf("wrote %s\n", argv[0]);
    return 0;
}
