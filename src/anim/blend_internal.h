/* Private: what sk_blend_poses (blend.c) and its structure-of-arrays form
 * (soa_layers.c) share, so both compute the same bits: an input's weight
 * for one joint and channel, three.js's slerp in double, and the
 * sequential-slerp rotation blend of one joint. */
#ifndef SKELANIM_ANIM_BLEND_INTERNAL_H
#define SKELANIM_ANIM_BLEND_INTERNAL_H

#include "skelanim/anim/blend.h"

#include <math.h>

/* weight * mask[j] where the input animates channel bit of joint j, else 0
 * (weight and mask values <= 0 or NaN count as 0; a mask above 1 as 1). */
static inline float ska_eff_weight(float w, const float *mask, const uint8_t *channels, uint32_t j, uint8_t bit) {
    if (!(w > 0.0f)) return 0.0f;
    if (channels && !(channels[j] & bit)) return 0.0f;
    if (mask) {
        float m = mask[j];
        if (!(m > 0.0f)) return 0.0f;
        if (m < 1.0f) w *= m;
    }
    return w;
}

/* three.js Quaternion.slerpFlat (double): no renormalisation on the slerp
 * branch, lerp + normalise when nearly parallel, returns a when a == b. */
static inline void ska_slerp_flat(double *a, const double *b_in, double t) {
    if (a[0] == b_in[0] && a[1] == b_in[1] && a[2] == b_in[2] && a[3] == b_in[3]) return;
    double b[4] = {b_in[0], b_in[1], b_in[2], b_in[3]};
    double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (dot < 0.0) {
        for (int k = 0; k < 4; k++) b[k] = -b[k];
        dot = -dot;
    }
    double s = 1.0 - t;
    if (dot < 0.9995) {
        double th = acos(dot), sn = sin(th);
        s = sin(s * th) / sn;
        t = sin(t * th) / sn;
        for (int k = 0; k < 4; k++) a[k] = a[k] * s + b[k] * t;
    } else { /* small angle: lerp then normalise */
        for (int k = 0; k < 4; k++) a[k] = a[k] * s + b[k] * t;
        double l = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3]);
        if (l > 0.0)
            for (int k = 0; k < 4; k++) a[k] /= l;
    }
}

static inline sk_quat ska_quat_from_d(const double *q) {
    double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(l > 0.0)) return sk_quat_identity();
    return sk_quat_make((float)(q[0] / l), (float)(q[1] / l), (float)(q[2] / l), (float)(q[3] / l));
}

/* SK_BLEND_SLERP for one joint, input by input: ska_slerp_add for each
 * contributing input (w != 0) in input order, then ska_slerp_finish. */
typedef struct ska_slerp_acc {
    double q[4], W;
} ska_slerp_acc;

static inline void ska_slerp_add(ska_slerp_acc *a, sk_quat q, float w) {
    double qd[4] = {q.x, q.y, q.z, q.w};
    if (a->W == 0.0) {
        for (int k = 0; k < 4; k++) a->q[k] = qd[k];
        a->W = w;
    } else {
        a->W += w;
        ska_slerp_flat(a->q, qd, (double)w / a->W);
    }
}

static inline sk_quat ska_slerp_finish(ska_slerp_acc *a, sk_quat rest, bool fill) {
    if (a->W == 0.0) return rest;
    if (fill && a->W < 1.0) {
        double rq[4] = {rest.x, rest.y, rest.z, rest.w};
        ska_slerp_flat(a->q, rq, 1.0 - a->W);
    }
    return ska_quat_from_d(a->q);
}

#endif
