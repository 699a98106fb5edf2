/* skelanim bench sample-compressed FILE.skc: the time to sample one pose of
 * each clip of a packed file, forward, backward and at random times (the
 * best of 7 runs of 4,096 poses each); one JSON line per clip. */
#include "cli.h"

#include <math.h>
#include <stdlib.h>

typedef struct bsc_args {
    const char *file;
} bsc_args;

static int bench_sample_compressed(int argc, char **argv) {
    bsc_args args = {NULL};
    int rc = cli_parse(&cli_cmd_bench_sample_compressed, argc, argv, &args, NULL);
    if (rc != CLI_CONTINUE) return rc;
    sk_asset *a = NULL;
    sk_error err = {0};
    if (sk_skc_load_file(args.file, NULL, NULL, &a, NULL, &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s\n", err.message);
        return 1;
    }
    const sk_skeleton *s = a->skeleton;
    sk_transform *l = calloc(s->joint_count, sizeof *l);
    float *w = calloc(s->weight_total + 1, sizeof *w);
    enum { RANDOM = 4096 };
    double *rt = malloc(RANDOM * sizeof *rt);
    uint64_t x = 0x2545f4914f6cdd1dull;
    int status = 0;
    for (uint32_t c = 0; c < a->clip_count; c++) {
        const sk_clip *clip = a->clips[c];
        double d = sk_clip_duration(clip);
        for (int i = 0; i < RANDOM; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            rt[i] = (double)(x >> 11) / 9007199254740992.0 * d;
        }
        double best[3] = {INFINITY, INFINITY, INFINITY};
        long reps = 0;
        for (int mode = 0; mode < 3; mode++) /* forward, backward, random: the best of 7 runs of 4,096 poses */
            for (int run = 0; run < 7; run++) {
                double t0 = cli_now();
                for (int i = 0; i < RANDOM; i++) {
                    double t = mode == 0 ? d * i / RANDOM : mode == 1 ? d * (RANDOM - i) / RANDOM : rt[i];
                    sk_clip_sample(clip, s, t, SK_LOOP_CLAMP, SK_POSE_OF(s, l, s->weight_total ? w : NULL), NULL);
                }
                double us = (cli_now() - t0) * 1e6 / RANDOM;
                if (us < best[mode]) best[mode] = us;
                reps += RANDOM;
            }
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "bench", "sample-compressed");
        cJSON_AddStringToObject(o, "file", args.file);
        cJSON_AddStringToObject(o, "clip", sk_clip_name(clip));
        cJSON_AddBoolToObject(o, "compressed", sk_clip_is_compressed(clip));
        cJSON_AddNumberToObject(o, "joints", s->joint_count);
        cJSON_AddNumberToObject(o, "tracks", sk_clip_track_count(clip));
        cJSON_AddItemToObject(o, "forward_us", cli_num(best[0]));
        cJSON_AddItemToObject(o, "backward_us", cli_num(best[1]));
        cJSON_AddItemToObject(o, "random_us", cli_num(best[2]));
        cJSON_AddNumberToObject(o, "poses", (double)reps);
        if (!cli_json_finite(o, "bench sample-compressed")) status = 1;
        else {
            char *str = cJSON_PrintUnformatted(o);
            if (str) puts(str);
            cJSON_free(str);
        }
        cJSON_Delete(o);
    }
    free(rt);
    free(l);
    free(w);
    sk_asset_destroy(a);
    return status;
}

static const cli_arg bsc_arg_list[] = {
    {"FILE.skc", CLI_ARG(bsc_args, file), .flags = CLI_REQUIRED, .help = "a packed file (skelanim compress)"},
};
const cli_command cli_cmd_bench_sample_compressed = {
    .name = "bench sample-compressed",
    .run = bench_sample_compressed,
    .summary = "sampling each clip of a .skc: forward, backward, random",
    .about = "The time to sample one pose of each clip of a .skc, forward, backward and at random "
             "times (the best of 7 runs of 4,096 poses); one JSON line per clip.",
    .args = bsc_arg_list,
    .nargs = CLI_COUNT(bsc_arg_list),
};
