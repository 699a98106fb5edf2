/* skelanim command-line tool: the locomotion scenario runner (loco_run.h). */
#include "loco_run.h"

#include "cli.h"
#include "loco_from.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int32_t find_clip_quiet(const sk_asset *a, const char *name) {
    for (uint32_t i = 0; i < a->clip_count; i++)
        if (!strcmp(sk_clip_name(a->clips[i]), name)) return (int32_t)i;
    return -1;
}

/* A capture's analysed cycle turned so that it travels along the nearest
 * of its body's axes (sk_motion_cycle_facing): a forward walk along +Z,
 * whichever way its subject walked in the studio (the analysis' character
 * space is the clip's own, and the locomotor's blend space places a clip by
 * the way it travels there). The travel is the analysis' cycle direction.
 * *clip is replaced by the turned clip and *an by its analysis (ao's cycle:
 * turning keeps the timing). False, and both left, when the facing is not
 * found or the turn is under a hundredth of a degree. Warns (naming spec)
 * when the cycle travels more than 25 degrees from every axis of the body,
 * or its footprints more than 30 from the way its hips went. */
static bool face_forward(const char *spec, const sk_skeleton *skel, sk_clip **clip, sk_motion_analysis **an,
                         const sk_leg_desc *legs, uint32_t n, const sk_motion_analysis_options *ao, float *turned_deg) {
    float yaw = 0, hips = 0;
    sk_error e = {0};
    sk_vec3 d = (*an)->cycle_direction;
    if (n < 2 || !(d.x * d.x + d.z * d.z > 0.25f) ||
        sk_motion_cycle_facing(skel, *clip, legs, n, ao->cycle_start, ao->cycle_end, NULL, &yaw, &hips, NULL, &e) !=
            SK_OK)
        return false;
    float travel = atan2f(d.x, d.z);
    if (ao->backward) hips += (float)M_PI; /* the hips' way in clip time; the cycle is the clip reversed */
    const float quarter = (float)(M_PI / 2), deg = (float)(180.0 / M_PI);
    float rel = remainderf(travel - yaw, 2.0f * (float)M_PI), axis = roundf(rel / quarter) * quarter;
    float turn = remainderf(axis - travel, 2.0f * (float)M_PI);
    float feet_hips = fabsf(remainderf(travel - hips, 2.0f * (float)M_PI)); /* footprints against the hips' way */
    if (spec && (fabsf(rel - axis) * deg > 25.0f || feet_hips * deg > 30.0f)) /* a cycle across a turn, say */
        fprintf(stderr, "skelanim: warning: --from %s: its cycle (%.2f..%.2f s) travels %.0f degrees from the way the "
                "body faces (%.0f from the nearest of its axes) and its footprints %.0f from its hips' way: a turn or "
                "uneven ground in it? Its feet may be placed poorly\n", spec, ao->cycle_start, ao->cycle_end,
                fabsf(rel) * deg, fabsf(rel - axis) * deg, feet_hips * deg);
    if (fabsf(turn) < 1.75e-4f) return false;
    sk_clip *turned = NULL;
    sk_motion_analysis *ta = NULL;
    if (sk_clip_turn(*clip, skel, turn, NULL, &turned, &e) != SK_OK ||
        sk_motion_analyze(skel, turned, legs, n, ao, NULL, &ta, &e) != SK_OK) {
        sk_clip_destroy(turned);
        return false;
    }
    sk_clip_destroy(*clip);
    *clip = turned;
    sk_motion_analysis_destroy(*an);
    *an = ta;
    if (turned_deg) *turned_deg = (float)(turn * 180.0 / M_PI);
    return true;
}

/* A leg planted for under CLI_PLANTED_MIN of a clip's cycle is all but
 * never pinned: said on stderr, naming spec, so that a foot that skates is
 * not a surprise. */
static void warn_unplanted(const char *spec, const sk_motion_analysis *an) {
    for (uint32_t l = 0; l < an->leg_count; l++) {
        const sk_leg_analysis *L = &an->legs[l];
        double share = cli_planted_share(L);
        if (share < CLI_PLANTED_MIN)
            fprintf(stderr, "skelanim: warning: %s: the %s foot is planted for %.0f%% of its cycle (%.2f..%.2f s): the "
                    "analysis found no stance for it there (no gait, uneven ground or a turn in the cycle?), and the "
                    "locomotor will barely pin it\n", spec, L->name, 100.0 * share, an->cycle_start,
                    an->cycle_start + an->cycle_duration);
    }
}

#define LOCO_LOOP_MAX 3.0 /* s: the longest clip taken whole as a loop (analyse) */

/* The clip's cycle (when find_cycle: its best one) analysed into *an. */
static bool analyse(const sk_skeleton *skel, const sk_clip *clip, const sk_leg_desc *legs, uint32_t n,
                    bool find_cycle, bool loop_ok, sk_motion_analysis_options *ao, sk_motion_analysis **an,
                    sk_error *err) {
    if (find_cycle) {
        sk_result r = sk_motion_find_cycle(skel, clip, legs, n, 0, NULL, &ao->cycle_start, &ao->cycle_end, err);
        /* loop_ok (a clip that is not a capture): when no cycle comes back inside it, it is a loop
         * of one cycle (as the mannequin's clips are), analysed whole, if no longer than a gait
         * cycle can be */
        if (r != SK_OK && !(loop_ok && r == SK_ERR_INVALID_DATA && sk_clip_duration(clip) <= LOCO_LOOP_MAX))
            return false;
        if (r != SK_OK) ao->cycle_start = ao->cycle_end = 0;
    }
    return sk_motion_analyze(skel, clip, legs, n, ao, NULL, an, err) == SK_OK;
}

/* Arms by common names: upperarm_l / LeftArm / mixamorig:LeftArm, then
 * its child (forearm) and grandchild (hand). */
uint32_t loco_find_arms(const sk_skeleton *s, sk_arm_desc *out) {
    static const char *const names[2][3] = {{"upperarm_l", "LeftArm", "mixamorig:LeftArm"},
                                            {"upperarm_r", "RightArm", "mixamorig:RightArm"}};
    uint32_t n = 0;
    for (int side = 0; side < 2; side++) {
        int32_t sh = -1;
        for (int k = 0; k < 3 && sh < 0; k++) sh = sk_skeleton_find(s, names[side][k]);
        if (sh < 0) break;
        int32_t el = -1, ha = -1;
        for (uint32_t j = (uint32_t)sh + 1; j < s->joint_count && el < 0; j++)
            if (s->parents[j] == sh) el = (int32_t)j;
        for (uint32_t j = el >= 0 ? (uint32_t)el + 1 : s->joint_count; j < s->joint_count && ha < 0; j++)
            if (s->parents[j] == el) ha = (int32_t)j;
        if (el < 0 || ha < 0) break;
        out[n++] = (sk_arm_desc){sh, el, ha};
    }
    return n == 2 ? 2 : 0;
}

/* A creature: the N-legged walker in the setup's gait. */
static bool loco_creature_create(const loco_setup *s, loco_char *c) {
    sk_error err = {0};
    const sk_skeleton *skel = c->asset->skeleton;
    int kind = sk_creature_kind_of(skel);
    sk_legged_gait_kind gait = s->gait > 0 ? (sk_legged_gait_kind)(s->gait - 1)
                               : kind == SK_CREATURE_HEXAPOD ? SK_LEGGED_GAIT_ALTERNATE : SK_LEGGED_GAIT_WAVE;
    sk_legged_desc d;
    memset(&d, 0, sizeof d);
    sk_creature_leg legs[SK_LEGGED_MAX_LEGS];
    d.skeleton = skel;
    d.leg_count = sk_creature_legs(skel, &d.body_joint, legs, SK_LEGGED_MAX_LEGS);
    for (uint32_t l = 0; l < d.leg_count; l++)
        d.legs[l] = (sk_legged_leg){legs[l].hip, legs[l].knee, legs[l].foot, legs[l].foot_radius};
    if (sk_legged_gait(gait, d.leg_count, d.phase, &d.duty, &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s: %s\n", s->character, err.message);
        return false;
    }
    if (s->terrain) d.terrain = *s->terrain;
    c->terrain = s->terrain;
    if (sk_legged_create(&d, NULL, &c->legged, &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s\n", err.message);
        return false;
    }
    c->leg_count = d.leg_count;
    for (uint32_t l = 0; l < d.leg_count; l++) {
        c->legs[l].hip = d.legs[l].hip, c->legs[l].knee = d.legs[l].knee, c->legs[l].ankle = d.legs[l].foot;
        snprintf(c->legs[l].name, sizeof c->legs[l].name, "leg %u", l);
    }
    c->local = calloc(skel->joint_count, sizeof *c->local);
    if (!c->local) {
        fprintf(stderr, "skelanim: out of memory\n");
        return false;
    }
    return true;
}

bool loco_setup_from(loco_setup *s, const char *const *from, uint32_t nfrom, const char *const *rev, uint32_t nrev,
                     double scale, bool scale_given, bool procedural, const char *prefix) {
    if (nfrom + nrev > LOCO_MAX_CLIPS) {
        fprintf(stderr, "skelanim: %s%u clips from --from and --from-reversed; at most %u\n", prefix, nfrom + nrev,
                LOCO_MAX_CLIPS);
        return false;
    }
    if (nfrom + nrev && procedural) {
        fprintf(stderr, "skelanim: %s--from and --from-reversed give clips; --procedural walks without clips\n", prefix);
        return false;
    }
    if (scale_given && !nfrom && !nrev) {
        fprintf(stderr, "skelanim: %s--from-scale goes with --from or --from-reversed\n", prefix);
        return false;
    }
    for (uint32_t i = 0; i < nfrom; i++) s->from_reversed[s->nfrom] = false, s->from[s->nfrom++] = from[i];
    for (uint32_t i = 0; i < nrev; i++) s->from_reversed[s->nfrom] = true, s->from[s->nfrom++] = rev[i];
    s->from_scale = scale;
    return true;
}

bool loco_char_create(const loco_setup *s, loco_char *c) {
    memset(c, 0, sizeof *c);
    loco_from_info fi; /* a --from clip's; its source is released at every exit */
    memset(&fi, 0, sizeof fi);
    c->jump_at = -1;
    c->push_at = -1;
    sk_error err = {0};
    if (!cli_load_scaled(s->character, s->scale, &c->asset)) return false;
    const sk_skeleton *skel = c->asset->skeleton;
    if (!skel || skel->joint_count == 0) {
        fprintf(stderr, "skelanim: %s: no skeleton\n", s->character);
        goto fail;
    }
    if (sk_creature_kind_of(skel) >= 0) return loco_creature_create(s, c) || (loco_char_destroy(c), false);
    c->leg_count = cli_legs_find(skel, c->legs, 2);
    if (c->leg_count < 2) {
        fprintf(stderr, "skelanim: %s: found %u leg(s) by joint name; two are needed\n", s->character, c->leg_count);
        goto fail;
    }
    sk_leg_points_source psrc[SK_MOTION_GROUP_MAX_LEGS];
    if (sk_leg_points_from_mesh(c->asset, c->legs, c->leg_count, NULL, psrc, &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s: %s\n", s->character, err.message);
        goto fail;
    }
    if (s->procedural) {
        sk_procedural_desc pd = {0};
        pd.skeleton = skel;
        pd.legs[0] = c->legs[0];
        pd.legs[1] = c->legs[1];
        pd.arm_count = loco_find_arms(skel, pd.arms);
        pd.hip_rise = (float)s->hip_rise, pd.step_frequency = (float)s->step_frequency;
        pd.rest_step_width = (float)s->rest_width, pd.rest_step_ahead = (float)s->rest_ahead;
        pd.body_joint = -1;
        if (s->terrain) pd.terrain = *s->terrain;
        c->terrain = s->terrain;
        /* The mannequin's anatomical leg limits are not applied (the gait
         * stays inside them: docs/procedural.md), its arm limits are (for
         * pointing); every frame is checked against both
         * (loco_metrics.limit_outside). Another character: none. */
        c->limits = calloc(skel->joint_count, sizeof *c->limits);
        c->arm_limits = calloc(skel->joint_count, sizeof *c->arm_limits);
        if (!c->limits || !c->arm_limits || sk_mannequin_leg_limits(skel, c->limits, skel->joint_count, NULL) != SK_OK ||
            sk_mannequin_arm_limits(skel, c->arm_limits, skel->joint_count, NULL) != SK_OK) {
            free(c->limits);
            free(c->arm_limits);
            c->limits = c->arm_limits = NULL;
        } else { /* the walker applies the arms' (pointing); every frame is checked against both */
            for (uint32_t j = 0; j < skel->joint_count; j++)
                if (c->arm_limits[j].type != SK_IK_LIMIT_NONE) c->limits[j] = c->arm_limits[j];
            pd.limits = c->arm_limits;
        }
        if (sk_procedural_create(&pd, NULL, &c->proc, &err) != SK_OK) {
            fprintf(stderr, "skelanim: %s\n", err.message);
            goto fail;
        }
        goto buffers;
    }
    const char *defaults[2] = {"walk", "run"};
    uint32_t own = s->nclips ? s->nclips : s->nfrom ? 0 : 2, n = own + s->nfrom;
    if (n > LOCO_MAX_CLIPS) {
        fprintf(stderr, "skelanim: %u clips (--clips and --from); at most %u\n", n, LOCO_MAX_CLIPS);
        goto fail;
    }
    if (s->from_scale != 0.0) { /* the .bvh sources' scale: there must be one */
        bool any = false;
        for (uint32_t i = 0; i < s->nfrom; i++) any |= loco_from_is_bvh(s->from[i]);
        if (!any) {
            fprintf(stderr, "skelanim: --from-scale applies to .bvh files only, and no --from file is one\n");
            goto fail;
        }
    }
    double t0 = cli_now();
    for (uint32_t i = 0; i < n; i++) {
        const char *spec = i >= own ? s->from[i - own] : s->nclips ? s->clips[i] : defaults[i];
        const sk_clip *clip = NULL;
        sk_clip *raw = NULL; /* a capture as retargeted, until its levelled feet analyse */
        if (i >= own) { /* a capture from another file: retargeted, not a loop */
            if (!loco_from_clip(spec, s->from_scale, c->asset, s->from_reversed[i - own], &c->owned[c->nclips], &fi))
                goto fail;
            /* Its planted feet turned flat on the character's soles (the two
             * rest poses hold the foot at different angles: footlevel.h). */
            sk_clip *level = NULL;
            if (sk_foot_level(skel, c->owned[c->nclips], c->legs, c->leg_count, NULL, NULL, &level, NULL, &err) !=
                SK_OK) {
                fprintf(stderr, "skelanim: --from %s: %s\n", spec, err.message);
                goto fail;
            }
            raw = c->owned[c->nclips];
            c->owned[c->nclips] = level;
            clip = c->owned[c->nclips];
        } else {
            int32_t ci = s->nclips ? cli_find_clip(c->asset, spec) : find_clip_quiet(c->asset, spec);
            if (ci < 0) {
                if (!s->nclips)
                    fprintf(stderr, "skelanim: %s has no clip \"%s\" (give --clips or --from)\n", s->character, spec);
                goto fail;
            }
            clip = c->asset->clips[ci];
        }
        sk_motion_analysis_options ao = {0};
        bool reversed = i >= own && s->from_reversed[i - own];
        ao.backward = reversed;
        ao.still_band = i >= own ? SK_STILL_BAND_RETARGETED : 0.0f; /* a retargeted planted ankle creeps more */
        bool loop_ok = i >= own && !loco_from_is_bvh(spec); /* a --from clip that is not a capture file */
        bool analysed = analyse(skel, clip, c->legs, c->leg_count, s->find_cycle || i >= own, loop_ok, &ao, &c->an[c->nclips],
                                &err);
        if (!analysed && raw) { /* the levelled clip does not analyse: the capture as retargeted */
            char why[sizeof err.message];
            snprintf(why, sizeof why, "%s", err.message);
            sk_clip_destroy(c->owned[c->nclips]);
            c->owned[c->nclips] = raw;
            raw = NULL;
            clip = c->owned[c->nclips];
            analysed = analyse(skel, clip, c->legs, c->leg_count, true, loop_ok, &ao, &c->an[c->nclips], &err);
            if (analysed) /* said only when it walks: else the error below says why */
                fprintf(stderr, "skelanim: warning: --from %s: with its feet levelled the clip does not analyse (%s); "
                                "it walks as retargeted\n", spec, why);
        }
        sk_clip_destroy(raw);
        /* a capture's cycle turned to travel along its body's nearest axis: a forward walk along +Z */
        if (analysed && i >= own && face_forward(spec, skel, &c->owned[c->nclips], &c->an[c->nclips], c->legs,
                                                 c->leg_count, &ao, &c->turned_deg[c->nclips]))
            clip = c->owned[c->nclips];
        c->clips[c->nclips] = clip;
        snprintf(c->label[c->nclips], sizeof c->label[c->nclips], "%s%s", sk_clip_name(clip), reversed ? " reversed" : "");
        if (!analysed) {
            fprintf(stderr, "skelanim: clip \"%s\": %s\n", spec, err.message);
            goto fail;
        }
        /* Heel and toe points found at rest (from a bone mesh or a bare skeleton) may not
         * touch the ground together: the heel is lowered or raised (in the
         * world, at the first clip's stance) to the toe's lowest height, and
         * the clip analysed again. */
        uint32_t moved = 0;
        if (c->nclips == 0 &&
            sk_leg_heels_to_ground(skel, clip, c->an[0], c->legs, c->leg_count, psrc, NULL, &moved, &err) == SK_OK &&
            moved) {
            sk_motion_analysis_destroy(c->an[0]);
            c->an[0] = NULL;
            if (sk_motion_analyze(skel, clip, c->legs, c->leg_count, &ao, NULL, &c->an[0], &err) != SK_OK) {
                fprintf(stderr, "skelanim: clip \"%s\": %s\n", spec, err.message);
                goto fail;
            }
        }
        /* A capture's feet stand flat longer on its own skeleton than
         * retargeted (docs/locomotion.md, "Planted as on the source"). */
        if (fi.source) loco_from_widen(&fi, spec, c->an[c->nclips]);
        loco_from_release(&fi);
        warn_unplanted(spec, c->an[c->nclips]);
        c->nclips++;
    }
    c->analysis_ms = (cli_now() - t0) * 1e3;
    if (sk_motion_group_create((const sk_motion_analysis *const *)c->an, c->nclips, NULL, &c->group, &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s\n", err.message);
        goto fail;
    }
    int32_t idle = s->idle ? cli_find_clip(c->asset, s->idle) : find_clip_quiet(c->asset, "idle");
    if (s->idle && idle < 0) goto fail;
    sk_locomotor_desc d = {0};
    d.skeleton = skel;
    d.group = c->group;
    d.clips = c->clips;
    d.clip_count = c->nclips;
    d.idle = idle >= 0 ? c->asset->clips[idle] : NULL;
    d.body_joint = -1;
    d.plain = s->plain;
    if (s->terrain) d.terrain = *s->terrain;
    c->terrain = s->terrain;
    c->desc = d;
    if (sk_locomotor_create(&d, NULL, &c->loco, &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s\n", err.message);
        goto fail;
    }
    /* The state machine decides idle / locomotion: the built-in one when the
     * character has an idle clip, unless another is given or "none". */
    const char *graph = s->graph ? s->graph : (idle >= 0 ? LOCO_GRAPH_BUILTIN : NULL);
    if (graph && !strcmp(graph, "none")) graph = NULL;
    if (graph && !s->plain && !loco_graph_create(c, graph)) goto fail;
buffers:
    c->local = calloc(skel->joint_count, sizeof *c->local);
    if (!c->local) {
        fprintf(stderr, "skelanim: out of memory\n");
        goto fail;
    }
    return true;
fail:
    loco_from_release(&fi);
    loco_char_destroy(c);
    return false;
}

void loco_char_destroy(loco_char *c) {
    sk_graph_instance_destroy(c->gi);
    sk_graph_destroy(c->graph);
    sk_locomotor_destroy(c->loco);
    sk_procedural_destroy(c->proc);
    sk_legged_destroy(c->legged);
    free(c->limits);
    free(c->arm_limits);
    sk_motion_group_destroy(c->group);
    for (uint32_t i = 0; i < LOCO_MAX_CLIPS; i++) sk_motion_analysis_destroy(c->an[i]);
    for (uint32_t i = 0; i < LOCO_MAX_CLIPS; i++) sk_clip_destroy(c->owned[i]);
    free(c->local);
    sk_asset_destroy(c->asset);
    memset(c, 0, sizeof *c);
}

const char loco_builtin_graph[] =
    "{\"parameters\": [{\"name\": \"speed\", \"type\": \"float\", \"default\": 0},\n"
    "                {\"name\": \"standing\", \"type\": \"bool\", \"default\": true}],\n"
    " \"machine\": {\"initial\": \"idle\",\n"
    "  \"states\": [{\"name\": \"idle\", \"clip\": \"idle\"},\n"
    "             {\"name\": \"locomotion\", \"external\": \"locomotion\"}],\n"
    "  \"transitions\": [\n"
    "   {\"from\": \"idle\", \"to\": \"locomotion\", \"duration\": 0.2, \"curve\": \"smoothstep\",\n"
    "    \"conditions\": [{\"param\": \"speed\", \"op\": \">\", \"value\": 0.1}]},\n"
    "   {\"from\": \"locomotion\", \"to\": \"idle\", \"duration\": 0.2, \"curve\": \"smoothstep\",\n"
    "    \"conditions\": [{\"param\": \"speed\", \"op\": \"<=\", \"value\": 0.1},\n"
    "                   {\"param\": \"standing\", \"value\": true}]}]}}\n";

/* The external state's pose: the locomotor's blended clips. */
static sk_result loco_graph_source(void *user, const char *source, sk_pose *out, sk_error *err) {
    loco_char *c = user;
    if (strcmp(source, "locomotion"))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "no pose source named '%s' (the locomotor is 'locomotion')",
                            source);
    return sk_locomotor_sample(c->loco, out, err);
}

bool loco_graph_create(loco_char *c, const char *spec) {
    sk_error err = {0};
    const sk_asset *a = c->asset;
    sk_result r = !strcmp(spec, LOCO_GRAPH_BUILTIN)
                      ? sk_graph_load_json(loco_builtin_graph, strlen(loco_builtin_graph), a->skeleton, a->clips,
                                           a->clip_count, NULL, &c->graph, &err)
                      : sk_graph_load_file(spec, a->skeleton, a->clips, a->clip_count, NULL, NULL, &c->graph, &err);
    if (r == SK_OK && sk_graph_source_count(c->graph, "locomotion") == 0)
        r = sk_error_set(&err, SK_ERR_INVALID_ARGUMENT,
                         "no state takes its pose from the locomotor (add one with \"external\": \"locomotion\")");
    if (r == SK_OK) r = sk_graph_instance_create(c->graph, NULL, &c->gi, &err);
    if (r != SK_OK) {
        if (!strcmp(spec, LOCO_GRAPH_BUILTIN) || strncmp(err.message, spec, strlen(spec)))
            fprintf(stderr, "skelanim: --graph %s: %s\n", spec, err.message);
        else /* the loader's message starts with the file name */
            fprintf(stderr, "skelanim: --graph: %s\n", err.message);
        return false;
    }
    sk_graph_set_pose_source(c->gi, loco_graph_source, c);
    c->gp_speed = sk_graph_find_param(c->graph, "speed");
    c->gp_standing = sk_graph_find_param(c->graph, "standing");
    if (c->gp_speed >= 0 && sk_graph_param_type(c->graph, (uint32_t)c->gp_speed) != SK_PARAM_FLOAT) c->gp_speed = -1;
    if (c->gp_standing >= 0 && sk_graph_param_type(c->graph, (uint32_t)c->gp_standing) != SK_PARAM_BOOL)
        c->gp_standing = -1;
    return true;
}

/* One locomotor frame through the state machine: advance (tracker, phase);
 * the machine's parameters from the tracker and the locomotor's mode; the
 * machine's update; the locomotion state's weight as the group weight; the
 * machine's pose (idle and the locomotor's clips, crossfaded); adjust. */
static sk_result loco_graph_step(loco_char *c, double dt, float x, float z, float yaw, sk_pose *pose, sk_error *err) {
    sk_result r = sk_locomotor_advance(c->loco, dt, x, z, yaw, err);
    if (r != SK_OK) return r;
    const sk_locomotor_state *st = sk_locomotor_get_state(c->loco);
    if (c->gp_speed >= 0)
        sk_graph_set_param(c->gi, (uint32_t)c->gp_speed, hypotf(st->velocity.x, st->velocity.z));
    if (c->gp_standing >= 0)
        sk_graph_set_param(c->gi, (uint32_t)c->gp_standing, st->mode == SK_LOCOMOTION_STANDING ? 1.0f : 0.0f);
    sk_graph_update(c->gi, dt);
    sk_locomotor_set_group_weight(c->loco, sk_graph_source_weight(c->gi, "locomotion"));
    r = sk_graph_evaluate(c->gi, pose, err);
    return r == SK_OK ? sk_locomotor_adjust(c->loco, pose, err) : r;
}

bool loco_char_step(loco_char *c, double dt, float x, float z, float yaw) {
    sk_error err = {0};
    const sk_skeleton *skel = c->asset->skeleton;
    sk_pose pose = sk_pose_view(c->local, skel->joint_count, NULL, 0);
    sk_result r;
    /* the world matrices are the runtime's: it computed them placing the
     * feet (no forward kinematics of our own) */
    if (c->legged) {
        r = sk_legged_update(c->legged, dt, x, z, yaw, &pose, &err);
        c->world = sk_legged_model(c->legged);
    } else if (c->proc) {
        r = sk_procedural_update(c->proc, dt, x, z, yaw, &pose, &err);
        c->world = sk_procedural_model(c->proc);
    } else if (c->gi) {
        r = loco_graph_step(c, dt, x, z, yaw, &pose, &err);
        c->world = sk_locomotor_model(c->loco);
    } else {
        r = sk_locomotor_update(c->loco, dt, x, z, yaw, &pose, &err);
        c->world = sk_locomotor_model(c->loco);
    }
    if (r == SK_OK && !c->world) r = sk_error_set(&err, SK_ERR_INVALID_ARGUMENT, "no model matrices after the update");
    if (r != SK_OK) {
        fprintf(stderr, "skelanim: locomotion: %s\n", err.message);
        return false;
    }
    return true;
}

void loco_char_feet(const loco_char *c, loco_feet *out) {
    memset(out, 0, sizeof *out);
    if (c->legged) {
        const sk_legged_state *st = sk_legged_get_state(c->legged);
        out->legs = st->leg_count;
        out->root = st->position;
        out->moving = st->walking && hypotf(st->velocity.x, st->velocity.z) > 0.1f;
        for (uint32_t l = 0; l < st->leg_count; l++) {
            const sk_legged_foot *f = &st->feet[l];
            /* a ball foot: heel and toe are its contact point */
            out->f[l].heel = out->f[l].toe = f->contact;
            const float *m = c->world ? c->world[c->legs[l].ankle].m : NULL; /* the foot joint */
            out->f[l].ankle = m ? sk_vec3_make(m[12], m[13], m[14]) : f->contact;
            out->f[l].stance = f->planted;
            out->f[l].reached = f->reached;
            out->f[l].event = f->event;
        }
        return;
    }
    if (c->proc) {
        const sk_procedural_state *st = sk_procedural_get_state(c->proc);
        out->legs = 2;
        out->root = st->position;
        out->moving = st->mode == SK_PROCEDURAL_WALKING && st->speed > 0.3f;
        for (uint32_t l = 0; l < 2; l++) {
            const sk_procedural_foot *f = &st->feet[l];
            out->f[l].heel = f->heel, out->f[l].toe = f->toe, out->f[l].ankle = f->ankle;
            out->f[l].stance = f->stance && st->mode != SK_PROCEDURAL_AIRBORNE;
            out->f[l].reached = f->reached;
            out->f[l].event = f->event;
        }
        return;
    }
    const sk_locomotor_state *st = sk_locomotor_get_state(c->loco);
    out->legs = st->leg_count;
    out->root = st->position;
    out->moving = st->moving > 0.99f;
    for (uint32_t l = 0; l < st->leg_count; l++) {
        const sk_locomotor_foot *f = &st->feet[l];
        out->f[l].heel = f->heel, out->f[l].toe = f->toe, out->f[l].ankle = f->ankle;
        out->f[l].stance = f->stance, out->f[l].reached = f->reached;
        out->f[l].event = f->event;
    }
}

const char *loco_char_leg_name(const loco_char *c, uint32_t l) {
    if (c->an[0]) return c->an[0]->legs[l].name;
    return c->legs[l].name[0] ? c->legs[l].name : (l ? "right" : "left");
}

void loco_metrics_init(loco_metrics *m, uint32_t legs) {
    memset(m, 0, sizeof *m);
    m->legs = legs;
}

static bool ground_y(const sk_terrain *t, sk_vec3 p, float *y) {
    if (!t || !t->raycast) {
        *y = 0;
        return true;
    }
    sk_terrain_hit h;
    if (sk_terrain_height(t, p.x, p.z, p.y + 2.0f, 50.0f, &h)) {
        *y = h.point.y;
        return true;
    }
    /* No ground within 2 m above to 48 m below the point: either a drop, or
     * the point is inside the terrain (a wall, a step higher than a leg: the
     * ray starts under the surface). Looked at from far above, a surface
     * over the point is ground the foot is buried in. */
    if (sk_terrain_height(t, p.x, p.z, p.y + 1e5f, 2e5f, &h) && h.point.y > p.y) {
        *y = h.point.y;
        return true;
    }
    return false;
}

static void close_run(loco_metrics *m, uint32_t l) {
    if (!m->in_run[l]) return;
    m->in_run[l] = false;
    m->runs++;
    m->slide_sum += m->run_max[l];
    if (m->run_max[l] > m->slide_max) m->slide_max = m->run_max[l];
}

void loco_metrics_add(loco_metrics *m, const sk_terrain *terrain, const loco_feet *st) {
    m->frames++;
    bool moving = st->moving;
    m->moving_frames += moving;
    for (uint32_t l = 0; l < m->legs && l < st->legs; l++) {
        const loco_foot *f = &st->f[l];
        float gh = 0, gt = 0;
        bool hh = ground_y(terrain, f->heel, &gh), ht = ground_y(terrain, f->toe, &gt);
        double pen = 0;
        if (hh && gh - f->heel.y > pen) pen = gh - f->heel.y;
        if (ht && gt - f->toe.y > pen) pen = gt - f->toe.y;
        if (pen > m->penetration_max) m->penetration_max = pen;
        if (m->dt > 0 && hh && ht) { /* skate: the lower point, near the ground and moving */
            bool heel = f->heel.y - gh <= f->toe.y - gt;
            sk_vec3 p = heel ? f->heel : f->toe, q = heel ? m->prev_heel[l] : m->prev_toe[l];
            if ((heel ? f->heel.y - gh : f->toe.y - gt) < 0.02f && m->have_prev[l]) {
                m->skate_low++;
                m->skate_fast += hypot(p.x - q.x, p.z - q.z) > 0.30 * m->dt;
            }
            m->have_prev[l] = true, m->prev_heel[l] = f->heel, m->prev_toe[l] = f->toe;
        }
        sk_vec3 mid = sk_vec3_scale(sk_vec3_add(f->heel, f->toe), 0.5f);
        if (f->stance) {
            m->stance_frames[l]++;
            m->moving_stance[l] += moving;
            /* a stance foot under the ground (buried in a wall) did not reach it either */
            if (!f->reached || pen > 0.05) m->unreached++;
            double c = INFINITY;
            if (hh) c = fabs(f->heel.y - gh);
            if (ht && fabs(f->toe.y - gt) < c) c = fabs(f->toe.y - gt);
            if (isfinite(c)) {
                m->contact_sum += c;
                m->contact_n++;
                if (c > m->contact_max) m->contact_max = c;
            }
            if (hh && ht) {
                double dh = fabs(f->heel.y - gh), dt = fabs(f->toe.y - gt), far = dh > dt ? dh : dt;
                if (far > m->far_max) m->far_max = far;
                if (far > 0.02) {
                    m->off_flat++;
                    if (dt < 0.01 && f->heel.y - gh > dt) m->off_flat_ball++;
                    else if (dh < 0.01 && f->toe.y - gt > dh) m->off_flat_heel++;
                }
            }
            if (!m->in_run[l]) {
                m->in_run[l] = true;
                m->run_start[l] = mid;
                m->run_max[l] = 0;
            } else {
                double d = hypot(mid.x - m->run_start[l].x, mid.z - m->run_start[l].z);
                if (d > m->run_max[l]) m->run_max[l] = d;
            }
        } else {
            close_run(m, l);
        }
    }
}

void loco_metrics_finish(loco_metrics *m) {
    for (uint32_t l = 0; l < m->legs; l++) close_run(m, l);
}

bool loco_char_reset(loco_char *c, float x, float z, float yaw) {
    sk_error err = {0};
    sk_result r = c->legged ? sk_legged_reset(c->legged, x, z, yaw, &err)
                  : c->proc ? sk_procedural_reset(c->proc, x, z, yaw, &err)
                            : sk_locomotor_reset(c->loco, x, z, yaw, &err);
    if (r != SK_OK) {
        fprintf(stderr, "skelanim: locomotion: %s\n", err.message);
        return false;
    }
    return true;
}

void loco_metrics_frame(loco_metrics *m, const loco_char *c) {
    loco_feet ft;
    loco_char_feet(c, &ft);
    loco_metrics_add(m, c->terrain, &ft);
    if (c->loco && !c->legged && !c->proc && c->world) {
        const float *bm = c->world[sk_locomotor_body_joint(c->loco)].m;
        float low = INFINITY, low_all = INFINITY;
        for (uint32_t l = 0; l < ft.legs; l++) {
            float y = fminf(ft.f[l].heel.y, ft.f[l].toe.y);
            low_all = fminf(low_all, y);
            if (ft.f[l].stance) low = fminf(low, y);
        }
        if (!m->body_set && isfinite(low_all) && bm[13] > low_all) {
            m->body_ref = bm[13] - low_all;
            m->body_low = 1.0;
            m->body_set = true;
        }
        if (m->body_set && isfinite(low)) m->body_low = fmin(m->body_low, (bm[13] - low) / m->body_ref);
    }
    if (c->legged) {
        const sk_legged_state *st = sk_legged_get_state(c->legged);
        if (!m->legged || st->clearance < m->clearance_min) m->clearance_min = st->clearance;
        if (!m->legged || (st->walking && st->planted < m->planted_min)) m->planted_min = st->planted;
        m->gait_min = st->min_planted;
        m->legged = true;
    }
    if (c->limits) {
        const sk_skeleton *skel = c->asset->skeleton;
        bool inside = true;
        for (uint32_t j = 0; j < skel->joint_count && inside; j++) {
            if (c->limits[j].type == SK_IK_LIMIT_NONE) continue;
            sk_quat rel = sk_quat_mul(sk_quat_inverse(skel->rest[j].r), c->local[j].r);
            inside = sk_ik_limit_check(&c->limits[j], sk_vec3_make(0, 1, 0), rel, 1e-3f);
        }
        m->limit_outside += !inside;
    }
}

bool loco_run_path(loco_char *c, const char *path, double speed, double turn_deg, double fps, double seconds,
                   loco_metrics *m, loco_frame_fn frame, void *user, bool *finished) {
    float pts[2 * SK_PATH_MAX_POINTS];
    sk_error err = {0};
    uint32_t np = sk_path_parse(path, pts, SK_PATH_MAX_POINTS, &err);
    if (!np) {
        fprintf(stderr, "skelanim: --path: %s\n", err.message);
        return false;
    }
    sk_path_follower pf;
    sk_path_follower_desc pd = {pts, np, (float)speed, (float)(turn_deg * M_PI / 180.0), 0, 0, NAN, false};
    if (sk_path_follower_init(&pf, &pd, &err) != SK_OK) {
        fprintf(stderr, "skelanim: --path: %s\n", err.message);
        return false;
    }
    float back = (c->proc && c->backward ? (float)M_PI : 0.0f) - c->face; /* body yaw = path yaw - face */
    if (!loco_char_reset(c, pf.x, pf.z, pf.yaw + back)) return false;
    if (c->proc && c->crouch > 0) sk_procedural_crouch(c->proc, (float)c->crouch);
    if (c->proc && c->look && !sk_procedural_look_at(c->proc, &c->look_at, 1.0f)) {
        fprintf(stderr, "skelanim: --look: the character has no spine-to-head chain to look with\n");
        return false;
    }
    if (c->proc && c->point) {
        uint32_t arm = 0;
        const sk_skeleton *skel = c->asset->skeleton;
        sk_arm_desc arms[2];
        if (loco_find_arms(skel, arms) == 2) arm = 1; /* the right arm */
        if (!sk_procedural_point_at(c->proc, arm, &c->point_at, 1.0f)) {
            fprintf(stderr, "skelanim: --point: the character has no arm to point with\n");
            return false;
        }
    }
    loco_metrics_init(m, c->leg_count);
    double dt = 1.0 / fps, t = 0, finished_at = -1;
    m->dt = dt;
    double total = seconds > 0 ? seconds : fmin(sk_path_follower_length(&pf) / speed * 1.6 + 4.0, 600.0);
    uint32_t steps = (uint32_t)ceil(total / dt);
    bool jumped = false, pushed = false;
    for (uint32_t k = 0; k < steps; k++) {
        sk_path_follower_step(&pf, dt);
        t += dt;
        if (c->proc && !jumped && c->jump_at >= 0 && t >= c->jump_at) jumped = sk_procedural_jump(c->proc);
        if (c->proc && !pushed && c->push_at >= 0 && t >= c->push_at) pushed = sk_procedural_push(c->proc, c->push_dv);
        if (!loco_char_step(c, dt, pf.x, pf.z, pf.yaw + back)) return false;
        loco_metrics_frame(m, c);
        if (frame && !frame(user, c, t)) return false;
        if (pf.finished && finished_at < 0) finished_at = t;
        if (seconds <= 0 && finished_at >= 0 && t >= finished_at + 1.0) break;
    }
    loco_metrics_finish(m);
    m->path_length = sk_path_follower_length(&pf);
    m->path_walked = pf.finished ? m->path_length : pf.progress;
    m->run_seconds = total;
    m->jumped = jumped;
    if (finished) *finished = pf.finished;
    return true;
}
