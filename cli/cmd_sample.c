/* skelanim sample: one pose as JSON. The output format is documented in
 * docs/sample-json.md; other tools read it, so keep it stable. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

typedef struct vertex_req { uint32_t node, prim, vtx; } vertex_req;

static bool parse_vertex(const char *s, vertex_req *v) {
    uint32_t u[3];
    if (!cli_parse_u32s("--vertex", s, ':', 3, 0, UINT32_MAX, u)) return false; /* NODE:PRIM:VTX */
    v->node = u[0];
    v->prim = u[1];
    v->vtx = u[2];
    return true;
}

int cmd_sample(int argc, char **argv) {
    const char *file = NULL, *clip_spec = NULL;
    double t = 0.0, scale = 0.0;
    bool have_time = false;
    sk_loop_mode loop = SK_LOOP_REPEAT;
    vertex_req *verts = calloc((size_t)argc + 1, sizeof *verts);
    uint32_t nverts = 0;
    int rc = 1;
    sk_asset *asset = NULL;
    sk_transform *local = NULL;
    sk_mat4 *model = NULL, *palette = NULL;
    float *weights = NULL;
    uint32_t *nodes = NULL;
    cJSON *root = NULL;
    /* blends and state machines (cli/sample_blend.c) */
    cli_sample_ext ext = {0};
    ext.clips = calloc((size_t)argc + 1, sizeof *ext.clips);
    ext.sets = calloc((size_t)argc + 1, sizeof *ext.sets);
    bool extended = false;
    if (!verts || !ext.clips || !ext.sets) {
        free(verts);
        free(ext.clips);
        free(ext.sets);
        return 1;
    }
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json")) continue; /* JSON is the only output format */
        if (!strcmp(a, "--additive")) {
            if (!ext.nclips) {
                fprintf(stderr, "skelanim: --additive must follow a --clip\n");
                goto done;
            }
            ext.clips[ext.nclips - 1].additive = true;
            extended = true;
            continue;
        }
        if (!strcmp(a, "--weight") || !strcmp(a, "--mask") || !strcmp(a, "--graph") || !strcmp(a, "--set") ||
            !strcmp(a, "--steps") || !strcmp(a, "--blend-mode")) {
            if (!val) {
                fprintf(stderr, "skelanim: %s needs a value\n", a);
                goto done;
            }
            i++;
            extended = true;
            if (!strcmp(a, "--weight") || !strcmp(a, "--mask")) {
                if (!ext.nclips) {
                    fprintf(stderr, "skelanim: %s must follow a --clip\n", a);
                    goto done;
                }
                cli_blend_clip *bc = &ext.clips[ext.nclips - 1];
                if (!strcmp(a, "--mask")) bc->mask = val;
                else if (!cli_parse_real("--weight", val, 0.0, CLI_WEIGHT_MAX, &bc->weight)) goto done;
                else bc->has_weight = true;
            } else if (!strcmp(a, "--graph")) ext.graph = val;
            else if (!strcmp(a, "--set")) ext.sets[ext.nsets++] = val;
            else if (!strcmp(a, "--steps")) ext.steps = val;
            else ext.blend_mode = val;
            continue;
        }
        if (!strcmp(a, "--scale")) {
            if (!val) {
                fprintf(stderr, "skelanim: %s needs a value\n", a);
                goto done;
            }
            if (!cli_parse_real("--scale", argv[++i], CLI_SCALE_MIN, CLI_SCALE_MAX, &scale)) goto done;
            continue;
        }
        if (!strcmp(a, "--clip") || !strcmp(a, "--time") || !strcmp(a, "--loop") || !strcmp(a, "--vertex")) {
            if (!val) {
                fprintf(stderr, "skelanim: %s needs a value\n", a);
                goto done;
            }
            i++;
            if (!strcmp(a, "--clip")) {
                clip_spec = val;
                ext.clips[ext.nclips++].spec = val;
                if (ext.nclips > 1) extended = true;
            }
            else if (!strcmp(a, "--time")) {
                if (!cli_parse_real("--time", val, -CLI_TIME_MAX, CLI_TIME_MAX, &t)) goto done;
                have_time = true;
            } else if (!strcmp(a, "--loop")) {
                if (!strcmp(val, "repeat")) loop = SK_LOOP_REPEAT;
                else if (!strcmp(val, "clamp")) loop = SK_LOOP_CLAMP;
                else {
                    fprintf(stderr, "skelanim: --loop %s: expected repeat or clamp\n", val);
                    goto done;
                }
            } else if (!parse_vertex(val, &verts[nverts++])) goto done;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "skelanim: sample: unknown option %s\n", a);
            goto done;
        } else if (!file) file = a;
        else {
            fprintf(stderr, "skelanim: sample: unexpected argument %s\n", a);
            goto done;
        }
    }
    if (!file) {
        fprintf(stderr, "usage: skelanim sample FILE --time T [--clip NAME|INDEX|none] [--loop repeat|clamp] "
                        "[--vertex NODE:PRIM:VTX ...] [--scale M] [--json]\n"
                        "       skelanim sample FILE --time T --clip A [--weight W] [--mask JOINT] [--additive] --clip B ... "
                        "[--blend-mode nlerp|slerp]\n"
                        "       skelanim sample FILE --graph MACHINE.json [--set NAME=VALUE|TRIGGER ...] --steps DT[xN],...\n");
        goto done;
    }
    if (ext.graph) {
        if (ext.nclips) {
            fprintf(stderr, "skelanim: sample: --graph cannot be combined with --clip\n");
            goto done;
        }
        if (have_time) {
            fprintf(stderr, "skelanim: sample: with --graph the time is the sum of --steps (drop --time)\n");
            goto done;
        }
        have_time = true;
    } else if (ext.nsets || ext.steps) {
        fprintf(stderr, "skelanim: sample: --set and --steps need --graph FILE\n");
        goto done;
    }
    if (!have_time) {
        fprintf(stderr, "skelanim: sample: --time T is required\n");
        goto done;
    }
    if (!cli_load_scaled(file, scale, &asset)) goto done;
    const sk_skeleton *skel = asset->skeleton;
    int32_t clip = asset->clip_count ? 0 : -1;
    if (clip_spec) {
        clip = cli_find_clip(asset, clip_spec);
        if (clip == -2) goto done;
    }
    uint32_t n = skel->joint_count;
    local = calloc(n ? n : 1, sizeof *local);
    model = calloc(n ? n : 1, sizeof *model);
    weights = calloc(skel->weight_total ? skel->weight_total : 1, sizeof *weights);
    nodes = calloc(n ? n : 1, sizeof *nodes);
    if (!local || !model || !weights || !nodes) goto done;
    double clip_time = 0.0;
    root = cJSON_CreateObject();
    if (ext.graph) {
        clip = -1;
        if (!cli_sample_graph(asset, &ext, local, weights, root, &t)) goto done;
    } else if (extended) {
        if (!cli_sample_blend(asset, &ext, t, loop, local, weights, root)) goto done;
        clip = cli_find_clip(asset, ext.clips[0].spec);
        clip_time = sk_clip_wrap_time(asset->clips[clip], t, loop);
    } else if (clip >= 0) {
        const sk_clip *c = asset->clips[clip];
        clip_time = sk_clip_wrap_time(c, t, loop);
        if (sk_clip_sample(c, skel, t, loop, SK_POSE_OF(skel, local, weights), NULL) != SK_OK) {
            fprintf(stderr, "skelanim: %s: clip %d does not fit the skeleton\n", file, clip);
            goto done;
        }
    } else {
        sk_pose_rest(skel, SK_POSE_OF(skel, local, weights), NULL);
    }
    sk_local_to_model(skel, SK_POSE_OF(skel, local, NULL), NULL, model, (skel)->joint_count, NULL);

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
    cJSON_AddStringToObject(root, "loop", loop == SK_LOOP_REPEAT ? "repeat" : "clamp");
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
    cJSON *js = cJSON_AddArrayToObject(root, "skinned");
    for (uint32_t v = 0; v < nverts; v++) {
        const vertex_req *q = &verts[v];
        if (q->node >= asset->node_count) {
            fprintf(stderr, "skelanim: --vertex %u:%u:%u: node %u does not exist (%u nodes)\n", q->node, q->prim, q->vtx,
                    q->node, asset->node_count);
            goto done;
        }
        uint32_t j = asset->node_to_joint[q->node];
        int32_t mi = asset->joint_mesh[j];
        if (mi < 0) {
            fprintf(stderr, "skelanim: --vertex %u:%u:%u: node %u has no mesh\n", q->node, q->prim, q->vtx, q->node);
            goto done;
        }
        const sk_mesh *mesh = &asset->meshes[mi];
        if (q->prim >= mesh->primitive_count) {
            fprintf(stderr, "skelanim: --vertex %u:%u:%u: mesh %d has %u primitive(s)\n", q->node, q->prim, q->vtx, mi,
                    mesh->primitive_count);
            goto done;
        }
        const sk_primitive *p = &mesh->primitives[q->prim];
        if (q->vtx >= p->vertex_count) {
            fprintf(stderr, "skelanim: --vertex %u:%u:%u: primitive has %u vertices\n", q->node, q->prim, q->vtx,
                    p->vertex_count);
            goto done;
        }
        int32_t si = asset->joint_skin[j];
        const float *mw = skel->weight_count[j] ? weights + skel->weight_offset[j] : NULL;
        sk_vec3 pos;
        bool ok;
        if (si >= 0 && p->influence_count) {
            const sk_skin *skin = &asset->skins[si];
            free(palette);
            palette = calloc(skin->joint_count ? skin->joint_count : 1, sizeof *palette);
            if (!palette) goto done;
            sk_skin_palette(skin, model, asset->skeleton->joint_count, palette, skin->joint_count, NULL);
            ok = sk_primitive_vertex_position(p, q->vtx, mw, palette, skin->joint_count, NULL, &pos);
        } else {
            ok = sk_primitive_vertex_position(p, q->vtx, mw, NULL, 0, &model[j], &pos);
        }
        if (!ok) {
            fprintf(stderr, "skelanim: --vertex %u:%u:%u: vertex cannot be skinned (bad joint index)\n", q->node, q->prim,
                    q->vtx);
            goto done;
        }
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "node", q->node);
        cJSON_AddNumberToObject(o, "primitive", q->prim);
        cJSON_AddNumberToObject(o, "vertex", q->vtx);
        cJSON_AddItemToObject(o, "position", cli_nums(&pos.x, 3));
        cJSON_AddItemToArray(js, o);
    }
    if (!cli_json_finite(root, file)) goto done;
    char *text = cJSON_PrintUnformatted(root);
    if (text) {
        puts(text);
        cJSON_free(text);
        rc = 0;
    }
done:
    cJSON_Delete(root);
    free(ext.clips);
    free(ext.sets);
    free(verts);
    free(local);
    free(model);
    free(palette);
    free(weights);
    free(nodes);
    sk_asset_destroy(asset);
    return rc;
}
