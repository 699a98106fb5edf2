/* skelanim bench retarget: captures and the mannequin's clips retargeted
 * onto the mannequin and CesiumMan, one JSON line per case:
 *   - the cost: sk_retarget_pose per pose and per target joint (source poses
 *     sampled beforehand), baking the clip (sk_retarget_clip), finding and
 *     restoring the foot contacts (sk_contacts_find + sk_contacts_restore);
 *   - the feet over the source's contact phases, found here by a height and
 *     speed detector of its own (not the library's sk_contacts_find): the
 *     source's ankle within 3.5 cm of its 5th-percentile height and slower
 *     than 0.45 m/s horizontally for at least 0.06 s, sampled at 120 Hz. On
 *     the target over those phases: the ankle's largest distance from its
 *     rest height above the ground (y = 0; it rises where the heel comes
 *     off), the foot's (of the ankle and the joints below it, the one
 *     nearest its rest height: the foot standing on the ground somewhere)
 *     and the ankle's slide (largest horizontal distance from where the
 *     contact began), with restoration on and off;
 *   - the stride (distance between one foot's successive contacts) of the
 *     target over the source's, against the ratio of their leg lengths;
 *   - the swing: between one foot's contacts (0.1 s away from both), the
 *     foot's lowest point (the joints below the ankle, and on the target
 *     its heel and toe points, the mesh's soles) above the ground — the
 *     source's above its median over its contacts, the target's above
 *     y = 0 — as the share of those samples closer than 1 cm, and the
 *     highest point of each swing on the target over the source's times
 *     the leg-length ratio (the mean over the swings); with the source's
 *     clearance restored (sk_contact_restore_options.source, as the
 *     retarget command does) and without.
 * Captures 02_01, 07_01, 09_11 are the set the method was developed on;
 * 131_03, 49_08 and 05_06 were never looked at while tuning and are marked
 * "held_out". A last line per set gives the worst figures.
 *
 *   skelanim bench retarget [--data DIR] [--quick] [--capture FILE.bvh ...] */
#include "cli.h"
#include "retarget_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BR_RATE 120.0
#define BR_MAX_CONTACTS 512

typedef struct br_args {
    const char *data;
    bool quick;
    cli_list captures; /* --capture: these .bvh files (CMU units) onto both targets instead of the built-in cases */
} br_args;

typedef struct br_case {
    const char *source, *clip, *target; /* source: a capture's name under mocap/bvh, or "mannequin" */
    bool held_out;
} br_case;

static const br_case br_cases[] = {
    {"02_01", NULL, "mannequin", false},
    {"07_01_fbx2bvh", NULL, "mannequin", false},
    {"09_11_fbx2bvh", NULL, "mannequin", false},
    {"02_01", NULL, "CesiumMan", false},
    {"07_01_fbx2bvh", NULL, "CesiumMan", false},
    {"09_11_fbx2bvh", NULL, "CesiumMan", false},
    {"mannequin", "walk", "CesiumMan", false},
    {"mannequin", "run", "CesiumMan", false},
    {"131_03", NULL, "mannequin", true},
    {"49_08_fbx2bvh", NULL, "mannequin", true},
    {"05_06", NULL, "mannequin", true},
    {"131_03", NULL, "CesiumMan", true},
    {"49_08_fbx2bvh", NULL, "CesiumMan", true},
    {"05_06", NULL, "CesiumMan", true},
};

typedef struct br_contact {
    int foot;
    uint32_t first, last;
} br_contact;

typedef struct br_feet {
    float height, slide, slide_mean;
    float foot; /* the foot's nearest joint to its rest height: the largest such distance (m) */
} br_feet;

/* One clip's feet, n samples at BR_RATE, two feet (n x 2 each):
 *   ankle: the ankle's model position;
 *   gap: how far the foot stands from the ground: of the ankle and the
 *        joints below it, the smallest distance from its rest height (a flat
 *        foot on the ground: 0; rolling onto its ball: the ball's, about 0;
 *        floating or sunk by d: d);
 *   low: the foot's lowest point (the ankle and the joints below it, and the
 *        leg's heel / toe points where set), model y. */
typedef struct br_track {
    sk_vec3 *ankle;
    float *gap, *low;
} br_track;

static void br_track_free(br_track *t) {
    free(t->ankle), free(t->gap), free(t->low);
    memset(t, 0, sizeof *t);
}

/* The track of clip c on s, sampled once; false (t freed) on an error. */
static bool br_track_clip(const sk_skeleton *s, const sk_clip *c, const sk_leg_desc legs[2], uint32_t n, br_track *t) {
    t->ankle = calloc((size_t)n * 2, sizeof *t->ankle);
    t->gap = calloc((size_t)n * 2, sizeof *t->gap);
    t->low = calloc((size_t)n * 2, sizeof *t->low);
    sk_transform *local = calloc(s->joint_count, sizeof *local);
    sk_mat4 *m = calloc(s->joint_count, sizeof *m);
    float *rest = calloc(s->joint_count, sizeof *rest);
    bool ok = t->ankle && t->gap && t->low && local && m && rest && sk_pose_rest(s, SK_POSE_OF(s, local, NULL), NULL) == SK_OK &&
              sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, m, s->joint_count, NULL) == SK_OK;
    float lowest = 0;
    for (uint32_t j = 0; ok && j < s->joint_count; j++) lowest = fminf(lowest, m[j].m[13]);
    for (uint32_t j = 0; ok && j < s->joint_count; j++) rest[j] = m[j].m[13] - lowest;
    for (uint32_t i = 0; ok && i < n; i++) {
        ok = sk_clip_sample(c, s, i / BR_RATE, SK_LOOP_CLAMP, SK_POSE_OF(s, local, NULL), NULL) == SK_OK &&
             sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, m, s->joint_count, NULL) == SK_OK;
        for (int f = 0; ok && f < 2; f++) {
            const sk_leg_desc *l = &legs[f];
            size_t at = (size_t)i * 2 + f;
            float best = INFINITY, low = INFINITY;
            uint32_t end = sk_skeleton_subtree_end(s, (uint32_t)l->ankle);
            for (uint32_t j = (uint32_t)l->ankle; j < end; j++)
                best = fminf(best, fabsf(m[j].m[13] - rest[j])), low = fminf(low, m[j].m[13]);
            if (l->heel_set) low = fminf(low, sk_mat4_transform_point(&m[l->ankle], l->heel).y);
            if (l->toe_tip_set) low = fminf(low, sk_mat4_transform_point(&m[l->toe >= 0 ? l->toe : l->ankle], l->toe_tip).y);
            t->ankle[at] = sk_vec3_make(m[l->ankle].m[12], m[l->ankle].m[13], m[l->ankle].m[14]);
            t->gap[at] = best, t->low[at] = low;
        }
    }
    free(local), free(m), free(rest);
    if (!ok) br_track_free(t);
    return ok;
}

typedef struct br_swing {
    int samples, swings;
    float low_share, source_low_share; /* of the swing samples, the share within 1 cm of the ground */
    float peak_ratio;                  /* mean over swings: target peak / (source peak x leg ratio) */
} br_swing;

static int br_cmp_float(const void *a, const void *b);

/* The swing figures of the top of this file, between the reference contacts. */
static br_swing br_swings(const float *slow, const float *tlow, uint32_t n, const br_contact *c, int nc,
                          double leg_ratio) {
    const uint32_t margin = (uint32_t)(0.1 * BR_RATE);
    br_swing r = {0, 0, 0, 0, 0};
    int low = 0, slow_n = 0;
    double ratio = 0;
    float *h = malloc((n + 1) * sizeof *h);
    for (int f = 0; f < 2 && h; f++) {
        uint32_t m = 0;
        for (int i = 0; i < nc; i++)
            if (c[i].foot == f)
                for (uint32_t k = c[i].first; k <= c[i].last; k++) h[m++] = slow[(size_t)k * 2 + f];
        if (m == 0) continue;
        qsort(h, m, sizeof *h, br_cmp_float);
        float stance = h[m / 2];
        for (int i = 0; i < nc; i++) {
            if (c[i].foot != f) continue;
            int j = i + 1;
            while (j < nc && c[j].foot != f) j++;
            if (j >= nc) break;
            uint32_t a = c[i].last + margin, b = c[j].first >= margin ? c[j].first - margin : 0;
            float sp = 0, tp = 0;
            for (uint32_t k = a; k <= b && k < n; k++) {
                float sc = slow[(size_t)k * 2 + f] - stance, tc = tlow[(size_t)k * 2 + f];
                r.samples++;
                low += tc < 0.01f, slow_n += sc < 0.01f;
                sp = fmaxf(sp, sc), tp = fmaxf(tp, tc);
            }
            if (a <= b && sp > 0.01f && leg_ratio > 0) ratio += tp / (sp * leg_ratio), r.swings++;
        }
    }
    free(h);
    if (r.samples) r.low_share = (float)low / (float)r.samples, r.source_low_share = (float)slow_n / (float)r.samples;
    if (r.swings) r.peak_ratio = (float)(ratio / r.swings);
    return r;
}

static int br_cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* The detector of the top of this file. */
static int br_detect(const sk_vec3 *p, uint32_t n, br_contact *out) {
    const float band = 0.035f, still = 0.45f;
    const uint32_t min_samples = (uint32_t)(0.06 * BR_RATE);
    float *h = malloc(n * sizeof *h);
    int count = 0;
    if (!h) return 0;
    for (int f = 0; f < 2; f++) {
        for (uint32_t i = 0; i < n; i++) h[i] = p[(size_t)i * 2 + f].y;
        qsort(h, n, sizeof *h, br_cmp_float);
        float ground = h[n / 20];
        uint32_t start = UINT32_MAX;
        for (uint32_t i = 0; i <= n; i++) {
            bool on = false;
            if (i < n && n > 1) {
                uint32_t a = i ? i - 1 : 0, b = i + 1 < n ? i + 1 : n - 1;
                float dx = p[(size_t)b * 2 + f].x - p[(size_t)a * 2 + f].x, dz = p[(size_t)b * 2 + f].z - p[(size_t)a * 2 + f].z;
                on = p[(size_t)i * 2 + f].y <= ground + band && sqrtf(dx * dx + dz * dz) * (float)BR_RATE / (float)(b - a) <= still;
            }
            if (on && start == UINT32_MAX) start = i;
            if (!on && start != UINT32_MAX) {
                if (i - start >= min_samples && count < BR_MAX_CONTACTS) out[count++] = (br_contact){f, start, i - 1};
                start = UINT32_MAX;
            }
        }
    }
    free(h);
    return count;
}

/* The target's feet over the contacts: height error against rest[f], slide; and the mean stride ratio. */
static br_feet br_measure(const sk_vec3 *src, const sk_vec3 *dst, const float *gap, const br_contact *c, int nc,
                          const float rest[2], double *stride_ratio, int *strides) {
    br_feet r = {0, 0, 0, 0};
    double ratio = 0;
    *strides = 0;
    for (int i = 0; i < nc; i++) {
        int f = c[i].foot;
        sk_vec3 s0 = dst[(size_t)c[i].first * 2 + f];
        float slide = 0;
        for (uint32_t k = c[i].first; k <= c[i].last; k++) {
            sk_vec3 q = dst[(size_t)k * 2 + f];
            r.height = fmaxf(r.height, fabsf(q.y - rest[f]));
            r.foot = fmaxf(r.foot, gap[(size_t)k * 2 + f]);
            slide = fmaxf(slide, hypotf(q.x - s0.x, q.z - s0.z));
        }
        r.slide = fmaxf(r.slide, slide);
        r.slide_mean += slide / (float)nc;
        for (int j = i + 1; j < nc; j++) {
            if (c[j].foot != f) continue;
            sk_vec3 ms[2] = {{0, 0, 0}, {0, 0, 0}}, md[2] = {{0, 0, 0}, {0, 0, 0}};
            const br_contact *cc[2] = {&c[i], &c[j]};
            for (int k = 0; k < 2; k++) {
                for (uint32_t t = cc[k]->first; t <= cc[k]->last; t++)
                    ms[k] = sk_vec3_add(ms[k], src[(size_t)t * 2 + f]), md[k] = sk_vec3_add(md[k], dst[(size_t)t * 2 + f]);
                float inv = 1.0f / (float)(cc[k]->last - cc[k]->first + 1);
                ms[k] = sk_vec3_scale(ms[k], inv), md[k] = sk_vec3_scale(md[k], inv);
            }
            float ds = hypotf(ms[1].x - ms[0].x, ms[1].z - ms[0].z), dd = hypotf(md[1].x - md[0].x, md[1].z - md[0].z);
            if (ds > 0.2f) ratio += dd / ds, (*strides)++;
            break;
        }
    }
    *stride_ratio = *strides ? ratio / *strides : 0.0;
    return r;
}

/* Leg length (mean of hip-knee + knee-ankle at rest) and each ankle's rest height above the floor
 * (y = 0, or the rest pose's lowest joint when lower). */
static float br_rest(const sk_skeleton *s, const sk_leg_desc legs[2], float height[2]) {
    sk_transform *local = calloc(s->joint_count, sizeof *local);
    sk_mat4 *m = calloc(s->joint_count, sizeof *m);
    float len = 0, lowest = 0;
    if (local && m && sk_pose_rest(s, SK_POSE_OF(s, local, NULL), NULL) == SK_OK &&
        sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, m, s->joint_count, NULL) == SK_OK) {
        for (uint32_t j = 0; j < s->joint_count; j++) lowest = fminf(lowest, m[j].m[13]);
        for (int f = 0; f < 2; f++) {
            const sk_mat4 *h = &m[legs[f].hip], *k = &m[legs[f].knee], *a = &m[legs[f].ankle];
            len += 0.5f * (hypotf(hypotf(k->m[12] - h->m[12], k->m[13] - h->m[13]), k->m[14] - h->m[14]) +
                           hypotf(hypotf(a->m[12] - k->m[12], a->m[13] - k->m[13]), a->m[14] - k->m[14]));
            height[f] = a->m[13] - lowest;
        }
    }
    free(local), free(m);
    return len;
}

static bool br_load(const br_args *a, const char *name, sk_asset **out) {
    char path[4096];
    if (!strcmp(name, "mannequin")) return cli_load(SK_CLI_MANNEQUIN, out);
    if (!strcmp(name, "CesiumMan")) {
        snprintf(path, sizeof path, "%s/assets/gltf/CesiumMan/CesiumMan.glb", a->data);
        return cli_load(path, out);
    }
    if (strchr(name, '/') || strstr(name, ".bvh")) return cli_load_scaled(name, 0.056444, out); /* --capture */
    snprintf(path, sizeof path, "%s/mocap/bvh/%s.bvh", a->data, name);
    return cli_load_scaled(path, 0.056444, out);
}

typedef struct br_worst {
    int cases, contacts, failed;
    float height_on, slide_on, height_off, slide_off, stride_err, foot_on, foot_off, swing_low, swing_low_flat;
    double ns_joint;
} br_worst;

static cJSON *br_feet_json(br_feet f) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "height_max_m", cli_num(f.height));
    cJSON_AddItemToObject(o, "foot_height_max_m", cli_num(f.foot));
    cJSON_AddItemToObject(o, "slide_max_m", cli_num(f.slide));
    cJSON_AddItemToObject(o, "slide_mean_m", cli_num(f.slide_mean));
    return o;
}

/* One case: its JSON line; false after printing an error. */
static bool br_run(const br_args *a, const br_case *c, br_worst *w) {
    sk_asset *src = NULL, *dst = NULL;
    cli_retarget rt;
    memset(&rt, 0, sizeof rt);
    sk_error err = {0};
    sk_clip *on = NULL, *off = NULL, *flat = NULL;
    br_track tsrc = {0}, ton = {0}, toff = {0}, tflat = {0}; /* the source, restored, not restored, no swing source */
    sk_transform *spose = NULL, *tpose = NULL;
    bool ok = false;
    if (!br_load(a, c->source, &src) || !br_load(a, c->target, &dst)) goto done;
    int32_t ci = c->clip ? sk_asset_find_clip(src, c->clip) : 0;
    if (ci < 0 || (uint32_t)ci >= src->clip_count) {
        fprintf(stderr, "skelanim: bench retarget: %s has no clip %s\n", c->source, c->clip ? c->clip : "0");
        goto done;
    }
    const sk_clip *clip = src->clips[ci];
    if (cli_retarget_open(src, dst, NULL, &rt, &err) != SK_OK) {
        fprintf(stderr, "skelanim: bench retarget: %s -> %s: %s\n", c->source, c->target, err.message);
        goto done;
    }
    if (rt.leg_count != 2) {
        fprintf(stderr, "skelanim: bench retarget: %s -> %s: no legs in a map\n", c->source, c->target);
        goto done;
    }
    cli_retarget_info info_on, info_off;
    rt.no_swing = true; /* the swing at the clip's heights: the figure without sk_contact_restore_options.source */
    sk_result flat_res = cli_retarget_bake(&rt, clip, true, &flat, NULL, &err);
    rt.no_swing = false;
    if (flat_res != SK_OK || cli_retarget_bake(&rt, clip, true, &on, &info_on, &err) != SK_OK ||
        cli_retarget_bake(&rt, clip, false, &off, &info_off, &err) != SK_OK) {
        fprintf(stderr, "skelanim: bench retarget: %s -> %s: %s\n", c->source, c->target, err.message);
        goto done;
    }
    /* The cost of one pose: the clip's poses at 120 Hz, retargeted again and again. */
    const sk_skeleton *ss = src->skeleton, *ts = dst->skeleton;
    uint32_t n = (uint32_t)floor(sk_clip_duration(clip) * BR_RATE) + 1;
    spose = malloc((size_t)n * ss->joint_count * sizeof *spose);
    tpose = malloc((size_t)ts->joint_count * sizeof *tpose);
    size_t scratch_size = sk_retarget_scratch_size(rt.rt);
    void *scratch = malloc(scratch_size ? scratch_size : 1);
    if (!spose || !tpose || !scratch) {
        free(scratch);
        goto done;
    }
    for (uint32_t i = 0; i < n; i++)
        sk_clip_sample(clip, ss, i / BR_RATE, SK_LOOP_CLAMP, SK_POSE_OF(ss, spose + (size_t)i * ss->joint_count, NULL), NULL);
    double best = INFINITY;
    for (int rep = 0; rep < (a->quick ? 3 : 15); rep++) {
        double t0 = cli_thread_cpu_now();
        for (uint32_t i = 0; i < n; i++)
            sk_retarget_pose(rt.rt, SK_POSE_OF(ss, spose + (size_t)i * ss->joint_count, NULL), NULL,
                             SK_POSE_OF(ts, tpose, NULL), scratch, scratch_size, NULL);
        best = fmin(best, (cli_thread_cpu_now() - t0) / n);
    }
    free(scratch);
    /* The feet. */
    if (!br_track_clip(ss, clip, rt.source_legs, n, &tsrc) || !br_track_clip(ts, on, rt.target_legs, n, &ton) ||
        !br_track_clip(ts, off, rt.target_legs, n, &toff) || !br_track_clip(ts, flat, rt.target_legs, n, &tflat))
        goto done;
    br_contact *bc = malloc(BR_MAX_CONTACTS * sizeof *bc);
    if (!bc) goto done;
    int nc = br_detect(tsrc.ankle, n, bc);
    float srest[2], trest[2];
    float sl = br_rest(ss, rt.source_legs, srest), tl = br_rest(ts, rt.target_legs, trest);
    double ratio_on = 0, ratio_off = 0;
    int strides = 0, strides_off = 0;
    br_feet fon = br_measure(tsrc.ankle, ton.ankle, ton.gap, bc, nc, trest, &ratio_on, &strides);
    br_feet foff = br_measure(tsrc.ankle, toff.ankle, toff.gap, bc, nc, trest, &ratio_off, &strides_off);
    double leg_ratio = sl > 0 ? tl / sl : 0;
    br_swing sw = br_swings(tsrc.low, ton.low, n, bc, nc, leg_ratio), swf = br_swings(tsrc.low, tflat.low, n, bc, nc, leg_ratio);
    free(bc);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "bench", "retarget");
    cJSON_AddStringToObject(o, "source", c->source);
    cJSON_AddStringToObject(o, "clip", sk_clip_name(clip));
    cJSON_AddStringToObject(o, "target", c->target);
    cJSON_AddBoolToObject(o, "held_out", c->held_out);
    cJSON_AddItemToObject(o, "duration_s", cli_num(sk_clip_duration(clip)));
    cJSON_AddItemToObject(o, "source_joints", cli_num(ss->joint_count));
    cJSON_AddItemToObject(o, "target_joints", cli_num(ts->joint_count));
    cJSON_AddItemToObject(o, "mapped_joints", cli_num(rt.mapped));
    cJSON_AddItemToObject(o, "ns_per_pose", cli_num(best * 1e9));
    cJSON_AddItemToObject(o, "ns_per_pose_joint", cli_num(best * 1e9 / ts->joint_count));
    cJSON_AddItemToObject(o, "bake_ms", cli_num(info_off.retarget_s * 1e3));
    cJSON_AddItemToObject(o, "contacts_ms", cli_num(info_on.contacts_s * 1e3));
    cJSON_AddItemToObject(o, "contacts_restored", cli_num(info_on.contacts));
    cJSON_AddItemToObject(o, "reference_contacts", cli_num(nc));
    cJSON_AddItemToObject(o, "restored", br_feet_json(fon));
    cJSON_AddItemToObject(o, "not_restored", br_feet_json(foff));
    cJSON_AddItemToObject(o, "root_scale", cli_num(sk_retarget_root_scale(rt.rt)));
    cJSON_AddItemToObject(o, "leg_ratio", cli_num(leg_ratio));
    cJSON_AddItemToObject(o, "strides", cli_num(strides));
    if (strides) {
        cJSON_AddItemToObject(o, "stride_ratio", cli_num(ratio_on));
        cJSON_AddItemToObject(o, "stride_error", cli_num(ratio_on / leg_ratio - 1.0));
    }
    cJSON *swing = cJSON_CreateObject();
    cJSON_AddItemToObject(swing, "samples", cli_num(sw.samples));
    cJSON_AddItemToObject(swing, "swings", cli_num(sw.swings));
    cJSON_AddItemToObject(swing, "low_share", cli_num(sw.low_share));
    cJSON_AddItemToObject(swing, "source_low_share", cli_num(sw.source_low_share));
    cJSON_AddItemToObject(swing, "peak_ratio", cli_num(sw.peak_ratio));
    cJSON_AddItemToObject(swing, "low_share_without_source", cli_num(swf.low_share));
    cJSON_AddItemToObject(swing, "peak_ratio_without_source", cli_num(swf.peak_ratio));
    cJSON_AddItemToObject(o, "swing", swing);
    if (!cli_json_finite(o, "bench retarget")) {
        cJSON_Delete(o);
        goto done;
    }
    cli_put_json_line(o);
    w->cases++, w->contacts += nc;
    w->height_on = fmaxf(w->height_on, fon.height), w->slide_on = fmaxf(w->slide_on, fon.slide);
    w->height_off = fmaxf(w->height_off, foff.height), w->slide_off = fmaxf(w->slide_off, foff.slide);
    w->foot_on = fmaxf(w->foot_on, fon.foot), w->foot_off = fmaxf(w->foot_off, foff.foot);
    if (strides) w->stride_err = fmaxf(w->stride_err, (float)fabs(ratio_on / leg_ratio - 1.0));
    w->ns_joint = fmax(w->ns_joint, best * 1e9 / ts->joint_count);
    w->swing_low = fmaxf(w->swing_low, sw.low_share);
    w->swing_low_flat = fmaxf(w->swing_low_flat, swf.low_share);
    ok = true;
done:
    br_track_free(&tsrc), br_track_free(&ton), br_track_free(&toff), br_track_free(&tflat);
    free(spose), free(tpose);
    sk_clip_destroy(flat);
    sk_clip_destroy(on);
    sk_clip_destroy(off);
    cli_retarget_close(&rt);
    sk_asset_destroy(src);
    sk_asset_destroy(dst);
    return ok;
}

static int bench_retarget(int argc, char **argv) {
    br_args a = {"../shared", false, {NULL, 0}};
    int rc = cli_parse(&cli_cmd_bench_retarget, argc, argv, &a, NULL);
    if (rc != CLI_CONTINUE) return rc;
    br_worst w[2];
    memset(w, 0, sizeof w);
    int failed = 0;
    if (a.captures.n) { /* each given capture onto both targets; their summary is the "tuned" line's place */
        for (uint32_t i = 0; i < a.captures.n; i++)
            for (int t = 0; t < 2; t++) {
                br_case c = {a.captures.v[i], NULL, t ? "CesiumMan" : "mannequin", false};
                if (!br_run(&a, &c, &w[0])) failed++, w[0].failed++;
            }
    } else
        for (size_t i = 0; i < CLI_COUNT(br_cases); i++) /* a failed case is said on stderr; the others still run */
            if (!br_run(&a, &br_cases[i], &w[br_cases[i].held_out])) failed++, w[br_cases[i].held_out].failed++;
    for (int h = 0; h < (a.captures.n ? 1 : 2); h++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "bench", "retarget");
        cJSON_AddStringToObject(o, "summary", a.captures.n ? "given" : h ? "held_out" : "tuned");
        cJSON_AddBoolToObject(o, "held_out", h == 1);
        cJSON_AddItemToObject(o, "cases", cli_num(w[h].cases));
        cJSON_AddItemToObject(o, "reference_contacts", cli_num(w[h].contacts));
        cJSON_AddItemToObject(o, "restored_height_max_m", cli_num(w[h].height_on));
        cJSON_AddItemToObject(o, "restored_slide_max_m", cli_num(w[h].slide_on));
        cJSON_AddItemToObject(o, "restored_foot_height_max_m", cli_num(w[h].foot_on));
        cJSON_AddItemToObject(o, "not_restored_foot_height_max_m", cli_num(w[h].foot_off));
        cJSON_AddItemToObject(o, "not_restored_height_max_m", cli_num(w[h].height_off));
        cJSON_AddItemToObject(o, "not_restored_slide_max_m", cli_num(w[h].slide_off));
        cJSON_AddItemToObject(o, "stride_error_max", cli_num(w[h].stride_err));
        cJSON_AddItemToObject(o, "swing_low_share_without_source_max", cli_num(w[h].swing_low_flat));
        cJSON_AddItemToObject(o, "swing_low_share_max", cli_num(w[h].swing_low));
        cJSON_AddItemToObject(o, "ns_per_pose_joint_max", cli_num(w[h].ns_joint));
        cJSON_AddItemToObject(o, "failed_cases", cli_num(w[h].failed));
        cli_put_json_line(o);
    }
    if (failed) fprintf(stderr, "skelanim: bench retarget: %d case%s failed\n", failed, failed == 1 ? "" : "s");
    return failed ? 1 : 0;
}

static const cli_opt br_opts[] = {
    {"--data", CLI_STRING(br_args, data), .meta = "DIR", .dflt_text = "../shared",
     .help = "the shared data: DIR/mocap/bvh/*.bvh and DIR/assets/gltf/CesiumMan"},
    {"--quick", CLI_FLAG(br_args, quick), .help = "time 3 passes per case instead of 15"},
    {"--capture", CLI_LIST_OF(CLI_KIND_STRING, br_args, captures, 0), .meta = "FILE.bvh",
     .help = "instead of the built-in cases, this capture (CMU units) onto the mannequin and CesiumMan (repeat for more)"},
};
const cli_command cli_cmd_bench_retarget = {
    .name = "bench retarget",
    .run = bench_retarget,
    .summary = "retargeting: cost per pose and joint, feet over the source's contacts, stride, swing clearance",
    .about = "Captures (02_01, 07_01, 09_11; held out: 131_03, 49_08, 05_06) onto the mannequin and "
             "CesiumMan, and the mannequin's walk and run onto CesiumMan: the cost per retargeted pose "
             "and joint, the target's ankle height and slide over the source's contacts (found by a "
             "height and speed detector of the benchmark's own) with contact restoration on and off, "
             "the stride against the leg-length ratio, and the swing's clearance against the source's "
             "(with the source's clearance restored and without); JSON lines.",
    .opts = br_opts,
    .nopts = CLI_COUNT(br_opts),
};
