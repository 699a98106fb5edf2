/* skelanim — state-machine descriptions in JSON (the format: graph.h and
 * docs/state-machine.md), loaded into an sk_graph. Part of libskelanim_io. */
#ifndef SKELANIM_IO_GRAPH_JSON_H
#define SKELANIM_IO_GRAPH_JSON_H

#include "skelanim/anim/graph.h"
#include "skelanim/io/file.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parses a description. Clips are looked up by name among clips[] (which,
 * like skel, must outlive the graph). All memory comes from alloc: the
 * graph's, and the parsed JSON document's, which exists only during the
 * call (running out of memory gives SK_ERR_OUT_OF_MEMORY). The text must be
 * RFC 8259 JSON (no byte order mark, leading zeros or control characters
 * inside strings): anything else is SK_ERR_PARSE with its byte offset. */
SK_API sk_result sk_graph_load_json(const char *json, size_t len, const sk_skeleton *skel, sk_clip *const *clips,
                                    uint32_t clip_count, const sk_allocator *alloc, sk_graph **out, sk_error *err);
/* Same from a file (at most 64 MiB), read through io (NULL or a zeroed
 * struct: stdio, regular files only; skelanim/io/file.h); the error message
 * starts with the file name. */
SK_API sk_result sk_graph_load_file(const char *path, const sk_skeleton *skel, sk_clip *const *clips, uint32_t clip_count,
                                    const sk_allocator *alloc, const sk_file_io *io, sk_graph **out, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
