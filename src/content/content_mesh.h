/* Private to the content layer: building a skinned mesh in code, shared by
 * the sprite (sprite.c) and the creatures (creature.c): a primitive's
 * arrays allocated from the asset, filled by the caller's emitter, and the
 * primitive made of them (triangles, four influences per vertex, one
 * colour, no material). */
#ifndef SKELANIM_CONTENT_MESH_H
#define SKELANIM_CONTENT_MESH_H

#include "skelanim/core/asset.h"

typedef struct content_mesh_out {
    float *pos, *nrm, *wts;
    uint16_t *jnt;
    uint32_t *idx;
    uint32_t nv, ni; /* written so far */
} content_mesh_out;

/* Room for nv vertices and ni indices from the asset; false when out of memory. */
static inline bool content_mesh_alloc(sk_asset *a, size_t nv, size_t ni, content_mesh_out *o) {
    content_mesh_out m = {sk_asset_alloc(a, nv * 3 * sizeof(float)), sk_asset_alloc(a, nv * 3 * sizeof(float)),
                          sk_asset_alloc(a, nv * 4 * sizeof(float)), sk_asset_alloc(a, nv * 4 * sizeof(uint16_t)),
                          sk_asset_alloc(a, ni * sizeof(uint32_t)), 0, 0};
    *o = m;
    return m.pos && m.nrm && m.wts && m.jnt && m.idx;
}

/* The primitive of what was written, coloured rgb. */
static inline void content_primitive(sk_primitive *pr, const content_mesh_out *o, const float rgb[3]) {
    pr->mode = 4;
    pr->vertex_count = o->nv;
    pr->positions = o->pos, pr->normals = o->nrm;
    pr->influence_count = 4, pr->joints = o->jnt, pr->weights = o->wts;
    pr->index_count = o->ni, pr->indices = o->idx;
    pr->material = -1;
    for (int c = 0; c < 3; c++) pr->base_color[c] = rgb[c];
    pr->base_color[3] = 1.0f;
}

#endif
