/* Skinning palette (palette.h). */
#include "core/internal.h"
#include "skelanim/core/palette.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* out = a x b, inlined: sk_mat4_mul's products and sums in the same order
 * (the same results), each of b's columns loaded once and its elements
 * splatted by shuffles. */
static inline void mat4_mul(const float *a, const float *b, float *out) {
#if defined(__SSE2__)
    __m128 a0 = _mm_loadu_ps(a), a1 = _mm_loadu_ps(a + 4), a2 = _mm_loadu_ps(a + 8), a3 = _mm_loadu_ps(a + 12);
    for (int c = 0; c < 4; c++) {
        __m128 bc = _mm_loadu_ps(b + 4 * c);
        __m128 col = _mm_add_ps(_mm_mul_ps(a0, _mm_shuffle_ps(bc, bc, 0x00)), _mm_mul_ps(a1, _mm_shuffle_ps(bc, bc, 0x55)));
        col = _mm_add_ps(col, _mm_mul_ps(a2, _mm_shuffle_ps(bc, bc, 0xAA)));
        col = _mm_add_ps(col, _mm_mul_ps(a3, _mm_shuffle_ps(bc, bc, 0xFF)));
        _mm_storeu_ps(out + 4 * c, col);
    }
#else
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++)
            out[c * 4 + row] = a[row] * b[c * 4] + a[4 + row] * b[c * 4 + 1] + a[8 + row] * b[c * 4 + 2] +
                               a[12 + row] * b[c * 4 + 3];
#endif
}

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
        mat4_mul(model[skin->joints[i]].m, skin->inverse_bind[i].m, out[i].m);
    }
    return SK_OK;
}
