/* Private to the content layer: the mannequin's rig and the posing
 * machinery its clips are authored with (mannequin.c: the rig, the forward
 * gaits, idle and crouch, the clips' builder and the mesh; mannequin_dir.c:
 * the backward walk and the sidesteps). Units: metres of a 1.8 m character,
 * +Y up, facing +Z, the character's left +X; every rest rotation is the
 * identity. */
#ifndef SKELANIM_CONTENT_MANNEQUIN_INTERNAL_H
#define SKELANIM_CONTENT_MANNEQUIN_INTERNAL_H

#include "core/math_inline.h"
#include "skelanim/content/mannequin.h"

#include <math.h>

#define MQ_FPS 30.0f

enum {
    J_HIPS, J_SPINE, J_CHEST, J_NECK, J_HEAD,
    J_CLAV_L, J_UPARM_L, J_FOREARM_L, J_HAND_L,
    J_CLAV_R, J_UPARM_R, J_FOREARM_R, J_HAND_R,
    J_THIGH_L, J_SHIN_L, J_FOOT_L, J_TOE_L,
    J_THIGH_R, J_SHIN_R, J_FOOT_R, J_TOE_R,
    J_COUNT
};
#define MQ_NODE_COUNT (J_COUNT + 1) /* joints + the skinned-mesh node */

/* Rest geometry of a 1.8 m character (all rest rotations are identity, so a
 * joint's local rotation is expressed in axes parallel to the world's). */
#define MQ_ARM_ANGLE 0.21f     /* A-pose: arms 12 degrees out from vertical */
#define MQ_UPARM_LEN 0.28f
#define MQ_FOREARM_LEN 0.25f
#define MQ_HAND_LEN 0.17f
#define MQ_HIP_X 0.10f
#define MQ_ANKLE_Y 0.08f
#define MQ_TOE_Y 0.02f
#define MQ_TOE_Z 0.13f

typedef struct mq_rig {
    sk_vec3 world[J_COUNT]; /* rest joint positions */
    sk_vec3 off[J_COUNT];   /* rest local translations */
    sk_vec3 arm_dir[2];     /* rest direction of the left/right arm */
} mq_rig;

/* ---- small math helpers ---------------------------------------------------- */

static inline float smooth01(float u) { u = skm_clampf(u, 0, 1); return u * u * (3 - 2 * u); }
/* Minimum-jerk profile: 0 -> 1 with zero velocity and acceleration at both ends. */
static inline float minjerk(float u) { u = skm_clampf(u, 0, 1); return u * u * u * (10 + u * (-15 + 6 * u)); }
/* Bump 0 -> 1 -> 0 on [0,1] with zero slope at the ends. */
static inline float bump(float u) { u = skm_clampf(u, 0, 1); return 16 * u * u * (1 - u) * (1 - u); }
static inline float fracf(float x) { return x - floorf(x); }

/* Local rotation of a child whose world rotation is `world` under a parent
 * whose world rotation is `parent`. */
static inline sk_quat qlocal(sk_quat parent, sk_quat world) {
    return sk_quat_normalize(sk_quat_mul(sk_quat_conjugate(parent), world));
}

/* ---- posing ------------------------------------------------------------------ */

typedef struct mq_pose {
    sk_vec3 hips_pos;
    sk_quat rot[J_COUNT]; /* local rotations */
} mq_pose;

typedef struct mq_leg_goal {
    sk_vec3 ankle;     /* world ankle position */
    float pitch;       /* foot pitch about X (positive: heel up / toes down) */
    float toe;         /* toe joint bend relative to the foot */
    sk_vec3 pole;      /* knee direction */
} mq_leg_goal;

/* The knee's bend in the leg the two-bone solver starts from: any bend about
 * the thigh's X axis (knee forward) gives the solver the knee's hinge axis,
 * so the knee only turns about X and the thigh's X ends up normal to the
 * plane of hip, knee and pole. (A straight start leg would leave the axis to
 * the pole and twist the knee's hinge with the hips' yaw.) */
#define MQ_KNEE_START 0.2f

/* The leg by the public two-bone solver (sk_ik_two_bone): thigh and shin
 * rotations that put the ankle on the goal (or on the line to it at full
 * reach), the knee bending toward the pole; then the foot gets its world
 * pitch and the toe its bend. */
void mq_pose_leg(const mq_rig *rig, mq_pose *p, int side, const mq_leg_goal *g);

typedef struct mq_upper {
    float spine_pitch, chest_pitch;  /* forward lean (positive: leaning forward) */
    float spine_yaw, chest_yaw;      /* local yaw */
    float spine_roll;
    float head_pitch, head_yaw;      /* wanted world head orientation */
    float clav_raise;                /* shrug (both sides) */
    float arm_fwd[2];                /* upper-arm swing forward, relative to the chest */
    float arm_out[2];                /* extra abduction */
    float elbow[2];                  /* elbow flexion */
    float wrist[2];
} mq_upper;

/* Spine, chest, neck, head and arms from u (the hips rotation already set). */
void mq_pose_upper(mq_pose *p, const mq_upper *u);

typedef struct mq_gait {
    float period, speed;   /* s, m/s */
    float duty;            /* ground contact, fraction of the cycle */
    float flat;            /* flat-foot part of the contact (ankle pinned) */
    float reach;           /* ankle ahead of the hips centre at foot plant */
    float toe_max;         /* heel lift at toe-off (rad) */
    float clearance;       /* extra ankle lift in swing */
    float dorsi;           /* toes up before landing (rad) */
    float hip_y, bob;      /* hips height and bob amplitude */
    int run;               /* bob lowest at mid-stance (run) or at double support (walk) */
    float sway, yaw, roll, lean;
    float arm_swing, elbow_base, elbow_swing;
    float foot_x;
} mq_gait;

/* A forward gait at time t (s): hips advancing along +Z at g->speed from
 * z = 0 at t = 0, the feet on footprints (flat stance, toe roll, swing), the
 * upper body swinging against the legs. */
void mq_pose_gait(const mq_rig *rig, const mq_gait *g, float t, mq_pose *p);

static inline float mq_leg_length(const mq_rig *rig) {
    return sk_vec3_length(rig->off[J_SHIN_L]) + sk_vec3_length(rig->off[J_FOOT_L]);
}
/* Ankle -> ball-of-foot (toe joint) offset in the foot frame. */
static inline sk_vec3 mq_toe_offset(void) { return sk_vec3_make(0, MQ_TOE_Y - MQ_ANKLE_Y, MQ_TOE_Z); }
/* Ankle position when the foot, pitched by b, pivots on a toe joint at toe. */
static inline sk_vec3 mq_ankle_on_toe(sk_vec3 toe, float b) {
    return sk_vec3_sub(toe, sk_quat_rotate(skm_quat_rot_x(b), mq_toe_offset()));
}

/* ---- the clips of mannequin_dir.c -------------------------------------------- */

/* Cycle durations (s). */
#define MQ_WALK_BACK_T (30.0f / MQ_FPS)
#define MQ_STRAFE_T (18.0f / MQ_FPS)

/* Backward walk: hips moving along -Z. */
void mq_pose_walk_back(const mq_rig *rig, float t, mq_pose *p);
/* Sidestep to the character's left (+X; right = 0) or, mirrored, to its
 * right (-X; right = 1). */
void mq_pose_strafe(const mq_rig *rig, float t, int right, mq_pose *p);

#endif
