/* Harness: what `skelanim compress` does to a clip, with the clip and every
 * option from the input: a chain of 1..8 joints, 1..6 tracks (rotation,
 * translation or scale; LINEAR, STEP or CUBICSPLINE) with 1..16 keys whose
 * times are anything (huge, tiny, equal, non-finite) and values anything
 * within the readers' 1e15 or non-finite, then
 * sk_clip_resample_limited at any rate and sk_clip_compress with any error,
 * shell, unit, sample rate, segment length and a work limit of at most
 * 2 x 10^5 frame-tracks, so one input's time is bounded (the limit under
 * test: what a clip may cost is tied to what it stores). Promises: a call
 * that returns SK_OK gives a clip that samples to a finite pose inside and
 * outside its duration, and a compressed clip round-trips through its blob;
 * a refusal says why. */
#include "fuzz_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_J 8
#define MAX_KEYS 16

static void check_clip(const sk_clip *c, const sk_skeleton *s, const char *what) {
    sk_pose pose;
    if (sk_pose_alloc(s, NULL, &pose, NULL) != SK_OK) return;
    double d = sk_clip_duration(c);
    const double ts[4] = {0.0, d * 0.37, d, d + 1.0};
    for (int i = 0; i < 4; i++) {
        sk_error err = {0};
        if (sk_clip_sample(c, s, ts[i], SK_LOOP_CLAMP, &pose, &err) != SK_OK) continue;
        if (!fz_pose_finite(&pose)) fz_fail("%s: the clip samples to a non-finite pose at %g s", what, ts[i]);
    }
    sk_pose_free(&pose, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_bytes b = {data, size};
    uint32_t nj = 1 + fz_u8(&b) % MAX_J;
    int32_t parents[MAX_J];
    sk_transform rest[MAX_J];
    const char *names[MAX_J] = {"a", "b", "c", "d", "e", "f", "g", "h"};
    for (uint32_t j = 0; j < nj; j++) {
        parents[j] = (int32_t)j - 1;
        rest[j] = sk_transform_identity();
        rest[j].t = sk_vec3_make(0.0f, fz_range(&b, 0.0f, 2.0f), 0.0f);
    }
    sk_skeleton_desc sd = {0};
    sd.joint_count = nj;
    sd.parents = parents;
    sd.names = names;
    sd.rest = rest;
    sk_skeleton *s = NULL;
    if (sk_skeleton_create(&sd, NULL, &s, NULL) != SK_OK) return 0;

    sk_clip_builder *cb = NULL;
    if (sk_clip_builder_create("fuzz", NULL, &cb, NULL) != SK_OK) {
        sk_skeleton_destroy(s);
        return 0;
    }
    uint32_t nt = 1 + fz_u8(&b) % 6;
    float times[MAX_KEYS], values[MAX_KEYS * 3 * 4];
    for (uint32_t t = 0; t < nt; t++) {
        sk_track_desc d;
        memset(&d, 0, sizeof d);
        d.joint = fz_u8(&b) % nj;
        d.path = (sk_track_path)(fz_u8(&b) % 3);
        d.interpolation = (sk_interpolation)(fz_u8(&b) % 3);
        d.key_count = 1 + fz_u8(&b) % MAX_KEYS;
        uint32_t w = d.path == SK_PATH_ROTATION ? 4 : 3;
        uint32_t per = d.interpolation == SK_INTERP_CUBICSPLINE ? 3 : 1;
        /* times: mostly increasing steps, some huge, some equal, some raw */
        float tm = 0.0f;
        uint8_t mode = fz_u8(&b);
        for (uint32_t k = 0; k < d.key_count; k++) {
            float step = (mode & 3) == 0 ? fz_float(&b, 0.0f, 0.1f)
                         : (mode & 3) == 1 ? fz_float(&b, 0.0f, 1e6f)
                                           : fz_range(&b, 0.001f, 1.0f);
            /* steps of at most 1e8 s: a CUBICSPLINE tangent of 1e15 over a longer
             * span overflows float when sampled, which no reader lets through
             * (the glTF reader bounds value + span x tangent) */
            if (isfinite(step) && fabsf(step) > 1e8f) step = copysignf(1e8f, step);
            tm = k ? tm + step : fz_float(&b, 0.0f, 1.0f);
            times[k] = tm;
        }
        /* values: mostly small, sometimes any float; finite ones bounded by the
         * readers' 1e15 (a builder clip of +-3e38 keys overflows when
         * interpolated: no reader makes one), NaN and infinities kept for the
         * builder to refuse */
        for (uint32_t v = 0; v < d.key_count * per * w; v++) {
            float x = fz_float(&b, -2.0f, 2.0f);
            if (isfinite(x) && fabsf(x) > 1e15f) x = copysignf(1e15f, x);
            values[v] = x;
        }
        d.times = times;
        d.values = values;
        d.width = w;
        (void)sk_clip_builder_add_track(cb, &d, NULL); /* refusals are the builder's business */
    }
    sk_clip *clip = NULL;
    sk_error err = {0};
    if (sk_clip_builder_finish(cb, &clip, &err) != SK_OK) {
        sk_skeleton_destroy(s);
        return 0;
    }
    check_clip(clip, s, "source");

    double max_work = 1.0 + fz_range(&b, 0.0f, 2e5f);
    /* resample, as compress --fps does */
    double fps = fz_float(&b, 0.01f, 240.0f);
    sk_clip *res = NULL;
    sk_result r = sk_clip_resample_limited(clip, s, fps, max_work, NULL, &res, &err);
    if (r == SK_OK) check_clip(res, s, "resampled");
    else if (!err.message[0]) fz_fail("resample refused (%d) without a message", (int)r);
    sk_clip_destroy(res);

    sk_compress_options o;
    memset(&o, 0, sizeof o);
    o.error_cm = fz_u8(&b) & 1 ? fz_float(&b, 0.001f, 10.0f) : 0.0;
    o.shell_cm = fz_u8(&b) & 1 ? fz_float(&b, 0.1f, 100.0f) : 0.0;
    o.metres_per_unit = fz_u8(&b) & 1 ? fz_float(&b, 0.001f, 100.0f) : 0.0;
    o.sample_rate = fz_u8(&b) & 1 ? fz_float(&b, 0.0f, 240.0f) : 0.0;
    o.segment_len = fz_u8(&b) & 1 ? fz_u8(&b) % 40 : 0;
    o.max_work = max_work;
    sk_clip *cc = NULL;
    sk_compress_stats st;
    err.message[0] = 0;
    r = sk_clip_compress(clip, s, &o, NULL, &cc, &st, &err);
    if (r == SK_OK) {
        check_clip(cc, s, "compressed");
        if (!(st.max_error_cm >= 0.0) || !isfinite(st.max_error_cm)) fz_fail("compress: max error %g", st.max_error_cm);
        const void *blob;
        size_t bs;
        if (!sk_clip_compressed_data(cc, &blob, &bs)) fz_fail("compress: SK_OK but no blob");
        sk_clip *back = NULL;
        if (sk_clip_from_compressed("back", blob, bs, true, NULL, &back, &err) != SK_OK)
            fz_fail("compress: its own blob is refused: %s", err.message);
        sk_clip_destroy(back);
    } else if (!err.message[0]) {
        fz_fail("compress refused (%d) without a message", (int)r);
    }
    sk_clip_destroy(cc);
    sk_clip_destroy(clip);
    sk_skeleton_destroy(s);
    return 0;
}
