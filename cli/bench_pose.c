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
 *            map (one pass) and sk_local_to_model_soa_many (eight
 *            characters at a time, model matrices and palettes):
 *            "two_pass_...", "one_pass_..." and "eight_..." keys
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
enum { OP_TWO, OP_MASKED, OP_SLERP, OP_ADDITIVE, OP_POSES, OP_ADDITIVE_NLERP };

static const char *const op_names[] = {"two", "masked", "slerp", "additive", "poses", "additive-nlerp"};

static double median_of(double *v, uint32_t n) {
    qsort(v, n, sizeof *v, cli_cmp_double);
    return v[n / 2];
}

typedef struct pose_args {
    const char *file, *clip;
    uint32_t count, frames;
    double scale;
    int op;     /* bench mix: index into op_names */
    int layout; /* bench mix, ltm: 0 both, 1 aos, 2 soa */
    bool cache, ahead;
} pose_args;

static int bench_sample(int argc, char **argv) {
    pose_args args;
    memset(&args, 0, sizeof args);
    int prc = cli_parse(&cli_cmd_bench_sample, argc, argv, &args, NULL);
    if (prc != CLI_CONTINUE) return prc;
    const char *file = args.file ? args.file : SK_CLI_MANNEQUIN, *clip_spec = args.clip;
    uint32_t count = args.count, frames = args.frames;
    double scale = args.scale;
    bool cache = args.cache || args.ahead;
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
    /* --cursor-cache: cursors that keep a compressed clip's decoded frames (sk_clip_cursor_cache_size);
     * --cursor-ahead: with room for a third (sk_clip_cursor_ahead_size) */
    size_t cs = args.ahead ? sk_clip_cursor_ahead_size(clip) : cache ? sk_clip_cursor_cache_size(clip) : sk_clip_cursor_size(clip);
    double dur = sk_clip_duration(clip);
    sk_transform *poses = cli_alloc64((size_t)count * J * sizeof *poses);
    float *weights = W ? malloc((size_t)count * W * sizeof *weights) : NULL;
    uint32_t *cursors = cli_alloc64((size_t)count * (cs ? cs : 1) * sizeof *cursors);
    double *fwd = calloc(frames, sizeof *fwd), *rnd = calloc(frames, sizeof *rnd), *phase = malloc(count * sizeof *phase);
    double *sfw = calloc(frames, sizeof *sfw);
    size_t sf = sk_soa_pose_floats(J);
    float *soa = cli_alloc64((size_t)count * sf * sizeof *soa);
    uint32_t *scur = cli_alloc64((size_t)count * (cs ? cs : 1) * sizeof *scur);
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
           "\"soa_pose_ns_forward_min\":%.1f,\"frame_major\":%s,\"clip_bytes\":%zu,\"cursor_bytes\":%zu,\"cursor_cache\":%s,\"cursor_ahead\":%s}\n",
           file, sk_clip_name(clip) ? sk_clip_name(clip) : "", count, J, sk_clip_track_count(clip), frames,
           fmin * 1e9 / per, median_of(fwd, frames) * 1e9 / per, rmin * 1e9 / per, median_of(rnd, frames) * 1e9 / per,
           fmin * 1e9 / count, rmin * 1e9 / count, smin * 1e9 / per, median_of(sfw, frames) * 1e9 / per,
           smin * 1e9 / count, sk_clip_is_frame_major(clip) ? "true" : "false", sk_clip_memory_size(clip),
           cs * sizeof(uint32_t), cache ? "true" : "false", args.ahead ? "true" : "false");
    rc = 0;
    goto done;
bad:
    fprintf(stderr, "skelanim: bench sample: sampling failed\n");
done:
    free(poses), free(weights), free(cursors), free(fwd), free(rnd), free(phase), free(sfw), free(soa), free(scur);
    sk_asset_destroy(a);
    return rc;
}

/* One stage over a crowd: each character's poses, matrices and palette,
 * AoS and SoA, and the frame times. */
typedef struct stage_run {
    int stage, op, layout;
    const sk_asset *a;
    const sk_skeleton *s;
    const sk_skin *skin;
    uint32_t count, frames, J, P;
    size_t sf;                               /* floats of one SoA pose */
    sk_transform *pa, *pb, *po, *pd;         /* two poses, the output, mix's additive delta */
    sk_mat4 *model, *pal, *smodel;
    float *sa, *sb, *so, *sd, *mask;         /* the same in SoA; mix's mask */
    double *ft, *st, *f2, *f1, *f8;          /* frame times: AoS, SoA; palette's two passes, one pass, eight at a time */
    float *scratch;                          /* palette: sk_local_to_model_soa_many's */
    int16_t *map;                            /* palette: sk_skin_joint_map's, or NULL */
} stage_run;

static bool stage_alloc(stage_run *R) {
    uint32_t count = R->count, frames = R->frames, J = R->J, P = R->P;
    size_t nt = (size_t)count * J, sf = R->sf = sk_soa_pose_floats(J);
    R->pa = cli_alloc64(nt * sizeof *R->pa), R->pb = cli_alloc64(nt * sizeof *R->pb), R->po = cli_alloc64(nt * sizeof *R->po);
    R->model = cli_alloc64(nt * sizeof *R->model), R->pal = cli_alloc64((size_t)count * (P ? P : 1) * sizeof *R->pal);
    R->ft = calloc(frames, sizeof *R->ft), R->st = calloc(frames, sizeof *R->st);
    R->f2 = calloc(frames, sizeof *R->f2), R->f1 = calloc(frames, sizeof *R->f1), R->f8 = calloc(frames, sizeof *R->f8);
    R->scratch = cli_alloc64(sk_soa_many_scratch_floats(J) * sizeof(float));
    R->sa = cli_alloc64((size_t)count * sf * sizeof(float)), R->sb = cli_alloc64((size_t)count * sf * sizeof(float));
    R->so = cli_alloc64((size_t)count * sf * sizeof(float));
    R->smodel = cli_alloc64(nt * sizeof *R->smodel);
    bool additive = R->stage == ST_MIX && (R->op == OP_ADDITIVE || R->op == OP_ADDITIVE_NLERP);
    R->pd = additive ? cli_alloc64(nt * sizeof *R->pd) : NULL;
    R->sd = additive ? cli_alloc64((size_t)count * sf * sizeof(float)) : NULL;
    R->mask = malloc((J ? J : 1) * sizeof *R->mask);
    if (R->pa && R->pb && R->po && R->model && R->pal && R->ft && R->st && R->f2 && R->f1 && R->f8 && R->scratch && R->sa && R->sb && R->so &&
        R->smodel && R->mask && (!additive || (R->pd && R->sd)))
        return true;
    fprintf(stderr, "skelanim: out of memory\n");
    return false;
}

static void stage_free(stage_run *R) {
    free(R->pa), free(R->pb), free(R->po), free(R->model), free(R->pal), free(R->ft), free(R->st), free(R->sa);
    free(R->sb), free(R->so), free(R->smodel), free(R->pd), free(R->sd), free(R->mask), free(R->f2), free(R->f1);
    free(R->map), free(R->f8), free(R->scratch);
}

/* Two poses per character: the first two clips (or the rest pose) at spread times; the mask; the palette's map. */
static void stage_poses(stage_run *R) {
    const sk_skeleton *s = R->s;
    uint32_t J = R->J;
    size_t sf = R->sf;
    for (uint32_t i = 0; i < R->count; i++) {
        sk_pose A = sk_pose_view(R->pa + (size_t)i * J, J, NULL, 0), B = sk_pose_view(R->pb + (size_t)i * J, J, NULL, 0);
        sk_pose_rest(s, &A, NULL);
        sk_pose_rest(s, &B, NULL);
        double t = (double)((i * 2654435761u) % 1000) / 1000.0;
        const sk_asset *a = R->a;
        if (a->clip_count > 0) sk_clip_sample_tracks(a->clips[0], s, t * sk_clip_duration(a->clips[0]), SK_LOOP_REPEAT, NULL, 0, &A, NULL);
        if (a->clip_count > 1) sk_clip_sample_tracks(a->clips[1], s, t * sk_clip_duration(a->clips[1]), SK_LOOP_REPEAT, NULL, 0, &B, NULL);
        memcpy(R->po + (size_t)i * J, R->pa + (size_t)i * J, J * sizeof *R->po);
        sk_pose O = sk_pose_view(R->po + (size_t)i * J, J, NULL, 0);
        sk_local_to_model(s, &O, NULL, R->model + (size_t)i * J, J, NULL);
        sk_soa_pose SA = sk_soa_pose_view(R->sa + i * sf, J), SB = sk_soa_pose_view(R->sb + i * sf, J), SO = sk_soa_pose_view(R->so + i * sf, J);
        sk_soa_pose_from_pose(s, &A, &SA, NULL);
        sk_soa_pose_from_pose(s, &B, &SB, NULL);
        sk_soa_pose_from_pose(s, &O, &SO, NULL);
        if (R->pd) {
            sk_pose D = sk_pose_view(R->pd + (size_t)i * J, J, NULL, 0);
            sk_soa_pose SD = sk_soa_pose_view(R->sd + i * sf, J);
            sk_pose_make_additive(s, &B, &A, &D, NULL);
            sk_soa_pose_from_pose(s, &D, &SD, NULL);
        }
    }
    for (uint32_t j = 0; j < J; j++) R->mask[j] = (float)(j % 4) / 3.0f;
    R->map = R->stage == ST_PALETTE ? malloc(J * sizeof *R->map) : NULL;
    if (R->stage == ST_PALETTE && (!R->map || !sk_skin_joint_map(s, R->skin, R->map))) {
        free(R->map);
        R->map = NULL; /* not allowed for this skin: the one-pass figure is the two steps */
    }
}

/* The stage on every character, AoS (sk_pose, sk_mat4). */
static void stage_aos(const stage_run *R) {
    const sk_skeleton *s = R->s;
    uint32_t J = R->J, P = R->P;
    int stage = R->stage, op = R->op;
    for (uint32_t i = 0; i < R->count; i++) {
        sk_pose A = sk_pose_view(R->pa + (size_t)i * J, J, NULL, 0), B = sk_pose_view(R->pb + (size_t)i * J, J, NULL, 0);
        sk_pose O = sk_pose_view(R->po + (size_t)i * J, J, NULL, 0);
        float t = (float)(i % 7) / 6.0f;
        if (stage == ST_MIX && (op == OP_ADDITIVE || op == OP_ADDITIVE_NLERP)) {
            sk_pose D = sk_pose_view(R->pd + (size_t)i * J, J, NULL, 0);
            (op == OP_ADDITIVE ? sk_pose_apply_additive : sk_pose_apply_additive_nlerp)(s, &O, &D, t, R->mask, NULL);
        } else if (stage == ST_MIX && op == OP_POSES) {
            sk_blend_input in[2] = {{&A, 0.6f, NULL, NULL}, {&B, t * 0.4f, R->mask, NULL}};
            sk_blend_poses(s, in, 2, NULL, &O, NULL);
        } else if (stage == ST_MIX)
            sk_blend_two(s, &A, &B, t, op == OP_MASKED ? R->mask : NULL, op == OP_SLERP, &O, NULL);
        else if (stage == ST_LTM)
            sk_local_to_model(s, &O, NULL, R->model + (size_t)i * J, J, NULL);
        else
            sk_skin_palette(R->skin, R->model + (size_t)i * J, J, R->pal + (size_t)i * P, P, NULL);
    }
}

/* mix and ltm on every character, SoA (core/soa.h, anim/soa_layers.h). */
static void stage_soa(const stage_run *R) {
    const sk_skeleton *s = R->s;
    uint32_t J = R->J;
    size_t sf = R->sf;
    int stage = R->stage, op = R->op;
    for (uint32_t i = 0; i < R->count; i++) {
        sk_soa_pose SA = sk_soa_pose_view(R->sa + i * sf, J), SB = sk_soa_pose_view(R->sb + i * sf, J);
        sk_soa_pose SO = sk_soa_pose_view(R->so + i * sf, J);
        float t = (float)(i % 7) / 6.0f;
        if (stage == ST_MIX && op == OP_TWO) {
            sk_blend_two_soa(s, &SA, &SB, t, &SO, NULL);
        } else if (stage == ST_MIX && (op == OP_ADDITIVE || op == OP_ADDITIVE_NLERP)) {
            sk_soa_pose SD = sk_soa_pose_view(R->sd + i * sf, J);
            (op == OP_ADDITIVE ? sk_pose_apply_additive_soa : sk_pose_apply_additive_nlerp_soa)(s, &SO, &SD, t, R->mask, NULL);
        } else if (stage == ST_MIX && op == OP_POSES) {
            sk_soa_blend_input in[2] = {{&SA, 0.6f, NULL, NULL}, {&SB, t * 0.4f, R->mask, NULL}};
            sk_blend_poses_soa(s, in, 2, NULL, &SO, NULL);
        } else if (stage == ST_MIX) {
            sk_blend_two_masked_soa(s, &SA, &SB, t, op == OP_MASKED ? R->mask : NULL, op == OP_SLERP, &SO, NULL);
        } else
            sk_local_to_model_soa(s, &SO, NULL, R->smodel + (size_t)i * J, J, NULL);
    }
}

/* palette: SoA local-to-model and the palette in two passes, then in one (the map made once), then
 * eight characters at a time. */
static void stage_palette_passes(const stage_run *R, double *two, double *one, double *eight) {
    const sk_skeleton *s = R->s;
    uint32_t J = R->J, P = R->P;
    size_t sf = R->sf;
    double u0 = cli_now();
    for (uint32_t i = 0; i < R->count; i++) {
        sk_soa_pose SO = sk_soa_pose_view(R->so + i * sf, J);
        sk_local_to_model_soa(s, &SO, NULL, R->model + (size_t)i * J, J, NULL);
        sk_skin_palette(R->skin, R->model + (size_t)i * J, J, R->pal + (size_t)i * P, P, NULL);
    }
    double u1 = cli_now();
    for (uint32_t i = 0; i < R->count; i++) {
        sk_soa_pose SO = sk_soa_pose_view(R->so + i * sf, J);
        sk_local_to_model_palette_soa(s, &SO, NULL, R->model + (size_t)i * J, J, R->skin, R->map,
                                      R->pal + (size_t)i * P, P, NULL);
    }
    double u2 = cli_now();
    for (uint32_t i = 0; i < R->count; i += 8) { /* eight characters at a time */
        uint32_t n = R->count - i < 8 ? R->count - i : 8;
        sk_soa_pose so[8];
        const sk_soa_pose *pp[8];
        sk_mat4 *model[8], *pal[8];
        for (uint32_t k = 0; k < n; k++) {
            so[k] = sk_soa_pose_view(R->so + (i + k) * sf, J), pp[k] = &so[k];
            model[k] = R->model + (size_t)(i + k) * J, pal[k] = R->pal + (size_t)(i + k) * P;
        }
        sk_local_to_model_soa_many(s, n, pp, NULL, model, J, R->map ? R->skin : NULL, R->map, R->map ? pal : NULL, P,
                                   R->scratch, sk_soa_many_scratch_floats(J), NULL);
    }
    *two = u1 - u0, *one = u2 - u1, *eight = cli_now() - u2;
}

static void stage_print(const stage_run *R, const char *name, const char *file) {
    uint32_t frames = R->frames, J = R->J, P = R->P;
    int stage = R->stage;
    double *ft = R->ft, *st = R->st, *f2 = R->f2, *f1 = R->f1, *f8 = R->f8;
    qsort(ft, frames, sizeof *ft, cli_cmp_double);
    qsort(st, frames, sizeof *st, cli_cmp_double);
    double per = (double)R->count * (stage == ST_PALETTE ? P : J);
    printf("{\"bench\":\"%s\",", name);
    if (stage == ST_MIX) printf("\"op\":\"%s\",", op_names[R->op]);
    static const char *const layouts[] = {"both", "aos", "soa"};
    const double *main_t = R->layout == 2 ? st : ft; /* ns_per_joint: AoS (sk_pose) unless only SoA ran */
    printf("\"file\":\"%s\",\"characters\":%u,\"joints\":%u,\"frames\":%u,"
           "\"ns_per_joint_min\":%.3f,\"ns_per_joint_median\":%.3f",
           file, R->count, stage == ST_PALETTE ? P : J, frames, main_t[0] * 1e9 / per,
           main_t[frames / 2] * 1e9 / per);
    if (stage != ST_PALETTE) {
        printf(",\"layout\":\"%s\"", layouts[R->layout]);
        if (R->layout != 2) printf(",\"aos_ns_per_joint_min\":%.3f", ft[0] * 1e9 / per);
        if (R->layout != 1)
            printf(",\"soa_ns_per_joint_min\":%.3f,\"soa_ns_per_joint_median\":%.3f", st[0] * 1e9 / per,
                   st[frames / 2] * 1e9 / per);
    } else {
        qsort(f2, frames, sizeof *f2, cli_cmp_double);
        qsort(f1, frames, sizeof *f1, cli_cmp_double);
        qsort(f8, frames, sizeof *f8, cli_cmp_double);
        double pj = (double)R->count * J;
        printf(",\"skeleton_joints\":%u,\"two_pass_ns_per_joint_min\":%.3f,\"two_pass_ns_per_joint_median\":%.3f,"
               "\"one_pass_ns_per_joint_min\":%.3f,\"one_pass_ns_per_joint_median\":%.3f,"
               "\"eight_ns_per_joint_min\":%.3f,\"eight_ns_per_joint_median\":%.3f",
               J, f2[0] * 1e9 / pj, f2[frames / 2] * 1e9 / pj, f1[0] * 1e9 / pj, f1[frames / 2] * 1e9 / pj,
               f8[0] * 1e9 / pj, f8[frames / 2] * 1e9 / pj);
    }
    printf("}\n");
}

static int bench_stage(int stage, const cli_command *cmd, int argc, char **argv) {
    static const char *names[] = {"mix", "ltm", "palette"};
    pose_args args;
    memset(&args, 0, sizeof args);
    int prc = cli_parse(cmd, argc, argv, &args, NULL);
    if (prc != CLI_CONTINUE) return prc;
    const char *file = args.file ? args.file : SK_CLI_MANNEQUIN;
    sk_asset *a = NULL;
    if (!cli_load(file, &a)) return 1;
    if (stage == ST_PALETTE && a->skin_count == 0) {
        fprintf(stderr, "skelanim: bench palette: %s has no skin\n", file);
        sk_asset_destroy(a);
        return 1;
    }
    stage_run R;
    memset(&R, 0, sizeof R);
    R.stage = stage, R.op = stage == ST_MIX ? args.op : OP_TWO, R.layout = stage == ST_PALETTE ? 0 : args.layout;
    R.a = a, R.s = a->skeleton, R.skin = a->skin_count ? &a->skins[0] : NULL;
    R.count = args.count, R.frames = args.frames, R.J = R.s->joint_count, R.P = R.skin ? R.skin->joint_count : 0;
    int rc = 1;
    if (!stage_alloc(&R)) goto done;
    stage_poses(&R);
    double checksum = 0;
    uint32_t count = R.count, J = R.J;
    for (uint32_t f = 0; f < R.frames + 5; f++) {
        double t0 = cli_now();
        if (R.layout != 2) stage_aos(&R);
        double t1 = cli_now(), dt = t1 - t0;
        if (f >= 5) R.ft[f - 5] = dt;
        if (stage != ST_PALETTE) {
            if (R.layout != 1) stage_soa(&R);
            if (f >= 5) R.st[f - 5] = cli_now() - t1;
            checksum += stage == ST_MIX ? R.so[(size_t)(f % count) * R.sf + 48] : R.smodel[(size_t)(f % count) * J + J - 1].m[12];
        } else {
            double two, one, eight;
            stage_palette_passes(&R, &two, &one, &eight);
            if (f >= 5) R.f2[f - 5] = two, R.f1[f - 5] = one, R.f8[f - 5] = eight;
        }
        checksum += stage == ST_MIX ? R.po[(size_t)(f % count) * J].r.w
                    : stage == ST_LTM ? R.model[(size_t)(f % count) * J + J - 1].m[12]
                                      : R.pal[(size_t)(f % count) * R.P].m[0];
    }
    stage_print(&R, names[stage], file);
    if (!isfinite(checksum)) fprintf(stderr, "skelanim: bench %s: the outputs are not finite\n", names[stage]);
    rc = 0;
done:
    stage_free(&R);
    sk_asset_destroy(a);
    return rc;
}

static int bench_mix(int argc, char **argv) { return bench_stage(ST_MIX, &cli_cmd_bench_mix, argc, argv); }
static int bench_ltm(int argc, char **argv) { return bench_stage(ST_LTM, &cli_cmd_bench_ltm, argc, argv); }
static int bench_palette(int argc, char **argv) { return bench_stage(ST_PALETTE, &cli_cmd_bench_palette, argc, argv); }

/* --count and --frames, and FILE, of every stage. */
#define POSE_OPTS                                                                                             \
    {"--count", CLI_INT(pose_args, count), .meta = "N", .min = 1, .max = 100000, .dflt = "1000",             \
     .help = "characters, each with its own poses and matrices"},                                            \
    {"--frames", CLI_INT(pose_args, frames), .meta = "N", .min = 1, .max = 100000, .dflt = "200",            \
     .help = "frames timed, after 5 untimed"}
static const cli_arg pose_file_arg[] = {
    {"FILE", CLI_ARG(pose_args, file), .help = CLI_FILE_HELP, .dflt_text = SK_CLI_MANNEQUIN},
};

static const cli_opt sample_opts[] = {
    POSE_OPTS,
    {"--clip", CLI_STRING(pose_args, clip), .meta = "NAME|INDEX", .help = "the clip", .dflt_text = "the first"},
    CLI_OPT_SCALE(pose_args, scale),
    {"--cursor-cache", CLI_FLAG(pose_args, cache), .help = "cursors that keep a compressed clip's decoded frames"},
    {"--cursor-ahead", CLI_FLAG(pose_args, ahead),
     .help = "cursors with room for a third decoded frame, decoded ahead on a step forward (implies --cursor-cache)"},
};
const cli_command cli_cmd_bench_sample = {
    .name = "bench sample",
    .run = bench_sample,
    .summary = "clip sampling over a crowd, ns per joint",
    .about = "Clip sampling over a crowd in ns per joint: forward at 60 Hz with a cursor per "
             "character, at random times, and into SoA poses; one JSON line.",
    .opts = sample_opts,
    .nopts = CLI_COUNT(sample_opts),
    .args = pose_file_arg,
    .nargs = CLI_COUNT(pose_file_arg),
};

#define LAYOUT_OPT                                                                                            \
    {"--layout", CLI_CHOICE(pose_args, layout, "both|aos|soa"), .dflt = "both",                              \
     .help = "time the sk_pose functions, the SoA ones, or both (each frame; the other's arrays then share "  \
             "the cache)"}
static const cli_opt mix_opts[] = {
    POSE_OPTS,
    LAYOUT_OPT,
    {"--op", CLI_CHOICE(pose_args, op, "two|masked|slerp|additive|poses|additive-nlerp"), .dflt = "two",
     .help = "the blend: two poses (nlerp), masked, slerp, an additive delta (slerp), sk_blend_poses of two "
             "inputs, an additive delta by nlerp"},
};
const cli_command cli_cmd_bench_mix = {
    .name = "bench mix",
    .run = bench_mix,
    .summary = "a two-pose blend over a crowd, ns per joint",
    .about = "A two-pose blend (or --op's) over a crowd in ns per joint, AoS and SoA; one JSON "
             "line.",
    .opts = mix_opts,
    .nopts = CLI_COUNT(mix_opts),
    .args = pose_file_arg,
    .nargs = CLI_COUNT(pose_file_arg),
};

static const cli_opt ltm_opts[] = {POSE_OPTS, LAYOUT_OPT};
static const cli_opt stage_opts[] = {POSE_OPTS};
const cli_command cli_cmd_bench_ltm = {
    .name = "bench ltm",
    .run = bench_ltm,
    .summary = "local-to-model over a crowd, ns per joint",
    .about = "Local-to-model over a crowd in ns per joint, AoS and SoA; one JSON line.",
    .opts = ltm_opts,
    .nopts = CLI_COUNT(ltm_opts),
    .args = pose_file_arg,
    .nargs = CLI_COUNT(pose_file_arg),
};
const cli_command cli_cmd_bench_palette = {
    .name = "bench palette",
    .run = bench_palette,
    .summary = "the skinning palette over a crowd, ns per joint",
    .about = "The skinning palette over a crowd in ns per joint, and SoA local-to-model with the "
             "palette in two passes, in one, and in one for eight characters at a time; one JSON line.",
    .opts = stage_opts,
    .nopts = CLI_COUNT(stage_opts),
    .args = pose_file_arg,
    .nargs = CLI_COUNT(pose_file_arg),
};
