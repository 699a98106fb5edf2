/* SIMD level selection (simd.h). */
#include "skelanim/core/simd.h"

#if (defined(__x86_64__) || defined(_M_X64)) && !defined(SK_NO_SIMD)
#define SK_SIMD_X86 1
#endif

/* ---- CPU features ---------------------------------------------------------- */

sk_simd sk_simd_best(void) {
#if defined(SK_SIMD_X86) && (defined(__GNUC__) || defined(__clang__))
    bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")) return SK_SIMD_AVX512;
    if (avx2) return SK_SIMD_AVX2;
    return SK_SIMD_SSE2;
#else
    return SK_SIMD_SCALAR;
#endif
}

sk_simd sk_simd_resolve(sk_simd want) {
    sk_simd best = sk_simd_best();
    if (want == SK_SIMD_AUTO || (int)want > (int)best || (int)want < 0) return best;
    return want;
}

const char *sk_simd_name(sk_simd s) {
    switch (s) {
    case SK_SIMD_AUTO: return "auto";
    case SK_SIMD_SCALAR: return "scalar";
    case SK_SIMD_SSE2: return "sse2";
    case SK_SIMD_AVX2: return "avx2";
    case SK_SIMD_AVX512: return "avx512";
    }
    return "?";
}
