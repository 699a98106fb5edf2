/* The general block skinning kernel, AVX2 + FMA (sk_skin_block in
 * skinning_internal.h; the common job, positions and/or normals by linear
 * blend skinning without morph targets, is skinning_blocks.c's): tangents,
 * active morph targets and dual quaternion skinning, a block's vertices in
 * structure-of-arrays form, one lane per vertex, as there.
 *
 * Morph targets: the block's inputs are copied with each active target's
 * deltas added (w * delta, target by target, as sk_skin_fetch adds them).
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

/* The inputs of a block's cnt vertices with the active morph targets
 * added (c->morph_*: w * delta, target by target, as sk_skin_fetch adds
 * them): positions and normals (3 floats per vertex) into bp, bn (24
 * floats), tangents (4; w kept) into bt (32), each where not NULL, zero
 * padded past cnt. */
static void morph_block(const sk_skin_ctx *c, uint32_t first, uint32_t cnt, float *bp, float *bn, float *bt) {
    const sk_skinned_mesh *m = c->mesh;
    if (bp) blk_pad(m->pos + 3 * (size_t)first, cnt, 3, bp);
    if (bn) blk_pad(m->nrm + 3 * (size_t)first, cnt, 3, bn);
    if (bt) blk_pad(m->tan + 4 * (size_t)first, cnt, 4, bt);
    for (uint32_t i = 0; i < c->morph_count; i++) {
        const sk_skin_target *tg = &m->targets[c->morph_index[i]];
        const float w = c->morph_weight[i];
        const size_t o = 3 * (size_t)first;
        if (bp && tg->positions)
            for (uint32_t k = 0; k < 3 * cnt; k++) bp[k] += w * tg->positions[o + k];
        if (bn && tg->normals)
            for (uint32_t k = 0; k < 3 * cnt; k++) bn[k] += w * tg->normals[o + k];
        if (bt && tg->tangents)
            for (uint32_t l = 0; l < cnt; l++)
                for (int k = 0; k < 3; k++) bt[4 * l + k] += w * tg->tangents[o + 3 * l + k];
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
    if (c->morph_count) { /* the active targets' deltas added in order, w * delta each, as sk_skin_fetch adds them */
        morph_block(c, first, cnt, P ? bp : NULL, N ? bn : NULL, T ? bt : NULL);
        sp = bp, sn = bn, st = bt;
    } else if (cnt < 8) { /* reads stay inside the mesh's arrays */
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

SK_AVX2 static SK_INLINE void blocks_run(const sk_skin_ctx *c, uint32_t b0, uint32_t b1, uint32_t lo, uint32_t hi,
                                         const bool P, const bool N, const bool T, const bool DQ) {
    const sk_skin_block *B = c->mesh->blocks;
    for (uint32_t i = b0; i < b1; i++) {
        if (DQ) { /* the union's joints in a loop: a joint's work is large next to the loop's */
            block_skin(c, &B[i], lo, hi, 0, P, N, T, true);
            continue;
        }
        switch (B[i].joints) { /* unrolled per union size (one joint: no products) */
        case 1: block_skin(c, &B[i], lo, hi, 1, P, N, T, false); break;
        case 2: block_skin(c, &B[i], lo, hi, 2, P, N, T, false); break;
        case 3: block_skin(c, &B[i], lo, hi, 3, P, N, T, false); break;
        case 4: block_skin(c, &B[i], lo, hi, 4, P, N, T, false); break;
        case 5: block_skin(c, &B[i], lo, hi, 5, P, N, T, false); break;
        case 6: block_skin(c, &B[i], lo, hi, 6, P, N, T, false); break;
        case 7: block_skin(c, &B[i], lo, hi, 7, P, N, T, false); break;
        default: block_skin(c, &B[i], lo, hi, 8, P, N, T, false); break;
        }
    }
}

/* Instantiated for the output sets a job can ask for: positions and/or
 * normals, each with or without tangents (at least one output). */
SK_AVX2 static SK_INLINE void blocks_outputs(const sk_skin_ctx *c, uint32_t b0, uint32_t b1, uint32_t lo, uint32_t hi,
                                             const bool DQ) {
    const bool p = c->op != NULL, n = c->on != NULL;
    if (c->ot) {
        if (p && n) blocks_run(c, b0, b1, lo, hi, true, true, true, DQ);
        else if (p) blocks_run(c, b0, b1, lo, hi, true, false, true, DQ);
        else if (n) blocks_run(c, b0, b1, lo, hi, false, true, true, DQ);
        else blocks_run(c, b0, b1, lo, hi, false, false, true, DQ);
        return;
    }
    if (p && n) blocks_run(c, b0, b1, lo, hi, true, true, false, DQ);
    else if (p) blocks_run(c, b0, b1, lo, hi, true, false, false, DQ);
    else blocks_run(c, b0, b1, lo, hi, false, true, false, DQ);
}

SK_AVX2 void sk_skin_blocks_full_avx2(const sk_skin_ctx *c, uint32_t b0, uint32_t b1, uint32_t lo, uint32_t hi, bool dq) {
    blocks_outputs(c, b0, b1, lo, hi, dq);
}

SK_AVX2 void sk_skin_dqs_blocks_avx2(const sk_skin_ctx *c, uint32_t b0, uint32_t b1, uint32_t lo, uint32_t hi) {
    sk_skin_blocks_full_avx2(c, b0, b1, lo, hi, true);
}

SK_AVX2 bool sk_skin_block_dq_finite_avx2(const sk_skinned_mesh *m, const float *dq) {
    __m256 acc = _mm256_setzero_ps(); /* the eight floats of each joint the blocks name, as above */
    for (uint32_t i = 0; i < m->block_joint_count; i++)
        acc = _mm256_or_ps(acc, _mm256_mul_ps(_mm256_loadu_ps(dq + 8 * (size_t)m->block_joints[i]), _mm256_setzero_ps()));
    return _mm256_movemask_ps(_mm256_cmp_ps(acc, _mm256_setzero_ps(), _CMP_EQ_OQ)) == 0xFF;
}

#endif
