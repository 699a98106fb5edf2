/* Linear blend skinning of one influence group, eight vertices at a time,
 * for the AVX2 and AVX-512 kernels. Included by skinning_simd.c once per
 * level with LBS_GROUP_FN (function name), LBS_ATTR (target attribute),
 * LBS_STORE3 / LBS_ROWS_STORE3 (three floats of one row / of eight rows) and
 * LBS_VERTEX (one vertex: blended matrix, then [M p | M n] in one register
 * and, if asked, M t, as xyzw rows) and LBS_PAIR (two vertices A and B:
 * [M_A p_A | M_B p_B], the same for normals and tangents)
 * defined.
 *
 * The group's entries [e, e1) are walked in order; eight
 * vertices' rows are gathered in registers, their normals and tangents
 * transposed and normalised together (normalize8_rows), then written back:
 * three 256-bit stores per array when the eight are consecutive vertices and
 * the array packed (stride 3), else three floats per vertex at its place.
 * The last < 8 entries go one by one. K (influences, 8 = 5-8) and FAST
 * (positions and normals only, no morphing) are constants where inlined. */

LBS_ATTR static SK_INLINE void LBS_GROUP_FN(const sk_skin_ctx *c, const sk_skin_group *g, uint32_t e, uint32_t e1,
                                            const uint32_t K, const bool FAST) {
    const sk_skinned_mesh *m = c->mesh;
    const lbs_streams st = {m->pos, m->nrm, m->tan, m->count};
    const float *pal = c->palette;
    const uint32_t first = c->first, *index = g->index;
    const uint16_t *J = g->joint8; /* joints times 8: see PAL_AT */
    const float *W = g->weights;
    const size_t ps = c->ps, ns = c->ns, ts = c->ts;
    float *op = c->op, *on = c->on, *ot = FAST ? NULL : c->ot;
    const bool morph = !FAST && c->morph_count;
    uint32_t seq[8]; /* a contiguous group: the vertices follow from the entry, no index read */
    for (; e + 8 <= e1; e += 8) {
        const uint32_t *vv = index + e;
        if (g->contiguous) {
            for (uint32_t l = 0; l < 8; l++) seq[l] = index[0] + e + l;
            vv = seq;
        }
        __m256 P[4], N[4], T[4];
        float tw[8];
        /* Unrolled: P, N and T stay in registers (a loop kept them on the stack). */
        SK_UNROLL4
        for (uint32_t h = 0; h < 4; h++) {
            const float *p[2], *n[2], *t[2];
            float bp[2][4], bn[2][4], bt[2][4];
            for (uint32_t k = 0; k < 2; k++) {
                uint32_t l = 2 * h + k, v = vv[l];
                if (FAST) p[k] = st.pos + 3 * (size_t)v, n[k] = st.nrm + 3 * (size_t)v, t[k] = NULL;
                else lbs_source(c, &st, morph, v, &p[k], &n[k], &t[k], bp[k], bn[k], bt[k]);
                if (!FAST && ot) tw[l] = t[k][3];
            }
            const size_t ea = (size_t)(e + 2 * h) * K, eb = ea + K;
            LBS_PAIR(pal, J + ea, W + ea, J + eb, W + eb, K, K == 8 ? st.count[vv[2 * h]] : K,
                     K == 8 ? st.count[vv[2 * h + 1]] : K, p, n, t, FAST || on, !FAST && ot, &P[h], &N[h], &T[h]);
        }
        const bool consecutive = vv[7] - vv[0] == 7; /* ascending and distinct: eight in a row */
        if (FAST || op) {
            if (consecutive && ps == 3) pack3_store8(P, op + (size_t)(vv[0] - first) * 3);
            else LBS_ROWS_STORE3(P, vv, first, op, ps, NULL);
        }
        if (FAST || on) {
            normalize8_rows(N);
            if (consecutive && ns == 3) pack3_store8(N, on + (size_t)(vv[0] - first) * 3);
            else LBS_ROWS_STORE3(N, vv, first, on, ns, NULL);
        }
        if (!FAST && ot) {
            normalize8_rows(T);
            LBS_ROWS_STORE3(T, vv, first, ot, ts, tw);
        }
    }
    for (; e < e1; e++) {
        uint32_t v = index[e];
        size_t o = v - first;
        float bp[4], bn[4], bt[4];
        const float *p, *n, *t;
        lbs_source(c, &st, morph, v, &p, &n, &t, bp, bn, bt);
        __m256 rpn;
        __m128 rt;
        LBS_VERTEX(pal, J + (size_t)e * K, W + (size_t)e * K, K, K == 8 ? st.count[v] : K, p, n, t, on != NULL,
                   ot != NULL, &rpn, &rt);
        __m128 rp = _mm256_castps256_ps128(rpn), rn = _mm256_extractf128_ps(rpn, 1);
        if (op) LBS_STORE3(op + o * ps, rp);
        if (on) LBS_STORE3(on + o * ns, avx_normalize3(rn));
        if (ot) {
            LBS_STORE3(ot + o * ts, avx_normalize3(rt));
            ot[o * ts + 3] = t[3];
        }
    }
}
