/* skelanim — retargeting: the retargeter (first stub; the solve follows). */
#include "skelanim/anim/retarget.h"

const char *sk_humanoid_bone_name(sk_humanoid_bone bone) { (void)bone; return NULL; }
int sk_humanoid_bone_from_name(const char *name) { (void)name; return -1; }
sk_humanoid_bone sk_humanoid_bone_mirror(sk_humanoid_bone bone) { return bone; }
bool sk_humanoid_bone_required(sk_humanoid_bone bone) { (void)bone; return false; }
sk_result sk_humanoid_map_find(const sk_skeleton *skel, const sk_pose *rest, sk_humanoid_map *out, sk_error *err) {
    (void)skel; (void)rest; (void)out;
    return sk_error_set(err, SK_ERR_UNSUPPORTED, "sk_humanoid_map_find: not implemented yet");
}
sk_result sk_humanoid_map_find_alloc(const sk_skeleton *skel, const sk_pose *rest, const sk_allocator *alloc,
                                            sk_humanoid_map *out, sk_error *err) {
    (void)alloc;
    return sk_humanoid_map_find(skel, rest, out, err);
}
sk_result sk_humanoid_map_set(sk_humanoid_map *map, const sk_skeleton *skel, sk_humanoid_bone bone,
                                     const char *joint_name, sk_error *err) {
    (void)map; (void)skel; (void)bone; (void)joint_name;
    return sk_error_set(err, SK_ERR_UNSUPPORTED, "sk_humanoid_map_set: not implemented yet");
}
sk_result sk_humanoid_map_check(const sk_humanoid_map *map, const sk_skeleton *skel, sk_error *err) {
    (void)map; (void)skel;
    return sk_error_set(err, SK_ERR_UNSUPPORTED, "sk_humanoid_map_check: not implemented yet");
}
float sk_humanoid_leg_length(const sk_skeleton *skel, const sk_pose *rest, const sk_humanoid_map *map) {
    (void)skel; (void)rest; (void)map;
    return 0.0f;
}
sk_result sk_skeleton_mirror_pairs(const sk_skeleton *skel, const sk_humanoid_map *map, uint32_t (*pairs)[2],
                                          uint32_t cap, uint32_t *count, sk_error *err) {
    (void)skel; (void)map; (void)pairs; (void)cap; (void)count;
    return sk_error_set(err, SK_ERR_UNSUPPORTED, "sk_skeleton_mirror_pairs: not implemented yet");
}
sk_result sk_retarget_create(const sk_retarget_desc *desc, const sk_allocator *alloc, sk_retarget **out,
                                    sk_error *err) {
    (void)desc; (void)alloc; (void)out;
    return sk_error_set(err, SK_ERR_UNSUPPORTED, "sk_retarget_create: not implemented yet");
}
void sk_retarget_destroy(sk_retarget *rt) { (void)rt; }
size_t sk_retarget_scratch_size(const sk_retarget *rt) { (void)rt; return 0; }
sk_result sk_retarget_pose(const sk_retarget *rt, const sk_pose *source_pose, const sk_pose *fill,
                                  sk_pose *target_out, void *scratch, size_t scratch_size, sk_error *err) {
    (void)rt; (void)source_pose; (void)fill; (void)target_out; (void)scratch; (void)scratch_size;
    return sk_error_set(err, SK_ERR_UNSUPPORTED, "sk_retarget_pose: not implemented yet");
}
sk_result sk_retarget_clip(const sk_retarget *rt, const sk_clip *source_clip, const sk_clip *fill_clip,
                                  const sk_allocator *alloc, sk_clip **out, sk_error *err) {
    (void)rt; (void)source_clip; (void)fill_clip; (void)alloc; (void)out;
    return sk_error_set(err, SK_ERR_UNSUPPORTED, "sk_retarget_clip: not implemented yet");
}
float sk_retarget_root_scale(const sk_retarget *rt) { (void)rt; return 0.0f; }
int32_t sk_retarget_source_of(const sk_retarget *rt, uint32_t target_joint) { (void)rt; (void)target_joint; return -1; }
const sk_humanoid_map *sk_retarget_map(const sk_retarget *rt, int which) { (void)rt; (void)which; return NULL; }
const sk_skeleton *sk_retarget_source(const sk_retarget *rt) { (void)rt; return NULL; }
const sk_skeleton *sk_retarget_target(const sk_retarget *rt) { (void)rt; return NULL; }
sk_quat sk_retarget_frame_rotation(const sk_retarget *rt) { (void)rt; return sk_quat_identity(); }
