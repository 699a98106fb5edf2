/* Private: soa_layers.c's and soa_layers_blend.c's functions with the
 * kernel width chosen (wide: eight floats / four doubles per instruction,
 * AVX2, only where sk_soa_use_avx2(); otherwise four floats / two doubles).
 * The public functions (anim/soa_layers.h) check their arguments and choose
 * the width by themselves; the tests run both. Arguments already checked. */
#ifndef SKELANIM_ANIM_SOA_LAYERS_INTERNAL_H
#define SKELANIM_ANIM_SOA_LAYERS_INTERNAL_H

#include "skelanim/anim/soa_layers.h"

/* sk_blend_two_soa (t != 0) and sk_blend_weighted_soa (soa_layers_blend.c). */
void sk_soa_blend(const sk_soa_pose *a, const sk_soa_pose *b, float t, sk_soa_pose *out, bool wide);
void sk_soa_blend_weighted(const sk_skeleton *s, const sk_soa_pose *const *poses, const float *weights, uint32_t n,
                           bool fill, sk_soa_pose *out, bool wide);

/* soa_layers.c */
void ska_blend_two_masked_soa(const sk_skeleton *s, const sk_soa_pose *a, const sk_soa_pose *b, float t,
                              const float *mask, bool slerp, sk_soa_pose *out, bool wide);
void ska_blend_poses_soa(const sk_skeleton *s, const sk_soa_blend_input *in, uint32_t n, bool slerp, bool fill,
                         sk_soa_pose *out, bool wide);
void ska_make_additive_soa(const sk_skeleton *s, const sk_soa_pose *p, const sk_soa_pose *r, sk_soa_pose *out,
                           bool wide);
void ska_apply_additive_soa(const sk_skeleton *s, sk_soa_pose *io, const sk_soa_pose *d, float weight,
                            const float *mask, bool nlerp, bool wide);

/* The sk_pose functions' joint loops on the same group kernels, eight
 * sk_transforms at a time gathered into a group and scattered back (AVX2
 * only: call where sk_soa_use_avx2()): sk_blend_two with a mask or slerp
 * (out may be a or b), sk_pose_apply_additive (nlerp: its _nlerp form). Transforms only; the callers
 * do the morph weights. */
void ska_blend_two_aos(const sk_skeleton *s, const sk_transform *a, const sk_transform *b, float t, const float *mask,
                       bool slerp, sk_transform *out);
void ska_apply_additive_aos(const sk_skeleton *s, sk_transform *io, const sk_transform *d, float weight,
                            const float *mask, bool nlerp);

#endif
