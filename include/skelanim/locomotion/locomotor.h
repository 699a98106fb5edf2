/* skelanim — the semi-procedural locomotion runtime (seed 002 chapter 5,
 * after R. S. Johansen, "Automated Semi-Procedural Animation for Character
 * Locomotion", 2009).
 *
 * Each frame the character's ground point and facing (from a controller,
 * locomotion/controller.h, or your physics) go in; the locomotor
 *   1. tracks the motion (position, velocity, angular velocity, acceleration),
 *   2. picks the motion weights from the velocity in character space (polar
 *      gradient band interpolation, locomotion/sync.h) and advances the
 *      group phase by dt / the blended cycle duration,
 *   3. samples the clips at their synchronised times, removes their root
 *      motion and blends them (and an optional idle clip when standing),
 *   4. adjusts the pose to the terrain: per leg the footsteps are predicted
 *      (27)-(33) and placed with two rays (heel, toe) and the step-edge
 *      rule (a foot stands on one tread, clear of its edges), the foot flies
 *      between them along the clips' normalised footbase trajectory
 *      (34)-(58), the hips are lowered or raised so the legs reach
 *      (59)-(64), the ankle is rebuilt from the footbase (65)-(66) and the
 *      leg is bent with sk_ik_two_bone, the foot aligned to the ground.
 * The pose out is in character space: world = sk_locomotor_state.root x the
 * model matrices (sk_local_to_model with that root; sk_locomotor_model hands
 * out the ones the locomotor computed).
 *
 * Spaces and units: world space, metres, seconds, +Y up; yaw is the angle
 * about +Y with yaw 0 facing +Z (the way a glTF character faces). A leg is
 * in "stance" (planted: its footbase does not move) from foot-land to
 * foot-lift of the blended keytimes; outside it the foot rolls on the
 * ground (foot-strike .. foot-land, foot-lift .. foot-off) or flies.
 *
 * Memory: sk_locomotor_create allocates everything through the
 * sk_allocator; the per-frame functions allocate nothing. One locomotor per
 * character; several may run on different threads (the group, clips,
 * skeleton and terrain are only read). */
#ifndef SKELANIM_LOCOMOTION_LOCOMOTOR_H
#define SKELANIM_LOCOMOTION_LOCOMOTOR_H

#include "skelanim/core/clip.h"
#include "skelanim/core/pose.h"
#include "skelanim/core/skeleton.h"
#include "skelanim/locomotion/sync.h"
#include "skelanim/world/terrain.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Motion tracker ------------------------------------------------------ */
typedef struct sk_motion_tracker {
    sk_vec3 position;          /* last position given (m) */
    float yaw;                 /* last facing (rad) */
    sk_vec3 velocity;          /* m/s, smoothed */
    float angular_velocity;    /* rad/s about +Y, smoothed */
    sk_vec3 acceleration;      /* m/s^2, smoothed */
    /* Time constant of the exponential smoothing (s); 0 = raw finite
     * differences. Set after sk_motion_tracker_reset. */
    float smoothing;
    uint32_t updates;          /* updates since the reset */
} sk_motion_tracker;

/* Starts tracking at rest at (position, yaw); smoothing = 0.05 s. */
SK_API void sk_motion_tracker_reset(sk_motion_tracker *t, sk_vec3 position, float yaw);
/* The character moved to (position, yaw) in dt seconds (dt <= 0 or a
 * non-finite input leaves the tracker as it was). Velocity and angular
 * velocity are finite differences (yaw unwrapped, so crossing +-pi is a small
 * turn), acceleration the difference of velocities, each smoothed. */
SK_API void sk_motion_tracker_update(sk_motion_tracker *t, sk_vec3 position, float yaw, double dt);

/* ---- Locomotor ---------------------------------------------------------- */
typedef struct sk_locomotor sk_locomotor;

typedef struct sk_locomotor_desc {
    const sk_skeleton *skeleton;
    /* The analysed cyclic motions (walk, run, ...), and their clips: clips[i]
     * is the clip that motion i (sk_motion_group_motion) analysed, sampled
     * on this skeleton. Their root motion (analysis root_velocity) is
     * removed at run time. */
    const sk_motion_group *group;
    const sk_clip *const *clips;
    uint32_t clip_count;          /* == sk_motion_group_count(group) */
    /* Optional standing clip (looped) blended in as the character stops. */
    const sk_clip *idle;
    sk_terrain terrain;           /* the ground; a NULL callback = flat at y 0 */
    /* The joint moved by the hip adjustment: -1 = the nearest common
     * ancestor of the legs' hip joints (the pelvis). */
    int32_t body_joint;
    /* Rays start this far above the highest point a foot may reach (m);
     * 0: 0.8 x the longest leg. Ground lower than the character's ground
     * point by more than max_step_down is not found (0: 1.2 x leg). */
    float max_step_up, max_step_down;
    /* Two-bone soft extension (fraction of reach, sk_ik_options.soft);
     * 0: 0.02; negative: off. */
    float soft;
    /* Below this speed (m/s) the character comes to a stand when it has
     * finished its step (0: 0.1). */
    float idle_speed;
    /* Time constant (s) of the character's height over the ground (0: 0.15). */
    float ground_smoothing;
    /* Off switches, for comparisons and tests: no terrain adjustment at all
     * (the clips with the root motion replaced by the given path: the
     * baseline), or no hip adjustment. */
    bool plain, no_hip_adjust;
} sk_locomotor_desc;

/* A footstep: where a foot stands (its footbase, on the ground) and how. */
typedef struct sk_footstep {
    sk_vec3 position;     /* footbase (heel line) on the ground, world */
    sk_vec3 normal;       /* ground normal (unit, up-facing) */
    sk_quat rotation;     /* foot frame: character space -> world (yaw and tilt) */
    float yaw;            /* facing of the foot's character frame */
    double time;          /* when the foot stands on it (stance time), s */
} sk_footstep;

/* A foot's contact with the ground, reported on the frame it happens (for
 * footstep sounds, dust, decals): DOWN when the foot touches the ground
 * (the semi-procedural locomotor: foot-strike; the IK-only walker: the
 * swing foot planted), UP when it leaves it (foot-off; the support foot
 * lifted). NONE on every other frame. */
typedef enum sk_foot_event_kind {
    SK_FOOT_EVENT_NONE = 0,
    SK_FOOT_EVENT_DOWN = 1,
    SK_FOOT_EVENT_UP = 2
} sk_foot_event_kind;

typedef struct sk_foot_event {
    sk_foot_event_kind kind;
    sk_vec3 position;     /* world: the footstep's ground point (footbase) it comes down on or leaves */
    sk_vec3 normal;       /* the ground's normal there (unit) */
    float speed;          /* m/s: the ankle's speed over the frame before (how hard it lands) */
} sk_foot_event;

typedef struct sk_locomotor_foot {
    sk_vec3 heel, toe, ankle;     /* world, after adjustment */
    bool stance;                  /* planted: foot-land .. foot-lift of the blended keytimes, or on the
                                     ground while standing (idle faded in) */
    bool grounded;                /* on the ground: foot-strike .. foot-off */
    float cycle_time;             /* leg cycle time in [0, 1): 0 = stance time */
    float flight;                 /* flight progress 0..1 (0 on the ground) */
    sk_footstep from, to;         /* the footsteps it leaves / goes to */
    bool reached;                 /* the leg IK reached its target */
    sk_foot_event event;          /* this frame's contact event (kind NONE: none) */
    sk_vec3 foot;                 /* heel to toe of the foot laid flat, character space, horizontal: a
                                     footstep's toe is position + rotation x foot (m) */
} sk_locomotor_foot;

/* The locomotor's state machine for standing and moving (the polar
 * gradient band blend space picks walk or run within MOVING):
 *   STANDING -> MOVING    when the speed reaches idle_speed (the idle clip
 *                         fades out over 0.2 s, the phase runs);
 *   MOVING   -> STOPPING  when the speed drops below idle_speed;
 *   STOPPING -> STANDING  when every foot is on the ground (foot-strike ..
 *                         foot-off): the phase stops, the idle fades in
 *                         while the feet stay on their footsteps;
 *   STOPPING -> MOVING    when the speed comes back. */
typedef enum sk_locomotion_mode {
    SK_LOCOMOTION_STANDING = 0,
    SK_LOCOMOTION_MOVING = 1,
    SK_LOCOMOTION_STOPPING = 2
} sk_locomotion_mode;

typedef struct sk_locomotor_state {
    double time;                  /* s since the reset */
    sk_vec3 position;             /* character ground point (y: smoothed ground height) */
    float yaw;
    sk_vec3 velocity;             /* from the tracker, world, m/s */
    float angular_velocity;       /* rad/s */
    double phase;                 /* group phase in [0, 1) */
    double cycle_duration;        /* s, as the phase advanced this frame */
    sk_locomotion_mode mode;
    float moving;                 /* 0 standing (idle) .. 1 moving: the weight of the moving clips */
    float hip_offset;             /* vertical hip adjustment (m) */
    sk_mat4 root;                 /* the character transform: world = root x model */
    uint32_t leg_count;
    uint32_t rays;                /* terrain rays cast this frame */
    sk_locomotor_foot feet[SK_MOTION_GROUP_MAX_LEGS];
} sk_locomotor_state;

/* Checks the description (a group whose analyses have the skeleton's leg
 * joints, clip_count == the motion count) and allocates. Errors:
 * SK_ERR_INVALID_ARGUMENT with a message, SK_ERR_OUT_OF_MEMORY. */
SK_API sk_result sk_locomotor_create(const sk_locomotor_desc *desc, const sk_allocator *alloc, sk_locomotor **out,
                                     sk_error *err);
/* Frees the locomotor (NULL: nothing happens). */
SK_API void sk_locomotor_destroy(sk_locomotor *L);

/* Puts the character standing at (x, z) facing yaw (the ground height from
 * the terrain), feet on footsteps under its body, phase 0, tracker at rest. */
SK_API sk_result sk_locomotor_reset(sk_locomotor *L, float x, float z, float yaw, sk_error *err);

/* One frame, all steps: advance + sample + adjust. (x, z) and yaw are the
 * character's new ground point and facing, dt > 0 the time since the last
 * frame (at most 1 s). pose (the skeleton's; weights may be absent) gets
 * the final local pose in character space. */
SK_API sk_result sk_locomotor_update(sk_locomotor *L, double dt, float x, float z, float yaw, sk_pose *pose,
                                     sk_error *err);

/* The three steps of sk_locomotor_update, for callers who sample and blend
 * the clips themselves (with their own layers): advance tracks the motion,
 * updates the weights, the blended cycle and the phase; the motion weights
 * and each clip's time (s) are then in sk_locomotor_weights /
 * sk_locomotor_clip_time. sample writes the blend of the clips (root motion
 * removed) and the idle clip into pose. adjust fits pose (character space,
 * root motion removed) to the terrain. */
SK_API sk_result sk_locomotor_advance(sk_locomotor *L, double dt, float x, float z, float yaw, sk_error *err);
/* The second step: the blend of the clips (root motion removed) and the idle
 * clip into pose. */
SK_API sk_result sk_locomotor_sample(sk_locomotor *L, sk_pose *pose, sk_error *err);
/* The third step: fits pose (character space, root motion removed) to the
 * terrain. */
SK_API sk_result sk_locomotor_adjust(sk_locomotor *L, sk_pose *pose, sk_error *err);

/* Hands the standing/moving crossfade to the caller's state machine (the
 * locomotion group's weight is then set from outside the locomotor).
 * w in [0, 1] is the weight of the locomotion group in the caller's pose —
 * with anim/graph.h, sk_graph_source_weight of an external state whose pose
 * is sk_locomotor_sample's. Call it each frame after advance, before sample
 * and adjust. From the first call on the locomotor no longer fades its idle
 * clip in itself (sample writes the moving clips only; the machine blends
 * its own idle state) and state.moving is w; its STANDING/MOVING/STOPPING
 * mode still says when the feet are down, which the machine should wait
 * for before leaving the locomotion state (docs/locomotion.md). A negative
 * or NaN w gives the fade back to the locomotor. */
SK_API void sk_locomotor_set_group_weight(sk_locomotor *L, float w);

/* The locomotor's state after the last update (NULL for NULL); the pointer
 * stays valid for the locomotor's life, its contents change with each update. */
SK_API const sk_locomotor_state *sk_locomotor_get_state(const sk_locomotor *L);
/* Current motion weights (sk_motion_group_count entries; they sum to 1). */
SK_API const float *sk_locomotor_weights(const sk_locomotor *L);
/* Clip time (s) of motion i at the current phase. */
SK_API double sk_locomotor_clip_time(const sk_locomotor *L, uint32_t i);
/* The body joint the hip adjustment moves. */
SK_API uint32_t sk_locomotor_body_joint(const sk_locomotor *L);
/* The world matrices of the pose the last sk_locomotor_adjust (or
 * sk_locomotor_update) wrote: joint_count column-major matrices, world =
 * state.root x model (what sk_local_to_model of that pose with root =
 * &sk_locomotor_get_state(L)->root gives, to float rounding), in metres.
 * The locomotor computes them anyway to place the feet (the forward
 * kinematics of the pose once, then of the subtrees the leg IK changes), so
 * skinning or a renderer reads them here instead of running its own. Owned
 * by the locomotor: valid until its next adjust, update, reset or destroy;
 * read-only. NULL for a NULL locomotor and before the first adjust after
 * create or reset. Thread safety: as the locomotor's (one thread at a time
 * per locomotor). */
SK_API const sk_mat4 *sk_locomotor_model(const sk_locomotor *L);

#ifdef __cplusplus
}
#endif
#endif
