/* skelanim — the ledge hang of the IK-only walker (procedural.h;
 * docs/procedural.md, "Ledges"; seed 004 §8.3 and its Kuvio 21). Walked off
 * a drop deeper than the character is tall, the walker does not fall
 * straight down: it turns to the wall and lowers itself, both hands on
 * the edge (the arm chains by the IK layer's FABRIK, within the arm
 * limits), hangs, and lets go. The drop below is the walker's own fall and
 * knee-absorbed landing (AIRBORNE, LANDING); it turns back to the caller's
 * facing in the air, so it lands facing the way it was going, and then
 * walks on to the caller's point from where it landed, at walking speed.
 * Over a drop with no ground below it hangs and does not let go. */
#include "procedural_internal.h"

#define HANG_GRAB 0.55f  /* s: from the edge to hanging */
#define HANG_OUT_T 0.25f /* s of it moving out over the drop and turning, before going down */
#define HANG_HOP 0.05f   /* m: the body's rise as it moves out (the feet clear of the ledge) */
#define HANG_HOLD 0.8f   /* s: hanging still */
#define HANG_OUT 0.28f   /* m: the body joint out from the wall, hanging (the toes clear of it) */
#define HANG_IN 0.03f    /* m: the hands onto the ledge from its edge */
#define HANG_PUSH 0.45f  /* m: pushed off the wall as it lets go */
#define HANG_PUSH_V 2.5f /* m/s */
#define HANG_LEAN 0.12f  /* m: out from the wall over the hold's last HANG_PREP s (arms straighter) */
#define HANG_PREP 0.25f
#define HANG_ARM 0.96f   /* of the arm's length: shoulder to hand, hanging */

enum { HANG_NONE = 0, HANG_ON = 1, HANG_DROP = 2, HANG_CATCH_UP = 3 };

/* The edge between a point on the ledge (on) and one over the drop (off),
 * both horizontal: bisection on "ground within 10 cm of the ledge's height". */
static sk_vec3 find_edge(sk_procedural *P, sk_vec3 on, sk_vec3 off, float ledge_y) {
    for (int k = 0; k < 12; k++) {
        sk_vec3 mid = skm_vec3_lerp(on, off, 0.5f);
        sk_terrain_hit h;
        P->ground.rays++;
        bool ledge = sk_terrain_height(&P->d.terrain, mid.x, mid.z, ledge_y + 0.5f, 0.6f, &h) && h.point.y > ledge_y - 0.1f;
        if (ledge) on = mid;
        else off = mid;
    }
    return sk_vec3_make(on.x, ledge_y, on.z);
}

bool proc_hang_start(sk_procedural *P, float ledge_y, bool has_ground, float below_y, sk_vec3 dir) {
    sk_procedural_state *st = &P->st;
    float height = P->hip_h + P->top_h; /* the character standing */
    if (P->arms != 2 || P->hang_phase != 0 || (has_ground && ledge_y - below_y <= height)) return false;
    /* the ledge's height where the support foot stands (its step may be a
     * heel or toe raised off it) */
    sk_vec3 on = P->leg[st->support].step.position, off = st->position;
    sk_terrain_hit h;
    P->ground.rays++;
    if (!sk_terrain_height(&P->d.terrain, on.x, on.z, ledge_y + 0.5f, 1.0f, &h)) return false;
    ledge_y = h.point.y;
    if (has_ground && ledge_y - below_y <= height) return false;
    /* the edge found on two lines 0.4 m apart across the way the body
     * goes, from a metre behind the point (on the ledge) to 0.3 m ahead:
     * its place and its line, the way out perpendicular to it */
    dir = vec3_horizontal(dir);
    if (!(skm_vec3_len(dir) > 1e-3f)) dir = sk_vec3_make(P->ys, 0, P->yc);
    dir = skm_vec3_unit(dir);
    sk_vec3 lat = sk_vec3_make(dir.z, 0, -dir.x), e[2];
    for (int k = 0; k < 2; k++) {
        sk_vec3 o = sk_vec3_scale(lat, k ? 0.2f : -0.2f);
        sk_vec3 a = sk_vec3_add(sk_vec3_sub(off, dir), o), b = sk_vec3_add(sk_vec3_add(off, sk_vec3_scale(dir, 0.3f)), o);
        P->ground.rays++;
        if (!sk_terrain_height(&P->d.terrain, a.x, a.z, ledge_y + 0.5f, 0.6f, &h) || h.point.y < ledge_y - 0.1f)
            a = sk_vec3_add(on, o); /* not a metre of ledge behind: from the support foot */
        e[k] = find_edge(P, a, b, ledge_y);
    }
    sk_vec3 along = vec3_horizontal(sk_vec3_sub(e[1], e[0]));
    sk_vec3 out = skm_vec3_len(along) > 0.05f ? skm_vec3_unit(sk_vec3_make(-along.z, 0, along.x)) : dir;
    if (sk_vec3_dot(out, dir) < 0) out = sk_vec3_scale(out, -1.0f);
    P->hang_edge = skm_vec3_lerp(e[0], e[1], 0.5f);
    /* the point over the drop is beyond the edge: else no hang */
    if (sk_vec3_dot(vec3_horizontal(sk_vec3_sub(off, P->hang_edge)), out) < -0.05f) return false;
    P->hang_out = out;
    P->hang_yaw = atan2f(-out.x, -out.z); /* facing the wall */
    P->hang_yaw0 = st->yaw;
    P->hang_p0 = sk_vec3_make(st->position.x, st->body_height, st->position.z);
    P->hang_below = has_ground;
    P->hang_t = 0;
    P->hang_phase = HANG_ON;
    P->hang_at = st->position;
    st->mode = SK_PROCEDURAL_HANGING;
    P->walking = false;
    return true;
}

bool proc_hanging(const sk_procedural *P) { return P->hang_phase == HANG_ON; }

void proc_hang_point(sk_procedural *P, double dt, float *x, float *z, float *yaw) {
    sk_procedural_state *st = &P->st;
    if (P->hang_phase == HANG_NONE) return;
    if (P->hang_phase == HANG_ON) {
        *x = P->hang_at.x, *z = P->hang_at.z, *yaw = st->yaw;
        return;
    }
    if (P->hang_phase == HANG_DROP) {
        /* turning back to the caller's facing in the air, done by the touch-down */
        /* the turn once pushed off (the hands clear of the wall) */
        float k = st->mode == SK_PROCEDURAL_AIRBORNE
                      ? skm_clampf((float)(P->hang_t - HANG_PUSH / HANG_PUSH_V) / P->hang_turn, 0, 1)
                      : 1.0f;
        P->hang_t += dt;
        k = k * k * (3 - 2 * k);
        *yaw = P->hang_yaw + skm_wrap_angle(*yaw - P->hang_yaw) * k;
        /* pushing off the wall: out by HANG_PUSH over the first part of the fall */
        if (st->mode == SK_PROCEDURAL_AIRBORNE && P->hang_pushed < HANG_PUSH) {
            float d = fminf(HANG_PUSH - P->hang_pushed, HANG_PUSH_V * (float)dt);
            P->hang_at = sk_vec3_add(P->hang_at, sk_vec3_scale(P->hang_out, d));
            P->hang_pushed += d;
        }
        *x = P->hang_at.x, *z = P->hang_at.z;
        /* touched down: the push off the wall is not a walk (the tracker
         * starts again still, so the landing is not cut short by a step) */
        if (st->mode != SK_PROCEDURAL_AIRBORNE && !P->hang_landed) {
            sk_motion_tracker_reset(&P->tracker, sk_vec3_make(*x, st->position.y, *z), *yaw);
            P->hang_landed = true;
        }
        if (st->mode == SK_PROCEDURAL_STANDING || st->mode == SK_PROCEDURAL_WALKING) P->hang_phase = HANG_CATCH_UP;
        return;
    }
    /* walking on from where it landed to the caller's point, at walking speed */
    sk_vec3 d = sk_vec3_make(*x - P->hang_at.x, 0, *z - P->hang_at.z);
    float dl = skm_vec3_len(d), step = P->walk * (float)dt;
    if (dl <= step) {
        P->hang_phase = HANG_NONE;
        return;
    }
    P->hang_at = sk_vec3_add(P->hang_at, sk_vec3_scale(d, step / dl));
    *x = P->hang_at.x, *z = P->hang_at.z;
}

/* The arm a's hand to the edge, nearest the shoulder along it; the elbow
 * bent out from the wall (the two-bone solver toward a pole out and down),
 * by weight w. */
static void grab(sk_procedural *P, sk_transform *loc, uint32_t a, float w) {
    const parm *m = &P->arm[a];
    sk_transform ts, te, th;
    sk_mat4_decompose(&P->model[m->shoulder], &ts);
    sk_mat4_decompose(&P->model[m->elbow], &te);
    sk_mat4_decompose(&P->model[m->hand], &th);
    sk_vec3 lat = sk_vec3_make(P->hang_out.z, 0, -P->hang_out.x);
    sk_vec3 e = P->hang_edge;
    sk_vec3 t = sk_vec3_add(e, sk_vec3_scale(lat, sk_vec3_dot(sk_vec3_sub(ts.t, e), lat)));
    t = sk_vec3_add(t, sk_vec3_make(-HANG_IN * P->hang_out.x, 0.02f, -HANG_IN * P->hang_out.z));
    sk_ik_target tg = {.position = t, .has_pole = true};
    /* the elbow out to its side and back from the wall */
    sk_vec3 side = vec3_horizontal(sk_vec3_sub(ts.t, pos_of(P, P->body)));
    side = skm_vec3_len(side) > 1e-4f ? skm_vec3_unit(side) : lat;
    tg.pole = sk_vec3_add(te.t, sk_vec3_add(side, sk_vec3_scale(P->hang_out, 0.5f)));
    sk_ik_options o = {.solver = SK_IK_TWO_BONE};
    sk_quat cs, ce;
    P->hang_hand[a] = t;
    if (!sk_ik_two_bone(&ts, &te, &th, &tg, &o, &cs, &ce, NULL)) return;
    cs = skm_quat_scale_angle(cs, w), ce = skm_quat_scale_angle(ce, w);
    loc[m->shoulder].r = skm_quat_normalize(skm_quat_mul(loc[m->shoulder].r, cs));
    loc[m->elbow].r = skm_quat_normalize(skm_quat_mul(loc[m->elbow].r, ce));
    /* within the arm's limits (the hand then short of the edge by what they forbid) */
    if (P->d.limits) {
        uint32_t js[2] = {m->shoulder, m->elbow};
        for (int k = 0; k < 2; k++) {
            const sk_ik_limit *lim = &P->d.limits[js[k]];
            if (lim->type == SK_IK_LIMIT_NONE) continue;
            sk_quat ref = P->skel->rest[js[k]].r;
            sk_quat rel = skm_quat_mul(sk_quat_conjugate(ref), loc[js[k]].r);
            if (!sk_ik_limit_check(lim, sk_vec3_make(0, 1, 0), rel, 1e-4f))
                loc[js[k]].r = skm_quat_normalize(skm_quat_mul(ref, sk_ik_limit_clamp(lim, sk_vec3_make(0, 1, 0), rel)));
        }
    }
}

/* The legs hang under the hips, knees a little bent toward the facing,
 * the feet kept over the ground under them (stepping off the ledge, the
 * body is still low from walking). */
static void hang_legs(sk_procedural *P, sk_transform *loc) {
    sk_vec3 fwd = sk_vec3_make(P->ys, 0, P->yc);
    for (uint32_t l = 0; l < 2; l++) {
        const pleg *g = &P->leg[l];
        sk_transform th, tk, ta;
        sk_mat4_decompose(&P->model[g->hip], &th);
        sk_mat4_decompose(&P->model[g->knee], &tk);
        sk_mat4_decompose(&P->model[g->ankle], &ta);
        float low = -INFINITY; /* the ground under the foot, heel to toe */
        for (int k = 0; k < 2; k++) {
            sk_vec3 q = point_of(P, k ? g->tip : g->ankle, k ? g->toe_pt : g->heel_pt);
            sk_terrain_hit h;
            P->ground.rays++;
            if (sk_terrain_height(&P->d.terrain, q.x, q.z, th.t.y, 10.0f, &h)) low = fmaxf(low, h.point.y);
        }
        /* near the wall the ledge is under the toes still */
        if (sk_vec3_dot(sk_vec3_sub(th.t, P->hang_edge), P->hang_out) < 0.2f) low = fmaxf(low, P->hang_edge.y);
        float ay = fmaxf(th.t.y - 0.97f * g->length, low + g->ankle_off.y + 0.01f);
        ay = fminf(ay, th.t.y - 0.55f * g->length); /* the knee bent 115 degrees at most */
        sk_ik_target tg = {.position = sk_vec3_make(th.t.x + 0.05f * fwd.x, ay, th.t.z + 0.05f * fwd.z), .has_pole = true};
        tg.pole = sk_vec3_add(tk.t, fwd);
        sk_ik_options o = {.solver = SK_IK_TWO_BONE};
        sk_quat cs, cm;
        if (!sk_ik_two_bone(&th, &tk, &ta, &tg, &o, &cs, &cm, NULL)) continue;
        loc[g->hip].r = skm_quat_normalize(skm_quat_mul(loc[g->hip].r, cs));
        loc[g->knee].r = skm_quat_normalize(skm_quat_mul(loc[g->knee].r, cm));
    }
    fk_from(P, loc, 0, P->J);
}

void proc_hang_pose(sk_procedural *P, sk_pose *pose, double dt) {
    sk_procedural_state *st = &P->st;
    sk_transform *loc = pose->local;
    P->hang_t += dt;
    /* out over the drop and turning first (the feet clear of the ledge),
     * then down */
    float t = (float)P->hang_t;
    float k = skm_clampf(t / HANG_OUT_T, 0, 1), kv = skm_clampf((t - HANG_OUT_T) / (HANG_GRAB - HANG_OUT_T), 0, 1);
    k = k * k * (3 - 2 * k);
    kv = kv * kv * (3 - 2 * kv);
    /* the facing turns to the wall */
    st->yaw = skm_wrap_angle(P->hang_yaw0 + skm_wrap_angle(P->hang_yaw - P->hang_yaw0) * k);
    P->yq = skm_quat_rot_y(st->yaw);
    P->ys = sinf(st->yaw), P->yc = cosf(st->yaw);
    /* the body from where it stepped off to hanging: its shoulders under
     * the hands by the arms' length */
    float arm = 0.5f * (P->arm[0].length + P->arm[1].length);
    float sh_h = 0.5f * (P->rt[P->arm[0].shoulder].y + P->rt[P->arm[1].shoulder].y) - P->rt[P->body].y;
    float across = HANG_OUT + HANG_IN, reach = HANG_ARM * arm;
    float drop = sqrtf(fmaxf(reach * reach - across * across, 0.0f));
    float prep = skm_clampf((t - (HANG_GRAB + HANG_HOLD - HANG_PREP)) / HANG_PREP, 0, 1);
    sk_vec3 b1 = sk_vec3_add(P->hang_edge, sk_vec3_scale(P->hang_out, HANG_OUT + HANG_LEAN * prep * prep));
    b1.y = P->hang_edge.y + 0.02f - drop - sh_h;
    sk_vec3 b = skm_vec3_lerp(P->hang_p0, b1, k);
    b.y = P->hang_p0.y + (b1.y - P->hang_p0.y) * kv + HANG_HOP * sinf(SKM_PI * skm_clampf(t / HANG_OUT_T, 0, 1));
    P->hang_at = sk_vec3_make(b.x, 0, b.z);
    st->position.x = b.x, st->position.z = b.z;
    st->body_height = b.y;
    /* the rest pose, the body placed (as pose_legs places it), the legs hanging */
    memcpy(loc, P->skel->rest, sizeof(sk_transform) * P->J);
    sk_vec3 dw = sk_vec3_make(0, b.y - P->rt[P->body].y, 0);
    int32_t bp = P->skel->parents[P->body];
    if (bp >= 0) {
        dw = skm_quat_rotate(sk_quat_conjugate(P->rr[bp]), dw);
        dw = sk_vec3_make(dw.x / P->rs[bp].x, dw.y / P->rs[bp].y, dw.z / P->rs[bp].z);
    }
    loc[P->body].t = sk_vec3_add(loc[P->body].t, dw);
    sk_transform rt = {sk_vec3_make(st->position.x, 0, st->position.z), P->yq, sk_vec3_make(1, 1, 1)};
    st->root = sk_mat4_from_transform(&rt);
    fk_from(P, loc, 0, P->J);
    hang_legs(P, loc);
    for (uint32_t a = 0; a < 2; a++) grab(P, loc, a, k);
    fk_from(P, loc, 0, P->J);
    feet_off_ground(P);
    for (uint32_t l = 0; l < 2; l++) {
        sk_procedural_foot *f = &st->feet[l];
        /* a foot that was on the ground has left it (UP where it stood) */
        footstep_event(&f->event, P->contact[l], false, &P->stood[l], &P->stood[l], f->ankle, f->ankle, dt);
        P->contact[l] = false;
    }
    st->velocity = sk_vec3_make(0, 0, 0);
    st->speed = 0;
    /* let go (over ground): the walker's own fall, from this height */
    if (P->hang_t >= HANG_GRAB + HANG_HOLD && P->hang_below) {
        st->mode = SK_PROCEDURAL_AIRBORNE;
        P->vy = 0;
        P->body_y = b.y;
        P->hang_phase = HANG_DROP;
        P->hang_pushed = 0;
        P->hang_landed = false;
        /* the turn back takes most of the fall: to the feet's reach over the ground below */
        sk_terrain_hit h;
        P->ground.rays++;
        float below = sk_terrain_height(&P->d.terrain, b.x, b.z, b.y, 1e4f, &h) ? h.point.y : b.y - 1.0f;
        float fall = fmaxf(b.y - 0.8f * P->hip_h - below, 0.05f);
        P->hang_turn = fmaxf(0.8f * sqrtf(2.0f * fall / GRAVITY) - HANG_PUSH / HANG_PUSH_V, 0.05f);
        P->hang_t = 0;
    }
}
