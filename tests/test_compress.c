/* Compressed clips (offline/compress.h): every shared mocap clip and glTF asset
 * compressed at 0.01 cm (3 cm shell) and sampled at 1,000 random times stays
 * within the error, measured here with forward kinematics of the test's own
 * (double precision, shell vertices along each joint's axes) against the raw
 * clip; the compressed clip through the whole sk_clip API (cursor, backward,
 * loop modes, track keys); and every truncation and byte flip of a blob is
 * rejected or loaded without reading outside it. The SIMD decoders and the
 * compressor's AVX2 kernels against the scalar ones: every level the CPU
 * supports, by the test's own reading of its features, must have run (one
 * "SIMD levels run:" line each; under CI a level not run fails, else a
 * note): test_simd_levels_run. Compression ratios: test_compress_floor.c. */
#include "support.h"

#include "core/clip_internal.h" /* the AVX2 and scalar decoders side by side */
#include "offline/compress_internal.h" /* the compressor's AVX2 and scalar kernels */
#include "skelanim/content/mannequin.h"
#include "skelanim/core/soa.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMU_M_PER_UNIT 0.056444
enum { RANDOM_TIMES = 1000, MOCAP_CLIPS = 21, GLTF_MODELS = 12 };

#include "fk_double.h"

/* Largest shell-vertex distance over the joints between the raw and the compressed pose at t. */
static double pose_error(const sk_skeleton *s, const sk_clip *raw, const sk_clip *cc, double t, double shell,
                         sk_transform *l0, sk_transform *l1, xf *m0, xf *m1) {
    assert_int_equal(sk_clip_sample(raw, s, t, SK_LOOP_CLAMP, SK_POSE_OF(s, l0, NULL), NULL), SK_OK);
    assert_int_equal(sk_clip_sample(cc, s, t, SK_LOOP_CLAMP, SK_POSE_OF(s, l1, NULL), NULL), SK_OK);
    fk(s, l0, m0);
    fk(s, l1, m1);
    double worst = 0.0;
    for (uint32_t j = 0; j < s->joint_count; j++)
        for (int v = 0; v < 3; v++) {
            double d2 = 0.0;
            for (int r = 0; r < 3; r++) {
                double a = m0[j].m[9 + r] + shell * m0[j].m[v * 3 + r], b = m1[j].m[9 + r] + shell * m1[j].m[v * 3 + r];
                d2 += (a - b) * (a - b);
            }
            if (!(sqrt(d2) <= worst)) worst = sqrt(d2);
        }
    return worst;
}

/* What float rounding adds to pose_error at a time between the compressor's
 * check points (the frames and the quarters between them): the raw clip's
 * and the decoder's interpolations each round a coordinate by up to half a
 * float ulp, so two ulps of the largest model-space coordinate of the pose
 * m (joints and their shell points), in metres: 5e-5 cm within 2 m of the
 * origin, 6e-3 cm at 300 m. */
static double rounding_allowance(const xf *m, uint32_t J, double shell) {
    double big = 0.0;
    for (uint32_t j = 0; j < J; j++)
        for (int v = 0; v < 4; v++)
            for (int r = 0; r < 3; r++) {
                double x = fabs(m[j].m[9 + r] + (v < 3 ? shell * m[j].m[v * 3 + r] : 0.0));
                big = x > big ? x : big;
            }
    return big > 0.0 ? 2.0 * ldexp(1.0, ilogb(big) - 23) : 0.0;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double rnd01(void) {
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

/* The decoder levels this program ran (bit: SK_CC_SCALAR, SK_CC_AVX2,
 * SK_CC_AVX512, SK_CC_ROWS8, SK_CC_ROWS) and the compressor's kernels (bit 0 scalar, 1
 * AVX2), as the library resolves a level asked for: test_simd_levels_run
 * (last) checks them against the CPU's own features. */
static unsigned cc_ran, cs_ran;

/* The decoder sk_cclip_sample_tracks_simd runs for level on cc: its dispatch
 * (clip_compressed_sample.c), which quietly falls back where the CPU lacks a
 * level: a clip given its rows at load (cc.rrows: AVX2 and 16 animated tracks
 * or more) takes the rows decoder of AVX-512 VBMI where the plan chose it
 * (cc.rows_vbmi: such a CPU and 24 tracks or more), else the one of AVX2;
 * else AVX-512 where available, else AVX2, scalar without AVX2. */
static int cc_resolved(const sk_clip *cc, int level) {
    if (level == SK_CC_SCALAR || !sk_cclip_simd_available()) return SK_CC_SCALAR;
    if (level >= SK_CC_ROWS && cc->cc.rrows && cc->cc.rows_vbmi) return SK_CC_ROWS;
    if (level >= SK_CC_ROWS8 && cc->cc.rrows) return SK_CC_ROWS8;
    if (level >= SK_CC_AVX512 && sk_cclip_avx512_available()) return SK_CC_AVX512;
    return SK_CC_AVX2;
}

/* The AVX2 decoder was compared with the scalar one: a CPU without AVX2 is a
 * missing prerequisite; a build configured with -DSK_SIMD=OFF has the scalar
 * decoder alone (the "AVX2" samples above ran it), and must not have more. */
static void avx2_decoder_compared(void) {
#if defined(SK_NO_SIMD)
    assert_false(sk_cclip_simd_available());
#else
    if (!sk_cclip_simd_available()) sk_test_missing("the CPU has no AVX2: the AVX2 decoder was not compared");
#endif
}

static const char *cc_level_name(int level) {
    static const char *const n[] = {"scalar", "AVX2", "AVX-512", "rows (AVX2)", "rows (AVX-512 VBMI)"};
    return n[level];
}

/* sk_cclip_sample_tracks_simd, the level it ran counted. */
static void cc_sample_level(const sk_clip *cc, double t, sk_transform *local, int level) {
    sk_cclip_sample_tracks_simd(cc, t, NULL, local, level);
    cc_ran |= 1u << cc_resolved(cc, level);
}

typedef struct tally { int clips, compressed, unsupported; double worst_cm; long simd_poses; } tally;

/* Compresses every clip of an asset and checks it at RANDOM_TIMES random times. */
static void check_asset(const char *label, const sk_asset *as, double m_per_unit, tally *ty) {
    const sk_skeleton *s = as->skeleton;
    uint32_t J = s->joint_count;
    sk_transform *l = calloc(2 * (size_t)J, sizeof *l);
    xf *m = calloc(2 * (size_t)J, sizeof *m);
    double cm = 100.0 * m_per_unit, shell = 3.0 / cm, limit = 0.01;
    for (uint32_t c = 0; c < as->clip_count; c++) {
        const sk_clip *raw = as->clips[c];
        sk_compress_options o = {0.01, 3.0, m_per_unit, 0, 0, 0};
        sk_compress_stats st;
        sk_clip *cc = NULL;
        sk_error err = {0};
        sk_result r = sk_clip_compress(raw, s, &o, NULL, &cc, &st, &err);
        ty->clips++;
        if (r == SK_ERR_UNSUPPORTED) { /* morph weights: the caller keeps the keys */
            printf("%-24s clip %u '%s': not compressed (%s)\n", label, c, sk_clip_name(raw), err.message);
            ty->unsupported++;
            continue;
        }
        if (r != SK_OK) fprintf(stderr, "%s clip %u: %s\n", label, c, err.message);
        assert_int_equal(r, SK_OK);
        assert_true(sk_clip_is_compressed(cc));
        assert_int_equal(sk_clip_track_count(cc), sk_clip_track_count(raw));
        assert_true(fabs(sk_clip_duration(cc) - sk_clip_duration(raw)) <= 1e-6 * fmax(1.0, sk_clip_duration(raw)));
        double d = sk_clip_duration(raw), worst = 0.0;
        for (int i = 0; i < RANDOM_TIMES; i++) {
            double t = i == 0 ? 0.0 : i == 1 ? d : rnd01() * d;
            double e = pose_error(s, raw, cc, t, shell, l, l + J, m, m + J) * cm;
            if (!(e <= worst)) worst = e;
        }
        printf("%-24s clip %u %-18.18s %5u frames %3u/%3u animated  %9.0f -> %7zu bytes (%5.1f:1)  "
               "compressor max %.4f p99 %.4f cm, random times max %.4f cm\n",
               label, c, sk_clip_name(raw), st.frames, st.animated_tracks, st.animated_tracks + st.constant_tracks,
               st.raw_bytes, st.compressed_bytes, st.raw_bytes / (double)st.compressed_bytes, st.max_error_cm,
               st.p99_error_cm, worst);
        assert_true(st.max_error_cm <= limit);
        assert_true(worst <= limit);
        /* the AVX2 decoder gives the scalar one's bits: at every frame, a
         * quarter past it (both frames in one segment, or across a segment
         * boundary) and at random times */
        uint32_t F = st.frames;
        for (uint32_t k = 0; k < 2 * F + 64; k++) {
            double t = k < 2 * F ? (k / 2 + 0.25 * (k & 1)) * (d / (F > 1 ? F - 1 : 1)) : rnd01() * d;
            for (int level = SK_CC_AVX2; level <= SK_CC_BEST; level++) {
                for (uint32_t j = 0; j < J; j++) l[j] = l[J + j] = s->rest[j];
                cc_sample_level(cc, t, l, SK_CC_SCALAR);
                cc_sample_level(cc, t, l + J, level);
                if (memcmp(l, l + J, J * sizeof *l) != 0)
                    fail_msg("%s clip %u: the %s decoder differs at t = %.9g", label, c, cc_level_name(cc_resolved(cc, level)), t);
            }
            ty->simd_poses++;
        }
        if (worst > ty->worst_cm) ty->worst_cm = worst;
        ty->compressed++;
        sk_clip_destroy(cc);
    }
    free(l);
    free(m);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void test_mocap_round_trip(void **state) {
    (void)state;
    const char *shared = sk_test_require_shared();
    char dir[2048], path[4096];
    snprintf(dir, sizeof dir, "%s/mocap/bvh", shared);
    DIR *d = opendir(dir);
    if (!d) sk_test_missing("%s: cannot open", dir);
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256) {
        size_t l = strlen(e->d_name);
        if (l > 4 && !strcmp(e->d_name + l - 4, ".bvh")) names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    tally ty = {0, 0, 0, 0, 0};
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        sk_asset *as = NULL;
        sk_error err = {0};
        assert_int_equal(sk_bvh_load_file(path, NULL, &as, &err), SK_OK);
        check_asset(names[i], as, strstr(names[i], "_scaled") ? 1.0 : CMU_M_PER_UNIT, &ty);
        sk_asset_destroy(as);
        free(names[i]);
    }
    printf("mocap: %d files, %d clips compressed, worst %.4f cm at random times\n", n, ty.compressed, ty.worst_cm);
    assert_int_equal(n, MOCAP_CLIPS);
    assert_int_equal(ty.compressed, MOCAP_CLIPS);
    printf("mocap: AVX2 and scalar decoders compared on %ld poses (and the AVX-512 decoding: %s; the rows decoder: %s)\n",
           ty.simd_poses, sk_cclip_avx512_available() ? "yes" : "no (none on this CPU or at this SIMD level)",
           sk_cclip_rows_available() ? "yes, and at AVX2" : sk_cclip_simd_available() ? "at AVX2 (no AVX-512 VBMI)" : "no");
    assert_true(ty.simd_poses >= 2L * 25000);
    avx2_decoder_compared();
}

static void test_gltf_round_trip(void **state) {
    (void)state;
    const char *shared = sk_test_require_shared();
    char dir[2048], path[4096];
    snprintf(dir, sizeof dir, "%s/assets/gltf", shared);
    char *names[256];
    int count = sk_test_model_dirs(dir, names, 256);
    tally ty = {0, 0, 0, 0, 0};
    for (int i = 0; i < count; i++) {
        snprintf(path, sizeof path, "%s/%s/%s.glb", dir, names[i], names[i]);
        FILE *f = fopen(path, "rb");
        if (f) fclose(f);
        else snprintf(path, sizeof path, "%s/%s/%s.gltf", dir, names[i], names[i]);
        sk_asset *as = NULL;
        sk_error err = {0};
        sk_result r = sk_gltf_load_file(path, NULL, &as, &err);
        if (r != SK_OK) fprintf(stderr, "%s: %s\n", path, err.message);
        assert_int_equal(r, SK_OK);
        check_asset(names[i], as, 1.0, &ty);
        sk_asset_destroy(as);
        free(names[i]);
    }
    printf("glTF: %d models, %d clips, %d compressed, %d kept as keys (morph weights), worst %.4f cm\n", count,
           ty.clips, ty.compressed, ty.unsupported, ty.worst_cm);
    assert_int_equal(count, GLTF_MODELS);
    assert_true(ty.compressed > 0);
    printf("glTF: AVX2 and scalar decoders compared on %ld poses\n", ty.simd_poses);
    assert_true(ty.simd_poses > 64L * ty.compressed);
    avx2_decoder_compared();
}

/* A clip of ../shared/mocap/bvh, loaded (fails the test if it does not load). */
static sk_asset *load_mocap(const char *shared, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/mocap/bvh/%s", shared, name);
    sk_asset *as = NULL;
    sk_error err = {0};
    assert_int_equal(sk_bvh_load_file(path, NULL, &as, &err), SK_OK);
    return as;
}

/* The AVX2 decoder's rotations far apart (frames more than a half-angle of
 * 0.05 rad apart, where the corrected nlerp's weight moves most: common at 24
 * frames/s) against the scalar decoder, bit for bit: four CMU clips kept at
 * every 5th frame, sampled at every frame, a quarter past it and 500 random
 * times. */
static void test_simd_far_lanes(void **state) {
    (void)state;
    const char *shared = sk_test_require_shared();
    static const char *const clips[] = {"02_01.bvh", "05_06.bvh", "131_03.bvh", "60_01_scaled.bvh"};
    long poses = 0, far_pairs = 0, wide_pairs = 0;
    for (int f = 0; f < 4; f++) {
        sk_asset *as = load_mocap(shared, clips[f]);
        sk_error err = {0};
        const sk_skeleton *s = as->skeleton;
        uint32_t J = s->joint_count;
        sk_compress_options o = {0.01, 3.0, strstr(clips[f], "_scaled") ? 1.0 : CMU_M_PER_UNIT, 0, 0, 0};
        sk_compress_stats st;
        sk_clip *res = NULL, *cc = NULL;
        assert_int_equal(sk_clip_resample(as->clips[0], s, 24.0, NULL, &res, &err), SK_OK);
        assert_int_equal(sk_clip_compress(res, s, &o, NULL, &cc, &st, &err), SK_OK);
        sk_clip_destroy(res);
        /* the frame pairs more than a half-angle of 0.05 rad apart, per rotation track */
        uint32_t F = st.frames, T = sk_clip_track_count(cc);
        unsigned char *far = calloc((size_t)F * T, 1);
        float *v = malloc((size_t)F * 4 * sizeof *v);
        for (uint32_t i = 0; i < T; i++) {
            sk_track_info ti;
            assert_true(sk_clip_track_info(cc, i, &ti));
            if (ti.path != SK_PATH_ROTATION) continue;
            assert_true(sk_clip_track_keys(cc, i, NULL, v));
            for (uint32_t k = 0; k + 1 < F; k++) {
                const float *a = v + 4 * k, *b = a + 4;
                float ad = fabsf(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
                /* 1: more than a half-angle of 0.05 rad apart; 2: more than 120 degrees (the far weights) */
                far[(size_t)k * T + i] = (unsigned char)((ad < 0.99875f) + (ad < SK_CC_FAR_BELOW));
            }
        }
        sk_transform *l = calloc(2 * (size_t)J, sizeof *l);
        double d = sk_clip_duration(cc), dt = d / (F > 1 ? F - 1 : 1);
        for (uint32_t k = 0; k < 2 * F + 500; k++) {
            double t = k < 2 * F ? (k / 2 + 0.25 * (k & 1)) * dt : rnd01() * d;
            for (int level = SK_CC_AVX2; level <= SK_CC_BEST; level++) {
                for (uint32_t j = 0; j < J; j++) l[j] = l[J + j] = s->rest[j];
                cc_sample_level(cc, t, l, SK_CC_SCALAR);
                cc_sample_level(cc, t, l + J, level);
                if (memcmp(l, l + J, J * sizeof *l) != 0)
                    fail_msg("%s: the %s decoder differs at t = %.9g", clips[f], cc_level_name(cc_resolved(cc, level)), t);
            }
            poses++;
            uint32_t k0 = (uint32_t)(t / dt);
            if (k0 + 1 < F && t / dt - k0 > 1e-6)
                for (uint32_t i = 0; i < T; i++) far_pairs += far[(size_t)k0 * T + i] > 0, wide_pairs += far[(size_t)k0 * T + i] > 1;
        }
        free(l);
        free(v);
        free(far);
        sk_clip_destroy(cc);
        sk_asset_destroy(as);
    }
    printf("24 frames/s: AVX2 and scalar decoders compared on %ld poses, %ld track samples 0.05 rad or more apart, %ld more "
           "than 120 degrees\n",
           poses, far_pairs, wide_pairs);
    assert_true(poses > 2000);
    assert_true(far_pairs > 1000);
    assert_true(wide_pairs >= 20);
    avx2_decoder_compared();
}

/* The decoder's interpolation (sk_cc_qlerp: the corrected nlerp, its own
 * coefficients beyond 120 degrees) against slerp in double precision, over
 * every angle between the keys (a half-angle of 0 to 90 degrees, both
 * signs of the dot product) and weights in [0, 1]: within 4e-7 rad (the
 * angle between the quaternions; the fits' 4.2e-8 and 1.3e-7 rad plus
 * float rounding: measured 1.7e-7 and 2.9e-7). */
static void test_qlerp_accuracy(void **state) {
    (void)state;
    double worst[2] = {0.0, 0.0};
    long n[2] = {0, 0};
    for (int it = 0; it < 400000; it++) {
        double a[4], p[4], na = 0.0, dp = 0.0, np = 0.0;
        for (int k = 0; k < 4; k++) a[k] = rnd01() * 2.0 - 1.0, na += a[k] * a[k];
        for (int k = 0; k < 4; k++) a[k] /= sqrt(na);
        for (int k = 0; k < 4; k++) p[k] = rnd01() * 2.0 - 1.0, dp += p[k] * a[k];
        for (int k = 0; k < 4; k++) p[k] -= dp * a[k], np += p[k] * p[k];
        /* half-angles over [0, pi/2] (uniform in the cosine: half of them beyond 60 degrees, the far weights),
         * every third one below 0.2 rad */
        double th = it % 3 == 0 ? 0.2 * rnd01() : acos(rnd01()), sg = it & 2 ? -1.0 : 1.0;
        float af[4], bf[4];
        for (int k = 0; k < 4; k++) af[k] = (float)a[k], bf[k] = (float)(sg * (cos(th) * a[k] + sin(th) * p[k] / sqrt(np)));
        float u = it % 97 == 0 ? 0.0f : it % 89 == 0 ? 1.0f : (float)rnd01();
        sk_quat q = sk_cc_qlerp(af, bf, u);
        /* slerp of the float keys, in double */
        double A[4], B[4], la = 0.0, lb = 0.0, d = 0.0;
        for (int k = 0; k < 4; k++) A[k] = af[k], B[k] = bf[k], la += A[k] * A[k], lb += B[k] * B[k];
        for (int k = 0; k < 4; k++) A[k] /= sqrt(la), B[k] /= sqrt(lb), d += A[k] * B[k];
        double s = d < 0.0 ? -1.0 : 1.0, c = fmin(1.0, fabs(d)), ang = acos(c), r[4], rn = 0.0;
        for (int k = 0; k < 4; k++) {
            r[k] = ang < 1e-9 ? A[k] + (s * B[k] - A[k]) * u : (sin((1.0 - u) * ang) * A[k] + sin(u * ang) * s * B[k]) / sin(ang);
            rn += r[k] * r[k];
        }
        double qq[4] = {q.x, q.y, q.z, q.w}, ch = 0.0;
        for (int k = 0; k < 4; k++) ch += (r[k] / sqrt(rn) - qq[k]) * (r[k] / sqrt(rn) - qq[k]);
        double e = 2.0 * asin(fmin(1.0, sqrt(ch) / 2.0)); /* the angle between them, from the chord */
        int far = c < SK_CC_FAR_BELOW;
        worst[far] = fmax(worst[far], e);
        n[far]++;
        if (!(e < 4e-7)) fail_msg("half-angle %.6f rad, u %.7g: %.3g rad from slerp", th, (double)u, e);
    }
    printf("sk_cc_qlerp against slerp: %ld pairs up to 120 degrees apart (worst %.3g rad), %ld beyond (worst %.3g rad)\n",
           n[0], worst[0], n[1], worst[1]);
    assert_true(n[0] > 200000 && n[1] > 100000);
}

/* A cursor keeps a compressed clip's decoded frames for the next sample
 * (sk_clip_cursor_cache_size, and sk_clip_cursor_ahead_size with room for a
 * third): sampling through it gives the bits of sampling without one,
 * sk_pose and SoA, for playback forward at 60 Hz (the frame pair reused), at
 * 200 Hz, backward, at the same time twice, with jumps, looping and clamped;
 * one cursor shared by two clips in turn (each sees the other's words as not
 * its own), a cursor passed now and then with the other length (its frames
 * are not misread), and a cursor that starts with garbage; each length in
 * turn. The mannequin's four clips (no shared data needed) and, with
 * ../shared, three CMU clips at 24 and 120 frames/s. On an AVX2 CPU the
 * cursor's frames are shown to be read: a change to them changes the next
 * sample. */
static void cursor_case(const sk_skeleton *s, sk_clip *const *cc, uint32_t nclips, long *samples, long *reused, long *stepped,
                        long *rowclips, long *ahead, long *aheadclips) {
    uint32_t J = s->joint_count;
    size_t cn = 0;
    for (uint32_t i = 0; i < nclips; i++) cn = sk_clip_cursor_ahead_size(cc[i]) > cn ? sk_clip_cursor_ahead_size(cc[i]) : cn;
    uint32_t *own = calloc(cn * nclips, sizeof *own), *shared = calloc(cn, sizeof *shared);
    sk_transform *ref = calloc(J, sizeof *ref), *got = calloc(J, sizeof *got);
    sk_soa_pose sr, sg;
    assert_int_equal(sk_soa_pose_alloc(s, NULL, &sr, NULL), SK_OK);
    assert_int_equal(sk_soa_pose_alloc(s, NULL, &sg, NULL), SK_OK);
    for (size_t i = 0; i < cn * nclips; i++) own[i] = (uint32_t)(rnd01() * 4294967295.0); /* garbage to start with */
    for (int step = 0; step < 1800; step++) {
        for (uint32_t ci = 0; ci < nclips; ci++) {
            const sk_clip *c = cc[ci];
            double d = sk_clip_duration(c), t;
            int phase = step % 900 / 150; /* 60 Hz forward, 200 Hz forward, 60 Hz backward, the same time twice, jumps, 60 Hz clamped */
            if (phase == 0 || phase == 5) t = step / 60.0;
            else if (phase == 1) t = step / 200.0;
            else if (phase == 2) t = d - step / 60.0;
            else if (phase == 3) t = (step / 2) / 60.0;
            else t = rnd01() * 3.0 * d - d;
            sk_loop_mode loop = phase == 5 ? SK_LOOP_CLAMP : SK_LOOP_REPEAT;
            uint32_t *cur = step % 3 == 2 ? shared : own + cn * ci; /* every third step through the shared cursor */
            /* the first 900 steps with sk_clip_cursor_cache_size values, the others with sk_clip_cursor_ahead_size;
             * now and then without the cache, or with the other length */
            bool longer = (step >= 900) != (step % 11 == 5);
            size_t n = step % 7 == 3 ? sk_clip_cursor_size(c) : longer ? sk_clip_cursor_ahead_size(c) : sk_clip_cursor_cache_size(c);
            assert_int_equal(sk_clip_sample(c, s, t, loop, SK_POSE_OF(s, ref, NULL), NULL), SK_OK);
            assert_int_equal(sk_clip_sample_cursor(c, s, t, loop, cur, n, SK_POSE_OF(s, got, NULL), NULL), SK_OK);
            if (memcmp(ref, got, J * sizeof *ref) != 0) fail_msg("clip %u, step %d, t = %.9g: the cursor's sample differs", ci, step, t);
            assert_int_equal(sk_clip_sample_soa(c, s, t, loop, NULL, 0, &sr, NULL), SK_OK);
            assert_int_equal(sk_clip_sample_soa(c, s, t, loop, cur, n, &sg, NULL), SK_OK);
            if (memcmp(sr.data, sg.data, (size_t)sr.group_count * SK_SOA_GROUP_FLOATS * sizeof(float)) != 0)
                fail_msg("clip %u, step %d, t = %.9g: the cursor's SoA sample differs", ci, step, t);
            (*samples)++;
        }
    }
    /* the frames are read from the cursor: the same time twice, then its first slot changed, gives another pose */
    for (uint32_t ci = 0; ci < 2 * nclips && sk_cclip_simd_available(); ci++) {
        const sk_clip *c = cc[ci % nclips];
        bool longer = ci >= nclips; /* each clip with sk_clip_cursor_cache_size values, then sk_clip_cursor_ahead_size */
        size_t n = longer ? sk_clip_cursor_ahead_size(c) : sk_clip_cursor_cache_size(c);
        if (c->cc.rrows && c->cc.frames > 2) (*rowclips) += 2; /* a step forward and one back */
        assert_true(n > sk_clip_cursor_size(c));
        double t = 0.37 * sk_clip_duration(c);
        memset(shared, 0, cn * sizeof *shared);
        assert_int_equal(sk_clip_sample_cursor(c, s, t, SK_LOOP_REPEAT, shared, n, SK_POSE_OF(s, ref, NULL), NULL), SK_OK);
        assert_int_equal(sk_clip_sample_cursor(c, s, t, SK_LOOP_REPEAT, shared, n, SK_POSE_OF(s, got, NULL), NULL), SK_OK);
        assert_memory_equal(ref, got, J * sizeof *ref);
        /* the rows decoders keep frame f in slot f % S (2, or 3 in the longer cursor): the first
         * rotation group's slots follow the 8-word header, 32 floats each; the others keep the pair
         * right after it */
        uint32_t S = longer ? 3u : 2u, kt = (uint32_t)(t * (double)c->cc.rate);
#define SLOT(f) (shared + 8 + (c->cc.rrows ? 32u * ((f) % S) : 0u))
        float one = 1.0f, v;
        memcpy(&v, SLOT(kt), 4);
        v += one;
        memcpy(SLOT(kt), &v, 4);
        assert_int_equal(sk_clip_sample_cursor(c, s, t, SK_LOOP_REPEAT, shared, n, SK_POSE_OF(s, got, NULL), NULL), SK_OK);
        if (memcmp(ref, got, J * sizeof *ref) != 0) (*reused)++;
        /* a cursor of sk_clip_cursor_size values keeps no frames: the same change has no effect */
        size_t m = sk_clip_cursor_size(c);
        memset(shared, 0, cn * sizeof *shared);
        for (int k = 0; k < 2; k++)
            assert_int_equal(sk_clip_sample_cursor(c, s, t, SK_LOOP_REPEAT, shared, m, SK_POSE_OF(s, got, NULL), NULL), SK_OK);
        for (size_t w = 0; w < m; w++) shared[w] ^= 0x00400000u;
        assert_int_equal(sk_clip_sample_cursor(c, s, t, SK_LOOP_REPEAT, shared, m, SK_POSE_OF(s, got, NULL), NULL), SK_OK);
        assert_memory_equal(ref, got, J * sizeof *ref);
        /* a step by one frame, forward or back, decodes only the new frame where the rows
         * decoders run (cc.rrows): the pair kept at t (frames kt and kt + 1), the next (previous)
         * frame's pair sampled from a cursor whose kept frame kt + 1 (kt) was changed (the first
         * rotation group's first row) differs from the sample without a cursor only if that frame
         * was read; a change to the kept pair's other frame, which the step leaves, changes nothing */
        double dk = sk_clip_duration(c) / (double)(c->cc.frames > 1 ? c->cc.frames - 1 : 1);
        for (int dir = 0; dir < 2 && c->cc.frames > 2; dir++) {
            double t1 = dir ? t - dk : t + dk;
            for (int k = 0; k < 3; k++) {
                memset(shared, 0, cn * sizeof *shared);
                for (int r = 0; r < 2; r++) /* twice at t: the pair is kept */
                    assert_int_equal(sk_clip_sample_cursor(c, s, t, SK_LOOP_REPEAT, shared, n, SK_POSE_OF(s, got, NULL), NULL), SK_OK);
                uint32_t *kept = k == 1 ? SLOT(dir ? kt : kt + 1) : SLOT(dir ? kt + 1 : kt); /* k 1: the frame the step reuses */
                if (k) {
                    memcpy(&v, kept, 4);
                    v += 1.0f;
                    memcpy(kept, &v, 4);
                }
                assert_int_equal(sk_clip_sample(c, s, t1, SK_LOOP_REPEAT, SK_POSE_OF(s, ref, NULL), NULL), SK_OK);
                assert_int_equal(sk_clip_sample_cursor(c, s, t1, SK_LOOP_REPEAT, shared, n, SK_POSE_OF(s, got, NULL), NULL), SK_OK);
                bool same = memcmp(ref, got, J * sizeof *ref) == 0;
                if (k != 1) assert_true(same); /* no change, or one to the frame the step leaves */
                else if (!same) (*stepped)++;
            }
        }
        /* a step forward (to pair kt + 1) decodes the frame after its pair too (kt + 3): the next
         * pair is read from the cursor (at 2), and the step after that keeps frame kt + 3 as its
         * first (at 3); a change to that frame's slot shows in either sample */
        for (int at = 2; at <= 3 && longer && c->cc.rrows && c->cc.frames > 8; at++) {
            (*aheadclips)++;
            memset(shared, 0, cn * sizeof *shared);
            for (int r = 0; r < 2; r++)
                assert_int_equal(sk_clip_sample_cursor(c, s, t, SK_LOOP_REPEAT, shared, n, SK_POSE_OF(s, got, NULL), NULL), SK_OK);
            for (int q = 1; q < at; q++) /* the step (and with at 3 the pair it decoded ahead) */
                assert_int_equal(sk_clip_sample_cursor(c, s, t + q * dk, SK_LOOP_REPEAT, shared, n, SK_POSE_OF(s, got, NULL), NULL), SK_OK);
            memcpy(&v, SLOT(kt + 3u), 4);
            v += 1.0f;
            memcpy(SLOT(kt + 3u), &v, 4);
            assert_int_equal(sk_clip_sample(c, s, t + at * dk, SK_LOOP_REPEAT, SK_POSE_OF(s, ref, NULL), NULL), SK_OK);
            assert_int_equal(sk_clip_sample_cursor(c, s, t + at * dk, SK_LOOP_REPEAT, shared, n, SK_POSE_OF(s, got, NULL), NULL), SK_OK);
            if (memcmp(ref, got, J * sizeof *ref) != 0) (*ahead)++;
        }
#undef SLOT
    }
    sk_soa_pose_free(&sr, NULL), sk_soa_pose_free(&sg, NULL);
    free(own), free(shared), free(ref), free(got);
}

static void test_cursor_cache(void **state) {
    (void)state;
    sk_asset *m = NULL;
    sk_error err = {0};
    assert_int_equal(sk_mannequin_create(NULL, NULL, &m, &err), SK_OK);
    sk_clip *cc[4];
    sk_compress_options o = {0.01, 3.0, 1.0, 0, 0, 0};
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(sk_clip_compress(m->clips[i], m->skeleton, &o, NULL, &cc[i], NULL, &err), SK_OK);
        assert_true(sk_clip_is_compressed(cc[i]));
        const void *blob = NULL;
        assert_true(sk_clip_compressed_data(cc[i], &blob, NULL));
        /* the header, and 8 floats (two frames) per animated track (the blob's A) */
        assert_true(sk_clip_cursor_cache_size(cc[i]) >= 8u + 8u * sk_cc_u32((const uint8_t *)blob + 28));
        /* room for a third frame where the rows decoders run: 12 floats more per eight rotations at least */
        if (cc[i]->cc.rrows) assert_true(sk_clip_cursor_ahead_size(cc[i]) >= sk_clip_cursor_cache_size(cc[i]) + 12u * cc[i]->cc.rots / 8u);
        else assert_int_equal(sk_clip_cursor_ahead_size(cc[i]), sk_clip_cursor_cache_size(cc[i]));
        assert_int_equal(sk_clip_cursor_size(cc[i]), sk_clip_track_count(cc[i]));
    }
    long samples = 0, reused = 0, stepped = 0, rowclips = 0, ahead = 0, aheadclips = 0;
    cursor_case(m->skeleton, cc, 4, &samples, &reused, &stepped, &rowclips, &ahead, &aheadclips);
    for (uint32_t i = 0; i < 4; i++) sk_clip_destroy(cc[i]);
    sk_asset_destroy(m);
    int cmu = 0;
    const char *shared = sk_test_shared_dir(); /* absent: strict runs fail here, others note it and go on */
    if (shared) {
        static const char *const clips[] = {"02_01.bvh", "05_06.bvh", "131_03.bvh"};
        for (int f = 0; f < 3; f++) {
            sk_asset *as = load_mocap(shared, clips[f]);
            sk_clip *res = NULL, *c2[2] = {NULL, NULL};
            sk_compress_options oc = {0.01, 3.0, CMU_M_PER_UNIT, 0, 0, 0};
            assert_int_equal(sk_clip_resample(as->clips[0], as->skeleton, 24.0, NULL, &res, &err), SK_OK);
            assert_int_equal(sk_clip_compress(res, as->skeleton, &oc, NULL, &c2[0], NULL, &err), SK_OK);
            assert_int_equal(sk_clip_compress(as->clips[0], as->skeleton, &oc, NULL, &c2[1], NULL, &err), SK_OK);
            cursor_case(as->skeleton, c2, 2, &samples, &reused, &stepped, &rowclips, &ahead, &aheadclips);
            sk_clip_destroy(res), sk_clip_destroy(c2[0]), sk_clip_destroy(c2[1]);
            sk_asset_destroy(as);
            cmu++;
        }
    }
    printf("cursor cache: %ld samples (sk_pose and SoA) the same bits with and without a cursor; %ld clips whose second "
           "sample at one time read the cursor's frames; %ld of %ld steps by one frame (forward and back, clips of the "
           "rows decoders) that read the kept frame; %ld of %ld samples after a step forward that read the frame it "
           "decoded ahead; %d CMU clips\n",
           samples, reused, stepped, rowclips, ahead, aheadclips, cmu);
    assert_true(samples >= 7200);
    if (sk_cclip_simd_available()) {
        assert_int_equal(reused, 2 * (4 + 2 * cmu)); /* each clip with both lengths */
        assert_int_equal(stepped, rowclips);
        assert_int_equal(ahead, aheadclips);
        if (cmu) assert_true(aheadclips >= 4 * cmu);
        if (cmu) assert_true(rowclips >= 4 * cmu); /* the CMU clips (31 joints) have the rows decoders */
    }
}

/* The compressor's AVX2 kernels and its scalar ones write the same blob
 * (two captures at 120 frames/s and one kept at every 5th frame). */
static void test_scalar_compressor(void **state) {
    (void)state;
    const char *shared = sk_test_require_shared();
    static const char *const clips[] = {"02_01.bvh", "09_11_fbx2bvh.bvh", "131_03.bvh"};
    int same = 0;
    for (int f = 0; f < 3; f++) {
        sk_asset *as = load_mocap(shared, clips[f]);
        sk_error err = {0};
        sk_clip *src = NULL, *cc[2] = {NULL, NULL};
        if (f == 2) assert_int_equal(sk_clip_resample(as->clips[0], as->skeleton, 24.0, NULL, &src, &err), SK_OK);
        sk_compress_options o = {0.01, 3.0, CMU_M_PER_UNIT, 0, 0, 0};
        sk_compress_stats st[2];
        for (int simd = 0; simd < 2; simd++) {
            const bool wide = simd != 0;
            assert_int_equal(sk_clip_compress_simd(src ? src : as->clips[0], as->skeleton, &o, NULL, wide, &cc[simd],
                                                   &st[simd], &err),
                             SK_OK);
            /* its AVX2 kernels run where asked for and the library's best level has AVX2 (compress.c) */
            cs_ran |= 1u << (wide && sk_simd_best() >= SK_SIMD_AVX2);
        }
        const void *b0 = NULL, *b1 = NULL;
        size_t n0 = 0, n1 = 0;
        assert_true(sk_clip_compressed_data(cc[0], &b0, &n0));
        assert_true(sk_clip_compressed_data(cc[1], &b1, &n1));
        assert_int_equal(n0, n1);
        assert_memory_equal(b0, b1, n0);
        assert_true(st[0].max_error_cm == st[1].max_error_cm && st[0].p99_error_cm == st[1].p99_error_cm);
        same++;
        sk_clip_destroy(cc[0]), sk_clip_destroy(cc[1]), sk_clip_destroy(src);
        sk_asset_destroy(as);
    }
    printf("scalar and AVX2 compressor: %d clips, the same blobs\n", same);
    assert_int_equal(same, 3);
}

/* Whole poses of compressed clips (sk_clip_sample, sk_clip_sample_cursor)
 * against the scalar decoder over the rest pose, bit for bit. On a CPU with
 * the rows decoder a pose whose clip stays inside the skeleton's full groups
 * of eight joints is sampled as SoA groups in the pose's own memory and
 * turned into transforms in place (sk_cclip_sample_pose); the skeletons
 * here (8 to 41 joints, rest poses with every component set) and their
 * clips (random joints with animated or constant translation, rotation and
 * scale, some joints with none) reach that path and the fallback. */
static void test_whole_pose(void **state) {
    (void)state;
    static const uint32_t sizes[][2] = {{8, 8}, {16, 16}, {24, 13}, {40, 40}, {41, 40}, {41, 41}, {20, 16}, {64, 64}, {136, 136}, {137, 130}, {137, 137}};
    int via_groups = 0, in_place = 0, cases = 0, wide = 0;
    double worst = 0.0, worst_raw = 0.0; /* the error less the rounding allowance, and as it is */
    for (uint32_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        uint32_t J = sizes[si][0], span = sizes[si][1], F = 37;
        int32_t parents[160];
        sk_transform rest[160];
        for (uint32_t j = 0; j < J; j++) {
            parents[j] = j ? (int32_t)(j - 1) / 2 : -1; /* a binary tree: shallow, so that the error can be met */
            float q[4], n = 0;
            for (int k = 0; k < 4; k++) q[k] = (float)(rnd01() * 2 - 1), n += q[k] * q[k];
            n = sqrtf(n);
            rest[j] = (sk_transform){{(float)rnd01(), (float)rnd01() - 0.5f, 0.25f}, {q[0] / n, q[1] / n, q[2] / n, q[3] / n},
                                     {1.0f, 1.0f, 1.0f}};
            rest[j].s.x = rest[j].s.y = rest[j].s.z = 1.0f + 0.1f * (float)rnd01();
        }
        sk_skeleton_desc sd = {.joint_count = J, .parents = parents, .rest = rest};
        sk_skeleton *s = NULL;
        assert_int_equal(sk_skeleton_create(&sd, NULL, &s, NULL), SK_OK);
        sk_clip_builder *b = NULL;
        assert_int_equal(sk_clip_builder_create("pose", NULL, &b, NULL), SK_OK);
        float times[37], vals[37 * 4];
        for (uint32_t k = 0; k < F; k++) times[k] = (float)k / 30.0f;
        for (uint32_t j = 0; j < span; j++)
            for (int path = 0; path < 3; path++) {
                double r = rnd01();
                if (j + 1 != span && r < 0.2) continue; /* no track (the last joint always has one: the span) */
                bool still = r < 0.35;
                uint32_t w = path == SK_PATH_ROTATION ? 4 : 3;
                for (uint32_t k = 0; k < F; k++) {
                    double ph = still ? 0.3 : 0.17 * k + j;
                    if (w == 4) {
                        float h = (float)(0.6 * sin(ph)), c = cosf(h);
                        vals[4 * k] = sinf(h) * 0.6f, vals[4 * k + 1] = sinf(h) * 0.8f, vals[4 * k + 2] = 0, vals[4 * k + 3] = c;
                    } else
                        for (uint32_t e = 0; e < 3; e++)
                            vals[3 * k + e] = path == SK_PATH_SCALE ? (float)(1.0 + 0.2 * sin(ph))
                                                                    : (float)(sin(ph + e) * (j == 0 && si == 3 ? 300.0 : 1.0));
                }
                sk_track_desc td = {.joint = j, .path = (sk_track_path)path, .interpolation = SK_INTERP_LINEAR, .key_count = F, .times = times, .values = vals};
                assert_int_equal(sk_clip_builder_add_track(b, &td, NULL), SK_OK);
            }
        sk_clip *raw = NULL, *cc = NULL;
        assert_int_equal(sk_clip_builder_finish(b, &raw, NULL), SK_OK);
        sk_compress_options o = {0.01, 3.0, 1.0, 0, 0, 0};
        sk_error err = {0};
        if (sk_clip_compress(raw, s, &o, NULL, &cc, NULL, &err) != SK_OK) fail_msg("%u joints: %s", J, err.message);
        size_t cn = sk_clip_cursor_cache_size(cc);
        uint32_t *cur = calloc(cn, sizeof *cur);
        sk_transform ref[160], got[160], got2[160];
        /* the 40-joint clip's root moves 300 m: its translation needs 23 bits in some segment
         * (the decoders' path that reads each component on its own) */
        for (uint32_t sg = 0; sg < cc->cc.segments && cc->cc.anim; sg++)
            for (uint32_t a = 0; a < cc->cc.anim; a++) wide += (cc->blob[cc->cc.segtab[2u * sg] + a] & 15u) == 15u;
        /* the error bound holds on these trees too (joints in breadth-first order: a joint's
         * descendants do not all follow it), by forward kinematics here */
        xf m0[160], m1[160];
        for (int k = 0; k < 2000; k++) {
            double t = rnd01() * sk_clip_duration(raw), e = pose_error(s, raw, cc, t, 0.03, ref, got, m0, m1) * 100.0;
            double lim = 0.01 + 100.0 * rounding_allowance(m0, J, 0.03);
            if (!(e <= lim)) fail_msg("%u joints, t = %.9g: %.5f cm from the raw clip (bound 0.01 cm + rounding: %.5f)", J, t, e, lim);
            worst = e - (lim - 0.01) > worst ? e - (lim - 0.01) : worst;
            worst_raw = e > worst_raw ? e : worst_raw;
        }
        via_groups += cc->cc.pose_rows; /* the rows decoder's whole-pose path (sk_cclip_sample_pose) */
        in_place += cc->cc.pose_rows && J > 128 && span <= J / 8 * 8;
        for (int step = 0; step < 200; step++) {
            double t = step < 100 ? step / 60.0 : rnd01() * 3.0 - 1.0;
            sk_pose_rest(s, SK_POSE_OF(s, ref, NULL), NULL);
            sk_cclip_sample_tracks_simd(cc, sk_clip_wrap_time(cc, t, SK_LOOP_REPEAT), NULL, ref, SK_CC_SCALAR);
            memset(got, 0x7f, sizeof got), memset(got2, 0x7f, sizeof got2);
            assert_int_equal(sk_clip_sample(cc, s, t, SK_LOOP_REPEAT, SK_POSE_OF(s, got, NULL), NULL), SK_OK);
            assert_int_equal(sk_clip_sample_cursor(cc, s, t, SK_LOOP_REPEAT, cur, cn, SK_POSE_OF(s, got2, NULL), NULL), SK_OK);
            for (uint32_t j = 0; j < J; j++)
                if (memcmp(&ref[j], &got[j], sizeof *ref) != 0 || memcmp(&ref[j], &got2[j], sizeof *ref) != 0)
                    fail_msg("%u joints, clip to joint %u: joint %u at t = %.9g differs from the scalar decoder's", J, span - 1, j, t);
            /* nothing written past the skeleton's joints */
            for (uint32_t k = J * sizeof(sk_transform); k < sizeof got; k++) assert_int_equal(((unsigned char *)got)[k], 0x7f);
            cases++;
        }
        free(cur);
        sk_clip_destroy(cc), sk_clip_destroy(raw), sk_skeleton_destroy(s);
    }
    printf("whole poses: %d samples of 11 skeletons the scalar decoder's bits; %d of them sampled as SoA groups (%d in the pose's "
           "own memory); %d track segments at 23 bits; worst error at 22,000 random times %.5f cm (%.5f less the "
           "rounding allowance)\n", cases, via_groups, in_place, wide, worst_raw, worst);
    assert_true(wide > 0);
    assert_int_equal(cases, 11 * 200);
    if (sk_cclip_simd_available()) assert_true(via_groups >= 6 && in_place == 2);
}

/* Every decoder level and compressor kernel this CPU supports ran: the
 * CPU's levels from its features read here (sk_test_cpu_features), as the
 * library's checks require them (clip_compressed.c, compress.c, simd.c):
 * AVX2 with FMA; AVX-512 F, DQ and VL with those; the rows decoder with
 * AVX-512 BW and VBMI besides. The levels the tests above ask for are
 * resolved by the library, which quietly runs the next one down where the
 * CPU lacks one: such a level is named as not run, and under CI a level the
 * CPU has but no sample ran at fails. */
static void test_simd_levels_run(void **state) {
    (void)state;
    if (!cc_ran) sk_test_missing("no decoder was compared (the tests on ../shared did not run)");
    static const char *const dec[] = {"scalar", "avx2", "avx512", "avx2-rows", "avx512-vbmi-rows"}, *const comp[] = {"scalar", "avx2"};
    const sk_test_cpu f = sk_test_cpu_features();
    /* SKELANIM_SIMD caps the levels the library may choose (the ctest test_compress_avx2 runs
     * this program under "avx2"): read here on its own */
    const char *cap = getenv("SKELANIM_SIMD");
    const bool capped = cap && (!strcmp(cap, "avx2") || !strcmp(cap, "sse2") || !strcmp(cap, "scalar"));
    const bool avx2 = f.x86_64 && f.avx2 && f.fma && !(cap && (!strcmp(cap, "sse2") || !strcmp(cap, "scalar")));
    const bool avx512 = avx2 && !capped && f.avx512f && f.avx512dq && f.avx512vl, rows = avx512 && f.avx512bw && f.avx512vbmi;
    unsigned cpu = 1u << SK_CC_SCALAR | (unsigned)avx2 << SK_CC_AVX2 | (unsigned)avx512 << SK_CC_AVX512 |
                   (unsigned)avx2 << SK_CC_ROWS8 | (unsigned)rows << SK_CC_ROWS;
    int missing = sk_test_simd_levels("compressed-clip decoders", cc_ran, cpu, dec, 5);
    missing += sk_test_simd_levels("compressor kernels", cs_ran, 1u | (unsigned)avx2 << 1, comp, 2);
    sk_test_simd_check(missing);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gltf_round_trip),
        cmocka_unit_test(test_mocap_round_trip),
        cmocka_unit_test(test_simd_far_lanes),
        cmocka_unit_test(test_qlerp_accuracy),
        cmocka_unit_test(test_cursor_cache),
        cmocka_unit_test(test_scalar_compressor),
        cmocka_unit_test(test_whole_pose),
        cmocka_unit_test(test_simd_levels_run), /* last: the levels the tests above ran */
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
