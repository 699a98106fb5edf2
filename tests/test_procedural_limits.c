/* The IK-only walker's jumps, falls and landings inside the mannequin's
 * anatomical limits (locomotion/procedural.h, seed 004 §8.3).
 *
 * Reference: sk_ik_limit_check (1e-3 rad) of every leg joint against
 * sk_mannequin_leg_limits and every arm joint against sk_mannequin_arm_limits,
 * on the local pose the walker writes, every frame. The walker is given no
 * limits (desc.limits NULL): the poses it chooses must be inside them by
 * themselves. Which modes were seen (crouch, flight, landing) is asserted, so
 * a case that never jumped or fell cannot pass for an empty one; the number of
 * frames checked per mode is asserted against the cases' own frame counts. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct jrig {
    sk_asset *asset;
    const sk_skeleton *skel;
    sk_procedural *P;
    sk_transform *local;
    sk_ik_limit *lim; /* legs and arms */
    sk_ik_limit *arms; /* the arm limits given to the walker (jrig_make's arm_limits), or NULL */
} jrig;

/* The walker on the mannequin; with arm_limits it is given the arms'
 * limits (as `skelanim locomote` gives them: the hang's grab and pointing
 * keep inside them), else none. */
static void jrig_make_ex(jrig *r, const sk_terrain *terrain, bool arm_limits) {
    memset(r, 0, sizeof *r);
    sk_error err = {0};
    if (sk_mannequin_create(NULL, NULL, &r->asset, &err) != SK_OK) fail_msg("%s", err.message);
    r->skel = r->asset->skeleton;
    uint32_t J = r->skel->joint_count;
    sk_leg_desc legs[2];
    assert_int_equal(sk_legs_find(r->skel, legs, 2), 2);
    sk_procedural_desc d = {0};
    d.skeleton = r->skel;
    d.legs[0] = legs[0], d.legs[1] = legs[1];
    const char *arm[2][3] = {{"upperarm_l", "forearm_l", "hand_l"}, {"upperarm_r", "forearm_r", "hand_r"}};
    for (int a = 0; a < 2; a++)
        d.arms[a] = (sk_arm_desc){sk_skeleton_find(r->skel, arm[a][0]), sk_skeleton_find(r->skel, arm[a][1]),
                                  sk_skeleton_find(r->skel, arm[a][2])};
    d.arm_count = 2;
    d.body_joint = -1;
    if (terrain) d.terrain = *terrain;
    r->local = calloc(J, sizeof *r->local);
    r->lim = calloc(J, sizeof *r->lim);
    sk_ik_limit *arms = calloc(J, sizeof *arms);
    assert_non_null(r->local);
    assert_non_null(r->lim);
    assert_non_null(arms);
    assert_int_equal(sk_mannequin_leg_limits(r->skel, r->lim, J, &err), SK_OK);
    assert_int_equal(sk_mannequin_arm_limits(r->skel, arms, J, &err), SK_OK);
    for (uint32_t j = 0; j < J; j++)
        if (arms[j].type != SK_IK_LIMIT_NONE) r->lim[j] = arms[j];
    if (arm_limits) d.limits = r->arms = arms;
    else free(arms);
    if (sk_procedural_create(&d, NULL, &r->P, &err) != SK_OK) fail_msg("%s", err.message);
}
static void jrig_make(jrig *r, const sk_terrain *terrain) { jrig_make_ex(r, terrain, false); }

static void jrig_free(jrig *r) {
    sk_procedural_destroy(r->P);
    free(r->local);
    free(r->lim);
    free(r->arms);
    sk_asset_destroy(r->asset);
}

/* Frames per mode and those outside the limits. */
typedef struct jcount {
    uint32_t frames[7], outside[7];
    uint32_t total, total_outside;
    char first[160]; /* the first frame outside: mode, joint, time */
} jcount;

static void check_frame(jrig *r, jcount *c) {
    const sk_procedural_state *st = sk_procedural_get_state(r->P);
    int mode = (int)st->mode;
    assert_true(mode >= 0 && mode < 7);
    bool ok = true;
    for (uint32_t j = 0; j < r->skel->joint_count; j++) {
        if (r->lim[j].type == SK_IK_LIMIT_NONE) continue;
        sk_quat rel = sk_quat_mul(sk_quat_inverse(r->skel->rest[j].r), r->local[j].r);
        if (!sk_ik_limit_check(&r->lim[j], sk_vec3_make(0, 1, 0), rel, 1e-3f)) {
            if (ok && !c->first[0]) {
                sk_quat cl = sk_ik_limit_clamp(&r->lim[j], sk_vec3_make(0, 1, 0), rel);
                float d = 2 * acosf(fminf(1.0f, fabsf(sk_quat_dot(sk_quat_normalize(rel), cl))));
                snprintf(c->first, sizeof c->first, "t %.3f s, mode %d, %s %.3f rad outside", st->time, mode,
                         r->skel->names[j], (double)d);
            }
            ok = false;
        }
    }
    c->frames[mode]++;
    c->total++;
    c->outside[mode] += !ok;
    c->total_outside += !ok;
}

static void step(jrig *r, double dt, float x, float z, float yaw) {
    sk_error err = {0};
    sk_pose pose = sk_pose_view(r->local, r->skel->joint_count, NULL, 0);
    if (sk_procedural_update(r->P, dt, x, z, yaw, &pose, &err) != SK_OK) fail_msg("%s", err.message);
}

static void report(const char *what, const jcount *c) {
    printf("  %-34s %4u frames (standing %u, walking %u, crouching %u, airborne %u, landing %u, hanging %u), %u "
           "outside%s%s\n",
           what, c->total, c->frames[0], c->frames[1], c->frames[2], c->frames[3], c->frames[4], c->frames[6],
           c->total_outside,
           c->first[0] ? ": first " : "", c->first);
}

/* A walk along +Z at speed from z0 (a 0.5 s speed-up), a jump at t_jump
 * (negative: none), for n frames at 60 Hz. */
static void run_case(jrig *r, float z0, float speed, double t_jump, int n, jcount *c) {
    sk_error err = {0};
    assert_int_equal(sk_procedural_reset(r->P, 0, z0, 0, &err), SK_OK);
    memset(c, 0, sizeof *c);
    float z = z0, v = 0;
    bool jumped = false;
    for (int k = 0; k < n; k++) {
        double t = (k + 1) / 60.0;
        if (t_jump >= 0 && !jumped && t >= t_jump) jumped = sk_procedural_jump(r->P);
        v = fminf(speed, v + speed / 30.0f);
        z += v / 60;
        step(r, 1.0 / 60, 0, z, 0);
        check_frame(r, c);
    }
    if (t_jump >= 0) assert_true(jumped);
}

static void test_jumps(void **state) {
    (void)state;
    jrig r;
    jrig_make(&r, NULL);
    static const float speeds[] = {0, 0.5f, 1.0f, 1.4f, 1.8f, 2.4f, 3.0f};
    uint32_t cases = 0, frames = 0, outside = 0, crouch = 0, air = 0, land = 0;
    for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++) {
        jcount c;
        run_case(&r, 0, speeds[i], 1.5, 240, &c);
        char w[64];
        snprintf(w, sizeof w, "jump at 1.5 s, %.1f m/s:", (double)speeds[i]);
        report(w, &c);
        /* the jump happened: a crouch (0.3 s), a flight, a landing */
        assert_true(c.frames[SK_PROCEDURAL_CROUCHING] >= 17 && c.frames[SK_PROCEDURAL_CROUCHING] <= 19);
        assert_true(c.frames[SK_PROCEDURAL_AIRBORNE] >= 20);
        assert_true(c.frames[SK_PROCEDURAL_LANDING] >= 10);
        assert_int_equal(c.total, 240);
        cases++, frames += c.total, outside += c.total_outside;
        crouch += c.frames[2], air += c.frames[3], land += c.frames[4];
    }
    /* jumping again right after landing, twice */
    {
        jcount c;
        sk_error err = {0};
        assert_int_equal(sk_procedural_reset(r.P, 0, 0, 0, &err), SK_OK);
        memset(&c, 0, sizeof c);
        float z = 0;
        int jumps = 0;
        for (int k = 0; k < 300; k++) {
            if (k > 30 && jumps < 3 && sk_procedural_jump(r.P)) jumps++;
            z += 1.2f / 60;
            step(&r, 1.0 / 60, 0, z, 0);
            check_frame(&r, &c);
        }
        report("three jumps in a row, 1.2 m/s:", &c);
        assert_int_equal(jumps, 3);
        cases++, frames += c.total, outside += c.total_outside;
        crouch += c.frames[2], air += c.frames[3], land += c.frames[4];
    }
    printf("  jumps: %u cases, %u frames checked (crouching %u, airborne %u, landing %u), %u outside the limits\n",
           cases, frames, crouch, air, land, outside);
    assert_int_equal(cases, 8);
    assert_int_equal(frames, 7 * 240 + 300);
    assert_int_equal(outside, 0);
    jrig_free(&r);
}

static void test_falls(void **state) {
    (void)state;
    static const float heights[] = {0.3f, 0.6f, 1.0f, 1.2f, 2.0f, 3.0f};
    static const float speeds[] = {0.6f, 1.4f, 2.4f};
    uint32_t cases = 0, frames = 0, outside = 0, air = 0, land = 0, hang = 0;
    for (size_t h = 0; h < sizeof heights / sizeof heights[0]; h++) {
        sk_terrain_shape sh;
        sk_terrain t;
        sk_error err = {0};
        sk_terrain_ledge_options lo = {.height = heights[h], .floor = -heights[h] - 1, .edge = sk_vec3_make(0, 0, 1)};
        assert_int_equal(sk_terrain_ledge(&sh, &lo, &t, &err), SK_OK);
        /* deeper than the mannequin is tall (1.8 m) it hangs from the edge
         * first: the arms' limits given (as the tool gives them), 7 s */
        bool deep = heights[h] > 1.9f;
        int n = deep ? 420 : 300;
        jrig r;
        jrig_make_ex(&r, &t, deep);
        for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++) {
            jcount c;
            run_case(&r, -1, speeds[i], -1, n, &c);
            char w[64];
            snprintf(w, sizeof w, "ledge %.1f m, %.1f m/s:", (double)heights[h], (double)speeds[i]);
            report(w, &c);
            /* below a step's height the walker steps down, no fall */
            if (heights[h] > 0.6f * 0.9f) {
                assert_true(c.frames[SK_PROCEDURAL_AIRBORNE] >= 1);
                assert_true(c.frames[SK_PROCEDURAL_LANDING] >= 10);
            }
            if (deep) assert_true(c.frames[SK_PROCEDURAL_HANGING] >= 60);
            else assert_int_equal(c.frames[SK_PROCEDURAL_HANGING], 0);
            assert_int_equal(c.total, (uint32_t)n);
            cases++, frames += c.total, outside += c.total_outside;
            air += c.frames[3], land += c.frames[4], hang += c.frames[6];
        }
        jrig_free(&r);
    }
    printf("  falls: %u cases, %u frames checked (airborne %u, landing %u, hanging %u), %u outside the limits\n", cases,
           frames, air, land, hang, outside);
    assert_int_equal(cases, 18);
    assert_int_equal(frames, 12 * 300 + 6 * 420);
    assert_int_equal(outside, 0);
}

/* The gait parameters at the ends of their ranges (hip_rise 0.1 and 1,
 * step_frequency giving the longest and the shortest walking step, the rest
 * step's width and offset at their ends), walking and running on flat
 * ground and stopping: every frame inside. */
static void test_parameter_ends(void **state) {
    (void)state;
    static const struct { float rise, freq, w, a; } sets[] = {
        {0.1f, 0, 0, 0}, {1, 0, 0, 0}, {0, 1.45f, 0, 0}, {0, 4.5f, 0, 0}, {0, 0, 0.42f, 0.25f}, {0, 0, 0.09f, -0.25f},
    };
    static const float speeds[] = {0.5f, 1.0f, 1.4f, 1.8f, 2.4f, 3.0f};
    uint32_t cases = 0, frames = 0, outside = 0;
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        jrig r;
        jrig_make(&r, NULL);
        sk_procedural_destroy(r.P);
        sk_leg_desc legs[2];
        assert_int_equal(sk_legs_find(r.skel, legs, 2), 2);
        sk_procedural_desc d = {0};
        d.skeleton = r.skel;
        d.legs[0] = legs[0], d.legs[1] = legs[1];
        d.body_joint = -1;
        d.hip_rise = sets[i].rise, d.step_frequency = sets[i].freq;
        d.rest_step_width = sets[i].w, d.rest_step_ahead = sets[i].a;
        sk_error err = {0};
        if (sk_procedural_create(&d, NULL, &r.P, &err) != SK_OK) fail_msg("%s", err.message);
        for (size_t k = 0; k < sizeof speeds / sizeof speeds[0]; k++) {
            /* 4 s at the speed, then braking to a stop within 1 s and 1 s standing */
            jcount c;
            assert_int_equal(sk_procedural_reset(r.P, 0, 0, 0, &err), SK_OK);
            memset(&c, 0, sizeof c);
            float z = 0, v = 0;
            for (int f = 0; f < 360; f++) {
                v = f < 240 ? fminf(speeds[k], v + speeds[k] / 30.0f) : fmaxf(0.0f, v - speeds[k] / 60.0f);
                z += v / 60;
                step(&r, 1.0 / 60, 0, z, 0);
                check_frame(&r, &c);
            }
            char w[80];
            snprintf(w, sizeof w, "rise %.1f freq %.2f rest %.2f/%+.2f, %.1f m/s:", (double)sets[i].rise,
                     (double)sets[i].freq, (double)sets[i].w, (double)sets[i].a, (double)speeds[k]);
            if (c.total_outside) report(w, &c);
            assert_int_equal(c.frames[SK_PROCEDURAL_STANDING] > 0, 1);
            cases++, frames += c.total, outside += c.total_outside;
        }
        jrig_free(&r);
    }
    printf("  parameters at their ends: %u walks, %u frames checked, %u outside the limits\n", cases, frames, outside);
    assert_int_equal(cases, 36);
    assert_int_equal(frames, 36 * 360);
    assert_int_equal(outside, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jumps),
        cmocka_unit_test(test_falls),
        cmocka_unit_test(test_parameter_ends),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
