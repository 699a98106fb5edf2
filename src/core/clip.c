/* Clips: storage, builder, and sampling per glTF 2.0 Appendix C
 * ("Animation Sampler Interpolation Modes"). The layout below is private and
 * will be replaced by a quantised, time-sorted one without touching callers. */
#include "core/math_inline.h"
#include "core/clip_internal.h"
#include "core/soa_kernels.h"

#include <math.h>
#include <stdlib.h>

struct sk_clip_builder {
    sk_allocator alloc;
    char *name;
    float duration;
    bool has_duration;
    uint32_t track_count, track_cap;
    sk_track *tracks;
    float *times, *values;
    size_t time_count, time_cap, value_count, value_cap;
    /* Tracks added by reference (sk_clip_builder_add_track_ref): the caller's
     * arrays, read at finish; such a track has pad_ = 1 and its slot here in
     * time_offset until then. */
    struct clip_ref {
        const float *times, *values;
        sk_key_stats *stats; /* sk_clip_builder_add_track_ref_stats: filled at finish, else NULL */
        bool lazy;           /* sk_clip_builder_add_track_ref_lazy: values read through fetch */
    } *refs;
    size_t ref_count, ref_cap;
    int writer; /* frame writer (sk_clip_builder_set_writer): -1 the best this CPU has */
    sk_key_fetch_fn fetch; /* sk_clip_builder_set_fetch */
    void *fetch_user;
};

static const char *path_name(uint32_t p) {
    static const char *n[] = {"translation", "rotation", "scale", "weights"};
    return p < 4 ? n[p] : "?";
}

sk_result sk_clip_builder_create(const char *name, const sk_allocator *alloc, sk_clip_builder **out,
                                 sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_builder_create: out is NULL");
    const sk_allocator *a = sk_allocator_or_default(alloc);
    sk_clip_builder *b = sk_alloc(a, sizeof *b);
    if (!b) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    b->alloc = *a;
    b->writer = -1;
    if (!name) name = "";
    size_t n = strlen(name) + 1;
    b->name = sk_alloc(a, n);
    if (!b->name) {
        sk_free(a, b, sizeof *b);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    memcpy(b->name, name, n);
    *out = b;
    return SK_OK;
}

void sk_clip_builder_destroy(sk_clip_builder *b) {
    if (!b) return;
    sk_allocator a = b->alloc;
    sk_free(&a, b->name, strlen(b->name) + 1);
    sk_free(&a, b->tracks, b->track_cap * sizeof(sk_track));
    sk_free(&a, b->times, b->time_cap * sizeof(float));
    sk_free(&a, b->values, b->value_cap * sizeof(float));
    sk_free(&a, b->refs, b->ref_cap * sizeof *b->refs);
    sk_free(&a, b, sizeof *b);
}

static bool grow(const sk_allocator *a, void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return true;
    size_t nc = *cap ? *cap : 16;
    while (nc < need) {
        if (nc > SIZE_MAX / 2 / elem) return false;
        nc *= 2;
    }
    void *q = sk_realloc_raw(a, *p, *cap * elem, nc * elem); /* contents past `need` are never read */
    if (!q) return false;
    *p = q;
    *cap = nc;
    return true;
}

/* Unit rotation keys (glTF requires them; three.js does not normalise, which
 * shows as ~1e-4 differences on assets with keys like 0.707): q / |q| in
 * float, in double when |q|^2 overflows float (found by fuzz_skc). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void normalize_key_wide(float *q) {
    double d2 = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3];
    double dinv = 1.0 / sqrt(d2);
    for (int k = 0; k < 4; k++) q[k] = (float)(q[k] * dinv);
}
static inline void normalize_key(float *q) {
    float l2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (l2 <= 3.0e38f) {
        float inv = 1.0f / sqrtf(l2); /* l2 > 0: zero-length keys are rejected */
        q[0] *= inv; q[1] *= inv; q[2] *= inv; q[3] *= inv;
    } else {
        normalize_key_wide(q);
    }
}

/* A track's keys into the clip's arrays, LINEAR and STEP rotations
 * normalised (CUBICSPLINE ones are normalised after interpolation). */
static void copy_keys(const sk_track *t, const float *times, const float *values, float *dt, float *dv) {
    size_t n = (size_t)t->key_count * t->width * (t->interp == SK_INTERP_CUBICSPLINE ? 3u : 1u);
    memcpy(dt, times, t->key_count * sizeof(float));
    memcpy(dv, values, n * sizeof(float));
    if (t->path == SK_PATH_ROTATION && t->interp != SK_INTERP_CUBICSPLINE)
        for (size_t v = 0; v < n; v += 4) normalize_key(dv + v);
}

static sk_result add_track(sk_clip_builder *b, const sk_track_desc *t, bool ref, bool checked, sk_key_stats *stats,
                           sk_error *err);

sk_result sk_clip_builder_add_track(sk_clip_builder *b, const sk_track_desc *t, sk_error *err) {
    return add_track(b, t, false, false, NULL, err);
}

sk_result sk_clip_builder_add_track_ref(sk_clip_builder *b, const sk_track_desc *t, sk_error *err) {
    return add_track(b, t, true, false, NULL, err);
}

sk_result sk_clip_builder_add_track_ref_checked(sk_clip_builder *b, const sk_track_desc *t, sk_error *err) {
    return add_track(b, t, true, true, NULL, err);
}

void sk_clip_builder_set_writer(sk_clip_builder *b, int level) {
    if (b) b->writer = level < 0 || level > 2 ? -1 : level;
}

sk_result sk_clip_builder_add_track_ref_stats(sk_clip_builder *b, const sk_track_desc *t, sk_key_stats *stats,
                                              sk_error *err) {
    if (!stats || !t || t->path > SK_PATH_SCALE || t->interpolation == SK_INTERP_CUBICSPLINE)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                            "sk_clip_builder_add_track_ref_stats: a LINEAR or STEP translation, rotation or scale track");
    return add_track(b, t, true, true, stats, err);
}

void sk_clip_builder_set_fetch(sk_clip_builder *b, sk_key_fetch_fn fetch, void *user) {
    if (b) b->fetch = fetch, b->fetch_user = user;
}

sk_result sk_clip_builder_add_track_ref_lazy(sk_clip_builder *b, const sk_track_desc *t, sk_key_stats *stats,
                                             sk_error *err) {
    if (!b || !b->fetch)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_builder_add_track_ref_lazy: no fetch function set");
    sk_result r = sk_clip_builder_add_track_ref_stats(b, t, stats, err);
    if (r == SK_OK) b->refs[b->ref_count - 1].lazy = true;
    return r;
}

/* checked: the caller has already verified the keys (finite, non-decreasing
 * times; finite values; rotation keys of non-zero length), so the passes over
 * them are not repeated; every other check stays. */
static sk_result add_track(sk_clip_builder *b, const sk_track_desc *t, bool ref, bool checked, sk_key_stats *stats,
                           sk_error *err) {
    if (!b || !t) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_builder_add_track: NULL argument");
    if (t->path > SK_PATH_WEIGHTS)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "track: unknown path %d", (int)t->path);
    if (t->interpolation > SK_INTERP_CUBICSPLINE)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "track: unknown interpolation %d", (int)t->interpolation);
    if (t->key_count == 0 || !t->times || !t->values)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "track (joint %u, %s): no keys", t->joint, path_name(t->path));
    if (t->joint >= SK_MAX_JOINTS)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "track: joint %u out of range", t->joint);
    uint32_t width = t->width;
    uint32_t def = t->path == SK_PATH_ROTATION ? 4u : 3u;
    if (t->path == SK_PATH_WEIGHTS) {
        if (width == 0 || width > 65536)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "track (joint %u, weights): width %u", t->joint, width);
    } else {
        if (width == 0) width = def;
        if (width != def)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "track (joint %u, %s): width %u, expected %u", t->joint,
                                path_name(t->path), width, def);
    }
    for (uint32_t i = 0; i < b->track_count; i++)
        if (b->tracks[i].joint == t->joint && b->tracks[i].path == (uint8_t)t->path)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "track (joint %u, %s): a track for this joint and path exists",
                                t->joint, path_name(t->path));
    for (uint32_t k = 0; !checked && k < t->key_count; k++) {
        if (!sk_isfinite_f(t->times[k]))
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "track (joint %u, %s): key %u time is not finite", t->joint,
                                path_name(t->path), k);
        if (k > 0 && t->times[k] < t->times[k - 1])
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "track (joint %u, %s): key %u time %g is before key %u (%g)",
                                t->joint, path_name(t->path), k, (double)t->times[k], k - 1, (double)t->times[k - 1]);
    }
    size_t per_key = (size_t)width * (t->interpolation == SK_INTERP_CUBICSPLINE ? 3u : 1u), nvals;
    if (!sk_size_mul(per_key, t->key_count, &nvals))
        return sk_error_set(err, SK_ERR_LIMIT, "track: too many values");
    /* One branch-free pass first (exponent all ones = Inf/NaN); locate only on failure. */
    uint32_t bad = 0;
    for (size_t v = 0; !checked && v < nvals; v++) {
        uint32_t u;
        memcpy(&u, &t->values[v], 4);
        bad |= (uint32_t)((u & 0x7f800000u) == 0x7f800000u);
    }
    for (size_t v = 0; bad && v < nvals; v++)
        if (!sk_isfinite_f(t->values[v]))
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "track (joint %u, %s): value %zu is not finite", t->joint,
                                path_name(t->path), v);
    if (t->path == SK_PATH_ROTATION && !checked) {
        /* Zero-length rotation keys have no meaning (glTF requires unit quaternions). */
        for (size_t v = 0; v < nvals; v += 4) {
            bool tangent = t->interpolation == SK_INTERP_CUBICSPLINE && (v / 4) % 3 != 1;
            if (tangent) continue;
            const float *q = &t->values[v];
            if (!(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] > 1e-12f))
                return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "track (joint %u, rotation): key %zu has zero length",
                                    t->joint, t->interpolation == SK_INTERP_CUBICSPLINE ? v / 12 : v / 4);
        }
    }
    {
        size_t cap = b->track_cap;
        if (!grow(&b->alloc, (void **)&b->tracks, &cap, (size_t)b->track_count + 1, sizeof(sk_track)))
            return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
        b->track_cap = (uint32_t)cap;
    }
    if (ref ? !grow(&b->alloc, (void **)&b->refs, &b->ref_cap, b->ref_count + 1, sizeof *b->refs)
            : (!grow(&b->alloc, (void **)&b->times, &b->time_cap, b->time_count + t->key_count, sizeof(float)) ||
               !grow(&b->alloc, (void **)&b->values, &b->value_cap, b->value_count + nvals, sizeof(float))))
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    sk_track *tr = &b->tracks[b->track_count++];
    memset(tr, 0, sizeof *tr);
    tr->joint = t->joint;
    tr->path = (uint8_t)t->path;
    tr->interp = (uint8_t)t->interpolation;
    tr->key_count = t->key_count;
    tr->width = width;
    if (ref) { /* the caller's arrays, read at finish */
        tr->pad_ = 1;
        tr->time_offset = b->ref_count;
        b->refs[b->ref_count].times = t->times;
        b->refs[b->ref_count].stats = stats;
        b->refs[b->ref_count].lazy = false;
        b->refs[b->ref_count++].values = t->values;
        return SK_OK;
    }
    tr->time_offset = b->time_count;
    tr->value_offset = b->value_count;
    copy_keys(tr, t->times, t->values, b->times + b->time_count, b->values + b->value_count);
    b->time_count += t->key_count;
    b->value_count += nvals;
    return SK_OK;
}

sk_result sk_clip_builder_reserve(sk_clip_builder *b, uint32_t tracks, size_t keys, size_t values, sk_error *err) {
    if (!b) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_builder_reserve: builder is NULL");
    size_t cap = b->track_cap, nt, nk, nv;
    if (!sk_size_add(b->track_count, tracks, &nt) || !sk_size_add(b->time_count, keys, &nk) ||
        !sk_size_add(b->value_count, values, &nv))
        return sk_error_set(err, SK_ERR_LIMIT, "sk_clip_builder_reserve: sizes overflow");
    if (!grow(&b->alloc, (void **)&b->tracks, &cap, nt, sizeof(sk_track)))
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    b->track_cap = (uint32_t)cap;
    if (!grow(&b->alloc, (void **)&b->times, &b->time_cap, nk, sizeof(float)) ||
        !grow(&b->alloc, (void **)&b->values, &b->value_cap, nv, sizeof(float)))
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    return SK_OK;
}

void sk_clip_builder_set_duration(sk_clip_builder *b, double duration) {
    if (!b) return;
    /* Stored as float32 like the key times (whose precision it must match). */
    if (duration >= 0.0 && duration <= 3.0e38) {
        b->duration = (float)duration;
        b->has_duration = true;
    }
}

static int track_cmp(const void *a, const void *b) {
    const sk_track *x = a, *y = b;
    if (x->joint != y->joint) return x->joint < y->joint ? -1 : 1;
    return (int)x->path - (int)y->path;
}

/* ---- frame-major keys (clip_internal.h, sk_clip_frames) ------------------- */

static void frames_free(const sk_allocator *a, sk_clip_frames *f) {
    if (!f) return;
    sk_free(a, f->data_raw, f->data_bytes);
    sk_free(a, f->blocks, (size_t)f->tracks * sizeof(sk_frame_block));
    sk_free(a, f->track_block, (size_t)f->tracks * sizeof(uint32_t));
    sk_free(a, f, sizeof *f);
}

static const float frames_identity[3][4] = {{0, 0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1, 0}};

/* A track's key times and values during finish: the builder's arrays, or
 * the caller's for a track added by reference (pad_ = 1, its slot in
 * time_offset). */
static const float *fin_times(const sk_clip *c, const struct clip_ref *refs, const sk_track *t) {
    return t->pad_ ? refs[t->time_offset].times : c->times + t->time_offset;
}
static const float *fin_values(const sk_clip *c, const struct clip_ref *refs, const sk_track *t) {
    return t->pad_ ? refs[t->time_offset].values : c->values + t->value_offset;
}

/* Per track during frames_build: its values, where its component 0 sits in
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
static void key_stats(const float *v, uint32_t n, uint32_t path, sk_key_stats *st) {
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
 * operations and order of normalize_key (bit for bit; a key whose squared
 * length passes 3e38 goes through normalize_key itself). A translation or
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
                        if (keepm[l]) normalize_key(q);
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
                        if (keepm[l]) normalize_key(qq);
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
            if (sr->norm) normalize_key(q);
            o[0] = q[0], o[st] = q[1], o[2 * st] = q[2], o[3 * st] = q[3];
        }
    } else {
        const float *v = sr->v + (size_t)k0 * 3u;
        for (uint32_t k = k0; k < k1; k++, v += 3, o += stride) o[0] = v[0], o[st] = v[1], o[2 * st] = v[2];
    }
}

enum { FB_OK = 0, FB_OOM = 1, FB_IO = 2 }; /* frames_build's outcome */

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

/* frames_build when some values are fetched: the identity and padding of
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
            if (src[i].stats) key_stats(src[i].v, n, src[i].path, src[i].stats);
            frames_track(&src[i], f->data, stride, 0, n);
        }
    }
    sk_free(a, scr, scr_cap);
    sk_free(a, ord, (size_t)T * sizeof *ord);
    return status;
}

/* Builds the frame-major layout when the clip qualifies (see clip_internal.h)
 * and then drops the per-track values and all but one copy of the times.
 * Returns FB_OK (built, or the clip does not qualify), FB_OOM or FB_IO (a
 * lazy track's keys could not be fetched); the clip then stays as it was. */
static int frames_build(sk_clip *c, const struct clip_ref *refs, int writer, sk_key_fetch_fn fetch, void *fuser) {
    uint32_t T = c->track_count;
    if (T == 0 || c->weight_tracks) return FB_OK;
    const sk_track *t0 = &c->tracks[0];
    uint32_t n = t0->key_count;
    if (n < 2) return FB_OK;
    const float *times0 = fin_times(c, refs, t0);
    for (uint32_t i = 0; i < T; i++) {
        const sk_track *t = &c->tracks[i];
        if (t->interp != SK_INTERP_LINEAR || t->path > SK_PATH_SCALE || t->key_count != n) return FB_OK;
        const float *ti = fin_times(c, refs, t);
        if (i && ti != times0 && memcmp(ti, times0, n * sizeof(float)) != 0) return FB_OK;
        if (i && t->joint == c->tracks[i - 1].joint && t->path == c->tracks[i - 1].path) return FB_OK; /* a duplicate */
        if (t->joint / 8u >= (1u << 24)) return FB_OK;
    }
    /* Tracks are sorted by joint then path, so blocks come out in (group, path) order. */
    const sk_allocator *a = &c->alloc;
    sk_clip_frames *f = sk_alloc(a, sizeof *f);
    if (!f) return FB_OOM;
    memset(f, 0, sizeof *f);
    f->tracks = T;
    f->blocks = sk_alloc(a, (size_t)T * sizeof(sk_frame_block)); /* at most one per track */
    f->track_block = sk_alloc(a, (size_t)T * sizeof(uint32_t));
    if (!f->blocks || !f->track_block) {
        frames_free(a, f);
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
        frames_free(a, f);
        return FB_OK; /* too large to lay out: keep the per-track keys */
    }
    f->data_bytes = floats * sizeof(float) + 32;
    f->data_raw = sk_realloc_raw(a, NULL, 0, f->data_bytes); /* every float is written below */
    if (!f->data_raw) {
        f->data_bytes = 0;
        frames_free(a, f);
        return FB_OOM;
    }
    f->data = (float *)(((uintptr_t)f->data_raw + 31u) & ~(uintptr_t)31u);
    /* Per track: its values, where its component 0 sits in a key's frame
     * and the step between its components (8 in a full block's rows, 1 in a
     * compact one). */
    struct frame_src *src;
    src = sk_realloc_raw(a, NULL, 0, (size_t)T * sizeof *src);
    if (!src) {
        frames_free(a, f);
        return FB_OOM;
    }
    for (uint32_t i = 0; i < T; i++) {
        const sk_track *t = &c->tracks[i];
        const sk_frame_block *b = &f->blocks[f->track_block[i]];
        src[i].v = fin_values(c, refs, t);
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
     * no four- or eight-lane writer stores, listed once (below). */
    struct frame_fill *fill;
    uint32_t nfill = 0;
    size_t fill_cap = (size_t)nb * 32u;
    fill = sk_realloc_raw(a, NULL, 0, fill_cap * sizeof *fill);
    if (!fill) {
        sk_free(a, src, (size_t)T * sizeof *src);
        frames_free(a, f);
        return FB_OOM;
    }
    /* Lanes 0-3 and 4-7 of a full block are written together (frames_quad). */
    uint32_t *quad = sk_realloc_raw(a, NULL, 0, (size_t)(2u * nb + 1u) * 4u * sizeof *quad), nq = 0; /* 4 tracks each */
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
        frames_free(a, f);
        return FB_OOM;
    }
    memset(in_quad, 0, T);
    bool wide = false; /* quads of eight lanes (frames_oct) */
#if defined(SK_SOA_X86)
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
#else
    (void)writer;
#endif
    /* qslot from here: per block half, whether a writer call stores it */
    for (uint32_t x = 0; x < 2u * nb; x++) qslot[x] = 0;
#if defined(SK_SOA_X86)
    for (uint32_t qi = 0; qi < nq; qi++) {
        const uint32_t G = wide ? 8u : 4u, *L = quad + G * qi;
        uint32_t d = 0;
        while (L[d] == UINT32_MAX) d++;
        uint32_t bi = f->track_block[L[d]], half = (c->tracks[L[d]].joint % 8u) / 4u;
        if (wide) qslot[2u * bi] = qslot[2u * bi + 1u] = 1;
        else qslot[2u * bi + half] = 1;
    }
#endif
    for (uint32_t bi = 0; bi < nb; bi++) {
        const sk_frame_block *b = &f->blocks[bi];
        if (b->compact || b->mask == 0xffu) continue;
        for (uint32_t r = 0; r < b->comps; r++)
            for (uint32_t l = 0; l < 8; l++)
                if (!(b->mask >> l & 1u) && !qslot[2u * bi + l / 4u])
                    fill[nfill].at = b->offset + r * 8 + l, fill[nfill++].v = frames_identity[b->path][r];
    }
    bool lazy = false;
    for (uint32_t i = 0; i < T; i++) lazy = lazy || (c->tracks[i].pad_ && refs[c->tracks[i].time_offset].lazy);
    int status = FB_OK;
    if (lazy) status = frames_lazy(c, refs, f, src, quad, nq, wide, in_quad, fill, nfill, used, acc, fetch, fuser);
    else {
        for (uint32_t i = 0; i < T; i++) /* the other tracks' statistics, in a pass of their own */
            if (src[i].stats && !in_quad[i]) key_stats(src[i].v, n, src[i].path, src[i].stats);
        /* keys at a time: about 128 KiB of frames (in the second-level cache), 16 to 256 */
        uint32_t chunk = (uint32_t)(131072u / ((size_t)stride * 4u));
        chunk = chunk < 16 ? 16 : chunk > 256 ? 256 : chunk;
        for (uint32_t k0 = 0; k0 < n; k0 += chunk) { /* a chunk of keys at a time, one track after another */
            uint32_t k1 = n - k0 < chunk ? n : k0 + chunk;
            frames_fill(f, fill, nfill, used, k0, k1);
#if defined(SK_SOA_X86)
            for (uint32_t qi = 0; qi < nq; qi++) {
                if (wide) frames_oct(src, quad + 8u * qi, f->data, stride, k0, k1, n, acc + (size_t)24 * qi);
                else frames_quad(src, quad + 4u * qi, f->data, stride, k0, k1, n, acc + (size_t)24 * qi);
            }
#endif
            for (uint32_t i = 0; i < T; i++)
                if (!in_quad[i]) frames_track(&src[i], f->data, stride, k0, k1);
        }
    }
#if defined(SK_SOA_X86)
    for (uint32_t qi = 0; qi < nq; qi++) { /* the writers' statistics to their tracks */
        const uint32_t G = wide ? 8u : 4u, *L = quad + G * qi;
        const float *q = acc + (size_t)24 * qi;
        for (uint32_t d = 0; d < G; d++) {
            sk_key_stats *k = L[d] == UINT32_MAX ? NULL : src[L[d]].stats;
            if (!k) continue;
            uint32_t bad;
            memcpy(&bad, &q[2 * G + d], 4);
            k->lo = q[d], k->hi = q[G + d], k->bad = bad;
        }
    }
#endif
    sk_free(a, fill, fill_cap * sizeof *fill);
    sk_free(a, quad, (size_t)(2u * nb + 1u) * 4u * sizeof *quad);
    sk_free(a, qslot, (size_t)(2u * nb + 1u) * sizeof *qslot);
    sk_free(a, acc, (size_t)(2u * nb + 1u) * 24u * sizeof *acc);
    sk_free(a, in_quad, T ? T : 1);
    sk_free(a, src, (size_t)T * sizeof *src);
    if (status != FB_OK) {
        frames_free(a, f);
        return status;
    }
    /* One time array for every track; no per-track values. */
    float *times = sk_alloc(a, n * sizeof(float));
    if (!times) {
        frames_free(a, f);
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

/* Tracks added by reference in a clip that is not frame-major: their keys
 * copied after the others (rotations normalised, as add_track stores them). */
static bool refs_materialize(sk_clip *c, const struct clip_ref *refs) {
    const sk_allocator *a = &c->alloc;
    size_t nt = c->time_total, nv = c->value_total;
    for (uint32_t i = 0; i < c->track_count; i++) {
        const sk_track *t = &c->tracks[i];
        if (!t->pad_) continue;
        size_t per = (size_t)t->width * (t->interp == SK_INTERP_CUBICSPLINE ? 3u : 1u);
        nt += t->key_count, nv += per * t->key_count; /* bounded: add_track checked each product */
    }
    float *times = sk_realloc_raw(a, c->times, c->time_total * sizeof(float), (nt ? nt : 1) * sizeof(float));
    if (!times) return false;
    c->times = times;
    size_t old_t = c->time_total;
    c->time_total = nt ? nt : 1;
    float *values = sk_realloc_raw(a, c->values, c->value_total * sizeof(float), (nv ? nv : 1) * sizeof(float));
    if (!values) return false;
    c->values = values;
    size_t old_v = c->value_total;
    c->value_total = nv ? nv : 1;
    size_t at_t = old_t, at_v = old_v;
    for (uint32_t i = 0; i < c->track_count; i++) {
        sk_track *t = &c->tracks[i];
        if (!t->pad_) continue;
        const struct clip_ref *r = &refs[t->time_offset];
        size_t per = (size_t)t->width * (t->interp == SK_INTERP_CUBICSPLINE ? 3u : 1u), n = per * t->key_count;
        copy_keys(t, r->times, r->values, c->times + at_t, c->values + at_v);
        t->time_offset = at_t, t->value_offset = at_v, t->pad_ = 0;
        at_t += t->key_count, at_v += n;
    }
    return true;
}

sk_result sk_clip_builder_finish(sk_clip_builder *b, sk_clip **out, sk_error *err) {
    if (!out) {
        sk_clip_builder_destroy(b);
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_builder_finish: out is NULL");
    }
    *out = NULL;
    if (!b) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_builder_finish: builder is NULL");
    const sk_allocator *a = &b->alloc;
    sk_clip *c = sk_alloc(a, sizeof *c);
    if (!c) {
        sk_clip_builder_destroy(b);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    c->alloc = b->alloc;
    c->track_count = b->track_count;
    /* Hand the builder's arrays over, shrunk to size (no copy of the keys). */
    c->tracks = b->tracks ? sk_realloc_raw(a, b->tracks, b->track_cap * sizeof(sk_track), (size_t)b->track_count * sizeof(sk_track)) : sk_alloc(a, 0);
    if (c->tracks) { b->tracks = NULL; b->track_cap = 0; }
    /* (no copied keys at all — an empty clip, or every track by reference —:
     * one float each, so that every free names the size allocated) */
    if (b->times && b->time_count == 0) { /* reserved, then every track came by reference */
        sk_free(a, b->times, b->time_cap * sizeof(float));
        b->times = NULL, b->time_cap = 0;
    }
    if (b->values && b->value_count == 0) {
        sk_free(a, b->values, b->value_cap * sizeof(float));
        b->values = NULL, b->value_cap = 0;
    }
    c->time_total = b->times ? b->time_count : 1;
    c->value_total = b->values ? b->value_count : 1;
    c->times = b->times ? sk_realloc_raw(a, b->times, b->time_cap * sizeof(float), b->time_count * sizeof(float)) : sk_alloc(a, sizeof(float));
    if (c->times) { b->times = NULL; b->time_cap = 0; }
    c->values = b->values ? sk_realloc_raw(a, b->values, b->value_cap * sizeof(float), b->value_count * sizeof(float)) : sk_alloc(a, sizeof(float));
    if (c->values) { b->values = NULL; b->value_cap = 0; }
    if (!c->tracks || !c->times || !c->values) {
        c->name = NULL;
        sk_clip_destroy(c);
        sk_clip_builder_destroy(b);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    qsort(c->tracks, c->track_count, sizeof(sk_track), track_cmp);
    float dur = 0.0f;
    uint32_t span = 0;
    for (uint32_t i = 0; i < c->track_count; i++) {
        const sk_track *t = &c->tracks[i];
        float last = fin_times(c, b->refs, t)[t->key_count - 1];
        if (last > dur) dur = last;
        if (t->joint + 1 > span) span = t->joint + 1;
        if (t->path == SK_PATH_WEIGHTS) c->weight_tracks++;
    }
    c->duration = b->has_duration ? b->duration : dur;
    c->joint_span = span;
    for (size_t i = 0; i < b->ref_count; i++)
        if (b->refs[i].stats) b->refs[i].stats->bad = 0, b->refs[i].stats->lo = 3.4e38f, b->refs[i].stats->hi = 0.0f;
    int fb = frames_build(c, b->refs, b->writer, b->fetch, b->fetch_user);
    for (uint32_t i = 0; fb == FB_OK && !c->frames && i < c->track_count; i++) { /* not frame-major: */
        const sk_track *t = &c->tracks[i];                                    /* lazy keys into the caller's arrays */
        const struct clip_ref *r = t->pad_ ? &b->refs[t->time_offset] : NULL;
        if (r && r->lazy &&
            !b->fetch(b->fetch_user, r->values, (size_t)t->key_count * t->width * sizeof(float), (float *)(uintptr_t)r->values))
            fb = FB_IO;
    }
    for (uint32_t i = 0; fb == FB_OK && !c->frames && i < c->track_count; i++) { /* not frame-major: a pass of their own */
        const sk_track *t = &c->tracks[i];
        if (t->pad_ && b->refs[t->time_offset].stats)
            key_stats(b->refs[t->time_offset].values, t->key_count, t->path, b->refs[t->time_offset].stats);
    }
    if (fb == FB_OK && !c->frames && b->ref_count && !refs_materialize(c, b->refs)) fb = FB_OOM;
    if (fb != FB_OK) {
        c->name = NULL;
        sk_clip_destroy(c);
        sk_clip_builder_destroy(b);
        return fb == FB_IO ? sk_error_set(err, SK_ERR_IO, "the animation keys could not be read")
                           : sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    c->name = b->name; /* take ownership */
    b->name = NULL;
    {
        sk_allocator al = b->alloc;
        sk_free(&al, b->tracks, b->track_cap * sizeof(sk_track));
        sk_free(&al, b->times, b->time_cap * sizeof(float));
        sk_free(&al, b->values, b->value_cap * sizeof(float));
        sk_free(&al, b->refs, b->ref_cap * sizeof *b->refs);
        sk_free(&al, b, sizeof *b);
    }
    *out = c;
    return SK_OK;
}

void sk_clip_destroy(sk_clip *c) {
    if (!c) return;
    sk_allocator a = c->alloc;
    if (c->name) sk_free(&a, c->name, strlen(c->name) + 1);
    if (c->kind == SK_CLIP_COMPRESSED) sk_cclip_release(c);
    if (c->frames) frames_free(&a, c->frames);
    sk_free(&a, c->tracks, c->track_count * sizeof(sk_track));
    sk_free(&a, c->times, c->time_total * sizeof(float));
    sk_free(&a, c->values, c->value_total * sizeof(float));
    sk_free(&a, c, sizeof *c);
}

bool sk_clip_is_frame_major(const sk_clip *c) { return c && c->frames; }

size_t sk_clip_memory_size(const sk_clip *c) {
    if (!c) return 0;
    size_t n = sizeof *c + (c->name ? strlen(c->name) + 1 : 0) + (size_t)c->track_count * sizeof(sk_track) +
               c->time_total * sizeof(float) + c->value_total * sizeof(float);
    if (c->frames)
        n += sizeof *c->frames + c->frames->data_bytes +
             (size_t)c->frames->tracks * (sizeof(sk_frame_block) + sizeof(uint32_t));
    if (c->kind == SK_CLIP_COMPRESSED) n += (c->blob_owned ? c->blob_size : 0) + c->cc.plan_words * sizeof(uint32_t);
    return n;
}
const char *sk_clip_name(const sk_clip *c) { return c && c->name ? c->name : ""; }
double sk_clip_duration(const sk_clip *c) { return c ? (double)c->duration : 0.0; }
uint32_t sk_clip_track_count(const sk_clip *c) { return c ? c->track_count : 0; }
uint32_t sk_clip_joint_span(const sk_clip *c) { return c ? c->joint_span : 0; }

bool sk_clip_track_info(const sk_clip *c, uint32_t i, sk_track_info *info) {
    if (!c || i >= c->track_count || !info) return false;
    const sk_track *t = &c->tracks[i];
    info->joint = t->joint;
    info->path = (sk_track_path)t->path;
    info->interpolation = (sk_interpolation)t->interp;
    info->key_count = t->key_count;
    info->width = t->width;
    if (c->kind == SK_CLIP_COMPRESSED) {
        info->time_min = 0.0;
        info->time_max = t->key_count > 1 ? (double)c->duration : 0.0;
        return true;
    }
    info->time_min = (double)c->times[t->time_offset];
    info->time_max = (double)c->times[t->time_offset + t->key_count - 1];
    return true;
}

bool sk_clip_track_keys(const sk_clip *c, uint32_t i, float *times, float *values) {
    if (!c || i >= c->track_count) return false;
    if (c->kind == SK_CLIP_COMPRESSED) return sk_cclip_track_keys(c, i, times, values);
    const sk_track *t = &c->tracks[i];
    if (times) memcpy(times, c->times + t->time_offset, t->key_count * sizeof(float));
    if (values && c->frames) { /* gathered from the frame-major blocks */
        const sk_clip_frames *f = c->frames;
        const sk_frame_block *b = &f->blocks[f->track_block[i]];
        for (uint32_t k = 0; k < f->keys; k++)
            for (uint32_t r = 0; r < b->comps; r++)
                values[(size_t)k * b->comps + r] = f->data[(size_t)k * f->stride + sk_frame_index(b, t->joint % 8u, r)];
    } else if (values) {
        size_t n = (size_t)t->key_count * t->width * (t->interp == SK_INTERP_CUBICSPLINE ? 3u : 1u);
        memcpy(values, c->values + t->value_offset, n * sizeof(float));
    }
    return true;
}

/* ---- sampling ------------------------------------------------------------ */

double sk_clip_wrap_time(const sk_clip *c, double t, sk_loop_mode loop) {
    if (t != t) return 0.0;
    double d = c ? (double)c->duration : 0.0;
    if (!(d > 0.0)) return 0.0;
    if (loop == SK_LOOP_CLAMP) return t < 0.0 ? 0.0 : (t > d ? d : t);
    if (!isfinite(t)) return 0.0;
    if (loop == SK_LOOP_PING_PONG) {
        double p = 2.0 * d, w = t - p * floor(t / p);
        if (w >= p || w < 0.0) w = 0.0;
        return w > d ? p - w : w;
    }
    /* Same wrap as glTF players (and three.js): t - d*floor(t/d), so t == d plays 0.
     * Inside the clip that is t itself, without the division: for 0 < t < d
     * (so t <= d - ulp(d)) t / d rounds to at most 1 - 2^-53, its floor is 0
     * and the formula gives t exactly. In the second period, d <= t < 2d,
     * t / d is at least 1 and rounds to at most 2 - 2^-52: the floor is 1 and
     * the formula gives t - d, exact (Sterbenz) and below d. */
    if (t > 0.0 && t < d) return t;
    if (t >= d && t < 2.0 * d) return t - d;
    double w = t - d * floor(t / d);
    if (w >= d || w < 0.0) w = 0.0;
    return w;
}

/* Largest k with times[k] <= t, or -1 when t is before the first key. */
static int64_t find_key(const float *times, uint32_t n, double t, uint32_t *cursor) {
    if (t < (double)times[0]) {
        if (cursor) *cursor = 0;
        return -1;
    }
    uint32_t k;
    if (cursor && *cursor < n) {
        k = *cursor;
        if ((double)times[k] <= t) {
            /* step forward a few keys, then fall back to a search */
            uint32_t steps = 0;
            while (k + 1 < n && (double)times[k + 1] <= t && steps < 8) { k++; steps++; }
            if (k + 1 >= n || (double)times[k + 1] > t) { *cursor = k; return k; }
        } else if (k > 0 && (double)times[k - 1] <= t) {
            *cursor = k - 1;
            return k - 1;
        }
    }
    uint32_t lo = 0, hi = n; /* invariant: times[lo] <= t, answer in [lo, hi) */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((double)times[mid] <= t) lo = mid; else hi = mid;
    }
    k = lo;
    if (cursor) *cursor = k;
    return k;
}

/* Frame-major sampling (sk_clip_frames): the two keys around t once for the
 * clip, then each block's eight joints at a time; written into an AoS pose
 * (aos) or the rows of an SoA pose (soa: sk_soa_pose data). Keys are the
 * same as sample_track's: before the first key the first, at or after the
 * last the last, as stored; between them translation and scale
 * a + (b - a) u and rotations sk_quat_slerp (bit for bit). */
void sk_frames_sample(const sk_clip *c, double t, uint32_t *cursor, sk_transform *aos, float *soa, bool wide) {
    const sk_clip_frames *f = c->frames;
    int64_t k = find_key(c->times, f->keys, t, cursor);
    bool edge = k < 0 || (uint32_t)k + 1 >= f->keys;
    uint32_t k0 = edge ? (k < 0 ? 0 : f->keys - 1) : (uint32_t)k;
    const float *A = f->data + (size_t)k0 * f->stride, *B = edge ? A : A + f->stride;
    float u = 0.0f;
    if (!edge) {
        double t0 = c->times[k0], td = (double)c->times[k0 + 1] - t0;
        u = (float)((t - t0) / td);
    }
    float tmp[32] __attribute__((aligned(32)));
    for (uint32_t bi = 0; bi < f->block_count; bi++) {
        const sk_frame_block *b = &f->blocks[bi];
        const float *ka = A + b->offset, *kb = B + b->offset, *res = ka;
        if (b->compact) { /* one or two tracks, one by one: the same operations as a lane */
            unsigned idx = 0;
            for (unsigned m = b->mask; m; m &= m - 1, idx++) {
                unsigned l = (unsigned)__builtin_ctz(m);
                const float *va = ka + idx * b->comps, *vb = kb + idx * b->comps;
                float v[4] = {va[0], va[1], va[2], b->comps == 4 ? va[3] : 0.0f};
                if (!edge && b->path == SK_PATH_ROTATION) {
                    sk_quat q = sk_quat_slerp(sk_quat_make(va[0], va[1], va[2], va[3]), sk_quat_make(vb[0], vb[1], vb[2], vb[3]), u);
                    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
                } else if (!edge) {
                    for (int r = 0; r < 3; r++) v[r] = va[r] + (vb[r] - va[r]) * u;
                }
                if (soa) {
                    float *o = soa + (size_t)b->group * 80u +
                               (b->path == SK_PATH_TRANSLATION ? SKK_ROW_T : b->path == SK_PATH_ROTATION ? SKK_ROW_R : SKK_ROW_S);
                    for (unsigned r = 0; r < b->comps; r++) o[r * 8 + l] = v[r];
                    continue;
                }
                sk_transform *x = &aos[(size_t)b->group * 8u + l];
                if (b->path == SK_PATH_ROTATION) x->r = sk_quat_make(v[0], v[1], v[2], v[3]);
                else if (b->path == SK_PATH_TRANSLATION) x->t = sk_vec3_make(v[0], v[1], v[2]);
                else x->s = sk_vec3_make(v[0], v[1], v[2]);
            }
            continue;
        }
        if (!edge && b->path == SK_PATH_ROTATION) {
            unsigned far;
#if defined(SK_SOA_X86)
            far = wide ? skk_slerp_rows_w8(ka, kb, u, tmp) : skk_slerp_rows_w4(ka, kb, u, tmp);
#else
            far = skk_slerp_rows_w4(ka, kb, u, tmp);
#endif
            for (far &= b->mask; far; far &= far - 1) {
                unsigned l = (unsigned)__builtin_ctz(far);
                sk_quat q = sk_quat_slerp(sk_quat_make(ka[l], ka[8 + l], ka[16 + l], ka[24 + l]),
                                          sk_quat_make(kb[l], kb[8 + l], kb[16 + l], kb[24 + l]), u);
                tmp[l] = q.x, tmp[8 + l] = q.y, tmp[16 + l] = q.z, tmp[24 + l] = q.w;
            }
            res = tmp;
        } else if (!edge) {
#if defined(SK_SOA_X86)
            if (wide) skk_lerp_rows_w8(ka, kb, u, 3, tmp);
            else
#endif
                skk_lerp_rows_w4(ka, kb, u, 3, tmp);
            res = tmp;
        }
        if (soa) {
            float *o = soa + (size_t)b->group * 80u +
                       (b->path == SK_PATH_TRANSLATION ? SKK_ROW_T : b->path == SK_PATH_ROTATION ? SKK_ROW_R : SKK_ROW_S);
#if defined(SK_SOA_X86)
            if (wide) skk_store_rows_w8(res, b->comps, b->mask, o);
            else
#endif
                skk_store_rows_w4(res, b->comps, b->mask, o);
            continue;
        }
        for (unsigned m = b->mask; m; m &= m - 1) {
            unsigned l = (unsigned)__builtin_ctz(m);
            sk_transform *x = &aos[(size_t)b->group * 8u + l];
            if (b->path == SK_PATH_ROTATION) x->r = sk_quat_make(res[l], res[8 + l], res[16 + l], res[24 + l]);
            else if (b->path == SK_PATH_TRANSLATION) x->t = sk_vec3_make(res[l], res[8 + l], res[16 + l]);
            else x->s = sk_vec3_make(res[l], res[8 + l], res[16 + l]);
        }
    }
}

static void write_value(sk_track_path path, const float *v, uint32_t width, sk_transform *x, float *w) {
    switch (path) {
    case SK_PATH_TRANSLATION: x->t = sk_vec3_make(v[0], v[1], v[2]); break;
    case SK_PATH_ROTATION: x->r = sk_quat_make(v[0], v[1], v[2], v[3]); break;
    case SK_PATH_SCALE: x->s = sk_vec3_make(v[0], v[1], v[2]); break;
    case SK_PATH_WEIGHTS: memcpy(w, v, width * sizeof(float)); break;
    }
}

static void sample_track(const sk_clip *c, const sk_track *tr, double t, uint32_t *cursor, sk_transform *x,
                         float *weights) {
    const float *times = c->times + tr->time_offset;
    const float *vals = c->values + tr->value_offset;
    uint32_t n = tr->key_count, w = tr->width;
    bool cubic = tr->interp == SK_INTERP_CUBICSPLINE;
    uint32_t stride = cubic ? 3 * w : w, mid = cubic ? w : 0; /* value element within a cubic key */
    int64_t k = find_key(times, n, t, cursor);
    /* Before the first key: the first key's value; at or after the last: the last's. */
    if (k < 0 || (uint32_t)k + 1 >= n) {
        uint32_t key = k < 0 ? 0 : n - 1;
        const float *kv = vals + (size_t)key * stride + mid;
        if (cubic && tr->path == SK_PATH_ROTATION) {
            /* CUBICSPLINE rotation values are stored as given (their tangents
             * go with them): normalised here as between keys, so a clip built
             * from non-unit values (a .skc, code) never hands out a
             * non-unit rotation (found by fuzz_skc: a key of length 3e13). */
            x->r = sk_quat_normalize(sk_quat_make(kv[0], kv[1], kv[2], kv[3]));
            return;
        }
        write_value((sk_track_path)tr->path, kv, w, x, weights);
        return;
    }
    uint32_t k0 = (uint32_t)k, k1 = k0 + 1;
    double t0 = times[k0], t1 = times[k1];
    double td = t1 - t0; /* > 0: times[k1] > t >= times[k0] */
    double u = (t - t0) / td;
    if (tr->interp == SK_INTERP_STEP) {
        write_value((sk_track_path)tr->path, vals + (size_t)k0 * w, w, x, weights);
        return;
    }
    float out[4];
    float *o = tr->path == SK_PATH_WEIGHTS ? weights : out;
    if (!cubic) {
        const float *a = vals + (size_t)k0 * w, *b = vals + (size_t)k1 * w;
        if (tr->path == SK_PATH_ROTATION) {
            /* glTF 2.0 Appendix C: LINEAR rotation is slerp (shortest arc). */
            x->r = sk_quat_slerp(sk_quat_make(a[0], a[1], a[2], a[3]), sk_quat_make(b[0], b[1], b[2], b[3]), (float)u);
            return;
        }
        for (uint32_t i = 0; i < w; i++) o[i] = (float)((double)a[i] + ((double)b[i] - (double)a[i]) * u);
    } else {
        /* glTF 2.0 Appendix C, cubic Hermite spline:
         *   p(u) = (2u^3-3u^2+1) v_k + td (u^3-2u^2+u) b_k + (-2u^3+3u^2) v_k+1 + td (u^3-u^2) a_k+1
         * with b_k the out-tangent of key k and a_k+1 the in-tangent of key k+1. */
        const float *v0 = vals + (size_t)k0 * stride + w, *b0 = vals + (size_t)k0 * stride + 2 * w;
        const float *a1 = vals + (size_t)k1 * stride, *v1 = vals + (size_t)k1 * stride + w;
        double u2 = u * u, u3 = u2 * u;
        double h00 = 2 * u3 - 3 * u2 + 1, h10 = (u3 - 2 * u2 + u) * td, h01 = -2 * u3 + 3 * u2, h11 = (u3 - u2) * td;
        for (uint32_t i = 0; i < w; i++)
            o[i] = (float)(h00 * v0[i] + h10 * b0[i] + h01 * v1[i] + h11 * a1[i]);
        if (tr->path == SK_PATH_ROTATION) {
            x->r = sk_quat_normalize(sk_quat_make(o[0], o[1], o[2], o[3])); /* normalised after, per spec */
            return;
        }
    }
    if (tr->path == SK_PATH_TRANSLATION) x->t = sk_vec3_make(o[0], o[1], o[2]);
    else if (tr->path == SK_PATH_SCALE) x->s = sk_vec3_make(o[0], o[1], o[2]);
}

static sk_result check_layout(const sk_clip *c, const sk_skeleton *s) {
    if (!c || !s) return SK_ERR_INVALID_ARGUMENT;
    if (c->joint_span > s->joint_count) return SK_ERR_INVALID_ARGUMENT;
    if (!c->weight_tracks) return SK_OK;
    for (uint32_t i = 0; i < c->track_count; i++) {
        const sk_track *t = &c->tracks[i];
        if (t->path == SK_PATH_WEIGHTS && t->width != s->weight_count[t->joint]) return SK_ERR_INVALID_ARGUMENT;
    }
    return SK_OK;
}

/* LINEAR rotation tracks are interpolated in batches of four with SSE2 (eight
 * with AVX2 when the CPU has it), in
 * structure-of-arrays form: the same series and operation order as
 * sk_quat_slerp (core/math.c; the constants are core/math_inline.h's), so
 * the results are bit-identical to it
 * (tests/test_core.c checks); lanes whose keys are more than 120 degrees
 * apart take sk_quat_slerp's trigonometric branch. One call of the scalar
 * slerp per track cost about half of a crowd's animation time. */
typedef struct slerp_batch {
    const float *a[8], *b[8];
    float u[8];
    sk_quat *out[8];
    int n;
    int cap;      /* 8 with AVX2 (eight lanes), else 4 */
} slerp_batch;

#if defined(SKM_C4_SSE)

/* Entries from..from+used-1 of the batch (used <= 4). */
static void slerp_flush4(slerp_batch *sbatch, int from, int used) {
    slerp_batch local = *sbatch, *sb = &local;
    for (int i = 0; i < used; i++) /* lanes 0..used-1 = entries from.. */
        sb->a[i] = sbatch->a[from + i], sb->b[i] = sbatch->b[from + i], sb->u[i] = sbatch->u[from + i],
        sb->out[i] = sbatch->out[from + i];
    sk_quat spare[4];
    for (int i = used; i < 4; i++) { /* a partial batch: idle lanes repeat lane 0 into spare outputs */
        sb->a[i] = sb->a[0], sb->b[i] = sb->b[0], sb->u[i] = sb->u[0];
        sb->out[i] = &spare[i];
    }
    __m128 A[4], B[4];
    skm_soa4_load(sb->a, A);
    skm_soa4_load(sb->b, B);
    __m128 ax = A[0], ay = A[1], az = A[2], aw = A[3], bx = B[0], by = B[1], bz = B[2], bw = B[3];
    const __m128 one = _mm_set1_ps(1.0f), zero = _mm_setzero_ps();
    __m128 t = _mm_loadu_ps(sb->u);
    /* x = a.b in sk_quat_slerp's order: ((ax bx + ay by) + az bz) + aw bw */
    __m128 x = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(ax, bx), _mm_mul_ps(ay, by)), _mm_mul_ps(az, bz)),
                          _mm_mul_ps(aw, bw));
    int far = _mm_movemask_ps(_mm_cmpunord_ps(x, x));
    __m128 neg = _mm_cmplt_ps(x, zero);
    __m128 sgn = _mm_or_ps(_mm_and_ps(neg, _mm_set1_ps(-1.0f)), _mm_andnot_ps(neg, one));
    x = _mm_min_ps(_mm_mul_ps(x, sgn), one);
    far |= _mm_movemask_ps(_mm_cmplt_ps(x, _mm_set1_ps(SKM_SLERP_TRIG_BELOW)));
    __m128 xm1 = _mm_sub_ps(x, one), d = _mm_sub_ps(one, t), t2 = _mm_mul_ps(t, t), d2 = _mm_mul_ps(d, d);
    /* Terms per lane as in the scalar code: 3 above xm1 = -0.01, 6 above -0.1, else 8 (with mu). */
    __m128 m3 = _mm_cmpgt_ps(xm1, _mm_set1_ps(SKM_SLERP_3_TERMS_ABOVE));
    __m128 m5 = _mm_cmpgt_ps(xm1, _mm_set1_ps(SKM_SLERP_6_TERMS_ABOVE));
    /* Term i is used by every lane for i <= 2, by 6- and 8-term lanes for
     * i <= 5, by 8-term lanes for i >= 6; a lane that skips it keeps ct = cd = 1 exactly. */
    const __m128 all = _mm_cmpeq_ps(one, one), use35 = _mm_andnot_ps(m3, all), use67 = _mm_andnot_ps(m5, all);
    __m128 ct = one, cd = one;
    /* Terms no lane uses are skipped (keys close together: usually 3 terms). */
    int start = _mm_movemask_ps(m3) == 15 ? 2 : _mm_movemask_ps(m5) == 15 ? 5 : 7;
    for (int i = start; i >= 0; i--) {
        __m128 use = i >= 6 ? use67 : i >= 3 ? use35 : all;
        __m128 ui = _mm_set1_ps(skm_slerp_u[i]), vi = _mm_set1_ps(skm_slerp_v[i]);
        __m128 nct = _mm_add_ps(one, _mm_mul_ps(_mm_mul_ps(_mm_sub_ps(_mm_mul_ps(ui, t2), vi), xm1), ct));
        __m128 ncd = _mm_add_ps(one, _mm_mul_ps(_mm_mul_ps(_mm_sub_ps(_mm_mul_ps(ui, d2), vi), xm1), cd));
        ct = _mm_or_ps(_mm_and_ps(use, nct), _mm_andnot_ps(use, ct));
        cd = _mm_or_ps(_mm_and_ps(use, ncd), _mm_andnot_ps(use, cd));
    }
    ct = _mm_mul_ps(ct, _mm_mul_ps(t, sgn));
    cd = _mm_mul_ps(cd, d);
    __m128 qx = _mm_add_ps(_mm_mul_ps(cd, ax), _mm_mul_ps(ct, bx));
    __m128 qy = _mm_add_ps(_mm_mul_ps(cd, ay), _mm_mul_ps(ct, by));
    __m128 qz = _mm_add_ps(_mm_mul_ps(cd, az), _mm_mul_ps(ct, bz));
    __m128 qw = _mm_add_ps(_mm_mul_ps(cd, aw), _mm_mul_ps(ct, bw));
    __m128 l2 = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(qx, qx), _mm_mul_ps(qy, qy)), _mm_mul_ps(qz, qz)),
                           _mm_mul_ps(qw, qw));
    far |= _mm_movemask_ps(_mm_cmpngt_ps(l2, zero)); /* zero length: the scalar code's identity */
    __m128 inv = _mm_div_ps(one, _mm_sqrt_ps(l2));
    qx = _mm_mul_ps(qx, inv), qy = _mm_mul_ps(qy, inv), qz = _mm_mul_ps(qz, inv), qw = _mm_mul_ps(qw, inv);
    _MM_TRANSPOSE4_PS(qx, qy, qz, qw);
    __m128 q[4] = {qx, qy, qz, qw};
    for (int i = 0; i < used; i++) {
        if (far & (1 << i)) {
            const float *a = sb->a[i], *b = sb->b[i];
            *sb->out[i] = sk_quat_slerp(sk_quat_make(a[0], a[1], a[2], a[3]), sk_quat_make(b[0], b[1], b[2], b[3]), sb->u[i]);
        } else {
            _mm_storeu_ps(&sb->out[i]->x, q[i]);
        }
    }
}

#if defined(SKM_SOA8)
#define SK_SLERP_AVX2 1
/* The same, eight lanes (AVX2 without FMA: identical operations). */
__attribute__((target("avx2"))) static void slerp_flush8(slerp_batch *sbatch) {
    slerp_batch local = *sbatch, *sb = &local;
    int used = sb->n;
    sk_quat spare[8];
    for (int i = used; i < 8; i++) {
        sb->a[i] = sb->a[0], sb->b[i] = sb->b[0], sb->u[i] = sb->u[0];
        sb->out[i] = &spare[i];
    }
    __m256 A[4], B[4];
    skm_soa8_load(sb->a, A);
    skm_soa8_load(sb->b, B);
    const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps(), all = _mm256_cmp_ps(one, one, _CMP_EQ_OQ);
    __m256 t = _mm256_loadu_ps(sb->u);
    __m256 x = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(A[0], B[0]), _mm256_mul_ps(A[1], B[1])),
                                           _mm256_mul_ps(A[2], B[2])),
                             _mm256_mul_ps(A[3], B[3]));
    int far = _mm256_movemask_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q));
    __m256 neg = _mm256_cmp_ps(x, zero, _CMP_LT_OQ);
    __m256 sgn = _mm256_or_ps(_mm256_and_ps(neg, _mm256_set1_ps(-1.0f)), _mm256_andnot_ps(neg, one));
    x = _mm256_min_ps(_mm256_mul_ps(x, sgn), one);
    far |= _mm256_movemask_ps(_mm256_cmp_ps(x, _mm256_set1_ps(SKM_SLERP_TRIG_BELOW), _CMP_LT_OQ));
    __m256 xm1 = _mm256_sub_ps(x, one), d = _mm256_sub_ps(one, t), t2 = _mm256_mul_ps(t, t), d2 = _mm256_mul_ps(d, d);
    __m256 m3 = _mm256_cmp_ps(xm1, _mm256_set1_ps(SKM_SLERP_3_TERMS_ABOVE), _CMP_GT_OQ);
    __m256 m5 = _mm256_cmp_ps(xm1, _mm256_set1_ps(SKM_SLERP_6_TERMS_ABOVE), _CMP_GT_OQ);
    const __m256 use35 = _mm256_andnot_ps(m3, all), use67 = _mm256_andnot_ps(m5, all);
    __m256 ct = one, cd = one;
    int start = _mm256_movemask_ps(m3) == 255 ? 2 : _mm256_movemask_ps(m5) == 255 ? 5 : 7;
    for (int i = start; i >= 0; i--) {
        __m256 use = i >= 6 ? use67 : i >= 3 ? use35 : all;
        __m256 ui = _mm256_set1_ps(skm_slerp_u[i]), vi = _mm256_set1_ps(skm_slerp_v[i]);
        __m256 nct = _mm256_add_ps(one, _mm256_mul_ps(_mm256_mul_ps(_mm256_sub_ps(_mm256_mul_ps(ui, t2), vi), xm1), ct));
        __m256 ncd = _mm256_add_ps(one, _mm256_mul_ps(_mm256_mul_ps(_mm256_sub_ps(_mm256_mul_ps(ui, d2), vi), xm1), cd));
        ct = _mm256_blendv_ps(ct, nct, use);
        cd = _mm256_blendv_ps(cd, ncd, use);
    }
    ct = _mm256_mul_ps(ct, _mm256_mul_ps(t, sgn));
    cd = _mm256_mul_ps(cd, d);
    __m256 q[4];
    for (int e = 0; e < 4; e++) q[e] = _mm256_add_ps(_mm256_mul_ps(cd, A[e]), _mm256_mul_ps(ct, B[e]));
    __m256 l2 = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(q[0], q[0]), _mm256_mul_ps(q[1], q[1])),
                                            _mm256_mul_ps(q[2], q[2])),
                              _mm256_mul_ps(q[3], q[3]));
    far |= _mm256_movemask_ps(_mm256_cmp_ps(l2, zero, _CMP_NGT_UQ));
    __m256 inv = _mm256_div_ps(one, _mm256_sqrt_ps(l2));
    for (int e = 0; e < 4; e++) q[e] = _mm256_mul_ps(q[e], inv);
    __m128 rs[8];
    skm_soa8_store(q, rs);
    for (int lane = 0; lane < used; lane++) {
        if (far & (1 << lane)) {
            const float *a = sb->a[lane], *b = sb->b[lane];
            *sb->out[lane] =
                sk_quat_slerp(sk_quat_make(a[0], a[1], a[2], a[3]), sk_quat_make(b[0], b[1], b[2], b[3]), sb->u[lane]);
        } else {
            _mm_storeu_ps(&sb->out[lane]->x, rs[lane]);
        }
    }
}
#endif

static void slerp_flush(slerp_batch *sb) {
    if (sb->n == 0) return;
#ifdef SK_SLERP_AVX2
    if (sb->cap == 8 && sb->n > 4) {
        slerp_flush8(sb);
        sb->n = 0;
        return;
    }
#endif
    slerp_flush4(sb, 0, sb->n < 4 ? sb->n : 4);
    if (sb->n > 4) slerp_flush4(sb, 4, sb->n - 4);
    sb->n = 0;
}
#else
static void slerp_flush(slerp_batch *sb) {
    for (int i = 0; i < sb->n; i++) {
        const float *a = sb->a[i], *b = sb->b[i];
        *sb->out[i] = sk_quat_slerp(sk_quat_make(a[0], a[1], a[2], a[3]), sk_quat_make(b[0], b[1], b[2], b[3]), sb->u[i]);
    }
    sb->n = 0;
}
#endif

/* A LINEAR rotation track between two keys goes into the batch (flushed when
 * full); everything else is sampled at once. */
static void sample_track_batched(const sk_clip *c, const sk_track *tr, double t, uint32_t *cursor, sk_transform *local,
                                 float *weights, slerp_batch *sb) {
    if (tr->path != SK_PATH_ROTATION || tr->interp != SK_INTERP_LINEAR) {
        sample_track(c, tr, t, cursor, &local[tr->joint], weights);
        return;
    }
    const float *times = c->times + tr->time_offset;
    uint32_t n = tr->key_count;
    int64_t k = find_key(times, n, t, cursor);
    if (k < 0 || (uint32_t)k + 1 >= n) {
        sample_track(c, tr, t, cursor, &local[tr->joint], weights); /* before the first / after the last key */
        return;
    }
    uint32_t k0 = (uint32_t)k;
    double t0 = times[k0], td = (double)times[k0 + 1] - t0;
    const float *vals = c->values + tr->value_offset;
    int i = sb->n++;
    sb->a[i] = vals + (size_t)k0 * 4;
    sb->b[i] = vals + (size_t)(k0 + 1) * 4;
    sb->u[i] = (float)((t - t0) / td);
    sb->out[i] = &local[tr->joint].r;
    if (sb->n == sb->cap) slerp_flush(sb);
}

/* Track i (not a morph-weight track) of a per-track-keys clip at wrapped time
 * t into x (the SoA fallback, soa.c). */
void sk_clip_track_sample(const sk_clip *c, uint32_t i, double t, uint32_t *cursor, sk_transform *x) {
    sample_track(c, &c->tracks[i], t, cursor, x, NULL);
}

sk_result sk_clip_args_check(const sk_clip *c, const sk_skeleton *s, const uint32_t *cursor, size_t cursor_count,
                             bool weights, const char *who, sk_error *err) {
    if (!c) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: NULL clip", who);
    if (cursor && cursor_count < sk_clip_cursor_size(c))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: cursor holds %zu entries, clip '%s' needs %zu", who,
                            cursor_count, sk_clip_name(c), sk_clip_cursor_size(c));
    if (weights ? check_layout(c, s) != SK_OK : c->joint_span > s->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: clip '%s' targets %s the skeleton does not have", who,
                            sk_clip_name(c), weights ? "joints or morph weights" : "joints");
    return SK_OK;
}

static sk_result sample_args(const sk_clip *c, const sk_skeleton *s, const uint32_t *cursor, size_t cursor_count,
                             const sk_pose *p, const char *who, sk_error *err) {
    sk_result r = sk_pose_check(s, p, who, err);
    return r != SK_OK ? r : sk_clip_args_check(c, s, cursor, cursor_count, true, who, err);
}

static void sample_tracks(const sk_clip *c, const sk_skeleton *s, double t, sk_loop_mode loop, uint32_t *cursor,
                          size_t cursor_count, sk_transform *io_local, float *io_weights) {
    double tw = sk_clip_wrap_time(c, t, loop);
    if (c->kind == SK_CLIP_COMPRESSED) {
        (void)s, (void)io_weights; /* no morph weights, no key search */
        sk_cclip_sample_tracks(c, tw, sk_cclip_cache(c, cursor, cursor_count), io_local);
        return;
    }
    if (c->frames) {
        sk_frames_sample(c, tw, cursor, io_local, NULL, sk_soa_use_avx2());
        return;
    }
    slerp_batch sb;
    sb.n = 0;
    sb.cap = 4;
#ifdef SK_SLERP_AVX2
    if (__builtin_cpu_supports("avx2")) sb.cap = 8;
#endif
    for (uint32_t i = 0; i < c->track_count; i++) {
        const sk_track *tr = &c->tracks[i];
        float *w = tr->path == SK_PATH_WEIGHTS ? io_weights + s->weight_offset[tr->joint] : NULL;
        if (tr->path == SK_PATH_WEIGHTS && !io_weights) continue;
        sample_track_batched(c, tr, tw, cursor ? &cursor[i] : NULL, io_local, w, &sb);
    }
    slerp_flush(&sb);
}

sk_result sk_clip_sample_tracks(const sk_clip *c, const sk_skeleton *s, double t, sk_loop_mode loop, uint32_t *cursor,
                                size_t cursor_count, sk_pose *io, sk_error *err) {
    sk_result r = sample_args(c, s, cursor, cursor_count, io, "sk_clip_sample_tracks", err);
    if (r != SK_OK) return r;
    sample_tracks(c, s, t, loop, cursor, cursor_count, io->local, io->weight_count ? io->weights : NULL);
    return SK_OK;
}

sk_result sk_clip_sample_cursor(const sk_clip *c, const sk_skeleton *s, double t, sk_loop_mode loop, uint32_t *cursor,
                                size_t cursor_count, sk_pose *out, sk_error *err) {
    sk_result r = sample_args(c, s, cursor, cursor_count, out, "sk_clip_sample", err);
    if (r != SK_OK) return r;
    float *w = out->weight_count ? out->weights : NULL;
    if (w) memcpy(w, s->rest_weights, (size_t)s->weight_total * sizeof(float));
    if (c->kind == SK_CLIP_COMPRESSED) { /* no morph weights, no key search */
        double tw = sk_clip_wrap_time(c, t, loop);
        uint32_t *cache = sk_cclip_cache(c, cursor, cursor_count);
        /* many animated tracks per joint: the whole pose through SoA groups */
        if (c->cc.pose_rows && sk_cclip_sample_pose(c, s, tw, cache, out->local)) return SK_OK;
        memcpy(out->local, s->rest, (size_t)s->joint_count * sizeof(sk_transform));
        sk_cclip_sample_tracks(c, tw, cache, out->local);
        return SK_OK;
    }
    memcpy(out->local, s->rest, (size_t)s->joint_count * sizeof(sk_transform));
    sample_tracks(c, s, t, loop, cursor, cursor_count, out->local, w);
    return SK_OK;
}

sk_result sk_clip_sample(const sk_clip *c, const sk_skeleton *s, double t, sk_loop_mode loop, sk_pose *out,
                         sk_error *err) {
    return sk_clip_sample_cursor(c, s, t, loop, NULL, 0, out, err);
}

/* Frame-major clips keep one key position for all their tracks. */
size_t sk_clip_cursor_size(const sk_clip *c) { return !c ? 0 : c->frames ? 1 : c->track_count; }

size_t sk_clip_cursor_cache_size(const sk_clip *c) {
    size_t n = sk_clip_cursor_size(c);
    return c && c->kind == SK_CLIP_COMPRESSED && c->cc.cache_words > n ? c->cc.cache_words : n;
}
