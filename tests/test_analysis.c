/* Motion analysis (locomotion/analysis, seed 002 ch. 3) and its JSON.
 *
 * Expected values come from the mannequin's construction (src/content/
 * mannequin.c): mq_walk / mq_run give period (32/30 s, 21/30 s), speed (1.4,
 * 3.5 m/s), duty (ground contact 0.58, 0.32 of the cycle) and flat (flat
 * foot, ankle pinned, 0.33, 0.16); gait_foot plants the left foot at cycle
 * phase 0 and the right at 0.5: the foot is set down (strike = land) at its
 * phase 0, the heel rises at phase `flat` (heel-off, the toe roll begins),
 * the toes leave at phase `duty` (toe-off = foot-off); the hips advance at
 * `speed` along +Z. The clip holds those poses at keys every 1/30 s (LINEAR
 * between them), so an event between two keys is only known to the clip
 * within one key interval: sampled at the key rate, every keytime must be
 * within one sample; at the default 4 samples per key, within one key
 * interval plus one sample. */
#include "support.h"

#include "skelanim/io/analysis_json.h"
#include "skelanim/locomotion/analysis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct gait {
    const char *clip;
    double period, speed, duty, flat;
    uint32_t frames; /* key intervals per cycle (30 Hz) */
    bool run;
} gait;

static const gait walk = {"walk", 32.0 / 30.0, 1.4, 0.58, 0.33, 32, false};
static const gait run = {"run", 21.0 / 30.0, 3.5, 0.32, 0.16, 21, true};

/* Signed cyclic difference a - b in (-0.5, 0.5]. */
static double cdiff(double a, double b) {
    double d = a - b;
    d -= floor(d + 0.5);
    return d;
}

static double angle_deg(sk_vec3 a, sk_vec3 b) {
    double c = sk_vec3_dot(a, b) / (sk_vec3_length(a) * sk_vec3_length(b));
    if (c > 1) c = 1;
    if (c < -1) c = -1;
    return acos(c) * 180.0 / 3.14159265358979323846;
}

static sk_asset *mannequin(void) {
    sk_asset *a = NULL;
    sk_error err = {0};
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, &err), SK_OK);
    return a;
}

/* When set, analyze() takes the heel and toe points from the mesh's sole. */
static bool g_mesh_points;

static sk_motion_analysis *analyze(const sk_asset *a, const char *clip, uint32_t samples, bool backward) {
    sk_leg_desc legs[4];
    uint32_t n = sk_legs_find(a->skeleton, legs, 4);
    assert_int_equal(n, 2);
    if (g_mesh_points) {
        sk_leg_points_source src[2];
        assert_int_equal(sk_leg_points_from_mesh(a, legs, n, NULL, src, NULL), SK_OK);
        assert_int_equal(src[0], SK_LEG_POINTS_MESH);
        assert_int_equal(src[1], SK_LEG_POINTS_MESH);
    }
    int32_t ci = sk_asset_find_clip(a, clip);
    assert_true(ci >= 0);
    sk_motion_analysis_options o = {0};
    o.sample_count = samples;
    o.backward = backward;
    sk_motion_analysis *an = NULL;
    sk_error err = {0};
    sk_result r = sk_motion_analyze(a->skeleton, a->clips[ci], legs, n, &o, NULL, &an, &err);
    if (r != SK_OK) fail_msg("%s: %s", clip, err.message);
    return an;
}

#define CHECK_KEY(what, got, want, tol)                                                                         \
    do {                                                                                                        \
        double d_ = cdiff((got), (want));                                                                       \
        printf("    %-12s %-6s %.4f  expected %.4f  (%+.2f samples)\n", what, L->name, (double)(got),          \
               (double)(want), d_ * an->sample_count);                                                          \
        if (fabs(d_) > (tol)) fail_msg("%s %s: %.4f, expected %.4f within %.4f", L->name, what, (double)(got), \
                                       (double)(want), (double)(tol));                                          \
    } while (0)

static void check_gait(const gait *g, uint32_t samples) {
    sk_asset *a = mannequin();
    sk_motion_analysis *an = analyze(a, g->clip, samples, false);
    uint32_t N = an->sample_count;
    if (samples) assert_int_equal(N, samples);
    else assert_int_equal(N, 4 * g->frames); /* default: 4 x the key rate */
    double sample = 1.0 / N, key = 1.0 / g->frames;
    /* At the key rate one sample is one key interval. */
    double tol = (samples == g->frames ? sample : key + sample) + 1e-5;
    printf("  %s, %u samples: cycle %.4f s, %.4f m/cycle, %.4f m/s (expected %.4f), direction (%.4f, %.4f, %.4f)\n",
           g->clip, N, an->cycle_duration, an->cycle_velocity, an->cycle_speed, g->speed, an->cycle_direction.x,
           an->cycle_direction.y, an->cycle_direction.z);
    assert_true(fabs(an->cycle_duration - g->period) < 1e-6);
    assert_true(fabs(an->cycle_speed - g->speed) < 0.01 * g->speed);
    assert_true(fabs(an->cycle_velocity - g->speed * g->period) < 0.01 * g->speed * g->period);
    assert_true(fabs(an->cycle_distance - an->cycle_velocity) < 1e-6);
    assert_true(angle_deg(an->cycle_direction, sk_vec3_make(0, 0, 1)) < 2.0);
    assert_true(fabs(sk_vec3_length(an->root_velocity) - g->speed) < 1e-3 * g->speed);
    assert_int_equal(an->leg_count, 2);
    for (uint32_t l = 0; l < 2; l++) {
        const sk_leg_analysis *L = &an->legs[l];
        double ph = l ? 0.5 : 0.0; /* the right foot is half a cycle later */
        assert_string_equal(L->name, l ? "right" : "left");
        CHECK_KEY("foot-strike", L->foot_strike, ph, tol);
        CHECK_KEY("foot-land", L->foot_land, ph, tol);
        CHECK_KEY("heel-off", L->heel_off, ph + g->flat, tol);
        CHECK_KEY("foot-lift", L->foot_lift, ph + g->flat, tol);
        CHECK_KEY("toe-off", L->toe_off, ph + g->duty, tol);
        CHECK_KEY("foot-off", L->foot_off, ph + g->duty, tol);
        /* The pre/post times with no minimum roll equal strike / off. */
        assert_true(fabs(cdiff(L->post_foot_lift, L->foot_off)) < 1e-6);
        assert_true(fabs(cdiff(L->pre_foot_land, L->foot_strike)) < 1e-6);
        /* Stance time inside the contact, stance fraction = duty. */
        assert_true(cdiff(L->stance_time, L->foot_land) >= -1e-6);
        assert_true(cdiff(L->foot_lift, L->stance_time) >= -1e-6);
        printf("    stance %.4f, on the ground %.4f (duty %.2f), stride %.4f m/cycle, dir %.2f deg off +Z\n",
               L->stance_time, L->stance_fraction, g->duty, L->stride_velocity,
               angle_deg(L->stride_direction, sk_vec3_make(0, 0, 1)));
        assert_true(fabs(L->stance_fraction - g->duty) <= 2 * tol);
        assert_true(angle_deg(L->stride_direction, sk_vec3_make(0, 0, 1)) < 2.0);
        assert_true(fabs(L->stride_velocity - g->speed * g->period) < 0.01 * g->speed * g->period);
        assert_true(fabs(L->stride_distance - L->stride_velocity) < 1e-6);
        /* Foot: heel to toe tip along +Z, 0.1-0.3 m for a 1.8 m character. */
        assert_true(L->foot_length > 0.1f && L->foot_length < 0.3f);
        assert_true(angle_deg(L->foot_direction, sk_vec3_make(0, 0, 1)) < 5.0);
        /* Balance in [0, 1]; the normalised footbase is 0 at stance and
         * reaches about 1 (one stride) before the next stance (19)-(22). */
        float zmax = -1;
        for (uint32_t s = 0; s < N; s++) {
            assert_true(L->balance[s] >= 0 && L->balance[s] <= 1);
            zmax = fmaxf(zmax, L->normalized_footbase[s].z);
        }
        assert_true(fabsf(L->normalized_footbase[L->stance_sample].z) < 1e-4f);
        assert_true(fabsf(L->normalized_footbase[L->stance_sample].x) < 1e-4f);
        printf("    normalised footbase: z at stance %.4f, max %.4f\n", L->normalized_footbase[L->stance_sample].z,
               zmax);
        assert_true(zmax > 0.9f && zmax < 1.1f);
        /* On the ground (foot-land .. foot-lift) the footbase stays at the
         * stance reference: within 1 cm of it (the feet slide < 6 mm, README). */
        float zst = 0;
        for (uint32_t s = 0; s < N; s++) {
            double t = (double)s / N;
            if (cdiff(t, L->foot_land) >= 0 && cdiff(L->foot_lift, t) >= 0)
                /* z is 0 after stance and 1 before it (the previous cycle's end) */
                zst = fmaxf(zst, fminf(fabsf(L->normalized_footbase[s].z), fabsf(L->normalized_footbase[s].z - 1)));
        }
        printf("    normalised footbase on the ground: |z| <= %.4f (%.1f mm)\n", zst, zst * L->stride_distance * 1e3);
        assert_true(zst * L->stride_distance < 0.01f);
    }
    const sk_leg_analysis *lf = &an->legs[0], *rt = &an->legs[1];
    if (g->run) {
        /* Flight: the left foot is off before the right strikes, and back. */
        assert_true(cdiff(rt->foot_strike, lf->foot_off) > 0);
        assert_true(cdiff(lf->foot_strike, rt->foot_off) > 0);
    } else {
        /* Double support: the right foot strikes before the left is off. */
        assert_true(cdiff(lf->foot_off, rt->foot_strike) > 0);
        assert_true(cdiff(rt->foot_off, lf->foot_strike) > 0);
    }
    sk_motion_analysis_destroy(an);
    /* The stride over foot-land .. foot-lift gives the same speed here (the
     * mannequin's feet are planted from strike to off). */
    sk_leg_desc legs[2];
    assert_int_equal(sk_legs_find(a->skeleton, legs, 2), 2);
    sk_motion_analysis_options o = {0};
    o.sample_count = samples;
    o.stride_planted = true;
    an = NULL;
    assert_int_equal(sk_motion_analyze(a->skeleton, a->clips[sk_asset_find_clip(a, g->clip)], legs, 2, &o, NULL, &an,
                                       NULL),
                     SK_OK);
    printf("  stride_planted: %.4f m/s\n", an->cycle_speed);
    assert_true(fabs(an->cycle_speed - g->speed) < 0.01 * g->speed);
    sk_motion_analysis_destroy(an);
    sk_asset_destroy(a);
}

static void test_walk_key_rate(void **state) { (void)state; check_gait(&walk, walk.frames); }
static void test_walk_default(void **state) { (void)state; check_gait(&walk, 0); }
static void test_run_key_rate(void **state) { (void)state; check_gait(&run, run.frames); }
static void test_run_default(void **state) { (void)state; check_gait(&run, 0); }
/* The same recoveries with the heel and toe from the mesh's sole. */
static void test_walk_mesh_points(void **state) {
    (void)state;
    g_mesh_points = true;
    check_gait(&walk, 0);
    check_gait(&walk, walk.frames);
    g_mesh_points = false;
}
static void test_run_mesh_points(void **state) {
    (void)state;
    g_mesh_points = true;
    check_gait(&run, 0);
    g_mesh_points = false;
}

/* Heel and toe from the mannequin's capsule feet. The foot capsule (mannequin.c
 * build_parts) runs from z = -0.03 to 0.095 at height 0.045, vertical radius
 * 0.045 at its rear (bottom at y = 0), rear cap 0.04 long; the toe capsule from
 * z = 0.13 to 0.17 at height 0.028, vertical radius 0.028 (bottom y = 0) to
 * 0.025, front cap 0.025 long. The sole is what lies within tol = 1.2% of the
 * leg length (0.43 + 0.42 m) of y = 0: on the rear cap (angle a from its
 * pole, bottom height 0.045 (1 - sin a)) back to sin a = (0.045 - tol) / 0.045,
 * on the toe's front cap (bottom 0.028 - 0.025 sin a) forward to sin a =
 * (0.028 - tol) / 0.025. Heel and toe tip are at y = 0, x = +-0.1. */
static void test_points_from_mesh(void **state) {
    (void)state;
    sk_asset *a = mannequin();
    const sk_skeleton *s = a->skeleton;
    sk_leg_desc legs[2];
    assert_int_equal(sk_legs_find(s, legs, 2), 2);
    sk_leg_points_source src[2];
    sk_error err = {0};
    assert_int_equal(sk_leg_points_from_mesh(a, legs, 2, NULL, src, &err), SK_OK);
    const double tol = 0.012 * 0.85;
    const double heel_z = -0.03 - 0.04 * cos(asin((0.045 - tol) / 0.045));
    const double toe_z = 0.17 + 0.025 * cos(asin((0.028 - tol) / 0.025));
    for (int l = 0; l < 2; l++) {
        assert_int_equal(src[l], SK_LEG_POINTS_MESH);
        assert_true(legs[l].heel_set && legs[l].toe_tip_set);
        sk_mat4 ma, mt;
        sk_vec3 h, t;
        sk_pose rest = {0};
        assert_int_equal(sk_pose_alloc(s, NULL, &rest, NULL), SK_OK);
        assert_int_equal(sk_pose_rest(s, &rest, NULL), SK_OK);
        sk_mat4 *model = calloc(s->joint_count, sizeof *model);
        assert_int_equal(sk_local_to_model(s, &rest, NULL, model, s->joint_count, NULL), SK_OK);
        ma = model[legs[l].ankle];
        mt = model[legs[l].toe];
        h = sk_mat4_transform_point(&ma, legs[l].heel);
        t = sk_mat4_transform_point(&mt, legs[l].toe_tip);
        free(model);
        sk_pose_free(&rest, NULL);
        double x = l == 0 ? 0.1 : -0.1;
        printf("  %s: heel (%.4f, %.4f, %.4f) expected (%.4f, 0, %.4f); toe tip (%.4f, %.4f, %.4f) expected (%.4f, 0, %.4f)\n",
               s->names[legs[l].ankle], h.x, h.y, h.z, x, heel_z, t.x, t.y, t.z, x, toe_z);
        assert_true(fabs(h.x - x) < 0.005 && fabs(h.y) < 0.005 && fabs(h.z - heel_z) < 0.005);
        assert_true(fabs(t.x - x) < 0.005 && fabs(t.y) < 0.005 && fabs(t.z - toe_z) < 0.005);
    }
    /* Manual points are kept; the other one still comes from the mesh. */
    sk_leg_desc m[2];
    assert_int_equal(sk_legs_find(s, m, 2), 2);
    m[0].heel_set = true;
    m[0].heel = sk_vec3_make(0.01f, -0.07f, -0.02f);
    m[1].heel_set = m[1].toe_tip_set = true;
    m[1].heel = sk_vec3_make(0, -0.08f, -0.05f);
    m[1].toe_tip = sk_vec3_make(0, -0.02f, 0.06f);
    assert_int_equal(sk_leg_points_from_mesh(a, m, 2, NULL, src, NULL), SK_OK);
    assert_int_equal(src[0], SK_LEG_POINTS_MESH);
    assert_int_equal(src[1], SK_LEG_POINTS_MANUAL);
    assert_true(m[0].heel.x == 0.01f && m[0].heel.y == -0.07f && m[0].heel.z == -0.02f);
    assert_memory_equal(&m[0].toe_tip, &legs[0].toe_tip, sizeof(sk_vec3));
    assert_true(m[1].heel.z == -0.05f && m[1].toe_tip.z == 0.06f);
    /* No skinned mesh: the skeleton's points. */
    sk_asset bare = *a;
    bare.skin_count = 0;
    bare.mesh_count = 0;
    bare.joint_mesh = NULL;
    bare.joint_skin = NULL;
    sk_leg_desc b[2], d[2];
    assert_int_equal(sk_legs_find(s, b, 2), 2);
    memcpy(d, b, sizeof d);
    assert_int_equal(sk_leg_points_from_mesh(&bare, b, 2, NULL, src, NULL), SK_OK);
    assert_int_equal(src[0], SK_LEG_POINTS_SKELETON);
    assert_int_equal(src[1], SK_LEG_POINTS_SKELETON);
    for (int l = 0; l < 2; l++) {
        assert_int_equal(sk_leg_default_points(s, &d[l], NULL), SK_OK);
        assert_memory_equal(&b[l], &d[l], sizeof d[l]);
    }
    /* Bad input: a joint out of range, a negative sole height. */
    sk_leg_desc bad = legs[0];
    bad.heel_set = false;
    bad.ankle = 999;
    assert_int_equal(sk_leg_points_from_mesh(a, &bad, 1, NULL, NULL, NULL), SK_ERR_INVALID_ARGUMENT);
    sk_leg_points_options po = {-1.0f};
    assert_int_equal(sk_leg_points_from_mesh(a, legs, 2, &po, NULL, NULL), SK_ERR_INVALID_ARGUMENT);
    sk_asset_destroy(a);
}

/* Backward: the reversed walk moves along -Z at the same speed; lift and
 * strike swap (reversed time u = 1 - t). */
/* A leg of other proportions than the capture's can swing its foot lower
 * than the floor it stands on (CMU 08_11 retargeted onto Mixamo's
 * characters: the ankle 5 cm, the ball 7 cm under the stance mid-swing).
 * Built here: the mannequin's walk with each shin lengthened by 40 % over
 * its foot's flight (a translation track on the ankle, sin^2 of the flight's
 * progress, 0 from foot-strike to foot-off), so that mid-swing the ankle
 * passes well under its height in stance (measured here). The stance is the
 * original's: foot-land and foot-lift must stay within 0.02 of the cycle of
 * the walk's own. Before the joints' grounds were taken where they move
 * slowly, their lowest was the swing's and no sample of the stance was
 * within the still band. */
static void test_swing_under_the_floor(void **state) {
    (void)state;
    sk_asset *a = mannequin();
    const sk_skeleton *s = a->skeleton;
    sk_leg_desc legs[2];
    assert_int_equal(sk_legs_find(s, legs, 2), 2);
    const sk_clip *wk = a->clips[sk_asset_find_clip(a, "walk")];
    sk_motion_analysis *an0 = analyze(a, "walk", 0, false);
    double dur = sk_clip_duration(wk);
    sk_clip_builder *b = NULL;
    assert_int_equal(sk_clip_builder_create("low swing", NULL, &b, NULL), SK_OK);
    for (uint32_t i = 0; i < sk_clip_track_count(wk); i++) {
        sk_track_info info;
        assert_true(sk_clip_track_info(wk, i, &info));
        if (info.path == SK_PATH_TRANSLATION && ((int32_t)info.joint == legs[0].ankle || (int32_t)info.joint == legs[1].ankle))
            continue;
        uint32_t per = info.interpolation == SK_INTERP_CUBICSPLINE ? 3 : 1;
        float *kt = calloc(info.key_count, sizeof *kt), *kv = calloc((size_t)info.key_count * per * info.width, 4);
        assert_true(sk_clip_track_keys(wk, i, kt, kv));
        sk_track_desc d = {info.joint, info.path, info.interpolation, info.key_count, kt, kv, info.width};
        assert_int_equal(sk_clip_builder_add_track(b, &d, NULL), SK_OK);
        free(kt);
        free(kv);
    }
    enum { KEYS = 129 };
    for (int l = 0; l < 2; l++) {
        const sk_leg_analysis *L = &an0->legs[l];
        float kt[KEYS], kv[KEYS * 3];
        sk_vec3 rest = s->rest[legs[l].ankle].t;
        double off = L->foot_off, flight = fmod(L->foot_strike - L->foot_off + 1.0, 1.0);
        for (int k = 0; k < KEYS; k++) {
            double u = (double)k / (KEYS - 1), f = fmod(u - off + 1.0, 1.0) / flight;
            double w = (f < 1.0 ? pow(sin(3.14159265358979323846 * f), 2) : 0.0);
            kt[k] = (float)(u * dur);
            kv[3 * k] = rest.x * (float)(1 + 0.4 * w), kv[3 * k + 1] = rest.y * (float)(1 + 0.4 * w),
            kv[3 * k + 2] = rest.z * (float)(1 + 0.4 * w);
        }
        sk_track_desc d = {(uint32_t)legs[l].ankle, SK_PATH_TRANSLATION, SK_INTERP_LINEAR, KEYS, kt, kv, 3};
        assert_int_equal(sk_clip_builder_add_track(b, &d, NULL), SK_OK);
    }
    sk_clip_builder_set_duration(b, dur);
    sk_clip *low = NULL;
    assert_int_equal(sk_clip_builder_finish(b, &low, NULL), SK_OK);
    /* the case: mid-swing the ankle passes under its stance height (the test's own sampling) */
    sk_transform *local = calloc(s->joint_count, sizeof *local);
    sk_mat4 *model = calloc(s->joint_count, sizeof *model);
    for (int l = 0; l < 2; l++) {
        const sk_leg_analysis *L = &an0->legs[l];
        double stance_low = INFINITY, swing_low = INFINITY;
        for (int k = 0; k < 240; k++) {
            double u = k / 240.0;
            assert_int_equal(sk_clip_sample(low, s, u * dur, SK_LOOP_REPEAT, SK_POSE_OF(s, local, NULL), NULL), SK_OK);
            assert_int_equal(sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, model, s->joint_count, NULL), SK_OK);
            double y = model[legs[l].ankle].m[13];
            bool planted = fmod(u - L->foot_land + 1.0, 1.0) <= fmod(L->foot_lift - L->foot_land + 1.0, 1.0);
            if (planted) stance_low = fmin(stance_low, y);
            else swing_low = fmin(swing_low, y);
        }
        printf("  %s ankle: lowest %.3f m in stance, %.3f m in the swing\n", L->name, stance_low, swing_low);
        assert_true(swing_low < stance_low - 0.03);
    }
    free(local);
    free(model);
    sk_motion_analysis *an1 = NULL;
    sk_error err = {0};
    if (sk_motion_analyze(s, low, legs, 2, NULL, NULL, &an1, &err) != SK_OK) fail_msg("%s", err.message);
    for (int l = 0; l < 2; l++) {
        const sk_leg_analysis *L0 = &an0->legs[l], *L1 = &an1->legs[l];
        printf("  %s: foot-land %.3f (walk %.3f), foot-lift %.3f (walk %.3f)\n", L1->name, L1->foot_land, L0->foot_land,
               L1->foot_lift, L0->foot_lift);
        assert_true(fabs(cdiff(L1->foot_land, L0->foot_land)) < 0.02);
        assert_true(fabs(cdiff(L1->foot_lift, L0->foot_lift)) < 0.02);
    }
    sk_motion_analysis_destroy(an1);
    sk_motion_analysis_destroy(an0);
    sk_clip_destroy(low);
    sk_asset_destroy(a);
}

/* A foot that stands flat above the heights its heel reaches at heel-strike
 * and its toe at toe-off, with a swing that skims the floor: what the
 * analysis saw of Bandai Namco's walks retargeted onto CesiumMan and
 * levelled (the planted heel 1.9 cm and the toe 2-3.5 cm above the rolls'
 * lowest, the toe 0.5-1.2 cm above it mid-swing). Built here on a bare leg
 * whose joints are placed by translation keys: the heel a fixed point under
 * the ankle, the toe tip one ahead of and under the ball (the toe joint), so
 * the heel's, the ball's and the toe tip's heights are keyed independently.
 * One cycle of a second, the root moving forward at 1 m/s and a planted
 * foot still in the world: a heel roll over [0, H0) (the heel down at 0,
 * rising PV_RH as the toe comes down), flat and still over [H0, F1) with
 * the heel PV_RH and the toe tip PV_RT above those lowest heights, a toe
 * roll over [F1, F1 + 0.1) (the toe tip down to 0, the heel rising), the
 * swing after it with the toe tip at most PV_SKIM above the floor until its
 * last quarter. With curl the ball stands at its lowest in the flat stance
 * and the toe tip is lifted about it by the toe joint's pitch (as a
 * capture's toes can be). The planted phase (foot-land .. foot-lift) must
 * be the flat stance within 0.05 of the cycle at each end.
 * - H0 0.05, F1 0.6: the rolls are further than a quarter cycle from the
 *   stance. Before the still ankle and ball counted as planted where the
 *   heel and toe are not low (the lower of the two within 30 % of its
 *   greatest height over the cycle: 0.9 cm here, under the flat stance's
 *   1.9 cm), no sample within a quarter cycle of the stance was planted, the
 *   phase was empty and the analysis failed (no stride).
 * - H0 0.1, F1 0.5: the heel roll is within a quarter cycle of the stance
 *   and its low, slow footbase was taken for the planted phase (0.004 ..
 *   0.050) until a phase under a tenth of the cycle was looked for again
 *   with the still ankle and ball first (analysis.c, SHORT_PLANTED). */
#define PV_RH 0.019
#define PV_RT 0.025
#define PV_SKIM 0.008

static double pv_smooth(double x) { return x <= 0 ? 0 : x >= 1 ? 1 : x * x * (3 - 2 * x); }

/* Heights of the heel, the toe tip and the ball, the toe joint's pitch up
 * (rad; the toe tip lifted about the ball when curl) and the ankle's z at
 * cycle time u. */
static void pv_foot(double u, bool curl, double H0, double F1, double *heel, double *toe, double *ball, double *pitch, double *z) {
    const double up = 0.546; /* the pitch that lifts the toe tip PV_RT over the ball's height less 3 cm */
    double e;
    *pitch = 0;
    if (u < H0) { /* heel roll */
        e = pv_smooth(u / H0);
        *heel = PV_RH * e, *toe = 0.08 + (PV_RT - 0.08) * e;
        if (curl) *pitch = up * e;
    } else if (u < F1) {
        *heel = PV_RH, *toe = PV_RT;
        if (curl) *pitch = up;
    } else if (u < F1 + 0.1) { /* toe roll */
        e = pv_smooth((u - F1) / 0.1);
        *heel = PV_RH + (0.12 - PV_RH) * e, *toe = PV_RT * (1 - e);
        if (curl) *pitch = up * (1 - e);
    } else { /* swing */
        double f = (u - F1 - 0.1) / (0.9 - F1);
        *heel = f < 0.5 ? 0.12 + 0.03 * sin(3.14159265358979323846 * f) : 0.15 * (1 - pv_smooth((f - 0.5) / 0.5));
        *toe = f < 0.75 ? PV_SKIM * sin(3.14159265358979323846 * f / 0.75) : 0.08 * pv_smooth((f - 0.75) / 0.25);
    }
    /* the toe tip is 3 cm under the ball and 4 cm ahead in the toe joint's frame */
    *ball = *toe + 0.03 * cos(*pitch) - 0.04 * sin(*pitch);
    double c = F1 + 0.1;
    *z = u < c ? 0.5 * c - u : -0.5 * c + c * pv_smooth((u - c) / (1 - c));
}

static void pv_check(bool curl, double H0, double F1) {
    /* root, then per leg hip, knee, ankle, toe; every joint a child of the one before in its leg */
    static const char *const names[9] = {"root", "hip_l", "knee_l", "ankle_l", "toe_l", "hip_r", "knee_r", "ankle_r", "toe_r"};
    const int32_t parents[9] = {-1, 0, 1, 2, 3, 0, 5, 6, 7};
    sk_transform rest[9];
    for (int i = 0; i < 9; i++) rest[i] = sk_transform_identity();
    for (int l = 0; l < 2; l++) {
        float x = l ? -0.1f : 0.1f;
        rest[1 + 4 * l].t = sk_vec3_make(x, 0.9f, 0);
        rest[2 + 4 * l].t = sk_vec3_make(0, -0.4f, 0);
        rest[3 + 4 * l].t = sk_vec3_make(0, -0.4f, 0);
        rest[4 + 4 * l].t = sk_vec3_make(0, -0.05f, 0.12f);
    }
    sk_skeleton_desc sd = {0};
    sd.joint_count = 9, sd.parents = parents, sd.names = names, sd.rest = rest;
    sk_skeleton *s = NULL;
    assert_int_equal(sk_skeleton_create(&sd, NULL, &s, NULL), SK_OK);
    enum { KEYS = 241 };
    sk_clip_builder *b = NULL;
    assert_int_equal(sk_clip_builder_create("flat above the pivots", NULL, &b, NULL), SK_OK);
    float kt[KEYS], kv[3][KEYS * 3], kq[KEYS * 4];
    for (int l = 0; l < 2; l++) {
        for (int k = 0; k < KEYS; k++) {
            double t = (double)k / (KEYS - 1), u = fmod(t + 0.5 * l, 1.0), heel, toe, by, pitch, z;
            pv_foot(u, curl, H0, F1, &heel, &toe, &by, &pitch, &z);
            double ay = heel + 0.08; /* the ankle over the heel */
            sk_quat q = sk_quat_from_axis_angle(sk_vec3_make(1, 0, 0), (float)-pitch);
            kq[4 * k] = q.x, kq[4 * k + 1] = q.y, kq[4 * k + 2] = q.z, kq[4 * k + 3] = q.w;
            kt[k] = (float)t;
            /* knee halfway between the hip (0.9) and the ankle; ankle and toe relative to their parents */
            double ky = 0.5 * (0.9 + ay), kz = 0.5 * z;
            kv[0][3 * k] = 0, kv[0][3 * k + 1] = (float)(ky - 0.9), kv[0][3 * k + 2] = (float)kz;
            kv[1][3 * k] = 0, kv[1][3 * k + 1] = (float)(ay - ky), kv[1][3 * k + 2] = (float)(z - kz);
            kv[2][3 * k] = 0, kv[2][3 * k + 1] = (float)(by - ay), kv[2][3 * k + 2] = 0.12f;
        }
        for (int j = 0; j < 3; j++) {
            sk_track_desc d = {(uint32_t)(2 + j + 4 * l), SK_PATH_TRANSLATION, SK_INTERP_LINEAR, KEYS, kt, kv[j], 3};
            assert_int_equal(sk_clip_builder_add_track(b, &d, NULL), SK_OK);
        }
        sk_track_desc dq = {(uint32_t)(4 + 4 * l), SK_PATH_ROTATION, SK_INTERP_LINEAR, KEYS, kt, kq, 4};
        assert_int_equal(sk_clip_builder_add_track(b, &dq, NULL), SK_OK);
    }
    float rt[2] = {0, 1}, rv[6] = {0, 0, 0, 0, 0, 1}; /* the root: 1 m/s along +Z */
    sk_track_desc rd = {0, SK_PATH_TRANSLATION, SK_INTERP_LINEAR, 2, rt, rv, 3};
    assert_int_equal(sk_clip_builder_add_track(b, &rd, NULL), SK_OK);
    sk_clip_builder_set_duration(b, 1.0);
    sk_clip *c = NULL;
    assert_int_equal(sk_clip_builder_finish(b, &c, NULL), SK_OK);
    sk_leg_desc legs[2];
    memset(legs, 0, sizeof legs);
    for (int l = 0; l < 2; l++) {
        snprintf(legs[l].name, sizeof legs[l].name, "%s", l ? "right" : "left");
        legs[l].hip = 1 + 4 * l, legs[l].knee = 2 + 4 * l, legs[l].ankle = 3 + 4 * l, legs[l].toe = 4 + 4 * l;
        legs[l].heel_set = legs[l].toe_tip_set = true;
        legs[l].heel = sk_vec3_make(0, -0.08f, -0.05f);
        legs[l].toe_tip = sk_vec3_make(0, -0.03f, 0.04f);
    }
    sk_motion_analysis_options o = {0};
    o.still_band = SK_STILL_BAND_RETARGETED;
    sk_motion_analysis *an = NULL;
    sk_error err = {0};
    if (sk_motion_analyze(s, c, legs, 2, &o, NULL, &an, &err) != SK_OK) fail_msg("%s", err.message);
    for (int l = 0; l < 2; l++) {
        const sk_leg_analysis *L = &an->legs[l];
        double land = H0 + 0.5 * l, lift = F1 + 0.5 * l;
        printf("  %s: foot-land %.3f (built %.3f), foot-lift %.3f (built %.3f), foot-strike %.3f, foot-off %.3f\n", L->name,
               L->foot_land, fmod(land, 1.0), L->foot_lift, fmod(lift, 1.0), L->foot_strike, L->foot_off);
        assert_true(fabs(cdiff(L->foot_land, land)) < 0.05);
        assert_true(fabs(cdiff(L->foot_lift, lift)) < 0.05);
    }
    sk_motion_analysis_destroy(an);
    sk_clip_destroy(c);
    sk_skeleton_destroy(s);
}

static void test_stance_above_the_pivots(void **state) {
    (void)state;
    pv_check(false, 0.05, 0.6);
    pv_check(true, 0.05, 0.6);
    pv_check(false, 0.1, 0.5);
    pv_check(true, 0.1, 0.5);
}

static void test_backward(void **state) {
    (void)state;
    sk_asset *a = mannequin();
    sk_motion_analysis *f = analyze(a, "walk", walk.frames, false), *b = analyze(a, "walk", walk.frames, true);
    assert_true(b->backward);
    assert_true(angle_deg(b->cycle_direction, sk_vec3_make(0, 0, -1)) < 2.0);
    assert_true(fabs(b->cycle_speed - f->cycle_speed) < 0.01 * f->cycle_speed);
    double tol = 1.0 / walk.frames + 1e-5;
    for (uint32_t l = 0; l < 2; l++) {
        printf("  %s: forward strike %.4f off %.4f, backward strike %.4f off %.4f\n", f->legs[l].name,
               f->legs[l].foot_strike, f->legs[l].foot_off, b->legs[l].foot_strike, b->legs[l].foot_off);
        assert_true(fabs(cdiff(b->legs[l].foot_strike, 1.0 - f->legs[l].foot_off)) <= tol);
        assert_true(fabs(cdiff(b->legs[l].foot_off, 1.0 - f->legs[l].foot_strike)) <= tol);
    }
    sk_motion_analysis *b2 = NULL;
    sk_leg_desc legs[2];
    assert_int_equal(sk_legs_find(a->skeleton, legs, 2), 2);
    sk_motion_analysis_options o = {0};
    o.sample_count = walk.frames;
    assert_int_equal(sk_motion_analyze_backward(a->skeleton, a->clips[sk_asset_find_clip(a, "walk")], legs, 2, &o,
                                                NULL, &b2, NULL),
                     SK_OK);
    assert_true(b2->backward);
    assert_true(b2->legs[0].foot_strike == b->legs[0].foot_strike);
    sk_motion_analysis_destroy(b2);
    sk_motion_analysis_destroy(f);
    sk_motion_analysis_destroy(b);
    sk_asset_destroy(a);
}

/* sk_motion_analysis_widen_planted: two analyses of the mannequin's walk, the
 * source's planted phases moved by hand; the widened keytimes against the
 * union worked out here on the cycle's circle. */
static double wrap1(double x) { return x - floor(x); }

/* Two legs' results alike but for where their curves are. */
static void assert_leg_results_equal(const sk_leg_analysis *x, const sk_leg_analysis *y) {
    sk_leg_analysis a = *x, b = *y;
    sk_vec3 **pa[] = {&a.heel, &a.toe, &a.middle, &a.footbase, &a.normalized_footbase};
    sk_vec3 **pb[] = {&b.heel, &b.toe, &b.middle, &b.footbase, &b.normalized_footbase};
    for (int i = 0; i < 5; i++) *pa[i] = *pb[i] = NULL;
    a.heel_height = a.toe_height = a.balance = b.heel_height = b.toe_height = b.balance = NULL;
    assert_memory_equal(&a, &b, sizeof a);
}

static void test_widen_planted(void **state) {
    (void)state;
    sk_asset *a = mannequin();
    sk_motion_analysis *an = analyze(a, "walk", walk.frames * 4, false), *src = analyze(a, "walk", walk.frames * 4, false);
    sk_motion_analysis *ref = analyze(a, "walk", walk.frames * 4, false);
    const double D = an->cycle_duration;
    uint32_t widened = 99;
    sk_error err = {0};
    /* the same phases: nothing to widen */
    assert_int_equal(sk_motion_analysis_widen_planted(an, src, 0.0f, &widened, &err), SK_OK);
    assert_int_equal(widened, 0);
    for (uint32_t l = 0; l < 2; l++) assert_leg_results_equal(&an->legs[l], &ref->legs[l]);
    /* the source's left phase 0.05 earlier and 0.08 later, its right phase
     * inside a's; the source's cycle starting 0.3 s later with its keytimes
     * moved back to the same seconds (one time line through cycle_start) */
    src->cycle_start = 0.3;
    for (uint32_t l = 0; l < 2; l++) {
        double land = ref->legs[l].foot_land, lift = ref->legs[l].foot_lift;
        if (l == 0) land -= 0.05, lift += 0.08;
        else land += 0.02, lift -= 0.02;
        src->legs[l].foot_land = (float)wrap1(land - 0.3 / D);
        src->legs[l].foot_lift = (float)wrap1(lift - 0.3 / D);
    }
    assert_int_equal(sk_motion_analysis_widen_planted(an, src, 0.0f, &widened, &err), SK_OK);
    assert_int_equal(widened, 1);
    const sk_leg_analysis *L = &an->legs[0], *R = &ref->legs[0];
    printf("  left: land %.4f -> %.4f, lift %.4f -> %.4f, strike %.4f -> %.4f, off %.4f -> %.4f, share %.3f -> %.3f\n",
           R->foot_land, L->foot_land, R->foot_lift, L->foot_lift, R->foot_strike, L->foot_strike, R->foot_off,
           L->foot_off, R->stance_fraction, L->stance_fraction);
    assert_true(fabs(cdiff(L->foot_land, R->foot_land - 0.05)) < 1e-5);
    assert_true(fabs(cdiff(L->foot_lift, R->foot_lift + 0.08)) < 1e-5);
    /* strike no later than land, off no earlier than lift (on the circle, from the stance) */
    double land_rel = cdiff(L->foot_land, L->stance_time), lift_rel = cdiff(L->foot_lift, L->stance_time);
    assert_true(cdiff(L->foot_strike, L->stance_time) <= land_rel + 1e-6);
    assert_true(cdiff(L->foot_off, L->stance_time) >= lift_rel - 1e-6);
    assert_true(cdiff(L->pre_foot_land, L->stance_time) <= land_rel + 1e-6);
    assert_true(cdiff(L->post_foot_lift, L->stance_time) >= lift_rel - 1e-6);
    double share = cdiff(L->foot_off, L->stance_time) - cdiff(L->foot_strike, L->stance_time);
    assert_true(fabs(L->stance_fraction - share) < 1e-5);
    assert_true(L->stance_fraction >= R->stance_fraction - 1e-6);
    /* nothing else changed: the right leg, the stance, the stride, the curves */
    assert_leg_results_equal(&an->legs[1], &ref->legs[1]);
    assert_true(L->stance_time == R->stance_time && L->stride_velocity == R->stride_velocity);
    assert_memory_equal(L->footbase, R->footbase, an->sample_count * sizeof *L->footbase);
    /* apart (the source's phase half a cycle away, short): left as it is */
    sk_leg_analysis saved = an->legs[0];
    src->legs[0].foot_land = (float)wrap1(R->stance_time + 0.45 - 0.3 / D);
    src->legs[0].foot_lift = (float)wrap1(R->stance_time + 0.55 - 0.3 / D);
    assert_int_equal(sk_motion_analysis_widen_planted(an, src, 0.0f, &widened, &err), SK_OK);
    assert_int_equal(widened, 0);
    assert_leg_results_equal(&an->legs[0], &saved);
    /* phases that end 1% of the cycle apart meet (the analysis' own bridged gap, 2%), 3% apart
     * do not */
    for (int k = 0; k < 2; k++) {
        double gap = k ? 0.03 : 0.01;
        src->legs[0].foot_land = (float)wrap1(saved.foot_land - 0.2 - 0.3 / D);
        src->legs[0].foot_lift = (float)wrap1(saved.foot_land - gap - 0.3 / D);
        assert_int_equal(sk_motion_analysis_widen_planted(an, src, 0.0f, &widened, &err), SK_OK);
        assert_int_equal(widened, k ? 0u : 1u);
        if (!k) assert_true(fabs(cdiff(an->legs[0].foot_land, saved.foot_land - 0.2)) < 1e-5);
        assert_true(fabs(cdiff(an->legs[0].foot_lift, saved.foot_lift)) < 1e-5);
        an->legs[0] = saved;
    }
    /* a union longer than max_share: left as it is */
    src->legs[0].foot_land = (float)wrap1(R->foot_land - 0.2 - 0.3 / D);
    src->legs[0].foot_lift = (float)wrap1(R->foot_lift - 0.3 / D);
    double union_len = cdiff(saved.foot_lift, saved.stance_time) - cdiff(R->foot_land - 0.2, saved.stance_time);
    assert_int_equal(sk_motion_analysis_widen_planted(an, src, (float)(union_len - 0.01), &widened, &err), SK_OK);
    assert_int_equal(widened, 0);
    assert_int_equal(sk_motion_analysis_widen_planted(an, src, (float)(union_len + 0.01), &widened, &err), SK_OK);
    assert_int_equal(widened, 1);
    assert_true(fabs(cdiff(an->legs[0].foot_land, R->foot_land - 0.2)) < 1e-5);
    /* backward analyses: a keytime k at cycle_start + (1 - k) x duration, so the source's cycle
     * starting 0.3 s later moves its keytimes 0.3 s worth the other way */
    {
        sk_motion_analysis *ab = analyze(a, "walk", walk.frames * 4, true), *sb = analyze(a, "walk", walk.frames * 4, true);
        sk_motion_analysis *rb = analyze(a, "walk", walk.frames * 4, true);
        sb->cycle_start = 0.3;
        for (uint32_t l = 0; l < 2; l++) {
            double land = rb->legs[l].foot_land, lift = rb->legs[l].foot_lift;
            if (l == 1) land -= 0.04, lift += 0.03;
            sb->legs[l].foot_land = (float)wrap1(land + 0.3 / D);
            sb->legs[l].foot_lift = (float)wrap1(lift + 0.3 / D);
        }
        assert_int_equal(sk_motion_analysis_widen_planted(ab, sb, 0.0f, &widened, &err), SK_OK);
        assert_int_equal(widened, 1);
        assert_leg_results_equal(&ab->legs[0], &rb->legs[0]);
        assert_true(fabs(cdiff(ab->legs[1].foot_land, rb->legs[1].foot_land - 0.04)) < 1e-5);
        assert_true(fabs(cdiff(ab->legs[1].foot_lift, rb->legs[1].foot_lift + 0.03)) < 1e-5);
        /* a forward source against a backward analysis: refused */
        assert_int_equal(sk_motion_analysis_widen_planted(ab, ref, 0.0f, NULL, &err), SK_ERR_INVALID_ARGUMENT);
        sk_motion_analysis_destroy(ab);
        sk_motion_analysis_destroy(sb);
        sk_motion_analysis_destroy(rb);
    }
    /* refused, *a untouched */
    saved = an->legs[0];
    assert_int_equal(sk_motion_analysis_widen_planted(NULL, src, 0.0f, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_motion_analysis_widen_planted(an, NULL, 0.0f, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_motion_analysis_widen_planted(an, src, 1.5f, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_motion_analysis_widen_planted(an, src, NAN, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_motion_analysis_widen_planted(an, src, -0.1f, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    sk_motion_analysis *one = NULL;
    assert_int_equal(sk_motion_analysis_create(1, 60, NULL, &one, NULL), SK_OK);
    one->cycle_duration = 1.0;
    assert_int_equal(sk_motion_analysis_widen_planted(an, one, 0.0f, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    printf("  refused: %s\n", err.message);
    sk_motion_analysis_destroy(one);
    src->legs[1].foot_lift = NAN;
    assert_int_equal(sk_motion_analysis_widen_planted(an, src, 0.0f, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    src->legs[1].foot_lift = ref->legs[1].foot_lift;
    src->cycle_duration = 0.0;
    assert_int_equal(sk_motion_analysis_widen_planted(an, src, 0.0f, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    src->backward = true;
    src->cycle_duration = ref->cycle_duration;
    assert_int_equal(sk_motion_analysis_widen_planted(an, src, 0.0f, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_leg_results_equal(&an->legs[0], &saved);
    sk_motion_analysis_destroy(an);
    sk_motion_analysis_destroy(src);
    sk_motion_analysis_destroy(ref);
    sk_asset_destroy(a);
}

/* The clips that do not walk forward: the analysis's cycle direction and
 * speed against the hips' own displacement over the clip (read from the
 * clip's keys here), the stance share of a walk (0.5-0.7), the legs half a
 * cycle apart, the feet still pointing forward (+Z: the body faces ahead
 * while it walks backward or sideways). */
static void test_direction_clips(void **state) {
    (void)state;
    sk_asset *a = mannequin();
    static const char *const names[3] = {"walk_back", "strafe_left", "strafe_right"};
    int32_t hips = sk_skeleton_find(a->skeleton, "hips");
    assert_true(hips >= 0);
    g_mesh_points = true;
    for (int k = 0; k < 3; k++) {
        const sk_clip *c = a->clips[sk_asset_find_clip(a, names[k])];
        sk_pose p0, p1;
        assert_int_equal(sk_pose_alloc(a->skeleton, NULL, &p0, NULL), SK_OK);
        assert_int_equal(sk_pose_alloc(a->skeleton, NULL, &p1, NULL), SK_OK);
        assert_int_equal(sk_clip_sample(c, a->skeleton, 0.0, SK_LOOP_CLAMP, &p0, NULL), SK_OK);
        assert_int_equal(sk_clip_sample(c, a->skeleton, sk_clip_duration(c), SK_LOOP_CLAMP, &p1, NULL), SK_OK);
        sk_vec3 d = sk_vec3_sub(p1.local[hips].t, p0.local[hips].t);
        d.y = 0;
        double root_speed = sk_vec3_length(d) / sk_clip_duration(c);
        sk_motion_analysis *an = analyze(a, names[k], 0, false);
        printf("%s: direction (%.3f, %.3f, %.3f), %.3f m/s (hips %.3f m/s); stance share %.3f / %.3f, stance times "
               "%.3f / %.3f\n", names[k], an->cycle_direction.x, an->cycle_direction.y, an->cycle_direction.z,
               an->cycle_speed, root_speed, an->legs[0].stance_fraction, an->legs[1].stance_fraction,
               an->legs[0].stance_time, an->legs[1].stance_time);
        assert_true(angle_deg(an->cycle_direction, d) < 2.0);
        assert_true(fabs(an->cycle_speed - root_speed) < 0.05 * root_speed);
        for (uint32_t l = 0; l < 2; l++) {
            assert_true(an->legs[l].stance_fraction >= 0.5f && an->legs[l].stance_fraction <= 0.7f);
            assert_true(angle_deg(an->legs[l].foot_direction, sk_vec3_make(0, 0, 1)) < 5.0);
        }
        assert_true(fabs(fabs(cdiff(an->legs[0].stance_time, an->legs[1].stance_time)) - 0.5) < 0.05);
        sk_motion_analysis_destroy(an);
        sk_pose_free(&p0, NULL);
        sk_pose_free(&p1, NULL);
    }
    g_mesh_points = false;
    sk_asset_destroy(a);
}

static sk_skeleton *named_skeleton(const char *const *names, const int32_t *parents, uint32_t n) {
    sk_skeleton_desc d = {0};
    d.joint_count = n;
    d.parents = parents;
    d.names = names;
    sk_transform rest[16];
    for (uint32_t i = 0; i < n; i++) {
        rest[i] = sk_transform_identity();
        rest[i].t = parents[i] < 0 ? sk_vec3_make(0, 1, 0) : sk_vec3_make(0, -0.2f, i % 3 == 0 ? 0.1f : 0);
    }
    d.rest = rest;
    sk_skeleton *s = NULL;
    assert_int_equal(sk_skeleton_create(&d, NULL, &s, NULL), SK_OK);
    return s;
}

static void test_legs_find(void **state) {
    (void)state;
    sk_asset *a = mannequin();
    sk_leg_desc legs[2];
    assert_int_equal(sk_legs_find(a->skeleton, legs, 2), 2);
    const sk_skeleton *s = a->skeleton;
    assert_string_equal(s->names[legs[0].hip], "thigh_l");
    assert_string_equal(s->names[legs[0].knee], "shin_l");
    assert_string_equal(s->names[legs[0].ankle], "foot_l");
    assert_string_equal(s->names[legs[0].toe], "toe_l");
    assert_string_equal(s->names[legs[1].ankle], "foot_r");
    assert_false(legs[0].heel_set);
    /* Default points: heel behind and below the ankle, toe tip ahead. */
    assert_int_equal(sk_leg_default_points(s, &legs[0], NULL), SK_OK);
    assert_true(legs[0].heel_set && legs[0].toe_tip_set);
    assert_true(legs[0].heel.z < 0 && legs[0].heel.y < 0); /* ankle frame (rest rotations are identity) */
    assert_true(legs[0].toe_tip.z > 0);
    /* The same legs read off the humanoid map (found its own way: a scheme of names, then shape). */
    sk_humanoid_map m;
    assert_int_equal(sk_humanoid_map_find(s, NULL, &m, NULL), SK_OK);
    sk_leg_desc hl[2], before[2];
    assert_int_equal(sk_legs_find(s, legs, 2), 2);
    assert_int_equal(sk_legs_from_humanoid(&m, hl, 2), 2);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(hl[k].hip, legs[k].hip);
        assert_int_equal(hl[k].knee, legs[k].knee);
        assert_int_equal(hl[k].ankle, legs[k].ankle);
        assert_int_equal(hl[k].toe, legs[k].toe);
        assert_string_equal(hl[k].name, k ? "right" : "left");
        assert_false(hl[k].heel_set || hl[k].toe_tip_set);
    }
    /* no toes in the map: toe -1; no foot, a short array or NULL: 0 and out untouched */
    sk_humanoid_map m2 = m;
    m2.joint[SK_HUMANOID_LEFT_TOES] = -1;
    assert_int_equal(sk_legs_from_humanoid(&m2, hl, 2), 2);
    assert_int_equal(hl[0].toe, -1);
    assert_int_equal(hl[1].toe, legs[1].toe);
    m2 = m;
    m2.joint[SK_HUMANOID_RIGHT_FOOT] = -1;
    memset(hl, 0x5a, sizeof hl);
    memcpy(before, hl, sizeof hl);
    assert_int_equal(sk_legs_from_humanoid(&m2, hl, 2), 0);
    assert_int_equal(sk_legs_from_humanoid(&m, hl, 1), 0);
    assert_int_equal(sk_legs_from_humanoid(NULL, hl, 2), 0);
    assert_memory_equal(hl, before, sizeof hl);
    assert_int_equal(sk_legs_from_humanoid(&m, NULL, 2), 0);
    sk_asset_destroy(a);

    /* CMU-like (a LHipJoint above the thigh) and Mixamo names. */
    static const char *const cmu[] = {"Hips", "LHipJoint", "LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToeBase",
                                      "RHipJoint", "RightUpLeg", "RightLeg", "RightFoot", "RightToeBase"};
    static const int32_t cmu_p[] = {-1, 0, 1, 2, 3, 4, 0, 6, 7, 8, 9};
    sk_skeleton *k = named_skeleton(cmu, cmu_p, 11);
    assert_int_equal(sk_legs_find(k, legs, 2), 2);
    assert_string_equal(k->names[legs[0].hip], "LeftUpLeg");
    assert_string_equal(k->names[legs[0].toe], "LeftToeBase");
    assert_string_equal(k->names[legs[1].knee], "RightLeg");
    sk_skeleton_destroy(k);
    static const char *const mx[] = {"mixamorig:Hips", "mixamorig:RightUpLeg", "mixamorig:RightLeg",
                                     "mixamorig:RightFoot", "mixamorig:RightToeBase", "mixamorig:RightToe_End"};
    static const int32_t mx_p[] = {-1, 0, 1, 2, 3, 4};
    k = named_skeleton(mx, mx_p, 6);
    assert_int_equal(sk_legs_find(k, legs, 2), 1);
    assert_string_equal(legs[0].name, "right");
    assert_string_equal(k->names[legs[0].hip], "mixamorig:RightUpLeg");
    assert_string_equal(k->names[legs[0].toe], "mixamorig:RightToeBase");
    /* The toe tip defaults to the toe joint's child. */
    assert_int_equal(sk_leg_default_points(k, &legs[0], NULL), SK_OK);
    sk_skeleton_destroy(k);
}

/* sk_leg_heels_to_ground: the mannequin's walk with its left heel point
 * raised 2 cm by hand analyses with that heel's ground 2 cm above its toe's;
 * the call brings it back (the heel's ground again within the tolerance of
 * the toe's), leaves a leg marked manual alone, and refuses bad arguments. */
static void test_heels_to_ground(void **state) {
    (void)state;
    sk_asset *a = mannequin();
    const sk_skeleton *s = a->skeleton;
    const sk_clip *wclip = a->clips[sk_asset_find_clip(a, "walk")];
    sk_leg_desc legs[2];
    sk_leg_points_source src[2];
    sk_error err = {0};
    assert_int_equal(sk_legs_find(s, legs, 2), 2);
    assert_int_equal(sk_leg_points_from_mesh(a, legs, 2, NULL, src, &err), SK_OK);
    sk_motion_analysis *an = NULL;
    assert_int_equal(sk_motion_analyze(s, wclip, legs, 2, NULL, NULL, &an, &err), SK_OK);
    uint32_t moved = 99;
    assert_int_equal(sk_leg_heels_to_ground(s, wclip, an, legs, 2, src, NULL, &moved, &err), SK_OK);
    assert_int_equal(moved, 0); /* its heels and toes come down together */
    sk_motion_analysis_destroy(an);
    /* the left heel raised 2 cm in the ankle's frame (rest rotations are identity) */
    const sk_vec3 heel0 = legs[0].heel;
    legs[0].heel.y += 0.02f;
    assert_int_equal(sk_motion_analyze(s, wclip, legs, 2, NULL, NULL, &an, &err), SK_OK);
    float gap = an->legs[0].heel_ground - an->legs[0].toe_ground;
    assert_true(gap > 0.015f && gap < 0.025f);
    sk_leg_desc kept[2];
    memcpy(kept, legs, sizeof kept);
    sk_leg_points_source manual[2] = {SK_LEG_POINTS_MANUAL, SK_LEG_POINTS_MESH};
    assert_int_equal(sk_leg_heels_to_ground(s, wclip, an, legs, 2, manual, NULL, &moved, &err), SK_OK);
    assert_int_equal(moved, 0);
    assert_memory_equal(legs, kept, sizeof kept);
    /* bad arguments: legs untouched */
    assert_int_equal(sk_leg_heels_to_ground(NULL, wclip, an, legs, 2, NULL, NULL, &moved, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_leg_heels_to_ground(s, wclip, an, legs, 1, NULL, NULL, &moved, &err), SK_ERR_INVALID_ARGUMENT);
    legs[1].ankle = legs[0].ankle;
    assert_int_equal(sk_leg_heels_to_ground(s, wclip, an, legs, 2, NULL, NULL, &moved, &err), SK_ERR_INVALID_ARGUMENT);
    legs[1].ankle = kept[1].ankle;
    assert_memory_equal(legs, kept, sizeof kept);
    assert_int_equal(sk_leg_heels_to_ground(s, wclip, an, legs, 2, NULL, NULL, &moved, &err), SK_OK);
    assert_int_equal(moved, 1);
    assert_true(legs[0].heel_set);
    assert_true(fabsf(legs[0].heel.y - heel0.y) < 0.004f); /* back near where it was */
    assert_memory_equal(&legs[1], &kept[1], sizeof kept[1]);
    sk_motion_analysis_destroy(an);
    assert_int_equal(sk_motion_analyze(s, wclip, legs, 2, NULL, NULL, &an, &err), SK_OK);
    assert_true(fabsf(an->legs[0].heel_ground - an->legs[0].toe_ground) < SK_LEG_HEEL_TOLERANCE);
    sk_motion_analysis_destroy(an);
    sk_asset_destroy(a);
}

/* Every field and array read back bit for bit. */
static void assert_same(const sk_motion_analysis *a, const sk_motion_analysis *b) {
    assert_string_equal(a->clip_name, b->clip_name);
    assert_int_equal(a->backward, b->backward);
    assert_int_equal(a->leg_count, b->leg_count);
    assert_int_equal(a->sample_count, b->sample_count);
    assert_true(a->cycle_duration == b->cycle_duration);
    assert_true(a->cycle_velocity == b->cycle_velocity && a->cycle_speed == b->cycle_speed);
    assert_memory_equal(&a->cycle_direction, &b->cycle_direction, sizeof(sk_vec3));
    assert_memory_equal(&a->root_velocity, &b->root_velocity, sizeof(sk_vec3));
    uint32_t N = a->sample_count;
    for (uint32_t l = 0; l < a->leg_count; l++) {
        const sk_leg_analysis *x = &a->legs[l], *y = &b->legs[l];
        /* The scalar part: everything before the first array pointer. */
        assert_memory_equal(x, y, offsetof(sk_leg_analysis, heel));
        assert_memory_equal(x->heel, y->heel, N * sizeof(sk_vec3));
        assert_memory_equal(x->toe, y->toe, N * sizeof(sk_vec3));
        assert_memory_equal(x->middle, y->middle, N * sizeof(sk_vec3));
        assert_memory_equal(x->footbase, y->footbase, N * sizeof(sk_vec3));
        assert_memory_equal(x->normalized_footbase, y->normalized_footbase, N * sizeof(sk_vec3));
        assert_memory_equal(x->heel_height, y->heel_height, N * sizeof(float));
        assert_memory_equal(x->toe_height, y->toe_height, N * sizeof(float));
        assert_memory_equal(x->balance, y->balance, N * sizeof(float));
    }
}

static void test_json_round_trip(void **state) {
    (void)state;
    sk_asset *a = mannequin();
    sk_motion_analysis *an = analyze(a, "run", 0, false), *back = NULL;
    char *text = NULL;
    size_t len = 0;
    sk_error err = {0};
    assert_int_equal(sk_motion_analysis_to_json(an, NULL, &text, &len, &err), SK_OK);
    assert_int_equal(strlen(text), len);
    assert_int_equal(sk_motion_analysis_from_json(text, len, NULL, &back, &err), SK_OK);
    assert_same(an, back);
    sk_motion_analysis_destroy(back);
    back = NULL;
    /* Through a file beside the build. */
    char path[1024];
    const char *bin = getenv("SK_BINARY_DIR");
    snprintf(path, sizeof path, "%s/analysis_run_test.json", bin && *bin ? bin : ".");
    assert_int_equal(sk_motion_analysis_save(an, path, NULL, NULL, &err), SK_OK);
    if (sk_motion_analysis_load(path, NULL, NULL, &back, &err) != SK_OK) fail_msg("%s", err.message);
    assert_same(an, back);
    sk_motion_analysis_destroy(back);
    back = NULL;
    /* A document without a field: an error naming the JSON path. */
    char *cut = strstr(text, "\"foot_strike\"");
    assert_non_null(cut);
    memcpy(cut, "\"foot_strikX\"", 13);
    assert_int_equal(sk_motion_analysis_from_json(text, len, NULL, &back, &err), SK_ERR_INVALID_DATA);
    assert_null(back);
    printf("  missing field: %s\n", err.message);
    assert_non_null(strstr(err.message, "/legs/0/foot_strike"));
    assert_int_equal(sk_motion_analysis_from_json("{\"format\":1}", 12, NULL, &back, &err), SK_ERR_INVALID_DATA);
    assert_int_equal(sk_motion_analysis_from_json("{\"format\":", 10, NULL, &back, &err), SK_ERR_PARSE);
    assert_string_equal(err.message, "invalid JSON near byte 10: unexpected end of the text");
    /* not JSON: a byte order mark, a leading zero */
    assert_int_equal(sk_motion_analysis_from_json("\xef\xbb\xbf{}", 5, NULL, &back, &err), SK_ERR_PARSE);
    assert_string_equal(err.message, "invalid JSON near byte 0: unexpected character");
    assert_int_equal(sk_motion_analysis_from_json("{\"version\": 01}", 15, NULL, &back, &err), SK_ERR_PARSE);
    assert_string_equal(err.message, "invalid JSON near byte 13: expected ',' or '}'");
    assert_null(back);
    assert_int_equal(sk_motion_analysis_load("/nonexistent/a.json", NULL, NULL, &back, &err), SK_ERR_IO);
    /* a syntax error in a file: the message starts with the file's name */
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("{\"legs\": [", f);
    fclose(f);
    assert_int_equal(sk_motion_analysis_load(path, NULL, NULL, &back, &err), SK_ERR_PARSE);
    assert_null(back);
    assert_int_equal(strncmp(err.message, path, strlen(path)), 0);
    assert_string_equal(err.message + strlen(path), ": invalid JSON near byte 10: unexpected end of the text");
    remove(path); /* nothing left behind */
    sk_free(NULL, text, len + 1);
    sk_motion_analysis_destroy(an);
    sk_asset_destroy(a);
}

static void test_bad_input(void **state) {
    (void)state;
    sk_asset *a = mannequin();
    const sk_skeleton *s = a->skeleton;
    sk_leg_desc legs[2];
    assert_int_equal(sk_legs_find(s, legs, 2), 2);
    sk_motion_analysis *an = NULL;
    sk_error err = {0};
    const sk_clip *w = a->clips[sk_asset_find_clip(a, "walk")];

    /* A clip whose feet do not move (idle). */
    assert_int_equal(sk_motion_analyze(s, a->clips[sk_asset_find_clip(a, "idle")], legs, 2, NULL, NULL, &an, &err),
                     SK_ERR_INVALID_DATA);
    printf("  idle: %s\n", err.message);
    assert_non_null(strstr(err.message, "does not move"));
    assert_null(an);

    /* A zero-length clip (one key at t = 0). */
    sk_clip_builder *b = NULL;
    assert_int_equal(sk_clip_builder_create("still", NULL, &b, NULL), SK_OK);
    float t0 = 0, v[3] = {0, 1, 0};
    sk_track_desc td = {0, SK_PATH_TRANSLATION, SK_INTERP_LINEAR, 1, &t0, v, 3};
    assert_int_equal(sk_clip_builder_add_track(b, &td, NULL), SK_OK);
    sk_clip *still = NULL;
    assert_int_equal(sk_clip_builder_finish(b, &still, NULL), SK_OK);
    assert_int_equal(sk_motion_analyze(s, still, legs, 2, NULL, NULL, &an, &err), SK_ERR_INVALID_DATA);
    printf("  zero length: %s\n", err.message);
    assert_non_null(strstr(err.message, "zero-length"));
    sk_clip_destroy(still);

    /* Joints not in a chain (the knee of the other leg). */
    sk_leg_desc bad = legs[0];
    bad.knee = legs[1].knee;
    assert_int_equal(sk_motion_analyze(s, w, &bad, 1, NULL, NULL, &an, &err), SK_ERR_INVALID_ARGUMENT);
    printf("  chain: %s\n", err.message);
    assert_non_null(strstr(err.message, "not in a chain"));
    bad = legs[0];
    bad.ankle = 9999;
    assert_int_equal(sk_motion_analyze(s, w, &bad, 1, NULL, NULL, &an, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "out of range"));
    /* NaN: a manual heel point, an option. */
    bad = legs[0];
    bad.heel_set = true;
    bad.heel = sk_vec3_make(NAN, 0, 0);
    assert_int_equal(sk_motion_analyze(s, w, &bad, 1, NULL, NULL, &an, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "not finite"));
    sk_motion_analysis_options o = {0};
    o.contact_height = NAN;
    assert_int_equal(sk_motion_analyze(s, w, legs, 2, &o, NULL, &an, &err), SK_ERR_INVALID_ARGUMENT);
    o.contact_height = 0;
    const float bad_band[] = {NAN, -0.01f, 0.5f, INFINITY};
    for (size_t k = 0; k < sizeof bad_band / sizeof bad_band[0]; k++) {
        o.still_band = bad_band[k];
        assert_int_equal(sk_motion_analyze(s, w, legs, 2, &o, NULL, &an, &err), SK_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(err.message, "still_band"));
    }
    o.still_band = 0;
    o.sample_count = 2;
    assert_int_equal(sk_motion_analyze(s, w, legs, 2, &o, NULL, &an, &err), SK_ERR_INVALID_ARGUMENT);
    /* Heel and toe at the same point: no foot. */
    bad = legs[0];
    bad.heel_set = bad.toe_tip_set = true;
    bad.toe = -1;
    bad.heel = bad.toe_tip = sk_vec3_make(0, 0, 0);
    assert_int_equal(sk_motion_analyze(s, w, &bad, 1, NULL, NULL, &an, &err), SK_ERR_INVALID_DATA);
    /* NULLs and counts. */
    assert_int_equal(sk_motion_analyze(NULL, w, legs, 2, NULL, NULL, &an, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_motion_analyze(s, w, legs, 0, NULL, NULL, &an, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_motion_analyze(s, w, legs, 2, NULL, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_null(an);
    sk_motion_analysis_destroy(NULL);
    sk_asset_destroy(a);
}

/* Allocation failure at every allocation of an analysis: an error, nothing left. */
typedef struct count_alloc { size_t live; int calls, fail_at; } count_alloc;
static void *ca_alloc(void *u, size_t n) {
    count_alloc *c = u;
    if (c->calls++ == c->fail_at) return NULL;
    c->live += n;
    return malloc(n);
}
static void ca_free(void *u, void *p, size_t n) {
    count_alloc *c = u;
    if (p) c->live -= n;
    free(p);
}

static void test_alloc_failure(void **state) {
    (void)state;
    sk_asset *a = mannequin();
    sk_leg_desc legs[2];
    assert_int_equal(sk_legs_find(a->skeleton, legs, 2), 2);
    const sk_clip *w = a->clips[sk_asset_find_clip(a, "walk")];
    int fails = 0;
    for (int k = 0; k < 16; k++) {
        count_alloc c = {0, 0, k};
        sk_allocator al = {0};
        al.alloc = ca_alloc;
        al.free = ca_free;
        al.user = &c;
        sk_motion_analysis *an = NULL;
        sk_result r = sk_motion_analyze(a->skeleton, w, legs, 2, NULL, &al, &an, NULL);
        if (r == SK_OK) {
            sk_motion_analysis_destroy(an);
            assert_int_equal(c.live, 0);
            break;
        }
        assert_int_equal(r, SK_ERR_OUT_OF_MEMORY);
        assert_int_equal(c.live, 0);
        fails++;
    }
    assert_true(fails >= 2); /* the result and the scratch */
    sk_asset_destroy(a);
}

/* Time per analysis of the mannequin walk (offline: printed, no target). */
static void test_timing(void **state) {
    (void)state;
    sk_asset *a = mannequin();
    sk_leg_desc legs[2];
    assert_int_equal(sk_legs_find(a->skeleton, legs, 2), 2);
    const sk_clip *w = a->clips[sk_asset_find_clip(a, "walk")];
    double best = 1e9;
    for (int i = 0; i < 20; i++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        sk_motion_analysis *an = NULL;
        assert_int_equal(sk_motion_analyze(a->skeleton, w, legs, 2, NULL, NULL, &an, NULL), SK_OK);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        sk_motion_analysis_destroy(an);
        double us = (t1.tv_sec - t0.tv_sec) * 1e6 + (t1.tv_nsec - t0.tv_nsec) * 1e-3;
        if (us < best) best = us;
    }
    printf("  mannequin walk (128 samples, 2 legs, 21 joints): %.1f us per analysis (best of 20)\n", best);
    sk_asset_destroy(a);
}

/* World positions of joints at clip time t (the clip's own space). */
static void joints_at(const sk_asset *a, const sk_clip *clip, double t, const int32_t *j, sk_vec3 *out, int n) {
    const sk_skeleton *s = a->skeleton;
    sk_pose pose = {0};
    assert_int_equal(sk_pose_alloc(s, NULL, &pose, NULL), SK_OK);
    sk_mat4 *m = calloc(s->joint_count, sizeof *m);
    assert_non_null(m);
    assert_int_equal(sk_clip_sample(clip, s, t, SK_LOOP_CLAMP, &pose, NULL), SK_OK);
    assert_int_equal(sk_local_to_model(s, &pose, NULL, m, s->joint_count, NULL), SK_OK);
    for (int i = 0; i < n; i++) out[i] = sk_mat4_transform_point(&m[j[i]], sk_vec3_make(0, 0, 0));
    free(m);
    sk_pose_free(&pose, NULL);
}

static double hdist(sk_vec3 a, sk_vec3 b) { return hypot((double)a.x - b.x, (double)a.z - b.z); }

/* Independent step counter (not the analysis code): the cycle duration from
 * counted foot contacts over the whole clip. The clip is sampled at its own
 * key rate (120 Hz); per foot the "foot point" is the midpoint of the raw
 * ankle and toe joints (no heel/toe points, no footbase). A foot is on the
 * ground where the foot point's horizontal speed (central difference over
 * +-1 sample) is below 20% of the clip's mean speed (the Hips joint's
 * horizontal displacement over the whole clip / its duration) and its
 * height is within 4 cm of the lowest height it has within +-0.6 s (a
 * running minimum: the capture floors are not level, 02_01 and 07_01 climb
 * 2-3 cm per cycle). Runs of such samples separated by gaps of at most 2
 * samples are merged, runs shorter than 4 samples dropped; a foot-strike is
 * the first sample of a run (a run under way at the clip's first sample is
 * not counted). The duration is the mean time between successive strikes of
 * the same foot, pooled over both feet. Writes the strike count. */
static double counted_cycle(const sk_asset *a, const sk_clip *clip, const sk_leg_desc *legs, int32_t root,
                            int *strikes) {
    double dur = sk_clip_duration(clip);
    int n = (int)floor(dur * 120.0 + 1e-6) + 1;
    sk_vec3 *p = calloc((size_t)n * 3, sizeof *p);
    assert_non_null(p);
    for (int i = 0; i < n; i++) {
        int32_t j[5] = {root, legs[0].ankle, legs[0].toe, legs[1].ankle, legs[1].toe};
        sk_vec3 w[5];
        joints_at(a, clip, fmin(i / 120.0, dur), j, w, 5);
        p[3 * i] = w[0];
        for (int f = 0; f < 2; f++) p[3 * i + 1 + f] = sk_vec3_scale(sk_vec3_add(w[1 + 2 * f], w[2 + 2 * f]), 0.5f);
    }
    double mean_speed = hdist(p[3 * (n - 1)], p[0]) / dur, sum = 0;
    int intervals = 0;
    *strikes = 0;
    for (int f = 0; f < 2; f++) {
        int last_run_end = -100, run_start = -1, prev_strike = -1, win = 72; /* 0.6 s */
        bool counted = false;
        for (int i = 1; i + 1 < n; i++) {
            sk_vec3 q = p[3 * i + 1 + f];
            double v = hdist(p[3 * (i + 1) + 1 + f], p[3 * (i - 1) + 1 + f]) * 60.0;
            float lo = q.y;
            for (int k = i - win < 0 ? 0 : i - win; k < n && k <= i + win; k++) lo = fminf(lo, p[3 * k + 1 + f].y);
            bool on = v < 0.2 * mean_speed && q.y - lo < 0.04f;
            if (on) {
                if (run_start < 0 || i - last_run_end > 3) { /* a new run unless the gap is <= 2 samples */
                    run_start = i;
                    counted = false;
                }
                last_run_end = i;
                if (!counted && i - run_start >= 3 && run_start > 1) { /* 4 samples: a contact */
                    counted = true;
                    (*strikes)++;
                    if (prev_strike >= 0) { sum += (run_start - prev_strike) / 120.0; intervals++; }
                    prev_strike = run_start;
                }
            }
        }
    }
    free(p);
    return intervals ? sum / intervals : 0;
}

/* The shared CMU captures are not loops: their best cycle is found
 * (sk_motion_find_cycle: closest poses) and analysed. Asserted:
 * - the legs found from the names;
 * - the found cycle's duration in the range of human gait (walking cadence
 *   80-130 steps/min: a cycle of two steps 0.9-1.5 s, widened to 0.7-1.6 s;
 *   running 150-190 steps/min: 0.6-0.8 s, widened to 0.45-1.0 s), and within
 *   5% of the duration counted from the foot contacts (counted_cycle above);
 * - the cycle speed from the feet within 5% of the root's own speed over the
 *   same cycle: the Hips joint's horizontal displacement from cycle start to
 *   end / the cycle duration (the analysis takes its root motion from the
 *   hips' midpoint, not from this joint). With the default stride source the
 *   analysis measures these cycles' strides from footprints
 *   (SK_STRIDE_FOOTPRINTS), and this is asserted too: with the seed's contact
 *   stride they are 4.4-11.4% short (printed) because the captured feet
 *   creep forward 1.3-2.6 cm while planted.
 * 09_11 (a run of 1.375 s: 4 foot contacts, 2 per foot, so one strike
 * interval per foot) meets both limits; its counted duration rests on only
 * those two intervals. */
static void test_mocap(void **state) {
    (void)state;
    const char *shared = sk_test_require_shared();
    static const struct { const char *file; double lo, hi; int min_strikes; } files[] = {
        {"02_01.glb", 0.7, 1.6, 4}, {"07_01_fbx2bvh.glb", 0.7, 1.6, 4}, {"09_11_fbx2bvh.glb", 0.45, 1.0, 4}};
    int contact_errors = 0; /* captures whose collapsed phases leave no contact stride */
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char dir[1024], path[1200];
        sk_test_path(dir, sizeof dir, shared, "mocap/glb");
        sk_test_path(path, sizeof path, dir, files[f].file);
        sk_asset *a = NULL;
        sk_error err = {0};
        if (sk_gltf_load_file(path, NULL, &a, &err) != SK_OK) fail_msg("%s", err.message);
        const sk_clip *clip = a->clips[0];
        sk_leg_desc legs[2];
        assert_int_equal(sk_legs_find(a->skeleton, legs, 2), 2);
        assert_string_equal(a->skeleton->names[legs[0].hip], "LeftUpLeg");
        assert_string_equal(a->skeleton->names[legs[1].ankle], "RightFoot");
        assert_string_equal(a->skeleton->names[legs[1].toe], "RightToeBase");
        int32_t root = sk_skeleton_find(a->skeleton, "Hips");
        assert_true(root >= 0);
        sk_motion_analysis_options o = {0};
        if (sk_motion_find_cycle(a->skeleton, clip, legs, 2, 0, NULL, &o.cycle_start, &o.cycle_end, &err) != SK_OK)
            fail_msg("%s", err.message);
        double cyc = o.cycle_end - o.cycle_start;
        int strikes = 0;
        double counted = counted_cycle(a, clip, legs, root, &strikes);
        printf("  %s: best cycle %.3f to %.3f s (%.3f s, expected %.2f-%.2f); counted from %d foot-strikes: "
               "%.3f s (%+.1f%%)\n",
               files[f].file, o.cycle_start, o.cycle_end, cyc, files[f].lo, files[f].hi, strikes, counted,
               100.0 * (cyc / counted - 1));
        assert_true(cyc >= files[f].lo && cyc <= files[f].hi);
        assert_true(strikes >= files[f].min_strikes);
        assert_true(fabs(cyc / counted - 1) < 0.05);
        /* The root's own speed over the cycle. */
        sk_vec3 r0, r1;
        joints_at(a, clip, o.cycle_start, &root, &r0, 1);
        joints_at(a, clip, o.cycle_end, &root, &r1, 1);
        double root_speed = hdist(r1, r0) / cyc;
        sk_motion_analysis *an = NULL;
        if (sk_motion_analyze(a->skeleton, clip, legs, 2, &o, NULL, &an, &err) != SK_OK) fail_msg("%s", err.message);
        double e = an->cycle_speed / root_speed - 1;
        printf("    %.3f m/s from the feet (strides from %s, %s), Hips joint %.3f m/s (%+.1f%%), hips' midpoint "
               "%.3f m/s; left strike %.3f off %.3f, right strike %.3f off %.3f\n",
               an->cycle_speed, an->legs[0].stride_source == SK_STRIDE_FOOTPRINTS ? "footprints" : "contact",
               an->legs[1].stride_source == SK_STRIDE_FOOTPRINTS ? "footprints" : "contact", root_speed, 100 * e,
               sk_vec3_length(an->root_velocity), an->legs[0].foot_strike, an->legs[0].foot_off,
               an->legs[1].foot_strike, an->legs[1].foot_off);
        assert_int_equal(an->legs[0].stride_source, SK_STRIDE_FOOTPRINTS);
        assert_int_equal(an->legs[1].stride_source, SK_STRIDE_FOOTPRINTS);
        assert_true(fabs(e) < 0.05);
        assert_true(fabs(an->cycle_duration - cyc) < 1e-9);
        sk_motion_analysis_destroy(an);
        an = NULL;
        /* The seed's contact stride, printed (see above). */
        for (int planted = 0; planted < 2; planted++) {
            o.stride_source = SK_STRIDE_CONTACT;
            o.stride_planted = planted;
            assert_int_equal(sk_motion_analyze(a->skeleton, clip, legs, 2, &o, NULL, &an, &err), SK_OK);
            assert_int_equal(an->legs[0].stride_source, SK_STRIDE_CONTACT);
            printf("    (not asserted) contact stride%s: %.3f m/s (%+.1f%% of the Hips joint's)\n",
                   planted ? " foot-land..foot-lift" : " foot-strike..foot-off", an->cycle_speed,
                   100.0 * (an->cycle_speed / root_speed - 1));
            sk_motion_analysis_destroy(an);
            an = NULL;
        }
        /* A planted phase collapsed onto the stance (a speed tolerance so small that no
         * sample holds still at the stance speed: as a foot of other proportions that never
         * does): no contact stride, the footprints give the same stride as above (within
         * 1 %); with the contact stride asked for, an error naming the leg. */
        o.stride_source = SK_STRIDE_AUTO, o.stride_planted = false;
        assert_int_equal(sk_motion_analyze(a->skeleton, clip, legs, 2, &o, NULL, &an, &err), SK_OK);
        double speed = an->cycle_speed;
        sk_motion_analysis_destroy(an);
        an = NULL;
        o.speed_tolerance = 1e-5f;
        if (sk_motion_analyze(a->skeleton, clip, legs, 2, &o, NULL, &an, &err) != SK_OK) fail_msg("%s", err.message);
        int collapsed = 0;
        for (int l = 0; l < 2; l++) {
            assert_int_equal(an->legs[l].stride_source, SK_STRIDE_FOOTPRINTS);
            collapsed += fabsf(an->legs[l].foot_lift - an->legs[l].foot_land) < 0.01f;
        }
        printf("    collapsed planted phases (speed tolerance 1e-5): %d of 2 legs, %.3f m/s from the footprints "
               "(%.3f before)\n", collapsed, an->cycle_speed, speed);
        assert_true(collapsed >= 1);
        assert_true(fabs(an->cycle_speed / speed - 1) < 0.01);
        sk_motion_analysis_destroy(an);
        an = NULL;
        o.stride_source = SK_STRIDE_CONTACT;
        sk_result cr = sk_motion_analyze(a->skeleton, clip, legs, 2, &o, NULL, &an, &err);
        if (cr == SK_OK) { /* the run: its collapsed phase still spans some foot motion */
            sk_motion_analysis_destroy(an);
            an = NULL;
        } else {
            assert_int_equal(cr, SK_ERR_INVALID_DATA);
            assert_non_null(strstr(err.message, "does not move while on the ground"));
            assert_null(an);
            contact_errors++;
        }
        o.speed_tolerance = 0.0f;
        /* A cycle outside the clip and a bad stride source are refused. */
        o.stride_source = (sk_stride_source)7;
        assert_int_equal(sk_motion_analyze(a->skeleton, clip, legs, 2, &o, NULL, &an, &err), SK_ERR_INVALID_ARGUMENT);
        o.stride_source = SK_STRIDE_AUTO;
        o.cycle_end = 1e6;
        assert_int_equal(sk_motion_analyze(a->skeleton, clip, legs, 2, &o, NULL, &an, &err),
                         SK_ERR_INVALID_ARGUMENT);
        sk_asset_destroy(a);
    }
    printf("  collapsed planted phases with the contact stride asked for: %d of 3 captures refused\n", contact_errors);
    assert_true(contact_errors >= 1); /* the case the footprints now take (an error before, even under AUTO) */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_walk_key_rate), cmocka_unit_test(test_walk_default),
        cmocka_unit_test(test_run_key_rate),  cmocka_unit_test(test_run_default),
        cmocka_unit_test(test_backward), cmocka_unit_test(test_swing_under_the_floor), cmocka_unit_test(test_stance_above_the_pivots), cmocka_unit_test(test_widen_planted), cmocka_unit_test(test_direction_clips),      cmocka_unit_test(test_legs_find), cmocka_unit_test(test_heels_to_ground),
        cmocka_unit_test(test_json_round_trip), cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_alloc_failure), cmocka_unit_test(test_timing),
        cmocka_unit_test(test_mocap), cmocka_unit_test(test_points_from_mesh),
        cmocka_unit_test(test_walk_mesh_points), cmocka_unit_test(test_run_mesh_points),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
