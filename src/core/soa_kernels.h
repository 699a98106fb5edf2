/* Private: the structure-of-arrays kernels shared by frame-major clip
 * sampling (clip.c) and the SoA pose functions (soa.c). Not installed.
 *
 * Each kernel works on one row block of 8 lanes (8 joints) and is written
 * once, over GCC/clang vector types of W lanes: soa_kernels_body.h is
 * included twice, W = 4 (the baseline build: SSE2 on x86-64, generic vectors
 * elsewhere) and W = 8 under __attribute__((target("avx2"))) (chosen at run
 * time, sk_soa_use_avx2). The operations and their order are those of the
 * scalar code they replace (core/math.c's sk_quat_slerp series,
 * skm_quat_nlerp, skm_vec3_lerp, skm_transform_rs) and no fused
 * multiply-add is enabled, so every lane's result is bit-identical to the
 * scalar code's (tests/test_soa.c). */
#ifndef SKELANIM_SOA_KERNELS_H
#define SKELANIM_SOA_KERNELS_H

#include "core/math_inline.h"

#include <stdint.h>
#include <string.h>

#if (defined(__x86_64__) || defined(_M_X64)) && defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SK_SOA_X86 1
#endif

typedef float skk_f4 __attribute__((vector_size(16)));
typedef int32_t skk_i4 __attribute__((vector_size(16)));
#if defined(SK_SOA_X86)
typedef float skk_f8 __attribute__((vector_size(32)));
typedef int32_t skk_i8 __attribute__((vector_size(32)));
#endif

/* Rows of an SoA group (sk_soa_pose): translation, rotation, scale. */
#define SKK_ROW_T 0u
#define SKK_ROW_R 24u
#define SKK_ROW_S 56u

static inline bool sk_soa_use_avx2(void) {
#if defined(SK_SOA_X86)
    return __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

/* W = 4 */
#define SKK_W 4
#define SKK_V skk_f4
#define SKK_I skk_i4
#define SKK_FN(name) name##_w4
#define SKK_ATTR
#include "core/soa_kernels_body.h"

#if defined(SK_SOA_X86)
#define SKK_W 8
#define SKK_V skk_f8
#define SKK_I skk_i8
#define SKK_FN(name) name##_w8
#define SKK_ATTR __attribute__((target("avx2")))
#include "core/soa_kernels_body.h"
#endif

/* soa.c's blending and local-to-model with the kernel width chosen (wide:
 * AVX2, only when sk_soa_use_avx2(); the public functions choose by
 * themselves; the tests run both). Arguments already checked. */
struct sk_soa_pose;
struct sk_skeleton;
void sk_soa_blend(const struct sk_soa_pose *a, const struct sk_soa_pose *b, float t, struct sk_soa_pose *out, bool wide);
void sk_soa_blend_weighted(const struct sk_skeleton *s, const struct sk_soa_pose *const *poses, const float *weights,
                           uint32_t n, bool fill, struct sk_soa_pose *out, bool wide);
void sk_soa_l2m(const struct sk_skeleton *s, const struct sk_soa_pose *pose, const sk_mat4 *root, sk_mat4 *out_model,
                bool wide);

#endif
