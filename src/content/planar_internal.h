/* Private to the content layer: the planar character's asset (planar.c),
 * shared by the bare rig (sk_planar_rig_create) and the cut-out sprite
 * (sprite.c), which adds a mesh node, a skin and a mesh to it. */
#ifndef SKELANIM_CONTENT_PLANAR_INTERNAL_H
#define SKELANIM_CONTENT_PLANAR_INTERNAL_H

#include "skelanim/core/asset.h"

enum {
    PL_PELVIS, PL_SPINE, PL_CHEST, PL_NECK, PL_HEAD, PL_SHOULDER,
    PL_UPPERARM_L, PL_FOREARM_L, PL_HAND_L, PL_UPPERARM_R, PL_FOREARM_R, PL_HAND_R,
    PL_THIGH_L, PL_SHIN_L, PL_FOOT_L, PL_TOE_L, PL_THIGH_R, PL_SHIN_R, PL_FOOT_R, PL_TOE_R, PL_COUNT
};

/* The planar rig as an asset (planar.h); with mesh_node, one more root node
 * and joint after the PL_COUNT joints, named mesh_node, that carries mesh 0
 * and skin 0 (joint_mesh / joint_skin set; the caller adds them). The rest
 * model position of joint j (rest rotations are the identity) is written
 * to world[j] when world is not NULL. */
sk_result sk_planar_asset_create(const sk_allocator *alloc, const char *mesh_node, sk_asset **out, sk_vec3 *world,
                                 sk_error *err);

#endif
