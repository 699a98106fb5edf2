/* skelanim — playback state per instance, event markers, root motion.
 *
 * A clip is shared, read-only data; an sk_player is the per-instance playback
 * state: local time that runs at its own speed, may run backwards, may be
 * paused, and can be set to any time for scrubbing. sk_player is a plain
 * struct owned by the caller: no allocation, copy it freely.
 *
 * Time model. The player keeps an "unrolled" playback position split into an
 * integer cycle and a position inside the cycle (for precision over long
 * runs). The cycle period P is the clip duration d for REPEAT and 2d for
 * PING_PONG (forward then backward); CLAMP has one cycle [0, d] and stops at
 * the ends. The clip time to sample is derived from the position.
 *
 * Event rule (markers). A marker at clip time m is reported when, during one
 * sk_player_advance, the playhead moves ONTO or PAST it: moving forward over
 * the unrolled interval (a, b] or backward over [b, a). The position it
 * starts from is never reported (so a marker is not reported twice when the
 * playhead stops exactly on it and then moves on, and a marker at the start
 * position is not reported by the first update). Every crossing is reported,
 * in playback order, once per crossing: a step that wraps k loops reports
 * each marker about k times (each with its cycle index). In REPEAT a marker
 * at m == d is the same instant as m == 0. In PING_PONG a marker is crossed
 * on the way forward and on the way back (a marker at exactly 0 or d once per
 * turn, reported with direction -1 at 0 and +1 at d). In CLAMP markers are crossed at most once per pass, and nothing is
 * reported while the playhead rests at an end. The callback may return false
 * to drop the remaining events of this step (the time still advances fully).
 * Seeking (scrubbing) reports nothing. A zero-length clip reports nothing.
 *
 * Limits (a huge but finite speed or step must not overflow the
 * cycle counter or hang). One step moves at most SK_PLAYER_MAX_STEP_CYCLES
 * periods: a longer step (any finite dt * speed) is clamped to that many
 * periods, in its direction. Markers are reported for the first
 * SK_PLAYER_MAX_EVENT_CYCLES cycles a step crosses; the crossings after them
 * are dropped (the time still advances). The cycle counter saturates at
 * +-SK_PLAYER_MAX_CYCLE. Non-finite steps and speeds change nothing (a
 * non-finite speed is set as 0).
 */
#ifndef SKELANIM_ANIM_PLAYER_H
#define SKELANIM_ANIM_PLAYER_H

#include "skelanim/core/clip.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SK_PLAYER_MAX_STEP_CYCLES 1e9      /* periods one step may move */
#define SK_PLAYER_MAX_EVENT_CYCLES 4096     /* cycles whose markers one step reports */
#define SK_PLAYER_MAX_CYCLE 9007199254740992.0 /* 2^53: |cycle| saturates here */

typedef struct sk_player_desc {
    double duration;     /* clip length in seconds (sk_clip_duration); <= 0 plays a still pose */
    sk_loop_mode loop;   /* REPEAT, CLAMP or PING_PONG (clip.h) */
    float speed;         /* 0 means 1 (zeroed desc = normal speed); negative plays backwards */
    double start_time;   /* start offset in clip seconds (wrapped into the clip per loop mode) */
    bool paused;
} sk_player_desc;

typedef struct sk_player {
    /* Read these through the functions below; they are public only so the
     * struct can live in caller memory. */
    double duration;
    double period;       /* d (REPEAT), 2d (PING_PONG), d (CLAMP) */
    double pos;          /* position inside the cycle, [0, period) ([0, d] for CLAMP) */
    int64_t cycle;       /* completed cycles (negative when played backwards past 0) */
    float speed;
    bool paused;
    sk_loop_mode loop;
} sk_player;

/* Starts playback per desc (NULL: a zeroed desc, a still pose at normal
 * speed). */
SK_API void sk_player_init(sk_player *p, const sk_player_desc *desc /* NULL = zeroed */);
/* Sets the playback rate (negative plays backwards; non-finite gives 0). */
SK_API void sk_player_set_speed(sk_player *p, float speed);
/* Pauses or resumes (a paused player's advance moves nothing). */
SK_API void sk_player_set_paused(sk_player *p, bool paused);
/* Scrubbing: jump to a clip time (wrapped per the loop mode; for PING_PONG a
 * time in (d, 2d) is on the way back). Keeps the cycle count. No events. */
SK_API void sk_player_seek(sk_player *p, double clip_time);
/* Jump to a phase in [0, 1) of the cycle (PING_PONG: of the round trip). */
SK_API void sk_player_seek_phase(sk_player *p, double phase);
/* The time to sample the clip at, in [0, d]. */
SK_API double sk_player_clip_time(const sk_player *p);
/* Normalised time: position / period in [0, 1) (CLAMP: [0, 1]). This is the
 * phase used for synchronisation. */
SK_API double sk_player_phase(const sk_player *p);
/* Unrolled position: cycle * period + pos (loses precision after very long runs). */
SK_API double sk_player_unrolled(const sk_player *p);
/* True once a CLAMP player rests at the end it is heading to. */
SK_API bool sk_player_finished(const sk_player *p);

typedef struct sk_marker {
    const char *name;
    double time;         /* clip seconds in [0, d] */
} sk_marker;

typedef struct sk_event {
    const char *name;
    uint32_t marker;     /* index into the marker array */
    double clip_time;    /* the marker's time */
    int64_t cycle;       /* cycle in which it was crossed */
    double step_fraction;/* 0..1: where inside this step (for sub-frame timing) */
    int direction;       /* +1 forward in clip time, -1 backward */
} sk_event;

/* Return false to drop the rest of this step's events. */
typedef bool (*sk_event_fn)(void *user, const sk_event *ev);

/* Checks markers for sk_player_advance: sorted by time (non-decreasing),
 * finite, inside [0, duration]. */
SK_API sk_result sk_markers_validate(const sk_marker *markers, uint32_t count, double duration, sk_error *err);

/* Advances by dt seconds of global time (local step = dt * speed; nothing if
 * paused) and reports every marker crossed (see the event rule above).
 * markers must pass sk_markers_validate (may be NULL when count is 0; fn may
 * be NULL). Returns the number of events delivered. */
SK_API uint64_t sk_player_advance(sk_player *p, double dt, const sk_marker *markers, uint32_t marker_count,
                                  sk_event_fn fn, void *user);
/* Moves by a local-time step (already scaled by speed; pause is ignored). */
SK_API uint64_t sk_player_step(sk_player *p, double local_dt, const sk_marker *markers, uint32_t marker_count,
                               sk_event_fn fn, void *user);

#ifdef __cplusplus
}
#endif
#endif
