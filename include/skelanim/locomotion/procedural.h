/* skelanim — IK-only procedural walking (seed 004, chapters 6-8):
 * a character with no clips that walks, runs, climbs stairs and ramps,
 * balances on ledges, falls and jumps, its legs and arms posed by inverse
 * kinematics alone from its rest pose.
 *
 * Steps: the swinging foot follows a quadratic Bezier arc
 * B(s) = (1-s)^2 A + 2(1-s)s B + s^2 C from where it left the ground (A)
 * over a lift control point (B) to a landing point found by rays ahead of
 * the body (C); the arc parameter advances by ds = dt x speed x step
 * frequency (steps per metre: desc.step_frequency / walk_speed walking,
 * adapted to the gait);
 * at s = 1 the support leg switches. The support foot never moves. Step
 * length grows with speed and uphill, shrinks downhill (after Psarras 2006);
 * a landing point that moves (a turn, a new tread) is approached at a
 * bounded speed so the foot never jumps. Stopping ends with a rest step that
 * puts the feet side by side (or where desc.rest_step_width, _ahead say).
 * Body: the hips bob by (-4 (s - 0.5)^2 + 0.25) / rise (desc.hip_rise;
 * lowest at the ends of a step, highest at its middle) and are lowered where the ground under the feet
 * is deeper so both feet reach; stairs are a slope for the body (its height
 * follows the ground under it, smoothed) while every foot lands on a tread
 * (heel and toe rays with the step-edge rule of the semi-procedural
 * locomotor). Walk -> run by speed: longer steps, faster cadence, higher hip
 * rise, bent arms.
 * Terrain: ledges: a step never goes past an edge (the last acceptable
 * landing point is used); when the character's point passes it, the character
 * falls and lands, the landing absorbed by the knees in proportion to the
 * fall speed; a drop deeper than the character is tall (with two arms) it
 * does not fall into: it turns to the wall, lowers itself until it hangs
 * from the edge by both hands, lets go after 0.8 s (not over a drop with
 * no ground found below), turns back in the air and lands, then walks on
 * to the caller's point (which it follows again from there). Jumps: a crouch (the root lowered to a set depth), take-off,
 * arms raised in the air, the same landing.
 * Across a slope the body's facing and the feet turn toward the fall line
 * until the ground's roll of a flat foot, tan(roll) = tan(slope) cos(heading
 * from the contour), leaves the ankle room (the character side-steps along
 * the path; state.yaw is the facing so turned), with shorter steps.
 * Crouched walking under a height (sk_procedural_crouch); the torso leans
 * into acceleration, slopes and turns and forward when crouched
 * (state.lean_pitch, lean_roll); the head looks at a point
 * (sk_procedural_look_at); stopping at an edge it stops with one foot
 * behind the other (unless rest_step_ahead is set) and balances, arms out
 * and the hips over the back foot (state.balance); pushed (sk_procedural_push) it takes recovery
 * steps, or falls and lies down.
 * Arms: swing in opposition to the legs, nearly straight walking and
 * bent running; one or both may point at a target (an iterative solver from
 * the IK layer, sk_procedural_point_at). Backward walking: the body faces one
 * way and moves the other (the velocity against the facing), shorter steps
 * landing behind.
 *
 * Spaces: world, metres, +Y up, yaw about +Y with yaw 0 facing +Z; the pose
 * out is in character space like the semi-procedural locomotor's (world =
 * state.root x model). Memory: allocated at creation; a frame allocates
 * nothing. */
#ifndef SKELANIM_LOCOMOTION_PROCEDURAL_H
#define SKELANIM_LOCOMOTION_PROCEDURAL_H

#include "skelanim/ik/ik.h"
#include "skelanim/locomotion/analysis.h"
#include "skelanim/locomotion/locomotor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_procedural sk_procedural;

/* An arm: upper arm, forearm and hand joints (a parent chain). */
typedef struct sk_arm_desc {
    int32_t shoulder, elbow, hand;
} sk_arm_desc;

typedef struct sk_procedural_desc {
    const sk_skeleton *skeleton;
    /* Two legs (left first); their heel and toe points as sk_leg_default_points
     * gives them when not set. */
    sk_leg_desc legs[2];
    /* 0..2 arms (left first); none: the arms keep the rest pose. */
    sk_arm_desc arms[2];
    uint32_t arm_count;
    int32_t body_joint;      /* -1: the nearest common ancestor of the hips */
    sk_terrain terrain;      /* NULL callback: flat at y = 0 */
    /* Gait, 0 = default: */
    float walk_speed;        /* m/s at which the walking step reaches its full length (1.3) */
    float run_speed;         /* m/s from which the gait is a run (2.4) */
    float step_length;       /* full walking step (m): 0.85 x leg length; or set by step_frequency */
    float step_height;       /* swing lift at walking speed (m): 0.12 x leg length */
    /* Hip rise, 0.1..1 (0: 0.2): over a step the hips move by
     * (-4 (s - 0.5)^2 + 0.25) / hip_rise x 2 cm, s the step's progress
     * (lowest at its ends, where the legs are apart, highest at its middle);
     * the rise divides, so a smaller value moves more: with 0.2, 7.5 cm down
     * at the ends and 2.5 cm up at mid-step; with 0.1 twice that, with 1 a
     * fifth; doubled running. The body never rises past the legs' reach.
     * Outside 0.1..1: create fails. */
    float hip_rise;
    /* Step frequency (steps per second at walk_speed on level ground; 0:
     * walk_speed / step_length, 1.8 for the mannequin): a step's progress
     * advances by dt x v x sf, sf = step_frequency / walk_speed steps per
     * metre at walking speed, so the full walking step is walk_speed /
     * step_frequency; slower, faster (running), on slopes, turning and
     * backward the step is shaped from it as from step_length. Set it or
     * step_length, not both (create fails); the step it gives must be 0.3 ..
     * 1.1 leg lengths. */
    float step_frequency;
    /* The rest step (stopping: the last step brings the swinging foot beside
     * the support foot) ends with the heels rest_step_width apart across the
     * support foot's heading (m, 0.1..0.5 leg lengths; 0: the hips' width)
     * and the resting foot rest_step_ahead in front of it along that heading
     * (m, -0.3..0.3 leg lengths, negative behind; 0: side by side). */
    float rest_step_width, rest_step_ahead;
    float crouch_depth;      /* jump crouch, root lowered by (m): 0.3 x leg length */
    float jump_speed;        /* take-off vertical speed (m/s): 3 */
    float max_step_down;     /* lower ground is a ledge (m): 0.6 x leg length */
    float max_step_up;       /* higher ground is not stepped on (m): 0.6 x leg length */
    /* Limits applied to the leg joints after IK and to the arm chains when
     * pointing (NULL or skeleton joint_count entries, type NONE for joints
     * without one): sk_ik_limit_clamp. The gait stays inside the mannequin's
     * (sk_mannequin_leg_limits) without them. */
    const sk_ik_limit *limits;
} sk_procedural_desc;

typedef enum sk_procedural_mode {
    SK_PROCEDURAL_STANDING = 0,
    SK_PROCEDURAL_WALKING = 1,  /* also running and stopping (the rest step) */
    SK_PROCEDURAL_CROUCHING = 2,/* before a jump */
    SK_PROCEDURAL_AIRBORNE = 3, /* jumping or falling */
    SK_PROCEDURAL_LANDING = 4,  /* absorbing a landing */
    SK_PROCEDURAL_FALLEN = 5,   /* pushed past recovery: falling, then lying (sk_procedural_push) */
    SK_PROCEDURAL_HANGING = 6   /* off a drop deeper than its height: lowering itself from the edge, hanging;
                                   then AIRBORNE (letting go) and LANDING below */
} sk_procedural_mode;

typedef struct sk_procedural_foot {
    sk_vec3 heel, toe, ankle;  /* world, after the frame's IK */
    bool stance;               /* the support foot (pinned), or both standing */
    sk_footstep step;          /* where it stands, or where it goes (swinging) */
    bool reached;
    sk_foot_event event;       /* this frame's contact event (locomotor.h; kind NONE: none) */
} sk_procedural_foot;

typedef struct sk_procedural_state {
    double time;
    sk_procedural_mode mode;
    sk_vec3 position;          /* the character's point; y: body ground height */
    float yaw;                 /* the facing: the caller's, turned toward the fall line across a slope */
    sk_vec3 velocity;
    float speed;               /* m/s along the ground */
    bool backward;             /* walking backward (velocity against the facing) */
    float run;                 /* 0 walk .. 1 run */
    float step_length;         /* current step length (m) */
    float step;                /* arc parameter s of the swinging foot, 0..1 */
    uint32_t support;          /* index of the support leg */
    float body_height;         /* body joint height (world y) */
    float slope;               /* signed rise per metre ahead */
    float crouch;              /* how far the body is lowered by sk_procedural_crouch (m; 0 upright) */
    /* The torso's lean (rad): forward about the lateral axis (+ forward:
     * crouched, speeding up, uphill; - slowing down, downhill) and sideways
     * about the forward axis (+ toward the left: into a left turn). */
    float lean_pitch, lean_roll;
    float balance;             /* 0..1: balancing at an edge ahead (arms out, hips back), standing */
    sk_vec3 push_offset;       /* the body's offset from the caller's point after a push (m, world, y 0) */
    sk_mat4 root;              /* world = root x model */
    uint32_t rays;
    sk_procedural_foot feet[2];
} sk_procedural_state;

/* Checks the description and creates the walker; memory from alloc (NULL =
 * C library). */
SK_API sk_result sk_procedural_create(const sk_procedural_desc *desc, const sk_allocator *alloc, sk_procedural **out,
                                      sk_error *err);
/* Frees the walker (NULL: nothing happens). */
SK_API void sk_procedural_destroy(sk_procedural *P);
/* Standing at (x, z) facing yaw, feet side by side on the ground. */
SK_API sk_result sk_procedural_reset(sk_procedural *P, float x, float z, float yaw, sk_error *err);
/* One frame: the character's new ground point and facing (dt in (0, 1] s);
 * pose (the skeleton's) gets the local pose. */
SK_API sk_result sk_procedural_update(sk_procedural *P, double dt, float x, float z, float yaw, sk_pose *pose,
                                      sk_error *err);
/* Starts a jump (a crouch, then the take-off) if standing or walking;
 * false otherwise. */
SK_API bool sk_procedural_jump(sk_procedural *P);
/* Pointing: from the next update on, arm `arm` (0 ..
 * arm_count - 1) points at the world point `target`: its chain shoulder ->
 * elbow -> hand is solved by FABRIK (sk_ik_solve_model on the walker's model
 * matrices, at most 16 iterations,
 * allocation-free) toward the point one arm's length and a little more along
 * the line from the shoulder to the target, so the arm straightens along that
 * line, within desc.limits of its joints when given
 * (sk_mannequin_arm_limits); the result is blended over the arm swing by
 * weight (0 = the swing, 1 = pointing: sk_ik_options.fk_blend = 1 - weight).
 * A target behind the body or out of the joints' range gives the nearest
 * pose the limits allow; a target at the shoulder itself leaves the swing.
 * target NULL or weight 0 stops pointing. false (nothing changed) for a NULL
 * walker, an arm out of range, or a non-finite target or weight outside
 * [0, 1]. */
SK_API bool sk_procedural_point_at(sk_procedural *P, uint32_t arm, const sk_vec3 *target, float weight);
/* Crouched walking: from the next update on, the body is lowered (over
 * about a quarter second) so the skeleton's highest joint (the head's)
 * stays under `height` metres above the ground under the character, as
 * under a low ceiling, while it walks, runs or stands; the knees bend and the
 * steps shorten with the depth (to 0.6 of the step at the deepest). The
 * body goes at most 0.4 leg lengths lower: a height below what that reaches
 * gives the deepest crouch (state.crouch says how deep it is). 0 stands up
 * again; a height at or above the standing one changes nothing. Jumps,
 * falls and landings go on as before under it. false (nothing changed) for
 * a NULL walker or a negative or non-finite height. */
SK_API bool sk_procedural_crouch(sk_procedural *P, float height);
/* Gaze: from the next update on, the head looks at the world point
 * `target`: the chain from the spine (the body joint's child toward the
 * skeleton's highest joint) to the highest joint (the head) is turned by the
 * IK layer's aim solver (sk_ik_solve_model, SK_IK_AIM), the turn shared
 * along the chain, so the head's rest forward (the character's +Z carried
 * in the head's frame) points at the target with the head upright, within
 * desc.limits of those joints when given and at most 1.2 rad (69 degrees)
 * from the walked pose: a target further round turns the head that far
 * toward it. The result is blended over the walked pose by weight (0..1).
 * target NULL or weight 0 stops looking (true). false (nothing changed) for
 * a NULL walker, a non-finite target, a weight outside [0, 1] or a skeleton
 * without such a chain (more than 8 joints from the spine to the head). */
SK_API bool sk_procedural_look_at(sk_procedural *P, const sk_vec3 *target, float weight);
/* A push: the body's velocity changes by dv (m/s, world; its vertical part
 * is ignored) from the next update on. The body runs ahead of (behind,
 * beside) the caller's point by an offset (state.push_offset) that a
 * critically damped spring draws back within about a second, and the walker
 * steps for it: recovery steps, each planted foot staying where it stands
 * until it lifts. A push whose capture point (offset + velocity / sqrt(g /
 * hip height), where a step would have to land to stop the body) is further
 * than 0.9 leg lengths cannot be caught: the walker falls the way it was
 * pushed (mode SK_PROCEDURAL_FALLEN) and comes to rest lying on the ground
 * over 0.7 s; it stays there, the caller's point ignored, until
 * sk_procedural_reset. While falling or lying further pushes change nothing
 * (true). false for a NULL walker, a non-finite dv or one over 50 m/s. */
SK_API bool sk_procedural_push(sk_procedural *P, sk_vec3 dv);
/* The walker's state after the last update (NULL for NULL). */
SK_API const sk_procedural_state *sk_procedural_get_state(const sk_procedural *P);
/* The world matrices of the pose the last sk_procedural_update wrote:
 * joint_count column-major matrices, world = state.root x model (what
 * sk_local_to_model of that pose with root = &sk_procedural_get_state(P)->root
 * gives, to float rounding), in metres. The walker computes them anyway to
 * place the legs and arms (the joints they read once, then the subtrees each
 * step changes, then the joints no step touches), so skinning or a renderer
 * reads them here instead of running its own forward kinematics. Owned by
 * the walker: valid until its next update, reset or destroy; read-only. NULL
 * for a NULL walker and before the first update after create or reset.
 * Thread safety: as the walker's (one thread at a time per walker). */
SK_API const sk_mat4 *sk_procedural_model(const sk_procedural *P);

#ifdef __cplusplus
}
#endif
#endif
