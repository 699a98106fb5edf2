/* skelanim — sk_asset: what an importer produces (and what the .glb writer
 * consumes): one skeleton holding every node of the file in parent-before-child
 * order, the mapping to the file's node indices, skins, meshes, clips, scenes.
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
    int32_t material;         /* glTF material index or -1 */
    float base_color[4];      /* material baseColorFactor (1,1,1,1 if none) */
} sk_primitive;

typedef struct sk_mesh {
    const char *name;
    uint32_t primitive_count;
    const sk_primitive *primitives;
    uint32_t weight_count;       /* morph targets (same for every primitive) */
    const float *default_weights;/* weight_count, or NULL (zeros) */
} sk_mesh;

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
    int32_t default_scene;       /* -1 when the file names none and has none */
    const char *generator;       /* asset.generator or "" */
    void *internal;              /* private */
} sk_asset;

void sk_asset_destroy(sk_asset *asset);

/* Index of the clip with this name, or -1. */
int32_t sk_asset_find_clip(const sk_asset *asset, const char *name);

/* Checks an asset's internal consistency — what a reader guarantees and an
 * asset built in code must too: node mapping (inverse permutations), mesh and
 * skin indices per joint, skin joints in range, finite inverse binds,
 * primitives (index and joint indices in range, influence count 0/4/8, arrays
 * present for their counts, finite positions and weights, morph targets
 * matching the mesh's weights), scene roots, and clips that fit the skeleton
 * (joint indices, morph-weight widths). SK_OK, or SK_ERR_INVALID_DATA with a
 * message naming the first problem ("meshes/0/primitives/1: index 812 >=
 * vertex count 800"). The .glb writer and the renderer call it first. */
sk_result sk_asset_validate(const sk_asset *asset, sk_error *err);

/* Position of vertex v of a primitive after morph targets (weights: the
 * mesh's morph weights, NULL = rest/zero) and, if palette is non-NULL,
 * linear blend skinning with that palette (weights of the vertex renormalised
 * to sum 1; an all-zero vertex uses joint 0). If palette is NULL the result is
 * transformed by node_world (NULL = identity). Returns false if v is out of range. */
bool sk_primitive_vertex_position(const sk_primitive *prim, uint32_t v, const float *weights,
                                  const sk_mat4 *palette, uint32_t palette_count,
                                  const sk_mat4 *node_world, sk_vec3 *out);

/* ---- Building an asset in code (importers, the mannequin) ------------------ */
/* Creates an empty asset whose memory comes from alloc (copied). */
sk_result sk_asset_create_empty(const sk_allocator *alloc, sk_asset **out, sk_error *err);
/* Zero-filled memory owned by the asset, freed by sk_asset_destroy; NULL on OOM. */
void *sk_asset_alloc(sk_asset *asset, size_t size);
char *sk_asset_strdup(sk_asset *asset, const char *s); /* NULL s gives "" */
const sk_allocator *sk_asset_allocator(const sk_asset *asset);

#ifdef __cplusplus
}
#endif
#endif
