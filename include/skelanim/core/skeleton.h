/* skelanim — skeleton: joints stored parent-before-child (a parent's index is
 * always smaller than its children's), names, rest local transforms,
 * and the morph-weight slots of joints that carry a morphed mesh. More than
 * one root is allowed. Read-only once created; share it between instances. */
#ifndef SKELANIM_SKELETON_H
#define SKELANIM_SKELETON_H

#include "skelanim/core/math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Hard limit on joints per skeleton (more is rejected with SK_ERR_LIMIT). */
#define SK_MAX_JOINTS 1000000u

typedef struct sk_skeleton {
    uint32_t joint_count;
    const int32_t *parents;        /* -1 for a root; otherwise parents[i] < i */
    const char *const *names;      /* joint_count entries, never NULL ("" if unnamed) */
    const sk_transform *rest;      /* rest (bind-time file) local transforms */
    /* Morph weights: joint i owns weights [weight_offset[i], +weight_count[i])
     * of a pose's weight array (weight_total floats). */
    const uint32_t *weight_offset;
    const uint32_t *weight_count;
    const float *rest_weights;     /* weight_total default weights */
    uint32_t weight_total;
    /* The rest pose as an SoA pose's data (core/soa.h): (joint_count + 7) / 8
     * groups of 80 floats, 16-byte aligned; padding lanes hold the identity. */
    const float *rest_soa;
    sk_allocator allocator;        /* private: how it was allocated */
    size_t allocation_size;        /* private */
} sk_skeleton;

typedef struct sk_skeleton_desc {
    uint32_t joint_count;
    const int32_t *parents;            /* required; -1 = root; must satisfy parents[i] < i */
    const char *const *names;          /* optional; NULL entries become "" */
    const sk_transform *rest;          /* optional; NULL = identity */
    const uint32_t *weight_counts;     /* optional: morph weights per joint */
    const float *rest_weights;         /* optional: sum(weight_counts) floats, NULL = zeros */
} sk_skeleton_desc;

/* Copies the description into a new skeleton. Rejects parents that are not
 * parent-before-child, non-finite or zero-length rotations in rest (rotations
 * are stored normalised). */
SK_API sk_result sk_skeleton_create(const sk_skeleton_desc *desc, const sk_allocator *alloc,
                                    sk_skeleton **out, sk_error *err);
/* Frees the skeleton (NULL: nothing happens). */
SK_API void sk_skeleton_destroy(sk_skeleton *skel);

/* Index of the first joint with this name, or -1. */
SK_API int32_t sk_skeleton_find(const sk_skeleton *skel, const char *name);

/* End (exclusive) of the run of joint's descendants that directly follows
 * it: [joint, end) holds joint and descendants only. In a depth-first order
 * (glTF loads, sk_skeleton_sort) that is the whole subtree. Returns 0 when
 * joint is out of range. */
SK_API uint32_t sk_skeleton_subtree_end(const sk_skeleton *skel, uint32_t joint);

/* Sorts an arbitrary forest into parent-before-child order (depth-first,
 * children in index order). parents[i] is the parent of node i or -1.
 * out_order[k] = node placed at position k. Fails on a cycle, a parent index
 * out of range, or a node with itself as parent. scratch must hold
 * 3*count uint32_t. */
SK_API sk_result sk_skeleton_sort(uint32_t count, const int32_t *parents, uint32_t *out_order,
                                  uint32_t *scratch, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
