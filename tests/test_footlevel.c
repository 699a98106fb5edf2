/* sk_foot_level (locomotion/footlevel.h). The reference is written here:
 * the sole's pitch (heel point to toe point, toe up +) measured with the
 * public sampling and forward kinematics at the middle of each contact.
 *  - The mannequin's own clips stand their feet flat: no tilt is found and
 *    the output samples as the input does.
 *  - The walk with each ankle turned by a known angle about the foot's side
 *    axis (built here, key by key): the tilt found is that angle, and the
 *    output's planted pitch is the original's again.
 *  - A tilt beyond max_angle is left; stats only (out NULL); bad input. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEG (3.14159265358979323846 / 180.0)

typedef struct rig {
    sk_asset *a;
    sk_leg_desc legs[2];
} rig;

static void rig_make(rig *r) {
    assert_int_equal(sk_mannequin_create(NULL, NULL, &r->a, NULL), SK_OK);
    assert_int_equal(sk_legs_find(r->a->skeleton, r->legs, 2), 2);
    for (int l = 0; l < 2; l++) assert_int_equal(sk_leg_default_points(r->a->skeleton, &r->legs[l], NULL), SK_OK);
}

static const sk_clip *clip_named(const sk_asset *a, const char *name) {
    int32_t i = sk_asset_find_clip(a, name);
    assert_true(i >= 0);
    return a->clips[i];
}

/* The sole's pitch (rad, toe up +) of leg l at time t. */
static double pitch_at(const rig *r, const sk_clip *c, uint32_t l, double t) {
    const sk_skeleton *s = r->a->skeleton;
    sk_transform *local = calloc(s->joint_count, sizeof *local);
    sk_mat4 *model = calloc(s->joint_count, sizeof *model);
    assert_non_null(local);
    assert_non_null(model);
    assert_int_equal(sk_clip_sample(c, s, t, SK_LOOP_CLAMP, SK_POSE_OF(s, local, NULL), NULL), SK_OK);
    assert_int_equal(sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, model, s->joint_count, NULL), SK_OK);
    const sk_leg_desc *g = &r->legs[l];
    sk_vec3 h = sk_mat4_transform_point(&model[g->ankle], g->heel);
    sk_vec3 q = sk_mat4_transform_point(&model[g->toe >= 0 ? g->toe : g->ankle], g->toe_tip);
    free(local);
    free(model);
    return atan2((double)q.y - h.y, hypot((double)q.x - h.x, (double)q.z - h.z));
}

/* Median pitch of leg l over the middle half of its contacts in clip c
 * (found on ref, the clip whose contacts count); *n: samples. */
static double planted_pitch(const rig *r, const sk_clip *ref, const sk_clip *c, uint32_t l, uint32_t *n) {
    sk_contact ct[64];
    uint32_t nc = 0;
    assert_int_equal(sk_contacts_find(r->a->skeleton, ref, r->legs, 2, NULL, NULL, ct, 64, &nc, NULL), SK_OK);
    double v[2048];
    uint32_t m = 0;
    for (uint32_t k = 0; k < nc; k++) {
        if (ct[k].leg != l) continue;
        double mid = 0.5 * (ct[k].start + ct[k].end), half = 0.25 * (ct[k].end - ct[k].start);
        for (int s = 0; s <= 8 && m < 2048; s++) v[m++] = pitch_at(r, c, l, mid - half + half * s / 4.0);
    }
    assert_true(m > 0);
    for (uint32_t i = 1; i < m; i++) /* insertion sort */
        for (uint32_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1], v[j - 1] = t;
        }
    *n = m;
    return v[m / 2];
}

/* Largest difference of the two clips' local poses over 97 times. */
static double pose_diff(const rig *r, const sk_clip *a, const sk_clip *b) {
    const sk_skeleton *s = r->a->skeleton;
    sk_transform *x = calloc(s->joint_count, sizeof *x), *y = calloc(s->joint_count, sizeof *y);
    double d = 0, dur = sk_clip_duration(a);
    for (int k = 0; k <= 96; k++) {
        double t = dur * k / 96.0;
        assert_int_equal(sk_clip_sample(a, s, t, SK_LOOP_CLAMP, SK_POSE_OF(s, x, NULL), NULL), SK_OK);
        assert_int_equal(sk_clip_sample(b, s, t, SK_LOOP_CLAMP, SK_POSE_OF(s, y, NULL), NULL), SK_OK);
        for (uint32_t j = 0; j < s->joint_count; j++) {
            const float *p = &x[j].t.x, *q = &y[j].t.x;
            for (int i = 0; i < 10; i++) d = fmax(d, fabs((double)p[i] - q[i]));
        }
    }
    free(x);
    free(y);
    return d;
}

/* The clip with each leg's ankle rotation keys multiplied on the right by a
 * turn of angle[l] about the world X axis as seen from the ankle at rest
 * (the mannequin faces +Z: about +X, a negative angle raises the toe). */
/* Per leg, the world X axis as seen from the ankle at rest (the mannequin
 * faces +Z: its feet's side axis). */
static void rest_side_axes(const rig *r, sk_vec3 axis[2]) {
    const sk_skeleton *s = r->a->skeleton;
    sk_transform *local = calloc(s->joint_count, sizeof *local);
    sk_mat4 *model = calloc(s->joint_count, sizeof *model);
    assert_true(local && model);
    assert_int_equal(sk_pose_rest(s, SK_POSE_OF(s, local, NULL), NULL), SK_OK);
    assert_int_equal(sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, model, s->joint_count, NULL), SK_OK);
    for (int l = 0; l < 2; l++) {
        sk_transform ta;
        assert_true(sk_mat4_decompose(&model[r->legs[l].ankle], &ta));
        axis[l] = sk_quat_rotate(sk_quat_inverse(ta.r), sk_vec3_make(1, 0, 0));
    }
    free(local);
    free(model);
}

static sk_clip *tilted(const rig *r, const sk_clip *c, const double angle[2]) {
    sk_vec3 axis[2];
    rest_side_axes(r, axis);
    sk_quat q[2];
    for (int l = 0; l < 2; l++) q[l] = sk_quat_from_axis_angle(axis[l], (float)angle[l]);
    int32_t joints[2] = {r->legs[0].ankle, r->legs[1].ankle};
    return sk_test_clip_turned(c, joints, q, 2);
}

static void test_flat_clips_untouched(void **state) {
    (void)state;
    rig r;
    rig_make(&r);
    static const char *const names[] = {"walk", "run", "strafe_left", "strafe_right"};
    for (size_t i = 0; i < 4; i++) {
        const sk_clip *c = clip_named(r.a, names[i]);
        sk_clip *out = NULL;
        sk_foot_level_stats st;
        sk_error err = {0};
        if (sk_foot_level(r.a->skeleton, c, r.legs, 2, NULL, NULL, &out, &st, &err) != SK_OK)
            fail_msg("%s: %s", names[i], err.message);
        for (int l = 0; l < 2; l++) {
            uint32_t n = 0;
            double ref = planted_pitch(&r, c, c, (uint32_t)l, &n);
            assert_true(st.samples[l] > 0 && st.contacts[l] > 0);
            assert_true(fabs(st.tilt[l]) < 0.2 * DEG);   /* a flat foot */
            if (!(fabs(st.pitch[l] - ref) < 0.5 * DEG)) fail_msg("%s leg %d: pitch %g, here %g (deg)", names[i], l, st.pitch[l] / DEG, ref / DEG);
            assert_false(st.applied[l]);
        }
        assert_true(pose_diff(&r, c, out) < 1e-6);
        sk_clip_destroy(out);
    }
    sk_asset_destroy(r.a);
}

static void test_known_tilt_taken_out(void **state) {
    (void)state;
    rig r;
    rig_make(&r);
    const sk_clip *walk = clip_named(r.a, "walk");
    const double turn[2] = {-12 * DEG, 8 * DEG}; /* left toe up 12 degrees, right toe down 8 */
    sk_clip *tw = tilted(&r, walk, turn);
    uint32_t checked = 0;
    for (int l = 0; l < 2; l++) {
        uint32_t n = 0;
        double before = planted_pitch(&r, walk, tw, (uint32_t)l, &n);
        assert_true(fabs(before + turn[l]) < 1.0 * DEG); /* the tilt built here is there */
    }
    sk_clip *out = NULL;
    sk_foot_level_stats st;
    assert_int_equal(sk_foot_level(r.a->skeleton, tw, r.legs, 2, NULL, NULL, &out, &st, NULL), SK_OK);
    for (int l = 0; l < 2; l++) {
        assert_true(st.applied[l]);
        assert_true(fabs(st.tilt[l] + turn[l]) < 0.5 * DEG);
        uint32_t n = 0;
        double orig = planted_pitch(&r, walk, walk, (uint32_t)l, &n);
        double after = planted_pitch(&r, walk, out, (uint32_t)l, &n);
        assert_true(fabs(after - orig) < 0.3 * DEG);
        checked += n;
    }
    assert_true(checked >= 18);
    /* stats only */
    sk_foot_level_stats s2;
    assert_int_equal(sk_foot_level(r.a->skeleton, tw, r.legs, 2, NULL, NULL, NULL, &s2, NULL), SK_OK);
    assert_true(fabs(s2.tilt[0] - st.tilt[0]) < 1e-6 && s2.applied[0]);
    /* beyond max_angle: left as it is */
    sk_foot_level_options o = {.max_angle = 5 * DEG};
    sk_clip *kept = NULL;
    assert_int_equal(sk_foot_level(r.a->skeleton, tw, r.legs, 2, &o, NULL, &kept, &s2, NULL), SK_OK);
    assert_false(s2.applied[0]);
    assert_false(s2.applied[1]);
    assert_true(pose_diff(&r, tw, kept) < 1e-6);
    sk_clip_destroy(kept);
    sk_clip_destroy(out);
    sk_clip_destroy(tw);
    sk_asset_destroy(r.a);
}

/* Contacts given by the caller (sk_foot_level_options.contacts): the
 * walk's own contacts give the same tilts, to the bit, as finding them; the
 * untilted walk's contacts (as a retargeted clip takes its source's) find
 * the built tilt on the tilted walk; a leg without contacts is left; the
 * same windows moved half a cycle, into the swing, measure something else
 * (what is given is what is measured); bad contacts are refused. */
static void test_given_contacts(void **state) {
    (void)state;
    rig r;
    rig_make(&r);
    const sk_skeleton *s = r.a->skeleton;
    const sk_clip *walk = clip_named(r.a, "walk");
    const double turn[2] = {-12 * DEG, 8 * DEG};
    sk_clip *tw = tilted(&r, walk, turn);
    sk_contact c[64];
    uint32_t nc = 0;
    assert_int_equal(sk_contacts_find(s, walk, r.legs, 2, NULL, NULL, c, 64, &nc, NULL), SK_OK);
    assert_true(nc >= 2);
    sk_foot_level_stats found, given;
    assert_int_equal(sk_foot_level(s, tw, r.legs, 2, NULL, NULL, NULL, &found, NULL), SK_OK);
    sk_contact own[64];
    uint32_t no = 0;
    assert_int_equal(sk_contacts_find(s, tw, r.legs, 2, NULL, NULL, own, 64, &no, NULL), SK_OK);
    sk_foot_level_options o = {.contacts = own, .contact_count = no};
    assert_int_equal(sk_foot_level(s, tw, r.legs, 2, &o, NULL, NULL, &given, NULL), SK_OK);
    assert_memory_equal(&found, &given, sizeof found);
    o = (sk_foot_level_options){.contacts = c, .contact_count = nc};
    assert_int_equal(sk_foot_level(s, tw, r.legs, 2, &o, NULL, NULL, &given, NULL), SK_OK);
    for (int l = 0; l < 2; l++) {
        assert_true(given.applied[l] && given.samples[l] > 0);
        assert_true(fabs(given.tilt[l] + turn[l]) < 0.5 * DEG);
    }
    /* the left leg's only */
    sk_contact left[64];
    uint32_t nl = 0;
    for (uint32_t k = 0; k < nc; k++)
        if (c[k].leg == 0) left[nl++] = c[k];
    o = (sk_foot_level_options){.contacts = left, .contact_count = nl};
    assert_int_equal(sk_foot_level(s, tw, r.legs, 2, &o, NULL, NULL, &given, NULL), SK_OK);
    assert_true(given.applied[0] && !given.applied[1] && given.samples[1] == 0);
    /* half a cycle later: the swing */
    double half = 0.5 * sk_clip_duration(walk);
    sk_contact swing[64];
    for (uint32_t k = 0; k < nc; k++) {
        swing[k] = c[k];
        double a = fmod(c[k].start + half, 2 * half), b = a + (c[k].end - c[k].start);
        swing[k].start = a, swing[k].end = fmin(b, 2 * half);
    }
    o = (sk_foot_level_options){.contacts = swing, .contact_count = nc};
    assert_int_equal(sk_foot_level(s, tw, r.legs, 2, &o, NULL, NULL, &given, NULL), SK_OK);
    printf("  tilts over the walk's contacts %.2f / %.2f degrees, over the swing %.2f / %.2f\n", found.tilt[0] / DEG,
           found.tilt[1] / DEG, given.tilt[0] / DEG, given.tilt[1] / DEG);
    assert_true(fabs(given.tilt[0] - found.tilt[0]) > 2 * DEG || fabs(given.tilt[1] - found.tilt[1]) > 2 * DEG);
    /* bad contacts */
    sk_error err = {0};
    sk_contact bad = c[0];
    bad.leg = 2;
    o = (sk_foot_level_options){.contacts = &bad, .contact_count = 1};
    assert_int_equal(sk_foot_level(s, tw, r.legs, 2, &o, NULL, NULL, &given, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "contacts[0]"));
    bad = c[0], bad.start = NAN;
    assert_int_equal(sk_foot_level(s, tw, r.legs, 2, &o, NULL, NULL, &given, &err), SK_ERR_INVALID_ARGUMENT);
    bad = c[0], bad.start = bad.end + 1;
    assert_int_equal(sk_foot_level(s, tw, r.legs, 2, &o, NULL, NULL, &given, &err), SK_ERR_INVALID_ARGUMENT);
    /* none given: nothing measured, nothing turned */
    o = (sk_foot_level_options){.contacts = c, .contact_count = 0};
    sk_clip *out = NULL;
    assert_int_equal(sk_foot_level(s, tw, r.legs, 2, &o, NULL, &out, &given, NULL), SK_OK);
    assert_true(!given.applied[0] && !given.applied[1]);
    assert_true(pose_diff(&r, tw, out) < 1e-6);
    sk_clip_destroy(out);
    sk_clip_destroy(tw);
    sk_asset_destroy(r.a);
}

/* The walk played three times over (sampled at 120 Hz), each ankle's
 * rotation turned by a different angle in each cycle: -12, +8 and 0
 * degrees about the foot's side axis (a capture whose feet stand at other
 * angles in different contacts). With one tilt per leg the planted feet
 * stay off flat in two cycles of three; with per_contact each contact's
 * pitch is the walk's own again. Contacts are the untilted clip's (given,
 * as a retargeted clip takes its source's). */
static sk_clip *three_cycles(const rig *r, const sk_clip *walk, const double turn[3]) {
    const sk_skeleton *s = r->a->skeleton;
    double d = sk_clip_duration(walk);
    uint32_t n = (uint32_t)floor(3 * d * 120) + 1, J = s->joint_count;
    float *times = calloc(n, sizeof *times), *tv = calloc((size_t)n * J * 3, sizeof(float)),
          *rv = calloc((size_t)n * J * 4, sizeof(float));
    sk_transform *local = calloc(J, sizeof *local);
    assert_true(times && tv && rv && local);
    sk_vec3 axis[2];
    rest_side_axes(r, axis);
    for (uint32_t i = 0; i < n; i++) {
        double t = fmin(i / 120.0, 3 * d * (1 - 1e-9));
        times[i] = (float)(i / 120.0);
        int cyc = (int)(t / d);
        assert_int_equal(sk_clip_sample(walk, s, fmod(t, d), SK_LOOP_CLAMP, SK_POSE_OF(s, local, NULL), NULL), SK_OK);
        for (int l = 0; l < 2; l++)
            local[r->legs[l].ankle].r = sk_quat_mul(local[r->legs[l].ankle].r,
                                                    sk_quat_from_axis_angle(axis[l], (float)turn[cyc > 2 ? 2 : cyc]));
        for (uint32_t j = 0; j < J; j++) {
            memcpy(&tv[((size_t)j * n + i) * 3], &local[j].t, 3 * sizeof(float));
            memcpy(&rv[((size_t)j * n + i) * 4], &local[j].r, 4 * sizeof(float));
        }
    }
    sk_clip_builder *b = NULL;
    assert_int_equal(sk_clip_builder_create("three", NULL, &b, NULL), SK_OK);
    for (uint32_t j = 0; j < J; j++) {
        sk_track_desc dt = {j, SK_PATH_TRANSLATION, SK_INTERP_LINEAR, n, times, &tv[(size_t)j * n * 3], 3};
        sk_track_desc dr = {j, SK_PATH_ROTATION, SK_INTERP_LINEAR, n, times, &rv[(size_t)j * n * 4], 4};
        assert_int_equal(sk_clip_builder_add_track(b, &dt, NULL), SK_OK);
        assert_int_equal(sk_clip_builder_add_track(b, &dr, NULL), SK_OK);
    }
    sk_clip *out = NULL;
    assert_int_equal(sk_clip_builder_finish(b, &out, NULL), SK_OK);
    free(times), free(tv), free(rv), free(local);
    return out;
}

static void test_per_contact(void **state) {
    (void)state;
    rig r;
    rig_make(&r);
    const sk_skeleton *s = r.a->skeleton;
    const sk_clip *walk = clip_named(r.a, "walk");
    const double none[3] = {0, 0, 0}, turn[3] = {-12 * DEG, 8 * DEG, 0};
    sk_clip *flat = three_cycles(&r, walk, none), *tw = three_cycles(&r, walk, turn);
    sk_contact c[64];
    uint32_t nc = 0;
    assert_int_equal(sk_contacts_find(s, flat, r.legs, 2, NULL, NULL, c, 64, &nc, NULL), SK_OK);
    sk_clip *one = NULL, *each = NULL;
    sk_foot_level_options o = {.contacts = c, .contact_count = nc};
    assert_int_equal(sk_foot_level(s, tw, r.legs, 2, &o, NULL, &one, NULL, NULL), SK_OK);
    o.per_contact = true;
    assert_int_equal(sk_foot_level(s, tw, r.legs, 2, &o, NULL, &each, NULL, NULL), SK_OK);
    /* each contact's middle half: its median pitch against the untilted clip's */
    double worst_one = 0, worst_each = 0;
    uint32_t checked = 0;
    for (uint32_t k = 0; k < nc; k++) {
        double mid = 0.5 * (c[k].start + c[k].end), half = 0.25 * (c[k].end - c[k].start), v[3][9];
        const sk_clip *cl[3] = {flat, one, each};
        for (int i = 0; i < 3; i++) {
            for (int q = 0; q < 9; q++) v[i][q] = pitch_at(&r, cl[i], c[k].leg, mid - half + half * q / 4.0);
            for (int a = 1; a < 9; a++) /* insertion sort */
                for (int b = a; b > 0 && v[i][b - 1] > v[i][b]; b--) {
                    double t = v[i][b];
                    v[i][b] = v[i][b - 1], v[i][b - 1] = t;
                }
        }
        if (c[k].end - c[k].start < 0.25) continue; /* a short contact takes the leg's tilt (footlevel.h) */
        worst_one = fmax(worst_one, fabs(v[1][4] - v[0][4]));
        worst_each = fmax(worst_each, fabs(v[2][4] - v[0][4]));
        checked++;
    }
    printf("  %u contacts of 0.25 s or more over three cycles tilted -12 / +8 / 0 degrees: off the walk's pitch by at most %.2f "
           "degrees with one tilt per leg, %.2f per contact\n", checked, worst_one / DEG, worst_each / DEG);
    assert_true(checked >= 5); /* 6: each leg's stance in each cycle */
    assert_true(worst_one > 5 * DEG); /* one tilt cannot fit the three cycles */
    assert_true(worst_each < 0.5 * DEG);
    /* between contacts the correction moves smoothly: no ankle turns by more than 2 degrees
     * between two 120 Hz samples more than the tilted clip's own does */
    double jump = 0, jump_in = 0, d = sk_clip_duration(tw);
    sk_transform *a = calloc(s->joint_count, sizeof *a), *b2 = calloc(s->joint_count, sizeof *b2);
    for (int pass = 0; pass < 2; pass++)
        for (double t = 0; t + 1 / 120.0 <= d; t += 1 / 120.0) {
            const sk_clip *cl = pass ? each : tw;
            sk_clip_sample(cl, s, t, SK_LOOP_CLAMP, SK_POSE_OF(s, a, NULL), NULL);
            sk_clip_sample(cl, s, t + 1 / 120.0, SK_LOOP_CLAMP, SK_POSE_OF(s, b2, NULL), NULL);
            for (int l = 0; l < 2; l++) {
                double g = sk_test_quat_angle(a[r.legs[l].ankle].r, b2[r.legs[l].ankle].r);
                if (pass) jump = fmax(jump, g);
                else jump_in = fmax(jump_in, g);
            }
        }
    free(a), free(b2);
    printf("  largest ankle turn between two 120 Hz samples: %.2f degrees levelled per contact, %.2f as tilted\n",
           jump / DEG, jump_in / DEG);
    assert_true(jump <= jump_in + 2 * DEG);
    sk_clip_destroy(one);
    sk_clip_destroy(each);
    sk_clip_destroy(flat);
    sk_clip_destroy(tw);
    sk_asset_destroy(r.a);
}

static void test_bad_input(void **state) {
    (void)state;
    rig r;
    rig_make(&r);
    const sk_skeleton *s = r.a->skeleton;
    const sk_clip *walk = clip_named(r.a, "walk");
    sk_clip *out = NULL;
    sk_error err = {0};
    assert_int_equal(sk_foot_level(NULL, walk, r.legs, 2, NULL, NULL, &out, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_foot_level(s, NULL, r.legs, 2, NULL, NULL, &out, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_foot_level(s, walk, r.legs, 0, NULL, NULL, &out, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_foot_level(s, walk, r.legs, 17, NULL, NULL, &out, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    sk_foot_level_options o = {.max_angle = 2.0f};
    assert_int_equal(sk_foot_level(s, walk, r.legs, 2, &o, NULL, &out, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "max_angle"));
    o = (sk_foot_level_options){.middle = 1.5f};
    assert_int_equal(sk_foot_level(s, walk, r.legs, 2, &o, NULL, &out, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    float flat[2] = {NAN, 0};
    o = (sk_foot_level_options){.flat_pitch = flat};
    assert_int_equal(sk_foot_level(s, walk, r.legs, 2, &o, NULL, &out, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    sk_leg_desc bad[2] = {r.legs[0], r.legs[1]};
    bad[0].ankle = 100000;
    assert_int_not_equal(sk_foot_level(s, walk, bad, 2, NULL, NULL, &out, NULL, &err), SK_OK);
    assert_null(out);
    sk_asset_destroy(r.a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flat_clips_untouched),
        cmocka_unit_test(test_known_tilt_taken_out),
        cmocka_unit_test(test_given_contacts),
        cmocka_unit_test(test_per_contact),
        cmocka_unit_test(test_bad_input),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
