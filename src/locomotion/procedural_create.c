/* The IK-only procedural walker's setup (locomotion/procedural.h): the
 * description checked, legs and arms found, the joints each frame's forward
 * kinematics needs, the gait defaults; and its release. The frame is
 * procedural.c. */
#include "procedural_internal.h"

sk_result sk_procedural_create(const sk_procedural_desc *desc, const sk_allocator *alloc, sk_procedural **out,
                               sk_error *err) {
    if (out) *out = NULL;
    if (!desc || !out || !desc->skeleton)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "procedural: NULL description or skeleton");
    const sk_skeleton *s = desc->skeleton;
    const float opts[] = {desc->walk_speed,   desc->run_speed,  desc->step_length,   desc->step_height,
                          desc->hip_rise,     desc->crouch_depth, desc->jump_speed,  desc->max_step_down,
                          desc->max_step_up,  desc->step_frequency, desc->rest_step_width};
    for (size_t i = 0; i < SK_ARRAY_COUNT(opts); i++)
        if (!isfinite(opts[i]) || opts[i] < 0 || opts[i] > 100)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "procedural: gait options must be finite, 0..100");
    if (!isfinite(desc->rest_step_ahead) || fabsf(desc->rest_step_ahead) > 100)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "procedural: gait options must be finite, 0..100");
    if (desc->hip_rise != 0 && !(desc->hip_rise >= 0.1f && desc->hip_rise <= 1.0f))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "procedural: hip_rise %g outside 0.1..1 (0: 0.2)",
                            (double)desc->hip_rise);
    if (desc->step_frequency > 0 && desc->step_length > 0)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                            "procedural: step_length and step_frequency both set (one sets the other: "
                            "step_length = walk_speed / step_frequency)");
    if (desc->arm_count > 2) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "procedural: %u arms (0..2)", desc->arm_count);
    sk_leg_desc legs[2] = {desc->legs[0], desc->legs[1]};
    for (int l = 0; l < 2; l++) {
        sk_result r = sk_leg_default_points(s, &legs[l], err);
        if (r != SK_OK) return r;
    }
    uint32_t J = s->joint_count;
    for (uint32_t a = 0; a < desc->arm_count; a++) {
        const sk_arm_desc *ad = &desc->arms[a];
        if (ad->shoulder < 0 || ad->elbow < 0 || ad->hand < 0 || (uint32_t)ad->shoulder >= J ||
            (uint32_t)ad->elbow >= J || (uint32_t)ad->hand >= J || s->parents[ad->elbow] != ad->shoulder ||
            s->parents[ad->hand] != ad->elbow)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                                "procedural: arm %u: shoulder, elbow, hand must be a parent chain of joints", a);
    }
    int32_t body = desc->body_joint;
    if (body < 0) {
        uint32_t hips[2] = {(uint32_t)legs[0].hip, (uint32_t)legs[1].hip};
        body = legs_common_ancestor(s, hips, 2);
    }
    if (body < 0 || (uint32_t)body >= J)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "procedural: no body joint (set body_joint)");
    size_t size = sizeof(sk_procedural) + (size_t)J * (sizeof(sk_mat4) + 2 * sizeof(sk_vec3) + sizeof(sk_quat) +
                                                        2 * sizeof(bool)) + 64;
    const sk_allocator *al = sk_allocator_or_default(alloc);
    char *mem = sk_alloc(al, size);
    if (!mem) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "procedural: out of memory");
    sk_procedural *P = (sk_procedural *)mem;
    P->alloc = *al;
    P->size = size;
    P->d = *desc;
    P->skel = s;
    P->J = J;
    P->body = (uint32_t)body;
    char *p = mem + sizeof *P;
    P->model = (sk_mat4 *)p; p += J * sizeof(sk_mat4);
    P->rt = (sk_vec3 *)p; p += J * sizeof(sk_vec3);
    P->rs = (sk_vec3 *)p; p += J * sizeof(sk_vec3);
    P->rr = (sk_quat *)p; p += J * sizeof(sk_quat);
    P->need = (bool *)p; p += J * sizeof(bool);
    P->late = (bool *)p;
    memset(P->need, 0, J * sizeof(bool));
    /* the rest pose's model transforms (model space: no root) */
    sk_local_to_model(s, SK_POSE_OF(s, s->rest, NULL), NULL, P->model, J, NULL);
    for (uint32_t j = 0; j < J; j++) {
        sk_transform rj;
        sk_mat4_decompose(&P->model[j], &rj);
        P->rt[j] = rj.t, P->rr[j] = rj.r, P->rs[j] = rj.s;
    }
    float lowest = INFINITY, longest = 0;
    for (int l = 0; l < 2; l++) {
        pleg *g = &P->leg[l];
        g->hip = (uint32_t)legs[l].hip, g->knee = (uint32_t)legs[l].knee, g->ankle = (uint32_t)legs[l].ankle;
        g->tip = legs[l].toe >= 0 ? (uint32_t)legs[l].toe : g->ankle;
        g->heel_pt = legs[l].heel, g->toe_pt = legs[l].toe_tip;
        g->length = skm_vec3_len(sk_vec3_sub(P->rt[g->knee], P->rt[g->hip])) +
                    skm_vec3_len(sk_vec3_sub(P->rt[g->ankle], P->rt[g->knee]));
        sk_vec3 heel = pt_of(P->rt, P->rr, P->rs, g->ankle, g->heel_pt), toe = pt_of(P->rt, P->rr, P->rs, g->tip, g->toe_pt);
        g->lateral = heel.x;
        g->ankle_off = sk_vec3_sub(P->rt[g->ankle], heel);
        g->foot_dir = vec3_horizontal(sk_vec3_sub(toe, heel));
        g->ankle_rest_c = P->rr[g->ankle];
        g->hinge = skm_quat_rotate(sk_quat_conjugate(P->rr[g->knee]), sk_vec3_make(1, 0, 0));
        /* a frame axis within 10 degrees of it is taken as the hinge (the
         * legs of a rig are seldom exactly vertical at rest) */
        for (int k = 0; k < 3; k++) {
            float c = k == 0 ? g->hinge.x : k == 1 ? g->hinge.y : g->hinge.z;
            if (fabsf(c) > 0.985f)
                g->hinge = sk_vec3_make(k == 0 ? copysignf(1, c) : 0, k == 1 ? copysignf(1, c) : 0, k == 2 ? copysignf(1, c) : 0);
        }
        g->hinge_ok = s->parents[g->ankle] == (int32_t)g->knee && s->parents[g->knee] == (int32_t)g->hip;
        g->l1 = skm_vec3_len(sk_vec3_sub(P->rt[g->knee], P->rt[g->hip]));
        g->l2 = skm_vec3_len(sk_vec3_sub(P->rt[g->ankle], P->rt[g->knee]));
        if (g->hinge_ok && g->l1 > 1e-4f && g->l2 > 1e-4f) {
            sk_vec3 kh = sk_vec3_sub(P->rt[g->hip], P->rt[g->knee]), ka = sk_vec3_sub(P->rt[g->ankle], P->rt[g->knee]);
            g->phi0 = atan2f(skm_vec3_len(sk_vec3_cross(kh, ka)), sk_vec3_dot(kh, ka));
            /* a test bend of 0.3 rad: flexion moves the ankle back (-Z) */
            sk_quat kb = skm_quat_mul(P->rr[g->knee], skm_quat_axis_angle(g->hinge, 0.3f));
            sk_vec3 a1 = sk_vec3_add(P->rt[g->knee], skm_quat_rotate(kb, sk_vec3_mul(P->rs[g->knee], s->rest[g->ankle].t)));
            g->bend_sign = a1.z < P->rt[g->ankle].z ? 1.0f : -1.0f;
            kb = skm_quat_mul(P->rr[g->knee], skm_quat_axis_angle(g->hinge, 0.3f * g->bend_sign));
            a1 = sk_vec3_add(P->rt[g->knee], skm_quat_rotate(kb, sk_vec3_mul(P->rs[g->knee], s->rest[g->ankle].t)));
            sk_vec3 v = sk_vec3_sub(a1, P->rt[g->hip]), k = sk_vec3_sub(P->rt[g->knee], P->rt[g->hip]);
            sk_vec3 hw = skm_quat_rotate(P->rr[g->knee], g->hinge);
            g->plane_sign = sk_vec3_dot(hw, sk_vec3_cross(v, k)) >= 0 ? 1.0f : -1.0f;
        } else {
            g->hinge_ok = false;
        }
        g->shin_foot_rest = signed_angle(sk_vec3_sub(P->rt[g->knee], P->rt[g->ankle]), sk_vec3_sub(toe, heel), sk_vec3_make(1, 0, 0));
        {
            sk_vec3 xk = skm_quat_rotate(P->rr[g->knee], sk_vec3_make(1, 0, 0));
            sk_vec3 xa = skm_quat_rotate(P->rr[g->ankle], sk_vec3_make(1, 0, 0));
            g->eul_sign = xk.x > 0.99f && xa.x > 0.99f ? 1.0f : xk.x < -0.99f && xa.x < -0.99f ? -1.0f : 0.0f;
            g->eul_c = cosf(0.5f * (FOOT_PLANTAR_MAX - FOOT_DORSI_MAX) * g->eul_sign);
            g->eul_s = sinf(0.5f * (FOOT_PLANTAR_MAX - FOOT_DORSI_MAX) * g->eul_sign);
            float mid = g->shin_foot_rest + 0.5f * (FOOT_PLANTAR_MAX - FOOT_DORSI_MAX);
            g->piv_c = cosf(mid), g->piv_s = sinf(mid);
            g->piv_half = cosf(0.5f * (FOOT_PLANTAR_MAX + FOOT_DORSI_MAX) - 2e-3f);
        }
        lowest = fminf(lowest, heel.y);
        longest = fmaxf(longest, g->length);
        if (!(g->length > 0) || !(skm_vec3_len(g->foot_dir) > 1e-4f)) {
            sk_free(al, mem, size);
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "procedural: leg %d has no length or no foot", l);
        }
    }
    for (uint32_t a = 0; a < desc->arm_count; a++) {
        parm *m = &P->arm[a];
        memset(m, 0, sizeof *m);
        m->shoulder = (uint32_t)desc->arms[a].shoulder, m->elbow = (uint32_t)desc->arms[a].elbow;
        m->hand = (uint32_t)desc->arms[a].hand;
        m->length = skm_vec3_len(sk_vec3_sub(P->rt[m->elbow], P->rt[m->shoulder])) +
                    skm_vec3_len(sk_vec3_sub(P->rt[m->hand], P->rt[m->elbow]));
    }
    P->arms = desc->arm_count;
    {
        /* the first FK of a frame: hips, knees and ankles (the two-bone
         * solve's input), shoulders, and their ancestors */
        uint32_t marks[10], n = 0;
        for (int l = 0; l < 2; l++) marks[n++] = P->leg[l].hip, marks[n++] = P->leg[l].knee, marks[n++] = P->leg[l].ankle;
        for (uint32_t a = 0; a < P->arms; a++) marks[n++] = P->arm[a].shoulder;
        for (uint32_t k = 0; k < n; k++)
            for (int32_t j = (int32_t)marks[k]; j >= 0 && !P->need[j]; j = s->parents[j]) P->need[j] = true;
        /* the frame's last FK: the joints neither that one nor the legs'
         * (solve_leg: the hip's subtree, to the end of the ankle's on the
         * hinge path) nor the arms' steps compute */
        for (uint32_t j = 0; j < J; j++) P->late[j] = !P->need[j];
        for (int l = 0; l < 2; l++) {
            const pleg *g = &P->leg[l];
            uint32_t end = g->hinge_ok ? sk_skeleton_subtree_end(s, g->ankle) : sk_skeleton_subtree_end(s, g->hip);
            for (uint32_t j = g->hip; j < end; j++) P->late[j] = false;
        }
        for (uint32_t a = 0; a < P->arms; a++) P->late[P->arm[a].shoulder] = false;
    }
    P->hip_h = P->rt[P->body].y - lowest;
    P->crouch_h = P->crouch_k = 0;
    P->top_h = 0;
    uint32_t top = P->body;
    for (uint32_t j = 0; j < J; j++)
        if (P->rt[j].y - P->rt[P->body].y > P->top_h) P->top_h = P->rt[j].y - P->rt[P->body].y, top = j;
    /* the spine: the body joint's child on the way to the highest joint */
    P->spine = -1;
    for (int32_t j = (int32_t)top; j >= 0 && s->parents[j] >= 0; j = s->parents[j])
        if ((uint32_t)s->parents[j] == P->body) { P->spine = j; break; }
    P->lean_vf = P->lean_acc = 0;
    P->lean_have_v = false;
    /* the gaze chain: the spine to the highest joint (none past PROC_LOOK_MAX joints) */
    P->look_n = 0;
    P->look_w = 0;
    P->bal_k = 0;
    P->push_d = P->push_u = P->fall_dir = P->fall_at = sk_vec3_make(0, 0, 0);
    P->fall_k = -1;
    P->fall_y0 = 0;
    P->look = sk_vec3_make(0, 0, 0);
    if (P->spine >= 0 && sk_ik_chain_find(s, (uint32_t)P->spine, top, P->look_chain, PROC_LOOK_MAX, &P->look_n,
                                          NULL) != SK_OK)
        P->look_n = 0;
    {
        sk_quat ir = sk_quat_conjugate(P->rr[top]);
        P->look_axis = skm_quat_rotate(ir, sk_vec3_make(0, 0, 1));
        P->look_up = skm_quat_rotate(ir, sk_vec3_make(0, 1, 0));
    }
    P->leg_len = longest;
    P->walk = desc->walk_speed > 0 ? desc->walk_speed : 1.3f;
    P->runv = desc->run_speed > 0 ? desc->run_speed : 2.4f;
    if (P->runv <= P->walk) P->runv = P->walk + 0.5f;
    P->step0 = desc->step_length > 0 ? desc->step_length : 0.85f * longest;
    if (desc->step_frequency > 0) P->step0 = P->walk / desc->step_frequency;
    P->rest_w = desc->rest_step_width;
    P->rest_a = desc->rest_step_ahead;
    {
        /* the ranges that depend on the legs (docs/procedural.md) */
        const char *bad = NULL;
        if (desc->step_frequency > 0 && !(P->step0 >= 0.3f * longest && P->step0 <= 1.1f * longest))
            bad = "step_frequency: the walking step walk_speed / step_frequency must be 0.3..1.1 leg lengths";
        else if (P->rest_w != 0 && !(P->rest_w >= 0.1f * longest && P->rest_w <= 0.5f * longest))
            bad = "rest_step_width must be 0.1..0.5 leg lengths (0: the hips' width)";
        else if (!(fabsf(P->rest_a) <= 0.3f * longest))
            bad = "rest_step_ahead must be -0.3..0.3 leg lengths";
        if (bad) {
            sk_result r = sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "procedural: %s (leg length %.3f m)", bad,
                                       (double)longest);
            sk_free(al, mem, size);
            return r;
        }
    }
    P->lift0 = desc->step_height > 0 ? desc->step_height : 0.12f * longest;
    P->rise = desc->hip_rise > 0 ? desc->hip_rise : HIP_RISE_DEFAULT;
    P->crouch = desc->crouch_depth > 0 ? desc->crouch_depth : 0.3f * longest;
    P->jump_v = desc->jump_speed > 0 ? desc->jump_speed : 3.0f;
    P->down_max = desc->max_step_down > 0 ? desc->max_step_down : 0.6f * longest;
    P->up_max = desc->max_step_up > 0 ? desc->max_step_up : 0.6f * longest;
    P->ground.terrain = desc->terrain;
    P->ground.max_up = P->up_max + 0.5f * longest;
    P->ground.max_down = 50.0f; /* falls: look far down */
    P->ground.edge_max_dh = fmaxf(P->down_max, P->up_max);
    P->ground.edge_hysteresis = 0; /* the step-edge rule's first hysteresis (footstep.h) */
    *out = P;
    return sk_procedural_reset(P, 0, 0, 0, err);
}

void sk_procedural_destroy(sk_procedural *P) {
    if (!P) return;
    sk_allocator a = P->alloc;
    sk_free(&a, P, P->size);
}
