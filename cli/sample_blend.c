/* skelanim sample: blends of several clips and state-machine files (the
 * options beyond the single-clip path of cmd_sample.c). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static bool set_param(sk_graph_instance *in, const sk_graph *g, const char *spec) {
    char name[256];
    const char *eq = strchr(spec, '=');
    size_t n = eq ? (size_t)(eq - spec) : strlen(spec);
    if (n == 0 || n >= sizeof name) {
        fprintf(stderr, "skelanim: --set %s: expected NAME=VALUE (or NAME for a trigger)\n", spec);
        return false;
    }
    memcpy(name, spec, n);
    name[n] = 0;
    int32_t i = sk_graph_find_param(g, name);
    if (i < 0) {
        fprintf(stderr, "skelanim: --set %s: the graph has no parameter '%s'\n", spec, name);
        return false;
    }
    sk_param_type t = sk_graph_param_type(g, (uint32_t)i);
    if (t == SK_PARAM_TRIGGER) {
        if (eq) {
            fprintf(stderr, "skelanim: --set %s: '%s' is a trigger; give its name alone\n", spec, name);
            return false;
        }
        sk_graph_set_param(in, (uint32_t)i, 1.0f);
        return true;
    }
    if (!eq) {
        fprintf(stderr, "skelanim: --set %s: '%s' needs a value (NAME=VALUE)\n", spec, name);
        return false;
    }
    if (t == SK_PARAM_BOOL) {
        if (!strcmp(eq + 1, "true") || !strcmp(eq + 1, "1")) sk_graph_set_param(in, (uint32_t)i, 1.0f);
        else if (!strcmp(eq + 1, "false") || !strcmp(eq + 1, "0")) sk_graph_set_param(in, (uint32_t)i, 0.0f);
        else {
            fprintf(stderr, "skelanim: --set %s: '%s' is a bool (true or false)\n", spec, name);
            return false;
        }
        return true;
    }
    double v;
    if (!cli_parse_real("--set", eq + 1, -CLI_PARAM_MAX, CLI_PARAM_MAX, &v)) return false;
    sk_graph_set_param(in, (uint32_t)i, (float)v);
    return true;
}

/* "DT[xN],DT[xN],..." -> calls update for each step; returns false on a bad list. */
static bool run_steps(sk_graph_instance *in, const char *steps, double *total, sk_root_delta *travel) {
    const char *p = steps;
    uint32_t nsteps0 = 0, *nsteps = &nsteps0;
    while (p && *p) {
        char item[64];
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (n == 0 || n >= sizeof item) {
            fprintf(stderr, "skelanim: --steps %s: expected DT[xN],DT[xN],...\n", steps);
            return false;
        }
        memcpy(item, p, n);
        item[n] = 0;
        uint32_t count = 1;
        char *x = strchr(item, 'x');
        if (x) {
            *x = 0;
            if (!cli_parse_uint("--steps", x + 1, 1, CLI_STEPS_MAX, &count)) return false;
        }
        double dt;
        if (!cli_parse_real("--steps", item, 0.0, CLI_STEP_MAX, &dt)) return false;
        if ((double)*nsteps + count > CLI_STEPS_MAX) {
            fprintf(stderr, "skelanim: --steps %s: more than %u updates in all\n", steps, CLI_STEPS_MAX);
            return false;
        }
        *nsteps += count;
        for (uint32_t k = 0; k < count; k++) {
            sk_graph_update(in, dt);
            *travel = sk_root_delta_compose(*travel, sk_graph_root_motion(in));
            *total += dt;
        }
        p = comma ? comma + 1 : NULL;
    }
    return true;
}

bool cli_sample_graph(const sk_asset *asset, const cli_sample_ext *x, sk_transform *local, float *weights, cJSON *root,
                      double *total_time) {
    sk_graph *g = NULL;
    sk_graph_instance *in = NULL;
    sk_error err = {0};
    bool ok = false;
    if (sk_graph_load_file(x->graph, asset->skeleton, asset->clips, asset->clip_count, NULL, NULL, &g, &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s\n", err.message);
        return false;
    }
    if (sk_graph_instance_create(g, NULL, &in, &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s\n", err.message);
        goto done;
    }
    for (uint32_t i = 0; i < x->nsets; i++)
        if (!set_param(in, g, x->sets[i])) goto done;
    *total_time = 0.0;
    sk_root_delta travel = sk_root_delta_identity();
    if (!run_steps(in, x->steps ? x->steps : "", total_time, &travel)) goto done;
    if (sk_graph_evaluate(in, SK_POSE_OF(asset->skeleton, local, weights), &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s\n", err.message);
        goto done;
    }
    cJSON *jg = cJSON_AddObjectToObject(root, "graph");
    cJSON_AddStringToObject(jg, "file", x->graph);
    cJSON_AddStringToObject(jg, "current", sk_graph_current_state(in));
    cJSON *js = cJSON_AddArrayToObject(jg, "states");
    sk_graph_state_info si[64];
    uint32_t n = sk_graph_active_states(in, si, 64);
    for (uint32_t i = 0; i < n && i < 64; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", si[i].name);
        cJSON_AddNumberToObject(o, "depth", si[i].depth);
        cJSON_AddItemToObject(o, "weight", cli_num(si[i].weight));
        cJSON_AddItemToObject(o, "global_weight", cli_num(si[i].global_weight));
        cJSON_AddBoolToObject(o, "current", si[i].current);
        cJSON_AddItemToObject(o, "normalized_time", cli_num(si[i].normalized_time));
        cJSON_AddItemToArray(js, o);
    }
    cJSON *jp = cJSON_AddObjectToObject(jg, "parameters");
    for (uint32_t i = 0; i < sk_graph_param_count(g); i++)
        cJSON_AddItemToObject(jp, sk_graph_param_name(g, i), cli_num(sk_graph_get_param(in, i)));
    cJSON *jr = cJSON_AddObjectToObject(jg, "root_motion");
    cJSON_AddItemToObject(jr, "translation", cli_nums(&travel.translation.x, 3));
    cJSON_AddItemToObject(jr, "yaw", cli_num(travel.yaw));
    ok = true;
done:
    sk_graph_instance_destroy(in);
    sk_graph_destroy(g);
    return ok;
}

bool cli_sample_blend(const sk_asset *asset, const cli_sample_ext *x, double t, sk_loop_mode loop, sk_transform *local,
                      float *weights, cJSON *root) {
    const sk_skeleton *s = asset->skeleton;
    uint32_t n = s->joint_count, nw = s->weight_total, nc = x->nclips;
    bool ok = false;
    int32_t *idx = calloc(nc, sizeof *idx);
    sk_transform *poses = calloc((size_t)(n ? n : 1) * (nc + 1), sizeof *poses);
    float *morphs = calloc((size_t)(nw ? nw : 1) * (nc + 1), sizeof *morphs);
    float *masks = calloc((size_t)(n ? n : 1) * nc, sizeof *masks);
    uint8_t *chans = calloc((size_t)(n ? n : 1) * nc, 1);
    sk_blend_input *in = calloc(nc, sizeof *in);
    sk_layer *layers = calloc(nc, sizeof *layers);
    sk_pose *views = calloc(nc, sizeof *views); /* the blend inputs' and layers' poses */
    if (!idx || !poses || !morphs || !masks || !chans || !in || !layers || !views) goto done;
    bool slerp = x->blend_mode && !strcmp(x->blend_mode, "slerp");
    if (x->blend_mode && !slerp && strcmp(x->blend_mode, "nlerp")) {
        fprintf(stderr, "skelanim: --blend-mode %s: expected nlerp or slerp\n", x->blend_mode);
        goto done;
    }
    uint32_t nin = 0, nlay = 0;
    cJSON *jb = cJSON_AddArrayToObject(root, "blend");
    for (uint32_t c = 0; c < nc; c++) {
        const cli_blend_clip *bc = &x->clips[c];
        idx[c] = cli_find_clip(asset, bc->spec);
        if (idx[c] < 0) {
            if (idx[c] == -1) fprintf(stderr, "skelanim: --clip none cannot be blended\n");
            goto done;
        }
        const sk_clip *clip = asset->clips[idx[c]];
        sk_transform *pose = poses + (size_t)n * c;
        float *morph = morphs + (size_t)nw * c;
        views[c] = sk_pose_view(pose, n, nw ? morph : NULL, nw);
        if (sk_clip_sample(clip, s, t, loop, SK_POSE_OF(s, pose, morph), NULL) != SK_OK) {
            fprintf(stderr, "skelanim: clip %d does not fit the skeleton\n", idx[c]);
            goto done;
        }
        float *mask = NULL;
        if (bc->mask) {
            mask = masks + (size_t)n * c;
            sk_mask_fill(s, mask, 0.0f);
            sk_error err;
            if (sk_mask_set_subtree(s, bc->mask, 1.0f, mask, &err) != SK_OK) {
                fprintf(stderr, "skelanim: --mask %s: %s\n", bc->mask, err.message);
                goto done;
            }
        }
        float w = bc->has_weight ? (float)bc->weight : 1.0f;
        if (bc->additive) {
            /* difference from the clip's own first frame, applied on top with the weight */
            sk_transform *ref = poses + (size_t)n * nc;
            float *mref = morphs + (size_t)nw * nc;
            sk_clip_sample(clip, s, 0.0, SK_LOOP_CLAMP, SK_POSE_OF(s, ref, mref), NULL);
            sk_pose_make_additive(s, SK_POSE_OF(s, pose, morph), SK_POSE_OF(s, ref, mref), SK_POSE_OF(s, pose, morph), NULL);
            sk_layer L = {SK_LAYER_ADDITIVE, w, mask, &views[c]};
            layers[nlay++] = L;
        } else {
            uint8_t *ch = NULL;
            if (slerp) {
                ch = chans + (size_t)n * c;
                sk_clip_channel_mask(clip, s, ch, NULL);
            }
            sk_blend_input bi = {&views[c], w, mask, ch};
            in[nin++] = bi;
        }
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "index", idx[c]);
        cJSON_AddStringToObject(o, "name", sk_clip_name(clip));
        cJSON_AddItemToObject(o, "weight", cli_num(w));
        cJSON_AddItemToObject(o, "clip_time", cli_num(sk_clip_wrap_time(clip, t, loop)));
        if (bc->mask) cJSON_AddStringToObject(o, "mask", bc->mask);
        else cJSON_AddNullToObject(o, "mask");
        cJSON_AddBoolToObject(o, "additive", bc->additive);
        cJSON_AddItemToArray(jb, o);
    }
    sk_blend_options opt = {slerp ? SK_BLEND_SLERP : SK_BLEND_NLERP, false};
    sk_error err;
    if (sk_blend_poses(s, in, nin, &opt, SK_POSE_OF(s, local, weights), &err) != SK_OK ||
        sk_layers_apply(s, SK_POSE_OF(s, local, weights), layers, nlay, &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s\n", err.message);
        goto done;
    }
    cJSON_AddStringToObject(root, "blend_mode", slerp ? "slerp" : "nlerp");
    ok = true;
done:
    free(idx);
    free(poses);
    free(morphs);
    free(masks);
    free(chans);
    free(in);
    free(layers);
    free(views);
    return ok;
}
