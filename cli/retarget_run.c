/* skelanim: the retargeting the commands share (retarget_run.h). */
#include "retarget_run.h"
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The legs of a humanoid map: upper leg, lower leg, foot, toes per side. */
static bool legs_of(const sk_humanoid_map *m, sk_leg_desc legs[2]) {
    static const sk_humanoid_bone bones[2][4] = {
        {SK_HUMANOID_LEFT_UPPER_LEG, SK_HUMANOID_LEFT_LOWER_LEG, SK_HUMANOID_LEFT_FOOT, SK_HUMANOID_LEFT_TOES},
        {SK_HUMANOID_RIGHT_UPPER_LEG, SK_HUMANOID_RIGHT_LOWER_LEG, SK_HUMANOID_RIGHT_FOOT, SK_HUMANOID_RIGHT_TOES}};
    if (!m) return false;
    for (int s = 0; s < 2; s++) {
        memset(&legs[s], 0, sizeof legs[s]);
        snprintf(legs[s].name, sizeof legs[s].name, "%s", s ? "right" : "left");
        legs[s].hip = m->joint[bones[s][0]], legs[s].knee = m->joint[bones[s][1]];
        legs[s].ankle = m->joint[bones[s][2]], legs[s].toe = m->joint[bones[s][3]];
        if (legs[s].hip < 0 || legs[s].knee < 0 || legs[s].ankle < 0) return false;
    }
    return true;
}


/* Model-space rest height of joint j of s under the local pose (0 for -1). */
static float rest_height(const sk_skeleton *s, const sk_transform *local, int32_t j) {
    if (j < 0) return 0.0f;
    sk_mat4 *m = calloc(s->joint_count ? s->joint_count : 1, sizeof *m);
    float y = 0.0f;
    if (m && sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, m, s->joint_count, NULL) == SK_OK) y = m[j].m[13];
    free(m);
    return y;
}

/* Mean rest height of the upper legs (the hip joints) of a map. */
static float hip_joints_height(const sk_skeleton *s, const sk_transform *local, const sk_humanoid_map *m) {
    return 0.5f * (rest_height(s, local, m->joint[SK_HUMANOID_LEFT_UPPER_LEG]) +
                   rest_height(s, local, m->joint[SK_HUMANOID_RIGHT_UPPER_LEG]));
}

/* The source's rest pose raised (by its roots) so that the target's hip
 * joints' height above the ground (y = 0) is the source's times the root
 * scale. The retargeter moves the target's hips from their rest position by
 * the source hips' displacement from theirs (times the scale), which puts
 * the target's feet above or below the ground when the source's rest pose
 * does not stand where its motion does (a .bvh rest pose has its root at
 * the origin and, for CMU, the legs spread) or when the hips joint sits
 * higher above the hip joints in one skeleton than in the other. With the
 * source's rest hip joints at the target's / scale, the target's hip
 * joints follow scale x the source's. */
static void ground_rest(const sk_retarget *rt, const sk_skeleton *src, const sk_skeleton *dst, sk_transform *local) {
    const sk_humanoid_map *sm = sk_retarget_map(rt, 0), *tm = sk_retarget_map(rt, 1);
    float k = sk_retarget_root_scale(rt);
    if (!sm || !tm || sm->joint[SK_HUMANOID_LEFT_UPPER_LEG] < 0 || sm->joint[SK_HUMANOID_RIGHT_UPPER_LEG] < 0 ||
        tm->joint[SK_HUMANOID_LEFT_UPPER_LEG] < 0 || tm->joint[SK_HUMANOID_RIGHT_UPPER_LEG] < 0 || !(k > 0.0f))
        return;
    sk_transform *tl = calloc(dst->joint_count ? dst->joint_count : 1, sizeof *tl);
    if (!tl || sk_pose_rest(dst, SK_POSE_OF(dst, tl, NULL), NULL) != SK_OK) {
        free(tl);
        return;
    }
    float shift = hip_joints_height(dst, tl, tm) / k - hip_joints_height(src, local, sm);
    free(tl);
    if (!isfinite(shift)) return;
    for (uint32_t j = 0; j < src->joint_count; j++)
        if (src->parents[j] < 0) local[j].t.y += shift;
}

sk_result cli_retarget_open(const sk_asset *source, const sk_asset *target, const char *map_path, cli_retarget *out,
                            sk_error *err) {
    memset(out, 0, sizeof *out);
    sk_retarget_desc d;
    memset(&d, 0, sizeof d);
    d.source = source->skeleton, d.target = target->skeleton;
    sk_transform *rest = calloc(d.source->joint_count ? d.source->joint_count : 1, sizeof *rest);
    if (!rest) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    sk_pose rest_pose = {rest, NULL, d.source->joint_count, 0};
    sk_retarget_map_json *map = NULL;
    sk_humanoid_map smap, tmap;
    sk_result r = sk_pose_rest(d.source, &rest_pose, err);
    if (map_path && r == SK_OK) {
        r = sk_retarget_map_json_load(map_path, NULL, NULL, &map, err);
        if (r == SK_OK) r = sk_retarget_map_json_apply(map, &d, &smap, &tmap, err);
        if (r != SK_OK && !strstr(err->message, map_path)) {
            char msg[sizeof err->message];
            snprintf(msg, sizeof msg, "%s", err->message);
            sk_error_set(err, r, "%s: %s", map_path, msg);
        }
    }
    /* Twice: the first finds the maps and the root scale the source's rest height depends on. */
    if (r == SK_OK) r = sk_retarget_create(&d, NULL, &out->rt, err);
    if (r == SK_OK) {
        ground_rest(out->rt, d.source, d.target, rest);
        sk_retarget_destroy(out->rt);
        out->rt = NULL;
        d.source_rest = &rest_pose;
        r = sk_retarget_create(&d, NULL, &out->rt, err);
    }
    sk_retarget_map_json_destroy(map);
    free(rest);
    if (r != SK_OK) return r;
    out->source = d.source, out->target = d.target;
    for (uint32_t j = 0; j < d.target->joint_count; j++) out->mapped += sk_retarget_source_of(out->rt, j) >= 0;
    if (legs_of(sk_retarget_map(out->rt, 0), out->source_legs) && legs_of(sk_retarget_map(out->rt, 1), out->target_legs))
        out->leg_count = 2;
    return SK_OK;
}

void cli_retarget_close(cli_retarget *r) {
    sk_retarget_destroy(r->rt);
    memset(r, 0, sizeof *r);
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
    if (contacts && r->leg_count == 2) {
        uint32_t n = 0;
        res = sk_contacts_find(r->source, source_clip, r->source_legs, 2, NULL, NULL, NULL, 0, &n, err);
        sk_contact *c = NULL;
        if (res == SK_ERR_LIMIT || (res == SK_OK && n > 0)) {
            c = calloc(n, sizeof *c);
            res = c ? sk_contacts_find(r->source, source_clip, r->source_legs, 2, NULL, NULL, c, n, &n, err)
                    : sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
        }
        sk_clip *restored = NULL;
        sk_contact_restore_stats st;
        memset(&st, 0, sizeof st);
        if (res == SK_OK) res = sk_contacts_restore(r->target, baked, r->target_legs, 2, c, n, NULL, NULL, &restored, &st, err);
        free(c);
        if (res != SK_OK) {
            sk_clip_destroy(baked);
            return res;
        }
        sk_clip_destroy(baked);
        baked = restored;
        in.contacts = n, in.max_error = st.max_error, in.unreachable = st.unreachable;
    }
    in.contacts_s = cli_thread_cpu_now() - t1;
    *out = baked;
    if (info) *info = in;
    return SK_OK;
}
