/* Structure-of-arrays poses (core/soa.h) and frame-major clips: every SoA
 * function against its AoS counterpart, bit for bit (soa.h promises the same
 * operations in the same order), on the mannequin's clips and on clips built
 * here in each layout; both kernel widths (4 and 8 lanes) against the scalar
 * functions; frame-major clips against the same keys in the per-track
 * layout; errors. */
#include "support.h"
#include "anim/soa_blend_kernels.h"
#include "anim/soa_layers_internal.h"
#include "core/clip_internal.h"
#include "core/internal.h"
#include "core/soa_kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sk_asset *mannequin(void) {
    sk_asset *a = NULL;
    sk_error err;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, &err), SK_OK);
    return a;
}



/* Sampling: sk_clip_sample_soa == sk_clip_sample_cursor, forward with a
 * cursor, backward, and at random times without one. sk_clip_sample_soa_update
 * into a pose that held a sample at another time == sk_clip_sample_soa, bit
 * for bit, where the clip has tracks; where it writes straight into the rows
 * (sk_clip_samples_soa_directly) the joints without tracks keep a marker put
 * there (it writes nothing it need not). */
static uint32_t check_sampling(const sk_skeleton *s, const sk_clip *c, const char *what) {
    uint32_t n = s->joint_count, checks = 0;
    sk_error err = {0};
    sk_soa_pose soa, up;
    assert_int_equal(sk_soa_pose_alloc(s, NULL, &soa, &err), SK_OK);
    assert_int_equal(sk_soa_pose_alloc(s, NULL, &up, &err), SK_OK);
    sk_transform *aos = calloc(n, sizeof *aos);
    size_t cn = sk_clip_cursor_size(c);
    uint32_t *ca = calloc(cn + 1, sizeof *ca), *cb = calloc(cn + 1, sizeof *cb), *cu = calloc(cn + 1, sizeof *cu);
    double d = sk_clip_duration(c);
    uint32_t seed = 7;
    bool *tracked = calloc(n, sizeof *tracked);
    for (uint32_t i = 0; i < c->track_count; i++)
        if (c->tracks[i].path != SK_PATH_WEIGHTS) tracked[c->tracks[i].joint] = true;
    bool direct = sk_clip_samples_soa_directly(c);
    const sk_transform marker = {{-9.0f, -9.0f, -9.0f}, {-9.0f, -9.0f, -9.0f, -9.0f}, {-9.0f, -9.0f, -9.0f}};
    for (int pass = 0; pass < 3; pass++) {
        memset(ca, 0, (cn + 1) * sizeof *ca);
        memset(cb, 0, (cn + 1) * sizeof *cb);
        memset(cu, 0, (cn + 1) * sizeof *cu);
        /* up: a sample at another time, the marker on the joints without tracks */
        assert_int_equal(sk_clip_sample_soa(c, s, 0.37 * d, SK_LOOP_CLAMP, NULL, 0, &up, &err), SK_OK);
        for (uint32_t j = 0; direct && j < n; j++)
            if (!tracked[j]) assert_true(sk_soa_pose_set(&up, j, &marker));
        for (int f = -3; f < 200; f++) {
            double t = pass == 0 ? f / 60.0 : pass == 1 ? d - f / 60.0 : (double)(sk_test_rnd(&seed) + 1.0f) * 0.6 * d;
            bool cur = pass < 2;
            assert_int_equal(sk_clip_sample_cursor(c, s, t, SK_LOOP_CLAMP, cur ? ca : NULL, cn,
                                                   SK_POSE_OF(s, aos, NULL), &err), SK_OK);
            assert_int_equal(sk_clip_sample_soa(c, s, t, SK_LOOP_CLAMP, cur ? cb : NULL, cn, &soa, &err), SK_OK);
            char label[160];
            snprintf(label, sizeof label, "%s, pass %d, t %.4f", what, pass, t);
            sk_test_assert_soa_equal(s, &soa, aos, label);
            assert_int_equal(sk_clip_sample_soa_update(c, s, t, SK_LOOP_CLAMP, cur ? cu : NULL, cn, &up, &err), SK_OK);
            for (uint32_t j = 0; j < n; j++) {
                sk_transform x, y;
                assert_true(sk_soa_pose_get(&up, j, &x));
                assert_true(sk_soa_pose_get(&soa, j, &y));
                if (direct && !tracked[j]) y = marker;
                if (memcmp(&x, &y, sizeof x)) fail_msg("%s: sk_clip_sample_soa_update differs at joint %u", label, j);
            }
            /* the padding lanes of the last group: as sampled (identity) */
            size_t last = (size_t)(soa.group_count - 1) * SK_SOA_GROUP_FLOATS;
            for (uint32_t l = n - (soa.group_count - 1) * SK_SOA_LANES; l < SK_SOA_LANES; l++)
                for (uint32_t q = 0; q < 10; q++) assert_memory_equal(&up.data[last + 8 * q + l], &soa.data[last + 8 * q + l], sizeof(float));
            if (sk_clip_is_frame_major(c)) { /* both kernel widths, into SoA and into AoS */
                double tw = sk_clip_wrap_time(c, t, SK_LOOP_CLAMP);
                sk_transform *x = calloc(n, sizeof *x);
                for (int wide = 0; wide < (sk_soa_use_avx2() ? 2 : 1); wide++) {
                    memcpy(soa.data, s->rest_soa, soa.group_count * 80 * sizeof(float));
                    sk_frames_sample(c, tw, NULL, NULL, soa.data, wide);
                    sk_test_assert_soa_equal(s, &soa, aos, label);
                    memcpy(x, s->rest, n * sizeof *x);
                    sk_frames_sample(c, tw, NULL, x, NULL, wide);
                    assert_memory_equal(x, aos, n * sizeof *x);
                }
                free(x);
            }
            checks++;
        }
    }
    free(ca);
    free(cb);
    free(cu);
    free(tracked);
    free(aos);
    sk_soa_pose_free(&soa, NULL);
    sk_soa_pose_free(&up, NULL);
    return checks;
}

static void test_sample_mannequin(void **st) {
    (void)st;
    sk_asset *a = mannequin();
    uint32_t checks = 0;
    for (uint32_t i = 0; i < a->clip_count; i++) checks += check_sampling(a->skeleton, a->clips[i], sk_clip_name(a->clips[i]));
    assert_int_equal(checks, a->clip_count * 3 * 203);
    /* and every clip compressed (the AVX2 decoder straight into the rows,
     * or the scalar one through an AoS buffer) */
    for (uint32_t i = 0; i < a->clip_count; i++) {
        sk_clip *cc = NULL;
        sk_error err = {0};
        assert_int_equal(sk_clip_compress(a->clips[i], a->skeleton, NULL, NULL, &cc, NULL, &err), SK_OK);
        checks += check_sampling(a->skeleton, cc, "compressed");
        sk_clip_destroy(cc);
    }
    assert_int_equal(checks, 2 * a->clip_count * 3 * 203);
    sk_asset_destroy(a);
}


/* A clip on a chain skeleton of n joints (sk_test_chain_skeleton): LINEAR T
 * and R on every joint with key times shared (frame-major) unless `layout`
 * says otherwise: 1 = every track its own times, 2 = a STEP scale track
 * added, 3 = CUBICSPLINE rotations; every seventh joint without tracks
 * except in layout 4. */
static sk_clip *chain_clip(uint32_t n, uint32_t keys, int layout, uint32_t seed) {
    sk_clip_builder *b = NULL;
    sk_error err = {0};
    assert_int_equal(sk_clip_builder_create("chain", NULL, &b, &err), SK_OK);
    float *times = malloc(keys * sizeof *times), *vals = malloc(keys * 12 * sizeof *vals);
    for (uint32_t j = 0; j < n; j++) {
        if (j % 7 == 3 && layout != 4) continue; /* joints without tracks keep the rest pose */
        for (int path = 0; path < 2; path++) {
            for (uint32_t k = 0; k < keys; k++) times[k] = (float)k / 30.0f + (layout == 1 ? (float)j * 1e-3f : 0.0f);
            bool cubic = layout == 3 && path == 1;
            for (uint32_t k = 0; k < keys; k++) {
                sk_quat q = sk_test_rnd_quat(&seed);
                if (k % 9 == 4) q = sk_quat_make(-q.x, -q.y, -q.z, -q.w); /* the other hemisphere */
                float v[4] = {q.x, q.y, q.z, q.w};
                if (path == 0) v[0] = sk_test_rnd(&seed) * 2, v[1] = sk_test_rnd(&seed), v[2] = sk_test_rnd(&seed);
                uint32_t w = path == 0 ? 3 : 4;
                for (uint32_t e = 0; e < (cubic ? 3u : 1u); e++)
                    for (uint32_t i = 0; i < w; i++) vals[(k * (cubic ? 3 : 1) + e) * w + i] = e == 1 || !cubic ? v[i] : 0.1f * sk_test_rnd(&seed);
            }
            sk_track_desc td = {j, path == 0 ? SK_PATH_TRANSLATION : SK_PATH_ROTATION,
                                cubic ? SK_INTERP_CUBICSPLINE : SK_INTERP_LINEAR, keys, times, vals, 0};
            assert_int_equal(sk_clip_builder_add_track(b, &td, &err), SK_OK);
        }
    }
    if (layout == 2) {
        for (uint32_t k = 0; k < keys; k++) {
            times[k] = (float)k / 30.0f;
            vals[3 * k] = vals[3 * k + 1] = vals[3 * k + 2] = 1.0f + 0.01f * (float)k;
        }
        sk_track_desc td = {n - 1, SK_PATH_SCALE, SK_INTERP_STEP, keys, times, vals, 0};
        assert_int_equal(sk_clip_builder_add_track(b, &td, &err), SK_OK);
    }
    free(times);
    free(vals);
    sk_clip *c = NULL;
    assert_int_equal(sk_clip_builder_finish(b, &c, &err), SK_OK);
    return c;
}

static void test_sample_layouts(void **st) {
    (void)st;
    uint32_t checks = 0, compressed = 0;
    for (uint32_t n = 1; n <= 41; n += 8) {
        sk_skeleton *s = sk_test_chain_skeleton(n, 3);
        for (int layout = 0; layout < 5; layout++) {
            sk_clip *c = chain_clip(n, 17, layout, 11 + n);
            char what[64];
            snprintf(what, sizeof what, "%u joints, layout %d", n, layout);
            checks += check_sampling(s, c, what);
            if (layout == 0 || layout == 4) {
                /* compressed: the decoder's rotations stored as a group's
                 * rows (layout 4: every joint animated) or lane by lane */
                sk_clip *cc = NULL;
                sk_error err = {0};
                sk_compress_options o = {2.0, 3.0, 1.0, 0, 0, 0}; /* random keys: a loose bound is enough here */
                sk_result cr = sk_clip_compress(c, s, &o, NULL, &cc, NULL, &err);
                if (cr != SK_OK) fprintf(stderr, "%s: %s\n", what, err.message);
                assert_int_equal(cr, SK_OK);
                snprintf(what, sizeof what, "%u joints, layout %d, compressed", n, layout);
                compressed += check_sampling(s, cc, what);
                sk_clip_destroy(cc);
            }
            sk_clip_destroy(c);
        }
        sk_skeleton_destroy(s);
    }
    assert_int_equal(checks, 6 * 5 * 3 * 203);
    assert_int_equal(compressed, 6 * 2 * 3 * 203);
}

/* A compressed clip whose animated rotations are far apart (its first block
 * of eight reaches four groups: written lane by lane; the second, four lanes
 * of one group: blended into its rows; test_sample_layouts has blocks over
 * two groups and whole groups); with constant
 * translation, rotation and scale tracks in groups with and without animated
 * ones (sk_cclip_rest_soa puts them in the SoA rows): SoA sampling is the
 * sk_pose sampling bit for bit. */
static void test_sample_sparse_compressed(void **st) {
    (void)st;
    uint32_t n = 40, keys = 21, seed = 5;
    sk_skeleton *s = sk_test_chain_skeleton(n, 3);
    sk_clip_builder *b = NULL;
    sk_error err = {0};
    assert_int_equal(sk_clip_builder_create("sparse", NULL, &b, &err), SK_OK);
    static const uint32_t rot[] = {0, 9, 18, 27, 28, 29, 30, 31, 33, 35, 36, 39};
    static const struct { uint32_t joint; sk_track_path path; } still[] = {
        {3, SK_PATH_ROTATION}, {12, SK_PATH_ROTATION}, {5, SK_PATH_TRANSLATION}, {20, SK_PATH_TRANSLATION},
        {7, SK_PATH_SCALE}, {21, SK_PATH_SCALE}, {34, SK_PATH_ROTATION}, {38, SK_PATH_SCALE}};
    float times[21], vals[21 * 4];
    for (uint32_t k = 0; k < keys; k++) times[k] = (float)k / 30.0f;
    for (size_t i = 0; i < sizeof rot / sizeof rot[0]; i++) {
        for (uint32_t k = 0; k < keys; k++) {
            sk_quat q = sk_test_rnd_quat(&seed);
            vals[4 * k] = q.x, vals[4 * k + 1] = q.y, vals[4 * k + 2] = q.z, vals[4 * k + 3] = q.w;
        }
        sk_track_desc td = {rot[i], SK_PATH_ROTATION, SK_INTERP_LINEAR, keys, times, vals, 0};
        assert_int_equal(sk_clip_builder_add_track(b, &td, &err), SK_OK);
    }
    for (size_t i = 0; i < sizeof still / sizeof still[0]; i++) {
        sk_quat q = sk_test_rnd_quat(&seed);
        float v[4] = {q.x, q.y, q.z, q.w};
        if (still[i].path != SK_PATH_ROTATION) v[0] = 0.5f + (float)i, v[1] = -0.25f, v[2] = 1.5f;
        uint32_t w = still[i].path == SK_PATH_ROTATION ? 4 : 3;
        for (uint32_t k = 0; k < keys; k++) memcpy(vals + w * k, v, w * sizeof(float));
        sk_track_desc td = {still[i].joint, still[i].path, SK_INTERP_LINEAR, keys, times, vals, 0};
        assert_int_equal(sk_clip_builder_add_track(b, &td, &err), SK_OK);
    }
    for (uint32_t k = 0; k < keys; k++) vals[3 * k] = 0.1f * (float)k, vals[3 * k + 1] = 1.0f, vals[3 * k + 2] = sk_test_rnd(&seed);
    sk_track_desc tt = {0, SK_PATH_TRANSLATION, SK_INTERP_LINEAR, keys, times, vals, 0};
    assert_int_equal(sk_clip_builder_add_track(b, &tt, &err), SK_OK);
    sk_clip *c = NULL, *cc = NULL;
    assert_int_equal(sk_clip_builder_finish(b, &c, &err), SK_OK);
    sk_compress_options o = {2.0, 3.0, 1.0, 0, 0, 0}; /* random keys: a loose bound is enough here */
    assert_int_equal(sk_clip_compress(c, s, &o, NULL, &cc, NULL, &err), SK_OK);
    /* the eight constant tracks kept as such, in four groups (0, 1, 2, 4) */
    assert_int_equal(cc->track_count - cc->cc.anim, 8);
    assert_int_equal(cc->cc.ncgroups, 4);
    uint32_t checks = check_sampling(s, cc, "sparse, compressed");
    assert_int_equal(checks, 3 * 203);
    /* the rest rows with the constants: the AVX2 writer and the scalar one (CPUs without AVX2)
     * give the same bytes (each into a pose filled with a marker, so that a row one writes and
     * the other does not shows) */
    if (cc->cc.rest_avx2) {
        uint32_t G = (n + 7) / 8;
        float *x = malloc(G * SK_SOA_GROUP_FLOATS * sizeof *x), *y = malloc(G * SK_SOA_GROUP_FLOATS * sizeof *y);
        for (uint32_t i = 0; i < G * SK_SOA_GROUP_FLOATS; i++) x[i] = y[i] = -7.0f;
        sk_cclip_rest_soa(cc, s->rest_soa, x, G);
        cc->cc.rest_avx2 = false;
        sk_cclip_rest_soa(cc, s->rest_soa, y, G);
        cc->cc.rest_avx2 = true;
        assert_memory_equal(x, y, G * SK_SOA_GROUP_FLOATS * sizeof *x);
        free(x), free(y);
    }
    sk_clip_destroy(cc);
    sk_clip_destroy(c);
    sk_skeleton_destroy(s);
}

/* Frame-major clips against the same keys in the per-track layout (the STEP
 * track on the last joint keeps clip 2 per-track): rotations bit for bit (the
 * batched slerp and the frame kernels are both sk_quat_slerp), translations
 * within float rounding (per-track keys lerp in double). Track keys read
 * back as given. */
static void test_frames_vs_tracks(void **st) {
    (void)st;
    uint32_t n = 34, keys = 23, checks = 0; /* joints 32-33: a compact block */
    sk_skeleton *s = sk_test_chain_skeleton(n, 3);
    sk_clip *fr = chain_clip(n, keys, 0, 5), *tr = chain_clip(n, keys, 2, 5);
    sk_error err = {0};
    sk_transform *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
    for (int f = 0; f < 100; f++) {
        double t = f * 0.0077;
        assert_int_equal(sk_clip_sample(fr, s, t, SK_LOOP_REPEAT, SK_POSE_OF(s, a, NULL), &err), SK_OK);
        assert_int_equal(sk_clip_sample(tr, s, t, SK_LOOP_REPEAT, SK_POSE_OF(s, b, NULL), &err), SK_OK);
        for (uint32_t j = 0; j + 1 < n; j++) {
            assert_memory_equal(&a[j].r, &b[j].r, sizeof(sk_quat));
            assert_true(fabsf(a[j].t.x - b[j].t.x) <= 1e-6f && fabsf(a[j].t.y - b[j].t.y) <= 1e-6f &&
                        fabsf(a[j].t.z - b[j].t.z) <= 1e-6f);
            checks++;
        }
    }
    assert_int_equal(checks, 100 * (n - 1));
    /* the layouts chosen; a frame-major clip needs one cursor entry */
    assert_true(sk_clip_is_frame_major(fr) && !sk_clip_is_frame_major(tr));
    assert_int_equal(sk_clip_cursor_size(fr), 1);
    assert_int_equal(sk_clip_cursor_size(tr), sk_clip_track_count(tr));
    /* keys back as given: the two clips hold the same T/R tracks */
    assert_int_equal(sk_clip_track_count(fr) + 1, sk_clip_track_count(tr));
    float tf[32], tt[32], vf[32 * 4], vt[32 * 4];
    for (uint32_t i = 0; i < sk_clip_track_count(fr); i++) {
        sk_track_info fi, ti;
        assert_true(sk_clip_track_info(fr, i, &fi) && sk_clip_track_info(tr, i, &ti));
        assert_int_equal(fi.joint, ti.joint);
        assert_int_equal(fi.key_count, keys);
        assert_true(fi.time_min == ti.time_min && fi.time_max == ti.time_max);
        assert_true(sk_clip_track_keys(fr, i, tf, vf) && sk_clip_track_keys(tr, i, tt, vt));
        assert_memory_equal(tf, tt, keys * sizeof(float));
        assert_memory_equal(vf, vt, keys * fi.width * sizeof(float));
    }
    free(a);
    free(b);
    sk_clip_destroy(fr);
    sk_clip_destroy(tr);
    sk_skeleton_destroy(s);
}

/* The frame writers (sk_clip_builder_set_writer: one track at a time, four
 * lanes, eight lanes) write the same bytes and gather the same key
 * statistics (sk_clip_builder_add_track_ref_stats), which are checked
 * against the formulas of core/internal.h computed here: joint counts that
 * leave blocks partly empty or compact, key counts below and across the
 * writers' chunks (16 to 256 keys), tracks copied, by reference and by reference with
 * statistics side by side, keys whose squared length passes 3e38 and keys
 * that are Inf or NaN. */
/* Values fetched for sk_clip_builder_add_track_ref_lazy: the tracks point
 * into `poison` (NaN), the keys are at the same place in `real`. */
struct lazy_src {
    float *poison;
    const float *real;
    size_t bytes;
    uint32_t calls, in_place;
    int fail_at; /* the call that fails (from 1), or -1 */
};

static bool lazy_fetch(void *user, const float *src, size_t bytes, float *dst) {
    struct lazy_src *l = user;
    size_t off = (size_t)((const char *)src - (const char *)l->poison);
    assert_true((const char *)src >= (const char *)l->poison && off <= l->bytes && bytes <= l->bytes - off);
    l->calls++;
    l->in_place += dst == src;
    if (l->fail_at >= 0 && l->calls == (uint32_t)l->fail_at) return false;
    memcpy(dst, (const char *)l->real + off, bytes);
    return true;
}

static void test_frame_writers(void **st) {
    (void)st;
    uint32_t lazy_runs = 0;
    const uint32_t joints[] = {1, 3, 4, 5, 8, 9, 12, 17, 31, 38, 41}, key_counts[] = {2, 3, 15, 16, 17, 33, 300};
    const int levels = sk_soa_use_avx2() ? 3 : 2;
    uint32_t clips = 0, stats_checked = 0;
    for (size_t ji = 0; ji < sizeof joints / sizeof joints[0]; ji++)
        for (size_t ki = 0; ki < sizeof key_counts / sizeof key_counts[0]; ki++)
            for (int variant = 0; variant < 3; variant++) {
                uint32_t n = joints[ji], keys = key_counts[ki], seed = 7 + n * 31 + keys * 3 + (uint32_t)variant;
                float *times = malloc(keys * sizeof *times);
                float *vals = malloc((size_t)n * 3 * keys * 4 * sizeof *vals);
                sk_key_stats *stats = calloc((size_t)n * 3, sizeof *stats);
                uint8_t *mode = calloc((size_t)n * 3, 1); /* 0 none, 1 copied, 2 by reference, 3 with statistics */
                for (uint32_t k = 0; k < keys; k++) times[k] = (float)k / 24.0f;
                for (uint32_t j = 0; j < n; j++)
                    for (uint32_t p = 0; p < 3; p++) {
                        uint32_t ti = j * 3 + p, w = p == SK_PATH_ROTATION ? 4 : 3;
                        float *v = vals + (size_t)ti * keys * 4;
                        mode[ti] = variant == 0 ? 2 : variant == 1 ? 3 : (uint8_t)((j * 7 + p * 3) % 4);
                        for (uint32_t k = 0; k < keys; k++) {
                            sk_quat q = sk_test_rnd_quat(&seed);
                            float e[4] = {q.x, q.y, q.z, q.w};
                            if (p != SK_PATH_ROTATION) e[0] = 4 * sk_test_rnd(&seed), e[1] = sk_test_rnd(&seed), e[2] = -sk_test_rnd(&seed);
                            if (p == SK_PATH_ROTATION && k % 5 == 2) /* not unit: the writer normalises */
                                for (int c = 0; c < 4; c++) e[c] *= 1.004f;
                            for (uint32_t c = 0; c < w; c++) v[k * w + c] = e[c];
                        }
                        if (variant == 2 && mode[ti] == 3 && j % 5 == 1) { /* a huge key, an Inf, a NaN */
                            uint32_t k = (j + p) % keys;
                            if (p == SK_PATH_ROTATION) v[k * 4 + 1] = 2.0e19f, v[k * 4 + 3] = 1.5e19f;
                            else if (j % 2) v[k * 3 + 2] = INFINITY;
                            else v[k * 3] = NAN;
                        }
                    }
                void *ref_data = NULL;
                size_t ref_bytes = 0;
                sk_key_stats *ref_stats = malloc((size_t)n * 3 * sizeof *ref_stats);
                size_t vbytes = (size_t)n * 3 * keys * 4 * sizeof *vals;
                float *poison = malloc(vbytes); /* the lazy tracks' arrays: NaN until fetched */
                for (int run = 0; run < 2 * levels; run++) {
                    /* each level with the statistics tracks in memory, then fetched (sk_clip_builder_add_track_ref_lazy) */
                    int level = run / 2, lazy = run % 2;
                    sk_clip_builder *b = NULL;
                    sk_error err = {0};
                    assert_int_equal(sk_clip_builder_create("w", NULL, &b, &err), SK_OK);
                    sk_clip_builder_set_writer(b, level);
                    memset(poison, 0xff, vbytes);
                    struct lazy_src ls = {poison, vals, vbytes, 0, 0, -1};
                    if (lazy) sk_clip_builder_set_fetch(b, lazy_fetch, &ls);
                    memset(stats, 0xff, (size_t)n * 3 * sizeof *stats); /* finish writes every field */
                    for (uint32_t ti = 0; ti < n * 3; ti++) {
                        if (!mode[ti]) continue;
                        uint32_t p = ti % 3;
                        sk_track_desc td = {ti / 3, (sk_track_path)p, SK_INTERP_LINEAR, keys, times,
                                            (lazy && mode[ti] == 3 ? poison : vals) + (size_t)ti * keys * 4, 0};
                        sk_result r = mode[ti] == 1   ? sk_clip_builder_add_track(b, &td, &err)
                                      : mode[ti] == 2 ? sk_clip_builder_add_track_ref_checked(b, &td, &err)
                                      : lazy          ? sk_clip_builder_add_track_ref_lazy(b, &td, &stats[ti], &err)
                                                      : sk_clip_builder_add_track_ref_stats(b, &td, &stats[ti], &err);
                        if (r != SK_OK) fprintf(stderr, "%s\n", err.message);
                        assert_int_equal(r, SK_OK);
                    }
                    sk_clip *c = NULL;
                    assert_int_equal(sk_clip_builder_finish(b, &c, &err), SK_OK);
                    if (c->track_count == 0) { sk_clip_destroy(c); continue; }
                    assert_true(sk_clip_is_frame_major(c));
                    if (lazy) { /* one read per joint group with lazy tracks, none in place */
                        uint32_t groups = 0;
                        for (uint32_t g0 = 0; g0 < n; g0 += 8) {
                            bool any = false;
                            for (uint32_t ti = g0 * 3; ti < n * 3 && ti < (g0 + 8) * 3; ti++) any = any || mode[ti] == 3;
                            groups += any;
                        }
                        /* (tracks of other kinds between them can leave gaps wider than the builder reads through) */
                        if (variant == 1) assert_int_equal(ls.calls, groups);
                        else assert_true(ls.calls >= groups && ls.calls <= n * 3);
                        assert_int_equal(ls.in_place, 0);
                        lazy_runs++;
                    }
                    if (run == 0) {
                        ref_bytes = c->frames->data_bytes - 32;
                        ref_data = malloc(ref_bytes);
                        memcpy(ref_data, c->frames->data, ref_bytes);
                        memcpy(ref_stats, stats, (size_t)n * 3 * sizeof *stats);
                    } else {
                        assert_int_equal(c->frames->data_bytes - 32, ref_bytes);
                        assert_memory_equal(c->frames->data, ref_data, ref_bytes);
                        for (uint32_t ti = 0; ti < n * 3; ti++)
                            if (mode[ti] == 3) assert_memory_equal(&stats[ti], &ref_stats[ti], sizeof *stats);
                    }
                    sk_clip_destroy(c);
                    clips++;
                }
                free(poison);
                /* the statistics against their definition */
                for (uint32_t ti = 0; ti < n * 3; ti++) {
                    if (mode[ti] != 3) continue;
                    uint32_t p = ti % 3, w = p == SK_PATH_ROTATION ? 4 : 3, bad = 0;
                    const float *v = vals + (size_t)ti * keys * 4;
                    float lo = 3.4e38f, hi = 0.0f;
                    for (uint32_t k = 0; k < keys; k++, v += w) {
                        for (uint32_t c = 0; c < w; c++) bad |= isfinite(v[c]) ? 0u : 0x80000000u;
                        float m = p == SK_PATH_ROTATION      ? ((v[0] * v[0] + v[1] * v[1]) + v[2] * v[2]) + v[3] * v[3]
                                  : p == SK_PATH_TRANSLATION ? (v[0] * v[0] + v[1] * v[1]) + v[2] * v[2]
                                                             : fmaxf(fmaxf(fabsf(v[0]), fabsf(v[1])), fabsf(v[2]));
                        lo = m < lo ? m : lo, hi = m > hi ? m : hi;
                    }
                    assert_int_equal(ref_stats[ti].bad & 0x80000000u, bad);
                    if (!bad) {
                        assert_true(ref_stats[ti].hi == hi);
                        if (p == SK_PATH_ROTATION) assert_true(ref_stats[ti].lo == lo);
                    }
                    stats_checked++;
                }
                free(ref_data);
                free(ref_stats);
                free(times);
                free(vals);
                free(stats);
                free(mode);
            }
    assert_int_equal(clips, 11 * 7 * 3 * 2 * (uint32_t)levels);
    printf("frame writers: %u clips at %d levels, in memory and fetched (%u runs with fetched tracks), %u tracks' "
           "statistics\n", clips / (uint32_t)levels / 2, levels, lazy_runs, stats_checked);
    assert_int_equal(lazy_runs, 11 * 7 * 2 * (uint32_t)levels + 11 * 7 * (uint32_t)levels);
    assert_true(stats_checked > 1000);
}

/* Fetched keys in a clip that is not frame-major (one STEP track): they are
 * fetched into the caller's arrays and the clip is the one of the same keys
 * in memory; a fetch that fails makes finish fail with SK_ERR_IO. */
static void test_lazy_fallback(void **st) {
    (void)st;
    enum { J = 11, K = 40 };
    float times[K], *vals = malloc(sizeof(float) * J * 3 * K * 4), *poison = malloc(sizeof(float) * J * 3 * K * 4);
    uint32_t seed = 99;
    for (uint32_t k = 0; k < K; k++) times[k] = (float)k / 30.0f;
    for (size_t i = 0; i < (size_t)J * 3 * K * 4; i++) vals[i] = sk_test_rnd(&seed);
    for (uint32_t ti = 0; ti < J * 3; ti++)
        if (ti % 3 == SK_PATH_ROTATION)
            for (uint32_t k = 0; k < K; k++) {
                sk_quat q = sk_test_rnd_quat(&seed);
                float *v = vals + (size_t)ti * K * 4 + k * 4;
                v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
            }
    for (int fail_at = -1; fail_at <= 3; fail_at++)
        for (int step = 0; step < 2; step++) {
            sk_clip *c[2] = {NULL, NULL};
            sk_key_stats stats[2][J * 3];
            struct lazy_src ls = {poison, vals, sizeof(float) * J * 3 * K * 4, 0, 0, fail_at};
            sk_result r = SK_OK;
            for (int lazy = 0; lazy < 2; lazy++) {
                sk_clip_builder *b = NULL;
                sk_error err = {0};
                assert_int_equal(sk_clip_builder_create("f", NULL, &b, &err), SK_OK);
                memset(poison, 0xff, ls.bytes);
                if (lazy) sk_clip_builder_set_fetch(b, lazy_fetch, &ls);
                for (uint32_t ti = 0; ti < J * 3; ti++) {
                    sk_track_desc td = {ti / 3, (sk_track_path)(ti % 3),
                                        step && ti == 7 ? SK_INTERP_STEP : SK_INTERP_LINEAR, K, times,
                                        (lazy ? poison : vals) + (size_t)ti * K * 4, 0};
                    assert_int_equal(lazy ? sk_clip_builder_add_track_ref_lazy(b, &td, &stats[lazy][ti], &err)
                                          : sk_clip_builder_add_track_ref_stats(b, &td, &stats[lazy][ti], &err),
                                     SK_OK);
                }
                r = sk_clip_builder_finish(b, &c[lazy], &err);
                /* frame-major: one read per joint group (two groups); else one per track */
                bool fails = fail_at >= 1 && (step || fail_at <= 2);
                if (lazy && fails) {
                    assert_int_equal(r, SK_ERR_IO);
                    assert_null(c[1]);
                    assert_string_equal(err.message, "the animation keys could not be read");
                } else
                    assert_int_equal(r, SK_OK);
            }
            if (!(fail_at >= 1 && (step || fail_at <= 2))) {
                assert_int_equal(ls.calls, step ? J * 3 : 2);
                assert_int_equal(sk_clip_is_frame_major(c[0]), !step);
                assert_int_equal(sk_clip_is_frame_major(c[1]), !step);
                assert_memory_equal(stats[0], stats[1], sizeof stats[0]);
                assert_int_equal(ls.in_place, step ? J * 3 : 0); /* not frame-major: every track in place */
                for (uint32_t ti = 0; ti < J * 3; ti++) {
                    float t0[K], v0[K * 4], t1[K], v1[K * 4];
                    assert_true(sk_clip_track_keys(c[0], ti, t0, v0));
                    assert_true(sk_clip_track_keys(c[1], ti, t1, v1));
                    assert_memory_equal(t0, t1, sizeof t0);
                    assert_memory_equal(v0, v1, sizeof(float) * K * (ti % 3 == SK_PATH_ROTATION ? 4 : 3));
                }
            }
            sk_clip_destroy(c[0]);
            sk_clip_destroy(c[1]);
        }
    /* a lazy track without a fetch function is refused */
    sk_clip_builder *b = NULL;
    sk_error err = {0};
    assert_int_equal(sk_clip_builder_create("g", NULL, &b, &err), SK_OK);
    sk_key_stats s1;
    sk_track_desc td = {0, SK_PATH_TRANSLATION, SK_INTERP_LINEAR, K, times, vals, 0};
    assert_int_equal(sk_clip_builder_add_track_ref_lazy(b, &td, &s1, &err), SK_ERR_INVALID_ARGUMENT);
    sk_clip_builder_destroy(b);
    free(vals);
    free(poison);
}

/* Blending and local-to-model: the SoA functions against sk_blend_two
 * (normalised lerp) and sk_local_to_model, bit for bit, with and without a
 * root, out aliasing an input; poses with a zero and a huge quaternion. */
static void test_blend_l2m(void **st) {
    (void)st;
    uint32_t checks = 0;
    for (uint32_t n = 1; n <= 67; n += 11) {
        sk_skeleton *s = sk_test_chain_skeleton(n, 3);
        sk_error err = {0};
        sk_transform *pa = calloc(n, sizeof *pa), *pb = calloc(n, sizeof *pb), *po = calloc(n, sizeof *po);
        sk_mat4 *ma = calloc(n, sizeof *ma), *mb = calloc(n, sizeof *mb);
        uint32_t seed = n;
        for (uint32_t j = 0; j < n; j++) {
            pa[j].t = sk_vec3_make(sk_test_rnd(&seed), sk_test_rnd(&seed), sk_test_rnd(&seed));
            pb[j].t = sk_vec3_make(sk_test_rnd(&seed), sk_test_rnd(&seed), sk_test_rnd(&seed));
            pa[j].r = sk_test_rnd_quat(&seed);
            pb[j].r = sk_test_rnd_quat(&seed);
            pa[j].s = sk_vec3_make(1 + sk_test_rnd(&seed) * 0.5f, 1 + sk_test_rnd(&seed) * 0.5f, 1);
            pb[j].s = sk_vec3_make(1, 1 + sk_test_rnd(&seed) * 0.5f, 1 + sk_test_rnd(&seed) * 0.5f);
        }
        if (n > 20) {
            pa[5].r = sk_quat_make(0, 0, 0, 0), pb[5].r = sk_quat_make(0, 0, 0, 0); /* nlerp of nothing: identity */
            pa[9].r = sk_quat_make(1e30f, 0, 0, 0);                                 /* overflows: identity */
        }
        sk_soa_pose sa, sb, so;
        assert_int_equal(sk_soa_pose_alloc(s, NULL, &sa, &err), SK_OK);
        assert_int_equal(sk_soa_pose_alloc(s, NULL, &sb, &err), SK_OK);
        assert_int_equal(sk_soa_pose_alloc(s, NULL, &so, &err), SK_OK);
        assert_int_equal(sk_soa_pose_from_pose(s, SK_POSE_OF(s, pa, NULL), &sa, &err), SK_OK);
        assert_int_equal(sk_soa_pose_from_pose(s, SK_POSE_OF(s, pb, NULL), &sb, &err), SK_OK);
        sk_test_assert_soa_equal(s, &sa, pa, "round trip");
        const float ws[] = {0.0f, 0.3f, 0.5f, 1.0f, 0.77f, -0.25f, 1.5f};
        sk_mat4 root = sk_mat4_from_transform(&pa[0]);
        for (size_t w = 0; w < sizeof ws / sizeof ws[0]; w++) {
            sk_pose out = sk_pose_view(po, n, NULL, 0);
            assert_int_equal(sk_blend_two(s, SK_POSE_OF(s, pa, NULL), SK_POSE_OF(s, pb, NULL), ws[w], NULL, false, &out, &err), SK_OK);
            assert_int_equal(sk_blend_two_soa(s, &sa, &sb, ws[w], &so, &err), SK_OK);
            sk_test_assert_soa_equal(s, &so, po, "blend");
            if (ws[w] != 0.0f) { /* both kernel widths (the public function picks one) */
                sk_soa_blend(&sa, &sb, ws[w], &so, false);
                sk_test_assert_soa_equal(s, &so, po, "blend, 4 lanes");
                if (sk_soa_use_avx2()) {
                    sk_soa_blend(&sa, &sb, ws[w], &so, true);
                    sk_test_assert_soa_equal(s, &so, po, "blend, 8 lanes");
                }
            }
            for (int r = 0; r < 2; r++) {
                assert_int_equal(sk_local_to_model(s, &out, r ? &root : NULL, ma, n, &err), SK_OK);
                assert_int_equal(sk_local_to_model_soa(s, &so, r ? &root : NULL, mb, n, &err), SK_OK);
                assert_memory_equal(ma, mb, n * sizeof(sk_mat4));
                memset(mb, 0, n * sizeof(sk_mat4));
                sk_soa_l2m(s, &so, r ? &root : NULL, mb, NULL, false);
                assert_memory_equal(ma, mb, n * sizeof(sk_mat4));
                if (sk_soa_use_avx2()) {
                    memset(mb, 0, n * sizeof(sk_mat4));
                    sk_soa_l2m(s, &so, r ? &root : NULL, mb, NULL, true);
                    assert_memory_equal(ma, mb, n * sizeof(sk_mat4));
                }
                checks++;
            }
        }
        /* out aliasing a */
        assert_int_equal(sk_blend_two_soa(s, &sa, &sb, 0.4f, &sa, &err), SK_OK);
        sk_pose out = sk_pose_view(po, n, NULL, 0);
        assert_int_equal(sk_blend_two(s, SK_POSE_OF(s, pa, NULL), SK_POSE_OF(s, pb, NULL), 0.4f, NULL, false, &out, &err), SK_OK);
        sk_test_assert_soa_equal(s, &sa, po, "blend in place");
        sk_soa_pose_free(&sa, NULL);
        sk_soa_pose_free(&sb, NULL);
        sk_soa_pose_free(&so, NULL);
        free(pa), free(pb), free(po), free(ma), free(mb);
        sk_skeleton_destroy(s);
    }
    assert_int_equal(checks, 7 * 7 * 2);
}

/* sk_local_to_model, _range and _masked (eight joints at a time through the SoA kernel where
 * the CPU has AVX2) against the same joints one at a time (sk_local_to_model_joints, the path
 * without AVX2), bit for bit, and against sk_mat4_mul(parent, TRS) within 1e-5: every size
 * from 1 to 40 (whole groups, the joints after them), ranges starting anywhere, masks of the
 * joints needed (every joint's parent valid before the call, as the contract asks), with and
 * without a root. */
static void test_l2m_aos_groups(void **st) {
    (void)st;
    uint32_t checks = 0, masked = 0;
    for (uint32_t n = 1; n <= 40; n++) {
        sk_skeleton *s = sk_test_chain_skeleton(n, 7 * n);
        sk_error err = {0};
        sk_transform *p = calloc(n, sizeof *p);
        sk_mat4 *ma = calloc(n, sizeof *ma), *mb = calloc(n, sizeof *mb), *mc = calloc(n, sizeof *mc);
        bool *need = calloc(n, sizeof *need);
        uint32_t seed = 5 * n + 1;
        for (uint32_t j = 0; j < n; j++) {
            p[j].t = sk_vec3_make(sk_test_rnd(&seed), sk_test_rnd(&seed), sk_test_rnd(&seed));
            p[j].r = sk_test_rnd_quat(&seed);
            p[j].s = sk_vec3_make(1 + 0.5f * sk_test_rnd(&seed), 1 + 0.5f * sk_test_rnd(&seed), 1);
        }
        sk_pose pose = sk_pose_view(p, n, NULL, 0);
        sk_mat4 root = sk_mat4_from_transform(&p[n / 2]);
        for (int r = 0; r < 2; r++) {
            const sk_mat4 *rt = r ? &root : NULL;
            assert_int_equal(sk_local_to_model(s, &pose, rt, ma, n, &err), SK_OK);
            sk_local_to_model_joints(s, p, rt, 0, n, NULL, mb);
            assert_memory_equal(ma, mb, n * sizeof *ma);
            for (uint32_t j = 0; j < n; j++) { /* the definition */
                sk_mat4 l = sk_mat4_from_transform(&p[j]);
                int32_t par = s->parents[j];
                sk_mat4 want = par >= 0 ? sk_mat4_mul(&ma[par], &l) : rt ? sk_mat4_mul(rt, &l) : l;
                for (int e = 0; e < 16; e++) assert_true(fabsf(want.m[e] - ma[j].m[e]) <= 1e-5f * (1 + fabsf(want.m[e])));
            }
            for (uint32_t from = 1; from < n; from += 3) { /* a range from any joint, the ones before it kept */
                memcpy(mb, ma, n * sizeof *mb);
                for (uint32_t j = from; j < n; j++) memset(&mb[j], 0, sizeof mb[j]);
                assert_int_equal(sk_local_to_model_range(s, &pose, rt, from, n, mb, n, &err), SK_OK);
                assert_memory_equal(ma, mb, n * sizeof *ma);
                checks++;
            }
            for (int k = 0; k < 3; k++) { /* masks: the marked joints computed, the others untouched */
                for (uint32_t j = 0; j < n; j++) need[j] = (sk_test_rnd(&seed) > (k == 0 ? 0.6f : k == 1 ? 0.0f : -0.6f));
                uint32_t from = k == 2 && n > 3 ? n / 3 : 0;
                sk_mat4 other = sk_mat4_from_transform(&p[0]); /* what a joint not computed holds: any valid matrix */
                for (uint32_t j = 0; j < n; j++) {
                    if (j >= from && need[j]) memset(&mb[j], 0x5a, sizeof mb[j]);
                    else mb[j] = j % 3 ? ma[j] : other;
                }
                memcpy(mc, mb, n * sizeof *mc);
                assert_int_equal(sk_local_to_model_masked(s, &pose, rt, from, n, need, mb, n, &err), SK_OK);
                sk_local_to_model_joints(s, p, rt, from, n, need, mc);
                assert_memory_equal(mb, mc, n * sizeof *mb);
                for (uint32_t j = 0; j < n; j++)
                    if (!(j >= from && need[j])) assert_memory_equal(&mb[j], j % 3 ? &ma[j] : &other, sizeof mb[j]);
                masked++;
            }
            checks++;
        }
        free(p), free(ma), free(mb), free(mc), free(need);
        sk_skeleton_destroy(s);
    }
    printf("sk_local_to_model (%s) against one joint at a time: %u cases, %u masked, bit for bit\n",
           sk_soa_use_avx2() ? "eight joints at a time, AVX2" : "one joint at a time", checks, masked);
    assert_int_equal(checks, 2 * 40 + 2 * 273); /* from = 1, 4, 7, ... below n */
    assert_int_equal(masked, 2 * 40 * 3);
}

/* Local-to-model with the palette in the same pass (sk_local_to_model_palette_soa)
 * against sk_local_to_model + sk_skin_palette, byte for byte: skins of every
 * joint in order, a permuted subset (as glTF files have), one listing a joint
 * twice (made after the pass); with and without a root; both widths. */
static void test_l2m_palette(void **st) {
    (void)st;
    uint32_t checks = 0;
    for (uint32_t n = 1; n <= 67; n += 11) {
        sk_skeleton *s = sk_test_chain_skeleton(n, 3);
        sk_error err = {0};
        uint32_t seed = 5 * n + 1;
        sk_transform *p = calloc(n, sizeof *p);
        for (uint32_t j = 0; j < n; j++) {
            p[j].t = sk_vec3_make(sk_test_rnd(&seed), sk_test_rnd(&seed), sk_test_rnd(&seed));
            p[j].r = sk_test_rnd_quat(&seed);
            p[j].s = sk_vec3_make(1 + 0.2f * sk_test_rnd(&seed), 1, 1 - 0.1f * sk_test_rnd(&seed));
        }
        sk_soa_pose sp;
        assert_int_equal(sk_soa_pose_alloc(s, NULL, &sp, &err), SK_OK);
        assert_int_equal(sk_soa_pose_from_pose(s, SK_POSE_OF(s, p, NULL), &sp, &err), SK_OK);
        uint32_t joints[80], pc[3];
        sk_mat4 ib[80];
        for (uint32_t i = 0; i < 80; i++)
            for (int k = 0; k < 16; k++) ib[i].m[k] = (k % 5 == 0 ? 1.0f : 0.0f) + 0.3f * sk_test_rnd(&seed);
        for (int kind = 0; kind < 3; kind++) {
            uint32_t c = 0;
            if (kind == 0) /* every joint, in order */
                for (uint32_t j = 0; j < n; j++) joints[c++] = j;
            else /* every second joint from the end backwards (kind 2: and joint 0 twice) */
                for (uint32_t j = n; j-- > 0;)
                    if (j % 2 == 0 || j + 1 == n) joints[c++] = j;
            if (kind == 2) joints[c++] = 0;
            pc[kind] = c;
            sk_skin skin = {"chain", c, joints, ib, -1};
            sk_mat4 *ma = calloc(n, sizeof *ma), *mb = calloc(n, sizeof *mb);
            sk_mat4 *pa = calloc(c, sizeof *pa), *pb = calloc(c, sizeof *pb);
            sk_mat4 root = sk_mat4_from_transform(&p[0]);
            int16_t map[80];
            assert_int_equal(sk_skin_joint_map(s, &skin, map), kind != 2);
            for (int r = 0; r < 2; r++) {
                assert_int_equal(sk_local_to_model(s, SK_POSE_OF(s, p, NULL), r ? &root : NULL, ma, n, &err), SK_OK);
                assert_int_equal(sk_skin_palette(&skin, ma, n, pa, c, &err), SK_OK);
                memset(mb, 0, n * sizeof *mb), memset(pb, 0, c * sizeof *pb);
                assert_int_equal(sk_local_to_model_palette_soa(s, &sp, r ? &root : NULL, mb, n, &skin, NULL, pb, c, &err), SK_OK);
                assert_memory_equal(ma, mb, n * sizeof *ma);
                assert_memory_equal(pa, pb, c * sizeof *pa);
                checks++;
                if (kind == 2) continue;
                memset(mb, 0, n * sizeof *mb), memset(pb, 0, c * sizeof *pb);
                assert_int_equal(sk_local_to_model_palette_soa(s, &sp, r ? &root : NULL, mb, n, &skin, map, pb, c, &err), SK_OK);
                assert_memory_equal(ma, mb, n * sizeof *ma);
                assert_memory_equal(pa, pb, c * sizeof *pa);
                for (int wide = 0; wide < (sk_soa_use_avx2() ? 2 : 1); wide++) {
                    sk_soa_palette pal = {&skin, map, pb};
                    memset(mb, 0, n * sizeof *mb), memset(pb, 0, c * sizeof *pb);
                    sk_soa_l2m(s, &sp, r ? &root : NULL, mb, &pal, wide);
                    assert_memory_equal(ma, mb, n * sizeof *ma);
                    assert_memory_equal(pa, pb, c * sizeof *pa);
                }
            }
            free(ma), free(mb), free(pa), free(pb);
        }
        /* a map of another skin (every joint) with this one (half of them): only
         * this skin's entries are written, nothing outside its palette */
        if (n > 2) {
            uint32_t half = n / 2;
            for (uint32_t j = 0; j < n; j++) joints[j] = j;
            sk_skin whole = {"all", n, joints, ib, -1}, part = {"half", half, joints, ib, -1};
            int16_t wmap[80];
            assert_true(sk_skin_joint_map(s, &whole, wmap));
            sk_mat4 *m = calloc(n, sizeof *m), *pp = calloc(n, sizeof *pp);
            memset(pp, 0x7f, n * sizeof *pp);
            assert_int_equal(sk_local_to_model_palette_soa(s, &sp, NULL, m, n, &part, wmap, pp, half, &err), SK_OK);
            assert_true(((const unsigned char *)&pp[half])[0] == 0x7f);
            free(m), free(pp);
        }
        /* errors: a palette too small, a skin joint outside the skeleton (nothing written) */
        sk_mat4 *m = calloc(n, sizeof *m), pal1[80];
        sk_skin skin = {"chain", pc[0], joints, ib, -1};
        for (uint32_t j = 0; j < n; j++) joints[j] = j;
        if (n > 1) {
            assert_int_equal(sk_local_to_model_palette_soa(s, &sp, NULL, m, n, &skin, NULL, pal1, n - 1, &err), SK_ERR_INVALID_ARGUMENT);
            assert_non_null(strstr(err.message, "palette"));
        }
        joints[0] = n;
        memset(pal1, 0x7f, sizeof pal1);
        assert_int_equal(sk_local_to_model_palette_soa(s, &sp, NULL, m, n, &skin, NULL, pal1, n, &err), SK_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(err.message, "skin joint 0"));
        assert_true(((const unsigned char *)pal1)[0] == 0x7f);
        assert_int_equal(sk_local_to_model_palette_soa(s, &sp, NULL, m, n, NULL, NULL, pal1, n, &err), SK_ERR_INVALID_ARGUMENT);
        assert_int_equal(sk_local_to_model_palette_soa(s, &sp, NULL, m, n - 1, &skin, NULL, pal1, n, &err), SK_ERR_INVALID_ARGUMENT);
        free(m);
        free(p);
        sk_soa_pose_free(&sp, NULL);
        sk_skeleton_destroy(s);
    }
    assert_int_equal(checks, 7 * 3 * 2);
}

/* N-layer blends: sk_blend_weighted_soa against sk_blend_poses (nlerp, no
 * masks) bit for bit, with and without rest fill, weight sums below and
 * above one, zero and negative weights, opposite-hemisphere rotations, both
 * widths; out aliasing an input. */
static void test_blend_weighted(void **st) {
    (void)st;
    uint32_t checks = 0;
    for (uint32_t n = 1; n <= 45; n += 11) {
        sk_skeleton *s = sk_test_chain_skeleton(n, 3);
        sk_error err = {0};
        enum { L = 4 };
        sk_transform *p[L], *po = calloc(n, sizeof *po);
        sk_soa_pose sp[L], so;
        uint32_t seed = 17 * n;
        for (int i = 0; i < L; i++) {
            p[i] = calloc(n, sizeof *p[i]);
            for (uint32_t j = 0; j < n; j++) {
                p[i][j].t = sk_vec3_make(sk_test_rnd(&seed), sk_test_rnd(&seed), sk_test_rnd(&seed));
                p[i][j].r = sk_test_rnd_quat(&seed);
                if ((i + j) % 3 == 0) p[i][j].r = sk_quat_make(-p[i][j].r.x, -p[i][j].r.y, -p[i][j].r.z, -p[i][j].r.w);
                p[i][j].s = sk_vec3_make(1 + 0.3f * sk_test_rnd(&seed), 1, 1 + 0.2f * sk_test_rnd(&seed));
            }
            assert_int_equal(sk_soa_pose_alloc(s, NULL, &sp[i], &err), SK_OK);
            assert_int_equal(sk_soa_pose_from_pose(s, SK_POSE_OF(s, p[i], NULL), &sp[i], &err), SK_OK);
        }
        assert_int_equal(sk_soa_pose_alloc(s, NULL, &so, &err), SK_OK);
        const float wsets[][L] = {{0.5f, 0.3f, 0.2f, 0.0f}, {0.2f, 0.1f, 0.0f, 0.3f}, {1.0f, 0.7f, 0.4f, 0.9f},
                                  {0.0f, -1.0f, 0.6f, 0.0f}, {0.0f, 0.0f, 0.0f, 0.0f}, {1.0f, 0.0f, 0.0f, 0.0f}};
        for (size_t ws = 0; ws < sizeof wsets / sizeof wsets[0]; ws++)
            for (int fill = 0; fill < 2; fill++) {
                sk_pose views[L];
                sk_blend_input in[L];
                const sk_soa_pose *sin[L];
                for (int i = 0; i < L; i++) {
                    views[i] = sk_pose_view(p[i], n, NULL, 0);
                    in[i] = (sk_blend_input){&views[i], wsets[ws][i], NULL, NULL};
                    sin[i] = &sp[i];
                }
                sk_blend_options o = {SK_BLEND_NLERP, !fill};
                sk_pose out = sk_pose_view(po, n, NULL, 0);
                assert_int_equal(sk_blend_poses(s, in, L, &o, &out, &err), SK_OK);
                assert_int_equal(sk_blend_weighted_soa(s, sin, wsets[ws], L, fill, &so, &err), SK_OK);
                sk_test_assert_soa_equal(s, &so, po, "weighted blend");
                for (int wide = 0; wide < (sk_soa_use_avx2() ? 2 : 1); wide++) {
                    memset(so.data, 0, so.group_count * 80 * sizeof(float));
                    sk_soa_blend_weighted(s, sin, wsets[ws], L, fill, &so, wide);
                    sk_test_assert_soa_equal(s, &so, po, wide ? "weighted blend, 4 doubles" : "weighted blend, 2 doubles");
                }
                checks++;
            }
        /* out aliasing the first input */
        {
            sk_pose views[L];
            sk_blend_input in[L];
            const sk_soa_pose *sin[L];
            const float w[L] = {0.4f, 0.4f, 0.1f, 0.05f};
            for (int i = 0; i < L; i++) {
                views[i] = sk_pose_view(p[i], n, NULL, 0);
                in[i] = (sk_blend_input){&views[i], w[i], NULL, NULL};
                sin[i] = &sp[i];
            }
            sk_pose out = sk_pose_view(po, n, NULL, 0);
            assert_int_equal(sk_blend_poses(s, in, L, NULL, &out, &err), SK_OK);
            assert_int_equal(sk_blend_weighted_soa(s, sin, w, L, true, &sp[0], &err), SK_OK);
            sk_test_assert_soa_equal(s, &sp[0], po, "weighted blend in place");
        }
        assert_int_equal(sk_blend_weighted_soa(s, NULL, NULL, 65, true, &so, &err), SK_ERR_LIMIT);
        for (int i = 0; i < L; i++) {
            free(p[i]);
            sk_soa_pose_free(&sp[i], NULL);
        }
        sk_soa_pose_free(&so, NULL);
        free(po);
        sk_skeleton_destroy(s);
    }
    assert_int_equal(checks, 5 * 6 * 2);
}

/* Both kernel widths against the scalar functions, lane by lane. */
static void test_kernel_widths(void **st) {
    (void)st;
    uint32_t seed = 99, checks = 0, fars = 0;
    float a[32], b[32], o4[32], o8[32];
    for (int round = 0; round < 2000; round++) {
        for (int l = 0; l < 8; l++) {
            sk_quat qa = sk_test_rnd_quat(&seed), qb = sk_test_rnd_quat(&seed);
            if (round % 3 == 0) { /* close keys: the 3- and 6-term series */
                float e = round % 2 ? 1e-3f : 0.05f;
                qb = sk_quat_normalize(sk_quat_make(qa.x + e * sk_test_rnd(&seed), qa.y + e * sk_test_rnd(&seed), qa.z, qa.w));
            }
            a[l] = qa.x, a[8 + l] = qa.y, a[16 + l] = qa.z, a[24 + l] = qa.w;
            b[l] = qb.x, b[8 + l] = qb.y, b[16 + l] = qb.z, b[24 + l] = qb.w;
        }
        float u = (sk_test_rnd(&seed) + 1.0f) * 0.5f;
        unsigned far4 = skk_slerp_rows_w4(a, b, u, o4);
#if defined(SK_SOA_X86)
        unsigned far8 = far4;
        if (sk_soa_use_avx2()) {
            far8 = skk_slerp_rows_w8(a, b, u, o8);
            assert_int_equal(far4, far8);
        } else {
            memcpy(o8, o4, sizeof o8);
        }
#else
        memcpy(o8, o4, sizeof o8);
#endif
        for (int l = 0; l < 8; l++) {
            if (far4 & (1u << l)) { /* more than 120 degrees apart: the caller's scalar branch */
                fars++;
                continue;
            }
            sk_quat q = sk_quat_slerp(sk_quat_make(a[l], a[8 + l], a[16 + l], a[24 + l]),
                                      sk_quat_make(b[l], b[8 + l], b[16 + l], b[24 + l]), u);
            float want[4] = {q.x, q.y, q.z, q.w};
            for (int e = 0; e < 4; e++) {
                assert_memory_equal(&o4[e * 8 + l], &want[e], sizeof(float));
                assert_memory_equal(&o8[e * 8 + l], &want[e], sizeof(float));
            }
            checks++;
        }
    }
    fprintf(stderr, "slerp kernels: %u lanes checked, %u left to the scalar branch\n", checks, fars);
    assert_int_equal(checks + fars, 2000 * 8);
    assert_true(checks > 2000 * 8 / 2);
    /* blend groups: w4 == w8 on the same data */
    float ga[80], gb[80], r4[80];
    for (int i = 0; i < 80; i++) ga[i] = sk_test_rnd(&seed), gb[i] = sk_test_rnd(&seed);
    skk_blend_group_w4(ga, gb, 0.35f, r4);
#if defined(SK_SOA_X86)
    if (sk_soa_use_avx2()) {
        float r8[80];
        skk_blend_group_w8(ga, gb, 0.35f, r8);
        assert_memory_equal(r4, r8, sizeof r4);
        float m4[96], m8[96];
        skk_rs_group_w4(ga, m4);
        skk_rs_group_w8(ga, m8);
        assert_memory_equal(m4, m8, sizeof m4);
    }
#endif
}

static void test_errors(void **st) {
    (void)st;
    sk_asset *a = mannequin();
    const sk_skeleton *s = a->skeleton;
    sk_error err = {0};
    sk_soa_pose p;
    assert_int_equal(sk_soa_pose_alloc(s, NULL, &p, &err), SK_OK);
    assert_true(((uintptr_t)p.data & 31u) == 0);
    assert_int_equal(p.group_count, (s->joint_count + 7) / 8);
    assert_int_equal(sk_soa_pose_floats(s->joint_count), p.group_count * 80u);
    assert_int_equal(sk_soa_pose_floats(0), 80u);
    /* rest pose, padding lanes identity */
    sk_transform *rest = calloc(s->joint_count, sizeof *rest);
    sk_test_assert_soa_equal(s, &p, s->rest, "rest");
    uint32_t last = s->joint_count % 8;
    if (last) {
        const float *g = p.data + (size_t)(p.group_count - 1) * 80;
        assert_true(g[48 + last] == 1.0f && g[24 + last] == 0.0f && g[56 + last] == 1.0f);
    }
    sk_soa_pose bad = sk_soa_pose_view(p.data, s->joint_count - 1);
    assert_int_equal(sk_clip_sample_soa(a->clips[0], s, 0.1, SK_LOOP_REPEAT, NULL, 0, &bad, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "joints"));
    bad = sk_soa_pose_view(p.data + 1, s->joint_count);
    assert_int_equal(sk_soa_pose_rest(s, &bad, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "aligned"));
    bad = sk_soa_pose_view(NULL, s->joint_count);
    assert_int_equal(sk_blend_two_soa(s, &p, &bad, 0.5f, &p, &err), SK_ERR_INVALID_ARGUMENT);
    uint32_t cur[2];
    assert_int_equal(sk_clip_sample_soa(a->clips[0], s, 0.1, SK_LOOP_REPEAT, cur, 0, &p, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "cursor"));
    assert_int_equal(sk_clip_sample_soa(a->clips[0], s, 0.1, SK_LOOP_REPEAT, cur, sk_clip_cursor_size(a->clips[0]), &p, &err), SK_OK);
    assert_int_equal(sk_clip_sample_soa(NULL, s, 0.1, SK_LOOP_REPEAT, NULL, 0, &p, &err), SK_ERR_INVALID_ARGUMENT);
    sk_mat4 m[2];
    assert_int_equal(sk_local_to_model_soa(s, &p, NULL, m, 2, &err), SK_ERR_INVALID_ARGUMENT);
    /* a clip on more joints than the skeleton has */
    sk_skeleton *small = sk_test_chain_skeleton(3, 3);
    sk_soa_pose ps;
    assert_int_equal(sk_soa_pose_alloc(small, NULL, &ps, &err), SK_OK);
    assert_int_equal(sk_clip_sample_soa(a->clips[0], small, 0.1, SK_LOOP_REPEAT, NULL, 0, &ps, &err), SK_ERR_INVALID_ARGUMENT);
    sk_soa_pose_free(&ps, NULL);
    sk_skeleton_destroy(small);
    free(rest);
    sk_soa_pose_free(&p, NULL);
    sk_asset_destroy(a);
}

/* A skeleton of n joints with several roots (every seventh joint, and joint
 * 0) and random parents otherwise (any earlier joint): not chains only. */
static sk_skeleton *forest_skeleton(uint32_t n, uint32_t seed) {
    int32_t *parents = malloc(n * sizeof *parents);
    sk_transform *rest = malloc(n * sizeof *rest);
    assert_non_null(parents);
    assert_non_null(rest);
    for (uint32_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        parents[i] = i % 7 == 0 ? -1 : (int32_t)((seed >> 8) % i);
        rest[i] = sk_transform_identity();
    }
    sk_skeleton_desc sd = {0};
    sd.joint_count = n, sd.parents = parents, sd.rest = rest;
    sk_skeleton *s = NULL;
    assert_int_equal(sk_skeleton_create(&sd, NULL, &s, NULL), SK_OK);
    free(parents), free(rest);
    return s;
}

/* sk_local_to_model_soa_many (eight characters at a time) against
 * sk_local_to_model_palette_soa one character at a time, byte for byte:
 * 1 to 8 characters, chains and a forest of several roots, with and without
 * roots (one of them not affine), model matrices written or not, a palette
 * of a permuted subset of the joints or none; components of zero of both
 * signs (the signs of zeros the products give must agree). Then its errors,
 * which write nothing. */
static void test_l2m_many(void **st) {
    (void)st;
    uint32_t checks = 0;
    static const uint32_t sizes[] = {1, 8, 22, 67};
    for (int shape = 0; shape < 2; shape++)
        for (uint32_t si = 0; si < 4; si++) {
            uint32_t n = sizes[si], seed = 77 * n + 13 * (uint32_t)shape;
            sk_skeleton *s = shape ? forest_skeleton(n, seed) : sk_test_chain_skeleton(n, 3);
            sk_error err = {0};
            size_t sf = sk_soa_pose_floats(n);
            float *data = aligned_alloc(32, 8 * sf * sizeof(float));
            float *scratch = malloc(sk_soa_many_scratch_floats(n) * sizeof(float));
            sk_transform *p = calloc(n, sizeof *p);
            sk_soa_pose poses[8];
            const sk_soa_pose *pp[8];
            for (int c = 0; c < 8; c++) {
                for (uint32_t j = 0; j < n; j++) {
                    float t[3];
                    for (int k = 0; k < 3; k++) { /* a few zeros of either sign */
                        float v = sk_test_rnd(&seed);
                        t[k] = v > 0.8f ? 0.0f : v < -0.8f ? -0.0f : v;
                    }
                    p[j].t = sk_vec3_make(t[0], t[1], t[2]);
                    p[j].r = j % 3 == 1 ? sk_quat_make(0.0f, -0.0f, 0.6f, -0.8f) : sk_test_rnd_quat(&seed);
                    p[j].s = sk_vec3_make(1 + 0.2f * sk_test_rnd(&seed), j % 4 == 2 ? -1.0f : 1.0f, 1 - 0.1f * sk_test_rnd(&seed));
                }
                poses[c] = sk_soa_pose_view(data + c * sf, n), pp[c] = &poses[c];
                assert_int_equal(sk_soa_pose_from_pose(s, SK_POSE_OF(s, p, NULL), &poses[c], &err), SK_OK);
            }
            uint32_t joints[80], pc = 0;
            for (uint32_t j = n; j-- > 0;)
                if (j % 2 == 0 || j + 1 == n) joints[pc++] = j;
            sk_mat4 ib[80], rootm[8];
            for (uint32_t i = 0; i < 80; i++)
                for (int k = 0; k < 16; k++) ib[i].m[k] = (k % 5 == 0 ? 1.0f : 0.0f) + 0.3f * sk_test_rnd(&seed);
            for (int c = 0; c < 8; c++) {
                sk_transform x = {sk_vec3_make(sk_test_rnd(&seed), 1, -2), sk_test_rnd_quat(&seed), sk_vec3_make(1, 2, 1)};
                rootm[c] = sk_mat4_from_transform(&x);
            }
            rootm[3].m[3] = 0.25f, rootm[3].m[7] = -0.5f; /* not affine: a bottom row of its own */
            const sk_mat4 *roots[8];
            for (int c = 0; c < 8; c++) roots[c] = &rootm[c];
            sk_skin skin = {"half", pc, joints, ib, -1};
            int16_t map[80];
            assert_true(sk_skin_joint_map(s, &skin, map));
            sk_mat4 *ma = calloc((size_t)8 * n, sizeof *ma), *mb = calloc((size_t)8 * n, sizeof *mb);
            sk_mat4 *pa = calloc((size_t)8 * pc, sizeof *pa), *pb = calloc((size_t)8 * pc, sizeof *pb);
            for (uint32_t count = 1; count <= 8; count++)
                for (int r = 0; r < 2; r++)
                    for (int out = 0; out < 3; out++) { /* 0: model and palette, 1: palette only, 2: model only */
                        sk_mat4 *mo[8], *po[8];
                        for (uint32_t c = 0; c < count; c++) {
                            assert_int_equal(sk_local_to_model_palette_soa(s, &poses[c], r ? roots[c] : NULL, ma + (size_t)c * n, n, &skin, map,
                                                                           pa + (size_t)c * pc, pc, &err),
                                             SK_OK);
                            mo[c] = mb + (size_t)c * n, po[c] = pb + (size_t)c * pc;
                        }
                        memset(mb, 0x7f, (size_t)8 * n * sizeof *mb), memset(pb, 0x7f, (size_t)8 * pc * sizeof *pb);
                        bool pal = out != 2;
                        assert_int_equal(sk_local_to_model_soa_many(s, count, pp, r ? roots : NULL, out == 1 ? NULL : mo, n,
                                                                    pal ? &skin : NULL, pal ? map : NULL, pal ? po : NULL, pc, scratch,
                                                                    sk_soa_many_scratch_floats(n), &err),
                                         SK_OK);
                        if (out != 1) assert_memory_equal(ma, mb, count * n * sizeof *ma);
                        if (pal) assert_memory_equal(pa, pb, count * pc * sizeof *pa);
                        /* nothing past the count's characters */
                        if (out != 1 && count < 8) assert_true(((const unsigned char *)(mb + (size_t)count * n))[0] == 0x7f);
                        if (!pal) assert_true(((const unsigned char *)pb)[0] == 0x7f);
                        checks++;
                    }
            /* errors (nothing written) */
            sk_mat4 *mo[8], *po[8];
            for (int c = 0; c < 8; c++) mo[c] = mb + (size_t)c * n, po[c] = pb + (size_t)c * pc;
            memset(mb, 0x7f, (size_t)8 * n * sizeof *mb), memset(pb, 0x7f, (size_t)8 * pc * sizeof *pb);
            size_t need = sk_soa_many_scratch_floats(n);
            assert_int_equal(sk_local_to_model_soa_many(s, 0, pp, NULL, mo, n, NULL, NULL, NULL, 0, scratch, need, &err), SK_ERR_INVALID_ARGUMENT);
            assert_non_null(strstr(err.message, "count 0"));
            assert_int_equal(sk_local_to_model_soa_many(s, 9, pp, NULL, mo, n, NULL, NULL, NULL, 0, scratch, need, &err), SK_ERR_INVALID_ARGUMENT);
            assert_int_equal(sk_local_to_model_soa_many(s, 2, pp, NULL, mo, n, NULL, NULL, NULL, 0, scratch, need - 1, &err), SK_ERR_INVALID_ARGUMENT);
            assert_non_null(strstr(err.message, "scratch"));
            assert_int_equal(sk_local_to_model_soa_many(s, 2, pp, NULL, NULL, n, NULL, NULL, NULL, 0, scratch, need, &err), SK_ERR_INVALID_ARGUMENT);
            assert_int_equal(sk_local_to_model_soa_many(s, 2, pp, NULL, mo, n, &skin, NULL, po, pc, scratch, need, &err), SK_ERR_INVALID_ARGUMENT);
            assert_non_null(strstr(err.message, "map"));
            assert_int_equal(sk_local_to_model_soa_many(s, 2, pp, NULL, mo, n, &skin, map, po, pc - 1, scratch, need, &err), SK_ERR_INVALID_ARGUMENT);
            assert_int_equal(sk_local_to_model_soa_many(s, 2, pp, NULL, mo, n - 1, NULL, NULL, NULL, 0, scratch, need, &err), SK_ERR_INVALID_ARGUMENT);
            const sk_mat4 *badroots[8] = {roots[0], NULL};
            assert_int_equal(sk_local_to_model_soa_many(s, 2, pp, badroots, mo, n, NULL, NULL, NULL, 0, scratch, need, &err), SK_ERR_INVALID_ARGUMENT);
            assert_non_null(strstr(err.message, "roots[1]"));
            sk_soa_pose other = sk_soa_pose_view(data, n + 1);
            const sk_soa_pose *bad[2] = {pp[0], &other};
            assert_int_equal(sk_local_to_model_soa_many(s, 2, bad, NULL, mo, n, NULL, NULL, NULL, 0, scratch, need, &err), SK_ERR_INVALID_ARGUMENT);
            assert_true(((const unsigned char *)mb)[0] == 0x7f && ((const unsigned char *)pb)[0] == 0x7f);
            free(ma), free(mb), free(pa), free(pb), free(p), free(scratch), free(data);
            sk_skeleton_destroy(s);
        }
    assert_int_equal(checks, 2 * 4 * 8 * 2 * 3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_mannequin), cmocka_unit_test(test_sample_layouts),
        cmocka_unit_test(test_sample_sparse_compressed),
        cmocka_unit_test(test_frames_vs_tracks), cmocka_unit_test(test_frame_writers), cmocka_unit_test(test_lazy_fallback), cmocka_unit_test(test_blend_l2m), cmocka_unit_test(test_l2m_aos_groups),
        cmocka_unit_test(test_kernel_widths),    cmocka_unit_test(test_errors),
        cmocka_unit_test(test_blend_weighted),   cmocka_unit_test(test_l2m_palette), cmocka_unit_test(test_l2m_many),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
