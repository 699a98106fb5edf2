/* skelanim — retargeting: a clip made for one skeleton played on another.
 *
 * Three parts:
 *   - the humanoid map: which joint of a skeleton is the hips, the spine,
 *     each leg and arm bone (sk_humanoid_map_find). It recognises the common
 *     naming schemes by name and finds what names do not tell from the
 *     skeleton's topology and rest positions (chains from the hips to the feet
 *     and hands, from the spine to the head; left and right told apart by
 *     position at rest). sk_humanoid_map_set overrides any entry.
 *   - left/right joint pairs for mirroring (sk_skeleton_mirror_pairs).
 *   - the retargeter (sk_retarget_create): per mapped joint a rest-pose
 *     correction in model space (T-pose against A-pose, different bone
 *     rolls, different up axes and facing), the root (hips) translation
 *     scaled by the ratio of leg lengths, unmapped joints at rest or taken
 *     from a fill pose/clip of the target. It turns source poses into target
 *     poses one at a time (sk_retarget_pose, no allocation) or bakes a whole
 *     clip into an ordinary sk_clip of the target skeleton (sk_retarget_clip).
 *
 * Units: rotations are unit quaternions, translations in each skeleton's own
 * units (the root scale carries one into the other). Rest poses default to
 * the skeleton's rest transforms. */
#ifndef SKELANIM_ANIM_RETARGET_H
#define SKELANIM_ANIM_RETARGET_H

#include "skelanim/core/clip.h"
#include "skelanim/core/pose.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- The humanoid bones --------------------------------------------------- */
typedef enum sk_humanoid_bone {
    SK_HUMANOID_HIPS = 0,
    SK_HUMANOID_SPINE,
    SK_HUMANOID_CHEST,
    SK_HUMANOID_UPPER_CHEST,
    SK_HUMANOID_NECK,
    SK_HUMANOID_HEAD,
    SK_HUMANOID_LEFT_SHOULDER,
    SK_HUMANOID_LEFT_UPPER_ARM,
    SK_HUMANOID_LEFT_LOWER_ARM,
    SK_HUMANOID_LEFT_HAND,
    SK_HUMANOID_RIGHT_SHOULDER,
    SK_HUMANOID_RIGHT_UPPER_ARM,
    SK_HUMANOID_RIGHT_LOWER_ARM,
    SK_HUMANOID_RIGHT_HAND,
    SK_HUMANOID_LEFT_UPPER_LEG,
    SK_HUMANOID_LEFT_LOWER_LEG,
    SK_HUMANOID_LEFT_FOOT,
    SK_HUMANOID_LEFT_TOES,
    SK_HUMANOID_RIGHT_UPPER_LEG,
    SK_HUMANOID_RIGHT_LOWER_LEG,
    SK_HUMANOID_RIGHT_FOOT,
    SK_HUMANOID_RIGHT_TOES,
    SK_HUMANOID_BONE_COUNT
} sk_humanoid_bone;

/* "hips", "spine", "chest", "upper_chest", "neck", "head", "left_shoulder",
 * "left_upper_arm", ..., "right_toes"; NULL when out of range. */
SK_API const char *sk_humanoid_bone_name(sk_humanoid_bone bone);
/* The bone with that name (as sk_humanoid_bone_name spells it, ASCII case
 * ignored), or -1. */
SK_API int sk_humanoid_bone_from_name(const char *name);
/* The other side's bone (LEFT_HAND <-> RIGHT_HAND); the centre bones (hips,
 * spine, chest, upper chest, neck, head) are their own mirror. */
SK_API sk_humanoid_bone sk_humanoid_bone_mirror(sk_humanoid_bone bone);
/* The bones every map must have: hips, spine, head, and for each side the
 * upper arm, lower arm, hand, upper leg, lower leg and foot. The others
 * (chest, upper chest, neck, shoulders, toes) may be -1. */
SK_API bool sk_humanoid_bone_required(sk_humanoid_bone bone);

/* How an entry of a map was found. */
typedef enum sk_humanoid_how {
    SK_HUMANOID_UNMAPPED = 0,
    SK_HUMANOID_BY_NAME,     /* the joint's name in a known naming scheme */
    SK_HUMANOID_BY_TOPOLOGY, /* the skeleton's chains and rest positions */
    SK_HUMANOID_BY_USER      /* sk_humanoid_map_set */
} sk_humanoid_how;

typedef struct sk_humanoid_map {
    int32_t joint[SK_HUMANOID_BONE_COUNT]; /* joint index per bone, -1 = none */
    uint8_t how[SK_HUMANOID_BONE_COUNT];   /* sk_humanoid_how per bone */
    /* The naming scheme that matched most bones: "mixamo", "cmu", "cmu-max", "daz",
     * "rigify", "metarig", "unity", "unity-lr", "unreal", "skelanim", or "topology" when names
     * matched none. Static storage; never NULL after a successful find. */
    const char *scheme;
} sk_humanoid_map;

/* Finds the humanoid map of skel. Names first (one scheme, the one that
 * matches most bones; Blender/Maya namespaces such as "mixamorig:" and the
 * "DEF-" prefix are ignored, ASCII case too), then topology fills every bone
 * the names left unmapped (hips: the joint nearest the root where the legs
 * and the spine branch off; legs: the two branches that hang down, spine:
 * the one that rises to a branching chest; arms and neck: the chest's
 * branches; left is the side the character's left hand points to, facing
 * along the feet's toes, or +Z for a Y-up skeleton without toes).
 * rest: the pose the positions are read from (NULL = the skeleton's rest).
 * Errors: SK_ERR_INVALID_ARGUMENT for NULL arguments or a rest pose that
 * does not fit; SK_ERR_INVALID_DATA naming the bones still missing when a
 * required bone cannot be found (e.g. "no hips: ..."), or for non-finite
 * rest transforms. out is filled on success only. When names leave a
 * required bone unmapped, temporary memory (about 100 bytes per joint) comes
 * from the C library's allocator (sk_humanoid_map_find_alloc takes one) and
 * is freed before the call returns. Thread safety: reads only. */
SK_API sk_result sk_humanoid_map_find(const sk_skeleton *skel, const sk_pose *rest, sk_humanoid_map *out,
                                      sk_error *err);
/* The same with the allocator of its temporary memory. */
SK_API sk_result sk_humanoid_map_find_alloc(const sk_skeleton *skel, const sk_pose *rest, const sk_allocator *alloc,
                                            sk_humanoid_map *out, sk_error *err);

/* Sets one entry to the joint with this name (how = SK_HUMANOID_BY_USER);
 * joint_name NULL or "" clears it. Errors: SK_ERR_INVALID_ARGUMENT when the
 * bone is out of range or no joint has that name (the message names it). */
SK_API sk_result sk_humanoid_map_set(sk_humanoid_map *map, const sk_skeleton *skel, sk_humanoid_bone bone,
                                     const char *joint_name, sk_error *err);

/* SK_OK when every required bone is mapped to a joint of skel, no joint is
 * used twice, and every mapped joint's ancestors hold the bones above it
 * (a hand under its lower arm, under its upper arm; a leg under the hips).
 * The message names the first problem. */
SK_API sk_result sk_humanoid_map_check(const sk_humanoid_map *map, const sk_skeleton *skel, sk_error *err);

/* Leg length at rest: hips-to-knee (upper leg to lower leg) plus
 * knee-to-ankle (lower leg to foot) distances, the mean of both legs, in
 * the skeleton's units; 0 when the map lacks a leg bone. */
SK_API float sk_humanoid_leg_length(const sk_skeleton *skel, const sk_pose *rest, const sk_humanoid_map *map);

/* ---- Rest poses that do not stand ------------------------------------------
 * The retargeter reads each bone's correction from the rest poses. Some
 * files have a rest pose no person stands in: a .bvh exported with its
 * joint orients baked in (Maya, MotionBuilder) has every bone along one
 * axis at rest, and the real pose only comes with the clip's rotations.
 * Retarget from such a skeleton with a standing rest made from its poses
 * (frames of its clip): find the map on one of them, build the rest with
 * sk_humanoid_pose_like, and give both to sk_retarget_create as source_rest
 * and source_map (docs/retarget.md). */

/* True when pose (NULL = the skeleton's rest) stands: each leg's hip-to-foot
 * direction (upper leg to foot) within 45 degrees of the direction opposite
 * hips-to-head (head, else neck). False when a leg, the hips or the head is
 * unmapped, the pose does not fit or holds a non-finite value. Reads only. */
SK_API bool sk_humanoid_pose_stands(const sk_skeleton *skel, const sk_pose *pose, const sk_humanoid_map *map);

/* The most poses sk_humanoid_pose_like takes at once. */
#define SK_HUMANOID_POSE_LIKE_MAX 4096u

/* out = a pose of skel made from poses[0, pose_count) (frames of its clip),
 * in which every mapped bone points as like's does at its rest (like_rest,
 * NULL = like's rest). Each pose is turned bone by bone, from the hips down,
 * by the shortest rotation in model space, so that a bone keeps the roll it
 * has there: first the spine, chest, upper chest and neck, then the hips
 * joint turned so that hips-to-head points along the model axis (+-X, +-Y,
 * +-Z) nearest its direction in the pose, then each leg (upper leg, lower
 * leg, foot) and arm (shoulder, upper arm, lower arm). A bone's direction is
 * towards the next bone of its chain mapped in both maps (as the retargeter
 * takes it). like's directions are carried over by the hips frames (up, and
 * lateral = left to right upper leg): like's at its rest, each pose's with up
 * as above. With more than one pose, the turned poses' local rotations are
 * averaged per joint (the hips and the joints above them keep the first
 * pose's) and the mean is turned once more: the rolls a single frame happens
 * to hold (a foot rolled in the swing, an arm turned) average out over a
 * cycle. Bones without a direction (hands, head, toes) and unmapped joints
 * keep their (mean) rotation; translations, scales and morph weights are the
 * first pose's. Used as a retargeting source rest it stands the source where
 * the target stands, so no bone needs a correction beyond its roll.
 * Errors: SK_ERR_INVALID_ARGUMENT for NULL arguments, pose_count 0 or above
 * SK_HUMANOID_POSE_LIKE_MAX, poses that do not fit or hold non-finite
 * values, a map that fails sk_humanoid_map_check; SK_ERR_INVALID_DATA when
 * the hips, upper legs and head span no frame (in a pose or at like's
 * rest); SK_ERR_OUT_OF_MEMORY. Temporary memory (about 120 bytes per joint
 * of either skeleton) comes from alloc (NULL: the C library's) and is freed
 * before the call returns. out may be poses[0]. Reads only its inputs. */
SK_API sk_result sk_humanoid_pose_like(const sk_skeleton *skel, const sk_humanoid_map *map, const sk_pose *poses,
                                       uint32_t pose_count, const sk_skeleton *like, const sk_pose *like_rest,
                                       const sk_humanoid_map *like_map, const sk_allocator *alloc, sk_pose *out,
                                       sk_error *err);

/* ---- Mirror pairs ----------------------------------------------------------
 * Left/right joint pairs of skel for mirroring: every left/right pair of
 * mapped humanoid bones, then every other joint whose name, with its side
 * token swapped ("Left"<->"Right", "left"<->"right", "_l"<->"_r",
 * ".L"<->".R", "_L_"<->"_R_", "L"/"R" as a leading letter before an
 * upper-case one such as "LThumb" or "lHand"), names another joint.
 * pairs[k][0] is the left joint, pairs[k][1] the right one; each joint
 * appears at most once. Writes at most cap pairs and stores the number found
 * in *count (which may exceed cap: call with cap 0 to size the array).
 * map may be NULL (name patterns only). Allocates nothing; reads only. */
SK_API sk_result sk_skeleton_mirror_pairs(const sk_skeleton *skel, const sk_humanoid_map *map, uint32_t (*pairs)[2],
                                          uint32_t cap, uint32_t *count, sk_error *err);

/* ---- The retargeter ------------------------------------------------------- */

/* One joint of the source mapped onto one of the target, by name. */
typedef struct sk_retarget_pair {
    const char *source; /* a source joint's name */
    const char *target; /* a target joint's name */
} sk_retarget_pair;

enum {
    /* Also map target joints that are not humanoid bones onto source joints
     * of the same name (namespaces and case ignored), e.g. fingers. */
    SK_RETARGET_MATCH_NAMES = 1u << 0,
    /* Keep the target hips' rest translation (no root motion). */
    SK_RETARGET_NO_ROOT_TRANSLATION = 1u << 1,
    /* Stand the source's rest pose on the target's ground. The root
     * translation moves the target hips from their rest position by the
     * source hips' displacement from theirs (times the root scale), which
     * puts the target's feet above or below its ground when the source's
     * rest pose does not stand where its motion does (a .bvh rest pose has
     * its root at the origin), or when the hips joint sits higher above the
     * hip joints in one skeleton than in the other. With this flag the
     * source rest is taken as raised along its up axis (of the source's
     * model axes, the one nearest the target's +Y carried into the source
     * frame by the frame rotation: +Y for a Y-up source) so that its hip
     * joints (the upper legs, mean of both) stand at the target's rest hip
     * joint height divided by the root scale: the target's hip joints then
     * follow the source's heights above the ground times the scale, and a
     * capture whose feet touch y = 0 gives a clip whose feet touch y = 0.
     * Only the root translation changes (rotations, the maps and the leg
     * lengths do not depend on where the rest pose stands). Needs both
     * humanoid maps with both upper legs; without them the flag does
     * nothing. Default (flag clear): the rest poses as given. The
     * command-line tool (`skelanim retarget`, `locomote --from`) sets it. */
    SK_RETARGET_GROUND_REST = 1u << 2
};

typedef struct sk_retarget_desc {
    const sk_skeleton *source;
    const sk_skeleton *target;
    const sk_pose *source_rest;        /* NULL = the source skeleton's rest */
    const sk_pose *target_rest;        /* NULL = the target skeleton's rest */
    const sk_humanoid_map *source_map; /* NULL = sk_humanoid_map_find */
    const sk_humanoid_map *target_map; /* NULL = sk_humanoid_map_find */
    /* Pairs that override the maps: each maps its source joint onto its
     * target joint (a target joint given here is driven by that source joint
     * whatever the humanoid maps say). Names are copied. */
    const sk_retarget_pair *pairs;
    uint32_t pair_count;
    /* Root translation scale; 0 = target leg length / source leg length
     * (sk_humanoid_leg_length). Must be finite and >= 0. */
    float root_scale;
    uint32_t flags;                    /* SK_RETARGET_* */
} sk_retarget_desc;

typedef struct sk_retarget sk_retarget;

/* Builds a retargeter. The skeletons must outlive it (it keeps pointers);
 * rest poses, maps and pairs are copied.
 * Frame alignment: each skeleton's hips frame at rest (up = hips to head,
 * lateral = left to right upper leg) defines the rotation from the source's
 * model frame to the target's, so Z-up against Y-up and different facing
 * are absorbed. Rest correction: a mapped target joint takes the source
 * joint's model-space rotation relative to the source rest, carried into the
 * target frame, applied after the rotation that turns the target's rest bone
 * direction (towards its mapped child) onto the source's; the target's rest
 * roll is kept.
 * Errors: SK_ERR_INVALID_ARGUMENT (NULL skeletons, poses that do not fit,
 * a pair naming a joint that does not exist — the message names it —,
 * a bad root_scale); SK_ERR_INVALID_DATA when either skeleton has no
 * humanoid map ("source: no hips ...") and neither pairs nor
 * SK_RETARGET_MATCH_NAMES are given, when no joint could be mapped at all
 * ("nothing in common"), or for non-finite
 * rest transforms; SK_ERR_OUT_OF_MEMORY. */
SK_API sk_result sk_retarget_create(const sk_retarget_desc *desc, const sk_allocator *alloc, sk_retarget **out,
                                    sk_error *err);
/* Frees the retargeter (NULL: nothing happens). */
SK_API void sk_retarget_destroy(sk_retarget *rt);

/* The largest coordinate sk_retarget_pose puts the target root at: a source
 * pose moving it farther is refused. */
#define SK_RETARGET_MAX_COORD 1e9f

/* Bytes of scratch memory sk_retarget_pose needs (aligned for float). */
SK_API size_t sk_retarget_scratch_size(const sk_retarget *rt);
/* Skeletons of up to this many joints (both) may pass scratch = NULL. */
#define SK_RETARGET_STACK_JOINTS 256u

/* One pose, live: source_pose (of the source skeleton) -> target_out (of the
 * target skeleton). Unmapped target joints take fill's local transforms
 * (fill: a pose of the target skeleton, NULL = the target rest); mapped
 * joints take their new rotation, keep fill's/rest translation and scale,
 * and the hips get the scaled root translation. Morph weights of target_out
 * (if any) are copied from fill or the rest. fill may alias target_out.
 * scratch: sk_retarget_scratch_size(rt) bytes, or NULL when both skeletons
 * have at most SK_RETARGET_STACK_JOINTS joints.
 * Rotations need not be normalised (any finite non-zero quaternion; zero
 * is the identity).
 * Errors: SK_ERR_INVALID_ARGUMENT for poses that do not fit, missing
 * scratch, a non-finite value in source_pose or fill, or a source root
 * that would put the target's beyond SK_RETARGET_MAX_COORD (target_out is
 * then left unchanged: never NaN out). Allocates nothing; rt is only read, so
 * calls on one retargeter may run at once on different poses and scratch. */
SK_API sk_result sk_retarget_pose(const sk_retarget *rt, const sk_pose *source_pose, const sk_pose *fill,
                                  sk_pose *target_out, void *scratch, size_t scratch_size, sk_error *err);

/* A whole clip, baked: source_clip (of the source skeleton) sampled at each
 * of its key times (the union of its tracks' key times, or 30 per second
 * when it has no keys), retargeted (fill_clip: a clip of the target skeleton
 * sampled at the same times with clamping for the unmapped joints, NULL =
 * rest), and written as an ordinary clip of the target skeleton named like
 * the source clip, with LINEAR rotation tracks for every mapped joint and a
 * translation track for the hips (and every track of fill_clip's joints for
 * the unmapped ones when fill_clip is given). Same duration as the source.
 * Sampling the result at a key time gives sk_retarget_pose's result.
 * Errors: those of sk_retarget_pose and of sampling; SK_ERR_LIMIT for more
 * than 10,000,000 key values. The clip is allocated with alloc. */
SK_API sk_result sk_retarget_clip(const sk_retarget *rt, const sk_clip *source_clip, const sk_clip *fill_clip,
                                  const sk_allocator *alloc, sk_clip **out, sk_error *err);

/* The root translation scale in use. */
SK_API float sk_retarget_root_scale(const sk_retarget *rt);
/* The source joint that drives target_joint, or -1 (unmapped or out of range). */
SK_API int32_t sk_retarget_source_of(const sk_retarget *rt, uint32_t target_joint);
/* The humanoid map in use: which = 0 the source's, 1 the target's; NULL
 * otherwise. Bones a skeleton lacks are -1. */
SK_API const sk_humanoid_map *sk_retarget_map(const sk_retarget *rt, int which);
/* The skeletons given at creation. */
SK_API const sk_skeleton *sk_retarget_source(const sk_retarget *rt);
/* The target skeleton given at creation. */
SK_API const sk_skeleton *sk_retarget_target(const sk_retarget *rt);
/* The rotation taking the source's model frame onto the target's. */
SK_API sk_quat sk_retarget_frame_rotation(const sk_retarget *rt);

#ifdef __cplusplus
}
#endif
#endif
