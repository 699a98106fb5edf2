/* The planar character (content/planar.h). */
#include "core/internal.h"
#include "skelanim/content/planar.h"

#include <string.h>

enum {
    PL_PELVIS, PL_SPINE, PL_CHEST, PL_NECK, PL_HEAD, PL_SHOULDER,
    PL_UPPERARM_L, PL_FOREARM_L, PL_HAND_L, PL_UPPERARM_R, PL_FOREARM_R, PL_HAND_R,
    PL_THIGH_L, PL_SHIN_L, PL_FOOT_L, PL_TOE_L, PL_THIGH_R, PL_SHIN_R, PL_FOOT_R, PL_TOE_R, PL_COUNT
};

sk_result sk_planar_rig_create(const sk_allocator *alloc, sk_asset **out, sk_error *err) {
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
    sk_asset *a = NULL;
    sk_result r = sk_asset_create_empty(alloc, &a, err);
    if (r != SK_OK) return r;
    sk_transform rest[PL_COUNT];
    for (int j = 0; j < PL_COUNT; j++) {
        rest[j] = sk_transform_identity();
        rest[j].t = sk_vec3_make(offs[j][0], offs[j][1], offs[j][2]);
    }
    sk_skeleton_desc sd = {.joint_count = PL_COUNT, .parents = parents, .names = names, .rest = rest};
    r = sk_skeleton_create(&sd, sk_asset_allocator(a), &a->skeleton, err);
    if (r != SK_OK) {
        sk_asset_destroy(a);
        return r;
    }
    a->node_count = PL_COUNT;
    uint32_t *n2j = sk_asset_alloc(a, PL_COUNT * sizeof(uint32_t)), *j2n = sk_asset_alloc(a, PL_COUNT * sizeof(uint32_t));
    int32_t *jm = sk_asset_alloc(a, PL_COUNT * sizeof(int32_t)), *js = sk_asset_alloc(a, PL_COUNT * sizeof(int32_t));
    uint32_t *roots = sk_asset_alloc(a, sizeof(uint32_t));
    sk_scene *scene = sk_asset_alloc(a, sizeof *scene);
    if (!n2j || !j2n || !jm || !js || !roots || !scene) {
        sk_asset_destroy(a);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "planar rig: out of memory");
    }
    for (uint32_t j = 0; j < PL_COUNT; j++) n2j[j] = j2n[j] = j, jm[j] = -1, js[j] = -1;
    a->node_to_joint = n2j, a->joint_to_node = j2n, a->joint_mesh = jm, a->joint_skin = js;
    roots[0] = 0;
    scene->name = "planar", scene->root_count = 1, scene->roots = roots;
    a->scenes = scene, a->scene_count = 1, a->default_scene = 0;
    *out = a;
    return SK_OK;
}
