/* Private to the IK-only procedural walker (procedural.c, the frame;
 * procedural_create.c, its setup): the walker's state and the small helpers
 * both read. Not installed. */
#ifndef SKELANIM_LOCOMOTION_PROCEDURAL_INTERNAL_H
#define SKELANIM_LOCOMOTION_PROCEDURAL_INTERNAL_H

#include "core/internal.h"
#include "core/math_inline.h"
#include "footstep.h"
#include "skelanim/locomotion/procedural.h"

#include <math.h>
#include <string.h>

#define GRAVITY 9.81f
#define C_RATE 3.0f
#define GUARD_MARGIN 0.005f
#define LEDGE_MARGIN 0.04f
/* the foot's largest pitch on the ground (rad): 14 degrees toe up, 34 toe
 * down; steeper ground is stood on the ball of the foot (uphill) or on the
 * heel (downhill) */
#define FOOT_PITCH_UP 0.25f
#define FOOT_TAN_UP 0.2553f /* tan(FOOT_PITCH_UP) */
#define FOOT_PITCH_DOWN 0.45f
#define FOOT_TAN_DOWN 0.4830f /* tan(FOOT_PITCH_DOWN) */
/* the foot bends up toward the shin at most this far past its rest angle
 * (rad, 17 degrees; the mannequin's ankle allows 20, a person's clinical
 * dorsiflexion), and down at most FOOT_PLANTAR_MAX (43 degrees; it allows
 * 50): beyond, it pivots on its toe (heel-off) or its heel. A swinging foot
 * keeps FOOT_LAND_MARGIN x s more room on the dorsiflexion side, so a foot
 * that lands on its ball (steep ground uphill, stairs) has that much left
 * for its stance: it stands as it landed, heel raised, until heel-off. */
#define FOOT_DORSI_MAX 0.30f
#define FOOT_PLANTAR_MAX 0.75f
#define FOOT_LAND_MARGIN 0.08f
/* the ankle's roll and twist at most (rad, 28 degrees: a person's
 * inversion; the mannequin allows 29, and a flat foot across a 30 degree
 * slope needs up to that) */
#define FOOT_ROLL_MAX 0.49f
/* past FOOT_DORSI_MAX / FOOT_PLANTAR_MAX by this after the pivots (rad), the
 * ankle is turned back to it: 19.5 and 45.3 degrees, inside the mannequin's */
#define FOOT_GUARD 0.04f
/* the hip bob per step: (-4 (s - 0.5)^2 + 0.25) / rise in units of 2 cm
 * (-0.75 at the step's ends, 0.25 at its middle: with the default rise 0.2
 * the hips 7.5 cm lower at the ends than at s = 0.25 and 0.75 and 2.5 cm
 * higher at the middle; with 0.1 twice that, with 1 a fifth) */
#define HIP_BOB_UNIT 0.02f
#define HIP_RISE_DEFAULT 0.2f
#define PROC_LOOK_MAX 8u /* joints of the gaze chain, spine to head, at most */

typedef struct pleg {
    uint32_t hip, knee, ankle, tip;
    sk_vec3 heel_pt, toe_pt;
    float length;
    float lateral;            /* x of the heel in character space at rest */
    sk_vec3 ankle_off;        /* rest: ankle - heel, character space */
    sk_vec3 foot_dir;         /* rest: toe - heel on the ground, character space */
    sk_quat ankle_rest_c;     /* rest world rotation of the ankle, character space */
    float shin_foot_rest;     /* rest angle from ankle -> knee to heel -> toe about +X (rad) */
    float piv_c, piv_s, piv_half; /* cos, sin of the middle of the foot's range, cos of its half width */
    /* the knee's and ankle's rest frames have the character's lateral axis
     * as their X (the mannequin, the planar rig): the bend is the ankle's
     * Euler X against the shin, as an EULER limit measures it (eul_sign: +X
     * or -X), its range's middle eul_c, eul_s */
    float eul_sign, eul_c, eul_s;
    sk_vec3 hinge;            /* the knee's hinge: the character's lateral axis in the knee's frame */
    bool hinge_ok;            /* hip -> knee -> ankle a parent chain: the analytic hinge solve */
    float l1, l2, phi0;       /* thigh, shin (rest) and the rest angle at the knee between them */
    float bend_sign, plane_sign; /* knee flexion about +/- hinge; the hinge vs (hip->ankle x hip->knee) */
    sk_footstep step;         /* where it stands (support) / where it goes (swing) */
    sk_footstep from;         /* where the swing started */
    bool clr_valid;
    sk_vec3 clr_c;
    float clr_h;
    float clr_top;            /* the highest ground seen between A and C (and under both feet there) */
    float guard;
    int edge_pref;
    /* the last landing point cast (landing): reused while its heel base,
     * yaw and the support foot have not moved (walking straight at a steady
     * speed the point stays put while the body walks toward it) */
    bool land_valid;
    sk_vec3 land_base, land_support;
    float land_yaw;
    sk_footstep land_out;
    /* the last foot_pivot: on the toe only, and the rotation it added */
    bool piv_toe;
    sk_quat piv_q;
    float piv_k;              /* bend change per pivot turn, from the last pivot */
} pleg;

typedef struct parm {
    uint32_t shoulder, elbow, hand;
    float length;             /* rest: shoulder -> elbow -> hand */
    float point_w;            /* pointing weight (0: the swing) */
    sk_vec3 point;            /* world target */
} parm;

struct sk_procedural {
    sk_allocator alloc;
    size_t size;
    sk_procedural_desc d;
    const sk_skeleton *skel;
    uint32_t J, body, arms;
    pleg leg[2];
    parm arm[2];
    sk_vec3 *rt, *rs;         /* rest model transforms (character frame at the origin) */
    sk_quat *rr;
    sk_mat4 *model;           /* J world matrices (root: st.root) of the pose the frame writes */
    bool *need;               /* the joints the frame's first FK computes: the legs' and arms' ancestors */
    bool *late;               /* the joints no step computes: filled in at the end of the frame */
    bool model_valid;         /* model holds the last update's pose */
    bool events_seen;         /* a frame was updated since the reset (footstep events compare with it) */
    bool contact[2];          /* each foot on the ground last frame: planted and within 2 cm of its step */
    sk_footstep stood[2];     /* where each foot came down last (its UP event's place) */
    sk_quat yq;               /* the facing this frame: rotation about +Y, and its sine and cosine */
    float ys, yc;
    float hip_h;              /* rest body height above the heels */
    float leg_len, walk, runv, step0, lift0, crouch, jump_v, down_max, up_max;
    float rise;               /* the hip rise divisor (0.1..1): the bob is HIP_BOB_UNIT x q(s) / rise */
    float rest_w, rest_a;     /* the rest step's end: heels apart across (0: the hips'), the foot ahead */
    ground_probe ground;
    sk_motion_tracker tracker;
    /* motion */
    float ground_y;           /* smoothed ground under the body */
    float vy, body_y;         /* airborne: vertical speed, body height */
    float absorb, absorb_t;   /* landing: depth and time left */
    double crouch_t;
    bool stopping_step;       /* the rest step */
    bool walking;             /* stepping (also under a crouch or a landing) */
    float step_len;           /* the length of the step being taken */
    /* across a slope: the body's facing and the feet turned toward the fall
     * line by these (rad, signed about +Y; cross_slope()) */
    float xs_body, xs_foot;
    float xs_tan;             /* the ground's rise per metre across the velocity, smoothed */
    int xs_side;              /* turning uphill (1), downhill (-1), not turning (0) */
    sk_vec3 xs_n;             /* the ground normal under the character, smoothed over XS_NORMAL s */
    /* crouched walking (procedural_posture.c): the height asked for (0:
     * upright), the crouch's progress 0..1, the highest joint's height
     * over the body joint at rest */
    float crouch_h, crouch_k, top_h;
    /* the torso's lean: the spine joint turned (-1: none found), the speed
     * along the facing last frame and the smoothed acceleration */
    int32_t spine;
    float lean_vf, lean_acc;
    bool lean_have_v;
    /* gaze: the chain spine .. highest joint, the head's aim and up axes
     * in its own frame, the target and weight (0: none) */
    uint32_t look_chain[PROC_LOOK_MAX], look_n;
    sk_vec3 look_axis, look_up, look;
    float look_w;
    float bal_k;              /* balancing at an edge ahead: 0..1 (procedural_posture.c) */
    float bal_back;           /* how far the hips go back balancing: over the back foot (m) */
    /* pushes (procedural_push.c): the body's offset from the caller's point
     * and its velocity; the fall's progress (-1: none), direction, start
     * height and place */
    sk_vec3 push_d, push_u;
    float fall_k, fall_y0;
    sk_vec3 fall_dir, fall_at;
    /* the ledge hang (procedural_hang.c): its phase (none, hanging, the
     * drop, walking on to the caller's point), time in the phase, the
     * drop's turn time; the edge, the way out over the drop, the facing
     * to the wall and from before, where the body was when it stepped
     * off, the point it hangs from (then lands at), ground below, hands */
    int hang_phase;
    double hang_t;
    float hang_turn, hang_yaw, hang_yaw0, hang_pushed;
    sk_vec3 hang_edge, hang_out, hang_p0, hang_at, hang_hand[2];
    bool hang_below, hang_landed;
    sk_procedural_state st;
};

/* procedural_posture.c: the crouch's progress over dt; the step length's
 * factor under it; the body's height under the crouch's cap, never below
 * floor_y (the deepest crouch), setting st.crouch. */
/* The deepest crouch, as a share of the leg: the hips 0.4 leg lengths
 * lower; and never nearer than CROUCH_FOLD leg lengths over either ankle
 * (the knee then bends about 140 degrees, inside the mannequin's 155: a
 * foot on a higher tread, or swinging up, folds the leg more). */
#define CROUCH_MAX_SHARE 0.4f
#define CROUCH_FOLD 0.38f
void proc_crouch_step(sk_procedural *P, double dt);
float proc_crouch_step_scale(const sk_procedural *P);
float proc_crouch_body(sk_procedural *P, float body_y, float floor_y);
/* The torso's lean this frame (state.lean_pitch, lean_roll), applied to
 * the spine joint of loc and its subtree's model matrices. */
void proc_lean(sk_procedural *P, sk_transform *loc, double dt);
/* Balancing at an edge: its weight over dt (st.balance); the arms' sideways
 * raise (rad) and the hips' shift back (m) it asks for. */
void proc_balance(sk_procedural *P, double dt);
/* An edge (no ground, or lower than a step) within BAL_LOOK ahead of a
 * toe at feet_y along yaw: the rest step then stops with that foot in
 * front and the other EDGE_REST_BACK leg lengths behind it. */
#define EDGE_REST_BACK 0.3f
bool proc_edge_ahead(sk_procedural *P, sk_vec3 toe, float yaw, float feet_y);
float proc_balance_raise(const sk_procedural *P);
float proc_balance_back(const sk_procedural *P);
/* Pushes: the point the walker steps for this frame (the caller's plus
 * the push's offset, integrated over dt; while falling, where it fell);
 * whether it is falling or lying; the fall's pose this frame (the whole
 * pose, its world matrices and the feet). */
void proc_push_point(sk_procedural *P, double dt, float *x, float *z);
bool proc_falling(const sk_procedural *P);
void proc_fall_pose(sk_procedural *P, sk_transform *loc, double dt);
/* The ledge hang: started (true) instead of a fall off a drop deeper than
 * the character is tall (ledge_y: the ground it walked on; below_y the
 * ground under the point, when has_ground); whether it hangs now; the
 * point and facing the walker follows while it hangs, drops and walks on
 * to the caller's; the whole pose while it hangs (its matrices, the feet,
 * letting go into AIRBORNE at the end). */
bool proc_hang_start(sk_procedural *P, float ledge_y, bool has_ground, float below_y, sk_vec3 dir);
bool proc_hanging(const sk_procedural *P);
void proc_hang_point(sk_procedural *P, double dt, float *x, float *z, float *yaw);
void proc_hang_pose(sk_procedural *P, sk_pose *pose, double dt);
/* The gaze (sk_procedural_look_at) on pose and the model matrices. */
void proc_look(sk_procedural *P, sk_pose *pose);


/* World matrices of joints [from, to) of the pose, only those need marks
 * (NULL: all): the core's forward kinematics (sk_local_to_model_masked's
 * kernel, core/internal.h: the pose is checked once a frame)
 * under the character's placement (st.root, set_root). Each frame computes
 * the joints the legs and arms read first (P->need), the subtrees the leg
 * and arm steps change after each change, and the joints no step touches
 * (P->late) at the end, so every joint's matrix is computed once a frame
 * (more often only where a step changes it again). The pose was checked by
 * the caller. */
static inline void fk_need(sk_procedural *P, const sk_transform *loc, uint32_t from, uint32_t to, const bool *need) {
    sk_local_to_model_kernel(P->skel, loc, &P->st.root, from, to, need, P->model);
}
static inline void fk_from(sk_procedural *P, const sk_transform *loc, uint32_t from, uint32_t to) {
    fk_need(P, loc, from, to, NULL);
}
/* A joint's world position and rotation, from the model matrices. */
static inline sk_vec3 pos_of(const sk_procedural *P, uint32_t j) { return skm_mat4_pos(&P->model[j]); }
static inline sk_quat rot_of(const sk_procedural *P, uint32_t j) { return skm_mat4_rotation(&P->model[j]); }

/* The angle from a to b about axis (signed, -pi..pi). */
static inline float signed_angle(sk_vec3 a, sk_vec3 b, sk_vec3 axis) {
    return atan2f(sk_vec3_dot(sk_vec3_cross(a, b), axis), sk_vec3_dot(a, b));
}

static inline sk_vec3 pt_of(const sk_vec3 *wt, const sk_quat *wr, const sk_vec3 *ws, uint32_t j, sk_vec3 p) {
    return sk_vec3_add(wt[j], skm_quat_rotate(wr[j], sk_vec3_mul(ws[j], p)));
}
static inline sk_vec3 point_of(const sk_procedural *P, uint32_t j, sk_vec3 p) { return sk_mat4_transform_point(&P->model[j], p); }

/* Both feet's heel, toe and ankle from the model matrices, off the ground
 * (not planted; reached: no target), as a fall or the hang poses them. */
static inline void feet_off_ground(sk_procedural *P) {
    for (uint32_t l = 0; l < 2; l++) {
        const pleg *g = &P->leg[l];
        sk_procedural_foot *f = &P->st.feet[l];
        f->heel = point_of(P, g->ankle, g->heel_pt);
        f->toe = point_of(P, g->tip, g->toe_pt);
        f->ankle = pos_of(P, g->ankle);
        f->stance = false;
        f->reached = true;
    }
}

#endif
