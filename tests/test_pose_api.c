/* The per-frame API's conventions (docs/architecture.md): poses carry their
 * counts and every function checks them; one loop enum with ping-pong
 * sampling; partial local-to-model after IK; palette sizes; asset
 * validation for assets built in code; blend spaces larger than any fixed
 * scratch keep their root motion. */
#include "support.h"
#include "core/math_inline.h"

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

static void test_pose_counts_checked(void **state) {
    (void)state;
    sk_asset *a = mannequin();
    const sk_skeleton *s = a->skeleton;
    uint32_t n = s->joint_count;
    sk_transform *buf = calloc(n + 1, sizeof *buf);
    sk_transform sentinel;
    memset(&sentinel, 0x5a, sizeof sentinel);
    buf[n - 1] = sentinel;
    sk_error err = {0};
    /* one joint short: refused, nothing written past what was given */
    sk_pose small = sk_pose_view(buf, n - 1, NULL, 0);
    assert_int_equal(sk_clip_sample(a->clips[1], s, 0.2, SK_LOOP_REPEAT, &small, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "joints"));
    assert_memory_equal(&buf[n - 1], &sentinel, sizeof sentinel);
    sk_mat4 *model = calloc(n, sizeof *model);
    assert_int_equal(sk_local_to_model(s, &small, NULL, model, n, &err), SK_ERR_INVALID_ARGUMENT);
    /* the right size works; room for fewer matrices than joints does not */
    sk_pose ok = sk_pose_view(buf, n, NULL, 0);
    assert_int_equal(sk_clip_sample(a->clips[1], s, 0.2, SK_LOOP_REPEAT, &ok, &err), SK_OK);
    assert_int_equal(sk_local_to_model(s, &ok, NULL, model, n - 1, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_local_to_model(s, &ok, NULL, model, n, &err), SK_OK);
    /* morph weights: 0 (none) or the skeleton's count; anything else refused */
    float w[4];
    sk_pose bad_w = sk_pose_view(buf, n, w, 3);
    assert_int_equal(sk_pose_rest(s, &bad_w, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "morph weights"));
    sk_pose null_arr = sk_pose_view(NULL, n, NULL, 0);
    assert_int_equal(sk_pose_rest(s, &null_arr, &err), SK_ERR_INVALID_ARGUMENT);
    /* a cursor shorter than sk_clip_cursor_size is refused (one entry per
     * track, or one for a frame-major clip: the mannequin's are) */
    uint32_t cur[2] = {0, 0};
    assert_true(sk_clip_is_frame_major(a->clips[1]));
    assert_int_equal(sk_clip_cursor_size(a->clips[1]), 1);
    assert_int_equal(sk_clip_sample_cursor(a->clips[1], s, 0.2, SK_LOOP_REPEAT, cur, 0, &ok, &err),
                     SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "cursor"));
    assert_int_equal(sk_clip_sample_cursor(a->clips[1], s, 0.2, SK_LOOP_REPEAT, cur, 1, &ok, &err), SK_OK);
    /* palette: too small or a model array shorter than the skin's joints */
    const sk_skin *skin = &a->skins[0];
    sk_mat4 *pal = calloc(skin->joint_count, sizeof *pal);
    assert_int_equal(sk_skin_palette(skin, model, n, pal, skin->joint_count - 1, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_skin_palette(skin, model, 1, pal, skin->joint_count, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_skin_palette(skin, model, n, pal, skin->joint_count, &err), SK_OK);
    /* blending checks every input */
    sk_pose other = sk_pose_view(calloc(n, sizeof(sk_transform)), n, NULL, 0);
    assert_int_equal(sk_blend_two(s, &ok, &small, 0.5f, NULL, false, &other, &err), SK_ERR_INVALID_ARGUMENT);
    sk_blend_input in[2] = {{&ok, 1.0f, NULL, NULL}, {&small, 1.0f, NULL, NULL}};
    assert_int_equal(sk_blend_poses(s, in, 2, NULL, &other, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "input 1"));
    free(other.local);
    free(pal);
    free(model);
    free(buf);
    sk_asset_destroy(a);
}

/* PING_PONG folds t into [0, d] with period 2d: closed form checks. */
static void test_ping_pong_wrap(void **state) {
    (void)state;
    sk_asset *a = mannequin();
    const sk_clip *c = a->clips[1];
    double d = sk_clip_duration(c);
    const double cases[][2] = {{0.25, 0.25}, {1.25, 0.75}, {2.1, 0.1}, {-0.25, 0.25}, {3.5, 0.5}, {1.0, 1.0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double got = sk_clip_wrap_time(c, cases[i][0] * d, SK_LOOP_PING_PONG);
        assert_true(fabs(got - cases[i][1] * d) < 1e-9 * d);
    }
    /* sampling at t in the backward half equals sampling at its mirror */
    uint32_t n = a->skeleton->joint_count;
    sk_pose p1, p2;
    assert_int_equal(sk_pose_alloc(a->skeleton, NULL, &p1, NULL), SK_OK);
    assert_int_equal(sk_pose_alloc(a->skeleton, NULL, &p2, NULL), SK_OK);
    assert_int_equal(sk_clip_sample(c, a->skeleton, 1.3 * d, SK_LOOP_PING_PONG, &p1, NULL), SK_OK);
    assert_int_equal(sk_clip_sample(c, a->skeleton, 2.0 * d - 1.3 * d, SK_LOOP_REPEAT, &p2, NULL), SK_OK);
    for (uint32_t j = 0; j < n; j++) {
        assert_true(fabsf(p1.local[j].t.y - p2.local[j].t.y) < 1e-6f);
        assert_true(fabsf(p1.local[j].r.x - p2.local[j].r.x) < 1e-6f);
    }
    /* the player takes the same enum */
    sk_player pl;
    sk_player_desc pd = {.duration = d, .loop = SK_LOOP_PING_PONG};
    sk_player_init(&pl, &pd);
    sk_player_step(&pl, 1.3 * d, NULL, 0, NULL, NULL);
    assert_true(fabs(sk_player_clip_time(&pl) - 0.7 * d) < 1e-9);
    sk_pose_free(&p1, NULL);
    sk_pose_free(&p2, NULL);
    sk_asset_destroy(a);
}

/* After IK on the left leg, updating the hip's subtree gives exactly what a
 * full local-to-model gives; joints outside the range keep their values. */
static void test_partial_local_to_model(void **state) {
    (void)state;
    sk_asset *a = mannequin();
    const sk_skeleton *s = a->skeleton;
    uint32_t n = s->joint_count;
    sk_pose pose;
    assert_int_equal(sk_pose_alloc(s, NULL, &pose, NULL), SK_OK);
    assert_int_equal(sk_clip_sample(a->clips[1], s, 0.41, SK_LOOP_REPEAT, &pose, NULL), SK_OK);
    sk_mat4 *full = calloc(n, sizeof *full), *part = calloc(n, sizeof *part);
    assert_int_equal(sk_local_to_model(s, &pose, NULL, part, n, NULL), SK_OK);
    uint32_t chain[8], count;
    assert_int_equal(sk_ik_chain_find_named(s, "thigh_l", "foot_l", chain, 8, &count, NULL), SK_OK);
    sk_ik_chain c = {.skeleton = s, .joints = chain, .count = count};
    sk_ik_target t = {.position = {0.15f, 0.2f, 0.25f}};
    sk_ik_options o = {.solver = SK_IK_TWO_BONE};
    assert_int_equal(sk_ik_solve(&c, &t, &o, &pose, NULL, 0, NULL, NULL), SK_OK);
    uint32_t end = sk_skeleton_subtree_end(s, chain[0]);
    /* [chain[0], end) are descendants of the hip joint, and end is not */
    for (uint32_t j = chain[0]; j < n; j++) {
        int32_t p = (int32_t)j;
        while (p > (int32_t)chain[0]) p = s->parents[p];
        assert_true((p == (int32_t)chain[0]) == (j < end));
        if (j >= end) break;
    }
    assert_true(end > chain[2]);
    sk_mat4 before_end = end < n ? part[end] : sk_mat4_identity();
    assert_int_equal(sk_local_to_model_range(s, &pose, NULL, chain[0], end, part, n, NULL), SK_OK);
    assert_int_equal(sk_local_to_model(s, &pose, NULL, full, n, NULL), SK_OK);
    assert_memory_equal(part, full, sizeof(sk_mat4) * end);
    if (end < n) assert_memory_equal(&part[end], &before_end, sizeof(sk_mat4));
    /* the foot reached the target */
    assert_true(fabsf(full[chain[2]].m[12] - 0.15f) < 1e-4f && fabsf(full[chain[2]].m[13] - 0.2f) < 1e-4f);
    sk_error err;
    assert_int_equal(sk_local_to_model_range(s, &pose, NULL, 5, 3, part, n, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_local_to_model_range(s, &pose, NULL, 0, n + 1, part, n, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_skeleton_subtree_end(s, n), 0);
    free(full);
    free(part);
    sk_pose_free(&pose, NULL);
    sk_asset_destroy(a);
}

/* The masked forward kinematics: the marked joints (a leg and its
 * ancestors) get exactly what a full local-to-model gives, the others keep
 * their values; the rest filled in afterwards (the complement mask) gives
 * the full result, bit for bit; a root matrix places every joint; bad
 * arguments leave the output untouched. */
static void test_masked_local_to_model(void **state) {
    (void)state;
    sk_asset *a = mannequin();
    const sk_skeleton *s = a->skeleton;
    uint32_t n = s->joint_count;
    sk_pose pose;
    assert_int_equal(sk_pose_alloc(s, NULL, &pose, NULL), SK_OK);
    assert_int_equal(sk_clip_sample(a->clips[2], s, 0.23, SK_LOOP_REPEAT, &pose, NULL), SK_OK);
    sk_mat4 *full = calloc(n, sizeof *full), *part = calloc(n, sizeof *part), *placed = calloc(n, sizeof *placed);
    bool *need = calloc(n, sizeof *need), *rest = calloc(n, sizeof *rest);
    int32_t toe = sk_skeleton_find(s, "toe_r");
    assert_true(toe >= 0);
    for (int32_t j = toe; j >= 0; j = s->parents[j]) need[j] = true;
    for (uint32_t j = 0; j < n; j++) rest[j] = !need[j];
    const sk_mat4 poison = {{7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7}};
    for (uint32_t j = 0; j < n; j++) part[j] = poison;
    assert_int_equal(sk_local_to_model(s, &pose, NULL, full, n, NULL), SK_OK);
    assert_int_equal(sk_local_to_model_masked(s, &pose, NULL, 0, 0, need, part, n, NULL), SK_OK);
    uint32_t marked = 0;
    for (uint32_t j = 0; j < n; j++) {
        if (need[j]) {
            marked++;
            assert_memory_equal(&part[j], &full[j], sizeof(sk_mat4));
        } else {
            assert_memory_equal(&part[j], &poison, sizeof(sk_mat4));
        }
    }
    assert_true(marked >= 4 && marked < n);
    assert_int_equal(sk_local_to_model_masked(s, &pose, NULL, 0, n, rest, part, n, NULL), SK_OK);
    assert_memory_equal(part, full, sizeof(sk_mat4) * n);
    /* need NULL: the range form, and sk_local_to_model under a root */
    sk_transform rt = {{1, 0.5f, -2}, sk_quat_from_axis_angle(sk_vec3_make(0, 1, 0), 0.7f), {1, 1, 1}};
    sk_mat4 root = sk_mat4_from_transform(&rt);
    assert_int_equal(sk_local_to_model(s, &pose, &root, full, n, NULL), SK_OK);
    assert_int_equal(sk_local_to_model_masked(s, &pose, &root, 0, 0, NULL, placed, n, NULL), SK_OK);
    assert_memory_equal(placed, full, sizeof(sk_mat4) * n);
    /* errors: nothing written */
    sk_error err;
    for (uint32_t j = 0; j < n; j++) part[j] = poison;
    assert_int_equal(sk_local_to_model_masked(s, &pose, NULL, 5, 3, need, part, n, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_local_to_model_masked(s, &pose, NULL, 0, n + 1, need, part, n, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_local_to_model_masked(s, &pose, NULL, 0, 0, need, part, n - 1, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(sk_local_to_model_masked(s, &pose, NULL, 0, 0, need, NULL, n, &err), SK_ERR_INVALID_ARGUMENT);
    sk_pose short_pose = sk_pose_view(pose.local, n - 1, NULL, 0);
    assert_int_equal(sk_local_to_model_masked(s, &short_pose, NULL, 0, 0, need, part, n, &err), SK_ERR_INVALID_ARGUMENT);
    for (uint32_t j = 0; j < n; j++) assert_memory_equal(&part[j], &poison, sizeof(sk_mat4));
    free(full);
    free(part);
    free(placed);
    free(need);
    free(rest);
    sk_pose_free(&pose, NULL);
    sk_asset_destroy(a);
}

/* An asset built in code with a bad index is caught, with its place named;
 * the same asset corrected passes; the mannequin passes. */
static void test_asset_validate(void **state) {
    (void)state;
    sk_asset *m = mannequin();
    sk_error err;
    assert_int_equal(sk_asset_validate(m, &err), SK_OK);
    sk_asset_destroy(m);

    sk_asset *a;
    assert_int_equal(sk_asset_create_empty(NULL, &a, &err), SK_OK);
    int32_t parents[2] = {-1, 0};
    sk_skeleton_desc sd = {.joint_count = 2, .parents = parents};
    assert_int_equal(sk_skeleton_create(&sd, sk_asset_allocator(a), &a->skeleton, &err), SK_OK);
    a->node_count = 2;
    float *pos = sk_asset_alloc(a, sizeof(float) * 9);
    uint32_t *idx = sk_asset_alloc(a, sizeof(uint32_t) * 3);
    idx[0] = 0, idx[1] = 1, idx[2] = 3; /* 3 >= vertex count */
    sk_primitive *prim = sk_asset_alloc(a, sizeof *prim);
    prim->mode = 4, prim->vertex_count = 3, prim->positions = pos, prim->index_count = 3, prim->indices = idx;
    prim->material = -1;
    sk_mesh *mesh = sk_asset_alloc(a, sizeof *mesh);
    mesh->name = "", mesh->primitive_count = 1, mesh->primitives = prim;
    int32_t *jm = sk_asset_alloc(a, sizeof(int32_t) * 2), *js = sk_asset_alloc(a, sizeof(int32_t) * 2);
    jm[0] = -1, jm[1] = 0, js[0] = js[1] = -1;
    a->meshes = mesh, a->mesh_count = 1, a->joint_mesh = jm, a->joint_skin = js;
    a->default_scene = -1;
    assert_int_equal(sk_asset_validate(a, &err), SK_ERR_INVALID_DATA);
    assert_non_null(strstr(err.message, "meshes/0/primitives/0: index 3 >= vertex count 3"));
    /* the writer refuses it with the same reason */
    void *glb = NULL;
    size_t size = 0;
    assert_int_not_equal(sk_glb_write_memory(a, &glb, &size, &err), SK_OK);
    assert_non_null(strstr(err.message, "index 3"));
    idx[2] = 2;
    assert_int_equal(sk_asset_validate(a, &err), SK_OK);
    pos[4] = NAN;
    assert_int_equal(sk_asset_validate(a, &err), SK_ERR_INVALID_DATA);
    assert_non_null(strstr(err.message, "not finite"));
    pos[4] = 0.0f;
    jm[1] = 1; /* names a mesh the asset does not have */
    assert_int_equal(sk_asset_validate(a, &err), SK_ERR_INVALID_DATA);
    assert_non_null(strstr(err.message, "joint 1 names mesh 1"));
    sk_asset_destroy(a);
}

/* A blend space of 70 samples on a circle, queried at its centre: gradient
 * band interpolation gives every sample the same weight 1/70 (the centre
 * projects onto every chord's midpoint: influence 1/2 for every pair).
 * Samples 0..63 play walk (1.40 m/s, 1.0667 s cycle), 64..69 run (3.50 m/s,
 * 0.70 s). Blend-space clips run at one phase rate: cycle D = weighted mean
 * of the durations, so in one second clip k covers speed_k * d_k / D metres;
 * root motion is their weighted mean. All 70 must count (a fixed 64-entry
 * scratch once dropped the run samples, giving the walk's figure). */
static void test_large_blendspace_root_motion(void **state) {
    (void)state;
    sk_asset *a = mannequin();
    enum { N = 70, WALKS = 64 };
    char *json = malloc(16384);
    size_t len = (size_t)snprintf(json, 16384,
                                  "{\"parameters\":[{\"name\":\"x\",\"type\":\"float\"},"
                                  "{\"name\":\"y\",\"type\":\"float\"}],"
                                  "\"root_motion\":{\"joint\":\"hips\"},"
                                  "\"machine\":{\"initial\":\"m\",\"states\":[{\"name\":\"m\",\"blendspace\":{"
                                  "\"parameters\":[\"x\",\"y\"],\"mode\":\"cartesian\",\"samples\":[");
    for (int k = 0; k < N; k++) {
        double ang = 2.0 * 3.14159265358979323846 * k / N;
        len += (size_t)snprintf(json + len, 16384 - len, "%s{\"clip\":\"%s\",\"at\":[%.9f,%.9f]}", k ? "," : "",
                                k < WALKS ? "walk" : "run", cos(ang), sin(ang));
    }
    len += (size_t)snprintf(json + len, 16384 - len, "]}}],\"transitions\":[]}}");
    sk_graph *g = NULL;
    sk_graph_instance *in = NULL;
    sk_error err;
    assert_int_equal(sk_graph_load_json(json, len, a->skeleton, a->clips, a->clip_count, NULL, &g, &err), SK_OK);
    assert_int_equal(sk_graph_instance_create(g, NULL, &in, &err), SK_OK);
    double dw = sk_clip_duration(a->clips[sk_asset_find_clip(a, "walk")]);
    double dr = sk_clip_duration(a->clips[sk_asset_find_clip(a, "run")]);
    double D = (WALKS * dw + (N - WALKS) * dr) / N;
    double expect = (WALKS * 1.4 * dw / D + (N - WALKS) * 3.5 * dr / D) / N, walk_only = 1.4 * dw / D;
    double dist = 0.0;
    for (int f = 0; f < 60; f++) {
        sk_graph_update(in, 1.0 / 60.0);
        sk_root_delta d = sk_graph_root_motion(in);
        dist += sqrt((double)d.translation.x * d.translation.x + (double)d.translation.z * d.translation.z);
    }
    printf("70-sample blend space: %.4f m in 1 s; expected %.4f (walk samples alone: %.4f)\n", dist, expect, walk_only);
    /* limit: the clips' own speeds hold to 1% (test_mannequin), far below the 5% the dropped samples make */
    assert_true(fabs(dist - expect) < 0.01 * expect);
    sk_graph_instance_destroy(in);
    sk_graph_destroy(g);
    free(json);
    sk_asset_destroy(a);
}

/* A failed call still initialises the result; angle wrapping ends on any input. */
static void test_failure_paths(void **state) {
    (void)state;
    sk_asset *a = mannequin();
    const sk_skeleton *s = a->skeleton;
    sk_transform *buf = calloc(s->joint_count, sizeof *buf);
    sk_pose small = sk_pose_view(buf, s->joint_count - 1, NULL, 0);
    uint32_t chain[3] = {0, 1, 2};
    sk_ik_chain c = {.skeleton = s, .joints = chain, .count = 3};
    sk_ik_target t = {.position = {0, 1, 0}};
    sk_ik_result res;
    memset(&res, 0x7f, sizeof res);
    sk_error err;
    assert_int_equal(sk_ik_solve(&c, &t, NULL, &small, NULL, 0, &res, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(res.iterations, 0);
    assert_true(res.stretch == 1.0f && res.error == 0.0f);
    memset(&res, 0x7f, sizeof res);
    sk_ik_effector e = {2, {0, 1, 0}};
    assert_int_equal(sk_ik_solve_multi(s, 0, &e, 1, NULL, &small, NULL, 0, &res, &err), SK_ERR_INVALID_ARGUMENT);
    assert_int_equal(res.iterations, 0);
    free(buf);
    sk_asset_destroy(a);
    /* wrapping: non-finite gives 0; huge values land in [-pi, pi] (subtracting 2 pi from 1e30 does nothing) */
    assert_true(skm_wrap_angle(INFINITY) == 0.0f && skm_wrap_angle(-INFINITY) == 0.0f && skm_wrap_angle(NAN) == 0.0f);
    const float big[] = {1e30f, -3e38f, 12345.678f, -100.0f * SKM_PI, 7.0f};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        float w = skm_wrap_angle(big[i]);
        assert_true(w >= -SKM_PI && w <= SKM_PI);
        assert_true(fabs(remainder((double)big[i] - w, 2.0 * 3.14159265358979323846)) < 1e-2 * fmax(1.0, fabs((double)big[i]) * 1e-7));
    }
    assert_true(skm_wrap_angle(7.0f) == 7.0f - 2.0f * SKM_PI); /* the ordinary path is unchanged */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pose_counts_checked),      cmocka_unit_test(test_ping_pong_wrap),
        cmocka_unit_test(test_partial_local_to_model),   cmocka_unit_test(test_masked_local_to_model),
        cmocka_unit_test(test_asset_validate),
        cmocka_unit_test(test_large_blendspace_root_motion), cmocka_unit_test(test_failure_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
