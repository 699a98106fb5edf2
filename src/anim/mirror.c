/* skelanim — mirroring a clip left <-> right (anim/mirror.h): each key of a
 * joint's track becomes a key of its partner's, through the joint's fixed
 * linear maps derived from the rest pose. */
#include "core/internal.h"
#include "core/math_inline.h"
#include "skelanim/anim/mirror.h"
#include "skelanim/anim/retarget.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* refl(q) = M q M for the reflection M across the plane normal to the unit
 * axis a: the rotation about M u by the opposite angle, i.e. the vector part
 * v becomes 2 (v.a) a - v. */
static sk_quat refl_q(sk_quat q, uint32_t axis) {
    sk_quat r = sk_quat_make(-q.x, -q.y, -q.z, q.w);
    float *c = axis == 0 ? &r.x : axis == 1 ? &r.y : &r.z;
    *c = -*c;
    return r;
}

static sk_vec3 refl_v(sk_vec3 v, uint32_t axis) {
    if (axis == 0) v.x = -v.x;
    else if (axis == 1) v.y = -v.y;
    else v.z = -v.z;
    return v;
}

/* Per source joint j (partner m): the rotation key maps to
 * pre * refl(q) * post, the translation key to tpost(M tpre(t)). */
typedef struct mirror_joint {
    uint32_t partner;
    sk_quat pre, post;  /* restM(P')^-1 refl(restM(P)), refl(restM(j)^-1) restM(j') */
    sk_quat tpre, tpost; /* restM(P), restM(P')^-1 */
} mirror_joint;

static sk_quat map_rot(const mirror_joint *mj, sk_quat q, uint32_t axis) {
    return sk_quat_mul(sk_quat_mul(mj->pre, refl_q(q, axis)), mj->post);
}

static sk_vec3 map_trans(const mirror_joint *mj, sk_vec3 t, uint32_t axis) {
    return sk_quat_rotate(mj->tpost, refl_v(sk_quat_rotate(mj->tpre, t), axis));
}

/* Partners from the pairs (checked), then the per-joint maps. */
static sk_result mirror_setup(const sk_skeleton *skel, const uint32_t (*pairs)[2], uint32_t np, uint32_t axis,
                              mirror_joint *mj, sk_quat *restm, sk_error *err) {
    uint32_t n = skel->joint_count;
    for (uint32_t j = 0; j < n; j++) mj[j].partner = j;
    for (uint32_t k = 0; k < np; k++) {
        uint32_t a = pairs[k][0], b = pairs[k][1];
        if (a >= n || b >= n || a == b)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_mirror: pair %u (%u, %u) is not two joints of the "
                                "%u-joint skeleton", k, a, b, n);
        if (mj[a].partner != a || mj[b].partner != b)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_mirror: pair %u: joint %s is in two pairs", k,
                                skel->names[mj[a].partner != a ? a : b]);
        mj[a].partner = b, mj[b].partner = a;
    }
    for (uint32_t j = 0; j < n; j++) {
        int32_t p = skel->parents[j], pp = skel->parents[mj[j].partner];
        bool ok = p < 0 ? pp < 0 : pp >= 0 && (uint32_t)pp == mj[(uint32_t)p].partner;
        if (!ok)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_mirror: joints %s and %s are paired but their "
                                "parents are not partners", skel->names[j], skel->names[mj[j].partner]);
        restm[j] = p < 0 ? skel->rest[j].r : sk_quat_normalize(sk_quat_mul(restm[p], skel->rest[j].r));
    }
    for (uint32_t j = 0; j < n; j++) {
        int32_t p = skel->parents[j];
        uint32_t m = mj[j].partner;
        sk_quat rp = p < 0 ? sk_quat_identity() : restm[p];
        sk_quat rpp = p < 0 ? sk_quat_identity() : restm[mj[(uint32_t)p].partner];
        mj[j].pre = sk_quat_mul(sk_quat_conjugate(rpp), refl_q(rp, axis));
        mj[j].post = sk_quat_mul(refl_q(sk_quat_conjugate(restm[j]), axis), restm[m]);
        mj[j].tpre = rp;
        mj[j].tpost = sk_quat_conjugate(rpp);
    }
    return SK_OK;
}

/* Maps the values of one track (count elements of width floats) in place. */
static void map_values(const mirror_joint *mj, sk_track_path path, float *v, size_t count, uint32_t axis) {
    for (size_t e = 0; e < count; e++) {
        if (path == SK_PATH_ROTATION) {
            float *q = v + 4 * e;
            sk_quat r = map_rot(mj, sk_quat_make(q[0], q[1], q[2], q[3]), axis);
            q[0] = r.x, q[1] = r.y, q[2] = r.z, q[3] = r.w;
        } else if (path == SK_PATH_TRANSLATION) {
            float *t = v + 3 * e;
            sk_vec3 r = map_trans(mj, sk_vec3_make(t[0], t[1], t[2]), axis);
            t[0] = r.x, t[1] = r.y, t[2] = r.z;
        }
    }
}

/* The builder's clip with clip's duration, or, after an error r, none (the builder freed). */
static sk_result build_finish(sk_clip_builder *b, const sk_clip *clip, sk_result r, sk_clip **out, sk_error *err) {
    if (r != SK_OK) {
        sk_clip_builder_destroy(b);
        return r;
    }
    sk_clip_builder_set_duration(b, sk_clip_duration(clip));
    return sk_clip_builder_finish(b, out, err);
}

static sk_result mirror_build(const sk_clip *clip, const sk_skeleton *skel, const mirror_joint *mj, uint32_t axis,
                              const char *name, const sk_allocator *a, float *buf, uint8_t *has_t, sk_clip **out,
                              sk_error *err) {
    sk_clip_builder *b = NULL;
    sk_result r = sk_clip_builder_create(name, a, &b, err);
    if (r != SK_OK) return r;
    uint32_t tc = sk_clip_track_count(clip);
    for (uint32_t i = 0; i < tc && r == SK_OK; i++) {
        sk_track_info info;
        if (!sk_clip_track_info(clip, i, &info)) continue;
        float *times = buf, *values = buf + info.key_count;
        if (!sk_clip_track_keys(clip, i, times, values)) continue;
        size_t elems = (size_t)info.key_count * (info.interpolation == SK_INTERP_CUBICSPLINE ? 3u : 1u);
        sk_track_desc td = {info.joint, info.path, info.interpolation, info.key_count, times, values, info.width};
        if (info.path != SK_PATH_WEIGHTS) {
            map_values(&mj[info.joint], info.path, values, elems, axis);
            td.joint = mj[info.joint].partner;
        }
        if (info.path == SK_PATH_TRANSLATION) has_t[info.joint] = 1;
        r = sk_clip_builder_add_track(b, &td, err);
    }
    /* Joints whose rest translation mirrors to something else than their
     * partner's rest translation: a constant track keeps positions exact. */
    for (uint32_t j = 0; j < skel->joint_count && r == SK_OK; j++) {
        if (has_t[j]) continue;
        uint32_t m = mj[j].partner;
        sk_vec3 t = map_trans(&mj[j], skel->rest[j].t, axis), rt = skel->rest[m].t;
        float d = sk_vec3_length(sk_vec3_sub(t, rt)), scale = 1.0f + sk_vec3_length(rt);
        if (d <= 1e-6f * scale) continue;
        float t0 = 0.0f, v[3] = {t.x, t.y, t.z};
        sk_track_desc td = {m, SK_PATH_TRANSLATION, SK_INTERP_LINEAR, 1, &t0, v, 3};
        r = sk_clip_builder_add_track(b, &td, err);
    }
    return build_finish(b, clip, r, out, err);
}

/* Checks that clip's tracks fit skel (fn names the caller in the message)
 * and returns, in *floats, the scratch floats the largest track's times
 * and values take (at least min_per_key a key when the clip is frame-major). */
static sk_result clip_scratch(const char *fn, const sk_clip *clip, const sk_skeleton *skel, size_t min_per_key,
                              size_t *floats, sk_error *err) {
    if (sk_clip_joint_span(clip) > skel->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: clip %s has a track on joint %u, the skeleton has %u "
                            "joints", fn, sk_clip_name(clip), sk_clip_joint_span(clip) - 1, skel->joint_count);
    bool fm = sk_clip_is_frame_major(clip);
    *floats = 0;
    for (uint32_t i = 0, tc = sk_clip_track_count(clip); i < tc; i++) {
        sk_track_info info;
        if (!sk_clip_track_info(clip, i, &info)) continue;
        size_t f = (size_t)info.key_count * (1 + (size_t)info.width * (info.interpolation == SK_INTERP_CUBICSPLINE ? 3 : 1));
        if (fm && (size_t)info.key_count * min_per_key > f) f = (size_t)info.key_count * min_per_key;
        if (f > *floats) *floats = f;
    }
    return SK_OK;
}

sk_result sk_clip_mirror(const sk_clip *clip, const sk_skeleton *skel, const sk_clip_mirror_desc *desc,
                         const sk_allocator *alloc, sk_clip **out, sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_mirror: out is NULL");
    *out = NULL;
    if (!clip || !skel) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_mirror: NULL clip or skeleton");
    uint32_t axis = desc ? desc->axis : 0;
    if (axis > 2) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_mirror: axis %u is not 0, 1 or 2", axis);
    if (desc && desc->pair_count && !desc->pairs)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_mirror: %u pairs but NULL pairs", desc->pair_count);
    const sk_allocator *a = sk_allocator_or_default(alloc);
    uint32_t n = skel->joint_count;
    /* Scratch: the joints' maps, rest rotations, flags, pairs and the largest track. */
    size_t floats = 0;
    sk_result r0 = clip_scratch("sk_clip_mirror", clip, skel, 0, &floats, err);
    if (r0 != SK_OK) return r0;
    uint32_t np = desc && desc->pairs ? desc->pair_count : 0;
    uint32_t auto_np = 0;
    if (!(desc && desc->pairs)) {
        sk_result r = sk_skeleton_mirror_pairs(skel, desc ? desc->map : NULL, NULL, 0, &auto_np, err);
        if (r != SK_OK) return r;
        np = auto_np;
    }
    size_t bytes = (size_t)n * (sizeof(mirror_joint) + sizeof(sk_quat) + 1) + (size_t)np * 2 * sizeof(uint32_t) +
                   floats * sizeof(float) + 64;
    uint8_t *mem = (uint8_t *)sk_alloc(a, bytes);
    if (!mem) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_clip_mirror: out of memory");
    mirror_joint *mj = (mirror_joint *)mem;
    sk_quat *restm = (sk_quat *)(mj + n);
    float *buf = (float *)(restm + n);
    uint32_t (*pairs)[2] = (uint32_t (*)[2])(buf + floats);
    uint8_t *has_t = (uint8_t *)(pairs + np);
    sk_result r = SK_OK;
    if (desc && desc->pairs) memcpy(pairs, desc->pairs, (size_t)np * sizeof *pairs);
    else if (np) r = sk_skeleton_mirror_pairs(skel, desc ? desc->map : NULL, pairs, np, &auto_np, err);
    if (r == SK_OK) r = mirror_setup(skel, (const uint32_t (*)[2])pairs, np, axis, mj, restm, err);
    char name[128];
    if (desc && desc->name) snprintf(name, sizeof name, "%s", desc->name);
    else snprintf(name, sizeof name, "%.100s_mirrored", sk_clip_name(clip));
    if (r == SK_OK) r = mirror_build(clip, skel, mj, axis, name, a, buf, has_t, out, err);
    sk_free(a, mem, bytes);
    return r;
}

/* ---- turning ---------------------------------------------------------------------------- */

/* Turns count elements of a root's track (values in place) by q. */
static void turn_values(sk_quat q, sk_track_path path, float *v, size_t count) {
    for (size_t e = 0; e < count; e++) {
        if (path == SK_PATH_ROTATION) {
            float *p = v + 4 * e;
            sk_quat r = sk_quat_mul(q, sk_quat_make(p[0], p[1], p[2], p[3]));
            p[0] = r.x, p[1] = r.y, p[2] = r.z, p[3] = r.w;
        } else if (path == SK_PATH_TRANSLATION) {
            float *p = v + 3 * e;
            sk_vec3 r = sk_quat_rotate(q, sk_vec3_make(p[0], p[1], p[2]));
            p[0] = r.x, p[1] = r.y, p[2] = r.z;
        }
    }
}

static sk_result turn_build(const sk_clip *clip, const sk_skeleton *skel, sk_quat q, const sk_allocator *a, float *buf,
                            uint8_t *has, sk_clip **out, sk_error *err) {
    sk_clip_builder *b = NULL;
    sk_result r = sk_clip_builder_create(sk_clip_name(clip), a, &b, err);
    if (r != SK_OK) return r;
    uint32_t tc = sk_clip_track_count(clip);
    for (uint32_t i = 0; i < tc && r == SK_OK; i++) {
        sk_track_info info;
        if (!sk_clip_track_info(clip, i, &info)) continue;
        float *times = buf, *values = buf + info.key_count;
        if (!sk_clip_track_keys(clip, i, times, values)) continue;
        size_t elems = (size_t)info.key_count * (info.interpolation == SK_INTERP_CUBICSPLINE ? 3u : 1u);
        if (skel->parents[info.joint] < 0 && (info.path == SK_PATH_TRANSLATION || info.path == SK_PATH_ROTATION)) {
            turn_values(q, info.path, values, elems);
            has[info.joint] |= info.path == SK_PATH_TRANSLATION ? 1u : 2u;
        }
        sk_track_desc td = {info.joint, info.path, info.interpolation, info.key_count, times, values, info.width};
        r = sk_clip_builder_add_track(b, &td, err);
    }
    /* Roots the clip leaves at rest: their turned rest values, held. In a
     * frame-major clip on its key times (the value repeated), so the turned
     * clip stays frame-major (clip.h): sampling keeps its fast path. */
    uint32_t nk = 1;
    float t0 = 0.0f, *times = &t0;
    sk_track_info i0;
    if (sk_clip_is_frame_major(clip) && sk_clip_track_info(clip, 0, &i0) && sk_clip_track_keys(clip, 0, buf, NULL))
        nk = i0.key_count, times = buf; /* buf holds the largest track: times and 4 floats a key fit */
    float *vals = buf + nk;
    for (uint32_t j = 0; j < skel->joint_count && r == SK_OK; j++) {
        if (skel->parents[j] >= 0) continue;
        if (!(has[j] & 1u)) {
            sk_vec3 t = sk_quat_rotate(q, skel->rest[j].t);
            for (uint32_t k = 0; k < nk; k++) vals[3 * k] = t.x, vals[3 * k + 1] = t.y, vals[3 * k + 2] = t.z;
            sk_track_desc td = {j, SK_PATH_TRANSLATION, SK_INTERP_LINEAR, nk, times, vals, 3};
            r = sk_clip_builder_add_track(b, &td, err);
        }
        if (r == SK_OK && !(has[j] & 2u)) {
            sk_quat t = sk_quat_mul(q, skel->rest[j].r);
            for (uint32_t k = 0; k < nk; k++)
                vals[4 * k] = t.x, vals[4 * k + 1] = t.y, vals[4 * k + 2] = t.z, vals[4 * k + 3] = t.w;
            sk_track_desc td = {j, SK_PATH_ROTATION, SK_INTERP_LINEAR, nk, times, vals, 4};
            r = sk_clip_builder_add_track(b, &td, err);
        }
    }
    return build_finish(b, clip, r, out, err);
}

sk_result sk_clip_turn(const sk_clip *clip, const sk_skeleton *skel, float yaw, const sk_allocator *alloc,
                       sk_clip **out, sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_turn: out is NULL");
    *out = NULL;
    if (!clip || !skel) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_turn: NULL clip or skeleton");
    if (!isfinite(yaw)) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_turn: yaw %g is not finite", (double)yaw);
    uint32_t n = skel->joint_count;
    size_t floats = 0; /* the largest track; a frame-major clip's times and a rotation a key (turn_build) */
    sk_result r0 = clip_scratch("sk_clip_turn", clip, skel, 5, &floats, err);
    if (r0 != SK_OK) return r0;
    const sk_allocator *a = sk_allocator_or_default(alloc);
    size_t bytes = floats * sizeof(float) + n + 16;
    float *buf = (float *)sk_alloc(a, bytes);
    if (!buf) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_clip_turn: out of memory");
    uint8_t *has = (uint8_t *)(buf + floats);
    memset(has, 0, n);
    float h = 0.5f * skm_wrap_angle(yaw);
    sk_quat q = sk_quat_make(0.0f, sinf(h), 0.0f, cosf(h));
    sk_result r = turn_build(clip, skel, q, a, buf, has, out, err);
    sk_free(a, buf, bytes);
    return r;
}
