/* skelanim bench blend: cost per character per frame of a typical animation
 * graph on the mannequin — a state machine whose transition from an idle
 * clip to a 2D polar blend space of 5 clip samples is in flight all the time,
 * plus an upper-body override layer (a clip masked to the spine subtree) —
 * for many characters. One JSON line. */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *BENCH_GRAPH =
    "{\"root_motion\": {\"joint\": \"hips\"},"
    " \"parameters\": [{\"name\": \"vx\", \"type\": \"float\"}, {\"name\": \"vz\", \"type\": \"float\"},"
    "                  {\"name\": \"go\", \"type\": \"bool\"}],"
    " \"machine\": {\"initial\": \"idle\", \"states\": ["
    "   {\"name\": \"idle\", \"clip\": \"idle\"},"
    "   {\"name\": \"loco\", \"blendspace\": {\"parameters\": [\"vx\", \"vz\"], \"mode\": \"polar\", \"samples\": ["
    "      {\"clip\": \"idle\", \"at\": [0, 0]}, {\"clip\": \"walk\", \"at\": [0, 1.4]}, {\"clip\": \"run\", \"at\": [0, 3.5]},"
    "      {\"clip\": \"walk\", \"at\": [1.4, 0]}, {\"clip\": \"crouch\", \"at\": [-1.4, 0]}]}}],"
    "  \"transitions\": [{\"from\": \"idle\", \"to\": \"loco\", \"duration\": 1e9, \"sync\": true,"
    "                    \"conditions\": [{\"param\": \"go\"}]}]}}";

typedef struct bb_args {
    uint32_t characters, frames;
    bool quick;
} bb_args;

static int bench_blend(int argc, char **argv) {
    bb_args args = {0, 0, false};
    cli_seen seen;
    int prc = cli_parse(&cli_cmd_bench_blend, argc, argv, &args, &seen);
    if (prc != CLI_CONTINUE) return prc;
    uint32_t chars = args.characters, frames = args.frames;
    if (args.quick && !cli_given(&seen, "--characters")) chars = 16;
    if (args.quick && !cli_given(&seen, "--frames")) frames = 30;
    sk_asset *a = NULL;
    if (!cli_load(SK_CLI_MANNEQUIN, &a)) return 1;
    const sk_skeleton *s = a->skeleton;
    uint32_t n = s->joint_count;
    sk_error err = {0};
    sk_graph *g = NULL;
    int rc = 1;
    sk_graph_instance **inst = calloc(chars, sizeof *inst);
    sk_transform *pose = calloc(n, sizeof *pose), *layer = calloc(n, sizeof *layer);
    sk_mat4 *model = calloc(n, sizeof *model);
    float *upper = calloc(n, sizeof *upper);
    if (!inst || !pose || !layer || !model || !upper) goto done;
    if (sk_graph_load_json(BENCH_GRAPH, strlen(BENCH_GRAPH), s, a->clips, a->clip_count, NULL, &g, &err) != SK_OK) {
        fprintf(stderr, "skelanim: bench graph: %s\n", err.message);
        goto done;
    }
    sk_mask_fill(s, upper, 0.0f);
    if (sk_mask_set_subtree(s, "spine", 1.0f, upper, &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s\n", err.message);
        goto done;
    }
    int32_t wave = sk_asset_find_clip(a, "crouch");
    for (uint32_t c = 0; c < chars; c++) {
        if (sk_graph_instance_create(g, NULL, &inst[c], &err) != SK_OK) {
            fprintf(stderr, "skelanim: %s\n", err.message);
            goto done;
        }
        sk_graph_set_param(inst[c], 2, 1.0f);
        sk_graph_update(inst[c], 0.1f + 0.01f * (float)c); /* transition starts and stays in flight */
    }
    const float dt = 1.0f / 60.0f;
    double sink = 0.0;
    double t0 = cli_now();
    for (uint32_t f = 0; f < frames; f++) {
        for (uint32_t c = 0; c < chars; c++) {
            float ang = 0.01f * (float)(f + 7 * c);
            sk_graph_set_param(inst[c], 0, 1.5f * sinf(ang));
            sk_graph_set_param(inst[c], 1, 2.0f + 1.5f * cosf(ang));
            sk_graph_update(inst[c], dt);
            sk_graph_evaluate(inst[c], SK_POSE_OF(s, pose, NULL), NULL);
            sk_clip_sample(a->clips[wave], s, (double)(f * dt) + 0.1 * c, SK_LOOP_REPEAT, SK_POSE_OF(s, layer, NULL), NULL);
            sk_layer L = {SK_LAYER_OVERRIDE, 0.7f, upper, SK_POSE_OF(s, layer, NULL)};
            sk_layers_apply(s, SK_POSE_OF(s, pose, NULL), &L, 1, NULL);
            sk_local_to_model(s, SK_POSE_OF(s, pose, NULL), NULL, model, (s)->joint_count, NULL);
            sink += model[n / 2].m[13];
        }
    }
    double sec = cli_now() - t0;
    sk_graph_state_info si[16];
    uint32_t ns = sk_graph_active_states(inst[0], si, 16);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "bench", "blend");
    cJSON_AddStringToObject(o, "graph",
                            "state machine with idle->2D polar blend space (5 clip samples) transition in flight "
                            "(sync), root motion, + upper-body override layer (spine subtree), + model matrices");
    cJSON_AddNumberToObject(o, "joints", n);
    cJSON_AddNumberToObject(o, "characters", chars);
    cJSON_AddNumberToObject(o, "frames", frames);
    cJSON_AddNumberToObject(o, "active_states", ns);
    cJSON_AddItemToObject(o, "us_per_character_frame", cli_num(sec * 1e6 / ((double)chars * frames)));
    cJSON_AddItemToObject(o, "characters_per_ms", cli_num((double)chars * frames / (sec * 1e3)));
    cJSON_AddItemToObject(o, "checksum", cli_num(sink));
    char *txt = cJSON_PrintUnformatted(o);
    if (txt) puts(txt);
    cJSON_free(txt);
    cJSON_Delete(o);
    rc = 0;
done:
    for (uint32_t c = 0; inst && c < chars; c++) sk_graph_instance_destroy(inst[c]);
    free(inst);
    free(pose);
    free(layer);
    free(model);
    free(upper);
    sk_graph_destroy(g);
    sk_asset_destroy(a);
    return rc;
}

static const cli_opt bb_opts[] = {
    {"--quick", CLI_FLAG(bb_args, quick), .help = "16 characters, 30 frames (a check, not a measure)"},
    {"--characters", CLI_INT(bb_args, characters), .meta = "N", .min = 1, .max = 1000000, .dflt = "256",
     .help = "characters, each with its own graph instance"},
    {"--frames", CLI_INT(bb_args, frames), .meta = "N", .min = 1, .max = 1000000, .dflt = "600", .help = "frames"},
};
const cli_command cli_cmd_bench_blend = {
    .name = "bench blend",
    .run = bench_blend,
    .summary = "a typical animation graph per character per frame",
    .about = "A typical animation graph per character per frame: a state machine with a 5-clip "
             "polar blend space in transition, an upper-body layer and root motion; one JSON "
             "line.",
    .opts = bb_opts,
    .nopts = CLI_COUNT(bb_opts),
};
