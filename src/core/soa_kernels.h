/* Private: the structure-of-arrays kernels shared by frame-major clip
 * sampling (clip.c, clip_compressed.c) and the SoA pose functions (soa.c).
 * Not installed. anim's SoA blends (anim/soa_blend_kernels.h) are built on
 * its vector types, loads, stores and selects, its slerp series (the one
 * sampling uses, so a slerp blend and a sampled key agree) and
 * sk_soa_use_avx2 — the one private core header anim includes besides
 * core/internal.h and core/math_inline.h.
 *
 * Each kernel works on one row block of 8 lanes (8 joints) and is written
 * once, over GCC/clang vector types of W lanes: soa_kernels_body.h is
 * included twice, W = 4 (the baseline build: SSE2 on x86-64, generic vectors
 * elsewhere) and W = 8 under __attribute__((target("avx2"))) (chosen at run
 * time, sk_soa_use_avx2). The operations and their order are those of the
 * scalar code they replace (core/math.c's sk_quat_slerp series,
 * skm_vec3_lerp, skm_transform_rs) and no fused multiply-add is enabled, so
 * every lane's result is bit-identical to the scalar code's
 * (tests/test_soa.c). */
#ifndef SKELANIM_SOA_KERNELS_H
#define SKELANIM_SOA_KERNELS_H

#include "core/math_inline.h"
#include "skelanim/core/simd.h"
#include "skelanim/core/soa.h"

#include <stdint.h>
#include <string.h>

#if (defined(__x86_64__) || defined(_M_X64)) && defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(SK_NO_SIMD)
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
    return sk_simd_best() >= SK_SIMD_AVX2;
#else
    return false;
#endif
}

/* Whether pose fits s (sk_soa_pose_check's test, without its message: the
 * SoA functions test this first and call sk_soa_pose_check, which names what
 * is wrong, only when it fails). */
static inline bool sk_soa_pose_fits(const sk_skeleton *s, const sk_soa_pose *p) {
    return s && p && p->data && p->joint_count == s->joint_count &&
           p->group_count == (s->joint_count + SK_SOA_LANES - 1) / SK_SOA_LANES && !((uintptr_t)p->data % 16u);
}

/* The series' coefficients of skk_slerp_rows at one t, u in [0, 1]: kt[i] =
 * u_i t^2 - v_i, kd[i] = u_i (1 - t)^2 - v_i (the same float operations as
 * a lane's). */
static inline void skk_slerp_coefs(float u, float *kt, float *kd) {
    float d = 1.0f - u, t2 = u * u, d2 = d * d;
    for (int i = 0; i < 8; i++) kt[i] = skm_slerp_u[i] * t2 - skm_slerp_v[i], kd[i] = skm_slerp_u[i] * d2 - skm_slerp_v[i];
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

/* Eight rows of eight floats transposed in place (row k lane j becomes row
 * j lane k): soa.c's local matrices, the compressed decoder's rotations. */
__attribute__((target("avx2"))) static inline void skk_tr8_avx2(__m256 *r) {
    __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    r[0] = _mm256_permute2f128_ps(s0, s4, 0x20), r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
    r[2] = _mm256_permute2f128_ps(s2, s6, 0x20), r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
    r[4] = _mm256_permute2f128_ps(s0, s4, 0x31), r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
    r[6] = _mm256_permute2f128_ps(s2, s6, 0x31), r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

/* Eight sk_transforms (80 floats: t, r, s each) as one SoA group's ten rows
 * (g aligned to 32 bytes): the sk_pose functions that run the SoA kernels. */
__attribute__((target("avx2"))) static inline void skk_aos8_to_soa_avx2(const float *x, float *g) {
    __m256 r[8];
    for (int l = 0; l < 8; l++) r[l] = _mm256_loadu_ps(x + 10 * l); /* t, r, s.x */
    skk_tr8_avx2(r);
    for (int k = 0; k < 8; k++) _mm256_store_ps(g + 8 * k, r[k]);
    for (int h = 0; h < 2; h++) { /* s.y, s.z of joints 4h .. 4h + 3 */
        const float *y = x + 40 * h + 8;
        __m128 p01 = _mm_loadh_pi(_mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)(const void *)y), (const __m64 *)(const void *)(y + 10));
        __m128 p23 = _mm_loadh_pi(_mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)(const void *)(y + 20)),
                                  (const __m64 *)(const void *)(y + 30));
        _mm_store_ps(g + 64 + 4 * h, _mm_shuffle_ps(p01, p23, _MM_SHUFFLE(2, 0, 2, 0)));
        _mm_store_ps(g + 72 + 4 * h, _mm_shuffle_ps(p01, p23, _MM_SHUFFLE(3, 1, 3, 1)));
    }
}
/* cnt < 8 sk_transforms as a group whose other lanes hold identity
 * transforms (nothing read past x's cnt transforms; each joint's floats
 * loaded where they lie, so no load waits on a wider store). */
__attribute__((target("avx2"))) static inline void skk_aos_part_to_soa_avx2(const float *x, uint32_t cnt, float *g) {
    const __m256 id = _mm256_setr_ps(0, 0, 0, 0, 0, 0, 1, 1); /* t, r (x, y, z, w), s.x */
    __m256 r[8];
    for (uint32_t l = 0; l < 8; l++) r[l] = l < cnt ? _mm256_loadu_ps(x + 10 * l) : id;
    skk_tr8_avx2(r);
    for (int k = 0; k < 8; k++) _mm256_store_ps(g + 8 * k, r[k]);
    /* s.y, s.z of joints 4h .. 4h + 3 as skk_aos8_to_soa_avx2, a pair (1, 1) past cnt */
    const __m128 ones = _mm_set1_ps(1.0f);
    for (uint32_t h = 0; h < 2; h++) {
        __m128 p[2];
        for (uint32_t k = 0; k < 2; k++) {
            uint32_t l = 4 * h + 2 * k;
            p[k] = l < cnt ? _mm_loadl_pi(ones, (const __m64 *)(const void *)(x + 10 * l + 8)) : ones;
            if (l + 1 < cnt) p[k] = _mm_loadh_pi(p[k], (const __m64 *)(const void *)(x + 10 * l + 18));
        }
        _mm_store_ps(g + 64 + 4 * h, _mm_shuffle_ps(p[0], p[1], _MM_SHUFFLE(2, 0, 2, 0)));
        _mm_store_ps(g + 72 + 4 * h, _mm_shuffle_ps(p[0], p[1], _MM_SHUFFLE(3, 1, 3, 1)));
    }
}
/* ... and back: a group's ten rows as eight sk_transforms. */
__attribute__((target("avx2"))) static inline void skk_soa_to_aos8_avx2(const float *g, float *x) {
    __m256 r[8];
    for (int k = 0; k < 8; k++) r[k] = _mm256_load_ps(g + 8 * k);
    skk_tr8_avx2(r);
    for (int l = 0; l < 8; l++) _mm256_storeu_ps(x + 10 * l, r[l]);
    for (int h = 0; h < 2; h++) {
        __m128 sy = _mm_load_ps(g + 64 + 4 * h), sz = _mm_load_ps(g + 72 + 4 * h);
        __m128 lo = _mm_unpacklo_ps(sy, sz), hi = _mm_unpackhi_ps(sy, sz); /* (y, z) of joints 0 1, 2 3 */
        float *y = x + 40 * h + 8;
        _mm_storel_pi((__m64 *)(void *)y, lo), _mm_storeh_pi((__m64 *)(void *)(y + 10), lo);
        _mm_storel_pi((__m64 *)(void *)(y + 20), hi), _mm_storeh_pi((__m64 *)(void *)(y + 30), hi);
    }
}
/* The first cnt < 8 transforms of a group into x (nothing written past
 * x's cnt transforms). */
__attribute__((target("avx2"))) static inline void skk_soa_to_aos_part_avx2(const float *g, uint32_t cnt, float *x) {
    __m256 r[8];
    for (int k = 0; k < 8; k++) r[k] = _mm256_load_ps(g + 8 * k);
    skk_tr8_avx2(r);
    for (uint32_t l = 0; l < cnt; l++) {
        _mm256_storeu_ps(x + 10 * l, r[l]);
        x[10 * l + 8] = g[64 + l], x[10 * l + 9] = g[72 + l];
    }
}
#endif

/* soa.c's local-to-model with the kernel width chosen (wide: AVX2, only
 * when sk_soa_use_avx2(); the public functions choose by themselves; the
 * tests run both). Arguments already checked. (The blends' width-chosen
 * forms are anim's: anim/soa_layers_internal.h.) */
struct sk_soa_pose;
struct sk_skeleton;
/* The palette made in sk_soa_l2m's pass: map[j] the skin index of joint j
 * (sk_skin_joint_map; entries not below skin->joint_count: none), out the
 * palette. */
struct sk_skin;
typedef struct sk_soa_palette {
    const struct sk_skin *skin;
    const int16_t *map;
    sk_mat4 *out;
} sk_soa_palette;
void sk_soa_l2m(const struct sk_skeleton *s, const struct sk_soa_pose *pose, const sk_mat4 *root, sk_mat4 *out_model,
                const sk_soa_palette *pal, bool wide);
/* pose.c's forward kinematics of joints [from, to) of sk_transforms, those
 * need marks (NULL: all), through sk_soa_l2m's AVX2 kernel, eight joints at
 * a time from `from` (the same bits as pose.c's one joint at a time); only
 * when sk_soa_use_avx2(). */
struct sk_transform;
void sk_soa_l2m_aos(const struct sk_skeleton *s, const struct sk_transform *local, const sk_mat4 *root, uint32_t from,
                    uint32_t to, const bool *need, sk_mat4 *out_model);

#endif
