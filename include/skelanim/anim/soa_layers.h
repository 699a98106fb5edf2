/* skelanim — masks, channel sets, slerp, additive poses and the layer stack
 * on structure-of-arrays poses (core/soa.h).
 *
 * The same operations as blend.h and layers.h, in the same order, four
 * (SSE2) or eight (AVX2) joints per instruction: every function here gives
 * the bits its sk_pose counterpart gives on the same input (tests/
 * test_soa.c and tests/test_soa_layers.c check each against it, at both
 * widths). First the crowd's plain blends (sk_blend_two_soa,
 * sk_blend_weighted_soa), then what a game's animation graph adds on top of
 * them: an upper-body mask, a clip that animates only some channels, a
 * slerp crossfade, an additive breathing or recoil layer.
 *
 * Masks are per joint (skeleton joint_count floats, as layers.h's); channel
 * sets per joint (SK_CHANNEL_* bits, blend.h). Morph weights are not part of
 * an SoA pose: blend them with sk_blend_poses on sk_pose.
 *
 * Slerp rotations run eight (or four) joints at a time on the series of
 * sk_quat_slerp, with the scalar function for the rare joints whose
 * rotations are more than 120 degrees apart. sk_blend_poses_soa's
 * SK_BLEND_SLERP (three.js's sequential slerp in double, with acos and sin)
 * runs joint by joint on the SoA rows: the same bits, no vector gain.
 *
 * Per-frame functions allocate nothing. */
#ifndef SKELANIM_ANIM_SOA_LAYERS_H
#define SKELANIM_ANIM_SOA_LAYERS_H

#include "skelanim/anim/blend.h"
#include "skelanim/anim/layers.h"
#include "skelanim/core/soa.h"

#ifdef __cplusplus
extern "C" {
#endif

/* sk_blend_two(skel, a, b, t, NULL, false, out): every joint a + (b - a) t,
 * rotations by normalised lerp on the shortest arc. out may be a or b. */
SK_API sk_result sk_blend_two_soa(const sk_skeleton *skel, const sk_soa_pose *a, const sk_soa_pose *b, float t,
                                  sk_soa_pose *out, sk_error *err);

/* sk_blend_poses (anim/blend.h) of n poses with these weights, no masks or
 * channel sets, rotations by normalised lerp (SK_BLEND_NLERP); rest_fill as
 * !sk_blend_options.no_rest_fill (where the weights sum below one the rest
 * pose fills the rest). Accumulated in double as sk_blend_poses does, four
 * joints per AVX2 instruction: the same bits. Poses with weight <= 0 (or
 * NaN) do not contribute; none contributing gives the rest pose. At most
 * 64 poses (SK_ERR_LIMIT). out may be one of the inputs. */
SK_API sk_result sk_blend_weighted_soa(const sk_skeleton *skel, const sk_soa_pose *const *poses, const float *weights,
                                       uint32_t n, bool rest_fill, sk_soa_pose *out, sk_error *err);

/* sk_blend_two(skel, a, b, t, mask, use_slerp, out) on SoA poses: per joint
 * u = t * mask[j] (t where mask is NULL); a where u == 0, otherwise
 * a + (b - a) u, rotations by slerp (use_slerp) or normalised lerp on the
 * shortest arc. out may be a or b. */
SK_API sk_result sk_blend_two_masked_soa(const sk_skeleton *skel, const sk_soa_pose *a, const sk_soa_pose *b, float t,
                                         const float *mask, bool use_slerp, sk_soa_pose *out, sk_error *err);

/* sk_blend_input with an SoA pose. */
typedef struct sk_soa_blend_input {
    const sk_soa_pose *pose;
    float weight;            /* >= 0; negative or NaN counts as 0 */
    const float *mask;       /* per-joint factor 0..1 (multiplies weight), or NULL = 1 */
    const uint8_t *channels; /* per-joint SK_CHANNEL_* bits, or NULL = all channels (the W bit is ignored) */
} sk_soa_blend_input;

/* sk_blend_poses of n SoA poses: per joint and channel the weights of the
 * inputs that animate it, the rest pose filling a sum below one (unless
 * opts->no_rest_fill), rotations by opts->rotation (NULL: nlerp). At most 64
 * inputs (SK_ERR_LIMIT). out may be one of the inputs. */
SK_API sk_result sk_blend_poses_soa(const sk_skeleton *skel, const sk_soa_blend_input *in, uint32_t n,
                                    const sk_blend_options *opts, sk_soa_pose *out, sk_error *err);

/* sk_pose_make_additive on SoA poses (out may be either input). */
SK_API sk_result sk_pose_make_additive_soa(const sk_skeleton *skel, const sk_soa_pose *pose, const sk_soa_pose *reference,
                                           sk_soa_pose *out_delta, sk_error *err);

/* sk_pose_apply_additive on SoA poses: io = io (+) weight * mask * delta. */
SK_API sk_result sk_pose_apply_additive_soa(const sk_skeleton *skel, sk_soa_pose *io, const sk_soa_pose *delta,
                                            float weight, const float *mask, sk_error *err);
/* sk_pose_apply_additive_nlerp on SoA poses (the same bits). */
SK_API sk_result sk_pose_apply_additive_nlerp_soa(const sk_skeleton *skel, sk_soa_pose *io, const sk_soa_pose *delta,
                                                  float weight, const float *mask, sk_error *err);

/* sk_layer with an SoA pose (override) or delta (additive). */
typedef struct sk_soa_layer {
    sk_layer_mode mode;
    float weight;       /* 0..1 (clamped; <= 0 or NaN: skipped) */
    const float *mask;  /* per joint, or NULL = whole body */
    const sk_soa_pose *pose;
} sk_soa_layer;

/* sk_layers_apply on SoA poses: override layers blend by normalised lerp
 * with their mask, additive layers apply their delta. */
SK_API sk_result sk_layers_apply_soa(const sk_skeleton *skel, sk_soa_pose *io, const sk_soa_layer *layers, uint32_t n,
                                     sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
