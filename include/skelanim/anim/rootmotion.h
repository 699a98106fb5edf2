/* skelanim — root motion: the root joint's horizontal motion and yaw taken
 * out of a clip and delivered per update as a delta. */
#ifndef SKELANIM_ANIM_ROOTMOTION_H
#define SKELANIM_ANIM_ROOTMOTION_H

#include "skelanim/anim/player.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Root motion -----------------------------------------------------------
 * The root joint's horizontal (XZ, glTF is +Y up) translation and yaw (about
 * +Y) are taken out of the pose (the clip plays in place) and delivered per
 * update as a delta in the root's frame at the start of the update: apply it
 * as position += rotate_y(yaw_character, delta.translation); yaw_character +=
 * delta.yaw. Deltas are exact across loop wraps (whole loops compose the
 * clip's start-to-end motion, by squaring for large steps), backwards and in
 * ping-pong, and can be blended like any other channel. */
typedef struct sk_root_delta {
    sk_vec3 translation; /* y is always 0 */
    float yaw;           /* radians about +Y */
} sk_root_delta;

typedef struct sk_root_motion sk_root_motion;

/* Builds a root-motion extractor for joint `root` of the skeleton driven by
 * clip (copies the joint's translation/rotation tracks; the clip may be
 * destroyed afterwards). Immutable afterwards: share it between instances. */
SK_API sk_result sk_root_motion_create(const sk_clip *clip, const sk_skeleton *skel, uint32_t root,
                                       const sk_allocator *alloc, sk_root_motion **out, sk_error *err);
/* Frees the extractor (NULL: nothing happens). */
SK_API void sk_root_motion_destroy(sk_root_motion *rm);
/* The root joint the extractor was built for. */
SK_API uint32_t sk_root_motion_joint(const sk_root_motion *rm);
/* Motion of the root between two states of the same player (before, after). */
SK_API sk_root_delta sk_root_motion_delta(const sk_root_motion *rm, const sk_player *before, const sk_player *after);
/* Motion between two clip times inside one cycle (a to b, either order). */
SK_API sk_root_delta sk_root_motion_between(const sk_root_motion *rm, double a, double b);
/* Removes the motion from a sampled pose: the root keeps its frame-0
 * horizontal position and yaw (the height and other rotation remain). */
SK_API sk_result sk_root_motion_strip(const sk_root_motion *rm, sk_pose *pose, sk_error *err);

/* No motion: zero translation and yaw. */
SK_API sk_root_delta sk_root_delta_identity(void);
/* a then b (b expressed in the frame reached by a). */
SK_API sk_root_delta sk_root_delta_compose(sk_root_delta a, sk_root_delta b);
/* The motion that undoes a: compose(a, inverse(a)) is the identity. */
SK_API sk_root_delta sk_root_delta_inverse(sk_root_delta a);
/* Weighted mean of deltas (weights normalised; all-zero gives identity). */
SK_API sk_root_delta sk_root_delta_blend(const sk_root_delta *d, const float *w, uint32_t n);

#ifdef __cplusplus
}
#endif
#endif
