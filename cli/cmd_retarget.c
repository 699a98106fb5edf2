/* skelanim retarget SOURCE TARGET [--clip C] [--map map.json] [--no-contacts] [--no-level] -o OUT.glb:
 * the target character with the source's clips retargeted onto it (its
 * planted feet levelled, and kept planted over the source's foot contacts). */
#include "cli.h"
#include "retarget_run.h"

#include <stdlib.h>
#include <string.h>

typedef struct retarget_args {
    const char *source, *target, *out, *map;
    cli_list clips;
    double scale;
    bool no_contacts, no_level, level_each, json, hands;
} retarget_args;

static void write_warning(void *user, const char *message) {
    fprintf(stderr, "skelanim: warning: %s: %s\n", (const char *)user, message);
}

/* The output's name for a retargeted clip: the source clip's, or NAME.retargeted when the target has one already. */
static const char *clip_name(const sk_asset *target, const sk_clip *c, char *buf, size_t cap) {
    const char *name = sk_clip_name(c);
    if (sk_asset_find_clip(target, name) < 0) return name;
    snprintf(buf, cap, "%s.retargeted", name);
    return buf;
}

/* c renamed (a clip's name is fixed when it is built): its tracks copied into a new clip. */
static sk_result rename_clip(const sk_clip *c, const char *name, sk_clip **out, sk_error *err) {
    sk_clip_builder *b = NULL;
    sk_result r = sk_clip_builder_create(name, NULL, &b, err);
    for (uint32_t i = 0; r == SK_OK && i < sk_clip_track_count(c); i++) {
        sk_track_info info;
        sk_clip_track_info(c, i, &info);
        size_t per = info.interpolation == SK_INTERP_CUBICSPLINE ? 3 : 1;
        float *t = malloc(info.key_count * sizeof *t + 4), *v = malloc(info.key_count * info.width * per * sizeof *v + 4);
        if (!t || !v) r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
        if (r == SK_OK) {
            sk_clip_track_keys(c, i, t, v);
            sk_track_desc d = {info.joint, info.path, info.interpolation, info.key_count, t, v, info.width};
            r = sk_clip_builder_add_track(b, &d, err);
        }
        free(t), free(v);
    }
    if (r == SK_OK) {
        sk_clip_builder_set_duration(b, sk_clip_duration(c));
        r = sk_clip_builder_finish(b, out, err); /* destroys the builder */
        b = NULL;
    }
    sk_clip_builder_destroy(b);
    return r;
}

static int cmd_retarget(int argc, char **argv) {
    retarget_args a;
    memset(&a, 0, sizeof a);
    int rc = cli_parse(&cli_cmd_retarget, argc, argv, &a, NULL);
    if (rc != CLI_CONTINUE) return rc;
    if (!cli_is_bvh(a.target) && !cli_is_bvh(a.source) && a.scale != 0.0) {
        fprintf(stderr, "skelanim: retarget: --scale applies to .bvh files only\n");
        return 1;
    }
    if (a.hands && a.no_contacts) {
        fprintf(stderr, "skelanim: retarget: --hands restores contacts, --no-contacts none: give one of them\n");
        return 1;
    }
    if (a.no_level && a.level_each) {
        fprintf(stderr, "skelanim: retarget: --no-level leaves the feet, --level-each-contact levels them: give one of them\n");
        return 1;
    }
    sk_asset *src = NULL, *dst = NULL;
    cli_retarget rt;
    memset(&rt, 0, sizeof rt);
    sk_error err = {0};
    sk_clip **baked = NULL, **all = NULL;
    cli_retarget_info *infos = NULL;
    uint32_t nbaked = 0;
    rc = 1;
    if (!cli_load_scaled(a.source, cli_is_bvh(a.source) ? a.scale : 0.0, &src) ||
        !cli_load_scaled(a.target, cli_is_bvh(a.target) ? a.scale : 0.0, &dst))
        goto done;
    if (src->clip_count == 0) {
        fprintf(stderr, "skelanim: retarget: %s has no clips to retarget\n", a.source);
        goto done;
    }
    char why[256]; /* the foot contacts' thresholds are in metres */
    const char *not_metres = NULL;
    if (a.scale == 0.0 && cli_is_bvh(a.source) && cli_not_metres(src, NULL, "--scale", why, sizeof why)) not_metres = a.source;
    else if (a.scale == 0.0 && cli_is_bvh(a.target) && cli_not_metres(dst, NULL, "--scale", why, sizeof why))
        not_metres = a.target;
    if (not_metres) {
        fprintf(stderr, "skelanim: retarget: %s: %s\n", not_metres, why);
        goto done;
    }
    if (cli_retarget_open(src, dst, a.map, &rt, &err) != SK_OK) {
        fprintf(stderr, "skelanim: retarget: %s -> %s: %s\n", a.source, a.target, err.message);
        goto done;
    }
    uint32_t want = a.clips.n ? a.clips.n : src->clip_count;
    baked = calloc(want, sizeof *baked);
    all = calloc((size_t)dst->clip_count + want, sizeof *all);
    infos = calloc(want, sizeof *infos);
    if (!baked || !all || !infos) goto done;
    cJSON *root = cJSON_CreateObject(), *list = cJSON_CreateArray();
    cJSON_AddStringToObject(root, "source", a.source);
    cJSON_AddStringToObject(root, "target", a.target);
    cJSON_AddItemToObject(root, "mapped_joints", cli_num(rt.mapped));
    cJSON_AddItemToObject(root, "target_joints", cli_num(dst->skeleton->joint_count));
    cJSON_AddItemToObject(root, "root_scale", cli_num(sk_retarget_root_scale(rt.rt)));
    cJSON_AddStringToObject(root, "source_scheme", sk_retarget_map(rt.rt, 0)->scheme);
    cJSON_AddStringToObject(root, "target_scheme", sk_retarget_map(rt.rt, 1)->scheme);
    cJSON_AddBoolToObject(root, "contacts", !a.no_contacts && rt.leg_count == 2);
    if (a.hands && rt.arm_count != 2) {
        fprintf(stderr, "skelanim: retarget: --hands: the %s has no two arms in its humanoid map\n",
                sk_retarget_map(rt.rt, 0)->joint[SK_HUMANOID_LEFT_HAND] < 0 ||
                        sk_retarget_map(rt.rt, 0)->joint[SK_HUMANOID_RIGHT_HAND] < 0 ? "source" : "target");
        cJSON_Delete(root);
        cJSON_Delete(list); /* not in root yet */
        goto done;
    }
    rt.hands = a.hands;
    rt.no_level = a.no_level;
    rt.level_each = a.level_each;
    cJSON_AddBoolToObject(root, "hand_contacts", a.hands);
    cJSON_AddBoolToObject(root, "feet_levelled", !a.no_level && rt.leg_count == 2);
    cJSON_AddBoolToObject(root, "feet_levelled_per_contact", a.level_each && rt.leg_count == 2);
    cJSON_AddItemToObject(root, "clips", list);
    for (uint32_t i = 0; i < want; i++) {
        int32_t ci = a.clips.n ? cli_find_clip(src, a.clips.v[i]) : (int32_t)i;
        if (ci < 0) {
            if (ci == -1) fprintf(stderr, "skelanim: retarget: --clip none: nothing to retarget\n");
            cJSON_Delete(root);
            goto done;
        }
        cli_retarget_info info;
        sk_clip *c = NULL;
        char name[256];
        if (cli_retarget_bake(&rt, src->clips[ci], !a.no_contacts, &c, &info, &err) != SK_OK ||
            rename_clip(c, clip_name(dst, src->clips[ci], name, sizeof name), &baked[nbaked], &err) != SK_OK) {
            fprintf(stderr, "skelanim: retarget: clip '%s': %s\n", sk_clip_name(src->clips[ci]), err.message);
            sk_clip_destroy(c);
            cJSON_Delete(root);
            goto done;
        }
        sk_clip_destroy(c);
        if (a.no_contacts) info.contacts = 0;
        infos[nbaked] = info;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", sk_clip_name(baked[nbaked]));
        cJSON_AddItemToObject(o, "duration_s", cli_num(sk_clip_duration(baked[nbaked])));
        cJSON_AddItemToObject(o, "contacts_restored", cli_num(a.no_contacts ? 0 : info.contacts));
        if (a.hands) cJSON_AddItemToObject(o, "hand_contacts_restored", cli_num(info.hand_contacts));
        cJSON_AddItemToObject(o, "pin_error_max_m", cli_num(info.max_error));
        cJSON_AddItemToObject(o, "pins_out_of_reach", cli_num(info.unreachable));
        /* keys x legs whose foot the restoration kept out of the floor, and by how much at most */
        cJSON_AddItemToObject(o, "floor_raised_keys", cli_num(info.floor_keys));
        cJSON_AddItemToObject(o, "floor_raise_max_m", cli_num(info.floor_max));
        cJSON_AddItemToObject(o, "swing_up_max_m", cli_num(info.swing_up));
        cJSON_AddItemToObject(o, "swing_down_max_m", cli_num(info.swing_down));
        cJSON *lv = cJSON_AddArrayToObject(o, "feet_level_deg"); /* the tilt turned out, left and right (0: none) */
        for (int l = 0; l < 2; l++) cJSON_AddItemToArray(lv, cli_num(info.level[l] * 57.29577951308232));
        cJSON_AddItemToArray(list, o);
        nbaked++;
    }
    /* The target with its own clips and the retargeted ones (a shallow copy: the clip list is ours). */
    for (uint32_t i = 0; i < dst->clip_count; i++) all[i] = dst->clips[i];
    for (uint32_t i = 0; i < nbaked; i++) all[dst->clip_count + i] = baked[i];
    sk_asset out = *dst;
    out.clip_count = dst->clip_count + nbaked;
    out.clips = all;
    sk_glb_write_options wo;
    memset(&wo, 0, sizeof wo);
    wo.warning = write_warning;
    wo.warning_user = (void *)a.out;
    if (!cli_make_parent_dir(a.out) || sk_glb_write_file_ex(&out, a.out, &wo, &err) != SK_OK) {
        if (err.message[0]) fprintf(stderr, "skelanim: retarget: %s\n", err.message);
        cJSON_Delete(root);
        goto done;
    }
    cJSON_AddStringToObject(root, "out", a.out);
    if (!cli_json_finite(root, "retarget")) {
        cJSON_Delete(root);
        goto done;
    }
    if (a.json) cli_put_json_line(root);
    else {
        fprintf(stderr, "retarget: %u of %u target joints mapped (%s -> %s names), root scale %.4g\n", rt.mapped,
                dst->skeleton->joint_count, sk_retarget_map(rt.rt, 0)->scheme, sk_retarget_map(rt.rt, 1)->scheme,
                (double)sk_retarget_root_scale(rt.rt));
        for (uint32_t i = 0; i < nbaked; i++) {
            fprintf(stderr, "  clip %s: %.3g s, feet levelled by %.1f / %.1f degrees, %u foot contacts%s restored (largest pin error %.3g m)",
                    sk_clip_name(baked[i]), sk_clip_duration(baked[i]), infos[i].level[0] * 57.29577951308232,
                    infos[i].level[1] * 57.29577951308232, infos[i].contacts,
                    a.hands ? (infos[i].hand_contacts ? " and hand contacts" : " (no hand contact found)") : "",
                    (double)infos[i].max_error);
            if (infos[i].floor_keys)
                fprintf(stderr, ", feet kept out of the floor in %u leg-keys (raised up to %.1f cm)", infos[i].floor_keys,
                        100.0 * infos[i].floor_max);
            if (infos[i].swing_up > 0.0f || infos[i].swing_down > 0.0f)
                fprintf(stderr, ", swings at the source's clearance (moved up to %.1f cm up, %.1f cm down)",
                        100.0 * infos[i].swing_up, 100.0 * infos[i].swing_down);
            fputc('\n', stderr);
        }
        cJSON_Delete(root);
        printf("wrote %s (%u clip%s retargeted)\n", a.out, nbaked, nbaked == 1 ? "" : "s");
    }
    rc = 0;
done:
    for (uint32_t i = 0; i < nbaked; i++) sk_clip_destroy(baked[i]);
    free(baked);
    free(all);
    free(infos);
    cli_retarget_close(&rt);
    sk_asset_destroy(src);
    sk_asset_destroy(dst);
    return rc;
}

static const cli_opt retarget_opts[] = {
    {"--out", CLI_STRING(retarget_args, out), .short_name = 'o', .flags = CLI_REQUIRED, .meta = "OUT.glb",
     .help = "the target character with its own clips and the retargeted ones"},
    {"--clip", CLI_LIST_OF(CLI_KIND_STRING, retarget_args, clips, 0), .meta = "NAME|INDEX",
     .help = "a source clip to retarget (repeat for more)", .dflt_text = "every clip"},
    {"--map", CLI_STRING(retarget_args, map), .meta = "MAP.json",
     .help = "overrides of the humanoid maps: {\"map\": {\"SOURCE_JOINT\": \"TARGET_JOINT\"}, \"source\"|\"target\": {\"BONE\": \"JOINT\"}, \"root_scale\": S}"},
    {"--no-contacts", CLI_FLAG(retarget_args, no_contacts),
     .help = "do not restore the source's foot contacts on the target (IK), nor keep its feet out of the floor, "
             "nor lift its swings by the source's clearance"},
    {"--no-level", CLI_FLAG(retarget_args, no_level),
     .help = "leave the planted feet at the angle retargeting gives them (by default turned flat where the source's feet stand)"},
    {"--level-each-contact", CLI_FLAG(retarget_args, level_each),
     .help = "level each planted foot by its own angle instead of one angle per foot: for walks and runs "
             "(standing and walking feet flat alike); a dancer's pointe is flattened too"},
    {"--hands", CLI_FLAG(retarget_args, hands),
     .help = "restore the source's hand contacts too (hand low and still: on the floor), at the hand's own height"},
    CLI_OPT_SCALE(retarget_args, scale),
    {"--json", CLI_FLAG(retarget_args, json), .help = "print the summary as one JSON line on stdout"},
};
static const cli_arg retarget_arg_list[] = {
    {"SOURCE", CLI_ARG(retarget_args, source), .flags = CLI_REQUIRED, .help = "the animated character: " CLI_FILE_HELP},
    {"TARGET", CLI_ARG(retarget_args, target), .flags = CLI_REQUIRED, .help = "the character to animate, the same kinds"},
};
static const char retarget_note[] =
    "Both skeletons get a humanoid map (hips, spine, head, arms, legs) from their joint names or, failing\n"
    "that, their shape; --map pairs override it. Each clip is baked onto the target (rest poses\n"
    "corrected, the hips' translation scaled by the ratio of leg lengths); its planted feet are turned\n"
    "flat (the two rest poses hold the foot at different angles: measured over the source's foot\n"
    "contacts, one angle per foot); then the source's foot contacts (ankle low and still) are restored\n"
    "with two-bone IK: the target's ankles stay pinned at one place on the ground per contact, and\n"
    "wherever a foot would go through the floor (a heel coming off over the ball, a swing on other\n"
    "proportions) its ankle is raised until its lowest point is on it; between contacts the swing\n"
    "clears the floor as the source's does, scaled by the ratio of leg lengths. --scale\n"
    "applies to SOURCE and TARGET when they are .bvh.\n";
static const char *const retarget_notes[] = {retarget_note, NULL};
const cli_command cli_cmd_retarget = {
    .name = "retarget",
    .run = cmd_retarget,
    .summary = "play one character's clips on another skeleton, written as a .glb",
    .opts = retarget_opts,
    .nopts = CLI_COUNT(retarget_opts),
    .args = retarget_arg_list,
    .nargs = CLI_COUNT(retarget_arg_list),
    .notes = retarget_notes,
};
