/* The foot-IK hook of `skelanim bench crowd --hook footik`: after the blend,
 * each leg (sk_legs_find) is solved with two-bone IK so that its ankle stays
 * at or above its rest height over flat ground at y = 0 (model space): the
 * post-process work a crowd on the ground does every frame. It lists the
 * joints it reads and writes (both legs and every ancestor of the hips), so
 * the batch pipeline keeps its structure-of-arrays path (batch.h,
 * post_joints). */
#ifndef SKELANIM_CLI_CROWD_FOOTIK_H
#define SKELANIM_CLI_CROWD_FOOTIK_H

#include "skelanim.h"

#define CROWD_FOOTIK_MAX_JOINTS 64u

typedef struct crowd_footik {
    const sk_skeleton *skel;
    uint32_t legs;
    uint32_t chain[2][3];   /* hip, knee, ankle of each leg */
    float ankle_rest[2];    /* each ankle's rest height (model y) */
    uint32_t joints[CROWD_FOOTIK_MAX_JOINTS]; /* the hook's joints, parents first */
    uint32_t joint_count;
} crowd_footik;

/* Finds the legs and the joints the hook needs. SK_ERR_INVALID_DATA when the
 * skeleton has no two legs sk_legs_find recognises, SK_ERR_LIMIT past
 * CROWD_FOOTIK_MAX_JOINTS joints. */
sk_result crowd_footik_init(crowd_footik *f, const sk_skeleton *skel, sk_error *err);

/* sk_batch_post_fn: user is the crowd_footik. Reads and writes only f->joints. */
sk_result crowd_footik_hook(void *user, uint32_t character, uint32_t thread, void *scratch, sk_pose *pose,
                            sk_error *err);

#endif
