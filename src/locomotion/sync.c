/* Synchronisation of locomotion cycles and velocity-parameterised blending
 * of their analyses (locomotion/sync.h; seed 002 §4.1-4.3, §5.1 Kod 3 and
 * Kod 4, after Johansen 2009).
 *
 * Kod 1 ("SyncMotions") as printed has these typos and gaps, corrected here:
 *   - "motionB = motions[i]" must be motions[j] (otherwise every motion is
 *     compared with itself);
 *   - the loops "for (i = 1 to nMotions)", "for (j = 0 to nMotions)" visit
 *     pairs twice, i == j and one past the end; each unordered pair i < j is
 *     visited once (the normaliser 0.5 (N^2 - N) in changeRatio counts
 *     exactly those pairs);
 *   - "fChangeA/fChangeB" are changeA/changeB, and "iMotion/jMotion" are i/j;
 *     the wrap of a change into (-0.5, 0.5] must also cover the negative side
 *     (a change is a signed arc, -0.3 and 0.7 are the same arc);
 *   - the points are made as (sin, cos)(2 pi t) but turned back into time
 *     with atan2(y, x), which gives 1/4 - t (the time circle mirrored);
 *     atan2(x, y) undoes the construction;
 *   - "N" in changeRatio is nMotions; the changes are summed over the legs
 *     as well, so the ratio is divided by nLegs too: with 5 / pairs alone two
 *     motions of two legs overshoot by a factor 2 and oscillate forever;
 *   - the offsets are applied, and the largest change tested, once per
 *     iteration, after all pairs and legs (the print applies them inside the
 *     leg loop, adding the running sum again for every pair, and its "break"
 *     leaves only the leg loop), and "return offsets" belongs after the
 *     while loop, not inside it;
 *   - the stopping rule is on the largest |change| (Max of signed changes
 *     stops at once when every change is negative), at 1e-7 cycles instead
 *     of 1e-4 (1e-4 per step with a gain of about 0.1 leaves errors of about
 *     1e-3), with at most 1000 iterations instead of 100.
 * With these the update is, for small differences, a consensus step
 *   o_i += 1/(N(N-1)) sum_{j != i} mean_legs(s_j + o_j - s_i - o_i)
 * (the 0.1 chord move changes an angle by about 0.1 of the arc, times
 * changeRatio 10/(N(N-1))), which converges for every N (two motions in one
 * step). Finally the offsets are expressed relative to motion 0 (o_0 = 0)
 * and wrapped into [0, 1).
 *
 * Kod 4 blends "keytimes as weighted sums" of the active motions; on the
 * time circle a linear sum of 0.95 and 0.05 gives 0.5, so keytimes here are
 * weighted circular means (the angle of sum w_i (cos, sin)(2 pi k_i)),
 * taken relative to the keytime of the heaviest motion so that weights
 * (1, 0, ...) return its keytime exactly. Kod 4 takes the keytimes over
 * the "active" motions only and the rest over all motions, idle included;
 * a group here holds only cyclic motions that move (an idle clip has no
 * stride to analyse), so both sums run over the whole group. Footbase at stance, foot
 * direction, foot length and cycle duration are weighted sums (Kod 4;
 * cycle duration as sk_players_advance_synced's D = sum w_i d_i). */
#include "core/internal.h"
#include "skelanim/anim/blendspace.h"
#include "skelanim/locomotion/sync.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define TWO_PI 6.28318530717958647692

struct sk_motion_group {
    sk_allocator alloc;
    size_t size;
    uint32_t n, leg_count;
    const sk_motion_analysis **motions;
    float *offsets;
    float *points; /* 2n: (x, z) velocity of each motion */
};

static double wrap01(double t) {
    double r = t - floor(t);
    return r >= 1.0 ? 0.0 : r;
}
static double wrap_half(double d) { /* signed arc in [-0.5, 0.5) */
    return d - floor(d + 0.5);
}

static sk_result check_motions(const sk_motion_analysis *const *motions, uint32_t n, sk_error *err) {
    if (!motions) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion sync: NULL motions");
    if (n == 0) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion sync: no motions (an empty group)");
    for (uint32_t i = 0; i < n; i++) {
        const sk_motion_analysis *m = motions[i];
        if (!m) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion sync: motion %u is NULL", i);
        if (m->leg_count == 0 || m->leg_count > SK_MOTION_GROUP_MAX_LEGS || !m->legs)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion sync: motion %u (\"%s\") has %u legs", i,
                                m->clip_name, m->leg_count);
        if (m->leg_count != motions[0]->leg_count)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                                "motion sync: motion %u (\"%s\") has %u legs, motion 0 (\"%s\") %u", i, m->clip_name,
                                m->leg_count, motions[0]->clip_name, motions[0]->leg_count);
        for (uint32_t l = 0; l < m->leg_count; l++) {
            if (m->legs[l].ankle_joint != motions[0]->legs[l].ankle_joint)
                return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                                    "motion sync: leg %u of motion %u (\"%s\") has ankle joint %d, motion 0 (\"%s\") %d",
                                    l, i, m->clip_name, m->legs[l].ankle_joint, motions[0]->clip_name,
                                    motions[0]->legs[l].ankle_joint);
            float s = m->legs[l].stance_time;
            if (!sk_isfinite_f(s))
                return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion sync: motion %u (\"%s\") leg %u: stance time not finite",
                                    i, m->clip_name, l);
        }
    }
    return SK_OK;
}

/* Kod 1, corrected (see the top). off and chg: n doubles each. */
static void sync_offsets(const sk_motion_analysis *const *motions, uint32_t n, double *off, double *chg) {
    uint32_t legs = motions[0]->leg_count;
    for (uint32_t i = 0; i < n; i++) off[i] = 0.0;
    if (n < 2) return;
    double change_ratio = 5.0 / (0.5 * ((double)n * n - n)) / legs;
    for (int iteration = 0; iteration < 1000; iteration++) {
        for (uint32_t i = 0; i < n; i++) chg[i] = 0.0;
        for (uint32_t i = 0; i < n; i++) {
            const sk_motion_analysis *a = motions[i];
            for (uint32_t j = i + 1; j < n; j++) {
                const sk_motion_analysis *b = motions[j]; /* Kod 1: motions[i], a typo */
                for (uint32_t l = 0; l < legs; l++) {
                    double ta = a->legs[l].stance_time + off[i];
                    double tb = b->legs[l].stance_time + off[j];
                    /* points on the time circle (Kod 1: (sin, cos) of 2 pi t) */
                    double ax = sin(ta * TWO_PI), ay = cos(ta * TWO_PI);
                    double bx = sin(tb * TWO_PI), by = cos(tb * TWO_PI);
                    /* move them towards each other along the chord */
                    double nax = ax + (bx - ax) * 0.1, nay = ay + (by - ay) * 0.1;
                    double nbx = bx - (bx - ax) * 0.1, nby = by - (by - ay) * 0.1;
                    /* back to time: the angle measured as t was made, atan2(x, y) */
                    double na = atan2(nax, nay) / TWO_PI, nb = atan2(nbx, nby) / TWO_PI;
                    chg[i] += wrap_half(na - ta) * change_ratio;
                    chg[j] += wrap_half(nb - tb) * change_ratio;
                }
            }
        }
        double max_change = 0.0;
        for (uint32_t i = 0; i < n; i++) {
            off[i] += chg[i];
            if (fabs(chg[i]) > max_change) max_change = fabs(chg[i]);
        }
        if (max_change < 1e-7) break;
    }
    double ref = off[0];
    for (uint32_t i = 0; i < n; i++) off[i] = wrap01(off[i] - ref);
}

sk_result sk_motion_sync_offsets(const sk_motion_analysis *const *motions, uint32_t n, const sk_allocator *alloc,
                                 float *out_offsets, sk_error *err) {
    if (!out_offsets) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion sync: NULL offsets");
    sk_result r = check_motions(motions, n, err);
    if (r != SK_OK) return r;
    size_t bytes;
    if (!sk_size_mul(n, 2 * sizeof(double), &bytes))
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "motion sync: %u motions: size overflow", n);
    double *scratch = sk_alloc(alloc, bytes);
    if (!scratch) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "motion sync: out of memory (%zu bytes)", bytes);
    sync_offsets(motions, n, scratch, scratch + n);
    for (uint32_t i = 0; i < n; i++) {
        float o = (float)scratch[i];
        out_offsets[i] = o >= 1.0f ? 0.0f : o; /* a double just below 1 may round to 1.0f */
    }
    sk_free(alloc, scratch, bytes);
    return SK_OK;
}

sk_result sk_motion_group_create(const sk_motion_analysis *const *motions, uint32_t n, const sk_allocator *alloc,
                                 sk_motion_group **out, sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion group: NULL output");
    *out = NULL;
    sk_result r = check_motions(motions, n, err);
    if (r != SK_OK) return r;
    if (n > SK_MOTION_GROUP_MAX_MOTIONS)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion group: %u motions (at most %d)", n,
                            SK_MOTION_GROUP_MAX_MOTIONS);
    for (uint32_t i = 0; i < n; i++) {
        const sk_motion_analysis *m = motions[i];
        if (!(m->cycle_duration > 0.0) || !isfinite(m->cycle_duration) || !sk_isfinite_f(m->cycle_speed) ||
            !sk_isfinite_f(m->cycle_direction.x) || !sk_isfinite_f(m->cycle_direction.z))
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                                "motion group: motion %u (\"%s\"): cycle duration, speed or direction not valid", i,
                                m->clip_name);
    }
    /* One block: the struct, motion pointers, offsets, points. */
    size_t size = sizeof(sk_motion_group), part;
    bool ok = sk_size_mul(n, sizeof(void *) + 3 * sizeof(float), &part) && sk_size_add(size, part, &size);
    if (!ok) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "motion group: %u motions: size overflow", n);
    const sk_allocator *al = sk_allocator_or_default(alloc);
    sk_motion_group *g = sk_alloc(al, size);
    if (!g) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "motion group: out of memory (%zu bytes)", size);
    g->alloc = *al;
    g->size = size;
    g->n = n;
    g->leg_count = motions[0]->leg_count;
    g->motions = (const sk_motion_analysis **)(void *)(g + 1);
    g->offsets = (float *)(void *)(g->motions + n);
    g->points = g->offsets + n;
    for (uint32_t i = 0; i < n; i++) {
        const sk_motion_analysis *m = motions[i];
        g->motions[i] = m;
        g->points[2 * i] = m->cycle_speed * m->cycle_direction.x;
        g->points[2 * i + 1] = m->cycle_speed * m->cycle_direction.z;
        for (uint32_t j = 0; j < i; j++)
            if (g->points[2 * j] == g->points[2 * i] && g->points[2 * j + 1] == g->points[2 * i + 1]) {
                sk_result e = sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                                           "motion group: motions %u (\"%s\") and %u (\"%s\") have the same velocity "
                                           "(%.4g, %.4g) m/s",
                                           j, motions[j]->clip_name, i, m->clip_name, (double)g->points[2 * i],
                                           (double)g->points[2 * i + 1]);
                sk_free(&g->alloc, g, size);
                return e;
            }
    }
    r = sk_motion_sync_offsets(motions, n, &g->alloc, g->offsets, err);
    if (r != SK_OK) {
        sk_free(&g->alloc, g, size);
        return r;
    }
    *out = g;
    return SK_OK;
}

void sk_motion_group_destroy(sk_motion_group *g) {
    if (!g) return;
    sk_allocator a = g->alloc;
    sk_free(&a, g, g->size);
}

uint32_t sk_motion_group_count(const sk_motion_group *g) { return g ? g->n : 0; }
uint32_t sk_motion_group_leg_count(const sk_motion_group *g) { return g ? g->leg_count : 0; }
const sk_motion_analysis *sk_motion_group_motion(const sk_motion_group *g, uint32_t i) {
    return g && i < g->n ? g->motions[i] : NULL;
}
float sk_motion_group_offset(const sk_motion_group *g, uint32_t i) { return g && i < g->n ? g->offsets[i] : 0.0f; }
sk_vec3 sk_motion_group_velocity(const sk_motion_group *g, uint32_t i) {
    if (!g || i >= g->n) return sk_vec3_make(0, 0, 0);
    return sk_vec3_make(g->points[2 * i], 0.0f, g->points[2 * i + 1]);
}

double sk_motion_group_clip_phase(const sk_motion_group *g, uint32_t i, double phase) {
    if (!g || i >= g->n || !isfinite(phase)) return 0.0;
    double t = wrap01(phase - g->offsets[i]);
    return g->motions[i]->backward ? wrap01(1.0 - t) : t;
}

/* w: normalised weights (double, n) */
static void blend(const sk_motion_group *g, const double *w, sk_motion_blend *out) {
    memset(out, 0, sizeof *out);
    out->leg_count = g->leg_count;
    uint32_t h = 0;
    for (uint32_t i = 1; i < g->n; i++)
        if (w[i] > w[h]) h = i;
    double dur = 0.0, vx = 0.0, vz = 0.0;
    for (uint32_t i = 0; i < g->n; i++) {
        dur += w[i] * g->motions[i]->cycle_duration;
        vx += w[i] * g->points[2 * i];
        vz += w[i] * g->points[2 * i + 1];
    }
    /* exact at a single motion (the sums above are already, w_h = 1 times x) */
    out->cycle_duration = w[h] == 1.0 ? g->motions[h]->cycle_duration : dur;
    out->velocity = sk_vec3_make((float)vx, 0.0f, (float)vz);
    for (uint32_t l = 0; l < g->leg_count; l++) {
        sk_leg_blend *b = &out->legs[l];
        /* Keytimes: the legs of motion i at index l, one field at a time. */
        float *dst[] = {&b->stance_time, &b->heel_off, &b->toe_off, &b->foot_lift, &b->foot_off, &b->post_foot_lift,
                        &b->heel_strike, &b->toe_strike, &b->foot_land, &b->foot_strike, &b->pre_foot_land};
        size_t fields[] = {offsetof(sk_leg_analysis, stance_time),   offsetof(sk_leg_analysis, heel_off),
                           offsetof(sk_leg_analysis, toe_off),       offsetof(sk_leg_analysis, foot_lift),
                           offsetof(sk_leg_analysis, foot_off),      offsetof(sk_leg_analysis, post_foot_lift),
                           offsetof(sk_leg_analysis, heel_strike),   offsetof(sk_leg_analysis, toe_strike),
                           offsetof(sk_leg_analysis, foot_land),     offsetof(sk_leg_analysis, foot_strike),
                           offsetof(sk_leg_analysis, pre_foot_land)};
        for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
            /* weighted circular mean of key_i + offset_i, relative to the heaviest motion h */
            double ref = (double)*(const float *)(const void *)((const char *)&g->motions[h]->legs[l] + fields[f]) +
                         g->offsets[h];
            double s = 0.0, c = 0.0;
            for (uint32_t i = 0; i < g->n; i++) {
                if (w[i] == 0.0) continue;
                double k = (double)*(const float *)(const void *)((const char *)&g->motions[i]->legs[l] + fields[f]) +
                           g->offsets[i];
                s += w[i] * sin((k - ref) * TWO_PI);
                c += w[i] * cos((k - ref) * TWO_PI);
            }
            float v = (float)wrap01(ref + atan2(s, c) / TWO_PI);
            *dst[f] = v >= 1.0f ? 0.0f : v;
        }
        double px = 0, py = 0, pz = 0, dx = 0, dy = 0, dz = 0, fl = 0, sd = 0;
        for (uint32_t i = 0; i < g->n; i++) {
            const sk_leg_analysis *L = &g->motions[i]->legs[l];
            px += w[i] * L->stance_position.x;
            py += w[i] * L->stance_position.y;
            pz += w[i] * L->stance_position.z;
            dx += w[i] * L->foot_direction.x;
            dy += w[i] * L->foot_direction.y;
            dz += w[i] * L->foot_direction.z;
            fl += w[i] * L->foot_length;
            sd += w[i] * L->stride_distance;
        }
        b->stance_position = sk_vec3_make((float)px, (float)py, (float)pz);
        b->foot_direction = sk_vec3_make((float)dx, (float)dy, (float)dz);
        b->foot_length = (float)fl;
        b->stride_distance = (float)sd;
    }
}

/* Normalises weights into w (n doubles); false when they are not usable. */
static bool norm_weights(const float *weights, uint32_t n, double *w) {
    double sum = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        if (!sk_isfinite_f(weights[i]) || weights[i] < 0.0f) return false;
        sum += weights[i];
    }
    if (!(sum > 0.0)) return false;
    for (uint32_t i = 0; i < n; i++) w[i] = weights[i] / sum;
    return true;
}

/* The per-frame paths keep n normalised weights on the stack. */
#define SK_SYNC_STACK SK_MOTION_GROUP_MAX_MOTIONS

sk_result sk_motion_group_blend(const sk_motion_group *g, const float *weights, uint32_t weight_count,
                                sk_motion_blend *out, sk_error *err) {
    if (!g || !weights || !out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion group blend: NULL argument");
    if (weight_count != g->n)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion group blend: %u weights for %u motions", weight_count,
                            g->n);
    double w[SK_SYNC_STACK];
    if (!norm_weights(weights, g->n, w))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                            "motion group blend: weights must be finite, >= 0 and not all 0");
    blend(g, w, out);
    return SK_OK;
}

sk_result sk_motion_group_evaluate(const sk_motion_group *g, sk_vec3 velocity, float *out_weights,
                                   uint32_t weight_count, sk_motion_blend *out, sk_error *err) {
    if (!g || !out_weights) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion group evaluate: NULL argument");
    if (weight_count < g->n)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion group evaluate: room for %u weights, %u motions",
                            weight_count, g->n);
    if (!sk_isfinite_f(velocity.x) || !sk_isfinite_f(velocity.y) || !sk_isfinite_f(velocity.z))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion group evaluate: velocity (%g, %g, %g) is not finite",
                            (double)velocity.x, (double)velocity.y, (double)velocity.z);
    if (g->n == 1) {
        out_weights[0] = 1.0f;
    } else {
        /* §4.2: polar gradient band interpolation of the velocity, (23)-(26) */
        float q[2] = {velocity.x, velocity.z};
        sk_result r = sk_blendspace_weights(g->points, g->n, 2, q, SK_BLENDSPACE_POLAR, out_weights, err);
        if (r != SK_OK) return r;
    }
    if (out) {
        double w[SK_SYNC_STACK];
        if (!norm_weights(out_weights, g->n, w))
            return sk_error_set(err, SK_ERR_INVALID_DATA, "motion group evaluate: the blend space gave no weights");
        blend(g, w, out);
    }
    return SK_OK;
}

sk_result sk_motion_group_footbase(const sk_motion_group *g, const float *weights, uint32_t weight_count,
                                   const sk_motion_blend *b, uint32_t leg, double phase, sk_vec3 *out,
                                   sk_error *err) {
    if (!g || !weights || !b || !out)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion group footbase: NULL argument");
    if (weight_count != g->n)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion group footbase: %u weights for %u motions",
                            weight_count, g->n);
    if (leg >= g->leg_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion group footbase: leg %u of %u", leg, g->leg_count);
    if (!isfinite(phase)) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion group footbase: phase not finite");
    double w[SK_SYNC_STACK];
    if (!norm_weights(weights, g->n, w))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                            "motion group footbase: weights must be finite, >= 0 and not all 0");
    double tau = wrap01(phase - b->legs[leg].stance_time); /* time since stance, cycles */
    double x = 0, y = 0, z = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        if (w[i] == 0.0) continue;
        const sk_leg_analysis *L = &g->motions[i]->legs[leg];
        uint32_t N = g->motions[i]->sample_count;
        /* (19): samples counted from the stance sample; z of the stance
         * sample seen from before it is 1 (the next stance), not 0. */
        double pos = tau * N;
        uint32_t k = (uint32_t)pos;
        if (k >= N) k = N - 1;
        double f = pos - k;
        uint32_t s0 = (L->stance_sample + k) % N, s1 = (L->stance_sample + k + 1) % N;
        sk_vec3 p0 = L->normalized_footbase[s0], p1 = L->normalized_footbase[s1];
        double z1 = p1.z + (k + 1 == N ? 1.0 : 0.0);
        x += w[i] * (p0.x + f * (p1.x - p0.x));
        y += w[i] * (p0.y + f * (p1.y - p0.y));
        z += w[i] * (p0.z + f * (z1 - p0.z));
    }
    *out = sk_vec3_make((float)x, (float)y, (float)z);
    return SK_OK;
}
