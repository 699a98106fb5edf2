/* skelanim — BVH (Biovision hierarchy) motion-capture reader (part of
 * libskelanim_io). Produces an sk_asset like the glTF reader: a skeleton and
 * one clip; no meshes, skins or looks. docs/bvh.md has the details.
 *
 * Skeleton: one joint per ROOT and JOINT, in file order (parents before
 * children), named as in the file; every "End Site" becomes a leaf joint named
 * "<parent>_end" (BVH gives end sites no name; names are not made unique, so
 * a file that already has a joint called "X_end" may have two). Rest local
 * transform = the OFFSET (times the scale), identity rotation, unit scale.
 * Several ROOT hierarchies are allowed: the asset's one scene lists them.
 *
 * Channels: CHANNELS n with n in 0..6 channel names, each of Xposition,
 * Yposition, Zposition, Xrotation, Yrotation, Zrotation at most once, in any
 * order, on any joint. The frame values are read in the order the CHANNELS
 * statements appear in the file. Rotations are Euler angles in degrees,
 * composed exactly in the order they are listed (intrinsic): "Zrotation
 * Xrotation Yrotation" is R = Rz(z) · Rx(x) · Ry(y), acting on column vectors
 * (child-to-parent), computed in double and stored as a unit quaternion.
 * Position channels give the translation in the parent's frame wherever they
 * stand in the list (local = T(position) · R).
 *
 * The root convention (readers disagree; ../shared/mocap/ATTRIBUTION.md):
 * position channels are ABSOLUTE. A joint's local translation is its position
 * channel values, NOT OFFSET + values: the OFFSET is only the rest pose. An
 * axis without a position channel keeps the OFFSET's component. For the usual
 * root OFFSET 0 0 0 (every shared CMU file, and so every Blender conversion in
 * ../shared/mocap/glb) both conventions give the same pose; a reader that adds
 * the two differs from this one by the OFFSET on other files (docs/bvh.md).
 *
 * Clip: named after the file (its base name without the extension; "bvh"
 * from memory unless a name is given), key i at time (float)(i · Frame Time)
 * seconds, LINEAR, one rotation track per joint with at least one rotation
 * channel and one translation track per joint with at least one position
 * channel; joints without channels and end sites keep their rest transform.
 * Consecutive rotation keys are kept in the same hemisphere (q and -q are the
 * same rotation). Duration (frames - 1) · Frame Time. Frames: 0 gives an
 * asset with the skeleton and no clip. Blank frames (every channel 0) are
 * kept or filled (opts->blank) and reported (opts->warning).
 *
 * Units: kept as in the file unless opts->scale (metres, or any unit, per file
 * unit; CMU files are 0.056444 m per unit) multiplies every OFFSET and
 * position channel value.
 *
 * Errors: every problem of the text is SK_ERR_PARSE (or SK_ERR_LIMIT for the
 * limits below) with a message "NAME:LINE: what was expected", NAME being the
 * path (or the name given to sk_bvh_load_memory), e.g.
 * "walk.bvh:12: CHANNELS 6 lists 3 channel names" or "walk.bvh:140: frame 3
 * has 95 values, expected 96". Rejected: a missing HIERARCHY or MOTION, an
 * unknown keyword, a joint without OFFSET or CHANNELS, a channel count outside
 * 0..6 or not matching its names, an unknown or repeated channel name,
 * non-numeric, non-finite or out-of-range values (see SK_BVH_MAX_COORD), a
 * Frame Time that is not positive or so small that two key times (float
 * seconds) are equal, a frame with too many or too few values,
 * fewer or more frame lines than "Frames:" says, a file cut anywhere.
 *
 * Limits: at most opts->max_joints joints (0 = SK_BVH_MAX_JOINTS), end sites
 * included; the nesting depth is bounded only by that (the reader does not
 * recurse: a 10,000-deep chain loads). At most SK_BVH_MAX_FRAMES frames, and
 * "Frames: N" is refused before any allocation when N frames of the
 * hierarchy's channels cannot fit in the rest of the file (at least two bytes
 * per value), so memory stays proportional to the file size.
 *
 * Memory: everything from opts->allocator (the file through opts->file_io).
 * Numbers are read with strtod in the C locale's format ("." decimal point). */
#ifndef SKELANIM_IO_BVH_H
#define SKELANIM_IO_BVH_H

#include "skelanim/core/asset.h"
#include "skelanim/io/file.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SK_BVH_MAX_JOINTS 65536u      /* default joint limit (ROOT, JOINT and End Site) */
#define SK_BVH_MAX_FRAMES 10000000u   /* "Frames:" above this is refused */
#define SK_BVH_MAX_COORD 1e15         /* |OFFSET| and |position value| x scale above this is refused */
#define SK_BVH_MAX_DURATION 1e9       /* seconds: (frames - 1) x Frame Time above this is refused */

/* Blank frames: frame lines whose every channel is 0, which capture exports
 * write where the capture recorded nothing (the skeleton at the origin in its
 * rest pose). */
typedef enum sk_bvh_blank {
    SK_BVH_BLANK_KEEP = 0, /* kept as written */
    /* Each run of blank frames takes the pose between the recorded frames
     * around it: translations lerped, rotations slerped by the frame's share
     * of the gap; a run at the start takes the first recorded frame, at the
     * end the last. A file whose every frame is blank is kept. The other
     * frames keep their keys, but for a rotation key after a run that may
     * change sign (q for -q, the same rotation) so that consecutive keys
     * stay in one hemisphere. */
    SK_BVH_BLANK_FILL = 1
} sk_bvh_blank;

/* A warning of the reader (sk_bvh_options.warning): what loads but may not
 * be what was meant; message starts with the name. Today: blank frames (how
 * many, their frame indices, kept or filled). */
typedef void (*sk_bvh_warning_fn)(void *user, const char *message);

/* A zeroed struct (or NULL) gives the defaults. */
typedef struct sk_bvh_options {
    sk_allocator allocator;     /* zero = C library */
    sk_file_io file_io;         /* zero = stdio, regular files only (skelanim/io/file.h) */
    uint64_t max_file_bytes;    /* 0 = 1 GiB */
    double scale;               /* units per file unit (e.g. 0.056444 for CMU in metres); 0 = 1;
                                   must be finite and positive otherwise */
    uint32_t max_joints;        /* 0 = SK_BVH_MAX_JOINTS */
    uint32_t blank;             /* sk_bvh_blank; 0 = SK_BVH_BLANK_KEEP; another value is an error */
    sk_bvh_warning_fn warning;  /* NULL: no warnings */
    void *warning_user;
} sk_bvh_options;

/* Loads a .bvh file (through opts->file_io). Messages start with the path. */
SK_API sk_result sk_bvh_load_file(const char *path, const sk_bvh_options *opts, sk_asset **out, sk_error *err);
/* The same from memory; name (NULL: "bvh") starts the messages and names the clip. */
SK_API sk_result sk_bvh_load_memory(const void *data, size_t size, const char *name, const sk_bvh_options *opts,
                                    sk_asset **out, sk_error *err);

/* ---- Writing -----------------------------------------------------------------
 * A skeleton and one of its clips as BVH text that this reader (and other
 * BVH readers: Blender's) read back to the same joint positions.
 *
 * Rest pose: the file's rest pose (every channel 0) is the skeleton's rest
 * pose. BVH joints have no rest rotation, so each joint is written in a
 * frame with the world's axes at rest: OFFSET = the joint's rest translation
 * turned into its parent's world-aligned frame (times opts->scale); a
 * frame's rotation of joint j is W_p . R_j(t) . W_j^-1 (W: the rest world
 * rotations; R_j(t): the clip's local rotation), its position channels (the
 * root always, another joint when its translation is animated) W_p . t_j(t).
 * Joint world positions are the skeleton's at every frame (in file units).
 *
 * Joints: every joint, parents before children, named as in the skeleton
 * (spaces, braces and empty names replaced: "a b" -> "a_b", "" -> "joint_N").
 * A leaf joint named "<parent>_end" (what this reader makes of an End Site)
 * becomes its parent's End Site again; another leaf gets an End Site of zero
 * OFFSET. Every root joint is a ROOT hierarchy.
 *
 * Euler orders: with SK_BVH_EULER_AUTO each joint gets, of the six
 * Tait-Bryan orders, the one whose middle angle stays farthest from +-90
 * degrees over the clip (gimbal lock), and each angle is unwrapped frame to
 * frame (the equivalent triple nearest the previous frame's), so no channel
 * jumps by 360 degrees or flips. Values are written with 9 significant
 * digits.
 *
 * Frames: the clip's key times when every track's keys are uniformly spaced
 * from 0 at one common step (a capture, or a uniformly keyed glTF clip); else
 * the clip is sampled every opts->frame_time seconds (0: 1/30 s) and
 * report->resampled says so; with opts->refuse_resample that is an error
 * instead (SK_ERR_UNSUPPORTED). Scale: BVH has no scale channels. A
 * constant uniform scale (a rest scale, or a scale track whose keys all hold
 * one uniform value: an FBX file's unit scale) is baked into the OFFSETs and
 * position channels, so joint positions are kept (report->scale_baked counts
 * the joints); any other (non-uniform, or changing over the clip) is refused
 * (SK_ERR_UNSUPPORTED naming the joint), or with opts->drop_scale taken as
 * 1 for that joint (report->scale_dropped counts them).
 * A NULL clip writes one frame of the rest pose. */
typedef enum sk_bvh_euler {
    SK_BVH_EULER_AUTO = 0,
    SK_BVH_EULER_XYZ, SK_BVH_EULER_XZY, SK_BVH_EULER_YXZ, SK_BVH_EULER_YZX, SK_BVH_EULER_ZXY, SK_BVH_EULER_ZYX
} sk_bvh_euler;

/* A zeroed struct (or NULL) gives the defaults. */
typedef struct sk_bvh_write_options {
    sk_allocator allocator;   /* zero = C library */
    sk_file_io file_io;       /* sk_bvh_write_file only; zero = stdio */
    double scale;             /* file units per skeleton unit; 0 = 1; finite and > 0 otherwise */
    double frame_time;        /* s, for a resampled clip; 0 = 1/30; in [1e-4, 10] otherwise */
    sk_bvh_euler euler;       /* the order of every joint, or AUTO: per joint */
    bool refuse_resample;     /* non-uniform key times: SK_ERR_UNSUPPORTED instead of resampling */
    bool drop_scale;          /* scale other than 1: dropped (counted) instead of refused */
} sk_bvh_write_options;

/* What the writer did with what BVH cannot hold. */
typedef struct sk_bvh_write_report {
    uint32_t frames;
    double frame_time;        /* s */
    bool resampled;           /* the key times were not uniform: sampled every frame_time */
    uint32_t scale_dropped;   /* joints whose scale was dropped (drop_scale) */
    uint32_t scale_baked;     /* joints whose constant uniform scale (not 1) went into the offsets */
    uint32_t euler_counts[7]; /* joints per order, indexed by sk_bvh_euler (AUTO unused) */
} sk_bvh_write_report;

/* The text into *out (allocated with opts->allocator, size bytes without a
 * terminator; free with sk_free(&alloc, *out, *size)). report may be NULL.
 * Errors: SK_ERR_INVALID_ARGUMENT (NULL arguments, options out of range, a
 * clip that does not fit the skeleton, a non-finite pose at some frame),
 * SK_ERR_UNSUPPORTED (as above), SK_ERR_LIMIT (more than SK_BVH_MAX_FRAMES
 * frames), SK_ERR_OUT_OF_MEMORY. Thread safety: reads its arguments only. */
SK_API sk_result sk_bvh_write_memory(const sk_skeleton *skel, const sk_clip *clip, const sk_bvh_write_options *opts,
                                     sk_bvh_write_report *report, char **out, size_t *size, sk_error *err);
/* The same into a file (through opts->file_io); messages start with the path. */
SK_API sk_result sk_bvh_write_file(const char *path, const sk_skeleton *skel, const sk_clip *clip,
                                   const sk_bvh_write_options *opts, sk_bvh_write_report *report, sk_error *err);

/* The name of an order ("XYZ", ... as the channel order in the file), "auto" for AUTO, NULL out of range. */
SK_API const char *sk_bvh_euler_name(sk_bvh_euler order);

#ifdef __cplusplus
}
#endif
#endif
