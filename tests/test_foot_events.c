/* Footstep events (sk_foot_event, locomotion/locomotor.h) of both walkers,
 * the mannequin walking 6 m on flat ground and stopping:
 *  - per leg the events alternate DOWN, UP, DOWN, ... and none comes on the
 *    first frame after a reset;
 *  - the semi-procedural locomotor: a DOWN per stance (the planted runs of
 *    the stance flag, counted here, which the events do not come from:
 *    they come from the ground contact, foot-strike .. foot-off); on the
 *    DOWN frame the foot's lower point is within 3 cm of the ground, and
 *    the event's position is where the heel then stands (within 3 cm, at
 *    the middle of the following planted run);
 *  - the IK-only walker: DOWN when a planted foot's heel or toe reaches
 *    its step (within 2 cm), at the lower of the two (within 3 cm,
 *    horizontally, of that point);
 *  - normals up (flat ground), speeds finite and under 10 m/s. */
#include "support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FRAMES 600 /* 10 s at 60 Hz */

typedef struct rec {
    sk_vec3 heel[2], toe[2];
    bool stance[2];
    sk_foot_event ev[2];
} rec;

static float hdist(sk_vec3 a, sk_vec3 b) { return hypotf(a.x - b.x, a.z - b.z); }

static void check_event(const sk_foot_event *e) {
    assert_true(e->kind == SK_FOOT_EVENT_DOWN || e->kind == SK_FOOT_EVENT_UP);
    assert_true(fabsf(e->normal.y - 1.0f) < 1e-3f);
    assert_true(isfinite(e->speed) && e->speed >= 0 && e->speed < 10);
    assert_true(fabsf(e->position.y) < 0.01f); /* on the flat ground */
}

/* Alternation per leg; returns the DOWN count of leg l. */
static uint32_t alternate(const rec *r, uint32_t n, uint32_t l) {
    int last = 0;
    uint32_t downs = 0;
    for (uint32_t k = 0; k < n; k++) {
        const sk_foot_event *e = &r[k].ev[l];
        if (e->kind == SK_FOOT_EVENT_NONE) continue;
        check_event(e);
        assert_int_not_equal((int)e->kind, last);
        last = (int)e->kind;
        downs += e->kind == SK_FOOT_EVENT_DOWN;
    }
    return downs;
}

static void test_locomotor_events(void **state) {
    (void)state;
    sk_asset *a = NULL;
    sk_error err = {0};
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, &err), SK_OK);
    const sk_skeleton *s = a->skeleton;
    sk_leg_desc legs[2];
    assert_int_equal(sk_legs_find(s, legs, 2), 2);
    assert_int_equal(sk_leg_points_from_mesh(a, legs, 2, NULL, NULL, &err), SK_OK);
    const sk_clip *clips[2] = {a->clips[sk_asset_find_clip(a, "walk")], a->clips[sk_asset_find_clip(a, "run")]};
    sk_motion_analysis *an[2];
    for (int i = 0; i < 2; i++) assert_int_equal(sk_motion_analyze(s, clips[i], legs, 2, NULL, NULL, &an[i], &err), SK_OK);
    sk_motion_group *g = NULL;
    assert_int_equal(sk_motion_group_create((const sk_motion_analysis *const *)an, 2, NULL, &g, &err), SK_OK);
    sk_locomotor_desc d = {0};
    d.skeleton = s, d.group = g, d.clips = clips, d.clip_count = 2, d.body_joint = -1;
    d.idle = a->clips[sk_asset_find_clip(a, "idle")];
    sk_locomotor *L = NULL;
    assert_int_equal(sk_locomotor_create(&d, NULL, &L, &err), SK_OK);
    assert_int_equal(sk_locomotor_reset(L, 0, 0, 0, &err), SK_OK);
    sk_transform *local = calloc(s->joint_count, sizeof *local);
    rec *r = calloc(FRAMES, sizeof *r);
    assert_true(local && r);
    for (uint32_t k = 0; k < FRAMES; k++) {
        float z = fminf(6.0f, 1.4f * (float)k / 60.0f); /* 1.4 m/s, then standing at 6 m */
        sk_pose pose = sk_pose_view(local, s->joint_count, NULL, 0);
        assert_int_equal(sk_locomotor_update(L, 1.0 / 60.0, 0, z, 0, &pose, &err), SK_OK);
        const sk_locomotor_state *st = sk_locomotor_get_state(L);
        for (int l = 0; l < 2; l++) {
            r[k].heel[l] = st->feet[l].heel, r[k].toe[l] = st->feet[l].toe;
            r[k].stance[l] = st->feet[l].stance, r[k].ev[l] = st->feet[l].event;
        }
    }
    assert_int_equal(r[0].ev[0].kind, SK_FOOT_EVENT_NONE);
    assert_int_equal(r[0].ev[1].kind, SK_FOOT_EVENT_NONE);
    uint32_t checked = 0;
    for (uint32_t l = 0; l < 2; l++) {
        uint32_t downs = alternate(r, FRAMES, l), runs = 0;
        for (uint32_t k = 1; k < FRAMES; k++) runs += r[k].stance[l] && !r[k - 1].stance[l];
        assert_true(downs >= 4);
        assert_true(downs >= runs - 1 && downs <= runs + 1);
        for (uint32_t k = 0; k < FRAMES; k++) {
            const sk_foot_event *e = &r[k].ev[l];
            if (e->kind != SK_FOOT_EVENT_DOWN) continue;
            assert_true(fminf(r[k].heel[l].y, r[k].toe[l].y) < 0.03f);
            uint32_t a0 = k;
            while (a0 < FRAMES && !r[a0].stance[l]) a0++;
            uint32_t a1 = a0;
            while (a1 < FRAMES && r[a1].stance[l]) a1++;
            if (a0 >= FRAMES || a1 == a0) continue;
            uint32_t mid = (a0 + a1) / 2;
            if (!(hdist(e->position, r[mid].heel[l]) < 0.03f))
                fail_msg("leg %u frame %u: DOWN at %.3f %.3f, the heel then stands at %.3f %.3f", l, k,
                         (double)e->position.x, (double)e->position.z, (double)r[mid].heel[l].x,
                         (double)r[mid].heel[l].z);
            checked++;
        }
    }
    assert_true(checked >= 8);
    free(local);
    free(r);
    sk_locomotor_destroy(L);
    sk_motion_group_destroy(g);
    for (int i = 0; i < 2; i++) sk_motion_analysis_destroy(an[i]);
    sk_asset_destroy(a);
}

static void test_procedural_events(void **state) {
    (void)state;
    sk_asset *a = NULL;
    sk_error err = {0};
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, &err), SK_OK);
    const sk_skeleton *s = a->skeleton;
    sk_procedural_desc d = {0};
    assert_int_equal(sk_legs_find(s, d.legs, 2), 2);
    d.skeleton = s, d.body_joint = -1;
    sk_procedural *P = NULL;
    assert_int_equal(sk_procedural_create(&d, NULL, &P, &err), SK_OK);
    assert_int_equal(sk_procedural_reset(P, 0, 0, 0, &err), SK_OK);
    sk_transform *local = calloc(s->joint_count, sizeof *local);
    rec *r = calloc(FRAMES, sizeof *r);
    assert_true(local && r);
    for (uint32_t k = 0; k < FRAMES; k++) {
        float z = fminf(6.0f, 1.2f * (float)k / 60.0f);
        sk_pose pose = sk_pose_view(local, s->joint_count, NULL, 0);
        assert_int_equal(sk_procedural_update(P, 1.0 / 60.0, 0, z, 0, &pose, &err), SK_OK);
        const sk_procedural_state *st = sk_procedural_get_state(P);
        for (int l = 0; l < 2; l++) {
            r[k].heel[l] = st->feet[l].heel, r[k].toe[l] = st->feet[l].toe;
            r[k].stance[l] = st->feet[l].stance, r[k].ev[l] = st->feet[l].event;
        }
    }
    assert_int_equal(r[0].ev[0].kind, SK_FOOT_EVENT_NONE);
    uint32_t checked = 0;
    for (uint32_t l = 0; l < 2; l++) {
        assert_true(alternate(r, FRAMES, l) >= 3);
        for (uint32_t k = 0; k < FRAMES; k++) {
            const sk_foot_event *e = &r[k].ev[l];
            if (e->kind != SK_FOOT_EVENT_DOWN) continue;
            assert_true(r[k].stance[l]);
            sk_vec3 low = r[k].heel[l].y <= r[k].toe[l].y ? r[k].heel[l] : r[k].toe[l];
            assert_true(low.y < 0.02f);
            if (!(hdist(e->position, low) < 0.03f))
                fail_msg("leg %u frame %u: DOWN at %.3f %.3f, the foot's lower point at %.3f %.3f", l, k,
                         (double)e->position.x, (double)e->position.z, (double)low.x, (double)low.z);
            checked++;
        }
    }
    assert_true(checked >= 6);
    free(local);
    free(r);
    sk_procedural_destroy(P);
    sk_asset_destroy(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_locomotor_events),
        cmocka_unit_test(test_procedural_events),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
