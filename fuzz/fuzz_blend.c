/* Harness: blending, masks, additive poses and layer stacks on the
 * mannequin. Input bytes pick up to four clips and times (poses), weights
 * (mostly 0..2, sometimes any float), masks (from a subtree, a joint list, or
 * per joint), channel bits, the rotation mode and rest fill; then
 * sk_blend_poses, sk_blend_two, sk_pose_make_additive/apply_additive and
 * sk_layers_apply, each with its SoA form (anim/soa_layers.h) compared bit
 * for bit where the sk_pose result is finite. Promise checked: with finite
 * weights and masks in [0, 1] every output pose is finite (a NaN or
 * negative weight counts as 0). */
#include "fuzz_common.h"

#include <math.h>
#include <string.h>

#define NIN 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const sk_asset *m = fz_mannequin();
    const sk_skeleton *skel = m->skeleton;
    uint32_t jc = skel->joint_count;
    fz_bytes b = {data, size};
    sk_error err = {0};
    sk_pose in[NIN], out, delta;
    float masks[NIN][64];
    uint8_t channels[NIN][64];
    if (jc > 64) fz_fail("the mannequin has more joints than the harness expects");
    for (int i = 0; i < NIN; i++)
        if (sk_pose_alloc(skel, NULL, &in[i], &err) != SK_OK) fz_fail("%s", err.message);
    if (sk_pose_alloc(skel, NULL, &out, &err) != SK_OK || sk_pose_alloc(skel, NULL, &delta, &err) != SK_OK)
        fz_fail("%s", err.message);

    uint32_t n = 1 + fz_u8(&b) % NIN;
    sk_blend_input inputs[NIN];
    bool finite_in = true;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = fz_u8(&b) % m->clip_count;
        double t = (fz_u8(&b) & 1) ? (double)fz_raw_float(&b) : (double)fz_range(&b, -1.0f, 3.0f);
        if (sk_clip_sample(m->clips[c], skel, t, (sk_loop_mode)(fz_u8(&b) % 3), &in[i], &err) != SK_OK)
            fz_fail("sk_clip_sample: %s", err.message);
        inputs[i].pose = &in[i];
        inputs[i].weight = fz_float(&b, 0.0f, 2.0f);
        if (!isfinite(inputs[i].weight) || fabsf(inputs[i].weight) > 1e30f) finite_in = false;
        inputs[i].mask = NULL;
        inputs[i].channels = NULL;
        uint8_t kind = fz_u8(&b);
        if (kind & 1) {
            sk_mask_fill(skel, masks[i], (float)fz_u8(&b) / 255.0f);
            uint32_t j = fz_u8(&b) % jc;
            if (kind & 2) {
                (void)sk_mask_set_subtree(skel, skel->names[j], (float)fz_u8(&b) / 255.0f, masks[i], &err);
            } else {
                const char *list[3] = {skel->names[j], skel->names[fz_u8(&b) % jc], "no such joint"};
                (void)sk_mask_set_joints(skel, list, 2 + (kind >> 7), (float)fz_u8(&b) / 255.0f, masks[i], &err);
            }
            if (kind & 4)
                for (uint32_t k = 0; k < jc; k++) masks[i][k] = (float)fz_u8(&b) / 255.0f;
            inputs[i].mask = masks[i];
        }
        if (kind & 8) {
            if (kind & 16) {
                if (sk_clip_channel_mask(m->clips[c], skel, channels[i], &err) != SK_OK)
                    fz_fail("sk_clip_channel_mask: %s", err.message);
            } else {
                for (uint32_t k = 0; k < jc; k++) channels[i][k] = fz_u8(&b);
            }
            inputs[i].channels = channels[i];
        }
    }
    sk_blend_options bo = {(sk_blend_rotation)(fz_u8(&b) & 1), (fz_u8(&b) & 1) != 0};
    if (sk_blend_poses(skel, inputs, n, &bo, &out, &err) != SK_OK) fz_fail("sk_blend_poses: %s", err.message);
    if (finite_in && !fz_pose_finite(&out)) fz_fail("sk_blend_poses: finite input, pose not finite");
    /* The SoA blends (anim/soa_layers.h) promise the same bits: the plain
     * weighted blend sk_blend_weighted_soa (nlerp, no masks or channel sets)
     * where it applies, sk_blend_poses_soa in every case; finite results
     * compared with memcmp. */
    sk_soa_pose sin[NIN], sout;
    bool soa_ok = sk_soa_pose_alloc(skel, NULL, &sout, &err) == SK_OK;
    for (int i = 0; i < NIN; i++) soa_ok = sk_soa_pose_alloc(skel, NULL, &sin[i], &err) == SK_OK && soa_ok;
    if (!soa_ok) fz_fail("sk_soa_pose_alloc: %s", err.message);
    for (uint32_t i = 0; i < n; i++)
        if (sk_soa_pose_from_pose(skel, &in[i], &sin[i], &err) != SK_OK) fz_fail("sk_soa_pose_from_pose: %s", err.message);
    sk_pose back;
    if (sk_pose_alloc(skel, NULL, &back, &err) != SK_OK) fz_fail("%s", err.message);
    bool plain = bo.rotation == SK_BLEND_NLERP;
    for (uint32_t i = 0; i < n; i++) plain = plain && !inputs[i].mask && !inputs[i].channels;
    if (plain && fz_pose_finite(&out)) {
        const sk_soa_pose *sp[NIN];
        float w[NIN];
        for (uint32_t i = 0; i < n; i++) sp[i] = &sin[i], w[i] = inputs[i].weight;
        if (sk_blend_weighted_soa(skel, sp, w, n, !bo.no_rest_fill, &sout, &err) != SK_OK ||
            sk_soa_pose_to_pose(skel, &sout, &back, &err) != SK_OK)
            fz_fail("sk_blend_weighted_soa: %s", err.message);
        if (memcmp(back.local, out.local, jc * sizeof(sk_transform)) != 0) fz_fail("sk_blend_weighted_soa differs from sk_blend_poses");
    }
    if (fz_pose_finite(&out)) {
        sk_soa_blend_input si[NIN];
        for (uint32_t i = 0; i < n; i++) si[i] = (sk_soa_blend_input){&sin[i], inputs[i].weight, inputs[i].mask, inputs[i].channels};
        if (sk_blend_poses_soa(skel, si, n, &bo, &sout, &err) != SK_OK || sk_soa_pose_to_pose(skel, &sout, &back, &err) != SK_OK)
            fz_fail("sk_blend_poses_soa: %s", err.message);
        if (memcmp(back.local, out.local, jc * sizeof(sk_transform)) != 0) fz_fail("sk_blend_poses_soa differs from sk_blend_poses");
    }

    float t2 = fz_float(&b, -0.5f, 1.5f);
    const float *mask2 = inputs[0].mask;
    bool slerp2 = fz_u8(&b) & 1;
    if (sk_blend_two(skel, &in[0], &in[n - 1], t2, mask2, slerp2, &out, &err) != SK_OK)
        fz_fail("sk_blend_two: %s", err.message);
    if (isfinite(t2) && fabsf(t2) < 1e6f && !fz_pose_finite(&out))
        fz_fail("sk_blend_two: finite input (t %g), pose not finite", t2);
    if (!mask2 && !slerp2 && fz_pose_finite(&out)) {
        if (sk_blend_two_soa(skel, &sin[0], &sin[n - 1], t2, &sout, &err) != SK_OK ||
            sk_soa_pose_to_pose(skel, &sout, &back, &err) != SK_OK)
            fz_fail("sk_blend_two_soa: %s", err.message);
        if (memcmp(back.local, out.local, jc * sizeof(sk_transform)) != 0) fz_fail("sk_blend_two_soa differs from sk_blend_two (t %g)", t2);
    }
    if (fz_pose_finite(&out)) {
        if (sk_blend_two_masked_soa(skel, &sin[0], &sin[n - 1], t2, mask2, slerp2, &sout, &err) != SK_OK ||
            sk_soa_pose_to_pose(skel, &sout, &back, &err) != SK_OK)
            fz_fail("sk_blend_two_masked_soa: %s", err.message);
        if (memcmp(back.local, out.local, jc * sizeof(sk_transform)) != 0)
            fz_fail("sk_blend_two_masked_soa differs from sk_blend_two (t %g, slerp %d)", t2, slerp2);
    }

    /* Additive: in[n-1] relative to in[0], applied on out. */
    if (sk_pose_make_additive(skel, &in[n - 1], &in[0], &delta, &err) != SK_OK)
        fz_fail("sk_pose_make_additive: %s", err.message);
    float aw = fz_float(&b, 0.0f, 1.0f);
    sk_soa_pose sdelta;
    if (sk_soa_pose_alloc(skel, NULL, &sdelta, &err) != SK_OK) fz_fail("%s", err.message);
    if (sk_pose_make_additive_soa(skel, &sin[n - 1], &sin[0], &sdelta, &err) != SK_OK ||
        sk_soa_pose_to_pose(skel, &sdelta, &back, &err) != SK_OK)
        fz_fail("sk_pose_make_additive_soa: %s", err.message);
    if (fz_pose_finite(&delta) && memcmp(back.local, delta.local, jc * sizeof(sk_transform)) != 0)
        fz_fail("sk_pose_make_additive_soa differs from sk_pose_make_additive");
    bool out_finite = fz_pose_finite(&out);
    if (sk_soa_pose_from_pose(skel, &out, &sout, &err) != SK_OK) fz_fail("%s", err.message);
    if (sk_pose_apply_additive(skel, &out, &delta, aw, inputs[0].mask, &err) != SK_OK)
        fz_fail("sk_pose_apply_additive: %s", err.message);
    if (out_finite && fz_pose_finite(&delta) && fz_pose_finite(&out)) {
        if (sk_pose_apply_additive_soa(skel, &sout, &sdelta, aw, inputs[0].mask, &err) != SK_OK ||
            sk_soa_pose_to_pose(skel, &sout, &back, &err) != SK_OK)
            fz_fail("sk_pose_apply_additive_soa: %s", err.message);
        if (memcmp(back.local, out.local, jc * sizeof(sk_transform)) != 0)
            fz_fail("sk_pose_apply_additive_soa differs from sk_pose_apply_additive");
    }

    sk_layer layers[NIN];
    sk_soa_layer slayers[NIN];
    for (uint32_t i = 0; i < n; i++) {
        uint8_t mb = fz_u8(&b); /* bit 0: additive, bit 1 with it: its nlerp form */
        layers[i].mode = !(mb & 1) ? SK_LAYER_OVERRIDE : (mb & 2) ? SK_LAYER_ADDITIVE_NLERP : SK_LAYER_ADDITIVE;
        layers[i].weight = fz_range(&b, 0.0f, 1.0f);
        layers[i].mask = inputs[i].mask;
        layers[i].pose = layers[i].mode != SK_LAYER_OVERRIDE ? &delta : &in[i];
        slayers[i] = (sk_soa_layer){layers[i].mode, layers[i].weight, layers[i].mask,
                                    layers[i].mode != SK_LAYER_OVERRIDE ? &sdelta : &sin[i]};
    }
    if (sk_pose_rest(skel, &out, &err) != SK_OK) fz_fail("%s", err.message);
    if (sk_layers_apply(skel, &out, layers, n, &err) != SK_OK) fz_fail("sk_layers_apply: %s", err.message);
    /* A delta of two sampled poses may carry any scale ratio; finite scales in
     * the mannequin's clips keep the stack finite. */
    if (!fz_pose_finite(&out)) fz_fail("sk_layers_apply: finite input, pose not finite");
    if (sk_soa_pose_rest(skel, &sout, &err) != SK_OK || sk_layers_apply_soa(skel, &sout, slayers, n, &err) != SK_OK ||
        sk_soa_pose_to_pose(skel, &sout, &back, &err) != SK_OK)
        fz_fail("sk_layers_apply_soa: %s", err.message);
    if (memcmp(back.local, out.local, jc * sizeof(sk_transform)) != 0) fz_fail("sk_layers_apply_soa differs from sk_layers_apply");
    for (int i = 0; i < NIN; i++) sk_soa_pose_free(&sin[i], NULL);
    sk_soa_pose_free(&sout, NULL);
    sk_soa_pose_free(&sdelta, NULL);
    sk_pose_free(&back, NULL);

    for (int i = 0; i < NIN; i++) sk_pose_free(&in[i], NULL);
    sk_pose_free(&out, NULL);
    sk_pose_free(&delta, NULL);
    return 0;
}
