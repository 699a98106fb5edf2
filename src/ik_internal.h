/* Private parts of the IK module (src/ik*.c): inline vector/quaternion
 * helpers (the public math functions are out of line; the solvers' inner
 * loops want them inlined) and the solver state shared by the solvers. */
#ifndef SKELANIM_IK_INTERNAL_H
#define SKELANIM_IK_INTERNAL_H

#include "internal.h"

#include <math.h>

#define IK_PI 3.14159265358979323846f

/* ---- inline math ---- */
static inline sk_vec3 v3(float x, float y, float z) { sk_vec3 r = {x, y, z}; return r; }
static inline sk_vec3 v3_add(sk_vec3 a, sk_vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline sk_vec3 v3_sub(sk_vec3 a, sk_vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline sk_vec3 v3_scale(sk_vec3 a, float s) { return v3(a.x * s, a.y * s, a.z * s); }
static inline sk_vec3 v3_mul(sk_vec3 a, sk_vec3 b) { return v3(a.x * b.x, a.y * b.y, a.z * b.z); }
static inline float v3_dot(sk_vec3 a, sk_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline sk_vec3 v3_cross(sk_vec3 a, sk_vec3 b) {
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline float v3_len(sk_vec3 a) { return sqrtf(v3_dot(a, a)); }
static inline sk_vec3 v3_norm(sk_vec3 a) {
    float l = v3_len(a);
    return l > 1e-30f ? v3_scale(a, 1.0f / l) : v3(0, 0, 0);
}
static inline bool v3_finite(sk_vec3 a) { return sk_isfinite_f(a.x) && sk_isfinite_f(a.y) && sk_isfinite_f(a.z); }
static inline bool v3_is_zero(sk_vec3 a) { return a.x == 0.0f && a.y == 0.0f && a.z == 0.0f; }
/* Some unit vector perpendicular to a (a need not be unit). */
static inline sk_vec3 v3_perp(sk_vec3 a) {
    float ax = fabsf(a.x), ay = fabsf(a.y), az = fabsf(a.z);
    sk_vec3 o = ax <= ay && ax <= az ? v3(1, 0, 0) : (ay <= az ? v3(0, 1, 0) : v3(0, 0, 1));
    return v3_norm(v3_cross(a, o));
}

static inline sk_quat qt(float x, float y, float z, float w) { sk_quat q = {x, y, z, w}; return q; }
static inline sk_quat q_id(void) { return qt(0, 0, 0, 1); }
static inline sk_quat q_mul(sk_quat a, sk_quat b) {
    return qt(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
              a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}
static inline sk_quat q_conj(sk_quat q) { return qt(-q.x, -q.y, -q.z, q.w); }
static inline float q_dot(sk_quat a, sk_quat b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
static inline sk_quat q_norm(sk_quat q) {
    float d = q_dot(q, q);
    if (!(d > 1e-30f)) return q_id();
    float s = 1.0f / sqrtf(d);
    return qt(q.x * s, q.y * s, q.z * s, q.w * s);
}
static inline sk_vec3 q_rot(sk_quat q, sk_vec3 v) {
    sk_vec3 u = {q.x, q.y, q.z};
    sk_vec3 t = v3_scale(v3_cross(u, v), 2.0f);
    return v3_add(v3_add(v, v3_scale(t, q.w)), v3_cross(u, t));
}
static inline sk_quat q_axis_angle(sk_vec3 unit_axis, float a) {
    float s = sinf(0.5f * a);
    return qt(unit_axis.x * s, unit_axis.y * s, unit_axis.z * s, cosf(0.5f * a));
}
/* Shortest rotation taking direction u to direction v (neither need be unit).
 * Identity when either is zero; a half turn about a perpendicular when opposite. */
static inline sk_quat q_from_to(sk_vec3 u, sk_vec3 v) {
    float lu = v3_dot(u, u), lv = v3_dot(v, v);
    if (!(lu > 1e-30f) || !(lv > 1e-30f)) return q_id();
    float m = sqrtf(lu * lv);
    float w = m + v3_dot(u, v);
    if (w < 1e-6f * m) { /* opposite */
        sk_vec3 p = v3_perp(u);
        return qt(p.x, p.y, p.z, 0.0f);
    }
    sk_vec3 c = v3_cross(u, v);
    return q_norm(qt(c.x, c.y, c.z, w));
}
/* Rotation angle in [0, pi]. */
static inline float q_angle(sk_quat q) {
    float v = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z);
    return 2.0f * atan2f(v, fabsf(q.w));
}
/* Rotation vector (axis * angle), shortest arc. */
static inline sk_vec3 q_log(sk_quat q) {
    if (q.w < 0) q = qt(-q.x, -q.y, -q.z, -q.w);
    float v = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z);
    if (v < 1e-12f) return v3(2.0f * q.x, 2.0f * q.y, 2.0f * q.z);
    float a = 2.0f * atan2f(v, q.w);
    return v3_scale(v3(q.x, q.y, q.z), a / v);
}
static inline sk_quat q_exp(sk_vec3 w) {
    float a = v3_len(w);
    if (a < 1e-12f) return q_norm(qt(0.5f * w.x, 0.5f * w.y, 0.5f * w.z, 1.0f));
    return q_axis_angle(v3_scale(w, 1.0f / a), a);
}
/* Fraction t of q's rotation (shortest arc): slerp(identity, q, t). */
static inline sk_quat q_scale_angle(sk_quat q, float t) { return q_exp(v3_scale(q_log(q), t)); }
static inline bool q_finite(sk_quat q) {
    return sk_isfinite_f(q.x) && sk_isfinite_f(q.y) && sk_isfinite_f(q.z) && sk_isfinite_f(q.w);
}

/* ---- solver state ---- */
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

static inline sk_quat ik_parent_rot(const ik_state *s, uint32_t i) { return i ? s->R[i - 1] : s->parent_r; }

/* Forward kinematics of the chain from joint `from` (0 = all). */
static inline void ik_fk(ik_state *s, uint32_t from) {
    uint32_t n = s->n;
    for (uint32_t i = from; i < n; i++) {
        s->R[i] = q_mul(i ? s->R[i - 1] : s->parent_r, s->lq[i]);
        if (i + 1 < n) s->p[i + 1] = v3_add(s->p[i], q_rot(s->R[i], s->bone[i]));
    }
}

/* Applies the limit of chain joint i (if any) to s->lq[i]; true if it changed. */
bool ik_apply_limit(ik_state *s, uint32_t i);
static inline bool ik_has_limit(const ik_state *s, uint32_t i) {
    return s->limits && s->limits[i].type != SK_IK_LIMIT_NONE;
}

double ik_now_us(void);

/* Stopping bookkeeping shared by the iterative solvers. */
typedef struct ik_stopper {
    uint32_t max_iter, window;
    float ratio;
    float best, window_best;
    uint32_t since;
    double budget_us;
} ik_stopper;
void ik_stopper_init(ik_stopper *st, const ik_state *s, uint32_t default_iter, uint32_t default_window);
/* After an iteration with error err: returns true (and sets *why) to stop. */
bool ik_stopper_step(ik_stopper *st, const ik_state *s, uint32_t iter, float err, bool converged, sk_ik_stop *why);

/* Residual error of the tip (distance beyond the unavoidable part). */
static inline float ik_residual(const ik_state *s, sk_vec3 tip) {
    return v3_len(v3_sub(tip, s->target)) - s->unreach;
}
float ik_orient_error(const ik_state *s);

/* Solvers: s is initialised and FK'ed; they leave the solution in s->lq. */
void ik_solve_ccd(ik_state *s, sk_ik_result *res);
void ik_solve_fabrik(ik_state *s, sk_ik_result *res);
void ik_solve_jacobian(ik_state *s, sk_ik_result *res, bool dls);
sk_result ik_solve_two_bone(ik_state *s, const sk_ik_target *target, sk_transform *io_local, sk_ik_result *res,
                            sk_error *err);
void ik_solve_aim(ik_state *s, const sk_ik_target *target, sk_ik_result *res);

/* Planar projection of a direction onto the plane (when planar). */
static inline sk_vec3 ik_planar(const ik_state *s, sk_vec3 v) {
    return s->planar ? v3_sub(v, v3_scale(s->normal, v3_dot(v, s->normal))) : v;
}
/* Rotation taking u to v, restricted to the plane normal when planar. */
static inline sk_quat ik_from_to(const ik_state *s, sk_vec3 u, sk_vec3 v) {
    if (!s->planar) return q_from_to(u, v);
    sk_vec3 a = ik_planar(s, u), b = ik_planar(s, v);
    if (!(v3_dot(a, a) > 1e-30f) || !(v3_dot(b, b) > 1e-30f)) return q_id();
    float ang = atan2f(v3_dot(v3_cross(a, b), s->normal), v3_dot(a, b));
    return q_axis_angle(s->normal, ang);
}

/* The turn joint i should make to bring direction u onto v: about the plane
 * normal (planar), about its hinge axis (hinge limit), else the shortest arc. */
static inline sk_quat ik_turn(const ik_state *s, uint32_t i, sk_vec3 u, sk_vec3 v) {
    if (!s->planar && ik_has_limit(s, i) && s->limits[i].type == SK_IK_LIMIT_HINGE) {
        sk_vec3 la = v3_norm(s->limits[i].axis);
        if (v3_is_zero(la)) la = v3(1, 0, 0);
        sk_vec3 ax = q_rot(q_mul(ik_parent_rot(s, i), s->ref[i]), la);
        sk_vec3 a = v3_sub(u, v3_scale(ax, v3_dot(u, ax))), b = v3_sub(v, v3_scale(ax, v3_dot(v, ax)));
        if (!(v3_dot(a, a) > 1e-30f) || !(v3_dot(b, b) > 1e-30f)) return q_id();
        return q_axis_angle(ax, atan2f(v3_dot(v3_cross(a, b), ax), v3_dot(a, b)));
    }
    return ik_from_to(s, u, v);
}

#endif
