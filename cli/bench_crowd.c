/* skelanim bench crowd: animation CPU time per frame for crowds (200, 1000,
 * 5000 characters by default): per character, sample two clips at a
 * synchronised phase (with a cursor per track per character), blend them,
 * local-to-model and the skinning palette; every character's palette is kept,
 * as a renderer needs. The work runs through sk_batch_run_pipeline
 * (libskelanim_batch) on --threads T threads (1 by default: the calling
 * thread alone).
 *
 *   skelanim bench crowd [N...] [--count N]... [--threads T]... [--joints J]
 *                        [--frames F] [--repeat R] [--loop] [--chunk C] [--aos]
 *
 * Characters: the mannequin's walk and run, or with --joints J a synthetic
 * skeleton (a root with chains of eight joints) and two dense 30 Hz clips
 * (1.0 s and 0.7 s, a translation and a rotation key per joint per frame),
 * built in code. Several --threads values are alternated (R runs of F frames
 * each, thread counts in turn, for each crowd size); one JSON line per crowd
 * size and thread count: mean and min over every frame, the median of the
 * runs' means, and with several thread counts the speedup of the median over
 * the first thread count's. --loop adds the same work written out as a plain
 * loop on the calling thread (no sk_batch; "path":"loop", the others
 * "path":"batch"), alternated with the thread counts: what the pool costs on
 * one thread. --chunk C: characters per chunk (sk_batch_desc.chunk; default:
 * chosen per run). "cpu_per_wall" is the process's CPU time over the
 * wall time of the timed frames (median of the runs): close to T when the T
 * threads had T cores to themselves; less when other work shared the
 * machine. The pipeline runs on structure-of-arrays poses (core/soa.h;
 * "layout":"soa"); --aos keeps sk_pose throughout (sk_batch_pipeline.aos),
 * the same results, to compare.
 *
 * --layers 3 (or --file FILE [--clip NAME], any readable asset: its first
 * clip or NAME): one clip sampled at three phases a third of the clip apart,
 * blended in three layers by weights 0.5, 0.3, 0.2 (sk_blend_poses'
 * normalised lerp) and local-to-model, every character's model matrices
 * kept, no palette: the mocap frame of ozz-animation's published figures
 * (issue #13).
 *
 * --hook footik: after the blend, two-bone IK of both legs keeps each ankle
 * at or above its rest height over flat ground (cli/crowd_footik.c), as a
 * post-process hook that lists its joints (sk_batch_pipeline.post_joints), so
 * the pipeline keeps the SoA path; with --aos the hook runs on sk_pose, the
 * path every hook took before hooks could list their joints. "hook":"footik"
 * in the JSON line.
 *
 * --write OUT.glb saves the characters (skeleton, skin, the two clips; the
 * synthetic ones with --joints) as .glb, so another runtime can read the same
 * file. */
#include "cli.h"
#include "crowd_footik.h"

#include "skelanim/batch/batch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CROWD_MAX_SIZES 16
#define CROWD_MAX_THREADS 8
#define CROWD_MAX_PATHS (CROWD_MAX_THREADS + 1) /* the thread counts and --loop */
#define CROWD_MAX_RUNS 101

/* The characters: a skeleton, two clips and a skin over every joint. */
typedef struct crowd_rig {
    sk_asset *asset;              /* the mannequin, a file or the synthetic rig */
    const sk_skeleton *skel;
    const sk_clip *clips[2];
    const sk_skin *skin;
    sk_clip *owned[2];            /* --compressed: the clips compressed here */
} crowd_rig;

static void rig_free(crowd_rig *r) {
    for (int k = 0; k < 2; k++) sk_clip_destroy(r->owned[k]);
    sk_asset_destroy(r->asset);
}

static bool fail(const sk_error *e) {
    fprintf(stderr, "skelanim: bench crowd: %s\n", e->message);
    return false;
}

/* A root with chains of eight joints, two dense 30 Hz clips, a skin over
 * every joint, as an sk_asset (so --write can save it as .glb for another
 * runtime to read the same characters). */
static bool rig_synthetic(crowd_rig *r, uint32_t n) {
    sk_error err = {0};
    sk_asset *as = NULL;
    if (sk_asset_create_empty(NULL, &as, &err) != SK_OK) return fail(&err);
    r->asset = as;
    int32_t *parents = malloc(n * sizeof *parents);
    sk_transform *rest = malloc(n * sizeof *rest);
    sk_mat4 *model = malloc(n * sizeof *model);
    char (*names)[16] = malloc(n * sizeof *names);
    const char **name_ptrs = malloc(n * sizeof *name_ptrs);
    uint32_t *n2j = sk_asset_alloc(as, n * sizeof *n2j), *skin_joints = sk_asset_alloc(as, n * sizeof *skin_joints);
    int32_t *jmesh = sk_asset_alloc(as, n * sizeof *jmesh), *jskin = sk_asset_alloc(as, n * sizeof *jskin);
    sk_mat4 *ibm = sk_asset_alloc(as, n * sizeof *ibm);
    sk_skin *skin = sk_asset_alloc(as, sizeof *skin);
    sk_scene *scene = sk_asset_alloc(as, sizeof *scene);
    uint32_t *roots = sk_asset_alloc(as, sizeof *roots);
    sk_clip **clips = sk_asset_alloc(as, 2 * sizeof *clips);
    bool ok = false;
    if (!parents || !rest || !model || !names || !name_ptrs || !n2j || !skin_joints || !jmesh || !jskin || !ibm ||
        !skin || !scene || !roots || !clips) {
        fprintf(stderr, "skelanim: bench crowd: out of memory\n");
        goto done;
    }
    for (uint32_t i = 0; i < n; i++) {
        parents[i] = i == 0 ? -1 : (i % 8 == 1) ? 0 : (int32_t)i - 1;
        float side = (float)((i + 7) / 8 % 4) - 1.5f;
        rest[i] = (sk_transform){{i % 8 == 1 ? 0.1f * side : 0.0f, i == 0 ? 1.0f : 0.08f, 0.0f}, {0, 0, 0, 1}, {1, 1, 1}};
        snprintf(names[i], sizeof names[i], "joint%u", i);
        name_ptrs[i] = names[i];
        n2j[i] = skin_joints[i] = i;
        jmesh[i] = jskin[i] = -1;
    }
    sk_skeleton_desc sd = {.joint_count = n, .parents = parents, .names = name_ptrs, .rest = rest};
    if (sk_skeleton_create(&sd, sk_asset_allocator(as), &as->skeleton, &err) != SK_OK) {
        fail(&err);
        goto done;
    }
    as->node_count = n;
    as->node_to_joint = as->joint_to_node = n2j;
    as->joint_mesh = jmesh;
    as->joint_skin = jskin;
    if (sk_local_to_model(as->skeleton, SK_POSE_OF(as->skeleton, rest, NULL), NULL, model, n, &err) != SK_OK) {
        fail(&err);
        goto done;
    }
    for (uint32_t i = 0; i < n; i++) sk_mat4_invert_affine(&model[i], &ibm[i]);
    *skin = (sk_skin){"synthetic", n, skin_joints, ibm, 0};
    as->skin_count = 1;
    as->skins = skin;
    roots[0] = 0;
    *scene = (sk_scene){"synthetic", 1, roots};
    as->scene_count = 1;
    as->scenes = scene;
    as->default_scene = 0;
    as->clips = clips;
    static const double durations[2] = {1.0, 0.7};
    for (int c = 0; c < 2; c++) {
        uint32_t keys = (uint32_t)lround(durations[c] * 30.0) + 1;
        float *times = malloc(keys * sizeof *times), *t = malloc(keys * 3 * sizeof *t), *q = malloc(keys * 4 * sizeof *q);
        sk_clip_builder *b = NULL;
        bool built = times && t && q && sk_clip_builder_create(c ? "run" : "walk", sk_asset_allocator(as), &b, &err) == SK_OK;
        for (uint32_t k = 0; built && k < keys; k++) times[k] = (float)k / 30.0f;
        for (uint32_t j = 0; built && j < n; j++) {
            for (uint32_t k = 0; k < keys; k++) {
                float ph = 6.2831853f * (float)k / (float)(keys - 1) + 0.37f * (float)j, amp = c ? 0.5f : 0.3f;
                t[k * 3] = rest[j].t.x + 0.01f * sinf(ph);
                t[k * 3 + 1] = rest[j].t.y + (c ? 0.02f : 0.01f) * cosf(ph);
                t[k * 3 + 2] = rest[j].t.z;
                sk_quat a = {amp * 0.5f * sinf(ph), 0.2f * amp * cosf(ph), 0.1f * amp * sinf(2 * ph), 1.0f};
                float len = sqrtf(a.x * a.x + a.y * a.y + a.z * a.z + a.w * a.w);
                q[k * 4] = a.x / len, q[k * 4 + 1] = a.y / len, q[k * 4 + 2] = a.z / len, q[k * 4 + 3] = a.w / len;
            }
            sk_track_desc td = {j, SK_PATH_TRANSLATION, SK_INTERP_LINEAR, keys, times, t, 3};
            built = sk_clip_builder_add_track(b, &td, &err) == SK_OK;
            td.path = SK_PATH_ROTATION, td.values = q, td.width = 4;
            built = built && sk_clip_builder_add_track(b, &td, &err) == SK_OK;
        }
        if (built) {
            sk_clip_builder_set_duration(b, durations[c]);
            built = sk_clip_builder_finish(b, &clips[c], &err) == SK_OK;
            b = NULL;
        }
        sk_clip_builder_destroy(b);
        free(times), free(t), free(q);
        if (!built) {
            if (err.message[0]) fail(&err);
            else fprintf(stderr, "skelanim: bench crowd: out of memory\n");
            goto done;
        }
        as->clip_count = (uint32_t)c + 1;
    }
    r->skel = as->skeleton;
    r->clips[0] = clips[0], r->clips[1] = clips[1];
    r->skin = skin;
    ok = sk_asset_validate(as, &err) == SK_OK || fail(&err);
done:
    free(parents), free(rest), free(model), free(names), free(name_ptrs);
    return ok;
}

/* CPU time of every thread of the process, seconds. */
static double process_cpu(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0.0;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double median(double *v, uint32_t n) {
    qsort(v, n, sizeof *v, cli_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct crowd_args {
    cli_list sizes, threads;
    uint32_t frames, runs, joints, chunk, layers;
    bool loop, aos, cache, ahead, compressed;
    const char *file, *clip, *write, *hook;
} crowd_args;

/* What every crowd size runs with. */
typedef struct crowd_run {
    const crowd_args *a;
    crowd_rig *rig;
    const sk_skeleton *s;
    uint32_t n, pn, layers, nthreads, npaths;
    uint32_t threads[CROWD_MAX_PATHS];
    const sk_clip *const *pclips;
    float dw, dr;
    sk_batch *pools[CROWD_MAX_PATHS];
    crowd_footik footik; /* --hook footik */
    size_t stride;
    sk_transform *lp0, *lp1, *lpose; /* --loop: one character's poses and matrices */
    sk_mat4 *lmodel;
} crowd_run;

/* The characters: --file's clip, --joints' synthetic rig, or the mannequin's walk and run. */
static bool rig_setup(crowd_rig *rig, const crowd_args *a) {
    if (a->file) {
        if (!cli_load(a->file, &rig->asset)) return false;
        int32_t ci = a->clip ? cli_find_clip(rig->asset, a->clip) : (rig->asset->clip_count ? 0 : -1);
        if (ci < 0) {
            if (!a->clip) fprintf(stderr, "skelanim: bench crowd: %s has no clip\n", a->file);
            return false;
        }
        rig->skel = rig->asset->skeleton;
        rig->clips[0] = rig->clips[1] = rig->asset->clips[ci];
        rig->skin = rig->asset->skin_count ? &rig->asset->skins[0] : NULL;
    } else if (a->joints) {
        if (!rig_synthetic(rig, a->joints)) return false;
    } else {
        if (!cli_load(SK_CLI_MANNEQUIN, &rig->asset)) return false;
        rig->skel = rig->asset->skeleton;
        rig->clips[0] = rig->asset->clips[sk_asset_find_clip(rig->asset, "walk")];
        rig->clips[1] = rig->asset->clips[sk_asset_find_clip(rig->asset, "run")];
        rig->skin = &rig->asset->skins[0];
    }
    if (a->compressed) /* as ozz's runtime always plays them: compressed (the default error bound) */
        for (int k = 0; k < 2; k++) {
            if (k == 1 && rig->clips[1] == rig->clips[0]) {
                rig->clips[1] = rig->clips[0];
                break;
            }
            if (sk_clip_is_compressed(rig->clips[k])) continue;
            sk_error cerr = {0};
            if (sk_clip_compress(rig->clips[k], rig->skel, NULL, NULL, &rig->owned[k], NULL, &cerr) != SK_OK)
                return fail(&cerr);
            rig->clips[k] = rig->owned[k];
        }
    if (a->write) { /* the characters as .glb, for another runtime to read the same file */
        sk_error werr = {0};
        if (sk_glb_write_file(rig->asset, a->write, NULL, &werr) != SK_OK) return fail(&werr);
        fprintf(stderr, "skelanim: bench crowd: wrote %s\n", a->write);
    }
    return true;
}

/* The buffers of one crowd size. */
typedef struct crowd_bufs {
    sk_mat4 *pal;   /* every character's palette, as a renderer needs (three layers: its model matrices) */
    float *phase, *mix;
    double *times;
    uint32_t *cur;  /* each character keeps a cursor per track of each clip (amortised O(1) key search) */
} crowd_bufs;

/* One frame of path t (a thread count, or the plain loop) over count characters. */
static bool crowd_frame(crowd_run *R, uint32_t t, uint32_t f, uint32_t count, const sk_batch_pipeline *p,
                        const crowd_bufs *b, sk_error *err) {
    const sk_skeleton *s = R->s;
    const crowd_rig *rig = R->rig;
    bool ok = true;
    if (t == R->nthreads) { /* --loop: the same calls written out, as this bench was before sk_batch */
        size_t c0 = sk_clip_cursor_size(rig->clips[0]), c1 = sk_clip_cursor_size(rig->clips[1]);
        for (uint32_t i = 0; i < count && ok; i++) {
            float ph = fmodf(b->phase[i] + f / 60.0f, 1.0f);
            uint32_t *ci = b->cur + (size_t)i * R->stride;
            ok = sk_clip_sample_cursor(rig->clips[0], s, ph * R->dw, SK_LOOP_REPEAT, ci, c0, SK_POSE_OF(s, R->lp0, NULL), err) == SK_OK &&
                 sk_clip_sample_cursor(rig->clips[1], s, ph * R->dr, SK_LOOP_REPEAT, ci + c0, c1, SK_POSE_OF(s, R->lp1, NULL), err) == SK_OK &&
                 sk_blend_two(s, SK_POSE_OF(s, R->lp0, NULL), SK_POSE_OF(s, R->lp1, NULL), b->mix[i], NULL, false, SK_POSE_OF(s, R->lpose, NULL), err) == SK_OK &&
                 sk_local_to_model(s, SK_POSE_OF(s, R->lpose, NULL), NULL, R->lmodel, R->n, err) == SK_OK &&
                 sk_skin_palette(rig->skin, R->lmodel, R->n, b->pal + (size_t)i * R->pn, R->pn, err) == SK_OK;
        }
        return ok;
    }
    double *times = b->times;
    for (uint32_t i = 0; i < count; i++) {
        float ph = fmodf(b->phase[i] + f / 60.0f, 1.0f);
        if (R->layers == 3)
            for (uint32_t l = 0; l < 3; l++) times[(size_t)i * 3 + l] = fmodf(ph + (float)l / 3.0f, 1.0f) * R->dw;
        else
            times[(size_t)i * 2] = ph * R->dw, times[(size_t)i * 2 + 1] = ph * R->dr;
    }
    return sk_batch_run_pipeline(R->pools[t], p, err) == SK_OK;
}

/* One JSON line per path: the times of count characters over the runs. */
static void crowd_print(const crowd_run *R, uint32_t count, double run_ms[][CROWD_MAX_RUNS],
                        double run_cpu[][CROWD_MAX_RUNS], const double *best, const double *total) {
    const crowd_args *a = R->a;
    uint32_t frames = a->frames, runs = a->runs, n = R->n;
    double med[CROWD_MAX_PATHS];
    for (uint32_t t = 0; t < R->npaths; t++) {
        double sorted[CROWD_MAX_RUNS];
        memcpy(sorted, run_ms[t], runs * sizeof *sorted);
        med[t] = median(sorted, runs);
        printf("{\"bench\":\"crowd\",\"characters\":%u,\"joints\":%u,\"frames\":%u,\"work\":\"%s\",\"ms_per_frame_mean\":%.4f,\"ms_per_frame_min\":%.4f,\"us_per_character\":%.3f,"
               "\"threads\":%u,\"path\":\"%s\",\"layout\":\"%s\",\"skeleton\":\"%s\",\"runs\":%u,\"ms_per_frame_median\":%.4f,\"ms_per_frame_runs\":[",
               count, n, frames,
               R->layers == 3 ? "3 samples + 3-layer blend + local-to-model" : "2 samples + blend + local-to-model + palette",
               total[t] * 1e3 / ((double)frames * runs), best[t] * 1e3,
               total[t] * 1e6 / ((double)frames * runs) / count, R->threads[t], t == R->nthreads ? "loop" : "batch",
               t == R->nthreads || a->aos ? "aos" : "soa", a->file ? a->file : a->joints ? "synthetic" : "mannequin", runs,
               med[t]);
        for (uint32_t r = 0; r < runs; r++) printf("%s%.4f", r ? "," : "", run_ms[t][r]);
        memcpy(sorted, run_cpu[t], runs * sizeof *sorted);
        printf("],\"cpu_per_wall\":%.2f", median(sorted, runs));
        /* memory: the clips (each once) and what each character keeps between frames (its cursors) */
        const crowd_rig *rig = R->rig;
        size_t clip_bytes = sk_clip_memory_size(rig->clips[0]) + (rig->clips[1] != rig->clips[0] ? sk_clip_memory_size(rig->clips[1]) : 0);
        printf(",\"clips\":\"%s\",\"cursor_cache\":%s,\"cursor_ahead\":%s,\"clip_bytes\":%zu,\"instance_bytes\":%zu",
               sk_clip_is_compressed(rig->clips[0]) ? "compressed" : "raw", a->cache || a->ahead ? "true" : "false",
               a->ahead ? "true" : "false", clip_bytes,
               R->stride * sizeof(uint32_t));
        if (a->hook) printf(",\"hook\":\"%s\"", a->hook);
        if (t > 0) printf(",\"speedup\":%.3f,\"speedup_over_threads\":%u", med[0] / med[t], R->threads[0]);
        printf("}\n");
    }
    fflush(stdout);
}

/* A crowd of count characters: --repeat runs of --frames frames on each path, alternated. */
static bool crowd_size(crowd_run *R, uint32_t count) {
    const crowd_args *a = R->a;
    uint32_t n = R->n, layers = R->layers, frames = a->frames, runs = a->runs;
    /* on cache lines, as the ozz harness's arrays (a palette matrix is one line) */
    crowd_bufs b = {cli_alloc64((size_t)count * (layers == 3 ? n : R->pn) * sizeof(sk_mat4)), cli_alloc64(count * sizeof(float)),
                    cli_alloc64(count * 3 * sizeof(float)), cli_alloc64((size_t)count * 3 * sizeof(double)),
                    cli_alloc64((size_t)count * R->stride * sizeof(uint32_t))};
    sk_mat4 *pal = b.pal;
    float *phase = b.phase, *mix = b.mix;
    double run_ms[CROWD_MAX_PATHS][CROWD_MAX_RUNS], run_cpu[CROWD_MAX_PATHS][CROWD_MAX_RUNS];
    double best[CROWD_MAX_PATHS], total[CROWD_MAX_PATHS];
    bool ok = pal && phase && mix && b.times && b.cur;
    if (!ok) fprintf(stderr, "skelanim: bench crowd: out of memory for %u characters\n", count);
    for (uint32_t i = 0; ok && i < count; i++)
        phase[i] = (float)((i * 2654435761u) % 1000) / 1000.0f, mix[i] = (float)(i % 7) / 6.0f;
    sk_batch_pipeline p = {.skeleton = R->s, .character_count = count, .clips = R->pclips, .clip_count = layers,
                           .loop = SK_LOOP_REPEAT, .times = b.times, .mix = mix, .cursors = b.cur,
                           .cursor_stride = R->stride, .skin = R->rig->skin, .out_palette = pal, .aos = a->aos,
                           .cursor_cache = a->cache, .cursor_ahead = a->ahead};
    if (a->hook)
        p.post = crowd_footik_hook, p.post_user = &R->footik, p.post_joints = R->footik.joints,
        p.post_joint_count = R->footik.joint_count;
    if (ok && layers == 3) { /* one clip at three phases, weights 0.5, 0.3, 0.2; model matrices out */
        for (uint32_t i = 0; i < count; i++) mix[i * 3] = 0.5f, mix[i * 3 + 1] = 0.3f, mix[i * 3 + 2] = 0.2f;
        p.mix = NULL, p.weights = mix, p.skin = NULL, p.out_palette = NULL, p.out_model = pal;
    }
    for (uint32_t t = 0; t < R->npaths; t++) best[t] = INFINITY, total[t] = 0;
    sk_error err = {0};
    for (uint32_t r = 0; ok && r < runs; r++)
        for (uint32_t t = 0; ok && t < R->npaths; t++) { /* thread counts (and the loop) alternated */
            double run_total = 0, cpu0 = process_cpu();
            for (uint32_t f = 0; ok && f < frames; f++) {
                double t0 = cli_now();
                ok = crowd_frame(R, t, f, count, &p, &b, &err) || fail(&err);
                double dt = cli_now() - t0;
                run_total += dt;
                if (dt < best[t]) best[t] = dt;
            }
            run_cpu[t][r] = run_total > 0 ? (process_cpu() - cpu0) / run_total : 0.0;
            run_ms[t][r] = run_total * 1e3 / frames;
            total[t] += run_total;
        }
    if (ok) crowd_print(R, count, run_ms, run_cpu, best, total);
    free(b.pal), free(b.phase), free(b.mix), free(b.times), free(b.cur);
    return ok;
}

static int bench_crowd(int argc, char **argv) {
    crowd_args a;
    memset(&a, 0, sizeof a);
    int prc = cli_parse(&cli_cmd_bench_crowd, argc, argv, &a, NULL);
    if (prc != CLI_CONTINUE) return prc;
    uint32_t sizes[CROWD_MAX_SIZES] = {200, 1000, 5000}, nsizes = a.sizes.n ? a.sizes.n : 3;
    for (uint32_t i = 0; i < a.sizes.n; i++)
        if (!cli_parse_uint("crowd size", a.sizes.v[i], 1, 1000000, &sizes[i])) return 1;
    crowd_run R;
    memset(&R, 0, sizeof R);
    R.a = &a;
    R.nthreads = a.threads.n ? a.threads.n : 1;
    R.threads[0] = 1;
    for (uint32_t i = 0; i < a.threads.n; i++) R.threads[i] = cli_list_uint(&a.threads, i);
    R.npaths = R.nthreads + (a.loop ? 1 : 0); /* path t < nthreads: sk_batch on threads[t]; the last with --loop: the plain loop */
    if (a.loop) R.threads[R.nthreads] = 1;
    R.layers = a.file ? 3 : a.layers; /* a file: one clip at three phases */
    if (R.layers == 3 && a.loop) {
        fprintf(stderr, "skelanim: bench crowd: --loop is for two layers\n");
        return 1;
    }
    if (a.file && a.joints) {
        fprintf(stderr, "skelanim: bench crowd: --file or --joints, not both\n");
        return 1;
    }
    if (a.hook && strcmp(a.hook, "footik")) {
        fprintf(stderr, "skelanim: bench crowd: --hook takes footik (two-bone IK of both legs onto flat ground)\n");
        return 1;
    }
    if (a.hook && a.loop) {
        fprintf(stderr, "skelanim: bench crowd: --hook runs through sk_batch; not with --loop\n");
        return 1;
    }
    crowd_rig rig = {0};
    int rc = 1;
    if (!rig_setup(&rig, &a)) goto out;
    R.rig = &rig;
    R.s = rig.skel;
    R.n = R.s->joint_count;
    if (a.hook) {
        sk_error herr = {0};
        if (crowd_footik_init(&R.footik, R.s, &herr) != SK_OK) {
            fprintf(stderr, "skelanim: bench crowd: %s\n", herr.message);
            goto out;
        }
    }
    R.pn = R.layers == 2 && rig.skin ? rig.skin->joint_count : 0;
    const sk_clip *clips3[3] = {rig.clips[0], rig.clips[0], rig.clips[0]};
    R.pclips = R.layers == 3 ? clips3 : rig.clips;
    R.dw = (float)sk_clip_duration(rig.clips[0]), R.dr = (float)sk_clip_duration(rig.clips[1]);
    uint32_t n = R.n;
    if (a.loop && (!(R.lp0 = calloc(n, sizeof *R.lp0)) || !(R.lp1 = calloc(n, sizeof *R.lp1)) ||
                   !(R.lpose = calloc(n, sizeof *R.lpose)) || !(R.lmodel = calloc(n, sizeof *R.lmodel)))) {
        fprintf(stderr, "skelanim: bench crowd: out of memory\n");
        goto out;
    }
    for (uint32_t t = 0; t < R.nthreads; t++) {
        sk_error err = {0};
        sk_batch_desc d = {.threads = R.threads[t], .chunk = a.chunk, .max_joints = n, .max_clips = R.layers};
        if (sk_batch_create(&d, NULL, &R.pools[t], &err) != SK_OK) {
            fail(&err);
            goto out;
        }
    }
    R.stride = a.ahead   ? sk_batch_cursor_ahead_stride(R.pclips, R.layers)
               : a.cache ? sk_batch_cursor_cache_stride(R.pclips, R.layers)
                         : sk_batch_cursor_stride(R.pclips, R.layers);
    for (uint32_t k = 0; k < nsizes; k++)
        if (!crowd_size(&R, sizes[k])) goto out;
    rc = 0;
out:
    for (uint32_t t = 0; t < R.nthreads; t++) sk_batch_destroy(R.pools[t]);
    free(R.lp0), free(R.lp1), free(R.lpose), free(R.lmodel);
    rig_free(&rig);
    return rc;
}

static const cli_opt crowd_opts[] = {
    {"--count", CLI_KIND_INT, 0, .flags = CLI_LIST | CLI_AS_ARGUMENT, .meta = "N", .min = 1, .max = 1000000,
     .help = "one more crowd size, the same as N"},
    {"--threads", CLI_LIST_OF(CLI_KIND_INT, crowd_args, threads, 0), .meta = "T", .min = 1, .max = 256,
     .max_count = CROWD_MAX_THREADS, .help = "threads of the pool; several: alternated", .dflt_text = "1"},
    {"--joints", CLI_INT(crowd_args, joints), .meta = "J", .min = 2, .max = 1024,
     .help = "a synthetic J-joint skeleton with two dense 30 Hz clips instead of the mannequin"},
    {"--frames", CLI_INT(crowd_args, frames), .meta = "F", .min = 1, .max = 100000, .dflt = "60",
     .help = "frames per run"},
    {"--repeat", CLI_INT(crowd_args, runs), .meta = "R", .min = 1, .max = CROWD_MAX_RUNS, .dflt = "1",
     .help = "runs of each thread count, alternated"},
    {"--loop", CLI_FLAG(crowd_args, loop), .help = "also the same work as a plain loop on this thread, without the pool"},
    {"--chunk", CLI_INT(crowd_args, chunk), .meta = "C", .min = 1, .max = 1000000,
     .help = "characters per chunk of the pool", .dflt_text = "chosen per run"},
    {"--aos", CLI_FLAG(crowd_args, aos), .help = "keep sk_pose, an array of structures, throughout instead of SoA poses"},
    {"--compressed", CLI_FLAG(crowd_args, compressed),
     .help = "play the clips compressed (sk_clip_compress, its default error bound), as ozz-animation plays its "
             "own; the JSON says which it played (\"clips\")"},
    {"--cursor-cache", CLI_FLAG(crowd_args, cache), .help = "cursors that keep compressed clips' decoded frames"},
    {"--cursor-ahead", CLI_FLAG(crowd_args, ahead),
     .help = "cursors with room for a third decoded frame, decoded ahead on a step forward (implies --cursor-cache)"},
    {"--hook", CLI_STRING(crowd_args, hook), .meta = "footik",
     .help = "a post-process hook: footik, two-bone IK of both legs onto flat ground (SoA path; --aos: sk_pose)"},
    {"--file", CLI_STRING(crowd_args, file), .meta = "FILE",
     .help = "any readable character: its first clip, or --clip, at three phases in three layers"},
    {"--clip", CLI_STRING(crowd_args, clip), .meta = "NAME", .help = "(--file) the clip"},
    {"--layers", CLI_INT(crowd_args, layers), .meta = "2|3", .min = 2, .max = 3, .dflt = "2",
     .help = "2: walk and run blended, palettes; 3: one clip at three phases, 3-layer blend, model matrices"},
    {"--write", CLI_STRING(crowd_args, write), .meta = "OUT.glb",
     .help = "also write the characters as .glb, for another runtime to read the same file"},
};
static const cli_arg crowd_arg_list[] = {
    {"N", CLI_ARGS(crowd_args, sizes, 0), .max_count = CROWD_MAX_SIZES,
     .help = "crowd sizes, one JSON line each", .dflt_text = "200 1000 5000"},
};
const cli_command cli_cmd_bench_crowd = {
    .name = "bench crowd",
    .run = bench_crowd,
    .summary = "animation time per frame for crowds, on a pool of threads",
    .about = "Animation CPU time per frame for crowds: per character two clips sampled at a "
             "synchronised phase, blended, local-to-model and the skinning palette, through "
             "sk_batch on a pool of threads; one JSON line per crowd size and thread count "
             "(docs/performance.md).",
    .opts = crowd_opts,
    .nopts = CLI_COUNT(crowd_opts),
    .args = crowd_arg_list,
    .nargs = CLI_COUNT(crowd_arg_list),
};
