/* Masks, channel sets, slerp, additive poses and the layer stack on
 * structure-of-arrays poses (anim/soa_layers.h): blend.c's and layers.c's
 * joint loops one SoA group (eight joints) at a time, four or eight lanes
 * per instruction (soa_layers_body.h), the same operations in the same
 * order. Where blend.c works in double (sk_blend_poses) so does this, four
 * doubles per AVX2 instruction. */
#include "anim/blend_internal.h"
#include "anim/soa_layers_internal.h"
#include "core/internal.h"

#include <math.h>
#include <string.h>

/* The blend kernels (skk_blend_part, skk_slerp_rows_u), the double vectors
 * (two or four per instruction) with their loads, stores and selects, and
 * through it core/soa_kernels.h (vector types, row offsets,
 * sk_soa_use_avx2): anim/soa_blend_kernels.h. */
#include "anim/soa_blend_kernels.h"

/* Rotation rows of the identity (x, y, z, w rows of 8). */
static const float sla_identity_rows[32] __attribute__((aligned(32))) = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};

/* Lane l's rotation of a group; a rotation into lane l of rotation rows. */
static inline sk_quat sla_rot(const float *g, unsigned l) {
    const float *r = g + SKK_ROW_R;
    return sk_quat_make(r[l], r[8 + l], r[16 + l], r[24 + l]);
}
static inline void sla_put_q(float *rows, unsigned l, sk_quat q) {
    rows[l] = q.x, rows[8 + l] = q.y, rows[16 + l] = q.z, rows[24 + l] = q.w;
}

#define SKK_W 4
#define SKK_V skk_f4
#define SKK_I skk_i4
#define SKK_FN(name) name##_w4
#define SKK_ATTR
#define SKD_D 2
#define SKD_VD skd_d2
#define SKD_VL skd_l2
#define SKD_FN(name) name##_d2
#include "anim/soa_layers_body.h"
#if defined(SK_SOA_X86)
#define SKK_W 8
#define SKK_V skk_f8
#define SKK_I skk_i8
#define SKK_FN(name) name##_w8
#define SKK_ATTR __attribute__((target("avx2")))
#define SKD_D 4
#define SKD_VD skd_d4
#define SKD_VL skd_l4
#define SKD_FN(name) name##_d4
#include "anim/soa_layers_body.h"
#define SLA_CALL(wide, name, ...) ((wide) ? name##_w8(__VA_ARGS__) : name##_w4(__VA_ARGS__))
#else
#define SLA_CALL(wide, name, ...) ((void)(wide), name##_w4(__VA_ARGS__))
#endif

/* Per-lane factor of group g: value * mask[j] (value where mask is NULL), 0
 * in the padding lanes. */
#if defined(SK_SOA_X86)
static void sla_factors_avx2(float value, const float *mask, uint32_t n, uint32_t g, float *u);
#endif
static void sla_lane_factors(float value, const float *mask, uint32_t n, uint32_t g, float *u, bool wide) {
#if defined(SK_SOA_X86)
    if (wide && (g + 1) * SK_SOA_LANES > n) { /* a partial group in one register (sla_factors8) */
        sla_factors_avx2(value, mask, n, g, u);
        return;
    }
#else
    (void)wide;
#endif
    if ((g + 1) * SK_SOA_LANES <= n) { /* a full group: one product per lane, as below */
        if (mask)
            for (uint32_t l = 0; l < SK_SOA_LANES; l++) u[l] = value * mask[g * SK_SOA_LANES + l];
        else
            for (uint32_t l = 0; l < SK_SOA_LANES; l++) u[l] = value;
        return;
    }
    for (uint32_t l = 0; l < SK_SOA_LANES; l++) {
        uint32_t j = g * SK_SOA_LANES + l;
        u[l] = j >= n ? 0.0f : mask ? value * mask[j] : value;
    }
}

void ska_blend_two_masked_soa(const sk_skeleton *s, const sk_soa_pose *a, const sk_soa_pose *b, float t,
                              const float *mask, bool slerp, sk_soa_pose *out, bool wide) {
    float u[SK_SOA_LANES] __attribute__((aligned(32)));
    for (uint32_t g = 0; g < out->group_count; g++) {
        size_t at = (size_t)g * SK_SOA_GROUP_FLOATS;
        sla_lane_factors(t, mask, s->joint_count, g, u, wide);
        SLA_CALL(wide, sla_two_group, a->data + at, b->data + at, u, slerp, out->data + at);
    }
}

/* Groups per call of the additive kernel (at most 4: sla_additive_groups): the slerps' and the
 * normalisations' chains of dependent operations are long, and those of a few groups side by side
 * overlap. */
#define SLA_BATCH 4u

void ska_apply_additive_soa(const sk_skeleton *s, sk_soa_pose *io, const sk_soa_pose *d, float weight,
                            const float *mask, bool nlerp, bool wide) {
    float w[4][SK_SOA_LANES] __attribute__((aligned(32)));
    uint32_t G = io->group_count;
    for (uint32_t g = 0; g < G;) { /* a few at a time: their chains overlap */
        /* a run of up to SLA_BATCH groups whose weights are not all 0 (those stay as they are) */
        uint32_t n = 0;
        for (; g + n < G && n < SLA_BATCH; n++) {
            sla_lane_factors(weight, mask, s->joint_count, g + n, w[n], wide);
            bool zero = true;
            for (uint32_t l = 0; l < SK_SOA_LANES; l++) zero = zero && w[n][l] == 0.0f;
            if (zero) break;
        }
        if (n) {
            size_t at = (size_t)g * SK_SOA_GROUP_FLOATS;
            if (nlerp) SLA_CALL(wide, sla_additive_nlerp_groups, io->data + at, d->data + at, w[0], n);
            else SLA_CALL(wide, sla_additive_groups, io->data + at, d->data + at, w[0], n);
        }
        g += n + (g + n < G && n < SLA_BATCH); /* past the run, and past the all-0 group that ended it */
    }
}

void ska_make_additive_soa(const sk_skeleton *s, const sk_soa_pose *p, const sk_soa_pose *r, sk_soa_pose *out,
                           bool wide) {
    (void)s;
    for (uint32_t g = 0; g < out->group_count; g++) {
        size_t at = (size_t)g * SK_SOA_GROUP_FLOATS;
        SLA_CALL(wide, sla_make_additive_group, p->data + at, r->data + at, out->data + at);
    }
}

#define SLA_MAX_INPUTS 64u

#if defined(SK_SOA_X86)
static void sla_poses_weights_avx2(const sk_soa_blend_input *in, uint32_t joints, uint32_t g, float *wi);
#endif

void ska_blend_poses_soa(const sk_skeleton *s, const sk_soa_blend_input *in, uint32_t n, bool slerp, bool fill,
                         sk_soa_pose *out, bool wide) {
    static const uint8_t bits[3] = {SK_CHANNEL_T, SK_CHANNEL_R, SK_CHANNEL_S};
    float wt[SLA_MAX_INPUTS * 24] __attribute__((aligned(32)));
    const float *rows[SLA_MAX_INPUTS];
    float rot[32] __attribute__((aligned(32)));
    uint32_t joints = s->joint_count;
    for (uint32_t g = 0; g < out->group_count; g++) {
        size_t at = (size_t)g * SK_SOA_GROUP_FLOATS;
        for (uint32_t i = 0; i < n; i++) { /* ska_eff_weight, the mask once for the three channels */
            rows[i] = in[i].pose->data + at;
            float *wi = wt + i * 24, w = in[i].weight, base[SK_SOA_LANES];
            if (!(w > 0.0f)) {
                memset(wi, 0, 24 * sizeof *wi);
                continue;
            }
#if defined(SK_SOA_X86)
            if (wide) { /* in registers: one-float stores read back by the kernel's wide loads waited */
                sla_poses_weights_avx2(&in[i], joints, g, wi);
                continue;
            }
#endif
            for (uint32_t l = 0; l < SK_SOA_LANES; l++) {
                uint32_t j = g * SK_SOA_LANES + l;
                base[l] = j < joints ? ska_eff_weight(w, in[i].mask, NULL, j, 0) : 0.0f;
            }
            for (uint32_t c = 0; c < 3; c++)
                for (uint32_t l = 0; l < SK_SOA_LANES; l++) {
                    uint32_t j = g * SK_SOA_LANES + l;
                    bool has = !in[i].channels || (j < joints && (in[i].channels[j] & bits[c]));
                    wi[c * 8 + l] = has ? base[l] : 0.0f;
                }
        }
        const float *rest = s->rest_soa + at;
        if (slerp) { /* SK_BLEND_SLERP: the rotations joint by joint (acos and sin in double), before out is written */
            for (uint32_t l = 0; l < SK_SOA_LANES; l++) {
                ska_slerp_acc acc = {{0, 0, 0, 0}, 0};
                for (uint32_t i = 0; i < n; i++)
                    if (wt[i * 24 + 8 + l] != 0.0f) ska_slerp_add(&acc, sla_rot(rows[i], l), wt[i * 24 + 8 + l]);
                sla_put_q(rot, l, ska_slerp_finish(&acc, sla_rot(rest, l), fill));
            }
        }
        SLA_CALL(wide, sla_blend_group, rows, wt, n, fill, rest, out->data + at);
        if (slerp) memcpy(out->data + at + SKK_ROW_R, rot, sizeof rot);
    }
}

/* ---- the sk_pose forms ----------------------------------------------------- */

#if defined(SK_SOA_X86)
#define SLA_AVX2 __attribute__((target("avx2")))
/* cnt <= 8 transforms as one group (the lanes after them identity
 * transforms, their factors 0), and back. */
SLA_AVX2 static inline void sla_gather(const sk_transform *x, uint32_t cnt, float *g) {
    if (cnt == SK_SOA_LANES)
        skk_aos8_to_soa_avx2((const float *)(const void *)x, g);
    else
        skk_aos_part_to_soa_avx2((const float *)(const void *)x, cnt, g);
}
SLA_AVX2 static inline void sla_scatter(const float *g, uint32_t cnt, sk_transform *x) {
    if (cnt == SK_SOA_LANES)
        skk_soa_to_aos8_avx2(g, (float *)(void *)x);
    else
        skk_soa_to_aos_part_avx2(g, cnt, (float *)(void *)x);
}
/* The lanes [0, cnt) as all-ones. */
SLA_AVX2 static inline __m256i sla_lanes8(uint32_t cnt) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)cnt), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
/* sla_lane_factors inside the AVX2 functions. */
/* Also returned in a register: a load of u after lane-by-lane stores would
 * wait for them. */
SLA_AVX2 static inline __m256 sla_factors8(float value, const float *mask, uint32_t j, uint32_t cnt, float *u) {
    __m256 v = _mm256_set1_ps(value);
    if (cnt == SK_SOA_LANES) {
        if (mask) v = _mm256_mul_ps(v, _mm256_loadu_ps(mask + j));
    } else { /* lanes [0, cnt): as above (nothing read past mask + j + cnt); the others exactly 0 */
        __m256i in = sla_lanes8(cnt);
        if (mask) v = _mm256_mul_ps(v, _mm256_maskload_ps(mask + j, in));
        v = _mm256_and_ps(v, _mm256_castsi256_ps(in));
    }
    _mm256_store_ps(u, v);
    return v;
}

/* sla_lane_factors' partial group: the same products and zeros, made in a
 * register and stored once (eight one-float stores read back by the
 * kernels' wide loads made them wait for the stores). */
SLA_AVX2 static void sla_factors_avx2(float value, const float *mask, uint32_t n, uint32_t g, float *u) {
    uint32_t j = g * SK_SOA_LANES; /* < n: a pose's groups are its joints' (sk_soa_pose_check) */
    (void)sla_factors8(value, mask, j, n - j, u);
}

/* ska_blend_poses_soa's three weight rows (T, R, S) of input in at group g
 * (its weight > 0): ska_eff_weight per lane (w * m where 0 < m < 1, w where
 * m >= 1, 0 where m is not > 0 or the lane is past the joints; the same
 * product), 0 where the input's channel bits leave a channel out. */
SLA_AVX2 static void sla_poses_weights_avx2(const sk_soa_blend_input *in, uint32_t joints, uint32_t g, float *wi) {
    static const uint8_t bits[3] = {SK_CHANNEL_T, SK_CHANNEL_R, SK_CHANNEL_S};
    uint32_t j = g * SK_SOA_LANES, cnt = joints - j < SK_SOA_LANES ? joints - j : SK_SOA_LANES;
    __m256i lanes = sla_lanes8(cnt);
    __m256 w = _mm256_set1_ps(in->weight), base = w, zero = _mm256_setzero_ps();
    if (in->mask) {
        __m256 m = _mm256_maskload_ps(in->mask + j, lanes);
        __m256 pos = _mm256_cmp_ps(m, zero, _CMP_GT_OQ), below = _mm256_cmp_ps(m, _mm256_set1_ps(1.0f), _CMP_LT_OQ);
        base = _mm256_and_ps(_mm256_blendv_ps(w, _mm256_mul_ps(w, m), below), pos);
    }
    base = _mm256_and_ps(base, _mm256_castsi256_ps(lanes));
    __m256i ch = _mm256_setzero_si256();
    if (in->channels) {
        uint8_t b8[SK_SOA_LANES] = {0};
        memcpy(b8, in->channels + j, cnt);
        uint64_t v;
        memcpy(&v, b8, sizeof v);
        ch = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)v));
    }
    for (int c = 0; c < 3; c++) {
        __m256 r = base;
        if (in->channels) {
            __m256i has = _mm256_cmpgt_epi32(_mm256_and_si256(ch, _mm256_set1_epi32(bits[c])), _mm256_setzero_si256());
            r = _mm256_and_ps(r, _mm256_castsi256_ps(has));
        }
        _mm256_store_ps(wi + 8 * c, r);
    }
}

/* The joints of a (and b) eight at a time: gathered into groups, the group kernel (kind 0:
 * sk_blend_two's, 1: with slerp, 2: sk_pose_apply_additive's, io = a, 3: its nlerp form),
 * scattered into out. */
SLA_AVX2 static void sla_aos_groups(const sk_skeleton *s, const sk_transform *a, const sk_transform *b, float value,
                                    const float *mask, int kind, sk_transform *out) {
    float ga[SLA_BATCH * SK_SOA_GROUP_FLOATS] __attribute__((aligned(32)));
    float gb[SLA_BATCH * SK_SOA_GROUP_FLOATS] __attribute__((aligned(32)));
    float u[SLA_BATCH * SK_SOA_LANES] __attribute__((aligned(32)));
    uint32_t n = s->joint_count;
    if (kind >= 2) { /* SLA_BATCH groups at a time (see ska_apply_additive_soa); out is a */
        uint32_t at[SLA_BATCH];
        for (uint32_t j = 0; j < n;) {
            unsigned k = 0; /* the next groups whose weights are not all 0 (the others stay as they are) */
            for (; j < n && k < SLA_BATCH; j += SK_SOA_LANES) {
                uint32_t cnt = n - j < SK_SOA_LANES ? n - j : SK_SOA_LANES;
                float *uk = u + k * SK_SOA_LANES;
                if (!_mm256_movemask_ps(_mm256_cmp_ps(sla_factors8(value, mask, j, cnt, uk), _mm256_setzero_ps(), _CMP_NEQ_UQ)))
                    continue;
                sla_gather(a + j, cnt, ga + k * SK_SOA_GROUP_FLOATS), sla_gather(b + j, cnt, gb + k * SK_SOA_GROUP_FLOATS);
                at[k++] = j;
            }
            if (!k) continue;
            if (kind == 3) sla_additive_nlerp_groups_w8(ga, gb, u, k);
            else sla_additive_groups_w8(ga, gb, u, k);
            for (unsigned g = 0; g < k; g++)
                sla_scatter(ga + g * SK_SOA_GROUP_FLOATS, n - at[g] < SK_SOA_LANES ? n - at[g] : SK_SOA_LANES, out + at[g]);
        }
        return;
    }
    for (uint32_t j = 0; j < n; j += SK_SOA_LANES) {
        uint32_t cnt = n - j < SK_SOA_LANES ? n - j : SK_SOA_LANES;
        sla_factors8(value, mask, j, cnt, u);
        sla_gather(a + j, cnt, ga), sla_gather(b + j, cnt, gb);
        sla_two_group_w8(ga, gb, u, kind == 1, ga);
        sla_scatter(ga, cnt, out + j);
    }
}

SLA_AVX2 void ska_blend_two_aos(const sk_skeleton *s, const sk_transform *a, const sk_transform *b, float t,
                                const float *mask, bool slerp, sk_transform *out) {
    sla_aos_groups(s, a, b, t, mask, slerp ? 1 : 0, out);
}

SLA_AVX2 void ska_apply_additive_aos(const sk_skeleton *s, sk_transform *io, const sk_transform *d, float weight,
                                     const float *mask, bool nlerp) {
    sla_aos_groups(s, io, d, weight, mask, nlerp ? 3 : 2, io);
}
#endif

/* ---- public functions ---------------------------------------------------- */

sk_result sk_blend_two_masked_soa(const sk_skeleton *s, const sk_soa_pose *a, const sk_soa_pose *b, float t,
                                  const float *mask, bool use_slerp, sk_soa_pose *out, sk_error *err) {
    static const char *who = "sk_blend_two_masked_soa";
    sk_result r = sk_soa_pose_check(s, a, who, err);
    if (r == SK_OK) r = sk_soa_pose_check(s, b, who, err);
    if (r == SK_OK) r = sk_soa_pose_check(s, out, who, err);
    if (r != SK_OK) return r;
    ska_blend_two_masked_soa(s, a, b, t, mask, use_slerp, out, sk_soa_use_avx2());
    return SK_OK;
}

sk_result sk_blend_poses_soa(const sk_skeleton *s, const sk_soa_blend_input *in, uint32_t n,
                             const sk_blend_options *opts, sk_soa_pose *out, sk_error *err) {
    static const char *who = "sk_blend_poses_soa";
    sk_result r = sk_soa_pose_check(s, out, who, err);
    if (r != SK_OK) return r;
    if (n > SLA_MAX_INPUTS) return sk_error_set(err, SK_ERR_LIMIT, "%s: %u inputs, at most %u", who, n, SLA_MAX_INPUTS);
    if (n && !in) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: NULL inputs", who);
    for (uint32_t i = 0; i < n; i++) {
        if (!in[i].pose) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: input %u: no pose", who, i);
        if ((r = sk_soa_pose_check(s, in[i].pose, who, err)) != SK_OK) return r;
    }
    sk_blend_options o = {0};
    if (opts) o = *opts;
    ska_blend_poses_soa(s, in, n, o.rotation == SK_BLEND_SLERP, !o.no_rest_fill, out, sk_soa_use_avx2());
    return SK_OK;
}

sk_result sk_pose_make_additive_soa(const sk_skeleton *s, const sk_soa_pose *pose, const sk_soa_pose *reference,
                                    sk_soa_pose *out, sk_error *err) {
    static const char *who = "sk_pose_make_additive_soa";
    sk_result r = sk_soa_pose_check(s, pose, who, err);
    if (r == SK_OK) r = sk_soa_pose_check(s, reference, who, err);
    if (r == SK_OK) r = sk_soa_pose_check(s, out, who, err);
    if (r != SK_OK) return r;
    ska_make_additive_soa(s, pose, reference, out, sk_soa_use_avx2());
    return SK_OK;
}

static sk_result apply_additive_soa(const sk_skeleton *s, sk_soa_pose *io, const sk_soa_pose *delta, float weight,
                                    const float *mask, bool nlerp, sk_error *err) {
    const char *who = nlerp ? "sk_pose_apply_additive_nlerp_soa" : "sk_pose_apply_additive_soa";
    sk_result r = sk_soa_pose_check(s, io, who, err);
    if (r == SK_OK) r = sk_soa_pose_check(s, delta, who, err);
    if (r != SK_OK) return r;
    ska_apply_additive_soa(s, io, delta, weight, mask, nlerp, sk_soa_use_avx2());
    return SK_OK;
}

sk_result sk_pose_apply_additive_soa(const sk_skeleton *s, sk_soa_pose *io, const sk_soa_pose *delta, float weight,
                                     const float *mask, sk_error *err) {
    return apply_additive_soa(s, io, delta, weight, mask, false, err);
}

sk_result sk_pose_apply_additive_nlerp_soa(const sk_skeleton *s, sk_soa_pose *io, const sk_soa_pose *delta, float weight,
                                           const float *mask, sk_error *err) {
    return apply_additive_soa(s, io, delta, weight, mask, true, err);
}

sk_result sk_layers_apply_soa(const sk_skeleton *s, sk_soa_pose *io, const sk_soa_layer *layers, uint32_t n,
                              sk_error *err) {
    static const char *who = "sk_layers_apply_soa";
    if (!s || (n && !layers)) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: NULL argument", who);
    sk_result r = sk_soa_pose_check(s, io, who, err);
    if (r != SK_OK) return r;
    for (uint32_t i = 0; i < n; i++) { /* every layer checked before any is applied */
        if (!layers[i].pose) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: layer %u has no pose", who, i);
        if ((r = sk_soa_pose_check(s, layers[i].pose, who, err)) != SK_OK) return r;
    }
    bool wide = sk_soa_use_avx2();
    for (uint32_t i = 0; i < n; i++) { /* sk_layers_apply */
        const sk_soa_layer *L = &layers[i];
        float w = L->weight;
        if (!(w > 0.0f)) continue;
        if (w > 1.0f) w = 1.0f;
        if (L->mode == SK_LAYER_ADDITIVE || L->mode == SK_LAYER_ADDITIVE_NLERP)
            ska_apply_additive_soa(s, io, L->pose, w, L->mask, L->mode == SK_LAYER_ADDITIVE_NLERP, wide);
        else
            ska_blend_two_masked_soa(s, io, L->pose, w, L->mask, false, io, wide);
    }
    return SK_OK;
}
