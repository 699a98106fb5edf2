/* The compressed kind of sk_clip: a blob (layout in clip_internal.h) checked
 * once at load and then sampled in place, two frames per call, without
 * decompressing the clip. Written by core/compress.c. */
#include "core/clip_internal.h"
#include "core/math_inline.h"
#include "core/soa_kernels.h"
#include "skelanim/core/soa.h"

#include <math.h>
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF /* fused multiply-adds only where written (the scalar decoder's fmaf) */
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>
#endif
#if (defined(__x86_64__) || defined(_M_X64)) && defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#define SK_CC_AVX2 1
#include <immintrin.h>
#endif

/* Animated tracks decoded per pass (stack buffers of the decoders). */
enum { CC_CHUNK = 64, CC_XV = CC_CHUNK + 8 }; /* decoded slots: rotations (padded to 8), then translations/scales */
/* The plan's constant tracks: words per track, the rotation flag of its place. */
enum { CC_CONST_WORDS = 5 };
/* Skeletons of up to this many joints are sampled whole through a stack buffer of SoA groups (sk_cclip_sample_pose). */
enum { CC_POSE_JOINTS = 128 };
/* Clips with fewer animated tracks than this keep the two-track decoder (sk_clip_from_compressed). */
enum { CC_ROWS_MIN = 24 };
/* The header of a cursor's cache of decoded frames (cc_cache_hit), in words. */
enum { CC_CACHE_HEADER = 8 };
#define CC_CONST_ROT 0x80000000u
/* The SoA placement of a block of eight rotations (cc.rplace): words per block, and the
 * first word of a block whose lanes reach more than two groups (or one joint twice). */
enum { CC_PLACE_WORDS = 4 };
#define CC_PLACE_LANES 0xffffffffu
/* The lanes word of a block whose eight rotations are a group's eight joints in order. */
#define CC_PLACE_ALL 0xFFFAC688u
/* Words per constant group (cc.cgroups): index, lanes, 80 floats. */
enum { CC_CGROUP_WORDS = 2 + SK_SOA_GROUP_FLOATS };

static sk_result bad(sk_error *err, const char *what) {
    return sk_error_set(err, SK_ERR_INVALID_DATA, "compressed clip: %s", what);
}

static bool finite_in(float v, float lim) { return sk_isfinite_f(v) && v >= -lim && v <= lim; }

static uint32_t cc_u16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }

/* A track's u32 entry: its joint, path and whether it is animated. */
static uint32_t cc_tjoint(uint32_t w) { return w & ((1u << SK_CC_JOINT_BITS) - 1u); }
static uint32_t cc_tpath(uint32_t w) { return w >> SK_CC_JOINT_BITS & 3u; }
static uint32_t cc_tanim(uint32_t w) { return w >> (SK_CC_JOINT_BITS + 2) & 1u; }

/* The header, the tracks, the constants and the clip ranges checked against
 * the blob before anything is read from them (the segments: cc_segments);
 * *seg0: where the segments start. */
static sk_result check_blob(const uint8_t *b, size_t size, uint64_t *seg0, sk_error *err) {
    if (size < SK_CC_HEADER + 8) return bad(err, "shorter than its header");
    if (sk_cc_u32(b) != SK_CC_MAGIC) return bad(err, "bad magic");
    if (sk_cc_u32(b + 4) != SK_CC_VERSION)
        return sk_error_set(err, SK_ERR_UNSUPPORTED, "compressed clip: version %u, this build reads version %u (compress the source again)",
                            sk_cc_u32(b + 4), SK_CC_VERSION);
    if (sk_cc_u32(b + 8) != size) return bad(err, "size does not match its header");
    uint32_t N = sk_cc_u32(b + 12), T = sk_cc_u32(b + 24), A = sk_cc_u32(b + 28), L = sk_cc_u32(b + 32);
    float rate = sk_cc_f32(b + 16), dur = sk_cc_f32(b + 20);
    if (N == 0 || N > SK_CC_MAX_FRAMES || L == 0 || L > 4096 || A > T || T > 4u * SK_MAX_JOINTS) return bad(err, "bad counts");
    if (sk_cc_u32(b + 36)) return bad(err, "bad header");
    if (!finite_in(dur, 1e30f) || dur < 0.0f) return bad(err, "bad duration");
    if (!finite_in(rate, 1e30f) || !(rate > 0.0f)) return bad(err, "bad sample rate");
    if (N > 1 && !(dur > 0.0f)) return bad(err, "frames without a duration");
    uint64_t lim = size - 8, oc = SK_CC_HEADER + 4ull * T, orr = oc + 16ull * (T - A);
    if (orr > lim) return bad(err, "track table outside the blob");
    uint32_t na = 0, nc = 0, pj = 0, pp = 0, nrot = 0;
    for (uint32_t i = 0; i < T; i++) {
        uint32_t w = sk_cc_u32(b + SK_CC_HEADER + 4u * i), j = cc_tjoint(w), path = cc_tpath(w), anim = cc_tanim(w);
        if (w >> (SK_CC_JOINT_BITS + 3) || j >= SK_MAX_JOINTS || path > SK_PATH_SCALE) return bad(err, "bad track");
        if (i > 0 && (j < pj || (j == pj && path <= pp))) return bad(err, "tracks not sorted");
        pj = j, pp = path;
        if (anim ? na >= A : nc >= T - A) return bad(err, "animated track count does not match"); /* found by fuzz_skc */
        if (anim) {
            na++;
            nrot += path == SK_PATH_ROTATION;
        } else {
            const uint8_t *q = b + oc + 16u * nc++;
            float v[4], l2 = 0.0f;
            for (int k = 0; k < 4; k++) {
                v[k] = sk_cc_f32(q + 4 * k);
                if (!finite_in(v[k], 1e30f)) return bad(err, "bad constant");
            }
            if (path == SK_PATH_ROTATION) {
                for (int k = 0; k < 4; k++) {
                    if (v[k] < -2.0f || v[k] > 2.0f) return bad(err, "bad constant rotation");
                    l2 += v[k] * v[k];
                }
                if (!(l2 > 0.25f)) return bad(err, "bad constant rotation");
            }
        }
    }
    /* the clip ranges in data order: the animated rotations', then the translations' and scales' */
    uint64_t rr = orr;
    for (uint32_t a = 0; a < na; a++) {
        const uint8_t *r = b + rr;
        if (a < nrot) {
            if ((rr += 16) > lim) return bad(err, "ranges outside the blob");
            for (int k = 0; k < 4; k++)
                if (cc_u16(r + 8 + 2 * k) < cc_u16(r + 2 * k)) return bad(err, "bad range");
        } else {
            if ((rr += 24) > lim) return bad(err, "ranges outside the blob");
            for (int k = 0; k < 6; k++) {
                float v = sk_cc_f32(r + 4 * k);
                if (!finite_in(v, 1e30f) || (k >= 3 && v < 0.0f)) return bad(err, "bad range");
            }
        }
    }
    if (na != A) return bad(err, "animated track count does not match");
    /* every segment holds at least its A bit rates and A segment ranges (the plan's segment table is sized by S) */
    if (A && ((uint64_t)(N - 1) / L + 1) * 7u * A > lim - rr) return bad(err, "segments outside the blob");
    if (!A && rr != lim) return bad(err, "size does not match its segments");
    *seg0 = rr;
    return SK_OK;
}

/* The segments checked and placed (A > 0): each one's bit rates (a rotation's
 * dropped component 0-3, 3 for a translation or scale: slot[a] >= CC_XV),
 * its bits per frame computed from them and its data inside the blob, the
 * last one ending where the 8 zero bytes start. Into segtab: each segment's
 * offset and bits per frame. */
static sk_result cc_segments(const sk_clip *c, uint64_t o, const uint32_t *slot, uint32_t *segtab, sk_error *err) {
    const uint8_t *b = c->blob;
    uint32_t N = c->cc.frames, A = c->cc.anim, L = c->cc.seg_len, S = c->cc.segments;
    uint64_t lim = c->blob_size - 8;
    for (uint32_t s = 0; s < S; s++) {
        if (o + 7ull * A > lim) return bad(err, "segment outside the blob");
        const uint8_t *seg = b + o;
        uint64_t F = 0;
        for (uint32_t a = 0; a < A; a++) {
            uint8_t v = seg[a];
            if (v >> 6 || (slot[a] >= CC_XV && v >> 4 != 3)) return bad(err, "bad bit rate");
            F += 3u * SK_CC_BITS[v & 15u];
        }
        uint64_t frames = s + 1 < S ? L : N - (uint64_t)s * L;
        segtab[2u * s] = (uint32_t)o, segtab[2u * s + 1] = (uint32_t)F;
        o += 7ull * A + (frames * F + 7) / 8;
        if (o > lim) return bad(err, "segment data outside the blob");
    }
    if (o != lim) return bad(err, "size does not match its segments");
    return SK_OK;
}

sk_result sk_clip_from_compressed(const char *name, const void *data, size_t size, bool copy, const sk_allocator *alloc,
                                  sk_clip **out, sk_error *err) {
    if (!out || (!data && size)) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_from_compressed: NULL argument");
    *out = NULL;
    if (size > UINT32_MAX) return bad(err, "larger than 4 GiB");
    uint64_t seg0 = 0;
    sk_result r = check_blob(data, size, &seg0, err);
    if (r != SK_OK) return r;
    const sk_allocator *a = sk_allocator_or_default(alloc);
    sk_clip *c = sk_alloc(a, sizeof *c);
    if (!c) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    c->alloc = *a;
    c->kind = SK_CLIP_COMPRESSED;
    if (!name) name = "";
    size_t nl = strlen(name) + 1;
    const uint8_t *b = data;
    uint32_t T = sk_cc_u32(b + 24);
    c->name = sk_alloc(a, nl);
    if (c->name) memcpy(c->name, name, nl); /* before any failure: sk_clip_destroy frees strlen + 1 bytes */
    c->tracks = sk_alloc(a, (size_t)T * sizeof(sk_track));
    c->track_count = T;
    if (copy) {
        uint8_t *blob = sk_alloc(a, size);
        if (blob) memcpy(blob, data, size);
        c->blob = blob;
        c->blob_owned = blob != NULL;
    } else c->blob = b;
    c->blob_size = size;
    if (!c->name || !c->tracks || !c->blob) {
        if (!c->blob) c->blob_size = 0;
        sk_clip_destroy(c);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    b = c->blob;
    c->cc.frames = sk_cc_u32(b + 12);
    c->cc.rate = sk_cc_f32(b + 16);
    c->duration = sk_cc_f32(b + 20);
    c->cc.anim = sk_cc_u32(b + 28);
    c->cc.seg_len = sk_cc_u32(b + 32);
    c->cc.segments = (c->cc.frames - 1) / c->cc.seg_len + 1;
    c->cc.seg_shift = 32;
    for (uint32_t sh = 0; sh < 32; sh++)
        if (c->cc.seg_len == 1u << sh) c->cc.seg_shift = sh;
    c->cc.consts = b + SK_CC_HEADER + 4u * T;
    const uint8_t *tt = b + SK_CC_HEADER, *rb = c->cc.consts + 16u * (T - c->cc.anim);
    uint32_t nrot = 0, nc = 0, span = 0;
    for (uint32_t i = 0; i < T; i++) {
        sk_track *t = &c->tracks[i];
        uint32_t w = sk_cc_u32(tt + 4u * i);
        t->joint = cc_tjoint(w);
        t->path = (uint8_t)cc_tpath(w);
        t->interp = SK_INTERP_LINEAR;
        t->pad_ = (uint8_t)cc_tanim(w);
        t->key_count = c->cc.frames;
        t->width = t->path == SK_PATH_ROTATION ? 4u : 3u;
        if (!t->pad_) t->value_offset = nc++;
        nrot += t->pad_ && t->path == SK_PATH_ROTATION;
        if (t->joint + 1 > span) span = t->joint + 1;
    }
    /* an animated track's value_offset: its place in the data order (the rotations, then the others) */
    for (uint32_t i = 0, ar = 0, av = nrot; i < T; i++)
        if (c->tracks[i].pad_) c->tracks[i].value_offset = c->tracks[i].path == SK_PATH_ROTATION ? ar++ : av++;
    c->joint_span = span;
    /* The plan: the clip ranges as floats (A x 8: minima x,y,z,w then the
     * extents per 1/255 step, sk_cc_ext255;
     * a 64-byte alignment of them measured no faster); the segments' offsets and bits per frame (S x 2 when
     * A > 0); for the AVX2 decoder per animated track its slot in its chunk's
     * decoded values (rotations from 0, translations/scales from CC_XV); the rotations' joints;
     * the translations'/scales' joints (x2, +1 for a scale); the constant
     * tracks; per chunk of CC_CHUNK animated tracks, its rotation count;
     * per constant track its place in a pose's sk_transform array (in floats,
     * CC_CONST_ROT set for a rotation) and its four values, so that a sample
     * writes each with one or two stores (CC_CONST_WORDS words each); on a
     * CPU with the rows decoder (and 24 animated tracks or more) per block of
     * sixteen animated tracks their clip ranges as rows (128 floats: minima
     * x, y, z, w then extents, a lane per track) and then a rotation mask per
     * block; last, per group of eight joints of the span, which joints have a
     * track of each path (8 bits per path). The animated tracks are in data
     * order (the blob's: rotations first). */
    uint32_t A = c->cc.anim, chunks = (A + CC_CHUNK - 1) / CC_CHUNK, S = A ? c->cc.segments : 0;
    /* the rows decoder's clip ranges and rotation masks: only on a CPU that has it */
    uint32_t blocks = (A + 15u) / 16u, groups = (span + 7u) / 8u;
    /* the rows decoder pays per block of sixteen tracks: below CC_ROWS_MIN animated tracks the
     * two-track decoder is faster (the mannequin's 18: 7.6 against 8.4-8.8 ns per joint) */
    bool rows = A >= CC_ROWS_MIN && sk_cclip_rows_available();
    /* blocks of eight rotations: each chunk's from its first (the rotations come first in data order) */
    uint32_t rblocks = 0;
    for (uint32_t k = 0; k < chunks; k++) {
        uint32_t from = k * CC_CHUNK, nrk = nrot > from ? (nrot - from < CC_CHUNK ? nrot - from : CC_CHUNK) : 0;
        rblocks += (nrk + 7u) / 8u;
    }
    /* the groups that hold a constant track, numbered in group order (cmark[g]: its number + 1) */
    uint32_t ncg = 0, *cmark = T > A ? sk_alloc(a, (size_t)groups * sizeof(uint32_t)) : NULL;
    if (T > A && !cmark) {
        sk_clip_destroy(c);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    for (uint32_t i = 0; i < T && cmark; i++)
        if (!c->tracks[i].pad_ && c->tracks[i].path < 3) cmark[c->tracks[i].joint / 8u] = 1;
    for (uint32_t g = 0; g < groups && cmark; g++)
        if (cmark[g]) cmark[g] = ++ncg;
    c->cc.plan_words = 8u * (size_t)A + 2u * (size_t)S + (size_t)A + A + (T - A) + chunks + (size_t)CC_CONST_WORDS * (T - A) +
                       (rows ? 129u * (size_t)blocks : 0) + (size_t)CC_PLACE_WORDS * rblocks + (size_t)CC_CGROUP_WORDS * ncg +
                       groups;
    c->cc.plan = sk_alloc(a, c->cc.plan_words * sizeof(uint32_t));
    if (!c->cc.plan) {
        c->cc.plan_words = 0;
        if (cmark) sk_free(a, cmark, (size_t)groups * sizeof(uint32_t));
        sk_clip_destroy(c);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    float *ranges = (float *)(void *)c->cc.plan;
    uint32_t *segtab = (uint32_t *)(void *)(ranges + 8u * (size_t)A);
    c->cc.ranges = ranges;
    c->cc.segtab = segtab;
    uint32_t *slot = segtab + 2u * (size_t)S, *rj = slot + A, *cons = rj + A, *cnr = cons + (T - A);
    c->cc.slots = slot;
    uint32_t R = 0;
    for (uint32_t i = 0; i < T; i++) R += c->tracks[i].pad_ && c->tracks[i].path == SK_PATH_ROTATION;
    c->cc.rots = R;
    uint32_t *tj = rj + R, nr = 0, nv = 0, ncon = 0, ai = 0;
    for (uint32_t i = 0; i < T; i++) {
        const sk_track *t = &c->tracks[i];
        if (t->pad_) continue;
        uint32_t *cv = cnr + chunks + CC_CONST_WORDS * ncon;
        size_t at = t->path == SK_PATH_ROTATION ? offsetof(sk_transform, r)
                    : t->path == SK_PATH_SCALE  ? offsetof(sk_transform, s)
                                                : offsetof(sk_transform, t);
        cv[0] = (uint32_t)((t->joint * sizeof(sk_transform) + at) / sizeof(float)) | (t->path == SK_PATH_ROTATION ? CC_CONST_ROT : 0u);
        for (uint32_t k = 0; k < 4; k++) cv[1 + k] = sk_cc_u32(c->cc.consts + 16u * t->value_offset + 4u * k);
        cons[ncon++] = i;
    }
    /* the animated tracks in data order: the rotations, then the translations and scales */
    for (uint32_t pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < T; i++) {
            const sk_track *t = &c->tracks[i];
            if (!t->pad_ || (t->path == SK_PATH_ROTATION) != (pass == 0)) continue;
            float *cr = ranges + 8u * ai; /* zero-filled: a translation's or scale's w range is 0, 0 */
            if (t->path == SK_PATH_ROTATION) {
                for (int k = 0; k < 4; k++) {
                    sk_cc_rot_range(cc_u16(rb + 2 * k), cc_u16(rb + 8 + 2 * k), &cr[k], &cr[4 + k]);
                    cr[4 + k] = sk_cc_ext255(cr[4 + k]);
                }
                rb += 16;
            } else {
                for (int k = 0; k < 3; k++) cr[k] = sk_cc_f32(rb + 4 * k), cr[4 + k] = sk_cc_ext255(sk_cc_f32(rb + 12 + 4 * k));
                rb += 24;
            }
            if (ai % CC_CHUNK == 0) nr = nv = 0;
            if (t->path == SK_PATH_ROTATION) slot[ai] = nr++, *rj++ = t->joint;
            else slot[ai] = CC_XV + nv++, *tj++ = 2u * t->joint + (t->path == SK_PATH_SCALE);
            cnr[ai / CC_CHUNK] = nr;
            ai++;
        }
    /* the groups' coverage, at the plan's end: per group and path the joints that have a track;
     * before it the constant groups' rows, and before them the rotation blocks' placement */
    {
        uint32_t *gc = c->cc.plan + c->cc.plan_words - groups;
        for (uint32_t i = 0; i < T; i++)
            if (c->tracks[i].path < 3) gc[c->tracks[i].joint / 8u] |= 1u << (8u * c->tracks[i].path + c->tracks[i].joint % 8u);
        c->cc.gcover = gc;
        uint32_t *cg = gc - (size_t)CC_CGROUP_WORDS * ncg, *pl = cg - (size_t)CC_PLACE_WORDS * rblocks;
        c->cc.cgroups = cg, c->cc.ncgroups = ncg, c->cc.rplace = pl;
        for (uint32_t g = 0; g < groups && cmark; g++)
            if (cmark[g]) cg[(size_t)CC_CGROUP_WORDS * (cmark[g] - 1u)] = g;
        for (uint32_t k = 0; k < T - A; k++) {
            const sk_track *t = &c->tracks[cons[k]];
            if (t->path >= 3) continue;
            uint32_t *e = cg + (size_t)CC_CGROUP_WORDS * (cmark[t->joint / 8u] - 1u), l = t->joint % 8u;
            static const uint8_t row[3] = {0, 3, 7}; /* sk_soa_pose's rows: t x,y,z, r x,y,z,w, s x,y,z */
            e[1] |= 1u << (8u * t->path + l);
            for (uint32_t q = 0; q < t->width; q++) memcpy(&e[2 + 8u * (row[t->path] + q) + l], c->cc.consts + 16u * t->value_offset + 4u * q, 4);
        }
        for (uint32_t k = 0, ri = 0; k < chunks; k++) {
            uint32_t nrk = cnr[k]; /* the chunk's rotations, as counted above */
            for (uint32_t bk = 0; bk < nrk; bk += 8, pl += CC_PLACE_WORDS) {
                uint32_t m = nrk - bk < 8 ? nrk - bk : 8, ne = 0;
                for (uint32_t l = 0; l < m && pl[0] != CC_PLACE_LANES; l++) {
                    uint32_t j = slot[A + ri + bk + l], at = (j / 8u) * SK_SOA_GROUP_FLOATS + 24u, e = 0;
                    while (e < ne && pl[2 * e] != at) e++;
                    if (e == 2 || (e < ne && pl[2 * e + 1] >> (24u + j % 8u) & 1u)) pl[0] = CC_PLACE_LANES;
                    else {
                        if (e == ne) pl[2 * e] = at, ne++;
                        pl[2 * e + 1] |= 1u << (24u + j % 8u) | l << (3u * (j % 8u));
                    }
                }
            }
            ri += nrk;
        }
    }
    if (cmark) sk_free(a, cmark, (size_t)groups * sizeof(uint32_t));
    if (A && (r = cc_segments(c, seg0, slot, segtab, err)) != SK_OK) {
        sk_clip_destroy(c);
        return r;
    }
    /* The rows decoder reads bit positions as 32-bit lanes: every segment's bits below 2^31. */
    for (uint32_t s = 0; rows && s < S; s++)
        if ((uint64_t)segtab[2u * s + 1] * c->cc.seg_len >= (1ull << 31) - 64u) rows = false;
    if (rows) {
        float *rr = (float *)(void *)(cnr + chunks + (size_t)CC_CONST_WORDS * (T - A));
        uint32_t *rm = (uint32_t *)(void *)(rr + 128u * (size_t)blocks);
        for (uint32_t ai2 = 0; ai2 < A; ai2++) {
            for (uint32_t k = 0; k < 8; k++) rr[128u * (ai2 / 16u) + 16u * k + ai2 % 16u] = ranges[8u * ai2 + k];
            if (ai2 < R) rm[ai2 / 16u] |= 1u << (ai2 % 16u);
        }
        c->cc.rrows = rr, c->cc.rmask = rm;
        /* whole poses through SoA groups where most joints have two animated tracks or more
         * (the transposes cost less there than the per-joint stores) */
        c->cc.pose_rows = 2u * A >= 3u * span;
    }
    /* a cursor's cache (cc_cache_hit): per chunk its rotations padded to 8 (8 floats each, placed rows)
     * and its other tracks (the decoders' slots, 8 floats each; the rows decoder's rows, 6 per track
     * padded to 8 tracks) */
    size_t cslots = 0, crows = 0;
    for (uint32_t k = 0; k < chunks; k++) {
        uint32_t n = A - k * CC_CHUNK < CC_CHUNK ? A - k * CC_CHUNK : CC_CHUNK, r8 = (cnr[k] + 7u) & ~7u, v8 = (n - cnr[k] + 7u) & ~7u;
        cslots += 8u * (r8 + (n - cnr[k]));
        crows += 8u * r8 + 6u * v8;
    }
    c->cc.cache_words = CC_CACHE_HEADER + (uint32_t)(cslots > crows ? cslots : crows);
    c->cc.rest_avx2 = sk_cclip_simd_available();
    *out = c;
    return SK_OK;
}

void sk_cclip_release(sk_clip *c) {
    if (c->cc.plan) sk_free(&c->alloc, c->cc.plan, c->cc.plan_words * sizeof(uint32_t));
    c->cc.plan = NULL;
    if (c->blob_owned) sk_free(&c->alloc, (void *)(uintptr_t)c->blob, c->blob_size);
    c->blob = NULL;
}

bool sk_clip_is_compressed(const sk_clip *c) { return c && c->kind == SK_CLIP_COMPRESSED; }

bool sk_clip_compressed_data(const sk_clip *c, const void **data, size_t *size) {
    if (!c || c->kind != SK_CLIP_COMPRESSED) return false;
    if (data) *data = c->blob;
    if (size) *size = c->blob_size;
    return true;
}

/* Where frame k's samples start: its segment's bit rates, ranges and bit position. */
typedef struct cc_cursor {
    const uint8_t *seg, *rates, *ranges, *bits;
    uint64_t pos;
    uint32_t fbits; /* bits per frame of the segment */
} cc_cursor;

static inline void cc_at(const sk_clip *c, uint32_t k, cc_cursor *s) {
    uint32_t A = c->cc.anim;
    if (!A) { /* only constant tracks: no segments to read */
        s->seg = s->rates = s->ranges = s->bits = c->blob;
        s->pos = 0, s->fbits = 0;
        return;
    }
    uint32_t si = c->cc.seg_shift < 32 ? k >> c->cc.seg_shift : k / c->cc.seg_len; /* no division in the usual case */
    uint32_t i = k - si * c->cc.seg_len;
    const uint32_t *st = c->cc.segtab + 2u * si;
    const uint8_t *seg = c->blob + st[0];
    s->seg = seg;
    s->rates = seg;
    s->ranges = seg + A;
    s->bits = seg + 7u * A;
    s->pos = (uint64_t)i * st[1];
    s->fbits = st[1];
}

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

#if defined(SK_CC_AVX2)
/* Tables of the AVX2 decoder (in-lane permutes and blends), by the dropped
 * component d0 of frame 0 (lanes 0-3) and d1 of frame 1 (lanes 4-7): the
 * clip range's component for stored component k is k + (k >= d); output
 * component j takes stored lane j - (j > d); lane d (-1) is the dropped one.
 * By bit-rate level: CC_LV below. */
static const int32_t CC_STORED[4][4][8] =
    {{{1, 2, 3, 3, 1, 2, 3, 3}, {1, 2, 3, 3, 0, 2, 3, 3}, {1, 2, 3, 3, 0, 1, 3, 3}, {1, 2, 3, 3, 0, 1, 2, 3}},
     {{0, 2, 3, 3, 1, 2, 3, 3}, {0, 2, 3, 3, 0, 2, 3, 3}, {0, 2, 3, 3, 0, 1, 3, 3}, {0, 2, 3, 3, 0, 1, 2, 3}},
     {{0, 1, 3, 3, 1, 2, 3, 3}, {0, 1, 3, 3, 0, 2, 3, 3}, {0, 1, 3, 3, 0, 1, 3, 3}, {0, 1, 3, 3, 0, 1, 2, 3}},
     {{0, 1, 2, 3, 1, 2, 3, 3}, {0, 1, 2, 3, 0, 2, 3, 3}, {0, 1, 2, 3, 0, 1, 3, 3}, {0, 1, 2, 3, 0, 1, 2, 3}}};
static const int32_t CC_PLACE[4][4][8] =
    {{{0, 0, 1, 2, 0, 0, 1, 2}, {0, 0, 1, 2, 0, 0, 1, 2}, {0, 0, 1, 2, 0, 1, 0, 2}, {0, 0, 1, 2, 0, 1, 2, 0}},
     {{0, 0, 1, 2, 0, 0, 1, 2}, {0, 0, 1, 2, 0, 0, 1, 2}, {0, 0, 1, 2, 0, 1, 0, 2}, {0, 0, 1, 2, 0, 1, 2, 0}},
     {{0, 1, 0, 2, 0, 0, 1, 2}, {0, 1, 0, 2, 0, 0, 1, 2}, {0, 1, 0, 2, 0, 1, 0, 2}, {0, 1, 0, 2, 0, 1, 2, 0}},
     {{0, 1, 2, 0, 0, 0, 1, 2}, {0, 1, 2, 0, 0, 0, 1, 2}, {0, 1, 2, 0, 0, 1, 0, 2}, {0, 1, 2, 0, 0, 1, 2, 0}}};
static const int32_t CC_LANE[4][4][8] =
    {{{-1, 0, 0, 0, -1, 0, 0, 0}, {-1, 0, 0, 0, 0, -1, 0, 0}, {-1, 0, 0, 0, 0, 0, -1, 0}, {-1, 0, 0, 0, 0, 0, 0, -1}},
     {{0, -1, 0, 0, -1, 0, 0, 0}, {0, -1, 0, 0, 0, -1, 0, 0}, {0, -1, 0, 0, 0, 0, -1, 0}, {0, -1, 0, 0, 0, 0, 0, -1}},
     {{0, 0, -1, 0, -1, 0, 0, 0}, {0, 0, -1, 0, 0, -1, 0, 0}, {0, 0, -1, 0, 0, 0, -1, 0}, {0, 0, -1, 0, 0, 0, 0, -1}},
     {{0, 0, 0, -1, -1, 0, 0, 0}, {0, 0, 0, -1, 0, -1, 0, 0}, {0, 0, 0, -1, 0, 0, -1, 0}, {0, 0, 0, -1, 0, 0, 0, -1}}};

/* One row per bit-rate level (both decoders) and per dropped component (the
 * same-segment loop: fewer table bases live in it): per level the
 * three components' shifts, the value mask, SK_CC_INV, and 3b; per dropped component d the clip range's
 * components in stored order, each output component's stored lane and the
 * dropped lane (as CC_STORED, CC_PLACE and CC_LANE with d0 = d1 = d). */
typedef struct cc_level {
    uint64_t shift[4], mask[4];
    float inv[4];
    uint32_t b3, pad[11];
} cc_level;
static const cc_level CC_LV[SK_CC_LEVELS] __attribute__((aligned(32))) = {
    {{0, 0, 0, 0}, {0x0u, 0x0u, 0x0u, 0x0u}, {0.0f, 0.0f, 0.0f, 0.0f}, 0u, {0}},
    {{0, 3, 6, 0}, {0x7u, 0x7u, 0x7u, 0x7u}, {1.0f / 7, 1.0f / 7, 1.0f / 7, 1.0f / 7}, 9u, {0}},
    {{0, 4, 8, 0}, {0xfu, 0xfu, 0xfu, 0xfu}, {1.0f / 15, 1.0f / 15, 1.0f / 15, 1.0f / 15}, 12u, {0}},
    {{0, 5, 10, 0}, {0x1fu, 0x1fu, 0x1fu, 0x1fu}, {1.0f / 31, 1.0f / 31, 1.0f / 31, 1.0f / 31}, 15u, {0}},
    {{0, 6, 12, 0}, {0x3fu, 0x3fu, 0x3fu, 0x3fu}, {1.0f / 63, 1.0f / 63, 1.0f / 63, 1.0f / 63}, 18u, {0}},
    {{0, 7, 14, 0}, {0x7fu, 0x7fu, 0x7fu, 0x7fu}, {1.0f / 127, 1.0f / 127, 1.0f / 127, 1.0f / 127}, 21u, {0}},
    {{0, 8, 16, 0}, {0xffu, 0xffu, 0xffu, 0xffu}, {1.0f / 255, 1.0f / 255, 1.0f / 255, 1.0f / 255}, 24u, {0}},
    {{0, 9, 18, 0}, {0x1ffu, 0x1ffu, 0x1ffu, 0x1ffu}, {1.0f / 511, 1.0f / 511, 1.0f / 511, 1.0f / 511}, 27u, {0}},
    {{0, 10, 20, 0}, {0x3ffu, 0x3ffu, 0x3ffu, 0x3ffu}, {1.0f / 1023, 1.0f / 1023, 1.0f / 1023, 1.0f / 1023}, 30u, {0}},
    {{0, 11, 22, 0}, {0x7ffu, 0x7ffu, 0x7ffu, 0x7ffu}, {1.0f / 2047, 1.0f / 2047, 1.0f / 2047, 1.0f / 2047}, 33u, {0}},
    {{0, 12, 24, 0}, {0xfffu, 0xfffu, 0xfffu, 0xfffu}, {1.0f / 4095, 1.0f / 4095, 1.0f / 4095, 1.0f / 4095}, 36u, {0}},
    {{0, 13, 26, 0}, {0x1fffu, 0x1fffu, 0x1fffu, 0x1fffu}, {1.0f / 8191, 1.0f / 8191, 1.0f / 8191, 1.0f / 8191}, 39u, {0}},
    {{0, 14, 28, 0}, {0x3fffu, 0x3fffu, 0x3fffu, 0x3fffu}, {1.0f / 16383, 1.0f / 16383, 1.0f / 16383, 1.0f / 16383}, 42u, {0}},
    {{0, 16, 32, 0}, {0xffffu, 0xffffu, 0xffffu, 0xffffu}, {1.0f / 65535, 1.0f / 65535, 1.0f / 65535, 1.0f / 65535}, 48u, {0}},
    {{0, 19, 38, 0}, {0x7ffffu, 0x7ffffu, 0x7ffffu, 0x7ffffu}, {1.0f / 524287, 1.0f / 524287, 1.0f / 524287, 1.0f / 524287}, 57u, {0}},
    {{0, 23, 46, 0}, {0x7fffffu, 0x7fffffu, 0x7fffffu, 0x7fffffu}, {1.0f / 8388607, 1.0f / 8388607, 1.0f / 8388607, 1.0f / 8388607}, 69u, {0}}};
typedef struct cc_drop {
    int32_t stored[4], pad[4], place[8], lane[8];
} cc_drop;
static const cc_drop CC_DROP[4] __attribute__((aligned(32))) = {
    {{1, 2, 3, 3}, {0}, {0, 0, 1, 2, 0, 0, 1, 2}, {-1, 0, 0, 0, -1, 0, 0, 0}},
    {{0, 2, 3, 3}, {0}, {0, 0, 1, 2, 0, 0, 1, 2}, {0, -1, 0, 0, 0, -1, 0, 0}},
    {{0, 1, 3, 3}, {0}, {0, 1, 0, 2, 0, 1, 0, 2}, {0, 0, -1, 0, 0, 0, -1, 0}},
    {{0, 1, 2, 3}, {0}, {0, 1, 2, 0, 0, 1, 2, 0}, {0, 0, 0, -1, 0, 0, 0, -1}}};

/* The three stored components' quantised values of one frame (bit rate
 * level l of b bits, at bit position p of bits) in the low 32 bits of the
 * 64-bit lanes 0-2, still to be masked: one 64-bit read when 3b + 7 <= 64,
 * else one per component. */
__attribute__((target("avx2,fma"))) static inline __m256i cc_fields_avx2(const uint8_t *bits, uint64_t p, uint32_t l, uint32_t b) {
    if (b <= 19)
        return _mm256_srlv_epi64(_mm256_set1_epi64x((long long)sk_cc_u64(bits + (p >> 3))),
                                 _mm256_add_epi64(_mm256_load_si256((const __m256i *)(const void *)CC_LV[l].shift),
                                                  _mm256_set1_epi64x((long long)(p & 7u))));
    uint64_t e = p + b, f = p + 2u * b;
    return _mm256_srlv_epi64(_mm256_setr_epi64x((long long)sk_cc_u64(bits + (p >> 3)), (long long)sk_cc_u64(bits + (e >> 3)),
                                                (long long)sk_cc_u64(bits + (f >> 3)), 0),
                             _mm256_setr_epi64x((long long)(p & 7u), (long long)(e & 7u), (long long)(f & 7u), 0));
}

/* cc_fields_avx2 for both frames at bit rates above 19 bits (three reads
 * each), out of the decoder's loop. */
__attribute__((target("avx2,fma"), noinline, cold)) static void cc_fields2_wide(const uint8_t *bits, uint64_t p0, uint64_t p1,
                                                                         uint32_t l, __m256i *q0, __m256i *q1) {
    *q0 = cc_fields_avx2(bits, p0, l, SK_CC_BITS[l]);
    *q1 = cc_fields_avx2(bits, p1, l, SK_CC_BITS[l]);
}

/* Animated tracks [0, n) of two frames in one segment (15 of 16 pairs),
 * from the clip ranges cranges, the segment's bit rates and ranges (rates,
 * sranges) and its frames' bits at p0 and p1 (advanced past them): per
 * track one register, frame 0 in lanes 0-3 and frame 1 in lanes 4-7, each
 * in output order (x, y, z, w) with +0 in place of the dropped component,
 * stored in out[slot[i]] (the plan's slot: rotations from 0, translations
 * and scales from CC_XV), its dropped component in dd[slot[i]]. The coefficients are
 * computed once for both frames. Same float operations in the same order
 * as cc_read2 (sk_cc_coef and sk_cc_value: fused where they call fmaf, nowhere else). */
__attribute__((target("avx2,fma"), noinline)) static void cc_decode_placed_avx2(const uint8_t *cranges, const uint8_t *rates,
                                                                         const uint8_t *sranges, const uint8_t *bits,
                                                                         uint64_t *pp0, uint64_t *pp1, uint32_t n, const uint32_t *slot,
                                                                         __m256 *out, uint8_t *dd) {
    uint64_t p = *pp0, f = *pp1 - *pp0; /* frame 1 starts f bits after frame 0 (0: the same frame) */
    const __m256i lo32 = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    for (uint32_t i = 0; i < n; i++, cranges += 32, sranges += 6) {
        uint32_t v = rates[i], sl = slot[i];
        const cc_level *L = &CC_LV[v & 15u];
        const cc_drop *D = &CC_DROP[v >> 4];
        dd[sl] = (uint8_t)(v >> 4);
        __m128i perm = _mm_load_si128((const __m128i *)(const void *)D->stored);
        __m128 cmin = _mm_permutevar_ps(_mm_loadu_ps((const float *)(const void *)cranges), perm);
        __m128 cext = _mm_permutevar_ps(_mm_loadu_ps((const float *)(const void *)(cranges + 16)), perm);
        __m128i sb = _mm_loadl_epi64((const __m128i *)(const void *)sranges);
        __m128 s0f = _mm_cvtepi32_ps(_mm_cvtepu8_epi32(sb));
        __m128 sef = _mm_cvtepi32_ps(_mm_cvtepu8_epi32(_mm_srli_si128(sb, 3)));
        __m128 off = _mm_fmadd_ps(cext, s0f, cmin); /* sk_cc_coef */
        __m128 sc = _mm_mul_ps(_mm_mul_ps(cext, sef), _mm_load_ps(L->inv));
        uint64_t p1 = p + f;
        __m256i q0, q1;
        if (L->b3 <= 57) { /* 3b + 7 <= 64: one 64-bit read per frame holds all three */
            __m256i sh = _mm256_load_si256((const __m256i *)(const void *)L->shift);
            q0 = _mm256_srlv_epi64(_mm256_set1_epi64x((long long)sk_cc_u64(bits + (p >> 3))),
                                   _mm256_add_epi64(sh, _mm256_set1_epi64x((long long)(p & 7u))));
            q1 = _mm256_srlv_epi64(_mm256_set1_epi64x((long long)sk_cc_u64(bits + (p1 >> 3))),
                                   _mm256_add_epi64(sh, _mm256_set1_epi64x((long long)(p1 & 7u))));
        } else
            cc_fields2_wide(bits, p, p1, v & 15u, &q0, &q1);
        p += L->b3;
        __m256i m = _mm256_load_si256((const __m256i *)(const void *)L->mask);
        __m256i q = _mm256_blend_epi32(_mm256_permutevar8x32_epi32(_mm256_and_si256(q0, m), lo32),
                                       _mm256_permutevar8x32_epi32(_mm256_and_si256(q1, m), lo32), 0xF0);
        __m256 x = _mm256_fmadd_ps(_mm256_set_m128(sc, sc), _mm256_cvtepi32_ps(q), _mm256_set_m128(off, off)); /* sk_cc_value */
        out[sl] = _mm256_andnot_ps(_mm256_castsi256_ps(_mm256_load_si256((const __m256i *)(const void *)D->lane)),
                                   _mm256_permutevar_ps(x, _mm256_load_si256((const __m256i *)(const void *)D->place)));
    }
    *pp0 = p, *pp1 = p + f;
}

/* cc_decode_placed_avx2 for two frames in two segments (the last frame of
 * one and the first of the next): each half of the register with its own
 * segment's bit rate, dropped component (dd0 for frame 0, dd1 for frame 1)
 * and coefficients. Tracks [a0, a0 + n); the cursors' bit
 * positions advance. */
__attribute__((target("avx2,fma"))) static void cc_decode_placed2_avx2(const sk_clip *c, cc_cursor *s0, cc_cursor *s1,
                                                                   uint32_t a0, uint32_t n, const uint32_t *slot, __m256 *out,
                                                                   uint8_t *dd0, uint8_t *dd1) {
    const __m256i lo32 = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    /* bytes 0-2 of each range (smin) then 3-5 (sext), of frame 0 then 1 */
    const __m128i gather = _mm_setr_epi8(0, 1, 2, -1, 8, 9, 10, -1, 3, 4, 5, -1, 11, 12, 13, -1);
    const uint8_t *bits0 = s0->bits, *bits1 = s1->bits;
    uint64_t p0 = s0->pos, p1 = s1->pos;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t a = a0 + i, v0 = s0->rates[a], v1 = s1->rates[a];
        uint32_t l0 = v0 & 15u, l1 = v1 & 15u, b0 = SK_CC_BITS[l0], b1 = SK_CC_BITS[l1], d0 = v0 >> 4, d1 = v1 >> 4;
        uint32_t sl = slot[i];
        __m256 *xo = &out[sl];
        dd0[sl] = (uint8_t)d0, dd1[sl] = (uint8_t)d1;
        /* the clip range in stored order */
        const float *cr = c->cc.ranges + 8u * a;
        __m256i perm = _mm256_loadu_si256((const __m256i *)(const void *)CC_STORED[d0][d1]);
        __m256 cmin = _mm256_permutevar_ps(_mm256_broadcast_ps((const __m128 *)(const void *)cr), perm);
        __m256 cext = _mm256_permutevar_ps(_mm256_broadcast_ps((const __m128 *)(const void *)(cr + 4)), perm);
        /* the segment ranges (8 bytes read each: the frames follow them) */
        __m128i sb = _mm_shuffle_epi8(_mm_set_epi64x((long long)sk_cc_u64(s1->ranges + 6u * a), (long long)sk_cc_u64(s0->ranges + 6u * a)),
                                      gather);
        __m256 s0f = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(sb));
        __m256 sef = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(sb, 8)));
        __m256 off = _mm256_fmadd_ps(cext, s0f, cmin); /* sk_cc_coef */
        __m256 sc = _mm256_mul_ps(_mm256_mul_ps(cext, sef), _mm256_set_m128(_mm_set1_ps(SK_CC_INV[l1]), _mm_set1_ps(SK_CC_INV[l0])));
        /* the quantised values: one 64-bit read per frame holds all three when 3b + 7 <= 64 */
        __m256i q0 = cc_fields_avx2(bits0, p0, l0, b0), q1 = cc_fields_avx2(bits1, p1, l1, b1);
        p0 += 3u * b0, p1 += 3u * b1;
        q0 = _mm256_permutevar8x32_epi32(_mm256_and_si256(q0, _mm256_load_si256((const __m256i *)(const void *)CC_LV[l0].mask)), lo32);
        q1 = _mm256_permutevar8x32_epi32(_mm256_and_si256(q1, _mm256_load_si256((const __m256i *)(const void *)CC_LV[l1].mask)), lo32);
        __m256 x = _mm256_fmadd_ps(sc, _mm256_cvtepi32_ps(_mm256_blend_epi32(q0, q1, 0xF0)), off); /* sk_cc_value */
        *xo = _mm256_andnot_ps(_mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)(const void *)CC_LANE[d0][d1])),
                                  _mm256_permutevar_ps(x, _mm256_loadu_si256((const __m256i *)(const void *)CC_PLACE[d0][d1])));
    }
    s0->pos = p0, s1->pos = p1;
}

/* The same-segment decoder on AVX-512 CPUs (chosen at run time): two tracks
 * per 512-bit register, lanes 0-7 track i (frame 0, frame 1), 8-15 track
 * i + 1, each lane with the same float operations as cc_decode_placed_avx2's
 * (so the same bits, with about half the instructions per track). The values
 * are computed straight in output order: the clip range as it is, the
 * segment range's bytes put in place by a byte shuffle, the quantised values
 * by the permute that joins the two tracks' fields; the dropped lanes are
 * zeroed by the mask of the last add (an exact +0, as the andnot gives).
 * CC_PAIR by the two tracks' dropped components (4 d_i + d_{i+1}): that
 * permute's dword indices (qword lanes 0-2 of frame 0, 4-6 of frame 1; 16 +
 * for track i + 1), the byte shuffles of the segment minimum and extent
 * (bytes 0-5 track i, 6-11 track i + 1), the lanes kept. CC_SH8: per level
 * the three components' shifts for both frames. */
typedef struct cc_pair {
    int32_t idx[16];
    int8_t smin[16], sext[16];
    uint16_t keep, pad[15];
} cc_pair;
static const cc_pair CC_PAIR[16] __attribute__((aligned(64))) = {
    {{6, 0, 2, 4, 14, 8, 10, 12, 22, 16, 18, 20, 30, 24, 26, 28},
     {-128, 0, 1, 2, -128, 0, 1, 2, -128, 6, 7, 8, -128, 6, 7, 8},
     {-128, 3, 4, 5, -128, 3, 4, 5, -128, 9, 10, 11, -128, 9, 10, 11},
     0xeeeeu, {0}},
    {{6, 0, 2, 4, 14, 8, 10, 12, 16, 22, 18, 20, 24, 30, 26, 28},
     {-128, 0, 1, 2, -128, 0, 1, 2, 6, -128, 7, 8, 6, -128, 7, 8},
     {-128, 3, 4, 5, -128, 3, 4, 5, 9, -128, 10, 11, 9, -128, 10, 11},
     0xddeeu, {0}},
    {{6, 0, 2, 4, 14, 8, 10, 12, 16, 18, 22, 20, 24, 26, 30, 28},
     {-128, 0, 1, 2, -128, 0, 1, 2, 6, 7, -128, 8, 6, 7, -128, 8},
     {-128, 3, 4, 5, -128, 3, 4, 5, 9, 10, -128, 11, 9, 10, -128, 11},
     0xbbeeu, {0}},
    {{6, 0, 2, 4, 14, 8, 10, 12, 16, 18, 20, 22, 24, 26, 28, 30},
     {-128, 0, 1, 2, -128, 0, 1, 2, 6, 7, 8, -128, 6, 7, 8, -128},
     {-128, 3, 4, 5, -128, 3, 4, 5, 9, 10, 11, -128, 9, 10, 11, -128},
     0x77eeu, {0}},
    {{0, 6, 2, 4, 8, 14, 10, 12, 22, 16, 18, 20, 30, 24, 26, 28},
     {0, -128, 1, 2, 0, -128, 1, 2, -128, 6, 7, 8, -128, 6, 7, 8},
     {3, -128, 4, 5, 3, -128, 4, 5, -128, 9, 10, 11, -128, 9, 10, 11},
     0xeeddu, {0}},
    {{0, 6, 2, 4, 8, 14, 10, 12, 16, 22, 18, 20, 24, 30, 26, 28},
     {0, -128, 1, 2, 0, -128, 1, 2, 6, -128, 7, 8, 6, -128, 7, 8},
     {3, -128, 4, 5, 3, -128, 4, 5, 9, -128, 10, 11, 9, -128, 10, 11},
     0xddddu, {0}},
    {{0, 6, 2, 4, 8, 14, 10, 12, 16, 18, 22, 20, 24, 26, 30, 28},
     {0, -128, 1, 2, 0, -128, 1, 2, 6, 7, -128, 8, 6, 7, -128, 8},
     {3, -128, 4, 5, 3, -128, 4, 5, 9, 10, -128, 11, 9, 10, -128, 11},
     0xbbddu, {0}},
    {{0, 6, 2, 4, 8, 14, 10, 12, 16, 18, 20, 22, 24, 26, 28, 30},
     {0, -128, 1, 2, 0, -128, 1, 2, 6, 7, 8, -128, 6, 7, 8, -128},
     {3, -128, 4, 5, 3, -128, 4, 5, 9, 10, 11, -128, 9, 10, 11, -128},
     0x77ddu, {0}},
    {{0, 2, 6, 4, 8, 10, 14, 12, 22, 16, 18, 20, 30, 24, 26, 28},
     {0, 1, -128, 2, 0, 1, -128, 2, -128, 6, 7, 8, -128, 6, 7, 8},
     {3, 4, -128, 5, 3, 4, -128, 5, -128, 9, 10, 11, -128, 9, 10, 11},
     0xeebbu, {0}},
    {{0, 2, 6, 4, 8, 10, 14, 12, 16, 22, 18, 20, 24, 30, 26, 28},
     {0, 1, -128, 2, 0, 1, -128, 2, 6, -128, 7, 8, 6, -128, 7, 8},
     {3, 4, -128, 5, 3, 4, -128, 5, 9, -128, 10, 11, 9, -128, 10, 11},
     0xddbbu, {0}},
    {{0, 2, 6, 4, 8, 10, 14, 12, 16, 18, 22, 20, 24, 26, 30, 28},
     {0, 1, -128, 2, 0, 1, -128, 2, 6, 7, -128, 8, 6, 7, -128, 8},
     {3, 4, -128, 5, 3, 4, -128, 5, 9, 10, -128, 11, 9, 10, -128, 11},
     0xbbbbu, {0}},
    {{0, 2, 6, 4, 8, 10, 14, 12, 16, 18, 20, 22, 24, 26, 28, 30},
     {0, 1, -128, 2, 0, 1, -128, 2, 6, 7, 8, -128, 6, 7, 8, -128},
     {3, 4, -128, 5, 3, 4, -128, 5, 9, 10, 11, -128, 9, 10, 11, -128},
     0x77bbu, {0}},
    {{0, 2, 4, 6, 8, 10, 12, 14, 22, 16, 18, 20, 30, 24, 26, 28},
     {0, 1, 2, -128, 0, 1, 2, -128, -128, 6, 7, 8, -128, 6, 7, 8},
     {3, 4, 5, -128, 3, 4, 5, -128, -128, 9, 10, 11, -128, 9, 10, 11},
     0xee77u, {0}},
    {{0, 2, 4, 6, 8, 10, 12, 14, 16, 22, 18, 20, 24, 30, 26, 28},
     {0, 1, 2, -128, 0, 1, 2, -128, 6, -128, 7, 8, 6, -128, 7, 8},
     {3, 4, 5, -128, 3, 4, 5, -128, 9, -128, 10, 11, 9, -128, 10, 11},
     0xdd77u, {0}},
    {{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 22, 20, 24, 26, 30, 28},
     {0, 1, 2, -128, 0, 1, 2, -128, 6, 7, -128, 8, 6, 7, -128, 8},
     {3, 4, 5, -128, 3, 4, 5, -128, 9, 10, -128, 11, 9, 10, -128, 11},
     0xbb77u, {0}},
    {{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30},
     {0, 1, 2, -128, 0, 1, 2, -128, 6, 7, 8, -128, 6, 7, 8, -128},
     {3, 4, 5, -128, 3, 4, 5, -128, 9, 10, 11, -128, 9, 10, 11, -128},
     0x7777u, {0}}
};
static const uint64_t CC_SH8[SK_CC_LEVELS][8] __attribute__((aligned(64))) = {
    {0, 0, 0, 0, 0, 0, 0, 0},
    {0, 3, 6, 0, 0, 3, 6, 0},
    {0, 4, 8, 0, 0, 4, 8, 0},
    {0, 5, 10, 0, 0, 5, 10, 0},
    {0, 6, 12, 0, 0, 6, 12, 0},
    {0, 7, 14, 0, 0, 7, 14, 0},
    {0, 8, 16, 0, 0, 8, 16, 0},
    {0, 9, 18, 0, 0, 9, 18, 0},
    {0, 10, 20, 0, 0, 10, 20, 0},
    {0, 11, 22, 0, 0, 11, 22, 0},
    {0, 12, 24, 0, 0, 12, 24, 0},
    {0, 13, 26, 0, 0, 13, 26, 0},
    {0, 14, 28, 0, 0, 14, 28, 0},
    {0, 16, 32, 0, 0, 16, 32, 0},
    {0, 19, 38, 0, 0, 19, 38, 0},
    {0, 23, 46, 0, 0, 23, 46, 0}};

/* The fields of one track at bit positions a (frame 0) and b (frame 1), level
 * l (3b + 7 <= 64): qword lanes 0-2 frame 0's, 4-6 frame 1's, masked. */
__attribute__((target("avx2,fma,avx512f,avx512dq"))) static inline __m512i cc_fields512(const uint8_t *bits, uint64_t a, uint64_t b,
                                                                                   uint32_t l) {
    uint64_t u0 = sk_cc_u64(bits + (a >> 3)) >> (a & 7u), u1 = sk_cc_u64(bits + (b >> 3)) >> (b & 7u);
    __m512i w = _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 0, 0, 0, 1, 1, 1, 1),
                                         _mm512_castsi128_si512(_mm_set_epi64x((long long)u1, (long long)u0)));
    w = _mm512_srlv_epi64(w, _mm512_load_si512((const void *)CC_SH8[l]));
    return _mm512_and_si512(w, _mm512_set1_epi64((long long)CC_LV[l].mask[0]));
}

/* cc_decode_placed_avx2 (same arguments, same results) two tracks at a time;
 * a pair with a rate above 19 bits, and an odd last track, go through it. */
__attribute__((target("avx2,fma,avx512f,avx512dq"), noinline)) static void cc_decode_placed512(const uint8_t *cranges, const uint8_t *rates,
                                                                                         const uint8_t *sranges, const uint8_t *bits,
                                                                                         uint64_t *pp0, uint64_t *pp1, uint32_t n,
                                                                                         const uint32_t *slot, __m256 *out, uint8_t *dd) {
    uint64_t p = *pp0, f = *pp1 - *pp0;
    uint32_t i = 0;
    for (; i + 2 <= n; i += 2) {
        uint32_t vi = rates[i], vj = rates[i + 1];
        const cc_level *Li = &CC_LV[vi & 15u], *Lj = &CC_LV[vj & 15u];
        uint32_t bi = Li->b3, bj = Lj->b3;
        if (bi > 57 || bj > 57) { /* three reads per frame: the AVX2 loop's wide path */
            uint64_t q0 = p, q1 = p + f;
            cc_decode_placed_avx2(cranges + 32u * i, rates + i, sranges + 6u * i, bits, &q0, &q1, 2, slot + i, out, dd);
            p = q0;
            continue;
        }
        uint32_t di = vi >> 4, dj = vj >> 4, si = slot[i], sj = slot[i + 1];
        const cc_pair *P = &CC_PAIR[4u * di + dj];
        dd[si] = (uint8_t)di, dd[sj] = (uint8_t)dj;
        __m512 cr = _mm512_loadu_ps((const void *)(cranges + 32u * i));
        __m512 cmin = _mm512_shuffle_f32x4(cr, cr, _MM_SHUFFLE(2, 2, 0, 0)), cext = _mm512_shuffle_f32x4(cr, cr, _MM_SHUFFLE(3, 3, 1, 1));
        /* 16 bytes read: 12 of the two ranges, then the next ones or the frames (at least 8 bytes follow) */
        __m128i sb = _mm_loadu_si128((const __m128i *)(const void *)(sranges + 6u * i));
        __m512 s0f = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_shuffle_epi8(sb, _mm_load_si128((const __m128i *)(const void *)P->smin))));
        __m512 sef = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_shuffle_epi8(sb, _mm_load_si128((const __m128i *)(const void *)P->sext))));
        __m512 iv = _mm512_mask_blend_ps(0xFF00, _mm512_set1_ps(Li->inv[0]), _mm512_set1_ps(Lj->inv[0]));
        __m512 off = _mm512_fmadd_ps(cext, s0f, cmin); /* sk_cc_coef */
        __m512 sc = _mm512_mul_ps(_mm512_mul_ps(cext, sef), iv);
        uint64_t pj = p + bi;
        __m512i qi = cc_fields512(bits, p, p + f, vi & 15u), qj = cc_fields512(bits, pj, pj + f, vj & 15u);
        p = pj + bj;
        __m512i q = _mm512_permutex2var_epi32(qi, _mm512_load_si512((const void *)P->idx), qj);
        __m512 x = _mm512_maskz_fmadd_ps(P->keep, sc, _mm512_cvtepi32_ps(q), off); /* sk_cc_value */
        out[si] = _mm512_castps512_ps256(x);
        out[sj] = _mm512_extractf32x8_ps(x, 1);
    }
    if (i < n) {
        uint64_t q0 = p, q1 = p + f;
        cc_decode_placed_avx2(cranges + 32u * i, rates + i, sranges + 6u * i, bits, &q0, &q1, 1, slot + i, out, dd);
        p = q0;
    }
    *pp0 = p, *pp1 = p + f;
}

/* cc_decode_placed2_avx2 (same arguments, same results) two tracks per
 * 512-bit register: lanes 0-7 track i, 8-15 track i + 1, each half as the
 * AVX2 function computes its register (the clip range permuted by
 * CC_STORED, the two segments' range bytes, each frame's own coefficients,
 * one field read per frame, the CC_PLACE permute and CC_LANE mask). A pair
 * with a rate above 19 bits, and an odd last track, go through
 * cc_decode_placed2_avx2. */
__attribute__((target("avx2,fma,avx512f,avx512dq"), noinline)) static void cc_decode_placed2_512(const sk_clip *c, cc_cursor *s0, cc_cursor *s1,
                                                                                           uint32_t a0, uint32_t n, const uint32_t *slot,
                                                                                           __m256 *out, uint8_t *dd0, uint8_t *dd1) {
    /* per track: bytes 0-2 of each range (smin) of frame 0 then frame 1, then 3-5 (sext) */
    const __m128i gather = _mm_setr_epi8(0, 1, 2, -1, 8, 9, 10, -1, 3, 4, 5, -1, 11, 12, 13, -1);
    const __m512i quarter = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
    const __m512i pick = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i spread = _mm512_setr_epi64(0, 0, 0, 0, 1, 1, 1, 1);
    const uint8_t *bits0 = s0->bits, *bits1 = s1->bits;
    uint64_t p0 = s0->pos, p1 = s1->pos;
    uint32_t i = 0;
    for (; i + 2 <= n; i += 2) {
        uint32_t a = a0 + i;
        uint32_t v0i = s0->rates[a], v1i = s1->rates[a], v0j = s0->rates[a + 1], v1j = s1->rates[a + 1];
        const cc_level *L0i = &CC_LV[v0i & 15u], *L1i = &CC_LV[v1i & 15u], *L0j = &CC_LV[v0j & 15u], *L1j = &CC_LV[v1j & 15u];
        if (L0i->b3 > 57 || L1i->b3 > 57 || L0j->b3 > 57 || L1j->b3 > 57) { /* three reads per frame */
            s0->pos = p0, s1->pos = p1;
            cc_decode_placed2_avx2(c, s0, s1, a, 2, slot + i, out, dd0, dd1);
            p0 = s0->pos, p1 = s1->pos;
            continue;
        }
        uint32_t d0i = v0i >> 4, d1i = v1i >> 4, d0j = v0j >> 4, d1j = v1j >> 4, si = slot[i], sj = slot[i + 1];
        dd0[si] = (uint8_t)d0i, dd1[si] = (uint8_t)d1i, dd0[sj] = (uint8_t)d0j, dd1[sj] = (uint8_t)d1j;
        /* the clip ranges of both tracks (64 bytes: min i, ext i, min j, ext j) in stored order per frame */
        __m512 cr = _mm512_loadu_ps(c->cc.ranges + 8u * a);
        __m512i perm = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(const void *)CC_STORED[d0i][d1i])),
                                          _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(const void *)CC_STORED[d0j][d1j]),
                                                           _mm256_set1_epi32(8)),
                                          1);
        __m512 cmin = _mm512_permutexvar_ps(perm, cr), cext = _mm512_permutexvar_ps(_mm512_add_epi32(perm, _mm512_set1_epi32(4)), cr);
        /* the segment ranges: 16 bytes read from each segment at track i (12 used: i's six, j's six) */
        __m128i A = _mm_loadu_si128((const __m128i *)(const void *)(s0->ranges + 6u * a));
        __m128i B = _mm_loadu_si128((const __m128i *)(const void *)(s1->ranges + 6u * a));
        __m128i Si = _mm_shuffle_epi8(_mm_unpacklo_epi64(A, B), gather);
        __m128i Sj = _mm_shuffle_epi8(_mm_unpacklo_epi64(_mm_srli_si128(A, 6), _mm_srli_si128(B, 6)), gather);
        __m512 s0f = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_unpacklo_epi64(Si, Sj)));
        __m512 sef = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_unpackhi_epi64(Si, Sj)));
        /* sk_cc_coef, per frame of each track */
        __m512 iv = _mm512_permutexvar_ps(quarter, _mm512_castps128_ps512(_mm_setr_ps(L0i->inv[0], L1i->inv[0], L0j->inv[0], L1j->inv[0])));
        __m512 off = _mm512_fmadd_ps(cext, s0f, cmin);
        __m512 sc = _mm512_mul_ps(_mm512_mul_ps(cext, sef), iv);
        /* the fields: per track one 64-bit read per frame, each frame's shifts and mask */
        uint64_t q0j = p0 + L0i->b3, q1j = p1 + L1i->b3;
        __m512i wi = _mm512_permutexvar_epi64(spread, _mm512_castsi128_si512(_mm_set_epi64x(
                                                          (long long)(sk_cc_u64(bits1 + (p1 >> 3)) >> (p1 & 7u)),
                                                          (long long)(sk_cc_u64(bits0 + (p0 >> 3)) >> (p0 & 7u)))));
        __m512i wj = _mm512_permutexvar_epi64(spread, _mm512_castsi128_si512(_mm_set_epi64x(
                                                          (long long)(sk_cc_u64(bits1 + (q1j >> 3)) >> (q1j & 7u)),
                                                          (long long)(sk_cc_u64(bits0 + (q0j >> 3)) >> (q0j & 7u)))));
        __m512i shi = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_load_si256((const __m256i *)(const void *)L0i->shift)),
                                         _mm256_load_si256((const __m256i *)(const void *)L1i->shift), 1);
        __m512i shj = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_load_si256((const __m256i *)(const void *)L0j->shift)),
                                         _mm256_load_si256((const __m256i *)(const void *)L1j->shift), 1);
        __m512i mki = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_load_si256((const __m256i *)(const void *)L0i->mask)),
                                         _mm256_load_si256((const __m256i *)(const void *)L1i->mask), 1);
        __m512i mkj = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_load_si256((const __m256i *)(const void *)L0j->mask)),
                                         _mm256_load_si256((const __m256i *)(const void *)L1j->mask), 1);
        wi = _mm512_and_si512(_mm512_srlv_epi64(wi, shi), mki);
        wj = _mm512_and_si512(_mm512_srlv_epi64(wj, shj), mkj);
        p0 = q0j + L0j->b3, p1 = q1j + L1j->b3;
        __m512i q = _mm512_permutex2var_epi32(wi, pick, wj);
        __m512 x = _mm512_fmadd_ps(sc, _mm512_cvtepi32_ps(q), off); /* sk_cc_value */
        __m512i place = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(const void *)CC_PLACE[d0i][d1i])),
                                           _mm256_loadu_si256((const __m256i *)(const void *)CC_PLACE[d0j][d1j]), 1);
        __m512i lane = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(const void *)CC_LANE[d0i][d1i])),
                                          _mm256_loadu_si256((const __m256i *)(const void *)CC_LANE[d0j][d1j]), 1);
        x = _mm512_castsi512_ps(_mm512_andnot_si512(lane, _mm512_castps_si512(_mm512_permutevar_ps(x, place))));
        out[si] = _mm512_castps512_ps256(x);
        out[sj] = _mm512_extractf32x8_ps(x, 1);
    }
    s0->pos = p0, s1->pos = p1;
    if (i < n) cc_decode_placed2_avx2(c, s0, s1, a0 + i, 1, slot + i, out, dd0, dd1);
}

#endif

bool sk_cclip_simd_available(void) {
#if defined(SK_CC_AVX2)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
}

bool sk_cclip_avx512_available(void) {
#if defined(SK_CC_AVX2)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vl");
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
/* Rotation tracks decoded by cc_decode_placed_avx2 interpolated eight at a
 * time, in phases over all the groups of a chunk so that each phase's
 * square roots and divisions (long latencies) overlap across the groups:
 * (1) transposed to rows (component c of frame 0 in a[c], of frame 1 in
 * b[c], lane j = track j), the dropped components' radicands as sk_cc_w
 * computes them ((1 - s0^2) - s1^2) - s2^2, the +0 in the dropped place
 * adding an exact "- 0") and their roots; (2) the roots put in place,
 * sk_cc_qlerp's corrected nlerp (sk_cc_tprime per lane) up to the squared
 * length and one over its root; (3) lanes more than 120 degrees apart (rare)
 * redone with the far weights (cc_rot8_far); the normalising multiply as the
 * rows are stored (cc_sample_body). Bit for bit the scalar decoder's results. Merging
 * the phases (1)-(2) and the multiply into fewer passes over the groups
 * measured 3 % faster at 24 fps; one pass per group (no phases) 5 % slower. */
typedef struct cc_rot8 {
    __m256 a[4], b[4], q[4], ra, rb, l2;
    int far; /* lanes more than 120 degrees apart */
} cc_rot8;

__attribute__((target("avx2,fma"))) static inline void cc_rot8_rows(const float *x, cc_rot8 *g) {
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 r[8];
    for (int k = 0; k < 8; k++) r[k] = _mm256_loadu_ps(x + 8 * k); /* the decoder's slots or a cursor's cache */
    skk_tr8_avx2(r);
    for (int c = 0; c < 4; c++) g->a[c] = r[c], g->b[c] = r[4 + c];
    g->ra = _mm256_fnmadd_ps(r[3], r[3], _mm256_fnmadd_ps(r[2], r[2], _mm256_fnmadd_ps(r[1], r[1], _mm256_fnmadd_ps(r[0], r[0], one))));
    g->rb = _mm256_fnmadd_ps(r[7], r[7], _mm256_fnmadd_ps(r[6], r[6], _mm256_fnmadd_ps(r[5], r[5], _mm256_fnmadd_ps(r[4], r[4], one))));
}

/* sk_cc_qlerp's corrected nlerp of a group up to its squared length; e: the
 * weights' coefficients (sk_cc_tweights at u) broadcast. Lanes more than 120
 * degrees apart are marked in far and redone by cc_rot8_far. */
__attribute__((target("avx2,fma"))) static inline void cc_rot8_place(cc_rot8 *g, const uint8_t *d0, const uint8_t *d1) {
    const __m256i k1 = _mm256_set1_epi32(1), k2 = _mm256_set1_epi32(2), k3 = _mm256_set1_epi32(3), k0 = _mm256_setzero_si256();
    __m256i da = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)d0));
    __m256i db = d1 == d0 ? da : _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)d1));
    const __m256i kc[4] = {k0, k1, k2, k3};
    for (int c = 0; c < 4; c++) {
        g->a[c] = _mm256_blendv_ps(g->a[c], g->ra, _mm256_castsi256_ps(_mm256_cmpeq_epi32(da, kc[c])));
        g->b[c] = _mm256_blendv_ps(g->b[c], g->rb, _mm256_castsi256_ps(_mm256_cmpeq_epi32(db, kc[c])));
    }
}
/* The lerp of a group whose rows hold both frames' four components (the
 * dropped ones rebuilt and placed: cc_rot8_place, or a cursor's cache). */
__attribute__((target("avx2,fma"))) static inline void cc_rot8_lerp(cc_rot8 *g, float u, const __m256 *e) {
    const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
    const __m256 *a = g->a, *b = g->b;
    __m256 dt = _mm256_fmadd_ps(a[3], b[3], _mm256_fmadd_ps(a[2], b[2], _mm256_fmadd_ps(a[1], b[1], _mm256_mul_ps(a[0], b[0]))));
    /* sk_cc_qlerp's products with sg (+1 or -1) as the exact sign flips they are: the sign bit where a . b < 0 */
    __m256 sm = _mm256_and_ps(_mm256_cmp_ps(dt, zero, _CMP_LT_OQ), _mm256_set1_ps(-0.0f));
    __m256 ad = _mm256_xor_ps(dt, sm), y = _mm256_sub_ps(one, ad);
    g->far = u != 0.0f ? _mm256_movemask_ps(_mm256_cmp_ps(ad, _mm256_set1_ps(SK_CC_FAR_BELOW), _CMP_LT_OQ)) : 0;
    /* sk_cc_tprime: u + (((e3 y + e2) y + e1) y + e0) y */
    __m256 vt = _mm256_fmadd_ps(_mm256_fmadd_ps(_mm256_fmadd_ps(_mm256_fmadd_ps(e[3], y, e[2]), y, e[1]), y, e[0]), y, _mm256_set1_ps(u));
    for (int c = 0; c < 4; c++) g->q[c] = _mm256_fmadd_ps(_mm256_sub_ps(_mm256_xor_ps(sm, b[c]), a[c]), vt, a[c]);
    __m256 *q = g->q;
    g->l2 = _mm256_fmadd_ps(q[3], q[3], _mm256_fmadd_ps(q[2], q[2], _mm256_fmadd_ps(q[1], q[1], _mm256_mul_ps(q[0], q[0]))));
}

/* The groups with lanes more than 120 degrees apart (rare) redone with the
 * far weights (sk_cc_tweights_far, sk_cc_tprime_far) in those lanes: their
 * q and one over the root of their squared length. Out of line: most
 * samples have no such lane. */
__attribute__((target("avx2,fma"), noinline, cold)) static void cc_rot8_far(cc_rot8 *g, uint32_t ng, float u) {
    const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps(), vu = _mm256_set1_ps(u);
    /* sk_cc_tweights_far, its five coefficients in lanes 0-4 of one register (intrinsics: no contraction) */
    const __m256 hs = _mm256_sub_ps(vu, _mm256_set1_ps(0.5f)), s = _mm256_mul_ps(hs, hs);
    const __m256 w = _mm256_mul_ps(_mm256_mul_ps(vu, hs), _mm256_sub_ps(vu, one));
    __m256 T[5];
    for (int i = 0; i < 5; i++)
        T[i] = _mm256_setr_ps(SK_CC_TKF[i][0], SK_CC_TKF[i][1], SK_CC_TKF[i][2], SK_CC_TKF[i][3], SK_CC_TKF[i][4], 0.0f, 0.0f, 0.0f);
    __m256 ev = _mm256_add_ps(_mm256_mul_ps(T[4], s), T[3]);
    ev = _mm256_add_ps(_mm256_mul_ps(ev, s), T[2]);
    ev = _mm256_add_ps(_mm256_mul_ps(ev, s), T[1]);
    ev = _mm256_add_ps(_mm256_mul_ps(ev, s), T[0]);
    ev = _mm256_mul_ps(w, ev);
    __m256 f[5];
    for (int j = 0; j < 5; j++) f[j] = _mm256_permutevar8x32_ps(ev, _mm256_set1_epi32(j));
    for (uint32_t k = 0; k < ng; k++) {
        cc_rot8 *h = &g[k];
        if (!h->far) continue;
        const __m256 *a = h->a, *b = h->b;
        __m256 dt = _mm256_fmadd_ps(a[3], b[3], _mm256_fmadd_ps(a[2], b[2], _mm256_fmadd_ps(a[1], b[1], _mm256_mul_ps(a[0], b[0]))));
        __m256 sm = _mm256_and_ps(_mm256_cmp_ps(dt, zero, _CMP_LT_OQ), _mm256_set1_ps(-0.0f));
        __m256 ad = _mm256_xor_ps(dt, sm), y = _mm256_sub_ps(one, ad);
        __m256 farm = _mm256_cmp_ps(ad, _mm256_set1_ps(SK_CC_FAR_BELOW), _CMP_LT_OQ);
        /* sk_cc_tprime_far: u + ((((f4 y + f3) y + f2) y + f1) y + f0) y */
        __m256 p = _mm256_fmadd_ps(f[4], y, f[3]);
        p = _mm256_fmadd_ps(p, y, f[2]);
        p = _mm256_fmadd_ps(p, y, f[1]);
        p = _mm256_fmadd_ps(p, y, f[0]);
        __m256 vt = _mm256_fmadd_ps(p, y, vu), q[4];
        for (int c = 0; c < 4; c++) q[c] = _mm256_fmadd_ps(_mm256_sub_ps(_mm256_xor_ps(sm, b[c]), a[c]), vt, a[c]);
        __m256 l2 = _mm256_fmadd_ps(q[3], q[3], _mm256_fmadd_ps(q[2], q[2], _mm256_fmadd_ps(q[1], q[1], _mm256_mul_ps(q[0], q[0]))));
        for (int c = 0; c < 4; c++) h->q[c] = _mm256_blendv_ps(h->q[c], q[c], farm);
        h->l2 = _mm256_blendv_ps(h->l2, _mm256_div_ps(one, _mm256_sqrt_ps(l2)), farm);
    }
}

/* sk_cc_tweights at u, its four coefficients broadcast (intrinsics: no contraction). */
__attribute__((target("avx2,fma"), always_inline)) static inline void cc_tweights8(float u, __m256 *e) {
    const __m128 vu = _mm_set1_ps(u), h = _mm_sub_ps(vu, _mm_set1_ps(0.5f)), s = _mm_mul_ps(h, h);
    __m128 ev = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(SK_CC_TK[3]), s), _mm_loadu_ps(SK_CC_TK[2]));
    ev = _mm_add_ps(_mm_mul_ps(ev, s), _mm_loadu_ps(SK_CC_TK[1]));
    ev = _mm_add_ps(_mm_mul_ps(ev, s), _mm_loadu_ps(SK_CC_TK[0]));
    ev = _mm_mul_ps(_mm_mul_ps(_mm_mul_ps(vu, h), _mm_sub_ps(vu, _mm_set1_ps(1.0f))), ev);
    e[0] = _mm256_broadcastss_ps(ev), e[1] = _mm256_broadcastss_ps(_mm_permute_ps(ev, 1));
    e[2] = _mm256_broadcastss_ps(_mm_permute_ps(ev, 2)), e[3] = _mm256_broadcastss_ps(_mm_permute_ps(ev, 3));
}

/* The groups g[0, ng), their rows placed (both frames' four components),
 * interpolated at u: g[k].q and g[k].l2 (one over the root of the squared
 * length); keep (a cursor's cache, or NULL): the placed rows stored first,
 * 64 floats per group. d0, d1: the two-track decoder's dropped components,
 * whose roots (ra, rb) are put in place first (NULL: the rows are placed). */
__attribute__((target("avx2,fma"), always_inline)) static inline void cc_rots_finish(cc_rot8 *g, uint32_t ng, float u, float *keep,
                                                                                    const uint8_t *d0, const uint8_t *d1) {
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 e[4];
    cc_tweights8(u, e);
    unsigned any = 0;
    for (uint32_t k = 0; k < ng; k++) {
        if (d0) cc_rot8_place(&g[k], d0 + 8 * k, d1 + 8 * k); /* the two-track decoder's roots put in place */
        if (keep)
            for (int c = 0; c < 4; c++) _mm256_storeu_ps(keep + 64 * k + 8 * c, g[k].a[c]), _mm256_storeu_ps(keep + 64 * k + 32 + 8 * c, g[k].b[c]);
        cc_rot8_lerp(&g[k], u, e);
        any |= (unsigned)g[k].far;
        g[k].l2 = _mm256_div_ps(one, _mm256_sqrt_ps(g[k].l2));
    }
    if (any) cc_rot8_far(g, ng, u);
}

/* The rotations of a chunk, xr[0, nr) (nr a multiple of 8) with their
 * dropped components, interpolated at u: g[nr / 8].q times g[nr / 8].l2
 * (one over the root of the squared length), multiplied as the rows are
 * stored. rows: a cursor's cache holding them placed (then xr is not read). */
__attribute__((target("avx2,fma"), always_inline)) static inline void cc_rots_avx2(const float *xr, const uint8_t *d0, const uint8_t *d1,
                                                                                  const float *rows, float *keep, uint32_t nr, float u,
                                                                                  cc_rot8 *g) {
    const __m256 zero = _mm256_setzero_ps();
    uint32_t ng = nr / 8;
    if (rows) /* a cursor's cache: the groups' rows as placed below */
        for (uint32_t k = 0; k < ng; k++)
            for (int c = 0; c < 4; c++)
                g[k].a[c] = _mm256_loadu_ps(rows + 64 * k + 8 * c), g[k].b[c] = _mm256_loadu_ps(rows + 64 * k + 32 + 8 * c);
    else
        for (uint32_t k = 0; k < ng; k++) {
            cc_rot8_rows(xr + 64 * k, &g[k]);
            g[k].ra = _mm256_sqrt_ps(_mm256_max_ps(g[k].ra, zero)), g[k].rb = _mm256_sqrt_ps(_mm256_max_ps(g[k].rb, zero));
        }
    cc_rots_finish(g, ng, u, keep, rows ? NULL : d0, d1);
}

/* Rows q[0..3] of eight rotations to the joints j[0..n) of local (n <= 8). */
__attribute__((target("avx2,fma"))) static inline void cc_store8_aos(const __m256 *q, sk_transform *local, const uint32_t *j, uint32_t n) {
    sk_quat sink[8], *dst[8];
    for (uint32_t l = 0; l < 8; l++) dst[l] = n == 8 || l < n ? &local[j[l]].r : &sink[l];
    __m256 t0 = _mm256_unpacklo_ps(q[0], q[1]), t1 = _mm256_unpackhi_ps(q[0], q[1]), t2 = _mm256_unpacklo_ps(q[2], q[3]),
           t3 = _mm256_unpackhi_ps(q[2], q[3]);
    __m256 r0 = _mm256_shuffle_ps(t0, t2, 0x44), r1 = _mm256_shuffle_ps(t0, t2, 0xEE); /* rotations 0|4, 1|5 */
    __m256 r2 = _mm256_shuffle_ps(t1, t3, 0x44), r3 = _mm256_shuffle_ps(t1, t3, 0xEE); /* rotations 2|6, 3|7 */
    _mm_storeu_ps(&dst[0]->x, _mm256_castps256_ps128(r0)), _mm_storeu_ps(&dst[4]->x, _mm256_extractf128_ps(r0, 1));
    _mm_storeu_ps(&dst[1]->x, _mm256_castps256_ps128(r1)), _mm_storeu_ps(&dst[5]->x, _mm256_extractf128_ps(r1, 1));
    _mm_storeu_ps(&dst[2]->x, _mm256_castps256_ps128(r2)), _mm_storeu_ps(&dst[6]->x, _mm256_extractf128_ps(r2, 1));
    _mm_storeu_ps(&dst[3]->x, _mm256_castps256_ps128(r3)), _mm_storeu_ps(&dst[7]->x, _mm256_extractf128_ps(r3, 1));
}

/* A translation, rotation or scale value v (4 floats) of joint j into an
 * SoA pose's rows (sk_soa_pose's layout: 80 floats per 8 joints). */
static void cc_put_soa(float *soa, uint32_t j, uint32_t path, const float *v) {
    float *g = soa + (size_t)(j / SK_SOA_LANES) * SK_SOA_GROUP_FLOATS + j % SK_SOA_LANES;
    uint32_t row = path == SK_PATH_TRANSLATION ? 0u : path == SK_PATH_ROTATION ? 24u : 56u;
    for (uint32_t k = 0; k < (path == SK_PATH_ROTATION ? 4u : 3u); k++) g[row + 8 * k] = v[k];
}

/* The interpolated rotations of groups g[0, ng) (q times l2, the normalising
 * multiply), n of them, of the joints rj, into local (AoS) or, when local is
 * NULL, the rows of an SoA pose's data as the plan places each block (pl,
 * cc.rplace from the chunk's first): a group's eight joints in order as its
 * four rows, lanes of one or two groups by a permute and a blend into the
 * rows there, else lane by lane. */
__attribute__((target("avx2,fma"), always_inline)) static inline void cc_store_rots(const cc_rot8 *g, uint32_t ng, uint32_t n, const uint32_t *rj,
                                                                                 const uint32_t *pl, sk_transform *local, float *soa) {
    for (uint32_t k = 0; k < ng * 8; k += 8, pl += CC_PLACE_WORDS) {
        const cc_rot8 *h = &g[k / 8];
        const __m256 q[4] = {_mm256_mul_ps(h->q[0], h->l2), _mm256_mul_ps(h->q[1], h->l2), _mm256_mul_ps(h->q[2], h->l2),
                             _mm256_mul_ps(h->q[3], h->l2)};
        if (local) cc_store8_aos(q, local, rj + k, n - k < 8 ? n - k : 8);
        else if (pl[0] != CC_PLACE_LANES) /* the block's lanes into at most two groups' rows */
            for (uint32_t e = 0; e < 2 && pl[2 * e + 1] >> 24; e++) {
                uint32_t lanes = pl[2 * e + 1];
                float *d = soa + pl[2 * e];
                if (lanes == CC_PLACE_ALL)
                    for (int r = 0; r < 4; r++) _mm256_storeu_ps(d + 8 * r, q[r]);
                else { /* row lane p = block lane (lanes >> 3p & 7) where bit 24 + p is set, else kept */
                    const __m256i bit = _mm256_setr_epi32(1 << 24, 1 << 25, 1 << 26, 1 << 27, 1 << 28, 1 << 29, 1 << 30, INT32_MIN);
                    __m256i w = _mm256_set1_epi32((int)lanes);
                    __m256i idx = _mm256_and_si256(_mm256_srlv_epi32(w, _mm256_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21)), _mm256_set1_epi32(7));
                    __m256 keep = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(w, bit), bit));
                    for (int r = 0; r < 4; r++)
                        _mm256_storeu_ps(d + 8 * r, _mm256_blendv_ps(_mm256_loadu_ps(d + 8 * r), _mm256_permutevar8x32_ps(q[r], idx), keep));
                }
            }
        else {
            float rows[32];
            for (int r = 0; r < 4; r++) _mm256_storeu_ps(rows + 8 * r, q[r]);
            for (uint32_t l = 0; l < 8 && k + l < n; l++) {
                float v[4] = {rows[l], rows[8 + l], rows[16 + l], rows[24 + l]};
                cc_put_soa(soa, rj[k + l], SK_PATH_ROTATION, v);
            }
        }
    }
}

/* A cursor's cache of decoded frames (sk_clip_cursor_cache_size words): a
 * header of CC_CACHE_HEADER words, then per chunk its rotations as
 * cc_rots_avx2 holds them before the lerp (per group of eight, padded: the
 * four component rows of frame 0, then of frame 1, the dropped components
 * rebuilt and in place: a sample that finds its pair skips the transpose,
 * the roots and the placing), then its translation/scale slots, 8 floats
 * each (frame 0 in 0-3, frame 1 in 4-7, as the decoders leave them). The header: frame
 * k0 + 1 of the pair it holds (0: none), and the clip's blob address and
 * size each mixed with k0 (odd multipliers: a product with k0 differs for
 * every other k0), so that a cursor written by another clip is not taken
 * for this one's: another clip's key index written over word 0 alone still
 * matches words 1-3 only when it names the pair they hold. Words 4 and 5:
 * k0 + 1 of the cursor's last sample (whatever it decoded) and whether that
 * sample was at the same frame as the one before it, which decide whether a
 * new pair is worth keeping. */
static void cc_cache_words(const sk_clip *c, uint32_t k0, bool rows, uint32_t *w) {
    uint64_t b = (uint64_t)(uintptr_t)c->blob;
    w[0] = k0 + 1u;
    w[1] = (uint32_t)b ^ (k0 * 0x9E3779B1u);
    w[2] = (uint32_t)(b >> 32) ^ (k0 * 0x85EBCA77u) ^ 0x27D4EB2Fu;
    w[3] = (uint32_t)c->blob_size ^ (k0 * 0xC2B2AE3Du) ^ (rows ? 0x5BD1E995u : 0x165667B1u); /* the rows decoder's layout or the others' */
}
static bool cc_cache_hit(const sk_clip *c, const uint32_t *cache, uint32_t k0, bool rows) {
    uint32_t w[4];
    cc_cache_words(c, k0, rows, w);
    return cache[0] == w[0] && cache[1] == w[1] && cache[2] == w[2] && cache[3] == w[3];
}
static void cc_cache_tag(const sk_clip *c, uint32_t *cache, uint32_t k0, bool rows) { cc_cache_words(c, k0, rows, cache); }

/* The start of a sample (both SIMD decoders): the cursor's cache to keep the
 * pair in (NULL: none) and the constant tracks written. A pair decoded here
 * is kept only when playback has just stayed on one frame for two samples
 * (this one and the last, or the last and the one before: words 4 and 5),
 * so that it samples faster than the frames go by and the next sample may
 * need the pair again; playback at a frame or more per sample (a 120 fps
 * clip at 60 Hz, a crowd's sped-up phases) would pay the copy for nothing.
 * The constants go from the plan straight to their place in local (a
 * rotation's four floats, else three: 8 + 4 bytes); an SoA pose (local
 * NULL) has them from sk_cclip_rest_soa. */
__attribute__((target("avx2,fma"), always_inline)) static inline uint32_t *cc_begin(const sk_clip *c, uint32_t *cache, uint32_t k0, bool hit,
                                                                                  sk_transform *local) {
    if (cache) {
        uint32_t stayed = cache[4] == k0 + 1u, kept = stayed || cache[5];
        cache[4] = k0 + 1u, cache[5] = stayed;
        if (!hit && !kept) cache = NULL;
    }
    uint32_t A = c->cc.anim, T = c->track_count;
    const uint32_t *cv = c->cc.slots + 2u * A + (T - A) + (A + CC_CHUNK - 1) / CC_CHUNK;
    for (uint32_t k = 0; local && k < T - A; k++, cv += CC_CONST_WORDS) {
        float *dst = (float *)(void *)local + (cv[0] & ~CC_CONST_ROT);
        __m128 v = _mm_loadu_ps((const float *)(const void *)(cv + 1));
        if (cv[0] & CC_CONST_ROT) _mm_storeu_ps(dst, v);
        else _mm_storel_pi((__m64 *)(void *)dst, v), _mm_store_ss(dst + 2, _mm_movehl_ps(v, v));
    }
    return cache;
}

/* The AVX2 decoder, by the clip's plan (sk_clip_from_compressed): the
 * constant tracks, then the animated tracks decoded CC_CHUNK at a time
 * (rotations to xr, translations and scales to xv; both frames in one
 * segment, 15 of 16 pairs, or in two), the rotations interpolated eight at
 * a time (padded with identities written nowhere). Into local (indexed by
 * joint) or, when local is NULL, into the rows of an SoA pose's data (eight
 * rotations of the joints of one group stored as its rows). cache: a
 * cursor's decoded frames (cc_cache_hit; NULL: none): when it holds frame
 * k0's pair, nothing is decoded and its slots are read instead; else the
 * decoded slots are copied into it. */
__attribute__((target("avx2,fma"), always_inline)) static inline void cc_sample_body(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, float u,
                                                                             sk_transform *local, float *soa, bool wide,
                                                                             uint32_t *cache, uint32_t k0) {
    __m256 xr[CC_XV + CC_CHUNK], *xv = xr + CC_XV;
    uint8_t dr0[CC_XV + CC_CHUNK], dr1[CC_XV + CC_CHUNK];
    bool same = s0->seg == s1->seg, hit = cache && cc_cache_hit(c, cache, k0, false);
    cache = cc_begin(c, cache, k0, hit, local);
    uint32_t A = c->cc.anim, T = c->track_count;
    const uint32_t *slot = c->cc.slots, *rj = slot + A, *cnr = rj + A + (T - A);
    const uint32_t *tj = rj + c->cc.rots, *pl = c->cc.rplace;
    /* the cache, chunk after chunk: its rotations' rows as cc_rots_avx2 places them (64 floats per
     * group of eight), then its translations' and scales' slots (8 floats each) */
    float *cslot = cache ? (float *)(void *)(cache + CC_CACHE_HEADER) : NULL;
    for (uint32_t a = 0; a < A; a += CC_CHUNK) {
        uint32_t n = A - a < CC_CHUNK ? A - a : CC_CHUNK, nr = cnr[a / CC_CHUNK], nv = n - nr, nr8 = (nr + 7u) & ~7u;
        const float *rsrc = (const float *)(const void *)xr, *vsrc = (const float *)(const void *)xv;
        const uint8_t *d0 = dr0, *d1 = same ? dr0 : dr1;
        if (hit) {
            rsrc = NULL, vsrc = cslot + 8u * nr8;
        } else if (same && wide)
            cc_decode_placed512((const uint8_t *)(const void *)(c->cc.ranges + 8u * a), s0->rates + a, s0->ranges + 6u * a, s0->bits, &s0->pos, &s1->pos, n,
                                slot + a, xr, dr0);
        else if (same)
            cc_decode_placed_avx2((const uint8_t *)(const void *)(c->cc.ranges + 8u * a), s0->rates + a, s0->ranges + 6u * a, s0->bits, &s0->pos, &s1->pos, n,
                                  slot + a, xr, dr0);
        else if (wide) cc_decode_placed2_512(c, s0, s1, a, n, slot + a, xr, dr0, dr1);
        else cc_decode_placed2_avx2(c, s0, s1, a, n, slot + a, xr, dr0, dr1);
        for (uint32_t k = 0; k < nv; k++) {
            /* sk_cc_vlerp with intrinsics (no contraction under the AVX-512 body's target) */
            __m128 v0, v1;
            if (hit) v0 = _mm_loadu_ps(vsrc + 8u * k), v1 = _mm_loadu_ps(vsrc + 8u * k + 4u);
            else v0 = _mm256_castps256_ps128(xv[k]), v1 = _mm256_extractf128_ps(xv[k], 1);
            __m128 r = _mm_fmadd_ps(_mm_sub_ps(v1, v0), _mm_set1_ps(u), v0);
            uint32_t j = tj[k] >> 1, path = tj[k] & 1u ? SK_PATH_SCALE : SK_PATH_TRANSLATION;
            if (!local) {
                float v[4];
                _mm_storeu_ps(v, r);
                cc_put_soa(soa, j, path, v);
            } else {
                float *dst = path == SK_PATH_SCALE ? &local[j].s.x : &local[j].t.x;
                _mm_storel_pi((__m64 *)(void *)dst, r), _mm_store_ss(dst + 2, _mm_movehl_ps(r, r));
            }
        }
        tj += nv;
        uint32_t real = nr;
        if (!hit) {
            for (; nr & 7u; nr++) xr[nr] = _mm256_setzero_ps(), dr0[nr] = dr1[nr] = 3;
            if (cache) { /* the decoded slots kept for the next sample */
                for (uint32_t k = 0; k < nv; k++) _mm256_storeu_ps(cslot + 8u * (nr8 + k), xv[k]);
            }
        }
        nr = nr8;
        float *crows = cslot;
        if (cache) cslot += 8u * (nr8 + nv);
        cc_rot8 grp[CC_CHUNK / 8 + 1];
        cc_rots_avx2(rsrc, d0, d1, hit ? crows : NULL, cache && !hit ? crows : NULL, nr, u, grp);
        cc_store_rots(grp, nr / 8, real, rj, pl, local, soa);
        rj += real, pl += CC_PLACE_WORDS * (nr / 8);
    }
    if (cache && !hit) cc_cache_tag(c, cache, k0, false);
}

/* ---- The rows decoder (AVX-512 with VBMI): sixteen tracks per register ----
 * The decoders above hold one track per register (frame 0 in lanes 0-3,
 * frame 1 in 4-7) and pay per track for the permutes that place its
 * components, then transpose eight rotations to rows for the lerp. This one
 * decodes sixteen tracks of a segment at once, one register per stored
 * component: their bit positions by a prefix sum of their widths, each
 * track's 8 bytes picked from the block's bytes by a byte permute (VBMI; a
 * gather per component in a block with a 23-bit track), the three fields
 * shifted out, the coefficients from the range bytes picked by byte permutes
 * and the clip ranges the plan keeps as rows (cc.rrows), the dropped
 * component's clip range chosen by masks. The rows go to the rotations' or
 * the translations' and scales' buffers (blob version 4 puts the rotations
 * first, so only the block where they end is split, by the plan's rotation
 * mask, cc.rmask), and the rotations are rebuilt, placed and interpolated
 * eight at a time with no transpose. The same float operations in the same
 * order as cc_read2 and sk_cc_qlerp: the same bits. */
#define CC_ROWS_TARGET "avx2,fma,avx512f,avx512vl,avx512dq,avx512bw,avx512vbmi"

/* One block's per-track decoding terms of one segment. */
typedef struct cc_blk {
    __m512i lvl, d, b;       /* bit-rate level, dropped component, bits per component */
    __m512 off[3], sc[3];    /* sk_cc_coef per stored component */
} cc_blk;

/* The terms of tracks [0, n) (n <= 16) from the segment's rates and range
 * bytes at the block's first track and the block's clip-range rows cr. */
__attribute__((target(CC_ROWS_TARGET), always_inline)) static inline void cc_blk_coef(const float *cr, const uint8_t *rates, const uint8_t *sr,
                                                                                   uint32_t n, cc_blk *k) {
    __m512i r = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8((__mmask16)((1u << n) - 1u), rates));
    k->lvl = _mm512_and_si512(r, _mm512_set1_epi32(15));
    k->d = _mm512_srli_epi32(r, 4);
    k->b = _mm512_permutexvar_epi32(k->lvl, _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(const void *)SK_CC_BITS)));
    uint32_t nb = 6u * n;
    __mmask64 m0 = nb >= 64 ? ~0ull : (1ull << nb) - 1u, m1 = nb > 64 ? (1ull << (nb - 64)) - 1u : 0;
    __m512i lo = _mm512_maskz_loadu_epi8(m0, sr), hi = _mm512_maskz_loadu_epi8(m1, sr + 64);
    __m512 inv = _mm512_permutexvar_ps(k->lvl, _mm512_loadu_ps(SK_CC_INV));
    /* byte 6i + j of the ranges to the low byte of lane i */
    const __m512i six = _mm512_setr_epi32(0, 6, 12, 18, 24, 30, 36, 42, 48, 54, 60, 66, 72, 78, 84, 90);
    const __mmask64 low = 0x1111111111111111ull;
    for (int j = 0; j < 3; j++) {
        __m512 smin = _mm512_cvtepi32_ps(_mm512_maskz_permutex2var_epi8(low, lo, _mm512_add_epi32(six, _mm512_set1_epi32(j)), hi));
        __m512 sext = _mm512_cvtepi32_ps(_mm512_maskz_permutex2var_epi8(low, lo, _mm512_add_epi32(six, _mm512_set1_epi32(3 + j)), hi));
        /* stored component j is the clip range's j + (j >= d) */
        __mmask16 up = _mm512_cmple_epi32_mask(k->d, _mm512_set1_epi32(j));
        __m512 cmin = _mm512_mask_blend_ps(up, _mm512_loadu_ps(cr + 16 * j), _mm512_loadu_ps(cr + 16 * (j + 1)));
        __m512 cext = _mm512_mask_blend_ps(up, _mm512_loadu_ps(cr + 64 + 16 * j), _mm512_loadu_ps(cr + 64 + 16 * (j + 1)));
        k->off[j] = _mm512_fmadd_ps(cext, smin, cmin);
        k->sc[j] = _mm512_mul_ps(_mm512_mul_ps(cext, sext), inv);
    }
}

/* Each track's first bit in the frame: base plus the widths (3b) of the
 * tracks before it in the block (a prefix sum); base moves past the block. */
__attribute__((target(CC_ROWS_TARGET), always_inline)) static inline __m512i cc_blk_pos(__m512i b, __m512i *base) {
    const __m512i z = _mm512_setzero_si512();
    __m512i b3 = _mm512_add_epi32(b, _mm512_add_epi32(b, b)), x = b3;
    x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 15));
    x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 14));
    x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 12));
    x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, z, 8));
    __m512i p = _mm512_add_epi32(*base, _mm512_sub_epi32(x, b3));
    *base = _mm512_add_epi32(*base, _mm512_permutexvar_epi32(_mm512_set1_epi32(15), x));
    return p;
}

/* CC_REP8[h]: byte 8l + m = the low byte of dword lane 8h + l. */
static const uint8_t CC_REP8[2][64] __attribute__((aligned(64))) = {
    {0,  0,  0,  0,  0,  0,  0,  0,  4,  4,  4,  4,  4,  4,  4,  4,  8,  8,  8,  8,  8,  8,  8,  8,  12, 12, 12, 12, 12, 12, 12, 12,
     16, 16, 16, 16, 16, 16, 16, 16, 20, 20, 20, 20, 20, 20, 20, 20, 24, 24, 24, 24, 24, 24, 24, 24, 28, 28, 28, 28, 28, 28, 28, 28},
    {32, 32, 32, 32, 32, 32, 32, 32, 36, 36, 36, 36, 36, 36, 36, 36, 40, 40, 40, 40, 40, 40, 40, 40, 44, 44, 44, 44, 44, 44, 44, 44,
     48, 48, 48, 48, 48, 48, 48, 48, 52, 52, 52, 52, 52, 52, 52, 52, 56, 56, 56, 56, 56, 56, 56, 56, 60, 60, 60, 60, 60, 60, 60, 60}};

/* The block's three stored components of one frame: fields at bit
 * positions p (widths b) of bits, decoded by the terms k. wide: a track at 23
 * bits (3b + 7 > 64): one read per component. end: the blob's end (no read past
 * it). Lanes outside kn are not read from memory. */
__attribute__((target(CC_ROWS_TARGET), always_inline)) static inline void cc_blk_values(const uint8_t *bits, const uint8_t *end, __m512i p,
                                                                                     const cc_blk *k, __mmask16 kn, bool wide, __m512 *x) {
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30), seven = _mm512_set1_epi32(7);
    const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi32(1);
    __m512i m = _mm512_sub_epi32(_mm512_sllv_epi32(one, k->b), one), f[2][3];
    __m256i blo = _mm512_castsi512_si256(k->b), bhi = _mm512_extracti64x4_epi64(k->b, 1);
    if (!wide) {
        /* the block's bits (at most 16 x 57 + 7 bits: 115 bytes) in two registers, each track's
         * 8 bytes picked from them by a byte permute */
        __m512i idx = _mm512_srli_epi32(p, 3), sh = _mm512_and_si512(p, seven);
        uint32_t start = (uint32_t)_mm_cvtsi128_si32(_mm512_castsi512_si128(idx));
        const uint8_t *src = bits + start;
        __m512i lo, hi;
        if (end - src >= 128) lo = _mm512_loadu_si512((const void *)src), hi = _mm512_loadu_si512((const void *)(src + 64));
        else {
            size_t left = (size_t)(end - src);
            lo = _mm512_maskz_loadu_epi8(left >= 64 ? ~0ull : (1ull << left) - 1u, src);
            hi = _mm512_maskz_loadu_epi8(left >= 128 ? ~0ull : left > 64 ? (1ull << (left - 64)) - 1u : 0, src + 64);
        }
        __m512i o = _mm512_sub_epi32(idx, _mm512_set1_epi32((int)start));
        const __m512i inc = _mm512_set1_epi64(0x0706050403020100ll);
        for (int h = 0; h < 2; h++) {
            const __m512i rep = _mm512_load_si512((const void *)CC_REP8[h]);
            __m512i g = _mm512_permutex2var_epi8(lo, _mm512_add_epi8(_mm512_permutexvar_epi8(rep, o), inc), hi);
            __m512i s = _mm512_cvtepu32_epi64(h ? _mm512_extracti64x4_epi64(sh, 1) : _mm512_castsi512_si256(sh));
            __m512i bb = _mm512_cvtepu32_epi64(h ? bhi : blo);
            f[h][0] = _mm512_srlv_epi64(g, s);
            s = _mm512_add_epi64(s, bb);
            f[h][1] = _mm512_srlv_epi64(g, s);
            s = _mm512_add_epi64(s, bb);
            f[h][2] = _mm512_srlv_epi64(g, s);
        }
    } else {
        __m512i pk = p;
        for (int j = 0; j < 3; j++, pk = _mm512_add_epi32(pk, k->b)) {
            __m512i idx = _mm512_srli_epi32(pk, 3), sh = _mm512_and_si512(pk, seven);
            for (int h = 0; h < 2; h++) {
                __m256i ih = h ? _mm512_extracti64x4_epi64(idx, 1) : _mm512_castsi512_si256(idx);
                __m512i g = _mm512_mask_i32gather_epi64(zero, (__mmask8)(kn >> (8 * h)), ih, (const void *)bits, 1);
                f[h][j] = _mm512_srlv_epi64(g, _mm512_cvtepu32_epi64(h ? _mm512_extracti64x4_epi64(sh, 1) : _mm512_castsi512_si256(sh)));
            }
        }
    }
    for (int j = 0; j < 3; j++) {
        __m512i q = _mm512_and_si512(_mm512_permutex2var_epi32(f[0][j], even, f[1][j]), m);
        x[j] = _mm512_fmadd_ps(k->sc[j], _mm512_cvtepi32_ps(q), k->off[j]); /* sk_cc_value */
    }
}

/* One chunk's decoded stored components: rotations (frame 0 in ra, frame 1
 * in rb, their dropped components in d0, d1) and translations/scales (va,
 * vb), each in data order; room for a full block stored at the last place. */
typedef struct cc_rowbuf {
    float ra[3][CC_CHUNK + 16], rb[3][CC_CHUNK + 16], va[3][CC_CHUNK + 16], vb[3][CC_CHUNK + 16];
    int32_t d0[CC_CHUNK + 16], d1[CC_CHUNK + 16];
} cc_rowbuf;

/* The rows of a block (lanes kn) to the buffers: rotation lanes kr at *nr, the others at *nv. */
__attribute__((target(CC_ROWS_TARGET), always_inline)) static inline void cc_blk_split(cc_rowbuf *w, const __m512 *x0, const __m512 *x1,
                                                                                    __m512i d0, __m512i d1, __mmask16 kn, __mmask16 kr,
                                                                                    uint32_t *nr, uint32_t *nv) {
    __mmask16 kv = (__mmask16)(kn & ~kr);
    /* lanes past the block's tracks stored as zeros (a dropped component 0: they rebuild as 1, 0, 0, 0) */
    if (kr == kn) { /* rotations only (the data order puts them first: one kind per block but one) */
        for (int j = 0; j < 3; j++)
            _mm512_storeu_ps(w->ra[j] + *nr, _mm512_maskz_mov_ps(kn, x0[j])), _mm512_storeu_ps(w->rb[j] + *nr, _mm512_maskz_mov_ps(kn, x1[j]));
        _mm512_storeu_si512((void *)(w->d0 + *nr), _mm512_maskz_mov_epi32(kn, d0));
        _mm512_storeu_si512((void *)(w->d1 + *nr), _mm512_maskz_mov_epi32(kn, d1));
    } else if (!kr) {
        for (int j = 0; j < 3; j++)
            _mm512_storeu_ps(w->va[j] + *nv, _mm512_maskz_mov_ps(kn, x0[j])), _mm512_storeu_ps(w->vb[j] + *nv, _mm512_maskz_mov_ps(kn, x1[j]));
    } else {
        for (int j = 0; j < 3; j++) {
            _mm512_storeu_ps(w->ra[j] + *nr, _mm512_maskz_compress_ps(kr, x0[j]));
            _mm512_storeu_ps(w->rb[j] + *nr, _mm512_maskz_compress_ps(kr, x1[j]));
            _mm512_storeu_ps(w->va[j] + *nv, _mm512_maskz_compress_ps(kv, x0[j]));
            _mm512_storeu_ps(w->vb[j] + *nv, _mm512_maskz_compress_ps(kv, x1[j]));
        }
        _mm512_storeu_si512((void *)(w->d0 + *nr), _mm512_maskz_compress_epi32(kr, d0));
        _mm512_storeu_si512((void *)(w->d1 + *nr), _mm512_maskz_compress_epi32(kr, d1));
    }
    *nr += (uint32_t)__builtin_popcount(kr), *nv += (uint32_t)__builtin_popcount(kv);
}

/* A rotation's dropped component rebuilt from its three stored ones x (as
 * sk_cc_w: ((1 - x0^2) - x1^2) - x2^2, the root of it or 0) and its four
 * components placed around it by d (eight rotations per register, lanes km). */
__attribute__((target(CC_ROWS_TARGET), always_inline)) static inline void cc_rows_place(const float *x0, const float *x1, const float *x2,
                                                                                      const int32_t *dp, __mmask8 km, __m256 *o) {
    const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
    /* lanes outside km (past the chunk's rotations) read as zeros: 1, 0, 0, 0 */
    __m256 a = _mm256_maskz_loadu_ps(km, x0), b = _mm256_maskz_loadu_ps(km, x1), c = _mm256_maskz_loadu_ps(km, x2);
    __m256i d = _mm256_maskz_loadu_epi32(km, dp);
    __m256 w = _mm256_sqrt_ps(_mm256_max_ps(_mm256_fnmadd_ps(c, c, _mm256_fnmadd_ps(b, b, _mm256_fnmadd_ps(a, a, one))), zero));
    __m256 e0 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(d, _mm256_setzero_si256()));
    __m256 e1 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(d, _mm256_set1_epi32(1)));
    __m256 e2 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(d, _mm256_set1_epi32(2)));
    __m256 e3 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(d, _mm256_set1_epi32(3)));
    o[0] = _mm256_blendv_ps(a, w, e0);
    o[1] = _mm256_blendv_ps(_mm256_blendv_ps(b, a, e0), w, e1);
    o[2] = _mm256_blendv_ps(_mm256_blendv_ps(c, b, _mm256_or_ps(e0, e1)), w, e2);
    o[3] = _mm256_blendv_ps(c, w, e3);
}

/* Rows r[0..2] of eight translations or scales to their joints (tj: 2 joint
 * + 1 for a scale) in local, lanes [0, n). */
__attribute__((target("avx2,fma"), always_inline)) static inline void cc_store8_vec(const __m256 *r, sk_transform *local, const uint32_t *tj,
                                                                                 uint32_t n) {
    float v[4][8];
    __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]), t2 = _mm256_unpacklo_ps(r[2], r[2]),
           t3 = _mm256_unpackhi_ps(r[2], r[2]);
    _mm256_storeu_ps(v[0], _mm256_shuffle_ps(t0, t2, 0x44)), _mm256_storeu_ps(v[1], _mm256_shuffle_ps(t0, t2, 0xEE));
    _mm256_storeu_ps(v[2], _mm256_shuffle_ps(t1, t3, 0x44)), _mm256_storeu_ps(v[3], _mm256_shuffle_ps(t1, t3, 0xEE));
    for (uint32_t l = 0; l < n; l++) { /* v[l & 3] + 4 (l >> 2): lane l's x, y, z */
        uint32_t j = tj[l] >> 1;
        float *dst = tj[l] & 1u ? &local[j].s.x : &local[j].t.x;
        memcpy(dst, v[l & 3] + 4 * (l >> 2), 12);
    }
}

/* The rows decoder's sample (arguments as cc_sample_body). The cache holds
 * per chunk its rotations' placed rows (as the other decoders keep them)
 * and its translations'/scales' rows (ra[0..2] then rb[0..2], padded to 8). */
__attribute__((target(CC_ROWS_TARGET), always_inline)) static inline void cc_rows_body(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, float u,
                                                                                    sk_transform *local, float *soa, uint32_t *cache,
                                                                                    uint32_t k0) {
    cc_rowbuf w;
    bool same = s0->seg == s1->seg, hit = cache && cc_cache_hit(c, cache, k0, true);
    cache = cc_begin(c, cache, k0, hit, local);
    uint32_t A = c->cc.anim, T = c->track_count;
    const uint32_t *rj = c->cc.slots + A, *cnr = rj + A + (T - A);
    const uint32_t *tj = rj + c->cc.rots, *pl = c->cc.rplace;
    float *cslot = cache ? (float *)(void *)(cache + CC_CACHE_HEADER) : NULL;
    const __m512i fbits = _mm512_set1_epi32((int)(s1->pos - s0->pos));
    __m512i base0 = _mm512_set1_epi32((int)s0->pos), base1 = _mm512_set1_epi32((int)s1->pos);
    const __m256 vu = _mm256_set1_ps(u);
    const uint8_t *end = c->blob + c->blob_size;
    if (!hit) /* the two frames' bits and their segments' rates and ranges into L1 ahead of the blocks that read them */
        for (int f = 0; f < 2; f++) {
            const cc_cursor *q = f ? s1 : s0;
            if (!f || !same)
                for (const uint8_t *p = q->rates; p < q->bits; p += 64) _mm_prefetch((const char *)p, _MM_HINT_T0);
            const uint8_t *b = q->bits + (q->pos >> 3), *e = b + (q->fbits + 7u) / 8u;
            for (const uint8_t *p = b; p < e; p += 64) _mm_prefetch((const char *)p, _MM_HINT_T0);
        }
    for (uint32_t a = 0; a < A; a += CC_CHUNK) {
        uint32_t n = A - a < CC_CHUNK ? A - a : CC_CHUNK, nr = cnr[a / CC_CHUNK], nv = n - nr;
        uint32_t nr8 = (nr + 7u) & ~7u, nv8 = (nv + 7u) & ~7u;
        const float *rsrc = NULL, *vsrc = NULL;
        if (hit) {
            rsrc = cslot, vsrc = cslot + 8u * nr8;
        } else {
            uint32_t r = 0, v = 0;
            for (uint32_t o = 0; o < n; o += 16) {
                uint32_t m = n - o < 16 ? n - o : 16, blk = (a + o) / 16;
                __mmask16 kn = (__mmask16)((1u << m) - 1u), kr = (__mmask16)(c->cc.rmask[blk] & kn);
                const float *cr = c->cc.rrows + 128u * blk;
                cc_blk B0, B1;
                __m512 x0[3], x1[3];
                cc_blk_coef(cr, s0->rates + a + o, s0->ranges + 6u * (a + o), m, &B0);
                bool wide0 = _mm512_mask_cmpeq_epi32_mask(kn, B0.lvl, _mm512_set1_epi32(15)) != 0;
                __m512i p0 = cc_blk_pos(B0.b, &base0);
                cc_blk_values(s0->bits, end, p0, &B0, kn, wide0, x0);
                if (same) cc_blk_values(s0->bits, end, _mm512_add_epi32(p0, fbits), &B0, kn, wide0, x1);
                else {
                    cc_blk_coef(cr, s1->rates + a + o, s1->ranges + 6u * (a + o), m, &B1);
                    bool wide1 = _mm512_mask_cmpeq_epi32_mask(kn, B1.lvl, _mm512_set1_epi32(15)) != 0;
                    cc_blk_values(s1->bits, end, cc_blk_pos(B1.b, &base1), &B1, kn, wide1, x1);
                }
                cc_blk_split(&w, x0, x1, B0.d, same ? B0.d : B1.d, kn, kr, &r, &v);
            }
        }
        /* translations and scales (the last group's lanes past nv read as zeros: no store of
         * padding that a load would have to wait for) */
        for (uint32_t k = 0; k < nv; k += 8) {
            __m256 r[3];
            uint32_t m = nv - k < 8 ? nv - k : 8;
            __mmask8 km = (__mmask8)((1u << m) - 1u);
            for (int j = 0; j < 3; j++) {
                __m256 va, vb;
                if (vsrc) va = _mm256_loadu_ps(vsrc + nv8 * (uint32_t)j + k), vb = _mm256_loadu_ps(vsrc + nv8 * (uint32_t)(3 + j) + k);
                else {
                    va = _mm256_maskz_loadu_ps(km, w.va[j] + k), vb = _mm256_maskz_loadu_ps(km, w.vb[j] + k);
                    if (cache) /* kept for the next sample */
                        _mm256_storeu_ps(cslot + 8u * nr8 + nv8 * (uint32_t)j + k, va),
                            _mm256_storeu_ps(cslot + 8u * nr8 + nv8 * (uint32_t)(3 + j) + k, vb);
                }
                r[j] = _mm256_fmadd_ps(_mm256_sub_ps(vb, va), vu, va); /* sk_cc_vlerp */
            }
            if (local) cc_store8_vec(r, local, tj + k, m);
            else if (m == 8 && (tj[k] >> 1) % SK_SOA_LANES == 0 &&
                     _mm256_movemask_epi8(_mm256_cmpeq_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(tj + k)),
                                                             _mm256_add_epi32(_mm256_set1_epi32((int)tj[k]),
                                                                              _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14)))) == -1) {
                /* eight translations (or scales) of one SoA group: its rows */
                float *g = soa + (size_t)(tj[k] / (2u * SK_SOA_LANES)) * SK_SOA_GROUP_FLOATS + (tj[k] & 1u ? 56u : 0u);
                for (int j = 0; j < 3; j++) _mm256_storeu_ps(g + 8 * j, r[j]);
            } else {
                float rows[3][8];
                for (int j = 0; j < 3; j++) _mm256_storeu_ps(rows[j], r[j]);
                for (uint32_t l = 0; l < m; l++) {
                    float v[4] = {rows[0][l], rows[1][l], rows[2][l], 0.0f};
                    cc_put_soa(soa, tj[k + l] >> 1, tj[k + l] & 1u ? SK_PATH_SCALE : SK_PATH_TRANSLATION, v);
                }
            }
        }
        tj += nv;
        /* rotations */
        cc_rot8 grp[CC_CHUNK / 8 + 1];
        uint32_t ng = nr8 / 8;
        for (uint32_t g = 0; g < ng; g++) {
            if (rsrc)
                for (int j = 0; j < 4; j++)
                    grp[g].a[j] = _mm256_loadu_ps(rsrc + 64 * g + 8 * j), grp[g].b[j] = _mm256_loadu_ps(rsrc + 64 * g + 32 + 8 * j);
            else {
                __mmask8 km = (__mmask8)(nr - 8 * g < 8 ? (1u << (nr - 8 * g)) - 1u : 0xffu);
                cc_rows_place(w.ra[0] + 8 * g, w.ra[1] + 8 * g, w.ra[2] + 8 * g, w.d0 + 8 * g, km, grp[g].a);
                cc_rows_place(w.rb[0] + 8 * g, w.rb[1] + 8 * g, w.rb[2] + 8 * g, w.d1 + 8 * g, km, grp[g].b);
            }
        }
        cc_rots_finish(grp, ng, u, cache && !hit ? cslot : NULL, NULL, NULL);
        cc_store_rots(grp, ng, nr, rj, pl, local, soa);
        rj += nr, pl += CC_PLACE_WORDS * ng;
        if (cache) cslot += 8u * nr8 + 6u * nv8;
    }
    if (cache && !hit) cc_cache_tag(c, cache, k0, true);
}

__attribute__((target(CC_ROWS_TARGET), noinline)) static void cc_sample_rows_cached(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, float u,
                                                                               sk_transform *local, float *soa, uint32_t *cache, uint32_t k0) {
    cc_rows_body(c, s0, s1, u, local, soa, cache, k0);
}
__attribute__((target(CC_ROWS_TARGET), noinline)) static void cc_sample_rows_plain(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, float u,
                                                                              sk_transform *local, float *soa) {
    cc_rows_body(c, s0, s1, u, local, soa, NULL, 0);
}
static void cc_sample_rows(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, float u, sk_transform *local, float *soa, uint32_t *cache,
                           uint32_t k0) {
    if (cache) cc_sample_rows_cached(c, s0, s1, u, local, soa, cache, k0);
    else cc_sample_rows_plain(c, s0, s1, u, local, soa);
}

/* cc_sample_body with the AVX2 decoding, and with AVX-512's (two tracks
 * per register; the rest compiled for AVX-512VL: 32 registers). No scalar
 * float expression is evaluated in them (cc_rots_avx2 and cc_rot8_far
 * compute sk_cc_tweights and sk_cc_tweights_far with intrinsics), so that no
 * compiler contracts one into a fused multiply-add under these targets, which
 * have FMA: the fused ones are the intrinsics that match the scalar fmaf. */
__attribute__((target("avx2,fma"), noinline)) static void cc_sample_avx2_cached(const sk_clip *c, cc_cursor *s0, cc_cursor *s1,
                                                                            float u, sk_transform *local, float *soa,
                                                                            uint32_t *cache, uint32_t k0) {
    cc_sample_body(c, s0, s1, u, local, soa, false, cache, k0);
}
__attribute__((target("avx2,fma,avx512f,avx512vl,avx512dq"), noinline)) static void cc_sample_avx512_cached(const sk_clip *c, cc_cursor *s0,
                                                                                                        cc_cursor *s1, float u,
                                                                                                        sk_transform *local, float *soa,
                                                                                                        uint32_t *cache, uint32_t k0) {
    cc_sample_body(c, s0, s1, u, local, soa, true, cache, k0);
}
/* Without a cursor: the body with its cache code folded away (the same speed as before the cache). */
__attribute__((target("avx2,fma"), noinline)) static void cc_sample_avx2_plain(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, float u,
                                                                           sk_transform *local, float *soa) {
    cc_sample_body(c, s0, s1, u, local, soa, false, NULL, 0);
}
__attribute__((target("avx2,fma,avx512f,avx512vl,avx512dq"), noinline)) static void cc_sample_avx512_plain(const sk_clip *c, cc_cursor *s0,
                                                                                                       cc_cursor *s1, float u,
                                                                                                       sk_transform *local, float *soa) {
    cc_sample_body(c, s0, s1, u, local, soa, true, NULL, 0);
}
static void cc_sample_avx2(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, float u, sk_transform *local, float *soa, uint32_t *cache,
                           uint32_t k0) {
    if (cache) cc_sample_avx2_cached(c, s0, s1, u, local, soa, cache, k0);
    else cc_sample_avx2_plain(c, s0, s1, u, local, soa);
}
static void cc_sample_avx512(const sk_clip *c, cc_cursor *s0, cc_cursor *s1, float u, sk_transform *local, float *soa, uint32_t *cache,
                             uint32_t k0) {
    if (cache) cc_sample_avx512_cached(c, s0, s1, u, local, soa, cache, k0);
    else cc_sample_avx512_plain(c, s0, s1, u, local, soa);
}
#endif

/* The two frames around wrapped time tw and the weight u of the second; the first's index. */
static inline __attribute__((always_inline)) uint32_t cc_frames(const sk_clip *c, double tw, cc_cursor *s0, cc_cursor *s1, float *u) {
    uint32_t N = c->cc.frames, k0;
    double f = tw * (double)c->cc.rate;
    if (!(f > 0.0)) k0 = 0, *u = 0.0f;
    else if (f >= (double)(N - 1)) k0 = N - 1, *u = 0.0f;
    else {
        k0 = (uint32_t)f;
        *u = (float)(f - (double)k0);
    }
    cc_at(c, k0, s0);
    cc_at(c, k0 + 1 < N ? k0 + 1 : k0, s1);
    return k0;
}

#if defined(SK_CC_AVX2)
/* SoA groups of a pose's data (80 floats per eight joints) to the AoS
 * transforms of joints [0, n) at out, which may be the same memory when n is
 * a multiple of 8 (each group's 80 floats are read before they are written). */
__attribute__((target("avx2,fma"))) static void cc_soa_to_aos(const float *d, float *out, uint32_t n) {
    for (uint32_t j = 0; j < n; j += 8, d += SK_SOA_GROUP_FLOATS, out += SK_SOA_GROUP_FLOATS) {
        float part[SK_SOA_GROUP_FLOATS];
        float *o = n - j >= 8 ? out : part; /* a last, partial group through part */
        __m256 r[8];
        for (int k = 0; k < 8; k++) r[k] = _mm256_loadu_ps(d + 8 * k);
        __m256 sy = _mm256_loadu_ps(d + 64), sz = _mm256_loadu_ps(d + 72);
        skk_tr8_avx2(r); /* r[l]: joint l's t, r and s.x */
        __m256 lo = _mm256_unpacklo_ps(sy, sz), hi = _mm256_unpackhi_ps(sy, sz); /* (y, z) of joints 0 1 4 5, 2 3 6 7 */
        for (int l = 0; l < 8; l++) _mm256_storeu_ps(o + 10 * l, r[l]);
        __m128 a = _mm256_castps256_ps128(lo), b = _mm256_extractf128_ps(lo, 1), c = _mm256_castps256_ps128(hi),
               e = _mm256_extractf128_ps(hi, 1);
        _mm_storel_pi((__m64 *)(void *)(o + 8), a), _mm_storeh_pi((__m64 *)(void *)(o + 18), a);
        _mm_storel_pi((__m64 *)(void *)(o + 28), c), _mm_storeh_pi((__m64 *)(void *)(o + 38), c);
        _mm_storel_pi((__m64 *)(void *)(o + 48), b), _mm_storeh_pi((__m64 *)(void *)(o + 58), b);
        _mm_storel_pi((__m64 *)(void *)(o + 68), e), _mm_storeh_pi((__m64 *)(void *)(o + 78), e);
        if (o == part) memcpy(out, part, (n - j) * 10 * sizeof(float));
    }
}
#endif

/* sk_cclip_rest_soa's rows of one path (n of them) from the rest pose r, the
 * lanes of constant tracks from the plan's rows cv; none where the clip's
 * animated tracks write every lane (cover 0xff). Row stores of 32 bytes, that
 * the decoders' loads of a row they blend into can take as they are. */
/* Group g's constant lanes (bit 8 p + l) and rows (*cv; else left as it is), from the entry
 * at *e of the plan's constant groups (in group order; *e moves past g's). */
static inline uint32_t cc_cgroup(const sk_clip *c, const uint32_t **e, uint32_t g, const float **cv) {
    if (*e == c->cc.cgroups + (size_t)CC_CGROUP_WORDS * c->cc.ncgroups || (*e)[0] != g) return 0;
    uint32_t cm = (*e)[1];
    *cv = (const float *)(const void *)(*e + 2);
    *e += CC_CGROUP_WORDS;
    return cm;
}

#if defined(SK_CC_AVX2)
__attribute__((target("avx2"), always_inline)) static inline void cc_rest_path(float *o, const float *r, const float *cv, uint32_t lanes,
                                                                              uint32_t cover, int n) {
    if (lanes) {
        const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
        __m256 k = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)lanes), bit), bit));
        for (int q = 0; q < n; q++) _mm256_storeu_ps(o + 8 * q, _mm256_blendv_ps(_mm256_loadu_ps(r + 8 * q), _mm256_loadu_ps(cv + 8 * q), k));
    } else if (cover != 0xffu)
        for (int q = 0; q < n; q++) _mm256_storeu_ps(o + 8 * q, _mm256_loadu_ps(r + 8 * q));
}
__attribute__((target("avx2"))) static void cc_rest_rows_avx2(const sk_clip *c, const float *rest_soa, float *data, uint32_t cg) {
    const uint32_t *e = c->cc.cgroups;
    for (uint32_t g = 0; g < cg; g++) {
        const float *r = rest_soa + (size_t)g * SK_SOA_GROUP_FLOATS, *cv = r;
        float *o = data + (size_t)g * SK_SOA_GROUP_FLOATS;
        uint32_t m = c->cc.gcover[g], cm = cc_cgroup(c, &e, g, &cv);
        cc_rest_path(o, r, cv, cm & 0xffu, m & 0xffu, 3);
        cc_rest_path(o + 24, r + 24, cv + 24, cm >> 8 & 0xffu, m >> 8 & 0xffu, 4);
        cc_rest_path(o + 56, r + 56, cv + 56, cm >> 16 & 0xffu, m >> 16 & 0xffu, 3);
    }
}
#endif

void sk_cclip_rest_soa(const sk_clip *c, const float *rest_soa, float *data, uint32_t groups) {
    uint32_t cg = (c->joint_span + 7u) / 8u;
    if (cg > groups) cg = groups;
#if defined(SK_CC_AVX2)
    if (c->cc.rest_avx2) cc_rest_rows_avx2(c, rest_soa, data, cg);
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
    cc_cursor s0, s1;
    float u;
    if (J <= CC_POSE_JOINTS) {
        float d[CC_POSE_JOINTS / 8 * SK_SOA_GROUP_FLOATS] __attribute__((aligned(32)));
        sk_cclip_rest_soa(c, s->rest_soa, d, G);
        uint32_t k0 = cc_frames(c, tw, &s0, &s1, &u);
        cc_sample_rows(c, &s0, &s1, u, NULL, d, cache, k0);
        cc_soa_to_aos(d, (float *)(void *)local, J);
        return true;
    }
    if (c->joint_span > full * SK_SOA_LANES) return false;
    float *d = (float *)(void *)local;
    sk_cclip_rest_soa(c, s->rest_soa, d, full);
    uint32_t k0 = cc_frames(c, tw, &s0, &s1, &u);
    cc_sample_rows(c, &s0, &s1, u, NULL, d, cache, k0);
    cc_soa_to_aos(d, d, full * SK_SOA_LANES);
    if (J > full * SK_SOA_LANES)
        memcpy(local + full * SK_SOA_LANES, s->rest + full * SK_SOA_LANES, (J - full * SK_SOA_LANES) * sizeof(sk_transform));
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
        cc_cursor s0, s1;
        float u;
        uint32_t k0 = cc_frames(c, tw, &s0, &s1, &u);
        if (c->cc.rrows) cc_sample_rows(c, &s0, &s1, u, NULL, soa, cache, k0);
        else if (sk_cclip_avx512_available()) cc_sample_avx512(c, &s0, &s1, u, NULL, soa, cache, k0);
        else cc_sample_avx2(c, &s0, &s1, u, NULL, soa, cache, k0);
        return true;
    }
#endif
    (void)c, (void)tw, (void)cache, (void)soa;
    return false;
}

void sk_cclip_sample_tracks_simd(const sk_clip *c, double tw, uint32_t *cache, sk_transform *local, int level) {
    cc_cursor s0, s1;
    float u;
    uint32_t k0 = cc_frames(c, tw, &s0, &s1, &u);
    (void)k0, (void)cache;
    bool same = s0.seg == s1.seg;
    uint32_t a = 0;
#if defined(SK_CC_AVX2)
    if (level > SK_CC_SCALAR && sk_cclip_simd_available()) {
        if (level >= SK_CC_ROWS && c->cc.rrows) cc_sample_rows(c, &s0, &s1, u, local, NULL, cache, k0);
        else if (level >= SK_CC_AVX512 && sk_cclip_avx512_available()) cc_sample_avx512(c, &s0, &s1, u, local, NULL, cache, k0);
        else cc_sample_avx2(c, &s0, &s1, u, local, NULL, cache, k0);
        return;
    }
#endif
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
}

bool sk_cclip_track_keys(const sk_clip *c, uint32_t ti, float *times, float *values) {
    uint32_t N = c->cc.frames;
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
