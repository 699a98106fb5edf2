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
 * asset with the skeleton and no clip.
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
 * Frame Time that is not positive, a frame with too many or too few values,
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

/* A zeroed struct (or NULL) gives the defaults. */
typedef struct sk_bvh_options {
    sk_allocator allocator;     /* zero = C library */
    sk_file_io file_io;         /* zero = stdio, regular files only (skelanim/io/file.h) */
    uint64_t max_file_bytes;    /* 0 = 1 GiB */
    double scale;               /* units per file unit (e.g. 0.056444 for CMU in metres); 0 = 1;
                                   must be finite and positive otherwise */
    uint32_t max_joints;        /* 0 = SK_BVH_MAX_JOINTS */
} sk_bvh_options;

/* Loads a .bvh file (through opts->file_io). Messages start with the path. */
SK_API sk_result sk_bvh_load_file(const char *path, const sk_bvh_options *opts, sk_asset **out, sk_error *err);
/* The same from memory; name (NULL: "bvh") starts the messages and names the clip. */
SK_API sk_result sk_bvh_load_memory(const void *data, size_t size, const char *name, const sk_bvh_options *opts,
                                    sk_asset **out, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
