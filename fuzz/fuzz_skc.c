/* Harness: the packed clip loader (io/skc.h). Input: a .skc file. It is
 * loaded as it is (copied, and in place), and once more with its size field
 * and CRC-32 made to match, so that mutations reach the checks behind the
 * checksum. What loads is run through fz_exercise_asset (every clip sampled)
 * and must write as a .skc that loads again with the same counts. */
#include "fuzz_common.h"

#include "skelanim/io/skc.h"

#include <stdlib.h>
#include <string.h>


static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

static void load_one(const uint8_t *data, size_t size, bool in_place) {
    sk_asset *asset = NULL;
    sk_error err = {0};
    double mpu = 0.0;
    if (sk_skc_load_memory(data, size, in_place, NULL, &asset, &mpu, &err) != SK_OK) {
        if (err.message[0] == 0) fz_fail("a failed .skc load without a message");
        return;
    }
    fz_bytes b = {data, size};
    fz_exercise_asset(asset, &b);
    void *out = NULL;
    size_t out_size = 0;
    sk_result r = sk_skc_write_memory(asset->skeleton, asset->clips, asset->clip_count, mpu, NULL, &out, &out_size, &err);
    if (r != SK_OK && r != SK_ERR_OUT_OF_MEMORY) fz_fail("a loaded .skc was not written: %s", err.message);
    if (r == SK_OK) {
        sk_asset *again = NULL;
        r = sk_skc_load_memory(out, out_size, false, NULL, &again, NULL, &err);
        if (r != SK_OK && r != SK_ERR_OUT_OF_MEMORY) fz_fail("a .skc written from a loaded one does not load: %s", err.message);
        if (r == SK_OK && (again->node_count != asset->node_count || again->clip_count != asset->clip_count))
            fz_fail("the rewritten .skc has %u joints and %u clips, not %u and %u", again->node_count, again->clip_count,
                    asset->node_count, asset->clip_count);
        sk_asset_destroy(again);
        free(out);
    }
    sk_asset_destroy(asset);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *copy = calloc(size ? size : 1, 1); /* exactly size bytes: ASan sees any overread */
    if (!copy) return 0;
    if (size) memcpy(copy, data, size);
    load_one(copy, size, false);
    load_one(copy, size, true);
    if (size >= 64 && size <= 0xffffffffu) {
        put32(copy + 12, (uint32_t)size);
        put32(copy + 16, sk_skc_checksum(copy, size));
        load_one(copy, size, size & 1);
    }
    free(copy);
    return 0;
}
