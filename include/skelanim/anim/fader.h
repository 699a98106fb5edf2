/* skelanim — crossfades between sources and phase-synchronised playback.
 * Plain structs in caller memory; nothing allocates. */
#ifndef SKELANIM_ANIM_FADER_H
#define SKELANIM_ANIM_FADER_H

#include "skelanim/anim/player.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Crossfades and phase synchronisation -------------------------------- */

typedef enum sk_fade_curve { SK_FADE_LINEAR = 0, SK_FADE_SMOOTHSTEP = 1 } sk_fade_curve;

/* Curve value for x in [0, 1] (clamped): x, or 3x^2 - 2x^3. */
SK_API float sk_fade_eval(sk_fade_curve curve, float x);

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
    double duration, elapsed; /* seconds */
    sk_fade_curve curve;
} sk_fader;

/* Starts with one source at full weight. */
SK_API void sk_fader_init(sk_fader *f, uint32_t id);
/* Begins a transition to id (duration <= 0: an immediate cut). If id is
 * already active it fades back in from its current weight. */
SK_API void sk_fader_start(sk_fader *f, uint32_t id, double duration, sk_fade_curve curve);
/* Advances the transition; sources that reach weight 0 are removed. */
SK_API void sk_fader_update(sk_fader *f, double dt);
/* True while more than one source has weight (a crossfade is running). */
SK_API bool sk_fader_in_transition(const sk_fader *f);
/* Weight of id (0 if not active). */
SK_API float sk_fader_weight(const sk_fader *f, uint32_t id);

/* Phase synchronisation: cycles compared on a normalised time circle, so
 * that clips of different lengths blend in step. Advances n looping players
 * so that they keep a common phase: the group's cycle length is the weight-averaged
 * duration D = sum w_i d_i / sum w_i, the common phase advances by dt / D,
 * and every player moves by that phase times its own period — a 1.0 s walk
 * and a 0.7 s run blended 50/50 both complete a cycle every 0.85 s. Each
 * player's own speed scales the step (the first player's speed is used for
 * the group). Markers are not reported here (use sk_player_step per player
 * with dt_i = the returned phase step * period_i). Returns the phase step. */
SK_API double sk_players_advance_synced(sk_player *const *players, const float *weights, uint32_t n, double dt);

#ifdef __cplusplus
}
#endif
#endif
