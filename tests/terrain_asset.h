/* A stairs mesh built in code (for the --terrain FILE.glb tests): the same
 * ground as the built-in stairs with start (0, 0, z0), along +Z, endless
 * (treads flat, risers vertical, each quad with its own vertices), over
 * x in [x0, x1] and z in [zmin, zmax], as an sk_asset of one node (with a
 * translation by (0, dy, 0): the mesh's vertices sit dy lower) and one mesh. */
#ifndef SK_TEST_TERRAIN_ASSET_H
#define SK_TEST_TERRAIN_ASSET_H

#include "skelanim.h"

#include <math.h>
#include <string.h>

static sk_asset *terrain_stairs_asset(float rise, float run, float z0, float x0, float x1, float zmin, float zmax,
                                      float dy) {
    sk_asset *a = NULL;
    sk_error err;
    if (sk_asset_create_empty(NULL, &a, &err) != SK_OK) return NULL;
    int32_t parents[1] = {-1};
    sk_transform rest[1] = {sk_transform_identity()};
    rest[0].t = sk_vec3_make(0, dy, 0);
    sk_skeleton_desc sd = {.joint_count = 1, .parents = parents, .rest = rest};
    if (sk_skeleton_create(&sd, sk_asset_allocator(a), &a->skeleton, &err) != SK_OK) {
        sk_asset_destroy(a);
        return NULL;
    }
    a->node_count = 1;
    uint32_t steps = 0; /* risers inside [zmin, zmax] */
    while (z0 + steps * run < zmax) steps++;
    uint32_t quads = 1 + 2 * steps, nv = quads * 4, ni = quads * 6;
    float *v = sk_asset_alloc(a, sizeof(float) * 3 * nv);
    uint32_t *ix = sk_asset_alloc(a, sizeof(uint32_t) * ni);
    uint32_t q = 0;
#define QUAD(ax, ay, az, bx, by, bz, cx, cy, cz, dx_, dy_, dz)                                                       \
    do {                                                                                                            \
        float qv[12] = {ax, (ay) - dy, az, bx, (by) - dy, bz, cx, (cy) - dy, cz, dx_, (dy_) - dy, dz};              \
        memcpy(v + q * 12, qv, sizeof qv);                                                                          \
        uint32_t qi[6] = {q * 4, q * 4 + 1, q * 4 + 2, q * 4, q * 4 + 2, q * 4 + 3};                                \
        memcpy(ix + q * 6, qi, sizeof qi);                                                                          \
        q++;                                                                                                        \
    } while (0)
    QUAD(x0, 0, zmin, x1, 0, zmin, x1, 0, z0, x0, 0, z0); /* the floor before the stairs */
    for (uint32_t k = 0; k < steps; k++) {
        float z = z0 + k * run, zn = fminf(z + run, zmax), y = k * rise, yn = (k + 1) * rise;
        QUAD(x0, y, z, x1, y, z, x1, yn, z, x0, yn, z);       /* riser k */
        QUAD(x0, yn, z, x1, yn, z, x1, yn, zn, x0, yn, zn);   /* the tread above it */
    }
#undef QUAD
    sk_primitive *prim = sk_asset_alloc(a, sizeof *prim);
    *prim = (sk_primitive){.mode = 4, .vertex_count = nv, .positions = v, .index_count = ni, .indices = ix,
                           .material = -1, .base_color = {0.6f, 0.6f, 0.6f, 1.0f}};
    sk_mesh *mesh = sk_asset_alloc(a, sizeof *mesh);
    *mesh = (sk_mesh){.name = "stairs", .primitive_count = 1, .primitives = prim};
    int32_t *jm = sk_asset_alloc(a, sizeof(int32_t)), *js = sk_asset_alloc(a, sizeof(int32_t));
    uint32_t *n2j = sk_asset_alloc(a, sizeof(uint32_t)), *j2n = sk_asset_alloc(a, sizeof(uint32_t));
    jm[0] = 0, js[0] = -1, n2j[0] = 0, j2n[0] = 0;
    a->meshes = mesh, a->mesh_count = 1, a->joint_mesh = jm, a->joint_skin = js;
    a->node_to_joint = n2j, a->joint_to_node = j2n;
    uint32_t *roots = sk_asset_alloc(a, sizeof(uint32_t));
    roots[0] = 0;
    sk_scene *scene = sk_asset_alloc(a, sizeof *scene);
    scene->name = "", scene->root_count = 1, scene->roots = roots;
    a->scenes = scene, a->scene_count = 1, a->default_scene = 0;
    return a;
}

#endif
