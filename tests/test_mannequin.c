/* The built-in mannequin (structure, skinning data, clips, foot contact) and
 * the .glb writer (container layout, JSON, round trip through the reader). */
#include "support.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sk_asset *make_mannequin(float height) {
    sk_mannequin_desc d = {height, 0};
    sk_asset *a = NULL;
    sk_error err = {0};
    sk_result r = sk_mannequin_create(&d, NULL, &a, &err);
    if (r != SK_OK) fprintf(stderr, "sk_mannequin_create: %s\n", err.message);
    assert_int_equal(r, SK_OK);
    assert_non_null(a);
    return a;
}

static int32_t joint(const sk_asset *a, const char *name) {
    int32_t j = sk_skeleton_find(a->skeleton, name);
    if (j < 0) fprintf(stderr, "joint %s missing\n", name);
    assert_true(j >= 0);
    return j;
}

/* ---- structure ------------------------------------------------------------ */

static void test_structure(void **state) {
    (void)state;
    sk_asset *a = make_mannequin(0);
    const sk_skeleton *s = a->skeleton;
    assert_int_equal(a->node_count, s->joint_count);
    assert_int_equal(a->skin_count, 1);
    assert_int_equal(a->mesh_count, 1);
    assert_int_equal(a->scene_count, 1);
    assert_int_equal(a->default_scene, 0);
    const sk_skin *skin = &a->skins[0];
    /* The skeleton holds the skin's joints plus the node of the skinned mesh. */
    assert_true(skin->joint_count >= 20 && skin->joint_count <= 30);
    assert_int_equal(s->joint_count, skin->joint_count + 1);
    for (uint32_t j = 0; j < s->joint_count; j++) {
        assert_true(s->parents[j] < (int32_t)j);
        assert_int_equal(a->node_to_joint[a->joint_to_node[j]], j);
    }
    static const char *const names[] = {"hips", "spine", "chest", "neck", "head",
                                        "clavicle_l", "upperarm_l", "forearm_l", "hand_l",
                                        "clavicle_r", "upperarm_r", "forearm_r", "hand_r",
                                        "thigh_l", "shin_l", "foot_l", "toe_l",
                                        "thigh_r", "shin_r", "foot_r", "toe_r"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) (void)joint(a, names[i]);
    assert_int_equal(s->parents[joint(a, "shin_l")], joint(a, "thigh_l"));
    assert_int_equal(s->parents[joint(a, "thigh_r")], joint(a, "hips"));

    /* Exactly one node carries the mesh and the skin; it is a root. */
    int mesh_nodes = 0;
    for (uint32_t j = 0; j < s->joint_count; j++) {
        if (a->joint_mesh[j] >= 0) {
            mesh_nodes++;
            assert_int_equal(a->joint_mesh[j], 0);
            assert_int_equal(a->joint_skin[j], 0);
            assert_int_equal(s->parents[j], -1);
        }
    }
    assert_int_equal(mesh_nodes, 1);

    /* Rest pose: model matrices times inverse binds are identity; height ~1.8 m. */
    sk_transform *local = calloc(s->joint_count, sizeof *local);
    sk_mat4 *model = calloc(s->joint_count, sizeof *model);
    sk_pose_rest(s, SK_POSE_OF(s, local, NULL), NULL);
    sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, model, (s)->joint_count, NULL);
    for (uint32_t i = 0; i < skin->joint_count; i++) {
        sk_mat4 m = sk_mat4_mul(&model[skin->joints[i]], &skin->inverse_bind[i]);
        sk_mat4 id = sk_mat4_identity();
        for (int k = 0; k < 16; k++) assert_true(fabsf(m.m[k] - id.m[k]) < 1e-5f);
    }
    free(local);
    free(model);

    const sk_primitive *p = &a->meshes[0].primitives[0];
    assert_int_equal(p->mode, 4);
    assert_int_equal(p->influence_count, 4);
    assert_non_null(p->normals);
    assert_true(p->index_count % 3 == 0 && p->index_count > 0);
    float miny = 1e9f, maxy = -1e9f;
    for (uint32_t v = 0; v < p->vertex_count; v++) {
        float sum = 0;
        for (int k = 0; k < 4; k++) {
            float w = p->weights[v * 4 + k];
            assert_true(w >= 0.0f && w <= 1.0f);
            assert_true(p->joints[v * 4 + k] < skin->joint_count);
            sum += w;
        }
        assert_true(fabsf(sum - 1.0f) < 1e-6f);
        const float *n = p->normals + 3 * v;
        assert_true(fabsf(sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) - 1.0f) < 1e-4f);
        float y = p->positions[3 * v + 1];
        if (y < miny) miny = y;
        if (y > maxy) maxy = y;
    }
    for (uint32_t i = 0; i < p->index_count; i++) assert_true(p->indices[i] < p->vertex_count);
    printf("mannequin: %u joints, %u vertices, %u triangles, height %.3f m (feet at %.4f)\n",
           skin->joint_count, p->vertex_count, p->index_count / 3, (double)(maxy - miny), (double)miny);
    assert_true(fabsf(maxy - 1.8f) < 0.02f);
    assert_true(fabsf(miny) < 0.005f);
    assert_true(p->base_color[3] == 1.0f && p->base_color[0] < 1.0f);

    /* Normals point outwards (the extreme vertex in each axis direction has
     * its normal along that direction) and triangles wind counter-clockwise
     * around them. */
    for (int axis = 0; axis < 3; axis++)
        for (int sign = -1; sign <= 1; sign += 2) {
            uint32_t best = 0;
            for (uint32_t v = 1; v < p->vertex_count; v++)
                if (sign * p->positions[3 * v + axis] > sign * p->positions[3 * best + axis]) best = v;
            assert_true(sign * p->normals[3 * best + axis] > 0.7f);
        }
    uint32_t ccw = 0;
    for (uint32_t t = 0; t < p->index_count; t += 3) {
        sk_vec3 q[3];
        for (int k = 0; k < 3; k++) {
            const float *x = p->positions + 3 * p->indices[t + k];
            q[k] = sk_vec3_make(x[0], x[1], x[2]);
        }
        sk_vec3 fn = sk_vec3_cross(sk_vec3_sub(q[1], q[0]), sk_vec3_sub(q[2], q[0]));
        const float *n0 = p->normals + 3 * p->indices[t];
        ccw += sk_vec3_dot(fn, sk_vec3_make(n0[0], n0[1], n0[2])) > 0;
    }
    assert_int_equal(ccw, p->index_count / 3);
    sk_asset_destroy(a);
}

static void test_height_and_segments(void **state) {
    (void)state;
    sk_mannequin_desc d = {0.9f, 8};
    sk_asset *a = NULL, *b = make_mannequin(0);
    assert_int_equal(sk_mannequin_create(&d, NULL, &a, NULL), SK_OK);
    const sk_primitive *p = &a->meshes[0].primitives[0];
    float maxy = -1e9f;
    for (uint32_t v = 0; v < p->vertex_count; v++)
        if (p->positions[3 * v + 1] > maxy) maxy = p->positions[3 * v + 1];
    assert_true(fabsf(maxy - 0.9f) < 0.01f);
    assert_true(p->vertex_count < b->meshes[0].primitives[0].vertex_count);
    sk_asset_destroy(a);
    sk_asset_destroy(b);

    sk_error err;
    d.height = -1;
    assert_int_equal(sk_mannequin_create(&d, NULL, &a, &err), SK_ERR_INVALID_ARGUMENT);
    assert_null(a);
    d.height = NAN;
    assert_int_equal(sk_mannequin_create(&d, NULL, &a, &err), SK_ERR_INVALID_ARGUMENT);
    d.height = 0;
    d.segments = 2;
    assert_int_equal(sk_mannequin_create(&d, NULL, &a, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_mannequin_create(NULL, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
}

/* ---- clips -------------------------------------------------------------------- */

static const sk_clip *clip(const sk_asset *a, const char *name) {
    int32_t i = sk_asset_find_clip(a, name);
    if (i < 0) fprintf(stderr, "clip %s missing\n", name);
    assert_true(i >= 0);
    return a->clips[i];
}

static void test_clips(void **state) {
    (void)state;
    sk_asset *a = make_mannequin(0);
    assert_int_equal(a->clip_count, 7);
    float back = sk_clip_duration(clip(a, "walk_back"));
    float strafe_l = sk_clip_duration(clip(a, "strafe_left")), strafe_r = sk_clip_duration(clip(a, "strafe_right"));
    assert_true(back >= 0.9f && back <= 1.2f);
    assert_true(strafe_l >= 0.5f && strafe_l <= 1.0f);
    assert_true(strafe_r == strafe_l);
    float idle = sk_clip_duration(clip(a, "idle"));
    float walk = sk_clip_duration(clip(a, "walk"));
    float run = sk_clip_duration(clip(a, "run"));
    float crouch = sk_clip_duration(clip(a, "crouch"));
    printf("durations: idle %.3f s, walk %.3f s, run %.3f s, crouch %.3f s\n", (double)idle, (double)walk,
           (double)run, (double)crouch);
    assert_true(idle >= 2.5f && idle <= 4.0f);
    assert_true(walk >= 1.0f && walk <= 1.1f);
    assert_true(fabsf(run - 0.7f) < 0.05f);
    assert_true(crouch >= 1.0f && crouch <= 4.0f);
    for (uint32_t c = 0; c < a->clip_count; c++) {
        const sk_clip *cl = a->clips[c];
        assert_true(sk_clip_track_count(cl) > 0);
        assert_true(sk_clip_joint_span(cl) <= a->skeleton->joint_count);
        for (uint32_t t = 0; t < sk_clip_track_count(cl); t++) {
            sk_track_info info;
            assert_true(sk_clip_track_info(cl, t, &info));
            assert_int_equal(info.interpolation, SK_INTERP_LINEAR);
            /* 30 Hz keys */
            assert_true(fabs((double)(info.key_count - 1) / (info.time_max - info.time_min) - 30.0) < 0.01);
        }
    }
    sk_asset_destroy(a);
}

typedef struct sampled {
    uint32_t frames;
    sk_vec3 *pos; /* frames x joint_count model-space joint positions */
} sampled;

/* Samples `cycles` loops of a clip at hz with root motion accumulated: the
 * clip's hips translation from start to end is added once per completed loop,
 * as a game moving the character by the clip's root motion would. */
static sampled sample_clip(const sk_asset *a, const sk_clip *c, double hz, uint32_t cycles) {
    const sk_skeleton *s = a->skeleton;
    sampled out;
    uint32_t per = (uint32_t)lround(sk_clip_duration(c) * hz);
    out.frames = per * cycles;
    out.pos = calloc((size_t)out.frames * s->joint_count, sizeof *out.pos);
    sk_transform *local = calloc(s->joint_count, sizeof *local);
    sk_mat4 *model = calloc(s->joint_count, sizeof *model);
    int32_t hips = sk_skeleton_find(s, "hips");
    assert_true(hips >= 0);
    sk_vec3 t0, t1;
    assert_int_equal(sk_clip_sample(c, s, 0.0, SK_LOOP_CLAMP, SK_POSE_OF(s, local, NULL), NULL), SK_OK);
    t0 = local[hips].t;
    assert_int_equal(sk_clip_sample(c, s, sk_clip_duration(c), SK_LOOP_CLAMP, SK_POSE_OF(s, local, NULL), NULL), SK_OK);
    t1 = local[hips].t;
    sk_vec3 delta = sk_vec3_sub(t1, t0);
    for (uint32_t f = 0; f < out.frames; f++) {
        double t = (f % per) / hz;
        assert_int_equal(sk_clip_sample(c, s, t, SK_LOOP_REPEAT, SK_POSE_OF(s, local, NULL), NULL), SK_OK);
        sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, model, (s)->joint_count, NULL);
        sk_vec3 shift = sk_vec3_scale(delta, (float)(f / per));
        for (uint32_t j = 0; j < s->joint_count; j++)
            out.pos[(size_t)f * s->joint_count + j] =
                sk_vec3_add(sk_vec3_make(model[j].m[12], model[j].m[13], model[j].m[14]), shift);
    }
    free(local);
    free(model);
    return out;
}

/* The root's displacement over one cycle, over the duration (m/s). */
static sk_vec3 root_velocity(const sk_asset *a, const sk_clip *c) {
    const sk_skeleton *s = a->skeleton;
    sk_transform *l0 = calloc(s->joint_count, sizeof *l0), *l1 = calloc(s->joint_count, sizeof *l1);
    int32_t hips = joint(a, "hips");
    assert_int_equal(sk_clip_sample(c, s, 0.0, SK_LOOP_CLAMP, SK_POSE_OF(s, l0, NULL), NULL), SK_OK);
    assert_int_equal(sk_clip_sample(c, s, sk_clip_duration(c), SK_LOOP_CLAMP, SK_POSE_OF(s, l1, NULL), NULL), SK_OK);
    sk_vec3 v = sk_vec3_scale(sk_vec3_sub(l1[hips].t, l0[hips].t), (float)(1.0 / sk_clip_duration(c)));
    free(l0);
    free(l1);
    return v;
}

static double root_speed(const sk_asset *a, const sk_clip *c) {
    const sk_skeleton *s = a->skeleton;
    sk_transform *l0 = calloc(s->joint_count, sizeof *l0), *l1 = calloc(s->joint_count, sizeof *l1);
    int32_t hips = joint(a, "hips");
    assert_int_equal(sk_clip_sample(c, s, 0.0, SK_LOOP_CLAMP, SK_POSE_OF(s, l0, NULL), NULL), SK_OK);
    assert_int_equal(sk_clip_sample(c, s, sk_clip_duration(c), SK_LOOP_CLAMP, SK_POSE_OF(s, l1, NULL), NULL), SK_OK);
    double v = (l1[hips].t.z - l0[hips].t.z) / sk_clip_duration(c);
    /* Straight ahead: no sideways drift over a cycle. */
    assert_true(fabsf(l1[hips].t.x - l0[hips].t.x) < 1e-4f);
    assert_true(fabsf(l1[hips].t.y - l0[hips].t.y) < 1e-4f);
    free(l0);
    free(l1);
    return v;
}

static void test_speeds(void **state) {
    (void)state;
    sk_asset *a = make_mannequin(0);
    double walk = root_speed(a, clip(a, "walk")), run = root_speed(a, clip(a, "run"));
    double idle = root_speed(a, clip(a, "idle")), crouch = root_speed(a, clip(a, "crouch"));
    printf("root speed: walk %.3f m/s, run %.3f m/s, idle %.3f, crouch %.3f\n", walk, run, idle, crouch);
    assert_true(fabs(walk - 1.4) <= 0.1);
    assert_true(fabs(run - 3.5) <= 0.2);
    assert_true(fabs(idle) < 0.01 && fabs(crouch) < 0.01);
    /* Backward: along -Z at 1.0-1.2 m/s; the sidesteps along +X (the
     * character's left) and -X at 0.8-1.0 m/s; no drift in the other axes. */
    sk_vec3 vb = root_velocity(a, clip(a, "walk_back")), vl = root_velocity(a, clip(a, "strafe_left"));
    sk_vec3 vr = root_velocity(a, clip(a, "strafe_right"));
    printf("root velocity: walk_back (%.3f, %.3f, %.3f), strafe_left (%.3f, %.3f, %.3f), strafe_right (%.3f, %.3f, "
           "%.3f) m/s\n", vb.x, vb.y, vb.z, vl.x, vl.y, vl.z, vr.x, vr.y, vr.z);
    assert_true(vb.z <= -1.0f && vb.z >= -1.2f && fabsf(vb.x) < 1e-4f && fabsf(vb.y) < 1e-4f);
    assert_true(vl.x >= 0.8f && vl.x <= 1.0f && fabsf(vl.z) < 1e-4f && fabsf(vl.y) < 1e-4f);
    assert_true(fabsf(vr.x + vl.x) < 1e-5f && fabsf(vr.z) < 1e-4f && fabsf(vr.y) < 1e-4f);
    sk_asset_destroy(a);

    /* Half the size: half the speed at the same cadence. */
    a = make_mannequin(0.9f);
    walk = root_speed(a, clip(a, "walk"));
    assert_true(fabs(walk - 0.7) <= 0.05);
    sk_asset_destroy(a);
}

/* Finds the stance phases of a foot (ankle within 1 cm of its lowest height)
 * that lie wholly inside the sampled frames and returns the largest
 * horizontal travel of the ankle within one of them; counts them. A clip
 * whose foot never leaves the ground is one stance. */
static double foot_slide(const sampled *sm, uint32_t joint_count, int32_t foot, int *stances, double *stance_frac) {
    float miny = 1e9f;
    for (uint32_t f = 0; f < sm->frames; f++) {
        float y = sm->pos[(size_t)f * joint_count + foot].y;
        if (y < miny) miny = y;
    }
    int *in = calloc(sm->frames, sizeof *in);
    uint32_t n_in = 0;
    for (uint32_t f = 0; f < sm->frames; f++) {
        in[f] = sm->pos[(size_t)f * joint_count + foot].y <= miny + 0.01f;
        n_in += (uint32_t)in[f];
    }
    *stance_frac = (double)n_in / sm->frames;
    double worst = 0;
    *stances = 0;
    uint32_t f = 0;
    while (f < sm->frames) {
        if (!in[f]) { f++; continue; }
        uint32_t b = f;
        while (f < sm->frames && in[f]) f++;
        /* [b, f) is a stance; skip the ones cut by the ends of the sampling
         * unless the foot never lifts. */
        if ((b == 0 || f == sm->frames) && !(b == 0 && f == sm->frames)) continue;
        (*stances)++;
        sk_vec3 p0 = sm->pos[(size_t)b * joint_count + foot];
        for (uint32_t i = b; i < f; i++) {
            sk_vec3 p = sm->pos[(size_t)i * joint_count + foot];
            double dx = p.x - p0.x, dz = p.z - p0.z;
            double d = sqrt(dx * dx + dz * dz);
            if (d > worst) worst = d;
        }
    }
    free(in);
    return worst;
}

static void check_feet(const char *clip_name, int locomotion) {
    sk_asset *a = make_mannequin(0);
    const sk_clip *c = clip(a, clip_name);
    uint32_t n = a->skeleton->joint_count;
    /* Three loops: every stance of the middle one is seen whole. */
    sampled sm = sample_clip(a, c, 240.0, 3);
    static const char *const feet[2] = {"foot_l", "foot_r"};
    static const char *const toes[2] = {"toe_l", "toe_r"};
    for (int s = 0; s < 2; s++) {
        int32_t foot = joint(a, feet[s]), toe = joint(a, toes[s]);
        int stances = 0;
        double frac = 0;
        double slide = foot_slide(&sm, n, foot, &stances, &frac);
        printf("%s %s: %d whole stance phase(s) in 3 loops, %.0f%% of the cycle, max slide %.2f cm\n", clip_name,
               feet[s], stances, frac * 100, slide * 100);
        if (locomotion) assert_true(stances >= 2);
        else assert_int_equal(stances, 1);
        assert_true(slide < 0.02);
        float miny = 1e9f;
        for (uint32_t f = 0; f < sm.frames; f++) {
            float y1 = sm.pos[(size_t)f * n + foot].y, y2 = sm.pos[(size_t)f * n + toe].y;
            if (y1 < miny) miny = y1;
            if (y2 < miny) miny = y2;
        }
        assert_true(miny >= -0.005f);
    }
    free(sm.pos);
    sk_asset_destroy(a);
}

static void test_walk_feet(void **state) { (void)state; check_feet("walk", 1); }
static void test_run_feet(void **state) { (void)state; check_feet("run", 1); }
static void test_walk_back_feet(void **state) { (void)state; check_feet("walk_back", 1); }
static void test_strafe_feet(void **state) {
    (void)state;
    check_feet("strafe_left", 1);
    check_feet("strafe_right", 1);
}

/* A sidestep, not a crossover: over the whole cycle the left ankle and toe
 * stay to the left (+X) of the right ones by more than a foot's width
 * (8 cm, the mesh's sole is 9 cm across at most, so the soles never touch),
 * and the stance widens and narrows by about a step: the lead foot steps out
 * while the feet are close, the trailing foot closes them. */
static void test_strafe_no_cross(void **state) {
    (void)state;
    sk_asset *a = make_mannequin(0);
    uint32_t n = a->skeleton->joint_count;
    int32_t fl = joint(a, "foot_l"), fr = joint(a, "foot_r"), tl = joint(a, "toe_l"), tr = joint(a, "toe_r");
    static const char *const names[2] = {"strafe_left", "strafe_right"};
    for (int k = 0; k < 2; k++) {
        const sk_clip *c = clip(a, names[k]);
        sampled sm = sample_clip(a, c, 240.0, 1);
        double lo = 1e9, hi = -1e9;
        for (uint32_t f = 0; f < sm.frames; f++) {
            const sk_vec3 *p = sm.pos + (size_t)f * n;
            double wa = p[fl].x - p[fr].x, wt = p[tl].x - p[tr].x;
            if (wa < lo) lo = wa;
            if (wt < lo) lo = wt;
            if (wa > hi) hi = wa;
        }
        printf("%s: ankles %.3f .. %.3f m apart (left minus right)\n", names[k], lo, hi);
        assert_true(lo > 0.08);
        double step = fabs(root_velocity(a, c).x) * sk_clip_duration(c);
        assert_true(hi - lo > 0.8 * step && hi - lo < 1.2 * step);
        free(sm.pos);
    }
    sk_asset_destroy(a);
}

static void test_idle_feet(void **state) { (void)state; check_feet("idle", 0); check_feet("crouch", 0); }

/* The skinned surface stays above the ground in every clip and the run has a
 * flight phase (both feet off the ground at once). */
static void test_skinned_ground(void **state) {
    (void)state;
    sk_asset *a = make_mannequin(0);
    const sk_skeleton *s = a->skeleton;
    const sk_skin *skin = &a->skins[0];
    const sk_primitive *p = &a->meshes[0].primitives[0];
    sk_transform *local = calloc(s->joint_count, sizeof *local);
    sk_mat4 *model = calloc(s->joint_count, sizeof *model);
    sk_mat4 *pal = calloc(skin->joint_count, sizeof *pal);
    for (uint32_t c = 0; c < a->clip_count; c++) {
        const sk_clip *cl = a->clips[c];
        const double hz = 60.0;
        uint32_t frames = (uint32_t)lround(sk_clip_duration(cl) * hz);
        float lowest = 1e9f;
        uint32_t airborne = 0;
        for (uint32_t f = 0; f < frames; f++) {
            assert_int_equal(sk_clip_sample(cl, s, f / hz, SK_LOOP_REPEAT, SK_POSE_OF(s, local, NULL), NULL), SK_OK);
            sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, model, (s)->joint_count, NULL);
            sk_skin_palette(skin, model, UINT32_MAX, pal, (skin)->joint_count, NULL);
            float miny = 1e9f;
            for (uint32_t v = 0; v < p->vertex_count; v++) {
                sk_vec3 q = {0, 0, 0}, pos = {p->positions[3 * v], p->positions[3 * v + 1], p->positions[3 * v + 2]};
                for (int k = 0; k < 4; k++) {
                    float w = p->weights[4 * v + k];
                    if (w == 0) continue;
                    q = sk_vec3_add(q, sk_vec3_scale(sk_mat4_transform_point(&pal[p->joints[4 * v + k]], pos), w));
                }
                if (q.y < miny) miny = q.y;
            }
            if (miny < lowest) lowest = miny;
            if (miny > 0.01f) airborne++;
        }
        printf("%s: lowest skinned vertex %.4f m, %u of %u frames airborne\n", sk_clip_name(cl), (double)lowest,
               airborne, frames);
        assert_true(lowest >= -0.005f);
        if (strcmp(sk_clip_name(cl), "run") == 0) assert_true(airborne > 0);
        else assert_int_equal(airborne, 0);
    }
    free(local);
    free(model);
    free(pal);
    sk_asset_destroy(a);
}

/* ---- .glb writer ---------------------------------------------------------------- */

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void test_glb_container(void **state) {
    (void)state;
    sk_asset *a = make_mannequin(0);
    void *data = NULL;
    size_t size = 0;
    sk_error err = {0};
    assert_int_equal(sk_glb_write_memory(a, &data, &size, &err), SK_OK);
    const uint8_t *b = data;
    assert_true(size > 20 && size % 4 == 0);
    assert_int_equal(rd32(b), 0x46546C67u);
    assert_int_equal(rd32(b + 4), 2);
    assert_int_equal(rd32(b + 8), size);
    uint32_t jlen = rd32(b + 12);
    assert_int_equal(rd32(b + 16), 0x4E4F534Au);
    assert_true(jlen % 4 == 0 && 20 + (size_t)jlen + 8 <= size);
    const uint8_t *bin = b + 20 + jlen;
    uint32_t blen = rd32(bin);
    assert_int_equal(rd32(bin + 4), 0x004E4942u);
    assert_true(blen % 4 == 0);
    assert_int_equal(20 + (size_t)jlen + 8 + blen, size);

    cJSON *j = cJSON_ParseWithLength((const char *)b + 20, jlen);
    assert_non_null(j);
    cJSON *asset = cJSON_GetObjectItem(j, "asset");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(asset, "version")), "2.0");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(asset, "generator")), "skelanim");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "nodes")), a->node_count);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "animations")), (int)a->clip_count);
    assert_int_equal(cJSON_GetObjectItem(j, "scene")->valueint, 0);
    cJSON *buffers = cJSON_GetObjectItem(j, "buffers");
    assert_int_equal(cJSON_GetArraySize(buffers), 1);
    assert_null(cJSON_GetObjectItem(cJSON_GetArrayItem(buffers, 0), "uri"));
    assert_true(cJSON_GetObjectItem(cJSON_GetArrayItem(buffers, 0), "byteLength")->valuedouble <= blen);
    cJSON *views = cJSON_GetObjectItem(j, "bufferViews"), *v;
    cJSON_ArrayForEach(v, views) {
        cJSON *off = cJSON_GetObjectItem(v, "byteOffset");
        double o = off ? off->valuedouble : 0, len = cJSON_GetObjectItem(v, "byteLength")->valuedouble;
        assert_true(fmod(o, 4) == 0);
        assert_true(o + len <= blen);
    }
    /* POSITION and every sampler input carry min/max; vertex and index views have targets. */
    cJSON *accessors = cJSON_GetObjectItem(j, "accessors");
    cJSON *prim = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "meshes"), 0),
                                                         "primitives"), 0);
    cJSON *attrs = cJSON_GetObjectItem(prim, "attributes");
    cJSON *pos = cJSON_GetArrayItem(accessors, cJSON_GetObjectItem(attrs, "POSITION")->valueint);
    assert_non_null(cJSON_GetObjectItem(pos, "min"));
    assert_non_null(cJSON_GetObjectItem(pos, "max"));
    cJSON *at;
    cJSON_ArrayForEach(at, attrs) {
        cJSON *acc = cJSON_GetArrayItem(accessors, at->valueint);
        cJSON *view = cJSON_GetArrayItem(views, cJSON_GetObjectItem(acc, "bufferView")->valueint);
        assert_int_equal(cJSON_GetObjectItem(view, "target")->valueint, 34962);
    }
    cJSON *jacc = cJSON_GetArrayItem(accessors, cJSON_GetObjectItem(attrs, "JOINTS_0")->valueint);
    assert_int_equal(cJSON_GetObjectItem(jacc, "componentType")->valueint, 5121); /* < 256 joints: bytes */
    cJSON *iacc = cJSON_GetArrayItem(accessors, cJSON_GetObjectItem(prim, "indices")->valueint);
    assert_int_equal(cJSON_GetObjectItem(iacc, "componentType")->valueint, 5123);
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(views, cJSON_GetObjectItem(iacc, "bufferView")->valueint),
                                         "target")->valueint, 34963);
    cJSON *mat = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "materials"), 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(mat, "pbrMetallicRoughness"),
                                                             "baseColorFactor")), 4);
    cJSON *anim;
    cJSON_ArrayForEach(anim, cJSON_GetObjectItem(j, "animations")) {
        cJSON *smp;
        cJSON_ArrayForEach(smp, cJSON_GetObjectItem(anim, "samplers")) {
            cJSON *in = cJSON_GetArrayItem(accessors, cJSON_GetObjectItem(smp, "input")->valueint);
            assert_non_null(cJSON_GetObjectItem(in, "min"));
            assert_non_null(cJSON_GetObjectItem(in, "max"));
        }
    }
    /* The skinned mesh node is a root with mesh and skin, and identity transform. */
    cJSON *mnode = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "nodes"), (int)a->joint_to_node[a->node_count - 1]);
    assert_int_equal(cJSON_GetObjectItem(mnode, "mesh")->valueint, 0);
    assert_int_equal(cJSON_GetObjectItem(mnode, "skin")->valueint, 0);
    assert_null(cJSON_GetObjectItem(mnode, "translation"));
    cJSON_Delete(j);
    sk_free(sk_asset_allocator(a), data, size);

    /* Errors */
    assert_int_equal(sk_glb_write_memory(NULL, &data, &size, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_glb_write_memory(a, NULL, &size, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_glb_write_file(a, "/nonexistent-dir/x.glb", NULL, &err), SK_ERR_IO);
    assert_non_null(strstr(err.message, "/nonexistent-dir/x.glb"));
    sk_asset_destroy(a);
}

/* Same local pose for every joint of a, looked up in b through the file-node mapping. */
static void compare_clip(const sk_asset *a, const sk_clip *ca, const sk_asset *b, const sk_clip *cb) {
    const sk_skeleton *sa = a->skeleton, *sb = b->skeleton;
    assert_float_equal(sk_clip_duration(ca), sk_clip_duration(cb), 1e-6);
    sk_transform *la = calloc(sa->joint_count, sizeof *la), *lb = calloc(sb->joint_count, sizeof *lb);
    float dur = sk_clip_duration(ca);
    for (int k = 0; k <= 12; k++) {
        double t = dur * k / 12.0 + (k % 3) * 0.0071; /* on and between keys */
        assert_int_equal(sk_clip_sample(ca, sa, t, SK_LOOP_REPEAT, SK_POSE_OF(sa, la, NULL), NULL), SK_OK);
        assert_int_equal(sk_clip_sample(cb, sb, t, SK_LOOP_REPEAT, SK_POSE_OF(sb, lb, NULL), NULL), SK_OK);
        for (uint32_t j = 0; j < sa->joint_count; j++) {
            const sk_transform *x = &la[j], *y = &lb[b->node_to_joint[a->joint_to_node[j]]];
            float d[10] = {x->t.x - y->t.x, x->t.y - y->t.y, x->t.z - y->t.z, x->r.x - y->r.x, x->r.y - y->r.y,
                           x->r.z - y->r.z, x->r.w - y->r.w, x->s.x - y->s.x, x->s.y - y->s.y, x->s.z - y->s.z};
            for (int c = 0; c < 10; c++) {
                if (!(fabsf(d[c]) <= 1e-6f))
                    fprintf(stderr, "%s joint %u t=%.4f component %d differs by %g\n", sk_clip_name(ca), j, t, c,
                            (double)d[c]);
                assert_true(fabsf(d[c]) <= 1e-6f);
            }
        }
    }
    free(la);
    free(lb);
}

static void test_glb_round_trip(void **state) {
    (void)state;
    sk_asset *a = make_mannequin(0), *b = NULL;
    void *data = NULL;
    size_t size = 0;
    sk_error err = {0};
    assert_int_equal(sk_glb_write_memory(a, &data, &size, &err), SK_OK);
    sk_result r = sk_gltf_load_memory(data, size, NULL, NULL, &b, &err);
    if (r != SK_OK) fprintf(stderr, "reload: %s\n", err.message);
    assert_int_equal(r, SK_OK);
    sk_free(sk_asset_allocator(a), data, size);

    assert_string_equal(b->generator, "skelanim");
    assert_int_equal(b->node_count, a->node_count);
    assert_int_equal(b->skeleton->joint_count, a->skeleton->joint_count);
    for (uint32_t j = 0; j < a->skeleton->joint_count; j++) {
        uint32_t jb = b->node_to_joint[a->joint_to_node[j]];
        assert_string_equal(a->skeleton->names[j], b->skeleton->names[jb]);
        int32_t pa = a->skeleton->parents[j], pb = b->skeleton->parents[jb];
        assert_int_equal(pa < 0 ? -1 : (int32_t)a->joint_to_node[pa], pb < 0 ? -1 : (int32_t)b->joint_to_node[pb]);
        const sk_transform *x = &a->skeleton->rest[j], *y = &b->skeleton->rest[jb];
        assert_true(memcmp(&x->t, &y->t, sizeof x->t) == 0);
        assert_int_equal(a->joint_mesh[j], b->joint_mesh[jb]);
        assert_int_equal(a->joint_skin[j], b->joint_skin[jb]);
    }
    /* skin */
    assert_int_equal(b->skin_count, 1);
    const sk_skin *ka = &a->skins[0], *kb = &b->skins[0];
    assert_int_equal(ka->joint_count, kb->joint_count);
    for (uint32_t i = 0; i < ka->joint_count; i++) {
        assert_int_equal(a->joint_to_node[ka->joints[i]], b->joint_to_node[kb->joints[i]]);
        assert_true(memcmp(&ka->inverse_bind[i], &kb->inverse_bind[i], sizeof(sk_mat4)) == 0);
    }
    assert_int_equal(b->joint_to_node[kb->skeleton_root], a->joint_to_node[ka->skeleton_root]);
    /* mesh */
    assert_int_equal(b->mesh_count, 1);
    const sk_primitive *pa = &a->meshes[0].primitives[0], *pb = &b->meshes[0].primitives[0];
    assert_string_equal(a->meshes[0].name, b->meshes[0].name);
    assert_int_equal(pa->vertex_count, pb->vertex_count);
    assert_int_equal(pa->index_count, pb->index_count);
    assert_int_equal(pb->influence_count, 4);
    size_t vc = pa->vertex_count;
    assert_true(memcmp(pa->positions, pb->positions, vc * 3 * sizeof(float)) == 0);
    assert_non_null(pb->normals);
    assert_true(memcmp(pa->normals, pb->normals, vc * 3 * sizeof(float)) == 0);
    assert_true(memcmp(pa->joints, pb->joints, vc * 4 * sizeof(uint16_t)) == 0);
    assert_true(memcmp(pa->weights, pb->weights, vc * 4 * sizeof(float)) == 0);
    assert_true(memcmp(pa->indices, pb->indices, pa->index_count * sizeof(uint32_t)) == 0);
    assert_int_equal(pb->mode, 4);
    assert_true(pb->material >= 0);
    assert_true(memcmp(pa->base_color, pb->base_color, sizeof pa->base_color) == 0);
    /* scene */
    assert_int_equal(b->scene_count, 1);
    assert_int_equal(b->default_scene, 0);
    assert_int_equal(b->scenes[0].root_count, a->scenes[0].root_count);
    /* clips */
    assert_int_equal(b->clip_count, a->clip_count);
    for (uint32_t c = 0; c < a->clip_count; c++) {
        int32_t k = sk_asset_find_clip(b, sk_clip_name(a->clips[c]));
        assert_true(k >= 0);
        assert_int_equal(sk_clip_track_count(b->clips[k]), sk_clip_track_count(a->clips[c]));
        compare_clip(a, a->clips[c], b, b->clips[k]);
    }
    sk_asset_destroy(b);
    sk_asset_destroy(a);
}

/* An asset using what the mannequin does not: a file-node order different
 * from the joint order, rest rotation/scale, node morph weights, 8 influences
 * with joint indices >= 256, tangents, texcoords, morph targets, 32-bit
 * indices, STEP/CUBICSPLINE/weights tracks, a clip longer than its keys and
 * an empty clip. */
#define SYN_JOINTS 262u
#define SYN_MESH_JOINT 260u
#define SYN_VERTS 70000u

static sk_asset *make_synthetic(void) {
    sk_asset *a = NULL;
    assert_int_equal(sk_asset_create_empty(NULL, &a, NULL), SK_OK);
    int32_t parents[SYN_JOINTS];
    const char *names[SYN_JOINTS];
    sk_transform rest[SYN_JOINTS];
    uint32_t wcount[SYN_JOINTS];
    for (uint32_t j = 0; j < SYN_JOINTS; j++) {
        parents[j] = j == 0 || j == SYN_MESH_JOINT ? -1 : j == 261 ? 1 : 0;
        char buf[32];
        snprintf(buf, sizeof buf, "j%u", j);
        names[j] = sk_asset_strdup(a, buf);
        rest[j] = sk_transform_identity();
        rest[j].t = sk_vec3_make(0.01f * (float)j, 0.5f, -0.25f);
        wcount[j] = j == SYN_MESH_JOINT ? 2 : 0;
    }
    rest[0].r = sk_quat_from_axis_angle(sk_vec3_make(0, 1, 0), 0.5f);
    rest[0].s = sk_vec3_make(2, 2, 2);
    rest[SYN_MESH_JOINT].t = sk_vec3_make(0, 0, 0);
    float rest_w[2] = {0.25f, 0.5f};
    sk_skeleton_desc sd = {SYN_JOINTS, parents, names, rest, wcount, rest_w};
    assert_int_equal(sk_skeleton_create(&sd, sk_asset_allocator(a), &a->skeleton, NULL), SK_OK);
    uint32_t *j2n = sk_asset_alloc(a, SYN_JOINTS * 4), *n2j = sk_asset_alloc(a, SYN_JOINTS * 4);
    int32_t *jm = sk_asset_alloc(a, SYN_JOINTS * 4), *js = sk_asset_alloc(a, SYN_JOINTS * 4);
    for (uint32_t j = 0; j < SYN_JOINTS; j++) {
        j2n[j] = (j * 7 + 3) % SYN_JOINTS;
        n2j[j2n[j]] = j;
        jm[j] = js[j] = j == SYN_MESH_JOINT ? 0 : -1;
    }
    a->node_count = SYN_JOINTS;
    a->joint_to_node = j2n;
    a->node_to_joint = n2j;
    a->joint_mesh = jm;
    a->joint_skin = js;

    sk_skin *skin = sk_asset_alloc(a, sizeof *skin);
    uint32_t *sj = sk_asset_alloc(a, 260 * 4);
    sk_mat4 *ibm = sk_asset_alloc(a, 260 * sizeof(sk_mat4));
    for (uint32_t i = 0; i < 260; i++) {
        sj[i] = i;
        ibm[i] = sk_mat4_identity();
        ibm[i].m[13] = -0.5f;
    }
    *skin = (sk_skin){"syn_skin", 260, sj, ibm, 0};
    a->skins = skin;
    a->skin_count = 1;

    float *pos = sk_asset_alloc(a, SYN_VERTS * 12), *nrm = sk_asset_alloc(a, SYN_VERTS * 12);
    float *tan = sk_asset_alloc(a, SYN_VERTS * 16), *uv = sk_asset_alloc(a, SYN_VERTS * 8);
    uint16_t *jt = sk_asset_alloc(a, SYN_VERTS * 16);
    float *wt = sk_asset_alloc(a, SYN_VERTS * 32);
    float *dpos = sk_asset_alloc(a, SYN_VERTS * 12), *dnrm = sk_asset_alloc(a, SYN_VERTS * 12);
    for (uint32_t v = 0; v < SYN_VERTS; v++) {
        pos[3 * v] = (float)(v % 300) * 0.01f;
        pos[3 * v + 1] = (float)(v / 300) * 0.01f;
        pos[3 * v + 2] = (float)(v % 7) * 0.001f;
        nrm[3 * v + 2] = 1;
        tan[4 * v] = 1;
        tan[4 * v + 3] = v % 2 ? 1.0f : -1.0f;
        uv[2 * v] = pos[3 * v];
        uv[2 * v + 1] = pos[3 * v + 1];
        for (int k = 0; k < 8; k++) {
            jt[8 * v + k] = (uint16_t)((v + (uint32_t)k * 37) % 260);
            wt[8 * v + k] = 0.125f;
        }
        dpos[3 * v + 2] = 0.01f * (float)(v % 5);
        dnrm[3 * v] = 0.001f;
    }
    uint32_t *idx = sk_asset_alloc(a, 6 * 4);
    uint32_t tri[6] = {0, 1, 300, SYN_VERTS - 1, SYN_VERTS - 2, SYN_VERTS - 301};
    memcpy(idx, tri, sizeof tri);
    sk_morph_target *targets = sk_asset_alloc(a, 2 * sizeof *targets);
    targets[0].positions = dpos;
    targets[1].positions = dpos;
    targets[1].normals = dnrm;
    sk_primitive *prim = sk_asset_alloc(a, sizeof *prim);
    *prim = (sk_primitive){4, SYN_VERTS, pos, nrm, tan, uv, 8, jt, wt, 6, idx, 2, targets, 0, {1, 0.5f, 0.25f, 1}, NULL};
    float *dw = sk_asset_alloc(a, 8);
    dw[0] = 0.25f;
    dw[1] = 0.5f;
    sk_mesh *mesh = sk_asset_alloc(a, sizeof *mesh);
    *mesh = (sk_mesh){"syn_mesh", 1, prim, 2, dw};
    a->meshes = mesh;
    a->mesh_count = 1;

    sk_scene *scene = sk_asset_alloc(a, sizeof *scene);
    uint32_t *roots = sk_asset_alloc(a, 8);
    roots[0] = 0;
    roots[1] = SYN_MESH_JOINT;
    *scene = (sk_scene){"syn", 2, roots};
    a->scenes = scene;
    a->scene_count = 1;
    a->default_scene = 0;

    sk_clip **clips = sk_asset_alloc(a, 2 * sizeof *clips);
    a->clips = clips;
    sk_clip_builder *b = NULL;
    assert_int_equal(sk_clip_builder_create("mix", NULL, &b, NULL), SK_OK);
    float t3[3] = {0, 0.5f, 1}, t2[2] = {0.25f, 0.75f};
    float step_v[9] = {0, 0, 0, 1, 0, 0, 1, 1, 0};
    sk_track_desc d1 = {1, SK_PATH_TRANSLATION, SK_INTERP_STEP, 3, t3, step_v, 3};
    assert_int_equal(sk_clip_builder_add_track(b, &d1, NULL), SK_OK);
    float cub[36];
    for (int k = 0; k < 3; k++) {
        sk_quat q = sk_quat_from_axis_angle(sk_vec3_make(1, 0, 0), 0.4f * (float)k);
        float tin[4] = {0.1f, 0, 0, 0}, val[4] = {q.x, q.y, q.z, q.w}, tout[4] = {0, 0.1f, 0, 0};
        memcpy(cub + 12 * k, tin, 16);
        memcpy(cub + 12 * k + 4, val, 16);
        memcpy(cub + 12 * k + 8, tout, 16);
    }
    sk_track_desc d2 = {261, SK_PATH_ROTATION, SK_INTERP_CUBICSPLINE, 3, t3, cub, 4};
    assert_int_equal(sk_clip_builder_add_track(b, &d2, NULL), SK_OK);
    float wv[4] = {0, 1, 1, 0};
    sk_track_desc d3 = {SYN_MESH_JOINT, SK_PATH_WEIGHTS, SK_INTERP_LINEAR, 2, t2, wv, 2};
    assert_int_equal(sk_clip_builder_add_track(b, &d3, NULL), SK_OK);
    float sv[6] = {1, 1, 1, 2, 2, 2};
    sk_track_desc d4 = {0, SK_PATH_SCALE, SK_INTERP_LINEAR, 2, t2, sv, 3};
    assert_int_equal(sk_clip_builder_add_track(b, &d4, NULL), SK_OK);
    sk_clip_builder_set_duration(b, 2.0f);
    assert_int_equal(sk_clip_builder_finish(b, &clips[0], NULL), SK_OK);
    a->clip_count = 1;
    assert_int_equal(sk_clip_builder_create("empty", NULL, &b, NULL), SK_OK);
    assert_int_equal(sk_clip_builder_finish(b, &clips[1], NULL), SK_OK);
    a->clip_count = 2;
    return a;
}

static void test_glb_synthetic(void **state) {
    (void)state;
    sk_asset *a = make_synthetic(), *b = NULL;
    void *data = NULL;
    size_t size = 0;
    sk_error err = {0};
    sk_result r = sk_glb_write_memory(a, &data, &size, &err);
    if (r != SK_OK) fprintf(stderr, "write: %s\n", err.message);
    assert_int_equal(r, SK_OK);
    /* Keep a copy for the validator: this test is tests/cli_validate_mannequin.sh's
     * ctest fixture (FIXTURES_SETUP synthetic_glb), so the file must be written
     * now; a stale copy from an earlier run is removed first. */
    const char *bindir = getenv("SK_BINARY_DIR");
    if (bindir) {
        char path[1024];
        sk_test_path(path, sizeof path, bindir, "synthetic_writer_test.glb");
        remove(path);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(data, 1, size, f), size);
        assert_int_equal(fclose(f), 0);
    }
    uint32_t jlen = rd32((const uint8_t *)data + 12);
    cJSON *j = cJSON_ParseWithLength((const char *)data + 20, jlen);
    assert_non_null(j);
    cJSON *accessors = cJSON_GetObjectItem(j, "accessors");
    cJSON *prim = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "meshes"), 0),
                                                         "primitives"), 0);
    cJSON *attrs = cJSON_GetObjectItem(prim, "attributes");
    static const char *const keys[] = {"POSITION", "NORMAL", "TANGENT", "TEXCOORD_0", "JOINTS_0", "JOINTS_1",
                                       "WEIGHTS_0", "WEIGHTS_1"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) assert_non_null(cJSON_GetObjectItem(attrs, keys[k]));
    cJSON *jacc = cJSON_GetArrayItem(accessors, cJSON_GetObjectItem(attrs, "JOINTS_1")->valueint);
    assert_int_equal(cJSON_GetObjectItem(jacc, "componentType")->valueint, 5123);
    cJSON *iacc = cJSON_GetArrayItem(accessors, cJSON_GetObjectItem(prim, "indices")->valueint);
    assert_int_equal(cJSON_GetObjectItem(iacc, "componentType")->valueint, 5125);
    cJSON *tgt = cJSON_GetArrayItem(cJSON_GetObjectItem(prim, "targets"), 0);
    cJSON *tpos = cJSON_GetArrayItem(accessors, cJSON_GetObjectItem(tgt, "POSITION")->valueint);
    assert_non_null(cJSON_GetObjectItem(tpos, "min"));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "animations")), 1); /* the empty clip is left out */
    cJSON *anim = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "animations"), 0);
    assert_float_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(anim, "extras"), "duration")->valuedouble, 2.0, 0);
    cJSON *nodes = cJSON_GetObjectItem(j, "nodes");
    cJSON *mnode = cJSON_GetArrayItem(nodes, (int)a->joint_to_node[SYN_MESH_JOINT]);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(mnode, "weights")), 2);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(mnode, "name")), "j260");
    cJSON_Delete(j);

    r = sk_gltf_load_memory(data, size, NULL, NULL, &b, &err);
    if (r != SK_OK) fprintf(stderr, "reload: %s\n", err.message);
    assert_int_equal(r, SK_OK);
    sk_free(sk_asset_allocator(a), data, size);
    assert_int_equal(b->node_count, SYN_JOINTS);
    for (uint32_t jt = 0; jt < SYN_JOINTS; jt++) {
        uint32_t jb = b->node_to_joint[a->joint_to_node[jt]];
        assert_string_equal(a->skeleton->names[jt], b->skeleton->names[jb]);
        assert_true(memcmp(&a->skeleton->rest[jt], &b->skeleton->rest[jb], sizeof(sk_transform)) == 0);
        assert_int_equal(a->skeleton->weight_count[jt], b->skeleton->weight_count[jb]);
    }
    const sk_primitive *pa = &a->meshes[0].primitives[0], *pb = &b->meshes[0].primitives[0];
    assert_int_equal(pb->vertex_count, SYN_VERTS);
    assert_int_equal(pb->influence_count, 8);
    assert_true(memcmp(pa->joints, pb->joints, SYN_VERTS * 8 * 2) == 0);
    assert_true(memcmp(pa->weights, pb->weights, SYN_VERTS * 8 * 4) == 0);
    assert_true(memcmp(pa->tangents, pb->tangents, SYN_VERTS * 16) == 0);
    assert_true(memcmp(pa->texcoords, pb->texcoords, SYN_VERTS * 8) == 0);
    assert_true(memcmp(pa->indices, pb->indices, 6 * 4) == 0);
    assert_int_equal(pb->target_count, 2);
    assert_true(memcmp(pa->targets[1].positions, pb->targets[1].positions, SYN_VERTS * 12) == 0);
    assert_true(memcmp(pa->targets[1].normals, pb->targets[1].normals, SYN_VERTS * 12) == 0);
    assert_null(pb->targets[0].normals);
    assert_true(memcmp(pa->base_color, pb->base_color, 16) == 0);
    assert_int_equal(b->meshes[0].weight_count, 2);
    assert_true(memcmp(b->meshes[0].default_weights, a->meshes[0].default_weights, 8) == 0);
    assert_int_equal(b->clip_count, 1);
    const sk_clip *ca = a->clips[0], *cb = b->clips[0];
    assert_int_equal(sk_clip_track_count(cb), 4);
    for (uint32_t t = 0; t < 4; t++) {
        sk_track_info ia, ib;
        assert_true(sk_clip_track_info(ca, t, &ia));
        bool found = false;
        for (uint32_t u = 0; u < 4 && !found; u++) {
            assert_true(sk_clip_track_info(cb, u, &ib));
            if (b->joint_to_node[ib.joint] != a->joint_to_node[ia.joint] || ib.path != ia.path) continue;
            found = true;
            assert_int_equal(ia.interpolation, ib.interpolation);
            assert_int_equal(ia.key_count, ib.key_count);
            assert_int_equal(ia.width, ib.width);
            float ta[3], tb[3], va[36], vb[36];
            sk_clip_track_keys(ca, t, ta, va);
            sk_clip_track_keys(cb, u, tb, vb);
            size_t nv = (size_t)ia.key_count * ia.width * (ia.interpolation == SK_INTERP_CUBICSPLINE ? 3 : 1);
            assert_true(memcmp(ta, tb, ia.key_count * 4) == 0);
            assert_true(memcmp(va, vb, nv * 4) == 0);
        }
        assert_true(found);
    }
    sk_asset_destroy(b);

    /* Inconsistent assets are refused with a message. */
    int32_t *jm = (int32_t *)a->joint_mesh;
    jm[0] = 5;
    assert_int_equal(sk_glb_write_memory(a, &data, &size, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "mesh"));
    assert_null(data);
    jm[0] = -1;
    uint32_t *n2j = (uint32_t *)a->node_to_joint;
    n2j[0] = n2j[1];
    assert_int_equal(sk_glb_write_memory(a, &data, &size, &err), SK_ERR_INVALID_ARGUMENT);
    sk_asset_destroy(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_structure),
        cmocka_unit_test(test_height_and_segments),
        cmocka_unit_test(test_clips),
        cmocka_unit_test(test_speeds),
        cmocka_unit_test(test_walk_feet),
        cmocka_unit_test(test_run_feet),
        cmocka_unit_test(test_walk_back_feet),
        cmocka_unit_test(test_strafe_feet),
        cmocka_unit_test(test_strafe_no_cross),
        cmocka_unit_test(test_idle_feet),
        cmocka_unit_test(test_skinned_ground),
        cmocka_unit_test(test_glb_container),
        cmocka_unit_test(test_glb_round_trip),
        cmocka_unit_test(test_glb_synthetic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
