/* IK-only procedural walking (locomotion/procedural.h; seed 004 ch. 6-8).
 *
 * Where the seed is silent, what is done here:
 *   - "p = v sf, ds = dt sd p": sf, the step frequency the animator sets,
 *     is desc.step_frequency / walk_speed steps per metre at walking speed
 *     (so at walk_speed the feet make step_frequency steps a second), and
 *     1 / step length as the gait shapes the step from there (slower,
 *     running, slopes, turns, backward): a swing lasts while the body moves
 *     one step; the foot travels two steps in that time, as in a walk. sd
 *     (the direction matrix of the 2D prototype) is the facing.
 *   - The landing point C is half a step ahead of where the body will be
 *     when the swing ends, beside the body by the hip's lateral offset; it
 *     is placed on the ground with heel and toe rays and the step-edge rule
 *     of the semi-procedural locomotor (a foot lands on one tread).
 *   - The lift control point B is the midpoint of A and C raised by twice
 *     the step height (a quadratic Bezier peaks at half its control
 *     height), more where the ground between A and C rises above the line
 *     (4 samples, once per landing point).
 *   - Step length: 0.5 .. 1 of the full walking step from standing to walk
 *     speed, up to 1.6 x running; x (1 + 0.5 slope) clamped to 0.6 .. 1.4,
 *     slope being the signed rise per metre 0.6 m ahead (uphill longer).
 *   - The hip bob is the seed's (-4 (s - 0.5)^2 + 0.25) / rise, rise in
 *     [0.1, 1] (desc.hip_rise, 0.2 when not set), in units of 2 cm (the
 *     prototype's units are not given): with 0.2, 2.5 cm up at mid-step and
 *     7.5 cm down at the step's ends, where the legs are apart.
 *   - Falls and landings: gravity 9.81 m/s^2; a landing lowers the root by
 *     0.05 s x the fall speed (at most the crouch depth), recovering in
 *     0.3 s. */
#include "procedural_internal.h"

const sk_procedural_state *sk_procedural_get_state(const sk_procedural *P) { return P ? &P->st : NULL; }
const sk_mat4 *sk_procedural_model(const sk_procedural *P) { return P && P->model_valid ? P->model : NULL; }

static bool ground(sk_procedural *P, float x, float z, float y_ref, sk_terrain_hit *h) {
    P->ground.center = P->st.position;
    return ground_probe_cast(&P->ground, x, z, y_ref, h);
}

/* A footstep for leg l whose heel goes to base (horizontal), facing yaw. */
static void place(sk_procedural *P, uint32_t l, sk_vec3 base, float yaw, sk_footstep *out) {
    P->ground.center = P->st.position;
    P->ground.center.y = P->leg[1 - l].step.position.y; /* rays from the support foot's height */
    footstep_place(&P->ground, P->leg[l].foot_dir, base, yaw, P->st.time, &P->leg[l].edge_pref, out);
    /* Steep ground: the foot is pitched at most FOOT_PITCH_UP/DOWN, on the
     * ball of the foot uphill (the toe on the ground, the heel raised) and
     * on the heel downhill (the toe raised), so the ankle stays inside its
     * anatomical range through the stance (sk_mannequin_leg_limits: a foot
     * flat on a 30 degree slope uphill needs more dorsiflexion than it
     * allows, on a 45 degree slope downhill more plantarflexion). */
    sk_vec3 fd = skm_quat_rotate(out->rotation, P->leg[l].foot_dir), fh = vec3_horizontal(fd);
    float fl = skm_vec3_len(fh);
    if (fl < 1e-6f) return;
    if (fd.y < fl * FOOT_TAN_UP && fd.y > -fl * FOOT_TAN_UP) return; /* inside both: flat on the ground */
    float pitch = atan2f(fd.y, fl), want = skm_clampf(pitch, -FOOT_PITCH_DOWN, FOOT_PITCH_UP);
    if (want == pitch) return;
    sk_vec3 ax = skm_vec3_unit(sk_vec3_cross(fh, sk_vec3_make(0, 1, 0))); /* +angle raises the toe */
    sk_quat q = skm_quat_axis_angle(ax, want - pitch);
    out->rotation = skm_quat_normalize(skm_quat_mul(q, out->rotation));
    if (pitch > 0) { /* uphill: the toe stays, the heel comes up */
        sk_vec3 toe = sk_vec3_add(out->position, fd);
        out->position = sk_vec3_sub(toe, skm_quat_rotate(q, fd));
    }
}

/* The heel base of leg l when the body stands at c facing yaw. */
static sk_vec3 heel_base(const sk_procedural *P, uint32_t l, sk_vec3 c, float yaw) {
    const pleg *g = &P->leg[l];
    /* the ankle under the hip line: the heel sits behind it by the ankle's forward offset */
    sk_vec3 off = sk_vec3_make(g->lateral, 0, -g->ankle_off.z);
    sk_vec3 b = sk_vec3_add(c, vec3_turn_y(off, yaw));
    b.y = 0;
    return b;
}

/* Walking across a slope. The seed fits the foot to the ground normal
 * (§7.2, Kuvio 15); a foot flat on ground of slope theta, its heading phi
 * from the contour toward the fall line, then rolls by
 *     tan(roll) = tan(theta) cos(phi)
 * and pitches by sin(pitch) = sin(theta) sin(phi). Along the contour of a
 * 30 degree slope the roll is 30 degrees, of a 45 degree slope 45: past the
 * ankle's +-29 (sk_mannequin_leg_limits). The heading is turned toward the
 * fall line until cos(phi) = tan(XS_ROLL) / tan(theta) (16 degrees of roll
 * left for the shin's own sway over the foot):
 *   - downhill, the whole turn the body's: the character side-steps along
 *     the path facing partly down the slope, the toe lowered (the ankle's
 *     50 degrees of plantarflexion have room; its 20 of dorsiflexion do
 *     not: a foot turned uphill as far stands on its ball). Across 30
 *     degrees phi = 60 and the foot pitches 26 degrees toe down, flat on
 *     the ground; across 45, phi = 73 and the pitch, 43, is more than
 *     FOOT_PITCH_DOWN: the foot stands on its heel, the toe raised.
 *   - uphill when the facing comes from uphill (walking up, then turning
 *     along the contour: turning downhill would swing the body and the
 *     planted feet through the contour heading, where the ground rolls the
 *     foot past the range), 0.6 of the turn the body's and the rest the
 *     feet's (the hip and the ankle twist): the feet then stand on the ball.
 * The side is chosen as the turn begins and kept while it lasts (a path
 * follower's facing swinging a little past the contour must not flip it).
 * Steps are shortened across a slope as along a steep one (the shin sweeps
 * less over the foot; that sweep rolls a foot turned from the path). n: the
 * ground normal under the character (smoothed: the slope, not each bump),
 * yaw: the facing the caller asked for; out: the turns of the body and of
 * the feet from it (rad about +Y). */
#define XS_NORMAL 0.4f  /* the normal's smoothing (s) */
#define XS_SMOOTH 0.1f  /* the turns' smoothing (s) */
#define XS_ROLL 0.28f   /* 16 degrees of roll left (the ankle allows 29) */
#define XS_BODY_DOWN 1.0f     /* downhill: the body's share of the turn, */
#define XS_BODY_MAX_DOWN 1.2f /* at most (rad), */
#define XS_STEP_DOWN 6.0f     /* steps / (1 + this x (rise across - 0.2)) */
#define XS_BODY_UP 0.6f       /* uphill: the same */
#define XS_BODY_MAX_UP 0.7f
#define XS_STEP_UP 3.0f
#define XS_FOOT_MAX 0.5f      /* the feet's turn from the body, at most (rad) */
static void cross_slope(sk_vec3 n, float yaw, int *side, float *body, float *foot) {
    *body = *foot = 0;
    float sh = hypotf(n.x, n.z);
    if (!(n.y > 0.2f) || sh < n.y * tanf(XS_ROLL)) { /* tan(theta) under tan(XS_ROLL) */
        *side = 0;
        return;
    }
    float tan_t = sh / n.y;
    sk_vec3 up = sk_vec3_make(-n.x / sh, 0, -n.z / sh); /* the normal leans downhill */
    float fx = sinf(yaw), fz = cosf(yaw);
    float phi = asinf(skm_clampf(up.x * fx + up.z * fz, -1, 1)); /* + facing uphill */
    float need = acosf(skm_clampf(tanf(XS_ROLL) / tan_t, 0, 1));
    if (fabsf(phi) >= need) {
        if (fabsf(phi) >= need + 0.05f) *side = 0;
        return;
    }
    /* the side is chosen as the turn begins and kept while it lasts (a
     * path follower's facing swinging a little past the contour must not
     * flip it): uphill when the facing comes from uphill, else downhill */
    if (*side == 0) *side = phi > 0.05f ? 1 : -1;
    /* +yaw turns the facing toward (fz, -fx) */
    float toward_up = up.x * fz - up.z * fx >= 0 ? 1.0f : -1.0f;
    float turn = *side > 0 ? (need - phi) * toward_up : -(need + phi) * toward_up;
    float share = *side > 0 ? XS_BODY_UP : XS_BODY_DOWN, cap = *side > 0 ? XS_BODY_MAX_UP : XS_BODY_MAX_DOWN;
    *body = skm_clampf(share * turn, -cap, cap);
    *foot = skm_clampf(turn - *body, -XS_FOOT_MAX, XS_FOOT_MAX);
}

sk_result sk_procedural_reset(sk_procedural *P, float x, float z, float yaw, sk_error *err) {
    if (!P || !isfinite(x) || !isfinite(z) || !isfinite(yaw))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "procedural reset: NULL or non-finite position/yaw");
    memset(&P->st, 0, sizeof P->st);
    P->model_valid = false;
    P->events_seen = false;
    P->crouch_k = 0; /* a crouch asked for (sk_procedural_crouch) stays, and comes on again from upright */
    P->lean_vf = P->lean_acc = 0;
    P->lean_have_v = false;
    P->bal_k = 0;
    P->push_d = P->push_u = sk_vec3_make(0, 0, 0);
    P->fall_k = -1;
    P->fall_at = sk_vec3_make(x, 0, z);
    P->hang_phase = 0;
    P->st.position = sk_vec3_make(x, 0, z);
    sk_terrain_hit h;
    float keep = P->ground.max_up;
    P->ground.max_up = 1e3f;
    P->xs_body = P->xs_foot = P->xs_tan = 0;
    P->xs_side = 0;
    P->xs_n = sk_vec3_make(0, 1, 0);
    if (ground(P, x, z, 0, &h)) {
        P->st.position.y = h.point.y;
        P->xs_n = h.normal;
        cross_slope(h.normal, yaw, &P->xs_side, &P->xs_body, &P->xs_foot);
    }
    P->ground.max_up = keep;
    P->st.yaw = skm_wrap_angle(yaw + P->xs_body);
    P->yq = skm_quat_rot_y(P->st.yaw);
    P->ys = sinf(P->st.yaw), P->yc = cosf(P->st.yaw);
    P->ground_y = P->st.position.y;
    sk_motion_tracker_reset(&P->tracker, P->st.position, P->st.yaw);
    for (uint32_t l = 0; l < 2; l++) {
        P->leg[l].step.position = P->st.position; /* rays from here */
        P->leg[l].edge_pref = 0;
    }
    for (uint32_t l = 0; l < 2; l++) {
        place(P, l, heel_base(P, l, P->st.position, P->st.yaw), P->st.yaw + P->xs_foot, &P->leg[l].step);
        P->leg[l].from = P->leg[l].step;
        P->leg[l].clr_valid = false;
        P->leg[l].land_valid = false;
        P->leg[l].piv_toe = false;
        P->leg[l].piv_k = 1;
        P->leg[l].guard = 0;
    }
    P->st.mode = SK_PROCEDURAL_STANDING;
    P->st.support = 0;
    P->st.step = 0;
    P->vy = 0;
    P->absorb = P->absorb_t = 0;
    P->stopping_step = false;
    P->walking = false;
    P->body_y = P->st.position.y + P->hip_h;
    return SK_OK;
}

bool sk_procedural_jump(sk_procedural *P) {
    if (!P || (P->st.mode != SK_PROCEDURAL_STANDING && P->st.mode != SK_PROCEDURAL_WALKING)) return false;
    P->st.mode = SK_PROCEDURAL_CROUCHING;
    P->crouch_t = 0;
    return true;
}

bool sk_procedural_point_at(sk_procedural *P, uint32_t arm, const sk_vec3 *target, float weight) {
    if (!P || arm >= P->arms || !(weight >= 0 && weight <= 1)) return false;
    if (target && !(isfinite(target->x) && isfinite(target->y) && isfinite(target->z) &&
                    fabsf(target->x) < 1e6f && fabsf(target->y) < 1e6f && fabsf(target->z) < 1e6f))
        return false;
    P->arm[arm].point_w = target ? weight : 0;
    if (target) P->arm[arm].point = *target;
    return true;
}

/* Arm a points at its target (sk_procedural_point_at): FABRIK on the chain,
 * in world space on the frame's model matrices (sk_ik_solve_model: the
 * shoulder's parent read from them, the arm's subtree brought up to date). */
static void point_arm(sk_procedural *P, sk_pose *pose, uint32_t a) {
    const parm *m = &P->arm[a];
    sk_vec3 sh = pos_of(P, m->shoulder);
    sk_vec3 d = sk_vec3_sub(m->point, sh);
    float dl = skm_vec3_len(d);
    if (!(dl > 1e-4f)) return; /* at the shoulder: no direction */
    uint32_t joints[3] = {m->shoulder, m->elbow, m->hand};
    sk_ik_limit lims[3];
    sk_ik_chain ch = {P->skel, joints, 3, NULL};
    if (P->d.limits) {
        for (int k = 0; k < 3; k++) lims[k] = P->d.limits[joints[k]];
        ch.limits = lims;
    }
    sk_ik_target tg = {.position = sk_vec3_add(sh, sk_vec3_scale(d, 1.05f * m->length / dl))};
    sk_ik_options o = {.solver = SK_IK_FABRIK, .max_iterations = 16, .fk_blend = 1 - m->point_w};
    /* on failure the swing stays (and its matrices) */
    (void)sk_ik_solve_model(&ch, &tg, &o, pose, &P->st.root, P->model, P->J, NULL, 0, NULL, NULL);
}

/* The arc height that clears the ground between A and C (4 samples). */
static float clearance(sk_procedural *P, uint32_t l) {
    pleg *g = &P->leg[l];
    if (g->clr_valid && skm_vec3_len(sk_vec3_sub(g->clr_c, g->step.position)) < 0.03f) return g->clr_h;
    sk_vec3 a = g->from.position, c = g->step.position;
    float need = 0;
    sk_vec3 fd = vec3_turn_y(g->foot_dir, g->step.yaw);
    float top_all = fmaxf(fmaxf(a.y, c.y), fmaxf(a.y + skm_quat_rotate(g->from.rotation, g->foot_dir).y,
                                                 c.y + skm_quat_rotate(g->step.rotation, g->foot_dir).y));
    for (int k = 1; k <= 4; k++) {
        float s = (float)k / 5;
        sk_vec3 p = skm_vec3_lerp(a, c, s);
        sk_terrain_hit h;
        float top = -INFINITY;
        if (ground(P, p.x, p.z, fmaxf(a.y, c.y), &h)) top = h.point.y;
        if (ground(P, p.x + fd.x, p.z + fd.z, fmaxf(a.y, c.y), &h)) top = fmaxf(top, h.point.y);
        top_all = fmaxf(top_all, top);
        float ex = top - p.y;
        if (ex > 0.001f) need = fmaxf(need, (ex + 0.03f) / (2 * s * (1 - s)) * 0.5f);
    }
    g->clr_valid = true;
    g->clr_c = c;
    g->clr_h = need;
    g->clr_top = top_all;
    return need;
}

/* Landing point of the swinging leg: half a step ahead of where the body
 * will be at the end of the swing; a ledge shortens it. */
static void landing(sk_procedural *P, uint32_t l, sk_vec3 dir, float remaining, float half, sk_footstep *out) {
    float ahead = remaining + half;
    /* Slowing down: the body stops within v^2 / 2a; the last steps land
     * there, not where it would have been at full speed. */
    float a_long = sk_vec3_dot(P->tracker.acceleration, dir), v = P->st.speed;
    if (a_long < -0.3f) ahead = fminf(ahead, v * v / (2 * -a_long) + 0.1f);
    /* Where the body will be after `ahead` metres: straight, or on the
     * circle of the current turn (as seed 002's (30)-(33)). */
    sk_vec3 c = sk_vec3_add(P->st.position, sk_vec3_scale(dir, ahead));
    float yaw_land = P->st.yaw, w = P->tracker.angular_velocity;
    if (fabsf(w) > 0.05f && v > 0.05f) {
        float t = ahead / v;
        sk_vec3 vel = sk_vec3_scale(dir, v);
        sk_vec3 tc = sk_vec3_scale(sk_vec3_make(vel.z, 0, -vel.x), 1.0f / w);
        c = sk_vec3_add(sk_vec3_add(P->st.position, tc), vec3_turn_y(sk_vec3_scale(tc, -1), w * t));
        yaw_land = P->st.yaw + w * t;
    }
    sk_vec3 base = heel_base(P, l, c, yaw_land);
    yaw_land += P->xs_foot; /* the foot's heading */
    pleg *g = &P->leg[l];
    sk_vec3 sup = P->leg[1 - l].step.position;
    if (g->land_valid && fabsf(base.x - g->land_base.x) < 1e-4f && fabsf(base.z - g->land_base.z) < 1e-4f &&
        fabsf(yaw_land - g->land_yaw) < 1e-5f && sup.x == g->land_support.x && sup.y == g->land_support.y &&
        sup.z == g->land_support.z) {
        *out = g->land_out;
        out->time = P->st.time;
        return;
    }
    g->land_valid = false;
    /* off an edge: the way the body goes first, the foot stays ahead of it
     * (behind the facing, walking backward) */
    g->edge_pref = P->st.backward ? -1 : 1;
    place(P, l, base, yaw_land, out);
    float support_y = sup.y;
    if (out->position.y >= support_y - P->down_max && out->position.y <= support_y + P->up_max) {
        g->land_valid = true;
        g->land_base = base, g->land_yaw = yaw_land, g->land_support = sup, g->land_out = *out;
        return;
    }
    /* Far above or below: a steep ramp, or a ledge or wall? The ground is
     * sampled every 0.15 m from the support foot to the landing point; a
     * jump between two samples larger than a step is an edge. */
    sk_vec3 b0 = heel_base(P, l, P->st.position, P->st.yaw);
    {
        sk_vec3 from = P->leg[1 - l].step.position, to = out->position;
        float dist = hypotf(to.x - from.x, to.z - from.z);
        int n = (int)fminf(ceilf(dist / 0.15f), 10.0f);
        float prev = from.y;
        bool edge = false;
        for (int i = 1; i <= n && !edge; i++) {
            sk_vec3 q = skm_vec3_lerp(from, to, (float)i / (float)n);
            sk_terrain_hit hq;
            if (!ground(P, q.x, q.z, prev, &hq)) { edge = true; break; }
            float dh = hq.point.y - prev;
            if (dh > P->up_max || dh < -P->down_max) edge = true;
            prev = hq.point.y;
        }
        if (!edge) return; /* a slope: the step goes on it */
    }
    /* A ledge (or a wall): the farthest acceptable point along the way. */
    float lo = 0, hi = remaining + half;
    for (int i = 0; i < 6; i++) {
        float m = 0.5f * (lo + hi);
        sk_terrain_hit h;
        sk_vec3 q = sk_vec3_add(b0, sk_vec3_scale(dir, m));
        bool ok = ground(P, q.x, q.z, support_y, &h) && h.point.y >= support_y - P->down_max &&
                  h.point.y <= support_y + P->up_max;
        if (ok) lo = m; else hi = m;
    }
    float flen = skm_vec3_len(P->leg[l].foot_dir);
    float back = fmaxf(0.0f, lo - flen - LEDGE_MARGIN); /* the toe before the edge */
    place(P, l, sk_vec3_add(b0, sk_vec3_scale(dir, back)), P->st.yaw + P->xs_foot, out);
}

static void set_root(sk_procedural *P) {
    sk_transform t = {sk_vec3_make(P->st.position.x, 0, P->st.position.z), P->yq,
                      sk_vec3_make(1, 1, 1)};
    P->st.root = sk_mat4_from_transform(&t);
}

/* Leg l: two-bone IK of the ankle to target with the foot turned to rot
 * (character space -> world), knee toward the facing. */
static void solve_leg(sk_procedural *P, sk_transform *loc, uint32_t l, sk_vec3 heel_target, sk_quat rot) {
    pleg *g = &P->leg[l];
    sk_vec3 at = sk_vec3_add(heel_target, skm_quat_rotate(rot, g->ankle_off));
    uint32_t end = sk_skeleton_subtree_end(P->skel, g->hip);
    sk_quat yawq = P->yq;
    int32_t ap = P->skel->parents[g->ankle];
    /* the knee toward the facing and the foot's own heading (a foot planted
     * before a turn): the hip takes half of the twist, the ankle the rest */
    sk_vec3 fwd = sk_vec3_make(P->ys, 0, P->yc);
    {
        sk_vec3 ff = vec3_horizontal(skm_quat_rotate(rot, sk_vec3_make(0, 0, 1)));
        float fl = skm_vec3_len(ff);
        if (fl > 0.1f) {
            sk_vec3 mixd = sk_vec3_add(fwd, sk_vec3_scale(ff, 1.0f / fl));
            if (skm_vec3_len(mixd) > 0.1f) fwd = skm_vec3_unit(mixd);
        }
    }
    sk_quat ap_r = sk_quat_identity(); /* the ankle's parent's new world rotation (hinge path) */
    if (g->hinge_ok) {
        /* The knee is a hinge: its angle from the hip-target distance (law
         * of cosines), about its own axis; the hip turns the leg so the
         * ankle is on the target and the knee toward the pole direction. */
        sk_vec3 hip = pos_of(P, g->hip), t = sk_vec3_sub(at, hip);
        float D = skm_vec3_len(t), l1 = g->l1, l2 = g->l2;
        float Dc = skm_clampf(D, fabsf(l1 - l2) + 1e-4f, 0.9999f * (l1 + l2));
        float phi = acosf(skm_clampf((l1 * l1 + l2 * l2 - Dc * Dc) / (2 * l1 * l2), -1.0f, 1.0f));
        loc[g->knee].r = skm_quat_normalize(
            skm_quat_mul(P->skel->rest[g->knee].r, skm_quat_axis_angle(g->hinge, g->bend_sign * (g->phi0 - phi))));
        fk_from(P, loc, g->knee, g->knee + 1); /* the hip's is current */
        sk_vec3 a = point_of(P, g->knee, loc[g->ankle].t);
        /* world rotations down the chain hip -> knee (a parent chain here)
         * from the hip's parent's */
        int32_t hp = P->skel->parents[g->hip];
        sk_quat pw = hp >= 0 ? rot_of(P, (uint32_t)hp) : yawq;
        sk_quat hip_r = child_world_rot(pw, loc[g->hip].r), knee_r = child_world_rot(hip_r, loc[g->knee].r);
        sk_vec3 tu = D > 1e-6f ? sk_vec3_scale(t, 1.0f / D) : sk_vec3_make(0, -1, 0);
        sk_quat q1 = skm_quat_from_to(sk_vec3_sub(a, hip), tu);
        sk_vec3 h1 = skm_quat_rotate(q1, skm_quat_rotate(knee_r, g->hinge));
        h1 = sk_vec3_sub(h1, sk_vec3_scale(tu, sk_vec3_dot(h1, tu)));
        sk_vec3 pp = sk_vec3_sub(fwd, sk_vec3_scale(tu, sk_vec3_dot(fwd, tu)));
        sk_quat R = q1;
        if (skm_vec3_len(pp) > 1e-4f && skm_vec3_len(h1) > 1e-4f) {
            sk_vec3 nd = sk_vec3_scale(skm_vec3_unit(sk_vec3_cross(tu, pp)), g->plane_sign);
            h1 = skm_vec3_unit(h1);
            sk_quat q2 = sk_vec3_dot(h1, nd) < -0.9999f ? sk_quat_make(tu.x, tu.y, tu.z, 0) : skm_quat_from_to(h1, nd);
            R = skm_quat_mul(q2, q1);
        }
        loc[g->hip].r = skm_quat_normalize(skm_quat_mul(sk_quat_conjugate(pw), skm_quat_mul(R, hip_r)));
        fk_from(P, loc, g->hip, g->ankle);
        ap_r = child_world_rot(child_world_rot(pw, loc[g->hip].r), loc[g->knee].r); /* ap is the knee */
    } else {
        /* the two-bone solve reads the joints' positions and the hip's and
         * knee's rotations */
        sk_transform th = {pos_of(P, g->hip), rot_of(P, g->hip), sk_vec3_make(1, 1, 1)};
        sk_transform tk = {pos_of(P, g->knee), rot_of(P, g->knee), sk_vec3_make(1, 1, 1)};
        sk_transform ta = {pos_of(P, g->ankle), sk_quat_identity(), sk_vec3_make(1, 1, 1)};
        sk_ik_target tg = {.position = at, .has_pole = true};
        tg.pole = sk_vec3_add(sk_vec3_scale(sk_vec3_add(th.t, at), 0.5f), sk_vec3_scale(fwd, g->length));
        sk_ik_options io = {.soft = 0.01f};
        sk_quat ch, ck;
        if (sk_ik_two_bone(&th, &tk, &ta, &tg, &io, &ch, &ck, NULL)) {
            loc[g->hip].r = skm_quat_normalize(skm_quat_mul(loc[g->hip].r, ch));
            loc[g->knee].r = skm_quat_normalize(skm_quat_mul(loc[g->knee].r, ck));
        }
        fk_from(P, loc, g->hip, end);
    }
    if (ap >= 0) {
        sk_quat want = skm_quat_mul(rot, g->ankle_rest_c);
        if (!g->hinge_ok) ap_r = rot_of(P, (uint32_t)ap);
        loc[g->ankle].r = skm_quat_normalize(skm_quat_mul(sk_quat_conjugate(ap_r), want));
        fk_from(P, loc, g->ankle, sk_skeleton_subtree_end(P->skel, g->ankle));
    }
    /* limits (the gait is meant to stay inside them; clamping is the guard) */
    if (P->d.limits) {
        uint32_t js[3] = {g->hip, g->knee, g->ankle};
        bool changed = false;
        for (int k = 0; k < 3; k++) {
            const sk_ik_limit *lim = &P->d.limits[js[k]];
            if (lim->type == SK_IK_LIMIT_NONE) continue;
            sk_quat ref = skm_quat_finite(lim->reference) && sk_quat_length(lim->reference) > 0.5f ? lim->reference
                                                                                                    : P->skel->rest[js[k]].r;
            sk_quat rel = skm_quat_mul(sk_quat_conjugate(ref), loc[js[k]].r);
            sk_vec3 axis = sk_vec3_make(0, 1, 0);
            sk_quat cl = sk_ik_limit_clamp(lim, axis, rel);
            if (!sk_ik_limit_check(lim, axis, rel, 1e-4f)) {
                loc[js[k]].r = skm_quat_normalize(skm_quat_mul(ref, cl));
                changed = true;
            }
        }
        if (changed) fk_from(P, loc, g->hip, end);
    }
    sk_procedural_foot *f = &P->st.feet[l];
    f->heel = point_of(P, g->ankle, g->heel_pt);
    f->toe = point_of(P, g->tip, g->toe_pt);
    f->ankle = pos_of(P, g->ankle);
    f->reached = skm_vec3_len(sk_vec3_sub(f->ankle, at)) < 0.005f;
}

/* Leg l after solve_leg: a foot bent up toward the shin more than
 * FOOT_DORSI_MAX past its rest angle (just lifted behind the body, or at the
 * end of its stance on steep ground) pivots on its toe; one pointed down
 * more than FOOT_PLANTAR_MAX (about to land, or just landed, far ahead down
 * a slope) pivots on its heel; the leg is then solved again. True if it
 * pivoted. */
static bool foot_pivot(sk_procedural *P, sk_transform *loc, uint32_t l, sk_vec3 heel, sk_quat rot, float dmax) {
    pleg *g = &P->leg[l];
    g->piv_toe = false;
    g->piv_q = sk_quat_identity();
    /* the foot's own lateral axis (across a slope or in a turn the foot is
     * turned from the facing; about the facing's a pivot would roll it) */
    sk_vec3 lat = vec3_horizontal(skm_quat_rotate(rot, sk_vec3_make(1, 0, 0)));
    float lat_len = skm_vec3_len(lat);
    lat = lat_len > 0.1f ? sk_vec3_scale(lat, 1.0f / lat_len) : sk_vec3_make(P->yc, 0, -P->ys);
    float bend0 = 0, target = 0, total = 0;
    bool on_toe = false;
    for (int it = 0; it < 3; it++) {
        float x, y, bend; /* + toe down (plantar), - toe up */
        if (g->eul_sign != 0) {
            /* the ankle's Euler X against the shin (rel = Rz Ry Rx) */
            sk_quat r = skm_quat_mul(sk_quat_conjugate(P->skel->rest[g->ankle].r), loc[g->ankle].r);
            y = 2 * (r.y * r.z + r.w * r.x), x = 1 - 2 * (r.x * r.x + r.y * r.y);
            /* inside the range (the common case) without an arc tangent: the
             * angle's distance from the range's middle, by its cosine */
            if (it == 0 && dmax >= FOOT_DORSI_MAX && x * g->eul_c + y * g->eul_s >= sqrtf(x * x + y * y) * g->piv_half)
                return false;
            bend = g->eul_sign * atan2f(y, x);
        } else {
            const sk_procedural_foot *f = &P->st.feet[l];
            sk_vec3 shin = sk_vec3_sub(pos_of(P, g->knee), pos_of(P, g->ankle)), foot = sk_vec3_sub(f->toe, f->heel);
            y = sk_vec3_dot(sk_vec3_cross(shin, foot), lat), x = sk_vec3_dot(shin, foot);
            if (it == 0 && dmax >= FOOT_DORSI_MAX && x * g->piv_c + y * g->piv_s >= sqrtf(x * x + y * y) * g->piv_half)
                return false;
            bend = skm_wrap_angle(atan2f(y, x) - g->shin_foot_rest);
        }
        float turn; /* about lat: + turns the toe down */
        if (it == 0) {
            if (bend < -dmax - 1e-3f) on_toe = true, target = -dmax + 0.01f;
            else if (bend > FOOT_PLANTAR_MAX + 1e-3f) target = FOOT_PLANTAR_MAX - 0.01f;
            else return false;
            bend0 = bend;
            turn = (target - bend) / g->piv_k;
        } else {
            /* the shin turns too as the ankle moves (the bend changes by
             * piv_k x the turn, kept from frame to frame); a second solve
             * only if the first left the foot past the range (by more
             * than 0.02 rad: the threshold is 0.05 inside the limit) */
            float k = skm_clampf((bend - bend0) / total, 0.2f, 2.0f);
            g->piv_k = k;
            if (bend >= -dmax - 0.02f && bend <= FOOT_PLANTAR_MAX + 0.02f) break;
            turn = (target - bend0) / k - total;
        }
        total += turn;
        sk_quat q = skm_quat_axis_angle(lat, turn);
        if (on_toe) { /* the toe stays */
            sk_vec3 toe = sk_vec3_add(heel, skm_quat_rotate(rot, g->foot_dir));
            heel = sk_vec3_add(toe, skm_quat_rotate(q, sk_vec3_sub(heel, toe)));
        }
        rot = skm_quat_normalize(skm_quat_mul(q, rot));
        solve_leg(P, loc, l, heel, rot);
        g->piv_q = skm_quat_mul(q, g->piv_q);
    }
    /* a leg that cannot follow the pivot (stretched, the heel not coming
     * up): the ankle itself is turned back into the range, the toe then a
     * few millimetres off its ground for the frame */
    if (g->eul_sign != 0) {
        sk_quat r = skm_quat_mul(sk_quat_conjugate(P->skel->rest[g->ankle].r), loc[g->ankle].r);
        float bend = g->eul_sign * atan2f(2 * (r.y * r.z + r.w * r.x), 1 - 2 * (r.x * r.x + r.y * r.y));
        /* to just inside the mannequin's range (20 degrees up, 50 down):
         * the least turn, so the toe on the ground dips the least */
        float up = FOOT_DORSI_MAX + FOOT_GUARD, down = FOOT_PLANTAR_MAX + FOOT_GUARD;
        float want = bend < -up ? -up : bend > down ? down : bend;
        if (want != bend) {
            loc[g->ankle].r = skm_quat_normalize(skm_quat_mul(loc[g->ankle].r, skm_quat_rot_x(g->eul_sign * (want - bend))));
            fk_from(P, loc, g->ankle, sk_skeleton_subtree_end(P->skel, g->ankle));
            P->st.feet[l].heel = point_of(P, g->ankle, g->heel_pt);
            P->st.feet[l].toe = point_of(P, g->tip, g->toe_pt);
        }
    }
    g->piv_toe = on_toe;
    return true;
}

/* Arms swing against the legs (§8.2): the upper arm turns about the
 * character's lateral axis by the opposite leg's lead; the elbow bends with
 * the run; in the air both arms rise. */
static void pose_arms(sk_procedural *P, sk_transform *loc, float lead, float run, float raise) {
    sk_quat yawq = P->yq;
    for (uint32_t a = 0; a < P->arms; a++) {
        const parm *m = &P->arm[a];
        float side = a == 0 ? 1.0f : -1.0f;               /* left arm: +X */
        /* the left arm forward when the right leg is; lead reaches +-1 when the
         * feet are a step apart: up to 0.35 rad walking, 0.6 running */
        float swing = -side * lead * (0.35f + 0.25f * run);
        float bend = 0.15f + 1.2f * run;
        /* world rotation of the upper arm: rest (character space) turned about
         * X (forward swing: -Y toward +Z is a negative angle about +X) and
         * raised sideways about Z, then by the yaw */
        sk_quat qs = skm_quat_mul(skm_quat_rot_z(side * raise), skm_quat_rot_x(-swing));
        sk_quat want_u = skm_quat_mul(yawq, skm_quat_mul(qs, P->rr[m->shoulder]));
        int32_t pu = P->skel->parents[m->shoulder];
        sk_quat pw = pu >= 0 ? rot_of(P, (uint32_t)pu) : yawq;
        loc[m->shoulder].r = skm_quat_normalize(skm_quat_mul(sk_quat_conjugate(pw), want_u));
        fk_from(P, loc, m->shoulder, m->shoulder + 1);
        sk_quat want_f = skm_quat_mul(yawq, skm_quat_mul(skm_quat_mul(qs, skm_quat_rot_x(-bend)), P->rr[m->elbow]));
        sk_quat sh_r = child_world_rot(pw, loc[m->shoulder].r); /* the shoulder's new world rotation */
        loc[m->elbow].r = skm_quat_normalize(skm_quat_mul(sk_quat_conjugate(sh_r), want_f));
    }
}

/* What one sk_procedural_update frame hands from step to step. */
typedef struct proc_frame {
    double dt;
    float fdt;
    float gy;                 /* the ground under the point (its old height without ground) */
    bool has_ground;
    float speed;              /* tracked, horizontal */
    sk_vec3 fwd, dir;         /* the facing; the direction of travel (the facing standing) */
    float run, len;           /* run blend 0..1; the step length */
    uint32_t sw;              /* the swinging leg */
    bool on_ground;           /* not airborne */
    float s;                  /* the step's progress 0..1 */
    sk_vec3 heel_t[2];        /* the feet's heel targets */
    sk_quat rot_t[2];         /* and rotations */
} proc_frame;

/* Across a slope: the facing's and the feet's turns toward the fall line
 * (cross_slope) from the ground normal under the character (h; NULL: no
 * ground), smoothed, and the rise across the velocity. */
static void follow_cross_slope(sk_procedural *P, double dt, float yaw, const sk_terrain_hit *h) {
    float xb = 0, xf = 0;
    float xt = 0;
    if (h) {
        /* the slope, not each bump: the normal smoothed over XS_NORMAL s */
        P->xs_n = skm_vec3_unit(skm_vec3_lerp(P->xs_n, h->normal, smoothing_weight(dt, XS_NORMAL)));
        sk_vec3 n = P->xs_n;
        cross_slope(n, yaw, &P->xs_side, &xb, &xf);
        /* across the velocity (the facing standing) */
        sk_vec3 vv = vec3_horizontal(P->tracker.velocity);
        float vl = skm_vec3_len(vv);
        sk_vec3 d0 = vl > 0.05f ? sk_vec3_scale(vv, 1.0f / vl) : sk_vec3_make(sinf(yaw), 0, cosf(yaw));
        if (n.y > 0.2f) xt = fabsf(n.x * d0.z - n.z * d0.x) / n.y;
    }
    float k = smoothing_weight(dt, XS_SMOOTH);
    P->xs_body += (xb - P->xs_body) * k;
    P->xs_foot += (xf - P->xs_foot) * k;
    P->xs_tan += (xt - P->xs_tan) * k;

}

/* The character's new point and facing: the ground under it, the turns
 * across a slope, the tracker; speed, facing and direction of travel. */
static void track_point(sk_procedural *P, proc_frame *F, float x, float z, float yaw) {
    sk_procedural_state *st = &P->st;
    double dt = F->dt;
    /* the character's point and the ground under it */
    sk_terrain_hit h;
    float gy = st->position.y;
    bool has_ground = ground(P, x, z, st->position.y, &h);
    if (has_ground) gy = h.point.y;
    st->position = sk_vec3_make(x, st->position.y, z);
    follow_cross_slope(P, dt, yaw, has_ground ? &h : NULL);
    st->yaw = skm_wrap_angle(yaw + P->xs_body);
    sk_motion_tracker_update(&P->tracker, st->position, st->yaw, dt);
    sk_vec3 v = vec3_horizontal(P->tracker.velocity);
    float speed = skm_vec3_len(v);
    P->yq = skm_quat_rot_y(st->yaw);
    P->ys = sinf(st->yaw), P->yc = cosf(st->yaw);
    sk_vec3 fwd = sk_vec3_make(P->ys, 0, P->yc);
    st->velocity = v;
    st->speed = speed;
    st->backward = sk_vec3_dot(v, fwd) < -0.05f;
    sk_vec3 dir = speed > 1e-3f ? sk_vec3_scale(v, 1.0f / speed) : fwd;
    F->gy = gy;
    F->has_ground = has_ground;
    F->speed = speed;
    F->fwd = fwd;
    F->dir = dir;
}

/* A ledge under the point (the character falls), and the slope ahead
 * (signed rise per metre 0.6 m along the velocity, smoothed). */
static void watch_ground(sk_procedural *P, const proc_frame *F) {
    sk_procedural_state *st = &P->st;
    float gy = F->gy, speed = F->speed;
    bool has_ground = F->has_ground;
    sk_vec3 dir = F->dir;
    float support_y = P->leg[st->support].step.position.y;
    /* A ledge: the point is over ground lower than a step below the feet (or
     * none): the character falls. */
    bool over_drop = !has_ground || gy < support_y - P->down_max;
    if ((st->mode == SK_PROCEDURAL_WALKING || st->mode == SK_PROCEDURAL_STANDING) && over_drop &&
        !proc_hang_start(P, support_y, has_ground, gy, dir)) {
        st->mode = SK_PROCEDURAL_AIRBORNE;
        P->walking = false;
        P->vy = 0;
    }
    /* slope ahead (signed rise per metre) */
    float slope = 0;
    if (speed > 1e-3f) {
        sk_vec3 ahead = sk_vec3_add(st->position, sk_vec3_scale(dir, 0.6f));
        sk_terrain_hit ha;
        if (ground(P, ahead.x, ahead.z, gy, &ha) && has_ground) slope = skm_clampf((ha.point.y - gy) / 0.6f, -2, 2);
    }
    st->slope += (slope - st->slope) * smoothing_weight(F->dt, 0.3f);
}

/* The gait: run blend and step length from the speed, the slope along
 * and across, walking backward, turning, the leg's reach. */
static void gait(sk_procedural *P, proc_frame *F) {
    sk_procedural_state *st = &P->st;
    float speed = F->speed;
    float run = skm_clampf((speed - P->walk) / (P->runv - P->walk), 0, 1);
    run = run * run * (3 - 2 * run);
    st->run = run;
    float len = P->step0 * skm_clampf(0.5f + 0.5f * speed / P->walk, 0.5f, 1.0f) * (1 + 0.6f * run);
    {
        /* longer uphill, shorter downhill on gentle slopes (Psarras); steep
         * ground (stairs, ramps past 11 degrees) shortens every step so the
         * legs span it */
        float sl = st->slope * (st->backward ? -1.0f : 1.0f);
        len *= (1 + 0.5f * skm_clampf(sl, -0.2f, 0.2f)) / (1 + 2.0f * fmaxf(0.0f, fabsf(sl) - 0.2f));
    }
    /* across a slope: shorter steps, as on steep ground along it (the shin
     * sweeps less over the foot, whose roll against it that sweep changes
     * when the foot is turned from the path) */
    len /= 1 + (P->xs_side < 0 ? XS_STEP_DOWN : XS_STEP_UP) * fmaxf(0.0f, P->xs_tan - 0.2f);
    /* backward: shorter steps (a person walking backward takes about three
     * quarters of the forward step, at a quicker cadence) */
    if (st->backward) len *= 0.75f;
    /* turning: shorter steps, so the body does not swing past the planted
     * foot (a quarter turn a second halves the step) */
    len /= 1 + 0.6f * fabsf(P->tracker.angular_velocity);
    /* no flight phase: a step longer than about a leg length cannot be
     * spanned; faster then means a quicker cadence */
    len = fminf(len, 1.1f * P->leg_len);
    len *= proc_crouch_step_scale(P); /* crouched: shorter steps */
    st->step_length = len;
    F->run = run;
    F->len = len;
}

/* The swinging foot landed: it becomes the support (standing on its ball
 * if its swing pivoted on the toe), the other leg starts its swing toward
 * a new landing point (or the rest step ends). */
static void land_step(sk_procedural *P, proc_frame *F, bool moving) {
    sk_procedural_state *st = &P->st;
    sk_vec3 dir = F->dir;
    float len = F->len;
    st->step = 0;
    st->support = F->sw; /* the swinging leg lands */
    uint32_t sw = 1 - st->support;
    pleg *gs = &P->leg[sw];
    F->sw = sw;
    {
        /* landed on the ball of the foot (its swing pivoted on the
         * toe): it stands so, heel raised, toe where it was to land */
        pleg *gl = &P->leg[st->support];
        sk_vec3 fd = skm_quat_rotate(gl->step.rotation, gl->foot_dir);
        bool on_heel = fd.y < -0.95f * FOOT_TAN_DOWN * skm_vec3_len(vec3_horizontal(fd)); /* place(): toe raised */
        if (gl->piv_toe && !on_heel) {
            sk_vec3 toe = sk_vec3_add(gl->step.position, skm_quat_rotate(gl->step.rotation, gl->foot_dir));
            gl->step.rotation = skm_quat_normalize(skm_quat_mul(gl->piv_q, gl->step.rotation));
            gl->step.position = sk_vec3_sub(toe, skm_quat_rotate(gl->step.rotation, gl->foot_dir));
        }
    }
    gs->from = gs->step;
    gs->guard = 0;
    if (P->stopping_step) {
        P->stopping_step = false;
        P->walking = moving;
    }
    if (P->walking) {
        /* the support foot just landed `ahead` in front of the body
         * and ends the step (len - ahead) behind it: at most 0.6 leg
         * lengths, or (speeding up: the last landing was planned
         * for a shorter step) the hip over-extends */
        sk_vec3 rel = vec3_horizontal(sk_vec3_sub(P->leg[st->support].step.position, st->position));
        float ahead = sk_vec3_dot(rel, dir);
        P->step_len = fminf(len, fmaxf(ahead, 0.0f) + 0.6f * P->leg_len);
        landing(P, sw, dir, P->step_len, 0.5f * P->step_len, &gs->step);
        gs->clr_valid = false;
    }

}

/* Stepping (seed 004 §7): the first half step from standing, the rest
 * step when stopping, the step's progress at the speed, the landing point
 * re-planned during the swing, the landing (land_step). Under a crouch or
 * a landing too: the point keeps moving. */
static void advance_steps(sk_procedural *P, proc_frame *F) {
    sk_procedural_state *st = &P->st;
    float fdt = F->fdt, speed = F->speed, len = F->len;
    sk_vec3 dir = F->dir;
    uint32_t sw = 1 - st->support;
    pleg *gs = &P->leg[sw];
    bool moving = speed >= 0.1f;
    F->sw = sw;

    /* Stepping goes on under a crouch or a landing (the point keeps moving). */
    bool on_ground = st->mode != SK_PROCEDURAL_AIRBORNE;
    F->on_ground = on_ground;
    if (on_ground && !P->walking && moving) {
        /* the first step from standing is a half step: the support foot is
         * under the body, not half a step behind it */
        P->walking = true;
        st->step = 0;
        P->step_len = 0.5f * len;
        gs->from = gs->step;
        landing(P, sw, dir, P->step_len, 0.5f * len, &gs->step);
        gs->clr_valid = false;
    }
    if (on_ground && P->walking) {
        /* ds = dt v / step length; the rest step (stopping) at a fixed pace */
        if (!moving && !P->stopping_step) {
            /* the rest step: the swinging foot goes beside the support foot */
            P->stopping_step = true;
            sk_footstep beside;
            const pleg *sup = &P->leg[st->support];
            /* where it ends (desc.rest_step_width, _ahead): beside the
             * support foot by the hips' width, or as set */
            float across = gs->lateral - sup->lateral;
            if (P->rest_w > 0) across = across < 0 ? -P->rest_w : P->rest_w;
            /* at an edge (and no rest_step_ahead set) it stops with the
             * other foot behind: the weight goes over it (proc_balance) */
            float ahead = P->rest_a;
            if (ahead == 0 && !st->backward &&
                proc_edge_ahead(P, st->feet[st->support].toe, sup->step.yaw, sup->step.position.y))
                ahead = -EDGE_REST_BACK * P->leg_len;
            sk_vec3 base = sk_vec3_add(sup->step.position,
                                       vec3_turn_y(sk_vec3_make(across, 0, ahead), sup->step.yaw));
            base.y = 0;
            place(P, sw, base, sup->step.yaw, &beside);
            gs->step = beside;
            gs->clr_valid = false;
        }
        /* the body moves this step's length during the swing (set when the
         * step began, so a change of speed shapes the next step, not this) */
        /* a step may shorten while the foot flies (steeper ground ahead: a
         * step planned on the flat would land far down a slope), never lengthen */
        if (!P->stopping_step && st->step < 0.85f && len < P->step_len) P->step_len = len;
        float ds = P->stopping_step ? fdt / 0.35f : fdt * speed / fmaxf(P->step_len, 0.05f);
        st->step += ds;
        if (!P->stopping_step && st->step < 0.85f) {
            /* re-plan the landing point, approached at C_RATE (§7.3) */
            sk_footstep want;
            landing(P, sw, dir, (1 - st->step) * P->step_len, 0.5f * P->step_len, &want);
            sk_vec3 d = sk_vec3_sub(want.position, gs->step.position);
            /* the foot moves by s^2 of a change of C: early in the swing C
             * may move fast, the foot never faster than C_RATE */
            float dl = skm_vec3_len(d), lim = C_RATE * fdt / fmaxf(st->step * st->step, 0.05f);
            if (dl > lim) {
                /* cast again at the limited point, so the footstep stays on the ground */
                sk_vec3 base = sk_vec3_add(gs->step.position, sk_vec3_scale(d, lim / dl));
                base.y = 0;
                place(P, sw, base, want.yaw, &want);
            }
            gs->step = want;
        }
        if (st->step >= 1.0f) land_step(P, F, moving); /* landed: switch the support leg */
    }
}

/* The body's height over the ground before falls, crouches and the legs'
 * reach: the ground under it smoothed (stairs become a slope), the bob,
 * no higher than the feet allow. Returns it; the step's progress into F. */
static float body_base(sk_procedural *P, proc_frame *F) {
    sk_procedural_state *st = &P->st;
    float gy = F->gy, speed = F->speed, run = F->run;
    bool on_ground = F->on_ground;
    const pleg *gs = &P->leg[F->sw];
    /* body height: the ground under it smoothed (stairs become a slope),
     * plus the bob, lowered so both feet reach */
    if (F->has_ground) {
        /* smoothed over 0.15 s, which lags 0.15 s x the climb rate behind
         * the ground on a ramp (27 cm at 1.8 m/s up 45 degrees: the knees
         * folded past their range): the ground 0.15 s ahead is followed */
        float lead = st->slope * speed * 0.15f; /* slope: along the velocity */
        P->ground_y += (gy + lead - P->ground_y) * smoothing_weight(F->dt, 0.15f);
    }
    float s = st->step;
    if (st->mode == SK_PROCEDURAL_STANDING || st->mode == SK_PROCEDURAL_WALKING)
        st->mode = P->walking ? SK_PROCEDURAL_WALKING : SK_PROCEDURAL_STANDING;
    /* the seed's hip rise, (-4 (s - 0.5)^2 + 0.25) / rise, in HIP_BOB_UNIT
     * metres; doubled running */
    float bob = on_ground && P->walking
                    ? HIP_BOB_UNIT * (1 + run) * (-4 * (s - 0.5f) * (s - 0.5f) + 0.25f) / P->rise
                    : 0;
    /* the feet's mean height, the swinging foot's taken between where it
     * left and where it lands (its landing point alone would move the body
     * at once when a step begins) */
    float feet_y = 0.5f * (P->leg[0].step.position.y + P->leg[1].step.position.y);
    if (on_ground && P->walking)
        feet_y = 0.5f * (P->leg[st->support].step.position.y +
                         gs->from.position.y + (gs->step.position.y - gs->from.position.y) * s);
    float base_y = fminf(P->ground_y, feet_y + 0.05f) + P->hip_h * (0.97f - 0.04f * run) + bob;
    F->s = s;
    return base_y;
}

/* The feet's targets (heel and rotation): each on its footstep, the
 * swinging one on its Bezier arc (§7.1) over the ground between. */
static void foot_targets(sk_procedural *P, proc_frame *F) {
    sk_procedural_state *st = &P->st;
    float fdt = F->fdt, speed = F->speed, s = F->s;
    uint32_t sw = F->sw;
    pleg *gs = &P->leg[sw];
    sk_vec3 *heel_t = F->heel_t;
    sk_quat *rot_t = F->rot_t;
    for (uint32_t l = 0; l < 2; l++) {
        pleg *g = &P->leg[l];
        heel_t[l] = g->step.position;
        rot_t[l] = g->step.rotation;
        st->feet[l].stance = true;
        st->feet[l].step = g->step;
    }
    if (F->on_ground && P->walking) {
        /* the swinging foot on its Bezier arc (§7.1) */
        float lift = P->lift0 * (0.6f + 0.4f * fminf(speed / P->walk, 1.5f)) * (P->stopping_step ? 0.5f : 1.0f);
        lift = fmaxf(lift, clearance(P, sw));
        sk_vec3 A = gs->from.position, C = gs->step.position;
        sk_vec3 Bc = sk_vec3_add(sk_vec3_scale(sk_vec3_add(A, C), 0.5f), sk_vec3_make(0, 2 * lift, 0));
        float u = 1 - s;
        sk_vec3 Bs = sk_vec3_add(sk_vec3_add(sk_vec3_scale(A, u * u), sk_vec3_scale(Bc, 2 * u * s)), sk_vec3_scale(C, s * s));
        sk_quat R = skm_quat_nlerp(gs->from.rotation, gs->step.rotation, s);
        /* guard: heel and toe above the ground under them (cast only when
         * the foot is within 4 cm of the highest ground clearance() saw
         * between where it left and where it lands) */
        sk_vec3 hw = Bs, tw = sk_vec3_add(Bs, skm_quat_rotate(R, gs->foot_dir));
        float need = 0;
        sk_terrain_hit gh;
        if (fminf(hw.y, tw.y) < gs->clr_top + 0.04f) {
            if (ground(P, hw.x, hw.z, Bs.y, &gh)) need = fmaxf(need, gh.point.y + GUARD_MARGIN - hw.y);
            if (ground(P, tw.x, tw.z, Bs.y, &gh)) need = fmaxf(need, gh.point.y + GUARD_MARGIN - tw.y);
        }
        gs->guard = fmaxf(need, gs->guard - fdt);
        Bs.y += gs->guard;
        heel_t[sw] = Bs;
        rot_t[sw] = R;
        st->feet[sw].stance = false;
    }
}

/* The body's height by mode: falling (the feet hanging, landing when
 * they touch), crouching for a jump, or walking and standing (lowered after
 * a landing, and so both legs reach their targets, §7.2). */
static float body_height(sk_procedural *P, proc_frame *F, float base_y) {
    sk_procedural_state *st = &P->st;
    double dt = F->dt;
    float fdt = F->fdt, gy = F->gy;
    bool has_ground = F->has_ground;
    sk_vec3 *heel_t = F->heel_t;
    sk_quat *rot_t = F->rot_t;
    float body_y;
    if (st->mode == SK_PROCEDURAL_AIRBORNE) {
        P->vy -= GRAVITY * fdt;
        P->body_y += P->vy * fdt;
        body_y = P->body_y;
        /* feet hang under the hips, knees bent; landing when they touch */
        float reach = P->hip_h * 0.8f;
        bool touch = has_ground && P->vy <= 0 && body_y - reach <= gy + 0.01f;
        for (uint32_t l = 0; l < 2; l++) {
            sk_vec3 b = heel_base(P, l, st->position, st->yaw);
            /* not below the ground under the foot (the frame before touching
             * down; a foot still over the ledge it fell from) */
            float fy = body_y - reach;
            sk_vec3 fd = vec3_turn_y(P->leg[l].foot_dir, st->yaw);
            sk_terrain_hit fh;
            if (ground(P, b.x, b.z, P->body_y, &fh)) fy = fmaxf(fy, fh.point.y);
            if (ground(P, b.x + fd.x, b.z + fd.z, P->body_y, &fh)) fy = fmaxf(fy, fh.point.y);
            heel_t[l] = sk_vec3_make(b.x, fy, b.z);
            rot_t[l] = skm_quat_rot_y(st->yaw);
            st->feet[l].stance = false;
        }
        if (touch) {
            st->mode = SK_PROCEDURAL_LANDING;
            P->absorb = fminf(0.05f * -P->vy, P->crouch);
            P->absorb_t = 0.3f;
            for (uint32_t l = 0; l < 2; l++) {
                P->leg[l].step.position = st->position; /* rays from the landing height */
                P->leg[l].step.position.y = gy;
                place(P, l, heel_base(P, l, st->position, st->yaw), st->yaw + P->xs_foot, &P->leg[l].step);
                P->leg[l].from = P->leg[l].step;
            }
            P->ground_y = gy;
            st->step = 0;
            P->walking = false; /* from both feet; steps again next frame if moving */
            P->stopping_step = false;
        }
    } else if (st->mode == SK_PROCEDURAL_CROUCHING) {
        P->crouch_t += dt;
        float k = skm_clampf((float)(P->crouch_t / 0.3), 0, 1);
        body_y = base_y - P->crouch * k * k * (3 - 2 * k);
        if (P->crouch_t >= 0.3) { /* take off */
            st->mode = SK_PROCEDURAL_AIRBORNE;
            P->walking = false;
            P->vy = P->jump_v;
            P->body_y = body_y;
        }
    } else {
        body_y = base_y;
        if (st->mode == SK_PROCEDURAL_LANDING) {
            float k = skm_clampf(P->absorb_t / 0.3f, 0, 1);
            body_y -= P->absorb * k;
            P->absorb_t -= fdt;
            if (P->absorb_t <= 0) st->mode = P->walking ? SK_PROCEDURAL_WALKING : SK_PROCEDURAL_STANDING;
        }
        /* both feet must reach: lower the body where the ground is deeper (§7.2) */
        float fold = -INFINITY; /* crouched, the hips stay this high over the higher ankle */
        for (uint32_t l = 0; l < 2; l++) {
            pleg *g = &P->leg[l];
            sk_vec3 at = sk_vec3_add(heel_t[l], skm_quat_rotate(rot_t[l], g->ankle_off));
            sk_vec3 hip_rest = sk_vec3_add(sk_vec3_make(st->position.x, 0, st->position.z),
                                           vec3_turn_y(sk_vec3_sub(P->rt[g->hip], sk_vec3_make(0, P->rt[P->body].y, 0)), st->yaw));
            float dx = hip_rest.x - at.x, dz = hip_rest.z - at.z, L2 = 0.985f * g->length * 0.985f * g->length; /* below the soft-IK band: exact */
            float q = L2 - dx * dx - dz * dz;
            /* out of reach horizontally: the leg stretches toward it, the
             * body does not collapse onto the foot */
            float hip_max = at.y + fmaxf(q > 0 ? sqrtf(q) : 0.0f, 0.5f * g->length);
            float hip_off = P->rt[g->hip].y - P->rt[P->body].y;
            body_y = fminf(body_y, hip_max - hip_off);
            fold = fmaxf(fold, at.y + CROUCH_FOLD * g->length - hip_off);
        }
        body_y = proc_crouch_body(P, body_y, fmaxf(base_y - CROUCH_MAX_SHARE * P->leg_len, fold));
        P->body_y = body_y;
    }
    st->body_height = body_y;
    st->position.y = P->ground_y;
    return body_y;
}

/* The ankle's roll and twist (Euler Z and Y against the shin, rel = Rz Ry
 * Rx) kept within FOOT_ROLL_MAX: a foot turned in a run's turn across a
 * slope could otherwise roll past the ankle's range (the mannequin allows
 * 0.5 rad). Only for rigs whose ankle frame has the lateral axis as
 * X (eul_sign set). */
static void ankle_guard(sk_procedural *P, sk_transform *loc, uint32_t l) {
    pleg *g = &P->leg[l];
    if (g->eul_sign == 0) return;
    sk_quat ref = P->skel->rest[g->ankle].r;
    sk_quat r = skm_quat_mul(sk_quat_conjugate(ref), loc[g->ankle].r);
    float ex = atan2f(2 * (r.w * r.x + r.y * r.z), 1 - 2 * (r.x * r.x + r.y * r.y));
    float ey = asinf(skm_clampf(2 * (r.w * r.y - r.z * r.x), -1, 1));
    float ez = atan2f(2 * (r.w * r.z + r.x * r.y), 1 - 2 * (r.y * r.y + r.z * r.z));
    if (fabsf(ey) <= FOOT_ROLL_MAX && fabsf(ez) <= FOOT_ROLL_MAX) return;
    ey = skm_clampf(ey, -FOOT_ROLL_MAX, FOOT_ROLL_MAX), ez = skm_clampf(ez, -FOOT_ROLL_MAX, FOOT_ROLL_MAX);
    sk_quat q = skm_quat_mul(skm_quat_rot_z(ez), skm_quat_mul(skm_quat_axis_angle(sk_vec3_make(0, 1, 0), ey), skm_quat_rot_x(ex)));
    loc[g->ankle].r = skm_quat_normalize(skm_quat_mul(ref, q));
    fk_from(P, loc, g->ankle, sk_skeleton_subtree_end(P->skel, g->ankle));
    P->st.feet[l].heel = point_of(P, g->ankle, g->heel_pt);
    P->st.feet[l].toe = point_of(P, g->tip, g->toe_pt);
}

/* The pose: the rest pose with the body placed at body_y, its world
 * matrices (the joints the legs and arms read), the legs solved to their
 * targets, feet pivoting on heel or toe past the ankle's range. */
static void pose_legs(sk_procedural *P, const proc_frame *F, sk_transform *loc, float body_y) {
    sk_procedural_state *st = &P->st;
    uint32_t sw = F->sw;
    float s = F->s;
    bool on_ground = F->on_ground;
    const sk_vec3 *heel_t = F->heel_t;
    const sk_quat *rot_t = F->rot_t;
    memcpy(loc, P->skel->rest, sizeof(sk_transform) * P->J);
    {
        /* the body joint's height in its parent's frame (the character's at a root) */
        sk_vec3 dw = sk_vec3_make(0, body_y - P->rt[P->body].y, -proc_balance_back(P)); /* hips back at an edge */
        int32_t bp = P->skel->parents[P->body];
        if (bp >= 0) { /* into the parent's rest frame */
            dw = skm_quat_rotate(sk_quat_conjugate(P->rr[bp]), dw);
            dw = sk_vec3_make(dw.x / P->rs[bp].x, dw.y / P->rs[bp].y, dw.z / P->rs[bp].z);
        }
        loc[P->body].t = sk_vec3_add(loc[P->body].t, dw);
    }
    set_root(P);
    fk_need(P, loc, 0, P->J, P->need);
    for (uint32_t l = 0; l < 2; l++) solve_leg(P, loc, l, heel_t[l], rot_t[l]);
    if (on_ground && P->walking) {
        if (!st->feet[sw].stance) foot_pivot(P, loc, sw, heel_t[sw], rot_t[sw], FOOT_DORSI_MAX - FOOT_LAND_MARGIN * s);
        /* heel strike and heel-off: the support foot may pivot the same way
         * on its heel or its toe (which stays where it stands); it is then
         * not flat on the ground and not reported as planted */
        uint32_t su = st->support;
        if (foot_pivot(P, loc, su, heel_t[su], rot_t[su], FOOT_DORSI_MAX)) st->feet[su].stance = false;
    } else {
        /* standing (or crouching, landing) on steep ground: a foot bent past
         * the ankle's range stands on its ball or its heel; in the air (the
         * knees bent under the hips) a foot bent past it hangs from its toe,
         * the heel raised, the toe where the flat foot's was */
        for (uint32_t l = 0; l < 2; l++)
            if (foot_pivot(P, loc, l, heel_t[l], rot_t[l], FOOT_DORSI_MAX)) st->feet[l].stance = false;
    }
    for (uint32_t l = 0; l < 2; l++) ankle_guard(P, loc, l);
}

/* The arms: swung against the legs (or raised in the air), the joints no
 * step computed brought into the model matrices, then pointing. */
static void pose_upper_body(sk_procedural *P, const proc_frame *F, sk_pose *pose) {
    sk_procedural_state *st = &P->st;
    sk_transform *loc = pose->local;
    float len = F->len, run = F->run;
    sk_vec3 fwd = F->fwd;
    float lead = 0;
    if (P->walking && st->mode != SK_PROCEDURAL_AIRBORNE && len > 0)
        lead = skm_clampf(sk_vec3_dot(sk_vec3_sub(st->feet[0].heel, st->feet[1].heel), fwd) / len, -1, 1);
    float raise = st->mode == SK_PROCEDURAL_AIRBORNE ? 1.2f * skm_clampf(0.5f + 0.25f * fabsf(P->vy), 0, 1) : 0;
    raise = fmaxf(raise, proc_balance_raise(P)); /* arms out, balancing at an edge */
    if (P->arms) pose_arms(P, loc, lead, run, raise);
    fk_need(P, loc, 0, P->J, P->late); /* the joints no step computed */
    for (uint32_t a = 0; a < P->arms; a++)
        if (P->arm[a].point_w > 0) point_arm(P, pose, a);
}

sk_result sk_procedural_update(sk_procedural *P, double dt, float x, float z, float yaw, sk_pose *pose,
                               sk_error *err) {
    if (!P || !pose) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "procedural: NULL");
    if (!(dt > 0) || !(dt <= 1.0) || !isfinite(x) || !isfinite(z) || !isfinite(yaw))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                            "procedural: dt must be in (0, 1] s and the position and yaw finite (dt %g)", dt);
    sk_result r = sk_pose_check(P->skel, pose, "procedural", err);
    if (r != SK_OK) return r;
    P->ground.rays = 0;
    P->st.time += dt;
    sk_vec3 was_ankle[2];
    for (uint32_t l = 0; l < 2; l++) was_ankle[l] = P->st.feet[l].ankle;
    proc_frame F;
    F.dt = dt;
    F.fdt = (float)dt;
    proc_push_point(P, dt, &x, &z); /* a push's offset (or where the walker fell) */
    proc_hang_point(P, dt, &x, &z, &yaw); /* hanging from a ledge, dropping, walking on */
    track_point(P, &F, x, z, yaw);
    if (proc_falling(P)) { /* losing balance, then lying: no steps */
        proc_fall_pose(P, pose->local, dt);
        P->st.rays = P->ground.rays;
        P->model_valid = true;
        for (uint32_t l = 0; l < 2; l++) memset(&P->st.feet[l].event, 0, sizeof P->st.feet[l].event);
        return SK_OK;
    }
    proc_crouch_step(P, dt);
    proc_balance(P, dt);
    watch_ground(P, &F);
    if (proc_hanging(P)) { /* from the edge: lowering itself, hanging (from this frame on) */
        proc_hang_pose(P, pose, dt);
        P->st.rays = P->ground.rays;
        P->model_valid = true;
        return SK_OK;
    }
    gait(P, &F);
    advance_steps(P, &F);
    float base_y = body_base(P, &F);
    foot_targets(P, &F);
    float body_y = body_height(P, &F, base_y);
    pose_legs(P, &F, pose->local, body_y);
    proc_lean(P, pose->local, dt);
    proc_look(P, pose);
    pose_upper_body(P, &F, pose);
    P->st.rays = P->ground.rays;
    P->model_valid = true;
    /* Footstep events: a foot is on the ground when planted and its heel
     * or toe is within 2 cm of its step's plane (a foot declared planted
     * as the walker comes to a stand may still be coming down): DOWN at
     * its contact point (the lower of heel and toe) when that begins, UP
     * from that point when it ends. */
    for (uint32_t l = 0; l < 2; l++) {
        sk_procedural_foot *f = &P->st.feet[l];
        const sk_footstep *fs = &P->leg[l].step;
        float dh = sk_vec3_dot(sk_vec3_sub(f->heel, fs->position), fs->normal);
        float dt_ = sk_vec3_dot(sk_vec3_sub(f->toe, fs->position), fs->normal);
        bool on = f->stance && P->st.mode != SK_PROCEDURAL_AIRBORNE && fminf(dh, dt_) < 0.02f;
        /* the contact point: the lower of heel and toe (against the step's plane) */
        sk_footstep at = *fs;
        at.position = dh <= dt_ ? f->heel : f->toe;
        footstep_event(&f->event, P->contact[l], on, &at, &P->stood[l], was_ankle[l], f->ankle, dt);
        if (!P->events_seen) memset(&f->event, 0, sizeof f->event);
        if (on && (!P->contact[l] || !P->events_seen)) P->stood[l] = at;
        P->contact[l] = on;
    }
    P->events_seen = true;
    return SK_OK;
}
