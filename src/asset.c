#include "internal.h"

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
