/* The analytic two-bone solver (arm, leg): the low-level call
 * sk_ik_two_bone and the chain solver behind sk_ik_solve.
 *
 * Seed 004 ch. 3.2 (analytic solvers compute the answer directly
 * with geometry) and ch. 3.4 (the "Limb" solver for two-segment limbs, where
 * one chooses which way the middle joint bends). The law of cosines gives the
 * interior angles for the clamped target distance d:
 *   cos(angle at start) = (ab^2 + d^2 - bc^2) / (2 ab d)
 *   cos(angle at mid)   = (ab^2 + bc^2 - d^2) / (2 ab bc)
 * The middle and start joints first turn about the normal of the limb's
 * current bend plane (so a knee stays a hinge), then the start joint swings
 * the limb onto the target, then (pole vector) twists about the start-target
 * line so the middle joint points toward the pole. All rotations are built
 * from cosines and sines without inverse trigonometry:
 *   rotation by phi about axis = normalize(axis sin phi, 1 + cos phi).
 * Soft extension: past (1 - soft) of the reach the distance used is
 * L - s exp(-(d - (L - s)) / s), s = soft L (C1-continuous, approaches L), so
 * the knee does not snap straight. Planar chains place the knee directly in
 * the plane on the side of the pole (or of the current bend). */
#include "ik/solvers.h"

typedef struct tb_out {
    sk_quat qa;   /* model-space rotation about the start joint (applied last) */
    sk_quat qb;   /* model-space rotation about the middle joint (applied first) */
    float stretch;
    bool reached;
} tb_out;

/* Shortest rotation taking u onto v, |u| = lu, |v| = lv > 0: (u x v, m + u.v)
 * normalized, m = lu lv (no trigonometry); a half turn when opposite,
 * identity when u = 0. */
static inline sk_quat swing_to(sk_vec3 u, sk_vec3 v, float lu, float lv) {
    if (!(lu > 1e-15f)) return sk_quat_identity();
    float m = lu * lv, w = m + sk_vec3_dot(u, v);
    if (w < 1e-6f * m) {
        sk_vec3 p = skm_vec3_perp(u);
        return sk_quat_make(p.x, p.y, p.z, 0.0f);
    }
    sk_vec3 c = sk_vec3_cross(u, v);
    float k = 1.0f / sqrtf(sk_vec3_dot(c, c) + w * w); /* (= 2 m w, but exact near a half turn) */
    return sk_quat_make(c.x * k, c.y * k, c.z * k, w * k);
}

/* sqrt(max(0, x)) without a call to fmaxf (not inlined without -ffast-math) */
static inline float sqrt_pos(float x) { return x > 0.0f ? sqrtf(x) : 0.0f; }

/* max_stretch: o->max_stretch, or 0 (the low-level call does not stretch).
 * Inlined into both callers (the low-level call is latency-bound). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void two_bone_core(sk_vec3 a, sk_vec3 b, sk_vec3 c, sk_vec3 t, const sk_ik_target *tg,
                                 const sk_ik_options *o, float max_stretch, tb_out *out) {
    out->qa = sk_quat_identity();
    out->qb = sk_quat_identity();
    out->stretch = 1.0f;
    sk_vec3 v = sk_vec3_sub(b, a), w = sk_vec3_sub(c, b), at = sk_vec3_sub(t, a);
    float ab = skm_vec3_len(v), bc = skm_vec3_len(w), d = skm_vec3_len(at);
    float L = ab + bc;
    bool planar = !skm_vec3_is_zero(o->plane_normal);
    sk_vec3 n = planar ? skm_vec3_unit(o->plane_normal) : sk_vec3_make(0, 0, 0);
    if (ab <= 1e-7f * (L + 1e-30f) || bc <= 1e-7f * (L + 1e-30f) || d <= 1e-12f) {
        /* A zero-length bone (or a target on the start joint): only the swing
         * of the whole limb is defined. */
        sk_vec3 u = sk_vec3_sub(c, a);
        if (d > 1e-12f) out->qa = skm_quat_from_to(u, at);
        sk_vec3 e = sk_vec3_sub(sk_vec3_add(a, skm_quat_rotate(out->qa, u)), t);
        out->reached = skm_vec3_len(e) <= 1e-5f * (L > 0 ? L : 1.0f);
        return;
    }
    float dmin = fabsf(ab - bc);
    float dc = d < dmin ? dmin : (d > L ? L : d);
    if (o->soft > 0) {
        float s = o->soft * L, d0 = L - s;
        if (d > d0) dc = L - s * expf(-(d - d0) / s);
    }
    float f = 1.0f;
    if (max_stretch > 1.0f && d > dc) {
        f = d / dc;
        if (f > max_stretch) f = max_stretch;
        ab *= f;
        bc *= f;
        v = sk_vec3_scale(v, f);
        w = sk_vec3_scale(w, f);
        L *= f;
        dc *= f;
    }
    out->stretch = f;
    sk_vec3 u = sk_vec3_add(v, w); /* c - a (stretched) */

    if (planar) {
        sk_vec3 dir = sk_vec3_scale(at, 1.0f / d);
        /* Knee placed directly in the plane. */
        sk_vec3 bend = sk_vec3_cross(u, v);
        float side = sk_vec3_dot(bend, n) < 0 ? -1.0f : 1.0f;
        if (tg->has_pole) {
            float ps = sk_vec3_dot(sk_vec3_cross(at, sk_vec3_sub(tg->pole, a)), n);
            if (ps != 0.0f) side = ps < 0 ? -1.0f : 1.0f;
        }
        sk_vec3 dirp = skm_vec3_unit(skm_vec3_reject(dir, n));
        if (skm_vec3_is_zero(dirp)) dirp = skm_vec3_unit(skm_vec3_reject(u, n));
        float x = (ab * ab - bc * bc + dc * dc) / (2.0f * dc);
        float h2 = ab * ab - x * x;
        float h = h2 > 0 ? sqrtf(h2) : 0.0f;
        sk_vec3 perp = sk_vec3_scale(sk_vec3_cross(n, dirp), side);
        sk_vec3 k = sk_vec3_add(sk_vec3_scale(dirp, x), sk_vec3_scale(perp, h)); /* knee - a */
        sk_vec3 tt = sk_vec3_scale(dirp, dc);                                       /* tip - a */
        sk_vec3 vp = skm_vec3_reject(v, n), kp = k;
        float ang_a = atan2f(sk_vec3_dot(sk_vec3_cross(vp, kp), n), sk_vec3_dot(vp, kp));
        out->qa = skm_quat_axis_angle(n, ang_a);
        /* the shin after the start joint turned */
        sk_vec3 w1 = skm_quat_rotate(out->qa, w), want = sk_vec3_sub(tt, k);
        sk_vec3 w1p = skm_vec3_reject(w1, n);
        float ang_b = atan2f(sk_vec3_dot(sk_vec3_cross(w1p, want), n), sk_vec3_dot(w1p, want));
        /* qb is applied before qa: conjugate the model-space turn back */
        sk_quat qb_after = skm_quat_axis_angle(n, ang_b);
        out->qb = skm_quat_mul(sk_quat_conjugate(out->qa), skm_quat_mul(qb_after, out->qa));
        sk_vec3 tip = sk_vec3_add(skm_quat_rotate(out->qa, v), skm_quat_rotate(qb_after, w1));
        out->reached = skm_vec3_len(sk_vec3_sub(tip, at)) <= 1e-5f * L;
        return;
    }

    /* Bend-plane normal. This is the hot path of the low-level call, bound by
     * the latency of its chain of square roots and divisions: squared
     * lengths, the sines from |u x v| (twice the area of the triangle a, b, c:
     * |u x v| = |v x w|) and the law of sines instead of sqrt(1 - cos^2),
     * and each reciprocal as early as its inputs allow. */
    sk_vec3 axis0 = sk_vec3_cross(u, v);
    float ax2 = sk_vec3_dot(axis0, axis0), lu2 = sk_vec3_dot(u, u);
    float axl0 = sqrtf(ax2), lu = sqrtf(lu2);
    float axl = axl0;
    if (ax2 <= 1e-12f * lu2 * (ab * ab)) {
        /* straight limb: bend toward the pole if there is one */
        axis0 = tg->has_pole ? sk_vec3_cross(u, sk_vec3_sub(tg->pole, a)) : sk_vec3_make(0, 0, 0);
        axl = skm_vec3_len(axis0);
        if (axl <= 1e-12f) {
            axis0 = skm_vec3_perp(u);
            axl = 1.0f;
        }
    }
    axis0 = sk_vec3_scale(axis0, 1.0f / axl);
    float r1 = 1.0f / (ab * bc);                 /* 1 / (ab bc) */
    float inv_ab_lu = lu > 0 ? 1.0f / (ab * lu) : 0.0f;
    /* current interior angles (cos, sin >= 0) */
    float ca0 = lu > 0 ? skm_clampf(sk_vec3_dot(u, v) * inv_ab_lu, -1.0f, 1.0f) : 1.0f;
    float sa0 = axl0 * inv_ab_lu;
    float cb0 = skm_clampf(-sk_vec3_dot(v, w) * r1, -1.0f, 1.0f);
    float sb0 = axl0 * r1;
    /* desired (law of cosines; law of sines: sb1 = sa1 dc / bc) */
    float ca1 = skm_clampf((ab * ab + dc * dc - bc * bc) / (2.0f * ab * dc), -1.0f, 1.0f);
    float sa1 = sqrt_pos(1.0f - ca1 * ca1);
    float cb1 = skm_clampf((ab * ab + bc * bc - dc * dc) * 0.5f * r1, -1.0f, 1.0f);
    if (dc >= L) { /* at full reach exactly straight (the rounding of the cosines would leave ~sqrt(eps) of bend) */
        ca1 = 1.0f;
        sa1 = 0.0f;
        cb1 = -1.0f;
    }
    float sb1 = sa1 * (dc / bc);
    /* turn by (angle1 - angle0) about axis0 at both joints */
    sk_quat qa1 = skm_quat_rot_cs(axis0, ca1 * ca0 + sa1 * sa0, sa1 * ca0 - ca1 * sa0);
    sk_quat qb = skm_quat_rot_cs(axis0, cb1 * cb0 + sb1 * sb0, sb1 * cb0 - cb1 * sb0);
    /* Both joints turn by (angle1 - angle0) about the bend normal, so the
     * start-to-tip direction is kept: after those turns the tip is at
     * a + dc u/|u|, and the swing onto the target is the shortest arc from u
     * to at — computed from the inputs, in parallel with the turns instead
     * of after them. (When the tip is on the start joint, u = 0: the swing
     * is taken from the turned limb.) */
    sk_quat qa;
    bool reached;
    if (lu > 1e-6f * L) {
        qa = skm_quat_mul(swing_to(u, at, lu, d), qa1);
        reached = fabsf(dc - d) <= 1e-5f * L; /* the tip is on the ray a + s at/d, s = dc */
    } else {
        sk_vec3 c1 = sk_vec3_add(v, skm_quat_rotate(qb, w));
        qa = skm_quat_mul(skm_quat_from_to(skm_quat_rotate(qa1, c1), at), qa1);
        sk_vec3 e = sk_vec3_sub(skm_quat_rotate(qa, c1), at);
        reached = sk_vec3_dot(e, e) <= (1e-5f * L) * (1e-5f * L);
    }
    if (tg->has_pole) {
        sk_vec3 dir = sk_vec3_scale(at, 1.0f / d);
        sk_vec3 knee = skm_quat_rotate(qa, v);
        qa = skm_quat_mul(skm_quat_twist_onto(dir, knee, sk_vec3_sub(tg->pole, a)), qa);
    }
    out->qa = qa;
    out->qb = qb;
    out->reached = reached; /* the pole twist is about the target line: the tip stays */
}

bool sk_ik_two_bone(const sk_transform *sm, const sk_transform *mm, const sk_transform *em, const sk_ik_target *tg,
                    const sk_ik_options *o, sk_quat *out_start, sk_quat *out_mid, bool *reached) {
    static const sk_ik_options zero_options;
    if (out_start) *out_start = sk_quat_identity();
    if (out_mid) *out_mid = sk_quat_identity();
    if (reached) *reached = false;
    if (!sm || !mm || !em || !tg) return false;
    if (!o) o = &zero_options;
    if (!skm_vec3_finite(tg->position) || !skm_vec3_finite(sm->t) || !skm_vec3_finite(mm->t) ||
        !skm_vec3_finite(em->t) || !skm_quat_finite(sm->r) || !skm_quat_finite(mm->r) ||
        (tg->has_pole && !skm_vec3_finite(tg->pole)))
        return false;
    tb_out r;
    two_bone_core(sm->t, mm->t, em->t, tg->position, tg, o, 0.0f, &r); /* the low-level call does not stretch */
    /* local corrections: start conj(Ra) qa Ra, middle conj(Rb) qb Rb */
    sk_quat ra = sm->r, rb = mm->r;
    sk_quat cs = skm_quat_mul(sk_quat_conjugate(ra), skm_quat_mul(r.qa, ra));
    sk_quat cm = skm_quat_mul(sk_quat_conjugate(rb), skm_quat_mul(r.qb, rb));
    float wgt = 1.0f - o->fk_blend;
    if (wgt < 1.0f) {
        cs = skm_quat_scale_angle(cs, wgt);
        cm = skm_quat_scale_angle(cm, wgt);
    }
    if (out_start) *out_start = cs; /* products of unit quaternions: unit to float precision */
    if (out_mid) *out_mid = cm;
    if (reached) *reached = r.reached && wgt >= 1.0f;
    return true;
}

void ik_solve_two_bone(ik_state *s, const sk_ik_target *tg, sk_transform *io_local, sk_ik_result *res) {
    tb_out r;
    two_bone_core(s->p[0], s->p[1], s->p[2], s->target, tg, s->opt, s->opt->max_stretch, &r);
    sk_quat R0 = s->R[0], R1 = s->R[1];
    s->lq[0] = skm_quat_unit(skm_quat_mul(sk_quat_conjugate(s->parent_r), skm_quat_mul(r.qa, R0)));
    s->lq[1] = skm_quat_unit(skm_quat_mul(sk_quat_conjugate(R0), skm_quat_mul(r.qb, R1)));
    ik_apply_limit(s, 0);
    ik_apply_limit(s, 1);
    if (r.stretch != 1.0f) {
        float f = 1.0f + (r.stretch - 1.0f) * (1.0f - s->opt->fk_blend);
        for (uint32_t i = 1; i < 3; i++) {
            sk_transform *lt = &io_local[s->joints[i]];
            lt->t = sk_vec3_scale(lt->t, f);
            s->bone[i - 1] = sk_vec3_scale(s->bone[i - 1], f);
        }
        res->stretch = f;
    }
    res->stop = SK_IK_STOP_ANALYTIC;
    res->iterations = 1;
}
