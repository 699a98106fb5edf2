/* FABRIK with several end effectors (Aristidou & Lasenby 2011, §4.1 and
 * Fig. 6: "multiple end effectors"). The subtree spanned by the root and the
 * effector joints is solved together. Forward stage: from every end effector
 * (placed on its target) inward; a sub-base — a joint where branches meet —
 * receives one position from each branch and is placed at their centroid,
 * then the forward stage continues from it toward the root. Backward stage:
 * the root goes back to where it was and every joint is placed from its
 * parent outward as in the single-chain algorithm.
 *
 * A skeleton joint is a rigid frame, so a sub-base with two children cannot
 * always put both exactly where FABRIK wants: after each iteration positions
 * are turned into rotations (a best-fit rotation for several children) and
 * the next iteration starts from the resulting FK, so every iterate is a
 * valid pose and bone lengths are kept. */
#include "ik/chain.h"

size_t sk_ik_multi_scratch_size(const sk_skeleton *skel) {
    size_t J = skel ? skel->joint_count : 0;
    if (J == 0) J = 1;
    return 16 + J * (sizeof(sk_transform) /* W */ + 4 * sizeof(sk_vec3) /* P, sum, target, len-as-vec */ +
                     sizeof(sk_quat) /* original rotation */ + 4 * sizeof(uint32_t) /* flags, cnt, list, order */);
}

enum { M_IN = 1, M_EFF = 2, M_INNER = 4 };

/* The next `bytes` of the scratch (the arrays follow one another unpadded:
 * sk_ik_multi_scratch_size counts them so). */
static void *take(unsigned char **cur, size_t bytes) {
    void *p = *cur;
    *cur += bytes;
    return p;
}

/* The largest distance of an effector from its target (W: model transforms). */
static float max_error(const sk_transform *W, const sk_ik_effector *eff, uint32_t ne) {
    float e = 0.0f;
    for (uint32_t k = 0; k < ne; k++) {
        float d = skm_vec3_len(sk_vec3_sub(W[eff[k].joint].t, eff[k].target));
        if (d > e) e = d;
    }
    return e;
}

sk_result sk_ik_solve_multi(const sk_skeleton *skel, uint32_t root, const sk_ik_effector *eff, uint32_t ne,
                            const sk_ik_options *options, sk_pose *io, void *scratch, size_t scratch_size,
                            sk_ik_result *out, sk_error *err) {
    sk_transform *io_local = io ? io->local : NULL;
    static const sk_ik_options zero_options;
    const sk_ik_options *o = options ? options : &zero_options;
    sk_ik_result res = {0};
    res.stretch = 1.0f;
    if (out) *out = res;
    if (skel && sk_pose_check(skel, io, "ik multi", err) != SK_OK) return SK_ERR_INVALID_ARGUMENT;
    if (!skel || !io_local || (!eff && ne))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik multi: NULL argument");
    uint32_t J = skel->joint_count;
    if (root >= J) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik multi: root %u out of range", root);
    if (!scratch || scratch_size < sk_ik_multi_scratch_size(skel))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik multi: scratch of %zu bytes, %zu needed", scratch_size,
                            sk_ik_multi_scratch_size(skel));
    if (!sk_isfinite_f(o->tolerance) || o->tolerance < 0 || !sk_isfinite_f(o->fk_blend) || o->fk_blend < 0 ||
        o->fk_blend > 1 || !isfinite(o->time_budget_us))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik multi: an option is not finite or out of range");
    unsigned char *cur = (unsigned char *)(((uintptr_t)scratch + 15) & ~(uintptr_t)15);
    sk_transform *W = take(&cur, J * sizeof *W);
    sk_vec3 *P = take(&cur, J * sizeof *P);
    sk_vec3 *sum = take(&cur, J * sizeof *sum);
    sk_vec3 *tgt = take(&cur, J * sizeof *tgt);
    sk_vec3 *lenv = take(&cur, J * sizeof *lenv); /* .x = bone length to parent */
    sk_quat *orig = take(&cur, J * sizeof *orig);
    uint32_t *flags = take(&cur, J * sizeof *flags);
    uint32_t *cnt = take(&cur, J * sizeof *cnt);
    uint32_t *list = take(&cur, J * sizeof *list);

    memset(flags, 0, J * sizeof(uint32_t));
    flags[root] = M_IN;
    for (uint32_t k = 0; k < ne; k++) {
        uint32_t j = eff[k].joint;
        if (j >= J) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik multi: effector joint %u out of range", j);
        if (!skm_vec3_finite(eff[k].target))
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik multi: target of effector %u is not finite", k);
        if (!(fabsf(eff[k].target.x) <= SK_IK_MAX_COORD && fabsf(eff[k].target.y) <= SK_IK_MAX_COORD &&
              fabsf(eff[k].target.z) <= SK_IK_MAX_COORD))
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik multi: target of effector %u beyond %g m (SK_IK_MAX_COORD)",
                                k, (double)SK_IK_MAX_COORD);
        int32_t a = (int32_t)j;
        while (a >= 0 && a != (int32_t)root) a = skel->parents[a];
        if (a < 0)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                                "ik multi: effector joint %u '%s' does not descend from %u '%s'", j, skel->names[j],
                                root, skel->names[root]);
    }
    for (uint32_t k = 0; k < ne; k++) {
        uint32_t j = eff[k].joint;
        flags[j] |= M_EFF;
        tgt[j] = eff[k].target;
        for (int32_t a = (int32_t)j; a != (int32_t)root; a = skel->parents[a]) {
            flags[a] |= M_IN;
            int32_t p = skel->parents[a];
            flags[p] |= M_INNER;
        }
    }
    uint32_t m = 0;
    for (uint32_t j = root; j < J; j++)
        if (flags[j] & M_IN) list[m++] = j;

    /* Model transforms of the set (parents come first in the list). */
    sk_transform pm = sk_transform_identity();
    for (int32_t a = skel->parents[root]; a >= 0; a = skel->parents[a]) pm = sk_transform_mul(&io_local[a], &pm);
    for (uint32_t k = 0; k < m; k++) {
        uint32_t j = list[k];
        orig[j] = io_local[j].r;
        const sk_transform *par = j == root ? &pm : &W[skel->parents[j]];
        W[j] = sk_transform_mul(par, &io_local[j]);
        if (!(fabsf(W[j].t.x) <= SK_IK_MAX_COORD && fabsf(W[j].t.y) <= SK_IK_MAX_COORD &&
              fabsf(W[j].t.z) <= SK_IK_MAX_COORD))
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik multi: joint %u '%s' beyond %g m (SK_IK_MAX_COORD)",
                                j, skel->names[j], (double)SK_IK_MAX_COORD);
    }
    float chain = 0.0f;
    for (uint32_t k = 1; k < m; k++) {
        uint32_t j = list[k];
        lenv[j].x = skm_vec3_len(sk_vec3_sub(W[j].t, W[skel->parents[j]].t));
        chain += lenv[j].x;
    }
    res.chain_length = chain;
    res.reachable = true;
    float tol = o->tolerance > 0 ? o->tolerance : 1e-4f * (chain > 0 ? chain : 1.0f);
    /* The stopping rules of the chain solvers (chain.c), also judged once
     * before the first iteration (tolerance, time). */
    ik_stopper st;
    ik_stopper_init(&st, o, 64, 16, o->time_budget_us > 0 ? ik_now_us() : 0.0);
    uint32_t iter = 0;
    sk_ik_stop why = SK_IK_STOP_ITERATIONS;
    float e = max_error(W, eff, ne);
    st.best = e; /* the error before the first iteration counts toward the first window */
    bool stop = true;
    if (e <= tol) why = SK_IK_STOP_TOLERANCE;
    else if (ik_stopper_out_of_time(&st)) why = SK_IK_STOP_TIME;
    else stop = false;
    while (!stop) {
        iter++;
        /* Forward stage: children before parents. */
        for (uint32_t k = 0; k < m; k++) {
            sum[list[k]] = sk_vec3_make(0, 0, 0);
            cnt[list[k]] = 0;
        }
        for (uint32_t k = m; k-- > 1;) {
            uint32_t j = list[k];
            if (flags[j] & M_EFF) {
                sum[j] = sk_vec3_add(sum[j], tgt[j]);
                cnt[j]++;
            }
            P[j] = cnt[j] ? sk_vec3_scale(sum[j], 1.0f / (float)cnt[j]) : W[j].t; /* centroid (sub-base) */
            uint32_t par = (uint32_t)skel->parents[j];
            sk_vec3 dvec = skm_vec3_unit(sk_vec3_sub(W[par].t, P[j]));
            sk_vec3 q = sk_vec3_add(P[j], sk_vec3_scale(dvec, lenv[j].x));
            sum[par] = sk_vec3_add(sum[par], q);
            cnt[par]++;
        }
        /* Backward stage from the fixed root. */
        P[root] = W[root].t;
        for (uint32_t k = 1; k < m; k++) {
            uint32_t j = list[k];
            sk_vec3 pp = P[skel->parents[j]];
            sk_vec3 dvec = skm_vec3_unit(sk_vec3_sub(P[j], pp));
            if (skm_vec3_is_zero(dvec)) dvec = skm_vec3_unit(sk_vec3_sub(W[j].t, W[skel->parents[j]].t));
            P[j] = sk_vec3_add(pp, sk_vec3_scale(dvec, lenv[j].x));
        }
        /* Positions to rotations, parents first (best fit over the children in the set). */
        for (uint32_t k = 0; k < m; k++) {
            uint32_t j = list[k];
            const sk_transform *par = j == root ? &pm : &W[skel->parents[j]];
            W[j] = sk_transform_mul(par, &io_local[j]);
            if (!(flags[j] & M_INNER)) continue;
            sk_vec3 su = sk_vec3_make(0, 0, 0), sv = sk_vec3_make(0, 0, 0);
            uint32_t nc = 0;
            for (uint32_t c = j + 1; c < J; c++) {
                if (!(flags[c] & M_IN) || skel->parents[c] != (int32_t)j) continue;
                sk_vec3 u = skm_quat_rotate(W[j].r, sk_vec3_mul(W[j].s, io_local[c].t));
                sk_vec3 v = sk_vec3_sub(P[c], W[j].t);
                su = sk_vec3_add(su, skm_vec3_unit(u));
                sv = sk_vec3_add(sv, skm_vec3_unit(v));
                nc++;
            }
            sk_quat Q = skm_quat_from_to(su, sv);
            if (nc > 1) {
                /* best twist about the mean direction */
                sk_vec3 a = skm_vec3_unit(sv);
                float sn = 0, cs = 0;
                for (uint32_t c = j + 1; c < J; c++) {
                    if (!(flags[c] & M_IN) || skel->parents[c] != (int32_t)j) continue;
                    sk_vec3 u = skm_quat_rotate(Q, skm_quat_rotate(W[j].r, sk_vec3_mul(W[j].s, io_local[c].t)));
                    sk_vec3 v = sk_vec3_sub(P[c], W[j].t);
                    sk_vec3 up = skm_vec3_reject(u, a), vp = skm_vec3_reject(v, a);
                    sn += sk_vec3_dot(sk_vec3_cross(up, vp), a);
                    cs += sk_vec3_dot(up, vp);
                }
                if (fabsf(sn) + fabsf(cs) > 1e-20f) Q = skm_quat_mul(skm_quat_axis_angle(a, atan2f(sn, cs)), Q);
            }
            sk_quat pr = par->r;
            io_local[j].r = skm_quat_unit(skm_quat_mul(sk_quat_conjugate(pr), skm_quat_mul(Q, W[j].r)));
            W[j] = sk_transform_mul(par, &io_local[j]);
        }
        e = max_error(W, eff, ne);
        stop = ik_stopper_step(&st, iter, e, e <= tol, &why);
    }
    res.error = e;
    /* Blend against FK. */
    float w = 1.0f - o->fk_blend;
    if (w < 1.0f) {
        for (uint32_t k = 0; k < m; k++) {
            uint32_t j = list[k];
            io_local[j].r = sk_quat_slerp(orig[j], io_local[j].r, w);
        }
        for (uint32_t k = 0; k < m; k++) {
            uint32_t j = list[k];
            W[j] = sk_transform_mul(j == root ? &pm : &W[skel->parents[j]], &io_local[j]);
        }
        res.error = max_error(W, eff, ne);
    }
    res.residual = res.error;
    res.stop = why;
    res.iterations = iter;
    if (out) *out = res;
    return SK_OK;
}
