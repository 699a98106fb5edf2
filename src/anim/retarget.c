/* skelanim — retargeting: the retargeter (frame alignment, rest correction,
 * root scaling), live per pose and baked per clip. Math in docs/retarget.md. */
#include "anim/retarget_internal.h"

#include <stdlib.h>
#include <string.h>


static sk_result fail(sk_error *err, sk_result code, const char *fmt, const char *a, const char *b) {
    return sk_error_set(err, code, fmt, a, b);
}

/* SK_RETARGET_GROUND_REST (retarget.h): the source rest hips moved along
 * the source's up axis so that the source's rest hip joints stand at the
 * target's rest hip joint height over the root scale. sm, tm: the rest
 * model transforms of source and target. */
static void ground_rest(sk_retarget *rt, const sk_transform *sm, const sk_transform *tm) {
    const sk_humanoid_map *ms = &rt->map[0], *mt = &rt->map[1];
    int32_t sl = ms->joint[SK_HUMANOID_LEFT_UPPER_LEG], sr = ms->joint[SK_HUMANOID_RIGHT_UPPER_LEG];
    int32_t tl = mt->joint[SK_HUMANOID_LEFT_UPPER_LEG], tr = mt->joint[SK_HUMANOID_RIGHT_UPPER_LEG];
    if (sl < 0 || sr < 0 || tl < 0 || tr < 0 || !(rt->root_scale > 0.0f)) return;
    /* the source's up: its principal axis nearest the target's +Y carried into the source frame (the frame
     * rotation tilts with the rest poses' spines; a Y-up source keeps +Y exactly, a Z-up one gets +Z) */
    sk_vec3 u = skm_quat_rotate(sk_quat_conjugate(rt->frame), sk_vec3_make(0, 1, 0)), up = sk_vec3_make(0, 0, 0);
    float ax = fabsf(u.x), ay = fabsf(u.y), az = fabsf(u.z);
    if (ay >= ax && ay >= az) up.y = u.y < 0 ? -1.0f : 1.0f;
    else if (ax >= az) up.x = u.x < 0 ? -1.0f : 1.0f;
    else up.z = u.z < 0 ? -1.0f : 1.0f;
    float hs = 0.5f * (sk_vec3_dot(sm[sl].t, up) + sk_vec3_dot(sm[sr].t, up));
    float ht = 0.5f * (tm[tl].t.y + tm[tr].t.y);
    float shift = ht / rt->root_scale - hs;
    if (!sk_isfinite_f(shift)) return;
    rt->src_hips0 = sk_vec3_add(rt->src_hips0, sk_vec3_scale(up, shift));
}

sk_result sk_retarget_create(const sk_retarget_desc *d, const sk_allocator *alloc, sk_retarget **out, sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_retarget_create: out is NULL");
    *out = NULL;
    if (!d || !d->source || !d->target)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_retarget_create: NULL description or skeleton");
    const sk_skeleton *src = d->source, *dst = d->target;
    if (!(d->root_scale >= 0.0f) || !sk_isfinite_f(d->root_scale))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_retarget_create: root_scale %g is not finite and >= 0",
                            (double)d->root_scale);
    if (d->pair_count && !d->pairs)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_retarget_create: pair_count %u with NULL pairs", d->pair_count);
    if (d->source_rest && sk_pose_check(src, d->source_rest, "sk_retarget_create: source_rest", err) != SK_OK)
        return SK_ERR_INVALID_ARGUMENT;
    if (d->target_rest && sk_pose_check(dst, d->target_rest, "sk_retarget_create: target_rest", err) != SK_OK)
        return SK_ERR_INVALID_ARGUMENT;
    const sk_transform *sloc = d->source_rest ? d->source_rest->local : src->rest;
    const sk_transform *tloc = d->target_rest ? d->target_rest->local : dst->rest;
    if (!skr_transforms_finite(sloc, src->joint_count) || !skr_transforms_finite(tloc, dst->joint_count))
        return sk_error_set(err, SK_ERR_INVALID_DATA, "sk_retarget_create: a rest pose holds a non-finite value");
    /* Pairs: every name must exist. */
    for (uint32_t k = 0; k < d->pair_count; k++) {
        const sk_retarget_pair *p = &d->pairs[k];
        if (!p->source || !p->target)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_retarget_create: pair %u has a NULL name", k);
        if (sk_skeleton_find(src, p->source) < 0)
            return fail(err, SK_ERR_INVALID_ARGUMENT, "sk_retarget_create: map names source joint '%s'%s, which does not exist",
                        p->source, "");
        if (sk_skeleton_find(dst, p->target) < 0)
            return fail(err, SK_ERR_INVALID_ARGUMENT, "sk_retarget_create: map names target joint '%s'%s, which does not exist",
                        p->target, "");
    }
    /* Humanoid maps: given (checked) or found. */
    sk_humanoid_map maps[2];
    bool has[2];
    sk_error e2;
    const sk_skeleton *sk[2] = {src, dst};
    const sk_humanoid_map *given[2] = {d->source_map, d->target_map};
    const sk_pose *rests[2] = {d->source_rest, d->target_rest};
    sk_error why[2];
    for (int w = 0; w < 2; w++) {
        sk_result r = given[w] ? sk_humanoid_map_check(given[w], sk[w], &e2)
                               : sk_humanoid_map_find_alloc(sk[w], rests[w], alloc, &maps[w], &e2);
        if (r == SK_ERR_OUT_OF_MEMORY) return sk_error_set(err, r, "sk_retarget_create: out of memory");
        has[w] = r == SK_OK;
        if (has[w] && given[w]) maps[w] = *given[w];
        if (!has[w]) {
            if (given[w]) return sk_error_set(err, r, "sk_retarget_create: %s map: %s", w ? "target" : "source", e2.message);
            for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++) maps[w].joint[b] = -1, maps[w].how[b] = SK_HUMANOID_UNMAPPED;
            maps[w].scheme = "none";
        }
        why[w] = e2;
    }
    if ((!has[0] || !has[1]) && d->pair_count == 0 && !(d->flags & SK_RETARGET_MATCH_NAMES)) {
        if (!has[0]) return sk_error_set(err, SK_ERR_INVALID_DATA, "sk_retarget_create: source: %s", why[0].message);
        return sk_error_set(err, SK_ERR_INVALID_DATA, "sk_retarget_create: target: %s", why[1].message);
    }
    /* Memory. */
    uint32_t nt = dst->joint_count;
    size_t bytes = sizeof(sk_retarget) + (size_t)nt * (sizeof(int32_t) + sizeof(sk_quat) + sizeof(sk_transform)) +
                   (size_t)dst->weight_total * sizeof(float) + 64;
    const sk_allocator *a = sk_allocator_or_default(alloc);
    sk_retarget *rt = (sk_retarget *)sk_alloc(a, bytes);
    if (!rt) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_retarget_create: out of memory");
    rt->alloc = *a, rt->bytes = bytes, rt->src = src, rt->dst = dst, rt->flags = d->flags;
    rt->dst_rest = (sk_transform *)(rt + 1);
    rt->post = (sk_quat *)(rt->dst_rest + nt);
    rt->src_of = (int32_t *)(rt->post + nt);
    rt->dst_rest_weights = (float *)(rt->src_of + nt);
    memcpy(rt->dst_rest, tloc, (size_t)nt * sizeof(sk_transform));
    if (dst->weight_total)
        memcpy(rt->dst_rest_weights, d->target_rest && d->target_rest->weight_count ? d->target_rest->weights : dst->rest_weights,
               (size_t)dst->weight_total * sizeof(float));
    for (int w = 0; w < 2; w++) rt->map[w] = maps[w], rt->has_map[w] = has[w];
    for (uint32_t j = 0; j < nt; j++) rt->src_of[j] = -1, rt->post[j] = sk_quat_identity();
    /* Temporary: rest model transforms of both, per target joint its
     * nearest mapped ancestor and first mapped "child". */
    uint32_t ns = src->joint_count;
    size_t tmp_bytes = ((size_t)ns + nt) * sizeof(sk_transform) + 2 * (size_t)nt * sizeof(int32_t);
    sk_transform *sm = (sk_transform *)sk_alloc(a, tmp_bytes);
    if (!sm) {
        sk_free(a, rt, bytes);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_retarget_create: out of memory");
    }
    sk_transform *tm = sm + ns;
    int32_t *nma = (int32_t *)(tm + nt), *firstc = nma + nt;
    skr_model_all(src, sloc, sm);
    skr_model_all(dst, tloc, tm);
    /* Joint correspondence: humanoid bones, same names, then the pairs. */
    sk_result r = SK_OK;
    if (has[0] && has[1])
        for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++)
            if (maps[0].joint[b] >= 0 && maps[1].joint[b] >= 0) rt->src_of[maps[1].joint[b]] = maps[0].joint[b];
    if (d->flags & SK_RETARGET_MATCH_NAMES) r = skr_match_names(src, dst, a, rt->src_of, err);
    for (uint32_t k = 0; k < d->pair_count; k++)
        rt->src_of[sk_skeleton_find(dst, d->pairs[k].target)] = sk_skeleton_find(src, d->pairs[k].source);
    uint32_t mapped = 0;
    for (uint32_t j = 0; j < nt; j++) mapped += rt->src_of[j] >= 0;
    if (r == SK_OK && !mapped)
        r = sk_error_set(err, SK_ERR_INVALID_DATA, "sk_retarget_create: the skeletons have nothing in common (no joint mapped)");
    if (r != SK_OK) {
        sk_free(a, sm, tmp_bytes);
        sk_free(a, rt, bytes);
        return r;
    }
    for (uint32_t j = 0; j < nt; j++) {
        int32_t p = dst->parents[j];
        nma[j] = p < 0 ? -1 : (rt->src_of[p] >= 0 ? p : nma[p]);
        firstc[j] = -1;
    }
    for (uint32_t c = 0; c < nt; c++)
        if (rt->src_of[c] >= 0 && nma[c] >= 0 && firstc[nma[c]] < 0) firstc[nma[c]] = (int32_t)c;
    /* Frame alignment C from the hips frames (identity without both maps). */
    sk_quat fs, ft;
    rt->frame = sk_quat_identity();
    if (has[0] && has[1] && skr_hips_frame(sm, &maps[0], &fs) && skr_hips_frame(tm, &maps[1], &ft))
        rt->frame = skm_quat_unit(skm_quat_mul(ft, sk_quat_conjugate(fs)));
    /* Root: the hips, translated by the scaled source displacement. */
    rt->src_hips = rt->dst_hips = -1;
    if (has[0] && has[1] && !(d->flags & SK_RETARGET_NO_ROOT_TRANSLATION) &&
        rt->src_of[maps[1].joint[SK_HUMANOID_HIPS]] == maps[0].joint[SK_HUMANOID_HIPS]) {
        rt->src_hips = maps[0].joint[SK_HUMANOID_HIPS], rt->dst_hips = maps[1].joint[SK_HUMANOID_HIPS];
        rt->src_hips0 = sm[rt->src_hips].t;
        rt->dst_hips0 = tm[rt->dst_hips].t;
    }
    rt->root_scale = d->root_scale;
    if (rt->root_scale == 0.0f) {
        float ls = has[0] ? sk_humanoid_leg_length(src, d->source_rest, &maps[0]) : 0.0f;
        float lt = has[1] ? sk_humanoid_leg_length(dst, d->target_rest, &maps[1]) : 0.0f;
        rt->root_scale = ls > 0.0f && lt > 0.0f ? lt / ls : 1.0f;
    }
    if ((d->flags & SK_RETARGET_GROUND_REST) && rt->src_hips >= 0) ground_rest(rt, sm, tm);
    /* Rest correction A per mapped target joint (held in post until the
     * next loop): the rotation of the target's rest bone direction onto the
     * source's. The direction child: the joint's humanoid next bone, else
     * its first mapped descendant with no mapped joint between. A joint
     * without one inherits its nearest mapped ancestor's A. */
    for (uint32_t j = 0; j < nt; j++) {
        int32_t s = rt->src_of[j];
        sk_quat A = nma[j] >= 0 ? rt->post[nma[j]] : sk_quat_identity();
        if (s < 0) continue;
        int32_t tc = -1;
        int bone = -1;
        if (has[1])
            for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++)
                if (maps[1].joint[b] == (int32_t)j) bone = b;
        if (bone == SK_HUMANOID_HIPS) A = sk_quat_identity();
        if (bone >= 0)
            for (int k = 0; k < 4 && skr_next_bone[bone][k] >= 0 && tc < 0; k++) {
                int32_t c = maps[1].joint[skr_next_bone[bone][k]];
                if (c >= 0 && rt->src_of[c] >= 0) tc = c;
            }
        if (tc < 0 && bone < 0) tc = firstc[j];
        if (tc >= 0 && bone != SK_HUMANOID_HIPS) {
            sk_vec3 dt = sk_vec3_sub(tm[tc].t, tm[j].t);
            sk_vec3 ds = skm_quat_rotate(rt->frame, sk_vec3_sub(sm[rt->src_of[tc]].t, sm[s].t));
            float lt = skm_vec3_len(dt), ls = skm_vec3_len(ds);
            if (lt > 1e-6f * (1.0f + lt) && ls > 1e-6f * (1.0f + ls)) A = skm_quat_from_to(dt, ds);
        }
        rt->post[j] = A;
    }
    /* K = Rs0^-1 C^-1 A Rt0. */
    for (uint32_t j = 0; j < nt; j++) {
        int32_t s = rt->src_of[j];
        if (s < 0) continue;
        sk_quat k = skm_quat_mul(sk_quat_conjugate(skm_quat_unit(sm[s].r)), sk_quat_conjugate(rt->frame));
        k = skm_quat_mul(k, skm_quat_mul(rt->post[j], skm_quat_unit(tm[j].r)));
        rt->post[j] = skm_quat_unit(k);
    }
    sk_free(a, sm, tmp_bytes);
    *out = rt;
    return SK_OK;
}

void sk_retarget_destroy(sk_retarget *rt) {
    if (!rt) return;
    sk_allocator a = rt->alloc;
    sk_free(&a, rt, rt->bytes);
}

size_t sk_retarget_scratch_size(const sk_retarget *rt) {
    if (!rt) return 0;
    return ((size_t)rt->src->joint_count + rt->dst->joint_count) * sizeof(sk_quat);
}

/* A unit quaternion from any finite one: scaled by its largest component
 * first, so that huge components do not overflow; zero gives the identity. */
static sk_quat unit_any(sk_quat q) {
    float m = fmaxf(fmaxf(fabsf(q.x), fabsf(q.y)), fmaxf(fabsf(q.z), fabsf(q.w)));
    if (!(m > 0.0f)) return sk_quat_identity();
    float k = 1.0f / m;
    return skm_quat_unit(sk_quat_make(q.x * k, q.y * k, q.z * k, q.w * k));
}

static bool pose_finite(const sk_pose *p) {
    if (!skr_transforms_finite(p->local, p->joint_count)) return false;
    for (uint32_t k = 0; k < p->weight_count; k++)
        if (!sk_isfinite_f(p->weights[k])) return false;
    return true;
}

sk_result sk_retarget_pose(const sk_retarget *rt, const sk_pose *sp, const sk_pose *fill, sk_pose *out, void *scratch,
                           size_t scratch_size, sk_error *err) {
    if (!rt || !sp || !out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_retarget_pose: NULL argument");
    const sk_skeleton *src = rt->src, *dst = rt->dst;
    if (sk_pose_check(src, sp, "sk_retarget_pose: source pose", err) != SK_OK) return SK_ERR_INVALID_ARGUMENT;
    if (sk_pose_check(dst, out, "sk_retarget_pose: target pose", err) != SK_OK) return SK_ERR_INVALID_ARGUMENT;
    if (fill && sk_pose_check(dst, fill, "sk_retarget_pose: fill pose", err) != SK_OK) return SK_ERR_INVALID_ARGUMENT;
    if (!pose_finite(sp)) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_retarget_pose: the source pose holds a non-finite value");
    if (fill && !pose_finite(fill)) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_retarget_pose: the fill pose holds a non-finite value");
    uint32_t ns = src->joint_count, nt = dst->joint_count;
    sk_quat stack[2 * SK_RETARGET_STACK_JOINTS];
    sk_quat *qs;
    if (scratch) {
        if (scratch_size < sk_retarget_scratch_size(rt))
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_retarget_pose: scratch of %zu bytes, %zu needed",
                                scratch_size, sk_retarget_scratch_size(rt));
        qs = (sk_quat *)scratch;
    } else {
        if (ns > SK_RETARGET_STACK_JOINTS || nt > SK_RETARGET_STACK_JOINTS)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                                "sk_retarget_pose: scratch is NULL for skeletons of %u and %u joints (more than %u)", ns, nt,
                                SK_RETARGET_STACK_JOINTS);
        qs = stack;
    }
    sk_quat *qt = qs + ns;
    /* Source model rotations. */
    for (uint32_t j = 0; j < ns; j++) {
        int32_t p = src->parents[j];
        sk_quat r = unit_any(sp->local[j].r);
        qs[j] = p >= 0 ? skm_quat_mul(qs[p], r) : r;
    }
    /* The root's model position, before anything is written: out of range is an error. */
    sk_vec3 want = sk_vec3_make(0, 0, 0);
    if (rt->dst_hips >= 0) {
        sk_vec3 ps = skr_model_position(src, sp->local, rt->src_hips);
        sk_vec3 disp = skm_quat_rotate(rt->frame, sk_vec3_sub(ps, rt->src_hips0));
        want = sk_vec3_add(rt->dst_hips0, sk_vec3_scale(disp, rt->root_scale));
        if (!skm_vec3_finite(want) || fabsf(want.x) > SK_RETARGET_MAX_COORD || fabsf(want.y) > SK_RETARGET_MAX_COORD ||
            fabsf(want.z) > SK_RETARGET_MAX_COORD)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                                "sk_retarget_pose: the root lands beyond %g units (source pose translations out of range)",
                                (double)SK_RETARGET_MAX_COORD);
    }
    /* Unmapped joints: fill or rest. */
    const sk_transform *base = fill ? fill->local : rt->dst_rest;
    if (out->local != base) memmove(out->local, base, (size_t)nt * sizeof(sk_transform));
    if (out->weight_count) {
        const float *w = fill && fill->weight_count ? fill->weights : rt->dst_rest_weights;
        if (out->weights != w) memmove(out->weights, w, (size_t)out->weight_count * sizeof(float));
    }
    for (uint32_t j = 0; j < nt; j++) {
        int32_t p = dst->parents[j], s = rt->src_of[j];
        if (s < 0) {
            sk_quat r = unit_any(out->local[j].r);
            qt[j] = p >= 0 ? skm_quat_mul(qt[p], r) : r;
            continue;
        }
        sk_quat m = skm_quat_unit(skm_quat_mul(skm_quat_mul(rt->frame, qs[s]), rt->post[j]));
        qt[j] = m;
        sk_quat l = p >= 0 ? skm_quat_mul(sk_quat_conjugate(qt[p]), m) : m;
        if (l.w < 0) l = skm_quat_neg(l);
        out->local[j].r = skm_quat_unit(l);
    }
    if (rt->dst_hips >= 0) {
        int32_t p = dst->parents[rt->dst_hips];
        if (p >= 0) { /* into the parent's frame: S^-1 R^-1 (want - T) */
            sk_transform pm = skr_model_transform(dst, out->local, p);
            sk_vec3 v = skm_quat_rotate(sk_quat_conjugate(pm.r), sk_vec3_sub(want, pm.t));
            want = sk_vec3_make(pm.s.x != 0 ? v.x / pm.s.x : 0, pm.s.y != 0 ? v.y / pm.s.y : 0, pm.s.z != 0 ? v.z / pm.s.z : 0);
        }
        /* A fill pose whose ancestors of the hips are extreme keeps its own root translation. */
        if (skm_vec3_finite(want)) out->local[rt->dst_hips].t = want;
    }
    return SK_OK;
}

float sk_retarget_root_scale(const sk_retarget *rt) { return rt ? rt->root_scale : 0.0f; }
int32_t sk_retarget_source_of(const sk_retarget *rt, uint32_t j) {
    return rt && j < rt->dst->joint_count ? rt->src_of[j] : -1;
}
const sk_humanoid_map *sk_retarget_map(const sk_retarget *rt, int which) {
    return rt && (which == 0 || which == 1) ? &rt->map[which] : NULL;
}
const sk_skeleton *sk_retarget_source(const sk_retarget *rt) { return rt ? rt->src : NULL; }
const sk_skeleton *sk_retarget_target(const sk_retarget *rt) { return rt ? rt->dst : NULL; }
sk_quat sk_retarget_frame_rotation(const sk_retarget *rt) { return rt ? rt->frame : sk_quat_identity(); }
