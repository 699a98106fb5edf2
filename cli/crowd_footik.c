/* The foot-IK hook of `skelanim bench crowd --hook footik` (crowd_footik.h). */
#include "crowd_footik.h"
#include "cli.h"

#include <string.h>

/* Appends joint j and its ancestors (parents first) unless already listed. */
static bool add_with_ancestors(crowd_footik *f, uint32_t j) {
    uint32_t path[CROWD_FOOTIK_MAX_JOINTS], n = 0;
    for (int32_t k = (int32_t)j; k >= 0; k = f->skel->parents[k]) {
        if (n == CROWD_FOOTIK_MAX_JOINTS) return false;
        path[n++] = (uint32_t)k;
    }
    while (n--) {
        bool seen = false;
        for (uint32_t i = 0; i < f->joint_count && !seen; i++) seen = f->joints[i] == path[n];
        if (seen) continue;
        if (f->joint_count == CROWD_FOOTIK_MAX_JOINTS) return false;
        f->joints[f->joint_count++] = path[n];
    }
    return true;
}

/* Model transform of joint j: its ancestors' local transforms composed. */
static sk_transform model_of(const sk_skeleton *s, const sk_transform *local, uint32_t j) {
    sk_transform m = local[j];
    for (int32_t p = s->parents[j]; p >= 0; p = s->parents[p]) m = sk_transform_mul(&local[p], &m);
    return m;
}

sk_result crowd_footik_init(crowd_footik *f, const sk_skeleton *skel, sk_error *err) {
    memset(f, 0, sizeof *f);
    f->skel = skel;
    sk_leg_desc legs[4];
    uint32_t n = cli_legs_find(skel, legs, 4);
    if (n < 2)
        return sk_error_set(err, SK_ERR_INVALID_DATA, "--hook footik: found %u legs in the skeleton (needs two: hip, knee, ankle)", n);
    f->legs = 2;
    for (uint32_t l = 0; l < 2; l++) {
        f->chain[l][0] = (uint32_t)legs[l].hip, f->chain[l][1] = (uint32_t)legs[l].knee, f->chain[l][2] = (uint32_t)legs[l].ankle;
        if (!add_with_ancestors(f, f->chain[l][2]))
            return sk_error_set(err, SK_ERR_LIMIT, "--hook footik: more than %u joints", CROWD_FOOTIK_MAX_JOINTS);
        f->ankle_rest[l] = model_of(skel, skel->rest, f->chain[l][2]).t.y;
    }
    return SK_OK;
}

sk_result crowd_footik_hook(void *user, uint32_t character, uint32_t thread, void *scratch, sk_pose *pose,
                            sk_error *err) {
    (void)character, (void)thread, (void)scratch;
    const crowd_footik *f = user;
    sk_ik_options o = {.solver = SK_IK_TWO_BONE};
    for (uint32_t l = 0; l < f->legs; l++) {
        sk_transform ankle = model_of(f->skel, pose->local, f->chain[l][2]);
        sk_ik_target t = {.position = ankle.t};
        if (t.position.y < f->ankle_rest[l]) t.position.y = f->ankle_rest[l]; /* onto the ground, never into it */
        sk_ik_chain c = {.skeleton = f->skel, .joints = f->chain[l], .count = 3};
        sk_result r = sk_ik_solve(&c, &t, &o, pose, NULL, 0, NULL, err);
        if (r != SK_OK) return r;
    }
    return SK_OK;
}
