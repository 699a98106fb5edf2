/* skelanim command-line tool: clips from other files and skeletons for the
 * locomotion runner (`locomote CHARACTER --from FILE[:CLIP]`, the capture
 * rows of `bench locomotion`): a file of any readable format loaded, one of
 * its clips retargeted onto the character (the source's rest stood on the
 * ground: retarget_run.h). */
#ifndef SK_CLI_LOCO_FROM_H
#define SK_CLI_LOCO_FROM_H

#include "skelanim.h"

typedef struct loco_from_info {
    char clip[64];           /* the clip's name in the source */
    uint32_t contacts;       /* the source's foot contacts restored (0: --from does not restore them) */
    double leg_units;        /* the source's leg length in its own units (after scale) */
    double retarget_ms;      /* loading, retargeting and restoring (wall clock) */
    /* The source clip's best cycle analysed on its own skeleton (legs left,
     * right from its humanoid map), or NULL when it does not analyse; the
     * caller destroys it (sk_motion_analysis_destroy). */
    sk_motion_analysis *source_analysis;
} loco_from_info;

/* spec: FILE or FILE:CLIP (CLIP a name or an index; default the first clip;
 * FILE is taken whole when it exists as given). scale: metres per unit of a
 * .bvh source, ignored for other files (0: the file's units; a .bvh whose legs measure more than
 * CLI_MAX_LEG_UNITS (cli.h) is then refused with the scale to give). Writes a
 * clip of target's skeleton (the caller destroys it) and, with info, the
 * source's own analysis (info->source_analysis; played in reverse when
 * backward). Prints the error and
 * returns false on failure. */
bool loco_from_clip(const char *spec, double scale, const sk_asset *target, bool backward, sk_clip **out,
                    loco_from_info *info);

/* Whether a FILE[:CLIP] spec's file is a .bvh (the files --from-scale applies to). */
bool loco_from_is_bvh(const char *spec);

/* Two legs of skel from its humanoid map (upper leg, lower leg, foot, toes),
 * for characters whose joint names sk_legs_find does not know; 2 or 0. */
uint32_t loco_legs_from_map(const sk_skeleton *skel, sk_leg_desc legs[2]);

#endif
