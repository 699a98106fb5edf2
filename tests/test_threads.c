/* Threads (issue #14 item 4): the library keeps no global mutable state, so
 * read-only data shared between threads (skeleton, clips, a state-machine
 * definition, a motion group, terrains) may be used by any number of threads
 * at once, each with its own instances and poses. Several threads run the same
 * work at the same time: sampling every clip of the mannequin (random access
 * and cursors), separate state-machine instances of one graph definition,
 * ray casts on shared terrains (a triangle mesh with its grid and stairs),
 * sk_locomotor instances sharing a motion group and a terrain, and CPU
 * skinning of the shared prepared mesh. Each thread's results must equal,
 * bit for bit, the same work run on one thread before. `make tsan` runs this
 * test (and the playback, blending, state-machine and locomotion tests) under
 * ThreadSanitizer, which reports any data race. */
#include "support.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4
#define SAMPLES 40
#define GRAPH_STEPS 90
#define RAYS 400
#define LOCO_STEPS 90

typedef struct shared {
    sk_asset *asset;
    const sk_skeleton *skel;
    sk_graph *graph;
    sk_leg_desc legs[2];
    sk_motion_analysis *an[2];
    const sk_clip *loco_clips[2];
    sk_motion_group *group;
    sk_terrain_mesh *mesh;
    sk_terrain mesh_terrain, stairs;
    sk_terrain_shape stairs_shape;
    sk_skinned_mesh *skinned;
} shared;

/* What one run of the work produces (compared bit for bit). */
typedef struct results {
    float *clip_samples;      /* clips x SAMPLES x joints transforms, cursor run too */
    size_t clip_floats;
    float *graph_pose;        /* joints transforms after every step */
    size_t graph_floats;
    char graph_state[64];
    sk_terrain_hit hits[RAYS * 2];
    bool hit[RAYS * 2];
    float *loco_pose;
    size_t loco_floats;
    sk_locomotor_state loco_state;
    float *skinned;           /* vertex positions */
    size_t skinned_floats;
    char failure[256];
} results;

typedef struct job {
    const shared *s;
    pthread_barrier_t *start; /* all threads start together (NULL: single-threaded) */
    results r;
} job;

#define TF (sizeof(sk_transform) / sizeof(float))

static void fail_job(results *r, const char *what, const sk_error *err) {
    if (!r->failure[0]) snprintf(r->failure, sizeof r->failure, "%s: %s", what, err ? err->message : "");
}

/* The work: everything here only reads the shared data. */
static void *work(void *arg) {
    job *jb = arg;
    const shared *s = jb->s;
    results *r = &jb->r;
    const sk_skeleton *skel = s->skel;
    uint32_t jc = skel->joint_count;
    if (jb->start) pthread_barrier_wait(jb->start);
    sk_error err = {0};
    sk_pose pose;
    if (sk_pose_alloc(skel, NULL, &pose, &err) != SK_OK) {
        fail_job(r, "sk_pose_alloc", &err);
        return NULL;
    }

    /* 1. Sampling: random access and a cursor per clip. */
    float *out = r->clip_samples;
    for (uint32_t c = 0; c < s->asset->clip_count; c++) {
        const sk_clip *clip = s->asset->clips[c];
        size_t cn = sk_clip_cursor_size(clip);
        uint32_t *cursor = calloc(cn ? cn : 1, sizeof *cursor);
        for (int k = 0; k < SAMPLES; k++) {
            double t = sk_clip_duration(clip) * k / 17.0;
            if (sk_clip_sample(clip, skel, t, (sk_loop_mode)(k % 3), &pose, &err) != SK_OK) fail_job(r, "sample", &err);
            memcpy(out, pose.local, jc * sizeof(sk_transform));
            out += jc * TF;
            if (!cursor || sk_clip_sample_cursor(clip, skel, t, SK_LOOP_REPEAT, cursor, cn, &pose, &err) != SK_OK)
                fail_job(r, "sample_cursor", &err);
            memcpy(out, pose.local, jc * sizeof(sk_transform));
            out += jc * TF;
        }
        free(cursor);
    }

    /* 2. A state machine instance of the shared graph. */
    sk_graph_instance *gi = NULL;
    if (sk_graph_instance_create(s->graph, NULL, &gi, &err) != SK_OK) {
        fail_job(r, "sk_graph_instance_create", &err);
    } else {
        float *gp = r->graph_pose;
        for (int k = 0; k < GRAPH_STEPS; k++) {
            (void)sk_graph_set_float(gi, "speed", (float)(k % 30) * 0.15f, &err);
            if (k == 40) (void)sk_graph_set_bool(gi, "crouch", true, &err);
            if (k == 60) (void)sk_graph_set_bool(gi, "crouch", false, &err);
            sk_graph_update(gi, 1.0 / 30.0);
            if (sk_graph_evaluate(gi, &pose, &err) != SK_OK) fail_job(r, "sk_graph_evaluate", &err);
            memcpy(gp, pose.local, jc * sizeof(sk_transform));
            gp += jc * TF;
        }
        snprintf(r->graph_state, sizeof r->graph_state, "%s", sk_graph_current_state(gi));
        sk_graph_instance_destroy(gi);
    }

    /* 3. Ray casts on the shared terrains. */
    for (int k = 0; k < RAYS; k++) {
        sk_vec3 o = sk_vec3_make(-4.0f + 8.0f * (float)k / RAYS, 3.0f, -3.0f + (float)((k * 37) % 60) / 10.0f);
        sk_vec3 d = sk_vec3_make(0.1f * (float)((k % 7) - 3), -1.0f, 0.05f * (float)((k % 5) - 2));
        r->hit[k] = sk_terrain_raycast(&s->mesh_terrain, o, d, 20.0f, &r->hits[k]);
        r->hit[RAYS + k] = sk_terrain_raycast(&s->stairs, o, d, 20.0f, &r->hits[RAYS + k]);
    }

    /* 4. A locomotor sharing the motion group and the terrain. */
    sk_locomotor_desc d = {0};
    d.skeleton = skel;
    d.group = s->group;
    d.clips = s->loco_clips;
    d.clip_count = 2;
    d.idle = s->asset->clips[sk_asset_find_clip(s->asset, "idle")];
    d.terrain = s->mesh_terrain;
    d.body_joint = -1;
    sk_locomotor *L = NULL;
    if (sk_locomotor_create(&d, NULL, &L, &err) != SK_OK || sk_locomotor_reset(L, 0.0f, -2.0f, 0.0f, &err) != SK_OK) {
        fail_job(r, "sk_locomotor_create/reset", &err);
    } else {
        sk_pose lp = sk_pose_view(pose.local, jc, NULL, 0);
        float *op = r->loco_pose;
        for (int k = 1; k <= LOCO_STEPS; k++) {
            float z = -2.0f + 1.3f * (float)k / 30.0f;
            if (sk_locomotor_update(L, 1.0 / 30.0, 0.1f * (float)k / 30.0f, z, 0.05f * (float)k / 30.0f, &lp, &err) !=
                SK_OK)
                fail_job(r, "sk_locomotor_update", &err);
            memcpy(op, lp.local, jc * sizeof(sk_transform));
            op += jc * TF;
        }
        r->loco_state = *sk_locomotor_get_state(L);
    }
    sk_locomotor_destroy(L);

    /* 5. Skinning the shared prepared mesh with this thread's palette. */
    sk_mat4 *model = calloc(jc, sizeof *model);
    const sk_skin *skin = &s->asset->skins[0];
    sk_mat4 *palette = calloc(skin->joint_count, sizeof *palette);
    if (model && palette && sk_clip_sample(s->asset->clips[1], skel, 0.3, SK_LOOP_REPEAT, &pose, &err) == SK_OK &&
        sk_local_to_model(skel, &pose, NULL, model, jc, &err) == SK_OK &&
        sk_skin_palette(skin, model, jc, palette, skin->joint_count, &err) == SK_OK) {
        sk_skin_job sj = {0};
        sj.mesh = s->skinned;
        sj.palette = palette;
        sj.palette_count = skin->joint_count;
        sj.out_positions = r->skinned;
        if (sk_skin_run(&sj, &err) != SK_OK) fail_job(r, "sk_skin_run", &err);
    } else {
        fail_job(r, "palette", &err);
    }
    free(model);
    free(palette);
    sk_pose_free(&pose, NULL);
    return NULL;
}

static void results_alloc(const shared *s, results *r) {
    memset(r, 0, sizeof *r);
    uint32_t jc = s->skel->joint_count;
    r->clip_floats = (size_t)s->asset->clip_count * SAMPLES * 2 * jc * TF;
    r->graph_floats = (size_t)GRAPH_STEPS * jc * TF;
    r->loco_floats = (size_t)LOCO_STEPS * jc * TF;
    r->skinned_floats = (size_t)sk_skinned_mesh_vertex_count(s->skinned) * 3;
    r->clip_samples = calloc(r->clip_floats, sizeof(float));
    r->graph_pose = calloc(r->graph_floats, sizeof(float));
    r->loco_pose = calloc(r->loco_floats, sizeof(float));
    r->skinned = calloc(r->skinned_floats, sizeof(float));
    assert_non_null(r->clip_samples);
    assert_non_null(r->graph_pose);
    assert_non_null(r->loco_pose);
    assert_non_null(r->skinned);
}

static void results_free(results *r) {
    free(r->clip_samples);
    free(r->graph_pose);
    free(r->loco_pose);
    free(r->skinned);
}

static void results_equal(const results *a, const results *b, int thread) {
    if (b->failure[0]) fail_msg("thread %d: %s", thread, b->failure);
    if (memcmp(a->clip_samples, b->clip_samples, a->clip_floats * sizeof(float)))
        fail_msg("thread %d: clip samples differ from the single-threaded run", thread);
    if (memcmp(a->graph_pose, b->graph_pose, a->graph_floats * sizeof(float)) || strcmp(a->graph_state, b->graph_state))
        fail_msg("thread %d: state machine poses differ from the single-threaded run", thread);
    for (int k = 0; k < RAYS * 2; k++)
        if (a->hit[k] != b->hit[k] || (a->hit[k] && memcmp(&a->hits[k], &b->hits[k], sizeof a->hits[k])))
            fail_msg("thread %d: ray %d differs from the single-threaded run", thread, k);
    if (memcmp(a->loco_pose, b->loco_pose, a->loco_floats * sizeof(float)) ||
        memcmp(&a->loco_state.position, &b->loco_state.position, sizeof(sk_vec3)) ||
        a->loco_state.phase != b->loco_state.phase)
        fail_msg("thread %d: locomotor differs from the single-threaded run", thread);
    if (memcmp(a->skinned, b->skinned, a->skinned_floats * sizeof(float)))
        fail_msg("thread %d: skinned vertices differ from the single-threaded run", thread);
}

static void shared_setup(shared *s) {
    memset(s, 0, sizeof *s);
    sk_error err = {0};
    if (sk_mannequin_create(NULL, NULL, &s->asset, &err) != SK_OK) fail_msg("%s", err.message);
    s->skel = s->asset->skeleton;
    char path[1024];
    sk_test_path(path, sizeof path, sk_test_source_dir(), "tests/data/blend/locomotion.json");
    if (sk_graph_load_file(path, s->skel, s->asset->clips, s->asset->clip_count, NULL, NULL, &s->graph, &err) != SK_OK)
        fail_msg("%s", err.message);
    assert_int_equal(sk_legs_find(s->skel, s->legs, 2), 2);
    if (sk_leg_points_from_mesh(s->asset, s->legs, 2, NULL, NULL, &err) != SK_OK) fail_msg("%s", err.message);
    s->loco_clips[0] = s->asset->clips[sk_asset_find_clip(s->asset, "walk")];
    s->loco_clips[1] = s->asset->clips[sk_asset_find_clip(s->asset, "run")];
    for (int i = 0; i < 2; i++)
        if (sk_motion_analyze(s->skel, s->loco_clips[i], s->legs, 2, NULL, NULL, &s->an[i], &err) != SK_OK)
            fail_msg("%s", err.message);
    if (sk_motion_group_create((const sk_motion_analysis *const *)s->an, 2, NULL, &s->group, &err) != SK_OK)
        fail_msg("%s", err.message);
    /* A bumpy 16 x 16 m grid mesh around the origin. */
    enum { N = 33 };
    static float pos[N * N * 3];
    static uint32_t idx[(N - 1) * (N - 1) * 6];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            float x = -8.0f + 0.5f * (float)i, z = -8.0f + 0.5f * (float)j;
            pos[(i * N + j) * 3 + 0] = x;
            pos[(i * N + j) * 3 + 1] = 0.04f * (float)(((i * 7 + j * 3) % 5) - 2);
            pos[(i * N + j) * 3 + 2] = z;
        }
    uint32_t t = 0;
    for (uint32_t i = 0; i + 1 < N; i++)
        for (uint32_t j = 0; j + 1 < N; j++) {
            uint32_t a = i * N + j, b = a + 1, c = a + N, e = c + 1;
            idx[t++] = a, idx[t++] = b, idx[t++] = c;
            idx[t++] = b, idx[t++] = e, idx[t++] = c;
        }
    if (sk_terrain_mesh_create(pos, N * N, idx, t / 3, NULL, NULL, &s->mesh, &err) != SK_OK) fail_msg("%s", err.message);
    s->mesh_terrain = sk_terrain_mesh_terrain(s->mesh);
    sk_terrain_stairs_options so = {0};
    so.start = sk_vec3_make(0.0f, 0.0f, 0.5f);
    so.count = 6;
    if (sk_terrain_stairs(&s->stairs_shape, &so, &s->stairs, &err) != SK_OK) fail_msg("%s", err.message);
    const sk_primitive *prim = &s->asset->meshes[0].primitives[0];
    if (sk_skinned_mesh_create(prim, NULL, &s->skinned, &err) != SK_OK) fail_msg("%s", err.message);
}

static void shared_free(shared *s) {
    sk_skinned_mesh_destroy(s->skinned);
    sk_terrain_mesh_destroy(s->mesh);
    sk_motion_group_destroy(s->group);
    for (int i = 0; i < 2; i++) sk_motion_analysis_destroy(s->an[i]);
    sk_graph_destroy(s->graph);
    sk_asset_destroy(s->asset);
}

static void threads_match_single_thread(void **state) {
    (void)state;
    shared s;
    shared_setup(&s);
    job ref = {&s, NULL, {0}};
    results_alloc(&s, &ref.r);
    work(&ref);
    if (ref.r.failure[0]) fail_msg("single-threaded run: %s", ref.r.failure);
    /* The single-threaded run did something: the walk moved the character, the graph left idle. */
    assert_true(ref.r.loco_state.position.z > 0.5f);
    int hits = 0;
    for (int k = 0; k < RAYS * 2; k++) hits += ref.r.hit[k];
    assert_true(hits > RAYS);

    job jobs[THREADS];
    pthread_t th[THREADS];
    pthread_barrier_t start;
    assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
    for (int i = 0; i < THREADS; i++) {
        jobs[i].s = &s;
        jobs[i].start = &start;
        results_alloc(&s, &jobs[i].r);
    }
    for (int i = 0; i < THREADS; i++) assert_int_equal(pthread_create(&th[i], NULL, work, &jobs[i]), 0);
    for (int i = 0; i < THREADS; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < THREADS; i++) results_equal(&ref.r, &jobs[i].r, i);
    printf("threads: %d threads matched the single-threaded run (%zu clip floats, %d graph steps, %d rays, "
           "%d locomotor frames, %zu skinned floats; final state %s)\n",
           THREADS, ref.r.clip_floats, GRAPH_STEPS, RAYS * 2, LOCO_STEPS, ref.r.skinned_floats, ref.r.graph_state);
    for (int i = 0; i < THREADS; i++) results_free(&jobs[i].r);
    results_free(&ref.r);
    shared_free(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(threads_match_single_thread)};
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
