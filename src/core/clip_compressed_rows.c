/* The rows decoder of compressed clips (chosen at run time where the CPU has
 * AVX-512 F, DQ, VL, BW and VBMI besides AVX2 and FMA, for clips of 24
 * animated tracks or more: sk_clip_from_compressed, clip_compressed_sample.c).
 * The whole file is compiled for those instructions (CMakeLists.txt: -mavx2
 * -mfma -mavx512f -mavx512dq -mavx512vl -mavx512bw -mavx512vbmi), so nothing
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
#if !defined(__AVX512F__) || !defined(__AVX512DQ__) || !defined(__AVX512VL__) || !defined(__AVX512BW__) || \
    !defined(__AVX512VBMI__) || !defined(__AVX2__) || !defined(__FMA__)
#error "clip_compressed_rows.c is compiled with -mavx2 -mfma -mavx512f -mavx512dq -mavx512vl -mavx512bw -mavx512vbmi (CMakeLists.txt)"
#endif

/* ---- The rows decoder (AVX-512 with VBMI): sixteen tracks per register ----
 * The AVX2 and AVX-512 decoders hold one track per register (frame 0 in lanes 0-3,
 * frame 1 in 4-7) and pay per track for the permutes that place its
 * components, then transpose eight rotations to rows for the lerp. This one
 * decodes sixteen tracks of a segment at once, one register per stored
 * component: their bit positions by a prefix sum of their widths, each
 * track's 8 bytes picked from the block's bytes by a byte permute (VBMI; a
 * gather per component in a block with a 23-bit track), the three fields
 * shifted out, the coefficients from the range bytes picked by byte permutes
 * and the clip ranges the plan keeps as rows (cc.rrows), the dropped
 * component's clip range chosen by masks. The rows go to the rotations' or
 * the translations' and scales' buffers (blob version 4 puts the rotations
 * first, so only the block where they end is split, by the plan's rotation
 * mask, cc.rmask), and the rotations are rebuilt, placed and interpolated
 * eight at a time with no transpose. The same float operations in the same
 * order as cc_read2 and sk_cc_qlerp: the same bits. */

/* One block's per-track decoding terms of one segment. */
typedef struct cc_blk {
    __m512i lvl, d, b;       /* bit-rate level, dropped component, bits per component */
    __m512 off[3], sc[3];    /* sk_cc_coef per stored component */
} cc_blk;

/* The terms of tracks [0, n) (n <= 16) from the segment's rates and range
 * bytes at the block's first track and the block's clip-range rows cr. */
__attribute__((always_inline)) static inline void cc_blk_coef(const float *cr, const uint8_t *rates, const uint8_t *sr,
                                                              uint32_t n, cc_blk *k) {
    __m512i r = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8((__mmask16)((1u << n) - 1u), rates));
    k->lvl = _mm512_and_si512(r, _mm512_set1_epi32(15));
    k->d = _mm512_srli_epi32(r, 4);
    k->b = _mm512_permutexvar_epi32(k->lvl, _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(const void *)SK_CC_BITS)));
    uint32_t nb = 6u * n;
    __mmask64 m0 = nb >= 64 ? ~0ull : (1ull << nb) - 1u, m1 = nb > 64 ? (1ull << (nb - 64)) - 1u : 0;
    __m512i lo = _mm512_maskz_loadu_epi8(m0, sr), hi = _mm512_maskz_loadu_epi8(m1, sr + 64);
    __m512 inv = _mm512_permutexvar_ps(k->lvl, _mm512_loadu_ps(SK_CC_INV));
    /* byte 6i + j of the ranges to the low byte of lane i */
    const __m512i six = _mm512_setr_epi32(0, 6, 12, 18, 24, 30, 36, 42, 48, 54, 60, 66, 72, 78, 84, 90);
    const __mmask64 low = 0x1111111111111111ull;
    for (int j = 0; j < 3; j++) {
        __m512 smin = _mm512_cvtepi32_ps(_mm512_maskz_permutex2var_epi8(low, lo, _mm512_add_epi32(six, _mm512_set1_epi32(j)), hi));
        __m512 sext = _mm512_cvtepi32_ps(_mm512_maskz_permutex2var_epi8(low, lo, _mm512_add_epi32(six, _mm512_set1_epi32(3 + j)), hi));
        /* stored component j is the clip range's j + (j >= d) */
        __mmask16 up = _mm512_cmple_epi32_mask(k->d, _mm512_set1_epi32(j));
        __m512 cmin = _mm512_mask_blend_ps(up, _mm512_loadu_ps(cr + 16 * j), _mm512_loadu_ps(cr + 16 * (j + 1)));
        __m512 cext = _mm512_mask_blend_ps(up, _mm512_loadu_ps(cr + 64 + 16 * j), _mm512_loadu_ps(cr + 64 + 16 * (j + 1)));
        k->off[j] = _mm512_fmadd_ps(cext, smin, cmin);
        k->sc[j] = _mm512_mul_ps(_mm512_mul_ps(cext, sext), inv);
    }
}

/* Each track's first bit in the frame: base plus the widths (3b) of the
 * tracks before it in the block (a prefix sum); base moves past the block. */
__attribute__((always_inline)) static inline __m512i cc_blk_pos(__m512i b, __m512i *base) {
    const __m512i z = _mm512_setzero_si512();
    __m512i b3 = _mm512_add_epi32(b, _mm512_add_epi32(b, b)), x = b3;
    x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 15));
    x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 14));
    x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 12));
    x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 8));
    __m512i p = _mm512_add_epi32(*base, _mm512_sub_epi32(x, b3));
    *base = _mm512_add_epi32(*base, _mm512_permutexvar_epi32(_mm512_set1_epi32(15), x));
    return p;
}

/* CC_REP8[h]: byte 8l + m = the low byte of dword lane 8h + l. */
static const uint8_t CC_REP8[2][64] __attribute__((aligned(64))) = {
    {0,  0,  0,  0,  0,  0,  0,  0,  4,  4,  4,  4,  4,  4,  4,  4,  8,  8,  8,  8,  8,  8,  8,  8,  12, 12, 12, 12, 12, 12, 12, 12,
     16, 16, 16, 16, 16, 16, 16, 16, 20, 20, 20, 20, 20, 20, 20, 20, 24, 24, 24, 24, 24, 24, 24, 24, 28, 28, 28, 28, 28, 28, 28, 28},
    {32, 32, 32, 32, 32, 32, 32, 32, 36, 36, 36, 36, 36, 36, 36, 36, 40, 40, 40, 40, 40, 40, 40, 40, 44, 44, 44, 44, 44, 44, 44, 44,
     48, 48, 48, 48, 48, 48, 48, 48, 52, 52, 52, 52, 52, 52, 52, 52, 56, 56, 56, 56, 56, 56, 56, 56, 60, 60, 60, 60, 60, 60, 60, 60}};

/* The block's three stored components of one frame: fields at bit
 * positions p (widths b) of bits, decoded by the terms k. wide: a track at 23
 * bits (3b + 7 > 64): one read per component. end: the blob's end (no read past
 * it). Lanes outside kn are not read from memory. */
__attribute__((always_inline)) static inline void cc_blk_values(const uint8_t *bits, const uint8_t *end, __m512i p,
                                                                const cc_blk *k, __mmask16 kn, bool wide, __m512 *x) {
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30), seven = _mm512_set1_epi32(7);
    const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi32(1);
    __m512i m = _mm512_sub_epi32(_mm512_sllv_epi32(one, k->b), one), f[2][3];
    __m256i blo = _mm512_castsi512_si256(k->b), bhi = _mm512_extracti64x4_epi64(k->b, 1);
    if (!wide) {
        /* the block's bits (at most 16 x 57 + 7 bits: 115 bytes) in two registers, each track's
         * 8 bytes picked from them by a byte permute */
        __m512i idx = _mm512_srli_epi32(p, 3), sh = _mm512_and_si512(p, seven);
        uint32_t start = (uint32_t)_mm_cvtsi128_si32(_mm512_castsi512_si128(idx));
        const uint8_t *src = bits + start;
        __m512i lo, hi;
        if (end - src >= 128) lo = _mm512_loadu_si512((const void *)src), hi = _mm512_loadu_si512((const void *)(src + 64));
        else {
            size_t left = (size_t)(end - src);
            lo = _mm512_maskz_loadu_epi8(left >= 64 ? ~0ull : (1ull << left) - 1u, src);
            hi = _mm512_maskz_loadu_epi8(left >= 128 ? ~0ull : left > 64 ? (1ull << (left - 64)) - 1u : 0, src + 64);
        }
        __m512i o = _mm512_sub_epi32(idx, _mm512_set1_epi32((int)start));
        const __m512i inc = _mm512_set1_epi64(0x0706050403020100ll);
        for (int h = 0; h < 2; h++) {
            const __m512i rep = _mm512_load_si512((const void *)CC_REP8[h]);
            __m512i g = _mm512_permutex2var_epi8(lo, _mm512_add_epi8(_mm512_permutexvar_epi8(rep, o), inc), hi);
            __m512i s = _mm512_cvtepu32_epi64(h ? _mm512_extracti64x4_epi64(sh, 1) : _mm512_castsi512_si256(sh));
            __m512i bb = _mm512_cvtepu32_epi64(h ? bhi : blo);
            f[h][0] = _mm512_srlv_epi64(g, s);
            s = _mm512_add_epi64(s, bb);
            f[h][1] = _mm512_srlv_epi64(g, s);
            s = _mm512_add_epi64(s, bb);
            f[h][2] = _mm512_srlv_epi64(g, s);
        }
    } else {
        __m512i pk = p;
        for (int j = 0; j < 3; j++, pk = _mm512_add_epi32(pk, k->b)) {
            __m512i idx = _mm512_srli_epi32(pk, 3), sh = _mm512_and_si512(pk, seven);
            for (int h = 0; h < 2; h++) {
                __m256i ih = h ? _mm512_extracti64x4_epi64(idx, 1) : _mm512_castsi512_si256(idx);
                __m512i g = _mm512_mask_i32gather_epi64(zero, (__mmask8)(kn >> (8 * h)), ih, (const void *)bits, 1);
                f[h][j] = _mm512_srlv_epi64(g, _mm512_cvtepu32_epi64(h ? _mm512_extracti64x4_epi64(sh, 1) : _mm512_castsi512_si256(sh)));
            }
        }
    }
    for (int j = 0; j < 3; j++) {
        __m512i q = _mm512_and_si512(_mm512_permutex2var_epi32(f[0][j], even, f[1][j]), m);
        x[j] = _mm512_fmadd_ps(k->sc[j], _mm512_cvtepi32_ps(q), k->off[j]); /* sk_cc_value */
    }
}

/* The rows of a block (lanes kn) to the buffers: rotation lanes kr at *nr, the others at *nv. */
__attribute__((always_inline)) static inline void cc_blk_split(cc_rowbuf *w, const __m512 *x0, const __m512 *x1,
                                                               __m512i d0, __m512i d1, __mmask16 kn, __mmask16 kr,
                                                               uint32_t *nr, uint32_t *nv) {
    __mmask16 kv = (__mmask16)(kn & ~kr);
    /* lanes past the block's tracks stored as zeros (a dropped component 0: they rebuild as 1, 0, 0, 0) */
    if (kr == kn) { /* rotations only (the data order puts them first: one kind per block but one) */
        for (int j = 0; j < 3; j++)
            _mm512_storeu_ps(w->ra[j] + *nr, _mm512_maskz_mov_ps(kn, x0[j])), _mm512_storeu_ps(w->rb[j] + *nr, _mm512_maskz_mov_ps(kn, x1[j]));
        _mm512_storeu_si512((void *)(w->d0 + *nr), _mm512_maskz_mov_epi32(kn, d0));
        _mm512_storeu_si512((void *)(w->d1 + *nr), _mm512_maskz_mov_epi32(kn, d1));
    } else if (!kr) {
        for (int j = 0; j < 3; j++)
            _mm512_storeu_ps(w->va[j] + *nv, _mm512_maskz_mov_ps(kn, x0[j])), _mm512_storeu_ps(w->vb[j] + *nv, _mm512_maskz_mov_ps(kn, x1[j]));
    } else {
        for (int j = 0; j < 3; j++) {
            _mm512_storeu_ps(w->ra[j] + *nr, _mm512_maskz_compress_ps(kr, x0[j]));
            _mm512_storeu_ps(w->rb[j] + *nr, _mm512_maskz_compress_ps(kr, x1[j]));
            _mm512_storeu_ps(w->va[j] + *nv, _mm512_maskz_compress_ps(kv, x0[j]));
            _mm512_storeu_ps(w->vb[j] + *nv, _mm512_maskz_compress_ps(kv, x1[j]));
        }
        _mm512_storeu_si512((void *)(w->d0 + *nr), _mm512_maskz_compress_epi32(kr, d0));
        _mm512_storeu_si512((void *)(w->d1 + *nr), _mm512_maskz_compress_epi32(kr, d1));
    }
    *nr += (uint32_t)__builtin_popcount(kr), *nv += (uint32_t)__builtin_popcount(kv);
}

/* The rows decoder's state from chunk to chunk: the frames' bit positions, sixteen lanes. */
typedef struct cc_rows_state {
    __m512i base0, base1, fbits;
} cc_rows_state;
__attribute__((always_inline)) static inline void cc_rows_start(cc_rows_state *st, const cc_cursor *s0, const cc_cursor *s1) {
    st->fbits = _mm512_set1_epi32((int)(s1->pos - s0->pos));
    st->base0 = _mm512_set1_epi32((int)s0->pos), st->base1 = _mm512_set1_epi32((int)s1->pos);
}

/* Animated tracks [a, a + n) of both frames into w, sixteen at a time;
 * only: 1 frame 1's alone, 2 frame 0's alone (both halves of w hold it).
 * In two phases, as the AVX2 decoder (cc_terms8_chunk there): every block's
 * terms and bit positions, then the values. */
__attribute__((always_inline)) static inline void cc_rows_chunk(cc_rows_state *st, const sk_clip *c, const cc_cursor *s0,
                                                                const cc_cursor *s1, uint32_t a, uint32_t n, bool same,
                                                                int only, const uint8_t *end, cc_rowbuf *w) {
    cc_blk B[2][CC_CHUNK / 16];
    __m512i P[2][CC_CHUNK / 16];
    uint32_t wide[2] = {0, 0};
    for (uint32_t o = 0; o < n; o += 16) {
        uint32_t m = n - o < 16 ? n - o : 16, blk = (a + o) / 16, i = o / 16;
        __mmask16 kn = (__mmask16)((1u << m) - 1u);
        const float *cr = c->cc.rrows + 128u * blk;
        for (int f = only ? 1 : 0; f < (only || !same ? 2 : 1); f++) {
            const cc_cursor *q = only ? (only == 1 ? s1 : s0) : f ? s1 : s0;
            cc_blk_coef(cr, q->rates + a + o, q->ranges + 6u * (a + o), m, &B[f][i]);
            if (_mm512_mask_cmpeq_epi32_mask(kn, B[f][i].lvl, _mm512_set1_epi32(15))) wide[f] |= 1u << i;
            P[f][i] = cc_blk_pos(B[f][i].b, only == 2 || (!only && !f) ? &st->base0 : &st->base1);
        }
    }
    uint32_t r = 0, v = 0;
    for (uint32_t o = 0; o < n; o += 16) {
        uint32_t m = n - o < 16 ? n - o : 16, blk = (a + o) / 16, i = o / 16;
        __mmask16 kn = (__mmask16)((1u << m) - 1u), kr = (__mmask16)(c->cc.rmask[blk] & kn);
        __m512 x0[3], x1[3];
        if (only) { /* one frame */
            cc_blk_values((only == 1 ? s1 : s0)->bits, end, P[1][i], &B[1][i], kn, wide[1] >> i & 1u, x1);
            cc_blk_split(w, x1, x1, B[1][i].d, B[1][i].d, kn, kr, &r, &v);
            continue;
        }
        bool wide0 = wide[0] >> i & 1u;
        cc_blk_values(s0->bits, end, P[0][i], &B[0][i], kn, wide0, x0);
        if (same) cc_blk_values(s0->bits, end, _mm512_add_epi32(P[0][i], st->fbits), &B[0][i], kn, wide0, x1);
        else cc_blk_values(s1->bits, end, P[1][i], &B[1][i], kn, wide[1] >> i & 1u, x1);
        cc_blk_split(w, x0, x1, B[0][i].d, same ? B[0][i].d : B[1][i].d, kn, kr, &r, &v);
    }
}

#define CC_ROWS_CACHED sk_cclip_sample_rows_cached
#define CC_ROWS_PLAIN sk_cclip_sample_rows_plain
#define CC_LOADZ_PS(p, n) _mm256_maskz_loadu_ps((__mmask8)((1u << (n)) - 1u), (p))
#define CC_LOADZ_EPI32(p, n) _mm256_maskz_loadu_epi32((__mmask8)((1u << (n)) - 1u), (p))
#include "core/clip_compressed_rows_body.h"
#endif
