/* skelanim — SIMD levels: which vector instruction set a kernel uses, chosen
 * at run time from what the CPU reports (no global state: asked per call). */
#ifndef SKELANIM_CORE_SIMD_H
#define SKELANIM_CORE_SIMD_H

#include "skelanim/core/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sk_simd {
    SK_SIMD_AUTO = 0,   /* the best this CPU supports */
    SK_SIMD_SCALAR = 1, /* plain C reference */
    SK_SIMD_SSE2 = 2,
    SK_SIMD_AVX2 = 3,   /* AVX2 + FMA */
    SK_SIMD_AVX512 = 4  /* AVX-512 F + VL (with AVX2 + FMA); kernels without
                           an AVX-512 form run their AVX2 one */
} sk_simd;

/* The best level this CPU runs (x86-64: SSE2 at least; elsewhere, and in a
 * build configured with -DSK_SIMD=OFF, SCALAR), capped by the environment
 * variable SKELANIM_SIMD (scalar, sse2, avx2 or avx512; another value or
 * none: no cap) so one machine can measure what a lesser CPU runs. Read
 * once per process, at the first call. Every kernel chosen at run time (the
 * AVX2 and AVX-512 paths of sampling, blending, local-to-model, palettes,
 * skinning, compressed clips, the compressor) follows it; the SSE2 code
 * compiled into an x86-64 build runs under a scalar cap too. Thread-safe. */
SK_API sk_simd sk_simd_best(void);
/* Resolves AUTO and downgrades a level the CPU lacks to the best it has. */
SK_API sk_simd sk_simd_resolve(sk_simd want);
SK_API const char *sk_simd_name(sk_simd s); /* "scalar", "sse2", "avx2", "avx512" ("auto") */

#ifdef __cplusplus
}
#endif
#endif
