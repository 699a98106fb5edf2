/* The mannequin's walks that do not go forward: walk_back and the sidesteps
 * strafe_left / strafe_right (docs/locomotion.md, "The clip set").
 *
 * walk_back is a forward gait of its own (shorter stride, slower, 1.1 m/s)
 * played in reverse: the joint angles of walking backward are close to the
 * time reversal of walking forward (Thorstensson 1986; Winter, Pluck & Yang
 * 1989), so the toes touch first behind the body, the foot rolls onto its
 * heel, and the heel leaves last in front of it.
 *
 * strafe_left is a sidestep to the character's left (+X) at 0.85 m/s: the
 * left foot leads (it steps out while the feet are close, from 0.16 m to
 * 0.67 m apart), the right one trails (it closes the stance back to 0.16 m,
 * never crossing); each foot is on the ground 62 % of the cycle, flat, its
 * heel rising at the end of the contact, its ball last to leave. The hips
 * move at a constant speed, lowest in the wide stance. strafe_right is its
 * mirror image: each joint takes its partner's rotation reflected across the
 * sagittal plane (x, y, z, w) -> (x, -y, -z, w) (exact for the mannequin, whose
 * rest rotations are the identity), the hips' x negated. */
#include "content/mannequin_internal.h"

/* ---- backward walk -------------------------------------------------------- */

static const mq_gait mq_walk_back_gait = {
    MQ_WALK_BACK_T, 1.1f, 0.60f, 0.34f, 0.19f, 0.70f, 0.05f, 0.16f,
    0.89f, 0.010f, 0, 0.020f, 0.07f, 0.040f, 0.0f,
    0.20f, 0.22f, 0.16f, MQ_HIP_X};

void mq_pose_walk_back(const mq_rig *rig, float t, mq_pose *p) {
    const mq_gait *g = &mq_walk_back_gait;
    mq_pose_gait(rig, g, g->period - t, p);
    p->hips_pos.z -= g->speed * g->period; /* from z = 0 at t = 0 toward -Z */
}

/* ---- sidestep -------------------------------------------------------------- */

#define ST_SPEED 0.85f   /* m/s */
#define ST_DUTY 0.62f    /* contact, fraction of the cycle */
#define ST_ROLL 0.14f    /* last part of the contact: the heel rises, the ball pinned */
#define ST_HEEL 0.20f    /* heel lift at the end of the contact (rad) */
#define ST_NARROW 0.16f  /* ankle to ankle when the trailing foot has closed (m) */
#define ST_CLEAR 0.045f  /* extra ankle lift in the swing (m) */
#define ST_HIP_Y 0.875f
#define ST_BOB 0.012f

/* Goal of one foot of the left sidestep; side 0 leads (steps out at phase
 * 0.62..1, lands at 0 in the wide stance), side 1 trails (lands at 0.5 in
 * the narrow stance). */
static void strafe_foot(float t, int side, mq_leg_goal *out) {
    const float T = MQ_STRAFE_T, D = ST_SPEED * T;
    const float w0 = 0.5f * (ST_NARROW + ST_NARROW + D); /* mean of the narrow and wide widths */
    /* footprints placed so that the hips are midway between the feet
     * whenever both are down after a landing */
    float c = side ? -0.5f * w0 + 0.25f * D : 0.5f * w0 + 0.25f * D;
    float phi = fracf(t / T - (side ? 0.5f : 0.0f));
    float plant_t = t - phi * T;
    float x = ST_SPEED * plant_t + c;
    sk_vec3 toe = sk_vec3_make(x, MQ_TOE_Y, MQ_TOE_Z);
    out->pole = sk_vec3_make(side ? -0.15f : 0.15f, 0, 1);
    if (phi < ST_DUTY - ST_ROLL) {
        out->ankle = sk_vec3_make(x, MQ_ANKLE_Y, 0);
        out->pitch = out->toe = 0;
        return;
    }
    if (phi < ST_DUTY) {
        float b = ST_HEEL * smooth01((phi - (ST_DUTY - ST_ROLL)) / ST_ROLL);
        out->ankle = mq_ankle_on_toe(toe, b);
        out->pitch = b;
        out->toe = -b; /* the toes stay on the ground */
        return;
    }
    float u = (phi - ST_DUTY) / (1 - ST_DUTY);
    sk_vec3 a0 = mq_ankle_on_toe(toe, ST_HEEL);
    out->ankle = sk_vec3_make(x + D * minjerk(u / 0.9f),
                              a0.y + (MQ_ANKLE_Y - a0.y) * smooth01(u) + ST_CLEAR * bump(u),
                              a0.z * (1 - smooth01(u / 0.6f)));
    out->pitch = ST_HEEL * (1 - smooth01(u / 0.5f));
    out->toe = -ST_HEEL * (1 - smooth01(u / 0.3f));
}

static void strafe_left(const mq_rig *rig, float t, mq_pose *p) {
    const float T = MQ_STRAFE_T;
    float w = cosf(2 * SKM_PI * t / T); /* +1: wide stance (the lead foot lands), -1: narrow */
    p->hips_pos = sk_vec3_make(ST_SPEED * t, ST_HIP_Y - ST_BOB * w, 0);
    /* a slight lean into the direction of travel, more as the lead leg
     * reaches out */
    p->rot[J_HIPS] = sk_quat_mul(skm_quat_rot_x(0.02f), skm_quat_rot_z(-0.02f - 0.015f * w));
    mq_leg_goal lg, rg;
    strafe_foot(t, 0, &lg);
    strafe_foot(t, 1, &rg);
    mq_pose_leg(rig, p, 0, &lg);
    mq_pose_leg(rig, p, 1, &rg);
    mq_upper u;
    memset(&u, 0, sizeof u);
    u.spine_pitch = 0.02f;
    u.spine_roll = 0.02f + 0.02f * w; /* the chest stays over the hips */
    u.head_pitch = 0.02f;
    for (int s = 0; s < 2; s++) {
        u.arm_fwd[s] = 0.10f;
        u.arm_out[s] = 0.07f + 0.05f * w; /* the arms open with the legs */
        u.elbow[s] = 0.30f;
        u.wrist[s] = 0.1f;
    }
    mq_pose_upper(p, &u);
}

static int partner(int j) {
    if (j >= J_CLAV_L && j <= J_HAND_L) return j + 4;
    if (j >= J_CLAV_R && j <= J_HAND_R) return j - 4;
    if (j >= J_THIGH_L && j <= J_TOE_L) return j + 4;
    if (j >= J_THIGH_R && j <= J_TOE_R) return j - 4;
    return j;
}

void mq_pose_strafe(const mq_rig *rig, float t, int right, mq_pose *p) {
    if (!right) {
        strafe_left(rig, t, p);
        return;
    }
    mq_pose l;
    for (int j = 0; j < J_COUNT; j++) l.rot[j] = sk_quat_identity();
    strafe_left(rig, t, &l);
    p->hips_pos = sk_vec3_make(-l.hips_pos.x, l.hips_pos.y, l.hips_pos.z);
    for (int j = 0; j < J_COUNT; j++) {
        sk_quat q = l.rot[j];
        p->rot[partner(j)] = sk_quat_make(q.x, -q.y, -q.z, q.w);
    }
}
