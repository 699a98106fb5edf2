/* Inverse kinematics: chains, solver state, stopping rules, dispatch, and the
 * two heuristic solvers CCD and FABRIK.
 *
 * Seed 004 (ch. 3.4) describes both: CCD turns one joint at a time so that
 * the end effector lines up with the target, from the end effector toward
 * the root, repeated until close enough or out of iterations; FABRIK places
 * joints on lines — first from the end effector (put on the target) back to
 * the root, then from the (restored) root forward — and only at the end turns
 * the positions into joint angles. Seed 002 (ch. 7.3) gives the three
 * stopping rules used by every iterative solver here: a good enough solution,
 * a local minimum (no progress), and a time limit; in the latter two the best
 * solution found is returned. */
#include "ik/chain.h"

#include <time.h>

const char *sk_ik_stop_string(sk_ik_stop s) {
    switch (s) {
    case SK_IK_STOP_TOLERANCE: return "tolerance";
    case SK_IK_STOP_NO_PROGRESS: return "no_progress";
    case SK_IK_STOP_ITERATIONS: return "iterations";
    case SK_IK_STOP_TIME: return "time";
    case SK_IK_STOP_ANALYTIC: return "analytic";
    }
    return "unknown";
}

const char *sk_ik_solver_string(sk_ik_solver s) {
    switch (s) {
    case SK_IK_FABRIK: return "fabrik";
    case SK_IK_CCD: return "ccd";
    case SK_IK_TWO_BONE: return "twobone";
    case SK_IK_JACOBIAN_TRANSPOSE: return "jt";
    case SK_IK_DLS: return "dls";
    case SK_IK_AIM: return "aim";
    }
    return "unknown";
}

bool sk_ik_solver_parse(const char *name, sk_ik_solver *out) {
    static const struct { const char *n; sk_ik_solver s; } names[] = {
        {"fabrik", SK_IK_FABRIK}, {"ccd", SK_IK_CCD}, {"twobone", SK_IK_TWO_BONE}, {"two-bone", SK_IK_TWO_BONE},
        {"jt", SK_IK_JACOBIAN_TRANSPOSE}, {"jacobian-transpose", SK_IK_JACOBIAN_TRANSPOSE}, {"dls", SK_IK_DLS},
        {"aim", SK_IK_AIM}, {"lookat", SK_IK_AIM}, {"look-at", SK_IK_AIM},
    };
    if (!name) return false;
    for (size_t i = 0; i < SK_ARRAY_COUNT(names); i++)
        if (!strcmp(name, names[i].n)) {
            if (out) *out = names[i].s;
            return true;
        }
    return false;
}

double ik_now_us(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* ---- chains ---- */
sk_result sk_ik_chain_find(const sk_skeleton *skel, uint32_t root, uint32_t tip, uint32_t *out_joints,
                           uint32_t capacity, uint32_t *out_count, sk_error *err) {
    if (out_count) *out_count = 0;
    if (!skel || !out_count) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik chain: NULL skeleton or count");
    if (root >= skel->joint_count || tip >= skel->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik chain: joint index %u or %u out of range (%u joints)",
                            root, tip, skel->joint_count);
    uint32_t count = 1;
    int32_t j = (int32_t)tip;
    while (j != (int32_t)root) {
        j = skel->parents[j];
        if (j < 0)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik chain: joint %u '%s' does not descend from %u '%s'",
                                tip, skel->names[tip], root, skel->names[root]);
        count++;
    }
    *out_count = count;
    if (count > capacity || !out_joints)
        return sk_error_set(err, SK_ERR_LIMIT, "ik chain: %u joints do not fit in %u", count, capacity);
    j = (int32_t)tip;
    for (uint32_t k = count; k-- > 0;) {
        out_joints[k] = (uint32_t)j;
        j = skel->parents[j];
    }
    return SK_OK;
}

sk_result sk_ik_chain_find_named(const sk_skeleton *skel, const char *root, const char *tip, uint32_t *out_joints,
                                 uint32_t capacity, uint32_t *out_count, sk_error *err) {
    if (out_count) *out_count = 0;
    if (!skel || !root || !tip) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik chain: NULL argument");
    int32_t r = sk_skeleton_find(skel, root), t = sk_skeleton_find(skel, tip);
    if (r < 0) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik chain: no joint named '%s'", root);
    if (t < 0) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik chain: no joint named '%s'", tip);
    return sk_ik_chain_find(skel, (uint32_t)r, (uint32_t)t, out_joints, capacity, out_count, err);
}

/* ---- scratch ---- */
#define IK_ALIGN 16u
static size_t al(size_t x) { return (x + IK_ALIGN - 1) & ~(size_t)(IK_ALIGN - 1); }

size_t sk_ik_scratch_size(uint32_t n) {
    if (n == 0) n = 1;
    size_t N = n;
    return IK_ALIGN + al(N * sizeof(sk_quat)) * 4 /* lq R ref best */ + al(N * sizeof(sk_vec3)) * 4 /* p bone twist work */
           + al(N * sizeof(float)) /* len */ + al(18 * N * sizeof(float)) /* jac */ + al(3 * N * sizeof(float))
           + al(3 * N * sizeof(sk_vec3)) + al(3 * N * sizeof(uint32_t));
}

static void *carve(unsigned char **cur, size_t bytes) {
    void *p = *cur;
    *cur += al(bytes);
    return p;
}

static void state_carve(ik_state *s, void *scratch) {
    size_t N = s->n;
    unsigned char *cur = (unsigned char *)(((uintptr_t)scratch + IK_ALIGN - 1) & ~(uintptr_t)(IK_ALIGN - 1));
    s->lq = carve(&cur, N * sizeof(sk_quat));
    s->R = carve(&cur, N * sizeof(sk_quat));
    s->ref = carve(&cur, N * sizeof(sk_quat));
    s->best = carve(&cur, N * sizeof(sk_quat));
    s->p = carve(&cur, N * sizeof(sk_vec3));
    s->bone = carve(&cur, N * sizeof(sk_vec3));
    s->twist_axis = carve(&cur, N * sizeof(sk_vec3));
    s->work = carve(&cur, N * sizeof(sk_vec3));
    s->len = carve(&cur, N * sizeof(float));
    s->jac = carve(&cur, 18 * N * sizeof(float));
    s->dtheta = carve(&cur, 3 * N * sizeof(float));
    s->axes = carve(&cur, 3 * N * sizeof(sk_vec3));
    s->dof_joint = carve(&cur, 3 * N * sizeof(uint32_t));
}

/* ---- stopping rules ---- */
void ik_stopper_init(ik_stopper *st, const ik_state *s, uint32_t default_iter, uint32_t default_window) {
    const sk_ik_options *o = s->opt;
    st->max_iter = o->max_iterations ? o->max_iterations : default_iter;
    st->window = o->stall_iterations ? o->stall_iterations : default_window;
    st->ratio = o->stall_ratio > 0 ? o->stall_ratio : 1e-3f;
    st->best = INFINITY;
    st->window_best = INFINITY;
    st->since = 0;
    st->budget_us = o->time_budget_us;
}

float ik_orient_error(const ik_state *s) {
    if (!s->has_orient) return 0.0f;
    return skm_quat_angle(skm_quat_mul(s->target_r, sk_quat_conjugate(s->R[s->n - 1])));
}

/* ---- CCD ---------------------------------------------------------------
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

static void ccd_run(ik_state *s, sk_ik_result *res, uint32_t max_iter_override) {
    ik_stopper st;
    ik_stopper_init(&st, s, 128, 16);
    if (max_iter_override) st.max_iter = max_iter_override;
    const uint32_t n = s->n;
    const float max_step = s->opt->max_step > 0 ? s->opt->max_step : 0.0f;
    const float cos_half_max = max_step > 0 ? cosf(0.5f * max_step) : -2.0f;
    const float sin_half_max = max_step > 0 ? sinf(0.5f * max_step) : 0.0f;
    const sk_vec3 t = s->target;
    uint32_t iter = 0;
    sk_ik_stop why = SK_IK_STOP_ITERATIONS;
    float r = ik_residual(s, s->p[n - 1]);
    if (r <= s->tol) {
        res->stop = SK_IK_STOP_TOLERANCE;
        res->iterations = 0;
        return;
    }
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
            r = ik_residual(s, sk_vec3_make(tipp[0], tipp[1], tipp[2]));
            if (ik_stopper_step(&st, s, iter, r, r <= s->tol, &why)) break;
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
        r = ik_residual(s, s->p[n - 1]);
        if (ik_stopper_step(&st, s, iter, r, done || r <= s->tol, &why)) break;
    }
    res->stop = why;
    res->iterations = iter;
}

void ik_solve_ccd(ik_state *s, sk_ik_result *res) { ccd_run(s, res, 0); }

/* ---- FABRIK ------------------------------------------------------------
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

void ik_solve_fabrik(ik_state *s, sk_ik_result *res) {
    ik_stopper st;
    ik_stopper_init(&st, s, 64, 16);
    const uint32_t n = s->n;
    const sk_vec3 t = s->target;
    const sk_vec3 b = s->root_p;
    sk_vec3 *P = s->work;
    const float *d = s->len;
    bool constrained = s->planar;
    for (uint32_t i = 0; i < n && !constrained; i++) constrained = ik_has_limit(s, i);
    uint32_t iter = 0;
    sk_ik_stop why = SK_IK_STOP_ITERATIONS;
    float r = ik_residual(s, s->p[n - 1]);
    if (r <= s->tol) {
        res->stop = SK_IK_STOP_TOLERANCE;
        res->iterations = 0;
        return;
    }
    for (uint32_t i = 0; i < n; i++) P[i] = s->p[i];
    if (!constrained && s->unreach > 0) {
        /* Algorithm 1, lines 5-11: unreachable target — a straight line. */
        sk_vec3 dir = skm_vec3_unit(sk_vec3_sub(t, b));
        for (uint32_t i = 0; i + 1 < n; i++) P[i + 1] = sk_vec3_add(P[i], sk_vec3_scale(dir, d[i]));
        fabrik_positions_to_rotations(s, P);
        res->stop = SK_IK_STOP_TOLERANCE;
        res->iterations = 1;
        r = ik_residual(s, s->p[n - 1]);
        if (r > s->tol) res->stop = SK_IK_STOP_NO_PROGRESS;
        return;
    }
    for (;;) {
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
        if (ik_stopper_step(&st, s, iter, r, r <= s->tol, &why)) break;
    }
    if (!constrained) fabrik_positions_to_rotations(s, P);
    res->stop = why;
    res->iterations = iter;
    if (constrained && why == SK_IK_STOP_NO_PROGRESS && iter < st.max_iter) {
        /* Seed 002 §7.3: stuck in a local minimum, switch method (to CCD).
         * FABRIK's forward stage ignores the limits, so with tight limits it
         * can stall where CCD, turning one limited joint at a time, still
         * makes progress. The iteration budget is shared. */
        sk_ik_result r2 = *res;
        ccd_run(s, &r2, st.max_iter - iter);
        res->stop = r2.stop;
        res->iterations = iter + r2.iterations;
    }
}

/* ---- the public entry point ---- */
static bool options_finite(const sk_ik_options *o) {
    return sk_isfinite_f(o->tolerance) && sk_isfinite_f(o->angle_tolerance) && isfinite(o->time_budget_us) &&
           sk_isfinite_f(o->stall_ratio) && sk_isfinite_f(o->fk_blend) && sk_isfinite_f(o->max_step) &&
           sk_isfinite_f(o->damping) && skm_vec3_finite(o->plane_normal) && sk_isfinite_f(o->soft) &&
           sk_isfinite_f(o->max_stretch) && skm_vec3_finite(o->aim_axis) && skm_vec3_finite(o->up_axis) &&
           sk_isfinite_f(o->max_angle) && o->tolerance >= 0 && o->angle_tolerance >= 0 && o->time_budget_us >= 0 &&
           o->fk_blend >= 0 && o->fk_blend <= 1 && o->soft >= 0 && o->soft < 1;
}

/* Model transform of joint j's parent, from the local pose (exact for uniform scale). */
static sk_transform parent_model(const sk_skeleton *skel, const sk_transform *local, uint32_t j) {
    sk_transform acc = sk_transform_identity();
    for (int32_t a = skel->parents[j]; a >= 0; a = skel->parents[a]) acc = sk_transform_mul(&local[a], &acc);
    return acc;
}

sk_result sk_ik_solve(const sk_ik_chain *chain, const sk_ik_target *target, const sk_ik_options *options,
                      sk_pose *io, void *scratch, size_t scratch_size, sk_ik_result *out, sk_error *err) {
    if (chain && chain->skeleton && sk_pose_check(chain->skeleton, io, "ik", err) != SK_OK) return SK_ERR_INVALID_ARGUMENT;
    sk_transform *io_local = io ? io->local : NULL;
    static const sk_ik_options zero_options;
    const sk_ik_options *o = options ? options : &zero_options;
    sk_ik_result res = {0};
    res.stretch = 1.0f;
    if (out) *out = res;
    if (!chain || !chain->skeleton || !chain->joints || !target || !io_local)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: NULL chain, target or pose");
    const sk_skeleton *skel = chain->skeleton;
    uint32_t n = chain->count;
    if (n == 0) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: empty chain");
    if (n > SK_IK_MAX_CHAIN) return sk_error_set(err, SK_ERR_LIMIT, "ik: chain of %u joints (limit %u)", n, SK_IK_MAX_CHAIN);
    for (uint32_t i = 0; i < n; i++) {
        if (chain->joints[i] >= skel->joint_count)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: chain joint %u out of range", chain->joints[i]);
        if (i && skel->parents[chain->joints[i]] != (int32_t)chain->joints[i - 1])
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                                "ik: chain joint %u '%s' is not a child of the joint before it", chain->joints[i],
                                skel->names[chain->joints[i]]);
    }
    if (!skm_vec3_finite(target->position))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: target position is not finite");
    if (!skm_quat_finite(target->orientation) || !skm_vec3_finite(target->up) ||
        (target->has_pole && !skm_vec3_finite(target->pole)))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: target orientation, pole or up is not finite");
    if (!options_finite(o)) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: an option is not finite or out of range");
    if ((unsigned)o->solver > SK_IK_AIM) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: unknown solver %d", (int)o->solver);
    if (o->solver == SK_IK_TWO_BONE && n != 3)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: the two-bone solver needs a chain of 3 joints, not %u", n);

    unsigned char stack[SK_IK_STACK_JOINTS * 256 + 64];
    size_t need = sk_ik_scratch_size(n);
    if (!scratch) {
        if (n > SK_IK_STACK_JOINTS || need > sizeof stack)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: chain of %u joints needs %zu bytes of scratch", n, need);
        scratch = stack;
        scratch_size = sizeof stack;
    }
    if (scratch_size < need)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: scratch of %zu bytes, %zu needed", scratch_size, need);

    ik_state s;
    memset(&s, 0, sizeof s);
    s.n = n;
    s.joints = chain->joints;
    s.limits = chain->limits;
    s.skel = skel;
    s.opt = o;
    state_carve(&s, scratch);
    s.t_start = o->time_budget_us > 0 ? ik_now_us() : 0.0;

    /* Model space of the chain from the local pose. */
    sk_transform pm = parent_model(skel, io_local, chain->joints[0]);
    s.parent_r = skm_quat_unit(pm.r);
    sk_vec3 scale = pm.s;
    s.p[0] = sk_vec3_add(pm.t, skm_quat_rotate(pm.r, sk_vec3_mul(pm.s, io_local[chain->joints[0]].t)));
    s.root_p = s.p[0];
    float L = 0.0f;
    skm_c4 sc = skm_c4_ld3(&scale);
    for (uint32_t i = 0; i < n; i++) {
        const sk_transform *lt = &io_local[chain->joints[i]];
        const skm_c4 r = skm_c4_ldq(&lt->r), ls = skm_c4_ld3(&lt->s);
        if (!skm_c4_finite(r) || !skm_c4_finite(ls) || !skm_c4_finite(skm_c4_ld3(&lt->t)))
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: pose of joint %u is not finite", chain->joints[i]);
        skm_c4_stq(&s.lq[i], skm_c4_qnorm(r));
        sc = skm_c4_mul(sc, ls);
        if (i + 1 < n) {
            skm_c4 b = skm_c4_mul(sc, skm_c4_ld3(&io_local[chain->joints[i + 1]].t));
            skm_c4_st3(&s.bone[i], b);
            s.len[i] = skm_c4_sqrt(skm_c4_dot3(b, b));
            L += s.len[i];
        }
        if (s.limits) {
            const sk_ik_limit *lim = &s.limits[i];
            sk_quat ref = lim->reference;
            if (sk_quat_dot(ref, ref) == 0.0f) ref = skel->rest ? skel->rest[chain->joints[i]].r : sk_quat_identity();
            s.ref[i] = skm_quat_unit(ref);
            sk_vec3 ax = sk_vec3_make(0, 1, 0);
            if (i + 1 < n) {
                sk_vec3 ct = skel->rest ? skel->rest[chain->joints[i + 1]].t : io_local[chain->joints[i + 1]].t;
                if (skm_vec3_len(ct) > 0) ax = skm_vec3_unit(ct);
            }
            s.twist_axis[i] = ax;
        }
    }
    ik_fk(&s, 0);
    s.chain_len = L;
    res.chain_length = L;
    s.tol = o->tolerance > 0 ? o->tolerance : 1e-4f * (L > 0 ? L : 1.0f);
    s.angle_tol = o->angle_tolerance > 0 ? o->angle_tolerance : 1e-3f;
    s.planar = !skm_vec3_is_zero(o->plane_normal);
    if (s.planar) s.normal = skm_vec3_unit(o->plane_normal);
    s.target = target->position;
    s.has_orient = sk_quat_dot(target->orientation, target->orientation) > 0.0f;
    if (s.has_orient) s.target_r = skm_quat_unit(target->orientation);
    float dist = skm_vec3_len(sk_vec3_sub(s.target, s.root_p));
    s.unreach = dist > L ? dist - L : 0.0f;
    res.reachable = dist <= L;

    sk_result rc = SK_OK;
    switch (o->solver) {
    case SK_IK_FABRIK:
        if (n > 1) ik_solve_fabrik(&s, &res);
        break;
    case SK_IK_CCD:
        if (n > 1) ik_solve_ccd(&s, &res);
        break;
    case SK_IK_JACOBIAN_TRANSPOSE:
        if (n > 1) ik_solve_jacobian(&s, &res, false);
        break;
    case SK_IK_DLS:
        if (n > 1) ik_solve_jacobian(&s, &res, true);
        break;
    case SK_IK_TWO_BONE:
        rc = ik_solve_two_bone(&s, target, io_local, &res, err);
        break;
    case SK_IK_AIM:
        ik_solve_aim(&s, target, &res);
        break;
    }
    if (rc != SK_OK) return rc;
    if (n == 1 && o->solver != SK_IK_AIM) {
        /* One joint: turning it cannot move its own position; the pose is left as it was. */
        res.iterations = 0;
        res.error = skm_vec3_len(sk_vec3_sub(s.p[0], s.target));
        res.residual = res.error - s.unreach;
        res.stop = res.residual <= s.tol ? SK_IK_STOP_TOLERANCE : SK_IK_STOP_NO_PROGRESS;
        if (out) *out = res;
        return SK_OK;
    }

    /* Write back, blended against the FK pose. */
    float w = 1.0f - o->fk_blend;
    if (w >= 1.0f) {
        for (uint32_t i = 0; i < n; i++) io_local[chain->joints[i]].r = s.lq[i];
        if (o->solver == SK_IK_TWO_BONE) ik_fk(&s, 0); /* the other solvers leave s.p up to date */
    } else {
        for (uint32_t i = 0; i < n; i++) {
            sk_transform *lt = &io_local[chain->joints[i]];
            sk_quat fk = skm_quat_unit(lt->r);
            sk_quat ik = s.lq[i];
            if (sk_quat_dot(fk, ik) < 0) ik = skm_quat_neg(ik);
            lt->r = sk_quat_slerp(fk, ik, w);
            s.lq[i] = lt->r;
        }
        ik_fk(&s, 0);
    }
    if (o->solver == SK_IK_AIM) {
        sk_vec3 ax = skm_vec3_is_zero(o->aim_axis) ? sk_vec3_make(0, 0, 1) : skm_vec3_unit(o->aim_axis);
        sk_vec3 dir = skm_quat_rotate(s.R[n - 1], ax), to = sk_vec3_sub(s.target, s.p[n - 1]);
        float tl = skm_vec3_len(to);
        /* no acos: precise near 0 */
        float ang = tl > 0 ? atan2f(skm_vec3_len(sk_vec3_cross(dir, to)), sk_vec3_dot(dir, to)) : 0.0f;
        res.orientation_error = ang;
        res.error = tl * sinf(fminf(ang, 0.5f * SKM_PI)) + (ang > 0.5f * SKM_PI ? tl : 0.0f);
        res.residual = res.error;
        res.reachable = true;
    } else {
        res.error = skm_vec3_len(sk_vec3_sub(s.p[n - 1], s.target));
        res.residual = res.error - s.unreach;
        if (res.residual < 0) res.residual = 0;
        res.orientation_error = ik_orient_error(&s);
    }
    if (out) *out = res;
    return SK_OK;
}
