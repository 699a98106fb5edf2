/* CPU skinning kernels for x86-64: SSE2 (baseline) and AVX2+FMA (compiled
 * with a target attribute, called only when the CPU has it — see sk_skin_run).
 *
 * LBS works per vertex with the blended matrix in registers: SSE2 keeps its
 * four columns in four registers; AVX2 keeps columns 0|1 and 2|3 in two
 * 256-bit registers, so an influence costs two loads and two FMAs. DQS of
 * positions and normals (no morphing) runs 4 (SSE2) or 8 (AVX2) vertices at
 * a time in structure-of-arrays form (skin_dqs_soa.h); with tangents or
 * morph targets it blends the 8 floats of the dual quaternion in SIMD
 * registers per vertex and finishes in the shared scalar code. */
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

void sk_skin_lbs_sse2(const sk_skin_ctx *c, uint32_t first, uint32_t count) {
    const sk_skinned_mesh *m = c->mesh;
    const uint32_t k = m->influences;
    const float *pal = c->palette;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t v = first + i;
        float bp[4], bn[4], bt[4];
        const float *p, *n, *t;
        sk_skin_fetch(c, v, &p, &n, &t, bp, bn, bt);
        const uint16_t *jj = m->joints + (size_t)v * k;
        const float *ww = m->weights + (size_t)v * k;
        const float *P = pal + 16 * (size_t)jj[0];
        __m128 w = _mm_set1_ps(ww[0]);
        __m128 c0 = _mm_mul_ps(w, _mm_loadu_ps(P));
        __m128 c1 = _mm_mul_ps(w, _mm_loadu_ps(P + 4));
        __m128 c2 = _mm_mul_ps(w, _mm_loadu_ps(P + 8));
        __m128 c3 = _mm_mul_ps(w, _mm_loadu_ps(P + 12));
        for (uint32_t q = 1, cnt = m->count[v]; q < cnt; q++) {
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
            store3(c->op + (size_t)i * c->ps, r);
        }
        if (c->on) {
            __m128 nv = _mm_loadu_ps(n);
            __m128 r = _mm_add_ps(_mm_add_ps(_mm_mul_ps(c0, SPLAT(nv, 0)), _mm_mul_ps(c1, SPLAT(nv, 1))),
                                  _mm_mul_ps(c2, SPLAT(nv, 2)));
            store3(c->on + (size_t)i * c->ns, normalize3_sse(r));
        }
        if (c->ot) {
            __m128 tv = _mm_loadu_ps(t);
            __m128 r = _mm_add_ps(_mm_add_ps(_mm_mul_ps(c0, SPLAT(tv, 0)), _mm_mul_ps(c1, SPLAT(tv, 1))),
                                  _mm_mul_ps(c2, SPLAT(tv, 2)));
            float *o = c->ot + (size_t)i * c->ts;
            store3(o, normalize3_sse(r));
            o[3] = t[3];
        }
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
/* Four consecutive vertices of 4 floats -> x, y, z vectors. */
#define SOA_LOAD_XYZ(X, Y, Z, base)                                                                             \
    do {                                                                                                        \
        const float *rows_[4] = {(base), (base) + 4, (base) + 8, (base) + 12};                                 \
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

void sk_skin_dqs_sse2(const sk_skin_ctx *c, uint32_t first, uint32_t count) {
    const sk_skinned_mesh *m = c->mesh;
    const uint32_t k = m->influences;
    /* Positions and normals without morphing: four vertices at a time (SoA). */
    uint32_t done = !c->morph_count && !c->ot ? dqs_soa_sse2(c, first, count) : 0;
    for (uint32_t i = done; i < count; i++) {
        uint32_t v = first + i;
        float bp[4], bn[4], bt[4];
        const float *p, *n, *t;
        sk_skin_fetch(c, v, &p, &n, &t, bp, bn, bt);
        const uint16_t *jj = m->joints + (size_t)v * k;
        const float *ww = m->weights + (size_t)v * k;
        const float *D = c->dq + 8 * (size_t)jj[0];
        __m128 q0 = _mm_loadu_ps(D);
        __m128 w = _mm_set1_ps(ww[0]);
        __m128 br = _mm_mul_ps(w, q0);
        __m128 bd = _mm_mul_ps(w, _mm_loadu_ps(D + 4));
        for (uint32_t q = 1, cnt = m->count[v]; q < cnt; q++) {
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
        sk_skin_dq_finish(c, i, b, p, n, t);
    }
}

/* ---- AVX2 + FMA ----------------------------------------------------------------- */

#if defined(__GNUC__) || defined(__clang__)
#define SK_AVX2 __attribute__((target("avx2,fma")))
#else
#define SK_AVX2
#endif

SK_AVX2 static inline __m128 avx_xform(__m256 a01, __m256 a23, __m128 v, __m256i ilo, __m256i ihi, int point) {
    __m256 vv = _mm256_castps128_ps256(v);
    __m256 xy = _mm256_permutevar8x32_ps(vv, ilo);
    __m256 zw = _mm256_permutevar8x32_ps(vv, ihi);
    if (!point) zw = _mm256_blend_ps(zw, _mm256_setzero_ps(), 0xF0);
    __m256 s = _mm256_fmadd_ps(a01, xy, _mm256_mul_ps(a23, zw));
    return _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
}

SK_AVX2 static inline __m128 avx_normalize3(__m128 r) {
    __m128 s = _mm_mul_ps(r, r);
    __m128 l2 = _mm_add_ss(_mm_add_ss(s, _mm_movehdup_ps(s)), _mm_movehl_ps(s, s));
    if (!sk_skin_norm_direct(_mm_cvtss_f32(l2))) return normalize_fallback(r);
    l2 = _mm_broadcastss_ps(l2);
    __m128 y = _mm_rsqrt_ps(l2);
    y = _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(0.5f), y), _mm_fnmadd_ps(_mm_mul_ps(l2, y), y, _mm_set1_ps(3.0f)));
    return _mm_mul_ps(r, y);
}

/* The blended matrix of one vertex (at least 4 influence slots; unused
 * slots have weight 0 and joint 0, which costs two FMAs and no branch):
 * columns 0|1 in a01, 2|3 in a23. */
SK_AVX2 static inline void lbs_blend_avx2(const float *pal, const uint16_t *jj, const float *ww, uint32_t cnt,
                                          __m256 *out01, __m256 *out23) {
    const float *P0 = pal + 16 * (size_t)jj[0], *P1 = pal + 16 * (size_t)jj[1];
    const float *P2 = pal + 16 * (size_t)jj[2], *P3 = pal + 16 * (size_t)jj[3];
    __m256 w0 = _mm256_set1_ps(ww[0]), w1 = _mm256_set1_ps(ww[1]);
    __m256 w2 = _mm256_set1_ps(ww[2]), w3 = _mm256_set1_ps(ww[3]);
    __m256 a01 = _mm256_mul_ps(w0, _mm256_loadu_ps(P0));
    __m256 a23 = _mm256_mul_ps(w0, _mm256_loadu_ps(P0 + 8));
    __m256 b01 = _mm256_mul_ps(w1, _mm256_loadu_ps(P1));
    __m256 b23 = _mm256_mul_ps(w1, _mm256_loadu_ps(P1 + 8));
    a01 = _mm256_fmadd_ps(w2, _mm256_loadu_ps(P2), a01);
    a23 = _mm256_fmadd_ps(w2, _mm256_loadu_ps(P2 + 8), a23);
    b01 = _mm256_fmadd_ps(w3, _mm256_loadu_ps(P3), b01);
    b23 = _mm256_fmadd_ps(w3, _mm256_loadu_ps(P3 + 8), b23);
    for (uint32_t q = 4; q < cnt; q++) {
        const float *P = pal + 16 * (size_t)jj[q];
        __m256 w = _mm256_set1_ps(ww[q]);
        a01 = _mm256_fmadd_ps(w, _mm256_loadu_ps(P), a01);
        a23 = _mm256_fmadd_ps(w, _mm256_loadu_ps(P + 8), a23);
    }
    *out01 = _mm256_add_ps(a01, b01);
    *out23 = _mm256_add_ps(a23, b23);
}

SK_AVX2 void sk_skin_lbs_avx2(const sk_skin_ctx *c, uint32_t first, uint32_t count) {
    const sk_skinned_mesh *m = c->mesh;
    const uint32_t k = m->influences;
    const float *pal = c->palette;
    const __m256i ilo = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
    const __m256i ihi = _mm256_setr_epi32(2, 2, 2, 2, 3, 3, 3, 3);
    if (!c->morph_count && c->op && !c->ot && k >= 4) {
        /* Fast path (no morphing, positions [+ normals]): fields in locals,
         * up to 4 influences unrolled (unused slots have weight 0 and joint 0,
         * which costs two FMAs and no branch). */
        float *op = c->op, *on = c->on;
        const size_t ps = c->ps, ns = c->ns;
        const uint8_t *cnts = m->count;
        const float *pos = m->pos, *nrm = m->nrm;
        uint32_t i = 0;
        if (on) {
            /* Eight vertices per block: positions are written at once, the
             * skinned normals are normalised together in SoA form (the same
             * operations as avx_normalize3, lane by lane), so no vertex waits
             * on its own rsqrt chain. */
            for (; i + 8 <= count; i += 8) {
                _Alignas(16) float nb[8][4];
                for (uint32_t l = 0; l < 8; l++) {
                    uint32_t v = first + i + l;
                    __m256 a01, a23;
                    lbs_blend_avx2(pal, m->joints + (size_t)v * k, m->weights + (size_t)v * k, cnts[v], &a01, &a23);
                    store3(op + (size_t)(i + l) * ps, avx_xform(a01, a23, _mm_loadu_ps(pos + 4 * (size_t)v), ilo, ihi, 1));
                    _mm_store_ps(nb[l], avx_xform(a01, a23, _mm_loadu_ps(nrm + 4 * (size_t)v), ilo, ihi, 0));
                }
                const float *rows[8] = {nb[0], nb[1], nb[2], nb[3], nb[4], nb[5], nb[6], nb[7]};
                __m256 S[4];
                skm_soa8_load(rows, S);
                __m256 X = S[0], Y = S[1], Z = S[2], W = S[3];
                __m256 l2 = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(X, X), _mm256_mul_ps(Y, Y)), _mm256_mul_ps(Z, Z));
                __m256 y = _mm256_rsqrt_ps(l2);
                y = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), y),
                                  _mm256_fnmadd_ps(_mm256_mul_ps(l2, y), y, _mm256_set1_ps(3.0f)));
                __m256 ok = _mm256_and_ps(_mm256_cmp_ps(l2, _mm256_set1_ps(1e-30f), _CMP_GT_OQ),
                                          _mm256_cmp_ps(l2, _mm256_set1_ps(3.0e38f), _CMP_LE_OQ));
                X = _mm256_mul_ps(X, y), Y = _mm256_mul_ps(Y, y), Z = _mm256_mul_ps(Z, y), W = _mm256_mul_ps(W, y);
                const __m256 N[4] = {X, Y, Z, W};
                __m128 out[8];
                skm_soa8_store(N, out);
                int okm = _mm256_movemask_ps(ok);
                if (okm != 0xFF) /* zero, tiny or overflowing lengths: the scalar slow path */
                    for (uint32_t l = 0; l < 8; l++)
                        if (!(okm >> l & 1)) out[l] = normalize_fallback(_mm_load_ps(nb[l]));
                for (uint32_t l = 0; l < 8; l++) store3(on + (size_t)(i + l) * ns, out[l]);
            }
        }
        for (; i < count; i++) {
            uint32_t v = first + i;
            __m256 a01, a23;
            lbs_blend_avx2(pal, m->joints + (size_t)v * k, m->weights + (size_t)v * k, cnts[v], &a01, &a23);
            store3(op + (size_t)i * ps, avx_xform(a01, a23, _mm_loadu_ps(pos + 4 * (size_t)v), ilo, ihi, 1));
            if (on)
                store3(on + (size_t)i * ns,
                       avx_normalize3(avx_xform(a01, a23, _mm_loadu_ps(nrm + 4 * (size_t)v), ilo, ihi, 0)));
        }
        return;
    }
    for (uint32_t i = 0; i < count; i++) {
        uint32_t v = first + i;
        float bp[4], bn[4], bt[4];
        const float *p, *n, *t;
        sk_skin_fetch(c, v, &p, &n, &t, bp, bn, bt);
        const uint16_t *jj = m->joints + (size_t)v * k;
        const float *ww = m->weights + (size_t)v * k;
        const float *P = pal + 16 * (size_t)jj[0];
        __m256 w = _mm256_set1_ps(ww[0]);
        __m256 a01 = _mm256_mul_ps(w, _mm256_loadu_ps(P));
        __m256 a23 = _mm256_mul_ps(w, _mm256_loadu_ps(P + 8));
        for (uint32_t q = 1, cnt = m->count[v]; q < cnt; q++) {
            P = pal + 16 * (size_t)jj[q];
            w = _mm256_set1_ps(ww[q]);
            a01 = _mm256_fmadd_ps(w, _mm256_loadu_ps(P), a01);
            a23 = _mm256_fmadd_ps(w, _mm256_loadu_ps(P + 8), a23);
        }
        if (c->op) store3(c->op + (size_t)i * c->ps, avx_xform(a01, a23, _mm_loadu_ps(p), ilo, ihi, 1));
        if (c->on)
            store3(c->on + (size_t)i * c->ns, avx_normalize3(avx_xform(a01, a23, _mm_loadu_ps(n), ilo, ihi, 0)));
        if (c->ot) {
            float *o = c->ot + (size_t)i * c->ts;
            store3(o, avx_normalize3(avx_xform(a01, a23, _mm_loadu_ps(t), ilo, ihi, 0)));
            o[3] = t[3];
        }
    }
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
/* Eight consecutive vertices of 4 floats -> x, y, z vectors (two 4x4 transposes). */
#define SOA_LOAD_XYZ(X, Y, Z, base)                                                                             \
    do {                                                                                                        \
        const float *rows_[8] = {(base),      (base) + 4,  (base) + 8,  (base) + 12,                            \
                                 (base) + 16, (base) + 20, (base) + 24, (base) + 28};                           \
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

SK_AVX2 void sk_skin_dqs_avx2(const sk_skin_ctx *c, uint32_t first, uint32_t count) {
    const sk_skinned_mesh *m = c->mesh;
    const uint32_t k = m->influences;
    /* Positions and normals without morphing: eight vertices at a time (SoA). */
    uint32_t done = !c->morph_count && !c->ot ? dqs_soa_avx2(c, first, count) : 0;
    for (uint32_t i = done; i < count; i++) {
        uint32_t v = first + i;
        float bp[4], bn[4], bt[4];
        const float *p, *n, *t;
        sk_skin_fetch(c, v, &p, &n, &t, bp, bn, bt);
        const uint16_t *jj = m->joints + (size_t)v * k;
        const float *ww = m->weights + (size_t)v * k;
        const float *D = c->dq + 8 * (size_t)jj[0];
        __m128 q0 = _mm_loadu_ps(D);
        __m256 b = _mm256_mul_ps(_mm256_set1_ps(ww[0]), _mm256_loadu_ps(D));
        for (uint32_t q = 1, cnt = m->count[v]; q < cnt; q++) {
            D = c->dq + 8 * (size_t)jj[q];
            __m256 d = _mm256_loadu_ps(D);
            __m128 s = _mm_dp_ps(q0, _mm256_castps256_ps128(d), 0xF1);
            __m128 sign = _mm_and_ps(_mm_cmplt_ss(s, _mm_setzero_ps()), _mm_set_ss(-0.0f));
            __m128 w = _mm_xor_ps(_mm_set_ss(ww[q]), sign);
            b = _mm256_fmadd_ps(_mm256_broadcastss_ps(w), d, b);
        }
        float bb[8];
        _mm256_storeu_ps(bb, b);
        sk_skin_dq_finish(c, i, bb, p, n, t);
    }
}

#endif
