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
    /* The source, kept for loco_from_widen (released by loco_from_release):
     * its asset, the clip's index, its legs (left, right from its humanoid
     * map) and whether the clip plays in reverse. */
    sk_asset *source;
    int32_t source_clip;
    sk_leg_desc source_legs[2];
    bool backward;
} loco_from_info;

/* spec: FILE or FILE:CLIP (CLIP a name or an index; default the first clip;
 * FILE is taken whole when it exists as given). scale: metres per unit of a
 * .bvh source, ignored for other files (0: the file's units; a .bvh whose legs measure more than
 * CLI_MAX_LEG_UNITS (cli.h) is then refused with the scale to give). Writes a
 * clip of target's skeleton (the caller destroys it) and, with info, what
 * loco_from_widen needs (the caller calls loco_from_release, also after a
 * failure). Prints the error and returns false on failure. */
bool loco_from_clip(const char *spec, double scale, const sk_asset *target, bool backward, sk_clip **out,
                    loco_from_info *info);

/* Widens the planted phases of a, the analysis of the retargeted clip, to
 * the source's own (sk_motion_analysis_widen_planted): the source clip is
 * analysed on its own skeleton over a's cycle, the same seconds of the same
 * motion (retargeting keeps the timing). False (a warning printed, a
 * untouched) when the source does not analyse there. */
bool loco_from_widen(const loco_from_info *info, const char *spec, sk_motion_analysis *a);

/* Releases what loco_from_clip kept in info (the source); idempotent. */
void loco_from_release(loco_from_info *info);

/* Whether a FILE[:CLIP] spec's file is a .bvh (the files --from-scale applies to). */
bool loco_from_is_bvh(const char *spec);

#endif
