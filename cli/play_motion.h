/* skelanim play: the character's ground point and facing, integrated from
 * the player's input with the limits of the path follower
 * (locomotion/controller.h): the facing turns toward the asked direction at
 * most turn_rate x dt per step, the speed follows the asked speed with at
 * most acceleration x dt of change per step, and the asked speed is lowered
 * in a sharp turn exactly as the follower lowers it (by 0.7 x |heading
 * error| / 90 degrees, at most 0.7). A sideways (strafe) speed follows the
 * asked one with the same acceleration, the facing held. Units: metres,
 * seconds, radians; yaw 0 faces +Z, yaw pi/2 faces +X (as everywhere). */
#ifndef SK_CLI_PLAY_MOTION_H
#define SK_CLI_PLAY_MOTION_H

#include <stdbool.h>

typedef struct play_limits {
    float walk_speed, run_speed;    /* m/s */
    float turn_rate;                /* rad/s */
    float acceleration;             /* m/s^2 */
} play_limits;

/* What the player asks for in one step, in the world. */
typedef struct play_intent {
    float dir_x, dir_z;             /* the direction to walk (need not be unit); 0, 0: stand */
    float amount;                   /* 0..1: how far the stick is pushed (keys: 1) */
    float strafe;                   /* -1..1: sideways to the character's left (-) or right (+) */
    bool run, stop;                 /* stop: every asked speed 0 */
} play_intent;

typedef struct play_body {
    float x, z, yaw;                /* ground point, facing */
    float speed;                    /* along the facing, m/s (>= 0) */
    float side;                     /* to the right of the facing, m/s */
    double walked;                  /* m: the length of the ground path so far */
} play_body;

void play_body_reset(play_body *b, float x, float z, float yaw);
/* One step of dt seconds (dt <= 0 or not finite: nothing). */
void play_body_step(play_body *b, const play_limits *lim, const play_intent *in, double dt);

#endif
