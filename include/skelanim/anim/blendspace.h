/* skelanim — blend spaces: weights of sample clips from a parameter point by
 * gradient band interpolation. No allocation. */
#ifndef SKELANIM_ANIM_BLENDSPACE_H
#define SKELANIM_ANIM_BLENDSPACE_H

#include "skelanim/core/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Blend spaces: gradient band interpolation ---------------------------
 * After R. S. Johansen (2009). Sample points p_i (1D or 2D parameters,
 * e.g. speed or a velocity vector); for a query p the influence
 *   h_i(p) = min_{j != i} (1 - (p_i p . p_i p_j) / |p_i p_j|^2)
 * clamped at 0 and normalised: w_i = h_i / sum_j h_j.
 * The polar form measures the vectors p_i p_j and p_i p in (radius change
 * relative to the mean radius, angle * alpha) coordinates
 * (docs/state-machine.md, "Sources"). Properties (tested): exact at samples
 * (w_i(p_i) = 1), weights sum to 1, continuous in p, local (samples beyond a
 * nearer neighbour get 0). */
typedef enum sk_blendspace_mode {
    SK_BLENDSPACE_CARTESIAN = 0,
    SK_BLENDSPACE_POLAR = 1   /* 2D only (velocity-like parameters around the origin) */
} sk_blendspace_mode;

/* points: n * dim floats (dim 1 or 2); query: dim floats; out_weights: n.
 * Fails on dim outside 1..2, n == 0, duplicate points or non-finite input. */
SK_API sk_result sk_blendspace_weights(const float *points, uint32_t n, uint32_t dim, const float *query,
                                       sk_blendspace_mode mode, float *out_weights, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
