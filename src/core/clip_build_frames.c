/* The clip builder's frame-major writer (sk_clip_frames in clip_internal.h):
 * the layout of a clip whose tracks are all LINEAR on the same key times,
 * and the keys written into it eight joints per row block, by the four- and
 * eight-lane writers where they can. */
#include "core/math_inline.h"
#include "core/clip_build_internal.h"
#include "core/soa_kernels.h"

#include <math.h>
#include <stdlib.h>

void sk_clip_frames_free(const sk_allocator *a, sk_clip_frames *f) {
    if (!f) return;
    sk_free(a, f->data_raw, f->data_bytes);
    sk_free(a, f->blocks, (size_t)f->tracks * sizeof(sk_frame_block));
    sk_free(a, f->track_block, (size_t)f->tracks * sizeof(uint32_t));
    sk_free(a, f, sizeof *f);
}

static const float frames_identity[3][4] = {{0, 0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1, 0}};

/* Per track during sk_clip_frames_build: its values, where its component 0 sits in
 * a key's frame and the step between its components (8 in a full block's
 * rows, 1 in a compact one), its component count, and whether rotation keys
 * are normalised on the way (as add_track stores them). */
struct frame_src {
    const float *v;
    uint32_t at, step, comps, norm, path;
    sk_key_stats *stats; /* a track added with sk_clip_builder_add_track_ref_stats, else NULL */
};

/* sk_key_stats of a track's values (the tracks frames_quad does not take):
 * the same operations as frames_quad's lanes. */
void sk_clip_key_stats(const float *v, uint32_t n, uint32_t path, sk_key_stats *st) {
    uint32_t bad = 0;
    float lo = st->lo, hi = st->hi;
    uint32_t w = path == SK_PATH_ROTATION ? 4u : 3u;
    for (uint32_t k = 0; k < n; k++, v += w) {
        for (uint32_t c = 0; c < w; c++) {
            uint32_t u;
            memcpy(&u, v + c, 4);
            bad |= (u & 0x7f800000u) + 0x00800000u;
        }
        if (path == SK_PATH_ROTATION) {
            float l2 = ((v[0] * v[0] + v[1] * v[1]) + v[2] * v[2]) + v[3] * v[3];
            lo = l2 < lo ? l2 : lo, hi = l2 > hi ? l2 : hi;
        } else if (path == SK_PATH_TRANSLATION) {
            float l2 = (v[0] * v[0] + v[1] * v[1]) + v[2] * v[2];
            hi = l2 > hi ? l2 : hi;
        } else {
            for (uint32_t c = 0; c < 3; c++) hi = fabsf(v[c]) > hi ? fabsf(v[c]) : hi;
        }
    }
    st->bad |= bad, st->lo = lo, st->hi = hi;
}

#if defined(SK_SOA_X86)
/* Keys k0..k1-1 of four tracks in lanes 4q..4q+3 of a full block (s[0..3],
 * same path): each key's four elements loaded as they lie, transposed (4x4)
 * and stored as one 4-float piece of each row; rotations normalised with the
 * operations and order of sk_clip_normalize_key (bit for bit; a key whose squared
 * length passes 3e38 goes through sk_clip_normalize_key itself). A translation or
 * scale element is read as 4 floats, so the track's last key (whose 4th
 * float may lie past its array) is copied float by float. */
static inline __attribute__((always_inline)) void frames_quad_body(const struct frame_src *src, const uint32_t *ti,
                                                                    float *data, uint32_t stride, uint32_t k0,
                                                                    uint32_t k1, uint32_t n, float *acc,
                                                                    const bool partial) {
    /* A lane without a track (ti[d] == UINT32_MAX) reads a present lane's
     * keys and stores the identity. */
    uint32_t p = 0;
    while (ti[p] == UINT32_MAX) p++;
    const struct frame_src *s = &src[ti[p]];
    const uint32_t comps = s->comps, norm = s->norm;
    const float *vp[4];
    int keepm[4];
    for (uint32_t d = 0; d < 4; d++) {
        bool has = ti[d] != UINT32_MAX;
        vp[d] = (has ? src[ti[d]].v : s->v) + (size_t)k0 * comps;
        keepm[d] = has ? -1 : 0;
    }
    const __m128 keep = _mm_castsi128_ps(_mm_setr_epi32(keepm[0], keepm[1], keepm[2], keepm[3]));
    const float *idr = frames_identity[s->path];
    float *o = data + (size_t)k0 * stride + (s->at - p); /* lane 0 of the four */
    const float *v0 = vp[0], *v1 = vp[1], *v2 = vp[2], *v3 = vp[3];
    /* key statistics (sk_key_stats) of the tracks, one per lane, when asked for */
    const bool stats = s->stats != NULL;
    const __m128i expo = _mm_set1_epi32(0x7f800000), one = _mm_set1_epi32(0x00800000);
    const __m128 absm = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
    __m128 lo = _mm_setzero_ps(), hi = _mm_setzero_ps();
    __m128i bad = _mm_setzero_si128();
    if (stats) lo = _mm_loadu_ps(acc), hi = _mm_loadu_ps(acc + 4), bad = _mm_loadu_si128((const __m128i *)(void *)(acc + 8));
#define SK_KEEP(v, r) (partial ? _mm_or_ps(_mm_and_ps(keep, v), _mm_andnot_ps(keep, _mm_set1_ps(idr[r]))) : (v))
#define SK_BAD(v) (bad = _mm_or_si128(bad, _mm_add_epi32(_mm_and_si128(_mm_castps_si128(v), expo), one)))
    if (comps == 4) {
        for (uint32_t k = k0; k < k1; k++, o += stride, v0 += 4, v1 += 4, v2 += 4, v3 += 4) {
            __m128 x = _mm_loadu_ps(v0), y = _mm_loadu_ps(v1), z = _mm_loadu_ps(v2), w = _mm_loadu_ps(v3);
            _MM_TRANSPOSE4_PS(x, y, z, w); /* x: the four x components, ... */
            if (norm || stats) {
                __m128 l2 = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(x, x), _mm_mul_ps(y, y)), _mm_mul_ps(z, z)),
                                       _mm_mul_ps(w, w));
                if (stats) {
                    SK_BAD(x), SK_BAD(y), SK_BAD(z), SK_BAD(w);
                    lo = _mm_min_ps(lo, l2), hi = _mm_max_ps(hi, l2);
                }
                if (norm && _mm_movemask_ps(_mm_cmple_ps(l2, _mm_set1_ps(3.0e38f))) != 15) { /* huge (or NaN): one by one */
                    const float *vv[4] = {v0, v1, v2, v3};
                    for (int l = 0; l < 4; l++) {
                        float q[4] = {vv[l][0], vv[l][1], vv[l][2], vv[l][3]};
                        if (keepm[l]) sk_clip_normalize_key(q);
                        else q[0] = q[1] = q[2] = 0.0f, q[3] = 1.0f; /* no track: the identity */
                        o[l] = q[0], o[8 + l] = q[1], o[16 + l] = q[2], o[24 + l] = q[3];
                    }
                    continue;
                }
                if (norm) {
                    __m128 inv = _mm_div_ps(_mm_set1_ps(1.0f), _mm_sqrt_ps(l2));
                    x = _mm_mul_ps(x, inv), y = _mm_mul_ps(y, inv), z = _mm_mul_ps(z, inv), w = _mm_mul_ps(w, inv);
                }
            }
            _mm_storeu_ps(o, SK_KEEP(x, 0)), _mm_storeu_ps(o + 8, SK_KEEP(y, 1)), _mm_storeu_ps(o + 16, SK_KEEP(z, 2));
            _mm_storeu_ps(o + 24, SK_KEEP(w, 3));
        }
    } else {
        const bool length = s->path == SK_PATH_TRANSLATION;
        uint32_t kv = k1 < n ? k1 : n - 1; /* keys read 4 floats at a time */
        uint32_t k = k0;
        for (; k < kv; k++, o += stride, v0 += 3, v1 += 3, v2 += 3, v3 += 3) {
            __m128 x = _mm_loadu_ps(v0), y = _mm_loadu_ps(v1), z = _mm_loadu_ps(v2), w = _mm_loadu_ps(v3);
            _MM_TRANSPOSE4_PS(x, y, z, w);
            _mm_storeu_ps(o, SK_KEEP(x, 0)), _mm_storeu_ps(o + 8, SK_KEEP(y, 1)), _mm_storeu_ps(o + 16, SK_KEEP(z, 2));
            if (stats) {
                SK_BAD(x), SK_BAD(y), SK_BAD(z);
                hi = _mm_max_ps(hi, length ? _mm_add_ps(_mm_add_ps(_mm_mul_ps(x, x), _mm_mul_ps(y, y)), _mm_mul_ps(z, z))
                                           : _mm_max_ps(_mm_max_ps(_mm_and_ps(x, absm), _mm_and_ps(y, absm)),
                                                        _mm_and_ps(z, absm)));
            }
        }
        for (; k < k1; k++, o += stride, v0 += 3, v1 += 3, v2 += 3, v3 += 3) {
            const float *vv[4] = {v0, v1, v2, v3};
            for (int l = 0; l < 4; l++)
                if (keepm[l]) o[l] = vv[l][0], o[8 + l] = vv[l][1], o[16 + l] = vv[l][2];
                else o[l] = idr[0], o[8 + l] = idr[1], o[16 + l] = idr[2]; /* no track: the identity */
            if (stats) { /* the last key: as a vector of lanes, the same operations */
                __m128 x = _mm_setr_ps(v0[0], v1[0], v2[0], v3[0]), y = _mm_setr_ps(v0[1], v1[1], v2[1], v3[1]),
                       z = _mm_setr_ps(v0[2], v1[2], v2[2], v3[2]);
                SK_BAD(x), SK_BAD(y), SK_BAD(z);
                hi = _mm_max_ps(hi, length ? _mm_add_ps(_mm_add_ps(_mm_mul_ps(x, x), _mm_mul_ps(y, y)), _mm_mul_ps(z, z))
                                           : _mm_max_ps(_mm_max_ps(_mm_and_ps(x, absm), _mm_and_ps(y, absm)),
                                                        _mm_and_ps(z, absm)));
            }
        }
    }
#undef SK_BAD
#undef SK_KEEP
    if (stats) _mm_storeu_ps(acc, lo), _mm_storeu_ps(acc + 4, hi), _mm_storeu_si128((__m128i *)(void *)(acc + 8), bad);
}

/* frames_quad on AVX2 (chosen at run time, sk_soa_use_avx2): the eight
 * lanes of a full block (ti[0..7]) at once, lanes l and l + 4 loaded into
 * one register's halves so that the in-lane 4x4 transpose gives a block's
 * rows as they lie. The same operations per lane as frames_quad_body. */
__attribute__((target("avx2"))) static void frames_oct(const struct frame_src *src, const uint32_t *ti, float *data,
                                                       uint32_t stride, uint32_t k0, uint32_t k1, uint32_t n,
                                                       float *acc) {
    uint32_t p = 0;
    while (ti[p] == UINT32_MAX) p++;
    const struct frame_src *s = &src[ti[p]];
    const uint32_t comps = s->comps, norm = s->norm;
    const float *vp[8];
    int keepm[8];
    bool partial = false;
    for (uint32_t d = 0; d < 8; d++) {
        bool has = ti[d] != UINT32_MAX;
        vp[d] = (has ? src[ti[d]].v : s->v) + (size_t)k0 * comps;
        keepm[d] = has ? -1 : 0;
        partial = partial || !has;
    }
    const __m256 keep = _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)(const void *)keepm));
    const float *idr = frames_identity[s->path];
    float *o = data + (size_t)k0 * stride + (s->at - p); /* lane 0 */
    const bool stats = s->stats != NULL;
    const __m256i expo = _mm256_set1_epi32(0x7f800000), one = _mm256_set1_epi32(0x00800000);
    const __m256 absm = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    __m256 lo = _mm256_setzero_ps(), hi = _mm256_setzero_ps();
    __m256i bad = _mm256_setzero_si256();
    if (stats)
        lo = _mm256_loadu_ps(acc), hi = _mm256_loadu_ps(acc + 8), bad = _mm256_loadu_si256((const __m256i *)(void *)(acc + 16));
#define SK_KEEP(v, r) (partial ? _mm256_blendv_ps(_mm256_set1_ps(idr[r]), v, keep) : (v))
#define SK_BAD(v) (bad = _mm256_or_si256(bad, _mm256_add_epi32(_mm256_and_si256(_mm256_castps_si256(v), expo), one)))
#define SK_LD(a, b) _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(a)), _mm_loadu_ps(b), 1)
#define SK_T4(r0, r1, r2, r3, X, Y, Z, W)                                                                               \
    do {                                                                                                                \
        __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);                                        \
        __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);                                        \
        X = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)), Y = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2)); \
        Z = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)), W = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2)); \
    } while (0)
    const size_t w = comps;
    if (comps == 4) {
        for (uint32_t k = k0; k < k1; k++, o += stride) {
            size_t at = (size_t)(k - k0) * w;
            __m256 x, y, z, q;
            SK_T4(SK_LD(vp[0] + at, vp[4] + at), SK_LD(vp[1] + at, vp[5] + at), SK_LD(vp[2] + at, vp[6] + at),
                  SK_LD(vp[3] + at, vp[7] + at), x, y, z, q);
            if (norm || stats) {
                __m256 l2 = _mm256_add_ps(
                    _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(x, x), _mm256_mul_ps(y, y)), _mm256_mul_ps(z, z)),
                    _mm256_mul_ps(q, q));
                if (stats) {
                    SK_BAD(x), SK_BAD(y), SK_BAD(z), SK_BAD(q);
                    lo = _mm256_min_ps(lo, l2), hi = _mm256_max_ps(hi, l2);
                }
                if (norm && _mm256_movemask_ps(_mm256_cmp_ps(l2, _mm256_set1_ps(3.0e38f), _CMP_LE_OQ)) != 255) {
                    for (int l = 0; l < 8; l++) { /* huge (or NaN): one by one */
                        const float *v = vp[l] + at;
                        float qq[4] = {v[0], v[1], v[2], v[3]};
                        if (keepm[l]) sk_clip_normalize_key(qq);
                        else qq[0] = qq[1] = qq[2] = 0.0f, qq[3] = 1.0f; /* no track: the identity */
                        o[l] = qq[0], o[8 + l] = qq[1], o[16 + l] = qq[2], o[24 + l] = qq[3];
                    }
                    continue;
                }
                if (norm) {
                    __m256 inv = _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_sqrt_ps(l2));
                    x = _mm256_mul_ps(x, inv), y = _mm256_mul_ps(y, inv), z = _mm256_mul_ps(z, inv), q = _mm256_mul_ps(q, inv);
                }
            }
            _mm256_storeu_ps(o, SK_KEEP(x, 0)), _mm256_storeu_ps(o + 8, SK_KEEP(y, 1));
            _mm256_storeu_ps(o + 16, SK_KEEP(z, 2)), _mm256_storeu_ps(o + 24, SK_KEEP(q, 3));
        }
    } else {
        const bool length = s->path == SK_PATH_TRANSLATION;
        uint32_t kv = k1 < n ? k1 : n - 1; /* keys read 4 floats at a time */
        uint32_t k = k0;
        for (; k < kv; k++, o += stride) {
            size_t at = (size_t)(k - k0) * w;
            __m256 x, y, z, q;
            SK_T4(SK_LD(vp[0] + at, vp[4] + at), SK_LD(vp[1] + at, vp[5] + at), SK_LD(vp[2] + at, vp[6] + at),
                  SK_LD(vp[3] + at, vp[7] + at), x, y, z, q);
            (void)q;
            _mm256_storeu_ps(o, SK_KEEP(x, 0)), _mm256_storeu_ps(o + 8, SK_KEEP(y, 1)), _mm256_storeu_ps(o + 16, SK_KEEP(z, 2));
            if (stats) {
                SK_BAD(x), SK_BAD(y), SK_BAD(z);
                hi = _mm256_max_ps(hi, length ? _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(x, x), _mm256_mul_ps(y, y)),
                                                              _mm256_mul_ps(z, z))
                                              : _mm256_max_ps(_mm256_max_ps(_mm256_and_ps(x, absm), _mm256_and_ps(y, absm)),
                                                              _mm256_and_ps(z, absm)));
            }
        }
        for (; k < k1; k++, o += stride) {
            size_t at = (size_t)(k - k0) * w;
            float xs[8], ys[8], zs[8];
            for (int l = 0; l < 8; l++) {
                const float *v = vp[l] + at;
                xs[l] = v[0], ys[l] = v[1], zs[l] = v[2];
                if (keepm[l]) o[l] = v[0], o[8 + l] = v[1], o[16 + l] = v[2];
                else o[l] = idr[0], o[8 + l] = idr[1], o[16 + l] = idr[2]; /* no track: the identity */
            }
            if (stats) { /* the last key: as a vector of lanes, the same operations */
                __m256 x = _mm256_loadu_ps(xs), y = _mm256_loadu_ps(ys), z = _mm256_loadu_ps(zs);
                SK_BAD(x), SK_BAD(y), SK_BAD(z);
                hi = _mm256_max_ps(hi, length ? _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(x, x), _mm256_mul_ps(y, y)),
                                                              _mm256_mul_ps(z, z))
                                              : _mm256_max_ps(_mm256_max_ps(_mm256_and_ps(x, absm), _mm256_and_ps(y, absm)),
                                                              _mm256_and_ps(z, absm)));
            }
        }
    }
#undef SK_T4
#undef SK_LD
#undef SK_BAD
#undef SK_KEEP
    if (stats)
        _mm256_storeu_ps(acc, lo), _mm256_storeu_ps(acc + 8, hi), _mm256_storeu_si256((__m256i *)(void *)(acc + 16), bad);
}

/* Keys k0..k1-1 of the tracks in lanes 0-3 or 4-7 of a full block. */
static void frames_quad(const struct frame_src *src, const uint32_t *ti, float *data, uint32_t stride, uint32_t k0,
                        uint32_t k1, uint32_t n, float *acc) {
    if (ti[0] != UINT32_MAX && ti[1] != UINT32_MAX && ti[2] != UINT32_MAX && ti[3] != UINT32_MAX)
        frames_quad_body(src, ti, data, stride, k0, k1, n, acc, false);
    else
        frames_quad_body(src, ti, data, stride, k0, k1, n, acc, true);
}
#endif

/* A float of the identity in a lane of a full block that no writer stores. */
struct frame_fill {
    uint32_t at;
    float v;
};

/* Keys k0..k1-1 of one track (one that no four- or eight-lane writer takes). */
static void frames_track(const struct frame_src *sr, float *data, uint32_t stride, uint32_t k0, uint32_t k1) {
    float *o = data + (size_t)k0 * stride + sr->at;
    uint32_t st = sr->step;
    if (sr->comps == 4) {
        const float *v = sr->v + (size_t)k0 * 4u;
        for (uint32_t k = k0; k < k1; k++, v += 4, o += stride) {
            float q[4] = {v[0], v[1], v[2], v[3]};
            if (sr->norm) sk_clip_normalize_key(q);
            o[0] = q[0], o[st] = q[1], o[2 * st] = q[2], o[3 * st] = q[3];
        }
    } else {
        const float *v = sr->v + (size_t)k0 * 3u;
        for (uint32_t k = k0; k < k1; k++, v += 3, o += stride) o[0] = v[0], o[st] = v[1], o[2 * st] = v[2];
    }
}


/* Lazy keys (sk_clip_builder_add_track_ref_lazy) closer than this in the
 * caller's memory are read in one fetch call, the bytes between included. */
#define FB_FETCH_GAP ((size_t)16384)
#define FB_LAZY_CHUNK 256u /* keys written per block at a time (16-64 measured slower, all of them the same) */

/* The identity floats no writer stores, and the padding, of frames k0..k1-1. */
static void frames_fill(sk_clip_frames *f, const struct frame_fill *fill, uint32_t nfill, uint32_t used, uint32_t k0,
                        uint32_t k1) {
    for (uint32_t k = k0; k < k1; k++) {
        float *fr = f->data + (size_t)k * f->stride;
        for (uint32_t x = 0; x < nfill; x++) fr[fill[x].at] = fill[x].v;
        for (uint32_t x = used; x < f->stride; x++) fr[x] = 0.0f;
    }
}

/* From ord[x] on (lazy tracks sorted by address): the end of the run of
 * ranges read in one fetch call (*end: the address past its last byte). */
static uint32_t fetch_run(const struct frame_src *src, const uint32_t *ord, uint32_t m, uint32_t x, uint32_t n,
                          uintptr_t *end) {
    uintptr_t s0 = (uintptr_t)src[ord[x]].v, e0 = s0;
    for (; x < m; x++) {
        uintptr_t s = (uintptr_t)src[ord[x]].v, e = s + (size_t)n * src[ord[x]].comps * sizeof(float);
        if (s > e0 + FB_FETCH_GAP || (s - s0) % sizeof(float)) break;
        if (e > e0) e0 = e;
    }
    *end = e0;
    return x;
}

/* sk_clip_frames_build when some values are fetched: the identity and padding of
 * every frame first, then one joint group at a time (tracks are sorted by
 * joint, so a group's tracks are consecutive): its lazy tracks' keys read
 * into one scratch block, ranges that lie close together in one fetch call
 * (a .glb exporter writes a joint's channels one after another: one read per
 * group), then the group's blocks written over every key from there. The
 * same writers, lanes and operations as the chunked loop: the same bytes. */
static int frames_lazy(const sk_clip *c, const struct clip_ref *refs, sk_clip_frames *f, struct frame_src *src,
                       const uint32_t *quad, uint32_t nq, bool wide, const uint8_t *in_quad,
                       const struct frame_fill *fill, uint32_t nfill, uint32_t used, float *acc, sk_key_fetch_fn fetch,
                       void *fuser) {
    const sk_allocator *a = &c->alloc;
    const uint32_t T = c->track_count, n = f->keys, stride = f->stride;
    frames_fill(f, fill, nfill, used, 0, n);
    uint32_t *ord = sk_realloc_raw(a, NULL, 0, (size_t)T * sizeof *ord);
    if (!ord) return FB_OOM;
    uint8_t *scr = NULL;
    size_t scr_cap = 0;
    int status = FB_OK;
    uint32_t qi = 0;
    for (uint32_t i0 = 0, i1; status == FB_OK && i0 < T; i0 = i1) {
        uint32_t g = c->tracks[i0].joint / 8u;
        for (i1 = i0; i1 < T && c->tracks[i1].joint / 8u == g; i1++) {}
        /* the group's lazy tracks by address (insertion sort: at most 8 joints x 3 paths) */
        uint32_t m = 0;
        for (uint32_t i = i0; i < i1; i++) {
            if (!c->tracks[i].pad_ || !refs[c->tracks[i].time_offset].lazy) continue;
            uint32_t j = m++;
            while (j > 0 && (uintptr_t)src[ord[j - 1]].v > (uintptr_t)src[i].v) ord[j] = ord[j - 1], j--;
            ord[j] = i;
        }
        /* the scratch block: each run of close ranges whole */
        size_t need = 16; /* (the eight-lane writer reads a key as four floats) */
        for (uint32_t x = 0; x < m;) {
            uintptr_t e0, s0 = (uintptr_t)src[ord[x]].v;
            x = fetch_run(src, ord, m, x, n, &e0);
            need += e0 - s0;
        }
        if (m && need > scr_cap) {
            sk_free(a, scr, scr_cap);
            scr_cap = need;
            scr = sk_realloc_raw(a, NULL, 0, scr_cap);
            if (!scr) {
                scr_cap = 0;
                status = FB_OOM;
                break;
            }
        }
        size_t at = 0;
        for (uint32_t x = 0; x < m;) {
            uint32_t x0 = x;
            uintptr_t e0, s0 = (uintptr_t)src[ord[x]].v;
            x = fetch_run(src, ord, m, x, n, &e0);
            if (!fetch(fuser, src[ord[x0]].v, e0 - s0, (float *)(void *)(scr + at))) {
                status = FB_IO;
                break;
            }
            for (uint32_t y = x0; y < x; y++)
                src[ord[y]].v = (const float *)(const void *)(scr + at + ((uintptr_t)src[ord[y]].v - s0));
            at += e0 - s0;
        }
        if (status != FB_OK) break;
        if (m) memset(scr + at, 0, 16);
#if defined(SK_SOA_X86)
        uint32_t q0 = qi; /* the group's full blocks (quads are in track order) */
        for (; qi < nq; qi++) {
            const uint32_t *L = quad + (wide ? 8u : 4u) * qi;
            uint32_t d = 0;
            while (L[d] == UINT32_MAX) d++;
            if (c->tracks[L[d]].joint / 8u != g) break;
        }
        for (uint32_t k0 = 0; k0 < n; k0 += FB_LAZY_CHUNK) {
            uint32_t k1 = n - k0 < FB_LAZY_CHUNK ? n : k0 + FB_LAZY_CHUNK;
            for (uint32_t q = q0; q < qi; q++) {
                if (wide) frames_oct(src, quad + 8u * q, f->data, stride, k0, k1, n, acc + (size_t)24 * q);
                else frames_quad(src, quad + 4u * q, f->data, stride, k0, k1, n, acc + (size_t)24 * q);
            }
        }
#else
        (void)quad, (void)nq, (void)acc, (void)qi, (void)wide;
#endif
        for (uint32_t i = i0; i < i1; i++) {
            if (in_quad[i]) continue;
            if (src[i].stats) sk_clip_key_stats(src[i].v, n, src[i].path, src[i].stats);
            frames_track(&src[i], f->data, stride, 0, n);
        }
    }
    sk_free(a, scr, scr_cap);
    sk_free(a, ord, (size_t)T * sizeof *ord);
    return status;
}

/* Whether the clip qualifies for frame-major keys (clip_internal.h): LINEAR
 * translation, rotation and scale tracks, at least two keys each, all on the
 * same key times, no joint and path twice, no morph weights. */
static bool frames_qualify(const sk_clip *c, const struct clip_ref *refs) {
    uint32_t T = c->track_count;
    if (T == 0 || c->weight_tracks) return false;
    const sk_track *t0 = &c->tracks[0];
    uint32_t n = t0->key_count;
    if (n < 2) return false;
    const float *times0 = sk_clip_fin_times(c, refs, t0);
    for (uint32_t i = 0; i < T; i++) {
        const sk_track *t = &c->tracks[i];
        if (t->interp != SK_INTERP_LINEAR || t->path > SK_PATH_SCALE || t->key_count != n) return false;
        const float *ti = sk_clip_fin_times(c, refs, t);
        if (i && ti != times0 && memcmp(ti, times0, n * sizeof(float)) != 0) return false;
        if (i && t->joint == c->tracks[i - 1].joint && t->path == c->tracks[i - 1].path) return false; /* a duplicate */
        if (t->joint / 8u >= (1u << 24)) return false;
    }
    return true;
}

/* The frame-major layout of a qualifying clip: its blocks, stride and data
 * (not written yet) in *out; FB_OK with *out NULL when it is too large to
 * lay out, FB_OOM. */
static int frames_layout(const sk_clip *c, sk_clip_frames **out) {
    uint32_t T = c->track_count, n = c->tracks[0].key_count;
    *out = NULL;
    /* Tracks are sorted by joint then path, so blocks come out in (group, path) order. */
    const sk_allocator *a = &c->alloc;
    sk_clip_frames *f = sk_alloc(a, sizeof *f);
    if (!f) return FB_OOM;
    memset(f, 0, sizeof *f);
    f->tracks = T;
    f->blocks = sk_alloc(a, (size_t)T * sizeof(sk_frame_block)); /* at most one per track */
    f->track_block = sk_alloc(a, (size_t)T * sizeof(uint32_t));
    if (!f->blocks || !f->track_block) {
        sk_clip_frames_free(a, f);
        return FB_OOM;
    }
    /* Blocks: group then path (tracks sorted by joint, then path, within a
     * group the paths interleave, so look each block up). */
    uint32_t nb = 0, stride = 0;
    for (uint32_t g0 = 0, i = 0; i < T; g0 = i) {
        uint32_t g = c->tracks[i].joint / 8u;
        while (i < T && c->tracks[i].joint / 8u == g) i++;
        for (uint32_t path = SK_PATH_TRANSLATION; path <= SK_PATH_SCALE; path++) {
            uint8_t mask = 0;
            for (uint32_t k = g0; k < i; k++)
                if (c->tracks[k].path == path) {
                    mask |= (uint8_t)(1u << (c->tracks[k].joint % 8u));
                    f->track_block[k] = nb;
                }
            if (!mask) continue;
            sk_frame_block *b = &f->blocks[nb++];
            b->group = g;
            b->path = (uint8_t)path;
            b->mask = mask;
            b->comps = path == SK_PATH_ROTATION ? 4 : 3;
            b->compact = __builtin_popcount(mask) <= 2;
            if (!b->compact) {
                b->offset = stride;
                stride += 8u * b->comps;
            }
        }
    }
    for (uint32_t bi = 0; bi < nb; bi++) /* compact blocks after the full ones (which stay 32-byte aligned) */
        if (f->blocks[bi].compact) {
            f->blocks[bi].offset = stride;
            stride += (uint32_t)__builtin_popcount(f->blocks[bi].mask) * f->blocks[bi].comps;
        }
    stride = (stride + 7u) & ~7u;
    f->block_count = nb;
    f->keys = n;
    f->stride = stride;
    size_t floats = (size_t)n * stride;
    if (floats / stride != n || floats > SIZE_MAX / sizeof(float) - 32) {
        sk_clip_frames_free(a, f);
        return FB_OK; /* too large to lay out: keep the per-track keys */
    }
    f->data_bytes = floats * sizeof(float) + 32;
    f->data_raw = sk_realloc_raw(a, NULL, 0, f->data_bytes); /* every float is written below */
    if (!f->data_raw) {
        f->data_bytes = 0;
        sk_clip_frames_free(a, f);
        return FB_OOM;
    }
    f->data = (float *)(((uintptr_t)f->data_raw + 31u) & ~(uintptr_t)31u);
    *out = f;
    return FB_OK;
}

/* The writers' plan and scratch while the frames are written. */
typedef struct frames_work {
    struct frame_src *src;   /* per track: its values and place (T) */
    struct frame_fill *fill; /* the identity floats no writer stores (fill_cap) */
    size_t fill_cap;
    uint32_t nfill;
    uint32_t used;           /* floats of a frame up to the padding */
    uint32_t *quad, nq;      /* the four- or eight-lane writer calls: their tracks (4 or 8 each) */
    uint32_t *qslot;         /* 2 nb + 1: per block half, its call, then whether a call stores it */
    float *acc;              /* per writer call: its lanes' statistics so far (lo, hi, bad: 8 each) */
    uint8_t *in_quad;        /* per track: taken by a writer call */
    bool wide;               /* eight-lane calls (frames_oct) */
} frames_work;

static void frames_work_free(const sk_allocator *a, frames_work *w, uint32_t nb, uint32_t T) {
    sk_free(a, w->fill, w->fill_cap * sizeof *w->fill);
    sk_free(a, w->quad, (size_t)(2u * nb + 1u) * 4u * sizeof *w->quad);
    sk_free(a, w->qslot, (size_t)(2u * nb + 1u) * sizeof *w->qslot);
    sk_free(a, w->acc, (size_t)(2u * nb + 1u) * 24u * sizeof *w->acc);
    sk_free(a, w->in_quad, T ? T : 1);
    sk_free(a, w->src, (size_t)T * sizeof *w->src);
}

/* Per track: its values, where its component 0 sits in a key's frame and the
 * step between its components (8 in a full block's rows, 1 in a compact
 * one); the writers' scratch. False when out of memory (nothing left
 * allocated). */
static bool frames_work_alloc(const sk_clip *c, const struct clip_ref *refs, const sk_clip_frames *f, frames_work *w) {
    const sk_allocator *a = &c->alloc;
    uint32_t T = c->track_count, nb = f->block_count;
    memset(w, 0, sizeof *w);
    struct frame_src *src;
    src = sk_realloc_raw(a, NULL, 0, (size_t)T * sizeof *src);
    if (!src) return false;
    for (uint32_t i = 0; i < T; i++) {
        const sk_track *t = &c->tracks[i];
        const sk_frame_block *b = &f->blocks[f->track_block[i]];
        src[i].v = sk_clip_fin_values(c, refs, t);
        src[i].at = (uint32_t)sk_frame_index(b, t->joint % 8u, 0);
        src[i].step = b->compact ? 1u : 8u;
        src[i].comps = b->comps;
        src[i].norm = t->pad_ && t->path == SK_PATH_ROTATION; /* normalised as add_track stores them */
        src[i].path = t->path;
        src[i].stats = t->pad_ ? refs[t->time_offset].stats : NULL;
    }
    /* A chunk of keys at a time (their frames stay in the cache):
     * the identity in the lanes of full blocks that have no track (the four-
     * and eight-lane writers store it in the blocks they take), zeros in the
     * padding, then each track's values for those keys. */
    uint32_t used = 0;
    for (uint32_t bi = 0; bi < nb; bi++) {
        const sk_frame_block *b = &f->blocks[bi];
        uint32_t end = b->offset + (b->compact ? (uint32_t)__builtin_popcount(b->mask) : 8u) * b->comps;
        if (end > used) used = end;
    }
    /* The identity's floats in the lanes of full blocks without a track that
     * no four- or eight-lane writer stores, listed once (frames_fill_list). */
    struct frame_fill *fill;
    size_t fill_cap = (size_t)nb * 32u;
    fill = sk_realloc_raw(a, NULL, 0, fill_cap * sizeof *fill);
    if (!fill) {
        sk_free(a, src, (size_t)T * sizeof *src);
        return false;
    }
    /* Lanes 0-3 and 4-7 of a full block are written together (frames_quad). */
    uint32_t *quad = sk_realloc_raw(a, NULL, 0, (size_t)(2u * nb + 1u) * 4u * sizeof *quad); /* 4 tracks each */
    uint32_t *qslot = sk_realloc_raw(a, NULL, 0, (size_t)(2u * nb + 1u) * sizeof *qslot);
    /* per writer call: its lanes' statistics so far (lo, hi, bad: 8 each) */
    float *acc = sk_realloc_raw(a, NULL, 0, (size_t)(2u * nb + 1u) * 24u * sizeof *acc);
    uint8_t *in_quad = sk_realloc_raw(a, NULL, 0, T ? T : 1);
    if (!quad || !qslot || !acc || !in_quad) {
        sk_free(a, acc, (size_t)(2u * nb + 1u) * 24u * sizeof *acc);
        sk_free(a, fill, fill_cap * sizeof *fill);
        sk_free(a, quad, (size_t)(2u * nb + 1u) * 4u * sizeof *quad);
        sk_free(a, qslot, (size_t)(2u * nb + 1u) * sizeof *qslot);
        sk_free(a, in_quad, T ? T : 1);
        sk_free(a, src, (size_t)T * sizeof *src);
        return false;
    }
    memset(in_quad, 0, T);
    w->src = src, w->fill = fill, w->fill_cap = fill_cap, w->used = used;
    w->quad = quad, w->qslot = qslot, w->acc = acc, w->in_quad = in_quad;
    return true;
}

/* The four- or eight-lane writer calls (writer: sk_clip_builder_set_writer's
 * level, -1 the best this CPU has; 0 none). */
static void frames_plan_writers(const sk_clip *c, const sk_clip_frames *f, frames_work *w, int writer) {
    bool wide = false; /* quads of eight lanes (frames_oct) */
#if defined(SK_SOA_X86)
    uint32_t T = c->track_count, nb = f->block_count, *quad = w->quad, *qslot = w->qslot, nq = 0;
    const struct frame_src *src = w->src;
    float *acc = w->acc;
    uint8_t *in_quad = w->in_quad;
    wide = writer == 2 || (writer < 0 && sk_soa_use_avx2());
    if (writer != 0) {
    /* Per full block, lanes 0-3 and 4-7: a quad when its tracks (one to
     * four; a lane without a track holds the identity) agree on
     * normalisation and statistics. */
    /* (on AVX2 all eight lanes of a block at once: frames_oct) */
    const uint32_t G = wide ? 8u : 4u;
    for (uint32_t x = 0; x < 2u * nb; x++) qslot[x] = UINT32_MAX;
    for (uint32_t i = 0; i < T; i++) {
        uint32_t bi = f->track_block[i], l = c->tracks[i].joint % 8u;
        if (f->blocks[bi].compact) continue;
        uint32_t *q = &qslot[wide ? bi : 2u * bi + l / 4u];
        if (*q == UINT32_MAX) {
            *q = nq++;
            for (uint32_t d = 0; d < G; d++) quad[G * *q + d] = UINT32_MAX;
        }
        quad[G * *q + l % G] = i;
    }
    {
        uint32_t kept = 0;
        for (uint32_t qi = 0; qi < nq; qi++) {
            const uint32_t *L = quad + G * qi;
            uint32_t first = UINT32_MAX;
            bool ok = true;
            for (uint32_t d = 0; d < G; d++) {
                if (L[d] == UINT32_MAX) continue;
                if (first == UINT32_MAX) first = L[d];
                else ok = ok && src[L[d]].norm == src[first].norm && !src[L[d]].stats == !src[first].stats;
            }
            if (!ok) continue;
            for (uint32_t d = 0; d < G; d++) {
                quad[G * kept + d] = L[d];
                if (L[d] != UINT32_MAX) in_quad[L[d]] = 1;
            }
            kept++;
        }
        nq = kept;
    }
    for (uint32_t qi = 0; qi < nq; qi++) /* lo, hi, bad of G lanes each: as finish starts every sk_key_stats */
        for (uint32_t d = 0; d < G; d++) acc[24u * qi + d] = 3.4e38f, acc[24u * qi + G + d] = 0.0f, acc[24u * qi + 2 * G + d] = 0.0f;
    }
    w->nq = nq;
#else
    (void)c, (void)f, (void)writer;
#endif
    w->wide = wide;
}

/* The identity floats no writer call stores (w->fill); qslot from here: per
 * block half, whether a writer call stores it. */
static void frames_fill_list(const sk_clip *c, const sk_clip_frames *f, frames_work *w) {
    uint32_t nb = f->block_count, *qslot = w->qslot, nfill = 0;
    struct frame_fill *fill = w->fill;
    for (uint32_t x = 0; x < 2u * nb; x++) qslot[x] = 0;
#if defined(SK_SOA_X86)
    const uint32_t *quad = w->quad;
    bool wide = w->wide;
    for (uint32_t qi = 0; qi < w->nq; qi++) {
        const uint32_t G = wide ? 8u : 4u, *L = quad + G * qi;
        uint32_t d = 0;
        while (L[d] == UINT32_MAX) d++;
        uint32_t bi = f->track_block[L[d]], half = (c->tracks[L[d]].joint % 8u) / 4u;
        if (wide) qslot[2u * bi] = qslot[2u * bi + 1u] = 1;
        else qslot[2u * bi + half] = 1;
    }
#else
    (void)c;
#endif
    for (uint32_t bi = 0; bi < nb; bi++) {
        const sk_frame_block *b = &f->blocks[bi];
        if (b->compact || b->mask == 0xffu) continue;
        for (uint32_t r = 0; r < b->comps; r++)
            for (uint32_t l = 0; l < 8; l++)
                if (!(b->mask >> l & 1u) && !qslot[2u * bi + l / 4u])
                    fill[nfill].at = b->offset + r * 8 + l, fill[nfill++].v = frames_identity[b->path][r];
    }
    w->nfill = nfill;
}

/* Every frame written when no values are fetched: the other tracks'
 * statistics in a pass of their own, then a chunk of keys at a time, one
 * track after another. */
static void frames_write(const sk_clip *c, sk_clip_frames *f, const frames_work *w) {
    uint32_t T = c->track_count, n = f->keys, stride = f->stride;
    const struct frame_src *src = w->src;
    for (uint32_t i = 0; i < T; i++) /* the other tracks' statistics, in a pass of their own */
        if (src[i].stats && !w->in_quad[i]) sk_clip_key_stats(src[i].v, n, src[i].path, src[i].stats);
    /* keys at a time: about 128 KiB of frames (in the second-level cache), 16 to 256 */
    uint32_t chunk = (uint32_t)(131072u / ((size_t)stride * 4u));
    chunk = chunk < 16 ? 16 : chunk > 256 ? 256 : chunk;
    for (uint32_t k0 = 0; k0 < n; k0 += chunk) { /* a chunk of keys at a time, one track after another */
        uint32_t k1 = n - k0 < chunk ? n : k0 + chunk;
        frames_fill(f, w->fill, w->nfill, w->used, k0, k1);
#if defined(SK_SOA_X86)
        for (uint32_t qi = 0; qi < w->nq; qi++) {
            if (w->wide) frames_oct(src, w->quad + 8u * qi, f->data, stride, k0, k1, n, w->acc + (size_t)24 * qi);
            else frames_quad(src, w->quad + 4u * qi, f->data, stride, k0, k1, n, w->acc + (size_t)24 * qi);
        }
#endif
        for (uint32_t i = 0; i < T; i++)
            if (!w->in_quad[i]) frames_track(&src[i], f->data, stride, k0, k1);
    }
}

/* The writer calls' statistics to their tracks' sk_key_stats. */
static void frames_stats_back(const frames_work *w) {
#if defined(SK_SOA_X86)
    for (uint32_t qi = 0; qi < w->nq; qi++) { /* the writers' statistics to their tracks */
        const uint32_t G = w->wide ? 8u : 4u, *L = w->quad + G * qi;
        const float *q = w->acc + (size_t)24 * qi;
        for (uint32_t d = 0; d < G; d++) {
            sk_key_stats *k = L[d] == UINT32_MAX ? NULL : w->src[L[d]].stats;
            if (!k) continue;
            uint32_t bad;
            memcpy(&bad, &q[2 * G + d], 4);
            k->lo = q[d], k->hi = q[G + d], k->bad = bad;
        }
    }
#else
    (void)w;
#endif
}

/* The clip takes the written frames: one time array for every track (a copy
 * of times0), no per-track values. FB_OK or FB_OOM (then f is freed). */
static int frames_commit(sk_clip *c, sk_clip_frames *f, const float *times0) {
    const sk_allocator *a = &c->alloc;
    uint32_t T = c->track_count, n = f->keys;
    /* One time array for every track; no per-track values. */
    float *times = sk_alloc(a, n * sizeof(float));
    if (!times) {
        sk_clip_frames_free(a, f);
        return FB_OOM;
    }
    memcpy(times, times0, n * sizeof(float));
    sk_free(a, c->times, c->time_total * sizeof(float));
    sk_free(a, c->values, c->value_total * sizeof(float));
    c->times = times;
    c->time_total = n;
    c->values = NULL;
    c->value_total = 0;
    for (uint32_t i = 0; i < T; i++) c->tracks[i].time_offset = 0, c->tracks[i].value_offset = 0, c->tracks[i].pad_ = 0;
    c->frames = f;
    return FB_OK;
}

/* Builds the frame-major layout when the clip qualifies (see clip_internal.h)
 * and then drops the per-track values and all but one copy of the times.
 * Returns FB_OK (built, or the clip does not qualify), FB_OOM or FB_IO (a
 * lazy track's keys could not be fetched); the clip then stays as it was. */
int sk_clip_frames_build(sk_clip *c, const struct clip_ref *refs, int writer, sk_key_fetch_fn fetch, void *fuser) {
    if (!frames_qualify(c, refs)) return FB_OK;
    const float *times0 = sk_clip_fin_times(c, refs, &c->tracks[0]);
    sk_clip_frames *f;
    int status = frames_layout(c, &f);
    if (status != FB_OK || !f) return status;
    const sk_allocator *a = &c->alloc;
    uint32_t T = c->track_count, nb = f->block_count;
    frames_work w;
    if (!frames_work_alloc(c, refs, f, &w)) {
        sk_clip_frames_free(a, f);
        return FB_OOM;
    }
    frames_plan_writers(c, f, &w, writer);
    frames_fill_list(c, f, &w);
    bool lazy = false;
    for (uint32_t i = 0; i < T; i++) lazy = lazy || (c->tracks[i].pad_ && refs[c->tracks[i].time_offset].lazy);
    if (lazy)
        status = frames_lazy(c, refs, f, w.src, w.quad, w.nq, w.wide, w.in_quad, w.fill, w.nfill, w.used, w.acc, fetch, fuser);
    else frames_write(c, f, &w);
    frames_stats_back(&w);
    frames_work_free(a, &w, nb, T);
    if (status != FB_OK) {
        sk_clip_frames_free(a, f);
        return status;
    }
    return frames_commit(c, f, times0);
}
