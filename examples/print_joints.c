/* Loads a glTF character, samples its first clip and prints every joint's
 * position in the scene.
 *
 *   example_print_joints [FILE.glb] [TIME]
 *
 * Without a file it uses the built-in mannequin's walk. Build against an
 * installed skelanim with:  cc print_joints.c $(pkg-config --cflags --libs skelanim) */
#include <skelanim.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    double time = argc > 2 ? atof(argv[2]) : 0.5;
    sk_asset *asset = NULL;
    sk_error err = {0};
    sk_result r = argc > 1 ? sk_gltf_load_file(argv[1], NULL, &asset, &err)
                           : sk_mannequin_create(NULL, NULL, &asset, &err);
    if (r != SK_OK) {
        fprintf(stderr, "%s: %s\n", argc > 1 ? argv[1] : "mannequin", err.message);
        return 1;
    }
    const sk_skeleton *skel = asset->skeleton;

    /* Caller-owned memory: sampling and local-to-model never allocate. */
    sk_pose pose;
    sk_mat4 *model = malloc(skel->joint_count * sizeof *model);
    if (!model || sk_pose_alloc(skel, NULL, &pose, &err) != SK_OK) return 1;

    int32_t clip = sk_asset_find_clip(asset, "walk");
    if (clip < 0 && asset->clip_count > 0) clip = 0;
    if (clip >= 0) {
        if (sk_clip_sample(asset->clips[clip], skel, time, SK_LOOP_REPEAT, &pose, &err) != SK_OK) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        printf("clip '%s' (%.3f s) at t = %.3f s\n", sk_clip_name(asset->clips[clip]),
               sk_clip_duration(asset->clips[clip]), time);
    } else {
        printf("no clips: rest pose\n"); /* sk_pose_alloc filled it */
    }
    if (sk_local_to_model(skel, &pose, NULL, model, skel->joint_count, &err) != SK_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }

    for (uint32_t j = 0; j < skel->joint_count; j++) {
        const float *m = model[j].m; /* column-major: translation in m[12..14] */
        printf("%3u %-24s parent %3d  position (%8.4f, %8.4f, %8.4f)\n", j, skel->names[j], skel->parents[j],
               (double)m[12], (double)m[13], (double)m[14]);
    }
    sk_pose_free(&pose, NULL);
    free(model);
    sk_asset_destroy(asset);
    return 0;
}
