/* skelanim — a character controller that follows a path:
 * a point on the ground plane that walks a polyline at a given speed, turns
 * with a bounded angular velocity, speeds up and slows down with a bounded
 * acceleration and stops at the path's end. Its position and facing drive a
 * locomotor (locomotion/locomotor.h), which picks idle, walk or run from the
 * resulting velocity.
 *
 * Steering: pure pursuit. The target is the point `lookahead` metres further
 * along the path than the point of the path closest to the character
 * (searched forward from the last one, so a path that crosses itself is
 * walked in order); the facing turns toward it at most max_turn_rate x dt
 * per step; the character moves along its facing. The speed is limited by
 * the turn (speed x |heading error| / (pi/2) is taken off, so a sharp corner
 * is walked slowly) and by the distance left along the path (v <= sqrt(2 a d)),
 * so it stops on the last point without overshooting. The path is walked by
 * its length: one that returns to an earlier point of itself (a U-turn, a
 * loop, a closed polygon ending where it began) is walked to its end, and the
 * follower finishes only on the path's last stretch.
 *
 * Memory: the path is copied into caller-owned storage (the struct holds up
 * to SK_PATH_MAX_POINTS points); nothing is allocated. */
#ifndef SKELANIM_LOCOMOTION_CONTROLLER_H
#define SKELANIM_LOCOMOTION_CONTROLLER_H

#include "skelanim/core/base.h"
#include "skelanim/core/math.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SK_PATH_MAX_POINTS 64

typedef struct sk_path_follower_desc {
    const float *points;      /* count (x, z) pairs, world metres; 2..SK_PATH_MAX_POINTS */
    uint32_t count;
    float speed;              /* cruise speed, m/s (0: 1.4); at most 20 */
    float max_turn_rate;      /* rad/s (0: pi/2, a quarter turn a second) */
    float acceleration;       /* m/s^2 for speeding up and braking (0: 2) */
    float lookahead;          /* m (0: 0.6) */
    float start_yaw;          /* facing at the start; NaN: toward the second point */
    bool start_moving;        /* start at cruise speed instead of standing */
} sk_path_follower_desc;

typedef struct sk_path_follower {
    float points[2 * SK_PATH_MAX_POINTS];
    float cumulative[SK_PATH_MAX_POINTS]; /* arc length at each point */
    uint32_t count;
    float speed_target, max_turn_rate, acceleration, lookahead;
    /* state */
    float x, z, yaw;          /* ground point and facing (yaw 0 = +Z) */
    float speed;              /* m/s */
    float progress;           /* arc length of the closest path point */
    bool finished;            /* at the last point and stopped */
} sk_path_follower;

/* Validates (finite points, 2..SK_PATH_MAX_POINTS of them, not all the same,
 * options finite and in range: SK_ERR_INVALID_ARGUMENT) and places the
 * character on the first point. */
SK_API sk_result sk_path_follower_init(sk_path_follower *pf, const sk_path_follower_desc *desc, sk_error *err);
/* Advances by dt seconds (dt <= 0 or non-finite: nothing happens). */
SK_API void sk_path_follower_step(sk_path_follower *pf, double dt);
/* Total path length (m). */
SK_API float sk_path_follower_length(const sk_path_follower *pf);

/* Parses "X,Z X,Z ..." (separated by spaces or semicolons) into at most cap
 * pairs; returns the number of points, or 0 with a message in err. */
SK_API uint32_t sk_path_parse(const char *text, float *xz, uint32_t cap, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
