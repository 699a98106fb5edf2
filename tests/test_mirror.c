/* sk_clip_mirror (anim/mirror.h) against the definition of a mirror image:
 * at every sampled time the mirrored clip's model-space joint positions are
 * the source's reflected across the plane (x negated) with each joint in its
 * partner's place, to 1e-4 of the character's height; mirroring twice gives
 * the source's local pose back. On the mannequin's walk, the CMU capture
 * 02_01 (BVH, 31 joints), CesiumMan (glTF, rest frames turned against the
 * model axes under a Z-up root) and a synthetic skeleton whose every joint
 * has a random rest frame (left and right rolled differently); on a
 * CUBICSPLINE clip between its keys; the mannequin's authored strafe_right
 * against its mirrored strafe_left; bad input. sk_clip_turn against the
 * rotation written as a matrix here (turn_and_check). */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pairing {
    uint32_t pairs[256][2];
    uint32_t count;
    int32_t partner[512];
} pairing;

static void pairing_make(const sk_skeleton *s, const sk_humanoid_map *map, pairing *p) {
    assert_true(s->joint_count <= 512);
    sk_error err = {0};
    if (sk_skeleton_mirror_pairs(s, map, p->pairs, 256, &p->count, &err) != SK_OK) fail_msg("%s", err.message);
    assert_true(p->count <= 256);
    for (uint32_t j = 0; j < s->joint_count; j++) p->partner[j] = (int32_t)j;
    for (uint32_t k = 0; k < p->count; k++) {
        p->partner[p->pairs[k][0]] = (int32_t)p->pairs[k][1];
        p->partner[p->pairs[k][1]] = (int32_t)p->pairs[k][0];
    }
}

static void model_positions(const sk_skeleton *s, const sk_clip *c, double t, sk_vec3 *out) {
    sk_transform *local = calloc(s->joint_count, sizeof *local);
    sk_mat4 *model = calloc(s->joint_count, sizeof *model);
    sk_error err = {0};
    if (sk_clip_sample(c, s, t, SK_LOOP_CLAMP, SK_POSE_OF(s, local, NULL), &err) != SK_OK) fail_msg("%s", err.message);
    assert_int_equal(sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, model, s->joint_count, NULL), SK_OK);
    for (uint32_t j = 0; j < s->joint_count; j++) out[j] = sk_vec3_make(model[j].m[12], model[j].m[13], model[j].m[14]);
    free(local);
    free(model);
}

/* The source's key times and the midpoints between them (every key of every
 * track), at most cap; returns the count. */
static uint32_t sample_times(const sk_clip *c, double *out, uint32_t cap) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < sk_clip_track_count(c); i++) {
        sk_track_info info;
        assert_true(sk_clip_track_info(c, i, &info));
        float *t = calloc(info.key_count, sizeof *t);
        assert_true(sk_clip_track_keys(c, i, t, NULL));
        for (uint32_t k = 0; k < info.key_count; k++) {
            double cand[2] = {t[k], k + 1 < info.key_count ? 0.5 * (t[k] + t[k + 1]) : -1};
            for (int m = 0; m < 2; m++) {
                if (cand[m] < 0) continue;
                bool seen = false;
                for (uint32_t q = 0; q < n && !seen; q++) seen = out[q] == cand[m];
                if (!seen && n < cap) out[n++] = cand[m];
            }
        }
        free(t);
    }
    return n;
}

/* Height: the vertical extent of the rest pose's joints. */
static double rest_height(const sk_skeleton *s) {
    sk_mat4 *model = calloc(s->joint_count, sizeof *model);
    sk_transform *local = calloc(s->joint_count, sizeof *local);
    memcpy(local, s->rest, s->joint_count * sizeof *local);
    assert_int_equal(sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, model, s->joint_count, NULL), SK_OK);
    double lo = 1e30, hi = -1e30;
    for (uint32_t j = 0; j < s->joint_count; j++) {
        if (model[j].m[13] < lo) lo = model[j].m[13];
        if (model[j].m[13] > hi) hi = model[j].m[13];
    }
    free(model);
    free(local);
    return hi - lo;
}

/* The mirror property at every sample time; returns the number of
 * (time, joint) checks made and the worst error in units of height. */
static uint32_t check_mirror(const char *what, const sk_skeleton *s, const sk_clip *src, const sk_clip *mir,
                             const pairing *p, double height, double *worst_out) {
    static double times[20000];
    uint32_t nt = sample_times(src, times, 20000);
    assert_true(nt >= 2);
    sk_vec3 *a = calloc(s->joint_count, sizeof *a), *b = calloc(s->joint_count, sizeof *b);
    double worst = 0;
    uint32_t checks = 0;
    for (uint32_t i = 0; i < nt; i++) {
        model_positions(s, src, times[i], a);
        model_positions(s, mir, times[i], b);
        for (uint32_t j = 0; j < s->joint_count; j++) {
            sk_vec3 want = sk_vec3_make(-a[j].x, a[j].y, a[j].z), got = b[p->partner[j]];
            double d = sk_vec3_length(sk_vec3_sub(want, got)) / height;
            if (d > worst) worst = d;
            checks++;
        }
    }
    printf("%s: %u samples x %u joints, %u pairs, worst %.2e of the height (%.3f)\n", what, nt, s->joint_count,
           p->count, worst, height);
    assert_true(worst < 1e-4);
    free(a);
    free(b);
    *worst_out = worst;
    return checks;
}

/* Mirroring twice: the source's local pose at every sample time. */
static void check_twice(const char *what, const sk_skeleton *s, const sk_clip *src, const sk_clip *mir,
                        const pairing *p, double height) {
    sk_clip *back = NULL;
    sk_clip_mirror_desc d = {0};
    d.pairs = (const uint32_t (*)[2])p->pairs;
    d.pair_count = p->count;
    sk_error err = {0};
    if (sk_clip_mirror(mir, s, &d, NULL, &back, &err) != SK_OK) fail_msg("%s", err.message);
    static double times[20000];
    uint32_t nt = sample_times(src, times, 20000);
    sk_transform *a = calloc(s->joint_count, sizeof *a), *b = calloc(s->joint_count, sizeof *b);
    double wr = 0, wt = 0;
    for (uint32_t i = 0; i < nt; i++) {
        assert_int_equal(sk_clip_sample(src, s, times[i], SK_LOOP_CLAMP, SK_POSE_OF(s, a, NULL), NULL), SK_OK);
        assert_int_equal(sk_clip_sample(back, s, times[i], SK_LOOP_CLAMP, SK_POSE_OF(s, b, NULL), NULL), SK_OK);
        for (uint32_t j = 0; j < s->joint_count; j++) {
            double r = 1.0 - fabs(sk_quat_dot(a[j].r, b[j].r));
            double t = sk_vec3_length(sk_vec3_sub(a[j].t, b[j].t)) / height;
            if (r > wr) wr = r;
            if (t > wt) wt = t;
        }
    }
    printf("%s twice: worst 1 - |q.q'| %.2e, translation %.2e of the height\n", what, wr, wt);
    assert_true(wr < 1e-6 && wt < 1e-5);
    assert_true(fabs(sk_clip_duration(back) - sk_clip_duration(src)) < 1e-9);
    free(a);
    free(b);
    sk_clip_destroy(back);
}

static void mirror_and_check(const char *what, const sk_skeleton *s, const sk_clip *src, const pairing *p,
                             uint32_t min_checks) {
    sk_clip_mirror_desc d = {0};
    d.pairs = (const uint32_t (*)[2])p->pairs;
    d.pair_count = p->count;
    sk_clip *mir = NULL;
    sk_error err = {0};
    if (sk_clip_mirror(src, s, &d, NULL, &mir, &err) != SK_OK) fail_msg("%s: %s", what, err.message);
    double h = rest_height(s), worst = 0;
    assert_true(h > 0);
    printf("%s: %u tracks, mirrored %u (one-key translations where the sides' rest lengths differ)\n", what,
           sk_clip_track_count(src), sk_clip_track_count(mir));
    uint32_t checks = check_mirror(what, s, src, mir, p, h, &worst);
    assert_true(checks >= min_checks);
    check_twice(what, s, src, mir, p, h);
    sk_clip_destroy(mir);
}


/* ---- sk_clip_turn -------------------------------------------------------------------------- */

/* Every joint's model position and axes in the turned clip are the source's
 * turned by Y(yaw) = [c 0 s; 0 1 0; -s 0 c] (a rotation about +Y taking +Z
 * towards +X, written here as a matrix), at the source's key times and
 * between them, to 1e-4 of the height; turned back by -yaw the local pose is
 * the source's. Returns the samples checked. */
static uint32_t turn_and_check(const char *what, const sk_skeleton *s, const sk_clip *src, float yaw, uint32_t cap) {
    double h = rest_height(s);
    sk_clip *turned = NULL, *back = NULL;
    sk_error err = {0};
    if (sk_clip_turn(src, s, yaw, NULL, &turned, &err) != SK_OK) fail_msg("%s: %s", what, err.message);
    assert_string_equal(sk_clip_name(turned), sk_clip_name(src));
    /* a frame-major clip stays one (sampling's fast path), even where a root gains a track */
    assert_int_equal(sk_clip_is_frame_major(turned), sk_clip_is_frame_major(src));
    printf("%s: frame-major %d, %u tracks -> %u\n", what, sk_clip_is_frame_major(src), sk_clip_track_count(src),
           sk_clip_track_count(turned));
    assert_true(fabs(sk_clip_duration(turned) - sk_clip_duration(src)) < 1e-9);
    assert_int_equal(sk_clip_turn(turned, s, -yaw, NULL, &back, &err), SK_OK);
    double c = cos((double)yaw), sn = sin((double)yaw);
    uint32_t n = s->joint_count;
    double *times = calloc(cap, sizeof *times);
    sk_transform *la = calloc(n, sizeof *la), *lb = calloc(n, sizeof *lb), *lc = calloc(n, sizeof *lc);
    sk_mat4 *ma = calloc(n, sizeof *ma), *mb = calloc(n, sizeof *mb);
    assert_true(times && la && lb && lc && ma && mb);
    uint32_t nt = sample_times(src, times, cap), checked = 0;
    double worst = 0, worst_back = 0;
    for (uint32_t i = 0; i < nt; i++) {
        assert_int_equal(sk_clip_sample(src, s, times[i], SK_LOOP_CLAMP, SK_POSE_OF(s, la, NULL), NULL), SK_OK);
        assert_int_equal(sk_clip_sample(turned, s, times[i], SK_LOOP_CLAMP, SK_POSE_OF(s, lb, NULL), NULL), SK_OK);
        assert_int_equal(sk_clip_sample(back, s, times[i], SK_LOOP_CLAMP, SK_POSE_OF(s, lc, NULL), NULL), SK_OK);
        assert_int_equal(sk_local_to_model(s, SK_POSE_OF(s, la, NULL), NULL, ma, n, NULL), SK_OK);
        assert_int_equal(sk_local_to_model(s, SK_POSE_OF(s, lb, NULL), NULL, mb, n, NULL), SK_OK);
        for (uint32_t j = 0; j < n; j++) {
            for (int col = 0; col < 4; col++) { /* the axes (scaled) and the position */
                const float *a = &ma[j].m[4 * col], *b = &mb[j].m[4 * col];
                double x = c * a[0] + sn * a[2], y = a[1], z = -sn * a[0] + c * a[2];
                double d = sqrt((x - b[0]) * (x - b[0]) + (y - b[1]) * (y - b[1]) + (z - b[2]) * (z - b[2]));
                if (col == 3) d /= h; /* positions against the height, axes as they are */
                if (d > worst) worst = d;
            }
            double dq = sk_test_quat_angle(la[j].r, lc[j].r);
            double dt = sk_vec3_length(sk_vec3_sub(la[j].t, lc[j].t)) / h;
            if (dq > worst_back) worst_back = dq;
            if (dt > worst_back) worst_back = dt;
            checked++;
        }
    }
    printf("%s turned %.3f rad: %u joint samples, worst %.2e (position / height, axes), back %.2e\n", what,
           (double)yaw, checked, worst, worst_back);
    assert_true(worst < 1e-4);
    assert_true(worst_back < 1e-4);
    free(times), free(la), free(lb), free(lc), free(ma), free(mb);
    sk_clip_destroy(turned);
    sk_clip_destroy(back);
    return checked;
}

/* Fails the fail_at-th allocation (0-based), counts the rest. */
typedef struct oom_state {
    sk_test_peak peak;
    int fail_at, calls;
} oom_state;
static void *oom_alloc(void *user, size_t size) {
    oom_state *st = user;
    return st->calls++ == st->fail_at ? NULL : sk_test_peak_alloc(&st->peak, size);
}
static void *oom_realloc(void *user, void *p, size_t old_size, size_t size) {
    oom_state *st = user;
    return st->calls++ == st->fail_at ? NULL : sk_test_peak_realloc(&st->peak, p, old_size, size);
}
static void oom_free(void *user, void *p, size_t size) { sk_test_peak_free(&((oom_state *)user)->peak, p, size); }

/* The largest difference of two clips' local translations (m) and rotations (rad) at the first
 * clip's key times and between them. */
static double clips_differ(const sk_skeleton *s, const sk_clip *a, const sk_clip *b) {
    double times[256], worst = 0;
    uint32_t nt = sample_times(a, times, 256), n = s->joint_count;
    sk_transform *la = calloc(n, sizeof *la), *lb = calloc(n, sizeof *lb);
    assert_true(la && lb);
    for (uint32_t i = 0; i < nt; i++) {
        assert_int_equal(sk_clip_sample(a, s, times[i], SK_LOOP_CLAMP, SK_POSE_OF(s, la, NULL), NULL), SK_OK);
        assert_int_equal(sk_clip_sample(b, s, times[i], SK_LOOP_CLAMP, SK_POSE_OF(s, lb, NULL), NULL), SK_OK);
        for (uint32_t j = 0; j < n; j++) {
            worst = fmax(worst, sk_vec3_length(sk_vec3_sub(la[j].t, lb[j].t)));
            worst = fmax(worst, sk_test_quat_angle(la[j].r, lb[j].r));
        }
    }
    free(la);
    free(lb);
    return worst;
}

/* Out of memory at each allocation in turn (the mirror, or the turn by 1
 * rad): an error and nothing left allocated (the counting allocator's live
 * bytes back to 0), until it succeeds. */
static void out_of_memory_each(const sk_clip *w, const sk_skeleton *s, bool turn) {
    bool done = false;
    for (int fail_at = 0; fail_at < 64 && !done; fail_at++) {
        oom_state st = {{0, 0, 0}, fail_at, 0};
        sk_allocator al = {oom_alloc, oom_realloc, oom_free, &st};
        sk_clip *m = NULL;
        sk_error err = {0};
        sk_result r = turn ? sk_clip_turn(w, s, 1.0f, &al, &m, &err) : sk_clip_mirror(w, s, NULL, &al, &m, &err);
        if (r == SK_OK) {
            done = true;
            sk_clip_destroy(m);
        } else {
            assert_int_equal(r, SK_ERR_OUT_OF_MEMORY);
            assert_null(m);
        }
        assert_int_equal(st.peak.live, 0);
        assert_int_equal(st.peak.bad, 0);
    }
    assert_true(done);
}

static sk_asset *mannequin(void) {
    sk_asset *a = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, NULL), SK_OK);
    return a;
}

static const sk_clip *find_clip(const sk_asset *a, const char *name) {
    int32_t i = sk_asset_find_clip(a, name);
    assert_true(i >= 0);
    return a->clips[i];
}

static void test_mannequin_walk(void **state) {
    (void)state;
    sk_asset *a = mannequin();
    const sk_skeleton *s = a->skeleton;
    pairing p;
    pairing_make(s, NULL, &p);
    /* The pairs are the _l/_r joints: 4 per arm, 4 per leg. */
    assert_int_equal(p.count, 8);
    for (uint32_t k = 0; k < p.count; k++) {
        const char *l = s->names[p.pairs[k][0]], *r = s->names[p.pairs[k][1]];
        size_t n = strlen(l);
        assert_true(n > 2 && strlen(r) == n && !strncmp(l, r, n - 1) && !strcmp(l + n - 2, "_l") &&
                    !strcmp(r + n - 2, "_r"));
    }
    mirror_and_check("mannequin walk", s, find_clip(a, "walk"), &p, 22 * 60);
    mirror_and_check("mannequin strafe_left", s, find_clip(a, "strafe_left"), &p, 22 * 30);
    /* Defaults: pairs by name, axis X, the name. */
    sk_clip *m = NULL;
    assert_int_equal(sk_clip_mirror(find_clip(a, "walk"), s, NULL, NULL, &m, NULL), SK_OK);
    assert_string_equal(sk_clip_name(m), "walk_mirrored");
    double worst = 0;
    check_mirror("mannequin walk, default pairs", s, find_clip(a, "walk"), m, &p, rest_height(s), &worst);
    sk_clip_destroy(m);
    sk_asset_destroy(a);
}

/* The asset's strafe_right is authored as the mirror of strafe_left: the
 * library's mirror of strafe_left gives the same joint positions. */
static void test_mannequin_strafe_right(void **state) {
    (void)state;
    sk_asset *a = mannequin();
    const sk_skeleton *s = a->skeleton;
    sk_clip_mirror_desc d = {0};
    d.name = "strafe_right";
    sk_clip *m = NULL;
    assert_int_equal(sk_clip_mirror(find_clip(a, "strafe_left"), s, &d, NULL, &m, NULL), SK_OK);
    assert_string_equal(sk_clip_name(m), "strafe_right");
    const sk_clip *r = find_clip(a, "strafe_right");
    sk_vec3 *x = calloc(s->joint_count, sizeof *x), *y = calloc(s->joint_count, sizeof *y);
    double worst = 0;
    uint32_t n = 0;
    for (double t = 0; t <= sk_clip_duration(r) + 1e-9; t += 1.0 / 240) {
        model_positions(s, r, t, x);
        model_positions(s, m, t, y);
        for (uint32_t j = 0; j < s->joint_count; j++) {
            double e = sk_vec3_length(sk_vec3_sub(x[j], y[j]));
            if (e > worst) worst = e;
        }
        n++;
    }
    printf("strafe_right against mirrored strafe_left: %u samples, worst %.2e m\n", n, worst);
    assert_true(n >= 140 && worst < 1e-5);
    free(x);
    free(y);
    sk_clip_destroy(m);
    sk_asset_destroy(a);
}

static void test_cmu(void **state) {
    (void)state;
    char path[1024];
    sk_test_path(path, sizeof path, sk_test_require_shared(), "mocap/bvh/02_01.bvh");
    sk_asset *a = NULL;
    sk_error err = {0};
    sk_bvh_options o = {0};
    o.scale = 0.056444;
    if (sk_bvh_load_file(path, &o, &a, &err) != SK_OK) fail_msg("%s", err.message);
    const sk_skeleton *s = a->skeleton;
    /* 31 joints with channels (31 rotation tracks) and 7 end sites */
    assert_int_equal(s->joint_count, 38);
    assert_true(a->clip_count >= 1);
    uint32_t rot = 0;
    for (uint32_t i = 0; i < sk_clip_track_count(a->clips[0]); i++) {
        sk_track_info info;
        assert_true(sk_clip_track_info(a->clips[0], i, &info));
        rot += info.path == SK_PATH_ROTATION;
    }
    assert_int_equal(rot, 31);
    pairing p;
    pairing_make(s, NULL, &p);
    /* per side: hip joint, up leg, leg, foot, toe, toe end; shoulder, arm,
     * forearm, hand, finger base, index, index end, thumb, thumb end */
    printf("CMU pairs: %u\n", p.count);
    assert_int_equal(p.count, 15);
    mirror_and_check("CMU 02_01", s, a->clips[0], &p, 38 * 600);
    sk_asset_destroy(a);
}

static void test_cesium_man(void **state) {
    (void)state;
    char path[1024];
    sk_test_path(path, sizeof path, sk_test_require_shared(), "assets/gltf/CesiumMan/CesiumMan.glb");
    sk_asset *a = NULL;
    sk_error err = {0};
    if (sk_gltf_load_file(path, NULL, &a, &err) != SK_OK) fail_msg("%s", err.message);
    const sk_skeleton *s = a->skeleton;
    /* Its arm joints are numbered differently on the two sides (L__4_,
     * L__3_, L__2_ down the left arm; R, R__2_, R__3_ down the right), so
     * names alone pair the wrong joints: the mirror refuses them ... */
    sk_clip *m = NULL;
    assert_int_equal(sk_clip_mirror(a->clips[0], s, NULL, NULL, &m, &err), SK_ERR_INVALID_ARGUMENT);
    printf("names only: %s\n", err.message);
    assert_non_null(strstr(err.message, "parents are not partners"));
    assert_null(m);
    /* ... and the humanoid map pairs the chains. */
    sk_humanoid_map map;
    if (sk_humanoid_map_find(s, NULL, &map, &err) != SK_OK) fail_msg("%s", err.message);
    pairing p;
    pairing_make(s, &map, &p);
    printf("CesiumMan pairs: %u\n", p.count);
    assert_true(p.count >= 7);
    /* The plane x = 0 is its sagittal plane: paired joints mirror at rest
     * (within 2% of the height). */
    sk_vec3 *rest = calloc(s->joint_count, sizeof *rest);
    sk_mat4 *model = calloc(s->joint_count, sizeof *model);
    assert_int_equal(sk_local_to_model(s, SK_POSE_OF(s, (sk_transform *)s->rest, NULL), NULL, model, s->joint_count,
                                       NULL),
                     SK_OK);
    double h = rest_height(s);
    for (uint32_t k = 0; k < p.count; k++) {
        const sk_mat4 *l = &model[p.pairs[k][0]], *r = &model[p.pairs[k][1]];
        double d = sqrt(pow(l->m[12] + r->m[12], 2) + pow(l->m[13] - r->m[13], 2) + pow(l->m[14] - r->m[14], 2));
        assert_true(d < 0.02 * h);
        assert_true(fabs(l->m[12]) > 0.02 * h);
    }
    free(rest);
    free(model);
    mirror_and_check("CesiumMan", s, a->clips[0], &p, 22 * 40);
    sk_clip_mirror_desc d = {0};
    d.map = &map;
    assert_int_equal(sk_clip_mirror(a->clips[0], s, &d, NULL, &m, &err), SK_OK);
    double worst = 0;
    check_mirror("CesiumMan, desc.map", s, a->clips[0], m, &p, h, &worst);
    sk_clip_destroy(m);
    sk_asset_destroy(a);
}

/* The mannequin's joints with random rest frames: every joint's model rest
 * rotation G_j random (the left and right ones unrelated), positions kept;
 * a clip of random rotations on it, some of them CUBICSPLINE with random
 * tangents, sampled between keys too. */
static void test_random_rest_frames(void **state) {
    (void)state;
    sk_asset *a = mannequin();
    const sk_skeleton *ms = a->skeleton;
    uint32_t n = ms->joint_count;
    uint32_t seed = 12345;
    sk_quat *g = calloc(n, sizeof *g);
    sk_transform *rest = calloc(n, sizeof *rest);
    sk_vec3 *pos = calloc(n, sizeof *pos);
    for (uint32_t j = 0; j < n; j++) {
        int32_t p = ms->parents[j];
        pos[j] = p < 0 ? ms->rest[j].t : sk_vec3_add(pos[p], ms->rest[j].t); /* identity rest rotations */
        g[j] = sk_test_rnd_quat(&seed);
        sk_quat gp = p < 0 ? sk_quat_identity() : g[p];
        rest[j].r = sk_quat_normalize(sk_quat_mul(sk_quat_conjugate(gp), g[j]));
        rest[j].t = sk_quat_rotate(sk_quat_conjugate(gp), p < 0 ? pos[j] : sk_vec3_sub(pos[j], pos[p]));
        rest[j].s = sk_vec3_make(1, 1, 1);
    }
    sk_skeleton_desc sd = {0};
    sd.joint_count = n;
    sd.parents = ms->parents;
    sd.names = ms->names;
    sd.rest = rest;
    sk_skeleton *s = NULL;
    assert_int_equal(sk_skeleton_create(&sd, NULL, &s, NULL), SK_OK);
    sk_clip_builder *b = NULL;
    assert_int_equal(sk_clip_builder_create("random", NULL, &b, NULL), SK_OK);
    enum { K = 9 };
    float times[K], rv[K * 3 * 4], tv[K * 3 * 3];
    for (uint32_t k = 0; k < K; k++) times[k] = 0.25f * (float)k;
    for (uint32_t j = 0; j < n; j++) {
        bool cubic = j % 3 == 0;
        uint32_t per = cubic ? 3 : 1;
        for (uint32_t k = 0; k < K; k++) {
            for (uint32_t e = 0; e < per; e++) {
                /* the value: the rest rotation turned by up to ~0.6 rad; tangents small */
                sk_quat q = sk_test_rnd_quat(&seed);
                sk_quat v = sk_quat_normalize(sk_quat_slerp(rest[j].r, q, 0.2f));
                if (cubic && e != 1) v = sk_quat_make(0.3f * q.x, 0.3f * q.y, 0.3f * q.z, 0.3f * q.w);
                float *o = rv + 4 * (per * k + e);
                o[0] = v.x, o[1] = v.y, o[2] = v.z, o[3] = v.w;
                float *t = tv + 3 * (per * k + e);
                float amp = e == 1 || !cubic ? 0.05f : 0.2f;
                t[0] = (e == 1 || !cubic ? rest[j].t.x : 0) + amp * sk_test_rnd(&seed);
                t[1] = (e == 1 || !cubic ? rest[j].t.y : 0) + amp * sk_test_rnd(&seed);
                t[2] = (e == 1 || !cubic ? rest[j].t.z : 0) + amp * sk_test_rnd(&seed);
            }
        }
        sk_interpolation in = cubic ? SK_INTERP_CUBICSPLINE : SK_INTERP_LINEAR;
        sk_track_desc r = {j, SK_PATH_ROTATION, in, K, times, rv, 4};
        assert_int_equal(sk_clip_builder_add_track(b, &r, NULL), SK_OK);
        if (j % 2 == 0) { /* translations on half of the joints; the rest keep the rest's */
            sk_track_desc t = {j, SK_PATH_TRANSLATION, in, K, times, tv, 3};
            assert_int_equal(sk_clip_builder_add_track(b, &t, NULL), SK_OK);
        }
    }
    sk_clip *c = NULL;
    assert_int_equal(sk_clip_builder_finish(b, &c, NULL), SK_OK);
    pairing p;
    pairing_make(s, NULL, &p);
    assert_int_equal(p.count, 8);
    mirror_and_check("random rest frames", s, c, &p, 22 * 16);
    assert_true(turn_and_check("random rest frames, CUBICSPLINE", s, c, -0.9f, 64) >= 22 * 16);
    sk_clip_destroy(c);
    sk_skeleton_destroy(s);
    free(g);
    free(rest);
    free(pos);
    sk_asset_destroy(a);
}


/* Turning: the mannequin's walk (a root with root motion), CMU 02_01 (a root
 * translated and rotated), CesiumMan (a Z-up root the clip leaves at rest:
 * the turned clip holds it turned) and the random rest frames' clip with
 * CUBICSPLINE tracks (test_random_rest_frames). */
static void test_turn(void **state) {
    (void)state;
    sk_asset *a = mannequin();
    uint32_t checked = 0;
    static const float yaws[] = {0.7f, -2.5f, 3.14159265f, 0.0f};
    for (int k = 0; k < 4; k++) checked += turn_and_check("mannequin walk", a->skeleton, find_clip(a, "walk"), yaws[k], 4000);
    sk_asset_destroy(a);
    char path[1024];
    sk_test_path(path, sizeof path, sk_test_require_shared(), "mocap/bvh/02_01.bvh");
    sk_error err = {0};
    sk_bvh_options o = {0};
    o.scale = 0.056444;
    if (sk_bvh_load_file(path, &o, &a, &err) != SK_OK) fail_msg("%s", err.message);
    checked += turn_and_check("CMU 02_01", a->skeleton, a->clips[0], -1.3f, 1200);
    sk_asset_destroy(a);
    sk_test_path(path, sizeof path, sk_test_require_shared(), "assets/gltf/CesiumMan/CesiumMan.glb");
    if (sk_gltf_load_file(path, NULL, &a, &err) != SK_OK) fail_msg("%s", err.message);
    /* its top joint (Z_UP) has no track: the turned clip gains one */
    int32_t top = -1;
    for (uint32_t j = 0; j < a->skeleton->joint_count && top < 0; j++)
        if (a->skeleton->parents[j] < 0) top = (int32_t)j;
    bool had = false;
    for (uint32_t i = 0; i < sk_clip_track_count(a->clips[0]); i++) {
        sk_track_info info;
        assert_true(sk_clip_track_info(a->clips[0], i, &info));
        had |= (int32_t)info.joint == top && info.path == SK_PATH_ROTATION;
    }
    assert_false(had);
    checked += turn_and_check("CesiumMan", a->skeleton, a->clips[0], 2.0f, 200);
    sk_asset_destroy(a);
    printf("turn: %u joint samples checked\n", checked);
    assert_true(checked > 20000);
}

static void test_bad_input(void **state) {
    (void)state;
    sk_asset *a = mannequin();
    const sk_skeleton *s = a->skeleton;
    const sk_clip *w = find_clip(a, "walk");
    sk_clip *m = (sk_clip *)w;
    sk_error err = {0};
    assert_int_equal(sk_clip_mirror(NULL, s, NULL, NULL, &m, &err), SK_ERR_INVALID_ARGUMENT);
    assert_null(m);
    assert_int_equal(sk_clip_mirror(w, NULL, NULL, NULL, &m, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_clip_mirror(w, s, NULL, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    sk_clip_mirror_desc d = {0};
    d.axis = 3;
    assert_int_equal(sk_clip_mirror(w, s, &d, NULL, &m, &err), SK_ERR_INVALID_ARGUMENT);
    printf("%s\n", err.message);
    /* a thigh paired with a toe: the hierarchy does not follow */
    uint32_t bad[1][2] = {{(uint32_t)sk_skeleton_find(s, "thigh_l"), (uint32_t)sk_skeleton_find(s, "toe_r")}};
    d.axis = 0, d.pairs = (const uint32_t (*)[2])bad, d.pair_count = 1;
    assert_int_equal(sk_clip_mirror(w, s, &d, NULL, &m, &err), SK_ERR_INVALID_ARGUMENT);
    printf("%s\n", err.message);
    assert_null(m);
    uint32_t twice[2][2] = {{1, 13}, {13, 17}};
    d.pairs = (const uint32_t (*)[2])twice, d.pair_count = 2;
    assert_int_equal(sk_clip_mirror(w, s, &d, NULL, &m, &err), SK_ERR_INVALID_ARGUMENT);
    uint32_t out_of_range[1][2] = {{1, 100000}};
    d.pairs = (const uint32_t (*)[2])out_of_range, d.pair_count = 1;
    assert_int_equal(sk_clip_mirror(w, s, &d, NULL, &m, &err), SK_ERR_INVALID_ARGUMENT);
    d.pairs = NULL;
    assert_int_equal(sk_clip_mirror(w, s, &d, NULL, &m, &err), SK_ERR_INVALID_ARGUMENT);
    /* a clip of a bigger skeleton */
    sk_skeleton *small = sk_test_chain_skeleton(5, 1);
    assert_int_equal(sk_clip_mirror(w, small, NULL, NULL, &m, &err), SK_ERR_INVALID_ARGUMENT);
    printf("%s\n", err.message);
    sk_skeleton_destroy(small);
    out_of_memory_each(w, s, false);
    /* sk_clip_turn: NULL arguments, a yaw that is not finite, a bigger clip's skeleton, out of memory */
    assert_int_equal(sk_clip_turn(NULL, s, 1.0f, NULL, &m, &err), SK_ERR_INVALID_ARGUMENT);
    assert_null(m);
    assert_int_equal(sk_clip_turn(w, NULL, 1.0f, NULL, &m, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_clip_turn(w, s, 1.0f, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_clip_turn(w, s, NAN, NULL, &m, &err), SK_ERR_INVALID_ARGUMENT);
    printf("%s\n", err.message);
    assert_int_equal(sk_clip_turn(w, s, INFINITY, NULL, &m, &err), SK_ERR_INVALID_ARGUMENT);
    assert_null(m);
    /* a huge yaw is whole turns plus what is left: the same clip as that remainder */
    sk_clip *big = NULL, *rem = NULL;
    assert_int_equal(sk_clip_turn(w, s, 1e30f, NULL, &big, &err), SK_OK);
    assert_int_equal(sk_clip_turn(w, s, remainderf(1e30f, 6.2831853f), NULL, &rem, &err), SK_OK);
    assert_true(clips_differ(s, big, rem) < 1e-5);
    sk_clip_destroy(big);
    sk_clip_destroy(rem);
    small = sk_test_chain_skeleton(5, 1);
    assert_int_equal(sk_clip_turn(w, small, 1.0f, NULL, &m, &err), SK_ERR_INVALID_ARGUMENT);
    printf("%s\n", err.message);
    sk_skeleton_destroy(small);
    out_of_memory_each(w, s, true);
    sk_asset_destroy(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mannequin_walk),     cmocka_unit_test(test_mannequin_strafe_right),
        cmocka_unit_test(test_cmu),                cmocka_unit_test(test_cesium_man),
        cmocka_unit_test(test_random_rest_frames), cmocka_unit_test(test_turn),
        cmocka_unit_test(test_bad_input),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
