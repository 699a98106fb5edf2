/* skelanim — clip compression (offline) with one knob: the largest error
 * allowed, in centimetres, measured the way the Animation Compression Library
 * measures it: three virtual vertices at a shell distance (3 cm by default)
 * along each joint's axes, moved through the hierarchy into model space,
 * compared between the original and the compressed clip.
 *
 * The result is an sk_clip of the compressed kind (core/clip.h), sampled
 * through the same API in place: uniform frames in segments (16 by default),
 * constant tracks stored once, rotations as x,y,z with w >= 0, each animated
 * track range-reduced per clip and per segment and quantised with a bit rate
 * chosen per track and segment against the model-space error (a parent's
 * error moves its children), frames laid out in playback order. The
 * compressor checks its result by sampling it at every frame and between
 * frames; it raises bit rates until every sample is within the error.
 *
 * It never stores more frames per second than its input has: a clip whose
 * keys are uniform is stored at that key rate (or the rate asked for); where
 * the error cannot be met there even at the highest bit rates, it tries
 * shorter segments (more range and dropped-component bytes, the same rate)
 * and then fails with SK_ERR_UNSUPPORTED rather than raise the rate.
 * docs/compression.md has the measurements. */
#ifndef SKELANIM_COMPRESS_H
#define SKELANIM_COMPRESS_H

#include "skelanim/core/clip.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_compress_options {
    double error_cm;        /* largest error allowed, cm; 0 = 0.01 */
    double shell_cm;        /* virtual vertex distance, cm; 0 = 3 */
    double metres_per_unit; /* of the clip's positions; 0 = 1 (metres) */
    /* Frames per second; 0 = the clip's own key rate (sk_clip_key_rate) when
     * its keys are uniform, never more; a clip without one (keys at irregular
     * times, CUBICSPLINE or STEP) is stored at 30, 60, 120 or 240, the first
     * that holds the error. A rate given here is used as it is. */
    double sample_rate;
    /* Frames per segment; 0 = 16, then 8, 4, 2 and 1 where the error cannot
     * be met with 16 (fast motion: see docs/compression.md). */
    uint32_t segment_len;
    /* The most work one attempt may do, in frame-tracks (frames sampled x
     * max(tracks, joints)); 0 = sk_clip_work_limit(clip). A clip whose
     * frames at a tried rate would pass it fails with SK_ERR_LIMIT and a
     * message naming the limit, before anything is allocated. */
    double max_work;
} sk_compress_options;

/* Work and memory tied to the input: sampling a clip at a rate does work
 * and takes memory in proportion to frames x tracks, which a few stored keys
 * over a long duration can make arbitrarily large. The default limit is
 * max(SK_WORK_MIN, SK_WORK_PER_VALUE x the float values the clip stores):
 * a capture resampled or compressed at up to 64 times its own key count
 * passes, three keys over 300,000 s do not. */
#define SK_WORK_MIN 1048576.0   /* frame-tracks allowed whatever the clip stores */
#define SK_WORK_PER_VALUE 64.0  /* frame-tracks allowed per stored float value */
/* The default work limit of clip: max(SK_WORK_MIN, SK_WORK_PER_VALUE x the
 * float values it stores), in frame-tracks. */
SK_API double sk_clip_work_limit(const sk_clip *clip);

typedef struct sk_compress_stats {
    /* The input's own keys as ACL counts raw data: 10 float32 per joint with
     * a track per input frame (40 x joints x input_frames), whatever rate the
     * result is stored at; the ratio is raw_bytes / compressed_bytes. */
    double raw_bytes;
    size_t compressed_bytes; /* the blob (sk_clip_compressed_data) */
    uint32_t frames;         /* stored (output) frames */
    double sample_rate;      /* stored (output) frames per second */
    uint32_t constant_tracks, animated_tracks;
    double max_error_cm, p99_error_cm; /* over every joint at every frame and between frames */
    uint32_t error_samples;            /* joint samples measured */
    uint32_t input_frames;   /* the input clip's frames: the largest key count of its tracks */
    double input_rate;       /* its key rate (sk_clip_key_rate), or its mean key rate when its keys are not uniform */
    bool input_uniform;      /* whether its keys are uniform (sk_clip_key_rate > 0) */
    uint32_t segment_len;    /* frames per segment of the result */
    uint32_t step_tracks;    /* STEP tracks whose keys differ, kept as their keys (exact; not in constant_tracks) */
} sk_compress_stats;

/* The clip's own key rate, frames per second, when every track's keys are
 * LINEAR and uniform at one rate (at multiples of the period; the first key
 * may come later than 0); else 0. What sk_clip_compress stores such a clip
 * at by default, and the most `skelanim compress --fps` resamples it to. */
SK_API double sk_clip_key_rate(const sk_clip *clip);

/* Compresses clip (every joint it targets must exist in skel). STEP tracks
 * whose keys differ are kept as their keys (times and float32 values,
 * sampled as STEP: exact); the other tracks are stored as uniform frames
 * (at the clip's own key rate, or the asked-for rate; a clip without a rate
 * of its own at a rate whose frames fall on its keys where they lie on a
 * grid, raised until the error holds). The error is checked at every frame,
 * the quarters between frames and the input's own key times. Fails with
 * SK_ERR_UNSUPPORTED for a clip with morph-weight tracks or one whose
 * error cannot be met at any tried sample rate. */
SK_API sk_result sk_clip_compress(const sk_clip *clip, const sk_skeleton *skel, const sk_compress_options *opt,
                                  const sk_allocator *alloc, sk_clip **out, sk_compress_stats *stats, sk_error *err);

/* The same clip resampled at fps: frames at k / fps for every k / fps within
 * the duration, or past it by less than 1 % of a frame (sampled clamped: the
 * last source frame; BVH frame times are rounded) (LINEAR; the new duration
 * is the last frame's time: 120 to 24 fps keeps every 5th frame, the last
 * one included when the frame count is 1 + a multiple of 5): what
 * `skelanim compress --fps` compresses and measures against. */
SK_API sk_result sk_clip_resample(const sk_clip *clip, const sk_skeleton *skel, double fps, const sk_allocator *alloc,
                                  sk_clip **out, sk_error *err);
/* The same with a work limit in frame-tracks (frames x max(tracks, joints));
 * 0 = sk_clip_work_limit(clip). Past it: SK_ERR_LIMIT, nothing allocated.
 * sk_clip_resample is this with 0. */
SK_API sk_result sk_clip_resample_limited(const sk_clip *clip, const sk_skeleton *skel, double fps, double max_work,
                                          const sk_allocator *alloc, sk_clip **out, sk_error *err);

/* The shell error of `test` against `ref` (both sampled with sk_clip_sample)
 * at each of `count` times: the largest and the 99th percentile over every
 * joint at every time, in the clips' units. */
SK_API sk_result sk_clip_shell_error(const sk_clip *ref, const sk_clip *test, const sk_skeleton *skel, double shell,
                                     const double *times, size_t count, const sk_allocator *alloc, double *max_error,
                                     double *p99_error, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
