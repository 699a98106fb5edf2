/* skelanim — weighted blending of any number of poses, with per-joint
 * weights and per-channel contributions.
 *
 * Every per-frame function here writes into caller-owned buffers and
 * allocates nothing. A "pose" is an array of skeleton->joint_count local
 * transforms plus (optionally) skeleton->weight_total morph weights. */
#ifndef SKELANIM_ANIM_BLEND_H
#define SKELANIM_ANIM_BLEND_H

#include "skelanim/core/clip.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Weighted blending of any number of poses ---------------------------- */

/* Which channels a pose animates (bits per joint, optional): a pose only
 * contributes to the channels it has. Build it from a clip with
 * sk_clip_channel_mask. */
enum { SK_CHANNEL_T = 1, SK_CHANNEL_R = 2, SK_CHANNEL_S = 4, SK_CHANNEL_W = 8, SK_CHANNEL_ALL = 15 };

typedef struct sk_blend_input {
    /* The pose: joint_count equal to the skeleton's; weight_count equal to the
     * skeleton's, or 0 when it contributes no morph weights. */
    const sk_pose *pose;
    float weight;               /* >= 0; negative or NaN counts as 0 */
    const float *mask;          /* per-joint factor 0..1 (multiplies weight), or NULL = 1 */
    const uint8_t *channels;    /* per-joint SK_CHANNEL_* bits, or NULL = all channels */
} sk_blend_input;

typedef enum sk_blend_rotation {
    /* Default: weighted sum of hemisphere-aligned quaternions, normalised
     * (sign-corrected nlerp; order-independent). */
    SK_BLEND_NLERP = 0,
    /* Sequential slerp accumulation in input order, as three.js's
     * PropertyMixer does: acc = x_1; W = w_1; then W += w_k, acc =
     * slerp(acc, x_k, w_k / W). With two inputs this is the exact slerp
     * slerp(x_1, x_2, w_2 / (w_1 + w_2)). Translation/scale/morph weights are
     * the same weighted mean in both modes. */
    SK_BLEND_SLERP = 1
} sk_blend_rotation;

typedef struct sk_blend_options {
    sk_blend_rotation rotation;
    /* Default (false): per channel, where the contributing weights sum W < 1
     * the rest pose fills the remaining 1 - W;
     * where W >= 1 the contributions are normalised by W. true: always
     * normalise (rest only where W == 0). */
    bool no_rest_fill;
} sk_blend_options;

/* out = blend of n poses (out may alias none of the inputs). opts may be
 * NULL. Fails only on invalid arguments (a pose that does not fit the skeleton). */
SK_API sk_result sk_blend_poses(const sk_skeleton *skel, const sk_blend_input *in, uint32_t n,
                                const sk_blend_options *opts, sk_pose *out, sk_error *err);

/* Two-pose convenience: out = a*(1-t) + b*t per joint (t scaled by mask[j] if
 * mask is non-NULL), rotations by slerp when use_slerp, otherwise nlerp, both
 * on the shortest arc; morph weights likewise when a, b and out all carry
 * them. t outside [0, 1] extrapolates (slerp along the arc, nlerp along the
 * chord, renormalised). out may alias a. */
SK_API sk_result sk_blend_two(const sk_skeleton *skel, const sk_pose *a, const sk_pose *b, float t, const float *mask,
                              bool use_slerp, sk_pose *out, sk_error *err);

/* Per-joint channel bits of the tracks in a clip (SK_CHANNEL_*), for
 * sk_blend_input.channels. out holds joint_count bytes. */
SK_API sk_result sk_clip_channel_mask(const sk_clip *clip, const sk_skeleton *skel, uint8_t *out, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
