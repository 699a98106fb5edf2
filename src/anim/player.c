/* Per-instance playback state and marker events (seed 003 §4.2: local time,
 * speed, reverse playback, scrubbing; seed 000 §4.1 keeps one shared time and
 * wraps it per clip, which its author notes causes artefacts — here every
 * instance keeps its own time). The event rule is documented in player.h. */
#include "core/internal.h"
#include "skelanim/anim/player.h"

#include <math.h>

static double period_of(sk_loop_mode w, double d) { return w == SK_LOOP_PING_PONG ? 2.0 * d : d; }

void sk_player_init(sk_player *p, const sk_player_desc *desc) {
    sk_player_desc z = {0};
    if (!desc) desc = &z;
    memset(p, 0, sizeof *p);
    double d = desc->duration;
    p->duration = (d > 0.0 && isfinite(d)) ? d : 0.0;
    p->loop = (desc->loop == SK_LOOP_CLAMP || desc->loop == SK_LOOP_PING_PONG) ? desc->loop : SK_LOOP_REPEAT;
    p->period = period_of(p->loop, p->duration);
    p->speed = (desc->speed == 0.0f || !sk_isfinite_f(desc->speed)) ? 1.0f : desc->speed;
    p->paused = desc->paused;
    sk_player_seek(p, desc->start_time);
}

void sk_player_set_speed(sk_player *p, float speed) { p->speed = sk_isfinite_f(speed) ? speed : 0.0f; }
void sk_player_set_paused(sk_player *p, bool paused) { p->paused = paused; }

void sk_player_seek(sk_player *p, double t) {
    if (!(p->period > 0.0) || !isfinite(t)) {
        p->pos = 0.0;
        return;
    }
    if (p->loop == SK_LOOP_CLAMP) {
        p->pos = t < 0.0 ? 0.0 : (t > p->duration ? p->duration : t);
        return;
    }
    double w = t - p->period * floor(t / p->period);
    if (!(w >= 0.0) || w >= p->period) w = 0.0;
    p->pos = w;
}

void sk_player_seek_phase(sk_player *p, double phase) { sk_player_seek(p, phase * p->period); }

double sk_player_clip_time(const sk_player *p) {
    if (p->loop == SK_LOOP_PING_PONG && p->pos > p->duration) {
        double t = p->period - p->pos;
        return t < 0.0 ? 0.0 : t;
    }
    return p->pos;
}

double sk_player_phase(const sk_player *p) { return p->period > 0.0 ? p->pos / p->period : 0.0; }

double sk_player_unrolled(const sk_player *p) { return (double)p->cycle * p->period + p->pos; }

bool sk_player_finished(const sk_player *p) {
    if (p->loop != SK_LOOP_CLAMP) return false;
    return p->speed >= 0.0f ? p->pos >= p->duration : p->pos <= 0.0;
}

sk_result sk_markers_validate(const sk_marker *m, uint32_t n, double d, sk_error *err) {
    if (n && !m) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "markers: NULL array with count %u", n);
    for (uint32_t i = 0; i < n; i++) {
        if (!isfinite(m[i].time) || m[i].time < 0.0 || m[i].time > d)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "markers[%u] (%s): time %g outside [0, %g]", i,
                                m[i].name ? m[i].name : "", m[i].time, d);
        if (i && m[i].time < m[i - 1].time)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "markers[%u] (%s): time %g before markers[%u] (%g); sort them",
                                i, m[i].name ? m[i].name : "", m[i].time, i - 1, m[i - 1].time);
    }
    return SK_OK;
}

/* Event emission state for one step. */
typedef struct emit_ctx {
    const sk_marker *m;
    sk_event_fn fn;
    void *user;
    double a, b;          /* unrolled step, relative to the current cycle start */
    int64_t cycle0;
    uint64_t count;
    bool stop;
} emit_ctx;

/* Offers the marker crossing at relative position x (in cycle k); returns
 * false when the scan in this direction can stop (x is past the step end). */
static bool offer(emit_ctx *c, int64_t k, double base, double x, uint32_t i, int dir) {
    double u = base + x;
    bool forward = c->b > c->a;
    if (forward) {
        if (u > c->b) return false;
        if (u <= c->a) return true;
    } else {
        if (u < c->b) return false;
        if (u >= c->a) return true;
    }
    sk_event ev;
    ev.name = c->m[i].name;
    ev.marker = i;
    ev.clip_time = c->m[i].time;
    ev.cycle = c->cycle0 + k;
    ev.step_fraction = (u - c->a) / (c->b - c->a);
    ev.direction = dir;
    c->count++;
    if (!c->fn(c->user, &ev)) c->stop = true;
    return !c->stop;
}

/* PING_PONG turning points: 0 is always reached going backwards in clip
 * time, d going forwards. */
static int turn_dir(double m, double d, int dir) { return m <= 0.0 ? -1 : (m >= d ? 1 : dir); }

/* REPEAT/PING_PONG: positions of the markers inside one cycle, scanned in
 * playback order; returns false to stop scanning further cycles. */
static bool scan_cycle(emit_ctx *c, const sk_player *p, uint32_t n, int64_t k) {
    double d = p->duration, base = (double)k * p->period;
    bool fwd = c->b > c->a;
    if (p->loop == SK_LOOP_REPEAT) {
        /* a marker at m == d is the cycle start (0) */
        if (fwd) {
            for (uint32_t i = 0; i < n; i++)
                if (c->m[i].time >= d && !offer(c, k, base, 0.0, i, 1)) return false;
            for (uint32_t i = 0; i < n; i++)
                if (c->m[i].time < d && !offer(c, k, base, c->m[i].time, i, 1)) return false;
        } else {
            for (uint32_t i = n; i-- > 0;)
                if (c->m[i].time < d && !offer(c, k, base, c->m[i].time, i, -1)) return false;
            for (uint32_t i = n; i-- > 0;)
                if (c->m[i].time >= d && !offer(c, k, base, 0.0, i, -1)) return false;
        }
        return true;
    }
    /* PING_PONG: out (0..d, clip time = x) then back (d..2d, clip time = 2d - x). */
    if (fwd) {
        for (uint32_t i = 0; i < n; i++)
            if (!offer(c, k, base, c->m[i].time, i, turn_dir(c->m[i].time, d, 1))) return false;
        for (uint32_t i = n; i-- > 0;) {
            double m = c->m[i].time;
            if (m <= 0.0 || m >= d) continue; /* turning points: reported once */
            if (!offer(c, k, base, 2.0 * d - m, i, -1)) return false;
        }
    } else {
        for (uint32_t i = 0; i < n; i++) {
            double m = c->m[i].time;
            if (m <= 0.0 || m >= d) continue;
            if (!offer(c, k, base, 2.0 * d - m, i, 1)) return false;
        }
        for (uint32_t i = n; i-- > 0;)
            if (!offer(c, k, base, c->m[i].time, i, turn_dir(c->m[i].time, d, -1))) return false;
    }
    return true;
}

uint64_t sk_player_step(sk_player *p, double dt, const sk_marker *m, uint32_t n, sk_event_fn fn, void *user) {
    if (!(p->period > 0.0) || !isfinite(dt) || dt == 0.0) return 0;
    double max_dt = SK_PLAYER_MAX_STEP_CYCLES * p->period; /* no cycle count beyond 1e9 per step (player.h) */
    if (dt > max_dt) dt = max_dt;
    if (dt < -max_dt) dt = -max_dt;
    emit_ctx c = {m, fn, user, p->pos, p->pos + dt, p->cycle, 0, false};
    if (p->loop == SK_LOOP_CLAMP) {
        double b = c.b < 0.0 ? 0.0 : (c.b > p->duration ? p->duration : c.b);
        c.b = b;
        if (fn && n && b != c.a) {
            if (b > c.a) {
                for (uint32_t i = 0; i < n && !c.stop; i++)
                    if (!offer(&c, 0, 0.0, m[i].time, i, 1)) break;
            } else {
                for (uint32_t i = n; i-- > 0 && !c.stop;)
                    if (!offer(&c, 0, 0.0, m[i].time, i, -1)) break;
            }
        }
        p->pos = b;
        return c.count;
    }
    if (fn && n) {
        /* |c.b| <= (1 + 1e9) periods: the cast is defined; markers of at most
         * SK_PLAYER_MAX_EVENT_CYCLES cycles are reported (player.h) */
        double kd = floor(c.b / p->period);
        if (kd > SK_PLAYER_MAX_EVENT_CYCLES) kd = SK_PLAYER_MAX_EVENT_CYCLES;
        if (kd < -SK_PLAYER_MAX_EVENT_CYCLES) kd = -SK_PLAYER_MAX_EVENT_CYCLES;
        int64_t k_end = (int64_t)kd;
        if (c.b > c.a) {
            for (int64_t k = 0; k <= k_end; k++)
                if (!scan_cycle(&c, p, n, k)) break; /* past the step end, or the callback stopped */
        } else {
            for (int64_t k = 0; k >= k_end; k--)
                if (!scan_cycle(&c, p, n, k)) break;
        }
    }
    double u = c.b;
    double cyc = floor(u / p->period);
    double pos = u - cyc * p->period;
    if (pos >= p->period) {
        pos -= p->period;
        cyc += 1.0;
    }
    if (!(pos >= 0.0)) pos = 0.0;
    if (!(pos < p->period)) pos = 0.0; /* rounding of a step of 1e9 periods */
    p->pos = pos;
    /* the count in double, saturated: never a cast of an unbounded float */
    double nc = (double)p->cycle + cyc;
    if (!(nc < SK_PLAYER_MAX_CYCLE)) nc = SK_PLAYER_MAX_CYCLE;
    if (!(nc > -SK_PLAYER_MAX_CYCLE)) nc = -SK_PLAYER_MAX_CYCLE;
    p->cycle = (int64_t)nc;
    return c.count;
}

uint64_t sk_player_advance(sk_player *p, double dt, const sk_marker *m, uint32_t n, sk_event_fn fn, void *user) {
    if (p->paused) return 0;
    return sk_player_step(p, dt * (double)p->speed, m, n, fn, user);
}
