/* The default character, built in code: a 21-joint humanoid (+Y up, facing
 * +Z, metres; the character's left is +X), a skinned mesh of tapered
 * capsules with smooth weights, and seven code-authored clips (idle, walk,
 * run and crouch here; walk_back, strafe_left and strafe_right in
 * mannequin_dir.c).
 *
 * Everything is authored for a 1.8 m character and scaled by height/1.8
 * (lengths, root-motion speeds); times are not scaled.
 *
 * Locomotion: each foot follows a trajectory designed in world space (flat
 * stance with the ankle pinned, a toe roll pinned at the ball of the foot, a
 * minimum-jerk swing arc to the next footprint) while the hips advance at the
 * clip's speed; the legs are solved with the library's analytic two-bone IK
 * (sk_ik_two_bone: law of cosines, knee toward a pole). Keys are sampled at
 * 30 Hz with LINEAR interpolation; the hips translation carries the root
 * motion (the last key is the first moved forward by one stride). */
#include "content/mannequin_internal.h"
#include "skelanim/ik/ik.h"

#include <math.h>

static const char *const mq_names[MQ_NODE_COUNT] = {
    "hips", "spine", "chest", "neck", "head",
    "clavicle_l", "upperarm_l", "forearm_l", "hand_l",
    "clavicle_r", "upperarm_r", "forearm_r", "hand_r",
    "thigh_l", "shin_l", "foot_l", "toe_l",
    "thigh_r", "shin_r", "foot_r", "toe_r",
    "mannequin_mesh"};

static const int32_t mq_parents[MQ_NODE_COUNT] = {
    -1, J_HIPS, J_SPINE, J_CHEST, J_NECK,
    J_CHEST, J_CLAV_L, J_UPARM_L, J_FOREARM_L,
    J_CHEST, J_CLAV_R, J_UPARM_R, J_FOREARM_R,
    J_HIPS, J_THIGH_L, J_SHIN_L, J_FOOT_L,
    J_HIPS, J_THIGH_R, J_SHIN_R, J_FOOT_R,
    -1};

static sk_vec3 mirror_x(sk_vec3 a) { return sk_vec3_make(-a.x, a.y, a.z); }

static void rig_init(mq_rig *r) {
    sk_vec3 *w = r->world;
    w[J_HIPS] = sk_vec3_make(0, 0.98f, 0);
    w[J_SPINE] = sk_vec3_make(0, 1.08f, 0);
    w[J_CHEST] = sk_vec3_make(0, 1.25f, 0);
    w[J_NECK] = sk_vec3_make(0, 1.50f, 0);
    w[J_HEAD] = sk_vec3_make(0, 1.60f, 0);
    w[J_CLAV_L] = sk_vec3_make(0.02f, 1.43f, 0);
    w[J_UPARM_L] = sk_vec3_make(0.17f, 1.43f, 0);
    sk_vec3 d = sk_vec3_make(sinf(MQ_ARM_ANGLE), -cosf(MQ_ARM_ANGLE), 0);
    r->arm_dir[0] = d;
    r->arm_dir[1] = mirror_x(d);
    w[J_FOREARM_L] = sk_vec3_add(w[J_UPARM_L], sk_vec3_scale(d, MQ_UPARM_LEN));
    w[J_HAND_L] = sk_vec3_add(w[J_FOREARM_L], sk_vec3_scale(d, MQ_FOREARM_LEN));
    w[J_THIGH_L] = sk_vec3_make(MQ_HIP_X, 0.93f, 0);
    w[J_SHIN_L] = sk_vec3_make(MQ_HIP_X, 0.50f, 0);
    w[J_FOOT_L] = sk_vec3_make(MQ_HIP_X, MQ_ANKLE_Y, 0);
    w[J_TOE_L] = sk_vec3_make(MQ_HIP_X, MQ_TOE_Y, MQ_TOE_Z);
    for (int i = 0; i < 4; i++) {
        w[J_CLAV_R + i] = mirror_x(w[J_CLAV_L + i]);
        w[J_THIGH_R + i] = mirror_x(w[J_THIGH_L + i]);
    }
    for (int j = 0; j < J_COUNT; j++)
        r->off[j] = mq_parents[j] < 0 ? w[j] : sk_vec3_sub(w[j], w[mq_parents[j]]);
}

static float wave(float t, float period, float phase) { return sinf(2 * SKM_PI * (t / period + phase)); }

/* ---- posing ------------------------------------------------------------------ */

/* The leg by the public two-bone solver (sk_ik_two_bone): thigh and shin
 * rotations that put the ankle on the goal (or on the line to it at full
 * reach), the knee bending toward the pole; then the foot gets its world
 * pitch and the toe its bend. */
void mq_pose_leg(const mq_rig *rig, mq_pose *p, int side, const mq_leg_goal *g) {
    int thigh = side ? J_THIGH_R : J_THIGH_L, shin = thigh + 1, foot = thigh + 2, toe = thigh + 3;
    sk_quat hips = p->rot[J_HIPS], knee0 = skm_quat_rot_x(MQ_KNEE_START);
    /* model transforms of the thigh, shin and foot joints in the start leg
     * (thigh local rotation identity, shin knee0) */
    sk_quat thigh_w = hips, shin_w = sk_quat_mul(hips, knee0);
    sk_transform mt[3];
    mt[0].t = sk_vec3_add(p->hips_pos, sk_quat_rotate(hips, rig->off[thigh]));
    mt[1].t = sk_vec3_add(mt[0].t, sk_quat_rotate(thigh_w, rig->off[shin]));
    mt[2].t = sk_vec3_add(mt[1].t, sk_quat_rotate(shin_w, rig->off[foot]));
    mt[0].r = thigh_w;
    mt[1].r = mt[2].r = shin_w;
    mt[0].s = mt[1].s = mt[2].s = sk_vec3_make(1, 1, 1);
    sk_ik_target tg;
    memset(&tg, 0, sizeof tg);
    tg.position = g->ankle;
    tg.has_pole = true;
    tg.pole = sk_vec3_add(mt[0].t, g->pole);
    sk_quat cs, cm;
    (void)sk_ik_two_bone(&mt[0], &mt[1], &mt[2], &tg, NULL, &cs, &cm, NULL); /* identity on non-finite input */
    p->rot[thigh] = cs; /* local rotation * correction */
    p->rot[shin] = sk_quat_mul(knee0, cm);
    shin_w = sk_quat_mul(sk_quat_mul(hips, p->rot[thigh]), p->rot[shin]);
    p->rot[foot] = qlocal(shin_w, skm_quat_rot_x(g->pitch));
    p->rot[toe] = skm_quat_rot_x(g->toe);
}


void mq_pose_upper(mq_pose *p, const mq_upper *u) {
    sk_quat hips = p->rot[J_HIPS];
    p->rot[J_SPINE] = sk_quat_mul(sk_quat_mul(skm_quat_rot_y(u->spine_yaw), skm_quat_rot_x(u->spine_pitch)),
                                  skm_quat_rot_z(u->spine_roll));
    p->rot[J_CHEST] = sk_quat_mul(skm_quat_rot_y(u->chest_yaw), skm_quat_rot_x(u->chest_pitch));
    sk_quat chest_w = sk_quat_mul(sk_quat_mul(hips, p->rot[J_SPINE]), p->rot[J_CHEST]);
    /* Neck takes part of the correction, the head the rest: the head keeps
     * the wanted world orientation whatever the torso does. */
    sk_quat head_w = sk_quat_mul(skm_quat_rot_y(u->head_yaw), skm_quat_rot_x(u->head_pitch));
    sk_quat corr = qlocal(chest_w, head_w);
    p->rot[J_NECK] = sk_quat_slerp(sk_quat_identity(), corr, 0.4f);
    p->rot[J_HEAD] = qlocal(sk_quat_mul(chest_w, p->rot[J_NECK]), head_w);
    for (int s = 0; s < 2; s++) {
        float sign = s ? -1.0f : 1.0f; /* mirror rotations about Y and Z */
        int c = s ? J_CLAV_R : J_CLAV_L;
        p->rot[c] = skm_quat_rot_z(sign * u->clav_raise);
        p->rot[c + 1] = sk_quat_mul(skm_quat_rot_x(-u->arm_fwd[s]), skm_quat_rot_z(sign * u->arm_out[s]));
        p->rot[c + 2] = skm_quat_rot_x(-u->elbow[s]);
        p->rot[c + 3] = skm_quat_rot_x(-u->wrist[s]);
    }
}


static const mq_gait mq_walk = {
    32.0f / MQ_FPS, 1.4f, 0.58f, 0.33f, 0.25f, 0.75f, 0.065f, 0.22f,
    0.895f, 0.012f, 0, 0.022f, 0.09f, 0.045f, 0.05f,
    0.32f, 0.22f, 0.30f, MQ_HIP_X};
static const mq_gait mq_run = {
    21.0f / MQ_FPS, 3.5f, 0.32f, 0.16f, 0.17f, 0.80f, 0.22f, 0.20f,
    0.87f, 0.03f, 1, 0.012f, 0.12f, 0.05f, 0.16f,
    0.62f, 1.35f, 0.20f, 0.095f};

/* Hips of a gait at time t: advancing at the gait's speed, bobbing twice per
 * cycle, swaying over the stance foot, yawing with the legs. */
static void gait_hips(const mq_gait *g, float t, sk_vec3 *pos, sk_quat *rot) {
    float c = t / g->period;
    float fwd_l = cosf(2 * SKM_PI * c); /* +1: left leg forward (its plant) */
    /* Walk: lowest at double support; run: lowest at mid-stance. */
    float mid = g->run ? g->duty * 0.5f : (g->duty - 0.5f) * 0.5f;
    float bob = cosf(4 * SKM_PI * (c - mid));
    float stance_l = cosf(2 * SKM_PI * (c - g->duty * 0.5f)); /* +1: middle of the left stance */
    *pos = sk_vec3_make(g->sway * stance_l, g->hip_y - g->bob * bob, g->speed * t);
    *rot = sk_quat_mul(sk_quat_mul(skm_quat_rot_y(-g->yaw * fwd_l), skm_quat_rot_x(g->lean * 0.5f)),
                       skm_quat_rot_z(g->roll * stance_l));
}

static sk_vec3 gait_hip_joint(const mq_rig *rig, const mq_gait *g, float t, int side) {
    sk_vec3 pos;
    sk_quat rot;
    gait_hips(g, t, &pos, &rot);
    return sk_vec3_add(pos, sk_quat_rotate(rot, rig->off[side ? J_THIGH_R : J_THIGH_L]));
}

/* Heel lift during the toe roll: the scheduled lift, or more when the leg
 * could not reach the ankle otherwise (the ball of the foot stays pinned). */
static float toe_roll_pitch(const mq_rig *rig, const mq_gait *g, float t, int side, sk_vec3 toe, float u) {
    float b = g->toe_max * u;
    sk_vec3 hip = gait_hip_joint(rig, g, t, side);
    float reach = 0.975f * mq_leg_length(rig);
    if (sk_vec3_length(sk_vec3_sub(mq_ankle_on_toe(toe, b), hip)) <= reach) return b;
    float lo = b, hi = 1.5f;
    for (int i = 0; i < 40; i++) {
        float m = 0.5f * (lo + hi);
        if (sk_vec3_length(sk_vec3_sub(mq_ankle_on_toe(toe, m), hip)) > reach) lo = m;
        else hi = m;
    }
    return hi;
}

/* World goal of one foot; phase_offset 0 for the left foot (planted at t = 0),
 * 0.5 for the right. The cycle of a foot: flat stance (ankle pinned), toe
 * roll (ball pinned, heel rising), swing to the next footprint one stride
 * ahead (it arrives above the footprint slightly early and sets down
 * vertically). */
static void gait_foot(const mq_rig *rig, const mq_gait *g, float t, int side, mq_leg_goal *out) {
    float T = g->period, stride = g->speed * T;
    float x = side ? -g->foot_x : g->foot_x;
    float phi = fracf(t / T - (side ? 0.5f : 0.0f));
    float plant_t = t - phi * T;
    float zp = g->speed * plant_t + g->reach; /* this footprint's ankle z */
    sk_vec3 toe = sk_vec3_make(x, MQ_TOE_Y, zp + MQ_TOE_Z);
    out->pole = sk_vec3_make(0, 0, 1);
    if (phi < g->flat) {
        out->ankle = sk_vec3_make(x, MQ_ANKLE_Y, zp);
        out->pitch = 0;
        out->toe = 0;
        return;
    }
    if (phi < g->duty) {
        float b = toe_roll_pitch(rig, g, t, side, toe, (phi - g->flat) / (g->duty - g->flat));
        out->ankle = mq_ankle_on_toe(toe, b);
        out->pitch = b;
        out->toe = -b; /* the toes stay flat on the ground */
        return;
    }
    float u = (phi - g->duty) / (1 - g->duty);
    float b = toe_roll_pitch(rig, g, plant_t + g->duty * T, side, toe, 1.0f);
    sk_vec3 a0 = mq_ankle_on_toe(toe, b);
    float z1 = zp + stride;
    out->ankle = sk_vec3_make(x, a0.y + (MQ_ANKLE_Y - a0.y) * smooth01(u) + g->clearance * bump(u),
                    a0.z + (z1 - a0.z) * minjerk(u / 0.9f));
    out->pitch = b * (1 - smooth01(u / 0.45f)) - g->dorsi * bump((u - 0.35f) / 0.6f);
    out->toe = -b * (1 - smooth01(u / 0.25f));
    /* Right after toe-off the foot is far behind: lift it (the knee folds)
     * rather than stretch the leg past its length. */
    sk_vec3 hip = gait_hip_joint(rig, g, t, side);
    float reach = 0.97f * mq_leg_length(rig);
    sk_vec3 d = sk_vec3_sub(out->ankle, hip);
    if (sk_vec3_length(d) > reach) {
        float h2 = d.x * d.x + d.z * d.z;
        if (h2 < reach * reach) out->ankle.y = hip.y - sqrtf(reach * reach - h2);
    }
}

void mq_pose_gait(const mq_rig *rig, const mq_gait *g, float t, mq_pose *p) {
    float c = t / g->period;
    float fwd_l = cosf(2 * SKM_PI * c);
    float mid = g->run ? g->duty * 0.5f : (g->duty - 0.5f) * 0.5f;
    float bob = cosf(4 * SKM_PI * (c - mid));
    float yaw = -g->yaw * fwd_l;
    float stance_l = cosf(2 * SKM_PI * (c - g->duty * 0.5f));
    gait_hips(g, t, &p->hips_pos, &p->rot[J_HIPS]);

    mq_leg_goal lg, rg;
    gait_foot(rig, g, t, 0, &lg);
    gait_foot(rig, g, t, 1, &rg);
    mq_pose_leg(rig, p, 0, &lg);
    mq_pose_leg(rig, p, 1, &rg);

    mq_upper u;
    memset(&u, 0, sizeof u);
    u.spine_pitch = g->lean * 0.3f;
    u.chest_pitch = g->lean * 0.2f + 0.01f * bob;
    u.spine_yaw = -0.5f * yaw;
    u.chest_yaw = -0.7f * yaw;
    u.spine_roll = -0.6f * g->roll * stance_l;
    u.head_pitch = 0.02f + 0.01f * bob;
    u.head_yaw = 0;
    for (int s = 0; s < 2; s++) {
        /* Arms counter the legs: the left arm is forward when the left leg is back. */
        float f = s ? fwd_l : -fwd_l;
        u.arm_fwd[s] = g->arm_swing * f + 0.05f;
        u.arm_out[s] = 0.03f;
        u.elbow[s] = g->elbow_base + g->elbow_swing * (0.5f + 0.5f * f);
        u.wrist[s] = 0.1f;
    }
    mq_pose_upper(p, &u);
}

#define MQ_IDLE_T 3.0f
#define MQ_BREATH_T 1.5f

static void pose_idle(const mq_rig *rig, float t, mq_pose *p) {
    float shift = wave(t, MQ_IDLE_T, 0);
    float breath = wave(t, MQ_BREATH_T, 0);
    p->hips_pos =
        sk_vec3_make(0.015f * shift, 0.955f - 0.004f * (0.5f + 0.5f * breath), 0.005f * wave(t, MQ_IDLE_T, 0.25f));
    p->rot[J_HIPS] = sk_quat_mul(sk_quat_mul(skm_quat_rot_y(0.03f * wave(t, MQ_IDLE_T, 0.1f)), skm_quat_rot_x(0.01f)),
                                 skm_quat_rot_z(0.025f * shift));
    mq_leg_goal lg = {sk_vec3_make(0.11f, MQ_ANKLE_Y, 0), 0, 0, sk_vec3_make(0.05f, 0, 1)};
    mq_leg_goal rg = {sk_vec3_make(-0.11f, MQ_ANKLE_Y, 0), 0, 0, sk_vec3_make(-0.05f, 0, 1)};
    mq_pose_leg(rig, p, 0, &lg);
    mq_pose_leg(rig, p, 1, &rg);
    mq_upper u;
    memset(&u, 0, sizeof u);
    u.spine_pitch = 0.01f;
    u.chest_pitch = -0.02f * breath;
    u.spine_roll = -0.02f * shift;
    u.chest_yaw = -0.02f * wave(t, MQ_IDLE_T, 0.1f);
    u.clav_raise = 0.015f * (0.5f + 0.5f * breath);
    u.head_pitch = 0.03f + 0.015f * breath;
    u.head_yaw = 0.12f * wave(t, MQ_IDLE_T, 0.6f);
    for (int s = 0; s < 2; s++) {
        u.arm_fwd[s] = 0.04f + 0.03f * wave(t, MQ_IDLE_T, s ? 0.5f : 0.2f);
        u.arm_out[s] = -0.02f + 0.015f * (0.5f + 0.5f * breath);
        u.elbow[s] = 0.15f + 0.03f * wave(t, MQ_IDLE_T, s ? 0.3f : 0.7f);
        u.wrist[s] = 0.12f;
    }
    mq_pose_upper(p, &u);
}

static void pose_crouch(const mq_rig *rig, float t, mq_pose *p) {
    float shift = wave(t, MQ_IDLE_T, 0);
    float breath = wave(t, MQ_BREATH_T, 0);
    p->hips_pos = sk_vec3_make(0.012f * shift, 0.60f + 0.006f * breath, -0.10f);
    p->rot[J_HIPS] = sk_quat_mul(sk_quat_mul(skm_quat_rot_y(0.02f * wave(t, MQ_IDLE_T, 0.15f)), skm_quat_rot_x(0.30f)),
                                 skm_quat_rot_z(0.02f * shift));
    mq_leg_goal lg = {sk_vec3_make(0.13f, MQ_ANKLE_Y, 0.02f), 0, 0, sk_vec3_make(0.35f, 0, 1)};
    mq_leg_goal rg = {sk_vec3_make(-0.13f, MQ_ANKLE_Y, 0.02f), 0, 0, sk_vec3_make(-0.35f, 0, 1)};
    mq_pose_leg(rig, p, 0, &lg);
    mq_pose_leg(rig, p, 1, &rg);
    mq_upper u;
    memset(&u, 0, sizeof u);
    u.spine_pitch = 0.22f;
    u.chest_pitch = 0.15f - 0.02f * breath;
    u.spine_roll = -0.015f * shift;
    u.clav_raise = 0.01f * (0.5f + 0.5f * breath);
    u.head_pitch = -0.05f + 0.01f * breath;
    u.head_yaw = 0.15f * wave(t, MQ_IDLE_T, 0.5f);
    for (int s = 0; s < 2; s++) {
        u.arm_fwd[s] = 1.05f + 0.03f * breath;
        u.arm_out[s] = -0.05f;
        u.elbow[s] = 0.55f;
        u.wrist[s] = 0.2f;
    }
    mq_pose_upper(p, &u);
}

typedef enum {
    MQ_CLIP_IDLE, MQ_CLIP_WALK, MQ_CLIP_RUN, MQ_CLIP_CROUCH, MQ_CLIP_WALK_BACK, MQ_CLIP_STRAFE_L, MQ_CLIP_STRAFE_R,
    MQ_CLIP_COUNT
} mq_clip_kind;
static const char *const mq_clip_names[MQ_CLIP_COUNT] = {"idle",      "walk",        "run",         "crouch",
                                                          "walk_back", "strafe_left", "strafe_right"};

static float clip_duration(mq_clip_kind k) {
    switch (k) {
    case MQ_CLIP_WALK: return mq_walk.period;
    case MQ_CLIP_RUN: return mq_run.period;
    case MQ_CLIP_WALK_BACK: return MQ_WALK_BACK_T;
    case MQ_CLIP_STRAFE_L:
    case MQ_CLIP_STRAFE_R: return MQ_STRAFE_T;
    default: return MQ_IDLE_T;
    }
}

static void pose_at(const mq_rig *rig, mq_clip_kind k, float t, mq_pose *p) {
    for (int j = 0; j < J_COUNT; j++) p->rot[j] = sk_quat_identity();
    switch (k) {
    case MQ_CLIP_WALK: mq_pose_gait(rig, &mq_walk, t, p); break;
    case MQ_CLIP_RUN: mq_pose_gait(rig, &mq_run, t, p); break;
    case MQ_CLIP_CROUCH: pose_crouch(rig, t, p); break;
    case MQ_CLIP_WALK_BACK: mq_pose_walk_back(rig, t, p); break;
    case MQ_CLIP_STRAFE_L: mq_pose_strafe(rig, t, 0, p); break;
    case MQ_CLIP_STRAFE_R: mq_pose_strafe(rig, t, 1, p); break;
    default: pose_idle(rig, t, p); break;
    }
}

/* Samples the authored motion at 30 Hz into a clip: one hips translation
 * track and a rotation track per joint, LINEAR. */
static sk_result build_clip(const mq_rig *rig, mq_clip_kind k, float scale, const sk_allocator *alloc,
                            sk_clip **out, sk_error *err) {
    float dur = clip_duration(k);
    uint32_t frames = (uint32_t)lrintf(dur * MQ_FPS);
    uint32_t keys = frames + 1;
    size_t floats = (size_t)keys * (1 + 3 + 4 * J_COUNT);
    float *mem = sk_alloc(alloc, floats * sizeof(float));
    if (!mem) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "mannequin: out of memory");
    float *times = mem, *trans = times + keys, *rots = trans + 3 * keys;
    mq_pose p;
    for (uint32_t i = 0; i < keys; i++) {
        float t = dur * (float)i / (float)frames;
        times[i] = t;
        pose_at(rig, k, t, &p);
        trans[3 * i + 0] = p.hips_pos.x * scale;
        trans[3 * i + 1] = p.hips_pos.y * scale;
        trans[3 * i + 2] = p.hips_pos.z * scale;
        for (int j = 0; j < J_COUNT; j++) {
            sk_quat q = sk_quat_normalize(p.rot[j]);
            float *dst = rots + ((size_t)j * keys + i) * 4;
            if (i > 0) { /* stay in one hemisphere from key to key */
                const float *prev = dst - 4;
                if (q.x * prev[0] + q.y * prev[1] + q.z * prev[2] + q.w * prev[3] < 0)
                    q = sk_quat_make(-q.x, -q.y, -q.z, -q.w);
            }
            dst[0] = q.x; dst[1] = q.y; dst[2] = q.z; dst[3] = q.w;
        }
    }
    sk_clip_builder *b = NULL;
    sk_result r = sk_clip_builder_create(mq_clip_names[k], alloc, &b, err);
    if (r == SK_OK) {
        sk_track_desc td = {J_HIPS, SK_PATH_TRANSLATION, SK_INTERP_LINEAR, keys, times, trans, 3};
        r = sk_clip_builder_add_track(b, &td, err);
    }
    for (int j = 0; r == SK_OK && j < J_COUNT; j++) {
        sk_track_desc td = {(uint32_t)j, SK_PATH_ROTATION, SK_INTERP_LINEAR, keys, times,
                            rots + (size_t)j * keys * 4, 4};
        r = sk_clip_builder_add_track(b, &td, err);
    }
    if (r == SK_OK) {
        sk_clip_builder_set_duration(b, dur);
        r = sk_clip_builder_finish(b, out, err);
    } else if (b) {
        sk_clip_builder_destroy(b);
    }
    sk_free(alloc, mem, floats * sizeof(float));
    return r;
}

/* ---- mesh --------------------------------------------------------------------- */

typedef struct mq_part {
    int joint;
    sk_vec3 a, b;          /* axis end points */
    float ra[2], rb[2];    /* radii at a and b along the frame's u and v */
    float cap_a, cap_b;    /* how far the rounded caps extend beyond a and b */
    sk_vec3 up;            /* reference for the u axis */
    int parent_blend;      /* blend with the parent joint around this joint */
    int child;             /* joint to blend with around its position, or -1 */
} mq_part;

#define MQ_MAX_PARTS 24

static int mirror_joint(int j) {
    if (j >= J_CLAV_L && j <= J_HAND_L) return j + 4;
    if (j >= J_THIGH_L && j <= J_TOE_L) return j + 4;
    return j;
}

static uint32_t build_parts(const mq_rig *rig, mq_part *parts) {
    const sk_vec3 *w = rig->world;
    const sk_vec3 X = {1, 0, 0}, Y = {0, 1, 0};
    sk_vec3 d = rig->arm_dir[0];
    uint32_t n = 0;
#define PART(j, A, B, ra0, ra1, rb0, rb1, ca, cb, UP, pb, ch) \
    parts[n++] = (mq_part){(j), (A), (B), {(ra0), (ra1)}, {(rb0), (rb1)}, (ca), (cb), (UP), (pb), (ch)}
    /* torso and head (centre line) */
    PART(J_HIPS, sk_vec3_make(0, 0.86f, 0), sk_vec3_make(0, 1.03f, 0),
         0.15f, 0.10f, 0.14f, 0.095f, 0.06f, 0.04f, X, 0, J_SPINE);
    PART(J_SPINE, sk_vec3_make(0, 1.06f, 0), sk_vec3_make(0, 1.24f, 0),
         0.135f, 0.095f, 0.145f, 0.10f, 0.03f, 0.03f, X, 1, J_CHEST);
    PART(J_CHEST, sk_vec3_make(0, 1.27f, 0), sk_vec3_make(0, 1.42f, 0),
         0.16f, 0.11f, 0.17f, 0.10f, 0.04f, 0.06f, X, 1, J_NECK);
    PART(J_NECK, sk_vec3_make(0, 1.48f, 0), sk_vec3_make(0, 1.60f, 0),
         0.05f, 0.05f, 0.045f, 0.045f, 0.03f, 0.03f, X, 1, J_HEAD);
    PART(J_HEAD, sk_vec3_make(0, 1.66f, 0.015f), sk_vec3_make(0, 1.72f, 0.015f),
         0.08f, 0.095f, 0.08f, 0.095f, 0.09f, 0.08f, X, 1, -1);
    /* left limbs; the right ones are mirrored below */
    uint32_t first_side = n;
    PART(J_CLAV_L, w[J_CLAV_L], w[J_UPARM_L], 0.045f, 0.045f, 0.05f, 0.05f, 0.02f, 0.04f, Y, 1, J_UPARM_L);
    PART(J_UPARM_L, w[J_UPARM_L], w[J_FOREARM_L], 0.05f, 0.05f, 0.04f, 0.04f, 0.04f, 0.035f, X, 1, J_FOREARM_L);
    PART(J_FOREARM_L, w[J_FOREARM_L], w[J_HAND_L], 0.04f, 0.04f, 0.03f, 0.032f, 0.035f, 0.03f, X, 1, J_HAND_L);
    PART(J_HAND_L, w[J_HAND_L], sk_vec3_add(w[J_HAND_L], sk_vec3_scale(d, MQ_HAND_LEN - 0.04f)),
         0.018f, 0.035f, 0.014f, 0.04f, 0.02f, 0.03f, X, 0, -1);
    PART(J_THIGH_L, w[J_THIGH_L], w[J_SHIN_L], 0.085f, 0.085f, 0.055f, 0.058f, 0.07f, 0.05f, X, 1, J_SHIN_L);
    PART(J_SHIN_L, w[J_SHIN_L], w[J_FOOT_L], 0.055f, 0.058f, 0.037f, 0.04f, 0.05f, 0.035f, X, 1, J_FOOT_L);
    /* The foot ends just behind the ball so that rolling on the toes never
     * pushes it into the ground; the toe part covers the ball. */
    PART(J_FOOT_L, sk_vec3_make(MQ_HIP_X, 0.045f, -0.03f), sk_vec3_make(MQ_HIP_X, 0.045f, 0.095f),
         0.045f, 0.042f, 0.036f, 0.05f, 0.04f, 0.025f, Y, 0, J_TOE_L);
    PART(J_TOE_L, sk_vec3_make(MQ_HIP_X, 0.028f, 0.13f), sk_vec3_make(MQ_HIP_X, 0.028f, 0.17f),
         0.028f, 0.05f, 0.025f, 0.042f, 0.025f, 0.025f, Y, 1, -1);
    uint32_t last_side = n;
    for (uint32_t i = first_side; i < last_side; i++) {
        mq_part m = parts[i];
        m.joint = mirror_joint(m.joint);
        m.child = m.child < 0 ? -1 : mirror_joint(m.child);
        m.a = mirror_x(m.a);
        m.b = mirror_x(m.b);
        m.up = mirror_x(m.up);
        parts[n++] = m;
    }
#undef PART
    return n;
}

typedef struct mq_mesh_build {
    float *pos, *nrm, *wts;
    uint16_t *jnt;
    uint32_t *idx;
    uint32_t vcount, icount;
} mq_mesh_build;

/* Odd smooth step on [-1, 1]: -1 -> 1 with zero slope at both ends. */
static float smooth_pm1(float x) { x = skm_clampf(x, -1, 1); return 0.5f * x * (3 - x * x); }

static void vertex_weights(const mq_rig *rig, const mq_part *pt, sk_vec3 p, uint16_t *jo, float *wo) {
    float w[3] = {0, 0, 0};
    int j[3] = {pt->joint, -1, -1};
    sk_vec3 dir = sk_vec3_normalize(sk_vec3_sub(pt->b, pt->a));
    float ra = 0.5f * (pt->ra[0] + pt->ra[1]), rb = 0.5f * (pt->rb[0] + pt->rb[1]);
    if (pt->parent_blend && mq_parents[pt->joint] >= 0) {
        float delta = sk_vec3_dot(sk_vec3_sub(p, rig->world[pt->joint]), dir);
        j[1] = mq_parents[pt->joint];
        w[1] = 0.5f * (1 - smooth_pm1(delta / (1.1f * ra)));
    }
    if (pt->child >= 0) {
        float delta = sk_vec3_dot(sk_vec3_sub(rig->world[pt->child], p), dir);
        j[2] = pt->child;
        w[2] = 0.5f * (1 - smooth_pm1(delta / (1.1f * rb)));
    }
    w[0] = 1 - w[1] - w[2];
    if (w[0] < 0) w[0] = 0;
    /* Drop negligible influences, sort by weight, renormalise (sum exactly 1). */
    uint16_t oj[4] = {0, 0, 0, 0};
    float ow[4] = {0, 0, 0, 0};
    int n = 0;
    for (int k = 0; k < 3; k++)
        if (j[k] >= 0 && w[k] > 1e-3f) { oj[n] = (uint16_t)j[k]; ow[n] = w[k]; n++; }
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && ow[b] > ow[b - 1]; b--) {
            float tw = ow[b]; ow[b] = ow[b - 1]; ow[b - 1] = tw;
            uint16_t tj = oj[b]; oj[b] = oj[b - 1]; oj[b - 1] = tj;
        }
    float sum = 0;
    for (int k = 0; k < n; k++) sum += ow[k];
    float rest = 1.0f;
    for (int k = 1; k < n; k++) { ow[k] /= sum; rest -= ow[k]; }
    ow[0] = rest;
    memcpy(jo, oj, sizeof oj);
    memcpy(wo, ow, sizeof ow);
}

static uint32_t part_ring_count(const mq_part *pt, uint32_t cap_rings) {
    float len = sk_vec3_length(sk_vec3_sub(pt->b, pt->a));
    uint32_t cyl = (uint32_t)ceilf(len / 0.02f);
    if (cyl < 2) cyl = 2;
    return (cyl + 1) + 2 * cap_rings; /* rings, poles excluded */
}

/* Emits one capsule: rings along the axis (cylinder part and rounded caps),
 * a pole vertex at each end. */
static void emit_part(const mq_rig *rig, const mq_part *pt, uint32_t seg, uint32_t cap_rings,
                      mq_mesh_build *m) {
    sk_vec3 axis = sk_vec3_sub(pt->b, pt->a);
    float len = sk_vec3_length(axis);
    sk_vec3 dir = sk_vec3_scale(axis, 1.0f / len);
    sk_vec3 u = sk_vec3_normalize(skm_vec3_reject(pt->up, dir));
    sk_vec3 v = sk_vec3_cross(dir, u);
    uint32_t rings = part_ring_count(pt, cap_rings);
    uint32_t cyl = rings - 1 - 2 * cap_rings; /* cylinder intervals */
    uint32_t base = m->vcount;
    /* vertex 0: pole at a; then rings; last: pole at b */
    for (uint32_t r = 0; r < rings + 2; r++) {
        float s, scale_r, r0, r1; /* axial position, radial factor, radii */
        if (r == 0 || r == rings + 1) {
            s = r == 0 ? -pt->cap_a : len + pt->cap_b;
            scale_r = 0;
            r0 = r1 = 0;
        } else {
            uint32_t k = r - 1;
            if (k < cap_rings) { /* cap at a: angle from the pole */
                float ang = 0.5f * SKM_PI * (float)(k + 1) / (float)(cap_rings + 1);
                s = -pt->cap_a * cosf(ang);
                scale_r = sinf(ang);
                r0 = pt->ra[0]; r1 = pt->ra[1];
            } else if (k < cap_rings + cyl + 1) {
                float f = (float)(k - cap_rings) / (float)cyl;
                s = len * f;
                scale_r = 1;
                r0 = pt->ra[0] + (pt->rb[0] - pt->ra[0]) * f;
                r1 = pt->ra[1] + (pt->rb[1] - pt->ra[1]) * f;
            } else {
                uint32_t c = k - (cap_rings + cyl + 1);
                float ang = 0.5f * SKM_PI * (float)(cap_rings - c) / (float)(cap_rings + 1);
                s = len + pt->cap_b * cosf(ang);
                scale_r = sinf(ang);
                r0 = pt->rb[0]; r1 = pt->rb[1];
            }
        }
        sk_vec3 c = sk_vec3_add(pt->a, sk_vec3_scale(dir, s));
        uint32_t count = (r == 0 || r == rings + 1) ? 1 : seg;
        for (uint32_t i = 0; i < count; i++) {
            float th = 2 * SKM_PI * (float)i / (float)seg;
            sk_vec3 p = sk_vec3_add(c, sk_vec3_add(sk_vec3_scale(u, r0 * scale_r * cosf(th)),
                                                   sk_vec3_scale(v, r1 * scale_r * sinf(th))));
            uint32_t vi = m->vcount++;
            m->pos[3 * vi + 0] = p.x; m->pos[3 * vi + 1] = p.y; m->pos[3 * vi + 2] = p.z;
            vertex_weights(rig, pt, p, m->jnt + 4 * vi, m->wts + 4 * vi);
        }
    }
    /* Triangles, counter-clockwise seen from outside: (u, v, dir) is right-handed. */
    uint32_t pole_a = base, pole_b = base + 1 + rings * seg;
    for (uint32_t i = 0; i < seg; i++) {
        uint32_t i1 = (i + 1) % seg;
        uint32_t *ix = m->idx + m->icount;
        ix[0] = pole_a; ix[1] = base + 1 + i1; ix[2] = base + 1 + i;
        m->icount += 3;
    }
    for (uint32_t r = 0; r + 1 < rings; r++) {
        uint32_t lo = base + 1 + r * seg, hi = lo + seg;
        for (uint32_t i = 0; i < seg; i++) {
            uint32_t i1 = (i + 1) % seg;
            uint32_t *ix = m->idx + m->icount;
            ix[0] = lo + i; ix[1] = lo + i1; ix[2] = hi + i1;
            ix[3] = lo + i; ix[4] = hi + i1; ix[5] = hi + i;
            m->icount += 6;
        }
    }
    uint32_t last = base + 1 + (rings - 1) * seg;
    for (uint32_t i = 0; i < seg; i++) {
        uint32_t i1 = (i + 1) % seg;
        uint32_t *ix = m->idx + m->icount;
        ix[0] = last + i; ix[1] = last + i1; ix[2] = pole_b;
        m->icount += 3;
    }
}

/* Smooth normals: area-weighted face normals accumulated per vertex. */
static void compute_normals(mq_mesh_build *m) {
    for (uint32_t t = 0; t + 2 < m->icount; t += 3) {
        const uint32_t *ix = m->idx + t;
        sk_vec3 p[3];
        for (int k = 0; k < 3; k++)
            p[k] = sk_vec3_make(m->pos[3 * ix[k]], m->pos[3 * ix[k] + 1], m->pos[3 * ix[k] + 2]);
        sk_vec3 n = sk_vec3_cross(sk_vec3_sub(p[1], p[0]), sk_vec3_sub(p[2], p[0]));
        for (int k = 0; k < 3; k++) {
            m->nrm[3 * ix[k] + 0] += n.x;
            m->nrm[3 * ix[k] + 1] += n.y;
            m->nrm[3 * ix[k] + 2] += n.z;
        }
    }
    for (uint32_t i = 0; i < m->vcount; i++) {
        sk_vec3 n = sk_vec3_normalize(sk_vec3_make(m->nrm[3 * i], m->nrm[3 * i + 1], m->nrm[3 * i + 2]));
        if (sk_vec3_length(n) < 0.5f) n = sk_vec3_make(0, 1, 0);
        m->nrm[3 * i] = n.x; m->nrm[3 * i + 1] = n.y; m->nrm[3 * i + 2] = n.z;
    }
}

static sk_result build_mesh(sk_asset *asset, const mq_rig *rig, uint32_t seg, float scale,
                            sk_mesh **out_mesh, sk_error *err) {
    mq_part parts[MQ_MAX_PARTS];
    uint32_t np = build_parts(rig, parts);
    uint32_t cap_rings = seg / 4 < 2 ? 2 : seg / 4;
    size_t vcount = 0, icount = 0;
    for (uint32_t i = 0; i < np; i++) {
        uint32_t rings = part_ring_count(&parts[i], cap_rings);
        vcount += (size_t)rings * seg + 2;
        icount += (size_t)seg * 6 + (size_t)(rings - 1) * seg * 6;
    }
    if (vcount > 0xFFFFFFFFu / 4 || icount > 0xFFFFFFFFu)
        return sk_error_set(err, SK_ERR_LIMIT, "mannequin: %u segments make too many vertices", seg);
    mq_mesh_build m;
    memset(&m, 0, sizeof m);
    m.pos = sk_asset_alloc(asset, vcount * 3 * sizeof(float));
    m.nrm = sk_asset_alloc(asset, vcount * 3 * sizeof(float));
    m.wts = sk_asset_alloc(asset, vcount * 4 * sizeof(float));
    m.jnt = sk_asset_alloc(asset, vcount * 4 * sizeof(uint16_t));
    m.idx = sk_asset_alloc(asset, icount * sizeof(uint32_t));
    sk_primitive *prim = sk_asset_alloc(asset, sizeof *prim);
    sk_mesh *mesh = sk_asset_alloc(asset, sizeof *mesh);
    if (!m.pos || !m.nrm || !m.wts || !m.jnt || !m.idx || !prim || !mesh)
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "mannequin: out of memory");
    for (uint32_t i = 0; i < np; i++) emit_part(rig, &parts[i], seg, cap_rings, &m);
    compute_normals(&m);
    for (uint32_t i = 0; i < m.vcount * 3; i++) m.pos[i] *= scale;
    prim->mode = 4;
    prim->vertex_count = m.vcount;
    prim->positions = m.pos;
    prim->normals = m.nrm;
    prim->influence_count = 4;
    prim->joints = m.jnt;
    prim->weights = m.wts;
    prim->index_count = m.icount;
    prim->indices = m.idx;
    prim->material = 0;
    prim->base_color[0] = 0.62f;
    prim->base_color[1] = 0.66f;
    prim->base_color[2] = 0.72f;
    prim->base_color[3] = 1.0f;
    mesh->name = "mannequin";
    mesh->primitive_count = 1;
    mesh->primitives = prim;
    *out_mesh = mesh;
    return SK_OK;
}

/* ---- the asset ------------------------------------------------------------------ */

sk_result sk_mannequin_create(const sk_mannequin_desc *desc, const sk_allocator *alloc,
                              sk_asset **out, sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_mannequin_create: out is NULL");
    *out = NULL;
    float height = desc && desc->height != 0 ? desc->height : 1.8f;
    uint32_t seg = desc && desc->segments ? desc->segments : 16;
    if (!sk_isfinite_f(height) || height <= 0 || height > 1000.0f)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_mannequin_create: height %g is not in (0, 1000]",
                            (double)height);
    if (seg < 3 || seg > 256)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_mannequin_create: segments %u is not in [3, 256]",
                            seg);
    float scale = height / 1.8f;
    mq_rig rig;
    rig_init(&rig);

    sk_asset *asset = NULL;
    sk_result r = sk_asset_create_empty(alloc, &asset, err);
    if (r != SK_OK) return r;
    const sk_allocator *a = sk_asset_allocator(asset);

    sk_transform rest[MQ_NODE_COUNT];
    for (int j = 0; j < MQ_NODE_COUNT; j++) {
        rest[j] = sk_transform_identity();
        if (j < J_COUNT) rest[j].t = sk_vec3_scale(rig.off[j], scale);
    }
    sk_skeleton_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.joint_count = MQ_NODE_COUNT;
    sd.parents = mq_parents;
    sd.names = mq_names;
    sd.rest = rest;
    r = sk_skeleton_create(&sd, a, &asset->skeleton, err);
    if (r != SK_OK) goto fail;

    uint32_t *n2j = sk_asset_alloc(asset, MQ_NODE_COUNT * sizeof(uint32_t));
    uint32_t *j2n = sk_asset_alloc(asset, MQ_NODE_COUNT * sizeof(uint32_t));
    int32_t *jmesh = sk_asset_alloc(asset, MQ_NODE_COUNT * sizeof(int32_t));
    int32_t *jskin = sk_asset_alloc(asset, MQ_NODE_COUNT * sizeof(int32_t));
    sk_skin *skin = sk_asset_alloc(asset, sizeof *skin);
    uint32_t *skin_joints = sk_asset_alloc(asset, J_COUNT * sizeof(uint32_t));
    sk_mat4 *ibm = sk_asset_alloc(asset, J_COUNT * sizeof(sk_mat4));
    sk_scene *scene = sk_asset_alloc(asset, sizeof *scene);
    uint32_t *roots = sk_asset_alloc(asset, 2 * sizeof(uint32_t));
    sk_clip **clips = sk_asset_alloc(asset, MQ_CLIP_COUNT * sizeof(sk_clip *));
    if (!n2j || !j2n || !jmesh || !jskin || !skin || !skin_joints || !ibm || !scene || !roots || !clips) {
        r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "mannequin: out of memory");
        goto fail;
    }
    for (uint32_t j = 0; j < MQ_NODE_COUNT; j++) {
        n2j[j] = j2n[j] = j;
        jmesh[j] = jskin[j] = -1;
    }
    jmesh[J_COUNT] = 0;
    jskin[J_COUNT] = 0;
    asset->node_count = MQ_NODE_COUNT;
    asset->node_to_joint = n2j;
    asset->joint_to_node = j2n;
    asset->joint_mesh = jmesh;
    asset->joint_skin = jskin;

    /* Rest model matrices are pure translations (identity rest rotations). */
    for (uint32_t j = 0; j < J_COUNT; j++) {
        skin_joints[j] = j;
        ibm[j] = sk_mat4_identity();
        ibm[j].m[12] = -rig.world[j].x * scale;
        ibm[j].m[13] = -rig.world[j].y * scale;
        ibm[j].m[14] = -rig.world[j].z * scale;
    }
    skin->name = "mannequin_skin";
    skin->joint_count = J_COUNT;
    skin->joints = skin_joints;
    skin->inverse_bind = ibm;
    skin->skeleton_root = J_HIPS;
    asset->skin_count = 1;
    asset->skins = skin;

    sk_mesh *mesh = NULL;
    r = build_mesh(asset, &rig, seg, scale, &mesh, err);
    if (r != SK_OK) goto fail;
    asset->mesh_count = 1;
    asset->meshes = mesh;

    asset->clips = clips;
    for (int k = 0; k < MQ_CLIP_COUNT; k++) {
        r = build_clip(&rig, (mq_clip_kind)k, scale, a, &clips[k], err);
        if (r != SK_OK) goto fail;
        asset->clip_count = (uint32_t)k + 1;
    }

    roots[0] = J_HIPS;
    roots[1] = J_COUNT;
    scene->name = "mannequin";
    scene->root_count = 2;
    scene->roots = roots;
    asset->scene_count = 1;
    asset->scenes = scene;
    asset->default_scene = 0;
    asset->generator = "skelanim";
    *out = asset;
    return SK_OK;
fail:
    sk_asset_destroy(asset);
    return r;
}

sk_result sk_mannequin_leg_limits(const sk_skeleton *skel, sk_ik_limit *out, uint32_t count, sk_error *err) {
    if (!skel || !out || count < skel->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "mannequin limits: NULL skeleton/output or a short array");
    for (uint32_t j = 0; j < skel->joint_count; j++) memset(&out[j], 0, sizeof out[j]);
    static const char *const names[6] = {"thigh_l", "shin_l", "foot_l", "thigh_r", "shin_r", "foot_r"};
    for (int k = 0; k < 6; k++) {
        int32_t j = sk_skeleton_find(skel, names[k]);
        if (j < 0) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "mannequin limits: no joint %s", names[k]);
        sk_ik_limit *l = &out[j];
        switch (k % 3) {
        case 0: /* hip */
            l->type = SK_IK_LIMIT_EULER;
            l->euler_min = sk_vec3_make(-2.3f, -0.6f, -0.6f);
            l->euler_max = sk_vec3_make(0.7f, 0.6f, 0.6f);
            break;
        case 1: /* knee */
            l->type = SK_IK_LIMIT_HINGE;
            l->axis = sk_vec3_make(1, 0, 0);
            l->min = 0.0f;
            l->max = 2.7f;
            break;
        default: /* ankle: dorsiflexion 20, plantarflexion 50 degrees (AAOS) */
            l->type = SK_IK_LIMIT_EULER;
            l->euler_min = sk_vec3_make(-0.349f, -0.5f, -0.5f);
            l->euler_max = sk_vec3_make(0.873f, 0.5f, 0.5f);
            break;
        }
    }
    return SK_OK;
}

sk_result sk_mannequin_arm_limits(const sk_skeleton *skel, sk_ik_limit *out, uint32_t count, sk_error *err) {
    if (!skel || !out || count < skel->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "mannequin limits: NULL skeleton/output or a short array");
    for (uint32_t j = 0; j < skel->joint_count; j++) memset(&out[j], 0, sizeof out[j]);
    static const char *const names[4] = {"upperarm_l", "forearm_l", "upperarm_r", "forearm_r"};
    for (int k = 0; k < 4; k++) {
        int32_t j = sk_skeleton_find(skel, names[k]);
        if (j < 0) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "mannequin limits: no joint %s", names[k]);
        sk_ik_limit *l = &out[j];
        float side = k < 2 ? 1.0f : -1.0f; /* abduction: +Z for the left arm, -Z for the right */
        if (k % 2 == 0) { /* shoulder */
            l->type = SK_IK_LIMIT_EULER;
            l->euler_min = sk_vec3_make(-3.1f, -1.2f, side > 0 ? -0.75f : -2.9f);
            l->euler_max = sk_vec3_make(1.05f, 1.2f, side > 0 ? 2.9f : 0.75f);
        } else { /* elbow: flexion turns the forearm forward, -X */
            l->type = SK_IK_LIMIT_HINGE;
            l->axis = sk_vec3_make(1, 0, 0);
            l->min = -2.6f;
            l->max = 0.0f;
        }
    }
    return SK_OK;
}
