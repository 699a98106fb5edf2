/* skelanim — skins and the skinning palette: a glTF skin binds a mesh to
 * joints of a skeleton; the palette is what a renderer or sk_skin_run needs
 * (joint model matrix x inverse bind matrix). CPU skinning itself lives in
 * skin/skinning.h. */
#ifndef SKELANIM_CORE_PALETTE_H
#define SKELANIM_CORE_PALETTE_H

#include "skelanim/core/skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 * relative to the mesh node N, multiply by inverse(model[N]) on the left.
 * model holds model_count matrices (sk_local_to_model); out_palette room for
 * palette_count >= skin->joint_count. Fails (SK_ERR_INVALID_ARGUMENT) when a
 * skin joint is not below model_count or the palette is too small. */
SK_API sk_result sk_skin_palette(const sk_skin *skin, const sk_mat4 *model, uint32_t model_count, sk_mat4 *out_palette,
                                 uint32_t palette_count, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
