/* Aim / look-at.
 *
 * The tip joint's aim axis is turned onto the direction to the target, then
 * twisted about it so its up axis comes as close as it can to target.up. The
 * total turn from the FK orientation is capped at max_angle (the weight
 * limit). With several joints (a spine and neck, say) joint k takes 1/(n-k)
 * of what is still missing, so the turn is shared along the chain. */
#include "ik/solvers.h"

/* The joint-local aim and up axes of the options (defaults +Z, +Y). */
static sk_vec3 aim_axis(const sk_ik_options *o) {
    return skm_vec3_is_zero(o->aim_axis) ? sk_vec3_make(0, 0, 1) : skm_vec3_unit(o->aim_axis);
}
static sk_vec3 up_axis(const sk_ik_options *o) {
    return skm_vec3_is_zero(o->up_axis) ? sk_vec3_make(0, 1, 0) : skm_vec3_unit(o->up_axis);
}

void ik_solve_aim(ik_state *s, const sk_ik_target *tg, sk_ik_result *res) {
    const sk_ik_options *o = s->opt;
    uint32_t n = s->n;
    sk_vec3 ax = aim_axis(o), up = up_axis(o);
    sk_quat Rfk = s->R[n - 1];
    for (uint32_t k = 0; k < n; k++) {
        sk_vec3 ptip = s->p[n - 1];
        sk_quat Rt = s->R[n - 1];
        sk_vec3 to = sk_vec3_sub(s->target, ptip);
        if (skm_vec3_len(to) <= 1e-12f) break; /* target on the joint: nothing to aim at */
        sk_quat Rg = skm_quat_mul(ik_from_to(s, skm_quat_rotate(Rt, ax), to), Rt);
        if (!skm_vec3_is_zero(tg->up) && !s->planar)
            Rg = skm_quat_mul(skm_quat_twist_onto(skm_vec3_unit(to), skm_quat_rotate(Rg, up), tg->up), Rg);
        if (o->max_angle > 0) {
            sk_quat D = skm_quat_mul(Rg, sk_quat_conjugate(Rfk));
            float ang = skm_quat_angle(D);
            if (ang > o->max_angle) Rg = skm_quat_mul(skm_quat_scale_angle(D, o->max_angle / ang), Rfk);
        }
        sk_quat Dk = skm_quat_mul(Rg, sk_quat_conjugate(Rt));
        sk_quat Qk = k + 1 == n ? Dk : skm_quat_scale_angle(Dk, 1.0f / (float)(n - k));
        sk_quat rp = ik_parent_rot(s, k);
        s->lq[k] = skm_quat_unit(skm_quat_mul(sk_quat_conjugate(rp), skm_quat_mul(Qk, s->R[k])));
        ik_apply_limit(s, k);
        ik_fk(s, k);
    }
    res->stop = SK_IK_STOP_ANALYTIC;
    res->iterations = 1;
}

/* The aim error after the write back: the angle between the aim axis and the
 * direction to the target, and the distance of the target from the aim
 * line (the whole distance when it lies behind). */
void ik_aim_result(const ik_state *s, sk_ik_result *res) {
    uint32_t n = s->n;
    sk_vec3 dir = skm_quat_rotate(s->R[n - 1], aim_axis(s->opt)), to = sk_vec3_sub(s->target, s->p[n - 1]);
    float tl = skm_vec3_len(to);
    /* no acos: precise near 0 */
    float ang = tl > 0 ? atan2f(skm_vec3_len(sk_vec3_cross(dir, to)), sk_vec3_dot(dir, to)) : 0.0f;
    res->orientation_error = ang;
    res->error = tl * sinf(fminf(ang, 0.5f * SKM_PI)) + (ang > 0.5f * SKM_PI ? tl : 0.0f);
    res->residual = res->error;
    res->reachable = true;
}
