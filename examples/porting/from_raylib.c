/* Coming from raylib: the loop of raylib's model-animation examples
 * (LoadModel, LoadModelAnimations, a frame counter, UpdateModelAnimation,
 * DrawModel, UnloadModelAnimations, UnloadModel) written with skelanim.
 * Drawing is replaced by printing skinned vertices. docs/porting-raylib.md
 * explains each step.
 *
 *   from_raylib FILE.glb|@mannequin [ANIM [VERTEX...]]
 *
 * Plays animation ANIM (a name or index; default 0) at 60 frames per
 * second for 181 frames, skinning the first skinned mesh on the CPU every
 * frame. Every 30th frame it prints "frame F time T" and, for each VERTEX
 * of the mesh's first primitive, "vertex NODE 0 VERTEX X Y Z" (model
 * space; NODE: the file's node index of the mesh).
 *
 *   cc from_raylib.c $(pkg-config --cflags --libs skelanim_io) */
#include <skelanim.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc < 2) return fprintf(stderr, "usage: %s FILE.glb|@mannequin [ANIM [VERTEX...]]\n", argv[0]), 1;
    sk_error err = {0};
    /* Model model = LoadModel(path); ModelAnimation *anims = LoadModelAnimations(path, &animsCount);
     * one call here: the asset holds the skeleton, meshes, skins and every clip */
    sk_asset *model = NULL;
    sk_result r = strcmp(argv[1], "@mannequin") == 0 ? sk_mannequin_create(NULL, NULL, &model, &err)
                                                     : sk_gltf_load_file(argv[1], NULL, &model, &err);
    if (r != SK_OK) return fprintf(stderr, "%s\n", err.message), 1; /* the message names the file */
    const sk_skeleton *skel = model->skeleton;
    int32_t anim = argc > 2 ? sk_asset_find_clip(model, argv[2]) : 0;
    if (anim < 0 && argc > 2) {
        char *end;
        long i = strtol(argv[2], &end, 10);
        anim = *argv[2] && !*end && i >= 0 && i < (long)model->clip_count ? (int32_t)i : -1;
    }
    int32_t node = -1; /* the joint (scene node) holding the first skinned mesh */
    for (uint32_t j = 0; j < skel->joint_count && node < 0; j++)
        if (model->joint_mesh[j] >= 0 && model->joint_skin[j] >= 0) node = (int32_t)j;
    if (anim < 0 || (uint32_t)anim >= model->clip_count || node < 0) {
        fprintf(stderr, "%s: no animation %s or no skinned mesh\n", argv[1], argc > 2 ? argv[2] : "0");
        return sk_asset_destroy(model), 1;
    }
    const sk_clip *clip = model->clips[anim];
    const sk_skin *skin = &model->skins[model->joint_skin[node]];
    const sk_primitive *prim = &model->meshes[model->joint_mesh[node]].primitives[0];

    /* raylib keeps animVertices and boneMatrices in the Mesh; here they are the caller's arrays */
    sk_pose pose = {0};
    sk_skinned_mesh *mesh = NULL;
    sk_mat4 *models = malloc(skel->joint_count * sizeof *models);
    sk_mat4 *bone_matrices = malloc((skin->joint_count ? skin->joint_count : 1) * sizeof *bone_matrices);
    float *anim_vertices = malloc(3 * sizeof(float) * (prim->vertex_count ? prim->vertex_count : 1));
    int rc = 1;
    if (!models || !bone_matrices || !anim_vertices || sk_pose_alloc(skel, NULL, &pose, &err) != SK_OK ||
        sk_skinned_mesh_create(prim, NULL, &mesh, &err) != SK_OK)
        goto fail;
    for (int i = 3; i < argc; i++) {
        char *end;
        long v = strtol(argv[i], &end, 10);
        if (*end || v < 0 || v >= (long)prim->vertex_count) {
            fprintf(stderr, "vertex %s: the primitive has %u vertices\n", argv[i], prim->vertex_count);
            goto done;
        }
    }

    const double fps = 60.0; /* raylib bakes glTF animations into frames (about 60 per second) */
    const int frame_count = (int)(sk_clip_duration(clip) * fps) + 1; /* anims[0].frameCount */
    int anim_frame_counter = 0;
    for (int frame = 0; frame <= 180; frame++) { /* while (!WindowShouldClose()) */
        double time = anim_frame_counter / fps;
        /* UpdateModelAnimationBones(model, anims[anim], animFrameCounter): the bone matrices */
        if (sk_clip_sample(clip, skel, time, SK_LOOP_CLAMP, &pose, &err) != SK_OK ||
            sk_local_to_model(skel, &pose, NULL, models, skel->joint_count, &err) != SK_OK ||
            sk_skin_palette(skin, models, skel->joint_count, bone_matrices, skin->joint_count, &err) != SK_OK)
            goto fail;
        /* UpdateModelAnimation(...): CPU skinning into the mesh's animVertices */
        sk_skin_job job = {.mesh = mesh, .palette = bone_matrices, .palette_count = skin->joint_count,
                           .out_positions = anim_vertices};
        if (sk_skin_run(&job, &err) != SK_OK) goto fail;
        if (frame % 30 == 0) { /* BeginDrawing(); DrawModel(model, position, 1.0f, WHITE); EndDrawing(); */
            printf("frame %d time %.17g\n", frame, time);
            for (int i = 3; i < argc; i++) {
                long v = strtol(argv[i], NULL, 10);
                const float *p = &anim_vertices[3 * v];
                printf("vertex %u 0 %ld %.7f %.7f %.7f\n", model->joint_to_node[node], v, (double)p[0], (double)p[1],
                       (double)p[2]);
            }
        }
        if (++anim_frame_counter >= frame_count) anim_frame_counter = 0; /* the examples' wrap */
    }
    rc = 0;
    goto done;
fail:
    fprintf(stderr, "%s\n", err.message);
done: /* UnloadModelAnimations(anims, animsCount); UnloadModel(model); */
    sk_skinned_mesh_destroy(mesh);
    sk_pose_free(&pose, NULL);
    free(models), free(bone_matrices), free(anim_vertices);
    sk_asset_destroy(model);
    return rc;
}
