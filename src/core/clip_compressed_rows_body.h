/* Private: the sample of the rows decoders (clip_compressed_rows.c, AVX-512
 * with VBMI, sixteen tracks per register; clip_compressed_rows_avx2.c, AVX2,
 * eight), compiled by each for its own instructions. What differs between
 * them is how a chunk's tracks are decoded into a cc_rowbuf; the rest (the
 * rotations rebuilt and placed on rows, interpolated, the translations and
 * scales lerped, everything stored, a cursor's cache) is here.
 *
 * The includer defines, before including:
 * - CC_ROWS_CACHED, CC_ROWS_PLAIN: the names of the two entry points
 *   (clip_compressed_internal.h declares them);
 * - CC_LOADZ_PS(p, n), CC_LOADZ_EPI32(p, n): lanes [0, n) of p (1 <= n <= 8)
 *   with zeros above, reading nothing past p + n;
 * - cc_rows_state, cc_rows_start(st, s0, s1) and cc_rows_chunk(st, c, s0,
 *   s1, a, n, same, only, end, w): animated tracks [a, a + n) of both
 *   frames (only 1: frame 1 alone, 2: frame 0 alone) decoded into w (rotations in ra, rb,
 *   d0, d1, the others in va, vb, each in data order), st carrying the
 *   frames' bit positions from chunk to chunk;
 * - optionally CC_ROWS_DIRECT8, with cc_terms8, cc_terms8_chunk and
 *   cc_blk8_at (a chunk decoded in two phases, eight tracks at a time):
 *   a decoding that keeps nothing takes whole groups straight from the
 *   registers (cc_rows_direct8).
 * Included once per file, after clip_compressed_x86.h. Not installed. */

/* A rotation's dropped component rebuilt from its three stored ones x (as
 * sk_cc_w: ((1 - x0^2) - x1^2) - x2^2, the root of it or 0) and its four
 * components placed around it by d (eight rotations per register). */
__attribute__((always_inline)) static inline void cc_rows_place_r(__m256 a, __m256 b, __m256 c, __m256i d, __m256 *o) {
    const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
    __m256 w = _mm256_sqrt_ps(_mm256_max_ps(_mm256_fnmadd_ps(c, c, _mm256_fnmadd_ps(b, b, _mm256_fnmadd_ps(a, a, one))), zero));
    __m256 e0 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(d, _mm256_setzero_si256()));
    __m256 e1 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(d, _mm256_set1_epi32(1)));
    __m256 e2 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(d, _mm256_set1_epi32(2)));
    __m256 e3 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(d, _mm256_set1_epi32(3)));
    o[0] = _mm256_blendv_ps(a, w, e0);
    o[1] = _mm256_blendv_ps(_mm256_blendv_ps(b, a, e0), w, e1);
    o[2] = _mm256_blendv_ps(_mm256_blendv_ps(c, b, _mm256_or_ps(e0, e1)), w, e2);
    o[3] = _mm256_blendv_ps(c, w, e3);
}
/* cc_rows_place_r of rows x0, x1, x2 and d from a chunk's buffers, lanes [0, n); lanes past n
 * (past the chunk's rotations) read as zeros: 1, 0, 0, 0. */
__attribute__((always_inline)) static inline void cc_rows_place(const float *x0, const float *x1, const float *x2,
                                                                const int32_t *dp, uint32_t n, __m256 *o) {
    cc_rows_place_r(CC_LOADZ_PS(x0, n), CC_LOADZ_PS(x1, n), CC_LOADZ_PS(x2, n), CC_LOADZ_EPI32(dp, n), o);
}

/* Rows r[0..2] of eight translations or scales to their joints (tj: 2 joint
 * + 1 for a scale) in local, lanes [0, n). */
__attribute__((always_inline)) static inline void cc_store8_vec(const __m256 *r, sk_transform *local, const uint32_t *tj,
                                                                uint32_t n) {
    float v[4][8];
    __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]), t2 = _mm256_unpacklo_ps(r[2], r[2]),
           t3 = _mm256_unpackhi_ps(r[2], r[2]);
    _mm256_storeu_ps(v[0], _mm256_shuffle_ps(t0, t2, 0x44)), _mm256_storeu_ps(v[1], _mm256_shuffle_ps(t0, t2, 0xEE));
    _mm256_storeu_ps(v[2], _mm256_shuffle_ps(t1, t3, 0x44)), _mm256_storeu_ps(v[3], _mm256_shuffle_ps(t1, t3, 0xEE));
    for (uint32_t l = 0; l < n; l++) { /* v[l & 3] + 4 (l >> 2): lane l's x, y, z */
        uint32_t j = tj[l] >> 1;
        float *dst = tj[l] & 1u ? &local[j].s.x : &local[j].t.x;
        memcpy(dst, v[l & 3] + 4 * (l >> 2), 12);
    }
}

/* Rows r[0..2] of m translations or scales (tj as cc_store8_vec) into local
 * or, when local is NULL, an SoA pose's rows: eight of one group as its
 * rows, else lane by lane. */
__attribute__((always_inline)) static inline void cc_store8_rows(const __m256 *r, sk_transform *local, float *soa, const uint32_t *tj,
                                                                 uint32_t m) {
    if (local) cc_store8_vec(r, local, tj, m);
    else if (m == 8 && (tj[0] >> 1) % SK_SOA_LANES == 0 &&
             _mm256_movemask_epi8(_mm256_cmpeq_epi32(_mm256_loadu_si256((const __m256i *)(const void *)tj),
                                                     _mm256_add_epi32(_mm256_set1_epi32((int)tj[0]),
                                                                      _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14)))) == -1) {
        /* eight translations (or scales) of one SoA group: its rows */
        float *g = soa + (size_t)(tj[0] / (2u * SK_SOA_LANES)) * SK_SOA_GROUP_FLOATS + (tj[0] & 1u ? 56u : 0u);
        for (int j = 0; j < 3; j++) _mm256_storeu_ps(g + 8 * j, r[j]);
    } else {
        float rows[3][8];
        for (int j = 0; j < 3; j++) _mm256_storeu_ps(rows[j], r[j]);
        for (uint32_t l = 0; l < m; l++) {
            float v[4] = {rows[0][l], rows[1][l], rows[2][l], 0.0f};
            cc_put_soa(soa, tj[l] >> 1, tj[l] & 1u ? SK_PATH_SCALE : SK_PATH_TRANSLATION, v);
        }
    }
}

/* Rows va, vb of m translations or scales of both frames lerped at vu
 * (sk_cc_vlerp) and stored (cc_store8_rows). */
__attribute__((always_inline)) static inline void cc_vlerp_store(const __m256 *va, const __m256 *vb, __m256 vu, sk_transform *local,
                                                                 float *soa, const uint32_t *tj, uint32_t m) {
    __m256 r[3];
    for (int j = 0; j < 3; j++) r[j] = _mm256_fmadd_ps(_mm256_sub_ps(vb[j], va[j]), vu, va[j]);
    cc_store8_rows(r, local, soa, tj, m);
}

/* One group whose rows hold both frames placed (h->a, h->b), interpolated at
 * u (e: cc_tweights8's coefficients) as cc_rots_finish does it, the same
 * bits: h->q and h->l2 (one over the root), lanes more than 120 degrees
 * apart redone. A hit takes its groups one at a time, each in one pass to
 * its stores, so that a group's values stay in registers (cc_rots_finish's
 * phases over all the groups keep them in memory) and the processor
 * overlaps the groups' independent chains; the decoding keeps the phases,
 * which measured faster there. */
__attribute__((always_inline)) static inline void cc_rot8_finish1(cc_rot8 *h, float u, const __m256 *e) {
    cc_rot8_lerp(h, u, e);
    h->l2 = _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_sqrt_ps(h->l2));
    if (h->far) { /* rare: a copy, so that h itself is not passed out of the inlined code */
        cc_rot8 f = *h;
        sk_cclip_rot8_far(&f, 1, u);
        *h = f;
    }
}

/* The sample of a pair the cursor's ring holds (CC_ROWS_CACHED's hit): per
 * chunk its translations' and scales' rows, then its rotations' placed rows,
 * read from slots i0 and i1 (S slots) and interpolated, as the decoding
 * path does with the same rows: nothing is decoded or written to the
 * cursor. Apart from the decoding (cc_rows_decode_cached, a function of its
 * own) so that the common case of playback faster than the frames goes by
 * runs without the decoding's state around it. */
__attribute__((always_inline)) static inline void cc_rows_hit(const sk_clip *c, float u, sk_transform *local, float *soa, const uint32_t *cache,
                                                  uint32_t S, uint32_t i0, uint32_t i1) {
    uint32_t A = c->cc.anim, T = c->track_count;
    const uint32_t *rj = c->cc.slots + A, *cnr = rj + A + (T - A);
    const uint32_t *tj = rj + c->cc.rots, *pl = c->cc.rplace;
    const float *cb = (const float *)(const void *)(cache + CC_CACHE_HEADER);
    const __m256 vu = _mm256_set1_ps(u);
    __m256 tw[4]; /* sk_cc_tweights at u */
    cc_tweights8(u, tw);
    for (uint32_t a = 0; a < A; a += CC_CHUNK) {
        uint32_t n = A - a < CC_CHUNK ? A - a : CC_CHUNK, nr = cnr[a / CC_CHUNK], nv = n - nr;
        uint32_t nr8 = (nr + 7u) & ~7u, nv8 = (nv + 7u) & ~7u;
        const float *vc = cb + 4u * S * nr8, *cs0 = vc + 3u * nv8 * i0, *cs1 = vc + 3u * nv8 * i1;
        for (uint32_t k = 0; k < nv; k += 8) {
            __m256 va[3], vb[3];
            for (uint32_t j = 0; j < 3; j++) va[j] = _mm256_loadu_ps(cs0 + k + nv8 * j), vb[j] = _mm256_loadu_ps(cs1 + k + nv8 * j);
            cc_vlerp_store(va, vb, vu, local, soa, tj + k, nv - k < 8 ? nv - k : 8);
        }
        tj += nv;
        /* each group in one pass (both frames as placed, the lerp, one over the root, the
         * stores): its values stay in registers, and the groups' chains are independent */
        uint32_t ng = nr8 / 8;
        for (uint32_t g = 0; g < ng; g++) {
            const float *g0 = cb + 32u * (S * g + i0), *g1 = cb + 32u * (S * g + i1);
            cc_rot8 h;
            for (uint32_t j = 0; j < 4; j++) h.a[j] = _mm256_loadu_ps(g0 + 8u * j), h.b[j] = _mm256_loadu_ps(g1 + 8u * j);
            cc_rot8_finish1(&h, u, tw);
            cc_store_rots(&h, 1, nr - 8u * g, rj + 8u * g, pl + CC_PLACE_WORDS * g, local, soa);
        }
        rj += nr, pl += CC_PLACE_WORDS * ng;
        cb += S * (4u * nr8 + 3u * nv8);
    }
}

#if defined(CC_ROWS_DIRECT8)
/* A chunk of a decoding that keeps nothing (no cache: both frames), its rotations a whole
 * number of groups of eight (so that each half block is of one kind: the data order puts the
 * rotations first), in the includer's two phases (cc_terms8_chunk, cc_blk8_at), each half
 * block taken from the registers it is decoded into to where it goes: rotations placed into
 * grp (both frames), translations and scales lerped at vu and stored. The operations of
 * cc_rows_chunk, cc_rows_place and cc_vlerp_store, the same bits, without the row buffer
 * between them (the 128-joint clip sampled 5 % faster). */
__attribute__((always_inline)) static inline void cc_rows_direct8(cc_rows_state *st, const sk_clip *c, const cc_cursor *s0,
                                                                  const cc_cursor *s1, uint32_t a, uint32_t n, uint32_t nr,
                                                                  bool same, const uint8_t *end, __m256 vu, cc_rot8 *grp,
                                                                  sk_transform *local, float *soa, const uint32_t *tj) {
    cc_terms8 T;
    cc_terms8_chunk(st, c, s0, s1, a, n, same, 0, end, &T);
    for (uint32_t o = 0; o < n; o += 8) {
        uint32_t m = n - o < 8 ? n - o : 8;
        __m256 x0[3], x1[3];
        __m256i d0, d1;
        cc_blk8_at(&T, o / 8, s0, s1, same, 0, st->f, end, x0, x1, &d0, &d1);
        if (o < nr) { /* eight rotations (m is 8: nr is a multiple of it) */
            cc_rows_place_r(x0[0], x0[1], x0[2], d0, grp[o / 8].a);
            cc_rows_place_r(x1[0], x1[1], x1[2], d1, grp[o / 8].b);
        } else cc_vlerp_store(x0, x1, vu, local, soa, tj + (o - nr), m);
    }
}
#endif

/* A sample that decodes (CC_ROWS_CACHED's choice below when not a hit, with
 * only 1, 2 or 0 as there and the cursor's cache of S slots; CC_ROWS_PLAIN:
 * both frames, no cache): the pair interpolated, the frames decoded kept in
 * slots i0, i1 and, on a look ahead, i2. */
__attribute__((always_inline)) static inline void cc_rows_decode(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, float u,
                                                                 sk_transform *local, float *soa, uint32_t *cache, uint32_t k0,
                                                                 uint32_t S, int only, uint32_t i0, uint32_t i1, uint32_t i2) {
    cc_rowbuf w;
    uint32_t N = c->cc.frames;
    bool look = S == 3u && cache && only == 1 && k0 + 2u < N;
    /* the frames decoded: this pair's (only: one of them), or on a look ahead frames k0 + 1 and k0 + 2 */
    cc_cursor s2, *d0 = s0, *d1 = s1;
    if (look) cc_at(c, k0 + 2u, &s2), d0 = s1, d1 = &s2;
    bool same = d0->seg == d1->seg;
    uint32_t A = c->cc.anim, T = c->track_count;
    const uint32_t *rj = c->cc.slots + A, *cnr = rj + A + (T - A);
    const uint32_t *tj = rj + c->cc.rots, *pl = c->cc.rplace;
    /* the chunk's words in the cache */
    float *cb = cache ? (float *)(void *)(cache + CC_CACHE_HEADER) : NULL;
    cc_rows_state st;
    cc_rows_start(&st, d0, d1);
    const __m256 vu = _mm256_set1_ps(u);
    const uint8_t *end = c->blob + c->blob_size;
    /* the frames' bits and their segments' rates and ranges into L1 ahead of the blocks that read them */
    for (int f = only == 1 && !look ? 1 : 0; f < (only == 2 ? 1 : 2); f++) {
        const cc_cursor *q = f ? d1 : d0;
        if (!f || !same || (only && !look))
            for (const uint8_t *p = q->rates; p < q->bits; p += 64) _mm_prefetch((const char *)p, _MM_HINT_T0);
        const uint8_t *b = q->bits + (q->pos >> 3), *e = b + (q->fbits + 7u) / 8u;
        for (const uint8_t *p = b; p < e; p += 64) _mm_prefetch((const char *)p, _MM_HINT_T0);
    }
    for (uint32_t a = 0; a < A; a += CC_CHUNK) {
        uint32_t n = A - a < CC_CHUNK ? A - a : CC_CHUNK, nr = cnr[a / CC_CHUNK], nv = n - nr;
        uint32_t nr8 = (nr + 7u) & ~7u, nv8 = (nv + 7u) & ~7u;
        cc_rot8 grp[CC_CHUNK / 8 + 1];
        uint32_t ng = nr8 / 8;
#if defined(CC_ROWS_DIRECT8)
        if (!cache && !(nr & 7u)) { /* nothing kept (then only is 0): no row buffer */
            cc_rows_direct8(&st, c, d0, d1, a, n, nr, same, end, vu, grp, local, soa, tj);
            goto rots;
        }
#endif
        /* on a look ahead w's first frame is this pair's second, its other the frame after; with
         * only, both halves of w hold the one frame decoded */
        cc_rows_chunk(&st, c, d0, d1, a, n, same, look ? 0 : only, end, &w);
        /* the chunk's translations and scales in the cache, after its rotations: three rows per slot
         * (row j of slot i at vc + 3 nv8 i + nv8 j) */
        float *vc = cb ? cb + 4u * S * nr8 : NULL;
        float *cs0 = vc ? vc + 3u * nv8 * i0 : NULL, *cs1 = vc ? vc + 3u * nv8 * i1 : NULL, *cs2 = vc ? vc + 3u * nv8 * i2 : NULL;
        /* translations and scales (the last group's lanes past nv read as zeros: no store of
         * padding that a load would have to wait for); a step reads the kept frame's slot,
         * which it does not write */
        for (uint32_t k = 0; k < nv; k += 8) {
            __m256 va[3], vb[3];
            uint32_t m = nv - k < 8 ? nv - k : 8;
            for (uint32_t j = 0; j < 3; j++) {
                if (only == 1) va[j] = _mm256_loadu_ps(cs0 + k + nv8 * j);
                else va[j] = CC_LOADZ_PS(w.va[j] + k, m);
                if (only == 2) vb[j] = _mm256_loadu_ps(cs1 + k + nv8 * j);
                else vb[j] = CC_LOADZ_PS((only ? w.va[j] : w.vb[j]) + k, m);
                if (cache) { /* kept for the next sample */
                    if (only != 1) _mm256_storeu_ps(cs0 + k + nv8 * j, va[j]);
                    if (only != 2) _mm256_storeu_ps(cs1 + k + nv8 * j, vb[j]);
                    if (look) _mm256_storeu_ps(cs2 + k + nv8 * j, CC_LOADZ_PS(w.vb[j] + k, m));
                }
            }
            cc_vlerp_store(va, vb, vu, local, soa, tj + k, m);
        }
        /* rotations */
        for (uint32_t g = 0; g < ng; g++) {
            uint32_t m = nr - 8 * g < 8 ? nr - 8 * g : 8;
            /* the group's slots side by side in the cache, 32 floats each (four placed rows) */
            float *g0 = cb ? cb + 32u * (S * g + i0) : NULL, *g1 = cb ? cb + 32u * (S * g + i1) : NULL,
                  *g2 = cb ? cb + 32u * (S * g + i2) : NULL;
            if (only == 1) /* a frame kept, as placed */
                for (uint32_t j = 0; j < 4; j++) grp[g].a[j] = _mm256_loadu_ps(g0 + 8u * j);
            else cc_rows_place(w.ra[0] + 8 * g, w.ra[1] + 8 * g, w.ra[2] + 8 * g, w.d0 + 8 * g, m, grp[g].a);
            if (only == 2)
                for (uint32_t j = 0; j < 4; j++) grp[g].b[j] = _mm256_loadu_ps(g1 + 8u * j);
            else if (only) cc_rows_place(w.ra[0] + 8 * g, w.ra[1] + 8 * g, w.ra[2] + 8 * g, w.d0 + 8 * g, m, grp[g].b);
            else cc_rows_place(w.rb[0] + 8 * g, w.rb[1] + 8 * g, w.rb[2] + 8 * g, w.d1 + 8 * g, m, grp[g].b);
            if (cache) { /* kept for the next sample, placed */
                for (uint32_t j = 0; j < 4; j++) {
                    if (only != 1) _mm256_storeu_ps(g0 + 8u * j, grp[g].a[j]);
                    if (only != 2) _mm256_storeu_ps(g1 + 8u * j, grp[g].b[j]);
                }
                if (look) {
                    __m256 x[4];
                    cc_rows_place(w.rb[0] + 8 * g, w.rb[1] + 8 * g, w.rb[2] + 8 * g, w.d1 + 8 * g, m, x);
                    for (uint32_t j = 0; j < 4; j++) _mm256_storeu_ps(g2 + 8u * j, x[j]);
                }
            }
        }
#if defined(CC_ROWS_DIRECT8)
    rots:
#endif
        tj += nv;
        cc_rots_finish(grp, ng, u, NULL, NULL, NULL);
        cc_store_rots(grp, ng, nr, rj, pl, local, soa);
        rj += nr, pl += CC_PLACE_WORDS * ng;
        if (cb) cb += S * (4u * nr8 + 3u * nv8);
    }
    if (cache) {
        cc_cache_tag(c, cache, k0, S);
        cache[CC_CACHE_NEXT] = look ? k0 + 3u : 0u;
    }
}

__attribute__((noinline)) static void cc_rows_decode_cached(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, float u,
                                                           sk_transform *local, float *soa, uint32_t *cache, uint32_t k0,
                                                           uint32_t S, int only, uint32_t i0, uint32_t i1, uint32_t i2) {
    cc_rows_decode(c, s0, s1, u, local, soa, cache, k0, S, only, i0, i1, i2);
}

/* A rows decoder's sample (arguments as cc_sample_body). The cache keeps
 * frames in a ring of S slots (header word SK_CC_CACHE_SLOTS: 2, or 3 in a
 * cursor of sk_clip_cursor_ahead_size words; frame f in slot f % S): per
 * chunk, per group of eight rotations its S slots side by side (each the
 * four placed rows, as the other decoders keep them, 32 floats), then per
 * slot its translations' and scales' three rows (padded to 8), so that a
 * pair is read from neighbouring words and a step keeps its frame where it
 * is: pair K (frames K and K + 1; its tag, cc_cache_tag)
 * and, with three slots, when header word CC_CACHE_NEXT is K + 3, frame
 * K + 2, decoded ahead on a step forward so that the next pair needs no
 * decoding. */
__attribute__((noinline)) void CC_ROWS_CACHED(const sk_clip *c, uint32_t k0, float u, sk_transform *local, float *soa,
                                              uint32_t *cache) {
    uint32_t N = c->cc.frames;
    /* hit: the cache holds this pair (the tagged one, or the one after it when frame K + 2 is
     * there); else a step: it holds this pair's first frame (only 1: forward) or its second
     * (only 2: back), kept as it would be decoded now, and only the other frame is decoded;
     * a step forward decodes the frame after it too where the clip has one (look) */
    bool hit = false;
    int only = 0;
    /* the frames the cursor has room for (sk_cclip_cache): its ring's slots, part of the tag */
    uint32_t S = cache && cache[SK_CC_CACHE_SLOTS] == 3u ? 3u : 2u;
    uint32_t K = cache ? cache[0] - 1u : 0u; /* the pair the cache names, if its tag is whole */
    if (cache && cache[0] && cc_cache_hit(c, cache, K, S)) {
        bool next = S == 3u && cache[CC_CACHE_NEXT] == K + 3u;
        if (k0 == K || (k0 == K + 1u && next)) hit = true;
        else if (k0 == K + 1u || (k0 == K + 2u && next)) only = 1;
        else if (k0 + 1u == K && K < N) only = 2;
    }
    cache = cc_begin(c, cache, k0, hit || only, local);
    /* the slots of this pair's frames and of the one after (frames k0, k0 + 1, k0 + 2) */
    uint32_t i0 = S == 3u ? k0 % 3u : k0 & 1u, i1 = i0 + 1u == S ? 0u : i0 + 1u, i2 = i1 + 1u == S ? 0u : i1 + 1u;
    if (hit) {
        cc_rows_hit(c, u, local, soa, cache, S, i0, i1);
        return;
    }
    cc_cursor s0, s1; /* the frames' cursors, only where one is decoded */
    cc_at_pair(c, k0, &s0, &s1);
    cc_rows_decode_cached(c, &s0, &s1, u, local, soa, cache, k0, S, only, i0, i1, i2);
}
__attribute__((noinline)) void CC_ROWS_PLAIN(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, float u, sk_transform *local,
                                             float *soa) {
    cc_begin(c, NULL, 0, false, local);
    cc_rows_decode(c, s0, s1, u, local, soa, NULL, 0, 2u, 0, 0u, 1u, 0u);
}
