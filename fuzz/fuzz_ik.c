/* Harness: inverse kinematics on the mannequin with everything from the
 * input: the starting pose (a clip and time), the chain (tip and length),
 * the solver, target, pole, orientation and up vector (mostly near the
 * character, sometimes any float), every option and per-joint limits; then
 * the several-effector solver. Promises checked: a solve that returns SK_OK
 * leaves a finite pose and finite errors (IK never returns NaN for finite
 * input, issue #14); non-finite input is refused, not solved. */
#include "fuzz_common.h"

#include <math.h>
#include <string.h>

static sk_vec3 vec(fz_bytes *b, float lo, float hi) {
    sk_vec3 v;
    v.x = fz_float(b, lo, hi);
    v.y = fz_float(b, lo, hi);
    v.z = fz_float(b, lo, hi);
    return v;
}

static void check_result(const sk_pose *pose, const sk_ik_result *res, const char *what) {
    if (!fz_pose_finite(pose)) fz_fail("%s: SK_OK but the pose is not finite", what);
    if (!isfinite(res->error) || !isfinite(res->residual) || !isfinite(res->orientation_error) ||
        !isfinite(res->chain_length))
        fz_fail("%s: SK_OK with error %g, residual %g, orientation error %g, chain length %g", what, res->error,
                res->residual, res->orientation_error, res->chain_length);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const sk_asset *m = fz_mannequin();
    const sk_skeleton *skel = m->skeleton;
    fz_bytes b = {data, size};
    sk_error err = {0};
    sk_pose pose;
    if (sk_pose_alloc(skel, NULL, &pose, &err) != SK_OK) return 0;
    uint32_t c = fz_u8(&b) % (m->clip_count + 1);
    if (c < m->clip_count)
        (void)sk_clip_sample(m->clips[c], skel, fz_range(&b, 0.0f, 2.0f), SK_LOOP_REPEAT, &pose, &err);

    uint32_t jc = skel->joint_count;
    uint32_t tip = fz_u8(&b) % jc, root = tip, up = fz_u8(&b) % 8;
    sk_ik_solver solver = (sk_ik_solver)(fz_u8(&b) % 6);
    if (solver == SK_IK_TWO_BONE) up = 2;
    for (uint32_t k = 0; k < up && skel->parents[root] >= 0; k++) root = (uint32_t)skel->parents[root];
    uint32_t joints[16], count = 0;
    if (sk_ik_chain_find(skel, root, tip, joints, 16, &count, &err) != SK_OK) fz_fail("chain_find: %s", err.message);

    sk_ik_limit limits[16];
    memset(limits, 0, sizeof limits);
    bool use_limits = fz_u8(&b) & 1;
    if (use_limits)
        for (uint32_t i = 0; i < count; i++) {
            limits[i].type = (sk_ik_limit_type)(fz_u8(&b) % 4);
            limits[i].axis = vec(&b, -1.0f, 1.0f);
            limits[i].min = fz_float(&b, -3.2f, 0.5f);
            limits[i].max = fz_float(&b, -0.5f, 3.2f);
            limits[i].cone = fz_float(&b, 0.0f, 3.2f);
            limits[i].euler_min = vec(&b, -3.2f, 0.0f);
            limits[i].euler_max = vec(&b, 0.0f, 3.2f);
            if (fz_u8(&b) & 1) {
                limits[i].reference.x = fz_float(&b, -1.0f, 1.0f);
                limits[i].reference.y = fz_float(&b, -1.0f, 1.0f);
                limits[i].reference.z = fz_float(&b, -1.0f, 1.0f);
                limits[i].reference.w = fz_float(&b, -1.0f, 1.0f);
            }
        }
    sk_ik_chain chain = {skel, joints, count, use_limits ? limits : NULL};

    sk_ik_target target;
    memset(&target, 0, sizeof target);
    target.position = vec(&b, -3.0f, 3.0f);
    if (fz_u8(&b) & 1) {
        target.orientation.x = fz_float(&b, -1.0f, 1.0f);
        target.orientation.y = fz_float(&b, -1.0f, 1.0f);
        target.orientation.z = fz_float(&b, -1.0f, 1.0f);
        target.orientation.w = fz_float(&b, -1.0f, 1.0f);
    }
    target.has_pole = fz_u8(&b) & 1;
    target.pole = vec(&b, -3.0f, 3.0f);
    if (fz_u8(&b) & 1) target.up = vec(&b, -1.0f, 1.0f);

    sk_ik_options o;
    memset(&o, 0, sizeof o);
    o.solver = solver;
    o.tolerance = fz_float(&b, 0.0f, 0.01f);
    o.angle_tolerance = fz_float(&b, 0.0f, 0.01f);
    o.max_iterations = fz_u8(&b);            /* bounded by the harness: 0 (default) .. 255 */
    o.stall_iterations = fz_u8(&b) % 64;
    o.stall_ratio = fz_float(&b, 0.0f, 0.1f);
    o.fk_blend = fz_float(&b, 0.0f, 1.0f);
    o.max_step = fz_float(&b, 0.0f, 1.0f);
    o.damping = fz_float(&b, -0.1f, 1.0f);
    if (fz_u8(&b) & 1) o.plane_normal = vec(&b, -1.0f, 1.0f);
    o.soft = fz_float(&b, 0.0f, 0.2f);
    o.max_stretch = fz_float(&b, 0.0f, 2.0f);
    if (fz_u8(&b) & 1) o.aim_axis = vec(&b, -1.0f, 1.0f);
    if (fz_u8(&b) & 1) o.up_axis = vec(&b, -1.0f, 1.0f);
    o.max_angle = fz_float(&b, 0.0f, 3.2f);

    sk_ik_result res;
    if (sk_ik_solve(&chain, &target, &o, &pose, NULL, 0, &res, &err) == SK_OK) check_result(&pose, &res, "sk_ik_solve");
    else if (err.message[0] == 0) fz_fail("sk_ik_solve failed without a message");

    /* Several end effectors under a root from the input. */
    sk_ik_effector eff[4];
    uint32_t ne = 1 + fz_u8(&b) % 4;
    uint32_t mroot = fz_u8(&b) % jc;
    for (uint32_t i = 0; i < ne; i++) {
        eff[i].joint = fz_u8(&b) % jc;
        eff[i].target = vec(&b, -3.0f, 3.0f);
    }
    static float scratch[1 << 14];
    size_t need = sk_ik_multi_scratch_size(skel);
    if (need <= sizeof scratch) {
        sk_ik_options mo = o;
        mo.solver = SK_IK_FABRIK;
        if (sk_ik_solve_multi(skel, mroot, eff, ne, &mo, &pose, scratch, need, &res, &err) == SK_OK)
            check_result(&pose, &res, "sk_ik_solve_multi");
    }
    sk_pose_free(&pose, NULL);
    return 0;
}
