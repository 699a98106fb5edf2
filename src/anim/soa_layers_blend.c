/* The crowd's plain blends on structure-of-arrays poses (anim/soa_layers.h):
 * sk_blend_two_soa (two poses, normalised lerp, eight or four joints per
 * instruction) and sk_blend_weighted_soa (n poses by weights, in double as
 * sk_blend_poses, four or two doubles per instruction), and their
 * width-chosen private forms sk_soa_blend / sk_soa_blend_weighted
 * (anim/soa_layers_internal.h). The kernels: anim/soa_blend_kernels.h. */
#include "anim/soa_blend_kernels.h" /* and through it core/soa_kernels.h (sk_soa_use_avx2) */
#include "anim/soa_layers_internal.h"
#include "core/internal.h"

#include <string.h>

sk_result sk_blend_two_soa(const sk_skeleton *s, const sk_soa_pose *a, const sk_soa_pose *b, float t,
                           sk_soa_pose *out, sk_error *err) {
    static const char *who = "sk_blend_two_soa";
    if (!sk_soa_pose_fits(s, a) || !sk_soa_pose_fits(s, b) || !sk_soa_pose_fits(s, out)) {
        sk_result r = sk_soa_pose_check(s, a, who, err);
        if (r == SK_OK) r = sk_soa_pose_check(s, b, who, err);
        if (r == SK_OK) r = sk_soa_pose_check(s, out, who, err);
        if (r != SK_OK) return r;
    }
    size_t floats = (size_t)out->group_count * SK_SOA_GROUP_FLOATS;
    if (t == 0.0f) { /* sk_blend_two keeps a where the weight is 0 */
        if (out->data != a->data) memmove(out->data, a->data, floats * sizeof(float));
        return SK_OK;
    }
    sk_soa_blend(a, b, t, out, sk_soa_use_avx2());
    return SK_OK;
}

#if defined(SK_SOA_X86)
/* The groups' loop inside the AVX2 function: one call per pose, its
 * constants made once. */
__attribute__((target("avx2"), noinline)) static void soa_blend_w8(const float *a, const float *b, float t, float *out, size_t floats) {
    skk_blend_groups_w8(a, b, t, out, floats);
}
#endif

void sk_soa_blend(const sk_soa_pose *a, const sk_soa_pose *b, float t, sk_soa_pose *out, bool wide) {
    size_t floats = (size_t)out->group_count * SK_SOA_GROUP_FLOATS;
#if defined(SK_SOA_X86)
    if (wide) {
        soa_blend_w8(a->data, b->data, t, out->data, floats);
        return;
    }
#else
    (void)wide;
#endif
    skk_blend_groups_w4(a->data, b->data, t, out->data, floats);
}

#define SK_SOA_MAX_LAYERS 64u

sk_result sk_blend_weighted_soa(const sk_skeleton *s, const sk_soa_pose *const *poses, const float *weights, uint32_t n,
                                bool rest_fill, sk_soa_pose *out, sk_error *err) {
    static const char *who = "sk_blend_weighted_soa";
    sk_result r = sk_soa_pose_check(s, out, who, err);
    if (r != SK_OK) return r;
    if (n > SK_SOA_MAX_LAYERS)
        return sk_error_set(err, SK_ERR_LIMIT, "%s: %u poses, at most %u", who, n, SK_SOA_MAX_LAYERS);
    if (n && (!poses || !weights)) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: NULL poses or weights", who);
    for (uint32_t i = 0; i < n; i++)
        if ((r = sk_soa_pose_check(s, poses[i], who, err)) != SK_OK) return r;
    sk_soa_blend_weighted(s, poses, weights, n, rest_fill, out, sk_soa_use_avx2());
    return SK_OK;
}

void sk_soa_blend_weighted(const sk_skeleton *s, const sk_soa_pose *const *poses, const float *weights, uint32_t n,
                           bool fill, sk_soa_pose *out, bool wide) {
    /* The inputs that contribute (eff_weight: weight > 0), their weight sum in order. */
    uint32_t used[SK_SOA_MAX_LAYERS], m = 0;
    float w[SK_SOA_MAX_LAYERS];
    double W = 0.0;
    for (uint32_t i = 0; i < n && i < SK_SOA_MAX_LAYERS; i++)
        if (weights[i] > 0.0f) used[m] = i, w[m++] = weights[i], W += weights[i];
    size_t floats = (size_t)out->group_count * SK_SOA_GROUP_FLOATS;
    if (m == 0 || W == 0.0) { /* nothing contributes: the rest pose */
        memcpy(out->data, s->rest_soa, floats * sizeof(float));
        return;
    }
    const float *in[SK_SOA_MAX_LAYERS];
    for (size_t g = 0; g < floats; g += SK_SOA_GROUP_FLOATS) {
        for (uint32_t i = 0; i < m; i++) in[i] = poses[used[i]]->data + g;
#if defined(SK_SOA_X86)
        if (wide) {
            skd_blend_group_d4(in, w, m, W, fill, s->rest_soa + g, out->data + g);
            continue;
        }
#else
        (void)wide;
#endif
        skd_blend_group_d2(in, w, m, W, fill, s->rest_soa + g, out->data + g);
    }
}
