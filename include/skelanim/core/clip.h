/* skelanim — animation clips: keyframed tracks per joint and path
 * (translation, rotation, scale, morph weights) with STEP, LINEAR or
 * CUBICSPLINE interpolation (glTF 2.0 Appendix C). The storage layout is
 * private: only this API sees it. Clips are read-only after building and can
 * be shared by any number of skeletons/instances with a compatible layout. */
#ifndef SKELANIM_CLIP_H
#define SKELANIM_CLIP_H

#include "skelanim/core/pose.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sk_track_path {
    SK_PATH_TRANSLATION = 0,
    SK_PATH_ROTATION = 1,
    SK_PATH_SCALE = 2,
    SK_PATH_WEIGHTS = 3
} sk_track_path;

typedef enum sk_interpolation {
    SK_INTERP_LINEAR = 0,
    SK_INTERP_STEP = 1,
    SK_INTERP_CUBICSPLINE = 2
} sk_interpolation;

/* How time outside [0, duration] maps into the clip: the one loop convention
 * of the library (clip sampling, players, state machines). */
typedef enum sk_loop_mode {
    SK_LOOP_REPEAT = 0,   /* t wrapped into [0, duration): t == duration plays 0 (backwards: d..0, d..0) */
    SK_LOOP_CLAMP = 1,    /* t clamped into [0, duration]; a player stops at the ends */
    SK_LOOP_PING_PONG = 2 /* 0..d..0..d ...: period 2d, the second half played backwards */
} sk_loop_mode;

typedef struct sk_clip sk_clip;
typedef struct sk_clip_builder sk_clip_builder;

typedef struct sk_track_desc {
    uint32_t joint;                 /* skeleton joint index */
    sk_track_path path;
    sk_interpolation interpolation;
    uint32_t key_count;             /* >= 1 */
    const float *times;             /* key_count finite, non-decreasing seconds */
    /* Values, `width` floats per element: 3 (T,S), 4 (R: x,y,z,w), or the
     * morph target count (weights). LINEAR/STEP: one element per key.
     * CUBICSPLINE: three per key in glTF order (in-tangent, value, out-tangent). */
    const float *values;
    uint32_t width;                 /* 0 = default for the path (3 or 4); required for weights */
} sk_track_desc;

typedef struct sk_track_info {
    uint32_t joint;
    sk_track_path path;
    sk_interpolation interpolation;
    uint32_t key_count;
    uint32_t width;
    double time_min, time_max;     /* seconds */
} sk_track_info;

/* Starts a clip named name (copied; NULL gives "") whose memory comes from alloc
 * (NULL = C library). */
SK_API sk_result sk_clip_builder_create(const char *name, const sk_allocator *alloc,
                                        sk_clip_builder **out, sk_error *err);
/* Copies the track. Rejects NaN/infinite times or values, decreasing times, a
 * bad width, and a second track for the same joint and path. */
SK_API sk_result sk_clip_builder_add_track(sk_clip_builder *b, const sk_track_desc *track, sk_error *err);
/* The same checks, but the builder keeps the caller's times and values
 * instead of copying them; they must stay valid and unchanged until
 * sk_clip_builder_finish (or _destroy). Finish then reads them once, into the
 * clip's own layout: a reader whose keys are already in memory (the glTF
 * reader's buffers) saves a copy of every key. */
SK_API sk_result sk_clip_builder_add_track_ref(sk_clip_builder *b, const sk_track_desc *track, sk_error *err);
/* Optional: reserves room for this many more tracks, keys and value floats
 * (importers know the totals up front; saves regrowing). */
SK_API sk_result sk_clip_builder_reserve(sk_clip_builder *b, uint32_t tracks, size_t keys, size_t values, sk_error *err);
/* Duration defaults to the largest last-key time of all tracks (as glTF
 * players do); set it explicitly to loop a clip that is longer. */
SK_API void sk_clip_builder_set_duration(sk_clip_builder *b, double duration);

/* ---- For importers: keys checked by the caller, measured, or fetched late ----
 * A reader that has already validated its keys, or whose keys are still in a
 * file, can hand them to the builder without a second pass over them. Each
 * call below keeps the caller's arrays as sk_clip_builder_add_track_ref does
 * (valid and unchanged until finish or destroy). */

/* As sk_clip_builder_add_track_ref, but the caller guarantees what the
 * builder would otherwise check: every time and value finite, times
 * non-decreasing, rotation keys of non-zero length. Those passes are
 * skipped; every other check (joint, width, key count, duplicate track) is
 * made. Keys that break the guarantee give an unspecified (but memory-safe)
 * clip. */
SK_API sk_result sk_clip_builder_add_track_ref_checked(sk_clip_builder *b, const sk_track_desc *track, sk_error *err);

/* What sk_clip_builder_finish measured of one track's values in its single
 * pass over them. bad: every value's (bits & 0x7f800000) + 0x00800000 or'ed
 * together, so its sign bit is set when a value is Inf or NaN (lo and hi then
 * mean nothing). Rotations: lo and hi the smallest and largest squared length
 * in float, ((x*x + y*y) + z*z) + w*w; translations: hi the largest squared
 * length in float, (x*x + y*y) + z*z; scales: hi the largest |component|. */
typedef struct sk_key_stats {
    uint32_t bad;
    float lo, hi;
} sk_key_stats;

/* For a LINEAR or STEP translation, rotation or scale track whose times the
 * caller has checked (finite, non-decreasing) but whose values it has not:
 * finish writes *stats (caller-owned, must outlive finish) and the caller
 * decides from them; a clip built from values that fail the caller's checks
 * is to be destroyed unused. Any other track: SK_ERR_INVALID_ARGUMENT. */
SK_API sk_result sk_clip_builder_add_track_ref_stats(sk_clip_builder *b, const sk_track_desc *track,
                                                     sk_key_stats *stats, sk_error *err);

/* Keys not yet in memory (a reader streaming them from a file):
 * fetch(user, src, bytes, dst) copies the `bytes` bytes that the caller's
 * array at src stands for into dst, or into that array itself when
 * dst == src, and returns false when they cannot be read (finish then fails
 * with SK_ERR_IO; the caller keeps its own message in user). Called only from
 * sk_clip_builder_finish, on the caller's thread. */
typedef bool (*sk_key_fetch_fn)(void *user, const float *src, size_t bytes, float *dst);
/* Sets the fetch function sk_clip_builder_add_track_ref_lazy reads keys through. */
SK_API void sk_clip_builder_set_fetch(sk_clip_builder *b, sk_key_fetch_fn fetch, void *user);

/* As sk_clip_builder_add_track_ref_stats, with the values read through the
 * builder's fetch function (set it first: SK_ERR_INVALID_ARGUMENT without
 * one); track->values names the range fetch is given, it is not read
 * directly. The clip is the one the same keys in memory give. */
SK_API sk_result sk_clip_builder_add_track_ref_lazy(sk_clip_builder *b, const sk_track_desc *track,
                                                    sk_key_stats *stats, sk_error *err);
/* Builds the clip and destroys the builder (also on failure). */
SK_API sk_result sk_clip_builder_finish(sk_clip_builder *b, sk_clip **out, sk_error *err);
/* Frees a builder that was not finished (NULL: nothing happens). */
SK_API void sk_clip_builder_destroy(sk_clip_builder *b);

/* Frees a clip (NULL: nothing happens). */
SK_API void sk_clip_destroy(sk_clip *clip);

/* The clip's name ("" when it has none or clip is NULL). */
SK_API const char *sk_clip_name(const sk_clip *clip);
SK_API double sk_clip_duration(const sk_clip *clip); /* seconds */
/* Number of tracks (0 for NULL). */
SK_API uint32_t sk_clip_track_count(const sk_clip *clip);
/* Fills info for track i (0 <= i < track_count); false if out of range. */
SK_API bool sk_clip_track_info(const sk_clip *clip, uint32_t i, sk_track_info *info);
/* Largest joint index any track targets + 1 (0 for an empty clip). */
SK_API uint32_t sk_clip_joint_span(const sk_clip *clip);
/* Copies the keys of track i: times (key_count) and values (key_count*width,
 * times 3 for CUBICSPLINE). Either pointer may be NULL. */
SK_API bool sk_clip_track_keys(const sk_clip *clip, uint32_t i, float *times, float *values);

/* ---- Compressed clips (offline/compress.h makes them) ----------------------
 * A compressed clip is an sk_clip like any other: every function of this
 * header works on it (sampling decodes the two frames around t, nothing
 * more). Its tracks report LINEAR interpolation and one key per frame
 * (uniform times, the last at the duration); sk_clip_track_keys returns the
 * decoded frame values (rotations normalised, w >= 0), not stored keys. It
 * has no morph-weight tracks. */
SK_API bool sk_clip_is_compressed(const sk_clip *clip);
/* True when the clip's keys are stored frame-major: every track a LINEAR
 * translation, rotation or scale track on the same key times, one per joint
 * and path (baked exports, motion capture, sk_clip_resample's output).
 * sk_clip_builder_finish chooses it by itself; sampling then finds the keys
 * once for the whole clip and interpolates eight joints at a time (into
 * sk_pose or core/soa.h's sk_soa_pose), with the same results as the
 * per-track layout (translation and scale lerped in float rather than
 * double: within 1 ulp-scale rounding). One time array is kept for all
 * tracks. */
SK_API bool sk_clip_is_frame_major(const sk_clip *clip);
/* Bytes the clip holds (its struct, name, track table, keys; a compressed
 * clip's blob when the clip owns it). */
SK_API size_t sk_clip_memory_size(const sk_clip *clip);
/* The compressed blob (little-endian, self-contained; what .skc files hold).
 * False for a clip that is not compressed. */
SK_API bool sk_clip_compressed_data(const sk_clip *clip, const void **data, size_t *size);
/* A clip from a compressed blob. Every offset, count and value range is
 * checked before use (SK_ERR_INVALID_DATA on a bad blob; sampling then reads
 * nothing outside it). copy = false samples the caller's memory in place: it
 * must outlive the clip. */
SK_API sk_result sk_clip_from_compressed(const char *name, const void *data, size_t size, bool copy,
                                         const sk_allocator *alloc, sk_clip **out, sk_error *err);

/* ---- Sampling ---------------------------------------------------------- */

/* Wraps a time per the loop mode: REPEAT gives t - d*floor(t/d) in [0, d)
 * (a zero-length clip gives 0); CLAMP clamps into [0, d]; PING_PONG folds
 * t - 2d*floor(t/2d) back into [0, d]. NaN gives 0. */
SK_API double sk_clip_wrap_time(const sk_clip *clip, double t, sk_loop_mode loop);

/* Samples the clip at time t (wrapped per loop) into a full pose: every
 * joint without a track keeps the skeleton's rest transform and every morph
 * weight without a track its rest weight. Random access: O(log keys) per
 * track. Fails (SK_ERR_INVALID_ARGUMENT) if the pose does not fit the
 * skeleton (sk_pose_check), the clip targets a joint the skeleton does not
 * have, or a weights track does not match the joint's slot. */
SK_API sk_result sk_clip_sample(const sk_clip *clip, const sk_skeleton *skel, double t,
                                sk_loop_mode loop, sk_pose *out, sk_error *err);

/* Sequential playback: a cursor caches each track's last key so steps forward
 * (or backward) cost amortised O(1). The caller owns the cursor memory:
 * sk_clip_cursor_size(clip) uint32_t values, zero-initialised before first use
 * (one per track; one for the whole clip when it is frame-major, since its
 * tracks share their keys: 4 bytes per character per clip). Any time may be
 * passed; a jump just costs a search. */
SK_API size_t sk_clip_cursor_size(const sk_clip *clip);
/* A longer cursor that also keeps a compressed clip's last decoded frames
 * (sk_clip_compress), so that playback moving at most a frame per sample
 * (forward at 60 Hz over 30 Hz frames, for one) decodes each pair of frames
 * once; where the rows decoders run (AVX2 and 16 animated tracks or more,
 * 24 or more on a CPU with AVX-512 VBMI), each frame once: a step to the
 * next or previous pair decodes only its new frame. 32 bytes per animated
 * track. Sampling uses the cache whenever the
 * cursor passed holds at least this many values. Worth it where the
 * characters' cursors stay in the CPU's cache (small skeletons, crowds of
 * hundreds); cursors that do not fit in it can make forward sampling slower
 * than the plain cursor (docs/performance.md). For other clips it is
 * sk_clip_cursor_size. The results are the same bits either way; a cursor
 * is for one clip (a cache written by another clip is recognised and not
 * used). */
SK_API size_t sk_clip_cursor_cache_size(const sk_clip *clip);
/* A cursor longer still, with room for a third decoded frame where the rows
 * decoders run: a step to the next pair decodes the frame after it too, so
 * that the step after needs no decoding (forward playback decodes on every
 * other step). Up to 48 bytes per animated track, padded to eight tracks;
 * for the crowds whose cursors stay in the CPU's cache even more than
 * sk_clip_cursor_cache_size (docs/performance.md has the sizes where each
 * pays). For clips without the rows decoders it is
 * sk_clip_cursor_cache_size. The same bits again; a cursor passed with
 * another count than last time starts over (its frames are not misread). */
SK_API size_t sk_clip_cursor_ahead_size(const sk_clip *clip);
/* sk_clip_sample with a cursor (cursor_count values, sk_clip_cursor_size,
 * sk_clip_cursor_cache_size or sk_clip_cursor_ahead_size of them): the same
 * pose, found from the keys of the previous sample. */
SK_API sk_result sk_clip_sample_cursor(const sk_clip *clip, const sk_skeleton *skel, double t,
                                       sk_loop_mode loop, uint32_t *cursor, size_t cursor_count,
                                       sk_pose *out, sk_error *err);

/* Samples only the tracks (the pose keeps whatever it held for other
 * joints). cursor may be NULL (random access; cursor_count is then ignored). */
SK_API sk_result sk_clip_sample_tracks(const sk_clip *clip, const sk_skeleton *skel, double t,
                                       sk_loop_mode loop, uint32_t *cursor, size_t cursor_count,
                                       sk_pose *io, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
