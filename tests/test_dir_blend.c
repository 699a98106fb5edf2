/* The recommended clip set of seed 002 §4 (forward walk and run, backward
 * walk, left and right strafe) in one motion group (locomotion/sync.h), on
 * the mannequin: the polar gradient band weights over the character-space
 * velocity. At each clip's own velocity that clip has all the weight; half
 * way (in angle and in speed) between two clips next to each other on the
 * circle of directions those two share it; the weights sum to 1 and change
 * continuously over circles and rays of velocities. The clips' velocities
 * are checked against their construction first (forward +Z, backward -Z,
 * left +X, right -X: src/content/mannequin_dir.c). */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define PI 3.14159265358979323846
#define NM 5

static const char *const names[NM] = {"walk", "run", "walk_back", "strafe_left", "strafe_right"};
/* unit directions the clips are built to move in (x, z) */
static const float dirs[NM][2] = {{0, 1}, {0, 1}, {0, -1}, {1, 0}, {-1, 0}};

typedef struct fixture {
    sk_asset *asset;
    sk_motion_analysis *an[NM];
    sk_motion_group *group;
} fixture;

static void fixture_make(fixture *f) {
    sk_error err = {0};
    assert_int_equal(sk_mannequin_create(NULL, NULL, &f->asset, &err), SK_OK);
    sk_leg_desc legs[2];
    assert_int_equal(sk_legs_find(f->asset->skeleton, legs, 2), 2);
    for (int i = 0; i < NM; i++) {
        int32_t ci = sk_asset_find_clip(f->asset, names[i]);
        assert_true(ci >= 0);
        if (sk_motion_analyze(f->asset->skeleton, f->asset->clips[ci], legs, 2, NULL, NULL, &f->an[i], &err) != SK_OK)
            fail_msg("%s: %s", names[i], err.message);
    }
    if (sk_motion_group_create((const sk_motion_analysis *const *)f->an, NM, NULL, &f->group, &err) != SK_OK)
        fail_msg("%s", err.message);
}

static void fixture_free(fixture *f) {
    sk_motion_group_destroy(f->group);
    for (int i = 0; i < NM; i++) sk_motion_analysis_destroy(f->an[i]);
    sk_asset_destroy(f->asset);
}

static void eval(const fixture *f, float x, float z, float *w) {
    sk_error err = {0};
    if (sk_motion_group_evaluate(f->group, sk_vec3_make(x, 0, z), w, NM, NULL, &err) != SK_OK)
        fail_msg("%s", err.message);
}

static void test_own_velocities(void **state) {
    (void)state;
    fixture f;
    fixture_make(&f);
    for (int i = 0; i < NM; i++) {
        sk_vec3 v = sk_motion_group_velocity(f.group, (uint32_t)i);
        float sp = sqrtf(v.x * v.x + v.z * v.z);
        double ang = acos(fmin(1.0, (v.x * dirs[i][0] + v.z * dirs[i][1]) / sp)) * 180 / PI;
        float w[NM];
        eval(&f, v.x, v.z, w);
        printf("%-12s velocity (%.3f, %.3f) m/s, %.1f degrees off its direction; weights", names[i], v.x, v.z, ang);
        for (int k = 0; k < NM; k++) printf(" %.4f", w[k]);
        printf("\n");
        assert_true(ang < 2.0);
        assert_true(w[i] > 1.0f - 1e-5f);
        for (int k = 0; k < NM; k++)
            if (k != i) assert_true(w[k] < 1e-5f);
    }
    fixture_free(&f);
}

/* Half way between neighbours on the circle of directions: forward walk
 * and left strafe, left strafe and backward walk, backward walk and right
 * strafe, right strafe and forward walk. */
static void test_diagonals(void **state) {
    (void)state;
    fixture f;
    fixture_make(&f);
    static const int ring[4] = {0, 3, 2, 4};
    for (int r = 0; r < 4; r++) {
        int a = ring[r], b = ring[(r + 1) % 4];
        sk_vec3 va = sk_motion_group_velocity(f.group, (uint32_t)a), vb = sk_motion_group_velocity(f.group, (uint32_t)b);
        double aa = atan2(va.x, va.z), ab = atan2(vb.x, vb.z);
        double d = ab - aa;
        d -= 2 * PI * floor(d / (2 * PI) + 0.5);
        double ang = aa + 0.5 * d;
        double sp = 0.5 * (sqrt(va.x * va.x + va.z * va.z) + sqrt(vb.x * vb.x + vb.z * vb.z));
        float w[NM];
        eval(&f, (float)(sp * sin(ang)), (float)(sp * cos(ang)), w);
        printf("between %-12s and %-12s (%.0f degrees, %.3f m/s): %.4f + %.4f, others %.4f\n", names[a], names[b],
               ang * 180 / PI, sp, w[a], w[b], 1 - w[a] - w[b]);
        assert_true(w[a] > 0.25f && w[b] > 0.25f);
        assert_true(w[a] + w[b] > 0.99f);
    }
    fixture_free(&f);
}

/* Sum 1 and no jumps: circles at several speeds sampled every 0.05 degrees,
 * rays every 15 degrees sampled every 1 mm/s; the largest change of any
 * weight between neighbouring samples. */
static void test_continuity(void **state) {
    (void)state;
    fixture f;
    fixture_make(&f);
    double worst_sum = 0, worst_step_circle = 0, worst_step_ray = 0;
    uint32_t n = 0;
    static const float speeds[] = {0.3f, 0.85f, 1.1f, 1.4f, 2.0f, 3.5f};
    for (size_t s = 0; s < sizeof speeds / sizeof speeds[0]; s++) {
        float prev[NM] = {0};
        for (int k = 0; k <= 7200; k++) {
            double a = 2 * PI * k / 7200.0;
            float w[NM];
            eval(&f, speeds[s] * (float)sin(a), speeds[s] * (float)cos(a), w);
            double sum = 0;
            for (int i = 0; i < NM; i++) {
                assert_true(w[i] >= 0 && w[i] <= 1.0f + 1e-6f);
                sum += w[i];
                if (k > 0 && fabs(w[i] - prev[i]) > worst_step_circle) worst_step_circle = fabs(w[i] - prev[i]);
                prev[i] = w[i];
            }
            if (fabs(sum - 1) > worst_sum) worst_sum = fabs(sum - 1);
            n++;
        }
    }
    for (int r = 0; r < 24; r++) {
        double a = 2 * PI * r / 24.0;
        float prev[NM] = {0};
        for (int k = 0; k <= 4000; k++) {
            float sp = 0.2f + 0.001f * (float)k;
            float w[NM];
            eval(&f, sp * (float)sin(a), sp * (float)cos(a), w);
            double sum = 0;
            for (int i = 0; i < NM; i++) {
                sum += w[i];
                if (k > 0 && fabs(w[i] - prev[i]) > worst_step_ray) worst_step_ray = fabs(w[i] - prev[i]);
                prev[i] = w[i];
            }
            if (fabs(sum - 1) > worst_sum) worst_sum = fabs(sum - 1);
            n++;
        }
    }
    printf("%u velocities: |sum - 1| <= %.2e; largest weight change per 0.05 degrees %.4f, per 1 mm/s %.4f\n", n,
           worst_sum, worst_step_circle, worst_step_ray);
    assert_int_equal(n, 6 * 7201 + 24 * 4001);
    assert_true(worst_sum < 1e-5);
    assert_true(worst_step_circle < 0.01);
    assert_true(worst_step_ray < 0.01);
    fixture_free(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_own_velocities),
        cmocka_unit_test(test_diagonals),
        cmocka_unit_test(test_continuity),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
