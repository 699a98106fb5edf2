/* skelanim — synchronisation of walk/run cycles and velocity-parameterised
 * blending of their analyses (seed 002 §4.1-4.3 and §5.1, after R. S.
 * Johansen, "Automated Semi-Procedural Animation for Character Locomotion",
 * 2009).
 *
 * Times. Every analysis (locomotion/analysis.h) has its keytimes in its own
 * normalised cycle time t in [0, 1). Synchronisation finds an offset o_i per
 * motion such that the stance times t_stance + o_i agree on the time circle
 * for all motions. A motion group then runs on one "group phase"
 * phi in [0, 1): motion i is at analysis time t_i = phi - o_i (mod 1), which
 * for a forward analysis is the clip's normalised time and for a backward
 * one (sk_motion_analyze_backward) 1 - the clip's normalised time
 * (sk_motion_group_clip_phase does the conversion). All motions advance at
 * the same phase rate, 1 / the blended cycle duration (as
 * sk_players_advance_synced in anim/fader.h does).
 *
 * Velocities. A motion's velocity is its cycle speed times its cycle
 * direction (m/s, character space, horizontal), used as the 2D point
 * (x, z) of the polar gradient band blend space (anim/blendspace.h,
 * SK_BLENDSPACE_POLAR). A backward analysis moves the other way, so a
 * forward walk can serve as a backward walk too.
 *
 * Memory: sk_motion_group_create allocates through the sk_allocator; the
 * per-frame functions (sk_motion_group_evaluate, _footbase, _clip_phase)
 * allocate nothing. The group keeps pointers to the analyses: they must
 * outlive it. */
#ifndef SKELANIM_LOCOMOTION_SYNC_H
#define SKELANIM_LOCOMOTION_SYNC_H

#include "skelanim/core/base.h"
#include "skelanim/core/math.h"
#include "skelanim/locomotion/analysis.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SK_MOTION_GROUP_MAX_LEGS SK_ANALYSIS_MAX_LEGS /* as sk_motion_analyze */
#define SK_MOTION_GROUP_MAX_MOTIONS 64 /* per group (the per-frame functions keep weights on the stack) */

/* Synchronisation offsets (the method's "SyncMotions"; src/locomotion/sync.c
 * lists the corrections made to its printed form). motions: n analyses of the same legs (equal
 * leg counts, the same ankle joints). Writes n offsets in [0, 1) such that
 * motions[i]->legs[l].stance_time + out_offsets[i] agree (mod 1) for every
 * i as well as the legs allow; out_offsets[0] is 0 (motion 0 is the
 * reference; only differences matter). Deterministic; n == 1 gives 0.
 * Scratch memory (n doubles) comes from alloc. Errors: NULL arguments,
 * n == 0, legs that differ, non-finite stance times. */
SK_API sk_result sk_motion_sync_offsets(const sk_motion_analysis *const *motions, uint32_t n, const sk_allocator *alloc,
                                        float *out_offsets, sk_error *err);

/* A motion group: cyclic walk / run motions of one character, synchronised
 * at creation, blended by velocity. Read-only after creation: any number of
 * locomotors and threads may share it. */
typedef struct sk_motion_group sk_motion_group;

/* motions: 1..SK_MOTION_GROUP_MAX_MOTIONS analyses of the same legs with distinct velocities (two
 * motions with the same velocity cannot be told apart by the blend space:
 * SK_ERR_INVALID_ARGUMENT). The group synchronises them
 * (sk_motion_sync_offsets) and keeps their velocities as blend-space points. */
SK_API sk_result sk_motion_group_create(const sk_motion_analysis *const *motions, uint32_t n, const sk_allocator *alloc,
                                        sk_motion_group **out, sk_error *err);
/* Frees a group (NULL: nothing happens). */
SK_API void sk_motion_group_destroy(sk_motion_group *g);

/* Number of motions in the group (0 for NULL). */
SK_API uint32_t sk_motion_group_count(const sk_motion_group *g);
/* Number of legs of the group's motions (0 for NULL). */
SK_API uint32_t sk_motion_group_leg_count(const sk_motion_group *g);
/* Offset of motion i (sk_motion_sync_offsets), its velocity (x, 0, z) in m/s. */
SK_API float sk_motion_group_offset(const sk_motion_group *g, uint32_t i);
/* Motion i's analysis as given to sk_motion_group_create (NULL when out of range). */
SK_API const sk_motion_analysis *sk_motion_group_motion(const sk_motion_group *g, uint32_t i);
/* Motion i's velocity (x, 0, z) in m/s, its blend-space point (zero when i
 * is out of range). */
SK_API sk_vec3 sk_motion_group_velocity(const sk_motion_group *g, uint32_t i);

/* Per leg, blended by the motions' weights. Keytimes are group phases in
 * [0, 1): the weighted circular mean of the motions' keytimes + offsets
 * (not a linear sum: 0.95 and 0.05 at equal weights give 0.0). */
typedef struct sk_leg_blend {
    float stance_time;
    float heel_off, toe_off, foot_lift, foot_off, post_foot_lift;
    float heel_strike, toe_strike, foot_land, foot_strike, pre_foot_land;
    sk_vec3 stance_position;  /* footbase at stance time, weighted sum (m, character space) */
    sk_vec3 foot_direction;   /* weighted sum of the foot directions (length: the blended foot length) */
    float foot_length;        /* weighted sum (m) */
    float stride_distance;    /* weighted sum (m per cycle) */
} sk_leg_blend;

typedef struct sk_motion_blend {
    uint32_t leg_count;
    double cycle_duration;    /* weighted sum of the cycle durations (s): the group's phase advances by dt / it */
    sk_vec3 velocity;         /* weighted sum of the motions' velocities (m/s) */
    sk_leg_blend legs[SK_MOTION_GROUP_MAX_LEGS];
} sk_motion_blend;

/* From the desired velocity (m/s, character space; y is ignored) the
 * weights of the motions (polar gradient band interpolation of
 * anim/blendspace.h; they sum to 1, and a velocity equal to a motion's gives
 * exactly 1 for it and 0 for the others) into out_weights[weight_count] (weight_count >=
 * the motion count) and, when out is not NULL, the blended cycle.
 * Errors: NULL group, a non-finite velocity, a short weights array
 * (SK_ERR_INVALID_ARGUMENT). Allocates nothing. */
SK_API sk_result sk_motion_group_evaluate(const sk_motion_group *g, sk_vec3 velocity, float *out_weights,
                                          uint32_t weight_count, sk_motion_blend *out, sk_error *err);

/* The same blend for given weights (weight_count == the motion count,
 * finite, >= 0, not all 0; they are normalised). */
SK_API sk_result sk_motion_group_blend(const sk_motion_group *g, const float *weights, uint32_t weight_count,
                                       sk_motion_blend *out, sk_error *err);

/* Normalised footbase trajectory of leg at group phase `phase` (the
 * analyses' (19)-(22), blended): each motion's trajectory sampled (linearly
 * between its samples) at the same time after its own stance, tau = phase -
 * blend->legs[leg].stance_time, and weighted. z runs from 0 at stance to 1
 * at the next stance (1 is returned for tau -> 1, not 0). Errors: bad leg,
 * weights or phase. Allocates nothing. */
SK_API sk_result sk_motion_group_footbase(const sk_motion_group *g, const float *weights, uint32_t weight_count,
                                          const sk_motion_blend *blend, uint32_t leg, double phase, sk_vec3 *out,
                                          sk_error *err);

/* The normalised clip time in [0, 1) at which motion i is played at group
 * phase `phase`: phase - offset_i, mirrored (1 - t) for a backward
 * analysis. Multiply by the clip's cycle duration (for an analysis of a
 * cycle inside a longer capture, sk_motion_analysis_options cycle_start /
 * cycle_end: clip time = cycle_start + this x (cycle_end - cycle_start)). */
SK_API double sk_motion_group_clip_phase(const sk_motion_group *g, uint32_t i, double phase);

#ifdef __cplusplus
}
#endif
#endif
