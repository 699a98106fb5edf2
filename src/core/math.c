/* Scalar reference math. Quaternions are (x, y, z, w); matrices column-major. */
#include "core/math_inline.h"

#include <math.h>

sk_vec3 sk_vec3_lerp(sk_vec3 a, sk_vec3 b, float t) { return skm_vec3_lerp(a, b, t); }
float sk_vec3_length(sk_vec3 a) { return skm_vec3_len(a); }
sk_vec3 sk_vec3_normalize(sk_vec3 a) {
    float l = sk_vec3_length(a);
    return l > 0.0f ? sk_vec3_scale(a, 1.0f / l) : a;
}

sk_quat sk_quat_from_axis_angle(sk_vec3 axis, float radians) {
    return skm_quat_axis_angle(sk_vec3_normalize(axis), radians);
}
sk_quat sk_quat_mul(sk_quat a, sk_quat b) { return skm_quat_mul(a, b); }
float sk_quat_length(sk_quat q) { return sqrtf(sk_quat_dot(q, q)); }
sk_quat sk_quat_inverse(sk_quat q) {
    float d = sk_quat_dot(q, q);
    if (!(d > 0.0f)) return sk_quat_identity();
    sk_quat c = sk_quat_conjugate(q);
    return sk_quat_make(c.x / d, c.y / d, c.z / d, c.w / d);
}
sk_quat sk_quat_normalize(sk_quat q) { return skm_quat_normalize(q); }
sk_vec3 sk_quat_rotate(sk_quat q, sk_vec3 v) { return skm_quat_rotate(q, v); }

sk_quat sk_quat_nlerp(sk_quat a, sk_quat b, float t) { return skm_quat_nlerp(a, b, t); }

/* Keys more than 120 degrees apart: the trigonometric form. */
static sk_quat slerp_trig(sk_quat a, sk_quat b, float t, float x, float sgn) {
    double th = acos((double)x), s = sin(th), wa = sin((1.0 - t) * th) / s, wb = sgn * sin(t * th) / s;
    return sk_quat_normalize(sk_quat_make((float)(wa * a.x + wb * b.x), (float)(wa * a.y + wb * b.y),
                                          (float)(wa * a.z + wb * b.z), (float)(wa * a.w + wb * b.w)));
}

/* t outside [0, 1]: along the arc beyond a or b, in double. The arc is
 * 2 atan2(|b - a|, |b + a|) of the two normalised in double (the float dot
 * near 1 keeps too few digits of a short arc for a long extrapolation);
 * where its sine is too small to divide by, the chord's weights, which agree
 * to first order. */
static sk_quat slerp_beyond(sk_quat a, sk_quat b, double t, float sgn) {
    double la = sqrt((double)a.x * a.x + (double)a.y * a.y + (double)a.z * a.z + (double)a.w * a.w);
    double lb = sqrt((double)b.x * b.x + (double)b.y * b.y + (double)b.z * b.z + (double)b.w * b.w);
    if (!(la > 0.0) || !(lb > 0.0) || !isfinite(la) || !isfinite(lb)) return sk_quat_identity();
    double p[4] = {a.x / la, a.y / la, a.z / la, a.w / la};
    double q[4] = {sgn * b.x / lb, sgn * b.y / lb, sgn * b.z / lb, sgn * b.w / lb};
    double dd = 0, ss = 0;
    for (int i = 0; i < 4; i++) dd += (q[i] - p[i]) * (q[i] - p[i]), ss += (q[i] + p[i]) * (q[i] + p[i]);
    double th = 2.0 * atan2(sqrt(dd), sqrt(ss)), s = sin(th), wa, wb;
    if (s > 1e-9) {
        wa = sin((1.0 - t) * th) / s;
        wb = sin(t * th) / s;
    } else {
        wa = 1.0 - t;
        wb = t;
    }
    double r[4], l2 = 0;
    for (int i = 0; i < 4; i++) r[i] = wa * p[i] + wb * q[i], l2 += r[i] * r[i];
    double l = sqrt(l2);
    if (!(l > 0.0) || !isfinite(l)) return sk_quat_identity();
    return sk_quat_make((float)(r[0] / l), (float)(r[1] / l), (float)(r[2] / l), (float)(r[3] / l));
}

/* Slerp without trigonometry: D. Eberly, "A Fast and Accurate Algorithm for
 * Computing SLERP" (2011); the series and its constants are in
 * core/math_inline.h (skm_slerp_u, skm_slerp_v), shared with the batched
 * slerp of clip sampling. Valid for cos(theta) in [0, 1], which the
 * shortest-arc sign flip guarantees; below cos = 0.5 exact trigonometric
 * slerp is used; the error against the closed form is below 1e-6 (tested). */
sk_quat sk_quat_slerp(sk_quat a, sk_quat b, float t) {
    const float *u = skm_slerp_u, *v = skm_slerp_v;
    float x = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    float sgn = 1.0f;
    if (x < 0.0f) { x = -x; sgn = -1.0f; }
    if (x > 1.0f) x = 1.0f;
    /* the series holds for t in [0, 1] (its terms grow with t^2: at t = 2048
     * they overflowed to a NaN); beyond, trig in double; a NaN t counts as 0 */
    if (!(t >= 0.0f && t <= 1.0f)) return t != t ? sk_quat_normalize(a) : slerp_beyond(a, b, t, sgn);
    /* keys more than 120 degrees apart (rare): the series loses digits, use trig */
    if (x < SKM_SLERP_TRIG_BELOW) return slerp_trig(a, b, t, x, sgn);
    float xm1 = x - 1.0f, d = 1.0f - t, t2 = t * t, d2 = d * d;
    float ct = 1.0f, cd = 1.0f;
    /* Keys close together (the usual case) need fewer terms: term i shrinks like
     * |x-1|^i, so 3 terms suffice below |x-1| = 0.01 and 6 below 0.1 (the
     * remainder is under 1e-7 there); the full 8 with mu otherwise (u, v are
     * unscaled for i < 7). */
    if (xm1 > SKM_SLERP_3_TERMS_ABOVE) {
        for (int i = 2; i >= 0; i--) {
            ct = 1.0f + (u[i] * t2 - v[i]) * xm1 * ct;
            cd = 1.0f + (u[i] * d2 - v[i]) * xm1 * cd;
        }
    } else if (xm1 > SKM_SLERP_6_TERMS_ABOVE) {
        for (int i = 5; i >= 0; i--) {
            ct = 1.0f + (u[i] * t2 - v[i]) * xm1 * ct;
            cd = 1.0f + (u[i] * d2 - v[i]) * xm1 * cd;
        }
    } else {
        for (int i = 7; i >= 0; i--) {
            ct = 1.0f + (u[i] * t2 - v[i]) * xm1 * ct;
            cd = 1.0f + (u[i] * d2 - v[i]) * xm1 * cd;
        }
    }
    ct *= t * sgn;
    cd *= d;
    float qx = cd * a.x + ct * b.x, qy = cd * a.y + ct * b.y, qz = cd * a.z + ct * b.z, qw = cd * a.w + ct * b.w;
    float l2 = qx * qx + qy * qy + qz * qz + qw * qw;
    if (!(l2 > 0.0f)) return sk_quat_identity();
    float inv = 1.0f / sqrtf(l2);
    return sk_quat_make(qx * inv, qy * inv, qz * inv, qw * inv);
}

float sk_quat_yaw(sk_quat q) {
    sk_vec3 f = sk_quat_rotate(q, sk_vec3_make(0, 0, 1));
    if (fabsf(f.x) < 1e-12f && fabsf(f.z) < 1e-12f) return 0.0f; /* looking straight up/down */
    return atan2f(f.x, f.z);
}

sk_mat4 sk_mat4_identity(void) {
    sk_mat4 m = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    return m;
}

sk_mat4 sk_mat4_mul(const sk_mat4 *a, const sk_mat4 *b) {
    sk_mat4 r;
    skm_mat4_mul(a->m, b->m, r.m);
    return r;
}

sk_mat4 sk_mat4_from_transform(const sk_transform *x) {
    /* glTF 2.0 §3.5.3: M = T * R * S. */
    float b[3][3];
    skm_transform_rs(x, b);
    sk_mat4 m;
    m.m[0] = b[0][0], m.m[1] = b[0][1], m.m[2] = b[0][2], m.m[3] = 0;
    m.m[4] = b[1][0], m.m[5] = b[1][1], m.m[6] = b[1][2], m.m[7] = 0;
    m.m[8] = b[2][0], m.m[9] = b[2][1], m.m[10] = b[2][2], m.m[11] = 0;
    m.m[12] = x->t.x, m.m[13] = x->t.y, m.m[14] = x->t.z, m.m[15] = 1;
    return m;
}

bool sk_mat4_invert(const sk_mat4 *mat, sk_mat4 *out) {
    const float *m = mat->m;
    double inv[16];
    inv[0] = (double)m[5] * m[10] * m[15] - (double)m[5] * m[11] * m[14] - (double)m[9] * m[6] * m[15] +
             (double)m[9] * m[7] * m[14] + (double)m[13] * m[6] * m[11] - (double)m[13] * m[7] * m[10];
    inv[4] = -(double)m[4] * m[10] * m[15] + (double)m[4] * m[11] * m[14] + (double)m[8] * m[6] * m[15] -
             (double)m[8] * m[7] * m[14] - (double)m[12] * m[6] * m[11] + (double)m[12] * m[7] * m[10];
    inv[8] = (double)m[4] * m[9] * m[15] - (double)m[4] * m[11] * m[13] - (double)m[8] * m[5] * m[15] +
             (double)m[8] * m[7] * m[13] + (double)m[12] * m[5] * m[11] - (double)m[12] * m[7] * m[9];
    inv[12] = -(double)m[4] * m[9] * m[14] + (double)m[4] * m[10] * m[13] + (double)m[8] * m[5] * m[14] -
              (double)m[8] * m[6] * m[13] - (double)m[12] * m[5] * m[10] + (double)m[12] * m[6] * m[9];
    inv[1] = -(double)m[1] * m[10] * m[15] + (double)m[1] * m[11] * m[14] + (double)m[9] * m[2] * m[15] -
             (double)m[9] * m[3] * m[14] - (double)m[13] * m[2] * m[11] + (double)m[13] * m[3] * m[10];
    inv[5] = (double)m[0] * m[10] * m[15] - (double)m[0] * m[11] * m[14] - (double)m[8] * m[2] * m[15] +
             (double)m[8] * m[3] * m[14] + (double)m[12] * m[2] * m[11] - (double)m[12] * m[3] * m[10];
    inv[9] = -(double)m[0] * m[9] * m[15] + (double)m[0] * m[11] * m[13] + (double)m[8] * m[1] * m[15] -
             (double)m[8] * m[3] * m[13] - (double)m[12] * m[1] * m[11] + (double)m[12] * m[3] * m[9];
    inv[13] = (double)m[0] * m[9] * m[14] - (double)m[0] * m[10] * m[13] - (double)m[8] * m[1] * m[14] +
              (double)m[8] * m[2] * m[13] + (double)m[12] * m[1] * m[10] - (double)m[12] * m[2] * m[9];
    inv[2] = (double)m[1] * m[6] * m[15] - (double)m[1] * m[7] * m[14] - (double)m[5] * m[2] * m[15] +
             (double)m[5] * m[3] * m[14] + (double)m[13] * m[2] * m[7] - (double)m[13] * m[3] * m[6];
    inv[6] = -(double)m[0] * m[6] * m[15] + (double)m[0] * m[7] * m[14] + (double)m[4] * m[2] * m[15] -
             (double)m[4] * m[3] * m[14] - (double)m[12] * m[2] * m[7] + (double)m[12] * m[3] * m[6];
    inv[10] = (double)m[0] * m[5] * m[15] - (double)m[0] * m[7] * m[13] - (double)m[4] * m[1] * m[15] +
              (double)m[4] * m[3] * m[13] + (double)m[12] * m[1] * m[7] - (double)m[12] * m[3] * m[5];
    inv[14] = -(double)m[0] * m[5] * m[14] + (double)m[0] * m[6] * m[13] + (double)m[4] * m[1] * m[14] -
              (double)m[4] * m[2] * m[13] - (double)m[12] * m[1] * m[6] + (double)m[12] * m[2] * m[5];
    inv[3] = -(double)m[1] * m[6] * m[11] + (double)m[1] * m[7] * m[10] + (double)m[5] * m[2] * m[11] -
             (double)m[5] * m[3] * m[10] - (double)m[9] * m[2] * m[7] + (double)m[9] * m[3] * m[6];
    inv[7] = (double)m[0] * m[6] * m[11] - (double)m[0] * m[7] * m[10] - (double)m[4] * m[2] * m[11] +
             (double)m[4] * m[3] * m[10] + (double)m[8] * m[2] * m[7] - (double)m[8] * m[3] * m[6];
    inv[11] = -(double)m[0] * m[5] * m[11] + (double)m[0] * m[7] * m[9] + (double)m[4] * m[1] * m[11] -
              (double)m[4] * m[3] * m[9] - (double)m[8] * m[1] * m[7] + (double)m[8] * m[3] * m[5];
    inv[15] = (double)m[0] * m[5] * m[10] - (double)m[0] * m[6] * m[9] - (double)m[4] * m[1] * m[10] +
              (double)m[4] * m[2] * m[9] + (double)m[8] * m[1] * m[6] - (double)m[8] * m[2] * m[5];
    double det = m[0] * inv[0] + m[1] * inv[4] + m[2] * inv[8] + m[3] * inv[12];
    if (det == 0.0 || !isfinite(det)) {
        *out = sk_mat4_identity();
        return false;
    }
    double id = 1.0 / det;
    for (int i = 0; i < 16; i++) out->m[i] = (float)(inv[i] * id);
    return true;
}

bool sk_mat4_invert_affine(const sk_mat4 *mat, sk_mat4 *out) {
    const float *m = mat->m;
    double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], i = m[10];
    double A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
    double det = a * A + b * B + c * C;
    if (det == 0.0 || !isfinite(det)) {
        *out = sk_mat4_identity();
        return false;
    }
    double id = 1.0 / det;
    double r[9] = {A * id, -(b * i - c * h) * id, (b * f - c * e) * id,
                   B * id, (a * i - c * g) * id, -(a * f - c * d) * id,
                   C * id, -(a * h - b * g) * id, (a * e - b * d) * id};
    /* r is row-major inverse of the 3x3; write column-major. */
    sk_mat4 o;
    o.m[0] = (float)r[0]; o.m[4] = (float)r[1]; o.m[8] = (float)r[2];
    o.m[1] = (float)r[3]; o.m[5] = (float)r[4]; o.m[9] = (float)r[5];
    o.m[2] = (float)r[6]; o.m[6] = (float)r[7]; o.m[10] = (float)r[8];
    o.m[3] = o.m[7] = o.m[11] = 0.0f;
    double tx = m[12], ty = m[13], tz = m[14];
    o.m[12] = (float)-(r[0] * tx + r[1] * ty + r[2] * tz);
    o.m[13] = (float)-(r[3] * tx + r[4] * ty + r[5] * tz);
    o.m[14] = (float)-(r[6] * tx + r[7] * ty + r[8] * tz);
    o.m[15] = 1.0f;
    *out = o;
    return true;
}

bool sk_mat4_decompose(const sk_mat4 *mat, sk_transform *out) {
    const float *m = mat->m;
    out->t = sk_vec3_make(m[12], m[13], m[14]);
    double c0[3] = {m[0], m[1], m[2]}, c1[3] = {m[4], m[5], m[6]}, c2[3] = {m[8], m[9], m[10]};
    double sx = sqrt(c0[0] * c0[0] + c0[1] * c0[1] + c0[2] * c0[2]);
    double sy = sqrt(c1[0] * c1[0] + c1[1] * c1[1] + c1[2] * c1[2]);
    double sz = sqrt(c2[0] * c2[0] + c2[1] * c2[1] + c2[2] * c2[2]);
    double det = c0[0] * (c1[1] * c2[2] - c1[2] * c2[1]) - c1[0] * (c0[1] * c2[2] - c0[2] * c2[1]) +
                 c2[0] * (c0[1] * c1[2] - c0[2] * c1[1]);
    if (det < 0) sx = -sx;
    bool ok = m[3] == 0.0f && m[7] == 0.0f && m[11] == 0.0f && m[15] == 1.0f;
    out->s = sk_vec3_make((float)sx, (float)sy, (float)sz);
    if (sx == 0.0 || sy == 0.0 || sz == 0.0 || !isfinite(det)) {
        out->r = sk_quat_identity();
        return false;
    }
    double r[3][3]; /* r[col][row] */
    for (int k = 0; k < 3; k++) {
        r[0][k] = c0[k] / sx;
        r[1][k] = c1[k] / sy;
        r[2][k] = c2[k] / sz;
    }
    out->r = skm_quat_from_rotation(r);
    return ok;
}

sk_vec3 sk_mat4_transform_point(const sk_mat4 *a, sk_vec3 p) { return skm_mat4_transform_point(a, p); }

sk_vec3 sk_mat4_transform_dir(const sk_mat4 *a, sk_vec3 p) {
    const float *m = a->m;
    return sk_vec3_make(m[0] * p.x + m[4] * p.y + m[8] * p.z, m[1] * p.x + m[5] * p.y + m[9] * p.z,
                        m[2] * p.x + m[6] * p.y + m[10] * p.z);
}

sk_transform sk_transform_identity(void) {
    sk_transform x = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    return x;
}

sk_transform sk_transform_mul(const sk_transform *p, const sk_transform *c) {
    sk_transform r;
    r.s = sk_vec3_mul(p->s, c->s);
    r.r = sk_quat_normalize(sk_quat_mul(p->r, c->r));
    r.t = sk_vec3_add(p->t, sk_quat_rotate(p->r, sk_vec3_mul(p->s, c->t)));
    return r;
}
