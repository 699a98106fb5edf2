/* skelanim — state-machine descriptions in JSON (the format: graph.h and
 * docs/state-machine.md), loaded into an sk_graph. Part of libskelanim_io. */
#ifndef SKELANIM_IO_GRAPH_JSON_H
#define SKELANIM_IO_GRAPH_JSON_H

#include "skelanim/anim/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parses a description. Clips are looked up by name among clips[] (which,
 * like skel, must outlive the graph). The JSON text is parsed with cJSON
 * (its own malloc); the graph itself uses alloc. */
sk_result sk_graph_load_json(const char *json, size_t len, const sk_skeleton *skel, sk_clip *const *clips,
                             uint32_t clip_count, const sk_allocator *alloc, sk_graph **out, sk_error *err);
/* Same from a file; the error message starts with the file name. */
sk_result sk_graph_load_file(const char *path, const sk_skeleton *skel, sk_clip *const *clips, uint32_t clip_count,
                             const sk_allocator *alloc, sk_graph **out, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
