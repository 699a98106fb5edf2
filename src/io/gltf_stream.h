/* Private to libskelanim_io (not installed): the glTF reader's streamed
 * .glb loads (gltf_stream.c, gltf_read.c), for the reader and its tests. */
#ifndef SKELANIM_IO_GLTF_STREAM_H
#define SKELANIM_IO_GLTF_STREAM_H

#include "skelanim/io/gltf.h"

/* gltf_read.c: sk_gltf_load_file, streaming the BIN chunk of a .glb of at
 * least stream_min bytes (sk_gltf_load_file: SK_GLTF_STREAM_MIN). Its key
 * ranges are then streamed only when they are more than half of the chunk;
 * otherwise the chunk is read at once, into the allocator's memory, and
 * stats->ranges is 0. stream_min 0 (tests): every .glb streamed, and its
 * key ranges whatever their share. */
#define SK_GLTF_STREAM_MIN ((uint64_t)256 << 10)
typedef struct sk_gltf_stream_stats {
    uint32_t ranges; /* byte ranges of the BIN chunk not read up front */
    uint32_t filled; /* of those, read into place because something else read their bytes */
    uint64_t bytes;  /* their bytes */
} sk_gltf_stream_stats;
sk_result sk_gltf_load_file_streamed(const char *path, const sk_gltf_options *opts, uint64_t stream_min,
                                     sk_asset **out, sk_gltf_stream_stats *stats, sk_error *err);

#endif
