/* skelanim — motion analysis of walk and run clips (after R. S. Johansen,
 * "Automated Semi-Procedural Animation for Character Locomotion", 2009).
 * Numbers in parentheses, (1)-(22), name the method's equations as
 * docs/locomotion.md ("Sources") lists them.
 *
 * Runs once, offline: it samples a cyclic clip, follows the heel and toe of
 * every leg and finds per leg the stance time, the lift and strike keytimes,
 * foot length and direction, the footbase curve with its balance, the stride
 * and the normalised footbase trajectory, and per clip the cycle duration,
 * velocity, direction and distance.
 *
 * Spaces: +Y is up; positions are in the "character space" of the clip: the
 * model space of its skeleton with the clip's root motion removed, taken as a
 * constant horizontal velocity (the horizontal displacement of the legs' hip
 * joints' midpoint from the clip's first to its last frame, over the
 * duration). A clip authored in place has none to remove. The vertical
 * part of that displacement (0 for a loop; for a cycle cut from a capture
 * on a floor that is not level, the hips' rise over the cycle) is removed
 * too, so that heights close over the cycle. In character
 * space a planted foot slides backwards at the cycle's speed: while on the
 * ground it moves in a straight line at a constant speed.
 *
 * Times: every keytime is a normalised cycle time in [0, 1) (0 = the clip's
 * start, or for a backward analysis its end); durations are in seconds. */
#ifndef SKELANIM_LOCOMOTION_ANALYSIS_H
#define SKELANIM_LOCOMOTION_ANALYSIS_H

#include "skelanim/core/asset.h"
#include "skelanim/core/clip.h"
#include "skelanim/core/skeleton.h"
#include "skelanim/anim/retarget.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SK_LEG_NAME_MAX 32

/* One leg: hip, knee, ankle joints (a parent chain: knee below hip, ankle
 * below knee, not necessarily direct children), an optional toe joint below
 * the ankle (-1: none), and the heel and toe points that touch the ground. */
typedef struct sk_leg_desc {
    char name[SK_LEG_NAME_MAX]; /* label ("left"); "" = "leg N" */
    int32_t hip, knee, ankle, toe;
    /* Manual heel / toe points. heel is in the ankle joint's frame; toe_tip
     * in the toe joint's frame (the ankle's when toe < 0). When the flags are
     * false the points come from the skeleton's rest pose
     * (sk_leg_default_points): the heel below the ankle at the lowest rest
     * height of the foot and a little behind it, the toe tip at the toe
     * joint's child or, without one, ahead of the toe joint along the foot. */
    bool heel_set, toe_tip_set;
    sk_vec3 heel, toe_tip;
} sk_leg_desc;

/* Finds legs from common joint names: per side the first joint whose name
 * says foot or ankle ("foot_l", "LeftFoot", "mixamorig:LeftFoot",
 * "Foot.R", "l_ankle", ...) with the side from "left"/"right" or an l/r
 * prefix or suffix; the knee and hip are its parent and grandparent (so the
 * CMU "LHipJoint" is skipped: the hip is LeftUpLeg), the toe its first child
 * whose name says toe or ball ("toe_l", "LeftToeBase", "ball_l"), else its
 * first child, else -1. Writes up to cap legs (left first) with default
 * points (heel_set/toe_tip_set false) and returns how many it found (0, 1 or
 * 2). */
SK_API uint32_t sk_legs_find(const sk_skeleton *skel, sk_leg_desc *out, uint32_t cap);

/* The two legs of a humanoid map (anim/retarget.h, sk_humanoid_map_find,
 * which also finds them by shape where names fail): out[0] the left,
 * out[1] the right, each its upper leg (hip), lower leg (knee), foot (ankle)
 * and toes (toe; -1 when the map has none), named "left" and "right", with
 * default points (heel_set/toe_tip_set false). Returns 2, or 0 with out
 * untouched when m or out is NULL, cap < 2, or the map lacks an upper leg,
 * lower leg or foot. Pure: reads m, writes out. */
SK_API uint32_t sk_legs_from_humanoid(const sk_humanoid_map *m, sk_leg_desc *out, uint32_t cap);

/* Checks a leg against the skeleton (indices in range, hip above knee above
 * ankle above toe in the hierarchy, finite manual points) and fills the
 * heel/toe points that are not set from the rest pose (sets their flags).
 * SK_ERR_INVALID_ARGUMENT with a message naming the joints otherwise. */
SK_API sk_result sk_leg_default_points(const sk_skeleton *skel, sk_leg_desc *leg, sk_error *err);

/* Where a leg's heel / toe points came from (sk_leg_points_from_mesh). */
typedef enum sk_leg_points_source {
    SK_LEG_POINTS_MANUAL = 0,   /* both were set by hand (heel_set and toe_tip_set) */
    SK_LEG_POINTS_MESH = 1,     /* the unset ones from the skinned mesh's sole */
    SK_LEG_POINTS_SKELETON = 2  /* the unset ones from the skeleton (sk_leg_default_points) */
} sk_leg_points_source;

/* Options of sk_leg_points_from_mesh; a zeroed struct gives the defaults. */
typedef struct sk_leg_points_options {
    /* A foot vertex no higher than this above the foot's lowest vertex is on
     * the sole (m). 0: 1.2% of the leg's rest length (hip-knee-ankle; 1 cm
     * for the mannequin). */
    float sole_height;
} sk_leg_points_options;

/* Heel and toe points from the skinned mesh's sole. For each leg
 * whose heel_set / toe_tip_set flags are false: skins the asset's skinned
 * primitives (triangles) at the rest pose into model space, takes the
 * vertices bound mostly (weight >= 0.5 of the vertex's total) to the leg's
 * ankle or toe joint, the sole = those within sole_height of the lowest of
 * them, the forward direction = ankle -> toe joint on the ground (+Z without
 * a toe joint); heel = the rearmost sole vertex along it, toe_tip = the
 * frontmost, both at the lowest height and on the sole's mean lateral
 * position, written in the ankle's / toe joint's frame as sk_leg_desc says
 * (flags set). A leg without such vertices (or an asset with no skinned
 * mesh) gets the skeleton's points (sk_leg_default_points). Points set by
 * hand are kept. sources (NULL or n entries) says per leg which was used.
 * Validates the legs as sk_leg_default_points does. */
SK_API sk_result sk_leg_points_from_mesh(const sk_asset *asset, sk_leg_desc *legs, uint32_t n,
                                         const sk_leg_points_options *opts, sk_leg_points_source *sources, sk_error *err);

/* Where the stride (12)-(15) comes from. */
typedef enum sk_stride_source {
    /* FOOTPRINTS for a cycle cut from a longer clip (cycle_end > 0) that
     * moves by its root (root motion over the cycle at least half the
     * contact stride) when the clip also holds the foot's stance one cycle
     * later or earlier; CONTACT otherwise (loops, clips in place). A leg
     * whose foot gives no contact stride (no movement while on the ground:
     * its planted phase shrunk to its stance time) takes the footprints
     * where they exist, and is an error where they do not. */
    SK_STRIDE_AUTO = 0,
    /* (12): the footbase's displacement in character space while
     * the foot is on the ground (foot-strike .. foot-off, or foot-land ..
     * foot-lift with stride_planted), over that time. */
    SK_STRIDE_CONTACT = 1,
    /* The footprints: the footbase's displacement in the clip's own space
     * from the stance time to the same foot's stance one cycle later (or
     * earlier), sampled from the clip outside the cycle; over one cycle.
     * Needs that time inside the clip, else CONTACT is used. For captures
     * whose planted feet skate forward during each contact, which makes the
     * contact stride short (docs/locomotion.md, "Stride: contact or
     * footprints"). */
    SK_STRIDE_FOOTPRINTS = 2
} sk_stride_source;

/* Options; a zeroed struct gives the defaults. */
typedef struct sk_motion_analysis_options {
    /* Samples over the cycle. 0: 4 x the clip's key count over its duration
     * (4 x the key rate), at least 60. At most 100000. */
    uint32_t sample_count;
    /* Analyse the clip played in reverse:
     * sample s is at clip time duration * (1 - s/N), keytimes are in that
     * reversed time and the stride direction points the way the reversed
     * clip moves. */
    bool backward;
    /* Contact threshold (metres): the heel side (the ankle joint) or the toe
     * side (the toe joint, the ball; the toe point without a toe joint) no
     * higher than this above its lowest height over the half cycle either
     * side of the stance time, and moving horizontally at the planted
     * velocity (speed_tolerance), is down. 0: 1.2% of the leg's rest length
     * (hip-knee-ankle; 1 cm for the mannequin and the CMU subjects). */
    float contact_height;
    /* Balance bias alpha of (10); 0: 20 (Johansen's implementation; larger
     * pushes the balance to 0 or 1). */
    float balance_alpha;
    /* Minimum foot roll alpha of the post-foot-lift / pre-foot-land rules,
     * in cycles; 0: none (negative values are refused). */
    float min_roll;
    /* Planted: a point's or the footbase's horizontal velocity (character
     * space, over 1/60 of the cycle) may differ from the planted velocity
     * (minus the root velocity; for a clip in place, the footbase's median
     * while the foot is low) by this fraction of the stance speed, plus 2%
     * of the leg per cycle; gaps of up to 2% of the cycle are bridged
     * (capture tremble). 0: 0.25. */
    float speed_tolerance;
    /* The cycle inside the clip (seconds, 0 <= start < end <= duration),
     * e.g. from sk_motion_find_cycle for a capture that is not a loop; both
     * 0: the whole clip is one cycle. Keytimes are then relative to
     * cycle_start over cycle_end - cycle_start. */
    double cycle_start, cycle_end;
    /* Stride (12)-(13) over foot-land .. foot-lift (the part of the contact
     * where the footbase moves at its stance speed) instead of the default
     * foot-strike .. foot-off: for captures whose feet still slide after the
     * heel touches and during the roll. The mannequin gives the same either
     * way. */
    bool stride_planted;
    /* The stride's source (see sk_stride_source); 0: SK_STRIDE_AUTO. */
    sk_stride_source stride_source;
    /* The planted phase (foot-land .. foot-lift) is where the ankle and the
     * ball are both still: each within this fraction of the leg's rest
     * length above its lowest height near stance (or contact_height, when
     * more), rising or sinking slower than a fifth of its fastest vertical
     * speed over the cycle, and moving at the planted velocity. 0: 0.03.
     * A capture retargeted onto another skeleton creeps more while planted
     * (its ankle rises by a centimetre or two over the stance under the
     * new proportions): SK_STILL_BAND_RETARGETED, what skelanim locomote
     * --from uses for its clips. Below 0.5. */
    float still_band;
} sk_motion_analysis_options;

/* sk_motion_analysis_options.still_band for a clip retargeted from another
 * skeleton (chosen on captures never reported on: docs/locomotion.md). */
#define SK_STILL_BAND_RETARGETED 0.04f

/* Per-leg results. Keytimes in [0, 1) (normalised cycle time); arrays have
 * sample_count entries, sample s at cycle time s / sample_count. */
typedef struct sk_leg_analysis {
    char name[SK_LEG_NAME_MAX];
    int32_t hip_joint, knee_joint, ankle_joint, toe_joint; /* the joints analysed (toe -1: none) */
    sk_vec3 heel_point, toe_point;     /* the points used (ankle / toe joint frames) */
    float leg_length;                  /* hip to ankle at rest (m) */
    /* (3)-(6): centre c of the projected middle curve, the points a and b
     * farthest apart, axis = b - a (the leg's line of motion, horizontal). */
    sk_vec3 center, a, b, axis;
    float heel_ground, toe_ground;     /* lowest heel / toe height over the cycle (m) */
    float heel_contact, toe_contact;   /* contact thresholds used (m above the lowest height near stance) */
    /* (7): the sample of least cost. */
    float stance_time;
    uint32_t stance_sample;
    float foot_length;                 /* (8): |toe - heel| projected on the ground at stance (m) */
    sk_vec3 foot_direction;            /* (8)-(9): unit direction d times foot_length (horizontal) */
    sk_vec3 stance_position;           /* footbase at stance time */
    /* Keytimes (contact_height and speed_tolerance say when a point is
     * down; "heel" is the ankle joint's contact, "toe" the ball's). Lift
     * side, forward from stance: */
    float heel_off, toe_off, linear_speed_end;
    float foot_lift;                   /* min(heel-off, toe-off, linear-speed-end) */
    float foot_off;                    /* max(heel-off, toe-off) */
    float post_foot_lift;              /* max(foot-lift + min_roll, foot-off) */
    /* Strike side, backward from stance: */
    float heel_strike, toe_strike, linear_speed_begin;
    float foot_land;                   /* max(heel-strike, toe-strike, linear-speed-begin) */
    float foot_strike;                 /* min(heel-strike, toe-strike) */
    float pre_foot_land;               /* min(foot-land - min_roll, foot-strike) */
    float stance_fraction;             /* cycle fraction from foot-strike to foot-off */
    /* Stride, (12)-(15): */
    sk_vec3 stride_displacement;       /* footbase(foot-off) - footbase(foot-strike) on the ground (m);
                                        * from footprints: minus the footprints' displacement over one cycle */
    float stride_velocity;             /* |displacement| / (foot-off - foot-strike) (m/cycle);
                                        * land/lift with the option stride_planted;
                                        * from footprints: |displacement| / 1 cycle */
    sk_vec3 stride_direction;          /* -displacement, unit */
    float stride_distance;             /* stride_velocity x 1 cycle (m) */
    /* Per-sample curves (character space, m): */
    sk_vec3 *heel, *toe;               /* the heel and toe points */
    sk_vec3 *middle;                   /* (1)-(2): their midpoint projected on the ground (y = 0) */
    float *heel_height, *toe_height;   /* above heel_ground / toe_ground */
    float *balance;                    /* (10), in [0, 1]: 0 toe down, 1 heel up */
    sk_vec3 *footbase;                 /* (11) */
    /* (19)-(22): footbase minus the stance reference moving at the stride
     * velocity, rotated so the stride direction is +Z, z divided by the
     * stride distance: z goes from 0 (stance) to 1 (next stance). */
    sk_vec3 *normalized_footbase;
    uint32_t stride_source;            /* the sk_stride_source used: CONTACT or FOOTPRINTS */
} sk_leg_analysis;

typedef struct sk_motion_analysis {
    char clip_name[64];
    bool backward;                 /* analysed in reverse */
    uint32_t leg_count;
    uint32_t sample_count;
    sk_leg_analysis *legs;
    double cycle_duration;         /* s (the clip's duration: one cycle) */
    double cycle_start;            /* s: where the cycle starts in the clip (options cycle_start; 0 = the clip's start) */
    float cycle_velocity;          /* (16): mean stride velocity (m/cycle) */
    float cycle_speed;             /* cycle_velocity / cycle_duration (m/s) */
    float cycle_distance;          /* (18): cycle_velocity x 1 cycle (m) */
    sk_vec3 cycle_direction;       /* (17): mean stride direction, normalised (horizontal) */
    sk_vec3 root_velocity;         /* the root motion removed (m/s, horizontal; see the top) */
    sk_allocator allocator;        /* private */
    size_t allocation_size;        /* private */
} sk_motion_analysis;

#define SK_ANALYSIS_MIN_CYCLE 0.1    /* s: a shorter cycle is no step (SK_ERR_INVALID_DATA) */
#define SK_ANALYSIS_MAX_CYCLE 3600.0 /* s: a longer cycle or clip is refused (SK_ERR_LIMIT) */
#define SK_ANALYSIS_MAX_LEGS 16u     /* the most legs an analysis takes */

/* Analyses clip on skel for the given legs (1..SK_ANALYSIS_MAX_LEGS; their heel/toe points
 * defaulted by sk_leg_default_points when not set). opt may be NULL.
 * Errors (SK_ERR_INVALID_ARGUMENT / SK_ERR_INVALID_DATA, with a message):
 * NULL arguments, a zero-length or non-finite clip, a cycle shorter than
 * SK_ANALYSIS_MIN_CYCLE, bad legs, a pose that is not finite, feet that do
 * not move (no cycle to analyse); SK_ERR_LIMIT for a cycle longer than
 * SK_ANALYSIS_MAX_CYCLE. The result is
 * allocated from alloc; free it with sk_motion_analysis_destroy. */
SK_API sk_result sk_motion_analyze(const sk_skeleton *skel, const sk_clip *clip, const sk_leg_desc *legs, uint32_t leg_count,
                                   const sk_motion_analysis_options *opt, const sk_allocator *alloc,
                                   sk_motion_analysis **out, sk_error *err);
/* The same with opt->backward set. */
SK_API sk_result sk_motion_analyze_backward(const sk_skeleton *skel, const sk_clip *clip, const sk_leg_desc *legs,
                                            uint32_t leg_count, const sk_motion_analysis_options *opt,
                                            const sk_allocator *alloc, sk_motion_analysis **out, sk_error *err);

#define SK_LEG_HEEL_TOLERANCE 0.005f /* m: sk_leg_heels_to_ground's tolerance */

/* Heel points brought to the toes' ground. Heel and toe points found at
 * rest (from the mesh or the skeleton) need not come down to the same
 * height in a clip made for another skeleton (a retargeted walk): its
 * analysis (an, of clip on skel with these legs) has heel_ground and
 * toe_ground apart, and a locomotor, which lays a planted sole flat, holds
 * that heel above the ground or below it. For each leg whose two grounds
 * differ by SK_LEG_HEEL_TOLERANCE or more, and whose sources entry (sources:
 * NULL, or leg_count entries from sk_leg_points_from_mesh) is not
 * SK_LEG_POINTS_MANUAL, the heel point becomes the one the analysis used
 * (heel_point) moved in the ankle's frame by toe_ground - heel_ground
 * along the vertical (+Y) of the pose at the
 * leg's stance time (the clip sampled there: a backward analysis' time
 * runs from the cycle's end), and its heel_set is set. Analyse the clip
 * again with the legs afterwards. *changed (may be NULL): the number of
 * legs moved. Errors (SK_ERR_INVALID_ARGUMENT, legs untouched): NULL
 * arguments, leg_count other than an's, a leg's ankle joint out of range or
 * not an's; SK_ERR_OUT_OF_MEMORY (a pose's scratch, through alloc).
 * Thread safety: writes legs and *changed only. */
SK_API sk_result sk_leg_heels_to_ground(const sk_skeleton *skel, const sk_clip *clip, const sk_motion_analysis *an,
                                        sk_leg_desc *legs, uint32_t leg_count, const sk_leg_points_source *sources,
                                        const sk_allocator *alloc, uint32_t *changed, sk_error *err);

/* Best cycle of a clip that is not a loop (a capture): the pair of times
 * (start, end), end - start >= min_duration (0: 0.4 s), whose poses are
 * closest — every joint's model position relative to the legs' hip midpoint
 * projected on the ground, plus the same for the velocities — sampled at
 * 60 Hz. At the two ends each leg's ankle must be within half the leg of
 * the same place about the hips and move about them the same way (their
 * velocities differ by at most half the sum of their sizes plus one leg
 * per second), so half a cycle, which swaps the feet, is never taken; and
 * each ankle, about the hips, must travel no more than 3 times the
 * longest distance between two of its places in the window (one stride:
 * forward and back once, about 2 times; k strides, 2k), so a stretch of
 * several short steps whose poses happen to come back is not taken. Of
 * the lags whose best match is within 25% of the best of all the shortest
 * of one stride is taken (so not two cycles where one will do); when none
 * of them is one stride, within 25% of the best of one stride. Returns
 * SK_ERR_INVALID_DATA when the clip is shorter than min_duration plus two
 * samples. */
SK_API sk_result sk_motion_find_cycle(const sk_skeleton *skel, const sk_clip *clip, const sk_leg_desc *legs,
                                      uint32_t leg_count, double min_duration, const sk_allocator *alloc, double *start,
                                      double *end, sk_error *err);

/* The way the body faces over start..end of clip (a cycle
 * sk_motion_find_cycle found; end <= start: the whole clip), as a yaw about
 * +Y in radians, (-pi, pi], 0 facing +Z and positive towards +X (the sense
 * of sk_clip_turn, anim/mirror.h): the mean, sampled at 60 Hz and both
 * ends, of the horizontal direction square to the line between the first
 * two legs' hip joints, signed to point the way the feet point (heel point
 * to toe point), so the legs' order does not matter. Walking forward,
 * backward or sideways, the body faces the same way.
 *
 * The analysis' character space is the clip's model space, so a capture
 * whose subject walks some other way than +Z analyses as a walk in that
 * direction. To turn a cycle so that it travels along the nearest of the
 * body's axes (a forward walk along +Z, a sidestep along +X or -X), turn it
 * (sk_clip_turn) by k x 90 degrees - travel, k the nearest integer to
 * (travel - yaw) / 90 degrees, travel the yaw of the analysis'
 * cycle_direction (what the blend space of locomotion/sync.h reads).
 *
 * travel (may be NULL): the yaw of the hips' horizontal displacement from
 * start to end (the midpoint of the two legs' hip joints), the facing when
 * it is under a millimetre; far from the analysed cycle direction, the
 * cycle was likely cut across a turn. spread (may be NULL): 1 minus the
 * length of the mean of the unit directions, 0 when the body faces one way
 * throughout, towards 1 when it turns about over the stretch.
 *
 * Errors (SK_ERR_INVALID_ARGUMENT, with a message): NULL arguments, fewer
 * than two legs, bad legs (sk_leg_default_points), times that are not
 * finite or outside the clip; SK_ERR_LIMIT over SK_ANALYSIS_MAX_CYCLE;
 * SK_ERR_INVALID_DATA for a pose that is not finite or hips that stand one
 * above the other throughout; SK_ERR_OUT_OF_MEMORY. Scratch comes from
 * alloc (NULL: the default) and is freed. Reads its inputs only: thread-safe
 * on shared inputs. */
SK_API sk_result sk_motion_cycle_facing(const sk_skeleton *skel, const sk_clip *clip, const sk_leg_desc *legs,
                                        uint32_t leg_count, double start, double end, const sk_allocator *alloc,
                                        float *yaw, float *travel, float *spread, sk_error *err);

/* Widens each leg's planted phase (foot-land .. foot-lift) in *a to take in
 * the same leg's planted phase in *source, an analysis of the same motion
 * on another skeleton: typically a retargeted clip (a) and the capture it
 * was made from, analysed on its own skeleton (source), whose feet stand
 * flat for longer than the retargeted feet, which carry the source's angles
 * on other proportions. Legs are paired by index; the two phases are put on
 * one time line through each analysis' cycle_start and cycle_duration (the
 * clips' own seconds, so the two clips must share their timing; a backward
 * analysis' keytime k is at cycle_start + (1 - k) x cycle_duration), the
 * source's shifted by whole cycles of *a to lie nearest a's stance time.
 * Analyse the source over a's cycle (the same seconds); when the two
 * cycles share less than half of the shorter one's seconds, no leg is
 * widened (the gait's phase drifts between distant cycles of a capture).
 * Where the two phases overlap, or come within 2% of the cycle of each other (the
 * gap the analysis bridges inside a planted phase), foot-land becomes the
 * earlier and foot-lift the later of the two, foot-strike / pre-foot-land no later than the new
 * foot-land, foot-off / post-foot-lift no earlier than the new foot-lift,
 * and stance_fraction follows; where they are further apart, or the union
 * would be longer than max_share of the cycle (0: 0.7; at most 1), the leg
 * is left as it is. Nothing else of *a changes (the per-sample curves, the
 * stride, the stance time). Returns the number of legs widened in
 * *widened (may be NULL). Errors (SK_ERR_INVALID_ARGUMENT, with a message;
 * *a untouched): NULL arguments, a different leg count or direction
 * (backward), non-finite times, max_share outside [0, 1]. Thread safety:
 * writes *a only. */
SK_API sk_result sk_motion_analysis_widen_planted(sk_motion_analysis *a, const sk_motion_analysis *source,
                                                  float max_share, uint32_t *widened, sk_error *err);

/* An empty result with the arrays allocated (zeros), for loaders
 * (io/analysis_json). 1..16 legs, 4..100000 samples. */
SK_API sk_result sk_motion_analysis_create(uint32_t leg_count, uint32_t sample_count, const sk_allocator *alloc,
                                           sk_motion_analysis **out, sk_error *err);
/* Frees an analysis (NULL: nothing happens). */
SK_API void sk_motion_analysis_destroy(sk_motion_analysis *a);

#ifdef __cplusplus
}
#endif
#endif
