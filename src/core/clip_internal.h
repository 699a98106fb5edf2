/* Private: the storage of sk_clip, shared by the clip module's sources
 * (clip.c: the clip and sampling of float keys; clip_build.c and
 * clip_build_frames.c: the builder; clip_compressed*.c: the compressed kind)
 * and the compressor (compress.c). Not installed. */
#ifndef SKELANIM_CLIP_INTERNAL_H
#define SKELANIM_CLIP_INTERNAL_H

#include "core/internal.h"
#include "skelanim/core/clip.h"

#include <math.h>

typedef struct sk_track {
    uint32_t joint;
    uint8_t path, interp;
    uint16_t pad_;
    uint32_t key_count;
    uint32_t width;        /* floats per element */
    size_t time_offset;    /* into clip->times */
    size_t value_offset;   /* into clip->values */
} sk_track;

typedef enum sk_clip_kind { SK_CLIP_KEYS = 0, SK_CLIP_COMPRESSED = 1 } sk_clip_kind;

/* Frame-major keys (a layout of SK_CLIP_KEYS, chosen by
 * sk_clip_builder_finish when every track is a LINEAR translation, rotation
 * or scale track on the same key times, one track per joint and path): one
 * time array for all tracks and, per key, one block per (group of 8 joints,
 * path) that has tracks, the path's components of the 8 joints in rows
 * (translation and scale 3 x 8 floats, rotation 4 x 8: sk_soa_pose's rows),
 * in joint order. Lanes without a track hold the identity (0; 0,0,0,1; 1)
 * and are never written out. A block with one or two tracks (a root's
 * translation, the usual case) is stored compact instead, its tracks' values
 * one after the other after the full blocks, so it costs what per-track
 * keys cost. Sampling reads two keys' blocks front to back
 * and interpolates eight joints at a time (core/soa_kernels.h). The
 * per-track values are not kept (values is NULL): track keys are gathered
 * from the blocks. */
typedef struct sk_frame_block {
    uint32_t group;    /* joints 8 group .. 8 group + 7 */
    uint8_t path;      /* SK_PATH_TRANSLATION, _ROTATION or _SCALE */
    uint8_t mask;      /* bit l: joint 8 group + l has this track */
    uint8_t comps;     /* 3 or 4 */
    uint8_t compact;   /* 1: at most two tracks, stored one after the other
                          (comps floats each, in lane order) after the full
                          blocks and sampled one by one; 0: rows of 8 */
    uint32_t offset;   /* floats from the start of a key's frame */
} sk_frame_block;

/* Where component r of lane l's key sits in a key's frame. */
static inline size_t sk_frame_index(const sk_frame_block *b, uint32_t l, uint32_t r) {
    if (!b->compact) return b->offset + r * 8u + l;
    return b->offset + (size_t)__builtin_popcount(b->mask & ((1u << l) - 1u)) * b->comps + r;
}

typedef struct sk_clip_frames {
    float *data;               /* keys x stride floats, 32-byte aligned (data_raw inside) */
    void *data_raw;            /* the allocation */
    size_t data_bytes;         /* its size */
    uint32_t keys;             /* key count (>= 2) */
    uint32_t stride;           /* floats per key (a multiple of 8) */
    uint32_t block_count;
    uint32_t tracks;           /* the clip's track count (blocks and track_block hold as many) */
    sk_frame_block *blocks;
    uint32_t *track_block;     /* per track: its block */
} sk_clip_frames;

struct sk_clip {
    sk_allocator alloc;
    uint8_t kind;              /* sk_clip_kind */
    bool blob_owned;           /* compressed: blob allocated (blob_size bytes) by alloc */
    const uint8_t *blob;       /* compressed: the blob (format below) */
    size_t blob_size;
    char *name;
    float duration;
    uint32_t track_count;
    uint32_t joint_span;
    uint32_t weight_tracks;    /* morph-weight tracks (their layout is checked per sample) */
    sk_track *tracks;
    float *times;
    float *values;
    size_t time_total, value_total;
    sk_clip_frames *frames;     /* frame-major keys, or NULL */
    struct {                    /* compressed: header fields read once at load */
        uint32_t frames, anim, seg_len, segments;
        uint32_t steps; /* STEP tracks kept as keys (version 5): interp SK_INTERP_STEP, their keys at time_offset in the blob */
        uint32_t seg_shift; /* log2(seg_len) when it is a power of two (the compressor's 16), else 32 */
        float rate;
        const uint8_t *consts;
        const float *ranges;     /* A x 8: per animated track its clip minimum (x,y,z,w) then extents, in the plan */
        const uint32_t *segtab;  /* S x 2: each segment's byte offset in the blob and bits per frame, in the plan */
        /* the AVX2 decoder's plan, one allocation of plan_words (clip_compressed.c) */
        uint32_t *plan;
        const uint32_t *slots; /* the decoder's part of the plan (after the ranges and segments) */
        size_t plan_words;
        uint32_t rots; /* animated rotation tracks (the plan's joint lists split there) */
        /* the rows decoder's part of the plan (NULL where it is not used: clip_compressed.c) */
        const float *rrows;    /* per block of 16 animated tracks the clip ranges as rows: minima x,y,z,w then extents, 16 lanes each */
        const uint32_t *rmask; /* per block, bit i: its track i is a rotation */
        bool pose_rows;        /* whole poses through SoA groups (sk_cclip_sample_pose) */
        bool rows_vbmi;        /* the rows decoder for the rows is the AVX-512 VBMI one (else AVX2's) */
        /* per SoA group of eight joints up to the clip's span, bit 8 p + l: joint l of the
         * group has a track of path p (a path with all eight: its rows are not copied from the rest pose) */
        const uint32_t *gcover;
        /* where an SoA pose gets the animated rotations, per block of eight of each chunk's (the
         * decoders' order): CC_PLACE_WORDS words, two (rows' first float, lanes) pairs, the lanes
         * word a mask of the group's lanes written (bits 24-31) and per lane p the block lane it
         * takes (bits 3p..3p+2); first word CC_PLACE_LANES: one lane at a time (clip_compressed_internal.h) */
        const uint32_t *rplace;
        /* the constant tracks as SoA rows, per group of eight joints that has any, in group order:
         * its index, its lanes per path (bit 8 p + l), the group's 80 floats (sk_cclip_rest_soa) */
        uint32_t ncgroups;
        bool rest_avx2; /* sk_cclip_rest_soa by row stores of 32 bytes (the CPU has AVX2) */
        const uint32_t *cgroups;
        /* a cursor's cache of decoded frames (clip_compressed_x86.h, cc_cache_hit): its size in words
         * (sk_clip_cursor_cache_size), and with a third frame (sk_clip_cursor_ahead_size: the rows
         * decoders' ring of three, clip_compressed_rows_body.h; else cache_words) */
        uint32_t cache_words, ahead_words;
    } cc;
};


/* ---- The compressed kind (clip_compressed*.c decode, compress.c encodes) ----
 * A compressed clip is one little-endian blob, read in place:
 *   header (SK_CC_HEADER = 40 bytes): u32 magic "SKCB", u32 version, u32 blob
 *     size, u32 frames N, f32 sample rate, f32 duration, u32 tracks T, u32
 *     animated A, u32 segment length L, u32 step tracks K (0 in version 4);
 *   tracks: T x u32 (joint in bits 0-23, path in bits 24-25, animated in bit
 *     26, a STEP track kept as its keys in bit 27 (version 5; never with bit
 *     26), the rest 0), sorted by joint then path;
 *   constants: (T - A) x 4 f32 (rotation x,y,z,w with w >= 0; T/S: x,y,z,0;
 *     a step track's: its first key, what every decoder writes before the
 *     step keys are applied);
 *   ranges, per animated track in data order (the animated rotations in
 *     track order, then the animated translations and scales in track
 *     order; all that follows per animated track is in this order): a
 *     rotation 4 x u16 lo then 4 x u16 hi (per component x,y,z,w: the clip minimum lo x 2/65535 - 1
 *     and the extent (hi - lo) x 2/65535, sk_cc_rot_range), a translation or
 *     scale 3 x f32 minimum then 3 x f32 extent;
 *   step keys (version 5), per step track in track order: u32 key count n
 *     (>= 2), n x f32 times (finite, >= 0, increasing), n x W f32 values (W =
 *     4 for a rotation, a unit quaternion; 3 otherwise): sampled as glTF
 *     STEP (the key at or before t, the first before it), after the decoders;
 *   segments, S = (N - 1) / L + 1 of them one after another; segment s holds
 *     frames [sL, min(N, sL+L)): A x u8 (bit-rate index into SK_CC_BITS in
 *     bits 0-3, the dropped component in bits 4-5: 3 for T/S), A x 6 u8
 *     segment range (minimum of the three stored components, then their
 *     extents, in 1/255 of the clip range), then the frames in playback
 *     order, each F bits (F = the sum of 3 x SK_CC_BITS over the tracks'
 *     rates): per animated track (in data order) its three stored
 *     components (x,y,z,w without the dropped one), bits[index] bits each,
 *     LSB first, the segment padded to a byte;
 *   8 zero bytes at the end (a 64-bit read at any bit of a segment stays inside).
 * Nothing is stored that the loader can compute: the offsets of the parts,
 * the segments' places and bits per frame (the load computes them into the
 * clip's plan, with the clip ranges as floats).
 * Rotations drop per segment the component farthest from zero, signed so it
 * is >= 0 in the segment, and rebuild it as sqrt(1 - the others squared).
 * Decoded component: min + (ext/255) * (smin + sext * q / (2^bits - 1)) (sk_cc_coef); at 0 bits min +
 * (ext/255) * smin (the compressor stores the middle of the segment's values there, extent 0).
 * Between frames, rotations by sk_cc_qlerp below. Version 2: keys more than
 * 120 degrees apart by the corrected nlerp's own coefficients (version 1:
 * slerp), so a version 1 blob (its error measured with another
 * interpolation) is refused. Version 3: the layout above (version 2 had a
 * 64-byte header with the parts' offsets, 8-byte track entries, f32 clip
 * ranges for every component of every track, a segment table and each
 * segment's bits per frame: 2.6 % more bytes at 24 frames/s on the CMU
 * clips); version 2 blobs are refused too. Version 4: the data order above
 * (version 3 kept the animated tracks' data in track order, rotations and
 * translations mixed: the rows decoder, sixteen tracks of one kind per
 * register, had to sort every block); version 3 blobs are refused. Version
 * 5: version 4 with STEP tracks kept as their keys (header word 9, track bit
 * 27, the step keys); the compressor writes it only for a clip that has
 * them (a clip without is written as version 4, byte for byte as before),
 * and the loader reads both. */
#define SK_CC_MAGIC 0x42434b53u
#define SK_CC_VERSION 5u
#define SK_CC_VERSION_MIN 4u /* the oldest version read: version 4 is version 5 without step tracks */
#define SK_CC_STEP_BIT (SK_CC_JOINT_BITS + 3u) /* a track entry's step flag (version 5) */
#define SK_CC_HEADER 40u
#define SK_CC_MAX_FRAMES 10000001u /* frames of one clip (the compressor's limit; the loader's too) */
#define SK_CC_JOINT_BITS 24u /* a track's joint index in its u32 entry */
#define SK_CC_LEVELS 16u
static const uint8_t SK_CC_BITS[SK_CC_LEVELS] = {0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 19, 23};

static inline uint32_t sk_cc_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline float sk_cc_f32(const uint8_t *p) {
    uint32_t u = sk_cc_u32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline uint64_t sk_cc_u64(const uint8_t *p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
#else
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
#endif
}
/* A decoded component is off + sc * q: off and sc from the clip range
 * (cmin, and e = sk_cc_ext255(cext): the extent per 1/255 step), the
 * segment range (smin, sext in those steps) and the bit rate; 0 bits decode
 * smin (sk_cc_zero_bits_range). The compressor and the decoder share
 * these float operations (the loader keeps e in the clip's plan, so that a
 * sample does not multiply the range bytes by 1/255). */
static const float SK_CC_INV[SK_CC_LEVELS] = {
    0.0f, 1.0f / 7, 1.0f / 15, 1.0f / 31, 1.0f / 63, 1.0f / 127, 1.0f / 255, 1.0f / 511, 1.0f / 1023, 1.0f / 2047,
    1.0f / 4095, 1.0f / 8191, 1.0f / 16383, 1.0f / 65535, 1.0f / 524287, 1.0f / 8388607};
/* A rotation track's clip range of one component from its u16 codes: the
 * compressor rounds the minimum down and the maximum up to these steps. */
static inline void sk_cc_rot_range(uint32_t lo, uint32_t hi, float *cmin, float *cext) {
    *cmin = (float)lo * (2.0f / 65535.0f) - 1.0f;
    *cext = (float)(hi - lo) * (2.0f / 65535.0f);
}
static inline float sk_cc_ext255(float cext) { return cext * (1.0f / 255.0f); }
static inline void sk_cc_coef(float cmin, float e, uint8_t smin, uint8_t sext, uint32_t level, float *off, float *sc) {
    *off = fmaf(e, (float)smin, cmin);
    *sc = e * (float)sext * SK_CC_INV[level];
}
/* The decoded component from its quantised value q: one fused multiply-add. */
static inline float sk_cc_value(float off, float sc, uint32_t q) { return fmaf(sc, (float)q, off); }
/* The segment range the compressor stores for a track at 0 bits (which
 * decodes smin: SK_CC_INV[0] is 0): the middle of its range, extent 0. */
static inline void sk_cc_zero_bits_range(const uint8_t *sr, uint8_t *out) {
    for (int k = 0; k < 3; k++) out[k] = (uint8_t)((2u * sr[k] + sr[3 + k] + 1u) / 2u), out[3 + k] = 0;
}
static inline float sk_cc_w(float x, float y, float z) {
    float w2 = fmaf(-z, z, fmaf(-y, y, fmaf(-x, x, 1.0f)));
    return w2 > 0.0f ? sqrtf(w2) : 0.0f;
}

/* Places the three stored components v around the dropped one d (rebuilt for a rotation). */
static inline void sk_cc_place(float *out, const float *v, uint32_t d, bool rot) {
    uint32_t i = 0;
    for (uint32_t k = 0; k < 4; k++)
        if (k != d) out[k] = v[i++];
    out[d] = rot ? sk_cc_w(v[0], v[1], v[2]) : 0.0f;
}

/* Interpolation of decoded samples (the decoder and the compressor's error
 * model). Rotations: nlerp with a corrected weight (A. Kapoulkine,
 * "Approximating slerp", 2015, https://zeux.io/2015/07/23/approximating-slerp/):
 * the nlerp of a and b at weight t' is slerp's at t when t' / (1 - t') =
 * sin(t th) / sin((1 - t) th) (th the angle between a and b, shortest arc; the
 * nlerp then has the direction of slerp's weighted sum), i.e.
 * t' = 1/2 + tan((t - 1/2) th) / (2 tan(th / 2)). t' - t vanishes at t = 0,
 * 1/2 and 1 and is odd about 1/2, so t' = t + t (t - 1/2) (t - 1) K with K even
 * in t - 1/2; K is approximated by a polynomial in s = (t - 1/2)^2 (degree 3)
 * and y = 1 - |cos th| (degree 4, no constant term: K = th^2/3 + ... for small
 * th), SK_CC_TK, fitted here (least squares on the angle error, reweighted
 * toward its largest values, over |cos th| in [0.5, 1] and t in [0, 1]; the fit
 * is tools/compression/fit_onlerp.py): in double the result strays from slerp
 * by less than 4.2e-8 rad (angle between quaternions; within a half-angle of
 * 0.05 rad: < 2.5e-10 rad); in float rounding dominates. The decoded samples
 * go in as they are (their length is 1 to rounding where the dropped
 * component was rebuilt; the nlerp normalises).
 * Keys more than 120 degrees apart (|cos th| < 0.5: a half-angle of 60 to 90
 * degrees; rare, most often a glitch in a capture) take the same corrected
 * nlerp with coefficients of their own, SK_CC_TKF: K over |cos th| in
 * [0, 0.5], degree 4 in s and 5 in y (the same fit with XMIN 0, XMAX 0.5);
 * in double within 1.3e-7 rad of slerp there, in float 2.7e-7 rad (the
 * closed-form test in tests/test_compress.c). Before format version 2 these
 * keys took sk_quat_slerp's trigonometric branch, which the SIMD decoders
 * could only reach lane by lane through a scalar call; now every lane is the
 * same few vector operations. The weights' coefficients depend on t alone:
 * sk_cc_tweights (and sk_cc_tweights_far when a pair is that far apart) once
 * per sample, sk_cc_tprime per rotation. Every decoder (scalar, AVX2,
 * AVX-512) does these float operations in this order, with fused
 * multiply-adds exactly where fmaf is written here (blob version 3: the
 * dot product, the weight's polynomial, the lerps, the squared length; the
 * weights' coefficients unfused), so they give the same bits, and the error
 * the compressor measures is of this function. */
#define SK_CC_FAR_BELOW 0.5f /* |cos th| below this: SK_CC_TKF */
static const float SK_CC_TK[4][4] = { /* [power of s][power of y - 1] */
    {0.666552793f, 0.134852617f, 0.0315441798f, 0.0234636405f},
    {0.000636724386f, 0.527984565f, 0.203782613f, 0.0940903571f},
    {-0.00706256405f, 0.0811616884f, 0.145600097f, 0.578824376f},
    {0.00593418713f, -0.0309445077f, -0.0939718652f, 0.910416897f}};
/* tools/compression/fit_onlerp.py 4 5 0 81 120 0.5 */
static const float SK_CC_TKF[5][5] = { /* [power of s][power of y - 1], |cos th| in [0, 0.5] */
    {0.671704863f, 0.103126636f, 0.106863944f, -0.0594508427f, 0.0361689268f},
    {-0.0271064036f, 0.653022815f, 0.0335881127f, 0.116493533f, 0.0731532345f},
    {0.744701081f, -4.07764114f, 8.71362277f, -7.2623736f, 2.74721458f},
    {-4.75572002f, 25.7800133f, -51.2744639f, 44.7550962f, -13.8307276f},
    {15.3950129f, -86.801505f, 181.603934f, -168.442549f, 59.8378293f}};
/* e[j] = t (t - 1/2) (t - 1) x the coefficient of y^(j+1) in K at t = u. */
static inline void sk_cc_tweights(float u, float *e) {
    float h = u - 0.5f, s = h * h, w = u * h * (u - 1.0f);
    for (int j = 0; j < 4; j++) e[j] = w * (((SK_CC_TK[3][j] * s + SK_CC_TK[2][j]) * s + SK_CC_TK[1][j]) * s + SK_CC_TK[0][j]);
}
/* The same for keys more than 120 degrees apart (five weights). */
static inline void sk_cc_tweights_far(float u, float *e) {
    float h = u - 0.5f, s = h * h, w = u * h * (u - 1.0f);
    for (int j = 0; j < 5; j++)
        e[j] = w * ((((SK_CC_TKF[4][j] * s + SK_CC_TKF[3][j]) * s + SK_CC_TKF[2][j]) * s + SK_CC_TKF[1][j]) * s + SK_CC_TKF[0][j]);
}
/* The corrected weight t' for keys x = |cos th| apart. */
static inline float sk_cc_tprime(float u, const float *e, float x) {
    float y = 1.0f - x;
    return fmaf(fmaf(fmaf(fmaf(e[3], y, e[2]), y, e[1]), y, e[0]), y, u);
}
static inline float sk_cc_tprime_far(float u, const float *e, float x) {
    float y = 1.0f - x;
    return fmaf(fmaf(fmaf(fmaf(fmaf(e[4], y, e[3]), y, e[2]), y, e[1]), y, e[0]), y, u);
}
static inline sk_quat sk_cc_qlerp(const float *a, const float *b, float u) {
    float d = fmaf(a[3], b[3], fmaf(a[2], b[2], fmaf(a[1], b[1], a[0] * b[0]))), sg = d < 0.0f ? -1.0f : 1.0f, ad = d * sg;
    float e[5], t;
    if (u != 0.0f && ad < SK_CC_FAR_BELOW) {
        sk_cc_tweights_far(u, e);
        t = sk_cc_tprime_far(u, e, ad);
    } else {
        sk_cc_tweights(u, e);
        t = sk_cc_tprime(u, e, ad);
    }
    float x = fmaf(sg * b[0] - a[0], t, a[0]), y = fmaf(sg * b[1] - a[1], t, a[1]);
    float z = fmaf(sg * b[2] - a[2], t, a[2]), w = fmaf(sg * b[3] - a[3], t, a[3]);
    float inv = 1.0f / sqrtf(fmaf(w, w, fmaf(z, z, fmaf(y, y, x * x))));
    sk_quat q = {x * inv, y * inv, z * inv, w * inv};
    return q;
}
static inline sk_vec3 sk_cc_vlerp(const float *a, const float *b, float u) {
    sk_vec3 v = {fmaf(b[0] - a[0], u, a[0]), fmaf(b[1] - a[1], u, a[1]), fmaf(b[2] - a[2], u, a[2])};
    return v;
}

/* Frame-major sampling at wrapped time t (clip.c): into aos (joint_span
 * transforms) or, when aos is NULL, the rows of an SoA pose's data; wide:
 * the 8-lane (AVX2) kernels, else the 4-lane ones (the tests run both). */
void sk_frames_sample(const sk_clip *c, double t, uint32_t *cursor, sk_transform *aos, float *soa, bool wide);

/* Frees frame-major keys (clip_build_frames.c, which builds them). */
void sk_clip_frames_free(const sk_allocator *a, sk_clip_frames *f);

/* Track i (translation, rotation or scale) of an SK_CLIP_KEYS clip without
 * frames at wrapped time t into x (clip.c). */
void sk_clip_track_sample(const sk_clip *c, uint32_t i, double t, uint32_t *cursor, sk_transform *x);

/* sk_clip_cursor_size for a clip that is not NULL. */
static inline size_t sk_clip_cursor_words(const sk_clip *c) { return c->frames ? 1u : c->track_count; }

/* What sk_clip_args_check accepts without morph weights, without its message
 * (the SoA sampling tests this first and calls sk_clip_args_check, which
 * names what is wrong, only when it fails); s not NULL. */
static inline bool sk_clip_args_fit(const sk_clip *c, const sk_skeleton *s, const uint32_t *cursor, size_t cursor_count) {
    return c && c->joint_span <= s->joint_count && (!cursor || cursor_count >= sk_clip_cursor_words(c));
}

/* sk_clip_wrap_time inline where t is inside the clip, 0 < t < duration
 * (every loop mode gives t itself there), the call otherwise. */
static inline double sk_clip_wrap_inline(const sk_clip *c, double t, sk_loop_mode loop) {
    return t > 0.0 && t < (double)c->duration ? t : sk_clip_wrap_time(c, t, loop);
}

/* The clip arguments of a sampling call (clip.c): clip present, cursor long
 * enough, the clip's joints (and with weights, its morph-weight widths)
 * inside the skeleton. */
sk_result sk_clip_args_check(const sk_clip *c, const sk_skeleton *s, const uint32_t *cursor, size_t cursor_count,
                             bool weights, const char *who, sk_error *err);

/* Compressed kind (clip_compressed.c loads, clip_compressed_sample.c samples). */
/* cache: a cursor of sk_clip_cursor_cache_size words (decoded frames kept
 * for the next sample: forward playback at a higher rate than the frames
 * decodes each pair once), or NULL. Its header word SK_CC_CACHE_SLOTS is
 * set here to the frames the cursor has room for: 3 with
 * sk_clip_cursor_ahead_size words, else 2 (the rows decoders read it; it is
 * part of their tag, so a cursor passed with another count starts over). */
enum { SK_CC_CACHE_SLOTS = 7 };
static inline uint32_t *sk_cclip_cache(const sk_clip *c, uint32_t *cursor, size_t cursor_count) {
    if (!cursor || !c->cc.cache_words || cursor_count < c->cc.cache_words) return NULL;
    cursor[SK_CC_CACHE_SLOTS] = cursor_count >= c->cc.ahead_words ? 3u : 2u;
    return cursor;
}
void sk_cclip_sample_tracks(const sk_clip *c, double t, uint32_t *cache, sk_transform *local);
/* A whole pose (s's joints from its rest pose, then the clip's tracks) at
 * wrapped time t by the rows decoder through the pose's memory as SoA groups;
 * false, with nothing written, where that decoder is not used or the clip
 * reaches the skeleton's last, partial group of eight joints. */
struct sk_skeleton;
/* An SoA pose's groups [0, groups) from the rest pose rest_soa, but for the
 * rows the clip writes in full, with the clip's constant tracks in place
 * (every decoder writes every animated track; writing into SoA rows, none
 * writes the constant ones: this does). */
void sk_cclip_rest_soa(const sk_clip *c, const float *rest_soa, float *data, uint32_t groups);
bool sk_cclip_sample_pose(const sk_clip *c, const sk_skeleton *s, double t, uint32_t *cache, sk_transform *local);
/* The decoders by level: SK_CC_SCALAR (the reference), SK_CC_AVX2 (one
 * track per register), SK_CC_AVX512 (AVX2 with AVX-512's two tracks per
 * register), SK_CC_ROWS8 (the rows decoder at AVX2: eight tracks per
 * register), SK_CC_ROWS (sixteen tracks per register, AVX-512 with VBMI) =
 * SK_CC_BEST, what sampling uses; each falls back to the one below where the
 * CPU lacks it, and the two rows decoders to the others for a clip without
 * the rows (cc.rrows). Every level gives the same bits (tests/test_compress.c). */
enum { SK_CC_SCALAR = 0, SK_CC_AVX2 = 1, SK_CC_AVX512 = 2, SK_CC_ROWS8 = 3, SK_CC_ROWS = 4, SK_CC_BEST = 4 };
void sk_cclip_sample_tracks_simd(const sk_clip *c, double t, uint32_t *cache, sk_transform *local, int level);
bool sk_cclip_simd_available(void);
bool sk_cclip_avx512_available(void);
bool sk_cclip_rows_available(void);
/* The AVX2 decoder straight into an SoA pose's rows (soa: its data, the
 * rest pose and the constant tracks already there, sk_cclip_rest_soa); false, with nothing written, on a CPU without
 * AVX2. */
bool sk_cclip_sample_soa(const sk_clip *c, double t, uint32_t *cache, float *soa);
bool sk_cclip_track_keys(const sk_clip *c, uint32_t i, float *times, float *values);
/* The step tracks (c->cc.steps > 0) at wrapped time t, after a decoder: into
 * an AoS pose's local transforms, or into an SoA pose's rows (soa). */
void sk_cclip_steps_aos(const sk_clip *c, double t, sk_transform *local);
void sk_cclip_steps_soa(const sk_clip *c, double t, float *soa);
void sk_cclip_release(sk_clip *c);

#endif
