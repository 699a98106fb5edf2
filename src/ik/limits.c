/* Joint limits for the IK solvers (seed 002 §7.4 joint types; §7.3: a value
 * outside its limits is moved to the nearer bound at the end of every
 * iteration). Hinge = one rotational DOF; swing-twist = a ball joint whose
 * twist about the bone and swing of the bone are bounded separately; Euler =
 * the 3-DOF rotational joint of §7.4 as Rz*Ry*Rx with a range per angle. */
#include "ik/chain.h"

static sk_vec3 limit_axis(const sk_ik_limit *l, sk_vec3 def) {
    sk_vec3 a = skm_vec3_unit(l->axis);
    if (skm_vec3_is_zero(a)) a = skm_vec3_unit(def);
    if (skm_vec3_is_zero(a)) a = l->type == SK_IK_LIMIT_HINGE ? sk_vec3_make(1, 0, 0) : sk_vec3_make(0, 1, 0);
    return a;
}

/* Splits q (w >= 0) into swing * twist with twist about unit axis a.
 * Returns the twist angle in [-pi, pi]. */
static float swing_twist(sk_quat q, sk_vec3 a, sk_quat *swing, sk_quat *twist) {
    if (q.w < 0) q = skm_quat_neg(q);
    float d = q.x * a.x + q.y * a.y + q.z * a.z;
    sk_quat tw = sk_quat_make(a.x * d, a.y * d, a.z * d, q.w);
    float l2 = sk_quat_dot(tw, tw);
    if (l2 < 1e-20f) tw = sk_quat_identity(); /* a half-turn swing: twist undefined, take none */
    else tw = skm_quat_unit(tw);
    *twist = tw;
    *swing = skm_quat_unit(skm_quat_mul(q, sk_quat_conjugate(tw)));
    return skm_wrap_angle(2.0f * atan2f(tw.x * a.x + tw.y * a.y + tw.z * a.z, tw.w));
}

static void euler_xyz(sk_quat q, float *ex, float *ey, float *ez) {
    /* rel = Rz(z) Ry(y) Rx(x): M20 = -sin y, M21 = sin x cos y, M22 = cos x cos y,
     * M10 = cos y sin z, M00 = cos y cos z. */
    float x = q.x, y = q.y, z = q.z, w = q.w;
    float m00 = 1 - 2 * (y * y + z * z), m10 = 2 * (x * y + w * z), m20 = 2 * (x * z - w * y);
    float m21 = 2 * (y * z + w * x), m22 = 1 - 2 * (x * x + y * y);
    float m12 = 2 * (y * z - w * x), m11 = 1 - 2 * (x * x + z * z);
    float sy = skm_clampf(-m20, -1.0f, 1.0f);
    *ey = asinf(sy);
    if (fabsf(sy) < 0.99999f) {
        *ex = atan2f(m21, m22);
        *ez = atan2f(m10, m00);
    } else { /* gimbal lock: put everything into x */
        *ex = atan2f(-m12, m11);
        *ez = 0.0f;
    }
}

static sk_quat euler_compose(float ex, float ey, float ez) {
    return skm_quat_unit(skm_quat_mul(skm_quat_rot_z(ez), skm_quat_mul(skm_quat_rot_y(ey), skm_quat_rot_x(ex))));
}

sk_quat sk_ik_limit_clamp(const sk_ik_limit *l, sk_vec3 def, sk_quat rel) {
    if (!l) return rel;
    rel = skm_quat_unit(rel);
    switch (l->type) {
    case SK_IK_LIMIT_HINGE: {
        sk_vec3 a = limit_axis(l, def);
        sk_quat sw, tw;
        float ang = swing_twist(rel, a, &sw, &tw);
        return skm_quat_axis_angle(a, skm_clampf(ang, l->min, l->max));
    }
    case SK_IK_LIMIT_SWING_TWIST: {
        sk_vec3 a = limit_axis(l, def);
        sk_quat sw, tw;
        float ang = swing_twist(rel, a, &sw, &tw);
        float c = skm_clampf(ang, l->min, l->max);
        if (c != ang) tw = skm_quat_axis_angle(a, c);
        float sa = skm_quat_angle(sw);
        float cone = l->cone > 0 ? l->cone : 0.0f;
        if (sa > cone) sw = sa > 0 ? skm_quat_scale_angle(sw, cone / sa) : sk_quat_identity();
        return skm_quat_unit(skm_quat_mul(sw, tw));
    }
    case SK_IK_LIMIT_EULER: {
        float ex, ey, ez;
        euler_xyz(rel, &ex, &ey, &ez);
        float cx = skm_clampf(ex, l->euler_min.x, l->euler_max.x), cy = skm_clampf(ey, l->euler_min.y, l->euler_max.y),
              cz = skm_clampf(ez, l->euler_min.z, l->euler_max.z);
        if (cx == ex && cy == ey && cz == ez) return rel;
        return euler_compose(cx, cy, cz);
    }
    default:
        return rel;
    }
}

bool sk_ik_limit_check(const sk_ik_limit *l, sk_vec3 def, sk_quat rel, float eps) {
    if (!l) return true;
    rel = skm_quat_unit(rel);
    switch (l->type) {
    case SK_IK_LIMIT_HINGE: {
        sk_vec3 a = limit_axis(l, def);
        sk_quat sw, tw;
        float ang = swing_twist(rel, a, &sw, &tw);
        return skm_quat_angle(sw) <= eps && ang >= l->min - eps && ang <= l->max + eps;
    }
    case SK_IK_LIMIT_SWING_TWIST: {
        sk_vec3 a = limit_axis(l, def);
        sk_quat sw, tw;
        float ang = swing_twist(rel, a, &sw, &tw);
        return skm_quat_angle(sw) <= (l->cone > 0 ? l->cone : 0.0f) + eps && ang >= l->min - eps && ang <= l->max + eps;
    }
    case SK_IK_LIMIT_EULER: {
        float ex, ey, ez;
        euler_xyz(rel, &ex, &ey, &ez);
        if (ex >= l->euler_min.x - eps && ex <= l->euler_max.x + eps && ey >= l->euler_min.y - eps &&
            ey <= l->euler_max.y + eps && ez >= l->euler_min.z - eps && ez <= l->euler_max.z + eps)
            return true;
        /* The decomposition is not unique at the gimbal lock: accept if the
         * clamped rotation is the same rotation. */
        sk_quat c = sk_ik_limit_clamp(l, def, rel);
        return fabsf(sk_quat_dot(c, rel)) >= cosf(0.5f * eps);
    }
    default:
        return true;
    }
}

bool ik_apply_limit(ik_state *s, uint32_t i) {
    if (!ik_has_limit(s, i)) return false;
    sk_quat rel = skm_quat_mul(sk_quat_conjugate(s->ref[i]), s->lq[i]);
    sk_quat c = sk_ik_limit_clamp(&s->limits[i], s->twist_axis[i], rel);
    s->lq[i] = skm_quat_unit(skm_quat_mul(s->ref[i], c));
    return true;
}
