/* Local-to-model and the skinning palette of up to eight characters of one
 * skeleton at once (sk_local_to_model_soa_many, core/soa.h): each lane of an AVX2
 * register is one character, so a joint's matrix products are plain
 * vertical multiplies and adds with no shuffles, and eight independent
 * chains of parents run side by side. The per-character kernel (soa.c)
 * spends most of its instructions on moving a joint's columns and
 * coefficients into place (permutes), and its chain of parents waits on
 * each product.
 *
 * Per group of eight joints: each of the group's ten rows (t, r, s) of the
 * eight poses is transposed (joint-major to character-major), the local
 * matrices' rows come from skk_rs_group (the same kernel, now across
 * characters), and per joint the model matrix is pm * local in l2m_joint's
 * products and sums (pose.c; soa.c's soa_l2m_joint), the palette model *
 * inverse_bind in skm_mat4_mul's: no fused multiply-add, so every lane has
 * the bits sk_soa_l2m gives that character. The model matrices stay in
 * the scratch, character-major, for the children; a character's own
 * matrices are written by two 8x8 transposes. */
#include "core/internal.h"
#include "core/soa_kernels.h"
#include "skelanim/core/palette.h"
#include "skelanim/core/skeleton.h"
#include "skelanim/core/soa.h"

#if defined(SK_SOA_X86)
#define SK_X8 __attribute__((target("avx2")))

/* Sixteen rows m (element e of eight characters' matrices at m + 8e) to
 * the characters' matrices out[0..n-1][idx]. */
SK_X8 static inline void x8_store(const float *m, sk_mat4 *const *out, uint32_t idx, uint32_t n) {
    for (int h = 0; h < 2; h++) { /* elements 0-7, then 8-15 */
        __m256 a[8];
        for (int k = 0; k < 8; k++) a[k] = _mm256_loadu_ps(m + 64 * h + 8 * k);
        skk_tr8_avx2(a);
        for (uint32_t c = 0; c < n; c++) _mm256_storeu_ps(out[c][idx].m + 8 * h, a[c]);
    }
}

/* Eight characters' matrices in as sixteen rows at m. */
SK_X8 static inline void x8_load(const sk_mat4 *const *in, float *m) {
    for (int h = 0; h < 2; h++) {
        __m256 a[8];
        for (int c = 0; c < 8; c++) a[c] = _mm256_loadu_ps(in[c]->m + 8 * h);
        skk_tr8_avx2(a);
        for (int k = 0; k < 8; k++) _mm256_store_ps(m + 64 * h + 8 * k, a[k]);
    }
}

#define X8_LD(p, e) _mm256_loadu_ps((p) + 8 * (e))
#define X8_MUL(a, b) _mm256_mul_ps(a, b)
#define X8_ADD(a, b) _mm256_add_ps(a, b)

SK_X8 static void soa_l2m_x8(const sk_skeleton *s, const sk_soa_pose *const *poses, uint32_t n, const sk_mat4 *const *roots,
                             sk_mat4 *const *out_model, const sk_skin *skin, const int16_t *map, sk_mat4 *const *out_palette,
                             float *scratch) {
    float grp[8][SK_SOA_GROUP_FLOATS] __attribute__((aligned(32)));
    float rs[96] __attribute__((aligned(32))), root[128] __attribute__((aligned(32)));
    const float *pd[8];
    const sk_mat4 *rt[8];
    float *pal[8] = {0};
    for (uint32_t c = 0; c < 8; c++) { /* lanes past n: character 0 again, not stored */
        pd[c] = poses[c < n ? c : 0]->data;
        rt[c] = roots ? roots[c < n ? c : 0] : NULL;
        if (out_palette && c < n) pal[c] = out_palette[c]->m;
    }
    if (roots) x8_load(rt, root);
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
    uint32_t J = s->joint_count, nskin = skin ? skin->joint_count : 0;
    for (uint32_t g = 0; g * 8u < J; g++) {
        /* the group's rows, character-major: grp[l] is joint 8g + l as an SoA group of eight characters */
        for (uint32_t k = 0; k < 10; k++) {
            __m256 r[8];
            for (int c = 0; c < 8; c++) r[c] = _mm256_loadu_ps(pd[c] + (size_t)g * SK_SOA_GROUP_FLOATS + 8 * k);
            skk_tr8_avx2(r);
            for (int l = 0; l < 8; l++) _mm256_store_ps(grp[l] + 8 * k, r[l]);
        }
        uint32_t end = J - 8 * g < 8 ? J - 8 * g : 8;
        for (uint32_t l = 0; l < end; l++) {
            uint32_t j = 8 * g + l;
            skk_rs_group_w8(grp[l], rs);
            float *M = scratch + (size_t)j * 128;
            int32_t p = s->parents[j];
            if (p < 0 && !roots) { /* sk_mat4_from_transform */
                for (int c = 0; c < 3; c++) {
                    for (int row = 0; row < 3; row++) _mm256_storeu_ps(M + 8 * (4 * c + row), X8_LD(rs, 3 * c + row));
                    _mm256_storeu_ps(M + 8 * (4 * c + 3), zero);
                }
                for (int row = 0; row < 3; row++) _mm256_storeu_ps(M + 8 * (12 + row), X8_LD(rs, 9 + row));
                _mm256_storeu_ps(M + 8 * 15, one);
            } else {
                const float *P = p >= 0 ? scratch + (size_t)p * 128 : root;
                for (int c = 0; c < 4; c++) {
                    __m256 l0 = X8_LD(rs, 3 * c), l1 = X8_LD(rs, 3 * c + 1), l2 = X8_LD(rs, 3 * c + 2);
                    for (int row = 0; row < 4; row++) {
                        __m256 v = X8_ADD(X8_ADD(X8_MUL(X8_LD(P, row), l0), X8_MUL(X8_LD(P, 4 + row), l1)), X8_MUL(X8_LD(P, 8 + row), l2));
                        if (c == 3) v = X8_ADD(v, X8_LD(P, 12 + row));
                        _mm256_storeu_ps(M + 8 * (4 * c + row), v);
                    }
                }
            }
            if (out_model) x8_store(M, out_model, j, n);
            uint32_t i = map ? (uint32_t)(int32_t)map[j] : UINT32_MAX;
            if (i >= nskin) continue;
            const float *b = skin->inverse_bind[i].m;
            for (int h = 0; h < 2; h++) { /* columns 2h and 2h + 1: eight rows, transposed in registers */
                __m256 a[8];
                for (int cc = 0; cc < 2; cc++) {
                    int c = 2 * h + cc;
                    __m256 b0 = _mm256_broadcast_ss(b + 4 * c), b1 = _mm256_broadcast_ss(b + 4 * c + 1);
                    __m256 b2 = _mm256_broadcast_ss(b + 4 * c + 2), b3 = _mm256_broadcast_ss(b + 4 * c + 3);
                    for (int row = 0; row < 4; row++)
                        a[4 * cc + row] = X8_ADD(X8_ADD(X8_ADD(X8_MUL(X8_LD(M, row), b0), X8_MUL(X8_LD(M, 4 + row), b1)), X8_MUL(X8_LD(M, 8 + row), b2)),
                                                 X8_MUL(X8_LD(M, 12 + row), b3));
                }
                skk_tr8_avx2(a);
                if (n == 8) /* unrolled: the common case */
                    for (uint32_t c = 0; c < 8; c++) _mm256_storeu_ps(pal[c] + 16 * (size_t)i + 8 * h, a[c]);
                else
                    for (uint32_t c = 0; c < n; c++) _mm256_storeu_ps(pal[c] + 16 * (size_t)i + 8 * h, a[c]);
            }
        }
    }
}
#undef X8_LD
#undef X8_MUL
#undef X8_ADD
#endif

size_t sk_soa_many_scratch_floats(uint32_t joint_count) { return (size_t)joint_count * 128u; }

sk_result sk_local_to_model_soa_many(const sk_skeleton *s, uint32_t count, const sk_soa_pose *const *poses,
                                     const sk_mat4 *const *roots, sk_mat4 *const *out_model, uint32_t model_count,
                                     const sk_skin *skin, const int16_t *map, sk_mat4 *const *out_palette,
                                     uint32_t palette_count, float *scratch, size_t scratch_floats, sk_error *err) {
    static const char *who = "sk_local_to_model_soa_many";
    if (!s) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: skeleton is NULL", who);
    if (count < 1 || count > 8) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: count %u, needs 1 to 8", who, count);
    if (!poses) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: poses is NULL", who);
    bool pal = skin || map || out_palette;
    if (pal && !(skin && map && out_palette))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: the palette needs skin, map and out_palette (%s is NULL)", who,
                            !skin ? "skin" : !map ? "map" : "out_palette");
    if (!out_model && !pal) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: neither out_model nor out_palette", who);
    if (out_model && model_count < s->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: room for %u matrices, skeleton has %u", who, model_count,
                            s->joint_count);
    if (pal && palette_count < skin->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: room for %u palette matrices, skin has %u joints", who,
                            palette_count, skin->joint_count);
    if (!scratch || scratch_floats < sk_soa_many_scratch_floats(s->joint_count))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: scratch of %zu floats, needs %zu", who, scratch ? scratch_floats : 0,
                            sk_soa_many_scratch_floats(s->joint_count));
    for (uint32_t i = 0; i < count; i++) {
        sk_result r = sk_soa_pose_check(s, poses[i], who, err);
        if (r != SK_OK) return r;
        if ((roots && !roots[i]) || (out_model && !out_model[i]) || (pal && !out_palette[i]))
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: %s[%u] is NULL", who,
                                roots && !roots[i] ? "roots" : out_model && !out_model[i] ? "out_model" : "out_palette", i);
    }
#if defined(SK_SOA_X86)
    if (sk_soa_use_avx2()) {
        soa_l2m_x8(s, poses, count, roots, out_model, pal ? skin : NULL, pal ? map : NULL, out_palette, scratch);
        return SK_OK;
    }
#endif
    for (uint32_t i = 0; i < count; i++) { /* one after the other (the model matrices in the scratch when not wanted) */
        sk_mat4 *model = out_model ? out_model[i] : (sk_mat4 *)(void *)scratch;
        sk_soa_palette pp = {skin, map, pal ? out_palette[i] : NULL};
        sk_soa_l2m(s, poses[i], roots ? roots[i] : NULL, model, pal ? &pp : NULL, false);
    }
    return SK_OK;
}
