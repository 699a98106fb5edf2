/* Compression ratio floors: the 21 CMU captures of ../shared/mocap/bvh
 * compressed as `skelanim compress` and docs/compression.md's results table
 * do it (0.01 cm error, 3 cm shell, CMU units 0.056444 m, the *_scaled ones
 * metres), at their own 120 frames/s and resampled to 24 frames/s
 * (sk_clip_resample: every 5th frame, as `--fps 24`). For every clip at both
 * rates:
 *  - the ratio, taken against the input clip's own keys (joints with a track
 *    x the input's frames x 10 float32: what the clip given to the compressor
 *    holds, whatever rate the compressor stores it at), is at or above the
 *    clip's floor below (test_compress.c prints ratios; this holds them: a
 *    compressor storing every frame at full precision would pass every other
 *    test);
 *  - the compressed clip is within the error target, measured with the
 *    library's sk_clip_shell_error against the input clip (1) at the
 *    compressed clip's own frames, k / its frame rate (the float32 rate it
 *    decodes with, sk_compress_stats.sample_rate), and at a quarter, half and
 *    three quarters between them: the times the compressor promises the
 *    error at, so no allowance; (2) at the input's own keys and the same
 *    fractions between them, within ERROR_KEYS_SLACK more: that float32 rate
 *    puts frame k at k / rate, which drifts from the input's key k (by up
 *    to about 2e-7 s on the longest clips), and at the input's keys the
 *    error measured 0.010014 cm at most (60_04_scaled, 120 fps).
 * The number of clips checked is asserted (21 per rate, 21 floors at each);
 * under CI=true a missing shared file fails the test
 * (tests/support.h).
 *
 * Under a sanitizer (the SK_SANITIZE=ON Debug build: AddressSanitizer and
 * UBSan) compressing every clip at both rates took about four minutes of CPU
 * (5.5 minutes on the shared machine), so such a build checks a subset: every
 * clip at 24 fps and the three shortest at 120 fps (09_11, 07_01 and 02_01),
 * and asserts those counts. SK_FLOOR_ALL=1 checks them all there too. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMU_M_PER_UNIT 0.056444
#define ERROR_CM 0.01
#define SHELL_CM 3.0
#define ERROR_KEYS_SLACK 1.005 /* at the input's own keys: 0.5 % over the target, for the frames' drift (above) */
#define FLOOR_MARGIN 0.99      /* the floors are today's ratios less 1 % */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

enum { MOCAP_CLIPS = 21, SANITIZED_120 = 3 };

/* Floors: main's ratios (the input's raw bytes / the blob's bytes) measured
 * with this test on main at 8271057, less 1 %, rounded down to 0.01 (each
 * row's comment: the measured ratios at 120 and 24 fps). To regenerate after
 * a deliberate change of the compressor: run this test (a build without
 * sanitizers) with SK_FLOOR_TABLE=1 in the environment; it prints this table
 * with the new figures, measured less 1 %, ready to paste.
 *
 * 01_01 at 24 fps: its floor was left out while the compressor could store
 * a clip above its input's rate; it never does now (test_compress_rate.c),
 * and 01_01 is stored at its input's 24 fps, 551 frames: 11.364:1.
 * short_clip: one of the three shortest clips, the ones a sanitizer build
 * checks at 120 fps too. */
static const struct floor_row {
    const char *clip;
    double floor120, floor24;
    bool short_clip;
} FLOORS[MOCAP_CLIPS] = {
    {"01_01", 13.56, 11.25, false},        /* 13.703, 11.364 */
    {"02_01", 12.09, 9.50, true},          /* 12.221, 9.598 */
    {"05_06", 11.41, 9.35, false},         /* 11.535, 9.451 */
    {"07_01_fbx2bvh", 14.80, 11.71, true}, /* 14.957, 11.835 */
    {"09_11_fbx2bvh", 13.70, 10.17, true}, /* 13.848, 10.276 */
    {"131_01", 14.43, 11.75, false},       /* 14.581, 11.870 */
    {"131_03", 14.48, 11.78, false},       /* 14.633, 11.909 */
    {"49_08_fbx2bvh", 14.33, 11.59, false},/* 14.476, 11.713 */
    {"55_01_fbx2bvh", 16.58, 13.90, false},/* 16.754, 14.046 */
    {"60_01_scaled", 25.13, 20.96, false}, /* 25.387, 21.176 */
    {"60_02_scaled", 24.65, 20.58, false}, /* 24.907, 20.794 */
    {"60_03_scaled", 25.01, 20.89, false}, /* 25.268, 21.106 */
    {"60_04_scaled", 24.92, 20.72, false}, /* 25.181, 20.929 */
    {"60_05_scaled", 24.88, 20.67, false}, /* 25.140, 20.885 */
    {"60_06_scaled", 25.78, 21.62, false}, /* 26.042, 21.848 */
    {"61_01_scaled", 24.33, 20.47, false}, /* 24.584, 20.679 */
    {"61_02_scaled", 24.17, 20.28, false}, /* 24.421, 20.488 */
    {"61_03_scaled", 24.30, 20.40, false}, /* 24.555, 20.612 */
    {"61_04_scaled", 24.37, 20.36, false}, /* 24.619, 20.572 */
    {"61_05_scaled", 24.24, 20.38, false}, /* 24.492, 20.594 */
    {"61_06_scaled", 23.97, 20.27, false}, /* 24.220, 20.478 */
};

typedef struct measured {
    double ratio, err_cm, err_keys_cm, stored_fps;
    uint32_t frames, stored_frames, joints;
    size_t raw, bytes;
} measured;

/* The joints with at least one track (BVH: ROOT and JOINT, not the end
 * sites) and the clip's frames (its tracks' key count: one key per frame). */
static void input_size(const sk_clip *c, uint32_t *joints, uint32_t *frames) {
    uint32_t T = sk_clip_track_count(c), span = sk_clip_joint_span(c), n = 0, f = 0;
    unsigned char *has = calloc(span ? span : 1, 1);
    assert_non_null(has);
    for (uint32_t i = 0; i < T; i++) {
        sk_track_info ti;
        assert_true(sk_clip_track_info(c, i, &ti));
        assert_true(ti.joint < span);
        n += !has[ti.joint];
        has[ti.joint] = 1;
        if (ti.key_count > f) f = ti.key_count;
    }
    free(has);
    *joints = n, *frames = f;
}

/* The largest shell error (cm) of cc against in at frames 0..n-1 (frame k at
 * k * step, the last at end) and at a quarter, half and three quarters
 * between them. */
static double shell_error_cm(const sk_clip *in, const sk_clip *cc, const sk_skeleton *s, double cm, uint32_t n,
                             double step, double end, const char *what) {
    size_t count = 4 * (size_t)(n - 1) + 1;
    double *times = malloc(count * sizeof *times);
    assert_non_null(times);
    for (size_t i = 0; i < count; i++) {
        size_t k = i / 4;
        double t0 = (double)k * step, t1 = k + 2 == n ? end : (double)(k + 1) * step;
        times[i] = i + 1 == count ? end : t0 + 0.25 * (double)(i % 4) * (t1 - t0);
    }
    double mx = 0.0;
    sk_error err = {0};
    if (sk_clip_shell_error(in, cc, s, SHELL_CM / cm, times, count, NULL, &mx, NULL, &err) != SK_OK)
        fail_msg("%s: %s", what, err.message);
    free(times);
    return mx * cm;
}

/* Compresses in (a clip of skeleton s, positions in units of mpu metres) and
 * measures it against in. */
static void measure(const sk_clip *in, const sk_skeleton *s, double mpu, const char *what, measured *out) {
    memset(out, 0, sizeof *out);
    input_size(in, &out->joints, &out->frames);
    assert_true(out->joints > 0 && out->frames > 1);
    sk_compress_options o = {ERROR_CM, SHELL_CM, mpu, 0, 0, 0};
    sk_compress_stats st;
    sk_clip *cc = NULL;
    sk_error err = {0};
    if (sk_clip_compress(in, s, &o, NULL, &cc, &st, &err) != SK_OK) fail_msg("%s: %s", what, err.message);
    assert_true(sk_clip_is_compressed(cc));
    const void *blob = NULL;
    assert_true(sk_clip_compressed_data(cc, &blob, &out->bytes));
    assert_true(out->bytes > 0);
    out->raw = (size_t)out->joints * out->frames * 10u * sizeof(float);
    out->ratio = (double)out->raw / (double)out->bytes;
    out->stored_fps = st.sample_rate, out->stored_frames = st.frames;
    assert_true(st.frames > 1 && st.sample_rate > 0.0);
    double cm = 100.0 * mpu;
    /* (1) the compressed clip's frames, (2) the input's keys */
    out->err_cm = shell_error_cm(in, cc, s, cm, st.frames, 1.0 / st.sample_rate, sk_clip_duration(cc), what);
    out->err_keys_cm = shell_error_cm(in, cc, s, cm, out->frames, sk_clip_duration(in) / (out->frames - 1),
                                      sk_clip_duration(in), what);
    sk_clip_destroy(cc);
}

static void test_compress_floors(void **state) {
    (void)state;
    const char *shared = sk_test_require_shared();
    const char *env_table = getenv("SK_FLOOR_TABLE"), *env_all = getenv("SK_FLOOR_ALL");
    const bool table = env_table && !strcmp(env_table, "1"), all = !SANITIZED || (env_all && !strcmp(env_all, "1"));
    measured got[MOCAP_CLIPS][2];
    memset(got, 0, sizeof got);
    int checked[2] = {0, 0}, floors[2] = {0, 0}, below = 0, over = 0;
    double raw[2] = {0, 0}, packed[2] = {0, 0}, worst[2] = {0, 0};
    if (!all) printf("a sanitizer build: every clip at 24 fps, the %d shortest at 120 fps (SK_FLOOR_ALL=1: all)\n", SANITIZED_120);
    for (int i = 0; i < MOCAP_CLIPS; i++) {
        const char *name = FLOORS[i].clip;
        char path[4096];
        snprintf(path, sizeof path, "%s/mocap/bvh/%s.bvh", shared, name);
        FILE *f = fopen(path, "rb");
        if (!f) sk_test_missing("%s: cannot open (one of the %d CMU clips this test holds floors for)", path, MOCAP_CLIPS);
        fclose(f);
        sk_asset *as = NULL;
        sk_error err = {0};
        if (sk_bvh_load_file(path, NULL, &as, &err) != SK_OK) fail_msg("%s: %s", path, err.message);
        assert_int_equal(as->clip_count, 1);
        const double mpu = strstr(name, "_scaled") ? 1.0 : CMU_M_PER_UNIT;
        for (int r = 0; r < 2; r++) {
            if (r == 0 && !all && !FLOORS[i].short_clip) continue;
            sk_clip *res = NULL;
            if (r == 1 && sk_clip_resample(as->clips[0], as->skeleton, 24.0, NULL, &res, &err) != SK_OK)
                fail_msg("%s: resampling to 24 fps: %s", name, err.message);
            char what[96];
            snprintf(what, sizeof what, "%s at %d fps", name, r ? 24 : 120);
            measured *m = &got[i][r];
            measure(res ? res : as->clips[0], as->skeleton, mpu, what, m);
            sk_clip_destroy(res);
            const double fl = r ? FLOORS[i].floor24 : FLOORS[i].floor120;
            const bool held = fl > 0.0;
            printf("%-24s %5u frames x %2u joints %9zu -> %7zu bytes: %6.3f:1 (floor %s%.2f); stored at %.4g fps, %u "
                   "frames; error %.6f cm at its frames, %.6f at the input's keys\n",
                   what, m->frames, m->joints, m->raw, m->bytes, m->ratio, held ? "" : "none, ", fl, m->stored_fps,
                   m->stored_frames, m->err_cm, m->err_keys_cm);
            checked[r]++;
            raw[r] += (double)m->raw, packed[r] += (double)m->bytes;
            worst[0] = fmax(worst[0], m->err_cm), worst[1] = fmax(worst[1], m->err_keys_cm);
            if (held) {
                floors[r]++;
                if (!(m->ratio >= fl)) {
                    fprintf(stderr, "FAIL: %s: ratio %.3f below its floor %.2f\n", what, m->ratio, fl);
                    below++;
                }
            }
            if (!(m->err_cm <= ERROR_CM) || !(m->err_keys_cm <= ERROR_CM * ERROR_KEYS_SLACK)) {
                fprintf(stderr, "FAIL: %s: error %.6f cm at its frames (target %.2f), %.6f at the input's keys (%.5f)\n",
                        what, m->err_cm, ERROR_CM, m->err_keys_cm, ERROR_CM * ERROR_KEYS_SLACK);
                over++;
            }
        }
        sk_asset_destroy(as);
    }
    printf("compression floors: %d clips at 120 fps (%d floors, all together %.2f:1), %d at 24 fps (%d floors, %.2f:1); "
           "%d below their floor; worst error %.6f cm at the frames, %.6f at the input's keys, %d over\n",
           checked[0], floors[0], packed[0] > 0 ? raw[0] / packed[0] : 0.0, checked[1], floors[1],
           packed[1] > 0 ? raw[1] / packed[1] : 0.0, below, worst[0], worst[1], over);
    if (table) {
        printf("/* the measured ratios less 1 %%, for FLOORS */\n");
        for (int i = 0; i < MOCAP_CLIPS; i++) {
            double f120 = floor(got[i][0].ratio * FLOOR_MARGIN * 100.0) / 100.0,
                   f24 = floor(got[i][1].ratio * FLOOR_MARGIN * 100.0) / 100.0;
            printf("    {\"%s\", %.2f, %.2f, %s}, /* %.3f, %.3f */\n", FLOORS[i].clip, f120, f24,
                   FLOORS[i].short_clip ? "true" : "false", got[i][0].ratio, got[i][1].ratio);
        }
    }
    const int want120 = all ? MOCAP_CLIPS : SANITIZED_120;
    assert_int_equal(checked[0], want120);
    assert_int_equal(floors[0], want120);
    assert_int_equal(checked[1], MOCAP_CLIPS);
    assert_int_equal(floors[1], MOCAP_CLIPS);
    assert_int_equal(below, 0);
    assert_int_equal(over, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compress_floors),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
