/* Poses, local-to-model (pose.h). */
#include "core/internal.h"
#include "core/math_inline.h"
#include "core/soa_kernels.h"
#include "skelanim/core/pose.h"

#if defined(__SSE2__) && !defined(SK_NO_SIMD)
#include <emmintrin.h>
#endif

sk_result sk_pose_check(const sk_skeleton *s, const sk_pose *p, const char *who, sk_error *err) {
    if (!who) who = "pose";
    if (!s || !p) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: NULL skeleton or pose", who);
    if (p->joint_count != s->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: pose has %u joints, skeleton %u", who, p->joint_count,
                            s->joint_count);
    if (p->weight_count != 0 && p->weight_count != s->weight_total)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: pose has %u morph weights, skeleton %u", who,
                            p->weight_count, s->weight_total);
    if ((s->joint_count && !p->local) || (p->weight_count && !p->weights))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: pose arrays are NULL", who);
    return SK_OK;
}

sk_result sk_pose_alloc(const sk_skeleton *s, const sk_allocator *alloc, sk_pose *out, sk_error *err) {
    if (!s || !out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_pose_alloc: NULL argument");
    memset(out, 0, sizeof *out);
    sk_pose p = {0};
    p.joint_count = s->joint_count;
    p.weight_count = s->weight_total;
    p.local = sk_alloc(alloc, sizeof(sk_transform) * (p.joint_count ? p.joint_count : 1));
    p.weights = p.weight_count ? sk_alloc(alloc, sizeof(float) * p.weight_count) : NULL;
    if (!p.local || (p.weight_count && !p.weights)) {
        sk_pose_free(&p, alloc);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_pose_alloc: out of memory");
    }
    *out = p;
    return sk_pose_rest(s, out, err);
}

void sk_pose_free(sk_pose *p, const sk_allocator *alloc) {
    if (!p) return;
    sk_free(alloc, p->local, sizeof(sk_transform) * (p->joint_count ? p->joint_count : 1));
    sk_free(alloc, p->weights, sizeof(float) * p->weight_count);
    memset(p, 0, sizeof *p);
}

sk_result sk_pose_rest(const sk_skeleton *s, sk_pose *out, sk_error *err) {
    sk_result r = sk_pose_check(s, out, "sk_pose_rest", err);
    if (r != SK_OK) return r;
    if (s->joint_count) memcpy(out->local, s->rest, (size_t)s->joint_count * sizeof(sk_transform));
    if (out->weight_count) memcpy(out->weights, s->rest_weights, (size_t)s->weight_total * sizeof(float));
    return SK_OK;
}

/* One joint: model = parent x T x R x S (glTF 2.0 §3.5.3), the local
 * matrix's last row being (0, 0, 0, 1). The same products and sums in the
 * same order as sk_mat4_mul(parent, sk_mat4_from_transform(x)) without the
 * terms that multiply that row's zeros, so the results are the same. */
static inline void l2m_joint(const sk_transform *x, const float *pm, float *out) {
    float b[3][3];
    skm_transform_rs(x, b);
#if defined(__SSE2__) && !defined(SK_NO_SIMD)
    __m128 a0 = _mm_loadu_ps(pm), a1 = _mm_loadu_ps(pm + 4), a2 = _mm_loadu_ps(pm + 8), a3 = _mm_loadu_ps(pm + 12);
    for (int c = 0; c < 3; c++) {
        __m128 col = _mm_add_ps(_mm_mul_ps(a0, _mm_set1_ps(b[c][0])), _mm_mul_ps(a1, _mm_set1_ps(b[c][1])));
        _mm_storeu_ps(out + 4 * c, _mm_add_ps(col, _mm_mul_ps(a2, _mm_set1_ps(b[c][2]))));
    }
    __m128 col = _mm_add_ps(_mm_mul_ps(a0, _mm_set1_ps(x->t.x)), _mm_mul_ps(a1, _mm_set1_ps(x->t.y)));
    _mm_storeu_ps(out + 12, _mm_add_ps(_mm_add_ps(col, _mm_mul_ps(a2, _mm_set1_ps(x->t.z))), a3));
#else
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 4; row++)
            out[c * 4 + row] = pm[row] * b[c][0] + pm[4 + row] * b[c][1] + pm[8 + row] * b[c][2];
    for (int row = 0; row < 4; row++)
        out[12 + row] = pm[row] * x->t.x + pm[4 + row] * x->t.y + pm[8 + row] * x->t.z + pm[12 + row];
#endif
}

/* The forward kinematics of the library (pose.h: sk_local_to_model,
 * _range, _masked; core/internal.h): joints [from, to), only those need
 * marks when need is given. Parents come before children (seed 000), so
 * one forward pass suffices. */
void sk_local_to_model_joints(const sk_skeleton *s, const sk_transform *local, const sk_mat4 *root, uint32_t from,
                              uint32_t to, const bool *need, sk_mat4 *out_model) {
    static const sk_mat4 identity = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    for (uint32_t i = from; i < to; i++) {
        if (need && !need[i]) continue;
        int32_t p = s->parents[i];
        if (p < 0 && !root) {
            out_model[i] = sk_mat4_from_transform(&local[i]);
            continue;
        }
        const sk_mat4 *pm = p >= 0 ? &out_model[p] : root;
        l2m_joint(&local[i], pm ? pm->m : identity.m, out_model[i].m);
    }
}

void sk_local_to_model_kernel(const sk_skeleton *s, const sk_transform *local, const sk_mat4 *root, uint32_t from,
                              uint32_t to, const bool *need, sk_mat4 *out_model) {
#if defined(SK_SOA_X86)
    if (to - from >= 4 && sk_soa_use_avx2()) { /* eight joints at a time, the same bits */
        sk_soa_l2m_aos(s, local, root, from, to, need, out_model);
        return;
    }
#endif
    sk_local_to_model_joints(s, local, root, from, to, need, out_model);
}

static sk_result l2m_check(const sk_skeleton *s, const sk_pose *pose, uint32_t from, uint32_t *to,
                           const sk_mat4 *io_model, uint32_t model_count, const char *who, sk_error *err) {
    sk_result r = sk_pose_check(s, pose, who, err);
    if (r != SK_OK) return r;
    if (!io_model || model_count < s->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: room for %u matrices, skeleton has %u", who,
                            io_model ? model_count : 0, s->joint_count);
    if (*to == 0) *to = s->joint_count;
    if (from > *to || *to > s->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: range [%u, %u) outside %u joints", who, from, *to,
                            s->joint_count);
    return SK_OK;
}

sk_result sk_local_to_model(const sk_skeleton *s, const sk_pose *pose, const sk_mat4 *root, sk_mat4 *out_model,
                            uint32_t model_count, sk_error *err) {
    uint32_t to = 0;
    sk_result r = l2m_check(s, pose, 0, &to, out_model, model_count, "sk_local_to_model", err);
    if (r != SK_OK) return r;
    sk_local_to_model_kernel(s, pose->local, root, 0, to, NULL, out_model);
    return SK_OK;
}

sk_result sk_local_to_model_range(const sk_skeleton *s, const sk_pose *pose, const sk_mat4 *root, uint32_t from,
                                  uint32_t to, sk_mat4 *io_model, uint32_t model_count, sk_error *err) {
    sk_result r = l2m_check(s, pose, from, &to, io_model, model_count, "sk_local_to_model_range", err);
    if (r != SK_OK) return r;
    sk_local_to_model_kernel(s, pose->local, root, from, to, NULL, io_model);
    return SK_OK;
}

sk_result sk_local_to_model_masked(const sk_skeleton *s, const sk_pose *pose, const sk_mat4 *root, uint32_t from,
                                   uint32_t to, const bool *need, sk_mat4 *io_model, uint32_t model_count,
                                   sk_error *err) {
    sk_result r = l2m_check(s, pose, from, &to, io_model, model_count, "sk_local_to_model_masked", err);
    if (r != SK_OK) return r;
    sk_local_to_model_kernel(s, pose->local, root, from, to, need, io_model);
    return SK_OK;
}
