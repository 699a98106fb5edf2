/* The IK chain state and the services the solvers share (chain.h): the
 * scratch layout, the chain in model space from a local pose, stopping
 * rules, errors, timing, and writing a solution back into the pose. Seed 002
 * (ch. 7.3) gives the three stopping rules used by every iterative solver: a
 * good enough solution, a local minimum (no progress), and a time limit; in
 * the latter two the best solution found is returned.
 *
 * Called by ik.c and the solvers; calls neither. */
#include "ik/chain.h"

#include <time.h>

double ik_now_us(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* ---- scratch ---- */
#define IK_ALIGN 16u
static size_t al(size_t x) { return (x + IK_ALIGN - 1) & ~(size_t)(IK_ALIGN - 1); }

size_t ik_state_scratch_size(uint32_t n) {
    if (n == 0) n = 1;
    size_t N = n;
    return IK_ALIGN + al(N * sizeof(sk_quat)) * 4 /* lq R ref best */ +
           al(N * sizeof(sk_vec3)) * 4 /* p bone twist work */ + al(N * sizeof(float)) /* len */ +
           al(18 * N * sizeof(float)) /* jac */ + al(3 * N * sizeof(float)) + al(3 * N * sizeof(sk_vec3)) +
           al(3 * N * sizeof(uint32_t));
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

/* ---- setting up ---- */
/* Model transform of joint j's parent, from the local pose (exact for
 * uniform scale): sk_ik_solve's, whose caller has no model matrices (one
 * joint's ancestors, composed as transforms; sk_ik_solve_model reads the
 * caller's matrices instead). */
static sk_transform parent_model(const sk_skeleton *skel, const sk_transform *local, uint32_t j) {
    sk_transform acc = sk_transform_identity();
    for (int32_t a = skel->parents[j]; a >= 0; a = skel->parents[a]) acc = sk_transform_mul(&local[a], &acc);
    return acc;
}

sk_result ik_state_init(ik_state *s, const sk_ik_chain *chain, const sk_ik_target *target, const sk_ik_options *o,
                        const sk_transform *io_local, const sk_transform *parent, void *scratch, sk_ik_result *res,
                        sk_error *err) {
    const sk_skeleton *skel = chain->skeleton;
    const uint32_t n = chain->count;
    memset(s, 0, sizeof *s);
    s->n = n;
    s->joints = chain->joints;
    s->limits = chain->limits;
    s->skel = skel;
    s->opt = o;
    state_carve(s, scratch);
    s->t_start = o->time_budget_us > 0 ? ik_now_us() : 0.0;

    /* Model space of the chain from the local pose. */
    sk_transform pm = parent ? *parent : parent_model(skel, io_local, chain->joints[0]);
    s->parent_r = skm_quat_unit(pm.r);
    sk_vec3 scale = pm.s;
    s->p[0] = sk_vec3_add(pm.t, skm_quat_rotate(pm.r, sk_vec3_mul(pm.s, io_local[chain->joints[0]].t)));
    s->root_p = s->p[0];
    float L = 0.0f;
    skm_c4 sc = skm_c4_ld3(&scale);
    for (uint32_t i = 0; i < n; i++) {
        const sk_transform *lt = &io_local[chain->joints[i]];
        const skm_c4 r = skm_c4_ldq(&lt->r), ls = skm_c4_ld3(&lt->s);
        if (!skm_c4_finite(r) || !skm_c4_finite(ls) || !skm_c4_finite(skm_c4_ld3(&lt->t)))
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: pose of joint %u is not finite", chain->joints[i]);
        skm_c4_stq(&s->lq[i], skm_c4_qnorm(r));
        sc = skm_c4_mul(sc, ls);
        if (i + 1 < n) {
            skm_c4 b = skm_c4_mul(sc, skm_c4_ld3(&io_local[chain->joints[i + 1]].t));
            skm_c4_st3(&s->bone[i], b);
            s->len[i] = skm_c4_sqrt(skm_c4_dot3(b, b));
            L += s->len[i];
        }
        if (s->limits) {
            const sk_ik_limit *lim = &s->limits[i];
            sk_quat ref = lim->reference;
            if (sk_quat_dot(ref, ref) == 0.0f) ref = skel->rest ? skel->rest[chain->joints[i]].r : sk_quat_identity();
            s->ref[i] = skm_quat_unit(ref);
            sk_vec3 ax = sk_vec3_make(0, 1, 0);
            if (i + 1 < n) {
                sk_vec3 ct = skel->rest ? skel->rest[chain->joints[i + 1]].t : io_local[chain->joints[i + 1]].t;
                if (skm_vec3_len(ct) > 0) ax = skm_vec3_unit(ct);
            }
            s->twist_axis[i] = ax;
        }
    }
    ik_fk(s, 0);
    s->chain_len = L;
    res->chain_length = L;
    s->tol = o->tolerance > 0 ? o->tolerance : 1e-4f * (L > 0 ? L : 1.0f);
    s->angle_tol = o->angle_tolerance > 0 ? o->angle_tolerance : 1e-3f;
    s->planar = !skm_vec3_is_zero(o->plane_normal);
    if (s->planar) s->normal = skm_vec3_unit(o->plane_normal);
    s->target = target->position;
    s->has_orient = sk_quat_dot(target->orientation, target->orientation) > 0.0f;
    if (s->has_orient) s->target_r = skm_quat_unit(target->orientation);
    float dist = skm_vec3_len(sk_vec3_sub(s->target, s->root_p));
    s->unreach = dist > L ? dist - L : 0.0f;
    res->reachable = dist <= L;
    return SK_OK;
}

/* ---- finishing ---- */
void ik_state_write_back(ik_state *s, sk_transform *io_local, bool refresh_fk) {
    const uint32_t n = s->n;
    float w = 1.0f - s->opt->fk_blend;
    if (w >= 1.0f) {
        for (uint32_t i = 0; i < n; i++) io_local[s->joints[i]].r = s->lq[i];
        if (refresh_fk) ik_fk(s, 0);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        sk_transform *lt = &io_local[s->joints[i]];
        sk_quat fk = skm_quat_unit(lt->r);
        sk_quat ik = s->lq[i];
        if (sk_quat_dot(fk, ik) < 0) ik = skm_quat_neg(ik);
        lt->r = sk_quat_slerp(fk, ik, w);
        s->lq[i] = lt->r;
    }
    ik_fk(s, 0);
}

void ik_state_result(const ik_state *s, sk_ik_result *res) {
    res->error = skm_vec3_len(sk_vec3_sub(s->p[s->n - 1], s->target));
    res->residual = res->error - s->unreach;
    if (res->residual < 0) res->residual = 0;
    res->orientation_error = ik_orient_error(s);
}

void ik_state_result_unmoved(const ik_state *s, sk_ik_result *res) {
    res->iterations = 0;
    res->error = skm_vec3_len(sk_vec3_sub(s->p[0], s->target));
    res->residual = res->error - s->unreach;
    res->stop = res->residual <= s->tol ? SK_IK_STOP_TOLERANCE : SK_IK_STOP_NO_PROGRESS;
}

/* ---- stopping rules, errors ---- */
void ik_stopper_init(ik_stopper *st, const sk_ik_options *o, uint32_t default_iter, uint32_t default_window,
                     double t_start) {
    st->max_iter = o->max_iterations ? o->max_iterations : default_iter;
    st->window = o->stall_iterations ? o->stall_iterations : default_window;
    st->ratio = o->stall_ratio > 0 ? o->stall_ratio : 1e-3f;
    st->best = INFINITY;
    st->window_best = INFINITY;
    st->since = 0;
    st->budget_us = o->time_budget_us;
    st->t_start = t_start;
}

float ik_orient_error(const ik_state *s) {
    if (!s->has_orient) return 0.0f;
    return skm_quat_angle(skm_quat_mul(s->target_r, sk_quat_conjugate(s->R[s->n - 1])));
}
