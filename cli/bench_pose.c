/* skelanim bench sample | mix | ltm | palette: the per-frame pose stages
 * alone, in ns per joint (issue #13), over a crowd of characters each with
 * its own poses and matrices (so the caches see what a crowd frame sees):
 *   sample   sk_clip_sample_cursor of one clip (--clip, default the first),
 *            forward at 60 Hz with a cursor per character from spread
 *            phases, and at random times (sk_clip_sample: key search)
 *   mix      sk_blend_two of two poses (nlerp, no mask); --op picks another
 *            blend: masked (a mask of 0, 1/3, 2/3, 1 by joint), slerp,
 *            additive (sk_pose_apply_additive of a delta, masked, in place),
 *            poses (sk_blend_poses of two inputs, one masked, rest fill)
 *   ltm      sk_local_to_model (local transforms -> model matrices)
 *   palette  sk_skin_palette (model matrices x inverse binds); also, per
 *            joint of the skeleton, SoA local-to-model then the palette
 *            against sk_local_to_model_palette_soa with sk_skin_joint_map's
 *            map (one pass): "two_pass_..." and "one_pass_..." keys
 * On the mannequin, or FILE (its skeleton and first skin). One JSON line per
 * stage: the minimum and median over the frames. sample, mix and ltm also
 * time the structure-of-arrays functions (sk_clip_sample_soa and
 * sk_local_to_model_soa, core/soa.h; sk_blend_two_soa, anim/soa_layers.h;
 * the same results) on their own SoA poses in the same frames, alternated
 * with the AoS ones: "soa_..." and "aos_..." keys ("ns_per_joint_*" stays
 * the AoS figure); mix's other ops time anim/soa_layers.h's other
 * functions against blend.h's and layers.h's. */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { ST_MIX, ST_LTM, ST_PALETTE };
enum { OP_TWO, OP_MASKED, OP_SLERP, OP_ADDITIVE, OP_POSES };
static const char *const op_names[] = {"two", "masked", "slerp", "additive", "poses"};

static double median_of(double *v, uint32_t n) {
    qsort(v, n, sizeof *v, cli_cmp_double);
    return v[n / 2];
}

int bench_sample(int argc, char **argv) {
    const char *file = SK_CLI_MANNEQUIN, *clip_spec = NULL;
    uint32_t count = 1000, frames = 200;
    double scale = 0.0;
    bool cache = false;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--count") && i + 1 < argc) {
            if (!cli_parse_uint("--count", argv[++i], 1, 100000, &count)) return 1;
        } else if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
            if (!cli_parse_uint("--frames", argv[++i], 1, 100000, &frames)) return 1;
        } else if (!strcmp(argv[i], "--clip") && i + 1 < argc) {
            clip_spec = argv[++i];
        } else if (!strcmp(argv[i], "--scale") && i + 1 < argc) {
            if (!cli_parse_real("--scale", argv[++i], CLI_SCALE_MIN, CLI_SCALE_MAX, &scale)) return 1;
        } else if (!strcmp(argv[i], "--cursor-cache")) {
            cache = true;
        } else if (argv[i][0] != '-') {
            file = argv[i];
        } else {
            fprintf(stderr, "usage: skelanim bench sample [FILE] [--clip NAME|INDEX] [--count N] [--frames N] "
                            "[--scale M_PER_UNIT] [--cursor-cache]\n");
            return 1;
        }
    }
    sk_asset *a = NULL;
    if (!cli_load_scaled(file, scale, &a)) return 1;
    int rc = 1;
    int32_t ci = clip_spec ? cli_find_clip(a, clip_spec) : (a->clip_count ? 0 : -1);
    if (ci < 0) {
        if (!clip_spec) fprintf(stderr, "skelanim: bench sample: %s has no clip\n", file);
        sk_asset_destroy(a);
        return 1;
    }
    const sk_skeleton *s = a->skeleton;
    const sk_clip *clip = a->clips[ci];
    uint32_t J = s->joint_count, W = s->weight_total;
    /* --cursor-cache: cursors that keep a compressed clip's decoded frames (sk_clip_cursor_cache_size) */
    size_t cs = cache ? sk_clip_cursor_cache_size(clip) : sk_clip_cursor_size(clip);
    double dur = sk_clip_duration(clip);
    sk_transform *poses = malloc((size_t)count * J * sizeof *poses);
    float *weights = W ? malloc((size_t)count * W * sizeof *weights) : NULL;
    uint32_t *cursors = calloc((size_t)count * (cs ? cs : 1), sizeof *cursors);
    double *fwd = calloc(frames, sizeof *fwd), *rnd = calloc(frames, sizeof *rnd), *phase = malloc(count * sizeof *phase);
    double *sfw = calloc(frames, sizeof *sfw);
    size_t sf = sk_soa_pose_floats(J);
    float *soa = aligned_alloc(32, (size_t)count * sf * sizeof *soa);
    uint32_t *scur = calloc((size_t)count * (cs ? cs : 1), sizeof *scur);
    if (!poses || (W && !weights) || !cursors || !fwd || !rnd || !phase || !sfw || !soa || !scur) {
        fprintf(stderr, "skelanim: out of memory\n");
        goto done;
    }
    for (uint32_t i = 0; i < count; i++) {
        phase[i] = (double)((i * 2654435761u) % 1000) / 1000.0;
        sk_pose p = sk_pose_view(poses + (size_t)i * J, J, W ? weights + (size_t)i * W : NULL, W);
        sk_pose_rest(s, &p, NULL);
    }
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    for (uint32_t f = 0; f < frames + 5; f++) {
        double t0 = cli_now();
        for (uint32_t i = 0; i < count; i++) {
            sk_pose p = sk_pose_view(poses + (size_t)i * J, J, W ? weights + (size_t)i * W : NULL, W);
            double t = phase[i] * dur + f / 60.0;
            if (sk_clip_sample_cursor(clip, s, t, SK_LOOP_REPEAT, cursors + (size_t)i * cs, cs, &p, NULL) != SK_OK)
                goto bad;
        }
        double t1 = cli_now();
        for (uint32_t i = 0; i < count; i++) {
            sk_pose p = sk_pose_view(poses + (size_t)i * J, J, W ? weights + (size_t)i * W : NULL, W);
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            double t = (double)(rng >> 11) / 9007199254740992.0 * dur;
            if (sk_clip_sample(clip, s, t, SK_LOOP_REPEAT, &p, NULL) != SK_OK) goto bad;
        }
        double t2 = cli_now();
        for (uint32_t i = 0; i < count; i++) {
            sk_soa_pose p = sk_soa_pose_view(soa + (size_t)i * sf, J);
            double t = phase[i] * dur + f / 60.0;
            if (sk_clip_sample_soa(clip, s, t, SK_LOOP_REPEAT, scur + (size_t)i * cs, cs, &p, NULL) != SK_OK) goto bad;
        }
        double t3 = cli_now();
        if (f >= 5) fwd[f - 5] = t1 - t0, rnd[f - 5] = t2 - t1, sfw[f - 5] = t3 - t2;
    }
    double per = (double)count * J;
    double fmin = fwd[0], rmin = rnd[0];
    double smin = sfw[0];
    for (uint32_t f = 1; f < frames; f++)
        fmin = fwd[f] < fmin ? fwd[f] : fmin, rmin = rnd[f] < rmin ? rnd[f] : rmin, smin = sfw[f] < smin ? sfw[f] : smin;
    printf("{\"bench\":\"sample\",\"file\":\"%s\",\"clip\":\"%s\",\"characters\":%u,\"joints\":%u,\"tracks\":%u,"
           "\"frames\":%u,\"forward_ns_per_joint_min\":%.3f,\"forward_ns_per_joint_median\":%.3f,"
           "\"random_ns_per_joint_min\":%.3f,\"random_ns_per_joint_median\":%.3f,\"pose_ns_forward_min\":%.1f,"
           "\"pose_ns_random_min\":%.1f,\"soa_forward_ns_per_joint_min\":%.3f,\"soa_forward_ns_per_joint_median\":%.3f,"
           "\"soa_pose_ns_forward_min\":%.1f,\"frame_major\":%s,\"clip_bytes\":%zu,\"cursor_bytes\":%zu,\"cursor_cache\":%s}\n",
           file, sk_clip_name(clip) ? sk_clip_name(clip) : "", count, J, sk_clip_track_count(clip), frames,
           fmin * 1e9 / per, median_of(fwd, frames) * 1e9 / per, rmin * 1e9 / per, median_of(rnd, frames) * 1e9 / per,
           fmin * 1e9 / count, rmin * 1e9 / count, smin * 1e9 / per, median_of(sfw, frames) * 1e9 / per,
           smin * 1e9 / count, sk_clip_is_frame_major(clip) ? "true" : "false", sk_clip_memory_size(clip),
           cs * sizeof(uint32_t), cache ? "true" : "false");
    rc = 0;
    goto done;
bad:
    fprintf(stderr, "skelanim: bench sample: sampling failed\n");
done:
    free(poses), free(weights), free(cursors), free(fwd), free(rnd), free(phase), free(sfw), free(soa), free(scur);
    sk_asset_destroy(a);
    return rc;
}

static int bench_stage(int stage, int argc, char **argv) {
    static const char *names[] = {"mix", "ltm", "palette"};
    const char *file = SK_CLI_MANNEQUIN;
    uint32_t count = 1000, frames = 200;
    int op = OP_TWO;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--count") && i + 1 < argc) {
            if (!cli_parse_uint("--count", argv[++i], 1, 100000, &count)) return 1;
        } else if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
            if (!cli_parse_uint("--frames", argv[++i], 1, 100000, &frames)) return 1;
        } else if (stage == ST_MIX && !strcmp(argv[i], "--op") && i + 1 < argc) {
            const char *v = argv[++i];
            op = -1;
            for (int k = 0; k < (int)(sizeof op_names / sizeof op_names[0]); k++)
                if (!strcmp(v, op_names[k])) op = k;
            if (op < 0) {
                fprintf(stderr, "skelanim: bench mix: --op: '%s' is not one of two, masked, slerp, additive, poses\n", v);
                return 1;
            }
        } else if (argv[i][0] != '-') {
            file = argv[i];
        } else {
            fprintf(stderr, "usage: skelanim bench %s [FILE] [--count N] [--frames N]%s\n", names[stage],
                    stage == ST_MIX ? " [--op two|masked|slerp|additive|poses]" : "");
            return 1;
        }
    }
    sk_asset *a = NULL;
    if (!cli_load(file, &a)) return 1;
    const sk_skeleton *s = a->skeleton;
    uint32_t J = s->joint_count;
    if (stage == ST_PALETTE && a->skin_count == 0) {
        fprintf(stderr, "skelanim: bench palette: %s has no skin\n", file);
        sk_asset_destroy(a);
        return 1;
    }
    const sk_skin *skin = a->skin_count ? &a->skins[0] : NULL;
    uint32_t P = skin ? skin->joint_count : 0;
    size_t nt = (size_t)count * J;
    sk_transform *pa = malloc(nt * sizeof *pa), *pb = malloc(nt * sizeof *pb), *po = malloc(nt * sizeof *po);
    sk_mat4 *model = malloc(nt * sizeof *model), *pal = malloc((size_t)count * (P ? P : 1) * sizeof *pal);
    double *ft = calloc(frames, sizeof *ft), *st = calloc(frames, sizeof *st);
    double *f2 = calloc(frames, sizeof *f2), *f1 = calloc(frames, sizeof *f1); /* palette: two passes, one pass */
    size_t sf = sk_soa_pose_floats(J);
    float *sa = aligned_alloc(32, (size_t)count * sf * sizeof(float)), *sb = aligned_alloc(32, (size_t)count * sf * sizeof(float));
    float *so = aligned_alloc(32, (size_t)count * sf * sizeof(float));
    sk_mat4 *smodel = malloc(nt * sizeof *smodel);
    /* mix's other ops: a delta per character (B against A) and one mask */
    sk_transform *pd = op == OP_ADDITIVE ? malloc(nt * sizeof *pd) : NULL;
    float *sd = op == OP_ADDITIVE ? aligned_alloc(32, (size_t)count * sf * sizeof(float)) : NULL;
    float *mask = malloc((J ? J : 1) * sizeof *mask);
    int16_t *map = NULL; /* palette: sk_skin_joint_map's */
    int rc = 1;
    if (!pa || !pb || !po || !model || !pal || !ft || !st || !f2 || !f1 || !sa || !sb || !so || !smodel || !mask ||
        (op == OP_ADDITIVE && (!pd || !sd))) {
        fprintf(stderr, "skelanim: out of memory\n");
        goto done;
    }
    /* Two poses per character: the first two clips (or the rest pose) at spread times. */
    for (uint32_t i = 0; i < count; i++) {
        sk_pose A = sk_pose_view(pa + (size_t)i * J, J, NULL, 0), B = sk_pose_view(pb + (size_t)i * J, J, NULL, 0);
        sk_pose_rest(s, &A, NULL);
        sk_pose_rest(s, &B, NULL);
        double t = (double)((i * 2654435761u) % 1000) / 1000.0;
        if (a->clip_count > 0) sk_clip_sample_tracks(a->clips[0], s, t * sk_clip_duration(a->clips[0]), SK_LOOP_REPEAT, NULL, 0, &A, NULL);
        if (a->clip_count > 1) sk_clip_sample_tracks(a->clips[1], s, t * sk_clip_duration(a->clips[1]), SK_LOOP_REPEAT, NULL, 0, &B, NULL);
        memcpy(po + (size_t)i * J, pa + (size_t)i * J, J * sizeof *po);
        sk_pose O = sk_pose_view(po + (size_t)i * J, J, NULL, 0);
        sk_local_to_model(s, &O, NULL, model + (size_t)i * J, J, NULL);
        sk_soa_pose SA = sk_soa_pose_view(sa + i * sf, J), SB = sk_soa_pose_view(sb + i * sf, J), SO = sk_soa_pose_view(so + i * sf, J);
        sk_soa_pose_from_pose(s, &A, &SA, NULL);
        sk_soa_pose_from_pose(s, &B, &SB, NULL);
        sk_soa_pose_from_pose(s, &O, &SO, NULL);
        if (op == OP_ADDITIVE) {
            sk_pose D = sk_pose_view(pd + (size_t)i * J, J, NULL, 0);
            sk_soa_pose SD = sk_soa_pose_view(sd + i * sf, J);
            sk_pose_make_additive(s, &B, &A, &D, NULL);
            sk_soa_pose_from_pose(s, &D, &SD, NULL);
        }
    }
    for (uint32_t j = 0; j < J; j++) mask[j] = (float)(j % 4) / 3.0f;
    map = stage == ST_PALETTE ? malloc(J * sizeof *map) : NULL;
    if (stage == ST_PALETTE && (!map || !sk_skin_joint_map(s, skin, map))) {
        free(map);
        map = NULL; /* not allowed for this skin: the one-pass figure is the two steps */
    }
    double checksum = 0;
    for (uint32_t f = 0; f < frames + 5; f++) {
        double t0 = cli_now();
        for (uint32_t i = 0; i < count; i++) {
            sk_pose A = sk_pose_view(pa + (size_t)i * J, J, NULL, 0), B = sk_pose_view(pb + (size_t)i * J, J, NULL, 0);
            sk_pose O = sk_pose_view(po + (size_t)i * J, J, NULL, 0);
            float t = (float)(i % 7) / 6.0f;
            if (stage == ST_MIX && op == OP_ADDITIVE) {
                sk_pose D = sk_pose_view(pd + (size_t)i * J, J, NULL, 0);
                sk_pose_apply_additive(s, &O, &D, t, mask, NULL);
            } else if (stage == ST_MIX && op == OP_POSES) {
                sk_blend_input in[2] = {{&A, 0.6f, NULL, NULL}, {&B, t * 0.4f, mask, NULL}};
                sk_blend_poses(s, in, 2, NULL, &O, NULL);
            } else if (stage == ST_MIX)
                sk_blend_two(s, &A, &B, t, op == OP_MASKED ? mask : NULL, op == OP_SLERP, &O, NULL);
            else if (stage == ST_LTM)
                sk_local_to_model(s, &O, NULL, model + (size_t)i * J, J, NULL);
            else
                sk_skin_palette(skin, model + (size_t)i * J, J, pal + (size_t)i * P, P, NULL);
        }
        double t1 = cli_now(), dt = t1 - t0;
        if (f >= 5) ft[f - 5] = dt;
        if (stage != ST_PALETTE) {
            for (uint32_t i = 0; i < count; i++) {
                sk_soa_pose SA = sk_soa_pose_view(sa + i * sf, J), SB = sk_soa_pose_view(sb + i * sf, J);
                sk_soa_pose SO = sk_soa_pose_view(so + i * sf, J);
                float t = (float)(i % 7) / 6.0f;
                if (stage == ST_MIX && op == OP_TWO) {
                    sk_blend_two_soa(s, &SA, &SB, t, &SO, NULL);
                } else if (stage == ST_MIX && op == OP_ADDITIVE) {
                    sk_soa_pose SD = sk_soa_pose_view(sd + i * sf, J);
                    sk_pose_apply_additive_soa(s, &SO, &SD, t, mask, NULL);
                } else if (stage == ST_MIX && op == OP_POSES) {
                    sk_soa_blend_input in[2] = {{&SA, 0.6f, NULL, NULL}, {&SB, t * 0.4f, mask, NULL}};
                    sk_blend_poses_soa(s, in, 2, NULL, &SO, NULL);
                } else if (stage == ST_MIX) {
                    sk_blend_two_masked_soa(s, &SA, &SB, t, op == OP_MASKED ? mask : NULL, op == OP_SLERP, &SO, NULL);
                } else
                    sk_local_to_model_soa(s, &SO, NULL, smodel + (size_t)i * J, J, NULL);
            }
            if (f >= 5) st[f - 5] = cli_now() - t1;
            checksum += stage == ST_MIX ? so[(size_t)(f % count) * sf + 48] : smodel[(size_t)(f % count) * J + J - 1].m[12];
        }
        if (stage == ST_PALETTE) { /* local-to-model and the palette: two passes, then one (the map made once) */
            double u0 = cli_now();
            for (uint32_t i = 0; i < count; i++) {
                sk_soa_pose SO = sk_soa_pose_view(so + i * sf, J);
                sk_local_to_model_soa(s, &SO, NULL, smodel + (size_t)i * J, J, NULL);
                sk_skin_palette(skin, smodel + (size_t)i * J, J, pal + (size_t)i * P, P, NULL);
            }
            double u1 = cli_now();
            for (uint32_t i = 0; i < count; i++) {
                sk_soa_pose SO = sk_soa_pose_view(so + i * sf, J);
                sk_local_to_model_palette_soa(s, &SO, NULL, smodel + (size_t)i * J, J, skin, map, pal + (size_t)i * P, P, NULL);
            }
            if (f >= 5) f2[f - 5] = u1 - u0, f1[f - 5] = cli_now() - u1;
        }
        checksum += stage == ST_MIX ? po[(size_t)(f % count) * J].r.w
                    : stage == ST_LTM ? model[(size_t)(f % count) * J + J - 1].m[12]
                                      : pal[(size_t)(f % count) * P].m[0];
    }
    qsort(ft, frames, sizeof *ft, cli_cmp_double);
    qsort(st, frames, sizeof *st, cli_cmp_double);
    double per = (double)count * (stage == ST_PALETTE ? P : J);
    printf("{\"bench\":\"%s\",", names[stage]);
    if (stage == ST_MIX) printf("\"op\":\"%s\",", op_names[op]);
    printf("\"file\":\"%s\",\"characters\":%u,\"joints\":%u,\"frames\":%u,"
           "\"ns_per_joint_min\":%.3f,\"ns_per_joint_median\":%.3f",
           file, count, stage == ST_PALETTE ? P : J, frames, ft[0] * 1e9 / per,
           ft[frames / 2] * 1e9 / per);
    if (stage != ST_PALETTE)
        printf(",\"aos_ns_per_joint_min\":%.3f,\"soa_ns_per_joint_min\":%.3f,\"soa_ns_per_joint_median\":%.3f",
               ft[0] * 1e9 / per, st[0] * 1e9 / per, st[frames / 2] * 1e9 / per);
    else {
        qsort(f2, frames, sizeof *f2, cli_cmp_double);
        qsort(f1, frames, sizeof *f1, cli_cmp_double);
        double pj = (double)count * J;
        printf(",\"skeleton_joints\":%u,\"two_pass_ns_per_joint_min\":%.3f,\"two_pass_ns_per_joint_median\":%.3f,"
               "\"one_pass_ns_per_joint_min\":%.3f,\"one_pass_ns_per_joint_median\":%.3f",
               J, f2[0] * 1e9 / pj, f2[frames / 2] * 1e9 / pj, f1[0] * 1e9 / pj, f1[frames / 2] * 1e9 / pj);
    }
    printf("}\n");
    if (!isfinite(checksum)) fprintf(stderr, "skelanim: bench %s: the outputs are not finite\n", names[stage]);
    rc = 0;
done:
    free(pa), free(pb), free(po), free(model), free(pal), free(ft), free(st), free(sa), free(sb), free(so), free(smodel);
    free(pd), free(sd), free(mask), free(f2), free(f1), free(map);
    sk_asset_destroy(a);
    return rc;
}

int bench_mix(int argc, char **argv) { return bench_stage(ST_MIX, argc, argv); }
int bench_ltm(int argc, char **argv) { return bench_stage(ST_LTM, argc, argv); }
int bench_palette(int argc, char **argv) { return bench_stage(ST_PALETTE, argc, argv); }
