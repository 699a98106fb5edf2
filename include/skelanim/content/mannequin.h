/* skelanim — the default character, built in code: a humanoid skeleton, a
 * skinned mesh of capsule-like limbs with smooth weights, and code-authored
 * idle, walk, run and crouch clips. Needs no file. */
#ifndef SKELANIM_MANNEQUIN_H
#define SKELANIM_MANNEQUIN_H

#include "skelanim/core/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_mannequin_desc {
    float height;        /* metres, 0 = 1.8 */
    uint32_t segments;   /* capsule ring resolution, 0 = 16 */
} sk_mannequin_desc;

/* Builds the mannequin as an asset (one scene, one skinned mesh, clips
 * "idle", "walk", "run", "crouch"). desc may be NULL. */
sk_result sk_mannequin_create(const sk_mannequin_desc *desc, const sk_allocator *alloc,
                              sk_asset **out, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
