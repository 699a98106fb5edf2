/* The compressor on every kind of glTF key (issue #38, item 3):
 *  - InterpolationTest (../shared/assets/gltf): every one of its 9 clips
 *    (counted) compresses at 0.01 cm with a 3 cm shell, STEP, LINEAR and
 *    CUBICSPLINE, keys at irregular times on a 1/24 s grid; each compressed
 *    clip sampled against the source (sk_clip_sample on the glTF clip) at
 *    2,000 even times, at every key, 1e-4 s and 1e-6 s before and after every
 *    key and at the quarters between keys, measured with the test's own
 *    double-precision FK and shell vertices: within the bound. A STEP track
 *    stays stepped: it is reported STEP with the source's keys, every
 *    decoder (scalar, AVX2, AVX-512, rows; AoS and SoA) gives the source's
 *    key value bit for bit, constant between keys and jumping at them, also
 *    after a .skc round trip. Under CI=true a missing ../shared fails.
 *  - Irregular key times on the grid of a non-integer rate (1 to 4 frames of
 *    29.97 frames/s apart) on a LINEAR clip: no rate of its own
 *    (sk_clip_key_rate 0), compressed on that grid, within the bound at the
 *    keys (where the input's own interpolation turns) and between them.
 *  - An additive (delta) clip (sk_pose_make_additive of a clip against its
 *    first pose) is measured between keys as well as at them: the
 *    compressor's own count of error samples is the frames, the three
 *    quarters between each pair and the input's off-frame key times, and the
 *    delta sampled here between keys as a pose stays within the bound.
 *    Applied on a base pose (sk_pose_apply_additive on the source clip at
 *    another time) it does not: 0.0106 cm, printed, asserted only below
 *    twice the bound; measuring a delta on its base is open. */
#include "support.h"
#include "core/clip_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHELL_M 0.03
#define ERROR_M 1e-4 /* 0.01 cm */

#include "fk_double.h"

/* The largest shell-vertex distance over every joint between two local poses. */
static double pose_error(const sk_skeleton *s, const sk_transform *a, const sk_transform *b, xf *m) {
    uint32_t J = s->joint_count;
    fk(s, a, m);
    fk(s, b, m + J);
    double worst = 0.0;
    for (uint32_t j = 0; j < J; j++)
        for (int v = 0; v < 3; v++) {
            double d2 = 0.0;
            for (int r = 0; r < 3; r++) {
                double x = m[j].m[9 + r] + SHELL_M * m[j].m[v * 3 + r], y = m[J + j].m[9 + r] + SHELL_M * m[J + j].m[v * 3 + r];
                d2 += (x - y) * (x - y);
            }
            if (!(sqrt(d2) <= worst)) worst = sqrt(d2);
        }
    return worst;
}

/* The times to sample clip src at: 2,000 even ones, every key of every
 * track, 1e-4 s and 1e-6 s either side of each and the quarters between
 * consecutive keys, clamped to [0, duration]. *n: their count (the caller frees). */
static double *sample_times(const sk_clip *src, size_t *n) {
    double dur = sk_clip_duration(src);
    size_t cap = 2001;
    for (uint32_t i = 0; i < sk_clip_track_count(src); i++) {
        sk_track_info ti;
        assert_true(sk_clip_track_info(src, i, &ti));
        cap += 8 * (size_t)ti.key_count;
    }
    double *t = malloc(cap * sizeof *t);
    assert_non_null(t);
    size_t m = 0;
    for (int k = 0; k <= 2000; k++) t[m++] = dur * k / 2000.0;
    for (uint32_t i = 0; i < sk_clip_track_count(src); i++) {
        sk_track_info ti;
        sk_clip_track_info(src, i, &ti);
        float *kt = malloc(ti.key_count * sizeof *kt);
        assert_non_null(kt);
        sk_clip_track_keys(src, i, kt, NULL);
        for (uint32_t k = 0; k < ti.key_count; k++) {
            static const double d[6] = {0.0, -1e-4, 1e-4, -1e-6, 1e-6, 0.0};
            for (int q = 0; q < 5; q++) t[m++] = fmin(dur, fmax(0.0, (double)kt[k] + d[q]));
            for (int q = 1; q < 4 && k + 1 < ti.key_count; q++) t[m++] = kt[k] + 0.25 * q * ((double)kt[k + 1] - kt[k]);
        }
        free(kt);
    }
    *n = m;
    return t;
}

/* A STEP track's value at t, from its keys (the key at or before t; the first before it). */
static const float *step_key(const float *kt, const float *kv, uint32_t n, uint32_t w, double t) {
    uint32_t k = 0;
    while (k + 1 < n && (double)kt[k + 1] <= t) k++;
    return kv + (size_t)k * w;
}

static void get_path(const sk_transform *x, sk_track_path p, float *v) {
    if (p == SK_PATH_ROTATION) v[0] = x->r.x, v[1] = x->r.y, v[2] = x->r.z, v[3] = x->r.w;
    else if (p == SK_PATH_TRANSLATION) v[0] = x->t.x, v[1] = x->t.y, v[2] = x->t.z;
    else v[0] = x->s.x, v[1] = x->s.y, v[2] = x->s.z;
}

/* Every decoder and sampling entry point gives the STEP value of track ti of
 * cc (the source's keys kt, kv) at t, bit for bit. */
static void check_step_at(const sk_skeleton *s, const sk_clip *cc, const sk_track_info *ti, const float *kt, const float *kv,
                          double t, sk_transform *pose, sk_soa_pose *soa) {
    uint32_t w = ti->width, J = s->joint_count;
    const float *want = step_key(kt, kv, ti->key_count, w, t);
    float got[4];
    assert_int_equal(sk_clip_sample(cc, s, t, SK_LOOP_CLAMP, SK_POSE_OF(s, pose, NULL), NULL), SK_OK);
    get_path(&pose[ti->joint], ti->path, got);
    assert_memory_equal(got, want, w * sizeof(float));
    for (int level = SK_CC_SCALAR; level <= SK_CC_BEST; level++) {
        memcpy(pose, s->rest, J * sizeof *pose);
        sk_cclip_sample_tracks_simd(cc, sk_clip_wrap_time(cc, t, SK_LOOP_CLAMP), NULL, pose, level);
        get_path(&pose[ti->joint], ti->path, got);
        assert_memory_equal(got, want, w * sizeof(float));
    }
    assert_int_equal(sk_clip_sample_soa(cc, s, t, SK_LOOP_CLAMP, NULL, 0, soa, NULL), SK_OK);
    sk_transform x;
    assert_true(sk_soa_pose_get(soa, ti->joint, &x));
    get_path(&x, ti->path, got);
    assert_memory_equal(got, want, w * sizeof(float));
}

/* Clip i of the source and its compressed form: sampled at sample_times, within the bound; its STEP tracks exact. */
static double check_clip(const sk_skeleton *s, const sk_clip *src, const sk_clip *cc, uint32_t *steps_seen) {
    uint32_t J = s->joint_count;
    sk_transform *l = malloc(2 * J * sizeof *l);
    xf *m = malloc(2 * J * sizeof *m);
    sk_soa_pose soa;
    assert_true(l && m);
    assert_int_equal(sk_soa_pose_alloc(s, NULL, &soa, NULL), SK_OK);
    size_t n;
    double *t = sample_times(src, &n), worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(sk_clip_sample(src, s, t[i], SK_LOOP_CLAMP, SK_POSE_OF(s, l, NULL), NULL), SK_OK);
        assert_int_equal(sk_clip_sample(cc, s, t[i], SK_LOOP_CLAMP, SK_POSE_OF(s, l + J, NULL), NULL), SK_OK);
        double e = pose_error(s, l, l + J, m);
        if (!(e <= worst)) worst = e;
    }
    /* the STEP tracks: reported STEP with the source's keys; every sampler gives their values exactly */
    assert_int_equal(sk_clip_track_count(cc), sk_clip_track_count(src));
    for (uint32_t i = 0; i < sk_clip_track_count(src); i++) {
        sk_track_info ti, ci;
        sk_clip_track_info(src, i, &ti);
        sk_clip_track_info(cc, i, &ci);
        if (ti.interpolation != SK_INTERP_STEP) continue;
        (*steps_seen)++;
        assert_int_equal(ci.interpolation, SK_INTERP_STEP);
        assert_int_equal(ci.key_count, ti.key_count);
        assert_int_equal(ci.joint, ti.joint);
        uint32_t w = ti.width, nk = ti.key_count;
        float *kt = malloc(nk * sizeof *kt), *kv = malloc((size_t)nk * w * sizeof *kv);
        float *ct = malloc(nk * sizeof *ct), *cv = malloc((size_t)nk * w * sizeof *cv);
        assert_true(kt && kv && ct && cv);
        sk_clip_track_keys(src, i, kt, kv);
        sk_clip_track_keys(cc, i, ct, cv);
        assert_memory_equal(kt, ct, nk * sizeof *kt);
        assert_memory_equal(kv, cv, (size_t)nk * w * sizeof *kv);
        for (size_t k = 0; k < n; k++) check_step_at(s, cc, &ti, kt, kv, t[k], l, &soa);
        /* stepped: constant from a key to just before the next, a jump at each key where the values differ */
        for (uint32_t k = 0; k + 1 < nk; k++) {
            float a[4], b[4], c[4];
            double t0 = kt[k], t1 = kt[k + 1], before = nextafter(t1, 0.0);
            assert_int_equal(sk_clip_sample(cc, s, t0, SK_LOOP_CLAMP, SK_POSE_OF(s, l, NULL), NULL), SK_OK);
            get_path(&l[ti.joint], ti.path, a);
            for (int q = 1; q <= 8; q++) {
                double tq = q == 8 ? before : t0 + (t1 - t0) * q / 8.0;
                assert_int_equal(sk_clip_sample(cc, s, tq, SK_LOOP_CLAMP, SK_POSE_OF(s, l, NULL), NULL), SK_OK);
                get_path(&l[ti.joint], ti.path, b);
                assert_memory_equal(a, b, w * sizeof(float));
            }
            assert_int_equal(sk_clip_sample(cc, s, t1, SK_LOOP_CLAMP, SK_POSE_OF(s, l, NULL), NULL), SK_OK);
            get_path(&l[ti.joint], ti.path, c);
            if (memcmp(kv + (size_t)k * w, kv + (size_t)(k + 1) * w, w * sizeof(float)))
                assert_memory_not_equal(b, c, w * sizeof(float));
            assert_memory_equal(c, kv + (size_t)(k + 1) * w, w * sizeof(float));
        }
        free(kt), free(kv), free(ct), free(cv);
    }
    free(t);
    free(l);
    free(m);
    sk_soa_pose_free(&soa, NULL);
    return worst;
}

/* The shared InterpolationTest.glb (three STEP, three LINEAR, three CUBICSPLINE clips). */
static sk_asset *load_interpolation_test(void) {
    char path[4096];
    sk_test_require_shared_file(path, sizeof path, "assets/gltf/InterpolationTest/InterpolationTest.glb");
    sk_asset *as = NULL;
    sk_error err = {0};
    if (sk_gltf_load_file(path, NULL, &as, &err) != SK_OK) fail_msg("%s: %s", path, err.message);
    return as;
}

static void test_interpolation_test(void **state) {
    (void)state;
    sk_asset *as = load_interpolation_test();
    sk_error err = {0};
    assert_int_equal(as->clip_count, 9); /* 3 STEP, 3 LINEAR, 3 CUBICSPLINE: all of them */
    const sk_skeleton *s = as->skeleton;
    sk_clip *out[9] = {0};
    uint32_t steps = 0, cubic = 0, stepped_clips = 0;
    double worst_all = 0.0;
    for (uint32_t i = 0; i < as->clip_count; i++) {
        const sk_clip *src = as->clips[i];
        sk_compress_options o = {0};
        sk_compress_stats st;
        sk_result r = sk_clip_compress(src, s, &o, NULL, &out[i], &st, &err);
        if (r != SK_OK) fail_msg("clip '%s': %s", sk_clip_name(src), err.message);
        for (uint32_t k = 0; k < sk_clip_track_count(src); k++) {
            sk_track_info ti;
            sk_clip_track_info(src, k, &ti);
            cubic += ti.interpolation == SK_INTERP_CUBICSPLINE;
        }
        stepped_clips += st.step_tracks > 0;
        assert_true(st.max_error_cm <= 0.01);
        uint32_t before = steps;
        double e = check_clip(s, src, out[i], &steps);
        assert_int_equal(st.step_tracks, steps - before);
        printf("  %-24s %5u frames at %8.3f fps, %5zu B, reported %.5f cm, measured %.5f cm at %s\n", sk_clip_name(src),
               st.frames, st.sample_rate, st.compressed_bytes, st.max_error_cm, e * 100.0,
               "even times, keys, +-1e-4 and 1e-6 s, quarters");
        assert_true(e <= ERROR_M * 1.001);
        if (e > worst_all) worst_all = e;
    }
    assert_int_equal(steps, 3);
    assert_int_equal(stepped_clips, 3);
    assert_int_equal(cubic, 3);
    printf("InterpolationTest: %u clips, worst %.5f cm\n", as->clip_count, worst_all * 100.0);
    /* a .skc round trip keeps the step tracks (blob version 5) */
    void *mem = NULL;
    size_t size = 0;
    assert_int_equal(sk_skc_write_memory(s, out, 9, 1.0, NULL, &mem, &size, &err), SK_OK);
    sk_asset *back = NULL;
    assert_int_equal(sk_skc_load_memory(mem, size, false, NULL, &back, NULL, &err), SK_OK);
    assert_int_equal(back->clip_count, 9);
    uint32_t steps2 = 0;
    for (uint32_t i = 0; i < 9; i++) {
        assert_true(sk_clip_is_compressed(back->clips[i]));
        double e = check_clip(back->skeleton, as->clips[i], back->clips[i], &steps2);
        assert_true(e <= ERROR_M * 1.001);
    }
    assert_int_equal(steps2, 3);
    sk_asset_destroy(back);
    free(mem);
    for (uint32_t i = 0; i < 9; i++) sk_clip_destroy(out[i]);
    sk_asset_destroy(as);
}

/* The loader refuses hostile step keys (blob version 5): a blob of
 * InterpolationTest's "Step Rotation" mutated, each rejected with a message;
 * every truncation rejected. */
static void test_step_blob_hostile(void **state) {
    (void)state;
    sk_asset *as = load_interpolation_test();
    sk_error err = {0};
    const sk_clip *src = NULL;
    for (uint32_t i = 0; i < as->clip_count; i++)
        if (!strcmp(sk_clip_name(as->clips[i]), "Step Rotation")) src = as->clips[i];
    assert_non_null(src);
    sk_clip *cc = NULL, *c = NULL;
    assert_int_equal(sk_clip_compress(src, as->skeleton, NULL, NULL, &cc, NULL, &err), SK_OK);
    const void *blob = NULL;
    size_t bs = 0;
    assert_true(sk_clip_compressed_data(cc, &blob, &bs));
    uint8_t *m = malloc(bs);
    assert_non_null(m);
    const uint8_t *b = blob;
    assert_int_equal(b[4], 5);  /* version 5 */
    assert_int_equal(b[36], 1); /* one step track */
    uint32_t T = b[24], A = b[28];
    assert_int_equal(A, 0);
    size_t st = 40 + 4 * (size_t)T + 16 * (size_t)(T - A); /* the step keys (no ranges: nothing animated) */
    assert_int_equal(b[st], 5); /* its 5 keys */
    struct { size_t at; uint32_t v; const char *msg; } cases[] = {
        {st, 1, "bad step key count"},
        {st, 0x7fffffffu, "bad step key count"},
        {st, 6, "outside the blob"},
        {st + 8, 0, "bad step key time"},           /* times[1] = 0 = times[0]: not increasing */
        {st + 4, 0xbf800000u, "bad step key time"}, /* times[0] = -1 */
        {st + 8, 0x7fc00000u, "bad step key time"}, /* NaN */
        {st + 24, 0x40000000u, "not a unit quaternion"}, /* a value's x = 2 */
        {st + 24, 0x7f800000u, "bad step key value"},
        {36, 2, "bad header"},
        {36, 0, "bad step track"}, /* a step track where the header counts none */
        {4, 4, "bad header"}, /* a version 4 blob with step tracks */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(m, blob, bs);
        for (int k = 0; k < 4; k++) m[cases[i].at + k] = (uint8_t)(cases[i].v >> 8 * k);
        assert_int_not_equal(sk_clip_from_compressed("hostile", m, bs, true, NULL, &c, &err), SK_OK);
        if (!strstr(err.message, cases[i].msg)) fail_msg("case %zu: '%s', expected '%s'", i, err.message, cases[i].msg);
        assert_null(c);
    }
    for (size_t n = 0; n < bs; n++) { /* every truncation, from an exact-size copy */
        uint8_t *t = malloc(n ? n : 1);
        memcpy(t, blob, n);
        assert_int_not_equal(sk_clip_from_compressed("cut", t, n, false, NULL, &c, &err), SK_OK);
        free(t);
    }
    free(m);
    sk_clip_destroy(cc);
    sk_asset_destroy(as);
}

/* A chain of four joints, 0.3 m apart (metres). */
static sk_skeleton *chain4(void) {
    int32_t parents[4] = {-1, 0, 1, 2};
    sk_transform rest[4];
    for (int j = 0; j < 4; j++)
        rest[j].r = sk_quat_make(0, 0, 0, 1), rest[j].t = sk_vec3_make(0, j ? 0.3f : 0.0f, 0), rest[j].s = sk_vec3_make(1, 1, 1);
    sk_skeleton_desc sd = {0};
    sd.joint_count = 4, sd.parents = parents, sd.rest = rest;
    sk_skeleton *s = NULL;
    assert_int_equal(sk_skeleton_create(&sd, NULL, &s, NULL), SK_OK);
    return s;
}

static sk_quat axis_angle(double x, double y, double z, double a) {
    double n = sqrt(x * x + y * y + z * z), sn = sin(0.5 * a) / n;
    return sk_quat_make((float)(x * sn), (float)(y * sn), (float)(z * sn), (float)cos(0.5 * a));
}

/* n keys at irregular times on the grid of a non-integer rate, 29.97
 * frames/s (gaps of 1 to 4 of its frames, irregular): the root sliding,
 * joints 1 and 2 turning; every key a pose of joints 0-2. */
static sk_clip *irregular_clip(sk_transform **poses_out, float **times_out, uint32_t n) {
    float *times = malloc(n * sizeof *times), *tr = malloc(n * 3 * sizeof *tr), *q1 = malloc(n * 4 * sizeof *q1),
          *q2 = malloc(n * 4 * sizeof *q2);
    assert_true(times && tr && q1 && q2);
    uint32_t g = 0;
    for (uint32_t k = 0; k < n; k++) {
        double t = g / 29.97;
        times[k] = (float)t;
        sk_quat a = axis_angle(0.2, 1.0, 0.1, 0.9 * sin(3.1 * t)), b = axis_angle(1.0, 0.3, 0.0, 0.7 * sin(5.3 * t + 0.4));
        memcpy(&q1[4 * k], &a, sizeof a);
        memcpy(&q2[4 * k], &b, sizeof b);
        tr[3 * k] = (float)(0.4 * sin(2.3 * t)), tr[3 * k + 1] = 1.0f, tr[3 * k + 2] = (float)(0.1 * t);
        g += 1u + (k * 7u) % 4u;
    }
    sk_clip_builder *b = NULL;
    assert_int_equal(sk_clip_builder_create("irregular", NULL, &b, NULL), SK_OK);
    sk_track_desc d[3] = {{0, SK_PATH_TRANSLATION, SK_INTERP_LINEAR, n, times, tr, 3},
                          {1, SK_PATH_ROTATION, SK_INTERP_LINEAR, n, times, q1, 4},
                          {2, SK_PATH_ROTATION, SK_INTERP_LINEAR, n, times, q2, 4}};
    for (int i = 0; i < 3; i++) assert_int_equal(sk_clip_builder_add_track(b, &d[i], NULL), SK_OK);
    sk_clip *c = NULL;
    assert_int_equal(sk_clip_builder_finish(b, &c, NULL), SK_OK);
    free(tr), free(q1), free(q2);
    if (times_out) *times_out = times;
    else free(times);
    (void)poses_out;
    return c;
}

/* The largest error of cc against src over sample_times. */
static double worst_over(const sk_skeleton *s, const sk_clip *src, const sk_clip *cc) {
    uint32_t J = s->joint_count;
    sk_transform *l = malloc(2 * J * sizeof *l);
    xf *m = malloc(2 * J * sizeof *m);
    assert_true(l && m);
    size_t n;
    double *t = sample_times(src, &n), worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(sk_clip_sample(src, s, t[i], SK_LOOP_CLAMP, SK_POSE_OF(s, l, NULL), NULL), SK_OK);
        assert_int_equal(sk_clip_sample(cc, s, t[i], SK_LOOP_CLAMP, SK_POSE_OF(s, l + J, NULL), NULL), SK_OK);
        double e = pose_error(s, l, l + J, m);
        if (!(e <= worst)) worst = e;
    }
    free(t), free(l), free(m);
    return worst;
}

static void test_irregular_keys(void **state) {
    (void)state;
    sk_skeleton *s = chain4();
    sk_clip *src = irregular_clip(NULL, NULL, 60), *cc = NULL;
    assert_true(sk_clip_key_rate(src) == 0.0);
    sk_compress_stats st;
    sk_error err = {0};
    sk_result r = sk_clip_compress(src, s, NULL, NULL, &cc, &st, &err);
    if (r != SK_OK) fail_msg("%s", err.message);
    double e = worst_over(s, src, cc);
    printf("irregular keys: %u frames at %g fps, %zu B, reported %.5f cm, measured %.5f cm\n", st.frames, st.sample_rate,
           st.compressed_bytes, st.max_error_cm, e * 100.0);
    assert_true(e <= ERROR_M * 1.001);
    sk_clip_destroy(cc);
    sk_clip_destroy(src);
    sk_skeleton_destroy(s);
}

/* An additive clip: each key of the irregular clip made a delta against its first pose. */
static void test_additive_between_keys(void **state) {
    (void)state;
    sk_skeleton *s = chain4();
    uint32_t J = s->joint_count, n = 40;
    float *times = NULL;
    sk_clip *src = irregular_clip(NULL, &times, n);
    sk_transform *p = malloc(J * sizeof *p), *ref = malloc(J * sizeof *ref), *dl = malloc(J * sizeof *dl);
    float *tr = malloc(n * 3 * sizeof *tr), *q1 = malloc(n * 4 * sizeof *q1), *q2 = malloc(n * 4 * sizeof *q2);
    assert_true(p && ref && dl && tr && q1 && q2);
    assert_int_equal(sk_clip_sample(src, s, 0.0, SK_LOOP_CLAMP, SK_POSE_OF(s, ref, NULL), NULL), SK_OK);
    for (uint32_t k = 0; k < n; k++) {
        assert_int_equal(sk_clip_sample(src, s, times[k], SK_LOOP_CLAMP, SK_POSE_OF(s, p, NULL), NULL), SK_OK);
        assert_int_equal(sk_pose_make_additive(s, SK_POSE_OF(s, p, NULL), SK_POSE_OF(s, ref, NULL), SK_POSE_OF(s, dl, NULL), NULL),
                         SK_OK);
        tr[3 * k] = dl[0].t.x, tr[3 * k + 1] = dl[0].t.y, tr[3 * k + 2] = dl[0].t.z;
        memcpy(&q1[4 * k], &dl[1].r, 4 * sizeof(float));
        memcpy(&q2[4 * k], &dl[2].r, 4 * sizeof(float));
    }
    sk_clip_builder *b = NULL;
    assert_int_equal(sk_clip_builder_create("delta", NULL, &b, NULL), SK_OK);
    sk_track_desc d[3] = {{0, SK_PATH_TRANSLATION, SK_INTERP_LINEAR, n, times, tr, 3},
                          {1, SK_PATH_ROTATION, SK_INTERP_LINEAR, n, times, q1, 4},
                          {2, SK_PATH_ROTATION, SK_INTERP_LINEAR, n, times, q2, 4}};
    for (int i = 0; i < 3; i++) assert_int_equal(sk_clip_builder_add_track(b, &d[i], NULL), SK_OK);
    sk_clip *delta = NULL, *cc = NULL;
    assert_int_equal(sk_clip_builder_finish(b, &delta, NULL), SK_OK);
    sk_compress_stats st;
    sk_error err = {0};
    sk_result r = sk_clip_compress(delta, s, NULL, NULL, &cc, &st, &err);
    if (r != SK_OK) fail_msg("%s", err.message);
    /* the compressor's own check: every frame, three quarters between each pair of frames and
     * the keys that are not frames (counted here), every joint */
    double dur = sk_clip_duration(delta);
    uint32_t off = 0;
    for (uint32_t k = 0; k < n; k++) {
        double f = times[k] * st.sample_rate;
        if (times[k] > 0.0 && times[k] < dur && fabs(times[k] - floor(f + 0.5) / st.sample_rate) > 1e-7) off++;
    }
    assert_int_equal(st.error_samples, J * (4u * (st.frames - 1u) + 1u + off));
    /* measured here between keys: the delta as a pose, and applied on the rest pose */
    double e = worst_over(s, delta, cc);
    sk_transform *l = malloc(2 * J * sizeof *l), *da = malloc(J * sizeof *da), *db = malloc(J * sizeof *db);
    xf *m = malloc(2 * J * sizeof *m);
    assert_true(l && da && db && m);
    double applied = 0.0;
    uint32_t seed = 99;
    for (int i = 0; i < 4000; i++) {
        double t = i < 2000 ? dur * i / 2000.0 : dur * sk_test_rnd(&seed);
        /* a delta pose: the identity where the clip has no track */
        for (uint32_t j = 0; j < J; j++)
            da[j].t = sk_vec3_make(0, 0, 0), da[j].r = sk_quat_make(0, 0, 0, 1), da[j].s = sk_vec3_make(1, 1, 1), db[j] = da[j];
        assert_int_equal(sk_clip_sample_tracks(delta, s, t, SK_LOOP_CLAMP, NULL, 0, SK_POSE_OF(s, da, NULL), NULL), SK_OK);
        assert_int_equal(sk_clip_sample_tracks(cc, s, t, SK_LOOP_CLAMP, NULL, 0, SK_POSE_OF(s, db, NULL), NULL), SK_OK);
        /* on a base pose: the source clip at another time (an animation under the layer) */
        assert_int_equal(sk_clip_sample(src, s, dur - t, SK_LOOP_CLAMP, SK_POSE_OF(s, l, NULL), NULL), SK_OK);
        memcpy(l + J, l, J * sizeof *l);
        assert_int_equal(sk_pose_apply_additive(s, SK_POSE_OF(s, l, NULL), SK_POSE_OF(s, da, NULL), 1.0f, NULL, NULL), SK_OK);
        assert_int_equal(sk_pose_apply_additive(s, SK_POSE_OF(s, l + J, NULL), SK_POSE_OF(s, db, NULL), 1.0f, NULL, NULL), SK_OK);
        double ea = pose_error(s, l, l + J, m);
        if (!(ea <= applied)) applied = ea;
    }
    printf("additive: %u frames at %g fps, %u error samples, reported %.5f cm, measured %.5f cm (delta), %.5f cm (applied on a base pose)\n",
           st.frames, st.sample_rate, st.error_samples, st.max_error_cm, e * 100.0, applied * 100.0);
    assert_true(e <= ERROR_M * 1.001);
    /* Applied on a base pose the error is not bounded by the compressor, which measures the
     * delta as a pose on the rest pose: measured 0.0106 cm here (6 % over). Open
     * (docs/compression.md, "STEP, CUBICSPLINE, irregular keys, additive clips"); this only
     * catches a gross change. */
    assert_true(applied <= 2.0 * ERROR_M);
    free(l), free(da), free(db), free(m), free(p), free(ref), free(dl), free(tr), free(q1), free(q2), free(times);
    sk_clip_destroy(cc);
    sk_clip_destroy(delta);
    sk_clip_destroy(src);
    sk_skeleton_destroy(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interpolation_test),
        cmocka_unit_test(test_step_blob_hostile),
        cmocka_unit_test(test_irregular_keys),
        cmocka_unit_test(test_additive_between_keys),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
