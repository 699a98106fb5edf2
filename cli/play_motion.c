/* skelanim play: the input integrator (play_motion.h). */
#include "play_motion.h"

#include <math.h>

#define PI_F 3.14159265358979f

static float wrap(float a) {
    while (a > PI_F) a -= 2 * PI_F;
    while (a < -PI_F) a += 2 * PI_F;
    return a;
}
static float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

void play_body_reset(play_body *b, float x, float z, float yaw) {
    *b = (play_body){x, z, wrap(yaw), 0, 0, 0};
}

void play_body_step(play_body *b, const play_limits *lim, const play_intent *in, double dt) {
    if (!(dt > 0) || !isfinite(dt)) return;
    float fdt = (float)fmin(dt, 1.0);
    float cruise = in->run ? lim->run_speed : lim->walk_speed;
    float amount = clampf(isfinite(in->amount) ? in->amount : 0, 0, 1);
    float err = 0, v_want = 0, s_want = 0;
    bool go = !in->stop && amount > 0 && hypotf(in->dir_x, in->dir_z) > 1e-6f;
    if (go) { /* turn toward the asked direction, as the path follower turns toward its target */
        float want = atan2f(in->dir_x, in->dir_z);
        err = wrap(want - b->yaw);
        float l = lim->turn_rate * fdt;
        b->yaw = wrap(b->yaw + clampf(err, -l, l));
        v_want = cruise * amount * (1.0f - fminf(fabsf(err) / (0.5f * PI_F), 1.0f) * 0.7f);
    }
    if (!in->stop && isfinite(in->strafe)) s_want = clampf(in->strafe, -1, 1) * lim->walk_speed;
    float dv = lim->acceleration * fdt;
    b->speed += clampf(v_want - b->speed, -dv, dv);
    b->side += clampf(s_want - b->side, -dv, dv);
    /* right of the facing: yaw - 90 degrees (facing +Z, the right hand is -X) */
    float fx = sinf(b->yaw), fz = cosf(b->yaw), rx = -fz, rz = fx;
    float dx = (b->speed * fx + b->side * rx) * fdt, dz = (b->speed * fz + b->side * rz) * fdt;
    b->x += dx;
    b->z += dz;
    b->walked += hypot(dx, dz);
}
