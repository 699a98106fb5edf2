/* Sampling a compressed clip: the entry points, which choose a decoder by
 * CPU (the SIMD ones: clip_compressed_avx2.c, _avx512.c, _rows.c), and the
 * scalar reference decoder, every other decoder's bits. */
#include "core/clip_internal.h"
#include "skelanim/core/simd.h"
#include "core/math_inline.h"
#include "core/soa_kernels.h"
#include "skelanim/core/soa.h"

#include <math.h>
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF /* fused multiply-adds only where written (the scalar decoder's fmaf) */
#endif
#include "core/clip_compressed_internal.h"

/* Skeletons of up to this many joints are sampled whole through a stack buffer of SoA groups (sk_cclip_sample_pose). */
enum { CC_POSE_JOINTS = 128 };

static inline uint32_t cc_bits(const uint8_t *bits, uint64_t pos, uint64_t mask) {
    return (uint32_t)((sk_cc_u64(bits + (pos >> 3)) >> (pos & 7u)) & mask);
}

/* Decodes track a at the cursor (4 floats: x,y,z,w or x,y,z,0) and moves past it. */
static inline void cc_read(cc_cursor *s, uint32_t a, const float *range, bool rot, float *out) {
    uint32_t v = s->rates[a], lvl = v & 15u, b = SK_CC_BITS[lvl], d = v >> 4;
    uint64_t mask = (1ull << b) - 1u;
    const uint8_t *sr = s->ranges + 6u * a;
    float x[3];
    for (uint32_t k = 0; k < 3; k++) {
        uint32_t comp = k + (k >= d);
        float off, sc;
        sk_cc_coef(range[comp], range[4 + comp], sr[k], sr[3 + k], lvl, &off, &sc);
        x[k] = sk_cc_value(off, sc, cc_bits(s->bits, s->pos, mask));
        s->pos += b;
    }
    sk_cc_place(out, x, d, rot);
}

/* Both frames in one segment: the coefficients once, two samples. */
static inline void cc_read2(cc_cursor *s0, cc_cursor *s1, uint32_t a, const float *range, bool rot, float *o0,
                            float *o1) {
    uint32_t v = s0->rates[a], lvl = v & 15u, b = SK_CC_BITS[lvl], d = v >> 4;
    uint64_t mask = (1ull << b) - 1u;
    const uint8_t *sr = s0->ranges + 6u * a;
    float x0[3], x1[3];
    for (uint32_t k = 0; k < 3; k++) {
        uint32_t comp = k + (k >= d);
        float off, sc;
        sk_cc_coef(range[comp], range[4 + comp], sr[k], sr[3 + k], lvl, &off, &sc);
        x0[k] = sk_cc_value(off, sc, cc_bits(s0->bits, s0->pos, mask));
        x1[k] = sk_cc_value(off, sc, cc_bits(s1->bits, s1->pos, mask));
        s0->pos += b;
        s1->pos += b;
    }
    sk_cc_place(o0, x0, d, rot);
    sk_cc_place(o1, x1, d, rot);
}

static inline void cc_range(const sk_clip *c, uint32_t a, float *range) { memcpy(range, c->cc.ranges + 8u * a, 32); }

static inline void cc_const(const sk_clip *c, const sk_track *t, sk_transform *x) {
    const uint8_t *q = c->cc.consts + 16u * t->value_offset;
    float v[4];
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(v, q, 16);
#else
    for (int k = 0; k < 4; k++) v[k] = sk_cc_f32(q + 4 * k);
#endif
    if (t->path == SK_PATH_ROTATION) x->r = sk_quat_make(v[0], v[1], v[2], v[3]);
    else if (t->path == SK_PATH_TRANSLATION) x->t = sk_vec3_make(v[0], v[1], v[2]);
    else x->s = sk_vec3_make(v[0], v[1], v[2]);
}

/* ---- step tracks (blob version 5): glTF STEP from their keys ---- */

/* Step track t's key at wrapped time tw: the last key at or before it, the
 * first before the first key (clip.c's STEP); its values into v. */
static void cc_step_value(const sk_clip *c, const sk_track *t, double tw, float *v) {
    const uint8_t *tm = c->blob + t->time_offset;
    uint32_t n = t->key_count, lo = 0, hi = n; /* the answer in [lo, hi): times[lo] <= tw or lo == 0 */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((double)sk_cc_f32(tm + 4u * mid) <= tw) lo = mid;
        else hi = mid;
    }
    const uint8_t *q = tm + 4u * n + 4u * (size_t)t->width * lo;
    v[3] = 0.0f;
    for (uint32_t k = 0; k < t->width; k++) v[k] = sk_cc_f32(q + 4u * k);
}

void sk_cclip_steps_aos(const sk_clip *c, double tw, sk_transform *local) {
    for (uint32_t i = 0, left = c->cc.steps; left && i < c->track_count; i++) {
        const sk_track *t = &c->tracks[i];
        if (t->interp != SK_INTERP_STEP) continue;
        float v[4];
        cc_step_value(c, t, tw, v);
        sk_transform *x = &local[t->joint];
        if (t->path == SK_PATH_ROTATION) x->r = sk_quat_make(v[0], v[1], v[2], v[3]);
        else if (t->path == SK_PATH_TRANSLATION) x->t = sk_vec3_make(v[0], v[1], v[2]);
        else x->s = sk_vec3_make(v[0], v[1], v[2]);
        left--;
    }
}

void sk_cclip_steps_soa(const sk_clip *c, double tw, float *soa) {
    static const uint8_t row[3] = {0, 3, 7}; /* sk_soa_pose's rows: t x,y,z, r x,y,z,w, s x,y,z */
    for (uint32_t i = 0, left = c->cc.steps; left && i < c->track_count; i++) {
        const sk_track *t = &c->tracks[i];
        if (t->interp != SK_INTERP_STEP) continue;
        float v[4];
        cc_step_value(c, t, tw, v);
        float *g = soa + (size_t)(t->joint / 8u) * SK_SOA_GROUP_FLOATS + 8u * row[t->path] + t->joint % 8u;
        for (uint32_t k = 0; k < t->width; k++) g[8u * k] = v[k];
        left--;
    }
}

bool sk_cclip_simd_available(void) {
#if defined(SK_CC_AVX2)
    return sk_simd_best() >= SK_SIMD_AVX2;
#else
    return false;
#endif
}

bool sk_cclip_avx512_available(void) {
#if defined(SK_CC_AVX2)
    return sk_simd_best() >= SK_SIMD_AVX512 && __builtin_cpu_supports("avx512dq");
#else
    return false;
#endif
}

bool sk_cclip_rows_available(void) {
#if defined(SK_CC_AVX2)
    return sk_cclip_avx512_available() && __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vbmi");
#else
    return false;
#endif
}

#if defined(SK_CC_AVX2)
/* A clip with the rows (cc.rrows): the rows decoder of AVX-512 VBMI where the
 * clip's plan chose it and level allows it, else the one of AVX2. */
static void cc_sample_rows(const sk_clip *c, uint32_t k0, float u, sk_transform *local, float *soa, uint32_t *cache, int level) {
    bool vbmi = c->cc.rows_vbmi && level >= SK_CC_ROWS;
    if (cache) { /* the frames' cursors made there, where a frame is decoded */
        if (vbmi) sk_cclip_sample_rows_cached(c, k0, u, local, soa, cache);
        else sk_cclip_sample_rows8_cached(c, k0, u, local, soa, cache);
        return;
    }
    cc_cursor s0, s1;
    cc_at_pair(c, k0, &s0, &s1);
    if (vbmi) sk_cclip_sample_rows_plain(c, &s0, &s1, u, local, soa);
    else sk_cclip_sample_rows8_plain(c, &s0, &s1, u, local, soa);
}
static void cc_sample_avx2(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, float u, sk_transform *local, float *soa, uint32_t *cache,
                           uint32_t k0) {
    if (cache) sk_cclip_sample_avx2_cached(c, s0, s1, u, local, soa, cache, k0);
    else sk_cclip_sample_avx2_plain(c, s0, s1, u, local, soa);
}
static void cc_sample_avx512(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, float u, sk_transform *local, float *soa, uint32_t *cache,
                             uint32_t k0) {
    if (cache) sk_cclip_sample_avx512_cached(c, s0, s1, u, local, soa, cache, k0);
    else sk_cclip_sample_avx512_plain(c, s0, s1, u, local, soa);
}
#endif

/* The first of the two frames around wrapped time tw, and the weight u of the second. */
static inline __attribute__((always_inline)) uint32_t cc_key(const sk_clip *c, double tw, float *u) {
    uint32_t N = c->cc.frames, k0;
    double f = tw * (double)c->cc.rate;
    if (!(f > 0.0)) k0 = 0, *u = 0.0f;
    else if (f >= (double)(N - 1)) k0 = N - 1, *u = 0.0f;
    else {
        k0 = (uint32_t)f;
        *u = (float)(f - (double)k0);
    }
    return k0;
}

void sk_cclip_rest_soa(const sk_clip *c, const float *rest_soa, float *data, uint32_t groups) {
    uint32_t cg = (c->joint_span + 7u) / 8u;
    if (cg > groups) cg = groups;
#if defined(SK_CC_AVX2)
    if (c->cc.rest_avx2) sk_cclip_rest_rows_avx2(c, rest_soa, data, cg);
    else
#endif
    {
        static const uint8_t row0[4] = {0, 3, 7, 10};
        const uint32_t *e = c->cc.cgroups;
        for (uint32_t g = 0; g < cg; g++) {
            const float *r = rest_soa + (size_t)g * SK_SOA_GROUP_FLOATS, *cv = r;
            float *o = data + (size_t)g * SK_SOA_GROUP_FLOATS;
            uint32_t m = c->cc.gcover[g], cm = cc_cgroup(c, &e, g, &cv);
            for (uint32_t p = 0; p < 3; p++)
                if ((m >> 8 * p & 0xffu) != 0xffu || (cm >> 8 * p & 0xffu))
                    for (uint32_t q = row0[p]; q < row0[p + 1]; q++)
                        for (uint32_t l = 0; l < 8; l++) o[8 * q + l] = cm >> (8 * p + l) & 1u ? cv[8 * q + l] : r[8 * q + l];
        }
    }
    if (groups > cg) memcpy(data + (size_t)cg * SK_SOA_GROUP_FLOATS, rest_soa + (size_t)cg * SK_SOA_GROUP_FLOATS,
                            (size_t)(groups - cg) * SK_SOA_GROUP_FLOATS * sizeof(float));
}

bool sk_cclip_sample_pose(const sk_clip *c, const sk_skeleton *s, double tw, uint32_t *cache, sk_transform *local) {
#if defined(SK_CC_AVX2)
    /* The rows decoder writes an SoA pose's rows with no per-joint stores, so a pose is
     * sampled as SoA groups, from the SoA rest pose (only the rows the clip does not write
     * in full), then turned into transforms: through a stack buffer up to CC_POSE_JOINTS
     * joints, else in the pose's own memory (the same 80 floats per eight joints) when the
     * clip stays inside the skeleton's full groups. */
    uint32_t J = s->joint_count, G = (J + 7u) / 8u, full = J / SK_SOA_LANES;
    if (!c->cc.pose_rows) return false;
    float u;
    if (J <= CC_POSE_JOINTS) {
        float d[CC_POSE_JOINTS / 8 * SK_SOA_GROUP_FLOATS] __attribute__((aligned(32)));
        /* the pose's lines on their way while the frames are decoded: it is written only at the
         * end, and a crowd's poses are seldom in the cache (1,000 characters of 128 joints
         * sampled 1-5 % faster) */
        for (size_t o = 0; o < (size_t)J * sizeof *local; o += 64) __builtin_prefetch((const char *)(const void *)local + o, 1, 3);
        sk_cclip_rest_soa(c, s->rest_soa, d, G);
        uint32_t k0 = cc_key(c, tw, &u);
        cc_sample_rows(c, k0, u, NULL, d, cache, SK_CC_BEST);
        sk_cclip_soa_to_aos(d, (float *)(void *)local, J);
        if (c->cc.steps) sk_cclip_steps_aos(c, tw, local);
        return true;
    }
    if (c->joint_span > full * SK_SOA_LANES) return false;
    float *d = (float *)(void *)local;
    sk_cclip_rest_soa(c, s->rest_soa, d, full);
    uint32_t k0 = cc_key(c, tw, &u);
    cc_sample_rows(c, k0, u, NULL, d, cache, SK_CC_BEST);
    sk_cclip_soa_to_aos(d, d, full * SK_SOA_LANES);
    if (J > full * SK_SOA_LANES)
        memcpy(local + full * SK_SOA_LANES, s->rest + full * SK_SOA_LANES, (J - full * SK_SOA_LANES) * sizeof(sk_transform));
    if (c->cc.steps) sk_cclip_steps_aos(c, tw, local);
    return true;
#else
    (void)c, (void)s, (void)tw, (void)cache, (void)local;
    return false;
#endif
}

void sk_cclip_sample_tracks(const sk_clip *c, double tw, uint32_t *cache, sk_transform *local) {
    sk_cclip_sample_tracks_simd(c, tw, cache, local, SK_CC_BEST);
}

bool sk_cclip_sample_soa(const sk_clip *c, double tw, uint32_t *cache, float *soa) {
#if defined(SK_CC_AVX2)
    if (sk_cclip_simd_available()) {
        float u;
        uint32_t k0 = cc_key(c, tw, &u);
        if (c->cc.rrows) cc_sample_rows(c, k0, u, NULL, soa, cache, SK_CC_BEST);
        else {
            cc_cursor s0, s1;
            cc_at_pair(c, k0, &s0, &s1);
            if (sk_cclip_avx512_available()) cc_sample_avx512(c, &s0, &s1, u, NULL, soa, cache, k0);
            else cc_sample_avx2(c, &s0, &s1, u, NULL, soa, cache, k0);
        }
        if (c->cc.steps) sk_cclip_steps_soa(c, tw, soa);
        return true;
    }
#endif
    (void)c, (void)tw, (void)cache, (void)soa;
    return false;
}

void sk_cclip_sample_tracks_simd(const sk_clip *c, double tw, uint32_t *cache, sk_transform *local, int level) {
    cc_cursor s0, s1;
    float u;
    uint32_t k0 = cc_key(c, tw, &u);
    (void)cache, (void)level; /* level: without the x86 decoders, the scalar path */
#if defined(SK_CC_AVX2)
    if (level > SK_CC_SCALAR && sk_cclip_simd_available()) {
        if (level >= SK_CC_ROWS8 && c->cc.rrows) cc_sample_rows(c, k0, u, local, NULL, cache, level); /* makes its cursors */
        else {
            cc_at_pair(c, k0, &s0, &s1);
            if (level >= SK_CC_AVX512 && sk_cclip_avx512_available()) cc_sample_avx512(c, &s0, &s1, u, local, NULL, cache, k0);
            else cc_sample_avx2(c, &s0, &s1, u, local, NULL, cache, k0);
        }
        if (c->cc.steps) sk_cclip_steps_aos(c, tw, local);
        return;
    }
#endif
    cc_at_pair(c, k0, &s0, &s1);
    bool same = s0.seg == s1.seg;
    uint32_t a = 0;
    for (uint32_t i = 0; i < c->track_count; i++)
        if (!c->tracks[i].pad_) cc_const(c, &c->tracks[i], &local[c->tracks[i].joint]);
    /* the animated tracks in data order (the plan's joint lists: the rotations', then the
     * translations' and scales', 2 joint + 1 for a scale) */
    const uint32_t *rj = c->cc.slots + c->cc.anim, *tj = rj + c->cc.rots;
    for (; a < c->cc.anim; a++) {
        float range[8], v0[4], v1[4];
        bool rot = a < c->cc.rots;
        uint32_t tv = rot ? 0 : tj[a - c->cc.rots];
        sk_transform *x = &local[rot ? rj[a] : tv >> 1];
        cc_range(c, a, range);
        if (same) cc_read2(&s0, &s1, a, range, rot, v0, v1);
        else {
            cc_read(&s0, a, range, rot, v0);
            cc_read(&s1, a, range, rot, v1);
        }
        if (rot) x->r = sk_cc_qlerp(v0, v1, u);
        else if (tv & 1u) x->s = sk_cc_vlerp(v0, v1, u);
        else x->t = sk_cc_vlerp(v0, v1, u);
    }
    if (c->cc.steps) sk_cclip_steps_aos(c, tw, local);
}

bool sk_cclip_track_keys(const sk_clip *c, uint32_t ti, float *times, float *values) {
    uint32_t N = c->cc.frames;
    const sk_track *st = &c->tracks[ti];
    if (st->interp == SK_INTERP_STEP) { /* its keys as stored */
        const uint8_t *tm = c->blob + st->time_offset;
        for (uint32_t k = 0; times && k < st->key_count; k++) times[k] = sk_cc_f32(tm + 4u * k);
        for (size_t k = 0; values && k < (size_t)st->key_count * st->width; k++) values[k] = sk_cc_f32(tm + 4u * (st->key_count + k));
        return true;
    }
    if (times)
        for (uint32_t k = 0; k < N; k++)
            times[k] = k + 1 == N && N > 1 ? c->duration : (float)((double)k / (double)c->cc.rate);
    if (!values) return true;
    const sk_track *tr = &c->tracks[ti];
    uint32_t a = tr->value_offset; /* an animated track's place in the data order */
    uint32_t w = tr->width;
    for (uint32_t k = 0; k < N; k++) {
        sk_transform x;
        float *o = values + (size_t)k * w;
        if (!tr->pad_) cc_const(c, tr, &x);
        else {
            float range[8], v[4];
            cc_cursor s;
            cc_at(c, k, &s);
            /* the track's position inside the frame */
            for (uint32_t b = 0; b < a; b++) s.pos += 3u * SK_CC_BITS[s.rates[b] & 15u];
            cc_range(c, a, range);
            cc_read(&s, a, range, tr->path == SK_PATH_ROTATION, v);
            if (tr->path == SK_PATH_ROTATION) x.r = sk_cc_qlerp(v, v, 0.0f); /* as sampled at the frame */
            else x.t = x.s = sk_vec3_make(v[0], v[1], v[2]);
        }
        if (tr->path == SK_PATH_ROTATION) o[0] = x.r.x, o[1] = x.r.y, o[2] = x.r.z, o[3] = x.r.w;
        else if (tr->path == SK_PATH_TRANSLATION) o[0] = x.t.x, o[1] = x.t.y, o[2] = x.t.z;
        else o[0] = x.s.x, o[1] = x.s.y, o[2] = x.s.z;
    }
    return true;
}
