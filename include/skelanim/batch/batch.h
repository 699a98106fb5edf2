/* skelanim — batch update of many characters across threads.
 *
 * An sk_batch is a fixed pool of worker threads created once (with its
 * per-thread scratch memory); every frame one call runs a job over N
 * characters split into chunks, worked by the pool and the calling thread,
 * and returns when every character is done. Nothing is allocated per frame.
 *
 * Two kinds of job:
 *  - sk_batch_run: a callback per character (any work: a player, a state
 *    machine, a locomotor...), with a per-thread scratch block;
 *  - sk_batch_run_pipeline: the per-frame animation pipeline described by
 *    data: sample up to SK_BATCH_MAX_CLIPS clips with per-character times and
 *    cursors, blend them, an optional post-process hook (IK, locomotion
 *    adjustment), local-to-model, the skinning palette and optional CPU
 *    skinning.
 *
 * Determinism: a character's result depends only on its own inputs, never on
 * which thread ran it or on the thread count: every character runs the same
 * functions on the same data as the single-threaded path, and each writes
 * only its own outputs. Palettes, model matrices, poses and skinned vertices
 * are bit-identical for 1, 2 or any number of threads (tests/test_batch.c
 * compares them byte for byte). Errors are deterministic too: when several
 * characters fail, the one with the lowest index is reported, as a loop over
 * the characters on one thread would report it.
 *
 * Threads: the pool uses POSIX threads. It lives in its own library,
 * libskelanim_batch (links libskelanim and the thread library); libskelanim
 * itself stays libc + libm. The library keeps no global state: any number of
 * pools may exist. One sk_batch runs one job at a time: call sk_batch_run*
 * from one thread at a time (the callback must not call back into the same
 * batch). Read-only data (skeleton, clips, skin, skinned mesh) is shared by
 * every thread; everything a character writes must belong to it alone. */
#ifndef SKELANIM_BATCH_H
#define SKELANIM_BATCH_H

#include "skelanim/anim/blend.h"
#include "skelanim/core/palette.h"
#include "skelanim/skin/skinning.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_batch sk_batch;

/* Most clips one pipeline samples per character. */
#define SK_BATCH_MAX_CLIPS 8

typedef struct sk_batch_desc {
    /* Threads that work a frame, the calling thread included (the pool
     * starts threads - 1 workers). 0 = the number of online processors.
     * At most 256. */
    uint32_t threads;
    /* Characters per chunk a thread takes at a time; 0 = chosen per run
     * from the count and the thread count (at most 32). */
    uint32_t chunk;
    /* Pipeline scratch, allocated once per thread: the largest skeleton
     * (joints) and number of clips pipelines will run with. 0 and 0: the
     * batch runs callbacks only. Per thread, about (max_clips + 1) poses
     * and matrices of max_joints joints, plus eight characters' poses and
     * matrices of up to 256 joints (832 bytes per joint). */
    uint32_t max_joints;
    uint32_t max_clips;
    /* Bytes of scratch per thread for callbacks (sk_batch_run's `scratch`,
     * 64-byte aligned, zeroed at creation, kept between runs); may be 0. */
    size_t scratch_bytes;
} sk_batch_desc;

/* Creates the pool: starts the workers and allocates every thread's scratch
 * through alloc (NULL = C library). Fails with SK_ERR_INVALID_ARGUMENT on a
 * bad description, SK_ERR_OUT_OF_MEMORY, or SK_ERR_LIMIT when the system
 * refuses a thread (no thread is left running then). */
SK_API sk_result sk_batch_create(const sk_batch_desc *desc, const sk_allocator *alloc, sk_batch **out, sk_error *err);
/* Stops and joins the workers and frees everything. NULL is a no-op. Must
 * not be called while a run is in progress. */
SK_API void sk_batch_destroy(sk_batch *batch);
/* Threads working a frame, the caller included. */
SK_API uint32_t sk_batch_thread_count(const sk_batch *batch);

/* ---- Callback jobs ------------------------------------------------------ */

/* Work for one character. `thread` (0 .. thread_count-1; 0 is the calling
 * thread) tells which scratch block is in use: scratch is that thread's
 * scratch_bytes block (NULL if scratch_bytes is 0), never used by two
 * characters at once. Return SK_OK, or a code with err filled. */
typedef sk_result (*sk_batch_fn)(void *user, uint32_t character, uint32_t thread, void *scratch, sk_error *err);

/* Runs fn for characters 0 .. count-1 over every thread and returns when all
 * are done. On failure the error of the lowest-index failing character is
 * returned, its message prefixed by "character N: "; characters with a
 * higher index than a known failure may be skipped. */
SK_API sk_result sk_batch_run(sk_batch *batch, uint32_t count, sk_batch_fn fn, void *user, sk_error *err);

/* ---- The animation pipeline ------------------------------------------- */

/* Post-process hook: called with a character's blended local pose (no morph
 * weights, weight_count 0) before local-to-model; IK, locomotion leg
 * adjustment or any procedural step plugs in here. It may change the pose
 * and read or write its own per-character state; it must not touch another
 * character's data. thread and scratch are as for sk_batch_fn (the thread's
 * scratch_bytes block, e.g. IK scratch). */
typedef sk_result (*sk_batch_post_fn)(void *user, uint32_t character, uint32_t thread, void *scratch, sk_pose *pose,
                                      sk_error *err);

typedef struct sk_batch_pipeline {
    const sk_skeleton *skeleton;      /* joint_count <= the batch's max_joints */
    uint32_t character_count;
    /* Clips, shared by every character (1 .. max_clips). */
    const sk_clip *const *clips;
    uint32_t clip_count;
    sk_loop_mode loop;
    /* Per character and clip, index character * clip_count + clip: */
    const double *times;              /* required: clip time in seconds */
    /* Blending. One clip: none. Two clips: `mix` (one per character) gives
     * sk_blend_two(pose0, pose1, mix, slerp) — the crowd's blend; with mix
     * NULL, `weights` is used as below. Any count: `weights` (clip_count per
     * character) gives sk_blend_poses with blend_options. */
    const float *mix;
    bool mix_slerp;                   /* sk_blend_two's use_slerp */
    const float *weights;
    const sk_blend_options *blend_options; /* NULL = defaults */
    /* Key cursors (amortised O(1) sampling): cursor_stride uint32_t per
     * character (sk_batch_cursor_stride), zeroed before the first frame and
     * kept between frames; NULL = random access. */
    uint32_t *cursors;
    size_t cursor_stride;
    /* Cursors that also keep compressed clips' decoded frames
     * (sk_clip_cursor_cache_size; stride from sk_batch_cursor_cache_stride):
     * faster forward playback where the crowd's cursors stay in the CPU's
     * cache, slower where they do not (docs/compression.md). */
    bool cursor_cache;
    /* Cursors with room for a third decoded frame (sk_clip_cursor_ahead_size;
     * stride from sk_batch_cursor_ahead_stride; implies cursor_cache): faster
     * still for crowds whose cursors stay in the CPU's cache. */
    bool cursor_ahead;
    /* Optional hook (see sk_batch_post_fn). */
    sk_batch_post_fn post;
    void *post_user;
    /* The joints the hook reads or writes (post_joint_count indices, each
     * below joint_count; repeats allowed). Given, the pipeline keeps its
     * structure-of-arrays path with the hook: the hook's pose holds these
     * joints of the blended pose and unspecified values elsewhere (never to
     * be read), and only these joints are taken back from it. An IK hook
     * lists its chains and every ancestor of their roots (model space is
     * computed from them). NULL: the whole pose goes to the hook, on the
     * sk_pose path. The results are the same bits either way when the hook
     * keeps to the joints listed. */
    const uint32_t *post_joints;
    uint32_t post_joint_count;
    /* Root matrix per character (NULL = identity for all). */
    const sk_mat4 *roots;
    /* Outputs, all optional, character c at c * (size per character):
     * out_local: joint_count transforms (the pose after the hook);
     * out_model: joint_count matrices (else kept in thread scratch);
     * out_palette: skin->joint_count matrices (needs skin).
     * Any float alignment works; on 64-byte boundaries (aligned_alloc(64, ...):
     * a matrix per cache line), like `cursors`, they are fastest. */
    sk_transform *out_local;
    sk_mat4 *out_model;
    const sk_skin *skin;
    sk_mat4 *out_palette;
    /* Optional CPU skinning of one prepared mesh per character with its
     * palette (needs skin and out_palette): positions and normals, packed,
     * vertex_count * 3 floats per character; either may be NULL. */
    const sk_skinned_mesh *mesh;
    sk_skin_method skin_method;       /* SK_SKIN_LBS only (DQS needs dual quaternions: use a callback) */
    float *out_positions;
    float *out_normals;
    /* Layout of the per-frame poses. With no post hook or one whose joints
     * are listed (post_joints), and no compressed clip on a CPU without AVX2
     * (sk_clip_samples_soa_directly), the pipeline samples, blends (nlerp or
     * slerp: core/soa.h, anim/soa_layers.h) and runs local-to-model on
     * structure-of-arrays poses, four or eight joints at a time, with the
     * same results bit for bit; otherwise on sk_pose. On that path, for
     * skeletons of up to 256 joints whose palette (if any) is made in the
     * local-to-model pass (sk_skin_joint_map), local-to-model and the
     * palette take eight characters at a time (sk_local_to_model_soa_many),
     * the same bits again. aos = true keeps sk_pose throughout (to
     * compare). */
    bool aos;
} sk_batch_pipeline;

/* The cursor memory per character for these clips: the sum of
 * sk_clip_cursor_size over them. */
SK_API size_t sk_batch_cursor_stride(const sk_clip *const *clips, uint32_t clip_count);
/* The same with sk_clip_cursor_cache_size (for cursor_cache). */
SK_API size_t sk_batch_cursor_cache_stride(const sk_clip *const *clips, uint32_t clip_count);
/* The same with sk_clip_cursor_ahead_size (for cursor_cache with cursor_ahead). */
SK_API size_t sk_batch_cursor_ahead_stride(const sk_clip *const *clips, uint32_t clip_count);

/* Runs the pipeline for every character. Checks the description first
 * (SK_ERR_INVALID_ARGUMENT naming the field: skeleton larger than the
 * batch's scratch, too many clips, missing times, a cursor stride too small,
 * skinning without a palette...); then per character errors are reported as
 * sk_batch_run reports them ("character N: ..."). */
SK_API sk_result sk_batch_run_pipeline(sk_batch *batch, const sk_batch_pipeline *pipeline, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
