/* Harness: a retargeting map (JSON) applied to the mannequin onto a copy of
 * itself whose rest pose the bytes turn, then one source pose from the bytes
 * retargeted live. Input: the JSON map, optionally SK_FUZZ_PARAM_SEP and
 * bytes (rest turns, pose rotations and translations: mostly near, one in
 * eight any float, NaN and huge ones included). Promises checked: a failed
 * parse, apply or create has a message; a pose with a non-finite value is
 * refused and leaves the output untouched; every pose accepted gives a
 * finite target pose; the pose made a standing rest (sk_humanoid_pose_like)
 * is refused when not finite, else finite, and retargets to a finite pose. */
#include "fuzz_common.h"

#include <math.h>
#include <string.h>

#define NJ 32

static sk_quat fz_quat(fz_bytes *b) {
    float x = fz_float(b, -1, 1), y = fz_float(b, -1, 1), z = fz_float(b, -1, 1), w = fz_float(b, -1, 1);
    return sk_quat_make(x, y, z, w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const sk_asset *m = fz_mannequin();
    const sk_skeleton *src = m->skeleton;
    fz_bytes json, drive;
    fz_split(data, size, SK_FUZZ_PARAM_SEP, &json, &drive);
    sk_error err = {0};
    sk_retarget_map_json *map = NULL;
    if (sk_retarget_map_json_parse((const char *)json.p, json.n, NULL, &map, &err) != SK_OK) {
        if (!err.message[0]) fz_fail("a failed parse without a message");
        return 0;
    }
    uint32_t n = src->joint_count;
    if (n > NJ) fz_fail("mannequin has %u joints", n);
    /* The target: the mannequin with rest rotations turned by the bytes. */
    sk_transform rest[NJ];
    memcpy(rest, src->rest, n * sizeof *rest);
    for (uint32_t j = 0; j < n && drive.n; j++) {
        sk_quat q = sk_quat_normalize(fz_quat(&drive));
        if (!(fabsf(q.w) <= 1.0f)) continue;
        rest[j].r = sk_quat_normalize(sk_quat_mul(rest[j].r, q));
    }
    sk_skeleton_desc d = {n, src->parents, src->names, rest, NULL, NULL};
    sk_skeleton *dst = NULL;
    sk_retarget *rt = NULL;
    if (sk_skeleton_create(&d, NULL, &dst, &err) != SK_OK) goto out; /* non-finite turns: refused there */
    sk_retarget_desc rd = {0};
    rd.source = src, rd.target = dst;
    sk_humanoid_map ms, mt;
    if (sk_retarget_map_json_apply(map, &rd, &ms, &mt, &err) != SK_OK) {
        if (!err.message[0]) fz_fail("a failed apply without a message");
        goto out;
    }
    if (sk_retarget_create(&rd, NULL, &rt, &err) != SK_OK) {
        if (!err.message[0]) fz_fail("a failed create without a message");
        goto out;
    }
    sk_transform in[NJ], out[NJ];
    memcpy(in, src->rest, n * sizeof *in);
    for (uint32_t j = 0; j < n && drive.n; j++) {
        in[j].r = fz_quat(&drive);
        if (fz_u8(&drive) & 1) in[j].t = sk_vec3_make(fz_float(&drive, -2, 2), fz_float(&drive, -2, 2), fz_float(&drive, -2, 2));
    }
    for (uint32_t j = 0; j < n; j++) out[j] = sk_transform_identity();
    int finite = fz_finite((const float *)in, n * sizeof(sk_transform) / sizeof(float));
    sk_result r = sk_retarget_pose(rt, SK_POSE_OF(src, in, NULL), NULL, SK_POSE_OF(dst, out, NULL), NULL, 0, &err);
    if (!finite) {
        if (r == SK_OK) fz_fail("a pose with a non-finite value accepted");
        for (uint32_t j = 0; j < n; j++)
            if (out[j].r.w != 1.0f || out[j].t.x != 0.0f) fz_fail("a refused pose changed the output");
    } else if (r == SK_OK) {
        if (!fz_finite((const float *)out, n * sizeof(sk_transform) / sizeof(float))) fz_fail("retargeted pose not finite");
    } else if (!err.message[0]) {
        fz_fail("a failed retarget without a message");
    }
    /* The same pose as the source of a standing rest (sk_humanoid_pose_like): a non-finite pose
     * refused, an accepted one made finite, and retargeting through it finite too. */
    sk_humanoid_map fs, ft;
    if (sk_humanoid_map_find(src, NULL, &fs, NULL) == SK_OK && sk_humanoid_map_find(dst, NULL, &ft, NULL) == SK_OK) {
        (void)sk_humanoid_pose_stands(src, SK_POSE_OF(src, in, NULL), &fs);
        sk_transform made[NJ];
        memset(&err, 0, sizeof err);
        r = sk_humanoid_pose_like(src, &fs, SK_POSE_OF(src, in, NULL), 1, dst, NULL, &ft, NULL, SK_POSE_OF(src, made, NULL), &err);
        if (!finite && r == SK_OK) fz_fail("pose_like accepted a non-finite pose");
        if (r != SK_OK && !err.message[0]) fz_fail("a failed pose_like without a message");
        if (r == SK_OK) {
            if (!fz_finite((const float *)made, n * sizeof(sk_transform) / sizeof(float))) fz_fail("pose_like not finite");
            sk_retarget_desc sd = {0};
            sd.source = src, sd.target = dst, sd.source_rest = SK_POSE_OF(src, made, NULL), sd.source_map = &fs;
            sk_retarget *st = NULL;
            if (sk_retarget_create(&sd, NULL, &st, &err) == SK_OK &&
                sk_retarget_pose(st, SK_POSE_OF(src, in, NULL), NULL, SK_POSE_OF(dst, out, NULL), NULL, 0, &err) == SK_OK &&
                !fz_finite((const float *)out, n * sizeof(sk_transform) / sizeof(float)))
                fz_fail("retargeted through a standing rest: not finite");
            sk_retarget_destroy(st);
        }
    }
out:
    sk_retarget_destroy(rt);
    sk_skeleton_destroy(dst);
    sk_retarget_map_json_destroy(map);
    return 0;
}
