/* FABRIK (seed 004 ch. 3.4; Aristidou & Lasenby 2011): places joints on
 * lines, first from the end effector (put on the target) back to the root,
 * then from the (restored) root forward, and only at the end turns the
 * positions into joint angles.
 *
 * Aristidou & Lasenby 2011, Algorithm 1 (one chain): if the target is beyond
 * reach, the chain is laid on the line from the root to the target (lines
 * 5-11). Otherwise iterate: forward reaching — the end effector is put on the
 * target and each joint p_i is placed on the line from the (new) p_{i+1} to
 * the old p_i at distance d_i (lambda_i = d_i / |p_{i+1} - p_i|,
 * p_i = (1 - lambda_i) p_{i+1} + lambda_i p_i); backward reaching — the root
 * goes back to its initial position and the same is done from the root out.
 * Positions are turned into rotations once at the end (bone lengths are
 * kept exactly because only rotations are written).
 *
 * With joint limits or a planar constraint, the backward stage works on
 * rotations instead: each joint turns (within its limit) so its bone points
 * at the position the forward stage found, and the next joint's position
 * follows by FK. This is the paper's idea of applying constraints during the
 * backward pass (§5), expressed with our rotational limits. */
#include "ik/solvers.h"

static inline sk_vec3 lerp_to(sk_vec3 from, sk_vec3 toward, float d, sk_vec3 fallback_dir) {
    sk_vec3 dv = sk_vec3_sub(toward, from);
    float r = skm_vec3_len(dv);
    if (r > 1e-20f) return sk_vec3_add(from, sk_vec3_scale(dv, d / r));
    return sk_vec3_add(from, sk_vec3_scale(fallback_dir, d));
}

static void fabrik_positions_to_rotations(ik_state *s, const sk_vec3 *P) {
    /* Each bone turns from its FK model orientation by the shortest arc onto
     * its new direction (so its twist about itself changes as little as
     * possible); these turns are independent of one another, the local
     * rotations follow as lq_i = conj(R'_(i-1)) R'_i. */
    uint32_t n = s->n;
    for (uint32_t i = 0; i + 1 < n; i++) {
        sk_vec3 cur = sk_vec3_sub(s->p[i + 1], s->p[i]);
        sk_vec3 want = sk_vec3_sub(P[i + 1], P[i]);
        sk_quat q = skm_quat_from_to(cur, want);
        s->R[i] = skm_quat_mul(q, s->R[i]);
    }
    for (uint32_t i = 0; i + 1 < n; i++)
        s->lq[i] = skm_quat_unit(skm_quat_mul(sk_quat_conjugate(ik_parent_rot(s, i)), s->R[i]));
    ik_fk(s, 0); /* the tip keeps its local rotation */
}

uint32_t ik_solve_fabrik(ik_state *s, sk_ik_result *res) {
    ik_stopper st;
    ik_stopper_init(&st, s->opt, 64, 16, s->t_start);
    const uint32_t n = s->n;
    const sk_vec3 t = s->target;
    const sk_vec3 b = s->root_p;
    sk_vec3 *P = s->work;
    const float *d = s->len;
    bool constrained = s->planar;
    for (uint32_t i = 0; i < n && !constrained; i++) constrained = ik_has_limit(s, i);
    uint32_t iter = 0;
    sk_ik_stop why = SK_IK_STOP_ITERATIONS;
    if (ik_done_before_start(s, res)) return 0;
    for (uint32_t i = 0; i < n; i++) P[i] = s->p[i];
    if (!constrained && s->unreach > 0) {
        /* Algorithm 1, lines 5-11: unreachable target — a straight line. */
        sk_vec3 dir = skm_vec3_unit(sk_vec3_sub(t, b));
        for (uint32_t i = 0; i + 1 < n; i++) P[i + 1] = sk_vec3_add(P[i], sk_vec3_scale(dir, d[i]));
        fabrik_positions_to_rotations(s, P);
        res->stop = SK_IK_STOP_TOLERANCE;
        res->iterations = 1;
        if (ik_residual(s, s->p[n - 1]) > s->tol) res->stop = SK_IK_STOP_NO_PROGRESS;
        return 0;
    }
    for (;;) {
        float r;
        iter++;
        /* Stage 1: forward reaching (Algorithm 1, lines 16-22). */
        P[n - 1] = t;
        for (uint32_t i = n - 1; i-- > 0;) {
            sk_vec3 fallback = skm_vec3_unit(sk_vec3_sub(b, P[i + 1]));
            if (skm_vec3_is_zero(fallback)) fallback = sk_vec3_make(0, 1, 0);
            P[i] = lerp_to(P[i + 1], P[i], d[i], fallback);
        }
        if (!constrained) {
            /* Stage 2: backward reaching (lines 23-29). */
            P[0] = b;
            for (uint32_t i = 0; i + 1 < n; i++) {
                sk_vec3 fallback = skm_vec3_unit(sk_vec3_sub(t, P[i]));
                if (skm_vec3_is_zero(fallback)) fallback = sk_vec3_make(0, 1, 0);
                P[i + 1] = lerp_to(P[i], P[i + 1], d[i], fallback);
            }
            r = skm_vec3_len(sk_vec3_sub(P[n - 1], t)) - s->unreach;
        } else {
            /* Backward stage on rotations with limits. */
            for (uint32_t i = 0; i + 1 < n; i++) {
                sk_quat rp = ik_parent_rot(s, i);
                sk_quat Ri = skm_quat_mul(rp, s->lq[i]);
                sk_vec3 cur = skm_quat_rotate(Ri, s->bone[i]);
                sk_quat q = ik_turn(s, i, cur, sk_vec3_sub(P[i + 1], s->p[i]));
                s->lq[i] = skm_quat_unit(skm_quat_mul(sk_quat_conjugate(rp), skm_quat_mul(q, Ri)));
                ik_apply_limit(s, i);
                s->R[i] = skm_quat_mul(rp, s->lq[i]);
                s->p[i + 1] = sk_vec3_add(s->p[i], skm_quat_rotate(s->R[i], s->bone[i]));
                P[i + 1] = s->p[i + 1];
            }
            P[0] = b;
            s->R[n - 1] = skm_quat_mul(s->R[n - 2], s->lq[n - 1]);
            r = ik_residual(s, s->p[n - 1]);
        }
        if (ik_stopper_step(&st, iter, r, r <= s->tol, &why)) break;
    }
    if (!constrained) fabrik_positions_to_rotations(s, P);
    res->stop = why;
    res->iterations = iter;
    /* Seed 002 §7.3: stuck in a local minimum, switch method (to CCD: the
     * caller does). FABRIK's forward stage ignores the limits, so with tight
     * limits it can stall where CCD, turning one limited joint at a time,
     * still makes progress. The iteration budget is shared. */
    return constrained && why == SK_IK_STOP_NO_PROGRESS && iter < st.max_iter ? st.max_iter - iter : 0;
}
