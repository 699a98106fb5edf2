/* skelanim — the sprite: the planar character (content/planar.h) with a
 * cut-out 2D mesh, built in code, for the IK-only walker's side view (the
 * look of seed 004's character, a sprite skinned to bones). Needs no file.
 *
 * The mesh is flat pieces in the character's side plane, the y-z plane
 * (+Y up, facing +Z, metres): a capsule outline per bone (torso in three
 * pieces, neck, head, upper and lower arms, hands, thighs, shins, feet,
 * toes), each at a depth x of its own so that the pieces overlap as a
 * paper cut-out's do seen from +X, the character's left: the left limbs in
 * front (+x), the torso at 0, the right limbs behind (-x). Every normal is
 * +X. Each vertex has up to two influences (stored as four): its bone, and
 * within a fifth of the bone's length of a joint, the bone on the joint's
 * other side, blended by a smoothstep to half and half at the joint, so a
 * piece bends with its neighbour. The weights sum to 1. One primitive per
 * colour (skin, shirt, trousers, shoes; the right limbs darker).
 *
 * Joints: the planar rig's 20 (same names, rest pose and order) and a
 * 21st root node, "sprite_mesh", that carries the skinned mesh; skin 0
 * lists joints 0-19, its inverse bind matrices the inverse rest model
 * matrices. No clips. */
#ifndef SKELANIM_CONTENT_SPRITE_H
#define SKELANIM_CONTENT_SPRITE_H

#include "skelanim/core/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Builds the sprite (above) as an asset: skeleton, rest pose, one skin,
 * one mesh. All of it is allocated from alloc (NULL: the C library) and
 * freed with sk_asset_destroy. Errors: SK_ERR_INVALID_ARGUMENT (out NULL),
 * SK_ERR_OUT_OF_MEMORY. Thread safety: shares nothing. */
SK_API sk_result sk_sprite_create(const sk_allocator *alloc, sk_asset **out, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
