/* skelanim command-line tool: the hard cases users report for foot
 * placement as scripted maneuvers (turning in place, a 180 degree turn
 * within a second, sidestepping, stopping mid-stride; docs/locomotion.md,
 * "Hard cases"): `locomote --maneuver NAME` and their rows in `bench
 * locomotion`. The character's point and facing follow a script, not the
 * path follower (which never turns in place nor walks sideways); the feet
 * are measured as for the table of walks (cli/loco_run.h). */
#include "loco_maneuver.h"

#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef enum hard_kind { HARD_TURN_IN_PLACE, HARD_TURN_180, HARD_SIDESTEP, HARD_STOP } hard_kind;

static const struct {
    hard_kind kind;
    const char *name;
} hard_cases[LOCO_MANEUVERS] = {
    {HARD_TURN_IN_PLACE, "turn-in-place"},
    {HARD_TURN_180, "turn-180"},
    {HARD_SIDESTEP, "sidestep"},
    {HARD_STOP, "stop-mid-stride"},
};

/* The scripted trajectory at time t (s): ground point (x, z), facing yaw
 * (yaw 0 faces +Z; +90 degrees faces +X), for the cruise speed v. */
typedef struct hard_state {
    double x, z, yaw, speed, heading; /* heading: the direction of travel */
} hard_state;

/* Speed ramps (2 m/s^2, as people start and stop within a step or two). */
static double ramp_to(double cur, double want, double dt) {
    double a = 2.0 * dt;
    return cur < want ? fmin(want, cur + a) : fmax(want, cur - a);
}

static void hard_step(hard_kind k, double v, double t, double dt, double stop_at, hard_state *s) {
    switch (k) {
    case HARD_TURN_IN_PLACE: /* stand 1 s, turn at 90 degrees/s for 4 s (a full turn), stand */
        if (t > 1.0 && t <= 5.0) s->yaw += 0.5 * M_PI * dt;
        return;
    case HARD_TURN_180: /* walk 3 s, turn the way of travel by 180 degrees within 1 s, walk 3 s */
        s->speed = ramp_to(s->speed, v, dt);
        if (t > 3.0 && t <= 4.0) s->heading += M_PI * dt;
        s->yaw = s->heading;
        break;
    case HARD_SIDESTEP: /* facing +Z, moving toward the character's left (+X) */
        s->speed = ramp_to(s->speed, t < 5.0 ? v : 0.0, dt);
        s->heading = 0.5 * M_PI;
        s->yaw = 0;
        break;
    case HARD_STOP: /* walk, then stop within 0.15 s mid-stride, stand */
        s->speed = t < stop_at ? ramp_to(s->speed, v, dt) : fmax(0.0, s->speed - v / 0.15 * dt);
        s->yaw = s->heading;
        break;
    }
    s->x += s->speed * sin(s->heading) * dt;
    s->z += s->speed * cos(s->heading) * dt;
}

static double hard_seconds(hard_kind k) {
    switch (k) {
    case HARD_TURN_IN_PLACE: return 6.5;
    case HARD_TURN_180: return 7.0;
    case HARD_SIDESTEP: return 6.5;
    case HARD_STOP: return 6.0;
    }
    return 6.0;
}

const char *loco_maneuver_name(uint32_t i) { return i < LOCO_MANEUVERS ? hard_cases[i].name : NULL; }

int loco_maneuver_find(const char *name) {
    for (uint32_t i = 0; i < LOCO_MANEUVERS; i++)
        if (!strcmp(name, hard_cases[i].name)) return (int)i;
    return -1;
}

bool loco_run_maneuver(loco_char *c, uint32_t which, double v, double fps, double seconds, loco_metrics *m,
                       double *twist_deg, loco_frame_fn frame, void *user) {
    hard_kind kind = hard_cases[which].kind;
    if (kind == HARD_TURN_IN_PLACE) v = 0;
    hard_state st = {0};
    sk_error err = {0};
    if ((c->proc ? sk_procedural_reset(c->proc, 0, 0, 0, &err) : sk_locomotor_reset(c->loco, 0, 0, 0, &err)) != SK_OK) {
        fprintf(stderr, "skelanim: locomotion: %s\n", err.message);
        return false;
    }
    /* The stop: mid-stride, the first frame after 3 s of walking at which a
     * foot is half way through its flight. */
    double stop_at = -1;
    loco_metrics_init(m, c->leg_count);
    const double dt = 1.0 / fps;
    m->dt = dt; /* the skate is measured too */
    double t = 0, total = seconds > 0 ? seconds : hard_seconds(kind), twist = 0;
    uint32_t steps = (uint32_t)ceil(total / dt);
    for (uint32_t n = 0; n < steps; n++) {
        t += dt;
        if (kind == HARD_STOP && stop_at < 0 && t >= 3.0) {
            if (c->loco) {
                const sk_locomotor_state *ls = sk_locomotor_get_state(c->loco);
                for (uint32_t l = 0; l < ls->leg_count; l++)
                    if (ls->feet[l].flight > 0.4f && ls->feet[l].flight < 0.6f) stop_at = t;
            } else {
                stop_at = t;
            }
        }
        hard_step(kind, v, t, dt, stop_at < 0 ? 1e9 : stop_at, &st);
        if (!loco_char_step(c, dt, (float)st.x, (float)st.z, (float)st.yaw)) return false;
        loco_metrics_frame(m, c);
        loco_feet ft;
        loco_char_feet(c, &ft);
        /* Twist: a planted foot's heading against the body's. */
        for (uint32_t l = 0; l < ft.legs; l++) {
            if (!ft.f[l].stance) continue;
            double fx = ft.f[l].toe.x - ft.f[l].heel.x, fz = ft.f[l].toe.z - ft.f[l].heel.z;
            if (fx * fx + fz * fz < 1e-6) continue;
            double d = atan2(fx, fz) - st.yaw;
            d = fabs(d - 2 * M_PI * floor(d / (2 * M_PI) + 0.5));
            twist = fmax(twist, d);
        }
        if (frame && !frame(user, c, t)) return false;
    }
    loco_metrics_finish(m);
    m->run_seconds = total;
    if (twist_deg) *twist_deg = twist * 180 / M_PI;
    return true;
}

int bench_locomotion_hard(bool quick, const char *character, const char *const *clips, uint32_t nclips) {
    static const double speeds[] = {0.5, 1.0, 1.8}, quick_speeds[] = {1.0};
    const double *sp = quick ? quick_speeds : speeds;
    size_t ns = quick ? 1 : 3;
    int failures = 0;
    loco_setup s = {.character = character ? character : SK_CLI_MANNEQUIN, .nclips = nclips};
    for (uint32_t i = 0; i < nclips && i < LOCO_MAX_CLIPS; i++) s.clips[i] = clips[i];
    loco_char c;
    if (!loco_char_create(&s, &c)) return 1;
    for (uint32_t k = 0; k < LOCO_MANEUVERS; k++) {
        bool in_place = hard_cases[k].kind == HARD_TURN_IN_PLACE;
        for (size_t i = 0; i < (in_place ? 1 : ns); i++) {
            double v = in_place ? 0.0 : sp[i], twist = 0;
            loco_metrics m;
            if (!loco_run_maneuver(&c, k, v, 60, 0, &m, &twist, NULL, NULL)) {
                failures++;
                continue;
            }
            const sk_locomotor_state *ls = sk_locomotor_get_state(c.loco);
            /* Where the feet are at the end against where the character is:
             * the feet followed it (no leg left behind). */
            double apart = 0;
            for (uint32_t l = 0; l < ls->leg_count; l++) {
                sk_vec3 d = sk_vec3_sub(ls->feet[l].ankle, ls->position);
                apart = fmax(apart, sqrt(d.x * d.x + d.z * d.z));
            }
            printf("{\"bench\":\"locomotion\",\"hard\":\"%s\",\"character\":\"%s\",\"speed\":%.2f,\"frames\":%u,"
                   "\"stance_fraction_all\":[",
                   hard_cases[k].name, s.character, v, m.frames);
            for (uint32_t l = 0; l < c.leg_count; l++)
                printf("%s%.3f", l ? "," : "", m.frames ? (double)m.stance_frames[l] / m.frames : 0.0);
            printf("],\"stance_runs\":%u,\"slide_max_cm\":%.3f,\"slide_mean_cm\":%.3f,\"contact_max_cm\":%.3f,"
                   "\"penetration_max_cm\":%.3f,\"ik_unreached\":%u,\"foot_twist_max_deg\":%.1f,\"end_yaw_deg\":%.1f,"
                   "\"feet_from_point_m\":%.3f,\"end\":[%.3f,%.3f]}\n",
                   m.runs, 100 * m.slide_max, m.runs ? 100 * m.slide_sum / m.runs : 0.0, 100 * m.contact_max,
                   100 * m.penetration_max, m.unreached, twist, ls->yaw * 180 / M_PI, apart, ls->position.x,
                   ls->position.z);
            fflush(stdout);
        }
    }
    loco_char_destroy(&c);
    return failures ? 1 : 0;
}
