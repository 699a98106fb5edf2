/* skelanim — sk_asset: what an importer produces (and what the .glb writer
 * consumes): one skeleton holding every node of the file in parent-before-child
 * order, the mapping to the file's node indices, skins, meshes, clips, scenes,
 * and what the file says about looks (images, samplers, textures, materials).
 * The struct is read-only for users; all memory is owned by the asset and
 * released by sk_asset_destroy. */
#ifndef SKELANIM_ASSET_H
#define SKELANIM_ASSET_H

#include "skelanim/core/clip.h"
#include "skelanim/core/pose.h"
#include "skelanim/core/palette.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_morph_target {
    const float *positions;   /* vertex_count * 3 deltas, or NULL */
    const float *normals;     /* vertex_count * 3 deltas, or NULL */
    const float *tangents;    /* vertex_count * 3 deltas, or NULL */
} sk_morph_target;

typedef struct sk_primitive {
    uint32_t mode;            /* glTF topology: 4 = triangles (the default) */
    uint32_t vertex_count;
    const float *positions;   /* vertex_count * 3 (bind pose, mesh-local) */
    const float *normals;     /* vertex_count * 3, or NULL */
    const float *tangents;    /* vertex_count * 4 (w = handedness), or NULL */
    const float *texcoords;   /* vertex_count * 2 (TEXCOORD_0), or NULL */
    /* Skinning influences: 0 (not skinned), 4 (JOINTS_0) or 8 (JOINTS_0/1).
     * joints index the skin's joint list; weights are as stored in the file
     * (normalised integers converted to floats), not renormalised. */
    uint32_t influence_count;
    const uint16_t *joints;   /* vertex_count * influence_count */
    const float *weights;     /* vertex_count * influence_count */
    uint32_t index_count;
    const uint32_t *indices;  /* index_count, or NULL for non-indexed geometry */
    uint32_t target_count;
    const sk_morph_target *targets;
    /* Index into asset->materials, or -1. Assets built in code may name a
     * material with no material table (material_count 0): base_color then
     * says how the primitive looks, and the .glb writer makes a material of it. */
    int32_t material;
    float base_color[4];      /* the material's base_color (1,1,1,1 without one) */
    /* NULL, or why this primitive's vertex data is not in the file: an
     * accessor it reads lies in a buffer with no data (a buffer without uri in
     * a .gltf, or in a .glb other than buffer 0 — only that one can be the
     * BIN chunk — or at a URL the loader does not fetch). glTF allows such files
     * (the Khronos validator accepts them) and the rest of the asset is
     * usable, so the primitive is loaded empty: vertex_count and index_count
     * are 0, every array is NULL, target_count is kept (with NULL arrays) so
     * morph weights still match. This holds whether or not a node uses the
     * mesh: skeleton, skins and clips do not depend on it; a renderer draws
     * nothing for it (skelanim info and render say why). */
    const char *missing_data;
} sk_primitive;

typedef struct sk_mesh {
    const char *name;
    uint32_t primitive_count;
    const sk_primitive *primitives;
    uint32_t weight_count;       /* morph targets (same for every primitive) */
    const float *default_weights;/* weight_count, or NULL (zeros) */
} sk_mesh;

/* ---- Looks (glTF 2.0 §3.8 Materials, §3.9 Textures, Images, Samplers) ---- */

typedef struct sk_image {
    const char *name;         /* "" if none */
    const char *mime_type;    /* as the file declares it ("image/png", "image/jpeg", ..., or a data:
                                 URI's media type), "" when it does not */
    const char *uri;          /* an external image's uri as written in the file (percent-encoded),
                                 "" for images inside the file (bufferView or data: URI) */
    const uint8_t *data;      /* the encoded image (PNG, JPEG, ... as stored; never decoded by the
                                 library), or NULL when not loaded: a URL that is not fetched, a
                                 buffer with no data, or sk_gltf_options.skip_image_data */
    size_t size;              /* bytes at data */
} sk_image;

typedef struct sk_sampler {
    const char *name;
    uint32_t mag_filter;      /* GL enum: 9728 NEAREST, 9729 LINEAR; 0 = unspecified */
    uint32_t min_filter;      /* GL enum: 9728, 9729, 9984..9987 (mipmapped); 0 = unspecified */
    uint32_t wrap_s, wrap_t;  /* GL enum: 33071 CLAMP_TO_EDGE, 33648 MIRRORED_REPEAT, 10497 REPEAT */
} sk_sampler;

typedef struct sk_texture {
    const char *name;
    int32_t image;            /* index into asset->images, or -1 (the source is only in an extension) */
    int32_t sampler;          /* index into asset->samplers, or -1: repeat, filtering up to the renderer */
} sk_texture;

typedef struct sk_texture_ref {
    int32_t texture;          /* index into asset->textures, or -1: none */
    uint32_t texcoord;        /* the TEXCOORD_n set it is mapped with (primitives carry TEXCOORD_0) */
} sk_texture_ref;

typedef enum sk_alpha_mode {
    SK_ALPHA_OPAQUE = 0,      /* alpha ignored */
    SK_ALPHA_MASK = 1,        /* alpha < alpha_cutoff: not drawn */
    SK_ALPHA_BLEND = 2        /* alpha blended */
} sk_alpha_mode;

/* The metallic-roughness material as far as this library carries it. Not
 * kept: normal, occlusion, emissive and metallic-roughness textures, emissive
 * factor, extensions. */
typedef struct sk_material {
    const char *name;
    float base_color[4];      /* baseColorFactor, linear RGBA (default 1, 1, 1, 1) */
    sk_texture_ref base_color_texture; /* sRGB, multiplied by base_color */
    float metallic;           /* metallicFactor (default 1) */
    float roughness;          /* roughnessFactor (default 1) */
    sk_alpha_mode alpha_mode;
    float alpha_cutoff;       /* MASK threshold (default 0.5) */
    bool double_sided;
} sk_material;

typedef struct sk_scene {
    const char *name;
    uint32_t root_count;
    const uint32_t *roots;       /* joint indices */
} sk_scene;

typedef struct sk_asset {
    sk_skeleton *skeleton;       /* every node of the file, parent-before-child */
    uint32_t node_count;         /* == skeleton->joint_count */
    const uint32_t *node_to_joint;/* file node index -> joint index */
    const uint32_t *joint_to_node;/* joint index -> file node index */
    const int32_t *joint_mesh;   /* per joint: mesh index or -1 */
    const int32_t *joint_skin;   /* per joint: skin index or -1 */
    uint32_t mesh_count;
    const sk_mesh *meshes;
    uint32_t skin_count;
    const sk_skin *skins;
    uint32_t clip_count;
    sk_clip *const *clips;       /* owned by the asset */
    uint32_t scene_count;
    const sk_scene *scenes;
    uint32_t material_count;
    const sk_material *materials;
    uint32_t texture_count;
    const sk_texture *textures;
    uint32_t sampler_count;
    const sk_sampler *samplers;
    uint32_t image_count;
    const sk_image *images;
    int32_t default_scene;       /* -1 when the file names none and has none */
    const char *generator;       /* asset.generator or "" */
    void *internal;              /* private */
} sk_asset;

/* Frees the asset and everything it owns (NULL: nothing happens). */
SK_API void sk_asset_destroy(sk_asset *asset);

/* Index of the clip with this name, or -1. */
SK_API int32_t sk_asset_find_clip(const sk_asset *asset, const char *name);

/* Checks an asset's internal consistency — what a reader guarantees and an
 * asset built in code must too: node mapping (inverse permutations), mesh and
 * skin indices per joint, skin joints in range, finite inverse binds,
 * primitives (index and joint indices in range, influence count 0/4/8, arrays
 * present for their counts, finite positions and weights, morph targets
 * matching the mesh's weights, material index), scene roots, clips that fit
 * the skeleton (joint indices, morph-weight widths), and looks (texture,
 * image and sampler indices in range, images' data present for their size). SK_OK, or SK_ERR_INVALID_DATA with a
 * message naming the first problem ("meshes/0/primitives/1: index 812 >=
 * vertex count 800"). The .glb writer and the renderer call it first. */
SK_API sk_result sk_asset_validate(const sk_asset *asset, sk_error *err);

/* Position of vertex v of a primitive after morph targets (weights: the
 * mesh's morph weights, NULL = rest/zero) and, if palette is non-NULL,
 * linear blend skinning with that palette (weights of the vertex renormalised
 * to sum 1; an all-zero vertex uses joint 0). If palette is NULL the result is
 * transformed by node_world (NULL = identity). Returns false if v is out of range. */
SK_API bool sk_primitive_vertex_position(const sk_primitive *prim, uint32_t v, const float *weights,
                                         const sk_mat4 *palette, uint32_t palette_count,
                                         const sk_mat4 *node_world, sk_vec3 *out);

/* ---- Building an asset in code (importers, the mannequin) ------------------ */
/* Creates an empty asset whose memory comes from alloc (copied). */
SK_API sk_result sk_asset_create_empty(const sk_allocator *alloc, sk_asset **out, sk_error *err);
/* Zero-filled memory owned by the asset, freed by sk_asset_destroy; NULL on OOM. */
SK_API void *sk_asset_alloc(sk_asset *asset, size_t size);
SK_API char *sk_asset_strdup(sk_asset *asset, const char *s); /* NULL s gives "" */
/* The allocator the asset's memory comes from. */
SK_API const sk_allocator *sk_asset_allocator(const sk_asset *asset);

#ifdef __cplusplus
}
#endif
#endif
