/* The general block skinning kernel, AVX2 + FMA (sk_skin_block in
 * skinning_internal.h; the common job, positions and/or normals by linear
 * blend skinning without morph targets, is skinning_blocks.c's): tangents,
 * active morph targets and dual quaternion skinning, a block's vertices in
 * structure-of-arrays form, one lane per vertex, as there.
 *
 * Morph targets: each active target's deltas are split as the inputs are
 * and added to them (w * delta, target by target, as sk_skin_fetch adds
 * them).
 * DQS: per union joint, the lanes' weights flipped where the joint's real
 * part lies in the other hemisphere from the lane's first influence's (the
 * antipodal fix), the eight components summed, normalised by the real
 * part's length; positions rotated and translated, normals and tangents
 * rotated (the scalar reference's formulas, skinning.c). Kept apart from
 * skinning_blocks.c: in one file with it, the common job measured 8-15 %
 * slower at the same instruction count. */
#include "skin/skinning_internal.h"

#ifdef SK_SKIN_X86
#include "skin/blocks_simd.h"

/* The dual quaternions of a block's lanes, blended: each union joint's
 * weight flipped in the lanes where its real part lies in the other
 * hemisphere from the lane's first influence's (the antipodal fix), then
 * normalised by the real part's length (0 where that is 0), as the scalar
 * reference (skinning.c, sk_skin_dq_finish). r: real x, y, z, w; d: dual. */
SK_AVX2 static SK_INLINE void block_dq(const sk_skin_ctx *c, const sk_skin_block *b, const float *W, uint32_t u,
                                       __m256 r[4], __m256 d[4]) {
    const float *dq = c->dq;
    uint64_t rb;
    memcpy(&rb, b->ref, 8);
    const __m256i ref = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)rb));
    __m256 R[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    for (uint32_t j = 0; j < u; j++) { /* each lane's reference: its first influence's real part */
        const float *D = dq + b->joint8[j]; /* 8 floats per joint: joint * 8 */
        __m256 is = _mm256_castsi256_ps(_mm256_cmpeq_epi32(ref, _mm256_set1_epi32((int)j)));
        for (int e = 0; e < 4; e++) R[e] = _mm256_blendv_ps(R[e], _mm256_broadcast_ss(D + e), is);
    }
    __m256 B[8];
    for (int e = 0; e < 8; e++) B[e] = _mm256_setzero_ps();
    const __m256 signbit = _mm256_set1_ps(-0.0f);
    for (uint32_t j = 0; j < u; j++) {
        const float *D = dq + b->joint8[j];
        __m256 dot = _mm256_fmadd_ps(R[3], _mm256_broadcast_ss(D + 3),
                                     _mm256_fmadd_ps(R[2], _mm256_broadcast_ss(D + 2),
                                                     _mm256_fmadd_ps(R[1], _mm256_broadcast_ss(D + 1),
                                                                     _mm256_mul_ps(R[0], _mm256_broadcast_ss(D)))));
        __m256 neg = _mm256_and_ps(_mm256_cmp_ps(dot, _mm256_setzero_ps(), _CMP_LT_OQ), signbit);
        __m256 w = _mm256_xor_ps(_mm256_loadu_ps(W + 8 * j), neg);
        for (int e = 0; e < 8; e++) B[e] = _mm256_fmadd_ps(w, _mm256_broadcast_ss(D + e), B[e]);
    }
    __m256 len = _mm256_sqrt_ps(_mm256_fmadd_ps(B[3], B[3], _mm256_fmadd_ps(B[2], B[2], _mm256_fmadd_ps(B[1], B[1], _mm256_mul_ps(B[0], B[0])))));
    __m256 inv = _mm256_and_ps(_mm256_div_ps(_mm256_set1_ps(1.0f), len), _mm256_cmp_ps(len, _mm256_setzero_ps(), _CMP_GT_OQ));
    for (int e = 0; e < 4; e++) r[e] = _mm256_mul_ps(B[e], inv), d[e] = _mm256_mul_ps(B[4 + e], inv);
}

/* v rotated by the unit quaternion r: v + 2 r.xyz x (r.xyz x v + r.w v)
 * (sk_skin_quat_rotate), eight lanes. */
SK_AVX2 static SK_INLINE void rotate8(const __m256 r[4], __m256 vx, __m256 vy, __m256 vz, __m256 o[3]) {
    __m256 tx = _mm256_fmadd_ps(r[3], vx, _mm256_fmsub_ps(r[1], vz, _mm256_mul_ps(r[2], vy)));
    __m256 ty = _mm256_fmadd_ps(r[3], vy, _mm256_fmsub_ps(r[2], vx, _mm256_mul_ps(r[0], vz)));
    __m256 tz = _mm256_fmadd_ps(r[3], vz, _mm256_fmsub_ps(r[0], vy, _mm256_mul_ps(r[1], vx)));
    const __m256 two = _mm256_set1_ps(2.0f);
    o[0] = _mm256_fmadd_ps(two, _mm256_fmsub_ps(r[1], tz, _mm256_mul_ps(r[2], ty)), vx);
    o[1] = _mm256_fmadd_ps(two, _mm256_fmsub_ps(r[2], tx, _mm256_mul_ps(r[0], tz)), vy);
    o[2] = _mm256_fmadd_ps(two, _mm256_fmsub_ps(r[0], ty, _mm256_mul_ps(r[1], tx)), vz);
}

/* The active morph targets' deltas (c->morph_*; three floats per vertex)
 * added to a block's split inputs, target by target, w * delta each, as
 * sk_skin_fetch adds them; buf (24 floats) reads a short block's deltas. */
SK_AVX2 static SK_INLINE void morph8(const sk_skin_ctx *c, uint32_t first, uint32_t cnt, bool P, bool N, bool T, __m256 *X,
                                     __m256 *Y, __m256 *Z, __m256 *NX, __m256 *NY, __m256 *NZ, __m256 *TX, __m256 *TY,
                                     __m256 *TZ, float *buf) {
    const sk_skinned_mesh *m = c->mesh;
    for (uint32_t i = 0; i < c->morph_count; i++) {
        const sk_skin_target *tg = &m->targets[c->morph_index[i]];
        const __m256 w = _mm256_set1_ps(c->morph_weight[i]);
        const float *arr[3] = {P ? tg->positions : NULL, N ? tg->normals : NULL, T ? tg->tangents : NULL};
        __m256 *dst[3][3] = {{X, Y, Z}, {NX, NY, NZ}, {TX, TY, TZ}};
        for (int k = 0; k < 3; k++) {
            if (!arr[k]) continue;
            const float *src = arr[k] + 3 * (size_t)first;
            __m256 d[3];
            split3(cnt == 8 ? src : blk_pad(src, cnt, 3, buf), &d[0], &d[1], &d[2]);
            for (int e = 0; e < 3; e++) *dst[k][e] = _mm256_add_ps(*dst[k][e], _mm256_mul_ps(w, d[e]));
        }
    }
}

/* One block; U (joints in the union; 0: the block's own count, a loop), P,
 * N and T (positions, normals, tangents) and DQ (dual quaternion skinning
 * instead of linear blend) are constants where inlined. */
SK_AVX2 static SK_INLINE void block_skin(const sk_skin_ctx *c, const sk_skin_block *b, uint32_t lo, uint32_t hi,
                                         const uint32_t U, const bool P, const bool N, const bool T, const bool DQ) {
    const sk_skinned_mesh *m = c->mesh;
    const float *pal = c->palette;
    const float *W = m->block_weights + b->weights;
    const uint32_t u = U ? U : b->joints;
    const uint32_t first = b->first, cnt = b->count;
    const bool whole = cnt == 8 && first >= lo && first + 8 <= hi;
    _Alignas(32) float bp[24], bn[24], bt[32];
    const float *sp = m->pos + 3 * (size_t)first, *sn = N ? m->nrm + 3 * (size_t)first : NULL;
    const float *st = T ? m->tan + 4 * (size_t)first : NULL;
    if (cnt < 8) { /* reads stay inside the mesh's arrays */
        sp = blk_pad(sp, cnt, 3, bp);
        if (N) sn = blk_pad(sn, cnt, 3, bn);
        if (T) st = blk_pad(st, cnt, 4, bt);
    }
    __m256 X, Y, Z, NX, NY, NZ, TX, TY, TZ, TW = _mm256_setzero_ps();
    if (P) split3(sp, &X, &Y, &Z);
    if (N) split3(sn, &NX, &NY, &NZ);
    if (T) { /* w (the bitangent sign) is copied: gathered with the same split */
        split4(st, &TX, &TY, &TZ);
        TW = _mm256_setr_ps(st[3], st[7], st[11], st[15], st[19], st[23], st[27], st[31]);
    }
    if (c->morph_count) morph8(c, first, cnt, P, N, T, &X, &Y, &Z, &NX, &NY, &NZ, &TX, &TY, &TZ, bt);
    __m256 OP[3], ON[3], OT[3];
    if (DQ) {
        __m256 r[4], d[4];
        block_dq(c, b, W, u, r, d);
        if (P) { /* rotate(r, p) + 2 (r.w d.v - d.w r.v + r.v x d.v) */
            const __m256 two = _mm256_set1_ps(2.0f);
            __m256 trx = _mm256_mul_ps(two, _mm256_add_ps(_mm256_fmsub_ps(r[3], d[0], _mm256_mul_ps(d[3], r[0])),
                                                          _mm256_fmsub_ps(r[1], d[2], _mm256_mul_ps(r[2], d[1]))));
            __m256 try_ = _mm256_mul_ps(two, _mm256_add_ps(_mm256_fmsub_ps(r[3], d[1], _mm256_mul_ps(d[3], r[1])),
                                                           _mm256_fmsub_ps(r[2], d[0], _mm256_mul_ps(r[0], d[2]))));
            __m256 trz = _mm256_mul_ps(two, _mm256_add_ps(_mm256_fmsub_ps(r[3], d[2], _mm256_mul_ps(d[3], r[2])),
                                                          _mm256_fmsub_ps(r[0], d[1], _mm256_mul_ps(r[1], d[0]))));
            rotate8(r, X, Y, Z, OP);
            OP[0] = _mm256_add_ps(OP[0], trx), OP[1] = _mm256_add_ps(OP[1], try_), OP[2] = _mm256_add_ps(OP[2], trz);
        }
        if (N) rotate8(r, NX, NY, NZ, ON);
        if (T) rotate8(r, TX, TY, TZ, OT);
    } else {
        const float *J[SK_SKIN_BLOCK_JOINTS];
        for (uint32_t j = 0; j < u; j++) J[j] = PAL_AT(pal, b->joint8[j]);
        for (uint32_t r = 0; r < 3; r++) {
            __m256 a[4];
            blk_lbs_row(J, W, U, u, r, a);
            if (P) OP[r] = _mm256_fmadd_ps(Z, a[2], _mm256_fmadd_ps(Y, a[1], _mm256_fmadd_ps(X, a[0], a[3])));
            if (N) ON[r] = _mm256_fmadd_ps(NZ, a[2], _mm256_fmadd_ps(NY, a[1], _mm256_mul_ps(NX, a[0])));
            if (T) OT[r] = _mm256_fmadd_ps(TZ, a[2], _mm256_fmadd_ps(TY, a[1], _mm256_mul_ps(TX, a[0])));
        }
    }
    const uint32_t v0 = first > lo ? first : lo, v1 = first + cnt < hi ? first + cnt : hi;
    if (P) blk_store3(c, OP, false, first, cnt, v0, v1, whole, bp, c->op, c->ps);
    if (N) blk_store3(c, ON, true, first, cnt, v0, v1, whole, bn, c->on, c->ns);
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

/* The union's joints in a loop (U = 0): a joint's work is large next to the
 * loop's, and one instance per output set keeps each function's frame
 * small (an AddressSanitizer build gives every inlined instance its own
 * slots: all of them in one function took 8.7 MB of stack). */
SK_AVX2 static SK_INLINE void blocks_run(const sk_skin_ctx *c, uint32_t b0, uint32_t b1, uint32_t lo, uint32_t hi,
                                         const bool P, const bool N, const bool T, const bool DQ) {
    const sk_skin_block *B = c->mesh->blocks;
    for (uint32_t i = b0; i < b1; i++) block_skin(c, &B[i], lo, hi, 0, P, N, T, DQ);
}

/* One function per method and output set a job can ask for: positions
 * and/or normals, each with or without tangents (at least one output). */
#define BLK_RUN(name, P, N, T, DQ)                                                                               \
    SK_AVX2 __attribute__((noinline)) static void name(const sk_skin_ctx *c, uint32_t b0, uint32_t b1, uint32_t lo, \
                                                       uint32_t hi) {                                            \
        blocks_run(c, b0, b1, lo, hi, P, N, T, DQ);                                                              \
    }
BLK_RUN(lbs_pnt, true, true, true, false)
BLK_RUN(lbs_pt, true, false, true, false)
BLK_RUN(lbs_nt, false, true, true, false)
BLK_RUN(lbs_t, false, false, true, false)
BLK_RUN(lbs_pn, true, true, false, false)
BLK_RUN(lbs_p, true, false, false, false)
BLK_RUN(lbs_n, false, true, false, false)
BLK_RUN(dqs_pnt, true, true, true, true)
BLK_RUN(dqs_pt, true, false, true, true)
BLK_RUN(dqs_nt, false, true, true, true)
BLK_RUN(dqs_t, false, false, true, true)
BLK_RUN(dqs_pn, true, true, false, true)
BLK_RUN(dqs_p, true, false, false, true)
BLK_RUN(dqs_n, false, true, false, true)
#undef BLK_RUN

SK_AVX2 void sk_skin_blocks_full_avx2(const sk_skin_ctx *c, uint32_t b0, uint32_t b1, uint32_t lo, uint32_t hi, bool dq) {
    typedef void (*run_fn)(const sk_skin_ctx *, uint32_t, uint32_t, uint32_t, uint32_t);
    /* [dq][tangents][positions][normals] */
    static const run_fn runs[2][2][2][2] = {{{{NULL, lbs_n}, {lbs_p, lbs_pn}}, {{lbs_t, lbs_nt}, {lbs_pt, lbs_pnt}}},
                                            {{{NULL, dqs_n}, {dqs_p, dqs_pn}}, {{dqs_t, dqs_nt}, {dqs_pt, dqs_pnt}}}};
    run_fn f = runs[dq][c->ot != NULL][c->op != NULL][c->on != NULL];
    if (f) f(c, b0, b1, lo, hi);
}

SK_AVX2 void sk_skin_dqs_blocks_avx2(const sk_skin_ctx *c, uint32_t b0, uint32_t b1, uint32_t lo, uint32_t hi) {
    sk_skin_blocks_full_avx2(c, b0, b1, lo, hi, true);
}

#endif
