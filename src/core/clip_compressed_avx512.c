/* The AVX-512 decoder of compressed clips (chosen at run time where the CPU
 * has AVX-512 F, DQ and VL besides AVX2 and FMA: clip_compressed_sample.c):
 * the AVX2 decoder's sample (clip_compressed_x86.h) with its animated tracks
 * decoded two per 512-bit register, the rest compiled for AVX-512VL (32
 * registers). The whole file is compiled for those instructions
 * (CMakeLists.txt: -mavx2 -mfma -mavx512f -mavx512dq -mavx512vl), so nothing
 * in it may run but through that choice. Contraction stays off (the pragma,
 * -ffp-contract=off): every fused multiply-add is an intrinsic matching the
 * scalar decoder's fmaf. */
#include "core/clip_internal.h"
#include "core/math_inline.h"
#include "core/soa_kernels.h"
#include "skelanim/core/soa.h"

#include <math.h>
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF /* fused multiply-adds only where written (the scalar decoder's fmaf) */
#endif
#include "core/clip_compressed_x86.h"

#if defined(SK_CC_AVX2)
#if !defined(__AVX512F__) || !defined(__AVX512DQ__) || !defined(__AVX512VL__) || !defined(__AVX2__) || !defined(__FMA__)
#error "clip_compressed_avx512.c is compiled with -mavx2 -mfma -mavx512f -mavx512dq -mavx512vl (CMakeLists.txt)"
#endif

/* The same-segment decoder on AVX-512 CPUs (chosen at run time): two tracks
 * per 512-bit register, lanes 0-7 track i (frame 0, frame 1), 8-15 track
 * i + 1, each lane with the same float operations as sk_cclip_decode_placed_avx2's
 * (so the same bits, with about half the instructions per track). The values
 * are computed straight in output order: the clip range as it is, the
 * segment range's bytes put in place by a byte shuffle, the quantised values
 * by the permute that joins the two tracks' fields; the dropped lanes are
 * zeroed by the mask of the last add (an exact +0, as the andnot gives).
 * CC_PAIR by the two tracks' dropped components (4 d_i + d_{i+1}): that
 * permute's dword indices (qword lanes 0-2 of frame 0, 4-6 of frame 1; 16 +
 * for track i + 1), the byte shuffles of the segment minimum and extent
 * (bytes 0-5 track i, 6-11 track i + 1), the lanes kept. CC_SH8: per level
 * the three components' shifts for both frames. */
typedef struct cc_pair {
    int32_t idx[16];
    int8_t smin[16], sext[16];
    uint16_t keep, pad[15];
} cc_pair;
static const cc_pair CC_PAIR[16] __attribute__((aligned(64))) = {
    {{6, 0, 2, 4, 14, 8, 10, 12, 22, 16, 18, 20, 30, 24, 26, 28},
     {-128, 0, 1, 2, -128, 0, 1, 2, -128, 6, 7, 8, -128, 6, 7, 8},
     {-128, 3, 4, 5, -128, 3, 4, 5, -128, 9, 10, 11, -128, 9, 10, 11},
     0xeeeeu, {0}},
    {{6, 0, 2, 4, 14, 8, 10, 12, 16, 22, 18, 20, 24, 30, 26, 28},
     {-128, 0, 1, 2, -128, 0, 1, 2, 6, -128, 7, 8, 6, -128, 7, 8},
     {-128, 3, 4, 5, -128, 3, 4, 5, 9, -128, 10, 11, 9, -128, 10, 11},
     0xddeeu, {0}},
    {{6, 0, 2, 4, 14, 8, 10, 12, 16, 18, 22, 20, 24, 26, 30, 28},
     {-128, 0, 1, 2, -128, 0, 1, 2, 6, 7, -128, 8, 6, 7, -128, 8},
     {-128, 3, 4, 5, -128, 3, 4, 5, 9, 10, -128, 11, 9, 10, -128, 11},
     0xbbeeu, {0}},
    {{6, 0, 2, 4, 14, 8, 10, 12, 16, 18, 20, 22, 24, 26, 28, 30},
     {-128, 0, 1, 2, -128, 0, 1, 2, 6, 7, 8, -128, 6, 7, 8, -128},
     {-128, 3, 4, 5, -128, 3, 4, 5, 9, 10, 11, -128, 9, 10, 11, -128},
     0x77eeu, {0}},
    {{0, 6, 2, 4, 8, 14, 10, 12, 22, 16, 18, 20, 30, 24, 26, 28},
     {0, -128, 1, 2, 0, -128, 1, 2, -128, 6, 7, 8, -128, 6, 7, 8},
     {3, -128, 4, 5, 3, -128, 4, 5, -128, 9, 10, 11, -128, 9, 10, 11},
     0xeeddu, {0}},
    {{0, 6, 2, 4, 8, 14, 10, 12, 16, 22, 18, 20, 24, 30, 26, 28},
     {0, -128, 1, 2, 0, -128, 1, 2, 6, -128, 7, 8, 6, -128, 7, 8},
     {3, -128, 4, 5, 3, -128, 4, 5, 9, -128, 10, 11, 9, -128, 10, 11},
     0xddddu, {0}},
    {{0, 6, 2, 4, 8, 14, 10, 12, 16, 18, 22, 20, 24, 26, 30, 28},
     {0, -128, 1, 2, 0, -128, 1, 2, 6, 7, -128, 8, 6, 7, -128, 8},
     {3, -128, 4, 5, 3, -128, 4, 5, 9, 10, -128, 11, 9, 10, -128, 11},
     0xbbddu, {0}},
    {{0, 6, 2, 4, 8, 14, 10, 12, 16, 18, 20, 22, 24, 26, 28, 30},
     {0, -128, 1, 2, 0, -128, 1, 2, 6, 7, 8, -128, 6, 7, 8, -128},
     {3, -128, 4, 5, 3, -128, 4, 5, 9, 10, 11, -128, 9, 10, 11, -128},
     0x77ddu, {0}},
    {{0, 2, 6, 4, 8, 10, 14, 12, 22, 16, 18, 20, 30, 24, 26, 28},
     {0, 1, -128, 2, 0, 1, -128, 2, -128, 6, 7, 8, -128, 6, 7, 8},
     {3, 4, -128, 5, 3, 4, -128, 5, -128, 9, 10, 11, -128, 9, 10, 11},
     0xeebbu, {0}},
    {{0, 2, 6, 4, 8, 10, 14, 12, 16, 22, 18, 20, 24, 30, 26, 28},
     {0, 1, -128, 2, 0, 1, -128, 2, 6, -128, 7, 8, 6, -128, 7, 8},
     {3, 4, -128, 5, 3, 4, -128, 5, 9, -128, 10, 11, 9, -128, 10, 11},
     0xddbbu, {0}},
    {{0, 2, 6, 4, 8, 10, 14, 12, 16, 18, 22, 20, 24, 26, 30, 28},
     {0, 1, -128, 2, 0, 1, -128, 2, 6, 7, -128, 8, 6, 7, -128, 8},
     {3, 4, -128, 5, 3, 4, -128, 5, 9, 10, -128, 11, 9, 10, -128, 11},
     0xbbbbu, {0}},
    {{0, 2, 6, 4, 8, 10, 14, 12, 16, 18, 20, 22, 24, 26, 28, 30},
     {0, 1, -128, 2, 0, 1, -128, 2, 6, 7, 8, -128, 6, 7, 8, -128},
     {3, 4, -128, 5, 3, 4, -128, 5, 9, 10, 11, -128, 9, 10, 11, -128},
     0x77bbu, {0}},
    {{0, 2, 4, 6, 8, 10, 12, 14, 22, 16, 18, 20, 30, 24, 26, 28},
     {0, 1, 2, -128, 0, 1, 2, -128, -128, 6, 7, 8, -128, 6, 7, 8},
     {3, 4, 5, -128, 3, 4, 5, -128, -128, 9, 10, 11, -128, 9, 10, 11},
     0xee77u, {0}},
    {{0, 2, 4, 6, 8, 10, 12, 14, 16, 22, 18, 20, 24, 30, 26, 28},
     {0, 1, 2, -128, 0, 1, 2, -128, 6, -128, 7, 8, 6, -128, 7, 8},
     {3, 4, 5, -128, 3, 4, 5, -128, 9, -128, 10, 11, 9, -128, 10, 11},
     0xdd77u, {0}},
    {{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 22, 20, 24, 26, 30, 28},
     {0, 1, 2, -128, 0, 1, 2, -128, 6, 7, -128, 8, 6, 7, -128, 8},
     {3, 4, 5, -128, 3, 4, 5, -128, 9, 10, -128, 11, 9, 10, -128, 11},
     0xbb77u, {0}},
    {{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30},
     {0, 1, 2, -128, 0, 1, 2, -128, 6, 7, 8, -128, 6, 7, 8, -128},
     {3, 4, 5, -128, 3, 4, 5, -128, 9, 10, 11, -128, 9, 10, 11, -128},
     0x7777u, {0}}
};
static const uint64_t CC_SH8[SK_CC_LEVELS][8] __attribute__((aligned(64))) = {
    {0, 0, 0, 0, 0, 0, 0, 0},
    {0, 3, 6, 0, 0, 3, 6, 0},
    {0, 4, 8, 0, 0, 4, 8, 0},
    {0, 5, 10, 0, 0, 5, 10, 0},
    {0, 6, 12, 0, 0, 6, 12, 0},
    {0, 7, 14, 0, 0, 7, 14, 0},
    {0, 8, 16, 0, 0, 8, 16, 0},
    {0, 9, 18, 0, 0, 9, 18, 0},
    {0, 10, 20, 0, 0, 10, 20, 0},
    {0, 11, 22, 0, 0, 11, 22, 0},
    {0, 12, 24, 0, 0, 12, 24, 0},
    {0, 13, 26, 0, 0, 13, 26, 0},
    {0, 14, 28, 0, 0, 14, 28, 0},
    {0, 16, 32, 0, 0, 16, 32, 0},
    {0, 19, 38, 0, 0, 19, 38, 0},
    {0, 23, 46, 0, 0, 23, 46, 0}};

/* The fields of one track at bit positions a (frame 0) and b (frame 1), level
 * l (3b + 7 <= 64): qword lanes 0-2 frame 0's, 4-6 frame 1's, masked. */
static inline __m512i cc_fields512(const uint8_t *bits, uint64_t a, uint64_t b,
                                   uint32_t l) {
    uint64_t u0 = sk_cc_u64(bits + (a >> 3)) >> (a & 7u), u1 = sk_cc_u64(bits + (b >> 3)) >> (b & 7u);
    __m512i w = _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 0, 0, 0, 1, 1, 1, 1),
                                         _mm512_castsi128_si512(_mm_set_epi64x((long long)u1, (long long)u0)));
    w = _mm512_srlv_epi64(w, _mm512_load_si512((const void *)CC_SH8[l]));
    return _mm512_and_si512(w, _mm512_set1_epi64((long long)CC_LV[l].mask[0]));
}

/* sk_cclip_decode_placed_avx2 (same arguments, same results) two tracks at a time;
 * a pair with a rate above 19 bits, and an odd last track, go through it. */
__attribute__((noinline)) void sk_cclip_decode_placed512(const uint8_t *cranges, const uint8_t *rates,
                                                         const uint8_t *sranges, const uint8_t *bits,
                                                         uint64_t *pp0, uint64_t *pp1, uint32_t n,
                                                         const uint32_t *slot, __m256 *out, uint8_t *dd) {
    uint64_t p = *pp0, f = *pp1 - *pp0;
    uint32_t i = 0;
    for (; i + 2 <= n; i += 2) {
        uint32_t vi = rates[i], vj = rates[i + 1];
        const cc_level *Li = &CC_LV[vi & 15u], *Lj = &CC_LV[vj & 15u];
        uint32_t bi = Li->b3, bj = Lj->b3;
        if (bi > 57 || bj > 57) { /* three reads per frame: the AVX2 loop's wide path */
            uint64_t q0 = p, q1 = p + f;
            sk_cclip_decode_placed_avx2(cranges + 32u * i, rates + i, sranges + 6u * i, bits, &q0, &q1, 2, slot + i, out, dd);
            p = q0;
            continue;
        }
        uint32_t di = vi >> 4, dj = vj >> 4, si = slot[i], sj = slot[i + 1];
        const cc_pair *P = &CC_PAIR[4u * di + dj];
        dd[si] = (uint8_t)di, dd[sj] = (uint8_t)dj;
        __m512 cr = _mm512_loadu_ps((const void *)(cranges + 32u * i));
        __m512 cmin = _mm512_shuffle_f32x4(cr, cr, _MM_SHUFFLE(2, 2, 0, 0)), cext = _mm512_shuffle_f32x4(cr, cr, _MM_SHUFFLE(3, 3, 1, 1));
        /* 16 bytes read: 12 of the two ranges, then the next ones or the frames (at least 8 bytes follow) */
        __m128i sb = _mm_loadu_si128((const __m128i *)(const void *)(sranges + 6u * i));
        __m512 s0f = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_shuffle_epi8(sb, _mm_load_si128((const __m128i *)(const void *)P->smin))));
        __m512 sef = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_shuffle_epi8(sb, _mm_load_si128((const __m128i *)(const void *)P->sext))));
        __m512 iv = _mm512_mask_blend_ps(0xFF00, _mm512_set1_ps(Li->inv[0]), _mm512_set1_ps(Lj->inv[0]));
        __m512 off = _mm512_fmadd_ps(cext, s0f, cmin); /* sk_cc_coef */
        __m512 sc = _mm512_mul_ps(_mm512_mul_ps(cext, sef), iv);
        uint64_t pj = p + bi;
        __m512i qi = cc_fields512(bits, p, p + f, vi & 15u), qj = cc_fields512(bits, pj, pj + f, vj & 15u);
        p = pj + bj;
        __m512i q = _mm512_permutex2var_epi32(qi, _mm512_load_si512((const void *)P->idx), qj);
        __m512 x = _mm512_maskz_fmadd_ps(P->keep, sc, _mm512_cvtepi32_ps(q), off); /* sk_cc_value */
        out[si] = _mm512_castps512_ps256(x);
        out[sj] = _mm512_extractf32x8_ps(x, 1);
    }
    if (i < n) {
        uint64_t q0 = p, q1 = p + f;
        sk_cclip_decode_placed_avx2(cranges + 32u * i, rates + i, sranges + 6u * i, bits, &q0, &q1, 1, slot + i, out, dd);
        p = q0;
    }
    *pp0 = p, *pp1 = p + f;
}

/* sk_cclip_decode_placed2_avx2 (same arguments, same results) two tracks per
 * 512-bit register: lanes 0-7 track i, 8-15 track i + 1, each half as the
 * AVX2 function computes its register (the clip range permuted by
 * CC_STORED, the two segments' range bytes, each frame's own coefficients,
 * one field read per frame, the CC_PLACE permute and CC_LANE mask). A pair
 * with a rate above 19 bits, and an odd last track, go through
 * sk_cclip_decode_placed2_avx2. */
__attribute__((noinline)) void sk_cclip_decode_placed2_512(const sk_clip *c, cc_cursor *s0, cc_cursor *s1,
                                                           uint32_t a0, uint32_t n, const uint32_t *slot,
                                                           __m256 *out, uint8_t *dd0, uint8_t *dd1) {
    /* per track: bytes 0-2 of each range (smin) of frame 0 then frame 1, then 3-5 (sext) */
    const __m128i gather = _mm_setr_epi8(0, 1, 2, -1, 8, 9, 10, -1, 3, 4, 5, -1, 11, 12, 13, -1);
    const __m512i quarter = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
    const __m512i pick = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i spread = _mm512_setr_epi64(0, 0, 0, 0, 1, 1, 1, 1);
    const uint8_t *bits0 = s0->bits, *bits1 = s1->bits;
    uint64_t p0 = s0->pos, p1 = s1->pos;
    uint32_t i = 0;
    for (; i + 2 <= n; i += 2) {
        uint32_t a = a0 + i;
        uint32_t v0i = s0->rates[a], v1i = s1->rates[a], v0j = s0->rates[a + 1], v1j = s1->rates[a + 1];
        const cc_level *L0i = &CC_LV[v0i & 15u], *L1i = &CC_LV[v1i & 15u], *L0j = &CC_LV[v0j & 15u], *L1j = &CC_LV[v1j & 15u];
        if (L0i->b3 > 57 || L1i->b3 > 57 || L0j->b3 > 57 || L1j->b3 > 57) { /* three reads per frame */
            s0->pos = p0, s1->pos = p1;
            sk_cclip_decode_placed2_avx2(c, s0, s1, a, 2, slot + i, out, dd0, dd1);
            p0 = s0->pos, p1 = s1->pos;
            continue;
        }
        uint32_t d0i = v0i >> 4, d1i = v1i >> 4, d0j = v0j >> 4, d1j = v1j >> 4, si = slot[i], sj = slot[i + 1];
        dd0[si] = (uint8_t)d0i, dd1[si] = (uint8_t)d1i, dd0[sj] = (uint8_t)d0j, dd1[sj] = (uint8_t)d1j;
        /* the clip ranges of both tracks (64 bytes: min i, ext i, min j, ext j) in stored order per frame */
        __m512 cr = _mm512_loadu_ps(c->cc.ranges + 8u * a);
        __m512i perm = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(const void *)CC_STORED[d0i][d1i])),
                                          _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(const void *)CC_STORED[d0j][d1j]),
                                                           _mm256_set1_epi32(8)),
                                          1);
        __m512 cmin = _mm512_permutexvar_ps(perm, cr), cext = _mm512_permutexvar_ps(_mm512_add_epi32(perm, _mm512_set1_epi32(4)), cr);
        /* the segment ranges: 16 bytes read from each segment at track i (12 used: i's six, j's six) */
        __m128i A = _mm_loadu_si128((const __m128i *)(const void *)(s0->ranges + 6u * a));
        __m128i B = _mm_loadu_si128((const __m128i *)(const void *)(s1->ranges + 6u * a));
        __m128i Si = _mm_shuffle_epi8(_mm_unpacklo_epi64(A, B), gather);
        __m128i Sj = _mm_shuffle_epi8(_mm_unpacklo_epi64(_mm_srli_si128(A, 6), _mm_srli_si128(B, 6)), gather);
        __m512 s0f = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_unpacklo_epi64(Si, Sj)));
        __m512 sef = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_unpackhi_epi64(Si, Sj)));
        /* sk_cc_coef, per frame of each track */
        __m512 iv = _mm512_permutexvar_ps(quarter, _mm512_castps128_ps512(_mm_setr_ps(L0i->inv[0], L1i->inv[0], L0j->inv[0], L1j->inv[0])));
        __m512 off = _mm512_fmadd_ps(cext, s0f, cmin);
        __m512 sc = _mm512_mul_ps(_mm512_mul_ps(cext, sef), iv);
        /* the fields: per track one 64-bit read per frame, each frame's shifts and mask */
        uint64_t q0j = p0 + L0i->b3, q1j = p1 + L1i->b3;
        __m512i wi = _mm512_permutexvar_epi64(spread, _mm512_castsi128_si512(_mm_set_epi64x(
                                                          (long long)(sk_cc_u64(bits1 + (p1 >> 3)) >> (p1 & 7u)),
                                                          (long long)(sk_cc_u64(bits0 + (p0 >> 3)) >> (p0 & 7u)))));
        __m512i wj = _mm512_permutexvar_epi64(spread, _mm512_castsi128_si512(_mm_set_epi64x(
                                                          (long long)(sk_cc_u64(bits1 + (q1j >> 3)) >> (q1j & 7u)),
                                                          (long long)(sk_cc_u64(bits0 + (q0j >> 3)) >> (q0j & 7u)))));
        __m512i shi = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_load_si256((const __m256i *)(const void *)L0i->shift)),
                                         _mm256_load_si256((const __m256i *)(const void *)L1i->shift), 1);
        __m512i shj = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_load_si256((const __m256i *)(const void *)L0j->shift)),
                                         _mm256_load_si256((const __m256i *)(const void *)L1j->shift), 1);
        __m512i mki = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_load_si256((const __m256i *)(const void *)L0i->mask)),
                                         _mm256_load_si256((const __m256i *)(const void *)L1i->mask), 1);
        __m512i mkj = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_load_si256((const __m256i *)(const void *)L0j->mask)),
                                         _mm256_load_si256((const __m256i *)(const void *)L1j->mask), 1);
        wi = _mm512_and_si512(_mm512_srlv_epi64(wi, shi), mki);
        wj = _mm512_and_si512(_mm512_srlv_epi64(wj, shj), mkj);
        p0 = q0j + L0j->b3, p1 = q1j + L1j->b3;
        __m512i q = _mm512_permutex2var_epi32(wi, pick, wj);
        __m512 x = _mm512_fmadd_ps(sc, _mm512_cvtepi32_ps(q), off); /* sk_cc_value */
        __m512i place = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(const void *)CC_PLACE[d0i][d1i])),
                                           _mm256_loadu_si256((const __m256i *)(const void *)CC_PLACE[d0j][d1j]), 1);
        __m512i lane = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(const void *)CC_LANE[d0i][d1i])),
                                          _mm256_loadu_si256((const __m256i *)(const void *)CC_LANE[d0j][d1j]), 1);
        x = _mm512_castsi512_ps(_mm512_andnot_si512(lane, _mm512_castps_si512(_mm512_permutevar_ps(x, place))));
        out[si] = _mm512_castps512_ps256(x);
        out[sj] = _mm512_extractf32x8_ps(x, 1);
    }
    s0->pos = p0, s1->pos = p1;
    if (i < n) sk_cclip_decode_placed2_avx2(c, s0, s1, a0 + i, 1, slot + i, out, dd0, dd1);
}

/* cc_sample_body with AVX-512's decoding (two tracks per register; the rest
 * compiled for AVX-512VL: 32 registers), with a cursor's cache and without.
 * No scalar float expression is evaluated in them (cc_rots_avx2 and
 * sk_cclip_rot8_far compute sk_cc_tweights and sk_cc_tweights_far with
 * intrinsics), so that no compiler contracts one into a fused multiply-add
 * under this file's flags, which have FMA: the fused ones are the intrinsics
 * that match the scalar fmaf. */
__attribute__((noinline)) void sk_cclip_sample_avx512_cached(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, float u,
                                                             sk_transform *local, float *soa, uint32_t *cache, uint32_t k0) {
    cc_sample_body(c, s0, s1, u, local, soa, true, cache, k0);
}
__attribute__((noinline)) void sk_cclip_sample_avx512_plain(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, float u,
                                                            sk_transform *local, float *soa) {
    cc_sample_body(c, s0, s1, u, local, soa, true, NULL, 0);
}
#endif
