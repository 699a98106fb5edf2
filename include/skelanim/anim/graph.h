/* skelanim — animation state machines (a small animation graph).
 *
 * A graph is an immutable description loaded from JSON and shared by any
 * number of characters; an instance holds one character's parameters,
 * playback state and scratch poses (allocated once at creation; update and
 * evaluate allocate nothing).
 *
 * JSON description (docs/state-machine.md has the full reference):
 *   {
 *     "parameters": [ {"name": "speed", "type": "float", "default": 0},
 *                     {"name": "crouch", "type": "bool"},
 *                     {"name": "jump", "type": "trigger"} ],
 *     "machine": {
 *       "initial": "idle",
 *       "states": [
 *         {"name": "idle", "clip": "idle"},                      clip state
 *         {"name": "move", "blendspace": {                         blend space state
 *            "parameters": ["speed"], "mode": "cartesian",
 *            "samples": [{"clip": "walk", "at": [1.4]}, {"clip": "run", "at": [4.0]}]}},
 *         {"name": "sub", "machine": { ... }},                    nested machine
 *         {"name": "walk", "external": "locomotion", "cycle": 1.07} external state
 *       ],
 *       "transitions": [
 *         {"from": "idle", "to": "move", "duration": 0.25, "curve": "smoothstep", "sync": true,
 *          "exit_time": 0.5, "conditions": [{"param": "speed", "op": ">", "value": 0.1}]},
 *         {"from": "*", "to": "idle", "conditions": [{"param": "jump"}]}
 *       ]
 *     }
 *   }
 * State options: "speed" (playback rate, default 1, negative = backwards; a
 * magnitude above SK_GRAPH_MAX_SPEED is refused at load),
 * "loop": "repeat" | "clamp" | "ping_pong" (default repeat).
 * Conditions (all must hold): float parameters with op > < >= <= == != and a
 * number; bool parameters with "value": true/false (default true); trigger
 * parameters hold while set and are consumed when their transition fires.
 * "exit_time": the source state must have played at least this many cycles
 * (normalised time since it was entered, e.g. 0.9 or 2.5). Transitions from
 * "*" (any state) are checked first, then those of the current state, in file
 * order; the first that holds fires (never to the state that is already the
 * target). A firing transition may interrupt one in flight: the fade starts
 * from the current weights (sk_fader), so the pose does not jump.
 * "sync": true starts the target at the source's phase and, while the fade
 * runs, advances all states of that machine at a common phase rate (dt over
 * the weight-averaged cycle duration, as sk_players_advance_synced does).
 * Blend-space clips are always phase-synchronised.
 * External states take their pose from the caller: sk_graph_evaluate calls
 * the instance's pose source (sk_graph_set_pose_source) with the state's
 * "external" name whenever the state has weight. This is how a system that
 * makes its own pose joins the machine — the semi-procedural locomotor
 * (locomotion/locomotor.h: its group weight is the state's global weight,
 * sk_locomotor_set_group_weight) — while the machine's transitions and
 * crossfades decide when it plays. "cycle" (seconds, default 1) gives such
 * a state a normalised time for exit_time and sync; it adds no root motion.
 * Optional top-level "root_motion": {"joint": "hips"} extracts that joint's
 * horizontal motion and yaw from every clip (see sk_graph_root_motion).
 * Errors name the JSON path, e.g. "/machine/states/2/clip: no clip named 'jog'".
 */
#ifndef SKELANIM_GRAPH_H
#define SKELANIM_GRAPH_H

#include "skelanim/anim/rootmotion.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest playback rate a state may have (JSON "speed"); a larger
 * magnitude is refused at load (SK_ERR_INVALID_DATA naming the path). */
#define SK_GRAPH_MAX_SPEED 1000.0

typedef struct sk_graph sk_graph;
typedef struct sk_graph_instance sk_graph_instance;

typedef enum sk_param_type { SK_PARAM_FLOAT = 0, SK_PARAM_BOOL = 1, SK_PARAM_TRIGGER = 2 } sk_param_type;

/* Graphs are built by a loader (io/graph_json.h: sk_graph_load_json). */
SK_API void sk_graph_destroy(sk_graph *g);

/* Number of parameters the graph declares. */
SK_API uint32_t sk_graph_param_count(const sk_graph *g);
/* Index of a parameter, or -1. */
SK_API int32_t sk_graph_find_param(const sk_graph *g, const char *name);
/* Name of parameter i (NULL when i is out of range). */
SK_API const char *sk_graph_param_name(const sk_graph *g, uint32_t i);
/* Type of parameter i (SK_PARAM_FLOAT when i is out of range). */
SK_API sk_param_type sk_graph_param_type(const sk_graph *g, uint32_t i);

/* Creates the playback state of one character for graph g (g must outlive
 * it); memory from alloc (NULL = C library). */
SK_API sk_result sk_graph_instance_create(const sk_graph *g, const sk_allocator *alloc, sk_graph_instance **out,
                                          sk_error *err);
/* Frees an instance (NULL: nothing happens). */
SK_API void sk_graph_instance_destroy(sk_graph_instance *inst);

/* Parameters by name (fail with a message naming unknown parameters or a
 * type mismatch) or by index (no checks beyond the range). Bool and trigger
 * values are stored as 0/1. */
SK_API sk_result sk_graph_set_float(sk_graph_instance *inst, const char *name, float value, sk_error *err);
/* Sets a bool parameter by name (stored as 0 or 1). */
SK_API sk_result sk_graph_set_bool(sk_graph_instance *inst, const char *name, bool value, sk_error *err);
/* Sets a trigger parameter by name; it holds until a transition it
 * conditions fires. */
SK_API sk_result sk_graph_set_trigger(sk_graph_instance *inst, const char *name, sk_error *err);
/* Sets parameter index to value (nothing when index is out of range). */
SK_API void sk_graph_set_param(sk_graph_instance *inst, uint32_t index, float value);
/* Parameter index's value (0 when index is out of range). */
SK_API float sk_graph_get_param(const sk_graph_instance *inst, uint32_t index);

/* Fires the transitions whose conditions hold, then advances time by dt
 * seconds (>= 0) and the fades. A negative or non-finite dt changes nothing;
 * a huge one moves each clip by at most SK_PLAYER_MAX_STEP_CYCLES loops
 * (player.h). */
SK_API void sk_graph_update(sk_graph_instance *inst, double dt);
/* Root motion of the last update (identity unless the description has
 * "root_motion": {"joint": NAME}): the blended delta of every playing clip,
 * whose poses are then evaluated in place (sk_root_motion_strip). */
SK_API sk_root_delta sk_graph_root_motion(const sk_graph_instance *inst);
/* The pose of an external state: write the pose of `source` into out (the
 * graph's skeleton; every joint). Return SK_OK or an error (then evaluate
 * fails with it). */
typedef sk_result (*sk_graph_pose_fn)(void *user, const char *source, sk_pose *out, sk_error *err);
/* Sets (fn NULL: clears) the source of every external state's pose. */
SK_API void sk_graph_set_pose_source(sk_graph_instance *inst, sk_graph_pose_fn fn, void *user);
/* How many external states (at any level) take their pose from `source`. */
SK_API uint32_t sk_graph_source_count(const sk_graph *g, const char *source);
/* Global weight (contribution to the pose, 0..1) of the external states
 * whose pose comes from `source`, at any level, right now: 0 when none is
 * active. A locomotor driven by the machine takes this as its group weight
 * (sk_locomotor_set_group_weight). */
SK_API float sk_graph_source_weight(const sk_graph_instance *inst, const char *source);
/* The current pose (must fit the graph's skeleton: sk_pose_check). An
 * external state with weight and no pose source fails with a message naming
 * it. */
SK_API sk_result sk_graph_evaluate(sk_graph_instance *inst, sk_pose *out, sk_error *err);

typedef struct sk_graph_state_info {
    const char *name;     /* the state's name */
    uint32_t depth;       /* 0 for states of the top machine */
    float weight;         /* weight inside its machine */
    float global_weight;  /* product of the weights along the path: contribution to the pose */
    bool current;         /* the machine's current (target) state */
    double normalized_time; /* cycles played since the state was entered */
} sk_graph_state_info;

/* Lists the active states of every machine level (depth first); returns the
 * total number (may exceed cap; only cap are written). */
SK_API uint32_t sk_graph_active_states(const sk_graph_instance *inst, sk_graph_state_info *out, uint32_t cap);
/* Name of the top machine's current state. */
SK_API const char *sk_graph_current_state(const sk_graph_instance *inst);

#ifdef __cplusplus
}
#endif
#endif
