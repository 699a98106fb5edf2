/* skelanim: what the retarget command, bench retarget and render/view
 * --beside share: a retargeter between two loaded assets, the legs of both
 * from their humanoid maps, and one clip baked (and its foot contacts
 * restored) for the target. */
#ifndef SK_CLI_RETARGET_RUN_H
#define SK_CLI_RETARGET_RUN_H

#include "skelanim.h"

typedef struct cli_retarget {
    sk_retarget *rt;
    const sk_skeleton *source, *target;
    sk_leg_desc source_legs[2], target_legs[2]; /* left, right (from the maps) */
    uint32_t leg_count;                         /* 2, or 0 when a map lacks a leg */
    sk_leg_desc source_arms[2], target_arms[2]; /* left, right: upper arm, lower arm, hand as a limb */
    uint32_t arm_count;                         /* 2, or 0 when a map lacks an arm bone */
    bool hands;                                 /* cli_retarget_bake restores hand contacts too (set by the caller) */
    bool no_level;                              /* cli_retarget_bake leaves the planted feet as baked (set by the caller) */
    bool level_each;                            /* ... levels each contact by its own tilt (sk_foot_level_options.per_contact) */
    bool no_swing;                              /* ... leaves the swing at the clip's heights (no sk_contact_restore_options.source) */
    uint32_t mapped;                            /* target joints driven by a source joint */
    sk_transform *source_rest;                  /* the standing rest made for a source whose own does not
                                                   stand, or NULL */
} cli_retarget;


/* A retargeter from source onto target; map_path (NULL: none) a JSON map
 * (io/retarget_json.h). A source whose rest pose does not stand gets one
 * from its clip's frames (sk_humanoid_pose_like); a target whose rest does not stand is refused
 * (SK_ERR_UNSUPPORTED). On failure err says why (the message names the file or the
 * skeleton) and *out is zeroed. */
sk_result cli_retarget_open(const sk_asset *source, const sk_asset *target, const char *map_path, cli_retarget *out,
                            sk_error *err);
void cli_retarget_close(cli_retarget *r);

typedef struct cli_retarget_info {
    uint32_t contacts;      /* source foot contacts found (and restored when asked) */
    uint32_t hand_contacts; /* source hand contacts found and restored (r->hands) */
    float max_error;        /* the restoration's largest pin error (m) */
    uint32_t unreachable;   /* samples whose pin was beyond the leg's reach */
    double retarget_s;      /* time spent baking (s) */
    double contacts_s;      /* time spent finding and restoring contacts (s) */
    float level[2];         /* the feet's tilt turned out by levelling (rad, toe up +; 0: none) */
    uint32_t floor_keys;    /* leg-keys whose foot was below the floor, its ankle raised (restoration) */
    float floor_max;        /* the largest such raise (m) */
    float swing_up, swing_down; /* the most a swing's ankle was moved up / down for the source's clearance (m) */
} cli_retarget_info;

/* The clip of the source baked onto the target (sk_retarget_clip); when
 * both skeletons have two legs, its planted feet levelled (sk_foot_level
 * over the source's foot contacts, found on the source: the two rest poses
 * hold the foot at different angles against the ground) unless
 * r->no_level; then, when contacts is true, the source's foot contacts
 * (sk_contacts_find) restored on it (sk_contacts_restore, with the floor
 * and the source's swing clearance scaled by the legs' ratio); with r->hands
 * and two arms on both, the hands' contacts too (low and still, as for
 * feet; restored at the hand's own height). info may be NULL. */
sk_result cli_retarget_bake(const cli_retarget *r, const sk_clip *source_clip, bool contacts, sk_clip **out,
                            cli_retarget_info *info, sk_error *err);

#endif
