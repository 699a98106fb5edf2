/* skelanim — glTF 2.0 reader (.gltf with external or data: buffers, .glb) and
 * .glb writer. */
#ifndef SKELANIM_GLTF_H
#define SKELANIM_GLTF_H

#include "skelanim/core/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_gltf_options {
    sk_allocator allocator;       /* zero = C library */
    uint64_t max_file_bytes;      /* 0 = 1 GiB: larger files and buffers are refused */
} sk_gltf_options;

/* Loads a .gltf or .glb (detected by content). External buffer URIs are
 * resolved relative to the file's folder; absolute paths, "..", and non-file
 * schemes are refused. Every structural error that could lead to an
 * out-of-bounds read is rejected with a message naming the JSON path, e.g.
 * "/accessors/3/count: 900 elements of 12 bytes exceed bufferView 2 (4096 bytes)". */
sk_result sk_gltf_load_file(const char *path, const sk_gltf_options *opts,
                            sk_asset **out, sk_error *err);
/* Same from memory. base_dir resolves external URIs (NULL: only data: URIs and
 * the GLB chunk are available). */
sk_result sk_gltf_load_memory(const void *data, size_t size, const char *base_dir,
                              const sk_gltf_options *opts, sk_asset **out, sk_error *err);

/* Writes the asset as a self-contained .glb (nodes, meshes, skins, clips). */
sk_result sk_glb_write_file(const sk_asset *asset, const char *path, sk_error *err);
/* Same into memory allocated with the asset's allocator; free with sk_free(alloc, *out, *size). */
sk_result sk_glb_write_memory(const sk_asset *asset, void **out, size_t *size, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
