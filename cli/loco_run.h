/* skelanim command-line tool: a character walking a path over a terrain with
 * the semi-procedural locomotion runtime (issue #10), shared by `locomote`,
 * `bench locomotion` and `demo locomotion`; and the foot metrics the issue
 * defines, computed from the per-frame records exactly as from a trace:
 *   slide       per run of stance frames of a foot, the largest horizontal
 *               distance of the heel-toe midpoint from where it was at the
 *               run's first frame (max and mean over runs)
 *   contact     in stance, the smaller of the heel's and the toe's vertical
 *               distance to the ground below it
 *   penetration at any frame, how far heel or toe is below the ground
 *   skate       of the leg-frames in which the lower of heel and toe (above
 *               the ground under each) is within 2 cm of the ground, the
 *               share in which that point moved faster than 30 cm/s
 *               horizontally since the frame before. */
#ifndef SK_CLI_LOCO_RUN_H
#define SK_CLI_LOCO_RUN_H

#include "skelanim.h"
#include "terrain_spec.h"

#define LOCO_MAX_CLIPS 8
#define LOCO_GRAPH_BUILTIN "builtin"
/* The built-in machine: "idle" (the idle clip) and "locomotion" (the
 * locomotor: walk/run by its velocity blend space); idle -> locomotion when
 * the speed exceeds 0.1 m/s, locomotion -> idle once the speed is below it
 * and the locomotor reports its feet down (standing), 0.2 s smoothstep
 * crossfades. */
extern const char loco_builtin_graph[];

typedef struct loco_setup {
    const char *character;          /* file or @mannequin */
    const char *clips[LOCO_MAX_CLIPS]; /* clip names or indices in the character; none: "walk" and "run" */
    uint32_t nclips;
    const char *idle;               /* idle clip name; NULL: "idle" if the character has one */
    bool plain;                     /* clips with root motion only (the baseline) */
    bool procedural;                /* IK-only walking (seed 004): no clips */
    bool find_cycle;                /* the clips are captures, not loops: analyse their best cycle */
    double scale;                   /* .bvh: metres per file unit (0: as in the file) */
    /* State machine deciding idle / locomotion (anim/graph.h, an external
     * state "external": "locomotion"): a JSON file, LOCO_GRAPH_BUILTIN (the
     * idle/locomotion machine below, needs an idle clip), "none" (the
     * locomotor fades its idle clip itself), or NULL: the built-in machine
     * when the character has an idle clip, else none. */
    const char *graph;
    const sk_terrain *terrain;      /* NULL: flat at 0 */
    /* Clips from other files (loco_from.h: FILE[:CLIP], retargeted onto the
     * character, their feet levelled, their best cycle analysed and their
     * planted phases widened to the source's), after the character's own
     * (--clips; with from and no clips: none of its own). */
    const char *from[LOCO_MAX_CLIPS];
    uint32_t nfrom;
    /* from_reversed[i]: from[i] is played in reverse, a captured walk as the
     * backward walk (analysed with sk_motion_analyze_backward's option). */
    bool from_reversed[LOCO_MAX_CLIPS];
    double from_scale;              /* metres per unit of .bvh sources (0: the file's units) */
    /* A creature (@tripod, @quadruped, @hexapod: content/creature.h) walks
     * with the N-legged walker (locomotion/legged.h) in this gait: 0 its
     * own (the hexapod ALTERNATE, the tripod and the quadruped WAVE), else
     * 1 + an sk_legged_gait_kind. */
    int gait;
    /* The IK-only walker's gait parameters (procedural.h; 0: its defaults):
     * hip rise, step frequency (steps/s), the rest step's width and ahead (m). */
    double hip_rise, step_frequency, rest_width, rest_ahead;
} loco_setup;

typedef struct loco_char {
    sk_asset *asset;
    sk_leg_desc legs[SK_MOTION_GROUP_MAX_LEGS];
    uint32_t leg_count;
    sk_motion_analysis *an[LOCO_MAX_CLIPS];
    const sk_clip *clips[LOCO_MAX_CLIPS];
    uint32_t nclips;
    sk_clip *owned[LOCO_MAX_CLIPS];  /* the retargeted clips (setup.from), freed with c */
    float turned_deg[LOCO_MAX_CLIPS]; /* each clip turned by this to face +Z (a --from capture; degrees, + towards +X) */
    char label[LOCO_MAX_CLIPS][80];  /* each clip's name, " reversed" after a clip played in reverse */
    sk_motion_group *group;
    sk_locomotor *loco;
    sk_graph *graph;                /* with setup.graph: the machine and its instance */
    sk_graph_instance *gi;
    int32_t gp_speed, gp_standing;  /* its "speed" (float) and "standing" (bool) parameters, or -1 */
    sk_procedural *proc;            /* instead of loco with setup.procedural */
    sk_legged *legged;              /* instead of both for a creature (setup.gait) */
    sk_ik_limit *limits;            /* the mannequin's leg and arm limits (procedural), else NULL: checked */
    double jump_at;                 /* procedural: jump at this time (s); < 0: never */
    bool backward;                  /* procedural: the path walked facing backward (yaw + 180 degrees) */
    float face;                     /* the body's yaw relative to the path's (rad): 0 forward, pi backward,
                                       pi/2 with the path to the character's left (a sidestep) */
    bool point;                     /* procedural: the right arm (else the only one) points at point_at */
    sk_vec3 point_at;               /* world */
    double crouch;                  /* procedural: walk crouched under this height (m); 0: upright */
    bool look;                      /* procedural: the head looks at look_at */
    double push_at;                 /* procedural: push at this time (s); < 0: never */
    sk_vec3 push_dv;                /* the push's change of the body's velocity (m/s, world) */
    sk_vec3 look_at;                /* world */
    sk_ik_limit *arm_limits;        /* the mannequin's arm limits (procedural): applied when pointing */
    sk_locomotor_desc desc;         /* what loco was made from (more characters: sk_locomotor_create) */
    sk_transform *local;
    const sk_mat4 *world;           /* world matrices of the last frame (the runtime's: sk_locomotor_model,
                                       sk_procedural_model) */
    const sk_terrain *terrain;
    double analysis_ms;
} loco_char;

/* Both arms found by common joint names (upperarm_l, LeftArm, ...): 2, or 0. */
uint32_t loco_find_arms(const sk_skeleton *s, sk_arm_desc *out);
/* The --from and --from-reversed clips (nfrom and nrev specs) into s, with
 * scale (from_scale): the checks locomote and play share, each message after
 * "skelanim: " and prefix ("" or "play: "): at most LOCO_MAX_CLIPS of them,
 * none with procedural, --from-scale (scale_given) only with one of them.
 * Prints the error and returns false. */
bool loco_setup_from(loco_setup *s, const char *const *from, uint32_t nfrom, const char *const *rev, uint32_t nrev,
                     double scale, bool scale_given, bool procedural, const char *prefix);
/* Loads, analyses and builds; prints the error and returns false on failure. */
bool loco_char_create(const loco_setup *s, loco_char *c);
void loco_char_destroy(loco_char *c);
/* Loads the state machine (setup.graph) for c's locomotor; false after printing. */
bool loco_graph_create(loco_char *c, const char *spec);
/* Places the character, standing, at (x, z) facing yaw; false after printing. */
bool loco_char_reset(loco_char *c, float x, float z, float yaw);
/* One frame: the locomotor updated at the controller's point; c->world set. */
bool loco_char_step(loco_char *c, double dt, float x, float z, float yaw);

/* One frame's feet, from either runtime. */
typedef struct loco_foot { sk_vec3 heel, toe, ankle; bool stance, reached; sk_foot_event event; } loco_foot;
typedef struct loco_feet {
    uint32_t legs;
    sk_vec3 root;                   /* the character's point (y: ground height) */
    bool moving;                    /* at walking or running speed (not starting, stopping, standing) */
    loco_foot f[SK_MOTION_GROUP_MAX_LEGS];
} loco_feet;
void loco_char_feet(const loco_char *c, loco_feet *out);
const char *loco_char_leg_name(const loco_char *c, uint32_t l);

/* Foot metrics accumulated over frames. */
typedef struct loco_metrics {
    uint32_t frames, legs;
    uint32_t stance_frames[SK_MOTION_GROUP_MAX_LEGS];
    uint32_t moving_frames;         /* frames walking (not standing, not starting or stopping) */
    uint32_t moving_stance[SK_MOTION_GROUP_MAX_LEGS]; /* stance frames among them */
    /* slide per stance run */
    bool in_run[SK_MOTION_GROUP_MAX_LEGS];
    sk_vec3 run_start[SK_MOTION_GROUP_MAX_LEGS];
    double run_max[SK_MOTION_GROUP_MAX_LEGS];
    uint32_t runs;
    double slide_max, slide_sum;
    double contact_max, contact_sum;
    uint32_t contact_n;
    double penetration_max;
    /* flatness in stance: the larger of |heel - ground| and |toe - ground|
     * (far_max), and the stance leg-frames in which it is over 2 cm, split
     * by the pose: on the ball (the toe within 1 cm, the heel higher), on the
     * heel (the heel within 1 cm, the toe higher), or neither */
    double far_max;
    uint32_t off_flat, off_flat_ball, off_flat_heel;
    /* skate: dt (s) between frames (set by the caller; 0: not measured), the
     * previous frame's heel and toe, the low and the low-and-fast leg-frames */
    double dt;
    bool have_prev[SK_MOTION_GROUP_MAX_LEGS];
    sk_vec3 prev_heel[SK_MOTION_GROUP_MAX_LEGS], prev_toe[SK_MOTION_GROUP_MAX_LEGS];
    uint32_t skate_low, skate_fast;
    uint32_t unreached;             /* stance leg-frames whose IK did not reach the ankle target */
    /* the semi-procedural locomotor's body joint over its feet: its height
     * above the lowest point (heel or toe) of the feet in the first frame
     * (body_ref, m: standing), and the least share of that it keeps above
     * the lowest point of the planted feet in any frame with a planted foot
     * (body_low: 1 standing; a body lowered for legs stretched apart, the
     * hips down in a lunge, is far under) */
    bool body_set;
    double body_ref, body_low;
    uint32_t limit_outside;         /* frames with a leg joint outside c->limits (sk_ik_limit_check, 1e-3 rad) */
    double path_length, path_walked;/* m: the path's length, and how much of it the run covered */
    double run_seconds;             /* the simulated time the run was given */
    bool jumped;                    /* a requested jump (c->jump_at >= 0) took place */
    /* the N-legged walker (c->legged): the fewest feet planted in a frame
     * while walking and the gait's guarantee (sk_legged_min_planted), and
     * the body joint's lowest height over the ground below it (m) */
    bool legged;
    uint32_t planted_min, gait_min;
    double clearance_min;
} loco_metrics;

void loco_metrics_init(loco_metrics *m, uint32_t legs);
/* One frame's feet (world heel/toe, stance flag). */
void loco_metrics_add(loco_metrics *m, const sk_terrain *terrain, const loco_feet *ft);
void loco_metrics_finish(loco_metrics *m);
/* After loco_char_step: the frame's feet added to m, and the joints checked
 * against c->limits (when set). */
void loco_metrics_frame(loco_metrics *m, const loco_char *c);

/* Walks the path (sk_path_parse text) at speed with the given turn rate
 * (deg/s) at fps, for seconds (<= 0: until the end of the path plus 1 s
 * standing, at most 1.6 x the time the path takes plus 4 s), adding every
 * frame to m (initialised here) and calling frame (may be NULL) after each
 * step; false (after printing) on bad input or a failed step. */
typedef bool (*loco_frame_fn)(void *user, const loco_char *c, double t);
bool loco_run_path(loco_char *c, const char *path, double speed, double turn_deg, double fps, double seconds,
                   loco_metrics *m, loco_frame_fn frame, void *user, bool *finished);

/* skelanim bench locomotion's table of backward and sideways walks
 * (cli/bench_locomotion_dir.c): JSON lines, 0 or 1 on a failed run. */
int bl_table_dir(bool quick);

#endif
