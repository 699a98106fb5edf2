/* sk_motion_cycle_facing (locomotion/analysis.h): the way a clip's body
 * faces and travels, and the capture it was written for.
 *
 * References written here:
 *   - the mannequin's clips are authored facing +Z, walking forward,
 *     backward and sideways: their facing is 0 whatever the direction;
 *   - a clip turned by a known yaw (sk_clip_turn, checked against a rotation
 *     matrix in test_mirror.c) faces and travels that much further round,
 *     and the legs' order does not change the answer;
 *   - the CMU walk 03_04 (tests/data/cmu-walks: a subject walking to and fro
 *     over uneven ground, 20 s): over stretches where the hips go straight,
 *     the facing agrees with the way the hips travel (this file's own
 *     measure: the hips' displacement, within 30 degrees), and the stretches
 *     out and back face about 180 degrees apart;
 *   - 03_04 retargeted onto the mannequin and onto CesiumMan: its best
 *     cycle is one stride of each foot (this file's count of planted runs)
 *     and walks towards -Z
 *     (the subject coming back), so the analysis saw a backward walk; turned
 *     by the rule of the header, it analyses as a forward walk along +Z at
 *     the same speed with the same keytimes (the locomote --from pipeline);
 *   - the locomotor on a clip turned at a root above the body (CesiumMan's
 *     Z-up root): its feet hold as the unturned clip's do;
 *   - bad input. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMU_SCALE 0.056444
#define DEG 57.29577951308232 /* degrees per radian */

static double wrap_deg(double a) { return a - 360.0 * floor((a + 180.0) / 360.0); }

static void facing(const sk_skeleton *s, const sk_clip *c, const sk_leg_desc *legs, double t0, double t1, float *yaw,
                   float *travel, float *spread) {
    sk_error err = {0};
    if (sk_motion_cycle_facing(s, c, legs, 2, t0, t1, NULL, yaw, travel, spread, &err) != SK_OK)
        fail_msg("%s", err.message);
}

static void find_legs(const sk_skeleton *s, sk_leg_desc legs[2]) {
    assert_int_equal(sk_legs_find(s, legs, 2), 2);
}

static void test_mannequin(void **state) {
    (void)state;
    sk_asset *a = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, NULL), SK_OK);
    sk_leg_desc legs[2];
    find_legs(a->skeleton, legs);
    static const char *const names[] = {"walk", "run", "walk_back", "strafe_left", "strafe_right", "idle"};
    for (int k = 0; k < 6; k++) {
        int32_t i = sk_asset_find_clip(a, names[k]);
        assert_true(i >= 0);
        float yaw, travel, spread;
        facing(a->skeleton, a->clips[i], legs, 0, 0, &yaw, &travel, &spread);
        printf("mannequin %-12s facing %+6.2f deg, spread %.4f\n", names[k], yaw * DEG, (double)spread);
        assert_true(fabs(yaw * DEG) < 3.0);
        assert_true(spread >= 0 && spread < 0.01f);
        /* the legs the other way round: the same */
        sk_leg_desc swapped[2] = {legs[1], legs[0]};
        float y2;
        facing(a->skeleton, a->clips[i], swapped, 0, 0, &y2, NULL, NULL);
        assert_true(fabs(wrap_deg((y2 - yaw) * DEG)) < 1e-3);
        /* turned: that much further round */
        static const float turns[] = {1.1f, -2.9f, 3.1f};
        for (int t = 0; t < 3; t++) {
            sk_clip *turned = NULL;
            assert_int_equal(sk_clip_turn(a->clips[i], a->skeleton, turns[t], NULL, &turned, NULL), SK_OK);
            float yt, tt;
            facing(a->skeleton, turned, legs, 0, 0, &yt, &tt, NULL);
            assert_true(fabs(wrap_deg((yt - yaw - turns[t]) * DEG)) < 0.01);
            sk_clip_destroy(turned);
        }
    }
    sk_asset_destroy(a);
}

/* The hips' midpoint at t (this file's measure of travel). */
static sk_vec3 hips_at(const sk_skeleton *s, const sk_clip *c, const sk_leg_desc *legs, double t) {
    sk_transform *local = calloc(s->joint_count, sizeof *local);
    sk_mat4 *model = calloc(s->joint_count, sizeof *model);
    assert_true(local && model);
    assert_int_equal(sk_clip_sample(c, s, t, SK_LOOP_CLAMP, SK_POSE_OF(s, local, NULL), NULL), SK_OK);
    assert_int_equal(sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, model, s->joint_count, NULL), SK_OK);
    const float *a = &model[legs[0].hip].m[12], *b = &model[legs[1].hip].m[12];
    sk_vec3 m = sk_vec3_make(0.5f * (a[0] + b[0]), 0.5f * (a[1] + b[1]), 0.5f * (a[2] + b[2]));
    free(local);
    free(model);
    return m;
}

/* A foot's planted runs over t0..t1 (this file's own detection: the ankle
 * joint moving under 0.6 m/s horizontally, sampled at 60 Hz; a swing moves
 * it at 1.5 to 3 m/s; breaks of up to 0.1 s inside a run, a capture's
 * tremble, are bridged, and a run is at least 0.05 s); *first / *last:
 * planted at t0 / at t1. One gait cycle holds one stance of each foot: one
 * run, or two when the window starts and ends inside the same stance. */
static int planted_runs(const sk_skeleton *s, const sk_clip *c, int32_t ankle, double t0, double t1, bool *first,
                        bool *last) {
    sk_transform *local = calloc(s->joint_count, sizeof *local);
    sk_mat4 *model = calloc(s->joint_count, sizeof *model);
    assert_true(local && model);
    int n = (int)ceil((t1 - t0) * 60.0);
    bool *planted = calloc((size_t)n + 1, sizeof *planted);
    assert_non_null(planted);
    double px = 0, pz = 0, pt = t0;
    *first = *last = false;
    for (int k = 0; k <= n; k++) {
        double t = fmin(t0 + k / 60.0, t1);
        assert_int_equal(sk_clip_sample(c, s, t, SK_LOOP_CLAMP, SK_POSE_OF(s, local, NULL), NULL), SK_OK);
        assert_int_equal(sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, model, s->joint_count, NULL), SK_OK);
        double x = model[ankle].m[12], z = model[ankle].m[14];
        if (k > 0) planted[k] = t - pt > 1e-6 ? hypot(x - px, z - pz) / (t - pt) < 0.6 : planted[k - 1];
        px = x, pz = z, pt = t;
    }
    planted[0] = planted[n > 0 ? 1 : 0];
    for (int k = 1; k <= n; k++) /* bridge breaks of up to 6 samples */
        if (!planted[k] && planted[k - 1]) {
            int e = k;
            while (e <= n && !planted[e]) e++;
            if (e <= n && e - k <= 6)
                for (int q = k; q < e; q++) planted[q] = true;
        }
    int runs = 0;
    for (int k = 0; k <= n;) {
        if (!planted[k]) { k++; continue; }
        int e = k;
        while (e <= n && planted[e]) e++;
        if (e - k >= 3 || k == 0 || e > n) runs++;
        if (k == 0) *first = true;
        if (e > n) *last = true;
        k = e;
    }
    free(planted);
    free(local);
    free(model);
    return runs;
}

static sk_asset *load_0304(void) {
    char dir[1024];
    sk_test_path(dir, sizeof dir, sk_test_source_dir(), "tests/data/cmu-walks");
    return sk_test_load_bvh(dir, "03_04.bvh", CMU_SCALE);
}

/* One-second windows of 03_04 in which the hips go straight (the
 * displacement over the window at least 0.8 of the path the hips walk,
 * sampled at 10 Hz, and over 0.5 m): the facing within 30 degrees of the
 * displacement; windows facing ways 150-210 degrees apart both occur. */
static void test_capture(void **state) {
    (void)state;
    sk_asset *a = load_0304();
    const sk_skeleton *s = a->skeleton;
    const sk_clip *c = a->clips[0];
    sk_leg_desc legs[2];
    find_legs(s, legs);
    double dur = sk_clip_duration(c);
    uint32_t straight = 0;
    double first = NAN;
    bool opposite = false;
    for (double t0 = 0; t0 + 1.0 <= dur; t0 += 0.25) {
        double path = 0;
        sk_vec3 p0 = hips_at(s, c, legs, t0), prev = p0, p = p0;
        for (int k = 1; k <= 10; k++) {
            p = hips_at(s, c, legs, t0 + 0.1 * k);
            path += hypot(p.x - prev.x, p.z - prev.z);
            prev = p;
        }
        double disp = hypot(p.x - p0.x, p.z - p0.z);
        if (disp < 0.5 || disp < 0.8 * path) continue;
        float yaw, travel;
        facing(s, c, legs, t0, t0 + 1.0, &yaw, &travel, NULL);
        double mine = atan2(p.x - p0.x, p.z - p0.z) * DEG;
        assert_true(fabs(wrap_deg(yaw * DEG - mine)) < 30.0);
        assert_true(fabs(wrap_deg(travel * DEG - mine)) < 1.0); /* the same displacement, measured twice */
        if (isnan(first)) first = yaw * DEG;
        else if (fabs(wrap_deg(yaw * DEG - first)) > 150.0) opposite = true;
        straight++;
    }
    printf("03_04: %u straight one-second windows, facing within 30 deg of the travel; out and back: %s\n", straight,
           opposite ? "yes" : "no");
    assert_true(straight >= 10);
    assert_true(opposite);
    sk_asset_destroy(a);
}

/* The locomote --from pipeline on 03_04 and a character. On the mannequin
 * and on CesiumMan the cycle found is one stride of each foot (planted_runs)
 * and straight (the hips' displacement at least 0.8 of the path they walk,
 * measured here at 10 Hz), and comes back towards -Z; turned by the
 * header's rule it is a forward walk. Before the finder asked for one
 * stride, on CesiumMan's legs it took 5.48 to 8.42 s: several short steps
 * at the end of a turn (window_start/end give it here), travelling about
 * 72 degrees from the way the body faces: turned, it travels along the
 * body's side axis, +X. Either way the turned cycle analyses at the same
 * speed with the same keytimes. */
static void retargeted_on(const char *what, const sk_asset *dst, bool straight, double window_start,
                          double window_end) {
    sk_asset *src = load_0304();
    sk_error err = {0};
    sk_retarget_desc d;
    memset(&d, 0, sizeof d);
    d.source = src->skeleton, d.target = dst->skeleton, d.flags = SK_RETARGET_GROUND_REST;
    sk_retarget *rt = NULL;
    if (sk_retarget_create(&d, NULL, &rt, &err) != SK_OK) fail_msg("%s", err.message);
    sk_clip *baked = NULL, *level = NULL;
    if (sk_retarget_clip(rt, src->clips[0], NULL, NULL, &baked, &err) != SK_OK) fail_msg("%s", err.message);
    const sk_humanoid_map *m = sk_retarget_map(rt, 1);
    const sk_skeleton *s = dst->skeleton;
    sk_leg_desc legs[2];
    assert_int_equal(sk_legs_from_humanoid(m, legs, 2), 2);
    sk_retarget_destroy(rt);
    if (sk_foot_level(s, baked, legs, 2, NULL, NULL, &level, NULL, &err) != SK_OK) fail_msg("%s", err.message);
    sk_motion_analysis_options ao;
    memset(&ao, 0, sizeof ao);
    ao.still_band = SK_STILL_BAND_RETARGETED;
    if (window_end > window_start)
        ao.cycle_start = window_start, ao.cycle_end = window_end;
    else if (sk_motion_find_cycle(s, level, legs, 2, 0, NULL, &ao.cycle_start, &ao.cycle_end, &err) != SK_OK)
        fail_msg("%s", err.message);
    for (int l = 0; l < 2; l++) {
        bool first, last;
        int runs = planted_runs(s, level, legs[l].ankle, ao.cycle_start, ao.cycle_end, &first, &last);
        printf("03_04 on %s, %.3f..%.3f s: leg %d planted %d time(s)%s\n", what, ao.cycle_start, ao.cycle_end, l, runs,
               first && last ? " (at both ends)" : "");
        bool one = runs == 1 || (runs == 2 && first && last);
        assert_true(window_end > window_start ? !one : one); /* the old window: more than one stride */
    }
    sk_motion_analysis *an = NULL, *an2 = NULL;
    if (sk_motion_analyze(s, level, legs, 2, &ao, NULL, &an, &err) != SK_OK) fail_msg("%s", err.message);
    float yaw, travel, spread;
    facing(s, level, legs, ao.cycle_start, ao.cycle_end, &yaw, &travel, &spread);
    double path = 0;
    sk_vec3 p0 = hips_at(s, level, legs, ao.cycle_start), prev = p0, p = p0;
    for (double t = ao.cycle_start + 0.1; t < ao.cycle_end + 0.05; t += 0.1) {
        p = hips_at(s, level, legs, fmin(t, ao.cycle_end));
        path += hypot(p.x - prev.x, p.z - prev.z);
        prev = p;
    }
    double disp = hypot(p.x - p0.x, p.z - p0.z);
    double dir = atan2(an->cycle_direction.x, an->cycle_direction.z) * DEG;
    printf("03_04 on %s: cycle %.3f..%.3f s, hips %.2f m straight of %.2f walked, heading spread %.4f; analysed "
           "direction %+.1f deg, facing %+.1f, hips' travel %+.1f\n",
           what, ao.cycle_start, ao.cycle_end, disp, path, (double)spread, dir, yaw * DEG, travel * DEG);
    if (straight) {
        assert_true(disp >= 0.8 * path);
        /* the subject comes back in this cycle: a "backward" walk in model space, and facing the way it goes */
        assert_true(fabs(wrap_deg(dir)) > 135.0);
        assert_true(fabs(wrap_deg(yaw * DEG - dir)) < 30.0);
    }
    /* the header's rule: onto the nearest of the body's axes, by the analysed direction */
    double k = round(wrap_deg(dir - yaw * DEG) / 90.0);
    float turn = (float)(wrap_deg(k * 90.0 - dir) / DEG);
    sk_clip *turned = NULL;
    assert_int_equal(sk_clip_turn(level, s, turn, NULL, &turned, NULL), SK_OK);
    if (sk_motion_analyze(s, turned, legs, 2, &ao, NULL, &an2, &err) != SK_OK) fail_msg("%s", err.message);
    printf("turned %+.1f deg: direction (%.4f, %.4f), speed %.4f -> %.4f m/s\n", turn * DEG, an2->cycle_direction.x,
           an2->cycle_direction.z, an->cycle_speed, an2->cycle_speed);
    /* along the body's nearest axis, which faces +Z: forward (straight) or to its left (+X) */
    assert_true(straight ? an2->cycle_direction.z > 0.999f : an2->cycle_direction.x > 0.999f);
    assert_true(fabsf(an2->cycle_speed - an->cycle_speed) < 0.01f * an->cycle_speed);
    for (int l = 0; l < 2; l++) {
        const sk_leg_analysis *a = &an->legs[l], *q = &an2->legs[l];
        float dk[4] = {a->foot_land - q->foot_land, a->foot_lift - q->foot_lift, a->stance_time - q->stance_time,
                       a->foot_strike - q->foot_strike};
        for (int i = 0; i < 4; i++) assert_true(fabsf(dk[i] - roundf(dk[i])) < 0.01f);
    }
    sk_motion_analysis_destroy(an);
    sk_motion_analysis_destroy(an2);
    sk_clip_destroy(turned);
    sk_clip_destroy(level);
    sk_clip_destroy(baked);
    sk_asset_destroy(src);
}

static void test_retargeted(void **state) {
    (void)state;
    sk_asset *dst = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &dst, NULL), SK_OK);
    retargeted_on("the mannequin", dst, true, 0, 0);
    sk_asset_destroy(dst);
    char path[1024];
    sk_test_path(path, sizeof path, sk_test_require_shared(), "assets/gltf/CesiumMan/CesiumMan.glb");
    sk_error err = {0};
    if (sk_gltf_load_file(path, NULL, &dst, &err) != SK_OK) fail_msg("%s", err.message);
    retargeted_on("CesiumMan", dst, true, 0, 0);
    retargeted_on("CesiumMan", dst, false, 5.0 + 29.0 / 60.0, 8.0 + 25.0 / 60.0);
    sk_asset_destroy(dst);
}

/* The locomotor on a clip that animates a joint above its body: the
 * mannequin's walk retargeted onto CesiumMan (whose hips hang under a Z-up
 * root and an armature node), then turned by 180 degrees (sk_clip_turn keys
 * the Z-up root). Driven facing back along +Z (so the walk, which now goes
 * towards -Z, is the clip the blend space needs), the planted feet hold
 * (slide measured here from the locomotor's heel and toe) and the hips stay
 * over the feet, as the unturned walk does driven facing forward. The root
 * motion the locomotor takes out of each pose is turned by the body's
 * parent as the clip poses it; taken at rest, it went the wrong way. */
static double drive_slide(sk_locomotor *L, const sk_skeleton *s, int32_t hips, float face, double *hips_off) {
    sk_error err = {0};
    const float pts[4] = {0, 0, 0, 8};
    sk_path_follower pf;
    sk_path_follower_desc pd = {pts, 2, 1.0f, 0, 0, 0, NAN, false};
    assert_int_equal(sk_path_follower_init(&pf, &pd, &err), SK_OK);
    assert_int_equal(sk_locomotor_reset(L, pf.x, pf.z, pf.yaw + face, &err), SK_OK);
    sk_transform *local = calloc(s->joint_count, sizeof *local);
    sk_mat4 *model = calloc(s->joint_count, sizeof *model);
    assert_true(local && model);
    sk_pose pose = sk_pose_view(local, s->joint_count, NULL, 0);
    double slide = 0, off = 0;
    bool in_run[2] = {false, false};
    sk_vec3 start[2];
    uint32_t runs = 0;
    for (uint32_t f = 0; f < 60 * 12 && !pf.finished; f++) {
        sk_path_follower_step(&pf, 1.0 / 60);
        if (sk_locomotor_update(L, 1.0 / 60, pf.x, pf.z, pf.yaw + face, &pose, &err) != SK_OK) fail_msg("%s", err.message);
        const sk_locomotor_state *st = sk_locomotor_get_state(L);
        for (int l = 0; l < 2; l++) {
            const sk_locomotor_foot *ft = &st->feet[l];
            sk_vec3 mid = sk_vec3_scale(sk_vec3_add(ft->heel, ft->toe), 0.5f);
            if (ft->stance) {
                if (!in_run[l]) in_run[l] = true, start[l] = mid, runs++;
                slide = fmax(slide, hypot(mid.x - start[l].x, mid.z - start[l].z));
            } else {
                in_run[l] = false;
            }
        }
        assert_int_equal(sk_local_to_model(s, &pose, &st->root, model, s->joint_count, NULL), SK_OK);
        sk_vec3 fm = sk_vec3_scale(sk_vec3_add(sk_vec3_add(st->feet[0].heel, st->feet[0].toe),
                                               sk_vec3_add(st->feet[1].heel, st->feet[1].toe)), 0.25f);
        off = fmax(off, hypot(model[hips].m[12] - fm.x, model[hips].m[14] - fm.z));
    }
    free(local);
    free(model);
    assert_true(runs >= 6);
    *hips_off = off;
    return slide;
}

static void test_locomotor_turned_root(void **state) {
    (void)state;
    char path[1024];
    sk_test_path(path, sizeof path, sk_test_require_shared(), "assets/gltf/CesiumMan/CesiumMan.glb");
    sk_asset *cm = NULL, *mq = NULL;
    sk_error err = {0};
    if (sk_gltf_load_file(path, NULL, &cm, &err) != SK_OK) fail_msg("%s", err.message);
    assert_int_equal(sk_mannequin_create(NULL, NULL, &mq, NULL), SK_OK);
    const sk_skeleton *s = cm->skeleton;
    sk_retarget_desc d;
    memset(&d, 0, sizeof d);
    d.source = mq->skeleton, d.target = s, d.flags = SK_RETARGET_GROUND_REST;
    sk_retarget *rt = NULL;
    if (sk_retarget_create(&d, NULL, &rt, &err) != SK_OK) fail_msg("%s", err.message);
    sk_clip *walk = NULL, *turned = NULL;
    if (sk_retarget_clip(rt, mq->clips[sk_asset_find_clip(mq, "walk")], NULL, NULL, &walk, &err) != SK_OK)
        fail_msg("%s", err.message);
    const sk_humanoid_map *m = sk_retarget_map(rt, 1);
    sk_leg_desc legs[2];
    assert_int_equal(sk_legs_from_humanoid(m, legs, 2), 2);
    int32_t hips = m->joint[SK_HUMANOID_HIPS];
    sk_retarget_destroy(rt);
    assert_true(s->parents[hips] >= 0); /* joints above the body */
    assert_int_equal(sk_clip_turn(walk, s, 3.14159265f, NULL, &turned, NULL), SK_OK);
    const sk_clip *clips[2] = {walk, turned};
    double slide[2], off[2];
    for (int k = 0; k < 2; k++) {
        sk_motion_analysis *an = NULL;
        if (sk_motion_analyze(s, clips[k], legs, 2, NULL, NULL, &an, &err) != SK_OK) fail_msg("%s", err.message);
        assert_true(k == 0 ? an->cycle_direction.z > 0.99f : an->cycle_direction.z < -0.99f);
        sk_motion_group *g = NULL;
        if (sk_motion_group_create((const sk_motion_analysis *const *)&an, 1, NULL, &g, &err) != SK_OK)
            fail_msg("%s", err.message);
        sk_locomotor_desc ld;
        memset(&ld, 0, sizeof ld);
        ld.skeleton = s, ld.group = g, ld.clips = &clips[k], ld.clip_count = 1, ld.body_joint = -1;
        sk_locomotor *L = NULL;
        if (sk_locomotor_create(&ld, NULL, &L, &err) != SK_OK) fail_msg("%s", err.message);
        slide[k] = drive_slide(L, s, hips, k ? 3.14159265f : 0.0f, &off[k]);
        printf("CesiumMan, the mannequin's walk%s: slide %.3f cm, hips at most %.3f m from the feet's middle\n",
               k ? " turned 180 deg at the Z-up root, walked facing back" : "", 100 * slide[k], off[k]);
        sk_locomotor_destroy(L);
        sk_motion_group_destroy(g);
        sk_motion_analysis_destroy(an);
    }
    assert_true(slide[0] < 0.005 && slide[1] < 0.005);
    assert_true(off[1] < off[0] + 0.05);
    sk_clip_destroy(walk);
    sk_clip_destroy(turned);
    sk_asset_destroy(cm);
    sk_asset_destroy(mq);
}

static void *no_alloc(void *user, size_t size) {
    (void)user, (void)size;
    return NULL;
}
static void *no_realloc(void *user, void *p, size_t old_size, size_t size) {
    (void)user, (void)p, (void)old_size, (void)size;
    return NULL;
}

static void test_bad_input(void **state) {
    (void)state;
    sk_asset *a = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, NULL), SK_OK);
    const sk_skeleton *s = a->skeleton;
    const sk_clip *w = a->clips[sk_asset_find_clip(a, "walk")];
    sk_leg_desc legs[2];
    find_legs(s, legs);
    float yaw = 1, travel = 1, spread = 1;
    sk_error err = {0};
    assert_int_equal(sk_motion_cycle_facing(NULL, w, legs, 2, 0, 0, NULL, &yaw, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_motion_cycle_facing(s, NULL, legs, 2, 0, 0, NULL, &yaw, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_motion_cycle_facing(s, w, NULL, 2, 0, 0, NULL, &yaw, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_motion_cycle_facing(s, w, legs, 2, 0, 0, NULL, NULL, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_motion_cycle_facing(s, w, legs, 1, 0, 0, NULL, &yaw, &travel, &spread, &err),
                     SK_ERR_INVALID_ARGUMENT);
    printf("%s\n", err.message);
    assert_true(yaw == 0 && travel == 0 && spread == 0);
    assert_int_equal(sk_motion_cycle_facing(s, w, legs, 2, NAN, 1, NULL, &yaw, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_motion_cycle_facing(s, w, legs, 2, 0, INFINITY, NULL, &yaw, NULL, NULL, &err),
                     SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_motion_cycle_facing(s, w, legs, 2, -1, 0.5, NULL, &yaw, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_motion_cycle_facing(s, w, legs, 2, 0.5, 100, NULL, &yaw, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    printf("%s\n", err.message);
    sk_leg_desc bad[2] = {legs[0], legs[1]};
    bad[1].hip = 100000;
    assert_int_equal(sk_motion_cycle_facing(s, w, bad, 2, 0, 0, NULL, &yaw, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    /* both legs the same: no line between the hips */
    sk_leg_desc same[2] = {legs[0], legs[0]};
    assert_int_equal(sk_motion_cycle_facing(s, w, same, 2, 0, 0, NULL, &yaw, NULL, NULL, &err), SK_ERR_INVALID_DATA);
    printf("%s\n", err.message);
    /* its scratch from the allocator given, freed; none to be had: an error */
    sk_test_peak peak = {0, 0, 0};
    sk_allocator al = {sk_test_peak_alloc, sk_test_peak_realloc, sk_test_peak_free, &peak};
    assert_int_equal(sk_motion_cycle_facing(s, w, legs, 2, 0, 0, &al, &yaw, NULL, NULL, &err), SK_OK);
    assert_true(peak.peak > 0);
    assert_int_equal(peak.live, 0);
    sk_allocator empty = {no_alloc, no_realloc, sk_test_peak_free, &peak};
    assert_int_equal(sk_motion_cycle_facing(s, w, legs, 2, 0, 0, &empty, &yaw, NULL, NULL, &err), SK_ERR_OUT_OF_MEMORY);
    sk_asset_destroy(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mannequin),
        cmocka_unit_test(test_capture),
        cmocka_unit_test(test_retargeted),
        cmocka_unit_test(test_locomotor_turned_root),
        cmocka_unit_test(test_bad_input),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
