#include "internal.h"

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

void sk_skin_palette(const sk_skin *skin, const sk_mat4 *model, sk_mat4 *out) {
    for (uint32_t i = 0; i < skin->joint_count; i++) out[i] = sk_mat4_mul(&model[skin->joints[i]], &skin->inverse_bind[i]);
}

bool sk_primitive_vertex_position(const sk_primitive *prim, uint32_t v, const float *weights, const sk_mat4 *palette,
                                  uint32_t palette_count, const sk_mat4 *node_world, sk_vec3 *out) {
    if (!prim || !out || v >= prim->vertex_count) return false;
    const float *p = prim->positions + (size_t)v * 3;
    sk_vec3 pos = sk_vec3_make(p[0], p[1], p[2]);
    /* Morph targets first (glTF 2.0 §3.7.2.2): pos + sum_i w_i * delta_i. */
    if (weights) {
        for (uint32_t i = 0; i < prim->target_count; i++) {
            const float *d = prim->targets[i].positions;
            if (!d || weights[i] == 0.0f) continue;
            d += (size_t)v * 3;
            pos = sk_vec3_add(pos, sk_vec3_scale(sk_vec3_make(d[0], d[1], d[2]), weights[i]));
        }
    }
    if (palette && prim->influence_count) {
        const uint16_t *j = prim->joints + (size_t)v * prim->influence_count;
        const float *w = prim->weights + (size_t)v * prim->influence_count;
        float sum = 0.0f;
        for (uint32_t i = 0; i < prim->influence_count; i++) sum += w[i];
        sk_vec3 acc = {0, 0, 0};
        if (!(sum > 0.0f)) {
            if (j[0] >= palette_count) return false;
            acc = sk_mat4_transform_point(&palette[j[0]], pos);
        } else {
            for (uint32_t i = 0; i < prim->influence_count; i++) {
                if (w[i] == 0.0f) continue;
                if (j[i] >= palette_count) return false;
                acc = sk_vec3_add(acc, sk_vec3_scale(sk_mat4_transform_point(&palette[j[i]], pos), w[i] / sum));
            }
        }
        *out = acc;
        return true;
    }
    *out = node_world ? sk_mat4_transform_point(node_world, pos) : pos;
    return true;
}
