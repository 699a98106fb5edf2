#include "core/internal.h"
#include "skelanim/core/asset.h"

sk_result sk_asset_create_empty(const sk_allocator *alloc, sk_asset **out, sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_asset_create_empty: out is NULL");
    *out = NULL;
    const sk_allocator *a = sk_allocator_or_default(alloc);
    sk_asset *asset = sk_alloc(a, sizeof(sk_asset) + sizeof(sk_asset_internal));
    if (!asset) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    sk_asset_internal *in = (sk_asset_internal *)(asset + 1);
    sk_arena_init(&in->arena, a);
    asset->internal = in;
    asset->default_scene = -1;
    asset->generator = "";
    *out = asset;
    return SK_OK;
}

void *sk_asset_alloc(sk_asset *asset, size_t size) {
    sk_asset_internal *in = asset->internal;
    return sk_arena_alloc(&in->arena, size);
}

char *sk_asset_strdup(sk_asset *asset, const char *s) {
    sk_asset_internal *in = asset->internal;
    return sk_arena_strdup(&in->arena, s);
}

const sk_allocator *sk_asset_allocator(const sk_asset *asset) {
    const sk_asset_internal *in = asset->internal;
    return &in->arena.alloc;
}

void sk_asset_destroy(sk_asset *asset) {
    if (!asset) return;
    sk_asset_internal *in = asset->internal;
    sk_allocator a = in->arena.alloc;
    for (uint32_t i = 0; i < asset->clip_count; i++) sk_clip_destroy(asset->clips[i]);
    sk_skeleton_destroy(asset->skeleton);
    sk_arena_release(&in->arena);
    sk_free(&a, asset, sizeof(sk_asset) + sizeof(sk_asset_internal));
}

int32_t sk_asset_find_clip(const sk_asset *asset, const char *name) {
    if (!asset || !name) return -1;
    for (uint32_t i = 0; i < asset->clip_count; i++)
        if (strcmp(sk_clip_name(asset->clips[i]), name) == 0) return (int32_t)i;
    return -1;
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
