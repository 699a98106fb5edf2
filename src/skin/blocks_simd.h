/* Private: the helpers of the block skinning kernels (skinning_blocks.c,
 * skinning_blocks_full.c; sk_skin_block in skinning_internal.h), AVX2 +
 * FMA: splitting eight vertices' packed floats into x, y, z registers and
 * merging them back, normalising eight vectors, writing a block's vertices
 * inside a range. Included by x86-64 builds only. */
#ifndef SKELANIM_SKIN_BLOCKS_SIMD_H
#define SKELANIM_SKIN_BLOCKS_SIMD_H

#include "skin/skinning_internal.h"

#include <immintrin.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define SK_AVX2 __attribute__((target("avx2,fma")))
#define SK_INLINE inline __attribute__((always_inline))
#else
#define SK_AVX2
#define SK_INLINE inline
#endif

/* Palette matrix of a joint given as joint * 8: 64 bytes per matrix. */
#define PAL_AT(pal, j8) ((const float *)(const void *)((const char *)(pal) + 8 * (size_t)(j8)))

/* 24 packed floats x0 y0 z0 x1 ... z7 -> x, y, z of the eight vertices. */
SK_AVX2 static SK_INLINE void split3(const float *s, __m256 *x, __m256 *y, __m256 *z) {
    __m256 m03 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(s)), _mm_loadu_ps(s + 12), 1);
    __m256 m14 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(s + 4)), _mm_loadu_ps(s + 16), 1);
    __m256 m25 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(s + 8)), _mm_loadu_ps(s + 20), 1);
    __m256 xy = _mm256_shuffle_ps(m14, m25, _MM_SHUFFLE(2, 1, 3, 2)); /* x2 y2 x3 y3 | x6 y6 x7 y7 */
    __m256 yz = _mm256_shuffle_ps(m03, m14, _MM_SHUFFLE(1, 0, 2, 1)); /* y0 z0 y1 z1 | y4 z4 y5 z5 */
    *x = _mm256_shuffle_ps(m03, xy, _MM_SHUFFLE(2, 0, 3, 0));
    *y = _mm256_shuffle_ps(yz, xy, _MM_SHUFFLE(3, 1, 2, 0));
    *z = _mm256_shuffle_ps(yz, m25, _MM_SHUFFLE(3, 0, 3, 1));
}

/* The inverse of split3: x, y, z of eight vertices -> 24 packed floats at d. */
SK_AVX2 static SK_INLINE void merge3(__m256 x, __m256 y, __m256 z, float *d) {
    __m256 rxy = _mm256_shuffle_ps(x, y, _MM_SHUFFLE(2, 0, 2, 0)); /* x0 x2 y0 y2 */
    __m256 ryz = _mm256_shuffle_ps(y, z, _MM_SHUFFLE(3, 1, 3, 1)); /* y1 y3 z1 z3 */
    __m256 rzx = _mm256_shuffle_ps(z, x, _MM_SHUFFLE(3, 1, 2, 0)); /* z0 z2 x1 x3 */
    __m256 r03 = _mm256_shuffle_ps(rxy, rzx, _MM_SHUFFLE(2, 0, 2, 0)); /* x0 y0 z0 x1 | x4 y4 z4 x5 */
    __m256 r14 = _mm256_shuffle_ps(ryz, rxy, _MM_SHUFFLE(3, 1, 2, 0)); /* y1 z1 x2 y2 | ... */
    __m256 r25 = _mm256_shuffle_ps(rzx, ryz, _MM_SHUFFLE(3, 1, 3, 1)); /* z2 x3 y3 z3 | ... */
    _mm256_storeu_ps(d, _mm256_permute2f128_ps(r03, r14, 0x20));
    _mm256_storeu_ps(d + 8, _mm256_permute2f128_ps(r25, r03, 0x30));
    _mm256_storeu_ps(d + 16, _mm256_permute2f128_ps(r14, r25, 0x31));
}

/* 32 floats x0 y0 z0 w0 x1 ... w7 -> x, y, z of the eight (w is not read
 * back: merge4 takes it from the source). */
SK_AVX2 static SK_INLINE void split4(const float *s, __m256 *x, __m256 *y, __m256 *z) {
    __m256 r0 = _mm256_loadu_ps(s), r1 = _mm256_loadu_ps(s + 8), r2 = _mm256_loadu_ps(s + 16), r3 = _mm256_loadu_ps(s + 24);
    /* rows hold vertices 0|1, 2|3, 4|5, 6|7; in-lane transposes, then the halves regrouped */
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1); /* x0 x2 y0 y2 | x1 x3 y1 y3; z.. w.. */
    __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3); /* 4 6 | 5 7 */
    __m256 X = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(t0), _mm256_castps_pd(t2))); /* x0 x2 x4 x6 | x1 x3 x5 x7 */
    __m256 Y = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(t0), _mm256_castps_pd(t2)));
    __m256 Z = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(t1), _mm256_castps_pd(t3)));
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7); /* lanes 0 2 4 6 1 3 5 7 -> 0..7 */
    *x = _mm256_permutevar8x32_ps(X, order);
    *y = _mm256_permutevar8x32_ps(Y, order);
    *z = _mm256_permutevar8x32_ps(Z, order);
}

/* The inverse of split4 with the fourth float of each vertex from w (eight
 * floats, one per vertex) -> 32 floats at d. */
SK_AVX2 static SK_INLINE void merge4(__m256 x, __m256 y, __m256 z, __m256 w, float *d) {
    __m256 xy0 = _mm256_unpacklo_ps(x, y), xy1 = _mm256_unpackhi_ps(x, y); /* x0 y0 x1 y1 | x4 y4 x5 y5; 2 3 | 6 7 */
    __m256 zw0 = _mm256_unpacklo_ps(z, w), zw1 = _mm256_unpackhi_ps(z, w);
    __m256 v0 = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(xy0), _mm256_castps_pd(zw0))); /* v0 | v4 */
    __m256 v1 = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(xy0), _mm256_castps_pd(zw0))); /* v1 | v5 */
    __m256 v2 = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(xy1), _mm256_castps_pd(zw1))); /* v2 | v6 */
    __m256 v3 = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(xy1), _mm256_castps_pd(zw1))); /* v3 | v7 */
    _mm256_storeu_ps(d, _mm256_permute2f128_ps(v0, v1, 0x20));
    _mm256_storeu_ps(d + 8, _mm256_permute2f128_ps(v2, v3, 0x20));
    _mm256_storeu_ps(d + 16, _mm256_permute2f128_ps(v0, v1, 0x31));
    _mm256_storeu_ps(d + 24, _mm256_permute2f128_ps(v2, v3, 0x31));
}

/* Vertices [v0, v1) of a block starting at vertex first, four floats each
 * from s, to dst + (v - c->first) * stride. */
static inline void scatter4(const float *s, uint32_t first, uint32_t v0, uint32_t v1, const sk_skin_ctx *c, float *dst,
                     size_t stride) {
    for (uint32_t v = v0; v < v1; v++) memcpy(dst + (size_t)(v - c->first) * stride, s + 4 * (v - first), 4 * sizeof(float));
}

/* The lanes' normals scaled to unit length in place, as normalize8_rows in
 * skinning_simd.c does lane by lane. Returns false (nothing changed) when a
 * lane of mask `valid` has a squared length outside sk_skin_norm_direct's
 * range. */
SK_AVX2 static SK_INLINE bool normalize8_soa(__m256 *X, __m256 *Y, __m256 *Z, int valid) {
    __m256 l2 = _mm256_fmadd_ps(*Z, *Z, _mm256_fmadd_ps(*Y, *Y, _mm256_mul_ps(*X, *X)));
    __m256 ok = _mm256_and_ps(_mm256_cmp_ps(l2, _mm256_set1_ps(1e-30f), _CMP_GT_OQ),
                              _mm256_cmp_ps(l2, _mm256_set1_ps(3.0e38f), _CMP_LE_OQ));
    if ((_mm256_movemask_ps(ok) & valid) != valid) return false;
    __m256 y = _mm256_rsqrt_ps(l2);
    y = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), y),
                      _mm256_fnmadd_ps(_mm256_mul_ps(l2, y), y, _mm256_set1_ps(3.0f)));
    *X = _mm256_mul_ps(*X, y), *Y = _mm256_mul_ps(*Y, y), *Z = _mm256_mul_ps(*Z, y);
    return true;
}

/* Vertices [v0, v1) of a block starting at vertex first, from the packed
 * floats s (vertex first at s[0]), to dst + (v - c->first) * stride. */
static inline void scatter3(const float *s, uint32_t first, uint32_t v0, uint32_t v1, const sk_skin_ctx *c, float *dst,
                     size_t stride) {
    for (uint32_t v = v0; v < v1; v++) memcpy(dst + (size_t)(v - c->first) * stride, s + 3 * (v - first), 3 * sizeof(float));
}

/* The cnt vertices (per floats each) at src copied to buf (8 * per
 * floats), zero padded: a block of fewer than eight vertices is read from
 * there, so no read passes the array's end. Returns buf. */
static inline float *blk_pad(const float *src, uint32_t cnt, uint32_t per, float *buf) {
    memset(buf, 0, 8 * per * sizeof(float));
    memcpy(buf, src, per * cnt * sizeof(float));
    return buf;
}

/* A block's row r of the lanes' blended matrices (LBS): elements r, 4 + r,
 * 8 + r and 12 + r (column-major) in a[0..3], the sum over the union's u
 * joints J (palette matrices) of the lanes' weights W (8 per joint) times
 * the element, broadcast; one joint (U == 1) takes the elements as they
 * are (its lanes' weight is 1). U: u as a constant where inlined, 0 when
 * known only at run time. */
SK_AVX2 static SK_INLINE void blk_lbs_row(const float *const *J, const float *W, const uint32_t U, uint32_t u, uint32_t r,
                                          __m256 a[4]) {
    if (U == 1) {
        for (int k = 0; k < 4; k++) a[k] = _mm256_broadcast_ss(J[0] + 4 * k + r);
        return;
    }
    const uint32_t n = U ? U : u;
    __m256 w = _mm256_loadu_ps(W);
    for (int k = 0; k < 4; k++) a[k] = _mm256_mul_ps(w, _mm256_broadcast_ss(J[0] + 4 * k + r));
    for (uint32_t j = 1; j < n; j++) {
        w = _mm256_loadu_ps(W + 8 * j);
        for (int k = 0; k < 4; k++) a[k] = _mm256_fmadd_ps(w, _mm256_broadcast_ss(J[j] + 4 * k + r), a[k]);
    }
}

/* Three rows (x, y, z) of a block's output V to dst (the block starts at
 * vertex first, has cnt vertices; vertices [v0, v1) are written; whole:
 * all eight inside the range): normalised first if unit (as the group
 * kernels, vertex by vertex in sk_skin_normalize3 where a length is out of
 * sk_skin_norm_direct's range); three 256-bit stores when whole and the
 * stride is 3, else through buf (24 floats). */
SK_AVX2 static SK_INLINE void blk_store3(const sk_skin_ctx *c, __m256 V[3], bool unit, uint32_t first, uint32_t cnt,
                                         uint32_t v0, uint32_t v1, bool whole, float *buf, float *dst, size_t stride) {
    if (unit && !normalize8_soa(&V[0], &V[1], &V[2], (1 << cnt) - 1)) {
        merge3(V[0], V[1], V[2], buf);
        for (uint32_t l = 0; l < cnt; l++) sk_skin_normalize3(buf + 3 * l);
        scatter3(buf, first, v0, v1, c, dst, stride);
    } else if (whole && stride == 3) {
        merge3(V[0], V[1], V[2], dst + (size_t)(first - c->first) * 3);
    } else {
        merge3(V[0], V[1], V[2], buf);
        scatter3(buf, first, v0, v1, c, dst, stride);
    }
}

#endif
