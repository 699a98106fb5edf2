/* Private: what the clip builder (clip_build.c) shares with its
 * frame-major writer (clip_build_frames.c). Not installed. */
#ifndef SKELANIM_CLIP_BUILD_INTERNAL_H
#define SKELANIM_CLIP_BUILD_INTERNAL_H

#include "core/clip_internal.h"

/* Tracks added by reference (sk_clip_builder_add_track_ref): the caller's
 * arrays, read at finish; such a track has pad_ = 1 and its slot in the
 * builder's refs in time_offset until then. */
struct clip_ref {
    const float *times, *values;
    sk_key_stats *stats; /* sk_clip_builder_add_track_ref_stats: filled at finish, else NULL */
    bool lazy;           /* sk_clip_builder_add_track_ref_lazy: values read through fetch */
};

/* Unit rotation keys (glTF requires them; three.js does not normalise, which
 * shows as ~1e-4 differences on assets with keys like 0.707): q / |q| in
 * float, in double when |q|^2 overflows float (found by fuzz_skc). */
void sk_clip_normalize_key_wide(float *q); /* clip_build.c */
static inline void sk_clip_normalize_key(float *q) {
    float l2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (l2 <= 3.0e38f) {
        float inv = 1.0f / sqrtf(l2); /* l2 > 0: zero-length keys are rejected */
        q[0] *= inv; q[1] *= inv; q[2] *= inv; q[3] *= inv;
    } else {
        sk_clip_normalize_key_wide(q);
    }
}

/* A track's key times and values during finish: the builder's arrays, or
 * the caller's for a track added by reference (pad_ = 1, its slot in
 * time_offset). */
static inline const float *sk_clip_fin_times(const sk_clip *c, const struct clip_ref *refs, const sk_track *t) {
    return t->pad_ ? refs[t->time_offset].times : c->times + t->time_offset;
}
static inline const float *sk_clip_fin_values(const sk_clip *c, const struct clip_ref *refs, const sk_track *t) {
    return t->pad_ ? refs[t->time_offset].values : c->values + t->value_offset;
}

/* sk_key_stats of a track's values, as the frame-major writers compute them (clip_build_frames.c). */
void sk_clip_key_stats(const float *v, uint32_t n, uint32_t path, sk_key_stats *st);

enum { FB_OK = 0, FB_OOM = 1, FB_IO = 2 }; /* sk_clip_frames_build's outcome */

/* The frame-major layout, when the clip qualifies, at finish (clip_build_frames.c). */
int sk_clip_frames_build(sk_clip *c, const struct clip_ref *refs, int writer, sk_key_fetch_fn fetch, void *fuser);

#endif
