/* Captured walks and runs driving other characters' locomotion, through the
 * public API only: the CMU walk 02_01 and run 09_11 (BVH) retargeted onto the
 * built-in mannequin and onto CesiumMan (glTF) with the source's rest stood
 * on the ground (SK_RETARGET_GROUND_REST), each clip's cycle found (sk_motion_find_cycle) and
 * analysed, its planted phases widened to the capture's own on its own skeleton
 * (sk_motion_analysis_widen_planted), a motion group and a locomotor built; the character then walks
 * 10 m at 1.4 m/s and runs 10 m at 3 m/s on flat ground.
 *
 * The references are written here, not taken from the tool's metric code:
 *   - SK_RETARGET_GROUND_REST against the same retargeter given a source
 *     rest pose whose roots were raised by the shift computed here (the
 *     rest hip joints' heights by this file's forward kinematics): the baked
 *     clips agree key for key;
 *   - from the locomotor's per-frame heel and toe (world; the ground is
 *     y = 0): slide = per run of stance frames of a foot, the largest
 *     horizontal distance of the heel-toe midpoint from its first frame;
 *     contact = in stance, the smaller of |heel y| and |toe y|;
 *     penetration = at any frame, how far heel or toe is below y = 0;
 *     skate = of the frames in which the lower of heel and toe is within
 *     2 cm of the ground, the share in which that point moves faster than
 *     30 cm/s horizontally; stance share = frames with the stance flag set,
 *     per foot, over the frames at cruise speed;
 *   - the character gets there: its ground point ends within 0.3 m of the
 *     path's end, and every pose and foot is finite.
 * Limits: slide < 0.5 cm, contact < 1 cm, penetration < 1 cm, skate <= 0.15
 * (walks), stance share 30-60 % (walks) and 15-40 % (runs).
 *
 * Not met yet (the limits stay): the targets listed in open_gaps below are
 * reported as OPEN with the value they had when written down as a bound
 * they must not exceed; any other target missed fails. */
#include "support.h"

#include "skelanim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMU_SCALE 0.056444
#define NCHAR 2
#define NGAIT 2

/* What one run measured. */
typedef struct run_result {
    const char *character, *gait;
    double speed;
    uint32_t frames, cruise_frames, stance_runs;
    uint32_t stance_cruise[2];
    double slide_max, contact_max, penetration_max, skate;
    uint32_t skate_low;       /* frames with a foot within 2 cm of the ground */
    float end_distance;       /* ground point to the path's end at the last frame (m) */
    bool finite;
} run_result;

static run_result g_runs[NCHAR * NGAIT];
static uint32_t g_nruns;
static bool g_loaded;

/* ---- Loading ------------------------------------------------------------- */

static sk_asset *load_bvh(const char *shared, const char *name) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/mocap/bvh", shared);
    return sk_test_load_bvh(dir, name, CMU_SCALE);
}

/* Model positions at rest from local transforms, by this file's own
 * forward kinematics (unit scales: checked by the caller). */
static void rest_model(const sk_skeleton *s, const sk_transform *local, sk_vec3 *pos, sk_quat *rot) {
    for (uint32_t j = 0; j < s->joint_count; j++) {
        int32_t p = s->parents[j];
        if (p < 0) {
            pos[j] = local[j].t, rot[j] = local[j].r;
            continue;
        }
        pos[j] = sk_vec3_add(pos[p], sk_quat_rotate(rot[p], local[j].t));
        rot[j] = sk_quat_normalize(sk_quat_mul(rot[p], local[j].r));
    }
}

static bool unit_scales(const sk_skeleton *s) {
    for (uint32_t j = 0; j < s->joint_count; j++) {
        sk_vec3 c = s->rest[j].s;
        if (fabsf(c.x - 1.0f) > 1e-4f || fabsf(c.y - 1.0f) > 1e-4f || fabsf(c.z - 1.0f) > 1e-4f) return false;
    }
    return true;
}

/* ---- The reference for SK_RETARGET_GROUND_REST ----------------------------- */

/* The source rest with its roots raised so that its hip joints stand at
 * the target's rest hip joint height over the root scale (both Y-up here,
 * the CMU capture and both targets), and the clip baked with it and with
 * the flag: the same keys. */
static void check_ground_rest(const sk_asset *src, const sk_asset *dst) {
    const sk_skeleton *s = src->skeleton, *t = dst->skeleton;
    assert_true(unit_scales(s));
    assert_true(unit_scales(t));
    sk_error err = {0};
    sk_retarget_desc d;
    memset(&d, 0, sizeof d);
    d.source = s, d.target = t;
    sk_retarget *plain = NULL, *flag = NULL, *raised = NULL;
    assert_int_equal(sk_retarget_create(&d, NULL, &plain, &err), SK_OK);
    const sk_humanoid_map *sm = sk_retarget_map(plain, 0), *tm = sk_retarget_map(plain, 1);
    float k = sk_retarget_root_scale(plain);
    sk_vec3 *sp = calloc(s->joint_count, sizeof *sp), *tp = calloc(t->joint_count, sizeof *tp);
    sk_quat *sr = calloc(s->joint_count, sizeof *sr), *tr = calloc(t->joint_count, sizeof *tr);
    sk_transform *rest = calloc(s->joint_count, sizeof *rest);
    assert_true(sp && tp && sr && tr && rest);
    memcpy(rest, s->rest, s->joint_count * sizeof *rest);
    rest_model(s, s->rest, sp, sr);
    rest_model(t, t->rest, tp, tr);
    float hs = 0.5f * (sp[sm->joint[SK_HUMANOID_LEFT_UPPER_LEG]].y + sp[sm->joint[SK_HUMANOID_RIGHT_UPPER_LEG]].y);
    float ht = 0.5f * (tp[tm->joint[SK_HUMANOID_LEFT_UPPER_LEG]].y + tp[tm->joint[SK_HUMANOID_RIGHT_UPPER_LEG]].y);
    float shift = ht / k - hs;
    for (uint32_t j = 0; j < s->joint_count; j++)
        if (s->parents[j] < 0) rest[j].t.y += shift;
    sk_pose rest_pose = sk_pose_view(rest, s->joint_count, NULL, 0);
    sk_retarget_desc d2 = d;
    d2.source_rest = &rest_pose;
    assert_int_equal(sk_retarget_create(&d2, NULL, &raised, &err), SK_OK);
    d.flags = SK_RETARGET_GROUND_REST;
    assert_int_equal(sk_retarget_create(&d, NULL, &flag, &err), SK_OK);
    assert_float_equal(sk_retarget_root_scale(flag), k, 1e-6f);
    sk_clip *a = NULL, *b = NULL, *c = NULL;
    assert_int_equal(sk_retarget_clip(flag, src->clips[0], NULL, NULL, &a, &err), SK_OK);
    assert_int_equal(sk_retarget_clip(raised, src->clips[0], NULL, NULL, &b, &err), SK_OK);
    assert_int_equal(sk_retarget_clip(plain, src->clips[0], NULL, NULL, &c, &err), SK_OK);
    /* Compare the hips' model height and every joint's local rotation at 30 times. */
    sk_transform *la = calloc(t->joint_count, sizeof *la), *lb = calloc(t->joint_count, sizeof *lb);
    sk_transform *lc = calloc(t->joint_count, sizeof *lc);
    assert_true(la && lb && lc);
    double dur = sk_clip_duration(a);
    float max_t = 0, max_r = 0, plain_dy = 0;
    int32_t hips = tm->joint[SK_HUMANOID_HIPS];
    for (int i = 0; i <= 30; i++) {
        double time = dur * i / 30.0;
        assert_int_equal(sk_clip_sample(a, t, time, SK_LOOP_CLAMP, SK_POSE_OF(t, la, NULL), NULL), SK_OK);
        assert_int_equal(sk_clip_sample(b, t, time, SK_LOOP_CLAMP, SK_POSE_OF(t, lb, NULL), NULL), SK_OK);
        assert_int_equal(sk_clip_sample(c, t, time, SK_LOOP_CLAMP, SK_POSE_OF(t, lc, NULL), NULL), SK_OK);
        for (uint32_t j = 0; j < t->joint_count; j++) {
            float dt = sk_vec3_length(sk_vec3_sub(la[j].t, lb[j].t));
            float dq = fabsf(sk_quat_dot(la[j].r, lb[j].r));
            if (dt > max_t) max_t = dt;
            if (1.0f - dq > max_r) max_r = 1.0f - dq;
        }
        plain_dy = fmaxf(plain_dy, sk_vec3_length(sk_vec3_sub(la[hips].t, lc[hips].t)));
    }
    printf("  ground rest %s: flag vs raised rest: translation %.2e m, rotation 1-|dot| %.2e; "
           "without the flag the hips move by %.3f m\n", sk_clip_name(src->clips[0]), (double)max_t, (double)max_r,
           (double)plain_dy);
    assert_true(max_t < 1e-4f);
    assert_true(max_r < 1e-5f);
    /* the flag does something: the CMU rest has its root at the origin */
    assert_true(plain_dy > 0.05f);
    free(la), free(lb), free(lc), free(sp), free(tp), free(sr), free(tr), free(rest);
    sk_clip_destroy(a), sk_clip_destroy(b), sk_clip_destroy(c);
    sk_retarget_destroy(plain), sk_retarget_destroy(flag), sk_retarget_destroy(raised);
}

/* ---- Retarget, restore, analyse ------------------------------------------ */

/* src's first clip on dst: baked with the ground rest (no contact
 * restoration: the locomotor places the feet itself, and ankles pinned over
 * the source's whole contacts roll the foot through a planted phase half the
 * cycle long; docs/locomotion.md). Writes the target's legs (from its
 * humanoid map). */
static sk_clip *retarget_capture(const sk_asset *src, const sk_asset *dst, sk_leg_desc dst_legs[2]) {
    sk_error err = {0};
    sk_retarget_desc d;
    memset(&d, 0, sizeof d);
    d.source = src->skeleton, d.target = dst->skeleton, d.flags = SK_RETARGET_GROUND_REST;
    sk_retarget *rt = NULL;
    if (sk_retarget_create(&d, NULL, &rt, &err) != SK_OK) fail_msg("%s", err.message);
    sk_clip *baked = NULL;
    if (sk_retarget_clip(rt, src->clips[0], NULL, NULL, &baked, &err) != SK_OK) fail_msg("%s", err.message);
    assert_int_equal(sk_legs_from_humanoid(sk_retarget_map(rt, 1), dst_legs, 2), 2);
    sk_retarget_destroy(rt);
    return baked;
}

/* Heel and toe points found at rest need not reach the ground together in
 * a retargeted walk: the heel point is moved (in the world, at the walk's
 * stance time) to the toe's lowest height over the cycle, as a user of the
 * API would before analysing again. True when a leg changed. */
static bool level_heels(const sk_skeleton *skel, const sk_clip *clip, const sk_motion_analysis *an,
                        const sk_motion_analysis_options *o, sk_leg_desc legs[2]) {
    bool changed = false;
    sk_transform *local = calloc(skel->joint_count, sizeof *local);
    sk_mat4 *model = calloc(skel->joint_count, sizeof *model);
    assert_true(local && model);
    for (int l = 0; l < 2; l++) {
        const sk_leg_analysis *L = &an->legs[l];
        float d = L->toe_ground - L->heel_ground;
        if (fabsf(d) < 0.005f) continue;
        double t = o->cycle_start + L->stance_time * an->cycle_duration;
        assert_int_equal(sk_clip_sample(clip, skel, t, SK_LOOP_CLAMP, SK_POSE_OF(skel, local, NULL), NULL), SK_OK);
        assert_int_equal(sk_local_to_model(skel, SK_POSE_OF(skel, local, NULL), NULL, model, skel->joint_count, NULL),
                         SK_OK);
        sk_transform ta;
        assert_true(sk_mat4_decompose(&model[legs[l].ankle], &ta));
        sk_vec3 off = sk_quat_rotate(sk_quat_inverse(ta.r), sk_vec3_make(0, d, 0));
        legs[l].heel = sk_vec3_add(legs[l].heel, sk_vec3_make(off.x / ta.s.x, off.y / ta.s.y, off.z / ta.s.z));
        legs[l].heel_set = true;
        changed = true;
    }
    free(local);
    free(model);
    return changed;
}

/* The character's feet per frame, and the metrics of the top. */
static void walk_path(const char *character, const char *gait, sk_locomotor *L, const sk_skeleton *skel, double speed,
                      run_result *out) {
    sk_error err = {0};
    const float pts[4] = {0, 0, 0, 10};
    sk_path_follower pf;
    sk_path_follower_desc pd = {pts, 2, (float)speed, 0, 0, 0, NAN, false};
    assert_int_equal(sk_path_follower_init(&pf, &pd, &err), SK_OK);
    assert_int_equal(sk_locomotor_reset(L, pf.x, pf.z, pf.yaw, &err), SK_OK);
    sk_transform *local = calloc(skel->joint_count, sizeof *local);
    assert_non_null(local);
    sk_pose pose = sk_pose_view(local, skel->joint_count, NULL, 0);
    memset(out, 0, sizeof *out);
    out->character = character, out->gait = gait, out->speed = speed, out->finite = true;
    const double dt = 1.0 / 60;
    bool in_run[2] = {false, false};
    sk_vec3 run_start[2], prev_low[2];
    bool have_prev[2] = {false, false};
    double finished_at = -1;
    for (uint32_t f = 0; f < 60 * 30; f++) {
        sk_path_follower_step(&pf, dt);
        if (sk_locomotor_update(L, dt, pf.x, pf.z, pf.yaw, &pose, &err) != SK_OK) fail_msg("%s", err.message);
        const sk_locomotor_state *st = sk_locomotor_get_state(L);
        for (uint32_t j = 0; j < skel->joint_count; j++) {
            const sk_transform *x = &local[j];
            if (!isfinite(x->t.x + x->t.y + x->t.z + x->r.x + x->r.y + x->r.z + x->r.w)) out->finite = false;
        }
        bool cruise = fabsf(pf.speed - (float)speed) < 1e-3f && !pf.finished;
        out->frames++;
        out->cruise_frames += cruise;
        for (int l = 0; l < 2; l++) {
            const sk_locomotor_foot *ft = &st->feet[l];
            sk_vec3 h = ft->heel, t = ft->toe;
            if (!isfinite(h.x + h.y + h.z + t.x + t.y + t.z)) {
                out->finite = false;
                continue;
            }
            double pen = fmax(0.0, -(double)fminf(h.y, t.y));
            out->penetration_max = fmax(out->penetration_max, pen);
            sk_vec3 low = h.y <= t.y ? h : t;
            if (low.y < 0.02f) {
                out->skate_low++;
                if (have_prev[l] && hypot(low.x - prev_low[l].x, low.z - prev_low[l].z) / dt > 0.30) out->skate += 1;
            }
            prev_low[l] = low, have_prev[l] = true;
            sk_vec3 mid = sk_vec3_scale(sk_vec3_add(h, t), 0.5f);
            if (ft->stance) {
                out->stance_cruise[l] += cruise;
                out->contact_max = fmax(out->contact_max, fmin(fabs(h.y), fabs(t.y)));
                if (!in_run[l]) in_run[l] = true, run_start[l] = mid, out->stance_runs++;
                out->slide_max = fmax(out->slide_max, hypot(mid.x - run_start[l].x, mid.z - run_start[l].z));
            } else {
                in_run[l] = false;
            }
        }
        if (pf.finished && finished_at < 0) finished_at = f * dt;
        if (finished_at >= 0 && f * dt > finished_at + 1.0) break;
    }
    const sk_locomotor_state *st = sk_locomotor_get_state(L);
    out->end_distance = hypotf(st->position.x - pts[2], st->position.z - pts[3]);
    out->skate = out->skate_low ? out->skate / out->skate_low : 0.0;
    free(local);
    printf("  %-9s %-4s %.1f m/s: %u frames (%u at cruise), end %.3f m from the goal, slide %.3f cm, contact %.3f cm, "
           "penetration %.3f cm, skate %.3f, stance %.2f / %.2f\n",
           character, gait, speed, out->frames, out->cruise_frames, (double)out->end_distance, 100 * out->slide_max,
           100 * out->contact_max, 100 * out->penetration_max, out->skate,
           out->cruise_frames ? (double)out->stance_cruise[0] / out->cruise_frames : 0.0,
           out->cruise_frames ? (double)out->stance_cruise[1] / out->cruise_frames : 0.0);
}

/* One character: the walk and the run retargeted, analysed, grouped; walks and runs. */
static void drive(const char *name, const sk_asset *dst, sk_asset *const src[NGAIT]) {
    sk_error err = {0};
    sk_clip *clips[NGAIT];
    sk_motion_analysis *an[NGAIT];
    sk_leg_desc legs[2];
    for (int g = 0; g < NGAIT; g++) {
        sk_leg_desc map[2];
        clips[g] = retarget_capture(src[g], dst, map);
        if (g == 0) { /* heel and toe from the mesh's sole (the skeleton's without a mesh); the same for every clip */
            memcpy(legs, map, sizeof legs);
            assert_int_equal(sk_leg_points_from_mesh(dst, legs, 2, NULL, NULL, &err), SK_OK);
        }
        /* the planted feet flat on those soles (locomotion/footlevel.h), as locomote --from does */
        sk_clip *level = NULL;
        if (sk_foot_level(dst->skeleton, clips[g], legs, 2, NULL, NULL, &level, NULL, &err) != SK_OK)
            fail_msg("%s: %s", name, err.message);
        sk_clip_destroy(clips[g]);
        clips[g] = level;
        sk_motion_analysis_options o;
        memset(&o, 0, sizeof o);
        o.still_band = SK_STILL_BAND_RETARGETED; /* retargeted: a wider still band, as locomote --from */
        if (sk_motion_find_cycle(dst->skeleton, clips[g], legs, 2, 0, NULL, &o.cycle_start, &o.cycle_end, &err) != SK_OK)
            fail_msg("%s: %s", name, err.message);
        assert_true(o.cycle_end - o.cycle_start > 0.4 && o.cycle_end - o.cycle_start < 2.0);
        if (sk_motion_analyze(dst->skeleton, clips[g], legs, 2, &o, NULL, &an[g], &err) != SK_OK)
            fail_msg("%s: %s", name, err.message);
        /* sk_leg_heels_to_ground against the same move worked out here (level_heels) */
        sk_leg_desc mine[2];
        memcpy(mine, legs, sizeof mine);
        for (int l = 0; l < 2; l++) mine[l].heel = an[g]->legs[l].heel_point; /* the points the analysis used */
        bool mine_moved = g == 0 && level_heels(dst->skeleton, clips[0], an[0], &o, mine);
        uint32_t moved = 0;
        if (g == 0 && sk_leg_heels_to_ground(dst->skeleton, clips[0], an[0], legs, 2, NULL, NULL, &moved, &err) != SK_OK)
            fail_msg("%s: %s", name, err.message);
        assert_int_equal(moved > 0, mine_moved);
        for (int l = 0; l < 2 && moved; l++) {
            assert_float_equal(legs[l].heel.x, mine[l].heel.x, 1e-5);
            assert_float_equal(legs[l].heel.y, mine[l].heel.y, 1e-5);
            assert_float_equal(legs[l].heel.z, mine[l].heel.z, 1e-5);
        }
        if (moved) {
            sk_motion_analysis_destroy(an[0]);
            if (sk_motion_analyze(dst->skeleton, clips[0], legs, 2, &o, NULL, &an[0], &err) != SK_OK)
                fail_msg("%s: %s", name, err.message);
            /* analysed again, each heel comes as low as its toe (within the tolerance) */
            for (int l = 0; l < 2; l++)
                assert_true(fabsf(an[0]->legs[l].heel_ground - an[0]->legs[l].toe_ground) < SK_LEG_HEEL_TOLERANCE);
            printf("  %s: heels moved to the toes' ground on %u leg(s)\n", name, moved);
        }
        /* the planted phases widened to the capture's own (analysed on its own skeleton over
         * the same seconds), as locomote --from does */
        sk_leg_desc src_legs[2];
        sk_humanoid_map sm;
        assert_int_equal(sk_humanoid_map_find(src[g]->skeleton, NULL, &sm, &err), SK_OK);
        assert_int_equal(sk_legs_from_humanoid(&sm, src_legs, 2), 2);
        sk_motion_analysis_options so;
        memset(&so, 0, sizeof so);
        so.cycle_start = o.cycle_start, so.cycle_end = o.cycle_end;
        sk_motion_analysis *own = NULL;
        if (sk_motion_analyze(src[g]->skeleton, src[g]->clips[0], src_legs, 2, &so, NULL, &own, &err) != SK_OK ||
            sk_motion_analysis_widen_planted(an[g], own, 0.0f, NULL, &err) != SK_OK)
            fail_msg("%s: %s", name, err.message);
        sk_motion_analysis_destroy(own);
        printf("  %s %s: cycle %.3f-%.3f s, %.2f m/s\n", name, g ? "run" : "walk", o.cycle_start, o.cycle_end,
               (double)an[g]->cycle_speed);
    }
    /* the walk is slower than the run (the group tells them apart by velocity) */
    assert_true(an[0]->cycle_speed > 0.5f && an[0]->cycle_speed < 2.0f);
    assert_true(an[1]->cycle_speed > 1.5f * an[0]->cycle_speed);
    sk_motion_group *group = NULL;
    if (sk_motion_group_create((const sk_motion_analysis *const *)an, NGAIT, NULL, &group, &err) != SK_OK)
        fail_msg("%s", err.message);
    sk_locomotor_desc d;
    memset(&d, 0, sizeof d);
    d.skeleton = dst->skeleton, d.group = group, d.clips = (const sk_clip *const *)clips, d.clip_count = NGAIT;
    d.body_joint = -1;
    sk_locomotor *L = NULL;
    if (sk_locomotor_create(&d, NULL, &L, &err) != SK_OK) fail_msg("%s", err.message);
    walk_path(name, "walk", L, dst->skeleton, 1.4, &g_runs[g_nruns++]);
    walk_path(name, "run", L, dst->skeleton, 3.0, &g_runs[g_nruns++]);
    sk_locomotor_destroy(L);
    sk_motion_group_destroy(group);
    for (int g = 0; g < NGAIT; g++) {
        sk_motion_analysis_destroy(an[g]);
        sk_clip_destroy(clips[g]);
    }
}

/* Loads, retargets and runs everything once (the tests below read g_runs). */
static void run_all(void) {
    if (g_loaded) return;
    const char *shared = sk_test_require_shared();
    sk_asset *src[NGAIT] = {load_bvh(shared, "02_01.bvh"), load_bvh(shared, "09_11_fbx2bvh.bvh")};
    sk_asset *dst[NCHAR] = {NULL, NULL};
    sk_error err = {0};
    assert_int_equal(sk_mannequin_create(NULL, NULL, &dst[0], &err), SK_OK);
    char path[1024];
    snprintf(path, sizeof path, "%s/assets/gltf/CesiumMan/CesiumMan.glb", shared);
    if (sk_gltf_load_file(path, NULL, &dst[1], &err) != SK_OK) fail_msg("%s", err.message);
    const char *names[NCHAR] = {"mannequin", "CesiumMan"};
    for (int c = 0; c < NCHAR; c++) drive(names[c], dst[c], src);
    for (int c = 0; c < NCHAR; c++) sk_asset_destroy(dst[c]);
    for (int g = 0; g < NGAIT; g++) sk_asset_destroy(src[g]);
    g_loaded = true;
}

/* ---- Tests ----------------------------------------------------------------- */

static void test_ground_rest(void **state) {
    (void)state;
    const char *shared = sk_test_require_shared();
    sk_asset *src = load_bvh(shared, "02_01.bvh"), *dst = NULL;
    sk_error err = {0};
    assert_int_equal(sk_mannequin_create(NULL, NULL, &dst, &err), SK_OK);
    check_ground_rest(src, dst);
    sk_asset_destroy(dst);
    char path[1024];
    snprintf(path, sizeof path, "%s/assets/gltf/CesiumMan/CesiumMan.glb", shared);
    if (sk_gltf_load_file(path, NULL, &dst, &err) != SK_OK) fail_msg("%s", err.message);
    check_ground_rest(src, dst);
    sk_asset_destroy(dst);
    sk_asset_destroy(src);
}

/* Gets there, every pose and foot finite, and steps (a stance run per foot
 * and step over 10 m). */
static void test_gets_there(void **state) {
    (void)state;
    run_all();
    assert_int_equal(g_nruns, NCHAR * NGAIT); /* the cases checked */
    int bad = 0;
    for (uint32_t i = 0; i < g_nruns; i++) {
        const run_result *r = &g_runs[i];
        const char *why = !r->finite               ? "a non-finite pose or foot"
                          : r->end_distance > 0.3f ? "did not get to the end of the path"
                          : r->stance_runs < 8     ? "fewer than 8 stance runs over 10 m"
                                                   : NULL;
        if (why) {
            fprintf(stderr, "FAIL %s %s %.1f m/s: %s\n", r->character, r->gait, r->speed, why);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

/* The targets these captures do not meet yet (docs/locomotion.md,
 * "Clips from captures on any character"), each with the value measured when
 * it was written down, as a ceiling (a floor for a stance share) that must
 * not get worse: a gap reported, not hidden, and not allowed to grow. Any
 * target missed that is not listed fails. */
typedef struct open_gap {
    const char *character, *gait, *metric;
    double bound; /* slide/contact/penetration in cm, skate a share: at most; stance: at least */
} open_gap;
static const open_gap open_gaps[] = {
    /* the retargeted run's right foot on CesiumMan (a 0.52 m leg under a 0.86 m runner's angles):
     * 0.108 of the frames at cruise speed, 12 of 111 (29 Nov 2026; the bound a frame or two below) */
    {"CesiumMan", "run", "stance", 0.09},
};

/* A target missed: 0 when it is an open gap within its bound (printed),
 * 1 otherwise (printed as a failure). floor: the bound is a minimum. */
static int missed(const run_result *r, const char *metric, double value, bool floor, const char *what) {
    for (size_t i = 0; i < sizeof open_gaps / sizeof open_gaps[0]; i++) {
        const open_gap *g = &open_gaps[i];
        if (strcmp(g->character, r->character) || strcmp(g->gait, r->gait) || strcmp(g->metric, metric)) continue;
        bool held = floor ? value >= g->bound : value <= g->bound;
        fprintf(stderr, "%s %s %s %.1f m/s: %s (open: %s %.3g)\n", held ? "OPEN" : "FAIL", r->character, r->gait,
                r->speed, what, floor ? "at least" : "at most", g->bound);
        return held ? 0 : 1;
    }
    fprintf(stderr, "FAIL %s %s %.1f m/s: %s\n", r->character, r->gait, r->speed, what);
    return 1;
}

/* Feet on the ground and planted: slide, contact, penetration. */
static void test_feet(void **state) {
    (void)state;
    run_all();
    assert_int_equal(g_nruns, NCHAR * NGAIT);
    int bad = 0;
    char what[160];
    for (uint32_t i = 0; i < g_nruns; i++) {
        const run_result *r = &g_runs[i];
        if (r->slide_max >= 0.005) {
            snprintf(what, sizeof what, "slide %.3f cm >= 0.5 cm", 100 * r->slide_max);
            bad += missed(r, "slide", 100 * r->slide_max, false, what);
        }
        if (r->contact_max >= 0.01) {
            snprintf(what, sizeof what, "contact %.3f cm >= 1 cm", 100 * r->contact_max);
            bad += missed(r, "contact", 100 * r->contact_max, false, what);
        }
        if (r->penetration_max >= 0.01) {
            snprintf(what, sizeof what, "penetration %.3f cm >= 1 cm", 100 * r->penetration_max);
            bad += missed(r, "penetration", 100 * r->penetration_max, false, what);
        }
    }
    assert_int_equal(bad, 0);
}

/* The share of planted frames and the skate. */
static void test_stance_share(void **state) {
    (void)state;
    run_all();
    assert_int_equal(g_nruns, NCHAR * NGAIT);
    int bad = 0;
    char what[160];
    for (uint32_t i = 0; i < g_nruns; i++) {
        const run_result *r = &g_runs[i];
        bool walk = !strcmp(r->gait, "walk");
        double lo = walk ? 0.30 : 0.15, hi = walk ? 0.60 : 0.40;
        assert_true(r->cruise_frames > 60);
        for (int l = 0; l < 2; l++) {
            double share = (double)r->stance_cruise[l] / r->cruise_frames;
            if (share < lo || share > hi) {
                snprintf(what, sizeof what, "%s foot in stance %.3f of the frames at cruise speed, not in [%.2f, %.2f]",
                         l ? "right" : "left", share, lo, hi);
                bad += share > hi ? missed(r, "stance-high", share, false, what) : missed(r, "stance", share, true, what);
            }
        }
        if (walk && r->skate > 0.15) {
            snprintf(what, sizeof what, "skate %.3f > 0.15", r->skate);
            bad += missed(r, "skate", r->skate, false, what);
        }
    }
    assert_int_equal(bad, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ground_rest),
        cmocka_unit_test(test_gets_there),
        cmocka_unit_test(test_feet),
        cmocka_unit_test(test_stance_share),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
