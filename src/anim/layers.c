/* Joint masks, additive poses and the layer stack (layers.h). */
#include "anim/soa_layers_internal.h"
#include "core/internal.h"
#include "core/soa_kernels.h"
#include "skelanim/anim/blend.h"
#include "skelanim/anim/layers.h"

#include <math.h>

/* ---- masks ---- */

void sk_mask_fill(const sk_skeleton *skel, float *mask, float value) {
    for (uint32_t j = 0; j < skel->joint_count; j++) mask[j] = value;
}

static int32_t find_joint(const sk_skeleton *skel, const char *name, sk_error *err) {
    int32_t j = name ? sk_skeleton_find(skel, name) : -1;
    if (j < 0) sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "mask: no joint named '%s'", name ? name : "(null)");
    return j;
}

sk_result sk_mask_set_subtree(const sk_skeleton *skel, const char *joint, float value, float *mask, sk_error *err) {
    if (!skel || !mask) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_mask_set_subtree: NULL argument");
    int32_t root = find_joint(skel, joint, err);
    if (root < 0) return SK_ERR_INVALID_ARGUMENT;
    /* parents come before children, so descendants have larger indices */
    for (uint32_t j = (uint32_t)root; j < skel->joint_count; j++) {
        int32_t a = (int32_t)j;
        while (a > root) a = skel->parents[a];
        if (a == root) mask[j] = value;
    }
    return SK_OK;
}

sk_result sk_mask_set_joints(const sk_skeleton *skel, const char *const *joints, uint32_t count, float value,
                             float *mask, sk_error *err) {
    if (!skel || !mask || (count && !joints))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_mask_set_joints: NULL argument");
    for (uint32_t i = 0; i < count; i++) {
        int32_t j = find_joint(skel, joints[i], err);
        if (j < 0) return SK_ERR_INVALID_ARGUMENT;
        mask[j] = value;
    }
    return SK_OK;
}

/* ---- additive ---- */

static float safe_div(float a, float b) { return b != 0.0f ? a / b : 1.0f; }

/* Joints must match; morph weights are all or none. */
static sk_result fits(const sk_skeleton *skel, const sk_pose *p, const char *who, const char *what, sk_error *err) {
    if (!skel || !p || !p->local || p->joint_count != skel->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: %s does not fit the skeleton", who, what);
    if (p->weight_count && (p->weight_count != skel->weight_total || !p->weights))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: %s has %u morph weights, skeleton %u", who, what,
                            p->weight_count, skel->weight_total);
    return SK_OK;
}

sk_result sk_pose_make_additive(const sk_skeleton *skel, const sk_pose *pp, const sk_pose *pr, sk_pose *po,
                                sk_error *err) {
    sk_result r = fits(skel, pp, "sk_pose_make_additive", "pose", err);
    if (r == SK_OK) r = fits(skel, pr, "sk_pose_make_additive", "reference", err);
    if (r == SK_OK) r = fits(skel, po, "sk_pose_make_additive", "output", err);
    if (r != SK_OK) return r;
    const sk_transform *pose = pp->local, *ref = pr->local;
    for (uint32_t j = 0; j < skel->joint_count; j++) {
        sk_transform d;
        d.t = sk_vec3_sub(pose[j].t, ref[j].t);
        d.r = sk_quat_normalize(sk_quat_mul(sk_quat_inverse(ref[j].r), pose[j].r));
        d.s = sk_vec3_make(safe_div(pose[j].s.x, ref[j].s.x), safe_div(pose[j].s.y, ref[j].s.y),
                           safe_div(pose[j].s.z, ref[j].s.z));
        po->local[j] = d;
    }
    if (po->weight_count && pp->weight_count && pr->weight_count)
        for (uint32_t k = 0; k < skel->weight_total; k++) po->weights[k] = pp->weights[k] - pr->weights[k];
    return SK_OK;
}

/* sk_pose_apply_additive_nlerp's weighted delta rotation (w not 0 or 1):
 * (1 - w) identity + w dr, dr on the identity's hemisphere, unnormalised
 * (the product with r is normalised); the SoA kernel's operations in order. */
static inline sk_quat additive_nlerp_q(sk_quat d, float w) {
    float sg = d.w < 0.0f ? -1.0f : 1.0f;
    return sk_quat_make(d.x * sg * w, d.y * sg * w, d.z * sg * w, (d.w * sg - 1.0f) * w + 1.0f);
}

static sk_result apply_additive(const sk_skeleton *skel, sk_pose *pio, const sk_pose *pd, float weight, const float *mask,
                                bool nlerp, sk_error *err) {
    const char *who = nlerp ? "sk_pose_apply_additive_nlerp" : "sk_pose_apply_additive";
    sk_result r = fits(skel, pio, who, "pose", err);
    if (r == SK_OK) r = fits(skel, pd, who, "delta", err);
    if (r != SK_OK) return r;
    sk_transform *io = pio->local;
    float *io_morph = pio->weight_count ? pio->weights : NULL;
    const float *morph_delta = pd->weight_count ? pd->weights : NULL;
#if defined(SK_SOA_X86)
    if (sk_soa_use_avx2()) { /* eight joints at a time through the SoA layers' group kernel, the same bits */
        ska_apply_additive_aos(skel, io, pd->local, weight, mask, nlerp);
        if (io_morph && morph_delta)
            for (uint32_t j = 0; j < skel->joint_count; j++) {
                float w = mask ? weight * mask[j] : weight;
                if (w == 0.0f) continue;
                uint32_t off = skel->weight_offset[j], cnt = skel->weight_count[j];
                for (uint32_t k = 0; k < cnt; k++) io_morph[off + k] += w * morph_delta[off + k];
            }
        return SK_OK;
    }
#endif
    for (uint32_t j = 0; j < skel->joint_count; j++) {
        float w = mask ? weight * mask[j] : weight;
        if (w == 0.0f) continue;
        const sk_transform *d = &pd->local[j];
        io[j].t = sk_vec3_add(io[j].t, sk_vec3_scale(d->t, w));
        sk_quat dr = w == 1.0f ? d->r : nlerp ? additive_nlerp_q(d->r, w) : sk_quat_slerp(sk_quat_identity(), d->r, w);
        io[j].r = sk_quat_normalize(sk_quat_mul(io[j].r, dr));
        io[j].s = sk_vec3_mul(io[j].s, sk_vec3_lerp(sk_vec3_make(1, 1, 1), d->s, w));
        if (io_morph && morph_delta) {
            uint32_t off = skel->weight_offset[j], cnt = skel->weight_count[j];
            for (uint32_t k = 0; k < cnt; k++) io_morph[off + k] += w * morph_delta[off + k];
        }
    }
    return SK_OK;
}

sk_result sk_pose_apply_additive(const sk_skeleton *skel, sk_pose *io, const sk_pose *delta, float weight, const float *mask,
                                 sk_error *err) {
    return apply_additive(skel, io, delta, weight, mask, false, err);
}

sk_result sk_pose_apply_additive_nlerp(const sk_skeleton *skel, sk_pose *io, const sk_pose *delta, float weight,
                                       const float *mask, sk_error *err) {
    return apply_additive(skel, io, delta, weight, mask, true, err);
}

/* ---- layer stack ---- */

sk_result sk_layers_apply(const sk_skeleton *skel, sk_pose *io, const sk_layer *layers, uint32_t n, sk_error *err) {
    if (!skel || (n && !layers)) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_layers_apply: NULL argument");
    sk_result r = sk_pose_check(skel, io, "sk_layers_apply", err);
    if (r != SK_OK) return r;
    for (uint32_t i = 0; i < n; i++) {
        const sk_layer *L = &layers[i];
        if (!L->pose) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_layers_apply: layer %u has no pose", i);
        float w = L->weight;
        if (!(w > 0.0f)) continue;
        if (w > 1.0f) w = 1.0f;
        if (L->mode == SK_LAYER_ADDITIVE || L->mode == SK_LAYER_ADDITIVE_NLERP) {
            r = apply_additive(skel, io, L->pose, w, L->mask, L->mode == SK_LAYER_ADDITIVE_NLERP, err);
        } else {
            /* a layer without morph weights leaves io's alone (sk_blend_two) */
            r = sk_blend_two(skel, io, L->pose, w, L->mask, false, io, err);
        }
        if (r != SK_OK) return r;
    }
    return SK_OK;
}
