/* A captured walk driving another character's locomotion: a BVH walk
 * retargeted onto the built-in mannequin (the capture's rest pose stood on
 * the ground), its feet levelled, its best cycle found, turned to walk
 * along +Z and analysed (the
 * planted phases widened to the capture's own); a locomotor then walks the mannequin 10 m along +Z and prints
 * where its feet are every half second.
 *
 *   example_locomote_capture WALK.bvh [METRES_PER_UNIT]
 *
 * e.g. a CMU capture: example_locomote_capture 02_01.bvh 0.056444
 * Build against an installed skelanim with:
 *   cc locomote_capture.c $(pkg-config --cflags --libs skelanim) */
#include <skelanim.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const sk_error *err) {
    fprintf(stderr, "%s\n", err->message);
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s WALK.bvh [METRES_PER_UNIT]\n", argv[0]);
        return 2;
    }
    sk_error err = {0};
    sk_bvh_options bo = {0};
    bo.scale = argc > 2 ? atof(argv[2]) : 0.0;
    sk_asset *capture = NULL, *character = NULL;
    if (sk_bvh_load_file(argv[1], &bo, &capture, &err) != SK_OK) return fail(&err);
    if (sk_mannequin_create(NULL, NULL, &character, &err) != SK_OK) return fail(&err);
    const sk_skeleton *src = capture->skeleton, *dst = character->skeleton;

    /* 1. Retarget, once at load: the capture's rest pose stood on the ground. */
    sk_retarget_desc rd = {0};
    rd.source = src, rd.target = dst, rd.flags = SK_RETARGET_GROUND_REST;
    sk_retarget *rt = NULL;
    sk_clip *baked = NULL, *walk = NULL;
    if (sk_retarget_create(&rd, NULL, &rt, &err) != SK_OK) return fail(&err);
    if (sk_retarget_clip(rt, capture->clips[0], NULL, NULL, &baked, &err) != SK_OK) return fail(&err);

    /* 2. The mannequin's legs (the locomotor places the feet: no contact
     * restoration, which would pin the ankles over the capture's contacts). */
    sk_leg_desc legs[2];
    if (sk_legs_from_humanoid(sk_retarget_map(rt, 1), legs, 2) != 2) {
        fprintf(stderr, "the character's humanoid map has no two legs\n");
        return 1;
    }
    walk = baked;
    baked = NULL;

    /* 3. The feet planted flat on the character's soles: the two rest poses
     * hold the foot at different angles, which the retargeted clip keeps. */
    if (sk_leg_points_from_mesh(character, legs, 2, NULL, NULL, &err) != SK_OK) return fail(&err);
    sk_clip *level = NULL;
    if (sk_foot_level(dst, walk, legs, 2, NULL, NULL, &level, NULL, &err) != SK_OK) return fail(&err);
    sk_clip_destroy(walk);
    walk = level;

    /* 4. The capture is not a loop: its best cycle, analysed. Retargeted,
     * a planted ankle creeps up more than on its own skeleton: a wider
     * band for what counts as still (as locomote --from). */
    sk_motion_analysis_options ao = {0};
    ao.still_band = SK_STILL_BAND_RETARGETED;
    sk_motion_analysis *an = NULL;
    if (sk_motion_find_cycle(dst, walk, legs, 2, 0, NULL, &ao.cycle_start, &ao.cycle_end, &err) != SK_OK ||
        sk_motion_analyze(dst, walk, legs, 2, &ao, NULL, &an, &err) != SK_OK)
        return fail(&err);
    printf("cycle %.3f-%.3f s, %.2f m/s\n", ao.cycle_start, ao.cycle_end, (double)an->cycle_speed);

    /* 4a. The subject walked whichever way the studio let them: the cycle
     * turned so that it travels along the nearest of its body's axes (a
     * forward walk along +Z), and analysed again. */
    float facing = 0;
    if (sk_motion_cycle_facing(dst, walk, legs, 2, ao.cycle_start, ao.cycle_end, NULL, &facing, NULL, NULL, &err) !=
        SK_OK)
        return fail(&err);
    const float quarter = 1.5707963f, full = 6.2831853f;
    float travel = atan2f(an->cycle_direction.x, an->cycle_direction.z);
    float turn = remainderf(roundf(remainderf(travel - facing, full) / quarter) * quarter - travel, full);
    sk_clip *turned = NULL;
    if (sk_clip_turn(walk, dst, turn, NULL, &turned, &err) != SK_OK) return fail(&err);
    sk_clip_destroy(walk);
    walk = turned;
    sk_motion_analysis_destroy(an);
    an = NULL;
    if (sk_motion_analyze(dst, walk, legs, 2, &ao, NULL, &an, &err) != SK_OK) return fail(&err);
    printf("turned %.1f degrees to walk along +Z\n", (double)turn * 57.29578);

    /* 4b. The heel and toe points were found on the character at rest; in
     * the retargeted walk a heel may not come as low as its toe (the two
     * rest poses hold the foot differently): each such heel point brought
     * to its toe's ground, and the walk analysed again. */
    uint32_t heels = 0;
    if (sk_leg_heels_to_ground(dst, walk, an, legs, 2, NULL, NULL, &heels, &err) != SK_OK) return fail(&err);
    if (heels) {
        sk_motion_analysis_destroy(an);
        an = NULL;
        if (sk_motion_analyze(dst, walk, legs, 2, &ao, NULL, &an, &err) != SK_OK) return fail(&err);
    }
    printf("heel points brought to the toes' ground on %u leg(s)\n", heels);

    /* 4c. The capture's feet stand flat longer on its own skeleton than
     * retargeted: each leg's planted phase widened to the capture's own,
     * analysed on its own skeleton over the same seconds. */
    sk_leg_desc src_legs[2];
    if (sk_legs_from_humanoid(sk_retarget_map(rt, 0), src_legs, 2) != 2) {
        fprintf(stderr, "the capture's humanoid map has no two legs\n");
        return 1;
    }
    sk_motion_analysis_options so = {0};
    so.cycle_start = ao.cycle_start, so.cycle_end = ao.cycle_end;
    sk_motion_analysis *own = NULL;
    uint32_t widened = 0;
    if (sk_motion_analyze(src, capture->clips[0], src_legs, 2, &so, NULL, &own, &err) != SK_OK ||
        sk_motion_analysis_widen_planted(an, own, 0.0f, &widened, &err) != SK_OK)
        return fail(&err);
    sk_motion_analysis_destroy(own);
    printf("planted phase widened to the capture's own on %u leg(s)\n", widened);

    /* 5. A motion group of one walk and a locomotor on flat ground. */
    sk_motion_group *group = NULL;
    sk_locomotor *L = NULL;
    const sk_clip *clips[1] = {walk};
    if (sk_motion_group_create((const sk_motion_analysis *const *)&an, 1, NULL, &group, &err) != SK_OK) return fail(&err);
    sk_locomotor_desc ld = {0};
    ld.skeleton = dst, ld.group = group, ld.clips = clips, ld.clip_count = 1, ld.body_joint = -1;
    if (sk_locomotor_create(&ld, NULL, &L, &err) != SK_OK || sk_locomotor_reset(L, 0, 0, 0, &err) != SK_OK)
        return fail(&err);

    /* 6. Walk 10 m along +Z at the capture's speed, 60 frames a second. */
    sk_pose pose;
    if (sk_pose_alloc(dst, NULL, &pose, &err) != SK_OK) return fail(&err);
    const float points[4] = {0, 0, 0, 10};
    sk_path_follower pf;
    sk_path_follower_desc pd = {points, 2, an->cycle_speed, 0, 0, 0, 0.0f, false};
    if (sk_path_follower_init(&pf, &pd, &err) != SK_OK) return fail(&err);
    for (int f = 1; f <= 60 * 20 && !pf.finished; f++) {
        sk_path_follower_step(&pf, 1.0 / 60);
        if (sk_locomotor_update(L, 1.0 / 60, pf.x, pf.z, pf.yaw, &pose, &err) != SK_OK) return fail(&err);
        const sk_locomotor_state *st = sk_locomotor_get_state(L);
        if (f % 30 == 0)
            printf("t %5.2f s  at z %5.2f m  left heel %.3f m up%s  right heel %.3f m up%s\n", st->time,
                   (double)st->position.z, (double)st->feet[0].heel.y, st->feet[0].stance ? " (planted)" : "",
                   (double)st->feet[1].heel.y, st->feet[1].stance ? " (planted)" : "");
    }
    sk_pose_free(&pose, NULL);
    sk_locomotor_destroy(L);
    sk_motion_group_destroy(group);
    sk_motion_analysis_destroy(an);
    sk_clip_destroy(walk);
    sk_clip_destroy(baked);
    sk_retarget_destroy(rt);
    sk_asset_destroy(character);
    sk_asset_destroy(capture);
    return 0;
}
