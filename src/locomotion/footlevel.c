/* Level feet: the planted sole's tilt measured over a clip's contacts and
 * taken out of the ankle's rotation (locomotion/footlevel.h; docs/locomotion.md,
 * "Clips from captures on any character"). */
#include "skelanim/locomotion/footlevel.h"

#include "skelanim/core/pose.h"

#include "core/internal.h"
#include "core/math_inline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FL_RATE 120.0 /* samples per second over the contacts' middles */
#define FL_WHO "sk_foot_level"
/* per_contact: a contact at least this long (s) is levelled by its own tilt;
 * a shorter one, whose middle is a foot landing or rolling off (the
 * detection's band cut the stance short), by the leg's. On CMU 08_04 a
 * 0.14 s contact caught the left foot coming down 20 degrees toe-up, and
 * its own tilt then turned the rest of that stance 10 degrees toe-down. */
#define FL_CONTACT_OWN 0.25

typedef struct fl_work {
    const sk_skeleton *skel;
    const sk_clip *clip;
    const sk_allocator *alloc;
    sk_pose pose;
    sk_mat4 *model;
} fl_work;

/* The heel and toe points of leg in model space (pose in w->model): the
 * points the foot stands on. */
static void fl_points(const fl_work *w, const sk_leg_desc *leg, sk_vec3 *heel, sk_vec3 *toe) {
    int32_t tj = leg->toe >= 0 ? leg->toe : leg->ankle;
    *heel = sk_mat4_transform_point(&w->model[leg->ankle], leg->heel);
    *toe = sk_mat4_transform_point(&w->model[tj], leg->toe_tip);
}

/* The sole's pitch (toe up +) of the heel-to-toe line; false when it is vertical. */
static bool fl_pitch(sk_vec3 heel, sk_vec3 toe, float *pitch, sk_vec3 *side) {
    sk_vec3 d = sk_vec3_sub(toe, heel);
    float h = sqrtf(d.x * d.x + d.z * d.z);
    if (!(h > 1e-6f) || !isfinite(d.y)) return false;
    *pitch = atan2f(d.y, h);
    *side = sk_vec3_make(d.z / h, 0, -d.x / h); /* up x forward: a turn about it by + lowers the toe */
    return true;
}

static int fl_cmp(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static sk_result fl_pose_at(fl_work *w, double t, sk_error *err) {
    sk_result r = sk_clip_sample(w->clip, w->skel, t, SK_LOOP_CLAMP, &w->pose, err);
    if (r == SK_OK) r = sk_local_to_model(w->skel, &w->pose, NULL, w->model, w->skel->joint_count, err);
    if (r != SK_OK) return r;
    for (uint32_t j = 0; j < w->skel->joint_count; j++)
        for (int k = 0; k < 16; k++)
            if (!sk_isfinite_f(w->model[j].m[k]))
                return sk_error_set(err, SK_ERR_INVALID_DATA, FL_WHO ": non-finite pose at %.4f s", t);
    return SK_OK;
}

/* A leg's correction: one rotation (n == 0), or one per contact (per_contact):
 * q[k] over [start[k], end[k]], the contacts sorted by start and not
 * overlapping, slerped between them. */
typedef struct fl_turn {
    sk_quat one;
    uint32_t n;
    const double *start, *end;
    const sk_quat *q;
} fl_turn;

static sk_quat fl_turn_at(const fl_turn *T, double t) {
    if (!T->n) return T->one;
    if (t <= T->end[0]) return T->q[0];
    for (uint32_t k = 0; k + 1 < T->n; k++) {
        if (t <= T->end[k]) return T->q[k];
        if (t < T->start[k + 1]) {
            double gap = T->start[k + 1] - T->end[k];
            float u = gap > 0 ? (float)((t - T->end[k]) / gap) : 1.0f;
            return skm_quat_normalize(sk_quat_slerp(T->q[k], T->q[k + 1], u));
        }
    }
    return T->q[T->n - 1];
}

/* Copies track i of the clip into the builder, its values multiplied on
 * the right by the correction at their key's time when turn is set (a
 * rotation track). */
static sk_result fl_copy_track(const fl_work *w, sk_clip_builder *b, uint32_t i, const fl_turn *turn, sk_error *err) {
    sk_track_info info;
    if (!sk_clip_track_info(w->clip, i, &info)) return SK_OK;
    size_t per = info.interpolation == SK_INTERP_CUBICSPLINE ? 3 : 1, nv = 0, vb = 0;
    size_t tb = (size_t)info.key_count * sizeof(float);
    if (!sk_size_mul((size_t)info.key_count * per, info.width, &nv) || !sk_size_mul(nv, sizeof(float), &vb))
        return sk_error_set(err, SK_ERR_LIMIT, FL_WHO ": track %u too large", i);
    float *kt = (float *)sk_alloc(w->alloc, tb), *kv = (float *)sk_alloc(w->alloc, vb);
    sk_result r = SK_OK;
    if (!kt || !kv) r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, FL_WHO ": out of memory");
    if (r == SK_OK) {
        sk_clip_track_keys(w->clip, i, kt, kv);
        if (turn && info.width == 4)
            for (size_t k = 0; k + 4 <= nv; k += 4) {
                sk_quat q = fl_turn_at(turn, kt[k / (4 * per)]);
                sk_quat v = sk_quat_make(kv[k], kv[k + 1], kv[k + 2], kv[k + 3]);
                v = skm_quat_mul(v, q); /* linear in v: tangents turn with the values */
                kv[k] = v.x, kv[k + 1] = v.y, kv[k + 2] = v.z, kv[k + 3] = v.w;
            }
        sk_track_desc d = {info.joint, info.path, info.interpolation, info.key_count, kt, kv, info.width};
        r = sk_clip_builder_add_track(b, &d, err);
    }
    sk_free(w->alloc, kt, tb);
    sk_free(w->alloc, kv, vb);
    return r;
}

static sk_result fl_build(fl_work *w, const sk_leg_desc *legs, uint32_t n, const bool *apply, const fl_turn *q,
                          sk_clip **out, sk_error *err) {
    sk_clip_builder *b = NULL;
    sk_result r = sk_clip_builder_create(sk_clip_name(w->clip), w->alloc, &b, err);
    if (r != SK_OK) return r;
    uint32_t tracks = sk_clip_track_count(w->clip);
    bool animated[SK_FOOT_LEVEL_MAX_LEGS] = {false};
    for (uint32_t i = 0; i < tracks && r == SK_OK; i++) {
        sk_track_info info;
        if (!sk_clip_track_info(w->clip, i, &info)) continue;
        int32_t leg = -1;
        for (uint32_t l = 0; l < n && leg < 0; l++)
            if (apply[l] && info.path == SK_PATH_ROTATION && info.joint == (uint32_t)legs[l].ankle) leg = (int32_t)l;
        if (leg >= 0) animated[leg] = true;
        r = fl_copy_track(w, b, i, leg >= 0 ? &q[leg] : NULL, err);
    }
    for (uint32_t l = 0; l < n && r == SK_OK; l++) {
        if (!apply[l] || animated[l]) continue;
        sk_quat v = skm_quat_mul(w->skel->rest[legs[l].ankle].r, q[l].one); /* not animated: one correction */
        float t = 0, val[4] = {v.x, v.y, v.z, v.w};
        sk_track_desc d = {(uint32_t)legs[l].ankle, SK_PATH_ROTATION, SK_INTERP_LINEAR, 1, &t, val, 4};
        r = sk_clip_builder_add_track(b, &d, err);
    }
    if (r != SK_OK) {
        sk_clip_builder_destroy(b);
        return r;
    }
    sk_clip_builder_set_duration(b, sk_clip_duration(w->clip));
    return sk_clip_builder_finish(b, out, err); /* destroys the builder */
}

/* Leg l's tilt over the middles of its contacts: median pitch less the
 * rest's, the interquartile range, and the side axis in the ankle's frame. */
static sk_result fl_measure(fl_work *w, const sk_leg_desc *leg, uint32_t l, const sk_contact *c, uint32_t nc,
                            float middle, float rest_pitch, float *buf, uint32_t cap, sk_foot_level_stats *st,
                            sk_vec3 *axis, float *ctilt, sk_error *err) {
    uint32_t m = 0;
    sk_vec3 acc = sk_vec3_make(0, 0, 0);
    for (uint32_t k = 0; k < nc; k++) {
        if (c[k].leg != l) continue;
        st->contacts[l]++;
        uint32_t m0 = m;
        double mid = 0.5 * (c[k].start + c[k].end), half = 0.5 * middle * (c[k].end - c[k].start);
        uint32_t ns = 1 + (uint32_t)floor(2.0 * half * FL_RATE);
        for (uint32_t s = 0; s < ns && m < cap; s++) {
            double t = ns > 1 ? mid - half + 2.0 * half * (double)s / (double)(ns - 1) : mid;
            sk_result r = fl_pose_at(w, t, err);
            if (r != SK_OK) return r;
            sk_vec3 heel, toe, side;
            float p;
            fl_points(w, leg, &heel, &toe);
            if (!fl_pitch(heel, toe, &p, &side)) continue;
            sk_transform ta;
            if (!sk_mat4_decompose(&w->model[leg->ankle], &ta)) continue;
            acc = sk_vec3_add(acc, skm_quat_rotate(sk_quat_conjugate(skm_quat_normalize(ta.r)), side));
            buf[m++] = p;
        }
        if (ctilt) { /* this contact's own median (its samples sorted in place: the multiset is kept) */
            ctilt[k] = NAN;
            if (m > m0) {
                qsort(buf + m0, m - m0, sizeof *buf, fl_cmp);
                ctilt[k] = buf[m0 + (m - m0) / 2] - rest_pitch;
            }
        }
    }
    st->samples[l] = m;
    if (!m || !(skm_vec3_len(acc) > 1e-6f)) return SK_OK;
    qsort(buf, m, sizeof *buf, fl_cmp);
    st->pitch[l] = buf[m / 2];
    st->tilt[l] = buf[m / 2] - rest_pitch;
    st->spread[l] = buf[(3 * m) / 4] - buf[m / 4];
    *axis = skm_vec3_unit(acc);
    return SK_OK;
}

sk_result sk_foot_level(const sk_skeleton *skel, const sk_clip *clip, const sk_leg_desc *legs, uint32_t leg_count,
                        const sk_foot_level_options *opts, const sk_allocator *alloc, sk_clip **out,
                        sk_foot_level_stats *stats, sk_error *err) {
    if (!skel || !clip || !legs) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, FL_WHO ": NULL argument");
    if (leg_count < 1 || leg_count > SK_FOOT_LEVEL_MAX_LEGS)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, FL_WHO ": %u legs (1..%u)", leg_count, SK_FOOT_LEVEL_MAX_LEGS);
    sk_foot_level_options o = opts ? *opts : (sk_foot_level_options){0};
    if (o.max_angle == 0) o.max_angle = 1.0f;
    if (o.min_angle == 0) o.min_angle = 0.0087f;
    if (o.middle == 0) o.middle = 0.5f;
    for (uint32_t l = 0; o.flat_pitch && l < leg_count; l++)
        if (!(fabsf(o.flat_pitch[l]) <= 1.5708f))
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, FL_WHO ": flat_pitch[%u] %g (-pi/2..pi/2)", l,
                                (double)o.flat_pitch[l]);
    if (!(o.max_angle > 0 && o.max_angle <= 1.5708f) || !(o.min_angle >= 0 && o.min_angle <= o.max_angle) ||
        !(o.middle > 0 && o.middle <= 1))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                            FL_WHO ": options out of range (max_angle %g in (0, pi/2], min_angle %g in [0, max_angle], "
                                   "middle %g in (0, 1])",
                            (double)o.max_angle, (double)o.min_angle, (double)o.middle);
    sk_leg_desc lg[SK_FOOT_LEVEL_MAX_LEGS];
    for (uint32_t l = 0; l < leg_count; l++) {
        lg[l] = legs[l];
        sk_result r = sk_leg_default_points(skel, &lg[l], err);
        if (r != SK_OK) return r;
    }
    sk_foot_level_stats st;
    memset(&st, 0, sizeof st);
    fl_work w = {skel, clip, alloc, {0}, NULL};
    sk_contact *c = NULL;
    float *buf = NULL;
    uint32_t nc = 0, cap = 0;
    size_t mb = (size_t)skel->joint_count * sizeof(sk_mat4), cb = 0, bb = 0, pb = 0;
    char *per = NULL; /* per_contact: start, end (doubles), correction, tilt per contact */
    sk_result r = SK_OK;
    if (o.contacts) {
        for (uint32_t k = 0; k < o.contact_count; k++) {
            const sk_contact *g = &o.contacts[k];
            if (g->leg >= leg_count || !isfinite(g->start) || !isfinite(g->end) || !(g->start <= g->end))
                return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, FL_WHO ": contacts[%u]: leg %u of %u, %g .. %g s", k,
                                    g->leg, leg_count, g->start, g->end);
        }
        nc = o.contact_count;
    } else {
        r = sk_contacts_find(skel, clip, lg, leg_count, o.find, alloc, NULL, 0, &nc, err);
        if (r == SK_ERR_LIMIT) r = SK_OK;
        if (r != SK_OK) return r;
    }
    cb = o.contacts ? 0 : (size_t)(nc ? nc : 1) * sizeof *c; /* given contacts are read where they are */
    /* samples: at most FL_RATE per second of the clip per leg, plus one per contact */
    double dur = sk_clip_duration(clip);
    double capd = (isfinite(dur) ? dur * FL_RATE : 0.0) + (double)nc + 1.0;
    cap = capd > 1e7 ? 10000000u : (uint32_t)capd;
    bb = (size_t)cap * sizeof(float);
    c = cb ? (sk_contact *)sk_alloc(alloc, cb) : NULL;
    buf = (float *)sk_alloc(alloc, bb);
    w.model = (sk_mat4 *)sk_alloc(alloc, mb);
    if ((cb && !c) || !buf || !w.model) {
        r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, FL_WHO ": out of memory");
        goto done;
    }
    if ((r = sk_pose_alloc(skel, alloc, &w.pose, err)) != SK_OK) goto done;
    if (!o.contacts && nc && (r = sk_contacts_find(skel, clip, lg, leg_count, o.find, alloc, c, nc, &nc, err)) != SK_OK)
        goto done;
    const sk_contact *cs = o.contacts ? o.contacts : c;
    float rest_pitch[SK_FOOT_LEVEL_MAX_LEGS] = {0};
    if ((r = sk_pose_rest(skel, &w.pose, err)) != SK_OK ||
        (r = sk_local_to_model(skel, &w.pose, NULL, w.model, skel->joint_count, err)) != SK_OK)
        goto done;
    for (uint32_t l = 0; l < leg_count; l++) {
        sk_vec3 heel, toe, side;
        fl_points(&w, &lg[l], &heel, &toe);
        if (o.flat_pitch) rest_pitch[l] = o.flat_pitch[l];
        else if (!fl_pitch(heel, toe, &rest_pitch[l], &side)) rest_pitch[l] = 0;
    }
    bool apply[SK_FOOT_LEVEL_MAX_LEGS] = {false};
    fl_turn q[SK_FOOT_LEVEL_MAX_LEGS];
    memset(q, 0, sizeof q);
    if (o.per_contact && nc) { /* per contact: its tilt, and per leg its contacts' times and corrections */
        if (!sk_size_mul((size_t)nc, sizeof(float) + 2 * sizeof(double) + sizeof(sk_quat), &pb)) {
            r = sk_error_set(err, SK_ERR_LIMIT, FL_WHO ": %u contacts", nc);
            goto done;
        }
        per = (char *)sk_alloc(alloc, pb);
        if (!per) {
            r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, FL_WHO ": out of memory");
            goto done;
        }
    }
    float *ctilt = per ? (float *)(void *)(per + (size_t)nc * (2 * sizeof(double) + sizeof(sk_quat))) : NULL;
    double *t_start = per ? (double *)(void *)per : NULL, *t_end = per ? t_start + nc : NULL;
    sk_quat *t_q = per ? (sk_quat *)(void *)(t_end + nc) : NULL;
    uint32_t used = 0;
    for (uint32_t l = 0; l < leg_count; l++) {
        sk_vec3 axis = sk_vec3_make(0, 0, 0);
        r = fl_measure(&w, &lg[l], l, cs, nc, o.middle, rest_pitch[l], buf, cap, &st, &axis, ctilt, err);
        if (r != SK_OK) goto done;
        float a = fabsf(st.tilt[l]);
        bool axis_ok = st.samples[l] > 0 && skm_vec3_len(axis) > 0.5f;
        apply[l] = axis_ok && a >= o.min_angle && a <= o.max_angle;
        q[l].one = apply[l] ? skm_quat_axis_angle(axis, st.tilt[l]) : sk_quat_identity();
        if (per && axis_ok) {
            /* the leg's contacts with a tilt within max_angle, by start (insertion: contacts are
             * few), each turned by its own (none under min_angle); the leg is levelled when one is */
            uint32_t first = used;
            bool any = false;
            for (uint32_t k = 0; k < nc; k++) {
                if (cs[k].leg != l) continue;
                /* a short contact (a landing or a push-off the detection cut short) takes the leg's tilt */
                float tk = cs[k].end - cs[k].start >= FL_CONTACT_OWN ? ctilt[k] : (apply[l] ? st.tilt[l] : 0.0f);
                if (!(fabsf(tk) <= o.max_angle)) continue;
                bool turn = fabsf(tk) >= o.min_angle;
                any |= turn;
                uint32_t at = used++;
                while (at > first && t_start[at - 1] > cs[k].start) {
                    t_start[at] = t_start[at - 1], t_end[at] = t_end[at - 1], t_q[at] = t_q[at - 1];
                    at--;
                }
                t_start[at] = cs[k].start, t_end[at] = cs[k].end;
                t_q[at] = turn ? skm_quat_axis_angle(axis, tk) : sk_quat_identity();
            }
            q[l].n = used - first, q[l].start = t_start + first, q[l].end = t_end + first, q[l].q = t_q + first;
            apply[l] = any;
        }
        st.applied[l] = apply[l];
    }
    if (out) r = fl_build(&w, lg, leg_count, apply, q, out, err);
done:
    sk_free(alloc, per, pb);
    if (w.pose.local) sk_pose_free(&w.pose, alloc);
    sk_free(alloc, w.model, mb);
    sk_free(alloc, buf, bb);
    sk_free(alloc, c, cb);
    if (r == SK_OK && stats) *stats = st;
    return r;
}
