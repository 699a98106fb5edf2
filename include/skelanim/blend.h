/* skelanim — pose blending: weighted multi-pose blends, per-joint masks,
 * additive and override layers, crossfades with phase synchronisation,
 * gradient-band blend-space weights and the character motor.
 *
 * Every per-frame function here writes into caller-owned buffers and
 * allocates nothing. A "pose" is an array of skeleton->joint_count local
 * transforms plus (optionally) skeleton->weight_total morph weights. */
#ifndef SKELANIM_BLEND_H
#define SKELANIM_BLEND_H

#include "player.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Weighted blending of any number of poses ---------------------------- */

/* Which channels a pose animates (bits per joint, optional): a pose only
 * contributes to the channels it has. Build it from a clip with
 * sk_clip_channel_mask. */
enum { SK_CHANNEL_T = 1, SK_CHANNEL_R = 2, SK_CHANNEL_S = 4, SK_CHANNEL_W = 8, SK_CHANNEL_ALL = 15 };

typedef struct sk_blend_input {
    const sk_transform *local;  /* joint_count transforms */
    const float *morph;         /* weight_total floats, or NULL (contributes no morph weights) */
    float weight;               /* >= 0; negative or NaN counts as 0 */
    const float *mask;          /* per-joint factor 0..1 (multiplies weight), or NULL = 1 */
    const uint8_t *channels;    /* per-joint SK_CHANNEL_* bits, or NULL = all channels */
} sk_blend_input;

typedef enum sk_blend_rotation {
    /* Default: weighted sum of hemisphere-aligned quaternions, normalised
     * (sign-corrected nlerp; order-independent). */
    SK_BLEND_NLERP = 0,
    /* Sequential slerp accumulation in input order, as three.js's
     * PropertyMixer does: acc = x_1; W = w_1; then W += w_k, acc =
     * slerp(acc, x_k, w_k / W). With two inputs this is the exact slerp
     * slerp(x_1, x_2, w_2 / (w_1 + w_2)). Translation/scale/morph weights are
     * the same weighted mean in both modes. */
    SK_BLEND_SLERP = 1
} sk_blend_rotation;

typedef struct sk_blend_options {
    sk_blend_rotation rotation;
    /* Default (false): per channel, where the contributing weights sum W < 1
     * the rest pose fills the remaining 1 - W (seed 000 §4.2, example code 9);
     * where W >= 1 the contributions are normalised by W. true: always
     * normalise (rest only where W == 0). */
    bool no_rest_fill;
} sk_blend_options;

/* out = blend of n poses (out may alias none of the inputs). opts may be NULL.
 * out_morph may be NULL. Fails only on invalid arguments. */
sk_result sk_blend_poses(const sk_skeleton *skel, const sk_blend_input *in, uint32_t n,
                         const sk_blend_options *opts, sk_transform *out, float *out_morph, sk_error *err);

/* Two-pose convenience: out = a*(1-t) + b*t per joint (t scaled by mask[j] if
 * mask is non-NULL), rotations by slerp when use_slerp, otherwise nlerp, both
 * on the shortest arc. out may alias a. Morph arrays may be NULL. */
void sk_blend_two(const sk_skeleton *skel, const sk_transform *a, const sk_transform *b, float t,
                  const float *mask, bool use_slerp, sk_transform *out,
                  const float *morph_a, const float *morph_b, float *out_morph);

/* Per-joint channel bits of the tracks in a clip (SK_CHANNEL_*), for
 * sk_blend_input.channels. out holds joint_count bytes. */
sk_result sk_clip_channel_mask(const sk_clip *clip, const sk_skeleton *skel, uint8_t *out, sk_error *err);

/* ---- Masks (seed 000 §4.5, seed 003 §4.3: a 0..1 value per joint) ------- */

/* Sets every entry to value. */
void sk_mask_fill(const sk_skeleton *skel, float *mask, float value);
/* Sets the named joint and all its descendants to value. */
sk_result sk_mask_set_subtree(const sk_skeleton *skel, const char *joint, float value, float *mask, sk_error *err);
/* Sets only the named joints (a list) to value. */
sk_result sk_mask_set_joints(const sk_skeleton *skel, const char *const *joints, uint32_t count, float value,
                             float *mask, sk_error *err);

/* ---- Additive poses and the layer stack --------------------------------- */

/* delta = pose relative to reference, per joint: t = p.t - r.t,
 * r = inverse(r.r) * p.r (applied on the right: local-space additive),
 * s = p.s / r.s (component-wise; a zero reference scale gives 1). Morph:
 * p - r. Use a clip's first frame or another clip's pose as the reference. */
void sk_pose_make_additive(const sk_skeleton *skel, const sk_transform *pose, const sk_transform *reference,
                           sk_transform *out_delta, const float *morph, const float *morph_ref, float *out_morph_delta);
/* io = io (+) weight * delta: t += w*dt, r = r * slerp(identity, dr, w),
 * s *= lerp(1, ds, w); weight per joint scaled by mask (NULL = 1). */
void sk_pose_apply_additive(const sk_skeleton *skel, sk_transform *io, const sk_transform *delta, float weight,
                            const float *mask, float *io_morph, const float *morph_delta);

typedef enum sk_layer_mode {
    SK_LAYER_OVERRIDE = 0, /* io = blend(io, pose, weight * mask) */
    SK_LAYER_ADDITIVE = 1  /* io = io (+) weight * mask * pose (pose is a delta) */
} sk_layer_mode;

typedef struct sk_layer {
    sk_layer_mode mode;
    float weight;              /* 0..1 */
    const float *mask;         /* per joint, or NULL = whole body */
    const sk_transform *pose;  /* the layer's pose (OVERRIDE) or delta (ADDITIVE) */
    const float *morph;        /* optional morph weights / deltas */
} sk_layer;

/* Applies layers in order on top of io (the base layer's pose), like an
 * engine's animation layer stack. Rotations of override layers by nlerp. */
sk_result sk_layers_apply(const sk_skeleton *skel, sk_transform *io, float *io_morph, const sk_layer *layers,
                          uint32_t n, sk_error *err);

/* ---- Crossfades and phase synchronisation -------------------------------- */

typedef enum sk_fade_curve { SK_FADE_LINEAR = 0, SK_FADE_SMOOTHSTEP = 1 } sk_fade_curve;

/* Curve value for x in [0, 1] (clamped): x, or 3x^2 - 2x^3. */
float sk_fade_eval(sk_fade_curve curve, float x);

/* A fader keeps the weights of up to SK_FADER_MAX sources (clips, blend
 * spaces, states — the caller's ids). Starting a transition to a source
 * fades it in over a duration while every other source fades out from the
 * weight it has at that moment: interrupting a transition with another starts
 * from the current weights, so the blended pose is continuous (no pop). When
 * more than SK_FADER_MAX sources would be active the weakest is dropped and
 * its weight given to the others proportionally. Weights always sum to 1. */
#define SK_FADER_MAX 8

typedef struct sk_fader {
    uint32_t count;
    uint32_t id[SK_FADER_MAX];
    float weight[SK_FADER_MAX];  /* current weights (sum 1) */
    float start[SK_FADER_MAX];   /* weights when the current transition began */
    uint32_t target;             /* id being faded in */
    float duration, elapsed;
    sk_fade_curve curve;
} sk_fader;

/* Starts with one source at full weight. */
void sk_fader_init(sk_fader *f, uint32_t id);
/* Begins a transition to id (duration <= 0: an immediate cut). If id is
 * already active it fades back in from its current weight. */
void sk_fader_start(sk_fader *f, uint32_t id, float duration, sk_fade_curve curve);
/* Advances the transition; sources that reach weight 0 are removed. */
void sk_fader_update(sk_fader *f, float dt);
bool sk_fader_in_transition(const sk_fader *f);
/* Weight of id (0 if not active). */
float sk_fader_weight(const sk_fader *f, uint32_t id);

/* Phase synchronisation (seed 002 §4.1: cycles compared on a normalised time
 * circle; seed 000 §4.3 notes clips of different lengths do not blend well
 * unless their times are scaled). Advances n looping players so that they
 * keep a common phase: the group's cycle length is the weight-averaged
 * duration D = sum w_i d_i / sum w_i, the common phase advances by dt / D,
 * and every player moves by that phase times its own period — a 1.0 s walk
 * and a 0.7 s run blended 50/50 both complete a cycle every 0.85 s. Each
 * player's own speed scales the step (the first player's speed is used for
 * the group). Markers are not reported here (use sk_player_step per player
 * with dt_i = the returned phase step * period_i). Returns the phase step. */
double sk_players_advance_synced(sk_player *const *players, const float *weights, uint32_t n, double dt);

/* ---- Blend spaces: gradient band interpolation ---------------------------
 * Seed 002 §4.2, after Johansen (2009). Sample points p_i (1D or 2D
 * parameters, e.g. speed or a velocity vector); for a query p the influence
 *   h_i(p) = min_{j != i} (1 - (p_i p . p_i p_j) / |p_i p_j|^2)     (24)
 * clamped at 0 and normalised: w_i = h_i / sum_j h_j                (23).
 * The polar form measures the vectors p_i p_j and p_i p in (radius change
 * relative to the mean radius, angle * alpha) coordinates, formulas (25),
 * (26) and the pseudo-code "Kod 2". Properties (tested): exact at samples
 * (w_i(p_i) = 1), weights sum to 1, continuous in p, local (samples beyond a
 * nearer neighbour get 0). */
typedef enum sk_blendspace_mode {
    SK_BLENDSPACE_CARTESIAN = 0,
    SK_BLENDSPACE_POLAR = 1   /* 2D only (velocity-like parameters around the origin) */
} sk_blendspace_mode;

/* points: n * dim floats (dim 1 or 2); query: dim floats; out_weights: n.
 * Fails on dim outside 1..2, n == 0, duplicate points or non-finite input. */
sk_result sk_blendspace_weights(const float *points, uint32_t n, uint32_t dim, const float *query,
                                sk_blendspace_mode mode, float *out_weights, sk_error *err);

/* ---- Character motor (seed 000 §4.4, example code 10) --------------------- */

typedef struct sk_motor_desc {
    float walk_speed;      /* m/s of the walk clip, 0 = 1.4 */
    float run_speed;       /* m/s of the run clip, 0 = 4.0 (> walk_speed) */
    float crouch_speed;    /* maximum speed while crouched, 0 = 1.0 */
    float acceleration;    /* m/s^2 towards the wanted velocity, 0 = 8 */
    float turn_rate;       /* rad/s, 0 = 10 */
    float crouch_rate;     /* crouch fraction per second, 0 = 4 */
    float jump_speed;      /* initial upward speed, 0 = 4.5 */
    float gravity;         /* m/s^2, 0 = 9.81 */
    float crouch_override; /* seed 000's crouchOverridePowerForAnimation, 0 = 1 */
} sk_motor_desc;

typedef struct sk_motor_input {
    sk_vec3 direction; /* wanted horizontal direction (XZ; y ignored), length = fraction of run speed (<= 1) */
    bool run;          /* false: at most walk speed */
    bool crouch;
    bool jump;         /* starts a jump when on the ground */
} sk_motor_input;

enum { SK_MOTOR_IDLE = 0, SK_MOTOR_WALK = 1, SK_MOTOR_RUN = 2, SK_MOTOR_CROUCH = 3, SK_MOTOR_CLIPS = 4 };

typedef struct sk_motor {
    sk_motor_desc desc;    /* with defaults filled in */
    sk_vec3 velocity;      /* horizontal velocity (y: vertical speed while airborne) */
    float speed;           /* horizontal speed */
    float yaw;             /* facing, radians about +Y */
    float crouch;          /* 0..1 crouch fraction */
    float height;          /* height above ground while jumping (0 on the ground) */
    bool grounded;
    float weights[SK_MOTOR_CLIPS]; /* idle, walk, run, crouch: sum 1 */
    float blend_param[2];  /* blend-space parameter: local velocity (x = sideways, y = forward) */
} sk_motor;

void sk_motor_init(sk_motor *m, const sk_motor_desc *desc /* NULL = defaults */);
/* One update: the same function serves the player (input from a device) and
 * AI characters (input from a planner). */
void sk_motor_update(sk_motor *m, const sk_motor_input *in, float dt);

#ifdef __cplusplus
}
#endif
#endif
