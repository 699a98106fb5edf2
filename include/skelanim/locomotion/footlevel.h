/* skelanim — level feet: a clip's planted feet turned flat on the ground.
 *
 * A clip retargeted from another skeleton plants its feet at the source's
 * angle: when the two skeletons' rest poses hold the foot differently
 * against the ground (a motion-capture rest whose foot points down, a mesh
 * bound with pointed feet), every planted foot of the retargeted clip
 * stands on its heel with its toe in the air, or on its toe, by about the
 * same angle. sk_foot_level measures that angle and turns each ankle back
 * by it, at every key, so the feet are flat where they are planted.
 *
 * Per leg: the contacts of the clip (sk_contacts_find: the ankle low and
 * still) give the planted samples; over the middle of each contact the
 * foot's pitch is measured — the angle above the horizontal of the line
 * from the leg's heel point (carried by the ankle) to its toe point
 * (carried by the toe joint, or the ankle without one), toe up positive —
 * and its median, less the pitch of a flat foot (the same line's in the
 * rest pose, or one given per leg), is the leg's tilt. The ankle's
 * rotation is then turned about the foot's own side axis (the horizontal
 * axis across the heel-to-toe line at the planted samples, in the ankle's
 * frame) by the tilt, which lowers a raised toe by it: a constant
 * correction, the same at every key, as a rest-pose difference is.
 * Nothing else of the clip changes.
 *
 * Spaces: +Y is up; model space of the clip's skeleton. Angles in radians.
 * Thread safety: the function shares nothing; distinct outputs may be
 * written at once. */
#ifndef SKELANIM_LOCOMOTION_FOOTLEVEL_H
#define SKELANIM_LOCOMOTION_FOOTLEVEL_H

#include "skelanim/locomotion/contacts.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SK_FOOT_LEVEL_MAX_LEGS 16u

/* Options of sk_foot_level; a zeroed struct gives the defaults. */
typedef struct sk_foot_level_options {
    /* Largest correction (radians, 0 to pi/2). A leg whose tilt is larger
     * is left as it is (a foot whose planted phase is not flat). 0: 1.0
     * (57 degrees: a mesh bound with pointed feet gives 20 to 50). */
    float max_angle;
    /* Smallest tilt corrected (radians): a smaller one is left as it is.
     * 0: 0.0087 (half a degree). */
    float min_angle;
    /* The share of each contact measured, around its middle (the heel
     * strike and the push-off at its ends roll the foot). 0: 0.5; at most 1. */
    float middle;
    /* Per leg (leg_count values; NULL: the rest pose's): the pitch of the
     * heel-to-toe line (radians, toe up +) of a foot standing flat. With
     * heel and toe points on the sole (sk_leg_default_points,
     * sk_leg_points_from_mesh) the rest pose's is 0 whatever the bind pose
     * does with the foot: both points are found at its lowest height. */
    const float *flat_pitch;
    /* The contacts' detection; NULL: sk_contacts_find's defaults. */
    const sk_contact_find_options *find;
    /* The planted intervals to measure over, instead of the clip's own
     * (contact_count of them; their leg indexes into legs, times in the
     * clip's seconds; find is then unused). For a retargeted clip, the
     * source's contacts found on its own skeleton: retargeting does not move
     * them, and the retargeted ankle, carried by other proportions, can
     * creep out of sk_contacts_find's band mid-stance. NULL: found on the
     * clip. A contact whose leg is out of range or whose times are not
     * finite with start <= end is an error. */
    const sk_contact *contacts;
    uint32_t contact_count;
    /* Level each contact by its own tilt instead of one per leg: for a clip
     * whose feet stand at different angles in different contacts (a
     * capture that stands, then walks or hops). Each contact of 0.25 s or
     * more with planted samples and a tilt within max_angle is turned by
     * its own, a shorter one (a landing or push-off cut short) by the leg's
     * (none under min_angle; the leg is levelled when one is), a key between two of them by
     * the two corrections interpolated over the time between them (slerp),
     * a key before the first or after the last by that one's. The ankle's
     * rotation keys are multiplied by the correction at their time
     * (CUBICSPLINE tangents by their key's): the correction changes only
     * between contacts, as smoothly as the keys are dense. */
    bool per_contact;
} sk_foot_level_options;

/* What sk_foot_level measured and did, per leg (optional). */
typedef struct sk_foot_level_stats {
    float pitch[SK_FOOT_LEVEL_MAX_LEGS];       /* the planted foot's median pitch (rad, toe up +) */
    float tilt[SK_FOOT_LEVEL_MAX_LEGS];        /* pitch less the flat pitch (rad) */
    float spread[SK_FOOT_LEVEL_MAX_LEGS];      /* the pitch's interquartile range over the samples (rad) */
    uint32_t samples[SK_FOOT_LEVEL_MAX_LEGS];  /* planted samples measured */
    uint32_t contacts[SK_FOOT_LEVEL_MAX_LEGS]; /* contacts of the leg */
    bool applied[SK_FOOT_LEVEL_MAX_LEGS];      /* the ankle was turned by tilt */
} sk_foot_level_stats;

/* Writes *out: clip (of skel) with each leg's ankle turned as the top of
 * this header says. legs: leg_count (1..SK_FOOT_LEVEL_MAX_LEGS) legs of
 * skel; their heel and toe points are used when set, else defaulted
 * (sk_leg_default_points) on a copy. out may be NULL: the tilts are
 * measured (stats) and no clip is made. A leg with no planted sample, or a
 * tilt outside [min_angle, max_angle], is left as it is (stats says
 * which). The output has the input's tracks, interpolations, key times,
 * name and duration; each turned ankle's rotation track has every value
 * (tangents of a CUBICSPLINE track too) multiplied on the right by the
 * leg's constant correction; an ankle the input does not animate gets a
 * one-key rotation track (its rest rotation, corrected). A compressed
 * input gives an uncompressed output of its decoded frames. Allocated from
 * alloc (NULL: the C library); free with sk_clip_destroy. opts and stats
 * may be NULL. Errors (SK_ERR_INVALID_ARGUMENT / SK_ERR_INVALID_DATA /
 * SK_ERR_LIMIT / SK_ERR_OUT_OF_MEMORY, with a message; *out untouched):
 * NULL arguments, bad legs or options, a clip that does not fit the
 * skeleton, non-finite poses. */
SK_API sk_result sk_foot_level(const sk_skeleton *skel, const sk_clip *clip, const sk_leg_desc *legs,
                               uint32_t leg_count, const sk_foot_level_options *opts, const sk_allocator *alloc,
                               sk_clip **out, sk_foot_level_stats *stats, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
