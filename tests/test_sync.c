/* Synchronisation and velocity-parameterised blending (locomotion/sync,
 * seed 002 §4.1 Kod 1, §4.2-4.3, §5.1 Kod 4; issue #10 item 2).
 *
 * Kod 1 is checked on synthetic analyses whose stance times differ by known
 * shifts (copies of the mannequin walk's analysis with the stance times
 * moved), including shifts across 0/1; then on the mannequin's walk and run
 * (analysed with sk_motion_analyze): both set the left foot down at phase
 * 0 (src/content/mannequin.c), but the stance time of cost (7) is
 * mid-contact, 0.258 of the walk's cycle and 0.119 of the run's, so they
 * need an offset (0.145), and their legs are not equally far apart (0.5 and
 * 0.488 cycles), so the left stance times agree within 0.01, not exactly. The
 * group's weights come from the polar gradient band blend space, which is
 * exact at its samples: the walk's and the run's own velocities give (1, 0)
 * and (0, 1) exactly. Keytimes blend on the circle. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static double cdiff(double a, double b) { /* signed cyclic a - b in [-0.5, 0.5) */
    double d = a - b;
    return d - floor(d + 0.5);
}

static sk_asset *g_asset;
static sk_motion_analysis *g_walk, *g_run, *g_walk_back;

static sk_motion_analysis *analyze(const char *clip, bool backward) {
    sk_leg_desc legs[4];
    uint32_t n = sk_legs_find(g_asset->skeleton, legs, 4);
    assert_int_equal(n, 2);
    int32_t ci = sk_asset_find_clip(g_asset, clip);
    assert_true(ci >= 0);
    sk_motion_analysis_options o = {0};
    o.backward = backward;
    sk_motion_analysis *an = NULL;
    sk_error err = {0};
    sk_result r = sk_motion_analyze(g_asset->skeleton, g_asset->clips[ci], legs, n, &o, NULL, &an, &err);
    if (r != SK_OK) fail_msg("%s: %s", clip, err.message);
    return an;
}

static int setup(void **state) {
    (void)state;
    sk_error err = {0};
    if (sk_mannequin_create(NULL, NULL, &g_asset, &err) != SK_OK) return -1;
    g_walk = analyze("walk", false);
    g_run = analyze("run", false);
    g_walk_back = analyze("walk", true);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    sk_motion_analysis_destroy(g_walk);
    sk_motion_analysis_destroy(g_run);
    sk_motion_analysis_destroy(g_walk_back);
    sk_asset_destroy(g_asset);
    return 0;
}

/* A shallow copy of an analysis with its own legs (stance times shifted). */
typedef struct shifted {
    sk_motion_analysis a;
    sk_leg_analysis legs[2];
} shifted;

static void make_shifted(shifted *s, const sk_motion_analysis *src, double shift) {
    s->a = *src;
    for (uint32_t l = 0; l < 2; l++) {
        s->legs[l] = src->legs[l];
        double t = src->legs[l].stance_time + shift;
        s->legs[l].stance_time = (float)(t - floor(t));
    }
    s->a.legs = s->legs;
}

static void test_kod1_two(void **state) {
    (void)state;
    shifted b;
    make_shifted(&b, g_walk, 0.3);
    const sk_motion_analysis *m[2] = {g_walk, &b.a};
    float off[2] = {-1, -1};
    sk_error err = {0};
    assert_int_equal(sk_motion_sync_offsets(m, 2, NULL, off, &err), SK_OK);
    printf("  walk + walk shifted by 0.3: offsets %.6f %.6f (expected 0, 0.7)\n", off[0], off[1]);
    assert_true(off[0] == 0.0f);
    assert_true(off[1] >= 0.0f && off[1] < 1.0f);
    assert_true(fabs(cdiff(off[1], -0.3)) < 1e-3);
    /* stance + offset agree */
    for (uint32_t l = 0; l < 2; l++)
        assert_true(fabs(cdiff(g_walk->legs[l].stance_time + off[0], b.legs[l].stance_time + off[1])) < 1e-3);
    /* N = 1 gives 0 */
    float one = -1;
    assert_int_equal(sk_motion_sync_offsets(m + 1, 1, NULL, &one, &err), SK_OK);
    assert_true(one == 0.0f);
    /* deterministic */
    float again[2];
    assert_int_equal(sk_motion_sync_offsets(m, 2, NULL, again, &err), SK_OK);
    assert_memory_equal(off, again, sizeof off);
}

static void test_kod1_three_and_wrap(void **state) {
    (void)state;
    /* three motions; shifts 0, 0.3 and 0.85 (the last crosses 0/1) */
    const double sh[3] = {0.0, 0.3, 0.85};
    shifted s[3];
    const sk_motion_analysis *m[3];
    for (int i = 0; i < 3; i++) make_shifted(&s[i], g_walk, sh[i]), m[i] = &s[i].a;
    float off[3];
    sk_error err = {0};
    assert_int_equal(sk_motion_sync_offsets(m, 3, NULL, off, &err), SK_OK);
    printf("  three motions shifted 0, 0.3, 0.85: offsets %.6f %.6f %.6f\n", off[0], off[1], off[2]);
    for (int i = 0; i < 3; i++) {
        assert_true(off[i] >= 0.0f && off[i] < 1.0f);
        assert_true(fabs(cdiff(off[i], -sh[i])) < 1e-3);
    }
    /* stance times just either side of 0: 0.98 and 0.03 (left), 0.48 and 0.53 (right): offset 0.95, not ~0.45 */
    shifted a, b;
    make_shifted(&a, g_walk, 0.0), make_shifted(&b, g_walk, 0.0);
    a.legs[0].stance_time = 0.98f, a.legs[1].stance_time = 0.48f;
    b.legs[0].stance_time = 0.03f, b.legs[1].stance_time = 0.53f;
    const sk_motion_analysis *w[2] = {&a.a, &b.a};
    float o2[2];
    assert_int_equal(sk_motion_sync_offsets(w, 2, NULL, o2, &err), SK_OK);
    printf("  stance 0.98/0.48 and 0.03/0.53: offset %.6f (expected 0.95)\n", o2[1]);
    assert_true(fabs(cdiff(o2[1], -0.05)) < 1e-4);
    /* legs that disagree: left wants +0.1, right +0.2: the circular mean, 0.15 */
    b.legs[0].stance_time = 0.08f, b.legs[1].stance_time = 0.68f;
    assert_int_equal(sk_motion_sync_offsets(w, 2, NULL, o2, &err), SK_OK);
    printf("  legs disagreeing (+0.10, +0.20): offset %.6f (expected 0.85)\n", o2[1]);
    assert_true(fabs(cdiff(o2[1], -0.15)) < 2e-3);
}

static void test_kod1_errors(void **state) {
    (void)state;
    float off[2];
    sk_error err = {0};
    const sk_motion_analysis *m[2] = {g_walk, NULL};
    assert_int_equal(sk_motion_sync_offsets(m, 0, NULL, off, &err), SK_ERR_INVALID_ARGUMENT);
    printf("  empty: %s\n", err.message);
    assert_non_null(strstr(err.message, "no motions"));
    assert_int_equal(sk_motion_sync_offsets(m, 2, NULL, off, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_motion_sync_offsets(NULL, 1, NULL, off, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_motion_sync_offsets(m, 1, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    shifted b;
    make_shifted(&b, g_walk, 0.0);
    b.a.leg_count = 1;
    m[1] = &b.a;
    assert_int_equal(sk_motion_sync_offsets(m, 2, NULL, off, &err), SK_ERR_INVALID_ARGUMENT);
    printf("  legs differ: %s\n", err.message);
    b.a.leg_count = 2;
    b.legs[1].ankle_joint = b.legs[0].ankle_joint;
    assert_int_equal(sk_motion_sync_offsets(m, 2, NULL, off, &err), SK_ERR_INVALID_ARGUMENT);
    b.legs[1] = g_walk->legs[1];
    b.legs[0].stance_time = NAN;
    assert_int_equal(sk_motion_sync_offsets(m, 2, NULL, off, &err), SK_ERR_INVALID_ARGUMENT);
}

static sk_motion_group *walk_run_group(void) {
    const sk_motion_analysis *m[2] = {g_walk, g_run};
    sk_motion_group *g = NULL;
    sk_error err = {0};
    if (sk_motion_group_create(m, 2, NULL, &g, &err) != SK_OK) fail_msg("%s", err.message);
    return g;
}

static void test_walk_run_sync(void **state) {
    (void)state;
    sk_motion_group *g = walk_run_group();
    assert_int_equal(sk_motion_group_count(g), 2);
    assert_int_equal(sk_motion_group_leg_count(g), 2);
    float o0 = sk_motion_group_offset(g, 0), o1 = sk_motion_group_offset(g, 1);
    for (uint32_t l = 0; l < 2; l++) {
        double a = g_walk->legs[l].stance_time + o0, b = g_run->legs[l].stance_time + o1;
        printf("  %-5s stance walk %.4f run %.4f, offsets %.4f %.4f: synced %.4f vs %.4f (diff %.5f)\n",
               g_walk->legs[l].name, g_walk->legs[l].stance_time, g_run->legs[l].stance_time, o0, o1, a - floor(a),
               b - floor(b), cdiff(a, b));
        if (l == 0) assert_true(fabs(cdiff(a, b)) < 0.01);
    }
    sk_motion_group_destroy(g);
}

static void test_weights(void **state) {
    (void)state;
    sk_motion_group *g = walk_run_group();
    sk_vec3 vw = sk_motion_group_velocity(g, 0), vr = sk_motion_group_velocity(g, 1);
    printf("  velocities: walk (%.4f, %.4f), run (%.4f, %.4f) m/s\n", vw.x, vw.z, vr.x, vr.z);
    assert_true(fabs(vw.z - 1.4) < 0.014 && fabs(vr.z - 3.5) < 0.035);
    float w[2];
    sk_motion_blend b;
    sk_error err = {0};
    assert_int_equal(sk_motion_group_evaluate(g, vw, w, 2, &b, &err), SK_OK);
    printf("  at the walk's velocity: %.9g %.9g, duration %.9g (walk %.9g)\n", w[0], w[1], b.cycle_duration,
           g_walk->cycle_duration);
    assert_true(w[0] == 1.0f && w[1] == 0.0f);
    assert_true(b.cycle_duration == g_walk->cycle_duration);
    for (uint32_t l = 0; l < 2; l++) { /* a single motion's keytimes come back exactly (+ its offset) */
        double k = g_walk->legs[l].foot_strike + (double)sk_motion_group_offset(g, 0);
        assert_true(fabs(cdiff(b.legs[l].foot_strike, k)) < 1e-6);
        /* and its stance position, foot direction and length (Kod 4's weighted sums at weight 1) */
        const sk_leg_analysis *L = &g_walk->legs[l];
        assert_memory_equal(&b.legs[l].stance_position, &L->stance_position, sizeof(sk_vec3));
        assert_memory_equal(&b.legs[l].foot_direction, &L->foot_direction, sizeof(sk_vec3));
        assert_true(b.legs[l].foot_length == L->foot_length);
    }
    assert_int_equal(sk_motion_group_evaluate(g, vr, w, 2, &b, &err), SK_OK);
    printf("  at the run's velocity: %.9g %.9g, duration %.9g (run %.9g)\n", w[0], w[1], b.cycle_duration,
           g_run->cycle_duration);
    assert_true(w[0] == 0.0f && w[1] == 1.0f);
    assert_true(b.cycle_duration == g_run->cycle_duration);
    /* in between: sum 1, continuous (steps of 1 mm/s) and monotone, duration between the two */
    float prev[2] = {1, 0};
    double worst_sum = 0, worst_jump = 0;
    for (int s = 0; s <= 4000; s++) {
        sk_vec3 v = sk_vec3_make(0, 0, vw.z + (vr.z - vw.z) * (float)s / 4000.0f);
        assert_int_equal(sk_motion_group_evaluate(g, v, w, 2, &b, &err), SK_OK);
        double sum = (double)w[0] + w[1];
        if (fabs(sum - 1) > worst_sum) worst_sum = fabs(sum - 1);
        double jump = fmax(fabs(w[0] - prev[0]), fabs(w[1] - prev[1]));
        if (jump > worst_jump) worst_jump = jump;
        assert_true(w[1] >= prev[1] - 1e-6f);
        assert_true(b.cycle_duration >= g_run->cycle_duration - 1e-9 && b.cycle_duration <= g_walk->cycle_duration + 1e-9);
        prev[0] = w[0], prev[1] = w[1];
    }
    printf("  walk..run in 4000 steps: |sum - 1| <= %.3g, largest step %.3g\n", worst_sum, worst_jump);
    assert_true(worst_sum < 1e-6);
    assert_true(worst_jump < 2e-3);
    /* half-way: keytimes and duration between */
    sk_vec3 mid = sk_vec3_make(0, 0, (vw.z + vr.z) / 2);
    assert_int_equal(sk_motion_group_evaluate(g, mid, w, 2, &b, &err), SK_OK);
    printf("  half-way (%.3f m/s): weights %.4f %.4f, duration %.4f s, velocity %.4f m/s\n", mid.z, w[0], w[1],
           b.cycle_duration, b.velocity.z);
    assert_true(w[0] > 0.2f && w[1] > 0.2f);
    /* the weighted sums of Kod 4 at these weights */
    for (uint32_t l = 0; l < 2; l++) {
        const sk_leg_analysis *A = &g_walk->legs[l], *B = &g_run->legs[l];
        double zs = w[0] * A->stance_position.z + w[1] * B->stance_position.z;
        double fl = w[0] * A->foot_length + w[1] * B->foot_length;
        printf("  %-5s stance position z %.4f (walk %.4f, run %.4f), foot length %.4f m\n", A->name,
               b.legs[l].stance_position.z, A->stance_position.z, B->stance_position.z, b.legs[l].foot_length);
        assert_true(fabs(b.legs[l].stance_position.z - zs) < 1e-6 && fabs(b.legs[l].foot_length - fl) < 1e-6);
    }
    sk_motion_group_destroy(g);
}

/* The group's phase and anim/fader.h's synchronised players agree: players
 * seeked to each motion's clip phase and advanced by
 * sk_players_advance_synced with the group's weights stay at the clip phase
 * of the group phase advanced by dt / the blended cycle duration. */
static void test_players_follow_group_phase(void **state) {
    (void)state;
    sk_motion_group *g = walk_run_group();
    float w[2];
    sk_motion_blend b;
    sk_error err = {0};
    assert_int_equal(sk_motion_group_evaluate(g, sk_vec3_make(0, 0, 2.0f), w, 2, &b, &err), SK_OK);
    const sk_motion_analysis *m[2] = {g_walk, g_run};
    sk_player pl[2];
    sk_player *pp[2] = {&pl[0], &pl[1]};
    double phi = 0.4;
    for (uint32_t i = 0; i < 2; i++) {
        sk_player_desc d = {0};
        d.duration = m[i]->cycle_duration;
        d.loop = SK_LOOP_REPEAT;
        sk_player_init(&pl[i], &d);
        sk_player_seek_phase(&pl[i], sk_motion_group_clip_phase(g, i, phi));
    }
    double worst = 0;
    for (int step = 0; step < 300; step++) {
        double dt = 1.0 / 60.0;
        double dphase = sk_players_advance_synced(pp, w, 2, dt);
        assert_true(fabs(dphase - dt / b.cycle_duration) < 1e-12);
        phi += dt / b.cycle_duration;
        for (uint32_t i = 0; i < 2; i++) {
            double e = fabs(cdiff(sk_player_phase(&pl[i]), sk_motion_group_clip_phase(g, i, phi)));
            if (e > worst) worst = e;
        }
    }
    printf("  weights %.4f %.4f, cycle %.4f s: players vs group phase after 5 s: %.3g cycles\n", w[0], w[1],
           b.cycle_duration, worst);
    assert_true(worst < 1e-9);
    sk_motion_group_destroy(g);
}

static void test_circular_keytimes(void **state) {
    (void)state;
    /* Two copies of the walk, identical stance (offsets 0), foot-strike 0.95 and 0.05, distinct velocities */
    shifted a, c;
    make_shifted(&a, g_walk, 0.0), make_shifted(&c, g_walk, 0.0);
    c.a.cycle_speed = g_walk->cycle_speed * 2;
    for (int l = 0; l < 2; l++) a.legs[l].foot_strike = 0.95f, c.legs[l].foot_strike = 0.05f;
    const sk_motion_analysis *m[2] = {&a.a, &c.a};
    sk_motion_group *g = NULL;
    sk_error err = {0};
    assert_int_equal(sk_motion_group_create(m, 2, NULL, &g, &err), SK_OK);
    assert_true(sk_motion_group_offset(g, 1) == 0.0f);
    float w[2] = {0.5f, 0.5f};
    sk_motion_blend b;
    assert_int_equal(sk_motion_group_blend(g, w, 2, &b, &err), SK_OK);
    printf("  foot-strike 0.95 and 0.05 at 1:1 -> %.6f (a linear sum: 0.5)\n", b.legs[0].foot_strike);
    assert_true(fabs(cdiff(b.legs[0].foot_strike, 0.0)) < 1e-6);
    assert_true(b.legs[0].foot_strike >= 0.0f && b.legs[0].foot_strike < 1.0f);
    w[0] = 0.75f, w[1] = 0.25f; /* closer to 0.95: the angle of 0.75 e(-0.05) + 0.25 e(0.05) */
    assert_int_equal(sk_motion_group_blend(g, w, 2, &b, &err), SK_OK);
    double want = atan2(0.75 * sin(-0.05 * 2 * PI) + 0.25 * sin(0.05 * 2 * PI),
                        0.75 * cos(-0.05 * 2 * PI) + 0.25 * cos(0.05 * 2 * PI)) / (2 * PI);
    printf("  at 3:1 -> %.6f (expected %.6f)\n", b.legs[0].foot_strike, want + 1);
    assert_true(fabs(cdiff(b.legs[0].foot_strike, want)) < 1e-6);
    /* errors in the blend's weights */
    w[0] = NAN;
    assert_int_equal(sk_motion_group_blend(g, w, 2, &b, &err), SK_ERR_INVALID_ARGUMENT);
    w[0] = 0, w[1] = 0;
    assert_int_equal(sk_motion_group_blend(g, w, 2, &b, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_motion_group_blend(g, w, 1, &b, &err), SK_ERR_INVALID_ARGUMENT);
    sk_motion_group_destroy(g);
}

static void test_footbase(void **state) {
    (void)state;
    sk_motion_group *g = walk_run_group();
    float w[2];
    sk_motion_blend b;
    sk_error err = {0};
    assert_int_equal(sk_motion_group_evaluate(g, sk_motion_group_velocity(g, 0), w, 2, &b, &err), SK_OK);
    /* at the walk alone the trajectory is the walk's own, sample by sample from its stance */
    const sk_leg_analysis *L = &g_walk->legs[0];
    uint32_t N = g_walk->sample_count;
    double worst = 0;
    for (uint32_t k = 0; k < N; k++) {
        sk_vec3 p;
        double phase = b.legs[0].stance_time + (double)k / N;
        assert_int_equal(sk_motion_group_footbase(g, w, 2, &b, 0, phase, &p, &err), SK_OK);
        sk_vec3 q = L->normalized_footbase[(L->stance_sample + k) % N];
        double d = fmax(fabs(p.x - q.x), fmax(fabs(p.y - q.y), fabs(p.z - q.z)));
        if (d > worst) worst = d;
    }
    printf("  walk alone: footbase vs the analysis' samples: %.3g\n", worst);
    assert_true(worst < 1e-4); /* the phase is a float: tau * N lands within a fraction of a sample */
    /* half-way: z runs 0 .. 1 (stance .. next stance), 1 just before the next stance, not 0 */
    sk_vec3 mid = sk_vec3_make(0, 0, 2.45f);
    assert_int_equal(sk_motion_group_evaluate(g, mid, w, 2, &b, &err), SK_OK);
    sk_vec3 p0, p1;
    assert_int_equal(sk_motion_group_footbase(g, w, 2, &b, 0, b.legs[0].stance_time, &p0, &err), SK_OK);
    assert_int_equal(sk_motion_group_footbase(g, w, 2, &b, 0, b.legs[0].stance_time - 1e-4, &p1, &err), SK_OK);
    printf("  half-way: z at stance %.4f, just before the next %.4f\n", p0.z, p1.z);
    assert_true(fabs(p0.z) < 0.01 && fabs(p1.z - 1) < 0.01);
    assert_int_equal(sk_motion_group_footbase(g, w, 2, &b, 2, 0.0, &p0, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_motion_group_footbase(g, w, 2, &b, 0, NAN, &p0, &err), SK_ERR_INVALID_ARGUMENT);
    sk_motion_group_destroy(g);
}

static void test_backward(void **state) {
    (void)state;
    const sk_motion_analysis *m[3] = {g_walk, g_run, g_walk_back};
    sk_motion_group *g = NULL;
    sk_error err = {0};
    assert_int_equal(sk_motion_group_create(m, 3, NULL, &g, &err), SK_OK);
    sk_vec3 vb = sk_motion_group_velocity(g, 2);
    printf("  backward walk velocity (%.4f, %.4f) m/s, offsets %.4f %.4f %.4f\n", vb.x, vb.z,
           sk_motion_group_offset(g, 0), sk_motion_group_offset(g, 1), sk_motion_group_offset(g, 2));
    assert_true(vb.z < -1.3f);
    float w[3];
    sk_motion_blend b;
    assert_int_equal(sk_motion_group_evaluate(g, vb, w, 3, &b, &err), SK_OK);
    assert_true(w[0] == 0.0f && w[1] == 0.0f && w[2] == 1.0f);
    assert_true(b.cycle_duration == g_walk_back->cycle_duration);
    /* played reversed: group phase phi -> clip phase 1 - (phi - offset) */
    double o = sk_motion_group_offset(g, 2);
    for (double phi = 0.0; phi < 1.0; phi += 0.1) {
        double t = sk_motion_group_clip_phase(g, 2, phi);
        assert_true(t >= 0.0 && t < 1.0);
        assert_true(fabs(cdiff(t, 1.0 - (phi - o))) < 1e-9);
        double tf = sk_motion_group_clip_phase(g, 0, phi);
        assert_true(fabs(cdiff(tf, phi - sk_motion_group_offset(g, 0))) < 1e-9);
    }
    sk_motion_group_destroy(g);
}

static void test_group_errors(void **state) {
    (void)state;
    sk_motion_group *g = (sk_motion_group *)1;
    sk_error err = {0};
    const sk_motion_analysis *m[2] = {g_walk, g_walk};
    assert_int_equal(sk_motion_group_create(m, 0, NULL, &g, &err), SK_ERR_INVALID_ARGUMENT);
    printf("  empty group: %s\n", err.message);
    assert_null(g);
    assert_int_equal(sk_motion_group_create(m, 2, NULL, &g, &err), SK_ERR_INVALID_ARGUMENT);
    printf("  same velocity twice: %s\n", err.message);
    assert_null(g);
    assert_int_equal(sk_motion_group_create(NULL, 1, NULL, &g, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_motion_group_create(m, 1, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    /* one motion: weight 1 at any velocity */
    assert_int_equal(sk_motion_group_create(m, 1, NULL, &g, &err), SK_OK);
    float w[2] = {0, 0};
    sk_motion_blend b;
    assert_int_equal(sk_motion_group_evaluate(g, sk_vec3_make(0, 0, 7), w, 2, &b, &err), SK_OK);
    assert_true(w[0] == 1.0f && b.cycle_duration == g_walk->cycle_duration);
    sk_motion_group_destroy(g);
    g = walk_run_group();
    const float bad[] = {NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(sk_motion_group_evaluate(g, sk_vec3_make(bad[i], 0, 1), w, 2, &b, &err),
                         SK_ERR_INVALID_ARGUMENT);
        assert_int_equal(sk_motion_group_evaluate(g, sk_vec3_make(0, 0, bad[i]), w, 2, &b, &err),
                         SK_ERR_INVALID_ARGUMENT);
    }
    printf("  NaN velocity: %s\n", err.message);
    assert_non_null(strstr(err.message, "not finite"));
    assert_int_equal(sk_motion_group_evaluate(g, sk_vec3_make(0, 0, 1), w, 1, &b, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_motion_group_evaluate(NULL, sk_vec3_make(0, 0, 1), w, 2, &b, &err), SK_ERR_INVALID_ARGUMENT);
    /* NULL out: weights only */
    assert_int_equal(sk_motion_group_evaluate(g, sk_vec3_make(0, 0, 2), w, 2, NULL, &err), SK_OK);
    assert_true(fabs(w[0] + w[1] - 1) < 1e-6);
    sk_motion_group_destroy(g);
}

/* ---- allocation failure (the counting allocator of test_alloc_failure.c) ---- */
typedef struct tracker {
    size_t calls, fail_at, live_bytes;
    bool persistent, bad_size;
} tracker;
typedef struct header {
    size_t size, pad;
} header;

static void *t_alloc(void *user, size_t size) {
    tracker *t = user;
    t->calls++;
    if (t->fail_at && (t->calls == t->fail_at || (t->persistent && t->calls > t->fail_at))) return NULL;
    header *h = calloc(1, sizeof(header) + size);
    if (!h) return NULL;
    h->size = size;
    t->live_bytes += size;
    return h + 1;
}
static void t_free(void *user, void *p, size_t size) {
    tracker *t = user;
    if (!p) return;
    header *h = (header *)p - 1;
    if (h->size != size) t->bad_size = true;
    t->live_bytes -= h->size;
    free(h);
}

static void test_alloc_failure(void **state) {
    (void)state;
    const sk_motion_analysis *m[3] = {g_walk, g_run, g_walk_back};
    tracker t = {0};
    sk_allocator al = {t_alloc, NULL, t_free, &t};
    sk_motion_group *g = NULL;
    sk_error err = {0};
    assert_int_equal(sk_motion_group_create(m, 3, &al, &g, &err), SK_OK);
    size_t count = t.calls;
    sk_motion_group_destroy(g);
    assert_int_equal(t.live_bytes, 0);
    assert_false(t.bad_size);
    printf("  sk_motion_group_create: %zu allocations\n", count);
    assert_true(count >= 2);
    size_t runs = 0;
    for (int persistent = 0; persistent < 2; persistent++)
        for (size_t k = 1; k <= count; k++) {
            t = (tracker){.fail_at = k, .persistent = persistent};
            g = (sk_motion_group *)1;
            assert_int_equal(sk_motion_group_create(m, 3, &al, &g, &err), SK_ERR_OUT_OF_MEMORY);
            assert_null(g);
            assert_int_equal(t.live_bytes, 0);
            assert_false(t.bad_size);
            runs++;
        }
    assert_int_equal(runs, 2 * count);
    /* the offsets' scratch alone */
    float off[3];
    t = (tracker){.fail_at = 1};
    assert_int_equal(sk_motion_sync_offsets(m, 3, &al, off, &err), SK_ERR_OUT_OF_MEMORY);
    assert_int_equal(t.live_bytes, 0);
    /* per-frame evaluation allocates nothing */
    t = (tracker){0};
    assert_int_equal(sk_motion_group_create(m, 3, &al, &g, &err), SK_OK);
    size_t after_create = t.calls;
    float w[3];
    sk_motion_blend b;
    sk_vec3 p;
    for (int s = 0; s < 100; s++) {
        assert_int_equal(sk_motion_group_evaluate(g, sk_vec3_make(0.01f * s, 0, -2 + 0.06f * s), w, 3, &b, &err), SK_OK);
        assert_int_equal(sk_motion_group_footbase(g, w, 3, &b, 1, 0.01 * s, &p, &err), SK_OK);
    }
    assert_int_equal(t.calls, after_create);
    sk_motion_group_destroy(g);
    assert_int_equal(t.live_bytes, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kod1_two),
        cmocka_unit_test(test_kod1_three_and_wrap),
        cmocka_unit_test(test_kod1_errors),
        cmocka_unit_test(test_walk_run_sync),
        cmocka_unit_test(test_weights),
        cmocka_unit_test(test_players_follow_group_phase),
        cmocka_unit_test(test_circular_keytimes),
        cmocka_unit_test(test_footbase),
        cmocka_unit_test(test_backward),
        cmocka_unit_test(test_group_errors),
        cmocka_unit_test(test_alloc_failure),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, setup, teardown));
}
