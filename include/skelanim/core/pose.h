/* skelanim — poses: the per-frame currency of the library.
 *
 * An sk_pose is a view of caller-owned memory: joint_count local
 * (parent-relative) TRS transforms and weight_count morph weights, with their
 * counts, so every per-frame function can check what it is given against the
 * skeleton (a mismatch is SK_ERR_INVALID_ARGUMENT, never an out-of-bounds
 * access). joint_count must equal the skeleton's; weight_count is either the
 * skeleton's weight_total or 0, which means "no morph weights here":
 * functions then leave morph weights out (sampling skips weight tracks,
 * blending ignores them). It is the one pose type of the per-frame API: sampling writes it,
 * blending, layers, root motion and IK read and write it, local-to-model
 * reads it. The layout is array-of-structures on purpose: users read and write
 * joints directly (procedural animation, IK, debugging); the batch paths that
 * want structure-of-arrays (crowds) convert at their edges.
 *
 * Pipeline: pose -> model matrices (sk_local_to_model, or for part of the
 * joints sk_local_to_model_range / _masked) -> skinning palette (palette.h).
 * Per-frame functions allocate nothing. */
#ifndef SKELANIM_CORE_POSE_H
#define SKELANIM_CORE_POSE_H

#include "skelanim/core/skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_pose {
    sk_transform *local;    /* joint_count local transforms */
    float *weights;         /* weight_count morph weights; may be NULL when weight_count is 0 */
    uint32_t joint_count;   /* must equal skeleton->joint_count */
    uint32_t weight_count;  /* skeleton->weight_total, or 0: no morph weights */
} sk_pose;

/* For SK_POSE_OF: the skeleton's weight count when weights are given. */
static inline uint32_t sk_pose_weight_count_(const sk_skeleton *skel, const float *weights) {
    return weights ? skel->weight_total : 0u;
}

/* A view of existing arrays (no allocation). */
static inline sk_pose sk_pose_view(sk_transform *local, uint32_t joint_count, float *weights, uint32_t weight_count) {
    sk_pose p;
    p.local = local;
    p.weights = weights;
    p.joint_count = joint_count;
    p.weight_count = weight_count;
    return p;
}

#ifndef __cplusplus
/* C only (a compound literal): a pointer to a pose view of a skeleton's
 * arrays for one call, e.g.
 *   sk_clip_sample(clip, skel, t, SK_LOOP_REPEAT, SK_POSE_OF(skel, local, NULL), &err);
 * weights may be NULL (no morph weights). */
#define SK_POSE_OF(skel, local, weights) \
    (&(sk_pose){(sk_transform *)(local), (float *)(weights), (skel)->joint_count, sk_pose_weight_count_((skel), (weights))})
#endif

/* Allocates both arrays for skel (filled with its rest pose); free with
 * sk_pose_free and the same allocator (NULL = C library). */
SK_API sk_result sk_pose_alloc(const sk_skeleton *skel, const sk_allocator *alloc, sk_pose *out, sk_error *err);
/* Frees the arrays of sk_pose_alloc (alloc as given to it) and zeroes the pose. */
SK_API void sk_pose_free(sk_pose *pose, const sk_allocator *alloc);

/* SK_OK when pose fits skel: joint counts equal, weight_count 0 or equal,
 * arrays present. The message names
 * what differs, prefixed by `who` (the calling function's name). */
SK_API sk_result sk_pose_check(const sk_skeleton *skel, const sk_pose *pose, const char *who, sk_error *err);

/* Copies the skeleton's rest pose (local transforms and morph weights). */
SK_API sk_result sk_pose_rest(const sk_skeleton *skel, sk_pose *out, sk_error *err);

/* Model matrices: model[i] = model[parent[i]] * TRS(local[i]); roots get
 * root * TRS(local[i]) (root may be NULL for identity). out_model holds
 * model_count >= joint_count matrices. */
SK_API sk_result sk_local_to_model(const sk_skeleton *skel, const sk_pose *pose, const sk_mat4 *root, sk_mat4 *out_model,
                                   uint32_t model_count, sk_error *err);

/* Partial update after a change to joints from `from` on (e.g. IK on a
 * chain whose root is `from`), like ozz's LocalToModelJob from/to: joints
 * [from, to) are recomputed from their local transforms and their parent's
 * matrix in io_model (which must be valid for parents outside the range);
 * joints outside the range keep io_model's values. to = 0 means joint_count.
 * Parents come before children, so every descendant of `from` lies in
 * [from, joint_count); skeletons sorted depth-first (glTF loads,
 * sk_skeleton_sort) keep a subtree contiguous, so `to` may stop at its end
 * (sk_skeleton_subtree_end). */
SK_API sk_result sk_local_to_model_range(const sk_skeleton *skel, const sk_pose *pose, const sk_mat4 *root, uint32_t from,
                                         uint32_t to, sk_mat4 *io_model, uint32_t model_count, sk_error *err);

/* Forward kinematics of the joints a frame needs: the general form of
 * sk_local_to_model and sk_local_to_model_range, which are this call with
 * need = NULL (one routine computes all three). A runtime that reads only
 * some joints' model matrices before it changes the pose (the legs' and
 * their ancestors' for foot placement) computes those, changes the pose, and
 * brings the changed subtrees (sk_local_to_model_range) and the joints it
 * skipped up to date afterwards, so each joint's matrix is computed once a
 * frame.
 *
 * What: for every joint j in [from, to) with need == NULL or need[j] true,
 * io_model[j] = io_model[parent[j]] x TRS(local[j]) (root x TRS(local[j])
 * for a root joint; root NULL is the identity), in joint order (parents
 * first). Joints outside the range or not marked keep io_model's values;
 * the parent of a joint computed must be valid in io_model (computed
 * earlier in this call or before it). to = 0 means joint_count.
 * Units: those of the pose's translations (metres for the built-in
 * characters); matrices column-major (sk_mat4).
 * Ownership: everything is the caller's; pose and need (joint_count
 * entries, or NULL) are read, io_model (model_count >= joint_count
 * matrices) is written only at the joints computed. Allocates nothing.
 * Errors: SK_ERR_INVALID_ARGUMENT when the pose does not fit the skeleton
 * (sk_pose_check), io_model is NULL or too short, or from > to or
 * to > joint_count; io_model is then not touched.
 * Thread safety: no shared state; calls on different io_model arrays may
 * run at once (the skeleton and pose are only read). */
SK_API sk_result sk_local_to_model_masked(const sk_skeleton *skel, const sk_pose *pose, const sk_mat4 *root,
                                          uint32_t from, uint32_t to, const bool *need, sk_mat4 *io_model,
                                          uint32_t model_count, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
