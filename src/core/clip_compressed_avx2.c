/* The AVX2 decoder of compressed clips (chosen at run time where the CPU has
 * AVX2 and FMA: clip_compressed_sample.c): both frames of every animated
 * track decoded one track per register, the rotations interpolated eight at
 * a time (clip_compressed_x86.h); and the AVX2 parts of an SoA pose's
 * sample. */
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
/* The three stored components' quantised values of one frame (bit rate
 * level l of b bits, at bit position p of bits) in the low 32 bits of the
 * 64-bit lanes 0-2, still to be masked: one 64-bit read when 3b + 7 <= 64,
 * else one per component. */
__attribute__((target("avx2,fma"))) static inline __m256i cc_fields_avx2(const uint8_t *bits, uint64_t p, uint32_t l, uint32_t b) {
    if (b <= 19)
        return _mm256_srlv_epi64(_mm256_set1_epi64x((long long)sk_cc_u64(bits + (p >> 3))),
                                 _mm256_add_epi64(_mm256_load_si256((const __m256i *)(const void *)CC_LV[l].shift),
                                                  _mm256_set1_epi64x((long long)(p & 7u))));
    uint64_t e = p + b, f = p + 2u * b;
    return _mm256_srlv_epi64(_mm256_setr_epi64x((long long)sk_cc_u64(bits + (p >> 3)), (long long)sk_cc_u64(bits + (e >> 3)),
                                                (long long)sk_cc_u64(bits + (f >> 3)), 0),
                             _mm256_setr_epi64x((long long)(p & 7u), (long long)(e & 7u), (long long)(f & 7u), 0));
}

/* cc_fields_avx2 for both frames at bit rates above 19 bits (three reads
 * each), out of the decoder's loop. */
__attribute__((target("avx2,fma"), noinline, cold)) static void cc_fields2_wide(const uint8_t *bits, uint64_t p0, uint64_t p1,
                                                                         uint32_t l, __m256i *q0, __m256i *q1) {
    *q0 = cc_fields_avx2(bits, p0, l, SK_CC_BITS[l]);
    *q1 = cc_fields_avx2(bits, p1, l, SK_CC_BITS[l]);
}

/* Animated tracks [0, n) of two frames in one segment (15 of 16 pairs),
 * from the clip ranges cranges, the segment's bit rates and ranges (rates,
 * sranges) and its frames' bits at p0 and p1 (advanced past them): per
 * track one register, frame 0 in lanes 0-3 and frame 1 in lanes 4-7, each
 * in output order (x, y, z, w) with +0 in place of the dropped component,
 * stored in out[slot[i]] (the plan's slot: rotations from 0, translations
 * and scales from CC_XV), its dropped component in dd[slot[i]]. The coefficients are
 * computed once for both frames. Same float operations in the same order
 * as cc_read2 (sk_cc_coef and sk_cc_value: fused where they call fmaf, nowhere else). */
__attribute__((target("avx2,fma"), noinline)) void sk_cclip_decode_placed_avx2(const uint8_t *cranges, const uint8_t *rates,
                                                                               const uint8_t *sranges, const uint8_t *bits,
                                                                               uint64_t *pp0, uint64_t *pp1, uint32_t n, const uint32_t *slot,
                                                                               __m256 *out, uint8_t *dd) {
    uint64_t p = *pp0, f = *pp1 - *pp0; /* frame 1 starts f bits after frame 0 (0: the same frame) */
    const __m256i lo32 = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    for (uint32_t i = 0; i < n; i++, cranges += 32, sranges += 6) {
        uint32_t v = rates[i], sl = slot[i];
        const cc_level *L = &CC_LV[v & 15u];
        const cc_drop *D = &CC_DROP[v >> 4];
        dd[sl] = (uint8_t)(v >> 4);
        __m128i perm = _mm_load_si128((const __m128i *)(const void *)D->stored);
        __m128 cmin = _mm_permutevar_ps(_mm_loadu_ps((const float *)(const void *)cranges), perm);
        __m128 cext = _mm_permutevar_ps(_mm_loadu_ps((const float *)(const void *)(cranges + 16)), perm);
        __m128i sb = _mm_loadl_epi64((const __m128i *)(const void *)sranges);
        __m128 s0f = _mm_cvtepi32_ps(_mm_cvtepu8_epi32(sb));
        __m128 sef = _mm_cvtepi32_ps(_mm_cvtepu8_epi32(_mm_srli_si128(sb, 3)));
        __m128 off = _mm_fmadd_ps(cext, s0f, cmin); /* sk_cc_coef */
        __m128 sc = _mm_mul_ps(_mm_mul_ps(cext, sef), _mm_load_ps(L->inv));
        uint64_t p1 = p + f;
        __m256i q0, q1;
        if (L->b3 <= 57) { /* 3b + 7 <= 64: one 64-bit read per frame holds all three */
            __m256i sh = _mm256_load_si256((const __m256i *)(const void *)L->shift);
            q0 = _mm256_srlv_epi64(_mm256_set1_epi64x((long long)sk_cc_u64(bits + (p >> 3))),
                                   _mm256_add_epi64(sh, _mm256_set1_epi64x((long long)(p & 7u))));
            q1 = _mm256_srlv_epi64(_mm256_set1_epi64x((long long)sk_cc_u64(bits + (p1 >> 3))),
                                   _mm256_add_epi64(sh, _mm256_set1_epi64x((long long)(p1 & 7u))));
        } else
            cc_fields2_wide(bits, p, p1, v & 15u, &q0, &q1);
        p += L->b3;
        __m256i m = _mm256_load_si256((const __m256i *)(const void *)L->mask);
        __m256i q = _mm256_blend_epi32(_mm256_permutevar8x32_epi32(_mm256_and_si256(q0, m), lo32),
                                       _mm256_permutevar8x32_epi32(_mm256_and_si256(q1, m), lo32), 0xF0);
        __m256 x = _mm256_fmadd_ps(_mm256_set_m128(sc, sc), _mm256_cvtepi32_ps(q), _mm256_set_m128(off, off)); /* sk_cc_value */
        out[sl] = _mm256_andnot_ps(_mm256_castsi256_ps(_mm256_load_si256((const __m256i *)(const void *)D->lane)),
                                   _mm256_permutevar_ps(x, _mm256_load_si256((const __m256i *)(const void *)D->place)));
    }
    *pp0 = p, *pp1 = p + f;
}

/* sk_cclip_decode_placed_avx2 for two frames in two segments (the last frame of
 * one and the first of the next): each half of the register with its own
 * segment's bit rate, dropped component (dd0 for frame 0, dd1 for frame 1)
 * and coefficients. Tracks [a0, a0 + n); the cursors' bit
 * positions advance. */
__attribute__((target("avx2,fma"))) void sk_cclip_decode_placed2_avx2(const sk_clip *c, cc_cursor *s0, cc_cursor *s1,
                                                                      uint32_t a0, uint32_t n, const uint32_t *slot, __m256 *out,
                                                                      uint8_t *dd0, uint8_t *dd1) {
    const __m256i lo32 = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    /* bytes 0-2 of each range (smin) then 3-5 (sext), of frame 0 then 1 */
    const __m128i gather = _mm_setr_epi8(0, 1, 2, -1, 8, 9, 10, -1, 3, 4, 5, -1, 11, 12, 13, -1);
    const uint8_t *bits0 = s0->bits, *bits1 = s1->bits;
    uint64_t p0 = s0->pos, p1 = s1->pos;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t a = a0 + i, v0 = s0->rates[a], v1 = s1->rates[a];
        uint32_t l0 = v0 & 15u, l1 = v1 & 15u, b0 = SK_CC_BITS[l0], b1 = SK_CC_BITS[l1], d0 = v0 >> 4, d1 = v1 >> 4;
        uint32_t sl = slot[i];
        __m256 *xo = &out[sl];
        dd0[sl] = (uint8_t)d0, dd1[sl] = (uint8_t)d1;
        /* the clip range in stored order */
        const float *cr = c->cc.ranges + 8u * a;
        __m256i perm = _mm256_loadu_si256((const __m256i *)(const void *)CC_STORED[d0][d1]);
        __m256 cmin = _mm256_permutevar_ps(_mm256_broadcast_ps((const __m128 *)(const void *)cr), perm);
        __m256 cext = _mm256_permutevar_ps(_mm256_broadcast_ps((const __m128 *)(const void *)(cr + 4)), perm);
        /* the segment ranges (8 bytes read each: the frames follow them) */
        __m128i sb = _mm_shuffle_epi8(_mm_set_epi64x((long long)sk_cc_u64(s1->ranges + 6u * a), (long long)sk_cc_u64(s0->ranges + 6u * a)),
                                      gather);
        __m256 s0f = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(sb));
        __m256 sef = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(sb, 8)));
        __m256 off = _mm256_fmadd_ps(cext, s0f, cmin); /* sk_cc_coef */
        __m256 sc = _mm256_mul_ps(_mm256_mul_ps(cext, sef), _mm256_set_m128(_mm_set1_ps(SK_CC_INV[l1]), _mm_set1_ps(SK_CC_INV[l0])));
        /* the quantised values: one 64-bit read per frame holds all three when 3b + 7 <= 64 */
        __m256i q0 = cc_fields_avx2(bits0, p0, l0, b0), q1 = cc_fields_avx2(bits1, p1, l1, b1);
        p0 += 3u * b0, p1 += 3u * b1;
        q0 = _mm256_permutevar8x32_epi32(_mm256_and_si256(q0, _mm256_load_si256((const __m256i *)(const void *)CC_LV[l0].mask)), lo32);
        q1 = _mm256_permutevar8x32_epi32(_mm256_and_si256(q1, _mm256_load_si256((const __m256i *)(const void *)CC_LV[l1].mask)), lo32);
        __m256 x = _mm256_fmadd_ps(sc, _mm256_cvtepi32_ps(_mm256_blend_epi32(q0, q1, 0xF0)), off); /* sk_cc_value */
        *xo = _mm256_andnot_ps(_mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)(const void *)CC_LANE[d0][d1])),
                                  _mm256_permutevar_ps(x, _mm256_loadu_si256((const __m256i *)(const void *)CC_PLACE[d0][d1])));
    }
    s0->pos = p0, s1->pos = p1;
}

/* The groups with lanes more than 120 degrees apart (rare) redone with the
 * far weights (sk_cc_tweights_far, sk_cc_tprime_far) in those lanes: their
 * q and one over the root of their squared length. Out of line: most
 * samples have no such lane. */
__attribute__((target("avx2,fma"), noinline, cold)) void sk_cclip_rot8_far(struct cc_rot8 *g, uint32_t ng, float u) {
    const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps(), vu = _mm256_set1_ps(u);
    /* sk_cc_tweights_far, its five coefficients in lanes 0-4 of one register (intrinsics: no contraction) */
    const __m256 hs = _mm256_sub_ps(vu, _mm256_set1_ps(0.5f)), s = _mm256_mul_ps(hs, hs);
    const __m256 w = _mm256_mul_ps(_mm256_mul_ps(vu, hs), _mm256_sub_ps(vu, one));
    __m256 T[5];
    for (int i = 0; i < 5; i++)
        T[i] = _mm256_setr_ps(SK_CC_TKF[i][0], SK_CC_TKF[i][1], SK_CC_TKF[i][2], SK_CC_TKF[i][3], SK_CC_TKF[i][4], 0.0f, 0.0f, 0.0f);
    __m256 ev = _mm256_add_ps(_mm256_mul_ps(T[4], s), T[3]);
    ev = _mm256_add_ps(_mm256_mul_ps(ev, s), T[2]);
    ev = _mm256_add_ps(_mm256_mul_ps(ev, s), T[1]);
    ev = _mm256_add_ps(_mm256_mul_ps(ev, s), T[0]);
    ev = _mm256_mul_ps(w, ev);
    __m256 f[5];
    for (int j = 0; j < 5; j++) f[j] = _mm256_permutevar8x32_ps(ev, _mm256_set1_epi32(j));
    for (uint32_t k = 0; k < ng; k++) {
        cc_rot8 *h = &g[k];
        if (!h->far) continue;
        const __m256 *a = h->a, *b = h->b;
        __m256 dt = _mm256_fmadd_ps(a[3], b[3], _mm256_fmadd_ps(a[2], b[2], _mm256_fmadd_ps(a[1], b[1], _mm256_mul_ps(a[0], b[0]))));
        __m256 sm = _mm256_and_ps(_mm256_cmp_ps(dt, zero, _CMP_LT_OQ), _mm256_set1_ps(-0.0f));
        __m256 ad = _mm256_xor_ps(dt, sm), y = _mm256_sub_ps(one, ad);
        __m256 farm = _mm256_cmp_ps(ad, _mm256_set1_ps(SK_CC_FAR_BELOW), _CMP_LT_OQ);
        /* sk_cc_tprime_far: u + ((((f4 y + f3) y + f2) y + f1) y + f0) y */
        __m256 p = _mm256_fmadd_ps(f[4], y, f[3]);
        p = _mm256_fmadd_ps(p, y, f[2]);
        p = _mm256_fmadd_ps(p, y, f[1]);
        p = _mm256_fmadd_ps(p, y, f[0]);
        __m256 vt = _mm256_fmadd_ps(p, y, vu), q[4];
        for (int c = 0; c < 4; c++) q[c] = _mm256_fmadd_ps(_mm256_sub_ps(_mm256_xor_ps(sm, b[c]), a[c]), vt, a[c]);
        __m256 l2 = _mm256_fmadd_ps(q[3], q[3], _mm256_fmadd_ps(q[2], q[2], _mm256_fmadd_ps(q[1], q[1], _mm256_mul_ps(q[0], q[0]))));
        for (int c = 0; c < 4; c++) h->q[c] = _mm256_blendv_ps(h->q[c], q[c], farm);
        h->l2 = _mm256_blendv_ps(h->l2, _mm256_div_ps(one, _mm256_sqrt_ps(l2)), farm);
    }
}

/* cc_sample_body with the AVX2 decoding (with AVX-512's: clip_compressed_avx512.c).
 * No scalar float expression is evaluated in it (cc_rots_avx2 and
 * sk_cclip_rot8_far compute sk_cc_tweights and sk_cc_tweights_far with
 * intrinsics), so that no compiler contracts one into a fused multiply-add
 * under this target, which has FMA: the fused ones are the intrinsics that
 * match the scalar fmaf. */
__attribute__((target("avx2,fma"), noinline)) void sk_cclip_sample_avx2_cached(const sk_clip *c, cc_cursor *s0, cc_cursor *s1,
                                                                               float u, sk_transform *local, float *soa,
                                                                               uint32_t *cache, uint32_t k0) {
    cc_sample_body(c, s0, s1, u, local, soa, false, cache, k0);
}
/* Without a cursor: the body with its cache code folded away (the same speed as before the cache). */
__attribute__((target("avx2,fma"), noinline)) void sk_cclip_sample_avx2_plain(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, float u,
                                                                              sk_transform *local, float *soa) {
    cc_sample_body(c, s0, s1, u, local, soa, false, NULL, 0);
}

/* SoA groups of a pose's data (80 floats per eight joints) to the AoS
 * transforms of joints [0, n) at out, which may be the same memory when n is
 * a multiple of 8 (each group's 80 floats are read before they are written). */
__attribute__((target("avx2,fma"))) void sk_cclip_soa_to_aos(const float *d, float *out, uint32_t n) {
    for (uint32_t j = 0; j < n; j += 8, d += SK_SOA_GROUP_FLOATS, out += SK_SOA_GROUP_FLOATS) {
        float part[SK_SOA_GROUP_FLOATS];
        float *o = n - j >= 8 ? out : part; /* a last, partial group through part */
        __m256 r[8];
        for (int k = 0; k < 8; k++) r[k] = _mm256_loadu_ps(d + 8 * k);
        __m256 sy = _mm256_loadu_ps(d + 64), sz = _mm256_loadu_ps(d + 72);
        skk_tr8_avx2(r); /* r[l]: joint l's t, r and s.x */
        __m256 lo = _mm256_unpacklo_ps(sy, sz), hi = _mm256_unpackhi_ps(sy, sz); /* (y, z) of joints 0 1 4 5, 2 3 6 7 */
        for (int l = 0; l < 8; l++) _mm256_storeu_ps(o + 10 * l, r[l]);
        __m128 a = _mm256_castps256_ps128(lo), b = _mm256_extractf128_ps(lo, 1), c = _mm256_castps256_ps128(hi),
               e = _mm256_extractf128_ps(hi, 1);
        _mm_storel_pi((__m64 *)(void *)(o + 8), a), _mm_storeh_pi((__m64 *)(void *)(o + 18), a);
        _mm_storel_pi((__m64 *)(void *)(o + 28), c), _mm_storeh_pi((__m64 *)(void *)(o + 38), c);
        _mm_storel_pi((__m64 *)(void *)(o + 48), b), _mm_storeh_pi((__m64 *)(void *)(o + 58), b);
        _mm_storel_pi((__m64 *)(void *)(o + 68), e), _mm_storeh_pi((__m64 *)(void *)(o + 78), e);
        if (o == part) memcpy(out, part, (n - j) * 10 * sizeof(float));
    }
}
/* sk_cclip_rest_soa's rows of one path (n of them) from the rest pose r, the
 * lanes of constant tracks from the plan's rows cv; none where the clip's
 * animated tracks write every lane (cover 0xff). Row stores of 32 bytes, that
 * the decoders' loads of a row they blend into can take as they are. */
__attribute__((target("avx2"), always_inline)) static inline void cc_rest_path(float *o, const float *r, const float *cv, uint32_t lanes,
                                                                              uint32_t cover, int n) {
    if (lanes) {
        const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
        __m256 k = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)lanes), bit), bit));
        for (int q = 0; q < n; q++) _mm256_storeu_ps(o + 8 * q, _mm256_blendv_ps(_mm256_loadu_ps(r + 8 * q), _mm256_loadu_ps(cv + 8 * q), k));
    } else if (cover != 0xffu)
        for (int q = 0; q < n; q++) _mm256_storeu_ps(o + 8 * q, _mm256_loadu_ps(r + 8 * q));
}
__attribute__((target("avx2"))) void sk_cclip_rest_rows_avx2(const sk_clip *c, const float *rest_soa, float *data, uint32_t cg) {
    const uint32_t *e = c->cc.cgroups;
    for (uint32_t g = 0; g < cg; g++) {
        const float *r = rest_soa + (size_t)g * SK_SOA_GROUP_FLOATS, *cv = r;
        float *o = data + (size_t)g * SK_SOA_GROUP_FLOATS;
        uint32_t m = c->cc.gcover[g], cm = cc_cgroup(c, &e, g, &cv);
        cc_rest_path(o, r, cv, cm & 0xffu, m & 0xffu, 3);
        cc_rest_path(o + 24, r + 24, cv + 24, cm >> 8 & 0xffu, m >> 8 & 0xffu, 4);
        cc_rest_path(o + 56, r + 56, cv + 56, cm >> 16 & 0xffu, m >> 16 & 0xffu, 3);
    }
}
#endif
