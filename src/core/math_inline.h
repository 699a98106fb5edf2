/* Private inline math shared by the library's modules (not installed).
 *
 * - vector and quaternion helpers the per-joint loops want inlined (the
 *   public math.h functions are out of line; where one of them does the same
 *   thing as a helper here, math.c implements it with the helper);
 * - rotation matrix -> quaternion, angle wrapping;
 * - the slerp series constants of sk_quat_slerp (math.c), shared with the
 *   batched slerp of clip sampling (clip.c), which must give the same bits;
 * - 4-float vectors (skm_c4: SSE2 where the compiler targets it, plain C
 *   otherwise) and the structure-of-arrays loads and stores (SSE2, AVX) used
 *   by more than one module.
 *
 * The public header's inline helpers (sk_vec3_make/add/sub/scale/mul/dot/
 * cross, sk_quat_make/identity/conjugate/dot) are used as they are. Private
 * names start with skm_ / SKM_. Quaternions are (x, y, z, w); matrices are
 * column-major. */
#ifndef SKELANIM_CORE_MATH_INLINE_H
#define SKELANIM_CORE_MATH_INLINE_H

#include "core/internal.h"
#include "skelanim/core/math.h"

#include <math.h>

#define SKM_PI 3.14159265358979323846f

#if (defined(__SSE2__) || defined(_M_X64)) && !defined(SK_NO_SIMD)
#include <emmintrin.h>
#define SKM_C4_SSE 1
/* The quaternion product a b, (x, y, z, w) in four lanes: skm_quat_mul's
 * products and sums in its order, so the same bits (x - y is x + (-y),
 * x (-y) is -(x y)). skm_quat_mul and skm_c4_qmul are this one. */
static inline __m128 skm_qmul_sse(__m128 a, __m128 b) {
    const __m128 s1 = _mm_castsi128_ps(_mm_setr_epi32(0, (int)0x80000000, 0, (int)0x80000000));
    const __m128 s2 = _mm_castsi128_ps(_mm_setr_epi32(0, 0, (int)0x80000000, (int)0x80000000));
    const __m128 s3 = _mm_castsi128_ps(_mm_setr_epi32((int)0x80000000, 0, 0, (int)0x80000000));
    __m128 r = _mm_mul_ps(_mm_shuffle_ps(a, a, _MM_SHUFFLE(3, 3, 3, 3)), b);
    r = _mm_add_ps(r, _mm_mul_ps(_mm_shuffle_ps(a, a, _MM_SHUFFLE(0, 0, 0, 0)),
                                 _mm_xor_ps(_mm_shuffle_ps(b, b, _MM_SHUFFLE(0, 1, 2, 3)), s1)));
    r = _mm_add_ps(r, _mm_mul_ps(_mm_shuffle_ps(a, a, _MM_SHUFFLE(1, 1, 1, 1)),
                                 _mm_xor_ps(_mm_shuffle_ps(b, b, _MM_SHUFFLE(1, 0, 3, 2)), s2)));
    return _mm_add_ps(r, _mm_mul_ps(_mm_shuffle_ps(a, a, _MM_SHUFFLE(2, 2, 2, 2)),
                                    _mm_xor_ps(_mm_shuffle_ps(b, b, _MM_SHUFFLE(2, 3, 0, 1)), s3)));
}
#define SKM_C4_SHUF(a, i, j, k, l) _mm_shuffle_ps((a), (a), _MM_SHUFFLE(l, k, j, i))
/* a x b in xyz (sk_vec3_cross's products and differences); w = 0 when
 * a.w and b.w are finite. skm_c4_cross is this one. */
static inline __m128 skm_cross_sse(__m128 a, __m128 b) {
    __m128 t = _mm_sub_ps(_mm_mul_ps(a, SKM_C4_SHUF(b, 1, 2, 0, 3)), _mm_mul_ps(SKM_C4_SHUF(a, 1, 2, 0, 3), b));
    return SKM_C4_SHUF(t, 1, 2, 0, 3);
}
/* v rotated by the unit quaternion q as skm_quat_rotate does it, the same
 * bits (2 t is t + t); v.w = 0 gives w = 0. skm_c4_qrot is this one. */
static inline __m128 skm_qrot_sse(__m128 q, __m128 v) {
    __m128 t = skm_cross_sse(q, v);
    t = _mm_add_ps(t, t);
    return _mm_add_ps(_mm_add_ps(v, _mm_mul_ps(SKM_C4_SHUF(q, 3, 3, 3, 3), t)), skm_cross_sse(q, t));
}
#endif

static inline float skm_clampf(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }
/* fminf, fmaxf, fmin and fmax without a call (the C library's functions, which
 * the compiler inlines only under -ffast-math): a NaN argument is ignored (the
 * other is returned), and of two equal arguments (+0 and -0) the second, as
 * x86-64's minss and maxss and its C library give them. */
static inline float skm_fminf(float a, float b) { return a != a ? b : (b != b ? a : (a < b ? a : b)); }
static inline float skm_fmaxf(float a, float b) { return a != a ? b : (b != b ? a : (a > b ? a : b)); }
static inline double skm_fmin(double a, double b) { return a != a ? b : (b != b ? a : (a < b ? a : b)); }
static inline double skm_fmax(double a, double b) { return a != a ? b : (b != b ? a : (a > b ? a : b)); }

/* ---- vectors ------------------------------------------------------------ */
static inline float skm_vec3_len(sk_vec3 a) { return sqrtf(sk_vec3_dot(a, a)); }
/* sk_vec3_lerp */
static inline sk_vec3 skm_vec3_lerp(sk_vec3 a, sk_vec3 b, float t) {
    return sk_vec3_make(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t);
}
/* a / |a|; zero when |a| <= 1e-30 (sk_vec3_normalize leaves such a vector as it is). */
static inline sk_vec3 skm_vec3_unit(sk_vec3 a) {
    float l = skm_vec3_len(a);
    return l > 1e-30f ? sk_vec3_scale(a, 1.0f / l) : sk_vec3_make(0, 0, 0);
}
/* v without its component along the unit vector n */
static inline sk_vec3 skm_vec3_reject(sk_vec3 v, sk_vec3 n) {
    return sk_vec3_sub(v, sk_vec3_scale(n, sk_vec3_dot(v, n)));
}
static inline bool skm_vec3_finite(sk_vec3 a) { return sk_isfinite_f(a.x) && sk_isfinite_f(a.y) && sk_isfinite_f(a.z); }
static inline bool skm_vec3_is_zero(sk_vec3 a) { return a.x == 0.0f && a.y == 0.0f && a.z == 0.0f; }
/* Some unit vector perpendicular to a (a need not be unit). */
static inline sk_vec3 skm_vec3_perp(sk_vec3 a) {
    float ax = fabsf(a.x), ay = fabsf(a.y), az = fabsf(a.z);
    sk_vec3 o = ax <= ay && ax <= az ? sk_vec3_make(1, 0, 0)
                                     : (ay <= az ? sk_vec3_make(0, 1, 0) : sk_vec3_make(0, 0, 1));
    return skm_vec3_unit(sk_vec3_cross(a, o));
}

/* ---- quaternions -------------------------------------------------------- */
static inline sk_quat skm_quat_neg(sk_quat q) { return sk_quat_make(-q.x, -q.y, -q.z, -q.w); }
/* a b: rotates by b first, then a (sk_quat_mul) */
static inline sk_quat skm_quat_mul(sk_quat a, sk_quat b) {
#if defined(SKM_C4_SSE)
    sk_quat r;
    _mm_storeu_ps(&r.x, skm_qmul_sse(_mm_loadu_ps(&a.x), _mm_loadu_ps(&b.x)));
    return r;
#else
    return sk_quat_make(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
#endif
}
/* v' = v + 2w (u x v) + 2 u x (u x v), u = q.xyz (sk_quat_rotate) */
static inline sk_vec3 skm_quat_rotate(sk_quat q, sk_vec3 v) {
#if defined(SKM_C4_SSE)
    float o[4];
    _mm_storeu_ps(o, skm_qrot_sse(_mm_loadu_ps(&q.x), _mm_setr_ps(v.x, v.y, v.z, 0.0f)));
    return sk_vec3_make(o[0], o[1], o[2]);
#else
    sk_vec3 u = {q.x, q.y, q.z};
    sk_vec3 t = sk_vec3_scale(sk_vec3_cross(u, v), 2.0f);
    return sk_vec3_add(sk_vec3_add(v, sk_vec3_scale(t, q.w)), sk_vec3_cross(u, t));
#endif
}
/* q / |q|; identity when |q| is zero or not finite (sk_quat_normalize). */
static inline sk_quat skm_quat_normalize(sk_quat q) {
    float l = sqrtf(sk_quat_dot(q, q));
    if (!(l > 0.0f) || !sk_isfinite_f(l)) return sk_quat_identity();
    float inv = 1.0f / l;
    return sk_quat_make(q.x * inv, q.y * inv, q.z * inv, q.w * inv);
}
/* out = a x b (column-major 4x4; out must not alias a or b): column c is
 * the sum over k of a's column k times b[c][k], in that order, the same
 * bits with SSE2 (b's columns loaded once and splatted by shuffles) and
 * without. sk_mat4_mul and the skinning palette use it. */
#if defined(__SSE2__) && !defined(SK_NO_SIMD)
#include <emmintrin.h>
#endif
static inline void skm_mat4_mul(const float *a, const float *b, float *out) {
#if defined(__SSE2__) && !defined(SK_NO_SIMD)
    __m128 a0 = _mm_loadu_ps(a), a1 = _mm_loadu_ps(a + 4), a2 = _mm_loadu_ps(a + 8), a3 = _mm_loadu_ps(a + 12);
    for (int c = 0; c < 4; c++) {
        __m128 bc = _mm_loadu_ps(b + 4 * c);
        __m128 col = _mm_add_ps(_mm_mul_ps(a0, _mm_shuffle_ps(bc, bc, 0x00)), _mm_mul_ps(a1, _mm_shuffle_ps(bc, bc, 0x55)));
        col = _mm_add_ps(col, _mm_mul_ps(a2, _mm_shuffle_ps(bc, bc, 0xAA)));
        col = _mm_add_ps(col, _mm_mul_ps(a3, _mm_shuffle_ps(bc, bc, 0xFF)));
        _mm_storeu_ps(out + 4 * c, col);
    }
#else
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++)
            out[c * 4 + row] = a[row] * b[c * 4] + a[4 + row] * b[c * 4 + 1] + a[8 + row] * b[c * 4 + 2] +
                               a[12 + row] * b[c * 4 + 3];
#endif
}

/* The columns of R x S of a transform (glTF 2.0 §3.5.3: M = T * R * S):
 * b[c] is column c's x, y, z. sk_mat4_from_transform and local-to-model
 * share it (the same bits). */
static inline void skm_transform_rs(const sk_transform *x, float b[3][3]) {
    float qx = x->r.x, qy = x->r.y, qz = x->r.z, qw = x->r.w;
    float x2 = qx + qx, y2 = qy + qy, z2 = qz + qz;
    float xx = qx * x2, xy = qx * y2, xz = qx * z2;
    float yy = qy * y2, yz = qy * z2, zz = qz * z2;
    float wx = qw * x2, wy = qw * y2, wz = qw * z2;
    float sx = x->s.x, sy = x->s.y, sz = x->s.z;
    b[0][0] = (1 - (yy + zz)) * sx, b[0][1] = (xy + wz) * sx, b[0][2] = (xz - wy) * sx;
    b[1][0] = (xy - wz) * sy, b[1][1] = (1 - (xx + zz)) * sy, b[1][2] = (yz + wx) * sy;
    b[2][0] = (xz + wy) * sz, b[2][1] = (yz - wx) * sz, b[2][2] = (1 - (xx + yy)) * sz;
}
/* Normalised linear interpolation on the shortest arc (sk_quat_nlerp). */
static inline sk_quat skm_quat_nlerp(sk_quat a, sk_quat b, float t) {
    float s = sk_quat_dot(a, b) < 0.0f ? -1.0f : 1.0f;
    float u = 1.0f - t;
    return skm_quat_normalize(sk_quat_make(a.x * u + b.x * s * t, a.y * u + b.y * s * t, a.z * u + b.z * s * t,
                                           a.w * u + b.w * s * t));
}
/* q / |q|; identity when |q|^2 <= 1e-30 (the IK solvers' rule, also
 * skm_c4_qnorm's; skm_quat_normalize normalises any non-zero finite q). */
static inline sk_quat skm_quat_unit(sk_quat q) {
    float d = sk_quat_dot(q, q);
    if (!(d > 1e-30f)) return sk_quat_identity();
    float s = 1.0f / sqrtf(d);
    return sk_quat_make(q.x * s, q.y * s, q.z * s, q.w * s);
}
/* Rotation by a radians about a unit axis. */
static inline sk_quat skm_quat_axis_angle(sk_vec3 unit_axis, float a) {
    float s = sinf(0.5f * a);
    return sk_quat_make(unit_axis.x * s, unit_axis.y * s, unit_axis.z * s, cosf(0.5f * a));
}
static inline sk_quat skm_quat_rot_x(float a) { return skm_quat_axis_angle(sk_vec3_make(1, 0, 0), a); }
static inline sk_quat skm_quat_rot_y(float a) { return skm_quat_axis_angle(sk_vec3_make(0, 1, 0), a); }
static inline sk_quat skm_quat_rot_z(float a) { return skm_quat_axis_angle(sk_vec3_make(0, 0, 1), a); }
/* Shortest rotation taking direction u to direction v (neither need be unit).
 * Identity when either is zero; a half turn about a perpendicular when opposite. */
static inline sk_quat skm_quat_from_to(sk_vec3 u, sk_vec3 v) {
    float lu = sk_vec3_dot(u, u), lv = sk_vec3_dot(v, v);
    if (!(lu > 1e-30f) || !(lv > 1e-30f)) return sk_quat_identity();
    float m = sqrtf(lu * lv);
    float w = m + sk_vec3_dot(u, v);
    if (w < 1e-6f * m) { /* opposite */
        sk_vec3 p = skm_vec3_perp(u);
        return sk_quat_make(p.x, p.y, p.z, 0.0f);
    }
    sk_vec3 c = sk_vec3_cross(u, v);
    return skm_quat_unit(sk_quat_make(c.x, c.y, c.z, w));
}
/* Rotation by phi about a unit axis from c = cos phi, s = sin phi (|phi| < pi;
 * a half turn below c = -0.999999): normalize(axis s, 1 + c), no inverse
 * trigonometry. */
static inline sk_quat skm_quat_rot_cs(sk_vec3 axis, float c, float s) {
    if (c < -0.999999f) return sk_quat_make(axis.x, axis.y, axis.z, 0.0f);
    float k = 1.0f / sqrtf(s * s + (1.0f + c) * (1.0f + c)); /* |axis| = 1 */
    return sk_quat_make(axis.x * s * k, axis.y * s * k, axis.z * s * k, (1.0f + c) * k);
}
/* Rotation about the unit axis dir taking the part of u perpendicular to dir
 * onto the part of v perpendicular to dir (identity when either is ~0). */
static inline sk_quat skm_quat_twist_onto(sk_vec3 dir, sk_vec3 u, sk_vec3 v) {
    sk_vec3 pu = skm_vec3_reject(u, dir), pv = skm_vec3_reject(v, dir);
    float lu = skm_vec3_len(pu), lv = skm_vec3_len(pv);
    if (lu < 1e-12f || lv < 1e-12f) return sk_quat_identity();
    float c = sk_vec3_dot(pu, pv) / (lu * lv), s = sk_vec3_dot(sk_vec3_cross(pu, pv), dir) / (lu * lv);
    return skm_quat_rot_cs(dir, c, s);
}
/* Rotation angle in [0, pi]. */
static inline float skm_quat_angle(sk_quat q) {
    float v = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z);
    return 2.0f * atan2f(v, fabsf(q.w));
}
/* Rotation vector (axis * angle), shortest arc. */
static inline sk_vec3 skm_quat_log(sk_quat q) {
    if (q.w < 0) q = skm_quat_neg(q);
    float v = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z);
    if (v < 1e-12f) return sk_vec3_make(2.0f * q.x, 2.0f * q.y, 2.0f * q.z);
    float a = 2.0f * atan2f(v, q.w);
    return sk_vec3_scale(sk_vec3_make(q.x, q.y, q.z), a / v);
}
static inline sk_quat skm_quat_exp(sk_vec3 w) {
    float a = skm_vec3_len(w);
    if (a < 1e-12f) return skm_quat_unit(sk_quat_make(0.5f * w.x, 0.5f * w.y, 0.5f * w.z, 1.0f));
    return skm_quat_axis_angle(sk_vec3_scale(w, 1.0f / a), a);
}
/* Fraction t of q's rotation (shortest arc): slerp(identity, q, t). */
static inline sk_quat skm_quat_scale_angle(sk_quat q, float t) {
    return skm_quat_exp(sk_vec3_scale(skm_quat_log(q), t));
}
static inline bool skm_quat_finite(sk_quat q) {
    return sk_isfinite_f(q.x) && sk_isfinite_f(q.y) && sk_isfinite_f(q.z) && sk_isfinite_f(q.w);
}

/* Unit quaternion of a rotation matrix r (r[col][row], orthonormal,
 * right-handed; not modified), Shepperd's method: the largest of 4w^2, 4x^2,
 * 4y^2, 4z^2 comes from the diagonal, the other components from sums and
 * differences of the off-diagonal elements. In double; normalised in float. */
static inline sk_quat skm_quat_from_rotation(double r[3][3]) {
    double m00 = r[0][0], m11 = r[1][1], m22 = r[2][2];
    double tr = m00 + m11 + m22, x, y, z, w;
    if (tr > 0) {
        double s = sqrt(tr + 1.0) * 2;
        w = 0.25 * s;
        x = (r[1][2] - r[2][1]) / s;
        y = (r[2][0] - r[0][2]) / s;
        z = (r[0][1] - r[1][0]) / s;
    } else if (m00 > m11 && m00 > m22) {
        double s = sqrt(1.0 + m00 - m11 - m22) * 2;
        w = (r[1][2] - r[2][1]) / s;
        x = 0.25 * s;
        y = (r[1][0] + r[0][1]) / s;
        z = (r[2][0] + r[0][2]) / s;
    } else if (m11 > m22) {
        double s = sqrt(1.0 + m11 - m00 - m22) * 2;
        w = (r[2][0] - r[0][2]) / s;
        x = (r[1][0] + r[0][1]) / s;
        y = 0.25 * s;
        z = (r[2][1] + r[1][2]) / s;
    } else {
        double s = sqrt(1.0 + m22 - m00 - m11) * 2;
        w = (r[0][1] - r[1][0]) / s;
        x = (r[2][0] + r[0][2]) / s;
        y = (r[2][1] + r[1][2]) / s;
        z = 0.25 * s;
    }
    return skm_quat_normalize(sk_quat_make((float)x, (float)y, (float)z, (float)w));
}

/* The rotation of a model matrix (sk_local_to_model's: columns R x S, no
 * shear): the columns normalised (skipped for columns of unit length within
 * 1e-5, the common case), a mirror (negative determinant) undone on the
 * first column as sk_mat4_decompose does, then Shepperd's method in float
 * (one square root and one division), normalised only when visibly off unit
 * length. Identity for a degenerate matrix (a zero column). For runtimes
 * that keep model matrices and need a few joints' world rotations (foot
 * placement). */
static inline sk_quat skm_mat4_rotation(const sk_mat4 *mat) {
    const float *m = mat->m;
    float l0 = m[0] * m[0] + m[1] * m[1] + m[2] * m[2], l1 = m[4] * m[4] + m[5] * m[5] + m[6] * m[6],
          l2 = m[8] * m[8] + m[9] * m[9] + m[10] * m[10];
    if (!(l0 > 1e-30f && l1 > 1e-30f && l2 > 1e-30f)) return sk_quat_identity();
    float i0 = 1, i1 = 1, i2 = 1;
    if (fabsf(l0 - 1) > 1e-5f || fabsf(l1 - 1) > 1e-5f || fabsf(l2 - 1) > 1e-5f)
        i0 = 1.0f / sqrtf(l0), i1 = 1.0f / sqrtf(l1), i2 = 1.0f / sqrtf(l2);
    float det = m[0] * (m[5] * m[10] - m[6] * m[9]) - m[4] * (m[1] * m[10] - m[2] * m[9]) +
                m[8] * (m[1] * m[6] - m[2] * m[5]);
    if (det < 0) i0 = -i0;
    /* r[col][row] */
    float r00 = m[0] * i0, r01 = m[1] * i0, r02 = m[2] * i0;
    float r10 = m[4] * i1, r11 = m[5] * i1, r12 = m[6] * i1;
    float r20 = m[8] * i2, r21 = m[9] * i2, r22 = m[10] * i2;
    float tr = r00 + r11 + r22, x, y, z, w;
    if (tr > 0) {
        float s = sqrtf(tr + 1.0f) * 2, is = 1.0f / s;
        w = 0.25f * s, x = (r12 - r21) * is, y = (r20 - r02) * is, z = (r01 - r10) * is;
    } else if (r00 > r11 && r00 > r22) {
        float s = sqrtf(1.0f + r00 - r11 - r22) * 2, is = 1.0f / s;
        w = (r12 - r21) * is, x = 0.25f * s, y = (r10 + r01) * is, z = (r20 + r02) * is;
    } else if (r11 > r22) {
        float s = sqrtf(1.0f + r11 - r00 - r22) * 2, is = 1.0f / s;
        w = (r20 - r02) * is, x = (r10 + r01) * is, y = 0.25f * s, z = (r21 + r12) * is;
    } else {
        float s = sqrtf(1.0f + r22 - r00 - r11) * 2, is = 1.0f / s;
        w = (r01 - r10) * is, x = (r20 + r02) * is, y = (r21 + r12) * is, z = 0.25f * s;
    }
    sk_quat q = sk_quat_make(x, y, z, w);
    float n2 = x * x + y * y + z * z + w * w;
    return fabsf(n2 - 1.0f) > 1e-5f ? skm_quat_normalize(q) : q;
}
/* The translation of a model matrix. */
static inline sk_vec3 skm_mat4_pos(const sk_mat4 *mat) { return sk_vec3_make(mat->m[12], mat->m[13], mat->m[14]); }
/* sk_mat4_transform_point (the public function is this one) */
static inline sk_vec3 skm_mat4_transform_point(const sk_mat4 *a, sk_vec3 p) {
    const float *m = a->m;
    return sk_vec3_make(m[0] * p.x + m[4] * p.y + m[8] * p.z + m[12], m[1] * p.x + m[5] * p.y + m[9] * p.z + m[13],
                        m[2] * p.x + m[6] * p.y + m[10] * p.z + m[14]);
}
/* v brought into a model matrix's frame without its translation: the
 * inverse of its linear part (R x S, no shear) applied to v, component k
 * being (column k . v) / |column k|^2. */
static inline sk_vec3 skm_mat4_unrotate(const sk_mat4 *mat, sk_vec3 v) {
    const float *m = mat->m;
    float d[3];
    for (int k = 0; k < 3; k++) {
        const float *c = m + 4 * k;
        float l2 = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
        d[k] = l2 > 1e-30f ? (c[0] * v.x + c[1] * v.y + c[2] * v.z) / l2 : 0.0f;
    }
    return sk_vec3_make(d[0], d[1], d[2]);
}

/* An angle brought into [-pi, pi] by whole turns. */
static inline float skm_wrap_angle(float a) {
    if (!(a - a == 0.0f)) return 0.0f; /* NaN or infinite: no angle (the loops would never end) */
    /* far outside: reduce first (subtracting 2 pi from 1e30 changes nothing) */
    if (a > 16.0f * SKM_PI || a < -16.0f * SKM_PI) a = remainderf(a, 2.0f * SKM_PI);
    while (a > SKM_PI) a -= 2.0f * SKM_PI;
    while (a < -SKM_PI) a += 2.0f * SKM_PI;
    return a;
}

/* ---- slerp series --------------------------------------------------------
 * D. Eberly, "A Fast and Accurate Algorithm for Computing SLERP" (2011):
 * sin(k theta) / sin(theta) as a series in x - 1 (x = cos theta) with
 * u_i = 1/(i(2i+1)), v_i = i/(2i+1); the last term is scaled by
 * mu = 1.85298109240830 to correct the truncation after 8 terms. Used by
 * sk_quat_slerp and the batched slerp of clip sampling (bit-identical to it):
 * below x = SKM_SLERP_TRIG_BELOW exact trigonometric slerp; 3 terms when
 * x - 1 > SKM_SLERP_3_TERMS_ABOVE, 6 when > SKM_SLERP_6_TERMS_ABOVE, else 8. */
static const float skm_slerp_u[8] = {1.0f / (1 * 3), 1.0f / (2 * 5), 1.0f / (3 * 7), 1.0f / (4 * 9),
                                     1.0f / (5 * 11), 1.0f / (6 * 13), 1.0f / (7 * 15), 1.85298109240830f / (8 * 17)};
static const float skm_slerp_v[8] = {1.0f / 3, 2.0f / 5, 3.0f / 7, 4.0f / 9,
                                     5.0f / 11, 6.0f / 13, 7.0f / 15, 1.85298109240830f * 8 / 17};
#define SKM_SLERP_TRIG_BELOW 0.5f
#define SKM_SLERP_3_TERMS_ABOVE (-0.01f)
#define SKM_SLERP_6_TERMS_ABOVE (-0.1f)

/* ---- 4-float vectors (skm_c4) ----------------------------------------------
 * SSE2 where the compiler targets it (every x86-64), plain C otherwise. The
 * operations keep the operand order of the scalar helpers above
 * (skm_quat_mul, skm_quat_rotate, sk_vec3_cross, sk_vec3_dot), so both give
 * the same bits; only skm_c4_dot4 (SSE2) sums pairwise. Positions are
 * (x, y, z, 0), quaternions (x, y, z, w). */
#if defined(SKM_C4_SSE)
typedef __m128 skm_c4;
static inline skm_c4 skm_c4_load(const float *p) { return _mm_load_ps(p); } /* 16-byte aligned */
static inline skm_c4 skm_c4_ldq(const sk_quat *q) { return _mm_loadu_ps(&q->x); }
static inline void skm_c4_stq(sk_quat *q, skm_c4 a) { _mm_storeu_ps(&q->x, a); }
/* x, y, z of a to o[0..2] */
static inline void skm_c4_store3(float *o, skm_c4 a) {
    _mm_storel_pi((__m64 *)(void *)o, a);
    _mm_store_ss(o + 2, _mm_movehl_ps(a, a));
}
static inline skm_c4 skm_c4_ld3(const sk_vec3 *v) {
    return _mm_movelh_ps(_mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)(const void *)v), _mm_load_ss(&v->z));
}
static inline void skm_c4_st3(sk_vec3 *v, skm_c4 a) { skm_c4_store3(&v->x, a); }
/* true when every lane of a - a is zero, i.e. all four are finite */
static inline bool skm_c4_finite(skm_c4 a) {
    return _mm_movemask_ps(_mm_cmpneq_ps(_mm_sub_ps(a, a), _mm_setzero_ps())) == 0;
}
static inline void skm_c4_store(float *p, skm_c4 a) { _mm_store_ps(p, a); }
static inline skm_c4 skm_c4_set(float x, float y, float z, float w) { return _mm_setr_ps(x, y, z, w); }
static inline skm_c4 skm_c4_splat(float s) { return _mm_set1_ps(s); }
static inline skm_c4 skm_c4_add(skm_c4 a, skm_c4 b) { return _mm_add_ps(a, b); }
static inline skm_c4 skm_c4_sub(skm_c4 a, skm_c4 b) { return _mm_sub_ps(a, b); }
static inline skm_c4 skm_c4_mul(skm_c4 a, skm_c4 b) { return _mm_mul_ps(a, b); }
/* x + y + z of a * b (the w lanes are ignored) */
static inline float skm_c4_dot3(skm_c4 a, skm_c4 b) {
    skm_c4 m = _mm_mul_ps(a, b);
    return _mm_cvtss_f32(_mm_add_ss(_mm_add_ss(m, SKM_C4_SHUF(m, 1, 1, 1, 1)), SKM_C4_SHUF(m, 2, 2, 2, 2)));
}
static inline float skm_c4_dot4(skm_c4 a, skm_c4 b) {
    skm_c4 m = _mm_mul_ps(a, b);
    m = _mm_add_ps(m, _mm_movehl_ps(m, m));
    return _mm_cvtss_f32(_mm_add_ss(m, SKM_C4_SHUF(m, 1, 1, 1, 1)));
}
/* a x b in xyz; w = 0 when a.w b.w are finite */
static inline skm_c4 skm_c4_cross(skm_c4 a, skm_c4 b) { return skm_cross_sse(a, b); }
/* quaternion product a b (x, y, z, w) */
static inline skm_c4 skm_c4_qmul(skm_c4 a, skm_c4 b) { return skm_qmul_sse(a, b); }
/* v rotated by the unit quaternion q (v.w = 0 gives w = 0) */
static inline skm_c4 skm_c4_qrot(skm_c4 q, skm_c4 v) { return skm_qrot_sse(q, v); }
static inline float skm_c4_sqrt(float x) { return _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(x))); }

/* Structure of arrays, four lanes: out[e] = component e of rows[0..3]
 * (4 floats each, any alignment). Back: _MM_TRANSPOSE4_PS. */
static inline void skm_soa4_load(const float *const rows[4], __m128 out[4]) {
    __m128 r0 = _mm_loadu_ps(rows[0]), r1 = _mm_loadu_ps(rows[1]), r2 = _mm_loadu_ps(rows[2]),
           r3 = _mm_loadu_ps(rows[3]);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    out[0] = r0, out[1] = r1, out[2] = r2, out[3] = r3;
}
#else
typedef struct skm_c4 { float v[4]; } skm_c4;
static inline skm_c4 skm_c4_set(float x, float y, float z, float w) { skm_c4 r = {{x, y, z, w}}; return r; }
static inline skm_c4 skm_c4_load(const float *p) { return skm_c4_set(p[0], p[1], p[2], p[3]); }
static inline skm_c4 skm_c4_ldq(const sk_quat *q) { return skm_c4_set(q->x, q->y, q->z, q->w); }
static inline void skm_c4_stq(sk_quat *q, skm_c4 a) { *q = sk_quat_make(a.v[0], a.v[1], a.v[2], a.v[3]); }
static inline void skm_c4_store3(float *o, skm_c4 a) { o[0] = a.v[0], o[1] = a.v[1], o[2] = a.v[2]; }
static inline skm_c4 skm_c4_ld3(const sk_vec3 *v) { return skm_c4_set(v->x, v->y, v->z, 0.0f); }
static inline void skm_c4_st3(sk_vec3 *v, skm_c4 a) { *v = sk_vec3_make(a.v[0], a.v[1], a.v[2]); }
static inline bool skm_c4_finite(skm_c4 a) {
    return sk_isfinite_f(a.v[0]) && sk_isfinite_f(a.v[1]) && sk_isfinite_f(a.v[2]) && sk_isfinite_f(a.v[3]);
}
static inline void skm_c4_store(float *p, skm_c4 a) { memcpy(p, a.v, sizeof a.v); }
static inline skm_c4 skm_c4_splat(float s) { return skm_c4_set(s, s, s, s); }
static inline skm_c4 skm_c4_add(skm_c4 a, skm_c4 b) {
    return skm_c4_set(a.v[0] + b.v[0], a.v[1] + b.v[1], a.v[2] + b.v[2], a.v[3] + b.v[3]);
}
static inline skm_c4 skm_c4_sub(skm_c4 a, skm_c4 b) {
    return skm_c4_set(a.v[0] - b.v[0], a.v[1] - b.v[1], a.v[2] - b.v[2], a.v[3] - b.v[3]);
}
static inline skm_c4 skm_c4_mul(skm_c4 a, skm_c4 b) {
    return skm_c4_set(a.v[0] * b.v[0], a.v[1] * b.v[1], a.v[2] * b.v[2], a.v[3] * b.v[3]);
}
static inline float skm_c4_dot3(skm_c4 a, skm_c4 b) { return a.v[0] * b.v[0] + a.v[1] * b.v[1] + a.v[2] * b.v[2]; }
static inline float skm_c4_dot4(skm_c4 a, skm_c4 b) { return skm_c4_dot3(a, b) + a.v[3] * b.v[3]; }
static inline skm_c4 skm_c4_cross(skm_c4 a, skm_c4 b) {
    return skm_c4_set(a.v[1] * b.v[2] - a.v[2] * b.v[1], a.v[2] * b.v[0] - a.v[0] * b.v[2],
                      a.v[0] * b.v[1] - a.v[1] * b.v[0], 0.0f);
}
static inline skm_c4 skm_c4_qmul(skm_c4 a, skm_c4 b) {
    sk_quat qa = sk_quat_make(a.v[0], a.v[1], a.v[2], a.v[3]), qb = sk_quat_make(b.v[0], b.v[1], b.v[2], b.v[3]);
    sk_quat r = skm_quat_mul(qa, qb);
    return skm_c4_set(r.x, r.y, r.z, r.w);
}
static inline skm_c4 skm_c4_qrot(skm_c4 q, skm_c4 v) {
    sk_vec3 r = skm_quat_rotate(sk_quat_make(q.v[0], q.v[1], q.v[2], q.v[3]), sk_vec3_make(v.v[0], v.v[1], v.v[2]));
    return skm_c4_set(r.x, r.y, r.z, 0.0f);
}
static inline float skm_c4_sqrt(float x) { return sqrtf(x); }
#endif

/* q normalized (identity when |q|^2 <= 1e-30, as skm_quat_unit) */
static inline skm_c4 skm_c4_qnorm(skm_c4 q) {
    float d = skm_c4_dot4(q, q);
    if (!(d > 1e-30f)) return skm_c4_set(0, 0, 0, 1);
    return skm_c4_mul(q, skm_c4_splat(1.0f / skm_c4_sqrt(d)));
}
static inline skm_c4 skm_c4_qconj(skm_c4 q) { return skm_c4_mul(q, skm_c4_set(-1.0f, -1.0f, -1.0f, 1.0f)); }

/* ---- structure of arrays, eight lanes (AVX) ---------------------------------
 * For kernels compiled with a target attribute that includes AVX (called
 * only when the CPU has it). */
#if defined(SKM_C4_SSE) && (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#include <immintrin.h>
#define SKM_SOA8 1
#define SKM_TARGET_AVX __attribute__((target("avx")))
/* out[e] = component e of rows[0..7] (4 floats each, any alignment): two 4x4
 * transposes joined into eight lanes. */
SKM_TARGET_AVX static inline void skm_soa8_load(const float *const rows[8], __m256 out[4]) {
    __m128 lo[4], hi[4];
    skm_soa4_load(rows, lo);
    skm_soa4_load(rows + 4, hi);
    for (int e = 0; e < 4; e++) out[e] = _mm256_insertf128_ps(_mm256_castps128_ps256(lo[e]), hi[e], 1);
}
/* The way back: rows[l] = (in[0], in[1], in[2], in[3]) of lane l. */
SKM_TARGET_AVX static inline void skm_soa8_store(const __m256 in[4], __m128 rows[8]) {
    for (int h = 0; h < 2; h++) {
        __m128 r0 = h ? _mm256_extractf128_ps(in[0], 1) : _mm256_castps256_ps128(in[0]);
        __m128 r1 = h ? _mm256_extractf128_ps(in[1], 1) : _mm256_castps256_ps128(in[1]);
        __m128 r2 = h ? _mm256_extractf128_ps(in[2], 1) : _mm256_castps256_ps128(in[2]);
        __m128 r3 = h ? _mm256_extractf128_ps(in[3], 1) : _mm256_castps256_ps128(in[3]);
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        rows[4 * h] = r0, rows[4 * h + 1] = r1, rows[4 * h + 2] = r2, rows[4 * h + 3] = r3;
    }
}
#endif

#endif
