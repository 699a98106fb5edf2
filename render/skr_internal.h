/* Private to the render library. */
#ifndef SKR_INTERNAL_H
#define SKR_INTERNAL_H

#include "skr.h"

typedef struct skr_item {
    uint32_t joint;           /* mesh node */
    int32_t skin;             /* skin index or -1 (rigid: palette = the node's world matrix) */
    uint32_t palette_offset;  /* inside one instance's palette */
    uint32_t palette_count;
    uint32_t vertex_count, index_count;
    uint32_t cpu_first;       /* first vertex in the CPU-skinned instance block */
    const sk_primitive *prim;
    sk_skinned_mesh *skinned;
    float base_color[4];
    unsigned vao, cpu_vao, vbo, ebo, texture;
} skr_item;

struct skr_model {
    const sk_asset *asset;
    uint32_t item_count;
    skr_item *items;
    uint32_t palette_size;
    uint32_t vertex_count;
    bool has_morph;
};

/* RGBA8 base-colour texture of a glTF material (NULL if none or unreadable);
 * free with free(). */
unsigned char *skr_load_base_color_texture(const char *file_path, int32_t material, int *w, int *h);

#endif
