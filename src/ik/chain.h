/* Private: the chain state the IK solvers share and the services on it
 * (chain.c, and the inline ones below). The inline vector, quaternion and
 * 4-float helpers are core/math_inline.h's.
 *
 * Layers of the IK module, one way only:
 *   ik.c (public entry points, dispatch) -> the solvers (ccd.c, fabrik.c,
 *   twobone.c, aim.c, jacobian.c; declared in solvers.h; multi.c has its own
 *   entry point) -> chain.c and limits.c (this header).
 * chain.c and limits.c include this header only: they call neither ik.c
 * nor a solver. */
#ifndef SKELANIM_IK_CHAIN_H
#define SKELANIM_IK_CHAIN_H

#include "core/math_inline.h"
#include "skelanim/ik/ik.h"

/* ---- chain state ---- */
typedef struct ik_state {
    uint32_t n;                 /* joints in the chain */
    const uint32_t *joints;
    const sk_ik_limit *limits;  /* NULL or n */
    const sk_skeleton *skel;
    const sk_ik_options *opt;
    sk_quat parent_r;           /* model rotation of the chain root's parent */
    sk_vec3 root_p;             /* model position of the chain root (never moves) */
    sk_quat *lq;                /* n local rotations being solved */
    sk_quat *R;                 /* n model rotations (FK of lq) */
    sk_vec3 *p;                 /* n model positions (FK of lq) */
    sk_vec3 *bone;              /* n-1: offset of joint i+1 in joint i's rotated frame (scale applied) */
    float *len;                 /* n-1 bone lengths */
    sk_quat *ref;               /* n limit reference rotations (valid when limits) */
    sk_vec3 *twist_axis;        /* n default limit axes (valid when limits) */
    sk_vec3 *work;              /* n positions (FABRIK) */
    sk_quat *best;              /* n best local rotations so far (Jacobian solvers) */
    float *jac;                 /* 6 x 3n Jacobian, column-major (6 floats per column) */
    float *dtheta;              /* 3n */
    sk_vec3 *axes;              /* 3n DOF axes (model space) */
    uint32_t *dof_joint;        /* 3n: chain index owning each DOF */
    float chain_len;
    float tol;                  /* position tolerance (model units) */
    float angle_tol;
    bool planar;
    sk_vec3 normal;             /* plane normal (unit) when planar */
    sk_vec3 target;
    bool has_orient;
    sk_quat target_r;
    float unreach;              /* max(0, |target - root| - chain_len) */
    double t_start;
} ik_state;

/* Bytes of scratch the state of an n-joint chain needs (sk_ik_scratch_size). */
size_t ik_state_scratch_size(uint32_t n);
/* Sets s up for a solve of chain toward target from the local pose (checked
 * by the caller except for finiteness of the chain's own transforms):
 * scratch carved, model space of the chain, bone offsets and lengths, limit
 * references, forward kinematics, tolerances, the target and its reach.
 * parent: the model transform of the chain root's parent when the caller
 * has it (sk_ik_solve_model: from its model matrices), NULL to compose it
 * from the ancestors' local transforms (sk_ik_solve). Fills
 * res->chain_length and res->reachable. */
sk_result ik_state_init(ik_state *s, const sk_ik_chain *chain, const sk_ik_target *target, const sk_ik_options *o,
                        const sk_transform *io_local, const sk_transform *parent, void *scratch, sk_ik_result *res,
                        sk_error *err);
/* Writes s->lq into the chain's local rotations, blended against the FK
 * pose by options.fk_blend, and brings s->R, s->p up to date (refresh_fk:
 * the solver did not). */
void ik_state_write_back(ik_state *s, sk_transform *io_local, bool refresh_fk);
/* error, residual and orientation error of the tip after the write back. */
void ik_state_result(const ik_state *s, sk_ik_result *res);
/* The result of a one-joint chain, which no solver can move (turning the
 * joint does not move its position). */
void ik_state_result_unmoved(const ik_state *s, sk_ik_result *res);

static inline sk_quat ik_parent_rot(const ik_state *s, uint32_t i) { return i ? s->R[i - 1] : s->parent_r; }

/* Forward kinematics of the chain from joint `from` (0 = all). */
static inline void ik_fk(ik_state *s, uint32_t from) {
    const uint32_t n = s->n;
    if (from >= n) return;
    skm_c4 R = skm_c4_ldq(from ? &s->R[from - 1] : &s->parent_r);
    skm_c4 p = skm_c4_ld3(&s->p[from]);
    for (uint32_t i = from;; i++) {
        R = skm_c4_qmul(R, skm_c4_ldq(&s->lq[i]));
        skm_c4_stq(&s->R[i], R);
        if (i + 1 == n) break;
        p = skm_c4_add(p, skm_c4_qrot(R, skm_c4_ld3(&s->bone[i])));
        skm_c4_st3(&s->p[i + 1], p);
    }
}

/* ---- limits (limits.c) ---- */
/* Applies the limit of chain joint i (if any) to s->lq[i]; true if it has one. */
bool ik_apply_limit(ik_state *s, uint32_t i);
static inline bool ik_has_limit(const ik_state *s, uint32_t i) {
    return s->limits && s->limits[i].type != SK_IK_LIMIT_NONE;
}
static inline bool ik_has_hinge(const ik_state *s, uint32_t i) {
    return ik_has_limit(s, i) && s->limits[i].type == SK_IK_LIMIT_HINGE;
}
/* Model-space hinge axis of chain joint i (its limit's axis, default +X, in
 * the limit's reference frame under the joint's parent). */
static inline sk_vec3 ik_hinge_axis(const ik_state *s, uint32_t i) {
    sk_vec3 la = skm_vec3_unit(s->limits[i].axis);
    if (skm_vec3_is_zero(la)) la = sk_vec3_make(1, 0, 0);
    return skm_quat_rotate(skm_quat_mul(ik_parent_rot(s, i), s->ref[i]), la);
}

/* ---- stopping rules ----
 * Seed 002 §7.3: stop on a good enough solution, a local minimum (no
 * progress) or a time limit. */
double ik_now_us(void); /* microseconds, for the time budget */

typedef struct ik_stopper {
    uint32_t max_iter, window;
    float ratio;
    float best, window_best;
    uint32_t since;
    double budget_us, t_start;
} ik_stopper;
/* From the options (zero fields: the defaults given); t_start is when the
 * time budget started. */
void ik_stopper_init(ik_stopper *st, const sk_ik_options *o, uint32_t default_iter, uint32_t default_window,
                     double t_start);
static inline bool ik_stopper_out_of_time(const ik_stopper *st) {
    return st->budget_us > 0 && ik_now_us() - st->t_start >= st->budget_us;
}
/* After iteration iter (from 1) with error err: returns true (and sets *why)
 * to stop. Inline: the iterative solvers call it once per iteration. */
static inline bool ik_stopper_step(ik_stopper *st, uint32_t iter, float err, bool converged, sk_ik_stop *why) {
    if (converged) {
        *why = SK_IK_STOP_TOLERANCE;
        return true;
    }
    if (err < st->best) st->best = err;
    if (++st->since >= st->window) {
        /* No progress: the best error fell by less than ratio over the window. */
        if (!(st->best < st->window_best * (1.0f - st->ratio))) {
            *why = SK_IK_STOP_NO_PROGRESS;
            return true;
        }
        st->window_best = st->best;
        st->since = 0;
    }
    if (iter >= st->max_iter) {
        *why = SK_IK_STOP_ITERATIONS;
        return true;
    }
    if (ik_stopper_out_of_time(st)) {
        *why = SK_IK_STOP_TIME;
        return true;
    }
    return false;
}

/* ---- errors ---- */
/* Residual error of the tip (distance beyond the unavoidable part). */
static inline float ik_residual(const ik_state *s, sk_vec3 tip) {
    return skm_vec3_len(sk_vec3_sub(tip, s->target)) - s->unreach;
}
/* Before the first iteration: true, with the result of a solve that needs
 * none, when the tip is already within tolerance. */
static inline bool ik_done_before_start(const ik_state *s, sk_ik_result *res) {
    if (!(ik_residual(s, s->p[s->n - 1]) <= s->tol)) return false;
    res->stop = SK_IK_STOP_TOLERANCE;
    res->iterations = 0;
    return true;
}
/* Angle between the tip's rotation and the target orientation (0 without one). */
float ik_orient_error(const ik_state *s);

/* ---- turning joints ---- */
/* Planar projection of a direction onto the plane (when planar). */
static inline sk_vec3 ik_planar(const ik_state *s, sk_vec3 v) {
    return s->planar ? skm_vec3_reject(v, s->normal) : v;
}
/* Rotation taking u to v, restricted to the plane normal when planar. */
static inline sk_quat ik_from_to(const ik_state *s, sk_vec3 u, sk_vec3 v) {
    if (!s->planar) return skm_quat_from_to(u, v);
    sk_vec3 a = ik_planar(s, u), b = ik_planar(s, v);
    if (!(sk_vec3_dot(a, a) > 1e-30f) || !(sk_vec3_dot(b, b) > 1e-30f)) return sk_quat_identity();
    float ang = atan2f(sk_vec3_dot(sk_vec3_cross(a, b), s->normal), sk_vec3_dot(a, b));
    return skm_quat_axis_angle(s->normal, ang);
}

/* The turn joint i should make to bring direction u onto v: about the plane
 * normal (planar), about its hinge axis (hinge limit), else the shortest arc. */
static inline sk_quat ik_turn(const ik_state *s, uint32_t i, sk_vec3 u, sk_vec3 v) {
    if (!s->planar && ik_has_hinge(s, i)) {
        sk_vec3 ax = ik_hinge_axis(s, i);
        sk_vec3 a = skm_vec3_reject(u, ax), b = skm_vec3_reject(v, ax);
        if (!(sk_vec3_dot(a, a) > 1e-30f) || !(sk_vec3_dot(b, b) > 1e-30f)) return sk_quat_identity();
        return skm_quat_axis_angle(ax, atan2f(sk_vec3_dot(sk_vec3_cross(a, b), ax), sk_vec3_dot(a, b)));
    }
    return ik_from_to(s, u, v);
}

#endif
