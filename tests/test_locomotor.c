/* The semi-procedural locomotion runtime (locomotion/locomotor.h, seed 002
 * ch. 5) and the path-following controller (locomotion/controller.h), issue
 * #10 items 3 and 4.
 *
 * References, all independent of the code under test:
 *   - the terrains' closed forms (flat, a ramp: (z - 1) tan a, stairs:
 *     (floor((z - 1) / run) + 1) rise) for contact, penetration and which
 *     tread a foot is on;
 *   - the geometry of steady turning: a character on a circle of radius R
 *     at speed v turns at v / R, and the footsteps predicted with (30)-(33)
 *     lie on circles about the same centre whose radii follow from the
 *     blended stance positions; a prediction made early in a step equals the
 *     footstep the foot finally lands on;
 *   - the metrics the issue defines (slide of the heel-toe midpoint over a
 *     run of stance frames, contact and penetration), computed here from
 *     the world positions of the heel and toe points (the joints' world
 *     matrices from sk_local_to_model of the output pose, not the
 *     locomotor's own report);
 *   - a quadruped built in code (4 legs, a lateral-sequence walk authored
 *     with closed-form two-bone angles) on bumps and stairs;
 *   - bad input: NaN, dt out of range, no ground at all;
 *   - a mesh terrain behind a callback of the test's own, which has no
 *     height bound: the locomotor casts every ray there, and its poses and
 *     feet must be those it makes on the mesh itself, where the bound spares
 *     rays. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* ---- a character: asset + analyses + group + locomotor ------------------ */
typedef struct rig {
    sk_asset *asset;
    const sk_skeleton *skel;
    sk_leg_desc legs[4];
    uint32_t nlegs;
    sk_motion_analysis *an[2];
    const sk_clip *clips[2];
    uint32_t nclips;
    sk_motion_group *group;
    sk_locomotor *L;
    sk_transform *local;
    sk_mat4 *world;
} rig;

static void rig_locomotor(rig *r, const sk_terrain *terrain, const sk_clip *idle, bool plain) {
    sk_error err = {0};
    sk_locomotor_desc d = {0};
    d.skeleton = r->skel;
    d.group = r->group;
    d.clips = r->clips;
    d.clip_count = r->nclips;
    d.idle = idle;
    d.body_joint = -1;
    d.plain = plain;
    if (terrain) d.terrain = *terrain;
    sk_locomotor_destroy(r->L);
    r->L = NULL;
    if (sk_locomotor_create(&d, NULL, &r->L, &err) != SK_OK) fail_msg("%s", err.message);
}

static void rig_analyse(rig *r) {
    sk_error err = {0};
    for (uint32_t i = 0; i < r->nclips; i++)
        if (sk_motion_analyze(r->skel, r->clips[i], r->legs, r->nlegs, NULL, NULL, &r->an[i], &err) != SK_OK)
            fail_msg("%s", err.message);
    if (sk_motion_group_create((const sk_motion_analysis *const *)r->an, r->nclips, NULL, &r->group, &err) != SK_OK)
        fail_msg("%s", err.message);
    r->local = calloc(r->skel->joint_count, sizeof *r->local);
    r->world = calloc(r->skel->joint_count, sizeof *r->world);
    assert_non_null(r->local);
    assert_non_null(r->world);
}

static void rig_mannequin(rig *r, const sk_terrain *terrain, bool plain) {
    memset(r, 0, sizeof *r);
    sk_error err = {0};
    if (sk_mannequin_create(NULL, NULL, &r->asset, &err) != SK_OK) fail_msg("%s", err.message);
    r->skel = r->asset->skeleton;
    r->nlegs = sk_legs_find(r->skel, r->legs, 2);
    assert_int_equal(r->nlegs, 2);
    if (sk_leg_points_from_mesh(r->asset, r->legs, 2, NULL, NULL, &err) != SK_OK) fail_msg("%s", err.message);
    r->clips[0] = r->asset->clips[sk_asset_find_clip(r->asset, "walk")];
    r->clips[1] = r->asset->clips[sk_asset_find_clip(r->asset, "run")];
    r->nclips = 2;
    rig_analyse(r);
    rig_locomotor(r, terrain, r->asset->clips[sk_asset_find_clip(r->asset, "idle")], plain);
}

static void rig_free(rig *r) {
    sk_locomotor_destroy(r->L);
    sk_motion_group_destroy(r->group);
    for (int i = 0; i < 2; i++) sk_motion_analysis_destroy(r->an[i]);
    free(r->local);
    free(r->world);
    sk_asset_destroy(r->asset);
    memset(r, 0, sizeof *r);
}

static sk_vec3 mpos(const sk_mat4 *m) { return sk_vec3_make(m->m[12], m->m[13], m->m[14]); }
static sk_vec3 mpoint(const sk_mat4 *m, sk_vec3 p) { return sk_mat4_transform_point(m, p); }

/* One frame; world matrices from the output pose (independent FK), and
 * the locomotor's own (sk_locomotor_model, computed while it placed the
 * feet) the same to float rounding. */
static void rig_step(rig *r, double dt, float x, float z, float yaw) {
    sk_error err = {0};
    sk_pose pose = sk_pose_view(r->local, r->skel->joint_count, NULL, 0);
    if (sk_locomotor_update(r->L, dt, x, z, yaw, &pose, &err) != SK_OK) fail_msg("%s", err.message);
    const sk_locomotor_state *st = sk_locomotor_get_state(r->L);
    if (sk_local_to_model(r->skel, &pose, &st->root, r->world, r->skel->joint_count, &err) != SK_OK)
        fail_msg("%s", err.message);
    const sk_mat4 *own = sk_locomotor_model(r->L);
    assert_non_null(own);
    for (uint32_t j = 0; j < r->skel->joint_count; j++)
        for (int k = 0; k < 16; k++)
            if (!(fabsf(own[j].m[k] - r->world[j].m[k]) <= 2e-5f * (1 + fabsf(r->world[j].m[k]))))
                fail_msg("sk_locomotor_model: joint %u element %d is %g, the pose's FK %g", j, k, (double)own[j].m[k],
                         (double)r->world[j].m[k]);
}

static void feet_of(const rig *r, uint32_t l, sk_vec3 *heel, sk_vec3 *toe) {
    const sk_leg_analysis *a = &r->an[0]->legs[l];
    int32_t tj = a->toe_joint >= 0 ? a->toe_joint : a->ankle_joint;
    *heel = mpoint(&r->world[a->ankle_joint], a->heel_point);
    *toe = mpoint(&r->world[tj], a->toe_point);
}

/* ---- metrics (the definitions) ------------------------------------ */
typedef float (*height_fn)(const void *p, float x, float z);
typedef struct metrics {
    double slide_max, contact_max, pen_max;
    uint32_t runs, stance_frames[4], frames, unreached;
    bool in_run[4];
    sk_vec3 start[4];
    double run_max[4];
} metrics;

static void metrics_add(metrics *m, const rig *r, height_fn h, const void *hp) {
    const sk_locomotor_state *st = sk_locomotor_get_state(r->L);
    m->frames++;
    for (uint32_t l = 0; l < r->nlegs; l++) {
        sk_vec3 he, to;
        feet_of(r, l, &he, &to);
        /* the runtime's report agrees with the independent FK */
        assert_true(sk_vec3_length(sk_vec3_sub(he, st->feet[l].heel)) < 1e-4f);
        float gh = h(hp, he.x, he.z), gt = h(hp, to.x, to.z);
        double pen = fmax(gh - he.y, gt - to.y);
        if (pen > m->pen_max) m->pen_max = pen;
        sk_vec3 mid = sk_vec3_scale(sk_vec3_add(he, to), 0.5f);
        if (st->feet[l].stance) {
            m->stance_frames[l]++;
            if (!st->feet[l].reached) m->unreached++;
            double c = fmin(fabs(he.y - gh), fabs(to.y - gt));
            if (c > m->contact_max) m->contact_max = c;
            if (!m->in_run[l]) {
                m->in_run[l] = true;
                m->start[l] = mid;
                m->run_max[l] = 0;
            } else {
                m->run_max[l] = fmax(m->run_max[l], hypot(mid.x - m->start[l].x, mid.z - m->start[l].z));
            }
        } else if (m->in_run[l]) {
            m->in_run[l] = false;
            m->runs++;
            m->slide_max = fmax(m->slide_max, m->run_max[l]);
        }
    }
}

static float h_flat(const void *p, float x, float z) { (void)p, (void)x, (void)z; return 0; }
typedef struct ramp_p { float tan_a; } ramp_p;
static float h_ramp(const void *p, float x, float z) {
    (void)x;
    return z < 1 ? 0 : (z - 1) * ((const ramp_p *)p)->tan_a;
}
typedef struct stairs_p { float rise, run; } stairs_p;
static float h_stairs(const void *p, float x, float z) {
    (void)x;
    const stairs_p *s = p;
    return z < 1 ? 0 : (floorf((z - 1) / s->run) + 1) * s->rise;
}
typedef struct bumps_p { const sk_terrain_shape *shape; } bumps_p;
static float h_bumps(const void *p, float x, float z) {
    return sk_terrain_bumps_height(((const bumps_p *)p)->shape, x, z, NULL);
}

/* Walks straight along +Z from z0 at `speed` for `seconds` (the point moves
 * at constant speed after a 0.5 s ramp-up), adding frames to m. */
static void walk_straight(rig *r, float z0, float speed, double seconds, metrics *m, height_fn h, const void *hp) {
    sk_error err = {0};
    assert_int_equal(sk_locomotor_reset(r->L, 0, z0, 0, &err), SK_OK);
    const double dt = 1.0 / 60;
    float z = z0, v = 0;
    for (double t = 0; t < seconds; t += dt) {
        v = fminf(speed, v + (float)(speed / 0.5 * dt));
        z += v * (float)dt;
        rig_step(r, dt, 0, z, 0);
        if (m) metrics_add(m, r, h, hp);
    }
}

static void check_targets(const char *what, const metrics *m) {
    printf("  %-28s slide %.4f cm, contact %.4f cm, penetration %.4f cm over %u stance runs, %u frames\n", what,
           100 * m->slide_max, 100 * m->contact_max, 100 * m->pen_max, m->runs, m->frames);
    assert_true(m->runs >= 4);
    assert_true(m->slide_max < 0.005);   /* 0.5 cm */
    assert_true(m->contact_max < 0.01);  /* 1 cm */
    assert_true(m->pen_max < 0.01);      /* 1 cm */
    assert_int_equal(m->unreached, 0);
}

/* ---- tests ------------------------------------------------------------------ */
static void test_tracker(void **state) {
    (void)state;
    sk_motion_tracker t;
    sk_motion_tracker_reset(&t, sk_vec3_make(1, 0, 2), 3.0f);
    t.smoothing = 0; /* raw differences: closed form */
    const double dt = 0.02;
    float yaw = 3.0f;
    for (int i = 1; i <= 50; i++) {
        yaw += 1.5f * (float)dt; /* crosses +pi: must unwrap */
        if (yaw > (float)PI) yaw -= 2 * (float)PI;
        sk_motion_tracker_update(&t, sk_vec3_make(1 + 0.8f * (float)(i * dt), 0, 2 - 0.3f * (float)(i * dt)), yaw, dt);
    }
    assert_float_equal(t.velocity.x, 0.8f, 1e-3f);
    assert_float_equal(t.velocity.z, -0.3f, 1e-3f);
    assert_float_equal(t.angular_velocity, 1.5f, 1e-3f);
    assert_float_equal(t.acceleration.x, 0.0f, 1e-2f);
    /* constant acceleration: a = 2 m/s^2 along x, from rest */
    sk_motion_tracker ta;
    sk_motion_tracker_reset(&ta, sk_vec3_make(0, 0, 0), 0);
    for (int i = 1; i <= 100; i++) {
        double tt = i * dt;
        sk_motion_tracker_update(&ta, sk_vec3_make((float)(tt * tt), 0, 0), 0, dt);
    }
    printf("  tracker: constant 2 m/s^2 reads %.3f m/s^2 (smoothed %.0f ms)\n", ta.acceleration.x, 1e3 * ta.smoothing);
    assert_float_equal(ta.acceleration.x, 2.0f, 0.05f);
    assert_float_equal(ta.velocity.x, 4.0f - 2.0f * 0.05f, 0.1f); /* 2 t, lagging tau = 50 ms */
    /* bad input leaves it as it was */
    sk_motion_tracker before = t;
    sk_motion_tracker_update(&t, sk_vec3_make(NAN, 0, 0), 0, dt);
    sk_motion_tracker_update(&t, sk_vec3_make(0, 0, 0), 0, 0);
    sk_motion_tracker_update(&t, sk_vec3_make(0, 0, 0), INFINITY, dt);
    assert_memory_equal(&before, &t, sizeof t);
}

static void test_flat_walk_and_run(void **state) {
    (void)state;
    rig r;
    rig_mannequin(&r, NULL, false);
    static const float speeds[] = {0.5f, 1.0f, 1.4f, 1.8f, 2.5f, 3.5f};
    for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++) {
        metrics m = {0};
        walk_straight(&r, 0, speeds[i], 6.0, &m, h_flat, NULL);
        char what[64];
        snprintf(what, sizeof what, "flat, %.1f m/s", speeds[i]);
        check_targets(what, &m);
        /* the character went where it was driven, and the hips follow it */
        const sk_locomotor_state *st = sk_locomotor_get_state(r.L);
        uint32_t body = sk_locomotor_body_joint(r.L);
        sk_vec3 hips = mpos(&r.world[body]);
        assert_true(fabsf(hips.z - st->position.z) < 0.3f);
        /* stance (foot-land .. foot-lift): the planted part of the cycle */
        for (uint32_t l = 0; l < 2; l++) {
            double f = (double)m.stance_frames[l] / m.frames;
            assert_true(f > 0.15 && f < 0.7);
        }
    }
    rig_free(&r);
}

/* A clip that holds the foot pitched at stance (a retargeted capture): the
 * mannequin's walk and run with each ankle turned 20 degrees toe-up, key by
 * key. The locomotor lays a planted foot flat, longer along the ground than
 * (8)'s projection at stance; its footsteps must be as long. Checked in the
 * world on every planted frame: the foot's heel on its footstep's position
 * and its toe on position + rotation x foot (sk_locomotor_foot.foot), both
 * within 3 mm, and that vector within 3 mm of the heel-toe distance the
 * test measures on the laid foot. With footsteps of (8)'s length the heel
 * stood half the difference (7 mm) behind. */
static void test_laid_foot(void **state) {
    (void)state;
    rig r;
    rig_mannequin(&r, NULL, false);
    sk_transform *local = calloc(r.skel->joint_count, sizeof *local);
    sk_mat4 *model = calloc(r.skel->joint_count, sizeof *model);
    assert_int_equal(sk_pose_rest(r.skel, SK_POSE_OF(r.skel, local, NULL), NULL), SK_OK);
    assert_int_equal(sk_local_to_model(r.skel, SK_POSE_OF(r.skel, local, NULL), NULL, model, r.skel->joint_count, NULL), SK_OK);
    int32_t ankles[2] = {r.legs[0].ankle, r.legs[1].ankle};
    sk_quat turn[2];
    for (int l = 0; l < 2; l++) { /* about the world X axis seen from the ankle at rest: negative raises the toe */
        sk_transform ta;
        assert_true(sk_mat4_decompose(&model[ankles[l]], &ta));
        turn[l] = sk_quat_from_axis_angle(sk_quat_rotate(sk_quat_inverse(ta.r), sk_vec3_make(1, 0, 0)), (float)(-20 * PI / 180));
    }
    free(local);
    free(model);
    sk_clip *tw[2] = {sk_test_clip_turned(r.clips[0], ankles, turn, 2), sk_test_clip_turned(r.clips[1], ankles, turn, 2)};
    sk_locomotor_destroy(r.L);
    sk_motion_group_destroy(r.group);
    r.L = NULL;
    for (int i = 0; i < 2; i++) sk_motion_analysis_destroy(r.an[i]), r.clips[i] = tw[i];
    free(r.local);
    free(r.world);
    rig_analyse(&r);
    rig_locomotor(&r, NULL, NULL, false);
    float proj = r.an[0]->legs[0].foot_length;
    sk_error err = {0};
    assert_int_equal(sk_locomotor_reset(r.L, 0, 0, 0, &err), SK_OK);
    double worst_heel = 0, worst_toe = 0, worst_len = 0, laid = 0;
    uint32_t planted = 0;
    float z = 0;
    for (int f = 0; f < 480; f++) {
        z += 1.2f / 60;
        rig_step(&r, 1.0 / 60, 0, z, 0);
        const sk_locomotor_state *st = sk_locomotor_get_state(r.L);
        for (uint32_t l = 0; l < 2; l++) {
            const sk_locomotor_foot *ft = &st->feet[l];
            if (!ft->stance || f < 60) continue;
            sk_vec3 heel, toe;
            feet_of(&r, l, &heel, &toe);
            /* the footstep the foot stands on: the one nearer its heel */
            const sk_footstep *fs = &ft->from;
            if (hypotf(ft->to.position.x - heel.x, ft->to.position.z - heel.z) <
                hypotf(fs->position.x - heel.x, fs->position.z - heel.z))
                fs = &ft->to;
            sk_vec3 tip = sk_vec3_add(fs->position, sk_quat_rotate(fs->rotation, ft->foot));
            double dh = hypotf(heel.x - fs->position.x, heel.z - fs->position.z);
            double dt = hypotf(toe.x - tip.x, toe.z - tip.z);
            double len = hypotf(toe.x - heel.x, toe.z - heel.z);
            worst_heel = fmax(worst_heel, dh), worst_toe = fmax(worst_toe, dt);
            worst_len = fmax(worst_len, fabs(len - sk_vec3_length(ft->foot)));
            laid = fmax(laid, len);
            planted++;
        }
    }
    printf("  ankles turned 20 degrees: foot %.4f m laid, %.4f m by (8); %u planted leg-frames: heel off its footstep "
           "%.2f mm, toe %.2f mm, length %.2f mm at most\n", laid, (double)proj, planted, 1000 * worst_heel, 1000 * worst_toe,
           1000 * worst_len);
    assert_true(planted > 200);
    assert_true(laid > proj + 0.006); /* the case: the laid foot is longer than (8)'s */
    assert_true(worst_heel < 0.003 && worst_toe < 0.003 && worst_len < 0.003);
    rig_free(&r);
    sk_clip_destroy(tw[0]);
    sk_clip_destroy(tw[1]);
}

static void test_ramps_and_bumps(void **state) {
    (void)state;
    static const float degs[] = {10, 30, 45, -10, -30};
    for (size_t i = 0; i < sizeof degs / sizeof degs[0]; i++) {
        sk_terrain_shape shape;
        sk_terrain t;
        sk_error err = {0};
        sk_terrain_ramp_options o = {.angle = degs[i] * (float)PI / 180, .start = sk_vec3_make(0, 0, 1)};
        assert_int_equal(sk_terrain_ramp(&shape, &o, &t, &err), SK_OK);
        rig r;
        rig_mannequin(&r, &t, false);
        metrics m = {0};
        ramp_p rp = {tanf(o.angle)};
        walk_straight(&r, 0, 1.2f, 6.0, &m, h_ramp, &rp);
        char what[64];
        snprintf(what, sizeof what, "ramp %+.0f deg, 1.2 m/s", degs[i]);
        check_targets(what, &m);
        /* the hips climbed with the ground */
        uint32_t body = sk_locomotor_body_joint(r.L);
        float hy = mpos(&r.world[body]).y, gz = h_ramp(&rp, 0, mpos(&r.world[body]).z);
        assert_true(hy - gz > 0.5f && hy - gz < 1.1f);
        rig_free(&r);
    }
    sk_terrain_shape shape;
    sk_terrain t;
    sk_error err = {0};
    sk_terrain_bumps_options bo = {.amplitude = 0.1f, .seed = 7};
    assert_int_equal(sk_terrain_bumps(&shape, &bo, &t, &err), SK_OK);
    rig r;
    rig_mannequin(&r, &t, false);
    bumps_p bp = {&shape};
    for (float sp = 1.0f; sp <= 3.6f; sp += 2.5f) {
        metrics m = {0};
        walk_straight(&r, 0, sp, 6.0, &m, h_bumps, &bp);
        check_targets(sp < 2 ? "bumps 0.1 m, 1.0 m/s" : "bumps 0.1 m, 3.5 m/s", &m);
    }
    rig_free(&r);
}

/* Every planted foot stands on one tread, clear of the riser edges
 * (§5.2.1), and the baseline does not. */
static void test_stairs(void **state) {
    (void)state;
    static const stairs_p cases[] = {{0.17f, 0.28f}, {0.15f, 0.30f}, {-0.17f, 0.28f}};
    for (size_t k = 0; k < 3; k++) {
        sk_terrain_shape shape;
        sk_terrain t;
        sk_error err = {0};
        sk_terrain_stairs_options so = {.rise = cases[k].rise, .run = cases[k].run, .start = sk_vec3_make(0, 0, 1)};
        assert_int_equal(sk_terrain_stairs(&shape, &so, &t, &err), SK_OK);
        for (int plain = 0; plain < 2; plain++) {
            rig r;
            rig_mannequin(&r, &t, plain != 0);
            metrics m = {0};
            sk_error e2 = {0};
            assert_int_equal(sk_locomotor_reset(r.L, 0, 0, 0, &e2), SK_OK);
            const double dt = 1.0 / 60;
            float z = 0, v = 0;
            uint32_t planted = 0, on_edge = 0, straddle = 0;
            for (double tt = 0; tt < 7.0; tt += dt) {
                v = fminf(1.2f, v + (float)(2.4 * dt));
                z += v * (float)dt;
                rig_step(&r, dt, 0, z, 0);
                metrics_add(&m, &r, h_stairs, &cases[k]);
                const sk_locomotor_state *st = sk_locomotor_get_state(r.L);
                for (uint32_t l = 0; l < 2; l++) {
                    if (!st->feet[l].stance) continue;
                    sk_vec3 he, to;
                    feet_of(&r, l, &he, &to);
                    if (he.z < 1.05f) continue; /* before the stairs */
                    planted++;
                    float th = floorf((he.z - 1) / cases[k].run), tt2 = floorf((to.z - 1) / cases[k].run);
                    if (th != tt2) straddle++;
                    float eh = fmodf(he.z - 1, cases[k].run), et = fmodf(to.z - 1, cases[k].run);
                    if (eh < 0.005f || cases[k].run - et < 0.005f) on_edge++;
                }
            }
            printf("  stairs %+.2f/%.2f %-6s: %u planted foot-frames on the stairs, %u straddle a riser, %u within "
                   "5 mm of an edge; penetration %.2f cm\n",
                   cases[k].rise, cases[k].run, plain ? "plain" : "placed", planted, straddle, on_edge,
                   100 * m.pen_max);
            assert_true(planted > 100);
            if (!plain) {
                assert_int_equal(straddle, 0);
                assert_int_equal(on_edge, 0);
                check_targets("stairs, placed", &m);
            } else {
                assert_true(m.pen_max > 0.05); /* the clips alone go through the steps */
            }
            rig_free(&r);
        }
    }
}

/* Both feet's heel and toe points, and the body joint's height (returned);
 * *body0, when negative, becomes the body's height above the lower heel
 * (its standing height, on the first frame). */
static float feet_and_body(const rig *r, int32_t body, sk_vec3 he[2], sk_vec3 to[2], float *body0) {
    for (uint32_t l = 0; l < 2; l++) feet_of(r, l, &he[l], &to[l]);
    float hb = mpos(&r->world[body]).y;
    if (*body0 < 0) *body0 = hb - fminf(he[0].y, he[1].y);
    return hb;
}

/* A sidestep up stairs: the mannequin's right strafe (its own clip, the
 * only motion), moving up 0.17 / 0.28 m stairs at 1.0 m/s with the stairs
 * to its right. On the stairs the slope shortens the cycle (steps quicker
 * and shorter); a sidestep's feet stand apart along the way it goes, so
 * that spread must shrink with the stride (step_spread in locomotor.c):
 * kept at the clip's, the leading foot landed two and three treads above
 * the trailing one. Checked against the stairs' closed form: whenever both
 * feet are planted, the treads under their heels, and the body joint's
 * height above the higher foot. */
static void test_sidestep_stairs(void **state) {
    (void)state;
    stairs_p sp = {0.17f, 0.28f};
    sk_terrain_shape shape;
    sk_terrain t;
    sk_error err = {0};
    sk_terrain_stairs_options so = {.rise = sp.rise, .run = sp.run, .start = sk_vec3_make(0, 0, 1)};
    assert_int_equal(sk_terrain_stairs(&shape, &so, &t, &err), SK_OK);
    rig r;
    memset(&r, 0, sizeof r);
    if (sk_mannequin_create(NULL, NULL, &r.asset, &err) != SK_OK) fail_msg("%s", err.message);
    r.skel = r.asset->skeleton;
    r.nlegs = sk_legs_find(r.skel, r.legs, 2);
    assert_int_equal(r.nlegs, 2);
    if (sk_leg_points_from_mesh(r.asset, r.legs, 2, NULL, NULL, &err) != SK_OK) fail_msg("%s", err.message);
    int32_t ci = sk_asset_find_clip(r.asset, "strafe_right");
    assert_true(ci >= 0);
    r.clips[0] = r.asset->clips[ci];
    r.nclips = 1;
    rig_analyse(&r);
    rig_locomotor(&r, &t, NULL, false);
    /* the yaw that turns the clip's own direction of travel to +Z */
    sk_vec3 d = r.an[0]->cycle_direction;
    float yaw = atan2f(-d.x, d.z);
    assert_int_equal(sk_locomotor_reset(r.L, 0, 0, yaw, &err), SK_OK);
    int32_t body = sk_skeleton_find(r.skel, "hips");
    assert_true(body >= 0);
    metrics m = {0};
    const double dt = 1.0 / 60;
    float z = 0, v = 0, body0 = -1;
    int apart_max = 0, last_tread[2] = {-1000, -1000};
    float last_z[2] = {0, 0}, spread = 0;
    bool was[2] = {false, false};
    double low = 1e9;
    uint32_t landings = 0;
    for (double tt = 0; tt < 7.0; tt += dt) {
        v = fminf(1.0f, v + (float)(2.0 * dt));
        z += v * (float)dt;
        rig_step(&r, dt, 0, z, yaw);
        metrics_add(&m, &r, h_stairs, &sp);
        const sk_locomotor_state *st = sk_locomotor_get_state(r.L);
        sk_vec3 he[2], to[2];
        float hb = feet_and_body(&r, body, he, to, &body0);
        for (uint32_t l = 0; l < 2; l++) {
            bool on = st->feet[l].stance;
            if (on && he[l].z > 1.05f && z < 5.5f) {
                int tr = (int)floorf((he[l].z - 1) / sp.run);
                /* a landing: its tread against the one the other foot last stood on */
                if (!was[l] && last_tread[1 - l] > -1000) {
                    landings++;
                    if (abs(tr - last_tread[1 - l]) > apart_max) apart_max = abs(tr - last_tread[1 - l]);
                    spread = fmaxf(spread, fabsf(he[l].z - last_z[1 - l]));
                }
                last_tread[l] = tr;
                last_z[l] = he[l].z;
                double above = (hb - he[l].y) / body0; /* the body over the foot it stands on */
                if (above < low) low = above;
            }
            was[l] = on;
        }
    }
    printf("  sidestep up 0.17/0.28 stairs at 1.0 m/s: %u landings on the stairs, each at most %.3f m and %d treads from "
           "the other foot's; the body at least %.3f of standing above the planted foot\n", landings, spread, apart_max, low);
    assert_true(landings >= 8);
    /* 0.580 m and 0.520 with the clip's spread kept; 0.497 and 0.689 with
     * it scaled by the stride alone (before the climb's bound) */
    assert_true(spread < 0.47f);
    assert_true(low >= 0.70);
    check_targets("sidestep up stairs", &m);
    rig_free(&r);
}

/* Whole treads a step: the mannequin's walk driven straight up (and down)
 * regular stairs at speeds whose own step (the slope's cycle alone) is not a
 * whole number of treads. Every landing on the stairs after the first two
 * must be the same whole number of treads (the stairs' closed form from the
 * heel's place, written here) past the other foot's last, that number
 * climbing at most 0.45 of the leg; the feet never straddle a riser; the
 * body stays at least 0.7 of its standing height above the foot it stands
 * on. Before (the slope's cycle alone) the feet took one tread, then two
 * (1.0 m/s up: 1 1 2 1 1 1 2 ...), or stood on one tread by turns (0.5 m/s:
 * 1 0 1 ... 1 2 0 1). */
static void test_stairs_whole_treads(void **state) {
    (void)state;
    static const struct {
        stairs_p sp;
        float speed;
    } cases[] = {{{0.17f, 0.28f}, 0.5f}, {{0.17f, 0.28f}, 1.0f}, {{0.17f, 0.28f}, 1.8f},
                 {{-0.17f, 0.28f}, 1.0f}, {{0.15f, 0.30f}, 1.4f}, {{0.20f, 0.25f}, 0.8f}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const stairs_p *sp = &cases[k].sp;
        sk_terrain_shape shape;
        sk_terrain t;
        sk_error err = {0};
        sk_terrain_stairs_options so = {.rise = sp->rise, .run = sp->run, .start = sk_vec3_make(0, 0, 1), .count = 16};
        assert_int_equal(sk_terrain_stairs(&shape, &so, &t, &err), SK_OK);
        rig r;
        rig_mannequin(&r, &t, false);
        assert_int_equal(sk_locomotor_reset(r.L, 0, 0, 0, &err), SK_OK);
        int32_t body = sk_skeleton_find(r.skel, "hips");
        assert_true(body >= 0);
        float leg = 0;
        for (uint32_t l = 0; l < 2; l++) leg = fmaxf(leg, r.an[0]->legs[l].leg_length);
        const float top = 1 + 16 * sp->run; /* the last riser */
        const double dt = 1.0 / 60;
        float z = 0, v = 0, body0 = -1;
        bool was[2] = {false, false};
        int last[2] = {-1000, -1000}, n = 0, seq[64];
        uint32_t landings = 0, straddle = 0, odd = 0;
        double low = 1e9;
        for (double tt = 0; z < top + 1.5f && tt < 30; tt += dt) {
            v = fminf(cases[k].speed, v + (float)(2.0 * dt));
            z += v * (float)dt;
            rig_step(&r, dt, 0, z, 0);
            const sk_locomotor_state *st = sk_locomotor_get_state(r.L);
            sk_vec3 he[2], to[2];
            float hb = feet_and_body(&r, body, he, to, &body0);
            for (uint32_t l = 0; l < 2; l++) {
                bool on = st->feet[l].stance;
                if (on && he[l].z > 1.0f && to[l].z < top) {
                    int tr = (int)floorf((he[l].z - 1) / sp->run); /* the closed form: tread k spans [k, k+1) runs */
                    if ((int)floorf((to[l].z - 1) / sp->run) != tr) straddle++;
                    if (!was[l]) {
                        if (last[1 - l] > -1000 && landings < 64) seq[landings++] = tr - last[1 - l];
                    }
                    last[l] = tr;
                    double above = (hb - fmaxf(he[l].y, to[l].y)) / body0;
                    if (above < low) low = above;
                }
                was[l] = on;
            }
        }
        char line[200] = "";
        for (uint32_t i = 0; i < landings && strlen(line) < sizeof line - 4; i++)
            snprintf(line + strlen(line), sizeof line - strlen(line), "%d ", seq[i]);
        if (landings > 2) n = seq[2];
        for (uint32_t i = 2; i < landings; i++) odd += seq[i] != n;
        printf("  stairs %+.2f/%.2f at %.1f m/s: treads between landings %s(%u landings, %u off the step of %d); "
               "straddling %u; body at least %.3f of standing\n",
               sp->rise, sp->run, cases[k].speed, line, landings, odd, n, straddle, low);
        assert_true(landings >= 6);
        assert_int_equal(odd, 0);
        assert_true(n >= 1 && (float)n * fabsf(sp->rise) <= 0.45f * leg + 1e-4f);
        assert_int_equal(straddle, 0);
        assert_true(low >= 0.7);
        rig_free(&r);
    }
}

/* Steady turning: (30)-(33). */
static void test_turn_prediction(void **state) {
    (void)state;
    rig r;
    rig_mannequin(&r, NULL, false);
    const float R = 3.0f, v = 1.3f, w = v / R;
    const double dt = 1.0 / 60;
    sk_error err = {0};
    /* the angle a grows; facing the tangent, yaw = -a (yaw 0 faces +Z) */
    assert_int_equal(sk_locomotor_reset(r.L, R, 0, 0, &err), SK_OK);
    double ang = 0;
    sk_vec3 early[2] = {{0}}, final_to[2] = {{0}};
    bool have_early[2] = {false, false};
    double prev_ct[2] = {0, 0};
    uint32_t compared = 0;
    double worst = 0, worst_r = 0;
    /* the blended stance positions at this velocity (character space) */
    float wts[2];
    sk_motion_blend mb;
    assert_int_equal(sk_motion_group_evaluate(r.group, sk_vec3_make(0, 0, v), wts, 2, &mb, &err), SK_OK);
    for (int f = 0; f < 60 * 12; f++) {
        ang += w * dt;
        /* position on the circle about the origin: (R cos a, R sin a) in (x, z);
         * velocity direction (-sin a, cos a) -> yaw = atan2(-sin a, cos a) */
        float x = R * cosf((float)ang), z = R * sinf((float)ang);
        float yaw = atan2f(-sinf((float)ang), cosf((float)ang));
        rig_step(&r, dt, x, z, yaw);
        if (f < 60 * 4) continue; /* settle */
        const sk_locomotor_state *st = sk_locomotor_get_state(r.L);
        assert_float_equal(st->angular_velocity, -w, 0.02f); /* yaw = -a */
        for (uint32_t l = 0; l < 2; l++) {
            double ct = st->feet[l].cycle_time;
            if (ct < prev_ct[l]) { /* wrapped: the foot is on what it went to */
                if (have_early[l]) {
                    double d = sk_vec3_length(sk_vec3_sub(early[l], st->feet[l].from.position));
                    worst = fmax(worst, d);
                    compared++;
                }
                /* closed form: the footstep is the stance position in the
                 * frame of the character on the circle (local +X points
                 * away from the centre here, +Z along the tangent) */
                /* the runtime's character point is the middle of the feet's
                 * paths (the weighted mean of the analyses' leg centres) */
                sk_vec3 c = sk_vec3_make(0, 0, 0);
                for (uint32_t i = 0; i < 2; i++)
                    for (uint32_t k = 0; k < 2; k++)
                        c = sk_vec3_add(c, sk_vec3_scale(r.an[i]->legs[k].center, 0.5f * wts[i]));
                sk_vec3 sp = sk_vec3_sub(mb.legs[l].stance_position, c);
                double expect = hypot(R + sp.x, sp.z);
                double rr = hypot(st->feet[l].from.position.x, st->feet[l].from.position.z);
                worst_r = fmax(worst_r, fabs(rr - expect));
                have_early[l] = false;
            }
            if (!have_early[l] && ct > 0.05 && ct < 0.15) {
                early[l] = st->feet[l].to.position;
                have_early[l] = true;
            }
            final_to[l] = st->feet[l].to.position;
            prev_ct[l] = ct;
        }
    }
    printf("  circle R %.1f m at %.1f m/s: %u footsteps, early prediction vs landing %.2f mm, footstep radius vs "
           "closed form %.2f mm (worst)\n",
           R, v, compared, 1e3 * worst, 1e3 * worst_r);
    assert_true(compared >= 8);
    assert_true(worst < 0.015); /* casts are reused within 1 cm */
    assert_true(worst_r < 0.002);
    (void)final_to;
    rig_free(&r);
}

/* Start, walk, stop: the planted feet do not slide when the character stops
 * and stands (idle), and it starts again from where it stands. */
static void test_start_stop(void **state) {
    (void)state;
    rig r;
    rig_mannequin(&r, NULL, false);
    sk_path_follower pf;
    float pts[] = {0, 0, 0, 3};
    sk_path_follower_desc pd = {pts, 2, 1.4f, 0, 0, 0, NAN, false};
    sk_error err = {0};
    assert_int_equal(sk_path_follower_init(&pf, &pd, &err), SK_OK);
    assert_int_equal(sk_locomotor_reset(r.L, pf.x, pf.z, pf.yaw, &err), SK_OK);
    metrics m = {0};
    const double dt = 1.0 / 60;
    double t = 0;
    /* the mode goes STANDING -> MOVING -> STOPPING -> STANDING, in that order */
    sk_locomotion_mode seen[8];
    int nseen = 0;
    seen[nseen++] = sk_locomotor_get_state(r.L)->mode;
    while (!pf.finished && t < 10) {
        sk_path_follower_step(&pf, dt);
        rig_step(&r, dt, pf.x, pf.z, pf.yaw);
        metrics_add(&m, &r, h_flat, NULL);
        sk_locomotion_mode md = sk_locomotor_get_state(r.L)->mode;
        if (md != seen[nseen - 1] && nseen < 8) seen[nseen++] = md;
        t += dt;
    }
    assert_true(pf.finished);
    /* the last step, then the idle fades in (moving -> 0): the feet stay
     * on their footsteps; once settled they are planted (stance) */
    int settle = 0;
    while (sk_locomotor_get_state(r.L)->moving > 0.01f && settle < 600) {
        rig_step(&r, dt, pf.x, pf.z, pf.yaw);
        metrics_add(&m, &r, h_flat, NULL);
        sk_locomotion_mode md = sk_locomotor_get_state(r.L)->mode;
        if (md != seen[nseen - 1] && nseen < 8) seen[nseen++] = md;
        settle++;
    }
    assert_int_equal(nseen, 4);
    assert_int_equal(seen[0], SK_LOCOMOTION_STANDING);
    assert_int_equal(seen[1], SK_LOCOMOTION_MOVING);
    assert_int_equal(seen[2], SK_LOCOMOTION_STOPPING);
    assert_int_equal(seen[3], SK_LOCOMOTION_STANDING);
    printf("  settled %.2f s after arriving\n", settle * dt);
    assert_true(settle < 180);
    for (uint32_t l = 0; l < 2; l++) assert_true(sk_locomotor_get_state(r.L)->feet[l].stance);
    /* standing: 2 s; the feet stay where they are */
    sk_vec3 he0[2], to0[2];
    for (uint32_t l = 0; l < 2; l++) feet_of(&r, l, &he0[l], &to0[l]);
    double moved = 0;
    for (int k = 0; k < 120; k++) {
        rig_step(&r, dt, pf.x, pf.z, pf.yaw);
        metrics_add(&m, &r, h_flat, NULL);
        for (uint32_t l = 0; l < 2; l++) {
            sk_vec3 he, to;
            feet_of(&r, l, &he, &to);
            moved = fmax(moved, sk_vec3_length(sk_vec3_sub(he, he0[l])));
            moved = fmax(moved, sk_vec3_length(sk_vec3_sub(to, to0[l])));
        }
    }
    const sk_locomotor_state *st = sk_locomotor_get_state(r.L);
    printf("  stop: standing after %.2f s, moving %.3f; feet moved %.3f mm in 2 s of standing\n", t, st->moving,
           1e3 * moved);
    assert_true(st->moving < 0.01f);
    assert_true(moved < 1e-3);
    check_targets("start and stop, 3 m", &m);
    rig_free(&r);
}

/* The same start and stop with a state machine deciding idle / locomotion
 * (anim/graph.h, an external state whose pose is the locomotor's; seed 002
 * §4.3: the group's weight comes from outside): the machine's states go
 * idle -> locomotion -> idle, the way back waits for the locomotor to report
 * its feet down (STANDING), the group weight is the machine's, and the foot
 * metrics meet the same targets. */
static sk_result loco_source(void *user, const char *source, sk_pose *out, sk_error *err) {
    (void)source;
    return sk_locomotor_sample((sk_locomotor *)user, out, err);
}

static void test_start_stop_graph(void **state) {
    (void)state;
    static const char *G =
        "{\"parameters\": [{\"name\": \"speed\", \"type\": \"float\"},"
        "                {\"name\": \"standing\", \"type\": \"bool\", \"default\": true}],"
        " \"machine\": {\"initial\": \"idle\", \"states\": ["
        "   {\"name\": \"idle\", \"clip\": \"idle\"}, {\"name\": \"walk\", \"external\": \"locomotion\"}],"
        "  \"transitions\": ["
        "   {\"from\": \"idle\", \"to\": \"walk\", \"duration\": 0.2, \"curve\": \"smoothstep\","
        "    \"conditions\": [{\"param\": \"speed\", \"op\": \">\", \"value\": 0.1}]},"
        "   {\"from\": \"walk\", \"to\": \"idle\", \"duration\": 0.2, \"curve\": \"smoothstep\","
        "    \"conditions\": [{\"param\": \"speed\", \"op\": \"<=\", \"value\": 0.1},"
        "                   {\"param\": \"standing\", \"value\": true}]}]}}";
    rig r;
    rig_mannequin(&r, NULL, false);
    sk_error err = {0};
    sk_graph *g = NULL;
    sk_graph_instance *gi = NULL;
    assert_int_equal(sk_graph_load_json(G, strlen(G), r.skel, r.asset->clips, r.asset->clip_count, NULL, &g, &err),
                     SK_OK);
    assert_int_equal(sk_graph_instance_create(g, NULL, &gi, &err), SK_OK);
    sk_graph_set_pose_source(gi, loco_source, r.L);
    sk_path_follower pf;
    float pts[] = {0, 0, 0, 3};
    sk_path_follower_desc pd = {pts, 2, 1.4f, 0, 0, 0, NAN, false};
    assert_int_equal(sk_path_follower_init(&pf, &pd, &err), SK_OK);
    assert_int_equal(sk_locomotor_reset(r.L, pf.x, pf.z, pf.yaw, &err), SK_OK);
    metrics m = {0};
    const double dt = 1.0 / 60;
    const char *seen[8];
    int nseen = 0, left_while_not_standing = 0;
    seen[nseen++] = sk_graph_current_state(gi);
    float max_weight_gap = 0;
    for (int f = 0; f < 60 * 8; f++) {
        if (!pf.finished) sk_path_follower_step(&pf, dt);
        assert_int_equal(sk_locomotor_advance(r.L, dt, pf.x, pf.z, pf.yaw, &err), SK_OK);
        const sk_locomotor_state *st = sk_locomotor_get_state(r.L);
        assert_int_equal(sk_graph_set_float(gi, "speed", hypotf(st->velocity.x, st->velocity.z), &err), SK_OK);
        assert_int_equal(sk_graph_set_bool(gi, "standing", st->mode == SK_LOCOMOTION_STANDING, &err), SK_OK);
        const char *before = sk_graph_current_state(gi);
        sk_graph_update(gi, dt);
        const char *cur = sk_graph_current_state(gi);
        if (strcmp(before, cur) && !strcmp(cur, "idle") && st->mode != SK_LOCOMOTION_STANDING)
            left_while_not_standing++;
        if (strcmp(cur, seen[nseen - 1]) && nseen < 8) seen[nseen++] = cur;
        float w = sk_graph_source_weight(gi, "locomotion");
        sk_locomotor_set_group_weight(r.L, w);
        max_weight_gap = fmaxf(max_weight_gap, fabsf(sk_locomotor_get_state(r.L)->moving - w));
        sk_pose pose = sk_pose_view(r.local, r.skel->joint_count, NULL, 0);
        assert_int_equal(sk_graph_evaluate(gi, &pose, &err), SK_OK);
        assert_int_equal(sk_locomotor_adjust(r.L, &pose, &err), SK_OK);
        assert_int_equal(sk_local_to_model(r.skel, &pose, &st->root, r.world, r.skel->joint_count, &err), SK_OK);
        metrics_add(&m, &r, h_flat, NULL);
    }
    assert_true(pf.finished);
    printf("  machine states:");
    for (int k = 0; k < nseen; k++) printf(" %s", seen[k]);
    printf("; group weight = machine weight within %g\n", (double)max_weight_gap);
    assert_int_equal(nseen, 3);
    assert_string_equal(seen[0], "idle");
    assert_string_equal(seen[1], "walk");
    assert_string_equal(seen[2], "idle");
    assert_int_equal(left_while_not_standing, 0);
    assert_true(max_weight_gap == 0.0f);
    const sk_locomotor_state *st = sk_locomotor_get_state(r.L);
    assert_true(st->moving == 0.0f);
    for (uint32_t l = 0; l < 2; l++) assert_true(st->feet[l].stance);
    check_targets("start and stop, state machine", &m);
    /* a negative weight hands the fade back: the locomotor's own smoothing resumes */
    sk_locomotor_set_group_weight(r.L, -1.0f);
    sk_locomotor_set_group_weight(r.L, NAN);
    sk_graph_instance_destroy(gi);
    sk_graph_destroy(g);
    rig_free(&r);
}

/* Legs stay within reach; nothing pops: the knee angle and every joint's
 * position relative to the character change per frame by no more than the
 * clips' own on flat ground allow, scaled by the quicker cadence on steep
 * ground (1 + 1.2 slope, the locomotor's rule) and 1.75 for the adjustment
 * itself (the climb: 0.17 m a step up at a quicker cadence). */
static void test_no_pops(void **state) {
    (void)state;
    sk_terrain_shape shape;
    sk_terrain t;
    sk_error err = {0};
    sk_terrain_stairs_options so = {.rise = 0.17f, .run = 0.28f, .start = sk_vec3_make(0, 0, 1)};
    assert_int_equal(sk_terrain_stairs(&shape, &so, &t, &err), SK_OK);
    double knee_rate[2] = {0, 0}, joint_step[2] = {0, 0};
    for (int plain = 1; plain >= 0; plain--) {
        rig r;
        rig_mannequin(&r, plain ? NULL : &t, plain != 0);
        assert_int_equal(sk_locomotor_reset(r.L, 0, 0, 0, &err), SK_OK);
        const double dt = 1.0 / 60;
        float z = 0, v = 0;
        double prev[2] = {-1, -1}, over = 0;
        uint32_t J = r.skel->joint_count;
        sk_vec3 *rel = calloc(J, sizeof *rel);
        assert_non_null(rel);
        bool have = false;
        for (double tt = 0; tt < 6; tt += dt) {
            v = fminf(1.4f, v + (float)(2.8 * dt));
            z += v * (float)dt;
            rig_step(&r, dt, 0, z, 0);
            if (tt < 1.0) continue;
            const sk_locomotor_state *st = sk_locomotor_get_state(r.L);
            for (uint32_t j = 0; j < J; j++) {
                sk_vec3 p = sk_vec3_sub(mpos(&r.world[j]), st->position);
                if (have) joint_step[plain] = fmax(joint_step[plain], sk_vec3_length(sk_vec3_sub(p, rel[j])));
                rel[j] = p;
            }
            have = true;
            for (uint32_t l = 0; l < 2; l++) {
                const sk_leg_analysis *a = &r.an[0]->legs[l];
                sk_vec3 h = mpos(&r.world[a->hip_joint]), k = mpos(&r.world[a->knee_joint]),
                        an = mpos(&r.world[a->ankle_joint]);
                float l1 = sk_vec3_length(sk_vec3_sub(k, h)), l2 = sk_vec3_length(sk_vec3_sub(an, k));
                float d = sk_vec3_length(sk_vec3_sub(an, h));
                over = fmax(over, d - (l1 + l2));
                double knee = acos(fmax(-1.0, fmin(1.0, sk_vec3_dot(sk_vec3_normalize(sk_vec3_sub(h, k)),
                                                                     sk_vec3_normalize(sk_vec3_sub(an, k))))));
                if (prev[l] >= 0) knee_rate[plain] = fmax(knee_rate[plain], fabs(knee - prev[l]));
                prev[l] = knee;
            }
        }
        printf("  %s: knee angle changes at most %.3f rad a frame, a joint moves at most %.3f m a frame (relative "
               "to the character); hip-ankle beyond the leg %.2g m\n",
               plain ? "the clips on flat ground" : "stairs 0.17/0.28, placed", knee_rate[plain], joint_step[plain], over);
        assert_true(over < 1e-4);
        free(rel);
        rig_free(&r);
    }
    const double allow = (1 + 1.2 * 0.17 / 0.28) * 1.75;
    assert_true(knee_rate[0] < allow * knee_rate[1]);
    assert_true(joint_step[0] < allow * joint_step[1]);
}

/* The body over its feet: the body joint's height above the lowest point
 * (heel or toe, from the pose's own matrices) of the planted feet, as a
 * share of its height above the feet standing at frame 0; the least over
 * the frames with a planted foot. */
static double body_low_walk(rig *r, const sk_terrain *t, double accel, double v_max, double seconds, double jump_at,
                            double v_jump) {
    sk_error err = {0};
    (void)t;
    assert_int_equal(sk_locomotor_reset(r->L, 0, 0, 0, &err), SK_OK);
    uint32_t body = sk_locomotor_body_joint(r->L);
    const double dt = 1.0 / 60;
    double z = 0, v = 0, ref = -1, low = 1;
    for (double tt = 0; tt < seconds; tt += dt) {
        v = tt >= jump_at ? v_jump : fmin(v_max, v + accel * dt);
        z += v * dt;
        rig_step(r, dt, 0, (float)z, 0);
        const sk_locomotor_state *st = sk_locomotor_get_state(r->L);
        double lowest = INFINITY, lowest_planted = INFINITY;
        for (uint32_t l = 0; l < 2; l++) {
            sk_vec3 h, o;
            feet_of(r, l, &h, &o);
            double y = fmin(h.y, o.y);
            lowest = fmin(lowest, y);
            if (st->feet[l].stance) lowest_planted = fmin(lowest_planted, y);
        }
        double by = r->world[body].m[13];
        if (ref < 0) ref = by - lowest;
        if (isfinite(lowest_planted)) low = fmin(low, (by - lowest_planted) / ref);
    }
    return low;
}

/* The first steps from standing and a sudden change of speed: no leg, planted
 * or swinging, pulls the body down to reach a foot left behind (the hips came
 * down to 0.57 of their standing height above the feet in the first step, and
 * a foot past every reach held them at the floor), nor holds it down once
 * the foot has lifted (LIFT_RECOVER). */
static void test_body_stays_up(void **state) {
    (void)state;
    rig r;
    rig_mannequin(&r, NULL, false);
    /* from standing to 1.4 m/s at 2.8 m/s^2, and at once */
    double a = body_low_walk(&r, NULL, 2.8, 1.4, 4.0, 1e9, 0);
    double b = body_low_walk(&r, NULL, 1e9, 1.4, 4.0, 1e9, 0);
    /* walking at 1.0 m/s, then 3.5 m/s at once (the blend follows at its own pace) */
    double c = body_low_walk(&r, NULL, 2.8, 1.0, 5.0, 2.0, 3.5);
    printf("  the body over the planted feet, least share of standing: start at 2.8 m/s^2 %.3f, at once %.3f; "
           "1.0 then 3.5 m/s %.3f\n", a, b, c);
    assert_true(a >= 0.78); /* 0.38 before; 0.772 while a swinging leg held hips lowered at foot-lift */
    assert_true(b >= 0.72); /* 0.23; 0.682 */
    assert_true(c >= 0.75); /* 0.68; 0.766 with the walk held to 1.2 x its speed (0.82 without) */
    /* Faster than the fastest clip (the run, 1.5 times its speed): the cycle is the run's x
     * sqrt(v_run / v), so cadence and stride share the speed-up (the run's cycle was kept before). */
    const sk_motion_analysis *run = r.an[1];
    double vr = run->cycle_speed, cr = run->cycle_duration;
    double d = body_low_walk(&r, NULL, 1e9, 1.5 * vr, 4.0, 1e9, 0);
    double cd = sk_locomotor_get_state(r.L)->cycle_duration;
    printf("  1.5 x the run's speed (%.2f m/s): cycle %.4f s (the run's %.4f x sqrt(1/1.5) = %.4f), body %.3f\n", 1.5 * vr,
           cd, cr, cr * sqrt(1 / 1.5), d);
    assert_true(fabs(cd - cr * sqrt(1 / 1.5)) < 0.01 * cr);
    assert_true(d >= 0.7);
    rig_free(&r);
}

/* The blend space read at a held speed (walk_held): between the walk's speed
 * and 1.2 x it the walk alone, played quicker (its cycle x sqrt(v_walk / v));
 * from there linearly to the run's speed, the blend then what the run's
 * share says; past the run's speed the blend at the speed itself. A detection
 * written here: the weights against the speeds of the analyses. */
static void test_walk_held(void **state) {
    (void)state;
    rig r;
    rig_mannequin(&r, NULL, false);
    const sk_motion_analysis *walk = r.an[0], *run = r.an[1];
    double vw = walk->cycle_speed, vr = run->cycle_speed;
    assert_true(vr > 1.3 * vw);
    const double speeds[] = {1.1 * vw, 1.19 * vw, 0.5 * (1.2 * vw + vr), 1.1 * vr};
    for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++) {
        double v = speeds[i];
        (void)body_low_walk(&r, NULL, 1e9, v, 3.0, 1e9, 0); /* at v from the start, 3 s */
        const float *w = sk_locomotor_weights(r.L);
        double cd = sk_locomotor_get_state(r.L)->cycle_duration;
        printf("  at %.3f m/s (walk %.3f, run %.3f): weights %.3f / %.3f, cycle %.4f s\n", v, vw, vr, w[0], w[1], cd);
        if (v <= 1.2 * vw) {
            assert_true(w[0] == 1.0f && w[1] == 0.0f);
            assert_true(fabs(cd - walk->cycle_duration * sqrt(vw / v)) < 1e-3 * walk->cycle_duration);
        } else if (v < vr) {
            /* read at vw + (v - 1.2 vw) / (vr - 1.2 vw) x (vr - vw): halfway from 1.2 vw to vr is
             * halfway from the walk to the run (the blend of two motions along one direction is
             * linear in the speed), where v itself would give the run (v - vw) / (vr - vw) */
            double share = (v - 1.2 * vw) / (vr - 1.2 * vw);
            assert_true(fabs(w[1] - share) < 0.01 && fabs(w[0] - (1 - share)) < 0.01);
            assert_true(fabs(w[1] - (v - vw) / (vr - vw)) > 0.05);
        } else {
            assert_true(w[1] == 1.0f);
        }
    }
    rig_free(&r);
}

/* ---- a quadruped built in code ------------------------------------------ */
enum { Q_PELVIS, Q_CHEST, Q_HEAD, Q_LEG0 }; /* then 4 legs x (hip, knee, ankle, toe) */
#define Q_JOINTS (Q_LEG0 + 16)
static const float q_upper = 0.26f, q_lower = 0.26f, q_foot = 0.05f, q_toe = 0.07f;
/* legs: left hind, right hind, left fore, right fore */
static const float q_leg_x[4] = {0.12f, -0.12f, 0.12f, -0.12f};
static const float q_phase[4] = {0.0f, 0.5f, 0.25f, 0.75f}; /* lateral-sequence walk */

static sk_quat rot_x(float a) { return sk_quat_make(sinf(a / 2), 0, 0, cosf(a / 2)); }

static sk_asset *quadruped(float speed, float cycle) {
    sk_asset *a = NULL;
    sk_error err = {0};
    if (sk_asset_create_empty(NULL, &a, &err) != SK_OK) return NULL;
    int32_t parents[Q_JOINTS];
    sk_transform rest[Q_JOINTS];
    const char *names[Q_JOINTS];
    static const char *const leg_names[4][4] = {{"hip_lh", "knee_lh", "foot_lh", "toe_lh"},
                                                {"hip_rh", "knee_rh", "foot_rh", "toe_rh"},
                                                {"hip_lf", "knee_lf", "foot_lf", "toe_lf"},
                                                {"hip_rf", "knee_rf", "foot_rf", "toe_rf"}};
    const float hip_h = q_upper + q_lower + q_foot - 0.04f; /* knees a little bent at rest */
    for (int j = 0; j < Q_JOINTS; j++) rest[j] = sk_transform_identity();
    parents[Q_PELVIS] = -1, names[Q_PELVIS] = "pelvis", rest[Q_PELVIS].t = sk_vec3_make(0, hip_h, 0);
    parents[Q_CHEST] = Q_PELVIS, names[Q_CHEST] = "chest", rest[Q_CHEST].t = sk_vec3_make(0, 0.05f, 0.7f);
    parents[Q_HEAD] = Q_CHEST, names[Q_HEAD] = "head", rest[Q_HEAD].t = sk_vec3_make(0, 0.2f, 0.25f);
    for (int l = 0; l < 4; l++) {
        int b = Q_LEG0 + 4 * l;
        parents[b] = l < 2 ? Q_PELVIS : Q_CHEST;
        rest[b].t = sk_vec3_make(q_leg_x[l], l < 2 ? 0 : -0.05f, 0);
        parents[b + 1] = b, rest[b + 1].t = sk_vec3_make(0, -q_upper, 0);
        parents[b + 2] = b + 1, rest[b + 2].t = sk_vec3_make(0, -q_lower, 0);
        parents[b + 3] = b + 2, rest[b + 3].t = sk_vec3_make(0, -q_foot, q_toe);
        for (int k = 0; k < 4; k++) names[b + k] = leg_names[l][k];
    }
    sk_skeleton_desc sd = {.joint_count = Q_JOINTS, .parents = parents, .rest = rest, .names = names};
    if (sk_skeleton_create(&sd, sk_asset_allocator(a), &a->skeleton, &err) != SK_OK) {
        sk_asset_destroy(a);
        return NULL;
    }
    /* The walk: each foot (ankle) planted for 70% of the cycle sliding back
     * at `speed` (in place: no root motion), then swinging forward on a
     * 6 cm arc; hip and knee angles by the law of cosines in the leg's
     * sagittal plane, the ankle turned back so the foot stays level. */
    enum { KEYS = 49 };
    float times[KEYS], rot[12][KEYS * 4];
    const float duty = 0.7f, stride = speed * cycle * duty;
    for (int k = 0; k < KEYS; k++) {
        float t = cycle * (float)k / (KEYS - 1);
        times[k] = t;
        for (int l = 0; l < 4; l++) {
            float u = fmodf(t / cycle + q_phase[l], 1.0f), fz, fy;
            if (u < duty) {
                fz = stride / 2 - stride * u / duty;
                fy = 0;
            } else {
                float s = (u - duty) / (1 - duty), e = s * s * (3 - 2 * s);
                fz = -stride / 2 + stride * e;
                fy = 0.06f * sinf((float)PI * s);
            }
            /* ankle target relative to the hip joint, in the y-z plane */
            float hip_y = hip_h + (l < 2 ? 0 : 0.0f);
            float py = (fy + q_foot) - hip_y, pz = fz;
            float d = sqrtf(py * py + pz * pz);
            if (d > q_upper + q_lower - 1e-4f) d = q_upper + q_lower - 1e-4f;
            float phi = atan2f(-pz, -py); /* R_x(phi) (0,-1,0) points at (py, pz) */
            float alpha = acosf((q_upper * q_upper + d * d - q_lower * q_lower) / (2 * q_upper * d));
            float beta = acosf((q_upper * q_upper + q_lower * q_lower - d * d) / (2 * q_upper * q_lower));
            float th1 = phi + alpha, th2 = -((float)PI - beta), th3 = -(th1 + th2);
            /* rotations about -X turn (0,-1,0) toward +Z: R_x(-a) (0,-1,0) = (0, -cos a, sin a) */
            sk_quat q[3] = {rot_x(-th1), rot_x(-th2), rot_x(-th3)};
            for (int j = 0; j < 3; j++) memcpy(&rot[3 * l + j][4 * k], &q[j], sizeof q[j]);
        }
    }
    sk_clip_builder *b = NULL;
    if (sk_clip_builder_create("walk", sk_asset_allocator(a), &b, &err) != SK_OK) goto fail;
    for (int l = 0; l < 4; l++)
        for (int j = 0; j < 3; j++) {
            sk_track_desc td = {(uint32_t)(Q_LEG0 + 4 * l + j), SK_PATH_ROTATION, SK_INTERP_LINEAR, KEYS, times,
                                rot[3 * l + j], 4};
            if (sk_clip_builder_add_track(b, &td, &err) != SK_OK) goto fail;
        }
    sk_clip *clip = NULL;
    if (sk_clip_builder_finish(b, &clip, &err) != SK_OK) goto fail;
    b = NULL;
    sk_clip **cl = sk_asset_alloc(a, sizeof(sk_clip *));
    cl[0] = clip;
    a->clips = cl;
    a->clip_count = 1;
    return a;
fail:
    sk_clip_builder_destroy(b);
    sk_asset_destroy(a);
    fail_msg("quadruped: %s", err.message);
    return NULL;
}

static void test_quadruped(void **state) {
    (void)state;
    sk_terrain_shape bshape, sshape;
    sk_terrain bumps, stairs;
    sk_error err = {0};
    sk_terrain_bumps_options bo = {.amplitude = 0.05f, .seed = 3};
    sk_terrain_stairs_options so = {.rise = 0.1f, .run = 0.35f, .start = sk_vec3_make(0, 0, 1)};
    assert_int_equal(sk_terrain_bumps(&bshape, &bo, &bumps, &err), SK_OK);
    assert_int_equal(sk_terrain_stairs(&sshape, &so, &stairs, &err), SK_OK);
    rig r;
    memset(&r, 0, sizeof r);
    r.asset = quadruped(0.8f, 0.9f);
    assert_non_null(r.asset);
    r.skel = r.asset->skeleton;
    r.nlegs = 4;
    for (uint32_t l = 0; l < 4; l++) {
        sk_leg_desc *d = &r.legs[l];
        memset(d, 0, sizeof *d);
        snprintf(d->name, sizeof d->name, "%s", r.skel->names[Q_LEG0 + 4 * l]);
        d->hip = Q_LEG0 + 4 * (int32_t)l, d->knee = d->hip + 1, d->ankle = d->hip + 2, d->toe = d->hip + 3;
    }
    r.clips[0] = r.asset->clips[0];
    r.nclips = 1;
    rig_analyse(&r);
    /* the analysis finds the authored gait: 70% on the ground, speed 0.8 */
    printf("  quadruped walk: %.3f m/s analysed (0.8 authored), stance times %.3f %.3f %.3f %.3f\n",
           r.an[0]->cycle_speed, r.an[0]->legs[0].stance_time, r.an[0]->legs[1].stance_time,
           r.an[0]->legs[2].stance_time, r.an[0]->legs[3].stance_time);
    assert_float_equal(r.an[0]->cycle_speed, 0.8f, 0.04f);
    const sk_terrain *ts[2] = {&bumps, &stairs};
    bumps_p bp = {&bshape};
    stairs_p sp = {0.1f, 0.35f};
    height_fn hf[2] = {h_bumps, h_stairs};
    const void *hp[2] = {&bp, &sp};
    for (int k = 0; k < 2; k++) {
        rig_locomotor(&r, ts[k], NULL, false);
        metrics m = {0};
        walk_straight(&r, 0, 0.8f, 7.0, &m, hf[k], hp[k]);
        check_targets(k ? "quadruped, stairs 0.1/0.35" : "quadruped, bumps 5 cm", &m);
        for (uint32_t l = 0; l < 4; l++) assert_true(m.stance_frames[l] > m.frames / 4);
        /* the body is the pelvis, the common ancestor of the hips */
        assert_int_equal(sk_locomotor_body_joint(r.L), Q_PELVIS);
    }
    rig_free(&r);
}

static void test_controller(void **state) {
    (void)state;
    float pts[2 * SK_PATH_MAX_POINTS];
    sk_error err = {0};
    assert_int_equal(sk_path_parse("0,0 0,5;5,5", pts, SK_PATH_MAX_POINTS, &err), 3);
    assert_int_equal(sk_path_parse("0,0", pts, SK_PATH_MAX_POINTS, &err), 0);
    assert_int_equal(sk_path_parse("0,0 1", pts, SK_PATH_MAX_POINTS, &err), 0);
    assert_int_equal(sk_path_parse("0,0 nan,1", pts, SK_PATH_MAX_POINTS, &err), 0);
    assert_int_equal(sk_path_parse("0,0 1e300,1", pts, SK_PATH_MAX_POINTS, &err), 0);
    assert_int_equal(sk_path_parse("0,0 1,1x", pts, SK_PATH_MAX_POINTS, &err), 0);
    sk_path_follower pf;
    sk_path_follower_desc d = {pts, 3, 1.5f, (float)PI / 2, 2.0f, 0.5f, NAN, false};
    assert_int_equal(sk_path_parse("0,0 0,5 5,5", pts, SK_PATH_MAX_POINTS, &err), 3);
    assert_int_equal(sk_path_follower_init(&pf, &d, &err), SK_OK);
    assert_float_equal(pf.yaw, 0.0f, 1e-6f); /* toward the second point: +Z */
    assert_float_equal(sk_path_follower_length(&pf), 10.0f, 1e-5f);
    const double dt = 1.0 / 60;
    float prev_yaw = pf.yaw, max_rate = 0, max_speed = 0, max_off = 0;
    double t = 0;
    while (!pf.finished && t < 30) {
        sk_path_follower_step(&pf, dt);
        max_rate = fmaxf(max_rate, fabsf(remainderf(pf.yaw - prev_yaw, 2 * (float)PI)) / (float)dt);
        max_speed = fmaxf(max_speed, pf.speed);
        /* distance from the polyline */
        float off = pf.z <= 5 ? fabsf(pf.x) : 1e9f;
        off = fminf(off, pf.x >= 0 ? fabsf(pf.z - 5) : 1e9f);
        max_off = fmaxf(max_off, off);
        prev_yaw = pf.yaw;
        t += dt;
    }
    printf("  path 10 m with a 90 degree corner: %.2f s, turn rate <= %.3f rad/s, speed <= %.3f, off the path <= "
           "%.3f m\n",
           t, max_rate, max_speed, max_off);
    assert_true(pf.finished);
    assert_float_equal(pf.x, 5.0f, 1e-4f);
    assert_float_equal(pf.z, 5.0f, 1e-4f);
    assert_true(max_rate <= (float)PI / 2 + 1e-3f);
    assert_true(max_speed <= 1.5f + 1e-5f);
    assert_true(max_off < 0.6f);
    assert_true(t > 10 / 1.5 && t < 12);
    /* bad descriptions */
    d.count = 1;
    assert_int_equal(sk_path_follower_init(&pf, &d, &err), SK_ERR_INVALID_ARGUMENT);
    d.count = 3;
    d.speed = NAN;
    assert_int_equal(sk_path_follower_init(&pf, &d, &err), SK_ERR_INVALID_ARGUMENT);
    d.speed = 100;
    assert_int_equal(sk_path_follower_init(&pf, &d, &err), SK_ERR_INVALID_ARGUMENT);
    float same[] = {1, 1, 1, 1};
    sk_path_follower_desc ds = {same, 2, 0, 0, 0, 0, 0, false};
    assert_int_equal(sk_path_follower_init(&pf, &ds, &err), SK_ERR_INVALID_ARGUMENT);
}

/* No ground at all: a terrain that never hits. */
static bool never(void *u, sk_vec3 o, sk_vec3 d, float m, sk_terrain_hit *h) {
    (void)u, (void)o, (void)d, (void)m, (void)h;
    return false;
}

static void test_bad_input(void **state) {
    (void)state;
    sk_terrain none = {never, NULL};
    rig r;
    rig_mannequin(&r, &none, false);
    sk_error err = {0};
    sk_pose pose = sk_pose_view(r.local, r.skel->joint_count, NULL, 0);
    assert_int_equal(sk_locomotor_reset(r.L, NAN, 0, 0, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_locomotor_reset(r.L, 0, 0, 0, &err), SK_OK);
    /* no model matrices before the first adjust */
    assert_null(sk_locomotor_model(NULL));
    assert_null(sk_locomotor_model(r.L));
    assert_int_equal(sk_locomotor_update(r.L, 0, 0, 0, 0, &pose, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_locomotor_update(r.L, -1, 0, 0, 0, &pose, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_locomotor_update(r.L, 2.0, 0, 0, 0, &pose, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_locomotor_update(r.L, NAN, 0, 0, 0, &pose, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_locomotor_update(r.L, 0.016, INFINITY, 0, 0, &pose, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_locomotor_update(r.L, 0.016, 0, 0, 0, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    /* walking with no ground found: the feet stay at the character's height, all finite */
    float z = 0;
    for (int k = 0; k < 240; k++) {
        z += 1.4f / 60;
        assert_int_equal(sk_locomotor_update(r.L, 1.0 / 60, 0, z, 0, &pose, &err), SK_OK);
        for (uint32_t j = 0; j < r.skel->joint_count; j++) {
            assert_true(isfinite(r.local[j].t.x) && isfinite(r.local[j].t.y) && isfinite(r.local[j].t.z));
            assert_true(isfinite(r.local[j].r.x) && isfinite(r.local[j].r.w));
        }
    }
    /* a teleport (1 km in one frame) and huge coordinates stay finite */
    assert_int_equal(sk_locomotor_update(r.L, 1.0 / 60, 1000, 1000, 3, &pose, &err), SK_OK);
    assert_int_equal(sk_locomotor_update(r.L, 1.0 / 60, 1e6f, -1e6f, 3, &pose, &err), SK_OK);
    for (uint32_t j = 0; j < r.skel->joint_count; j++) assert_true(isfinite(r.local[j].t.y) && isfinite(r.local[j].r.w));
    const sk_locomotor_state *st = sk_locomotor_get_state(r.L);
    assert_true(isfinite(st->hip_offset) && isfinite(st->phase));
    /* descriptions */
    sk_locomotor_desc d = {0};
    sk_locomotor *L2 = NULL;
    assert_int_equal(sk_locomotor_create(&d, NULL, &L2, &err), SK_ERR_INVALID_ARGUMENT);
    d.skeleton = r.skel, d.group = r.group, d.clips = r.clips, d.clip_count = 1, d.body_joint = -1;
    assert_int_equal(sk_locomotor_create(&d, NULL, &L2, &err), SK_ERR_INVALID_ARGUMENT); /* 1 clip, 2 motions */
    d.clip_count = 2;
    d.soft = NAN;
    assert_int_equal(sk_locomotor_create(&d, NULL, &L2, &err), SK_ERR_INVALID_ARGUMENT);
    d.soft = 0;
    d.body_joint = 999;
    assert_int_equal(sk_locomotor_create(&d, NULL, &L2, &err), SK_ERR_INVALID_ARGUMENT);
    assert_null(L2);
    sk_locomotor_destroy(NULL);
    rig_free(&r);
}

/* Every allocation failure is reported, nothing leaks (ASan checks). */
typedef struct counting { int64_t left; } counting;
static void *c_alloc(void *u, size_t n) {
    counting *c = u;
    if (c->left-- <= 0) return NULL;
    return malloc(n);
}
static void *c_realloc(void *u, void *p, size_t o, size_t n) {
    (void)o;
    counting *c = u;
    if (c->left-- <= 0) return NULL;
    return realloc(p, n);
}
static void c_free(void *u, void *p, size_t n) { (void)u, (void)n; free(p); }

static void test_alloc_failure(void **state) {
    (void)state;
    rig r;
    rig_mannequin(&r, NULL, false);
    sk_locomotor_desc d = {0};
    d.skeleton = r.skel, d.group = r.group, d.clips = r.clips, d.clip_count = 2, d.body_joint = -1;
    counting c = {0};
    sk_allocator al = {c_alloc, c_realloc, c_free, &c};
    sk_locomotor *L2 = NULL;
    sk_error err = {0};
    assert_int_equal(sk_locomotor_create(&d, &al, &L2, &err), SK_ERR_OUT_OF_MEMORY);
    assert_null(L2);
    c.left = 1;
    assert_int_equal(sk_locomotor_create(&d, &al, &L2, &err), SK_OK);
    sk_locomotor_destroy(L2);
    rig_free(&r);
}

/* ---- a mesh terrain's height bound spares rays, not results ------------- */
/* The mesh terrain behind a callback of the test's own: the same rays, and
 * sk_terrain_height_bound knows nothing of it (false), so the locomotor casts
 * every ray. */
static bool through(void *user, sk_vec3 o, sk_vec3 d, float max_distance, sk_terrain_hit *out) {
    return sk_terrain_raycast((const sk_terrain *)user, o, d, max_distance, out);
}

/* z from 1.5 m: 0.15 / 0.3 stairs (risers as steep quads), then a 10 degree
 * ramp up from z = 5 to 7, bumps of 3 cm beyond; 0.25 m squares across. */
static float mesh_h(double x, double z) {
    if (z < 1.5) return 0.0f;
    if (z < 4.5) return (float)(0.15 * (floor((z - 1.5) / 0.3) + 1));
    if (z < 7.0) return (float)(1.5 + (z < 5.0 ? 0.0 : (z - 5.0) * tan(10 * PI / 180)));
    return (float)(1.5 + 2.0 * tan(10 * PI / 180) + 0.03 * sin(3 * x) * cos(2.5 * z));
}

/* The quad q (corners in order) as two triangles after the n in pos; the new count. */
static uint32_t push_quad(float *pos, uint32_t n, const float q[4][3]) {
    static const int tri[6] = {0, 1, 2, 0, 2, 3};
    for (int t = 0; t < 6; t++) memcpy(pos + ((size_t)n * 3 + (size_t)t) * 3, q[tri[t]], sizeof q[0]);
    return n + 2;
}

static void test_mesh_bound_spares_rays(void **state) {
    (void)state;
    enum { NX = 16, NZ = 48 }; /* x in [-2, 2], z in [-1, 11] */
    float *pos = malloc((size_t)NX * NZ * 6 * 9 * sizeof *pos);
    assert_non_null(pos);
    uint32_t n = 0;
    for (int i = 0; i < NX; i++)
        for (int k = 0; k < NZ; k++) {
            double x0 = -2 + 0.25 * i, x1 = x0 + 0.25, z0 = -1 + 0.25 * k, z1 = z0 + 0.25;
            /* a square, split where the stairs' step falls inside it: tread
             * quads and a vertical riser between them */
            double zs[2] = {z1, z1};
            int parts = 1;
            if (z1 > 1.5 && z0 < 4.5) { /* a step's edge at 1.5 + 0.3 k strictly inside (z0, z1] */
                double e = 1.5 + 0.3 * floor((z1 - 1e-9 - 1.5) / 0.3);
                if (e > z0 + 1e-9 && e < z1 - 1e-9) zs[0] = e, parts = 2;
            }
            double za = z0;
            for (int p = 0; p < parts; p++) {
                double zb = zs[p], ya = mesh_h(x0, za + 1e-6), yb = mesh_h(x0, zb - 1e-6);
                double ya1 = mesh_h(x1, za + 1e-6), yb1 = mesh_h(x1, zb - 1e-6);
                float q[4][3] = {{(float)x0, (float)ya, (float)za}, {(float)x1, (float)ya1, (float)za},
                                 {(float)x1, (float)yb1, (float)zb}, {(float)x0, (float)yb, (float)zb}};
                n = push_quad(pos, n, q);
                if (p == 0 && parts == 2) { /* the riser at zb */
                    double yt = mesh_h(x0, zb + 1e-6), yt1 = mesh_h(x1, zb + 1e-6);
                    float rq[4][3] = {{(float)x0, (float)yb, (float)zb}, {(float)x1, (float)yb1, (float)zb},
                                      {(float)x1, (float)yt1, (float)zb}, {(float)x0, (float)yt, (float)zb}};
                    n = push_quad(pos, n, rq);
                }
                za = zb;
            }
        }
    sk_error err = {0};
    sk_terrain_mesh *mesh;
    if (sk_terrain_mesh_create(pos, n * 3, NULL, n, NULL, NULL, &mesh, &err) != SK_OK) fail_msg("%s", err.message);
    free(pos);
    sk_terrain bounded = sk_terrain_mesh_terrain(mesh), plain = {through, &bounded};
    float yb;
    assert_true(sk_terrain_height_bound(&bounded, 0.1f, 3.0f, &yb));
    assert_false(sk_terrain_height_bound(&plain, 0.1f, 3.0f, &yb));
    sk_terrain_mesh_info info = sk_terrain_mesh_get_info(mesh);
    assert_int_equal(info.degenerate_count, 0);
    for (int k = 0; k < 200; k++) { /* the mesh is the height field */
        double x = -1.9 + 3.8 * k / 199.0, zz = -0.9 + 11.8 * ((k * 37) % 200) / 199.0;
        sk_terrain_hit h;
        assert_true(sk_terrain_height(&bounded, (float)x, (float)zz, 5.0f, 10.0f, &h));
        if (fabs(zz - 1.5 - 0.3 * floor((zz - 1.5) / 0.3 + 0.5)) > 1e-3) /* off a riser */
            assert_true(fabsf(h.point.y - mesh_h(x, zz)) < 0.02f);
    }
    rig a, b;
    rig_mannequin(&a, &bounded, false);
    rig_mannequin(&b, &plain, false);
    uint32_t J = a.skel->joint_count, frames = 0;
    uint64_t rays_a = 0, rays_b = 0;
    double dt = 1.0 / 60, z = -0.5, v = 0;
    float top = 0;
    for (int f = 0; f < 600; f++) { /* 10 s up the stairs and the ramp over the bumps, speeding up to 1.4 m/s */
        v = fmin(1.4, v + 2.0 * dt);
        z += v * dt;
        float x = 0.3f * (float)sin(0.4 * f * dt);
        rig_step(&a, dt, x, (float)z, 0);
        rig_step(&b, dt, x, (float)z, 0);
        if (memcmp(a.local, b.local, J * sizeof *a.local) != 0) fail_msg("frame %d: the poses differ", f);
        const sk_locomotor_state *sa = sk_locomotor_get_state(a.L), *sb = sk_locomotor_get_state(b.L);
        assert_true(memcmp(&sa->feet, &sb->feet, sizeof sa->feet) == 0 && sa->hip_offset == sb->hip_offset);
        rays_a += sa->rays, rays_b += sb->rays;
        top = fmaxf(top, sa->position.y);
        frames++;
    }
    printf("mesh stairs, ramp and bumps, %u frames: the same poses and feet with the height bound, %.2f rays a frame "
           "against %.2f without; the character climbed %.2f m\n",
           frames, (double)rays_a / frames, (double)rays_b / frames, top);
    assert_true(frames == 600 && top > 1.6f);
    assert_true(rays_a < 0.9 * rays_b); /* at least a tenth spared */
    rig_free(&a);
    rig_free(&b);
    sk_terrain_mesh_destroy(mesh);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tracker),        cmocka_unit_test(test_flat_walk_and_run), cmocka_unit_test(test_laid_foot),
        cmocka_unit_test(test_ramps_and_bumps), cmocka_unit_test(test_stairs), cmocka_unit_test(test_sidestep_stairs),
        cmocka_unit_test(test_stairs_whole_treads),
        cmocka_unit_test(test_turn_prediction), cmocka_unit_test(test_start_stop),
        cmocka_unit_test(test_start_stop_graph),
        cmocka_unit_test(test_no_pops),          cmocka_unit_test(test_body_stays_up),
        cmocka_unit_test(test_walk_held),
        cmocka_unit_test(test_quadruped),
        cmocka_unit_test(test_controller),     cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_alloc_failure),  cmocka_unit_test(test_mesh_bound_spares_rays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
