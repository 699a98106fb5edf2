/* skelanim — motion analyses (skelanim/locomotion/analysis.h) saved as JSON
 * beside their clip and loaded back, so the analysis runs once, offline.
 * Part of libskelanim_io.
 *
 * The document: {"format": "skelanim-motion-analysis", "version": 1,
 * "clip", "backward", "sample_count", the cycle fields, "legs": [{every
 * sk_leg_analysis field by its C name, vectors as [x, y, z], and
 * "samples": {"heel": [x0, y0, z0, x1, ...], "toe", "middle", "footbase",
 * "normalized_footbase", "heel_height": [h0, h1, ...], "toe_height",
 * "balance"}}]}. Floats are written with 9 significant digits and the cycle
 * duration with 17, so a load gives back the same values bit for bit. */
#ifndef SKELANIM_IO_ANALYSIS_JSON_H
#define SKELANIM_IO_ANALYSIS_JSON_H

#include "skelanim/io/file.h"
#include "skelanim/locomotion/analysis.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The JSON text of an analysis, in memory from alloc (free with sk_free(alloc,
 * *text, *len + 1); NUL-terminated). */
SK_API sk_result sk_motion_analysis_to_json(const sk_motion_analysis *a, const sk_allocator *alloc, char **text, size_t *len,
                                            sk_error *err);
/* Writes the JSON text to path through io (NULL: stdio). */
SK_API sk_result sk_motion_analysis_save(const sk_motion_analysis *a, const char *path, const sk_allocator *alloc,
                                         const sk_file_io *io, sk_error *err);
/* Parses an analysis (every field required; counts and lengths checked; the
 * error names the JSON path). All memory, the parsed JSON document's
 * included (freed before the call returns), comes from alloc; the text must
 * be RFC 8259 JSON, as the writer writes it. Free the result with
 * sk_motion_analysis_destroy. */
SK_API sk_result sk_motion_analysis_from_json(const char *json, size_t len, const sk_allocator *alloc,
                                              sk_motion_analysis **out, sk_error *err);
/* The same from a file (at most 256 MiB); the error message starts with the path. */
SK_API sk_result sk_motion_analysis_load(const char *path, const sk_allocator *alloc, const sk_file_io *io,
                                         sk_motion_analysis **out, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
