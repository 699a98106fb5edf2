/* sk_batch (issue #13 item 3): the batch update across threads.
 *  - the pipeline (two clips sampled with cursors, blended, local-to-model,
 *    palette) over a few hundred mannequins gives palettes, model matrices and
 *    poses byte for byte equal to a plain single-threaded loop of the same
 *    calls, with 1, 2, 3 and 8 threads, frame after frame (cursors kept);
 *  - the weighted N-clip blend, the post-process hook and CPU skinning, the
 *    same across thread counts;
 *  - the SoA path's samples into poses that hold the clip's last sample
 *    (sk_clip_sample_soa_update): the sk_pose path's bytes across hooks and
 *    clip and skeleton changes between runs;
 *  - callback jobs: every character once, per-thread scratch, thread ids;
 *  - errors: the lowest failing character is reported whatever the thread
 *    count ("character N: ..."), bad descriptions are refused with a message;
 *  - no allocation per frame (a counting allocator), clean shutdown.
 * `make tsan` runs this test under ThreadSanitizer. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHARS 300
#define FRAMES 4
static const uint32_t thread_counts[] = {1, 2, 3, 8};
#define NTHREADS (sizeof thread_counts / sizeof thread_counts[0])

typedef struct fixture {
    sk_asset *a;
    const sk_skeleton *s;
    const sk_clip *clips[3];
    const sk_skin *skin;
    uint32_t n, pn;
} fixture;

static void fixture_init(fixture *f) {
    sk_error err = {0};
    memset(f, 0, sizeof *f);
    assert_int_equal(sk_mannequin_create(NULL, NULL, &f->a, &err), SK_OK);
    f->s = f->a->skeleton;
    const char *names[3] = {"walk", "run", "idle"};
    for (int i = 0; i < 3; i++) {
        int32_t k = sk_asset_find_clip(f->a, names[i]);
        if (k < 0) k = i % (int32_t)f->a->clip_count;
        f->clips[i] = f->a->clips[k];
    }
    f->skin = &f->a->skins[0];
    f->n = f->s->joint_count;
    f->pn = f->skin->joint_count;
}

/* Per-character inputs of frame `frame`: times and mix. */
static void inputs(const fixture *f, uint32_t count, uint32_t k, uint32_t frame, double *times, float *mix, float *weights) {
    for (uint32_t c = 0; c < count; c++) {
        float ph = (float)((c * 2654435761u) % 1000) / 1000.0f + (float)frame / 30.0f;
        for (uint32_t i = 0; i < k; i++) times[(size_t)c * k + i] = (double)(ph * (float)sk_clip_duration(f->clips[i]));
        if (mix) mix[c] = (float)(c % 7) / 6.0f;
        if (weights)
            for (uint32_t i = 0; i < k; i++) weights[(size_t)c * k + i] = (float)((c + i * 3) % 5) / 4.0f + 0.1f;
    }
}

/* The reference: the crowd loop on one thread, no batch. */
static void reference(const fixture *f, uint32_t frames, sk_mat4 *pal, sk_mat4 *model_out, sk_transform *local_out) {
    sk_error err = {0};
    const sk_skeleton *s = f->s;
    size_t stride = sk_batch_cursor_stride(f->clips, 2);
    uint32_t *cur = calloc((size_t)CHARS * stride, sizeof *cur);
    sk_transform *p0 = calloc(f->n, sizeof *p0), *p1 = calloc(f->n, sizeof *p1);
    double *times = calloc(CHARS * 2, sizeof *times);
    float *mix = calloc(CHARS, sizeof *mix);
    assert_non_null(cur), assert_non_null(p0), assert_non_null(p1), assert_non_null(times), assert_non_null(mix);
    size_t c0 = sk_clip_cursor_size(f->clips[0]), c1 = sk_clip_cursor_size(f->clips[1]);
    for (uint32_t fr = 0; fr < frames; fr++) {
        inputs(f, CHARS, 2, fr, times, mix, NULL);
        for (uint32_t c = 0; c < CHARS; c++) {
            uint32_t *ci = cur + (size_t)c * stride;
            sk_transform *local = local_out + (size_t)c * f->n;
            sk_mat4 *model = model_out + (size_t)c * f->n;
            assert_int_equal(sk_clip_sample_cursor(f->clips[0], s, times[c * 2], SK_LOOP_REPEAT, ci, c0, SK_POSE_OF(s, p0, NULL), &err), SK_OK);
            assert_int_equal(sk_clip_sample_cursor(f->clips[1], s, times[c * 2 + 1], SK_LOOP_REPEAT, ci + c0, c1, SK_POSE_OF(s, p1, NULL), &err), SK_OK);
            assert_int_equal(sk_blend_two(s, SK_POSE_OF(s, p0, NULL), SK_POSE_OF(s, p1, NULL), mix[c], NULL, false, SK_POSE_OF(s, local, NULL), &err), SK_OK);
            assert_int_equal(sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, model, f->n, &err), SK_OK);
            assert_int_equal(sk_skin_palette(f->skin, model, f->n, pal + (size_t)c * f->pn, f->pn, &err), SK_OK);
        }
    }
    free(cur), free(p0), free(p1), free(times), free(mix);
}

/* Counting allocator: how many allocations happened. */
typedef struct counter {
    size_t allocs, frees, live;
} counter;
static void *count_alloc(void *user, size_t size) {
    counter *c = user;
    c->allocs++, c->live++;
    return calloc(1, size ? size : 1);
}
static void count_free(void *user, void *p, size_t size) {
    (void)size;
    counter *c = user;
    if (p) c->frees++, c->live--;
    free(p);
}

/* Fails every allocation after the first `left`. */
typedef struct limited {
    counter *c;
    size_t left;
} limited;
static void *limited_alloc(void *user, size_t size) {
    limited *l = user;
    if (l->left == 0) return NULL;
    l->left--;
    return count_alloc(l->c, size);
}
static void limited_free(void *user, void *p, size_t size) { count_free(((limited *)user)->c, p, size); }

static void test_pipeline_matches_single_thread(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    sk_error err = {0};
    size_t pal_bytes = (size_t)CHARS * f.pn * sizeof(sk_mat4), model_bytes = (size_t)CHARS * f.n * sizeof(sk_mat4),
           local_bytes = (size_t)CHARS * f.n * sizeof(sk_transform);
    sk_mat4 *ref_pal = calloc(1, pal_bytes), *ref_model = calloc(1, model_bytes);
    sk_transform *ref_local = calloc(1, local_bytes);
    assert_non_null(ref_pal), assert_non_null(ref_model), assert_non_null(ref_local);
    reference(&f, FRAMES, ref_pal, ref_model, ref_local);

    size_t stride = sk_batch_cursor_stride(f.clips, 2);
    assert_int_equal(stride, sk_clip_cursor_size(f.clips[0]) + sk_clip_cursor_size(f.clips[1]));
    for (size_t t = 0; t < NTHREADS; t++) {
        counter cnt = {0};
        sk_allocator al = {count_alloc, NULL, count_free, &cnt};
        sk_batch *b = NULL;
        sk_batch_desc d = {.threads = thread_counts[t], .max_joints = f.n, .max_clips = 2};
        assert_int_equal(sk_batch_create(&d, &al, &b, &err), SK_OK);
        assert_int_equal(sk_batch_thread_count(b), thread_counts[t]);
        size_t allocs_after_create = cnt.allocs;
        uint32_t *cur = calloc((size_t)CHARS * stride, sizeof *cur);
        double *times = calloc(CHARS * 2, sizeof *times);
        float *mix = calloc(CHARS, sizeof *mix);
        sk_mat4 *pal = calloc(1, pal_bytes), *model = calloc(1, model_bytes);
        sk_transform *local = calloc(1, local_bytes);
        assert_non_null(cur), assert_non_null(times), assert_non_null(mix), assert_non_null(pal), assert_non_null(model),
            assert_non_null(local);
        sk_batch_pipeline p = {.skeleton = f.s, .character_count = CHARS, .clips = f.clips, .clip_count = 2,
                               .loop = SK_LOOP_REPEAT, .times = times, .mix = mix, .cursors = cur, .cursor_stride = stride,
                               .out_local = local, .out_model = model, .skin = f.skin, .out_palette = pal};
        for (uint32_t fr = 0; fr < FRAMES; fr++) {
            inputs(&f, CHARS, 2, fr, times, mix, NULL);
            assert_int_equal(sk_batch_run_pipeline(b, &p, &err), SK_OK);
        }
        assert_int_equal(cnt.allocs, allocs_after_create); /* no allocation per frame */
        if (memcmp(pal, ref_pal, pal_bytes) != 0 || memcmp(model, ref_model, model_bytes) != 0 ||
            memcmp(local, ref_local, local_bytes) != 0)
            fail_msg("%u threads: results differ from the single-threaded loop", thread_counts[t]);
        /* palettes only (model matrices in thread scratch) */
        memset(pal, 0, pal_bytes);
        memset(cur, 0, (size_t)CHARS * stride * sizeof *cur);
        p.out_local = NULL, p.out_model = NULL;
        for (uint32_t fr = 0; fr < FRAMES; fr++) {
            inputs(&f, CHARS, 2, fr, times, mix, NULL);
            assert_int_equal(sk_batch_run_pipeline(b, &p, &err), SK_OK);
        }
        if (memcmp(pal, ref_pal, pal_bytes) != 0) fail_msg("%u threads, palette only: differs", thread_counts[t]);
        /* The runs above took the structure-of-arrays path (two clips mixed,
         * no hook); aos keeps sk_pose: the same bits either way. */
        memset(pal, 0, pal_bytes);
        memset(cur, 0, (size_t)CHARS * stride * sizeof *cur);
        p.aos = true;
        for (uint32_t fr = 0; fr < FRAMES; fr++) {
            inputs(&f, CHARS, 2, fr, times, mix, NULL);
            assert_int_equal(sk_batch_run_pipeline(b, &p, &err), SK_OK);
        }
        if (memcmp(pal, ref_pal, pal_bytes) != 0) fail_msg("%u threads, sk_pose path: differs", thread_counts[t]);
        sk_batch_destroy(b);
        assert_int_equal(cnt.live, 0);
        free(cur), free(times), free(mix), free(pal), free(model), free(local);
    }
    free(ref_pal), free(ref_model), free(ref_local);
    sk_asset_destroy(f.a);
}

/* Compressed clips take the structure-of-arrays path too (on AVX2 CPUs the
 * decoder writes the rows): the same bits as the single-threaded loop, on
 * 1 and 2 threads, and as the sk_pose path. */
static void test_compressed_pipeline(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    sk_error err = {0};
    sk_clip *cc[2];
    for (int i = 0; i < 2; i++) {
        assert_int_equal(sk_clip_compress(f.clips[i], f.s, NULL, NULL, &cc[i], NULL, &err), SK_OK);
        f.clips[i] = cc[i];
    }
    size_t pal_bytes = (size_t)CHARS * f.pn * sizeof(sk_mat4), model_bytes = (size_t)CHARS * f.n * sizeof(sk_mat4),
           local_bytes = (size_t)CHARS * f.n * sizeof(sk_transform);
    sk_mat4 *ref_pal = calloc(1, pal_bytes), *ref_model = calloc(1, model_bytes), *pal = calloc(1, pal_bytes);
    sk_transform *ref_local = calloc(1, local_bytes), *local = calloc(1, local_bytes);
    reference(&f, FRAMES, ref_pal, ref_model, ref_local);
    size_t plain = sk_batch_cursor_stride(f.clips, 2), stride = sk_batch_cursor_cache_stride(f.clips, 2),
           ahead = sk_batch_cursor_ahead_stride(f.clips, 2);
    assert_true(stride > plain);  /* the cursors that keep decoded frames are longer */
    assert_true(ahead >= stride); /* with room for a third frame where the rows decoders run */
    uint32_t *cur = calloc((size_t)CHARS * ahead, sizeof *cur);
    double *times = calloc(CHARS * 2, sizeof *times);
    float *mix = calloc(CHARS, sizeof *mix);
    int runs = 0;
    for (uint32_t threads = 1; threads <= 2; threads++)
        for (int aos = 0; aos < 6; aos++) { /* SoA, sk_pose; each without the cursors' frame cache, with it, with a third frame */
            sk_batch *b = NULL;
            sk_batch_desc d = {.threads = threads, .max_joints = f.n, .max_clips = 2};
            assert_int_equal(sk_batch_create(&d, NULL, &b, &err), SK_OK);
            sk_batch_pipeline p = {.skeleton = f.s, .character_count = CHARS, .clips = f.clips, .clip_count = 2,
                                   .loop = SK_LOOP_REPEAT, .times = times, .mix = mix, .cursors = cur,
                                   .cursor_stride = aos >= 4 ? ahead : aos >= 2 ? stride : plain, .out_local = local,
                                   .skin = f.skin, .out_palette = pal, .aos = (aos & 1) != 0, .cursor_cache = aos >= 2 && aos < 4,
                                   .cursor_ahead = aos >= 4}; /* cursor_ahead alone: the cache is implied */
            if (aos == 2) { /* a stride too short for the cache is refused, naming the function to size it */
                p.cursor_stride = plain;
                assert_int_equal(sk_batch_run_pipeline(b, &p, &err), SK_ERR_INVALID_ARGUMENT);
                assert_non_null(strstr(err.message, "sk_batch_cursor_cache_stride"));
                p.cursor_stride = stride;
            }
            if (aos == 4 && ahead > stride) { /* and the one for a third frame, naming its function */
                p.cursor_stride = stride;
                assert_int_equal(sk_batch_run_pipeline(b, &p, &err), SK_ERR_INVALID_ARGUMENT);
                assert_non_null(strstr(err.message, "sk_batch_cursor_ahead_stride"));
                p.cursor_stride = ahead;
            }
            memset(cur, 0, (size_t)CHARS * ahead * sizeof *cur);
            for (uint32_t fr = 0; fr < FRAMES; fr++) {
                inputs(&f, CHARS, 2, fr, times, mix, NULL);
                assert_int_equal(sk_batch_run_pipeline(b, &p, &err), SK_OK);
            }
            if (memcmp(pal, ref_pal, pal_bytes) != 0 || memcmp(local, ref_local, local_bytes) != 0)
                fail_msg("compressed clips, %u threads, %s path%s: differs from the single-threaded loop", threads,
                         aos & 1 ? "sk_pose" : "SoA", aos >= 4 ? ", three frames" : aos >= 2 ? ", frame cache" : "");
            sk_batch_destroy(b);
            runs++;
        }
    assert_int_equal(runs, 12);
    for (int i = 0; i < 2; i++) sk_clip_destroy(cc[i]);
    free(ref_pal), free(ref_model), free(pal), free(ref_local), free(local), free(cur), free(times), free(mix);
    sk_asset_destroy(f.a);
}

/* The post-process hook: adds a per-character bend to a joint and counts calls. */
typedef struct post_state {
    uint32_t *calls;
    uint32_t joint;
} post_state;
static sk_result post_bend(void *user, uint32_t c, uint32_t thread, void *scratch, sk_pose *pose, sk_error *err) {
    (void)err, (void)thread;
    *(uint32_t *)scratch += 1; /* the thread's own block */
    post_state *ps = user;
    ps->calls[c]++;
    float a = 0.001f * (float)(c % 97);
    sk_quat r = {0.0f, sinf(a), 0.0f, cosf(a)};
    pose->local[ps->joint].r = sk_quat_mul(r, pose->local[ps->joint].r);
    return SK_OK;
}

/* Three clips by weights, random access, the hook, roots, CPU skinning on a
 * few characters: equal across thread counts. */
static void test_weights_hook_skinning(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    sk_error err = {0};
    enum { N = 40 };
    sk_skinned_mesh *mesh = NULL;
    assert_int_equal(sk_skinned_mesh_create(&f.a->meshes[0].primitives[0], NULL, &mesh, &err), SK_OK);
    uint32_t vc = sk_skinned_mesh_vertex_count(mesh);
    size_t pal_bytes = (size_t)N * f.pn * sizeof(sk_mat4), v_bytes = (size_t)N * vc * 3 * sizeof(float);
    double times[N * 3]; /* three clips: [c * 3 + i]; one clip (below): [c] */
    float weights[N * 3];
    sk_mat4 roots[N];
    inputs(&f, N, 3, 5, times, NULL, weights);
    for (uint32_t c = 0; c < N; c++) {
        memset(&roots[c], 0, sizeof roots[c]);
        roots[c].m[0] = roots[c].m[5] = roots[c].m[10] = roots[c].m[15] = 1.0f;
        roots[c].m[12] = (float)c, roots[c].m[14] = -0.5f * (float)c;
    }
    sk_mat4 *ref_pal = NULL;
    float *ref_pos = NULL, *ref_nrm = NULL;
    for (size_t t = 0; t < NTHREADS; t++) {
        sk_batch *b = NULL;
        sk_batch_desc d = {.threads = thread_counts[t], .max_joints = f.n + 5, .max_clips = 3, .chunk = 3,
                           .scratch_bytes = sizeof(uint32_t)};
        assert_int_equal(sk_batch_create(&d, NULL, &b, &err), SK_OK);
        uint32_t calls[N] = {0};
        post_state ps = {calls, 1};
        sk_mat4 *pal = calloc(1, pal_bytes);
        float *pos = calloc(1, v_bytes), *nrm = calloc(1, v_bytes);
        assert_non_null(pal), assert_non_null(pos), assert_non_null(nrm);
        sk_batch_pipeline p = {.skeleton = f.s, .character_count = N, .clips = f.clips, .clip_count = 3,
                               .loop = SK_LOOP_REPEAT, .times = times, .weights = weights, .post = post_bend,
                               .post_user = &ps, .roots = roots, .skin = f.skin, .out_palette = pal, .mesh = mesh,
                               .out_positions = pos, .out_normals = sk_skinned_mesh_has_normals(mesh) ? nrm : NULL};
        assert_int_equal(sk_batch_run_pipeline(b, &p, &err), SK_OK);
        for (uint32_t c = 0; c < N; c++) assert_int_equal(calls[c], 1);
        if (!ref_pal) {
            ref_pal = pal, ref_pos = pos, ref_nrm = nrm;
            /* the hook and the roots did something: character 5 differs from 0 */
            assert_true(memcmp(&pal[0], &pal[(size_t)5 * f.pn], sizeof(sk_mat4) * f.pn) != 0);
        } else {
            for (uint32_t c = 0; c < N; c++)
                if (memcmp(pal + (size_t)c * f.pn, ref_pal + (size_t)c * f.pn, sizeof(sk_mat4) * f.pn))
                    fail_msg("%u threads: character %u: palette differs from 1 thread's", thread_counts[t], c);
            if (memcmp(pos, ref_pos, v_bytes) || memcmp(nrm, ref_nrm, v_bytes))
                fail_msg("%u threads: skinned vertices differ from 1 thread's", thread_counts[t]);
            free(pal), free(pos), free(nrm);
        }
        /* one clip, no blend, no hook: the local poses are the clip's samples */
        sk_transform *local = calloc((size_t)N * f.n, sizeof *local), *one = calloc(f.n, sizeof *one);
        assert_non_null(local), assert_non_null(one);
        p = (sk_batch_pipeline){.skeleton = f.s, .character_count = N, .clips = f.clips, .clip_count = 1,
                                .times = times, .out_local = local};
        assert_int_equal(sk_batch_run_pipeline(b, &p, &err), SK_OK);
        for (uint32_t c = 0; c < N; c += 13) {
            assert_int_equal(sk_clip_sample(f.clips[0], f.s, times[c], SK_LOOP_REPEAT, SK_POSE_OF(f.s, one, NULL), &err), SK_OK);
            assert_memory_equal(one, local + (size_t)c * f.n, f.n * sizeof *one);
        }
        free(local), free(one);
        /* three clips by weights without the hook: the SoA path (sk_blend_weighted_soa)
         * against aos = true (sk_blend_poses), palettes and skinned vertices byte for byte */
        {
            sk_mat4 *pa = calloc(1, pal_bytes), *pb = calloc(1, pal_bytes);
            float *va = calloc(1, v_bytes), *vb = calloc(1, v_bytes);
            assert_non_null(pa), assert_non_null(pb), assert_non_null(va), assert_non_null(vb);
            sk_batch_pipeline q = {.skeleton = f.s, .character_count = N, .clips = f.clips, .clip_count = 3,
                                   .loop = SK_LOOP_REPEAT, .times = times, .weights = weights, .roots = roots,
                                   .skin = f.skin, .out_palette = pa, .mesh = mesh, .out_positions = va};
            assert_int_equal(sk_batch_run_pipeline(b, &q, &err), SK_OK);
            q.aos = true, q.out_palette = pb, q.out_positions = vb;
            assert_int_equal(sk_batch_run_pipeline(b, &q, &err), SK_OK);
            if (memcmp(pa, pb, pal_bytes) || memcmp(va, vb, v_bytes))
                fail_msg("%u threads: weights blend: the SoA and sk_pose paths differ", thread_counts[t]);
            assert_true(memcmp(&pa[0], &pa[(size_t)5 * f.pn], sizeof(sk_mat4) * f.pn) != 0);
            /* slerp rotations (anim/soa_layers.h on the SoA path): three clips by
             * weights with and without rest fill, then two mixed by `mix` */
            float mix[N];
            for (uint32_t c = 0; c < N; c++) mix[c] = (float)(c % 9) / 8.0f;
            for (int v = 0; v < 3; v++) {
                sk_blend_options bo = {SK_BLEND_SLERP, v == 1};
                q.aos = false, q.out_palette = pa, q.out_positions = va;
                q.blend_options = v < 2 ? &bo : NULL;
                q.clip_count = v < 2 ? 3 : 2, q.mix = v < 2 ? NULL : mix, q.mix_slerp = v == 2;
                double t2[N * 2];
                for (uint32_t c = 0; c < N; c++) t2[2 * c] = times[3 * c], t2[2 * c + 1] = times[3 * c + 1];
                q.times = v < 2 ? times : t2;
                assert_int_equal(sk_batch_run_pipeline(b, &q, &err), SK_OK);
                q.aos = true, q.out_palette = pb, q.out_positions = vb;
                assert_int_equal(sk_batch_run_pipeline(b, &q, &err), SK_OK);
                if (memcmp(pa, pb, pal_bytes) || memcmp(va, vb, v_bytes))
                    fail_msg("%u threads: slerp blend %d: the SoA and sk_pose paths differ", thread_counts[t], v);
            }
            free(pa), free(pb), free(va), free(vb);
        }
        sk_batch_destroy(b);
    }
    free(ref_pal), free(ref_pos), free(ref_nrm);
    sk_skinned_mesh_destroy(mesh);
    sk_asset_destroy(f.a);
}

/* A hook that lists its joints (post_joints) keeps the SoA path: two-bone IK
 * of the left leg toward a per-character target, and a bend of joint 1, give
 * the same palettes, model matrices and local poses byte for byte as the
 * whole-pose sk_pose path (aos = true), on every thread count; a hook's
 * change to a joint it did not list is not taken back. */
typedef struct leg_hook {
    const sk_skeleton *s;
    uint32_t chain[3];
    uint32_t *calls;
    int32_t stray; /* >= 0: also writes this joint (not listed) */
} leg_hook;
static sk_result leg_ik(void *user, uint32_t c, uint32_t thread, void *scratch, sk_pose *pose, sk_error *err) {
    (void)thread, (void)scratch;
    leg_hook *h = user;
    h->calls[c]++;
    float a = 0.002f * (float)(c % 53);
    sk_quat r = {sinf(a), 0.0f, 0.0f, cosf(a)};
    pose->local[1].r = sk_quat_mul(r, pose->local[1].r);
    sk_ik_chain ch = {.skeleton = h->s, .joints = h->chain, .count = 3};
    sk_ik_target t = {.position = {0.1f + 0.001f * (float)(c % 11), 0.12f, 0.05f * (float)(c % 5)}};
    sk_ik_options o = {.solver = SK_IK_TWO_BONE};
    if (h->stray >= 0) pose->local[h->stray].t.y += 1.0f;
    return sk_ik_solve(&ch, &t, &o, pose, NULL, 0, NULL, err);
}

static void test_hook_soa_joints(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    sk_error err = {0};
    enum { N = 64 };
    uint32_t count = 0, chain[3];
    assert_int_equal(sk_ik_chain_find_named(f.s, "thigh_l", "foot_l", chain, 3, &count, &err), SK_OK);
    assert_int_equal(count, 3);
    /* the listed joints: joint 1 (the bend) and the leg with its ancestors */
    uint32_t joints[16], nj = 0;
    joints[nj++] = 1;
    for (int32_t j = (int32_t)chain[2]; j >= 0; j = f.s->parents[j]) joints[nj++] = (uint32_t)j;
    double times[N * 2];
    float mix[N];
    inputs(&f, N, 2, 3, times, mix, NULL);
    size_t pal_bytes = (size_t)N * f.pn * sizeof(sk_mat4), model_bytes = (size_t)N * f.n * sizeof(sk_mat4);
    size_t local_bytes = (size_t)N * f.n * sizeof(sk_transform);
    for (size_t t = 0; t < NTHREADS; t++) {
        sk_batch *b = NULL;
        sk_batch_desc d = {.threads = thread_counts[t], .max_joints = f.n, .max_clips = 2, .chunk = 5};
        assert_int_equal(sk_batch_create(&d, NULL, &b, &err), SK_OK);
        sk_mat4 *pal[2], *model[2];
        sk_transform *local[2];
        uint32_t calls[2][N];
        memset(calls, 0, sizeof calls);
        for (int v = 0; v < 2; v++) { /* 0: SoA with the listed joints, 1: sk_pose */
            pal[v] = calloc(1, pal_bytes), model[v] = calloc(1, model_bytes), local[v] = calloc(1, local_bytes);
            assert_non_null(pal[v]), assert_non_null(model[v]), assert_non_null(local[v]);
            leg_hook h = {f.s, {chain[0], chain[1], chain[2]}, calls[v], -1};
            sk_batch_pipeline p = {.skeleton = f.s, .character_count = N, .clips = f.clips, .clip_count = 2,
                                   .loop = SK_LOOP_REPEAT, .times = times, .mix = mix, .post = leg_ik, .post_user = &h,
                                   .post_joints = joints, .post_joint_count = nj, .aos = v == 1, .skin = f.skin,
                                   .out_palette = pal[v], .out_model = model[v], .out_local = local[v]};
            assert_int_equal(sk_batch_run_pipeline(b, &p, &err), SK_OK);
            for (uint32_t c = 0; c < N; c++) assert_int_equal(calls[v][c], 1);
        }
        if (memcmp(pal[0], pal[1], pal_bytes) || memcmp(model[0], model[1], model_bytes) ||
            memcmp(local[0], local[1], local_bytes))
            fail_msg("%u threads: the hook with listed joints (SoA) and the sk_pose path differ", thread_counts[t]);
        /* the IK moved the foot: character 1's foot is not where the blend put it */
        sk_transform blended[64];
        assert_true(f.n <= 64);
        sk_transform s0[64], s1[64];
        assert_int_equal(sk_clip_sample(f.clips[0], f.s, times[2], SK_LOOP_REPEAT, SK_POSE_OF(f.s, s0, NULL), &err), SK_OK);
        assert_int_equal(sk_clip_sample(f.clips[1], f.s, times[3], SK_LOOP_REPEAT, SK_POSE_OF(f.s, s1, NULL), &err), SK_OK);
        assert_int_equal(sk_blend_two(f.s, SK_POSE_OF(f.s, s0, NULL), SK_POSE_OF(f.s, s1, NULL), mix[1], NULL, false,
                                      SK_POSE_OF(f.s, blended, NULL), &err), SK_OK);
        assert_true(memcmp(&blended[chain[0]].r, &local[0][f.n + chain[0]].r, sizeof(sk_quat)) != 0);
        /* a joint the hook writes but did not list: its change is not taken back on the SoA path */
        {
            uint32_t stray = 4; /* the head: not in the list */
            for (uint32_t i = 0; i < nj; i++) assert_true(joints[i] != stray);
            leg_hook h = {f.s, {chain[0], chain[1], chain[2]}, calls[0], (int32_t)stray};
            sk_batch_pipeline p = {.skeleton = f.s, .character_count = N, .clips = f.clips, .clip_count = 2,
                                   .loop = SK_LOOP_REPEAT, .times = times, .mix = mix, .post = leg_ik, .post_user = &h,
                                   .post_joints = joints, .post_joint_count = nj, .out_local = local[1]};
            assert_int_equal(sk_batch_run_pipeline(b, &p, &err), SK_OK);
            assert_memory_equal(&local[1][f.n + stray], &blended[stray], sizeof(sk_transform));
        }
        for (int v = 0; v < 2; v++) free(pal[v]), free(model[v]), free(local[v]);
        /* bad lists */
        leg_hook h = {f.s, {chain[0], chain[1], chain[2]}, calls[0], -1};
        uint32_t bad[2] = {0, f.n};
        sk_batch_pipeline p = {.skeleton = f.s, .character_count = N, .clips = f.clips, .clip_count = 2,
                               .times = times, .mix = mix, .post = leg_ik, .post_user = &h, .post_joints = bad,
                               .post_joint_count = 2};
        assert_int_equal(sk_batch_run_pipeline(b, &p, &err), SK_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(err.message, "post_joints[1]"));
        p.post_joints = NULL;
        assert_int_equal(sk_batch_run_pipeline(b, &p, &err), SK_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(err.message, "post_joint_count"));
        sk_batch_destroy(b);
    }
    sk_asset_destroy(f.a);
}

/* Callback jobs: each character once, scratch per thread. */
/* The SoA path samples a clip into a pose that holds its last sample with
 * sk_clip_sample_soa_update (core/soa.h): what it leaves must be that clip's.
 * A hook that writes a joint the clip has no track for (one character in
 * three), runs that change the clip in a slot (idle after walk) or the
 * skeleton (its rest pose moved at that joint), compressed and float clips:
 * every local pose byte for byte as the sk_pose path's. */
typedef struct stray_hook {
    uint32_t joint;
} stray_hook;
static sk_result stray_write(void *user, uint32_t c, uint32_t thread, void *scratch, sk_pose *pose, sk_error *err) {
    (void)thread, (void)scratch, (void)err;
    const stray_hook *h = user;
    if (c % 3 == 0) pose->local[h->joint].t.x += 1.0f + (float)c;
    return SK_OK;
}
static void test_held_samples(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    sk_error err = {0};
    enum { N = 61 };
    /* a joint idle has no track for (found here from its track list) */
    bool has[256] = {false};
    assert_true(f.n <= 256);
    for (uint32_t i = 0; i < sk_clip_track_count(f.clips[2]); i++) {
        sk_track_info ti;
        assert_true(sk_clip_track_info(f.clips[2], i, &ti));
        has[ti.joint] = true;
    }
    uint32_t free_joint = f.n;
    for (uint32_t j = 0; j < f.n && free_joint == f.n; j++)
        if (!has[j]) free_joint = j;
    assert_true(free_joint < f.n);
    sk_transform *rest2 = malloc(f.n * sizeof *rest2);
    assert_non_null(rest2);
    memcpy(rest2, f.s->rest, f.n * sizeof *rest2);
    rest2[free_joint].t.x += 0.5f;
    sk_skeleton_desc sd = {.joint_count = f.n, .parents = f.s->parents, .rest = rest2};
    sk_skeleton *s2 = NULL;
    assert_int_equal(sk_skeleton_create(&sd, NULL, &s2, &err), SK_OK);
    sk_clip *packed[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) assert_int_equal(sk_clip_compress(f.clips[i], f.s, NULL, NULL, &packed[i], NULL, &err), SK_OK);
    double times[N * 2];
    float mix[N];
    size_t local_bytes = (size_t)N * f.n * sizeof(sk_transform);
    sk_transform *got = malloc(local_bytes), *want = malloc(local_bytes);
    assert_non_null(got), assert_non_null(want);
    uint32_t runs = 0;
    for (size_t t = 0; t < NTHREADS; t++) {
        sk_batch *b = NULL;
        sk_batch_desc d = {.threads = thread_counts[t], .max_joints = f.n, .max_clips = 2, .chunk = 5};
        assert_int_equal(sk_batch_create(&d, NULL, &b, &err), SK_OK);
        for (int z = 0; z < 2; z++) { /* float keys, compressed */
            const sk_clip *walk = z ? packed[0] : f.clips[0], *run = z ? packed[1] : f.clips[1], *idle = z ? packed[2] : f.clips[2];
            const sk_clip *sets[5][2] = {{idle, NULL}, {walk, run}, {idle, walk}, {idle, NULL}, {idle, NULL}};
            stray_hook h = {free_joint};
            for (int v = 0; v < 5; v++) { /* in this order on one batch; the last on s2 */
                uint32_t k = sets[v][1] ? 2 : 1;
                inputs(&f, N, k, (uint32_t)v, times, mix, NULL);
                for (int aos = 1; aos >= 0; aos--) {
                    sk_batch_pipeline p = {.skeleton = v == 4 ? s2 : f.s, .character_count = N, .clips = sets[v], .clip_count = k,
                                           .loop = SK_LOOP_REPEAT, .times = times, .mix = k == 2 ? mix : NULL,
                                           .aos = aos == 1, .out_local = aos ? want : got};
                    if (v == 0) p.post = stray_write, p.post_user = &h, p.post_joints = &free_joint, p.post_joint_count = 1;
                    assert_int_equal(sk_batch_run_pipeline(b, &p, &err), SK_OK);
                }
                if (memcmp(got, want, local_bytes))
                    fail_msg("%u threads, %s, run %d: the SoA path's local poses differ from the sk_pose path's",
                             thread_counts[t], z ? "compressed" : "float keys", v);
                runs++;
                if (v == 0) /* the hook's change shows on character 3 (and so must not on 8, whose pose buffer it may share) */
                    assert_true(got[(size_t)8 * f.n + free_joint].t.x != got[(size_t)3 * f.n + free_joint].t.x);
            }
        }
        sk_batch_destroy(b);
    }
    assert_int_equal(runs, NTHREADS * 2 * 5);
    sk_skeleton_destroy(s2);
    free(rest2);
    for (int i = 0; i < 3; i++) sk_clip_destroy(packed[i]);
    free(got), free(want);
    sk_asset_destroy(f.a);
}

typedef struct cb_state {
    uint32_t *hits;
    uint32_t threads;
    uint32_t fail_a, fail_b; /* characters that fail (UINT32_MAX: none) */
} cb_state;
static sk_result cb_work(void *user, uint32_t c, uint32_t thread, void *scratch, sk_error *err) {
    cb_state *s = user;
    if (thread >= s->threads) s->hits[c] += 1000; /* caught below */
    uint64_t *acc = scratch;
    acc[0] += c; /* this thread's own block */
    s->hits[c]++;
    if (c == s->fail_a || c == s->fail_b) return sk_error_set(err, SK_ERR_INVALID_DATA, "bad input %u", c * 10);
    return SK_OK;
}

static void test_callbacks_and_errors(void **state) {
    (void)state;
    sk_error err = {0};
    enum { N = 1000 };
    for (size_t t = 0; t < NTHREADS; t++) {
        sk_batch *b = NULL;
        sk_batch_desc d = {.threads = thread_counts[t], .scratch_bytes = 24};
        assert_int_equal(sk_batch_create(&d, NULL, &b, &err), SK_OK);
        static uint32_t hits[N];
        memset(hits, 0, sizeof hits);
        cb_state s = {hits, thread_counts[t], UINT32_MAX, UINT32_MAX};
        for (int rep = 0; rep < 3; rep++) assert_int_equal(sk_batch_run(b, N, cb_work, &s, &err), SK_OK);
        for (uint32_t c = 0; c < N; c++) assert_int_equal(hits[c], 3);
        assert_int_equal(sk_batch_run(b, 0, cb_work, &s, &err), SK_OK);
        /* two failures: the lower index is reported, every time, whatever the thread count */
        for (int rep = 0; rep < 5; rep++) {
            s.fail_a = 731, s.fail_b = 37 + (uint32_t)rep;
            memset(&err, 0, sizeof err);
            assert_int_equal(sk_batch_run(b, N, cb_work, &s, &err), SK_ERR_INVALID_DATA);
            char want[64];
            snprintf(want, sizeof want, "character %u: bad input %u", s.fail_b, s.fail_b * 10);
            assert_string_equal(err.message, want);
            assert_int_equal(err.code, SK_ERR_INVALID_DATA);
            for (uint32_t c = 0; c <= s.fail_b; c++) assert_true(hits[c] >= 4); /* everything below ran */
        }
        /* and the batch works again after a failure */
        s.fail_a = s.fail_b = UINT32_MAX;
        assert_int_equal(sk_batch_run(b, N, cb_work, &s, &err), SK_OK);
        assert_int_equal(sk_batch_run(b, 10, NULL, &s, &err), SK_ERR_INVALID_ARGUMENT);
        sk_batch_destroy(b);
    }
}

/* Many tiny runs back to back: workers often wake after the caller has done
 * every character (they find no chunk and leave, or join the next run). */
static void test_many_small_runs(void **state) {
    (void)state;
    sk_error err = {0};
    for (size_t t = 1; t < NTHREADS; t++) {
        sk_batch *b = NULL;
        sk_batch_desc d = {.threads = thread_counts[t], .scratch_bytes = 8};
        assert_int_equal(sk_batch_create(&d, NULL, &b, &err), SK_OK);
        uint32_t hits[8] = {0}, want[8] = {0};
        cb_state s = {hits, thread_counts[t], UINT32_MAX, UINT32_MAX};
        for (uint32_t r = 0; r < 600; r++) {
            uint32_t n = 1 + r % 8;
            for (uint32_t c = 0; c < n; c++) want[c]++;
            assert_int_equal(sk_batch_run(b, n, cb_work, &s, &err), SK_OK);
        }
        assert_memory_equal(hits, want, sizeof hits);
        sk_batch_destroy(b);
    }
}

static sk_result post_fail(void *user, uint32_t c, uint32_t thread, void *scratch, sk_pose *pose, sk_error *err) {
    (void)user, (void)pose, (void)thread, (void)scratch;
    if (c == 123 || c == 250) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "IK target is NaN");
    return SK_OK;
}

static void test_bad_pipelines(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    sk_error err = {0};
    sk_batch *b = NULL;
    sk_batch_desc d = {.threads = 3, .max_joints = f.n - 1, .max_clips = 2};
    assert_int_equal(sk_batch_create(&d, NULL, &b, &err), SK_OK);
    double times[CHARS * 2] = {0};
    float mix[CHARS] = {0};
    sk_mat4 *pal = calloc((size_t)CHARS * f.pn, sizeof *pal);
    assert_non_null(pal);
    sk_batch_pipeline p = {.skeleton = f.s, .character_count = CHARS, .clips = f.clips, .clip_count = 2,
                           .times = times, .mix = mix, .skin = f.skin, .out_palette = pal};
    assert_int_equal(sk_batch_run_pipeline(b, &p, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "max_joints"));
    sk_batch_destroy(b);
    d.max_joints = f.n;
    assert_int_equal(sk_batch_create(&d, NULL, &b, &err), SK_OK);
    assert_int_equal(sk_batch_run_pipeline(b, &p, &err), SK_OK);
    p.clip_count = 3;
    assert_int_equal(sk_batch_run_pipeline(b, &p, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "max_clips"));
    p.clip_count = 2, p.mix = NULL;
    assert_int_equal(sk_batch_run_pipeline(b, &p, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "weights"));
    p.mix = mix, p.times = NULL;
    assert_int_equal(sk_batch_run_pipeline(b, &p, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "times"));
    p.times = times;
    uint32_t cur[4];
    p.cursors = cur, p.cursor_stride = 1;
    assert_int_equal(sk_batch_run_pipeline(b, &p, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "cursor_stride"));
    p.cursors = NULL, p.skin = NULL;
    assert_int_equal(sk_batch_run_pipeline(b, &p, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "skin"));
    p.skin = f.skin;
    /* a failing hook: the lowest character is named */
    p.post = post_fail;
    for (int rep = 0; rep < 4; rep++) {
        assert_int_equal(sk_batch_run_pipeline(b, &p, &err), SK_ERR_INVALID_ARGUMENT);
        assert_string_equal(err.message, "character 123: IK target is NaN");
    }
    /* the same on the SoA path (the hook's joints listed), where characters go eight at a
     * time through local-to-model: every character before the failure is finished */
    sk_mat4 *ref = calloc((size_t)CHARS * f.pn, sizeof *ref);
    assert_non_null(ref);
    p.post = NULL;
    for (uint32_t c = 0; c < CHARS; c++) times[2 * c] = 0.01 * c, times[2 * c + 1] = 0.02 * c, mix[c] = (float)(c % 5) / 4.0f;
    assert_int_equal(sk_batch_run_pipeline(b, &p, &err), SK_OK);
    memcpy(ref, pal, (size_t)CHARS * f.pn * sizeof *ref);
    uint32_t hook_joint = 1;
    p.post = post_fail, p.post_joints = &hook_joint, p.post_joint_count = 1;
    for (int rep = 0; rep < 4; rep++) {
        memset(pal, 0, (size_t)CHARS * f.pn * sizeof *pal);
        assert_int_equal(sk_batch_run_pipeline(b, &p, &err), SK_ERR_INVALID_ARGUMENT);
        assert_string_equal(err.message, "character 123: IK target is NaN");
        assert_memory_equal(pal, ref, (size_t)123 * f.pn * sizeof *pal);
    }
    free(ref);
    sk_batch_destroy(b);
    free(pal);
    sk_asset_destroy(f.a);
}

static void test_create_destroy(void **state) {
    (void)state;
    sk_error err = {0};
    sk_batch *b = NULL;
    sk_batch_destroy(NULL);
    assert_int_equal(sk_batch_create(NULL, NULL, &b, &err), SK_ERR_INVALID_ARGUMENT);
    sk_batch_desc d = {.threads = 1000};
    assert_int_equal(sk_batch_create(&d, NULL, &b, &err), SK_ERR_INVALID_ARGUMENT);
    assert_null(b);
    d = (sk_batch_desc){.threads = 2, .max_joints = 10};
    assert_int_equal(sk_batch_create(&d, NULL, &b, &err), SK_ERR_INVALID_ARGUMENT);
    d = (sk_batch_desc){.threads = 2, .max_joints = 10, .max_clips = SK_BATCH_MAX_CLIPS + 1};
    assert_int_equal(sk_batch_create(&d, NULL, &b, &err), SK_ERR_INVALID_ARGUMENT);
    /* 0 threads: the online processors; created and destroyed many times, some never run */
    for (uint32_t i = 0; i < 20; i++) {
        d = (sk_batch_desc){.threads = i % 4, .scratch_bytes = 8};
        assert_int_equal(sk_batch_create(&d, NULL, &b, &err), SK_OK);
        assert_true(sk_batch_thread_count(b) >= 1);
        if (i % 2) {
            static uint32_t hits[50];
            cb_state s = {hits, sk_batch_thread_count(b), UINT32_MAX, UINT32_MAX};
            assert_int_equal(sk_batch_run(b, 50, cb_work, &s, &err), SK_OK);
        }
        sk_batch_destroy(b);
    }
    /* out of memory at each allocation of the creation: refused, nothing leaked */
    for (size_t limit = 0; limit < 3; limit++) {
        counter cnt = {0};
        limited lim = {&cnt, limit};
        sk_allocator al = {limited_alloc, NULL, limited_free, &lim};
        d = (sk_batch_desc){.threads = 3, .max_joints = 20, .max_clips = 2, .scratch_bytes = 100};
        sk_result r = sk_batch_create(&d, &al, &b, &err);
        if (limit < 3) {
            assert_int_equal(r, SK_ERR_OUT_OF_MEMORY);
            assert_null(b);
        }
        sk_batch_destroy(b);
        assert_int_equal(cnt.live, 0);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pipeline_matches_single_thread),
        cmocka_unit_test(test_compressed_pipeline),
        cmocka_unit_test(test_weights_hook_skinning),
        cmocka_unit_test(test_hook_soa_joints), cmocka_unit_test(test_held_samples),
        cmocka_unit_test(test_callbacks_and_errors),
        cmocka_unit_test(test_many_small_runs),
        cmocka_unit_test(test_bad_pipelines),
        cmocka_unit_test(test_create_destroy),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
