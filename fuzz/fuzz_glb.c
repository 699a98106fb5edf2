/* Harness: the glTF reader on a .glb (or .gltf) in memory, no base folder
 * (only the BIN chunk and data: URIs); what loads is run through
 * fz_exercise_asset. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint32_t warnings = 0;
    sk_gltf_options o;
    fz_gltf_options(&o, NULL, &warnings);
    sk_asset *asset = NULL;
    sk_error err = {0};
    if (sk_gltf_load_memory(data, size, NULL, &o, &asset, &err) != SK_OK) {
        if (err.message[0] == 0) fz_fail("a failed load without a message");
        return 0;
    }
    fz_bytes b = {data, size};
    fz_exercise_asset(asset, &b);
    sk_asset_destroy(asset);
    return 0;
}
