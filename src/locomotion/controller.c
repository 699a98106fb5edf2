/* Path-following character controller (locomotion/controller.h). */
#include "core/internal.h"
#include "core/math_inline.h"
#include "skelanim/locomotion/controller.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

sk_result sk_path_follower_init(sk_path_follower *pf, const sk_path_follower_desc *d, sk_error *err) {
    if (!pf || !d || !d->points) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "path: NULL argument");
    if (d->count < 2 || d->count > SK_PATH_MAX_POINTS)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "path: %u points (2 to %u)", d->count, SK_PATH_MAX_POINTS);
    const float opts[] = {d->speed, d->max_turn_rate, d->acceleration, d->lookahead};
    for (size_t i = 0; i < SK_ARRAY_COUNT(opts); i++)
        if (!isfinite(opts[i]) || opts[i] < 0)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "path: speed, turn rate, acceleration and lookahead "
                                                              "must be finite and >= 0");
    if (d->speed > 20) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "path: speed %g m/s (at most 20)",
                                           (double)d->speed);
    memset(pf, 0, sizeof *pf);
    pf->count = d->count;
    float total = 0;
    for (uint32_t i = 0; i < d->count; i++) {
        float x = d->points[2 * i], z = d->points[2 * i + 1];
        if (!isfinite(x) || !isfinite(z) || fabsf(x) > 1e6f || fabsf(z) > 1e6f)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "path: point %u is not finite or beyond 1e6 m", i);
        pf->points[2 * i] = x;
        pf->points[2 * i + 1] = z;
        if (i > 0) total += hypotf(x - pf->points[2 * i - 2], z - pf->points[2 * i - 1]);
        pf->cumulative[i] = total;
    }
    if (!(total > 0.0f)) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "path: all points are the same");
    if (!(total >= 1e-4f))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "path: %.3g mm long; the shortest path is 0.1 mm",
                            1e3 * (double)total);
    pf->speed_target = d->speed > 0 ? d->speed : 1.4f;
    pf->max_turn_rate = d->max_turn_rate > 0 ? d->max_turn_rate : 0.5f * SKM_PI;
    pf->acceleration = d->acceleration > 0 ? d->acceleration : 2.0f;
    pf->lookahead = d->lookahead > 0 ? d->lookahead : 0.6f;
    pf->x = pf->points[0];
    pf->z = pf->points[1];
    uint32_t k = 1;
    while (k + 1 < pf->count && pf->cumulative[k] < 1e-4f) k++;
    pf->yaw = isnan(d->start_yaw) ? atan2f(pf->points[2 * k] - pf->x, pf->points[2 * k + 1] - pf->z)
                                  : skm_wrap_angle(isfinite(d->start_yaw) ? d->start_yaw : 0);
    pf->speed = d->start_moving ? pf->speed_target : 0;
    return SK_OK;
}

float sk_path_follower_length(const sk_path_follower *pf) { return pf && pf->count ? pf->cumulative[pf->count - 1] : 0; }

/* The point at arc length s. */
static void at(const sk_path_follower *pf, float s, float *x, float *z) {
    uint32_t n = pf->count;
    if (s <= 0) { *x = pf->points[0]; *z = pf->points[1]; return; }
    for (uint32_t i = 1; i < n; i++) {
        if (s <= pf->cumulative[i] || i == n - 1) {
            float seg = pf->cumulative[i] - pf->cumulative[i - 1];
            float u = seg > 0 ? skm_clampf((s - pf->cumulative[i - 1]) / seg, 0, 1) : 1;
            *x = pf->points[2 * i - 2] + u * (pf->points[2 * i] - pf->points[2 * i - 2]);
            *z = pf->points[2 * i - 1] + u * (pf->points[2 * i + 1] - pf->points[2 * i - 1]);
            return;
        }
    }
}

/* Closest point's arc length, searched from the current progress on over
 * the next 2 m of path plus the segment it is on. */
static float closest(const sk_path_follower *pf) {
    float best = INFINITY, bs = pf->progress;
    for (uint32_t i = 1; i < pf->count; i++) {
        if (pf->cumulative[i] < pf->progress) continue;
        if (pf->cumulative[i - 1] > pf->progress + 2.0f) break;
        float ax = pf->points[2 * i - 2], az = pf->points[2 * i - 1];
        float dx = pf->points[2 * i] - ax, dz = pf->points[2 * i + 1] - az;
        float len2 = dx * dx + dz * dz;
        float u = len2 > 0 ? ((pf->x - ax) * dx + (pf->z - az) * dz) / len2 : 0;
        u = skm_clampf(u, 0, 1);
        float s = pf->cumulative[i - 1] + u * (pf->cumulative[i] - pf->cumulative[i - 1]);
        if (s < pf->progress) s = pf->progress;
        float px, pz;
        at(pf, s, &px, &pz);
        float d = hypotf(px - pf->x, pz - pf->z);
        if (d < best) { best = d; bs = s; }
    }
    return bs;
}

void sk_path_follower_step(sk_path_follower *pf, double dt) {
    if (!pf || !(dt > 0) || !isfinite(dt) || pf->count < 2 || pf->finished) return;
    float fdt = (float)fmin(dt, 1.0);
    float total = pf->cumulative[pf->count - 1];
    pf->progress = closest(pf);
    float tx, tz;
    at(pf, fminf(pf->progress + pf->lookahead, total), &tx, &tz);
    float ex = pf->points[2 * pf->count - 2], ez = pf->points[2 * pf->count - 1];
    float to_end = hypotf(ex - pf->x, ez - pf->z);
    /* What is left is measured along the path: a path that comes back to an
     * earlier point of itself (a U-turn, a loop, a closed square) is not over
     * when the character stands near its last point early on. The end is
     * near only when the path left is about the straight way there. */
    float remaining = total - pf->progress;
    bool last_stretch = remaining <= to_end + 0.05f + 0.1f * pf->lookahead;
    float left = remaining > to_end ? remaining : to_end;
    if (last_stretch && to_end < pf->lookahead) { tx = ex; tz = ez; }
    float err = 0;
    if (hypotf(tx - pf->x, tz - pf->z) > 1e-3f) {
        float want = atan2f(tx - pf->x, tz - pf->z);
        err = skm_wrap_angle(want - pf->yaw);
        float lim = pf->max_turn_rate * fdt;
        pf->yaw = skm_wrap_angle(pf->yaw + skm_clampf(err, -lim, lim));
    }
    /* Speed: cruise, less in sharp turns, braking to stop at the end. */
    float v_want = pf->speed_target * (1.0f - fminf(fabsf(err) / (0.5f * SKM_PI), 1.0f) * 0.7f);
    float v_brake = sqrtf(2.0f * pf->acceleration * fmaxf(left - 0.01f, 0.0f));
    if (v_want > v_brake) v_want = v_brake;
    float dv = pf->acceleration * fdt;
    pf->speed += skm_clampf(v_want - pf->speed, -dv, dv);
    float step = pf->speed * fdt;
    if (last_stretch && (to_end < 0.02f || step >= to_end)) { /* arrived */
        pf->x = ex;
        pf->z = ez;
        pf->speed = 0;
        pf->finished = true;
        pf->progress = total;
        return;
    }
    pf->x += step * sinf(pf->yaw);
    pf->z += step * cosf(pf->yaw);
}

uint32_t sk_path_parse(const char *text, float *xz, uint32_t cap, sk_error *err) {
    if (!text || !xz) {
        sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "path: NULL");
        return 0;
    }
    uint32_t n = 0;
    const char *p = text;
    for (;;) {
        while (*p == ' ' || *p == ';' || *p == '\t') p++;
        if (!*p) break;
        if (n >= cap) {
            sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "path: more than %u points", cap);
            return 0;
        }
        char *e1, *e2;
        double x = strtod(p, &e1);
        if (e1 == p || *e1 != ',') {
            sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "path: point %u: expected X,Z at \"%.20s\"", n + 1, p);
            return 0;
        }
        double z = strtod(e1 + 1, &e2);
        if (e2 == e1 + 1 || (*e2 && *e2 != ' ' && *e2 != ';' && *e2 != '\t') || !isfinite(x) || !isfinite(z) ||
            fabs(x) > 1e6 || fabs(z) > 1e6) {
            sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "path: point %u: expected X,Z (finite, metres) at \"%.20s\"",
                         n + 1, p);
            return 0;
        }
        xz[2 * n] = (float)x;
        xz[2 * n + 1] = (float)z;
        n++;
        p = e2;
    }
    if (n < 2) sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "path: %u point(s); at least 2 are needed", n);
    return n >= 2 ? n : 0;
}
