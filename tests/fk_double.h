/* Tests: forward kinematics in double precision, written apart from the
 * library (its float math is what the tests check): each joint's affine
 * transform (rotation normalised in double, scale, translation) as three
 * scaled axes and a translation, composed down the hierarchy. */
#ifndef SK_TEST_FK_DOUBLE_H
#define SK_TEST_FK_DOUBLE_H

#include "skelanim.h"

#include <math.h>

typedef struct xf { double m[12]; } xf; /* columns: x, y, z axes (scaled), translation */

static inline void to_xf(const sk_transform *x, xf *o) {
    double q[4] = {x->r.x, x->r.y, x->r.z, x->r.w}, n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++) q[i] /= n;
    double s[3] = {x->s.x, x->s.y, x->s.z};
    /* column c = rotate(unit c) * s[c] */
    for (int c = 0; c < 3; c++) {
        double v[3] = {c == 0, c == 1, c == 2};
        /* v' = v + 2w (q x v) + 2 q x (q x v) */
        double cx = q[1] * v[2] - q[2] * v[1], cy = q[2] * v[0] - q[0] * v[2], cz = q[0] * v[1] - q[1] * v[0];
        double ddx = q[1] * cz - q[2] * cy, ddy = q[2] * cx - q[0] * cz, ddz = q[0] * cy - q[1] * cx;
        o->m[c * 3] = (v[0] + 2 * (q[3] * cx + ddx)) * s[c];
        o->m[c * 3 + 1] = (v[1] + 2 * (q[3] * cy + ddy)) * s[c];
        o->m[c * 3 + 2] = (v[2] + 2 * (q[3] * cz + ddz)) * s[c];
    }
    o->m[9] = x->t.x, o->m[10] = x->t.y, o->m[11] = x->t.z;
}

static inline void fk(const sk_skeleton *s, const sk_transform *local, xf *model) {
    for (uint32_t j = 0; j < s->joint_count; j++) {
        xf l;
        to_xf(&local[j], &l);
        int32_t p = s->parents[j];
        if (p < 0) { model[j] = l; continue; }
        const xf *a = &model[p];
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 3; r++)
                model[j].m[c * 3 + r] = a->m[r] * l.m[c * 3] + a->m[3 + r] * l.m[c * 3 + 1] + a->m[6 + r] * l.m[c * 3 + 2] +
                                        (c == 3 ? a->m[9 + r] : 0.0);
    }
}

#endif
