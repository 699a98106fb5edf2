/* Blending: unit tests (normalisation, rest fill, shortest arc, masks,
 * additive, layers) and conformance with three.js's AnimationMixer:
 *  - ../shared/assets/gltf/InterpolationTest/oracle.blend.three.json: pairs
 *    of clips at 0.5/0.5, 0.3/0.7, 0.25/0.25 (its header documents three's
 *    rules and which cases are rotation-exact for any correct blender);
 *  - tests/data/blend/oracle.mannequin.json (our generator
 *    tools/blend_oracle/gen.mjs): two, three and four clips of the mannequin,
 *    weights summing below, to and above one.
 * Our SK_BLEND_SLERP mode with per-clip channel masks reproduces three's
 * sequential slerp accumulation, so every value of every case must match
 * within a few float32 epsilons (BLEND_LIM_*, below: 4 epsilons on local
 * t/s/r, 4 + depth on world matrices). The default SK_BLEND_NLERP mode must match
 * translations and scales in every case and rotations/world matrices in the
 * cases the oracle marks rotationsExact (equal weights: slerp at 0.5 is the
 * normalised sum); elsewhere the nlerp-vs-slerp difference is printed, not
 * asserted — three's order-dependent slerp accumulation is one choice among
 * several, not a specification. */
#include "support.h"

#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEAR(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

static sk_skeleton *chain(uint32_t n) {
    int32_t parents[8];
    const char *names[8] = {"root", "spine", "arm", "hand", "leg", "foot", "x6", "x7"};
    sk_transform rest[8];
    for (uint32_t i = 0; i < n; i++) {
        parents[i] = i == 0 ? -1 : (i == 4 ? 0 : (int32_t)i - 1);
        rest[i] = sk_transform_identity();
        rest[i].t = sk_vec3_make(0, 1, 0);
    }
    sk_skeleton_desc d = {0};
    d.joint_count = n;
    d.parents = parents;
    d.names = names;
    d.rest = rest;
    sk_skeleton *s;
    assert_int_equal(sk_skeleton_create(&d, NULL, &s, NULL), SK_OK);
    return s;
}

static void quat_near(sk_quat a, sk_quat b, double eps) {
    double d1 = fabs(a.x - b.x) + fabs(a.y - b.y) + fabs(a.z - b.z) + fabs(a.w - b.w);
    double d2 = fabs(a.x + b.x) + fabs(a.y + b.y) + fabs(a.z + b.z) + fabs(a.w + b.w);
    assert_true(fmin(d1, d2) <= eps);
}

static void test_blend_weights(void **st) {
    (void)st;
    sk_skeleton *s = chain(6);
    sk_transform a[6], b[6], c[6], out[6];
    for (int j = 0; j < 6; j++) {
        a[j] = b[j] = c[j] = sk_transform_identity();
        a[j].t = sk_vec3_make(1, 0, 0);
        b[j].t = sk_vec3_make(0, 2, 0);
        c[j].t = sk_vec3_make(0, 0, 4);
        a[j].r = sk_quat_from_axis_angle(sk_vec3_make(0, 1, 0), 0.4f);
        /* b's rotation is stored with the opposite sign: same rotation */
        sk_quat q = sk_quat_from_axis_angle(sk_vec3_make(0, 1, 0), 0.8f);
        b[j].r = sk_quat_make(-q.x, -q.y, -q.z, -q.w);
        c[j].s = sk_vec3_make(2, 2, 2);
    }
    sk_blend_input in[3] = {{SK_POSE_OF(s, a, NULL), 1.0f, NULL, NULL}, {SK_POSE_OF(s, b, NULL), 1.0f, NULL, NULL}, {SK_POSE_OF(s, c, NULL), 2.0f, NULL, NULL}};
    /* weights above one are normalised: (1, 1, 2) / 4 */
    assert_int_equal(sk_blend_poses(s, in, 3, NULL, SK_POSE_OF(s, out, NULL), NULL), SK_OK);
    NEAR(out[2].t.x, 0.25, 1e-6);
    NEAR(out[2].t.y, 0.5, 1e-6);
    NEAR(out[2].t.z, 2.0, 1e-6);
    NEAR(out[2].s.x, 1.5, 1e-6);
    /* shortest arc: the sign-flipped b still blends to an angle between 0 (c) and 0.8 */
    float ang = 2.0f * acosf(fminf(1.0f, fabsf(out[2].r.w)));
    assert_true(ang > 0.2f && ang < 0.4f);
    /* two poses, equal weights: exactly halfway (0.6 rad), both modes */
    in[0].weight = in[1].weight = 0.5f;
    assert_int_equal(sk_blend_poses(s, in, 2, NULL, SK_POSE_OF(s, out, NULL), NULL), SK_OK);
    quat_near(out[1].r, sk_quat_from_axis_angle(sk_vec3_make(0, 1, 0), 0.6f), 1e-5);
    sk_blend_options so = {SK_BLEND_SLERP, false};
    in[0].weight = 0.25f;
    in[1].weight = 0.75f;
    assert_int_equal(sk_blend_poses(s, in, 2, &so, SK_POSE_OF(s, out, NULL), NULL), SK_OK);
    quat_near(out[1].r, sk_quat_from_axis_angle(sk_vec3_make(0, 1, 0), 0.7f), 1e-5); /* slerp: exact angle */
    /* below one: rest fills (seed 000): 0.25*a + 0.25*b + 0.5*rest */
    in[0].weight = in[1].weight = 0.25f;
    assert_int_equal(sk_blend_poses(s, in, 2, NULL, SK_POSE_OF(s, out, NULL), NULL), SK_OK);
    NEAR(out[0].t.x, 0.25, 1e-6);
    NEAR(out[0].t.y, 0.5 + 0.5, 1e-6);
    so.rotation = SK_BLEND_NLERP;
    so.no_rest_fill = true;
    assert_int_equal(sk_blend_poses(s, in, 2, &so, SK_POSE_OF(s, out, NULL), NULL), SK_OK);
    NEAR(out[0].t.x, 0.5, 1e-6);
    NEAR(out[0].t.y, 1.0, 1e-6);
    /* zero weights: the rest pose */
    in[0].weight = in[1].weight = 0.0f;
    assert_int_equal(sk_blend_poses(s, in, 2, NULL, SK_POSE_OF(s, out, NULL), NULL), SK_OK);
    NEAR(out[3].t.y, 1.0, 0);
    quat_near(out[3].r, sk_quat_identity(), 0);
    /* channels: a pose that has no translation for a joint does not pull it to its value */
    uint8_t ch[6] = {SK_CHANNEL_R, SK_CHANNEL_ALL, SK_CHANNEL_ALL, SK_CHANNEL_ALL, SK_CHANNEL_ALL, SK_CHANNEL_ALL};
    in[0].weight = in[1].weight = 0.5f;
    in[0].channels = ch;
    assert_int_equal(sk_blend_poses(s, in, 2, NULL, SK_POSE_OF(s, out, NULL), NULL), SK_OK);
    NEAR(out[0].t.x, 0.0, 1e-6);
    NEAR(out[0].t.y, 1.0 + 0.5, 1e-6); /* b with 0.5, rest fills 0.5 */
    in[0].channels = NULL;
    /* bad input */
    sk_error err;
    sk_blend_input bad = {NULL, 1.0f, NULL, NULL};
    assert_int_equal(sk_blend_poses(s, &bad, 1, NULL, SK_POSE_OF(s, out, NULL), &err), SK_ERR_INVALID_ARGUMENT);
    sk_skeleton_destroy(s);
}


/* sk_blend_poses' nlerp path for inputs without masks or channel bits (the
 * weights found once) against the general path, which an all-ones mask
 * takes (a factor of 1 leaves every weight as it is): the same bits, for 1
 * to 18 inputs (more than the 16 the plain path takes), weights zero,
 * negative, NaN, summing below and above one, with and without rest fill,
 * random poses. */
static uint32_t g_lcg = 12345u;
static float frand(void) {
    g_lcg = g_lcg * 1664525u + 1013904223u;
    return (float)(g_lcg >> 8) / 16777216.0f;
}

static void test_plain_path_same_bits(void **st) {
    (void)st;
    enum { J = 6, N = 18 };
    sk_skeleton *s = chain(J);
    static sk_transform poses[N][J];
    sk_transform out_plain[J], out_general[J];
    float ones[J];
    for (int j = 0; j < J; j++) ones[j] = 1.0f;
    sk_pose views[N];
    sk_blend_input in[N], inm[N];
    uint32_t cases = 0;
    for (int round = 0; round < 200; round++) {
        uint32_t n = 1 + (uint32_t)round % N;
        for (uint32_t i = 0; i < n; i++) {
            for (int j = 0; j < J; j++) {
                sk_transform *x = &poses[i][j];
                x->t = sk_vec3_make(4 * frand() - 2, 4 * frand() - 2, 4 * frand() - 2);
                x->s = sk_vec3_make(0.5f + frand(), 0.5f + frand(), 0.5f + frand());
                x->r = sk_quat_normalize(sk_quat_make(2 * frand() - 1, 2 * frand() - 1, 2 * frand() - 1, 2 * frand() - 1));
            }
            views[i] = *SK_POSE_OF(s, poses[i], NULL);
            float u = frand(), w = u < 0.1f ? 0.0f : u < 0.15f ? -1.0f : u < 0.2f ? NAN : (round % 3 ? 2.0f : 0.2f) * frand();
            in[i] = (sk_blend_input){&views[i], w, NULL, NULL};
            inm[i] = (sk_blend_input){&views[i], w, ones, NULL};
        }
        sk_blend_options o = {SK_BLEND_NLERP, round % 2 == 1};
        assert_int_equal(sk_blend_poses(s, in, n, &o, SK_POSE_OF(s, out_plain, NULL), NULL), SK_OK);
        assert_int_equal(sk_blend_poses(s, inm, n, &o, SK_POSE_OF(s, out_general, NULL), NULL), SK_OK);
        assert_memory_equal(out_plain, out_general, sizeof out_plain);
        cases++;
    }
    assert_int_equal(cases, 200);
    sk_skeleton_destroy(s);
}
/* sk_pose_apply_additive_nlerp against closed forms, computed here in
 * double: a delta of angle A about axis n applied at weight w turns r by
 * 2 atan2(w sin(A/2), 1 - w + w cos(A/2)) about n (the normalised lerp
 * between the identity and the delta); at w = 0.5 that is exactly A/2; a
 * delta given on the other hemisphere (-q) turns the same way; the angle
 * stays within the stated bound of slerp's w A (layers.h: 0.03 degrees at
 * A = 30, 0.9 at 90, 2.2 at 120); translations and scales as
 * sk_pose_apply_additive's. */
static void test_additive_nlerp(void **st) {
    (void)st;
    sk_skeleton *s = chain(6);
    const double deg = 3.14159265358979323846 / 180.0;
    const double angles[] = {10, 30, 60, 90, 120, 170};
    const double bound[] = {0.005, 0.04, 0.3, 0.95, 2.3, 6.8}; /* degrees, the largest over w in [0, 1] */
    const float ws[] = {0.1f, 0.25f, 0.5f, 0.75f, 0.9f, 1.0f, 1.5f, -0.5f};
    uint32_t cases = 0;
    for (size_t ai = 0; ai < sizeof angles / sizeof angles[0]; ai++)
        for (size_t wi = 0; wi < sizeof ws / sizeof ws[0]; wi++)
            for (int flip = 0; flip < 2; flip++) {
                double A = angles[ai] * deg, w = ws[wi];
                sk_vec3 n = sk_vec3_normalize(sk_vec3_make(1, -2, 0.5f));
                sk_transform io[6], d[6], ref[6];
                for (int j = 0; j < 6; j++) {
                    io[j].t = sk_vec3_make(0.1f * (float)j, 1, 0), io[j].s = sk_vec3_make(1, 2, 1);
                    io[j].r = sk_quat_from_axis_angle(sk_vec3_normalize(sk_vec3_make(0, 1, 1)), 0.2f * (float)j);
                    d[j].t = sk_vec3_make(0, 0.5f, (float)j), d[j].s = sk_vec3_make(2, 1, 0.5f);
                    d[j].r = sk_quat_from_axis_angle(n, (float)A);
                    if (flip) d[j].r = sk_quat_make(-d[j].r.x, -d[j].r.y, -d[j].r.z, -d[j].r.w);
                }
                memcpy(ref, io, sizeof ref);
                float mask[6] = {1, 1, 1, 1, 1, 0};
                assert_int_equal(sk_pose_apply_additive_nlerp(s, SK_POSE_OF(s, io, NULL), SK_POSE_OF(s, d, NULL), (float)w, mask, NULL),
                                 SK_OK);
                double h = A / 2, ang = 2 * atan2(w * sin(h), 1 - w + w * cos(h));
                for (int j = 0; j < 5; j++) {
                    sk_quat expect = sk_quat_mul(ref[j].r, sk_quat_from_axis_angle(n, (float)ang));
                    quat_near(io[j].r, expect, 2e-6);
                    NEAR(io[j].t.z, ref[j].t.z + w * d[j].t.z, 1e-6);
                    NEAR(io[j].s.x, ref[j].s.x * (1 + (d[j].s.x - 1) * w), 1e-6);
                    if (w >= 0 && w <= 1) assert_true(fabs(ang - w * A) <= bound[ai] * deg);
                    if (w == 0.5f) NEAR(ang, A / 2, 1e-12);
                    cases++;
                }
                assert_memory_equal(&io[5], &ref[5], sizeof io[5]); /* mask 0: untouched */
            }
    assert_int_equal(cases, 6 * 8 * 2 * 5);
    /* at weight 1 it is sk_pose_apply_additive, bit for bit */
    sk_transform a[6], b[6], d[6];
    for (int j = 0; j < 6; j++) {
        a[j] = b[j] = sk_transform_identity();
        a[j].r = b[j].r = sk_quat_from_axis_angle(sk_vec3_make(0, 1, 0), 0.3f);
        d[j] = sk_transform_identity();
        d[j].r = sk_quat_from_axis_angle(sk_vec3_normalize(sk_vec3_make(1, 1, 0)), 0.1f * (float)j);
    }
    assert_int_equal(sk_pose_apply_additive(s, SK_POSE_OF(s, a, NULL), SK_POSE_OF(s, d, NULL), 1.0f, NULL, NULL), SK_OK);
    assert_int_equal(sk_pose_apply_additive_nlerp(s, SK_POSE_OF(s, b, NULL), SK_POSE_OF(s, d, NULL), 1.0f, NULL, NULL), SK_OK);
    assert_memory_equal(a, b, sizeof a);
    /* a non-finite delta gives a defined, finite, unit rotation; a wrong pose an error naming the function */
    d[2].r = sk_quat_make(NAN, 0, 0, 1);
    assert_int_equal(sk_pose_apply_additive_nlerp(s, SK_POSE_OF(s, b, NULL), SK_POSE_OF(s, d, NULL), 0.5f, NULL, NULL), SK_OK);
    assert_true(isfinite(b[2].r.w));
    NEAR(sk_quat_length(b[2].r), 1, 1e-6);
    sk_error err;
    sk_pose short_pose = sk_pose_view(b, 3, NULL, 0);
    assert_int_equal(sk_pose_apply_additive_nlerp(s, &short_pose, SK_POSE_OF(s, d, NULL), 0.5f, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "sk_pose_apply_additive_nlerp"));
    sk_skeleton_destroy(s);
}

static void test_masks_layers_additive(void **st) {
    (void)st;
    sk_skeleton *s = chain(6); /* root - spine - arm - hand ; root - leg - foot */
    float mask[6];
    sk_mask_fill(s, mask, 0.0f);
    assert_int_equal(sk_mask_set_subtree(s, "arm", 1.0f, mask, NULL), SK_OK);
    static const float expect[6] = {0, 0, 1, 1, 0, 0};
    for (int j = 0; j < 6; j++) NEAR(mask[j], expect[j], 0);
    const char *list[] = {"leg", "root"};
    assert_int_equal(sk_mask_set_joints(s, list, 2, 0.5f, mask, NULL), SK_OK);
    NEAR(mask[4], 0.5, 0);
    NEAR(mask[0], 0.5, 0);
    NEAR(mask[5], 0.0, 0);
    sk_error err;
    assert_int_equal(sk_mask_set_subtree(s, "tail", 1.0f, mask, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "tail"));
    /* masked blend: legs from one pose, arms from another (seed 000 §4.5) */
    sk_transform legs[6], arms[6], out[6];
    for (int j = 0; j < 6; j++) {
        legs[j] = arms[j] = sk_transform_identity();
        legs[j].t = sk_vec3_make(1, 0, 0);
        arms[j].t = sk_vec3_make(0, 0, 1);
    }
    float upper[6], lower[6];
    sk_mask_fill(s, upper, 0.0f);
    sk_mask_set_subtree(s, "spine", 1.0f, upper, NULL);
    for (int j = 0; j < 6; j++) lower[j] = 1.0f - upper[j];
    sk_blend_input in[2] = {{SK_POSE_OF(s, legs, NULL), 1.0f, lower, NULL}, {SK_POSE_OF(s, arms, NULL), 1.0f, upper, NULL}};
    assert_int_equal(sk_blend_poses(s, in, 2, NULL, SK_POSE_OF(s, out, NULL), NULL), SK_OK);
    NEAR(out[5].t.x, 1, 1e-6); /* foot: legs */
    NEAR(out[3].t.z, 1, 1e-6); /* hand: arms */
    NEAR(out[3].t.x, 0, 1e-6);
    /* layer stack: override the upper body with weight 0.5 */
    sk_transform base[6];
    memcpy(base, legs, sizeof base);
    sk_layer L = {SK_LAYER_OVERRIDE, 0.5f, upper, SK_POSE_OF(s, arms, NULL)};
    assert_int_equal(sk_layers_apply(s, SK_POSE_OF(s, base, NULL), &L, 1, NULL), SK_OK);
    NEAR(base[3].t.x, 0.5, 1e-6);
    NEAR(base[3].t.z, 0.5, 1e-6);
    NEAR(base[5].t.x, 1.0, 1e-6);
    /* additive: delta of a pose from a reference, re-applied with weight 1, gives the pose back */
    sk_transform ref[6], pose[6], delta[6], re[6];
    for (int j = 0; j < 6; j++) {
        ref[j].t = sk_vec3_make(0.1f * j, 1, 0);
        ref[j].r = sk_quat_from_axis_angle(sk_vec3_normalize(sk_vec3_make(1, 2, 3)), 0.3f * j);
        ref[j].s = sk_vec3_make(1, 2, 1);
        pose[j].t = sk_vec3_make(0, 1, 0.2f * j);
        pose[j].r = sk_quat_from_axis_angle(sk_vec3_normalize(sk_vec3_make(-1, 0, 2)), 0.5f + 0.1f * j);
        pose[j].s = sk_vec3_make(2, 2, 0.5f);
    }
    sk_pose_make_additive(s, SK_POSE_OF(s, pose, NULL), SK_POSE_OF(s, ref, NULL), SK_POSE_OF(s, delta, NULL), NULL);
    memcpy(re, ref, sizeof re);
    sk_pose_apply_additive(s, SK_POSE_OF(s, re, NULL), SK_POSE_OF(s, delta, NULL), 1.0f, NULL, NULL);
    for (int j = 0; j < 6; j++) {
        NEAR(re[j].t.z, pose[j].t.z, 1e-6);
        NEAR(re[j].s.x, pose[j].s.x, 1e-6);
        NEAR(re[j].s.z, pose[j].s.z, 1e-6);
        quat_near(re[j].r, pose[j].r, 1e-5);
    }
    /* weight 0.5 of an additive translation adds half */
    memcpy(re, ref, sizeof re);
    sk_layer A = {SK_LAYER_ADDITIVE, 0.5f, NULL, SK_POSE_OF(s, delta, NULL)};
    assert_int_equal(sk_layers_apply(s, SK_POSE_OF(s, re, NULL), &A, 1, NULL), SK_OK);
    NEAR(re[3].t.z, 0.5 * pose[3].t.z, 1e-6);
    NEAR(re[3].t.x, ref[3].t.x * 0.5, 1e-6);
    sk_skeleton_destroy(s);
}

/* ---- three.js oracles ---- */

/* Limits in float32 epsilons (2^-23) times the value's magnitude (max(1, |x|)
 * for t and s; unit quaternions; max(1, largest 3x3 entry) for world matrices,
 * also the largest translation entry for the translation column). three.js's
 * mixer blends the float32 samples in float64 and the oracles keep 9
 * significant digits (0.04 epsilon): the difference is our own float32
 * rounding.
 *  - t, s: a weighted mean of up to 4 float32 samples (at most k/2 = 2
 *    epsilons for k = 4 terms) of values interpolated in float32 (a lerp: 3
 *    roundings, 1.5 epsilons): 4 epsilons. Measured: 0.44.
 *  - r: each blend step (up to 3 slerps or one normalised sum) and the
 *    sample's slerp give a unit quaternion from float32 products and a
 *    normalisation, about one epsilon each: 4 epsilons. Measured: 1.26.
 *  - world: the local error (4 epsilons) plus one matrix product per level of
 *    the hierarchy (about one epsilon each): (4 + depth) epsilons, depth 1 for
 *    a root. Measured: 2.68 (mannequin, depth up to 8). */
#define EPS32 ((double)FLT_EPSILON)
static const double BLEND_LIM_TS = 4, BLEND_LIM_R = 4;
static double blend_lim_world(const sk_skeleton *s, uint32_t j) {
    double d = 1;
    for (int32_t p = s->parents[j]; p >= 0; p = s->parents[p]) d++;
    return 4 + d;
}

typedef struct cmp_stats {
    long compared, failed;
    double worst_ts, worst_r, worst_world, worst_world_lim, info_rot_nlerp;
} cmp_stats;

static double arr_at(const cJSON *a, int i) { return cJSON_GetArrayItem(a, i)->valuedouble; }

/* Blends the case's clips at time t (mode) and compares with the recorded nodes. */
static void compare_sample(const sk_asset *as, const int32_t *clip_idx, const float *weights, uint32_t nclips,
                           uint8_t **channels, double t, const cJSON *nodes, sk_blend_rotation mode, bool compare_rot,
                           cmp_stats *st, const char *label) {
    const sk_skeleton *s = as->skeleton;
    uint32_t n = s->joint_count;
    sk_transform *poses = malloc(sizeof(sk_transform) * n * (nclips + 1));
    sk_mat4 *world = malloc(sizeof(sk_mat4) * n);
    sk_transform *out = poses + (size_t)n * nclips;
    sk_blend_input in[4];
    sk_pose views[4];
    for (uint32_t c = 0; c < nclips; c++) {
        views[c] = sk_pose_view(poses + (size_t)n * c, n, NULL, 0);
        assert_int_equal(sk_clip_sample(as->clips[clip_idx[c]], s, t, SK_LOOP_REPEAT, &views[c], NULL), SK_OK);
        in[c].pose = &views[c];
        in[c].weight = weights[c];
        in[c].mask = NULL;
        in[c].channels = channels[c];
    }
    sk_blend_options o = {mode, false};
    assert_int_equal(sk_blend_poses(s, in, nclips, &o, SK_POSE_OF(s, out, NULL), NULL), SK_OK);
    sk_local_to_model(s, SK_POSE_OF(s, out, NULL), NULL, world, (s)->joint_count, NULL);
    const cJSON *nd;
    cJSON_ArrayForEach(nd, nodes) {
        int node = cJSON_GetObjectItem(nd, "node")->valueint;
        uint32_t j = as->node_to_joint[node];
        const cJSON *xt = cJSON_GetObjectItem(nd, "t"), *xr = cJSON_GetObjectItem(nd, "r"), *xs = cJSON_GetObjectItem(nd, "s");
        const cJSON *xw = cJSON_GetObjectItem(nd, "world");
        /* Errors in float32 epsilons times the value's magnitude (see BLEND_LIM_*). */
        double e = 0;
        for (int k = 0; k < 3; k++) {
            e = fmax(e, fabs((&out[j].t.x)[k] - arr_at(xt, k)) / (EPS32 * fmax(1.0, fabs(arr_at(xt, k)))));
            e = fmax(e, fabs((&out[j].s.x)[k] - arr_at(xs, k)) / (EPS32 * fmax(1.0, fabs(arr_at(xs, k)))));
        }
        double dp = 0, dm = 0;
        for (int k = 0; k < 4; k++) {
            dp = fmax(dp, fabs((&out[j].r.x)[k] - arr_at(xr, k)));
            dm = fmax(dm, fabs((&out[j].r.x)[k] + arr_at(xr, k)));
        }
        double er = fmin(dp, dm) / EPS32, ew = 0;
        if (xw) {
            double m3 = 1, mt = 1;
            for (int k = 0; k < 12; k++)
                if (k % 4 != 3) m3 = fmax(m3, fabs(arr_at(xw, k)));
            for (int k = 12; k < 15; k++) mt = fmax(mt, fabs(arr_at(xw, k)));
            for (int k = 0; k < 16; k++)
                ew = fmax(ew, fabs(world[j].m[k] - arr_at(xw, k)) / (EPS32 * (k >= 12 && k < 15 ? fmax(m3, mt) : m3)));
        }
        st->compared++;
        st->worst_ts = fmax(st->worst_ts, e);
        bool ok = e <= BLEND_LIM_TS;
        if (compare_rot) {
            st->worst_r = fmax(st->worst_r, er);
            st->worst_world = fmax(st->worst_world, ew);
            ok = ok && er <= BLEND_LIM_R && ew <= blend_lim_world(s, j);
            st->worst_world_lim = fmax(st->worst_world_lim, ew / blend_lim_world(s, j));
        } else {
            st->info_rot_nlerp = fmax(st->info_rot_nlerp, er * EPS32);
        }
        if (!ok) {
            if (st->failed < 10)
                fprintf(stderr, "MISMATCH %s t=%g node %d: t/s %.3g r %.3g world %.3g eps\n", label, t, node, e, er, ew);
            st->failed++;
        }
    }
    free(poses);
    free(world);
}

static sk_asset *load(const char *path) {
    sk_asset *as = NULL;
    sk_error err;
    if (sk_gltf_load_file(path, NULL, &as, &err) != SK_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        fail();
    }
    return as;
}

/* cases[].clips[] = {index|name, weight}, samples[] = {time, nodes[]} */
static void run_oracle(const char *glb, const char *oracle_path, const char *exact_key, int expected_cases) {
    size_t size;
    char *text = sk_test_read_file(oracle_path, &size);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    sk_asset *as = load(glb);
    uint32_t n = as->skeleton->joint_count;
    cmp_stats slerp = {0}, nlerp = {0};
    int ncases = 0;
    long expected_nodes = 0, exact_nodes = 0;
    const cJSON *cs;
    cJSON_ArrayForEach(cs, cJSON_GetObjectItem(root, "cases")) {
        const char *id = cJSON_GetObjectItem(cs, "id")->valuestring;
        int32_t idx[4];
        float w[4];
        uint8_t *ch[4];
        uint32_t nc = 0;
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItem(cs, "clips")) {
            assert_true(nc < 4);
            idx[nc] = cJSON_GetObjectItem(c, "index")->valueint;
            assert_true(idx[nc] >= 0 && (uint32_t)idx[nc] < as->clip_count);
            const cJSON *nm = cJSON_GetObjectItem(c, "name");
            if (cJSON_IsString(nm)) assert_string_equal(sk_clip_name(as->clips[idx[nc]]), nm->valuestring);
            w[nc] = (float)cJSON_GetObjectItem(c, "weight")->valuedouble;
            ch[nc] = malloc(n);
            assert_int_equal(sk_clip_channel_mask(as->clips[idx[nc]], as->skeleton, ch[nc], NULL), SK_OK);
            nc++;
        }
        bool exact = true;
        if (exact_key) exact = cJSON_IsTrue(cJSON_GetObjectItem(cs, exact_key));
        const cJSON *smp;
        cJSON_ArrayForEach(smp, cJSON_GetObjectItem(cs, "samples")) {
            double t = cJSON_GetObjectItem(smp, "time")->valuedouble;
            const cJSON *nodes = cJSON_GetObjectItem(smp, "nodes");
            assert_true(cJSON_GetArraySize(nodes) > 0);
            expected_nodes += cJSON_GetArraySize(nodes);
            if (exact_key && exact) exact_nodes += cJSON_GetArraySize(nodes);
            compare_sample(as, idx, w, nc, ch, t, nodes, SK_BLEND_SLERP, true, &slerp, id);
            /* default nlerp: rotations only where the oracle says any correct blender agrees */
            compare_sample(as, idx, w, nc, ch, t, nodes, SK_BLEND_NLERP, exact_key ? exact : false, &nlerp, id);
        }
        for (uint32_t k = 0; k < nc; k++) free(ch[k]);
        ncases++;
    }
    printf("oracle %s: %d cases, %ld node samples per mode\n", oracle_path, ncases, slerp.compared);
    printf("  SK_BLEND_SLERP + channels: worst t/s %.2f, r %.2f, world %.2f eps x magnitude (limits %.0f, %.0f, "
           "4 + depth: worst %.2f of it); failures %ld\n",
           slerp.worst_ts, slerp.worst_r, slerp.worst_world, BLEND_LIM_TS, BLEND_LIM_R, slerp.worst_world_lim,
           slerp.failed);
    printf("  SK_BLEND_NLERP: worst t/s %.2f eps; rotation-exact cases: r %.2f, world %.2f eps; "
           "other cases (information): nlerp vs three slerp up to %.3g; failures %ld\n",
           nlerp.worst_ts, nlerp.worst_r, nlerp.worst_world, nlerp.info_rot_nlerp, nlerp.failed);
    /* Every case of the file, every node sample in both modes; NLERP rotations where the file marks them exact. */
    assert_int_equal(ncases, expected_cases);
    assert_int_equal(slerp.compared, expected_nodes);
    assert_int_equal(nlerp.compared, expected_nodes);
    printf("  %ld node samples in rotation-exact cases (NLERP rotations compared)\n", exact_nodes);
    if (exact_key) assert_true(exact_nodes > 0);
    assert_int_equal(slerp.failed, 0);
    assert_int_equal(nlerp.failed, 0);
    sk_asset_destroy(as);
    cJSON_Delete(root);
    free(text);
}

static void test_oracle_interpolation_test(void **st) {
    (void)st;
    const char *shared = sk_test_require_shared();
    char glb[1024], orc[1024];
    snprintf(glb, sizeof glb, "%s/assets/gltf/InterpolationTest/InterpolationTest.glb", shared);
    snprintf(orc, sizeof orc, "%s/assets/gltf/InterpolationTest/oracle.blend.three.json", shared);
    run_oracle(glb, orc, "rotationsExact", 12); /* its 12 cases: pairs of clips at 0.5/0.5, 0.3/0.7, 0.25/0.25 */
}

static void test_oracle_mannequin_three_clips(void **st) {
    (void)st;
    char glb[1024], orc[1024];
    snprintf(glb, sizeof glb, "%s/tests/data/blend/mannequin.glb", sk_test_source_dir());
    snprintf(orc, sizeof orc, "%s/tests/data/blend/oracle.mannequin.json", sk_test_source_dir());
    run_oracle(glb, orc, NULL, 7); /* its 7 cases: two, three and four clips (tools/blend_oracle/gen.mjs) */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blend_weights),
        cmocka_unit_test(test_plain_path_same_bits),
        cmocka_unit_test(test_masks_layers_additive),
        cmocka_unit_test(test_additive_nlerp),
        cmocka_unit_test(test_oracle_interpolation_test),
        cmocka_unit_test(test_oracle_mannequin_three_clips),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
