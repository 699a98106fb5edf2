/* IK-only procedural walking (locomotion/procedural.h, seed 004; issue #11).
 *
 * References, independent of the code under test: the terrains' closed
 * forms (ground heights, which tread a point is on, where a ledge's edge
 * is); the world positions of the heel and toe points from the output pose
 * through sk_local_to_model; the metrics (slide of a planted foot,
 * contact, penetration); each foot's share of a walk flagged stance within
 * a band, and the stance flag against the test's own detection from the pose
 * (a foot still and on the ground); properties the seed states (step lengths longer
 * uphill than downhill, cadence and stride growing with speed, feet side by
 * side after a stop, no step past a ledge, a fall when the body passes it,
 * a jump's crouch, flight and landing); the mannequin's anatomical limits
 * (sk_ik_limit_check on every frame of every walk in test_limits). */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct prig {
    sk_asset *asset;
    const sk_skeleton *skel;
    sk_procedural *P;
    sk_transform *local;
    sk_mat4 *world;
    sk_leg_desc legs[2];
} prig;

static void prig_make_lim(prig *r, bool planar, const sk_terrain *terrain, const sk_ik_limit *limits);
static void prig_make(prig *r, bool planar, const sk_terrain *terrain) { prig_make_lim(r, planar, terrain, NULL); }

static void prig_make_lim(prig *r, bool planar, const sk_terrain *terrain, const sk_ik_limit *limits) {
    memset(r, 0, sizeof *r);
    sk_error err = {0};
    sk_result res = planar ? sk_planar_rig_create(NULL, &r->asset, &err) : sk_mannequin_create(NULL, NULL, &r->asset, &err);
    if (res != SK_OK) fail_msg("%s", err.message);
    r->skel = r->asset->skeleton;
    assert_int_equal(sk_legs_find(r->skel, r->legs, 2), 2);
    sk_procedural_desc d = {0};
    d.skeleton = r->skel;
    d.legs[0] = r->legs[0], d.legs[1] = r->legs[1];
    const char *arm[2][3] = {{"upperarm_l", "forearm_l", "hand_l"}, {"upperarm_r", "forearm_r", "hand_r"}};
    for (int a = 0; a < 2; a++)
        d.arms[a] = (sk_arm_desc){sk_skeleton_find(r->skel, arm[a][0]), sk_skeleton_find(r->skel, arm[a][1]),
                                  sk_skeleton_find(r->skel, arm[a][2])};
    d.arm_count = 2;
    d.body_joint = -1;
    if (terrain) d.terrain = *terrain;
    d.limits = limits;
    if (sk_procedural_create(&d, NULL, &r->P, &err) != SK_OK) fail_msg("%s", err.message);
    r->local = calloc(r->skel->joint_count, sizeof *r->local);
    r->world = calloc(r->skel->joint_count, sizeof *r->world);
    assert_non_null(r->local);
    assert_non_null(r->world);
    for (int l = 0; l < 2; l++) assert_int_equal(sk_leg_default_points(r->skel, &r->legs[l], &err), SK_OK);
}

static void prig_free(prig *r) {
    sk_procedural_destroy(r->P);
    free(r->local);
    free(r->world);
    sk_asset_destroy(r->asset);
}

static void prig_step(prig *r, double dt, float x, float z, float yaw) {
    sk_error err = {0};
    sk_pose pose = sk_pose_view(r->local, r->skel->joint_count, NULL, 0);
    if (sk_procedural_update(r->P, dt, x, z, yaw, &pose, &err) != SK_OK) fail_msg("%s", err.message);
    if (sk_local_to_model(r->skel, &pose, &sk_procedural_get_state(r->P)->root, r->world, r->skel->joint_count,
                          &err) != SK_OK)
        fail_msg("%s", err.message);
    /* the walker's own matrices (computed while it placed the legs and
     * arms): the same to float rounding */
    const sk_mat4 *own = sk_procedural_model(r->P);
    assert_non_null(own);
    for (uint32_t j = 0; j < r->skel->joint_count; j++)
        for (int k = 0; k < 16; k++)
            if (!(fabsf(own[j].m[k] - r->world[j].m[k]) <= 2e-5f * (1 + fabsf(r->world[j].m[k]))))
                fail_msg("sk_procedural_model: joint %u element %d is %g, the pose's FK %g", j, k, (double)own[j].m[k],
                         (double)r->world[j].m[k]);
}

static void feet(const prig *r, int l, sk_vec3 *heel, sk_vec3 *toe) {
    int32_t tj = r->legs[l].toe >= 0 ? r->legs[l].toe : r->legs[l].ankle;
    *heel = sk_mat4_transform_point(&r->world[r->legs[l].ankle], r->legs[l].heel);
    *toe = sk_mat4_transform_point(&r->world[tj], r->legs[l].toe_tip);
}

typedef float (*hfn)(const void *p, float x, float z);
static float h_flat(const void *p, float x, float z) { (void)p, (void)x, (void)z; return 0; }
typedef struct ramp_p { float tan_a; } ramp_p;
static float h_ramp(const void *p, float x, float z) { (void)x; return z < 1 ? 0 : (z - 1) * ((const ramp_p *)p)->tan_a; }
typedef struct stairs_p { float rise, run; } stairs_p;
static float h_stairs(const void *p, float x, float z) {
    (void)x;
    const stairs_p *s = p;
    return z < 1 ? 0 : (floorf((z - 1) / s->run) + 1) * s->rise;
}

typedef struct pmetrics {
    double slide, contact, pen;
    uint32_t runs, frames, straddle, planted_on_stairs;
    bool in_run[2];
    sk_vec3 start[2];
    double run_max[2];
    /* the support leg, planted or pivoting on its heel or toe (heel strike,
     * heel-off): the nearer of heel and toe to where it stood */
    bool in_sup[2];
    sk_vec3 sup_heel[2], sup_toe[2];
    double pivot, pivot_frames;
    /* planted foot-frames with both heel and toe within 1 cm of the ground
     * (flat), of all planted foot-frames (the rest stand on the ball of the
     * foot or the heel, the other point raised) */
    uint32_t planted, flat;
    /* stance share: per foot, the frames in WALKING mode and those of them
     * the walker flags stance */
    uint32_t walking, stance[2];
    /* the stance flag against the test's own detection (still, in pm_add):
     * frames compared and those where both agree, per foot */
    uint32_t seen;                       /* frames before this one */
    bool prev_stance[2];                 /* the last frame's flag */
    sk_vec3 prev_heel[2][2], prev_toe[2][2]; /* [foot][0: the last frame, 1: the one before] */
    double prev_ground[2];               /* the last frame: the nearer of heel and toe to the ground (m) */
    uint32_t compared[2], agree[2], flag_only, here_only;
} pmetrics;

/* The test's own stance detection, from the output pose alone: a foot is
 * planted at a frame when it is within PLANT_HEIGHT of the ground there (the
 * nearer of heel and toe, against the terrain's closed form) and still on one
 * side of the frame: neither heel nor toe moved faster than PLANT_SPEED in 3D
 * (a foot pivoting on its toe or heel moves the other point, and the walker
 * does not report that as planted) over the frame before it or over the one
 * after it (a foot landing at frame k is still from k on; one lifting after
 * frame k was still until k). */
#define PLANT_SPEED 0.05 /* m/s */
#define PLANT_HEIGHT 0.02 /* m */
static bool still(sk_vec3 he0, sk_vec3 to0, sk_vec3 he1, sk_vec3 to1, double dt) {
    return sk_vec3_length(sk_vec3_sub(he1, he0)) / dt < PLANT_SPEED && sk_vec3_length(sk_vec3_sub(to1, to0)) / dt < PLANT_SPEED;
}

static void pm_add(pmetrics *m, const prig *r, hfn h, const void *hp, const stairs_p *stairs) {
    const sk_procedural_state *st = sk_procedural_get_state(r->P);
    m->frames++;
    m->walking += st->mode == SK_PROCEDURAL_WALKING;
    for (int l = 0; l < 2; l++) {
        sk_vec3 he, to;
        feet(r, l, &he, &to);
        assert_true(sk_vec3_length(sk_vec3_sub(he, st->feet[l].heel)) < 1e-4f);
        float gh = h(hp, he.x, he.z), gt = h(hp, to.x, to.z);
        m->stance[l] += st->mode == SK_PROCEDURAL_WALKING && st->feet[l].stance;
        /* the last frame against its flag, now that the motion after it is known (walks step at 60 Hz) */
        if (m->seen >= 1) {
            const double dt = 1.0 / 60;
            bool after = still(m->prev_heel[l][0], m->prev_toe[l][0], he, to, dt),
                 before = m->seen >= 2 && still(m->prev_heel[l][1], m->prev_toe[l][1], m->prev_heel[l][0], m->prev_toe[l][0], dt);
            bool here = (before || after) && m->prev_ground[l] < PLANT_HEIGHT;
            m->compared[l]++;
            m->agree[l] += here == m->prev_stance[l];
            m->flag_only += !here && m->prev_stance[l];
            m->here_only += here && !m->prev_stance[l];
        }
        m->prev_heel[l][1] = m->prev_heel[l][0], m->prev_toe[l][1] = m->prev_toe[l][0];
        m->prev_heel[l][0] = he, m->prev_toe[l][0] = to;
        m->prev_ground[l] = fmin(fabs(he.y - gh), fabs(to.y - gt));
        m->prev_stance[l] = st->feet[l].stance;
        m->pen = fmax(m->pen, fmax(gh - he.y, gt - to.y));
        sk_vec3 mid = sk_vec3_scale(sk_vec3_add(he, to), 0.5f);
        bool sup = st->mode == SK_PROCEDURAL_WALKING && st->support == (uint32_t)l;
        if (sup && !m->in_sup[l]) m->in_sup[l] = true, m->sup_heel[l] = he, m->sup_toe[l] = to;
        else if (sup) {
            double dh = sk_vec3_length(sk_vec3_sub(he, m->sup_heel[l])), dt = sk_vec3_length(sk_vec3_sub(to, m->sup_toe[l]));
            m->pivot = fmax(m->pivot, fmin(dh, dt));
            m->pivot_frames += !st->feet[l].stance;
        } else m->in_sup[l] = false;
        if (st->feet[l].stance) {
            m->contact = fmax(m->contact, fmin(fabs(he.y - gh), fabs(to.y - gt)));
            m->planted++;
            m->flat += fabs(he.y - gh) < 0.01 && fabs(to.y - gt) < 0.01;
            if (stairs && he.z > 1.02f) {
                m->planted_on_stairs++;
                float th = floorf((he.z - 1) / stairs->run), tt = floorf((to.z - 1) / stairs->run);
                /* heel and toe on one tread, no edge within 1 cm of the segment */
                float eh = fmodf(he.z - 1, stairs->run), et = fmodf(to.z - 1, stairs->run);
                if (th != tt || eh < 0.01f || stairs->run - et < 0.01f) m->straddle++;
            }
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
            m->slide = fmax(m->slide, m->run_max[l]);
        }
    }
    m->seen++;
}

/* Straight along +Z from z0 at speed (a 0.5 s ramp-up). */
static void walk(prig *r, float z0, float speed, double seconds, pmetrics *m, hfn h, const void *hp, const stairs_p *st) {
    sk_error err = {0};
    assert_int_equal(sk_procedural_reset(r->P, 0, z0, 0, &err), SK_OK);
    const double dt = 1.0 / 60;
    float z = z0, v = 0;
    for (double t = 0; t < seconds; t += dt) {
        v = fminf(speed, v + (float)(speed / 0.5 * dt));
        z += v * (float)dt;
        prig_step(r, dt, 0, z, 0);
        if (m) pm_add(m, r, h, hp, st);
    }
}

/* Each foot's stance share: the fraction of the walk's WALKING frames the
 * walker flags it stance. A person's foot is on the ground about 60 % of a
 * walking stride (a third to two thirds, by speed), double support included.
 * This walker has no double support (the support leg switches as the
 * swinging foot lands: one foot is always in the air) and does not flag the
 * support foot while it pivots on its toe or heel (heel-off, heel strike:
 * docs/procedural.md), so its flagged share is below half: measured 0.29 to
 * 0.33 on flat ground, 0.18 to 0.46 on ramps (0.176, the lowest, for the left
 * foot at +10 degrees, where heel-off takes a large part of each stance),
 * 0.19 to 0.39 on stairs, 0.43 to 0.52 walking backward and across slopes.
 * The band holds those with margin and fails a walker that never plants a
 * foot (0), plants it for a frame or two per step (about 0.03) or never lifts
 * it (1). */
#define STANCE_SHARE_MIN 0.15
#define STANCE_SHARE_MAX 0.70
/* The flag and the test's own detection (still, in pm_add) agree on at least
 * this fraction of frames per foot: measured 0.967 at the least (stairs
 * +0.15/0.30, a ramp of +30 degrees), most walks 0.99 to 1; where they differ
 * the foot is still and on the ground but not flagged (a pivot slower than
 * PLANT_SPEED). */
#define STANCE_AGREE_MIN 0.95

static void targets(const char *what, const pmetrics *m) {
    printf("  %-30s slide %.4f cm, contact %.4f cm, penetration %.4f cm, %u stance runs; support foot on its heel "
           "or toe in %.0f frames, that point moved %.4f cm\n", what, 100 * m->slide, 100 * m->contact, 100 * m->pen,
           m->runs, m->pivot_frames, 100 * m->pivot);
    double share[2], agree[2];
    for (int l = 0; l < 2; l++) {
        share[l] = m->walking ? (double)m->stance[l] / m->walking : 0.0;
        agree[l] = m->compared[l] ? (double)m->agree[l] / m->compared[l] : 0.0;
    }
    printf("    stance share of %u walking frames: left %.3f, right %.3f (band %.2f..%.2f); the flag and the test's own "
           "detection agree on %.3f / %.3f of %u frames (flagged only %u, detected only %u; at least %.2f)\n",
           m->walking, share[0], share[1], STANCE_SHARE_MIN, STANCE_SHARE_MAX, agree[0], agree[1], m->compared[0],
           m->flag_only, m->here_only, STANCE_AGREE_MIN);
    assert_true(m->walking >= 120);
    for (int l = 0; l < 2; l++) {
        assert_true(share[l] >= STANCE_SHARE_MIN && share[l] <= STANCE_SHARE_MAX);
        assert_true(agree[l] >= STANCE_AGREE_MIN);
    }
    assert_true(m->runs >= 4);
    assert_true(m->slide < 0.001);   /* 0.1 cm: the support foot is pinned */
    assert_true(m->contact < 0.01);
    assert_true(m->pen < 0.01);
    assert_true(m->pivot < 0.001);
}

static void test_terrains(void **state) {
    (void)state;
    static const float speeds[] = {0.6f, 1.2f, 1.8f};
    for (int planar = 0; planar < 2; planar++) {
        prig r;
        prig_make(&r, planar != 0, NULL);
        for (size_t i = 0; i < 3; i++) {
            pmetrics m = {0};
            walk(&r, 0, speeds[i], 6, &m, h_flat, NULL, NULL);
            char w[64];
            snprintf(w, sizeof w, "%s flat %.1f m/s", planar ? "planar" : "mannequin", speeds[i]);
            targets(w, &m);
        }
        prig_free(&r);
    }
    static const float degs[] = {10, 30, 45, -10, -30};
    for (size_t i = 0; i < 5; i++) {
        sk_terrain_shape sh;
        sk_terrain t;
        sk_error err = {0};
        sk_terrain_ramp_options o = {.angle = degs[i] * 3.14159265f / 180, .start = sk_vec3_make(0, 0, 1)};
        assert_int_equal(sk_terrain_ramp(&sh, &o, &t, &err), SK_OK);
        prig r;
        prig_make(&r, false, &t);
        ramp_p rp = {tanf(o.angle)};
        pmetrics m = {0};
        walk(&r, 0, 1.2f, 6, &m, h_ramp, &rp, NULL);
        char w[64];
        snprintf(w, sizeof w, "ramp %+.0f deg, 1.2 m/s", degs[i]);
        targets(w, &m);
        prig_free(&r);
    }
    static const stairs_p st[] = {{0.17f, 0.28f}, {0.15f, 0.30f}, {-0.17f, 0.28f}};
    for (size_t i = 0; i < 3; i++) {
        sk_terrain_shape sh;
        sk_terrain t;
        sk_error err = {0};
        sk_terrain_stairs_options so = {.rise = st[i].rise, .run = st[i].run, .start = sk_vec3_make(0, 0, 1)};
        assert_int_equal(sk_terrain_stairs(&sh, &so, &t, &err), SK_OK);
        for (int planar = 0; planar < 2; planar++) {
            prig r;
            prig_make(&r, planar != 0, &t);
            pmetrics m = {0};
            walk(&r, 0, 1.0f, 7, &m, h_stairs, &st[i], &st[i]);
            char w[80];
            snprintf(w, sizeof w, "%s stairs %+.2f/%.2f", planar ? "planar" : "mannequin", st[i].rise, st[i].run);
            targets(w, &m);
            printf("    %u planted foot-frames on the stairs, %u with heel and toe not on one tread or an edge "
                   "within 1 cm\n",
                   m.planted_on_stairs, m.straddle);
            assert_true(m.planted_on_stairs > 100);
            assert_int_equal(m.straddle, 0);
            prig_free(&r);
        }
    }
}

/* Step length by slope and by speed (seed 004 §7.1.1: longer uphill,
 * shorter downhill; cadence and stride grow with speed). */
static void test_step_length(void **state) {
    (void)state;
    float up = 0, down = 0;
    for (int k = 0; k < 2; k++) {
        sk_terrain_shape sh;
        sk_terrain t;
        sk_error err = {0};
        sk_terrain_ramp_options o = {.angle = (k ? -8.0f : 8.0f) * 3.14159265f / 180, .start = sk_vec3_make(0, 0, -50)};
        assert_int_equal(sk_terrain_ramp(&sh, &o, &t, &err), SK_OK);
        prig r;
        prig_make(&r, false, &t);
        walk(&r, 0, 1.2f, 3, NULL, NULL, NULL, NULL);
        float len = sk_procedural_get_state(r.P)->step_length;
        if (k) down = len; else up = len;
        prig_free(&r);
    }
    printf("  8 degrees at 1.2 m/s: step %.3f m uphill, %.3f m downhill\n", up, down);
    assert_true(up > down * 1.05f);
    /* the table by slope (docs/procedural.md) */
    static const float slopes[] = {-30, -20, -10, -5, 0, 5, 10, 20, 30};
    float prev_gentle = 0;
    printf("  step length at 1.2 m/s by slope:");
    for (size_t k = 0; k < sizeof slopes / sizeof slopes[0]; k++) {
        sk_terrain_shape sh;
        sk_terrain t;
        sk_error err = {0};
        sk_terrain_ramp_options o = {.angle = slopes[k] * 3.14159265f / 180, .start = sk_vec3_make(0, 0, -50)};
        assert_int_equal(sk_terrain_ramp(&sh, &o, &t, &err), SK_OK);
        prig rr;
        prig_make(&rr, false, &t);
        walk(&rr, 0, 1.2f, 3, NULL, NULL, NULL, NULL);
        float len = sk_procedural_get_state(rr.P)->step_length;
        printf(" %+.0f deg %.3f m%s", slopes[k], len, k + 1 < sizeof slopes / sizeof slopes[0] ? "," : "\n");
        if (fabsf(slopes[k]) <= 10) { /* gentle: grows from downhill to uphill */
            if (prev_gentle > 0) assert_true(len >= prev_gentle - 1e-3f);
            prev_gentle = len;
        }
        prig_free(&rr);
    }
    prig r;
    prig_make(&r, false, NULL);
    float prev_len = 0, prev_cad = 0;
    for (float v = 0.6f; v < 3.1f; v += 0.8f) {
        walk(&r, 0, v, 3, NULL, NULL, NULL, NULL);
        const sk_procedural_state *st = sk_procedural_get_state(r.P);
        float cad = v / st->step_length; /* steps per second */
        printf("  %.1f m/s: step %.3f m, %.2f steps/s, run %.2f\n", v, st->step_length, cad, st->run);
        assert_true(st->step_length >= prev_len);
        assert_true(cad > prev_cad);
        prev_len = st->step_length, prev_cad = cad;
    }
    prig_free(&r);
}

/* A stop ends with the feet side by side; starting again works. */
static void test_stop(void **state) {
    (void)state;
    prig r;
    prig_make(&r, false, NULL);
    sk_path_follower pf;
    float pts[] = {0, 0, 0, 4};
    sk_path_follower_desc pd = {pts, 2, 1.4f, 0, 0, 0, NAN, false};
    sk_error err = {0};
    assert_int_equal(sk_path_follower_init(&pf, &pd, &err), SK_OK);
    assert_int_equal(sk_procedural_reset(r.P, 0, 0, 0, &err), SK_OK);
    const double dt = 1.0 / 60;
    pmetrics m = {0};
    for (int k = 0; k < 60 * 6; k++) {
        sk_path_follower_step(&pf, dt);
        prig_step(&r, dt, pf.x, pf.z, pf.yaw);
        pm_add(&m, &r, h_flat, NULL, NULL);
    }
    const sk_procedural_state *st = sk_procedural_get_state(r.P);
    sk_vec3 h0, t0, h1, t1;
    feet(&r, 0, &h0, &t0);
    feet(&r, 1, &h1, &t1);
    double fore = fabs(h0.z - h1.z);
    printf("  stop after 4 m: mode %d, feet %.3f m apart along the way (heels)\n", (int)st->mode, fore);
    assert_int_equal(st->mode, SK_PROCEDURAL_STANDING);
    assert_true(fore < 0.05);
    targets("walk 4 m and stop", &m);
    prig_free(&r);
}

/* Ledge: up to the edge no foot goes past it; beyond it, a fall and a
 * landing on the floor below. */
static void test_ledge(void **state) {
    (void)state;
    sk_terrain_shape sh;
    sk_terrain t;
    sk_error err = {0};
    sk_terrain_ledge_options lo = {.height = 1.0f, .floor = -1.0f, .edge = sk_vec3_make(0, 0, 1)};
    assert_int_equal(sk_terrain_ledge(&sh, &lo, &t, &err), SK_OK);
    prig r;
    prig_make(&r, false, &t);
    assert_int_equal(sk_procedural_reset(r.P, 0, -2, 0, &err), SK_OK);
    const double dt = 1.0 / 60;
    float z = -2;
    double max_toe = -1e9;
    for (int k = 0; k < 60 * 4; k++) { /* walk to 0.9 m, 0.1 m before the edge, and stand */
        if (z < 0.9f) z = fminf(0.9f, z + 1.0f / 60);
        prig_step(&r, dt, 0, z, 0);
        for (int l = 0; l < 2; l++) {
            sk_vec3 he, to;
            feet(&r, l, &he, &to);
            if (sk_procedural_get_state(r.P)->feet[l].stance) max_toe = fmax(max_toe, to.z);
        }
    }
    printf("  ledge at z = 1: the body at 0.9, the planted toes reach z = %.3f\n", max_toe);
    assert_true(max_toe < 1.0);
    assert_int_equal(sk_procedural_get_state(r.P)->mode, SK_PROCEDURAL_STANDING);
    /* now past the edge: airborne, then landing on y = -1 */
    bool air = false, landed = false;
    float min_body = 1e9f;
    for (int k = 0; k < 60 * 3; k++) {
        if (z < 2.5f) z += 1.2f / 60;
        prig_step(&r, dt, 0, z, 0);
        const sk_procedural_state *st = sk_procedural_get_state(r.P);
        air = air || st->mode == SK_PROCEDURAL_AIRBORNE;
        if (air && st->mode == SK_PROCEDURAL_LANDING) landed = true;
        if (landed) min_body = fminf(min_body, st->body_height);
    }
    const sk_procedural_state *st = sk_procedural_get_state(r.P);
    sk_vec3 he, to;
    feet(&r, 0, &he, &to);
    printf("  fell off: airborne %d, landed %d, ground %.3f, lowest body %.3f (rest body height about %.2f)\n", air,
           landed, st->position.y, min_body, 0.95);
    assert_true(air && landed);
    assert_float_equal(st->position.y, -1.0f, 0.05f);
    assert_true(fabsf(he.y + 1.0f) < 0.02f);
    assert_true(min_body < -1.0f + 0.9f); /* the knees absorbed the landing */
    prig_free(&r);
}

/* Jump: crouch (root lowered), flight with arms raised, landing. */
static void test_jump(void **state) {
    (void)state;
    prig r;
    prig_make(&r, false, NULL);
    sk_error err = {0};
    assert_int_equal(sk_procedural_reset(r.P, 0, 0, 0, &err), SK_OK);
    const double dt = 1.0 / 60;
    for (int k = 0; k < 30; k++) prig_step(&r, dt, 0, 0, 0);
    float stand = sk_procedural_get_state(r.P)->body_height;
    int32_t hand = sk_skeleton_find(r.skel, "hand_l"), shoulder = sk_skeleton_find(r.skel, "upperarm_l");
    assert_true(sk_procedural_jump(r.P));
    assert_false(sk_procedural_jump(r.P)); /* already crouching */
    float lowest_crouch = 1e9f, highest = -1e9f, hand_rel = -1e9f;
    int order[8], n = 0;
    order[n++] = (int)sk_procedural_get_state(r.P)->mode;
    double feet_up = 0;
    for (int k = 0; k < 120; k++) {
        prig_step(&r, dt, 0, 0, 0);
        const sk_procedural_state *st = sk_procedural_get_state(r.P);
        if ((int)st->mode != order[n - 1] && n < 8) order[n++] = (int)st->mode;
        if (st->mode == SK_PROCEDURAL_CROUCHING) lowest_crouch = fminf(lowest_crouch, st->body_height);
        if (st->mode == SK_PROCEDURAL_AIRBORNE) {
            highest = fmaxf(highest, st->body_height);
            sk_vec3 he, to;
            feet(&r, 0, &he, &to);
            feet_up = fmax(feet_up, he.y);
            hand_rel = fmaxf(hand_rel, r.world[hand].m[13] - r.world[shoulder].m[13]);
        }
    }
    printf("  jump: standing body %.3f, crouch %.3f, peak %.3f, feet up to %.3f m, hand %.3f m from the shoulder; "
           "modes",
           stand, lowest_crouch, highest, feet_up, hand_rel);
    for (int i = 0; i < n; i++) printf(" %d", order[i]);
    printf("\n");
    assert_true(n >= 4);
    assert_int_equal(order[0], SK_PROCEDURAL_CROUCHING);
    assert_int_equal(order[1], SK_PROCEDURAL_AIRBORNE);
    assert_int_equal(order[2], SK_PROCEDURAL_LANDING);
    assert_int_equal(order[3], SK_PROCEDURAL_STANDING);
    assert_true(lowest_crouch < stand - 0.15f);
    assert_true(highest > lowest_crouch + 0.35f); /* 3 m/s up: 0.46 m of flight above the take-off */
    assert_true(highest > stand + 0.1f);
    assert_true(feet_up > 0.15);
    assert_true(hand_rel > -0.45f); /* raised from hanging (about -0.55 m) */
    prig_free(&r);
}

/* rel = Rz(z) Ry(y) Rx(x) -> (x, y, z) (the EULER limit's convention) */
static sk_vec3 euler_of(sk_quat q) {
    float x = q.x, y = q.y, z = q.z, w = q.w;
    float m00 = 1 - 2 * (y * y + z * z), m10 = 2 * (x * y + w * z), m20 = 2 * (x * z - w * y);
    float m21 = 2 * (y * z + w * x), m22 = 1 - 2 * (x * x + y * y);
    return sk_vec3_make(atan2f(m21, m22), asinf(fmaxf(-1.0f, fminf(1.0f, -m20))), atan2f(m10, m00));
}

/* The mannequin's anatomical leg limits (sk_mannequin_leg_limits): every
 * frame of the gait is inside them (sk_ik_limit_check, 1e-3 rad), knees
 * never bend backwards, from standing (a 0.5 s speed-up) over flat ground
 * walking and running, 10, 30 and 45 degree ramps up and down, stairs up and
 * down and bumps. The limits are not applied by the walker here (desc.limits
 * NULL): the gait itself stays inside them. */
typedef struct limit_walk {
    uint32_t frames, inside;
    const char *worst_joint;
    sk_vec3 lo[6], hi[6];
} limit_walk;

static void walk_limits(prig *r, const sk_ik_limit *lim, float speed, double seconds, float cross, limit_walk *out,
                        pmetrics *m, hfn h, const void *hp) {
    static const char *const names[6] = {"thigh_l", "shin_l", "foot_l", "thigh_r", "shin_r", "foot_r"};
    int32_t js[6];
    for (int i = 0; i < 6; i++) js[i] = sk_skeleton_find(r->skel, names[i]);
    sk_error err = {0};
    /* cross: along +X (across a ramp rising along +Z) from z = cross */
    float yaw = cross > 0 ? 1.5707963f : 0;
    assert_int_equal(sk_procedural_reset(r->P, 0, cross, yaw, &err), SK_OK);
    memset(out, 0, sizeof *out);
    out->worst_joint = "";
    for (int i = 0; i < 6; i++) out->lo[i] = sk_vec3_make(9, 9, 9), out->hi[i] = sk_vec3_make(-9, -9, -9);
    float z = 0, v = 0, worst = 0;
    for (int k = 0; k < (int)(60 * seconds); k++) {
        v = fminf(speed, v + speed / 30.0f);
        z += v / 60;
        if (cross > 0) prig_step(r, 1.0 / 60, z, cross, yaw);
        else prig_step(r, 1.0 / 60, 0, z, 0);
        if (m) pm_add(m, r, h, hp, NULL);
        out->frames++;
        bool ok = true;
        for (int i = 0; i < 6; i++) {
            sk_quat rel = sk_quat_mul(sk_quat_inverse(r->skel->rest[js[i]].r), r->local[js[i]].r);
            bool in = sk_ik_limit_check(&lim[js[i]], sk_vec3_make(0, 1, 0), rel, 1e-3f);
            sk_vec3 e = euler_of(sk_quat_normalize(rel));
            out->lo[i] = sk_vec3_make(fminf(out->lo[i].x, e.x), fminf(out->lo[i].y, e.y), fminf(out->lo[i].z, e.z));
            out->hi[i] = sk_vec3_make(fmaxf(out->hi[i].x, e.x), fmaxf(out->hi[i].y, e.y), fmaxf(out->hi[i].z, e.z));
            /* knees (i 1, 4): never backwards, never past 155 degrees: counted as any joint */
            if (!in) {
                float ang = 2 * acosf(fminf(1.0f, fabsf(rel.w)));
                if (ang > worst) worst = ang, out->worst_joint = names[i];
            }
            ok = ok && in;
        }
        out->inside += ok;
    }
    if (out->inside < out->frames && getenv("SK_TEST_VERBOSE"))
        for (int i = 0; i < 6; i++)
            printf("    %-8s pitch %+.3f..%+.3f  y %+.3f..%+.3f  z %+.3f..%+.3f rad\n", names[i], out->lo[i].x,
                   out->hi[i].x, out->lo[i].y, out->hi[i].y, out->lo[i].z, out->hi[i].z);
}

static void test_limits(void **state) {
    (void)state;
    /* kind: 0 flat, 1 ramp (deg), 2 stairs (rise), 3 bumps, 4 across a
     * ramp; speeds up to 1.8 m/s walking everywhere, running to 3 m/s where
     * the bench runs. Across the 30 and 45 degree ramps also the contact
     * targets against the ramp's closed form (heel and toe points from the
     * output pose) and the roll a flat foot gets from the ground along its
     * heading phi from the contour, tan(roll) = tan(slope) cos(phi), from
     * the planted heel -> toe line: under the ankle's 29 degrees. */
    static const struct { int kind; float arg; bool run; } cases[] = {
        {0, 0, true},     {1, 10, true},      {1, -10, true},      {1, 30, false},  {1, -30, false},
        {1, 45, false},   {1, -45, false},    {2, 0.17f, false},   {2, -0.17f, false}, {3, 0.1f, true},
        {4, 10, true},    {4, 30, false},     {4, 45, false},
    };
    static const float walk_speeds[] = {0.5f, 0.8f, 1.0f, 1.2f, 1.4f, 1.6f, 1.8f}, run_speeds[] = {2.2f, 2.6f, 3.0f};
    uint32_t total = 0, total_inside = 0, walks = 0, bad = 0;
    /* kind 4: across a ramp rising along +Z, walking along +X from z = 3 */
    sk_error err = {0};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        sk_terrain_shape sh;
        sk_terrain t = {0};
        char what[48];
        if (cases[c].kind == 1 || cases[c].kind == 4) {
            sk_terrain_ramp_options o = {.angle = cases[c].arg * 3.14159265f / 180, .start = sk_vec3_make(0, 0, 1)};
            assert_int_equal(sk_terrain_ramp(&sh, &o, &t, &err), SK_OK);
            snprintf(what, sizeof what, "ramp %+.0f deg%s", (double)cases[c].arg, cases[c].kind == 4 ? " across" : "");
        } else if (cases[c].kind == 2) {
            sk_terrain_stairs_options so = {.rise = cases[c].arg, .run = 0.28f, .start = sk_vec3_make(0, 0, 1)};
            assert_int_equal(sk_terrain_stairs(&sh, &so, &t, &err), SK_OK);
            snprintf(what, sizeof what, "stairs %+.2f/0.28", (double)cases[c].arg);
        } else if (cases[c].kind == 3) {
            sk_terrain_bumps_options bo = {.amplitude = cases[c].arg, .wavelength = 1, .seed = 1};
            assert_int_equal(sk_terrain_bumps(&sh, &bo, &t, &err), SK_OK);
            snprintf(what, sizeof what, "bumps %.2f/1", (double)cases[c].arg);
        } else {
            snprintf(what, sizeof what, "flat");
        }
        prig r;
        prig_make(&r, false, cases[c].kind ? &t : NULL);
        sk_ik_limit *lim = calloc(r.skel->joint_count, sizeof *lim);
        assert_non_null(lim);
        assert_int_equal(sk_mannequin_leg_limits(r.skel, lim, r.skel->joint_count, &err), SK_OK);
        if (c == 0) assert_int_equal(sk_mannequin_leg_limits(r.skel, lim, 3, &err), SK_ERR_INVALID_ARGUMENT);
        size_t nw = sizeof walk_speeds / sizeof walk_speeds[0], nr = cases[c].run ? 3 : 0;
        bool steep_across = cases[c].kind == 4 && cases[c].arg > 20;
        ramp_p rp = {tanf(cases[c].arg * 3.14159265f / 180)};
        pmetrics across = {0};
        printf("  limits, %-16s", what);
        for (size_t i = 0; i < nw + nr; i++) {
            float speed = i < nw ? walk_speeds[i] : run_speeds[i - nw];
            limit_walk lw;
            pmetrics m = {0};
            walk_limits(&r, lim, speed, 6, cases[c].kind == 4 ? 3.0f : 0.0f, &lw, steep_across ? &m : NULL, h_ramp, &rp);
            printf(" %.1f:%u/%u", speed, lw.inside, lw.frames);
            if (lw.inside < lw.frames) printf(" (worst %s)", lw.worst_joint);
            bad += lw.inside < lw.frames;
            total += lw.frames, total_inside += lw.inside, walks++;
            if (steep_across) {
                char w[64];
                snprintf(w, sizeof w, "\n    across %.0f deg, %.1f m/s", (double)cases[c].arg, speed);
                targets(w, &m);
                across.planted += m.planted, across.flat += m.flat;
            }
        }
        printf("\n");
        if (steep_across) {
            /* the heading of every planted foot (heel -> toe, from the pose):
             * the roll the ground gives a flat foot along it */
            double worst_roll = 0, heading_sum = 0, heel_sum = 0, heel_max = 0, toe_sum = 0, toe_max = 0;
            uint32_t n = 0;
            for (size_t i = 0; i < nw; i++) {
                limit_walk lw;
                pmetrics m = {0};
                sk_error e2 = {0};
                assert_int_equal(sk_procedural_reset(r.P, 0, 3, 1.5707963f, &e2), SK_OK);
                float x = 0, v = 0;
                (void)lw, (void)m;
                for (int k = 0; k < 360; k++) {
                    v = fminf(walk_speeds[i], v + walk_speeds[i] / 30.0f);
                    x += v / 60;
                    prig_step(&r, 1.0 / 60, x, 3, 1.5707963f);
                    const sk_procedural_state *st = sk_procedural_get_state(r.P);
                    for (int l = 0; l < 2; l++) {
                        if (!st->feet[l].stance) continue;
                        sk_vec3 he, to;
                        feet(&r, l, &he, &to);
                        /* the heel's height above the ground (on the ball of the foot: raised) */
                        double hh = he.y - h_ramp(&rp, he.x, he.z), th = to.y - h_ramp(&rp, to.x, to.z);
                        heel_sum += hh, heel_max = fmax(heel_max, hh);
                        toe_sum += th, toe_max = fmax(toe_max, th);
                        /* phi: from the contour (+X) toward the fall line (+-Z) */
                        double phi = atan2(fabs(to.z - he.z), fabs(to.x - he.x));
                        double roll = atan(rp.tan_a * cos(phi));
                        worst_roll = fmax(worst_roll, roll);
                        heading_sum += phi, n++;
                    }
                }
            }
            printf("    across %.0f deg: %u of %u planted foot-frames flat (heel and toe within 1 cm; the others stand on "
                   "the ball of the foot or the heel); above the ground: heel %.1f cm on average, at most %.1f, toe %.1f, "
                   "at most %.1f; planted feet turned %.1f degrees from the contour on average: along them the ground "
                   "would roll a flat foot at most %.1f degrees (the ankle allows 28.6)\n",
                   (double)cases[c].arg, across.flat, across.planted, n ? 100 * heel_sum / n : 0.0, 100 * heel_max,
                   n ? 100 * toe_sum / n : 0.0, 100 * toe_max, n ? heading_sum / n * 57.29578 : 0.0,
                   worst_roll * 57.29578);
            assert_true(n > 100);
            assert_true(worst_roll < 0.5);
        }
        free(lim);
        prig_free(&r);
    }
    printf("  limits: %u of %u frames inside over %u walks, %u walks with a frame outside\n", total_inside, total,
           walks, bad);
    assert_int_equal(bad, 0);
    assert_int_equal(total_inside, total);
}

/* Backward walking: the body faces -Z and moves along +Z; every step lands
 * behind the support foot (along the facing), the support foot is pinned,
 * the same contact targets and every frame inside the limits, on flat
 * ground, 10 degree ramps up and down and stairs up. */
static void test_backward(void **state) {
    (void)state;
    static const struct { int kind; float arg; } cases[] = {{0, 0}, {1, 10}, {1, -10}, {2, 0.17f}};
    sk_error err = {0};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        sk_terrain_shape sh;
        sk_terrain t = {0};
        ramp_p rp = {0};
        stairs_p sp = {0.17f, 0.28f};
        hfn h = h_flat;
        const void *hp = NULL;
        if (cases[c].kind == 1) {
            sk_terrain_ramp_options o = {.angle = cases[c].arg * 3.14159265f / 180, .start = sk_vec3_make(0, 0, 1)};
            assert_int_equal(sk_terrain_ramp(&sh, &o, &t, &err), SK_OK);
            rp.tan_a = tanf(o.angle);
            h = h_ramp, hp = &rp;
        } else if (cases[c].kind == 2) {
            sk_terrain_stairs_options so = {.rise = sp.rise, .run = sp.run, .start = sk_vec3_make(0, 0, 1)};
            assert_int_equal(sk_terrain_stairs(&sh, &so, &t, &err), SK_OK);
            h = h_stairs, hp = &sp;
        }
        prig r;
        prig_make(&r, false, cases[c].kind ? &t : NULL);
        sk_ik_limit *lim = calloc(r.skel->joint_count, sizeof *lim);
        assert_non_null(lim);
        assert_int_equal(sk_mannequin_leg_limits(r.skel, lim, r.skel->joint_count, &err), SK_OK);
        for (float speed = 0.6f; speed < 1.5f; speed += 0.4f) {
            const float yaw = 3.14159265f; /* facing -Z */
            assert_int_equal(sk_procedural_reset(r.P, 0, 0, yaw, &err), SK_OK);
            pmetrics m = {0};
            float z = 0, v = 0;
            uint32_t landings = 0, behind = 0, ahead = 0, backward_frames = 0, walking_frames = 0, outside = 0;
            uint32_t support = 0;
            for (int k = 0; k < 60 * 6; k++) {
                v = fminf(speed, v + speed / 30.0f);
                z += v / 60;
                prig_step(&r, 1.0 / 60, 0, z, yaw);
                pm_add(&m, &r, h, hp, cases[c].kind == 2 ? &sp : NULL);
                const sk_procedural_state *st = sk_procedural_get_state(r.P);
                if (st->mode == SK_PROCEDURAL_WALKING && st->speed > 0.3f) {
                    walking_frames++;
                    backward_frames += st->backward;
                }
                if (st->support != support && st->mode == SK_PROCEDURAL_WALKING) {
                    /* a landing: the new support heel behind the old one along the facing (-Z) */
                    sk_vec3 hn, tn, ho, to;
                    feet(&r, (int)st->support, &hn, &tn);
                    feet(&r, (int)support, &ho, &to);
                    landings++;
                    behind += hn.z > ho.z + 0.05f; /* behind when facing -Z: larger z */
                    ahead += hn.z < ho.z - 0.01f;
                }
                support = st->support;
                static const char *const names[6] = {"thigh_l", "shin_l", "foot_l", "thigh_r", "shin_r", "foot_r"};
                bool ok = true;
                for (int i = 0; i < 6; i++) {
                    int32_t j = sk_skeleton_find(r.skel, names[i]);
                    sk_quat rel = sk_quat_mul(sk_quat_inverse(r.skel->rest[j].r), r.local[j].r);
                    ok = ok && sk_ik_limit_check(&lim[j], sk_vec3_make(0, 1, 0), rel, 1e-3f);
                }
                outside += !ok;
            }
            char w[80];
            snprintf(w, sizeof w, "backward, %s %+.2f, %.1f m/s", cases[c].kind == 0 ? "flat" : cases[c].kind == 1 ? "ramp" : "stairs",
                     (double)cases[c].arg, speed);
            targets(w, &m);
            printf("    %u landings, %u behind the support foot, %u ahead of it; backward on %u of %u walking frames; %u frames outside "
                   "the limits; %u planted foot-frames straddling a stair edge\n",
                   landings, behind, ahead, backward_frames, walking_frames, outside, m.straddle);
            assert_true(landings >= 6);
            /* on stairs a step may stay on the support foot's tread, the
             * edge rule moving it a little either way */
            if (cases[c].kind == 2) assert_true(behind * 3 >= landings * 2 && ahead * 10 <= landings);
            else assert_true(behind == landings && ahead == 0);
            assert_int_equal(backward_frames, walking_frames);
            assert_int_equal(outside, 0);
            assert_int_equal(m.straddle, 0);
            assert_float_equal(sk_procedural_get_state(r.P)->position.z, z, 1e-4f);
        }
        free(lim);
        prig_free(&r);
    }
}

/* Pointing (§8.2, sk_procedural_point_at): while walking, the right
 * forearm points at targets ahead, to the side, up and down within a few
 * degrees (the angle between elbow -> hand and elbow -> target from the
 * output pose), inside the mannequin's arm limits given to the walker; a
 * target behind the body gives a finite pose inside the limits; half the
 * weight lies between the swing and the pointing; the legs are unchanged. */
static float angle_deg(sk_vec3 a, sk_vec3 b) {
    float c = sk_vec3_dot(a, b) / (sk_vec3_length(a) * sk_vec3_length(b));
    return acosf(fmaxf(-1.0f, fminf(1.0f, c))) * 180.0f / 3.14159265f;
}

static void test_point(void **state) {
    (void)state;
    sk_error err = {0};
    prig tmp;
    prig_make(&tmp, false, NULL);
    uint32_t J = tmp.skel->joint_count;
    sk_ik_limit *arm = calloc(J, sizeof *arm), *leg = calloc(J, sizeof *leg);
    assert_non_null(arm);
    assert_non_null(leg);
    assert_int_equal(sk_mannequin_arm_limits(tmp.skel, arm, J, &err), SK_OK);
    assert_int_equal(sk_mannequin_leg_limits(tmp.skel, leg, J, &err), SK_OK);
    assert_int_equal(sk_mannequin_arm_limits(tmp.skel, arm, 3, &err), SK_ERR_INVALID_ARGUMENT);
    prig_free(&tmp);
    prig r, plain;
    prig_make_lim(&r, false, NULL, arm);
    prig_make(&plain, false, NULL);
    int32_t sh = sk_skeleton_find(r.skel, "upperarm_r"), el = sk_skeleton_find(r.skel, "forearm_r"),
            ha = sk_skeleton_find(r.skel, "hand_r");
    /* targets relative to the character's point (x left, y up, z ahead); right is -X */
    static const struct { const char *what; float x, y, z; bool reachable; } tg[] = {
        {"ahead", -0.2f, 1.3f, 4, true},   {"ahead, up", -0.5f, 3.0f, 3, true}, {"ahead, down", -0.3f, 0.3f, 2, true},
        {"right", -4, 1.4f, 0.5f, true},   {"right, up", -2, 3.5f, 1, true},    {"behind", 0.3f, 1.4f, -4, false},
    };
    for (size_t k = 0; k < sizeof tg / sizeof tg[0]; k++) {
        assert_int_equal(sk_procedural_reset(r.P, 0, 0, 0, &err), SK_OK);
        float z = 0, v = 0, worst = 0, sum = 0;
        uint32_t n = 0, outside = 0;
        pmetrics m = {0};
        for (int f = 0; f < 60 * 5; f++) {
            v = fminf(1.2f, v + 1.2f / 30);
            z += v / 60;
            sk_vec3 t = sk_vec3_make(tg[k].x, tg[k].y, z + tg[k].z);
            assert_true(sk_procedural_point_at(r.P, 1, &t, 1.0f));
            prig_step(&r, 1.0 / 60, 0, z, 0);
            pm_add(&m, &r, h_flat, NULL, NULL);
            sk_vec3 e = sk_mat4_transform_point(&r.world[el], sk_vec3_make(0, 0, 0));
            sk_vec3 h = sk_mat4_transform_point(&r.world[ha], sk_vec3_make(0, 0, 0));
            for (uint32_t j = 0; j < J; j++) {
                assert_true(isfinite(r.local[j].r.x) && isfinite(r.local[j].r.w));
                const sk_ik_limit *l = arm[j].type != SK_IK_LIMIT_NONE ? &arm[j] : &leg[j];
                if (l->type == SK_IK_LIMIT_NONE) continue;
                sk_quat rel = sk_quat_mul(sk_quat_inverse(r.skel->rest[j].r), r.local[j].r);
                outside += !sk_ik_limit_check(l, sk_vec3_make(0, 1, 0), rel, 1e-3f);
            }
            if (f < 20) continue;
            float a = angle_deg(sk_vec3_sub(h, e), sk_vec3_sub(t, e));
            worst = fmaxf(worst, a), sum += a, n++;
        }
        printf("  pointing %-12s forearm to the target: mean %.2f, worst %.2f degrees; %u joint-frames outside the "
               "limits\n", tg[k].what, sum / n, worst, outside);
        assert_int_equal(outside, 0);
        if (tg[k].reachable) assert_true(worst < 3.0f);
        else assert_true(worst > 20.0f); /* the shoulder cannot point behind the back */
        targets("  walking while pointing", &m);
    }
    (void)sh;
    /* half the weight: between the swing and pointing */
    float ang[3];
    static const float ws[3] = {0, 0.5f, 1};
    for (int w = 0; w < 3; w++) {
        assert_int_equal(sk_procedural_reset(r.P, 0, 0, 0, &err), SK_OK);
        assert_int_equal(sk_procedural_reset(plain.P, 0, 0, 0, &err), SK_OK);
        float z = 0;
        sk_vec3 t = sk_vec3_make(-2, 2.5f, 3);
        assert_true(sk_procedural_point_at(r.P, 1, &t, ws[w]));
        for (int f = 0; f < 90; f++) {
            z += 1.0f / 60;
            prig_step(&r, 1.0 / 60, 0, z, 0);
            prig_step(&plain, 1.0 / 60, 0, z, 0);
        }
        sk_vec3 e = sk_mat4_transform_point(&r.world[el], sk_vec3_make(0, 0, 0));
        sk_vec3 h = sk_mat4_transform_point(&r.world[ha], sk_vec3_make(0, 0, 0));
        ang[w] = angle_deg(sk_vec3_sub(h, e), sk_vec3_sub(t, e));
        /* the legs as without pointing; weight 0: the swing itself */
        for (uint32_t j = 0; j < J; j++) {
            bool arm_joint = j == (uint32_t)sh || j == (uint32_t)el || j == (uint32_t)ha;
            if (arm_joint && w > 0) continue;
            assert_true(fabsf(sk_quat_dot(r.local[j].r, plain.local[j].r)) > 1 - 1e-6f);
        }
    }
    printf("  weight 0 / 0.5 / 1: forearm %.1f / %.1f / %.1f degrees from the target\n", ang[0], ang[1], ang[2]);
    assert_true(ang[0] > ang[1] + 5 && ang[1] > ang[2] + 5 && ang[2] < 3);
    /* bad input: defined results, nothing changed */
    sk_vec3 bad = sk_vec3_make(NAN, 0, 0), ok = sk_vec3_make(0, 1, 1);
    assert_false(sk_procedural_point_at(NULL, 0, &ok, 1));
    assert_false(sk_procedural_point_at(r.P, 2, &ok, 1));
    assert_false(sk_procedural_point_at(r.P, 0, &bad, 1));
    assert_false(sk_procedural_point_at(r.P, 0, &ok, 1.5f));
    assert_false(sk_procedural_point_at(r.P, 0, &ok, NAN));
    assert_true(sk_procedural_point_at(r.P, 1, NULL, 1)); /* stops */
    /* a target at the shoulder itself: the swing, finite */
    sk_vec3 at_sh = sk_mat4_transform_point(&r.world[sh], sk_vec3_make(0, 0, 0));
    assert_true(sk_procedural_point_at(r.P, 1, &at_sh, 1));
    prig_step(&r, 1.0 / 60, 0, 1.5f, 0);
    for (uint32_t j = 0; j < J; j++) assert_true(isfinite(r.local[j].r.x) && isfinite(r.local[j].r.w));
    free(arm);
    free(leg);
    prig_free(&r);
    prig_free(&plain);
}

static void test_bad_input(void **state) {
    (void)state;
    prig r;
    prig_make(&r, false, NULL);
    sk_error err = {0};
    sk_pose pose = sk_pose_view(r.local, r.skel->joint_count, NULL, 0);
    /* no model matrices before the first update */
    assert_null(sk_procedural_model(NULL));
    assert_null(sk_procedural_model(r.P));
    assert_int_equal(sk_procedural_update(r.P, 0, 0, 0, 0, &pose, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_procedural_update(r.P, NAN, 0, 0, 0, &pose, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_procedural_update(r.P, 0.016, INFINITY, 0, 0, &pose, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_procedural_update(r.P, 0.016, 0, 0, 0, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_procedural_reset(r.P, NAN, 0, 0, &err), SK_ERR_INVALID_ARGUMENT);
    /* a teleport and huge coordinates stay finite */
    assert_int_equal(sk_procedural_update(r.P, 0.016, 1000, 1000, 2, &pose, &err), SK_OK);
    assert_int_equal(sk_procedural_update(r.P, 0.016, 1e6f, -1e6f, 2, &pose, &err), SK_OK);
    for (uint32_t j = 0; j < r.skel->joint_count; j++)
        assert_true(isfinite(r.local[j].t.y) && isfinite(r.local[j].r.w) && isfinite(r.local[j].r.x));
    sk_procedural_desc d = {0};
    sk_procedural *P2 = NULL;
    assert_int_equal(sk_procedural_create(&d, NULL, &P2, &err), SK_ERR_INVALID_ARGUMENT);
    d.skeleton = r.skel;
    d.legs[0] = r.legs[0], d.legs[1] = r.legs[1];
    d.step_length = NAN;
    assert_int_equal(sk_procedural_create(&d, NULL, &P2, &err), SK_ERR_INVALID_ARGUMENT);
    d.step_length = 0;
    d.arm_count = 3;
    assert_int_equal(sk_procedural_create(&d, NULL, &P2, &err), SK_ERR_INVALID_ARGUMENT);
    d.arm_count = 1;
    d.arms[0] = (sk_arm_desc){0, 5, 9}; /* not a chain */
    assert_int_equal(sk_procedural_create(&d, NULL, &P2, &err), SK_ERR_INVALID_ARGUMENT);
    assert_null(P2);
    sk_procedural_destroy(NULL);
    assert_false(sk_procedural_jump(NULL));
    prig_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_terrains), cmocka_unit_test(test_step_length), cmocka_unit_test(test_stop),
        cmocka_unit_test(test_ledge),    cmocka_unit_test(test_jump),        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_backward), cmocka_unit_test(test_point),  cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
