/* The BVH writer (io/bvh.h, "Writing"; docs/bvh.md): written, read back by
 * the BVH reader, every joint's world position equals the source's at every
 * frame within 0.01 mm (1e-5 m), for every shared capture and the glTF
 * characters with clips; the per-joint Euler order avoids gimbal lock and the
 * written angles never jump; non-uniform keys and scale are handled as the
 * contract says; bad options are refused; a 10,000-joint chain round-trips.
 * Positions are compared by joint name, computed with sk_local_to_model on
 * both sides (the reader composes the file's Euler angles in double).
 * Blender's BVH importer read three written files (tests/data/bvh_blender,
 * scripts/blender_bvh_readback.py): its bone heads equal our reader's joint
 * positions within 0.01 mm, and today's writer still writes those files. */
#include "support.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMU_M_PER_UNIT 0.056444
#define TOL_M 1e-5 /* 0.01 mm */

/* World positions of every joint at time t (clip NULL: rest). */
static void world_at(const sk_skeleton *s, const sk_clip *c, double t, sk_vec3 *out) {
    sk_transform *local = malloc(s->joint_count * sizeof *local);
    sk_mat4 *m = malloc(s->joint_count * sizeof *m);
    assert_true(local && m);
    memcpy(local, s->rest, s->joint_count * sizeof *local);
    sk_pose p = sk_pose_view(local, s->joint_count, NULL, 0);
    if (c) assert_int_equal(sk_clip_sample_tracks(c, s, t, SK_LOOP_CLAMP, NULL, 0, &p, NULL), SK_OK);
    assert_int_equal(sk_local_to_model(s, &p, NULL, m, s->joint_count, NULL), SK_OK);
    for (uint32_t j = 0; j < s->joint_count; j++) out[j] = sk_vec3_make(m[j].m[12], m[j].m[13], m[j].m[14]);
    free(local);
    free(m);
}

/* Writes (skel, clip), reads it back and compares every joint's world position
 * at every frame, in metres (mpu: metres per unit of both). Returns the
 * largest error (m); *frames: the frames compared. */
static double round_trip(const char *what, const sk_skeleton *s, const sk_clip *c, double mpu,
                         const sk_bvh_write_options *o, sk_bvh_write_report *rep, uint32_t *frames) {
    char *text = NULL;
    size_t size = 0;
    sk_error err = {0};
    sk_bvh_write_report r0;
    if (!rep) rep = &r0;
    if (sk_bvh_write_memory(s, c, o, rep, &text, &size, &err) != SK_OK) fail_msg("%s: write: %s", what, err.message);
    sk_asset *back = NULL;
    if (sk_bvh_load_memory(text, size, what, NULL, &back, &err) != SK_OK)
        fail_msg("%s: the written file does not read: %s", what, err.message);
    free(text);
    const sk_skeleton *b = back->skeleton;
    const sk_clip *bc = back->clip_count ? back->clips[0] : NULL;
    uint32_t *map = malloc(s->joint_count * sizeof *map);
    for (uint32_t j = 0; j < s->joint_count; j++) {
        /* the writer's names: spaces and braces replaced */
        char nm[256];
        snprintf(nm, sizeof nm, "%s", s->names[j] && s->names[j][0] ? s->names[j] : "");
        for (char *q = nm; *q; q++)
            if (*q == ' ' || *q == '\t' || *q == '{' || *q == '}') *q = '_';
        int32_t k = nm[0] ? sk_skeleton_find(b, nm) : -1;
        if (k < 0) {
            char alt[64];
            snprintf(alt, sizeof alt, "joint_%u", j);
            k = sk_skeleton_find(b, nm[0] ? nm : alt);
        }
        if (k < 0) fail_msg("%s: joint '%s' is not in the written file", what, nm);
        map[j] = (uint32_t)k;
    }
    sk_vec3 *pa = malloc(s->joint_count * sizeof *pa), *pb = malloc(b->joint_count * sizeof *pb);
    double worst = 0.0, scale = o && o->scale > 0.0 ? o->scale : 1.0;
    for (uint32_t f = 0; f < rep->frames; f++) {
        double t = f * rep->frame_time;
        world_at(s, c, rep->resampled ? t : (double)(float)t, pa);
        world_at(b, bc, (double)(float)(f * rep->frame_time), pb);
        for (uint32_t j = 0; j < s->joint_count; j++) {
            sk_vec3 q = pb[map[j]];
            double d = sqrt(pow(pa[j].x * scale - q.x, 2) + pow(pa[j].y * scale - q.y, 2) + pow(pa[j].z * scale - q.z, 2));
            d *= mpu / scale;
            if (d > worst) worst = d;
        }
    }
    if (frames) *frames = rep->frames;
    free(map);
    free(pa);
    free(pb);
    sk_asset_destroy(back);
    return worst;
}

static void every_shared_capture(void **state) {
    (void)state;
    const char *shared = sk_test_require_shared();
    if (!shared) return;
    char dir[1024];
    sk_test_path(dir, sizeof dir, shared, "mocap/bvh");
    char *names[64];
    int n = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) && n < 64;) {
        size_t l = strlen(e->d_name);
        if (l > 4 && !strcmp(e->d_name + l - 4, ".bvh")) names[n++] = strdup(e->d_name);
    }
    closedir(d);
    int checked = 0;
    for (int i = 0; i < n; i++) {
        char path[1200];
        sk_test_path(path, sizeof path, dir, names[i]);
        sk_asset *a = NULL;
        sk_error err = {0};
        double mpu = strstr(names[i], "_scaled") ? 1.0 : CMU_M_PER_UNIT;
        assert_int_equal(sk_bvh_load_file(path, NULL, &a, &err), SK_OK);
        sk_bvh_write_report rep;
        uint32_t frames = 0;
        double e = round_trip(names[i], a->skeleton, a->clips[0], mpu, NULL, &rep, &frames);
        if (!(e <= TOL_M)) fail_msg("%s: joint positions %.3g mm off after the round trip", names[i], e * 1e3);
        assert_false(rep.resampled); /* a capture's frames are its keys */
        assert_int_equal(frames, (uint32_t)floor(sk_clip_duration(a->clips[0]) / rep.frame_time + 0.5) + 1);
        printf("%-22s %5u frames, largest error %.2e mm\n", names[i], frames, e * 1e3);
        sk_asset_destroy(a);
        free(names[i]);
        checked++;
    }
    assert_int_equal(checked, 21); /* the captures of ../shared/mocap/bvh */
}

static void gltf_characters(void **state) {
    (void)state;
    const char *shared = sk_test_require_shared();
    if (!shared) return;
    static const char *const models[] = {"CesiumMan/CesiumMan.glb", "RiggedFigure/RiggedFigure.glb",
                                         "RiggedSimple/RiggedSimple.glb"};
    int checked = 0;
    for (size_t i = 0; i < 3; i++) {
        char dir[1024], path[1200];
        sk_test_path(dir, sizeof dir, shared, "assets/gltf");
        sk_test_path(path, sizeof path, dir, models[i]);
        sk_asset *a = NULL;
        assert_int_equal(sk_gltf_load_file(path, NULL, &a, NULL), SK_OK);
        sk_bvh_write_options o = {0};
        o.drop_scale = true; /* their scale keys are 1: dropped and counted */
        sk_bvh_write_report rep;
        double e = round_trip(models[i], a->skeleton, a->clips[0], 1.0, &o, &rep, NULL);
        if (!(e <= TOL_M)) fail_msg("%s: %.3g mm off", models[i], e * 1e3);
        assert_true(rep.frames >= 2);
        sk_asset_destroy(a);
        checked++;
    }
    /* the mannequin's every clip, in centimetres */
    sk_asset *m = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &m, NULL), SK_OK);
    for (uint32_t c = 0; c < m->clip_count; c++) {
        sk_bvh_write_options o = {0};
        o.scale = 100.0;
        double e = round_trip(sk_clip_name(m->clips[c]), m->skeleton, m->clips[c], 1.0, &o, NULL, NULL);
        if (!(e <= TOL_M)) fail_msg("mannequin %s: %.3g mm off", sk_clip_name(m->clips[c]), e * 1e3);
        checked++;
    }
    assert_true(checked >= 3 + 4);
    /* the rest pose alone: one frame, every channel 0 */
    uint32_t frames = 0;
    assert_true(round_trip("rest", m->skeleton, NULL, 1.0, NULL, NULL, &frames) <= TOL_M);
    assert_int_equal(frames, 1);
    sk_asset_destroy(m);
}

/* A two-joint chain whose child turns 0..180 degrees about Y with a little X
 * and Z: in XYZ order its middle angle passes 90 degrees (gimbal lock). */
static sk_skeleton *chain2(void) {
    int32_t parents[3] = {-1, 0, 1};
    const char *names[3] = {"root", "arm", "hand"};
    sk_transform rest[3] = {sk_transform_identity(), sk_transform_identity(), sk_transform_identity()};
    rest[1].t = sk_vec3_make(0, 1, 0);
    rest[2].t = sk_vec3_make(0.3f, 0.5f, 0.2f);
    sk_skeleton_desc d = {0};
    d.joint_count = 3, d.parents = parents, d.names = names, d.rest = rest;
    sk_skeleton *s = NULL;
    assert_int_equal(sk_skeleton_create(&d, NULL, &s, NULL), SK_OK);
    return s;
}

static sk_clip *gimbal_clip(uint32_t n, bool uniform) {
    float *t = malloc(n * sizeof(float)), *q = malloc(n * 4 * sizeof(float));
    for (uint32_t k = 0; k < n; k++) {
        t[k] = uniform ? (float)k / 30.0f : (float)k / 30.0f + (k % 3 == 1 ? 0.01f : 0.0f);
        float a = 3.14159265f * (float)k / (float)(n - 1);
        sk_quat r = sk_quat_mul(sk_quat_from_axis_angle(sk_vec3_make(0, 1, 0), a),
                                sk_quat_from_axis_angle(sk_vec3_make(1, 0, 0.5f), 0.2f * sinf(a)));
        q[4 * k] = r.x, q[4 * k + 1] = r.y, q[4 * k + 2] = r.z, q[4 * k + 3] = r.w;
    }
    sk_clip_builder *b = NULL;
    assert_int_equal(sk_clip_builder_create("turn", NULL, &b, NULL), SK_OK);
    sk_track_desc d = {1, SK_PATH_ROTATION, SK_INTERP_LINEAR, n, t, q, 4};
    assert_int_equal(sk_clip_builder_add_track(b, &d, NULL), SK_OK);
    sk_clip *c = NULL;
    assert_int_equal(sk_clip_builder_finish(b, &c, NULL), SK_OK);
    free(t);
    free(q);
    return c;
}

/* The largest change of any rotation channel between two frames of a written file (degrees). */
static double largest_jump(const char *text, size_t size) {
    const char *m = strstr(text, "Frame Time:");
    assert_non_null(m);
    m = strchr(m, '\n') + 1;
    double prev[64], cur[64], worst = 0.0;
    int nprev = -1;
    while (m < text + size) {
        int n = 0;
        char *e;
        while (n < 64) {
            double v = strtod(m, &e);
            if (e == m) break;
            cur[n++] = v;
            m = e;
            if (*m == '\n') break;
        }
        if (n == 0) break;
        if (nprev == n)
            for (int i = 6; i < n; i++) worst = fmax(worst, fabs(cur[i] - prev[i])); /* after the root's positions */
        memcpy(prev, cur, sizeof cur);
        nprev = n;
        m = strchr(m, '\n');
        if (!m) break;
        m++;
    }
    return worst;
}

static void euler_orders_and_unwrapping(void **state) {
    (void)state;
    sk_skeleton *s = chain2();
    sk_clip *c = gimbal_clip(91, true);
    /* auto: the arm gets an order whose middle axis is not Y, and round-trips */
    sk_bvh_write_report rep;
    assert_true(round_trip("gimbal", s, c, 1.0, NULL, &rep, NULL) <= TOL_M);
    assert_int_equal(rep.euler_counts[SK_BVH_EULER_XYZ] + rep.euler_counts[SK_BVH_EULER_ZYX], 0);
    char *text = NULL;
    size_t size = 0;
    assert_int_equal(sk_bvh_write_memory(s, c, NULL, NULL, &text, &size, NULL), SK_OK);
    double jump = largest_jump(text, size);
    if (!(jump < 10.0)) fail_msg("auto order: a channel jumps %g degrees between frames", jump);
    free(text);
    /* forced XYZ passes through the lock: still the same positions, and unwrapped */
    sk_bvh_write_options o = {0};
    o.euler = SK_BVH_EULER_XYZ;
    assert_true(round_trip("gimbal XYZ", s, c, 1.0, &o, &rep, NULL) <= TOL_M);
    assert_int_equal(rep.euler_counts[SK_BVH_EULER_XYZ], 3);
    assert_int_equal(sk_bvh_write_memory(s, c, &o, NULL, &text, &size, NULL), SK_OK);
    assert_non_null(strstr(text, "Xrotation Yrotation Zrotation"));
    jump = largest_jump(text, size);
    if (!(jump < 180.0)) fail_msg("XYZ: a channel jumps %g degrees between frames", jump);
    free(text);
    sk_clip_destroy(c);
    sk_skeleton_destroy(s);
}

static void resampling_and_scale(void **state) {
    (void)state;
    sk_skeleton *s = chain2();
    sk_clip *c = gimbal_clip(31, false); /* keys not uniform */
    sk_bvh_write_options o = {0};
    o.refuse_resample = true;
    char *text = NULL;
    size_t size = 0;
    sk_error err = {0};
    assert_int_equal(sk_bvh_write_memory(s, c, &o, NULL, &text, &size, &err), SK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "not uniform"));
    sk_bvh_write_report rep;
    o.refuse_resample = false;
    o.frame_time = 0.02;
    assert_true(round_trip("resampled", s, c, 1.0, &o, &rep, NULL) <= TOL_M);
    assert_true(rep.resampled);
    assert_true(fabs(rep.frame_time - 0.02) < 1e-12);
    assert_int_equal(rep.frames, (uint32_t)floor(sk_clip_duration(c) / 0.02 + 1e-6) + 1);
    sk_clip_destroy(c);
    /* scale keys other than 1: refused, or dropped and counted */
    const float t[2] = {0, 1}, v[6] = {1, 1, 1, 2, 2, 2};
    sk_clip_builder *b = NULL;
    assert_int_equal(sk_clip_builder_create("grow", NULL, &b, NULL), SK_OK);
    sk_track_desc d = {1, SK_PATH_SCALE, SK_INTERP_LINEAR, 2, t, v, 3};
    assert_int_equal(sk_clip_builder_add_track(b, &d, NULL), SK_OK);
    assert_int_equal(sk_clip_builder_finish(b, &c, NULL), SK_OK);
    memset(&o, 0, sizeof o);
    assert_int_equal(sk_bvh_write_memory(s, c, &o, &rep, &text, &size, &err), SK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "'arm'"));
    o.drop_scale = true;
    assert_int_equal(sk_bvh_write_memory(s, c, &o, &rep, &text, &size, &err), SK_OK);
    assert_int_equal(rep.scale_dropped, 1);
    free(text);
    sk_clip_destroy(c);
    sk_skeleton_destroy(s);
    /* a constant uniform scale (an FBX file's unit scale of 100 at the root, 0.5 on a joint) is
     * baked into the offsets: the same positions, no scale refused */
    int32_t parents[3] = {-1, 0, 1};
    const char *names[3] = {"root", "arm", "hand"};
    sk_transform rest[3] = {sk_transform_identity(), sk_transform_identity(), sk_transform_identity()};
    rest[0].s = sk_vec3_make(100, 100, 100);
    rest[1].t = sk_vec3_make(0, 0.01f, 0);
    rest[1].s = sk_vec3_make(0.5f, 0.5f, 0.5f);
    rest[1].r = sk_quat_from_axis_angle(sk_vec3_make(0, 0, 1), 0.7f);
    rest[2].t = sk_vec3_make(0.003f, 0.005f, 0.002f);
    sk_skeleton_desc sd = {0};
    sd.joint_count = 3, sd.parents = parents, sd.names = names, sd.rest = rest;
    assert_int_equal(sk_skeleton_create(&sd, NULL, &s, NULL), SK_OK);
    c = gimbal_clip(31, true);
    memset(&o, 0, sizeof o);
    assert_true(round_trip("scaled", s, c, 1.0, &o, &rep, NULL) <= TOL_M);
    assert_int_equal(rep.scale_baked, 2);
    assert_int_equal(rep.scale_dropped, 0);
    sk_clip_destroy(c);
    sk_skeleton_destroy(s);
}

static void bad_options_and_big_skeletons(void **state) {
    (void)state;
    sk_skeleton *s = chain2();
    char *text = NULL;
    size_t size = 0;
    sk_error err = {0};
    sk_bvh_write_options o = {0};
    o.scale = NAN;
    assert_int_equal(sk_bvh_write_memory(s, NULL, &o, NULL, &text, &size, &err), SK_ERR_INVALID_ARGUMENT);
    o.scale = 0, o.frame_time = 1e-9;
    assert_int_equal(sk_bvh_write_memory(s, NULL, &o, NULL, &text, &size, &err), SK_ERR_INVALID_ARGUMENT);
    o.frame_time = 0, o.euler = (sk_bvh_euler)9;
    assert_int_equal(sk_bvh_write_memory(s, NULL, &o, NULL, &text, &size, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_bvh_write_memory(NULL, NULL, NULL, NULL, &text, &size, &err), SK_ERR_INVALID_ARGUMENT);
    assert_null(text);
    sk_skeleton_destroy(s);
    /* a 10,000-joint chain (with rest rotations): writes, reads back, same positions */
    uint32_t n = 10000;
    int32_t *parents = malloc(n * sizeof *parents);
    sk_transform *rest = malloc(n * sizeof *rest);
    uint32_t seed = 7;
    for (uint32_t j = 0; j < n; j++) {
        parents[j] = (int32_t)j - 1;
        rest[j] = sk_transform_identity();
        rest[j].t = sk_vec3_make(0.0f, 0.01f, 0.002f);
        rest[j].r = sk_quat_from_axis_angle(sk_vec3_make(sk_test_rnd(&seed), 1.0f, sk_test_rnd(&seed)), 0.05f);
    }
    sk_skeleton_desc sd = {0};
    sd.joint_count = n, sd.parents = parents, sd.rest = rest;
    sk_skeleton *big = NULL;
    assert_int_equal(sk_skeleton_create(&sd, NULL, &big, NULL), SK_OK);
    double e = round_trip("chain", big, NULL, 1.0, NULL, NULL, NULL);
    /* a chain 100 m long: float rounding summed over 10,000 joints on both sides (1e-5 of the length) */
    if (!(e <= 1e-3)) fail_msg("10,000-joint chain: %g m off", e);
    sk_skeleton_destroy(big);
    free(parents);
    free(rest);
}

/* Blender's reading of three files our writer wrote (the committed reference)
 * against our reader's reading of the same files; and today's writer writes
 * files that read to the same positions (else the reference is stale:
 * regenerate it, docs/bvh.md). */
static void blender_reads_what_we_write(void **state) {
    (void)state;
    const char *shared = sk_test_require_shared();
    if (!shared) return;
    static const struct { const char *name, *source, *clip; double mpu; bool drop_scale; } files[] = {
        {"mannequin_walk", "@mannequin", "walk", 1.0, false},
        {"cesium_man", "assets/gltf/CesiumMan/CesiumMan.glb", NULL, 1.0, true},
        {"cmu_02_01", "mocap/bvh/02_01.bvh", NULL, CMU_M_PER_UNIT, false},
    };
    char dir[1024];
    sk_test_path(dir, sizeof dir, sk_test_source_dir(), "tests/data/bvh_blender");
    int checked_files = 0;
    size_t checked_points = 0;
    for (size_t i = 0; i < 3; i++) {
        char path[1200], jpath[1200], name[128];
        snprintf(name, sizeof name, "%s.bvh", files[i].name);
        sk_test_path(path, sizeof path, dir, name);
        snprintf(name, sizeof name, "%s.blender.json", files[i].name);
        sk_test_path(jpath, sizeof jpath, dir, name);
        sk_asset *ref = NULL;
        sk_error err = {0};
        assert_int_equal(sk_bvh_load_file(path, NULL, &ref, &err), SK_OK);
        /* the source, written again */
        sk_asset *src = NULL;
        if (files[i].source[0] == '@') assert_int_equal(sk_mannequin_create(NULL, NULL, &src, NULL), SK_OK);
        else {
            char sp[1200];
            sk_test_path(sp, sizeof sp, shared, files[i].source);
            size_t l = strlen(sp);
            if (!strcmp(sp + l - 4, ".bvh")) assert_int_equal(sk_bvh_load_file(sp, NULL, &src, NULL), SK_OK);
            else assert_int_equal(sk_gltf_load_file(sp, NULL, &src, NULL), SK_OK);
        }
        int32_t ci = files[i].clip ? sk_asset_find_clip(src, files[i].clip) : 0;
        assert_true(ci >= 0);
        sk_bvh_write_options o = {0};
        o.drop_scale = files[i].drop_scale;
        char *text = NULL;
        size_t size = 0;
        assert_int_equal(sk_bvh_write_memory(src->skeleton, src->clips[ci], &o, NULL, &text, &size, &err), SK_OK);
        sk_asset *now = NULL;
        assert_int_equal(sk_bvh_load_memory(text, size, "now", NULL, &now, &err), SK_OK);
        free(text);
        const sk_skeleton *rs = ref->skeleton;
        assert_int_equal(now->skeleton->joint_count, rs->joint_count);
        /* Blender's heads */
        size_t js = 0;
        char *json = sk_test_read_file(jpath, &js);
        assert_non_null(json);
        cJSON *doc = cJSON_Parse(json);
        free(json);
        assert_non_null(doc);
        cJSON *bones = cJSON_GetObjectItem(doc, "bones"), *frames = cJSON_GetObjectItem(doc, "frames");
        int nb = cJSON_GetArraySize(bones);
        assert_true(nb > 0 && cJSON_GetArraySize(frames) > 0);
        sk_vec3 *pr = malloc(rs->joint_count * sizeof *pr), *pn = malloc(rs->joint_count * sizeof *pn);
        double ft = ref->clips[0] ? sk_clip_duration(ref->clips[0]) : 0.0;
        uint32_t nframes = 0;
        { /* the file's frame time */
            sk_track_info ti;
            assert_true(sk_clip_track_info(ref->clips[0], 0, &ti));
            nframes = ti.key_count;
            ft = nframes > 1 ? ft / (nframes - 1) : 0.0;
        }
        double worst_blender = 0.0, worst_now = 0.0;
        cJSON *fr;
        cJSON_ArrayForEach(fr, frames) {
            int f = cJSON_GetObjectItem(fr, "frame")->valueint;
            double t = (double)(float)(f * ft);
            world_at(rs, ref->clips[0], t, pr);
            world_at(now->skeleton, now->clips[0], t, pn);
            for (uint32_t j = 0; j < rs->joint_count; j++) {
                double d = sqrt(pow(pr[j].x - pn[j].x, 2) + pow(pr[j].y - pn[j].y, 2) + pow(pr[j].z - pn[j].z, 2));
                worst_now = fmax(worst_now, d * files[i].mpu);
            }
            cJSON *heads = cJSON_GetObjectItem(fr, "heads");
            for (int b = 0; b < nb; b++) {
                int32_t j = sk_skeleton_find(rs, cJSON_GetArrayItem(bones, b)->valuestring);
                if (j < 0) fail_msg("%s: Blender's bone '%s' is no joint of ours", files[i].name,
                                    cJSON_GetArrayItem(bones, b)->valuestring);
                cJSON *h = cJSON_GetArrayItem(heads, b);
                double d = sqrt(pow(pr[j].x - cJSON_GetArrayItem(h, 0)->valuedouble, 2) +
                                pow(pr[j].y - cJSON_GetArrayItem(h, 1)->valuedouble, 2) +
                                pow(pr[j].z - cJSON_GetArrayItem(h, 2)->valuedouble, 2));
                worst_blender = fmax(worst_blender, d * files[i].mpu);
                checked_points++;
            }
        }
        printf("%-16s Blender vs ours %.2e mm, committed vs today's writer %.2e mm\n", files[i].name,
               worst_blender * 1e3, worst_now * 1e3);
        if (!(worst_blender <= TOL_M)) fail_msg("%s: Blender reads joints %.3g mm from ours", files[i].name, worst_blender * 1e3);
        if (!(worst_now <= 1e-6))
            fail_msg("%s: today's writer writes another file (%.3g mm): regenerate tests/data/bvh_blender (docs/bvh.md)",
                     files[i].name, worst_now * 1e3);
        free(pr);
        free(pn);
        cJSON_Delete(doc);
        sk_asset_destroy(now);
        sk_asset_destroy(src);
        sk_asset_destroy(ref);
        checked_files++;
    }
    assert_int_equal(checked_files, 3);
    assert_true(checked_points > 2000);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_shared_capture),
        cmocka_unit_test(gltf_characters),
        cmocka_unit_test(euler_orders_and_unwrapping),
        cmocka_unit_test(resampling_and_scale),
        cmocka_unit_test(bad_options_and_big_skeletons),
        cmocka_unit_test(blender_reads_what_we_write),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
