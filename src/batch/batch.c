/* The batch updater: a fixed pool of POSIX threads and per-thread scratch,
 * created once; per frame the characters are handed out in chunks through
 * one atomic counter, the calling thread works too, and the call returns when
 * every chunk is done. Nothing is allocated per frame.
 *
 * A worker joins a run under the mutex (active++) and leaves it under the
 * mutex (active--); the caller writes the job only while no worker is active
 * and returns once every chunk has been taken and no worker is active. A
 * worker that wakes late (a loaded machine) finds no chunk left and leaves:
 * the frame never waits for a thread that has not started it. */
#define _POSIX_C_SOURCE 200809L

#include "skelanim/batch/batch.h"
#include "skelanim/anim/soa_layers.h"
#include "skelanim/core/soa.h"

#include "core/internal.h"

/* The pipeline keeps a skin joint map (sk_skin_joint_map) for skeletons up to
 * this size; larger ones make the palette after local-to-model. */
#define SK_BATCH_PALETTE_MAP_MAX 1024u
/* Skeletons up to this size take local-to-model eight characters at a time
 * (sk_local_to_model_soa_many): each thread keeps eight more SoA poses and
 * the function's scratch (128 floats per joint). */
#define SK_BATCH_X8_JOINTS 256u

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#define SK_BATCH_MAX_THREADS 256u
#define SK_BATCH_ALIGN 64u
#define SK_BATCH_NONE UINT32_MAX
#define SK_BATCH_HELD_X8 (SK_BATCH_MAX_CLIPS + 1) /* batch_slot.held: the x8 poses' first entry */

static size_t align_up(size_t n) { return (n + (SK_BATCH_ALIGN - 1)) & ~(size_t)(SK_BATCH_ALIGN - 1); }

/* One thread's state; written only by its thread during a run, read by the
 * caller after the run (the pool's mutex orders both). */
typedef struct batch_slot {
    struct sk_batch *batch;
    uint32_t id;                 /* 0: the calling thread */
    void *scratch;               /* the callback's scratch_bytes block, or NULL */
    sk_transform *poses;         /* max_clips + 1 poses of max_joints transforms */
    float *soa;                  /* max_clips + 1 SoA poses of max_joints joints (the SoA path), then
                                  * 8 of x8_joints joints (the eight characters' poses, batch_x8) */
    float *x8;                   /* sk_soa_many_scratch_floats(x8_joints) floats (batch_x8), or NULL */
    /* The clip whose sample each SoA pose holds this run (soa's first max_clips + 1, then from
     * SK_BATCH_HELD_X8 the eight x8 poses), NULL for none: sampled again by
     * sk_clip_sample_soa_update. */
    const sk_clip *held[SK_BATCH_HELD_X8 + 8];
    sk_mat4 *model;              /* max_joints matrices */
    uint32_t err_index;          /* lowest failing character this run, or SK_BATCH_NONE */
    sk_result err_code;
    sk_error err;                /* its error */
    sk_error tmp;
} batch_slot;

/* The job of the current run (set by the caller under the mutex before the
 * workers are woken; read-only during the run). */
typedef struct batch_job {
    sk_batch_fn fn;
    void *user;
    uint32_t count, chunk;
    const sk_batch_pipeline *pipe; /* non-NULL: the pipeline (fn unused) */
    size_t cursor_offset[SK_BATCH_MAX_CLIPS], cursor_size[SK_BATCH_MAX_CLIPS];
    uint32_t palette_count, vertex_count;
    bool soa;                      /* the pipeline takes the SoA path */
    bool fused_palette;            /* SoA path: the palette made in the local-to-model pass (palette_map) */
    bool x8;                       /* SoA path: local-to-model eight characters at a time (batch_x8) */
    bool prefetch;                 /* the next character's cursors prefetched (prefetch_cursors) */
    int16_t palette_map[SK_BATCH_PALETTE_MAP_MAX];
} batch_job;

struct sk_batch {
    sk_allocator alloc;
    uint32_t threads, chunk, max_joints, max_clips;
    uint32_t x8_joints;          /* joints of the slots' x8 poses and matrices (0: none) */
    size_t l2_bytes;             /* a core's L2 cache (prefetch_cursors) */
    size_t scratch_bytes;
    void *block;                 /* slots and scratch, one allocation */
    size_t block_size;
    batch_slot **slots;          /* threads entries, each on its own cache lines */
    pthread_t *workers;          /* threads - 1 */
    uint32_t started;
    bool sync_ready;
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    uint64_t generation;         /* bumped per run */
    uint32_t active;             /* workers inside a run */
    bool quit;
    batch_job job;
    atomic_ullong next_chunk;
    atomic_uint fail_index;      /* lowest failing character so far, or SK_BATCH_NONE */
};

/* ---- per-character pipeline ---------------------------------------------- */

/* Character c's palette from its model matrices (unless the local-to-model
 * pass made it: made), then its CPU skinning (both paths). */
static sk_result palette_and_skin(const batch_job *job, uint32_t c, const sk_mat4 *model, uint32_t n, bool made,
                                  sk_error *err) {
    const sk_batch_pipeline *p = job->pipe;
    sk_mat4 *pal = p->out_palette + (size_t)c * job->palette_count;
    sk_result r = made ? SK_OK : sk_skin_palette(p->skin, model, n, pal, job->palette_count, err);
    if (r != SK_OK || !p->mesh) return r;
    size_t v = (size_t)c * job->vertex_count * 3;
    sk_skin_job sj = {0};
    sj.mesh = p->mesh;
    sj.method = SK_SKIN_LBS;
    sj.palette = pal;
    sj.palette_count = job->palette_count;
    sj.out_positions = p->out_positions ? p->out_positions + v : NULL;
    sj.out_normals = p->out_normals ? p->out_normals + v : NULL;
    return sk_skin_run(&sj, err);
}

/* The hook on the SoA path: the listed joints out of the SoA pose into the
 * thread's sk_pose scratch, the hook, and the same joints back. */
static sk_result post_soa(const batch_job *job, uint32_t c, batch_slot *s, sk_soa_pose *pose, sk_error *err) {
    const sk_batch_pipeline *p = job->pipe;
    uint32_t n = p->skeleton->joint_count;
    for (uint32_t i = 0; i < p->post_joint_count; i++) sk_soa_pose_get(pose, p->post_joints[i], &s->poses[p->post_joints[i]]);
    sk_pose view = sk_pose_view(s->poses, n, NULL, 0);
    sk_result r = p->post(p->post_user, c, s->id, s->scratch, &view, err);
    if (r != SK_OK) return r;
    for (uint32_t i = 0; i < p->post_joint_count; i++) sk_soa_pose_set(pose, p->post_joints[i], &s->poses[p->post_joints[i]]);
    return SK_OK;
}

/* The next character's cursors toward the cache while this one is worked: a
 * crowd's cursors are read once a frame, character after character, and a
 * decoder's first reads of them would wait (a hint only; up to 4 KiB). Only
 * where a thread's share of the cursors is more than its core's L2
 * (batch_job.prefetch): a smaller crowd's cursors mostly stay in the L2 from
 * frame to frame, and the hints cost more than they save. */
static inline void prefetch_cursors(const batch_job *job, uint32_t next) {
#if defined(__GNUC__) || defined(__clang__)
    const sk_batch_pipeline *p = job->pipe;
    if (!job->prefetch) return;
    const char *q = (const char *)(p->cursors + (size_t)next * p->cursor_stride);
    size_t bytes = p->cursor_stride * sizeof(uint32_t);
    for (size_t o = 0; o < bytes && o < 4096; o += 64) __builtin_prefetch(q + o);
#else
    (void)job, (void)next;
#endif
}

/* sk_soa_pose_view without a call into the core library per pose. */
static inline sk_soa_pose soa_view(float *data, uint32_t n) {
    sk_soa_pose v = {data, n, (n + SK_SOA_LANES - 1) / SK_SOA_LANES};
    return v;
}

/* The structure-of-arrays path (core/soa.h, anim/soa_layers.h: the same
 * results, bit for bit): one clip, two mixed as sk_blend_two does, or any
 * count by weights as sk_blend_poses does; a hook whose joints are listed
 * (post_soa). Character c's pose: the clips sampled into the slot's first
 * k SoA poses, the blend (one clip: the sample) into dst; *out views it. */
static sk_result pipeline_pose_soa(const sk_batch *b, const batch_job *job, uint32_t c, batch_slot *s, float *dst,
                                   const sk_clip **dst_held, sk_soa_pose *out, sk_error *err) {
    const sk_batch_pipeline *p = job->pipe;
    const sk_skeleton *skel = p->skeleton;
    uint32_t n = skel->joint_count, k = p->clip_count;
    size_t stride = sk_soa_pose_floats(b->max_joints);
    sk_soa_pose sp[SK_BATCH_MAX_CLIPS];
    const sk_soa_pose *in[SK_BATCH_MAX_CLIPS];
    for (uint32_t i = 0; i < k; i++) sp[i] = soa_view(k == 1 ? dst : s->soa + i * stride, n), in[i] = &sp[i];
    *out = soa_view(dst, n);
    sk_result r;
    for (uint32_t i = 0; i < k; i++) {
        double t = p->times[(size_t)c * k + i];
        uint32_t *cur = p->cursors ? p->cursors + (size_t)c * p->cursor_stride + job->cursor_offset[i] : NULL;
        /* a pose that holds this clip's sample takes only what changes (core/soa.h) */
        const sk_clip **h = k == 1 ? dst_held : &s->held[i];
        r = (*h == p->clips[i] ? sk_clip_sample_soa_update : sk_clip_sample_soa)(p->clips[i], skel, t, p->loop, cur,
                                                                                 cur ? job->cursor_size[i] : 0, &sp[i], err);
        *h = r == SK_OK ? p->clips[i] : NULL;
        if (r != SK_OK) return r;
    }
    if (k > 1 || p->post) *dst_held = NULL; /* dst gets the blend, or the hook writes it */
    if (k == 2 && p->mix) {
        r = p->mix_slerp ? sk_blend_two_masked_soa(skel, &sp[0], &sp[1], p->mix[c], NULL, true, out, err)
                         : sk_blend_two_soa(skel, &sp[0], &sp[1], p->mix[c], out, err);
        if (r != SK_OK) return r;
    } else if (k > 1) {
        const float *w = p->weights + (size_t)c * k;
        if (p->blend_options && p->blend_options->rotation == SK_BLEND_SLERP) { /* anim/soa_layers.h */
            sk_soa_blend_input bi[SK_BATCH_MAX_CLIPS];
            for (uint32_t i = 0; i < k; i++) bi[i] = (sk_soa_blend_input){&sp[i], w[i], NULL, NULL};
            r = sk_blend_poses_soa(skel, bi, k, p->blend_options, out, err);
        } else {
            bool fill = !(p->blend_options && p->blend_options->no_rest_fill);
            r = sk_blend_weighted_soa(skel, in, w, k, fill, out, err);
        }
        if (r != SK_OK) return r;
    }
    if (p->post && (r = post_soa(job, c, s, out, err)) != SK_OK) return r;
    if (p->out_local) {
        sk_pose view = sk_pose_view(p->out_local + (size_t)c * n, n, NULL, 0);
        if ((r = sk_soa_pose_to_pose(skel, out, &view, err)) != SK_OK) return r;
    }
    return SK_OK;
}

static sk_result pipeline_character_soa(const sk_batch *b, const batch_job *job, uint32_t c, batch_slot *s,
                                        sk_error *err) {
    const sk_batch_pipeline *p = job->pipe;
    const sk_skeleton *skel = p->skeleton;
    uint32_t n = skel->joint_count;
    sk_soa_pose one, *pose = &one;
    sk_result r = pipeline_pose_soa(b, job, c, s, s->soa + p->clip_count * sk_soa_pose_floats(b->max_joints),
                                    &s->held[p->clip_count], pose, err);
    if (r != SK_OK) return r;
    if (!p->out_model && !p->out_palette) return SK_OK;
    sk_mat4 *model = p->out_model ? p->out_model + (size_t)c * n : s->model;
    if (job->fused_palette) { /* the palette in the same pass (core/soa.h) */
        r = sk_local_to_model_palette_soa(skel, pose, p->roots ? &p->roots[c] : NULL, model, n, p->skin,
                                          job->palette_map, p->out_palette + (size_t)c * job->palette_count,
                                          job->palette_count, err);
        return r != SK_OK ? r : palette_and_skin(job, c, model, n, true, err);
    }
    r = sk_local_to_model_soa(skel, pose, p->roots ? &p->roots[c] : NULL, model, n, err);
    if (r != SK_OK || !p->out_palette) return r;
    return palette_and_skin(job, c, model, n, false, err);
}

static void record_failure(sk_batch *b, batch_slot *s, uint32_t c, sk_result r);

/* Characters [first, end) of a chunk on the SoA path, eight at a time: each
 * one's pose (pipeline_pose_soa) into the slot's x8 poses, then their
 * local-to-model and palettes in one pass (sk_local_to_model_soa_many: the
 * bits of the one-character pass), then the skinning of each. On a failure the
 * characters before it are finished and the chunk stops. */
static void batch_x8(sk_batch *b, const batch_job *job, batch_slot *s, uint32_t first, uint32_t end) {
    const sk_batch_pipeline *p = job->pipe;
    const sk_skeleton *skel = p->skeleton;
    uint32_t n = skel->joint_count;
    float *base = s->soa + ((size_t)b->max_clips + 1) * sk_soa_pose_floats(b->max_joints);
    size_t stride = sk_soa_pose_floats(b->x8_joints);
    for (uint32_t c0 = first; c0 < end; c0 += 8) {
        uint32_t m = end - c0 < 8 ? end - c0 : 8, ok = 0, failed = SK_BATCH_NONE;
        sk_result fr = SK_OK;
        sk_soa_pose pose[8];
        const sk_soa_pose *pp[8];
        const sk_mat4 *roots[8];
        sk_mat4 *model[8], *pal[8];
        for (uint32_t i = 0; i < m; i++, ok++) {
            uint32_t c = c0 + i;
            s->tmp.code = SK_OK;
            s->tmp.message[0] = '\0';
            if (c + 1 < end) prefetch_cursors(job, c + 1);
            fr = pipeline_pose_soa(b, job, c, s, base + i * stride, &s->held[SK_BATCH_HELD_X8 + i], &pose[i], &s->tmp);
            if (fr != SK_OK) {
                failed = c;
                break;
            }
            pp[i] = &pose[i];
            roots[i] = p->roots ? &p->roots[c] : NULL;
            model[i] = p->out_model ? p->out_model + (size_t)c * n : NULL;
            pal[i] = p->out_palette ? p->out_palette + (size_t)c * job->palette_count : NULL;
        }
        if (failed != SK_BATCH_NONE) record_failure(b, s, failed, fr); /* s->tmp is the failure's */
        if (ok && (p->out_model || p->out_palette)) {
            bool fp = job->fused_palette;
            sk_result r = sk_local_to_model_soa_many(skel, ok, pp, p->roots ? roots : NULL, p->out_model ? model : NULL, n,
                                                     fp ? p->skin : NULL, fp ? job->palette_map : NULL, fp ? pal : NULL,
                                                     job->palette_count, s->x8, sk_soa_many_scratch_floats(b->x8_joints), &s->tmp);
            if (r != SK_OK) {
                record_failure(b, s, c0, r);
                return;
            }
        }
        for (uint32_t i = 0; p->mesh && i < ok; i++) {
            s->tmp.code = SK_OK;
            s->tmp.message[0] = '\0';
            sk_result r = palette_and_skin(job, c0 + i, NULL, n, true, &s->tmp);
            if (r != SK_OK) {
                record_failure(b, s, c0 + i, r);
                return;
            }
        }
        if (failed != SK_BATCH_NONE) return;
    }
}

static sk_result pipeline_character(const sk_batch *b, const batch_job *job, uint32_t c, batch_slot *s,
                                    sk_error *err) {
    const sk_batch_pipeline *p = job->pipe;
    if (job->soa) return pipeline_character_soa(b, job, c, s, err);
    const sk_skeleton *skel = p->skeleton;
    uint32_t n = skel->joint_count, k = p->clip_count;
    sk_transform *sampled[SK_BATCH_MAX_CLIPS];
    for (uint32_t i = 0; i < k; i++) sampled[i] = s->poses + (size_t)i * b->max_joints;
    sk_transform *local = p->out_local ? p->out_local + (size_t)c * n : s->poses + (size_t)k * b->max_joints;
    if (k == 1) sampled[0] = local;
    sk_result r;
    for (uint32_t i = 0; i < k; i++) {
        double t = p->times[(size_t)c * k + i];
        if (p->cursors)
            r = sk_clip_sample_cursor(p->clips[i], skel, t, p->loop, p->cursors + (size_t)c * p->cursor_stride + job->cursor_offset[i],
                                      job->cursor_size[i], SK_POSE_OF(skel, sampled[i], NULL), err);
        else
            r = sk_clip_sample(p->clips[i], skel, t, p->loop, SK_POSE_OF(skel, sampled[i], NULL), err);
        if (r != SK_OK) return r;
    }
    sk_pose pose = sk_pose_view(local, n, NULL, 0);
    if (k == 2 && p->mix) {
        r = sk_blend_two(skel, SK_POSE_OF(skel, sampled[0], NULL), SK_POSE_OF(skel, sampled[1], NULL), p->mix[c], NULL,
                         p->mix_slerp, &pose, err);
        if (r != SK_OK) return r;
    } else if (k > 1) {
        sk_pose views[SK_BATCH_MAX_CLIPS];
        sk_blend_input in[SK_BATCH_MAX_CLIPS];
        for (uint32_t i = 0; i < k; i++) {
            views[i] = sk_pose_view(sampled[i], n, NULL, 0);
            in[i] = (sk_blend_input){&views[i], p->weights[(size_t)c * k + i], NULL, NULL};
        }
        r = sk_blend_poses(skel, in, k, p->blend_options, &pose, err);
        if (r != SK_OK) return r;
    }
    if (p->post && (r = p->post(p->post_user, c, s->id, s->scratch, &pose, err)) != SK_OK) return r;
    if (!p->out_model && !p->out_palette) return SK_OK;
    sk_mat4 *model = p->out_model ? p->out_model + (size_t)c * n : s->model;
    r = sk_local_to_model(skel, &pose, p->roots ? &p->roots[c] : NULL, model, n, err);
    if (r != SK_OK || !p->out_palette) return r;
    return palette_and_skin(job, c, model, n, false, err);
}

/* ---- the work loop every thread runs ---------------------------------- */

static void record_failure(sk_batch *b, batch_slot *s, uint32_t c, sk_result r) {
    if (c < s->err_index) {
        s->err_index = c;
        s->err_code = r;
        s->err = s->tmp;
        s->err.code = r;
    }
    unsigned cur = atomic_load_explicit(&b->fail_index, memory_order_relaxed);
    while (c < cur && !atomic_compare_exchange_weak_explicit(&b->fail_index, &cur, c, memory_order_relaxed,
                                                             memory_order_relaxed)) {
    }
}

static void work(sk_batch *b, batch_slot *s) {
    const batch_job *job = &b->job;
    for (;;) {
        unsigned long long k = atomic_fetch_add_explicit(&b->next_chunk, 1, memory_order_relaxed);
        unsigned long long first = k * job->chunk;
        if (first >= job->count) return;
        /* Chunks are taken in increasing order: once one starts past a
         * known failure, every later one does too. */
        if (first > atomic_load_explicit(&b->fail_index, memory_order_relaxed)) return;
        uint32_t end = (uint32_t)(first + job->chunk < job->count ? first + job->chunk : job->count);
        if (job->x8) {
            batch_x8(b, job, s, (uint32_t)first, end);
            continue;
        }
        for (uint32_t c = (uint32_t)first; c < end; c++) {
            s->tmp.code = SK_OK;
            s->tmp.message[0] = '\0';
            if (job->pipe && c + 1 < end) prefetch_cursors(job, c + 1);
            sk_result r = job->pipe ? pipeline_character(b, job, c, s, &s->tmp)
                                    : job->fn(job->user, c, s->id, s->scratch, &s->tmp);
            if (r != SK_OK) {
                record_failure(b, s, c, r);
                break; /* the rest of the chunk has higher indices */
            }
        }
    }
}

static void *worker_main(void *arg) {
    batch_slot *s = arg;
    sk_batch *b = s->batch;
    uint64_t seen = 0;
    pthread_mutex_lock(&b->mu);
    for (;;) {
        while (b->generation == seen && !b->quit) pthread_cond_wait(&b->wake, &b->mu);
        if (b->quit) break;
        seen = b->generation;
        b->active++;
        pthread_mutex_unlock(&b->mu);
        work(b, s);
        pthread_mutex_lock(&b->mu);
        if (--b->active == 0) pthread_cond_signal(&b->done);
    }
    pthread_mutex_unlock(&b->mu);
    return NULL;
}

/* ---- creation ----------------------------------------------------------- */

static void batch_stop(sk_batch *b) {
    if (b->sync_ready) {
        pthread_mutex_lock(&b->mu);
        b->quit = true;
        pthread_cond_broadcast(&b->wake);
        pthread_mutex_unlock(&b->mu);
    }
    for (uint32_t i = 0; i < b->started; i++) pthread_join(b->workers[i], NULL);
    b->started = 0;
    if (b->sync_ready) {
        pthread_cond_destroy(&b->done);
        pthread_cond_destroy(&b->wake);
        pthread_mutex_destroy(&b->mu);
        b->sync_ready = false;
    }
}

void sk_batch_destroy(sk_batch *b) {
    if (!b) return;
    batch_stop(b);
    sk_allocator alloc = b->alloc;
    if (b->workers) sk_free(&alloc, b->workers, (size_t)(b->threads - 1) * sizeof *b->workers);
    if (b->block) sk_free(&alloc, b->block, b->block_size);
    sk_free(&alloc, b, sizeof *b);
}

static uint32_t online_processors(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) return 1;
    return n > (long)SK_BATCH_MAX_THREADS ? SK_BATCH_MAX_THREADS : (uint32_t)n;
}

/* A core's L2 cache in bytes, where the system says (else 1 MiB). */
static size_t l2_cache_bytes(void) {
#if defined(_SC_LEVEL2_CACHE_SIZE)
    long n = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (n >= 65536) return (size_t)n;
#endif
    return (size_t)1 << 20;
}

sk_result sk_batch_create(const sk_batch_desc *desc, const sk_allocator *alloc, sk_batch **out, sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_batch_create: out is NULL");
    *out = NULL;
    if (!desc) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_batch_create: desc is NULL");
    uint32_t threads = desc->threads ? desc->threads : online_processors();
    if (threads > SK_BATCH_MAX_THREADS)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_batch_create: threads %u is more than %u", threads,
                            SK_BATCH_MAX_THREADS);
    if (desc->max_clips > SK_BATCH_MAX_CLIPS)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_batch_create: max_clips %u is more than %d",
                            desc->max_clips, SK_BATCH_MAX_CLIPS);
    if ((desc->max_clips == 0) != (desc->max_joints == 0))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                            "sk_batch_create: max_joints (%u) and max_clips (%u) must both be 0 (callbacks only) or "
                            "both be set",
                            desc->max_joints, desc->max_clips);
    const sk_allocator *a = sk_allocator_or_default(alloc);
    /* Per slot: the slot, the callback scratch, the poses, the model matrices. */
    size_t poses_bytes = 0, model_bytes = 0, slot_bytes = 0, block = 0;
    size_t soa_bytes = desc->max_joints ? ((size_t)desc->max_clips + 1) * sk_soa_pose_floats(desc->max_joints) * sizeof(float) : 0;
    /* eight characters at a time (batch_x8): their poses and model matrices, up to SK_BATCH_X8_JOINTS joints */
    uint32_t x8j = desc->max_joints < SK_BATCH_X8_JOINTS ? desc->max_joints : SK_BATCH_X8_JOINTS;
    size_t x8_bytes = x8j ? sk_soa_many_scratch_floats(x8j) * sizeof(float) : 0;
    if (x8j) soa_bytes += 8u * sk_soa_pose_floats(x8j) * sizeof(float);
    bool ok = desc->max_joints < (1u << 26) &&
              sk_size_mul((size_t)desc->max_joints * sizeof(sk_transform), (size_t)desc->max_clips + 1, &poses_bytes) &&
              sk_size_mul(desc->max_joints, sizeof(sk_mat4), &model_bytes) && desc->scratch_bytes < SIZE_MAX / 2 &&
              sk_size_add(align_up(sizeof(batch_slot)) + align_up(desc->scratch_bytes), align_up(poses_bytes), &slot_bytes) &&
              sk_size_add(slot_bytes, align_up(model_bytes), &slot_bytes) &&
              sk_size_add(slot_bytes, align_up(soa_bytes), &slot_bytes) &&
              sk_size_add(slot_bytes, align_up(x8_bytes), &slot_bytes) &&
              sk_size_mul(slot_bytes, threads, &block) && sk_size_add(block, SK_BATCH_ALIGN + threads * sizeof(batch_slot *), &block);
    if (!ok) return sk_error_set(err, SK_ERR_LIMIT, "sk_batch_create: scratch size overflows");
    sk_batch *b = sk_alloc(a, sizeof *b);
    if (!b) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_batch_create: out of memory");
    b->alloc = *a;
    b->threads = threads;
    b->chunk = desc->chunk;
    b->max_joints = desc->max_joints;
    b->max_clips = desc->max_clips;
    b->x8_joints = x8j;
    b->l2_bytes = l2_cache_bytes();
    b->scratch_bytes = desc->scratch_bytes;
    atomic_init(&b->next_chunk, 0);
    atomic_init(&b->fail_index, SK_BATCH_NONE);
    b->block = sk_alloc(a, block);
    b->block_size = block;
    if (!b->block || (threads > 1 && !(b->workers = sk_alloc(a, (size_t)(threads - 1) * sizeof *b->workers)))) {
        sk_batch_destroy(b);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_batch_create: out of memory (%zu bytes of scratch)", block);
    }
    b->slots = b->block;
    char *base = (char *)b->block + threads * sizeof(batch_slot *);
    base += (SK_BATCH_ALIGN - (uintptr_t)base % SK_BATCH_ALIGN) % SK_BATCH_ALIGN;
    for (uint32_t i = 0; i < threads; i++) {
        char *p = base + (size_t)i * slot_bytes;
        batch_slot *s = (batch_slot *)p;
        p += align_up(sizeof *s);
        s->batch = b;
        s->id = i;
        s->scratch = desc->scratch_bytes ? p : NULL;
        p += align_up(desc->scratch_bytes);
        s->poses = poses_bytes ? (sk_transform *)p : NULL;
        p += align_up(poses_bytes);
        s->model = model_bytes ? (sk_mat4 *)p : NULL;
        p += align_up(model_bytes);
        s->soa = soa_bytes ? (float *)p : NULL;
        p += align_up(soa_bytes);
        s->x8 = x8_bytes ? (float *)p : NULL;
        s->err_index = SK_BATCH_NONE;
        b->slots[i] = s;
    }
    if (pthread_mutex_init(&b->mu, NULL) != 0) {
        sk_batch_destroy(b);
        return sk_error_set(err, SK_ERR_LIMIT, "sk_batch_create: the system refused a mutex");
    }
    if (pthread_cond_init(&b->wake, NULL) != 0) {
        pthread_mutex_destroy(&b->mu);
        sk_batch_destroy(b);
        return sk_error_set(err, SK_ERR_LIMIT, "sk_batch_create: the system refused a condition variable");
    }
    if (pthread_cond_init(&b->done, NULL) != 0) {
        pthread_cond_destroy(&b->wake);
        pthread_mutex_destroy(&b->mu);
        sk_batch_destroy(b);
        return sk_error_set(err, SK_ERR_LIMIT, "sk_batch_create: the system refused a condition variable");
    }
    b->sync_ready = true;
    for (uint32_t i = 1; i < threads; i++) {
        int e = pthread_create(&b->workers[i - 1], NULL, worker_main, b->slots[i]);
        if (e != 0) {
            sk_batch_destroy(b);
            return sk_error_set(err, SK_ERR_LIMIT, "sk_batch_create: the system refused worker thread %u of %u (error %d)",
                                i, threads - 1, e);
        }
        b->started = i;
    }
    *out = b;
    return SK_OK;
}

uint32_t sk_batch_thread_count(const sk_batch *b) { return b ? b->threads : 0; }

/* ---- running ------------------------------------------------------------ */

/* Sets the job (while no worker is active), wakes the workers, works, and
 * waits until no worker is inside the run. */
static sk_result batch_execute(sk_batch *b, const batch_job *job_in, sk_error *err) {
    if (job_in->count == 0) return SK_OK;
    bool pool = b->threads > 1;
    if (pool) {
        pthread_mutex_lock(&b->mu);
        while (b->active) pthread_cond_wait(&b->done, &b->mu); /* a late worker of the last run */
    }
    batch_job *job = &b->job;
    *job = *job_in;
    for (uint32_t i = 0; i < b->threads; i++) { /* a clip may be another at the same address next run */
        b->slots[i]->err_index = SK_BATCH_NONE;
        memset(b->slots[i]->held, 0, sizeof b->slots[i]->held);
    }
    if (b->chunk) {
        job->chunk = b->chunk;
    } else { /* about 8 chunks per thread, 1 .. 32 characters each */
        uint32_t c = job->count / (b->threads * 8u);
        job->chunk = c < 1 ? 1 : c > 32 ? 32 : c;
    }
    atomic_store_explicit(&b->next_chunk, 0, memory_order_relaxed);
    atomic_store_explicit(&b->fail_index, SK_BATCH_NONE, memory_order_relaxed);
    if (pool) {
        b->generation++;
        pthread_cond_broadcast(&b->wake);
        pthread_mutex_unlock(&b->mu);
    }
    work(b, b->slots[0]);
    if (pool) {
        /* Every chunk is taken; wait for the workers still on theirs. */
        pthread_mutex_lock(&b->mu);
        while (b->active) pthread_cond_wait(&b->done, &b->mu);
        pthread_mutex_unlock(&b->mu);
    }
    const batch_slot *first = NULL;
    for (uint32_t i = 0; i < b->threads; i++)
        if (b->slots[i]->err_index != SK_BATCH_NONE && (!first || b->slots[i]->err_index < first->err_index))
            first = b->slots[i];
    if (!first) return SK_OK;
    return sk_error_set(err, first->err_code, "character %u: %s", first->err_index,
                        first->err.message[0] ? first->err.message : sk_result_string(first->err_code));
}

sk_result sk_batch_run(sk_batch *b, uint32_t count, sk_batch_fn fn, void *user, sk_error *err) {
    if (!b || !fn) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_batch_run: %s is NULL", b ? "fn" : "batch");
    batch_job job = {0};
    job.fn = fn;
    job.user = user;
    job.count = count;
    return batch_execute(b, &job, err);
}

/* A clip's cursor in the pipeline: without the frame cache, with it, with room for a third frame. */
typedef enum { CURSOR_PLAIN, CURSOR_CACHE, CURSOR_AHEAD } cursor_kind;
static size_t clip_cursor(const sk_clip *c, cursor_kind cache) {
    return cache == CURSOR_AHEAD ? sk_clip_cursor_ahead_size(c) : cache == CURSOR_CACHE ? sk_clip_cursor_cache_size(c) : sk_clip_cursor_size(c);
}

static size_t cursor_stride(const sk_clip *const *clips, uint32_t clip_count, cursor_kind cache) {
    size_t n = 0;
    for (uint32_t i = 0; clips && i < clip_count; i++)
        if (clips[i]) n += clip_cursor(clips[i], cache);
    return n;
}

size_t sk_batch_cursor_stride(const sk_clip *const *clips, uint32_t clip_count) { return cursor_stride(clips, clip_count, CURSOR_PLAIN); }

size_t sk_batch_cursor_cache_stride(const sk_clip *const *clips, uint32_t clip_count) {
    return cursor_stride(clips, clip_count, CURSOR_CACHE);
}

size_t sk_batch_cursor_ahead_stride(const sk_clip *const *clips, uint32_t clip_count) {
    return cursor_stride(clips, clip_count, CURSOR_AHEAD);
}

sk_result sk_batch_run_pipeline(sk_batch *b, const sk_batch_pipeline *p, sk_error *err) {
    static const char *who = "sk_batch_run_pipeline";
    if (!b || !p) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", who, b ? "pipeline" : "batch");
    if (!p->skeleton) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: skeleton is NULL", who);
    if (p->skeleton->joint_count > b->max_joints)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                            "%s: the skeleton has %u joints, the batch was created for at most %u (max_joints)", who,
                            p->skeleton->joint_count, b->max_joints);
    if (p->clip_count == 0 || p->clip_count > b->max_clips || !p->clips)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: clip_count %u: needs 1 .. %u clips (max_clips)%s", who,
                            p->clip_count, b->max_clips, p->clips ? "" : ", clips is NULL");
    if ((unsigned)p->loop > SK_LOOP_PING_PONG) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: bad loop mode %d", who, (int)p->loop);
    if (p->character_count && !p->times) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: times is NULL", who);
    if (p->clip_count > 1 && !(p->clip_count == 2 && p->mix) && !p->weights)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: %u clips need weights (or mix, for two clips)", who,
                            p->clip_count);
    batch_job job = {0};
    job.pipe = p;
    job.count = p->character_count;
    size_t off = 0;
    cursor_kind cache = p->cursor_ahead ? CURSOR_AHEAD : p->cursor_cache ? CURSOR_CACHE : CURSOR_PLAIN;
    for (uint32_t i = 0; i < p->clip_count; i++) {
        if (!p->clips[i]) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: clips[%u] is NULL", who, i);
        job.cursor_offset[i] = off;
        job.cursor_size[i] = clip_cursor(p->clips[i], cache);
        off += job.cursor_size[i];
    }
    if (p->cursors && p->cursor_stride < off)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                            "%s: cursor_stride %zu is less than the clips' cursors need (%zu, %s)", who, p->cursor_stride, off,
                            cache == CURSOR_AHEAD   ? "sk_batch_cursor_ahead_stride"
                            : cache == CURSOR_CACHE ? "sk_batch_cursor_cache_stride"
                                                    : "sk_batch_cursor_stride");
    if (p->out_palette && !p->skin)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: out_palette needs a skin", who);
    job.palette_count = p->skin ? p->skin->joint_count : 0;
    if (p->mesh) {
        if (!p->out_palette)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: CPU skinning needs skin and out_palette", who);
        if (p->skin_method != SK_SKIN_LBS)
            return sk_error_set(err, SK_ERR_UNSUPPORTED, "%s: the pipeline skins with SK_SKIN_LBS only", who);
        if (sk_skinned_mesh_palette_size(p->mesh) > job.palette_count)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: the mesh reads %u palette entries, the skin has %u",
                                who, sk_skinned_mesh_palette_size(p->mesh), job.palette_count);
        if (p->out_normals && !sk_skinned_mesh_has_normals(p->mesh))
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: out_normals given but the mesh has no normals", who);
        job.vertex_count = sk_skinned_mesh_vertex_count(p->mesh);
    }
    if (p->post_joint_count && !p->post_joints)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: post_joint_count %u with post_joints NULL", who,
                            p->post_joint_count);
    for (uint32_t i = 0; p->post_joints && i < p->post_joint_count; i++)
        if (p->post_joints[i] >= p->skeleton->joint_count)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: post_joints[%u] = %u, the skeleton has %u joints", who,
                                i, p->post_joints[i], p->skeleton->joint_count);
    job.soa = !p->aos && (!p->post || (p->post_joints && p->post_joint_count));
    /* SoA path: the palette in the local-to-model pass where the skin allows
     * (every skin joint once; checked against the skeleton above) */
    job.fused_palette = job.soa && p->out_palette && p->skeleton->joint_count <= SK_BATCH_PALETTE_MAP_MAX &&
                        sk_skin_joint_map(p->skeleton, p->skin, job.palette_map);
    /* compressed clips: the AVX2 decoder writes SoA rows; the scalar one
     * goes through a bounded stack buffer (sk_clip_sample_soa), so not here */
    for (uint32_t i = 0; i < p->clip_count; i++)
        if (!sk_clip_samples_soa_directly(p->clips[i])) job.soa = false;
    /* eight characters at a time where the palette, if any, is made in that pass */
    job.x8 = job.soa && b->x8_joints && p->skeleton->joint_count <= b->x8_joints && (!p->out_palette || job.fused_palette);
    /* the cursors one thread reads in a run against its L2 */
    uint32_t share = p->character_count / b->threads + (p->character_count % b->threads != 0);
    job.prefetch = p->cursors && (double)share * (double)p->cursor_stride * sizeof(uint32_t) > (double)b->l2_bytes;
    return batch_execute(b, &job, err);
}
