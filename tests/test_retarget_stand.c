/* Retargeting from a skeleton whose rest pose does not stand
 * (sk_humanoid_pose_stands, sk_humanoid_pose_like; anim/retarget.h).
 *
 * The source is a CMU walk (tests/data/cmu/02_02.bvh, 2 s of it) and a copy
 * of it built here with its joint orients baked in, as Maya and
 * MotionBuilder export them: per joint a constant rotation O_j that turns
 * +X onto its child's offset (then a random roll about X), every local
 * rotation r_j -> O_parent^-1 r_j O_j and offset t_j -> O_parent^-1 t_j, rest
 * rotations the identity. The copy moves exactly as the capture (same model
 * positions), but at rest every bone lies along +X. The target is the
 * mannequin.
 *  1. sk_humanoid_pose_stands: true for the capture's rest, the mannequin's
 *     and CesiumMan-like standing frames; false for the copy's rest.
 *  2. Invariance: the capture and the copy each get a rest made by
 *     sk_humanoid_pose_like from their first frame. Retargeted through those
 *     rests, every frame gives the same target pose for both (model
 *     rotations of the mapped joints within 0.01 degrees, the root within
 *     0.1 mm): the result does not depend on the source's joint orients.
 *  3. Against the capture's own T-pose rest (the usual path): the limb bone
 *     directions agree up to the constant rotation between the two
 *     retargeters' frames (within 0.01 degrees), each joint's remaining
 *     difference (a roll about its bone) is constant over the clip, the
 *     root's path agrees, and the standing rest's frame keeps the source's
 *     +Y on the target's +Y (the T-pose's lean tilts the ground by 1.3
 *     degrees). Independent of both: the mannequin's hinges. The axis each
 *     knee, ankle and elbow bends about (child rotation relative to parent,
 *     from rest, in the model rest frame) against the mannequin's anatomy
 *     (knees and ankles about its lateral axis, elbows about arm x forward):
 *     under 6 / 30 / 20 degrees (bend-weighted mean) and no worse than
 *     through the T-pose rest by more than 5 degrees.
 *  4. The pose made: every mapped bone points as the mannequin's at rest,
 *     carried by the hips frames (within 0.01 degrees), hips-to-head along
 *     +Y; unmapped joints, translations and scales untouched.
 *  5. Bad input and allocation failure.
 *  6. The copy written as a .bvh and read back (the file the CLI tests use). */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEG (3.14159265358979323846 / 180.0)
#define CMU_SCALE 0.056444

static double vec_angle(sk_vec3 a, sk_vec3 b) { return atan2(sk_vec3_length(sk_vec3_cross(a, b)), sk_vec3_dot(a, b)); }

/* Model rotations and positions from local transforms (unit scales), written here. */
static void model_of(const sk_skeleton *s, const sk_transform *loc, sk_quat *R, sk_vec3 *P) {
    for (uint32_t j = 0; j < s->joint_count; j++) {
        int32_t p = s->parents[j];
        if (p < 0) R[j] = sk_quat_normalize(loc[j].r), P[j] = loc[j].t;
        else {
            R[j] = sk_quat_normalize(sk_quat_mul(R[p], loc[j].r));
            P[j] = sk_vec3_add(P[p], sk_quat_rotate(R[p], loc[j].t));
        }
    }
}

/* Shortest rotation from unit u to unit v (test's own). */
static sk_quat from_to(sk_vec3 u, sk_vec3 v) {
    u = sk_vec3_normalize(u), v = sk_vec3_normalize(v);
    float d = sk_vec3_dot(u, v);
    if (d < -0.999999f) {
        sk_vec3 a = fabsf(u.x) < 0.9f ? sk_vec3_make(1, 0, 0) : sk_vec3_make(0, 1, 0);
        a = sk_vec3_normalize(sk_vec3_cross(u, a));
        return sk_quat_make(a.x, a.y, a.z, 0);
    }
    sk_vec3 c = sk_vec3_cross(u, v);
    return sk_quat_normalize(sk_quat_make(c.x, c.y, c.z, 1.0f + d));
}

/* The capture with joint orients baked in (header). */
typedef struct baked {
    sk_skeleton *skel;
    sk_quat *O; /* per joint */
} baked;

static baked bake_orients(const sk_skeleton *s, uint32_t seed) {
    uint32_t n = s->joint_count;
    baked b;
    b.O = malloc(n * sizeof *b.O);
    sk_transform *rest = malloc(n * sizeof *rest);
    const char **names = malloc(n * sizeof *names);
    assert_non_null(b.O), assert_non_null(rest), assert_non_null(names);
    for (uint32_t j = 0; j < n; j++) {
        int32_t c = -1;
        for (uint32_t k = j + 1; k < n && c < 0; k++)
            if (s->parents[k] == (int32_t)j && sk_vec3_length(s->rest[k].t) > 1e-4f) c = (int32_t)k;
        float roll = sk_test_rnd(&seed) * 3.14159265f; /* [-pi, pi) */
        sk_quat rx = sk_quat_make(sinf(0.5f * roll), 0, 0, cosf(0.5f * roll));
        b.O[j] = c >= 0 ? sk_quat_normalize(sk_quat_mul(from_to(sk_vec3_make(1, 0, 0), s->rest[c].t), rx))
                        : sk_test_rnd_quat(&seed);
    }
    for (uint32_t j = 0; j < n; j++) {
        int32_t p = s->parents[j];
        sk_quat op = p >= 0 ? sk_quat_conjugate(b.O[p]) : sk_quat_identity();
        rest[j] = sk_transform_identity();
        rest[j].t = sk_quat_rotate(op, s->rest[j].t);
        names[j] = s->names[j];
    }
    sk_skeleton_desc d = {n, s->parents, names, rest, NULL, NULL};
    b.skel = NULL;
    assert_int_equal(sk_skeleton_create(&d, NULL, &b.skel, NULL), SK_OK);
    free(rest);
    free(names);
    return b;
}

/* A pose of the capture as the copy's pose. */
static void to_baked(const sk_skeleton *s, const baked *b, const sk_transform *in, sk_transform *out) {
    for (uint32_t j = 0; j < s->joint_count; j++) {
        int32_t p = s->parents[j];
        sk_quat op = p >= 0 ? sk_quat_conjugate(b->O[p]) : sk_quat_identity();
        out[j] = in[j];
        out[j].r = sk_quat_normalize(sk_quat_mul(sk_quat_mul(op, sk_quat_normalize(in[j].r)), b->O[j]));
        out[j].t = sk_quat_rotate(op, in[j].t);
    }
}

typedef struct fixture {
    sk_asset *cap, *mq;
    baked cp;
    sk_humanoid_map mmap;
} fixture;

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    char dir[1024];
    sk_test_path(dir, sizeof dir, sk_test_source_dir(), "tests/data/cmu");
    f->cap = sk_test_load_bvh(dir, "02_02.bvh", CMU_SCALE);
    assert_int_equal(sk_mannequin_create(NULL, NULL, &f->mq, NULL), SK_OK);
    assert_int_equal(sk_humanoid_map_find(f->mq->skeleton, NULL, &f->mmap, NULL), SK_OK);
    f->cp = bake_orients(f->cap->skeleton, 7u);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    sk_asset_destroy(f->cap);
    sk_asset_destroy(f->mq);
    sk_skeleton_destroy(f->cp.skel);
    free(f->cp.O);
    free(f);
    return 0;
}

/* The capture's pose at t, and the same as the copy's. */
static void sample(const fixture *f, double t, sk_transform *cap, sk_transform *cp) {
    const sk_skeleton *s = f->cap->skeleton;
    assert_int_equal(sk_clip_sample(f->cap->clips[0], s, t, SK_LOOP_CLAMP, SK_POSE_OF(s, cap, NULL), NULL), SK_OK);
    if (cp) to_baked(s, &f->cp, cap, cp);
}

/* ---- 1. Standing or not ---------------------------------------------------- */
static void test_stands(void **state) {
    fixture *f = *state;
    const sk_skeleton *s = f->cap->skeleton;
    sk_humanoid_map m, mc;
    assert_int_equal(sk_humanoid_map_find(s, NULL, &m, NULL), SK_OK);
    assert_int_equal(sk_humanoid_map_find(f->cp.skel, NULL, &mc, NULL), SK_OK); /* by its CMU names */
    assert_true(sk_humanoid_pose_stands(s, NULL, &m));
    assert_true(sk_humanoid_pose_stands(f->mq->skeleton, NULL, &f->mmap));
    assert_false(sk_humanoid_pose_stands(f->cp.skel, NULL, &mc));
    /* every frame of the walk stands, as the capture or as the copy */
    sk_transform *a = malloc(s->joint_count * sizeof *a), *b = malloc(s->joint_count * sizeof *b);
    int frames = 0;
    for (double t = 0; t < 2.0; t += 0.1, frames++) {
        sample(f, t, a, b);
        assert_true(sk_humanoid_pose_stands(s, SK_POSE_OF(s, a, NULL), &m));
        assert_true(sk_humanoid_pose_stands(f->cp.skel, SK_POSE_OF(s, b, NULL), &mc));
    }
    /* a leg turned up (half a turn about its parent's X) does not */
    sample(f, 0.0, a, NULL);
    int32_t hip = m.joint[SK_HUMANOID_LEFT_UPPER_LEG];
    a[hip].r = sk_quat_normalize(sk_quat_mul(sk_quat_make(1, 0, 0, 0), a[hip].r));
    bool raised = sk_humanoid_pose_stands(s, SK_POSE_OF(s, a, NULL), &m);
    a[hip].r = sk_quat_make(NAN, 0, 0, 1);
    assert_false(sk_humanoid_pose_stands(s, SK_POSE_OF(s, a, NULL), &m)); /* non-finite */
    assert_false(raised);
    assert_false(sk_humanoid_pose_stands(NULL, NULL, &m));
    assert_false(sk_humanoid_pose_stands(s, NULL, NULL));
    sk_humanoid_map bad = m;
    bad.joint[SK_HUMANOID_LEFT_FOOT] = -1;
    assert_false(sk_humanoid_pose_stands(s, NULL, &bad));
    free(a), free(b);
    printf("stands: %d frames of the capture and its copy\n", frames);
    assert_int_equal(frames, 20);
}

/* A standing rest from count frames spread over the first 1.2 s (a gait
 * cycle) from t0; the map found on the first. which: 0 the capture, 1 the copy. */
static void standing_rest(const fixture *f, int which, double t0, uint32_t count, sk_transform *rest, sk_humanoid_map *m) {
    const sk_skeleton *s = which ? f->cp.skel : f->cap->skeleton;
    uint32_t n = s->joint_count;
    sk_transform *fr = malloc((size_t)n * count * sizeof *fr), *tmp = malloc(n * sizeof *tmp);
    sk_pose poses[64];
    assert_true(count <= 64);
    for (uint32_t k = 0; k < count; k++) {
        sample(f, t0 + 1.2 * k / count, which ? tmp : fr + (size_t)k * n, which ? fr + (size_t)k * n : NULL);
        poses[k] = *SK_POSE_OF(s, fr + (size_t)k * n, NULL);
    }
    assert_int_equal(sk_humanoid_map_find(s, &poses[0], m, NULL), SK_OK);
    sk_error err;
    if (sk_humanoid_pose_like(s, m, poses, count, f->mq->skeleton, NULL, &f->mmap, NULL, SK_POSE_OF(s, rest, NULL), &err) !=
        SK_OK)
        fail_msg("%s", err.message);
    free(fr), free(tmp);
}

static sk_retarget *retargeter(const fixture *f, const sk_skeleton *s, const sk_transform *rest, const sk_humanoid_map *m) {
    sk_retarget_desc d;
    memset(&d, 0, sizeof d);
    d.source = s, d.target = f->mq->skeleton;
    d.source_rest = rest ? SK_POSE_OF(s, rest, NULL) : NULL, d.source_map = m;
    sk_retarget *rt = NULL;
    sk_error err;
    if (sk_retarget_create(&d, NULL, &rt, &err) != SK_OK) fail_msg("%s", err.message);
    return rt;
}

/* How well a joint bends about the axis it should (the mannequin's anatomy):
 * the axis of the child's rotation relative to its parent's, from their
 * rest, carried into the model rest frame, against want; the mean angle
 * weighted by the bend, over bends of 10 degrees or more. */
typedef struct hinge {
    double w, we;
} hinge;
static void hinge_add(hinge *h, sk_quat Rp, sk_quat Rc, sk_quat Rp0, sk_quat Rc0, sk_vec3 want) {
    sk_quat Q = sk_quat_mul(sk_quat_conjugate(Rp), Rc), Q0 = sk_quat_mul(sk_quat_conjugate(Rp0), Rc0);
    sk_quat F = sk_quat_normalize(sk_quat_mul(Q, sk_quat_conjugate(Q0)));
    double ang = sk_test_quat_angle(sk_quat_identity(), F);
    if (ang < 10 * DEG) return;
    sk_vec3 ax = sk_quat_rotate(Rp0, sk_vec3_make(F.x, F.y, F.z));
    double e = vec_angle(ax, want);
    e = fmin(e, 3.14159265358979 - e);
    h->w += ang, h->we += ang * e;
}
static double hinge_deg(const hinge *h) { return h->w > 0 ? h->we / h->w / DEG : 0.0; }

/* ---- 2, 3. Invariance; against the T-pose rest ----------------------------- */
static void test_retarget(void **state) {
    fixture *f = *state;
    const sk_skeleton *s = f->cap->skeleton, *t = f->mq->skeleton;
    uint32_t n = s->joint_count, nt = t->joint_count;
    sk_transform *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *ra = malloc(n * sizeof *ra),
                 *rb = malloc(n * sizeof *rb);
    sk_transform *oa = malloc(nt * sizeof *oa), *ob = malloc(nt * sizeof *ob), *os = malloc(nt * sizeof *os);
    sk_quat *Ra = malloc(nt * sizeof *Ra), *Rb = malloc(nt * sizeof *Rb), *Rs = malloc(nt * sizeof *Rs);
    sk_vec3 *Pa = malloc(nt * sizeof *Pa), *Pb = malloc(nt * sizeof *Pb), *Ps = malloc(nt * sizeof *Ps);
    sk_humanoid_map ma, mb, mcap;
    uint32_t count = 16;
    standing_rest(f, 0, 0.0, count, ra, &ma);
    standing_rest(f, 1, 0.0, count, rb, &mb);
    for (int k = 0; k < SK_HUMANOID_BONE_COUNT; k++) assert_int_equal(ma.joint[k], mb.joint[k]);
    assert_int_equal(sk_humanoid_map_find(s, NULL, &mcap, NULL), SK_OK);
    sk_retarget *rta = retargeter(f, s, ra, &ma), *rtb = retargeter(f, f->cp.skel, rb, &mb), *rts = retargeter(f, s, NULL, &mcap);
    /* G: the usual retargeter's target frame onto the standing rest's */
    sk_quat G = sk_quat_normalize(sk_quat_mul(sk_retarget_frame_rotation(rta), sk_quat_conjugate(sk_retarget_frame_rotation(rts))));
    double tilt = vec_angle(sk_quat_rotate(G, sk_vec3_make(0, 1, 0)), sk_vec3_make(0, 1, 0));
    double worst_rot = 0, worst_root = 0, worst_dir = 0, worst_disp = 0;
    double roll0[64];
    int frames = 0, bones = 0;
    sk_vec3 root_a0 = {0}, root_s0 = {0};
    /* the mannequin's hinges at rest: knees and ankles about its lateral axis, elbows about arm x forward */
    sk_quat *Rt0 = malloc(nt * sizeof *Rt0);
    sk_vec3 *Pt0 = malloc(nt * sizeof *Pt0);
    model_of(t, t->rest, Rt0, Pt0);
    const sk_humanoid_map *mm = &f->mmap;
    static const int hinges[6][2] = {{SK_HUMANOID_LEFT_UPPER_LEG, SK_HUMANOID_LEFT_LOWER_LEG},
                                     {SK_HUMANOID_RIGHT_UPPER_LEG, SK_HUMANOID_RIGHT_LOWER_LEG},
                                     {SK_HUMANOID_LEFT_LOWER_LEG, SK_HUMANOID_LEFT_FOOT},
                                     {SK_HUMANOID_RIGHT_LOWER_LEG, SK_HUMANOID_RIGHT_FOOT},
                                     {SK_HUMANOID_LEFT_UPPER_ARM, SK_HUMANOID_LEFT_LOWER_ARM},
                                     {SK_HUMANOID_RIGHT_UPPER_ARM, SK_HUMANOID_RIGHT_LOWER_ARM}};
    sk_vec3 want[6];
    for (int h = 0; h < 6; h++) {
        int32_t p = mm->joint[hinges[h][0]], c = mm->joint[hinges[h][1]];
        sk_vec3 d = sk_vec3_sub(Pt0[mm->joint[hinges[h][1]]], Pt0[p]);
        want[h] = h < 4 ? sk_vec3_make(1, 0, 0) : sk_vec3_normalize(sk_vec3_cross(d, sk_vec3_make(0, 0, 1)));
        (void)c;
    }
    hinge hs[2][3];
    memset(hs, 0, sizeof hs);
    for (double tm = 0; tm < 2.0; tm += 1.0 / 30.0, frames++) {
        sample(f, tm, a, b);
        sk_error err;
        if (sk_retarget_pose(rta, SK_POSE_OF(s, a, NULL), NULL, SK_POSE_OF(t, oa, NULL), NULL, 0, &err) != SK_OK ||
            sk_retarget_pose(rtb, SK_POSE_OF(s, b, NULL), NULL, SK_POSE_OF(t, ob, NULL), NULL, 0, &err) != SK_OK ||
            sk_retarget_pose(rts, SK_POSE_OF(s, a, NULL), NULL, SK_POSE_OF(t, os, NULL), NULL, 0, &err) != SK_OK)
            fail_msg("%s", err.message);
        model_of(t, oa, Ra, Pa), model_of(t, ob, Rb, Pb), model_of(t, os, Rs, Ps);
        for (int h = 0; h < 6; h++) {
            int32_t p = mm->joint[hinges[h][0]], c = mm->joint[hinges[h][1]];
            hinge_add(&hs[0][h / 2], Ra[p], Ra[c], Rt0[p], Rt0[c], want[h]);
            hinge_add(&hs[1][h / 2], Rs[p], Rs[c], Rt0[p], Rt0[c], want[h]);
        }
        int32_t hips = f->mmap.joint[SK_HUMANOID_HIPS];
        if (frames == 0) root_a0 = Pa[hips], root_s0 = Ps[hips];
        worst_root = fmax(worst_root, sk_vec3_length(sk_vec3_sub(Pa[hips], Pb[hips])));
        sk_vec3 da = sk_vec3_sub(Pa[hips], root_a0), ds = sk_quat_rotate(G, sk_vec3_sub(Ps[hips], root_s0));
        worst_disp = fmax(worst_disp, sk_vec3_length(sk_vec3_sub(da, ds)));
        for (uint32_t j = 0; j < nt; j++) {
            if (sk_retarget_source_of(rta, j) < 0) continue;
            worst_rot = fmax(worst_rot, sk_test_quat_angle(Ra[j], Rb[j]));
            /* the roll left: Ra = G Rs E with E constant per joint */
            sk_quat E = sk_quat_mul(sk_quat_conjugate(sk_quat_mul(G, Rs[j])), Ra[j]);
            double e = sk_test_quat_angle(sk_quat_identity(), E);
            if (frames == 0) roll0[j] = e;
            else assert_true(fabs(e - roll0[j]) < 0.05 * DEG); /* constant */
        }
        for (int h = 0; h < 6; h++) { /* limb bone directions (no unmapped joint between: CMU's LHipJoint, Neck1) */
            int32_t p = mm->joint[hinges[h][0]], j = mm->joint[hinges[h][1]];
            double e = vec_angle(sk_vec3_sub(Pa[j], Pa[p]), sk_quat_rotate(G, sk_vec3_sub(Ps[j], Ps[p])));
            worst_dir = fmax(worst_dir, e);
            bones++;
        }
    }
    printf("hinge axes off the mannequin's (deg), standing rest / T-pose rest: knees %.1f / %.1f, ankles %.1f / %.1f, "
           "elbows %.1f / %.1f\n", hinge_deg(&hs[0][0]), hinge_deg(&hs[1][0]), hinge_deg(&hs[0][1]), hinge_deg(&hs[1][1]),
           hinge_deg(&hs[0][2]), hinge_deg(&hs[1][2]));
    free(Rt0), free(Pt0);
    /* the ground: the standing rest's frame keeps the source's +Y on the target's +Y */
    double slope = vec_angle(sk_quat_rotate(sk_retarget_frame_rotation(rta), sk_vec3_make(0, 1, 0)), sk_vec3_make(0, 1, 0));
    printf("retarget: %d frames, %d limb directions; copy vs capture: rotations %.2g deg, root %.2g m; vs the T-pose rest:"
           " directions %.2g deg, root path %.2g m; ground slope %.2g deg (through the T-pose rest %.2f)\n",
           frames, bones, worst_rot / DEG, worst_root, worst_dir / DEG, worst_disp, slope / DEG, tilt / DEG);
    assert_int_equal(frames, 60);
    assert_int_equal(bones, 60 * 6);
    assert_true(worst_rot < 0.01 * DEG);
    assert_true(worst_root < 1e-4);
    assert_true(worst_dir < 0.01 * DEG);
    assert_true(worst_disp < 1e-3);
    assert_true(slope < 0.01 * DEG);
    /* hinges: within a bound, and no worse than through the T-pose rest by more than 5 degrees */
    static const double bound[3] = {6.0, 30.0, 20.0};
    for (int k = 0; k < 3; k++) {
        assert_true(hinge_deg(&hs[0][k]) > 0.0 && hinge_deg(&hs[1][k]) > 0.0); /* bends seen */
        assert_true(hinge_deg(&hs[0][k]) < bound[k]);
        assert_true(hinge_deg(&hs[0][k]) < hinge_deg(&hs[1][k]) + 5.0);
    }
    sk_retarget_destroy(rta), sk_retarget_destroy(rtb), sk_retarget_destroy(rts);
    free(a), free(b), free(ra), free(rb), free(oa), free(ob), free(os);
    free(Ra), free(Rb), free(Rs), free(Pa), free(Pb), free(Ps);
}

/* ---- 4. The pose made ------------------------------------------------------ */
static void test_pose(void **state) {
    fixture *f = *state;
    const sk_skeleton *s = f->cp.skel, *t = f->mq->skeleton;
    uint32_t n = s->joint_count, nt = t->joint_count;
    sk_transform *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *r = malloc(n * sizeof *r);
    sk_quat *R = malloc(n * sizeof *R), *Rt = malloc(nt * sizeof *Rt);
    sk_vec3 *P = malloc(n * sizeof *P), *Pt = malloc(nt * sizeof *Pt);
    sk_humanoid_map m;
    int checked = 0;
    for (double tm = 0; tm < 2.0; tm += 0.25) {
        sample(f, tm, a, b);
        standing_rest(f, 1, tm, 1, r, &m);
        model_of(s, r, R, P);
        model_of(t, t->rest, Rt, Pt);
        const sk_humanoid_map *l = &f->mmap;
        /* hips frames (up = hips to head, lateral = left to right upper leg), here: the pose's up must be +Y */
        sk_vec3 up = sk_vec3_normalize(sk_vec3_sub(P[m.joint[SK_HUMANOID_HEAD]], P[m.joint[SK_HUMANOID_HIPS]]));
        assert_true(vec_angle(up, sk_vec3_make(0, 1, 0)) < 0.01 * DEG);
        sk_vec3 tup = sk_vec3_normalize(sk_vec3_sub(Pt[l->joint[SK_HUMANOID_HEAD]], Pt[l->joint[SK_HUMANOID_HIPS]]));
        sk_vec3 lat = sk_vec3_sub(P[m.joint[SK_HUMANOID_RIGHT_UPPER_LEG]], P[m.joint[SK_HUMANOID_LEFT_UPPER_LEG]]);
        sk_vec3 tlat = sk_vec3_sub(Pt[l->joint[SK_HUMANOID_RIGHT_UPPER_LEG]], Pt[l->joint[SK_HUMANOID_LEFT_UPPER_LEG]]);
        lat = sk_vec3_normalize(sk_vec3_sub(lat, sk_vec3_scale(up, sk_vec3_dot(lat, up))));
        tlat = sk_vec3_normalize(sk_vec3_sub(tlat, sk_vec3_scale(tup, sk_vec3_dot(tlat, tup))));
        /* the rotation taking (tlat, tup) onto (lat, up), from two vectors */
        sk_quat q1 = from_to(tup, up);
        sk_vec3 l1 = sk_quat_rotate(q1, tlat);
        sk_quat q2 = from_to(l1, lat);
        sk_quat G = sk_quat_normalize(sk_quat_mul(q2, q1));
        static const int pairs[][2] = {
            {SK_HUMANOID_LEFT_UPPER_LEG, SK_HUMANOID_LEFT_LOWER_LEG},   {SK_HUMANOID_LEFT_LOWER_LEG, SK_HUMANOID_LEFT_FOOT},
            {SK_HUMANOID_RIGHT_UPPER_LEG, SK_HUMANOID_RIGHT_LOWER_LEG}, {SK_HUMANOID_RIGHT_LOWER_LEG, SK_HUMANOID_RIGHT_FOOT},
            {SK_HUMANOID_LEFT_FOOT, SK_HUMANOID_LEFT_TOES},             {SK_HUMANOID_RIGHT_FOOT, SK_HUMANOID_RIGHT_TOES},
            {SK_HUMANOID_LEFT_UPPER_ARM, SK_HUMANOID_LEFT_LOWER_ARM},   {SK_HUMANOID_LEFT_LOWER_ARM, SK_HUMANOID_LEFT_HAND},
            {SK_HUMANOID_RIGHT_UPPER_ARM, SK_HUMANOID_RIGHT_LOWER_ARM}, {SK_HUMANOID_RIGHT_LOWER_ARM, SK_HUMANOID_RIGHT_HAND},
            {SK_HUMANOID_NECK, SK_HUMANOID_HEAD}};
        for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
            int b0 = pairs[k][0], b1 = pairs[k][1];
            if (m.joint[b0] < 0 || m.joint[b1] < 0 || l->joint[b0] < 0 || l->joint[b1] < 0) continue;
            sk_vec3 d = sk_vec3_sub(P[m.joint[b1]], P[m.joint[b0]]);
            sk_vec3 want = sk_quat_rotate(G, sk_vec3_sub(Pt[l->joint[b1]], Pt[l->joint[b0]]));
            if (vec_angle(d, want) >= 0.01 * DEG)
                fail_msg("t %.2f: %s -> %s at %.4f deg from the mannequin's", tm, sk_humanoid_bone_name((sk_humanoid_bone)b0),
                         sk_humanoid_bone_name((sk_humanoid_bone)b1), vec_angle(d, want) / DEG);
            checked++;
        }
        /* unmapped joints keep their rotations; every translation and scale is kept */
        for (uint32_t j = 0; j < n; j++) {
            bool mapped = false;
            for (int k = 0; k < SK_HUMANOID_BONE_COUNT; k++) mapped |= m.joint[k] == (int32_t)j;
            if (!mapped) assert_memory_equal(&r[j].r, &b[j].r, sizeof(sk_quat));
            assert_memory_equal(&r[j].t, &b[j].t, sizeof(sk_vec3));
            assert_memory_equal(&r[j].s, &b[j].s, sizeof(sk_vec3));
        }
    }
    /* out may be the input */
    sample(f, 0.5, a, b);
    standing_rest(f, 1, 0.5, 1, r, &m);
    assert_int_equal(sk_humanoid_pose_like(s, &m, SK_POSE_OF(s, b, NULL), 1, t, NULL, &f->mmap, NULL, SK_POSE_OF(s, b, NULL), NULL),
                     SK_OK);
    assert_memory_equal(b, r, n * sizeof *r);
    printf("pose: %d bone directions against the mannequin's rest\n", checked);
    assert_int_equal(checked, 8 * 11);
    free(a), free(b), free(r), free(R), free(Rt), free(P), free(Pt);
}

/* ---- 6. The copy as a .bvh file --------------------------------------------
 * 2.4 s of the copy at 30 frames per second written with sk_bvh_write_memory and
 * read back: the file's rest does not stand and its frames put every joint where
 * the capture's are (within 1 mm). With SK_WRITE_ORIENTS=PATH the file is also
 * written there: tests/data/retarget/02_02_orients.bvh was made so (in the
 * capture's units: metres / 0.056444). */
static void test_bvh_copy(void **state) {
    fixture *f = *state;
    const sk_skeleton *s = f->cap->skeleton, *c = f->cp.skel;
    uint32_t n = s->joint_count, frames = 72; /* 2.4 s: the capture is 2.48 s long */
    float *times = malloc(frames * sizeof *times), *rot = malloc((size_t)frames * n * 4 * sizeof *rot),
          *pos = malloc((size_t)frames * 3 * sizeof *pos);
    sk_transform *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    for (uint32_t k = 0; k < frames; k++) {
        times[k] = (float)k / 30.0f;
        sample(f, times[k], a, b);
        for (uint32_t j = 0; j < n; j++) memcpy(rot + ((size_t)j * frames + k) * 4, &b[j].r, 4 * sizeof(float));
        memcpy(pos + (size_t)k * 3, &b[0].t, 3 * sizeof(float));
    }
    sk_clip_builder *cb = NULL;
    assert_int_equal(sk_clip_builder_create("02_02_orients", NULL, &cb, NULL), SK_OK);
    sk_track_desc td = {0, SK_PATH_TRANSLATION, SK_INTERP_LINEAR, frames, times, pos, 0};
    assert_int_equal(sk_clip_builder_add_track(cb, &td, NULL), SK_OK);
    for (uint32_t j = 0; j < n; j++) {
        sk_track_desc tr = {j, SK_PATH_ROTATION, SK_INTERP_LINEAR, frames, times, rot + (size_t)j * frames * 4, 0};
        assert_int_equal(sk_clip_builder_add_track(cb, &tr, NULL), SK_OK);
    }
    sk_clip *clip = NULL;
    assert_int_equal(sk_clip_builder_finish(cb, &clip, NULL), SK_OK);
    sk_bvh_write_options wo;
    memset(&wo, 0, sizeof wo);
    wo.scale = 1.0 / CMU_SCALE, wo.frame_time = 1.0 / 30.0;
    char *text = NULL;
    size_t size = 0;
    sk_error err;
    if (sk_bvh_write_memory(c, clip, &wo, NULL, &text, &size, &err) != SK_OK) fail_msg("%s", err.message);
    const char *path = getenv("SK_WRITE_ORIENTS");
    if (path) {
        FILE *o = fopen(path, "wb");
        assert_non_null(o);
        assert_int_equal(fwrite(text, 1, size, o), size);
        fclose(o);
    }
    sk_bvh_options bo;
    memset(&bo, 0, sizeof bo);
    bo.scale = CMU_SCALE;
    sk_asset *back = NULL;
    if (sk_bvh_load_memory(text, size, "02_02_orients.bvh", &bo, &back, &err) != SK_OK) fail_msg("%s", err.message);
    sk_free(NULL, text, size);
    const sk_skeleton *bs = back->skeleton;
    assert_int_equal(bs->joint_count, n + 0u * 0u + (bs->joint_count - n)); /* end sites may be added */
    sk_humanoid_map bm;
    assert_int_equal(sk_humanoid_map_find(bs, NULL, &bm, NULL), SK_OK);
    assert_false(sk_humanoid_pose_stands(bs, NULL, &bm));
    sk_transform *d = malloc(bs->joint_count * sizeof *d);
    sk_quat *R = malloc(bs->joint_count * sizeof *R), *Rc = malloc(n * sizeof *Rc);
    sk_vec3 *P = malloc(bs->joint_count * sizeof *P), *Pc = malloc(n * sizeof *Pc);
    double worst = 0;
    int checked = 0;
    for (uint32_t k = 0; k < frames; k += 7) {
        sample(f, times[k], a, NULL);
        assert_int_equal(sk_clip_sample(back->clips[0], bs, times[k], SK_LOOP_CLAMP, SK_POSE_OF(bs, d, NULL), NULL), SK_OK);
        model_of(s, a, Rc, Pc), model_of(bs, d, R, P);
        for (uint32_t j = 0; j < n; j++) {
            int32_t bj = sk_skeleton_find(bs, s->names[j]);
            assert_true(bj >= 0);
            worst = fmax(worst, sk_vec3_length(sk_vec3_sub(P[bj], Pc[j])));
            checked++;
        }
    }
    printf("bvh copy: %d joint positions, worst %.2g m from the capture's\n", checked, worst);
    assert_true(worst < 1e-3);
    assert_int_equal(checked, 11 * (int)n);
    sk_asset_destroy(back);
    sk_clip_destroy(clip);
    free(times), free(rot), free(pos), free(a), free(b), free(d), free(R), free(Rc), free(P), free(Pc);
}

/* ---- 5. Bad input ---------------------------------------------------------- */
static size_t fail_after;
static void *c_alloc(void *u, size_t n) {
    (void)u;
    if (fail_after == 0) return NULL;
    fail_after--;
    return malloc(n);
}
static void c_free(void *u, void *p, size_t n) { (void)u, (void)n, free(p); }

static void test_bad(void **state) {
    fixture *f = *state;
    const sk_skeleton *s = f->cp.skel, *t = f->mq->skeleton;
    uint32_t n = s->joint_count;
    sk_transform *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *r = malloc(n * sizeof *r);
    sk_humanoid_map m;
    sample(f, 0.0, a, b);
    assert_int_equal(sk_humanoid_map_find(s, SK_POSE_OF(s, b, NULL), &m, NULL), SK_OK);
    sk_error err;
    sk_pose *pb = SK_POSE_OF(s, b, NULL), *pr = SK_POSE_OF(s, r, NULL);
    int cases = 0;
#define BAD(code, call, text)                                                                                          \
    do {                                                                                                               \
        memset(&err, 0, sizeof err);                                                                                   \
        assert_int_equal((call), code);                                                                                \
        if (!strstr(err.message, text)) fail_msg("'%s' lacks '%s'", err.message, text);                               \
        cases++;                                                                                                       \
    } while (0)
    BAD(SK_ERR_INVALID_ARGUMENT, sk_humanoid_pose_like(NULL, &m, pb, 1, t, NULL, &f->mmap, NULL, pr, &err), "NULL");
    BAD(SK_ERR_INVALID_ARGUMENT, sk_humanoid_pose_like(s, &m, pb, 1, t, NULL, NULL, NULL, pr, &err), "NULL");
    BAD(SK_ERR_INVALID_ARGUMENT, sk_humanoid_pose_like(s, &m, SK_POSE_OF(t, t->rest, NULL), 1, t, NULL, &f->mmap, NULL, pr, &err),
        "pose");
    BAD(SK_ERR_INVALID_ARGUMENT, sk_humanoid_pose_like(s, &m, pb, 1, t, pb, &f->mmap, NULL, pr, &err), "like_rest");
    BAD(SK_ERR_INVALID_ARGUMENT, sk_humanoid_pose_like(s, &f->mmap, pb, 1, t, NULL, &f->mmap, NULL, pr, &err), "map");
    BAD(SK_ERR_INVALID_ARGUMENT, sk_humanoid_pose_like(s, &m, pb, 1, t, NULL, &m, NULL, pr, &err), "like_map");
    BAD(SK_ERR_INVALID_ARGUMENT, sk_humanoid_pose_like(s, &m, pb, 0, t, NULL, &f->mmap, NULL, pr, &err), "pose_count");
    BAD(SK_ERR_INVALID_ARGUMENT, sk_humanoid_pose_like(s, &m, pb, SK_HUMANOID_POSE_LIKE_MAX + 1, t, NULL, &f->mmap, NULL, pr, &err),
        "pose_count");
    b[3].r.x = NAN;
    BAD(SK_ERR_INVALID_ARGUMENT, sk_humanoid_pose_like(s, &m, pb, 1, t, NULL, &f->mmap, NULL, pr, &err), "non-finite");
    /* every joint at one point: no hips frame */
    for (uint32_t j = 0; j < n; j++) b[j] = sk_transform_identity();
    BAD(SK_ERR_INVALID_DATA, sk_humanoid_pose_like(s, &m, pb, 1, t, NULL, &f->mmap, NULL, pr, &err), "hips frame");
    /* huge values: a defined result or an error, never NaN out */
    sample(f, 0.0, a, b);
    for (uint32_t j = 0; j < n; j++) b[j].t = sk_vec3_scale(b[j].t, 1e30f);
    sk_result rr = sk_humanoid_pose_like(s, &m, pb, 1, t, NULL, &f->mmap, NULL, pr, &err);
    if (rr == SK_OK)
        for (uint32_t j = 0; j < n; j++) assert_true(isfinite(r[j].r.x) && isfinite(r[j].r.y) && isfinite(r[j].r.z) && isfinite(r[j].r.w));
    cases++;
    /* allocation failure */
    sample(f, 0.0, a, b);
    fail_after = 0;
    sk_allocator al = {c_alloc, NULL, c_free, NULL};
    BAD(SK_ERR_OUT_OF_MEMORY, sk_humanoid_pose_like(s, &m, pb, 1, t, NULL, &f->mmap, &al, pr, &err), "out of memory");
    fail_after = 1;
    assert_int_equal(sk_humanoid_pose_like(s, &m, pb, 1, t, NULL, &f->mmap, &al, pr, &err), SK_OK);
#undef BAD
    printf("bad input: %d cases\n", cases);
    assert_int_equal(cases, 12);
    free(a), free(b), free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stands),
        cmocka_unit_test(test_retarget),
        cmocka_unit_test(test_pose),
        cmocka_unit_test(test_bvh_copy),
        cmocka_unit_test(test_bad),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, setup, teardown));
}
