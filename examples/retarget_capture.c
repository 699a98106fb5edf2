/* A captured clip retargeted onto another character for playback, as
 * `skelanim retarget` does it, through the public API:
 *   1. baked onto the character (the capture's rest pose stood on the ground);
 *   2. the capture's foot contacts found on its own skeleton;
 *   3. the planted feet levelled on the character's soles over those contacts
 *      (the two rest poses hold the foot at different angles);
 *   4. the contacts restored with two-bone IK: each planted ankle pinned, no
 *      foot through the floor, and the swings lifted as high over the floor
 *      as the capture's, scaled by the legs' ratio;
 * then written as OUT.glb: the mannequin with its own clips and this one.
 *
 *   example_retarget_capture CAPTURE.bvh METRES_PER_UNIT OUT.glb
 *
 * e.g. a CMU capture: example_retarget_capture 02_01.bvh 0.056444 walk.glb
 * (a .bvh whose rest pose does not stand, joint orients baked in, needs a
 * standing rest first: `skelanim retarget` makes one from its frames, and
 * docs/retarget.md says how). Build against an installed skelanim with:
 *   cc retarget_capture.c $(pkg-config --cflags --libs skelanim) */
#include <skelanim.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const sk_error *err) {
    fprintf(stderr, "%s\n", err->message);
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s CAPTURE.bvh METRES_PER_UNIT OUT.glb\n", argv[0]);
        return 2;
    }
    sk_error err = {0};
    sk_bvh_options bo = {0};
    bo.scale = atof(argv[2]);
    sk_asset *capture = NULL, *character = NULL;
    if (sk_bvh_load_file(argv[1], &bo, &capture, &err) != SK_OK) return fail(&err);
    if (capture->clip_count == 0) return fprintf(stderr, "%s has no clip\n", argv[1]), 1;
    if (sk_mannequin_create(NULL, NULL, &character, &err) != SK_OK) return fail(&err);
    const sk_skeleton *src = capture->skeleton, *dst = character->skeleton;
    const sk_clip *clip = capture->clips[0];

    /* 1. Bake. */
    sk_retarget_desc rd = {0};
    rd.source = src, rd.target = dst, rd.flags = SK_RETARGET_GROUND_REST;
    sk_retarget *rt = NULL;
    sk_clip *baked = NULL;
    if (sk_retarget_create(&rd, NULL, &rt, &err) != SK_OK) return fail(&err);
    if (sk_retarget_clip(rt, clip, NULL, NULL, &baked, &err) != SK_OK) return fail(&err);

    /* Both skeletons' legs from their maps; the character's heel and toe on its mesh's soles. */
    sk_leg_desc src_legs[2], legs[2];
    if (sk_legs_from_humanoid(sk_retarget_map(rt, 0), src_legs, 2) != 2 ||
        sk_legs_from_humanoid(sk_retarget_map(rt, 1), legs, 2) != 2) {
        fprintf(stderr, "no two legs in a humanoid map\n");
        return 1;
    }
    if (sk_leg_points_from_mesh(character, legs, 2, NULL, NULL, &err) != SK_OK) return fail(&err);
    float ratio = sk_humanoid_leg_length(dst, NULL, sk_retarget_map(rt, 1)) /
                  sk_humanoid_leg_length(src, NULL, sk_retarget_map(rt, 0));

    /* 2. The capture's contacts: count, then fetch. */
    uint32_t n = 0;
    sk_result r = sk_contacts_find(src, clip, src_legs, 2, NULL, NULL, NULL, 0, &n, &err);
    if (r != SK_OK && r != SK_ERR_LIMIT) return fail(&err);
    sk_contact *contacts = calloc(n ? n : 1, sizeof *contacts);
    if (!contacts || sk_contacts_find(src, clip, src_legs, 2, NULL, NULL, contacts, n, &n, &err) != SK_OK)
        return contacts ? fail(&err) : 1;

    /* 3. Level the planted feet over the capture's contacts. */
    sk_foot_level_options lo = {0};
    lo.contacts = contacts, lo.contact_count = n;
    sk_foot_level_stats ls;
    sk_clip *level = NULL;
    if (sk_foot_level(dst, baked, legs, 2, &lo, NULL, &level, &ls, &err) != SK_OK) return fail(&err);
    sk_clip_destroy(baked);

    /* 4. Restore the contacts: pinned, out of the floor, the swings at the capture's clearance. */
    sk_contact_source source = {src, clip, src_legs, ratio};
    sk_contact_restore_options ro = {0};
    ro.floor = true;
    ro.source = &source;
    sk_contact_restore_stats rs;
    sk_clip *out = NULL;
    if (sk_contacts_restore(dst, level, legs, 2, contacts, n, &ro, NULL, &out, &rs, &err) != SK_OK) return fail(&err);
    sk_clip_destroy(level);
    printf("%s: %.2f s, feet levelled by %.1f / %.1f degrees, %u contacts pinned (largest error %.2g m), "
           "%u leg-keys raised out of the floor, swings moved up to %.1f cm up / %.1f cm down (leg ratio %.3f)\n",
           sk_clip_name(out), sk_clip_duration(out), ls.applied[0] ? ls.tilt[0] * 57.29578 : 0.0,
           ls.applied[1] ? ls.tilt[1] * 57.29578 : 0.0, rs.contacts, (double)rs.max_error, rs.raised,
           100.0 * rs.swing_max_up, 100.0 * rs.swing_max_down, (double)ratio);

    /* The mannequin with its own clips and the retargeted one. */
    sk_clip **all = calloc(character->clip_count + 1, sizeof *all);
    if (!all) return 1;
    for (uint32_t i = 0; i < character->clip_count; i++) all[i] = character->clips[i];
    all[character->clip_count] = out;
    sk_asset written = *character;
    written.clips = all;
    written.clip_count = character->clip_count + 1;
    if (sk_glb_write_file(&written, argv[3], NULL, &err) != SK_OK) return fail(&err);
    printf("wrote %s (%u clips)\n", argv[3], written.clip_count);

    free(all);
    free(contacts);
    sk_clip_destroy(out);
    sk_retarget_destroy(rt);
    sk_asset_destroy(character);
    sk_asset_destroy(capture);
    return 0;
}
