/* skelanim — poses: local (parent-relative) TRS per joint -> model matrices ->
 * skinning palette. Per-frame functions allocate nothing. */
#ifndef SKELANIM_POSE_H
#define SKELANIM_POSE_H

#include "skeleton.h"

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

/* A skin binds a mesh to joints of a skeleton (glTF skin). */
typedef struct sk_skin {
    const char *name;              /* "" if unnamed */
    uint32_t joint_count;
    const uint32_t *joints;        /* skeleton joint index of each skin joint */
    const sk_mat4 *inverse_bind;   /* joint_count matrices (identity if the file had none) */
    int32_t skeleton_root;         /* glTF skin.skeleton as a joint index, or -1 */
} sk_skin;

/* Palette: out[i] = model[joints[i]] * inverse_bind[i]. It maps a bind-space
 * (mesh-local) vertex into model (scene) space. As glTF 2.0 requires, the
 * transform of the node that holds the skinned mesh is NOT applied: the
 * skinned vertex lands in scene space directly. To get the glTF "joint matrix"
 * relative to the mesh node N, multiply by inverse(model[N]) on the left. */
void sk_skin_palette(const sk_skin *skin, const sk_mat4 *model, sk_mat4 *out_palette);

#ifdef __cplusplus
}
#endif
#endif
