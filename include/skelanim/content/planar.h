/* skelanim — the planar character of the IK-only walker's side view
 * (seed 004 ch. 5, Kuvio 5): a 2D skeleton built in code, all
 * joints in the y-z plane (x = 0), with the seed's simplification that both
 * hips are one joint and both shoulders are one joint, so left and right
 * limbs hang from the same points and overlap in the side view.
 *
 *   pelvis (0, 0.95, 0)            root
 *   ├ spine +0.15 ├ chest +0.25 ├ neck +0.12 └ head +0.12
 *   │                 └ shoulder (0, +0.20) ── upperarm_l/_r ── forearm (-0.28) ── hand (-0.26)
 *   ├ thigh_l / thigh_r (0, -0.05)  ── shin (-0.43) ── foot (-0.42) ── toe (0, -0.06, +0.15)
 * (offsets in metres, each from its parent; arms hang along -Y.)
 * No mesh: drawn as bones. Leg joints are named as the mannequin's, so
 * sk_legs_find finds both legs. */
#ifndef SKELANIM_CONTENT_PLANAR_H
#define SKELANIM_CONTENT_PLANAR_H

#include "skelanim/core/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Builds the planar character (above) as an asset: skeleton and rest pose,
 * no mesh, no clips. */
SK_API sk_result sk_planar_rig_create(const sk_allocator *alloc, sk_asset **out, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
