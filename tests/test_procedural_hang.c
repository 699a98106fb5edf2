/* The IK-only walker's ledge hang (locomotion/procedural.h, seed 004 §8.3):
 * walked off a drop deeper than the mannequin is tall, it hangs from the
 * edge by its hands, lets go, lands and walks on.
 *
 * References, independent of the code under test: the output pose through
 * sk_local_to_model with the state's root, the terrain's closed form (a
 * ledge: y = 0 for z < 1, the floor for z >= 1), the mannequin's limits
 * (tests/proc_rig.h):
 *   - 2.5 m and 3.0 m drops walked at 0.8 and 1.2 m/s: the modes in order
 *     (walking, hanging, airborne, landing, then walking or standing); over
 *     the last half of the hang both hands within 8 cm of the edge (on its
 *     top, at most 8 cm either side of its line), the head under the edge;
 *     no joint inside the rock (a joint with z < 1 is not below y = 0 by
 *     more than 1 cm) nor under the floor, at any frame; every frame inside
 *     the limits; it lands facing within 0.15 rad of the way it walked and
 *     ends within 5 cm of the path's end;
 *   - a 1.0 m drop (shallower than the character) is fallen, never hung;
 *   - over a drop with no ground below, it hangs and does not let go;
 *   - without arms there is no hang. Frame counts asserted. */
#include "proc_rig.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define FPS 60.0

typedef struct cliff { float floor; bool bottomless; } cliff;

static bool cliff_cast(void *user, sk_vec3 o, sk_vec3 d, float max_d, sk_terrain_hit *out) {
    const cliff *c = user;
    /* vertical rays only (the walker and this test cast straight down) */
    if (fabsf(d.x) > 1e-6f || fabsf(d.z) > 1e-6f || d.y >= 0) return false;
    if (o.z >= 1.0f && c->bottomless) return false;
    float y = o.z < 1.0f ? 0.0f : c->floor, dist = o.y - y;
    if (dist < 0 || dist > max_d) return false;
    out->point = sk_vec3_make(o.x, y, o.z);
    out->normal = sk_vec3_make(0, 1, 0);
    out->distance = dist;
    return true;
}

typedef struct hang_run {
    uint32_t frames, hang_frames, hands_near, outside, inside_rock, under_floor;
    uint32_t downs_after, events_bad; /* DOWN events after the hang; events out of turn (DOWN, UP, DOWN, ... per foot) */
    bool order_ok, hung, landed;
    float end_dist, land_yaw_err, hand_err_max;
} hang_run;

static void run(const sk_skeleton *s, const sk_ik_limit *lim, uint32_t arms, cliff *c, float speed, float seconds,
                hang_run *out) {
    sk_error err = {0};
    sk_procedural_desc d = proc_rig_desc(s);
    d.arm_count = arms;
    sk_ik_limit *arm_lim = calloc(s->joint_count, sizeof *arm_lim);
    assert_non_null(arm_lim);
    assert_int_equal(sk_mannequin_arm_limits(s, arm_lim, s->joint_count, &err), SK_OK);
    d.limits = arm_lim;
    d.terrain = (sk_terrain){cliff_cast, c};
    sk_procedural *P = NULL;
    assert_int_equal(sk_procedural_create(&d, NULL, &P, &err), SK_OK);
    uint32_t J = s->joint_count;
    sk_transform *loc = calloc(J, sizeof *loc);
    sk_mat4 *w = calloc(J, sizeof *w);
    assert_non_null(loc);
    assert_non_null(w);
    sk_pose pose = sk_pose_view(loc, J, NULL, 0);
    int32_t hand[2] = {sk_skeleton_find(s, "hand_l"), sk_skeleton_find(s, "hand_r")}, head = sk_skeleton_find(s, "head");
    assert_true(hand[0] >= 0 && hand[1] >= 0 && head >= 0);
    memset(out, 0, sizeof *out);
    out->order_ok = true;
    float z = -1.0f, zend = 3.0f;
    assert_int_equal(sk_procedural_reset(P, 0, z, 0, &err), SK_OK);
    /* the order of modes: walking/standing, hanging, airborne, landing, walking/standing */
    int stage = 0;
    uint32_t n = (uint32_t)(seconds * FPS), hang_at = 0;
    int last[2] = {SK_FOOT_EVENT_UP, SK_FOOT_EVENT_UP}; /* after a reset the first event is a DOWN */
    for (uint32_t k = 0; k < n; k++) {
        z = fminf(z + speed / (float)FPS, zend);
        assert_int_equal(sk_procedural_update(P, 1.0 / FPS, 0, z, 0, &pose, &err), SK_OK);
        const sk_procedural_state *st = sk_procedural_get_state(P);
        assert_int_equal(sk_local_to_model(s, &pose, &st->root, w, J, &err), SK_OK);
        out->frames++;
        sk_procedural_mode m = st->mode;
        bool ground = m == SK_PROCEDURAL_WALKING || m == SK_PROCEDURAL_STANDING;
        if (stage == 0 && m == SK_PROCEDURAL_HANGING) stage = 1, out->hung = true, hang_at = k;
        else if (stage == 1 && m == SK_PROCEDURAL_AIRBORNE) stage = 2;
        else if (stage == 2 && m == SK_PROCEDURAL_LANDING) stage = 3;
        else if (stage == 3 && ground) {
            stage = 4, out->landed = true;
            out->land_yaw_err = fabsf(st->yaw); /* the walk's facing is 0 */
        }
        bool expected = (stage == 0 && (ground || m == SK_PROCEDURAL_AIRBORNE || m == SK_PROCEDURAL_LANDING)) ||
                        (stage == 1 && m == SK_PROCEDURAL_HANGING) || (stage == 2 && m == SK_PROCEDURAL_AIRBORNE) ||
                        (stage == 3 && m == SK_PROCEDURAL_LANDING) || (stage == 4 && ground);
        if (!expected) out->order_ok = false;
        if (m == SK_PROCEDURAL_HANGING) {
            out->hang_frames++;
            if (k - hang_at >= (uint32_t)(0.7 * FPS)) { /* past the grab: hanging */
                bool near = true;
                for (int a = 0; a < 2; a++) {
                    const float *h = w[hand[a]].m;
                    float e = fmaxf(fabsf(h[13] - 0.0f), fabsf(h[14] - 1.0f));
                    out->hand_err_max = fmaxf(out->hand_err_max, e);
                    near = near && e < 0.08f;
                }
                near = near && w[head].m[13] < 0.0f;
                out->hands_near += near;
            }
        }
        for (uint32_t j = 0; j < J; j++) {
            const float *p = w[j].m;
            assert_true(isfinite(p[12]) && isfinite(p[13]) && isfinite(p[14]));
            if (p[14] < 1.0f && p[13] < -0.01f) out->inside_rock++;
            if (!c->bottomless && p[13] < c->floor - 0.01f) out->under_floor++;
        }
        out->outside += !proc_rig_in_limits(s, lim, loc);
        for (int l = 0; l < 2; l++) {
            int kind = (int)st->feet[l].event.kind;
            if (kind == SK_FOOT_EVENT_NONE) continue;
            out->events_bad += kind == last[l];
            last[l] = kind;
            out->downs_after += kind == SK_FOOT_EVENT_DOWN && stage >= 2;
        }
    }
    const sk_procedural_state *st = sk_procedural_get_state(P);
    out->end_dist = hypotf(st->position.x, st->position.z - zend);
    free(loc);
    free(w);
    free(arm_lim);
    sk_procedural_destroy(P);
}

static void test_hang(void **state) {
    (void)state;
    sk_error err = {0};
    sk_asset *a = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, &err), SK_OK);
    const sk_skeleton *s = a->skeleton;
    sk_ik_limit *lim = proc_rig_limits(s);
    static const float drops[] = {2.5f, 3.0f}, speeds[] = {0.8f, 1.2f};
    uint32_t runs = 0, frames = 0;
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 2; k++) {
            cliff c = {-drops[i], false};
            hang_run r;
            run(s, lim, 2, &c, speeds[k], 9.0f, &r);
            print_message("drop %.1f m at %.1f m/s: %u frames, %u hanging (%u with both hands within 8 cm of the edge, "
                          "worst %.3f m), landed facing %.3f rad off, ends %.3f m from the path's end; %u joint-frames "
                          "in the rock, %u under the floor, %u frames outside the limits\n",
                          (double)drops[i], (double)speeds[k], r.frames, r.hang_frames, r.hands_near,
                          (double)r.hand_err_max, (double)r.land_yaw_err, (double)r.end_dist, r.inside_rock,
                          r.under_floor, r.outside);
            assert_true(r.hung && r.landed && r.order_ok);
            assert_true(r.hang_frames >= (uint32_t)(1.2 * FPS) && r.hang_frames <= (uint32_t)(1.6 * FPS));
            assert_true(r.hands_near >= (uint32_t)(0.5 * FPS));
            assert_int_equal(r.inside_rock, 0);
            assert_int_equal(r.under_floor, 0);
            assert_int_equal(r.outside, 0);
            assert_true(r.land_yaw_err < 0.15f);
            assert_true(r.end_dist < 0.05f);
            assert_int_equal(r.events_bad, 0);   /* each foot: down, up, down, ... also across the hang */
            assert_true(r.downs_after >= 2);     /* both feet come down below */
            runs++, frames += r.frames;
        }
    assert_int_equal(runs, 4);
    assert_int_equal(frames, 4 * 540);
    /* shallower than the character: fallen, not hung */
    cliff low = {-1.0f, false};
    hang_run r;
    run(s, lim, 2, &low, 1.0f, 7.0f, &r);
    assert_false(r.hung);
    assert_int_equal(r.outside, 0);
    assert_true(r.end_dist < 0.05f);
    /* no ground below: it hangs and does not let go */
    cliff pit = {0, true};
    run(s, lim, 2, &pit, 1.0f, 8.0f, &r);
    assert_true(r.hung);
    assert_true(r.hang_frames > 5 * FPS);
    assert_int_equal(r.inside_rock, 0);
    assert_int_equal(r.outside, 0);
    /* without arms: no hang (the fall) */
    cliff deep = {-2.5f, false};
    run(s, lim, 0, &deep, 1.0f, 7.0f, &r);
    assert_false(r.hung);
    free(lim);
    sk_asset_destroy(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hang),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
