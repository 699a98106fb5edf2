/* skelanim bench locomotion --procedural: the N-legged walker's rows
 * (locomotion/legged.h) for the creatures of content/creature.h, each in
 * its gaits, over the table's terrains with a 90 degree turn and a stop:
 * the foot metrics of cli/loco_run.h, the fewest feet down while walking
 * against the gait's guarantee, and the body's lowest height over the
 * ground against a stated clearance (a third of its rest height). */
#include "bench_locomotion.h"
#include "cli.h"

#include <math.h>
#include <string.h>

typedef struct bll_body { const char *character, *gait_name; int gait; } bll_body;

int bl_legged_rows(bool quick) {
    static const bll_body bodies[] = {
        {SK_CLI_TRIPOD, "wave", SK_LEGGED_GAIT_WAVE},
        {SK_CLI_QUADRUPED, "wave", SK_LEGGED_GAIT_WAVE},
        {SK_CLI_QUADRUPED, "trot", SK_LEGGED_GAIT_ALTERNATE},
        {SK_CLI_HEXAPOD, "tripod", SK_LEGGED_GAIT_ALTERNATE},
        {SK_CLI_HEXAPOD, "wave", SK_LEGGED_GAIT_WAVE},
    };
    static const struct { const char *terrain, *path; } cases[] = {
        {"flat", "0,0 0,6 6,6"},          {"ramp:10", "0,0 0,6 6,6"},  {"ramp:30", "0,0 0,6 6,6"},
        {"stairs:0.17,0.28", "0,0 0,6 6,6"}, {"bumps:0.1,1", "0,0 0,6 6,6"}, {"course", "0,-1 0,12 6,12"},
    };
    static const double speeds[] = {0.5, 1.0};
    int failures = 0;
    for (size_t b = 0; b < sizeof bodies / sizeof bodies[0]; b++)
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            cli_terrain *terrain = NULL;
            sk_error err = {0};
            if (cli_terrain_parse(cases[k].terrain, &terrain, &err) != SK_OK) {
                fprintf(stderr, "skelanim: %s\n", err.message);
                return 1;
            }
            loco_setup s = {.character = bodies[b].character, .procedural = true, .terrain = &terrain->terrain,
                            .gait = 1 + bodies[b].gait};
            loco_char c;
            if (!loco_char_create(&s, &c)) {
                cli_terrain_destroy(terrain);
                return 1;
            }
            for (size_t i = quick ? 1 : 0; i < 2; i++) {
                loco_metrics m;
                bool finished = false;
                const sk_legged_state *st = sk_legged_get_state(c.legged);
                double need = st->rest_height / 3.0;
                if (!loco_run_path(&c, cases[k].path, speeds[i], 90, 60, 0, &m, NULL, NULL, &finished)) {
                    failures++;
                    continue;
                }
                /* the path ended a second ago: how much longer until it stands, every foot down */
                double settle = 0;
                bool standing = !st->walking && st->planted == st->leg_count;
                for (; !standing && settle < 5.0; settle += 1.0 / 60) {
                    float yaw = st->yaw;
                    if (!loco_char_step(&c, 1.0 / 60, st->position.x, st->position.z, yaw)) break;
                    loco_metrics_frame(&m, &c);
                    standing = !st->walking && st->planted == st->leg_count;
                }
                loco_metrics_finish(&m);
                bool within = finished && standing && m.slide_max < 0.001 && m.contact_max < 0.01 &&
                              m.penetration_max < 0.01 && m.planted_min >= m.gait_min && m.clearance_min >= need;
                printf("{\"bench\":\"locomotion_legged\",\"character\":\"%s\",\"legs\":%u,\"gait\":\"%s\","
                       "\"terrain\":\"%s\",\"path\":\"%s\",\"speed\":%.2f,\"frames\":%u,\"finished\":%s,"
                       "\"standing_at_end\":%s,\"settle_s\":%.3f,\"stance_runs\":%u,\"slide_max_cm\":%.4f,\"contact_max_cm\":%.4f,"
                       "\"penetration_max_cm\":%.4f,\"skate\":%.4f,\"ik_unreached\":%u,\"planted_min\":%u,"
                       "\"gait_min_planted\":%u,\"clearance_min_m\":%.4f,\"clearance_limit_m\":%.4f,\"within\":%s}\n",
                       bodies[b].character + 1, c.leg_count, bodies[b].gait_name, cases[k].terrain, cases[k].path,
                       speeds[i], m.frames, finished ? "true" : "false", standing ? "true" : "false", settle, m.runs,
                       100 * m.slide_max, 100 * m.contact_max, 100 * m.penetration_max,
                       m.skate_low ? (double)m.skate_fast / m.skate_low : 0.0, m.unreached, m.planted_min, m.gait_min,
                       m.clearance_min, need, within ? "true" : "false");
                fflush(stdout);
            }
            loco_char_destroy(&c);
            cli_terrain_destroy(terrain);
        }
    return failures ? 1 : 0;
}
