/* Private: what the sources of the compressed clip share: clip_compressed.c
 * (the blob's check at load and the decoders' plan), clip_compressed_sample.c
 * (the sampling entry points, which choose a decoder by CPU, and the scalar
 * reference decoder), clip_compressed_avx2.c, clip_compressed_avx512.c and
 * clip_compressed_rows.c, clip_compressed_rows_avx2.c (the SIMD decoders; their shared parts in
 * clip_compressed_x86.h). Included after clip_internal.h and the file's
 * FP_CONTRACT pragma. Not installed. */
#ifndef SKELANIM_CLIP_COMPRESSED_INTERNAL_H
#define SKELANIM_CLIP_COMPRESSED_INTERNAL_H

#include "core/clip_internal.h"

#if defined(__SSE2__) && !defined(SK_NO_SIMD)
#include <emmintrin.h>
#include <xmmintrin.h>
#endif
#if (defined(__x86_64__) || defined(_M_X64)) && defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(SK_NO_SIMD)
#define SK_CC_AVX2 1
#include <immintrin.h>
#endif

/* Animated tracks decoded per pass (stack buffers of the decoders). */
enum { CC_CHUNK = 64, CC_XV = CC_CHUNK + 8 }; /* decoded slots: rotations (padded to 8), then translations/scales */
/* The plan's constant tracks: words per track, the rotation flag of its place. */
enum { CC_CONST_WORDS = 5 };
/* The header of a cursor's cache of decoded frames (cc_cache_hit), in words. */
enum { CC_CACHE_HEADER = 8 };
/* The header word of the rows decoders' third kept frame: k + 3 when the cache holds pair
 * k and frame k + 2 (clip_compressed_rows_body.h), else 0. */
enum { CC_CACHE_NEXT = 6 };
#define CC_CONST_ROT 0x80000000u
/* The SoA placement of a block of eight rotations (cc.rplace): words per block, and the
 * first word of a block whose lanes reach more than two groups (or one joint twice). */
enum { CC_PLACE_WORDS = 4 };
#define CC_PLACE_LANES 0xffffffffu
/* The lanes word of a block whose eight rotations are a group's eight joints in order. */
#define CC_PLACE_ALL 0xFFFAC688u
/* Words per constant group (cc.cgroups): index, lanes, 80 floats. */
enum { CC_CGROUP_WORDS = 2 + SK_SOA_GROUP_FLOATS };

/* Where frame k's samples start: its segment's bit rates, ranges and bit position. */
typedef struct cc_cursor {
    const uint8_t *seg, *rates, *ranges, *bits;
    uint64_t pos;
    uint32_t fbits; /* bits per frame of the segment */
} cc_cursor;

/* The cursor at frame k (cc_cursor). */
static inline void cc_at(const sk_clip *c, uint32_t k, cc_cursor *s) {
    uint32_t A = c->cc.anim;
    if (!A) { /* only constant tracks: no segments to read */
        s->seg = s->rates = s->ranges = s->bits = c->blob;
        s->pos = 0, s->fbits = 0;
        return;
    }
    uint32_t si = c->cc.seg_shift < 32 ? k >> c->cc.seg_shift : k / c->cc.seg_len; /* no division in the usual case */
    uint32_t i = k - si * c->cc.seg_len;
    const uint32_t *st = c->cc.segtab + 2u * si;
    const uint8_t *seg = c->blob + st[0];
    s->seg = seg;
    s->rates = seg;
    s->ranges = seg + A;
    s->bits = seg + 7u * A;
    s->pos = (uint64_t)i * st[1];
    s->fbits = st[1];
}

/* The cursors of a sample's two frames: k0 and the one after it (k0 again at
 * the last frame). */
static inline void cc_at_pair(const sk_clip *c, uint32_t k0, cc_cursor *s0, cc_cursor *s1) {
    cc_at(c, k0, s0);
    cc_at(c, k0 + 1 < c->cc.frames ? k0 + 1 : k0, s1);
}

/* Group g's constant lanes (bit 8 p + l) and rows (*cv; else left as it is), from the entry
 * at *e of the plan's constant groups (in group order; *e moves past g's). */
static inline uint32_t cc_cgroup(const sk_clip *c, const uint32_t **e, uint32_t g, const float **cv) {
    if (*e == c->cc.cgroups + (size_t)CC_CGROUP_WORDS * c->cc.ncgroups || (*e)[0] != g) return 0;
    uint32_t cm = (*e)[1];
    *cv = (const float *)(const void *)(*e + 2);
    *e += CC_CGROUP_WORDS;
    return cm;
}

#if defined(SK_CC_AVX2)
/* The SIMD decoders' samples (clip_compressed_avx2.c, clip_compressed_avx512.c,
 * clip_compressed_rows.c; chosen by clip_compressed_sample.c): the two frames
 * at cursors s0 and s1, weight u of the second, into local (indexed by joint)
 * or, when local is NULL, the rows of an SoA pose's data soa; _cached with a
 * cursor's cache (k0: the first frame's index), _plain without. Each runs
 * only on a CPU that has its instructions: AVX2 and FMA
 * (sk_cclip_simd_available), AVX-512 F, DQ and VL (sk_cclip_avx512_available),
 * the rows decoder's AVX-512 BW and VBMI too (sk_cclip_rows_available). */
void sk_cclip_sample_avx2_cached(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, float u, sk_transform *local, float *soa,
                                 uint32_t *cache, uint32_t k0);
void sk_cclip_sample_avx2_plain(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, float u, sk_transform *local, float *soa);
void sk_cclip_sample_avx512_cached(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, float u, sk_transform *local, float *soa,
                                   uint32_t *cache, uint32_t k0);
void sk_cclip_sample_avx512_plain(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, float u, sk_transform *local, float *soa);
void sk_cclip_sample_rows_cached(const sk_clip *c, uint32_t k0, float u, sk_transform *local, float *soa, uint32_t *cache);
void sk_cclip_sample_rows_plain(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, float u, sk_transform *local, float *soa);
/* The rows decoder at AVX2 (clip_compressed_rows_avx2.c): AVX2 and FMA. */
void sk_cclip_sample_rows8_cached(const sk_clip *c, uint32_t k0, float u, sk_transform *local, float *soa, uint32_t *cache);
void sk_cclip_sample_rows8_plain(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, float u, sk_transform *local, float *soa);
/* SoA groups of a pose's data to AoS transforms (AVX2; clip_compressed_avx2.c). */
void sk_cclip_soa_to_aos(const float *d, float *out, uint32_t n);
/* sk_cclip_rest_soa's groups [0, cg) by row stores of 32 bytes (AVX2; clip_compressed_avx2.c). */
void sk_cclip_rest_rows_avx2(const sk_clip *c, const float *rest_soa, float *data, uint32_t cg);
#endif

#endif
