/* The clip builder (core/clip.h): tracks added by copy or by reference,
 * checked as they come, and finish, which sorts them and lays the clip out
 * (frame-major keys where it qualifies: clip_build_frames.c). */
#include "core/math_inline.h"
#include "core/clip_build_internal.h"

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
    struct clip_ref *refs; /* tracks added by reference (clip_build_internal.h) */
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

/* sk_clip_normalize_key's keys whose squared length overflows float
 * (clip_build_internal.h): q / |q| in double. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
void sk_clip_normalize_key_wide(float *q) {
    double d2 = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3];
    double dinv = 1.0 / sqrt(d2);
    for (int k = 0; k < 4; k++) q[k] = (float)(q[k] * dinv);
}

/* A track's keys into the clip's arrays, LINEAR and STEP rotations
 * normalised (CUBICSPLINE ones are normalised after interpolation). */
static void copy_keys(const sk_track *t, const float *times, const float *values, float *dt, float *dv) {
    size_t n = (size_t)t->key_count * t->width * (t->interp == SK_INTERP_CUBICSPLINE ? 3u : 1u);
    memcpy(dt, times, t->key_count * sizeof(float));
    memcpy(dv, values, n * sizeof(float));
    if (t->path == SK_PATH_ROTATION && t->interp != SK_INTERP_CUBICSPLINE)
        for (size_t v = 0; v < n; v += 4) sk_clip_normalize_key(dv + v);
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
        float last = sk_clip_fin_times(c, b->refs, t)[t->key_count - 1];
        if (last > dur) dur = last;
        if (t->joint + 1 > span) span = t->joint + 1;
        if (t->path == SK_PATH_WEIGHTS) c->weight_tracks++;
    }
    c->duration = b->has_duration ? b->duration : dur;
    c->joint_span = span;
    for (size_t i = 0; i < b->ref_count; i++)
        if (b->refs[i].stats) b->refs[i].stats->bad = 0, b->refs[i].stats->lo = 3.4e38f, b->refs[i].stats->hi = 0.0f;
    int fb = sk_clip_frames_build(c, b->refs, b->writer, b->fetch, b->fetch_user);
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
            sk_clip_key_stats(b->refs[t->time_offset].values, t->key_count, t->path, b->refs[t->time_offset].stats);
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
