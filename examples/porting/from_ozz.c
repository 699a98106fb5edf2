/* Coming from ozz-animation: the loop of ozz's playback and blend samples
 * (a playback controller per animation, SamplingJob, BlendingJob,
 * LocalToModelJob) written with skelanim. docs/porting-ozz.md explains
 * each step.
 *
 *   from_ozz FILE.glb|@mannequin [CLIP_A [CLIP_B [BLEND]]]
 *
 * Plays CLIP_A (default: the first clip), or blends CLIP_A and CLIP_B with
 * weights 1 - BLEND and BLEND (default 0.5), their playback speeds set so
 * that both loop in the same time, as ozz's blend sample does. Every 30th
 * frame at 60 Hz it prints the clip times and each joint's model-space
 * position: "frame F time_a TA time_b TB weight_b W", then
 * "joint NODE NAME X Y Z" per joint (NODE: the file's node index).
 *
 *   cc from_ozz.c $(pkg-config --cflags --libs skelanim_io) */
#include <skelanim.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sampler {  /* ozz's Sampler of the blend sample */
    const sk_clip *clip;  /* ozz::animation::Animation (shared, read-only) */
    sk_player controller; /* PlaybackController: time, speed, loop */
    uint32_t *context;    /* SamplingJob::Context: per-track key cache */
    size_t context_size;
    sk_pose locals;       /* the sampled local transforms (ozz: SoaTransform) */
    float weight;         /* BlendingJob::Layer::weight */
} sampler;

static int32_t find_clip(const sk_asset *a, const char *name) { /* a clip's name or index, or -1 */
    char *end;
    long i = strtol(name, &end, 10);
    if (sk_asset_find_clip(a, name) >= 0) return sk_asset_find_clip(a, name);
    return *name && !*end && i >= 0 && i < (long)a->clip_count ? (int32_t)i : -1;
}

int main(int argc, char **argv) {
    if (argc < 2) return fprintf(stderr, "usage: %s FILE.glb|@mannequin [CLIP_A [CLIP_B [BLEND]]]\n", argv[0]), 1;
    char *end = "";
    double blend = argc > 4 ? strtod(argv[4], &end) : 0.5;
    if (*end || !(blend >= 0.0 && blend <= 1.0)) return fprintf(stderr, "BLEND must be a number in [0, 1]\n"), 1;
    sk_error err = {0};
    sk_asset *asset = NULL;
    /* ozz: IArchive >> skeleton >> animation, from files gltf2ozz wrote.
     * Here the glTF file itself (or the built-in character). */
    sk_result r = strcmp(argv[1], "@mannequin") == 0 ? sk_mannequin_create(NULL, NULL, &asset, &err)
                                                     : sk_gltf_load_file(argv[1], NULL, &asset, &err);
    if (r != SK_OK) return fprintf(stderr, "%s\n", err.message), 1; /* the message names the file */
    const sk_skeleton *skeleton = asset->skeleton;
    uint32_t n = argc > 3 ? 2 : 1;

    sampler s[2] = {{0}};
    sk_pose blended = {0};
    sk_mat4 *models = malloc(skeleton->joint_count * sizeof *models); /* ozz: vector<Float4x4> */
    int rc = 1;
    if (!models || sk_pose_alloc(skeleton, NULL, &blended, &err) != SK_OK) goto done;
    double loop_duration = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        int32_t c = argc > 2 + (int)i ? find_clip(asset, argv[2 + i]) : 0;
        if (c < 0 || (uint32_t)c >= asset->clip_count) { /* also: a file without clips */
            fprintf(stderr, "%s: no clip %s\n", argv[1], argc > 2 + (int)i ? argv[2 + i] : "0");
            goto done;
        }
        s[i].clip = asset->clips[c];
        s[i].weight = n == 1 ? 1.0f : (float)(i == 0 ? 1.0 - blend : blend);
        s[i].context_size = sk_clip_cursor_size(s[i].clip); /* Context::Resize(num_tracks) */
        s[i].context = calloc(s[i].context_size ? s[i].context_size : 1, sizeof *s[i].context);
        if (!s[i].context || sk_pose_alloc(skeleton, NULL, &s[i].locals, &err) != SK_OK) goto done;
        loop_duration += s[i].weight * sk_clip_duration(s[i].clip);
    }
    for (uint32_t i = 0; i < n; i++) { /* the blend sample's synchronisation: one loop length */
        double d = sk_clip_duration(s[i].clip);
        sk_player_desc desc = {.duration = d, .loop = SK_LOOP_REPEAT,
                               .speed = loop_duration > 0.0 ? (float)(d / loop_duration) : 1.0f};
        sk_player_init(&s[i].controller, &desc);
    }

    const double dt = 1.0 / 60.0;
    for (int frame = 0; frame <= 180; frame++) {
        for (uint32_t i = 0; i < n; i++) {
            if (frame > 0) sk_player_advance(&s[i].controller, dt, NULL, 0, NULL, NULL); /* controller.Update */
            /* SamplingJob{animation, context, ratio, output}.Run(): a time in seconds, not a ratio */
            if (sk_clip_sample_cursor(s[i].clip, skeleton, sk_player_clip_time(&s[i].controller), SK_LOOP_REPEAT,
                                      s[i].context, s[i].context_size, &s[i].locals, &err) != SK_OK)
                goto fail;
        }
        /* BlendingJob{layers, rest_pose, output}.Run(): weights below 1 in sum are filled with the rest pose */
        sk_blend_input layers[2] = {{&s[0].locals, s[0].weight, NULL, NULL}, {&s[1].locals, s[1].weight, NULL, NULL}};
        if (sk_blend_poses(skeleton, layers, n, NULL, &blended, &err) != SK_OK) goto fail;
        /* LocalToModelJob{skeleton, input, output}.Run() */
        if (sk_local_to_model(skeleton, &blended, NULL, models, skeleton->joint_count, &err) != SK_OK) goto fail;
        if (frame % 30) continue; /* the sample would render here */
        printf("frame %d time_a %.17g time_b %.17g weight_b %.9g\n", frame, sk_player_clip_time(&s[0].controller),
               n > 1 ? sk_player_clip_time(&s[1].controller) : 0.0, n > 1 ? (double)s[1].weight : 0.0);
        for (uint32_t j = 0; j < skeleton->joint_count; j++) /* column-major: translation in m[12..14] */
            printf("joint %u %s %.7f %.7f %.7f\n", asset->joint_to_node[j], skeleton->names[j],
                   (double)models[j].m[12], (double)models[j].m[13], (double)models[j].m[14]);
    }
    rc = 0;
    goto done;
fail:
    fprintf(stderr, "%s\n", err.message);
done:
    for (uint32_t i = 0; i < 2; i++) free(s[i].context), sk_pose_free(&s[i].locals, NULL);
    sk_pose_free(&blended, NULL);
    free(models);
    sk_asset_destroy(asset);
    return rc;
}
