/* Hostile input, second round: one regression test per finding of the second
 * review (docs/robustness.md, "Second review"), each on an input built here.
 *  b1: compressing or resampling a clip does work tied to what the clip
 *      stores: three keys over 300,000 s are refused at once (SK_ERR_LIMIT, a
 *      message naming the limit and the option), with a small peak; the option
 *      raises the limit.
 *  b3: the path follower walks a path by its length: a U-turn back to the
 *      start, a closed square and a path ending on an earlier part of itself
 *      are walked to their end.
 *  b5: the .glb writer refuses what the glTF reader refuses (a world
 *      translation past the reader's bound, though every component is
 *      within the BVH reader's).
 *  b6: a compressed clip whose constant rotation is not a unit quaternion is
 *      refused, as the glTF reader refuses such rotation keys.
 *  minor: the motion analysis refuses a cycle of 8 ms and one over an hour,
 *      whatever chose the cycle (not only the best-cycle search). */
#include "support.h"

#include "core/clip_internal.h" /* SK_CC_HEADER: where a blob's track table starts */

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A chain of n joints and a clip whose rotation tracks (one per joint) have
 * the given key times and identity values. */
static sk_clip *keyed_clip(uint32_t n, const float *times, uint32_t keys) {
    float *q = calloc((size_t)keys * 4, sizeof(float));
    assert_non_null(q);
    for (uint32_t k = 0; k < keys; k++) q[4 * k + 3] = 1.0f;
    sk_clip_builder *b = NULL;
    assert_int_equal(sk_clip_builder_create("long", NULL, &b, NULL), SK_OK);
    for (uint32_t j = 0; j < n; j++) {
        sk_track_desc d = {j, SK_PATH_ROTATION, SK_INTERP_LINEAR, keys, times, q, 4};
        assert_int_equal(sk_clip_builder_add_track(b, &d, NULL), SK_OK);
    }
    sk_clip *c = NULL;
    assert_int_equal(sk_clip_builder_finish(b, &c, NULL), SK_OK);
    free(q);
    return c;
}

/* ---- b1: work tied to the input ------------------------------------------- */

static void b1_compress_long_sparse_clip(void **state) {
    (void)state;
    /* keys at 0, 1/30 and 300,000 s on 60 joints: at the clip's 30 fps, nine
     * million frames of 60 tracks (the review saw 8.7 GB and rising) */
    const float times[3] = {0.0f, 1.0f / 30.0f, 300000.0f};
    sk_skeleton *s = sk_test_chain_skeleton(60, 7);
    sk_clip *c = keyed_clip(60, times, 3);
    sk_test_peak pt = {0, 0, 0};
    sk_allocator al = {sk_test_peak_alloc, sk_test_peak_realloc, sk_test_peak_free, &pt};
    sk_clip *out = NULL;
    sk_error err = {0};
    sk_result r = sk_clip_compress(c, s, NULL, &al, &out, NULL, &err);
    assert_int_equal(r, SK_ERR_LIMIT);
    assert_null(out);
    assert_non_null(strstr(err.message, "work limit"));
    assert_non_null(strstr(err.message, "--max-work"));
    assert_true(pt.peak < 4u << 20); /* refused before the frames are allocated */
    assert_int_equal(pt.live, 0);
    /* the limit is the documented rule: 64 per stored value, at least 2^20 */
    double values = 60.0 * 3 * 4;
    assert_true(sk_clip_work_limit(c) == fmax(SK_WORK_MIN, SK_WORK_PER_VALUE * values));
    sk_clip_destroy(c);
    sk_skeleton_destroy(s);
}

static void b1_resample_long_frame_time(void **state) {
    (void)state;
    /* a 2-frame capture with a 25e6 s frame time resampled at 0.1 fps: 2.5
     * million frames (the review saw 7 GB in 60 s) */
    const float times[2] = {0.0f, 25e6f};
    sk_skeleton *s = sk_test_chain_skeleton(3, 3);
    sk_clip *c = keyed_clip(3, times, 2);
    sk_test_peak pt = {0, 0, 0};
    sk_allocator al = {sk_test_peak_alloc, sk_test_peak_realloc, sk_test_peak_free, &pt};
    sk_clip *out = NULL;
    sk_error err = {0};
    assert_int_equal(sk_clip_resample(c, s, 0.1, &al, &out, &err), SK_ERR_LIMIT);
    assert_null(out);
    assert_non_null(strstr(err.message, "work limit"));
    assert_true(pt.peak < 1u << 20);
    /* an explicit limit above the work lets the same call through */
    assert_int_equal(sk_clip_resample_limited(c, s, 1e-5, 0.0, NULL, &out, &err), SK_OK); /* 251 frames */
    sk_clip_destroy(out);
    out = NULL;
    assert_int_equal(sk_clip_resample_limited(c, s, 0.01, 1e5, NULL, &out, &err), SK_ERR_LIMIT); /* 250,001 x 3 */
    assert_int_equal(sk_clip_resample_limited(c, s, 0.01, 1e6, NULL, &out, &err), SK_OK);
    assert_true(sk_clip_duration(out) > 24.9e6);
    sk_clip_destroy(out);
    assert_int_equal(sk_clip_resample_limited(c, s, 0.01, -1.0, NULL, &out, &err), SK_ERR_INVALID_ARGUMENT);
    sk_clip_destroy(c);
    sk_skeleton_destroy(s);
}

static void b1_ordinary_clip_unaffected(void **state) {
    (void)state;
    /* a capture-like clip: 2,000 uniform frames at 120 fps on 31 joints
     * compresses under the default limit, and at four times its own rate */
    uint32_t n = 2000;
    float *times = malloc(n * sizeof(float));
    assert_non_null(times);
    for (uint32_t k = 0; k < n; k++) times[k] = (float)k / 120.0f;
    sk_skeleton *s = sk_test_chain_skeleton(31, 5);
    sk_clip *c = keyed_clip(31, times, n);
    double limit = sk_clip_work_limit(c);
    assert_true(limit >= 4.0 * n * 31);
    sk_clip *out = NULL;
    sk_compress_options o = {0};
    o.sample_rate = 480.0;
    assert_int_equal(sk_clip_compress(c, s, &o, NULL, &out, NULL, NULL), SK_OK);
    sk_clip_destroy(out);
    sk_clip_destroy(c);
    sk_skeleton_destroy(s);
    free(times);
}

/* ---- b3: paths walked by their length ------------------------------------- */

/* Steps a follower along the path text until it finishes (at most 120 s);
 * returns the distance walked and the end point. */
static double walk(const char *text, float *ex, float *ez, bool *finished) {
    float pts[2 * SK_PATH_MAX_POINTS];
    sk_error err = {0};
    uint32_t np = sk_path_parse(text, pts, SK_PATH_MAX_POINTS, &err);
    assert_true(np >= 2);
    sk_path_follower pf;
    sk_path_follower_desc pd = {pts, np, 1.4f, 1.5707963f, 0, 0, NAN, false};
    assert_int_equal(sk_path_follower_init(&pf, &pd, &err), SK_OK);
    double walked = 0;
    float x = pf.x, z = pf.z;
    for (int k = 0; k < 120 * 60 && !pf.finished; k++) {
        sk_path_follower_step(&pf, 1.0 / 60);
        walked += hypot(pf.x - x, pf.z - z);
        x = pf.x, z = pf.z;
    }
    *ex = pf.x, *ez = pf.z, *finished = pf.finished;
    return walked;
}

static void b3_paths_that_return(void **state) {
    (void)state;
    static const struct { const char *path; double length, x, z; } cases[] = {
        {"0,0 0,8 0,0", 16, 0, 0},                 /* a U-turn back to the start */
        {"0,0 0,8 8,8 8,0 0,0", 32, 0, 0},         /* a closed square */
        {"0,0 0,8 0,2", 14, 0, 2},                 /* ends on an earlier part of itself */
        {"0,0 0,4 4,4 4,0 0,0 0,4", 20, 0, 4},     /* a loop and on, over its own start */
    };
    int checked = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        float x, z;
        bool fin;
        double walked = walk(cases[i].path, &x, &z, &fin);
        if (!fin || fabs(x - cases[i].x) > 0.05 || fabs(z - cases[i].z) > 0.05 || walked < 0.9 * cases[i].length)
            fail_msg("path \"%s\": finished %d at (%.3f, %.3f) after %.2f m; expected (%g, %g) after about %g m",
                     cases[i].path, fin, (double)x, (double)z, walked, cases[i].x, cases[i].z, cases[i].length);
        checked++;
    }
    assert_int_equal(checked, 4);
}

static void b3_short_path_message(void **state) {
    (void)state;
    float pts[4] = {0, 0, 0, 0.00005f};
    sk_path_follower pf;
    sk_path_follower_desc pd = {pts, 2, 1.4f, 1.0f, 0, 0, NAN, false};
    sk_error err = {0};
    assert_int_equal(sk_path_follower_init(&pf, &pd, &err), SK_ERR_INVALID_ARGUMENT);
    assert_null(strstr(err.message, "the same")); /* the points differ: say how short it is */
    assert_non_null(strstr(err.message, "mm"));
    pts[3] = 0.001f; /* 1 mm is a path */
    assert_int_equal(sk_path_follower_init(&pf, &pd, &err), SK_OK);
    pts[3] = 0.0f;
    assert_int_equal(sk_path_follower_init(&pf, &pd, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "the same"));
}

/* ---- b5: the writer refuses what the reader refuses ----------------------- */

static void b5_writer_world_bound(void **state) {
    (void)state;
    /* a root animated to (1e15, 1e15, 1e15): each component at the BVH
     * reader's bound, the length 1.73e15 past the glTF reader's */
    static const char bvh[] = "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 3 Xposition Yposition Zposition\n"
                              " End Site\n {\n  OFFSET 0 1 0\n }\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n"
                              "1e15 1e15 1e15\n0 0 0\n";
    sk_asset *a = NULL;
    sk_error err = {0};
    assert_int_equal(sk_bvh_load_memory(bvh, sizeof bvh - 1, "far", NULL, &a, &err), SK_OK);
    void *data = NULL;
    size_t size = 0;
    assert_int_equal(sk_glb_write_memory(a, &data, &size, &err), SK_ERR_INVALID_ARGUMENT);
    assert_null(data);
    assert_non_null(strstr(err.message, "the glTF reader would refuse the file"));
    assert_non_null(strstr(err.message, "world transform"));
    sk_asset_destroy(a);
    /* within the bound it is written, and reads back */
    static const char near[] = "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 3 Xposition Yposition Zposition\n"
                               " End Site\n {\n  OFFSET 0 1 0\n }\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n"
                               "1e3 1e3 1e3\n0 0 0\n";
    assert_int_equal(sk_bvh_load_memory(near, sizeof near - 1, "near", NULL, &a, &err), SK_OK);
    assert_int_equal(sk_glb_write_memory(a, &data, &size, &err), SK_OK);
    sk_asset *back = NULL;
    assert_int_equal(sk_gltf_load_memory(data, size, NULL, NULL, &back, &err), SK_OK);
    sk_asset_destroy(back);
    sk_free(sk_asset_allocator(a), data, size);
    sk_asset_destroy(a);
}

/* ---- b6: constant rotations of a compressed clip ---------------------------- */

static void b6_compressed_constant_rotation(void **state) {
    (void)state;
    /* a clip whose every track is constant: the blob stores each value once */
    const float times[2] = {0.0f, 1.0f};
    sk_skeleton *s = sk_test_chain_skeleton(4, 11);
    sk_clip *c = keyed_clip(4, times, 2);
    sk_clip *cc = NULL;
    assert_int_equal(sk_clip_compress(c, s, NULL, NULL, &cc, NULL, NULL), SK_OK);
    const void *data;
    size_t size;
    assert_true(sk_clip_compressed_data(cc, &data, &size));
    uint8_t *b = malloc(size);
    assert_non_null(b);
    memcpy(b, data, size);
    uint32_t T, A;
    memcpy(&T, b + 24, 4);
    memcpy(&A, b + 28, 4);
    assert_int_equal(A, 0); /* all constant: the first constant is track 0's, a rotation */
    float *q = (float *)(void *)(b + SK_CC_HEADER + 4u * T);
    /* an untouched copy loads */
    sk_clip *ok = NULL;
    assert_int_equal(sk_clip_from_compressed("c", b, size, true, NULL, &ok, NULL), SK_OK);
    sk_clip_destroy(ok);
    /* (0, 0, 2, 1): length 2.236, what one changed byte made of the mannequin's .skc */
    q[0] = 0.0f, q[1] = 0.0f, q[2] = 2.0f, q[3] = 1.0f;
    sk_clip *bad = NULL;
    sk_error err = {0};
    assert_int_equal(sk_clip_from_compressed("c", b, size, true, NULL, &bad, &err), SK_ERR_INVALID_DATA);
    assert_null(bad);
    assert_non_null(strstr(err.message, "unit quaternion"));
    /* within the glTF validator's tolerance (|length - 1| <= 0.00769) it loads */
    q[0] = 0.0f, q[1] = 0.0f, q[2] = 0.0f, q[3] = 1.005f;
    assert_int_equal(sk_clip_from_compressed("c", b, size, true, NULL, &ok, NULL), SK_OK);
    sk_clip_destroy(ok);
    free(b);
    sk_clip_destroy(cc);
    sk_clip_destroy(c);
    sk_skeleton_destroy(s);
}

/* ---- minor: cycle durations the analysis takes ---------------------------- */

static void minor_analysis_cycle_bounds(void **state) {
    (void)state;
    sk_asset *a = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, NULL), SK_OK);
    sk_leg_desc legs[2];
    assert_int_equal(sk_legs_find(a->skeleton, legs, 2), 2);
    static const struct { float end; sk_result want; const char *says; } cases[] = {
        {0.008f, SK_ERR_INVALID_DATA, "shorter than"}, /* 2 frames, 8 ms: taken as a walk cycle before */
        {4000.0f, SK_ERR_LIMIT, "longer than an hour"},
    };
    for (size_t i = 0; i < 2; i++) {
        const float times[2] = {0.0f, cases[i].end};
        const float tv[6] = {0, 1, 0, 0, 1, 0.5f};
        sk_clip_builder *b = NULL;
        assert_int_equal(sk_clip_builder_create("short", NULL, &b, NULL), SK_OK);
        sk_track_desc d = {0, SK_PATH_TRANSLATION, SK_INTERP_LINEAR, 2, times, tv, 3};
        assert_int_equal(sk_clip_builder_add_track(b, &d, NULL), SK_OK);
        sk_clip *c = NULL;
        assert_int_equal(sk_clip_builder_finish(b, &c, NULL), SK_OK);
        sk_motion_analysis *m = NULL;
        sk_error err = {0};
        assert_int_equal(sk_motion_analyze(a->skeleton, c, legs, 2, NULL, NULL, &m, &err), cases[i].want);
        assert_null(m);
        assert_non_null(strstr(err.message, cases[i].says));
        sk_clip_destroy(c);
    }
    sk_asset_destroy(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(b1_compress_long_sparse_clip),
        cmocka_unit_test(b1_resample_long_frame_time),
        cmocka_unit_test(b1_ordinary_clip_unaffected),
        cmocka_unit_test(b3_paths_that_return),
        cmocka_unit_test(b3_short_path_message),
        cmocka_unit_test(b5_writer_world_bound),
        cmocka_unit_test(b6_compressed_constant_rotation),
        cmocka_unit_test(minor_analysis_cycle_bounds),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
