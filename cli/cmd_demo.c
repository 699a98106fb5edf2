/* skelanim demo: the built-in mannequin, shown in the terminal (a side view of
 * its walk cycle drawn in text) until the rendered demo exists. */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define W 26
#define H 24

static void plot_line(char g[H][W], float x0, float y0, float x1, float y1, char c) {
    int steps = (int)(fabsf(x1 - x0) + fabsf(y1 - y0)) * 2 + 1;
    for (int i = 0; i <= steps; i++) {
        float t = (float)i / (float)steps;
        int x = (int)lrintf(x0 + (x1 - x0) * t), y = (int)lrintf(y0 + (y1 - y0) * t);
        if (x >= 0 && x < W && y >= 0 && y < H && g[y][x] == ' ') g[y][x] = c;
    }
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cmd_demo(int argc, char **argv) {
    const char *clip_name = "walk";
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--clip") && i + 1 < argc) clip_name = argv[++i];
        else {
            fprintf(stderr, "usage: skelanim demo [--clip idle|walk|run|crouch]\n");
            return 1;
        }
    }
    sk_asset *a = NULL;
    if (!cli_load(SK_CLI_MANNEQUIN, &a)) return 1;
    const sk_skeleton *s = a->skeleton;
    int32_t ci = cli_find_clip(a, clip_name);
    if (ci < 0) {
        sk_asset_destroy(a);
        return 1;
    }
    const sk_clip *clip = a->clips[ci];
    uint32_t n = s->joint_count, verts = 0;
    for (uint32_t m = 0; m < a->mesh_count; m++)
        for (uint32_t p = 0; p < a->meshes[m].primitive_count; p++) verts += a->meshes[m].primitives[p].vertex_count;
    printf("skelanim demo: the built-in mannequin (%u joints, %u skinned vertices, %u clips:", n - 1, verts,
           a->clip_count);
    for (uint32_t c = 0; c < a->clip_count; c++)
        printf(" %s %.2fs", sk_clip_name(a->clips[c]), (double)sk_clip_duration(a->clips[c]));
    printf(")\n\n");

    sk_transform *local = calloc(n, sizeof *local);
    sk_mat4 *model = calloc(n, sizeof *model);
    float *weights = calloc(s->weight_total + 1, sizeof *weights);
    if (!local || !model || !weights) return 1;

    /* Side view (x: forward +Z, y: up) of 4 phases of the clip, side by side. */
    enum { PHASES = 4 };
    char grid[PHASES][H][W];
    float dur = sk_clip_duration(clip);
    const float sy = 12.0f, sx = 22.0f; /* cells per metre: a text cell is about twice as tall as wide */
    for (int ph = 0; ph < PHASES; ph++) {
        memset(grid[ph], ' ', sizeof grid[ph]);
        double t = dur * ph / PHASES;
        sk_clip_sample(clip, s, t, SK_LOOP_REPEAT, local, weights);
        sk_local_to_model(s, local, NULL, model);
        /* Centre on the root joint's forward position so the figure stays in frame. */
        float cz = 0.0f;
        for (uint32_t j = 0; j < n; j++)
            if (s->parents[j] < 0 && a->joint_mesh[j] < 0) { cz = model[j].m[14]; break; }
        for (uint32_t j = 0; j < n; j++) {
            int32_t p = s->parents[j];
            if (p < 0) continue;
            float x0 = W / 2 + (model[p].m[14] - cz) * sx, y0 = H - 1 - model[p].m[13] * sy;
            float x1 = W / 2 + (model[j].m[14] - cz) * sx, y1 = H - 1 - model[j].m[13] * sy;
            bool left = strstr(s->names[j], "_l") != NULL;
            plot_line(grid[ph], x0, y0, x1, y1, left ? ':' : '#');
        }
        for (int x = 0; x < W; x++) grid[ph][H - 1][x] = grid[ph][H - 1][x] == ' ' ? '_' : grid[ph][H - 1][x];
    }
    printf("'%s', side view (facing right; '#' right side, ':' left side), at 0, 1/4, 1/2, 3/4 of the cycle:\n\n",
           clip_name);
    for (int y = 0; y < H; y++) {
        for (int ph = 0; ph < PHASES; ph++) printf("%.*s   ", W, grid[ph][y]);
        printf("\n");
    }

    /* A crowd's animation cost: sample + local-to-model for 200 characters. */
    enum { CROWD = 200, FRAMES = 60 };
    double t0 = now_s();
    for (int f = 0; f < FRAMES; f++)
        for (int c = 0; c < CROWD; c++) {
            sk_clip_sample(clip, s, f / 60.0 + c * 0.013, SK_LOOP_REPEAT, local, weights);
            sk_local_to_model(s, local, NULL, model);
        }
    double per_frame = (now_s() - t0) / FRAMES;
    printf("\nanimation CPU time per frame for %d characters (sample + local-to-model): %.3f ms (%.2f us/character)\n",
           CROWD, per_frame * 1e3, per_frame * 1e6 / CROWD);
    printf("\nnext: skelanim info %s | skelanim sample %s --clip walk --time 0.25 | skelanim export-mannequin "
           "mannequin.glb\n",
           SK_CLI_MANNEQUIN, SK_CLI_MANNEQUIN);
    free(local);
    free(model);
    free(weights);
    sk_asset_destroy(a);
    return 0;
}
