/* skelanim — the IK-only walker's crouched walking (procedural.h,
 * sk_procedural_crouch; docs/procedural.md, "Crouching"): the body lowered
 * so the skeleton's highest point stays under a height over the ground, the
 * steps shortened as the knees bend. Private to the walker: procedural.c
 * calls these once a frame. */
#include "procedural_internal.h"

/* Going down and coming up take about this long (s). */
#define CROUCH_TIME 0.25f

bool sk_procedural_crouch(sk_procedural *P, float height) {
    if (!P || !isfinite(height) || height < 0) return false;
    P->crouch_h = height;
    return true;
}

void proc_crouch_step(sk_procedural *P, double dt) {
    float want = P->crouch_h > 0 ? 1.0f : 0.0f;
    float rate = (float)dt / CROUCH_TIME;
    P->crouch_k = want > P->crouch_k ? fminf(want, P->crouch_k + rate) : fmaxf(want, P->crouch_k - rate);
}

float proc_crouch_step_scale(const sk_procedural *P) {
    /* steps shorten with the crouch's depth: at the deepest, 0.6 of the step */
    float depth = P->leg_len > 0 ? P->st.crouch / (CROUCH_MAX_SHARE * P->leg_len) : 0.0f;
    return 1.0f - 0.4f * skm_clampf(depth, 0, 1);
}

float proc_crouch_body(sk_procedural *P, float body_y, float floor_y) {
    float low = 0;
    if (P->crouch_k > 0 && P->crouch_h > 0) {
        /* the highest point is top_h above the body joint standing: under
         * crouch_h over the ground the body joint is at most there */
        float cap = P->ground_y + P->crouch_h - P->top_h;
        float want = fmaxf(fminf(body_y, cap), floor_y);
        float k = P->crouch_k * P->crouch_k * (3 - 2 * P->crouch_k);
        float y = body_y + (want - body_y) * k;
        low = body_y - y;
        body_y = y;
    }
    P->st.crouch = low > 0 ? low : 0.0f;
    return body_y;
}

/* The torso's lean (docs/procedural.md, "Crouching and leaning"), about the
 * character's lateral axis (+ forward) and its forward axis (+ toward its
 * left), smoothed over LEAN_TAU s:
 *   - crouched: forward by LEAN_CROUCH at the deepest crouch (the weight
 *     kept over the feet as the hips go back and down);
 *   - speeding up forward, back slowing down: LEAN_ACCEL per m/s^2 of the
 *     acceleration along the facing, at most LEAN_ACCEL_MAX; the path's
 *     start is the largest, so the torso leans as the first step begins;
 *   - uphill forward, downhill back: LEAN_SLOPE (LEAN_SLOPE_DOWN) of the
 *     slope's angle ahead, at most LEAN_SLOPE_MAX;
 *   - into a turn: LEAN_TURN of the angle a body balanced on the turn
 *     leans, atan(v w / g), at most LEAN_TURN_MAX.
 * The spine joint (the body joint's child toward the highest joint) turns
 * by it; the arms, neck and head follow. */
#define LEAN_TAU 0.2f
#define BAL_PITCH 0.2f    /* balancing at an edge: the torso forward (rad) */
#define LEAN_CROUCH 0.55f      /* rad, 32 degrees */
#define LEAN_ACCEL 0.07f       /* rad per m/s^2, 4 degrees */
#define LEAN_ACCEL_MAX 0.17f   /* 10 degrees */
#define LEAN_SLOPE 0.4f
#define LEAN_SLOPE_DOWN 0.2f
#define LEAN_SLOPE_MAX 0.26f   /* 15 degrees */
#define LEAN_TURN 0.5f
#define LEAN_TURN_MAX 0.17f    /* 10 degrees */

void proc_lean(sk_procedural *P, sk_transform *loc, double dt) {
    sk_procedural_state *st = &P->st;
    if (P->spine < 0) return;
    float w = smoothing_weight(dt, LEAN_TAU);
    /* acceleration along the facing (m/s^2), from the speed's change */
    sk_vec3 f = sk_vec3_make(P->ys, 0, P->yc);
    float vf = sk_vec3_dot(st->velocity, f);
    float acc = dt > 0 && P->lean_have_v ? (float)((vf - P->lean_vf) / dt) : 0.0f;
    P->lean_vf = vf;
    P->lean_have_v = true;
    P->lean_acc += (acc - P->lean_acc) * w;
    float depth = P->leg_len > 0 ? st->crouch / (CROUCH_MAX_SHARE * P->leg_len) : 0.0f;
    float pitch = LEAN_CROUCH * skm_clampf(depth, 0, 1) + BAL_PITCH * P->bal_k;
    bool moving = st->mode == SK_PROCEDURAL_WALKING || st->mode == SK_PROCEDURAL_STANDING;
    if (moving) {
        pitch += skm_clampf(LEAN_ACCEL * P->lean_acc, -LEAN_ACCEL_MAX, LEAN_ACCEL_MAX);
        float ang = atanf(st->slope * (st->backward ? -1.0f : 1.0f));
        pitch += skm_clampf(ang > 0 ? LEAN_SLOPE * ang : LEAN_SLOPE_DOWN * ang, -LEAN_SLOPE_MAX, LEAN_SLOPE_MAX);
    }
    float roll = 0;
    if (moving) {
        float bal = atanf(st->speed * P->tracker.angular_velocity / GRAVITY); /* + turning left */
        roll = skm_clampf(LEAN_TURN * bal, -LEAN_TURN_MAX, LEAN_TURN_MAX);
    }
    st->lean_pitch += (pitch - st->lean_pitch) * w;
    st->lean_roll += (roll - st->lean_roll) * w;
    if (fabsf(st->lean_pitch) < 1e-5f && fabsf(st->lean_roll) < 1e-5f) return;
    /* the turn in the world: about the lateral axis (+ brings the top
     * forward), then about the forward axis (+ toward the left) */
    sk_vec3 lat = sk_vec3_make(P->yc, 0, -P->ys); /* the facing x up */
    sk_quat q = skm_quat_mul(skm_quat_axis_angle(f, -st->lean_roll), skm_quat_axis_angle(lat, st->lean_pitch));
    uint32_t j = (uint32_t)P->spine;
    int32_t p = P->skel->parents[j];
    sk_quat pw = p >= 0 ? rot_of(P, (uint32_t)p) : sk_quat_identity();
    /* local' = pw^-1 q pw local: the same turn applied in the world */
    loc[j].r = skm_quat_normalize(skm_quat_mul(skm_quat_mul(sk_quat_conjugate(pw), skm_quat_mul(q, pw)), loc[j].r));
    fk_from(P, loc, j, sk_skeleton_subtree_end(P->skel, j));
}

/* Gaze (sk_procedural_look_at): the chain from the spine joint to the
 * highest joint (the head) by the IK layer's aim solver, its turn shared
 * along the chain, at most LOOK_MAX_ANGLE from the walked pose, within
 * desc.limits of those joints when given; the head's forward is its rest
 * facing (+Z of the character) carried in its own frame, its up the rest
 * up. */
#define LOOK_MAX_ANGLE 1.2f /* rad, 69 degrees */

bool sk_procedural_look_at(sk_procedural *P, const sk_vec3 *target, float weight) {
    if (!P) return false;
    if (!target || weight == 0.0f) {
        P->look_w = 0;
        return true;
    }
    if (!skm_vec3_finite(*target) || !isfinite(weight) || weight < 0 || weight > 1 || P->look_n < 1) return false;
    P->look = *target;
    P->look_w = weight;
    return true;
}

void proc_look(sk_procedural *P, sk_pose *pose) {
    if (!(P->look_w > 0) || P->look_n < 1) return;
    sk_ik_limit lims[PROC_LOOK_MAX];
    sk_ik_chain ch = {P->skel, P->look_chain, P->look_n, NULL};
    if (P->d.limits) {
        for (uint32_t k = 0; k < P->look_n; k++) lims[k] = P->d.limits[P->look_chain[k]];
        ch.limits = lims;
    }
    sk_ik_target tg = {.position = P->look, .up = sk_vec3_make(0, 1, 0)};
    sk_ik_options o = {.solver = SK_IK_AIM, .aim_axis = P->look_axis, .up_axis = P->look_up,
                       .max_angle = LOOK_MAX_ANGLE, .fk_blend = 1 - P->look_w};
    /* on failure (a target on the head itself) the walked pose stays */
    (void)sk_ik_solve_model(&ch, &tg, &o, pose, &P->st.root, P->model, P->J, NULL, 0, NULL, NULL);
}

/* Balancing at an edge (docs/procedural.md, "Ledges"): standing with the
 * ground ahead of the front toe dropping by more than a step (or missing)
 * within BAL_LOOK, the arms go out sideways, the hips back and the torso
 * forward over the feet, over BAL_TAU s; they come back as the walker
 * steps away. Rays only while standing. */
#define BAL_TAU 0.3f
#define BAL_LOOK 0.25f    /* m ahead of the front toe */
#define BAL_RAISE 1.1f    /* the arms raised sideways (rad) */
#define BAL_BACK 0.07f    /* the hips back (m), at least */
#define BAL_BACK_MAX 0.2f /* at most: over the back foot */

bool proc_edge_ahead(sk_procedural *P, sk_vec3 toe, float yaw, float feet_y) {
    sk_vec3 f = sk_vec3_make(sinf(yaw), 0, cosf(yaw));
    for (int k = 1; k <= 2; k++) {
        sk_vec3 q = sk_vec3_add(toe, sk_vec3_scale(f, BAL_LOOK * (float)k / 2));
        sk_terrain_hit h;
        P->ground.center = toe;
        P->ground.center.y = feet_y;
        if (!ground_probe_cast(&P->ground, q.x, q.z, feet_y, &h) || h.point.y < feet_y - P->down_max) return true;
    }
    return false;
}

void proc_balance(sk_procedural *P, double dt) {
    const sk_procedural_state *st = &P->st;
    float want = 0;
    if (st->mode == SK_PROCEDURAL_STANDING && !P->walking) {
        sk_vec3 f = sk_vec3_make(P->ys, 0, P->yc);
        /* the weight over the back foot: the hips over its middle when the
         * feet stand one behind the other (the rest step at an edge), else
         * BAL_BACK behind the point */
        float lo = INFINITY, hi = -INFINITY;
        for (uint32_t l = 0; l < 2; l++) {
            float m = sk_vec3_dot(sk_vec3_sub(skm_vec3_lerp(st->feet[l].heel, st->feet[l].toe, 0.5f), st->position), f);
            lo = fminf(lo, m), hi = fmaxf(hi, m);
        }
        P->bal_back = hi - lo > 0.1f ? skm_clampf(-lo, -BAL_BACK_MAX, BAL_BACK_MAX) : BAL_BACK;
        /* the front toe along the facing, and the feet's height */
        float front = -INFINITY, feet_y = 0;
        for (uint32_t l = 0; l < 2; l++) {
            front = fmaxf(front, sk_vec3_dot(sk_vec3_sub(st->feet[l].toe, st->position), f));
            feet_y += 0.5f * P->leg[l].step.position.y;
        }
        for (int k = 1; k <= 2 && want == 0; k++) {
            sk_vec3 q = sk_vec3_add(st->position, sk_vec3_scale(f, front + BAL_LOOK * (float)k / 2));
            sk_terrain_hit h;
            P->ground.center = st->position;
            P->ground.center.y = feet_y;
            if (!ground_probe_cast(&P->ground, q.x, q.z, feet_y, &h) || h.point.y < feet_y - P->down_max) want = 1;
        }
    }
    P->bal_k += (want - P->bal_k) * smoothing_weight(dt, BAL_TAU);
    if (P->bal_k < 1e-4f) P->bal_k = 0;
    P->st.balance = P->bal_k;
}

float proc_balance_raise(const sk_procedural *P) { return BAL_RAISE * P->bal_k; }
float proc_balance_back(const sk_procedural *P) { return P->bal_back * P->bal_k; }
