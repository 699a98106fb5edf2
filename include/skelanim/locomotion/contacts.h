/* skelanim — foot (and hand) contacts: when a clip's feet are planted, and
 * keeping another clip's feet planted over the same phases with two-bone IK
 * (the contact restoration of a retargeted clip). Hands are limbs too: an
 * arm given as a leg (upper arm, lower arm, hand) has its hand contacts found
 * the same way and restored at the hand's own height
 * (sk_contact_restore_options.hand_mask).
 *
 * A contact is a phase of one leg during which its ankle is on the ground:
 * no higher than a band above the lowest height the ankle holds still over
 * the clip, and moving horizontally slower than a threshold, for at least a
 * minimum time. Restoration takes those phases (found on a source clip, or
 * given by hand) and a clip of another skeleton playing the same motion on
 * the same clock (a retargeted clip), and for each contact pins the
 * target's ankle at one position — the mean of its horizontal positions
 * over the contact, at the ankle's rest height above the ground — by
 * turning the hip and knee (two-bone IK, ik/ik.h), keeping the foot's
 * model-space orientation, and blending the pin in before and out after
 * the contact; optionally (floor) no foot goes below the ground.
 *
 * Spaces: +Y is up; positions are in the model space of the clip's
 * skeleton (root motion included). Times are seconds of the clip.
 * Thread safety: the functions share nothing; distinct outputs may be
 * written at once. */
#ifndef SKELANIM_LOCOMOTION_CONTACTS_H
#define SKELANIM_LOCOMOTION_CONTACTS_H

#include "skelanim/core/clip.h"
#include "skelanim/core/skeleton.h"
#include "skelanim/locomotion/analysis.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One contact of one leg. */
typedef struct sk_contact {
    uint32_t leg;        /* index into the legs given */
    double start, end;   /* seconds: the first and last sample on the ground (start <= end) */
    sk_vec3 position;    /* the ankle's mean model position over the contact (sk_contacts_find) */
} sk_contact;

/* Options of sk_contacts_find; a zeroed struct gives the defaults. */
typedef struct sk_contact_find_options {
    /* Samples per second. 0: 120. At most 10000; at most 1000000 samples. */
    float sample_rate;
    /* The ground band (m): the ankle is low when no higher than this above
     * the lowest height it holds while still (slower than speed) over the
     * clip. 0: 8% of the leg's rest length (hip-knee-ankle). */
    float height;
    /* Horizontal ankle speed (m/s) below which it is still. 0: 0.6 leg
     * rest lengths per second. */
    float speed;
    /* Shortest contact (s). 0: 0.05. Shorter runs of samples are dropped. */
    float min_duration;
} sk_contact_find_options;

/* Finds the contacts of clip (played once, SK_LOOP_CLAMP, from 0 to its
 * duration) on skel for the given legs (1..16; only hip, knee and ankle are
 * used). Writes up to cap contacts to out, ordered by leg then time, and
 * sets *out_count to how many there are; when there are more than cap,
 * returns SK_ERR_LIMIT with *out_count the number needed (out may be NULL
 * with cap 0 to count). opts may be NULL. Scratch memory comes from alloc
 * (NULL: the C library) and is freed before returning. Errors
 * (SK_ERR_INVALID_ARGUMENT / SK_ERR_INVALID_DATA, with a message): NULL
 * arguments, bad legs, bad options, a clip that does not fit the skeleton,
 * non-finite poses. */
SK_API sk_result sk_contacts_find(const sk_skeleton *skel, const sk_clip *clip, const sk_leg_desc *legs,
                                  uint32_t leg_count, const sk_contact_find_options *opts, const sk_allocator *alloc,
                                  sk_contact *out, uint32_t cap, uint32_t *out_count, sk_error *err);

/* The source of sk_contact_restore_options.source. */
typedef struct sk_contact_source {
    const sk_skeleton *skeleton;
    const sk_clip *clip;     /* on the restored clip's clock, fits skeleton */
    const sk_leg_desc *legs; /* one per leg given to sk_contacts_restore, in the same order (hip, knee, ankle) */
    float scale;             /* the target's lengths per the source's: the leg-length ratio (> 0) */
} sk_contact_source;

/* Options of sk_contacts_restore; a zeroed struct gives the defaults. */
typedef struct sk_contact_restore_options {
    /* The pin is blended in over this time before each contact and out over
     * it after (s; smoothstep weight), but over no more than half the gap
     * to the same leg's previous or next contact, so that one pin never
     * jumps to the next. 0: 0.15. Negative: no blend. */
    float blend_time;
    /* Model-space height of the ground (m) when ground_set; else 0. The
     * ankle is pinned at ground + its rest height above the rest pose's
     * floor: y = 0 (a character standing on the ground at rest), or the
     * foot's lowest rest point when that is lower (heel, toe tip —
     * sk_leg_default_points — or a joint below the ankle). Where a pin is beyond the leg's reach the pelvis (the
     * nearest joint above every hip) is lowered, straight down, as far as
     * the leg needs (at most a quarter of its length). */
    float ground;
    bool ground_set;
    /* Keys of the output. 0: the input clip's key times (every track's,
     * merged); else this many samples per second (at most 10000). */
    float sample_rate;
    /* Bit l set: limb l is an arm (hip = upper arm, knee = lower arm,
     * ankle = hand) whose contacts are hand contacts: the hand is pinned at
     * its own mean position over the contact, height included (a hand on
     * the floor, a rail, a wall), and the pelvis is not lowered for it.
     * 0: every limb is a leg. */
    uint32_t hand_mask;
    /* Keep every leg's foot on or above the ground (ground above) in every
     * key: where the foot's lowest point (heel, toe tip, the joints below the
     * ankle) would be below it, the ankle (pinned or not) is raised by as
     * much (hip and knee turned, the foot's model orientation kept), eased
     * in over the last 5 mm (a foot touching the ground exactly rides
     * 1.25 mm higher). Over a contact the foot then rolls onto its ball with
     * the heel coming up instead of the toes going through the floor. For
     * a clip on level ground (a retargeted walk whose push-off or swing
     * passes through the floor on the target's proportions). Never hands. */
    bool floor;
    /* The clip the contacts came from (a retargeted clip's source), or
     * NULL. Given, each leg's ankle outside its contacts goes to the
     * higher of two heights, both from the source sampled at the same key:
     *  - scale x the source ankle's height, plus an offset that meets the
     *    pins: a contact's pin height less scale x the source ankle's
     *    median height over the contact;
     *  - the height at which the foot's lowest point (heel, toe tip, the
     *    joints below the ankle) is above the ground by scale x the source
     *    foot's lowest point over that point's median over the contact;
     * each offset eased (smoothstep) across the gap from one contact's to
     * the next's; before the first contact and after the last, that
     * contact's; a leg without contacts keeps the clip's height. The swing
     * then clears the ground by the source's clearance scaled, where joint
     * angles copied onto other proportions would have it drag or float.
     * The pins' blends (blend_time) and the floor apply on top. Never
     * hands. The source is read during the call only. */
    const struct sk_contact_source *source;
} sk_contact_restore_options;

/* What sk_contacts_restore did (optional). */
typedef struct sk_contact_restore_stats {
    uint32_t contacts;      /* contacts pinned */
    uint32_t keys;          /* key times of the output */
    float max_error;        /* largest |ankle - pin| at full weight after the solve (m) */
    uint32_t unreachable;   /* samples at full weight whose pin was out of the leg's reach */
    uint32_t raised;        /* with floor: leg-keys whose foot was below the ground, its ankle raised */
    float max_raise;        /* with floor: the largest raise (m) */
    float swing_max_up;     /* with source: the most a swing's ankle was moved up from the clip's height (m, >= 0) */
    float swing_max_down;   /* with source: the most one was moved down (m, >= 0) */
} sk_contact_restore_stats;

/* Writes *out: clip (of skel) with every leg pinned over its contacts as
 * the top of this header says. legs: leg_count (1..16) legs of skel (hip,
 * knee and ankle used; heel/toe points defaulted when not set); contacts:
 * contact_count (may be 0) contacts whose leg indexes refer to legs and
 * whose times are the clip's (position is not used: the pin is the
 * target's own mean position). Contacts of one leg may not overlap. The
 * output has LINEAR tracks at the key times (opts): translation, rotation
 * and scale of every joint the input animates (sampled), rotation of each
 * leg's hip, knee and ankle, and the input's morph-weight tracks copied;
 * its name and duration are the input's. Allocated from alloc (NULL: the C
 * library); free with sk_clip_destroy. opts and stats may be NULL.
 * Errors (SK_ERR_INVALID_ARGUMENT / SK_ERR_INVALID_DATA / SK_ERR_LIMIT,
 * with a message; *out untouched): NULL arguments, bad legs or options, a
 * contact with a bad leg, non-finite or reversed times, overlapping
 * contacts, a clip that does not fit the skeleton, non-finite poses. */
SK_API sk_result sk_contacts_restore(const sk_skeleton *skel, const sk_clip *clip, const sk_leg_desc *legs,
                                     uint32_t leg_count, const sk_contact *contacts, uint32_t contact_count,
                                     const sk_contact_restore_options *opts, const sk_allocator *alloc, sk_clip **out,
                                     sk_contact_restore_stats *stats, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
