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
 *     60_01_scaled.bvh to the DAZ-style names, 131_03.bvh to the 3ds Max-style ones.
 *  5. Mirror pairs: every pair mirrored across the hips' sagittal plane at
 *     rest (mannequin, CMU, synthetic), and the names of pairs found by
 *     pattern differ by a side token.
 *  6. Bad input: pairs naming missing joints (name in the message), nothing
 *     in common, a source without hips, NaN in poses (error, output
 *     untouched), a 10,000-joint chain (clear error, no hang).
 *  7. Baked clip sampled at its key times equals the live result.
 *  8. Allocation failure at every allocation: SK_ERR_OUT_OF_MEMORY, nothing leaked. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEG (3.14159265358979323846 / 180.0)

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
    assert_true(sk_test_quat_angle(sk_retarget_frame_rotation(rt), c->G) < 0.01 * DEG);
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
            double e = sk_test_quat_angle(Rt[j], want);
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
    assert_int_equal(cases, 8); /* the mannequin's seven clips and 02_01 */
}


/* ---- 2. Naming schemes ----------------------------------------------------- */
/* A humanoid in Y-up, facing +Z, left = +X: per bone its parent bone and position. */
static const int8_t syn_parent[SK_HUMANOID_BONE_COUNT] = {
    -1, SK_HUMANOID_HIPS, SK_HUMANOID_SPINE, SK_HUMANOID_CHEST, SK_HUMANOID_UPPER_CHEST, SK_HUMANOID_NECK,
    SK_HUMANOID_UPPER_CHEST, SK_HUMANOID_LEFT_SHOULDER, SK_HUMANOID_LEFT_UPPER_ARM, SK_HUMANOID_LEFT_LOWER_ARM,
    SK_HUMANOID_UPPER_CHEST, SK_HUMANOID_RIGHT_SHOULDER, SK_HUMANOID_RIGHT_UPPER_ARM, SK_HUMANOID_RIGHT_LOWER_ARM,
    SK_HUMANOID_HIPS, SK_HUMANOID_LEFT_UPPER_LEG, SK_HUMANOID_LEFT_LOWER_LEG, SK_HUMANOID_LEFT_FOOT,
    SK_HUMANOID_HIPS, SK_HUMANOID_RIGHT_UPPER_LEG, SK_HUMANOID_RIGHT_LOWER_LEG, SK_HUMANOID_RIGHT_FOOT};
static const float syn_pos[SK_HUMANOID_BONE_COUNT][3] = {
    {0, 1, 0}, {0, 1.1f, 0}, {0, 1.25f, 0}, {0, 1.4f, 0}, {0, 1.55f, 0}, {0, 1.65f, 0},
    {0.05f, 1.5f, 0}, {0.2f, 1.5f, 0}, {0.45f, 1.5f, 0}, {0.7f, 1.5f, 0},
    {-0.05f, 1.5f, 0}, {-0.2f, 1.5f, 0}, {-0.45f, 1.5f, 0}, {-0.7f, 1.5f, 0},
    {0.1f, 0.95f, 0}, {0.1f, 0.5f, 0}, {0.1f, 0.08f, 0}, {0.1f, 0, 0.12f},
    {-0.1f, 0.95f, 0}, {-0.1f, 0.5f, 0}, {-0.1f, 0.08f, 0}, {-0.1f, 0, 0.12f}};

/* Builds the humanoid with names[bone] (NULL: bone absent; its children
 * hang from the nearest present ancestor); joint_of[bone] gets the index.
 * Two extra joints (a prop under the hips, "root" above them) make it less
 * tidy. */
static sk_skeleton *synthetic(const char *const *names, int32_t *joint_of) {
    const char *jn[SK_HUMANOID_BONE_COUNT + 2];
    int32_t par[SK_HUMANOID_BONE_COUNT + 2];
    sk_transform rest[SK_HUMANOID_BONE_COUNT + 2];
    uint32_t n = 0;
    jn[n] = "root", par[n] = -1, rest[n] = sk_transform_identity(), n++;
    sk_vec3 pos[SK_HUMANOID_BONE_COUNT + 2];
    pos[0] = sk_vec3_make(0, 0, 0);
    for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++) {
        joint_of[b] = -1;
        if (!names[b]) continue;
        int a = syn_parent[b];
        while (a >= 0 && joint_of[a] < 0) a = syn_parent[a];
        int32_t p = a >= 0 ? joint_of[a] : 0;
        joint_of[b] = (int32_t)n;
        jn[n] = names[b], par[n] = p;
        pos[n] = sk_vec3_make(syn_pos[b][0], syn_pos[b][1], syn_pos[b][2]);
        rest[n] = sk_transform_identity();
        rest[n].t = sk_vec3_sub(pos[n], pos[p]);
        n++;
        if (b == SK_HUMANOID_HIPS) { /* a prop: a single joint, not a limb */
            jn[n] = "holster", par[n] = (int32_t)n - 1, rest[n] = sk_transform_identity();
            rest[n].t = sk_vec3_make(0.15f, -0.1f, 0), pos[n] = sk_vec3_add(pos[n - 1], rest[n].t);
            n++;
        }
    }
    sk_skeleton_desc d = {n, par, jn, rest, NULL, NULL};
    sk_skeleton *s = NULL;
    assert_int_equal(sk_skeleton_create(&d, NULL, &s, NULL), SK_OK);
    return s;
}

static const struct {
    const char *scheme;
    const char *names[SK_HUMANOID_BONE_COUNT];
} scheme_cases[] = {
    {"skelanim", {"hips", "spine", "chest", NULL, "neck", "head", "clavicle_l", "upperarm_l", "forearm_l", "hand_l",
                  "clavicle_r", "upperarm_r", "forearm_r", "hand_r", "thigh_l", "shin_l", "foot_l", "toe_l", "thigh_r",
                  "shin_r", "foot_r", "toe_r"}},
    {"mixamo", {"mixamorig:Hips", "mixamorig:Spine", "mixamorig:Spine1", "mixamorig:Spine2", "mixamorig:Neck",
                "mixamorig:Head", "mixamorig:LeftShoulder", "mixamorig:LeftArm", "mixamorig:LeftForeArm",
                "mixamorig:LeftHand", "mixamorig:RightShoulder", "mixamorig:RightArm", "mixamorig:RightForeArm",
                "mixamorig:RightHand", "mixamorig:LeftUpLeg", "mixamorig:LeftLeg", "mixamorig:LeftFoot",
                "mixamorig:LeftToeBase", "mixamorig:RightUpLeg", "mixamorig:RightLeg", "mixamorig:RightFoot",
                "mixamorig:RightToeBase"}},
    {"cmu", {"Hips", "LowerBack", "Spine", "Spine1", "Neck", "Head", "LeftShoulder", "LeftArm", "LeftForeArm",
             "LeftHand", "RightShoulder", "RightArm", "RightForeArm", "RightHand", "LeftUpLeg", "LeftLeg", "LeftFoot",
             "LeftToeBase", "RightUpLeg", "RightLeg", "RightFoot", "RightToeBase"}},
    {"daz", {"hip", "abdomen", "chest", NULL, "neck", "head", "lCollar", "lShldr", "lForeArm", "lHand", "rCollar",
             "rShldr", "rForeArm", "rHand", "lThigh", "lShin", "lFoot", NULL, "rThigh", "rShin", "rFoot", NULL}},
    {"rigify", {"DEF-spine", "DEF-spine.001", "DEF-spine.002", "DEF-spine.003", "DEF-spine.004", "DEF-spine.006",
                "DEF-shoulder.L", "DEF-upper_arm.L", "DEF-forearm.L", "DEF-hand.L", "DEF-shoulder.R",
                "DEF-upper_arm.R", "DEF-forearm.R", "DEF-hand.R", "DEF-thigh.L", "DEF-shin.L", "DEF-foot.L",
                "DEF-toe.L", "DEF-thigh.R", "DEF-shin.R", "DEF-foot.R", "DEF-toe.R"}},
    {"metarig", {"hips", "spine", "chest", NULL, "neck", "head", "shoulder.L", "upper_arm.L", "forearm.L", "hand.L",
                 "shoulder.R", "upper_arm.R", "forearm.R", "hand.R", "thigh.L", "shin.L", "foot.L", "toe.L", "thigh.R",
                 "shin.R", "foot.R", "toe.R"}},
    {"unreal", {"pelvis", "spine_01", "spine_02", "spine_03", "neck_01", "head", "clavicle_l", "upperarm_l",
                "lowerarm_l", "hand_l", "clavicle_r", "upperarm_r", "lowerarm_r", "hand_r", "thigh_l", "calf_l",
                "foot_l", "ball_l", "thigh_r", "calf_r", "foot_r", "ball_r"}},
    {"unity", {"Hips", "Spine", "Chest", "UpperChest", "Neck", "Head", "LeftShoulder", "LeftUpperArm", "LeftLowerArm",
               "LeftHand", "RightShoulder", "RightUpperArm", "RightLowerArm", "RightHand", "LeftUpperLeg", "LeftLowerLeg",
               "LeftFoot", "LeftToes", "RightUpperLeg", "RightLowerLeg", "RightFoot", "RightToes"}},
    {"unity-lr", {"Hips", "Spine", "Chest", NULL, "Neck", "Head", "Shoulder_L", "UpperArm_L", "LowerArm_L", "Hand_L",
                  "Shoulder_R", "UpperArm_R", "LowerArm_R", "Hand_R", "UpperLeg_L", "LowerLeg_L", "Foot_L", "Toes_L",
                  "UpperLeg_R", "LowerLeg_R", "Foot_R", "Toes_R"}},
    {"cmu-max", {"Hips", "lowerback", "Chest", "Chest2", "lowerneck", "Head", "LeftCollar", "LeftShoulder", "LeftElbow",
                 "LeftWrist", "RightCollar", "RightShoulder", "RightElbow", "RightWrist", "LeftHip", "LeftKnee",
                 "LeftAnkle", "LeftToe", "RightHip", "RightKnee", "RightAnkle", "RightToe"}},
};

static void test_schemes(void **state) {
    (void)state;
    int cases = 0, bones = 0;
    for (size_t k = 0; k < sizeof scheme_cases / sizeof scheme_cases[0]; k++) {
        int32_t joint_of[SK_HUMANOID_BONE_COUNT];
        sk_skeleton *s = synthetic(scheme_cases[k].names, joint_of);
        sk_humanoid_map m;
        sk_error err;
        if (sk_humanoid_map_find(s, NULL, &m, &err) != SK_OK) fail_msg("%s: %s", scheme_cases[k].scheme, err.message);
        assert_string_equal(m.scheme, scheme_cases[k].scheme);
        for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++) {
            if (m.joint[b] != joint_of[b])
                fail_msg("%s: %s is %d, want %d", scheme_cases[k].scheme, sk_humanoid_bone_name((sk_humanoid_bone)b),
                         m.joint[b], joint_of[b]);
            if (joint_of[b] >= 0) assert_int_equal(m.how[b], SK_HUMANOID_BY_NAME), bones++;
        }
        sk_skeleton_destroy(s);
        cases++;
    }
    /* The same humanoid with names that follow no scheme: topology alone. */
    const char *plain[SK_HUMANOID_BONE_COUNT];
    char buf[SK_HUMANOID_BONE_COUNT][16];
    for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++) snprintf(buf[b], sizeof buf[b], "bone%02d", b * 7 % 23), plain[b] = buf[b];
    int32_t joint_of[SK_HUMANOID_BONE_COUNT];
    sk_skeleton *s = synthetic(plain, joint_of);
    sk_humanoid_map m;
    sk_error err;
    if (sk_humanoid_map_find(s, NULL, &m, &err) != SK_OK) fail_msg("topology: %s", err.message);
    assert_string_equal(m.scheme, "topology");
    for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++) {
        if (m.joint[b] != joint_of[b])
            fail_msg("topology: %s is %d, want %d", sk_humanoid_bone_name((sk_humanoid_bone)b), m.joint[b], joint_of[b]);
        assert_int_equal(m.how[b], SK_HUMANOID_BY_TOPOLOGY);
    }
    sk_skeleton_destroy(s);
    cases++;
    /* Bone names and mirrors. */
    for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++) {
        assert_int_equal(sk_humanoid_bone_from_name(sk_humanoid_bone_name((sk_humanoid_bone)b)), b);
        sk_humanoid_bone mb = sk_humanoid_bone_mirror((sk_humanoid_bone)b);
        assert_int_equal(sk_humanoid_bone_mirror(mb), b);
        const char *n = sk_humanoid_bone_name((sk_humanoid_bone)b), *mn = sk_humanoid_bone_name(mb);
        if (strncmp(n, "left_", 5) == 0) assert_string_equal(mn + 6, n + 5);
        else if (strncmp(n, "right_", 6) == 0) assert_string_equal(mn + 5, n + 6);
        else assert_int_equal(mb, b);
    }
    assert_null(sk_humanoid_bone_name(SK_HUMANOID_BONE_COUNT));
    printf("schemes: %d skeletons, %d bones by name\n", cases, bones);
    assert_int_equal(cases, 11); /* 10 schemes and the topology case */
}

/* ---- 3. CesiumMan by topology --------------------------------------------- */
static bool name_has(const sk_skeleton *s, int32_t j, const char *tok) { return j >= 0 && strstr(s->names[j], tok) != NULL; }

static void test_cesium(void **state) {
    (void)state;
    char path[1024];
    sk_test_path(path, sizeof path, sk_test_require_shared(), "assets/gltf/CesiumMan/CesiumMan.glb");
    sk_asset *a = NULL;
    sk_error err;
    if (sk_gltf_load_file(path, NULL, &a, &err) != SK_OK) fail_msg("%s", err.message);
    const sk_skeleton *s = a->skeleton;
    sk_humanoid_map m;
    if (sk_humanoid_map_find(s, NULL, &m, &err) != SK_OK) fail_msg("CesiumMan: %s", err.message);
    assert_string_equal(m.scheme, "topology");
    int checked = 0;
    for (int side = 0; side < 2; side++) {
        const char *tok = side ? "_R" : "_L";
        int arm0 = side ? SK_HUMANOID_RIGHT_UPPER_ARM : SK_HUMANOID_LEFT_UPPER_ARM;
        int leg0 = side ? SK_HUMANOID_RIGHT_UPPER_LEG : SK_HUMANOID_LEFT_UPPER_LEG;
        for (int k = 0; k < 3; k++) {
            int32_t aj = m.joint[arm0 + k], lj = m.joint[leg0 + k];
            if (!name_has(s, aj, "arm_joint") || !name_has(s, aj, tok))
                fail_msg("CesiumMan: %s is '%s'", sk_humanoid_bone_name((sk_humanoid_bone)(arm0 + k)), aj >= 0 ? s->names[aj] : "-");
            if (!name_has(s, lj, "leg_joint") || !name_has(s, lj, tok))
                fail_msg("CesiumMan: %s is '%s'", sk_humanoid_bone_name((sk_humanoid_bone)(leg0 + k)), lj >= 0 ? s->names[lj] : "-");
            if (k) assert_true(has_ancestor(s, m.joint[arm0 + k - 1], aj)), assert_true(has_ancestor(s, m.joint[leg0 + k - 1], lj));
            checked += 2;
        }
    }
    /* Hips: the parent of the legs' first joints (named leg_joint_?_1). */
    int32_t l1 = sk_skeleton_find(s, "leg_joint_L_1"), r1 = sk_skeleton_find(s, "leg_joint_R_1");
    assert_true(l1 >= 0 && r1 >= 0);
    assert_int_equal(m.joint[SK_HUMANOID_HIPS], s->parents[l1]);
    assert_int_equal(m.joint[SK_HUMANOID_HIPS], s->parents[r1]);
    assert_true(name_has(s, m.joint[SK_HUMANOID_HEAD], "neck_joint"));
    assert_true(name_has(s, m.joint[SK_HUMANOID_LEFT_UPPER_LEG], "leg_joint_L_1"));
    checked += 4;
    /* Mirror pairs: legs and arms, left first. */
    uint32_t pairs[64][2], count = 0;
    assert_int_equal(sk_skeleton_mirror_pairs(s, &m, pairs, 64, &count, &err), SK_OK);
    assert_true(count >= 6);
    for (uint32_t k = 0; k < count; k++) {
        assert_true(strstr(s->names[pairs[k][0]], "_L") != NULL);
        assert_true(strstr(s->names[pairs[k][1]], "_R") != NULL);
    }
    /* Retarget the mannequin's walk onto it: finite output. */
    sk_asset *mq = mannequin();
    sk_retarget_desc d = {0};
    d.source = mq->skeleton, d.target = s;
    sk_retarget *rt = NULL;
    if (sk_retarget_create(&d, NULL, &rt, &err) != SK_OK) fail_msg("%s", err.message);
    sk_clip *baked = NULL;
    if (sk_retarget_clip(rt, mq->clips[1], NULL, NULL, &baked, &err) != SK_OK) fail_msg("%s", err.message);
    assert_string_equal(sk_clip_name(baked), sk_clip_name(mq->clips[1]));
    assert_true(fabs(sk_clip_duration(baked) - sk_clip_duration(mq->clips[1])) < 1e-6);
    sk_clip_destroy(baked);
    sk_retarget_destroy(rt);
    sk_asset_destroy(mq);
    sk_asset_destroy(a);
    printf("CesiumMan: %d checks, %u mirror pairs\n", checked, count);
    assert_int_equal(checked, 16);
}

/* ---- 4. CMU BVH by name --------------------------------------------------- */
static void test_cmu(void **state) {
    (void)state;
    static const char *const files[] = {"02_01.bvh", "07_01_fbx2bvh.bvh", "60_01_scaled.bvh", "131_03.bvh"};
    int cases = 0;
    for (int f = 0; f < 4; f++) {
        sk_asset *a = load_bvh(files[f]);
        const sk_skeleton *s = a->skeleton;
        sk_humanoid_map m;
        sk_error err;
        if (sk_humanoid_map_find(s, NULL, &m, &err) != SK_OK) fail_msg("%s: %s", files[f], err.message);
        int idx = f < 2 ? 2 : f == 2 ? 3 : 9; /* scheme_cases: cmu, daz, cmu-max */
        assert_string_equal(m.scheme, scheme_cases[idx].scheme);
        for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++) {
            const char *want = scheme_cases[idx].names[b];
            if (!want) continue;
            if (m.joint[b] < 0 || strcmp(s->names[m.joint[b]], want) != 0)
                fail_msg("%s: %s is '%s', want '%s'", files[f], sk_humanoid_bone_name((sk_humanoid_bone)b),
                         m.joint[b] >= 0 ? s->names[m.joint[b]] : "-", want);
        }
        cases++;
        /* The same skeleton without its names: topology finds the same joints (not asked of
         * 131_03, whose hands carry finger and thumb branches the topology rules do not cover). */
        if (f == 3) {
            sk_asset_destroy(a);
            continue;
        }
        uint32_t n = s->joint_count;
        const char **plain = malloc(n * sizeof *plain);
        char (*buf)[16] = malloc(n * sizeof *buf);
        for (uint32_t j = 0; j < n; j++) { /* keep only the end markers the exporter wrote ("_end") */
            size_t l = strlen(s->names[j]);
            snprintf(buf[j], sizeof buf[j], "n%u%s", j, l > 4 && strcmp(s->names[j] + l - 4, "_end") == 0 ? "_end" : "");
            plain[j] = buf[j];
        }
        sk_skeleton_desc d = {n, s->parents, plain, s->rest, NULL, NULL};
        sk_skeleton *anon = NULL;
        assert_int_equal(sk_skeleton_create(&d, NULL, &anon, NULL), SK_OK);
        sk_humanoid_map mt;
        if (sk_humanoid_map_find(anon, NULL, &mt, &err) != SK_OK) fail_msg("%s without names: %s", files[f], err.message);
        assert_string_equal(mt.scheme, "topology");
        for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++) {
            if (!sk_humanoid_bone_required((sk_humanoid_bone)b)) continue;
            if (mt.joint[b] != m.joint[b])
                fail_msg("%s without names: %s is '%s', by name '%s'", files[f], sk_humanoid_bone_name((sk_humanoid_bone)b),
                         mt.joint[b] >= 0 ? s->names[mt.joint[b]] : "-", s->names[m.joint[b]]);
        }
        sk_skeleton_destroy(anon), free(plain), free(buf);
        sk_asset_destroy(a);
    }
    printf("CMU: %d files mapped by name, three of them by topology without names too\n", cases);
    assert_int_equal(cases, 4);
}


/* ---- 5. Mirror pairs -------------------------------------------------------- */
/* Every pair mirrored across the sagittal plane of the hips at rest: in the
 * frame (lateral, up, forward) of the hips, lateral coordinates opposite and
 * the others equal, within tol x leg length. */
static int check_mirror(const sk_skeleton *s, float tol, bool all_names_paired) {
    sk_humanoid_map m;
    sk_error err;
    assert_int_equal(sk_humanoid_map_find(s, NULL, &m, &err), SK_OK);
    uint32_t count = 0;
    assert_int_equal(sk_skeleton_mirror_pairs(s, &m, NULL, 0, &count, &err), SK_OK);
    uint32_t(*pairs)[2] = malloc((count + 1) * sizeof *pairs);
    uint32_t again = 0;
    assert_int_equal(sk_skeleton_mirror_pairs(s, &m, pairs, count, &again, &err), SK_OK);
    assert_int_equal(again, count);
    uint32_t n = s->joint_count;
    sk_quat *R = malloc(n * sizeof *R);
    sk_vec3 *P = malloc(n * sizeof *P);
    model_of(s, s->rest, R, P);
    sk_vec3 hips = P[m.joint[SK_HUMANOID_HIPS]];
    sk_vec3 up = sk_vec3_normalize(sk_vec3_sub(P[m.joint[SK_HUMANOID_HEAD]], hips));
    sk_vec3 lat = sk_vec3_sub(P[m.joint[SK_HUMANOID_RIGHT_UPPER_LEG]], P[m.joint[SK_HUMANOID_LEFT_UPPER_LEG]]);
    lat = sk_vec3_normalize(sk_vec3_sub(lat, sk_vec3_scale(up, sk_vec3_dot(lat, up))));
    sk_vec3 fwd = sk_vec3_cross(lat, up);
    float leg = sk_humanoid_leg_length(s, NULL, &m);
    assert_true(leg > 0);
    bool *seen = calloc(n, 1);
    for (uint32_t k = 0; k < count; k++) {
        uint32_t l = pairs[k][0], r = pairs[k][1];
        assert_true(l < n && r < n && l != r && !seen[l] && !seen[r]);
        seen[l] = seen[r] = true;
        sk_vec3 a = sk_vec3_sub(P[l], hips), b = sk_vec3_sub(P[r], hips);
        float el = fabsf(sk_vec3_dot(a, lat) + sk_vec3_dot(b, lat)), eu = fabsf(sk_vec3_dot(a, up) - sk_vec3_dot(b, up)),
              ef = fabsf(sk_vec3_dot(a, fwd) - sk_vec3_dot(b, fwd));
        if (el > tol * leg || eu > tol * leg || ef > tol * leg)
            fail_msg("pair '%s' / '%s' is not mirrored: %g %g %g (leg %g)", s->names[l], s->names[r], el, eu, ef, leg);
        if (!(sk_vec3_dot(a, lat) < tol * leg)) fail_msg("pair '%s' / '%s': the left one is on the right", s->names[l], s->names[r]);
    }
    if (all_names_paired) /* every joint whose name says Left has its pair */
        for (uint32_t j = 0; j < n; j++)
            if (strstr(s->names[j], "Left") || strstr(s->names[j], "_l")) assert_true(seen[j]);
    free(pairs), free(R), free(P), free(seen);
    return (int)count;
}

static void test_mirror(void **state) {
    (void)state;
    sk_asset *mq = mannequin();
    int pairs = check_mirror(mq->skeleton, 1e-3f, true);
    sk_asset *bv = load_bvh("02_01.bvh");
    pairs += check_mirror(bv->skeleton, 0.08f, true);
    int32_t joint_of[SK_HUMANOID_BONE_COUNT];
    sk_skeleton *s = synthetic(scheme_cases[4].names, joint_of); /* rigify .L/.R */
    pairs += check_mirror(s, 1e-4f, false);
    sk_skeleton_destroy(s);
    /* Name patterns alone (no map): LThumb/RThumb, LeftHand/RightHand. */
    uint32_t count = 0, pr[64][2];
    assert_int_equal(sk_skeleton_mirror_pairs(bv->skeleton, NULL, pr, 64, &count, NULL), SK_OK);
    bool thumb = false;
    for (uint32_t k = 0; k < count; k++)
        thumb |= strcmp(bv->skeleton->names[pr[k][0]], "LThumb") == 0 && strcmp(bv->skeleton->names[pr[k][1]], "RThumb") == 0;
    assert_true(thumb);
    sk_asset_destroy(bv);
    sk_asset_destroy(mq);
    printf("mirror: %d pairs checked\n", pairs);
    assert_true(pairs >= 8 + 14 + 8);
}

/* ---- 6. Bad input ----------------------------------------------------------- */
static void test_bad_input(void **state) {
    (void)state;
    sk_error err;
    sk_asset *mq = mannequin();
    const sk_skeleton *s = mq->skeleton;
    sk_retarget *rt = NULL;
    sk_retarget_desc d = {0};
    d.source = s, d.target = s;
    /* Pairs naming joints that do not exist. */
    sk_retarget_pair bad[] = {{"hips", "hips"}, {"no_such_joint", "spine"}};
    d.pairs = bad, d.pair_count = 2;
    assert_int_equal(sk_retarget_create(&d, NULL, &rt, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "no_such_joint"));
    assert_null(rt);
    sk_retarget_pair bad2[] = {{"spine", "tail_03"}};
    d.pairs = bad2, d.pair_count = 1;
    assert_int_equal(sk_retarget_create(&d, NULL, &rt, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "tail_03"));
    /* humanoid_map_set with a missing joint. */
    sk_humanoid_map m;
    assert_int_equal(sk_humanoid_map_find(s, NULL, &m, &err), SK_OK);
    assert_int_equal(sk_humanoid_map_set(&m, s, SK_HUMANOID_HEAD, "skull", &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "skull"));
    /* Nothing in common: a three-joint chain with no humanoid. */
    int32_t par[3] = {-1, 0, 1};
    const char *nm[3] = {"a", "b", "c"};
    sk_transform rest[3];
    for (int k = 0; k < 3; k++) rest[k] = sk_transform_identity(), rest[k].t = sk_vec3_make(0, 1, 0);
    sk_skeleton_desc sd = {3, par, nm, rest, NULL, NULL};
    sk_skeleton *chain3 = NULL;
    assert_int_equal(sk_skeleton_create(&sd, NULL, &chain3, NULL), SK_OK);
    d.pairs = NULL, d.pair_count = 0;
    d.target = chain3;
    assert_int_equal(sk_retarget_create(&d, NULL, &rt, &err), SK_ERR_INVALID_DATA);
    assert_non_null(strstr(err.message, "target"));
    assert_non_null(strstr(err.message, "hips"));
    d.flags = SK_RETARGET_MATCH_NAMES; /* names matching nothing either */
    assert_int_equal(sk_retarget_create(&d, NULL, &rt, &err), SK_ERR_INVALID_DATA);
    sk_retarget_pair none[] = {{"hips", "a"}};
    d.pairs = none, d.pair_count = 1; /* one pair: works, one joint driven */
    assert_int_equal(sk_retarget_create(&d, NULL, &rt, &err), SK_OK);
    assert_int_equal(sk_retarget_source_of(rt, 0), 0);
    assert_int_equal(sk_retarget_source_of(rt, 1), -1);
    sk_retarget_destroy(rt), rt = NULL;
    d.pairs = NULL, d.pair_count = 0, d.flags = 0;
    /* A source without hips. */
    d.source = chain3, d.target = s;
    assert_int_equal(sk_retarget_create(&d, NULL, &rt, &err), SK_ERR_INVALID_DATA);
    assert_non_null(strstr(err.message, "source"));
    assert_non_null(strstr(err.message, "no hips"));
    /* A map that is not a humanoid: missing required bone. */
    sk_humanoid_map broken = m;
    broken.joint[SK_HUMANOID_LEFT_FOOT] = -1;
    d.source = s, d.source_map = &broken;
    assert_int_equal(sk_retarget_create(&d, NULL, &rt, &err), SK_ERR_INVALID_DATA);
    assert_non_null(strstr(err.message, "left_foot"));
    d.source_map = NULL;
    d.root_scale = NAN;
    assert_int_equal(sk_retarget_create(&d, NULL, &rt, &err), SK_ERR_INVALID_ARGUMENT);
    d.root_scale = 0;
    /* NaN in poses: an error, the output untouched. */
    assert_int_equal(sk_retarget_create(&d, NULL, &rt, &err), SK_OK);
    uint32_t n = s->joint_count;
    sk_transform *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    memcpy(in, s->rest, n * sizeof *in);
    for (uint32_t j = 0; j < n; j++) out[j] = sk_transform_identity();
    in[3].r.x = NAN;
    assert_int_equal(sk_retarget_pose(rt, SK_POSE_OF(s, in, NULL), NULL, SK_POSE_OF(s, out, NULL), NULL, 0, &err),
                     SK_ERR_INVALID_ARGUMENT);
    for (uint32_t j = 0; j < n; j++) assert_true(out[j].r.w == 1.0f && out[j].t.x == 0.0f);
    memcpy(in, s->rest, n * sizeof *in);
    in[0].t.y = INFINITY;
    assert_int_equal(sk_retarget_pose(rt, SK_POSE_OF(s, in, NULL), NULL, SK_POSE_OF(s, out, NULL), NULL, 0, &err),
                     SK_ERR_INVALID_ARGUMENT);
    memcpy(in, s->rest, n * sizeof *in);
    sk_transform *fill = malloc(n * sizeof *fill);
    memcpy(fill, s->rest, n * sizeof *fill);
    fill[n - 1].s.z = NAN;
    assert_int_equal(sk_retarget_pose(rt, SK_POSE_OF(s, in, NULL), SK_POSE_OF(s, fill, NULL), SK_POSE_OF(s, out, NULL), NULL, 0, &err),
                     SK_ERR_INVALID_ARGUMENT);
    /* A root thrown to 3e38: refused, output untouched; rotations of 1e30
     * (not normalised) and zero: fine, finite. */
    memcpy(fill, s->rest, n * sizeof *fill);
    in[0].t = sk_vec3_make(3e38f, 0, 0);
    assert_int_equal(sk_retarget_pose(rt, SK_POSE_OF(s, in, NULL), NULL, SK_POSE_OF(s, out, NULL), NULL, 0, &err),
                     SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "root"));
    for (uint32_t j = 0; j < n; j++) assert_true(out[j].r.w == 1.0f && out[j].t.x == 0.0f);
    memcpy(in, s->rest, n * sizeof *in);
    in[1].r = sk_quat_make(1e30f, -2e30f, 0, 3e30f);
    in[2].r = sk_quat_make(0, 0, 0, 0);
    assert_int_equal(sk_retarget_pose(rt, SK_POSE_OF(s, in, NULL), NULL, SK_POSE_OF(s, out, NULL), NULL, 0, &err), SK_OK);
    for (uint32_t j = 0; j < n; j++)
        assert_true(isfinite(out[j].r.x) && isfinite(out[j].r.w) && fabsf(sk_quat_length(out[j].r) - 1.0f) < 1e-4f);
    memcpy(in, s->rest, n * sizeof *in);
    /* A wrong pose size, short scratch. */
    sk_pose shortp = sk_pose_view(out, n - 1, NULL, 0);
    assert_int_equal(sk_retarget_pose(rt, SK_POSE_OF(s, in, NULL), NULL, &shortp, NULL, 0, &err), SK_ERR_INVALID_ARGUMENT);
    char small[8];
    assert_int_equal(sk_retarget_pose(rt, SK_POSE_OF(s, in, NULL), NULL, SK_POSE_OF(s, out, NULL), small, sizeof small, &err),
                     SK_ERR_INVALID_ARGUMENT);
    /* Same skeleton onto itself: the identity (within float). */
    assert_int_equal(sk_retarget_pose(rt, SK_POSE_OF(s, in, NULL), NULL, SK_POSE_OF(s, out, NULL), NULL, 0, &err), SK_OK);
    for (uint32_t j = 0; j < n; j++) {
        if (sk_retarget_source_of(rt, j) < 0) continue;
        assert_true(sk_test_quat_angle(out[j].r, in[j].r) < 0.01 * DEG);
    }
    sk_retarget_destroy(rt);
    free(in), free(out), free(fill);
    /* A 10,000-joint chain: no humanoid (clear error, no hang), and as a
     * target of a pair: works, with scratch. */
    sk_skeleton *big = sk_test_chain_skeleton(10000, 5);
    assert_int_equal(sk_humanoid_map_find(big, NULL, &m, &err), SK_ERR_INVALID_DATA);
    d.source = s, d.target = big;
    assert_int_equal(sk_retarget_create(&d, NULL, &rt, &err), SK_ERR_INVALID_DATA);
    sk_retarget_pair one[] = {{"hips", big->names[0]}};
    d.pairs = one, d.pair_count = 1, d.flags = SK_RETARGET_MATCH_NAMES;
    assert_int_equal(sk_retarget_create(&d, NULL, &rt, &err), SK_OK);
    sk_transform *bl = malloc(10000 * sizeof *bl);
    memcpy(bl, big->rest, 10000 * sizeof *bl);
    assert_int_equal(sk_retarget_pose(rt, SK_POSE_OF(s, s->rest, NULL), NULL, SK_POSE_OF(big, bl, NULL), NULL, 0, &err),
                     SK_ERR_INVALID_ARGUMENT); /* too big for the stack: scratch needed */
    size_t scr = sk_retarget_scratch_size(rt);
    void *scratch = malloc(scr);
    assert_int_equal(sk_retarget_pose(rt, SK_POSE_OF(s, s->rest, NULL), NULL, SK_POSE_OF(big, bl, NULL), scratch, scr, &err), SK_OK);
    for (uint32_t j = 0; j < 10000; j++) assert_true(isfinite(bl[j].r.w) && isfinite(bl[j].t.x));
    free(scratch);
    sk_retarget_destroy(rt);
    /* The chain onto itself by names: every joint mapped, the pose comes back. */
    char (*bn)[16] = malloc(10000 * sizeof *bn);
    const char **bnp = malloc(10000 * sizeof *bnp);
    for (uint32_t j = 0; j < 10000; j++) snprintf(bn[j], sizeof bn[j], "j%u", j), bnp[j] = bn[j];
    sk_skeleton_desc bd = {10000, big->parents, bnp, big->rest, NULL, NULL};
    sk_skeleton *named = NULL;
    assert_int_equal(sk_skeleton_create(&bd, NULL, &named, NULL), SK_OK);
    free(bn), free(bnp);
    sk_skeleton_destroy(big);
    big = named;
    d.source = big, d.target = big, d.pairs = NULL, d.pair_count = 0;
    if (sk_retarget_create(&d, NULL, &rt, &err) != SK_OK) fail_msg("chain onto itself: %s", err.message);
    for (uint32_t j = 0; j < 10000; j++) assert_int_equal(sk_retarget_source_of(rt, j), (int32_t)j);
    sk_transform *in2 = malloc(10000 * sizeof *in2);
    uint32_t seed = 3;
    for (uint32_t j = 0; j < 10000; j++) in2[j] = big->rest[j], in2[j].r = sk_test_rnd_quat(&seed);
    scr = sk_retarget_scratch_size(rt);
    scratch = malloc(scr);
    assert_int_equal(sk_retarget_pose(rt, SK_POSE_OF(big, in2, NULL), NULL, SK_POSE_OF(big, bl, NULL), scratch, scr, &err), SK_OK);
    double worst = 0;
    for (uint32_t j = 0; j < 10000; j++) {
        double e = sk_test_quat_angle(in2[j].r, bl[j].r);
        if (e > worst) worst = e;
    }
    printf("10,000-joint chain onto itself: worst %.3g deg\n", worst / DEG);
    assert_true(worst < 0.05 * DEG);
    free(scratch), free(bl), free(in2);
    sk_retarget_destroy(rt);
    sk_skeleton_destroy(big);
    sk_skeleton_destroy(chain3);
    sk_asset_destroy(mq);
}

/* ---- 7. Baked = live --------------------------------------------------------- */
static void test_bake(void **state) {
    (void)state;
    sk_error err;
    sk_asset *mq = mannequin();
    sk_asset *bv = load_bvh("02_01.bvh");
    sk_retarget_desc d = {0};
    d.source = bv->skeleton, d.target = mq->skeleton;
    sk_retarget *rt = NULL;
    if (sk_retarget_create(&d, NULL, &rt, &err) != SK_OK) fail_msg("%s", err.message);
    const sk_clip *src = bv->clips[0];
    sk_clip *baked = NULL;
    for (int with_fill = 0; with_fill < 2; with_fill++) {
        const sk_clip *fill = with_fill ? mq->clips[0] : NULL;
        if (sk_retarget_clip(rt, src, fill, NULL, &baked, &err) != SK_OK) fail_msg("%s", err.message);
        assert_string_equal(sk_clip_name(baked), sk_clip_name(src));
        assert_true(fabs(sk_clip_duration(baked) - sk_clip_duration(src)) < 1e-6);
        /* key times: those of the source's first track */
        sk_track_info info;
        assert_true(sk_clip_track_info(src, 0, &info));
        float *times = malloc(info.key_count * sizeof *times);
        assert_true(sk_clip_track_keys(src, 0, times, NULL));
        uint32_t ns = bv->skeleton->joint_count, nt = mq->skeleton->joint_count;
        sk_transform *sl = malloc(ns * sizeof *sl), *live = malloc(nt * sizeof *live), *bk = malloc(nt * sizeof *bk),
                     *fl = malloc(nt * sizeof *fl);
        double worst = 0, worst_t = 0;
        uint32_t checked = 0;
        for (uint32_t k = 0; k < info.key_count; k += 7) {
            assert_int_equal(sk_clip_sample(src, bv->skeleton, times[k], SK_LOOP_CLAMP, SK_POSE_OF(bv->skeleton, sl, NULL), &err), SK_OK);
            memcpy(fl, mq->skeleton->rest, nt * sizeof *fl);
            if (fill) assert_int_equal(sk_clip_sample(fill, mq->skeleton, times[k], SK_LOOP_CLAMP, SK_POSE_OF(mq->skeleton, fl, NULL), &err), SK_OK);
            assert_int_equal(sk_retarget_pose(rt, SK_POSE_OF(bv->skeleton, sl, NULL), SK_POSE_OF(mq->skeleton, fl, NULL),
                                              SK_POSE_OF(mq->skeleton, live, NULL), NULL, 0, &err), SK_OK);
            assert_int_equal(sk_clip_sample(baked, mq->skeleton, times[k], SK_LOOP_CLAMP, SK_POSE_OF(mq->skeleton, bk, NULL), &err), SK_OK);
            for (uint32_t j = 0; j < nt; j++) {
                double e = sk_test_quat_angle(live[j].r, bk[j].r);
                if (e > worst) worst = e;
                double et = sk_vec3_length(sk_vec3_sub(live[j].t, bk[j].t));
                if (et > worst_t) worst_t = et;
            }
            checked++;
        }
        printf("bake%s: %u key times, worst %.2g deg, %.2g m\n", fill ? " (fill clip)" : "", checked, worst / DEG, worst_t);
        assert_true(checked > 10);
        assert_true(worst < 1e-3 * DEG);
        assert_true(worst_t < 1e-5);
        free(times), free(sl), free(live), free(bk), free(fl);
        sk_clip_destroy(baked);
    }
    sk_retarget_destroy(rt);
    sk_asset_destroy(bv);
    sk_asset_destroy(mq);
}


/* ---- 8. Allocation failure ----------------------------------------------- */
typedef struct counting {
    size_t calls, fail_at, live;
} counting;
static void *c_alloc(void *u, size_t n) {
    counting *c = u;
    if (++c->calls == c->fail_at) return NULL;
    c->live += n;
    return malloc(n);
}
static void c_free(void *u, void *p, size_t n) {
    counting *c = u;
    if (p) c->live -= n;
    free(p);
}

static void test_alloc_failure(void **state) {
    (void)state;
    sk_asset *mq = mannequin();
    const char *plain[SK_HUMANOID_BONE_COUNT];
    char buf[SK_HUMANOID_BONE_COUNT][16];
    for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++) snprintf(buf[b], sizeof buf[b], "b%d", b), plain[b] = buf[b];
    int32_t joint_of[SK_HUMANOID_BONE_COUNT];
    sk_skeleton *topo = synthetic(plain, joint_of); /* needs topology: allocates */
    int failures = 0;
    for (size_t at = 1;; at++) {
        counting c = {0, at, 0};
        sk_allocator a = {c_alloc, NULL, c_free, &c};
        sk_error err;
        sk_retarget_desc d = {0};
        d.source = mq->skeleton, d.target = topo;
        sk_retarget *rt = NULL;
        sk_clip *clip = NULL;
        sk_result r = sk_retarget_create(&d, &a, &rt, &err);
        if (r == SK_OK) r = sk_retarget_clip(rt, mq->clips[1], NULL, &a, &clip, &err);
        sk_clip_destroy(clip);
        sk_retarget_destroy(rt);
        assert_int_equal(c.live, 0);
        if (r == SK_OK) break;
        assert_int_equal(r, SK_ERR_OUT_OF_MEMORY);
        failures++;
        assert_true(at < 1000);
    }
    const char *doc = "{\"map\": {\"a\": \"b\"}, \"source\": {\"hips\": \"h\"}}";
    for (size_t at = 1;; at++) {
        counting c = {0, at, 0};
        sk_allocator a = {c_alloc, NULL, c_free, &c};
        sk_retarget_map_json *m = NULL;
        sk_result r = sk_retarget_map_json_parse(doc, strlen(doc), &a, &m, NULL);
        sk_retarget_map_json_destroy(m);
        assert_int_equal(c.live, 0);
        if (r == SK_OK) break;
        assert_int_equal(r, SK_ERR_OUT_OF_MEMORY);
        failures++;
        assert_true(at < 1000);
    }
    printf("allocation failures: %d, each SK_ERR_OUT_OF_MEMORY with nothing leaked\n", failures);
    assert_true(failures >= 5);
    sk_skeleton_destroy(topo);
    sk_asset_destroy(mq);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_property),
        cmocka_unit_test(test_schemes),
        cmocka_unit_test(test_cesium),
        cmocka_unit_test(test_cmu),
        cmocka_unit_test(test_mirror),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_bake),
        cmocka_unit_test(test_alloc_failure),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
