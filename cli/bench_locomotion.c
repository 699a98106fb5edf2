/* skelanim bench locomotion: foot skate and ground contact of the
 * semi-procedural locomotion (issue #10) over scripted paths with a 90 degree
 * turn on flat ground, ramps, stairs, bumps and the triangle-mesh course, at
 * walking and running speeds, each beside the --plain baseline (the clips
 * with the root motion replaced by the path); and the cost of the
 * locomotion step (tracking, footstep prediction, terrain rays on the mesh
 * course, swing trajectories, hip adjustment, leg IK; clip sampling and
 * blending excluded) for a crowd, and the same with the frame's model
 * matrices (what skinning or a renderer reads next) obtained. JSON lines.
 *
 *   skelanim bench locomotion [--procedural] [--quick] [--count N] [--frames N] [--no-table]
 *
 * --procedural: the IK-only walker (seed 004) instead, over the same paths
 * plus a ledge (walking up to its edge), backward walks (flat, 10 degree
 * ramps up and down, stairs) and straight up and down the 30 and 45 degree
 * ramps, no baseline; its cost is the whole
 * sk_procedural_update (steps, body, two-bone legs, arm swing), and the
 * same with the frame's model matrices.
 *
 * The metrics are those of skelanim locomote (cli/loco_run.h). */
#include "bench_locomotion.h"
#include "loco_maneuver.h"
#include "cli.h"
#include "loco_run.h"
#include "bench_locomotion_capture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a walk of the table: terrain, path, facing backward, crouched under a
 * height (0: upright); the IK-only walker's extras: a jump at a time (0:
 * none), the head looking at (3, 1.6, 3) */
typedef struct bl_case { const char *terrain, *path; bool backward; double crouch, jump; bool look; } bl_case;

static const bl_case bl_cases_proc_extra[] = {
    {"ledge:1", "0,-3 0,0.8", false, 0, 0, false}, /* up to the edge: no step past it */
    /* walking backward (facing against the path), the same metrics */
    {"flat", "0,0 0,6 6,6", true, 0, 0, false},
    {"ramp:10", "0,0 0,6 6,6", true, 0, 0, false},
    {"ramp:-10", "0,0 0,6 6,6", true, 0, 0, false},
    {"stairs:0.17,0.28", "0,0 0,6 6,6", true, 0, 0, false},
    /* straight up and down the steep ramps (the table's paths turn to walk across them) */
    {"ramp:30", "0,0 0,6", false, 0, 0, false},
    {"ramp:30", "0,8 0,1", false, 0, 0, false},
    {"ramp:45", "0,0 0,6", false, 0, 0, false},
    {"ramp:45", "0,8 0,1", false, 0, 0, false},
    /* over convex ground: up a ramp onto its flat top, and from a flat top down a ramp */
    {"ramp:30,2", "0,0 0,6", false, 0, 0, false},
    {"ramp:45,2", "0,0 0,6", false, 0, 0, false},
    {"ramp:-30", "0,0 0,6", false, 0, 0, false},
    {"ramp:-45", "0,0 0,6", false, 0, 0, false},
    /* crouched, the head under 1.3 m (sk_procedural_crouch) */
    {"flat", "0,0 0,6 6,6", false, 1.3, 0, false},
    {"stairs:0.17,0.28", "0,0 0,6 6,6", false, 1.3, 0, false},
    /* a jump while walking, walking off a 1 m ledge (the fall), off a 2.5 m one (the hang), the gaze */
    {"flat", "0,0 0,6", false, 0, 1.5, false},
    {"ledge:1", "0,-1 0,3", false, 0, 0, false},
    {"ledge:2.5", "0,-1 0,3", false, 0, 0, false},
    {"flat", "0,0 0,6 6,6", false, 0, 0, true},
};

static const bl_case bl_cases[] = {
    {"flat", "0,0 0,6 6,6", false, 0, 0, false},
    {"ramp:10", "0,0 0,6 6,6", false, 0, 0, false},
    {"ramp:30", "0,0 0,6 6,6", false, 0, 0, false},
    {"ramp:45", "0,0 0,6 6,6", false, 0, 0, false},
    {"stairs:0.17,0.28", "0,0 0,6 6,6", false, 0, 0, false},
    {"bumps:0.1,1", "0,0 0,6 6,6", false, 0, 0, false},
    {"course", "0,-1 0,12 6,12", false, 0, 0, false},
};

/* The frame's model matrices in world space (the state's root), as
 * skinning or a renderer reads them after the locomotion step: the
 * runtime's own (sk_locomotor_model, sk_procedural_model), which it computed
 * placing the feet, read where they are (before the runtimes kept them, this
 * stage was a sk_local_to_model of the pose). */
static sk_result bl_model_locomotor(const sk_locomotor *L, const sk_mat4 **out, sk_error *err) {
    *out = sk_locomotor_model(L);
    return *out ? SK_OK : sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "no model matrices after adjust");
}
static sk_result bl_model_procedural(const sk_procedural *P, const sk_mat4 **out, sk_error *err) {
    *out = sk_procedural_model(P);
    return *out ? SK_OK : sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "no model matrices after the update");
}

static bool running_ok(const char *t) {
    return !strcmp(t, "flat") || !strcmp(t, "ramp:10") || !strncmp(t, "bumps", 5) || !strcmp(t, "course");
}

static int bl_table(bool quick, bool procedural) {
    static const double walk[] = {0.5, 1.0, 1.4, 1.8}, run[] = {2.5, 3.5};
    int failures = 0;
    size_t ncases = sizeof bl_cases / sizeof bl_cases[0],
           nextra = procedural ? sizeof bl_cases_proc_extra / sizeof bl_cases_proc_extra[0] : 0;
    /* with --procedural, the sprite (the 2D cut-out, content/sprite.h) walks the table's cases too */
    size_t nsprite = procedural ? ncases : 0;
    for (size_t k = 0; k < ncases + nextra + nsprite; k++) {
        bool sprite = k >= ncases + nextra;
        const bl_case *cs = sprite ? &bl_cases[k - ncases - nextra]
                            : k < ncases ? &bl_cases[k] : &bl_cases_proc_extra[k - ncases];
        cli_terrain *terrain = NULL;
        sk_error err = {0};
        if (cli_terrain_parse(cs->terrain, &terrain, &err) != SK_OK) {
            fprintf(stderr, "skelanim: %s\n", err.message);
            return 1;
        }
        for (int plain = 0; plain < (procedural ? 1 : 2); plain++) {
            loco_setup s = {.character = sprite ? SK_CLI_SPRITE : SK_CLI_MANNEQUIN, .plain = plain != 0,
                            .procedural = procedural, .terrain = &terrain->terrain};
            loco_char c;
            if (!loco_char_create(&s, &c)) {
                cli_terrain_destroy(terrain);
                return 1;
            }
            c.backward = cs->backward;
            c.crouch = sprite ? 0 : cs->crouch;
            c.jump_at = !sprite && cs->jump > 0 ? cs->jump : -1;
            c.look = !sprite && cs->look;
            c.look_at = sk_vec3_make(3, 1.6f, 3);
            size_t nw = quick ? 2 : 4, nr = running_ok(cs->terrain) ? (quick ? 1 : 2) : 0;
            if (k >= ncases && !sprite)
                nw = quick ? 1 : cs->backward || cs->crouch > 0 ? 3 : !strncmp(cs->terrain, "ramp", 4) ? 4 : 2, nr = 0;
            if (k >= ncases && !sprite && (cs->jump > 0 || cs->look || !strcmp(cs->path, "0,-1 0,3")))
                nw = quick ? 1 : 3, nr = 0; /* 0.5, 1.0, 1.4 m/s */
            if (sprite) nw = quick ? 1 : 2, nr = quick || !running_ok(cs->terrain) ? 0 : 1; /* 1.0, 1.4; 2.5 m/s */
            for (size_t i = 0; i < nw + nr; i++) {
                double speed = sprite ? (i < nw ? walk[1 + i] : run[0])
                                      : i < nw ? (quick ? walk[1 + 2 * i] : walk[i]) : run[quick ? 1 : i - nw];
                loco_metrics m;
                bool finished = false;
                double t0 = cli_now();
                if (!loco_run_path(&c, cs->path, speed, 90, 60, 0, &m, NULL, NULL, &finished)) {
                    failures++;
                    continue;
                }
                double ms = (cli_now() - t0) * 1e3;
                printf("{\"bench\":\"locomotion\",\"character\":\"%s\",\"terrain\":\"%s\",\"path\":\"%s\",%s\"speed\":%.2f,"
                       "\"mode\":\"%s\",\"frames\":%u,\"finished\":%s,\"stance_fraction\":[",
                       sprite ? "sprite" : "mannequin", cs->terrain, cs->path,
                       cs->backward                  ? "\"backward\":true,"
                       : cs->crouch > 0 && !sprite   ? "\"crouch\":1.3,"
                       : cs->jump > 0 && !sprite     ? "\"jump\":1.5,"
                       : cs->look && !sprite         ? "\"look\":[3,1.6,3],"
                       : !strcmp(cs->terrain, "ledge:2.5") ? "\"hang\":true,"
                                                     : "",
                       speed,
                       procedural ? "procedural" : plain ? "plain" : "placed", m.frames, finished ? "true" : "false");
                for (uint32_t l = 0; l < c.leg_count; l++)
                    printf("%s%.3f", l ? "," : "", m.moving_frames ? (double)m.moving_stance[l] / m.moving_frames : 0.0);
                printf("],\"stance_fraction_all\":[");
                for (uint32_t l = 0; l < c.leg_count; l++)
                    printf("%s%.3f", l ? "," : "", m.frames ? (double)m.stance_frames[l] / m.frames : 0.0);
                printf("],\"stance_runs\":%u,\"slide_max_cm\":%.3f,\"slide_mean_cm\":%.3f,\"contact_max_cm\":%.3f,"
                       "\"contact_mean_cm\":%.3f,\"penetration_max_cm\":%.3f,\"ik_unreached\":%u,",
                       m.runs, 100 * m.slide_max, m.runs ? 100 * m.slide_sum / m.runs : 0.0, 100 * m.contact_max,
                       m.contact_n ? 100 * m.contact_sum / m.contact_n : 0.0, 100 * m.penetration_max, m.unreached);
                if (c.limits) printf("\"limits_outside_frames\":%u,", m.limit_outside);
                if (m.body_set) printf("\"body_low\":%.3f,", m.body_set ? m.body_low : 1.0);
                printf("\"far_max_cm\":%.3f,\"off_flat\":{\"frames\":%u,\"ball\":%u,\"heel\":%u,\"other\":%u},",
                       100 * m.far_max, m.off_flat, m.off_flat_ball, m.off_flat_heel,
                       m.off_flat - m.off_flat_ball - m.off_flat_heel);
                printf("\"run_ms\":%.2f}\n", ms);
                fflush(stdout);
            }
            loco_char_destroy(&c);
        }
        cli_terrain_destroy(terrain);
    }
    return failures ? 1 : 0;
}

/* N characters on the mesh course, each on its own lane; the locomotion
 * step alone (advance + adjust) is timed, sampling and blending are not. */
static int bl_cost_procedural(uint32_t count, uint32_t frames) {
    cli_terrain *terrain = NULL;
    sk_error err = {0};
    if (cli_terrain_parse("course", &terrain, &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s\n", err.message);
        return 1;
    }
    loco_setup s = {.character = SK_CLI_MANNEQUIN, .procedural = true, .terrain = &terrain->terrain};
    loco_char c;
    if (!loco_char_create(&s, &c)) {
        cli_terrain_destroy(terrain);
        return 1;
    }
    uint32_t J = c.asset->skeleton->joint_count;
    sk_procedural **P = calloc(count, sizeof *P);
    sk_transform *poses = calloc((size_t)count * J, sizeof *poses);
    const sk_mat4 **model_of = calloc(count, sizeof *model_of);
    float *x = calloc(count, sizeof *x), *z = calloc(count, sizeof *z);
    double *ft = calloc(frames, sizeof *ft), *fc = calloc(frames, sizeof *fc);
    double *fm = calloc(frames, sizeof *fm), *fmc = calloc(frames, sizeof *fmc);
    int rc = 1;
    if (!P || !poses || !model_of || !x || !z || !ft || !fc || !fm || !fmc) goto done;
    sk_procedural_desc pd = {0};
    pd.skeleton = c.asset->skeleton;
    pd.legs[0] = c.legs[0], pd.legs[1] = c.legs[1];
    pd.body_joint = -1;
    pd.terrain = terrain->terrain;
    pd.arm_count = loco_find_arms(c.asset->skeleton, pd.arms);
    for (uint32_t i = 0; i < count; i++) {
        if (sk_procedural_create(&pd, NULL, &P[i], &err) != SK_OK) {
            fprintf(stderr, "skelanim: %s\n", err.message);
            goto done;
        }
        x[i] = -7.5f + 15.0f * (float)((i * 37) % count) / (float)count;
        z[i] = -1.0f + 0.02f * (float)(i % 50);
        sk_procedural_reset(P[i], x[i], z[i], 0, &err);
    }
    const double dt = 1.0 / 60, speed = 1.4;
    uint32_t warm = 30, rays = 0, timed = 0;
    double best = INFINITY, sum = 0;
    for (uint32_t f = 0; f < warm + frames; f++) {
        double t0 = cli_now(), c0 = cli_thread_cpu_now();
        for (uint32_t i = 0; i < count; i++) {
            z[i] += (float)(speed * dt);
            sk_pose p = sk_pose_view(poses + (size_t)i * J, J, NULL, 0);
            if (sk_procedural_update(P[i], dt, x[i], z[i], 0, &p, &err) != SK_OK) {
                fprintf(stderr, "skelanim: procedural: %s\n", err.message);
                goto done;
            }
        }
        double t = cli_now() - t0, tc = cli_thread_cpu_now() - c0;
        /* the frame's model matrices (world: the state's root) */
        double m0 = cli_now(), mc0 = cli_thread_cpu_now();
        for (uint32_t i = 0; i < count; i++) {
            if (bl_model_procedural(P[i], &model_of[i], &err) != SK_OK) {
                fprintf(stderr, "skelanim: procedural: %s\n", err.message);
                goto done;
            }
        }
        double tm = cli_now() - m0, tmc = cli_thread_cpu_now() - mc0;
        if (f >= warm) {
            if (t < best) best = t;
            sum += t;
            fc[timed] = tc;
            fm[timed] = t + tm;
            fmc[timed] = tc + tmc;
            ft[timed++] = t;
            for (uint32_t i = 0; i < count; i++) rays += sk_procedural_get_state(P[i])->rays;
        }
    }
    qsort(ft, timed, sizeof *ft, cli_cmp_double);
    qsort(fc, timed, sizeof *fc, cli_cmp_double);
    qsort(fm, timed, sizeof *fm, cli_cmp_double);
    qsort(fmc, timed, sizeof *fmc, cli_cmp_double);
    /* the wall clock, and the thread's CPU time (the same work without the
     * time other processes held the core: on a shared machine) */
    printf("{\"bench\":\"locomotion_cost\",\"runtime\":\"procedural\",\"characters\":%u,\"legs\":2,\"terrain\":\"course\","
           "\"frames\":%u,\"frame_ms_min\":%.4f,\"frame_ms_median\":%.4f,\"frame_ms_mean\":%.4f,"
           "\"frame_cpu_ms_min\":%.4f,\"frame_cpu_ms_median\":%.4f,\"frame_cpu_ms_p90\":%.4f,"
           "\"ns_per_character_min\":%.1f,\"ns_per_character_median\":%.1f,\"rays_per_character_frame\":%.2f,"
           "\"with_model_frame_ms_min\":%.4f,\"with_model_frame_ms_median\":%.4f,"
           "\"with_model_frame_cpu_ms_min\":%.4f,\"with_model_frame_cpu_ms_median\":%.4f}\n",
           count, timed, best * 1e3, ft[timed / 2] * 1e3, sum / timed * 1e3, fc[0] * 1e3, fc[timed / 2] * 1e3,
           fc[timed * 9 / 10] * 1e3, best * 1e9 / count, ft[timed / 2] * 1e9 / count,
           (double)rays / ((double)timed * count), fm[0] * 1e3, fm[timed / 2] * 1e3, fmc[0] * 1e3,
           fmc[timed / 2] * 1e3);
    rc = 0;
done:
    if (P)
        for (uint32_t i = 0; i < count; i++) sk_procedural_destroy(P[i]);
    free(P);
    free(poses);
    free(model_of);
    free(x);
    free(z);
    free(ft);
    free(fc);
    free(fm);
    free(fmc);
    loco_char_destroy(&c);
    cli_terrain_destroy(terrain);
    return rc;
}

int bl_cost_crowd(const loco_char *cc, const char *bench, const char *extra, uint32_t count, uint32_t frames,
                  uint32_t group) {
    const loco_char c = *cc;
    sk_error err = {0};
    uint32_t J = c.asset->skeleton->joint_count;
    sk_locomotor **L = calloc(count, sizeof *L);
    sk_transform *poses = calloc((size_t)count * J, sizeof *poses);
    const sk_mat4 **model_of = calloc(count, sizeof *model_of);
    float *x = calloc(count, sizeof *x), *z = calloc(count, sizeof *z);
    double *ft = NULL, *fm = NULL, *fmc = NULL;
    int rc = 1;
    if (!L || !poses || !model_of || !x || !z) goto done;
    for (uint32_t i = 0; i < count; i++) {
        if (sk_locomotor_create(&c.desc, NULL, &L[i], &err) != SK_OK) {
            fprintf(stderr, "skelanim: %s\n", err.message);
            goto done;
        }
        x[i] = -7.5f + 15.0f * (float)((i * 37) % count) / (float)count; /* lanes across the course */
        z[i] = -1.0f + 0.02f * (float)(i % 50);
        sk_locomotor_reset(L[i], x[i], z[i], 0, &err);
    }
    const double dt = 1.0 / 60, speed = 1.4;
    uint32_t warm = 30, rays = 0;
    double best = INFINITY, sum = 0, sum_adv = 0;
    uint32_t timed = 0;
    ft = calloc(frames, sizeof *ft);
    fm = calloc(frames, sizeof *fm);
    fmc = calloc(frames, sizeof *fmc);
    if (!ft || !fm || !fmc) goto done;
    /* group 0: each stage over every character before the next stage (passes); else over group
     * characters at a time, as a game updating its characters one by one (1) or a few at a time */
    const uint32_t G = group ? group : count;
    /* a thread's CPU time costs a system call (0.7 us on the Zen 3 guest of 1 Dec 2026, against 33 ns
     * for the wall clock): taken per stage in passes only, outside the wall clock's intervals */
    const bool cpu = G >= count;
    for (uint32_t f = 0; f < warm + frames; f++) {
        double t_adv = 0, t_adj = 0, c_adv = 0, c_adj = 0, t_mod = 0, c_mod = 0;
        for (uint32_t g0 = 0; g0 < count; g0 += G) {
            uint32_t g1 = count - g0 < G ? count : g0 + G;
            double c0 = cpu ? cli_thread_cpu_now() : 0, t0 = cli_now();
            for (uint32_t i = g0; i < g1; i++) {
                z[i] += (float)(speed * dt);
                if (sk_locomotor_advance(L[i], dt, x[i], z[i], 0, &err) != SK_OK) goto fail;
            }
            t_adv += cli_now() - t0;
            if (cpu) c_adv += cli_thread_cpu_now() - c0;
            for (uint32_t i = g0; i < g1; i++) {
                sk_pose p = sk_pose_view(poses + (size_t)i * J, J, NULL, 0);
                if (sk_locomotor_sample(L[i], &p, &err) != SK_OK) goto fail;
            }
            c0 = cpu ? cli_thread_cpu_now() : 0, t0 = cli_now();
            for (uint32_t i = g0; i < g1; i++) {
                sk_pose p = sk_pose_view(poses + (size_t)i * J, J, NULL, 0);
                if (sk_locomotor_adjust(L[i], &p, &err) != SK_OK) goto fail;
            }
            t_adj += cli_now() - t0;
            if (cpu) c_adj += cli_thread_cpu_now() - c0;
            /* the frame's model matrices (world: the state's root) */
            c0 = cpu ? cli_thread_cpu_now() : 0, t0 = cli_now();
            for (uint32_t i = g0; i < g1; i++) {
                if (bl_model_locomotor(L[i], &model_of[i], &err) != SK_OK) goto fail;
            }
            t_mod += cli_now() - t0;
            if (cpu) c_mod += cli_thread_cpu_now() - c0;
        }
        if (f >= warm) {
            double t = t_adv + t_adj;
            if (t < best) best = t;
            sum += t;
            sum_adv += t_adv;
            fm[timed] = t + t_mod;
            fmc[timed] = c_adv + c_adj + c_mod;
            ft[timed++] = t;
            for (uint32_t i = 0; i < count; i++) rays += sk_locomotor_get_state(L[i])->rays;
        }
    }
    qsort(ft, timed, sizeof *ft, cli_cmp_double);
    qsort(fm, timed, sizeof *fm, cli_cmp_double);
    qsort(fmc, timed, sizeof *fmc, cli_cmp_double);
    char cpu_ms[128] = ""; /* the thread's CPU time: passes only (above) */
    if (cpu)
        snprintf(cpu_ms, sizeof cpu_ms, ",\"with_model_frame_cpu_ms_min\":%.4f,\"with_model_frame_cpu_ms_median\":%.4f",
                 fmc[0] * 1e3, fmc[timed / 2] * 1e3);
    char order[64];
    if (group) snprintf(order, sizeof order, "\"order\":\"groups\",\"group\":%u,", group);
    else snprintf(order, sizeof order, "\"order\":\"passes\",");
    printf("{\"bench\":\"%s\",%s%s%s\"characters\":%u,\"legs\":%u,\"terrain\":\"course\",\"frames\":%u,"
           "\"frame_ms_min\":%.4f,\"frame_ms_median\":%.4f,\"frame_ms_mean\":%.4f,\"ns_per_character_min\":%.1f,"
           "\"ns_per_character_median\":%.1f,\"advance_share\":%.3f,\"rays_per_character_frame\":%.2f,"
           "\"with_model_frame_ms_min\":%.4f,\"with_model_frame_ms_median\":%.4f%s}\n",
           bench, extra ? extra : "", extra && extra[0] ? "," : "", order, count, c.leg_count, timed, best * 1e3, ft[timed / 2] * 1e3, sum / timed * 1e3, best * 1e9 / count,
           ft[timed / 2] * 1e9 / count, sum > 0 ? sum_adv / sum : 0.0, (double)rays / ((double)timed * count),
           fm[0] * 1e3, fm[timed / 2] * 1e3, cpu_ms);
    rc = 0;
    goto done;
fail:
    fprintf(stderr, "skelanim: locomotion: %s\n", err.message);
done:
    if (L)
        for (uint32_t i = 0; i < count; i++) sk_locomotor_destroy(L[i]);
    free(ft);
    free(fm);
    free(fmc);
    free(L);
    free(poses);
    free(model_of);
    free(x);
    free(z);
    return rc;
}

static int bl_cost(uint32_t count, uint32_t frames, uint32_t group) {
    cli_terrain *terrain = NULL;
    sk_error err = {0};
    if (cli_terrain_parse("course", &terrain, &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s\n", err.message);
        return 1;
    }
    loco_setup s = {.character = SK_CLI_MANNEQUIN, .terrain = &terrain->terrain};
    loco_char c;
    int rc = 1;
    if (loco_char_create(&s, &c)) {
        rc = bl_cost_crowd(&c, "locomotion_cost", NULL, count, frames, group);
        loco_char_destroy(&c);
    }
    cli_terrain_destroy(terrain);
    return rc;
}

typedef struct bl_args {
    uint32_t count, frames, group;
    bool quick, procedural, no_table;
    int captures;          /* -1: all, or ci with --quick (bench_locomotion_capture.h) */
    bool captures_only, legged_only;
    const char *data, *held_out, *character;
    int half;              /* --half: 0 reporting, 1 tuning */
} bl_args;

static int bench_locomotion(int argc, char **argv) {
    bl_args a;
    memset(&a, 0, sizeof a);
    a.captures = -1, a.data = "../shared";
    int prc = cli_parse(&cli_cmd_bench_locomotion, argc, argv, &a, NULL);
    if (prc != CLI_CONTINUE) return prc;
    bool quick = a.quick, table = !a.no_table, procedural = a.procedural;
    uint32_t count = a.count, frames = a.frames;
    /* the capture rows (none with --procedural): --captures none|ci|all */
    blc_which captures = procedural ? BLC_NONE : a.captures >= 0 ? (blc_which)a.captures : quick ? BLC_NONE : BLC_ALL;
    int rc = 0;
    if (procedural && a.group) {
        fprintf(stderr, "skelanim: bench locomotion: --group orders the clip locomotor's cost measure, not --procedural's\n");
        return 1;
    }
    if (a.legged_only) return bl_legged_rows(quick);
    if (table && !a.captures_only) rc |= bl_table(quick, procedural);
    if (table && !a.captures_only && procedural) rc |= bl_push_rows(quick);
    if (table && !a.captures_only && procedural) rc |= bl_legged_rows(quick);
    if (table && !a.captures_only && !procedural) rc |= bl_table_dir(quick); /* bench_locomotion_dir.c */
    if (table && !a.captures_only && !procedural) rc |= bench_locomotion_hard(quick, NULL, NULL, 0);
    if (table) rc |= blc_table(captures, a.data);
    if (a.character && !a.held_out) {
        fprintf(stderr, "skelanim: bench locomotion: --character needs --held-out DIR (the rows it walks)\n");
        return 1;
    }
    if (table && a.held_out) rc |= blc_held_out(a.held_out, a.half ? "tuning" : "reporting", a.data, a.character);
    if (!a.captures_only) rc |= procedural ? bl_cost_procedural(count, frames) : bl_cost(count, frames, a.group);
    if (captures != BLC_NONE) rc |= blc_cost(count, frames, a.group, a.data);
    return rc;
}

static const cli_opt bl_opts[] = {
    {"--procedural", CLI_FLAG(bl_args, procedural), .help = "the IK-only walker (seed 004) instead of the clips"},
    {"--quick", CLI_FLAG(bl_args, quick), .help = "fewer speeds in the table (a check, not a measure)"},
    {"--count", CLI_INT(bl_args, count), .meta = "N", .min = 1, .max = 100000, .dflt = "1000",
     .help = "characters of the cost measure, on the mesh course"},
    {"--frames", CLI_INT(bl_args, frames), .meta = "N", .min = 1, .max = 100000, .dflt = "120",
     .help = "frames of the cost measure"},
    {"--group", CLI_INT(bl_args, group), .meta = "N", .min = 0, .max = 100000, .dflt = "0",
     .help = "the cost measure's order: 0, each stage (advance, sample, adjust, the model matrices) over every "
             "character before the next; N, over N characters at a time (1: each character's whole update in turn, "
             "as a game calling sk_locomotor_update per character)"},
    {"--no-table", CLI_FLAG(bl_args, no_table), .help = "only the cost measure, not the table of walks"},
    {"--captures", CLI_CHOICE(bl_args, captures, "none|ci|all"),
     .help = "the rows of the shared CMU walks and run on the mannequin and CesiumMan (ci: a few)",
     .dflt_text = "all; none with --quick"},
    {"--captures-only", CLI_FLAG(bl_args, captures_only), .help = "only the capture rows and their cost"},
    {"--legged-only", CLI_FLAG(bl_args, legged_only),
     .help = "only the rows of the N-legged walker's creatures (" SK_CLI_TRIPOD ", " SK_CLI_QUADRUPED ", " SK_CLI_HEXAPOD
             ", part of --procedural's table)"},
    {"--data", CLI_STRING(bl_args, data), .meta = "DIR", .dflt_text = "../shared",
     .help = "the shared data of the capture rows: DIR/mocap/bvh and DIR/assets/gltf/CesiumMan"},
    {"--held-out", CLI_STRING(bl_args, held_out), .meta = "DIR",
     .help = "also the rows of the reporting half's walks and runs of DIR/split.tsv (tests/data/cmu: captures "
             "never tuned on), marked held_out"},
    {"--half", CLI_CHOICE(bl_args, half, "reporting|tuning"), .dflt = "reporting",
     .help = "with --held-out: the half of DIR/split.tsv whose rows to run; tuning rows are marked "
             "\"half\":\"tuning\""},
    {"--character", CLI_STRING(bl_args, character), .meta = "FILE", .dflt_text = "the mannequin and CesiumMan",
     .help = "with --held-out: walk FILE (a humanoid .glb/.gltf, an imported file, or @mannequin) instead; its rows "
             "are named by the file's stem"},
};
const cli_command cli_cmd_bench_locomotion = {
    .name = "bench locomotion",
    .run = bench_locomotion,
    .summary = "foot slide over every terrain; the locomotion step's cost",
    .about = "Foot slide, contact and penetration of walks over every terrain with a 90 degree "
             "turn, beside the plain clips, and the cost of the locomotion step for a crowd on "
             "the mesh course; JSON lines.",
    .opts = bl_opts,
    .nopts = CLI_COUNT(bl_opts),
};
