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
        memset(bp, 0, sizeof bp);
        memcpy(bp, sp, 3 * cnt * sizeof(float));
        sp = bp;
        if (N) {
            memset(bn, 0, sizeof bn);
            memcpy(bn, sn, 3 * cnt * sizeof(float));
            sn = bn;
        }
    }
    __m256 X, Y, Z, NX, NY, NZ;
    if (P) split3(sp, &X, &Y, &Z);
    if (N) split3(sn, &NX, &NY, &NZ);
    const float *J[SK_SKIN_BLOCK_JOINTS];
    for (uint32_t j = 0; j < U; j++) J[j] = PAL_AT(pal, b->joint8[j]);
    __m256 OP[3], ON[3];
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

SK_AVX2 void sk_skin_lbs_blocks_avx2(const sk_skin_ctx *c, uint32_t b0, uint32_t b1, uint32_t lo, uint32_t hi) {
    if (!c->ot && !c->morph_count) {
        if (c->op && c->on) blocks_run_pn(c, b0, b1, lo, hi, true, true);
        else if (c->op) blocks_run_pn(c, b0, b1, lo, hi, true, false);
        else blocks_run_pn(c, b0, b1, lo, hi, false, true);
        return;
    }
    sk_skin_blocks_full_avx2(c, b0, b1, lo, hi, false);
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
