/* The rows decoder of compressed clips for AVX2 (chosen at run time where
 * the CPU has AVX2 and FMA, for clips of 16 animated tracks or more, but 24
 * or more where it has AVX-512 VBMI: sk_clip_from_compressed,
 * clip_compressed_sample.c). The
 * whole file is compiled for those instructions (CMakeLists.txt: -mavx2
 * -mfma), so nothing in it may run but through that choice. Contraction stays
 * off (the pragma, -ffp-contract=off): every fused multiply-add is an
 * intrinsic matching the scalar decoder's fmaf. */
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
#if !defined(__AVX2__) || !defined(__FMA__)
#error "clip_compressed_rows_avx2.c is compiled with -mavx2 -mfma (CMakeLists.txt)"
#endif

/* ---- The rows decoder at AVX2: eight tracks per register ----
 * The AVX-512 rows decoder (clip_compressed_rows.c) with 256-bit registers:
 * a block of sixteen animated tracks (the plan's clip-range rows and rotation
 * mask are per sixteen) is decoded as two halves of eight, one register per
 * stored component. What AVX2 lacks is replaced: the byte permute that picks
 * each track's eight bytes of bits (VBMI) by eight 64-bit reads at the
 * tracks' byte positions; the segment ranges' bytes by in-lane byte shuffles
 * of two overlapping loads; the 16-entry tables by a byte shuffle (bits) and
 * two permutes and a blend (1 / (2^b - 1)); masked loads and stores by
 * lane-mask loads and full-width stores into the chunk's buffers. The same
 * float operations in the same order as cc_read2 and sk_cc_qlerp: the same
 * bits. */

/* One half block's per-track decoding terms of one segment. */
typedef struct cc_blk8 {
    __m256i lvl, d, b;     /* bit-rate level, dropped component, bits per component */
    __m256 off[3], sc[3]; /* sk_cc_coef per stored component */
} cc_blk8;

/* The lanes [0, n) as all-ones. */
static inline __m256i cc_lanes8(uint32_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* The terms of tracks [0, n) (n <= 8) from the segment's rates and range
 * bytes at the half block's first track and its clip-range rows cr (the
 * plan's rows of sixteen lanes, at the half's first). Lanes past n: level 0,
 * 0 bits. */
__attribute__((always_inline)) static inline void cc_blk8_coef(const float *cr, const uint8_t *rates, const uint8_t *sr, uint32_t n,
                                                               const uint8_t *end, cc_blk8 *k) {
    uint64_t rw = 0;
    uint8_t tmp[48];
    if (end - rates >= 8) memcpy(&rw, rates, 8); /* rates are followed by the segment's ranges */
    else memcpy(&rw, rates, n);
    __m256i r = _mm256_and_si256(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)rw)), cc_lanes8(n));
    k->lvl = _mm256_and_si256(r, _mm256_set1_epi32(15));
    k->d = _mm256_srli_epi32(r, 4);
    /* SK_CC_BITS[lvl]: a byte shuffle (the upper three bytes of each lane cleared) */
    __m256i bt = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)SK_CC_BITS));
    k->b = _mm256_shuffle_epi8(bt, _mm256_or_si256(k->lvl, _mm256_set1_epi32((int)0x80808000u)));
    __m256 inv = _mm256_blendv_ps(_mm256_permutevar8x32_ps(_mm256_loadu_ps(SK_CC_INV), k->lvl),
                                  _mm256_permutevar8x32_ps(_mm256_loadu_ps(SK_CC_INV + 8), k->lvl),
                                  _mm256_castsi256_ps(_mm256_slli_epi32(k->lvl, 28)));
    /* the six range bytes of track i (bytes 6i..6i+5): two loads whose 128-bit halves hold
     * tracks 0-1 | 4-5 (X) and 2-3 | 6-7 (Y, 8 bytes further), shuffled to bytes 0-3 of
     * each lane (A) and bytes 4-5 (B) */
    const uint8_t *q = sr;
    if (end - sr < 48) {
        memset(tmp, 0, sizeof tmp);
        memcpy(tmp, sr, 6u * n);
        q = tmp;
    }
    __m256i X = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)q)),
                                        _mm_loadu_si128((const __m128i *)(const void *)(q + 24)), 1);
    __m256i Y = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(q + 8))),
                                        _mm_loadu_si128((const __m128i *)(const void *)(q + 32)), 1);
    const __m256i xa = _mm256_setr_epi8(0, 1, 2, 3, 6, 7, 8, 9, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 2, 3, 6, 7, 8, 9, -1, -1, -1, -1,
                                        -1, -1, -1, -1);
    const __m256i ya = _mm256_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, 4, 5, 6, 7, 10, 11, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1, 4,
                                        5, 6, 7, 10, 11, 12, 13);
    const __m256i xb = _mm256_setr_epi8(4, 5, -1, -1, 10, 11, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 4, 5, -1, -1, 10, 11, -1, -1, -1,
                                        -1, -1, -1, -1, -1, -1, -1);
    const __m256i yb = _mm256_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, 8, 9, -1, -1, 14, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                        8, 9, -1, -1, 14, 15, -1, -1);
    __m256i A = _mm256_or_si256(_mm256_shuffle_epi8(X, xa), _mm256_shuffle_epi8(Y, ya));
    __m256i B = _mm256_or_si256(_mm256_shuffle_epi8(X, xb), _mm256_shuffle_epi8(Y, yb));
    const __m256i ff = _mm256_set1_epi32(255);
    __m256i smin[3] = {_mm256_and_si256(A, ff), _mm256_and_si256(_mm256_srli_epi32(A, 8), ff),
                       _mm256_and_si256(_mm256_srli_epi32(A, 16), ff)};
    __m256i sext[3] = {_mm256_srli_epi32(A, 24), _mm256_and_si256(B, ff), _mm256_srli_epi32(B, 8)};
    /* every lane drops w or is a translation or scale (d 3: most blocks): no blends */
    bool d3 = _mm256_testc_si256(_mm256_cmpeq_epi32(k->d, _mm256_set1_epi32(3)), _mm256_set1_epi32(-1));
    for (int j = 0; j < 3; j++) {
        /* stored component j is the clip range's j + (j >= d) */
        __m256 cmin = _mm256_loadu_ps(cr + 16 * j), cext = _mm256_loadu_ps(cr + 64 + 16 * j);
        if (!d3) {
            __m256 up = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(j + 1), k->d));
            cmin = _mm256_blendv_ps(cmin, _mm256_loadu_ps(cr + 16 * (j + 1)), up);
            cext = _mm256_blendv_ps(cext, _mm256_loadu_ps(cr + 64 + 16 * (j + 1)), up);
        }
        k->off[j] = _mm256_fmadd_ps(cext, _mm256_cvtepi32_ps(smin[j]), cmin);
        k->sc[j] = _mm256_mul_ps(_mm256_mul_ps(cext, _mm256_cvtepi32_ps(sext[j])), inv);
    }
}

/* Each track's first bit in the frame: base plus the widths (3b) of the
 * tracks before it in the half block (a prefix sum); base moves past it. */
__attribute__((always_inline)) static inline __m256i cc_blk8_pos(__m256i b, __m256i *base) {
    __m256i b3 = _mm256_add_epi32(b, _mm256_add_epi32(b, b)), x = b3;
    x = _mm256_add_epi32(x, _mm256_slli_si256(x, 4));
    x = _mm256_add_epi32(x, _mm256_slli_si256(x, 8));
    /* the low half's sum to the high half's lanes */
    x = _mm256_add_epi32(x, _mm256_blend_epi32(_mm256_setzero_si256(),
                                               _mm256_permutevar8x32_epi32(x, _mm256_set1_epi32(3)), 0xF0));
    __m256i p = _mm256_add_epi32(*base, _mm256_sub_epi32(x, b3));
    *base = _mm256_add_epi32(*base, _mm256_permutevar8x32_epi32(x, _mm256_set1_epi32(7)));
    return p;
}

/* Eight bytes of bits at each lane's byte index idx: tracks 0, 1, 4, 5 in
 * *g0 and 2, 3, 6, 7 in *g1 (the order in which an in-lane shuffle of the two
 * puts their low words back in track order). Nothing is read past end. */
__attribute__((always_inline)) static inline void cc_blk8_read(const uint8_t *bits, const uint8_t *end, __m256i idx, __m256i *g0,
                                                               __m256i *g1) {
    uint32_t ix[8];
    uint64_t v[8];
    _mm256_storeu_si256((__m256i *)(void *)ix, idx);
    if (end - bits >= (ptrdiff_t)ix[7] + 8) /* lane 7's index is the largest */
        for (int l = 0; l < 8; l++) v[l] = sk_cc_u64(bits + ix[l]);
    else
        for (int l = 0; l < 8; l++) {
            ptrdiff_t left = end - (bits + ix[l]);
            v[l] = 0;
            if (left > 0) memcpy(&v[l], bits + ix[l], left < 8 ? (size_t)left : 8u);
        }
    *g0 = _mm256_setr_epi64x((long long)v[0], (long long)v[1], (long long)v[4], (long long)v[5]);
    *g1 = _mm256_setr_epi64x((long long)v[2], (long long)v[3], (long long)v[6], (long long)v[7]);
}

/* Stored component j of the half block from its fields shifted down in f0
 * (tracks 0, 1, 4, 5) and f1 (2, 3, 6, 7): back in track order, masked to
 * its width (m) and decoded by the terms k (sk_cc_value). */
__attribute__((always_inline)) static inline __m256 cc_blk8_field(__m256i f0, __m256i f1, __m256i m, const cc_blk8 *k, int j) {
    __m256i q = _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(f0), _mm256_castsi256_ps(f1), 0x88));
    return _mm256_fmadd_ps(k->sc[j], _mm256_cvtepi32_ps(_mm256_and_si256(q, m)), k->off[j]);
}

/* The half block's three stored components of one frame: fields at bit
 * positions p (widths b) of bits, decoded by the terms k. wide: a track at 23
 * bits (3b + 7 > 64): one read per component. */
__attribute__((always_inline)) static inline void cc_blk8_values(const uint8_t *bits, const uint8_t *end, __m256i p,
                                                                 const cc_blk8 *k, bool wide, __m256 *x) {
    const __m256i seven = _mm256_set1_epi32(7), zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1);
    __m256i m = _mm256_sub_epi32(_mm256_sllv_epi32(one, k->b), one), f[2][3];
    if (!wide) {
        __m256i g0, g1, sh = _mm256_and_si256(p, seven);
        cc_blk8_read(bits, end, _mm256_srli_epi32(p, 3), &g0, &g1);
        __m256i s0 = _mm256_unpacklo_epi32(sh, zero), s1 = _mm256_unpackhi_epi32(sh, zero);
        __m256i b0 = _mm256_unpacklo_epi32(k->b, zero), b1 = _mm256_unpackhi_epi32(k->b, zero);
        for (int j = 0; j < 3; j++) {
            f[0][j] = _mm256_srlv_epi64(g0, s0), f[1][j] = _mm256_srlv_epi64(g1, s1);
            s0 = _mm256_add_epi64(s0, b0), s1 = _mm256_add_epi64(s1, b1);
        }
    } else {
        __m256i pk = p;
        for (int j = 0; j < 3; j++, pk = _mm256_add_epi32(pk, k->b)) {
            __m256i g0, g1, sh = _mm256_and_si256(pk, seven);
            cc_blk8_read(bits, end, _mm256_srli_epi32(pk, 3), &g0, &g1);
            f[0][j] = _mm256_srlv_epi64(g0, _mm256_unpacklo_epi32(sh, zero));
            f[1][j] = _mm256_srlv_epi64(g1, _mm256_unpackhi_epi32(sh, zero));
        }
    }
    for (int j = 0; j < 3; j++) x[j] = cc_blk8_field(f[0][j], f[1][j], m, k, j);
}

/* cc_blk8_values, not wide, from the bit positions ix as stored (32-byte
 * aligned), for nf frames of one segment (1, or 2: frame 1 f bits after
 * frame 0, into x1; the mask and the widths' lanes once for both). */
__attribute__((always_inline)) static inline void cc_blk8_values_at(const uint8_t *bits, const uint8_t *end, const uint32_t *ix, uint32_t f,
                                                                    int nf, const cc_blk8 *k, __m256 *x0, __m256 *x1) {
    __m256i p = _mm256_load_si256((const __m256i *)(const void *)ix);
    const __m256i seven = _mm256_set1_epi32(7), zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1);
    __m256i m = _mm256_sub_epi32(_mm256_sllv_epi32(one, k->b), one);
    __m256i b0 = _mm256_unpacklo_epi32(k->b, zero), b1 = _mm256_unpackhi_epi32(k->b, zero);
    /* ix: the bit positions as the first phase stored them, read as scalars (cheaper than eight
     * extracts) for the reads' addresses of both frames */
    if (end - bits < (ptrdiff_t)((ix[7] + f) >> 3) + 8) { /* at the blob's end (its 8 zero bytes make this rare) */
        cc_blk8_values(bits, end, p, k, false, x0);
        if (nf == 2) cc_blk8_values(bits, end, _mm256_add_epi32(p, _mm256_set1_epi32((int)f)), k, false, x1);
        return;
    }
#define CC_LD2(a, b) \
    _mm_castpd_si128(_mm_loadh_pd(_mm_castsi128_pd(_mm_loadl_epi64((const __m128i *)(const void *)(a))), (const double *)(const void *)(b)))
#define CC_AT(l, o) (bits + ((ix[l] + (o)) >> 3))
    for (int fr = 0; fr < nf; fr++) {
        uint32_t o = fr ? f : 0;
        __m256i q = fr ? _mm256_add_epi32(p, _mm256_set1_epi32((int)f)) : p, sh = _mm256_and_si256(q, seven);
        __m256 *x = fr ? x1 : x0;
        /* tracks 0, 1, 4, 5 in g0 and 2, 3, 6, 7 in g1: an in-lane shuffle of the two puts their low words in track order */
        __m256i g0 = _mm256_inserti128_si256(_mm256_castsi128_si256(CC_LD2(CC_AT(0, o), CC_AT(1, o))), CC_LD2(CC_AT(4, o), CC_AT(5, o)), 1);
        __m256i g1 = _mm256_inserti128_si256(_mm256_castsi128_si256(CC_LD2(CC_AT(2, o), CC_AT(3, o))), CC_LD2(CC_AT(6, o), CC_AT(7, o)), 1);
        __m256i s0 = _mm256_unpacklo_epi32(sh, zero), s1 = _mm256_unpackhi_epi32(sh, zero);
        for (int j = 0; j < 3; j++) {
            x[j] = cc_blk8_field(_mm256_srlv_epi64(g0, s0), _mm256_srlv_epi64(g1, s1), m, k, j);
            s0 = _mm256_add_epi64(s0, b0), s1 = _mm256_add_epi64(s1, b1);
        }
    }
#undef CC_AT
#undef CC_LD2
}

/* The rows of a half block of n tracks to the buffers: the lanes whose bit
 * is set in kr (rotations) at *nr, the others at *nv. Lanes past n are
 * stored too (the consumers read up to the counts). */
__attribute__((always_inline)) static inline void cc_blk8_split(cc_rowbuf *w, const __m256 *x0, const __m256 *x1, __m256i d0,
                                                                __m256i d1, uint32_t n, uint32_t kr, uint32_t *nr, uint32_t *nv) {
    uint32_t kn = (1u << n) - 1u, cr = (uint32_t)__builtin_popcount(kr);
    if (kr == kn) { /* rotations only (the data order puts them first: one kind per block but one) */
        for (int j = 0; j < 3; j++) _mm256_storeu_ps(w->ra[j] + *nr, x0[j]), _mm256_storeu_ps(w->rb[j] + *nr, x1[j]);
        _mm256_storeu_si256((__m256i *)(void *)(w->d0 + *nr), d0);
        _mm256_storeu_si256((__m256i *)(void *)(w->d1 + *nr), d1);
    } else if (!kr) {
        for (int j = 0; j < 3; j++) _mm256_storeu_ps(w->va[j] + *nv, x0[j]), _mm256_storeu_ps(w->vb[j] + *nv, x1[j]);
    } else { /* the half block where the rotations end: lane by lane */
        float a[3][8], b[3][8];
        int32_t e0[8], e1[8];
        for (int j = 0; j < 3; j++) _mm256_storeu_ps(a[j], x0[j]), _mm256_storeu_ps(b[j], x1[j]);
        _mm256_storeu_si256((__m256i *)(void *)e0, d0), _mm256_storeu_si256((__m256i *)(void *)e1, d1);
        uint32_t r = *nr, v = *nv;
        for (uint32_t l = 0; l < n; l++) {
            if (kr >> l & 1u) {
                for (int j = 0; j < 3; j++) w->ra[j][r] = a[j][l], w->rb[j][r] = b[j][l];
                w->d0[r] = e0[l], w->d1[r] = e1[l], r++;
            } else {
                for (int j = 0; j < 3; j++) w->va[j][v] = a[j][l], w->vb[j][v] = b[j][l];
                v++;
            }
        }
    }
    *nr += cr, *nv += n - cr;
}

/* The state from chunk to chunk: the frames' bit positions, eight lanes. */
typedef struct cc_rows_state {
    __m256i base0, base1;
    uint32_t f; /* frame 1's first bit after frame 0's */
} cc_rows_state;
__attribute__((always_inline)) static inline void cc_rows_start(cc_rows_state *st, const cc_cursor *s0, const cc_cursor *s1) {
    st->f = (uint32_t)(s1->pos - s0->pos);
    st->base0 = _mm256_set1_epi32((int)s0->pos), st->base1 = _mm256_set1_epi32((int)s1->pos);
}

/* A chunk's first phase: each half block's terms (cc_blk8_coef) and the
 * bit positions of its tracks (cc_blk8_pos: st's bases move past it), for
 * frame 0 in k[0], p[0] and, where the frames are in two segments or one
 * frame is decoded alone (only: its own), in k[1], p[1]; wide[f] bit i: half
 * block i has a track at 23 bits. Apart from the reads of the values (the
 * second phase, cc_blk8_at), which then start at once from positions already
 * in memory: when each half block went from its terms to its values in one
 * pass, its reads waited for its terms, and a half block is about as many
 * instructions as the processor looks ahead (the 128-joint clip sampled
 * 17-18 % slower). */
typedef struct cc_terms8 {
    cc_blk8 k[2][CC_CHUNK / 8];
    uint32_t p[2][CC_CHUNK / 8][8] __attribute__((aligned(32)));
    uint32_t wide[2];
} cc_terms8;
__attribute__((always_inline)) static inline void cc_terms8_frame(const float *cr, const cc_cursor *q, uint32_t t, uint32_t m,
                                                                  const uint8_t *end, __m256i *base, cc_terms8 *T, int f, uint32_t i) {
    cc_blk8_coef(cr, q->rates + t, q->ranges + 6u * t, m, end, &T->k[f][i]);
    if (_mm256_movemask_epi8(_mm256_cmpeq_epi32(T->k[f][i].lvl, _mm256_set1_epi32(15)))) T->wide[f] |= 1u << i;
    _mm256_store_si256((__m256i *)(void *)T->p[f][i], cc_blk8_pos(T->k[f][i].b, base));
}
__attribute__((always_inline)) static inline void cc_terms8_chunk(cc_rows_state *st, const sk_clip *c, const cc_cursor *s0,
                                                                  const cc_cursor *s1, uint32_t a, uint32_t n, bool same, int only,
                                                                  const uint8_t *end, cc_terms8 *T) {
    T->wide[0] = T->wide[1] = 0;
    for (uint32_t o = 0; o < n; o += 8) {
        uint32_t m = n - o < 8 ? n - o : 8, t = a + o;
        const float *cr = c->cc.rrows + 128u * (t / 16u) + 8u * (t / 8u % 2u);
        if (only) cc_terms8_frame(cr, only == 1 ? s1 : s0, t, m, end, only == 1 ? &st->base1 : &st->base0, T, 1, o / 8);
        else {
            cc_terms8_frame(cr, s0, t, m, end, &st->base0, T, 0, o / 8);
            if (!same) cc_terms8_frame(cr, s1, t, m, end, &st->base1, T, 1, o / 8);
        }
    }
}

/* One frame's values of half block i from terms and positions f (0 or 1)
 * of T, its bits at bits. */
__attribute__((always_inline)) static inline void cc_blk8_one(const cc_terms8 *T, int f, uint32_t i, const uint8_t *bits,
                                                              const uint8_t *end, __m256 *x) {
    if (T->wide[f] >> i & 1u)
        cc_blk8_values(bits, end, _mm256_load_si256((const __m256i *)(const void *)T->p[f][i]), &T->k[f][i], true, x);
    else cc_blk8_values_at(bits, end, T->p[f][i], 0, 1, &T->k[f][i], x, NULL);
}

/* A chunk's second phase for half block i: the stored components of both
 * frames x0, x1 and their dropped components d0, d1 (only: frame only's in
 * x1 and d1 alone). */
__attribute__((always_inline)) static inline void cc_blk8_at(const cc_terms8 *T, uint32_t i, const cc_cursor *s0, const cc_cursor *s1,
                                                             bool same, int only, uint32_t f, const uint8_t *end, __m256 *x0,
                                                             __m256 *x1, __m256i *d0, __m256i *d1) {
    if (only) {
        cc_blk8_one(T, 1, i, (only == 1 ? s1 : s0)->bits, end, x1);
        *d1 = T->k[1][i].d;
        return;
    }
    const cc_blk8 *k = &T->k[0][i];
    *d0 = *d1 = k->d;
    if (same && !(T->wide[0] >> i & 1u)) cc_blk8_values_at(s0->bits, end, T->p[0][i], f, 2, k, x0, x1);
    else if (same) {
        __m256i p0 = _mm256_load_si256((const __m256i *)(const void *)T->p[0][i]);
        cc_blk8_values(s0->bits, end, p0, k, true, x0);
        cc_blk8_values(s0->bits, end, _mm256_add_epi32(p0, _mm256_set1_epi32((int)f)), k, true, x1);
    } else {
        cc_blk8_one(T, 0, i, s0->bits, end, x0);
        cc_blk8_one(T, 1, i, s1->bits, end, x1);
        *d1 = T->k[1][i].d;
    }
}

/* Animated tracks [a, a + n) of both frames into w, eight at a time; only:
 * 1 frame 1's alone, 2 frame 0's alone (both halves of w hold it). */
__attribute__((always_inline)) static inline void cc_rows_chunk(cc_rows_state *st, const sk_clip *c, const cc_cursor *s0,
                                                                const cc_cursor *s1, uint32_t a, uint32_t n, bool same,
                                                                int only, const uint8_t *end, cc_rowbuf *w) {
    cc_terms8 T;
    cc_terms8_chunk(st, c, s0, s1, a, n, same, only, end, &T);
    uint32_t r = 0, v = 0;
    for (uint32_t o = 0; o < n; o += 8) {
        uint32_t m = n - o < 8 ? n - o : 8, t = a + o, half = 8u * (t / 8u % 2u);
        uint32_t kr = (c->cc.rmask[t / 16u] >> half) & ((1u << m) - 1u);
        __m256 x0[3], x1[3];
        __m256i d0, d1;
        cc_blk8_at(&T, o / 8, s0, s1, same, only, st->f, end, x0, x1, &d0, &d1);
        if (only) cc_blk8_split(w, x1, x1, d1, d1, m, kr, &r, &v);
        else cc_blk8_split(w, x0, x1, d0, d1, m, kr, &r, &v);
    }
}

#define CC_ROWS_CACHED sk_cclip_sample_rows8_cached
#define CC_ROWS_PLAIN sk_cclip_sample_rows8_plain
#define CC_ROWS_DIRECT8 1 /* cc_terms8_chunk and cc_blk8_at: a plain decoding's whole groups straight from registers */
#define CC_LOADZ_PS(p, n) ((n) == 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps((p), cc_lanes8(n))) /* a plain load when whole */
#define CC_LOADZ_EPI32(p, n) ((n) == 8 ? _mm256_loadu_si256((const __m256i *)(const void *)(p)) : _mm256_maskload_epi32((const int *)(p), cc_lanes8(n)))
#include "core/clip_compressed_rows_body.h"
#endif
