/* The IK-only walker on the mannequin for the procedural tests: the
 * walker's description (the legs found by name, both arms) and the
 * mannequin's anatomical limits of its legs and arms, checked joint by joint
 * (sk_ik_limit_check, 1e-3 rad), the test's reference for "inside the
 * limits". Header-only: each test is its own program. */
#ifndef SK_TEST_PROC_RIG_H
#define SK_TEST_PROC_RIG_H

#include "support.h"

#include <stdlib.h>

/* The walker's description: the legs by sk_legs_find, both arms, the body
 * the hips' common parent. */
static inline sk_procedural_desc proc_rig_desc(const sk_skeleton *s) {
    sk_procedural_desc d = {0};
    d.skeleton = s;
    assert_int_equal(sk_legs_find(s, d.legs, 2), 2);
    static const char *arm[2][3] = {{"upperarm_l", "forearm_l", "hand_l"}, {"upperarm_r", "forearm_r", "hand_r"}};
    for (int a = 0; a < 2; a++)
        d.arms[a] = (sk_arm_desc){sk_skeleton_find(s, arm[a][0]), sk_skeleton_find(s, arm[a][1]),
                                  sk_skeleton_find(s, arm[a][2])};
    d.arm_count = 2;
    d.body_joint = -1;
    return d;
}

/* The mannequin's leg and arm limits, one per joint (NONE elsewhere);
 * free() it. */
static inline sk_ik_limit *proc_rig_limits(const sk_skeleton *s) {
    uint32_t J = s->joint_count;
    sk_error err = {0};
    sk_ik_limit *lim = calloc(J, sizeof *lim), *arms = calloc(J, sizeof *arms);
    assert_non_null(lim);
    assert_non_null(arms);
    assert_int_equal(sk_mannequin_leg_limits(s, lim, J, &err), SK_OK);
    assert_int_equal(sk_mannequin_arm_limits(s, arms, J, &err), SK_OK);
    for (uint32_t j = 0; j < J; j++)
        if (arms[j].type != SK_IK_LIMIT_NONE) lim[j] = arms[j];
    free(arms);
    return lim;
}

/* Every limited joint of the local pose inside its limit. */
static inline bool proc_rig_in_limits(const sk_skeleton *s, const sk_ik_limit *lim, const sk_transform *local) {
    for (uint32_t j = 0; j < s->joint_count; j++) {
        if (lim[j].type == SK_IK_LIMIT_NONE) continue;
        sk_quat rel = sk_quat_mul(sk_quat_inverse(s->rest[j].r), local[j].r);
        if (!sk_ik_limit_check(&lim[j], sk_vec3_make(0, 1, 0), rel, 1e-3f)) return false;
    }
    return true;
}

#endif
