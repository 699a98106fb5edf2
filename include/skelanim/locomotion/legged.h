/* skelanim — IK-only walking for bodies with any number of legs (2..8):
 * seed 004's walker generalised past two legs (its figure of a three-legged
 * character and its future work), with the gait given as a phase offset per
 * leg, as legged robots and insects are described.
 *
 * The gait: a cycle phase phi in [0, 1) advances by dt x f cycles; leg i is
 * in swing while u_i = frac(phi - phase[i]) < 1 - duty and planted for the
 * rest of the cycle (duty: the planted share). While the body moves the
 * frequency is f = speed x duty / step_length (each foot's stance covers
 * step_length of ground), at least min_frequency (turning in place, catching
 * up) and at most max_frequency (faster, the stance lengthens up to the
 * legs' reach). A planted foot never moves. A swinging foot leaves where it
 * stood and lands where the body will be at the end of the swing plus its
 * rest place turned by the yaw it will have, half a stance ahead (a ray
 * down; on a step's edge it moves onto the flat); it lifts first, travels,
 * and comes down vertically, over the highest ground between. Standing
 * still, a leg whose swing comes round stays planted when its foot is within
 * a twentieth of a step of its rest place, so the body comes to rest with
 * every foot down; a foot kept planted only adds to the support.
 *
 * The body: over the caller's point (x, z) at its rest height above a plane
 * fitted by least squares to the feet (planted: where they stand; swinging:
 * where they will land), tilted to that plane's slope (pitch and roll, at
 * most max_tilt) and lowered where a leg could not reach its foot. Each leg
 * (hip, knee, foot: a parent chain) is solved by the analytic two-bone
 * solver toward its foot, the knee bending toward the side it bends at rest.
 *
 * Spaces: world, metres, +Y up, yaw about +Y with yaw 0 facing +Z. The pose
 * out is in character space (world = state.root x model), as the biped
 * walker's (procedural.h). Memory: allocated at creation; a frame allocates
 * nothing. Thread safety: a walker is used by one thread at a time;
 * walkers share nothing. */
#ifndef SKELANIM_LOCOMOTION_LEGGED_H
#define SKELANIM_LOCOMOTION_LEGGED_H

#include "skelanim/core/pose.h"
#include "skelanim/core/skeleton.h"
#include "skelanim/locomotion/locomotor.h"
#include "skelanim/world/terrain.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SK_LEGGED_MAX_LEGS 8

typedef struct sk_legged sk_legged;

/* A leg: hip -> knee -> foot, a parent chain below the body joint. The
 * foot is a ball of radius foot_radius (m, >= 0) around the foot joint:
 * its contact point is foot_radius below the joint along the ground's
 * normal. */
typedef struct sk_legged_leg {
    int32_t hip, knee, foot;
    float foot_radius;
} sk_legged_leg;

typedef struct sk_legged_desc {
    const sk_skeleton *skeleton;
    int32_t body_joint;                  /* a root joint (no parent) the legs hang from */
    sk_legged_leg legs[SK_LEGGED_MAX_LEGS];
    uint32_t leg_count;                  /* 2..SK_LEGGED_MAX_LEGS */
    /* The gait: when in the cycle each leg lifts (0..1), and the share of
     * the cycle a foot is planted (0.5..0.95). sk_legged_gait fills both
     * for the named gaits. */
    float phase[SK_LEGGED_MAX_LEGS];
    float duty;
    sk_terrain terrain;                  /* NULL callback: flat at y = 0 */
    /* 0 = default: */
    float step_length;   /* ground a planted foot covers per stance (m): 0.7 x the longest leg */
    float step_height;   /* swing lift (m): 0.3 x the longest leg */
    float min_frequency; /* cycles per second while turning in place or catching up: 0.8 */
    float max_frequency; /* cycles per second at most: 3.5 */
    float max_tilt;      /* the body's pitch and roll at most (rad): 0.5 */
} sk_legged_desc;

/* Named gaits for a body whose legs are listed in pairs from the front,
 * left first (left 0, right 0, left 1, right 1, ...), or, with an odd
 * count, pairs from the front then one leg at the back (the tripod):
 *   WAVE  one leg at a time, back to front on the left side, then the right
 *         (a quadruped's walk, an insect's slowest gait); duty 1 - 1/N +
 *         0.05: at least N - 1 feet down
 *   ALTERNATE two groups in antiphase, each leg's diagonal neighbours in the
 *         other (a quadruped's trot; with six legs the tripod gait); even
 *         counts only; duty 0.6: at least N / 2 feet down. */
typedef enum sk_legged_gait_kind { SK_LEGGED_GAIT_WAVE = 0, SK_LEGGED_GAIT_ALTERNATE = 1 } sk_legged_gait_kind;

/* Fills phase[leg_count] and *duty for the gait. SK_ERR_INVALID_ARGUMENT
 * for a count outside 2..SK_LEGGED_MAX_LEGS, NULL outputs, ALTERNATE with
 * an odd count. */
SK_API sk_result sk_legged_gait(sk_legged_gait_kind gait, uint32_t leg_count, float *phase, float *duty, sk_error *err);
/* The fewest feet planted at any phase of the cycle for these offsets and
 * duty (the walking gait's guarantee; standing, more are down). */
SK_API uint32_t sk_legged_min_planted(const float *phase, uint32_t leg_count, float duty);

/* Checks the description (joints in range and chains, finite positive
 * lengths, phases in [0, 1), duty in [0.5, 0.95], options finite and >= 0)
 * and creates the walker; memory from alloc (NULL = C library). Errors:
 * SK_ERR_INVALID_ARGUMENT (saying which field), SK_ERR_OUT_OF_MEMORY. */
SK_API sk_result sk_legged_create(const sk_legged_desc *desc, const sk_allocator *alloc, sk_legged **out,
                                  sk_error *err);
/* Frees the walker (NULL: nothing). */
SK_API void sk_legged_destroy(sk_legged *W);
/* Stands the body at (x, z) facing yaw, every foot at its rest place on
 * the ground. SK_ERR_INVALID_ARGUMENT for NULL or non-finite input. */
SK_API sk_result sk_legged_reset(sk_legged *W, float x, float z, float yaw, sk_error *err);
/* One frame: the body's point moved to (x, z) facing yaw over dt seconds
 * (0 < dt <= 1); the pose (the skeleton's joint_count transforms) written
 * in character space from the rest pose. SK_ERR_INVALID_ARGUMENT for
 * non-finite input, a bad dt or a pose of the wrong size (nothing changed). */
SK_API sk_result sk_legged_update(sk_legged *W, double dt, float x, float z, float yaw, sk_pose *pose,
                                  sk_error *err);

typedef struct sk_legged_foot {
    sk_vec3 contact;       /* world: the foot's contact point as the leg's IK placed it (foot joint - radius x normal) */
    sk_vec3 normal;        /* the ground's normal under it (unit) */
    sk_vec3 target;        /* world: where the foot stands (planted) or will land (swinging) */
    bool planted;
    float swing;           /* swing progress 0..1 (0 planted) */
    bool reached;          /* the leg's IK reached the foot */
    sk_foot_event event;   /* this frame's contact event (locomotor.h; kind NONE: none) */
} sk_legged_foot;

typedef struct sk_legged_state {
    double time;
    bool walking;          /* the cycle runs (false: standing, every foot down) */
    float phase;           /* the cycle phase phi */
    float frequency;       /* cycles per second this frame */
    sk_vec3 position;      /* the caller's point; y: the support plane's height under it */
    float yaw;
    sk_vec3 velocity;      /* smoothed, m/s */
    float body_height;     /* the body joint's world y */
    float rest_height;     /* the body joint's height over its feet in the rest pose (m) */
    float clearance;       /* body joint height over the ground straight below it (m) */
    float pitch, roll;     /* the body's tilt (rad; + nose up, + left side up) */
    uint32_t planted;      /* feet planted this frame */
    uint32_t min_planted;  /* sk_legged_min_planted of the gait */
    uint32_t rays;         /* terrain rays cast this frame */
    sk_mat4 root;          /* world = root x model */
    uint32_t leg_count;
    sk_legged_foot feet[SK_LEGGED_MAX_LEGS];
} sk_legged_state;

/* The state after the last update or reset (NULL for a NULL walker): the
 * walker's own memory, valid until the next update, reset or destroy. */
SK_API const sk_legged_state *sk_legged_get_state(const sk_legged *W);
/* The last update's world matrices (joint_count), or NULL before one. */
SK_API const sk_mat4 *sk_legged_model(const sk_legged *W);

#ifdef __cplusplus
}
#endif
#endif
