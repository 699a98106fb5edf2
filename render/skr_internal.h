/* Private to the render library. */
#ifndef SKR_INTERNAL_H
#define SKR_INTERNAL_H

#include "skr.h"

/* A GL program from a vertex, an optional geometry (NULL: none) and a
 * fragment shader's source; 0 with err set (the compiler's or linker's log)
 * when it fails. A GL context must be current. */
unsigned skr_gl_program(const char *vs, const char *gs, const char *fs, sk_error *err);

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
    unsigned vao, cpu_vao, vbo, ebo;
    unsigned texture;         /* the model's (shared by items with the same texture), or 0 */
} skr_item;

struct skr_model {
    const sk_asset *asset;
    uint32_t item_count;
    skr_item *items;
    uint32_t palette_size;
    uint32_t vertex_count;
    bool has_morph;
    unsigned *textures;       /* per asset texture: GL texture or 0 */
    uint8_t *texture_state;   /* per asset texture: 1 once decoded (or found undecodable) */
};

struct skr_terrain {
    float *vertices;          /* triangle_count * 3 * 6 floats: position, normal */
    uint32_t triangle_count;
    unsigned vao, vbo;
};

/* An image's bytes decoded to RGBA8 (stb_image), or NULL; free with free(). */
unsigned char *skr_decode_image(const sk_image *img, int *w, int *h);
/* The GL texture of a material's base-colour texture (decoded and uploaded
 * on first use, shared after), or 0 when it has none or it cannot be decoded.
 * A GL context must be current. */
unsigned skr_material_texture(skr_model *m, int32_t material);

#endif
