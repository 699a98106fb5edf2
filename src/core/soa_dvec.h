/* Private: double vectors for the SoA blends that accumulate in double as
 * sk_blend_poses does — two doubles per vector in the baseline build (skd_d2,
 * SSE2), four under AVX2 (skd_d4) — and core/soa_blend_body.h instantiated
 * for both (its loads, stores, selects and the plain N-layer blend group:
 * names ending _d2 and _d4). soa.c and anim/soa_layers.c include it. */
#ifndef SKELANIM_SOA_DVEC_H
#define SKELANIM_SOA_DVEC_H

#include "core/soa_kernels.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef double skd_d2 __attribute__((vector_size(16)));
typedef int64_t skd_l2 __attribute__((vector_size(16)));
typedef float skd_f2 __attribute__((vector_size(8)));
#define SKD_D 2
#define SKD_VD skd_d2
#define SKD_VF skd_f2
#define SKD_VL skd_l2
#define SKD_FN(name) name##_d2
#define SKD_ATTR
#include "core/soa_blend_body.h"
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
#include "core/soa_blend_body.h"
#endif

#endif
