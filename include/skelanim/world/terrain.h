/* skelanim — terrain: the ground of the world, as a ray-cast query. The
 * world layer (src/world/: terrain.c, the built-in terrains; terrain_mesh.c,
 * triangle meshes) uses only core; locomotion (foot placement), the
 * renderer and the tool read the ground through it.
 *
 * World space, metres, +Y up (glTF). A terrain is a surface, not a solid: a
 * ray hits the first point of the surface along it, from either side, and the
 * hit's normal is the unit surface normal turned to face the side the ray
 * came from (dot(normal, direction) <= 0; a ray from above gets the upward
 * normal). Built-in terrains (flat, ramp, stairs, bumps, ledge) are height
 * fields extruded from analytic profiles and need no allocation: their
 * parameters live in a caller-owned sk_terrain_shape. Triangle meshes (from
 * an sk_asset or a raw triangle array) are allocated through an sk_allocator
 * and carry a uniform grid over their triangles.
 *
 * Ray casts and height bounds allocate nothing, keep no state and may run
 * from several threads at once on the same terrain. A terrain's parameters and a mesh must outlive
 * every sk_terrain made from them. */
#ifndef SKELANIM_WORLD_TERRAIN_H
#define SKELANIM_WORLD_TERRAIN_H

#include "skelanim/core/asset.h"
#include "skelanim/core/math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a ray met the terrain. */
typedef struct sk_terrain_hit {
    sk_vec3 point;     /* origin + distance * direction */
    sk_vec3 normal;    /* unit, facing the ray's origin (dot(normal, direction) <= 0) */
    float distance;    /* along the ray, metres, 0 <= distance <= max_distance */
} sk_terrain_hit;

/* The terrain interface: casts a ray from origin along direction (unit length)
 * up to max_distance (>= 0; +INFINITY: no limit) and returns true with the
 * nearest hit in *out, or false (no hit, *out untouched). Called only through
 * sk_terrain_raycast, which has checked the arguments. Your own terrain is one
 * such function and its user pointer. */
typedef bool (*sk_terrain_raycast_fn)(void *user, sk_vec3 origin, sk_vec3 direction, float max_distance,
                                      sk_terrain_hit *out);

typedef struct sk_terrain {
    sk_terrain_raycast_fn raycast;
    void *user;
} sk_terrain;

/* Casts a ray. The direction need not be unit: it is normalised (distances are
 * along the unit direction; one within 1e-6 of unit length is used as given). No hit (false) for a NULL terrain or callback, a
 * non-finite origin or direction, a zero direction, a NaN or negative
 * max_distance; never a crash or an endless loop. out may be NULL. */
SK_API bool sk_terrain_raycast(const sk_terrain *terrain, sk_vec3 origin, sk_vec3 direction, float max_distance,
                               sk_terrain_hit *out);

/* The ground below (x, z): a ray cast straight down from height y_from over at
 * most max_drop metres (y_from - max_drop is the lowest height found). The
 * height is out->point.y. Choose y_from a little above where the ground can be
 * (a hip, a foot plus a step height): distances are float, so a ray from
 * 10 km above loses millimetres. */
SK_API bool sk_terrain_height(const sk_terrain *terrain, float x, float z, float y_from, float max_drop, sk_terrain_hit *out);

/* A cheap upper bound on the ground under (x, z), where the terrain has one:
 * for a triangle mesh's terrain (sk_terrain_mesh_terrain), the highest vertex
 * of the triangles in (x, z)'s grid cell, plus a margin for the hits'
 * rounding (-infinity where no triangle is: off the mesh, an empty cell).
 * No vertical ray at (x, z) hits above *y_max (metres, the terrain's units;
 * y_max is the caller's). True and *y_max set; false
 * (nothing written) for every other terrain (the built-in analytic ones, a
 * caller's callback), a NULL argument or a non-finite x or z: cast a ray. */
SK_API bool sk_terrain_height_bound(const sk_terrain *terrain, float x, float z, float *y_max);

/* ---- Built-in terrains (no allocation) ----------------------------------- *
 * Each fills a caller-owned sk_terrain_shape (which must outlive the terrain)
 * and returns the sk_terrain that reads it. Options may be NULL or zeroed:
 * every zero field has the default its comment gives. Directions are
 * horizontal (their y is ignored) and need not be unit; zero means +Z (the way
 * a glTF character faces). "Along" is s = dot(p - start, direction) for a
 * point p: the signed horizontal distance from the start line, which runs
 * through start perpendicular to the direction. SK_ERR_INVALID_ARGUMENT for
 * non-finite or out-of-range options. */

/* Parameters of a built-in terrain; read it through the sk_terrain only. */
typedef struct sk_terrain_shape {
    uint32_t kind;
    double base;            /* height before the start line (flat: the height) */
    double start_x, start_z;/* a point on the start line */
    double dir_x, dir_z;    /* unit horizontal direction */
    double p[8];            /* kind's parameters */
    double wave[6][4];      /* bumps: kx, kz, phase, weight */
} sk_terrain_shape;

/* The plane y = height. */
SK_API sk_terrain sk_terrain_flat(sk_terrain_shape *storage, float height);

typedef struct sk_terrain_ramp_options {
    float angle;          /* radians, |angle| < pi/2; negative descends; 0: flat */
    sk_vec3 start;        /* on the start line; start.y is the height before it */
    sk_vec3 direction;    /* the ramp rises along it (0: +Z) */
    float length;         /* horizontal length of the slope; 0: endless. Beyond
                             it the ground is flat at the top */
} sk_terrain_ramp_options;
/* Flat at start.y for s < 0; start.y + tan(angle) s on 0 <= s <= length; flat
 * at the top after. On the slope the upward normal is
 * -sin(angle) direction + cos(angle) up. */
SK_API sk_result sk_terrain_ramp(sk_terrain_shape *storage, const sk_terrain_ramp_options *opt, sk_terrain *out,
                                 sk_error *err);

typedef struct sk_terrain_stairs_options {
    float rise;           /* metres per step (0: 0.17); negative: stairs down */
    float run;            /* tread depth, metres, > 0 (0: 0.28) */
    sk_vec3 start;        /* the first riser's line; start.y is the floor before it */
    sk_vec3 direction;    /* the stairs climb along it (0: +Z) */
    uint32_t count;       /* risers; 0: endless. The last tread goes on for ever */
} sk_terrain_stairs_options;
/* Vertical risers at s = k run (k = 0 .. count-1), each raising the ground by
 * rise; flat treads between them: for k run <= s < (k+1) run the ground is at
 * start.y + (k+1) rise (the last one extends to infinity), and start.y for
 * s < 0. A ray meets a riser face (normal -direction, or +direction from the
 * other side) or a tread (normal +Y) exactly; a ray that passes exactly over
 * a tread's front edge touches it. */
SK_API sk_result sk_terrain_stairs(sk_terrain_shape *storage, const sk_terrain_stairs_options *opt, sk_terrain *out,
                                   sk_error *err);

typedef struct sk_terrain_bumps_options {
    float amplitude;      /* metres (0: 0.1): the ground stays within base +- amplitude */
    float wavelength;     /* metres (0: 2): of the main component */
    uint32_t seed;        /* the same seed gives the same ground */
    float base;           /* mean height */
} sk_terrain_bumps_options;
/* A smooth height field, base + amplitude * sum_i w_i sin(k_i . (x, z) + phi_i)
 * over 6 components (sum |w_i| = 1) whose directions, wavelengths (0.5 to 1
 * times wavelength) and phases come from the seed; the normal is analytic:
 * normalize(-dh/dx, 1, -dh/dz). Vertical rays take one evaluation; other
 * rays step with a bound on the height field's curvature, so no crossing is
 * ever stepped over (the hit is within 1e-10 m of the surface vertically); a
 * ray still skimming the surface after 4096 steps reports no hit. */
SK_API sk_result sk_terrain_bumps(sk_terrain_shape *storage, const sk_terrain_bumps_options *opt, sk_terrain *out,
                                  sk_error *err);
/* The bumps' height at (x, z) and the upward unit normal there (may be NULL),
 * in closed form: for tests and rendering. storage as filled by sk_terrain_bumps. */
SK_API float sk_terrain_bumps_height(const sk_terrain_shape *storage, float x, float z, sk_vec3 *normal);

typedef struct sk_terrain_ledge_options {
    float height;         /* of the ledge above the floor, metres, > 0 (0: 1) */
    float floor;          /* height of the ground below the edge */
    sk_vec3 edge;         /* a point on the edge line (its y is ignored) */
    sk_vec3 direction;    /* from the ledge over the edge (0: +Z) */
} sk_terrain_ledge_options;
/* Flat at floor + height for s < 0 (the ledge), a vertical face at s = 0
 * (normal +direction towards the drop), flat at floor for s >= 0. */
SK_API sk_result sk_terrain_ledge(sk_terrain_shape *storage, const sk_terrain_ledge_options *opt, sk_terrain *out,
                                  sk_error *err);

/* ---- Triangle meshes ------------------------------------------------------ */
typedef struct sk_terrain_mesh sk_terrain_mesh;

typedef struct sk_terrain_mesh_options {
    /* Average triangles per grid cell the grid aims at (0: 2). */
    float triangles_per_cell;
    /* Upper bound on grid cells (0: 1 << 22). */
    uint32_t max_cells;
} sk_terrain_mesh_options;

typedef struct sk_terrain_mesh_info {
    uint32_t triangle_count;   /* triangles kept */
    uint32_t degenerate_count; /* zero-area triangles dropped */
    sk_vec3 min, max;          /* bounds of the kept triangles (zeros when none) */
    uint32_t cells_x, cells_z; /* the grid over x and z */
    uint64_t references;       /* triangle references in the grid's cells */
    size_t bytes;              /* memory held */
} sk_terrain_mesh_info;

/* A mesh of triangles in world space: positions holds vertex_count xyz
 * triples; with indices, triangle i is indices[3i..3i+2]; without (NULL),
 * triangle i is vertices 3i, 3i+1, 3i+2. Triangles are two-sided. Zero-area
 * triangles are dropped (counted in the info); an index out of range or a
 * non-finite position used by a triangle is SK_ERR_INVALID_ARGUMENT. 0
 * triangles is a valid mesh that nothing hits. Everything is copied. */
SK_API sk_result sk_terrain_mesh_create(const float *positions, uint32_t vertex_count, const uint32_t *indices,
                                        uint32_t triangle_count, const sk_terrain_mesh_options *opt,
                                        const sk_allocator *alloc, sk_terrain_mesh **out, sk_error *err);

/* Every mesh of the asset's default scene (every node when it names none) in
 * world space: the rest pose through sk_local_to_model; skinned primitives by
 * their rest-pose palette (glTF ignores a skinned mesh node's transform),
 * morph targets at the mesh's default weights. Triangle primitives only (mode
 * 4, indexed or not); primitives with missing_data and other modes are
 * skipped (counted in *skipped_primitives when it is not NULL). The asset is
 * checked with sk_asset_validate first and may be destroyed afterwards. */
SK_API sk_result sk_terrain_mesh_from_asset(const sk_asset *asset, const sk_terrain_mesh_options *opt,
                                            const sk_allocator *alloc, sk_terrain_mesh **out,
                                            uint32_t *skipped_primitives, sk_error *err);

/* Frees the mesh (NULL: nothing happens). */
SK_API void sk_terrain_mesh_destroy(sk_terrain_mesh *mesh);
/* Counts and memory of the mesh (zeroed for NULL). */
SK_API sk_terrain_mesh_info sk_terrain_mesh_get_info(const sk_terrain_mesh *mesh);
/* The mesh as a terrain (through its grid). */
SK_API sk_terrain sk_terrain_mesh_terrain(const sk_terrain_mesh *mesh);
/* The same mesh tested triangle by triangle: the reference for tests and
 * benchmarks (O(triangles) per ray). */
SK_API sk_terrain sk_terrain_mesh_terrain_brute_force(const sk_terrain_mesh *mesh);

#ifdef __cplusplus
}
#endif
#endif
