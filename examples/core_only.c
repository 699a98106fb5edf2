/* The runtime alone (libskelanim, no readers, no file access): builds the
 * mannequin in memory, samples its walk, blends it with the run, solves the
 * left leg with two-bone IK, computes model matrices and the palette, and
 * skins the mesh on the CPU. Prints one line per step and exits 0 when every
 * step succeeded.
 *
 *   cc core_only.c $(pkg-config --cflags --libs skelanim) */
#include <skelanim.h>

#include <stdio.h>
#include <stdlib.h>

int main(void) {
    sk_asset *a = NULL;
    sk_error err = {0};
    if (sk_mannequin_create(NULL, NULL, &a, &err) != SK_OK) {
        fprintf(stderr, "mannequin: %s\n", err.message);
        return 1;
    }
    const sk_skeleton *s = a->skeleton;
    uint32_t n = s->joint_count;
    sk_transform *walk = calloc(n, sizeof *walk), *run = calloc(n, sizeof *run), *pose = calloc(n, sizeof *pose);
    sk_mat4 *model = calloc(n, sizeof *model);
    int rc = 1;
    sk_clip *cw = a->clips[sk_asset_find_clip(a, "walk")], *cr = a->clips[sk_asset_find_clip(a, "run")];
    if (sk_clip_sample(cw, s, 0.3, SK_LOOP_REPEAT, walk, NULL) != SK_OK ||
        sk_clip_sample(cr, s, 0.3, SK_LOOP_REPEAT, run, NULL) != SK_OK)
        goto done;
    sk_blend_two(s, walk, run, 0.25f, NULL, false, pose, NULL, NULL, NULL);
    printf("sampled and blended %u joints\n", n);
    uint32_t chain[8], count = 0;
    if (sk_ik_chain_find_named(s, "thigh_l", "foot_l", chain, 8, &count, &err) != SK_OK) goto done;
    sk_ik_chain c = {.skeleton = s, .joints = chain, .count = count};
    sk_ik_target t = {.position = {0.1f, 0.15f, 0.2f}};
    sk_ik_options o = {.solver = SK_IK_TWO_BONE};
    sk_ik_result res;
    if (sk_ik_solve(&c, &t, &o, pose, NULL, 0, &res, &err) != SK_OK) goto done;
    printf("two-bone IK: error %.2g m\n", (double)res.error);
    sk_local_to_model(s, pose, NULL, model);
    const sk_skin *skin = &a->skins[0];
    sk_mat4 *palette = calloc(skin->joint_count, sizeof *palette);
    sk_skin_palette(skin, model, palette);
    const sk_primitive *prim = &a->meshes[0].primitives[0];
    sk_skinned_mesh *mesh = NULL;
    float *out = NULL;
    if (sk_skinned_mesh_create(prim, NULL, &mesh, &err) == SK_OK) {
        out = malloc(sizeof(float) * 3 * prim->vertex_count);
        sk_skin_job job = {.mesh = mesh, .palette = palette, .palette_count = skin->joint_count, .out_positions = out};
        if (out && sk_skin_run(&job, &err) == SK_OK) {
            printf("skinned %u vertices\n", prim->vertex_count);
            rc = 0;
        }
    }
    free(out);
    sk_skinned_mesh_destroy(mesh);
    free(palette);
done:
    if (rc) fprintf(stderr, "core_only: %s\n", err.message);
    free(walk), free(run), free(pose), free(model);
    sk_asset_destroy(a);
    return rc;
}
