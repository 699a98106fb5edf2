/* Unit tests: math, skeleton, clip building and sampling (every interpolation
 * mode against closed-form values), loop modes, cursors, poses. */
#include "support.h"

#include "core/internal.h" /* the palette kernel levels */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEAR(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

static void quat_near(sk_quat a, sk_quat b, double eps) {
    double d1 = fabs(a.x - b.x) + fabs(a.y - b.y) + fabs(a.z - b.z) + fabs(a.w - b.w);
    double d2 = fabs(a.x + b.x) + fabs(a.y + b.y) + fabs(a.z + b.z) + fabs(a.w + b.w);
    assert_true(fmin(d1, d2) <= eps);
}

/* ---- math ---- */
static void test_math_quat(void **st) {
    (void)st;
    const float pi = 3.14159265358979f;
    sk_quat q = sk_quat_from_axis_angle(sk_vec3_make(0, 0, 1), pi / 2);
    sk_vec3 v = sk_quat_rotate(q, sk_vec3_make(1, 0, 0));
    NEAR(v.x, 0, 1e-6); NEAR(v.y, 1, 1e-6); NEAR(v.z, 0, 1e-6);
    /* composition: 90 about Z twice = 180 about Z */
    sk_quat q2 = sk_quat_mul(q, q);
    quat_near(q2, sk_quat_from_axis_angle(sk_vec3_make(0, 0, 1), pi), 1e-6);
    /* mul order: (a*b) rotates by b first */
    sk_quat qx = sk_quat_from_axis_angle(sk_vec3_make(1, 0, 0), pi / 2);
    sk_vec3 r1 = sk_quat_rotate(sk_quat_mul(q, qx), sk_vec3_make(0, 1, 0));
    sk_vec3 r2 = sk_quat_rotate(q, sk_quat_rotate(qx, sk_vec3_make(0, 1, 0)));
    NEAR(r1.x, r2.x, 1e-6); NEAR(r1.y, r2.y, 1e-6); NEAR(r1.z, r2.z, 1e-6);
    /* inverse */
    quat_near(sk_quat_mul(q, sk_quat_inverse(q)), sk_quat_identity(), 1e-6);
    /* slerp halfway between identity and 90 degrees about Y = 45 degrees */
    sk_quat a = sk_quat_identity(), b = sk_quat_from_axis_angle(sk_vec3_make(0, 1, 0), pi / 2);
    quat_near(sk_quat_slerp(a, b, 0.5f), sk_quat_from_axis_angle(sk_vec3_make(0, 1, 0), pi / 4), 1e-6);
    /* constant angular velocity: at t = 0.25 the angle is 22.5 degrees (nlerp differs) */
    quat_near(sk_quat_slerp(a, b, 0.25f), sk_quat_from_axis_angle(sk_vec3_make(0, 1, 0), pi / 8), 1e-6);
    /* shortest arc: -b is the same rotation; slerp toward -b must equal slerp toward b */
    sk_quat nb = sk_quat_make(-b.x, -b.y, -b.z, -b.w);
    quat_near(sk_quat_slerp(a, nb, 0.3f), sk_quat_slerp(a, b, 0.3f), 1e-6);
    quat_near(sk_quat_nlerp(a, nb, 0.5f), sk_quat_from_axis_angle(sk_vec3_make(0, 1, 0), pi / 4), 1e-6);
    /* endpoints are exact */
    quat_near(sk_quat_slerp(a, b, 0.0f), a, 1e-7);
    quat_near(sk_quat_slerp(a, b, 1.0f), b, 1e-6);
    /* near-identical quaternions do not blow up */
    sk_quat c = sk_quat_from_axis_angle(sk_vec3_make(1, 0, 0), 1e-5f);
    sk_quat m = sk_quat_slerp(a, c, 0.5f);
    assert_true(fabsf(sk_quat_length(m) - 1.0f) < 1e-6f);
    /* normalising a zero quaternion gives identity, not NaN */
    quat_near(sk_quat_normalize(sk_quat_make(0, 0, 0, 0)), sk_quat_identity(), 0);
}

static void test_math_mat4(void **st) {
    (void)st;
    sk_transform x = {{1, 2, 3}, {0, 0, 0, 1}, {2, 3, 4}};
    x.r = sk_quat_normalize(sk_quat_make(0.1f, 0.7f, -0.2f, 0.5f));
    sk_mat4 m = sk_mat4_from_transform(&x);
    /* T*R*S applied to a point = t + R(s*p) */
    sk_vec3 p = sk_vec3_make(0.5f, -1, 2);
    sk_vec3 e = sk_vec3_add(x.t, sk_quat_rotate(x.r, sk_vec3_mul(x.s, p)));
    sk_vec3 g = sk_mat4_transform_point(&m, p);
    NEAR(g.x, e.x, 1e-5); NEAR(g.y, e.y, 1e-5); NEAR(g.z, e.z, 1e-5);
    /* translation in m[12..14] (column-major) */
    NEAR(m.m[12], 1, 0); NEAR(m.m[13], 2, 0); NEAR(m.m[14], 3, 0);
    /* decompose round trip */
    sk_transform d;
    assert_true(sk_mat4_decompose(&m, &d));
    NEAR(d.t.x, 1, 1e-6); NEAR(d.s.x, 2, 1e-5); NEAR(d.s.y, 3, 1e-5); NEAR(d.s.z, 4, 1e-5);
    quat_near(d.r, x.r, 1e-5);
    /* inverses */
    sk_mat4 inv, inva;
    assert_true(sk_mat4_invert(&m, &inv));
    assert_true(sk_mat4_invert_affine(&m, &inva));
    sk_mat4 id = sk_mat4_mul(&m, &inv), id2 = sk_mat4_mul(&inva, &m);
    for (int i = 0; i < 16; i++) {
        NEAR(id.m[i], (i % 5 == 0) ? 1 : 0, 1e-5);
        NEAR(id2.m[i], (i % 5 == 0) ? 1 : 0, 1e-5);
    }
    /* singular matrix */
    sk_mat4 z = {{0}};
    assert_false(sk_mat4_invert(&z, &inv));
    assert_false(sk_mat4_decompose(&z, &d));
    /* reflection goes to scale.x */
    sk_transform rx = {{0, 0, 0}, {0, 0, 0, 1}, {-1, 1, 1}};
    sk_mat4 mr = sk_mat4_from_transform(&rx);
    assert_true(sk_mat4_decompose(&mr, &d));
    sk_mat4 back = sk_mat4_from_transform(&d);
    for (int i = 0; i < 16; i++) NEAR(back.m[i], mr.m[i], 1e-6);
    /* decompose of a matrix with each of the four quaternion branches */
    for (int k = 0; k < 4; k++) {
        sk_vec3 axes[4] = {{0, 1, 0}, {1, 0, 0}, {0, 1, 0.01f}, {0, 0, 1}};
        float ang[4] = {0.3f, 3.0f, 3.0f, 3.0f};
        sk_transform y = {{0, 0, 0}, sk_quat_from_axis_angle(axes[k], ang[k]), {1, 1, 1}};
        sk_mat4 my = sk_mat4_from_transform(&y);
        assert_true(sk_mat4_decompose(&my, &d));
        quat_near(d.r, y.r, 1e-5);
    }
}

/* The trig-free slerp against the closed form on a grid of angles and t. */
static void test_slerp_accuracy(void **st) {
    (void)st;
    double worst = 0;
    sk_vec3 axis = sk_vec3_normalize(sk_vec3_make(0.3f, -0.8f, 0.5f));
    sk_quat a = sk_quat_normalize(sk_quat_make(0.1f, 0.2f, -0.3f, 0.9f));
    for (int i = 0; i <= 200; i++) {
        double ang = 3.13 * i / 200.0; /* rotation angle 0..179.3 degrees (at 180 both arcs are shortest) */
        sk_quat r = sk_quat_from_axis_angle(axis, (float)ang);
        sk_quat b = sk_quat_mul(r, a);
        for (int k = 0; k <= 20; k++) {
            double t = k / 20.0;
            sk_quat e = sk_quat_mul(sk_quat_from_axis_angle(axis, (float)(ang * t)), a);
            sk_quat g = sk_quat_slerp(a, b, (float)t);
            double d = fmax(fmax(fabs(g.x - e.x), fabs(g.y - e.y)), fmax(fabs(g.z - e.z), fabs(g.w - e.w)));
            double dn = fmax(fmax(fabs(g.x + e.x), fabs(g.y + e.y)), fmax(fabs(g.z + e.z), fabs(g.w + e.w)));
            worst = fmax(worst, fmin(d, dn));
        }
    }
    printf("slerp: worst error against the closed form %.3g\n", worst);
    assert_true(worst < 1e-6);
}

/* Beyond t in [0, 1] slerp extrapolates along the arc: against the closed
 * form in double (the rotation from a to b as stored, its angle times t, on
 * a), at t up to 1e6 and on arcs down to 1e-7 rad; a NaN t counts as 0. The
 * series alone overflowed to a NaN at t = 2048 (a fuzzing find). */
static void test_slerp_extrapolates(void **st) {
    (void)st;
    sk_vec3 axis = sk_vec3_normalize(sk_vec3_make(0.3f, -0.8f, 0.5f));
    sk_quat a = sk_quat_normalize(sk_quat_make(0.1f, 0.2f, -0.3f, 0.9f));
    const double angs[] = {1e-7, 1e-3, 0.02, 0.5, 1.5, 3.0};
    const double ts[] = {-1e6, -2048, -3.5, -0.5, -1e-3, 1.001, 1.5, 2.0, 7.25, 2048, 1e6};
    int checked = 0;
    for (size_t i = 0; i < sizeof angs / sizeof *angs; i++) {
        sk_quat b = sk_quat_mul(sk_quat_from_axis_angle(axis, (float)angs[i]), a);
        /* a and b as stored, normalised in double; r = b conj(a) on the short side */
        double la = sqrt((double)a.x * a.x + (double)a.y * a.y + (double)a.z * a.z + (double)a.w * a.w);
        double lb = sqrt((double)b.x * b.x + (double)b.y * b.y + (double)b.z * b.z + (double)b.w * b.w);
        double ax = a.x / la, ay = a.y / la, az = a.z / la, aw = a.w / la;
        double bx = b.x / lb, by = b.y / lb, bz = b.z / lb, bw = b.w / lb;
        double rw = bw * aw + bx * ax + by * ay + bz * az;
        double rx = aw * bx - bw * ax - (by * az - bz * ay), ry = aw * by - bw * ay - (bz * ax - bx * az),
               rz = aw * bz - bw * az - (bx * ay - by * ax);
        if (rw < 0) rw = -rw, rx = -rx, ry = -ry, rz = -rz;
        double vl = sqrt(rx * rx + ry * ry + rz * rz), alpha = 2.0 * atan2(vl, rw);
        for (size_t k = 0; k < sizeof ts / sizeof *ts; k++) {
            double t = ts[k], h = 0.5 * alpha * t, c = cos(h), sn = vl > 0 ? sin(h) / vl : 0;
            double qw = c, qx = rx * sn, qy = ry * sn, qz = rz * sn; /* the rotation by alpha t */
            double ew = qw * aw - qx * ax - qy * ay - qz * az, ex = qw * ax + qx * aw + qy * az - qz * ay,
                   ey = qw * ay - qx * az + qy * aw + qz * ax, ez = qw * az + qx * ay - qy * ax + qz * aw;
            sk_quat g = sk_quat_slerp(a, b, (float)t);
            assert_true(isfinite(g.x) && isfinite(g.y) && isfinite(g.z) && isfinite(g.w));
            assert_float_equal(sk_quat_length(g), 1.0f, 1e-6);
            double d = fmax(fmax(fabs(g.x - ex), fabs(g.y - ey)), fmax(fabs(g.z - ez), fabs(g.w - ew)));
            double dn = fmax(fmax(fabs(g.x + ex), fabs(g.y + ey)), fmax(fabs(g.z + ez), fabs(g.w + ew)));
            double tol = 1e-6 + 1e-12 * fabs(alpha * t);
            if (fmin(d, dn) > tol) fail_msg("slerp at angle %g, t %g: off by %g (tolerance %g)", angs[i], t, fmin(d, dn), tol);
            checked++;
        }
    }
    assert_int_equal(checked, 66);
    sk_quat b = sk_quat_mul(sk_quat_from_axis_angle(axis, 0.5f), a);
    quat_near(sk_quat_slerp(a, b, NAN), a, 1e-6);
}

/* ---- skeleton ---- */
static void test_skeleton(void **st) {
    (void)st;
    int32_t bad[3] = {-1, 2, 0};
    sk_skeleton_desc d = {3, bad, NULL, NULL, NULL, NULL};
    sk_skeleton *s = NULL;
    sk_error err;
    assert_int_equal(sk_skeleton_create(&d, NULL, &s, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "parent"));
    /* sort an out-of-order forest: two roots, children before parents */
    int32_t par[6] = {3, -1, 1, -1, 3, 0};
    uint32_t order[6], scratch[18];
    assert_int_equal(sk_skeleton_sort(6, par, order, scratch, &err), SK_OK);
    uint32_t pos[6];
    for (uint32_t i = 0; i < 6; i++) pos[order[i]] = i;
    for (uint32_t i = 0; i < 6; i++)
        if (par[i] >= 0) assert_true(pos[par[i]] < pos[i]);
    /* a cycle is rejected */
    int32_t cyc[4] = {-1, 2, 3, 1};
    assert_int_equal(sk_skeleton_sort(4, cyc, order, scratch, &err), SK_ERR_INVALID_DATA);
    assert_non_null(strstr(err.message, "cycle"));
    int32_t self[2] = {-1, 1};
    assert_int_equal(sk_skeleton_sort(2, self, order, scratch, &err), SK_ERR_INVALID_DATA);
    int32_t range[2] = {-1, 7};
    assert_int_equal(sk_skeleton_sort(2, range, order, scratch, &err), SK_ERR_INVALID_DATA);
    /* multi-root skeleton with names; local-to-model */
    int32_t p2[4] = {-1, 0, -1, 2};
    const char *names[4] = {"a", "a1", "b", NULL};
    sk_transform rest[4];
    for (int i = 0; i < 4; i++) rest[i] = sk_transform_identity();
    rest[0].t = sk_vec3_make(1, 0, 0);
    rest[1].t = sk_vec3_make(0, 1, 0);
    rest[2].t = sk_vec3_make(0, 0, 5);
    rest[2].r = sk_quat_from_axis_angle(sk_vec3_make(0, 1, 0), 3.14159265f / 2);
    rest[3].t = sk_vec3_make(1, 0, 0);
    sk_skeleton_desc d2 = {4, p2, names, rest, NULL, NULL};
    assert_int_equal(sk_skeleton_create(&d2, NULL, &s, &err), SK_OK);
    assert_int_equal(sk_skeleton_find(s, "b"), 2);
    assert_int_equal(sk_skeleton_find(s, "zz"), -1);
    assert_string_equal(s->names[3], "");
    sk_transform local[4];
    sk_mat4 model[4];
    sk_pose_rest(s, SK_POSE_OF(s, local, NULL), NULL);
    sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, model, (s)->joint_count, NULL);
    NEAR(model[1].m[12], 1, 1e-6); NEAR(model[1].m[13], 1, 1e-6);
    /* joint 3: (1,0,0) rotated 90 deg about Y -> (0,0,-1), plus (0,0,5) */
    NEAR(model[3].m[12], 0, 1e-6); NEAR(model[3].m[14], 4, 1e-6);
    sk_skeleton_destroy(s);
}

static void test_skeleton_large(void **st) {
    (void)st;
    /* 10,000-joint chain: builds, samples to model without recursion. */
    enum { N = 10000 };
    int32_t *par = malloc(N * sizeof *par);
    sk_transform *rest = malloc(N * sizeof *rest);
    for (int i = 0; i < N; i++) {
        par[i] = i - 1;
        rest[i] = sk_transform_identity();
        rest[i].t = sk_vec3_make(0, 0.001f, 0);
    }
    sk_skeleton_desc d = {N, par, NULL, rest, NULL, NULL};
    sk_skeleton *s = NULL;
    assert_int_equal(sk_skeleton_create(&d, NULL, &s, NULL), SK_OK);
    sk_mat4 *model = malloc(N * sizeof *model);
    sk_local_to_model(s, SK_POSE_OF(s, s->rest, NULL), NULL, model, (s)->joint_count, NULL);
    NEAR(model[N - 1].m[13], 10.0, 1e-3);
    uint32_t *order = malloc(N * sizeof *order), *scratch = malloc(3 * N * sizeof *scratch);
    /* reversed order: node i's parent is i+1 */
    for (int i = 0; i < N; i++) par[i] = i + 1 < N ? i + 1 : -1;
    assert_int_equal(sk_skeleton_sort(N, par, order, scratch, NULL), SK_OK);
    assert_int_equal(order[0], N - 1);
    assert_int_equal(order[N - 1], 0);
    free(order); free(scratch); free(model); free(par); free(rest);
    sk_skeleton_destroy(s);
}

/* ---- clips ---- */
static sk_skeleton *one_joint(uint32_t weights) {
    int32_t p[1] = {-1};
    uint32_t wc[1] = {weights};
    sk_skeleton_desc d = {1, p, NULL, NULL, weights ? wc : NULL, NULL};
    sk_skeleton *s = NULL;
    assert_int_equal(sk_skeleton_create(&d, NULL, &s, NULL), SK_OK);
    return s;
}

static sk_clip *make_clip(const sk_track_desc *tracks, int n) {
    sk_clip_builder *b = NULL;
    sk_error err;
    assert_int_equal(sk_clip_builder_create("c", NULL, &b, &err), SK_OK);
    for (int i = 0; i < n; i++) {
        sk_result r = sk_clip_builder_add_track(b, &tracks[i], &err);
        if (r) fprintf(stderr, "%s\n", err.message);
        assert_int_equal(r, SK_OK);
    }
    sk_clip *c = NULL;
    assert_int_equal(sk_clip_builder_finish(b, &c, &err), SK_OK);
    return c;
}

static void test_interp_linear_step(void **st) {
    (void)st;
    sk_skeleton *s = one_joint(0);
    float times[3] = {0.5f, 1.0f, 2.0f};
    float vals[9] = {0, 0, 0, 1, 2, 3, 3, 2, 1};
    sk_track_desc t = {0, SK_PATH_TRANSLATION, SK_INTERP_LINEAR, 3, times, vals, 0};
    sk_clip *c = make_clip(&t, 1);
    NEAR(sk_clip_duration(c), 2.0, 0);
    sk_transform x;
    /* before first key: first value; negative t clamps too */
    sk_clip_sample(c, s, 0.1, SK_LOOP_CLAMP, SK_POSE_OF(s, &x, NULL), NULL);
    NEAR(x.t.x, 0, 0);
    sk_clip_sample(c, s, -3.0, SK_LOOP_CLAMP, SK_POSE_OF(s, &x, NULL), NULL);
    NEAR(x.t.x, 0, 0);
    /* exactly on a key */
    sk_clip_sample(c, s, 1.0, SK_LOOP_CLAMP, SK_POSE_OF(s, &x, NULL), NULL);
    NEAR(x.t.x, 1, 0); NEAR(x.t.y, 2, 0);
    /* between keys: linear */
    sk_clip_sample(c, s, 0.75, SK_LOOP_CLAMP, SK_POSE_OF(s, &x, NULL), NULL);
    NEAR(x.t.x, 0.5, 1e-6); NEAR(x.t.z, 1.5, 1e-6);
    sk_clip_sample(c, s, 1.25, SK_LOOP_CLAMP, SK_POSE_OF(s, &x, NULL), NULL);
    NEAR(x.t.x, 1.5, 1e-6); NEAR(x.t.z, 2.5, 1e-6);
    /* clamp at end gives last key; repeat at t == duration gives t = 0 (first key) */
    sk_clip_sample(c, s, 2.0, SK_LOOP_CLAMP, SK_POSE_OF(s, &x, NULL), NULL);
    NEAR(x.t.x, 3, 0);
    sk_clip_sample(c, s, 2.0, SK_LOOP_REPEAT, SK_POSE_OF(s, &x, NULL), NULL);
    NEAR(x.t.x, 0, 0);
    /* repeat: 2.75 wraps to 0.75; negative -1.25 wraps to 0.75 */
    sk_clip_sample(c, s, 2.75, SK_LOOP_REPEAT, SK_POSE_OF(s, &x, NULL), NULL);
    NEAR(x.t.x, 0.5, 1e-6);
    sk_clip_sample(c, s, -1.25, SK_LOOP_REPEAT, SK_POSE_OF(s, &x, NULL), NULL);
    NEAR(x.t.x, 0.5, 1e-6);
    NEAR(sk_clip_wrap_time(c, -1.25, SK_LOOP_REPEAT), 0.75, 1e-12);
    NEAR(sk_clip_wrap_time(c, 7.0, SK_LOOP_CLAMP), 2.0, 0);
    NEAR(sk_clip_wrap_time(c, NAN, SK_LOOP_REPEAT), 0.0, 0);
    sk_clip_destroy(c);

    /* STEP: holds key k on [t_k, t_k+1) */
    t.interpolation = SK_INTERP_STEP;
    c = make_clip(&t, 1);
    sk_clip_sample(c, s, 0.99, SK_LOOP_CLAMP, SK_POSE_OF(s, &x, NULL), NULL);
    NEAR(x.t.x, 0, 0);
    sk_clip_sample(c, s, 1.0, SK_LOOP_CLAMP, SK_POSE_OF(s, &x, NULL), NULL);
    NEAR(x.t.x, 1, 0);
    sk_clip_sample(c, s, 1.999, SK_LOOP_CLAMP, SK_POSE_OF(s, &x, NULL), NULL);
    NEAR(x.t.x, 1, 0);
    sk_clip_destroy(c);

    /* single key: constant everywhere; zero duration clip wraps to 0 */
    float t1[1] = {0.0f}, v1[3] = {4, 5, 6};
    sk_track_desc one = {0, SK_PATH_SCALE, SK_INTERP_LINEAR, 1, t1, v1, 0};
    c = make_clip(&one, 1);
    NEAR(sk_clip_duration(c), 0, 0);
    sk_clip_sample(c, s, 12.5, SK_LOOP_REPEAT, SK_POSE_OF(s, &x, NULL), NULL);
    NEAR(x.s.y, 5, 0);
    NEAR(x.t.x, 0, 0); /* untracked path keeps rest */
    sk_clip_destroy(c);

    /* keys at equal times: a jump; the later key wins from that time on */
    float te[4] = {0, 1, 1, 2}, ve[12] = {0, 0, 0, 1, 0, 0, 5, 0, 0, 6, 0, 0};
    sk_track_desc eq = {0, SK_PATH_TRANSLATION, SK_INTERP_LINEAR, 4, te, ve, 0};
    c = make_clip(&eq, 1);
    sk_clip_sample(c, s, 0.5, SK_LOOP_CLAMP, SK_POSE_OF(s, &x, NULL), NULL);
    NEAR(x.t.x, 0.5, 1e-6);
    sk_clip_sample(c, s, 1.0, SK_LOOP_CLAMP, SK_POSE_OF(s, &x, NULL), NULL);
    NEAR(x.t.x, 5, 0);
    sk_clip_sample(c, s, 1.5, SK_LOOP_CLAMP, SK_POSE_OF(s, &x, NULL), NULL);
    NEAR(x.t.x, 5.5, 1e-6);
    assert_true(isfinite(x.t.x));
    sk_clip_destroy(c);
    sk_skeleton_destroy(s);
}

static void test_interp_rotation(void **st) {
    (void)st;
    sk_skeleton *s = one_joint(0);
    const float pi = 3.14159265358979f;
    sk_quat q0 = sk_quat_identity(), q1 = sk_quat_from_axis_angle(sk_vec3_make(0, 0, 1), 2.0f);
    /* second key stored with the opposite sign: LINEAR must take the short way */
    float times[2] = {0, 1};
    float vals[8] = {q0.x, q0.y, q0.z, q0.w, -q1.x, -q1.y, -q1.z, -q1.w};
    sk_track_desc t = {0, SK_PATH_ROTATION, SK_INTERP_LINEAR, 2, times, vals, 0};
    sk_clip *c = make_clip(&t, 1);
    sk_transform x;
    sk_clip_sample(c, s, 0.25, SK_LOOP_CLAMP, SK_POSE_OF(s, &x, NULL), NULL);
    quat_near(x.r, sk_quat_from_axis_angle(sk_vec3_make(0, 0, 1), 0.5f), 1e-6);
    sk_clip_destroy(c);
    /* non-unit keys are normalised (glTF requires unit rotations) */
    float nv[8] = {0, 0, 0, 2, 0, 0, 0.7071f * 3, 0.7071f * 3};
    t.values = nv;
    c = make_clip(&t, 1);
    sk_clip_sample(c, s, 1.0, SK_LOOP_CLAMP, SK_POSE_OF(s, &x, NULL), NULL);
    quat_near(x.r, sk_quat_from_axis_angle(sk_vec3_make(0, 0, 1), pi / 2), 1e-6);
    sk_clip_destroy(c);
    /* zero rotation key is rejected */
    float zv[8] = {0, 0, 0, 0, 0, 0, 0, 1};
    t.values = zv;
    sk_clip_builder *b;
    sk_error err;
    sk_clip_builder_create("z", NULL, &b, NULL);
    assert_int_equal(sk_clip_builder_add_track(b, &t, &err), SK_ERR_INVALID_ARGUMENT);
    sk_clip_builder_destroy(b);
    sk_skeleton_destroy(s);
}

static void test_interp_cubic(void **st) {
    (void)st;
    sk_skeleton *s = one_joint(0);
    /* Hermite from glTF Appendix C with td = 2: in/value/out per key. */
    float times[2] = {1, 3};
    float v[18] = {
        9, 9, 9, 1, 0, 0, 0.5f, 1, 0, /* key 0: in (unused), value, out */
        0, -1, 2, 3, 1, 0, 9, 9, 9,  /* key 1: in, value, out (unused) */
    };
    sk_track_desc t = {0, SK_PATH_TRANSLATION, SK_INTERP_CUBICSPLINE, 2, times, v, 0};
    sk_clip *c = make_clip(&t, 1);
    sk_transform x;
    for (int i = 0; i <= 8; i++) {
        double u = i / 8.0, td = 2.0, tt = 1 + u * td;
        double h00 = 2 * u * u * u - 3 * u * u + 1, h10 = u * u * u - 2 * u * u + u, h01 = -2 * u * u * u + 3 * u * u,
               h11 = u * u * u - u * u;
        double ex = h00 * 1 + h10 * td * 0.5 + h01 * 3 + h11 * td * 0;
        double ey = h00 * 0 + h10 * td * 1 + h01 * 1 + h11 * td * -1;
        double ez = h00 * 0 + h10 * td * 0 + h01 * 0 + h11 * td * 2;
        sk_clip_sample(c, s, tt, SK_LOOP_CLAMP, SK_POSE_OF(s, &x, NULL), NULL);
        NEAR(x.t.x, ex, 1e-5); NEAR(x.t.y, ey, 1e-5); NEAR(x.t.z, ez, 1e-5);
    }
    /* outside the keys: the spline vertex, not a tangent */
    sk_clip_sample(c, s, 0.0, SK_LOOP_CLAMP, SK_POSE_OF(s, &x, NULL), NULL);
    NEAR(x.t.x, 1, 0);
    sk_clip_sample(c, s, 3.0, SK_LOOP_CLAMP, SK_POSE_OF(s, &x, NULL), NULL);
    NEAR(x.t.x, 3, 0); NEAR(x.t.y, 1, 0);
    sk_clip_destroy(c);
    /* cubic rotation is normalised after evaluation */
    float rt[2] = {0, 1};
    float rv[24] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, /* key 0: in, value identity, out */
                    0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0};
    sk_track_desc r = {0, SK_PATH_ROTATION, SK_INTERP_CUBICSPLINE, 2, rt, rv, 0};
    c = make_clip(&r, 1);
    sk_clip_sample(c, s, 0.5, SK_LOOP_CLAMP, SK_POSE_OF(s, &x, NULL), NULL);
    NEAR(sk_quat_length(x.r), 1, 1e-6);
    sk_clip_destroy(c);
    sk_skeleton_destroy(s);
}

static void test_weights_and_errors(void **st) {
    (void)st;
    sk_skeleton *s = one_joint(2);
    float times[2] = {0, 1}, vals[4] = {0, 1, 1, 0};
    sk_track_desc t = {0, SK_PATH_WEIGHTS, SK_INTERP_LINEAR, 2, times, vals, 2};
    sk_clip *c = make_clip(&t, 1);
    sk_transform x;
    float w[2];
    assert_int_equal(sk_clip_sample(c, s, 0.25, SK_LOOP_CLAMP, SK_POSE_OF(s, &x, w), NULL), SK_OK);
    NEAR(w[0], 0.25, 1e-6); NEAR(w[1], 0.75, 1e-6);
    /* a skeleton whose slot does not match is refused, not overrun */
    sk_skeleton *s1 = one_joint(1);
    assert_int_equal(sk_clip_sample(c, s1, 0.25, SK_LOOP_CLAMP, SK_POSE_OF(s1, &x, w), NULL), SK_ERR_INVALID_ARGUMENT);
    sk_skeleton_destroy(s1);
    sk_clip_destroy(c);
    /* joint past the skeleton */
    float tv[3] = {0, 0, 0};
    sk_track_desc far = {5, SK_PATH_TRANSLATION, SK_INTERP_LINEAR, 1, times, tv, 0};
    c = make_clip(&far, 1);
    assert_int_equal(sk_clip_joint_span(c), 6);
    assert_int_equal(sk_clip_sample(c, s, 0, SK_LOOP_CLAMP, SK_POSE_OF(s, &x, w), NULL), SK_ERR_INVALID_ARGUMENT);
    sk_clip_destroy(c);
    /* builder rejections */
    sk_clip_builder *b;
    sk_error err;
    sk_clip_builder_create("bad", NULL, &b, NULL);
    float nt[2] = {0, NAN}, dt[2] = {1, 0.5f}, nv[6] = {0, 0, 0, NAN, 0, 0}, ok6[6] = {0};
    sk_track_desc bad = {0, SK_PATH_TRANSLATION, SK_INTERP_LINEAR, 2, nt, ok6, 0};
    assert_int_equal(sk_clip_builder_add_track(b, &bad, &err), SK_ERR_INVALID_ARGUMENT);
    bad.times = dt;
    assert_int_equal(sk_clip_builder_add_track(b, &bad, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "before"));
    bad.times = times;
    bad.values = nv;
    assert_int_equal(sk_clip_builder_add_track(b, &bad, &err), SK_ERR_INVALID_ARGUMENT);
    bad.values = ok6;
    bad.key_count = 0;
    assert_int_equal(sk_clip_builder_add_track(b, &bad, &err), SK_ERR_INVALID_ARGUMENT);
    bad.key_count = 2;
    bad.width = 4;
    assert_int_equal(sk_clip_builder_add_track(b, &bad, &err), SK_ERR_INVALID_ARGUMENT);
    bad.width = 0;
    assert_int_equal(sk_clip_builder_add_track(b, &bad, &err), SK_OK);
    assert_int_equal(sk_clip_builder_add_track(b, &bad, &err), SK_ERR_INVALID_ARGUMENT); /* duplicate */
    sk_clip_builder_set_duration(b, 4.0f);
    assert_int_equal(sk_clip_builder_finish(b, &c, &err), SK_OK);
    NEAR(sk_clip_duration(c), 4.0, 0);
    sk_track_info ti;
    assert_true(sk_clip_track_info(c, 0, &ti));
    assert_false(sk_clip_track_info(c, 1, &ti));
    assert_int_equal(ti.key_count, 2);
    sk_clip_destroy(c);
    sk_skeleton_destroy(s);
}

/* Cursor sampling equals random access for random sequences of times. */
static void test_cursor(void **st) {
    (void)st;
    enum { J = 5, K = 40 };
    int32_t par[J] = {-1, 0, 1, 0, 3};
    sk_skeleton_desc d = {J, par, NULL, NULL, NULL, NULL};
    sk_skeleton *s = NULL;
    assert_int_equal(sk_skeleton_create(&d, NULL, &s, NULL), SK_OK);
    srand(7);
    float times[K], tv[K * 3], rv[K * 4];
    float acc = 0;
    for (int k = 0; k < K; k++) {
        acc += 0.01f + (float)(rand() % 100) / 1000.0f;
        times[k] = acc;
        for (int i = 0; i < 3; i++) tv[k * 3 + i] = (float)(rand() % 1000) / 100.0f;
        sk_quat q = sk_quat_normalize(sk_quat_make((float)(rand() % 200 - 100), (float)(rand() % 200 - 100),
                                                   (float)(rand() % 200 - 100), (float)(rand() % 200 - 100) + 0.5f));
        memcpy(&rv[k * 4], &q, sizeof q);
    }
    sk_track_desc tr[J * 2];
    for (int j = 0; j < J; j++) {
        tr[2 * j] = (sk_track_desc){(uint32_t)j, SK_PATH_TRANSLATION, (sk_interpolation)(j % 2), K, times, tv, 0};
        tr[2 * j + 1] = (sk_track_desc){(uint32_t)j, SK_PATH_ROTATION, SK_INTERP_LINEAR, K, times, rv, 0};
    }
    sk_clip *c = make_clip(tr, J * 2);
    uint32_t *cur = calloc(sk_clip_cursor_size(c), sizeof *cur);
    sk_transform a[J], b[J];
    double t = 0;
    for (int i = 0; i < 3000; i++) {
        int mode = rand() % 10;
        if (mode < 7) t += (rand() % 100) / 3000.0;        /* forward steps */
        else if (mode < 9) t -= (rand() % 100) / 3000.0;   /* backward */
        else t = (rand() % 10000) / 1000.0 - 2.0;          /* jumps */
        sk_loop_mode lm = (i % 3) ? SK_LOOP_REPEAT : SK_LOOP_CLAMP;
        sk_clip_sample_cursor(c, s, t, lm, cur, sk_clip_cursor_size(c), SK_POSE_OF(s, a, NULL), NULL);
        sk_clip_sample(c, s, t, lm, SK_POSE_OF(s, b, NULL), NULL);
        assert_memory_equal(a, b, sizeof a);
    }
    free(cur);
    sk_clip_destroy(c);
    sk_skeleton_destroy(s);
}

/* Every palette kernel level (scalar, AVX2, AVX-512) gives the same bits:
 * random skins of 1-200 joints, random joint orders, values from 1e-30 to
 * 1e30 with zeros of both signs. */
static void test_palette_levels(void **st) {
    (void)st;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    enum { J = 200 };
    sk_mat4 *model = calloc(J, sizeof *model), *ibm = calloc(J, sizeof *ibm), *out[3];
    uint32_t joints[J];
    for (int l = 0; l < 3; l++) out[l] = calloc(J, sizeof(sk_mat4));
    long compared = 0;
    for (int round = 0; round < 60; round++) {
        uint32_t n = 1 + round * 37 % J;
        for (uint32_t i = 0; i < J; i++)
            for (int k = 0; k < 16; k++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                float v = (float)((double)(x >> 11) / 9007199254740992.0 - 0.5);
                int kind = (int)(x & 15);
                if (kind == 0) v = 0.0f;
                else if (kind == 1) v = -0.0f;
                else if (kind == 2) v *= 1e30f;
                else if (kind == 3) v *= 1e-30f;
                if (i & 1) ibm[i].m[k] = v;
                else model[i].m[k] = v;
                if (i & 1) model[i].m[k] = -v * 3.0f;
                else ibm[i].m[k] = v * 0.25f;
            }
        for (uint32_t i = 0; i < n; i++) joints[i] = (uint32_t)((i * 7919u + (uint32_t)round) % J);
        sk_skin skin = {"s", n, joints, ibm, 0};
        for (int l = 0; l < 3; l++) sk_palette_at_level(&skin, model, out[l], l);
        for (int l = 1; l < 3; l++) assert_memory_equal(out[0], out[l], n * sizeof(sk_mat4));
        compared += n;
    }
    printf("palette levels compared on %ld joints (highest level here: %d)\n", compared, sk_palette_level_max());
    assert_true(compared > 5000);
    for (int l = 0; l < 3; l++) free(out[l]);
    free(model);
    free(ibm);
}

/* Palette and vertex skinning with a rigid two-joint chain. */
static void test_palette(void **st) {
    (void)st;
    int32_t par[2] = {-1, 0};
    sk_transform rest[2] = {sk_transform_identity(), sk_transform_identity()};
    rest[1].t = sk_vec3_make(0, 1, 0);
    sk_skeleton_desc d = {2, par, NULL, rest, NULL, NULL};
    sk_skeleton *s;
    assert_int_equal(sk_skeleton_create(&d, NULL, &s, NULL), SK_OK);
    sk_mat4 model[2], ibm[2], pal[2];
    sk_local_to_model(s, SK_POSE_OF(s, s->rest, NULL), NULL, model, (s)->joint_count, NULL);
    for (int i = 0; i < 2; i++) sk_mat4_invert_affine(&model[i], &ibm[i]);
    uint32_t joints[2] = {0, 1};
    sk_skin skin = {"s", 2, joints, ibm, 0};
    /* bend joint 1 by 90 degrees about Z */
    sk_transform local[2] = {rest[0], rest[1]};
    local[1].r = sk_quat_from_axis_angle(sk_vec3_make(0, 0, 1), 3.14159265f / 2);
    sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, model, (s)->joint_count, NULL);
    sk_skin_palette(&skin, model, UINT32_MAX, pal, (&skin)->joint_count, NULL);
    float pos[6] = {0, 2, 0, 0, 1.5f, 0};
    uint16_t vj[8] = {1, 0, 0, 0, 0, 1, 0, 0};
    float vw[8] = {1, 0, 0, 0, 0.5f, 0.5f, 0, 0};
    sk_primitive prim = {0};
    prim.mode = 4;
    prim.vertex_count = 2;
    prim.positions = pos;
    prim.influence_count = 4;
    prim.joints = vj;
    prim.weights = vw;
    sk_vec3 out;
    assert_true(sk_primitive_vertex_position(&prim, 0, NULL, pal, 2, NULL, &out));
    NEAR(out.x, -1, 1e-6); NEAR(out.y, 1, 1e-6);
    assert_true(sk_primitive_vertex_position(&prim, 1, NULL, pal, 2, NULL, &out));
    /* half of (0,1.5) rigid + half of rotated (-0.5,1) */
    NEAR(out.x, -0.25, 1e-6); NEAR(out.y, 1.25, 1e-6);
    assert_false(sk_primitive_vertex_position(&prim, 2, NULL, pal, 2, NULL, &out));
    assert_false(sk_primitive_vertex_position(&prim, 0, NULL, pal, 1, NULL, &out)); /* joint past palette */
    sk_skeleton_destroy(s);
}

/* Batched rotation sampling (src/clip.c: LINEAR rotation tracks go through a
 * four-wide SSE2 slerp) equals sk_quat_slerp on each track's own keys, bit
 * for bit: 23 joints (several batches and a remainder), keys that are equal,
 * close, antipodal neighbours, more than 120 degrees apart, and tracks of one
 * key, sampled at random times including before the first and after the last key. */
static uint32_t lcg(uint32_t *st) { return *st = *st * 1664525u + 1013904223u; }
static float frand(uint32_t *st) { return (float)(lcg(st) >> 8) / 16777216.0f; }

static void test_batched_slerp(void **st) {
    (void)st;
    enum { J = 23, K = 9 };
    int32_t parents[J];
    for (int j = 0; j < J; j++) parents[j] = j - 1;
    sk_skeleton_desc d = {J, parents, NULL, NULL, NULL, NULL};
    sk_skeleton *s = NULL;
    assert_int_equal(sk_skeleton_create(&d, NULL, &s, NULL), SK_OK);
    uint32_t rs = 12345;
    sk_track_desc tr[J];
    float times[J][K], vals[J][K * 4];
    for (int j = 0; j < J; j++) {
        uint32_t nk = j % 7 == 6 ? 1 : K; /* some single-key tracks */
        for (uint32_t k = 0; k < nk; k++) {
            times[j][k] = 0.1f + 0.25f * (float)k;
            float *q = vals[j] + 4 * k;
            int kind = (int)(lcg(&rs) % 5);
            if (k == 0 || kind == 0) { /* random */
                for (int c = 0; c < 4; c++) q[c] = frand(&rs) * 2 - 1;
            } else {
                const float *p = q - 4;
                float e = kind == 1 ? 0.0f : kind == 2 ? 0.003f : 0.2f; /* equal, close, moderate */
                for (int c = 0; c < 4; c++) q[c] = p[c] + e * (frand(&rs) * 2 - 1);
                if (kind == 3 || kind == 4) /* antipodal neighbour (the short way is through -q) */
                    for (int c = 0; c < 4; c++) q[c] = -q[c];
            }
        }
        tr[j] = (sk_track_desc){(uint32_t)j, SK_PATH_ROTATION, SK_INTERP_LINEAR, nk, times[j], vals[j], 0};
    }
    sk_clip *c = make_clip(tr, J);
    float stored[J][K * 4], st_times[J][K];
    for (int j = 0; j < J; j++) assert_true(sk_clip_track_keys(c, (uint32_t)j, st_times[j], stored[j]));
    sk_transform pose[J];
    int far = 0, compared = 0;
    for (int n = 0; n < 2000; n++) {
        double t = -0.2 + 2.6 * frand(&rs);
        assert_int_equal(sk_clip_sample(c, s, t, SK_LOOP_CLAMP, SK_POSE_OF(s, pose, NULL), NULL), SK_OK);
        double tw = sk_clip_wrap_time(c, t, SK_LOOP_CLAMP);
        for (int j = 0; j < J; j++) {
            sk_track_info info;
            assert_true(sk_clip_track_info(c, (uint32_t)j, &info));
            uint32_t nk = info.key_count;
            sk_quat want;
            if (nk == 1 || tw < st_times[j][0]) want = sk_quat_make(stored[j][0], stored[j][1], stored[j][2], stored[j][3]);
            else if (tw >= st_times[j][nk - 1]) {
                const float *q = stored[j] + 4 * (nk - 1);
                want = sk_quat_make(q[0], q[1], q[2], q[3]);
            } else {
                uint32_t k = 0;
                while ((double)st_times[j][k + 1] <= tw) k++;
                const float *a = stored[j] + 4 * k, *b = a + 4;
                double u = (tw - st_times[j][k]) / ((double)st_times[j][k + 1] - st_times[j][k]);
                sk_quat qa = sk_quat_make(a[0], a[1], a[2], a[3]), qb = sk_quat_make(b[0], b[1], b[2], b[3]);
                float dot = fabsf(qa.x * qb.x + qa.y * qb.y + qa.z * qb.z + qa.w * qb.w);
                far += dot < 0.5f;
                want = sk_quat_slerp(qa, qb, (float)u);
                compared++;
            }
            const sk_quat *got = &pose[j].r;
            if (memcmp(got, &want, sizeof want) != 0)
                fprintf(stderr, "joint %d t %.6f: got %.9g %.9g %.9g %.9g want %.9g %.9g %.9g %.9g\n", j, tw, got->x,
                        got->y, got->z, got->w, want.x, want.y, want.z, want.w);
            assert_memory_equal(got, &want, sizeof want);
        }
    }
    printf("batched slerp: %d interpolated samples equal sk_quat_slerp bit for bit (%d with keys > 120 deg apart)\n",
           compared, far);
    assert_true(compared > 20000 && far > 100);
    sk_clip_destroy(c);
    sk_skeleton_destroy(s);
}

/* SK_LOOP_REPEAT's wrap, t - d floor(t / d) as glTF players compute it,
 * against that formula evaluated here, bit for bit: inside the clip the
 * library returns t without the division, which must be the same value
 * (t / d rounds below 1 there), and t - d in the second period, also one
 * ulp from either end; elsewhere the formula itself. 100 durations from
 * 1e-4 to 1e4 s (float), 24 times each. */
static void test_wrap_time_formula(void **st) {
    (void)st;
    sk_skeleton *s = one_joint(0);
    uint32_t rs = 12345u;
    int checked = 0, inside = 0;
    for (int k = 0; k < 100; k++) {
        float d = (float)pow(10.0, -4.0 + 8.0 * frand(&rs));
        float times[2] = {0.0f, d}, vals[6] = {0, 0, 0, 1, 1, 1};
        sk_track_desc t = {0, SK_PATH_TRANSLATION, SK_INTERP_LINEAR, 2, times, vals, 0};
        sk_clip *c = make_clip(&t, 1);
        double D = (double)d;
        double ts[24] = {nextafter(D, 0.0), nextafter(0.0, 1.0), D * 0.5, D, 0.0, -0.0, nextafter(D, 2.0 * D),
                         -nextafter(0.0, 1.0), 3.0 * D, -D, 1e6 * D + 0.25 * D, nextafter(2.0 * D, 0.0), 2.0 * D,
                         1.5 * D};
        for (int i = 14; i < 24; i++) ts[i] = (frand(&rs) * 4.0 - 1.0) * D;
        for (int i = 0; i < 24; i++) {
            double w = ts[i] - D * floor(ts[i] / D);
            if (w >= D || w < 0.0) w = 0.0;
            double got = sk_clip_wrap_time(c, ts[i], SK_LOOP_REPEAT);
            if (memcmp(&got, &w, sizeof w) != 0 && !(got == 0.0 && w == 0.0))
                fail_msg("d %.9g t %.17g: %.17g, the formula %.17g", D, ts[i], got, w);
            checked++;
            inside += ts[i] > 0.0 && ts[i] < 2.0 * D;
        }
        sk_clip_destroy(c);
    }
    sk_skeleton_destroy(s);
    printf("wrap time: %d times against t - d floor(t / d), %d in the first two periods\n", checked, inside);
    assert_int_equal(checked, 2400);
    assert_true(inside >= 800);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_math_quat),         cmocka_unit_test(test_math_mat4),
        cmocka_unit_test(test_slerp_accuracy),    cmocka_unit_test(test_slerp_extrapolates),    cmocka_unit_test(test_batched_slerp),
        cmocka_unit_test(test_skeleton),          cmocka_unit_test(test_skeleton_large),
        cmocka_unit_test(test_interp_linear_step), cmocka_unit_test(test_wrap_time_formula), cmocka_unit_test(test_interp_rotation),
        cmocka_unit_test(test_interp_cubic),      cmocka_unit_test(test_weights_and_errors),
        cmocka_unit_test(test_cursor),            cmocka_unit_test(test_palette), cmocka_unit_test(test_palette_levels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
