/* skelanim — structure-of-arrays poses: the crowd path's pose layout.
 *
 * sk_pose (pose.h) is array-of-structures, one sk_transform per joint, for
 * code that reads and writes joints (IK, procedural animation, debugging).
 * The per-frame work of a crowd — sampling two clips, blending them,
 * local-to-model — does the same arithmetic on every joint, and runs four
 * (SSE2) or eight (AVX2) joints per instruction when each component of eight
 * joints sits in one row. sk_soa_pose is that layout:
 *
 *   joints in groups of SK_SOA_LANES (8); group g holds joints 8g..8g+7 as
 *   SK_SOA_GROUP_FLOATS (80) floats: t.x[8] t.y[8] t.z[8] r.x[8] r.y[8]
 *   r.z[8] r.w[8] s.x[8] s.y[8] s.z[8]; component c of joint j is
 *   data[(j / 8) * 80 + c * 8 + j % 8] (c: 0-2 translation, 3-6 rotation
 *   x, y, z, w, 7-9 scale). The lanes past joint_count in the last group hold
 *   the identity transform (their results are never written out).
 *
 * The SoA functions compute exactly what their AoS counterparts compute —
 * the same operations in the same order, four or eight joints at a time — so
 * their results are bit-identical to sk_clip_sample_cursor,
 * sk_local_to_model and sk_skin_palette on the same input (tests/test_soa.c
 * checks every one; no fused multiply-add is used, which would round
 * differently). Blending SoA poses — the crowd's plain blends
 * sk_blend_two_soa and sk_blend_weighted_soa, masks, channel sets, slerp,
 * additive layers — is anim's, beside the sk_pose blends:
 * anim/soa_layers.h. Convert at the edges with sk_soa_pose_from_pose /
 * sk_soa_pose_to_pose when a stage needs joints (IK after the blend).
 * libskelanim_batch's pipeline (batch.h) uses this path when its options
 * allow (documented there).
 *
 * No morph weights: a pose with morph weights goes through sk_pose.
 * Per-frame functions allocate nothing. */
#ifndef SKELANIM_CORE_SOA_H
#define SKELANIM_CORE_SOA_H

#include "skelanim/core/clip.h"
#include "skelanim/core/palette.h"
#include "skelanim/core/pose.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SK_SOA_LANES 8u
#define SK_SOA_GROUP_FLOATS 80u

/* A view of caller-owned memory (or sk_soa_pose_alloc's): group_count *
 * SK_SOA_GROUP_FLOATS floats, 16-byte aligned at least (32 is best). */
typedef struct sk_soa_pose {
    float *data;
    uint32_t joint_count;  /* must equal the skeleton's */
    uint32_t group_count;  /* (joint_count + 7) / 8 */
} sk_soa_pose;

/* Floats a pose of joint_count joints needs (a multiple of 80; at least 80). */
SK_API size_t sk_soa_pose_floats(uint32_t joint_count);

/* A view of data (sk_soa_pose_floats(joint_count) floats). */
SK_API sk_soa_pose sk_soa_pose_view(float *data, uint32_t joint_count);

/* Allocates (32-byte aligned, through alloc; NULL = C library) a pose for
 * skel holding its rest pose; free with sk_soa_pose_free and the same alloc. */
SK_API sk_result sk_soa_pose_alloc(const sk_skeleton *skel, const sk_allocator *alloc, sk_soa_pose *out, sk_error *err);
/* Frees the rows of sk_soa_pose_alloc (alloc as given to it) and zeroes the pose. */
SK_API void sk_soa_pose_free(sk_soa_pose *pose, const sk_allocator *alloc);

/* SK_OK when pose fits skel (joint counts, group count, data present,
 * 16-byte aligned); the message is prefixed by who. */
SK_API sk_result sk_soa_pose_check(const sk_skeleton *skel, const sk_soa_pose *pose, const char *who, sk_error *err);

/* The skeleton's rest pose (padding lanes: identity). */
SK_API sk_result sk_soa_pose_rest(const sk_skeleton *skel, sk_soa_pose *out, sk_error *err);

/* Conversions at the edges (morph weights are not part of an SoA pose:
 * from_pose ignores them, to_pose leaves them as they are). */
SK_API sk_result sk_soa_pose_from_pose(const sk_skeleton *skel, const sk_pose *in, sk_soa_pose *out, sk_error *err);
/* The way back: an SoA pose into an sk_pose. */
SK_API sk_result sk_soa_pose_to_pose(const sk_skeleton *skel, const sk_soa_pose *in, sk_pose *out, sk_error *err);
/* One joint of an SoA pose read into *out, or written from *in (the same
 * values as sk_soa_pose_to_pose / _from_pose give for that joint). false,
 * with nothing done, for a NULL argument or joint >= pose->joint_count. */
SK_API bool sk_soa_pose_get(const sk_soa_pose *pose, uint32_t joint, sk_transform *out);
/* Writes joint's transform (false, nothing done, for a NULL argument or
 * joint >= pose->joint_count). */
SK_API bool sk_soa_pose_set(sk_soa_pose *pose, uint32_t joint, const sk_transform *in);

/* The most joints a compressed clip may span where sk_clip_sample_soa decodes
 * it through its stack buffer (below). */
#define SK_SOA_COMPRESSED_JOINTS 256u
/* sk_clip_sample_cursor into an SoA pose: the rest pose, then the clip's
 * tracks at t (the same values, bit for bit). Morph-weight tracks are
 * skipped. cursor as sk_clip_sample_cursor (NULL: random access). Clips
 * whose tracks are all LINEAR on the same key times (baked exports, motion
 * capture, sk_clip_resample's output) are stored frame-major and sampled
 * eight joints at a time; other clips track by track; compressed clips
 * (compress.h) are decoded into the rows on CPUs with AVX2, elsewhere
 * through a stack buffer, where one spanning more than
 * SK_SOA_COMPRESSED_JOINTS joints is SK_ERR_LIMIT (sk_clip_sample_cursor
 * takes any). */
SK_API sk_result sk_clip_sample_soa(const sk_clip *clip, const sk_skeleton *skel, double t, sk_loop_mode loop,
                                    uint32_t *cursor, size_t cursor_count, sk_soa_pose *out, sk_error *err);
/* sk_clip_sample_soa at t into a pose that already holds a sample of the
 * same clip and skeleton (sk_clip_sample_soa's or this function's, at any
 * time, with nothing else written to it since): the pose is then
 * sk_clip_sample_soa's at t, bit for bit, without the rest pose written
 * first. Where sk_clip_samples_soa_directly(clip), only the values that can
 * change over the clip are written (its tracks; for a compressed clip not
 * the tracks it keeps constant either); the rest is left as it was, so a
 * pose that does not hold such a sample keeps what it held there (no error
 * is detected). For a crowd that samples one clip into the same scratch
 * pose character after character (libskelanim_batch does).
 * Arguments and errors as sk_clip_sample_soa's; like it, calls may run at once
 * on other threads with their own pose and cursor. */
SK_API sk_result sk_clip_sample_soa_update(const sk_clip *clip, const sk_skeleton *skel, double t, sk_loop_mode loop,
                                           uint32_t *cursor, size_t cursor_count, sk_soa_pose *out, sk_error *err);
/* Whether sk_clip_sample_soa decodes this clip straight into the rows: true
 * for every uncompressed clip, and for a compressed one on a CPU with AVX2
 * and FMA; false where it goes through the stack buffer (and so is bounded by
 * SK_SOA_COMPRESSED_JOINTS). false for NULL. Thread-safe. */
SK_API bool sk_clip_samples_soa_directly(const sk_clip *clip);

/* sk_local_to_model on an SoA pose (root may be NULL). */
SK_API sk_result sk_local_to_model_soa(const sk_skeleton *skel, const sk_soa_pose *pose, const sk_mat4 *root,
                                       sk_mat4 *out_model, uint32_t model_count, sk_error *err);

/* For sk_local_to_model_palette_soa: map[j] = the skin joint that is
 * skeleton joint j, -1 where none (map holds skel->joint_count entries).
 * Returns false (map all -1) where the skin does not allow it: a skin
 * joint listed twice or not in the skeleton, more than 32,767 skin joints.
 * Make it once per skeleton and skin. */
SK_API bool sk_skin_joint_map(const sk_skeleton *skel, const sk_skin *skin, int16_t *map);

/* sk_local_to_model_soa and sk_skin_palette(skin, out_model, ...) with the
 * same bits. With map (sk_skin_joint_map's, true) in one pass: each palette
 * matrix is made right after its joint's model matrix, while that is still
 * in registers (docs/performance.md has the gain); entries of map that are
 * not skin joints are skipped, so a map of another skin cannot write outside
 * the palette. With map NULL: the two calls one after the other (and their
 * errors). out_model is required (children read their parents' matrices). */
SK_API sk_result sk_local_to_model_palette_soa(const sk_skeleton *skel, const sk_soa_pose *pose, const sk_mat4 *root,
                                               sk_mat4 *out_model, uint32_t model_count, const sk_skin *skin,
                                               const int16_t *map, sk_mat4 *out_palette, uint32_t palette_count,
                                               sk_error *err);

/* Floats of scratch sk_local_to_model_soa_many needs for a skeleton of
 * joint_count joints (128 per joint: eight characters' model matrices). */
SK_API size_t sk_soa_many_scratch_floats(uint32_t joint_count);

/* sk_local_to_model_palette_soa of count (1 to 8) characters of one
 * skeleton at once, with the same bits per character: poses[i], roots NULL
 * or count matrices (none NULL), out_model NULL (not written) or count arrays
 * of model_count >= joint_count matrices; with skin, map (sk_skin_joint_map's)
 * and out_palette (count arrays of palette_count >= skin->joint_count
 * matrices) the palettes, else skin, map and out_palette all NULL. At least
 * one of out_model and out_palette. scratch: caller-owned,
 * sk_soa_many_scratch_floats(joint_count) floats (scratch_floats says how
 * many there are). On a CPU with AVX2 each character takes one lane of
 * eight, a crowd's faster form (docs/performance.md); elsewhere one after
 * the other. Nothing is allocated; on an error nothing is written.
 * Thread-safe: calls may run at once on other threads with their own
 * outputs and scratch (the inputs are only read).
 * SK_ERR_INVALID_ARGUMENT for a count out of range, a NULL pose, array or
 * matrix, a pose of another skeleton, short arrays or scratch. */
SK_API sk_result sk_local_to_model_soa_many(const sk_skeleton *skel, uint32_t count, const sk_soa_pose *const *poses,
                                            const sk_mat4 *const *roots, sk_mat4 *const *out_model, uint32_t model_count,
                                            const sk_skin *skin, const int16_t *map, sk_mat4 *const *out_palette,
                                            uint32_t palette_count, float *scratch, size_t scratch_floats, sk_error *err);

#ifdef __cplusplus
}
#endif

#endif
