/* skelanim — the character motor: controller input to velocity, facing and
 * idle/walk/run/crouch weights. No allocation; one sk_motor per character. */
#ifndef SKELANIM_ANIM_MOTOR_H
#define SKELANIM_ANIM_MOTOR_H

#include "skelanim/core/math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Character motor ------------------------------------------------------ */

typedef struct sk_motor_desc {
    float walk_speed;      /* m/s of the walk clip, 0 = 1.4 */
    float run_speed;       /* m/s of the run clip, 0 = 4.0 (> walk_speed) */
    float crouch_speed;    /* maximum speed while crouched, 0 = 1.0 */
    float acceleration;    /* m/s^2 towards the wanted velocity, 0 = 8 */
    float turn_rate;       /* rad/s, 0 = 10 */
    float crouch_rate;     /* crouch fraction per second, 0 = 4 */
    float jump_speed;      /* initial upward speed, 0 = 4.5 */
    float gravity;         /* m/s^2, 0 = 9.81 */
    float crouch_override; /* moving: crouch weight w -> w + (1 - w) x min(1, crouch x this),
                              the others scaled to keep the sum 1; 0 = 1 */
} sk_motor_desc;

typedef struct sk_motor_input {
    sk_vec3 direction; /* wanted horizontal direction (XZ; y ignored), length = fraction of run speed (<= 1) */
    bool run;          /* false: at most walk speed */
    bool crouch;
    bool jump;         /* starts a jump when on the ground */
} sk_motor_input;

enum { SK_MOTOR_IDLE = 0, SK_MOTOR_WALK = 1, SK_MOTOR_RUN = 2, SK_MOTOR_CROUCH = 3, SK_MOTOR_CLIPS = 4 };

typedef struct sk_motor {
    sk_motor_desc desc;    /* with defaults filled in */
    sk_vec3 velocity;      /* horizontal velocity (y: vertical speed while airborne) */
    float speed;           /* horizontal speed */
    float yaw;             /* facing, radians about +Y */
    float crouch;          /* 0..1 crouch fraction */
    float height;          /* height above ground while jumping (0 on the ground) */
    bool grounded;
    float weights[SK_MOTOR_CLIPS]; /* idle, walk, run, crouch: sum 1 */
    float blend_param[2];  /* blend-space parameter: local velocity (x = sideways, y = forward) */
} sk_motor;

/* Sets the motor at rest at the origin, grounded, idle weight 1, with desc's
 * tuning (NULL, or a zero member: the defaults). */
SK_API void sk_motor_init(sk_motor *m, const sk_motor_desc *desc /* NULL = defaults */);
/* One update: the same function serves the player (input from a device) and
 * AI characters (input from a planner). */
SK_API void sk_motor_update(sk_motor *m, const sk_motor_input *in, double dt_seconds);

#ifdef __cplusplus
}
#endif
#endif
