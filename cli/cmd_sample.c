/* skelanim sample: one pose as JSON. The output format is documented in
 * docs/sample-json.md; other tools read it, so keep it stable. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

typedef struct vertex_req { uint32_t node, prim, vtx; } vertex_req;

typedef struct sample_args {
    const char *file, *graph, *steps;
    double time, scale;
    int loop, blend_mode; /* indices into "repeat|clamp", "nlerp|slerp" */
    bool json;
    cli_list sets;
    cli_sample_ext *ext; /* --clip, and the --weight, --mask, --additive after each */
    vertex_req *verts;   /* --vertex */
    uint32_t nverts;
} sample_args;

/* The options that follow a --clip (cli_sample_ext's clips, argc of them at most). */
static cli_blend_clip *last_clip(sample_args *a, const char *opt) {
    if (a->ext->nclips) return &a->ext->clips[a->ext->nclips - 1];
    fprintf(stderr, "skelanim: %s must follow a --clip\n", opt);
    return NULL;
}

static bool on_clip(void *out, const char *opt, const cli_value *v) {
    (void)opt;
    sample_args *a = out;
    a->ext->clips[a->ext->nclips++].spec = v->text;
    return true;
}

static bool on_weight(void *out, const char *opt, const cli_value *v) {
    cli_blend_clip *c = last_clip(out, opt);
    if (c) c->weight = v->num[0], c->has_weight = true;
    return c != NULL;
}

static bool on_mask(void *out, const char *opt, const cli_value *v) {
    cli_blend_clip *c = last_clip(out, opt);
    if (c) c->mask = v->text;
    return c != NULL;
}

static bool on_additive(void *out, const char *opt, const cli_value *v) {
    (void)v;
    cli_blend_clip *c = last_clip(out, opt);
    if (c) c->additive = true;
    return c != NULL;
}

static bool on_vertex(void *out, const char *opt, const cli_value *v) {
    (void)opt;
    sample_args *a = out;
    vertex_req *q = &a->verts[a->nverts++];
    q->node = (uint32_t)v->num[0], q->prim = (uint32_t)v->num[1], q->vtx = (uint32_t)v->num[2];
    return true;
}

/* The pose at a.time (or after --steps) into local/weights, model space into
 * model; the clip it reports (-1: none) and its time; the JSON's blend or
 * graph part. */
static bool sample_pose(const sample_args *a, const sk_asset *asset, bool extended, sk_transform *local,
                        sk_mat4 *model, float *weights, cJSON *root, int32_t *clip, double *t, double *clip_time) {
    const sk_skeleton *skel = asset->skeleton;
    const cli_sample_ext *ext = a->ext;
    sk_loop_mode loop = a->loop ? SK_LOOP_CLAMP : SK_LOOP_REPEAT;
    *clip = asset->clip_count ? 0 : -1;
    *t = a->time;
    *clip_time = 0.0;
    if (ext->nclips == 1 && !extended && (*clip = cli_find_clip(asset, ext->clips[0].spec)) == -2) return false;
    if (ext->graph) {
        *clip = -1;
        if (!cli_sample_graph(asset, ext, local, weights, root, t)) return false;
    } else if (extended) {
        if (!cli_sample_blend(asset, ext, *t, loop, local, weights, root)) return false;
        *clip = cli_find_clip(asset, ext->clips[0].spec);
        *clip_time = sk_clip_wrap_time(asset->clips[*clip], *t, loop);
    } else if (*clip >= 0) {
        const sk_clip *c = asset->clips[*clip];
        *clip_time = sk_clip_wrap_time(c, *t, loop);
        if (sk_clip_sample(c, skel, *t, loop, SK_POSE_OF(skel, local, weights), NULL) != SK_OK) {
            fprintf(stderr, "skelanim: %s: clip %d does not fit the skeleton\n", a->file, *clip);
            return false;
        }
    } else {
        sk_pose_rest(skel, SK_POSE_OF(skel, local, weights), NULL);
    }
    sk_local_to_model(skel, SK_POSE_OF(skel, local, NULL), NULL, model, skel->joint_count, NULL);
    return true;
}

/* "nodes" (local TRS and world matrix of each node of the scene) and "morph_weights". */
static bool add_nodes(cJSON *root, const sk_asset *asset, const sk_transform *local, const sk_mat4 *model,
                      const float *weights) {
    const sk_skeleton *skel = asset->skeleton;
    uint32_t *nodes = calloc(asset->node_count ? asset->node_count : 1, sizeof *nodes);
    if (!nodes) return false;
    cJSON *jn = cJSON_AddArrayToObject(root, "nodes");
    cJSON *jw = cJSON_AddArrayToObject(root, "morph_weights");
    uint32_t count = cli_scene_nodes(asset, nodes);
    for (uint32_t k = 0; k < count; k++) {
        uint32_t node = nodes[k], j = asset->node_to_joint[node];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "index", node);
        cJSON_AddStringToObject(o, "name", skel->names[j]);
        cJSON *l = cJSON_AddObjectToObject(o, "local");
        cJSON_AddItemToObject(l, "t", cli_nums(&local[j].t.x, 3));
        cJSON_AddItemToObject(l, "r", cli_nums(&local[j].r.x, 4));
        cJSON_AddItemToObject(l, "s", cli_nums(&local[j].s.x, 3));
        cJSON_AddItemToObject(o, "world", cli_nums(model[j].m, 16));
        cJSON_AddItemToArray(jn, o);
        if (skel->weight_count[j]) {
            cJSON *w = cJSON_CreateObject();
            cJSON_AddNumberToObject(w, "node", node);
            cJSON_AddItemToObject(w, "weights", cli_nums(weights + skel->weight_offset[j], (int)skel->weight_count[j]));
            cJSON_AddItemToArray(jw, w);
        }
    }
    free(nodes);
    return true;
}

/* One --vertex NODE:PRIM:VTX skinned, in model space; prints why not. */
static bool skinned_vertex(const sk_asset *asset, const sk_mat4 *model, const float *weights, const vertex_req *q,
                           sk_vec3 *pos) {
    const sk_skeleton *skel = asset->skeleton;
    if (q->node >= asset->node_count) {
        fprintf(stderr, "skelanim: --vertex %u:%u:%u: node %u does not exist (%u nodes)\n", q->node, q->prim, q->vtx,
                q->node, asset->node_count);
        return false;
    }
    uint32_t j = asset->node_to_joint[q->node];
    int32_t mi = asset->joint_mesh[j];
    if (mi < 0) {
        fprintf(stderr, "skelanim: --vertex %u:%u:%u: node %u has no mesh\n", q->node, q->prim, q->vtx, q->node);
        return false;
    }
    const sk_mesh *mesh = &asset->meshes[mi];
    if (q->prim >= mesh->primitive_count) {
        fprintf(stderr, "skelanim: --vertex %u:%u:%u: mesh %d has %u primitive(s)\n", q->node, q->prim, q->vtx, mi,
                mesh->primitive_count);
        return false;
    }
    const sk_primitive *p = &mesh->primitives[q->prim];
    if (q->vtx >= p->vertex_count) {
        fprintf(stderr, "skelanim: --vertex %u:%u:%u: primitive has %u vertices\n", q->node, q->prim, q->vtx,
                p->vertex_count);
        return false;
    }
    int32_t si = asset->joint_skin[j];
    const float *mw = skel->weight_count[j] ? weights + skel->weight_offset[j] : NULL;
    bool ok;
    if (si >= 0 && p->influence_count) {
        const sk_skin *skin = &asset->skins[si];
        sk_mat4 *palette = calloc(skin->joint_count ? skin->joint_count : 1, sizeof *palette);
        if (!palette) return false;
        sk_skin_palette(skin, model, skel->joint_count, palette, skin->joint_count, NULL);
        ok = sk_primitive_vertex_position(p, q->vtx, mw, palette, skin->joint_count, NULL, pos);
        free(palette);
    } else {
        ok = sk_primitive_vertex_position(p, q->vtx, mw, NULL, 0, &model[j], pos);
    }
    if (!ok)
        fprintf(stderr, "skelanim: --vertex %u:%u:%u: vertex cannot be skinned (bad joint index)\n", q->node, q->prim,
                q->vtx);
    return ok;
}

static bool add_skinned(cJSON *root, const sk_asset *asset, const sk_mat4 *model, const float *weights,
                        const sample_args *a) {
    cJSON *js = cJSON_AddArrayToObject(root, "skinned");
    for (uint32_t v = 0; v < a->nverts; v++) {
        const vertex_req *q = &a->verts[v];
        sk_vec3 pos;
        if (!skinned_vertex(asset, model, weights, q, &pos)) return false;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "node", q->node);
        cJSON_AddNumberToObject(o, "primitive", q->prim);
        cJSON_AddNumberToObject(o, "vertex", q->vtx);
        cJSON_AddItemToObject(o, "position", cli_nums(&pos.x, 3));
        cJSON_AddItemToArray(js, o);
    }
    return true;
}

/* What the options ask for beyond one clip; false after printing what does not go together. */
static bool sample_mode(const sample_args *a, const cli_seen *seen, bool *extended) {
    const cli_sample_ext *x = a->ext;
    *extended = x->nclips > 1 || x->graph || x->nsets || x->steps || cli_given(seen, "--blend-mode");
    for (uint32_t c = 0; c < x->nclips; c++)
        if (x->clips[c].has_weight || x->clips[c].mask || x->clips[c].additive) *extended = true;
    if (x->graph && x->nclips) {
        fprintf(stderr, "skelanim: sample: --graph cannot be combined with --clip\n");
        return false;
    }
    if (x->graph && cli_given(seen, "--time")) {
        fprintf(stderr, "skelanim: sample: with --graph the time is the sum of --steps (drop --time)\n");
        return false;
    }
    if (!x->graph && (x->nsets || x->steps)) {
        fprintf(stderr, "skelanim: sample: --set and --steps need --graph FILE\n");
        return false;
    }
    if (!x->graph && !cli_given(seen, "--time")) {
        fprintf(stderr, "skelanim: sample: --time T is required\n");
        return false;
    }
    return true;
}

static int cmd_sample(int argc, char **argv) {
    static const char *const blend_modes[] = {"nlerp", "slerp"};
    cli_sample_ext ext = {0};
    sample_args a = {0};
    a.ext = &ext;
    ext.clips = calloc((size_t)argc + 1, sizeof *ext.clips);
    a.verts = calloc((size_t)argc + 1, sizeof *a.verts);
    int rc = 1;
    sk_asset *asset = NULL;
    sk_transform *local = NULL;
    sk_mat4 *model = NULL;
    float *weights = NULL;
    cJSON *root = NULL;
    cli_seen seen;
    bool extended = false;
    if (!ext.clips || !a.verts) goto done;
    if ((rc = cli_parse(&cli_cmd_sample, argc, argv, &a, &seen)) != CLI_CONTINUE) goto done;
    rc = 1;
    ext.graph = a.graph, ext.steps = a.steps, ext.sets = a.sets.v, ext.nsets = a.sets.n;
    ext.blend_mode = cli_given(&seen, "--blend-mode") ? blend_modes[a.blend_mode] : NULL;
    if (!sample_mode(&a, &seen, &extended) || !cli_load_scaled(a.file, a.scale, &asset)) goto done;
    const sk_skeleton *skel = asset->skeleton;
    uint32_t n = skel->joint_count;
    local = calloc(n ? n : 1, sizeof *local);
    model = calloc(n ? n : 1, sizeof *model);
    weights = calloc(skel->weight_total ? skel->weight_total : 1, sizeof *weights);
    root = cJSON_CreateObject();
    if (!local || !model || !weights || !root) goto done;
    int32_t clip;
    double t, clip_time;
    if (!sample_pose(&a, asset, extended, local, model, weights, root, &clip, &t, &clip_time)) goto done;
    if (clip >= 0) {
        cJSON *cj = cJSON_AddObjectToObject(root, "clip");
        cJSON_AddNumberToObject(cj, "index", clip);
        cJSON_AddStringToObject(cj, "name", sk_clip_name(asset->clips[clip]));
        cJSON_AddItemToObject(cj, "duration", cli_num(sk_clip_duration(asset->clips[clip])));
    } else {
        cJSON_AddNullToObject(root, "clip");
    }
    cJSON_AddItemToObject(root, "time", cli_num(t));
    cJSON_AddItemToObject(root, "clip_time", cli_num(clip_time));
    cJSON_AddStringToObject(root, "loop", a.loop ? "clamp" : "repeat");
    if (!add_nodes(root, asset, local, model, weights) || !add_skinned(root, asset, model, weights, &a)) goto done;
    if (!cli_json_finite(root, a.file)) goto done;
    char *text = cJSON_PrintUnformatted(root);
    if (text) {
        puts(text);
        cJSON_free(text);
        rc = 0;
    }
done:
    cJSON_Delete(root);
    free(ext.clips);
    free(a.verts);
    free(local);
    free(model);
    free(weights);
    sk_asset_destroy(asset);
    return rc;
}

static const cli_opt sample_opts[] = {
    {"--time", CLI_REAL(sample_args, time), .meta = "T", .min = -CLI_TIME_MAX, .max = CLI_TIME_MAX,
     .help = "the time in seconds; needed except with --graph"},
    {"--clip", CLI_CALL(CLI_KIND_STRING, on_clip), .meta = "NAME|INDEX|none",
     .help = "the clip (none: the rest pose); several: a blend of them", .dflt_text = "the first"},
    {"--loop", CLI_CHOICE(sample_args, loop, "repeat|clamp"), .dflt = "repeat",
     .help = "a time outside the clip wraps around or holds its end"},
    {"--vertex", CLI_CALL(CLI_KIND_INT, on_vertex), .count = 3, .sep = ':', .min = 0, .max = UINT32_MAX,
     .meta = "NODE:PRIM:VTX", .help = "also print this vertex skinned, in model space"},
    CLI_OPT_SCALE(sample_args, scale),
    {"--json", CLI_FLAG(sample_args, json), .help = "JSON output, the only output: accepted for scripts"},
    {"--weight", CLI_CALL(CLI_KIND_REAL, on_weight), .min = 0, .max = CLI_WEIGHT_MAX, .meta = "W",
     .help = "the weight of the --clip before it in the blend", .dflt_text = "equal weights"},
    {"--mask", CLI_CALL(CLI_KIND_STRING, on_mask), .meta = "JOINT",
     .help = "the --clip before it acts on that joint's subtree only"},
    {"--additive", CLI_CALL(CLI_KIND_FLAG, on_additive),
     .help = "the --clip before it is added on top: its difference from its first frame"},
    {"--blend-mode", CLI_CHOICE(sample_args, blend_mode, "nlerp|slerp"), .dflt = "nlerp",
     .help = "how the rotations of a blend are mixed"},
    {"--graph", CLI_STRING(sample_args, graph), .meta = "MACHINE.json",
     .help = "a state machine (docs/state-machine.md) run from its start over --steps"},
    {"--set", CLI_LIST_OF(CLI_KIND_STRING, sample_args, sets, 0), .meta = "NAME=VALUE|TRIGGER",
     .help = "a parameter of the --graph before it runs; a trigger: its name alone"},
    {"--steps", CLI_STRING(sample_args, steps), .meta = "DT[xN],...",
     .help = "the --graph's updates in order: N steps of DT seconds each, e.g. 0.016x60,0.1"},
};
static const cli_arg sample_arg_list[] = {
    {"FILE", CLI_ARG(sample_args, file), .flags = CLI_REQUIRED, .help = CLI_FILE_HELP},
};
static const char *const sample_notes[] = {
    "The output, one JSON object (local TRS and world matrix of every node, morph weights, skinned\n"
    "vertices), is documented in docs/sample-json.md.\n",
    NULL,
};
const cli_command cli_cmd_sample = {
    .name = "sample",
    .run = cmd_sample,
    .summary = "the pose at a time as JSON: a clip, a blend of clips, or a state machine",
    .about = "The pose at a time as one JSON object: one clip, a blend of clips (weights, masks, "
             "additive layers), or a state machine after a series of updates.",
    .opts = sample_opts,
    .nopts = CLI_COUNT(sample_opts),
    .args = sample_arg_list,
    .nargs = CLI_COUNT(sample_arg_list),
    .synopsis = "FILE --time T [--clip NAME|INDEX|none] [--vertex NODE:PRIM:VTX]... [options]\n"
                "FILE --time T --clip A [--weight W] [--mask J] [--additive] --clip B ...\n"
                "FILE --graph MACHINE.json [--set NAME=VALUE|TRIGGER]... --steps DT[xN],...",
    .notes = sample_notes,
};
