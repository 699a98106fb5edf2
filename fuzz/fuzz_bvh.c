/* Harness: the BVH reader (io/bvh.h; built when that header exists). Input:
 * a .bvh file; the scale comes from its first byte when that byte is not
 * text. What loads is run through fz_exercise_asset and must write as a .glb
 * that loads again (issue #14: whatever loads must write). */
#include "fuzz_common.h"

#include "skelanim/io/bvh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    sk_bvh_options o = {0};
    o.max_joints = 4096;
    if (size > 0 && data[0] >= 0x80) o.scale = 0.001 * (double)(data[0] - 0x7f);
    sk_asset *asset = NULL;
    sk_error err = {0};
    if (sk_bvh_load_memory(data, size, "fuzz.bvh", &o, &asset, &err) != SK_OK) {
        if (err.message[0] == 0) fz_fail("a failed load without a message");
        return 0;
    }
    fz_bytes b = {data, size};
    fz_exercise_asset(asset, &b);
    void *glb = NULL;
    size_t glb_size = 0;
    sk_result r = sk_glb_write_memory(asset, &glb, &glb_size, &err);
    if (r != SK_OK && r != SK_ERR_OUT_OF_MEMORY) fz_fail("a loaded .bvh was not written: %s", err.message);
    if (r == SK_OK) {
        sk_asset *again = NULL;
        r = sk_gltf_load_memory(glb, glb_size, NULL, NULL, &again, &err);
        if (r != SK_OK && r != SK_ERR_OUT_OF_MEMORY) fz_fail("the .glb written from a .bvh does not load: %s", err.message);
        if (r == SK_OK && (again->node_count != asset->node_count || again->clip_count != asset->clip_count))
            fz_fail("the .glb written from a .bvh has %u nodes and %u clips, not %u and %u", again->node_count,
                    again->clip_count, asset->node_count, asset->clip_count);
        sk_asset_destroy(again);
        sk_free(sk_asset_allocator(asset), glb, glb_size);
    }
    sk_asset_destroy(asset);
    return 0;
}
