/* A crowd updated by sk_batch on every core (libskelanim_batch): 1,000
 * mannequins, each with its own phase and walk/run mix, sampled with its own
 * key cursors, blended, local-to-model and palette, for 60 frames. Prints the
 * thread count and one palette entry, and exits 0 when every frame succeeded.
 *
 *   cc batch_crowd.c $(pkg-config --cflags --libs skelanim_batch) */
#include <skelanim.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    enum { COUNT = 1000, FRAMES = 60 };
    sk_error err = {0};
    sk_asset *a = NULL;
    sk_batch *batch = NULL;
    int rc = 1;
    double *times = malloc(sizeof *times * COUNT * 2);
    float *mix = malloc(sizeof *mix * COUNT);
    sk_mat4 *palettes = NULL;
    uint32_t *cursors = NULL;
    if (!times || !mix || sk_mannequin_create(NULL, NULL, &a, &err) != SK_OK) goto done;
    const sk_skeleton *s = a->skeleton;
    const sk_clip *clips[2] = {a->clips[sk_asset_find_clip(a, "walk")], a->clips[sk_asset_find_clip(a, "run")]};
    const sk_skin *skin = &a->skins[0];
    sk_batch_desc d = {.threads = 0 /* every online processor */, .max_joints = s->joint_count, .max_clips = 2};
    if (sk_batch_create(&d, NULL, &batch, &err) != SK_OK) goto done;
    size_t stride = sk_batch_cursor_stride(clips, 2);
    /* on 64-byte boundaries (cache lines), where the batch is fastest; the cursors zeroed */
    size_t cursor_bytes = ((size_t)COUNT * stride * sizeof *cursors + 63) / 64 * 64;
    cursors = aligned_alloc(64, cursor_bytes);
    palettes = aligned_alloc(64, sizeof *palettes * COUNT * skin->joint_count); /* 64 bytes per matrix */
    if (!cursors || !palettes) goto done;
    memset(cursors, 0, cursor_bytes);
    sk_batch_pipeline p = {.skeleton = s, .character_count = COUNT, .clips = clips, .clip_count = 2,
                           .loop = SK_LOOP_REPEAT, .times = times, .mix = mix, .cursors = cursors,
                           .cursor_stride = stride, .skin = skin, .out_palette = palettes};
    for (int f = 0; f < FRAMES; f++) {
        for (int c = 0; c < COUNT; c++) {
            double phase = (c % 97) / 97.0 + f / 60.0;
            times[2 * c] = phase * sk_clip_duration(clips[0]);
            times[2 * c + 1] = phase * sk_clip_duration(clips[1]);
            mix[c] = (float)(c % 5) / 4.0f;
        }
        if (sk_batch_run_pipeline(batch, &p, &err) != SK_OK) goto done;
    }
    printf("%u threads, %d characters, %d frames; character 999 palette[0] translation %.3f %.3f %.3f\n",
           sk_batch_thread_count(batch), COUNT, FRAMES, (double)palettes[999 * skin->joint_count].m[12],
           (double)palettes[999 * skin->joint_count].m[13], (double)palettes[999 * skin->joint_count].m[14]);
    rc = 0;
done:
    if (rc) fprintf(stderr, "batch_crowd: %s\n", err.message[0] ? err.message : "out of memory");
    sk_batch_destroy(batch);
    sk_asset_destroy(a);
    free(times), free(mix), free(palettes), free(cursors);
    return rc;
}
