/* skelanim ik: solve one chain of a loaded character toward a target and
 * print the chain's joint positions before and after, the error, the
 * iterations and why the solver stopped. */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ROOT:TIP where names may themselves contain ':' (e.g. "mixamorig:Hips"):
 * the first split whose two halves both name joints wins. */
static bool resolve_chain(const sk_skeleton *skel, const char *spec, int32_t *root, int32_t *tip) {
    size_t n = strlen(spec);
    char *buf = malloc(n + 1);
    if (!buf) return false;
    bool any_colon = false;
    for (size_t i = 0; i < n; i++) {
        if (spec[i] != ':') continue;
        any_colon = true;
        memcpy(buf, spec, n + 1);
        buf[i] = 0;
        int32_t r = sk_skeleton_find(skel, buf), t = sk_skeleton_find(skel, buf + i + 1);
        if (r >= 0 && t >= 0) {
            *root = r;
            *tip = t;
            free(buf);
            return true;
        }
    }
    free(buf);
    if (!any_colon) fprintf(stderr, "skelanim: --chain %s: expected ROOT:TIP (two joint names)\n", spec);
    else fprintf(stderr, "skelanim: --chain %s: no joints with these names (see skelanim info FILE)\n", spec);
    return false;
}

static cJSON *vec_json(sk_vec3 v) {
    float f[3] = {v.x, v.y, v.z};
    return cli_nums(f, 3);
}

typedef struct ik_args {
    const char *file, *chain, *clip, *solver;
    double time, tolerance, fk_blend;
    double target[3], pole[3], up[3], plane_normal[3];
    uint32_t max_iterations;
    bool json;
} ik_args;

static sk_vec3 vec3_of(const double v[3]) { return sk_vec3_make((float)v[0], (float)v[1], (float)v[2]); }

/* The solver's target and options from the command line; false after printing why not. */
static bool ik_setup(const ik_args *a, const cli_seen *seen, sk_ik_target *target, sk_ik_options *opt) {
    memset(target, 0, sizeof *target);
    memset(opt, 0, sizeof *opt);
    target->position = vec3_of(a->target);
    if (cli_given(seen, "--pole")) target->pole = vec3_of(a->pole), target->has_pole = true;
    if (cli_given(seen, "--up")) target->up = vec3_of(a->up);
    if (cli_given(seen, "--plane-normal")) opt->plane_normal = vec3_of(a->plane_normal);
    if (a->solver && !sk_ik_solver_parse(a->solver, &opt->solver)) {
        fprintf(stderr, "skelanim: --solver %s: expected fabrik, ccd, twobone, jt, dls or aim\n", a->solver);
        return false;
    }
    opt->tolerance = (float)a->tolerance;
    opt->fk_blend = (float)a->fk_blend;
    opt->max_iterations = a->max_iterations;
    return true;
}

static int cmd_ik(int argc, char **argv) {
    ik_args args;
    memset(&args, 0, sizeof args);
    cli_seen seen;
    int rc = cli_parse(&cli_cmd_ik, argc, argv, &args, &seen);
    if (rc != CLI_CONTINUE) return rc;
    const char *file = args.file, *chain_spec = args.chain, *clip_spec = args.clip;
    bool json = args.json;
    double t = args.time;
    sk_ik_target target;
    sk_ik_options opt;
    if (!ik_setup(&args, &seen, &target, &opt)) return 1;
    rc = 1;
    sk_asset *asset = NULL;
    sk_transform *local = NULL;
    sk_mat4 *model = NULL;
    float *weights = NULL;
    uint32_t *joints = NULL;
    sk_vec3 *before = NULL;
    void *scratch = NULL;
    if (!cli_load(file, &asset)) goto done;
    const sk_skeleton *skel = asset->skeleton;
    int32_t root, tip;
    if (!resolve_chain(skel, chain_spec, &root, &tip)) goto done;
    uint32_t n = skel->joint_count, count = 0;
    local = calloc(n ? n : 1, sizeof *local);
    model = calloc(n ? n : 1, sizeof *model);
    weights = calloc(skel->weight_total ? skel->weight_total : 1, sizeof *weights);
    joints = calloc(n ? n : 1, sizeof *joints);
    before = calloc(n ? n : 1, sizeof *before);
    if (!local || !model || !weights || !joints || !before) goto done;
    sk_error err = {0};
    if (sk_ik_chain_find(skel, (uint32_t)root, (uint32_t)tip, joints, n, &count, &err) != SK_OK) {
        fprintf(stderr, "skelanim: --chain %s: %s\n", chain_spec, err.message);
        goto done;
    }
    int32_t clip = -1;
    if (clip_spec) {
        clip = cli_find_clip(asset, clip_spec);
        if (clip == -2) goto done;
    }
    if (clip >= 0) {
        if (sk_clip_sample(asset->clips[clip], skel, t, SK_LOOP_REPEAT, SK_POSE_OF(skel, local, weights), NULL) != SK_OK) {
            fprintf(stderr, "skelanim: %s: clip %d does not fit the skeleton\n", file, clip);
            goto done;
        }
    } else {
        sk_pose_rest(skel, SK_POSE_OF(skel, local, weights), NULL);
    }
    sk_local_to_model(skel, SK_POSE_OF(skel, local, NULL), NULL, model, (skel)->joint_count, NULL);
    for (uint32_t k = 0; k < count; k++) {
        const sk_mat4 *m = &model[joints[k]];
        before[k] = sk_vec3_make(m->m[12], m->m[13], m->m[14]);
    }
    size_t bytes = sk_ik_scratch_size(count);
    scratch = malloc(bytes);
    if (!scratch) goto done;
    sk_ik_chain chain = {skel, joints, count, NULL};
    sk_ik_result res;
    if (sk_ik_solve(&chain, &target, &opt, SK_POSE_OF((&chain)->skeleton, local, NULL), scratch, bytes, &res, &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s\n", err.message);
        goto done;
    }
    sk_local_to_model(skel, SK_POSE_OF(skel, local, NULL), NULL, model, (skel)->joint_count, NULL);
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "solver", sk_ik_solver_string(opt.solver));
        cJSON_AddStringToObject(o, "root", skel->names[root]);
        cJSON_AddStringToObject(o, "tip", skel->names[tip]);
        cJSON_AddItemToObject(o, "target", vec_json(target.position));
        if (clip >= 0) {
            cJSON_AddStringToObject(o, "clip", sk_clip_name(asset->clips[clip]));
            cJSON_AddItemToObject(o, "time", cli_num(t));
        } else {
            cJSON_AddNullToObject(o, "clip");
        }
        cJSON *ja = cJSON_AddArrayToObject(o, "joints");
        for (uint32_t k = 0; k < count; k++) {
            const sk_mat4 *m = &model[joints[k]];
            cJSON *j = cJSON_CreateObject();
            cJSON_AddStringToObject(j, "name", skel->names[joints[k]]);
            cJSON_AddNumberToObject(j, "index", joints[k]);
            cJSON_AddItemToObject(j, "before", vec_json(before[k]));
            cJSON_AddItemToObject(j, "after", vec_json(sk_vec3_make(m->m[12], m->m[13], m->m[14])));
            const sk_quat *q = &local[joints[k]].r;
            float qa[4] = {q->x, q->y, q->z, q->w};
            cJSON_AddItemToObject(j, "local_rotation", cli_nums(qa, 4));
            cJSON_AddItemToArray(ja, j);
        }
        cJSON_AddItemToObject(o, "error", cli_num(res.error));
        cJSON_AddItemToObject(o, "residual", cli_num(res.residual));
        if (opt.solver == SK_IK_AIM) cJSON_AddItemToObject(o, "aim_error_rad", cli_num(res.orientation_error));
        cJSON_AddItemToObject(o, "chain_length", cli_num(res.chain_length));
        cJSON_AddBoolToObject(o, "reachable", res.reachable);
        cJSON_AddNumberToObject(o, "iterations", res.iterations);
        cJSON_AddStringToObject(o, "stop", sk_ik_stop_string(res.stop));
        if (!cli_json_finite(o, file)) {
            cJSON_Delete(o);
            goto done;
        }
        char *s = cJSON_Print(o);
        if (s) puts(s);
        cJSON_free(s);
        cJSON_Delete(o);
    } else {
        printf("chain %s -> %s (%u joints, length %.6g), solver %s, target (%.6g, %.6g, %.6g)\n", skel->names[root],
               skel->names[tip], count, (double)res.chain_length, sk_ik_solver_string(opt.solver),
               (double)target.position.x, (double)target.position.y, (double)target.position.z);
        printf("  %-24s %-36s %s\n", "joint", "before", "after");
        for (uint32_t k = 0; k < count; k++) {
            const sk_mat4 *m = &model[joints[k]];
            char b1[64], b2[64];
            snprintf(b1, sizeof b1, "(%.5f, %.5f, %.5f)", (double)before[k].x, (double)before[k].y, (double)before[k].z);
            snprintf(b2, sizeof b2, "(%.5f, %.5f, %.5f)", (double)m->m[12], (double)m->m[13], (double)m->m[14]);
            printf("  %-24s %-36s %s\n", skel->names[joints[k]], b1, b2);
        }
        printf("error %.6g (residual %.6g), %s, %u iteration%s, stopped: %s\n", (double)res.error,
               (double)res.residual, res.reachable ? "reachable" : "beyond reach", res.iterations,
               res.iterations == 1 ? "" : "s", sk_ik_stop_string(res.stop));
    }
    rc = 0;
done:
    free(scratch);
    free(before);
    free(joints);
    free(weights);
    free(model);
    free(local);
    sk_asset_destroy(asset);
    return rc;
}

static const cli_opt ik_opts[] = {
    {"--chain", CLI_STRING(ik_args, chain), .flags = CLI_REQUIRED, .meta = "ROOT:TIP",
     .help = "the chain from joint ROOT down to joint TIP, by name"},
    {"--target", CLI_REALS(ik_args, target, 3, ','), .flags = CLI_REQUIRED, .meta = "X,Y,Z",
     .min = -CLI_COORD_MAX, .max = CLI_COORD_MAX, .help = "where TIP should be, in model space, metres"},
    {"--solver", CLI_STRING(ik_args, solver), .meta = "fabrik|ccd|twobone|jt|dls|aim", .dflt = "fabrik",
     .help = "the solver"},
    {"--clip", CLI_STRING(ik_args, clip), .meta = "NAME|INDEX|none",
     .help = "solve from the clip's pose at --time", .dflt_text = "the rest pose"},
    {"--time", CLI_REAL(ik_args, time), .meta = "T", .min = -CLI_TIME_MAX, .max = CLI_TIME_MAX, .dflt = "0",
     .help = "the time of the clip's pose, seconds"},
    {"--pole", CLI_REALS(ik_args, pole, 3, ','), .meta = "X,Y,Z", .min = -CLI_COORD_MAX, .max = CLI_COORD_MAX,
     .help = "a pole point the chain bends toward, in model space"},
    {"--up", CLI_REALS(ik_args, up, 3, ','), .meta = "X,Y,Z", .min = -CLI_COORD_MAX, .max = CLI_COORD_MAX,
     .help = "the up vector of the aim solver"},
    {"--tolerance", CLI_REAL(ik_args, tolerance), .meta = "D", .min = 0, .max = CLI_COORD_MAX, .dflt = "0",
     .help = "stop within this distance of the target, model units; 0: 1e-4 x the chain's length"},
    {"--max-iterations", CLI_INT(ik_args, max_iterations), .meta = "N", .min = 0, .max = 1000000, .dflt = "0",
     .help = "at most this many iterations; 0: the solver's own, FABRIK 64, CCD 128, JT 4096, DLS 256"},
    {"--plane-normal", CLI_REALS(ik_args, plane_normal, 3, ','), .meta = "X,Y,Z", .min = -CLI_COORD_MAX,
     .max = CLI_COORD_MAX, .help = "the bending plane's normal of the two-bone solver"},
    {"--fk-blend", CLI_REAL(ik_args, fk_blend), .meta = "W", .min = 0, .max = 1, .dflt = "0",
     .help = "0: the solved pose; 1: the pose before solving; between: slerp of the two"},
    {"--json", CLI_FLAG(ik_args, json), .help = "print the result as JSON"},
};
static const cli_arg ik_arg_list[] = {{"FILE", CLI_ARG(ik_args, file), .flags = CLI_REQUIRED, .help = CLI_FILE_HELP}};
static const char *const ik_notes[] = {
    "Solves the chain ROOT..TIP of FILE in its rest pose, or in the clip's pose at --time, and prints the\n"
    "chain's joint positions before and after, the error, the iterations and why the solver stopped.\n",
    NULL,
};
const cli_command cli_cmd_ik = {
    .name = "ik",
    .run = cmd_ik,
    .summary = "solve inverse kinematics for a chain of a character toward a target",
    .opts = ik_opts,
    .nopts = CLI_COUNT(ik_opts),
    .args = ik_arg_list,
    .nargs = CLI_COUNT(ik_arg_list),
    .notes = ik_notes,
};
