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
 *   3. row r of the position (three FMAs from column 3) and of the normal;
 *   4. the normals normalised as the group kernels do (rsqrt and one Newton
 *      step; lengths outside sk_skin_norm_direct's range vertex by vertex in
 *      sk_skin_normalize3);
 *   5. x, y, z merged back to packed floats: three 256-bit stores per array
 *      when the block is eight vertices inside the range at stride 3, else
 *      three floats per vertex inside the range.
 *
 * A block costs per union joint twelve broadcasts and twelve FMAs for all
 * its lanes, and no shuffles but the split and the merge. This file has the
 * common job (positions and/or normals without morph targets);
 * skinning_blocks_full.c the others (tangents, morph targets, DQS). */
#include "skin/skinning_internal.h"

#ifdef SK_SKIN_X86
#include "skin/blocks_simd.h"

/* One block, positions and/or normals without morph targets; U (joints in
 * the union), P and N (positions, normals) are constants where inlined. */
SK_AVX2 static SK_INLINE void block_lbs_pn(const sk_skin_ctx *c, const sk_skin_block *b, uint32_t lo, uint32_t hi,
                                        const uint32_t U, const bool P, const bool N) {
    const sk_skinned_mesh *m = c->mesh;
    const float *pal = c->palette;
    const float *W = m->block_weights + b->weights;
    const uint32_t first = b->first, cnt = b->count;
    const bool whole = cnt == 8 && first >= lo && first + 8 <= hi;
    _Alignas(32) float bp[24], bn[24];
    const float *sp = m->pos + 3 * (size_t)first, *sn = N ? m->nrm + 3 * (size_t)first : NULL;
    if (cnt < 8) { /* reads stay inside the mesh's arrays */
        sp = blk_pad(sp, cnt, 3, bp);
        if (N) sn = blk_pad(sn, cnt, 3, bn);
    }
    __m256 X, Y, Z, NX, NY, NZ;
    if (P) split3(sp, &X, &Y, &Z);
    if (N) split3(sn, &NX, &NY, &NZ);
    const float *J[SK_SKIN_BLOCK_JOINTS];
    for (uint32_t j = 0; j < U; j++) J[j] = PAL_AT(pal, b->joint8[j]);
    __m256 OP[3], ON[3];
    for (uint32_t r = 0; r < 3; r++) {
        __m256 a[4];
        blk_lbs_row(J, W, U, U, r, a);
        if (P) OP[r] = _mm256_fmadd_ps(Z, a[2], _mm256_fmadd_ps(Y, a[1], _mm256_fmadd_ps(X, a[0], a[3])));
        if (N) ON[r] = _mm256_fmadd_ps(NZ, a[2], _mm256_fmadd_ps(NY, a[1], _mm256_mul_ps(NX, a[0])));
    }
    const uint32_t v0 = first > lo ? first : lo, v1 = first + cnt < hi ? first + cnt : hi;
    if (P) blk_store3(c, OP, false, first, cnt, v0, v1, whole, bp, c->op, c->ps);
    if (N) blk_store3(c, ON, true, first, cnt, v0, v1, whole, bn, c->on, c->ns);
}

SK_AVX2 static SK_INLINE void blocks_run_pn(const sk_skin_ctx *c, uint32_t b0, uint32_t b1, uint32_t lo, uint32_t hi,
                                         const bool P, const bool N) {
    const sk_skin_block *B = c->mesh->blocks;
    for (uint32_t i = b0; i < b1; i++) {
        switch (B[i].joints) {
        case 1: block_lbs_pn(c, &B[i], lo, hi, 1, P, N); break;
        case 2: block_lbs_pn(c, &B[i], lo, hi, 2, P, N); break;
        case 3: block_lbs_pn(c, &B[i], lo, hi, 3, P, N); break;
        case 4: block_lbs_pn(c, &B[i], lo, hi, 4, P, N); break;
        case 5: block_lbs_pn(c, &B[i], lo, hi, 5, P, N); break;
        case 6: block_lbs_pn(c, &B[i], lo, hi, 6, P, N); break;
        case 7: block_lbs_pn(c, &B[i], lo, hi, 7, P, N); break;
        default: block_lbs_pn(c, &B[i], lo, hi, 8, P, N); break;
        }
    }
}

/* One function per output set: eight instances each (the union sizes),
 * which keeps the frames small in an AddressSanitizer build. */
SK_AVX2 __attribute__((noinline)) static void run_pn(const sk_skin_ctx *c, uint32_t b0, uint32_t b1, uint32_t lo, uint32_t hi) {
    blocks_run_pn(c, b0, b1, lo, hi, true, true);
}
SK_AVX2 __attribute__((noinline)) static void run_p(const sk_skin_ctx *c, uint32_t b0, uint32_t b1, uint32_t lo, uint32_t hi) {
    blocks_run_pn(c, b0, b1, lo, hi, true, false);
}
SK_AVX2 __attribute__((noinline)) static void run_n(const sk_skin_ctx *c, uint32_t b0, uint32_t b1, uint32_t lo, uint32_t hi) {
    blocks_run_pn(c, b0, b1, lo, hi, false, true);
}

SK_AVX2 void sk_skin_lbs_blocks_avx2(const sk_skin_ctx *c, uint32_t b0, uint32_t b1, uint32_t lo, uint32_t hi) {
    if (!c->ot && !c->morph_count) {
        if (c->op && c->on) run_pn(c, b0, b1, lo, hi);
        else if (c->op) run_p(c, b0, b1, lo, hi);
        else if (c->on) run_n(c, b0, b1, lo, hi);
        return;
    }
    sk_skin_blocks_full_avx2(c, b0, b1, lo, hi, false);
}

SK_AVX2 bool sk_skin_block_inputs_finite_avx2(const sk_skinned_mesh *m, const float *data, bool dq) {
    /* x * 0 is 0 for a finite x and NaN otherwise. LBS: 16 floats per joint, the fourth of each
     * column not read; DQS: the 8 floats of each dual quaternion. */
    const __m256 keep = dq ? _mm256_castsi256_ps(_mm256_set1_epi32(-1))
                           : _mm256_castsi256_ps(_mm256_setr_epi32(-1, -1, -1, 0, -1, -1, -1, 0));
    const size_t stride = dq ? 8 : 16;
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    for (uint32_t i = 0; i < m->block_joint_count; i++) {
        const float *p = data + stride * m->block_joints[i];
        acc0 = _mm256_or_ps(acc0, _mm256_mul_ps(_mm256_and_ps(_mm256_loadu_ps(p), keep), _mm256_setzero_ps()));
        if (!dq) acc1 = _mm256_or_ps(acc1, _mm256_mul_ps(_mm256_and_ps(_mm256_loadu_ps(p + 8), keep), _mm256_setzero_ps()));
    }
    __m256 acc = _mm256_or_ps(acc0, acc1);
    return _mm256_movemask_ps(_mm256_cmp_ps(acc, _mm256_setzero_ps(), _CMP_EQ_OQ)) == 0xFF;
}

#endif
