/* The IK-only walker's gait parameters with the seed's meaning
 * (locomotion/procedural.h: hip_rise, step_frequency, rest_step_width and
 * rest_step_ahead; seed 004 §6.2, §7.1, §8.1).
 *
 * References, independent of the code under test:
 *   - step frequency: steps per second counted from the walker's own foot
 *     DOWN events (the time between the first and the last of a steady
 *     stretch), against the value set (at walk_speed) and against the ratio
 *     of two values (at another speed: the seed's p = v sf, so the cadence
 *     scales with sf at any speed);
 *   - hip rise: the seed's closed form, the hips near a step's ends moved
 *     by 2 cm x (-4 (s - 0.5)^2 + 0.25) / rise, against a walker with the
 *     default rise on the same walk (everything else equal: the bob moves
 *     no foot);
 *   - rest step: the heels from the output pose (sk_local_to_model and the
 *     legs' heel points) after a stop, against the width and the offset set
 *     (the default width: the heels' distance across in the rest pose), and
 *     one step (one DOWN event) after the body stopped;
 *   - out-of-range values refused by sk_procedural_create. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct qrig {
    sk_asset *asset;
    const sk_skeleton *skel;
    sk_procedural *P;
    sk_transform *local;
    sk_mat4 *world;
    sk_leg_desc legs[2];
} qrig;

static sk_procedural_desc base_desc(const sk_skeleton *skel, const sk_leg_desc legs[2]) {
    sk_procedural_desc d = {0};
    d.skeleton = skel;
    d.legs[0] = legs[0], d.legs[1] = legs[1];
    d.body_joint = -1;
    return d;
}

static void qrig_asset(qrig *r) {
    memset(r, 0, sizeof *r);
    sk_error err = {0};
    if (sk_mannequin_create(NULL, NULL, &r->asset, &err) != SK_OK) fail_msg("%s", err.message);
    r->skel = r->asset->skeleton;
    assert_int_equal(sk_legs_find(r->skel, r->legs, 2), 2);
    for (int l = 0; l < 2; l++) assert_int_equal(sk_leg_default_points(r->skel, &r->legs[l], &err), SK_OK);
    r->local = calloc(r->skel->joint_count, sizeof *r->local);
    r->world = calloc(r->skel->joint_count, sizeof *r->world);
    assert_non_null(r->local);
    assert_non_null(r->world);
}

static void qrig_make(qrig *r, const sk_procedural_desc *d) {
    sk_error err = {0};
    sk_procedural_destroy(r->P);
    r->P = NULL;
    if (sk_procedural_create(d, NULL, &r->P, &err) != SK_OK) fail_msg("%s", err.message);
}

static void qrig_free(qrig *r) {
    sk_procedural_destroy(r->P);
    free(r->local);
    free(r->world);
    sk_asset_destroy(r->asset);
}

static void qstep(qrig *r, double dt, float x, float z, float yaw) {
    sk_error err = {0};
    sk_pose pose = sk_pose_view(r->local, r->skel->joint_count, NULL, 0);
    if (sk_procedural_update(r->P, dt, x, z, yaw, &pose, &err) != SK_OK) fail_msg("%s", err.message);
    if (sk_local_to_model(r->skel, &pose, &sk_procedural_get_state(r->P)->root, r->world, r->skel->joint_count,
                          &err) != SK_OK)
        fail_msg("%s", err.message);
}

static sk_vec3 heel_of(const qrig *r, int l) {
    return sk_mat4_transform_point(&r->world[r->legs[l].ankle], r->legs[l].heel);
}

static sk_vec3 toe_of(const qrig *r, int l) {
    int32_t tj = r->legs[l].toe >= 0 ? r->legs[l].toe : r->legs[l].ankle;
    return sk_mat4_transform_point(&r->world[tj], r->legs[l].toe_tip);
}

/* Steps per second walking straight along +Z at speed (a 0.5 s speed-up),
 * hz frames a second, from the DOWN events between 3 and 9 s; *n: how
 * many. A step ends on the first frame its progress reaches 1, so at 60 Hz
 * each step may last up to a frame longer than 1 / cadence (2.5 % at 1.5
 * steps a second); at 240 Hz a quarter of that. */
static double cadence_hz(qrig *r, float speed, int hz, int *n) {
    sk_error err = {0};
    assert_int_equal(sk_procedural_reset(r->P, 0, 0, 0, &err), SK_OK);
    float z = 0, v = 0;
    double first = -1, last = -1;
    *n = 0;
    for (int k = 0; k < 9 * hz; k++) {
        v = fminf(speed, v + speed / (0.5f * (float)hz));
        z += v / (float)hz;
        qstep(r, 1.0 / hz, 0, z, 0);
        double t = (k + 1) / (double)hz;
        const sk_procedural_state *st = sk_procedural_get_state(r->P);
        for (int l = 0; l < 2; l++)
            if (t >= 3 && st->feet[l].event.kind == SK_FOOT_EVENT_DOWN) {
                if (first < 0) first = t;
                last = t;
                (*n)++;
            }
    }
    assert_true(*n >= 4);
    return (*n - 1) / (last - first);
}
static double cadence(qrig *r, float speed, int *n) { return cadence_hz(r, speed, 240, n); }

static void test_step_frequency(void **state) {
    (void)state;
    qrig r;
    qrig_asset(&r);
    static const float freqs[] = {1.5f, 1.8f, 2.2f, 2.8f};
    uint32_t checked = 0;
    double at08[4];
    for (size_t i = 0; i < 4; i++) {
        sk_procedural_desc d = base_desc(r.skel, r.legs);
        d.step_frequency = freqs[i];
        qrig_make(&r, &d);
        int n;
        double c = cadence(&r, 1.3f, &n); /* walk_speed's default */
        double c2 = cadence(&r, 0.8f, &n);
        double c60 = cadence_hz(&r, 1.3f, 60, &n);
        at08[i] = c2;
        printf("  step_frequency %.1f: %.3f steps/s at 1.3 m/s (walk_speed; %.3f at 60 frames/s), %.3f at 0.8 m/s\n",
               (double)freqs[i], c, c60, c2);
        assert_true(fabs(c - freqs[i]) < 0.015 * freqs[i]);
        assert_true(c60 <= freqs[i] * 1.005 && c60 > freqs[i] / (1 + freqs[i] / 60) * 0.995); /* at most a frame later */
        checked++;
    }
    /* p = v sf: at another speed the cadence scales with sf */
    for (size_t i = 1; i < 4; i++) {
        double want = freqs[i] / freqs[0], got = at08[i] / at08[0];
        printf("  at 0.8 m/s: cadence ratio %.3f for step_frequency ratio %.3f\n", got, want);
        assert_true(fabs(got - want) < 0.015 * want);
    }
    /* 0: walk_speed / step_length (step_length 0.72 m: 1.806 steps/s) */
    {
        sk_procedural_desc d = base_desc(r.skel, r.legs);
        d.step_length = 0.72f;
        qrig_make(&r, &d);
        int n;
        double c = cadence(&r, 1.3f, &n);
        printf("  step_length 0.72 m, no step_frequency: %.3f steps/s at 1.3 m/s (1.3 / 0.72 = %.3f)\n", c, 1.3 / 0.72);
        assert_true(fabs(c - 1.3 / 0.72) < 0.015 * (1.3 / 0.72));
        checked++;
    }
    /* a walk_speed of 1.0: step_frequency is the cadence at that speed */
    {
        sk_procedural_desc d = base_desc(r.skel, r.legs);
        d.walk_speed = 1.0f;
        d.step_frequency = 1.6f;
        qrig_make(&r, &d);
        int n;
        double c = cadence(&r, 1.0f, &n);
        printf("  walk_speed 1.0, step_frequency 1.6: %.3f steps/s at 1.0 m/s\n", c);
        assert_true(fabs(c - 1.6) < 0.015 * 1.6);
        checked++;
    }
    assert_int_equal(checked, 6);
    qrig_free(&r);
}

/* The seed's hip curve, -4 (s - 0.5)^2 + 0.25, in units of 2 cm. */
static double hip_q(double s) { return 0.02 * (-4 * (s - 0.5) * (s - 0.5) + 0.25); }

static void test_hip_rise(void **state) {
    (void)state;
    /* two walkers on the same path: the default rise (0.2) and rise r;
     * walking at 0.6 m/s (no run), near the step's ends (the curve's low
     * part, where the legs' reach does not cap the body) */
    qrig a, b;
    qrig_asset(&a);
    qrig_asset(&b);
    static const float rises[] = {1.0f, 0.4f, 0.2f, 0.15f, 0.1f};
    double prev_dip = -1;
    uint32_t checked = 0;
    for (size_t i = 0; i < sizeof rises / sizeof rises[0]; i++) {
        sk_procedural_desc da = base_desc(a.skel, a.legs), db = base_desc(b.skel, b.legs);
        db.hip_rise = rises[i];
        qrig_make(&a, &da);
        qrig_make(&b, &db);
        sk_error err = {0};
        assert_int_equal(sk_procedural_reset(a.P, 0, 0, 0, &err), SK_OK);
        assert_int_equal(sk_procedural_reset(b.P, 0, 0, 0, &err), SK_OK);
        float z = 0, v = 0, speed = 0.6f;
        double worst = 0, dip_sum = 0;
        uint32_t ends = 0;
        for (int k = 0; k < 6 * 60; k++) {
            v = fminf(speed, v + speed / 30.0f);
            z += v / 60;
            qstep(&a, 1.0 / 60, 0, z, 0);
            qstep(&b, 1.0 / 60, 0, z, 0);
            const sk_procedural_state *sa = sk_procedural_get_state(a.P), *sb = sk_procedural_get_state(b.P);
            if (k < 60 || sa->mode != SK_PROCEDURAL_WALKING || sb->mode != SK_PROCEDURAL_WALKING) continue;
            if (fabsf(sa->step - 0.5f) < 0.4f || fabsf(sb->step - 0.5f) < 0.4f) continue;
            /* the seed's closed form: q(s) / rise, against the default's q(s) / 0.2 */
            double want = hip_q(sb->step) / rises[i] - hip_q(sa->step) / 0.2, got = sb->body_height - sa->body_height;
            dip_sum += got, ends++;
            if (rises[i] <= 0.2f) worst = fmax(worst, fabs(got - want));
            else assert_true(got <= want + 1e-3); /* shallower: at most the curve (the legs' reach may hold it lower) */
        }
        double dip = -dip_sum / ends; /* how much lower than the default's at the step's ends */
        printf("  hip_rise %.2f: at the step's ends the hips %+.4f m from the default's (%u frames)", (double)rises[i],
               -dip, ends);
        if (rises[i] <= 0.2f) printf(", the seed's q(s) / rise x 2 cm to %.4f m\n", worst);
        else printf(", at most the seed's q(s) / rise x 2 cm\n");
        assert_true(ends >= 30);
        assert_true(worst < 0.003);
        assert_true(dip > prev_dip); /* smaller rise: larger bob */
        prev_dip = dip;
        checked++;
    }
    assert_int_equal(checked, 5);
    qrig_free(&a);
    qrig_free(&b);
}

static void test_rest_step(void **state) {
    (void)state;
    qrig r;
    qrig_asset(&r);
    /* the default width: the heels' distance across in the rest pose */
    sk_error err = {0};
    {
        sk_pose rest = sk_pose_view(r.local, r.skel->joint_count, NULL, 0);
        memcpy(r.local, r.skel->rest, sizeof(sk_transform) * r.skel->joint_count);
        assert_int_equal(sk_local_to_model(r.skel, &rest, NULL, r.world, r.skel->joint_count, &err), SK_OK);
    }
    double rest_w = fabs(heel_of(&r, 0).x - heel_of(&r, 1).x);
    static const struct { float w, a; } cases[] = {{0, 0}, {0.3f, 0}, {0.12f, 0.1f}, {0.25f, -0.12f}};
    uint32_t checked = 0;
    for (size_t c = 0; c < 4; c++) {
        sk_procedural_desc d = base_desc(r.skel, r.legs);
        d.rest_step_width = cases[c].w;
        d.rest_step_ahead = cases[c].a;
        qrig_make(&r, &d);
        sk_path_follower pf;
        float pts[] = {0, 0, 0, 3};
        sk_path_follower_desc pd = {pts, 2, 1.3f, 0, 0, 0, NAN, false};
        assert_int_equal(sk_path_follower_init(&pf, &pd, &err), SK_OK);
        assert_int_equal(sk_procedural_reset(r.P, 0, 0, 0, &err), SK_OK);
        int after_stop = 0, last_down = -1;
        bool stopped = false;
        for (int k = 0; k < 60 * 6; k++) {
            float px = pf.x, pz = pf.z;
            sk_path_follower_step(&pf, 1.0 / 60);
            stopped = stopped || (pf.finished && pf.x == px && pf.z == pz);
            qstep(&r, 1.0 / 60, pf.x, pf.z, pf.yaw);
            const sk_procedural_state *st = sk_procedural_get_state(r.P);
            for (int l = 0; l < 2; l++)
                if (st->feet[l].event.kind == SK_FOOT_EVENT_DOWN) {
                    last_down = l;
                    after_stop += stopped;
                }
        }
        const sk_procedural_state *st = sk_procedural_get_state(r.P);
        assert_int_equal(st->mode, SK_PROCEDURAL_STANDING);
        assert_true(last_down >= 0);
        /* the walk was straight along +Z: across is x, ahead is z; along
         * the way from the toes (a foot left standing on its ball, the heel
         * raised, keeps its toe where the flat foot's is) */
        sk_vec3 hr = heel_of(&r, last_down), hs = heel_of(&r, 1 - last_down);
        sk_vec3 tr = toe_of(&r, last_down), ts = toe_of(&r, 1 - last_down);
        double across = fabs(hr.x - hs.x), ahead = tr.z - ts.z;
        double want_w = cases[c].w > 0 ? cases[c].w : rest_w;
        printf("  rest step width %.2f, ahead %+.2f: heels %.3f m apart across (want %.3f), the resting foot %+.3f m "
               "ahead (toes; heels %.3f and %.3f m up); %d step(s) after the body stopped\n",
               (double)cases[c].w, (double)cases[c].a, across, want_w, ahead, hr.y, hs.y, after_stop);
        assert_true(fabs(across - want_w) < 0.01);
        assert_true(fabs(ahead - cases[c].a) < 0.01);
        assert_int_equal(after_stop, 1); /* the rest step */
        checked++;
    }
    assert_int_equal(checked, 4);
    qrig_free(&r);
}

static void test_ranges(void **state) {
    (void)state;
    qrig r;
    qrig_asset(&r);
    static const struct { float rise, freq, len, w, a; } bad[] = {
        {0.05f, 0, 0, 0, 0}, {1.5f, 0, 0, 0, 0}, {NAN, 0, 0, 0, 0},   {0, 0.5f, 0, 0, 0}, {0, 20, 0, 0, 0},
        {0, 1.8f, 0.7f, 0, 0}, {0, -1, 0, 0, 0}, {0, 0, 0, 0.01f, 0}, {0, 0, 0, 2, 0},   {0, 0, 0, 0, 0.9f},
        {0, 0, 0, 0, NAN},
    };
    uint32_t refused = 0;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sk_procedural_desc d = base_desc(r.skel, r.legs);
        d.hip_rise = bad[i].rise, d.step_frequency = bad[i].freq, d.step_length = bad[i].len;
        d.rest_step_width = bad[i].w, d.rest_step_ahead = bad[i].a;
        sk_procedural *P = NULL;
        sk_error err = {0};
        sk_result res = sk_procedural_create(&d, NULL, &P, &err);
        if (res == SK_ERR_INVALID_ARGUMENT && P == NULL) refused++;
        else printf("  case %zu not refused\n", i);
        sk_procedural_destroy(P);
    }
    printf("  %u of %zu out-of-range parameter sets refused\n", refused, sizeof bad / sizeof bad[0]);
    assert_int_equal(refused, sizeof bad / sizeof bad[0]);
    /* the ends of the ranges are accepted */
    static const struct { float rise, freq, w, a; } good[] = {{0.1f, 0, 0, 0}, {1, 0, 0, 0}, {0, 2.5f, 0.2f, -0.2f}};
    for (size_t i = 0; i < 3; i++) {
        sk_procedural_desc d = base_desc(r.skel, r.legs);
        d.hip_rise = good[i].rise, d.step_frequency = good[i].freq;
        d.rest_step_width = good[i].w, d.rest_step_ahead = good[i].a;
        qrig_make(&r, &d);
    }
    qrig_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_step_frequency),
        cmocka_unit_test(test_hip_rise),
        cmocka_unit_test(test_rest_step),
        cmocka_unit_test(test_ranges),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
