/* Private helpers shared by the retargeting sources (anim layer only). */
#ifndef SKELANIM_ANIM_RETARGET_INTERNAL_H
#define SKELANIM_ANIM_RETARGET_INTERNAL_H

#include "core/math_inline.h"
#include "skelanim/anim/retarget.h"

/* A joint name without namespace ("a:b", "a|b") and rigify prefix
 * ("DEF-"), ASCII lower case, truncated to cap - 1 bytes. */
void skr_normalize_name(const char *name, char *out, size_t cap);
/* Model transform / position of joint j from local transforms (walks the ancestors). */
sk_transform skr_model_transform(const sk_skeleton *skel, const sk_transform *local, int32_t j);
sk_vec3 skr_model_position(const sk_skeleton *skel, const sk_transform *local, int32_t j);
/* Model transforms of every joint from local transforms (parents first). */
void skr_model_all(const sk_skeleton *skel, const sk_transform *local, sk_transform *model);
/* src_of[t] = the source joint whose normalised name equals target joint
 * t's, for every target joint still -1 (the lowest index on a tie). */
sk_result skr_match_names(const sk_skeleton *src, const sk_skeleton *dst, const sk_allocator *a, int32_t *src_of,
                          sk_error *err);
/* Rest model matrices (rest NULL = the skeleton's rest). */
sk_result skr_rest_model(const sk_skeleton *skel, const sk_pose *rest, sk_mat4 *model, sk_error *err);

/* True when every translation, rotation and scale of x[0, n) is finite. */
bool skr_transforms_finite(const sk_transform *x, uint32_t n);
/* The hips frame of model transforms as a rotation (columns lateral, up,
 * forward; up = hips to head, lateral = left to right upper leg); false when
 * a bone is missing or the frame degenerates. */
bool skr_hips_frame(const sk_transform *model, const sk_humanoid_map *m, sk_quat *out);
/* Per humanoid bone, the bones that may follow it down its chain (the first
 * mapped one gives the bone's direction), -1 ends the list. */
extern const int8_t skr_next_bone[SK_HUMANOID_BONE_COUNT][4];

/* The retargeter (retarget.c builds it, retarget_clip.c reads it). */
struct sk_retarget {
    const sk_skeleton *src, *dst;
    sk_allocator alloc;
    size_t bytes;
    sk_humanoid_map map[2];
    bool has_map[2];
    sk_quat frame;         /* C: source model frame -> target model frame */
    float root_scale;
    uint32_t flags;
    int32_t src_hips, dst_hips; /* -1: no root translation */
    sk_vec3 src_hips0, dst_hips0; /* rest model positions */
    int32_t *src_of;       /* per target joint: source joint or -1 */
    sk_quat *post;         /* per target joint: K = Rs0^-1 C^-1 A Rt0 */
    sk_transform *dst_rest; /* target rest local transforms (copied) */
    float *dst_rest_weights;
};

#endif
