/* Foot contacts: finding them on a clip and pinning another clip's feet
 * over them with two-bone IK (locomotion/contacts.h; docs/retarget.md,
 * "Contact restoration"). */
#include "skelanim/locomotion/contacts.h"

#include "skelanim/core/pose.h"
#include "skelanim/ik/ik.h"

#include "core/internal.h"
#include "core/math_inline.h"

#include <math.h>
#include <stdlib.h>

#define CONTACT_MAX_LEGS 16u
#define CONTACT_MAX_RATE 10000.0f
#define CONTACT_MAX_SAMPLES 1000000.0

/* Checks the legs (sk_leg_default_points on copies) and the skeleton. */
static sk_result contact_legs(const sk_skeleton *skel, const sk_leg_desc *legs, uint32_t leg_count, sk_leg_desc *copy,
                              const char *who, sk_error *err) {
    if (!skel || !legs) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: NULL skeleton or legs", who);
    if (leg_count < 1 || leg_count > CONTACT_MAX_LEGS)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: %u legs (1..%u)", who, leg_count, CONTACT_MAX_LEGS);
    for (uint32_t i = 0; i < leg_count; i++) {
        copy[i] = legs[i];
        sk_result r = sk_leg_default_points(skel, &copy[i], err);
        if (r != SK_OK) return r;
    }
    return SK_OK;
}

static float contact_dist(const sk_mat4 *a, const sk_mat4 *b) { return skm_vec3_len(sk_vec3_sub(skm_mat4_pos(a), skm_mat4_pos(b))); }

/* Rest model matrices of skel into model (joint_count). */
static sk_result contact_rest_model(const sk_skeleton *skel, sk_pose *pose, sk_mat4 *model, sk_error *err) {
    sk_result r = sk_pose_rest(skel, pose, err);
    if (r == SK_OK) r = sk_local_to_model(skel, pose, NULL, model, skel->joint_count, err);
    return r;
}

static float contact_leg_length(const sk_mat4 *rest_model, const sk_leg_desc *leg) {
    return contact_dist(&rest_model[leg->hip], &rest_model[leg->knee]) +
           contact_dist(&rest_model[leg->knee], &rest_model[leg->ankle]);
}

/* Sample count over [0, duration] at rate (>= 2 samples; 1 for a zero-length clip). */
static sk_result contact_samples(double duration, float rate, const char *who, uint32_t *n, sk_error *err) {
    if (!(rate >= 0.0f) || rate > CONTACT_MAX_RATE)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: sample rate %g Hz (0..%g)", who, (double)rate,
                            (double)CONTACT_MAX_RATE);
    if (!isfinite(duration) || duration < 0.0)
        return sk_error_set(err, SK_ERR_INVALID_DATA, "%s: clip duration %g s", who, duration);
    double count = floor(duration * (double)rate + 0.5) + 1.0;
    if (count > CONTACT_MAX_SAMPLES)
        return sk_error_set(err, SK_ERR_LIMIT, "%s: %.0f samples (at most %.0f)", who, count, CONTACT_MAX_SAMPLES);
    *n = duration > 0.0 ? (uint32_t)(count < 2.0 ? 2.0 : count) : 1u;
    return SK_OK;
}

static bool contact_model_finite(const sk_mat4 *m, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 16; k++)
            if (!sk_isfinite_f(m[i].m[k])) return false;
    return true;
}

/* Horizontal speed of p at sample s (central difference; one-sided at the ends). */
static float contact_speed(const sk_vec3 *p, uint32_t n, uint32_t s, double dt) {
    uint32_t a = s > 0 ? s - 1 : s, b = s + 1 < n ? s + 1 : s;
    float dx = p[b].x - p[a].x, dz = p[b].z - p[a].z;
    return sqrtf(dx * dx + dz * dz) / (float)((double)(b - a) * dt);
}

sk_result sk_contacts_find(const sk_skeleton *skel, const sk_clip *clip, const sk_leg_desc *legs, uint32_t leg_count,
                           const sk_contact_find_options *opts, const sk_allocator *alloc, sk_contact *out, uint32_t cap,
                           uint32_t *out_count, sk_error *err) {
    static const char who[] = "sk_contacts_find";
    sk_leg_desc leg[CONTACT_MAX_LEGS];
    if (!clip || !out_count || (!out && cap > 0))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: NULL clip, count or output", who);
    sk_result r = contact_legs(skel, legs, leg_count, leg, who, err);
    if (r != SK_OK) return r;
    sk_contact_find_options o = {0};
    if (opts) o = *opts;
    if (!(o.height >= 0.0f) || !(o.speed >= 0.0f) || !(o.min_duration >= 0.0f) || !sk_isfinite_f(o.height) ||
        !sk_isfinite_f(o.speed) || !sk_isfinite_f(o.min_duration))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: height, speed and min_duration must be finite and >= 0", who);
    uint32_t n = 0;
    double duration = sk_clip_duration(clip);
    r = contact_samples(duration, o.sample_rate > 0.0f ? o.sample_rate : 120.0f, who, &n, err);
    if (r != SK_OK) return r;
    alloc = sk_allocator_or_default(alloc);

    sk_pose pose = {0};
    r = sk_pose_alloc(skel, alloc, &pose, err);
    if (r != SK_OK) return r;
    size_t model_bytes = 0, pos_bytes = 0;
    sk_mat4 *model = NULL;
    sk_vec3 *pos = NULL;
    if (!sk_size_mul(skel->joint_count, sizeof(sk_mat4), &model_bytes) ||
        !sk_size_mul((size_t)n * leg_count, sizeof(sk_vec3), &pos_bytes)) {
        r = sk_error_set(err, SK_ERR_LIMIT, "%s: too many samples", who);
        goto done;
    }
    model = (sk_mat4 *)sk_alloc(alloc, model_bytes);
    pos = (sk_vec3 *)sk_alloc(alloc, pos_bytes);
    if (!model || !pos) {
        r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", who);
        goto done;
    }
    r = contact_rest_model(skel, &pose, model, err);
    if (r != SK_OK) goto done;
    float length[CONTACT_MAX_LEGS];
    for (uint32_t l = 0; l < leg_count; l++) length[l] = contact_leg_length(model, &leg[l]);
    double dt = n > 1 ? duration / (double)(n - 1) : 0.0;
    for (uint32_t s = 0; s < n; s++) {
        r = sk_clip_sample(clip, skel, (double)s * dt, SK_LOOP_CLAMP, &pose, err);
        if (r == SK_OK) r = sk_local_to_model(skel, &pose, NULL, model, skel->joint_count, err);
        if (r != SK_OK) goto done;
        if (!contact_model_finite(model, skel->joint_count)) {
            r = sk_error_set(err, SK_ERR_INVALID_DATA, "%s: the pose at %g s is not finite", who, (double)s * dt);
            goto done;
        }
        for (uint32_t l = 0; l < leg_count; l++) pos[(size_t)l * n + s] = skm_mat4_pos(&model[leg[l].ankle]);
    }

    uint32_t count = 0;
    for (uint32_t l = 0; l < leg_count; l++) {
        const sk_vec3 *p = pos + (size_t)l * n;
        float band = o.height > 0.0f ? o.height : 0.08f * length[l];
        float still = o.speed > 0.0f ? o.speed : 0.6f * length[l];
        /* The ground: the lowest height the ankle holds while still (a
         * capture's first frame may be a T-pose far from the others). */
        float lowest = INFINITY, lowest_any = INFINITY;
        for (uint32_t s = 0; s < n; s++) {
            lowest_any = fminf(lowest_any, p[s].y);
            if (n > 1 && contact_speed(p, n, s, dt) <= still) lowest = fminf(lowest, p[s].y);
        }
        if (lowest == INFINITY) lowest = lowest_any;
        double shortest = o.min_duration > 0.0f ? (double)o.min_duration : 0.05;
        uint32_t run = UINT32_MAX;
        for (uint32_t s = 0; s <= n; s++) {
            bool on = false;
            if (s < n && n > 1) on = p[s].y - lowest <= band && contact_speed(p, n, s, dt) <= still;
            if (on && run == UINT32_MAX) run = s;
            if (!on && run != UINT32_MAX) {
                uint32_t last = s - 1;
                if ((double)(last - run) * dt + 1e-9 >= shortest) {
                    if (count < cap) {
                        sk_vec3 mean = sk_vec3_make(0, 0, 0);
                        for (uint32_t k = run; k <= last; k++) mean = sk_vec3_add(mean, p[k]);
                        out[count].leg = l;
                        out[count].start = (double)run * dt;
                        out[count].end = (double)last * dt;
                        out[count].position = sk_vec3_scale(mean, 1.0f / (float)(last - run + 1));
                    }
                    count++;
                }
                run = UINT32_MAX;
            }
        }
    }
    *out_count = count;
    if (count > cap) r = sk_error_set(err, SK_ERR_LIMIT, "%s: %u contacts, room for %u", who, count, cap);
done:
    sk_free(alloc, pos, pos_bytes);
    sk_free(alloc, model, model_bytes);
    sk_pose_free(&pose, alloc);
    return r;
}

/* ---- Restoration ---------------------------------------------------------- */

static int contact_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

/* The key times of the output: the input's merged (rate 0) or uniform. */
static sk_result contact_key_times(const sk_clip *clip, float rate, const sk_allocator *alloc, double **out_times,
                                   size_t *out_bytes, uint32_t *out_n, sk_error *err) {
    static const char who[] = "sk_contacts_restore";
    double duration = sk_clip_duration(clip);
    size_t total = 0;
    uint32_t tracks = sk_clip_track_count(clip);
    if (rate > 0.0f) {
        uint32_t n = 0;
        sk_result r = contact_samples(duration, rate, who, &n, err);
        if (r != SK_OK) return r;
        total = n;
    } else {
        for (uint32_t i = 0; i < tracks; i++) {
            sk_track_info info;
            if (sk_clip_track_info(clip, i, &info) && !sk_size_add(total, info.key_count, &total))
                return sk_error_set(err, SK_ERR_LIMIT, "%s: too many keys", who);
        }
        if (total == 0) total = 1;
    }
    size_t bytes = 0, fbytes = 0;
    if (total > CONTACT_MAX_SAMPLES * 16 || !sk_size_mul(total, sizeof(double), &bytes))
        return sk_error_set(err, SK_ERR_LIMIT, "%s: too many keys (%zu)", who, total);
    double *t = (double *)sk_alloc(alloc, bytes);
    if (!t) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", who);
    size_t n = 0;
    if (rate > 0.0f) {
        for (size_t s = 0; s < total; s++) t[s] = total > 1 ? duration * (double)s / (double)(total - 1) : 0.0;
        n = total;
    } else {
        float *f = NULL;
        for (uint32_t i = 0; i < tracks; i++) {
            sk_track_info info;
            if (!sk_clip_track_info(clip, i, &info) || info.key_count == 0) continue;
            fbytes = (size_t)info.key_count * sizeof(float);
            f = (float *)sk_alloc(alloc, fbytes);
            if (!f) {
                sk_free(alloc, t, bytes);
                return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", who);
            }
            sk_clip_track_keys(clip, i, f, NULL);
            for (uint32_t k = 0; k < info.key_count; k++) t[n++] = (double)f[k];
            sk_free(alloc, f, fbytes);
        }
        if (n == 0) t[n++] = 0.0;
        qsort(t, n, sizeof *t, contact_cmp_double);
        size_t w = 1;
        for (size_t i = 1; i < n; i++)
            if (t[i] != t[w - 1]) t[w++] = t[i];
        n = w;
    }
    *out_times = t;
    *out_bytes = bytes;
    *out_n = (uint32_t)n;
    return SK_OK;
}

static int contact_cmp(const void *a, const void *b) {
    const sk_contact *x = (const sk_contact *)a, *y = (const sk_contact *)b;
    if (x->leg != y->leg) return x->leg < y->leg ? -1 : 1;
    return x->start < y->start ? -1 : (x->start > y->start ? 1 : 0);
}

/* Weight of contact c at time t: 1 inside, smoothstep outside over
 * before (ahead of its start) and after (past its end). */
static float contact_weight(const sk_contact *c, double t, double before, double after) {
    double d = t < c->start ? c->start - t : (t > c->end ? t - c->end : 0.0);
    double blend = t < c->start ? before : after;
    if (d <= 0.0) return 1.0f;
    if (blend <= 0.0 || d >= blend) return 0.0f;
    double x = 1.0 - d / blend;
    return (float)(x * x * (3.0 - 2.0 * x));
}

/* The blend lengths of sorted contact c: blend, but no more than half the
 * gap to the same leg's neighbouring contact on either side, so that the
 * blends of two contacts never overlap (the pin would jump from one to the
 * other where their weights cross). */
static void contact_blends(const sk_contact *cs, uint32_t n, uint32_t c, double blend, double *before, double *after) {
    *before = *after = blend;
    if (c > 0 && cs[c - 1].leg == cs[c].leg) *before = fmin(blend, 0.5 * (cs[c].start - cs[c - 1].end));
    if (c + 1 < n && cs[c + 1].leg == cs[c].leg) *after = fmin(blend, 0.5 * (cs[c + 1].start - cs[c].end));
}

typedef struct contact_work {
    const sk_skeleton *skel;
    const sk_clip *clip;
    const sk_allocator *alloc;
    sk_leg_desc leg[CONTACT_MAX_LEGS];
    uint32_t leg_count;
    sk_contact *contacts; /* sorted copy; position = the pin */
    uint32_t contact_count;
    double *times;
    uint32_t nkeys;
    sk_pose pose;
    sk_mat4 *model;
    sk_transform *frames; /* nkeys x joint_count: the output's local poses */
    int32_t pelvis;       /* lowered where a pin is out of reach; -1: none */
    uint32_t hand_mask;   /* limbs that are arms (sk_contact_restore_options.hand_mask) */
    float *lift;          /* source: per contact, {its pin's height less the median of src_h's ankle over it, that of src_h's foot} */
    float *src_h;         /* source: nkeys x leg_count x {ankle, foot's lowest point}: scale x the source's heights */
} contact_work;

/* Solves leg l toward target on w->pose / w->model (model up to date on
 * entry and exit); returns |ankle - target| after the solve. */
static float contact_pin_leg(contact_work *w, const sk_leg_desc *leg, sk_vec3 target, bool *reached, sk_error *err) {
    /* (the pelvis was lowered first where the target was out of reach) */
    const sk_skeleton *skel = w->skel;
    sk_transform hip, knee, ankle;
    sk_mat4_decompose(&w->model[leg->hip], &hip);
    sk_mat4_decompose(&w->model[leg->knee], &knee);
    sk_mat4_decompose(&w->model[leg->ankle], &ankle);
    sk_quat ankle_model = skm_mat4_rotation(&w->model[leg->ankle]);
    sk_ik_target tg;
    memset(&tg, 0, sizeof tg);
    tg.position = target;
    sk_ik_options io;
    memset(&io, 0, sizeof io);
    io.solver = SK_IK_TWO_BONE;
    sk_quat cs, cm;
    if (!sk_ik_two_bone(&hip, &knee, &ankle, &tg, &io, &cs, &cm, reached)) return INFINITY;
    sk_transform *local = w->pose.local;
    local[leg->hip].r = skm_quat_normalize(skm_quat_mul(local[leg->hip].r, cs));
    local[leg->knee].r = skm_quat_normalize(skm_quat_mul(local[leg->knee].r, cm));
    if (sk_local_to_model(skel, &w->pose, NULL, w->model, skel->joint_count, err) != SK_OK) return INFINITY;
    int32_t parent = skel->parents[leg->ankle];
    sk_quat pr = parent >= 0 ? skm_mat4_rotation(&w->model[parent]) : sk_quat_identity();
    local[leg->ankle].r = skm_quat_normalize(skm_quat_mul(sk_quat_conjugate(pr), ankle_model));
    if (sk_local_to_model(skel, &w->pose, NULL, w->model, skel->joint_count, err) != SK_OK) return INFINITY;
    return skm_vec3_len(sk_vec3_sub(skm_mat4_pos(&w->model[leg->ankle]), target));
}

/* How far the foot's lowest point (heel, toe tip, the joints below the
 * ankle) is below the ankle in w->model (m; negative when below). */
static float contact_foot_below_of(const sk_skeleton *skel, const sk_mat4 *m, const sk_leg_desc *leg) {
    float ay = m[leg->ankle].m[13];
    float low = sk_mat4_transform_point(&m[leg->ankle], leg->heel).y;
    low = fminf(low, sk_mat4_transform_point(&m[leg->toe >= 0 ? leg->toe : leg->ankle], leg->toe_tip).y);
    uint32_t end = sk_skeleton_subtree_end(skel, (uint32_t)leg->ankle);
    for (uint32_t j = (uint32_t)leg->ankle + 1; j < end; j++) low = fminf(low, m[j].m[13]);
    return fminf(low - ay, 0.0f);
}
static float contact_foot_below(const contact_work *w, const sk_leg_desc *leg) {
    return contact_foot_below_of(w->skel, w->model, leg);
}

/* How far sk_contact_restore_options.floor raises an ankle whose foot's
 * lowest point is d below the ground (d > 0) or -d above it: d, eased in
 * over |d| < CONTACT_FLOOR_EASE (a smooth maximum of 0 and d, its slope
 * continuous): a hard maximum kinked the ankle's path where a turning
 * foot first reaches the ground (the mannequin's run restored on itself:
 * a vertical second difference of 4.0 cm over three 120 Hz keys, 2.6 cm in
 * the clip). */
#define CONTACT_FLOOR_EASE 0.005f
static float contact_raise(float d) {
    const float h = CONTACT_FLOOR_EASE;
    if (d <= -h) return 0.0f;
    if (d >= h) return d;
    return (d + h) * (d + h) / (4.0f * h);
}

/* The nearest joint above every leg's hip (the pelvis), or -1. */
static int32_t contact_pelvis(const sk_skeleton *skel, const sk_leg_desc *legs, uint32_t n) {
    for (int32_t j = skel->parents[legs[0].hip]; j >= 0; j = skel->parents[j]) {
        bool all = true;
        for (uint32_t l = 1; l < n && all; l++) {
            int32_t a = skel->parents[legs[l].hip];
            while (a >= 0 && a != j) a = skel->parents[a];
            all = a == j;
        }
        if (all) return j;
    }
    return -1;
}

/* Lowers the pelvis (straight down in model space) as far as the farthest
 * pinned leg needs to reach its target (no farther than a quarter of that
 * leg's length), then brings w->model up to date. */
static sk_result contact_lower_hips(contact_work *w, uint32_t pelvis, const sk_vec3 *target, const float *weight,
                                    float *dropped, sk_error *err) {
    float drop = 0.0f;
    *dropped = 0.0f;
    for (uint32_t l = 0; l < w->leg_count; l++) {
        if (weight[l] <= 0.0f) continue;
        const sk_leg_desc *leg = &w->leg[l];
        float reach = 0.999f * (contact_dist(&w->model[leg->hip], &w->model[leg->knee]) +
                                contact_dist(&w->model[leg->knee], &w->model[leg->ankle]));
        sk_vec3 d = sk_vec3_sub(target[l], skm_mat4_pos(&w->model[leg->hip]));
        float h2 = d.x * d.x + d.z * d.z, v = -d.y; /* the hip above the target */
        if (d.x * d.x + d.y * d.y + d.z * d.z <= reach * reach || v <= 0.0f) continue;
        float need = h2 < reach * reach ? v - sqrtf(reach * reach - h2) : v;
        drop = fmaxf(drop, fminf(need, 0.25f * reach));
    }
    if (!(drop > 0.0f)) return SK_OK;
    *dropped = drop;
    sk_vec3 down = sk_vec3_make(0.0f, -drop, 0.0f);
    int32_t parent = w->skel->parents[pelvis];
    if (parent >= 0) {
        sk_mat4 inv;
        if (!sk_mat4_invert_affine(&w->model[parent], &inv)) return SK_OK;
        down = sk_mat4_transform_dir(&inv, down);
    }
    w->pose.local[pelvis].t = sk_vec3_add(w->pose.local[pelvis].t, down);
    return sk_local_to_model(w->skel, &w->pose, NULL, w->model, w->skel->joint_count, err);
}

/* Samples key k into w->pose and w->model. */
static sk_result contact_sample(contact_work *w, uint32_t k, sk_error *err) {
    sk_result r = sk_clip_sample(w->clip, w->skel, w->times[k], SK_LOOP_CLAMP, &w->pose, err);
    if (r == SK_OK) r = sk_local_to_model(w->skel, &w->pose, NULL, w->model, w->skel->joint_count, err);
    if (r == SK_OK && !contact_model_finite(w->model, w->skel->joint_count))
        r = sk_error_set(err, SK_ERR_INVALID_DATA, "sk_contacts_restore: the pose at %g s is not finite", w->times[k]);
    return r;
}

/* The pins: each contact's mean horizontal ankle position at its pin height. */
static sk_result contact_pins(contact_work *w, const float *pin_height, sk_error *err) {
    for (uint32_t c = 0; c < w->contact_count; c++) w->contacts[c].position = sk_vec3_make(0, 0, 0);
    uint32_t *hits = (uint32_t *)sk_alloc(w->alloc, (size_t)w->contact_count * sizeof(uint32_t) + 4);
    if (!hits) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_contacts_restore: out of memory");
    sk_result r = SK_OK;
    for (uint32_t k = 0; k < w->nkeys && r == SK_OK; k++) {
        bool any = false;
        for (uint32_t c = 0; c < w->contact_count && !any; c++)
            any = w->times[k] >= w->contacts[c].start && w->times[k] <= w->contacts[c].end;
        if (!any) continue;
        r = contact_sample(w, k, err);
        for (uint32_t c = 0; c < w->contact_count && r == SK_OK; c++) {
            if (w->times[k] < w->contacts[c].start || w->times[k] > w->contacts[c].end) continue;
            w->contacts[c].position = sk_vec3_add(w->contacts[c].position, skm_mat4_pos(&w->model[w->leg[w->contacts[c].leg].ankle]));
            hits[c]++;
        }
    }
    /* A contact with no key inside: its midpoint. */
    for (uint32_t c = 0; c < w->contact_count && r == SK_OK; c++) {
        sk_contact *ct = &w->contacts[c];
        if (hits[c] == 0) {
            double t = 0.5 * (ct->start + ct->end);
            r = sk_clip_sample(w->clip, w->skel, t, SK_LOOP_CLAMP, &w->pose, err);
            if (r == SK_OK) r = sk_local_to_model(w->skel, &w->pose, NULL, w->model, w->skel->joint_count, err);
            if (r != SK_OK) break;
            ct->position = skm_mat4_pos(&w->model[w->leg[ct->leg].ankle]);
            hits[c] = 1;
        }
        ct->position = sk_vec3_scale(ct->position, 1.0f / (float)hits[c]);
        if (!(w->hand_mask >> ct->leg & 1u)) ct->position.y = pin_height[ct->leg]; /* a hand keeps its own height */
        if (!skm_vec3_finite(ct->position))
            r = sk_error_set(err, SK_ERR_INVALID_DATA, "sk_contacts_restore: contact %u has no finite position", c);
    }
    sk_free(w->alloc, hits, (size_t)w->contact_count * sizeof(uint32_t) + 4);
    return r;
}

/* Builds the output clip from w->frames. */
static sk_result contact_build(contact_work *w, sk_clip **out, sk_error *err) {
    const sk_skeleton *skel = w->skel;
    uint32_t jn = skel->joint_count;
    sk_result r = SK_OK;
    uint8_t *paths = (uint8_t *)sk_alloc(w->alloc, jn);
    size_t vbytes = (size_t)w->nkeys * 4 * sizeof(float), tbytes = (size_t)w->nkeys * sizeof(float);
    float *values = (float *)sk_alloc(w->alloc, vbytes);
    float *times = (float *)sk_alloc(w->alloc, tbytes);
    sk_clip_builder *b = NULL;
    if (!paths || !values || !times) {
        r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_contacts_restore: out of memory");
        goto done;
    }
    uint32_t tracks = sk_clip_track_count(w->clip);
    for (uint32_t i = 0; i < tracks; i++) {
        sk_track_info info;
        if (sk_clip_track_info(w->clip, i, &info) && info.joint < jn && info.path <= SK_PATH_SCALE)
            paths[info.joint] |= (uint8_t)(1u << info.path);
    }
    for (uint32_t l = 0; l < w->leg_count; l++) {
        paths[w->leg[l].hip] |= 1u << SK_PATH_ROTATION;
        paths[w->leg[l].knee] |= 1u << SK_PATH_ROTATION;
        paths[w->leg[l].ankle] |= 1u << SK_PATH_ROTATION;
    }
    if (w->pelvis >= 0) paths[w->pelvis] |= 1u << SK_PATH_TRANSLATION;
    for (uint32_t k = 0; k < w->nkeys; k++) times[k] = (float)w->times[k];
    r = sk_clip_builder_create(sk_clip_name(w->clip), w->alloc, &b, err);
    if (r != SK_OK) goto done;
    for (uint32_t j = 0; j < jn && r == SK_OK; j++) {
        for (uint32_t p = 0; p <= SK_PATH_SCALE && r == SK_OK; p++) {
            if (!(paths[j] & (1u << p))) continue;
            uint32_t width = p == SK_PATH_ROTATION ? 4 : 3;
            for (uint32_t k = 0; k < w->nkeys; k++) {
                const sk_transform *x = &w->frames[(size_t)k * jn + j];
                float *v = values + (size_t)k * width;
                if (p == SK_PATH_TRANSLATION) memcpy(v, &x->t, 3 * sizeof(float));
                if (p == SK_PATH_SCALE) memcpy(v, &x->s, 3 * sizeof(float));
                if (p == SK_PATH_ROTATION) memcpy(v, &x->r, 4 * sizeof(float));
            }
            sk_track_desc d = {j, (sk_track_path)p, SK_INTERP_LINEAR, w->nkeys, times, values, width};
            r = sk_clip_builder_add_track(b, &d, err);
        }
    }
    /* Morph weights: copied as they are. */
    for (uint32_t i = 0; i < tracks && r == SK_OK; i++) {
        sk_track_info info;
        if (!sk_clip_track_info(w->clip, i, &info) || info.path != SK_PATH_WEIGHTS) continue;
        size_t per = info.interpolation == SK_INTERP_CUBICSPLINE ? 3 : 1;
        size_t kb = (size_t)info.key_count * sizeof(float), wb = 0;
        if (!sk_size_mul(kb, (size_t)info.width * per, &wb)) {
            r = sk_error_set(err, SK_ERR_LIMIT, "sk_contacts_restore: weights track too large");
            break;
        }
        float *kt = (float *)sk_alloc(w->alloc, kb), *kv = (float *)sk_alloc(w->alloc, wb);
        if (!kt || !kv) r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_contacts_restore: out of memory");
        if (r == SK_OK) {
            sk_clip_track_keys(w->clip, i, kt, kv);
            sk_track_desc d = {info.joint, SK_PATH_WEIGHTS, info.interpolation, info.key_count, kt, kv, info.width};
            r = sk_clip_builder_add_track(b, &d, err);
        }
        sk_free(w->alloc, kt, kb);
        sk_free(w->alloc, kv, wb);
    }
    if (r == SK_OK) {
        sk_clip_builder_set_duration(b, sk_clip_duration(w->clip));
        r = sk_clip_builder_finish(b, out, err); /* destroys the builder */
        b = NULL;
    }
done:
    sk_clip_builder_destroy(b);
    sk_free(w->alloc, times, tbytes);
    sk_free(w->alloc, values, vbytes);
    sk_free(w->alloc, paths, jn);
    return r;
}

static int contact_cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* source: the source's heights at every key, scaled, into w->src_h (the
 * ankle's and the foot's lowest point's), and each contact's offsets into
 * w->lift: its pin's height less the median ankle height over the keys
 * inside the contact, and the median lowest point (the key nearest its
 * middle when none is inside). The median, not the mean: a contact's ends
 * hold the heel coming down and going up (the mean put the mannequin's
 * walk on a 2 m mannequin 1 cm low in the swing). */
static sk_result contact_source_heights(contact_work *w, const sk_contact_source *src, const sk_leg_desc *legs,
                                        sk_error *err) {
    static const char who[] = "sk_contacts_restore";
    const sk_skeleton *ss = src->skeleton;
    const uint32_t nl = w->leg_count;
    sk_pose pose = {0};
    size_t mbytes = (size_t)ss->joint_count * sizeof(sk_mat4);
    sk_mat4 *model = (sk_mat4 *)sk_alloc(w->alloc, mbytes);
    sk_result r = model ? sk_pose_alloc(ss, w->alloc, &pose, err)
                        : sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", who);
    for (uint32_t k = 0; k < w->nkeys && r == SK_OK; k++) {
        r = sk_clip_sample(src->clip, ss, w->times[k], SK_LOOP_CLAMP, &pose, err);
        if (r == SK_OK) r = sk_local_to_model(ss, &pose, NULL, model, ss->joint_count, err);
        for (uint32_t l = 0; l < nl && r == SK_OK; l++) {
            float *h = &w->src_h[((size_t)k * nl + l) * 2];
            float ay = model[legs[l].ankle].m[13];
            h[0] = src->scale * ay;
            h[1] = src->scale * (ay + contact_foot_below_of(ss, model, &legs[l]));
            if (!sk_isfinite_f(h[0]) || !sk_isfinite_f(h[1]))
                r = sk_error_set(err, SK_ERR_INVALID_DATA, "%s: the source's pose at %g s is not finite", who, w->times[k]);
        }
    }
    size_t bbytes = (size_t)w->nkeys * sizeof(float) + sizeof(float);
    float *buf = r == SK_OK ? (float *)sk_alloc(w->alloc, bbytes) : NULL;
    if (r == SK_OK && !buf) r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", who);
    for (uint32_t c = 0; c < w->contact_count && r == SK_OK; c++) {
        const sk_contact *ct = &w->contacts[c];
        double mid = 0.5 * (ct->start + ct->end), best = INFINITY;
        uint32_t nearest = 0;
        for (uint32_t k = 0; k < w->nkeys; k++)
            if (fabs(w->times[k] - mid) < best) best = fabs(w->times[k] - mid), nearest = k;
        float level[2];
        for (int i = 0; i < 2; i++) {
            uint32_t m = 0;
            for (uint32_t k = 0; k < w->nkeys; k++)
                if (w->times[k] >= ct->start && w->times[k] <= ct->end) buf[m++] = w->src_h[((size_t)k * nl + ct->leg) * 2 + i];
            if (m == 0) buf[m++] = w->src_h[((size_t)nearest * nl + ct->leg) * 2 + i]; /* no key inside */
            qsort(buf, m, sizeof(float), contact_cmp_float);
            level[i] = buf[m / 2];
        }
        w->lift[2 * c] = ct->position.y - level[0];
        w->lift[2 * c + 1] = level[1];
    }
    if (buf) sk_free(w->alloc, buf, bbytes);
    sk_pose_free(&pose, w->alloc);
    sk_free(w->alloc, model, mbytes);
    return r;
}

/* source: where leg l's ankle goes at key k outside its contacts, given the
 * clip's ankle height ay and its foot's lowest point below it (below <= 0):
 * the scaled source ankle height plus the pins' offset, or higher where the
 * foot's lowest point would clear the ground by less than the source's
 * (scaled) clears its own contacts' lowest point. The offsets are the last
 * contact's eased into the next's (smoothstep over the gap); before the
 * first contact or after the last, that contact's; a leg without contacts
 * keeps the clip's height. */
static float contact_swing_height(const contact_work *w, uint32_t l, uint32_t k, float ay, float below, float ground) {
    double t = w->times[k];
    const float *h = &w->src_h[((size_t)k * w->leg_count + l) * 2];
    int64_t prev = -1, next = -1;
    for (uint32_t c = 0; c < w->contact_count; c++) {
        if (w->contacts[c].leg != l) continue;
        if (w->contacts[c].end < t) prev = c;
        if (w->contacts[c].start > t && next < 0) next = c;
    }
    if (prev < 0 && next < 0) return ay;
    float off[2];
    if (prev < 0 || next < 0) {
        int64_t c = prev < 0 ? next : prev;
        off[0] = w->lift[2 * c], off[1] = w->lift[2 * c + 1];
    } else {
        double e = w->contacts[prev].end, s = w->contacts[next].start;
        double x = (t - e) / (s - e);
        float u = (float)(x * x * (3.0 - 2.0 * x));
        for (int i = 0; i < 2; i++) off[i] = w->lift[2 * prev + i] + (w->lift[2 * next + i] - w->lift[2 * prev + i]) * u;
    }
    float follow = h[0] + off[0];
    float clear = ground + (h[1] - off[1]) - below; /* the ankle height whose foot clears the ground as the source's */
    return fmaxf(follow, clear);
}

sk_result sk_contacts_restore(const sk_skeleton *skel, const sk_clip *clip, const sk_leg_desc *legs, uint32_t leg_count,
                              const sk_contact *contacts, uint32_t contact_count, const sk_contact_restore_options *opts,
                              const sk_allocator *alloc, sk_clip **out, sk_contact_restore_stats *stats, sk_error *err) {
    static const char who[] = "sk_contacts_restore";
    if (!clip || !out || (!contacts && contact_count > 0))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: NULL clip, contacts or output", who);
    contact_work w;
    memset(&w, 0, sizeof w);
    sk_result r = contact_legs(skel, legs, leg_count, w.leg, who, err);
    if (r != SK_OK) return r;
    sk_contact_restore_options o = {0};
    if (opts) o = *opts;
    if (!sk_isfinite_f(o.blend_time) || !sk_isfinite_f(o.ground) || !sk_isfinite_f(o.sample_rate) || o.sample_rate < 0.0f ||
        fabsf(o.ground) > 1e6f || o.blend_time > 1e6f)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: non-finite or out-of-range option", who);
    if (sk_clip_joint_span(clip) > skel->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: the clip animates joint %u, the skeleton has %u joints", who,
                            sk_clip_joint_span(clip) - 1, skel->joint_count);
    sk_leg_desc src_legs[CONTACT_MAX_LEGS];
    if (o.source) {
        const sk_contact_source *src = o.source;
        if (!src->skeleton || !src->clip || !src->legs)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: the source has a NULL skeleton, clip or legs", who);
        if (!(src->scale > 0.0f) || !sk_isfinite_f(src->scale) || src->scale > 1e6f)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: source scale %g (a finite ratio > 0)", who,
                                (double)src->scale);
        if (sk_clip_joint_span(src->clip) > src->skeleton->joint_count)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: the source clip animates joint %u, its skeleton has %u joints",
                                who, sk_clip_joint_span(src->clip) - 1, src->skeleton->joint_count);
        r = contact_legs(src->skeleton, src->legs, leg_count, src_legs, who, err);
        if (r != SK_OK) return r;
    }
    for (uint32_t c = 0; c < contact_count; c++) {
        const sk_contact *ct = &contacts[c];
        if (ct->leg >= leg_count)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: contact %u names leg %u of %u", who, c, ct->leg, leg_count);
        if (!isfinite(ct->start) || !isfinite(ct->end) || ct->start > ct->end)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: contact %u has times %g..%g", who, c, ct->start, ct->end);
    }
    w.skel = skel;
    w.clip = clip;
    w.alloc = sk_allocator_or_default(alloc);
    w.leg_count = leg_count;
    w.contact_count = contact_count;
    size_t cbytes = (size_t)contact_count * sizeof(sk_contact) + sizeof(sk_contact);
    size_t tbytes = 0, mbytes = (size_t)skel->joint_count * sizeof(sk_mat4), fbytes = 0;
    w.contacts = (sk_contact *)sk_alloc(w.alloc, cbytes);
    w.model = (sk_mat4 *)sk_alloc(w.alloc, mbytes);
    if (!w.contacts || !w.model) {
        r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", who);
        goto done;
    }
    if (contact_count) memcpy(w.contacts, contacts, (size_t)contact_count * sizeof(sk_contact));
    qsort(w.contacts, contact_count, sizeof(sk_contact), contact_cmp);
    for (uint32_t c = 1; c < contact_count; c++)
        if (w.contacts[c].leg == w.contacts[c - 1].leg && w.contacts[c].start <= w.contacts[c - 1].end) {
            r = sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: contacts of leg %u overlap (%g..%g and %g..%g s)", who,
                             w.contacts[c].leg, w.contacts[c - 1].start, w.contacts[c - 1].end, w.contacts[c].start,
                             w.contacts[c].end);
            goto done;
        }
    r = sk_pose_alloc(skel, w.alloc, &w.pose, err);
    if (r != SK_OK) goto done;
    r = contact_key_times(clip, o.sample_rate, w.alloc, &w.times, &tbytes, &w.nkeys, err);
    if (r != SK_OK) goto done;
    if (!sk_size_mul((size_t)w.nkeys * skel->joint_count, sizeof(sk_transform), &fbytes) || fbytes > ((size_t)1 << 31)) {
        r = sk_error_set(err, SK_ERR_LIMIT, "%s: %u keys x %u joints is too large", who, w.nkeys, skel->joint_count);
        goto done;
    }
    w.frames = (sk_transform *)sk_alloc(w.alloc, fbytes);
    if (!w.frames) {
        r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", who);
        goto done;
    }
    /* Pin heights from the rest pose. */
    r = contact_rest_model(skel, &w.pose, w.model, err);
    if (r != SK_OK) goto done;
    float pin_height[CONTACT_MAX_LEGS];
    for (uint32_t l = 0; l < leg_count; l++) {
        float ay = w.model[w.leg[l].ankle].m[13];
        /* the foot's lowest rest point; a rest pose standing on y = 0 keeps its ankle height */
        float lowest = fminf(ay + contact_foot_below(&w, &w.leg[l]), 0.0f);
        pin_height[l] = (o.ground_set ? o.ground : 0.0f) + (ay - lowest);
    }
    if (o.hand_mask >> leg_count) {
        r = sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: hand_mask 0x%x names limbs beyond the %u given", who,
                         o.hand_mask, leg_count);
        goto done;
    }
    w.hand_mask = o.hand_mask;
    r = contact_pins(&w, pin_height, err);
    if (r != SK_OK) goto done;
    if (o.source) {
        w.lift = (float *)sk_alloc(w.alloc, (size_t)contact_count * 2 * sizeof(float) + sizeof(float));
        w.src_h = (float *)sk_alloc(w.alloc, (size_t)w.nkeys * leg_count * 2 * sizeof(float));
        r = w.lift && w.src_h ? contact_source_heights(&w, o.source, src_legs, err)
                              : sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", who);
        if (r != SK_OK) goto done;
    }

    double blend = o.blend_time > 0.0f ? (double)o.blend_time : (o.blend_time < 0.0f ? 0.0 : 0.15);
    const float ground = o.ground_set ? o.ground : 0.0f;
    sk_contact_restore_stats st = {0};
    st.contacts = contact_count;
    st.keys = w.nkeys;
    /* the pelvis: above every leg (arms do not lower it) */
    sk_leg_desc only_legs[CONTACT_MAX_LEGS];
    uint32_t nlegs = 0;
    for (uint32_t l = 0; l < leg_count; l++)
        if (!(o.hand_mask >> l & 1u)) only_legs[nlegs++] = w.leg[l];
    int32_t pelvis = w.pelvis = nlegs ? contact_pelvis(skel, only_legs, nlegs) : -1;
    for (uint32_t k = 0; k < w.nkeys && r == SK_OK; k++) {
        r = contact_sample(&w, k, err);
        sk_vec3 target[CONTACT_MAX_LEGS];
        float weight[CONTACT_MAX_LEGS];
        const sk_contact *pin[CONTACT_MAX_LEGS];
        sk_vec3 ankle0[CONTACT_MAX_LEGS]; /* before the pelvis is lowered */
        bool follow[CONTACT_MAX_LEGS];     /* not pinned, kept at ankle0 */
        float lowest[CONTACT_MAX_LEGS];    /* the least ankle height that keeps the foot on or above the ground */
        for (uint32_t l = 0; l < leg_count; l++) {
            weight[l] = 0.0f, pin[l] = NULL, follow[l] = false;
            lowest[l] = r == SK_OK ? ground - contact_foot_below(&w, &w.leg[l]) : 0.0f;
            for (uint32_t c = 0; c < contact_count; c++) {
                if (w.contacts[c].leg != l) continue;
                double before, after;
                contact_blends(w.contacts, contact_count, c, blend, &before, &after);
                float wt = contact_weight(&w.contacts[c], w.times[k], before, after);
                if (wt > weight[l]) weight[l] = wt, pin[l] = &w.contacts[c];
            }
            ankle0[l] = skm_mat4_pos(&w.model[w.leg[l].ankle]);
            if (pin[l]) {
                target[l] = skm_vec3_lerp(ankle0[l], pin[l]->position, weight[l]);
            }
            /* source: outside the contacts the ankle follows the source's height over its contacts */
            if (w.src_h && !(o.hand_mask >> l & 1u) && weight[l] < 1.0f) {
                float y = contact_swing_height(&w, l, k, ankle0[l].y, ground - lowest[l], ground);
                if (!pin[l]) target[l] = ankle0[l], follow[l] = true;
                target[l].y = pin[l] ? y + (pin[l]->position.y - y) * weight[l] : y;
                if (!pin[l]) st.swing_max_up = fmaxf(st.swing_max_up, y - ankle0[l].y),
                             st.swing_max_down = fmaxf(st.swing_max_down, ankle0[l].y - y);
            }
        }
        float dropped = 0.0f;
        if (r == SK_OK && pelvis >= 0) {
            float leg_weight[CONTACT_MAX_LEGS];
            for (uint32_t l = 0; l < leg_count; l++) leg_weight[l] = o.hand_mask >> l & 1u ? 0.0f : weight[l];
            r = contact_lower_hips(&w, (uint32_t)pelvis, target, leg_weight, &dropped, err);
        }
        /* With the pelvis lowered, a leg not pinned keeps its ankle where the clip has it
         * (its knee bends): it is not carried down with the pelvis, and it blends into its
         * next pin from there (continuous at weight 0). */
        if (dropped > 0.0f)
            for (uint32_t l = 0; l < leg_count; l++)
                if (!pin[l] && !follow[l] && !(o.hand_mask >> l & 1u)) target[l] = ankle0[l], follow[l] = true;
        if (o.floor) /* every foot on or above the ground, pinned (a heel off over the ball) or not */
            for (uint32_t l = 0; l < leg_count; l++) {
                if (o.hand_mask >> l & 1u) continue;
                bool solved = weight[l] > 0.0f || follow[l];
                float y = solved ? target[l].y : ankle0[l].y, up = contact_raise(lowest[l] - y);
                if (!(up > 0.0f)) continue;
                if (!solved) target[l] = ankle0[l], follow[l] = true;
                target[l].y = y + up;
                if (lowest[l] - y > 0.0f) st.raised++;
                st.max_raise = fmaxf(st.max_raise, up);
            }
        for (uint32_t l = 0; l < leg_count && r == SK_OK; l++) {
            if (weight[l] <= 0.0f && !follow[l]) continue;
            bool reached = true;
            float e = contact_pin_leg(&w, &w.leg[l], target[l], &reached, err);
            if (!(e < INFINITY)) {
                r = sk_error_set(err, SK_ERR_INVALID_DATA, "%s: the leg %u could not be solved at %g s", who, l, w.times[k]);
                break;
            }
            if (weight[l] >= 1.0f) {
                st.max_error = fmaxf(st.max_error, e);
                if (e > 1e-3f * contact_dist(&w.model[w.leg[l].hip], &w.model[w.leg[l].ankle])) st.unreachable++;
            }
        }
        if (r == SK_OK) memcpy(&w.frames[(size_t)k * skel->joint_count], w.pose.local, skel->joint_count * sizeof(sk_transform));
    }
    if (r == SK_OK) r = contact_build(&w, out, err);
    if (r == SK_OK && stats) *stats = st;
done:
    if (w.lift) sk_free(w.alloc, w.lift, (size_t)contact_count * 2 * sizeof(float) + sizeof(float));
    if (w.src_h) sk_free(w.alloc, w.src_h, (size_t)w.nkeys * leg_count * 2 * sizeof(float));
    sk_free(w.alloc, w.frames, fbytes);
    sk_free(w.alloc, w.times, tbytes);
    sk_pose_free(&w.pose, w.alloc);
    sk_free(w.alloc, w.model, mbytes);
    sk_free(w.alloc, w.contacts, cbytes);
    return r;
}
