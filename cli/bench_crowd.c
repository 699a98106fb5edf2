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
} crowd_rig;

static void rig_free(crowd_rig *r) { sk_asset_destroy(r->asset); }

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

int bench_crowd(int argc, char **argv) {
    uint32_t sizes[CROWD_MAX_SIZES] = {200, 1000, 5000}, nsizes = 0, threads[CROWD_MAX_THREADS] = {1}, nthreads = 0;
    uint32_t frames = 60, runs = 1, joints = 0, chunk = 0, layers = 2;
    bool loop = false, aos = false, cache = false;
    const char *file = NULL, *clip_spec = NULL, *write = NULL, *hook = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--loop")) {
            loop = true;
            continue;
        }
        if (!strcmp(a, "--aos")) {
            aos = true;
            continue;
        }
        if (!strcmp(a, "--hook")) {
            if (i + 1 >= argc || strcmp(argv[i + 1], "footik")) {
                fprintf(stderr, "skelanim: bench crowd: --hook takes footik (two-bone IK of both legs onto flat ground)\n");
                return 1;
            }
            hook = argv[++i];
            continue;
        }
        if (!strcmp(a, "--cursor-cache")) { /* cursors keeping compressed clips' decoded frames */
            cache = true;
            continue;
        }
        if ((!strcmp(a, "--count") || !strcmp(a, "--threads") || !strcmp(a, "--joints") || !strcmp(a, "--frames") || !strcmp(a, "--chunk") ||
             !strcmp(a, "--repeat") || !strcmp(a, "--file") || !strcmp(a, "--clip") || !strcmp(a, "--layers") || !strcmp(a, "--write")) && i + 1 >= argc) {
            fprintf(stderr, "skelanim: bench crowd: %s needs a value\n", a);
            return 1;
        }
        if (!strcmp(a, "--threads")) {
            if (nthreads == CROWD_MAX_THREADS) {
                fprintf(stderr, "skelanim: bench crowd: at most %d --threads values\n", CROWD_MAX_THREADS);
                return 1;
            }
            if (!cli_parse_uint("--threads", argv[++i], 1, 256, &threads[nthreads++])) return 1;
        } else if (!strcmp(a, "--file")) {
            file = argv[++i];
        } else if (!strcmp(a, "--write")) {
            write = argv[++i];
        } else if (!strcmp(a, "--clip")) {
            clip_spec = argv[++i];
        } else if (!strcmp(a, "--layers")) {
            if (!cli_parse_uint("--layers", argv[++i], 2, 3, &layers)) return 1;
        } else if (!strcmp(a, "--chunk")) {
            if (!cli_parse_uint("--chunk", argv[++i], 1, 1000000, &chunk)) return 1;
        } else if (!strcmp(a, "--joints")) {
            if (!cli_parse_uint("--joints", argv[++i], 2, 1024, &joints)) return 1;
        } else if (!strcmp(a, "--frames")) {
            if (!cli_parse_uint("--frames", argv[++i], 1, 100000, &frames)) return 1;
        } else if (!strcmp(a, "--repeat")) {
            if (!cli_parse_uint("--repeat", argv[++i], 1, CROWD_MAX_RUNS, &runs)) return 1;
        } else {
            if (!strcmp(a, "--count")) a = argv[++i];
            else if (a[0] == '-' && a[1] == '-') {
                fprintf(stderr, "skelanim: bench crowd: unknown option %s (usage: skelanim bench crowd [N...] "
                                "[--count N]... [--threads T]... [--joints J] [--frames F] [--repeat R] [--loop] [--chunk C] [--aos] "
                                "[--cursor-cache] [--hook footik] [--file FILE [--clip NAME]] [--layers 2|3] [--write OUT.glb])\n", a);
                return 1;
            }
            if (nsizes == CROWD_MAX_SIZES) {
                fprintf(stderr, "skelanim: bench crowd: at most %d crowd sizes\n", CROWD_MAX_SIZES);
                return 1;
            }
            if (!cli_parse_uint("crowd size", a, 1, 1000000, &sizes[nsizes++])) return 1;
        }
    }
    if (!nsizes) nsizes = 3;
    if (!nthreads) nthreads = 1;
    uint32_t npaths = nthreads + (loop ? 1 : 0); /* path t < nthreads: sk_batch on threads[t]; the last with --loop: the plain loop */
    if (loop) threads[nthreads] = 1;

    crowd_rig rig = {0};
    if (file) layers = 3; /* a file: one clip at three phases */
    if (layers == 3 && loop) {
        fprintf(stderr, "skelanim: bench crowd: --loop is for two layers\n");
        return 1;
    }
    if (file && joints) {
        fprintf(stderr, "skelanim: bench crowd: --file or --joints, not both\n");
        return 1;
    }
    if (file) {
        if (!cli_load(file, &rig.asset)) return 1;
        int32_t ci = clip_spec ? cli_find_clip(rig.asset, clip_spec) : (rig.asset->clip_count ? 0 : -1);
        if (ci < 0) {
            if (!clip_spec) fprintf(stderr, "skelanim: bench crowd: %s has no clip\n", file);
            rig_free(&rig);
            return 1;
        }
        rig.skel = rig.asset->skeleton;
        rig.clips[0] = rig.clips[1] = rig.asset->clips[ci];
        rig.skin = rig.asset->skin_count ? &rig.asset->skins[0] : NULL;
    } else if (joints) {
        if (!rig_synthetic(&rig, joints)) {
            rig_free(&rig);
            return 1;
        }
    } else {
        if (!cli_load(SK_CLI_MANNEQUIN, &rig.asset)) return 1;
        rig.skel = rig.asset->skeleton;
        rig.clips[0] = rig.asset->clips[sk_asset_find_clip(rig.asset, "walk")];
        rig.clips[1] = rig.asset->clips[sk_asset_find_clip(rig.asset, "run")];
        rig.skin = &rig.asset->skins[0];
    }
    if (write) { /* the characters as .glb, for another runtime to read the same file */
        sk_error werr = {0};
        if (sk_glb_write_file(rig.asset, write, NULL, &werr) != SK_OK) {
            fprintf(stderr, "skelanim: bench crowd: %s\n", werr.message);
            rig_free(&rig);
            return 1;
        }
        fprintf(stderr, "skelanim: bench crowd: wrote %s\n", write);
    }
    const sk_skeleton *s = rig.skel;
    crowd_footik footik;
    if (hook) {
        sk_error herr = {0};
        if (loop) {
            fprintf(stderr, "skelanim: bench crowd: --hook runs through sk_batch; not with --loop\n");
            rig_free(&rig);
            return 1;
        }
        if (crowd_footik_init(&footik, s, &herr) != SK_OK) {
            fprintf(stderr, "skelanim: bench crowd: %s\n", herr.message);
            rig_free(&rig);
            return 1;
        }
    }
    uint32_t n = s->joint_count, pn = layers == 2 && rig.skin ? rig.skin->joint_count : 0;
    const sk_clip *clips3[3] = {rig.clips[0], rig.clips[0], rig.clips[0]};
    const sk_clip *const *pclips = layers == 3 ? clips3 : rig.clips;
    float dw = (float)sk_clip_duration(rig.clips[0]), dr = (float)sk_clip_duration(rig.clips[1]);
    int rc = 1;
    sk_error err = {0};
    sk_batch *pools[CROWD_MAX_PATHS] = {0};
    sk_transform *lp0 = NULL, *lp1 = NULL, *lpose = NULL; /* --loop: one character's poses and matrices */
    sk_mat4 *lmodel = NULL;
    if (loop && (!(lp0 = calloc(n, sizeof *lp0)) || !(lp1 = calloc(n, sizeof *lp1)) ||
                 !(lpose = calloc(n, sizeof *lpose)) || !(lmodel = calloc(n, sizeof *lmodel)))) {
        fprintf(stderr, "skelanim: bench crowd: out of memory\n");
        goto out;
    }
    for (uint32_t t = 0; t < nthreads; t++) {
        sk_batch_desc d = {.threads = threads[t], .chunk = chunk, .max_joints = n, .max_clips = layers};
        if (sk_batch_create(&d, NULL, &pools[t], &err) != SK_OK) {
            fail(&err);
            goto out;
        }
    }
    size_t stride = cache ? sk_batch_cursor_cache_stride(pclips, layers) : sk_batch_cursor_stride(pclips, layers);
    for (uint32_t k = 0; k < nsizes; k++) {
        uint32_t count = sizes[k];
        /* every character's palette, as a renderer needs (three layers: its model matrices) */
        sk_mat4 *pal = malloc((size_t)count * (layers == 3 ? n : pn) * sizeof *pal);
        float *phase = malloc(count * sizeof *phase), *mix = malloc(count * 3 * sizeof *mix);
        double *times = malloc((size_t)count * 3 * sizeof *times);
        /* Each character keeps a cursor per track of each clip (amortised O(1) key search). */
        uint32_t *cur = calloc((size_t)count * stride, sizeof *cur);
        double run_ms[CROWD_MAX_PATHS][CROWD_MAX_RUNS], run_cpu[CROWD_MAX_PATHS][CROWD_MAX_RUNS];
        double best[CROWD_MAX_PATHS], total[CROWD_MAX_PATHS];
        if (!pal || !phase || !mix || !times || !cur) {
            fprintf(stderr, "skelanim: bench crowd: out of memory for %u characters\n", count);
            free(pal), free(phase), free(mix), free(times), free(cur);
            goto out;
        }
        for (uint32_t i = 0; i < count; i++) phase[i] = (float)((i * 2654435761u) % 1000) / 1000.0f, mix[i] = (float)(i % 7) / 6.0f;
        sk_batch_pipeline p = {.skeleton = s, .character_count = count, .clips = pclips, .clip_count = layers,
                               .loop = SK_LOOP_REPEAT, .times = times, .mix = mix, .cursors = cur,
                               .cursor_stride = stride, .skin = rig.skin, .out_palette = pal, .aos = aos, .cursor_cache = cache};
        if (hook) p.post = crowd_footik_hook, p.post_user = &footik, p.post_joints = footik.joints, p.post_joint_count = footik.joint_count;
        if (layers == 3) { /* one clip at three phases, weights 0.5, 0.3, 0.2; model matrices out */
            for (uint32_t i = 0; i < count; i++) mix[i * 3] = 0.5f, mix[i * 3 + 1] = 0.3f, mix[i * 3 + 2] = 0.2f;
            p.mix = NULL, p.weights = mix, p.skin = NULL, p.out_palette = NULL, p.out_model = pal;
        }
        size_t c0 = sk_clip_cursor_size(rig.clips[0]), c1 = sk_clip_cursor_size(rig.clips[1]);
        for (uint32_t t = 0; t < npaths; t++) best[t] = INFINITY, total[t] = 0;
        for (uint32_t r = 0; r < runs; r++)
            for (uint32_t t = 0; t < npaths; t++) { /* thread counts (and the loop) alternated */
                double run_total = 0, cpu0 = process_cpu();
                for (uint32_t f = 0; f < frames; f++) {
                    double t0 = cli_now();
                    bool ok = true;
                    if (t == nthreads) { /* --loop: the same calls written out, as this bench was before sk_batch */
                        for (uint32_t i = 0; i < count && ok; i++) {
                            float ph = fmodf(phase[i] + f / 60.0f, 1.0f);
                            uint32_t *ci = cur + (size_t)i * stride;
                            ok = sk_clip_sample_cursor(rig.clips[0], s, ph * dw, SK_LOOP_REPEAT, ci, c0, SK_POSE_OF(s, lp0, NULL), &err) == SK_OK &&
                                 sk_clip_sample_cursor(rig.clips[1], s, ph * dr, SK_LOOP_REPEAT, ci + c0, c1, SK_POSE_OF(s, lp1, NULL), &err) == SK_OK &&
                                 sk_blend_two(s, SK_POSE_OF(s, lp0, NULL), SK_POSE_OF(s, lp1, NULL), mix[i], NULL, false, SK_POSE_OF(s, lpose, NULL), &err) == SK_OK &&
                                 sk_local_to_model(s, SK_POSE_OF(s, lpose, NULL), NULL, lmodel, n, &err) == SK_OK &&
                                 sk_skin_palette(rig.skin, lmodel, n, pal + (size_t)i * pn, pn, &err) == SK_OK;
                        }
                    } else {
                        for (uint32_t i = 0; i < count; i++) {
                            float ph = fmodf(phase[i] + f / 60.0f, 1.0f);
                            if (layers == 3)
                                for (uint32_t l = 0; l < 3; l++) times[(size_t)i * 3 + l] = fmodf(ph + (float)l / 3.0f, 1.0f) * dw;
                            else
                                times[(size_t)i * 2] = ph * dw, times[(size_t)i * 2 + 1] = ph * dr;
                        }
                        ok = sk_batch_run_pipeline(pools[t], &p, &err) == SK_OK;
                    }
                    if (!ok) {
                        fail(&err);
                        free(pal), free(phase), free(mix), free(times), free(cur);
                        goto out;
                    }
                    double dt = cli_now() - t0;
                    run_total += dt;
                    if (dt < best[t]) best[t] = dt;
                }
                run_cpu[t][r] = run_total > 0 ? (process_cpu() - cpu0) / run_total : 0.0;
                run_ms[t][r] = run_total * 1e3 / frames;
                total[t] += run_total;
            }
        double med[CROWD_MAX_PATHS];
        for (uint32_t t = 0; t < npaths; t++) {
            double sorted[CROWD_MAX_RUNS];
            memcpy(sorted, run_ms[t], runs * sizeof *sorted);
            med[t] = median(sorted, runs);
            printf("{\"bench\":\"crowd\",\"characters\":%u,\"joints\":%u,\"frames\":%u,\"work\":\"%s\",\"ms_per_frame_mean\":%.3f,\"ms_per_frame_min\":%.3f,\"us_per_character\":%.3f,"
                   "\"threads\":%u,\"path\":\"%s\",\"layout\":\"%s\",\"skeleton\":\"%s\",\"runs\":%u,\"ms_per_frame_median\":%.3f,\"ms_per_frame_runs\":[",
                   count, n, frames,
                   layers == 3 ? "3 samples + 3-layer blend + local-to-model" : "2 samples + blend + local-to-model + palette",
                   total[t] * 1e3 / ((double)frames * runs), best[t] * 1e3,
                   total[t] * 1e6 / ((double)frames * runs) / count, threads[t], t == nthreads ? "loop" : "batch", t == nthreads || aos ? "aos" : "soa",
                   file ? file : joints ? "synthetic" : "mannequin", runs,
                   med[t]);
            for (uint32_t r = 0; r < runs; r++) printf("%s%.3f", r ? "," : "", run_ms[t][r]);
            memcpy(sorted, run_cpu[t], runs * sizeof *sorted);
            printf("],\"cpu_per_wall\":%.2f", median(sorted, runs));
            /* memory: the clips (each once) and what each character keeps between frames (its cursors) */
            size_t clip_bytes = sk_clip_memory_size(rig.clips[0]) + (rig.clips[1] != rig.clips[0] ? sk_clip_memory_size(rig.clips[1]) : 0);
            printf(",\"clip_bytes\":%zu,\"instance_bytes\":%zu", clip_bytes, stride * sizeof(uint32_t));
            if (hook) printf(",\"hook\":\"%s\"", hook);
            if (t > 0) printf(",\"speedup\":%.3f,\"speedup_over_threads\":%u", med[0] / med[t], threads[0]);
            printf("}\n");
        }
        fflush(stdout);
        free(pal), free(phase), free(mix), free(times), free(cur);
    }
    rc = 0;
out:
    for (uint32_t t = 0; t < nthreads; t++) sk_batch_destroy(pools[t]);
    free(lp0), free(lp1), free(lpose), free(lmodel);
    rig_free(&rig);
    return rc;
}
