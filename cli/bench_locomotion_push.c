/* skelanim bench locomotion --procedural: the push rows (bench_locomotion.h).
 * The mannequin walking straight along +Z at 1.4 m/s is pushed at 3 s
 * (sk_procedural_push) forward, backward, to its left and to its right, by
 * 0.5 to 3 m/s in 0.5 m/s steps (--quick: 0.5 m/s), and walks on to the
 * path's end: the foot metrics of the walk (loco_run.h), the frames outside
 * the limits, whether it fell (and lay down) and, when it did not, the
 * strongest push it recovered from per direction (one summary line per
 * direction, "push_summary"). */
#include "bench_locomotion.h"
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int bl_push_rows(bool quick) {
    static const struct { const char *name; float x, z; } dirs[4] = {
        {"forward", 0, 1}, {"backward", 0, -1}, {"left", 1, 0}, {"right", -1, 0}};
    int failures = 0;
    loco_setup s = {.character = SK_CLI_MANNEQUIN, .procedural = true};
    loco_char c;
    if (!loco_char_create(&s, &c)) return 1;
    for (int d = 0; d < 4; d++) {
        double best = 0;
        bool fell_before = false;
        for (int k = 1; k <= (quick ? 1 : 6); k++) {
            double dv = 0.5 * k;
            c.push_at = 3.0;
            c.push_dv = sk_vec3_make((float)(dirs[d].x * dv), 0, (float)(dirs[d].z * dv));
            loco_metrics m;
            bool finished = false;
            if (!loco_run_path(&c, "0,0 0,12", 1.4, 90, 60, 0, &m, NULL, NULL, &finished)) {
                failures++;
                continue;
            }
            bool fell = sk_procedural_get_state(c.proc)->mode == SK_PROCEDURAL_FALLEN;
            if (!fell && !fell_before && m.limit_outside == 0 && m.slide_max < 0.001) best = dv;
            fell_before = fell_before || fell;
            printf("{\"bench\":\"locomotion_push\",\"character\":\"mannequin\",\"terrain\":\"flat\",\"path\":\"0,0 0,12\","
                   "\"speed\":1.40,\"mode\":\"procedural\",\"push\":{\"at\":3,\"direction\":\"%s\",\"dv\":%.2f},"
                   "\"fell\":%s,\"frames\":%u,\"finished\":%s,\"stance_runs\":%u,\"slide_max_cm\":%.3f,"
                   "\"contact_max_cm\":%.3f,\"penetration_max_cm\":%.3f,\"limits_outside_frames\":%u}\n",
                   dirs[d].name, dv, fell ? "true" : "false", m.frames, finished ? "true" : "false", m.runs,
                   100 * m.slide_max, 100 * m.contact_max, 100 * m.penetration_max, m.limit_outside);
            fflush(stdout);
        }
        printf("{\"bench\":\"locomotion_push_summary\",\"direction\":\"%s\",\"strongest_recovered\":%.2f}\n", dirs[d].name, best);
    }
    c.push_at = -1;
    loco_char_destroy(&c);
    return failures ? 1 : 0;
}
