/* skelanim analyze: motion analysis of a walk or run clip (seed 002 ch. 3;
 * skelanim/locomotion/analysis.h). Human-readable by default, --json gives
 * the saved format (skelanim/io/analysis_json.h) plus the analysis time. */
#include "cli.h"
#include "plot.h"

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

int cmd_analyze(int argc, char **argv) {
    const char *file = NULL, *clip_spec = NULL, *legs_spec = "auto", *cycle_spec = NULL, *plot = NULL;
    bool json = false;
    double scale = 0.0;
    sk_motion_analysis_options opt = {0};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--backward")) opt.backward = true;
        else if (!strcmp(a, "--stride-planted")) opt.stride_planted = true;
        else if (!strcmp(a, "--clip") && val) clip_spec = argv[++i];
        else if (!strcmp(a, "--legs") && val) legs_spec = argv[++i];
        else if (!strcmp(a, "--cycle") && val) cycle_spec = argv[++i];
        else if (!strcmp(a, "--stride") && val) {
            const char *v = argv[++i];
            if (!strcmp(v, "auto")) opt.stride_source = SK_STRIDE_AUTO;
            else if (!strcmp(v, "contact")) opt.stride_source = SK_STRIDE_CONTACT;
            else if (!strcmp(v, "footprints")) opt.stride_source = SK_STRIDE_FOOTPRINTS;
            else {
                fprintf(stderr, "skelanim: --stride %s: expected auto, contact or footprints\n", v);
                return 1;
            }
        }
        else if (!strcmp(a, "--samples") && val) {
            if (!cli_parse_uint("--samples", argv[++i], 0, 1000000, &opt.sample_count)) return 1;
        } else if (!strcmp(a, "--scale") && val) {
            if (!cli_parse_real("--scale", argv[++i], CLI_SCALE_MIN, CLI_SCALE_MAX, &scale)) return 1;
        } else if (!strcmp(a, "--plot") && val) plot = argv[++i];
        else if (a[0] == '-' && strcmp(a, SK_CLI_MANNEQUIN)) {
            fprintf(stderr, "skelanim: analyze: unknown option or missing value: %s\n", a);
            return 1;
        } else if (!file) file = a;
        else {
            fprintf(stderr, "skelanim: analyze: more than one FILE (%s)\n", a);
            return 1;
        }
    }
    if (!file) {
        fprintf(stderr, "usage: skelanim analyze FILE [--clip NAME|INDEX] [--legs auto|HIP:KNEE:ANKLE:TOE,...] "
                        "[--backward] [--samples N] [--cycle auto|START:END] [--stride auto|contact|footprints] [--stride-planted] "
                        "[--json] [--plot OUT.png] [--scale M]   (FILE: .glb, .gltf, .bvh or %s; the analysis is in metres:\n"
                        "give a .bvh's metres per unit, e.g. --scale 0.0564444 for CMU files)\n",
                SK_CLI_MANNEQUIN);
        return 1;
    }
    sk_asset *asset = NULL;
    if (!cli_load_scaled(file, scale, &asset)) return 1;
    int rc = 1;
    sk_motion_analysis *an = NULL;
    int32_t ci;
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
        nlegs = sk_legs_find(skel, legs, 16);
        if (!nlegs) {
            fprintf(stderr, "skelanim: %s: no legs found from joint names (thigh_l/shin_l/foot_l/toe_l, "
                            "LeftUpLeg/LeftLeg/LeftFoot/LeftToeBase, ...): give them with --legs HIP:KNEE:ANKLE:TOE\n",
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
        for (uint32_t l = 0; l < an->leg_count; l++) print_leg(skel, an, &an->legs[l]);
        printf("analysis time: %.3f ms\n", ms);
        if (opt.cycle_end == 0)
            printf("note: the whole clip is taken as one cycle (for a capture that is not a loop: --cycle auto)\n");
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
