/* Legs of a skeleton for the motion analysis (locomotion/analysis.h): found
 * from common joint names (sk_legs_find) or read off a humanoid map
 * (sk_legs_from_humanoid, anim/retarget.h), and their heel points brought to
 * the toes' ground in a clip made for another skeleton (sk_leg_heels_to_ground). */
#include "skelanim/anim/retarget.h"
#include "skelanim/core/pose.h"
#include "skelanim/locomotion/analysis.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static char lower(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c; }

/* Lower-case copy without a namespace prefix ("mixamorig:LeftFoot" -> "leftfoot"). */
static void norm_name(const char *s, char *out, size_t cap) {
    const char *colon = strrchr(s, ':');
    if (colon) s = colon + 1;
    size_t i = 0;
    for (; s[i] && i + 1 < cap; i++) out[i] = lower(s[i]);
    out[i] = 0;
}

/* 0 left, 1 right, -1 unknown. */
static int name_side(const char *n) {
    size_t len = strlen(n);
    if (strstr(n, "left")) return 0;
    if (strstr(n, "right")) return 1;
    for (int side = 0; side < 2; side++) {
        char c = side ? 'r' : 'l';
        if (len >= 2 && n[0] == c && (n[1] == '_' || n[1] == '.' || n[1] == ' ')) return side;
        if (len >= 2 && n[len - 1] == c && (n[len - 2] == '_' || n[len - 2] == '.' || n[len - 2] == ' ')) return side;
    }
    return -1;
}

uint32_t sk_legs_find(const sk_skeleton *skel, sk_leg_desc *out, uint32_t cap) {
    if (!skel || !out) return 0;
    int32_t foot[2] = {-1, -1};
    char n[128];
    for (uint32_t j = 0; j < skel->joint_count; j++) {
        norm_name(skel->names[j], n, sizeof n);
        if (!strstr(n, "foot") && !strstr(n, "ankle")) continue;
        if (strstr(n, "toe") || strstr(n, "ball") || strstr(n, "end") || strstr(n, "index")) continue;
        int side = name_side(n);
        if (side < 0 || foot[side] >= 0) continue;
        int32_t knee = skel->parents[j];
        if (knee < 0 || skel->parents[knee] < 0) continue;
        foot[side] = (int32_t)j;
    }
    uint32_t count = 0;
    for (int side = 0; side < 2 && count < cap; side++) {
        if (foot[side] < 0) continue;
        sk_leg_desc *leg = &out[count++];
        memset(leg, 0, sizeof *leg);
        snprintf(leg->name, sizeof leg->name, "%s", side ? "right" : "left");
        leg->ankle = foot[side];
        leg->knee = skel->parents[leg->ankle];
        leg->hip = skel->parents[leg->knee];
        leg->toe = -1;
        int32_t first = -1;
        for (uint32_t c = (uint32_t)leg->ankle + 1; c < skel->joint_count; c++) {
            if (skel->parents[c] != leg->ankle) continue;
            if (first < 0) first = (int32_t)c;
            norm_name(skel->names[c], n, sizeof n);
            if (strstr(n, "toe") || strstr(n, "ball")) { leg->toe = (int32_t)c; break; }
        }
        if (leg->toe < 0) leg->toe = first;
    }
    return count;
}

uint32_t sk_legs_from_humanoid(const sk_humanoid_map *m, sk_leg_desc *out, uint32_t cap) {
    static const sk_humanoid_bone bones[2][4] = {
        {SK_HUMANOID_LEFT_UPPER_LEG, SK_HUMANOID_LEFT_LOWER_LEG, SK_HUMANOID_LEFT_FOOT, SK_HUMANOID_LEFT_TOES},
        {SK_HUMANOID_RIGHT_UPPER_LEG, SK_HUMANOID_RIGHT_LOWER_LEG, SK_HUMANOID_RIGHT_FOOT, SK_HUMANOID_RIGHT_TOES}};
    if (!m || !out || cap < 2) return 0;
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 3; k++)
            if (m->joint[bones[s][k]] < 0) return 0;
    for (int s = 0; s < 2; s++) {
        sk_leg_desc *leg = &out[s];
        memset(leg, 0, sizeof *leg);
        snprintf(leg->name, sizeof leg->name, "%s", s ? "right" : "left");
        leg->hip = m->joint[bones[s][0]], leg->knee = m->joint[bones[s][1]];
        leg->ankle = m->joint[bones[s][2]], leg->toe = m->joint[bones[s][3]] >= 0 ? m->joint[bones[s][3]] : -1;
    }
    return 2;
}

sk_result sk_leg_heels_to_ground(const sk_skeleton *skel, const sk_clip *clip, const sk_motion_analysis *an,
                                 sk_leg_desc *legs, uint32_t leg_count, const sk_leg_points_source *sources,
                                 const sk_allocator *alloc, uint32_t *changed, sk_error *err) {
    static const char who[] = "sk_leg_heels_to_ground";
    if (changed) *changed = 0;
    if (!skel || !clip || !an || !legs) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: NULL argument", who);
    if (leg_count != an->leg_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: %u legs, the analysis has %u", who, leg_count,
                            an->leg_count);
    for (uint32_t l = 0; l < leg_count; l++)
        if (legs[l].ankle < 0 || (uint32_t)legs[l].ankle >= skel->joint_count || legs[l].ankle != an->legs[l].ankle_joint)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: leg %u: ankle joint %d (the analysis': %d; %u joints)",
                                who, l, legs[l].ankle, an->legs[l].ankle_joint, skel->joint_count);
    if (!(isfinite(an->cycle_start) && isfinite(an->cycle_duration)))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: the analysis' cycle is not finite", who);
    uint32_t J = skel->joint_count, n = 0;
    size_t lsz = (size_t)J * sizeof(sk_transform), msz = (size_t)J * sizeof(sk_mat4);
    char *mem = NULL;
    sk_result r = SK_OK;
    sk_vec3 heel[SK_ANALYSIS_MAX_LEGS];
    bool moved[SK_ANALYSIS_MAX_LEGS];
    if (leg_count > SK_ANALYSIS_MAX_LEGS)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: %u legs (at most %u)", who, leg_count, SK_ANALYSIS_MAX_LEGS);
    for (uint32_t l = 0; l < leg_count; l++) {
        const sk_leg_analysis *L = &an->legs[l];
        float d = L->toe_ground - L->heel_ground;
        moved[l] = false;
        if (!(fabsf(d) >= SK_LEG_HEEL_TOLERANCE) || (sources && sources[l] == SK_LEG_POINTS_MANUAL)) continue;
        if (!mem && !(mem = sk_alloc(alloc, lsz + msz))) {
            r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", who);
            break;
        }
        sk_transform *loc = (sk_transform *)mem;
        sk_mat4 *model = (sk_mat4 *)(mem + lsz);
        double k = an->backward ? 1.0 - L->stance_time : L->stance_time;
        double t = an->cycle_start + k * an->cycle_duration;
        sk_pose pose = sk_pose_view(loc, J, NULL, 0);
        if ((r = sk_clip_sample(clip, skel, t, SK_LOOP_CLAMP, &pose, err)) != SK_OK ||
            (r = sk_local_to_model(skel, &pose, NULL, model, J, err)) != SK_OK)
            break;
        sk_transform ta;
        if (!sk_mat4_decompose(&model[legs[l].ankle], &ta) || !(ta.s.x != 0 && ta.s.y != 0 && ta.s.z != 0)) continue;
        sk_vec3 off = sk_quat_rotate(sk_quat_inverse(ta.r), sk_vec3_make(0, d, 0));
        off = sk_vec3_make(off.x / ta.s.x, off.y / ta.s.y, off.z / ta.s.z);
        heel[l] = sk_vec3_add(L->heel_point, off); /* the point the analysis used */
        moved[l] = isfinite(heel[l].x) && isfinite(heel[l].y) && isfinite(heel[l].z);
    }
    if (mem) sk_free(alloc, mem, lsz + msz);
    if (r != SK_OK) return r;
    for (uint32_t l = 0; l < leg_count; l++)
        if (moved[l]) legs[l].heel = heel[l], legs[l].heel_set = true, n++;
    if (changed) *changed = n;
    return SK_OK;
}
