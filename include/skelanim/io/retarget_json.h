/* skelanim — a retargeting map from JSON: what a user writes when the
 * built-in humanoid profile gets a joint wrong (anim/retarget.h). Part of
 * libskelanim_io.
 *
 * The document (every member optional, at least one present; other members
 * are an error):
 *   {
 *     "map":    {"SourceJoint": "TargetJoint", ...},
 *     "source": {"hips": "Hips", "left_foot": "LeftFoot", ...},
 *     "target": {"hips": "pelvis", "head": "", ...},
 *     "root_scale": 1.0
 *   }
 * "map": joint pairs by name, each driving its target joint from its source
 * joint whatever the humanoid maps say. "source"/"target": humanoid bones
 * (by sk_humanoid_bone_name: "hips", "left_upper_arm", ...) set on that
 * side's map, "" clearing one. "root_scale": the root translation scale
 * (finite, >= 0; 0 = from the leg lengths). */
#ifndef SKELANIM_IO_RETARGET_JSON_H
#define SKELANIM_IO_RETARGET_JSON_H

#include "skelanim/anim/retarget.h"
#include "skelanim/io/file.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_retarget_map_json {
    const sk_retarget_pair *pairs; /* "map", in document order */
    uint32_t pair_count;
    /* "source" / "target": per humanoid bone a joint name, "" (clear) or
     * NULL (not given). */
    const char *source_bone[SK_HUMANOID_BONE_COUNT];
    const char *target_bone[SK_HUMANOID_BONE_COUNT];
    float root_scale;    /* "root_scale", or 0 */
    bool has_root_scale;
    sk_allocator allocator; /* private */
    size_t allocation_size; /* private */
} sk_retarget_map_json;

/* Parses the document (RFC 8259 JSON; len bytes). Errors: SK_ERR_PARSE with
 * the byte offset; SK_ERR_INVALID_DATA naming the JSON path of a value of the
 * wrong type, an unknown member or humanoid bone, an empty joint name in
 * "map", a source or target joint named twice, a bad root_scale;
 * SK_ERR_OUT_OF_MEMORY. All memory comes from alloc; free the result with
 * sk_retarget_map_json_destroy. */
SK_API sk_result sk_retarget_map_json_parse(const char *json, size_t len, const sk_allocator *alloc,
                                            sk_retarget_map_json **out, sk_error *err);
/* The same from a file (at most 16 MiB) read through io (NULL: stdio); the
 * error message starts with the path. */
SK_API sk_result sk_retarget_map_json_load(const char *path, const sk_allocator *alloc, const sk_file_io *io,
                                           sk_retarget_map_json **out, sk_error *err);
/* Frees a loaded map (NULL: nothing happens). */
SK_API void sk_retarget_map_json_destroy(sk_retarget_map_json *m);

/* Applies the document to a retargeting description: desc->pairs and
 * pair_count point at m's pairs (m must outlive sk_retarget_create), the
 * root scale is set when the document gives one, and when it names
 * humanoid bones, *source_map / *target_map are found
 * (sk_humanoid_map_find on desc's skeletons and rest poses; a skeleton
 * that has no humanoid map starts from an empty one), overridden by the
 * bones given, checked (sk_humanoid_map_check) and set as desc->source_map /
 * target_map. Either map pointer may be NULL when the document names no
 * bone of that side. Errors: SK_ERR_INVALID_ARGUMENT naming a joint the
 * skeleton does not have ("target bone left_foot: no joint named 'Foot_L'",
 * "map: source joint 'X' does not exist"); those of the map check. */
SK_API sk_result sk_retarget_map_json_apply(const sk_retarget_map_json *m, sk_retarget_desc *desc,
                                            sk_humanoid_map *source_map, sk_humanoid_map *target_map, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
