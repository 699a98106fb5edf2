/* Motion analyses as JSON (format: skelanim/io/analysis_json.h). The field
 * tables below drive both the writer and the reader, so the two cannot
 * disagree on a name. */
#include "io/json_internal.h"
#include "skelanim/io/analysis_json.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define FORMAT_NAME "skelanim-motion-analysis"
#define FORMAT_VERSION 1

typedef enum { F_FLOAT, F_VEC3, F_I32, F_U32 } field_kind;
typedef struct field { const char *key; size_t off; field_kind kind; } field;

#define LF(name, kind) {#name, offsetof(sk_leg_analysis, name), kind}
static const field leg_fields[] = {
    LF(hip_joint, F_I32), LF(knee_joint, F_I32), LF(ankle_joint, F_I32), LF(toe_joint, F_I32),
    LF(heel_point, F_VEC3), LF(toe_point, F_VEC3), LF(leg_length, F_FLOAT),
    LF(center, F_VEC3), LF(a, F_VEC3), LF(b, F_VEC3), LF(axis, F_VEC3),
    LF(heel_ground, F_FLOAT), LF(toe_ground, F_FLOAT), LF(heel_contact, F_FLOAT), LF(toe_contact, F_FLOAT),
    LF(stance_time, F_FLOAT), LF(stance_sample, F_U32), LF(foot_length, F_FLOAT), LF(foot_direction, F_VEC3),
    LF(stance_position, F_VEC3),
    LF(heel_off, F_FLOAT), LF(toe_off, F_FLOAT), LF(linear_speed_end, F_FLOAT), LF(foot_lift, F_FLOAT),
    LF(foot_off, F_FLOAT), LF(post_foot_lift, F_FLOAT),
    LF(heel_strike, F_FLOAT), LF(toe_strike, F_FLOAT), LF(linear_speed_begin, F_FLOAT), LF(foot_land, F_FLOAT),
    LF(foot_strike, F_FLOAT), LF(pre_foot_land, F_FLOAT), LF(stance_fraction, F_FLOAT),
    LF(stride_displacement, F_VEC3), LF(stride_velocity, F_FLOAT), LF(stride_direction, F_VEC3),
    LF(stride_distance, F_FLOAT), LF(stride_source, F_U32),
};
#undef LF
#define CF(name, kind) {#name, offsetof(sk_motion_analysis, name), kind}
static const field clip_fields[] = {
    CF(cycle_velocity, F_FLOAT), CF(cycle_speed, F_FLOAT), CF(cycle_distance, F_FLOAT),
    CF(cycle_direction, F_VEC3), CF(root_velocity, F_VEC3),
};
#undef CF

/* Per-sample arrays: name, vec3 (3 floats per sample) or float. */
typedef struct series { const char *key; size_t off; int width; } series;
#define SV(name) {#name, offsetof(sk_leg_analysis, name), 3}
#define SF(name) {#name, offsetof(sk_leg_analysis, name), 1}
static const series leg_series[] = {SV(heel), SV(toe), SV(middle), SV(footbase), SV(normalized_footbase),
                                    SF(heel_height), SF(toe_height), SF(balance)};
#undef SV
#undef SF

static void write_fields(sk_json_writer *w, const void *base, const field *f, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const char *p = (const char *)base + f[i].off;
        sk_json_key(w, f[i].key);
        switch (f[i].kind) {
        case F_FLOAT: sk_json_float(w, *(const float *)p); break;
        case F_VEC3: sk_json_floats(w, (const float *)p, 3); break;
        case F_I32: sk_json_int(w, *(const int32_t *)p); break;
        case F_U32: sk_json_uint(w, *(const uint32_t *)p); break;
        }
    }
}

sk_result sk_motion_analysis_to_json(const sk_motion_analysis *a, const sk_allocator *alloc, char **text, size_t *len,
                                     sk_error *err) {
    if (!a || !text || !len) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion analysis JSON: NULL argument");
    *text = NULL;
    *len = 0;
    sk_json_writer w;
    sk_json_writer_init(&w, alloc);
    sk_json_begin_object(&w);
    sk_json_key_string(&w, "format", FORMAT_NAME);
    sk_json_key_uint(&w, "version", FORMAT_VERSION);
    sk_json_key_string(&w, "clip", a->clip_name);
    sk_json_key(&w, "backward");
    sk_json_bool(&w, a->backward);
    sk_json_key_uint(&w, "sample_count", a->sample_count);
    char num[40];
    snprintf(num, sizeof num, "%.17g", a->cycle_duration);
    for (char *c = num; *c; c++)
        if (*c == ',') *c = '.'; /* whatever the C locale */
    sk_json_key(&w, "cycle_duration");
    if (isfinite(a->cycle_duration)) sk_json_raw(&w, num, strlen(num));
    else sk_json_raw(&w, "null", 4);
    if (a->cycle_start != 0 && isfinite(a->cycle_start)) { /* optional: 0 when absent */
        snprintf(num, sizeof num, "%.17g", a->cycle_start);
        for (char *c = num; *c; c++)
            if (*c == ',') *c = '.';
        sk_json_key(&w, "cycle_start");
        sk_json_raw(&w, num, strlen(num));
    }
    write_fields(&w, a, clip_fields, SK_ARRAY_COUNT(clip_fields));
    sk_json_key(&w, "legs");
    sk_json_begin_array(&w);
    for (uint32_t l = 0; l < a->leg_count; l++) {
        const sk_leg_analysis *L = &a->legs[l];
        sk_json_begin_object(&w);
        sk_json_key_string(&w, "name", L->name);
        write_fields(&w, L, leg_fields, SK_ARRAY_COUNT(leg_fields));
        sk_json_key(&w, "samples");
        sk_json_begin_object(&w);
        for (size_t i = 0; i < SK_ARRAY_COUNT(leg_series); i++) {
            const float *v = *(float *const *)((const char *)L + leg_series[i].off);
            sk_json_key(&w, leg_series[i].key);
            sk_json_floats(&w, v, (size_t)a->sample_count * (size_t)leg_series[i].width);
        }
        sk_json_end_object(&w);
        sk_json_end_object(&w);
    }
    sk_json_end_array(&w);
    sk_json_end_object(&w);
    if (w.failed) {
        sk_json_writer_free(&w);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "motion analysis JSON: out of memory");
    }
    /* NUL-terminate into a buffer of exactly len + 1 bytes. */
    char *out = sk_alloc(alloc, w.len + 1);
    if (!out) {
        sk_json_writer_free(&w);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "motion analysis JSON: out of memory");
    }
    memcpy(out, w.buf, w.len);
    out[w.len] = 0;
    *text = out;
    *len = w.len;
    sk_json_writer_free(&w);
    return SK_OK;
}

sk_result sk_motion_analysis_save(const sk_motion_analysis *a, const char *path, const sk_allocator *alloc,
                                  const sk_file_io *io, sk_error *err) {
    if (!path) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion analysis: NULL path");
    char *text = NULL;
    size_t len = 0;
    sk_result r = sk_motion_analysis_to_json(a, alloc, &text, &len, err);
    if (r != SK_OK) return r;
    r = sk_file_write(io, path, text, len, err);
    sk_free(alloc, text, len + 1);
    return r;
}

/* ---- reading --------------------------------------------------------------------- */

typedef struct rctx { const char *prefix; sk_error *err; } rctx;

static sk_result perr(const rctx *c, const char *path, const char *what) {
    return sk_error_set(c->err, SK_ERR_INVALID_DATA, "%s%s%s: %s", c->prefix, c->prefix[0] ? ": " : "", path, what);
}

/* n numbers (null: NaN, as the writer writes non-finite values). */
static bool get_floats(const sk_jv *v, float *out, size_t n) {
    if (!sk_jv_is(v, SK_JV_ARRAY) || v->count != n) return false;
    size_t i = 0;
    for (const sk_jv *e = sk_jv_child(v); e; e = sk_jv_next(e)) {
        double d;
        if (sk_jv_number(e, &d)) out[i++] = (float)d;
        else if (sk_jv_is_null(e)) out[i++] = NAN;
        else return false;
    }
    return i == n;
}

/* An integral number in [lo, hi]. */
static bool get_integer(const sk_jv *v, double lo, double hi, double *out) {
    return sk_jv_number(v, out) && *out == floor(*out) && *out >= lo && *out <= hi;
}

static sk_result read_fields(const rctx *c, const sk_jv *o, void *base, const field *f, size_t n, const char *at) {
    char path[128];
    for (size_t i = 0; i < n; i++) {
        char *p = (char *)base + f[i].off;
        const sk_jv *v = sk_jv_get(o, f[i].key);
        double d;
        snprintf(path, sizeof path, "%s/%s", at, f[i].key);
        switch (f[i].kind) {
        case F_FLOAT:
            if (sk_jv_is_null(v)) *(float *)p = NAN;
            else if (sk_jv_number(v, &d)) *(float *)p = (float)d;
            else return perr(c, path, "expected a number");
            break;
        case F_VEC3:
            if (!get_floats(v, (float *)p, 3)) return perr(c, path, "expected [x, y, z]");
            break;
        case F_I32:
            if (!get_integer(v, -1, 2147483647.0, &d)) return perr(c, path, "expected a joint index (-1 or more)");
            *(int32_t *)p = (int32_t)d;
            break;
        case F_U32:
            if (!get_integer(v, 0, 4294967295.0, &d)) return perr(c, path, "expected an unsigned integer");
            *(uint32_t *)p = (uint32_t)d;
            break;
        }
    }
    return SK_OK;
}

/* The format, version, leg count and sample count, checked before the
 * analysis is created. */
static sk_result read_shape(const rctx *c, const sk_jv *root, uint32_t *legs, uint32_t *samples) {
    if (!sk_jv_is(root, SK_JV_OBJECT)) return perr(c, "", "expected an object");
    const char *fmt = sk_jv_string(sk_jv_get(root, "format"));
    if (!fmt || strcmp(fmt, FORMAT_NAME) != 0) return perr(c, "/format", "expected \"" FORMAT_NAME "\"");
    double ver, ns;
    if (!sk_jv_number(sk_jv_get(root, "version"), &ver) || ver != FORMAT_VERSION)
        return perr(c, "/version", "unsupported version (this reader knows 1)");
    const sk_jv *jl = sk_jv_get(root, "legs");
    if (!sk_jv_is(jl, SK_JV_ARRAY)) return perr(c, "/legs", "expected an array");
    if (!get_integer(sk_jv_get(root, "sample_count"), 0, 1e9, &ns))
        return perr(c, "/sample_count", "expected a sample count");
    if (jl->count < 1 || jl->count > 16) return perr(c, "/legs", "expected 1 to 16 legs");
    if (ns < 4 || ns > 100000) return perr(c, "/sample_count", "expected 4 to 100000 samples");
    *legs = jl->count;
    *samples = (uint32_t)ns;
    return SK_OK;
}

/* The clip's name, direction, cycle and clip-wide fields. */
static sk_result read_clip(const rctx *c, const sk_jv *root, sk_motion_analysis *a) {
    const char *clip = sk_jv_string(sk_jv_get(root, "clip"));
    const sk_jv *bw = sk_jv_get(root, "backward");
    if (!clip) return perr(c, "/clip", "expected a string");
    snprintf(a->clip_name, sizeof a->clip_name, "%s", clip);
    if (!sk_jv_is_bool(bw)) return perr(c, "/backward", "expected true or false");
    a->backward = sk_jv_is_true(bw);
    if (!sk_jv_number(sk_jv_get(root, "cycle_duration"), &a->cycle_duration))
        return perr(c, "/cycle_duration", "expected a number");
    const sk_jv *cs = sk_jv_get(root, "cycle_start");
    if (cs) {
        double d;
        if (!sk_jv_finite(cs, &d) || d < 0) return perr(c, "/cycle_start", "expected a number >= 0 (seconds)");
        a->cycle_start = d;
    }
    return read_fields(c, root, a, clip_fields, SK_ARRAY_COUNT(clip_fields), "");
}

/* Leg l: its name, fields and per-sample series. */
static sk_result read_leg(const rctx *c, const sk_jv *lj, uint32_t l, sk_motion_analysis *a) {
    char at_leg[48], path[128];
    snprintf(at_leg, sizeof at_leg, "/legs/%u", l);
    sk_leg_analysis *L = &a->legs[l];
    if (!sk_jv_is(lj, SK_JV_OBJECT)) return perr(c, at_leg, "expected an object");
    const char *name = sk_jv_string(sk_jv_get(lj, "name"));
    if (!name) {
        snprintf(path, sizeof path, "%s/name", at_leg);
        return perr(c, path, "expected a string");
    }
    snprintf(L->name, sizeof L->name, "%s", name);
    sk_result r = read_fields(c, lj, L, leg_fields, SK_ARRAY_COUNT(leg_fields), at_leg);
    if (r != SK_OK) return r;
    if (L->stance_sample >= a->sample_count) {
        snprintf(path, sizeof path, "%s/stance_sample", at_leg);
        return perr(c, path, "not below sample_count");
    }
    const sk_jv *samples = sk_jv_get(lj, "samples");
    for (size_t i = 0; i < SK_ARRAY_COUNT(leg_series); i++) {
        float *v = *(float **)((char *)L + leg_series[i].off);
        snprintf(path, sizeof path, "%s/samples/%s", at_leg, leg_series[i].key);
        const int width = leg_series[i].width;
        if (!get_floats(sk_jv_get(samples, leg_series[i].key), v, (size_t)a->sample_count * (size_t)width))
            return perr(c, path, width == 3 ? "expected 3 x sample_count numbers" : "expected sample_count numbers");
    }
    return SK_OK;
}

static sk_result read_analysis(const rctx *c, const sk_jv *root, const sk_allocator *alloc, sk_motion_analysis **out) {
    uint32_t nlegs = 0, nsamp = 0;
    sk_result r = read_shape(c, root, &nlegs, &nsamp);
    if (r != SK_OK) return r;
    sk_motion_analysis *a = NULL;
    r = sk_motion_analysis_create(nlegs, nsamp, alloc, &a, c->err);
    if (r != SK_OK) return r;
    r = read_clip(c, root, a);
    uint32_t l = 0;
    for (const sk_jv *lj = sk_jv_child(sk_jv_get(root, "legs")); lj && r == SK_OK; lj = sk_jv_next(lj), l++)
        r = read_leg(c, lj, l, a);
    if (r != SK_OK) {
        sk_motion_analysis_destroy(a);
        return r;
    }
    *out = a;
    return SK_OK;
}

static sk_result load_impl(const char *json, size_t len, const sk_allocator *alloc, sk_motion_analysis **out,
                           sk_error *err, const char *prefix) {
    if (!json || !out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion analysis JSON: NULL argument");
    *out = NULL;
    rctx c = {prefix, err};
    sk_json_doc doc;
    sk_result r = sk_json_load(json, len, alloc, prefix, &doc, err);
    if (r != SK_OK) return r;
    r = read_analysis(&c, doc.root, alloc, out);
    sk_json_doc_free(&doc);
    return r;
}

sk_result sk_motion_analysis_from_json(const char *json, size_t len, const sk_allocator *alloc,
                                       sk_motion_analysis **out, sk_error *err) {
    return load_impl(json, len, alloc, out, err, "");
}

sk_result sk_motion_analysis_load(const char *path, const sk_allocator *alloc, const sk_file_io *io,
                                  sk_motion_analysis **out, sk_error *err) {
    if (!path || !out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_motion_analysis_load: NULL argument");
    *out = NULL;
    const sk_allocator *a = sk_allocator_or_default(alloc);
    void *buf = NULL;
    size_t n = 0;
    sk_result r = sk_file_read(io, path, (uint64_t)256 << 20, a, &buf, &n, err);
    if (r != SK_OK) return r;
    r = load_impl(buf, n, alloc, out, err, path);
    sk_file_release(io, a, buf, n);
    return r;
}
