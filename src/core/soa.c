/* Structure-of-arrays poses (soa.h): the layout, conversions at the edges,
 * sampling and local-to-model eight joints at a time (core/soa_kernels.h).
 * Blending SoA poses is anim's (anim/soa_layers.h). */
#include "core/clip_internal.h"
#include "core/internal.h"
#include "core/math_inline.h"
#include "core/soa_kernels.h"
#include "skelanim/core/soa.h"

#include <math.h>
#include <stdint.h>

static const float soa_identity[10] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1};


size_t sk_soa_pose_floats(uint32_t joint_count) {
    size_t groups = ((size_t)joint_count + SK_SOA_LANES - 1) / SK_SOA_LANES;
    return (groups ? groups : 1) * SK_SOA_GROUP_FLOATS;
}

sk_soa_pose sk_soa_pose_view(float *data, uint32_t joint_count) {
    sk_soa_pose p;
    p.data = data;
    p.joint_count = joint_count;
    p.group_count = (uint32_t)(((size_t)joint_count + SK_SOA_LANES - 1) / SK_SOA_LANES);
    return p;
}

sk_result sk_soa_pose_check(const sk_skeleton *s, const sk_soa_pose *p, const char *who, sk_error *err) {
    if (sk_soa_pose_fits(s, p)) return SK_OK; /* the one definition; the rest names what is wrong */
    if (!who) who = "soa pose";
    if (!s || !p) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: NULL skeleton or pose", who);
    if (p->joint_count != s->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: pose has %u joints, skeleton %u", who, p->joint_count,
                            s->joint_count);
    if (p->group_count != (s->joint_count + SK_SOA_LANES - 1) / SK_SOA_LANES)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: pose has %u groups, %u joints need %u", who,
                            p->group_count, s->joint_count, (s->joint_count + SK_SOA_LANES - 1) / SK_SOA_LANES);
    if (!p->data) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: pose data is NULL", who);
    return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: pose data is not 16-byte aligned", who);
}

/* The allocation is over-sized by 32 bytes and aligned inside; the offset is
 * kept in the float before data (data - 1 holds it as a float count). */
sk_result sk_soa_pose_alloc(const sk_skeleton *s, const sk_allocator *alloc, sk_soa_pose *out, sk_error *err) {
    if (!s || !out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_soa_pose_alloc: NULL argument");
    memset(out, 0, sizeof *out);
    size_t bytes = sk_soa_pose_floats(s->joint_count) * sizeof(float) + 32u;
    unsigned char *raw = sk_alloc(alloc, bytes);
    if (!raw) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_soa_pose_alloc: out of memory");
    uintptr_t at = ((uintptr_t)raw + sizeof(float) + 31u) & ~(uintptr_t)31u; /* room for the offset before it */
    float *data = (float *)at;
    data[-1] = (float)(at - (uintptr_t)raw);
    *out = sk_soa_pose_view(data, s->joint_count);
    return sk_soa_pose_rest(s, out, err);
}

void sk_soa_pose_free(sk_soa_pose *p, const sk_allocator *alloc) {
    if (!p || !p->data) return;
    size_t off = (size_t)p->data[-1];
    sk_free(alloc, (unsigned char *)p->data - off, sk_soa_pose_floats(p->joint_count) * sizeof(float) + 32u);
    memset(p, 0, sizeof *p);
}

static void put_joint(float *g, uint32_t l, const sk_transform *x) {
    g[0 + l] = x->t.x, g[8 + l] = x->t.y, g[16 + l] = x->t.z;
    g[24 + l] = x->r.x, g[32 + l] = x->r.y, g[40 + l] = x->r.z, g[48 + l] = x->r.w;
    g[56 + l] = x->s.x, g[64 + l] = x->s.y, g[72 + l] = x->s.z;
}

void sk_soa_fill(const sk_transform *in, uint32_t n, uint32_t groups, float *data) {
    for (uint32_t g = 0; g < groups; g++) {
        float *gd = data + (size_t)g * SK_SOA_GROUP_FLOATS;
        for (uint32_t l = 0; l < SK_SOA_LANES; l++) {
            uint32_t j = g * SK_SOA_LANES + l;
            if (j < n) {
                put_joint(gd, l, &in[j]);
            } else {
                for (uint32_t c = 0; c < 10; c++) gd[c * 8 + l] = soa_identity[c];
            }
        }
    }
}

sk_result sk_soa_pose_rest(const sk_skeleton *s, sk_soa_pose *out, sk_error *err) {
    sk_result r = sk_soa_pose_check(s, out, "sk_soa_pose_rest", err);
    if (r != SK_OK) return r;
    memcpy(out->data, s->rest_soa, (size_t)out->group_count * SK_SOA_GROUP_FLOATS * sizeof(float));
    return SK_OK;
}

sk_result sk_soa_pose_from_pose(const sk_skeleton *s, const sk_pose *in, sk_soa_pose *out, sk_error *err) {
    sk_result r = sk_pose_check(s, in, "sk_soa_pose_from_pose", err);
    if (r == SK_OK) r = sk_soa_pose_check(s, out, "sk_soa_pose_from_pose", err);
    if (r != SK_OK) return r;
    sk_soa_fill(in->local, s->joint_count, out->group_count, out->data);
    return SK_OK;
}

static void get_joint(const float *data, uint32_t j, sk_transform *x) {
    const float *g = data + (size_t)(j / SK_SOA_LANES) * SK_SOA_GROUP_FLOATS;
    uint32_t l = j % SK_SOA_LANES;
    x->t = sk_vec3_make(g[l], g[8 + l], g[16 + l]);
    x->r = sk_quat_make(g[24 + l], g[32 + l], g[40 + l], g[48 + l]);
    x->s = sk_vec3_make(g[56 + l], g[64 + l], g[72 + l]);
}

sk_result sk_soa_pose_to_pose(const sk_skeleton *s, const sk_soa_pose *in, sk_pose *out, sk_error *err) {
    sk_result r = sk_soa_pose_check(s, in, "sk_soa_pose_to_pose", err);
    if (r == SK_OK) r = sk_pose_check(s, out, "sk_soa_pose_to_pose", err);
    if (r != SK_OK) return r;
    for (uint32_t j = 0; j < s->joint_count; j++) get_joint(in->data, j, &out->local[j]);
    return SK_OK;
}

bool sk_soa_pose_get(const sk_soa_pose *pose, uint32_t joint, sk_transform *out) {
    if (!pose || !pose->data || !out || joint >= pose->joint_count) return false;
    get_joint(pose->data, joint, out);
    return true;
}

bool sk_soa_pose_set(sk_soa_pose *pose, uint32_t joint, const sk_transform *in) {
    if (!pose || !pose->data || !in || joint >= pose->joint_count) return false;
    put_joint(pose->data + (size_t)(joint / SK_SOA_LANES) * SK_SOA_GROUP_FLOATS, joint % SK_SOA_LANES, in);
    return true;
}

/* ---- sampling ------------------------------------------------------------ */

bool sk_clip_samples_soa_directly(const sk_clip *clip) {
    return clip && (!sk_clip_is_compressed(clip) || sk_cclip_simd_available());
}

/* sk_clip_sample_soa (rest: the rest pose and a compressed clip's constant
 * tracks first) and sk_clip_sample_soa_update (not). The writers below write
 * the lanes of the clip's tracks and keep the others (row stores that blend
 * into the rows), but for compressed clips without AVX2, whose stack buffer
 * writes every joint of the span with a full sample's values. */
static sk_result sample_soa(const sk_clip *c, const sk_skeleton *s, double t, sk_loop_mode loop, uint32_t *cursor,
                            size_t cursor_count, sk_soa_pose *out, bool rest, const char *who, sk_error *err) {
    /* the checks inline, their messages only on a failure (a crowd samples twice per character) */
    if (!sk_soa_pose_fits(s, out) || !sk_clip_args_fit(c, s, cursor, cursor_count)) {
        sk_result r = sk_soa_pose_check(s, out, who, err);
        if (r != SK_OK || (r = sk_clip_args_check(c, s, cursor, cursor_count, false, who, err)) != SK_OK) return r;
    }
    if (rest && c->kind == SK_CLIP_COMPRESSED) sk_cclip_rest_soa(c, s->rest_soa, out->data, out->group_count);
    else if (rest) memcpy(out->data, s->rest_soa, (size_t)out->group_count * SK_SOA_GROUP_FLOATS * sizeof(float));
    double tw = sk_clip_wrap_inline(c, t, loop);
    if (c->frames) {
        sk_frames_sample(c, tw, cursor, NULL, out->data, sk_soa_use_avx2());
        return SK_OK;
    }
    if (c->kind == SK_CLIP_COMPRESSED && sk_cclip_sample_soa(c, tw, sk_cclip_cache(c, cursor, cursor_count), out->data)) return SK_OK;
    if (c->kind == SK_CLIP_COMPRESSED) {
        /* Without AVX2 the decoder writes an AoS array indexed by joint: up to
         * SK_SOA_COMPRESSED_JOINTS joints through a stack buffer. */
        sk_transform buf[SK_SOA_COMPRESSED_JOINTS];
        if (c->joint_span > SK_SOA_COMPRESSED_JOINTS)
            return sk_error_set(err, SK_ERR_LIMIT,
                                "%s: compressed clip '%s' spans %u joints, at most %u here (use sk_clip_sample_cursor)",
                                who, sk_clip_name(c), c->joint_span, SK_SOA_COMPRESSED_JOINTS);
        uint32_t n = c->joint_span;
        if (n) memcpy(buf, s->rest, n * sizeof(sk_transform));
        sk_cclip_sample_tracks(c, tw, NULL, buf);
        for (uint32_t j = 0; j < n; j++)
            put_joint(out->data + (size_t)(j / SK_SOA_LANES) * SK_SOA_GROUP_FLOATS, j % SK_SOA_LANES, &buf[j]);
        return SK_OK;
    }
    /* Per-track keys in another layout (step or cubic tracks, key times
     * that differ between tracks): one track at a time into its lane. */
    for (uint32_t i = 0; i < c->track_count; i++) {
        const sk_track *tr = &c->tracks[i];
        if (tr->path == SK_PATH_WEIGHTS) continue;
        float *g = out->data + (size_t)(tr->joint / SK_SOA_LANES) * SK_SOA_GROUP_FLOATS;
        uint32_t l = tr->joint % SK_SOA_LANES;
        sk_transform x = {{g[l], g[8 + l], g[16 + l]}, {g[24 + l], g[32 + l], g[40 + l], g[48 + l]},
                          {g[56 + l], g[64 + l], g[72 + l]}};
        sk_clip_track_sample(c, i, tw, cursor ? &cursor[i] : NULL, &x);
        put_joint(g, l, &x);
    }
    return SK_OK;
}

sk_result sk_clip_sample_soa(const sk_clip *c, const sk_skeleton *s, double t, sk_loop_mode loop, uint32_t *cursor,
                             size_t cursor_count, sk_soa_pose *out, sk_error *err) {
    return sample_soa(c, s, t, loop, cursor, cursor_count, out, true, "sk_clip_sample_soa", err);
}

sk_result sk_clip_sample_soa_update(const sk_clip *c, const sk_skeleton *s, double t, sk_loop_mode loop, uint32_t *cursor,
                                    size_t cursor_count, sk_soa_pose *out, sk_error *err) {
    return sample_soa(c, s, t, loop, cursor, cursor_count, out, false, "sk_clip_sample_soa_update", err);
}

/* ---- local-to-model ------------------------------------------------------ */

/* One joint from its local matrix rows (lane l of skk_rs_group's output)
 * and its parent's columns a0..a3: l2m_joint's products and sums in its
 * order (pose.c), so the same bits. The columns stay in registers for the
 * next joint when it is this one's child (chains: the parent is the joint
 * just computed), which takes the store and reload off the critical path. */
#if defined(__SSE2__) && !defined(SK_NO_SIMD)
static inline void soa_l2m_cols(const float *rs, uint32_t l, __m128 a0, __m128 a1, __m128 a2, __m128 a3, __m128 *c) {
    for (int k = 0; k < 3; k++) {
        __m128 col = _mm_add_ps(_mm_mul_ps(a0, _mm_set1_ps(rs[(3 * k) * 8 + l])),
                                _mm_mul_ps(a1, _mm_set1_ps(rs[(3 * k + 1) * 8 + l])));
        c[k] = _mm_add_ps(col, _mm_mul_ps(a2, _mm_set1_ps(rs[(3 * k + 2) * 8 + l])));
    }
    __m128 col = _mm_add_ps(_mm_mul_ps(a0, _mm_set1_ps(rs[72 + l])), _mm_mul_ps(a1, _mm_set1_ps(rs[80 + l])));
    c[3] = _mm_add_ps(_mm_add_ps(col, _mm_mul_ps(a2, _mm_set1_ps(rs[88 + l]))), a3);
}
#else
static inline void soa_l2m_joint(const float *rs, uint32_t l, const float *pm, float *out) {
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 4; row++)
            out[c * 4 + row] = pm[row] * rs[(3 * c) * 8 + l] + pm[4 + row] * rs[(3 * c + 1) * 8 + l] +
                               pm[8 + row] * rs[(3 * c + 2) * 8 + l];
    for (int row = 0; row < 4; row++)
        out[12 + row] = pm[row] * rs[72 + l] + pm[4 + row] * rs[80 + l] + pm[8 + row] * rs[88 + l] + pm[12 + row];
}
#endif

/* The skin joint that is joint j in the palette pass, or UINT32_MAX (no
 * pass, or map[j] not a joint of the skin: skipped, so a stale map cannot
 * write outside the palette). */
static inline uint32_t soa_palette_index(const sk_soa_palette *pal, uint32_t j) {
    uint32_t i = pal ? (uint32_t)(int32_t)pal->map[j] : UINT32_MAX;
    return pal && i < pal->skin->joint_count ? i : UINT32_MAX;
}

#if defined(SK_SOA_X86)
/* AVX: the group's local matrices as sk_mat4_from_transform lays them out
 * (two 8x8 transposes of skk_rs_group's rows), then per joint two columns
 * per instruction: [a_k | a_k] x [b_ck | b_(c+1)k] summed in l2m_joint's
 * order (the same bits; no FMA). */
#define SK_AVX2 __attribute__((target("avx2")))
/* The palette matrix of joint j from its model columns in registers
 * ([col0 | col1], [col2 | col3]): palette_avx2's products and sums
 * (core/palette.c, skm_mat4_mul's order), the same bits. */
SK_AVX2 static inline void l2m_palette_avx2(__m256 c01, __m256 c23, const float *b, float *out) {
    __m256 a0 = _mm256_permute2f128_ps(c01, c01, 0x00), a1 = _mm256_permute2f128_ps(c01, c01, 0x11);
    __m256 a2 = _mm256_permute2f128_ps(c23, c23, 0x00), a3 = _mm256_permute2f128_ps(c23, c23, 0x11);
    for (int h = 0; h < 2; h++) {
        __m256 bc = _mm256_loadu_ps(b + 8 * h);
        __m256 col = _mm256_add_ps(_mm256_mul_ps(a0, _mm256_permute_ps(bc, 0x00)), _mm256_mul_ps(a1, _mm256_permute_ps(bc, 0x55)));
        col = _mm256_add_ps(col, _mm256_mul_ps(a2, _mm256_permute_ps(bc, 0xAA)));
        col = _mm256_add_ps(col, _mm256_mul_ps(a3, _mm256_permute_ps(bc, 0xFF)));
        _mm256_storeu_ps(out + 8 * h, col);
    }
}

/* Joints [j0, end) (at most eight) from their local matrices' rows (lane
 * j - j0 of skk_rs_group's output rs). */
/* c01, c23 (in, out): the columns of joint *last (UINT32_MAX: none), the joint computed last,
 * kept in registers for a child that follows its parent (chains). need: only the joints it
 * marks (NULL: all). */
SK_AVX2 static inline void l2m_group_avx2(const sk_skeleton *s, const float *rs, uint32_t j0, uint32_t end,
                                          const sk_mat4 *root, sk_mat4 *out_model, const sk_soa_palette *pal,
                                          const bool *need, __m256 *c01_io, __m256 *c23_io, uint32_t *last) {
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    float mats[8][16] __attribute__((aligned(32)));
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
    __m256 r[8] = {_mm256_load_ps(rs), _mm256_load_ps(rs + 8), _mm256_load_ps(rs + 16), zero,
                   _mm256_load_ps(rs + 24), _mm256_load_ps(rs + 32), _mm256_load_ps(rs + 40), zero};
    skk_tr8_avx2(r);
    for (int l = 0; l < 8; l++) _mm256_store_ps(mats[l], r[l]);
    __m256 q[8] = {_mm256_load_ps(rs + 48), _mm256_load_ps(rs + 56), _mm256_load_ps(rs + 64), zero,
                   _mm256_load_ps(rs + 72), _mm256_load_ps(rs + 80), _mm256_load_ps(rs + 88), one};
    skk_tr8_avx2(q);
    for (int l = 0; l < 8; l++) _mm256_store_ps(mats[l] + 8, q[l]);
    for (uint32_t j = j0; j < end; j++) {
        if (need && !need[j]) continue;
        const float *m = mats[j - j0];
        int32_t p = s->parents[j];
        float *o = out_model[j].m;
        __m256 L01 = _mm256_load_ps(m), L23 = _mm256_load_ps(m + 8);
        if (p < 0 && !root) { /* sk_mat4_from_transform */
            _mm256_storeu_ps(o, L01), _mm256_storeu_ps(o + 8, L23);
            *c01_io = L01, *c23_io = L23, *last = j;
            uint32_t i = soa_palette_index(pal, j);
            if (i != UINT32_MAX) l2m_palette_avx2(L01, L23, pal->skin->inverse_bind[i].m, pal->out[i].m);
            continue;
        }
        __m256 a0, a1, a2, a3;
        if (p >= 0 && (uint32_t)p == *last) { /* the parent just computed: its columns from registers */
            a0 = _mm256_permute2f128_ps(*c01_io, *c01_io, 0x00), a1 = _mm256_permute2f128_ps(*c01_io, *c01_io, 0x11);
            a2 = _mm256_permute2f128_ps(*c23_io, *c23_io, 0x00), a3 = _mm256_permute2f128_ps(*c23_io, *c23_io, 0x11);
        } else {
            const float *pm = p >= 0 ? out_model[p].m : root ? root->m : identity;
            a0 = _mm256_broadcast_ps((const __m128 *)pm), a1 = _mm256_broadcast_ps((const __m128 *)(pm + 4));
            a2 = _mm256_broadcast_ps((const __m128 *)(pm + 8)), a3 = _mm256_broadcast_ps((const __m128 *)(pm + 12));
        }
        __m256 c01 = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(a0, _mm256_permute_ps(L01, 0x00)),
                                                 _mm256_mul_ps(a1, _mm256_permute_ps(L01, 0x55))),
                                   _mm256_mul_ps(a2, _mm256_permute_ps(L01, 0xAA)));
        __m256 c23 = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(a0, _mm256_permute_ps(L23, 0x00)),
                                                 _mm256_mul_ps(a1, _mm256_permute_ps(L23, 0x55))),
                                   _mm256_mul_ps(a2, _mm256_permute_ps(L23, 0xAA)));
        c23 = _mm256_blend_ps(c23, _mm256_add_ps(c23, a3), 0xF0); /* + a3 in the translation column only */
        _mm256_storeu_ps(o, c01), _mm256_storeu_ps(o + 8, c23);
        *c01_io = c01, *c23_io = c23, *last = j;
        uint32_t i = soa_palette_index(pal, j); /* the palette while the columns are in registers */
        if (i != UINT32_MAX) l2m_palette_avx2(c01, c23, pal->skin->inverse_bind[i].m, pal->out[i].m);
    }
}

SK_AVX2 static void l2m_avx2(const sk_skeleton *s, const sk_soa_pose *pose, const sk_mat4 *root, sk_mat4 *out_model,
                             const sk_soa_palette *pal) {
    float rs[96] __attribute__((aligned(32)));
    uint32_t n = s->joint_count;
    __m256 c01 = _mm256_setzero_ps(), c23 = _mm256_setzero_ps(); /* the last joint's columns */
    uint32_t last = UINT32_MAX;
    for (uint32_t g = 0; g < pose->group_count; g++) {
        skk_rs_group_w8(pose->data + (size_t)g * SK_SOA_GROUP_FLOATS, rs);
        uint32_t end = (g + 1) * SK_SOA_LANES < n ? (g + 1) * SK_SOA_LANES : n;
        l2m_group_avx2(s, rs, g * SK_SOA_LANES, end, root, out_model, pal, NULL, &c01, &c23, &last);
    }
}

/* The sk_pose form: eight transforms at a time into a group (the last ones
 * filled up with rest transforms), then the same kernel. */
SK_AVX2 static void l2m_aos_avx2(const sk_skeleton *s, const sk_transform *local, const sk_mat4 *root, uint32_t from,
                                 uint32_t to, const bool *need, sk_mat4 *out_model) {
    float grp[80] __attribute__((aligned(32))), rs[96] __attribute__((aligned(32)));
    __m256 c01 = _mm256_setzero_ps(), c23 = _mm256_setzero_ps();
    uint32_t last = UINT32_MAX;
    for (uint32_t j0 = from; j0 < to; j0 += 8) {
        uint32_t cnt = to - j0 < 8 ? to - j0 : 8;
        if (need) { /* a group with no joint needed is skipped */
            bool any = false;
            for (uint32_t l = 0; l < cnt; l++) any |= need[j0 + l];
            if (!any) continue;
        }
        if (cnt == 8)
            skk_aos8_to_soa_avx2((const float *)(const void *)(local + j0), grp);
        else
            skk_aos_part_to_soa_avx2((const float *)(const void *)(local + j0), cnt, grp);
        skk_rs_group_w8(grp, rs);
        l2m_group_avx2(s, rs, j0, j0 + cnt, root, out_model, NULL, need, &c01, &c23, &last);
    }
}

void sk_soa_l2m_aos(const sk_skeleton *s, const sk_transform *local, const sk_mat4 *root, uint32_t from, uint32_t to,
                    const bool *need, sk_mat4 *out_model) {
    l2m_aos_avx2(s, local, root, from, to, need, out_model);
}
#endif

/* A pose that fits the skeleton and room for its model matrices. */
static sk_result l2m_check(const sk_skeleton *s, const sk_soa_pose *pose, const sk_mat4 *out_model,
                           uint32_t model_count, const char *who, sk_error *err) {
    sk_result r = sk_soa_pose_check(s, pose, who, err);
    if (r != SK_OK) return r;
    if (!out_model || model_count < s->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: room for %u matrices, skeleton has %u", who,
                            out_model ? model_count : 0, s->joint_count);
    return SK_OK;
}

sk_result sk_local_to_model_soa(const sk_skeleton *s, const sk_soa_pose *pose, const sk_mat4 *root,
                                sk_mat4 *out_model, uint32_t model_count, sk_error *err) {
    sk_result r = l2m_check(s, pose, out_model, model_count, "sk_local_to_model_soa", err);
    if (r != SK_OK) return r;
    sk_soa_l2m(s, pose, root, out_model, NULL, sk_soa_use_avx2());
    return SK_OK;
}

bool sk_skin_joint_map(const sk_skeleton *s, const sk_skin *skin, int16_t *map) {
    if (!s || !skin || !map) return false;
    for (uint32_t j = 0; j < s->joint_count; j++) map[j] = -1;
    if (skin->joint_count > INT16_MAX) return false;
    for (uint32_t i = 0; i < skin->joint_count; i++) {
        uint32_t j = skin->joints[i];
        if (j >= s->joint_count || map[j] >= 0) return false;
        map[j] = (int16_t)i;
    }
    return true;
}

sk_result sk_local_to_model_palette_soa(const sk_skeleton *s, const sk_soa_pose *pose, const sk_mat4 *root,
                                        sk_mat4 *out_model, uint32_t model_count, const sk_skin *skin,
                                        const int16_t *map, sk_mat4 *out_palette, uint32_t palette_count,
                                        sk_error *err) {
    static const char *who = "sk_local_to_model_palette_soa";
    if (!map) { /* the two steps */
        sk_result r = sk_local_to_model_soa(s, pose, root, out_model, model_count, err);
        return r != SK_OK ? r : sk_skin_palette(skin, out_model, s->joint_count, out_palette, palette_count, err);
    }
    sk_result r = l2m_check(s, pose, out_model, model_count, who, err);
    if (r != SK_OK) return r;
    if (!skin || !out_palette) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: NULL skin or palette", who);
    if (palette_count < skin->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: room for %u palette matrices, skin has %u joints", who,
                            palette_count, skin->joint_count);
    sk_soa_palette pal = {skin, map, out_palette}; /* the caller's sk_skin_joint_map */
    sk_soa_l2m(s, pose, root, out_model, &pal, sk_soa_use_avx2());
    return SK_OK;
}

void sk_soa_l2m(const sk_skeleton *s, const sk_soa_pose *pose, const sk_mat4 *root, sk_mat4 *out_model,
                const sk_soa_palette *pal, bool wide) {
#if defined(SK_SOA_X86)
    if (wide) {
        l2m_avx2(s, pose, root, out_model, pal);
        return;
    }
#else
    (void)wide;
#endif
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    float rs[96] __attribute__((aligned(32)));
#if defined(__SSE2__) && !defined(SK_NO_SIMD)
    __m128 c[4] = {_mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps()}; /* the last joint's columns */
#endif
    uint32_t n = s->joint_count;
    for (uint32_t g = 0; g < pose->group_count; g++) {
        skk_rs_group_w4(pose->data + (size_t)g * SK_SOA_GROUP_FLOATS, rs);
        uint32_t end = (g + 1) * SK_SOA_LANES < n ? (g + 1) * SK_SOA_LANES : n;
        for (uint32_t j = g * SK_SOA_LANES; j < end; j++) {
            uint32_t l = j % SK_SOA_LANES;
            int32_t p = s->parents[j];
            float *o = out_model[j].m;
            if (p < 0 && !root) { /* sk_mat4_from_transform */
                o[0] = rs[l], o[1] = rs[8 + l], o[2] = rs[16 + l], o[3] = 0;
                o[4] = rs[24 + l], o[5] = rs[32 + l], o[6] = rs[40 + l], o[7] = 0;
                o[8] = rs[48 + l], o[9] = rs[56 + l], o[10] = rs[64 + l], o[11] = 0;
                o[12] = rs[72 + l], o[13] = rs[80 + l], o[14] = rs[88 + l], o[15] = 1;
#if defined(__SSE2__) && !defined(SK_NO_SIMD)
                c[0] = _mm_loadu_ps(o), c[1] = _mm_loadu_ps(o + 4), c[2] = _mm_loadu_ps(o + 8), c[3] = _mm_loadu_ps(o + 12);
#endif
                uint32_t i = soa_palette_index(pal, j);
                if (i != UINT32_MAX) skm_mat4_mul(o, pal->skin->inverse_bind[i].m, pal->out[i].m);
                continue;
            }
            const float *pm = p >= 0 ? out_model[p].m : root ? root->m : identity;
#if defined(__SSE2__) && !defined(SK_NO_SIMD)
            if (p >= 0 && (uint32_t)p + 1 == j)
                soa_l2m_cols(rs, l, c[0], c[1], c[2], c[3], c);
            else
                soa_l2m_cols(rs, l, _mm_loadu_ps(pm), _mm_loadu_ps(pm + 4), _mm_loadu_ps(pm + 8), _mm_loadu_ps(pm + 12), c);
            _mm_storeu_ps(o, c[0]), _mm_storeu_ps(o + 4, c[1]), _mm_storeu_ps(o + 8, c[2]), _mm_storeu_ps(o + 12, c[3]);
#else
            soa_l2m_joint(rs, l, pm, o);
#endif
            uint32_t i = soa_palette_index(pal, j);
            if (i != UINT32_MAX) skm_mat4_mul(o, pal->skin->inverse_bind[i].m, pal->out[i].m);
        }
    }
}
