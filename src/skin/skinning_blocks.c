/* The AVX2 + FMA linear blend skinning kernel for blocks (sk_skin_block in
 * skinning_internal.h): up to eight consecutive vertices whose joints,
 * together, are at most SK_SKIN_BLOCK_JOINTS. The block is skinned in
 * structure-of-arrays form, one lane per vertex:
 *
 *   1. positions and normals read as 24 packed floats each and split into
 *      x, y and z registers (three 128-bit pairs, five in-lane shuffles);
 *   2. for each row r of the blended matrices, its four elements (columns
 *      0-3) as registers: the sum over the union's joints of the lanes'
 *      weights of that joint times the joint's element, broadcast from the
 *      palette (one joint: the element itself, the lanes' weight being 1);
 *   3. row r of the position (three FMAs from column 3), of the normal and
 *      of the tangent (its w, the bitangent sign, copied);
 *   4. the normals and tangents normalised as the group kernels do (rsqrt
 *      and one Newton step; lengths outside sk_skin_norm_direct's range
 *      vertex by vertex in sk_skin_normalize3);
 *   5. x, y, z merged back to packed floats: three 256-bit stores per array
 *      when the block is eight vertices inside the range at stride 3, else
 *      three floats per vertex inside the range.
 *
 * A block costs per union joint twelve broadcasts and twelve FMAs for all
 * its lanes, and no shuffles but the split and the merge. */
#include "skin/skinning_internal.h"

#ifdef SK_SKIN_X86
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
static void scatter4(const float *s, uint32_t first, uint32_t v0, uint32_t v1, const sk_skin_ctx *c, float *dst,
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
static void scatter3(const float *s, uint32_t first, uint32_t v0, uint32_t v1, const sk_skin_ctx *c, float *dst,
                     size_t stride) {
    for (uint32_t v = v0; v < v1; v++) memcpy(dst + (size_t)(v - c->first) * stride, s + 3 * (v - first), 3 * sizeof(float));
}

/* Three floats per vertex of a block's vertices in array a: at a itself
 * when the block has eight, else copied into buf (24 floats) and zero
 * padded, so no read passes the array's end. */
static inline const float *block3(const float *a, uint32_t first, uint32_t cnt, float *buf) {
    if (cnt == 8) return a + 3 * (size_t)first;
    memset(buf, 0, 24 * sizeof(float));
    memcpy(buf, a + 3 * (size_t)first, 3 * cnt * sizeof(float));
    return buf;
}

/* One block; U (joints in the union), P, N and T (positions, normals,
 * tangents) are constants where inlined. */
SK_AVX2 static SK_INLINE void block_lbs(const sk_skin_ctx *c, const sk_skin_block *b, uint32_t lo, uint32_t hi,
                                        const uint32_t U, const bool P, const bool N, const bool T) {
    const sk_skinned_mesh *m = c->mesh;
    const float *pal = c->palette;
    const float *W = m->block_weights + b->weights;
    const uint32_t first = b->first, cnt = b->count;
    const bool whole = cnt == 8 && first >= lo && first + 8 <= hi;
    _Alignas(32) float bp[24], bn[24], bt[32];
    const float *sp = m->pos + 3 * (size_t)first, *sn = N ? m->nrm + 3 * (size_t)first : NULL;
    const float *st = T ? m->tan + 4 * (size_t)first : NULL;
    if (cnt < 8) { /* reads stay inside the mesh's arrays */
        memset(bp, 0, sizeof bp);
        memcpy(bp, sp, 3 * cnt * sizeof(float));
        sp = bp;
        if (N) {
            memset(bn, 0, sizeof bn);
            memcpy(bn, sn, 3 * cnt * sizeof(float));
            sn = bn;
        }
        if (T) {
            memset(bt, 0, sizeof bt);
            memcpy(bt, st, 4 * cnt * sizeof(float));
            st = bt;
        }
    }
    __m256 X, Y, Z, NX, NY, NZ, TX, TY, TZ, TW;
    if (P) split3(sp, &X, &Y, &Z);
    if (N) split3(sn, &NX, &NY, &NZ);
    if (T) { /* w (the bitangent sign) is copied: gathered with the same split */
        split4(st, &TX, &TY, &TZ);
        TW = _mm256_setr_ps(st[3], st[7], st[11], st[15], st[19], st[23], st[27], st[31]);
    }
    /* Active morph targets: the deltas (three floats per vertex) added in order, w * delta each,
     * as sk_skin_fetch adds them */
    for (uint32_t i = 0; i < c->morph_count; i++) {
        const sk_skin_target *tg = &m->targets[c->morph_index[i]];
        const __m256 w = _mm256_set1_ps(c->morph_weight[i]);
        __m256 dx, dy, dz;
        if (P && tg->positions) {
            split3(block3(tg->positions, first, cnt, bp), &dx, &dy, &dz);
            X = _mm256_add_ps(X, _mm256_mul_ps(w, dx)), Y = _mm256_add_ps(Y, _mm256_mul_ps(w, dy));
            Z = _mm256_add_ps(Z, _mm256_mul_ps(w, dz));
        }
        if (N && tg->normals) {
            split3(block3(tg->normals, first, cnt, bn), &dx, &dy, &dz);
            NX = _mm256_add_ps(NX, _mm256_mul_ps(w, dx)), NY = _mm256_add_ps(NY, _mm256_mul_ps(w, dy));
            NZ = _mm256_add_ps(NZ, _mm256_mul_ps(w, dz));
        }
        if (T && tg->tangents) {
            split3(block3(tg->tangents, first, cnt, bp), &dx, &dy, &dz);
            TX = _mm256_add_ps(TX, _mm256_mul_ps(w, dx)), TY = _mm256_add_ps(TY, _mm256_mul_ps(w, dy));
            TZ = _mm256_add_ps(TZ, _mm256_mul_ps(w, dz));
        }
    }
    const float *J[SK_SKIN_BLOCK_JOINTS];
    for (uint32_t j = 0; j < U; j++) J[j] = PAL_AT(pal, b->joint8[j]);
    __m256 OP[3], ON[3], OT[3];
    for (uint32_t r = 0; r < 3; r++) {
        /* Row r of the lanes' blended matrices: elements r, 4 + r, 8 + r, 12 + r (column-major). */
        __m256 a0, a1, a2, a3;
        if (U == 1) { /* the lanes' weight is 1: the matrix itself */
            a0 = _mm256_broadcast_ss(J[0] + r), a1 = _mm256_broadcast_ss(J[0] + 4 + r);
            a2 = _mm256_broadcast_ss(J[0] + 8 + r), a3 = _mm256_broadcast_ss(J[0] + 12 + r);
        } else {
            __m256 w = _mm256_loadu_ps(W);
            a0 = _mm256_mul_ps(w, _mm256_broadcast_ss(J[0] + r));
            a1 = _mm256_mul_ps(w, _mm256_broadcast_ss(J[0] + 4 + r));
            a2 = _mm256_mul_ps(w, _mm256_broadcast_ss(J[0] + 8 + r));
            a3 = _mm256_mul_ps(w, _mm256_broadcast_ss(J[0] + 12 + r));
            for (uint32_t j = 1; j < U; j++) {
                w = _mm256_loadu_ps(W + 8 * j);
                a0 = _mm256_fmadd_ps(w, _mm256_broadcast_ss(J[j] + r), a0);
                a1 = _mm256_fmadd_ps(w, _mm256_broadcast_ss(J[j] + 4 + r), a1);
                a2 = _mm256_fmadd_ps(w, _mm256_broadcast_ss(J[j] + 8 + r), a2);
                a3 = _mm256_fmadd_ps(w, _mm256_broadcast_ss(J[j] + 12 + r), a3);
            }
        }
        if (P) OP[r] = _mm256_fmadd_ps(Z, a2, _mm256_fmadd_ps(Y, a1, _mm256_fmadd_ps(X, a0, a3)));
        if (N) ON[r] = _mm256_fmadd_ps(NZ, a2, _mm256_fmadd_ps(NY, a1, _mm256_mul_ps(NX, a0)));
        if (T) OT[r] = _mm256_fmadd_ps(TZ, a2, _mm256_fmadd_ps(TY, a1, _mm256_mul_ps(TX, a0)));
    }
    const uint32_t v0 = first > lo ? first : lo, v1 = first + cnt < hi ? first + cnt : hi;
    if (P) {
        if (whole && c->ps == 3) {
            merge3(OP[0], OP[1], OP[2], c->op + (size_t)(first - c->first) * 3);
        } else {
            merge3(OP[0], OP[1], OP[2], bp);
            scatter3(bp, first, v0, v1, c, c->op, c->ps);
        }
    }
    if (N) {
        const int valid = (1 << cnt) - 1;
        if (!normalize8_soa(&ON[0], &ON[1], &ON[2], valid)) { /* zero, tiny or huge lengths: vertex by vertex */
            merge3(ON[0], ON[1], ON[2], bn);
            for (uint32_t l = 0; l < cnt; l++) sk_skin_normalize3(bn + 3 * l);
            scatter3(bn, first, v0, v1, c, c->on, c->ns);
        } else if (whole && c->ns == 3) {
            merge3(ON[0], ON[1], ON[2], c->on + (size_t)(first - c->first) * 3);
        } else {
            merge3(ON[0], ON[1], ON[2], bn);
            scatter3(bn, first, v0, v1, c, c->on, c->ns);
        }
    }
    if (T) {
        const int valid = (1 << cnt) - 1;
        if (!normalize8_soa(&OT[0], &OT[1], &OT[2], valid)) { /* as the normals */
            merge4(OT[0], OT[1], OT[2], TW, bt);
            for (uint32_t l = 0; l < cnt; l++) sk_skin_normalize3(bt + 4 * l);
            scatter4(bt, first, v0, v1, c, c->ot, c->ts);
        } else if (whole && c->ts == 4) {
            merge4(OT[0], OT[1], OT[2], TW, c->ot + (size_t)(first - c->first) * 4);
        } else {
            merge4(OT[0], OT[1], OT[2], TW, bt);
            scatter4(bt, first, v0, v1, c, c->ot, c->ts);
        }
    }
}

SK_AVX2 static SK_INLINE void blocks_run(const sk_skin_ctx *c, uint32_t b0, uint32_t b1, uint32_t lo, uint32_t hi,
                                         const bool P, const bool N, const bool T) {
    const sk_skin_block *B = c->mesh->blocks;
    for (uint32_t i = b0; i < b1; i++) {
        switch (B[i].joints) {
        case 1: block_lbs(c, &B[i], lo, hi, 1, P, N, T); break;
        case 2: block_lbs(c, &B[i], lo, hi, 2, P, N, T); break;
        case 3: block_lbs(c, &B[i], lo, hi, 3, P, N, T); break;
        case 4: block_lbs(c, &B[i], lo, hi, 4, P, N, T); break;
        case 5: block_lbs(c, &B[i], lo, hi, 5, P, N, T); break;
        case 6: block_lbs(c, &B[i], lo, hi, 6, P, N, T); break;
        case 7: block_lbs(c, &B[i], lo, hi, 7, P, N, T); break;
        default: block_lbs(c, &B[i], lo, hi, 8, P, N, T); break;
        }
    }
}

/* Instantiated for the output sets a job can ask for: positions and/or
 * normals, each with or without tangents (at least one output). */
SK_AVX2 void sk_skin_lbs_blocks_avx2(const sk_skin_ctx *c, uint32_t b0, uint32_t b1, uint32_t lo, uint32_t hi) {
    const bool p = c->op != NULL, n = c->on != NULL;
    if (c->ot) {
        if (p && n) blocks_run(c, b0, b1, lo, hi, true, true, true);
        else if (p) blocks_run(c, b0, b1, lo, hi, true, false, true);
        else if (n) blocks_run(c, b0, b1, lo, hi, false, true, true);
        else blocks_run(c, b0, b1, lo, hi, false, false, true);
        return;
    }
    if (p && n) blocks_run(c, b0, b1, lo, hi, true, true, false);
    else if (p) blocks_run(c, b0, b1, lo, hi, true, false, false);
    else blocks_run(c, b0, b1, lo, hi, false, true, false);
}

SK_AVX2 bool sk_skin_block_palette_finite_avx2(const sk_skinned_mesh *m, const float *palette) {
    /* x * 0 is 0 for a finite x and NaN otherwise; the fourth float of each column is not read. */
    const __m256 keep = _mm256_castsi256_ps(_mm256_setr_epi32(-1, -1, -1, 0, -1, -1, -1, 0));
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    for (uint32_t i = 0; i < m->block_joint_count; i++) {
        const float *p = palette + 16 * (size_t)m->block_joints[i];
        acc0 = _mm256_or_ps(acc0, _mm256_mul_ps(_mm256_and_ps(_mm256_loadu_ps(p), keep), _mm256_setzero_ps()));
        acc1 = _mm256_or_ps(acc1, _mm256_mul_ps(_mm256_and_ps(_mm256_loadu_ps(p + 8), keep), _mm256_setzero_ps()));
    }
    __m256 acc = _mm256_or_ps(acc0, acc1);
    return _mm256_movemask_ps(_mm256_cmp_ps(acc, _mm256_setzero_ps(), _CMP_EQ_OQ)) == 0xFF;
}

#endif
