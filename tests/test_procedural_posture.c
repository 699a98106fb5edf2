/* The IK-only walker's crouched walking and torso lean (locomotion/procedural.h:
 * sk_procedural_crouch, state.crouch, lean_pitch, lean_roll; seed 004's
 * animation principles: anticipation and weight).
 *
 * References, independent of the code under test: the pose itself, through
 * sk_local_to_model of the walker's output and the state's root:
 *   - crouching: the highest joint's world height over the ground (flat, y =
 *     0) at every frame once the crouch has come on, against the height
 *     asked for; the leg and arm joints against sk_mannequin_leg_limits /
 *     arm_limits (sk_ik_limit_check, 1e-3 rad) at every frame; the feet's
 *     slide per stance (the heel-toe midpoint of a planted foot) under 1 mm;
 *     the steps (the distance between a foot's successive DOWN events)
 *     shorter than upright; standing up again back to the upright height;
 *   - the lean: the torso's tilt measured as the direction from the body
 *     joint to the highest joint, against the facing and the lateral axis:
 *     forward while crouched; more forward while speeding up from standing
 *     than at a steady walk (and back while slowing down); more forward
 *     walking up a 10 degree ramp than on flat ground; toward the left in a
 *     left turn and toward the right in a right one;
 *   - bad arguments refused. Frame counts asserted. */
#include "proc_rig.h"
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FPS 60.0
#define PI_F 3.14159265f

typedef struct prig {
    sk_asset *asset;
    const sk_skeleton *skel;
    sk_procedural *P;
    sk_transform *local;
    sk_mat4 *world;
    sk_ik_limit *lim;
    uint32_t top, body;
    sk_vec3 head_fwd; /* the highest joint's local axis that points along +Z at rest */
    sk_terrain_shape shape;
} prig;

static void prig_make_on(prig *r, bool ramp, bool ledge);
static void prig_make(prig *r, bool ramp) { prig_make_on(r, ramp, false); }

static void prig_make_on(prig *r, bool ramp, bool ledge) {
    memset(r, 0, sizeof *r);
    sk_error err = {0};
    if (sk_mannequin_create(NULL, NULL, &r->asset, &err) != SK_OK) fail_msg("%s", err.message);
    r->skel = r->asset->skeleton;
    uint32_t J = r->skel->joint_count;
    sk_procedural_desc d = proc_rig_desc(r->skel);
    if (ramp) {
        sk_terrain_ramp_options o = {.angle = 10.0f * PI_F / 180.0f, .start = sk_vec3_make(0, 0, 1),
                                     .direction = sk_vec3_make(0, 0, 1)};
        assert_int_equal(sk_terrain_ramp(&r->shape, &o, &d.terrain, &err), SK_OK);
    }
    if (ledge) { /* y = 0 to z = 1 m, then a 1 m drop */
        sk_terrain_ledge_options o = {.height = 1.0f, .floor = -1.0f, .edge = sk_vec3_make(0, 0, 1),
                                      .direction = sk_vec3_make(0, 0, 1)};
        assert_int_equal(sk_terrain_ledge(&r->shape, &o, &d.terrain, &err), SK_OK);
    }
    if (sk_procedural_create(&d, NULL, &r->P, &err) != SK_OK) fail_msg("%s", err.message);
    r->local = calloc(J, sizeof *r->local);
    r->world = calloc(J, sizeof *r->world);
    r->lim = proc_rig_limits(r->skel);
    assert_non_null(r->local);
    assert_non_null(r->world);
    /* the highest joint at rest, and the legs' common ancestor (the body) */
    sk_mat4 *rest = calloc(J, sizeof *rest);
    assert_non_null(rest);
    sk_transform *rl = calloc(J, sizeof *rl);
    assert_non_null(rl);
    memcpy(rl, r->skel->rest, J * sizeof *rl);
    sk_pose rp = sk_pose_view(rl, J, NULL, 0);
    assert_int_equal(sk_local_to_model(r->skel, &rp, NULL, rest, J, &err), SK_OK);
    float best = -1e9f;
    for (uint32_t j = 0; j < J; j++)
        if (rest[j].m[13] > best) best = rest[j].m[13], r->top = j;
    /* its rest frame's columns are its axes in the world: +Z in its frame is
     * the transpose's third column (the frame is a rotation at rest) */
    const float *m = rest[r->top].m;
    r->head_fwd = sk_vec3_make(m[2], m[6], m[10]);
    free(rest);
    free(rl);
    int32_t body = r->skel->parents[d.legs[0].hip]; /* the hips' parent: the body */
    assert_true(body >= 0 && body == r->skel->parents[d.legs[1].hip]);
    r->body = (uint32_t)body;
}

static void prig_free(prig *r) {
    sk_procedural_destroy(r->P);
    free(r->local);
    free(r->world);
    free(r->lim);
    sk_asset_destroy(r->asset);
}

static void step(prig *r, float x, float z, float yaw) {
    sk_error err = {0};
    sk_pose pose = sk_pose_view(r->local, r->skel->joint_count, NULL, 0);
    if (sk_procedural_update(r->P, 1.0 / FPS, x, z, yaw, &pose, &err) != SK_OK) fail_msg("%s", err.message);
    if (sk_local_to_model(r->skel, &pose, &sk_procedural_get_state(r->P)->root, r->world, r->skel->joint_count,
                          &err) != SK_OK)
        fail_msg("%s", err.message);
}

static sk_vec3 wpos(const prig *r, uint32_t j) {
    return sk_vec3_make(r->world[j].m[12], r->world[j].m[13], r->world[j].m[14]);
}

static float len_xz(sk_vec3 d) { return sqrtf(d.x * d.x + d.z * d.z); }

static bool in_limits(const prig *r) { return proc_rig_in_limits(r->skel, r->lim, r->local); }

/* The torso's tilt (rad): the body -> top direction against the vertical,
 * forward along yaw's facing (+) and toward the left (+). */
static void tilt(const prig *r, float yaw, float *fwd, float *left) {
    sk_vec3 d = sk_vec3_sub(wpos(r, r->top), wpos(r, r->body));
    sk_vec3 f = sk_vec3_make(sinf(yaw), 0, cosf(yaw)), lft = sk_vec3_make(cosf(yaw), 0, -sinf(yaw));
    *fwd = atan2f(sk_vec3_dot(d, f), d.y);
    *left = atan2f(sk_vec3_dot(d, lft), d.y);
}

/* Walks along +Z at speed v for `seconds`, crouched under `height` (0:
 * upright) from the start; returns the highest joint's greatest height over
 * the frames after `settle` s, the mean step between DOWN events and counts. */
typedef struct walk_out {
    float top_max, top_min, step_mean;
    uint32_t frames, outside, downs;
    float slide_max;
} walk_out;

static walk_out walk(float height, float v, double seconds, double settle) {
    prig r;
    prig_make(&r, false);
    sk_error err = {0};
    assert_int_equal(sk_procedural_reset(r.P, 0, 0, 0, &err), SK_OK);
    if (height > 0) assert_true(sk_procedural_crouch(r.P, height));
    walk_out o = {.top_max = -1e9f, .top_min = 1e9f};
    sk_vec3 last_down[2] = {{0}}, run0[2] = {{0}};
    bool had_down[2] = {false, false}, in_run[2] = {false, false};
    double step_sum = 0;
    uint32_t steps = 0;
    uint32_t n = (uint32_t)(seconds * FPS);
    for (uint32_t k = 1; k <= n; k++) {
        double t = k / FPS;
        float z = v * (float)fmax(0.0, t - 0.5);
        step(&r, 0, z, 0);
        const sk_procedural_state *st = sk_procedural_get_state(r.P);
        o.frames++;
        o.outside += !in_limits(&r);
        if (t >= settle) {
            float y = wpos(&r, r.top).y;
            o.top_max = fmaxf(o.top_max, y), o.top_min = fminf(o.top_min, y);
        }
        for (int l = 0; l < 2; l++) {
            const sk_procedural_foot *f = &st->feet[l];
            if (f->event.kind == SK_FOOT_EVENT_DOWN) {
                o.downs++;
                if (had_down[l] && t > 2.0) step_sum += len_xz(sk_vec3_sub(f->event.position, last_down[l])), steps++;
                last_down[l] = f->event.position, had_down[l] = true;
            }
            sk_vec3 mid = sk_vec3_scale(sk_vec3_add(f->heel, f->toe), 0.5f);
            if (f->stance) {
                if (!in_run[l]) run0[l] = mid, in_run[l] = true;
                o.slide_max = fmaxf(o.slide_max, len_xz(sk_vec3_sub(mid, run0[l])));
            } else {
                in_run[l] = false;
            }
        }
    }
    o.step_mean = steps ? (float)(step_sum / steps) : 0;
    prig_free(&r);
    return o;
}

static void test_crouch(void **state) {
    (void)state;
    walk_out up = walk(0, 1.0f, 8, 2);
    walk_out lo = walk(1.3f, 1.0f, 8, 1);
    print_message("upright: top %.3f..%.3f m, step %.3f m; crouched under 1.3 m: top %.3f..%.3f m, step %.3f m; "
                  "%u + %u frames, %u + %u outside the limits, slide %.5f / %.5f m\n",
                  (double)up.top_min, (double)up.top_max, (double)up.step_mean, (double)lo.top_min, (double)lo.top_max,
                  (double)lo.step_mean, up.frames, lo.frames, up.outside, lo.outside, (double)up.slide_max,
                  (double)lo.slide_max);
    assert_int_equal(up.frames, 480);
    assert_int_equal(lo.frames, 480);
    assert_true(up.top_min > 1.4f);                 /* the mannequin's head stands higher than the cap */
    assert_true(lo.top_max <= 1.3f + 1e-3f);        /* under the height asked for, every frame after 1 s */
    assert_true(lo.top_max > 1.2f);                 /* and not far under it: the body lowered as needed */
    assert_int_equal(lo.outside, 0);
    assert_int_equal(up.outside, 0);
    assert_true(lo.slide_max < 1e-3f);
    assert_true(lo.downs >= 10);
    assert_true(lo.step_mean < 0.95f * up.step_mean); /* shorter steps crouched */
    /* deeper than the crouch reaches: the deepest crouch, inside the limits */
    walk_out deep = walk(0.5f, 1.0f, 6, 1);
    assert_int_equal(deep.outside, 0);
    assert_true(deep.top_max < lo.top_max && deep.top_min > 0.9f);
}

static void test_stand_up(void **state) {
    (void)state;
    prig r;
    prig_make(&r, false);
    sk_error err = {0};
    assert_int_equal(sk_procedural_reset(r.P, 0, 0, 0, &err), SK_OK);
    for (int k = 0; k < 60; k++) step(&r, 0, 0, 0);
    float upright = wpos(&r, r.top).y;
    assert_true(sk_procedural_crouch(r.P, 1.2f));
    for (int k = 0; k < 60; k++) step(&r, 0, 0, 0);
    float down = wpos(&r, r.top).y;
    assert_true(sk_procedural_get_state(r.P)->crouch > 0.1f);
    assert_true(sk_procedural_crouch(r.P, 0));
    for (int k = 0; k < 60; k++) step(&r, 0, 0, 0);
    float again = wpos(&r, r.top).y;
    print_message("standing: top %.3f, crouched %.3f, up again %.3f m\n", (double)upright, (double)down, (double)again);
    assert_true(down < upright - 0.2f);
    assert_float_equal(again, upright, 0.01f);
    assert_float_equal(sk_procedural_get_state(r.P)->crouch, 0, 1e-6f);
    /* refused, nothing changed */
    assert_false(sk_procedural_crouch(NULL, 1));
    assert_false(sk_procedural_crouch(r.P, NAN));
    assert_false(sk_procedural_crouch(r.P, -1));
    assert_false(sk_procedural_crouch(r.P, INFINITY));
    prig_free(&r);
}

/* Mean forward tilt over frames [a, b) of a walk along +Z starting at 0.5 s
 * (speed ramping from 0 to v over `ramp` s), and after `stop` s slowing to
 * a stop over `ramp` s. */
static void lean_walk(bool up_ramp, float v, double ramp, double stop, double seconds, float *mean, uint32_t nw,
                      const double (*win)[2]) {
    prig r;
    prig_make(&r, up_ramp);
    sk_error err = {0};
    assert_int_equal(sk_procedural_reset(r.P, 0, 0, 0, &err), SK_OK);
    double z = 0, sp = 0;
    double sum[8] = {0};
    uint32_t cnt[8] = {0};
    for (uint32_t k = 1; k <= (uint32_t)(seconds * FPS); k++) {
        double t = k / FPS;
        double want = t < 0.5 ? 0 : t < stop ? v : 0;
        double a = v / ramp / FPS;
        sp = want > sp ? fmin(want, sp + a) : fmax(want, sp - a);
        z += sp / FPS;
        step(&r, 0, (float)z, 0);
        float f, l;
        tilt(&r, 0, &f, &l);
        for (uint32_t w = 0; w < nw; w++)
            if (t >= win[w][0] && t < win[w][1]) sum[w] += f, cnt[w]++;
    }
    for (uint32_t w = 0; w < nw; w++) {
        assert_true(cnt[w] > 10);
        mean[w] = (float)(sum[w] / cnt[w]);
    }
    prig_free(&r);
}

static void test_lean(void **state) {
    (void)state;
    /* starting (0.5-1.0 s: speeding up at 2.8 m/s^2), steady (3-5 s),
     * slowing down (6.0-6.5 s) */
    static const double win[3][2] = {{0.6, 1.0}, {3.0, 5.0}, {6.05, 6.45}};
    float flat[3], ramp[3];
    lean_walk(false, 1.4f, 0.5, 6.0, 8.0, flat, 3, win);
    lean_walk(true, 1.4f, 0.5, 6.0, 8.0, ramp, 3, win);
    print_message("torso forward tilt (deg): flat: starting %.2f, steady %.2f, stopping %.2f; up 10 deg: steady %.2f\n",
                  (double)(flat[0] * 180 / PI_F), (double)(flat[1] * 180 / PI_F), (double)(flat[2] * 180 / PI_F),
                  (double)(ramp[1] * 180 / PI_F));
    assert_true(flat[0] > flat[1] + 0.03f); /* anticipation: into the start */
    assert_true(flat[2] < flat[1] - 0.03f); /* slowing down: back */
    assert_true(ramp[1] > flat[1] + 0.03f); /* uphill: forward */
    /* turns: a left turn (yaw increasing) tilts toward the left */
    for (int side = -1; side <= 1; side += 2) {
        prig r;
        prig_make(&r, false);
        sk_error err = {0};
        assert_int_equal(sk_procedural_reset(r.P, 0, 0, 0, &err), SK_OK);
        float x = 0, z = 0, yaw = 0, v = 1.6f, w = 1.2f * (float)side; /* rad/s */
        double sum = 0;
        uint32_t cnt = 0;
        for (uint32_t k = 1; k <= (uint32_t)(6 * FPS); k++) {
            double t = k / FPS;
            float sp = t < 0.5 ? 0 : fminf(v, v * (float)(t - 0.5) / 0.5f);
            if (t > 2.5) yaw += w / (float)FPS;
            x += sp * sinf(yaw) / (float)FPS, z += sp * cosf(yaw) / (float)FPS;
            step(&r, x, z, yaw);
            float f, l;
            tilt(&r, yaw, &f, &l);
            if (t > 3.5) sum += l, cnt++;
        }
        float mean = (float)(sum / cnt);
        print_message("turning %s at %.1f rad/s, %.1f m/s: torso tilt toward the left %.2f deg over %u frames\n",
                      side > 0 ? "left" : "right", (double)fabsf(w), (double)v, (double)(mean * 180 / PI_F), cnt);
        assert_true(cnt == 150);
        assert_true(side > 0 ? mean > 0.03f : mean < -0.03f);
        prig_free(&r);
    }
    /* crouched: forward */
    prig r;
    prig_make(&r, false);
    sk_error err = {0};
    assert_int_equal(sk_procedural_reset(r.P, 0, 0, 0, &err), SK_OK);
    for (int k = 0; k < 30; k++) step(&r, 0, 0, 0);
    float f0, l0, f1, l1;
    tilt(&r, 0, &f0, &l0);
    assert_true(sk_procedural_crouch(r.P, 1.2f));
    for (int k = 0; k < 90; k++) step(&r, 0, 0, 0);
    tilt(&r, 0, &f1, &l1);
    print_message("standing: tilt %.2f deg; crouched: %.2f deg\n", (double)(f0 * 180 / PI_F), (double)(f1 * 180 / PI_F));
    assert_true(f1 > f0 + 0.2f);
    assert_float_equal(l1, l0, 0.01f);
    prig_free(&r);
}

/* The head's forward in the world (its rest +Z carried by its frame). */
static sk_vec3 head_forward(const prig *r) {
    const float *m = r->world[r->top].m;
    sk_vec3 a = r->head_fwd;
    sk_vec3 w = sk_vec3_make(m[0] * a.x + m[4] * a.y + m[8] * a.z, m[1] * a.x + m[5] * a.y + m[9] * a.z,
                             m[2] * a.x + m[6] * a.y + m[10] * a.z);
    return sk_vec3_normalize(w);
}

static float angle_between(sk_vec3 a, sk_vec3 b) {
    float c = sk_vec3_dot(sk_vec3_normalize(a), sk_vec3_normalize(b));
    return acosf(c > 1 ? 1 : c < -1 ? -1 : c);
}

/* Gaze: the head's forward against the direction to the target while the
 * target is within the reach of the turn; beyond it, turned toward it by
 * about the cap; half weight about half way; the limbs' limits unchanged. */
static void test_look(void **state) {
    (void)state;
    prig r;
    prig_make(&r, false);
    sk_error err = {0};
    assert_int_equal(sk_procedural_reset(r.P, 0, 0, 0, &err), SK_OK);
    sk_vec3 target = sk_vec3_make(2.0f, 1.5f, 4.0f); /* ahead and to the left (+X) */
    assert_true(sk_procedural_look_at(r.P, &target, 1.0f));
    uint32_t near = 0, far = 0, outside = 0;
    float worst_near = 0, far_min = 10, far_max = 0;
    for (uint32_t k = 1; k <= (uint32_t)(9 * FPS); k++) {
        double t = k / FPS;
        float z = 1.0f * (float)fmax(0.0, t - 0.5);
        step(&r, 0, z, 0);
        outside += !in_limits(&r);
        if (t < 1.0) continue; /* the gaze is there from the first update; the walk settles */
        sk_vec3 h = wpos(&r, r.top), to = sk_vec3_sub(target, h), fwd = head_forward(&r);
        float off = angle_between(sk_vec3_make(to.x, 0, to.z), sk_vec3_make(0, 0, 1)); /* from the facing */
        if (off < 0.9f) { /* well inside the 1.2 rad turn */
            worst_near = fmaxf(worst_near, angle_between(fwd, to));
            near++;
        } else if (off > 1.6f) { /* behind the cap: turned toward it, as far as it goes */
            float turn = angle_between(sk_vec3_make(fwd.x, 0, fwd.z), sk_vec3_make(0, 0, 1));
            far_min = fminf(far_min, turn), far_max = fmaxf(far_max, turn);
            assert_true(fwd.x > 0); /* toward the target's side */
            far++;
        }
    }
    print_message("gaze at (2, 1.5, 4) walking +Z at 1 m/s: %u frames in reach, head forward within %.4f rad of the "
                  "target; %u frames behind the cap, head turned %.3f..%.3f rad from the facing; %u outside the "
                  "limits\n",
                  near, (double)worst_near, far, (double)far_min, (double)far_max, outside);
    assert_true(near > 100 && far > 60);
    assert_true(worst_near < 0.02f);
    assert_true(far_min > 1.0f && far_max < 1.45f);
    assert_int_equal(outside, 0);
    /* half weight: about half the turn (the slerp of the aim over the walked pose) */
    assert_int_equal(sk_procedural_reset(r.P, 0, 0, 0, &err), SK_OK);
    sk_vec3 side = sk_vec3_make(5.0f, 1.5f, 0.8f); /* 80 degrees to the left, standing */
    assert_true(sk_procedural_look_at(r.P, &side, 1.0f));
    for (int k = 0; k < 10; k++) step(&r, 0, 0, 0);
    sk_vec3 f1 = head_forward(&r);
    assert_true(sk_procedural_look_at(r.P, &side, 0.5f));
    step(&r, 0, 0, 0);
    sk_vec3 fh = head_forward(&r);
    assert_true(sk_procedural_look_at(r.P, NULL, 0));
    step(&r, 0, 0, 0);
    sk_vec3 f0 = head_forward(&r);
    float full = angle_between(f0, f1), half = angle_between(f0, fh);
    print_message("standing, a target 80 deg to the left: full turn %.3f rad (the cap), half weight %.3f rad\n",
                  (double)full, (double)half);
    assert_float_equal(full, 1.2f, 0.05f);
    assert_float_equal(half, 0.5f * full, 0.05f);
    /* refused, nothing changed */
    sk_vec3 bad = sk_vec3_make(NAN, 0, 0);
    assert_false(sk_procedural_look_at(r.P, &bad, 1));
    assert_false(sk_procedural_look_at(r.P, &side, 1.5f));
    assert_false(sk_procedural_look_at(r.P, &side, -0.1f));
    assert_false(sk_procedural_look_at(NULL, &side, 1));
    prig_free(&r);
}

/* Balancing at an edge: walking up to a 1 m drop and stopping, against the
 * same walk stopping on flat ground: the arms out (the hands higher), one
 * foot behind the other and the hips over it (the body joint behind the
 * feet's middle along the facing), the feet before the edge, every frame
 * inside the limits. */
static void stop_at(bool ledge, float *hands_y, float *hips_back, float *toe_z, float *balance, uint32_t *outside,
                    float *stagger, float *over_back) {
    prig r;
    prig_make_on(&r, false, ledge);
    sk_error err = {0};
    assert_int_equal(sk_procedural_reset(r.P, 0, -2, 0, &err), SK_OK);
    *outside = 0;
    int32_t hl = sk_skeleton_find(r.skel, "hand_l"), hr = sk_skeleton_find(r.skel, "hand_r");
    assert_true(hl >= 0 && hr >= 0);
    for (uint32_t k = 1; k <= (uint32_t)(6 * FPS); k++) {
        double t = k / FPS;
        float z = -2.0f + fminf(2.6f, 1.0f * (float)fmax(0.0, t - 0.5)); /* stops at z = 0.6 (0.4 m before the edge) */
        step(&r, 0, z, 0);
        *outside += !in_limits(&r);
    }
    const sk_procedural_state *st = sk_procedural_get_state(r.P);
    *hands_y = 0.5f * (wpos(&r, (uint32_t)hl).y + wpos(&r, (uint32_t)hr).y);
    *toe_z = fmaxf(st->feet[0].toe.z, st->feet[1].toe.z);
    *balance = st->balance;
    /* the feet's middles along the facing: how far apart, and the body
     * joint against the back one's */
    float m0 = 0.5f * (st->feet[0].heel.z + st->feet[0].toe.z), m1 = 0.5f * (st->feet[1].heel.z + st->feet[1].toe.z);
    *stagger = fabsf(m0 - m1);
    *over_back = fabsf(wpos(&r, r.body).z - fminf(m0, m1));
    *hips_back = 0.5f * (m0 + m1) - wpos(&r, r.body).z; /* behind the feet's middle, along the facing */
    assert_int_equal(st->mode, SK_PROCEDURAL_STANDING);
    prig_free(&r);
}

static void test_balance(void **state) {
    (void)state;
    float hy0, hb0, tz0, b0, hy1, hb1, tz1, b1, sg0, ob0, sg1, ob1;
    uint32_t o0, o1;
    stop_at(false, &hy0, &hb0, &tz0, &b0, &o0, &sg0, &ob0);
    stop_at(true, &hy1, &hb1, &tz1, &b1, &o1, &sg1, &ob1);
    print_message("feet %.3f m apart along the facing on flat ground, %.3f at the edge; the body joint %.3f m from "
                  "the back foot's middle at the edge\n",
                  (double)sg0, (double)sg1, (double)ob1);
    assert_true(sg0 < 0.05f);        /* side by side on flat ground */
    assert_true(sg1 > 0.2f);         /* one foot back at the edge */
    assert_true(ob1 < 0.03f);        /* the weight over it */
    assert_true(hb1 > hb0 + 0.08f);  /* the hips back from the feet's middle, away from the edge */
    print_message("stopped on flat ground: hands at %.3f m, hips %.3f m behind the feet's middle, balance %.2f; at the edge: "
                  "hands at %.3f m, hips %.3f m behind, front toe at z = %.3f (the edge at 1), balance %.2f; %u + %u "
                  "frames outside the limits\n",
                  (double)hy0, (double)hb0, (double)b0, (double)hy1, (double)hb1, (double)tz1, (double)b1, o0, o1);
    assert_float_equal(b0, 0, 1e-6f);
    assert_true(b1 > 0.9f);
    assert_true(hy1 > hy0 + 0.2f);  /* the arms out */
    assert_true(hb1 > hb0 - 0.02f); /* the hips not forward */
    assert_true(tz1 < 1.0f);        /* the feet before the edge */
    assert_int_equal(o0, 0);
    assert_int_equal(o1, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crouch),
        cmocka_unit_test(test_stand_up),
        cmocka_unit_test(test_lean),
        cmocka_unit_test(test_look),
        cmocka_unit_test(test_balance),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
