/* skelanim bench locomotion, second table: the mannequin walking the path
 * backward and sideways (locomote --face 180 / 90 / -90) with the whole
 * recommended clip set of seed 002 §4 (walk, run, walk_back, strafe_left,
 * strafe_right) in its motion group, on flat ground, a 10 degree ramp,
 * stairs and bumps; the metrics of skelanim locomote (cli/loco_run.h).
 * JSON lines {"bench":"locomotion_dir", ...}. */
#include "cli.h"
#include "loco_run.h"

#include <math.h>
#include <string.h>

typedef struct bd_mode {
    const char *name; /* "backward", "strafe_left", "strafe_right" */
    double face_deg;  /* the body's yaw against the path */
    double speeds[2]; /* the full table's speeds; --quick runs the second */
} bd_mode;

static const bd_mode bd_modes[] = {
    {"backward", 180, {0.6, 1.0}},
    {"strafe_left", 90, {0.5, 0.85}},   /* the path to the character's left: it sidesteps left */
    {"strafe_right", -90, {0.5, 0.85}},
};
static const char *const bd_terrains[] = {"flat", "ramp:10", "stairs:0.17,0.28", "bumps:0.1,1"};
static const char *const bd_clips[] = {"walk", "run", "walk_back", "strafe_left", "strafe_right"};
#define BD_PATH "0,0 0,6 6,6"

static void bd_print(const char *terrain, const bd_mode *md, double speed, const loco_char *c, const loco_metrics *m,
                     bool finished, double ms) {
    printf("{\"bench\":\"locomotion_dir\",\"terrain\":\"%s\",\"path\":\"%s\",\"mode\":\"%s\",\"face_deg\":%.0f,"
           "\"speed\":%.2f,\"frames\":%u,\"finished\":%s,\"stance_fraction\":[",
           terrain, BD_PATH, md->name, md->face_deg, speed, m->frames, finished ? "true" : "false");
    for (uint32_t l = 0; l < c->leg_count; l++)
        printf("%s%.3f", l ? "," : "", m->moving_frames ? (double)m->moving_stance[l] / m->moving_frames : 0.0);
    printf("],\"stance_fraction_all\":[");
    for (uint32_t l = 0; l < c->leg_count; l++)
        printf("%s%.3f", l ? "," : "", m->frames ? (double)m->stance_frames[l] / m->frames : 0.0);
    printf("],\"stance_runs\":%u,\"slide_max_cm\":%.3f,\"slide_mean_cm\":%.3f,\"contact_max_cm\":%.3f,"
           "\"contact_mean_cm\":%.3f,\"penetration_max_cm\":%.3f,\"ik_unreached\":%u,\"body_low\":%.3f,"
           "\"run_ms\":%.2f}\n",
           m->runs, 100 * m->slide_max, m->runs ? 100 * m->slide_sum / m->runs : 0.0, 100 * m->contact_max,
           m->contact_n ? 100 * m->contact_sum / m->contact_n : 0.0, 100 * m->penetration_max, m->unreached,
           m->body_set ? m->body_low : 1.0, ms);
    fflush(stdout);
}

int bl_table_dir(bool quick) {
    int failures = 0;
    for (size_t k = 0; k < sizeof bd_terrains / sizeof bd_terrains[0]; k++) {
        cli_terrain *terrain = NULL;
        sk_error err = {0};
        if (cli_terrain_parse(bd_terrains[k], &terrain, &err) != SK_OK) {
            fprintf(stderr, "skelanim: %s\n", err.message);
            return 1;
        }
        loco_setup s = {.character = SK_CLI_MANNEQUIN, .terrain = &terrain->terrain};
        for (uint32_t i = 0; i < sizeof bd_clips / sizeof bd_clips[0]; i++) s.clips[s.nclips++] = bd_clips[i];
        loco_char c;
        if (!loco_char_create(&s, &c)) {
            cli_terrain_destroy(terrain);
            return 1;
        }
        for (size_t mi = 0; mi < sizeof bd_modes / sizeof bd_modes[0]; mi++) {
            const bd_mode *md = &bd_modes[mi];
            c.face = (float)(md->face_deg * M_PI / 180.0);
            for (int si = quick ? 1 : 0; si < 2; si++) {
                loco_metrics m;
                bool finished = false;
                double t0 = cli_now();
                if (!loco_run_path(&c, BD_PATH, md->speeds[si], 90, 60, 0, &m, NULL, NULL, &finished)) {
                    failures++;
                    continue;
                }
                bd_print(bd_terrains[k], md, md->speeds[si], &c, &m, finished, (cli_now() - t0) * 1e3);
            }
        }
        loco_char_destroy(&c);
        cli_terrain_destroy(terrain);
    }
    return failures ? 1 : 0;
}
