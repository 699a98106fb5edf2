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
#include "core/math_inline.h"
#include "skelanim/anim/blend.h"

#include <math.h>

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
/* Eight transforms (80 floats: t, r, s each) as one SoA group's ten rows, and back. */
__attribute__((target("avx2"))) static inline void aos8_to_soa(const float *x, float *g) {
    __m256 r[8];
    for (int l = 0; l < 8; l++) r[l] = _mm256_loadu_ps(x + 10 * l); /* t, r, s.x */
    skk_tr8_avx2(r);
    for (int k = 0; k < 8; k++) _mm256_store_ps(g + 8 * k, r[k]);
    for (int h = 0; h < 2; h++) { /* s.y, s.z of joints 4h .. 4h + 3 */
        const float *y = x + 40 * h + 8;
        __m128 p01 = _mm_loadh_pi(_mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)(const void *)y), (const __m64 *)(const void *)(y + 10));
        __m128 p23 = _mm_loadh_pi(_mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)(const void *)(y + 20)),
                                  (const __m64 *)(const void *)(y + 30));
        _mm_store_ps(g + 64 + 4 * h, _mm_shuffle_ps(p01, p23, _MM_SHUFFLE(2, 0, 2, 0)));
        _mm_store_ps(g + 72 + 4 * h, _mm_shuffle_ps(p01, p23, _MM_SHUFFLE(3, 1, 3, 1)));
    }
}
__attribute__((target("avx2"))) static inline void soa_to_aos8(const float *g, float *x) {
    __m256 r[8];
    for (int k = 0; k < 8; k++) r[k] = _mm256_load_ps(g + 8 * k);
    skk_tr8_avx2(r);
    for (int l = 0; l < 8; l++) _mm256_storeu_ps(x + 10 * l, r[l]);
    for (int h = 0; h < 2; h++) {
        __m128 sy = _mm_load_ps(g + 64 + 4 * h), sz = _mm_load_ps(g + 72 + 4 * h);
        __m128 lo = _mm_unpacklo_ps(sy, sz), hi = _mm_unpackhi_ps(sy, sz); /* (y, z) of joints 0 1, 2 3 */
        float *y = x + 40 * h + 8;
        _mm_storel_pi((__m64 *)(void *)y, lo), _mm_storeh_pi((__m64 *)(void *)(y + 10), lo);
        _mm_storel_pi((__m64 *)(void *)(y + 20), hi), _mm_storeh_pi((__m64 *)(void *)(y + 30), hi);
    }
}
/* sk_blend_two without a mask, slerp or a zero t, 8 joints at a time through the SoA
 * kernel (the same float operations per joint, in the same order: the same bits,
 * tests/test_soa_layers.c); the last joints as a group filled up with rest
 * transforms whose results are dropped. */
__attribute__((target("avx2"))) static void blend_two_wide(const sk_transform *a, const sk_transform *b, float t,
                                                           sk_transform *out, uint32_t n) {
    float ga[80] __attribute__((aligned(32))), gb[80] __attribute__((aligned(32)));
    uint32_t j = 0;
    for (; j + 8 <= n; j += 8) {
        aos8_to_soa((const float *)(const void *)(a + j), ga);
        aos8_to_soa((const float *)(const void *)(b + j), gb);
        skk_blend_group_w8(ga, gb, t, ga);
        soa_to_aos8(ga, (float *)(void *)(out + j));
    }
    if (j < n) {
        sk_transform ta[8], tb[8];
        for (uint32_t l = 0; l < 8; l++) ta[l] = tb[l] = sk_transform_identity();
        memcpy(ta, a + j, (n - j) * sizeof *ta);
        memcpy(tb, b + j, (n - j) * sizeof *tb);
        aos8_to_soa((const float *)(const void *)ta, ga);
        aos8_to_soa((const float *)(const void *)tb, gb);
        skk_blend_group_w8(ga, gb, t, ga);
        soa_to_aos8(ga, (float *)(void *)ta);
        memcpy(out + j, ta, (n - j) * sizeof *ta);
    }
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
#if defined(SK_SOA_X86)
    /* the everyday case, eight joints at a time; the morph weights below as for every joint */
    if (!mask && !use_slerp && t != 0.0f && sk_soa_use_avx2()) {
        blend_two_wide(a, b, t, out, skel->joint_count);
        j0 = skel->joint_count;
        if (out_morph && ma && mb)
            for (uint32_t j = 0; j < j0; j++) {
                uint32_t off = skel->weight_offset[j], cnt = skel->weight_count[j];
                for (uint32_t k = 0; k < cnt; k++) out_morph[off + k] = ma[off + k] + (mb[off + k] - ma[off + k]) * t;
            }
    }
#endif
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
