/* skelanim export-mannequin OUT.glb */
#include "cli.h"

#include <string.h>

int cmd_export_mannequin(int argc, char **argv) {
    if (argc != 1 || argv[0][0] == '-') {
        fprintf(stderr, "usage: skelanim export-mannequin OUT.glb\n");
        return 1;
    }
    sk_asset *a = NULL;
    if (!cli_load(SK_CLI_MANNEQUIN, &a)) return 1;
    sk_error err = {0};
    sk_result r = sk_glb_write_file(a, argv[0], NULL, &err);
    sk_asset_destroy(a);
    if (r != SK_OK) {
        fprintf(stderr, "skelanim: %s: %s\n", argv[0], err.message);
        return 1;
    }
    printf("wrote %s\n", argv[0]);
    return 0;
}
