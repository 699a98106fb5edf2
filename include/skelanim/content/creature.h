/* skelanim — creatures with three, four and six legs, built in code for the
 * N-legged IK-only walker (locomotion/legged.h). Need no file.
 *
 *   SK_CREATURE_TRIPOD     three legs 120 degrees apart under a round body
 *                          (seed 004's three-legged figure): front left,
 *                          front right, back; body 0.70 m up, legs 0.80 m
 *   SK_CREATURE_QUADRUPED  a four-legged animal 0.55 m at the shoulder:
 *                          legs in pairs front (+Z) to back, left (+X)
 *                          first, knees bent forward; a neck and head
 *   SK_CREATURE_HEXAPOD    an insect-like body 0.30 m up with six legs in
 *                          three pairs, knees up and out
 *
 * Units: metres, +Y up, facing +Z, the creature's left +X; every rest
 * rotation is the identity. Joints: "body" (the root; the legs hang from
 * it), per leg "hip_N", "knee_N", "foot_N" (N from 0 in the order above),
 * and for looks a head chain; then a root node "creature_mesh" that
 * carries the skinned mesh. The mesh: a capsule per bone (body, legs,
 * head), each vertex on its bone and within a fifth of the bone's length of
 * a joint blended toward the bone across it (up to two influences, summing
 * to 1), one primitive per colour. The foot is a ball of
 * sk_creature_legs' foot_radius around the foot joint. No clips. */
#ifndef SKELANIM_CONTENT_CREATURE_H
#define SKELANIM_CONTENT_CREATURE_H

#include "skelanim/core/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sk_creature_kind {
    SK_CREATURE_TRIPOD = 0,
    SK_CREATURE_QUADRUPED = 1,
    SK_CREATURE_HEXAPOD = 2
} sk_creature_kind;

/* Builds the creature as an asset (skeleton, rest pose, one skin, one
 * mesh), all of it from alloc (NULL: the C library), freed with
 * sk_asset_destroy. Errors: SK_ERR_INVALID_ARGUMENT (out NULL, an unknown
 * kind), SK_ERR_OUT_OF_MEMORY. Thread safety: shares nothing. */
SK_API sk_result sk_creature_create(sk_creature_kind kind, const sk_allocator *alloc, sk_asset **out, sk_error *err);

/* A leg of a creature: hip -> knee -> foot joints, and the foot ball's
 * radius (m). */
typedef struct sk_creature_leg {
    int32_t hip, knee, foot;
    float foot_radius;
} sk_creature_leg;

/* The legs of a creature's skeleton, found by the names above (the order
 * above: pairs from the front, left first, then the tripod's back leg),
 * and its body joint in *body (may be NULL): what the N-legged walker's
 * description takes (locomotion/legged.h: sk_legged_desc, with a gait from
 * sk_legged_gait). Returns the count (3, 4 or 6), at most max written;
 * 0 when skel is NULL or not a creature's. */
SK_API uint32_t sk_creature_legs(const sk_skeleton *skel, int32_t *body, sk_creature_leg *out, uint32_t max);

/* The creature a skeleton was built as (by its body joint's child names),
 * or -1 when it is none. */
SK_API int sk_creature_kind_of(const sk_skeleton *skel);

#ifdef __cplusplus
}
#endif
#endif
