/* The compressed kind of sk_clip: a blob (layout in clip_internal.h) checked
 * once at load and then sampled in place, two frames per call, without
 * decompressing the clip. Written by core/compress.c. */
#include "core/clip_internal.h"
#include "core/math_inline.h"

#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>
#endif

static sk_result bad(sk_error *err, const char *what) {
    return sk_error_set(err, SK_ERR_INVALID_DATA, "compressed clip: %s", what);
}

static bool finite_in(float v, float lim) { return sk_isfinite_f(v) && v >= -lim && v <= lim; }

/* Every offset and count is checked against the blob before it is used;
 * afterwards sampling reads nothing outside it. */
static sk_result check_blob(const uint8_t *b, size_t size, sk_error *err) {
    if (size < SK_CC_HEADER + 8) return bad(err, "shorter than its header");
    if (sk_cc_u32(b) != SK_CC_MAGIC) return bad(err, "bad magic");
    if (sk_cc_u32(b + 4) != SK_CC_VERSION) return sk_error_set(err, SK_ERR_UNSUPPORTED, "compressed clip: version %u", sk_cc_u32(b + 4));
    if (sk_cc_u32(b + 8) != size) return bad(err, "size does not match its header");
    uint32_t N = sk_cc_u32(b + 12), T = sk_cc_u32(b + 24), A = sk_cc_u32(b + 28), S = sk_cc_u32(b + 32),
             L = sk_cc_u32(b + 36);
    float rate = sk_cc_f32(b + 16), dur = sk_cc_f32(b + 20);
    if (N == 0 || L == 0 || L > 4096 || A > T || T > 4u * SK_MAX_JOINTS) return bad(err, "bad counts");
    if (S != (N - 1) / L + 1) return bad(err, "segment count does not match the frames");
    if (!finite_in(dur, 1e30f) || dur < 0.0f) return bad(err, "bad duration");
    if (!finite_in(rate, 1e30f) || !(rate > 0.0f)) return bad(err, "bad sample rate");
    if (N > 1 && !(dur > 0.0f)) return bad(err, "frames without a duration");
    uint32_t ot = sk_cc_u32(b + 40), oc = sk_cc_u32(b + 44), orr = sk_cc_u32(b + 48), os = sk_cc_u32(b + 52);
    uint64_t lim = size - 8;
    if (ot < SK_CC_HEADER || (uint64_t)ot + 8ull * T > lim) return bad(err, "track table outside the blob");
    if ((uint64_t)oc + 16ull * (T - A) > lim) return bad(err, "constants outside the blob");
    if ((uint64_t)orr + 32ull * A > lim) return bad(err, "ranges outside the blob");
    if ((uint64_t)os + 4ull * S > lim) return bad(err, "segment table outside the blob");
    uint32_t na = 0, nc = 0, pj = 0, pp = 0;
    for (uint32_t i = 0; i < T; i++) {
        const uint8_t *t = b + ot + 8u * i;
        uint32_t j = sk_cc_u32(t), path = t[4], anim = t[5];
        if (j >= SK_MAX_JOINTS || path > SK_PATH_SCALE || anim > 1 || t[6] || t[7]) return bad(err, "bad track");
        if (i > 0 && (j < pj || (j == pj && path <= pp))) return bad(err, "tracks not sorted");
        pj = j, pp = path;
        if (anim ? na >= A : nc >= T - A) return bad(err, "animated track count does not match"); /* found by fuzz_skc */
        if (anim) {
            const uint8_t *r = b + orr + 32u * na++;
            for (int k = 0; k < 8; k++) {
                float v = sk_cc_f32(r + 4 * k);
                if (!finite_in(v, path == SK_PATH_ROTATION ? 2.0f : 1e30f) || (k >= 4 && v < 0.0f))
                    return bad(err, "bad range");
            }
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
    if (na != A) return bad(err, "animated track count does not match");
    uint64_t prev_end = 0;
    for (uint32_t s = 0; s < S; s++) {
        uint64_t o = sk_cc_u32(b + os + 4u * s);
        if (o < prev_end || o < SK_CC_HEADER || o + 4 + 7ull * A > lim) return bad(err, "segment outside the blob");
        const uint8_t *seg = b + o;
        uint64_t F = 0;
        for (uint32_t i = 0, a = 0; i < T; i++) {
            const uint8_t *t = b + ot + 8u * i;
            if (!t[5]) continue;
            uint8_t v = seg[4 + a++];
            if (v >> 6 || (t[4] != SK_PATH_ROTATION && v >> 4 != 3)) return bad(err, "bad bit rate");
            F += 3u * SK_CC_BITS[v & 15u];
        }
        if (F != sk_cc_u32(seg)) return bad(err, "bits per frame do not match the bit rates");
        uint64_t frames = s + 1 < S ? L : N - (uint64_t)s * L;
        uint64_t end = o + 4 + 7ull * A + (frames * F + 7) / 8;
        if (end > lim) return bad(err, "segment data outside the blob");
        prev_end = end;
    }
    return SK_OK;
}

sk_result sk_clip_from_compressed(const char *name, const void *data, size_t size, bool copy, const sk_allocator *alloc,
                                  sk_clip **out, sk_error *err) {
    if (!out || (!data && size)) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_from_compressed: NULL argument");
    *out = NULL;
    if (size > UINT32_MAX) return bad(err, "larger than 4 GiB");
    sk_result r = check_blob(data, size, err);
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
    memcpy(c->name, name, nl);
    b = c->blob;
    c->cc.frames = sk_cc_u32(b + 12);
    c->cc.rate = sk_cc_f32(b + 16);
    c->duration = sk_cc_f32(b + 20);
    c->cc.anim = sk_cc_u32(b + 28);
    c->cc.segments = sk_cc_u32(b + 32);
    c->cc.seg_len = sk_cc_u32(b + 36);
    c->cc.consts = b + sk_cc_u32(b + 44);
    c->cc.ranges = b + sk_cc_u32(b + 48);
    c->cc.segtab = b + sk_cc_u32(b + 52);
    const uint8_t *tt = b + sk_cc_u32(b + 40);
    uint32_t na = 0, nc = 0, span = 0;
    for (uint32_t i = 0; i < T; i++) {
        sk_track *t = &c->tracks[i];
        t->joint = sk_cc_u32(tt + 8u * i);
        t->path = tt[8u * i + 4];
        t->interp = SK_INTERP_LINEAR;
        t->pad_ = tt[8u * i + 5];
        t->key_count = c->cc.frames;
        t->width = t->path == SK_PATH_ROTATION ? 4u : 3u;
        t->value_offset = t->pad_ ? na++ : nc++;
        if (t->joint + 1 > span) span = t->joint + 1;
    }
    c->joint_span = span;
    *out = c;
    return SK_OK;
}

void sk_cclip_release(sk_clip *c) {
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
} cc_cursor;

static inline void cc_at(const sk_clip *c, uint32_t k, cc_cursor *s) {
    uint32_t si = k / c->cc.seg_len, i = k - si * c->cc.seg_len, A = c->cc.anim;
    const uint8_t *seg = c->blob + sk_cc_u32(c->cc.segtab + 4u * si);
    s->seg = seg;
    s->rates = seg + 4;
    s->ranges = seg + 4 + A;
    s->bits = seg + 4 + 7u * A;
    s->pos = (uint64_t)i * sk_cc_u32(seg);
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
        x[k] = off + sc * (float)cc_bits(s->bits, s->pos, mask);
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
        x0[k] = off + sc * (float)cc_bits(s0->bits, s0->pos, mask);
        x1[k] = off + sc * (float)cc_bits(s1->bits, s1->pos, mask);
        s0->pos += b;
        s1->pos += b;
    }
    sk_cc_place(o0, x0, d, rot);
    sk_cc_place(o1, x1, d, rot);
}

static inline void cc_range(const sk_clip *c, uint32_t a, float *range) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(range, c->cc.ranges + 32u * a, 32);
#else
    for (int k = 0; k < 8; k++) range[k] = sk_cc_f32(c->cc.ranges + 32u * a + 4u * k);
#endif
}

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

/* Rotations decoded in a chunk are interpolated four at a time (SSE2): the
 * same operations in the same order as sk_cc_qlerp, so the results are the
 * ones the compressor measured; lanes that need slerp take sk_cc_qlerp. */
enum { CC_CHUNK = 64 };

static void cc_qlerp_chunk(float (*q0)[4], float (*q1)[4], sk_quat **dst, uint32_t n, float u) {
    uint32_t i = 0;
#if defined(__SSE2__)
    const __m128 vu = _mm_set1_ps(u), one = _mm_set1_ps(1.0f), mone = _mm_set1_ps(-1.0f), zero = _mm_setzero_ps();
    const __m128 lim = _mm_set1_ps(SK_CC_NLERP_DOT);
    for (; i + 4 <= n; i += 4) {
        __m128 ax = _mm_loadu_ps(q0[i]), ay = _mm_loadu_ps(q0[i + 1]), az = _mm_loadu_ps(q0[i + 2]), aw = _mm_loadu_ps(q0[i + 3]);
        __m128 bx = _mm_loadu_ps(q1[i]), by = _mm_loadu_ps(q1[i + 1]), bz = _mm_loadu_ps(q1[i + 2]), bw = _mm_loadu_ps(q1[i + 3]);
        _MM_TRANSPOSE4_PS(ax, ay, az, aw);
        _MM_TRANSPOSE4_PS(bx, by, bz, bw);
        __m128 d = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(ax, bx), _mm_mul_ps(ay, by)), _mm_mul_ps(az, bz)),
                              _mm_mul_ps(aw, bw));
        __m128 neg = _mm_cmplt_ps(d, zero);
        __m128 sg = _mm_or_ps(_mm_and_ps(neg, mone), _mm_andnot_ps(neg, one));
        int far = u != 0.0f ? _mm_movemask_ps(_mm_cmplt_ps(_mm_mul_ps(d, sg), lim)) : 0;
        __m128 x = _mm_add_ps(ax, _mm_mul_ps(_mm_sub_ps(_mm_mul_ps(sg, bx), ax), vu));
        __m128 y = _mm_add_ps(ay, _mm_mul_ps(_mm_sub_ps(_mm_mul_ps(sg, by), ay), vu));
        __m128 z = _mm_add_ps(az, _mm_mul_ps(_mm_sub_ps(_mm_mul_ps(sg, bz), az), vu));
        __m128 w = _mm_add_ps(aw, _mm_mul_ps(_mm_sub_ps(_mm_mul_ps(sg, bw), aw), vu));
        __m128 l2 = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(x, x), _mm_mul_ps(y, y)), _mm_mul_ps(z, z)), _mm_mul_ps(w, w));
        __m128 inv = _mm_div_ps(one, _mm_sqrt_ps(l2));
        x = _mm_mul_ps(x, inv), y = _mm_mul_ps(y, inv), z = _mm_mul_ps(z, inv), w = _mm_mul_ps(w, inv);
        _MM_TRANSPOSE4_PS(x, y, z, w);
        __m128 r[4] = {x, y, z, w};
        for (int k = 0; k < 4; k++) {
            if (far >> k & 1) *dst[i + k] = sk_cc_qlerp(q0[i + k], q1[i + k], u);
            else _mm_storeu_ps(&dst[i + k]->x, r[k]);
        }
    }
#endif
    for (; i < n; i++) *dst[i] = sk_cc_qlerp(q0[i], q1[i], u);
}

void sk_cclip_sample_tracks(const sk_clip *c, double tw, sk_transform *local) {
    uint32_t N = c->cc.frames, k0;
    double f = tw * (double)c->cc.rate;
    float u;
    if (!(f > 0.0)) k0 = 0, u = 0.0f;
    else if (f >= (double)(N - 1)) k0 = N - 1, u = 0.0f;
    else {
        k0 = (uint32_t)f;
        u = (float)(f - (double)k0);
    }
    uint32_t k1 = k0 + 1 < N ? k0 + 1 : k0;
    cc_cursor s0, s1;
    cc_at(c, k0, &s0);
    cc_at(c, k1, &s1);
    bool same = s0.seg == s1.seg;
    uint32_t a = 0, nq = 0;
    float q0[CC_CHUNK][4], q1[CC_CHUNK][4];
    sk_quat *dst[CC_CHUNK];
    for (uint32_t i = 0; i < c->track_count; i++) {
        const sk_track *t = &c->tracks[i];
        sk_transform *x = &local[t->joint];
        if (!t->pad_) {
            cc_const(c, t, x);
            continue;
        }
        float range[8], v0[4], v1[4];
        bool rot = t->path == SK_PATH_ROTATION;
        cc_range(c, a, range);
        float *o0 = rot ? q0[nq] : v0, *o1 = rot ? q1[nq] : v1;
        if (same) cc_read2(&s0, &s1, a, range, rot, o0, o1);
        else {
            cc_read(&s0, a, range, rot, o0);
            cc_read(&s1, a, range, rot, o1);
        }
        a++;
        if (rot) {
            dst[nq++] = &x->r;
            if (nq == CC_CHUNK) cc_qlerp_chunk(q0, q1, dst, nq, u), nq = 0;
        } else if (t->path == SK_PATH_TRANSLATION) x->t = sk_cc_vlerp(v0, v1, u);
        else x->s = sk_cc_vlerp(v0, v1, u);
    }
    cc_qlerp_chunk(q0, q1, dst, nq, u);
}

bool sk_cclip_track_keys(const sk_clip *c, uint32_t ti, float *times, float *values) {
    uint32_t N = c->cc.frames;
    if (times)
        for (uint32_t k = 0; k < N; k++)
            times[k] = k + 1 == N && N > 1 ? c->duration : (float)((double)k / (double)c->cc.rate);
    if (!values) return true;
    const sk_track *tr = &c->tracks[ti];
    uint32_t a = 0;
    for (uint32_t i = 0; i < ti; i++) a += c->tracks[i].pad_;
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
