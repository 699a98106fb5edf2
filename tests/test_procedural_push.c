/* Pushes for the IK-only walker (locomotion/procedural.h, sk_procedural_push;
 * seed 004's future work).
 *
 * References, independent of the code under test: the output pose through
 * sk_local_to_model with the state's root, and the walker's own foot events:
 *   - recovery: walking at 1.4 m/s, a change of the body's velocity of 0.5
 *     m/s forward, backward, to the left and to the right; the steps (DOWN
 *     events) from the push until the body is back on the caller's point
 *     (state.push_offset under 1 cm and changing by under 5 cm/s), at most
 *     3; every planted foot's heel-toe midpoint still (slide under 1 mm per
 *     stance), every leg and arm joint inside sk_mannequin_leg_limits /
 *     arm_limits (sk_ik_limit_check, 1e-3 rad) at every frame, no heel or
 *     toe below the ground;
 *   - the strongest recovered push per direction (0.25 m/s steps), reported;
 *   - a push no step can catch: the walker falls the way it was pushed and
 *     comes to rest lying (the body -> highest joint direction within 20
 *     degrees of the horizontal, leaning the push's way), every joint finite
 *     and over the ground, the limbs inside the limits;
 *   - bad pushes refused. Frame counts asserted. */
#include "proc_rig.h"
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FPS 60.0

typedef struct hrig {
    sk_asset *asset;
    const sk_skeleton *skel;
    sk_procedural *P;
    sk_transform *local;
    sk_mat4 *world;
    sk_ik_limit *lim;
    uint32_t top, body;
} hrig;

static void hrig_make(hrig *r) {
    memset(r, 0, sizeof *r);
    sk_error err = {0};
    if (sk_mannequin_create(NULL, NULL, &r->asset, &err) != SK_OK) fail_msg("%s", err.message);
    r->skel = r->asset->skeleton;
    uint32_t J = r->skel->joint_count;
    sk_procedural_desc d = proc_rig_desc(r->skel);
    if (sk_procedural_create(&d, NULL, &r->P, &err) != SK_OK) fail_msg("%s", err.message);
    r->local = calloc(J, sizeof *r->local);
    r->world = calloc(J, sizeof *r->world);
    r->lim = proc_rig_limits(r->skel);
    assert_non_null(r->local);
    assert_non_null(r->world);
    float best = -1e9f;
    for (uint32_t j = 0; j < J; j++) { /* the highest joint at rest (rest translations accumulate up the tree) */
        sk_vec3 p = r->skel->rest[j].t;
        for (int32_t q = r->skel->parents[j]; q >= 0; q = r->skel->parents[q]) p = sk_vec3_add(p, r->skel->rest[q].t);
        if (p.y > best) best = p.y, r->top = j;
    }
    r->body = (uint32_t)r->skel->parents[d.legs[0].hip];
}

static void hrig_free(hrig *r) {
    sk_procedural_destroy(r->P);
    free(r->local);
    free(r->world);
    free(r->lim);
    sk_asset_destroy(r->asset);
}

static void step(hrig *r, float x, float z) {
    sk_error err = {0};
    sk_pose pose = sk_pose_view(r->local, r->skel->joint_count, NULL, 0);
    if (sk_procedural_update(r->P, 1.0 / FPS, x, z, 0, &pose, &err) != SK_OK) fail_msg("%s", err.message);
    if (sk_local_to_model(r->skel, &pose, &sk_procedural_get_state(r->P)->root, r->world, r->skel->joint_count,
                          &err) != SK_OK)
        fail_msg("%s", err.message);
}

static float len3(sk_vec3 a) { return sqrtf(sk_vec3_dot(a, a)); }

static bool in_limits(const hrig *r) { return proc_rig_in_limits(r->skel, r->lim, r->local); }

typedef struct push_out {
    bool fell;
    int steps;           /* DOWN events from the push to recovery; -1: not recovered */
    uint32_t frames, outside;
    float slide_max, low; /* the largest slide per stance (m); the lowest heel or toe (m, y) */
} push_out;

/* Walks +Z at 1.4 m/s (from 0.5 s, 1 s to full speed), pushes by dv at 4 s,
 * walks on to 9 s. */
static push_out push_walk(sk_vec3 dv) {
    hrig r;
    hrig_make(&r);
    sk_error err = {0};
    assert_int_equal(sk_procedural_reset(r.P, 0, 0, 0, &err), SK_OK);
    push_out o = {.steps = -1, .low = 1e9f};
    double z = 0, v = 0;
    int downs = 0;
    bool pushed = false;
    sk_vec3 prev_off = {0}, run0[2] = {{0}};
    bool in_run[2] = {false, false};
    for (uint32_t k = 1; k <= (uint32_t)(9 * FPS); k++) {
        double t = k / FPS;
        v = t < 0.5 ? 0 : fmin(1.4, v + 1.4 / FPS);
        z += v / FPS;
        if (!pushed && t >= 4.0) assert_true(sk_procedural_push(r.P, dv)), pushed = true;
        step(&r, 0, (float)z);
        const sk_procedural_state *st = sk_procedural_get_state(r.P);
        o.frames++;
        o.outside += !in_limits(&r);
        if (st->mode == SK_PROCEDURAL_FALLEN) o.fell = true;
        for (int l = 0; l < 2; l++) {
            const sk_procedural_foot *f = &st->feet[l];
            o.low = fminf(o.low, fminf(f->heel.y, f->toe.y));
            if (pushed && f->event.kind == SK_FOOT_EVENT_DOWN) downs++;
            sk_vec3 mid = sk_vec3_scale(sk_vec3_add(f->heel, f->toe), 0.5f);
            if (f->stance) {
                if (!in_run[l]) run0[l] = mid, in_run[l] = true;
                o.slide_max = fmaxf(o.slide_max, hypotf(mid.x - run0[l].x, mid.z - run0[l].z));
            } else {
                in_run[l] = false;
            }
        }
        sk_vec3 off = st->push_offset;
        float rate = len3(sk_vec3_sub(off, prev_off)) * (float)FPS;
        prev_off = off;
        if (pushed && t > 4.05 && o.steps < 0 && len3(off) < 0.01f && rate < 0.05f && !o.fell) o.steps = downs;
    }
    hrig_free(&r);
    return o;
}

static void test_recovery(void **state) {
    (void)state;
    static const struct { const char *name; sk_vec3 dir; } dirs[4] = {
        {"forward", {0, 0, 1}}, {"backward", {0, 0, -1}}, {"left", {1, 0, 0}}, {"right", {-1, 0, 0}}};
    for (int d = 0; d < 4; d++) {
        push_out o = push_walk(sk_vec3_scale(dirs[d].dir, 0.5f));
        print_message("0.5 m/s %-8s: recovered after %d steps; slide %.5f m, lowest heel/toe %.4f m, %u of %u frames "
                      "outside the limits\n",
                      dirs[d].name, o.steps, (double)o.slide_max, (double)o.low, o.outside, o.frames);
        assert_int_equal(o.frames, 540);
        assert_false(o.fell);
        assert_true(o.steps >= 0 && o.steps <= 3);
        assert_true(o.slide_max < 1e-3f);
        assert_true(o.low > -1e-3f);
        assert_int_equal(o.outside, 0);
        /* the strongest push recovered this way (0.25 m/s steps) */
        float best = 0;
        for (float s = 0.75f; s <= 4.0f; s += 0.25f) {
            push_out p = push_walk(sk_vec3_scale(dirs[d].dir, s));
            if (p.fell || p.steps < 0 || p.outside || p.slide_max >= 1e-3f) break;
            best = s;
        }
        print_message("  the strongest %s push recovered: %.2f m/s\n", dirs[d].name, (double)best);
        assert_true(best >= 0.75f);
    }
}

static void test_fall(void **state) {
    (void)state;
    static const sk_vec3 dirs[3] = {{0, 0, 4}, {0, 0, -4}, {4, 0, 0}};
    for (int d = 0; d < 3; d++) {
        hrig r;
        hrig_make(&r);
        sk_error err = {0};
        assert_int_equal(sk_procedural_reset(r.P, 0, 0, 0, &err), SK_OK);
        double z = 0, v = 0;
        uint32_t outside = 0, frames = 0;
        float low = 1e9f;
        for (uint32_t k = 1; k <= (uint32_t)(6 * FPS); k++) {
            double t = k / FPS;
            v = t < 0.5 ? 0 : fmin(1.4, v + 1.4 / FPS);
            z += v / FPS;
            if (k == (uint32_t)(3 * FPS)) assert_true(sk_procedural_push(r.P, dirs[d]));
            step(&r, 0, (float)z);
            frames++;
            outside += !in_limits(&r);
            for (uint32_t j = 0; j < r.skel->joint_count; j++) {
                const float *m = r.world[j].m;
                assert_true(isfinite(m[12]) && isfinite(m[13]) && isfinite(m[14]));
                low = fminf(low, m[13]);
            }
        }
        const sk_procedural_state *st = sk_procedural_get_state(r.P);
        assert_int_equal(st->mode, SK_PROCEDURAL_FALLEN);
        sk_vec3 b = sk_vec3_make(r.world[r.body].m[12], r.world[r.body].m[13], r.world[r.body].m[14]);
        sk_vec3 h = sk_vec3_make(r.world[r.top].m[12], r.world[r.top].m[13], r.world[r.top].m[14]);
        sk_vec3 bh = sk_vec3_sub(h, b);
        float up = atan2f(bh.y, hypotf(bh.x, bh.z)); /* the torso against the horizontal */
        float along = sk_vec3_dot(bh, sk_vec3_normalize(dirs[d]));
        print_message("pushed by (%g, %g) m/s: lying, torso %.1f deg from the horizontal, %.2f m the push's way; lowest "
                      "joint %.3f m; %u of %u frames outside the limits\n",
                      (double)dirs[d].x, (double)dirs[d].z, (double)(up * 57.29578f), (double)along, (double)low, outside,
                      frames);
        assert_int_equal(frames, 360);
        assert_true(fabsf(up) < 0.35f);
        assert_true(along > 0.3f);
        assert_true(low > -1e-3f);
        assert_int_equal(outside, 0);
        /* further pushes change nothing; a reset stands it up again */
        assert_true(sk_procedural_push(r.P, sk_vec3_make(1, 0, 0)));
        assert_int_equal(sk_procedural_reset(r.P, 0, 0, 0, &err), SK_OK);
        step(&r, 0, 0);
        assert_int_equal(sk_procedural_get_state(r.P)->mode, SK_PROCEDURAL_STANDING);
        hrig_free(&r);
    }
    /* refused */
    hrig r;
    hrig_make(&r);
    assert_false(sk_procedural_push(NULL, sk_vec3_make(1, 0, 0)));
    assert_false(sk_procedural_push(r.P, sk_vec3_make(NAN, 0, 0)));
    assert_false(sk_procedural_push(r.P, sk_vec3_make(0, 0, 51)));
    hrig_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recovery),
        cmocka_unit_test(test_fall),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
