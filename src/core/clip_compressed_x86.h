/* Private: the parts the SIMD decoders share (clip_compressed_avx2.c,
 * clip_compressed_avx512.c, clip_compressed_rows.c): the AVX2 decoder's
 * tables, the rotations' interpolation eight at a time, the stores into a
 * pose, a cursor's cache and the AVX2 decoder's sample body (which the
 * AVX-512 file compiles again for its own instructions). Inline functions
 * compiled by each includer for its own CPU target; every float operation
 * an intrinsic (no contraction: the includers' FP_CONTRACT pragma, C11 mode
 * on GCC). Included after clip_compressed_internal.h, x86-64 only. Not
 * installed. */
#ifndef SKELANIM_CLIP_COMPRESSED_X86_H
#define SKELANIM_CLIP_COMPRESSED_X86_H

#include "core/clip_compressed_internal.h"

#if defined(SK_CC_AVX2)
/* Tables of the AVX2 decoder (in-lane permutes and blends), by the dropped
 * component d0 of frame 0 (lanes 0-3) and d1 of frame 1 (lanes 4-7): the
 * clip range's component for stored component k is k + (k >= d); output
 * component j takes stored lane j - (j > d); lane d (-1) is the dropped one.
 * By bit-rate level: CC_LV below. */
static const int32_t CC_STORED[4][4][8] =
    {{{1, 2, 3, 3, 1, 2, 3, 3}, {1, 2, 3, 3, 0, 2, 3, 3}, {1, 2, 3, 3, 0, 1, 3, 3}, {1, 2, 3, 3, 0, 1, 2, 3}},
     {{0, 2, 3, 3, 1, 2, 3, 3}, {0, 2, 3, 3, 0, 2, 3, 3}, {0, 2, 3, 3, 0, 1, 3, 3}, {0, 2, 3, 3, 0, 1, 2, 3}},
     {{0, 1, 3, 3, 1, 2, 3, 3}, {0, 1, 3, 3, 0, 2, 3, 3}, {0, 1, 3, 3, 0, 1, 3, 3}, {0, 1, 3, 3, 0, 1, 2, 3}},
     {{0, 1, 2, 3, 1, 2, 3, 3}, {0, 1, 2, 3, 0, 2, 3, 3}, {0, 1, 2, 3, 0, 1, 3, 3}, {0, 1, 2, 3, 0, 1, 2, 3}}};
static const int32_t CC_PLACE[4][4][8] =
    {{{0, 0, 1, 2, 0, 0, 1, 2}, {0, 0, 1, 2, 0, 0, 1, 2}, {0, 0, 1, 2, 0, 1, 0, 2}, {0, 0, 1, 2, 0, 1, 2, 0}},
     {{0, 0, 1, 2, 0, 0, 1, 2}, {0, 0, 1, 2, 0, 0, 1, 2}, {0, 0, 1, 2, 0, 1, 0, 2}, {0, 0, 1, 2, 0, 1, 2, 0}},
     {{0, 1, 0, 2, 0, 0, 1, 2}, {0, 1, 0, 2, 0, 0, 1, 2}, {0, 1, 0, 2, 0, 1, 0, 2}, {0, 1, 0, 2, 0, 1, 2, 0}},
     {{0, 1, 2, 0, 0, 0, 1, 2}, {0, 1, 2, 0, 0, 0, 1, 2}, {0, 1, 2, 0, 0, 1, 0, 2}, {0, 1, 2, 0, 0, 1, 2, 0}}};
static const int32_t CC_LANE[4][4][8] =
    {{{-1, 0, 0, 0, -1, 0, 0, 0}, {-1, 0, 0, 0, 0, -1, 0, 0}, {-1, 0, 0, 0, 0, 0, -1, 0}, {-1, 0, 0, 0, 0, 0, 0, -1}},
     {{0, -1, 0, 0, -1, 0, 0, 0}, {0, -1, 0, 0, 0, -1, 0, 0}, {0, -1, 0, 0, 0, 0, -1, 0}, {0, -1, 0, 0, 0, 0, 0, -1}},
     {{0, 0, -1, 0, -1, 0, 0, 0}, {0, 0, -1, 0, 0, -1, 0, 0}, {0, 0, -1, 0, 0, 0, -1, 0}, {0, 0, -1, 0, 0, 0, 0, -1}},
     {{0, 0, 0, -1, -1, 0, 0, 0}, {0, 0, 0, -1, 0, -1, 0, 0}, {0, 0, 0, -1, 0, 0, -1, 0}, {0, 0, 0, -1, 0, 0, 0, -1}}};

/* One row per bit-rate level (both decoders) and per dropped component (the
 * same-segment loop: fewer table bases live in it): per level the
 * three components' shifts, the value mask, SK_CC_INV, and 3b; per dropped component d the clip range's
 * components in stored order, each output component's stored lane and the
 * dropped lane (as CC_STORED, CC_PLACE and CC_LANE with d0 = d1 = d). */
typedef struct cc_level {
    uint64_t shift[4], mask[4];
    float inv[4];
    uint32_t b3, pad[11];
} cc_level;
static const cc_level CC_LV[SK_CC_LEVELS] __attribute__((aligned(32))) = {
    {{0, 0, 0, 0}, {0x0u, 0x0u, 0x0u, 0x0u}, {0.0f, 0.0f, 0.0f, 0.0f}, 0u, {0}},
    {{0, 3, 6, 0}, {0x7u, 0x7u, 0x7u, 0x7u}, {1.0f / 7, 1.0f / 7, 1.0f / 7, 1.0f / 7}, 9u, {0}},
    {{0, 4, 8, 0}, {0xfu, 0xfu, 0xfu, 0xfu}, {1.0f / 15, 1.0f / 15, 1.0f / 15, 1.0f / 15}, 12u, {0}},
    {{0, 5, 10, 0}, {0x1fu, 0x1fu, 0x1fu, 0x1fu}, {1.0f / 31, 1.0f / 31, 1.0f / 31, 1.0f / 31}, 15u, {0}},
    {{0, 6, 12, 0}, {0x3fu, 0x3fu, 0x3fu, 0x3fu}, {1.0f / 63, 1.0f / 63, 1.0f / 63, 1.0f / 63}, 18u, {0}},
    {{0, 7, 14, 0}, {0x7fu, 0x7fu, 0x7fu, 0x7fu}, {1.0f / 127, 1.0f / 127, 1.0f / 127, 1.0f / 127}, 21u, {0}},
    {{0, 8, 16, 0}, {0xffu, 0xffu, 0xffu, 0xffu}, {1.0f / 255, 1.0f / 255, 1.0f / 255, 1.0f / 255}, 24u, {0}},
    {{0, 9, 18, 0}, {0x1ffu, 0x1ffu, 0x1ffu, 0x1ffu}, {1.0f / 511, 1.0f / 511, 1.0f / 511, 1.0f / 511}, 27u, {0}},
    {{0, 10, 20, 0}, {0x3ffu, 0x3ffu, 0x3ffu, 0x3ffu}, {1.0f / 1023, 1.0f / 1023, 1.0f / 1023, 1.0f / 1023}, 30u, {0}},
    {{0, 11, 22, 0}, {0x7ffu, 0x7ffu, 0x7ffu, 0x7ffu}, {1.0f / 2047, 1.0f / 2047, 1.0f / 2047, 1.0f / 2047}, 33u, {0}},
    {{0, 12, 24, 0}, {0xfffu, 0xfffu, 0xfffu, 0xfffu}, {1.0f / 4095, 1.0f / 4095, 1.0f / 4095, 1.0f / 4095}, 36u, {0}},
    {{0, 13, 26, 0}, {0x1fffu, 0x1fffu, 0x1fffu, 0x1fffu}, {1.0f / 8191, 1.0f / 8191, 1.0f / 8191, 1.0f / 8191}, 39u, {0}},
    {{0, 14, 28, 0}, {0x3fffu, 0x3fffu, 0x3fffu, 0x3fffu}, {1.0f / 16383, 1.0f / 16383, 1.0f / 16383, 1.0f / 16383}, 42u, {0}},
    {{0, 16, 32, 0}, {0xffffu, 0xffffu, 0xffffu, 0xffffu}, {1.0f / 65535, 1.0f / 65535, 1.0f / 65535, 1.0f / 65535}, 48u, {0}},
    {{0, 19, 38, 0}, {0x7ffffu, 0x7ffffu, 0x7ffffu, 0x7ffffu}, {1.0f / 524287, 1.0f / 524287, 1.0f / 524287, 1.0f / 524287}, 57u, {0}},
    {{0, 23, 46, 0}, {0x7fffffu, 0x7fffffu, 0x7fffffu, 0x7fffffu}, {1.0f / 8388607, 1.0f / 8388607, 1.0f / 8388607, 1.0f / 8388607}, 69u, {0}}};
typedef struct cc_drop {
    int32_t stored[4], pad[4], place[8], lane[8];
} cc_drop;
static const cc_drop CC_DROP[4] __attribute__((aligned(32))) = {
    {{1, 2, 3, 3}, {0}, {0, 0, 1, 2, 0, 0, 1, 2}, {-1, 0, 0, 0, -1, 0, 0, 0}},
    {{0, 2, 3, 3}, {0}, {0, 0, 1, 2, 0, 0, 1, 2}, {0, -1, 0, 0, 0, -1, 0, 0}},
    {{0, 1, 3, 3}, {0}, {0, 1, 0, 2, 0, 1, 0, 2}, {0, 0, -1, 0, 0, 0, -1, 0}},
    {{0, 1, 2, 3}, {0}, {0, 1, 2, 0, 0, 1, 2, 0}, {0, 0, 0, -1, 0, 0, 0, -1}}};

/* The decoders of the animated tracks (clip_compressed_avx2.c, and with
 * AVX-512 clip_compressed_avx512.c), the far lanes of the rotations' lerp
 * (clip_compressed_avx2.c): described where they are defined. */
void sk_cclip_decode_placed_avx2(const uint8_t *cranges, const uint8_t *rates, const uint8_t *sranges, const uint8_t *bits,
                                 uint64_t *pp0, uint64_t *pp1, uint32_t n, const uint32_t *slot, __m256 *out, uint8_t *dd);
void sk_cclip_decode_placed2_avx2(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, uint32_t a0, uint32_t n, const uint32_t *slot,
                                  __m256 *out, uint8_t *dd0, uint8_t *dd1);
void sk_cclip_decode_placed512(const uint8_t *cranges, const uint8_t *rates, const uint8_t *sranges, const uint8_t *bits,
                               uint64_t *pp0, uint64_t *pp1, uint32_t n, const uint32_t *slot, __m256 *out, uint8_t *dd);
void sk_cclip_decode_placed2_512(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, uint32_t a0, uint32_t n, const uint32_t *slot,
                                 __m256 *out, uint8_t *dd0, uint8_t *dd1);
struct cc_rot8;
void sk_cclip_rot8_far(struct cc_rot8 *g, uint32_t ng, float u);

/* Rotation tracks decoded by sk_cclip_decode_placed_avx2 interpolated eight at a
 * time, in phases over all the groups of a chunk so that each phase's
 * square roots and divisions (long latencies) overlap across the groups:
 * (1) transposed to rows (component c of frame 0 in a[c], of frame 1 in
 * b[c], lane j = track j), the dropped components' radicands as sk_cc_w
 * computes them ((1 - s0^2) - s1^2) - s2^2, the +0 in the dropped place
 * adding an exact "- 0") and their roots; (2) the roots put in place,
 * sk_cc_qlerp's corrected nlerp (sk_cc_tprime per lane) up to the squared
 * length and one over its root; (3) lanes more than 120 degrees apart (rare)
 * redone with the far weights (sk_cclip_rot8_far); the normalising multiply as the
 * rows are stored (cc_sample_body). Bit for bit the scalar decoder's results. Merging
 * the phases (1)-(2) and the multiply into fewer passes over the groups
 * measured 3 % faster at 24 fps; one pass per group (no phases) 5 % slower. */
typedef struct cc_rot8 {
    __m256 a[4], b[4], q[4], ra, rb, l2;
    int far; /* lanes more than 120 degrees apart */
} cc_rot8;

__attribute__((target("avx2,fma"))) static inline void cc_rot8_rows(const float *x, cc_rot8 *g) {
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 r[8];
    for (int k = 0; k < 8; k++) r[k] = _mm256_loadu_ps(x + 8 * k); /* the decoder's slots or a cursor's cache */
    skk_tr8_avx2(r);
    for (int c = 0; c < 4; c++) g->a[c] = r[c], g->b[c] = r[4 + c];
    g->ra = _mm256_fnmadd_ps(r[3], r[3], _mm256_fnmadd_ps(r[2], r[2], _mm256_fnmadd_ps(r[1], r[1], _mm256_fnmadd_ps(r[0], r[0], one))));
    g->rb = _mm256_fnmadd_ps(r[7], r[7], _mm256_fnmadd_ps(r[6], r[6], _mm256_fnmadd_ps(r[5], r[5], _mm256_fnmadd_ps(r[4], r[4], one))));
}

/* sk_cc_qlerp's corrected nlerp of a group up to its squared length; e: the
 * weights' coefficients (sk_cc_tweights at u) broadcast. Lanes more than 120
 * degrees apart are marked in far and redone by sk_cclip_rot8_far. */
__attribute__((target("avx2,fma"))) static inline void cc_rot8_place(cc_rot8 *g, const uint8_t *d0, const uint8_t *d1) {
    const __m256i k1 = _mm256_set1_epi32(1), k2 = _mm256_set1_epi32(2), k3 = _mm256_set1_epi32(3), k0 = _mm256_setzero_si256();
    __m256i da = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)d0));
    __m256i db = d1 == d0 ? da : _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)d1));
    const __m256i kc[4] = {k0, k1, k2, k3};
    for (int c = 0; c < 4; c++) {
        g->a[c] = _mm256_blendv_ps(g->a[c], g->ra, _mm256_castsi256_ps(_mm256_cmpeq_epi32(da, kc[c])));
        g->b[c] = _mm256_blendv_ps(g->b[c], g->rb, _mm256_castsi256_ps(_mm256_cmpeq_epi32(db, kc[c])));
    }
}
/* The lerp of a group whose rows hold both frames' four components (the
 * dropped ones rebuilt and placed: cc_rot8_place, or a cursor's cache). */
__attribute__((target("avx2,fma"))) static inline void cc_rot8_lerp(cc_rot8 *g, float u, const __m256 *e) {
    const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
    const __m256 *a = g->a, *b = g->b;
    __m256 dt = _mm256_fmadd_ps(a[3], b[3], _mm256_fmadd_ps(a[2], b[2], _mm256_fmadd_ps(a[1], b[1], _mm256_mul_ps(a[0], b[0]))));
    /* sk_cc_qlerp's products with sg (+1 or -1) as the exact sign flips they are: the sign bit where a . b < 0 */
    __m256 sm = _mm256_and_ps(_mm256_cmp_ps(dt, zero, _CMP_LT_OQ), _mm256_set1_ps(-0.0f));
    __m256 ad = _mm256_xor_ps(dt, sm), y = _mm256_sub_ps(one, ad);
    g->far = u != 0.0f ? _mm256_movemask_ps(_mm256_cmp_ps(ad, _mm256_set1_ps(SK_CC_FAR_BELOW), _CMP_LT_OQ)) : 0;
    /* sk_cc_tprime: u + (((e3 y + e2) y + e1) y + e0) y */
    __m256 vt = _mm256_fmadd_ps(_mm256_fmadd_ps(_mm256_fmadd_ps(_mm256_fmadd_ps(e[3], y, e[2]), y, e[1]), y, e[0]), y, _mm256_set1_ps(u));
    for (int c = 0; c < 4; c++) g->q[c] = _mm256_fmadd_ps(_mm256_sub_ps(_mm256_xor_ps(sm, b[c]), a[c]), vt, a[c]);
    __m256 *q = g->q;
    g->l2 = _mm256_fmadd_ps(q[3], q[3], _mm256_fmadd_ps(q[2], q[2], _mm256_fmadd_ps(q[1], q[1], _mm256_mul_ps(q[0], q[0]))));
}

/* sk_cc_tweights at u, its four coefficients broadcast (intrinsics: no contraction). */
__attribute__((target("avx2,fma"), always_inline)) static inline void cc_tweights8(float u, __m256 *e) {
    const __m128 vu = _mm_set1_ps(u), h = _mm_sub_ps(vu, _mm_set1_ps(0.5f)), s = _mm_mul_ps(h, h);
    __m128 ev = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(SK_CC_TK[3]), s), _mm_loadu_ps(SK_CC_TK[2]));
    ev = _mm_add_ps(_mm_mul_ps(ev, s), _mm_loadu_ps(SK_CC_TK[1]));
    ev = _mm_add_ps(_mm_mul_ps(ev, s), _mm_loadu_ps(SK_CC_TK[0]));
    ev = _mm_mul_ps(_mm_mul_ps(_mm_mul_ps(vu, h), _mm_sub_ps(vu, _mm_set1_ps(1.0f))), ev);
    e[0] = _mm256_broadcastss_ps(ev), e[1] = _mm256_broadcastss_ps(_mm_permute_ps(ev, 1));
    e[2] = _mm256_broadcastss_ps(_mm_permute_ps(ev, 2)), e[3] = _mm256_broadcastss_ps(_mm_permute_ps(ev, 3));
}

/* The groups g[0, ng), their rows placed (both frames' four components),
 * interpolated at u: g[k].q and g[k].l2 (one over the root of the squared
 * length); keep (a cursor's cache, or NULL): the placed rows stored first,
 * 64 floats per group. d0, d1: the two-track decoder's dropped components,
 * whose roots (ra, rb) are put in place first (NULL: the rows are placed). */
__attribute__((target("avx2,fma"), always_inline)) static inline void cc_rots_finish(cc_rot8 *g, uint32_t ng, float u, float *keep,
                                                                                    const uint8_t *d0, const uint8_t *d1) {
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 e[4];
    cc_tweights8(u, e);
    unsigned any = 0;
    for (uint32_t k = 0; k < ng; k++) {
        if (d0) cc_rot8_place(&g[k], d0 + 8 * k, d1 + 8 * k); /* the two-track decoder's roots put in place */
        if (keep)
            for (int c = 0; c < 4; c++) _mm256_storeu_ps(keep + 64 * k + 8 * c, g[k].a[c]), _mm256_storeu_ps(keep + 64 * k + 32 + 8 * c, g[k].b[c]);
        cc_rot8_lerp(&g[k], u, e);
        any |= (unsigned)g[k].far;
        g[k].l2 = _mm256_div_ps(one, _mm256_sqrt_ps(g[k].l2));
    }
    if (any) sk_cclip_rot8_far(g, ng, u);
}

/* The rotations of a chunk, xr[0, nr) (nr a multiple of 8) with their
 * dropped components, interpolated at u: g[nr / 8].q times g[nr / 8].l2
 * (one over the root of the squared length), multiplied as the rows are
 * stored. rows: a cursor's cache holding them placed (then xr is not read). */
__attribute__((target("avx2,fma"), always_inline)) static inline void cc_rots_avx2(const float *xr, const uint8_t *d0, const uint8_t *d1,
                                                                                  const float *rows, float *keep, uint32_t nr, float u,
                                                                                  cc_rot8 *g) {
    const __m256 zero = _mm256_setzero_ps();
    uint32_t ng = nr / 8;
    if (rows) /* a cursor's cache: the groups' rows as placed below */
        for (uint32_t k = 0; k < ng; k++)
            for (int c = 0; c < 4; c++)
                g[k].a[c] = _mm256_loadu_ps(rows + 64 * k + 8 * c), g[k].b[c] = _mm256_loadu_ps(rows + 64 * k + 32 + 8 * c);
    else
        for (uint32_t k = 0; k < ng; k++) {
            cc_rot8_rows(xr + 64 * k, &g[k]);
            g[k].ra = _mm256_sqrt_ps(_mm256_max_ps(g[k].ra, zero)), g[k].rb = _mm256_sqrt_ps(_mm256_max_ps(g[k].rb, zero));
        }
    cc_rots_finish(g, ng, u, keep, rows ? NULL : d0, d1);
}

/* One chunk's decoded stored components: rotations (frame 0 in ra, frame 1
 * in rb, their dropped components in d0, d1) and translations/scales (va,
 * vb), each in data order; room for a full block (sixteen
 * tracks) stored at the last place: the rows decoders, clip_compressed_rows_body.h. */
typedef struct cc_rowbuf {
    float ra[3][CC_CHUNK + 16], rb[3][CC_CHUNK + 16], va[3][CC_CHUNK + 16], vb[3][CC_CHUNK + 16];
    int32_t d0[CC_CHUNK + 16], d1[CC_CHUNK + 16];
} cc_rowbuf;

/* Rows q[0..3] of eight rotations to the joints j[0..n) of local (n <= 8). */
__attribute__((target("avx2,fma"))) static inline void cc_store8_aos(const __m256 *q, sk_transform *local, const uint32_t *j, uint32_t n) {
    sk_quat sink[8], *dst[8];
    for (uint32_t l = 0; l < 8; l++) dst[l] = n == 8 || l < n ? &local[j[l]].r : &sink[l];
    __m256 t0 = _mm256_unpacklo_ps(q[0], q[1]), t1 = _mm256_unpackhi_ps(q[0], q[1]), t2 = _mm256_unpacklo_ps(q[2], q[3]),
           t3 = _mm256_unpackhi_ps(q[2], q[3]);
    __m256 r0 = _mm256_shuffle_ps(t0, t2, 0x44), r1 = _mm256_shuffle_ps(t0, t2, 0xEE); /* rotations 0|4, 1|5 */
    __m256 r2 = _mm256_shuffle_ps(t1, t3, 0x44), r3 = _mm256_shuffle_ps(t1, t3, 0xEE); /* rotations 2|6, 3|7 */
    _mm_storeu_ps(&dst[0]->x, _mm256_castps256_ps128(r0)), _mm_storeu_ps(&dst[4]->x, _mm256_extractf128_ps(r0, 1));
    _mm_storeu_ps(&dst[1]->x, _mm256_castps256_ps128(r1)), _mm_storeu_ps(&dst[5]->x, _mm256_extractf128_ps(r1, 1));
    _mm_storeu_ps(&dst[2]->x, _mm256_castps256_ps128(r2)), _mm_storeu_ps(&dst[6]->x, _mm256_extractf128_ps(r2, 1));
    _mm_storeu_ps(&dst[3]->x, _mm256_castps256_ps128(r3)), _mm_storeu_ps(&dst[7]->x, _mm256_extractf128_ps(r3, 1));
}

/* A translation, rotation or scale value v (4 floats) of joint j into an
 * SoA pose's rows (sk_soa_pose's layout: 80 floats per 8 joints). */
static inline void cc_put_soa(float *soa, uint32_t j, uint32_t path, const float *v) {
    float *g = soa + (size_t)(j / SK_SOA_LANES) * SK_SOA_GROUP_FLOATS + j % SK_SOA_LANES;
    uint32_t row = path == SK_PATH_TRANSLATION ? 0u : path == SK_PATH_ROTATION ? 24u : 56u;
    for (uint32_t k = 0; k < (path == SK_PATH_ROTATION ? 4u : 3u); k++) g[row + 8 * k] = v[k];
}

/* The interpolated rotations of groups g[0, ng) (q times l2, the normalising
 * multiply), n of them, of the joints rj, into local (AoS) or, when local is
 * NULL, the rows of an SoA pose's data as the plan places each block (pl,
 * cc.rplace from the chunk's first): a group's eight joints in order as its
 * four rows, lanes of one or two groups by a permute and a blend into the
 * rows there, else lane by lane. */
__attribute__((target("avx2,fma"), always_inline)) static inline void cc_store_rots(const cc_rot8 *g, uint32_t ng, uint32_t n, const uint32_t *rj,
                                                                                 const uint32_t *pl, sk_transform *local, float *soa) {
    for (uint32_t k = 0; k < ng * 8; k += 8, pl += CC_PLACE_WORDS) {
        const cc_rot8 *h = &g[k / 8];
        const __m256 q[4] = {_mm256_mul_ps(h->q[0], h->l2), _mm256_mul_ps(h->q[1], h->l2), _mm256_mul_ps(h->q[2], h->l2),
                             _mm256_mul_ps(h->q[3], h->l2)};
        if (local) cc_store8_aos(q, local, rj + k, n - k < 8 ? n - k : 8);
        else if (pl[0] != CC_PLACE_LANES) /* the block's lanes into at most two groups' rows */
            for (uint32_t e = 0; e < 2 && pl[2 * e + 1] >> 24; e++) {
                uint32_t lanes = pl[2 * e + 1];
                float *d = soa + pl[2 * e];
                if (lanes == CC_PLACE_ALL)
                    for (int r = 0; r < 4; r++) _mm256_storeu_ps(d + 8 * r, q[r]);
                else { /* row lane p = block lane (lanes >> 3p & 7) where bit 24 + p is set, else kept */
                    const __m256i bit = _mm256_setr_epi32(1 << 24, 1 << 25, 1 << 26, 1 << 27, 1 << 28, 1 << 29, 1 << 30, INT32_MIN);
                    __m256i w = _mm256_set1_epi32((int)lanes);
                    __m256i idx = _mm256_and_si256(_mm256_srlv_epi32(w, _mm256_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21)), _mm256_set1_epi32(7));
                    __m256 keep = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(w, bit), bit));
                    for (int r = 0; r < 4; r++)
                        _mm256_storeu_ps(d + 8 * r, _mm256_blendv_ps(_mm256_loadu_ps(d + 8 * r), _mm256_permutevar8x32_ps(q[r], idx), keep));
                }
            }
        else {
            float rows[32];
            for (int r = 0; r < 4; r++) _mm256_storeu_ps(rows + 8 * r, q[r]);
            for (uint32_t l = 0; l < 8 && k + l < n; l++) {
                float v[4] = {rows[l], rows[8 + l], rows[16 + l], rows[24 + l]};
                cc_put_soa(soa, rj[k + l], SK_PATH_ROTATION, v);
            }
        }
    }
}

/* A cursor's cache of decoded frames (sk_clip_cursor_cache_size words): a
 * header of CC_CACHE_HEADER words, then per chunk its rotations as
 * cc_rots_avx2 holds them before the lerp (per group of eight, padded: the
 * four component rows of frame 0, then of frame 1, the dropped components
 * rebuilt and in place: a sample that finds its pair skips the transpose,
 * the roots and the placing), then its translation/scale slots, 8 floats
 * each (frame 0 in 0-3, frame 1 in 4-7, as the decoders leave them); the
 * rows decoders keep up to three frames in a ring of slots instead
 * (clip_compressed_rows_body.h, header word CC_CACHE_NEXT). The header: frame
 * k0 + 1 of the pair it holds (0: none), and the clip's blob address and
 * size each mixed with k0 (odd multipliers: a product with k0 differs for
 * every other k0), so that a cursor written by another clip is not taken
 * for this one's: another clip's key index written over word 0 alone still
 * matches words 1-3 only when it names the pair they hold. Words 4 and 5:
 * k0 + 1 of the cursor's last sample (whatever it decoded) and whether that
 * sample was at the same frame as the one before it, which decide whether a
 * new pair is worth keeping. */
static inline void cc_cache_words(const sk_clip *c, uint32_t k0, uint32_t layout, uint32_t *w) {
    uint64_t b = (uint64_t)(uintptr_t)c->blob;
    w[0] = k0 + 1u;
    w[1] = (uint32_t)b ^ (k0 * 0x9E3779B1u);
    w[2] = (uint32_t)(b >> 32) ^ (k0 * 0x85EBCA77u) ^ 0x27D4EB2Fu;
    w[3] = (uint32_t)c->blob_size ^ (k0 * 0xC2B2AE3Du) ^ (0x5BD1E995u * (layout + 1u)); /* the layout the words are in */
}
static inline bool cc_cache_hit(const sk_clip *c, const uint32_t *cache, uint32_t k0, uint32_t layout) {
    uint32_t w[4];
    cc_cache_words(c, k0, layout, w);
    return cache[0] == w[0] && cache[1] == w[1] && cache[2] == w[2] && cache[3] == w[3];
}
static inline void cc_cache_tag(const sk_clip *c, uint32_t *cache, uint32_t k0, uint32_t layout) { cc_cache_words(c, k0, layout, cache); }

/* The start of a sample (both SIMD decoders): the cursor's cache to keep the
 * pair in (NULL: none) and the constant tracks written. A pair decoded here
 * is kept only when playback has just stayed on one frame for two samples
 * (this one and the last, or the last and the one before: words 4 and 5),
 * so that it samples faster than the frames go by and the next sample may
 * need the pair again; playback at a frame or more per sample (a 120 fps
 * clip at 60 Hz, a crowd's sped-up phases) would pay the copy for nothing.
 * hit: the cache is read (it holds this pair or, for the rows decoders, the
 * pair before or after it: a step, which keeps its pair whatever the rule).
 * The constants go from the plan straight to their place in local (a
 * rotation's four floats, else three: 8 + 4 bytes); an SoA pose (local
 * NULL) has them from sk_cclip_rest_soa. */
__attribute__((target("avx2,fma"), always_inline)) static inline uint32_t *cc_begin(const sk_clip *c, uint32_t *cache, uint32_t k0, bool hit,
                                                                                  sk_transform *local) {
    if (cache) {
        uint32_t stayed = cache[4] == k0 + 1u, kept = stayed || cache[5];
        cache[4] = k0 + 1u, cache[5] = stayed;
        if (!hit && !kept) cache = NULL;
    }
    if (!local) return cache;
    uint32_t A = c->cc.anim, T = c->track_count;
    const uint32_t *cv = c->cc.slots + 2u * A + (T - A) + (A + CC_CHUNK - 1) / CC_CHUNK;
    for (uint32_t k = 0; k < T - A; k++, cv += CC_CONST_WORDS) {
        float *dst = (float *)(void *)local + (cv[0] & ~CC_CONST_ROT);
        __m128 v = _mm_loadu_ps((const float *)(const void *)(cv + 1));
        if (cv[0] & CC_CONST_ROT) _mm_storeu_ps(dst, v);
        else _mm_storel_pi((__m64 *)(void *)dst, v), _mm_store_ss(dst + 2, _mm_movehl_ps(v, v));
    }
    return cache;
}

/* The AVX2 decoder, by the clip's plan (sk_clip_from_compressed): the
 * constant tracks, then the animated tracks decoded CC_CHUNK at a time
 * (rotations to xr, translations and scales to xv; both frames in one
 * segment, 15 of 16 pairs, or in two), the rotations interpolated eight at
 * a time (padded with identities written nowhere). Into local (indexed by
 * joint) or, when local is NULL, into the rows of an SoA pose's data (eight
 * rotations of the joints of one group stored as its rows). cache: a
 * cursor's decoded frames (cc_cache_hit; NULL: none): when it holds frame
 * k0's pair, nothing is decoded and its slots are read instead; else the
 * decoded slots are copied into it. */
__attribute__((target("avx2,fma"), always_inline)) static inline void cc_sample_body(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, float u,
                                                                             sk_transform *local, float *soa, bool wide,
                                                                             uint32_t *cache, uint32_t k0) {
    __m256 xr[CC_XV + CC_CHUNK], *xv = xr + CC_XV;
    uint8_t dr0[CC_XV + CC_CHUNK], dr1[CC_XV + CC_CHUNK];
    bool same = s0->seg == s1->seg, hit = cache && cc_cache_hit(c, cache, k0, 0);
    cache = cc_begin(c, cache, k0, hit, local);
    uint32_t A = c->cc.anim, T = c->track_count;
    const uint32_t *slot = c->cc.slots, *rj = slot + A, *cnr = rj + A + (T - A);
    const uint32_t *tj = rj + c->cc.rots, *pl = c->cc.rplace;
    /* the cache, chunk after chunk: its rotations' rows as cc_rots_avx2 places them (64 floats per
     * group of eight), then its translations' and scales' slots (8 floats each) */
    float *cslot = cache ? (float *)(void *)(cache + CC_CACHE_HEADER) : NULL;
    for (uint32_t a = 0; a < A; a += CC_CHUNK) {
        uint32_t n = A - a < CC_CHUNK ? A - a : CC_CHUNK, nr = cnr[a / CC_CHUNK], nv = n - nr, nr8 = (nr + 7u) & ~7u;
        const float *rsrc = (const float *)(const void *)xr, *vsrc = (const float *)(const void *)xv;
        const uint8_t *d0 = dr0, *d1 = same ? dr0 : dr1;
        if (hit) {
            rsrc = NULL, vsrc = cslot + 8u * nr8;
        } else if (same && wide)
            sk_cclip_decode_placed512((const uint8_t *)(const void *)(c->cc.ranges + 8u * a), s0->rates + a, s0->ranges + 6u * a,
                                      s0->bits, &s0->pos, &s1->pos, n, slot + a, xr, dr0);
        else if (same)
            sk_cclip_decode_placed_avx2((const uint8_t *)(const void *)(c->cc.ranges + 8u * a), s0->rates + a, s0->ranges + 6u * a,
                                        s0->bits, &s0->pos, &s1->pos, n, slot + a, xr, dr0);
        else if (wide) sk_cclip_decode_placed2_512(c, s0, s1, a, n, slot + a, xr, dr0, dr1);
        else sk_cclip_decode_placed2_avx2(c, s0, s1, a, n, slot + a, xr, dr0, dr1);
        for (uint32_t k = 0; k < nv; k++) {
            /* sk_cc_vlerp with intrinsics (no contraction under the AVX-512 body's target) */
            __m128 v0, v1;
            if (hit) v0 = _mm_loadu_ps(vsrc + 8u * k), v1 = _mm_loadu_ps(vsrc + 8u * k + 4u);
            else v0 = _mm256_castps256_ps128(xv[k]), v1 = _mm256_extractf128_ps(xv[k], 1);
            __m128 r = _mm_fmadd_ps(_mm_sub_ps(v1, v0), _mm_set1_ps(u), v0);
            uint32_t j = tj[k] >> 1, path = tj[k] & 1u ? SK_PATH_SCALE : SK_PATH_TRANSLATION;
            if (!local) {
                float v[4];
                _mm_storeu_ps(v, r);
                cc_put_soa(soa, j, path, v);
            } else {
                float *dst = path == SK_PATH_SCALE ? &local[j].s.x : &local[j].t.x;
                _mm_storel_pi((__m64 *)(void *)dst, r), _mm_store_ss(dst + 2, _mm_movehl_ps(r, r));
            }
        }
        tj += nv;
        uint32_t real = nr;
        if (!hit) {
            for (; nr & 7u; nr++) xr[nr] = _mm256_setzero_ps(), dr0[nr] = dr1[nr] = 3;
            if (cache) { /* the decoded slots kept for the next sample */
                for (uint32_t k = 0; k < nv; k++) _mm256_storeu_ps(cslot + 8u * (nr8 + k), xv[k]);
            }
        }
        nr = nr8;
        float *crows = cslot;
        if (cache) cslot += 8u * (nr8 + nv);
        cc_rot8 grp[CC_CHUNK / 8 + 1];
        cc_rots_avx2(rsrc, d0, d1, hit ? crows : NULL, cache && !hit ? crows : NULL, nr, u, grp);
        cc_store_rots(grp, nr / 8, real, rj, pl, local, soa);
        rj += real, pl += CC_PLACE_WORDS * (nr / 8);
    }
    if (cache && !hit) cc_cache_tag(c, cache, k0, 0);
}
#endif

#endif
