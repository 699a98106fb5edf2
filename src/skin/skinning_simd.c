/* CPU skinning kernels for x86-64: SSE2 (baseline), AVX2+FMA and AVX-512
 * (compiled with target attributes, called only when the CPU has them — see
 * sk_skin_run). Every kernel skins the vertices of one influence group
 * (skinning_internal.h): the influence count is a constant for the call, so
 * the AVX2 and AVX-512 LBS kernels are instantiated per count (1, 2, 3, 4,
 * 5-8) and a vertex costs exactly its influences.
 *
 * LBS (AVX2, AVX-512: lbs_group.h) walks a group's vertices eight at a time:
 * per vertex the blended matrix (columns 0|1 and 2|3 in two 256-bit
 * registers: an influence costs two loads and two FMAs; one influence is the
 * palette matrix itself), then position and normal transformed together in
 * one register; the eight normals (and tangents) are normalised together,
 * transposed in registers, and eight consecutive vertices written with three
 * 256-bit stores per array. Positions, normals, tangents and morph targets
 * go in one pass. The AVX-512 level has its own kernel for positions +
 * normals (four vertices per 512-bit register, lbs_fast512 below) and runs
 * the AVX2 code compiled for AVX-512 (32 registers, three-float masked
 * stores) for everything else. SSE2 LBS works vertex by vertex
 * with the matrix's four columns in four registers. DQS of positions and
 * normals (no morphing) runs 4 (SSE2) or 8 (AVX2) of a group's vertices at a
 * time in structure-of-arrays form (dqs_soa.h); with
 * tangents or morph targets it blends the 8 floats of the dual quaternion in
 * SIMD registers per vertex and finishes in the shared scalar code. */
#include "skin/skinning_internal.h"

#ifdef SK_SKIN_X86
#include <immintrin.h>

static inline void store3(float *o, __m128 r) { skm_c4_store3(o, r); }

/* r / |r.xyz| (r.w ignored): rsqrt refined by one Newton step (relative
 * error ~1e-7, well inside the 1e-5 agreement with the scalar 1/sqrt). A
 * squared length outside sk_skin_norm_direct's range (zero, tiny, or
 * overflowing float) goes to the scalar slow path, as in the scalar kernel. */
static inline __m128 normalize_fallback(__m128 r) {
    float v[4];
    _mm_storeu_ps(v, r);
    sk_skin_normalize3_slow(v);
    return _mm_loadu_ps(v);
}

static inline __m128 normalize3_sse(__m128 r) {
    __m128 s = _mm_mul_ps(r, r);
    __m128 l2 = _mm_add_ss(_mm_add_ss(s, _mm_shuffle_ps(s, s, 1)), _mm_shuffle_ps(s, s, 2));
    if (!sk_skin_norm_direct(_mm_cvtss_f32(l2))) return normalize_fallback(r);
    l2 = _mm_shuffle_ps(l2, l2, 0);
    __m128 y = _mm_rsqrt_ps(l2);
    y = _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(0.5f), y),
                   _mm_sub_ps(_mm_set1_ps(3.0f), _mm_mul_ps(_mm_mul_ps(l2, y), y)));
    return _mm_mul_ps(r, y);
}

#define SPLAT(v, i) _mm_shuffle_ps((v), (v), _MM_SHUFFLE(i, i, i, i))

static inline __attribute__((always_inline)) void lbs_sse2_k(const sk_skin_ctx *c, const sk_skin_group *g, uint32_t e0,
                                                              uint32_t e1, const uint32_t k) {
    const sk_skinned_mesh *m = c->mesh;
    const float *pal = c->palette;
    for (uint32_t e = e0; e < e1; e++) {
        uint32_t v = g->index[e];
        size_t o = v - c->first;
        float bp[4], bn[4], bt[4];
        const float *p, *n, *t;
        sk_skin_fetch(c, v, &p, &n, &t, bp, bn, bt);
        const uint16_t *jj = g->joints + (size_t)e * k;
        const float *ww = g->weights + (size_t)e * k;
        const float *P = pal + 16 * (size_t)jj[0];
        __m128 w = _mm_set1_ps(ww[0]);
        __m128 c0 = _mm_mul_ps(w, _mm_loadu_ps(P));
        __m128 c1 = _mm_mul_ps(w, _mm_loadu_ps(P + 4));
        __m128 c2 = _mm_mul_ps(w, _mm_loadu_ps(P + 8));
        __m128 c3 = _mm_mul_ps(w, _mm_loadu_ps(P + 12));
        for (uint32_t q = 1, cnt = k == 8 ? m->count[v] : k; q < cnt; q++) {
            P = pal + 16 * (size_t)jj[q];
            w = _mm_set1_ps(ww[q]);
            c0 = _mm_add_ps(c0, _mm_mul_ps(w, _mm_loadu_ps(P)));
            c1 = _mm_add_ps(c1, _mm_mul_ps(w, _mm_loadu_ps(P + 4)));
            c2 = _mm_add_ps(c2, _mm_mul_ps(w, _mm_loadu_ps(P + 8)));
            c3 = _mm_add_ps(c3, _mm_mul_ps(w, _mm_loadu_ps(P + 12)));
        }
        if (c->op) {
            __m128 pv = _mm_loadu_ps(p);
            __m128 r = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(c0, SPLAT(pv, 0)), _mm_mul_ps(c1, SPLAT(pv, 1))),
                                             _mm_mul_ps(c2, SPLAT(pv, 2))),
                                  c3);
            store3(c->op + o * c->ps, r);
        }
        if (c->on) {
            __m128 nv = _mm_loadu_ps(n);
            __m128 r = _mm_add_ps(_mm_add_ps(_mm_mul_ps(c0, SPLAT(nv, 0)), _mm_mul_ps(c1, SPLAT(nv, 1))),
                                  _mm_mul_ps(c2, SPLAT(nv, 2)));
            store3(c->on + o * c->ns, normalize3_sse(r));
        }
        if (c->ot) {
            __m128 tv = _mm_loadu_ps(t);
            __m128 r = _mm_add_ps(_mm_add_ps(_mm_mul_ps(c0, SPLAT(tv, 0)), _mm_mul_ps(c1, SPLAT(tv, 1))),
                                  _mm_mul_ps(c2, SPLAT(tv, 2)));
            float *ot = c->ot + o * c->ts;
            store3(ot, normalize3_sse(r));
            ot[3] = t[3];
        }
    }
}

/* Vertex by vertex, the influence count a constant per group. */
void sk_skin_lbs_sse2(const sk_skin_ctx *c, const sk_skin_group *g, uint32_t e0, uint32_t e1) {
    switch (g->slots) {
    case 1: lbs_sse2_k(c, g, e0, e1, 1); break;
    case 2: lbs_sse2_k(c, g, e0, e1, 2); break;
    case 3: lbs_sse2_k(c, g, e0, e1, 3); break;
    case 4: lbs_sse2_k(c, g, e0, e1, 4); break;
    default: lbs_sse2_k(c, g, e0, e1, 8); break;
    }
}


/* Four dual quaternions (rows) -> eight vectors of one component each. */
#define SOA_LOAD_DQ(D, src)                                                                                     \
    do {                                                                                                        \
        const float *dual_[4] = {src[0] + 4, src[1] + 4, src[2] + 4, src[3] + 4};                              \
        __m128 r_[4], d_[4];                                                                                    \
        skm_soa4_load(src, r_);                                                                                 \
        skm_soa4_load(dual_, d_);                                                                               \
        for (int e_ = 0; e_ < 4; e_++) D[e_] = (SOA_VF)r_[e_], D[e_ + 4] = (SOA_VF)d_[e_];                      \
    } while (0)
/* Four vertices' x, y, z (base + 3 * vv[l], read as 4 floats) -> x, y, z vectors. */
#define SOA_LOAD_XYZ(X, Y, Z, base, vv)                                                                         \
    do {                                                                                                        \
        const float *rows_[4] = {(base) + 3 * (size_t)(vv)[0], (base) + 3 * (size_t)(vv)[1],                   \
                                 (base) + 3 * (size_t)(vv)[2], (base) + 3 * (size_t)(vv)[3]};                  \
        __m128 a_[4];                                                                                           \
        skm_soa4_load(rows_, a_);                                                                               \
        X = (SOA_VF)a_[0], Y = (SOA_VF)a_[1], Z = (SOA_VF)a_[2];                                                \
    } while (0)
#define SOA_W 4
#define SOA_FN dqs_soa_sse2
#define SOA_ATTR
#define SOA_SQRT(x) ((SOA_VF)_mm_sqrt_ps((__m128)(x)))
#define SOA_VF soa4_vf
#define SOA_VI soa4_vi
#include "skin/dqs_soa.h"
#undef SOA_W
#undef SOA_FN
#undef SOA_ATTR
#undef SOA_SQRT
#undef SOA_VF
#undef SOA_VI
#undef SOA_LOAD_DQ
#undef SOA_LOAD_XYZ

static void dqs_sse2_run(const sk_skin_ctx *c, const sk_skin_group *g, uint32_t e0, uint32_t e1) {
    const sk_skinned_mesh *m = c->mesh;
    const uint32_t k = g->slots;
    /* Positions and normals without morphing: four vertices at a time (SoA). */
    uint32_t done = !c->morph_count && !c->ot ? dqs_soa_sse2(c, g, e0, e1) : 0;
    for (uint32_t e = e0 + done; e < e1; e++) {
        uint32_t v = g->index[e];
        float bp[4], bn[4], bt[4];
        const float *p, *n, *t;
        sk_skin_fetch(c, v, &p, &n, &t, bp, bn, bt);
        const uint16_t *jj = g->joints + (size_t)e * k;
        const float *ww = g->weights + (size_t)e * k;
        const float *D = c->dq + 8 * (size_t)jj[0];
        __m128 q0 = _mm_loadu_ps(D);
        __m128 w = _mm_set1_ps(ww[0]);
        __m128 br = _mm_mul_ps(w, q0);
        __m128 bd = _mm_mul_ps(w, _mm_loadu_ps(D + 4));
        for (uint32_t q = 1, cnt = k == 8 ? m->count[v] : k; q < cnt; q++) {
            D = c->dq + 8 * (size_t)jj[q];
            __m128 r = _mm_loadu_ps(D);
            __m128 s = _mm_mul_ps(q0, r);
            s = _mm_add_ps(s, _mm_movehl_ps(s, s));
            s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
            /* antipodal fix: flip the weight's sign when the dot is negative */
            __m128 sign = _mm_and_ps(_mm_cmplt_ss(s, _mm_setzero_ps()), _mm_set_ss(-0.0f));
            w = _mm_xor_ps(_mm_set_ss(ww[q]), sign);
            w = _mm_shuffle_ps(w, w, 0);
            br = _mm_add_ps(br, _mm_mul_ps(w, r));
            bd = _mm_add_ps(bd, _mm_mul_ps(w, _mm_loadu_ps(D + 4)));
        }
        float b[8];
        _mm_storeu_ps(b, br);
        _mm_storeu_ps(b + 4, bd);
        sk_skin_dq_finish(c, v - c->first, b, p, n, t);
    }
}

void sk_skin_dqs_sse2(const sk_skin_ctx *c, const sk_skin_group *g, uint32_t e0, uint32_t e1) {
    dqs_sse2_run(c, g, e0, e1);
}

/* ---- AVX2 + FMA ----------------------------------------------------------------- */

#if defined(__GNUC__) || defined(__clang__)
#define SK_AVX2 __attribute__((target("avx2,fma")))
#else
#define SK_AVX2
#endif

/* One normal, with the roundings of normalize8_rows (z z + (y y + x x) by
 * two FMAs, the same estimate and Newton step): a vertex skinned alone at a
 * group's end gets the bits it would get among eight. */
SK_AVX2 static inline __m128 avx_normalize3(__m128 r) {
    __m128 y_ = _mm_movehdup_ps(r), z_ = _mm_movehl_ps(r, r);
    __m128 l2 = _mm_fmadd_ss(z_, z_, _mm_fmadd_ss(y_, y_, _mm_mul_ss(r, r)));
    if (!sk_skin_norm_direct(_mm_cvtss_f32(l2))) return normalize_fallback(r);
    l2 = _mm_broadcastss_ps(l2);
    __m128 y = _mm_rsqrt_ps(l2);
    y = _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(0.5f), y), _mm_fnmadd_ps(_mm_mul_ps(l2, y), y, _mm_set1_ps(3.0f)));
    return _mm_mul_ps(r, y);
}

#define SK_INLINE inline __attribute__((always_inline))
/* Palette matrix of a joint given as joint * 8 (sk_skin_group.joint8): 64 bytes per matrix. */
#define PAL_AT(pal, j8) ((const float *)(const void *)((const char *)(pal) + 8 * (size_t)(j8)))
/* gcc keeps a loop's __m256 arrays on the stack unless the loop is unrolled;
 * clang unrolls it by itself (and measured slower with the pragma). */
#if defined(__clang__)
#define SK_UNROLL4
#else
#define SK_UNROLL4 _Pragma("GCC unroll 4")
#endif

/* The blended matrix of one vertex with K influences (a constant where
 * inlined; K == 8 means 5-8: the eight slots, zero-weight padding
 * included, cost less than a loop over cnt): columns 0|1 in *o01, 2|3 in *o23.
 * One influence has weight exactly 1: the palette matrix itself. */
SK_AVX2 static SK_INLINE void lbs_blend_avx2(const float *pal, const uint16_t *jj, const float *ww, const uint32_t K,
                                             uint32_t cnt, __m256 *o01, __m256 *o23) {
    const float *P0 = PAL_AT(pal, jj[0]);
    if (K == 1) {
        *o01 = _mm256_loadu_ps(P0);
        *o23 = _mm256_loadu_ps(P0 + 8);
        return;
    }
    const float *P1 = PAL_AT(pal, jj[1]);
    __m256 w0 = _mm256_set1_ps(ww[0]), w1 = _mm256_set1_ps(ww[1]);
    __m256 a01 = _mm256_mul_ps(w0, _mm256_loadu_ps(P0));
    __m256 a23 = _mm256_mul_ps(w0, _mm256_loadu_ps(P0 + 8));
    if (K == 2) {
        *o01 = _mm256_fmadd_ps(w1, _mm256_loadu_ps(P1), a01);
        *o23 = _mm256_fmadd_ps(w1, _mm256_loadu_ps(P1 + 8), a23);
        return;
    }
    /* Two accumulators: two independent chains of FMAs. */
    __m256 b01 = _mm256_mul_ps(w1, _mm256_loadu_ps(P1));
    __m256 b23 = _mm256_mul_ps(w1, _mm256_loadu_ps(P1 + 8));
    const float *P2 = PAL_AT(pal, jj[2]);
    __m256 w2 = _mm256_set1_ps(ww[2]);
    a01 = _mm256_fmadd_ps(w2, _mm256_loadu_ps(P2), a01);
    a23 = _mm256_fmadd_ps(w2, _mm256_loadu_ps(P2 + 8), a23);
    if (K >= 4) {
        const float *P3 = PAL_AT(pal, jj[3]);
        __m256 w3 = _mm256_set1_ps(ww[3]);
        b01 = _mm256_fmadd_ps(w3, _mm256_loadu_ps(P3), b01);
        b23 = _mm256_fmadd_ps(w3, _mm256_loadu_ps(P3 + 8), b23);
    }
    if (K == 8) { /* 5-8: all eight slots, the padding has weight 0 (no branch), two chains */
        (void)cnt;
        for (uint32_t q = 4; q < 8; q += 2) {
            const float *P = PAL_AT(pal, jj[q]), *Q = PAL_AT(pal, jj[q + 1]);
            __m256 w = _mm256_set1_ps(ww[q]), x = _mm256_set1_ps(ww[q + 1]);
            a01 = _mm256_fmadd_ps(w, _mm256_loadu_ps(P), a01);
            a23 = _mm256_fmadd_ps(w, _mm256_loadu_ps(P + 8), a23);
            b01 = _mm256_fmadd_ps(x, _mm256_loadu_ps(Q), b01);
            b23 = _mm256_fmadd_ps(x, _mm256_loadu_ps(Q + 8), b23);
        }
    }
    *o01 = _mm256_add_ps(a01, b01);
    *o23 = _mm256_add_ps(a23, b23);
}

/* The mesh's streams in locals: outputs are stored through types that may
 * alias anything, so fields read through c->mesh would be reloaded per vertex. */
typedef struct lbs_streams {
    const float *pos, *nrm, *tan;
    const uint8_t *count;
} lbs_streams;

/* Source data of vertex v: the mesh's streams, or (morph) base + deltas in b*. */
static SK_INLINE void lbs_source(const sk_skin_ctx *c, const lbs_streams *st, bool morph, uint32_t v,
                                 const float **p, const float **n, const float **t, float bp[4], float bn[4],
                                 float bt[4]) {
    if (morph) {
        sk_skin_fetch(c, v, p, n, t, bp, bn, bt);
        return;
    }
    *p = st->pos + 3 * (size_t)v;
    *n = st->nrm ? st->nrm + 3 * (size_t)v : NULL;
    *t = st->tan ? st->tan + 4 * (size_t)v : NULL;
}

/* Four registers of two xyzw rows each (vertices 0|1, 2|3, 4|5, 6|7) ->
 * 24 packed floats x0 y0 z0 x1 ... z7 at dst (three stores, no overlap). */
SK_AVX2 static SK_INLINE void pack3_store8(const __m256 r[4], float *dst) {
    const __m256i i0a = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 0, 0), i0b = _mm256_setr_epi32(0, 0, 0, 0, 0, 0, 0, 1);
    const __m256i i1a = _mm256_setr_epi32(2, 4, 5, 6, 0, 0, 0, 0), i1b = _mm256_setr_epi32(0, 0, 0, 0, 0, 1, 2, 4);
    const __m256i i2a = _mm256_setr_epi32(5, 6, 0, 0, 0, 0, 0, 0), i2b = _mm256_setr_epi32(0, 0, 0, 1, 2, 4, 5, 6);
    __m256 o0 = _mm256_blend_ps(_mm256_permutevar8x32_ps(r[0], i0a), _mm256_permutevar8x32_ps(r[1], i0b), 0xC0);
    __m256 o1 = _mm256_blend_ps(_mm256_permutevar8x32_ps(r[1], i1a), _mm256_permutevar8x32_ps(r[2], i1b), 0xF0);
    __m256 o2 = _mm256_blend_ps(_mm256_permutevar8x32_ps(r[2], i2a), _mm256_permutevar8x32_ps(r[3], i2b), 0xFC);
    _mm256_storeu_ps(dst, o0);
    _mm256_storeu_ps(dst + 8, o1);
    _mm256_storeu_ps(dst + 16, o2);
}

/* Normalises the xyz of eight rows held as in pack3_store8 (w ignored, set
 * to 0): transposed in registers, the same operations as normalize8_store
 * lane by lane, transposed back. Lengths outside sk_skin_norm_direct's range
 * take the scalar slow path, row by row. */
SK_AVX2 static SK_INLINE void normalize8_rows(__m256 r[4]) {
    __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    /* lanes hold vertices 0 2 4 6 | 1 3 5 7 */
    __m256 X = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(t0), _mm256_castps_pd(t2)));
    __m256 Y = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(t0), _mm256_castps_pd(t2)));
    __m256 Z = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(t1), _mm256_castps_pd(t3)));
    __m256 l2 = _mm256_fmadd_ps(Z, Z, _mm256_fmadd_ps(Y, Y, _mm256_mul_ps(X, X)));
    __m256 ok = _mm256_and_ps(_mm256_cmp_ps(l2, _mm256_set1_ps(1e-30f), _CMP_GT_OQ),
                              _mm256_cmp_ps(l2, _mm256_set1_ps(3.0e38f), _CMP_LE_OQ));
    if (_mm256_movemask_ps(ok) != 0xFF) { /* zero, tiny or overflowing lengths: row by row */
        for (int h = 0; h < 4; h++) {
            _Alignas(32) float rows[8];
            _mm256_store_ps(rows, r[h]);
            for (int e = 0; e < 2; e++) {
                sk_skin_normalize3(rows + 4 * e);
                rows[4 * e + 3] = 0.0f;
            }
            r[h] = _mm256_load_ps(rows);
        }
        return;
    }
    __m256 y = _mm256_rsqrt_ps(l2);
    y = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), y),
                      _mm256_fnmadd_ps(_mm256_mul_ps(l2, y), y, _mm256_set1_ps(3.0f)));
    X = _mm256_mul_ps(X, y), Y = _mm256_mul_ps(Y, y), Z = _mm256_mul_ps(Z, y);
    __m256 xy0 = _mm256_unpacklo_ps(X, Y), xy1 = _mm256_unpackhi_ps(X, Y); /* x0 y0 x2 y2 | x1 y1 x3 y3; 4 6 | 5 7 */
    __m256 z0 = _mm256_unpacklo_ps(Z, _mm256_setzero_ps()), z1 = _mm256_unpackhi_ps(Z, _mm256_setzero_ps());
    r[0] = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(xy0), _mm256_castps_pd(z0)));
    r[1] = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(xy0), _mm256_castps_pd(z0)));
    r[2] = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(xy1), _mm256_castps_pd(z1)));
    r[3] = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(xy1), _mm256_castps_pd(z1)));
}

/* Rows r (as in pack3_store8) of the vertices vv[0..7] to dst + (vv[l] -
 * first) * stride, three floats each (STORE3); with w, the fourth float too. */
#define ROWS_STORE3_FN(NAME, ATTR, STORE3)                                                                      \
    ATTR static SK_INLINE void NAME(const __m256 r[4], const uint32_t *vv, uint32_t first, float *dst,         \
                                    size_t stride, const float *w) {                                            \
        for (uint32_t l = 0; l < 8; l++) {                                                                      \
            __m128 row = l & 1 ? _mm256_extractf128_ps(r[l >> 1], 1) : _mm256_castps256_ps128(r[l >> 1]);      \
            float *d = dst + (size_t)(vv[l] - first) * stride;                                                  \
            STORE3(d, row);                                                                                     \
            if (w) d[3] = w[l];                                                                                 \
        }                                                                                                       \
    }
ROWS_STORE3_FN(rows_store3, SK_AVX2, store3)

/* [M p | M n] in one register from the columns duplicated in both halves
 * (C3z: column 3 below, zero above): p and n side by side, each splatted by
 * an in-lane shuffle, three FMAs. */
SK_AVX2 static SK_INLINE __m256 xform_pn_avx2(__m256 C0, __m256 C1, __m256 C2, __m256 C3z, __m128 p, __m128 n) {
    __m256 pn = _mm256_insertf128_ps(_mm256_castps128_ps256(p), n, 1);
    __m256 X = _mm256_permute_ps(pn, 0x00), Y = _mm256_permute_ps(pn, 0x55), Z = _mm256_permute_ps(pn, 0xAA);
    return _mm256_fmadd_ps(Z, C2, _mm256_fmadd_ps(Y, C1, _mm256_fmadd_ps(X, C0, C3z)));
}

/* One vertex, AVX2: the blended matrix, then [M p | M n] (n only if asked;
 * else the high half is M applied to p's direction) and M t if asked. One
 * influence loads its palette matrix's columns straight into both halves. */
SK_AVX2 static SK_INLINE void lbs_vertex_avx2(const float *pal, const uint16_t *jj, const float *ww, const uint32_t K,
                                              uint32_t cnt, const float *p, const float *n, const float *t, bool want_n,
                                              bool want_t, __m256 *rpn, __m128 *rt) {
    __m256 C0, C1, C2, C3z;
    if (K == 1) {
        const float *P = PAL_AT(pal, jj[0]);
        C0 = _mm256_broadcast_ps((const __m128 *)(const void *)P);
        C1 = _mm256_broadcast_ps((const __m128 *)(const void *)(P + 4));
        C2 = _mm256_broadcast_ps((const __m128 *)(const void *)(P + 8));
        C3z = _mm256_blend_ps(_mm256_broadcast_ps((const __m128 *)(const void *)(P + 12)), _mm256_setzero_ps(), 0xF0);
    } else {
        __m256 a01, a23;
        lbs_blend_avx2(pal, jj, ww, K, cnt, &a01, &a23);
        C0 = _mm256_permute2f128_ps(a01, a01, 0x00);
        C1 = _mm256_permute2f128_ps(a01, a01, 0x11);
        C2 = _mm256_permute2f128_ps(a23, a23, 0x00);
        C3z = _mm256_permute2f128_ps(a23, a23, 0x81);
    }
    __m128 pv = _mm_loadu_ps(p);
    *rpn = xform_pn_avx2(C0, C1, C2, C3z, pv, want_n ? _mm_loadu_ps(n) : pv);
    if (want_t) {
        __m256 r = xform_pn_avx2(C0, C1, C2, C3z, pv, _mm_loadu_ps(t));
        *rt = _mm256_extractf128_ps(r, 1);
    } else {
        *rt = _mm_setzero_ps();
    }
}

/* Two vertices A and B, AVX2: the two blended matrices' columns paired,
 * [column of A | column of B] (one 128-bit permute per column), then
 * [M_A p_A | M_B p_B] by the same splats and FMAs as xform_pn_avx2 (the
 * same roundings: a vertex gets identical results alone or in a pair), the
 * normals and tangents likewise if asked. */
SK_AVX2 static SK_INLINE void lbs_pair_avx2(const float *pal, const uint16_t *ja, const float *wa, const uint16_t *jb,
                                            const float *wb, const uint32_t K, uint32_t cnt_a, uint32_t cnt_b,
                                            const float *const p[2], const float *const n[2], const float *const t[2],
                                            bool want_n, bool want_t, __m256 *P, __m256 *N, __m256 *T) {
    __m256 C0, C1, C2, C3;
    if (K == 1) {
        const float *A = PAL_AT(pal, ja[0]), *B = PAL_AT(pal, jb[0]);
        C0 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(A)), _mm_loadu_ps(B), 1);
        C1 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(A + 4)), _mm_loadu_ps(B + 4), 1);
        C2 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(A + 8)), _mm_loadu_ps(B + 8), 1);
        C3 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(A + 12)), _mm_loadu_ps(B + 12), 1);
    } else {
        __m256 a01, a23, b01, b23;
        lbs_blend_avx2(pal, ja, wa, K, cnt_a, &a01, &a23);
        lbs_blend_avx2(pal, jb, wb, K, cnt_b, &b01, &b23);
        C0 = _mm256_permute2f128_ps(a01, b01, 0x20);
        C1 = _mm256_permute2f128_ps(a01, b01, 0x31);
        C2 = _mm256_permute2f128_ps(a23, b23, 0x20);
        C3 = _mm256_permute2f128_ps(a23, b23, 0x31);
    }
    __m256 v = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p[0])), _mm_loadu_ps(p[1]), 1);
    *P = _mm256_fmadd_ps(_mm256_permute_ps(v, 0xAA), C2,
                         _mm256_fmadd_ps(_mm256_permute_ps(v, 0x55), C1, _mm256_fmadd_ps(_mm256_permute_ps(v, 0x00), C0, C3)));
    if (want_n) {
        v = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(n[0])), _mm_loadu_ps(n[1]), 1);
        *N = _mm256_fmadd_ps(_mm256_permute_ps(v, 0xAA), C2,
                             _mm256_fmadd_ps(_mm256_permute_ps(v, 0x55), C1, _mm256_mul_ps(_mm256_permute_ps(v, 0x00), C0)));
    } else {
        *N = _mm256_setzero_ps();
    }
    if (want_t) {
        v = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(t[0])), _mm_loadu_ps(t[1]), 1);
        *T = _mm256_fmadd_ps(_mm256_permute_ps(v, 0xAA), C2,
                             _mm256_fmadd_ps(_mm256_permute_ps(v, 0x55), C1, _mm256_mul_ps(_mm256_permute_ps(v, 0x00), C0)));
    } else {
        *T = _mm256_setzero_ps();
    }
}

#define LBS_GROUP_FN lbs_group_avx2
#define LBS_ATTR SK_AVX2
#define LBS_VERTEX lbs_vertex_avx2
#define LBS_PAIR lbs_pair_avx2
#define LBS_STORE3 store3
#define LBS_ROWS_STORE3 rows_store3
#include "skin/lbs_group.h"
#undef LBS_GROUP_FN
#undef LBS_ATTR
#undef LBS_VERTEX
#undef LBS_PAIR
#undef LBS_STORE3
#undef LBS_ROWS_STORE3

/* Calls run(c, g, e0, e1, K, FAST) with K = the group's slots and FAST =
 * positions + normals without morphing, both as constants. */
#define SK_LBS_DISPATCH(run, c, g, lo, hi)                                                                       \
    do {                                                                                                         \
        const bool fast_ = (c)->op && (c)->on && !(c)->ot && !(c)->morph_count;                                  \
        switch ((g)->slots) {                                                                                    \
        case 1: fast_ ? run(c, g, lo, hi, 1, true) : run(c, g, lo, hi, 1, false); break;                         \
        case 2: fast_ ? run(c, g, lo, hi, 2, true) : run(c, g, lo, hi, 2, false); break;                         \
        case 3: fast_ ? run(c, g, lo, hi, 3, true) : run(c, g, lo, hi, 3, false); break;                         \
        case 4: fast_ ? run(c, g, lo, hi, 4, true) : run(c, g, lo, hi, 4, false); break;                         \
        default: fast_ ? run(c, g, lo, hi, 8, true) : run(c, g, lo, hi, 8, false); break;                        \
        }                                                                                                        \
    } while (0)

SK_AVX2 void sk_skin_lbs_avx2(const sk_skin_ctx *c, const sk_skin_group *g, uint32_t e0, uint32_t e1) {
    if (!g->joint8) { /* a palette of more than SK_SKIN_JOINT8_MAX joints */
        sk_skin_lbs_sse2(c, g, e0, e1);
        return;
    }
    SK_LBS_DISPATCH(lbs_group_avx2, c, g, e0, e1);
}

/* Eight dual quaternions (rows of 8 floats) -> eight component vectors: an
 * 8x8 transpose (unpack, shuffle, then swap 128-bit halves). */
#define SOA_LOAD_DQ(D, src)                                                                                     \
    do {                                                                                                        \
        __m256 r[8], t[8], u[8];                                                                                \
        for (int l_ = 0; l_ < 8; l_++) r[l_] = _mm256_loadu_ps(src[l_]);                                       \
        for (int l_ = 0; l_ < 8; l_ += 2) {                                                                     \
            t[l_] = _mm256_unpacklo_ps(r[l_], r[l_ + 1]);                                                       \
            t[l_ + 1] = _mm256_unpackhi_ps(r[l_], r[l_ + 1]);                                                   \
        }                                                                                                       \
        for (int l_ = 0; l_ < 8; l_ += 4) {                                                                     \
            u[l_] = _mm256_shuffle_ps(t[l_], t[l_ + 2], 0x44);                                                  \
            u[l_ + 1] = _mm256_shuffle_ps(t[l_], t[l_ + 2], 0xEE);                                              \
            u[l_ + 2] = _mm256_shuffle_ps(t[l_ + 1], t[l_ + 3], 0x44);                                          \
            u[l_ + 3] = _mm256_shuffle_ps(t[l_ + 1], t[l_ + 3], 0xEE);                                          \
        }                                                                                                       \
        for (int e_ = 0; e_ < 4; e_++) {                                                                        \
            D[e_] = (SOA_VF)_mm256_permute2f128_ps(u[e_], u[e_ + 4], 0x20);                                     \
            D[e_ + 4] = (SOA_VF)_mm256_permute2f128_ps(u[e_], u[e_ + 4], 0x31);                                 \
        }                                                                                                       \
    } while (0)
/* Eight vertices' x, y, z (read as 4 floats) -> x, y, z vectors (two 4x4 transposes). */
#define SOA_LOAD_XYZ(X, Y, Z, base, vv)                                                                         \
    do {                                                                                                        \
        const float *rows_[8] = {(base) + 3 * (size_t)(vv)[0], (base) + 3 * (size_t)(vv)[1],                   \
                                 (base) + 3 * (size_t)(vv)[2], (base) + 3 * (size_t)(vv)[3],                   \
                                 (base) + 3 * (size_t)(vv)[4], (base) + 3 * (size_t)(vv)[5],                   \
                                 (base) + 3 * (size_t)(vv)[6], (base) + 3 * (size_t)(vv)[7]};                  \
        __m256 a_[4];                                                                                           \
        skm_soa8_load(rows_, a_);                                                                               \
        X = (SOA_VF)a_[0], Y = (SOA_VF)a_[1], Z = (SOA_VF)a_[2];                                                \
    } while (0)
#define SOA_W 8
#define SOA_FN dqs_soa_avx2
#define SOA_ATTR SK_AVX2
#define SOA_SQRT(x) ((SOA_VF)_mm256_sqrt_ps((__m256)(x)))
#define SOA_VF soa8_vf
#define SOA_VI soa8_vi
#include "skin/dqs_soa.h"
#undef SOA_W
#undef SOA_FN
#undef SOA_ATTR
#undef SOA_SQRT
#undef SOA_VF
#undef SOA_VI
#undef SOA_LOAD_DQ
#undef SOA_LOAD_XYZ

SK_AVX2 static void dqs_avx2_run(const sk_skin_ctx *c, const sk_skin_group *g, uint32_t e0, uint32_t e1) {
    const sk_skinned_mesh *m = c->mesh;
    const uint32_t k = g->slots;
    /* Positions and normals without morphing: eight vertices at a time (SoA). */
    uint32_t done = !c->morph_count && !c->ot ? dqs_soa_avx2(c, g, e0, e1) : 0;
    for (uint32_t e = e0 + done; e < e1; e++) {
        uint32_t v = g->index[e];
        float bp[4], bn[4], bt[4];
        const float *p, *n, *t;
        sk_skin_fetch(c, v, &p, &n, &t, bp, bn, bt);
        const uint16_t *jj = g->joints + (size_t)e * k;
        const float *ww = g->weights + (size_t)e * k;
        const float *D = c->dq + 8 * (size_t)jj[0];
        __m128 q0 = _mm_loadu_ps(D);
        __m256 b = _mm256_mul_ps(_mm256_set1_ps(ww[0]), _mm256_loadu_ps(D));
        for (uint32_t q = 1, cnt = k == 8 ? m->count[v] : k; q < cnt; q++) {
            D = c->dq + 8 * (size_t)jj[q];
            __m256 d = _mm256_loadu_ps(D);
            __m128 s = _mm_dp_ps(q0, _mm256_castps256_ps128(d), 0xF1);
            __m128 sign = _mm_and_ps(_mm_cmplt_ss(s, _mm_setzero_ps()), _mm_set_ss(-0.0f));
            __m128 w = _mm_xor_ps(_mm_set_ss(ww[q]), sign);
            b = _mm256_fmadd_ps(_mm256_broadcastss_ps(w), d, b);
        }
        float bb[8];
        _mm256_storeu_ps(bb, b);
        sk_skin_dq_finish(c, v - c->first, bb, p, n, t);
    }
}

SK_AVX2 void sk_skin_dqs_avx2(const sk_skin_ctx *c, const sk_skin_group *g, uint32_t e0, uint32_t e1) {
    dqs_avx2_run(c, g, e0, e1);
}

/* ---- AVX-512 ------------------------------------------------------------------ */

#if defined(__GNUC__) || defined(__clang__)
#define SK_AVX512 __attribute__((target("avx512f,avx512vl,avx2,fma")))
#else
#define SK_AVX512
#endif

/* Three floats in one masked store (AVX-512VL): the scattered and the last
 * outputs cost one instruction instead of two stores and a shuffle. */
SK_AVX512 static SK_INLINE void store3_avx512(float *o, __m128 r) { _mm_mask_storeu_ps(o, 0x7, r); }
ROWS_STORE3_FN(rows_store3_avx512, SK_AVX512, store3_avx512)

/* Jobs with tangents, morph targets or only some outputs: the AVX2
 * algorithm compiled for AVX-512 (EVEX encoding, 32 vector registers),
 * storing three floats with a masked store. Positions + normals take
 * lbs_fast512 below. */
#define LBS_GROUP_FN lbs_group_avx512
#define LBS_ATTR SK_AVX512
#define LBS_VERTEX lbs_vertex_avx2
#define LBS_PAIR lbs_pair_avx2
#define LBS_STORE3 store3_avx512
#define LBS_ROWS_STORE3 rows_store3_avx512
#include "skin/lbs_group.h"
#undef LBS_GROUP_FN
#undef LBS_ATTR
#undef LBS_VERTEX
#undef LBS_PAIR
#undef LBS_STORE3
#undef LBS_ROWS_STORE3

/* ---- AVX-512, positions + normals: four vertices per 512-bit register ----
 *
 * The common job (positions and normals, no tangents, no morphing) has its
 * own AVX-512 kernel. The AVX2 form issues about 48 instructions per vertex
 * on CesiumMan (about 5 per cycle: it is bound by issuing them, not by its
 * arithmetic); this one about a quarter fewer, most of them on 512 bits:
 *  1. per vertex the blended matrix, all four columns in one register (one
 *     load and one FMA per influence; the same operations per element as
 *     lbs_blend_avx2, so the same roundings);
 *  2. four vertices A B C D: their matrices' columns regrouped,
 *     [column of A | B | C | D] (two rounds of four 128-bit shuffles), the
 *     four positions side by side, splatted in-lane, three FMAs give
 *     [M_A p_A | M_B p_B | M_C p_C | M_D p_D]; the normals likewise;
 *  3. eight vertices' normals (two registers) normalised together without a
 *     transpose: squared lengths from one unpack per register pair (the same
 *     FMA order as normalize8_rows), the rsqrt14 estimate and one Newton
 *     step, the factors splatted back in-lane; lengths outside
 *     sk_skin_norm_direct's range send the eight rows to the scalar
 *     sk_skin_normalize3, as in normalize8_rows;
 *  4. eight consecutive vertices of a packed output: two two-source permutes
 *     and a 64-byte and a 32-byte store per array; else three floats per
 *     vertex (masked store).
 * The last fewer-than-eight entries of a group go through lbs_vertex_avx2
 * (the same products and sums) and normalize3_avx512 (the same rsqrt14 and
 * Newton step), so a vertex gets the same result in a block or alone (as on
 * the AVX2 level, a block with a normal outside the direct range normalises
 * all eight in the scalar code). Results differ from the AVX2 level's by the
 * estimate (rsqrt14 instead of rsqrt) after the Newton step: within an ulp. */

SK_AVX512 static SK_INLINE __m512 lbs_blend512(const float *pal, const uint16_t *jj, const float *ww, const uint32_t K) {
    __m512 m0 = _mm512_loadu_ps(PAL_AT(pal, jj[0]));
    if (K == 1) return m0;
    __m512 a = _mm512_mul_ps(_mm512_set1_ps(ww[0]), m0);
    if (K == 2) return _mm512_fmadd_ps(_mm512_set1_ps(ww[1]), _mm512_loadu_ps(PAL_AT(pal, jj[1])), a);
    __m512 b = _mm512_mul_ps(_mm512_set1_ps(ww[1]), _mm512_loadu_ps(PAL_AT(pal, jj[1])));
    a = _mm512_fmadd_ps(_mm512_set1_ps(ww[2]), _mm512_loadu_ps(PAL_AT(pal, jj[2])), a);
    if (K >= 4) b = _mm512_fmadd_ps(_mm512_set1_ps(ww[3]), _mm512_loadu_ps(PAL_AT(pal, jj[3])), b);
    if (K == 8)
        for (uint32_t q = 4; q < 8; q += 2) {
            a = _mm512_fmadd_ps(_mm512_set1_ps(ww[q]), _mm512_loadu_ps(PAL_AT(pal, jj[q])), a);
            b = _mm512_fmadd_ps(_mm512_set1_ps(ww[q + 1]), _mm512_loadu_ps(PAL_AT(pal, jj[q + 1])), b);
        }
    return _mm512_add_ps(a, b);
}

/* Four vertices' xyz (base + 3 * vq[l], read as 4 floats each) side by side in one register. */
SK_AVX512 static SK_INLINE __m512 load4x4(const float *base, const uint32_t *vq) {
    __m512 v = _mm512_castps128_ps512(_mm_loadu_ps(base + 3 * (size_t)vq[0]));
    v = _mm512_insertf32x4(v, _mm_loadu_ps(base + 3 * (size_t)vq[1]), 1);
    v = _mm512_insertf32x4(v, _mm_loadu_ps(base + 3 * (size_t)vq[2]), 2);
    return _mm512_insertf32x4(v, _mm_loadu_ps(base + 3 * (size_t)vq[3]), 3);
}
/* The same for four consecutive vertices from base (12 floats and one more). */
SK_AVX512 static SK_INLINE __m512 load4x4_seq(const float *base) {
    __m512 v = _mm512_castps128_ps512(_mm_loadu_ps(base));
    v = _mm512_insertf32x4(v, _mm_loadu_ps(base + 3), 1);
    v = _mm512_insertf32x4(v, _mm_loadu_ps(base + 6), 2);
    return _mm512_insertf32x4(v, _mm_loadu_ps(base + 9), 3);
}

/* Four vertices' blended matrices (entries at jj / ww, K apart) regrouped by
 * column: C[i] = [column i of A | B | C | D]. */
SK_AVX512 static SK_INLINE void lbs_columns4x512(const float *pal, const uint16_t *jj, const float *ww, const uint32_t K,
                                                 __m512 C[4]) {
    __m512 MA = lbs_blend512(pal, jj, ww, K);
    __m512 MB = lbs_blend512(pal, jj + K, ww + K, K);
    __m512 MC = lbs_blend512(pal, jj + 2 * K, ww + 2 * K, K);
    __m512 MD = lbs_blend512(pal, jj + 3 * K, ww + 3 * K, K);
    __m512 T0 = _mm512_shuffle_f32x4(MA, MB, _MM_SHUFFLE(1, 0, 1, 0)); /* c0A c1A c0B c1B */
    __m512 T1 = _mm512_shuffle_f32x4(MA, MB, _MM_SHUFFLE(3, 2, 3, 2)); /* c2A c3A c2B c3B */
    __m512 T2 = _mm512_shuffle_f32x4(MC, MD, _MM_SHUFFLE(1, 0, 1, 0));
    __m512 T3 = _mm512_shuffle_f32x4(MC, MD, _MM_SHUFFLE(3, 2, 3, 2));
    C[0] = _mm512_shuffle_f32x4(T0, T2, _MM_SHUFFLE(2, 0, 2, 0)); /* c0A c0B c0C c0D */
    C[1] = _mm512_shuffle_f32x4(T0, T2, _MM_SHUFFLE(3, 1, 3, 1));
    C[2] = _mm512_shuffle_f32x4(T1, T3, _MM_SHUFFLE(2, 0, 2, 0));
    C[3] = _mm512_shuffle_f32x4(T1, T3, _MM_SHUFFLE(3, 1, 3, 1));
}

/* [M_A v_A | M_B v_B | M_C v_C | M_D v_D], with the translation (points) or
 * without (directions): the splats and FMAs of lbs_pair_avx2. */
SK_AVX512 static SK_INLINE __m512 xform4x512(const __m512 C[4], __m512 v, bool point) {
    __m512 x = point ? _mm512_fmadd_ps(_mm512_permute_ps(v, 0x00), C[0], C[3]) : _mm512_mul_ps(_mm512_permute_ps(v, 0x00), C[0]);
    return _mm512_fmadd_ps(_mm512_permute_ps(v, 0xAA), C[2], _mm512_fmadd_ps(_mm512_permute_ps(v, 0x55), C[1], x));
}

/* rsqrt14 and one Newton step, as normalize3_avx512 and normalize8x512 do it. */
#define SK_RSQRT_NEWTON512(W, l2, y)                                                                             \
    _mm##W##_mul_ps(_mm##W##_mul_ps(_mm##W##_set1_ps(0.5f), y),                                                   \
                    _mm##W##_fnmadd_ps(_mm##W##_mul_ps(l2, y), y, _mm##W##_set1_ps(3.0f)))

/* One vertex's normal (the tail of a group). */
SK_AVX512 static SK_INLINE __m128 normalize3_avx512(__m128 r) {
    __m128 s = _mm_mul_ps(r, r);
    __m128 l2 = _mm_fmadd_ps(_mm_movehl_ps(r, r), _mm_movehl_ps(r, r), _mm_fmadd_ps(_mm_movehdup_ps(r), _mm_movehdup_ps(r), s));
    if (!sk_skin_norm_direct(_mm_cvtss_f32(l2))) return normalize_fallback(r);
    l2 = _mm_broadcastss_ps(l2);
    __m128 y = _mm_rsqrt14_ps(l2);
    y = SK_RSQRT_NEWTON512(, l2, y);
    return _mm_mul_ps(r, y);
}

/* Eight rows (vertices A-D in R0, E-H in R1, xyz per 128-bit lane, w
 * ignored) normalised: after the unpacks lane 0 of each 128-bit lane holds
 * x, y (lane 2), z (t1) of A..D and lane 1 those of E..H. */
SK_AVX512 static SK_INLINE void normalize8x512(__m512 *R0, __m512 *R1) {
    __m512 t0 = _mm512_unpacklo_ps(*R0, *R1), t1 = _mm512_unpackhi_ps(*R0, *R1); /* xa xe ya ye | za ze wa we */
    __m512 y0 = _mm512_permute_ps(t0, _MM_SHUFFLE(1, 0, 3, 2));                  /* ya ye xa xe */
    __m512 l2 = _mm512_fmadd_ps(t1, t1, _mm512_fmadd_ps(y0, y0, _mm512_mul_ps(t0, t0)));
    __mmask16 ok = _mm512_mask_cmp_ps_mask(0x3333, l2, _mm512_set1_ps(1e-30f), _CMP_GT_OQ);
    ok = _mm512_mask_cmp_ps_mask(ok, l2, _mm512_set1_ps(3.0e38f), _CMP_LE_OQ);
    if (ok != 0x3333) { /* zero, tiny or overflowing lengths: row by row */
        _Alignas(64) float rows[2][16];
        _mm512_store_ps(rows[0], *R0);
        _mm512_store_ps(rows[1], *R1);
        for (int h = 0; h < 2; h++)
            for (int l = 0; l < 4; l++) sk_skin_normalize3(rows[h] + 4 * l);
        *R0 = _mm512_load_ps(rows[0]);
        *R1 = _mm512_load_ps(rows[1]);
        return;
    }
    __m512 y = _mm512_rsqrt14_ps(l2);
    y = SK_RSQRT_NEWTON512(512, l2, y);
    *R0 = _mm512_mul_ps(*R0, _mm512_permute_ps(y, 0x00));
    *R1 = _mm512_mul_ps(*R1, _mm512_permute_ps(y, 0x55));
}

/* Eight rows (R0: vertices 0-3, R1: 4-7) -> 24 packed floats at dst. */
SK_AVX512 static SK_INLINE void pack3_store8x512(__m512 R0, __m512 R1, float *dst) {
    const __m512i i0 = _mm512_setr_epi32(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 16, 17, 18, 20);
    const __m512i i1 = _mm512_setr_epi32(21, 22, 24, 25, 26, 28, 29, 30, 0, 0, 0, 0, 0, 0, 0, 0);
    _mm512_storeu_ps(dst, _mm512_permutex2var_ps(R0, i0, R1));
    _mm256_storeu_ps(dst + 16, _mm512_castps512_ps256(_mm512_permutex2var_ps(R0, i1, R1)));
}

/* Four rows of R to dst + (vq[l] - first) * stride, three floats each. */
SK_AVX512 static SK_INLINE void rows4_store3x512(__m512 R, float *dst, const uint32_t *vq, uint32_t first, size_t stride) {
    _mm_mask_storeu_ps(dst + (size_t)(vq[0] - first) * stride, 0x7, _mm512_castps512_ps128(R));
    _mm_mask_storeu_ps(dst + (size_t)(vq[1] - first) * stride, 0x7, _mm512_extractf32x4_ps(R, 1));
    _mm_mask_storeu_ps(dst + (size_t)(vq[2] - first) * stride, 0x7, _mm512_extractf32x4_ps(R, 2));
    _mm_mask_storeu_ps(dst + (size_t)(vq[3] - first) * stride, 0x7, _mm512_extractf32x4_ps(R, 3));
}
/* The same for four consecutive outputs from dst. */
SK_AVX512 static SK_INLINE void rows4_store3x512_seq(__m512 R, float *dst, size_t stride) {
    _mm_mask_storeu_ps(dst, 0x7, _mm512_castps512_ps128(R));
    _mm_mask_storeu_ps(dst + stride, 0x7, _mm512_extractf32x4_ps(R, 1));
    _mm_mask_storeu_ps(dst + 2 * stride, 0x7, _mm512_extractf32x4_ps(R, 2));
    _mm_mask_storeu_ps(dst + 3 * stride, 0x7, _mm512_extractf32x4_ps(R, 3));
}

/* Positions + normals of entries [e, e1) of a group with K influences
 * (PACKED: both outputs at stride 3). Eight entries that are eight
 * consecutive vertices address everything from the first one; others are
 * stored vertex by vertex, the positions of each four as soon as they are
 * known. */
SK_AVX512 static SK_INLINE void lbs_fast512(const sk_skin_ctx *c, const sk_skin_group *g, uint32_t e, uint32_t e1,
                                            const uint32_t K, const bool PACKED) {
    const sk_skinned_mesh *m = c->mesh;
    const float *pos = m->pos, *nrm = m->nrm, *pal = c->palette;
    const uint32_t first = c->first, *index = g->index;
    const uint16_t *J = g->joint8;
    const float *W = g->weights;
    const size_t ps = PACKED ? 3 : c->ps, ns = PACKED ? 3 : c->ns;
    float *op = c->op, *on = c->on;
    const bool contiguous = g->contiguous;
    for (; e + 8 <= e1; e += 8) {
        const uint32_t *vi = index + e;
        const uint16_t *jj = J + (size_t)e * K;
        const float *ww = W + (size_t)e * K;
        __m512 C[4], P0, N0, P1, N1;
        if (contiguous || vi[7] - vi[0] == 7) { /* eight consecutive vertices */
            const uint32_t v0 = contiguous ? index[0] + e : vi[0];
            const float *sp = pos + 3 * (size_t)v0, *sn = nrm + 3 * (size_t)v0;
            lbs_columns4x512(pal, jj, ww, K, C);
            P0 = xform4x512(C, load4x4_seq(sp), true);
            N0 = xform4x512(C, load4x4_seq(sn), false);
            lbs_columns4x512(pal, jj + 4 * K, ww + 4 * K, K, C);
            P1 = xform4x512(C, load4x4_seq(sp + 12), true);
            N1 = xform4x512(C, load4x4_seq(sn + 12), false);
            normalize8x512(&N0, &N1);
            const size_t o = (size_t)(v0 - first);
            if (PACKED) {
                pack3_store8x512(P0, P1, op + o * 3);
                pack3_store8x512(N0, N1, on + o * 3);
            } else {
                rows4_store3x512_seq(P0, op + o * ps, ps);
                rows4_store3x512_seq(P1, op + (o + 4) * ps, ps);
                rows4_store3x512_seq(N0, on + o * ns, ns);
                rows4_store3x512_seq(N1, on + (o + 4) * ns, ns);
            }
            continue;
        }
        lbs_columns4x512(pal, jj, ww, K, C);
        P0 = xform4x512(C, load4x4(pos, vi), true);
        N0 = xform4x512(C, load4x4(nrm, vi), false);
        rows4_store3x512(P0, op, vi, first, ps);
        lbs_columns4x512(pal, jj + 4 * K, ww + 4 * K, K, C);
        P1 = xform4x512(C, load4x4(pos, vi + 4), true);
        N1 = xform4x512(C, load4x4(nrm, vi + 4), false);
        rows4_store3x512(P1, op, vi + 4, first, ps);
        normalize8x512(&N0, &N1);
        rows4_store3x512(N0, on, vi, first, ns);
        rows4_store3x512(N1, on, vi + 4, first, ns);
    }
    for (; e < e1; e++) {
        uint32_t v = index[e];
        size_t o = v - first;
        __m256 rpn;
        __m128 rt;
        lbs_vertex_avx2(pal, J + (size_t)e * K, W + (size_t)e * K, K, K, pos + 3 * (size_t)v, nrm + 3 * (size_t)v,
                        NULL, true, false, &rpn, &rt);
        store3_avx512(op + o * ps, _mm256_castps256_ps128(rpn));
        store3_avx512(on + o * ns, normalize3_avx512(_mm256_extractf128_ps(rpn, 1)));
    }
}

SK_AVX512 void sk_skin_lbs_avx512(const sk_skin_ctx *c, const sk_skin_group *g, uint32_t e0, uint32_t e1) {
    if (!g->joint8) {
        sk_skin_lbs_sse2(c, g, e0, e1);
        return;
    }
    if (c->op && c->on && !c->ot && !c->morph_count) {
        const bool packed = c->ps == 3 && c->ns == 3;
        switch (g->slots) {
        case 1: packed ? lbs_fast512(c, g, e0, e1, 1, true) : lbs_fast512(c, g, e0, e1, 1, false); break;
        case 2: packed ? lbs_fast512(c, g, e0, e1, 2, true) : lbs_fast512(c, g, e0, e1, 2, false); break;
        case 3: packed ? lbs_fast512(c, g, e0, e1, 3, true) : lbs_fast512(c, g, e0, e1, 3, false); break;
        case 4: packed ? lbs_fast512(c, g, e0, e1, 4, true) : lbs_fast512(c, g, e0, e1, 4, false); break;
        default: packed ? lbs_fast512(c, g, e0, e1, 8, true) : lbs_fast512(c, g, e0, e1, 8, false); break;
        }
        return;
    }
    SK_LBS_DISPATCH(lbs_group_avx512, c, g, e0, e1);
}

#endif
