/* SIMD level selection (simd.h). */
#include "skelanim/core/simd.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if (defined(__x86_64__) || defined(_M_X64)) && !defined(SK_NO_SIMD)
#define SK_SIMD_X86 1
#endif

/* ---- CPU features ---------------------------------------------------------- */

static sk_simd cpu_best(void) {
#if defined(SK_SIMD_X86) && (defined(__GNUC__) || defined(__clang__))
    bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")) return SK_SIMD_AVX512;
    if (avx2) return SK_SIMD_AVX2;
    return SK_SIMD_SSE2;
#else
    return SK_SIMD_SCALAR;
#endif
}

/* The level, read once per process: the CPU's, capped by SKELANIM_SIMD
 * (simd.h). Every thread computes the same value, so the race of the first
 * calls is benign; it never changes after. */
sk_simd sk_simd_best(void) {
    static atomic_int cached = 0; /* 0: not read yet, else the level */
    int v = atomic_load_explicit(&cached, memory_order_relaxed);
    if (v) return (sk_simd)v;
    sk_simd best = cpu_best();
    const char *cap = getenv("SKELANIM_SIMD");
    if (cap && *cap) {
        static const char *const names[] = {"scalar", "sse2", "avx2", "avx512"};
        for (int k = 0; k < 4; k++)
            if (!strcmp(cap, names[k]) && (int)best > k + 1) best = (sk_simd)(k + 1);
    }
    atomic_store_explicit(&cached, (int)best, memory_order_relaxed);
    return best;
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
