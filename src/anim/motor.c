/* Character motor (seed 000 §4.4, example code 10): direction, run, crouch
 * and jump input -> velocity, facing and the idle/walk/run/crouch clip
 * weights, plus a blend-space parameter (the velocity in the character's
 * frame). The motor does not care where its input comes from: one player and
 * hundreds of AI characters use the same update (seed 000). */
#include "core/math_inline.h"
#include "skelanim/anim/motor.h"

#include <math.h>

static float def(float v, float d) { return v > 0.0f && sk_isfinite_f(v) ? v : d; }

void sk_motor_init(sk_motor *m, const sk_motor_desc *desc) {
    sk_motor_desc z = {0};
    if (!desc) desc = &z;
    memset(m, 0, sizeof *m);
    m->desc.walk_speed = def(desc->walk_speed, 1.4f);
    m->desc.run_speed = def(desc->run_speed, 4.0f);
    if (m->desc.run_speed <= m->desc.walk_speed) m->desc.run_speed = m->desc.walk_speed * 2.0f;
    m->desc.crouch_speed = def(desc->crouch_speed, 1.0f);
    m->desc.acceleration = def(desc->acceleration, 8.0f);
    m->desc.turn_rate = def(desc->turn_rate, 10.0f);
    m->desc.crouch_rate = def(desc->crouch_rate, 4.0f);
    m->desc.jump_speed = def(desc->jump_speed, 4.5f);
    m->desc.gravity = def(desc->gravity, 9.81f);
    m->desc.crouch_override = def(desc->crouch_override, 1.0f);
    m->grounded = true;
    m->weights[SK_MOTOR_IDLE] = 1.0f;
}

static float move_towards(float a, float b, float step) {
    if (a < b) return a + step < b ? a + step : b;
    return a - step > b ? a - step : b;
}

/* Seed 000's override_weight: raises one clip's weight to w_k + (1 - w_k) v
 * and scales the others down so the total stays exactly 1. */
static void override_weight(float *w, int k, float v) {
    if (!(v > 0.0f)) return;
    if (v > 1.0f) v = 1.0f;
    float old = w[k], nw = old + (1.0f - old) * v;
    float rest = 1.0f - old, scale = rest > 0.0f ? (1.0f - nw) / rest : 0.0f;
    for (int i = 0; i < SK_MOTOR_CLIPS; i++) w[i] = i == k ? nw : w[i] * scale;
}

void sk_motor_update(sk_motor *m, const sk_motor_input *in, double dt_seconds) {
    sk_motor_input none = {{0, 0, 0}, false, false, false};
    if (!in) in = &none;
    /* the motor integrates in float: one step of up to a second is plenty */
    float dt = dt_seconds > 0.0 ? (float)(dt_seconds < 1.0 ? dt_seconds : 1.0) : 0.0f;
    const sk_motor_desc *d = &m->desc;
    /* wanted horizontal velocity */
    float dx = sk_isfinite_f(in->direction.x) ? in->direction.x : 0.0f;
    float dz = sk_isfinite_f(in->direction.z) ? in->direction.z : 0.0f;
    float len = sqrtf(dx * dx + dz * dz);
    if (len > 1.0f) { dx /= len; dz /= len; len = 1.0f; }
    m->crouch = move_towards(m->crouch, in->crouch ? 1.0f : 0.0f, d->crouch_rate * dt);
    float top = in->run ? d->run_speed : d->walk_speed;
    top += (d->crouch_speed < top ? d->crouch_speed - top : 0.0f) * m->crouch;
    float wx = dx * top, wz = dz * top;
    /* accelerate towards it (steering control is reduced in the air) */
    float ax = wx - m->velocity.x, az = wz - m->velocity.z, dv = sqrtf(ax * ax + az * az);
    float step = d->acceleration * dt * (m->grounded ? 1.0f : 0.3f);
    if (dv > step && dv > 0.0f) { ax *= step / dv; az *= step / dv; }
    m->velocity.x += ax;
    m->velocity.z += az;
    m->speed = sqrtf(m->velocity.x * m->velocity.x + m->velocity.z * m->velocity.z);
    /* turn to face the motion */
    if (m->speed > 1e-3f) {
        float want = atan2f(m->velocity.x, m->velocity.z), diff = skm_wrap_angle(want - m->yaw);
        float turn = d->turn_rate * dt;
        m->yaw = skm_wrap_angle(m->yaw + (diff > turn ? turn : (diff < -turn ? -turn : diff)));
    }
    /* jump and gravity */
    if (m->grounded && in->jump) {
        m->grounded = false;
        m->velocity.y = d->jump_speed;
    }
    if (!m->grounded) {
        m->height += m->velocity.y * dt;
        m->velocity.y -= d->gravity * dt;
        if (m->height <= 0.0f) {
            m->height = 0.0f;
            m->velocity.y = 0.0f;
            m->grounded = true;
        }
    }
    /* clip weights: seed 000 example code 10 */
    float *w = m->weights, c = m->crouch, s = m->speed;
    for (int i = 0; i < SK_MOTOR_CLIPS; i++) w[i] = 0.0f;
    if (s < 0.00001f) {
        w[SK_MOTOR_IDLE] = 1.0f - c;
        w[SK_MOTOR_CROUCH] = c;
    } else if (s < d->walk_speed) {
        float t = s / d->walk_speed;
        w[SK_MOTOR_IDLE] = (1.0f - t) * (1.0f - c);
        w[SK_MOTOR_CROUCH] = (1.0f - t) * c;
        w[SK_MOTOR_WALK] = t;
        override_weight(w, SK_MOTOR_CROUCH, c * d->crouch_override);
    } else {
        float t = (s - d->walk_speed) / (d->run_speed - d->walk_speed);
        if (t > 1.0f) t = 1.0f;
        w[SK_MOTOR_WALK] = 1.0f - t;
        w[SK_MOTOR_RUN] = t;
        override_weight(w, SK_MOTOR_CROUCH, c * d->crouch_override);
    }
    /* blend-space parameter: velocity in the character's frame (x right, y forward) */
    float cy = cosf(m->yaw), sy = sinf(m->yaw);
    m->blend_param[1] = m->velocity.x * sy + m->velocity.z * cy;
    m->blend_param[0] = -(m->velocity.x * cy - m->velocity.z * sy);
}
