/* Pose blending, masks, additive poses and layer stacks (blend.h).
 *
 * Weighted blending follows seed 000 §4.2 (example code 9): every pose adds
 * weight * value, the weights are summed, and when the sum stays below one
 * the default (rest) pose is added with the remaining weight. Seed 003 §4.3
 * describes the multi-way blend (sum of weighted poses divided by the weight
 * sum, which is what happens here when the weights exceed one), nlerp for
 * rotations, and per-bone masks whose values multiply the animation weight. */
#include "anim/blend_internal.h"
#include "anim/soa_blend_kernels.h"
#include "anim/soa_layers_internal.h"
#include "core/math_inline.h"
#include "skelanim/anim/blend.h"

#include <math.h>
#include <string.h>

static float eff_weight(const sk_blend_input *in, uint32_t j, uint8_t bit) {
    return ska_eff_weight(in->weight, in->mask, in->channels, j, bit);
}

static sk_vec3 blend_vec(const sk_blend_input *in, uint32_t n, uint32_t j, uint8_t bit, bool is_scale, sk_vec3 rest,
                         bool fill) {
    double x = 0, y = 0, z = 0, W = 0;
    for (uint32_t i = 0; i < n; i++) {
        float w = eff_weight(&in[i], j, bit);
        if (w == 0.0f) continue;
        const sk_vec3 v = is_scale ? in[i].pose->local[j].s : in[i].pose->local[j].t;
        x += (double)w * v.x;
        y += (double)w * v.y;
        z += (double)w * v.z;
        W += w;
    }
    if (W == 0.0) return rest;
    if (fill && W < 1.0) {
        double r = 1.0 - W;
        return sk_vec3_make((float)(x + r * rest.x), (float)(y + r * rest.y), (float)(z + r * rest.z));
    }
    return sk_vec3_make((float)(x / W), (float)(y / W), (float)(z / W));
}

static sk_quat blend_rot_nlerp(const sk_blend_input *in, uint32_t n, uint32_t j, sk_quat rest, bool fill) {
    double acc[4] = {0, 0, 0, 0}, W = 0;
    bool first = true;
    for (uint32_t i = 0; i < n; i++) {
        float w = eff_weight(&in[i], j, SK_CHANNEL_R);
        if (w == 0.0f) continue;
        sk_quat q = in[i].pose->local[j].r;
        double qd[4] = {q.x, q.y, q.z, q.w};
        /* shortest arc: align each quaternion with the running sum (q ~ -q) */
        double s = (first || acc[0] * qd[0] + acc[1] * qd[1] + acc[2] * qd[2] + acc[3] * qd[3] >= 0.0) ? w : -w;
        for (int k = 0; k < 4; k++) acc[k] += s * qd[k];
        W += w;
        first = false;
    }
    if (W == 0.0) return rest;
    if (fill && W < 1.0) {
        double rq[4] = {rest.x, rest.y, rest.z, rest.w};
        double s = (acc[0] * rq[0] + acc[1] * rq[1] + acc[2] * rq[2] + acc[3] * rq[3] >= 0.0) ? 1.0 - W : W - 1.0;
        for (int k = 0; k < 4; k++) acc[k] += s * rq[k];
    }
    return ska_quat_from_d(acc);
}

static sk_quat blend_rot_slerp(const sk_blend_input *in, uint32_t n, uint32_t j, sk_quat rest, bool fill) {
    ska_slerp_acc acc = {{0, 0, 0, 0}, 0};
    for (uint32_t i = 0; i < n; i++) {
        float w = eff_weight(&in[i], j, SK_CHANNEL_R);
        if (w != 0.0f) ska_slerp_add(&acc, in[i].pose->local[j].r, w);
    }
    return ska_slerp_finish(&acc, rest, fill);
}

/* An input pose fits when its joints match and it has all morph weights or none. */
static sk_result check_input(const sk_skeleton *skel, const sk_pose *p, const char *who, uint32_t i, sk_error *err) {
    if (!p || !p->local || p->joint_count != skel->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: input %u: %s", who, i,
                            !p || !p->local ? "no pose" : "joint count differs from the skeleton's");
    if (p->weight_count && (p->weight_count != skel->weight_total || !p->weights))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: input %u has %u morph weights, skeleton %u", who, i,
                            p->weight_count, skel->weight_total);
    return SK_OK;
}

#if defined(SK_SOA_X86)
/* The lanes of v summed left to right, ((v0 + v1) + v2) + v3: blend_plain's order. */
__attribute__((target("avx2"))) static inline double hsum4_ordered(__m256d v) {
    __m128d lo = _mm256_castpd256_pd128(v), hi = _mm256_extractf128_pd(v, 1);
    return _mm_cvtsd_f64(_mm_add_sd(_mm_add_sd(_mm_add_sd(lo, _mm_unpackhi_pd(lo, lo)), hi), _mm_unpackhi_pd(hi, hi)));
}
/* blend_plain's joints with their doubles four per register (AVX): t, the
 * rotation and s of a joint each in one register, the same products and sums
 * per lane in the same order (the sign test's dot product and the length
 * summed in scalar, left to right), the divisions by W and by the length one
 * per register: the same bits (tests/test_blend.c compares it with the
 * general path). W: the sum of wt, not 0. */
__attribute__((target("avx2"))) static void blend_plain_avx(const sk_skeleton *skel, const sk_transform *const *src,
                                                           const float *wt, uint32_t m, bool fill, double W,
                                                           sk_transform *out) {
    const __m256d zero = _mm256_setzero_pd(), vW = _mm256_set1_pd(W);
    for (uint32_t j = 0; j < skel->joint_count; j++) {
        __m256d t = zero, sc = zero, acc = zero;
        for (uint32_t i = 0; i < m; i++) {
            const float *x = &src[i][j].t.x; /* t x, y, z | r x, y, z, w | s x, y, z */
            __m256d w = _mm256_set1_pd((double)wt[i]);
            __m256d xt = _mm256_cvtps_pd(_mm_loadu_ps(x)), xq = _mm256_cvtps_pd(_mm_loadu_ps(x + 3));
            __m256d xs = _mm256_cvtps_pd(_mm_loadu_ps(x + 6)); /* r.w, s x, y, z */
            t = _mm256_add_pd(t, _mm256_mul_pd(w, xt));
            sc = _mm256_add_pd(sc, _mm256_mul_pd(w, xs));
            double sg = wt[i];
            if (i && !(hsum4_ordered(_mm256_mul_pd(acc, xq)) >= 0.0)) sg = -sg;
            acc = _mm256_add_pd(acc, _mm256_mul_pd(_mm256_set1_pd(sg), xq));
        }
        const sk_transform *r = &skel->rest[j];
        if (fill && W < 1.0) {
            __m256d rw = _mm256_set1_pd(1.0 - W), rq = _mm256_cvtps_pd(_mm_loadu_ps(&r->r.x));
            t = _mm256_add_pd(t, _mm256_mul_pd(rw, _mm256_cvtps_pd(_mm_loadu_ps(&r->t.x))));
            sc = _mm256_add_pd(sc, _mm256_mul_pd(rw, _mm256_cvtps_pd(_mm_loadu_ps(&r->r.w))));
            double sg = hsum4_ordered(_mm256_mul_pd(acc, rq)) >= 0.0 ? 1.0 - W : W - 1.0;
            acc = _mm256_add_pd(acc, _mm256_mul_pd(_mm256_set1_pd(sg), rq));
        } else {
            t = _mm256_div_pd(t, vW);
            sc = _mm256_div_pd(sc, vW);
        }
        double l = sqrt(hsum4_ordered(_mm256_mul_pd(acc, acc))); /* ska_quat_from_d */
        float o[12];
        _mm_storeu_ps(o, _mm256_cvtpd_ps(t));
        _mm_storeu_ps(o + 6, _mm256_cvtpd_ps(sc)); /* o[6] is the rotation's w, written next */
        if (l > 0.0) _mm_storeu_ps(o + 3, _mm256_cvtpd_ps(_mm256_div_pd(acc, _mm256_set1_pd(l))));
        else o[3] = o[4] = o[5] = 0.0f, o[6] = 1.0f;
        memcpy(&out[j], o, sizeof out[j]);
    }
}
#endif

/* sk_blend_poses with nlerp when no input has a mask or channel bits: each
 * input's weight is the same at every joint, so the contributing inputs and
 * their weight sum are found once; per joint the arithmetic of blend_vec and
 * blend_rot_nlerp in their order (the same bits), without asking every input
 * for its weight three times a joint. m: the contributing inputs (at most
 * BLEND_PLAIN_MAX). */
#define BLEND_PLAIN_MAX 16
static void blend_plain(const sk_skeleton *skel, const sk_transform *const *src, const float *wt, uint32_t m, bool fill,
                        sk_transform *out) {
    double W = 0;
    for (uint32_t i = 0; i < m; i++) W += wt[i];
#if defined(SK_SOA_X86)
    if (W != 0.0 && sk_soa_use_avx2()) {
        blend_plain_avx(skel, src, wt, m, fill, W, out);
        return;
    }
#endif
    for (uint32_t j = 0; j < skel->joint_count; j++) {
        const sk_transform *r = &skel->rest[j];
        if (W == 0.0) {
            out[j] = *r;
            continue;
        }
        double t[3] = {0, 0, 0}, sc[3] = {0, 0, 0}, acc[4] = {0, 0, 0, 0};
        for (uint32_t i = 0; i < m; i++) {
            const sk_transform *x = &src[i][j];
            double w = wt[i];
            t[0] += w * x->t.x, t[1] += w * x->t.y, t[2] += w * x->t.z;
            sc[0] += w * x->s.x, sc[1] += w * x->s.y, sc[2] += w * x->s.z;
            double qd[4] = {x->r.x, x->r.y, x->r.z, x->r.w};
            double sg = (i == 0 || acc[0] * qd[0] + acc[1] * qd[1] + acc[2] * qd[2] + acc[3] * qd[3] >= 0.0) ? w : -w;
            for (int k = 0; k < 4; k++) acc[k] += sg * qd[k];
        }
        if (fill && W < 1.0) {
            double rw = 1.0 - W;
            out[j].t = sk_vec3_make((float)(t[0] + rw * r->t.x), (float)(t[1] + rw * r->t.y), (float)(t[2] + rw * r->t.z));
            out[j].s = sk_vec3_make((float)(sc[0] + rw * r->s.x), (float)(sc[1] + rw * r->s.y), (float)(sc[2] + rw * r->s.z));
            double rq[4] = {r->r.x, r->r.y, r->r.z, r->r.w};
            double sg = (acc[0] * rq[0] + acc[1] * rq[1] + acc[2] * rq[2] + acc[3] * rq[3] >= 0.0) ? 1.0 - W : W - 1.0;
            for (int k = 0; k < 4; k++) acc[k] += sg * rq[k];
        } else {
            out[j].t = sk_vec3_make((float)(t[0] / W), (float)(t[1] / W), (float)(t[2] / W));
            out[j].s = sk_vec3_make((float)(sc[0] / W), (float)(sc[1] / W), (float)(sc[2] / W));
        }
        out[j].r = ska_quat_from_d(acc);
    }
}

sk_result sk_blend_poses(const sk_skeleton *skel, const sk_blend_input *in, uint32_t n, const sk_blend_options *opts,
                         sk_pose *out_pose, sk_error *err) {
    if (!skel || (n && !in)) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_blend_poses: NULL argument");
    sk_result res = sk_pose_check(skel, out_pose, "sk_blend_poses", err);
    if (res != SK_OK) return res;
    for (uint32_t i = 0; i < n; i++)
        if ((res = check_input(skel, in[i].pose, "sk_blend_poses", i, err)) != SK_OK) return res;
    sk_transform *out = out_pose->local;
    float *out_morph = out_pose->weight_count ? out_pose->weights : NULL;
    sk_blend_options o = {0};
    if (opts) o = *opts;
    bool fill = !o.no_rest_fill;
    if (o.rotation == SK_BLEND_NLERP && !out_morph) {
        const sk_transform *src[BLEND_PLAIN_MAX];
        float wt[BLEND_PLAIN_MAX];
        uint32_t m = 0;
        bool plain = true;
        for (uint32_t i = 0; i < n && plain; i++) {
            plain = !in[i].mask && !in[i].channels && in[i].pose->local != out;
            if (plain && in[i].weight > 0.0f) {
                if (m == BLEND_PLAIN_MAX) plain = false;
                else src[m] = in[i].pose->local, wt[m++] = in[i].weight;
            }
        }
        if (plain) {
            blend_plain(skel, src, wt, m, fill, out);
            return SK_OK;
        }
    }
    for (uint32_t j = 0; j < skel->joint_count; j++) {
        const sk_transform *r = &skel->rest[j];
        out[j].t = blend_vec(in, n, j, SK_CHANNEL_T, false, r->t, fill);
        out[j].s = blend_vec(in, n, j, SK_CHANNEL_S, true, r->s, fill);
        out[j].r = o.rotation == SK_BLEND_SLERP ? blend_rot_slerp(in, n, j, r->r, fill)
                                                : blend_rot_nlerp(in, n, j, r->r, fill);
        if (!out_morph) continue;
        uint32_t off = skel->weight_offset[j], cnt = skel->weight_count[j];
        for (uint32_t k = 0; k < cnt; k++) {
            double acc = 0, W = 0;
            for (uint32_t i = 0; i < n; i++) {
                if (!in[i].pose->weight_count) continue;
                float w = eff_weight(&in[i], j, SK_CHANNEL_W);
                if (w == 0.0f) continue;
                acc += (double)w * in[i].pose->weights[off + k];
                W += w;
            }
            double rest = skel->rest_weights[off + k];
            out_morph[off + k] = W == 0.0 ? (float)rest
                                 : (fill && W < 1.0) ? (float)(acc + (1.0 - W) * rest) : (float)(acc / W);
        }
    }
    return SK_OK;
}

#if defined(SK_SOA_X86)
/* sk_blend_two without a mask, slerp or a zero t, on the transforms where they lie (no
 * conversion to SoA): a block of joints is a run of floats (10 a joint: t, r, s), so
 * translation and scale are one lerp over the run, and the rotations, loaded four floats
 * from each joint's offset 3, transposed to x, y, z, w rows, take the nlerp of the SoA kernel
 * (skm_quat_nlerp's operations in its order: the same bits, tests/test_soa_layers.c). The
 * rotation loads come first, so out may alias a or b. SSE2 (the x86-64 baseline): four
 * joints; AVX2: eight, joint k and k + 4 in the two halves of each register (the unpacks
 * work per half, so the transposes are the SSE2 ones). */
#define SKB_NLERP(V, ADD, SUB, MUL, DIV, SQRT, LT, GT, AND, SEL, SPLAT, ax, ay, az, aw, bx, by, bz, bw, tt)          \
    do {                                                                                                           \
        V one_ = SPLAT(1.0f), zero_ = SPLAT(0.0f), u_ = SUB(one_, tt);                                             \
        V dot_ = ADD(ADD(ADD(MUL(ax, bx), MUL(ay, by)), MUL(az, bz)), MUL(aw, bw));                                \
        V st_ = SEL(LT(dot_, zero_), SUB(zero_, tt), tt);                                                          \
        ax = ADD(MUL(ax, u_), MUL(bx, st_)), ay = ADD(MUL(ay, u_), MUL(by, st_));                                  \
        az = ADD(MUL(az, u_), MUL(bz, st_)), aw = ADD(MUL(aw, u_), MUL(bw, st_));                                  \
        V l_ = SQRT(ADD(ADD(ADD(MUL(ax, ax), MUL(ay, ay)), MUL(az, az)), MUL(aw, aw)));                            \
        V ok_ = AND(GT(l_, zero_), LT(l_, SPLAT(__builtin_inff()))), inv_ = DIV(one_, l_);                         \
        ax = SEL(ok_, MUL(ax, inv_), zero_), ay = SEL(ok_, MUL(ay, inv_), zero_);                                  \
        az = SEL(ok_, MUL(az, inv_), zero_), aw = SEL(ok_, MUL(aw, inv_), one_);                                   \
    } while (0)
#define SKB_TR4(T, UNLO, UNHI, MOVLH, MOVHL, r0, r1, r2, r3)                                                       \
    do {                                                                                                           \
        T t0_ = UNLO(r0, r1), t1_ = UNLO(r2, r3), t2_ = UNHI(r0, r1), t3_ = UNHI(r2, r3);                          \
        r0 = MOVLH(t0_, t1_), r1 = MOVHL(t1_, t0_), r2 = MOVLH(t2_, t3_), r3 = MOVHL(t3_, t2_);                    \
    } while (0)

static inline __m128 skb_sel4(__m128 m, __m128 a, __m128 b) { return _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b)); }
/* Four joints from a, b to out (40 floats each). */
static inline void blend_two_aos4(const float *a, const float *b, __m128 tt, float *out) {
    __m128 ax = _mm_loadu_ps(a + 3), ay = _mm_loadu_ps(a + 13), az = _mm_loadu_ps(a + 23), aw = _mm_loadu_ps(a + 33);
    __m128 bx = _mm_loadu_ps(b + 3), by = _mm_loadu_ps(b + 13), bz = _mm_loadu_ps(b + 23), bw = _mm_loadu_ps(b + 33);
    SKB_TR4(__m128, _mm_unpacklo_ps, _mm_unpackhi_ps, _mm_movelh_ps, _mm_movehl_ps, ax, ay, az, aw);
    SKB_TR4(__m128, _mm_unpacklo_ps, _mm_unpackhi_ps, _mm_movelh_ps, _mm_movehl_ps, bx, by, bz, bw);
    for (int k = 0; k < 40; k += 4) { /* every float as skm_vec3_lerp; the rotations' are replaced below */
        __m128 x = _mm_loadu_ps(a + k), y = _mm_loadu_ps(b + k);
        _mm_storeu_ps(out + k, _mm_add_ps(x, _mm_mul_ps(_mm_sub_ps(y, x), tt)));
    }
    SKB_NLERP(__m128, _mm_add_ps, _mm_sub_ps, _mm_mul_ps, _mm_div_ps, _mm_sqrt_ps, _mm_cmplt_ps, _mm_cmpgt_ps,
              _mm_and_ps, skb_sel4, _mm_set1_ps, ax, ay, az, aw, bx, by, bz, bw, tt);
    SKB_TR4(__m128, _mm_unpacklo_ps, _mm_unpackhi_ps, _mm_movelh_ps, _mm_movehl_ps, ax, ay, az, aw);
    _mm_storeu_ps(out + 3, ax), _mm_storeu_ps(out + 13, ay), _mm_storeu_ps(out + 23, az), _mm_storeu_ps(out + 33, aw);
}

#define SKB_AVX __attribute__((target("avx2")))
SKB_AVX static inline __m256 skb_ld2(const float *lo, const float *hi) {
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(lo)), _mm_loadu_ps(hi), 1);
}
SKB_AVX static inline void skb_st2(float *lo, float *hi, __m256 v) {
    _mm_storeu_ps(lo, _mm256_castps256_ps128(v)), _mm_storeu_ps(hi, _mm256_extractf128_ps(v, 1));
}
SKB_AVX static inline __m256 skb_sel8(__m256 m, __m256 a, __m256 b) { return _mm256_blendv_ps(b, a, m); }
SKB_AVX static inline __m256 skb_lt8(__m256 a, __m256 b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
SKB_AVX static inline __m256 skb_gt8(__m256 a, __m256 b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
SKB_AVX static inline __m256 skb_lh8(__m256 a, __m256 b) { return _mm256_shuffle_ps(a, b, _MM_SHUFFLE(1, 0, 1, 0)); }
SKB_AVX static inline __m256 skb_hl8(__m256 a, __m256 b) { return _mm256_shuffle_ps(b, a, _MM_SHUFFLE(3, 2, 3, 2)); }
/* Eight joints (80 floats). */
SKB_AVX __attribute__((always_inline)) static inline void blend_two_aos8(const float *a, const float *b, __m256 tt, float *out) {
    __m256 ax = skb_ld2(a + 3, a + 43), ay = skb_ld2(a + 13, a + 53), az = skb_ld2(a + 23, a + 63), aw = skb_ld2(a + 33, a + 73);
    __m256 bx = skb_ld2(b + 3, b + 43), by = skb_ld2(b + 13, b + 53), bz = skb_ld2(b + 23, b + 63), bw = skb_ld2(b + 33, b + 73);
    SKB_TR4(__m256, _mm256_unpacklo_ps, _mm256_unpackhi_ps, skb_lh8, skb_hl8, ax, ay, az, aw);
    SKB_TR4(__m256, _mm256_unpacklo_ps, _mm256_unpackhi_ps, skb_lh8, skb_hl8, bx, by, bz, bw);
    for (int k = 0; k < 80; k += 8) {
        __m256 x = _mm256_loadu_ps(a + k), y = _mm256_loadu_ps(b + k);
        _mm256_storeu_ps(out + k, _mm256_add_ps(x, _mm256_mul_ps(_mm256_sub_ps(y, x), tt)));
    }
    SKB_NLERP(__m256, _mm256_add_ps, _mm256_sub_ps, _mm256_mul_ps, _mm256_div_ps, _mm256_sqrt_ps, skb_lt8, skb_gt8,
              _mm256_and_ps, skb_sel8, _mm256_set1_ps, ax, ay, az, aw, bx, by, bz, bw, tt);
    SKB_TR4(__m256, _mm256_unpacklo_ps, _mm256_unpackhi_ps, skb_lh8, skb_hl8, ax, ay, az, aw);
    skb_st2(out + 3, out + 43, ax), skb_st2(out + 13, out + 53, ay), skb_st2(out + 23, out + 63, az), skb_st2(out + 33, out + 73, aw);
}
/* With a factor per joint (sk_blend_two with a mask: t * mask[j]), a where it is 0: the flat
 * run's factors put in place by a permute per register (lane i of register k is joint
 * (8k + i) / 10). */
static const int32_t skb_joint_of_float[10][8] __attribute__((aligned(32))) = {
    {0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 1, 1, 1, 1, 1, 1},
    {1, 1, 1, 1, 2, 2, 2, 2},
    {2, 2, 2, 2, 2, 2, 3, 3},
    {3, 3, 3, 3, 3, 3, 3, 3},
    {4, 4, 4, 4, 4, 4, 4, 4},
    {4, 4, 5, 5, 5, 5, 5, 5},
    {5, 5, 5, 5, 6, 6, 6, 6},
    {6, 6, 6, 6, 6, 6, 7, 7},
    {7, 7, 7, 7, 7, 7, 7, 7}};
SKB_AVX __attribute__((always_inline)) static inline void blend_two_aos8_u(const float *a, const float *b, __m256 u8, float *out) {
    __m256 ax = skb_ld2(a + 3, a + 43), ay = skb_ld2(a + 13, a + 53), az = skb_ld2(a + 23, a + 63), aw = skb_ld2(a + 33, a + 73);
    __m256 bx = skb_ld2(b + 3, b + 43), by = skb_ld2(b + 13, b + 53), bz = skb_ld2(b + 23, b + 63), bw = skb_ld2(b + 33, b + 73);
    SKB_TR4(__m256, _mm256_unpacklo_ps, _mm256_unpackhi_ps, skb_lh8, skb_hl8, ax, ay, az, aw);
    SKB_TR4(__m256, _mm256_unpacklo_ps, _mm256_unpackhi_ps, skb_lh8, skb_hl8, bx, by, bz, bw);
    const __m256 zero = _mm256_setzero_ps();
    for (int k = 0; k < 10; k++) {
        __m256 uk = _mm256_permutevar8x32_ps(u8, _mm256_load_si256((const __m256i *)(const void *)skb_joint_of_float[k]));
        __m256 x = _mm256_loadu_ps(a + 8 * k), y = _mm256_loadu_ps(b + 8 * k);
        __m256 r = _mm256_add_ps(x, _mm256_mul_ps(_mm256_sub_ps(y, x), uk));
        _mm256_storeu_ps(out + 8 * k, _mm256_blendv_ps(r, x, _mm256_cmp_ps(uk, zero, _CMP_EQ_OQ)));
    }
    __m256 kx = ax, ky = ay, kz = az, kw = aw, keep = _mm256_cmp_ps(u8, zero, _CMP_EQ_OQ);
    SKB_NLERP(__m256, _mm256_add_ps, _mm256_sub_ps, _mm256_mul_ps, _mm256_div_ps, _mm256_sqrt_ps, skb_lt8, skb_gt8,
              _mm256_and_ps, skb_sel8, _mm256_set1_ps, ax, ay, az, aw, bx, by, bz, bw, u8);
    ax = _mm256_blendv_ps(ax, kx, keep), ay = _mm256_blendv_ps(ay, ky, keep);
    az = _mm256_blendv_ps(az, kz, keep), aw = _mm256_blendv_ps(aw, kw, keep);
    SKB_TR4(__m256, _mm256_unpacklo_ps, _mm256_unpackhi_ps, skb_lh8, skb_hl8, ax, ay, az, aw);
    skb_st2(out + 3, out + 43, ax), skb_st2(out + 13, out + 53, ay), skb_st2(out + 23, out + 63, az), skb_st2(out + 33, out + 73, aw);
}
/* Eight joints from joint j: with one t for all (mask NULL), or t * mask[j + l] each. */
SKB_AVX __attribute__((always_inline)) static inline void blend_two_block8(const float *a, const float *b, __m256 t8, const float *mask, uint32_t j,
                                            float *dst) {
    if (mask) blend_two_aos8_u(a + 10 * j, b + 10 * j, _mm256_mul_ps(t8, _mm256_loadu_ps(mask + j)), dst);
    else blend_two_aos8(a + 10 * j, b + 10 * j, t8, dst);
}
/* n >= 8 joints. The last eight (which the blocks may not end on): with no aliasing, after the
 * others, into out (the joints done twice get the same bits twice); else first, into a copy,
 * before anything is written. */
SKB_AVX __attribute__((always_inline)) static inline void blend_two_run8(const float *a, const float *b, float t,
                                                                          const float *mask, float *out, uint32_t n) {
    __m256 t8 = _mm256_set1_ps(t);
    uint32_t n8 = n / 8u, rest = n - 8u * n8;
    if (rest && out != a && out != b) {
        for (uint32_t k = 0; k < n8; k++) blend_two_block8(a, b, t8, mask, 8 * k, out + 80 * k);
        blend_two_block8(a, b, t8, mask, n - 8, out + 10 * (n - 8));
        return;
    }
    float last[80] __attribute__((aligned(32)));
    if (rest) blend_two_block8(a, b, t8, mask, n - 8, last);
    for (uint32_t k = 0; k < n8; k++) blend_two_block8(a, b, t8, mask, 8 * k, out + 80 * k);
    if (rest) memcpy(out + 10 * (n - rest), last + 10 * (8 - rest), rest * 10 * sizeof(float));
}

/* One copy without a mask, one with (the constant NULL folded away). */
SKB_AVX static void blend_two_wide8(const float *a, const float *b, float t, float *out, uint32_t n) {
    blend_two_run8(a, b, t, NULL, out, n);
}
SKB_AVX static void blend_two_masked8(const float *a, const float *b, float t, const float *mask, float *out, uint32_t n) {
    blend_two_run8(a, b, t, mask, out, n);
}

/* n >= 4 joints: eight at a time with AVX2 where there are eight, else four (the last four
 * first, as above). */
static void blend_two_wide(const sk_transform *ta, const sk_transform *tb, float t, sk_transform *tout, uint32_t n,
                           bool avx2) {
    const float *a = (const float *)(const void *)ta, *b = (const float *)(const void *)tb;
    float *out = (float *)(void *)tout, last[40];
    if (n >= 8 && avx2) {
        blend_two_wide8(a, b, t, out, n);
        return;
    }
    __m128 t4 = _mm_set1_ps(t);
    uint32_t n4 = n / 4u, rest = n - 4u * n4;
    if (rest && out != a && out != b) { /* as blend_two_wide8 */
        for (uint32_t k = 0; k < n4; k++) blend_two_aos4(a + 40 * k, b + 40 * k, t4, out + 40 * k);
        blend_two_aos4(a + 10 * (n - 4), b + 10 * (n - 4), t4, out + 10 * (n - 4));
        return;
    }
    if (rest) blend_two_aos4(a + 10 * (n - 4), b + 10 * (n - 4), t4, last);
    for (uint32_t k = 0; k < n4; k++) blend_two_aos4(a + 40 * k, b + 40 * k, t4, out + 40 * k);
    if (rest) memcpy(out + 10 * (n - rest), last + 10 * (4 - rest), rest * 10 * sizeof(float));
}
#endif

sk_result sk_blend_two(const sk_skeleton *skel, const sk_pose *pa, const sk_pose *pb, float t, const float *mask,
                       bool use_slerp, sk_pose *po, sk_error *err) {
    if (!skel) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_blend_two: NULL skeleton");
    sk_result res = sk_pose_check(skel, po, "sk_blend_two", err);
    if (res == SK_OK) res = check_input(skel, pa, "sk_blend_two", 0, err);
    if (res == SK_OK) res = check_input(skel, pb, "sk_blend_two", 1, err);
    if (res != SK_OK) return res;
    const sk_transform *a = pa->local, *b = pb->local;
    sk_transform *out = po->local;
    const float *ma = pa->weight_count ? pa->weights : NULL, *mb = pb->weight_count ? pb->weights : NULL;
    float *out_morph = po->weight_count ? po->weights : NULL;
    uint32_t j0 = 0;
    if (t == 0.0f && !mask && skel->joint_count) { /* every joint's factor is 0: out = a, as the loop below */
        if (out != a) memmove(out, a, (size_t)skel->joint_count * sizeof *out);
        j0 = skel->joint_count;
    }
#if defined(SK_SOA_X86)
    /* the everyday case, four or eight joints at a time */
    sk_simd level = sk_simd_best();
    if (!mask && !use_slerp && t != 0.0f && skel->joint_count >= 4 && level >= SK_SIMD_SSE2) {
        blend_two_wide(a, b, t, out, skel->joint_count, level >= SK_SIMD_AVX2);
        j0 = skel->joint_count;
    }
    /* with a mask, eight joints at a time where the transforms lie */
    if (j0 == 0 && mask && !use_slerp && t != 0.0f && skel->joint_count >= 8 && level >= SK_SIMD_AVX2) {
        blend_two_masked8((const float *)(const void *)a, (const float *)(const void *)b, t, mask, (float *)(void *)out,
                          skel->joint_count);
        j0 = skel->joint_count;
    }
    /* with a mask or slerp, eight joints at a time through the SoA layers' group kernel */
    if (j0 == 0 && (mask || use_slerp) && t != 0.0f && level >= SK_SIMD_AVX2) {
        ska_blend_two_aos(skel, a, b, t, mask, use_slerp, out);
        j0 = skel->joint_count;
    }
#endif
    if (j0 && out_morph && ma && mb) /* the morph weights as the loop below does them */
        for (uint32_t j = 0; j < j0; j++) {
            float u = mask ? t * mask[j] : t;
            uint32_t off = skel->weight_offset[j], cnt = skel->weight_count[j];
            for (uint32_t k = 0; k < cnt; k++) out_morph[off + k] = ma[off + k] + (mb[off + k] - ma[off + k]) * u;
        }
    for (uint32_t j = j0; j < skel->joint_count; j++) {
        float u = mask ? t * mask[j] : t;
        sk_transform x = a[j];
        if (u != 0.0f) {
            x.t = skm_vec3_lerp(a[j].t, b[j].t, u); /* sk_vec3_lerp, sk_quat_nlerp inlined */
            x.s = skm_vec3_lerp(a[j].s, b[j].s, u);
            x.r = use_slerp ? sk_quat_slerp(a[j].r, b[j].r, u) : skm_quat_nlerp(a[j].r, b[j].r, u);
        }
        out[j] = x;
        if (out_morph && ma && mb) {
            uint32_t off = skel->weight_offset[j], cnt = skel->weight_count[j];
            for (uint32_t k = 0; k < cnt; k++) out_morph[off + k] = ma[off + k] + (mb[off + k] - ma[off + k]) * u;
        }
    }
    return SK_OK;
}

sk_result sk_clip_channel_mask(const sk_clip *clip, const sk_skeleton *skel, uint8_t *out, sk_error *err) {
    if (!clip || !skel || !out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_channel_mask: NULL argument");
    memset(out, 0, skel->joint_count);
    static const uint8_t bits[4] = {SK_CHANNEL_T, SK_CHANNEL_R, SK_CHANNEL_S, SK_CHANNEL_W};
    for (uint32_t i = 0; i < sk_clip_track_count(clip); i++) {
        sk_track_info info;
        sk_clip_track_info(clip, i, &info);
        if (info.joint >= skel->joint_count)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "clip '%s' track %u targets joint %u (skeleton has %u)",
                                sk_clip_name(clip), i, info.joint, skel->joint_count);
        out[info.joint] |= bits[(unsigned)info.path & 3u];
    }
    return SK_OK;
}
