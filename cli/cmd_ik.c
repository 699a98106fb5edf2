/* skelanim ik: solve one chain of a loaded character toward a target and
 * print the chain's joint positions before and after, the error, the
 * iterations and why the solver stopped. */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void ik_usage(FILE *f) {
    fprintf(f, "usage: skelanim ik FILE --chain ROOT:TIP --target X,Y,Z\n"
               "         [--solver fabrik|ccd|twobone|jt|dls|aim] [--clip NAME|INDEX|none] [--time T]\n"
               "         [--pole X,Y,Z] [--up X,Y,Z] [--tolerance D] [--max-iterations N] [--plane-normal X,Y,Z]\n"
               "         [--fk-blend W] [--json]\n"
               "  Solves the chain ROOT..TIP (joint names; TIP must descend from ROOT) of FILE (or %s)\n"
               "  in its rest pose or the clip's pose at time T; the target is in model space.\n",
               SK_CLI_MANNEQUIN);
}

static bool parse_vec3(const char *opt, const char *s, sk_vec3 *out) {
    double v[3];
    if (!cli_parse_doubles(opt, s, ',', 3, -CLI_COORD_MAX, CLI_COORD_MAX, v)) return false;
    *out = sk_vec3_make((float)v[0], (float)v[1], (float)v[2]);
    if (!isfinite(out->x) || !isfinite(out->y) || !isfinite(out->z)) {
        fprintf(stderr, "skelanim: %s %s: out of float range\n", opt, s);
        return false;
    }
    return true;
}

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

int cmd_ik(int argc, char **argv) {
    const char *file = NULL, *chain_spec = NULL, *clip_spec = NULL;
    bool json = false, have_target = false;
    double t = 0.0;
    sk_ik_target target = {0};
    sk_ik_options opt = {0};
    int rc = 1;
    sk_asset *asset = NULL;
    sk_transform *local = NULL;
    sk_mat4 *model = NULL;
    float *weights = NULL;
    uint32_t *joints = NULL;
    sk_vec3 *before = NULL;
    void *scratch = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json")) {
            json = true;
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            ik_usage(stdout);
            return 0;
        }
        if (a[0] == '-' && a[1] && !(a[1] >= '0' && a[1] <= '9')) {
            if (!val) {
                fprintf(stderr, "skelanim: ik: %s needs a value\n", a);
                goto done;
            }
            i++;
            if (!strcmp(a, "--chain")) chain_spec = val;
            else if (!strcmp(a, "--target")) {
                if (!parse_vec3("--target", val, &target.position)) goto done;
                have_target = true;
            } else if (!strcmp(a, "--pole")) {
                if (!parse_vec3("--pole", val, &target.pole)) goto done;
                target.has_pole = true;
            } else if (!strcmp(a, "--up")) {
                if (!parse_vec3("--up", val, &target.up)) goto done;
            } else if (!strcmp(a, "--plane-normal")) {
                if (!parse_vec3("--plane-normal", val, &opt.plane_normal)) goto done;
            } else if (!strcmp(a, "--solver")) {
                if (!sk_ik_solver_parse(val, &opt.solver)) {
                    fprintf(stderr, "skelanim: --solver %s: expected fabrik, ccd, twobone, jt, dls or aim\n", val);
                    goto done;
                }
            } else if (!strcmp(a, "--clip")) clip_spec = val;
            else if (!strcmp(a, "--time")) {
                if (!cli_parse_real("--time", val, -CLI_TIME_MAX, CLI_TIME_MAX, &t)) goto done;
            } else if (!strcmp(a, "--tolerance") || !strcmp(a, "--fk-blend")) {
                double v;
                if (!cli_parse_real(a, val, 0.0, !strcmp(a, "--fk-blend") ? 1.0 : CLI_COORD_MAX, &v)) goto done;
                if (!strcmp(a, "--tolerance")) opt.tolerance = (float)v;
                else opt.fk_blend = (float)v;
            } else if (!strcmp(a, "--max-iterations")) {
                if (!cli_parse_uint(a, val, 0, 1000000, &opt.max_iterations)) goto done;
            } else {
                fprintf(stderr, "skelanim: ik: unknown option %s\n", a);
                goto done;
            }
        } else if (!file) file = a;
        else {
            fprintf(stderr, "skelanim: ik: unexpected argument %s\n", a);
            goto done;
        }
    }
    if (!file || !chain_spec || !have_target) {
        if (!file) fprintf(stderr, "skelanim: ik: FILE is required\n");
        else if (!chain_spec) fprintf(stderr, "skelanim: ik: --chain ROOT:TIP is required\n");
        else fprintf(stderr, "skelanim: ik: --target X,Y,Z is required\n");
        ik_usage(stderr);
        goto done;
    }
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
