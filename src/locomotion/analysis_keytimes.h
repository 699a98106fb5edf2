/* skelanim — private: the contact keytimes of the motion analysis (how a
 * foot's flat phase, strike and lift are found on noisy captures). Used by
 * analysis.c only; docs/locomotion.md, "Keytimes on captures", explains the
 * method. */
#ifndef SKELANIM_LOCOMOTION_ANALYSIS_KEYTIMES_H
#define SKELANIM_LOCOMOTION_ANALYSIS_KEYTIMES_H

#include "skelanim/locomotion/analysis.h"

#include <math.h>

/* A leg's points in character space over samples -X .. N + X, point[s + X]:
 * inside the cycle its own samples; outside, for a cycle cut from a longer
 * clip, the clip where it goes on (so that the keytimes of a stance that
 * crosses the cycle's start are found on one footstep, not on two footsteps a
 * cycle apart), otherwise (a loop, or past the clip's ends) the cycle's own
 * samples wrapped. */
typedef struct skl_leg_ext {
    const sk_vec3 *heel, *toe;
    /* The ball: the toe joint's origin (the toe point without a toe joint).
     * The toes bend up at heel strike and down at push-off, so the ball, not
     * the toe tip, says when the sole is down. */
    const sk_vec3 *ball;
    /* The ankle joint: the heel side's contact, for the same reason (a bare
     * skeleton's heel point is a guess below and behind it). */
    const sk_vec3 *ankle;
    uint32_t X;            /* N / 2 + K */
    uint32_t K;            /* velocities: central differences over +-K samples, K >= 1 */
    double dt;             /* s per sample */
    sk_vec3 root_velocity; /* the analysis' root_velocity (m/s) */
    /* The vertical root motion removed per sample (m): heights are compared
     * with it added back, as the floor under one footstep is one height
     * however the hips rise over the cycle. */
    float rise;
} skl_leg_ext;

/* Horizontal velocity of p at extended index i (central difference +-K,
 * inv2 = 1 / (2 K dt)), minus (ux, uz): its speed relative to the planted
 * velocity. */
static inline float skl_rel_speed(const sk_vec3 *p, size_t i, uint32_t K, double inv2, float ux, float uz) {
    float vx = (float)((p[i + K].x - p[i - K].x) * inv2) - ux, vz = (float)((p[i + K].z - p[i - K].z) * inv2) - uz;
    return sqrtf(vx * vx + vz * vz);
}

/* Offsets in samples from the stance sample (forward >= 0, backward <= 0). */
typedef struct skl_keytimes {
    int32_t heel_strike, heel_off, toe_strike, toe_off; /* the ankle / ball down and planted */
    int32_t planted_begin, planted_end;                 /* the footbase planted and the foot low */
} skl_keytimes;

/* Finds the keytimes of one leg whose foot length and direction, ground
 * heights and stance sample analysis.c has filled, over the half cycle
 * either side of the stance sample. A point is down where it is within
 * contact (m) of its lowest height there and its horizontal velocity in
 * character space is within speed_tol x the stance speed (plus 2% of the leg
 * per cycle) of the planted velocity: minus the root velocity for a clip that
 * moves; for one in place, the footbase's median velocity while the foot is
 * low (the treadmill's). Gaps of up to 2% of the cycle are bridged. The
 * planted phase is bounded by ankle and ball being still: within still_band
 * (a fraction of the leg; sk_motion_analysis_options.still_band) of their
 * lowest, neither rising nor sinking fast. still_first: the footbase counts
 * as planted wherever ankle and ball are still and it moves at the planted
 * velocity, not only where it is also low (otherwise only when no sample
 * within a quarter cycle of the stance is low and planted). Scratch from
 * alloc; SK_ERR_OUT_OF_MEMORY. */
sk_result skl_analysis_keytimes(const sk_leg_analysis *L, uint32_t N, const skl_leg_ext *ext, float contact,
                                float speed_tol, float alpha_bal, float still_band, bool still_first,
                                const sk_allocator *alloc, skl_keytimes *out, sk_error *err);

/* x wrapped into [0, 1) as a float keytime (a double just under a whole
 * number that rounds to 1.0f becomes 0). */
static inline float skl_wrap01(double x) {
    float f = (float)(x - floor(x));
    return f >= 1.0f ? 0.0f : f;
}

#endif
