/* skelanim — the default character, built in code: a humanoid skeleton, a
 * skinned mesh of capsule-like limbs with smooth weights, and code-authored
 * idle, walk, run, crouch, backward-walk and sidestep clips. Needs no file. */
#ifndef SKELANIM_MANNEQUIN_H
#define SKELANIM_MANNEQUIN_H

#include "skelanim/core/asset.h"
#include "skelanim/ik/ik.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_mannequin_desc {
    float height;        /* metres, 0 = 1.8 */
    uint32_t segments;   /* capsule ring resolution, 0 = 16 */
} sk_mannequin_desc;

/* Builds the mannequin as an asset (one scene, one skinned mesh, clips
 * "idle", "walk" (1.4 m/s), "run" (3.5 m/s), "crouch", "walk_back" (1.1 m/s
 * backward), "strafe_left" (0.85 m/s sidestep to the character's left, +X)
 * and "strafe_right" (its mirror image), in that order; each locomotion clip
 * is one cycle, looping, its root motion on the hips). desc may be NULL. */
SK_API sk_result sk_mannequin_create(const sk_mannequin_desc *desc, const sk_allocator *alloc,
                                     sk_asset **out, sk_error *err);

/* Anatomical limits of the mannequin's legs, relative to the
 * rest pose (legs straight down, feet forward; +X is the hinge of flexion):
 *   hips   (thigh_l/r)  EULER: flexion -2.3 .. extension 0.7 rad about X
 *                       (132 / 40 degrees), abduction +-0.6 about Z,
 *                       rotation +-0.6 about Y
 *   knees  (shin_l/r)   HINGE about +X: 0 .. 2.7 rad (never backwards)
 *   ankles (foot_l/r)   EULER: -0.349 .. 0.873 rad about X (the foot's
 *                       pitch against the shin: dorsiflexion 20, plantar-
 *                       flexion 50 degrees, the AAOS clinical ranges as in
 *                       Greene & Heckman, The Clinical Measurement of Joint
 *                       Motion, 1994), +-0.5 about Y and Z (twist; roll,
 *                       29 degrees: between the AAOS inversion 35 and
 *                       eversion 15).
 * out holds count (>= the skeleton's joint count) entries; joints without a
 * limit get SK_IK_LIMIT_NONE. SK_ERR_INVALID_ARGUMENT if a leg joint is
 * missing (not the mannequin) or count is short. */
SK_API sk_result sk_mannequin_leg_limits(const sk_skeleton *skel, sk_ik_limit *out, uint32_t count, sk_error *err);

/* Anatomical limits of the mannequin's arms, relative to the rest pose (the
 * arms hanging 12 degrees out from vertical), after the usual clinical ranges
 * (AAOS: shoulder flexion 180, extension 60, abduction 180, rotation 70-90
 * degrees; elbow 0-150 degrees):
 *   shoulders (upperarm_l/r) EULER: flexion -3.1 .. extension 1.05 rad about
 *                       X, twist +-1.2 about Y, abduction 2.9 / adduction
 *                       0.75 about Z (+Z for the left arm, -Z for the right)
 *   elbows (forearm_l/r) HINGE about +X: -2.6 .. 0 rad (flexion turns the
 *                       forearm forward; never backwards)
 * out, count and the errors as sk_mannequin_leg_limits. */
SK_API sk_result sk_mannequin_arm_limits(const sk_skeleton *skel, sk_ik_limit *out, uint32_t count, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
