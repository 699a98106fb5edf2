/* The README's first example: load a character, sample its first clip,
 * local-to-model, skinning palette. Usage: example_readme_quickstart FILE.glb */
#include <skelanim.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc < 2) return fprintf(stderr, "usage: %s FILE.glb\n", argv[0]), 1;
    sk_asset *asset;
    sk_error err;
    if (sk_gltf_load_file(argv[1], NULL, &asset, &err) != SK_OK) return fprintf(stderr, "%s\n", err.message), 1;
    if (!asset->clip_count || !asset->skin_count) return fprintf(stderr, "%s: no clip or skin\n", argv[1]), 1;
    const sk_skeleton *skel = asset->skeleton;
    const sk_skin *skin = &asset->skins[0];
    sk_pose pose;
    sk_mat4 *model = malloc(skel->joint_count * sizeof *model), *palette = malloc(skin->joint_count * sizeof *palette);
    if (!model || !palette || sk_pose_alloc(skel, NULL, &pose, &err) != SK_OK) return 1;
    for (double t = 0.0; t < 1.0; t += 1.0 / 60.0) { /* per frame: no allocation */
        sk_clip_sample(asset->clips[0], skel, t, SK_LOOP_REPEAT, &pose, &err);
        sk_local_to_model(skel, &pose, NULL, model, skel->joint_count, &err);             /* column-major */
        sk_skin_palette(skin, model, skel->joint_count, palette, skin->joint_count, &err); /* to the GPU */
    }
    printf("%u joints, palette[0] translation %.3f %.3f %.3f\n", skel->joint_count, palette[0].m[12],
           palette[0].m[13], palette[0].m[14]);
    sk_pose_free(&pose, NULL), free(model), free(palette), sk_asset_destroy(asset);
    return 0;
}
