/* Playback state, marker events (property tests with random steps, speeds and
 * directions against closed-form crossing counts) and root motion. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEAR(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double rnd(void) { /* xorshift64*, uniform [0, 1) */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- basic playback ---- */
static void test_player_basics(void **st) {
    (void)st;
    sk_player p;
    sk_player_desc d = {0};
    d.duration = 2.0;
    sk_player_init(&p, &d); /* zeroed desc: speed 1, repeat */
    NEAR(p.speed, 1.0, 0);
    sk_player_advance(&p, 0.5, NULL, 0, NULL, NULL);
    NEAR(sk_player_clip_time(&p), 0.5, 1e-12);
    NEAR(sk_player_phase(&p), 0.25, 1e-12);
    sk_player_advance(&p, 1.75, NULL, 0, NULL, NULL);
    NEAR(sk_player_clip_time(&p), 0.25, 1e-12);
    assert_int_equal(p.cycle, 1);
    /* pause */
    sk_player_set_paused(&p, true);
    sk_player_advance(&p, 1.0, NULL, 0, NULL, NULL);
    NEAR(sk_player_clip_time(&p), 0.25, 1e-12);
    sk_player_set_paused(&p, false);
    /* backwards past 0 wraps to the end */
    sk_player_set_speed(&p, -2.0f);
    sk_player_advance(&p, 0.25, NULL, 0, NULL, NULL);
    NEAR(sk_player_clip_time(&p), 1.75, 1e-12);
    assert_int_equal(p.cycle, 0);
    /* start offset and scrubbing */
    d.start_time = 5.5;
    sk_player_init(&p, &d);
    NEAR(sk_player_clip_time(&p), 1.5, 1e-12);
    sk_player_seek(&p, -0.5);
    NEAR(sk_player_clip_time(&p), 1.5, 1e-12);
    sk_player_seek_phase(&p, 0.5);
    NEAR(sk_player_clip_time(&p), 1.0, 1e-12);
    /* clamp */
    d.start_time = 0;
    d.loop = SK_LOOP_CLAMP;
    sk_player_init(&p, &d);
    sk_player_advance(&p, 5.0, NULL, 0, NULL, NULL);
    NEAR(sk_player_clip_time(&p), 2.0, 0);
    assert_true(sk_player_finished(&p));
    NEAR(sk_player_phase(&p), 1.0, 0);
    /* ping-pong: 0..2..0 */
    d.loop = SK_LOOP_PING_PONG;
    sk_player_init(&p, &d);
    sk_player_advance(&p, 2.5, NULL, 0, NULL, NULL);
    NEAR(sk_player_clip_time(&p), 1.5, 1e-12);
    sk_player_advance(&p, 2.0, NULL, 0, NULL, NULL);
    NEAR(sk_player_clip_time(&p), 0.5, 1e-12);
    NEAR(sk_player_phase(&p), 0.125, 1e-12);
    /* zero-length clip stays at 0 */
    sk_player_desc z = {0};
    sk_player_init(&p, &z);
    assert_int_equal(sk_player_advance(&p, 1.0, NULL, 0, NULL, NULL), 0);
    NEAR(sk_player_clip_time(&p), 0, 0);
}

/* ---- events ---- */
typedef struct ev_log {
    uint32_t count;
    uint32_t marker[4096];
    int64_t cycle[4096];
    int direction[4096];
    double frac[4096];
    uint32_t stop_after; /* 0 = never */
} ev_log;

static bool log_event(void *user, const sk_event *ev) {
    ev_log *l = user;
    if (l->count < 4096) {
        l->marker[l->count] = ev->marker;
        l->cycle[l->count] = ev->cycle;
        l->direction[l->count] = ev->direction;
        l->frac[l->count] = ev->step_fraction;
    }
    l->count++;
    return !(l->stop_after && l->count >= l->stop_after);
}

static void test_events_simple(void **st) {
    (void)st;
    static const sk_marker m[] = {{"start", 0.0}, {"step_l", 0.25}, {"step_r", 0.75}, {"end", 1.0}};
    assert_int_equal(sk_markers_validate(m, 4, 1.0, NULL), SK_OK);
    sk_marker bad[] = {{"a", 0.5}, {"b", 0.25}};
    sk_error err;
    assert_int_equal(sk_markers_validate(bad, 2, 1.0, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "markers[1] (b)"));
    sk_player p;
    sk_player_desc d = {0};
    d.duration = 1.0;
    sk_player_init(&p, &d);
    ev_log *l = calloc(1, sizeof *l);
    /* land exactly on a marker: reported once, not again when moving on */
    assert_int_equal(sk_player_advance(&p, 0.25, m, 4, log_event, l), 1);
    assert_int_equal(l->marker[0], 1);
    assert_int_equal(sk_player_advance(&p, 0.25, m, 4, log_event, l), 0);
    /* wrap: step_r, then end == start (the same instant) both reported at the wrap, in order */
    l->count = 0;
    assert_int_equal(sk_player_advance(&p, 0.6, m, 4, log_event, l), 3);
    assert_int_equal(l->marker[0], 2);
    assert_int_equal(l->marker[1], 3); /* "end" (m == d) and "start" are the same instant: end first */
    assert_int_equal(l->marker[2], 0);
    assert_int_equal(l->cycle[1], 1);
    NEAR(l->frac[1], 0.5 / 0.6, 1e-12);
    /* a step of 3 loops reports each marker 3 times, in time order */
    l->count = 0;
    assert_int_equal(sk_player_advance(&p, 3.0, m, 4, log_event, l), 12);
    for (uint32_t i = 1; i < l->count; i++) assert_true(l->frac[i] >= l->frac[i - 1]);
    /* the callback may stop delivery; time still advances */
    l->count = 0;
    l->stop_after = 2;
    double before = sk_player_unrolled(&p);
    assert_int_equal(sk_player_advance(&p, 5.0, m, 4, log_event, l), 2);
    NEAR(sk_player_unrolled(&p) - before, 5.0, 1e-9);
    l->stop_after = 0;
    /* backwards: markers reported in reverse order, direction -1 */
    sk_player_seek(&p, 0.5);
    sk_player_set_speed(&p, -1.0f);
    l->count = 0;
    assert_int_equal(sk_player_advance(&p, 0.5, m, 4, log_event, l), 3); /* step_l, then start/end at 0 */
    assert_int_equal(l->marker[0], 1);
    assert_int_equal(l->direction[0], -1);
    /* leaving the marker we rest on backwards does not report it again */
    l->count = 0;
    assert_int_equal(sk_player_advance(&p, 0.1, m, 4, log_event, l), 0);
    /* clamp: once per pass, nothing while resting at the end */
    d.loop = SK_LOOP_CLAMP;
    sk_player_init(&p, &d);
    l->count = 0;
    assert_int_equal(sk_player_advance(&p, 10.0, m, 4, log_event, l), 3); /* start is where it begins */
    assert_int_equal(sk_player_advance(&p, 10.0, m, 4, log_event, l), 0);
    /* ping-pong: out and back; turning points once */
    d.loop = SK_LOOP_PING_PONG;
    sk_player_init(&p, &d);
    l->count = 0;
    /* .25 .75 1(end) .75 .25 and landing on 0 (the next cycle's start) */
    assert_int_equal(sk_player_advance(&p, 2.0, m, 4, log_event, l), 6);
    static const uint32_t order[] = {1, 2, 3, 2, 1, 0};
    static const int dirs[] = {1, 1, 1, -1, -1, -1};
    assert_int_equal(l->cycle[5], 1);
    for (int i = 0; i < 6; i++) {
        assert_int_equal(l->marker[i], order[i]);
        assert_int_equal(l->direction[i], dirs[i]);
    }
    free(l);
}

/* Signed crossing count of position x (mod period P) over the unrolled move u0 -> u1. */
static int64_t crossings(double u0, double u1, double x, double P) {
    return (int64_t)floor((u1 - x) / P) - (int64_t)floor((u0 - x) / P);
}

typedef struct prop_ctx {
    int64_t signed_count[8];
    int step_sign;
    double last_frac;
    bool ordered;
    const sk_player *p;
} prop_ctx;

static bool prop_event(void *user, const sk_event *ev) {
    prop_ctx *c = user;
    c->signed_count[ev->marker] += c->step_sign;
    if (ev->step_fraction < c->last_frac || ev->step_fraction < 0.0 || ev->step_fraction > 1.0) c->ordered = false;
    c->last_frac = ev->step_fraction;
    return true;
}

static void run_property(sk_loop_mode wrap, int iterations) {
    for (int it = 0; it < iterations; it++) {
        sk_marker m[6];
        uint32_t n = 1 + (uint32_t)(rnd() * 6);
        double d = 0.2 + rnd() * 2.0;
        for (uint32_t i = 0; i < n; i++) {
            m[i].name = "m";
            m[i].time = rnd() * d;
        }
        if (rnd() < 0.2) m[0].time = 0.0; /* exercise the boundaries too */
        if (rnd() < 0.2) m[n - 1].time = d;
        for (uint32_t i = 1; i < n; i++) /* insertion sort */
            for (uint32_t k = i; k > 0 && m[k].time < m[k - 1].time; k--) {
                sk_marker t = m[k]; m[k] = m[k - 1]; m[k - 1] = t;
            }
        assert_int_equal(sk_markers_validate(m, n, d, NULL), SK_OK);
        sk_player p;
        sk_player_desc desc = {0};
        desc.duration = d;
        desc.loop = wrap;
        desc.start_time = rnd() * d;
        sk_player_init(&p, &desc);
        prop_ctx c;
        memset(&c, 0, sizeof c);
        double u_start = sk_player_unrolled(&p);
        for (int s = 0; s < 60; s++) {
            float speed = (float)((rnd() * 4.0 - 2.0) * (rnd() < 0.1 ? 20.0 : 1.0)); /* sometimes several loops */
            sk_player_set_speed(&p, speed);
            double dt = rnd() * 0.1;
            double u0 = sk_player_unrolled(&p);
            c.step_sign = speed >= 0 ? 1 : -1;
            c.last_frac = 0.0;
            c.ordered = true;
            int64_t before[8];
            memcpy(before, c.signed_count, sizeof before);
            sk_player_advance(&p, dt, m, n, prop_event, &c);
            assert_true(c.ordered);
            double u1 = sk_player_unrolled(&p);
            if (wrap == SK_LOOP_CLAMP) continue;
            /* every step: exact number of crossings per marker */
            for (uint32_t i = 0; i < n; i++) {
                int64_t expect;
                double P = p.period;
                if (wrap == SK_LOOP_REPEAT) {
                    expect = crossings(u0, u1, fmod(m[i].time, d), P);
                } else {
                    expect = crossings(u0, u1, m[i].time, P);
                    if (m[i].time > 0.0 && m[i].time < d) expect += crossings(u0, u1, 2.0 * d - m[i].time, P);
                }
                if (c.signed_count[i] - before[i] != expect) {
                    fprintf(stderr, "wrap %d marker %u at %.17g d %.17g: step %.17g -> %.17g: got %lld expected %lld\n",
                            (int)wrap, i, m[i].time, d, u0, u1, (long long)(c.signed_count[i] - before[i]), (long long)expect);
                    fail();
                }
            }
        }
        if (wrap == SK_LOOP_CLAMP) continue;
        /* over the whole run the net count depends only on the end points */
        double u_end = sk_player_unrolled(&p);
        for (uint32_t i = 0; i < n; i++) {
            double x = wrap == SK_LOOP_REPEAT ? fmod(m[i].time, d) : m[i].time;
            int64_t expect = crossings(u_start, u_end, x, p.period);
            if (wrap == SK_LOOP_PING_PONG && m[i].time > 0.0 && m[i].time < d)
                expect += crossings(u_start, u_end, 2.0 * d - m[i].time, p.period);
            assert_int_equal(c.signed_count[i], expect);
        }
    }
}

static void test_events_property(void **st) {
    (void)st;
    run_property(SK_LOOP_REPEAT, 400);
    run_property(SK_LOOP_PING_PONG, 400);
    run_property(SK_LOOP_CLAMP, 100);
}

/* Forward-only: splitting a move into random small steps reports exactly the
 * same sequence of events as one big step. */
static void test_events_split_invariance(void **st) {
    (void)st;
    static const sk_marker m[] = {{"a", 0.0}, {"b", 0.3}, {"c", 0.3}, {"d", 0.9}};
    ev_log *big = calloc(1, sizeof *big), *small = calloc(1, sizeof *small);
    for (int mode = 0; mode < 2; mode++) {
        sk_player_desc d = {0};
        d.duration = 0.9;
        d.loop = mode ? SK_LOOP_PING_PONG : SK_LOOP_REPEAT;
        d.start_time = 0.1;
        sk_player p, q;
        sk_player_init(&p, &d);
        sk_player_init(&q, &d);
        big->count = small->count = 0;
        double total = 0.0;
        while (total < 7.3) {
            double dt = rnd() * 0.2;
            if (total + dt > 7.3) dt = 7.3 - total;
            sk_player_advance(&q, dt, m, 4, log_event, small);
            total += dt;
        }
        sk_player_advance(&p, total, m, 4, log_event, big);
        assert_int_equal(big->count, small->count);
        assert_true(big->count > 20);
        for (uint32_t i = 0; i < big->count; i++) {
            assert_int_equal(big->marker[i], small->marker[i]);
            assert_int_equal(big->cycle[i], small->cycle[i]);
            assert_int_equal(big->direction[i], small->direction[i]);
        }
    }
    free(big);
    free(small);
}

/* ---- root motion ---- */

/* Two joints (root, child); the root walks forward 2 m per 1 s loop along its
 * local +Z while turning by `turn` radians per loop. */
static void make_walker(float turn, sk_skeleton **skel, sk_clip **clip) {
    int32_t parents[2] = {-1, 0};
    const char *names[2] = {"root", "child"};
    sk_skeleton_desc sd = {0};
    sd.joint_count = 2;
    sd.parents = parents;
    sd.names = names;
    assert_int_equal(sk_skeleton_create(&sd, NULL, skel, NULL), SK_OK);
    enum { K = 21 };
    float times[K], tv[K * 3], rv[K * 4];
    double x = 0.0, z = 0.0, yaw = 0.0;
    for (int k = 0; k < K; k++) {
        times[k] = (float)k / (K - 1);
        tv[k * 3] = (float)x;
        tv[k * 3 + 1] = 1.0f + 0.05f * (float)sin(k * 0.6);
        tv[k * 3 + 2] = (float)z;
        rv[k * 4] = 0; rv[k * 4 + 1] = (float)sin(yaw / 2); rv[k * 4 + 2] = 0; rv[k * 4 + 3] = (float)cos(yaw / 2);
        /* next key: move 0.1 m along the current facing, then turn */
        x += 0.1 * sin(yaw);
        z += 0.1 * cos(yaw);
        yaw += turn / (K - 1);
    }
    sk_clip_builder *b;
    assert_int_equal(sk_clip_builder_create("walk", NULL, &b, NULL), SK_OK);
    sk_track_desc t = {0};
    t.joint = 0;
    t.path = SK_PATH_TRANSLATION;
    t.key_count = K;
    t.times = times;
    t.values = tv;
    assert_int_equal(sk_clip_builder_add_track(b, &t, NULL), SK_OK);
    t.path = SK_PATH_ROTATION;
    t.values = rv;
    assert_int_equal(sk_clip_builder_add_track(b, &t, NULL), SK_OK);
    assert_int_equal(sk_clip_builder_finish(b, clip, NULL), SK_OK);
}

static void test_root_motion(void **st) {
    (void)st;
    for (int turning = 0; turning < 2; turning++) {
        sk_skeleton *skel;
        sk_clip *clip;
        make_walker(turning ? 0.5f : 0.0f, &skel, &clip);
        sk_root_motion *rm;
        sk_error err;
        assert_int_equal(sk_root_motion_create(clip, skel, 7, NULL, &rm, &err), SK_ERR_INVALID_ARGUMENT);
        assert_int_equal(sk_root_motion_create(clip, skel, 0, NULL, &rm, &err), SK_OK);
        for (int dir = 0; dir < 2; dir++) {
            sk_player_desc d = {0};
            d.duration = sk_clip_duration(clip);
            d.start_time = 0.3;
            d.speed = dir ? -1.0f : 1.0f;
            sk_player p;
            sk_player_init(&p, &d);
            sk_player start = p;
            sk_root_delta acc = sk_root_delta_identity();
            for (int i = 0; i < 220; i++) { /* 3.52 s in uneven steps, several wraps */
                sk_player before = p;
                sk_player_advance(&p, i % 3 == 0 ? 0.02 : 0.013, NULL, 0, NULL, NULL);
                sk_root_delta dd = sk_root_motion_delta(rm, &before, &p);
                assert_true(fabs(dd.translation.z) < 0.1); /* per-frame motion stays small, also at wraps */
                acc = sk_root_delta_compose(acc, dd);
            }
            sk_root_delta once = sk_root_motion_delta(rm, &start, &p);
            NEAR(acc.translation.x, once.translation.x, 2e-4);
            NEAR(acc.translation.z, once.translation.z, 2e-4);
            NEAR(acc.yaw, once.yaw, 1e-4);
            double u = sk_player_unrolled(&p) - sk_player_unrolled(&start);
            if (!turning) { /* straight: 2 m per second of clip, sign follows the direction */
                NEAR(once.translation.z, 2.0 * u, 2e-4);
                NEAR(once.translation.x, 0.0, 1e-5);
                NEAR(once.yaw, 0.0, 1e-6);
            } else {
                NEAR(once.yaw, 0.5 * u, 2e-3); /* turning 0.5 rad per loop */
            }
        }
        /* stripped pose plays in place */
        sk_transform pose[2];
        assert_int_equal(sk_clip_sample(clip, skel, 0.77, SK_LOOP_REPEAT, SK_POSE_OF(skel, pose, NULL), NULL), SK_OK);
        float h = pose[0].t.y;
        assert_int_equal(sk_root_motion_strip(rm, SK_POSE_OF(skel, pose, NULL), NULL), SK_OK);
        NEAR(pose[0].t.x, 0.0, 1e-6);
        NEAR(pose[0].t.z, 0.0, 1e-6);
        NEAR(pose[0].t.y, h, 0);
        NEAR(sk_quat_yaw(pose[0].r), 0.0, 1e-5);
        /* blending deltas */
        sk_root_delta ds[2] = {{{1, 0, 0}, 0.2f}, {{0, 0, 3}, -0.2f}};
        float w[2] = {0.25f, 0.75f};
        sk_root_delta b = sk_root_delta_blend(ds, w, 2);
        NEAR(b.translation.x, 0.25, 1e-6);
        NEAR(b.translation.z, 2.25, 1e-6);
        NEAR(b.yaw, -0.1, 1e-6);
        sk_root_motion_destroy(rm);
        sk_clip_destroy(clip);
        sk_skeleton_destroy(skel);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_player_basics),   cmocka_unit_test(test_events_simple),
        cmocka_unit_test(test_events_property), cmocka_unit_test(test_events_split_invariance),
        cmocka_unit_test(test_root_motion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
