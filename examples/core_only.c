/* The runtime alone (libskelanim, no readers, no file access): builds the
 * mannequin in memory, samples its walk and run, blends them, solves the
 * left leg with two-bone IK, updates the model matrices below the hip,
 * computes the palette and skins the mesh on the CPU. Prints one line per
 * step and exits 0 when every step succeeded.
 *
 *   cc core_only.c $(pkg-config --cflags --libs skelanim) */
#include <skelanim.h>

#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                    \
    do {                                                               \
        if ((call) != SK_OK) {                                         \
            fprintf(stderr, "core_only: %s\n", err.message);           \
            goto done;                                                 \
        }                                                              \
    } while (0)

int main(void) {
    sk_error err = {0};
    sk_asset *a = NULL;
    sk_pose walk = {0}, run = {0}, pose = {0};
    sk_mat4 *model = NULL, *palette = NULL;
    sk_skinned_mesh *mesh = NULL;
    float *out = NULL;
    int rc = 1;
    CHECK(sk_mannequin_create(NULL, NULL, &a, &err));
    const sk_skeleton *s = a->skeleton;
    /* poses: caller-owned memory (here from the allocator hook; NULL = malloc) */
    CHECK(sk_pose_alloc(s, NULL, &walk, &err));
    CHECK(sk_pose_alloc(s, NULL, &run, &err));
    CHECK(sk_pose_alloc(s, NULL, &pose, &err));
    CHECK(sk_clip_sample(a->clips[sk_asset_find_clip(a, "walk")], s, 0.3, SK_LOOP_REPEAT, &walk, &err));
    CHECK(sk_clip_sample(a->clips[sk_asset_find_clip(a, "run")], s, 0.3, SK_LOOP_REPEAT, &run, &err));
    CHECK(sk_blend_two(s, &walk, &run, 0.25f, NULL, false, &pose, &err));
    printf("sampled and blended %u joints\n", pose.joint_count);

    model = calloc(s->joint_count, sizeof *model);
    if (!model) goto done;
    CHECK(sk_local_to_model(s, &pose, NULL, model, s->joint_count, &err));
    uint32_t chain[8], count = 0;
    CHECK(sk_ik_chain_find_named(s, "thigh_l", "foot_l", chain, 8, &count, &err));
    sk_ik_chain c = {.skeleton = s, .joints = chain, .count = count};
    sk_ik_target t = {.position = {0.1f, 0.15f, 0.2f}};
    sk_ik_options o = {.solver = SK_IK_TWO_BONE};
    sk_ik_result res;
    CHECK(sk_ik_solve(&c, &t, &o, &pose, NULL, 0, &res, &err));
    /* only the hip's subtree changed: update it alone */
    CHECK(sk_local_to_model_range(s, &pose, NULL, chain[0], sk_skeleton_subtree_end(s, chain[0]), model,
                                  s->joint_count, &err));
    printf("two-bone IK: error %.2g m\n", (double)res.error);

    const sk_skin *skin = &a->skins[0];
    palette = calloc(skin->joint_count, sizeof *palette);
    if (!palette) goto done;
    CHECK(sk_skin_palette(skin, model, s->joint_count, palette, skin->joint_count, &err));
    const sk_primitive *prim = &a->meshes[0].primitives[0];
    CHECK(sk_skinned_mesh_create(prim, NULL, &mesh, &err));
    out = malloc(sizeof(float) * 3 * prim->vertex_count);
    if (!out) goto done;
    sk_skin_job job = {.mesh = mesh, .palette = palette, .palette_count = skin->joint_count, .out_positions = out};
    CHECK(sk_skin_run(&job, &err));
    printf("skinned %u vertices\n", prim->vertex_count);
    rc = 0;
done:
    free(out);
    sk_skinned_mesh_destroy(mesh);
    free(palette);
    free(model);
    sk_pose_free(&walk, NULL);
    sk_pose_free(&run, NULL);
    sk_pose_free(&pose, NULL);
    sk_asset_destroy(a);
    return rc;
}
