/* Coming from three.js: an AnimationMixer with two actions and a
 * crossfade (action.crossFadeTo(other, duration, false)), the render loop
 * calling mixer.update(dt), written with skelanim. docs/porting-threejs.md
 * explains each step.
 *
 *   from_threejs FILE.glb|@mannequin CLIP_A CLIP_B [FADE_AT [FADE_SECONDS]]
 *
 * Plays CLIP_A; at FADE_AT seconds (default 1) crossfades to CLIP_B over
 * FADE_SECONDS (default 0.5), linearly, both actions running all along as
 * three.js's do. Every frame (60 Hz, 3 s) it prints
 * "frame F t T weight_a WA weight_b WB time_a TA time_b TB fade_start S"
 * (S: when the fade began, -1 before); every 10th frame then each joint's
 * model-space position, "joint NODE NAME X Y Z" (NODE: the file's node index).
 *
 *   cc from_threejs.c $(pkg-config --cflags --libs skelanim_io) */
#include <skelanim.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct action {   /* THREE.AnimationAction */
    const sk_clip *clip;  /* THREE.AnimationClip (shared, read-only) */
    sk_player player;     /* action.time, timeScale, loop (LoopRepeat) */
    sk_pose pose;         /* what the action's interpolants produced this frame */
} action;

typedef struct mixer {    /* THREE.AnimationMixer: actions, their weights, the blend */
    action actions[2];
    sk_fader fader;       /* the actions' effective weights and their fades */
    sk_pose out;          /* the PropertyMixer result: the character's local transforms */
    double time;          /* mixer.time */
} mixer;

static int32_t find_clip(const sk_asset *a, const char *name) { /* a clip's name or index, or -1 */
    char *end;
    long i = strtol(name, &end, 10);
    if (sk_asset_find_clip(a, name) >= 0) return sk_asset_find_clip(a, name);
    return *name && !*end && i >= 0 && i < (long)a->clip_count ? (int32_t)i : -1;
}

/* mixer.update(dt): every running action advances, fades progress, and the
 * actions are blended by their effective weights. */
static sk_result mixer_update(mixer *m, const sk_skeleton *skel, double dt, sk_error *err) {
    m->time += dt;
    sk_fader_update(&m->fader, dt);
    sk_blend_input in[2];
    for (uint32_t i = 0; i < 2; i++) {
        action *a = &m->actions[i];
        sk_player_advance(&a->player, dt, NULL, 0, NULL, NULL);
        sk_result r = sk_clip_sample(a->clip, skel, sk_player_clip_time(&a->player), SK_LOOP_REPEAT, &a->pose, err);
        if (r != SK_OK) return r;
        in[i] = (sk_blend_input){&a->pose, sk_fader_weight(&m->fader, i), NULL, NULL};
    }
    /* three.js accumulates rotations by slerp in action order (PropertyMixer) */
    sk_blend_options opts = {.rotation = SK_BLEND_SLERP};
    return sk_blend_poses(skel, in, 2, &opts, &m->out, err);
}

int main(int argc, char **argv) {
    if (argc < 4)
        return fprintf(stderr, "usage: %s FILE.glb|@mannequin CLIP_A CLIP_B [FADE_AT [FADE_SECONDS]]\n", argv[0]), 1;
    char *end_at = "", *end_seconds = "";
    double fade_at = argc > 4 ? strtod(argv[4], &end_at) : 1.0;
    double fade_seconds = argc > 5 ? strtod(argv[5], &end_seconds) : 0.5;
    if (*end_at || *end_seconds || !(fade_at >= 0.0 && fade_at <= 1e6 && fade_seconds >= 0.0 && fade_seconds <= 1e6))
        return fprintf(stderr, "FADE_AT and FADE_SECONDS must be numbers in [0, 1e6]\n"), 1;
    sk_error err = {0};
    sk_asset *model = NULL; /* new GLTFLoader().load(url, gltf => ...): gltf.scene and gltf.animations */
    sk_result r = strcmp(argv[1], "@mannequin") == 0 ? sk_mannequin_create(NULL, NULL, &model, &err)
                                                     : sk_gltf_load_file(argv[1], NULL, &model, &err);
    if (r != SK_OK) return fprintf(stderr, "%s\n", err.message), 1; /* the message names the file */
    const sk_skeleton *skel = model->skeleton;
    mixer m = {0};
    sk_mat4 *world = malloc(skel->joint_count * sizeof *world); /* the bones' matrixWorld */
    int rc = 1;
    if (!world || sk_pose_alloc(skel, NULL, &m.out, &err) != SK_OK) goto fail;
    for (uint32_t i = 0; i < 2; i++) { /* const action = mixer.clipAction(clip); action.play(); */
        int32_t c = find_clip(model, argv[2 + i]);
        if (c < 0) {
            fprintf(stderr, "%s: no clip %s\n", argv[1], argv[2 + i]);
            goto done;
        }
        m.actions[i].clip = model->clips[c];
        sk_player_desc desc = {.duration = sk_clip_duration(model->clips[c]), .loop = SK_LOOP_REPEAT};
        sk_player_init(&m.actions[i].player, &desc);
        if (sk_pose_alloc(skel, NULL, &m.actions[i].pose, &err) != SK_OK) goto fail;
    }
    sk_fader_init(&m.fader, 0); /* action A at weight 1, B at 0 (setEffectiveWeight) */

    const double dt = 1.0 / 60.0; /* clock.getDelta() */
    double fade_start = -1.0;
    for (int frame = 1; frame <= 180; frame++) { /* renderer.setAnimationLoop(animate) */
        if (fade_start < 0.0 && m.time >= fade_at) { /* actionA.crossFadeTo(actionB, FADE_SECONDS, false) */
            sk_fader_start(&m.fader, 1, fade_seconds, SK_FADE_LINEAR);
            fade_start = m.time;
        }
        if (mixer_update(&m, skel, dt, &err) != SK_OK) goto fail;
        /* the skeleton's matrixWorld; renderer.render(scene, camera) would follow */
        if (sk_local_to_model(skel, &m.out, NULL, world, skel->joint_count, &err) != SK_OK) goto fail;
        printf("frame %d t %.17g weight_a %.9g weight_b %.9g time_a %.17g time_b %.17g fade_start %.17g\n", frame,
               m.time, (double)sk_fader_weight(&m.fader, 0), (double)sk_fader_weight(&m.fader, 1),
               sk_player_clip_time(&m.actions[0].player), sk_player_clip_time(&m.actions[1].player), fade_start);
        for (uint32_t j = 0; frame % 10 == 0 && j < skel->joint_count; j++)
            printf("joint %u %s %.7f %.7f %.7f\n", model->joint_to_node[j], skel->names[j], (double)world[j].m[12],
                   (double)world[j].m[13], (double)world[j].m[14]);
    }
    rc = 0;
    goto done;
fail:
    fprintf(stderr, "%s\n", err.message);
done:
    for (uint32_t i = 0; i < 2; i++) sk_pose_free(&m.actions[i].pose, NULL);
    sk_pose_free(&m.out, NULL);
    free(world);
    sk_asset_destroy(model);
    return rc;
}
