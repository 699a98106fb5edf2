/* Inverse kinematics, the public entry points: solver and stop names,
 * chains, scratch size, and sk_ik_solve (and sk_ik_solve_model, the same
 * on a pose whose model matrices the caller has), which checks its input,
 * sets the chain state up (chain.c), runs the solver the options name and
 * writes the result back (chain.c).
 *
 * The module's files, in layers (calls go down only):
 *   ik.c                     this file
 *   ccd.c fabrik.c twobone.c aim.c jacobian.c   the solvers (solvers.h)
 *   chain.c limits.c         chain state, stopping rules, errors, timing,
 *                            write back; joint limits (chain.h)
 * multi.c (several end effectors, its own entry point) uses chain.c's
 * stopping rules and timing. */
#include "ik/solvers.h"

const char *sk_ik_stop_string(sk_ik_stop s) {
    switch (s) {
    case SK_IK_STOP_TOLERANCE: return "tolerance";
    case SK_IK_STOP_NO_PROGRESS: return "no_progress";
    case SK_IK_STOP_ITERATIONS: return "iterations";
    case SK_IK_STOP_TIME: return "time";
    case SK_IK_STOP_ANALYTIC: return "analytic";
    }
    return "unknown";
}

const char *sk_ik_solver_string(sk_ik_solver s) {
    switch (s) {
    case SK_IK_FABRIK: return "fabrik";
    case SK_IK_CCD: return "ccd";
    case SK_IK_TWO_BONE: return "twobone";
    case SK_IK_JACOBIAN_TRANSPOSE: return "jt";
    case SK_IK_DLS: return "dls";
    case SK_IK_AIM: return "aim";
    }
    return "unknown";
}

bool sk_ik_solver_parse(const char *name, sk_ik_solver *out) {
    static const struct { const char *n; sk_ik_solver s; } names[] = {
        {"fabrik", SK_IK_FABRIK}, {"ccd", SK_IK_CCD}, {"twobone", SK_IK_TWO_BONE}, {"two-bone", SK_IK_TWO_BONE},
        {"jt", SK_IK_JACOBIAN_TRANSPOSE}, {"jacobian-transpose", SK_IK_JACOBIAN_TRANSPOSE}, {"dls", SK_IK_DLS},
        {"aim", SK_IK_AIM}, {"lookat", SK_IK_AIM}, {"look-at", SK_IK_AIM},
    };
    if (!name) return false;
    for (size_t i = 0; i < SK_ARRAY_COUNT(names); i++)
        if (!strcmp(name, names[i].n)) {
            if (out) *out = names[i].s;
            return true;
        }
    return false;
}

/* ---- chains ---- */
sk_result sk_ik_chain_find(const sk_skeleton *skel, uint32_t root, uint32_t tip, uint32_t *out_joints,
                           uint32_t capacity, uint32_t *out_count, sk_error *err) {
    if (out_count) *out_count = 0;
    if (!skel || !out_count) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik chain: NULL skeleton or count");
    if (root >= skel->joint_count || tip >= skel->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik chain: joint index %u or %u out of range (%u joints)",
                            root, tip, skel->joint_count);
    uint32_t count = 1;
    int32_t j = (int32_t)tip;
    while (j != (int32_t)root) {
        j = skel->parents[j];
        if (j < 0)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik chain: joint %u '%s' does not descend from %u '%s'",
                                tip, skel->names[tip], root, skel->names[root]);
        count++;
    }
    *out_count = count;
    if (count > capacity || !out_joints)
        return sk_error_set(err, SK_ERR_LIMIT, "ik chain: %u joints do not fit in %u", count, capacity);
    j = (int32_t)tip;
    for (uint32_t k = count; k-- > 0;) {
        out_joints[k] = (uint32_t)j;
        j = skel->parents[j];
    }
    return SK_OK;
}

sk_result sk_ik_chain_find_named(const sk_skeleton *skel, const char *root, const char *tip, uint32_t *out_joints,
                                 uint32_t capacity, uint32_t *out_count, sk_error *err) {
    if (out_count) *out_count = 0;
    if (!skel || !root || !tip) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik chain: NULL argument");
    int32_t r = sk_skeleton_find(skel, root), t = sk_skeleton_find(skel, tip);
    if (r < 0) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik chain: no joint named '%s'", root);
    if (t < 0) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik chain: no joint named '%s'", tip);
    return sk_ik_chain_find(skel, (uint32_t)r, (uint32_t)t, out_joints, capacity, out_count, err);
}

/* ---- scratch ---- */
size_t sk_ik_scratch_size(uint32_t n) { return ik_state_scratch_size(n); }

/* ---- the public entry point ---- */
static bool options_finite(const sk_ik_options *o) {
    return sk_isfinite_f(o->tolerance) && sk_isfinite_f(o->angle_tolerance) && isfinite(o->time_budget_us) &&
           sk_isfinite_f(o->stall_ratio) && sk_isfinite_f(o->fk_blend) && sk_isfinite_f(o->max_step) &&
           sk_isfinite_f(o->damping) && skm_vec3_finite(o->plane_normal) && sk_isfinite_f(o->soft) &&
           sk_isfinite_f(o->max_stretch) && skm_vec3_finite(o->aim_axis) && skm_vec3_finite(o->up_axis) &&
           sk_isfinite_f(o->max_angle) && o->tolerance >= 0 && o->angle_tolerance >= 0 && o->time_budget_us >= 0 &&
           o->fk_blend >= 0 && o->fk_blend <= 1 && o->soft >= 0 && o->soft < 1;
}

/* Finite and within SK_IK_MAX_COORD on every axis (ik.h). */
static bool coord_ok(sk_vec3 v) {
    return fabsf(v.x) <= SK_IK_MAX_COORD && fabsf(v.y) <= SK_IK_MAX_COORD && fabsf(v.z) <= SK_IK_MAX_COORD;
}

/* sk_ik_solve and sk_ik_solve_model: model, when given, holds model
 * matrices of io's pose under root (the caller's; checked), from which the
 * chain root's parent transform is read, and whose chain subtree is brought
 * up to date after the solve. */
static sk_result ik_solve(const sk_ik_chain *chain, const sk_ik_target *target, const sk_ik_options *options,
                          sk_pose *io, const sk_mat4 *root, sk_mat4 *model, void *scratch, size_t scratch_size,
                          sk_ik_result *out, sk_error *err) {
    sk_transform *io_local = io ? io->local : NULL;
    static const sk_ik_options zero_options;
    const sk_ik_options *o = options ? options : &zero_options;
    sk_ik_result res = {0};
    res.stretch = 1.0f;
    if (out) *out = res;
    if (chain && chain->skeleton && sk_pose_check(chain->skeleton, io, "ik", err) != SK_OK) return SK_ERR_INVALID_ARGUMENT;
    if (!chain || !chain->skeleton || !chain->joints || !target || !io_local)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: NULL chain, target or pose");
    const sk_skeleton *skel = chain->skeleton;
    uint32_t n = chain->count;
    if (n == 0) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: empty chain");
    if (n > SK_IK_MAX_CHAIN)
        return sk_error_set(err, SK_ERR_LIMIT, "ik: chain of %u joints (limit %u)", n, SK_IK_MAX_CHAIN);
    for (uint32_t i = 0; i < n; i++) {
        if (chain->joints[i] >= skel->joint_count)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: chain joint %u out of range", chain->joints[i]);
        if (i && skel->parents[chain->joints[i]] != (int32_t)chain->joints[i - 1])
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                                "ik: chain joint %u '%s' is not a child of the joint before it", chain->joints[i],
                                skel->names[chain->joints[i]]);
    }
    if (!skm_vec3_finite(target->position))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: target position is not finite");
    if (!coord_ok(target->position) || !coord_ok(target->up) || (target->has_pole && !coord_ok(target->pole)))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                            "ik: target (%g, %g, %g), pole or up beyond %g m (SK_IK_MAX_COORD)",
                            (double)target->position.x, (double)target->position.y, (double)target->position.z,
                            (double)SK_IK_MAX_COORD);
    if (!skm_quat_finite(target->orientation) || !skm_vec3_finite(target->up) ||
        (target->has_pole && !skm_vec3_finite(target->pole)))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: target orientation, pole or up is not finite");
    if (!options_finite(o))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: an option is not finite or out of range");
    if ((unsigned)o->solver > SK_IK_AIM)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: unknown solver %d", (int)o->solver);
    if (o->solver == SK_IK_TWO_BONE && n != 3)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: the two-bone solver needs a chain of 3 joints, not %u",
                            n);

    unsigned char stack[SK_IK_STACK_JOINTS * 256 + 64];
    size_t need = sk_ik_scratch_size(n);
    if (!scratch) {
        if (n > SK_IK_STACK_JOINTS || need > sizeof stack)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: chain of %u joints needs %zu bytes of scratch", n,
                                need);
        scratch = stack;
        scratch_size = sizeof stack;
    }
    if (scratch_size < need)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: scratch of %zu bytes, %zu needed", scratch_size, need);

    sk_transform parent_tr, *parent = NULL;
    if (model) {
        int32_t pj = skel->parents[chain->joints[0]];
        const sk_mat4 *pm = pj >= 0 ? &model[pj] : root;
        if (pm) sk_mat4_decompose(pm, &parent_tr);
        else parent_tr = sk_transform_identity();
        if (!skm_vec3_finite(parent_tr.t) || !skm_quat_finite(parent_tr.r) || !skm_vec3_finite(parent_tr.s))
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: the model matrix of the chain root's parent is not finite");
        parent = &parent_tr;
    }
    ik_state s;
    sk_result rc = ik_state_init(&s, chain, target, o, io_local, parent, scratch, &res, err);
    if (rc != SK_OK) return rc;
    for (uint32_t i = 0; i < n; i++)
        if (!coord_ok(s.p[i]))
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                                "ik: chain joint %u '%s' is at (%g, %g, %g), beyond %g m (SK_IK_MAX_COORD)",
                                chain->joints[i], skel->names[chain->joints[i]] ? skel->names[chain->joints[i]] : "",
                                (double)s.p[i].x, (double)s.p[i].y, (double)s.p[i].z, (double)SK_IK_MAX_COORD);
    switch (o->solver) {
    case SK_IK_FABRIK:
        if (n > 1) {
            uint32_t left = ik_solve_fabrik(&s, &res);
            if (left) {
                /* FABRIK stalled on a constrained chain: switch method to CCD
                 * with the rest of the iteration budget (seed 002 §7.3). */
                uint32_t done = res.iterations;
                ik_solve_ccd(&s, &res, left);
                res.iterations += done;
            }
        }
        break;
    case SK_IK_CCD:
        if (n > 1) ik_solve_ccd(&s, &res, 0);
        break;
    case SK_IK_JACOBIAN_TRANSPOSE:
        if (n > 1) ik_solve_jacobian(&s, &res, false);
        break;
    case SK_IK_DLS:
        if (n > 1) ik_solve_jacobian(&s, &res, true);
        break;
    case SK_IK_TWO_BONE:
        ik_solve_two_bone(&s, target, io_local, &res);
        break;
    case SK_IK_AIM:
        ik_solve_aim(&s, target, &res);
        break;
    }
    if (n == 1 && o->solver != SK_IK_AIM) {
        ik_state_result_unmoved(&s, &res); /* the pose is left as it was */
    } else {
        ik_state_write_back(&s, io_local, o->solver == SK_IK_TWO_BONE); /* the others leave s.p up to date */
        if (o->solver == SK_IK_AIM) ik_aim_result(&s, &res);
        else ik_state_result(&s, &res);
    }
    if (model) /* the chain root's subtree, from the solved pose (checked above: cannot fail) */
        sk_local_to_model_range(skel, io, root, chain->joints[0], sk_skeleton_subtree_end(skel, chain->joints[0]),
                                model, skel->joint_count, NULL);
    if (out) *out = res;
    return SK_OK;
}

sk_result sk_ik_solve(const sk_ik_chain *chain, const sk_ik_target *target, const sk_ik_options *options,
                      sk_pose *io, void *scratch, size_t scratch_size, sk_ik_result *out, sk_error *err) {
    return ik_solve(chain, target, options, io, NULL, NULL, scratch, scratch_size, out, err);
}

sk_result sk_ik_solve_model(const sk_ik_chain *chain, const sk_ik_target *target, const sk_ik_options *options,
                            sk_pose *io, const sk_mat4 *root, sk_mat4 *io_model, uint32_t model_count, void *scratch,
                            size_t scratch_size, sk_ik_result *out, sk_error *err) {
    if (out) {
        sk_ik_result none = {0};
        none.stretch = 1.0f;
        *out = none;
    }
    if (chain && chain->skeleton && (!io_model || model_count < chain->skeleton->joint_count))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: room for %u model matrices, skeleton has %u",
                            io_model ? model_count : 0, chain->skeleton->joint_count);
    if (!chain || !chain->skeleton || !io_model)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "ik: NULL chain or model matrices");
    return ik_solve(chain, target, options, io, root, io_model, scratch, scratch_size, out, err);
}
