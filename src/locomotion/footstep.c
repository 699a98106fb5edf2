/* The ground and footstep helpers of the locomotion runtimes (footstep.h):
 * the ground probe's rays, footstep placement from heel and toe rays with
 * the step-edge rule (seed 002 §5.2.1) and the foot's rotation on the
 * ground, shared by the semi-procedural locomotor and the IK-only walker. */
#include "core/internal.h"
#include "core/math_inline.h"
#include "footstep.h"

#include <math.h>
#include <string.h>

#define EDGE_TOL 0.015f
#define EDGE_MARGIN 0.02f
#define FOOT_PAD 0.01f
#define FOOT_HALF_WIDTH 0.05f
#define EDGE_GAP 0.004f /* a foot centred on a tread keeps this from either edge at least (m) */


int32_t legs_common_ancestor(const sk_skeleton *s, const uint32_t *joints, uint32_t n) {
    for (int32_t c = s->parents[joints[0]]; c >= 0; c = s->parents[c]) {
        bool all = true;
        for (uint32_t i = 0; i < n && all; i++) {
            int32_t j = (int32_t)joints[i];
            while (j >= 0 && j != c) j = s->parents[j];
            all = j == c;
        }
        if (all) return c;
    }
    return -1;
}

bool ground_probe_cast(ground_probe *G, float x, float z, float y_ref, sk_terrain_hit *hit) {
    G->rays++;
    if (!G->terrain.raycast) { /* flat at 0 */
        hit->point = sk_vec3_make(x, 0, z);
        hit->normal = sk_vec3_make(0, 1, 0);
        hit->distance = 0;
        return true;
    }
    /* Ground ahead may be higher (a ramp, stairs): the ray starts higher
     * the farther the point is from the character, as for a 56 degree
     * slope, and looks as much lower. */
    float d = 1.5f * hypotf(x - G->center.x, z - G->center.z);
    float top = y_ref + G->max_up + d;
    return sk_terrain_height(&G->terrain, x, z, top, G->max_up + G->max_down + 2 * d, hit);
}

sk_quat footstep_rotation(float yaw, sk_vec3 foot_dir_c, sk_vec3 heel, sk_vec3 toe, sk_vec3 normal) {
    sk_quat qy = skm_quat_rot_y(yaw);
    sk_vec3 f0 = skm_vec3_unit(vec3_horizontal(vec3_turn_y(foot_dir_c, yaw)));
    sk_vec3 f = skm_vec3_unit(sk_vec3_sub(toe, heel));
    if (skm_vec3_is_zero(f0) || skm_vec3_is_zero(f)) return qy;
    sk_quat q1 = skm_quat_from_to(f0, f);
    sk_vec3 up1 = skm_quat_rotate(q1, sk_vec3_make(0, 1, 0));
    sk_quat q2 = skm_quat_twist_onto(f, up1, normal);
    return skm_quat_normalize(skm_quat_mul(skm_quat_mul(q2, q1), qy));
}

/* Plane through a with normal n: height at (x, z). */
static float plane_y(sk_vec3 a, sk_vec3 n, float x, float z) {
    if (!(n.y > 1e-3f)) return a.y;
    return a.y - (n.x * (x - a.x) + n.z * (z - a.z)) / n.y;
}

static bool straddles(sk_terrain_hit *h, sk_terrain_hit *t) {
    float e1 = fabsf(t->point.y - plane_y(h->point, h->normal, t->point.x, t->point.z));
    float e2 = fabsf(h->point.y - plane_y(t->point, t->normal, h->point.x, h->point.z));
    return e1 > EDGE_TOL && e2 > EDGE_TOL;
}

/* Casts the heel and toe rays for a foot whose heel is at (heel.x, heel.z)
 * and whose toe is d further. Returns how many hit (0..2). */
static int cast_foot(ground_probe *G, sk_vec3 heel, sk_vec3 d, float y_ref, sk_terrain_hit *h, sk_terrain_hit *t) {
    bool bh = ground_probe_cast(G, heel.x, heel.z, y_ref, h);
    bool bt = ground_probe_cast(G, heel.x + d.x, heel.z + d.z, y_ref, t);
    if (bh && !bt) { *t = *h; t->point = sk_vec3_add(h->point, sk_vec3_make(d.x, 0, d.z)); }
    if (bt && !bh) { *h = *t; h->point = sk_vec3_sub(t->point, sk_vec3_make(d.x, 0, d.z)); }
    return (int)bh + (int)bt;
}

#define CONVEX_SAMPLES 5

#define TREADS_WINDOW 1.5f   /* m along the way looked at */
#define TREADS_RAYS 21        /* 7.5 cm apart */
#define TREADS_MIN_RISE 0.03f /* m: a smaller step is uneven ground, not a riser */
#define TREADS_BISECT 6       /* 7.5 cm / 64: about a millimetre */
#define TREADS_MAX 6
#define TREADS_EVEN 0.15f

bool ground_probe_treads(ground_probe *G, sk_vec3 o, sk_vec3 u, float y_ref, float *depth, float *rise,
                         float *first) {
    const float ds = TREADS_WINDOW / (TREADS_RAYS - 1);
    float edge[TREADS_MAX], jump[TREADS_MAX], prev = 0;
    int ne = 0;
    sk_terrain_hit h;
    for (int i = 0; i < TREADS_RAYS && ne < TREADS_MAX; i++) {
        float s = (float)i * ds;
        if (!ground_probe_cast(G, o.x + u.x * s, o.z + u.z * s, y_ref, &h)) return false;
        float y = h.point.y;
        if (i > 0 && fabsf(y - prev) > TREADS_MIN_RISE) {
            float a = s - ds, b = s, ya = prev, yb = y;
            for (int k = 0; k < TREADS_BISECT; k++) {
                float m = 0.5f * (a + b);
                if (!ground_probe_cast(G, o.x + u.x * m, o.z + u.z * m, y_ref, &h)) return false;
                if (fabsf(h.point.y - prev) < fabsf(h.point.y - y)) a = m, ya = h.point.y;
                else b = m, yb = h.point.y;
            }
            if (!(fabsf(yb - ya) > 0.5f * fabsf(y - prev))) return false;
            edge[ne] = 0.5f * (a + b);
            jump[ne++] = y - prev;
        }
        prev = y;
    }
    if (ne < 3) return false;
    float jm = 0;
    for (int k = 0; k < ne; k++) jm += jump[k];
    jm /= (float)ne;
    for (int k = 0; k < ne; k++)
        if (jump[k] * jm <= 0 || fabsf(jump[k] - jm) > 0.25f * fabsf(jm)) return false;
    float gm = (edge[ne - 1] - edge[0]) / (float)(ne - 1);
    for (int k = 0; k + 1 < ne; k++)
        if (fabsf(edge[k + 1] - edge[k] - gm) > TREADS_EVEN * gm) return false;
    *depth = gm;
    *rise = jm;
    *first = edge[0];
    return true;
}

/* Heel and toe on one plane (flat ground, one slope, one tread): no crest
 * between them to look for (the rule's rays are spared). */
static bool coplanar(const sk_terrain_hit *h, const sk_terrain_hit *t) {
    return sk_vec3_dot(h->normal, t->normal) > 1.0f - 1e-6f &&
           fabsf(t->point.y - plane_y(h->point, h->normal, t->point.x, t->point.z)) <= EDGE_TOL;
}

/* The convex rule above: the ground at CONVEX_SAMPLES points strictly
 * between the heel's and the toe's hits (where the step-edge rule may have
 * moved them), at u = k/(n+1) of the way, against the chord h..t. */
static void convex_rest(ground_probe *G, float y_ref, sk_terrain_hit *h, sk_terrain_hit *t) {
    sk_vec3 p0 = h->point, dp = sk_vec3_sub(t->point, h->point);
    float gy[CONVEX_SAMPLES], gx[CONVEX_SAMPLES], gz[CONVEX_SAMPLES];
    float excess = 0, at = 0.5f;
    int n = 0;
    for (int k = 0; k < CONVEX_SAMPLES; k++) {
        float uk = (float)(k + 1) / (CONVEX_SAMPLES + 1);
        sk_vec3 q = sk_vec3_add(p0, sk_vec3_scale(dp, uk));
        sk_terrain_hit m;
        if (!ground_probe_cast(G, q.x, q.z, y_ref, &m)) continue;
        float chord = h->point.y + (t->point.y - h->point.y) * uk;
        if (m.point.y - chord > excess) excess = m.point.y - chord, at = uk;
        gx[n] = q.x, gz[n] = q.z, gy[n] = m.point.y;
        n++;
    }
    if (!(excess > EDGE_TOL)) return;
    /* each candidate plane: how far the ground between stands above it */
    const sk_terrain_hit *cand[2] = {h, t};
    float under[2];
    for (int c = 0; c < 2; c++) {
        under[c] = 0;
        for (int k = 0; k < n; k++)
            under[c] = skm_fmaxf(under[c], gy[k] - plane_y(cand[c]->point, cand[c]->normal, gx[k], gz[k]));
        const sk_terrain_hit *o = cand[1 - c];
        under[c] = skm_fmaxf(under[c], o->point.y - plane_y(cand[c]->point, cand[c]->normal, o->point.x, o->point.z));
    }
    /* the one the ground leaves less under; else the flatter (a foot
     * pitched with a steep slope past the crest would be pitched back to
     * what the ankle allows about an end in the air); else the one under
     * more of the foot */
    int c = under[0] < under[1] - EDGE_TOL ? 0 : under[1] < under[0] - EDGE_TOL ? 1
          : fabsf(h->normal.y - t->normal.y) > 1e-3f ? (h->normal.y > t->normal.y ? 0 : 1)
          : at >= 0.5f ? 0 : 1;
    sk_vec3 nrm = cand[c]->normal;
    sk_vec3 a = cand[c]->point;
    a.y += under[c];
    sk_terrain_hit nh = *h, nt = *t;
    nh.point.y = plane_y(a, nrm, h->point.x, h->point.z);
    nt.point.y = plane_y(a, nrm, t->point.x, t->point.z);
    nh.normal = nt.normal = nrm;
    *h = nh;
    *t = nt;
}

/* The tread on one side of an edge found at s_edge along du from o (a
 * padded heel): forward, the ground beyond the edge until it leaves the
 * plane just beyond it; back, the ground before it until it leaves the plane
 * just before it, searched over reach (a padded foot's length) plus the
 * margin. *mid: the tread's middle along du from o, *depth its length.
 * False when no such plane is hit or the tread runs past the search. */
static bool tread_extent(ground_probe *G, sk_vec3 o, sk_vec3 du, float s_edge, bool forward, float reach, float y_ref,
                         float *mid, float *depth) {
    float sg = forward ? 1.0f : -1.0f, s0 = s_edge + sg * EDGE_GAP;
    sk_vec3 p0 = sk_vec3_add(o, sk_vec3_scale(du, s0));
    sk_terrain_hit a, m;
    if (!ground_probe_cast(G, p0.x, p0.z, y_ref, &a)) return false;
    float far = s_edge + sg * (reach + EDGE_MARGIN + EDGE_GAP);
    sk_vec3 pf = sk_vec3_add(o, sk_vec3_scale(du, far));
    if (ground_probe_cast(G, pf.x, pf.z, y_ref, &m) && fabsf(m.point.y - plane_y(a.point, a.normal, pf.x, pf.z)) <= EDGE_TOL)
        return false; /* the tread runs on: a move would have fitted */
    float lo = s0, hi = far; /* lo on the plane, hi off it */
    for (int i = 0; i < 8; i++) {
        float u = 0.5f * (lo + hi);
        sk_vec3 q = sk_vec3_add(o, sk_vec3_scale(du, u));
        bool on = ground_probe_cast(G, q.x, q.z, y_ref, &m) && fabsf(m.point.y - plane_y(a.point, a.normal, q.x, q.z)) <= EDGE_TOL;
        if (on) lo = u; else hi = u;
    }
    float s_far = 0.5f * (lo + hi);
    *mid = 0.5f * (s_edge + s_far);
    *depth = fabsf(s_far - s_edge);
    return true;
}

/* §5.2.1: a footstep for a foot whose heel (footbase) is at base, facing
 * yaw, on the ground, moved off step edges. */
void footstep_place(ground_probe *G, sk_vec3 foot_dir_c, sk_vec3 base, float yaw, double when, int *prefer,
                    sk_footstep *out) {
    sk_vec3 d = vec3_horizontal(vec3_turn_y(foot_dir_c, yaw));
    float flen = skm_vec3_len(d);
    sk_vec3 du = flen > 1e-6f ? sk_vec3_scale(d, 1.0f / flen) : sk_vec3_make(0, 0, 1);
    float y_ref = G->center.y;
    sk_terrain_hit h, t;
    /* The rays are cast FOOT_PAD beyond the heel and the toe points, so a
     * foot whose toe tip reaches a riser's face counts as straddling it. */
    sk_vec3 padv = sk_vec3_scale(du, FOOT_PAD);
    sk_vec3 dp = sk_vec3_add(d, sk_vec3_scale(padv, 2));
    float flen_p = flen + 2 * FOOT_PAD;
    int hits = cast_foot(G, sk_vec3_sub(base, padv), dp, y_ref, &h, &t);
    if (hits == 0) { /* nothing below: keep the character's height */
        out->position = sk_vec3_make(base.x, y_ref, base.z);
        out->normal = sk_vec3_make(0, 1, 0);
        out->yaw = yaw;
        out->rotation = skm_quat_rot_y(yaw);
        out->time = when;
        return;
    }
    bool edge = hits == 2 && straddles(&h, &t);
    if (edge) {
        /* Curved ground (bumps) also leaves the heel's plane; an edge is a
         * jump: there the ground halfway between heel and toe is at one of
         * the two heights, not near their mean. */
        sk_vec3 mid = sk_vec3_scale(sk_vec3_add(h.point, t.point), 0.5f);
        sk_terrain_hit m;
        if (ground_probe_cast(G, mid.x, mid.z, y_ref, &m) &&
            fabsf(m.point.y - mid.y) < 0.25f * fabsf(t.point.y - h.point.y))
            edge = false;
    }
    if (edge) {
        /* Bisection for the edge: u in (0, 1) along heel -> toe where the
         * ground leaves the heel's plane. */
        float lo = 0, hi = 1;
        for (int i = 0; i < 6; i++) {
            float u = 0.5f * (lo + hi);
            sk_terrain_hit m;
            sk_vec3 p = sk_vec3_add(sk_vec3_sub(base, padv), sk_vec3_scale(dp, u));
            bool on_heel = ground_probe_cast(G, p.x, p.z, y_ref, &m) &&
                           fabsf(m.point.y - plane_y(h.point, h.normal, p.x, p.z)) <= EDGE_TOL;
            if (on_heel) lo = u; else hi = u;
        }
        float ue = 0.5f * (lo + hi);
        float fwd = ue * flen_p + EDGE_MARGIN, back = (1 - ue) * flen_p + EDGE_MARGIN;
        /* The shorter move first, unless this leg's last footstep moved the
         * other way and that way is within a foot length, or (with
         * G->edge_hysteresis h) longer by less than h of the foot
         * (hysteresis: a prediction creeping over an edge does not flip
         * between the treads every frame; with h, one that falls back by
         * most of a tread goes back with it: held on the higher tread, a
         * small character's first step onto stairs landed three treads up). */
        bool fwd_first = fwd < back;
        if (prefer && *prefer != 0) {
            float keep = *prefer > 0 ? fwd : back, other = *prefer > 0 ? back : fwd;
            if (G->edge_hysteresis > 0 ? keep - other < G->edge_hysteresis * flen_p : keep < flen_p + EDGE_MARGIN)
                fwd_first = *prefer > 0;
        }
        float shifts[2] = {fwd_first ? fwd : -back, fwd_first ? -back : fwd};
        bool fixed = false;
        /* In that order, each way in turn: the move off the edge, then, where the
         * edge is a riser and the tread that way is too short for the padded foot and
         * its margins, the foot centred on it (its own heel and toe on the tread, the
         * pads may overhang); last, the foot centred on the tread either way, in the
         * same order (neither move fits when the tread is barely longer than the foot:
         * Mixamo's 25 cm feet with their pads on 28 cm treads). Before the centring
         * came after both moves: a foot whose padded length nearly filled the tread
         * (CesiumMan's, 0.27 m on 0.28 m) could not move forward off its edge with
         * the margin and moved a whole tread back instead, and up stairs its steps
         * took no tread and then two by turns. */
        enum { MOVE, CENTRE_NARROW, CENTRE };
        static const struct { int k, kind; } order[6] = {{0, MOVE}, {0, CENTRE_NARROW}, {1, MOVE},
                                                        {1, CENTRE_NARROW}, {0, CENTRE}, {1, CENTRE}};
        int riser = -1; /* the edge a jump (1) or curved ground (0): looked at once, when needed */
        for (int step = 0; step < 6 && !fixed; step++) {
            int k = order[step].k, kind = order[step].kind;
            if (kind == MOVE) {
                sk_vec3 b2 = sk_vec3_add(base, sk_vec3_scale(du, shifts[k]));
                sk_terrain_hit h2, t2;
                if (cast_foot(G, sk_vec3_sub(b2, padv), dp, y_ref, &h2, &t2) == 2 && !straddles(&h2, &t2) &&
                    (G->edge_max_dh <= 0 || fabsf(h2.point.y - h.point.y) <= G->edge_max_dh)) {
                    h = h2;
                    t = t2;
                    fixed = true;
                    if (prefer) *prefer = shifts[k] > 0 ? 1 : -1;
                }
                continue;
            }
            if (kind == CENTRE_NARROW) {
                if (riser < 0) { /* most of the change within 4 mm of the edge */
                    sk_terrain_hit m0, m1;
                    sk_vec3 pe = sk_vec3_add(sk_vec3_sub(base, padv), sk_vec3_scale(dp, ue));
                    sk_vec3 p0 = sk_vec3_sub(pe, sk_vec3_scale(du, 0.002f)), p1 = sk_vec3_add(pe, sk_vec3_scale(du, 0.002f));
                    riser = ground_probe_cast(G, p0.x, p0.z, y_ref, &m0) && ground_probe_cast(G, p1.x, p1.z, y_ref, &m1) &&
                            fabsf(m1.point.y - m0.point.y) > 0.5f * fabsf(t.point.y - h.point.y);
                }
                if (!riser) continue;
            }
            bool fwd_k = shifts[k] > 0;
            float sc, d2;
            if (!tread_extent(G, sk_vec3_sub(base, padv), du, ue * flen_p, fwd_k, flen_p, y_ref, &sc, &d2) ||
                d2 < flen + 2 * EDGE_GAP || (kind == CENTRE_NARROW && d2 >= flen_p + 2 * EDGE_MARGIN))
                continue;
            /* the heel's new place along du (from the padded heel's): the foot's middle on sc */
            float shift = sc - 0.5f * flen - FOOT_PAD;
            sk_vec3 b2 = sk_vec3_add(base, sk_vec3_scale(du, shift));
            sk_terrain_hit h2, t2;
            if (cast_foot(G, b2, d, y_ref, &h2, &t2) == 2 && !straddles(&h2, &t2) &&
                (G->edge_max_dh <= 0 || fabsf(h2.point.y - h.point.y) <= G->edge_max_dh)) {
                /* the padded points on the tread's plane */
                h = h2, t = t2;
                h.point = sk_vec3_sub(h2.point, padv);
                t.point = sk_vec3_add(t2.point, padv);
                h.point.y = plane_y(h2.point, h2.normal, h.point.x, h.point.z);
                t.point.y = plane_y(h2.point, h2.normal, t.point.x, t.point.z);
                t.normal = h2.normal;
                fixed = true;
                if (prefer) *prefer = fwd_k ? 1 : -1;
            }
        }
        if (!fixed) { /* rest flat on the higher hit */
            float y = skm_fmaxf(h.point.y, t.point.y);
            h.point.y = t.point.y = y;
            h.normal = t.normal = sk_vec3_make(0, 1, 0);
        }
    }
    /* Convex ground under the foot (a crest, the top of a ramp, the brink
     * of a descent): the line from the heel's hit to the toe's runs under
     * the ground between them, and a foot laid along it would stand in the
     * crest. The foot takes the plane of the heel's hit or of the toe's:
     * the one the ground between leaves the least under, on a ramp's crest
     * (both leave nothing) the flatter, and is raised by what is still
     * under it. Up a ramp onto its top the foot rolls over onto the top,
     * the heel in the air over the slope; from a top onto a descent it stands
     * on the top, the toe over the brink. */
    if (hits == 2 && !coplanar(&h, &t)) convex_rest(G, y_ref, &h, &t);
    /* An edge along the foot (a riser the foot walks beside): rays at the
     * middle of the foot's sides; one off the plane of the heel's and toe's
     * hits moves the foot away from it by the foot's half width. */
    if (hits == 2) {
        sk_vec3 side = sk_vec3_make(du.z, 0, -du.x);
        sk_vec3 mid = sk_vec3_scale(sk_vec3_add(h.point, t.point), 0.5f);
        sk_vec3 nm = skm_vec3_unit(sk_vec3_add(h.normal, t.normal));
        for (int k = 0; k < 2; k++) {
            float sg = k ? -1.0f : 1.0f;
            sk_vec3 q = sk_vec3_add(mid, sk_vec3_scale(side, sg * FOOT_HALF_WIDTH));
            sk_terrain_hit m;
            if (!ground_probe_cast(G, q.x, q.z, y_ref, &m) ||
                fabsf(m.point.y - plane_y(mid, nm, q.x, q.z)) <= EDGE_TOL)
                continue;
            sk_vec3 sh = sk_vec3_scale(side, -sg * (FOOT_HALF_WIDTH + EDGE_MARGIN));
            sk_terrain_hit h2, t2;
            sk_vec3 b2 = sk_vec3_add(sk_vec3_sub(h.point, padv), sh);
            b2.y = 0;
            if (cast_foot(G, b2, dp, y_ref, &h2, &t2) == 2 && !straddles(&h2, &t2)) {
                h = h2;
                t = t2;
            }
            break;
        }
    }
    sk_vec3 nrm = skm_vec3_unit(sk_vec3_add(h.normal, t.normal));
    if (skm_vec3_is_zero(nrm) || nrm.y < 0.1f) nrm = sk_vec3_make(0, 1, 0);
    out->position = skm_vec3_lerp(h.point, t.point, FOOT_PAD / flen_p); /* the heel, on the line of the hits */
    out->normal = nrm;
    out->yaw = yaw;
    out->rotation = footstep_rotation(yaw, foot_dir_c, h.point, t.point, nrm);
    out->time = when;
}

/* The contact event of a foot whose ground contact went from was to now:
 * DOWN onto `down`, UP from `up`, with the ankle's speed over the frame. */
void footstep_event(sk_foot_event *e, bool was, bool now, const sk_footstep *down, const sk_footstep *up,
                    sk_vec3 ankle_before, sk_vec3 ankle_now, double dt) {
    memset(e, 0, sizeof *e);
    if (was == now) return;
    const sk_footstep *fs = now ? down : up;
    e->kind = now ? SK_FOOT_EVENT_DOWN : SK_FOOT_EVENT_UP;
    e->position = fs->position;
    e->normal = fs->normal;
    float v = dt > 0 ? skm_vec3_len(sk_vec3_sub(ankle_now, ankle_before)) / (float)dt : 0.0f;
    e->speed = isfinite(v) ? v : 0.0f;
}
