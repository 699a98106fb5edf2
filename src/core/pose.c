/* Poses, local-to-model (pose.h). */
#include "core/internal.h"
#include "skelanim/core/pose.h"

sk_result sk_pose_check(const sk_skeleton *s, const sk_pose *p, const char *who, sk_error *err) {
    if (!who) who = "pose";
    if (!s || !p) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: NULL skeleton or pose", who);
    if (p->joint_count != s->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: pose has %u joints, skeleton %u", who, p->joint_count,
                            s->joint_count);
    if (p->weight_count != 0 && p->weight_count != s->weight_total)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: pose has %u morph weights, skeleton %u", who,
                            p->weight_count, s->weight_total);
    if ((s->joint_count && !p->local) || (p->weight_count && !p->weights))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: pose arrays are NULL", who);
    return SK_OK;
}

sk_result sk_pose_alloc(const sk_skeleton *s, const sk_allocator *alloc, sk_pose *out, sk_error *err) {
    if (!s || !out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_pose_alloc: NULL argument");
    memset(out, 0, sizeof *out);
    sk_pose p = {0};
    p.joint_count = s->joint_count;
    p.weight_count = s->weight_total;
    p.local = sk_alloc(alloc, sizeof(sk_transform) * (p.joint_count ? p.joint_count : 1));
    p.weights = p.weight_count ? sk_alloc(alloc, sizeof(float) * p.weight_count) : NULL;
    if (!p.local || (p.weight_count && !p.weights)) {
        sk_pose_free(&p, alloc);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_pose_alloc: out of memory");
    }
    *out = p;
    return sk_pose_rest(s, out, err);
}

void sk_pose_free(sk_pose *p, const sk_allocator *alloc) {
    if (!p) return;
    sk_free(alloc, p->local, sizeof(sk_transform) * (p->joint_count ? p->joint_count : 1));
    sk_free(alloc, p->weights, sizeof(float) * p->weight_count);
    memset(p, 0, sizeof *p);
}

sk_result sk_pose_rest(const sk_skeleton *s, sk_pose *out, sk_error *err) {
    sk_result r = sk_pose_check(s, out, "sk_pose_rest", err);
    if (r != SK_OK) return r;
    if (s->joint_count) memcpy(out->local, s->rest, (size_t)s->joint_count * sizeof(sk_transform));
    if (out->weight_count) memcpy(out->weights, s->rest_weights, (size_t)s->weight_total * sizeof(float));
    return SK_OK;
}

static void l2m(const sk_skeleton *s, const sk_transform *local, const sk_mat4 *root, uint32_t from, uint32_t to,
                sk_mat4 *out_model) {
    /* Parents come before children (seed 000), so one forward pass suffices. */
    for (uint32_t i = from; i < to; i++) {
        sk_mat4 m = sk_mat4_from_transform(&local[i]);
        int32_t p = s->parents[i];
        if (p >= 0) out_model[i] = sk_mat4_mul(&out_model[p], &m);
        else if (root) out_model[i] = sk_mat4_mul(root, &m);
        else out_model[i] = m;
    }
}

sk_result sk_local_to_model(const sk_skeleton *s, const sk_pose *pose, const sk_mat4 *root, sk_mat4 *out_model,
                            uint32_t model_count, sk_error *err) {
    sk_result r = sk_pose_check(s, pose, "sk_local_to_model", err);
    if (r != SK_OK) return r;
    if (!out_model || model_count < s->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_local_to_model: room for %u matrices, skeleton has %u",
                            out_model ? model_count : 0, s->joint_count);
    l2m(s, pose->local, root, 0, s->joint_count, out_model);
    return SK_OK;
}

sk_result sk_local_to_model_range(const sk_skeleton *s, const sk_pose *pose, const sk_mat4 *root, uint32_t from,
                                  uint32_t to, sk_mat4 *io_model, uint32_t model_count, sk_error *err) {
    sk_result r = sk_pose_check(s, pose, "sk_local_to_model_range", err);
    if (r != SK_OK) return r;
    if (!io_model || model_count < s->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                            "sk_local_to_model_range: room for %u matrices, skeleton has %u",
                            io_model ? model_count : 0, s->joint_count);
    if (to == 0) to = s->joint_count;
    if (from > to || to > s->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_local_to_model_range: range [%u, %u) outside %u joints",
                            from, to, s->joint_count);
    l2m(s, pose->local, root, from, to, io_model);
    return SK_OK;
}
