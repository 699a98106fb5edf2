/* Retargeting (anim/retarget.h).
 *  1. Property: a skeleton (the mannequin; CMU 02_01.bvh) copied under
 *     another naming scheme, re-rested (arms rotated 40 degrees about the
 *     forward axis from the upper arm, every bone rolled by a random angle
 *     about its bone axis, leaves by a random rotation), scaled by 1.7 and
 *     turned Z-up (plus a yaw). Retargeting the source clip's poses onto the
 *     copy must give, per mapped joint, the model rotation G x Rs(t) x Roll
 *     (G the copy's global rotation, Roll its rest roll: what the copy was
 *     built with, so "after undoing the rest correction") within 1 degree,
 *     bone directions G x the source's within 1 degree, the root scale 1.7
 *     and the hips' displacement 1.7 x G x the source's.
 *  2. Every naming scheme on synthetic skeletons built here: each bone maps
 *     to the joint the test named for it; the same skeleton with meaningless
 *     names maps by topology to the same joints.
 *  3. CesiumMan (no scheme): mapped by topology; left/right bones land on
 *     joints whose names carry _L/_R, each chain in ancestor order; hips is
 *     the parent of both legs' first joints, head under the neck joints.
 *  4. CMU BVH: 02_01.bvh and 07_01_fbx2bvh.bvh map by name to the CMU names;
 *     60_01_scaled.bvh to the DAZ-style names.
 *  5. Mirror pairs: every pair mirrored across the hips' sagittal plane at
 *     rest (mannequin, CMU, synthetic), and the names of pairs found by
 *     pattern differ by a side token.
 *  6. Bad input: pairs naming missing joints (name in the message), nothing
 *     in common, a source without hips, NaN in poses (error, output
 *     untouched), a 10,000-joint chain (clear error, no hang).
 *  7. Baked clip sampled at its key times equals the live result. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEG (3.14159265358979323846 / 180.0)

/* Angle of a^-1 b, in double (atan2: exact near zero, where acos is not). */
static double quat_angle(sk_quat a, sk_quat b) {
    double ax = -a.x, ay = -a.y, az = -a.z, aw = a.w;
    double w = aw * b.w - ax * b.x - ay * b.y - az * b.z;
    double x = aw * b.x + ax * b.w + ay * b.z - az * b.y;
    double y = aw * b.y - ax * b.z + ay * b.w + az * b.x;
    double z = aw * b.z + ax * b.y - ay * b.x + az * b.w;
    return 2.0 * atan2(sqrt(x * x + y * y + z * z), fabs(w));
}
static double vec_angle(sk_vec3 a, sk_vec3 b) {
    return atan2(sk_vec3_length(sk_vec3_cross(a, b)), sk_vec3_dot(a, b));
}

/* Model transforms (rotation, position) from local transforms, written here. */
static void model_of(const sk_skeleton *s, const sk_transform *loc, sk_quat *R, sk_vec3 *P) {
    for (uint32_t j = 0; j < s->joint_count; j++) {
        int32_t p = s->parents[j];
        sk_vec3 t = sk_vec3_mul(loc[j].t, sk_vec3_make(1, 1, 1));
        if (p < 0) R[j] = loc[j].r, P[j] = t;
        else {
            R[j] = sk_quat_normalize(sk_quat_mul(R[p], loc[j].r));
            P[j] = sk_vec3_add(P[p], sk_quat_rotate(R[p], t));
        }
    }
}

static bool has_ancestor(const sk_skeleton *s, int32_t a, int32_t j) {
    for (int32_t p = s->parents[j]; p >= 0; p = s->parents[p])
        if (p == a) return true;
    return false;
}

/* ---- 1. Property ----------------------------------------------------------- */
typedef struct copy {
    sk_skeleton *skel;
    sk_quat *roll; /* per joint */
    sk_quat G;
    float scale;
} copy;

static copy make_copy(const sk_skeleton *src, const sk_humanoid_map *m, const char *const *names, uint32_t seed) {
    uint32_t n = src->joint_count;
    sk_quat *R = malloc(n * sizeof *R), *Rt = malloc(n * sizeof *Rt);
    sk_vec3 *P = malloc(n * sizeof *P), *Pt = malloc(n * sizeof *Pt);
    sk_transform *rest = malloc(n * sizeof *rest);
    copy c;
    c.roll = malloc(n * sizeof *c.roll);
    c.scale = 1.7f;
    model_of(src, src->rest, R, P);
    /* G: Y-up to Z-up (+90 about X) after a 30 degree yaw. */
    c.G = sk_quat_mul(sk_quat_from_axis_angle(sk_vec3_make(1, 0, 0), (float)(90 * DEG)),
                      sk_quat_from_axis_angle(sk_vec3_make(0, 1, 0), (float)(30 * DEG)));
    /* Forward axis of the source from the hips frame written here. */
    sk_vec3 up = sk_vec3_normalize(sk_vec3_sub(P[m->joint[SK_HUMANOID_HEAD]], P[m->joint[SK_HUMANOID_HIPS]]));
    sk_vec3 lat = sk_vec3_sub(P[m->joint[SK_HUMANOID_RIGHT_UPPER_LEG]], P[m->joint[SK_HUMANOID_LEFT_UPPER_LEG]]);
    lat = sk_vec3_normalize(sk_vec3_sub(lat, sk_vec3_scale(up, sk_vec3_dot(lat, up))));
    sk_vec3 fwd = sk_vec3_cross(lat, up);
    for (uint32_t j = 0; j < n; j++) {
        /* Arm re-rest: joints at or below an upper arm turn about it. */
        sk_quat Pj = sk_quat_identity();
        sk_vec3 pivot = sk_vec3_make(0, 0, 0);
        for (int side = 0; side < 2; side++) {
            int32_t ua = m->joint[side ? SK_HUMANOID_RIGHT_UPPER_ARM : SK_HUMANOID_LEFT_UPPER_ARM];
            if ((int32_t)j == ua || has_ancestor(src, ua, (int32_t)j)) {
                Pj = sk_quat_from_axis_angle(fwd, (float)((side ? -40 : 40) * DEG));
                pivot = P[ua];
            }
        }
        sk_vec3 p = sk_vec3_add(pivot, sk_quat_rotate(Pj, sk_vec3_sub(P[j], pivot)));
        Pt[j] = sk_vec3_scale(sk_quat_rotate(c.G, p), c.scale);
        /* Roll about the bone axis (to the first child), else any rotation. */
        int32_t child = -1;
        for (uint32_t k = j + 1; k < n && child < 0; k++)
            if (src->parents[k] == (int32_t)j && sk_vec3_length(sk_vec3_sub(P[k], P[j])) > 1e-4f) child = (int32_t)k;
        float ang = (float)(sk_test_rnd(&seed) * 170 * DEG);
        if (child >= 0) {
            sk_vec3 axis = sk_quat_rotate(sk_quat_conjugate(R[j]), sk_vec3_normalize(sk_vec3_sub(P[child], P[j])));
            c.roll[j] = sk_quat_from_axis_angle(axis, ang);
        } else {
            c.roll[j] = sk_test_rnd_quat(&seed);
        }
        Rt[j] = sk_quat_normalize(sk_quat_mul(sk_quat_mul(c.G, sk_quat_mul(Pj, R[j])), c.roll[j]));
    }
    for (uint32_t j = 0; j < n; j++) {
        int32_t p = src->parents[j];
        rest[j].s = sk_vec3_make(1, 1, 1);
        if (p < 0) rest[j].r = Rt[j], rest[j].t = Pt[j];
        else {
            rest[j].r = sk_quat_normalize(sk_quat_mul(sk_quat_conjugate(Rt[p]), Rt[j]));
            rest[j].t = sk_quat_rotate(sk_quat_conjugate(Rt[p]), sk_vec3_sub(Pt[j], Pt[p]));
        }
    }
    sk_skeleton_desc d = {n, src->parents, names, rest, NULL, NULL};
    sk_error err;
    c.skel = NULL;
    assert_int_equal(sk_skeleton_create(&d, NULL, &c.skel, &err), SK_OK);
    free(R), free(Rt), free(P), free(Pt), free(rest);
    return c;
}

/* Retargets clip poses src -> copy and checks the property; returns poses checked. */
static int check_property(const sk_skeleton *src, const sk_clip *clip, const copy *c, int frames) {
    sk_error err;
    sk_retarget *rt = NULL;
    sk_retarget_desc d = {0};
    d.source = src, d.target = c->skel;
    sk_result r = sk_retarget_create(&d, NULL, &rt, &err);
    if (r != SK_OK) fail_msg("sk_retarget_create: %s", err.message);
    assert_true(fabsf(sk_retarget_root_scale(rt) - c->scale) < 1e-4f * c->scale);
    assert_true(quat_angle(sk_retarget_frame_rotation(rt), c->G) < 0.01 * DEG);
    const sk_humanoid_map *ms = sk_retarget_map(rt, 0), *mt = sk_retarget_map(rt, 1);
    for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++) assert_int_equal(ms->joint[b], mt->joint[b]); /* same joints, renamed */
    uint32_t ns = src->joint_count, nt = c->skel->joint_count;
    sk_transform *sl = malloc(ns * sizeof *sl), *tl = malloc(nt * sizeof *tl);
    sk_quat *Rs = malloc(ns * sizeof *Rs), *Rt = malloc(nt * sizeof *Rt);
    sk_vec3 *Ps = malloc(ns * sizeof *Ps), *Pt = malloc(nt * sizeof *Pt), *Ps0 = malloc(ns * sizeof *Ps0),
            *Pt0 = malloc(nt * sizeof *Pt0);
    sk_quat *tmpq = malloc((ns > nt ? ns : nt) * sizeof *tmpq);
    model_of(src, src->rest, tmpq, Ps0);
    model_of(c->skel, c->skel->rest, tmpq, Pt0);
    size_t scr = sk_retarget_scratch_size(rt);
    void *scratch = malloc(scr);
    double worst_rot = 0, worst_dir = 0, worst_root = 0;
    int checked = 0;
    for (int f = 0; f < frames; f++) {
        double t = sk_clip_duration(clip) * f / (frames - 1);
        assert_int_equal(sk_clip_sample(clip, src, t, SK_LOOP_CLAMP, SK_POSE_OF(src, sl, NULL), &err), SK_OK);
        r = sk_retarget_pose(rt, SK_POSE_OF(src, sl, NULL), NULL, SK_POSE_OF(c->skel, tl, NULL), scratch, scr, &err);
        if (r != SK_OK) fail_msg("sk_retarget_pose: %s", err.message);
        model_of(src, sl, Rs, Ps);
        model_of(c->skel, tl, Rt, Pt);
        for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++) {
            int32_t j = mt->joint[b];
            if (j < 0) continue;
            sk_quat want = sk_quat_mul(sk_quat_mul(c->G, Rs[j]), c->roll[j]);
            double e = quat_angle(Rt[j], want);
            if (e > worst_rot) worst_rot = e;
            /* bone directions to mapped direct children */
            for (int k = 0; k < SK_HUMANOID_BONE_COUNT; k++) {
                int32_t ch = mt->joint[k];
                if (ch < 0 || c->skel->parents[ch] != j) continue;
                sk_vec3 ds = sk_quat_rotate(c->G, sk_vec3_sub(Ps[ch], Ps[j])), dt = sk_vec3_sub(Pt[ch], Pt[j]);
                if (sk_vec3_length(ds) < 1e-5f) continue;
                double a = vec_angle(ds, dt);
                if (a > worst_dir) worst_dir = a;
            }
        }
        int32_t h = mt->joint[SK_HUMANOID_HIPS];
        sk_vec3 want = sk_vec3_scale(sk_quat_rotate(c->G, sk_vec3_sub(Ps[h], Ps0[h])), c->scale);
        sk_vec3 got = sk_vec3_sub(Pt[h], Pt0[h]);
        double e = sk_vec3_length(sk_vec3_sub(want, got)) / (1e-3 + sk_vec3_length(want));
        if (sk_vec3_length(sk_vec3_sub(want, got)) > 1e-4 * (1 + sk_vec3_length(want)) && e > worst_root) worst_root = e;
        checked++;
    }
    printf("  %s: %d poses, worst rotation %.4f deg, bone direction %.4f deg, root rel. error %.2g\n", clip ? sk_clip_name(clip) : "",
           checked, worst_rot / DEG, worst_dir / DEG, worst_root);
    assert_true(worst_rot < 1.0 * DEG);
    assert_true(worst_dir < 1.0 * DEG);
    assert_true(worst_root < 1e-3);
    free(sl), free(tl), free(Rs), free(Rt), free(Ps), free(Pt), free(Ps0), free(Pt0), free(tmpq), free(scratch);
    sk_retarget_destroy(rt);
    return checked;
}

static const char *const mq_mixamo[][2] = {
    {"hips", "mixamorig:Hips"}, {"spine", "mixamorig:Spine"}, {"chest", "mixamorig:Spine1"},
    {"neck", "mixamorig:Neck"}, {"head", "mixamorig:Head"}, {"clavicle_l", "mixamorig:LeftShoulder"},
    {"upperarm_l", "mixamorig:LeftArm"}, {"forearm_l", "mixamorig:LeftForeArm"}, {"hand_l", "mixamorig:LeftHand"},
    {"clavicle_r", "mixamorig:RightShoulder"}, {"upperarm_r", "mixamorig:RightArm"},
    {"forearm_r", "mixamorig:RightForeArm"}, {"hand_r", "mixamorig:RightHand"}, {"thigh_l", "mixamorig:LeftUpLeg"},
    {"shin_l", "mixamorig:LeftLeg"}, {"foot_l", "mixamorig:LeftFoot"}, {"toe_l", "mixamorig:LeftToeBase"},
    {"thigh_r", "mixamorig:RightUpLeg"}, {"shin_r", "mixamorig:RightLeg"}, {"foot_r", "mixamorig:RightFoot"},
    {"toe_r", "mixamorig:RightToeBase"}};
static const char *const cmu_unreal[][2] = {
    {"Hips", "pelvis"}, {"LowerBack", "spine_01"}, {"Spine", "spine_02"}, {"Spine1", "spine_03"},
    {"Neck", "neck_01"}, {"Head", "head"}, {"LeftShoulder", "clavicle_l"}, {"LeftArm", "upperarm_l"},
    {"LeftForeArm", "lowerarm_l"}, {"LeftHand", "hand_l"}, {"RightShoulder", "clavicle_r"},
    {"RightArm", "upperarm_r"}, {"RightForeArm", "lowerarm_r"}, {"RightHand", "hand_r"}, {"LeftUpLeg", "thigh_l"},
    {"LeftLeg", "calf_l"}, {"LeftFoot", "foot_l"}, {"LeftToeBase", "ball_l"}, {"RightUpLeg", "thigh_r"},
    {"RightLeg", "calf_r"}, {"RightFoot", "foot_r"}, {"RightToeBase", "ball_r"}};

static const char **renamed(const sk_skeleton *s, const char *const (*table)[2], size_t count) {
    const char **names = malloc(s->joint_count * sizeof *names);
    for (uint32_t j = 0; j < s->joint_count; j++) {
        names[j] = s->names[j];
        for (size_t k = 0; k < count; k++)
            if (strcmp(s->names[j], table[k][0]) == 0) names[j] = table[k][1];
    }
    return names;
}

static sk_asset *load_bvh(const char *file) {
    char path[1024], dir[1024];
    sk_test_path(dir, sizeof dir, sk_test_require_shared(), "mocap/bvh");
    sk_test_path(path, sizeof path, dir, file);
    sk_bvh_options o = {0};
    o.scale = 2.54 / 45.0;
    sk_asset *a = NULL;
    sk_error err;
    if (sk_bvh_load_file(path, &o, &a, &err) != SK_OK) {
        if (sk_test_strict()) fail_msg("%s: %s", path, err.message);
        sk_test_missing("%s: %s", path, err.message);
    }
    return a;
}

static sk_asset *mannequin(void) {
    sk_asset *a = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, NULL), SK_OK);
    return a;
}

static void test_property(void **state) {
    (void)state;
    sk_error err;
    int cases = 0, poses = 0;
    sk_asset *mq = mannequin();
    sk_humanoid_map m;
    assert_int_equal(sk_humanoid_map_find(mq->skeleton, NULL, &m, &err), SK_OK);
    assert_string_equal(m.scheme, "skelanim");
    const char **names = renamed(mq->skeleton, mq_mixamo, sizeof mq_mixamo / sizeof mq_mixamo[0]);
    copy c = make_copy(mq->skeleton, &m, names, 7u);
    sk_humanoid_map mc;
    assert_int_equal(sk_humanoid_map_find(c.skel, NULL, &mc, &err), SK_OK);
    assert_string_equal(mc.scheme, "mixamo");
    for (uint32_t k = 0; k < mq->clip_count; k++) poses += check_property(mq->skeleton, mq->clips[k], &c, 41), cases++;
    sk_skeleton_destroy(c.skel), free(c.roll), free(names);
    sk_asset_destroy(mq);

    sk_asset *bv = load_bvh("02_01.bvh");
    assert_int_equal(sk_humanoid_map_find(bv->skeleton, NULL, &m, &err), SK_OK);
    names = renamed(bv->skeleton, cmu_unreal, sizeof cmu_unreal / sizeof cmu_unreal[0]);
    c = make_copy(bv->skeleton, &m, names, 11u);
    assert_int_equal(sk_humanoid_map_find(c.skel, NULL, &mc, &err), SK_OK);
    assert_string_equal(mc.scheme, "unreal");
    poses += check_property(bv->skeleton, bv->clips[0], &c, 61), cases++;
    sk_skeleton_destroy(c.skel), free(c.roll), free(names);
    sk_asset_destroy(bv);
    printf("property: %d clips, %d poses\n", cases, poses);
    assert_int_equal(cases, 5);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_property),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
