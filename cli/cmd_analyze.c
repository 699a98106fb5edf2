/* skelanim analyze: motion analysis of a walk or run clip (seed 002 ch. 3;
 * skelanim/locomotion/analysis.h). Human-readable by default, --json gives
 * the saved format (skelanim/io/analysis_json.h) plus the analysis time. */
#include "cli.h"
#include "plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A joint given by name or index; prints an error naming the leg on failure. */
static bool parse_joint(const sk_skeleton *skel, const char *s, size_t n, const char *role, int32_t *out) {
    char buf[256];
    if (n >= sizeof buf) n = sizeof buf - 1;
    memcpy(buf, s, n);
    buf[n] = 0;
    int32_t j = sk_skeleton_find(skel, buf);
    if (j < 0) {
        double v;
        if (cli_number(buf, strlen(buf), CLI_NUM_UINT, 0.0, (double)skel->joint_count - 1.0, &v, NULL, 0)) j = (int32_t)v;
    }
    if (j < 0) {
        fprintf(stderr, "skelanim: --legs: %s joint '%s' not found (give a joint name or index; see skelanim info)\n",
                role, buf);
        return false;
    }
    *out = j;
    return true;
}

/* "HIP:KNEE:ANKLE:TOE,..." (TOE may be empty or "none"). */
static uint32_t parse_legs(const sk_skeleton *skel, const char *spec, sk_leg_desc *legs, uint32_t cap) {
    uint32_t n = 0;
    const char *p = spec;
    while (*p) {
        const char *end = strchr(p, ',');
        if (!end) end = p + strlen(p);
        if (n == cap) {
            fprintf(stderr, "skelanim: --legs: at most %u legs\n", cap);
            return 0;
        }
        const char *f[4];
        size_t len[4];
        int k = 0;
        const char *q = p;
        while (k < 4) {
            const char *c = memchr(q, ':', (size_t)(end - q));
            f[k] = q;
            len[k] = (size_t)((c ? c : end) - q);
            k++;
            if (!c) break;
            q = c + 1;
        }
        if (k < 3 || (k == 4 && memchr(f[3], ':', len[3]))) {
            fprintf(stderr, "skelanim: --legs: '%.*s': expected HIP:KNEE:ANKLE[:TOE]\n", (int)(end - p), p);
            return 0;
        }
        sk_leg_desc *l = &legs[n];
        memset(l, 0, sizeof *l);
        snprintf(l->name, sizeof l->name, "leg %u", n);
        static const char *const roles[4] = {"hip", "knee", "ankle", "toe"};
        int32_t *dst[4] = {&l->hip, &l->knee, &l->ankle, &l->toe};
        l->toe = -1;
        for (int i = 0; i < k; i++) {
            if (i == 3 && (len[3] == 0 || (len[3] == 4 && !strncmp(f[3], "none", 4)))) continue;
            if (!parse_joint(skel, f[i], len[i], roles[i], dst[i])) return 0;
        }
        n++;
        p = *end ? end + 1 : end;
    }
    if (!n) fprintf(stderr, "skelanim: --legs: no leg given\n");
    return n;
}

static void print_leg(const sk_skeleton *skel, const sk_motion_analysis *a, const sk_leg_analysis *L) {
    printf("leg %s: hip %s, knee %s, ankle %s, toe %s\n", L->name, skel->names[L->hip_joint],
           skel->names[L->knee_joint], skel->names[L->ankle_joint], L->toe_joint >= 0 ? skel->names[L->toe_joint] : "(none)");
    printf("  foot length %.3f m, direction (%.3f, %.3f), leg length %.3f m\n", L->foot_length,
           L->foot_direction.x / L->foot_length, L->foot_direction.z / L->foot_length, L->leg_length);
    printf("  stance time   %.4f (sample %u of %u)\n", L->stance_time, L->stance_sample, a->sample_count);
    printf("  lift side     heel-off %.4f  toe-off %.4f  linear-speed-end %.4f\n", L->heel_off, L->toe_off,
           L->linear_speed_end);
    printf("                foot-lift %.4f  foot-off %.4f  post-foot-lift %.4f\n", L->foot_lift, L->foot_off,
           L->post_foot_lift);
    printf("  strike side   heel-strike %.4f  toe-strike %.4f  linear-speed-begin %.4f\n", L->heel_strike,
           L->toe_strike, L->linear_speed_begin);
    printf("                foot-strike %.4f  foot-land %.4f  pre-foot-land %.4f\n", L->foot_strike, L->foot_land,
           L->pre_foot_land);
    printf("  on the ground %.1f%% of the cycle\n", 100.0 * L->stance_fraction);
    printf("  stride        %.3f m/cycle (%.3f m/s), direction (%.3f, %.3f, %.3f), from %s\n", L->stride_velocity,
           L->stride_velocity / a->cycle_duration, L->stride_direction.x, L->stride_direction.y,
           L->stride_direction.z, L->stride_source == SK_STRIDE_FOOTPRINTS ? "footprints" : "contact");
}

typedef struct analyze_args {
    const char *file, *clip, *legs, *cycle, *plot;
    int stride; /* index into "auto|contact|footprints" */
    uint32_t samples;
    double scale, still_band;
    bool json, backward, stride_planted;
} analyze_args;

static int cmd_analyze(int argc, char **argv) {
    static const sk_stride_source strides[] = {SK_STRIDE_AUTO, SK_STRIDE_CONTACT, SK_STRIDE_FOOTPRINTS};
    analyze_args args;
    memset(&args, 0, sizeof args);
    int prc = cli_parse(&cli_cmd_analyze, argc, argv, &args, NULL);
    if (prc != CLI_CONTINUE) return prc;
    const char *file = args.file, *clip_spec = args.clip, *legs_spec = args.legs, *cycle_spec = args.cycle;
    const char *plot = args.plot;
    bool json = args.json;
    double scale = args.scale;
    sk_motion_analysis_options opt = {0};
    opt.backward = args.backward;
    opt.stride_planted = args.stride_planted;
    opt.stride_source = strides[args.stride];
    opt.sample_count = args.samples;
    opt.still_band = (float)args.still_band;
    sk_asset *asset = NULL;
    if (!cli_load_scaled(file, scale, &asset)) return 1;
    int rc = 1;
    sk_motion_analysis *an = NULL;
    int32_t ci;
    char why[256];
    if (scale == 0.0 && cli_file_format(file) == CLI_FORMAT_BVH && cli_not_metres(asset, NULL, "--scale", why, sizeof why)) {
        fprintf(stderr, "skelanim: %s: %s\n", file, why); /* the analysis' thresholds are in metres */
        goto done;
    }
    if (!asset->clip_count) {
        fprintf(stderr, "skelanim: %s: no clips to analyse\n", file);
        goto done;
    }
    if (clip_spec) {
        ci = cli_find_clip(asset, clip_spec);
        if (ci == -1) fprintf(stderr, "skelanim: analyze: --clip none: a clip is needed\n");
        if (ci < 0) goto done;
    } else {
        /* Default: a clip named walk, else the first. */
        ci = sk_asset_find_clip(asset, "walk");
        if (ci < 0) ci = 0;
    }
    const sk_skeleton *skel = asset->skeleton;
    sk_leg_desc legs[16];
    uint32_t nlegs;
    if (!strcmp(legs_spec, "auto")) {
        nlegs = cli_legs_find(skel, legs, 16);
        if (!nlegs) {
            fprintf(stderr, "skelanim: %s: no legs found from joint names (thigh_l/shin_l/foot_l/toe_l, "
                            "LeftUpLeg/LeftLeg/LeftFoot/LeftToeBase, ...) or in a humanoid map: give them with "
                            "--legs HIP:KNEE:ANKLE:TOE\n",
                    file);
            goto done;
        }
    } else {
        nlegs = parse_legs(skel, legs_spec, legs, 16);
        if (!nlegs) goto done;
    }
    sk_error err = {0};
    /* Heel and toe points: from the skinned mesh's sole when there is one,
     * else from the skeleton. */
    sk_leg_points_source src[16];
    if (sk_leg_points_from_mesh(asset, legs, nlegs, NULL, src, &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s: %s\n", file, err.message);
        goto done;
    }
    uint32_t from_mesh = 0;
    for (uint32_t l = 0; l < nlegs; l++) from_mesh += src[l] == SK_LEG_POINTS_MESH;
    if (cycle_spec && !strcmp(cycle_spec, "auto")) {
        /* A capture that is not a loop: its best cycle. */
        if (sk_motion_find_cycle(skel, asset->clips[ci], legs, nlegs, 0, NULL, &opt.cycle_start, &opt.cycle_end,
                                 &err) != SK_OK) {
            fprintf(stderr, "skelanim: %s: clip %d: %s\n", file, ci, err.message);
            goto done;
        }
    } else if (cycle_spec) {
        double se[2];
        if (!cli_parse_doubles("--cycle", cycle_spec, ':', 2, 0.0, CLI_TIME_MAX, se)) goto done; /* START:END */
        opt.cycle_start = se[0], opt.cycle_end = se[1];
    }
    double t0 = cli_now();
    sk_result r = sk_motion_analyze(skel, asset->clips[ci], legs, nlegs, &opt, NULL, &an, &err);
    double ms = (cli_now() - t0) * 1e3;
    if (r != SK_OK) {
        fprintf(stderr, "skelanim: %s: clip %d: %s\n", file, ci, err.message[0] ? err.message : sk_result_string(r));
        if (cycle_spec && !strcmp(cycle_spec, "auto"))
            fprintf(stderr, "skelanim: (the cycle --cycle auto found: %.3f:%.3f s; give one with --cycle START:END)\n",
                    opt.cycle_start, opt.cycle_end);
        goto done;
    }
    if (json) {
        char *text = NULL;
        size_t len = 0;
        r = sk_motion_analysis_to_json(an, NULL, &text, &len, &err);
        if (r != SK_OK) {
            fprintf(stderr, "skelanim: %s\n", err.message);
            goto done;
        }
        /* The saved format plus the time the analysis took, as one object. */
        printf("{\"analysis_ms\":%.4f,\"file\":", ms);
        cJSON *fs = cJSON_CreateString(file);
        char *q = cJSON_PrintUnformatted(fs);
        printf("%s,\"analysis\":%s}\n", q ? q : "null", text);
        cJSON_free(q);
        cJSON_Delete(fs);
        sk_free(NULL, text, len + 1);
    } else {
        printf("file: %s\nclip %d \"%s\"%s: %u samples over %.4f s\n", file, ci, an->clip_name,
               an->backward ? " (backward)" : "", an->sample_count, an->cycle_duration);
        if (from_mesh == nlegs) printf("heel/toe from the mesh sole\n");
        else if (!from_mesh) printf("heel/toe from the skeleton\n");
        else printf("heel/toe from the mesh sole for %u of %u legs, the others from the skeleton\n", from_mesh, nlegs);
        if (opt.cycle_end > 0)
            printf("cycle inside the clip: %.4f to %.4f s%s\n", opt.cycle_start, opt.cycle_end,
                   cycle_spec && !strcmp(cycle_spec, "auto") ? " (best cycle: closest poses)" : "");
        printf("cycle: %.4f m/cycle, %.4f m/s, direction (%.3f, %.3f, %.3f); root motion %.4f m/s\n",
               an->cycle_velocity, an->cycle_speed, an->cycle_direction.x, an->cycle_direction.y,
               an->cycle_direction.z, sk_vec3_length(an->root_velocity));
        float facing = 0;
        sk_vec3 d = an->cycle_direction;
        if (nlegs >= 2 && d.x * d.x + d.z * d.z > 0.25f &&
            sk_motion_cycle_facing(skel, asset->clips[ci], legs, nlegs, opt.cycle_start, opt.cycle_end, NULL, &facing,
                                   NULL, NULL, &err) == SK_OK) {
            double rel = remainder(atan2(d.x, d.z) - facing, 2 * M_PI) * 180.0 / M_PI;
            const char *way = fabs(rel) <= 45 ? "forward" : fabs(rel) >= 135 ? "backward" : rel > 0 ? "to its left"
                                                                                                    : "to its right";
            printf("body faces %+.1f deg (0 = +Z, + towards +X); the cycle travels %+.1f deg from it (%s)\n",
                   facing * 180.0 / M_PI, rel, way);
        }
        for (uint32_t l = 0; l < an->leg_count; l++) print_leg(skel, an, &an->legs[l]);
        printf("analysis time: %.3f ms\n", ms);
        if (opt.cycle_end == 0)
            printf("note: the whole clip is taken as one cycle (for a capture that is not a loop: --cycle auto)\n");
        for (uint32_t l = 0; l < an->leg_count; l++) { /* as locomote warns (loco_run.c) */
            double share = cli_planted_share(&an->legs[l]);
            if (share < CLI_PLANTED_MIN)
                printf("note: the %s foot is planted for %.0f%% of the cycle: no stance found for it (no gait, uneven "
                       "ground or a turn in the cycle?)\n", an->legs[l].name, 100.0 * share);
        }
    }
    if (plot) {
        char msg[512];
        if (!cli_plot_analysis(an, file, plot, msg, sizeof msg)) {
            fprintf(stderr, "skelanim: analyze --plot: %s\n", msg);
            goto done;
        }
        if (!json) printf("plot: %s\n", plot);
    }
    rc = 0;
done:
    sk_motion_analysis_destroy(an);
    sk_asset_destroy(asset);
    return rc;
}

static const cli_opt analyze_opts[] = {
    {"--clip", CLI_STRING(analyze_args, clip), .meta = "NAME|INDEX",
     .help = "the walk or run cycle", .dflt_text = "a clip named walk, else the first"},
    {"--legs", CLI_STRING(analyze_args, legs), .meta = "auto|HIP:KNEE:ANKLE:TOE,...", .dflt = "auto",
     .help = "the legs: found from joint names (else the two legs of the humanoid map, found by shape too), or given by joint name or index; TOE may be empty or none"},
    {"--backward", CLI_FLAG(analyze_args, backward), .help = "the cycle walks backward"},
    {"--samples", CLI_INT(analyze_args, samples), .meta = "N", .min = 0, .max = 1000000, .dflt = "0",
     .help = "samples over the cycle; 0: 4 x the clip's key rate, at least 60"},
    {"--cycle", CLI_STRING(analyze_args, cycle), .meta = "auto|START:END",
     .help = "the cycle inside the clip: its best cycle (closest poses), or from START to END seconds",
     .dflt_text = "the whole clip"},
    {"--stride", CLI_CHOICE(analyze_args, stride, "auto|contact|footprints"), .dflt = "auto",
     .help = "the stride from the foot's contact (seed 002), or from footprints one cycle apart (captures whose "
             "planted feet skate); auto: footprints for a cycle cut from a longer clip that moves by its root"},
    {"--stride-planted", CLI_FLAG(analyze_args, stride_planted),
     .help = "the contact stride over foot-land .. foot-lift instead of foot-strike .. foot-off"},
    {"--still-band", CLI_REAL(analyze_args, still_band), .meta = "F", .min = 0.0, .max = 0.49, .dflt = "0",
     .help = "how far over its lowest (a share of the leg) a planted ankle or ball may creep and still be planted; "
             "0: 0.03; locomote --from analyses retargeted clips at 0.04"},
    {"--json", CLI_FLAG(analyze_args, json), .help = "the saved format (io/analysis_json.h) and the analysis time"},
    {"--plot", CLI_STRING(analyze_args, plot), .meta = "OUT.png",
     .help = "draw one cycle per leg: heel/toe/footbase heights, balance, normalised footbase z, keytimes, contacts"},
    CLI_OPT_SCALE(analyze_args, scale),
};
static const cli_arg analyze_arg_list[] = {
    {"FILE", CLI_ARG(analyze_args, file), .flags = CLI_REQUIRED, .help = CLI_FILE_HELP},
};
static const char *const analyze_notes[] = {
    "The analysis is in metres: give a .bvh's metres per unit with --scale (0.0564444 for CMU files).\n"
    "Heel and toe come from the skinned mesh's sole when the file has one, else from the skeleton.\n",
    NULL,
};
const cli_command cli_cmd_analyze = {
    .name = "analyze",
    .run = cmd_analyze,
    .summary = "motion analysis of a walk or run cycle: keytimes, stride, speed",
    .about = "Motion analysis of a walk or run cycle (seed 002 ch. 3): per-leg keytimes, stride, "
             "cycle speed and direction; human-readable, or --json (the saved format plus the "
             "analysis time); --plot draws one cycle per leg.",
    .opts = analyze_opts,
    .nopts = CLI_COUNT(analyze_opts),
    .args = analyze_arg_list,
    .nargs = CLI_COUNT(analyze_arg_list),
    .notes = analyze_notes,
};
