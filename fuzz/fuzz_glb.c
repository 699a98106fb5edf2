/* Harness: the glTF reader on a .glb (or .gltf) in memory, no base folder
 * (only the BIN chunk and data: URIs); what loads is run through
 * fz_exercise_asset. A .glb is also loaded from a file with its BIN chunk
 * streamed (src/io/gltf_stream.c, whatever its size) and must give what the
 * whole input gives: the same outcome, the same message, the same keys. */
#define _GNU_SOURCE /* memfd_create */
#include "fuzz_common.h"
#include "io/gltf_stream.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void same_keys(const sk_asset *a, const sk_asset *b) {
    if (a->clip_count != b->clip_count) fz_fail("streamed: %u clips, whole: %u", b->clip_count, a->clip_count);
    static float ta[1 << 16], tb[1 << 16], va[1 << 18], vb[1 << 18];
    for (uint32_t c = 0; c < a->clip_count; c++) {
        uint32_t n = sk_clip_track_count(a->clips[c]);
        if (n != sk_clip_track_count(b->clips[c])) fz_fail("streamed: clip %u has another track count", c);
        for (uint32_t t = 0; t < n; t++) {
            sk_track_info i;
            if (!sk_clip_track_info(a->clips[c], t, &i)) fz_fail("no track info");
            size_t nv = (size_t)i.key_count * i.width * (i.interpolation == SK_INTERP_CUBICSPLINE ? 3u : 1u);
            if (i.key_count > (1u << 16) || nv > (1u << 18)) continue;
            if (!sk_clip_track_keys(a->clips[c], t, ta, va) || !sk_clip_track_keys(b->clips[c], t, tb, vb) ||
                memcmp(ta, tb, i.key_count * sizeof(float)) || memcmp(va, vb, nv * sizeof(float)))
                fz_fail("streamed: clip %u track %u: other keys", c, t);
        }
    }
}

/* The same input from a file (a memory file descriptor, one per process). */
static void streamed(const uint8_t *data, size_t size, const sk_gltf_options *o) {
    static int fd = -1;
    if (fd < 0) fd = memfd_create("sk_fuzz_glb", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) return;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    sk_asset *whole = NULL, *str = NULL;
    sk_error ew = {0}, es = {0};
    sk_result rw = sk_gltf_load_memory(data, size, "/proc/self/fd", o, &whole, &ew);
    sk_result rs = sk_gltf_load_file_streamed(path, o, 0, &str, NULL, &es);
    if (rw != rs) fz_fail("streamed %d (%s), whole %d (%s)", rs, es.message, rw, ew.message);
    size_t pl = strlen(path);
    if (rw != SK_OK && (strncmp(es.message, path, pl) || strcmp(es.message + pl + 2, ew.message)))
        fz_fail("streamed \"%s\", whole \"%s\"", es.message, ew.message);
    if (rw == SK_OK) same_keys(whole, str);
    sk_asset_destroy(whole);
    sk_asset_destroy(str);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint32_t warnings = 0;
    sk_gltf_options o;
    fz_gltf_options(&o, NULL, &warnings);
    sk_asset *asset = NULL;
    sk_error err = {0};
    if (size >= 4 && memcmp(data, "glTF", 4) == 0) streamed(data, size, &o);
    if (sk_gltf_load_memory(data, size, NULL, &o, &asset, &err) != SK_OK) {
        if (err.message[0] == 0) fz_fail("a failed load without a message");
        return 0;
    }
    fz_bytes b = {data, size};
    fz_exercise_asset(asset, &b);
    sk_asset_destroy(asset);
    return 0;
}
