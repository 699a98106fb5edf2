/* skelanim — CPU skinning: linear blend skinning (LBS) and dual quaternion
 * skinning (DQS) of positions, normals and tangents, 4 or 8 influences per
 * vertex, morph targets applied before skinning.
 *
 * Two steps:
 *  1. sk_skinned_mesh_create (once per primitive, allocates): copies the
 *     primitive into packed streams ready for the kernels and renormalises
 *     each vertex's weights so they sum to 1 (the asset stores them as the
 *     file had them). A vertex whose weights are all zero (or not finite) is
 *     bound rigidly to the first joint it lists, as three.js does. Influences
 *     are sorted by weight and zero weights dropped, and the vertices are
 *     grouped by how many influences remain (1, 2, 3, 4, 5-8), so a vertex
 *     costs what it uses. On x86-64, runs of up to eight consecutive
 *     vertices that share a few joints (a limb's vertices) are also kept as
 *     blocks, which the AVX2 and AVX-512 kernels skin eight at a time
 *     (docs/performance.md, "Skinning"); this costs 10-25 bytes per vertex
 *     more.
 *  2. sk_skin_run (every frame, allocates nothing): skins into caller-owned
 *     arrays with the palette from sk_skin_palette (LBS) or the dual
 *     quaternions from sk_skin_dual_quats (DQS). Each influence group is
 *     skinned by a kernel for its count; positions, normals and tangents in
 *     one pass; the outputs are in the primitive's vertex order. With LBS,
 *     at a given SIMD level, a vertex gets the same bits from every call
 *     asking for the same outputs, whatever its range and strides. An
 *     infinite or NaN palette element reaches only the vertices whose joints
 *     carry it.
 *
 * Kernels: a scalar reference (vertex by vertex in the original order),
 * SSE2 (the x86-64 baseline), AVX2+FMA and AVX-512 (F + VL), the best the
 * CPU has chosen at run time (SK_SIMD_AUTO). All agree within 1e-5
 * (relative to the coordinates' magnitude). Nothing here keeps global
 * state: the choice is made per call.
 *
 * Conventions: positions come out in the palette's space (for sk_skin_palette:
 * scene space, the skinned mesh node's transform not applied, as glTF says).
 * Normals and tangents are transformed by the blended matrix's upper 3x3 and
 * renormalised (exact for rotation + uniform scale, the usual skinning
 * assumption; non-uniform joint scale bends normals slightly). Tangent w (the
 * bitangent sign) is copied. */
#ifndef SKELANIM_SKIN_H
#define SKELANIM_SKIN_H

#include "skelanim/core/asset.h"
#include "skelanim/core/simd.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sk_skin_method {
    SK_SKIN_LBS = 0, /* linear blend: sum of w_i * palette[j_i] */
    SK_SKIN_DQS = 1  /* dual quaternion: volume-preserving; rigid joints only */
} sk_skin_method;

/* A unit dual quaternion: real part = rotation, dual = 0.5 * (t,0) * real. */
typedef struct sk_dual_quat {
    sk_quat real;
    sk_quat dual;
} sk_dual_quat;

/* Converts count palette matrices to dual quaternions for DQS. Dual quaternions
 * carry rotation and translation only: a matrix with scale (any column length
 * off 1 by more than 1e-3), shear or a reflection is refused with
 * SK_ERR_UNSUPPORTED and a message naming the palette entry and its scale —
 * skin such a character with SK_SKIN_LBS. out holds count entries. */
SK_API sk_result sk_skin_dual_quats(const sk_mat4 *palette, uint32_t count, sk_dual_quat *out, sk_error *err);

typedef struct sk_skinned_mesh sk_skinned_mesh;

/* Prepares a primitive for sk_skin. The primitive need not be skinned (then
 * every vertex follows palette entry 0, i.e. pass the node's world matrix as
 * a one-entry palette). The mesh copies what it needs; prim may be freed. */
SK_API sk_result sk_skinned_mesh_create(const sk_primitive *prim, const sk_allocator *alloc,
                                        sk_skinned_mesh **out, sk_error *err);
/* Frees the mesh (NULL: nothing happens). */
SK_API void sk_skinned_mesh_destroy(sk_skinned_mesh *mesh);

/* Number of vertices. */
SK_API uint32_t sk_skinned_mesh_vertex_count(const sk_skinned_mesh *mesh);
/* 4 or 8 (1 for an unskinned primitive). */
SK_API uint32_t sk_skinned_mesh_influence_count(const sk_skinned_mesh *mesh);
/* Palette entries the mesh reads: largest joint index + 1. */
SK_API uint32_t sk_skinned_mesh_palette_size(const sk_skinned_mesh *mesh);
/* Number of morph targets. */
SK_API uint32_t sk_skinned_mesh_target_count(const sk_skinned_mesh *mesh);
/* True when the mesh has normals to skin. */
SK_API bool sk_skinned_mesh_has_normals(const sk_skinned_mesh *mesh);
/* True when the mesh has tangents to skin. */
SK_API bool sk_skinned_mesh_has_tangents(const sk_skinned_mesh *mesh);
/* Renormalised influences of vertex v (up to 8; unused slots get joint 0 and
 * weight 0); returns how many are non-zero, 0 if v is out of range. */
SK_API uint32_t sk_skinned_mesh_vertex_influences(const sk_skinned_mesh *mesh, uint32_t v, uint16_t joints[8],
                                                  float weights[8]);

typedef struct sk_skin_job {
    const sk_skinned_mesh *mesh;
    sk_skin_method method;
    sk_simd simd;                     /* SK_SIMD_AUTO (0) picks the best */
    const sk_mat4 *palette;           /* LBS: palette_count matrices */
    const sk_dual_quat *dual_quats;   /* DQS: palette_count entries (sk_skin_dual_quats) */
    uint32_t palette_count;           /* must be >= sk_skinned_mesh_palette_size */
    const float *morph_weights;       /* target_count weights, or NULL: no morphing */
    uint32_t first_vertex, vertex_count; /* range to skin; count 0 = to the end */
    /* Outputs, caller-owned, indexed by vertex (first_vertex lands at index 0).
     * Any may be NULL to skip it. Strides in floats; 0 = packed (3, 3, 4). */
    float *out_positions;
    float *out_normals;               /* needs normals in the mesh */
    float *out_tangents;              /* xyzw; needs tangents in the mesh */
    uint32_t position_stride, normal_stride, tangent_stride;
} sk_skin_job;

/* Runs a skinning job. Fails (SK_ERR_INVALID_ARGUMENT) on a NULL mesh, a
 * palette too small for the mesh, a missing palette for the chosen method, an
 * output the mesh has no data for, or a range past the end. */
SK_API sk_result sk_skin_run(const sk_skin_job *job, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
