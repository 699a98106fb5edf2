#include "core/internal.h"
#include "skelanim/core/pose.h"

void sk_pose_rest(const sk_skeleton *s, sk_transform *out_local, float *out_weights) {
    memcpy(out_local, s->rest, (size_t)s->joint_count * sizeof(sk_transform));
    if (out_weights && s->weight_total) memcpy(out_weights, s->rest_weights, (size_t)s->weight_total * sizeof(float));
}

void sk_local_to_model(const sk_skeleton *s, const sk_transform *local, const sk_mat4 *root, sk_mat4 *out_model) {
    /* Parents come before children (seed 000), so one forward pass suffices. */
    for (uint32_t i = 0; i < s->joint_count; i++) {
        sk_mat4 m = sk_mat4_from_transform(&local[i]);
        int32_t p = s->parents[i];
        if (p >= 0) out_model[i] = sk_mat4_mul(&out_model[p], &m);
        else if (root) out_model[i] = sk_mat4_mul(root, &m);
        else out_model[i] = m;
    }
}
