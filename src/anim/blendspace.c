/* Gradient band interpolation for blend spaces (blendspace.h).
 *
 * Gradient band interpolation: seed 002 §4.2, formulas (23)-(26) and the
 * pseudo-code "Kod 2" (after Johansen 2009). Kod 2 as printed has three
 * typos, corrected here the way formulas (24)-(26) define it:
 *   - "if (angleJI == 0)" must be "if (angleJI > 0)": the projection and the
 *     signed angle are only needed when the two samples point in different
 *     directions; samples on one ray compare radii only;
 *   - the sign flip applies to the output angle angleOI (the angle between
 *     p_i and p'), not to angleJI, which is the unsigned angle p_i..p_j;
 *   - the division is by |vIJ|^2 (formula 24), not |vIJ|; and the mean radius
 *     is (|p_i| + |p_j|) / 2 of the lengths (formula 25), not of the vectors.
 * Influences start at 1 and take the minimum over j (Kod 2: weight = 1.0f;
 * weight = Min(newWeight, weight)); a negative value marks a point outside
 * the band of sample i (weight 0); the weights are then normalised (23). */
#include "core/internal.h"
#include "skelanim/anim/blendspace.h"

#include <math.h>

static double angle2(double ax, double ay, double bx, double by) { /* unsigned angle in [0, pi] */
    return atan2(fabs(ax * by - ay * bx), ax * bx + ay * by);
}

/* Influence of sample i relative to sample j at query q (formulas 24-26). */
static double influence_pair(const float *pi, const float *pj, const double *q, uint32_t dim, sk_blendspace_mode mode) {
    if (mode == SK_BLENDSPACE_CARTESIAN || dim == 1) {
        double ij2 = 0.0, dot = 0.0;
        for (uint32_t k = 0; k < dim; k++) {
            double vij = (double)pj[k] - pi[k], vip = q[k] - pi[k];
            ij2 += vij * vij;
            dot += vip * vij;
        }
        return 1.0 - dot / ij2; /* (24) */
    }
    /* Polar form (25), (26), Kod 2. */
    double ix = pi[0], iy = pi[1], jx = pj[0], jy = pj[1], ox = q[0], oy = q[1];
    double li = hypot(ix, iy), lj = hypot(jx, jy), lo = hypot(ox, oy);
    double a_ij, a_io, mul = 2.0; /* alpha: weight of direction against speed */
    if (li == 0.0) {
        a_ij = lo > 0.0 ? angle2(ox, oy, jx, jy) : 0.0;
        a_io = 0.0;
        mul = 1.0;
    } else if (lj == 0.0) {
        a_ij = lo > 0.0 ? angle2(ox, oy, ix, iy) : 0.0;
        a_io = a_ij;
        mul = 1.0;
    } else {
        a_ij = angle2(ix, iy, jx, jy);
        if (a_ij > 0.0) {
            if (lo == 0.0) {
                a_io = a_ij;
            } else {
                /* In 2D the projection of p onto the plane with normal p_i x p_j is p itself. */
                a_io = angle2(ix, iy, ox, oy);
                if (a_ij < 3.14159265358979323846 * 0.99) {
                    double axis = ix * jy - iy * jx, c = ix * oy - iy * ox;
                    if (c * axis < 0.0) a_io = -a_io;
                }
            }
        } else {
            a_io = 0.0;
        }
    }
    double avg = 0.5 * (li + lj);
    double mi = li / avg, mj = lj / avg, mo = lo / avg;
    double vij0 = a_ij * mul, vij1 = mj - mi;
    double vio0 = a_io * mul, vio1 = mo - mi;
    double l2 = vij0 * vij0 + vij1 * vij1;
    if (!(l2 > 0.0)) return 1.0;
    return 1.0 - (vij0 * vio0 + vij1 * vio1) / l2;
}

sk_result sk_blendspace_weights(const float *points, uint32_t n, uint32_t dim, const float *query,
                                sk_blendspace_mode mode, float *out, sk_error *err) {
    if (!points || !query || !out || n == 0)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_blendspace_weights: NULL argument or no samples");
    if (dim < 1 || dim > 2) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "blend space: dimension %u (1 or 2)", dim);
    if (mode == SK_BLENDSPACE_POLAR && dim != 2)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "blend space: polar mode needs 2 parameters");
    double q[2] = {0, 0};
    for (uint32_t k = 0; k < dim; k++) {
        if (!sk_isfinite_f(query[k])) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "blend space: parameter %u is not finite", k);
        q[k] = query[k];
    }
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t k = 0; k < dim; k++)
            if (!sk_isfinite_f(points[i * dim + k]))
                return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "blend space: sample %u is not finite", i);
        for (uint32_t j = 0; j < i; j++) {
            bool same = true;
            for (uint32_t k = 0; k < dim; k++) same = same && points[i * dim + k] == points[j * dim + k];
            if (same) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "blend space: samples %u and %u are at the same point", j, i);
        }
    }
    /* exactness (Kod 2: Find(samples, output)) */
    for (uint32_t i = 0; i < n; i++) {
        bool same = true;
        for (uint32_t k = 0; k < dim; k++) same = same && (double)points[i * dim + k] == q[k];
        if (same) {
            for (uint32_t j = 0; j < n; j++) out[j] = j == i ? 1.0f : 0.0f;
            return SK_OK;
        }
    }
    double total = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        double h = 1.0;
        for (uint32_t j = 0; j < n && h > 0.0; j++) {
            if (j == i) continue;
            double v = influence_pair(points + i * dim, points + j * dim, q, dim, mode);
            if (v < h) h = v;
        }
        if (!(h > 0.0)) h = 0.0; /* outside the band of sample i */
        out[i] = (float)h;
        total += h;
    }
    if (total > 0.0) {
        for (uint32_t i = 0; i < n; i++) out[i] = (float)(out[i] / total);
    } else { /* cannot happen for distinct samples; fall back to the nearest */
        uint32_t best = 0;
        double bd = INFINITY;
        for (uint32_t i = 0; i < n; i++) {
            double d = 0.0;
            for (uint32_t k = 0; k < dim; k++) d += (points[i * dim + k] - q[k]) * (points[i * dim + k] - q[k]);
            if (d < bd) { bd = d; best = i; }
        }
        for (uint32_t i = 0; i < n; i++) out[i] = i == best ? 1.0f : 0.0f;
    }
    return SK_OK;
}
