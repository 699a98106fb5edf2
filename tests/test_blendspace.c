/* Blend-space weights (gradient band interpolation, seed 002 §4.2: the
 * properties it lists — exactness, sum, continuity, locality — as property
 * tests), crossfades with interruption, phase sync, and the character motor. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEAR(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

static uint64_t rng = 88172645463325252ull;
static double rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

/* A locomotion layout: idle at the origin, walk/run forward, back, strafes. */
static const float LOCO[] = {0, 0, 0, 1.4f, 0, 4.0f, 0, -1.2f, 1.3f, 0, -1.3f, 0, 3.0f, 0, -3.0f, 0};
enum { NLOCO = 8 };

static void check_props(const float *pts, uint32_t n, uint32_t dim, sk_blendspace_mode mode, double range) {
    float w[16], w2[16];
    /* exactness */
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(sk_blendspace_weights(pts, n, dim, pts + i * dim, mode, w, NULL), SK_OK);
        for (uint32_t j = 0; j < n; j++) NEAR(w[j], j == i ? 1.0 : 0.0, 1e-6);
        /* and just next to it: almost exact (continuity at the samples) */
        float q[2] = {pts[i * dim] + 1e-4f, dim == 2 ? pts[i * dim + 1] - 1e-4f : 0};
        assert_int_equal(sk_blendspace_weights(pts, n, dim, q, mode, w, NULL), SK_OK);
        assert_true(w[i] > 0.99f);
    }
    double worst_jump = 0;
    for (int it = 0; it < 3000; it++) {
        float q[2] = {(float)((rnd() * 2 - 1) * range), (float)((rnd() * 2 - 1) * range)};
        assert_int_equal(sk_blendspace_weights(pts, n, dim, q, mode, w, NULL), SK_OK);
        double sum = 0;
        for (uint32_t j = 0; j < n; j++) {
            assert_true(w[j] >= 0.0f && w[j] <= 1.0f);
            sum += w[j];
        }
        NEAR(sum, 1.0, 1e-5); /* sum */
        /* continuity: a tiny move changes the weights by a bounded amount */
        const float h = 1e-3f;
        float q2[2] = {q[0] + h, q[1] + h};
        assert_int_equal(sk_blendspace_weights(pts, n, dim, q2, mode, w2, NULL), SK_OK);
        for (uint32_t j = 0; j < n; j++) worst_jump = fmax(worst_jump, fabs(w2[j] - w[j]));
    }
    assert_true(worst_jump < 0.02); /* Lipschitz-like: no jumps */
}

static void test_gbi_properties(void **st) {
    (void)st;
    static const float line[] = {0.0f, 1.4f, 4.0f, 6.0f};
    check_props(line, 4, 1, SK_BLENDSPACE_CARTESIAN, 8.0);
    check_props(LOCO, NLOCO, 2, SK_BLENDSPACE_CARTESIAN, 5.0);
    check_props(LOCO, NLOCO, 2, SK_BLENDSPACE_POLAR, 5.0);
    /* 1D is linear interpolation between neighbours, 0 elsewhere (locality) */
    float w[4];
    float q = 2.7f;
    assert_int_equal(sk_blendspace_weights(line, 4, 1, &q, SK_BLENDSPACE_CARTESIAN, w, NULL), SK_OK);
    NEAR(w[1], 0.5, 1e-6);
    NEAR(w[2], 0.5, 1e-6);
    NEAR(w[0], 0.0, 0);
    NEAR(w[3], 0.0, 0);
    q = 9.0f; /* beyond the last sample: clamps to it */
    assert_int_equal(sk_blendspace_weights(line, 4, 1, &q, SK_BLENDSPACE_CARTESIAN, w, NULL), SK_OK);
    NEAR(w[3], 1.0, 1e-6);
    /* 2D locality: halfway between walk and run forward, only those two (and nothing behind) */
    float w8[NLOCO];
    float p[2] = {0.0f, 2.7f};
    assert_int_equal(sk_blendspace_weights(LOCO, NLOCO, 2, p, SK_BLENDSPACE_CARTESIAN, w8, NULL), SK_OK);
    NEAR(w8[1], 0.5, 1e-5);
    NEAR(w8[2], 0.5, 1e-5);
    NEAR(w8[3], 0.0, 0);
    /* polar: the run strafes (radius 3, between the two radii) keep a trace of weight, as in
     * Johansen's method; the samples behind and the idle get none */
    assert_int_equal(sk_blendspace_weights(LOCO, NLOCO, 2, p, SK_BLENDSPACE_POLAR, w8, NULL), SK_OK);
    NEAR(w8[1] + w8[2], 1.0, 0.03);
    NEAR(w8[1], w8[2], 1e-5);
    NEAR(w8[0], 0.0, 0);
    NEAR(w8[3], 0.0, 0);
    /* polar: a fast diagonal (45 degrees, run speed) is a run-forward / run-strafe mix, no walk or idle
     * (the cartesian form would leak weight to the slower samples: seed 002 Slika 9) */
    float diag[2] = {2.2f, 2.2f};
    float run_pts[] = {0, 0, 0, 1.4f, 0, 3.0f, 1.3f, 0, 3.0f, 0};
    float w5[5];
    assert_int_equal(sk_blendspace_weights(run_pts, 5, 2, diag, SK_BLENDSPACE_POLAR, w5, NULL), SK_OK);
    NEAR(w5[0], 0.0, 1e-6);
    assert_true(w5[2] > 0.3f && w5[4] > 0.3f);
    /* errors */
    sk_error err;
    float dup[] = {0, 0, 1, 1, 0, 0};
    assert_int_equal(sk_blendspace_weights(dup, 3, 2, p, SK_BLENDSPACE_CARTESIAN, w8, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "same point"));
    assert_int_equal(sk_blendspace_weights(line, 4, 1, &q, SK_BLENDSPACE_POLAR, w, &err), SK_ERR_INVALID_ARGUMENT);
    float nan_q = NAN;
    assert_int_equal(sk_blendspace_weights(line, 4, 1, &nan_q, SK_BLENDSPACE_CARTESIAN, w, &err), SK_ERR_INVALID_ARGUMENT);
}

static void test_fader(void **st) {
    (void)st;
    sk_fader f;
    sk_fader_init(&f, 1);
    NEAR(sk_fader_weight(&f, 1), 1.0, 0);
    sk_fader_start(&f, 2, 0.5f, SK_FADE_LINEAR);
    sk_fader_update(&f, 0.25f);
    NEAR(sk_fader_weight(&f, 2), 0.5, 1e-6);
    NEAR(sk_fader_weight(&f, 1), 0.5, 1e-6);
    /* interrupt: fade to 3 starting from (0.5, 0.5); weights continuous, sum 1 */
    sk_fader_start(&f, 3, 1.0f, SK_FADE_SMOOTHSTEP);
    NEAR(sk_fader_weight(&f, 2), 0.5, 1e-6);
    NEAR(sk_fader_weight(&f, 3), 0.0, 0);
    float prev[4] = {0, sk_fader_weight(&f, 1), sk_fader_weight(&f, 2), sk_fader_weight(&f, 3)};
    for (int i = 0; i < 60; i++) {
        sk_fader_update(&f, 1.0f / 60.0f);
        float s = 0;
        for (uint32_t id = 1; id <= 3; id++) {
            float w = sk_fader_weight(&f, id);
            assert_true(fabsf(w - prev[id]) < 0.03f); /* no pop */
            prev[id] = w;
            s += w;
        }
        NEAR(s, 1.0, 1e-5);
    }
    assert_false(sk_fader_in_transition(&f));
    NEAR(sk_fader_weight(&f, 3), 1.0, 0);
    /* more sources than slots: weights still sum to 1 */
    for (uint32_t id = 10; id < 10 + 2 * SK_FADER_MAX; id++) {
        sk_fader_start(&f, id, 1.0f, SK_FADE_LINEAR);
        sk_fader_update(&f, 0.1f);
        float s = 0;
        for (uint32_t k = 0; k < f.count; k++) s += f.weight[k];
        NEAR(s, 1.0, 1e-5);
    }
    NEAR(sk_fade_eval(SK_FADE_SMOOTHSTEP, 0.5f), 0.5, 1e-7);
    NEAR(sk_fade_eval(SK_FADE_SMOOTHSTEP, 0.25f), 0.15625, 1e-7);
}

static void test_phase_sync(void **st) {
    (void)st;
    /* 1.0 s walk and 0.7 s run blended 50/50: both complete a cycle every 0.85 s and stay in phase */
    sk_player walk, run;
    sk_player_desc d = {0};
    d.duration = 1.0;
    sk_player_init(&walk, &d);
    d.duration = 0.7;
    d.start_time = 0.35; /* out of phase at first */
    sk_player_init(&run, &d);
    sk_player_seek_phase(&run, sk_player_phase(&walk)); /* synchronise on transition start */
    sk_player *ps[2] = {&walk, &run};
    float w[2] = {0.5f, 0.5f};
    for (int i = 0; i < 51; i++) {
        sk_players_advance_synced(ps, w, 2, 1.0 / 60.0);
        double dp = fabs(sk_player_phase(&walk) - sk_player_phase(&run));
        assert_true(fmin(dp, 1.0 - dp) < 1e-9);
    }
    NEAR(sk_player_phase(&walk), 0.0, 1e-9); /* 51/60 s = 0.85 s = one cycle */
    NEAR(sk_player_unrolled(&walk), 1.0, 1e-9);
}

static void test_motor(void **st) {
    (void)st;
    sk_motor m;
    sk_motor_init(&m, NULL);
    NEAR(m.weights[SK_MOTOR_IDLE], 1.0, 0);
    sk_motor_input in = {{0, 0, 1}, false, false, false};
    for (int i = 0; i < 120; i++) sk_motor_update(&m, &in, 1.0f / 60.0f);
    NEAR(m.speed, 1.4, 1e-4); /* walk speed reached */
    NEAR(m.weights[SK_MOTOR_WALK], 1.0, 1e-4);
    NEAR(m.blend_param[1], 1.4, 1e-3);
    NEAR(m.blend_param[0], 0.0, 1e-3);
    in.run = true;
    float prev = m.speed;
    for (int i = 0; i < 240; i++) {
        sk_motor_update(&m, &in, 1.0f / 60.0f);
        float s = 0;
        for (int k = 0; k < SK_MOTOR_CLIPS; k++) s += m.weights[k];
        NEAR(s, 1.0, 1e-5);
        assert_true(m.speed >= prev - 1e-6f); /* accelerates smoothly */
        prev = m.speed;
    }
    NEAR(m.weights[SK_MOTOR_RUN], 1.0, 1e-4);
    /* crouch while moving: crouch weight rises, speed drops to the crouch speed */
    in.crouch = true;
    for (int i = 0; i < 240; i++) sk_motor_update(&m, &in, 1.0f / 60.0f);
    NEAR(m.crouch, 1.0, 0);
    NEAR(m.speed, 1.0, 1e-3);
    assert_true(m.weights[SK_MOTOR_CROUCH] > 0.9f);
    /* stop: idle+crouch; jump leaves the ground and lands */
    in.crouch = false;
    in.direction = sk_vec3_make(0, 0, 0);
    for (int i = 0; i < 240; i++) sk_motor_update(&m, &in, 1.0f / 60.0f);
    NEAR(m.weights[SK_MOTOR_IDLE], 1.0, 1e-5);
    in.jump = true;
    sk_motor_update(&m, &in, 1.0f / 60.0f);
    assert_false(m.grounded);
    in.jump = false;
    float top = 0;
    for (int i = 0; i < 120; i++) {
        sk_motor_update(&m, &in, 1.0f / 60.0f);
        top = fmaxf(top, m.height);
    }
    assert_true(m.grounded);
    NEAR(top, 4.5 * 4.5 / (2 * 9.81), 0.05);
    /* turning: moving +X faces yaw +90 degrees */
    in.direction = sk_vec3_make(1, 0, 0);
    for (int i = 0; i < 120; i++) sk_motor_update(&m, &in, 1.0f / 60.0f);
    NEAR(m.yaw, 1.5707963, 1e-3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gbi_properties), cmocka_unit_test(test_fader),
        cmocka_unit_test(test_phase_sync),     cmocka_unit_test(test_motor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
