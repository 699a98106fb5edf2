/* Skinning palette (palette.h). */
#include "core/internal.h"
#include "core/math_inline.h"
#include "skelanim/core/palette.h"


sk_result sk_skin_palette(const sk_skin *skin, const sk_mat4 *model, uint32_t model_count, sk_mat4 *out,
                          uint32_t palette_count, sk_error *err) {
    if (!skin || !model || !out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skin_palette: NULL argument");
    if (palette_count < skin->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skin_palette: room for %u matrices, skin has %u joints",
                            palette_count, skin->joint_count);
    for (uint32_t i = 0; i < skin->joint_count; i++) {
        if (skin->joints[i] >= model_count)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skin_palette: skin joint %u is joint %u of %u", i,
                                skin->joints[i], model_count);
        skm_mat4_mul(model[skin->joints[i]].m, skin->inverse_bind[i].m, out[i].m);
    }
    return SK_OK;
}
