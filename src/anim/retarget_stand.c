/* skelanim — retargeting from skeletons whose rest pose does not stand: the
 * test (sk_humanoid_pose_stands) and a standing rest made from a pose of the
 * skeleton (sk_humanoid_pose_like). See docs/retarget.md, "Rest poses that
 * do not stand". */
#include "anim/retarget_internal.h"

#include <string.h>

/* A leg hangs when its hip-to-foot direction is within this angle of the
 * direction opposite hips-to-head: cos 45 degrees. */
#define STAND_COS 0.70710678f

static bool stands(const sk_transform *model, const sk_humanoid_map *m) {
    int32_t hips = m->joint[SK_HUMANOID_HIPS];
    int32_t head = m->joint[SK_HUMANOID_HEAD] >= 0 ? m->joint[SK_HUMANOID_HEAD] : m->joint[SK_HUMANOID_NECK];
    if (hips < 0 || head < 0) return false;
    sk_vec3 up = skm_vec3_unit(sk_vec3_sub(model[head].t, model[hips].t));
    if (skm_vec3_is_zero(up)) return false;
    for (int side = 0; side < 2; side++) {
        int32_t u = m->joint[side ? SK_HUMANOID_RIGHT_UPPER_LEG : SK_HUMANOID_LEFT_UPPER_LEG];
        int32_t f = m->joint[side ? SK_HUMANOID_RIGHT_FOOT : SK_HUMANOID_LEFT_FOOT];
        if (u < 0 || f < 0) return false;
        sk_vec3 d = skm_vec3_unit(sk_vec3_sub(model[f].t, model[u].t));
        if (skm_vec3_is_zero(d) || !(sk_vec3_dot(d, up) <= -STAND_COS)) return false;
    }
    return true;
}

bool sk_humanoid_pose_stands(const sk_skeleton *skel, const sk_pose *pose, const sk_humanoid_map *map) {
    if (!skel || !map || (pose && (!pose->local || pose->joint_count != skel->joint_count))) return false;
    for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++)
        if (map->joint[b] >= (int32_t)skel->joint_count) return false;
    const sk_transform *local = pose ? pose->local : skel->rest;
    uint32_t n = skel->joint_count;
    if (!skr_transforms_finite(local, n)) return false;
    /* model positions of the few joints needed, each by its own walk up the tree */
    sk_transform model[SK_HUMANOID_BONE_COUNT];
    sk_humanoid_map idx = *map;
    for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++)
        if (map->joint[b] >= 0) model[b] = skr_model_transform(skel, local, map->joint[b]), idx.joint[b] = b;
    return stands(model, &idx);
}

/* The rotation with columns lat, up, lat x up (as skr_hips_frame builds it). */
static sk_quat frame_of(sk_vec3 lat, sk_vec3 up) {
    sk_vec3 fwd = sk_vec3_cross(lat, up);
    double R[3][3] = {{lat.x, lat.y, lat.z}, {up.x, up.y, up.z}, {fwd.x, fwd.y, fwd.z}};
    return skm_quat_from_rotation(R);
}

/* The model axis (+-X, +-Y, +-Z) nearest v. */
static sk_vec3 nearest_axis(sk_vec3 v) {
    float ax = fabsf(v.x), ay = fabsf(v.y), az = fabsf(v.z);
    if (ay >= ax && ay >= az) return sk_vec3_make(0, v.y < 0 ? -1.0f : 1.0f, 0);
    if (ax >= az) return sk_vec3_make(v.x < 0 ? -1.0f : 1.0f, 0, 0);
    return sk_vec3_make(0, 0, v.z < 0 ? -1.0f : 1.0f);
}

/* Turns joint s (model space, about itself) by the shortest rotation from
 * direction cur to want, then brings every model transform up to date. */
static void swing(const sk_skeleton *skel, sk_transform *local, sk_transform *model, int32_t s, sk_vec3 cur, sk_vec3 want) {
    float lc = skm_vec3_len(cur), lw = skm_vec3_len(want);
    if (!(lc > 1e-6f * (1.0f + lc)) || !(lw > 1e-6f * (1.0f + lw))) return;
    sk_quat q = skm_quat_from_to(cur, want);
    sk_quat nm = skm_quat_mul(q, skm_quat_unit(model[s].r));
    int32_t p = skel->parents[s];
    sk_quat pr = p >= 0 ? skm_quat_unit(model[p].r) : sk_quat_identity();
    local[s].r = skm_quat_unit(skm_quat_mul(sk_quat_conjugate(pr), nm));
    skr_model_all(skel, local, model);
}

/* The bone after b down its chain mapped in both maps, or -1. */
static int next_in_both(int b, const sk_humanoid_map *m, const sk_humanoid_map *l) {
    for (int k = 0; k < 4 && skr_next_bone[b][k] >= 0; k++) {
        int c = skr_next_bone[b][k];
        if (m->joint[c] >= 0 && l->joint[c] >= 0) return c;
    }
    return -1;
}

/* One pose turned (sk_humanoid_pose_like's steps) in place: local, with
 * model its model transforms on entry and exit. */
static bool stand_one(const sk_skeleton *skel, const sk_humanoid_map *m, sk_transform *local, sk_transform *model,
                      const sk_humanoid_map *l, const sk_transform *lm) {
    int32_t hips = m->joint[SK_HUMANOID_HIPS];
    int32_t head = m->joint[SK_HUMANOID_HEAD] >= 0 ? m->joint[SK_HUMANOID_HEAD] : m->joint[SK_HUMANOID_NECK];
    /* The frames: like's hips frame at rest; the pose's with up the model axis
     * nearest its hips-to-head direction (a walking body leans; its ground does not). */
    sk_vec3 up = nearest_axis(sk_vec3_sub(model[head].t, model[hips].t));
    sk_vec3 lat = skm_vec3_unit(skm_vec3_reject(
        sk_vec3_sub(model[m->joint[SK_HUMANOID_RIGHT_UPPER_LEG]].t, model[m->joint[SK_HUMANOID_LEFT_UPPER_LEG]].t), up));
    sk_quat fl;
    if (skm_vec3_is_zero(lat) || !skr_hips_frame(lm, l, &fl)) return false;
    sk_quat g = skm_quat_unit(skm_quat_mul(frame_of(lat, up), sk_quat_conjugate(fl))); /* like's model -> the pose's */
    /* The spine chain first, then the hips turned so that hips-to-head is up,
     * then the legs and the arms, each bone towards like's bone carried by g. */
    static const int8_t order[] = {SK_HUMANOID_SPINE,           SK_HUMANOID_CHEST,           SK_HUMANOID_UPPER_CHEST,
                                   SK_HUMANOID_NECK,            -1,                          SK_HUMANOID_LEFT_UPPER_LEG,
                                   SK_HUMANOID_LEFT_LOWER_LEG,  SK_HUMANOID_LEFT_FOOT,       SK_HUMANOID_RIGHT_UPPER_LEG,
                                   SK_HUMANOID_RIGHT_LOWER_LEG, SK_HUMANOID_RIGHT_FOOT,      SK_HUMANOID_LEFT_SHOULDER,
                                   SK_HUMANOID_LEFT_UPPER_ARM,  SK_HUMANOID_LEFT_LOWER_ARM,  SK_HUMANOID_RIGHT_SHOULDER,
                                   SK_HUMANOID_RIGHT_UPPER_ARM, SK_HUMANOID_RIGHT_LOWER_ARM};
    for (size_t k = 0; k < sizeof order; k++) {
        int b = order[k];
        if (b < 0) {
            swing(skel, local, model, hips, sk_vec3_sub(model[head].t, model[hips].t), up);
            continue;
        }
        int c = next_in_both(b, m, l);
        if (m->joint[b] < 0 || l->joint[b] < 0 || c < 0) continue;
        sk_vec3 want = skm_quat_rotate(g, sk_vec3_sub(lm[l->joint[c]].t, lm[l->joint[b]].t));
        swing(skel, local, model, m->joint[b], sk_vec3_sub(model[m->joint[c]].t, model[m->joint[b]].t), want);
    }
    return true;
}

sk_result sk_humanoid_pose_like(const sk_skeleton *skel, const sk_humanoid_map *map, const sk_pose *poses,
                                uint32_t pose_count, const sk_skeleton *like, const sk_pose *like_rest,
                                const sk_humanoid_map *like_map, const sk_allocator *alloc, sk_pose *out, sk_error *err) {
    if (!skel || !map || !poses || !like || !like_map || !out)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_humanoid_pose_like: NULL argument");
    if (pose_count == 0 || pose_count > SK_HUMANOID_POSE_LIKE_MAX)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_humanoid_pose_like: pose_count %u (1 to %u)", pose_count,
                            SK_HUMANOID_POSE_LIKE_MAX);
    for (uint32_t k = 0; k < pose_count; k++)
        if (sk_pose_check(skel, &poses[k], "sk_humanoid_pose_like: pose", err) != SK_OK) return SK_ERR_INVALID_ARGUMENT;
    if (sk_pose_check(skel, out, "sk_humanoid_pose_like: out", err) != SK_OK) return SK_ERR_INVALID_ARGUMENT;
    if (like_rest && sk_pose_check(like, like_rest, "sk_humanoid_pose_like: like_rest", err) != SK_OK)
        return SK_ERR_INVALID_ARGUMENT;
    sk_error e2;
    if (sk_humanoid_map_check(map, skel, &e2) != SK_OK)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_humanoid_pose_like: map: %s", e2.message);
    if (sk_humanoid_map_check(like_map, like, &e2) != SK_OK)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_humanoid_pose_like: like_map: %s", e2.message);
    uint32_t n = skel->joint_count, nl = like->joint_count;
    const sk_transform *lloc = like_rest ? like_rest->local : like->rest;
    for (uint32_t k = 0; k < pose_count; k++)
        if (!skr_transforms_finite(poses[k].local, n))
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_humanoid_pose_like: pose %u holds a non-finite value", k);
    if (!skr_transforms_finite(lloc, nl))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_humanoid_pose_like: like_rest holds a non-finite value");
    const sk_allocator *a = sk_allocator_or_default(alloc);
    size_t bytes = ((size_t)3 * n + nl) * sizeof(sk_transform);
    sk_transform *local = (sk_transform *)sk_alloc(a, bytes);
    if (!local) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_humanoid_pose_like: out of memory");
    sk_transform *model = local + n, *sum = model + n, *lm = sum + n;
    skr_model_all(like, lloc, lm);
    sk_result r = SK_OK;
    /* Each pose turned; their rotations summed per joint (on the first's
     * hemisphere), then the mean turned once more. */
    for (uint32_t k = 0; k <= pose_count && r == SK_OK; k++) {
        if (k < pose_count) memcpy(local, poses[k].local, (size_t)n * sizeof(sk_transform));
        else { /* the hips and the joints above them keep the first pose's rotation (a clip that turns averages
                  its facings to nothing) */
            for (uint32_t j = 0; j < n; j++) local[j] = poses[0].local[j], local[j].r = skm_quat_unit(sum[j].r);
            for (int32_t j = map->joint[SK_HUMANOID_HIPS]; j >= 0; j = skel->parents[j]) local[j].r = poses[0].local[j].r;
        }
        skr_model_all(skel, local, model);
        if (!stand_one(skel, map, local, model, like_map, lm))
            r = sk_error_set(err, SK_ERR_INVALID_DATA,
                             "sk_humanoid_pose_like: no hips frame in pose %u (the upper legs, hips and head do not span one)",
                             k < pose_count ? k : 0u);
        else if (pose_count == 1)
            break;
        else if (k < pose_count)
            for (uint32_t j = 0; j < n; j++) {
                sk_quat q = local[j].r;
                if (k == 0) sum[j].r = q;
                else {
                    float s = sum[j].r.x * q.x + sum[j].r.y * q.y + sum[j].r.z * q.z + sum[j].r.w * q.w < 0 ? -1.0f : 1.0f;
                    sum[j].r = sk_quat_make(sum[j].r.x + s * q.x, sum[j].r.y + s * q.y, sum[j].r.z + s * q.z,
                                            sum[j].r.w + s * q.w);
                }
            }
    }
    if (r == SK_OK) {
        memcpy(out->local, local, (size_t)n * sizeof(sk_transform));
        if (out->weights != poses[0].weights && out->weight_count && poses[0].weight_count == out->weight_count)
            memcpy(out->weights, poses[0].weights, (size_t)out->weight_count * sizeof(float));
    }
    sk_free(a, local, bytes);
    return r;
}
