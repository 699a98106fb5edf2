/* Skinning palette (palette.h). */
#include "core/internal.h"
#include "skelanim/core/palette.h"

void sk_skin_palette(const sk_skin *skin, const sk_mat4 *model, sk_mat4 *out) {
    for (uint32_t i = 0; i < skin->joint_count; i++) out[i] = sk_mat4_mul(&model[skin->joints[i]], &skin->inverse_bind[i]);
}
