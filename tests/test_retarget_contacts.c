/* Foot contacts kept through retargeting (locomotion/contacts.h on clips
 * baked by anim/retarget.h).
 *
 * The reference is a contact detector written here, independently of the
 * library's (sk_contacts_find) and of the motion analysis: the source's
 * ankle, sampled at 120 Hz, is in contact while it is within a band above
 * the ground (the 5th percentile of its heights over the clip) and moves
 * horizontally slower than a threshold, for at least 0.06 s. Over those
 * phases, on the target:
 *   - the ankle stays within 2 cm of its rest height above the ground
 *     (its rest y; the ground is y = 0), and
 *   - slides (largest horizontal distance from where the contact began)
 *     less than 1 cm,
 * with restoration on; with it off the same figures are only printed (the
 * bench reports them). The stride (the distance between one foot's
 * successive contacts, mean positions) of the target over the source's
 * equals the ratio of their leg lengths (hip-knee-ankle at rest, measured
 * here from the named joints) within 3 %. And restoration adds no jump:
 * the ankle's vertical second difference over three 120 Hz samples stays
 * within 1 cm of the largest one without restoration (a pelvis lowered for
 * one leg's pin once carried the other, swinging, foot down with it and
 * let it jump back 7.7 cm in one sample as its own pin blended in). */
#include "support.h"

#include "skelanim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RATE 120.0
#define MAX_CONTACTS 256

typedef struct feet {
    const char *hip[2], *knee[2], *ankle[2]; /* left, right */
} feet;

static const feet cmu_feet = {{"LeftUpLeg", "RightUpLeg"}, {"LeftLeg", "RightLeg"}, {"LeftFoot", "RightFoot"}};
static const feet mannequin_feet = {{"thigh_l", "thigh_r"}, {"shin_l", "shin_r"}, {"foot_l", "foot_r"}};
static const feet cesium_feet = {{"leg_joint_L_1", "leg_joint_R_1"}, {"leg_joint_L_2", "leg_joint_R_2"},
                                 {"leg_joint_L_3", "leg_joint_R_3"}};

typedef struct ref_contact {
    int foot;
    uint32_t first, last; /* samples at RATE */
} ref_contact;

/* Model positions of the named joints over the clip at RATE (n samples). */
static sk_vec3 *track_joints(const sk_skeleton *s, const sk_clip *c, const int32_t *joints, int nj, uint32_t *n) {
    *n = (uint32_t)floor(sk_clip_duration(c) * RATE) + 1;
    sk_vec3 *p = calloc((size_t)*n * (size_t)nj, sizeof *p);
    sk_transform *local = calloc(s->joint_count, sizeof *local);
    sk_mat4 *model = calloc(s->joint_count, sizeof *model);
    assert_non_null(p);
    assert_non_null(local);
    assert_non_null(model);
    for (uint32_t i = 0; i < *n; i++) {
        assert_int_equal(sk_clip_sample(c, s, i / RATE, SK_LOOP_CLAMP, SK_POSE_OF(s, local, NULL), NULL), SK_OK);
        assert_int_equal(sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, model, s->joint_count, NULL), SK_OK);
        for (int j = 0; j < nj; j++) p[(size_t)i * nj + j] = sk_vec3_make(model[joints[j]].m[12], model[joints[j]].m[13], model[joints[j]].m[14]);
    }
    free(local);
    free(model);
    return p;
}

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* The reference detector (see the top), on ankle positions p (n x 2). */
static int detect(const sk_vec3 *p, uint32_t n, ref_contact *out) {
    const float band = 0.035f, still = 0.45f; /* m, m/s (a run's planted ankle: up to 0.3 m/s at 120 Hz) */
    const uint32_t min_samples = (uint32_t)(0.06 * RATE); /* a run's flat foot: about 0.1 s */
    int count = 0;
    float *h = calloc(n, sizeof *h);
    assert_non_null(h);
    for (int f = 0; f < 2; f++) {
        for (uint32_t i = 0; i < n; i++) h[i] = p[(size_t)i * 2 + f].y;
        qsort(h, n, sizeof *h, cmp_float);
        float ground = h[n / 20];
        uint32_t start = UINT32_MAX;
        for (uint32_t i = 0; i <= n; i++) {
            bool on = false;
            if (i < n) {
                uint32_t a = i ? i - 1 : 0, b = i + 1 < n ? i + 1 : n - 1;
                sk_vec3 d = sk_vec3_sub(p[(size_t)b * 2 + f], p[(size_t)a * 2 + f]);
                float v = sqrtf(d.x * d.x + d.z * d.z) * (float)RATE / (float)(b - a);
                on = p[(size_t)i * 2 + f].y <= ground + band && v <= still;
            }
            if (on && start == UINT32_MAX) start = i;
            if (!on && start != UINT32_MAX) {
                if (i - start >= min_samples && count < MAX_CONTACTS) out[count++] = (ref_contact){f, start, i - 1};
                start = UINT32_MAX;
            }
        }
    }
    free(h);
    return count;
}

static int32_t find_joint(const sk_skeleton *s, const char *name) {
    int32_t j = sk_skeleton_find(s, name);
    if (j < 0) fail_msg("no joint %s", name);
    return j;
}

/* The two legs of s named by ft (hip, knee, ankle; no toe joint). */
static void legs_of(const sk_skeleton *s, const feet *ft, sk_leg_desc out[2]) {
    memset(out, 0, 2 * sizeof *out);
    for (int f = 0; f < 2; f++)
        out[f].hip = find_joint(s, ft->hip[f]), out[f].knee = find_joint(s, ft->knee[f]),
        out[f].ankle = find_joint(s, ft->ankle[f]), out[f].toe = -1;
}

/* Rest positions of hip, knee, ankle of both legs; leg length (mean) and ankle rest heights. */
static float rest_legs(const sk_skeleton *s, const feet *ft, float ankle_height[2]) {
    sk_transform *local = calloc(s->joint_count, sizeof *local);
    sk_mat4 *m = calloc(s->joint_count, sizeof *m);
    assert_int_equal(sk_pose_rest(s, SK_POSE_OF(s, local, NULL), NULL), SK_OK);
    assert_int_equal(sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, m, s->joint_count, NULL), SK_OK);
    float len = 0, lowest = INFINITY; /* the rest pose's lowest joint: the sole's height */
    for (uint32_t j = 0; j < s->joint_count; j++) lowest = fminf(lowest, m[j].m[13]);
    lowest = fminf(lowest, 0.0f); /* a character standing on y = 0 at rest */
    for (int f = 0; f < 2; f++) {
        int32_t h = find_joint(s, ft->hip[f]), k = find_joint(s, ft->knee[f]), a = find_joint(s, ft->ankle[f]);
        sk_vec3 ph = {m[h].m[12], m[h].m[13], m[h].m[14]}, pk = {m[k].m[12], m[k].m[13], m[k].m[14]};
        sk_vec3 pa = {m[a].m[12], m[a].m[13], m[a].m[14]};
        len += 0.5f * (sk_vec3_length(sk_vec3_sub(pk, ph)) + sk_vec3_length(sk_vec3_sub(pa, pk)));
        ankle_height[f] = pa.y - lowest;
    }
    free(local);
    free(m);
    return len;
}

typedef struct measure {
    int contacts;
    float height_err, slide, stride_ratio; /* worst |height|, worst slide, mean target/source stride */
    int strides;
} measure;

/* The target's ankles over the reference contacts. */
static measure measure_target(const sk_vec3 *src, const sk_vec3 *dst, uint32_t n, const ref_contact *c, int nc,
                              const float ankle_rest[2]) {
    measure m = {nc, 0, 0, 0, 0};
    double ratio_sum = 0;
    for (int i = 0; i < nc; i++) {
        int f = c[i].foot;
        sk_vec3 start = dst[(size_t)c[i].first * 2 + f];
        for (uint32_t s = c[i].first; s <= c[i].last && s < n; s++) {
            sk_vec3 p = dst[(size_t)s * 2 + f];
            m.height_err = fmaxf(m.height_err, fabsf(p.y - ankle_rest[f]));
            m.slide = fmaxf(m.slide, sqrtf((p.x - start.x) * (p.x - start.x) + (p.z - start.z) * (p.z - start.z)));
        }
        /* Stride: to the next contact of the same foot. */
        for (int j = i + 1; j < nc; j++) {
            if (c[j].foot != f) continue;
            sk_vec3 ms[2] = {{0, 0, 0}, {0, 0, 0}}, md[2] = {{0, 0, 0}, {0, 0, 0}};
            const ref_contact *cc[2] = {&c[i], &c[j]};
            for (int k = 0; k < 2; k++) {
                for (uint32_t s = cc[k]->first; s <= cc[k]->last; s++)
                    ms[k] = sk_vec3_add(ms[k], src[(size_t)s * 2 + f]), md[k] = sk_vec3_add(md[k], dst[(size_t)s * 2 + f]);
                float inv = 1.0f / (float)(cc[k]->last - cc[k]->first + 1);
                ms[k] = sk_vec3_scale(ms[k], inv), md[k] = sk_vec3_scale(md[k], inv);
            }
            float ds = hypotf(ms[1].x - ms[0].x, ms[1].z - ms[0].z), dd = hypotf(md[1].x - md[0].x, md[1].z - md[0].z);
            if (ds > 0.2f) ratio_sum += dd / ds, m.strides++;
            break;
        }
    }
    m.stride_ratio = m.strides ? (float)(ratio_sum / m.strides) : 0.0f;
    return m;
}

static sk_asset *load(const char *which) {
    sk_asset *a = NULL;
    sk_error err = {0};
    char path[1024];
    if (!strcmp(which, "mannequin")) {
        assert_int_equal(sk_mannequin_create(NULL, NULL, &a, &err), SK_OK);
        return a;
    }
    const char *shared = sk_test_require_shared();
    if (!strcmp(which, "CesiumMan")) {
        snprintf(path, sizeof path, "%s/assets/gltf/CesiumMan/CesiumMan.glb", shared);
        if (sk_gltf_load_file(path, NULL, &a, &err) != SK_OK) sk_test_missing("%s", err.message);
        return a;
    }
    snprintf(path, sizeof path, "%s/mocap/bvh/%s.bvh", shared, which);
    sk_bvh_options bo = {0};
    bo.scale = 0.056444;
    if (sk_bvh_load_file(path, &bo, &a, &err) != SK_OK) sk_test_missing("%s", err.message);
    return a;
}

/* The library's pipeline: bake, find the source's contacts, restore them on the target. */
static sk_clip *retarget(const sk_asset *src, const sk_clip *clip, const sk_asset *dst, const feet *sf, const feet *df,
                         bool contacts) {
    sk_error err = {0};
    sk_retarget_desc d;
    memset(&d, 0, sizeof d);
    d.source = src->skeleton, d.target = dst->skeleton;
    /* The source's rest pose standing on y = 0 (a .bvh rest pose has its root at the origin). */
    const sk_skeleton *ss = src->skeleton;
    sk_transform *rest = calloc(ss->joint_count, sizeof *rest);
    sk_mat4 *m = calloc(ss->joint_count, sizeof *m);
    sk_pose_rest(ss, SK_POSE_OF(ss, rest, NULL), NULL);
    sk_local_to_model(ss, SK_POSE_OF(ss, rest, NULL), NULL, m, ss->joint_count, NULL);
    float lowest = 0;
    for (uint32_t j = 0; j < ss->joint_count; j++) lowest = fminf(lowest, m[j].m[13]);
    for (uint32_t j = 0; j < ss->joint_count; j++)
        if (ss->parents[j] < 0) rest[j].t.y -= lowest;
    sk_pose rest_pose = {rest, NULL, ss->joint_count, 0};
    d.source_rest = &rest_pose;
    free(m);
    sk_retarget *rt = NULL;
    if (sk_retarget_create(&d, NULL, &rt, &err) != SK_OK) fail_msg("sk_retarget_create: %s", err.message);
    free(rest);
    sk_clip *baked = NULL;
    if (sk_retarget_clip(rt, clip, NULL, NULL, &baked, &err) != SK_OK) fail_msg("sk_retarget_clip: %s", err.message);
    sk_retarget_destroy(rt);
    if (!contacts) return baked;
    sk_leg_desc sl[2], dl[2];
    legs_of(src->skeleton, sf, sl), legs_of(dst->skeleton, df, dl);
    sk_contact c[MAX_CONTACTS];
    uint32_t n = 0;
    assert_int_equal(sk_contacts_find(src->skeleton, clip, sl, 2, NULL, NULL, c, MAX_CONTACTS, &n, &err), SK_OK);
    sk_clip *out = NULL;
    sk_contact_restore_stats st;
    if (sk_contacts_restore(dst->skeleton, baked, dl, 2, c, n, NULL, NULL, &out, &st, &err) != SK_OK)
        fail_msg("sk_contacts_restore: %s", err.message);
    sk_clip_destroy(baked);
    return out;
}

/* One case; returns the reference contacts checked. */
static int run_case(const char *source, const char *clip_name, const char *target, bool retargeted) {
    sk_asset *src = load(source), *dst = retargeted ? load(target) : NULL;
    const feet *sf = !strcmp(source, "mannequin") ? &mannequin_feet : &cmu_feet;
    const feet *df = !retargeted ? sf : !strcmp(target, "mannequin") ? &mannequin_feet : &cesium_feet;
    const sk_asset *tgt = retargeted ? dst : src;
    int32_t ci = clip_name ? sk_asset_find_clip(src, clip_name) : 0;
    assert_true(ci >= 0);
    const sk_clip *clip = src->clips[ci];
    sk_clip *on = NULL, *off = NULL;
    if (retargeted) {
        on = retarget(src, clip, dst, sf, df, true);
        off = retarget(src, clip, dst, sf, df, false);
    } else { /* contacts found and restored on the clip itself */
        sk_leg_desc l[2];
        legs_of(src->skeleton, sf, l);
        sk_contact c[MAX_CONTACTS];
        uint32_t n = 0;
        sk_error err = {0};
        assert_int_equal(sk_contacts_find(src->skeleton, clip, l, 2, NULL, NULL, c, MAX_CONTACTS, &n, &err), SK_OK);
        sk_contact_restore_options o = {0};
        o.ground_set = true;
        o.ground = 0.0f;
        assert_int_equal(sk_contacts_restore(src->skeleton, clip, l, 2, c, n, &o, NULL, &on, NULL, &err), SK_OK);
    }
    int32_t sj[2] = {find_joint(src->skeleton, sf->ankle[0]), find_joint(src->skeleton, sf->ankle[1])};
    int32_t dj[2] = {find_joint(tgt->skeleton, df->ankle[0]), find_joint(tgt->skeleton, df->ankle[1])};
    uint32_t n = 0, n2 = 0, n3 = 0;
    sk_vec3 *sp = track_joints(src->skeleton, clip, sj, 2, &n);
    sk_vec3 *dp = track_joints(tgt->skeleton, on, dj, 2, &n2);
    sk_vec3 *op = off ? track_joints(tgt->skeleton, off, dj, 2, &n3) : NULL;
    assert_int_equal(n, n2);
    ref_contact rc[MAX_CONTACTS];
    int nc = detect(sp, n, rc);
    float src_rest[2], dst_rest[2];
    float sl = rest_legs(src->skeleton, sf, src_rest), dl = rest_legs(tgt->skeleton, df, dst_rest);
    measure m = measure_target(sp, dp, n, rc, nc, dst_rest);
    measure mo = op ? measure_target(sp, op, n, rc, nc, dst_rest) : m;
    float leg_ratio = dl / sl;
    printf("%-14s %-6s -> %-10s contacts %2d  on: height %.4f m slide %.4f m  off: height %.4f m slide %.4f m  "
           "stride ratio %.4f (legs %.4f, %d strides)\n",
           source, clip_name ? clip_name : "", retargeted ? target : "(itself)", nc, (double)m.height_err,
           (double)m.slide, (double)mo.height_err, (double)mo.slide, (double)m.stride_ratio, (double)leg_ratio,
           m.strides);
    /* the largest vertical jump of an ankle: its second difference over three samples (a step
     * in one sample shows as its size; smooth motion at 120 Hz as a few millimetres) */
    float step_on = 0.0f, step_off = 0.0f;
    const sk_vec3 *ref = op ? op : sp; /* on itself: the clip's own motion */
    for (uint32_t k = 1; k + 1 < n; k++)
        for (int f = 0; f < 2; f++) {
            size_t a = (size_t)(k - 1) * 2 + f, b = (size_t)k * 2 + f, c = (size_t)(k + 1) * 2 + f;
            step_on = fmaxf(step_on, fabsf(dp[c].y - 2.0f * dp[b].y + dp[a].y));
            step_off = fmaxf(step_off, fabsf(ref[c].y - 2.0f * ref[b].y + ref[a].y));
        }
    printf("  largest vertical ankle jump (second difference): %.4f m restored, %.4f m not\n", (double)step_on,
           (double)step_off);
    assert_true(step_on <= step_off + 0.01f);
    assert_true(nc >= 2);
    assert_true(m.height_err < 0.02f);
    assert_true(m.slide < 0.01f);
    if (m.strides > 0) assert_true(fabsf(m.stride_ratio / leg_ratio - 1.0f) < 0.03f);
    free(sp), free(dp), free(op);
    sk_clip_destroy(on);
    sk_clip_destroy(off);
    sk_asset_destroy(src);
    sk_asset_destroy(dst);
    return nc;
}

static const char *const captures[] = {"02_01", "07_01_fbx2bvh", "09_11_fbx2bvh"};

/* Restoration alone: the mannequin's clips' own contacts pinned on them. */
static void test_restore_on_itself(void **state) {
    (void)state;
    int total = 0, cases = 0;
    total += run_case("mannequin", "walk", NULL, false), cases++;
    total += run_case("mannequin", "run", NULL, false), cases++;
    printf("restored on itself: %d cases, %d reference contacts\n", cases, total);
    assert_int_equal(cases, 2);
    assert_true(total >= 4);
}

static void test_retarget_contacts(void **state) {
    (void)state;
    int total = 0, cases = 0;
    static const char *const targets[] = {"mannequin", "CesiumMan"};
    for (size_t t = 0; t < 2; t++)
        for (size_t i = 0; i < 3; i++) total += run_case(captures[i], NULL, targets[t], true), cases++;
    total += run_case("mannequin", "walk", "CesiumMan", true), cases++;
    total += run_case("mannequin", "run", "CesiumMan", true), cases++;
    printf("retargeted: %d cases, %d reference contacts\n", cases, total);
    assert_int_equal(cases, 8);
    assert_true(total >= 28); /* 31 when written */
}

/* sk_contact_restore_options.floor: the shared captures retargeted onto the
 * mannequin and CesiumMan, restored with and without it. Measured here on
 * the target's foot joints (the ankle and every joint below it, at 120 Hz;
 * joints, not the library's heel and toe points): with floor none is more
 * than 1 mm below the ground (the library also keeps its sole points up,
 * so the joints, which are above the sole, must be); without it some go
 * more than 1 cm through the floor (02_01 on the mannequin's toes at
 * push-off); and raising adds no jump (the ankles' vertical second
 * difference within 1 cm of the largest without it). */
static void test_floor(void **state) {
    (void)state;
    static const char *const targets[] = {"mannequin", "CesiumMan"};
    float worst_off = 0.0f, worst_on = 0.0f;
    int cases = 0;
    for (size_t ti = 0; ti < 2; ti++)
        for (size_t ci = 0; ci < 3; ci++) {
            sk_asset *src = load(captures[ci]), *dst = load(targets[ti]);
            const feet *df = ti ? &cesium_feet : &mannequin_feet;
            sk_clip *baked = retarget(src, src->clips[0], dst, &cmu_feet, df, false);
            sk_leg_desc sl[2], dl[2];
            legs_of(src->skeleton, &cmu_feet, sl), legs_of(dst->skeleton, df, dl);
            sk_error err = {0};
            sk_contact c[MAX_CONTACTS];
            uint32_t n = 0;
            assert_int_equal(sk_contacts_find(src->skeleton, src->clips[0], sl, 2, NULL, NULL, c, MAX_CONTACTS, &n, &err), SK_OK);
            /* the foot joints: each ankle and its subtree */
            int32_t fj[64];
            int nf = 0, an[2];
            for (int f = 0; f < 2; f++) {
                an[f] = nf;
                uint32_t end = sk_skeleton_subtree_end(dst->skeleton, (uint32_t)dl[f].ankle);
                for (uint32_t j = (uint32_t)dl[f].ankle; j < end && nf < 64; j++) fj[nf++] = (int32_t)j;
            }
            float low[2] = {0, 0}, jump[2] = {0, 0};
            uint32_t raised = 0;
            for (int on = 0; on < 2; on++) {
                sk_contact_restore_options o = {0};
                o.floor = on != 0;
                sk_contact_restore_stats st;
                sk_clip *out = NULL;
                assert_int_equal(sk_contacts_restore(dst->skeleton, baked, dl, 2, c, n, &o, NULL, &out, &st, &err), SK_OK);
                if (on) raised = st.raised;
                else assert_int_equal(st.raised, 0);
                uint32_t k = 0;
                sk_vec3 *p = track_joints(dst->skeleton, out, fj, nf, &k);
                for (uint32_t i = 0; i < k; i++)
                    for (int j = 0; j < nf; j++) low[on] = fminf(low[on], p[(size_t)i * nf + j].y);
                for (uint32_t i = 1; i + 1 < k; i++)
                    for (int f = 0; f < 2; f++) {
                        float a = p[(size_t)(i - 1) * nf + an[f]].y, b = p[(size_t)i * nf + an[f]].y,
                              d = p[(size_t)(i + 1) * nf + an[f]].y;
                        jump[on] = fmaxf(jump[on], fabsf(d - 2.0f * b + a));
                    }
                free(p);
                sk_clip_destroy(out);
            }
            printf("  %-14s -> %-9s lowest foot joint %.4f m without floor, %.4f m with (%u leg-keys raised); "
                   "largest ankle jump %.4f / %.4f m\n", captures[ci], targets[ti], (double)low[0], (double)low[1], raised,
                   (double)jump[0], (double)jump[1]);
            assert_true(low[1] >= -0.001f);
            assert_true(jump[1] <= jump[0] + 0.01f);
            worst_off = fminf(worst_off, low[0]), worst_on = fminf(worst_on, low[1]);
            cases++;
            sk_clip_destroy(baked);
            sk_asset_destroy(src);
            sk_asset_destroy(dst);
        }
    printf("floor: %d cases; lowest foot joint %.4f m without, %.4f m with\n", cases, (double)worst_off, (double)worst_on);
    assert_int_equal(cases, 6);
    assert_true(worst_off < -0.01f); /* the cases do go through the floor without it */
}

/* Per sample (n x 2 feet): the lowest of the ankle and the joints below it. */
static float *foot_lows(const sk_skeleton *s, const sk_clip *c, const int32_t ankle[2], uint32_t *n) {
    int32_t fj[64];
    int nf = 0, first[3];
    for (int f = 0; f < 2; f++) {
        first[f] = nf;
        uint32_t end = sk_skeleton_subtree_end(s, (uint32_t)ankle[f]);
        for (uint32_t j = (uint32_t)ankle[f]; j < end && nf < 64; j++) fj[nf++] = (int32_t)j;
    }
    first[2] = nf;
    sk_vec3 *p = track_joints(s, c, fj, nf, n);
    float *low = malloc((size_t)*n * 2 * sizeof *low);
    assert_non_null(low);
    for (uint32_t i = 0; i < *n; i++)
        for (int f = 0; f < 2; f++) {
            float y = INFINITY;
            for (int j = first[f]; j < first[f + 1]; j++) y = fminf(y, p[(size_t)i * nf + j].y);
            low[(size_t)i * 2 + f] = y;
        }
    free(p);
    return low;
}

/* The median of low (n x 2) for foot f over its reference contacts. */
static float median_over(const float *low, int f, const ref_contact *rc, int nc) {
    static float h[8192];
    uint32_t m = 0;
    for (int i = 0; i < nc; i++)
        if (rc[i].foot == f)
            for (uint32_t k = rc[i].first; k <= rc[i].last && m < 8192; k++) h[m++] = low[(size_t)k * 2 + f];
    assert_true(m > 0);
    qsort(h, m, sizeof *h, cmp_float);
    return h[m / 2];
}

/* sk_contact_restore_options.source: the swing clears the ground by the
 * source's clearance scaled by the legs' ratio. Measured here, between the
 * reference detector's contacts of one foot (0.1 s away from both): the
 * foot's lowest joint above its median height over the foot's reference
 * contacts, on the source and on the target. The highest
 * point of each swing on the target over the source's times the leg ratio
 * is within 0.8..1.75 with the source given (the foot may clear more: the
 * ankle also follows the source's ankle), and nearer 1 on the whole (the
 * mean |log| of the ratios) than without it; without it, swings are outside
 * (the fault this fixes: up to 4x too high here, where these legs' default
 * sole points are used; 0.65 with the mannequin's walk on CesiumMan). The contacts are held as without it (the ankle at its
 * rest height but where the floor rolls the foot onto its ball), and no
 * jump is added. */
static void test_swing(void **state) {
    (void)state;
    static const char *const targets[] = {"mannequin", "CesiumMan"};
    int cases = 0, swings = 0, outside_without = 0;
    float lo = INFINITY, hi = 0.0f;
    double log_with = 0.0, log_without = 0.0;
    for (size_t ti = 0; ti < 2; ti++)
        for (size_t ci = 0; ci < 4; ci++) {
            const char *sname = ci < 3 ? captures[ci] : "mannequin";
            if (ci == 3 && ti == 0) continue; /* the mannequin's walk onto itself */
            sk_asset *src = load(sname), *dst = load(targets[ti]);
            const feet *sf = ci < 3 ? &cmu_feet : &mannequin_feet, *df = ti ? &cesium_feet : &mannequin_feet;
            const sk_clip *clip = src->clips[ci < 3 ? 0 : sk_asset_find_clip(src, "walk")];
            sk_clip *baked = retarget(src, clip, dst, sf, df, false);
            sk_leg_desc sl[2], dl[2];
            legs_of(src->skeleton, sf, sl), legs_of(dst->skeleton, df, dl);
            sk_error err = {0};
            sk_contact c[MAX_CONTACTS];
            uint32_t n = 0;
            assert_int_equal(sk_contacts_find(src->skeleton, clip, sl, 2, NULL, NULL, c, MAX_CONTACTS, &n, &err), SK_OK);
            float srest[2], drest[2];
            float ratio = rest_legs(dst->skeleton, df, drest) / rest_legs(src->skeleton, sf, srest);
            int32_t sa[2] = {sl[0].ankle, sl[1].ankle}, da[2] = {dl[0].ankle, dl[1].ankle};
            uint32_t ns = 0;
            sk_vec3 *sp = track_joints(src->skeleton, clip, sa, 2, &ns);
            float *slow = foot_lows(src->skeleton, clip, sa, &ns);
            ref_contact rc[MAX_CONTACTS];
            int nc = detect(sp, ns, rc);
            float peak_ratio[2][16];
            int nsw[2] = {0, 0};
            float jump[3] = {0, 0, 0}, held[2] = {0, 0};
            for (int with = 0; with < 3; with++) { /* 0: without, 1: with the source, 2: not restored */
                sk_clip *out = NULL;
                if (with < 2) {
                    sk_contact_restore_options o = {0};
                    o.floor = true;
                    sk_contact_source cs = {src->skeleton, clip, sl, ratio};
                    if (with) o.source = &cs;
                    assert_int_equal(sk_contacts_restore(dst->skeleton, baked, dl, 2, c, n, &o, NULL, &out, NULL, &err), SK_OK);
                }
                const sk_clip *played = with < 2 ? out : baked;
                uint32_t nd = 0;
                float *dlow = foot_lows(dst->skeleton, played, da, &nd);
                sk_vec3 *dp = track_joints(dst->skeleton, played, da, 2, &nd);
                assert_int_equal(nd, ns);
                for (uint32_t i = 1; i + 1 < nd; i++)
                    for (int f = 0; f < 2; f++)
                        jump[with] = fmaxf(jump[with], fabsf(dp[(size_t)(i + 1) * 2 + f].y - 2.0f * dp[(size_t)i * 2 + f].y +
                                                             dp[(size_t)(i - 1) * 2 + f].y));
                for (int i = 0; i < nc && with < 2; i++) /* the contacts still pinned at the ankle's rest height */
                    for (uint32_t k = rc[i].first; k <= rc[i].last; k++)
                        held[with] = fmaxf(held[with], fabsf(dp[(size_t)k * 2 + rc[i].foot].y - drest[rc[i].foot]));
                for (int f = 0; f < 2 && with < 2; f++) {
                    float stance = median_over(slow, f, rc, nc), dstance = median_over(dlow, f, rc, nc);
                    const uint32_t margin = (uint32_t)(0.1 * RATE);
                    for (int i = 0; i < nc; i++) {
                        int j = i + 1;
                        while (j < nc && rc[j].foot != rc[i].foot) j++;
                        if (rc[i].foot != f || j >= nc || rc[j].first < rc[i].last + 2 * margin) continue;
                        float spk = 0, dpk = 0;
                        for (uint32_t k = rc[i].last + margin; k <= rc[j].first - margin; k++)
                            spk = fmaxf(spk, slow[(size_t)k * 2 + f] - stance), dpk = fmaxf(dpk, dlow[(size_t)k * 2 + f] - dstance);
                        if (spk > 0.01f && nsw[with] < 16) peak_ratio[with][nsw[with]++] = dpk / (spk * ratio);
                    }
                }
                free(dlow), free(dp);
                sk_clip_destroy(out);
            }
            assert_int_equal(nsw[0], nsw[1]);
            printf("  %-14s -> %-9s swings %d; peak over the source's x %.3f: with", sname, targets[ti], nsw[1], (double)ratio);
            for (int i = 0; i < nsw[1]; i++) printf(" %.2f", (double)peak_ratio[1][i]);
            printf(", without");
            for (int i = 0; i < nsw[0]; i++) printf(" %.2f", (double)peak_ratio[0][i]);
            printf("; contacts held within %.4f / %.4f m; ankle jump %.4f with, %.4f without, %.4f not restored\n",
                   (double)held[1], (double)held[0], (double)jump[1], (double)jump[0], (double)jump[2]);
            for (int i = 0; i < nsw[1]; i++) {
                lo = fminf(lo, peak_ratio[1][i]), hi = fmaxf(hi, peak_ratio[1][i]);
                outside_without += peak_ratio[0][i] < 0.8f || peak_ratio[0][i] > 1.75f;
                log_with += fabs(log(peak_ratio[1][i])), log_without += fabs(log(peak_ratio[0][i]));
            }
            swings += nsw[1];
            assert_true(held[1] <= held[0] + 0.001f); /* the source changes nothing over the contacts */
            assert_true(jump[1] <= jump[2] + 0.01f);
            cases++;
            free(sp), free(slow);
            sk_clip_destroy(baked);
            sk_asset_destroy(src);
            sk_asset_destroy(dst);
        }
    printf("swing: %d cases, %d swings; peak ratio %.3f..%.3f with the source, %d swings outside 0.8..1.75 without; "
           "mean |log ratio| %.3f with, %.3f without\n", cases, swings, (double)lo, (double)hi, outside_without,
           log_with / swings, log_without / swings);
    assert_int_equal(cases, 7);
    assert_true(swings >= 12); /* 15 when written */
    assert_true(lo >= 0.8f && hi <= 1.75f);
    assert_true(log_with < 0.5 * log_without);
    assert_true(outside_without >= 3); /* the fault this fixes shows without it */
}

/* A counting allocator that fails its call number fail_at (0-based; -1: none). */
typedef struct count_alloc {
    size_t live;
    int calls, fail_at;
} count_alloc;
static void *ca_alloc(void *u, size_t n) {
    count_alloc *c = u;
    if (c->calls++ == c->fail_at) return NULL;
    c->live += n;
    return calloc(1, n);
}
static void ca_free(void *u, void *p, size_t n) {
    count_alloc *c = u;
    if (p) c->live -= n;
    free(p);
}

/* sk_contacts_restore with a source and the floor, through an allocator
 * that fails each of its allocations in turn: SK_ERR_OUT_OF_MEMORY, no
 * clip, nothing left allocated; without failures everything is freed with
 * the clip. */
static void test_restore_alloc_failure(void **state) {
    (void)state;
    sk_asset *a = load("mannequin");
    const sk_skeleton *s = a->skeleton;
    const sk_clip *walk = a->clips[sk_asset_find_clip(a, "walk")];
    sk_leg_desc l[2];
    legs_of(s, &mannequin_feet, l);
    sk_contact c[MAX_CONTACTS];
    uint32_t n = 0;
    assert_int_equal(sk_contacts_find(s, walk, l, 2, NULL, NULL, c, MAX_CONTACTS, &n, NULL), SK_OK);
    sk_contact_source cs = {s, walk, l, 1.1f};
    sk_contact_restore_options o = {0};
    o.floor = true, o.source = &cs;
    count_alloc cnt = {0, 0, -1};
    sk_allocator al = {ca_alloc, NULL, ca_free, &cnt};
    sk_clip *out = NULL;
    assert_int_equal(sk_contacts_restore(s, walk, l, 2, c, n, &o, &al, &out, NULL, NULL), SK_OK);
    int total = cnt.calls;
    sk_clip_destroy(out);
    assert_int_equal(cnt.live, 0);
    int failed = 0;
    for (int k = 0; k < total; k++) {
        count_alloc ck = {0, 0, k};
        sk_allocator ak = {ca_alloc, NULL, ca_free, &ck};
        sk_error err = {0};
        out = NULL;
        sk_result r = sk_contacts_restore(s, walk, l, 2, c, n, &o, &ak, &out, NULL, &err);
        if (r == SK_OK) { /* an allocation the restore could do without (none expected) */
            sk_clip_destroy(out);
        } else {
            assert_int_equal(r, SK_ERR_OUT_OF_MEMORY);
            assert_null(out);
            failed++;
        }
        assert_int_equal(ck.live, 0);
    }
    printf("restore with a source: %d allocations, each failed in turn: %d out-of-memory errors\n", total, failed);
    assert_true(total >= 8);
    assert_int_equal(failed, total);
    sk_asset_destroy(a);
}

/* Bad input: a clear error, never a crash. */
static void test_contacts_bad_input(void **state) {
    (void)state;
    sk_asset *a = load("mannequin");
    const sk_skeleton *s = a->skeleton;
    sk_leg_desc l[2];
    legs_of(s, &mannequin_feet, l);
    sk_error err = {0};
    uint32_t n = 0;
    sk_contact c[4] = {{0, 0.1, 0.3, {0, 0, 0}}, {0, 0.2, 0.4, {0, 0, 0}}};
    sk_clip *out = NULL;
    sk_result r = sk_contacts_find(s, a->clips[1], l, 2, NULL, NULL, c, 0, &n, &err);
    assert_true(n >= 2); /* a walk: at least one contact per foot */
    assert_int_equal(r, SK_ERR_LIMIT);
    sk_leg_desc bad = l[0];
    bad.ankle = 9999;
    assert_int_equal(sk_contacts_find(s, a->clips[1], &bad, 1, NULL, NULL, NULL, 0, &n, &err), SK_ERR_INVALID_ARGUMENT);
    bad = l[0], bad.knee = l[1].knee; /* not a chain */
    assert_int_not_equal(sk_contacts_find(s, a->clips[1], &bad, 1, NULL, NULL, NULL, 0, &n, &err), SK_OK);
    sk_contact_find_options fo = {0};
    fo.height = NAN;
    assert_int_equal(sk_contacts_find(s, a->clips[1], l, 2, &fo, NULL, NULL, 0, &n, &err), SK_ERR_INVALID_ARGUMENT);
    /* overlapping contacts of one leg */
    assert_int_equal(sk_contacts_restore(s, a->clips[1], l, 2, c, 2, NULL, NULL, &out, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "overlap"));
    c[1].leg = 7;
    assert_int_equal(sk_contacts_restore(s, a->clips[1], l, 2, c, 2, NULL, NULL, &out, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    c[1].leg = 1, c[1].start = NAN;
    assert_int_equal(sk_contacts_restore(s, a->clips[1], l, 2, c, 2, NULL, NULL, &out, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_null(out);
    /* a bad source (sk_contact_restore_options.source) */
    c[1].start = 0.5, c[1].end = 0.6;
    sk_contact_restore_options ro = {0};
    sk_contact_source cs = {s, a->clips[1], l, 1.0f};
    ro.source = &cs;
    cs.scale = NAN;
    assert_int_equal(sk_contacts_restore(s, a->clips[1], l, 2, c, 2, &ro, NULL, &out, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "scale"));
    cs.scale = 0.0f;
    assert_int_equal(sk_contacts_restore(s, a->clips[1], l, 2, c, 2, &ro, NULL, &out, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    cs.scale = 1.0f, cs.legs = &bad;
    assert_int_equal(sk_contacts_restore(s, a->clips[1], l, 1, c, 1, &ro, NULL, &out, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    cs.legs = l, cs.clip = NULL;
    assert_int_equal(sk_contacts_restore(s, a->clips[1], l, 2, c, 2, &ro, NULL, &out, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_null(out);
    /* the clip as its own source, scale 1: the swing keeps the clip's heights above the pins */
    cs.clip = a->clips[1];
    assert_int_equal(sk_contacts_restore(s, a->clips[1], l, 2, c, 2, &ro, NULL, &out, NULL, &err), SK_OK);
    sk_clip_destroy(out);
    out = NULL;
    /* No contacts: the clip comes back as it was (same poses at its keys). */
    assert_int_equal(sk_contacts_restore(s, a->clips[1], l, 2, NULL, 0, NULL, NULL, &out, NULL, &err), SK_OK);
    sk_transform p0[32], p1[32];
    for (double t = 0; t < sk_clip_duration(out); t += 0.1) {
        sk_clip_sample(a->clips[1], s, t, SK_LOOP_CLAMP, SK_POSE_OF(s, p0, NULL), NULL);
        sk_clip_sample(out, s, t, SK_LOOP_CLAMP, SK_POSE_OF(s, p1, NULL), NULL);
        for (uint32_t j = 0; j < s->joint_count; j++)
            assert_true(fabsf(fabsf(sk_quat_dot(p0[j].r, p1[j].r)) - 1.0f) < 1e-4f);
    }
    sk_clip_destroy(out);
    sk_asset_destroy(a);
}

/* World positions of every joint of s playing clip at t. */
static void world_of(const sk_skeleton *s, const sk_clip *clip, double t, sk_vec3 *out) {
    sk_transform *local = malloc(s->joint_count * sizeof *local);
    sk_mat4 *m = malloc(s->joint_count * sizeof *m);
    assert_true(local && m);
    sk_pose p = sk_pose_view(local, s->joint_count, NULL, 0);
    assert_int_equal(sk_pose_rest(s, &p, NULL), SK_OK);
    assert_int_equal(sk_clip_sample_tracks(clip, s, t, SK_LOOP_CLAMP, NULL, 0, &p, NULL), SK_OK);
    assert_int_equal(sk_local_to_model(s, &p, NULL, m, s->joint_count, NULL), SK_OK);
    for (uint32_t j = 0; j < s->joint_count; j++) out[j] = sk_vec3_make(m[j].m[12], m[j].m[13], m[j].m[14]);
    free(local);
    free(m);
}

/* Hand contacts (sk_contact_restore_options.hand_mask): an arm given as a
 * limb is pinned at the hand's own mean position over its contact, height
 * included, not put on the floor; the legs are restored as without it. The
 * check is on world positions: during the contact the hand stays within
 * 1 mm of the mean position the unpinned clip gives it. */
static void test_hand_contacts(void **state) {
    (void)state;
    sk_asset *a = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, NULL), SK_OK);
    const sk_skeleton *s = a->skeleton;
    int32_t walk = sk_asset_find_clip(a, "walk");
    assert_true(walk >= 0);
    const sk_clip *clip = a->clips[walk];
    sk_leg_desc limbs[3];
    assert_int_equal(sk_legs_find(s, limbs, 2), 2);
    /* the left arm as a limb: upper arm, forearm, hand, found by the test from the names */
    memset(&limbs[2], 0, sizeof limbs[2]);
    limbs[2].hip = sk_skeleton_find(s, "upperarm_l");
    limbs[2].knee = sk_skeleton_find(s, "forearm_l");
    limbs[2].ankle = sk_skeleton_find(s, "hand_l");
    limbs[2].toe = -1;
    if (limbs[2].hip < 0 || limbs[2].knee < 0 || limbs[2].ankle < 0) fail_msg("the mannequin's left arm joints are not named as expected");
    sk_contact c = {2, 0.30, 0.33, {0, 0, 0}}; /* short: the walking body stays within the arm's reach */
    sk_contact_restore_options o = {0};
    o.hand_mask = 1u << 2;
    o.sample_rate = 200.0f; /* keys every 5 ms: the check samples between none */
    sk_clip *out = NULL;
    sk_error err = {0};
    assert_int_equal(sk_contacts_restore(s, clip, limbs, 3, &c, 1, &o, NULL, &out, NULL, &err), SK_OK);
    /* the unpinned hand's mean position over the contact, at 200 Hz */
    sk_vec3 *w = malloc(s->joint_count * sizeof *w);
    double mean[3] = {0, 0, 0};
    int n = 0;
    for (double t = c.start; t <= c.end + 1e-9; t += 0.005, n++) {
        world_of(s, clip, t, w);
        mean[0] += w[limbs[2].ankle].x, mean[1] += w[limbs[2].ankle].y, mean[2] += w[limbs[2].ankle].z;
    }
    for (int k = 0; k < 3; k++) mean[k] /= n;
    assert_true(mean[1] > 0.5); /* a swinging hand, far above the floor */
    double moved = 0.0;
    for (double t = c.start; t <= c.end + 1e-9; t += 0.005) {
        world_of(s, clip, t, w);
        sk_vec3 h = w[limbs[2].ankle];
        moved = fmax(moved, sqrt(pow(h.x - mean[0], 2) + pow(h.y - mean[1], 2) + pow(h.z - mean[2], 2)));
    }
    assert_true(moved > 0.01); /* unpinned, the hand swings more than a centimetre from its mean */
    /* pinned: it holds still (within 1 mm of where it is at the contact's start), within a
     * centimetre of the unpinned mean (the pin is the mean of the key times inside the contact),
     * at its own height, not on the floor */
    world_of(s, out, c.start, w);
    sk_vec3 h0 = w[limbs[2].ankle];
    double spread = 0.0;
    for (double t = c.start; t <= c.end + 1e-9; t += 0.005) {
        world_of(s, out, t, w);
        sk_vec3 h = w[limbs[2].ankle];
        spread = fmax(spread, sqrt(pow(h.x - h0.x, 2) + pow(h.y - h0.y, 2) + pow(h.z - h0.z, 2)));
    }
    double off = sqrt(pow(h0.x - mean[0], 2) + pow(h0.y - mean[1], 2) + pow(h0.z - mean[2], 2));
    if (!(spread < 0.001) || !(off < 0.01) || !(fabs(h0.y - mean[1]) < 0.01))
        fail_msg("pinned hand: moves %.2f mm during the contact, %.2f mm from the unpinned mean (height %.3f m, mean %.3f m)",
                 spread * 1e3, off * 1e3, (double)h0.y, mean[1]);
    /* a hand_mask naming a limb not given is refused */
    o.hand_mask = 1u << 3;
    sk_clip *bad = NULL;
    assert_int_equal(sk_contacts_restore(s, clip, limbs, 3, &c, 1, &o, NULL, &bad, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    assert_null(bad);
    free(w);
    sk_clip_destroy(out);
    sk_asset_destroy(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contacts_bad_input),
        cmocka_unit_test(test_restore_on_itself),
        cmocka_unit_test(test_hand_contacts),
        cmocka_unit_test(test_retarget_contacts),
        cmocka_unit_test(test_floor),
        cmocka_unit_test(test_swing),
        cmocka_unit_test(test_restore_alloc_failure),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
