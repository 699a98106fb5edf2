/* skelanim: the retargeting the commands share (retarget_run.h). */
#include "retarget_run.h"
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The arms of a humanoid map as limbs: upper arm, lower arm, hand per side
 * (in sk_leg_desc's hip, knee, ankle; no toe). */
static bool arms_of(const sk_humanoid_map *m, sk_leg_desc arms[2]) {
    static const sk_humanoid_bone bones[2][3] = {
        {SK_HUMANOID_LEFT_UPPER_ARM, SK_HUMANOID_LEFT_LOWER_ARM, SK_HUMANOID_LEFT_HAND},
        {SK_HUMANOID_RIGHT_UPPER_ARM, SK_HUMANOID_RIGHT_LOWER_ARM, SK_HUMANOID_RIGHT_HAND}};
    if (!m) return false;
    for (int s = 0; s < 2; s++) {
        memset(&arms[s], 0, sizeof arms[s]);
        snprintf(arms[s].name, sizeof arms[s].name, "%s", s ? "right" : "left");
        arms[s].hip = m->joint[bones[s][0]], arms[s].knee = m->joint[bones[s][1]];
        arms[s].ankle = m->joint[bones[s][2]];
        arms[s].toe = -1;
        if (arms[s].hip < 0 || arms[s].knee < 0 || arms[s].ankle < 0) return false;
    }
    return true;
}

static bool legs_of(const sk_humanoid_map *m, sk_leg_desc legs[2]) { return sk_legs_from_humanoid(m, legs, 2) == 2; }


/* Frames of the source clip source_standing averages (the standing ones of
 * this many spread over the clip). */
#define STAND_FRAMES 32u

/* For a source whose rest pose does not stand (sk_humanoid_pose_stands; a
 * .bvh with its joint orients baked in): its humanoid map found on its first
 * clip's first frame and its standing frames posed like the target's rest
 * (target, tmap; sk_humanoid_pose_like). True with *rest (malloc'd, one
 * transform per source joint: the caller frees it) and *map set; false when
 * the rest stands or no such frame is found (*rest NULL). */
static bool source_standing(const sk_asset *source, const sk_skeleton *target, const sk_humanoid_map *tmap,
                            sk_transform **rest, sk_humanoid_map *map) {
    const sk_skeleton *s = source->skeleton;
    uint32_t n = s->joint_count;
    *rest = NULL;
    sk_humanoid_map fmap;
    if (sk_humanoid_map_find(s, NULL, &fmap, NULL) == SK_OK && sk_humanoid_pose_stands(s, NULL, &fmap)) return false;
    if (!source->clip_count || !n) return false;
    const sk_clip *clip = source->clips[0];
    sk_transform *frames = malloc((size_t)n * (STAND_FRAMES + 1) * sizeof *frames);
    sk_pose poses[STAND_FRAMES];
    uint32_t kept = 0;
    bool have_map = false;
    for (uint32_t k = 0; frames && k < STAND_FRAMES; k++) {
        sk_pose p = {frames + (size_t)kept * n, NULL, n, 0};
        double t = sk_clip_duration(clip) * k / STAND_FRAMES;
        if (sk_clip_sample(clip, s, t, SK_LOOP_CLAMP, &p, NULL) != SK_OK) break;
        /* the map found on the first frame (left and right told apart by where the limbs are there) */
        if (!have_map && sk_humanoid_map_find(s, &p, &fmap, NULL) != SK_OK) break;
        have_map = true;
        if (sk_humanoid_pose_stands(s, &p, &fmap)) poses[kept++] = p;
    }
    sk_pose out = {frames ? frames + (size_t)STAND_FRAMES * n : NULL, NULL, n, 0};
    if (!kept ||
        sk_humanoid_pose_like(s, &fmap, poses, kept, target, NULL, tmap, NULL, &out, NULL) != SK_OK) {
        free(frames);
        return false;
    }
    memmove(frames, out.local, (size_t)n * sizeof *frames);
    *rest = frames, *map = fmap;
    return true;
}

sk_result cli_retarget_open(const sk_asset *source, const sk_asset *target, const char *map_path, cli_retarget *out,
                            sk_error *err) {
    memset(out, 0, sizeof *out);
    sk_retarget_desc d;
    memset(&d, 0, sizeof d);
    d.source = source->skeleton, d.target = target->skeleton;
    /* a target whose rest does not stand would take every bone's correction from a pose no one stands in */
    sk_humanoid_map trest;
    bool target_mapped = sk_humanoid_map_find(target->skeleton, NULL, &trest, NULL) == SK_OK;
    if (target_mapped && !sk_humanoid_pose_stands(target->skeleton, NULL, &trest))
        return sk_error_set(err, SK_ERR_UNSUPPORTED,
                            "the target's rest pose does not stand (its legs do not hang below its hips: joint orients "
                            "baked in?): retargeting onto it is not supported; a character's own clips play on it as "
                            "they are");
    /* the source's rest stood on the target's ground (retarget.h: a .bvh rest pose has its root at the origin) */
    d.flags |= SK_RETARGET_GROUND_REST;
    sk_retarget_map_json *map = NULL;
    sk_humanoid_map smap, tmap;
    sk_result r = SK_OK;
    if (map_path) {
        r = sk_retarget_map_json_load(map_path, NULL, NULL, &map, err);
        if (r == SK_OK) r = sk_retarget_map_json_apply(map, &d, &smap, &tmap, err);
        if (r != SK_OK && !strstr(err->message, map_path)) {
            char msg[sizeof err->message];
            snprintf(msg, sizeof msg, "%s", err->message);
            sk_error_set(err, r, "%s: %s", map_path, msg);
        }
    }
    /* a source whose rest pose does not stand: a standing rest made from its first frame */
    sk_transform *stand = NULL;
    sk_humanoid_map standing_map;
    sk_pose stand_pose = {NULL, NULL, source->skeleton->joint_count, 0};
    if (r == SK_OK && target_mapped && source_standing(source, target->skeleton, &trest, &stand, &standing_map)) {
        out->source_rest = stand, stand_pose.local = stand;
        if (!d.source_map) d.source_map = &standing_map;
        d.source_rest = &stand_pose;
    }
    if (r == SK_OK) r = sk_retarget_create(&d, NULL, &out->rt, err);
    sk_retarget_map_json_destroy(map);
    if (r != SK_OK) return r;
    out->source = d.source, out->target = d.target;
    for (uint32_t j = 0; j < d.target->joint_count; j++) out->mapped += sk_retarget_source_of(out->rt, j) >= 0;
    if (legs_of(sk_retarget_map(out->rt, 0), out->source_legs) && legs_of(sk_retarget_map(out->rt, 1), out->target_legs)) {
        out->leg_count = 2;
        /* the target's heel and toe on its mesh's soles where it has a skinned mesh (the
         * feet's lowest points for levelling and the floor), else from its skeleton */
        sk_error pe = {0};
        if (sk_leg_points_from_mesh(target, out->target_legs, 2, NULL, NULL, &pe) != SK_OK)
            for (int s = 0; s < 2; s++) out->target_legs[s].heel_set = out->target_legs[s].toe_tip_set = false;
    }
    if (arms_of(sk_retarget_map(out->rt, 0), out->source_arms) &&
        arms_of(sk_retarget_map(out->rt, 1), out->target_arms))
        out->arm_count = 2;
    return SK_OK;
}

void cli_retarget_close(cli_retarget *r) {
    sk_retarget_destroy(r->rt);
    free(r->source_rest);
    memset(r, 0, sizeof *r);
}

/* The source's contacts of two limbs (sk_contacts_find): *out (NULL when there are none; free it)
 * and *count. */
static sk_result source_contacts(const cli_retarget *r, const sk_clip *clip, const sk_leg_desc *limbs, sk_contact **out,
                                 uint32_t *count, sk_error *err) {
    *out = NULL, *count = 0;
    uint32_t n = 0;
    sk_result res = sk_contacts_find(r->source, clip, limbs, 2, NULL, NULL, NULL, 0, &n, err);
    if (res == SK_ERR_LIMIT) res = SK_OK;
    if (res != SK_OK || n == 0) return res;
    sk_contact *c = calloc(n, sizeof *c);
    if (!c) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    if ((res = sk_contacts_find(r->source, clip, limbs, 2, NULL, NULL, c, n, &n, err)) != SK_OK) {
        free(c);
        return res;
    }
    *out = c, *count = n;
    return SK_OK;
}

sk_result cli_retarget_bake(const cli_retarget *r, const sk_clip *source_clip, bool contacts, sk_clip **out,
                            cli_retarget_info *info, sk_error *err) {
    cli_retarget_info in;
    memset(&in, 0, sizeof in);
    double t0 = cli_thread_cpu_now();
    sk_clip *baked = NULL;
    sk_result res = sk_retarget_clip(r->rt, source_clip, NULL, NULL, &baked, err);
    double t1 = cli_thread_cpu_now();
    in.retarget_s = t1 - t0;
    if (res != SK_OK) return res;
    bool level = !r->no_level && r->leg_count == 2, restore = contacts && r->leg_count == 2;
    /* the source's foot contacts, found once: levelling measures over them, restoration pins them */
    sk_contact *feet = NULL, *c = NULL;
    uint32_t nfeet = 0;
    if (level || restore) res = source_contacts(r, source_clip, r->source_legs, &feet, &nfeet, err);
    if (res == SK_OK && level && nfeet) { /* the planted feet flat, measured where the source's feet stand */
        sk_foot_level_options lo;
        memset(&lo, 0, sizeof lo);
        lo.contacts = feet, lo.contact_count = nfeet;
        lo.per_contact = r->level_each;
        sk_foot_level_stats ls;
        sk_clip *levelled = NULL;
        res = sk_foot_level(r->target, baked, r->target_legs, 2, &lo, NULL, &levelled, &ls, err);
        if (res == SK_OK) {
            sk_clip_destroy(baked);
            baked = levelled;
            for (int l = 0; l < 2; l++) in.level[l] = ls.applied[l] ? ls.tilt[l] : 0.0f;
        }
    }
    if (res == SK_OK && restore) {
        /* limbs: the legs (0, 1), and with hands the arms (2, 3): their contacts found on the source */
        sk_leg_desc dst_limbs[4] = {r->target_legs[0], r->target_legs[1], r->target_arms[0], r->target_arms[1]};
        uint32_t nhands = 0, limbs = r->hands && r->arm_count == 2 ? 4 : 2;
        sk_contact *hands = NULL;
        if (limbs == 4) res = source_contacts(r, source_clip, r->source_arms, &hands, &nhands, err);
        uint32_t n = nfeet;
        if (res == SK_OK && nfeet + nhands > 0 && !(c = calloc(nfeet + nhands, sizeof *c)))
            res = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
        if (res == SK_OK && c) {
            if (nfeet) memcpy(c, feet, nfeet * sizeof *c);
            /* A hand contact is a hand on the floor: low and still, and no higher above the
             * floor than 0.15 leg lengths (the feet's contacts give the floor: their lowest
             * ankle). A swinging hand that slows at the bottom of its arc is none. */
            float floor_y = INFINITY, leg = sk_humanoid_leg_length(r->source, NULL, sk_retarget_map(r->rt, 0));
            for (uint32_t k = 0; k < nfeet; k++) floor_y = fminf(floor_y, c[k].position.y);
            for (uint32_t k = 0; k < nhands; k++)
                if (isfinite(floor_y) && hands[k].position.y <= floor_y + 0.15f * leg) {
                    c[n] = hands[k];
                    c[n++].leg += 2; /* limbs 2 and 3: the arms */
                }
        }
        free(hands);
        nhands = n - nfeet;
        sk_clip *restored = NULL;
        sk_contact_restore_stats st;
        memset(&st, 0, sizeof st);
        sk_contact_restore_options ro;
        memset(&ro, 0, sizeof ro);
        ro.hand_mask = limbs == 4 ? 0xCu : 0u;
        ro.floor = true; /* captures on level ground: no foot through the floor on the target's proportions */
        /* the swing clears the floor by the source's clearance, scaled by the legs' ratio */
        sk_leg_desc src_limbs[4] = {r->source_legs[0], r->source_legs[1], r->source_arms[0], r->source_arms[1]};
        float sleg = sk_humanoid_leg_length(r->source, NULL, sk_retarget_map(r->rt, 0));
        float tleg = sk_humanoid_leg_length(r->target, NULL, sk_retarget_map(r->rt, 1));
        sk_contact_source cs = {r->source, source_clip, src_limbs, sleg > 0.0f ? tleg / sleg : 0.0f};
        if (cs.scale > 0.0f && !r->no_swing) ro.source = &cs;
        if (res == SK_OK) res = sk_contacts_restore(r->target, baked, dst_limbs, limbs, c, n, &ro, NULL, &restored, &st, err);
        if (res == SK_OK) {
            sk_clip_destroy(baked);
            baked = restored;
            in.contacts = nfeet, in.hand_contacts = nhands, in.max_error = st.max_error, in.unreachable = st.unreachable;
            in.floor_keys = st.raised, in.floor_max = st.max_raise;
            in.swing_up = st.swing_max_up, in.swing_down = st.swing_max_down;
        }
    }
    free(feet);
    free(c);
    if (res != SK_OK) {
        sk_clip_destroy(baked);
        return res;
    }
    in.contacts_s = cli_thread_cpu_now() - t1;
    *out = baked;
    if (info) *info = in;
    return SK_OK;
}
