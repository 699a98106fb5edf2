/* skelanim bench crowd: animation CPU time per frame for crowds of mannequins
 * (200, 1000, 5000 by default): per character, sample walk and run at a
 * synchronised phase (with a cursor per track per character), blend them,
 * local-to-model and the skinning palette.
 * One thread; one JSON line per crowd size. */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int bench_crowd(int argc, char **argv) {
    uint32_t sizes[8] = {200, 1000, 5000}, nsizes = 3, frames = 60;
    if (argc > 0) {
        nsizes = 0;
        for (int i = 0; i < argc && nsizes < 8; i++)
            if (!cli_parse_uint("crowd size", argv[i], 1, 1000000, &sizes[nsizes++])) return 1;
    }
    sk_asset *a = NULL;
    if (!cli_load(SK_CLI_MANNEQUIN, &a)) return 1;
    const sk_skeleton *s = a->skeleton;
    const sk_clip *cw = a->clips[sk_asset_find_clip(a, "walk")], *cr = a->clips[sk_asset_find_clip(a, "run")];
    const sk_skin *skin = &a->skins[0];
    uint32_t n = s->joint_count;
    sk_transform *pw = calloc(n, sizeof *pw), *pr = calloc(n, sizeof *pr), *pose = calloc(n, sizeof *pose);
    sk_mat4 *world = calloc(n, sizeof *world);
    float dw = sk_clip_duration(cw), dr = sk_clip_duration(cr);
    for (uint32_t k = 0; k < nsizes; k++) {
        uint32_t count = sizes[k];
        sk_mat4 *pal = malloc((size_t)count * skin->joint_count * sizeof *pal); /* every character's palette, as a renderer needs */
        float *phase = malloc(count * sizeof *phase), *mix = malloc(count * sizeof *mix);
        /* Each character keeps a cursor per track of each clip (amortised O(1) key search). */
        uint32_t tw = sk_clip_track_count(cw), tr = sk_clip_track_count(cr);
        uint32_t *cur = calloc((size_t)count * (tw + tr), sizeof *cur);
        if (!pal || !phase || !mix || !cur) return 1;
        for (uint32_t i = 0; i < count; i++) phase[i] = (float)((i * 2654435761u) % 1000) / 1000.0f, mix[i] = (float)(i % 7) / 6.0f;
        double best = INFINITY, total = 0;
        for (uint32_t f = 0; f < frames; f++) {
            double t0 = cli_now();
            for (uint32_t i = 0; i < count; i++) {
                float ph = fmodf(phase[i] + f / 60.0f, 1.0f);
                uint32_t *ci = cur + (size_t)i * (tw + tr);
                sk_clip_sample_cursor(cw, s, ph * dw, SK_LOOP_REPEAT, ci, sk_clip_cursor_size(cw), SK_POSE_OF(s, pw, NULL), NULL);
                sk_clip_sample_cursor(cr, s, ph * dr, SK_LOOP_REPEAT, ci + tw, sk_clip_cursor_size(cr), SK_POSE_OF(s, pr, NULL), NULL);
                sk_blend_two(s, SK_POSE_OF(s, pw, NULL), SK_POSE_OF(s, pr, NULL), mix[i], NULL, false, SK_POSE_OF(s, pose, NULL), NULL);
                sk_local_to_model(s, SK_POSE_OF(s, pose, NULL), NULL, world, (s)->joint_count, NULL);
                sk_skin_palette(skin, world, s->joint_count, pal + (size_t)i * skin->joint_count, skin->joint_count, NULL);
            }
            double dt = cli_now() - t0;
            total += dt;
            if (dt < best) best = dt;
        }
        printf("{\"bench\":\"crowd\",\"characters\":%u,\"joints\":%u,\"frames\":%u,\"work\":\"2 samples + blend + "
               "local-to-model + palette\",\"ms_per_frame_mean\":%.3f,\"ms_per_frame_min\":%.3f,\"us_per_character\":%.3f}\n",
               count, n, frames, total * 1e3 / frames, best * 1e3, total * 1e6 / frames / count);
        fflush(stdout);
        free(pal), free(phase), free(mix), free(cur);
    }
    free(pw), free(pr), free(pose), free(world);
    sk_asset_destroy(a);
    return 0;
}
