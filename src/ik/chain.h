/* Private parts of the IK module (src/ik*.c): inline vector/quaternion
 * helpers (the public math functions are out of line; the solvers' inner
 * loops want them inlined) and the solver state shared by the solvers. */
#ifndef SKELANIM_IK_INTERNAL_H
#define SKELANIM_IK_INTERNAL_H

#include "core/internal.h"
#include "skelanim/ik/ik.h"

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

/* ---- 4-float vectors (c4) ----
 * SSE2 where the compiler targets it (every x86-64), plain C otherwise. The
 * operations keep the operand order of the scalar helpers above (q_mul,
 * q_rot, v3_cross, v3_dot), so both give the same bits; only c4_dot4 (SSE2)
 * sums pairwise. Positions are (x, y, z, 0), quaternions (x, y, z, w). */
#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define IK_C4_SSE 1
typedef __m128 c4;
#define C4_SHUF(a, i, j, k, l) _mm_shuffle_ps((a), (a), _MM_SHUFFLE(l, k, j, i))
static inline c4 c4_load(const float *p) { return _mm_load_ps(p); } /* 16-byte aligned */
static inline c4 c4_ldq(const sk_quat *q) { return _mm_loadu_ps(&q->x); }
static inline void c4_stq(sk_quat *q, c4 a) { _mm_storeu_ps(&q->x, a); }
static inline c4 c4_ld3(const sk_vec3 *v) {
    return _mm_movelh_ps(_mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)(const void *)v), _mm_load_ss(&v->z));
}
static inline void c4_st3(sk_vec3 *v, c4 a) {
    _mm_storel_pi((__m64 *)(void *)v, a);
    _mm_store_ss(&v->z, C4_SHUF(a, 2, 2, 2, 2));
}
/* true when every lane of a - a is zero, i.e. all four are finite */
static inline bool c4_finite(c4 a) { return _mm_movemask_ps(_mm_cmpneq_ps(_mm_sub_ps(a, a), _mm_setzero_ps())) == 0; }
static inline void c4_store(float *p, c4 a) { _mm_store_ps(p, a); }
static inline c4 c4_set(float x, float y, float z, float w) { return _mm_setr_ps(x, y, z, w); }
static inline c4 c4_splat(float s) { return _mm_set1_ps(s); }
static inline c4 c4_add(c4 a, c4 b) { return _mm_add_ps(a, b); }
static inline c4 c4_sub(c4 a, c4 b) { return _mm_sub_ps(a, b); }
static inline c4 c4_mul(c4 a, c4 b) { return _mm_mul_ps(a, b); }
/* x + y + z of a * b (the w lanes are ignored) */
static inline float c4_dot3(c4 a, c4 b) {
    c4 m = _mm_mul_ps(a, b);
    return _mm_cvtss_f32(_mm_add_ss(_mm_add_ss(m, C4_SHUF(m, 1, 1, 1, 1)), C4_SHUF(m, 2, 2, 2, 2)));
}
static inline float c4_dot4(c4 a, c4 b) {
    c4 m = _mm_mul_ps(a, b);
    m = _mm_add_ps(m, _mm_movehl_ps(m, m));
    return _mm_cvtss_f32(_mm_add_ss(m, C4_SHUF(m, 1, 1, 1, 1)));
}
/* a x b in xyz; w = 0 when a.w b.w are finite */
static inline c4 c4_cross(c4 a, c4 b) {
    c4 t = _mm_sub_ps(_mm_mul_ps(a, C4_SHUF(b, 1, 2, 0, 3)), _mm_mul_ps(C4_SHUF(a, 1, 2, 0, 3), b));
    return C4_SHUF(t, 1, 2, 0, 3);
}
/* quaternion product a b (x, y, z, w) */
static inline c4 c4_qmul(c4 a, c4 b) {
    const c4 s1 = _mm_castsi128_ps(_mm_setr_epi32(0, (int)0x80000000, 0, (int)0x80000000));
    const c4 s2 = _mm_castsi128_ps(_mm_setr_epi32(0, 0, (int)0x80000000, (int)0x80000000));
    const c4 s3 = _mm_castsi128_ps(_mm_setr_epi32((int)0x80000000, 0, 0, (int)0x80000000));
    c4 r = _mm_mul_ps(C4_SHUF(a, 3, 3, 3, 3), b);
    r = _mm_add_ps(r, _mm_mul_ps(C4_SHUF(a, 0, 0, 0, 0), _mm_xor_ps(C4_SHUF(b, 3, 2, 1, 0), s1)));
    r = _mm_add_ps(r, _mm_mul_ps(C4_SHUF(a, 1, 1, 1, 1), _mm_xor_ps(C4_SHUF(b, 2, 3, 0, 1), s2)));
    return _mm_add_ps(r, _mm_mul_ps(C4_SHUF(a, 2, 2, 2, 2), _mm_xor_ps(C4_SHUF(b, 1, 0, 3, 2), s3)));
}
/* v rotated by the unit quaternion q (v.w = 0 gives w = 0) */
static inline c4 c4_qrot(c4 q, c4 v) {
    c4 t = c4_cross(q, v);
    t = _mm_add_ps(t, t);
    return _mm_add_ps(_mm_add_ps(v, _mm_mul_ps(C4_SHUF(q, 3, 3, 3, 3), t)), c4_cross(q, t));
}
static inline float c4_sqrt(float x) { return _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(x))); }
#else
typedef struct c4 { float v[4]; } c4;
static inline c4 c4_set(float x, float y, float z, float w) { c4 r = {{x, y, z, w}}; return r; }
static inline c4 c4_load(const float *p) { return c4_set(p[0], p[1], p[2], p[3]); }
static inline c4 c4_ldq(const sk_quat *q) { return c4_set(q->x, q->y, q->z, q->w); }
static inline void c4_stq(sk_quat *q, c4 a) { *q = qt(a.v[0], a.v[1], a.v[2], a.v[3]); }
static inline c4 c4_ld3(const sk_vec3 *v) { return c4_set(v->x, v->y, v->z, 0.0f); }
static inline void c4_st3(sk_vec3 *v, c4 a) { *v = v3(a.v[0], a.v[1], a.v[2]); }
static inline bool c4_finite(c4 a) {
    return sk_isfinite_f(a.v[0]) && sk_isfinite_f(a.v[1]) && sk_isfinite_f(a.v[2]) && sk_isfinite_f(a.v[3]);
}
static inline void c4_store(float *p, c4 a) { memcpy(p, a.v, sizeof a.v); }
static inline c4 c4_splat(float s) { return c4_set(s, s, s, s); }
static inline c4 c4_add(c4 a, c4 b) {
    return c4_set(a.v[0] + b.v[0], a.v[1] + b.v[1], a.v[2] + b.v[2], a.v[3] + b.v[3]);
}
static inline c4 c4_sub(c4 a, c4 b) {
    return c4_set(a.v[0] - b.v[0], a.v[1] - b.v[1], a.v[2] - b.v[2], a.v[3] - b.v[3]);
}
static inline c4 c4_mul(c4 a, c4 b) {
    return c4_set(a.v[0] * b.v[0], a.v[1] * b.v[1], a.v[2] * b.v[2], a.v[3] * b.v[3]);
}
static inline float c4_dot3(c4 a, c4 b) { return a.v[0] * b.v[0] + a.v[1] * b.v[1] + a.v[2] * b.v[2]; }
static inline float c4_dot4(c4 a, c4 b) { return c4_dot3(a, b) + a.v[3] * b.v[3]; }
static inline c4 c4_cross(c4 a, c4 b) {
    return c4_set(a.v[1] * b.v[2] - a.v[2] * b.v[1], a.v[2] * b.v[0] - a.v[0] * b.v[2],
                  a.v[0] * b.v[1] - a.v[1] * b.v[0], 0.0f);
}
static inline c4 c4_qmul(c4 a, c4 b) {
    sk_quat r = q_mul(qt(a.v[0], a.v[1], a.v[2], a.v[3]), qt(b.v[0], b.v[1], b.v[2], b.v[3]));
    return c4_set(r.x, r.y, r.z, r.w);
}
static inline c4 c4_qrot(c4 q, c4 v) {
    sk_vec3 r = q_rot(qt(q.v[0], q.v[1], q.v[2], q.v[3]), v3(v.v[0], v.v[1], v.v[2]));
    return c4_set(r.x, r.y, r.z, 0.0f);
}
static inline float c4_sqrt(float x) { return sqrtf(x); }
#endif

/* q normalized (identity when zero) */
static inline c4 c4_qnorm(c4 q) {
    float d = c4_dot4(q, q);
    if (!(d > 1e-30f)) return c4_set(0, 0, 0, 1);
    return c4_mul(q, c4_splat(1.0f / c4_sqrt(d)));
}
static inline c4 c4_qconj(c4 q) { return c4_mul(q, c4_set(-1.0f, -1.0f, -1.0f, 1.0f)); }

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
    const uint32_t n = s->n;
    if (from >= n) return;
    c4 R = c4_ldq(from ? &s->R[from - 1] : &s->parent_r);
    c4 p = c4_ld3(&s->p[from]);
    for (uint32_t i = from;; i++) {
        R = c4_qmul(R, c4_ldq(&s->lq[i]));
        c4_stq(&s->R[i], R);
        if (i + 1 == n) break;
        p = c4_add(p, c4_qrot(R, c4_ld3(&s->bone[i])));
        c4_st3(&s->p[i + 1], p);
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
/* After an iteration with error err: returns true (and sets *why) to stop.
 * Inline: the iterative solvers call it once per iteration. */
static inline bool ik_stopper_step(ik_stopper *st, const ik_state *s, uint32_t iter, float err, bool converged,
                                   sk_ik_stop *why) {
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
    if (st->budget_us > 0 && ik_now_us() - s->t_start >= st->budget_us) {
        *why = SK_IK_STOP_TIME;
        return true;
    }
    return false;
}

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
