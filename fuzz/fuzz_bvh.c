/* Harness: the BVH reader (io/bvh.h; built when that header exists). Input:
 * a .bvh file; the scale comes from its first byte when that byte is not
 * text. What loads is run through fz_exercise_asset and must write as a .glb
 * that loads again (issue #14: whatever loads must write). Loaded again with
 * its blank frames filled, it must load, have the same tracks and key counts,
 * finite keys where the first load's were, and rotation keys of unit length. */
#include "fuzz_common.h"

#include "skelanim/io/bvh.h"

#include <math.h>
#include <stdlib.h>

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
    sk_asset *filled = NULL;
    o.blank = SK_BVH_BLANK_FILL;
    r = sk_bvh_load_memory(data, size, "fuzz.bvh", &o, &filled, &err);
    if (r != SK_OK && r != SK_ERR_OUT_OF_MEMORY) fz_fail("loads as written but not with its blank frames filled: %s", err.message);
    if (r == SK_OK) {
        if (filled->clip_count != asset->clip_count) fz_fail("filling blank frames changed the clip count");
        for (uint32_t c = 0; c < asset->clip_count; c++) {
            const sk_clip *a = asset->clips[c], *f = filled->clips[c];
            uint32_t nt = sk_clip_track_count(a);
            if (sk_clip_track_count(f) != nt) fz_fail("filling blank frames changed the track count");
            for (uint32_t k = 0; k < nt; k++) {
                sk_track_info ta, tf;
                if (!sk_clip_track_info(a, k, &ta) || !sk_clip_track_info(f, k, &tf) || ta.key_count != tf.key_count ||
                    ta.width != tf.width || ta.path != tf.path || ta.joint != tf.joint)
                    fz_fail("filling blank frames changed track %u", k);
                size_t n = (size_t)ta.key_count * ta.width;
                float *va = malloc(n * sizeof *va), *vf = malloc(n * sizeof *vf);
                if (va && vf && sk_clip_track_keys(a, k, NULL, va) && sk_clip_track_keys(f, k, NULL, vf))
                    for (uint32_t i = 0; i < ta.key_count; i++) {
                        const float *x = va + (size_t)i * ta.width, *y = vf + (size_t)i * ta.width;
                        double l2 = 0;
                        for (uint32_t e = 0; e < ta.width; e++) {
                            if (isfinite(x[e]) && !isfinite(y[e])) fz_fail("a filled key is not finite (track %u key %u)", k, i);
                            l2 += (double)y[e] * y[e];
                        }
                        if (ta.path == SK_PATH_ROTATION && isfinite(l2) && fabs(l2 - 1.0) > 1e-4)
                            fz_fail("a filled rotation key has length^2 %g (track %u key %u)", l2, k, i);
                    }
                free(va), free(vf);
            }
        }
        sk_asset_destroy(filled);
    }
    sk_asset_destroy(asset);
    return 0;
}
