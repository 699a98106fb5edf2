/* skelanim — inverse kinematics on chains of a skeleton.
 *
 * After A. Aristidou & J. Lasenby, "FABRIK: A fast, iterative solver for the
 * Inverse Kinematics problem", Graphical Models 73 (2011), and S. R. Buss,
 * "Introduction to Inverse Kinematics with Jacobian Transpose, Pseudoinverse
 * and Damped Least Squares methods" (2004/2009). docs/ik.md has every source,
 * the details and the measured comparison with the FABRIK paper's Table 1.
 *
 * Conventions
 * - A chain is the path of joints from a root joint down to a tip joint
 *   (each the parent of the next). The tip is the end effector.
 * - Solvers read the chain in model space (the space of sk_local_to_model
 *   with root = NULL) from a local pose, and write local rotations of the
 *   chain's joints back (translations and scales are never touched, except
 *   by the two-bone solver's optional stretch). Targets are in model space.
 *   Model space is computed from the local pose of the chain root's
 *   ancestors; exact for uniform scale. (sk_ik_solve_model reads it from
 *   the caller's model matrices instead, in whatever space they are.)
 * - The result is blended against the incoming (FK) pose by fk_blend.
 * - Per-frame calls allocate nothing: pass scratch memory of
 *   sk_ik_scratch_size() bytes (aligned for float), or NULL for chains of at
 *   most SK_IK_STACK_JOINTS joints (the solver then uses its stack).
 * - Every options struct is valid zeroed; a zero field selects the default
 *   documented beside it. No global mutable state: solves on different poses
 *   may run on different threads.
 */
#ifndef SKELANIM_IK_H
#define SKELANIM_IK_H

#include "skelanim/core/pose.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Chains up to this many joints may pass scratch = NULL. */
#define SK_IK_STACK_JOINTS 32u
/* Longest chain accepted (SK_ERR_LIMIT beyond). */
#define SK_IK_MAX_CHAIN 4096u
/* Largest coordinate (metres) of a target, pole, up vector or chain joint in
 * model space: beyond it squared distances could overflow float, so
 * sk_ik_solve and sk_ik_solve_multi refuse it (SK_ERR_INVALID_ARGUMENT) and
 * never return a NaN error for finite input. */
#define SK_IK_MAX_COORD 1e15f

typedef enum sk_ik_solver {
    SK_IK_FABRIK = 0,             /* Aristidou & Lasenby 2011 (the default) */
    SK_IK_CCD = 1,                /* cyclic coordinate descent, tip to root */
    SK_IK_TWO_BONE = 2,           /* analytic, exactly 3 joints; pole vector or bend plane */
    SK_IK_JACOBIAN_TRANSPOSE = 3, /* Buss §3, with his step-length choice */
    SK_IK_DLS = 4,                /* damped least squares through the SVD (Buss §5-6) */
    SK_IK_AIM = 5                 /* look-at: the tip's aim axis points at the target */
} sk_ik_solver;

/* Why an iterative solve stopped: solution found, stuck in a local minimum,
 * or the search took too long. */
typedef enum sk_ik_stop {
    SK_IK_STOP_TOLERANCE = 0,  /* within tolerance of the target (or of the closest
                                  reachable point for an unreachable target) */
    SK_IK_STOP_NO_PROGRESS,    /* the error stopped decreasing (local minimum, limits) */
    SK_IK_STOP_ITERATIONS,     /* the iteration budget was spent */
    SK_IK_STOP_TIME,           /* the time budget was spent */
    SK_IK_STOP_ANALYTIC        /* closed-form solver (two-bone, aim): one step */
} sk_ik_stop;

SK_API const char *sk_ik_stop_string(sk_ik_stop s);   /* "tolerance", "no_progress", ... */
SK_API const char *sk_ik_solver_string(sk_ik_solver s); /* "fabrik", "ccd", "twobone", "jt", "dls", "aim" */
/* Parses the names above (also "jacobian-transpose", "two-bone"); false if unknown. */
SK_API bool sk_ik_solver_parse(const char *name, sk_ik_solver *out);

/* ---- Joint limits -------------------------------------------------------
 * A limit constrains a joint's rotation relative to a reference orientation:
 * local.r = reference * rel, and the limit bounds rel (a rotation in the
 * joint's own reference frame). Values outside the limits are moved to the
 * nearer bound at the end of every iteration. */
typedef enum sk_ik_limit_type {
    SK_IK_LIMIT_NONE = 0,
    SK_IK_LIMIT_HINGE,        /* one axis; angle in [min, max] */
    SK_IK_LIMIT_SWING_TWIST,  /* twist about axis in [min, max]; swing of the axis within a cone */
    SK_IK_LIMIT_EULER         /* rel = Rz(z) * Ry(y) * Rx(x) (X applied first); each angle in its range */
} sk_ik_limit_type;

typedef struct sk_ik_limit {
    sk_ik_limit_type type;
    /* Hinge axis / twist axis in the reference frame. Zero: hinge +X; twist:
     * the direction to the next joint of the chain (rest pose), else +Y. */
    sk_vec3 axis;
    float min, max;          /* radians: hinge angle or twist range (min <= max) */
    float cone;              /* swing-twist: cone half-angle in radians (0 = no swing allowed) */
    sk_vec3 euler_min, euler_max; /* EULER: radians per axis, |y| ranges within [-pi/2, pi/2] */
    /* Reference orientation; a zero quaternion (the default) means the
     * skeleton's rest local rotation of that joint. */
    sk_quat reference;
} sk_ik_limit;

/* Clamps rel (a unit rotation relative to the reference) into the limit.
 * default_axis is used when limit->axis is zero. */
SK_API sk_quat sk_ik_limit_clamp(const sk_ik_limit *limit, sk_vec3 default_axis, sk_quat rel);
/* True if rel satisfies the limit within eps radians. */
SK_API bool sk_ik_limit_check(const sk_ik_limit *limit, sk_vec3 default_axis, sk_quat rel, float eps);

/* ---- Chains ------------------------------------------------------------ */
typedef struct sk_ik_chain {
    const sk_skeleton *skeleton;
    const uint32_t *joints;        /* count joint indices, root first; joints[i-1] is the parent of joints[i] */
    uint32_t count;                /* >= 1 */
    const sk_ik_limit *limits;     /* NULL or count entries (the tip's limit is used by aim only) */
} sk_ik_chain;

/* Fills out_joints with the path root..tip (capacity entries available) and
 * sets *out_count (root == tip gives a 1-joint chain). Fails with
 * SK_ERR_INVALID_ARGUMENT when tip does not descend from root or an index is
 * out of range, and with SK_ERR_LIMIT when capacity is too small (*out_count
 * then holds the length needed). */
SK_API sk_result sk_ik_chain_find(const sk_skeleton *skel, uint32_t root, uint32_t tip, uint32_t *out_joints,
                                  uint32_t capacity, uint32_t *out_count, sk_error *err);
/* The same with joint names. */
SK_API sk_result sk_ik_chain_find_named(const sk_skeleton *skel, const char *root, const char *tip,
                                        uint32_t *out_joints, uint32_t capacity, uint32_t *out_count, sk_error *err);

/* ---- Targets, options, result ------------------------------------------ */
typedef struct sk_ik_target {
    sk_vec3 position;        /* model space; must be finite */
    /* Optional orientation for the tip joint (model space). A zero quaternion
     * (the default) means none. Honoured by DLS and Jacobian transpose. */
    sk_quat orientation;
    /* Two-bone: the middle joint bends toward this model-space point (a pole
     * vector target). Without it the limb keeps its current bend plane. */
    bool has_pole;
    sk_vec3 pole;
    /* Aim: model-space up direction the joint's up axis turns toward (zero = none). */
    sk_vec3 up;
} sk_ik_target;

typedef struct sk_ik_options {
    sk_ik_solver solver;       /* 0 = FABRIK */
    float tolerance;           /* model units; 0 = 1e-4 x chain length */
    float angle_tolerance;     /* radians, orientation targets; 0 = 1e-3 */
    uint32_t max_iterations;   /* 0 = per solver: FABRIK 64, CCD 128, JT 4096, DLS 256 */
    double time_budget_us;     /* 0 = none; else stop (SK_IK_STOP_TIME) after this long */
    uint32_t stall_iterations; /* no-progress window; 0 = 16 (JT: 256) */
    float stall_ratio;         /* stop when the best error fell by less than this fraction
                                  over the window; 0 = 1e-3 */
    float fk_blend;            /* 0 = full IK result (default); 1 = leave the FK pose; between: slerp */
    /* CCD: per-iteration damping — the largest rotation one joint may make in
     * one iteration (radians). JT/DLS: largest joint change per iteration.
     * 0 = unlimited for CCD, 0.5 rad for JT/DLS. */
    float max_step;
    /* DLS: damping lambda in model units. 0 = adaptive (grows as the smallest
     * singular value approaches zero: Maciejewski/Nakamura, see Buss §6). A
     * negative value gives the undamped SVD pseudo-inverse (singular values
     * below 1e-6 x chain length are dropped). */
    float damping;
    /* Planar (2D) chains: when non-zero, every joint turns only about this
     * model-space axis; a chain and target in a plane with this normal stay in it. */
    sk_vec3 plane_normal;
    /* Two-bone: fraction of the reach over which the limb eases into full
     * extension (soft IK; 0 = off: exact when reachable). 0.05 is typical. */
    float soft;
    /* Two-bone: allow the bones to stretch (scaling the middle and tip
     * joints' translations) up to this factor to reach the target; <= 1 = no stretch. */
    float max_stretch;
    /* Aim: joint-local axes. Zero aim_axis = +Z, zero up_axis = +Y. */
    sk_vec3 aim_axis;
    sk_vec3 up_axis;
    /* Aim: the joint turns at most this far from its FK orientation
     * (radians; 0 = pi). With more than one joint, the aim rotation is
     * shared along the chain. */
    float max_angle;
} sk_ik_options;

typedef struct sk_ik_result {
    sk_ik_stop stop;
    uint32_t iterations;
    float error;             /* final |tip - target| (model units), after blending */
    float residual;          /* error minus the unavoidable part (distance beyond full reach) */
    float orientation_error; /* radians, when an orientation target was given (else 0) */
    float chain_length;      /* sum of bone lengths */
    bool reachable;          /* target within the chain's reach */
    float stretch;           /* two-bone stretch factor applied (1 = none) */
} sk_ik_result;

/* Bytes of scratch memory a solve on a chain of joint_count joints needs (any solver). */
SK_API size_t sk_ik_scratch_size(uint32_t joint_count);

/* Solves the chain toward the target and writes the local rotations of the
 * chain's joints in io (a pose of the chain's skeleton: sk_pose_check). options may
 * be NULL. Fails with SK_ERR_INVALID_ARGUMENT on a NULL/invalid chain, a
 * non-finite target or option, too little scratch, or a solver that does not
 * fit the chain (two-bone needs exactly 3 joints). out may be NULL. */
SK_API sk_result sk_ik_solve(const sk_ik_chain *chain, const sk_ik_target *target, const sk_ik_options *options,
                             sk_pose *io, void *scratch, size_t scratch_size, sk_ik_result *out, sk_error *err);

/* sk_ik_solve on a pose whose model matrices the caller already has (a
 * runtime that computed them this frame with sk_local_to_model_masked, e.g.
 * to place the feet): the model transform of the chain root's parent is
 * read from io_model (root for a chain rooted at a skeleton root) instead
 * of being composed from the ancestors' local transforms, and on success the
 * matrices of the chain root's subtree in io_model are brought up to date
 * with the solved pose (sk_local_to_model_range from the chain root to
 * sk_skeleton_subtree_end), so the caller runs no forward kinematics of its
 * own after the solve.
 * io_model: model_count >= joint_count matrices of io's pose under root
 * (sk_local_to_model's root argument; NULL: identity), valid at least for
 * the chain root's ancestors. The target's position, pole and up are in
 * that space (world space when root places the character), and so are the
 * result's errors and chain length. The solve matches sk_ik_solve's on the
 * same pose to float rounding (the parent transform comes from a matrix).
 * Ownership: everything is the caller's; io's chain rotations (and, with
 * max_stretch, two translations) and io_model's subtree matrices are
 * written. Errors: sk_ik_solve's, and SK_ERR_INVALID_ARGUMENT for a NULL or
 * short io_model or a non-finite parent matrix; io and io_model are then
 * unchanged. Allocates nothing (scratch as for sk_ik_solve). Thread safety:
 * as sk_ik_solve (distinct poses and matrices may be solved at once). */
SK_API sk_result sk_ik_solve_model(const sk_ik_chain *chain, const sk_ik_target *target, const sk_ik_options *options,
                                   sk_pose *io, const sk_mat4 *root, sk_mat4 *io_model, uint32_t model_count,
                                   void *scratch, size_t scratch_size, sk_ik_result *out, sk_error *err);

/* ---- Two-bone, low level (ozz-style) -------------------------------------
 * Model-space transforms of the start, middle and end joints in; rotations to
 * post-multiply onto the start and middle joints' LOCAL rotations out
 * (local.r = local.r * correction). Honours target.pole, options->soft. Returns
 * false (and identity corrections) on non-finite input. *reached (optional)
 * tells whether the end lands on the target. */
SK_API bool sk_ik_two_bone(const sk_transform *start_model, const sk_transform *mid_model, const sk_transform *end_model,
                           const sk_ik_target *target, const sk_ik_options *options, sk_quat *out_start_correction,
                           sk_quat *out_mid_correction, bool *reached);

/* ---- Several end effectors (FABRIK with sub-bases, paper §4.1) ----------
 * Moves the joints of the subtree spanned by root and the effector joints
 * (each must descend from root) so that each effector approaches its target.
 * Where branches meet (a sub-base) the forward stage places the joint at the
 * centroid of the positions its branches ask for. */
typedef struct sk_ik_effector {
    uint32_t joint;
    sk_vec3 target;
} sk_ik_effector;

/* Bytes of scratch memory sk_ik_solve_multi needs for skel. */
SK_API size_t sk_ik_multi_scratch_size(const sk_skeleton *skel);
/* result->error is the largest effector error. limits are not applied here. */
SK_API sk_result sk_ik_solve_multi(const sk_skeleton *skel, uint32_t root, const sk_ik_effector *effectors,
                                   uint32_t effector_count, const sk_ik_options *options, sk_pose *io,
                                   void *scratch, size_t scratch_size, sk_ik_result *out, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
