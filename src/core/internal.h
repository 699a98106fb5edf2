/* Private helpers shared by the library's modules. Not installed. */
#ifndef SKELANIM_INTERNAL_H
#define SKELANIM_INTERNAL_H

#include "skelanim/core/base.h"

#include <string.h>

#define SK_ARRAY_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Overflow-checked size arithmetic: false on overflow. */
static inline bool sk_size_mul(size_t a, size_t b, size_t *out) {
    if (a != 0 && b > SIZE_MAX / a) return false;
    *out = a * b;
    return true;
}
static inline bool sk_size_add(size_t a, size_t b, size_t *out) {
    if (b > SIZE_MAX - a) return false;
    *out = a + b;
    return true;
}

/* Arena: blocks from an allocator, released all at once. */
typedef struct sk_arena_block sk_arena_block;
typedef struct sk_arena {
    sk_allocator alloc;
    sk_arena_block *head;
} sk_arena;
void sk_arena_init(sk_arena *a, const sk_allocator *alloc);
void *sk_arena_alloc(sk_arena *a, size_t size); /* zero-filled, 16-byte aligned; NULL on OOM */
void *sk_arena_alloc_raw(sk_arena *a, size_t size); /* uninitialised */
char *sk_arena_strdup(sk_arena *a, const char *s);
void sk_arena_release(sk_arena *a);
/* Frees every block but the largest, which is kept empty for reuse. */
void sk_arena_reset(sk_arena *a);

/* Private part of sk_asset. */
typedef struct sk_asset_internal {
    sk_arena arena;
} sk_asset_internal;

/* Like sk_realloc but leaves new bytes uninitialised. */
void *sk_realloc_raw(const sk_allocator *a, void *p, size_t old_size, size_t new_size);

/* Resolves NULL to the default allocator. */
const sk_allocator *sk_allocator_or_default(const sk_allocator *a);

static inline bool sk_isfinite_f(float x) { return x - x == 0.0f; }

/* soa.c: joints [0, n) of in written into the rows of groups SoA groups
 * (sk_soa_pose's layout), the lanes past n set to the identity transform;
 * skeleton.c fills its rest_soa with it. */
struct sk_transform;
void sk_soa_fill(const struct sk_transform *in, uint32_t n, uint32_t groups, float *data);

/* palette.c: the palette at a kernel level (0 scalar, 1 AVX2, 2 AVX-512; a
 * level the CPU lacks falls back to the best it has), the highest level
 * the CPU has. Every level gives the scalar skm_mat4_mul's bits (test_core). */
struct sk_skin;
struct sk_mat4;
void sk_palette_at_level(const struct sk_skin *skin, const struct sk_mat4 *model, struct sk_mat4 *out, int level);
int sk_palette_level_max(void);

/* clip.c: sk_clip_builder_add_track_ref for a caller that has already
 * checked the keys as the builder would (every time and value finite, times
 * non-decreasing, rotation keys of non-zero length): those passes are not
 * repeated, every other check is made (the glTF reader, whose accessor and
 * channel checks are stricter). */
struct sk_clip_builder;
struct sk_track_desc;
sk_result sk_clip_builder_add_track_ref_checked(struct sk_clip_builder *b, const struct sk_track_desc *t,
                                                sk_error *err);

/* What sk_clip_builder_finish saw of a track's values in its one pass over
 * them (sk_clip_builder_add_track_ref_stats). bad: every value's
 * (bits & 0x7f800000) + 0x00800000 or'ed, so its sign bit is set when a
 * value is Inf or NaN (then lo and hi mean nothing). Rotations: lo and hi the
 * smallest and largest squared length in float, ((x*x + y*y) + z*z) + w*w;
 * translations: hi the largest squared length in float, (x*x + y*y) + z*z;
 * scales: hi the largest |component|. */
typedef struct sk_key_stats {
    uint32_t bad;
    float lo, hi;
} sk_key_stats;

/* As sk_clip_builder_add_track_ref_checked for a LINEAR or STEP translation,
 * rotation or scale track whose times the caller has checked but whose
 * values it has not: finish fills *stats (the caller's, written before
 * finish returns) and the caller decides from it; a clip built from values
 * that fail the caller's checks is to be destroyed unused. Other tracks are
 * refused (SK_ERR_INVALID_ARGUMENT). */
sk_result sk_clip_builder_add_track_ref_stats(struct sk_clip_builder *b, const struct sk_track_desc *t,
                                              sk_key_stats *stats, sk_error *err);

/* Keys that are not in memory yet (the glTF reader streams a .glb's
 * animation keys from the file): fetch(user, src, bytes, dst) copies the
 * bytes the caller's array at src holds in the file into dst, or into the
 * array itself when dst == src. It returns false when they cannot be read
 * (finish then fails with SK_ERR_IO; the caller keeps its own message). */
typedef bool (*sk_key_fetch_fn)(void *user, const float *src, size_t bytes, float *dst);
void sk_clip_builder_set_fetch(struct sk_clip_builder *b, sk_key_fetch_fn fetch, void *user);

/* As sk_clip_builder_add_track_ref_stats for values read through the
 * builder's fetch function (set first; SK_ERR_INVALID_ARGUMENT without
 * one): finish reads a joint group's tracks at a time into a block of its
 * own (ranges that lie close together in one call) and writes the frames
 * from there; a clip that is not frame-major fetches them into the caller's
 * arrays. The clip is the one the same keys in memory give. */
sk_result sk_clip_builder_add_track_ref_lazy(struct sk_clip_builder *b, const struct sk_track_desc *t,
                                             sk_key_stats *stats, sk_error *err);

/* Which code writes the frame-major keys at finish (tests compare them):
 * 0 one track at a time, 1 four lanes of a block at once (SSE2), 2 eight
 * (AVX2; only on a CPU that has it), -1 (the default) the best this CPU has.
 * Every level writes the same bytes and the same statistics. */
void sk_clip_builder_set_writer(struct sk_clip_builder *b, int level);

#endif
