/* Harness: the glTF reader on a .gltf (or .glb) file and its external
 * buffers, served through sk_file_io callbacks. Input: the file's bytes,
 * optionally followed by SK_FUZZ_BIN_SEP and the bytes every external
 * resource (buffer, image) reads; what loads is then run through
 * fz_exercise_asset (sampling, poses, palettes, skinning). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_files files;
    fz_files_init(&files, "model.gltf", data, size);
    uint32_t warnings = 0;
    sk_gltf_options o;
    fz_gltf_options(&o, &files, &warnings);
    sk_asset *asset = NULL;
    sk_error err = {0};
    if (sk_gltf_load_file("model.gltf", &o, &asset, &err) != SK_OK) {
        if (err.message[0] == 0) fz_fail("a failed load without a message");
        return 0;
    }
    fz_bytes b = {data, size};
    fz_exercise_asset(asset, &b);
    sk_asset_destroy(asset);
    return 0;
}
