/* skelanim — mirroring a clip left <-> right (a left strafe into a right
 * strafe, a walk that leads with the left foot into one that leads with the
 * right), and turning a clip about the vertical (below).
 *
 * The mirror of a pose is its reflection across the character's sagittal
 * plane, the plane through the model-space origin normal to one axis (by
 * default x = 0: +X is the character's left, as for the mannequin and glTF
 * characters facing +Z), with each left joint taking its right partner's
 * place: for every joint j and its partner j' (itself for a joint on the
 * centre line) the mirrored pose puts j' where the reflection puts j, in
 * model space,
 *     position'(j') = M position(j),   M = the reflection,
 *     rotation'(j') = refl(rotation(j) rest(j)^-1) rest(j'),
 * rotations and rest rotations in model space, refl(q) = M q M (a proper
 * rotation). That holds whatever the joints' rest frames are (bones rolled
 * differently on the two sides, rest frames not aligned with the model
 * axes): the rest rotation of a joint maps onto its partner's. In local
 * terms, with parent P of j (partner P'),
 *     local rotation'(j')    = restM(P')^-1 refl(restM(P) local(j) restM(j)^-1) restM(j')
 *     local translation'(j') = restM(P')^-1 M restM(P) translation(j)
 * (restM: the rest rotation in model space; the identity above a root), so
 * each key maps to one key: the mirrored clip has the source's key times and
 * interpolation (STEP, LINEAR, CUBICSPLINE: the maps are linear, tangents
 * map like values). Joints without a translation track keep their rest
 * translation in the source; when its mirror is not the partner's rest
 * translation (a skeleton whose two sides differ in length) the mirrored clip
 * gets a one-key translation track, so positions mirror exactly. Scale keys
 * move to the partner unchanged (exact for uniform scale). Morph-weight
 * tracks are copied unchanged, on their own joint (which targets mirror
 * which is not known).
 *
 * Requirements: the pairing is symmetric in the hierarchy (the parent of a
 * joint's partner is the partner of its parent); root motion carried by a
 * root joint is mirrored with it (a clip moving to +X moves to -X). */
#ifndef SKELANIM_ANIM_MIRROR_H
#define SKELANIM_ANIM_MIRROR_H

#include "skelanim/core/clip.h"
#include "skelanim/anim/retarget.h"
#include "skelanim/core/skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_clip_mirror_desc {
    /* Left/right joint pairs (each joint in at most one pair; joints in no
     * pair are their own partner). NULL: sk_skeleton_mirror_pairs(skel, map,
     * ...): the map's left/right bones, then names ("_l"/"_r",
     * "Left"/"Right", ...). */
    const uint32_t (*pairs)[2];
    uint32_t pair_count;
    /* With pairs NULL: a humanoid map of skel (anim/retarget.h) whose
     * left/right bones pair first, for skeletons whose names do not pair
     * their chains joint for joint; NULL: names only. */
    const sk_humanoid_map *map;
    /* The normal of the mirror plane in model space: 0 = X (default), 1 = Y,
     * 2 = Z. */
    uint32_t axis;
    /* The new clip's name; NULL: the source's name + "_mirrored". */
    const char *name;
} sk_clip_mirror_desc;

/* The mirror of clip (a clip of skel) as a new clip of skel, allocated
 * through alloc (NULL: the default allocator); destroy it with
 * sk_clip_destroy. desc may be NULL (the defaults above). The duration is
 * the source's. Mirroring twice gives the source back (to float rounding).
 * Errors (SK_ERR_INVALID_ARGUMENT with a message): NULL clip, skeleton or
 * out; a track on a joint the skeleton does not have; a pair naming a joint
 * out of range, a joint twice, or a pairing the hierarchy does not follow
 * (the message names the joints); axis > 2; a map that does not fit skel. SK_ERR_OUT_OF_MEMORY. Reads clip and skel only; thread-safe on
 * shared inputs. */
SK_API sk_result sk_clip_mirror(const sk_clip *clip, const sk_skeleton *skel, const sk_clip_mirror_desc *desc,
                                const sk_allocator *alloc, sk_clip **out, sk_error *err);

/* ---- Turning a clip ------------------------------------------------------
 * The clip turned by yaw radians about +Y through the model-space origin (a
 * positive yaw turns +Z towards +X), as a new clip of skel: the whole
 * skeleton and its root motion turn, nothing else moves relative to the
 * body. Only the root joints (parent < 0) change: each key of a root's
 * translation track becomes Y(yaw) t and of its rotation track Y(yaw) q
 * (tangents alike, so STEP, LINEAR and CUBICSPLINE keep their key times and
 * interpolation); a root without such a track gets a track holding its
 * turned rest value (on the clip's key times when the clip is frame-major,
 * so the turned clip is too: sk_clip_is_frame_major). Other tracks, scale
 * and morph weights are copied.
 * Typical use: a capture whose subject walks some other way than +Z, turned
 * so the body faces +Z (sk_motion_cycle_facing, locomotion/analysis.h).
 * The name and duration are the source's. Allocated through alloc (NULL:
 * the default allocator); destroy with sk_clip_destroy. Errors
 * (SK_ERR_INVALID_ARGUMENT with a message): NULL clip, skeleton or out, a
 * yaw that is not finite, a track on a joint the skeleton does not have;
 * SK_ERR_OUT_OF_MEMORY. Reads clip and skel only; thread-safe on shared
 * inputs. */
SK_API sk_result sk_clip_turn(const sk_clip *clip, const sk_skeleton *skel, float yaw, const sk_allocator *alloc,
                              sk_clip **out, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
