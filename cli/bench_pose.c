/* skelanim bench mix | ltm | palette: the per-frame pose stages alone, in ns
 * per joint (issue #13), over a crowd of characters each with its own poses
 * and matrices (so the caches see what a crowd frame sees):
 *   mix      sk_blend_two of two poses (nlerp, no mask)
 *   ltm      sk_local_to_model (local transforms -> model matrices)
 *   palette  sk_skin_palette (model matrices x inverse binds)
 * On the mannequin, or FILE (its skeleton and first skin). One JSON line per
 * stage: the minimum and median over the frames. */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { ST_MIX, ST_LTM, ST_PALETTE };

static int bench_stage(int stage, int argc, char **argv) {
    static const char *names[] = {"mix", "ltm", "palette"};
    const char *file = SK_CLI_MANNEQUIN;
    uint32_t count = 1000, frames = 200;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--count") && i + 1 < argc) {
            if (!cli_parse_uint("--count", argv[++i], 1, 100000, &count)) return 1;
        } else if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
            if (!cli_parse_uint("--frames", argv[++i], 1, 100000, &frames)) return 1;
        } else if (argv[i][0] != '-') {
            file = argv[i];
        } else {
            fprintf(stderr, "usage: skelanim bench %s [FILE] [--count N] [--frames N]\n", names[stage]);
            return 1;
        }
    }
    sk_asset *a = NULL;
    if (!cli_load(file, &a)) return 1;
    const sk_skeleton *s = a->skeleton;
    uint32_t J = s->joint_count;
    if (stage == ST_PALETTE && a->skin_count == 0) {
        fprintf(stderr, "skelanim: bench palette: %s has no skin\n", file);
        sk_asset_destroy(a);
        return 1;
    }
    const sk_skin *skin = a->skin_count ? &a->skins[0] : NULL;
    uint32_t P = skin ? skin->joint_count : 0;
    size_t nt = (size_t)count * J;
    sk_transform *pa = malloc(nt * sizeof *pa), *pb = malloc(nt * sizeof *pb), *po = malloc(nt * sizeof *po);
    sk_mat4 *model = malloc(nt * sizeof *model), *pal = malloc((size_t)count * (P ? P : 1) * sizeof *pal);
    double *ft = calloc(frames, sizeof *ft);
    int rc = 1;
    if (!pa || !pb || !po || !model || !pal || !ft) {
        fprintf(stderr, "skelanim: out of memory\n");
        goto done;
    }
    /* Two poses per character: the first two clips (or the rest pose) at spread times. */
    for (uint32_t i = 0; i < count; i++) {
        sk_pose A = sk_pose_view(pa + (size_t)i * J, J, NULL, 0), B = sk_pose_view(pb + (size_t)i * J, J, NULL, 0);
        sk_pose_rest(s, &A, NULL);
        sk_pose_rest(s, &B, NULL);
        double t = (double)((i * 2654435761u) % 1000) / 1000.0;
        if (a->clip_count > 0) sk_clip_sample_tracks(a->clips[0], s, t * sk_clip_duration(a->clips[0]), SK_LOOP_REPEAT, NULL, 0, &A, NULL);
        if (a->clip_count > 1) sk_clip_sample_tracks(a->clips[1], s, t * sk_clip_duration(a->clips[1]), SK_LOOP_REPEAT, NULL, 0, &B, NULL);
        memcpy(po + (size_t)i * J, pa + (size_t)i * J, J * sizeof *po);
        sk_pose O = sk_pose_view(po + (size_t)i * J, J, NULL, 0);
        sk_local_to_model(s, &O, NULL, model + (size_t)i * J, J, NULL);
    }
    double checksum = 0;
    for (uint32_t f = 0; f < frames + 5; f++) {
        double t0 = cli_now();
        for (uint32_t i = 0; i < count; i++) {
            sk_pose A = sk_pose_view(pa + (size_t)i * J, J, NULL, 0), B = sk_pose_view(pb + (size_t)i * J, J, NULL, 0);
            sk_pose O = sk_pose_view(po + (size_t)i * J, J, NULL, 0);
            if (stage == ST_MIX)
                sk_blend_two(s, &A, &B, (float)(i % 7) / 6.0f, NULL, false, &O, NULL);
            else if (stage == ST_LTM)
                sk_local_to_model(s, &O, NULL, model + (size_t)i * J, J, NULL);
            else
                sk_skin_palette(skin, model + (size_t)i * J, J, pal + (size_t)i * P, P, NULL);
        }
        double dt = cli_now() - t0;
        if (f >= 5) ft[f - 5] = dt;
        checksum += stage == ST_MIX ? po[(size_t)(f % count) * J].r.w
                    : stage == ST_LTM ? model[(size_t)(f % count) * J + J - 1].m[12]
                                      : pal[(size_t)(f % count) * P].m[0];
    }
    qsort(ft, frames, sizeof *ft, cli_cmp_double);
    double per = (double)count * (stage == ST_PALETTE ? P : J);
    printf("{\"bench\":\"%s\",\"file\":\"%s\",\"characters\":%u,\"joints\":%u,\"frames\":%u,"
           "\"ns_per_joint_min\":%.3f,\"ns_per_joint_median\":%.3f}\n",
           names[stage], file, count, stage == ST_PALETTE ? P : J, frames, ft[0] * 1e9 / per,
           ft[frames / 2] * 1e9 / per);
    if (!isfinite(checksum)) fprintf(stderr, "skelanim: bench %s: the outputs are not finite\n", names[stage]);
    rc = 0;
done:
    free(pa), free(pb), free(po), free(model), free(pal), free(ft);
    sk_asset_destroy(a);
    return rc;
}

int bench_mix(int argc, char **argv) { return bench_stage(ST_MIX, argc, argv); }
int bench_ltm(int argc, char **argv) { return bench_stage(ST_LTM, argc, argv); }
int bench_palette(int argc, char **argv) { return bench_stage(ST_PALETTE, argc, argv); }
