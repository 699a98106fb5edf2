/* skelanim — retargeting: baking a whole clip into a clip of the target. */
#include "anim/retarget_internal.h"

#include <stdlib.h>
#include <string.h>

#define MAX_VALUES 10000000u

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* The sorted union of the clip's key times (NULL count 0 when it has none). */
static sk_result key_times(const sk_clip *clip, const sk_allocator *a, float **out, uint32_t *count, size_t *bytes,
                           sk_error *err) {
    size_t total = 0;
    uint32_t tc = sk_clip_track_count(clip);
    sk_track_info info;
    for (uint32_t i = 0; i < tc; i++)
        if (sk_clip_track_info(clip, i, &info)) total += info.key_count;
    double dur = sk_clip_duration(clip);
    if (total == 0) {
        /* No keys: 30 per second over the duration. */
        double n = dur > 0 ? dur * 30.0 + 1.0 : 1.0;
        if (!(n < (double)MAX_VALUES)) return sk_error_set(err, SK_ERR_LIMIT, "sk_retarget_clip: too many frames");
        total = (size_t)n + 1;
    }
    if (total > MAX_VALUES) return sk_error_set(err, SK_ERR_LIMIT, "sk_retarget_clip: %zu key times, more than %u", total, MAX_VALUES);
    *bytes = total * sizeof(float);
    float *t = (float *)sk_alloc(a, *bytes);
    if (!t) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_retarget_clip: out of memory");
    size_t n = 0;
    for (uint32_t i = 0; i < tc; i++) {
        if (!sk_clip_track_info(clip, i, &info) || !info.key_count) continue;
        if (!sk_clip_track_keys(clip, i, t + n, NULL)) continue;
        n += info.key_count;
    }
    if (n == 0) {
        size_t frames = total - 1;
        for (size_t k = 0; k < frames; k++) t[k] = (float)(dur * (double)k / (double)(frames > 1 ? frames - 1 : 1));
        n = frames;
    }
    qsort(t, n, sizeof(float), cmp_float);
    size_t u = 0;
    for (size_t k = 0; k < n; k++)
        if (u == 0 || t[k] != t[u - 1]) t[u++] = t[k];
    *out = t;
    *count = (uint32_t)u;
    return SK_OK;
}

sk_result sk_retarget_clip(const sk_retarget *rt, const sk_clip *clip, const sk_clip *fill_clip,
                           const sk_allocator *alloc, sk_clip **out, sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_retarget_clip: out is NULL");
    *out = NULL;
    if (!rt || !clip) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_retarget_clip: NULL retargeter or clip");
    const sk_skeleton *src = sk_retarget_source(rt), *dst = sk_retarget_target(rt);
    const sk_allocator *a = sk_allocator_or_default(alloc);
    uint32_t ns = src->joint_count, nt = dst->joint_count;
    float *times = NULL;
    uint32_t nk = 0;
    size_t tbytes = 0;
    sk_result r = key_times(clip, a, &times, &nk, &tbytes, err);
    if (r != SK_OK) return r;
    /* Which joints get which tracks: rotation for mapped joints, translation
     * for the hips; all of a fill clip's joints' T/R/S for unmapped ones. */
    int32_t hips = rt->dst_hips;
    size_t jbytes = (size_t)nt;
    uint8_t *want = (uint8_t *)sk_alloc(a, jbytes); /* bit 0 T, 1 R, 2 S */
    if (!want) {
        sk_free(a, times, tbytes);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_retarget_clip: out of memory");
    }
    for (uint32_t j = 0; j < nt; j++) want[j] = rt->src_of[j] >= 0 ? 2 : 0;
    if (hips >= 0) want[hips] |= 1;
    if (fill_clip) {
        sk_track_info info;
        for (uint32_t i = 0; i < sk_clip_track_count(fill_clip); i++)
            if (sk_clip_track_info(fill_clip, i, &info) && info.joint < nt && info.path != SK_PATH_WEIGHTS)
                want[info.joint] |= (uint8_t)(1u << info.path);
    }
    size_t comps = 0;
    for (uint32_t j = 0; j < nt; j++) comps += (want[j] & 1 ? 3 : 0) + (want[j] & 2 ? 4 : 0) + (want[j] & 4 ? 3 : 0);
    size_t vbytes = 0, nvalues = comps * nk;
    if (comps && nvalues / comps != nk) nvalues = SIZE_MAX;
    if (nvalues > MAX_VALUES) {
        sk_free(a, want, jbytes), sk_free(a, times, tbytes);
        return sk_error_set(err, SK_ERR_LIMIT, "sk_retarget_clip: %zu key values, more than %u", nvalues, MAX_VALUES);
    }
    size_t sbytes = (size_t)ns * sizeof(sk_transform), dbytes = (size_t)nt * sizeof(sk_transform);
    size_t scr = sk_retarget_scratch_size(rt);
    vbytes = nvalues * sizeof(float) + sbytes + dbytes + scr + 16;
    float *values = (float *)sk_alloc(a, vbytes);
    sk_clip_builder *b = NULL;
    if (!values) {
        sk_free(a, want, jbytes), sk_free(a, times, tbytes);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_retarget_clip: out of memory");
    }
    sk_transform *sl = (sk_transform *)(values + nvalues), *dl = sl + ns;
    void *scratch = dl + nt;
    sk_pose sp = sk_pose_view(sl, ns, NULL, 0), dp = sk_pose_view(dl, nt, NULL, 0);
    for (uint32_t k = 0; k < nk && r == SK_OK; k++) {
        r = sk_clip_sample(clip, src, times[k], SK_LOOP_CLAMP, &sp, err);
        if (r == SK_OK) {
            if (fill_clip) r = sk_clip_sample(fill_clip, dst, times[k], SK_LOOP_CLAMP, &dp, err);
            else memcpy(dl, rt->dst_rest, dbytes);
        }
        if (r == SK_OK) r = sk_retarget_pose(rt, &sp, &dp, &dp, scratch, scr, err);
        if (r != SK_OK) break;
        /* Layout: per joint and path, nk elements in a row. */
        float *v = values;
        for (uint32_t j = 0; j < nt; j++) {
            if (want[j] & 1) { float *e = v + 3 * k; e[0] = dl[j].t.x, e[1] = dl[j].t.y, e[2] = dl[j].t.z; v += 3 * (size_t)nk; }
            if (want[j] & 2) {
                float *e = v + 4 * k;
                sk_quat q = dl[j].r;
                if (k > 0 && e[-4] * q.x + e[-3] * q.y + e[-2] * q.z + e[-1] * q.w < 0) q = skm_quat_neg(q);
                e[0] = q.x, e[1] = q.y, e[2] = q.z, e[3] = q.w;
                v += 4 * (size_t)nk;
            }
            if (want[j] & 4) { float *e = v + 3 * k; e[0] = dl[j].s.x, e[1] = dl[j].s.y, e[2] = dl[j].s.z; v += 3 * (size_t)nk; }
        }
    }
    if (r == SK_OK) r = sk_clip_builder_create(sk_clip_name(clip), a, &b, err);
    if (r == SK_OK) {
        float *v = values;
        for (uint32_t j = 0; j < nt && r == SK_OK; j++)
            for (uint32_t path = 0; path < 3 && r == SK_OK; path++) {
                if (!(want[j] & (1u << path))) continue;
                uint32_t w = path == SK_PATH_ROTATION ? 4 : 3;
                sk_track_desc td = {j, (sk_track_path)path, SK_INTERP_LINEAR, nk, times, v, w};
                r = sk_clip_builder_add_track(b, &td, err);
                v += (size_t)w * nk;
            }
        sk_clip_builder_set_duration(b, sk_clip_duration(clip));
        if (r == SK_OK) r = sk_clip_builder_finish(b, out, err); /* destroys b */
        else sk_clip_builder_destroy(b);
    }
    sk_free(a, values, vbytes), sk_free(a, want, jbytes), sk_free(a, times, tbytes);
    return r;
}
