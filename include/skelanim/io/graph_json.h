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
 * like skel, must outlive the graph). The graph's memory comes from alloc;
 * the JSON text is parsed with cJSON, whose tree (cJSON's own malloc) exists
 * only during the call (a parse that runs out of memory gives
 * SK_ERR_OUT_OF_MEMORY). */
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
