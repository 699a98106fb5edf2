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

static const cJSON *item(const cJSON *o, const char *key) { return cJSON_GetObjectItemCaseSensitive(o, key); }

static bool get_floats(const cJSON *v, float *out, size_t n) {
    if (!cJSON_IsArray(v) || (size_t)cJSON_GetArraySize(v) != n) return false;
    size_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, v) {
        if (cJSON_IsNumber(e)) out[i++] = (float)e->valuedouble;
        else if (cJSON_IsNull(e)) out[i++] = NAN; /* non-finite values are written as null */
        else return false;
    }
    return i == n;
}

static sk_result read_fields(const rctx *c, const cJSON *o, void *base, const field *f, size_t n, const char *at) {
    char path[128];
    for (size_t i = 0; i < n; i++) {
        char *p = (char *)base + f[i].off;
        const cJSON *v = item(o, f[i].key);
        snprintf(path, sizeof path, "%s/%s", at, f[i].key);
        switch (f[i].kind) {
        case F_FLOAT:
            if (cJSON_IsNull(v)) *(float *)p = NAN;
            else if (cJSON_IsNumber(v)) *(float *)p = (float)v->valuedouble;
            else return perr(c, path, "expected a number");
            break;
        case F_VEC3:
            if (!get_floats(v, (float *)p, 3)) return perr(c, path, "expected [x, y, z]");
            break;
        case F_I32:
            if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < -1 ||
                v->valuedouble > 2147483647.0)
                return perr(c, path, "expected a joint index (-1 or more)");
            *(int32_t *)p = (int32_t)v->valuedouble;
            break;
        case F_U32:
            if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < 0 ||
                v->valuedouble > 4294967295.0)
                return perr(c, path, "expected an unsigned integer");
            *(uint32_t *)p = (uint32_t)v->valuedouble;
            break;
        }
    }
    return SK_OK;
}

static sk_result load_impl(const char *json, size_t len, const sk_allocator *alloc, sk_motion_analysis **out,
                           sk_error *err, const char *prefix) {
    if (!json || !out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion analysis JSON: NULL argument");
    *out = NULL;
    rctx c = {prefix, err};
    cJSON *root = NULL;
    size_t at = 0;
    const char *what = "";
    sk_result r = sk_json_parse(json, len, &root, &at, &what);
    if (r == SK_ERR_OUT_OF_MEMORY)
        return sk_error_set(err, r, "%s%sout of memory building the JSON parse tree", prefix, prefix[0] ? ": " : "");
    if (r != SK_OK)
        return sk_error_set(err, r, "%s%sinvalid JSON near byte %zu: %s", prefix, prefix[0] ? ": " : "", at, what);
    sk_motion_analysis *a = NULL;
    const cJSON *fmt = item(root, "format"), *ver = item(root, "version"), *legs = item(root, "legs");
    const cJSON *nsamp = item(root, "sample_count");
    if (!cJSON_IsObject(root)) { r = perr(&c, "", "expected an object"); goto done; }
    if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, FORMAT_NAME) != 0) {
        r = perr(&c, "/format", "expected \"" FORMAT_NAME "\"");
        goto done;
    }
    if (!cJSON_IsNumber(ver) || ver->valuedouble != FORMAT_VERSION) {
        r = perr(&c, "/version", "unsupported version (this reader knows 1)");
        goto done;
    }
    if (!cJSON_IsArray(legs)) { r = perr(&c, "/legs", "expected an array"); goto done; }
    if (!cJSON_IsNumber(nsamp) || nsamp->valuedouble != floor(nsamp->valuedouble) || nsamp->valuedouble < 0 ||
        nsamp->valuedouble > 1e9) {
        r = perr(&c, "/sample_count", "expected a sample count");
        goto done;
    }
    int nlegs = cJSON_GetArraySize(legs);
    if (nlegs < 1 || nlegs > 16) { r = perr(&c, "/legs", "expected 1 to 16 legs"); goto done; }
    if (nsamp->valuedouble < 4 || nsamp->valuedouble > 100000) {
        r = perr(&c, "/sample_count", "expected 4 to 100000 samples");
        goto done;
    }
    r = sk_motion_analysis_create((uint32_t)nlegs, (uint32_t)nsamp->valuedouble, alloc, &a, err);
    if (r != SK_OK) goto done;
    const cJSON *clip = item(root, "clip"), *bw = item(root, "backward"), *dur = item(root, "cycle_duration");
    if (!cJSON_IsString(clip)) { r = perr(&c, "/clip", "expected a string"); goto done; }
    snprintf(a->clip_name, sizeof a->clip_name, "%s", clip->valuestring);
    if (!cJSON_IsBool(bw)) { r = perr(&c, "/backward", "expected true or false"); goto done; }
    a->backward = cJSON_IsTrue(bw);
    if (!cJSON_IsNumber(dur)) { r = perr(&c, "/cycle_duration", "expected a number"); goto done; }
    a->cycle_duration = dur->valuedouble;
    const cJSON *cs = item(root, "cycle_start");
    if (cs) {
        if (!cJSON_IsNumber(cs) || !isfinite(cs->valuedouble) || cs->valuedouble < 0) {
            r = perr(&c, "/cycle_start", "expected a number >= 0 (seconds)");
            goto done;
        }
        a->cycle_start = cs->valuedouble;
    }
    r = read_fields(&c, root, a, clip_fields, SK_ARRAY_COUNT(clip_fields), "");
    if (r != SK_OK) goto done;
    uint32_t l = 0;
    const cJSON *lj;
    cJSON_ArrayForEach(lj, legs) {
        char at_leg[48], path[128];
        snprintf(at_leg, sizeof at_leg, "/legs/%u", l);
        sk_leg_analysis *L = &a->legs[l++];
        if (!cJSON_IsObject(lj)) { r = perr(&c, at_leg, "expected an object"); goto done; }
        const cJSON *name = item(lj, "name");
        if (!cJSON_IsString(name)) {
            snprintf(path, sizeof path, "%s/name", at_leg);
            r = perr(&c, path, "expected a string");
            goto done;
        }
        snprintf(L->name, sizeof L->name, "%s", name->valuestring);
        r = read_fields(&c, lj, L, leg_fields, SK_ARRAY_COUNT(leg_fields), at_leg);
        if (r != SK_OK) goto done;
        if (L->stance_sample >= a->sample_count) {
            snprintf(path, sizeof path, "%s/stance_sample", at_leg);
            r = perr(&c, path, "not below sample_count");
            goto done;
        }
        const cJSON *samples = item(lj, "samples");
        for (size_t i = 0; i < SK_ARRAY_COUNT(leg_series); i++) {
            float *v = *(float **)((char *)L + leg_series[i].off);
            snprintf(path, sizeof path, "%s/samples/%s", at_leg, leg_series[i].key);
            if (!cJSON_IsObject(samples) ||
                !get_floats(item(samples, leg_series[i].key), v, (size_t)a->sample_count * (size_t)leg_series[i].width)) {
                r = perr(&c, path, leg_series[i].width == 3 ? "expected 3 x sample_count numbers"
                                                            : "expected sample_count numbers");
                goto done;
            }
        }
    }
done:
    cJSON_Delete(root);
    if (r != SK_OK) {
        sk_motion_analysis_destroy(a);
        return r;
    }
    *out = a;
    return SK_OK;
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
