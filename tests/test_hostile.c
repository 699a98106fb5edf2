/* Hostile input (issue #14): one regression test per finding, each on a
 * small hand-made input kept in tests/data/regress/ (named after the finding)
 * or built here. docs/robustness.md lists the findings, the fixes and these
 * tests.
 *  f1: a huge but finite speed or time step must not overflow the player's
 *      cycle counter or hang root motion (loop counts in double, clamped).
 *  f2: accessors without a bufferView are not materialised: a 257-byte file
 *      whose accessor claims 89 million elements loads with a small peak.
 *  f3: a buffer URI that is a symbolic link out of the model's folder is
 *      refused (and its bytes never reach the message); a FIFO does not block.
 *  f4: the .glb writer refuses what the reader would refuse; the reader
 *      refuses zero-filled key times and warns about singular inverse binds.
 *  f5: values that overflow to infinity in world space are refused at load;
 *      IK never returns NaN for a finite target. */
#include "support.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void regress_path(char *out, size_t cap, const char *name) {
    char dir[1024];
    sk_test_path(dir, sizeof dir, sk_test_source_dir(), "tests/data/regress");
    sk_test_path(out, cap, dir, name);
}

static char *regress_read(const char *name, size_t *size) {
    char p[1200];
    regress_path(p, sizeof p, name);
    char *s = sk_test_read_file(p, size);
    if (!s) fail_msg("cannot read %s", p);
    return s;
}

/* ---- f1: huge speeds and steps ------------------------------------------- */

static bool count_event(void *user, const sk_event *ev) {
    (void)ev;
    (*(uint64_t *)user)++;
    return true;
}

static void f1_player_huge_step(void **state) {
    (void)state;
    sk_player_desc d = {0};
    d.duration = 1.0;
    sk_player p;
    sk_player_init(&p, &d);
    sk_player_step(&p, 1e30, NULL, 0, NULL, NULL); /* main: (int64_t)1e30, undefined */
    assert_true(p.cycle > 0 && (double)p.cycle <= SK_PLAYER_MAX_STEP_CYCLES + 1.0);
    assert_true(p.pos >= 0.0 && p.pos < p.period);
    for (int i = 0; i < 100; i++) sk_player_step(&p, 1e300, NULL, 0, NULL, NULL);
    assert_true(p.cycle > 0 && (double)p.cycle <= SK_PLAYER_MAX_CYCLE);
    sk_player_step(&p, -1e308, NULL, 0, NULL, NULL);
    assert_true(p.pos >= 0.0 && p.pos < p.period);
    /* markers over a huge step: bounded, not 1e30 callbacks */
    sk_marker m[2] = {{"a", 0.25}, {"b", 0.75}};
    uint64_t n = 0;
    sk_player_init(&p, &d);
    uint64_t got = sk_player_step(&p, 1e30, m, 2, count_event, &n);
    assert_int_equal(got, n);
    assert_true(n >= 2 && n <= 2u * (SK_PLAYER_MAX_EVENT_CYCLES + 1u));
    /* a saturated counter stays defined */
    p.cycle = INT64_MAX;
    sk_player_step(&p, 5.0, NULL, 0, NULL, NULL);
    assert_true((double)p.cycle <= SK_PLAYER_MAX_CYCLE);
}

static void f1_root_motion_huge_step(void **state) {
    (void)state;
    sk_asset *a = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, NULL), SK_OK);
    int32_t walk = sk_asset_find_clip(a, "walk");
    assert_true(walk >= 0);
    sk_root_motion *rm = NULL;
    assert_int_equal(sk_root_motion_create(a->clips[walk], a->skeleton, 0, NULL, &rm, NULL), SK_OK);
    sk_player_desc d = {0};
    d.duration = sk_clip_duration(a->clips[walk]);
    sk_player p0, p1;
    sk_player_init(&p0, &d);
    const double steps[] = {1e30, -1e30, 1e300, 3e9};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        p1 = p0;
        sk_player_step(&p1, steps[i], NULL, 0, NULL, NULL);
        sk_root_delta dl = sk_root_motion_delta(rm, &p0, &p1); /* main: loop_pow(-INT64_MIN) */
        assert_true(isfinite(dl.translation.x) && isfinite(dl.translation.z) && isfinite(dl.yaw));
    }
    /* cycle counts set by hand to the extremes */
    p0.cycle = INT64_MIN;
    p1.cycle = INT64_MAX;
    sk_root_delta dl = sk_root_motion_delta(rm, &p0, &p1);
    assert_true(isfinite(dl.translation.x) && isfinite(dl.translation.z) && isfinite(dl.yaw));
    sk_root_motion_destroy(rm);
    sk_asset_destroy(a);
}

static void f1_graph_speed(void **state) {
    (void)state;
    sk_asset *a = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, NULL), SK_OK);
    size_t len;
    char *js = regress_read("f1_huge_speed.json", &len);
    sk_graph *g = NULL;
    sk_error err = {0};
    /* speed 1e30 is refused with its JSON path */
    assert_int_equal(sk_graph_load_json(js, len, a->skeleton, a->clips, a->clip_count, NULL, &g, &err),
                     SK_ERR_INVALID_DATA);
    assert_non_null(strstr(err.message, "/machine/states/0/speed"));
    free(js);
    /* the fastest speed allowed, with huge steps: finite root motion, no hang */
    js = regress_read("f1_fast_walk.json", &len);
    assert_int_equal(sk_graph_load_json(js, len, a->skeleton, a->clips, a->clip_count, NULL, &g, &err), SK_OK);
    free(js);
    sk_graph_instance *in = NULL;
    assert_int_equal(sk_graph_instance_create(g, NULL, &in, &err), SK_OK);
    const double dts[] = {1.0 / 60.0, 1e30, 1e300, 1e30, 0.5};
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
        sk_graph_update(in, dts[i]);
        sk_root_delta dl = sk_graph_root_motion(in);
        assert_true(isfinite(dl.translation.x) && isfinite(dl.translation.z) && isfinite(dl.yaw));
    }
    sk_transform *l = calloc(a->skeleton->joint_count, sizeof *l);
    assert_int_equal(sk_graph_evaluate(in, SK_POSE_OF(a->skeleton, l, NULL), &err), SK_OK);
    for (uint32_t j = 0; j < a->skeleton->joint_count; j++)
        assert_true(isfinite(l[j].t.x) && isfinite(l[j].r.w) && isfinite(l[j].s.y));
    free(l);
    sk_graph_instance_destroy(in);
    sk_graph_destroy(g);
    sk_asset_destroy(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(f1_player_huge_step),
        cmocka_unit_test(f1_root_motion_huge_step),
        cmocka_unit_test(f1_graph_speed),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
