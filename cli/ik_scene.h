/* IK scenes for `skelanim render --ik`: the visual check of the IK solvers
 * (issue 5) on a loaded character, built only on the public API.
 *
 * reach: the character plays a clip (idle by default) while one arm (a
 *   two-bone chain, or FABRIK on a longer one) reaches for a target moving
 *   on a closed path around the shoulder; part of the path is out of reach,
 *   where the arm points straight at the target.
 * slope: the character walks (with the clip's root motion) up a ground plane
 *   tilted by `slope` radians about X, y = z * tan(slope). Feet planting
 *   after seed 004 (IK-driven procedural walking with the two-joint "Limb"
 *   solver): each ankle keeps its animated height above the ground, now
 *   measured along the slope's normal; the hips move down to the lower
 *   foot's ground so both legs reach; each leg is a two-bone solve (thigh,
 *   shin, foot) with the knee toward the character's front; each foot keeps
 *   its animated orientation turned by the slope's tilt, so a flat foot in
 *   stance lies on the slope. */
#ifndef SKR_IK_SCENE_H
#define SKR_IK_SCENE_H
#include <skelanim.h>

typedef enum skr_ik_mode { SKR_IK_REACH = 1, SKR_IK_SLOPE = 2 } skr_ik_mode;

enum { SKR_IK_MAX_ARM = 32 };

typedef struct skr_ik_scene {
    skr_ik_mode mode;
    const sk_asset *asset;
    int32_t clip;                   /* clip played under the IK (-1: rest pose) */
    /* reach */
    uint32_t arm[SKR_IK_MAX_ARM];   /* chain root..tip */
    uint32_t arm_count;
    float arm_length;               /* sum of bone lengths (rest) */
    sk_vec3 shoulder;               /* rest model position of the chain root: the path's centre */
    /* slope */
    uint32_t hips;                  /* root joint moved up/down */
    uint32_t leg[2][3];             /* thigh, shin, foot (left, right) */
    float slope;                    /* radians */
    sk_vec3 loop_offset;            /* hips translation gained per loop of the clip */
} skr_ik_scene;

/* Sets up a scene. reach: chain_root/chain_tip name the arm (NULL: the
 * mannequin's upperarm_r / hand_r). slope: legs (NULL: the mannequin's
 * thigh_l:foot_l and thigh_r:foot_r; else "THIGH_L:FOOT_L,THIGH_R:FOOT_R"),
 * each exactly three joints; slope_deg in (-60, 60). clip: index or -1. */
sk_result skr_ik_scene_init(skr_ik_scene *sc, const sk_asset *asset, skr_ik_mode mode, int32_t clip,
                            const char *chain_root, const char *chain_tip, const char *legs, float slope_deg,
                            sk_error *err);

typedef struct skr_ik_frame {
    /* reach */
    sk_vec3 target;        /* model space */
    sk_ik_result result;
    /* slope */
    float animated_height[2];  /* each ankle's height above the level ground in the clip */
    sk_vec3 ankle_target[2];
    float hips_shift;          /* vertical move of the hips */
    sk_ik_result leg_result[2];
} skr_ik_frame;

/* Target of the reach path at u in [0, 1) (model space; closed, smooth). */
sk_vec3 skr_ik_reach_target(const skr_ik_scene *sc, double u);
/* Height of the slope's ground at (x, z). */
float skr_ik_ground_height(const skr_ik_scene *sc, float x, float z);
/* Unit normal of the slope's ground. */
sk_vec3 skr_ik_ground_normal(const skr_ik_scene *sc);

/* Poses frame `frame` of `frames`: clip time t, then the IK. local and world
 * hold joint_count entries, weights weight_total + 1. fk_local/fk_world
 * (optional) receive the clip's pose before IK. */
sk_result skr_ik_scene_pose(const skr_ik_scene *sc, double t, uint32_t frame, uint32_t frames, sk_transform *local,
                            sk_mat4 *world, float *weights, sk_transform *fk_local, sk_mat4 *fk_world,
                            skr_ik_frame *info, sk_error *err);

#endif
