/* Private: the structure-of-arrays blend kernels of anim's SoA blends
 * (soa_layers_blend.c: sk_blend_two_soa, sk_blend_weighted_soa;
 * soa_layers.c: masks, channel sets, slerp, additive poses, layers). Not
 * installed. Built on core/soa_kernels.h (the vector types, their loads,
 * stores and selects, the slerp series that core's frame-major sampling
 * uses too, sk_soa_use_avx2; this header is where anim includes it, the
 * crossing tests/cli_layers.sh sanctions), and written once over vector
 * types, like them:
 *
 *  - floats, soa_blend_kernels_body.h: the two-pose normalised lerp
 *    (skk_blend_part, skk_blend_group, skk_blend_groups) and the slerp
 *    rows with a t per lane (skk_slerp_rows_u); W = 4 (names ending _w4,
 *    the baseline build) and W = 8 under __attribute__((target("avx2")))
 *    (_w8);
 *  - doubles, for the blends that accumulate in double as sk_blend_poses
 *    does, soa_blend_body.h: loads, stores, selects and the plain N-layer
 *    blend group; two doubles per vector in the baseline build (skd_d2,
 *    SSE2, names ending _d2), four under AVX2 (skd_d4, _d4).
 *
 * The wide variants run only where sk_soa_use_avx2() (the callers choose).
 * Every lane computes what the sk_pose function computes for its joint, in
 * the same order, no fused multiply-add: the same bits (tests/test_soa.c,
 * tests/test_soa_layers.c). */
#ifndef SKELANIM_ANIM_SOA_BLEND_KERNELS_H
#define SKELANIM_ANIM_SOA_BLEND_KERNELS_H

#include "core/soa_kernels.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* floats, W = 4 */
#define SKK_W 4
#define SKK_V skk_f4
#define SKK_I skk_i4
#define SKK_FN(name) name##_w4
#define SKK_ATTR
#include "anim/soa_blend_kernels_body.h"
#if defined(SK_SOA_X86)
#define SKK_W 8
#define SKK_V skk_f8
#define SKK_I skk_i8
#define SKK_FN(name) name##_w8
#define SKK_ATTR __attribute__((target("avx2")))
#include "anim/soa_blend_kernels_body.h"
#endif

/* doubles */
typedef double skd_d2 __attribute__((vector_size(16)));
typedef int64_t skd_l2 __attribute__((vector_size(16)));
typedef float skd_f2 __attribute__((vector_size(8)));
#define SKD_D 2
#define SKD_VD skd_d2
#define SKD_VF skd_f2
#define SKD_VL skd_l2
#define SKD_FN(name) name##_d2
#define SKD_ATTR
#include "anim/soa_blend_body.h"
#if defined(SK_SOA_X86)
typedef double skd_d4 __attribute__((vector_size(32)));
typedef int64_t skd_l4 __attribute__((vector_size(32)));
typedef float skd_f4 __attribute__((vector_size(16)));
#define SKD_D 4
#define SKD_VD skd_d4
#define SKD_VF skd_f4
#define SKD_VL skd_l4
#define SKD_FN(name) name##_d4
#define SKD_ATTR __attribute__((target("avx2")))
#include "anim/soa_blend_body.h"
#endif

#endif
