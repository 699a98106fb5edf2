/* The compressed kind of sk_clip: a blob (layout in clip_internal.h, written
 * by the compressor, offline/compress.h) checked once at load, and the plan
 * its decoders read, built from it then; sampled in place, two frames per
 * call, without decompressing the clip (clip_compressed_sample.c). */
#include "core/clip_internal.h"
#include "core/math_inline.h"
#include "core/soa_kernels.h"
#include "skelanim/core/soa.h"

#include <math.h>
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF /* fused multiply-adds only where written (the format's fmaf) */
#endif
#include "core/clip_compressed_internal.h"

/* Clips with fewer animated tracks than this keep the two-track decoder (sk_clip_from_compressed):
 * with the rows decoder of AVX-512 VBMI, and with the one of AVX2. */
enum { CC_ROWS_MIN = 24, CC_ROWS8_MIN = 16 };

static sk_result bad(sk_error *err, const char *what) {
    return sk_error_set(err, SK_ERR_INVALID_DATA, "compressed clip: %s", what);
}

static bool finite_in(float v, float lim) { return sk_isfinite_f(v) && v >= -lim && v <= lim; }

static uint32_t cc_u16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }

/* A track's u32 entry: its joint, path and whether it is animated. */
static uint32_t cc_tjoint(uint32_t w) { return w & ((1u << SK_CC_JOINT_BITS) - 1u); }
static uint32_t cc_tpath(uint32_t w) { return w >> SK_CC_JOINT_BITS & 3u; }
static uint32_t cc_tanim(uint32_t w) { return w >> (SK_CC_JOINT_BITS + 2) & 1u; }
static uint32_t cc_tstep(uint32_t w) { return w >> SK_CC_STEP_BIT & 1u; }

/* A rotation's four values: within the glTF validator's tolerance of a unit
 * quaternion, which the glTF reader applies to rotation keys (|length - 1| <=
 * 0.00769). */
static bool cc_unit(const float *v) {
    float l2 = 0.0f;
    for (int k = 0; k < 4; k++) {
        if (v[k] < -2.0f || v[k] > 2.0f) return false;
        l2 += v[k] * v[k];
    }
    return fabs(sqrt((double)l2) - 1.0) <= 0.00769;
}

/* The step keys (version 5) from offset o, K tracks of the T track entries,
 * checked: each a key count of at least 2, finite increasing times >= 0,
 * finite values (a rotation's unit quaternions), all inside the blob below
 * lim. *end: where they end. */
static sk_result check_steps(const uint8_t *b, uint32_t T, uint64_t o, uint64_t lim, uint64_t *end, sk_error *err) {
    for (uint32_t i = 0; i < T; i++) {
        uint32_t w = sk_cc_u32(b + SK_CC_HEADER + 4u * i);
        if (!cc_tstep(w)) continue;
        uint32_t W = cc_tpath(w) == SK_PATH_ROTATION ? 4u : 3u;
        if (o + 4 > lim) return bad(err, "step keys outside the blob");
        uint32_t n = sk_cc_u32(b + o);
        if (n < 2 || n > SK_CC_MAX_FRAMES) return bad(err, "bad step key count");
        uint64_t ot = o + 4, ov = ot + 4ull * n;
        o = ov + 4ull * W * n;
        if (o > lim) return bad(err, "step keys outside the blob");
        float prev = -1.0f;
        for (uint32_t k = 0; k < n; k++) {
            float t = sk_cc_f32(b + ot + 4ull * k), v[4];
            if (!finite_in(t, 1e30f) || t < 0.0f || !(t > prev)) return bad(err, "bad step key time");
            prev = t;
            for (uint32_t q = 0; q < W; q++)
                if (!finite_in(v[q] = sk_cc_f32(b + ov + 4ull * (W * k + q)), 1e30f)) return bad(err, "bad step key value");
            if (W == 4 && !cc_unit(v)) return bad(err, "step rotation key is not a unit quaternion");
        }
    }
    *end = o;
    return SK_OK;
}

/* The header, the tracks, the constants and the clip ranges checked against
 * the blob before anything is read from them (the segments: cc_segments);
 * *seg0: where the segments start. */
static sk_result check_blob(const uint8_t *b, size_t size, uint64_t *step0, uint64_t *seg0, sk_error *err) {
    if (size < SK_CC_HEADER + 8) return bad(err, "shorter than its header");
    if (sk_cc_u32(b) != SK_CC_MAGIC) return bad(err, "bad magic");
    uint32_t version = sk_cc_u32(b + 4);
    if (version < SK_CC_VERSION_MIN || version > SK_CC_VERSION)
        return sk_error_set(err, SK_ERR_UNSUPPORTED,
                            "compressed clip: version %u, this build reads version%s %u (compress the source again)",
                            version, SK_CC_VERSION_MIN < SK_CC_VERSION ? "s 4 to" : "", SK_CC_VERSION);
    if (sk_cc_u32(b + 8) != size) return bad(err, "size does not match its header");
    uint32_t N = sk_cc_u32(b + 12), T = sk_cc_u32(b + 24), A = sk_cc_u32(b + 28), L = sk_cc_u32(b + 32);
    float rate = sk_cc_f32(b + 16), dur = sk_cc_f32(b + 20);
    if (N == 0 || N > SK_CC_MAX_FRAMES || L == 0 || L > 4096 || A > T || T > 4u * SK_MAX_JOINTS) return bad(err, "bad counts");
    uint32_t K = sk_cc_u32(b + 36); /* step tracks (version 5) */
    if (K > T - A || (K && version < 5)) return bad(err, "bad header");
    if (!finite_in(dur, 1e30f) || dur < 0.0f) return bad(err, "bad duration");
    if (!finite_in(rate, 1e30f) || !(rate > 0.0f)) return bad(err, "bad sample rate");
    if (N > 1 && !(dur > 0.0f)) return bad(err, "frames without a duration");
    uint64_t lim = size - 8, oc = SK_CC_HEADER + 4ull * T, orr = oc + 16ull * (T - A);
    if (orr > lim) return bad(err, "track table outside the blob");
    uint32_t na = 0, nc = 0, pj = 0, pp = 0, nrot = 0, ns = 0;
    for (uint32_t i = 0; i < T; i++) {
        uint32_t w = sk_cc_u32(b + SK_CC_HEADER + 4u * i), j = cc_tjoint(w), path = cc_tpath(w), anim = cc_tanim(w);
        if (w >> (SK_CC_STEP_BIT + 1) || j >= SK_MAX_JOINTS || path > SK_PATH_SCALE) return bad(err, "bad track");
        if (cc_tstep(w) && (anim || ++ns > K)) return bad(err, "bad step track");
        if (i > 0 && (j < pj || (j == pj && path <= pp))) return bad(err, "tracks not sorted");
        pj = j, pp = path;
        if (anim ? na >= A : nc >= T - A) return bad(err, "animated track count does not match"); /* found by fuzz_skc */
        if (anim) {
            na++;
            nrot += path == SK_PATH_ROTATION;
        } else {
            const uint8_t *q = b + oc + 16u * nc++;
            float v[4];
            for (int k = 0; k < 4; k++) {
                v[k] = sk_cc_f32(q + 4 * k);
                if (!finite_in(v[k], 1e30f)) return bad(err, "bad constant");
            }
            /* a unit quaternion (cc_unit) */
            if (path == SK_PATH_ROTATION && !cc_unit(v))
                return sk_error_set(err, SK_ERR_INVALID_DATA,
                                    "compressed clip: constant rotation of joint %u is not a unit quaternion "
                                    "(length %g)", j, sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2] + (double)v[3] * v[3]));
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
    if (ns != K) return bad(err, "step track count does not match");
    *step0 = rr;
    sk_result sr = check_steps(b, T, rr, lim, &rr, err);
    if (sr != SK_OK) return sr;
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

/* The clip, its name, its tracks' array and the blob (a copy of data when
 * copy) allocated and filled in but for the tracks; NULL when out of memory
 * (then nothing is left allocated). */
static sk_clip *cc_clip_new(const char *name, const void *data, size_t size, bool copy, const sk_allocator *a) {
    sk_clip *c = sk_alloc(a, sizeof *c);
    if (!c) return NULL;
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
        return NULL;
    }
    return c;
}

/* The header's fields and the tracks from the (checked) blob: per track its
 * joint, path, whether it is animated (pad_) and its value_offset (a constant
 * track's index among the constants, an animated track's place in the data
 * order); the clip's joint span. Returns the animated rotations' count. */
static uint32_t cc_read_tracks(sk_clip *c, uint64_t step0) {
    const uint8_t *b = c->blob;
    uint32_t T = c->track_count;
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
    const uint8_t *tt = b + SK_CC_HEADER;
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
        if (cc_tstep(w)) { /* its keys (checked): count, times, values */
            t->interp = SK_INTERP_STEP;
            t->key_count = sk_cc_u32(b + step0);
            t->time_offset = (size_t)step0 + 4u;
            step0 += 4u + 4ull * t->key_count * (1u + t->width);
            c->cc.steps++;
        }
        if (!t->pad_) t->value_offset = nc++;
        nrot += t->pad_ && t->path == SK_PATH_ROTATION;
        if (t->joint + 1 > span) span = t->joint + 1;
    }
    /* an animated track's value_offset: its place in the data order (the rotations, then the others) */
    for (uint32_t i = 0, ar = 0, av = nrot; i < T; i++)
        if (c->tracks[i].pad_) c->tracks[i].value_offset = c->tracks[i].path == SK_PATH_ROTATION ? ar++ : av++;
    c->joint_span = span;
    return nrot;
}

/* The plan (sk_clip_from_compressed): the clip ranges as floats (A x 8:
 * minima x,y,z,w then the extents per 1/255 step, sk_cc_ext255; a 64-byte
 * alignment of them measured no faster); the segments' offsets and bits per
 * frame (S x 2 when A > 0); for the AVX2 decoder per animated track its slot
 * in its chunk's decoded values (rotations from 0, translations/scales from
 * CC_XV); the rotations' joints; the translations'/scales' joints (x2, +1 for
 * a scale); the constant tracks; per chunk of CC_CHUNK animated tracks, its
 * rotation count; per constant track its place in a pose's sk_transform
 * array (in floats, CC_CONST_ROT set for a rotation) and its four values, so
 * that a sample writes each with one or two stores (CC_CONST_WORDS words
 * each); on a CPU with AVX2 and FMA (and 16 animated tracks or more) per
 * block of sixteen animated tracks their clip ranges as rows (128 floats:
 * minima x, y, z, w then extents, a lane per track) and then a rotation mask
 * per block; last, per group of eight joints of the span, which joints have
 * a track of each path (8 bits per path). The animated tracks are in data
 * order (the blob's: rotations first). Its parts' counts: */
typedef struct cc_layout {
    uint32_t T, A, S, chunks;
    uint32_t blocks;  /* of sixteen animated tracks (the rows decoder's) */
    uint32_t groups;  /* of eight joints up to the span */
    uint32_t rblocks; /* of eight rotations, each chunk's from its first (cc.rplace) */
    uint32_t ncg;     /* groups that hold a constant track (cc.cgroups) */
    uint32_t *cmark;  /* per group: its number among those + 1, else 0; NULL without constant tracks */
    bool rows;        /* the rows decoder's part */
} cc_layout;

/* The plan's counts and size (c->cc.plan_words) for a clip of nrot animated
 * rotations; false when out of memory (for cmark). */
static bool cc_plan_layout(sk_clip *c, uint32_t nrot, cc_layout *p) {
    uint32_t T = c->track_count, A = c->cc.anim, chunks = (A + CC_CHUNK - 1) / CC_CHUNK, S = A ? c->cc.segments : 0;
    /* the rows decoder's clip ranges and rotation masks: only on a CPU that has it */
    uint32_t blocks = (A + 15u) / 16u, groups = (c->joint_span + 7u) / 8u;
    /* the rows decoder of AVX-512 VBMI pays per block of sixteen tracks: below CC_ROWS_MIN
     * animated tracks the two-track decoder is faster (the mannequin's 18: 7.6 against 8.4-8.8 ns
     * per joint); the one of AVX2 pays per eight, and is the faster from CC_ROWS8_MIN, on a CPU
     * with VBMI too (the mannequin's 18: 7.8 against 8.0 at --simd avx2; with VBMI, 6.7 against
     * 6.9 in sk_pose form and the same in SoA form, the crowd with cursor caches 3 % faster):
     * from CC_ROWS8_MIN the rows, and the VBMI decoder for them from CC_ROWS_MIN (rows_vbmi) */
    bool rows = sk_cclip_simd_available() && A >= CC_ROWS8_MIN;
    /* blocks of eight rotations: each chunk's from its first (the rotations come first in data order) */
    uint32_t rblocks = 0;
    for (uint32_t k = 0; k < chunks; k++) {
        uint32_t from = k * CC_CHUNK, nrk = nrot > from ? (nrot - from < CC_CHUNK ? nrot - from : CC_CHUNK) : 0;
        rblocks += (nrk + 7u) / 8u;
    }
    /* the groups that hold a constant track, numbered in group order (cmark[g]: its number + 1) */
    uint32_t ncg = 0, *cmark = T > A ? sk_alloc(&c->alloc, (size_t)groups * sizeof(uint32_t)) : NULL;
    if (T > A && !cmark) return false;
    for (uint32_t i = 0; i < T && cmark; i++)
        if (!c->tracks[i].pad_ && c->tracks[i].path < 3) cmark[c->tracks[i].joint / 8u] = 1;
    for (uint32_t g = 0; g < groups && cmark; g++)
        if (cmark[g]) cmark[g] = ++ncg;
    c->cc.plan_words = 8u * (size_t)A + 2u * (size_t)S + (size_t)A + A + (T - A) + chunks + (size_t)CC_CONST_WORDS * (T - A) +
                       (rows ? 129u * (size_t)blocks : 0) + (size_t)CC_PLACE_WORDS * rblocks + (size_t)CC_CGROUP_WORDS * ncg +
                       groups;
    p->T = T, p->A = A, p->S = S, p->chunks = chunks, p->blocks = blocks, p->groups = groups;
    p->rblocks = rblocks, p->ncg = ncg, p->cmark = cmark, p->rows = rows;
    return true;
}

/* The plan's parts in the order above (the plan zero-filled). */
static float *cc_plan_ranges(const sk_clip *c) { return (float *)(void *)c->cc.plan; }
static uint32_t *cc_plan_segtab(const sk_clip *c, const cc_layout *p) { return c->cc.plan + 8u * (size_t)p->A; }
static uint32_t *cc_plan_slots(const sk_clip *c, const cc_layout *p) { return cc_plan_segtab(c, p) + 2u * (size_t)p->S; }
static uint32_t *cc_plan_cons(const sk_clip *c, const cc_layout *p) { return cc_plan_slots(c, p) + 2u * (size_t)p->A; }
static uint32_t *cc_plan_cnr(const sk_clip *c, const cc_layout *p) { return cc_plan_cons(c, p) + (p->T - p->A); }

/* The constant tracks: their indices (cons) and per track its place and values. */
static void cc_plan_constants(sk_clip *c, const cc_layout *p) {
    uint32_t T = p->T, chunks = p->chunks, *cons = cc_plan_cons(c, p), *cnr = cc_plan_cnr(c, p), ncon = 0;
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
}

/* The animated tracks in data order (the rotations, then the translations
 * and scales): their clip ranges as floats, their slots, their joints and
 * each chunk's rotation count. */
static void cc_plan_animated(sk_clip *c, const cc_layout *p) {
    uint32_t T = p->T, A = p->A, *slot = cc_plan_slots(c, p), *rj = slot + A, *cnr = cc_plan_cnr(c, p);
    uint32_t *tj = rj + c->cc.rots, nr = 0, nv = 0, ai = 0;
    float *ranges = cc_plan_ranges(c);
    const uint8_t *rb = c->cc.consts + 16u * (T - A);
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
}

/* The groups' coverage, at the plan's end: per group and path the joints that
 * have a track; before it the constant groups' rows, and before them the
 * rotation blocks' placement. */
static void cc_plan_groups(sk_clip *c, const cc_layout *p) {
    uint32_t T = p->T, A = p->A, groups = p->groups, ncg = p->ncg, chunks = p->chunks;
    const uint32_t *cmark = p->cmark, *slot = cc_plan_slots(c, p), *cons = cc_plan_cons(c, p), *cnr = cc_plan_cnr(c, p);
    uint32_t *gc = c->cc.plan + c->cc.plan_words - groups;
    for (uint32_t i = 0; i < T; i++)
        if (c->tracks[i].path < 3) gc[c->tracks[i].joint / 8u] |= 1u << (8u * c->tracks[i].path + c->tracks[i].joint % 8u);
    c->cc.gcover = gc;
    uint32_t *cg = gc - (size_t)CC_CGROUP_WORDS * ncg, *pl = cg - (size_t)CC_PLACE_WORDS * p->rblocks;
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

/* The rows decoder's part (where p->rows): the clip ranges as rows and the
 * rotation masks, unless a segment's bits reach 2^31 (the decoder reads bit
 * positions as 32-bit lanes); whether whole poses go through SoA groups. */
static void cc_plan_rows(sk_clip *c, const cc_layout *p) {
    uint32_t T = p->T, A = p->A, S = p->S, chunks = p->chunks, blocks = p->blocks, R = c->cc.rots;
    const uint32_t *segtab = c->cc.segtab, *cnr = cc_plan_cnr(c, p);
    const float *ranges = c->cc.ranges;
    bool rows = p->rows;
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
        c->cc.rrows = rr, c->cc.rmask = rm, c->cc.rows_vbmi = sk_cclip_rows_available() && A >= CC_ROWS_MIN;
        /* whole poses through SoA groups where most joints have two animated tracks or more
         * (the transposes cost less there than the per-joint stores) */
        c->cc.pose_rows = 2u * A >= 3u * c->joint_span;
    }
}

/* The words of a cursor's cache (cc_cache_hit): per chunk its rotations padded to 8 (8 floats each,
 * placed rows) and its other tracks (the decoders' slots, 8 floats each); the rows decoders keep
 * two frames (three in *ahead words), each frame per chunk 4 rows per rotation group of eight and
 * 3 per eight other tracks. */
static uint32_t cc_cache_size(const sk_clip *c, const cc_layout *p, uint32_t *ahead) {
    uint32_t A = p->A, chunks = p->chunks;
    const uint32_t *cnr = cc_plan_cnr(c, p);
    size_t cslots = 0, crow = 0;
    for (uint32_t k = 0; k < chunks; k++) {
        uint32_t n = A - k * CC_CHUNK < CC_CHUNK ? A - k * CC_CHUNK : CC_CHUNK, r8 = (cnr[k] + 7u) & ~7u, v8 = (n - cnr[k] + 7u) & ~7u;
        cslots += 8u * (r8 + (n - cnr[k]));
        crow += 4u * r8 + 3u * v8;
    }
    size_t two = cslots > 2u * crow ? cslots : 2u * crow, three = cslots > 3u * crow ? cslots : 3u * crow;
    *ahead = CC_CACHE_HEADER + (uint32_t)(p->rows ? three : two);
    return CC_CACHE_HEADER + (uint32_t)two;
}

sk_result sk_clip_from_compressed(const char *name, const void *data, size_t size, bool copy, const sk_allocator *alloc,
                                  sk_clip **out, sk_error *err) {
    if (!out || (!data && size)) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_from_compressed: NULL argument");
    *out = NULL;
    if (size > UINT32_MAX) return bad(err, "larger than 4 GiB");
    uint64_t seg0 = 0, step0 = 0;
    sk_result r = check_blob(data, size, &step0, &seg0, err);
    if (r != SK_OK) return r;
    const sk_allocator *a = sk_allocator_or_default(alloc);
    sk_clip *c = cc_clip_new(name, data, size, copy, a);
    if (!c) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    uint32_t nrot = cc_read_tracks(c, step0);
    cc_layout p;
    if (!cc_plan_layout(c, nrot, &p)) {
        sk_clip_destroy(c);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    c->cc.plan = sk_alloc(a, c->cc.plan_words * sizeof(uint32_t));
    if (!c->cc.plan) {
        c->cc.plan_words = 0;
        if (p.cmark) sk_free(a, p.cmark, (size_t)p.groups * sizeof(uint32_t));
        sk_clip_destroy(c);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    uint32_t A = p.A, T = p.T, *segtab = cc_plan_segtab(c, &p), *slot = cc_plan_slots(c, &p);
    c->cc.ranges = cc_plan_ranges(c);
    c->cc.segtab = segtab;
    c->cc.slots = slot;
    uint32_t R = 0;
    for (uint32_t i = 0; i < T; i++) R += c->tracks[i].pad_ && c->tracks[i].path == SK_PATH_ROTATION;
    c->cc.rots = R;
    cc_plan_constants(c, &p);
    cc_plan_animated(c, &p);
    cc_plan_groups(c, &p);
    if (p.cmark) sk_free(a, p.cmark, (size_t)p.groups * sizeof(uint32_t));
    if (A && (r = cc_segments(c, seg0, slot, segtab, err)) != SK_OK) {
        sk_clip_destroy(c);
        return r;
    }
    if (p.rows) cc_plan_rows(c, &p);
    c->cc.cache_words = cc_cache_size(c, &p, &c->cc.ahead_words);
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
