/* skelanim command-line tool: the locomotion debugging view (seed 002's
 * tool, docs/locomotion.md "The debugging view"), drawn over a frame of the
 * semi-procedural locomotor:
 *   in the scene  each leg's footsteps as foot outlines heel -> toe: the one
 *                 the foot stands on or left last (the leg's colour, filled
 *                 while planted) and, until it lands, the predicted next one
 *                 (lighter). The locomotor's `from` is the footstep left and
 *                 `to` the one flown to until the leg's cycle wraps at its
 *                 stance time, so from landing to then the foot stands on
 *                 `to` (on the ground: the one nearer the heel). A ring at
 *                 each foot coloured by its state (stance green, rolling on
 *                 the ground yellow, swing red); the velocity as
 *                 an arrow from the ground point (0.5 s of travel); the path
 *                 draped on the ground and the trail walked;
 *   a 2D HUD      (top-left, cairo) the mode and speed, per leg a cycle strip
 *                 0..1 (0 = the leg's stance time) with foot-land..foot-lift
 *                 shaded dark (planted), foot-strike..foot-off light (on the
 *                 ground), ticks at strike and off, and the leg's cycle time as
 *                 a cursor; each clip's weight as a bar with its name (the
 *                 idle's is 1 - the locomotion group's weight).
 *
 * The data of one frame (loco_overlay_frame) comes from a locomotor
 * (loco_overlay_gather) or from a --trace line (loco_overlay_parse, written
 * by loco_overlay_write_foot / _write_frame): the drawing reads nothing
 * else, so a recorded walk replays exactly. The GL side draws into the
 * current GL frame (a window's or an off-screen one): create the overlay
 * with the context current, call loco_overlay_draw after the scene and
 * before the read-back or swap. One overlay per context, one thread. */
#ifndef SK_CLI_LOCO_OVERLAY_H
#define SK_CLI_LOCO_OVERLAY_H

#include "skelanim.h"
#include "skr.h"

#include <cjson/cJSON.h>
#include <stdio.h>

#define LOCO_OVERLAY_MAX_LEGS SK_MOTION_GROUP_MAX_LEGS
#define LOCO_OVERLAY_MAX_CLIPS 8
#define LOCO_OVERLAY_NAME 32

/* The HUD's place: its top-left corner and width in pixels; its height
 * grows with the legs and clips (loco_overlay_hud_height). */
#define LOCO_HUD_X 6
#define LOCO_HUD_Y 6
#define LOCO_HUD_W 210

/* The colour of leg l in the scene and the HUD (0..1 RGB): left
 * (230, 38, 191), right (26, 140, 255), then others. The current
 * footstep's outline is drawn in exactly this colour, 3 pixels wide, over
 * everything (the next one lighter). */
void loco_overlay_leg_rgb(uint32_t l, float rgb[3]);

/* What the overlay draws. */
typedef struct loco_overlay_toggles {
    bool footsteps; /* footsteps, foot states, the velocity arrow */
    bool keytimes;  /* the HUD's cycle strips */
    bool weights;   /* the HUD's weights, mode and speed */
    bool path;      /* the path and the trail */
} loco_overlay_toggles;
extern const loco_overlay_toggles loco_overlay_all;

/* A footstep drawn as a foot: heel and toe on the ground (world, m) and the
 * ground normal there. */
typedef struct loco_overlay_step { sk_vec3 heel, toe, normal; } loco_overlay_step;

typedef struct loco_overlay_leg {
    char name[LOCO_OVERLAY_NAME];
    sk_vec3 heel, toe;              /* the foot now (world) */
    bool stance, grounded;          /* planted (foot-land..foot-lift); on the ground (foot-strike..foot-off) */
    float cycle_time;               /* [0, 1): 0 = the leg's stance time */
    float flight;                   /* 0..1 in the air, 0 on the ground */
    loco_overlay_step from, to;
    /* The blended keytimes in the leg's cycle time (as cycle_time). */
    float strike, land, lift, off;
} loco_overlay_leg;

typedef struct loco_overlay_frame {
    double t;                       /* s */
    sk_vec3 root;                   /* the character's ground point */
    sk_vec3 velocity;               /* m/s, world */
    float yaw;
    sk_locomotion_mode mode;
    double phase;                   /* group phase [0, 1) */
    float moving;                   /* the locomotion group's weight (1 - the idle's) */
    uint32_t leg_count, clip_count;
    loco_overlay_leg legs[LOCO_OVERLAY_MAX_LEGS];
    char clip[LOCO_OVERLAY_MAX_CLIPS][LOCO_OVERLAY_NAME];
    float weight[LOCO_OVERLAY_MAX_CLIPS]; /* the locomotor's motion weights (sum 1) */
} loco_overlay_frame;

/* The frame of a locomotor after its adjust step. g: the group it was made
 * from (the blended keytimes); clip_names[i] names motion i, leg_names[l]
 * leg l (either may be NULL: "motion i", "leg l"). false for a NULL
 * locomotor or group. */
bool loco_overlay_gather(loco_overlay_frame *out, const sk_locomotor *L, const sk_motion_group *g,
                         const char *const *clip_names, const char *const *leg_names, double t);
const char *loco_overlay_mode_name(sk_locomotion_mode m); /* "standing", "moving", "stopping" */

/* The trace's fields (JSON, no separators before or after): the overlay
 * fields of foot l, written inside its object after "stance"
 * ("grounded","cycle_time","flight","from":{"heel","toe","normal"},"to",
 * "keys":{"strike","land","lift","off"}), and the frame's, written after
 * "joints" ("velocity","yaw","mode","phase","moving","weights":{NAME:W}). */
void loco_overlay_write_foot(FILE *f, const loco_overlay_frame *fr, uint32_t l);
void loco_overlay_write_frame(FILE *f, const loco_overlay_frame *fr);
/* Reads them back from a parsed trace line: false when the line has no
 * overlay fields (an older trace, or the IK-only walker's). */
bool loco_overlay_parse(const cJSON *line, loco_overlay_frame *out);

/* ---- Drawing (a GL context current) ---- */
typedef struct loco_overlay loco_overlay;
loco_overlay *loco_overlay_create(sk_error *err);
void loco_overlay_destroy(loco_overlay *ov);
/* The path (count x, z pairs, world m) draped on the terrain (NULL: flat at
 * 0), sampled every 5 cm; false when out of memory. The terrain (which must
 * outlive the overlay, or the next call) also drapes the trail and the
 * velocity arrow's foot. */
bool loco_overlay_set_path(loco_overlay *ov, const float *xz, uint32_t count, const sk_terrain *terrain);
/* The trail: the ground points walked (put on the terrain), oldest first
 * (the last 8192 kept). */
void loco_overlay_trail_clear(loco_overlay *ov);
void loco_overlay_trail_add(loco_overlay *ov, sk_vec3 p);
/* Draws the frame into the current framebuffer (fb_w x fb_h pixels, cam
 * the scene's camera with the same size): the scene parts with cam, the HUD
 * at LOCO_HUD_X, LOCO_HUD_Y. */
void loco_overlay_draw(loco_overlay *ov, const skr_camera *cam, const loco_overlay_frame *f, loco_overlay_toggles t,
                       int fb_w, int fb_h);
/* The HUD's height in pixels for a frame (what t shows of it). */
int loco_overlay_hud_height(const loco_overlay_frame *f, loco_overlay_toggles t);
/* Draws the HUD alone into a premultiplied BGRA buffer of LOCO_HUD_W x
 * loco_overlay_hud_height pixels (stride 4 LOCO_HUD_W), with cairo. */
void loco_overlay_hud(const loco_overlay_frame *f, loco_overlay_toggles t, unsigned char *bgra);

#endif
