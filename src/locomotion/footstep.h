/* Private to the locomotion layer: the ground and footstep helpers both
 * runtimes place feet with (footstep.c), the semi-procedural locomotor
 * (locomotor.c) and the IK-only walker (procedural.c): a ground probe that
 * casts the rays down onto the terrain (world/terrain.h) and counts them,
 * footstep placement from a heel and a toe ray with the step-edge rule
 * (seed 002 §5.2.1), the foot's rotation on the ground; and the few small
 * helpers the two share (horizontal vectors, yaw turns, smoothing weights,
 * world rotations down a joint chain, the body joint of the legs). Not
 * installed. */
#ifndef SKELANIM_LOCOMOTION_FOOTSTEP_H
#define SKELANIM_LOCOMOTION_FOOTSTEP_H

#include "core/math_inline.h"
#include "skelanim/locomotion/locomotor.h"
#include "skelanim/world/terrain.h"

#include <math.h>

/* ---- small shared helpers ---- */
/* v without its vertical part. */
static inline sk_vec3 vec3_horizontal(sk_vec3 v) { return sk_vec3_make(v.x, 0, v.z); }
/* v turned by a about +Y (yaw). */
static inline sk_vec3 vec3_turn_y(sk_vec3 v, float a) {
    float c = cosf(a), s = sinf(a);
    return sk_vec3_make(c * v.x + s * v.z, v.y, -s * v.x + c * v.z);
}
/* The world rotation of a joint whose parent's world rotation is pr and
 * whose local rotation is lr: their product, normalised only when visibly
 * off unit length (poses hold unit rotations, whose products stay unit
 * within rounding). What the pose's model matrices hold, without reading a
 * rotation back out of a matrix (skm_mat4_rotation) when the parent's is
 * known. */
static inline sk_quat child_world_rot(sk_quat pr, sk_quat lr) {
    sk_quat q = skm_quat_mul(pr, lr);
    float n2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    return fabsf(n2 - 1.0f) > 1e-5f ? skm_quat_normalize(q) : q;
}
/* Weight of one step of an exponential smoothing of time constant tau. */
static inline float smoothing_weight(double dt, float tau) { return tau > 0 ? (float)(1.0 - exp(-dt / tau)) : 1.0f; }

/* The nearest joint of which every one of joints[n] (the legs' hips)
 * descends, above the first one's parent: the default body joint; -1 if
 * none. */
int32_t legs_common_ancestor(const sk_skeleton *s, const uint32_t *joints, uint32_t n);

/* ---- the ground probe ---- */
/* Where rays start and how far they look: from y_ref + max_up (plus 1.5 x
 * the horizontal distance from center, for slopes ahead) down over
 * max_up + max_down (plus 3 x that distance). A NULL terrain callback is
 * flat ground at y = 0. rays counts the casts. */
typedef struct ground_probe {
    sk_terrain terrain;
    float max_up, max_down;
    sk_vec3 center;
    uint32_t rays;
    /* The step-edge rule does not move a foot onto ground more than this
     * above or below where its heel was found (a ledge is not a tread);
     * 0: no bound. */
    float edge_max_dh;
    /* The step-edge rule's hysteresis (footstep_place): 0 keeps a leg's last
     * direction of move while that move is under a foot's length; h > 0
     * keeps it while it is longer than the other way by less than h of the
     * foot (the locomotor: 0.5). */
    float edge_hysteresis;
} ground_probe;

/* One ray down at (x, z) from above y_ref (the reach above); true with the
 * hit when it meets the ground. */
bool ground_probe_cast(ground_probe *G, float x, float z, float y_ref, sk_terrain_hit *hit);

/* Regular stairs ahead: rays down every TREADS_WINDOW / (TREADS_RAYS - 1)
 * along u (unit, horizontal) from o over TREADS_WINDOW. A riser is a
 * change of height of more than TREADS_MIN_RISE between neighbouring rays
 * that bisection places within about a millimetre, where most of the change
 * happens (a steep ramp or bump changes as much between rays, but evenly).
 * True when there are at least three risers, all up or all down, of like
 * height (each within a quarter of their mean) and evenly spaced (each gap
 * within TREADS_EVEN of their mean): *depth is the mean gap along u (m),
 * *rise the risers' mean height (m, up > 0), *first the distance from o
 * to the first riser. False on any ray that misses. At most TREADS_RAYS +
 * TREADS_MAX x TREADS_BISECT rays (57). */
bool ground_probe_treads(ground_probe *G, sk_vec3 o, sk_vec3 u, float y_ref, float *depth, float *rise,
                         float *first);

/* ---- footsteps ---- */
/* A footstep whose heel is at base (horizontal), foot along foot_dir_c
 * (character space, its length the foot's) turned by yaw: heel and toe rays
 * and the step-edge rule; prefer (may be NULL) keeps the last edge move. */
void footstep_place(ground_probe *G, sk_vec3 foot_dir_c, sk_vec3 base, float yaw, double when, int *prefer,
                    sk_footstep *out);
/* The foot frame: character frame turned by yaw, tilted so heel -> toe lies
 * on the ground with its up toward normal. */
sk_quat footstep_rotation(float yaw, sk_vec3 foot_dir_c, sk_vec3 heel, sk_vec3 toe, sk_vec3 normal);

/* The contact event of a foot whose ground contact went from was to now
 * (locomotor.h, sk_foot_event): DOWN onto `down`, UP from `up`, with the
 * ankle's speed over the frame (dt s); kind NONE when nothing changed. */
void footstep_event(sk_foot_event *e, bool was, bool now, const sk_footstep *down, const sk_footstep *up,
                    sk_vec3 ankle_before, sk_vec3 ankle_now, double dt);

#endif
