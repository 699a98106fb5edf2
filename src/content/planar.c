/* The planar character (content/planar.h). */
#include "content/planar_internal.h"
#include "core/internal.h"
#include "skelanim/content/planar.h"

#include <string.h>

sk_result sk_planar_asset_create(const sk_allocator *alloc, const char *mesh_node, sk_asset **out, sk_vec3 *world,
                                 sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "planar rig: NULL output");
    *out = NULL;
    static const char *const names[PL_COUNT] = {
        "pelvis",     "spine",      "chest",   "neck",    "head",    "shoulder",   "upperarm_l",
        "forearm_l",  "hand_l",     "upperarm_r", "forearm_r", "hand_r", "thigh_l", "shin_l",
        "foot_l",     "toe_l",      "thigh_r", "shin_r",  "foot_r",  "toe_r"};
    static const int32_t parents[PL_COUNT] = {-1, 0, 1, 2, 3, 2, 5, 6, 7, 5, 9, 10, 0, 12, 13, 14, 0, 16, 17, 18};
    static const float offs[PL_COUNT][3] = {
        {0, 0.95f, 0}, {0, 0.15f, 0}, {0, 0.25f, 0}, {0, 0.12f, 0}, {0, 0.12f, 0}, {0, 0.20f, 0},
        {0, 0, 0},     {0, -0.28f, 0}, {0, -0.26f, 0}, {0, 0, 0}, {0, -0.28f, 0}, {0, -0.26f, 0},
        {0, -0.05f, 0}, {0, -0.43f, 0}, {0, -0.42f, 0}, {0, -0.06f, 0.15f},
        {0, -0.05f, 0}, {0, -0.43f, 0}, {0, -0.42f, 0}, {0, -0.06f, 0.15f}};
    enum { MAX_NODES = PL_COUNT + 1 };
    const uint32_t n = mesh_node ? PL_COUNT + 1 : PL_COUNT;
    const char *all_names[MAX_NODES];
    int32_t all_parents[MAX_NODES];
    sk_transform rest[MAX_NODES];
    for (uint32_t j = 0; j < n; j++) {
        rest[j] = sk_transform_identity();
        if (j < PL_COUNT) {
            rest[j].t = sk_vec3_make(offs[j][0], offs[j][1], offs[j][2]);
            all_names[j] = names[j], all_parents[j] = parents[j];
            if (world) world[j] = parents[j] < 0 ? rest[j].t : sk_vec3_add(world[parents[j]], rest[j].t);
        } else {
            all_names[j] = mesh_node, all_parents[j] = -1;
        }
    }
    sk_asset *a = NULL;
    sk_result r = sk_asset_create_empty(alloc, &a, err);
    if (r != SK_OK) return r;
    sk_skeleton_desc sd = {.joint_count = n, .parents = all_parents, .names = all_names, .rest = rest};
    r = sk_skeleton_create(&sd, sk_asset_allocator(a), &a->skeleton, err);
    if (r != SK_OK) {
        sk_asset_destroy(a);
        return r;
    }
    a->node_count = n;
    uint32_t *n2j = sk_asset_alloc(a, n * sizeof(uint32_t)), *j2n = sk_asset_alloc(a, n * sizeof(uint32_t));
    int32_t *jm = sk_asset_alloc(a, n * sizeof(int32_t)), *js = sk_asset_alloc(a, n * sizeof(int32_t));
    uint32_t *roots = sk_asset_alloc(a, 2 * sizeof(uint32_t));
    sk_scene *scene = sk_asset_alloc(a, sizeof *scene);
    if (!n2j || !j2n || !jm || !js || !roots || !scene) {
        sk_asset_destroy(a);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "planar rig: out of memory");
    }
    for (uint32_t j = 0; j < n; j++) n2j[j] = j2n[j] = j, jm[j] = -1, js[j] = -1;
    if (mesh_node) jm[PL_COUNT] = 0, js[PL_COUNT] = 0;
    a->node_to_joint = n2j, a->joint_to_node = j2n, a->joint_mesh = jm, a->joint_skin = js;
    roots[0] = 0, roots[1] = PL_COUNT;
    scene->name = mesh_node ? "sprite" : "planar", scene->root_count = mesh_node ? 2 : 1, scene->roots = roots;
    a->scenes = scene, a->scene_count = 1, a->default_scene = 0;
    *out = a;
    return SK_OK;
}

sk_result sk_planar_rig_create(const sk_allocator *alloc, sk_asset **out, sk_error *err) {
    return sk_planar_asset_create(alloc, NULL, out, NULL, err);
}
