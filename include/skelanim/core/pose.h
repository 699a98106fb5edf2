/* skelanim — poses: local (parent-relative) TRS per joint -> model matrices ->
 * skinning palette. Per-frame functions allocate nothing. */
#ifndef SKELANIM_POSE_H
#define SKELANIM_POSE_H

#include "skelanim/core/skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Copies the skeleton's rest pose (out_weights may be NULL if weight_total is 0). */
void sk_pose_rest(const sk_skeleton *skel, sk_transform *out_local, float *out_weights);

/* Model matrices: model[i] = model[parent[i]] * TRS(local[i]); roots get
 * root * TRS(local[i]) (root may be NULL for identity). out_model holds
 * joint_count matrices. */
void sk_local_to_model(const sk_skeleton *skel, const sk_transform *local,
                       const sk_mat4 *root, sk_mat4 *out_model);

#ifdef __cplusplus
}
#endif
#endif
