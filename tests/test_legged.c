/* The N-legged IK-only walker (locomotion/legged.h) and the creatures it
 * walks (content/creature.h).
 *
 * References, independent of the code under test:
 *   - the gait's guarantee: the fewest feet down over a cycle counted here
 *     by sampling 20,000 phases of the stance rule (planted while
 *     frac(phi - phase) >= 1 - duty), for the named gaits (WAVE: N - 1,
 *     ALTERNATE: N / 2 in closed form) and for random phases and duties;
 *   - walking: the output pose through sk_local_to_model with state.root
 *     (not the walker's own matrices); every creature in each gait over
 *     flat ground, a 20 degree ramp, stairs and bumps, straight and then
 *     turning 90 degrees at 90 deg/s, then stopping. Against the built-in
 *     terrains' sk_terrain_height: each foot joint a radius over the ground
 *     along the normal while planted (1 cm), its horizontal drift over a
 *     stance (1 mm), no foot ball in the ground (1 cm), the feet down at
 *     every walking frame at least the sampled minimum, the body joint at
 *     least a third of its rest height over the ground below it, every
 *     value finite; after the stop it stands (every foot down) within 3 s,
 *     and as many feet came down as lifted;
 *   - the creatures' meshes: weights summing to 1 on joints of the skin;
 *   - bad descriptions, frames and gaits refused. Counts asserted. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FPS 60.0
#define PI_D 3.14159265358979323846

/* A creature's walker description: its legs (content) and a gait. */
static sk_result creature_desc(const sk_skeleton *skel, sk_legged_gait_kind gait, sk_legged_desc *d, sk_error *err) {
    memset(d, 0, sizeof *d);
    sk_creature_leg legs[SK_LEGGED_MAX_LEGS];
    d->skeleton = skel;
    d->leg_count = sk_creature_legs(skel, &d->body_joint, legs, SK_LEGGED_MAX_LEGS);
    if (!d->leg_count) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "not a creature");
    for (uint32_t l = 0; l < d->leg_count; l++)
        d->legs[l] = (sk_legged_leg){legs[l].hip, legs[l].knee, legs[l].foot, legs[l].foot_radius};
    return sk_legged_gait(gait, d->leg_count, d->phase, &d->duty, err);
}

static uint32_t sampled_min(const float *phase, uint32_t n, float duty) {
    uint32_t best = n;
    for (int k = 0; k < 20000; k++) {
        double phi = (k + 0.5) / 20000.0;
        uint32_t c = 0;
        for (uint32_t l = 0; l < n; l++) {
            double u = phi - phase[l];
            u -= floor(u);
            c += u >= 1.0 - duty;
        }
        if (c < best) best = c;
    }
    return best;
}

static void test_gaits(void **state) {
    (void)state;
    sk_error err = {0};
    float ph[SK_LEGGED_MAX_LEGS], duty;
    uint32_t checked = 0;
    for (uint32_t n = 2; n <= SK_LEGGED_MAX_LEGS; n++) {
        assert_int_equal(sk_legged_gait(SK_LEGGED_GAIT_WAVE, n, ph, &duty, &err), SK_OK);
        assert_int_equal(sampled_min(ph, n, duty), n - 1);
        assert_int_equal(sk_legged_min_planted(ph, n, duty), n - 1);
        checked++;
        if (n % 2 == 0) {
            assert_int_equal(sk_legged_gait(SK_LEGGED_GAIT_ALTERNATE, n, ph, &duty, &err), SK_OK);
            assert_int_equal(sampled_min(ph, n, duty), n / 2);
            assert_int_equal(sk_legged_min_planted(ph, n, duty), n / 2);
            /* diagonal neighbours in the other group: left 0 with right 0 and left 1 */
            assert_true(ph[0] != ph[1]);
            if (n >= 4) assert_true(ph[0] != ph[2] && ph[0] == ph[3]);
            checked++;
        } else {
            assert_int_equal(sk_legged_gait(SK_LEGGED_GAIT_ALTERNATE, n, ph, &duty, &err), SK_ERR_INVALID_ARGUMENT);
        }
    }
    /* random gaits against the sampled count */
    uint32_t seed = 12345u;
    for (int t = 0; t < 200; t++) {
        uint32_t n = 2 + (uint32_t)t % 7;
        for (uint32_t l = 0; l < n; l++) {
            seed = seed * 1664525u + 1013904223u;
            ph[l] = (float)(seed >> 8) / 16777216.0f;
        }
        seed = seed * 1664525u + 1013904223u;
        duty = 0.5f + 0.45f * (float)(seed >> 8) / 16777216.0f;
        assert_int_equal(sk_legged_min_planted(ph, n, duty), sampled_min(ph, n, duty));
        checked++;
    }
    print_message("%u gaits checked against the sampled count\n", checked);
    assert_int_equal(checked, 7 + 4 + 200);
    assert_int_equal(sk_legged_gait(SK_LEGGED_GAIT_WAVE, 1, ph, &duty, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_legged_gait(SK_LEGGED_GAIT_WAVE, 9, ph, &duty, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_legged_gait((sk_legged_gait_kind)7, 4, ph, &duty, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_legged_gait(SK_LEGGED_GAIT_WAVE, 4, NULL, &duty, &err), SK_ERR_INVALID_ARGUMENT);
}

/* The walk's point: straight along +Z for 3 m, then a 90 degree turn
 * right at 90 deg/s while walking, then along +X; stop after dist m. */
typedef struct course_pt { float x, z, yaw; } course_pt;
static course_pt course_at(double s) {
    course_pt p;
    const double straight = 3.0, R = 0.7; /* the turn's radius: at speed v, v / R rad/s */
    if (s <= straight) return (course_pt){0, (float)s, 0};
    double a = (s - straight) / R;
    if (a < PI_D / 2) {
        p.x = (float)(R - R * cos(a)), p.z = (float)(straight + R * sin(a)), p.yaw = (float)a;
        return p;
    }
    double rest = s - straight - R * PI_D / 2;
    return (course_pt){(float)(R + rest), (float)(straight + R), (float)(PI_D / 2)};
}

typedef struct walk_stats {
    uint32_t frames, walking_frames, stance_runs, downs, ups;
    double drift_max, contact_max, sink_max, clear_min;
    uint32_t planted_min;
    double stand_after;
} walk_stats;

static float ground_at(const sk_terrain *t, float x, float z, sk_vec3 *n) {
    sk_terrain_hit h;
    if (!sk_terrain_height(t, x, z, 100.0f, 200.0f, &h)) fail_msg("no ground at %g %g", (double)x, (double)z);
    if (n) *n = h.normal;
    return h.point.y;
}

static void walk(sk_creature_kind kind, sk_legged_gait_kind gait, const sk_terrain *terrain, double speed,
                 walk_stats *ws) {
    sk_error err = {0};
    sk_asset *a = NULL;
    assert_int_equal(sk_creature_create(kind, NULL, &a, &err), SK_OK);
    const sk_skeleton *skel = a->skeleton;
    sk_legged_desc d;
    assert_int_equal(creature_desc(skel, gait, &d, &err), SK_OK);
    d.terrain = *terrain;
    sk_legged *W = NULL;
    assert_int_equal(sk_legged_create(&d, NULL, &W, &err), SK_OK);
    uint32_t J = skel->joint_count, n = d.leg_count, gmin = sampled_min(d.phase, n, d.duty);
    sk_transform *loc = calloc(J, sizeof *loc);
    sk_mat4 *world = calloc(J, sizeof *world);
    assert_non_null(loc);
    assert_non_null(world);
    sk_pose pose = sk_pose_view(loc, J, NULL, 0);
    assert_int_equal(sk_legged_reset(W, 0, 0, 0, &err), SK_OK);
    memset(ws, 0, sizeof *ws);
    ws->planted_min = n;
    ws->clear_min = 1e9;
    ws->stand_after = -1;
    const sk_legged_state *st = sk_legged_get_state(W);
    float rest_h = st->rest_height;
    const double dist = 3.0 + 0.7 * PI_D / 2 + 2.5;
    bool was[SK_LEGGED_MAX_LEGS];
    sk_vec3 start[SK_LEGGED_MAX_LEGS];
    for (uint32_t l = 0; l < n; l++) was[l] = false;
    double s = 0, t = 0, stopped_at = -1;
    for (uint32_t k = 0; k < 4000; k++) {
        s = fmin(s + speed / FPS, dist);
        t += 1.0 / FPS;
        course_pt p = course_at(s);
        assert_int_equal(sk_legged_update(W, 1.0 / FPS, p.x, p.z, p.yaw, &pose, &err), SK_OK);
        assert_int_equal(sk_local_to_model(skel, &pose, &st->root, world, J, &err), SK_OK);
        ws->frames++;
        uint32_t down = 0;
        for (uint32_t l = 0; l < n; l++) {
            const float *m = world[d.legs[l].foot].m;
            sk_vec3 f = sk_vec3_make(m[12], m[13], m[14]);
            assert_true(isfinite(f.x) && isfinite(f.y) && isfinite(f.z));
            sk_vec3 nrm;
            float gy = ground_at(terrain, f.x, f.z, &nrm), r = d.legs[l].foot_radius;
            /* the ball's lowest point along the ground's normal, against the ground */
            double over = (f.y - gy) * nrm.y - r;
            if (-over > ws->sink_max) ws->sink_max = -over;
            bool pl = st->feet[l].planted;
            down += pl;
            if (pl) {
                if (fabs(over) > ws->contact_max) ws->contact_max = fabs(over);
                if (!was[l]) start[l] = f, ws->stance_runs++;
                double drift = hypot(f.x - start[l].x, f.z - start[l].z);
                if (drift > ws->drift_max) ws->drift_max = drift;
            }
            was[l] = pl;
            ws->downs += st->feet[l].event.kind == SK_FOOT_EVENT_DOWN;
            ws->ups += st->feet[l].event.kind == SK_FOOT_EVENT_UP;
        }
        if (st->walking) {
            ws->walking_frames++;
            if (down < ws->planted_min) ws->planted_min = down;
        }
        const float *b = world[d.body_joint].m;
        double clear = b[13] - ground_at(terrain, b[12], b[14], NULL);
        if (clear < ws->clear_min) ws->clear_min = clear;
        if (s >= dist && stopped_at < 0) stopped_at = t;
        if (stopped_at >= 0 && !st->walking && down == n) {
            ws->stand_after = t - stopped_at;
            break;
        }
    }
    assert_true(ws->planted_min >= gmin);
    assert_true(ws->clear_min >= rest_h / 3.0);
    free(loc);
    free(world);
    sk_legged_destroy(W);
    sk_asset_destroy(a);
}

static void test_walks(void **state) {
    (void)state;
    sk_error err = {0};
    sk_terrain_shape shapes[4];
    sk_terrain terr[4];
    const char *names[4] = {"flat", "ramp 20", "stairs 0.15/0.30", "bumps 0.08"};
    terr[0] = sk_terrain_flat(&shapes[0], 0);
    sk_terrain_ramp_options ro = {.angle = 20.0f * 3.14159265f / 180, .start = {0, 0, 1}, .direction = {0, 0, 1}};
    assert_int_equal(sk_terrain_ramp(&shapes[1], &ro, &terr[1], &err), SK_OK);
    sk_terrain_stairs_options so = {.rise = 0.15f, .run = 0.30f, .start = {0, 0, 1}, .direction = {0, 0, 1}};
    assert_int_equal(sk_terrain_stairs(&shapes[2], &so, &terr[2], &err), SK_OK);
    sk_terrain_bumps_options bo = {.amplitude = 0.08f, .wavelength = 1.5f, .seed = 3};
    assert_int_equal(sk_terrain_bumps(&shapes[3], &bo, &terr[3], &err), SK_OK);
    static const struct { sk_creature_kind kind; sk_legged_gait_kind gait; const char *name; } bodies[] = {
        {SK_CREATURE_TRIPOD, SK_LEGGED_GAIT_WAVE, "tripod"},
        {SK_CREATURE_QUADRUPED, SK_LEGGED_GAIT_WAVE, "quadruped walk"},
        {SK_CREATURE_QUADRUPED, SK_LEGGED_GAIT_ALTERNATE, "quadruped trot"},
        {SK_CREATURE_HEXAPOD, SK_LEGGED_GAIT_ALTERNATE, "hexapod tripod gait"},
    };
    uint32_t runs = 0;
    for (size_t b = 0; b < sizeof bodies / sizeof bodies[0]; b++)
        for (int t = 0; t < 4; t++) {
            walk_stats ws;
            walk(bodies[b].kind, bodies[b].gait, &terr[t], 0.8, &ws);
            print_message("%-20s %-17s %4u frames, %3u stances: drift %.4f cm, contact %.4f cm, sink %.4f cm, "
                          "feet down >= %u, body >= %.3f m, stands %.2f s after the stop\n",
                          bodies[b].name, names[t], ws.frames, ws.stance_runs, 100 * ws.drift_max,
                          100 * ws.contact_max, 100 * ws.sink_max, ws.planted_min, ws.clear_min, ws.stand_after);
            assert_true(ws.walking_frames > 300);
            assert_true(ws.stance_runs > 10);
            assert_true(ws.drift_max < 0.001);
            assert_true(ws.contact_max < 0.01);
            assert_true(ws.sink_max < 0.01);
            assert_true(ws.stand_after >= 0 && ws.stand_after <= 3.0);
            assert_int_equal(ws.downs, ws.ups);
            runs++;
        }
    assert_int_equal(runs, 16);
}

static void test_meshes(void **state) {
    (void)state;
    sk_error err = {0};
    static const uint32_t legs[3] = {3, 4, 6};
    uint32_t verts = 0;
    for (int k = 0; k < 3; k++) {
        sk_asset *a = NULL;
        assert_int_equal(sk_creature_create((sk_creature_kind)k, NULL, &a, &err), SK_OK);
        assert_int_equal(sk_creature_kind_of(a->skeleton), k);
        assert_int_equal(a->skin_count, 1);
        assert_int_equal(a->mesh_count, 1);
        sk_legged_desc d;
        assert_int_equal(creature_desc(a->skeleton, SK_LEGGED_GAIT_WAVE, &d, &err), SK_OK);
        assert_int_equal(d.leg_count, legs[k]);
        for (uint32_t p = 0; p < a->meshes[0].primitive_count; p++) {
            const sk_primitive *pr = &a->meshes[0].primitives[p];
            for (uint32_t v = 0; v < pr->vertex_count; v++, verts++) {
                float sum = 0;
                for (int i = 0; i < 4; i++) {
                    sum += pr->weights[4 * v + i];
                    if (pr->weights[4 * v + i] > 0) assert_true(pr->joints[4 * v + i] < a->skins[0].joint_count);
                }
                assert_true(fabsf(sum - 1.0f) < 1e-5f);
            }
            for (uint32_t i = 0; i < pr->index_count; i++) assert_true(pr->indices[i] < pr->vertex_count);
        }
        sk_asset_destroy(a);
    }
    assert_true(verts > 1000);
    /* not a creature */
    sk_asset *m = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &m, &err), SK_OK);
    assert_int_equal(sk_creature_kind_of(m->skeleton), -1);
    assert_int_equal(sk_creature_legs(m->skeleton, NULL, NULL, 0), 0);
    assert_int_equal(sk_creature_legs(NULL, NULL, NULL, 0), 0);
    sk_legged_desc d;
    assert_int_equal(creature_desc(m->skeleton, SK_LEGGED_GAIT_WAVE, &d, &err), SK_ERR_INVALID_ARGUMENT);
    sk_asset_destroy(m);
    sk_asset *a = NULL;
    assert_int_equal(sk_creature_create((sk_creature_kind)5, NULL, &a, &err), SK_ERR_INVALID_ARGUMENT);
    assert_null(a);
    assert_int_equal(sk_creature_create(SK_CREATURE_TRIPOD, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    /* the tripod has no alternating gait */
    assert_int_equal(sk_creature_create(SK_CREATURE_TRIPOD, NULL, &a, &err), SK_OK);
    assert_int_equal(creature_desc(a->skeleton, SK_LEGGED_GAIT_ALTERNATE, &d, &err), SK_ERR_INVALID_ARGUMENT);
    sk_asset_destroy(a);
}

static void test_refused(void **state) {
    (void)state;
    sk_error err = {0};
    sk_asset *a = NULL;
    assert_int_equal(sk_creature_create(SK_CREATURE_QUADRUPED, NULL, &a, &err), SK_OK);
    sk_legged_desc good;
    assert_int_equal(creature_desc(a->skeleton, SK_LEGGED_GAIT_WAVE, &good, &err), SK_OK);
    sk_legged *W = NULL;
    uint32_t refused = 0;
#define REFUSE(edit)                                                                          \
    do {                                                                                      \
        sk_legged_desc d = good;                                                              \
        edit;                                                                                 \
        assert_int_equal(sk_legged_create(&d, NULL, &W, &err), SK_ERR_INVALID_ARGUMENT);      \
        assert_null(W);                                                                       \
        refused++;                                                                            \
    } while (0)
    REFUSE(d.leg_count = 0);
    REFUSE(d.leg_count = 1);
    REFUSE(d.leg_count = 9);
    REFUSE(d.duty = 0.3f);
    REFUSE(d.duty = NAN);
    REFUSE(d.phase[1] = 1.0f);
    REFUSE(d.phase[2] = -0.1f);
    REFUSE(d.legs[0].foot_radius = NAN);
    REFUSE(d.legs[0].knee = d.legs[1].knee);                /* not a chain */
    REFUSE(d.legs[1] = d.legs[0]);                          /* shared joints */
    REFUSE(d.legs[0].foot = 1000);
    REFUSE(d.body_joint = d.legs[0].hip);                   /* not a root */
    REFUSE(d.body_joint = -1);
    REFUSE(d.step_length = -1);
    REFUSE(d.max_tilt = 2);
    REFUSE(d.skeleton = NULL);
    assert_int_equal(refused, 16);
    assert_int_equal(sk_legged_create(NULL, NULL, &W, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_legged_create(&good, NULL, &W, &err), SK_OK);
    uint32_t J = a->skeleton->joint_count;
    sk_transform *loc = calloc(J + 1, sizeof *loc);
    assert_non_null(loc);
    sk_pose pose = sk_pose_view(loc, J, NULL, 0), small = sk_pose_view(loc, J - 1, NULL, 0);
    assert_int_equal(sk_legged_reset(W, 0, 0, 0, &err), SK_OK);
    assert_null(sk_legged_model(W)); /* before an update */
    assert_int_equal(sk_legged_update(W, 1.0 / 60, 0, 0.01f, 0, &pose, &err), SK_OK);
    const sk_legged_state before = *sk_legged_get_state(W);
    assert_int_equal(sk_legged_update(W, 0, 0, 0, 0, &pose, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_legged_update(W, 2, 0, 0, 0, &pose, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_legged_update(W, NAN, 0, 0, 0, &pose, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_legged_update(W, 1.0 / 60, NAN, 0, 0, &pose, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_legged_update(W, 1.0 / 60, 0, 1e9f, 0, &pose, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_legged_update(W, 1.0 / 60, 0, 0, INFINITY, &pose, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_legged_update(W, 1.0 / 60, 0, 0, 0, &small, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_legged_update(W, 1.0 / 60, 0, 0, 0, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_memory_equal(&before, sk_legged_get_state(W), sizeof before); /* nothing changed */
    assert_int_equal(sk_legged_reset(W, NAN, 0, 0, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_legged_reset(NULL, 0, 0, 0, &err), SK_ERR_INVALID_ARGUMENT);
    /* a caller that teleports: the body follows, every value finite */
    assert_int_equal(sk_legged_update(W, 1.0 / 60, 50, -40, 3, &pose, &err), SK_OK);
    for (int k = 0; k < 120; k++) assert_int_equal(sk_legged_update(W, 1.0 / 60, 50, -40, 3, &pose, &err), SK_OK);
    const sk_legged_state *st = sk_legged_get_state(W);
    for (uint32_t l = 0; l < st->leg_count; l++)
        assert_true(isfinite(st->feet[l].contact.x) && isfinite(st->feet[l].contact.y) && isfinite(st->feet[l].contact.z));
    for (uint32_t j = 0; j < J; j++) assert_true(isfinite(loc[j].r.w) && isfinite(loc[j].t.y));
    assert_null(sk_legged_get_state(NULL));
    assert_null(sk_legged_model(NULL));
    sk_legged_destroy(NULL);
    sk_legged_destroy(W);
    free(loc);
    sk_asset_destroy(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gaits),
        cmocka_unit_test(test_walks),
        cmocka_unit_test(test_meshes),
        cmocka_unit_test(test_refused),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
