/* Private to the world layer: what the terrain's two files share
 * (terrain.c, the built-in terrains; terrain_mesh.c, triangle meshes). Not
 * installed. */
#ifndef SKELANIM_WORLD_TERRAIN_INTERNAL_H
#define SKELANIM_WORLD_TERRAIN_INTERNAL_H

#include "core/internal.h"
#include "core/math_inline.h"
#include "skelanim/world/terrain.h"

#include <math.h>

/* Fills a hit at distance t with the normal n (any length, not zero) turned
 * to face the origin. False when the result does not fit in floats. */
static inline bool make_hit(sk_vec3 o, sk_vec3 d, double t, double nx, double ny, double nz, sk_terrain_hit *out) {
    double nl = sqrt(nx * nx + ny * ny + nz * nz);
    if (!(nl > 0.0)) return false;
    if (nx * d.x + ny * d.y + nz * d.z > 0.0) nl = -nl;
    sk_terrain_hit h;
    h.point = sk_vec3_make((float)(o.x + t * d.x), (float)(o.y + t * d.y), (float)(o.z + t * d.z));
    h.normal = sk_vec3_make((float)(nx / nl), (float)(ny / nl), (float)(nz / nl));
    h.distance = (float)t;
    if (!skm_vec3_finite(h.point) || !sk_isfinite_f(h.distance)) return false;
    *out = h;
    return true;
}

/* An argument error with msg. */
static inline sk_result bad(sk_error *err, const char *msg) {
    return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s", msg);
}

#endif
