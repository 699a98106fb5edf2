/* skelanim — pushes for the IK-only walker (procedural.h,
 * sk_procedural_push; docs/procedural.md, "Pushes"; seed 004's future
 * work). A push changes the body's velocity. The walker's body then runs
 * ahead of (or behind, beside) the caller's point by an offset d with
 * velocity u, drawn back by a critically damped spring,
 *     d'' = -w0^2 d - 2 w0 d',
 * and the walker steps for the point plus d: its stepping (the tracked
 * velocity, the landing points ahead along it) takes the recovery steps, the
 * planted foot staying where it is until it lifts. A push whose capture
 * point (d + u / w, w = sqrt(g / hip height): where the body would have to
 * step to stop, after Pratt et al. 2006) lies further than PUSH_REACH leg
 * lengths cannot be caught by a step: the walker falls and comes to rest
 * lying on the ground, the way it was pushed. */
#include "procedural_internal.h"

#define PUSH_W0 4.0f       /* the spring's rate (1/s): back within about a second */
#define PUSH_REACH 0.9f    /* the farthest capture point a step catches (leg lengths) */
#define PUSH_MAX 50.0f     /* m/s: a larger change is refused */
#define FALL_TIME 0.7f     /* s from losing balance to lying */
#define LIE_HEIGHT 0.12f   /* the body joint over the ground lying (m) */

bool sk_procedural_push(sk_procedural *P, sk_vec3 dv) {
    if (!P || !isfinite(dv.x) || !isfinite(dv.z) || !isfinite(dv.y)) return false;
    dv.y = 0;
    if (skm_vec3_len(dv) > PUSH_MAX) return false;
    if (P->fall_k >= 0) return true; /* already falling or lying: nothing more happens */
    P->push_u = sk_vec3_add(P->push_u, dv);
    float w = sqrtf(GRAVITY / fmaxf(P->hip_h, 0.1f));
    sk_vec3 cp = sk_vec3_add(P->push_d, sk_vec3_scale(P->push_u, 1.0f / w));
    float c = skm_vec3_len(cp);
    if (c > PUSH_REACH * P->leg_len) { /* beyond a step: the fall, the way the body goes */
        P->fall_k = 0;
        P->fall_dir = sk_vec3_scale(cp, 1.0f / c);
        P->fall_y0 = P->st.body_height;
        P->st.mode = SK_PROCEDURAL_FALLEN;
        P->walking = false;
    }
    return true;
}

void proc_push_point(sk_procedural *P, double dt, float *x, float *z) {
    if (P->fall_k >= 0) { /* falling or lying: the body stays where it went down */
        *x = P->fall_at.x, *z = P->fall_at.z;
        return;
    }
    float h = (float)dt;
    /* semi-implicit Euler of the spring, in small steps (stable at any dt <= 1 s) */
    for (int k = 0; k < 8; k++) {
        float s = h / 8;
        sk_vec3 a = sk_vec3_add(sk_vec3_scale(P->push_d, -PUSH_W0 * PUSH_W0), sk_vec3_scale(P->push_u, -2 * PUSH_W0));
        P->push_u = sk_vec3_add(P->push_u, sk_vec3_scale(a, s));
        P->push_d = sk_vec3_add(P->push_d, sk_vec3_scale(P->push_u, s));
    }
    if (skm_vec3_len(P->push_d) < 1e-5f && skm_vec3_len(P->push_u) < 1e-4f)
        P->push_d = P->push_u = sk_vec3_make(0, 0, 0);
    *x += P->push_d.x, *z += P->push_d.z;
    P->fall_at = sk_vec3_make(*x, 0, *z);
    P->st.push_offset = P->push_d;
}

bool proc_falling(const sk_procedural *P) { return P->fall_k >= 0; }

void proc_fall_pose(sk_procedural *P, sk_transform *loc, double dt) {
    sk_procedural_state *st = &P->st;
    P->fall_k = fminf(1.0f, P->fall_k + (float)dt / FALL_TIME);
    float k = P->fall_k, e = k * k; /* accelerating, as a fall does */
    /* the body turns over about the axis across the fall (+ brings the top
     * the way it goes) and drops to lying height, legs and arms at rest */
    memcpy(loc, P->skel->rest, sizeof(sk_transform) * P->J);
    sk_vec3 axis = sk_vec3_make(P->fall_dir.z, 0, -P->fall_dir.x); /* up x dir */
    sk_vec3 ax_c = vec3_turn_y(axis, -st->yaw);                    /* in the character's frame */
    sk_quat q = skm_quat_axis_angle(ax_c, 0.5f * SKM_PI * e); /* the same angle as below */
    int32_t bp = P->skel->parents[P->body];
    float ground = st->position.y;
    /* a stick falling about the feet: the body at H cos(angle) over the
     * ground and H sin(angle) the way it falls (H: its height when it lost
     * balance), never under lying height; the legs, straight, stay over the
     * ground all the way */
    float H = fmaxf(P->fall_y0 - ground, LIE_HEIGHT), ang = 0.5f * SKM_PI * e;
    float body_y = ground + fmaxf(H * cosf(ang), LIE_HEIGHT);
    sk_vec3 ahead = vec3_turn_y(sk_vec3_scale(P->fall_dir, H * sinf(ang)), -st->yaw); /* character frame */
    /* the body joint's rotation and place in its parent's frame (the
     * character's at a root, as pose_legs places it) */
    sk_vec3 dw = sk_vec3_make(ahead.x, body_y - P->rt[P->body].y, ahead.z);
    sk_quat r_c = skm_quat_mul(q, P->rr[P->body]); /* the body's new rotation in the character's frame */
    if (bp >= 0) {
        dw = skm_quat_rotate(sk_quat_conjugate(P->rr[bp]), dw);
        dw = sk_vec3_make(dw.x / P->rs[bp].x, dw.y / P->rs[bp].y, dw.z / P->rs[bp].z);
        loc[P->body].r = skm_quat_normalize(skm_quat_mul(sk_quat_conjugate(P->rr[bp]), r_c));
    } else {
        loc[P->body].r = skm_quat_normalize(r_c);
    }
    loc[P->body].t = sk_vec3_add(loc[P->body].t, dw);
    st->body_height = body_y;
    st->mode = SK_PROCEDURAL_FALLEN;
    /* the world matrices of the pose, and the feet from them */
    sk_transform t = {sk_vec3_make(st->position.x, 0, st->position.z), P->yq, sk_vec3_make(1, 1, 1)};
    st->root = sk_mat4_from_transform(&t);
    fk_from(P, loc, 0, P->J);
    /* nothing under the ground: the whole body raised by the deepest joint
     * or heel or toe point under it (the toes turn down as the body pitches
     * forward with the legs at rest) */
    float under = 0;
    for (uint32_t j = 0; j < P->J; j++) under = fmaxf(under, ground - pos_of(P, j).y);
    for (uint32_t l = 0; l < 2; l++) {
        const pleg *g = &P->leg[l];
        under = fmaxf(under, ground - point_of(P, g->ankle, g->heel_pt).y);
        under = fmaxf(under, ground - point_of(P, g->tip, g->toe_pt).y);
    }
    if (under > 0) {
        sk_vec3 up = sk_vec3_make(0, under, 0);
        if (bp >= 0) {
            up = skm_quat_rotate(sk_quat_conjugate(P->rr[bp]), up);
            up = sk_vec3_make(up.x / P->rs[bp].x, up.y / P->rs[bp].y, up.z / P->rs[bp].z);
        }
        loc[P->body].t = sk_vec3_add(loc[P->body].t, up);
        body_y += under;
        st->body_height = body_y;
        fk_from(P, loc, 0, P->J);
    }
    feet_off_ground(P);
}
