/* skelanim — joint masks, additive poses and the layer stack. Per-frame
 * functions allocate nothing. */
#ifndef SKELANIM_ANIM_LAYERS_H
#define SKELANIM_ANIM_LAYERS_H

#include "skelanim/core/pose.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Masks (a 0..1 value per joint) -------------------------------------- */

/* Sets every entry to value. */
SK_API void sk_mask_fill(const sk_skeleton *skel, float *mask, float value);
/* Sets the named joint and all its descendants to value. */
SK_API sk_result sk_mask_set_subtree(const sk_skeleton *skel, const char *joint, float value, float *mask, sk_error *err);
/* Sets only the named joints (a list) to value. */
SK_API sk_result sk_mask_set_joints(const sk_skeleton *skel, const char *const *joints, uint32_t count, float value,
                                    float *mask, sk_error *err);

/* ---- Additive poses and the layer stack --------------------------------- */

/* delta = pose relative to reference, per joint: t = p.t - r.t,
 * r = inverse(r.r) * p.r (applied on the right: local-space additive),
 * s = p.s / r.s (component-wise; a zero reference scale gives 1). Morph:
 * p - r (when all three poses carry morph weights). Use a clip's first
 * frame or another clip's pose as the reference. */
SK_API sk_result sk_pose_make_additive(const sk_skeleton *skel, const sk_pose *pose, const sk_pose *reference,
                                       sk_pose *out_delta, sk_error *err);
/* io = io (+) weight * delta: t += w*dt, r = r * slerp(identity, dr, w),
 * s *= lerp(1, ds, w); weight per joint scaled by mask (NULL = 1); morph
 * weights += w * delta when the delta carries them. */
SK_API sk_result sk_pose_apply_additive(const sk_skeleton *skel, sk_pose *io, const sk_pose *delta, float weight,
                                        const float *mask, sk_error *err);
/* sk_pose_apply_additive with the delta's rotation weighted by normalised
 * lerp instead of slerp, as ozz-animation's and Unreal's additive layers
 * do: r = normalize(r * q), q = (1 - w) identity + w dr with dr taken on
 * the hemisphere of the identity (dr.w >= 0); where w is 1, q = dr. t and
 * s as sk_pose_apply_additive. It turns by the delta's whole angle at w = 1
 * and half of it at w = 0.5; in between its angle differs from slerp's by
 * at most 0.03 degrees for a 30-degree delta, 0.9 for a 90-degree one and
 * 2.2 for a 120-degree one. Cheaper (docs/performance.md). */
SK_API sk_result sk_pose_apply_additive_nlerp(const sk_skeleton *skel, sk_pose *io, const sk_pose *delta, float weight,
                                              const float *mask, sk_error *err);

typedef enum sk_layer_mode {
    SK_LAYER_OVERRIDE = 0,       /* io = blend(io, pose, weight * mask) */
    SK_LAYER_ADDITIVE = 1,       /* io = io (+) weight * mask * pose (pose is a delta): sk_pose_apply_additive */
    SK_LAYER_ADDITIVE_NLERP = 2  /* the same by sk_pose_apply_additive_nlerp */
} sk_layer_mode;

typedef struct sk_layer {
    sk_layer_mode mode;
    float weight;              /* 0..1 */
    const float *mask;         /* per joint, or NULL = whole body */
    /* The layer's pose (OVERRIDE) or delta (ADDITIVE); its morph weights are
     * optional (weight_count 0: the layer leaves morph weights alone). */
    const sk_pose *pose;
} sk_layer;

/* Applies layers in order on top of io (the base layer's pose), like an
 * engine's animation layer stack. Rotations of override layers by nlerp. */
SK_API sk_result sk_layers_apply(const sk_skeleton *skel, sk_pose *io, const sk_layer *layers, uint32_t n, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
