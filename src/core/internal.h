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

/* pose.c: the library's forward kinematics, behind sk_local_to_model,
 * sk_local_to_model_range and sk_local_to_model_masked (pose.h has the
 * contract), without their argument checks: for the runtimes' per-frame
 * calls (locomotion) on a pose they checked once that frame. joints
 * [from, to) of local, only those need marks (NULL: all), into model; to <=
 * the skeleton's joint count, model holding that many matrices. */
struct sk_skeleton;
void sk_local_to_model_kernel(const struct sk_skeleton *skel, const struct sk_transform *local,
                              const struct sk_mat4 *root, uint32_t from, uint32_t to, const bool *need,
                              struct sk_mat4 *model);
/* The same one joint at a time (what the kernel does without AVX2; the
 * tests' reference for its eight-at-a-time path). */
void sk_local_to_model_joints(const struct sk_skeleton *skel, const struct sk_transform *local,
                              const struct sk_mat4 *root, uint32_t from, uint32_t to, const bool *need,
                              struct sk_mat4 *model);

/* The importer-facing builder calls (sk_clip_builder_add_track_ref_checked,
 * _stats, _lazy, sk_clip_builder_set_fetch) are public: core/clip.h. */
struct sk_clip_builder;

/* Which code writes the frame-major keys at finish (tests compare them):
 * 0 one track at a time, 1 four lanes of a block at once (SSE2), 2 eight
 * (AVX2; only on a CPU that has it), -1 (the default) the best this CPU has.
 * Every level writes the same bytes and the same statistics. */
void sk_clip_builder_set_writer(struct sk_clip_builder *b, int level);

#endif
