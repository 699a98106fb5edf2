/* CCD, cyclic coordinate descent (seed 004 ch. 3.4): turns one joint at a
 * time so that the end effector lines up with the target, from the end
 * effector toward the root, repeated until close enough or out of
 * iterations (the stopping rules are chain.c's).
 *
 * One iteration = one sweep from the joint next to the tip down to the root.
 * While sweeping, a joint's ancestors have not moved yet, so its model
 * rotation and position from the last FK stay valid and only the tip has to
 * be carried along: O(n) per sweep. Damping (Welman's per-joint cap on the
 * rotation per iteration) is options.max_step.
 *
 * Unconstrained chains (no limits, no plane, no damping) take a faster path
 * without trigonometry or rotations inside the sweep:
 * - after joint i turns, the tip lies on the ray from p_i through the target
 *   at its old distance |u| (u = tip - p_i), so tip' = p_i + |u| vhat_i with
 *   vhat_i = unit(t - p_i), and |tip' - t| = ||v| - |u||;
 * - vhat_i, |t - p_i| and 2 (p_i - p_(i-1)).vhat_i depend only on the
 *   positions of the last FK, so they are computed once per sweep outside the
 *   dependent chain; inside it |tip' - p_(i-1)|^2 = l^2 + |u| (2 d.vhat_i + |u|)
 *   (d = p_i - p_(i-1), l its bone length): an add, a multiply, an add and a
 *   square root per joint on the critical path;
 * - the turn of joint i is the shortest arc from u to vhat_i,
 *   normalize(u x vhat, |u| + u.vhat) (normalized by its own length, so it is
 *   a unit rotation whatever the rounding of |u|);
 * - the model-space turns q_i are kept and applied in one FK pass after the
 *   sweep (R_i <- (q_lo ... q_i) R_i: ancestors turn after their descendants
 *   in a sweep), from the lowest joint visited; local rotations are rebuilt
 *   once at the end of the solve (the tip's stays as animated);
 * - the sweep is bound by the latency of its square roots, the FK pass by
 *   its quaternion products: positions, directions and quaternions are kept
 *   as 4-float vectors (skm_c4: SSE2 where the compiler targets it, plain C
 *   otherwise), and the per-joint values for the next sweep are computed
 *   after the FK pass, four joints at a time, not inside the sweep (their
 *   square roots and divisions would delay the sweep's own).
 *
 * Scratch of the fast path (s->jac, 18 n floats, 16-byte aligned): the
 * positions, unit directions to the target and bone offsets as 4 floats,
 * then per joint |t - p_i|, l_(i-1)^2 and 2 (p_i - p_(i-1)).vhat_i; in
 * s->axes (9 n floats) p_i - p_(i-1) as 4 floats. The model rotations stay
 * in s->R; the sweep's turns go to s->best. */
#include "ik/solvers.h"

typedef struct ccd_fast {
    float *P;    /* 4n: model positions (w = 0) */
    float *VH;   /* 4n: unit(t - p_i) (zero when the target is on p_i) */
    float *BN;   /* 4n: s->bone (w = 0) */
    float *sv;   /* n: |t - p_i|, -1 when the target is on p_i */
    float *A;    /* n: |p_i - p_(i-1)|^2 = bone length^2 (i >= 1) */
    float *B;    /* n: 2 (p_i - p_(i-1)).vhat_i (i >= 1) */
    float *E;    /* 4n: p_i - p_(i-1) as the FK computed it (i >= 1; w = 0) */
    float *qd;   /* 4n: the sweep's model-space turns */
    skm_c4 T;        /* the target (w = 0) */
    sk_vec3 t;
} ccd_fast;

/* Joint i's position p, and (i >= 1) d = p - p_(i-1) as the FK computed it. */
static inline void ccd_fast_store_p(const ccd_fast *f, uint32_t i, skm_c4 p, skm_c4 d) {
    skm_c4_store(f->P + 4 * i, p);
    skm_c4_store(f->E + 4 * i, d);
}

/* vhat_i, |t - p_i| and (i >= 1) 2 (p_i - p_(i-1)).vhat_i for joint i,
 * from the positions of the last FK. */
static inline void ccd_fast_prep1(const ccd_fast *f, uint32_t i) {
    skm_c4 p = skm_c4_load(f->P + 4 * i);
    skm_c4 v = skm_c4_sub(f->T, p);
    float lv = skm_c4_dot3(v, v);
    skm_c4 vh = skm_c4_splat(0.0f);
    if (lv > 1e-30f) {
        float inv = 1.0f / skm_c4_sqrt(lv);
        f->sv[i] = lv * inv;
        vh = skm_c4_mul(v, skm_c4_splat(inv));
    } else {
        f->sv[i] = -1.0f;
    }
    skm_c4_store(f->VH + 4 * i, vh);
    if (i) f->B[i] = 2.0f * skm_c4_dot3(skm_c4_load(f->E + 4 * i), vh);
}

/* The same for joints from..n-2 (from >= 1); with SSE2 four joints at a
 * time, transposed to x, y, z vectors (one square root and one division for
 * the four; the same arithmetic, lane by lane). */
static inline void ccd_fast_prep(const ik_state *s, const ccd_fast *f, uint32_t from) {
    const uint32_t n = s->n;
    uint32_t i = from;
#ifdef SKM_C4_SSE
    const __m128 tx = _mm_set1_ps(f->t.x), ty = _mm_set1_ps(f->t.y), tz = _mm_set1_ps(f->t.z);
    const __m128 tiny = _mm_set1_ps(1e-30f), one = _mm_set1_ps(1.0f), minus1 = _mm_set1_ps(-1.0f);
    for (; i + 4 < n; i += 4) { /* joints i..i+3, all below the tip */
        const float *prow[4] = {f->P + 4 * i, f->P + 4 * (i + 1), f->P + 4 * (i + 2), f->P + 4 * (i + 3)};
        const float *erow[4] = {f->E + 4 * i, f->E + 4 * (i + 1), f->E + 4 * (i + 2), f->E + 4 * (i + 3)};
        __m128 P4[4], E4[4];
        skm_soa4_load(prow, P4);
        skm_soa4_load(erow, E4);
        __m128 px = P4[0], py = P4[1], pz = P4[2], dx = E4[0], dy = E4[1], dz = E4[2];
        __m128 vx = _mm_sub_ps(tx, px), vy = _mm_sub_ps(ty, py), vz = _mm_sub_ps(tz, pz);
        __m128 lv = _mm_add_ps(_mm_add_ps(_mm_mul_ps(vx, vx), _mm_mul_ps(vy, vy)), _mm_mul_ps(vz, vz));
        __m128 ok = _mm_cmpgt_ps(lv, tiny);
        __m128 safe = _mm_or_ps(_mm_and_ps(ok, lv), _mm_andnot_ps(ok, one)); /* no 1/0 in unused lanes */
        __m128 inv = _mm_and_ps(ok, _mm_div_ps(one, _mm_sqrt_ps(safe)));
        __m128 sv = _mm_or_ps(_mm_and_ps(ok, _mm_mul_ps(lv, inv)), _mm_andnot_ps(ok, minus1));
        __m128 hx = _mm_mul_ps(vx, inv), hy = _mm_mul_ps(vy, inv), hz = _mm_mul_ps(vz, inv);
        __m128 b = _mm_add_ps(_mm_add_ps(_mm_mul_ps(dx, hx), _mm_mul_ps(dy, hy)), _mm_mul_ps(dz, hz));
        _mm_storeu_ps(f->sv + i, sv);
        _mm_storeu_ps(f->B + i, _mm_mul_ps(_mm_set1_ps(2.0f), b));
        __m128 hw = _mm_setzero_ps();
        _MM_TRANSPOSE4_PS(hx, hy, hz, hw);
        skm_c4_store(f->VH + 4 * i, hx);
        skm_c4_store(f->VH + 4 * (i + 1), hy);
        skm_c4_store(f->VH + 4 * (i + 2), hz);
        skm_c4_store(f->VH + 4 * (i + 3), hw);
    }
#endif
    for (; i + 1 < n; i++) ccd_fast_prep1(f, i);
}

/* One unconstrained sweep and the FK pass after it. */
static inline void ccd_fast_iteration(ik_state *s, const ccd_fast *f) {
    const uint32_t n = s->n;
    const float unreach = s->unreach, tol = s->tol;
    skm_c4 tip = skm_c4_load(f->P + 4 * (n - 1));
    skm_c4 u0 = skm_c4_sub(tip, skm_c4_load(f->P + 4 * (n - 2)));
    float lu = skm_c4_dot3(u0, u0);
    uint32_t lo = n - 2;
    for (uint32_t i = n - 1; i-- > 0;) {
        lo = i;
        const skm_c4 pi = skm_c4_load(f->P + 4 * i);
        const float svi = f->sv[i];
        if (!(lu > 1e-30f) || !(svi > 0.0f)) {
            /* tip on p_i or target on p_i: this joint does not turn */
            skm_c4_store(f->qd + 4 * i, skm_c4_set(0, 0, 0, 1));
            if (i) {
                skm_c4 un = skm_c4_sub(tip, skm_c4_load(f->P + 4 * (i - 1)));
                lu = skm_c4_dot3(un, un);
            }
            continue;
        }
        const float su = skm_c4_sqrt(lu);
        const skm_c4 vh = skm_c4_load(f->VH + 4 * i);
        const skm_c4 u = skm_c4_sub(tip, pi);
        const float w = su + skm_c4_dot3(u, vh);
        if (w < 1e-6f * su) { /* opposite: half turn about some perpendicular */
            _Alignas(16) float uu[4];
            skm_c4_store(uu, u);
            sk_vec3 pp = skm_vec3_perp(sk_vec3_make(uu[0], uu[1], uu[2]));
            skm_c4_store(f->qd + 4 * i, skm_c4_set(pp.x, pp.y, pp.z, 0.0f));
        } else {
            skm_c4 q = skm_c4_add(skm_c4_cross(u, vh), skm_c4_mul(skm_c4_splat(w), skm_c4_set(0, 0, 0, 1)));
            skm_c4_store(f->qd + 4 * i, skm_c4_mul(q, skm_c4_splat(1.0f / skm_c4_sqrt(skm_c4_dot4(q, q)))));
        }
        tip = skm_c4_add(pi, skm_c4_mul(vh, skm_c4_splat(su)));
        if (fabsf(svi - su) - unreach <= tol) break; /* converged mid-sweep (judged again on the FK tip) */
        if (i) {
            float a = f->A[i];
            lu = (a + lu) + f->B[i] * su; /* |d|^2 + |u|^2 + 2 |u| d.vhat; a + lu runs beside the sqrt */
            if (lu < 1e-2f * a) { /* tip close to p_(i-1): avoid the cancellation */
                skm_c4 un = skm_c4_sub(tip, skm_c4_load(f->P + 4 * (i - 1)));
                lu = skm_c4_dot3(un, un);
            }
        }
    }
    /* FK from the lowest joint that was visited (the ones below did not
     * move). The tip's model rotation is not needed until the end: its local
     * rotation is kept as animated. */
    skm_c4 Q = skm_c4_load(f->qd + 4 * lo);
    skm_c4 p = skm_c4_load(f->P + 4 * lo);
    for (uint32_t i = lo;; i++) {
        skm_c4 R = skm_c4_qmul(Q, skm_c4_ldq(&s->R[i]));
        skm_c4_stq(&s->R[i], R);
        skm_c4 e = skm_c4_qrot(R, skm_c4_load(f->BN + 4 * i));
        p = skm_c4_add(p, e);
        ccd_fast_store_p(f, i + 1, p, e);
        if (i + 2 == n) break;
        Q = skm_c4_qmul(Q, skm_c4_load(f->qd + 4 * (i + 1)));
    }
    ccd_fast_prep(s, f, lo + 1);
}

void ik_solve_ccd(ik_state *s, sk_ik_result *res, uint32_t max_iterations) {
    ik_stopper st;
    ik_stopper_init(&st, s->opt, 128, 16, s->t_start);
    if (max_iterations) st.max_iter = max_iterations;
    const uint32_t n = s->n;
    const float max_step = s->opt->max_step > 0 ? s->opt->max_step : 0.0f;
    const float cos_half_max = max_step > 0 ? cosf(0.5f * max_step) : -2.0f;
    const float sin_half_max = max_step > 0 ? sinf(0.5f * max_step) : 0.0f;
    const sk_vec3 t = s->target;
    uint32_t iter = 0;
    sk_ik_stop why = SK_IK_STOP_ITERATIONS;
    if (ik_done_before_start(s, res)) return;
    const bool fast = !s->planar && !s->limits && max_step <= 0;
    if (fast) {
        ccd_fast f;
        f.P = s->jac;
        f.VH = f.P + 4 * n;
        f.BN = f.VH + 4 * n;
        f.sv = f.BN + 4 * n;
        f.A = f.sv + n;
        f.B = f.A + n;
        f.E = (float *)(void *)s->axes; /* 9 n floats, 16-byte aligned */
        f.qd = (float *)(void *)s->best;
        f.t = t;
        f.T = skm_c4_set(t.x, t.y, t.z, 0.0f);
        for (uint32_t i = 0; i < n; i++) {
            skm_c4 pi = skm_c4_ld3(&s->p[i]);
            ccd_fast_store_p(&f, i, pi, i ? skm_c4_sub(pi, skm_c4_ld3(&s->p[i - 1])) : skm_c4_splat(0.0f));
            if (i + 1 < n) skm_c4_store(f.BN + 4 * i, skm_c4_ld3(&s->bone[i]));
            if (i) f.A[i] = s->len[i - 1] * s->len[i - 1];
        }
        ccd_fast_prep1(&f, 0);
        ccd_fast_prep(s, &f, 1);
        const float *tipp = f.P + 4 * (n - 1);
        for (;;) {
            iter++;
            ccd_fast_iteration(s, &f);
            if ((iter & 15) == 0) /* keep the model rotations unit */
                for (uint32_t i = 0; i + 1 < n; i++) skm_c4_stq(&s->R[i], skm_c4_qnorm(skm_c4_ldq(&s->R[i])));
            float r = ik_residual(s, sk_vec3_make(tipp[0], tipp[1], tipp[2]));
            if (ik_stopper_step(&st, iter, r, r <= s->tol, &why)) break;
        }
        /* lq_i = conj(R_(i-1)) R_i, normalized once (the R's need not be unit
         * for that) */
        skm_c4 Rp = skm_c4_qconj(skm_c4_ldq(&s->parent_r));
        for (uint32_t i = 0; i + 1 < n; i++) { /* s->lq[n - 1] stays */
            skm_c4 R = skm_c4_ldq(&s->R[i]);
            skm_c4_stq(&s->lq[i], skm_c4_qnorm(skm_c4_qmul(Rp, R)));
            Rp = skm_c4_qconj(R);
        }
        ik_fk(s, 0);
        res->stop = why;
        res->iterations = iter;
        return;
    }
    for (;;) {
        iter++;
        sk_vec3 tip = s->p[n - 1];
        bool done = false;
        for (uint32_t i = n - 1; i-- > 0;) {
            sk_vec3 pi = s->p[i];
            sk_vec3 u = sk_vec3_sub(tip, pi), v = sk_vec3_sub(t, pi);
            sk_quat q = ik_turn(s, i, u, v);
            if (q.w < 0) q = skm_quat_neg(q);
            if (q.w < cos_half_max) {
                /* damping: the same axis, the angle capped at max_step */
                float sv = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z);
                if (sv > 0) {
                    float k = sin_half_max / sv;
                    q = sk_quat_make(q.x * k, q.y * k, q.z * k, cos_half_max);
                }
            }
            sk_quat rp = ik_parent_rot(s, i);
            /* lq' = conj(Rparent) * q * R_i */
            sk_quat nl = skm_quat_unit(skm_quat_mul(sk_quat_conjugate(rp), skm_quat_mul(q, s->R[i])));
            if (ik_has_limit(s, i)) {
                s->lq[i] = nl;
                ik_apply_limit(s, i);
                q = skm_quat_mul(skm_quat_mul(rp, s->lq[i]), sk_quat_conjugate(s->R[i]));
            } else {
                s->lq[i] = nl;
            }
            tip = sk_vec3_add(pi, skm_quat_rotate(q, u));
            if (ik_residual(s, tip) <= s->tol) { /* converged mid-sweep */
                done = true;
                break;
            }
        }
        ik_fk(s, 0);
        float r = ik_residual(s, s->p[n - 1]);
        if (ik_stopper_step(&st, iter, r, done || r <= s->tol, &why)) break;
    }
    res->stop = why;
    res->iterations = iter;
}
